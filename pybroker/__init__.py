"""pybroker: an Apache Kafka broker in Python (asyncio) that speaks Kafka's binary protocol, so
stock clients run against it unmodified."""
