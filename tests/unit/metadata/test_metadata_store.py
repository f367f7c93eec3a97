"""The embedded node's metadata on disk: ``meta.properties`` as Kafka writes it, what survives
a restart in the znode tree (topics, their configs and partitions, the producer ids handed
out), and the one-time move of an earlier release's metadata document
(``__pybroker_metadata.json``, format 1) into the znode tree (``migration``)."""

from __future__ import annotations

import asyncio
import json
import uuid
from pathlib import Path
from typing import Any

import pytest

from pybroker.admin import NewPartitions
from pybroker.metadata.meta_properties import (
    META_PROPERTIES,
    check_meta_properties,
    new_cluster_id,
    read_meta_properties_cluster_id,
)
from pybroker.modes.embedded.broker import ZNODES_FILE
from pybroker.modes.embedded.migration import SingleNodeImage, migrate, read_document
from pybroker.modes.embedded.store import LocalZkClient
from pybroker.zk.kafka_zk import KafkaZkClient
from pybroker.zk.znodes import (
    CONFIG_BROKER,
    CONFIG_TOPIC,
    CONFIG_USER,
    LeaderIsrAndControllerEpoch,
    ProducerIdBlockZNode,
    ProducerIdsBlock,
    sanitize,
)
from tests.unit.broker.embedded_node import EmbeddedNode

# -- meta.properties -----------------------------------------------------------------------


def test_meta_properties_name_the_broker_and_its_cluster(tmp_path: Path) -> None:
    cluster_id = new_cluster_id()
    assert len(cluster_id) == 22 and "=" not in cluster_id  # a Kafka-style base64 UUID
    assert new_cluster_id() != cluster_id
    assert read_meta_properties_cluster_id(tmp_path) is None
    check_meta_properties(tmp_path, 0, cluster_id)
    assert (tmp_path / META_PROPERTIES).read_text().splitlines() == [
        "version=0", "broker.id=0", f"cluster.id={cluster_id}"]
    assert read_meta_properties_cluster_id(tmp_path) == cluster_id
    # a log dir of another cluster is refused (Kafka's InconsistentClusterIdException)
    with pytest.raises(RuntimeError, match="belongs to cluster"):
        check_meta_properties(tmp_path, 0, new_cluster_id())
    assert read_meta_properties_cluster_id(tmp_path) == cluster_id


# -- what survives a restart ---------------------------------------------------------------


def test_topics_configs_and_producer_ids_survive_reopening(tmp_path: Path) -> None:
    node = EmbeddedNode.start(tmp_path)
    try:
        broker = node.broker
        assert broker.metadata_cache is not None and broker.admin is not None
        cluster_id = broker.metadata_cache.cluster_id
        assert len(cluster_id) == 22  # a Kafka-style base64 UUID
        created = node.create_topic("orders", 1, {"retention.ms": "1000"})
        assert node.call(broker.admin.create_partitions, [NewPartitions("orders", 2)],
                         validate_only=False, timeout_ms=10_000, now_ms=node.now_ms) == [None]
        assert node.call(broker.admin.alter_topic_configs, "orders",
                         {"segment.bytes": "1048576"}, validate_only=False) is None
        assert broker.services is not None
        first = node.call(broker.services.producer_ids.generate_producer_id)
    finally:
        node.stop()
    assert (tmp_path / ZNODES_FILE).exists()

    node = node.restart()
    try:
        broker = node.broker
        assert broker.metadata_cache is not None and broker.services is not None
        assert broker.metadata_cache.cluster_id == cluster_id
        topic = broker.metadata_cache.topic("orders")
        assert topic is not None and topic.topic_id == created.topic_id
        assert sorted(topic.partitions) == [0, 1]
        assert broker.configs.topic_overrides("orders") == {"segment.bytes": "1048576"}
        # a new block of ids, after the one handed out before
        assert node.call(broker.services.producer_ids.generate_producer_id) > first
    finally:
        node.stop()
    assert (tmp_path / META_PROPERTIES).read_text().splitlines() == [
        "version=0", "broker.id=0", f"cluster.id={cluster_id}",
    ]


