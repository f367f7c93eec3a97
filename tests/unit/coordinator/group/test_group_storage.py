"""``__consumer_offsets``: record formats, topic creation, commits, replay, deletes and expiry.

The storage tests run a real embedded node (its log, replica manager, controller and admin
manager) on a temporary directory and restart it to check what a restarted coordinator would
load.
"""

from __future__ import annotations

import asyncio
import struct
from collections.abc import Iterator
from pathlib import Path

import pytest

from protocol.errors import ErrorCode, KafkaError, ProtocolError
from protocol.messages.group_metadata_key import GroupMetadataKey
from protocol.messages.group_metadata_value import GroupMetadataValue, MemberMetadata
from protocol.messages.offset_commit_key import OffsetCommitKey
from protocol.records.batch import BatchHeader, set_base_offset
from protocol.records.record import build_batch
from pybroker.coordinator.group.coordinator import GroupStore
from pybroker.coordinator.group.group import ClassicGroup
from pybroker.coordinator.group.offsets import (
    GroupRetentionView,
    OffsetFetchResult,
    OffsetManager,
    OffsetToCommit,
)
from pybroker.coordinator.group.state import GroupState
from pybroker.coordinator.group.storage import (
    Appended,
    CommittedOffset,
    ConsumerGroupKey,
    OffsetsConfig,
    OffsetsTopic,
    PartitionReplay,
    UnknownKey,
    commit_error_for,
    deserialize_group_metadata_value,
    deserialize_key,
    deserialize_offset_commit_value,
    group_store_error_for,
    serialize_group_metadata_key,
    serialize_group_metadata_value,
    serialize_offset_commit_key,
    serialize_offset_commit_value,
)
from pybroker.coordinator.partitioning import OFFSETS_TOPIC, partition_for
from pybroker.metadata.model import PartitionRecord
from pybroker.zk.znodes import CONFIG_TOPIC
from tests.unit.broker.embedded_node import EmbeddedNode
from tests.unit.cluster.helpers import partition_batches

T0 = 1_700_000_000_000
MINUTE = 60_000


def s(text: str) -> bytes:
    """An int16-length-prefixed string as the non-flexible versions write it."""
    return struct.pack(">h", len(text)) + text.encode()


def i16(v: int) -> bytes:
    return struct.pack(">h", v)


def i32(v: int) -> bytes:
    return struct.pack(">i", v)


def i64(v: int) -> bytes:
    return struct.pack(">q", v)


# ------------------------------------------------------------------ golden bytes from the specs


def test_offset_commit_key_is_version_1() -> None:
    key = serialize_offset_commit_key("g", "orders", 3)
    assert key == i16(1) + s("g") + s("orders") + i32(3)
    assert deserialize_key(key) == OffsetCommitKey(group="g", topic="orders", partition=3)


def test_legacy_offset_commit_key_version_0_reads_the_same_fields() -> None:
    key = i16(0) + s("g") + s("t") + i32(0)
    assert deserialize_key(key) == OffsetCommitKey(group="g", topic="t", partition=0)


def test_offset_commit_value_v3_without_expiry() -> None:
    value = serialize_offset_commit_value(CommittedOffset(42, 7, "meta", T0))
    assert value == i16(3) + i64(42) + i32(7) + s("meta") + i64(T0)
    assert deserialize_offset_commit_value(value) == CommittedOffset(42, 7, "meta", T0, -1)


def test_offset_commit_value_v1_when_an_expire_timestamp_is_set() -> None:
    value = serialize_offset_commit_value(CommittedOffset(42, 7, "", T0, T0 + 5000))
    # v1 has no leader epoch field: Kafka loses it too.
    assert value == i16(1) + i64(42) + s("") + i64(T0) + i64(T0 + 5000)
    assert deserialize_offset_commit_value(value) == CommittedOffset(42, -1, "", T0, T0 + 5000)


def test_offset_commit_values_of_every_readable_version() -> None:
    v0 = i16(0) + i64(5) + s("m") + i64(T0)
    v2 = i16(2) + i64(5) + s("m") + i64(T0)
    # v4 is flexible: compact string (length + 1) and an empty tagged-field section.
    v4 = i16(4) + i64(5) + i32(2) + bytes([2]) + b"m" + i64(T0) + bytes([0])
    assert deserialize_offset_commit_value(v0) == CommittedOffset(5, -1, "m", T0)
    assert deserialize_offset_commit_value(v2) == CommittedOffset(5, -1, "m", T0)
    assert deserialize_offset_commit_value(v4) == CommittedOffset(5, 2, "m", T0)
    assert deserialize_offset_commit_value(None) is None
    with pytest.raises(ProtocolError):
        deserialize_offset_commit_value(i16(9) + i64(5))
    with pytest.raises(ProtocolError):
        deserialize_offset_commit_value(i16(3) + i64(5))  # truncated


