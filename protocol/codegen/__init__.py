"""Generate :mod:`protocol.messages` from Apache Kafka's JSON message specs.

``import_specs`` reads a folder of Kafka's specs once into the schema file committed under
``protocol/schema/``; ``spec`` loads that file into a model, ``emit`` turns the model into
Python source and ``__main__`` writes (or, with ``--check``, compares) the output directory.
"""
