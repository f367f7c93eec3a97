"""The partition state machine of the ZooKeeper-mode controller (Kafka's
``controller/PartitionStateMachine.scala``), as pure decisions over the controller's context.

Theory of operation
-------------------
Every partition the controller knows is in one of four states; :data:`VALID_PREVIOUS_STATES`
is Kafka's ``validPreviousStates`` table, each state with the states it may be entered from:

==========================  ========================================  =========================
state                       entered from                              meaning
==========================  ========================================  =========================
``NonExistentPartition``    ``OfflinePartition`` (topic deleted)      never created, or deleted
``NewPartition``            ``NonExistentPartition`` (topic or        replicas assigned, no
                            partitions created)                       leader or ISR yet
``OnlinePartition``         ``NewPartition`` (first leader),          a live leader was elected
                            ``OnlinePartition`` and
                            ``OfflinePartition`` (an election)
``OfflinePartition``        ``NewPartition``, ``OnlinePartition``,    its leader died
                            ``OfflinePartition``
==========================  ========================================  =========================

:meth:`PartitionStateMachine.handle_state_changes` is Kafka's ``handleStateChanges`` with the
ZooKeeper operations taken out: it checks each partition's transition against the table (an
illegal one is reported in :attr:`PartitionStateChange.illegal` for the caller to log, and the
partition is skipped), makes the changes that need no ZooKeeper at once, and leaves in the
returned :class:`PartitionStateChange` what the caller must do in ZooKeeper and report back:

1. ``to_create``: New -> Online. The first live replica in assignment order leads, every live
   replica is in the ISR, leader epoch 0. The caller creates these ``state`` znodes (a multi
   checked against the controller epoch's znode version) and calls :meth:`on_created` with each
   outcome; a created partition goes Online and its ISR gets a LeaderAndIsr with ``is_new``. A
   partition with no live replica fails and stays New.
2. ``to_elect``: Online or Offline -> Online. The caller reads these ``state`` znodes and calls
   :meth:`PartitionStateMachine.elect` with what it read; that elects under the change's strategy
   (:mod:`pybroker.controller.election`) and returns the new leader and ISR of each partition
   that has one. The caller writes each as a compare-and-set on the version it read (the value's
   ``partition_epoch``) and calls :meth:`on_elected` with the outcomes: a write that lost to
   another writer (BADVERSION) puts the partition back in ``to_elect`` - read again, elect again,
   until ``to_elect`` is empty - and a successful one makes it Online, with a LeaderAndIsr to the
   strategy's recipients. An election that finds no leader leaves the partition where it was.
3. Offline and NonExistent targets are only marks.

Every LeaderAndIsr goes into the caller's :class:`RequestBatch` together with an UpdateMetadata
of the partition for every registered broker; the caller sends the batch when the change is
done. When a controller-epoch check fails in ZooKeeper the controller has moved: the caller
drops the change and its batch and resigns, as Kafka's ``ControllerMovedException`` does.

The controller core drives one change so (``zk_*`` are its own; every ``state`` it writes
carries the context's controller epoch)::

    batch = RequestBatch(context)
    change = machine.handle_state_changes(batch, partitions, PartitionState.ONLINE, OFFLINE)
    if change.to_create:
        machine.on_created(change, zk_create_states(change.to_create))
    while change.to_elect:
        states = zk_read_states(change.to_elect)
        unclean = zk_unclean_configs(machine.unclean_config_topics(change, states))
        writes = machine.elect(change, states, unclean)
        machine.on_elected(change, zk_update_states(writes))  # CAS on each partition_epoch
    log(change.illegal, change.failed)
    send(batch.requests(controller_id, context.epoch, inter_broker_listener))
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pybroker.controller import election
from pybroker.controller.election import ElectionResult, ElectionStrategy
from pybroker.controller.model import (
    NO_NODE,
    LeaderAndIsr,
    LeaderIsrAndControllerEpoch,
    ReadOutcome,
    StateChangeFailure,
    WriteOutcome,
    ZkError,
)
from pybroker.kernel.state_table import StateTable
from pybroker.kernel.types import TopicPartition, tp_str

if TYPE_CHECKING:
    from pybroker.controller.context import ControllerContext
    from pybroker.controller.request_batch import RequestBatch


class PartitionState(enum.Enum):
    """Values are Kafka's names."""

    NON_EXISTENT = "NonExistentPartition"
    NEW = "NewPartition"
    ONLINE = "OnlinePartition"
    OFFLINE = "OfflinePartition"

    def __str__(self) -> str:
        return self.value


