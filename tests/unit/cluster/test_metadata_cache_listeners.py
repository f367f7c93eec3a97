"""The metadata cache answers each listener with that listener's endpoints."""

from __future__ import annotations

from pybroker.cluster.metadata_cache import BrokerEndpoint, BrokerNode, MetadataCache

NODES = [
    BrokerNode(1, (("INTERNAL", "broker-1", 29092), ("EXTERNAL", "localhost", 9092))),
    BrokerNode(2, (("INTERNAL", "broker-2", 29092), ("EXTERNAL", "localhost", 9093)), "r2"),
    BrokerNode(3, (("INTERNAL", "broker-3", 29092),)),
]


def test_update_metadata_keeps_every_listener() -> None:
    cache = MetadataCache("c", controller_id=-1, listener="INTERNAL")
    cache.update_metadata(1, NODES, [])
    assert cache.brokers_for("INTERNAL") == cache.brokers == {
        1: BrokerEndpoint(1, "broker-1", 29092), 2: BrokerEndpoint(2, "broker-2", 29092, "r2"),
        3: BrokerEndpoint(3, "broker-3", 29092)}
    # broker 3 has no EXTERNAL listener: Kafka leaves it out of that listener's answers
    assert cache.brokers_for("EXTERNAL") == {
        1: BrokerEndpoint(1, "localhost", 9092), 2: BrokerEndpoint(2, "localhost", 9093, "r2")}
    assert cache.brokers_for("OTHER") == {}
    assert cache.brokers_for("") == cache.brokers


def test_the_embedded_node_sets_its_own() -> None:
    cache = MetadataCache("c", controller_id=1, listener="INTERNAL")
    cache.set_brokers([BrokerEndpoint(1, "broker-1", 29092)], [NODES[0]])
    assert cache.brokers_for("EXTERNAL") == {1: BrokerEndpoint(1, "localhost", 9092)}
    assert cache.brokers_for("INTERNAL") == {1: BrokerEndpoint(1, "broker-1", 29092)}
