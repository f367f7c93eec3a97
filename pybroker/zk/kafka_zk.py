"""The ZooKeeper operations a Kafka cluster performs, over :class:`~pybroker.zk.client.ZkClient`.

Modelled on Kafka 3.9's ``KafkaZkClient`` (with the parts of ``AdminZkClient`` and
``ZkProducerIdManager`` that write znodes): the same paths, the same JSON
(:mod:`pybroker.zk.znodes`), the same transactions and the same answers to races.

* **Retries.** A request that fails with CONNECTIONLOSS is sent again once the client is
  connected, as Kafka's ``retryRequestsUntilConnected`` does; the operations below are written
  so that a repeated request is recognised (a registration finds its own znode, an election
  re-reads who won). A SESSIONEXPIRED is not retried: the caller re-registers.
* **Fencing.** Every controller write takes ``epoch_zk_version``, the version of
  ``/controller_epoch`` the controller's election left, and is sent as a multi
  ``[check(/controller_epoch, epoch_zk_version), write]``: if another controller was elected
  since, the check fails, nothing is written, and :class:`ControllerMovedError` is raised.
  ``epoch_zk_version=-1`` writes without the check (for callers that are not the controller).
* **Broker epochs.** A broker registers with an ephemeral ``/brokers/ids/<id>`` created empty
  and filled in one multi; the znode's czxid is the broker epoch.

Requests that do not depend on each other (reading many partition states, writing them) are
sent together, as Kafka pipelines them.
"""

from __future__ import annotations

import asyncio
import enum
import functools
import logging
import uuid
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from pybroker.kernel.types import TopicPartition
from pybroker.zk.client import (
    ANY_VERSION,
    BadVersionError,
    CheckOp,
    ConnectionLossError,
    CreateOp,
    DeleteOp,
    NodeExistsError,
    NoNodeError,
    Op,
    OpResult,
    SetDataOp,
    Watch,
    ZkClient,
    ZkError,
    ZnodeStat,
)
from pybroker.zk.znodes import (
    ACL_RESOURCE_TYPES,
    CONFIG_BROKER,
    CONFIG_TOPIC,
    CONFIG_USER,
    PERSISTENT_ZK_PATHS,
    PRODUCER_ID_BLOCK_SIZE,
    AclChangeNotificationZNode,
    AclZNode,
    BrokerIdsZNode,
    BrokerIdZNode,
    BrokerRegistration,
    ClusterIdZNode,
    ConfigEntityChangeNotificationSequenceZNode,
    ConfigEntityChangeNotificationZNode,
    ConfigEntityTypeZNode,
    ConfigEntityZNode,
    ControllerEpochZNode,
    ControllerRegistration,
    ControllerZNode,
    DeleteTopicsTopicZNode,
    DeleteTopicsZNode,
    IsrChangeNotificationSequenceZNode,
    IsrChangeNotificationZNode,
    LeaderIsrAndControllerEpoch,
    LogDirEventNotificationSequenceZNode,
    LogDirEventNotificationZNode,
    PreferredReplicaElectionZNode,
    ProducerIdBlockZNode,
    ProducerIdsBlock,
    ReassignPartitionsZNode,
    TopicAssignment,
    TopicPartitionStateZNode,
    TopicPartitionsZNode,
    TopicPartitionZNode,
    TopicsZNode,
    TopicZNode,
    ZNodeDecodeError,
    new_base64_uuid,
)

log = logging.getLogger(__name__)

T = TypeVar("T")

#: the controller epoch and its znode's version before any controller was elected
INITIAL_CONTROLLER_EPOCH = 0
INITIAL_CONTROLLER_EPOCH_ZK_VERSION = 0
_LONG_MAX = (1 << 63) - 1


class ControllerMovedError(Exception):
    """Another broker is (or became) the controller: the write was fenced off, or the election
    was lost (Kafka's ControllerMovedException)."""


class DuplicateBrokerIdError(NodeExistsError):
    """``/brokers/ids/<id>`` is held by another live session: the broker id is taken."""


class TopicExistsError(NodeExistsError):
    """The topic exists, or is marked for deletion (Kafka's TopicExistsException)."""


class EphemeralOwner(enum.Enum):
    """Whose is an ephemeral znode found where we want to create ours."""

    OURS = "ours"  # this session's: a retried create had succeeded
    PREVIOUS_SESSION = "previous session"  # our earlier session's, not yet removed: re-create
    OTHER = "other"  # another session's: the id is taken


def ephemeral_owner(owner: int, registered_session: int | None,
                    current_session: int | None) -> EphemeralOwner:
    """Kafka's rule (KAFKA-7165, around ZOOKEEPER-2985) for an existing ephemeral znode whose
    ``ephemeralOwner`` is ``owner``; ``registered_session`` is the session our last
    registration was made in."""
    if (registered_session is not None and owner == registered_session
            and current_session != registered_session):
        return EphemeralOwner.PREVIOUS_SESSION
    if owner != current_session:
        return EphemeralOwner.OTHER
    return EphemeralOwner.OURS