_P = PartitionState

#: target state -> the states it may be entered from (Kafka's ``validPreviousStates``).
VALID_PREVIOUS_STATES: StateTable[PartitionState] = StateTable({
    _P.NON_EXISTENT: {_P.OFFLINE},
    _P.NEW: {_P.NON_EXISTENT},
    _P.ONLINE: {_P.NEW, _P.ONLINE, _P.OFFLINE},
    _P.OFFLINE: {_P.NEW, _P.ONLINE, _P.OFFLINE},
}, initial=_P.NON_EXISTENT)

is_valid_transition = VALID_PREVIOUS_STATES.allows
legal_transitions = VALID_PREVIOUS_STATES.transitions


@dataclass(frozen=True, slots=True)
class IllegalPartitionTransition:
    """A transition the table forbids: the caller logs it and the partition is skipped."""

    topic_partition: TopicPartition
    source: PartitionState
    target: PartitionState

    def __str__(self) -> str:
        expected = ",".join(s.value for s in VALID_PREVIOUS_STATES.sources(self.target))
        return (f"Partition {tp_str(self.topic_partition)} should be in one of {expected} "
                f"states before moving to {self.target} state. Instead it is in {self.source} "
                "state")


def check_transition(tp: TopicPartition, source: PartitionState,
                     target: PartitionState) -> IllegalPartitionTransition | None:
    """``None`` when the table allows the transition, else the report to log."""
    if is_valid_transition(source, target):
        return None
    return IllegalPartitionTransition(tp, source, target)


@dataclass(slots=True)
class PartitionStateChange:
    """One ``handleStateChanges`` call in progress; see the module's description."""

    target: PartitionState
    strategy: ElectionStrategy | None
    batch: RequestBatch
    illegal: list[IllegalPartitionTransition] = field(default_factory=list)
    #: New -> Online: ``state`` znodes to create, then :meth:`PartitionStateMachine.on_created`.
    to_create: dict[TopicPartition, LeaderIsrAndControllerEpoch] = field(default_factory=dict)
    #: Online/Offline -> Online: ``state`` znodes to read, then
    #: :meth:`PartitionStateMachine.elect`.
    to_elect: list[TopicPartition] = field(default_factory=list)
    #: partitions now Online, with their leader and ISR (the elected ones are what Kafka's
    #: ``handleStateChanges`` returns, and what ElectLeaders answers from).
    succeeded: dict[TopicPartition, LeaderAndIsr] = field(default_factory=dict)
    #: partitions that stay where they were, and why (for the log, and ElectLeaders' answers).
    failed: dict[TopicPartition, StateChangeFailure] = field(default_factory=dict)
    #: elections waiting for the outcome of their write.
    pending: dict[TopicPartition, ElectionResult] = field(default_factory=dict)
    #: the transitions made, in order, for the state-change log: (partition, from, to, the
    #: leader and ISR it went Online with)
    transitions: list[tuple[TopicPartition, PartitionState, PartitionState,
                            LeaderAndIsr | None]] = field(default_factory=list)

    @property
    def done(self) -> bool:
        return not (self.to_create or self.to_elect or self.pending)


def _require(keys: Iterable[TopicPartition], outcomes: Mapping[TopicPartition, object],
             what: str) -> None:
    missing = [tp_str(tp) for tp in keys if tp not in outcomes]
    if missing:
        raise ValueError(f"no {what} for {', '.join(missing)}")


