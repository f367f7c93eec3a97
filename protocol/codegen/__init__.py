"""Generate :mod:`protocol.messages` from Apache Kafka's JSON message specs.

``spec`` parses the JSON into a model, ``emit`` turns the model into Python source and
``__main__`` writes (or, with ``--check``, compares) the output directory.
"""
