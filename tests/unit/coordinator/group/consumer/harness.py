"""A consumer group coordinator on a manual clock, with topics and a store in memory."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field

from protocol.errors import ErrorCode
from protocol.messages import (
    consumer_group_heartbeat_request as hb,
    consumer_group_heartbeat_response as hbr,
)
from protocol.primitives import Reader
from pybroker.cluster.metadata_cache import TopicInfo
from pybroker.config.groups import GroupConfigs
from pybroker.coordinator.group.consumer import records
from pybroker.coordinator.group.consumer.coordinator import (
    ConsumerGroupConfig,
    ConsumerGroupCoordinator,
)
from pybroker.coordinator.group.consumer.group import ConsumerGroup
from pybroker.coordinator.group.timers import ManualScheduler


class Topics:
    def __init__(self) -> None:
        self.topics: dict[str, TopicInfo] = {}
        self.ids: dict[str, uuid.UUID] = {}  # deleted topics' too

    def create(self, name: str, partitions: int) -> uuid.UUID:
        topic_id = self.ids[name] = uuid.uuid4()
        self.topics[name] = TopicInfo(name, topic_id, dict.fromkeys(range(partitions)))
        return topic_id

    def grow(self, name: str, partitions: int) -> None:
        info = self.topics[name]
        self.topics[name] = TopicInfo(name, info.topic_id, dict.fromkeys(range(partitions)))

    def delete(self, name: str) -> None:
        del self.topics[name]

    def topic(self, name: str) -> TopicInfo | None:
        return self.topics.get(name)

    def topic_name(self, topic_id: uuid.UUID) -> str | None:
        return next((t.name for t in self.topics.values() if t.topic_id == topic_id), None)

    def id(self, name: str) -> uuid.UUID:
        return self.ids[name]


@dataclass
class Store:
    """Keeps every batch; ``fail_with`` makes the next writes fail."""

    batches: list[tuple[str, list[tuple[bytes, bytes | None]]]] = field(default_factory=list)
    fail_with: ErrorCode = ErrorCode.NONE

    def write_records(self, group_id: str, data: Sequence[tuple[bytes, bytes | None]],
                      now_ms: int) -> ErrorCode:
        if self.fail_with:
            return self.fail_with
        self.batches.append((group_id, list(data)))
        return ErrorCode.NONE

    def replay(self, group_id: str) -> ConsumerGroup | None:
        """The group as a new coordinator would rebuild it from the written records."""
        group: ConsumerGroup | None = None
        for _gid, batch in self.batches:
            for key, value in batch:
                record_type = int.from_bytes(key[:2], "big", signed=True)
                if record_type not in records.RECORD_TYPES:
                    continue
                rec = records.deserialize(record_type, Reader(key, 2), value)
                if rec.group_id != group_id:
                    continue
                if isinstance(rec, records.GroupEpoch) and rec.epoch is None:
                    group = None
                    continue
                if group is None:
                    group = ConsumerGroup(group_id)
                group.replay(rec)
        return group


class Harness:
    def __init__(self, group_configs: GroupConfigs | None = None, **config: object) -> None:
        self.clock = ManualScheduler(1_000)
        self.topics = Topics()
        self.store = Store()
        #: the downgrades handed to the classic side: (group, generation, member ids)
        self.downgrades: list[tuple[str, int, list[str]]] = []
        settings = {"session_timeout_ms": 45_000, "heartbeat_interval_ms": 5_000, **config}
        self.coordinator = ConsumerGroupCoordinator(
            ConsumerGroupConfig(**settings), self.store, self.clock, self.topics,  # type: ignore[arg-type]
            group_configs=group_configs, downgrade_classic_group=self._downgrade)
        self.coordinator.startup()

    def _downgrade(self, group_id, generation, members, now_ms):  # noqa: ANN001, ANN202
        def adopt() -> None:
            self.downgrades.append((group_id, generation, [m.member_id for m, _ in members]))
        return (b"classic-key", b"classic-value"), adopt

    def heartbeat(self, group: str, member: str, epoch: int, *, version: int = 1,
                  topics: list[str] | None = None, regex: str | None = None,
                  owned: dict[str, set[int]] | None | str = "same",
                  instance: str | None = None, rebalance_timeout_ms: int | None = None,
                  assignor: str | None = None) -> hbr.ConsumerGroupHeartbeatResponse:
        if epoch == 0:
            rebalance_timeout_ms = 30_000 if rebalance_timeout_ms is None else rebalance_timeout_ms
            owned = {} if owned == "same" else owned
        tps = None if owned in ("same", None) else [
            hb.TopicPartitions(topic_id=self.topics.id(t), partitions=sorted(ps))
            for t, ps in owned.items()]  # type: ignore[union-attr]
        request = hb.ConsumerGroupHeartbeatRequest(
            group_id=group, member_id=member, member_epoch=epoch, instance_id=instance,
            rebalance_timeout_ms=-1 if rebalance_timeout_ms is None else rebalance_timeout_ms,
            subscribed_topic_names=topics, subscribed_topic_regex=regex,
            server_assignor=assignor, topic_partitions=tps)
        result = self.coordinator.heartbeat(request, version, "client", "/127.0.0.1",
                                            self.clock.now_ms)
        assert isinstance(result, hbr.ConsumerGroupHeartbeatResponse)
        return result

    def advance(self, ms: int) -> None:
        self.clock.advance(ms)

    def named(self, response: hbr.ConsumerGroupHeartbeatResponse) -> dict[str, set[int]] | None:
        """The response's assignment by topic name."""
        if response.assignment is None:
            return None
        return {self.topics.topic_name(tp.topic_id) or "?": set(tp.partitions)
                for tp in response.assignment.topic_partitions}

    def group(self, group_id: str) -> ConsumerGroup:
        group = self.coordinator.group(group_id)
        assert group is not None
        return group