class PartitionStateMachine:
    def __init__(self, context: ControllerContext, controller_id: int,
                 leader_recovery_supported: bool = True) -> None:
        self.context = context
        self.controller_id = controller_id
        # IBP >= 3.2: an unclean leader is marked RECOVERING (KIP-704)
        self.leader_recovery_supported = leader_recovery_supported

    # -- start-up ----------------------------------------------------------------------------

    def initialize_partition_states(self) -> None:
        """On becoming controller: a partition with a ``state`` is Online if its leader is live,
        else Offline; one without is New."""
        ctx = self.context
        for tp in sorted(ctx.all_partitions()):
            info = ctx.partition_leadership_info(tp)
            if info is None:
                ctx.put_partition_state(tp, PartitionState.NEW)
            elif ctx.is_replica_online(info.leader_and_isr.leader, tp):
                ctx.put_partition_state(tp, PartitionState.ONLINE)
            else:
                ctx.put_partition_state(tp, PartitionState.OFFLINE)

    def partitions_to_trigger_online(self, topic: str | None = None) -> list[TopicPartition]:
        """The New and Offline partitions (of ``topic``, or of all topics) whose topic is not
        queued for deletion: what Kafka's ``triggerOnlinePartitionStateChange`` moves Online
        with the offline strategy, unclean only where the topic allows it."""
        ctx = self.context
        states = {PartitionState.NEW, PartitionState.OFFLINE}
        return sorted(tp for tp in ctx.partitions_in_states(states, topic)
                      if not ctx.is_topic_queued_up_for_deletion(tp[0]))

    # -- the state change --------------------------------------------------------------------

    def handle_state_changes(self, batch: RequestBatch, partitions: Iterable[TopicPartition],
                             target: PartitionState,
                             strategy: ElectionStrategy | None = None) -> PartitionStateChange:
        ctx = self.context
        change = PartitionStateChange(target, strategy, batch)
        valid: list[TopicPartition] = []
        for tp in partitions:
            ctx.put_partition_state_if_not_exists(tp, PartitionState.NON_EXISTENT)
            illegal = check_transition(tp, ctx.partition_state(tp), target)
            if illegal is None:
                valid.append(tp)
            else:
                change.illegal.append(illegal)
        if target is not PartitionState.ONLINE:
            for tp in valid:
                change.transitions.append((tp, ctx.partition_state(tp), target, None))
                ctx.put_partition_state(tp, target)
            return change
        to_elect = []
        for tp in valid:
            if ctx.partition_state(tp) is PartitionState.NEW:
                self._initialize(change, tp)
            else:
                to_elect.append(tp)
        if to_elect and strategy is None:
            raise ValueError("Election strategy is a required field when the target state is "
                             "OnlinePartition")
        change.to_elect = to_elect
        return change

    def _initialize(self, change: PartitionStateChange, tp: TopicPartition) -> None:
        ctx = self.context
        replicas = ctx.partition_replica_assignment(tp)
        live = [r for r in replicas if ctx.is_replica_online(r, tp)]
        if not live:
            change.failed[tp] = StateChangeFailure(
                f"Controller {self.controller_id} epoch {ctx.epoch} encountered error during "
                f"state change of partition {tp_str(tp)} from New to Online, assigned replicas "
                f"are [{','.join(map(str, replicas))}], live brokers are "
                f"[{','.join(map(str, sorted(ctx.live_broker_ids)))}]. No assigned replica is "
                "alive.")
            return
        change.to_create[tp] = LeaderIsrAndControllerEpoch(LeaderAndIsr.initial(live[0], live),
                                                           ctx.epoch)

    def on_created(self, change: PartitionStateChange,
                   outcomes: Mapping[TopicPartition, WriteOutcome]) -> None:
        """The outcome of creating each ``state`` znode of ``change.to_create``: its version (0),
        or the error."""
        ctx = self.context
        _require(change.to_create, outcomes, "creation outcome")
        for tp, state in change.to_create.items():
            outcome = outcomes[tp]
            if isinstance(outcome, ZkError):
                change.failed[tp] = StateChangeFailure(str(outcome), outcome)
                continue
            info = LeaderIsrAndControllerEpoch(
                state.leader_and_isr.with_partition_epoch(outcome), state.controller_epoch)
            ctx.put_partition_leadership_info(tp, info)
            change.batch.add_leader_and_isr(info.leader_and_isr.isr, tp, info,
                                            ctx.partition_full_replica_assignment(tp),
                                            is_new=True)
            change.transitions.append((tp, ctx.partition_state(tp), PartitionState.ONLINE,
                                       info.leader_and_isr))
            ctx.put_partition_state(tp, PartitionState.ONLINE)
            change.succeeded[tp] = info.leader_and_isr
        change.to_create = {}

    def unclean_config_topics(self, change: PartitionStateChange,
                              states: Mapping[TopicPartition, ReadOutcome]) -> set[str]:
        """The topics whose ``unclean.leader.election.enable`` :meth:`elect` needs for these
        states: those of partitions with no live ISR member, under an offline strategy that does
        not already allow unclean election."""
        assert change.strategy is not None
        return {tp[0] for tp, read in states.items()
                if isinstance(read, LeaderIsrAndControllerEpoch)
                and election.needs_unclean_config(self.context, tp, read.leader_and_isr,
                                                  change.strategy)}

    def elect(self, change: PartitionStateChange, states: Mapping[TopicPartition, ReadOutcome],
              unclean_enabled: Mapping[str, bool] | None = None
              ) -> dict[TopicPartition, LeaderAndIsr]:
        """Elect the partitions of ``change.to_elect`` from their ``state`` as just read
        (``states``); returns the leader and ISR to write for each one that has a new leader,
        each to be compare-and-set on its ``partition_epoch``. ``unclean_enabled`` maps topics
        to their ``unclean.leader.election.enable`` (a topic left out: false)."""
        ctx = self.context
        strategy = change.strategy
        assert strategy is not None
        _require(change.to_elect, states, "state read")
        unclean = unclean_enabled or {}
        writes: dict[TopicPartition, LeaderAndIsr] = {}
        for tp in change.to_elect:
            read = states[tp]
            if isinstance(read, ZkError) and read.code != NO_NODE:
                change.failed[tp] = StateChangeFailure(str(read), read)
                continue
            if not isinstance(read, LeaderIsrAndControllerEpoch):
                change.failed[tp] = StateChangeFailure(
                    f"LeaderAndIsr information doesn't exist for partition {tp_str(tp)} in "
                    f"{ctx.partition_state(tp)} state")
                continue
            if read.controller_epoch > ctx.epoch:
                change.failed[tp] = StateChangeFailure(
                    f"Aborted leader election for partition {tp_str(tp)} since the LeaderAndIsr "
                    "path was already written by another controller. This probably means that "
                    f"the current controller {self.controller_id} went through a soft failure "
                    f"and another controller was elected with epoch {read.controller_epoch}.")
                continue
            result = election.elect(ctx, strategy, tp, read.leader_and_isr,
                                    unclean.get(tp[0], False), self.leader_recovery_supported)
            if result.leader_and_isr is None:
                change.failed[tp] = StateChangeFailure(
                    f"Failed to elect leader for partition {tp_str(tp)} under strategy "
                    f"{strategy}")
                continue
            if result.unclean:
                # Kafka's ControllerStats.uncleanLeaderElectionRate, marked as it elects
                ctx.unclean_leader_elections.count += 1
            change.pending[tp] = result
            writes[tp] = result.leader_and_isr
        change.to_elect = []
        return writes

    def on_elected(self, change: PartitionStateChange,
                   outcomes: Mapping[TopicPartition, WriteOutcome]) -> None:
        """The outcome of each write :meth:`elect` returned: the ``state`` znode's new version,
        or the error (BADVERSION: the partition goes back to ``change.to_elect``)."""
        ctx = self.context
        _require(change.pending, outcomes, "write outcome")
        for tp, result in change.pending.items():
            outcome = outcomes[tp]
            if isinstance(outcome, ZkError):
                if outcome.is_bad_version:
                    change.to_elect.append(tp)
                else:
                    change.failed[tp] = StateChangeFailure(str(outcome), outcome)
                continue
            assert result.leader_and_isr is not None
            info = LeaderIsrAndControllerEpoch(result.leader_and_isr.with_partition_epoch(outcome),
                                               ctx.epoch)
            ctx.put_partition_leadership_info(tp, info)
            change.batch.add_leader_and_isr(result.recipients, tp, info,
                                            ctx.partition_full_replica_assignment(tp),
                                            is_new=False)
            change.transitions.append((tp, ctx.partition_state(tp), PartitionState.ONLINE,
                                       info.leader_and_isr))
            ctx.put_partition_state(tp, PartitionState.ONLINE)
            change.succeeded[tp] = info.leader_and_isr
        change.pending = {}
