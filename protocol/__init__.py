"""Kafka's binary protocol, sans-IO: primitives, generated message codecs, headers, framing,
record batches, compression and error codes. It knows nothing of sockets or of the broker."""
