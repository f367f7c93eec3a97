"""The embedded single-node controller.

It plays the controller's part for a one-broker cluster: validates and records topic changes in
the local metadata store, updates the metadata cache and the config repository, and tells the
replica manager which partitions to lead - the same steps the ZooKeeper-mode controller performs
through znodes, UpdateMetadata and LeaderAndIsr. Handlers reach it only through the admin seam
(:class:`pybroker.admin.local.LocalAdminManager`).

Its view (``topics``) holds the same immutable records the store and the cache hold: a change
builds new records, so no one sees another's half-made change.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from protocol.errors import ErrorCode, KafkaError
from pybroker.metadata.model import PartitionRecord, TopicRecord
from pybroker.metadata.topics import collision_key, validate_topic_name

if TYPE_CHECKING:
    from pybroker.cluster.metadata_cache import MetadataCache
    from pybroker.cluster.replica_manager import ReplicaManager
    from pybroker.metadata.config_repository import ConfigRepository
    from pybroker.metadata.store import MetadataStore

log = logging.getLogger(__name__)

class LocalController:
    def __init__(self, broker_id: int, store: MetadataStore, cache: MetadataCache,
                 replica_manager: ReplicaManager, configs: ConfigRepository) -> None:
        self.broker_id = broker_id
        self.store = store
        self.cache = cache
        self.replica_manager = replica_manager
        self.configs = configs
        self.topics: dict[str, TopicRecord] = {}
        #: the stored dynamic broker configs, by entity (a broker id or ``<default>``)
        self.broker_config_entities: dict[str, dict[str, str]] = {}
        #: called with the partitions of each deleted topic (the group coordinator drops
        #: their offsets)
        self.deleted_partition_listeners: list[Callable[[list[tuple[str, int]]], None]] = []

    @property
    def live_brokers(self) -> list[int]:
        return [self.broker_id]

    def restore(self, topics: dict[str, TopicRecord]) -> None:
        """Know the stored topics and their configs (start-up, before any log is opened)."""
        for name, record in sorted(topics.items()):
            self.topics[name] = record
            self.cache.put_topic(record)
            self.configs.set_topic_overrides(name, record.configs)

    def restore_broker_configs(self, entities: Mapping[str, Mapping[str, str]]) -> None:
        """Know the stored dynamic broker configs (start-up)."""
        self.broker_config_entities = {e: dict(c) for e, c in entities.items() if c}

    def lead_all(self, now_ms: int) -> None:
        """Take leadership of every known partition (start-up, once the logs are loaded)."""
        for name, record in sorted(self.topics.items()):
            # existing partitions: with a log dir offline, one whose log is not found is
            # refused (it may be in that dir), not created empty elsewhere
            self.replica_manager.become_leader_or_follower(name, record.partitions.values(),
                                                           now_ms, is_new=False)

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
            replicas = tuple(brokers[(p + i) % len(brokers)] for i in range(replication_factor))
            records.append(PartitionRecord(p, replicas, replicas, replicas[0]))
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
            records.append(PartitionRecord(start + i, tuple(replicas), tuple(replicas),
                                           replicas[0]))
        return records

    def create_topic(self, name: str, num_partitions: int, replication_factor: int, *,
                     assignments: Mapping[int, list[int]] | None, configs: Mapping[str, str],
                     validate_only: bool, now_ms: int, defaults: tuple[int, int]) -> TopicRecord:
        validate_topic_name(name)
        if name in self.topics:
            raise KafkaError(ErrorCode.TOPIC_ALREADY_EXISTS, f"Topic '{name}' already exists.")
        for existing in self.topics:
            if collision_key(existing) == collision_key(name):
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
        self.configs.effective(configs)  # raises INVALID_CONFIG
        record = TopicRecord(name, uuid.uuid4(), {p.partition: p for p in partitions}, configs)
        if validate_only:
            return record
        self.store.create_topic(record)
        self.topics[name] = record
        self.cache.put_topic(record)
        self.configs.set_topic_overrides(name, record.configs)
        self.replica_manager.become_leader_or_follower(name, partitions, now_ms)
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
        self.configs.remove_topic(name)
        log.info("deleted topic %s", name)
        for listener in self.deleted_partition_listeners:
            listener([(name, p) for p in sorted(record.partitions)])
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
        rf = record.replication_factor
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
        assert record is not None
        if assignments is not None:
            new = self._manual_assignment(assignments, current)
        else:
            new = self._assignment(count - current, record.replication_factor, start=current)
        if validate_only:
            return
        self.store.add_partitions(name, new)
        record = self.topics[name] = record.with_partitions(new)
        self.cache.put_topic(record)
        self.replica_manager.become_leader_or_follower(name, new, now_ms)
        log.info("topic %s now has %d partitions", name, count)

    def broker_configs(self, entity: str) -> dict[str, str]:
        """The dynamic broker configs stored for ``entity`` (a broker id or ``<default>``)."""
        return dict(self.broker_config_entities.get(entity, {}))

    def set_broker_configs(self, entity: str, configs: Mapping[str, str]) -> None:
        """Record ``entity``'s dynamic broker configs (already checked by the admin seam)."""
        self.store.set_broker_configs(entity, dict(configs))
        if configs:
            self.broker_config_entities[entity] = dict(configs)
        else:
            self.broker_config_entities.pop(entity, None)
        log.info("Updated the dynamic configs of broker entity %s: %s", entity,
                 ", ".join(sorted(configs)) or "none")

    def set_topic_configs(self, name: str, configs: Mapping[str, str]) -> None:
        record = self.topics[name]
        self.configs.effective(configs)  # raises INVALID_CONFIG
        self.store.set_topic_configs(name, dict(configs))
        self.topics[name] = record.with_configs(configs)
        self.configs.set_topic_overrides(name, configs)