def _member(**kw) -> MemberMetadata:
    fields = dict(member_id="m1", group_instance_id=None, client_id="c", client_host="/h",
                  rebalance_timeout=300000, session_timeout=10000, subscription=b"\x01",
                  assignment=b"\x02")
    fields.update(kw)
    return MemberMetadata(**fields)


def test_group_metadata_key_and_value_v3() -> None:
    assert serialize_group_metadata_key("g1") == i16(2) + s("g1")
    assert deserialize_key(serialize_group_metadata_key("g1")) == GroupMetadataKey(group="g1")
    value = GroupMetadataValue(protocol_type="consumer", generation=1, protocol="range",
                               leader="m1", current_state_timestamp=5, members=[_member()])
    encoded = serialize_group_metadata_value(value)
    assert encoded == (
        i16(3) + s("consumer") + i32(1) + s("range") + s("m1") + i64(5) + i32(1)
        + s("m1") + i16(-1) + s("c") + s("/h") + i32(300000) + i32(10000)
        + i32(1) + b"\x01" + i32(1) + b"\x02"
    )
    assert deserialize_group_metadata_value(encoded) == value
    assert deserialize_group_metadata_value(None) is None


def test_empty_group_metadata_has_null_protocol_and_leader() -> None:
    value = GroupMetadataValue(protocol_type="consumer", generation=4, protocol=None, leader=None,
                               current_state_timestamp=T0, members=[])
    encoded = serialize_group_metadata_value(value)
    assert encoded == i16(3) + s("consumer") + i32(4) + i16(-1) + i16(-1) + i64(T0) + i32(0)
    assert deserialize_group_metadata_value(encoded) == value


def test_group_metadata_value_v0_takes_the_session_timeout_as_rebalance_timeout() -> None:
    v0 = (i16(0) + s("consumer") + i32(2) + s("range") + s("m1") + i32(1)
          + s("m1") + s("c") + s("/h") + i32(10000) + i32(0) + i32(0))
    value = deserialize_group_metadata_value(v0)
    assert value is not None
    assert value.current_state_timestamp == -1
    assert value.members[0].rebalance_timeout == 10000
    assert value.members[0].session_timeout == 10000


def test_unknown_key_versions_are_reported_not_raised() -> None:
    # Types 3-8 and 16 are a consumer group's records; 10-15 are share groups', which this
    # coordinator does not serve.
    key = deserialize_key(i16(3) + s("g"))
    assert isinstance(key, ConsumerGroupKey) and key.record_type == 3
    assert deserialize_key(i16(11) + s("g")) == UnknownKey(11)
    with pytest.raises(ProtocolError):
        deserialize_key(b"\x00")


def test_append_errors_map_like_kafka() -> None:
    assert commit_error_for(ErrorCode.NOT_ENOUGH_REPLICAS) == ErrorCode.COORDINATOR_NOT_AVAILABLE
    assert commit_error_for(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION) == ErrorCode.COORDINATOR_NOT_AVAILABLE
    assert commit_error_for(ErrorCode.NOT_LEADER_OR_FOLLOWER) == ErrorCode.NOT_COORDINATOR
    assert commit_error_for(ErrorCode.KAFKA_STORAGE_ERROR) == ErrorCode.NOT_COORDINATOR
    assert commit_error_for(ErrorCode.MESSAGE_TOO_LARGE) == ErrorCode.INVALID_COMMIT_OFFSET_SIZE
    assert group_store_error_for(ErrorCode.MESSAGE_TOO_LARGE) == ErrorCode.UNKNOWN_SERVER_ERROR
    assert group_store_error_for(ErrorCode.REQUEST_TIMED_OUT) == ErrorCode.REBALANCE_IN_PROGRESS


def test_offsets_config_reads_broker_properties_with_defaults() -> None:
    assert OffsetsConfig.from_props({}) == OffsetsConfig()
    cfg = OffsetsConfig.from_props({"offsets.topic.num.partitions": "3",
                                    "offsets.retention.minutes": "2",
                                    "offset.metadata.max.bytes": "10"})
    assert (cfg.num_partitions, cfg.retention_ms, cfg.metadata_max_bytes) == (3, 2 * MINUTE, 10)
    assert cfg.segment_bytes == 104857600 and cfg.replication_factor == 3