def test_delete_topic_is_durable(tmp_path: Path) -> None:
    node = EmbeddedNode.start(tmp_path)
    try:
        admin = node.broker.admin
        assert admin is not None
        node.create_topic("t")
        [deleted] = node.call(admin.delete_topics, ["t"], timeout_ms=10_000,
                              now_ms=node.now_ms)
        assert deleted.name == "t"  # a TopicRecord: the deletion completed
        zk = node.broker.zk

        async def deleted_from_the_tree() -> None:
            # the metadata cache forgets the topic first; the controller then deletes its
            # znodes and the deletion request
            while await zk.topic_exists("t") or await zk.get_topic_deletions():
                await asyncio.sleep(0.01)

        node.run(deleted_from_the_tree())
    finally:
        node.stop()
    node = node.restart()
    try:
        assert node.broker.metadata_cache is not None
        assert node.broker.metadata_cache.topic("t") is None
        assert node.run(node.broker.zk.get_all_topics()) == set()
    finally:
        node.stop()


# -- the earlier release's document ---------------------------------------------------------

TOPIC_ID = uuid.UUID("c7fcb824-8795-49fb-aa61-06d6293c5a30")
ACL = {"version": 1, "acls": [{"principal": "User:alice", "permissionType": "Allow",
                               "operation": "Read", "host": "*"}]}
SCRAM = "salt=c2FsdA==,stored_key=a2V5,server_key=c2tleQ==,iterations=4096"


def v1_document(**extra: Any) -> dict[str, Any]:
    """A format-1 document as that release wrote it."""
    return {
        "version": 1,
        "cluster_id": "Vbx3lLUCT2m4Ihp2KB6zyw",
        "next_producer_id": 1000,
        "topics": {
            "orders": {"topic_id": str(TOPIC_ID), "partitions": {
                "0": {"replicas": [0], "isr": [0], "leader": 0, "leader_epoch": 3,
                      "partition_epoch": 4},
                "1": {"replicas": [0], "isr": [0], "leader": 0}},
                "configs": {"cleanup.policy": "compact"}},
        },
        "broker_configs": {"0": {"log.cleaner.backoff.ms": "12345"},
                           "<default>": {"log.retention.ms": "5000"}},
        "acls": {"/kafka-acl/Topic/orders": ACL},
        "user_configs": {"alice@example": {"SCRAM-SHA-256": SCRAM}},
        **extra,
    }


def write(path: Path, document: dict[str, Any]) -> Path:
    path.write_text(json.dumps(document))
    return path


def test_the_v1_document_is_read_as_it_was_written(tmp_path: Path) -> None:
    image = read_document(write(tmp_path / "doc.json", v1_document()))
    assert image.cluster_id == "Vbx3lLUCT2m4Ihp2KB6zyw"
    assert image.next_producer_id == 1000
    orders = image.topics["orders"]
    assert orders.topic_id == TOPIC_ID and dict(orders.configs) == {"cleanup.policy": "compact"}
    p0, p1 = orders.partitions[0], orders.partitions[1]
    assert (p0.replicas, p0.isr, p0.leader, p0.leader_epoch, p0.partition_epoch) == (
        (0,), (0,), 0, 3, 4)
    assert (p1.leader_epoch, p1.partition_epoch) == (0, 0)  # absent: 0
    assert image.broker_configs == {"0": {"log.cleaner.backoff.ms": "12345"},
                                    "<default>": {"log.retention.ms": "5000"}}
    assert image.acls == {"/kafka-acl/Topic/orders": ACL}
    assert image.user_configs == {"alice@example": {"SCRAM-SHA-256": SCRAM}}
    # what an older document left out is empty
    bare = read_document(write(tmp_path / "bare.json", {"version": 1, "cluster_id": "c",
                                                         "topics": {}}))
    assert bare == SingleNodeImage("c")


def test_a_document_of_another_format_is_refused(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError, match="unknown metadata format 2"):
        read_document(write(tmp_path / "doc.json", v1_document(version=2)))


