"""The replica state machine of the ZooKeeper-mode controller (Kafka's
``controller/ReplicaStateMachine.scala``), as pure decisions over the controller's context.

Theory of operation
-------------------
Each replica (a partition on one broker) is in one of seven states; :data:`VALID_PREVIOUS_STATES`
is Kafka's ``validPreviousStates`` table:

===============================  ==================================  ============================
state                            entered from                        what the controller does
===============================  ==================================  ============================
``NewReplica``                   ``NonExistentReplica``              LeaderAndIsr (current state,
                                                                     ``is_new``) to the replica,
                                                                     unless it is the leader
``OnlineReplica``                ``NewReplica``, ``OnlineReplica``,  from New: add it to the
                                 ``OfflineReplica``,                 assignment if missing; else
                                 ``ReplicaDeletionIneligible``       LeaderAndIsr (current state)
                                                                     to it
``OfflineReplica``               ``NewReplica``, ``OnlineReplica``,  StopReplica (keep the log);
                                 ``OfflineReplica``,                 remove it from the ISR in
                                 ``ReplicaDeletionIneligible``       ZooKeeper; LeaderAndIsr to
                                                                     the other replicas
``ReplicaDeletionStarted``       ``OfflineReplica``                  StopReplica (delete)
``ReplicaDeletionSuccessful``    ``ReplicaDeletionStarted``          mark
``ReplicaDeletionIneligible``    ``OfflineReplica``,                 mark
                                 ``ReplicaDeletionStarted``
``NonExistentReplica``           ``ReplicaDeletionSuccessful``       drop it from the assignment
===============================  ==================================  ============================

:meth:`ReplicaStateMachine.handle_state_changes` is Kafka's ``handleStateChanges`` without the
ZooKeeper operations: it checks each transition against the table (an illegal one is reported in
:attr:`ReplicaStateChange.illegal` for the caller to log, and the replica is skipped) and makes
every change that needs no ZooKeeper at once. Only ``OfflineReplica`` needs ZooKeeper: the
replica leaves the ISR of each partition that has a leader. As Kafka does it, one broker at a
time: :meth:`ReplicaStateChange.next_isr_removal` names a broker and the partitions whose
``state`` the caller must read; :meth:`ReplicaStateMachine.remove_replica_from_isr` returns the
leader and ISR to compare-and-set for each (the broker out of the ISR - unless it is the only
member, which the controller never empties - no leader if it led, leader epoch + 1); the caller
reports the outcomes to :meth:`ReplicaStateMachine.on_isr_removed`. A write that lost to another
writer (BADVERSION) is read and decided again by the next ``next_isr_removal``. A replica whose
removal fails keeps its state.

The controller core drives one change so (``zk_*`` are its own)::

    batch = RequestBatch(context)
    change = machine.handle_state_changes(batch, replicas, ReplicaState.OFFLINE)
    while (step := change.next_isr_removal()) is not None:
        broker, partitions = step
        writes = machine.remove_replica_from_isr(change, zk_read_states(partitions))
        machine.on_isr_removed(change, zk_update_states(writes))  # CAS on each partition_epoch
    log(change.illegal, change.failed)
    send(batch.requests(controller_id, context.epoch, inter_broker_listener))
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pybroker.controller.model import (
    NO_LEADER,
    NO_NODE,
    LeaderAndIsr,
    LeaderIsrAndControllerEpoch,
    PartitionAndReplica,
    ReadOutcome,
    ReplicaAssignment,
    StateChangeFailure,
    WriteOutcome,
    ZkError,
)
from pybroker.kernel.state_table import StateTable
from pybroker.kernel.types import TopicPartition, tp_str

if TYPE_CHECKING:
    from pybroker.controller.context import ControllerContext
    from pybroker.controller.request_batch import RequestBatch


class ReplicaState(enum.Enum):
    """Values are Kafka's names."""

    NON_EXISTENT = "NonExistentReplica"
    NEW = "NewReplica"
    ONLINE = "OnlineReplica"
    OFFLINE = "OfflineReplica"
    DELETION_STARTED = "ReplicaDeletionStarted"
    DELETION_SUCCESSFUL = "ReplicaDeletionSuccessful"
    DELETION_INELIGIBLE = "ReplicaDeletionIneligible"

    def __str__(self) -> str:
        return self.value