# ------------------------------------------------------------------ a real embedded node


class Node:
    """A real embedded node, and an offsets topic and offset manager of the test's own over
    its replica manager, metadata cache and admin manager; their methods run on the node's
    loop (``on_loop``), each call waiting for its outcome."""

    def __init__(self, data: Path, **props: str) -> None:
        self.node = EmbeddedNode.start(data, **props)
        self.broker = b = self.node.broker
        config = b.config
        self._topic = OffsetsTopic(b.replica_manager, b.metadata_cache, b.admin,
                                   OffsetsConfig.from_props(config.props))
        self._offsets = OffsetManager(self._topic)
        self.topic = self.node.on_loop(self._topic)
        self.offsets = self.node.on_loop(self._offsets)
        self.replica_manager = self.node.on_loop(b.replica_manager)
        self.closed = False

    def create_topic(self) -> ErrorCode:
        """Ask for the topic until it exists and every partition is led here; the first
        answer (COORDINATOR_NOT_AVAILABLE while the controller creates it, as in Kafka's
        ZooKeeper mode)."""
        first = self.node.ensure_internal_topic(self._topic.ensure_created)
        count = self._topic.config.num_partitions
        self.node.wait_until(lambda: self._topic.led_partitions() == list(range(count)),
                             what="every offsets partition led here")
        return first

    def load_all(self) -> dict[str, GroupMetadataValue | None]:
        return self.offsets.load_led_partitions()

    def batches(self, partition: int) -> list:
        """Every batch of the ``__consumer_offsets`` partition."""
        rm = self.broker.replica_manager
        return partition_batches(rm.get_partition(OFFSETS_TOPIC, partition))

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        self.node.stop()


@pytest.fixture
def node(tmp_path: Path) -> Iterator[Node]:
    n = Node(tmp_path / "data", **{"offsets.topic.num.partitions": "4"})
    yield n
    n.close()


@pytest.fixture
def coord(node: Node) -> Node:
    """A node coordinating every partition of an existing ``__consumer_offsets``."""
    node.create_topic()
    assert node.topic.ensure_created(T0) == ErrorCode.NONE
    node.load_all()
    return node


def reopen(n: Node, tmp_path: Path) -> Node:
    n.close()
    return Node(tmp_path / "data", **{"offsets.topic.num.partitions": "4"})


def test_topic_is_created_on_first_use_with_kafka_configs(node: Node) -> None:
    assert not node.topic.exists
    assert node.create_topic() == ErrorCode.COORDINATOR_NOT_AVAILABLE
    assert node.topic.ensure_created(T0) == ErrorCode.NONE
    assert node.broker.controller is not None
    assignment = node.broker.controller.context.partition_replica_assignment_for_topic(
        OFFSETS_TOPIC)
    assert len(assignment) == 4
    # offsets.topic.replication.factor=3 is capped at the one live broker.
    assert all(replicas == (0,) for replicas in assignment.values())
    stored = node.node.run(node.broker.zk.get_entity_configs(CONFIG_TOPIC, OFFSETS_TOPIC))
    assert stored == {"cleanup.policy": "compact", "segment.bytes": "104857600",
                      "compression.type": "producer"}
    assert node.broker.configs.topic_overrides(OFFSETS_TOPIC) == stored
    assert node.topic.led_partitions() == [0, 1, 2, 3]
    assert node.topic.ensure_created(T0) == ErrorCode.NONE  # idempotent


def test_commit_writes_one_batch_and_survives_a_restart(node: Node, tmp_path: Path) -> None:
    node.create_topic()
    node.load_all()
    errors = node.offsets.commit("group-a", [("orders", 0, 10, 3, "m0"), ("orders", 1, 20, 3, None),
                                             OffsetToCommit("audit", 0, 5)], T0)
    assert errors == {("orders", 0): ErrorCode.NONE, ("orders", 1): ErrorCode.NONE,
                      ("audit", 0): ErrorCode.NONE}
    p = partition_for("group-a", 4)
    batches = node.batches(p)
    assert len(batches) == 1
    header, records = batches[0]
    assert header.records_count == 3 and header.base_timestamp == T0
    assert records[0].key == serialize_offset_commit_key("group-a", "orders", 0)
    assert records[0].value == serialize_offset_commit_value(CommittedOffset(10, 3, "m0", T0))

    expected = [
        OffsetFetchResult("audit", 0, 5, -1, "", ErrorCode.NONE),
        OffsetFetchResult("orders", 0, 10, 3, "m0", ErrorCode.NONE),
        OffsetFetchResult("orders", 1, 20, 3, "", ErrorCode.NONE),
    ]
    assert node.offsets.fetch("group-a") == expected

    node = reopen(node, tmp_path)
    try:
        assert node.offsets.fetch("group-a") == []  # nothing until the partition is loaded
        node.load_all()
        assert node.offsets.fetch("group-a") == expected
        assert node.offsets.offsets_of("group-a")[("orders", 0)] == CommittedOffset(10, 3, "m0", T0)
    finally:
        node.close()


