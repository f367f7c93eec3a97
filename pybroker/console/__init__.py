"""``pybroker console``: a web console for Kafka clusters, pybroker's and Apache Kafka's alike.

It runs as a process of its own, like Kafka Manager, and talks to each configured cluster over
the Kafka protocol only: librdkafka's admin client (confluent-kafka) for almost everything, and
the generated codecs over a plain connection where that client lacks a call. Nothing here runs
on a broker's event loop or imports a broker's internals (``.importlinter``).

* :mod:`.settings` - the clusters, the listen address, read-only mode, basic authentication;
* :mod:`.cluster` - what a cluster is asked, as plain data;
* :mod:`.app` - the pages and the JSON API (Flask); :mod:`.server` - serving it (waitress).
"""