@dataclass(frozen=True)
class PartitionStateUpdates:
    """The outcome of :meth:`KafkaZkClient.update_partition_states`: the new partition epoch
    (znode version) of each partition written, the error of each that failed otherwise, and
    those whose version had moved (BADVERSION: read again and retry), as Kafka's
    ``UpdateLeaderAndIsrResult``."""

    succeeded: dict[TopicPartition, int] = field(default_factory=dict)
    failed: dict[TopicPartition, ZkError] = field(default_factory=dict)
    to_retry: tuple[TopicPartition, ...] = ()


class KafkaZkClient:
    """Kafka's ZooKeeper operations. Every method is a coroutine run on the client's loop."""

    def __init__(self, zk: ZkClient) -> None:
        self.zk = zk
        self._registered_session: int | None = None  # Kafka's currentZooKeeperSessionId

    # -- plumbing -----------------------------------------------------------------------------

    async def _call(self, request: Callable[[], Awaitable[T]]) -> T:
        """``request()``, sent again after each CONNECTIONLOSS once the client is connected."""
        while True:
            try:
                return await request()
            except ConnectionLossError:
                await self.zk.wait_until_connected()

    async def _get(self, path: str, watch: Watch | None = None) -> tuple[bytes, ZnodeStat] | None:
        try:
            return await self._call(lambda: self.zk.get(path, watch))
        except NoNodeError:
            return None

    async def _children(self, path: str, watch: Watch | None = None) -> list[str]:
        try:
            return await self._call(lambda: self.zk.get_children(path, watch))
        except NoNodeError:
            return []

    async def _write(self, op: Op, epoch_zk_version: int) -> OpResult:
        """``op``, fenced by the controller epoch's version unless that is -1."""
        if epoch_zk_version == ANY_VERSION:
            ops: list[Op] = [op]
        elif epoch_zk_version >= 0:
            ops = [CheckOp(ControllerEpochZNode.PATH, epoch_zk_version), op]
        else:
            raise ValueError(f"expected controller epoch zkVersion {epoch_zk_version} should be "
                             "non-negative or -1")
        try:
            results = await self._call(lambda: self.zk.multi(ops))
        except ZkError as e:
            if len(ops) == 2 and e.op_index == 0:
                if isinstance(e, BadVersionError):
                    raise ControllerMovedError(
                        "Controller epoch zkVersion check fails. Expected zkVersion = "
                        f"{epoch_zk_version}") from e
            raise
        return results[-1]

    async def _writes(self, ops: Mapping[T, Op], epoch_zk_version: int
                      ) -> dict[T, OpResult | ZkError]:
        """Many fenced writes at once: each key's result or error; ControllerMovedError if
        any was fenced off."""
        keys = list(ops)
        outcomes = await asyncio.gather(*(self._write(ops[k], epoch_zk_version) for k in keys),
                                        return_exceptions=True)
        out: dict[T, OpResult | ZkError] = {}
        for key, outcome in zip(keys, outcomes, strict=True):
            if isinstance(outcome, ControllerMovedError):
                raise outcome
            if isinstance(outcome, BaseException) and not isinstance(outcome, ZkError):
                raise outcome
            out[key] = outcome
        return out

    async def _create_recursive(self, path: str, data: bytes = b"",
                                throw_if_path_exists: bool = True) -> None:
        """Create ``path`` and its missing parents (Kafka's ``createRecursive``)."""
        try:
            await self._call(lambda: self.zk.create(path, data, makepath=True))
        except NodeExistsError:
            if throw_if_path_exists:
                raise

    async def make_sure_persistent_path_exists(self, path: str) -> None:
        await self._create_recursive(path, throw_if_path_exists=False)

    async def _delete_recursive(self, path: str, epoch_zk_version: int = ANY_VERSION) -> bool:
        """Delete ``path`` and everything under it, each delete fenced; False if it was not
        there."""
        try:
            children = await self._call(lambda: self.zk.get_children(path))
        except NoNodeError:
            return False
        for child in children:
            await self._delete_recursive(f"{path}/{child}", epoch_zk_version)
        try:
            await self._write(DeleteOp(path), epoch_zk_version)
        except NoNodeError:
            pass
        return True

    async def path_exists(self, path: str) -> bool:
        return await self._call(lambda: self.zk.exists(path)) is not None

    # -- start-up -----------------------------------------------------------------------------

    async def create_top_level_paths(self) -> None:
        """The persistent paths every broker makes sure of at start-up (``ZkData``)."""
        for path in PERSISTENT_ZK_PATHS:
            await self.make_sure_persistent_path_exists(path)

    async def get_cluster_id(self) -> str | None:
        found = await self._get(ClusterIdZNode.PATH)
        return ClusterIdZNode.decode(found[0]) if found is not None else None

    async def get_or_create_cluster_id(self, proposed: str | None = None) -> str:
        """The cluster's id, created (``proposed``, or a new random one) by the first broker."""
        existing = await self.get_cluster_id()
        if existing is not None:
            return existing
        cluster_id = proposed or new_base64_uuid()
        try:
            await self._create_recursive(ClusterIdZNode.PATH, ClusterIdZNode.encode(cluster_id))
            return cluster_id
        except NodeExistsError:
            existing = await self.get_cluster_id()
            if existing is None:
                raise ZkError("Failed to get cluster id from ZooKeeper: /cluster/id was "
                              "deleted while it was being read") from None
            return existing

    # -- brokers ------------------------------------------------------------------------------

    async def register_broker(self, info: BrokerRegistration) -> int:
        """Create this broker's ephemeral ``/brokers/ids/<id>``; its czxid, the broker epoch.

        An existing znode from this broker's previous session (not yet removed by ZooKeeper)
        is deleted and created again; one held by another session raises
        :class:`DuplicateBrokerIdError`.
        """
        path = BrokerIdZNode.path(info.broker_id)
        stat = await self._checked_ephemeral_create(path, BrokerIdZNode.encode(info))
        log.info("Registered broker %d at path %s with addresses: %s, czxid (broker epoch): %d",
                 info.broker_id, path,
                 ",".join(e.connection_string() for e in info.endpoints), stat.czxid)
        return stat.czxid

    async def _checked_ephemeral_create(self, path: str, data: bytes) -> ZnodeStat:
        try:
            results = await self._call(lambda: self.zk.multi(
                [CreateOp(path, b"", ephemeral=True), SetDataOp(path, data, 0)]))
            stat = results[1]
            assert isinstance(stat, ZnodeStat)
        except NodeExistsError:
            stat = await self._get_after_node_exists(path, data)
        self._registered_session = self.zk.session_id
        return stat

    async def _get_after_node_exists(self, path: str, data: bytes) -> ZnodeStat:
        found = await self._get(path)
        if found is None:
            log.info("The ephemeral node at %s went away while reading it, creating it again",
                     path)
            return await self._checked_ephemeral_create(path, data)
        stat = found[1]
        owner = ephemeral_owner(stat.ephemeral_owner, self._registered_session,
                                self.zk.session_id)
        if owner is EphemeralOwner.PREVIOUS_SESSION:
            log.info("%s exists, owned by our previous session 0x%x: deleting and re-creating "
                     "it with session 0x%x", path, stat.ephemeral_owner, self.zk.session_id or 0)
            try:
                await self._call(lambda: self.zk.delete(path))
            except NoNodeError:
                pass
            return await self._checked_ephemeral_create(path, data)
        if owner is EphemeralOwner.OTHER:
            raise DuplicateBrokerIdError(
                f"Error while creating ephemeral at {path}, node already exists and owner "
                f"'0x{stat.ephemeral_owner:x}' does not match current session "
                f"'0x{self.zk.session_id or 0:x}'", path)
        return stat

    async def update_broker_info(self, info: BrokerRegistration) -> None:
        await self._call(lambda: self.zk.set(BrokerIdZNode.path(info.broker_id),
                                             BrokerIdZNode.encode(info)))

    async def get_broker(self, broker_id: int, watch: Watch | None = None
                         ) -> tuple[BrokerRegistration, int] | None:
        """The broker's registration and epoch, or None when it is not registered."""
        found = await self._get(BrokerIdZNode.path(broker_id), watch)
        if found is None:
            return None
        return BrokerIdZNode.decode(broker_id, found[0]), found[1].czxid

    async def get_all_brokers(self, watch: Watch | None = None
                              ) -> dict[int, tuple[BrokerRegistration, int]]:
        """Every registered broker: id -> (registration, broker epoch), in id order; ``watch``
        fires once when ``/brokers/ids``'s children change."""
        ids = sorted(int(c) for c in await self._children(BrokerIdsZNode.PATH, watch))
        found = await asyncio.gather(*(self.get_broker(i) for i in ids))
        return {i: b for i, b in zip(ids, found, strict=True) if b is not None}

    # -- the controller -----------------------------------------------------------------------

    async def get_controller_id(self, watch: Watch | None = None) -> int | None:
        """The controller's broker id, or None; ``watch`` fires once when ``/controller`` is
        created, changed or deleted (it is set whether the znode exists or not)."""
        if watch is not None and await self._call(
                lambda: self.zk.exists(ControllerZNode.PATH, watch)) is None:
            return None
        found = await self._get(ControllerZNode.PATH)
        return ControllerZNode.decode(found[0]).broker_id if found is not None else None

    async def get_controller_epoch(self) -> tuple[int, int] | None:
        """(controller epoch, zk version of ``/controller_epoch``), or None before any."""
        found = await self._get(ControllerEpochZNode.PATH)
        if found is None:
            return None
        return ControllerEpochZNode.decode(found[0]), found[1].version

    async def register_controller_and_increment_epoch(self, broker_id: int, now_ms: int
                                                      ) -> tuple[int, int]:
        """Become the controller: create the ephemeral ``/controller`` and bump
        ``/controller_epoch`` in one multi, conditional on the epoch's version. The new
        (epoch, epoch zk version), the fencing token of every later controller write; raise
        :class:`ControllerMovedError` if another broker won."""
        current = await self.get_controller_epoch()
        if current is None:
            current = await self._maybe_create_controller_epoch_znode()
        epoch, epoch_zk_version = current
        new_epoch = epoch + 1
        registration = ControllerZNode.encode(ControllerRegistration(broker_id, now_ms))
        try:
            results = await self._call(lambda: self.zk.multi([
                CreateOp(ControllerZNode.PATH, registration, ephemeral=True),
                SetDataOp(ControllerEpochZNode.PATH, ControllerEpochZNode.encode(new_epoch),
                          epoch_zk_version)]))
        except (NodeExistsError, BadVersionError):
            return await self._check_controller_and_epoch(broker_id, new_epoch)
        stat = results[1]
        assert isinstance(stat, ZnodeStat)
        return new_epoch, stat.version

    async def _check_controller_and_epoch(self, broker_id: int, new_epoch: int
                                          ) -> tuple[int, int]:
        """After NODEEXISTS or BADVERSION: we won only if both znodes show our id and epoch
        (a retried multi had succeeded)."""
        controller = await self.get_controller_id()
        if controller is None:
            raise ControllerMovedError(
                f"The ephemeral node at {ControllerZNode.PATH} went away while checking whether "
                "the controller election succeeds. Aborting controller startup procedure")
        if controller == broker_id:
            current = await self.get_controller_epoch()
            if current is None:
                raise ZkError(f"{ControllerEpochZNode.PATH} existed before but went away while "
                              "trying to read it")
            if current[0] == new_epoch:
                return current
        raise ControllerMovedError(
            "Controller moved to another broker. Aborting controller startup procedure")

    async def _maybe_create_controller_epoch_znode(self) -> tuple[int, int]:
        try:
            await self._call(lambda: self.zk.create(
                ControllerEpochZNode.PATH, ControllerEpochZNode.encode(INITIAL_CONTROLLER_EPOCH)))
            return INITIAL_CONTROLLER_EPOCH, INITIAL_CONTROLLER_EPOCH_ZK_VERSION
        except NodeExistsError:
            current = await self.get_controller_epoch()
            if current is None:
                raise ZkError(f"{ControllerEpochZNode.PATH} existed before but went away while "
                              "trying to read it") from None
            return current

    async def delete_controller(self, epoch_zk_version: int) -> None:
        """Resign: delete ``/controller``, fenced."""
        try:
            await self._write(DeleteOp(ControllerZNode.PATH), epoch_zk_version)
        except NoNodeError:
            pass

    # -- topics -------------------------------------------------------------------------------

    async def get_all_topics(self, watch: Watch | None = None) -> set[str]:
        """Every topic; ``watch`` fires once when ``/brokers/topics``'s children change."""
        return set(await self._children(TopicsZNode.PATH, watch))

    async def topic_exists(self, topic: str) -> bool:
        return await self.path_exists(TopicZNode.path(topic))

    async def get_replica_assignment_and_topic_ids(
            self, topics: Iterable[str], watch: Watch | None = None,
    ) -> dict[str, tuple[TopicAssignment, int]]:
        """topic -> (its assignment and id, the topic znode's version) for each that exists;
        ``watch`` is set on each topic znode (it fires once per topic changed or deleted)."""
        names = sorted(set(topics))
        found = await asyncio.gather(*(self._get(TopicZNode.path(t), watch) for t in names))
        return {t: (TopicZNode.decode(t, f[0]), f[1].version)
                for t, f in zip(names, found, strict=True) if f is not None}

    async def create_topic_assignment(
            self, topic: str, topic_id: uuid.UUID | None,
            assignment: Mapping[int, Sequence[int]],
            configs: Mapping[str, str] | None = None) -> None:
        """Create a topic as Kafka's ``AdminZkClient.createTopicWithAssignment`` does: refuse
        a topic that exists or is marked for deletion (:class:`TopicExistsError`), write its
        configs to ``/config/topics/<t>`` (not atomically with what follows), then create
        ``/brokers/topics/<t>``, which the controller sees."""
        if await self.is_topic_marked_for_deletion(topic):
            raise TopicExistsError(f"Topic '{topic}' is marked for deletion.",
                                   TopicZNode.path(topic))
        if await self.topic_exists(topic):
            raise TopicExistsError(f"Topic '{topic}' already exists.", TopicZNode.path(topic))
        await self.set_or_create_entity_configs(CONFIG_TOPIC, topic, configs or {})
        data = TopicZNode.encode(TopicAssignment.of(topic_id, assignment))
        try:
            await self._create_recursive(TopicZNode.path(topic), data)
        except NodeExistsError:
            raise TopicExistsError(f"Topic '{topic}' already exists.",
                                   TopicZNode.path(topic)) from None

    async def set_topic_assignment(self, topic: str, assignment: TopicAssignment, *,
                                   version: int = ANY_VERSION,
                                   epoch_zk_version: int = ANY_VERSION) -> int:
        """Rewrite the topic znode (if its version is ``version``), fenced by
        ``epoch_zk_version`` when the controller writes; the new znode version."""
        stat = await self._write(SetDataOp(TopicZNode.path(topic), TopicZNode.encode(assignment),
                                           version), epoch_zk_version)
        assert isinstance(stat, ZnodeStat)
        return stat.version

    async def delete_topic_znode(self, topic: str, epoch_zk_version: int) -> None:
        """Delete ``/brokers/topics/<t>`` with its partitions, fenced."""
        await self._delete_recursive(TopicZNode.path(topic), epoch_zk_version)

    # -- partition states ---------------------------------------------------------------------

    async def get_partition_states(
            self, partitions: Iterable[TopicPartition], watch: Watch | None = None,
    ) -> dict[TopicPartition, tuple[LeaderIsrAndControllerEpoch, int]]:
        """tp -> (its state, the state znode's version = partition epoch), for those that
        have one."""
        tps = sorted(set(partitions))
        found = await asyncio.gather(
            *(self._get(TopicPartitionStateZNode.path(tp), watch) for tp in tps))
        out: dict[TopicPartition, tuple[LeaderIsrAndControllerEpoch, int]] = {}
        for tp, f in zip(tps, found, strict=True):
            state = TopicPartitionStateZNode.decode(f[0]) if f is not None else None
            if f is not None and state is not None:
                out[tp] = (state, f[1].version)
        return out

    async def create_partition_states(
            self, states: Mapping[TopicPartition, LeaderIsrAndControllerEpoch],
            epoch_zk_version: int) -> dict[TopicPartition, ZkError | None]:
        """Create each partition's ``state`` znode (and its parents), fenced: None where it
        was created (partition epoch 0), the error where not (NodeExistsError: it was there)."""
        topics = sorted({tp[0] for tp in states})
        await self._writes({t: CreateOp(TopicPartitionsZNode.path(t)) for t in topics},
                           epoch_zk_version)
        await self._writes({tp: CreateOp(TopicPartitionZNode.path(tp)) for tp in states},
                           epoch_zk_version)
        results = await self._writes(
            {tp: CreateOp(TopicPartitionStateZNode.path(tp), TopicPartitionStateZNode.encode(s))
             for tp, s in states.items()}, epoch_zk_version)
        return {tp: r if isinstance(r, ZkError) else None for tp, r in results.items()}

    async def update_partition_states(
            self, updates: Mapping[TopicPartition, tuple[LeaderIsrAndControllerEpoch, int]],
            epoch_zk_version: int) -> PartitionStateUpdates:
        """Write each partition's new state if its znode is still at the expected version
        (the partition epoch the caller read), fenced (Kafka's ``updateLeaderAndIsr``)."""
        results = await self._writes(
            {tp: SetDataOp(TopicPartitionStateZNode.path(tp),
                           TopicPartitionStateZNode.encode(state), expected)
             for tp, (state, expected) in updates.items()}, epoch_zk_version)
        out = PartitionStateUpdates()
        retry: list[TopicPartition] = []
        for tp, r in results.items():
            if isinstance(r, BadVersionError):
                retry.append(tp)
            elif isinstance(r, ZkError):
                out.failed[tp] = r
            else:
                assert isinstance(r, ZnodeStat)
                out.succeeded[tp] = r.version
        return PartitionStateUpdates(out.succeeded, out.failed, tuple(sorted(retry)))

    # -- configs ------------------------------------------------------------------------------

    async def get_entity_configs(self, entity_type: str, name: str) -> dict[str, str]:
        """The overrides of one entity (``topics``/``orders``); none if it has no znode."""
        found = await self._get(ConfigEntityZNode.path(entity_type, name))
        return ConfigEntityZNode.decode(found[0]) if found is not None else {}

    async def get_topic_configs(self, topics: Iterable[str]) -> dict[str, dict[str, str]]:
        names = sorted(set(topics))
        found = await asyncio.gather(*(self.get_entity_configs(CONFIG_TOPIC, t) for t in names))
        return dict(zip(names, found, strict=True))

    async def set_or_create_entity_configs(self, entity_type: str, name: str,
                                           configs: Mapping[str, str], *,
                                           check_controller: bool = True) -> None:
        """Write an entity's config znode, creating it if missing. As in Kafka, the write is
        refused (ControllerMovedError) when there is no controller, and made conditional on
        ``/controller`` staying the same znode; ``check_controller=False`` skips that."""
        path = ConfigEntityZNode.path(entity_type, name)
        data = ConfigEntityZNode.encode(configs)
        check: list[Op] = []
        if check_controller:
            found = await self._get(ControllerZNode.PATH)
            if found is None:
                raise ControllerMovedError(f"Cannot set entity configs for {entity_type} {name} "
                                           "when there is no controller.")
            check = [CheckOp(ControllerZNode.PATH, found[1].version)]

        async def set_data() -> None:
            try:
                await self._call(lambda: self.zk.multi([*check, SetDataOp(path, data)]))
            except ZkError as e:
                if check and e.op_index == 0:
                    raise ControllerMovedError(
                        f"The controller changed while setting entity configs for "
                        f"{entity_type} {name}") from e
                raise

        try:
            await set_data()
        except NoNodeError:
            try:
                await self._create_recursive(path, data)
            except NodeExistsError:
                await set_data()

    async def create_config_change_notification(self, entity_path: str) -> str:
        """``/config/changes/config_change_<seq>`` naming ``topics/<t>`` or ``brokers/<id>``;
        the path created."""
        await self.make_sure_persistent_path_exists(ConfigEntityChangeNotificationZNode.PATH)
        return await self._call(lambda: self.zk.create(
            ConfigEntityChangeNotificationSequenceZNode.CREATE_PATH,
            ConfigEntityChangeNotificationSequenceZNode.encode(entity_path), sequence=True))

    async def set_topic_config(self, topic: str, configs: Mapping[str, str]) -> None:
        """Replace a topic's overrides and tell every broker (Kafka's ``changeTopicConfig``)."""
        await self.set_or_create_entity_configs(CONFIG_TOPIC, topic, configs)
        await self.create_config_change_notification(f"{CONFIG_TOPIC}/{topic}")

    async def set_broker_config(self, entity: str, configs: Mapping[str, str]) -> None:
        """Replace a broker's dynamic configs (``entity`` is its id) or the cluster-wide
        defaults (``<default>``) and tell every broker (Kafka's ``changeBrokerConfig``)."""
        await self.set_or_create_entity_configs(CONFIG_BROKER, entity, configs)
        await self.create_config_change_notification(f"{CONFIG_BROKER}/{entity}")

    async def set_user_config(self, sanitized_user: str, configs: Mapping[str, str]) -> None:
        """Replace a user's config entity (its SCRAM credentials, its quotas) and tell every
        broker (Kafka's ``changeUserOrUserClientIdConfig``); ``sanitized_user`` as
        :func:`~pybroker.zk.znodes.sanitize` makes it."""
        await self.set_or_create_entity_configs(CONFIG_USER, sanitized_user, configs)
        await self.create_config_change_notification(f"{CONFIG_USER}/{sanitized_user}")

    async def get_all_entity_configs(self, entity_type: str) -> dict[str, dict[str, str]]:
        """Every entity of a type (``users``) with its configs, by its znode's name."""
        names = sorted(await self._children(ConfigEntityTypeZNode.path(entity_type)))
        found = await asyncio.gather(*(self.get_entity_configs(entity_type, n) for n in names))
        return dict(zip(names, found, strict=True))

    async def get_config_change_notifications(self, watch: Watch | None = None) -> list[str]:
        """The notification znodes' names (``config_change_0000000007``), oldest first."""
        return sorted(await self._children(ConfigEntityChangeNotificationZNode.PATH, watch))

    async def get_config_change_notification(self, name: str) -> tuple[str, int] | None:
        """(entity path, ctime in ms) of one notification, or None when it is gone."""
        found = await self._get(ConfigEntityChangeNotificationSequenceZNode.path(name))
        if found is None:
            return None
        return ConfigEntityChangeNotificationSequenceZNode.decode(found[0]), found[1].ctime

    async def delete_config_change_notifications(self, names: Iterable[str]) -> None:
        for name in names:
            path = ConfigEntityChangeNotificationSequenceZNode.path(name)
            try:
                await self._call(functools.partial(self.zk.delete, path))
            except NoNodeError:
                pass

    # -- ACLs --------------------------------------------------------------------------------

    async def create_acl_paths(self) -> None:
        """The ACL roots with a child per resource type, and the change roots (Kafka's
        ``createAclPaths``)."""
        for root in AclZNode.ROOTS:
            for resource_type in ACL_RESOURCE_TYPES:
                await self.make_sure_persistent_path_exists(f"{root}/{resource_type}")
        for root in AclChangeNotificationZNode.ROOTS:
            await self.make_sure_persistent_path_exists(root)

    async def get_acl_node_paths(self) -> list[str]:
        """Every ACL znode: ``<root>/<ResourceType>/<name>``."""
        out = []
        for root in AclZNode.ROOTS:
            for resource_type in sorted(await self._children(root)):
                for name in sorted(await self._children(f"{root}/{resource_type}")):
                    out.append(AclZNode.path(root, resource_type, name))
        return out

    async def get_acl_node(self, path: str) -> bytes | None:
        """An ACL znode's data; None when it does not exist."""
        found = await self.get_versioned_acl_node(path)
        return found[0] if found is not None else None

    async def get_versioned_acl_node(self, path: str) -> tuple[bytes, int] | None:
        """An ACL znode's data and version; None when it does not exist."""
        found = await self._get(path)
        return (found[0], found[1].version) if found is not None else None

    async def conditional_set_acl_node(self, path: str, data: bytes | None,
                                       version: int | None) -> bool:
        """Write an ACL znode if it is still at ``version`` (None: if it does not exist yet),
        deleting it for ``data`` None; False when someone else changed it first (Kafka's
        ``conditionalSetAclsForResource``/``createAclsForResourceIfNotExists``/
        ``conditionalDelete``)."""
        try:
            if version is None:
                if data is not None:
                    await self._create_recursive(path, data)
            elif data is None:
                await self._call(functools.partial(self.zk.delete, path, version))
            else:
                await self._call(lambda: self.zk.set(path, data, version))
        except (BadVersionError, NodeExistsError, NoNodeError):
            return False
        return True

    async def set_acl_node(self, path: str, data: bytes | None) -> None:
        """Write an ACL znode whatever its version, creating it if missing; None deletes it."""
        while True:
            found = await self.get_versioned_acl_node(path)
            if await self.conditional_set_acl_node(
                    path, data, found[1] if found is not None else None):
                return

    async def create_acl_change_notification(self, root: str, data: bytes) -> str:
        """A sequential ``acl_changes_`` child of ``root``; the path created."""
        await self.make_sure_persistent_path_exists(root)
        return await self._call(lambda: self.zk.create(
            f"{root}/{AclChangeNotificationZNode.SEQUENCE_PREFIX}", data, sequence=True))

    async def get_acl_change_notifications(self, root: str,
                                           watch: Watch | None = None) -> list[str]:
        """The notification znodes' names under ``root``, oldest first."""
        return sorted(await self._children(root, watch))

    async def get_acl_change_notification(self, root: str, name: str,
                                          ) -> tuple[bytes, int] | None:
        """(data, ctime in ms) of one notification, or None when it is gone."""
        found = await self._get(AclChangeNotificationZNode.path(root, name))
        return (found[0], found[1].ctime) if found is not None else None

    async def delete_acl_change_notifications(self, root: str, names: Iterable[str]) -> None:
        for name in names:
            await self.set_acl_node(AclChangeNotificationZNode.path(root, name), None)

    async def delete_topic_configs(self, topics: Iterable[str], epoch_zk_version: int) -> None:
        results = await self._writes(
            {t: DeleteOp(ConfigEntityZNode.path(CONFIG_TOPIC, t)) for t in topics},
            epoch_zk_version)
        _raise_unexpected(results, NoNodeError)

    # -- topic deletion -----------------------------------------------------------------------

    async def create_delete_topic_path(self, topic: str) -> None:
        """Ask the controller to delete ``topic``; NodeExistsError if already asked."""
        await self._create_recursive(DeleteTopicsTopicZNode.path(topic))

    async def is_topic_marked_for_deletion(self, topic: str) -> bool:
        return await self.path_exists(DeleteTopicsTopicZNode.path(topic))

    async def get_topic_deletions(self, watch: Watch | None = None) -> list[str]:
        return await self._children(DeleteTopicsZNode.PATH, watch)

    async def delete_topic_deletions(self, topics: Iterable[str], epoch_zk_version: int) -> None:
        results = await self._writes(
            {t: DeleteOp(DeleteTopicsTopicZNode.path(t)) for t in topics}, epoch_zk_version)
        _raise_unexpected(results, NoNodeError)

    # -- reassignments and preferred-replica elections (the legacy admin znodes) -------------

    async def get_partition_reassignment(self, watch: Watch | None = None
                                         ) -> dict[TopicPartition, tuple[int, ...]]:
        """The reassignment asked for in ``/admin/reassign_partitions`` (none if absent or
        unreadable, as Kafka ignores invalid JSON); ``watch`` is an existence watch."""
        data = await self._read_watched(ReassignPartitionsZNode.PATH, watch)
        if data is None:
            return {}
        try:
            return ReassignPartitionsZNode.decode(data)
        except ZNodeDecodeError as e:
            log.warning("Ignoring partition reassignment due to invalid json: %s", e)
            return {}

    async def create_partition_reassignment(
            self, reassignment: Mapping[TopicPartition, Sequence[int]]) -> None:
        await self._create_recursive(ReassignPartitionsZNode.PATH,
                                     ReassignPartitionsZNode.encode(reassignment))

    async def delete_partition_reassignment(self, epoch_zk_version: int) -> None:
        await self._delete_recursive(ReassignPartitionsZNode.PATH, epoch_zk_version)

    async def set_partition_reassignment(self, reassignment: Mapping[TopicPartition,
                                                                   Sequence[int]],
                                         epoch_zk_version: int) -> None:
        """Rewrite ``/admin/reassign_partitions`` with what is left of it, or delete it when
        nothing is (Kafka's ``setOrCreatePartitionReassignment`` and its deletion), fenced."""
        if not reassignment:
            await self.delete_partition_reassignment(epoch_zk_version)
            return
        try:
            await self._write(SetDataOp(ReassignPartitionsZNode.PATH,
                                        ReassignPartitionsZNode.encode(reassignment)),
                              epoch_zk_version)
        except NoNodeError:
            pass  # gone meanwhile: nothing left to keep

    async def get_preferred_replica_election(self, watch: Watch | None = None
                                             ) -> frozenset[TopicPartition]:
        """The partitions in ``/admin/preferred_replica_election``; ``watch`` is an existence
        watch."""
        data = await self._read_watched(PreferredReplicaElectionZNode.PATH, watch)
        return PreferredReplicaElectionZNode.decode(data) if data is not None else frozenset()

    async def create_preferred_replica_election(self,
                                                partitions: Iterable[TopicPartition]) -> None:
        await self._create_recursive(PreferredReplicaElectionZNode.PATH,
                                     PreferredReplicaElectionZNode.encode(partitions))

    async def delete_preferred_replica_election(self, epoch_zk_version: int) -> None:
        try:
            await self._write(DeleteOp(PreferredReplicaElectionZNode.PATH), epoch_zk_version)
        except NoNodeError:
            pass

    async def _read_watched(self, path: str, watch: Watch | None) -> bytes | None:
        """The data at ``path`` or None, with an existence watch (set either way)."""
        if watch is not None and await self._call(lambda: self.zk.exists(path, watch)) is None:
            return None
        found = await self._get(path)
        return found[0] if found is not None else None

    # -- producer ids -------------------------------------------------------------------------

    async def allocate_producer_id_block(self, broker_id: int,
                                         size: int = PRODUCER_ID_BLOCK_SIZE) -> ProducerIdsBlock:
        """Reserve the next ``size`` producer ids for ``broker_id``: read
        ``/latest_producer_id_block``, write the block after it conditionally on the znode's
        version, and try again when another broker got there first (Kafka's
        ``ZkProducerIdManager``)."""
        while True:
            found = await self._get(ProducerIdBlockZNode.PATH)
            current = ProducerIdBlockZNode.decode(found[0]) if found is not None else None
            if current is None:
                block = ProducerIdsBlock(broker_id, 0, size)
            else:
                if current.last_producer_id > _LONG_MAX - size:
                    raise ZkError("Have exhausted all producerIds.")
                block = ProducerIdsBlock(broker_id, current.next_block_first_id, size)
            data = ProducerIdBlockZNode.encode(block)
            try:
                if found is None:
                    await self._create_recursive(ProducerIdBlockZNode.PATH, data)
                else:
                    await self._call(functools.partial(
                        self.zk.set, ProducerIdBlockZNode.PATH, data, found[1].version))
            except (BadVersionError, NoNodeError, NodeExistsError):
                continue
            log.info("Acquired new producerId block %s", block)
            return block

    # -- log dir event notifications (KIP-112) -------------------------------------------------

    async def propagate_log_dir_event(self, broker_id: int) -> str:
        """``/log_dir_event_notification/log_dir_event_<seq>`` naming ``broker_id`` (a log dir
        of it failed); its path."""
        return await self._call(lambda: self.zk.create(
            LogDirEventNotificationSequenceZNode.path(),
            LogDirEventNotificationSequenceZNode.encode(broker_id), sequence=True))

    async def get_all_log_dir_event_notifications(self, watch: Watch | None = None
                                                  ) -> list[str]:
        """The sequence numbers of the pending notifications, oldest first."""
        children = await self._children(LogDirEventNotificationZNode.PATH, watch)
        return sorted(LogDirEventNotificationSequenceZNode.sequence_number(c) for c in children)

    async def get_broker_ids_from_log_dir_events(self, sequence_numbers: Iterable[str],
                                                 ) -> list[int]:
        seqs = list(sequence_numbers)
        found = await asyncio.gather(
            *(self._get(LogDirEventNotificationSequenceZNode.path(s)) for s in seqs))
        out: list[int] = []
        for f in found:
            if f is not None:
                broker = LogDirEventNotificationSequenceZNode.decode(f[0])
                if broker is not None:
                    out.append(broker)
        return out

    async def delete_log_dir_event_notifications(self, sequence_numbers: Iterable[str],
                                                 epoch_zk_version: int) -> None:
        results = await self._writes(
            {s: DeleteOp(LogDirEventNotificationSequenceZNode.path(s)) for s in sequence_numbers},
            epoch_zk_version)
        _raise_unexpected(results, NoNodeError)

    # -- ISR change notifications -------------------------------------------------------------

    async def propagate_isr_changes(self, partitions: Iterable[TopicPartition]) -> str:
        """``/isr_change_notification/isr_change_<seq>`` naming ``partitions``; its path."""
        return await self._call(lambda: self.zk.create(
            IsrChangeNotificationSequenceZNode.path(),
            IsrChangeNotificationSequenceZNode.encode(partitions), sequence=True))

    async def get_all_isr_change_notifications(self, watch: Watch | None = None) -> list[str]:
        """The sequence numbers of the pending notifications, oldest first."""
        children = await self._children(IsrChangeNotificationZNode.PATH, watch)
        return sorted(IsrChangeNotificationSequenceZNode.sequence_number(c) for c in children)

    async def get_partitions_from_isr_change_notifications(
            self, sequence_numbers: Iterable[str]) -> list[TopicPartition]:
        seqs = list(sequence_numbers)
        found = await asyncio.gather(
            *(self._get(IsrChangeNotificationSequenceZNode.path(s)) for s in seqs))
        out: list[TopicPartition] = []
        for f in found:
            if f is not None:
                out.extend(sorted(IsrChangeNotificationSequenceZNode.decode(f[0])))
        return out

    async def delete_isr_change_notifications(self, sequence_numbers: Iterable[str],
                                              epoch_zk_version: int) -> None:
        results = await self._writes(
            {s: DeleteOp(IsrChangeNotificationSequenceZNode.path(s)) for s in sequence_numbers},
            epoch_zk_version)
        _raise_unexpected(results, NoNodeError)


def _raise_unexpected(results: Mapping[str, OpResult | ZkError],
                      expected: type[ZkError]) -> None:
    """Raise the first error that is not ``expected`` (a znode already gone, say)."""
    for r in results.values():
        if isinstance(r, ZkError) and not isinstance(r, expected):
            raise r