def test_replay_reads_across_segments_and_small_load_buffers(tmp_path: Path) -> None:
    props = {"offsets.topic.num.partitions": "1", "offsets.topic.segment.bytes": "300",
             "offsets.load.buffer.size": "120"}
    n = Node(tmp_path / "data", **props)
    try:
        assert n.create_topic() == ErrorCode.COORDINATOR_NOT_AVAILABLE
        assert n.offsets.ensure_topic(T0) == ErrorCode.NONE
        n.load_all()
        assert n.offsets.loaded_partitions == {0}
        for i in range(30):
            n.offsets.commit("g", [("t", i % 3, i, -1, "")], T0 + i)
        n.offsets.delete_offsets("g", [("t", 0)], T0 + 40)
        assert len(n.broker.log_manager.get_log(OFFSETS_TOPIC, 0).segments) > 3
    finally:
        n.close()
    n = Node(tmp_path / "data", **props)
    try:
        n.load_all()
        assert {tp: c.offset for tp, c in n.offsets.offsets_of("g").items()} == {
            ("t", 1): 28, ("t", 2): 29}
    finally:
        n.close()


def test_fetch_of_uncommitted_partitions_and_unknown_groups(node: Node) -> None:
    node.create_topic()
    node.offsets.commit("g", [("t", 0, 7, -1, "")], T0)
    assert node.offsets.fetch("g", [("t", 1), ("t", 0)]) == [
        OffsetFetchResult("t", 1, -1, -1, "", ErrorCode.NONE),
        OffsetFetchResult("t", 0, 7, -1, "", ErrorCode.NONE),
    ]
    assert node.offsets.fetch("nobody", [("t", 0)]) == [
        OffsetFetchResult("t", 0, -1, -1, "", ErrorCode.NONE)]
    assert node.offsets.fetch("nobody") == []
    assert node.offsets.fetch("g", [("t", 0)], require_stable=True)[0].offset == 7


def test_later_commits_win_on_replay(node: Node, tmp_path: Path) -> None:
    node.create_topic()
    for offset in (1, 2, 3):
        node.offsets.commit("g", [("t", 0, offset, -1, f"v{offset}")], T0 + offset)
    node = reopen(node, tmp_path)
    try:
        node.load_all()
        assert node.offsets.offsets_of("g") == {("t", 0): CommittedOffset(3, -1, "v3", T0 + 3)}
    finally:
        node.close()


def test_metadata_too_large_is_rejected_per_partition(tmp_path: Path) -> None:
    n = Node(tmp_path / "data", **{"offsets.topic.num.partitions": "1",
                                   "offset.metadata.max.bytes": "4"})
    try:
        n.create_topic()
        errors = n.offsets.commit("g", [("t", 0, 1, -1, "abcd"), ("t", 1, 1, -1, "abcde")], T0)
        assert errors == {("t", 0): ErrorCode.NONE, ("t", 1): ErrorCode.OFFSET_METADATA_TOO_LARGE}
        assert n.offsets.fetch("g")[0][:3] == ("t", 0, 1)
        assert len(n.offsets.fetch("g")) == 1
        # Java counts UTF-16 units: four emoji are eight units.
        only_bad = n.offsets.commit("g", [("t", 2, 1, -1, "\U0001F600" * 4)], T0)
        assert only_bad == {("t", 2): ErrorCode.OFFSET_METADATA_TOO_LARGE}
        assert len(n.batches(0)) == 1  # nothing appended for an all-rejected request
    finally:
        n.close()


