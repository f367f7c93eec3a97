"""The embedded single-node controller.

It plays the controller's part for a one-broker cluster: validates and records topic changes in
the local metadata store, updates the metadata cache, and tells the replica manager which
partitions to lead - the same three steps the ZooKeeper-mode controller performs through
znodes, UpdateMetadata and LeaderAndIsr.
"""

from __future__ import annotations

import logging
import re
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING

from protocol.errors import ErrorCode, KafkaError
from pybroker.metadata.model import PartitionRecord, TopicRecord

if TYPE_CHECKING:
    from pybroker.cluster.metadata_cache import MetadataCache
    from pybroker.cluster.replica_manager import ReplicaManager
    from pybroker.log.config import LogConfig
    from pybroker.metadata.store import MetadataStore

log = logging.getLogger(__name__)

MAX_TOPIC_NAME_LENGTH = 249
_LEGAL_TOPIC = re.compile(r"[a-zA-Z0-9._-]+")


def validate_topic_name(name: str | None) -> None:
    """Kafka's topic-name rules (``Topic.validate``), with the messages Kafka 3.9 sends."""
    if not name:
        raise KafkaError(ErrorCode.INVALID_TOPIC_EXCEPTION, "Topic name is invalid: the empty string is not allowed")
    if name in (".", ".."):
        raise KafkaError(ErrorCode.INVALID_TOPIC_EXCEPTION, f"Topic name is invalid: '{name}' is not allowed")
    if len(name) > MAX_TOPIC_NAME_LENGTH:
        raise KafkaError(
            ErrorCode.INVALID_TOPIC_EXCEPTION,
            f"Topic name is invalid: the length of '{name}' is longer than the max allowed length "
            f"{MAX_TOPIC_NAME_LENGTH}",
        )
    if not _LEGAL_TOPIC.fullmatch(name):
        raise KafkaError(
            ErrorCode.INVALID_TOPIC_EXCEPTION,
            f"Topic name is invalid: '{name}' contains one or more characters other than ASCII "
            "alphanumerics, '.', '_' and '-'",
        )


def _collision_key(name: str) -> str:
    return name.replace(".", "_")


