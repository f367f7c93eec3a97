"""A partition as this broker holds it: its log, its role, its ISR and its high watermark.

Kafka's ``Partition``. The controller decides leadership (directly in the embedded mode, through
LeaderAndIsr in ZooKeeper mode) and this broker takes the part it is given: the **leader**
validates and appends produced batches, tracks each follower's log end offset from its fetches
and moves the high watermark to the smallest log end offset in the ISR; a **follower** appends
what it fetches from the leader, unvalidated. Consumers read below the high watermark only.

The ISR is a typed state (:mod:`pybroker.cluster.isr`), as in Kafka:
:class:`CommittedPartitionState` once the controller has recorded it, :class:`PendingExpandIsr` /
:class:`PendingShrinkIsr` while a change the leader asked for is in flight. The committed ISR decides whether an acks=all produce may be appended
(``min.insync.replicas``); the *maximal* ISR (committed plus a pending addition) is what the high
watermark waits for, so a replica being added is already waited for, and one being dropped is
waited for until the controller has recorded its removal.

ISR changes (ZooKeeper mode, :class:`IsrSettings` ``alter_isr``), Kafka's ``Partition``:

* each follower fetch updates that follower's :class:`ReplicaState` (Kafka's ``Replica``) and may
  **expand** the ISR (:meth:`Partition.update_follower_fetch_state`): a follower outside it whose
  log reaches the high watermark and the start of the current leader epoch (KAFKA-7128), and
  which the metadata cache knows alive, is proposed;
* the isr-expiration task **shrinks** it (:meth:`Partition.maybe_shrink_isr`): members that have
  not caught up with the leader's log end within ``replica.lag.time.max.ms`` are proposed out;
* a proposal moves the partition to a pending state and is returned to the caller, which sends it
  to the controller (:mod:`pybroker.cluster.alter_partition`) and hands the answer back to
  :meth:`Partition.handle_alter_partition_answer`: recorded, the partition takes the answered ISR
  and partition epoch; refused, it keeps waiting for the controller's LeaderAndIsr (or goes back
  to its committed state when the controller says it applied nothing). One change at a time.

The high watermark (:meth:`Partition.maybe_increment_high_watermark`, Kafka 3.9's
``maybeIncrementLeaderHW``) is the smallest log end offset over the leader, the maximal ISR and
the followers caught up and eligible to join it (KAFKA-15021); it does not move while the
committed ISR is smaller than ``min.insync.replicas`` (bounded by the replication factor).

Concurrency notes: every field is owned by the event loop; nothing here awaits. Logic that
depends on time takes ``now_ms``.
"""

from __future__ import annotations

import base64
import enum
import logging
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING

from protocol.errors import ErrorCode, KafkaError
from protocol.records.batch import HEADER_SIZE, BatchHeader
from pybroker.cluster.alter_partition import RECOVERED, RECOVERING, IsrAnswer, IsrUpdate
from pybroker.cluster.isr import (
    AWAIT_METADATA,
    NO_OFFSET,
    NO_UPDATE,
    NOT_APPLIED,
    CommittedPartitionState,
    FollowerFetchUpdate,
    IsrSettings,
    PartitionState,
    PendingExpandIsr,
    PendingIsrChange,
    PendingShrinkIsr,
    ReplicaState,
    describe,
)
from pybroker.log.producer_state import AppendOrigin

if TYPE_CHECKING:
    from pybroker.log.file_slice import FileSlice
    from pybroker.log.log import AppendInfo, FetchDataInfo, Log, ReplicaAppendInfo
    from pybroker.log.producer_state import ProducerEntry, VerificationGuard
    from pybroker.log.txn_index import AbortedTxn
    from pybroker.metadata.model import PartitionRecord

#: ListOffsets' special timestamps (KIP-734, KIP-405, KIP-1005)
LATEST_TIMESTAMP = -1
EARLIEST_TIMESTAMP = -2
MAX_TIMESTAMP = -3
EARLIEST_LOCAL_TIMESTAMP = -4
LATEST_TIERED_TIMESTAMP = -5

NO_EPOCH = -1
#: ListOffsets' replica ids: a consumer, and a debugging tool that may read any replica
CONSUMER_REPLICA_ID = -1
DEBUGGING_REPLICA_ID = -2

logger = logging.getLogger(__name__)
#: ISR and leadership changes, as Kafka's state-change log has them
state_change_log = logging.getLogger("pybroker.state.change")


class Role(enum.Enum):
    NONE = "none"  # known, but neither led nor followed here yet
    LEADER = "leader"
    FOLLOWER = "follower"




@dataclass(frozen=True, slots=True)
class LogReadInfo:
    """A leader's read for one fetch (Kafka's ``LogReadInfo``): the batches, or the epoch where
    the fetcher's log parts from this one; the offsets are those before the read."""

    records: FileSlice | bytes
    #: ``(epoch, end offset)`` the fetcher must truncate to first, or None
    diverging_epoch: tuple[int, int] | None
    high_watermark: int
    log_start_offset: int
    log_end_offset: int
    last_stable_offset: int = -1
    #: a consumer of committed data: the aborted transactions overlapping the records; else
    #: None
    aborted_transactions: list[AbortedTxn] | None = None