def test_failed_append_leaves_the_cache_alone(node: Node) -> None:
    node.create_topic()
    node.offsets.commit("g", [("t", 0, 1, -1, "")], T0)
    p = partition_for("g", 4)
    record = node.broker.metadata_cache.partition(OFFSETS_TOPIC, p)
    # leadership moved away: broker 99 (alive) leads in the next epoch
    node.node.announce_peer(99)
    node.replica_manager.become_leader_or_follower(OFFSETS_TOPIC, [PartitionRecord(
        p, (0, 99), (0, 99), 99, record.leader_epoch + 1)], T0)
    errors = node.offsets.commit("g", [("t", 0, 2, -1, "")], T0)
    assert errors == {("t", 0): ErrorCode.NOT_COORDINATOR}
    assert node.offsets.offsets_of("g")[("t", 0)].offset == 1
    assert node.offsets.store_group("g", None, T0) == ErrorCode.NOT_COORDINATOR


def test_retention_override_writes_an_expire_timestamp(node: Node, tmp_path: Path) -> None:
    node.create_topic()
    node.offsets.commit("g", [("t", 0, 1, 4, "")], T0, retention_ms_override=MINUTE)
    node.offsets.commit("g", [("t", 1, 1, -1, "", T0 - 5)], T0)  # v1 commit timestamp
    assert node.offsets.offsets_of("g") == {
        ("t", 0): CommittedOffset(1, 4, "", T0, T0 + MINUTE),
        ("t", 1): CommittedOffset(1, -1, "", T0 - 5),
    }
    node = reopen(node, tmp_path)
    try:
        node.load_all()
        # The v1 value has no leader epoch, so it comes back as -1.
        assert node.offsets.offsets_of("g")[("t", 0)] == CommittedOffset(1, -1, "", T0, T0 + MINUTE)
    finally:
        node.close()


def _group_value(generation: int = 1, members: int = 1) -> GroupMetadataValue:
    return GroupMetadataValue(
        protocol_type="consumer", generation=generation, protocol="range" if members else None,
        leader="m1" if members else None, current_state_timestamp=T0,
        members=[_member()] if members else [])


def test_group_metadata_store_and_replay(node: Node, tmp_path: Path) -> None:
    node.create_topic()
    assert node.offsets.store_group("g", _group_value(1), T0) == ErrorCode.NONE
    assert node.offsets.store_group("g", _group_value(2), T0 + 1) == ErrorCode.NONE
    assert node.offsets.store_group("gone", _group_value(1), T0) == ErrorCode.NONE
    assert node.offsets.store_group("gone", None, T0 + 1) == ErrorCode.NONE
    node = reopen(node, tmp_path)
    try:
        groups = node.load_all()
        assert groups == {"g": _group_value(2)}
        replayed = node.topic.replay(partition_for("gone", 4))
        assert replayed.groups["gone"] is None
    finally:
        node.close()


def test_delete_offsets_writes_tombstones(node: Node, tmp_path: Path) -> None:
    node.create_topic()
    node.offsets.commit("g", [("t", 0, 1, -1, ""), ("t", 1, 2, -1, ""), ("u", 0, 3, -1, "")], T0)
    removed = node.offsets.delete_offsets("g", [("t", 0), ("t", 9)], T0)
    assert removed == [("t", 0)]
    _, records = node.batches(partition_for("g", 4))[-1]
    assert [(r.key, r.value) for r in records] == [(serialize_offset_commit_key("g", "t", 0), None)]
    assert node.offsets.delete_group_offsets("g", T0) == [("t", 1), ("u", 0)]
    assert not node.offsets.has_offsets("g")
    node.offsets.commit("h", [("t", 0, 1, -1, "")], T0)
    node = reopen(node, tmp_path)
    try:
        assert node.load_all() == {"h": None}  # an offsets-only group, loaded as Empty
        assert node.offsets.offsets_of("g") == {}
        assert node.offsets.groups() == ["h"]
    finally:
        node.close()


def test_delete_offsets_can_tombstone_an_emptied_group(node: Node) -> None:
    node.create_topic()
    node.offsets.store_group("g", _group_value(1, members=0), T0)
    node.offsets.commit("g", [("t", 0, 1, -1, "")], T0)
    node.offsets.delete_offsets("g", [("t", 0)], T0, tombstone_group_if_empty=True)
    _, records = node.batches(partition_for("g", 4))[-1]
    assert [r.value for r in records] == [None, None]
    assert records[1].key == serialize_group_metadata_key("g")
    assert node.topic.replay(partition_for("g", 4)).groups == {"g": None}