def test_migrate_writes_the_znodes_a_cluster_reads(tmp_path: Path) -> None:
    image = read_document(write(tmp_path / "doc.json", v1_document()))

    async def main() -> None:
        async with LocalZkClient(tmp_path / ZNODES_FILE) as store:
            await migrate(KafkaZkClient(store), image, broker_id=0)
        # read back from the saved file, through the client a cluster uses
        async with LocalZkClient(tmp_path / ZNODES_FILE) as store:
            zk = KafkaZkClient(store)
            assert await zk.get_cluster_id() == "Vbx3lLUCT2m4Ihp2KB6zyw"
            assert await zk.get_all_topics() == {"orders"}
            [(assignment, _version)] = (
                await zk.get_replica_assignment_and_topic_ids(["orders"])).values()
            assert assignment.topic_id == TOPIC_ID
            assert assignment.replicas() == {0: (0,), 1: (0,)}
            states = await zk.get_partition_states([("orders", 0), ("orders", 1)])
            # leaders and leader epochs kept; a new partition epoch (the znode's version)
            assert states[("orders", 0)][0] == LeaderIsrAndControllerEpoch(0, 3, (0,), 0)
            assert states[("orders", 1)][0] == LeaderIsrAndControllerEpoch(0, 0, (0,), 0)
            assert await zk.get_entity_configs(CONFIG_TOPIC, "orders") == {
                "cleanup.policy": "compact"}
            assert await zk.get_all_entity_configs(CONFIG_BROKER) == {
                "0": {"log.cleaner.backoff.ms": "12345"},
                "<default>": {"log.retention.ms": "5000"}}
            # users' znodes are named as Kafka's Sanitizer names them
            assert sanitize("alice@example") == "alice%40example"
            assert await zk.get_entity_configs(CONFIG_USER, "alice%40example") == {
                "SCRAM-SHA-256": SCRAM}
            assert await zk.get_acl_node_paths() == ["/kafka-acl/Topic/orders"]
            acl = await zk.get_acl_node("/kafka-acl/Topic/orders")
            assert acl is not None and json.loads(acl) == ACL
            # the ids handed out so far count as a block taken: the next starts at 1000
            data, _stat = await store.get(ProducerIdBlockZNode.PATH)
            assert ProducerIdBlockZNode.decode(data) == ProducerIdsBlock(0, 0, 1000)

    asyncio.run(main())


def test_a_v1_log_dir_starts_with_its_metadata_moved_once(tmp_path: Path) -> None:
    """The node's start moves the document into the znode tree and renames it; the next start
    reads the tree alone."""
    write(tmp_path / "__pybroker_metadata.json", v1_document(topics={}))
    node = EmbeddedNode.start(tmp_path)
    try:
        assert node.broker.metadata_cache is not None
        assert node.broker.metadata_cache.cluster_id == "Vbx3lLUCT2m4Ihp2KB6zyw"
        assert node.broker.dynamic_config.broker == {"log.cleaner.backoff.ms": "12345"}
        assert node.broker.dynamic_config.default == {"log.retention.ms": "5000"}
    finally:
        node.stop()
    assert not (tmp_path / "__pybroker_metadata.json").exists()
    assert (tmp_path / "__pybroker_metadata.json.migrated").exists()
    node = node.restart()
    try:
        assert node.broker.metadata_cache is not None
        assert node.broker.metadata_cache.cluster_id == "Vbx3lLUCT2m4Ihp2KB6zyw"
    finally:
        node.stop()


def test_a_move_cut_short_leaves_the_document_to_be_moved_again(tmp_path: Path) -> None:
    """A start that died while it wrote the tree left a partial ``.migrating`` file and the
    document in place: the next start discards the partial tree and moves the document again
    (never a half tree read as the whole)."""
    write(tmp_path / "__pybroker_metadata.json", v1_document(topics={}))
    (tmp_path / "__pybroker_znodes.json.migrating").write_text('{"format": "znodes-1", "zx')
    node = EmbeddedNode.start(tmp_path)
    try:
        assert node.broker.metadata_cache is not None
        assert node.broker.metadata_cache.cluster_id == "Vbx3lLUCT2m4Ihp2KB6zyw"
        assert node.broker.dynamic_config.broker == {"log.cleaner.backoff.ms": "12345"}
    finally:
        node.stop()
    assert not (tmp_path / "__pybroker_znodes.json.migrating").exists()
    assert (tmp_path / "__pybroker_znodes.json").exists()
    assert (tmp_path / "__pybroker_metadata.json.migrated").exists()
