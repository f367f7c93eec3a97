"""The admin seam in ZooKeeper mode (Kafka's ``ZkAdminManager`` and ``AdminZkClient``).

Any broker accepts a layout change by writing it to ZooKeeper - a topic's assignment under
``/brokers/topics/<t>`` (its configs under ``/config/topics/<t>`` first), a deletion request
under ``/admin/delete_topics/<t>``, a topic config with a change notification - and the outcome
arrives later from the controller: LeaderAndIsr and UpdateMetadata. The answer waits for it in
the topic purgatory (:class:`~pybroker.purgatory.delayed_admin.DelayedTopicOperation`), checked
on every UpdateMetadata naming the topic, until ``timeout_ms`` (then REQUEST_TIMED_OUT; the
change goes on regardless, as in Kafka). A ``timeout_ms`` of 0 or less answers at once.

Elections and reassignments are the controller's own decisions: they are handed to the
controller module when this broker is the active controller, and refused with NOT_CONTROLLER
otherwise (clients send them to the controller).

Dynamic broker configs (KIP-226) go to ``/config/brokers/<id>`` or ``/config/brokers/<default>``
with a change notification under ``/config/changes``, from which every broker concerned
applies them, this one included; the answer does not wait for that.

Every outcome here is a future: ZooKeeper is a round trip away.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from protocol.errors import ErrorCode, KafkaError
from pybroker.admin import NewPartitions, NewTopic
from pybroker.jvm import scala_hash_order
from pybroker.kernel.outcome import Outcome, then
from pybroker.kernel.placement import new_partitions_start_index
from pybroker.kernel.types import Reassignment, TopicPartition
from pybroker.metadata.model import PartitionRecord, TopicRecord
from pybroker.metadata.topics import collision_key, validate_topic_name
from pybroker.purgatory import Purgatory
from pybroker.purgatory.delayed_admin import DelayedTopicOperation, PendingItem
from pybroker.quota.manager import UNBOUNDED_MUTATIONS, MutationQuota

if TYPE_CHECKING:
    from pybroker.cluster.metadata_cache import MetadataCache
    from pybroker.metadata.config_repository import ConfigRepository

log = logging.getLogger(__name__)

#: assign ``(partitions, replication factor, live brokers, first partition index, start index
#: or None for a random one)`` -> replica lists, as Kafka's rack-unaware assignment does
Assign = Callable[[int, int, Sequence[int], int, int | None], list[list[int]]]


class TopicStore(Protocol):
    """The ZooKeeper operations the admin manager needs (``pybroker.zk.kafka_zk``)."""

    async def get_all_topics(self) -> list[str]: ...

    async def get_replica_assignment(self, topic: str
                                     ) -> tuple[uuid.UUID, dict[int, list[int]], int] | None:
        """(topic id, partition -> replicas, znode version), or None when it does not exist."""
        ...

    async def create_topic(self, topic: str, topic_id: uuid.UUID,
                           assignment: Mapping[int, Sequence[int]],
                           configs: Mapping[str, str]) -> None:
        """Write the configs, then the assignment; TOPIC_ALREADY_EXISTS when it exists."""
        ...

    async def add_partitions(self, topic: str, topic_id: uuid.UUID,
                             assignment: Mapping[int, Sequence[int]], version: int) -> None: ...

    async def request_topic_deletion(self, topic: str) -> None: ...

    async def set_topic_config(self, topic: str, configs: Mapping[str, str]) -> None: ...

    async def get_broker_config(self, entity: str) -> dict[str, str]:
        """``/config/brokers/<entity>``: a broker's dynamic configs, or ``<default>``'s."""
        ...

    async def get_topic_config(self, topic: str) -> dict[str, str]:
        """``/config/topics/<topic>``: a topic's overrides."""
        ...

    async def set_broker_config(self, entity: str, configs: Mapping[str, str]) -> None:
        """Write them and a change notification; NOT_CONTROLLER without a controller."""
        ...

    async def get_group_config(self, group: str) -> dict[str, str]:
        """``/config/groups/<group>``: a group's overrides (KIP-848)."""
        ...

    async def set_group_config(self, group: str, configs: Mapping[str, str]) -> None:
        """Write them and a group config change notification."""
        ...


