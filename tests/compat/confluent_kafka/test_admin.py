"""confluent-kafka AdminClient against pybroker."""

from __future__ import annotations

import time

import pytest
from confluent_kafka import KafkaError, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewPartitions, NewTopic

from pybroker.testing.broker_process import BrokerProcess
from tests.compat.confluent_kafka.helpers import (
    consumer,
    create_topic,
    read_back,
    wait_for_partitions,
)

pytestmark = pytest.mark.compat


@pytest.fixture
def admin(module_broker: BrokerProcess) -> AdminClient:
    return AdminClient({"bootstrap.servers": module_broker.bootstrap})


def test_create_list_delete_topics(
    admin: AdminClient, module_broker: BrokerProcess, topic: str
) -> None:
    names = [f"{topic}-a", f"{topic}-b"]
    futures = admin.create_topics(
        [NewTopic(names[0], num_partitions=4, replication_factor=1), NewTopic(names[1], 1, 1)],
        operation_timeout=20,
    )
    for name in names:
        assert futures[name].result(timeout=30) is None
    wait_for_partitions(admin, names[0], 4)
    wait_for_partitions(admin, names[1], 1)

    md = admin.list_topics(timeout=10)
    assert set(names) <= set(md.topics)
    assert sorted(md.topics[names[0]].partitions) == [0, 1, 2, 3]
    for p in md.topics[names[0]].partitions.values():
        assert p.leader == 0 and p.replicas == [0] and p.isrs == [0]
    assert list(md.brokers) == [0]
    assert (md.brokers[0].host, md.brokers[0].port) == ("127.0.0.1", module_broker.port)

    futures = admin.delete_topics(names, operation_timeout=20)
    for name in names:
        assert futures[name].result(timeout=30) is None
    deadline = time.monotonic() + 15
    while set(names) & set(admin.list_topics(timeout=10).topics):
        assert time.monotonic() < deadline, "deleted topics still listed"
        time.sleep(0.2)


def test_create_existing_topic_fails(admin: AdminClient, topic: str) -> None:
    admin.create_topics([NewTopic(topic, 1, 1)])[topic].result(timeout=30)
    with pytest.raises(Exception) as info:
        admin.create_topics([NewTopic(topic, 1, 1)])[topic].result(timeout=30)
    assert info.value.args[0].code() == KafkaError.TOPIC_ALREADY_EXISTS


def test_create_partitions(admin: AdminClient, topic: str) -> None:
    admin.create_topics([NewTopic(topic, 1, 1)])[topic].result(timeout=30)
    wait_for_partitions(admin, topic, 1)
    admin.create_partitions([NewPartitions(topic, 3)])[topic].result(timeout=30)
    wait_for_partitions(admin, topic, 3)


def test_delete_unknown_topic_fails(admin: AdminClient, topic: str) -> None:
    with pytest.raises(Exception) as info:
        admin.delete_topics([topic], operation_timeout=10)[topic].result(timeout=30)
    assert info.value.args[0].code() == KafkaError.UNKNOWN_TOPIC_OR_PART


def test_delete_topic_with_data_then_recreate(
    admin: AdminClient, module_broker: BrokerProcess, topic: str
) -> None:
    """Deleting removes the data too: a topic created again under the same name starts empty."""
    create_topic(module_broker.bootstrap, topic, 2)
    producer = Producer({"bootstrap.servers": module_broker.bootstrap, "linger.ms": 5})
    for i in range(200):
        producer.produce(topic, value=b"old-%d" % i, partition=i % 2)
    assert producer.flush(30) == 0

    admin.delete_topics([topic], operation_timeout=20)[topic].result(timeout=30)
    deadline = time.monotonic() + 15
    while topic in admin.list_topics(timeout=10).topics:
        assert time.monotonic() < deadline, "deleted topic still listed"
        time.sleep(0.2)

    create_topic(module_broker.bootstrap, topic, 1)
    c = consumer(module_broker.bootstrap)
    try:
        assert c.get_watermark_offsets(TopicPartition(topic, 0), timeout=10, cached=False) == (0, 0)
    finally:
        c.close()
    producer.produce(topic, value=b"new", partition=0)
    assert producer.flush(30) == 0
    got = read_back(module_broker.bootstrap, topic, [0])[0]
    assert [(m.offset(), m.value()) for m in got] == [(0, b"new")]
