"""Our znode codecs read what Apache Kafka 3.9 itself wrote to ZooKeeper, and write it back
the same: the reference broker's registration, the controller, the controller epoch and the
cluster id, then a topic created through Kafka's admin API (its assignment, its configs and
each partition's state). Values are compared as parsed JSON."""

from __future__ import annotations

import asyncio
import json
import uuid

from confluent_kafka.admin import AdminClient, NewTopic

from pybroker.testing.reference_kafka import ReferenceKafka
from pybroker.zk.client import NoNodeError, ZkClient
from pybroker.zk.znodes import (
    BrokerIdZNode,
    ClusterIdZNode,
    ConfigEntityZNode,
    ControllerEpochZNode,
    ControllerZNode,
    TopicPartitionStateZNode,
    TopicZNode,
)


def create_topic(ref: ReferenceKafka, topic: str) -> None:
    admin = AdminClient({"bootstrap.servers": ref.bootstrap})
    futures = admin.create_topics([NewTopic(topic, num_partitions=2, replication_factor=1)],
                                  operation_timeout=30)
    futures[topic].result(timeout=60)


async def read_when_written(zk: ZkClient, path: str, timeout: float = 30.0) -> bytes:
    """The data at ``path``, waiting for it to appear (the controller writes partition states
    after the assignment)."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        try:
            data, _ = await zk.get(path)
            return data
        except NoNodeError:
            if asyncio.get_running_loop().time() > deadline:
                raise
            await asyncio.sleep(0.1)


def same_json(a: bytes, b: bytes) -> bool:
    return bool(json.loads(a) == json.loads(b))


def test_codecs_read_and_rewrite_what_kafka_wrote(reference_kafka: ReferenceKafka) -> None:
    topic = f"zk-codecs-{uuid.uuid4().hex[:8]}"
    create_topic(reference_kafka, topic)

    async def main() -> None:
        zk = ZkClient(reference_kafka.zookeeper_connect, connection_timeout_ms=30000)
        await zk.start()
        try:
            data, _ = await zk.get(BrokerIdZNode.path(0))
            broker = BrokerIdZNode.decode(0, data)
            assert broker.version == 5
            assert [(e.listener_name, e.host, e.port) for e in broker.endpoints] == [
                ("PLAINTEXT", "127.0.0.1", reference_kafka.port)]
            assert same_json(BrokerIdZNode.encode(broker), data), data

            data, _ = await zk.get(ControllerZNode.PATH)
            controller = ControllerZNode.decode(data)
            assert controller.broker_id == 0 and controller.kraft_controller_epoch == -1
            assert same_json(ControllerZNode.encode(controller), data), data

            data, _ = await zk.get(ControllerEpochZNode.PATH)
            epoch = ControllerEpochZNode.decode(data)
            assert epoch >= 1 and ControllerEpochZNode.encode(epoch) == data

            data, _ = await zk.get(ClusterIdZNode.PATH)
            assert same_json(ClusterIdZNode.encode(ClusterIdZNode.decode(data)), data), data

            data, _ = await zk.get(TopicZNode.path(topic))
            assignment = TopicZNode.decode(topic, data)
            assert assignment.topic_id is not None
            assert assignment.replicas() == {0: (0,), 1: (0,)}
            assert same_json(TopicZNode.encode(assignment), data), data

            data, _ = await zk.get(ConfigEntityZNode.path("topics", topic))
            assert ConfigEntityZNode.decode(data) == {}
            assert same_json(ConfigEntityZNode.encode({}), data), data

            for p in (0, 1):
                path = TopicPartitionStateZNode.path((topic, p))
                data = await read_when_written(zk, path)
                state = TopicPartitionStateZNode.decode(data)
                assert state is not None
                assert (state.leader, state.isr, state.controller_epoch) == (0, (0,), epoch)
                assert same_json(TopicPartitionStateZNode.encode(state), data), data
        finally:
            await zk.close()

    asyncio.run(asyncio.wait_for(main(), 120))