def diverging_epoch(last_fetched_epoch: int, fetch_offset: int, log_start_offset: int,
                    epoch_end_offset: tuple[int, int] | None) -> tuple[int, int] | None:
    """Where a fetcher whose last batch was written in ``last_fetched_epoch`` parts from this
    leader's log (``Partition.readRecords``, KIP-595/KAFKA-10554): ``epoch_end_offset`` is this
    log's ``(epoch, end offset)`` for that epoch (None when undefined). An undefined epoch or a
    fetch offset below the log start is OFFSET_OUT_OF_RANGE; a smaller epoch here, or an end
    offset below the fetch offset, is the divergence the fetcher must truncate to; otherwise
    None (the logs agree up to the fetch offset)."""
    if epoch_end_offset is None:
        raise KafkaError(ErrorCode.OFFSET_OUT_OF_RANGE,
                         f"Could not determine the end offset of the last fetched epoch "
                         f"{last_fetched_epoch} from the request")
    if fetch_offset < log_start_offset:
        raise KafkaError(ErrorCode.OFFSET_OUT_OF_RANGE,
                         f"Received request for offset {fetch_offset}, but the log starts at "
                         f"{log_start_offset}")
    epoch, end_offset = epoch_end_offset
    if epoch < last_fetched_epoch or end_offset < fetch_offset:
        return epoch, end_offset
    return None


@dataclass(frozen=True, slots=True)
class OffsetLookup:
    """A ListOffsets answer for one partition."""

    offset: int
    timestamp: int
    leader_epoch: int