def test_delete_group_writes_one_batch_of_tombstones(node: Node, tmp_path: Path) -> None:
    node.create_topic()
    node.offsets.store_group("g", _group_value(3), T0)
    node.offsets.commit("g", [("t", 0, 1, -1, ""), ("t", 1, 1, -1, "")], T0)
    assert node.offsets.delete_group("g", T0) == ErrorCode.NONE
    _, records = node.batches(partition_for("g", 4))[-1]
    assert [r.key for r in records] == [serialize_offset_commit_key("g", "t", 0),
                                        serialize_offset_commit_key("g", "t", 1),
                                        serialize_group_metadata_key("g")]
    assert all(r.value is None for r in records)
    node = reopen(node, tmp_path)
    try:
        assert node.load_all() == {}
        assert node.offsets.fetch("g") == []
    finally:
        node.close()


def _raw_append(n: Node, partition: int, batch: bytearray) -> None:
    result, _ = n.replica_manager.append_to_leader(OFFSETS_TOPIC, partition, batch,
                                                          required_acks=-1, now_ms=T0)
    assert result.error == ErrorCode.NONE


def test_replay_ignores_other_partitions_groups_and_unknown_keys(node: Node) -> None:
    node.create_topic()
    mine = "g"
    p = partition_for(mine, 4)
    stranger = next(f"x{i}" for i in range(100) if partition_for(f"x{i}", 4) != p)
    value = serialize_offset_commit_value(CommittedOffset(9, -1, "", T0))
    _raw_append(node, p, build_batch([
        (serialize_offset_commit_key(mine, "t", 0), value),
        (serialize_offset_commit_key(stranger, "t", 0), value),
        (serialize_group_metadata_key(stranger), serialize_group_metadata_value(_group_value())),
        (i16(5) + s(mine), b"\x00\x00"),  # a record type this coordinator does not know
        (serialize_offset_commit_key(mine, "t", 0), b"\x00\x03"),  # unreadable value: skipped
    ], default_timestamp=T0))
    replayed = node.topic.replay(p)
    assert replayed.offsets == {mine: {("t", 0): CommittedOffset(9, -1, "", T0)}}
    assert replayed.groups == {}
    assert replayed.end_offset == 5


def test_replay_applies_committed_transactional_offsets_only() -> None:
    p = partition_for("g", 4)
    replay = PartitionReplay(p, 4)
    log_end = 0

    def apply(batch: bytearray) -> None:
        nonlocal log_end
        set_base_offset(batch, log_end)
        log_end += BatchHeader.parse(batch).last_offset_delta + 1
        replay.apply_batch(bytes(batch), 0)

    def txn(pid: int, partition: int, offset: int) -> bytearray:
        return build_batch([(serialize_offset_commit_key("g", "t", partition),
                             serialize_offset_commit_value(CommittedOffset(offset, -1, "", T0)))],
                           producer_id=pid, producer_epoch=0, base_sequence=0,
                           is_transactional=True, default_timestamp=T0)

    def marker(pid: int, commit: bool) -> bytearray:
        return build_batch([(i16(0) + i16(1 if commit else 0), i16(0) + i32(0))],
                           producer_id=pid, producer_epoch=0, is_transactional=True,
                           is_control=True, default_timestamp=T0)

    def plain(partition: int, offset: int) -> bytearray:
        return build_batch([(serialize_offset_commit_key("g", "t", partition),
                             serialize_offset_commit_value(CommittedOffset(offset, -1, "", T0)))],
                           default_timestamp=T0)

    apply(txn(1, 0, 100))
    apply(txn(2, 1, 200))
    apply(txn(3, 2, 300))
    apply(plain(2, 301))        # a later plain commit of partition 2 beats producer 3's
    apply(marker(1, True))
    apply(marker(2, False))
    apply(marker(3, True))
    assert replay.result(log_end).offsets == {"g": {
        ("t", 0): CommittedOffset(100, -1, "", T0),
        ("t", 2): CommittedOffset(301, -1, "", T0),
    }}


def test_replay_skips_a_damaged_batch_and_keeps_the_rest() -> None:
    replay = PartitionReplay(0, 1)
    good = build_batch([(serialize_offset_commit_key("g", "t", 0),
                         serialize_offset_commit_value(CommittedOffset(1, -1, "", T0)))],
                       default_timestamp=T0)
    bad = build_batch([(serialize_offset_commit_key("g", "t", 0),
                        serialize_offset_commit_value(CommittedOffset(2, -1, "", T0)))],
                      base_offset=1, default_timestamp=T0)
    bad[-1] ^= 0xFF  # the CRC no longer matches
    replay.apply_batch(bytes(good), 0)
    replay.apply_batch(bytes(bad), 0)
    assert replay.result(2).offsets == {"g": {("t", 0): CommittedOffset(1, -1, "", T0)}}