class ControllerModule(Protocol):
    """This broker's controller module's admin entry points (``pybroker.controller``)."""

    @property
    def is_active(self) -> bool: ...

    def elect_leaders(self, partitions: Sequence[TopicPartition], election_type: int,
                      ) -> asyncio.Future[dict[TopicPartition, KafkaError | None]]: ...

    def alter_partition_reassignments(
        self, targets: Mapping[TopicPartition, Sequence[int] | None],
    ) -> asyncio.Future[dict[TopicPartition, KafkaError | None]]: ...

    def list_partition_reassignments(self, partitions: Sequence[TopicPartition] | None,
                                     ) -> asyncio.Future[dict[TopicPartition, Reassignment]]: ...


def _not_controller(keys: Sequence[TopicPartition]) -> dict[TopicPartition, KafkaError | None]:
    return {tp: KafkaError(ErrorCode.NOT_CONTROLLER, "This is not the correct controller for "
                                                     "this cluster.") for tp in keys}


class ZkAdminManager:
    def __init__(self, store: TopicStore, metadata: MetadataCache, configs: ConfigRepository,
                 controller: ControllerModule, assign: Assign, *, default_partitions: int,
                 default_replication_factor: int, cap_internal_replication: bool = False,
                 ) -> None:
        """``cap_internal_replication``: an internal topic gets at most as many replicas as
        there are live brokers (the embedded single node, which serves transactions and
        groups with Kafka's default replication factor of 3), instead of waiting for them."""
        self.store = store
        self.cap_internal_replication = cap_internal_replication
        #: whether the controller has finished deleting a topic (None: a deletion is answered
        #: once no broker serves the topic, as Kafka's; the embedded node, whose controller is
        #: local, answers once it is deleted, so that it can be created again at once)
        self.deletion_completed: Callable[[str], bool] | None = None
        self.auto_create_timeout_ms = 0
        self.metadata = metadata
        self.configs = configs
        self.controller = controller
        self.assign = assign
        self.defaults = (default_partitions, default_replication_factor)
        self.topic_purgatory = Purgatory("topic")
        self._internal_in_flight: set[str] = set()

    def on_metadata_updated(self, topics: Sequence[str]) -> None:
        """UpdateMetadata named these topics: answer what waited for them."""
        for topic in topics:
            self.topic_purgatory.check_and_complete(topic)

    # -- helpers ---------------------------------------------------------------------------
    def _live_brokers(self) -> list[int]:
        return self.metadata.alive_broker_ids

    def _fully_led(self, topic: str, partitions: int) -> Callable[[], bool]:
        def check() -> bool:
            info = self.metadata.topic(topic)
            return (info is not None and len(info.partitions) >= partitions
                    and all(p.leader >= 0 for p in info.partitions.values()))
        return check

    def _gone(self, topic: str) -> Callable[[], bool]:
        completed = self.deletion_completed
        if completed is None:
            return lambda: self.metadata.topic(topic) is None
        return lambda: self.metadata.topic(topic) is None and completed(topic)

    def wait_until_led(self, topic: str, timeout_ms: int) -> Outcome[bool]:
        def led() -> bool:
            info = self.metadata.topic(topic)
            return info is not None and bool(info.partitions) and all(
                p.leader >= 0 for p in info.partitions.values())
        if led():
            return True
        waiting = asyncio.ensure_future(
            self._wait([PendingItem(topic, led, True, False)], timeout_ms))
        return then(waiting, lambda results: bool(results[0]))

    async def _wait(self, items: list[PendingItem], timeout_ms: int) -> list[Any]:
        pending = [i for i in items if not i.done]
        if not pending:
            return [i.result for i in items]
        op = DelayedTopicOperation(items, lambda results: results)
        fut = self.topic_purgatory.try_complete_else_watch(
            op, sorted({i.key for i in pending}, key=str), timeout_ms)
        result: list[Any] = await fut
        return result

    def _assignment(self, t: NewTopic, existing: Sequence[str]) -> dict[int, list[int]]:
        validate_topic_name(t.name)
        if t.name in existing or self.metadata.topic(t.name) is not None:
            raise KafkaError(ErrorCode.TOPIC_ALREADY_EXISTS, f"Topic '{t.name}' already exists.")
        for other in existing:
            if collision_key(other) == collision_key(t.name):
                raise KafkaError(ErrorCode.INVALID_TOPIC_EXCEPTION,
                                 f"Topic '{t.name}' collides with existing topic: {other}")
        live = self._live_brokers()
        if t.assignments:
            if t.num_partitions != -1 or t.replication_factor != -1:
                raise KafkaError(ErrorCode.INVALID_REQUEST,
                                 "Both numPartitions or replicationFactor and replicasAssignments "
                                 "were set. Both cannot be used at the same time.")
            if sorted(t.assignments) != list(range(len(t.assignments))):
                raise KafkaError(ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                                 "Partitions should be a consecutive 0-based integer sequence")
            assignment = {p: list(r) for p, r in sorted(t.assignments.items())}
            _check_manual(assignment.values(), live, 0)
            return assignment
        partitions = self.defaults[0] if t.num_partitions == -1 else t.num_partitions
        replication = self.defaults[1] if t.replication_factor == -1 else t.replication_factor
        if partitions <= 0:
            raise KafkaError(ErrorCode.INVALID_PARTITIONS,
                             "Number of partitions must be larger than 0.")
        if replication <= 0:
            raise KafkaError(ErrorCode.INVALID_REPLICATION_FACTOR,
                             "Replication factor must be larger than 0.")
        if replication > len(live):
            raise KafkaError(ErrorCode.INVALID_REPLICATION_FACTOR,
                             f"Replication factor: {replication} larger than available brokers: "
                             f"{len(live)}.")
        return dict(enumerate(self.assign(partitions, replication, live, 0, None)))

    # -- topics ------------------------------------------------------------------------------
    def create_topics(self, topics: Sequence[NewTopic], *, validate_only: bool,
                      timeout_ms: int, now_ms: int,
                      mutations: MutationQuota = UNBOUNDED_MUTATIONS,
                      ) -> asyncio.Future[list[TopicRecord | KafkaError]]:
        return asyncio.ensure_future(self._create_topics(topics, validate_only, timeout_ms,
                                                         mutations))

    async def _create_topics(self, topics: Sequence[NewTopic], validate_only: bool,
                             timeout_ms: int, mutations: MutationQuota,
                             ) -> list[TopicRecord | KafkaError]:
        existing = await self.store.get_all_topics()
        items: dict[int, PendingItem] = {}
        # as Kafka, in the order its handler's HashMap holds them: the order a controller
        # mutation quota charges them in
        order = {name: i for i, name in enumerate(scala_hash_order([t.name for t in topics]))}
        for index, t in sorted(enumerate(topics), key=lambda it: order[it[1].name]):
            try:
                assignment = self._assignment(t, existing)
                self.configs.effective(t.configs)  # INVALID_CONFIG
                record = TopicRecord(t.name, uuid.uuid4(), {
                    p: PartitionRecord(p, tuple(r), tuple(r), r[0])
                    for p, r in assignment.items()}, t.configs)
                if not validate_only:
                    mutations.record(len(assignment))  # THROTTLING_QUOTA_EXCEEDED
                    await self.store.create_topic(t.name, record.topic_id, assignment, t.configs)
                    existing = [*existing, t.name]
            except KafkaError as e:
                items[index] = PendingItem(t.name, lambda: True, e, e, done=True)
                continue
            immediate = validate_only or timeout_ms <= 0
            timed_out = KafkaError(ErrorCode.REQUEST_TIMED_OUT, None)
            item = items[index] = PendingItem(t.name, self._fully_led(t.name, len(assignment)),
                                              record, timed_out, done=validate_only)
            if immediate and not validate_only:
                item.result, item.done = timed_out, True
        return await self._wait([items[i] for i in range(len(topics))], timeout_ms)

    def delete_topics(self, names: Sequence[str], *, timeout_ms: int, now_ms: int,
                      mutations: MutationQuota = UNBOUNDED_MUTATIONS,
                      ) -> asyncio.Future[list[TopicRecord | KafkaError]]:
        return asyncio.ensure_future(self._delete_topics(names, timeout_ms, mutations))

    async def _delete_topics(self, names: Sequence[str], timeout_ms: int,
                             mutations: MutationQuota) -> list[TopicRecord | KafkaError]:
        items: dict[int, PendingItem] = {}
        # as Kafka, in the order its handler's HashSet holds them (a quota charges them so)
        order = {name: i for i, name in enumerate(scala_hash_order(list(names)))}
        for index, name in sorted(enumerate(names), key=lambda it: order[it[1]]):
            info = self.metadata.topic(name)
            if info is None:
                e = KafkaError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
                               "This server does not host this topic-partition.")
                items[index] = PendingItem(name, lambda: True, e, e, done=True)
                continue
            try:
                mutations.record(len(info.partitions))
            except KafkaError as e:  # THROTTLING_QUOTA_EXCEEDED
                items[index] = PendingItem(name, lambda: True, e, e, done=True)
                continue
            await self.store.request_topic_deletion(name)
            record = TopicRecord(name, info.topic_id)
            timed_out = KafkaError(ErrorCode.REQUEST_TIMED_OUT, None)
            item = items[index] = PendingItem(name, self._gone(name), record, timed_out,
                                              done=timeout_ms <= 0)
            if timeout_ms <= 0:
                item.result = timed_out
        return await self._wait([items[i] for i in range(len(names))], timeout_ms)

    def create_partitions(self, requests: Sequence[NewPartitions], *, validate_only: bool,
                          timeout_ms: int, now_ms: int,
                          mutations: MutationQuota = UNBOUNDED_MUTATIONS,
                          ) -> asyncio.Future[list[KafkaError | None]]:
        return asyncio.ensure_future(self._create_partitions(requests, validate_only,
                                                             timeout_ms, mutations))

    async def _create_partitions(self, requests: Sequence[NewPartitions], validate_only: bool,
                                 timeout_ms: int, mutations: MutationQuota,
                                 ) -> list[KafkaError | None]:
        items: list[PendingItem] = []
        for r in requests:
            try:
                found = await self.store.get_replica_assignment(r.topic)
                if found is None:
                    raise KafkaError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
                                     f"The topic '{r.topic}' does not exist.")
                topic_id, current, version = found
                new = self._new_partitions(r, current)
                if not validate_only:
                    mutations.record(len(new))  # THROTTLING_QUOTA_EXCEEDED
                    await self.store.add_partitions(r.topic, topic_id, {**current, **new},
                                                    version)
            except KafkaError as e:
                items.append(PendingItem(r.topic, lambda: True, e, e, done=True))
                continue
            timed_out = KafkaError(ErrorCode.REQUEST_TIMED_OUT, None)
            done = validate_only or timeout_ms <= 0
            items.append(PendingItem(r.topic, self._fully_led(r.topic, r.count), None,
                                     timed_out, done=done))
            if done and not validate_only:
                items[-1].result = timed_out
        return await self._wait(items, timeout_ms)

    def _new_partitions(self, r: NewPartitions, current: Mapping[int, Sequence[int]],
                        ) -> dict[int, list[int]]:
        count = len(current)
        if r.count < count:
            raise KafkaError(ErrorCode.INVALID_PARTITIONS,
                             f"Topic currently has {count} partitions, which is higher than the "
                             f"requested {r.count}.")
        if r.count == count:
            raise KafkaError(ErrorCode.INVALID_PARTITIONS,
                             f"Topic already has {count} partitions.")
        live = self._live_brokers()
        if r.assignments is not None:
            if len(r.assignments) != r.count - count:
                raise KafkaError(ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                                 f"Increasing the number of partitions by {r.count - count} but "
                                 f"{len(r.assignments)} assignments provided.")
            _check_manual(r.assignments, live, count)
            return {count + i: list(a) for i, a in enumerate(r.assignments)}
        replication = len(current[0])
        # as Kafka's AdminZkClient.addPartitions: continue from partition 0's first replica
        start = new_partitions_start_index(live, current[0][0])
        return {count + i: a for i, a in
                enumerate(self.assign(r.count - count, replication, live, count, start))}

    def alter_topic_configs(self, topic: str, overrides: Mapping[str, str], *,
                            validate_only: bool) -> asyncio.Future[KafkaError | None]:
        async def change() -> KafkaError | None:
            if self.metadata.topic(topic) is None:
                return KafkaError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
                                  f"The topic '{topic}' does not exist.")
            if not validate_only:
                await self.store.set_topic_config(topic, overrides)
            return None
        return asyncio.ensure_future(change())

    # -- dynamic broker configs ------------------------------------------------------------
    def broker_configs(self, entity: str) -> asyncio.Future[dict[str, str]]:
        return asyncio.ensure_future(self.store.get_broker_config(entity))

    def topic_configs(self, topic: str) -> asyncio.Future[dict[str, str]]:
        return asyncio.ensure_future(self.store.get_topic_config(topic))

    def alter_broker_configs(self, entity: str, configs: Mapping[str, str],
                             ) -> asyncio.Future[KafkaError | None]:
        """Kafka's ``changeBrokerConfig``: the configs and a change notification; each broker
        applies them when the notification reaches it (this one too)."""
        async def change() -> KafkaError | None:
            try:
                await self.store.set_broker_config(entity, configs)
            except KafkaError as e:
                return e
            return None
        return asyncio.ensure_future(change())

    # -- group configs (KIP-848) ------------------------------------------------------------
    def group_configs(self, group: str) -> asyncio.Future[dict[str, str]]:
        return asyncio.ensure_future(self.store.get_group_config(group))

    def alter_group_configs(self, group: str, configs: Mapping[str, str],
                            ) -> asyncio.Future[KafkaError | None]:
        """The group's znode and a notification; every broker's coordinator applies them when
        the notification reaches it (this one too)."""
        async def change() -> KafkaError | None:
            try:
                await self.store.set_group_config(group, configs)
            except KafkaError as e:
                return e
            return None
        return asyncio.ensure_future(change())

    # -- the controller's decisions ---------------------------------------------------------
    def elect_leaders(self, partitions: Sequence[TopicPartition], election_type: int, *,
                      timeout_ms: int, now_ms: int,
                      ) -> Outcome[dict[TopicPartition, KafkaError | None]]:
        if not self.controller.is_active:
            return _not_controller(partitions)
        return self.controller.elect_leaders(partitions, election_type)

    def alter_partition_reassignments(
        self, targets: Mapping[TopicPartition, Sequence[int] | None], *, timeout_ms: int,
        now_ms: int) -> Outcome[dict[TopicPartition, KafkaError | None]]:
        if not self.controller.is_active:
            return _not_controller(list(targets))
        return self.controller.alter_partition_reassignments(targets)

    def list_partition_reassignments(self, partitions: Sequence[TopicPartition] | None,
                                     ) -> asyncio.Future[dict[TopicPartition, Reassignment]]:
        return self.controller.list_partition_reassignments(partitions)

    # -- internal topics -----------------------------------------------------------------------
    def create_internal_topic(self, name: str, num_partitions: int, replication_factor: int,
                              configs: Mapping[str, str], now_ms: int,
                              ) -> asyncio.Future[KafkaError | None]:
        """As Kafka's ZooKeeper mode: the topic needs ``replication_factor`` live brokers; it
        is asked for once at a time, and groups have no coordinator until it is led."""
        async def create() -> KafkaError | None:
            if name in self._internal_in_flight:
                return None
            live = len(self._live_brokers())
            replication = replication_factor
            if self.cap_internal_replication:
                replication = max(1, min(replication_factor, live))
            if live < replication:
                what, setting = _INTERNAL_TOPIC_SETTINGS.get(
                    name, (name, "the topic's replication factor"))
                log.warning("Number of alive brokers '%d' does not meet the required replication "
                            "factor '%d' for the %s (configured via '%s'). This error can be "
                            "ignored if the cluster is starting up and not all brokers are up "
                            "yet.", live, replication_factor, what, setting)
                return KafkaError(ErrorCode.COORDINATOR_NOT_AVAILABLE)
            self._internal_in_flight.add(name)
            try:
                [result] = await self._create_topics(
                    [NewTopic(name, num_partitions, replication, configs=configs)],
                    validate_only=False, timeout_ms=0, mutations=UNBOUNDED_MUTATIONS)
            finally:
                self._internal_in_flight.discard(name)
            if isinstance(result, KafkaError) and result.code not in (
                    ErrorCode.TOPIC_ALREADY_EXISTS, ErrorCode.REQUEST_TIMED_OUT):
                return result
            return None
        return asyncio.ensure_future(create())


#: how Kafka's warnings name each internal topic and the setting of its replication factor
_INTERNAL_TOPIC_SETTINGS = {
    "__consumer_offsets": ("offsets topic", "offsets.topic.replication.factor"),
    "__transaction_state": ("transactions state topic",
                            "transaction.state.log.replication.factor"),
}


def _check_manual(assignments: Any, live: Sequence[int], first: int) -> None:
    """Kafka's checks of explicit replica lists (AdminZkClient)."""
    width = None
    for i, replicas in enumerate(assignments):
        if not replicas:
            raise KafkaError(ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                             f"Cannot have replication factor of 0 for partition id {first + i}.")
        if len(set(replicas)) != len(replicas):
            raise KafkaError(ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                             f"Duplicate brokers not allowed in replica assignment: "
                             f"{', '.join(map(str, replicas))} for partition id {first + i}.")
        unknown = sorted(set(replicas) - set(live))
        if unknown:
            raise KafkaError(ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                             f"Unknown broker(s) in replica assignment: "
                             f"{', '.join(map(str, unknown))}.")
        if width is not None and len(replicas) != width:
            raise KafkaError(ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                             "All partitions should have the same number of replicas")
        width = len(replicas)