class Partition:
    def __init__(self, topic: str, partition: int, local_broker_id: int,
                 settings: IsrSettings | None = None) -> None:
        self.topic = topic
        self.partition = partition
        self.local_broker_id = local_broker_id
        self.log: Log | None = None
        #: the topic id the controller named (ZooKeeper mode), None until it names one
        self.topic_id: uuid.UUID | None = None
        self.role = Role.NONE
        self.leader_id = -1
        self.leader_epoch = NO_EPOCH
        self.partition_epoch = -1
        self.replicas: tuple[int, ...] = ()
        self.adding_replicas: tuple[int, ...] = ()
        self.removing_replicas: tuple[int, ...] = ()
        self.partition_state: PartitionState = CommittedPartitionState(frozenset())
        self.remote_replicas: dict[int, ReplicaState] = {}
        self._high_watermark = 0
        #: the log end offset when this broker became leader in ``leader_epoch``
        self.leader_epoch_start_offset = NO_OFFSET
        self.settings = settings or IsrSettings()
        #: as a follower: the high watermark its leader last sent, not bounded by this log's
        #: end (what an unclean election of this replica is measured against)
        self.leader_high_watermark_seen = NO_OFFSET

    def __repr__(self) -> str:
        return (f"Partition({self.topic}-{self.partition}, {self.role.value}, "
                f"leader={self.leader_id}, epoch={self.leader_epoch})")

    @property
    def name(self) -> str:
        return f"{self.topic}-{self.partition}"

    @property
    def high_watermark(self) -> int:
        return self._high_watermark

    @high_watermark.setter
    def high_watermark(self, value: int) -> None:
        """Every move reaches the log too: transactions whose marker it passes become stable
        (Kafka's ``onHighWatermarkUpdated``)."""
        self._high_watermark = value
        if self.log is not None:
            self.log.producer_state.on_high_watermark_updated(value)

    # -- roles -----------------------------------------------------------------------------
    @property
    def is_leader(self) -> bool:
        return self.role is Role.LEADER and self.log is not None

    @property
    def isr(self) -> tuple[int, ...]:
        """The committed ISR, in broker id order."""
        return tuple(sorted(self.partition_state.isr))

    def _take_state(self, record: PartitionRecord, log: Log) -> None:
        self.log = log
        self.leader_id = record.leader
        self.leader_epoch = record.leader_epoch
        self.partition_epoch = record.partition_epoch
        self.replicas = tuple(record.replicas)
        self.adding_replicas = tuple(record.adding_replicas)
        self.removing_replicas = tuple(record.removing_replicas)
        self.partition_state = CommittedPartitionState(frozenset(record.isr))

    @property
    def topic_id_text(self) -> str:
        """The topic id as Kafka's state-change log prints it: ``Some(<base64>)`` or None."""
        if self.topic_id is None:
            return "None"
        return f"Some({base64.urlsafe_b64encode(self.topic_id.bytes).decode().rstrip('=')})"

    @property
    def is_reassigning(self) -> bool:
        """A reassignment is adding or removing replicas of it (Kafka's
        ``OngoingReassignmentState``)."""
        return bool(self.adding_replicas or self.removing_replicas)

    def make_leader(self, record: PartitionRecord, log: Log, now_ms: int) -> bool:
        """Lead from ``record``'s state (Kafka's ``makeLeader``). Returns False when this broker
        already led in that epoch (nothing changes for clients).

        The committed ISR becomes the record's (a pending change is forgotten: its answer, when
        it comes, is ignored). In a new leader epoch, where the epoch starts is recorded before
        anything is appended in it (KIP-101) and every follower's tracking starts over: ISR
        members count as caught up now, the others not at all (:meth:`ReplicaState.reset`)."""
        is_new_leader = self.role is not Role.LEADER
        new_epoch = is_new_leader or record.leader_epoch != self.leader_epoch
        previous_leader, previous_epoch = self.leader_id, self.leader_epoch
        self._take_state(record, log)
        self.role = Role.LEADER
        followers = [r for r in self.replicas if r != self.local_broker_id]
        for r in followers:
            if r not in self.remote_replicas:
                self.remote_replicas[r] = ReplicaState(r)
        for r in set(self.remote_replicas) - set(followers):
            del self.remote_replicas[r]
        if new_epoch:
            start = log.log_end_offset
            self.leader_epoch_start_offset = start
            log.assign_epoch_start_offset(record.leader_epoch, start)
            for replica in self.remote_replicas.values():
                replica.reset(now_ms, start, is_new_leader=is_new_leader,
                              in_sync=replica.broker_id in record.isr)
            if record.leader_recovery_state == RECOVERING:
                self._log_unclean_election(record, start)
            state_change_log.info(
                "[Broker id=%d] Leader %s with topic id %s starts at leader epoch %d from "
                "offset %d with partition epoch %d, high watermark %d, ISR [%s], adding "
                "replicas [%s] and removing replicas [%s]. Previous leader %s and previous "
                "leader epoch was %d.", self.local_broker_id, self.name,
                self.topic_id_text, record.leader_epoch, start, record.partition_epoch,
                self.high_watermark, ",".join(map(str, record.isr)),
                ",".join(map(str, record.adding_replicas)),
                ",".join(map(str, record.removing_replicas)),
                f"Some({previous_leader})" if previous_leader >= 0 else "None", previous_epoch)
        self.high_watermark = min(max(self.high_watermark, log.log_start_offset),
                                  log.log_end_offset)
        self.maybe_increment_high_watermark(now_ms)
        return new_epoch

    def _log_unclean_election(self, record: PartitionRecord, log_end: int) -> None:
        """This replica leads although it was not in the ISR: what the old leader had beyond
        its log end is gone, for its followers truncate to it."""
        seen = self.leader_high_watermark_seen
        if seen > log_end:
            lost = (f"offsets {log_end} to at least {seen - 1} were committed (the old "
                    f"leader's high watermark was {seen} when this replica last fetched) and "
                    f"are lost, with anything the old leader wrote after them")
        else:
            lost = (f"anything the old leader wrote from offset {log_end} on is lost (its high "
                    f"watermark was {seen} when this replica last fetched)")
        logger.warning("Unclean leader election: broker %d leads %s in epoch %d without having "
                       "been in the ISR; its log ends at %d: %s", self.local_broker_id, self.name,
                       record.leader_epoch, log_end, lost)

    def stop(self) -> None:
        """Neither lead nor follow any more (StopReplica without deletion); the log stays."""
        self.role = Role.NONE
        self.remote_replicas = {}
        self.leader_epoch_start_offset = NO_OFFSET

    def make_follower(self, record: PartitionRecord, log: Log) -> bool:
        """Follow ``record.leader``. Returns whether the leader or its epoch changed (a
        replica fetcher must then start over from the new leader)."""
        changed = (self.role is not Role.FOLLOWER or record.leader != self.leader_id
                   or record.leader_epoch != self.leader_epoch)
        self._take_state(record, log)
        self.role = Role.FOLLOWER
        self.remote_replicas = {}
        if changed:
            state_change_log.info(
                "[Broker id=%d] Follower %s starts at leader epoch %d from offset %d with "
                "partition epoch %d and high watermark %d. Current leader is %d.",
                self.local_broker_id, self.name, record.leader_epoch, log.log_end_offset,
                record.partition_epoch, self.high_watermark, record.leader)
        self.leader_epoch_start_offset = NO_OFFSET
        self.high_watermark = min(max(self.high_watermark, log.log_start_offset),
                                  log.log_end_offset)
        return changed

    # -- the high watermark ----------------------------------------------------------------
    @property
    def is_under_min_isr(self) -> bool:
        """The committed ISR is smaller than ``min.insync.replicas`` (bounded by the
        replication factor): the high watermark stands still, acks=all is refused."""
        if not self.is_leader:
            return False
        assert self.log is not None
        return len(self.partition_state.isr) < self.effective_min_isr(
            self.log.config.min_insync_replicas)

    def maybe_increment_high_watermark(self, now_ms: int) -> bool:
        """On the leader, move the high watermark up to the smallest log end offset over the
        leader, the maximal ISR and the followers that are caught up and eligible to join it
        (Kafka 3.9's ``maybeIncrementLeaderHW``; the last keeps a follower about to join from
        being outrun for ever). Not while under ``min.insync.replicas``; never back. Returns
        whether it moved."""
        # (is_leader and is_under_min_isr, unrolled: this runs for every append)
        log = self.log
        if self.role is not Role.LEADER or log is None or len(self.partition_state.isr) \
                < self.effective_min_isr(log.config.min_insync_replicas):
            return False
        leader_end = log.log_end_offset
        new_hw = leader_end
        maximal = self.partition_state.maximal_isr
        lag = self.settings.replica_lag_time_max_ms
        for replica in self.remote_replicas.values():
            if replica.log_end_offset < new_hw and (
                    replica.broker_id in maximal
                    or (replica.is_caught_up(leader_end, now_ms, lag)
                        and self.settings.is_eligible(replica.broker_id))):
                new_hw = replica.log_end_offset
        if new_hw > self._high_watermark:
            self.high_watermark = new_hw
            return True
        return False

    def update_follower_fetch_state(self, replica_id: int, fetch_offset: int, now_ms: int, *,
                                    follower_start_offset: int = NO_OFFSET,
                                    broker_epoch: int = -1,
                                    leader_end_offset: int | None = None,
                                    ) -> FollowerFetchUpdate:
        """A follower's fetch at ``fetch_offset`` says its log ends there (Kafka's
        ``updateFollowerFetchState``): track it, propose adding it to the ISR if it has caught
        up, then move the high watermark if its log end moved. ``leader_end_offset`` is this
        log's end when the fetch was read (default: now)."""
        replica = self.remote_replicas.get(replica_id)
        if replica is None:
            raise KafkaError(ErrorCode.NOT_LEADER_OR_FOLLOWER,
                             f"Replica {replica_id} is not a follower of {self.name}")
        assert self.log is not None
        leader_end = self.log.log_end_offset if leader_end_offset is None else leader_end_offset
        previous_end = replica.log_end_offset
        replica.update_fetch_state(fetch_offset, follower_start_offset, now_ms, leader_end,
                                   broker_epoch)
        expansion = self._maybe_expand_isr(replica)
        moved = (previous_end != replica.log_end_offset
                 and self.maybe_increment_high_watermark(now_ms))
        if not moved and expansion is None:
            return NO_UPDATE
        return FollowerFetchUpdate(moved, expansion)

    # -- ISR changes -----------------------------------------------------------------------
    def _maybe_expand_isr(self, replica: ReplicaState) -> PendingExpandIsr | None:
        """Kafka's ``maybeExpandIsr``: a follower outside the ISR, eligible, whose log reaches
        the high watermark and the start of this leader epoch, is proposed; the partition
        waits for it from now on (maximal ISR)."""
        state = self.partition_state
        if (not self.settings.alter_isr or not isinstance(state, CommittedPartitionState)
                or replica.broker_id in state.isr
                or not self.settings.is_eligible(replica.broker_id)
                or not self._is_follower_in_sync(replica)):
            return None
        pending = PendingExpandIsr(replica.broker_id, state,
                                   self._isr_update(state.isr | {replica.broker_id}))
        self.partition_state = pending
        logger.info("Expanding the ISR of %s from %s to %s (replica %d reached offset %d, the high "
                    "watermark is %d)", self.name, self._ordered(state.isr),
                    self._ordered(pending.maximal_isr), replica.broker_id, replica.log_end_offset,
                    self.high_watermark)
        return pending

    def _is_follower_in_sync(self, replica: ReplicaState) -> bool:
        end = replica.log_end_offset
        return (end >= self.high_watermark and self.leader_epoch_start_offset >= 0
                and end >= self.leader_epoch_start_offset)

    def out_of_sync_replicas(self, now_ms: int) -> frozenset[int]:
        """ISR members (the leader aside) not caught up within ``replica.lag.time.max.ms``
        (Kafka's ``getOutOfSyncReplicas``); none while a change is in flight."""
        state = self.partition_state
        if not self.is_leader or state.is_inflight:
            return frozenset()
        assert self.log is not None
        end = self.log.log_end_offset
        lag = self.settings.replica_lag_time_max_ms
        return frozenset(
            r for r in state.isr if r != self.local_broker_id
            and (r not in self.remote_replicas
                 or not self.remote_replicas[r].is_caught_up(end, now_ms, lag)))

    def maybe_shrink_isr(self, now_ms: int) -> PendingShrinkIsr | None:
        """Kafka's ``maybeShrinkIsr`` (the isr-expiration task): propose the ISR without its
        out-of-sync members. Until the controller records it they still count."""
        state = self.partition_state
        if not self.settings.alter_isr or not isinstance(state, CommittedPartitionState):
            return None
        out = self.out_of_sync_replicas(now_ms)
        if not out:
            return None
        assert self.log is not None
        pending = PendingShrinkIsr(out, state, self._isr_update(state.isr - out))
        self.partition_state = pending
        detail = " ".join(
            f"(brokerId: {r}, endOffset: {self.remote_replicas[r].log_end_offset}, "
            f"lastCaughtUpTimeMs: {self.remote_replicas[r].last_caught_up_time_ms})"
            if r in self.remote_replicas else f"(brokerId: {r}, unknown)" for r in sorted(out))
        logger.info("Shrinking the ISR of %s from %s to %s. Leader: (highWatermark: %d, endOffset: "
                    "%d). Out of sync replicas: %s", self.name, self._ordered(state.isr),
                    self._ordered(state.isr - out), self.high_watermark, self.log.log_end_offset,
                    detail)
        return pending

    def _ordered(self, isr: frozenset[int]) -> list[int]:
        """ISR members in assignment order (then any others by id)."""
        return [r for r in self.replicas if r in isr] + sorted(isr - set(self.replicas))

    def _isr_update(self, isr: frozenset[int]) -> IsrUpdate:
        members = tuple(self._ordered(isr))
        # Kafka's ZooKeeper-mode brokers send -1 for every member's broker epoch: only a KRaft
        # controller checks them (KIP-903). The followers' epochs stay in their replica state.
        return IsrUpdate(self.local_broker_id, self.leader_epoch, members, self.partition_epoch,
                         RECOVERED, tuple(-1 for _ in members))

    def handle_alter_partition_answer(self, proposed: PendingIsrChange, answer: IsrAnswer,
                                      now_ms: int) -> tuple[bool, bool]:
        """The controller's answer to ``proposed`` (Kafka's ``submitAlterPartition``
        completion). Returns ``(high watermark moved, send proposed again)``.

        An answer to a proposal the partition has moved on from (a LeaderAndIsr came
        meanwhile) is ignored (KAFKA-12686). The recorded state is taken when it is of this
        leader epoch and not older than the partition epoch known here; the high watermark may
        then move (KAFKA-13091). OPERATION_NOT_ATTEMPTED and INELIGIBLE_REPLICA say nothing was
        applied: back to the committed state. FENCED_LEADER_EPOCH, INVALID_UPDATE_VERSION, an
        unknown topic or partition, INVALID_REQUEST and NEW_LEADER_ELECTED leave the partition
        pending until the controller's LeaderAndIsr; any other error is sent again."""
        if self.partition_state is not proposed:
            logger.debug("Ignoring the answer %s to the ISR change %s of %s: the partition is now "
                         "in %s", answer, proposed, self.name, self.partition_state)
            return False, False
        if isinstance(answer, ErrorCode):
            if answer in NOT_APPLIED:
                self.partition_state = proposed.last_committed
                logger.info("The controller did not apply the ISR change %s of %s (%s); back to "
                            "the ISR %s", describe(proposed), self.name, answer.name,
                            self._ordered(proposed.last_committed.isr))
                return False, False
            if answer in AWAIT_METADATA:
                logger.info("The controller refused the ISR change %s of %s (%s); waiting for its "
                            "LeaderAndIsr", describe(proposed), self.name, answer.name)
                return False, False
            logger.warning("The ISR change %s of %s failed with %s; sending it again",
                           describe(proposed), self.name, answer.name)
            return False, True
        if answer.leader_epoch != self.leader_epoch:
            logger.info("Ignoring the ISR %s recorded for %s in leader epoch %d: this leader is in "
                        "epoch %d", list(answer.isr), self.name, answer.leader_epoch,
                        self.leader_epoch)
            return False, False
        if answer.partition_epoch < self.partition_epoch:
            logger.info("Ignoring the ISR %s recorded for %s at partition epoch %d: %d is known "
                        "here", list(answer.isr), self.name, answer.partition_epoch,
                        self.partition_epoch)
            return False, False
        self.partition_state = CommittedPartitionState(frozenset(answer.isr))
        self.partition_epoch = answer.partition_epoch
        state_change_log.info("[Broker id=%d] ISR of %s updated to [%s]%s and partition epoch "
                              "to %d", self.local_broker_id, self.name,
                              ",".join(map(str, answer.isr)),
                              " (under min.insync.replicas)" if self.is_under_min_isr else "",
                              self.partition_epoch)
        return self.maybe_increment_high_watermark(now_ms), False

    def check_enough_replicas_reach_offset(self, required_offset: int,
                                           min_insync_replicas: int) -> tuple[bool, ErrorCode]:
        """Whether an acks=all append that ended at ``required_offset`` may be answered, and
        how (Kafka's ``checkEnoughReplicasReachOffset``)."""
        if self.role is not Role.LEADER or self.log is None:  # not is_leader
            return True, ErrorCode.NOT_LEADER_OR_FOLLOWER
        if self._high_watermark < required_offset:
            return False, ErrorCode.NONE
        if len(self.partition_state.maximal_isr) < self.effective_min_isr(min_insync_replicas):
            return True, ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND
        return True, ErrorCode.NONE

    def effective_min_isr(self, min_insync_replicas: int) -> int:
        # as in Kafka 3.7+ (KIP-966), a min.insync.replicas above the replication factor counts
        # as the replication factor: acks=all to a topic with one replica is accepted
        return min(min_insync_replicas, max(len(self.replicas), 1))

    # -- the leader's data path ------------------------------------------------------------
    def check_leader_epoch(self, current_leader_epoch: int) -> None:
        """Kafka's fencing: a client that saw an older epoch is fenced, a newer one is unknown
        to us; -1 skips the check."""
        if current_leader_epoch < 0 or current_leader_epoch == self.leader_epoch:
            return
        if current_leader_epoch < self.leader_epoch:
            raise KafkaError(ErrorCode.FENCED_LEADER_EPOCH)
        raise KafkaError(ErrorCode.UNKNOWN_LEADER_EPOCH)

    def leader_log(self, current_leader_epoch: int = NO_EPOCH) -> Log:
        log = self.log
        if self.role is not Role.LEADER or log is None:  # not is_leader
            raise KafkaError(ErrorCode.NOT_LEADER_OR_FOLLOWER)
        if current_leader_epoch >= 0 and current_leader_epoch != self.leader_epoch:
            self.check_leader_epoch(current_leader_epoch)
        return log

    def local_log_with_epoch(self, current_leader_epoch: int, *, require_leader: bool) -> Log:
        """Kafka's ``getLocalLog``: the epoch is checked first (FENCED_LEADER_EPOCH,
        UNKNOWN_LEADER_EPOCH), then the role (NOT_LEADER_OR_FOLLOWER)."""
        self.check_leader_epoch(current_leader_epoch)
        if require_leader and not self.is_leader:
            raise KafkaError(ErrorCode.NOT_LEADER_OR_FOLLOWER)
        if self.log is None:
            raise KafkaError(ErrorCode.NOT_LEADER_OR_FOLLOWER if require_leader
                             else ErrorCode.REPLICA_NOT_AVAILABLE)
        return self.log

    def last_offset_for_leader_epoch(self, current_leader_epoch: int, leader_epoch: int, *,
                                     fetch_only_from_leader: bool = True) -> tuple[int, int]:
        """OffsetForLeaderEpoch: ``(epoch, end offset)`` of ``leader_epoch`` in this log, or
        ``(-1, -1)`` when undefined; raises the fencing and role errors."""
        log = self.local_log_with_epoch(current_leader_epoch,
                                        require_leader=fetch_only_from_leader)
        found = log.end_offset_for_epoch(leader_epoch)
        return found if found is not None else (NO_EPOCH, NO_OFFSET)

    @property
    def last_stable_offset(self) -> int:
        """Below it every transaction is decided and replicated: the first unstable offset
        bounded by the high watermark (the high watermark without open transactions)."""
        if self.log is None:
            return -1
        return self.log.last_stable_offset(self.high_watermark)

    def fetch_records(self, fetch_offset: int, max_bytes: int, *, current_leader_epoch: int,
                      last_fetched_epoch: int = NO_EPOCH, replica_id: int = -1,
                      min_one_batch: bool, read_committed: bool = False) -> LogReadInfo:
        """A fetch on the leader (Kafka's ``fetchRecords``/``readRecords``): a consumer reads
        below the high watermark (``read_committed``: below the last stable offset, with the
        aborted transactions overlapping what it reads), a follower (``replica_id`` >= 0) up
        to the log end. With a ``last_fetched_epoch`` the fetcher's log is first checked
        against this one: if they part before ``fetch_offset`` the answer is the diverging
        epoch and no records."""
        log = self.local_log_with_epoch(current_leader_epoch, require_leader=True)
        if replica_id >= 0 and replica_id not in self.remote_replicas:
            # a replica outside the assignment: with an epoch the pair is merely unknown here
            # (the fetcher retries), without one the fetcher is an old broker
            raise KafkaError(
                ErrorCode.UNKNOWN_LEADER_EPOCH if current_leader_epoch >= 0
                else ErrorCode.NOT_LEADER_OR_FOLLOWER,
                f"Replica {replica_id} is not a follower of {self.name} in epoch "
                f"{self.leader_epoch}")
        # offsets before the read: appends after it must not keep a follower from catching up
        hw, start, end = self.high_watermark, log.log_start_offset, log.log_end_offset
        lso = log.last_stable_offset(hw)
        if last_fetched_epoch >= 0:
            diverging = diverging_epoch(last_fetched_epoch, fetch_offset, start,
                                        log.end_offset_for_epoch(last_fetched_epoch))
            if diverging is not None:
                return LogReadInfo(b"", diverging, hw, start, end, lso)
        if replica_id >= 0:
            if fetch_offset == end and fetch_offset >= start:
                # a follower at the log end: nothing to read (the quiet partitions of every
                # replica fetch)
                return LogReadInfo(b"", None, hw, start, end, lso)
            max_offset: int | None = None
        else:
            max_offset = lso if read_committed else hw
        committed = read_committed and replica_id < 0
        info = log.read(fetch_offset, max_bytes, max_offset=max_offset,
                        min_one_batch=min_one_batch, with_aborted=committed)
        return LogReadInfo(info.records, None, hw, start, end, lso, info.aborted_transactions)

    def maybe_start_transaction_verification(self, producer_id: int, sequence: int,
                                             epoch: int, now_ms: int,
                                             ) -> VerificationGuard | None:
        """KIP-890 on the leader: the guard an append of the producer's first transactional
        batch here must present once its coordinator has verified the partition is in the
        transaction (None: the transaction is open here already). NOT_LEADER_OR_FOLLOWER
        when this replica does not lead."""
        return self.leader_log().maybe_start_transaction_verification(producer_id, sequence,
                                                                      epoch, now_ms)

    def append_records_to_leader(self, batch: bytearray | memoryview, *, required_acks: int,
                                 min_insync_replicas: int, now_ms: int,
                                 origin: AppendOrigin = AppendOrigin.CLIENT,
                                 verification_guard: VerificationGuard | None = None,
                                 header: BatchHeader | None = None,
                                 ) -> AppendInfo:
        log = self.leader_log()
        isr = self.partition_state.isr
        if required_acks == -1 and len(isr) < self.effective_min_isr(min_insync_replicas):
            raise KafkaError(
                ErrorCode.NOT_ENOUGH_REPLICAS,
                f"The size of the current ISR {sorted(isr)} is insufficient to satisfy the "
                f"min.isr requirement of {min_insync_replicas} for partition {self.name}",
            )
        info = log.append_as_leader(batch, leader_epoch=self.leader_epoch, now_ms=now_ms,
                                    origin=origin, verification_guard=verification_guard,
                                    header=header)
        self.maybe_increment_high_watermark(now_ms)
        return info

    def read(self, offset: int, max_bytes: int, *, min_one_batch: bool,
             up_to_high_watermark: bool = True) -> FetchDataInfo:
        """Whole batches from ``offset``: below the high watermark for consumers, up to the log
        end for followers and for the broker's own replay of its internal topics."""
        log = self.leader_log()
        max_offset = self.high_watermark if up_to_high_watermark else None
        return log.read(offset, max_bytes, max_offset=max_offset, min_one_batch=min_one_batch)

    def fetch_offset_for_timestamp(self, timestamp: int, current_leader_epoch: int,
                                   replica_id: int = CONSUMER_REPLICA_ID,
                                   read_committed: bool = False) -> OffsetLookup:
        """ListOffsets (Kafka's ``fetchOffsetForTimestamp``): a special timestamp, or the first
        record at or after ``timestamp``. A consumer sees records below the high watermark
        only (``read_committed``: below the last stable offset); a replica (``replica_id`` >=
        0, a follower finding where its leader's log ends) and a debugging tool (-2, which may
        ask a follower too) see up to the log end.

        A consumer asking a new leader whose high watermark has not yet reached the start of
        its epoch gets OFFSET_NOT_AVAILABLE for the latest offset (and for a timestamp found
        nowhere below the high watermark), so that the offsets it sees never go back
        (KIP-207)."""
        is_client = replica_id == CONSUMER_REPLICA_ID
        if replica_id == DEBUGGING_REPLICA_ID:
            log = self.local_log_with_epoch(current_leader_epoch, require_leader=False)
        else:
            log = self.leader_log(current_leader_epoch)
        if not is_client:
            last_fetchable = log.log_end_offset
        elif read_committed:
            last_fetchable = log.last_stable_offset(self.high_watermark)
        else:
            last_fetchable = self.high_watermark
        offsets_error: KafkaError | None = None
        if is_client and self.leader_epoch_start_offset > self.high_watermark:
            offsets_error = KafkaError(
                ErrorCode.OFFSET_NOT_AVAILABLE,
                f"Failed to fetch offsets for partition {self.name} with leader epoch "
                f"{self.leader_epoch} as its high watermark ({self.high_watermark}) is lagging "
                f"behind the start offset of this epoch ({self.leader_epoch_start_offset})")
        if timestamp == LATEST_TIMESTAMP:
            if offsets_error is not None:
                raise offsets_error
            # consumers see up to the high watermark, or the last stable offset
            return OffsetLookup(last_fetchable, NO_OFFSET, self.leader_epoch)
        if timestamp in (EARLIEST_TIMESTAMP, EARLIEST_LOCAL_TIMESTAMP):
            # no tiered storage: the earliest local offset is the log start offset
            return OffsetLookup(log.log_start_offset, NO_OFFSET, self.leader_epoch)
        if timestamp == LATEST_TIERED_TIMESTAMP:
            # nothing is tiered, so no offset, as Kafka answers then
            return OffsetLookup(NO_OFFSET, NO_OFFSET, NO_EPOCH)
        if timestamp == MAX_TIMESTAMP:
            found = log.max_timestamp_and_offset()
        else:
            found = log.offset_for_timestamp(timestamp)
        if found is None or found[0] >= last_fetchable:
            if offsets_error is not None:
                raise offsets_error
            return OffsetLookup(NO_OFFSET, NO_OFFSET, NO_EPOCH)
        return OffsetLookup(found[0], found[1], self.leader_epoch)

    def delete_records_on_leader(self, offset: int, now_ms: int) -> int:
        """DeleteRecords: move the log start offset up to ``offset`` (-1: the high watermark),
        never past the high watermark. Returns the new low watermark."""
        log = self.leader_log()
        target = self.high_watermark if offset == -1 else offset
        if target < 0 or target > self.high_watermark:
            raise KafkaError(ErrorCode.OFFSET_OUT_OF_RANGE)
        if "delete" not in log.config.cleanup_policy.split(","):
            raise KafkaError(ErrorCode.POLICY_VIOLATION,
                             "Records of partitions of compacted topics cannot be deleted")
        return log.delete_records_before(target, now_ms)

    def active_producers(self) -> dict[int, ProducerEntry]:
        """The idempotent producers this replica's log keeps state for (DescribeProducers)."""
        if self.log is None:
            raise KafkaError(ErrorCode.NOT_LEADER_OR_FOLLOWER)
        return dict(self.log.producer_state.producers)

    # -- the follower's data path ----------------------------------------------------------
    def append_records_to_follower(self, records: bytes | bytearray | memoryview,
                                   leader_high_watermark: int, now_ms: int,
                                   leader_log_start_offset: int = NO_OFFSET,
                                   ) -> ReplicaAppendInfo:
        """Append what the leader sent (``ReplicaFetcherThread.processPartitionData``), then
        take the leader's high watermark bounded by our log end (it may go down) and raise our
        log start offset to the leader's."""
        if self.role is not Role.FOLLOWER or self.log is None:
            raise KafkaError(ErrorCode.NOT_LEADER_OR_FOLLOWER)
        log = self.log
        end = log.log_end_offset
        if end == log.log_start_offset and len(records) >= HEADER_SIZE:
            first = BatchHeader.parse(records)
            if first.base_offset < end <= first.last_offset:
                # an empty log starting inside the leader's first batch (its log start moved
                # into a batch): start at that batch, as Kafka does on an unexpected offset
                log.truncate_fully_and_start_at(first.base_offset, now_ms)
        # a compacted leader log has offset gaps where the cleaner removed whole batches: the
        # follower takes its batches at their offsets, as Kafka's appendAsFollower does
        info = log.append_as_follower(records, now_ms, allow_offset_gaps=True)
        if leader_log_start_offset > log.log_start_offset:
            log.delete_records_before(min(leader_log_start_offset, log.log_end_offset), now_ms)
        self.leader_high_watermark_seen = leader_high_watermark
        self.update_follower_high_watermark(leader_high_watermark)
        return info

    def update_follower_high_watermark(self, leader_high_watermark: int) -> None:
        """A follower's high watermark: the leader's, within [log start, log end]."""
        assert self.log is not None
        self.high_watermark = min(max(leader_high_watermark, self.log.log_start_offset),
                                  self.log.log_end_offset)

    def truncate_to(self, offset: int) -> None:
        """A follower drops its log from ``offset`` on (its leader never had it); the high
        watermark follows the log end down. A truncation that drops records is told to the
        state-change log, as the records it drops were taken by a leader that lost its place
        (acks=1 writes of a leader cut off from the cluster, say)."""
        if self.log is None:
            raise KafkaError(ErrorCode.NOT_LEADER_OR_FOLLOWER)
        end = self.log.log_end_offset
        if offset < end:
            state_change_log.info(
                "[Broker id=%d] Truncating partition %s to offset %d (its log ended at %d, "
                "high watermark %d) as a follower of broker %d in leader epoch %d",
                self.local_broker_id, self.name, offset, end, self.high_watermark,
                self.leader_id, self.leader_epoch)
        self.log.truncate_to(offset)
        self.high_watermark = min(self.high_watermark, self.log.log_end_offset)

    def truncate_fully_and_start_at(self, offset: int, now_ms: int) -> None:
        """A follower whose log ends below its leader's log start starts afresh there."""
        if self.log is None:
            raise KafkaError(ErrorCode.NOT_LEADER_OR_FOLLOWER)
        self.log.truncate_fully_and_start_at(offset, now_ms)
        self.high_watermark = offset

    @property
    def latest_epoch(self) -> int | None:
        """The latest epoch of this replica's leader epoch cache (None: no entries)."""
        return self.log.latest_epoch if self.log is not None else None

    # -- positions -------------------------------------------------------------------------
    @property
    def log_start_offset(self) -> int:
        return self.log.log_start_offset if self.log is not None else -1

    @property
    def log_end_offset(self) -> int:
        return self.log.log_end_offset if self.log is not None else -1