_R = ReplicaState

#: target state -> the states it may be entered from (Kafka's ``validPreviousStates``).
VALID_PREVIOUS_STATES: StateTable[ReplicaState] = StateTable({
    _R.NON_EXISTENT: {_R.DELETION_SUCCESSFUL},
    _R.NEW: {_R.NON_EXISTENT},
    _R.ONLINE: {_R.NEW, _R.ONLINE, _R.OFFLINE, _R.DELETION_INELIGIBLE},
    _R.OFFLINE: {_R.NEW, _R.ONLINE, _R.OFFLINE, _R.DELETION_INELIGIBLE},
    _R.DELETION_STARTED: {_R.OFFLINE},
    _R.DELETION_SUCCESSFUL: {_R.DELETION_STARTED},
    _R.DELETION_INELIGIBLE: {_R.OFFLINE, _R.DELETION_STARTED},
}, initial=_R.NON_EXISTENT)

is_valid_transition = VALID_PREVIOUS_STATES.allows
legal_transitions = VALID_PREVIOUS_STATES.transitions


@dataclass(frozen=True, slots=True)
class IllegalReplicaTransition:
    """A transition the table forbids: the caller logs it and the replica is skipped."""

    replica: PartitionAndReplica
    source: ReplicaState
    target: ReplicaState

    def __str__(self) -> str:
        expected = ",".join(s.value for s in VALID_PREVIOUS_STATES.sources(self.target))
        return (f"Replica {self.replica} should be in the {expected} states before moving to "
                f"{self.target} state. Instead it is in {self.source} state")


def check_transition(replica: PartitionAndReplica, source: ReplicaState,
                     target: ReplicaState) -> IllegalReplicaTransition | None:
    """``None`` when the table allows the transition, else the report to log."""
    if is_valid_transition(source, target):
        return None
    return IllegalReplicaTransition(replica, source, target)


@dataclass(slots=True)
class ReplicaStateChange:
    """One ``handleStateChanges`` call in progress; see the module's description."""

    target: ReplicaState
    batch: RequestBatch
    illegal: list[IllegalReplicaTransition] = field(default_factory=list)
    #: replicas that kept their state, and why (for the log).
    failed: dict[PartitionAndReplica, StateChangeFailure] = field(default_factory=dict)
    #: OfflineReplica: broker -> partitions whose ISR it still has to leave.
    isr_removals: dict[int, list[TopicPartition]] = field(default_factory=dict)
    #: the broker whose removals are being decided, and the writes waiting for their outcome.
    current: int | None = None
    pending: dict[TopicPartition, LeaderAndIsr] = field(default_factory=dict)

    def next_isr_removal(self) -> tuple[int, list[TopicPartition]] | None:
        """The broker to take out of ISRs next and the partitions whose ``state`` to read for
        it; ``None`` when the change is done."""
        if self.pending:
            raise RuntimeError("the outcomes of the previous ISR removal were not reported")
        for broker in sorted(self.isr_removals):
            partitions = self.isr_removals[broker]
            if partitions:
                self.current = broker
                return broker, list(partitions)
            del self.isr_removals[broker]
        self.current = None
        return None

    @property
    def done(self) -> bool:
        return not self.pending and not any(self.isr_removals.values())


def _require(keys: Iterable[TopicPartition], outcomes: Mapping[TopicPartition, object],
             what: str) -> None:
    missing = [tp_str(tp) for tp in keys if tp not in outcomes]
    if missing:
        raise ValueError(f"no {what} for {', '.join(missing)}")


