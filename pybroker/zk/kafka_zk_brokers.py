"""The broker and controller side of :class:`~pybroker.zk.kafka_zk.KafkaZkClient`: start-up
paths and the cluster id, broker registrations (with Kafka's rule for an ephemeral znode
left by an earlier session), the controller election and its epoch, producer id blocks
(Kafka's ``ZkProducerIdManager``), and the log-dir-event and ISR-change notifications brokers
leave for the controller."""

from __future__ import annotations

import asyncio
import enum
import functools
import logging
from collections.abc import Iterable, Mapping

from pybroker.kernel.types import TopicPartition
from pybroker.zk.client import (
    BadVersionError,
    CreateOp,
    DeleteOp,
    NodeExistsError,
    NoNodeError,
    SetDataOp,
    Watch,
    ZkError,
    ZnodeStat,
)
from pybroker.zk.kafka_zk_base import ControllerMovedError, KafkaZkBase, _raise_unexpected
from pybroker.zk.znodes import (
    PERSISTENT_ZK_PATHS,
    PRODUCER_ID_BLOCK_SIZE,
    BrokerIdsZNode,
    BrokerIdZNode,
    BrokerRegistration,
    ClusterIdZNode,
    ControllerEpochZNode,
    ControllerRegistration,
    ControllerZNode,
    FeatureZNode,
    IsrChangeNotificationSequenceZNode,
    IsrChangeNotificationZNode,
    LogDirEventNotificationSequenceZNode,
    LogDirEventNotificationZNode,
    ProducerIdBlockZNode,
    ProducerIdsBlock,
    new_base64_uuid,
)

# KafkaZkClient logs under one name, whichever of its parts speaks
log = logging.getLogger("pybroker.zk.kafka_zk")

#: the controller epoch and its znode's version before any controller was elected
INITIAL_CONTROLLER_EPOCH = 0
INITIAL_CONTROLLER_EPOCH_ZK_VERSION = 0
_LONG_MAX = (1 << 63) - 1


class DuplicateBrokerIdError(NodeExistsError):
    """``/brokers/ids/<id>`` is held by another live session: the broker id is taken."""


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


class BrokerZkOps(KafkaZkBase):
    """Brokers and the controller in ZooKeeper (a part of :class:`KafkaZkClient`)."""

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

    # -- features (KIP-584) -------------------------------------------------------------------

    async def get_feature_znode(self) -> tuple[int, int, dict[str, int]] | None:
        """``/feature``: (version, status, finalized levels), or None when it does not exist."""
        found = await self._get(FeatureZNode.PATH)
        if found is None:
            return None
        return FeatureZNode.decode(found[0]) or (FeatureZNode.V2, FeatureZNode.DISABLED, {})

    async def set_feature_znode(self, features: Mapping[str, int]) -> None:
        """Write ``/feature`` enabled with ``features`` (Kafka's ``createFeatureZNode`` or
        ``updateFeatureZNode``: whatever its version)."""
        data = FeatureZNode.encode(features, FeatureZNode.ENABLED)
        try:
            await self._call(functools.partial(self.zk.set, FeatureZNode.PATH, data))
        except NoNodeError:
            try:
                await self._create_recursive(FeatureZNode.PATH, data)
            except NodeExistsError:
                await self._call(functools.partial(self.zk.set, FeatureZNode.PATH, data))

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
