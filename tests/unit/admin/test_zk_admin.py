"""The ZooKeeper-mode admin manager's own logic (pybroker.modes.zookeeper.admin): what it checks, what it
writes, and how its answers wait for the controller's outcome in the metadata cache. ZooKeeper
itself is stood in for by a dictionary here; tests/cluster drives the real thing."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Mapping, Sequence

import pytest

from protocol.errors import ErrorCode, KafkaError
from pybroker.admin import NewPartitions, NewTopic
from pybroker.cluster.metadata_cache import (
    BrokerNode,
    MetadataCache,
    PartitionInfo,
    PartitionUpdate,
)
from pybroker.log.config import LogConfig
from pybroker.metadata.config_repository import ConfigRepository
from pybroker.metadata.model import TopicRecord
from pybroker.modes.zookeeper.admin import ZkAdminManager


class Topics:
    """What the manager writes, by path, as ZooKeeper would keep it."""

    def __init__(self) -> None:
        self.assignments: dict[str, tuple[uuid.UUID, dict[int, list[int]], int]] = {}
        self.configs: dict[str, dict[str, str]] = {}
        self.deletions: list[str] = []

    async def get_all_topics(self) -> list[str]:
        return sorted(self.assignments)

    async def get_replica_assignment(self, topic: str):
        return self.assignments.get(topic)

    async def create_topic(self, topic: str, topic_id: uuid.UUID,
                           assignment: Mapping[int, Sequence[int]],
                           configs: Mapping[str, str]) -> None:
        if topic in self.assignments:
            raise KafkaError(ErrorCode.TOPIC_ALREADY_EXISTS, f"Topic '{topic}' already exists.")
        self.configs[topic] = dict(configs)
        self.assignments[topic] = (topic_id, {p: list(r) for p, r in assignment.items()}, 0)

    async def add_partitions(self, topic, topic_id, assignment, version) -> None:
        assert self.assignments[topic][2] == version
        self.assignments[topic] = (topic_id, dict(assignment), version + 1)

    async def request_topic_deletion(self, topic: str) -> None:
        self.deletions.append(topic)

    async def set_topic_config(self, topic: str, configs: Mapping[str, str]) -> None:
        self.configs[topic] = dict(configs)


class Controller:
    is_active = False


def round_robin(partitions: int, rf: int, brokers: Sequence[int], first: int,
                start: int | None) -> list[list[int]]:
    return [[brokers[(first + p + r) % len(brokers)] for r in range(rf)]
            for p in range(partitions)]


def manager() -> tuple[ZkAdminManager, Topics, MetadataCache]:
    cache = MetadataCache("c", -1)
    cache.update_metadata(1, [BrokerNode(b, (("PLAINTEXT", "h", 9000 + b),)) for b in (1, 2, 3)],
                          [])
    store = Topics()
    admin = ZkAdminManager(store, cache, ConfigRepository(LogConfig()), Controller(),  # type: ignore[arg-type]
                           round_robin, default_partitions=2, default_replication_factor=3)
    return admin, store, cache


def led(cache: MetadataCache, admin: ZkAdminManager, topic: str, topic_id: uuid.UUID,
        partitions: int) -> None:
    """The controller's UpdateMetadata arrives."""
    cache.update_metadata(1, [BrokerNode(b, (("PLAINTEXT", "h", 9000 + b),)) for b in (1, 2, 3)],
                          [PartitionUpdate(topic, topic_id, PartitionInfo(p, 1, 0, (1, 2, 3),
                                                                          (1, 2, 3)))
                           for p in range(partitions)])
    admin.on_metadata_updated([topic])


def test_create_topics_answers_once_the_controller_has_led_every_partition() -> None:
    async def main() -> None:
        admin, store, cache = manager()
        fut = admin.create_topics([NewTopic("t", configs={"retention.ms": "5"})],
                                  validate_only=False, timeout_ms=10_000, now_ms=0)
        await asyncio.sleep(0.01)
        assert not fut.done()
        topic_id, assignment, _ = store.assignments["t"]
        assert assignment == {0: [1, 2, 3], 1: [2, 3, 1]} and store.configs["t"] == {
            "retention.ms": "5"}
        led(cache, admin, "t", topic_id, 1)
        await asyncio.sleep(0)
        assert not fut.done()  # one partition of two led so far
        led(cache, admin, "t", topic_id, 2)
        [record] = await asyncio.wait_for(fut, 1)
        assert isinstance(record, TopicRecord) and record.topic_id == topic_id

    asyncio.run(main())


