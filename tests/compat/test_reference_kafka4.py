"""The Apache Kafka 4.x reference (KRaft combined mode, from Maven Central's jars) that the
tests of the KIP-848 consumer group protocol compare pybroker with, where Kafka 3.9 in
ZooKeeper mode cannot answer: it starts, and it serves a group of the new protocol to
confluent-kafka (``group.protocol=consumer``) - the calibration those tests rest on."""

from __future__ import annotations

import time
import uuid

import pytest

from protocol.messages import list_groups_request as lg
from pybroker.testing.reference_kafka4 import ReferenceKafka4
from pybroker.testing.wire_client import WireClient

pytestmark = pytest.mark.compat


@pytest.mark.long  # make test-long: the harness's own check, until the KIP-848 tests use it
def test_the_kafka4_reference_serves_a_consumer_protocol_group(
        reference_kafka4: ReferenceKafka4) -> None:
    from confluent_kafka import Consumer, Producer
    from confluent_kafka.admin import AdminClient, NewTopic

    bootstrap = reference_kafka4.bootstrap
    topic, group = f"k4-{uuid.uuid4().hex[:6]}", f"k4-g-{uuid.uuid4().hex[:6]}"
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(topic, 2, 1)])[topic].result(30)
    producer = Producer({"bootstrap.servers": bootstrap})
    for i in range(6):
        producer.produce(topic, b"v%d" % i, partition=i % 2)
    assert producer.flush(30) == 0
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": group,
                         "group.protocol": "consumer", "auto.offset.reset": "earliest"})
    try:
        consumer.subscribe([topic])
        values: list[bytes] = []
        deadline = time.monotonic() + 60
        while len(values) < 6 and time.monotonic() < deadline:
            msg = consumer.poll(0.5)
            if msg is not None and msg.error() is None:
                values.append(msg.value())
        assert sorted(values) == [b"v%d" % i for i in range(6)]
        with WireClient(bootstrap) as client:
            groups = client.call(16, 5, lg.ListGroupsRequest(states_filter=[],
                                                             types_filter=["consumer"]))
        assert (group, "consumer") in {(g.group_id, g.group_type) for g in groups.groups}, \
            groups
    finally:
        consumer.close()