class ReplicaStateMachine:
    def __init__(self, context: ControllerContext, controller_id: int) -> None:
        self.context = context
        self.controller_id = controller_id

    # -- start-up ----------------------------------------------------------------------------

    def initialize_replica_states(self) -> None:
        """On becoming controller: a replica on a live broker is Online; any other is
        DeletionIneligible (safe should its topic be deleted while its broker is away)."""
        ctx = self.context
        for tp in sorted(ctx.all_partitions()):
            for replica in ctx.partition_replica_assignment(tp):
                state = (ReplicaState.ONLINE if ctx.is_replica_online(replica, tp)
                         else ReplicaState.DELETION_INELIGIBLE)
                ctx.put_replica_state(PartitionAndReplica(tp, replica), state)

    def startup_transitions(self) -> tuple[list[PartitionAndReplica], list[PartitionAndReplica]]:
        """What Kafka's ``startup`` moves, in two state changes: these replicas to Online, then
        these to Offline."""
        online, offline = self.context.online_and_offline_replicas()
        return sorted(online), sorted(offline)

    # -- the state change --------------------------------------------------------------------

    def handle_state_changes(self, batch: RequestBatch, replicas: Iterable[PartitionAndReplica],
                             target: ReplicaState) -> ReplicaStateChange:
        ctx = self.context
        change = ReplicaStateChange(target, batch)
        by_broker: dict[int, list[PartitionAndReplica]] = {}
        for r in replicas:
            by_broker.setdefault(r.replica, []).append(r)
        for broker in sorted(by_broker):
            valid: list[PartitionAndReplica] = []
            for r in by_broker[broker]:
                ctx.put_replica_state_if_not_exists(r, ReplicaState.NON_EXISTENT)
                illegal = check_transition(r, ctx.replica_state(r), target)
                if illegal is None:
                    valid.append(r)
                else:
                    change.illegal.append(illegal)
            self._apply(change, broker, valid)
        return change

    def _apply(self, change: ReplicaStateChange, broker: int,
               replicas: list[PartitionAndReplica]) -> None:
        ctx = self.context
        batch = change.batch
        target = change.target
        if target is ReplicaState.NEW:
            for r in replicas:
                tp = r.topic_partition
                info = ctx.partition_leadership_info(tp)
                if info is not None and info.leader_and_isr.leader == broker:
                    change.failed[r] = StateChangeFailure(
                        f"Replica {broker} for partition {tp_str(tp)} cannot be moved to "
                        "NewReplica state as it is being requested to become leader")
                    continue
                if info is not None:
                    batch.add_leader_and_isr([broker], tp, info,
                                             ctx.partition_full_replica_assignment(tp),
                                             is_new=True)
                ctx.put_replica_state(r, ReplicaState.NEW)
        elif target is ReplicaState.ONLINE:
            for r in replicas:
                tp = r.topic_partition
                if ctx.replica_state(r) is ReplicaState.NEW:
                    assignment = ctx.partition_full_replica_assignment(tp)
                    if broker not in assignment.replicas:
                        ctx.update_partition_full_replica_assignment(
                            tp, ReplicaAssignment((*assignment.replicas, broker),
                                                  assignment.adding_replicas,
                                                  assignment.removing_replicas))
                else:
                    info = ctx.partition_leadership_info(tp)
                    if info is not None:
                        batch.add_leader_and_isr([broker], tp, info,
                                                 ctx.partition_full_replica_assignment(tp),
                                                 is_new=False)
                ctx.put_replica_state(r, ReplicaState.ONLINE)
        elif target is ReplicaState.OFFLINE:
            removals: list[TopicPartition] = []
            for r in replicas:
                tp = r.topic_partition
                batch.add_stop_replica([broker], tp, delete_partition=False)
                if ctx.partition_leadership_info(tp) is not None:
                    removals.append(tp)
                else:
                    batch.add_update_metadata(ctx.live_or_shutting_down_broker_ids, [tp])
                    ctx.put_replica_state(r, ReplicaState.OFFLINE)
            if removals:
                change.isr_removals[broker] = removals
        elif target is ReplicaState.DELETION_STARTED:
            for r in replicas:
                ctx.put_replica_state(r, ReplicaState.DELETION_STARTED)
                batch.add_stop_replica([broker], r.topic_partition, delete_partition=True)
        elif target in (ReplicaState.DELETION_INELIGIBLE, ReplicaState.DELETION_SUCCESSFUL):
            for r in replicas:
                ctx.put_replica_state(r, target)
        else:  # NON_EXISTENT
            for r in replicas:
                tp = r.topic_partition
                ctx.update_partition_full_replica_assignment(
                    tp, ctx.partition_full_replica_assignment(tp).remove_replica(broker))
                ctx.remove_replica_state(r)

    # -- OfflineReplica: leaving the ISR -----------------------------------------------------

    def remove_replica_from_isr(self, change: ReplicaStateChange,
                                states: Mapping[TopicPartition, ReadOutcome]
                                ) -> dict[TopicPartition, LeaderAndIsr]:
        """Decide the ISR removals of ``change.current`` from the partitions' ``state`` as just
        read; returns the leader and ISR to compare-and-set (on ``partition_epoch``) for each
        partition whose ISR has the broker. A partition whose ISR does not have it is done at
        once, with its state as read."""
        ctx = self.context
        broker = change.current
        if broker is None:
            raise RuntimeError("next_isr_removal() names the broker first")
        partitions = change.isr_removals.get(broker, [])
        _require(partitions, states, "state read")
        change.isr_removals[broker] = []
        writes: dict[TopicPartition, LeaderAndIsr] = {}
        for tp in partitions:
            replica = PartitionAndReplica(tp, broker)
            read = states[tp]
            if isinstance(read, ZkError) and read.code != NO_NODE:
                change.failed[replica] = StateChangeFailure(str(read), read)
                continue
            if not isinstance(read, LeaderIsrAndControllerEpoch):
                if not ctx.is_topic_queued_up_for_deletion(tp[0]):
                    change.failed[replica] = StateChangeFailure(
                        f"Failed to change state of replica {broker} for partition {tp_str(tp)} "
                        "since the leader and isr path in zookeeper is empty")
                continue
            if read.controller_epoch > ctx.epoch:
                change.failed[replica] = StateChangeFailure(
                    "Leader and isr path written by another controller. This probably means the "
                    f"current controller with epoch {ctx.epoch} went through a soft failure and "
                    f"another controller was elected with epoch {read.controller_epoch}. "
                    "Aborting state change by this controller")
                continue
            lai = read.leader_and_isr
            if broker not in lai.isr:
                self._offline(change, broker, tp, LeaderIsrAndControllerEpoch(lai, ctx.epoch))
                continue
            new_leader = NO_LEADER if lai.leader == broker else lai.leader
            new_isr = lai.isr if len(lai.isr) == 1 else tuple(r for r in lai.isr if r != broker)
            writes[tp] = lai.new_leader_and_isr(new_leader, new_isr)
        change.pending = dict(writes)
        return writes

    def on_isr_removed(self, change: ReplicaStateChange,
                       outcomes: Mapping[TopicPartition, WriteOutcome]) -> None:
        """The outcome of each write :meth:`remove_replica_from_isr` returned: the ``state``
        znode's new version, or the error (BADVERSION: decided again on the next round)."""
        ctx = self.context
        broker = change.current
        assert broker is not None
        _require(change.pending, outcomes, "write outcome")
        retry: list[TopicPartition] = []
        for tp, lai in change.pending.items():
            outcome = outcomes[tp]
            if isinstance(outcome, ZkError):
                if outcome.is_bad_version:
                    retry.append(tp)
                else:
                    change.failed[PartitionAndReplica(tp, broker)] = StateChangeFailure(
                        str(outcome), outcome)
                continue
            self._offline(change, broker, tp,
                          LeaderIsrAndControllerEpoch(lai.with_partition_epoch(outcome),
                                                      ctx.epoch))
        change.pending = {}
        change.isr_removals[broker] = retry

    def _offline(self, change: ReplicaStateChange, broker: int, tp: TopicPartition,
                 info: LeaderIsrAndControllerEpoch) -> None:
        ctx = self.context
        ctx.put_partition_leadership_info(tp, info)
        if not ctx.is_topic_queued_up_for_deletion(tp[0]):
            recipients = [r for r in ctx.partition_replica_assignment(tp) if r != broker]
            change.batch.add_leader_and_isr(recipients, tp, info,
                                            ctx.partition_full_replica_assignment(tp),
                                            is_new=False)
        ctx.put_replica_state(PartitionAndReplica(tp, broker), ReplicaState.OFFLINE)