def test_replay_of_a_partition_not_led_is_refused(node: Node) -> None:
    with pytest.raises(KafkaError) as exc:
        node.topic.replay(0)
    assert exc.value.code == ErrorCode.NOT_COORDINATOR


def test_unload_drops_the_partitions_offsets(coord: Node) -> None:
    coord.offsets.commit("g", [("t", 0, 1, -1, "")], T0)
    assert coord.offsets.is_loaded("g")
    assert coord.offsets.unload_partition(partition_for("g", 4)) == ["g"]
    assert not coord.offsets.is_loaded("g")
    assert coord.offsets.fetch("g") == []
    # Loading what is led and not loaded yet brings it back, as an offsets-only group.
    assert coord.offsets.load_led_partitions() == {"g": None}
    assert coord.offsets.fetch("g")[0].offset == 1


# ------------------------------------------------------------------ expiry (KIP-211)


RETENTION = 10080 * MINUTE  # offsets.retention.minutes default


def test_offsets_of_a_simple_consumer_expire_from_their_commit(coord: Node) -> None:
    coord.offsets.commit("simple", [("t", 0, 1, -1, "")], T0)
    coord.offsets.commit("simple", [("t", 1, 1, -1, "")], T0 + MINUTE)
    result = coord.offsets.expire(T0 + RETENTION, lambda g: None)
    assert result.removed == {"simple": [("t", 0)]}
    assert result.dead_groups == []
    result = coord.offsets.expire(T0 + MINUTE + RETENTION, lambda g: None)
    assert result.removed == {"simple": [("t", 1)]}
    assert result.dead_groups == ["simple"]
    _, records = coord.batches(partition_for("simple", 4))[-1]
    # Generation 0: offsets only, so no group metadata tombstone.
    assert [(r.key, r.value) for r in records] == [(serialize_offset_commit_key("simple", "t", 1), None)]


def test_offsets_of_an_empty_group_expire_from_when_it_became_empty(coord: Node,
                                                                     tmp_path: Path) -> None:
    coord.offsets.store_group("g", _group_value(5, members=0), T0)
    coord.offsets.commit("g", [("t", 0, 1, -1, "")], T0)  # committed long before
    emptied_at = T0 + 10 * RETENTION
    view = GroupRetentionView(is_empty=True, protocol_type="consumer",
                              current_state_timestamp=emptied_at, generation=5)
    assert coord.offsets.expire(emptied_at + RETENTION - 1, lambda g: view).removed == {}
    result = coord.offsets.expire(emptied_at + RETENTION, lambda g: view)
    assert result.removed == {"g": [("t", 0)]} and result.dead_groups == ["g"]
    _, records = coord.batches(partition_for("g", 4))[-1]
    assert [r.key for r in records] == [serialize_offset_commit_key("g", "t", 0),
                                        serialize_group_metadata_key("g")]
    coord = reopen(coord, tmp_path)
    try:
        assert coord.load_all() == {}
        assert coord.offsets.groups() == []
    finally:
        coord.close()


def test_empty_group_without_state_timestamp_uses_commit_times(coord: Node) -> None:
    coord.offsets.commit("g", [("t", 0, 1, -1, "")], T0)
    view = GroupRetentionView(is_empty=True, protocol_type="consumer", generation=1)
    assert coord.offsets.expire(T0 + RETENTION, lambda g: view).removed == {"g": [("t", 0)]}


def test_active_groups_keep_their_offsets(coord: Node) -> None:
    coord.offsets.commit("g", [("t", 0, 1, -1, ""), ("gone", 0, 1, -1, "")], T0)
    rebalancing = GroupRetentionView(is_empty=False, protocol_type="consumer")
    assert coord.offsets.expire(T0 + 100 * RETENTION, lambda g: rebalancing).removed == {}
    # A stable consumer group loses only offsets of topics it no longer subscribes to.
    stable = GroupRetentionView(is_empty=False, is_stable=True, protocol_type="consumer",
                                subscribed_topics=frozenset({"t"}))
    result = coord.offsets.expire(T0 + RETENTION, lambda g: stable)
    assert result.removed == {"g": [("gone", 0)]} and result.dead_groups == []
    assert list(coord.offsets.offsets_of("g")) == [("t", 0)]


