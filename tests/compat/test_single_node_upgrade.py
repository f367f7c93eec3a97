"""A log dir written by the single node of the release before the one control plane starts
unchanged: every topic with its id, partitions and config overrides, every record, a group's
committed offsets, a committed and an aborted transaction, the ACLs, a SCRAM user, a dynamic
broker config and the producer ids handed out so far (none is handed out again).

The log dir in ``tests/fixtures/single-node-v1`` was written by that release's ``pybroker
serve`` (its metadata in one JSON document, ``__pybroker_metadata.json``) with
confluent-kafka: topics ``orders`` (3 partitions: 300 idempotent records, then 10 records of
a committed transaction on partition 0 and one of an aborted transaction on partition 1) and
``compacted`` (``cleanup.policy=compact``, ``max.message.bytes=200000``; 20 records), group
``fixture-group`` with offsets 42, 17 and 99 committed on ``orders``, ACLs for ``User:alice``
(READ on topic ``orders``, READ on groups prefixed ``fixture``), the SCRAM-SHA-256 user
``alice``, and ``log.cleaner.backoff.ms=12345`` set on broker 0 with IncrementalAlterConfigs.
"""

from __future__ import annotations

import json
import shutil
import uuid
from pathlib import Path

import pytest
from confluent_kafka import Consumer, ConsumerGroupTopicPartitions, TopicCollection, TopicPartition
from confluent_kafka.admin import (
    AclBindingFilter,
    AclOperation,
    AclPermissionType,
    AdminClient,
    ConfigResource,
    ResourcePatternType,
    ResourceType,
)

from protocol.messages import ApiKey, init_producer_id_request
from pybroker.testing.broker_process import BrokerProcess
from pybroker.testing.wire_client import WireClient

pytestmark = [pytest.mark.compat, pytest.mark.timeout(120)]

FIXTURE = Path(__file__).parents[1] / "fixtures" / "single-node-v1" / "kafka-logs"
OVERRIDES = {
    "offsets.topic.replication.factor": 1,
    "offsets.topic.num.partitions": 3,
    "transaction.state.log.replication.factor": 1,
    "transaction.state.log.num.partitions": 2,
    "transaction.state.log.min.isr": 1,
    "group.initial.rebalance.delay.ms": 0,
    "authorizer.class.name": "kafka.security.authorizer.AclAuthorizer",
    "super.users": "User:ANONYMOUS",
}


@pytest.fixture
def upgraded(tmp_path: Path) -> tuple[BrokerProcess, dict]:
    data = tmp_path / "kafka-logs"
    shutil.copytree(FIXTURE, data)
    document = json.loads((data / "__pybroker_metadata.json").read_text())
    broker = BrokerProcess(data, overrides=OVERRIDES)
    broker.start()
    try:
        yield broker, document
    finally:
        broker.stop()


def _read_all(bootstrap: str, topic: str, partitions: int, isolation: str) -> list[bytes]:
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": f"reader-{uuid.uuid4()}",
                  "enable.auto.commit": False, "isolation.level": isolation,
                  "enable.partition.eof": True})
    try:
        c.assign([TopicPartition(topic, p, 0) for p in range(partitions)])
        out: list[bytes] = []
        eof: set[int] = set()
        while len(eof) < partitions:
            m = c.poll(10)
            assert m is not None, f"no record nor end of partition within 10 s ({len(out)} read)"
            if m.error():
                assert m.error().code() == -191, m.error()  # _PARTITION_EOF
                eof.add(m.partition())
                continue
            out.append(m.value())
        return out
    finally:
        c.close()


def test_an_earlier_single_node_log_dir_starts_unchanged(upgraded: tuple[BrokerProcess, dict],
                                                         ) -> None:
    broker, document = upgraded
    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    metadata = admin.list_topics(timeout=10)

    # the cluster, the topics, their ids and partitions
    assert metadata.cluster_id == document["cluster_id"]
    for name in ("orders", "compacted"):
        topic = metadata.topics[name]
        assert len(topic.partitions) == len(document["topics"][name]["partitions"])
        assert all(p.leader == 0 and p.error is None for p in topic.partitions.values())
    described = admin.describe_topics(TopicCollection(["orders", "compacted"]))
    for name, future in described.items():
        assert _uuid(future.result(10).topic_id) == uuid.UUID(document["topics"][name]["topic_id"])

    # config overrides and the dynamic broker config
    [compacted] = admin.describe_configs([ConfigResource(ResourceType.TOPIC, "compacted")]).values()
    configs = compacted.result(10)
    assert configs["cleanup.policy"].value == "compact" and not configs["cleanup.policy"].is_default
    assert configs["max.message.bytes"].value == "200000"
    [broker0] = admin.describe_configs([ConfigResource(ResourceType.BROKER, "0")]).values()
    assert broker0.result(10)["log.cleaner.backoff.ms"].value == "12345"

    # every record; the aborted transaction's only for read_uncommitted
    orders = _read_all(broker.bootstrap, "orders", 3, "read_committed")
    assert sorted(orders) == sorted([b"order-%d" % i for i in range(300)]
                                    + [b"txn-%d" % i for i in range(10)])
    assert b"aborted" in _read_all(broker.bootstrap, "orders", 3, "read_uncommitted")
    assert len(_read_all(broker.bootstrap, "compacted", 1, "read_uncommitted")) == 20

    # the group's committed offsets
    [group] = admin.list_consumer_group_offsets(
        [ConsumerGroupTopicPartitions("fixture-group")]).values()
    committed = {tp.partition: tp.offset for tp in group.result(10).topic_partitions}
    assert committed == {0: 42, 1: 17, 2: 99}

    # the ACLs and the SCRAM user
    acls = admin.describe_acls(AclBindingFilter(
        ResourceType.ANY, None, ResourcePatternType.ANY, None, None, AclOperation.ANY,
        AclPermissionType.ANY)).result(10)
    assert sorted((a.restype, a.name, a.resource_pattern_type, a.principal, a.operation)
                  for a in acls) == sorted([
        (ResourceType.GROUP, "fixture", ResourcePatternType.PREFIXED, "User:alice",
         AclOperation.READ),
        (ResourceType.TOPIC, "orders", ResourcePatternType.LITERAL, "User:alice",
         AclOperation.READ)])
    [alice] = admin.describe_user_scram_credentials(["alice"]).values()
    assert [i.iterations for i in alice.result(10).scram_credential_infos] == [4096]

    # producer ids are never handed out twice: the next one follows those given before
    with WireClient(broker.bootstrap) as client:
        answer = client.call(ApiKey.INIT_PRODUCER_ID, 4, init_producer_id_request.InitProducerIdRequest(
            transactional_id=None, transaction_timeout_ms=60000, producer_id=-1,
            producer_epoch=-1))
    assert answer.error_code == 0
    assert answer.producer_id >= document["next_producer_id"]

    # the earlier document is kept beside the new store, renamed; the next start reads the
    # store alone
    assert (broker.data_dir / "__pybroker_metadata.json.migrated").exists()
    assert not (broker.data_dir / "__pybroker_metadata.json").exists()
    broker.stop()
    broker.start()
    assert sorted(_read_all(broker.bootstrap, "orders", 3, "read_committed")) == sorted(orders)
    assert admin.list_topics(timeout=10).cluster_id == document["cluster_id"]


def _uuid(topic_id: object) -> uuid.UUID:
    """confluent-kafka's Uuid as a UUID."""
    return uuid.UUID(int=(topic_id.get_most_significant_bits() % 2**64) << 64
                     | (topic_id.get_least_significant_bits() % 2**64))