def test_no_wait_with_timeout_zero_and_a_timeout_when_nothing_arrives() -> None:
    async def main() -> None:
        admin, store, _ = manager()
        [now] = await admin.create_topics([NewTopic("a", 1, 1)], validate_only=False,
                                          timeout_ms=0, now_ms=0)
        assert isinstance(now, KafkaError) and now.code == ErrorCode.REQUEST_TIMED_OUT
        assert "a" in store.assignments  # asked for all the same
        [late] = await admin.create_topics([NewTopic("b", 1, 1)], validate_only=False,
                                           timeout_ms=20, now_ms=0)
        assert isinstance(late, KafkaError) and late.code == ErrorCode.REQUEST_TIMED_OUT

    asyncio.run(main())


@pytest.mark.parametrize(("topic", "code"), [
    (NewTopic("bad/name", 1, 1), ErrorCode.INVALID_TOPIC_EXCEPTION),
    (NewTopic("t", 1, 4), ErrorCode.INVALID_REPLICATION_FACTOR),
    (NewTopic("t", 0, 1), ErrorCode.INVALID_PARTITIONS),
    (NewTopic("t", assignments={0: [1, 9]}), ErrorCode.INVALID_REPLICA_ASSIGNMENT),
    (NewTopic("t", 1, 1, configs={"retention.ms": "x"}), ErrorCode.INVALID_CONFIG),
    (NewTopic("exists.already", 1, 1), ErrorCode.TOPIC_ALREADY_EXISTS),
    (NewTopic("exists_already", 1, 1), ErrorCode.INVALID_TOPIC_EXCEPTION),  # collides
])
def test_refusals_write_nothing(topic: NewTopic, code: ErrorCode) -> None:
    async def main() -> None:
        admin, store, _ = manager()
        store.assignments["exists.already"] = (uuid.uuid4(), {0: [1]}, 0)
        [result] = await admin.create_topics([topic], validate_only=False, timeout_ms=100,
                                             now_ms=0)
        assert isinstance(result, KafkaError) and result.code == code
        assert sorted(store.assignments) == ["exists.already"]

    asyncio.run(main())


def test_create_partitions_extends_the_assignment_and_waits_for_the_new_ones() -> None:
    async def main() -> None:
        admin, store, cache = manager()
        topic_id = uuid.uuid4()
        store.assignments["t"] = (topic_id, {0: [1, 2]}, 0)
        led(cache, admin, "t", topic_id, 1)
        fut = admin.create_partitions([NewPartitions("t", 3)], validate_only=False,
                                      timeout_ms=10_000, now_ms=0)
        await asyncio.sleep(0.01)
        assert store.assignments["t"][1] == {0: [1, 2], 1: [2, 3], 2: [3, 1]}
        led(cache, admin, "t", topic_id, 3)
        assert await asyncio.wait_for(fut, 1) == [None]

    asyncio.run(main())


def test_delete_topics_waits_until_the_topic_leaves_the_metadata() -> None:
    async def main() -> None:
        admin, store, cache = manager()
        topic_id = uuid.uuid4()
        led(cache, admin, "t", topic_id, 1)
        fut = admin.delete_topics(["t", "missing"], timeout_ms=10_000, now_ms=0)
        await asyncio.sleep(0.01)
        assert store.deletions == ["t"] and not fut.done()
        cache.update_metadata(1, [], [PartitionUpdate("t", topic_id,
                                                      PartitionInfo(0, -2, 1, (1,), (1,)))])
        admin.on_metadata_updated(["t"])
        deleted, missing = await asyncio.wait_for(fut, 1)
        assert isinstance(deleted, TopicRecord) and deleted.topic_id == topic_id
        assert isinstance(missing, KafkaError)
        assert missing.code == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION

    asyncio.run(main())


def test_elections_go_to_the_active_controller_only() -> None:
    admin, _, _ = manager()
    results = admin.elect_leaders([("t", 0)], 0, timeout_ms=0, now_ms=0)
    assert isinstance(results, dict)
    error = results[("t", 0)]
    assert error is not None and error.code == ErrorCode.NOT_CONTROLLER
