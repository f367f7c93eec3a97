"""The seams between the broker's rooms, on a broker without sockets (``Broker.start_storage``):
immutable metadata records, the admin seam, the config repository, and the group coordinator
following the leadership of ``__consumer_offsets``."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Iterator
from pathlib import Path

import pytest

from protocol.errors import ErrorCode, KafkaError
from pybroker.admin import NewPartitions, NewTopic
from pybroker.broker import Broker
from pybroker.coordinator.partitioning import partition_for
from pybroker.kernel.outcome import when_ready
from pybroker.metadata.model import PartitionRecord, TopicRecord
from pybroker.metadata.topics import OFFSETS_TOPIC
from tests.unit.broker.helpers import storage_broker

T0 = 1_700_000_000_000


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Broker]:
    b = storage_broker(tmp_path / "data", T0, {"offsets.topic.num.partitions": "3"})
    yield b
    b.stop_storage()


def test_metadata_records_cannot_be_changed_in_place(broker: Broker) -> None:
    assert broker.admin is not None and broker.controller is not None
    [created] = broker.admin.create_topics([NewTopic("t", 1, 1, configs={"retention.ms": "5"})],
                                           validate_only=False, timeout_ms=0, now_ms=T0)
    assert isinstance(created, TopicRecord)
    with pytest.raises(dataclasses.FrozenInstanceError):
        created.partitions[0].leader = 5  # type: ignore[misc]
    with pytest.raises(TypeError):
        created.partitions[1] = created.partitions[0]  # type: ignore[index]
    with pytest.raises(TypeError):
        created.configs["retention.ms"] = "6"  # type: ignore[index]
    assert broker.admin.create_partitions([NewPartitions("t", 3)], validate_only=False,
                                          timeout_ms=0, now_ms=T0) == [None]
    # the record handed out earlier is untouched; the controller and the store hold new ones
    assert sorted(created.partitions) == [0]
    assert sorted(broker.controller.topics["t"].partitions) == [0, 1, 2]
    assert sorted(broker.store.image.topics["t"].partitions) == [0, 1, 2]
    assert broker.metadata_cache is not None
    assert sorted(broker.metadata_cache.topic("t").partitions) == [0, 1, 2]  # type: ignore[union-attr]


def test_partition_records_keep_tuples() -> None:
    record = PartitionRecord(0, [1, 2], [1], 1)  # type: ignore[arg-type]
    assert record.replicas == (1, 2) and record.isr == (1,)
    assert PartitionRecord.from_json(0, record.to_json()) == record


def test_the_admin_seam_answers_with_errors_per_item(broker: Broker) -> None:
    assert broker.admin is not None
    results = broker.admin.create_topics(
        [NewTopic("ok", 2, 1), NewTopic("bad name!", 1, 1), NewTopic("ok", 1, 1),
         NewTopic("cfg", 1, 1, configs={"retention.ms": "soon"})],
        validate_only=False, timeout_ms=0, now_ms=T0)
    assert isinstance(results[0], TopicRecord) and len(results[0].partitions) == 2
    codes = [r.code for r in results[1:] if isinstance(r, KafkaError)]
    assert codes == [ErrorCode.INVALID_TOPIC_EXCEPTION, ErrorCode.TOPIC_ALREADY_EXISTS,
                     ErrorCode.INVALID_CONFIG]
    # an outcome known at once is mapped at once
    assert when_ready(broker.admin.delete_topics(["ok", "nope"], timeout_ms=0, now_ms=T0),
                      lambda rs: [isinstance(r, TopicRecord) for r in rs]) == [True, False]


def test_config_changes_reach_the_open_logs(broker: Broker) -> None:
    assert broker.admin is not None
    broker.admin.create_topics([NewTopic("t", 1, 1)], validate_only=False, timeout_ms=0,
                               now_ms=T0)
    assert broker.admin.alter_topic_configs("t", {"max.message.bytes": "200"},
                                            validate_only=False) is None
    assert broker.configs.topic_overrides("t") == {"max.message.bytes": "200"}
    log = broker.log_manager.get_log("t", 0)
    assert log is not None and log.config.max_message_bytes == 200
    assert broker.admin.alter_topic_configs("t", {"max.message.bytes": "300"},
                                            validate_only=True) is None
    assert log.config.max_message_bytes == 200  # validate_only changes nothing
    missing = broker.admin.alter_topic_configs("nope", {}, validate_only=False)
    assert isinstance(missing, KafkaError)
    assert missing.code == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION


def test_a_stored_override_this_version_refuses_is_dropped_not_fatal(broker: Broker) -> None:
    broker.configs.set_topic_overrides("t", {"retention.ms": "bogus", "segment.bytes": "2000"})
    config = broker.configs.log_config("t")
    assert config.segment_bytes == 2000 and config.retention_ms == 604800000


def test_groups_follow_the_leadership_of_their_offsets_partition(broker: Broker) -> None:
    async def main() -> None:
        groups = broker.groups
        assert groups is not None
        groups.startup(T0)
        assert groups.ensure_offsets_topic(T0) == ErrorCode.NONE
        p = partition_for("g", 3)
        assert groups.offsets.commit("g", [("t", 0, 42, -1, "")], T0) == {
            ("t", 0): ErrorCode.NONE}
        coordinator = groups.coordinator
        assert coordinator is not None
        assert groups.offsets.has_offsets("g")

        # broker 9 now leads the group's partition: the group is unloaded here
        broker.replica_manager.become_leader_or_follower(
            OFFSETS_TOPIC, [PartitionRecord(p, (0, 9), (0, 9), 9, 1)], T0)
        assert not groups.offsets.has_offsets("g")
        assert coordinator.group("g") is None
        assert groups.offsets.commit("g", [("t", 0, 43, -1, "")], T0) == {
            ("t", 0): ErrorCode.NOT_COORDINATOR}

        # leadership comes back: the partition is replayed and the offset is there again
        broker.replica_manager.become_leader_or_follower(
            OFFSETS_TOPIC, [PartitionRecord(p, (0, 9), (0, 9), 0, 2)], T0)
        assert groups.offsets.offsets_of("g")[("t", 0)].offset == 42
        groups.shutdown(T0)

    asyncio.run(main())
