"""``/feature`` (KIP-584) as Kafka 3.9's controller keeps it in ZooKeeper mode: created enabled
and empty by the first controller, byte for byte as Kafka writes it; a disabled node found by a
new controller is enabled again without its features, as Kafka's
``enableFeatureVersioning`` does."""

from __future__ import annotations

from kazoo.client import KazooClient

from pybroker.testing.cluster import ClusterProcesses, wait_for

#: what a Kafka 3.9 controller writes (read from the reference Kafka's ZooKeeper)
KAFKA_FEATURE_ZNODE = b'{"features":{},"version":2,"status":1}'


def test_the_controller_keeps_the_feature_znode_enabled(cluster: ClusterProcesses,
                                                        zk: KazooClient) -> None:
    assert zk.get("/feature")[0] == KAFKA_FEATURE_ZNODE
    zk.set("/feature", b'{"features":{"group.version":{"max_version_level":1}},'
                       b'"version":2,"status":0}')
    controller = cluster.wait_formed()
    cluster.broker(controller).kill()
    wait_for(lambda: cluster.wait_formed() != controller, 60, "a new controller")
    wait_for(lambda: zk.get("/feature")[0] == KAFKA_FEATURE_ZNODE, 30,
             "the new controller to enable /feature again")
