"""Tools beside the broker: the generators of the docs drawn from the code (``make gen``: the
API table, the state machine diagrams, the metrics list, the layer table) and ``pybroker
state-change-log merge``."""
