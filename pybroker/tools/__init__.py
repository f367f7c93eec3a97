"""The generators of the docs drawn from the code (``make gen``): the API table, the state machine
diagrams, the layer table."""
