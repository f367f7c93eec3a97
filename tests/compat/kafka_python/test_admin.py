"""kafka-python 3.x KafkaAdminClient against pybroker."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from kafka import KafkaAdminClient, KafkaProducer
from kafka.admin import ConfigResource, ConfigResourceType

from pybroker.testing.broker_process import BrokerProcess

pytestmark = pytest.mark.compat


@pytest.fixture
def admin(module_broker: BrokerProcess) -> Iterator[KafkaAdminClient]:
    client = KafkaAdminClient(bootstrap_servers=module_broker.bootstrap, request_timeout_ms=20_000)
    try:
        yield client
    finally:
        client.close()


def partitions_of(admin: KafkaAdminClient, topic: str) -> list[dict]:
    (described,) = admin.describe_topics([topic])
    assert described["error_code"] == 0, described
    return sorted(described["partitions"], key=lambda p: p["partition_index"])


def wait_until(predicate, what: str, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.2)


def test_create_list_describe_delete_topic(admin: KafkaAdminClient, topic: str) -> None:
    result = admin.create_topics({topic: {"num_partitions": 3, "replication_factor": 1}})
    assert [(t["name"], t["error_code"]) for t in result["topics"]] == [(topic, 0)]
    assert topic in admin.list_topics()

    parts = partitions_of(admin, topic)
    assert [p["partition_index"] for p in parts] == [0, 1, 2]
    assert all(p["leader_id"] == 0 and p["error_code"] == 0 for p in parts)

    result = admin.delete_topics([topic])
    assert [(t["name"], t["error_code"]) for t in result["topics"]] == [(topic, 0)]
    wait_until(lambda: topic not in admin.list_topics(), f"{topic} to disappear")


def test_create_topic_twice_reports_topic_already_exists(admin: KafkaAdminClient, topic: str) -> None:
    admin.create_topics({topic: {"num_partitions": 1, "replication_factor": 1}})
    result = admin.create_topics(
        {topic: {"num_partitions": 1, "replication_factor": 1}}, raise_errors=False
    )
    assert [(t["name"], t["error_code"]) for t in result["topics"]] == [(topic, 36)]


def test_create_partitions(admin: KafkaAdminClient, topic: str) -> None:
    admin.create_topics({topic: {"num_partitions": 2, "replication_factor": 1}})
    response = admin.create_partitions({topic: 5})
    assert [(r.name, r.error_code) for r in response.results] == [(topic, 0)]
    wait_until(lambda: len(partitions_of(admin, topic)) == 5, f"{topic} to have 5 partitions")
    assert all(p["leader_id"] == 0 for p in partitions_of(admin, topic))


def test_describe_configs_topic_and_broker(admin: KafkaAdminClient, topic: str) -> None:
    admin.create_topics(
        {topic: {"num_partitions": 1, "replication_factor": 1, "configs": {"retention.ms": "3600000"}}}
    )
    configs = admin.describe_configs(
        [ConfigResource(ConfigResourceType.TOPIC, topic)], config_filter="all"
    )
    topic_configs = configs["topic"][topic]
    assert topic_configs["retention.ms"]["value"] == "3600000"
    assert topic_configs["retention.ms"]["config_source"] == "DYNAMIC_TOPIC_CONFIG"
    assert "cleanup.policy" in topic_configs

    configs = admin.describe_configs(
        [ConfigResource(ConfigResourceType.BROKER, "0")], config_filter="all"
    )
    broker_configs = configs["broker"]["0"]
    assert broker_configs["num.partitions"]["value"] == "3"  # module_broker's override


def test_describe_cluster(admin: KafkaAdminClient, module_broker: BrokerProcess) -> None:
    cluster = admin.describe_cluster()
    assert isinstance(cluster["cluster_id"], str) and cluster["cluster_id"]
    assert cluster["controller_id"] == 0
    brokers = [(b["broker_id"], b["host"], b["port"]) for b in cluster["brokers"]]
    assert brokers == [(0, "127.0.0.1", module_broker.port)]


def test_delete_topic_with_data(admin: KafkaAdminClient, module_broker: BrokerProcess, topic: str) -> None:
    admin.create_topics({topic: {"num_partitions": 2, "replication_factor": 1}})
    producer = KafkaProducer(bootstrap_servers=module_broker.bootstrap, linger_ms=5)
    try:
        for i in range(100):
            producer.send(topic, value=b"%d" % i, partition=i % 2)
        producer.flush(timeout=30)
    finally:
        producer.close(timeout=10)
    result = admin.delete_topics([topic])
    assert [(t["name"], t["error_code"]) for t in result["topics"]] == [(topic, 0)]
    wait_until(lambda: topic not in admin.list_topics(), f"{topic} to disappear")
