"""The seams between the broker's rooms, on a real embedded node (a one-broker cluster, its
control plane the controller and ZkAdminManager over its local znode tree): immutable metadata
records, the admin seam, the config repository, and the group coordinator following the
leadership of ``__consumer_offsets``."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Iterator
from pathlib import Path

import pytest

from protocol.errors import ErrorCode, KafkaError
from pybroker.admin import NewPartitions, NewTopic
from pybroker.cluster.metadata_cache import BrokerEndpoint, MetadataCache
from pybroker.coordinator.partitioning import partition_for
from pybroker.kernel.outcome import when_ready
from pybroker.log.config import LogConfig
from pybroker.metadata.config_repository import ConfigRepository
from pybroker.metadata.model import PartitionRecord, TopicRecord
from pybroker.metadata.topics import OFFSETS_TOPIC
from pybroker.modes.embedded.store import LocalZkClient
from pybroker.modes.zookeeper.admin import ZkAdminManager
from pybroker.zk.kafka_zk import KafkaZkClient
from pybroker.zk.topic_store import ZkTopicStore
from tests.unit.broker.embedded_node import EmbeddedNode


@pytest.fixture
def node(tmp_path: Path) -> Iterator[EmbeddedNode]:
    n = EmbeddedNode.start(tmp_path / "data", **{"offsets.topic.num.partitions": "3"})
    yield n
    n.stop()


def test_metadata_records_cannot_be_changed_in_place(node: EmbeddedNode) -> None:
    broker = node.broker
    assert broker.admin is not None and broker.controller is not None
    created = node.create_topic("t", 1, {"retention.ms": "5"})
    with pytest.raises(dataclasses.FrozenInstanceError):
        created.partitions[0].leader = 5  # type: ignore[misc]
    with pytest.raises(TypeError):
        created.partitions[1] = created.partitions[0]  # type: ignore[index]
    with pytest.raises(TypeError):
        created.configs["retention.ms"] = "6"  # type: ignore[index]
    assert node.call(broker.admin.create_partitions, [NewPartitions("t", 3)],
                     validate_only=False, timeout_ms=10_000, now_ms=node.now_ms) == [None]
    # the record handed out earlier is untouched; the controller's context, the znode tree
    # and the metadata cache hold the new partitions
    assert sorted(created.partitions) == [0]
    assert sorted(broker.controller.context.partitions_for_topic("t")) == [
        ("t", 0), ("t", 1), ("t", 2)]
    stored = node.run(broker.zk.get_replica_assignment_and_topic_ids(["t"]))
    assert sorted(stored["t"][0].partitions) == [0, 1, 2]
    assert stored["t"][0].topic_id == created.topic_id
    assert broker.metadata_cache is not None
    assert sorted(broker.metadata_cache.topic("t").partitions) == [0, 1, 2]  # type: ignore[union-attr]


def test_partition_records_keep_tuples() -> None:
    record = PartitionRecord(0, [1, 2], [1], 1)  # type: ignore[arg-type]
    assert record.replicas == (1, 2) and record.isr == (1,)
    assert PartitionRecord.from_json(0, record.to_json()) == record


def test_the_admin_seam_answers_with_errors_per_item(node: EmbeddedNode) -> None:
    admin = node.broker.admin
    assert admin is not None
    results = node.create_topics(
        [NewTopic("ok", 2, 1), NewTopic("bad name!", 1, 1), NewTopic("ok", 1, 1),
         NewTopic("cfg", 1, 1, configs={"retention.ms": "soon"})])
    assert isinstance(results[0], TopicRecord) and len(results[0].partitions) == 2
    codes = [r.code for r in results[1:] if isinstance(r, KafkaError)]
    assert codes == [ErrorCode.INVALID_TOPIC_EXCEPTION, ErrorCode.TOPIC_ALREADY_EXISTS,
                     ErrorCode.INVALID_CONFIG]
    # an outcome still pending is mapped once it is known
    assert node.call(lambda: when_ready(
        admin.delete_topics(["ok", "nope"], timeout_ms=10_000, now_ms=node.now_ms),
        lambda rs: [isinstance(r, TopicRecord) for r in rs])) == [True, False]
    # with no time to wait, Kafka answers REQUEST_TIMED_OUT for what it did start
    [late] = node.create_topics([NewTopic("late", 1, 1)], timeout_ms=0)
    assert isinstance(late, KafkaError) and late.code == ErrorCode.REQUEST_TIMED_OUT


def test_config_changes_reach_the_open_logs(node: EmbeddedNode) -> None:
    broker = node.broker
    admin = broker.admin
    assert admin is not None
    node.create_topic("t")
    assert node.call(admin.alter_topic_configs, "t", {"max.message.bytes": "200"},
                     validate_only=False) is None
    # the change notification reaches the config watcher, which applies it here
    node.wait_until(lambda: broker.configs.topic_overrides("t") == {"max.message.bytes": "200"})
    log = broker.log_manager.get_log("t", 0)
    assert log is not None
    node.wait_until(lambda: log.config.max_message_bytes == 200)
    assert node.call(admin.alter_topic_configs, "t", {"max.message.bytes": "300"},
                     validate_only=True) is None
    node.settle(0.2)
    assert log.config.max_message_bytes == 200  # validate_only changes nothing
    assert broker.configs.topic_overrides("t") == {"max.message.bytes": "200"}
    missing = node.call(admin.alter_topic_configs, "nope", {}, validate_only=False)
    assert isinstance(missing, KafkaError)
    assert missing.code == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION


def test_a_stored_override_this_version_refuses_is_dropped_not_fatal(node: EmbeddedNode,
                                                                      ) -> None:
    broker = node.broker
    broker.configs.set_topic_overrides("t", {"retention.ms": "bogus", "segment.bytes": "2000"})
    config = broker.configs.log_config("t")
    assert config.segment_bytes == 2000 and config.retention_ms == 604800000


def test_groups_follow_the_leadership_of_their_offsets_partition(node: EmbeddedNode) -> None:
    broker = node.broker
    groups = broker.groups
    assert groups is not None
    # as Kafka's ZooKeeper mode: no coordinator until the controller has created the topic
    assert node.ensure_internal_topic(groups.ensure_offsets_topic) == \
        ErrorCode.COORDINATOR_NOT_AVAILABLE
    p = partition_for("g", 3)
    node.wait_until(lambda: p in groups.offsets.loaded_partitions)
    assert node.call(groups.offsets.commit, "g", [("t", 0, 42, -1, "")], node.now_ms) == {
        ("t", 0): ErrorCode.NONE}
    coordinator = groups.coordinator
    assert coordinator is not None
    assert groups.offsets.has_offsets("g")

    node.announce_peer(9)

    async def moves() -> None:
        now = node.now_ms
        # broker 9 now leads the group's partition: the group is unloaded here
        broker.replica_manager.become_leader_or_follower(
            OFFSETS_TOPIC, [PartitionRecord(p, (0, 9), (0, 9), 9, 1)], now)
        assert not groups.offsets.has_offsets("g")
        assert coordinator.group("g") is None
        assert groups.offsets.commit("g", [("t", 0, 43, -1, "")], now) == {
            ("t", 0): ErrorCode.NOT_COORDINATOR}
        # leadership comes back: the partition is replayed and the offset is there again
        broker.replica_manager.become_leader_or_follower(
            OFFSETS_TOPIC, [PartitionRecord(p, (0, 9), (0, 9), 0, 2)], now)

    node.run(moves())
    node.wait_until(lambda: p in groups.offsets.loaded_partitions)
    assert groups.offsets.offsets_of("g")[("t", 0)].offset == 42


@pytest.mark.parametrize(("capped", "answer", "replicas"), [
    (False, ErrorCode.COORDINATOR_NOT_AVAILABLE, None),  # a ZooKeeper-mode cluster, as Kafka
    (True, None, [0]),  # the embedded node: the factor capped at its one broker
])
def test_an_internal_topics_replication_factor_above_the_live_brokers(
        tmp_path: Path, capped: bool, answer: ErrorCode | None, replicas: list[int] | None,
) -> None:
    async def main() -> None:
        async with LocalZkClient(tmp_path / "znodes.json") as store:
            zk = KafkaZkClient(store)
            await zk.create_top_level_paths()
            await zk.register_controller_and_increment_epoch(0, 0)
            cache = MetadataCache("c", 0)
            cache.set_brokers([BrokerEndpoint(0, "127.0.0.1", 9092)])
            admin = ZkAdminManager(
                ZkTopicStore(zk), cache, ConfigRepository(LogConfig()),
                None,  # type: ignore[arg-type]
                lambda n, rf, brokers, first, start: [list(brokers[:rf])] * n,
                default_partitions=1, default_replication_factor=1,
                cap_internal_replication=capped)
            result = await admin.create_internal_topic(OFFSETS_TOPIC, 2, 3, {}, 0)
            assert (result.code if isinstance(result, KafkaError) else None) == answer
            stored = await zk.get_replica_assignment_and_topic_ids([OFFSETS_TOPIC])
            if replicas is None:
                assert stored == {}
            else:
                assert stored[OFFSETS_TOPIC][0].replicas() == {0: tuple(replicas),
                                                               1: tuple(replicas)}

    asyncio.run(main())
