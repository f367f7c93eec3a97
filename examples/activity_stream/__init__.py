"""The activity-stream pipeline: page views into pybroker, per-page counts out of Spark.

``events`` makes the page views, ``generator`` produces them, ``job`` is the PySpark
Structured Streaming job, and ``run`` (``make pipeline``) wires all of it to an embedded broker.
"""