class LocalController:
    def __init__(self, broker_id: int, store: MetadataStore, cache: MetadataCache,
                 replica_manager: ReplicaManager,
                 topic_config: Callable[[dict[str, str]], LogConfig]) -> None:
        self.broker_id = broker_id
        self.store = store
        self.cache = cache
        self.replica_manager = replica_manager
        self.topic_config = topic_config  # validates overrides, returns the effective config
        self.topics: dict[str, TopicRecord] = {}

    @property
    def live_brokers(self) -> list[int]:
        return [self.broker_id]

    def restore(self, topics: dict[str, TopicRecord]) -> None:
        """Know the stored topics and their configs (start-up, before any log is opened)."""
        for name, record in sorted(topics.items()):
            self.topics[name] = record
            self.cache.put_topic(record)

    def lead_all(self, now_ms: int) -> None:
        """Take leadership of every known partition (start-up, once the logs are loaded)."""
        for name, record in sorted(self.topics.items()):
            for p in sorted(record.partitions.values(), key=lambda r: r.partition):
                self.replica_manager.become_leader(name, p, now_ms)

    def topic_overrides(self, name: str) -> dict[str, str]:
        record = self.topics.get(name)
        return dict(record.configs) if record else {}

    # -- topic changes ---------------------------------------------------------------------
    def _assignment(self, num_partitions: int, replication_factor: int,
                    start: int = 0) -> list[PartitionRecord]:
        brokers = self.live_brokers
        if replication_factor > len(brokers):
            raise KafkaError(
                ErrorCode.INVALID_REPLICATION_FACTOR,
                f"Replication factor: {replication_factor} larger than available brokers: {len(brokers)}.",
            )
        records = []
        for p in range(start, start + num_partitions):
            replicas = [brokers[(p + i) % len(brokers)] for i in range(replication_factor)]
            records.append(PartitionRecord(p, replicas, list(replicas), replicas[0]))
        return records

    def _manual_assignment(self, assignments: list[list[int]], start: int) -> list[PartitionRecord]:
        records = []
        width = None
        for i, replicas in enumerate(assignments):
            if not replicas or len(set(replicas)) != len(replicas):
                raise KafkaError(ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                                 f"Invalid replica assignment for partition {start + i}: {replicas}")
            unknown = [b for b in replicas if b not in self.live_brokers]
            if unknown:
                raise KafkaError(ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                                 f"Unknown broker(s) {unknown} in the assignment of partition {start + i}")
            if width is not None and len(replicas) != width:
                raise KafkaError(ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                                 "All partitions should have the same number of replicas")
            width = len(replicas)
            records.append(PartitionRecord(start + i, list(replicas), list(replicas), replicas[0]))
        return records

    def create_topic(self, name: str, num_partitions: int, replication_factor: int, *,
                     assignments: dict[int, list[int]] | None, configs: dict[str, str],
                     validate_only: bool, now_ms: int, defaults: tuple[int, int]) -> TopicRecord:
        validate_topic_name(name)
        if name in self.topics:
            raise KafkaError(ErrorCode.TOPIC_ALREADY_EXISTS, f"Topic '{name}' already exists.")
        for existing in self.topics:
            if _collision_key(existing) == _collision_key(name):
                raise KafkaError(ErrorCode.INVALID_TOPIC_EXCEPTION,
                                 f"Topic '{name}' collides with existing topic: {existing}")
        if assignments:
            if num_partitions != -1 or replication_factor != -1:
                raise KafkaError(ErrorCode.INVALID_REQUEST,
                                 "Both numPartitions or replicationFactor and replicasAssignments were set. "
                                 "Both cannot be used at the same time.")
            ordered = [assignments[p] for p in sorted(assignments)]
            if sorted(assignments) != list(range(len(assignments))):
                raise KafkaError(ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                                 "Partitions should be a consecutive 0-based integer sequence")
            partitions = self._manual_assignment(ordered, 0)
        else:
            if num_partitions == -1:
                num_partitions = defaults[0]
            if replication_factor == -1:
                replication_factor = defaults[1]
            if num_partitions <= 0:
                raise KafkaError(ErrorCode.INVALID_PARTITIONS,
                                 "Number of partitions must be larger than 0.")
            if replication_factor <= 0:
                raise KafkaError(ErrorCode.INVALID_REPLICATION_FACTOR,
                                 "Replication factor must be larger than 0.")
            partitions = self._assignment(num_partitions, replication_factor)
        self.topic_config(configs)  # raises INVALID_CONFIG
        record = TopicRecord(name, uuid.uuid4(), {p.partition: p for p in partitions}, dict(configs))
        if validate_only:
            return record
        self.store.create_topic(record)
        self.topics[name] = record
        self.cache.put_topic(record)
        for p in partitions:
            self.replica_manager.become_leader(name, p, now_ms)
        log.info("created topic %s with %d partition(s)", name, len(partitions))
        return record

    def delete_topic(self, name: str) -> TopicRecord:
        record = self.topics.get(name)
        if record is None:
            raise KafkaError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
                             "This server does not host this topic-partition.")
        self.store.delete_topic(name)
        del self.topics[name]
        self.cache.remove_topic(name)
        self.replica_manager.stop_replicas(name, sorted(record.partitions), delete=True)
        log.info("deleted topic %s", name)
        return record

    def _check_new_partitions(self, name: str, record: TopicRecord | None, count: int,
                              assignments: list[list[int]] | None) -> int:
        """Kafka 3.9's checks, in its order and with its messages: the topic, the count, then
        the explicit assignments (unknown brokers, how many, each one's replicas, the
        replication factor). Returns the current partition count."""
        if record is None:
            raise KafkaError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
                             f"The topic '{name}' does not exist.")
        current = len(record.partitions)
        if count < current:
            raise KafkaError(ErrorCode.INVALID_PARTITIONS,
                             f"Topic currently has {current} partitions, which is higher than "
                             f"the requested {count}.")
        if count == current:
            raise KafkaError(ErrorCode.INVALID_PARTITIONS,
                             f"Topic already has {current} partitions.")
        if assignments is None:
            return current
        unknown = sorted({b for replicas in assignments for b in replicas} - set(self.live_brokers))
        if unknown:
            raise KafkaError(ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                             f"Unknown broker(s) in replica assignment: "
                             f"{', '.join(map(str, unknown))}.")
        if len(assignments) != count - current:
            raise KafkaError(ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                             f"Increasing the number of partitions by {count - current} but "
                             f"{len(assignments)} assignments provided.")
        for i, replicas in enumerate(assignments):
            if not replicas:
                raise KafkaError(ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                                 f"Cannot have replication factor of 0 for partition id "
                                 f"{current + i}.")
            if len(set(replicas)) != len(replicas):
                raise KafkaError(ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                                 f"Duplicate brokers not allowed in replica assignment: "
                                 f"{', '.join(map(str, replicas))} for partition id "
                                 f"{current + i}.")
        rf = len(next(iter(record.partitions.values())).replicas)
        bad = [(current + i, len(r)) for i, r in enumerate(assignments) if len(r) != rf]
        if bad:
            raise KafkaError(ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                             f"Inconsistent replication factor between partitions, partition 0 "
                             f"has {rf} while partitions [{', '.join(str(p) for p, _ in bad)}] "
                             f"have replication factors [{', '.join(str(n) for _, n in bad)}], "
                             f"respectively.")
        return current

    def create_partitions(self, name: str, count: int, assignments: list[list[int]] | None, *,
                          validate_only: bool, now_ms: int) -> None:
        record = self.topics.get(name)
        current = self._check_new_partitions(name, record, count, assignments)
        if assignments is not None:
            new = self._manual_assignment(assignments, current)
        else:
            rf = len(next(iter(record.partitions.values())).replicas)
            new = self._assignment(count - current, rf, start=current)
        if validate_only:
            return
        self.store.add_partitions(name, new)
        for p in new:
            record.partitions[p.partition] = p
        self.cache.put_topic(record)
        for p in new:
            self.replica_manager.become_leader(name, p, now_ms)
        log.info("topic %s now has %d partitions", name, count)

    def set_topic_configs(self, name: str, configs: dict[str, str]) -> None:
        record = self.topics[name]
        self.topic_config(configs)
        self.store.set_topic_configs(name, configs)
        record.configs = dict(configs)
        self.replica_manager.update_log_config(name)