def test_explicit_expire_timestamps_win(coord: Node) -> None:
    coord.offsets.commit("g", [("t", 0, 1, -1, "")], T0, retention_ms_override=MINUTE)
    view = GroupRetentionView(is_empty=True, protocol_type="consumer",
                              current_state_timestamp=T0, generation=1)
    assert coord.offsets.expire(T0 + MINUTE - 1, lambda g: view).removed == {}
    assert coord.offsets.expire(T0 + MINUTE, lambda g: view).removed == {"g": [("t", 0)]}


def test_empty_group_without_offsets_dies_with_a_tombstone(coord: Node) -> None:
    coord.offsets.store_group("idle", _group_value(2, members=0), T0)
    view = GroupRetentionView(is_empty=True, protocol_type="consumer", generation=2)
    result = coord.offsets.expire(T0, lambda g: view, extra_groups=["idle"])
    assert result.removed == {} and result.dead_groups == ["idle"]
    assert coord.topic.replay(partition_for("idle", 4)).groups == {"idle": None}


def test_view_of_a_classic_group() -> None:
    group = ClassicGroup("g", GroupState.EMPTY, T0)
    group.protocol_type = "consumer"
    group.generation_id = 4
    assert GroupRetentionView.of(group) == GroupRetentionView(
        is_empty=True, protocol_type="consumer", current_state_timestamp=T0, generation=4)
    simple = GroupRetentionView.of(ClassicGroup("s", GroupState.EMPTY, T0))
    assert simple.protocol_type is None and simple.generation == 0


def test_offset_manager_is_the_membership_layers_group_store(coord: Node, tmp_path: Path) -> None:
    store: GroupStore = coord.offsets
    group = ClassicGroup.from_metadata_value("g", _group_value(2), T0)
    assert store.store_group("g", group.to_metadata_value({"m1": b"\x02"}), T0) == ErrorCode.NONE
    store.store_group("other", _group_value(1, members=0), T0)
    coord.offsets.commit("other", [("t", 0, 1, -1, "")], T0)
    assert store.delete_group("other", T0, tombstone_group=False) == ErrorCode.NONE
    _, records = coord.batches(partition_for("other", 4))[-1]
    assert [r.key for r in records] == [serialize_offset_commit_key("other", "t", 0)]
    coord = reopen(coord, tmp_path)
    try:
        groups = coord.load_all()
        assert groups["g"] == _group_value(2)
        # Without its tombstone the emptied group's metadata stays; its offsets are gone.
        assert groups["other"] == _group_value(1, members=0)
        assert coord.offsets.groups() == []
    finally:
        coord.close()


class _ReplicatingTopic:
    """An offsets topic whose appends are still being replicated: each returns a future."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.config = OffsetsConfig()
        self.pending: list[asyncio.Future[ErrorCode]] = []
        self.leading = True

    def partition_for(self, group_id: str) -> int:
        return 0

    def is_leader(self, partition: int) -> bool:
        return self.leading

    def append_offsets(self, partition, records, now_ms, producer=None,  # noqa: ANN001, ANN201
                       verification_guard=None):  # noqa: ANN001
        future = self.loop.create_future()
        self.pending.append(future)
        return future


@pytest.mark.parametrize(("replicated", "still_leading", "answer"), [
    (ErrorCode.NONE, True, ErrorCode.NONE),
    (ErrorCode.REQUEST_TIMED_OUT, True, ErrorCode.REQUEST_TIMED_OUT),
    (ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND, True, ErrorCode.COORDINATOR_NOT_AVAILABLE),
    (ErrorCode.NONE, False, ErrorCode.NOT_COORDINATOR),
])
def test_a_commit_is_answered_and_cached_once_the_isr_has_it(replicated, still_leading, answer):
    """Kafka's storeOffsets: OffsetFetch keeps answering the previous offset while the commit
    is replicated, and the commit enters the cache only if it was replicated by this leader."""
    loop = asyncio.new_event_loop()
    try:
        topic = _ReplicatingTopic(loop)
        offsets = OffsetManager(topic)  # type: ignore[arg-type]
        outcome = offsets.commit("g", [("t", 0, 5, -1, "")], T0)
        assert isinstance(outcome, asyncio.Future) and not outcome.done()
        assert offsets.fetch("g", [("t", 0)])[0].offset == -1
        topic.leading = still_leading
        topic.pending[0].set_result(Appended(replicated, 0 if not replicated else -1))
        loop.run_until_complete(asyncio.sleep(0))
        assert outcome.result() == {("t", 0): answer}
        assert offsets.fetch("g", [("t", 0)])[0].offset == (5 if answer is ErrorCode.NONE
                                                           else -1)
    finally:
        loop.close()
