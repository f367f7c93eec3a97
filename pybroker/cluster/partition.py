"""A partition as this broker holds it: its log, its role, its ISR and its high watermark.

Kafka's ``Partition``. The controller decides leadership (directly in the embedded mode, through
LeaderAndIsr in ZooKeeper mode) and this broker takes the part it is given: the **leader**
validates and appends produced batches, tracks each follower's log end offset from its fetches
and moves the high watermark to the smallest log end offset in the ISR; a **follower** appends
what it fetches from the leader, unvalidated. Consumers read below the high watermark only.

The ISR is a typed state, as in Kafka: :class:`CommittedPartitionState` once the controller has
recorded it, :class:`PendingExpandIsr` / :class:`PendingShrinkIsr` while a change the leader asked
for is in flight. The committed ISR decides whether an acks=all produce may be appended
(``min.insync.replicas``); the *maximal* ISR (committed plus a pending addition) is what the high
watermark waits for, so a replica being added is already waited for.

Concurrency notes: every field is owned by the event loop; nothing here awaits. Logic that
depends on time takes ``now_ms``.
"""

from __future__ import annotations

import enum
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING

from protocol.errors import ErrorCode, KafkaError
from protocol.records.batch import HEADER_SIZE, BatchHeader

if TYPE_CHECKING:
    from pybroker.log.file_slice import FileSlice
    from pybroker.log.log import AppendInfo, FetchDataInfo, Log, ReplicaAppendInfo
    from pybroker.log.producer_state import ProducerEntry
    from pybroker.metadata.model import PartitionRecord

#: ListOffsets' special timestamps (KIP-734, KIP-405, KIP-1005)
LATEST_TIMESTAMP = -1
EARLIEST_TIMESTAMP = -2
MAX_TIMESTAMP = -3
EARLIEST_LOCAL_TIMESTAMP = -4
LATEST_TIERED_TIMESTAMP = -5

NO_OFFSET = -1
NO_EPOCH = -1


class Role(enum.Enum):
    NONE = "none"  # known, but neither led nor followed here yet
    LEADER = "leader"
    FOLLOWER = "follower"


@dataclass(frozen=True, slots=True)
class CommittedPartitionState:
    """The ISR as the controller recorded it."""

    isr: frozenset[int]

    @property
    def maximal_isr(self) -> frozenset[int]:
        return self.isr

    @property
    def is_inflight(self) -> bool:
        return False


@dataclass(frozen=True, slots=True)
class PendingExpandIsr:
    """The leader asked to add ``new_in_sync_replica``; the high watermark waits for it already."""

    new_in_sync_replica: int
    last_committed: CommittedPartitionState

    @property
    def isr(self) -> frozenset[int]:
        return self.last_committed.isr

    @property
    def maximal_isr(self) -> frozenset[int]:
        return self.last_committed.isr | {self.new_in_sync_replica}

    @property
    def is_inflight(self) -> bool:
        return True


@dataclass(frozen=True, slots=True)
class PendingShrinkIsr:
    """The leader asked to drop ``out_of_sync``; until that is recorded they still count."""

    out_of_sync: frozenset[int]
    last_committed: CommittedPartitionState

    @property
    def isr(self) -> frozenset[int]:
        return self.last_committed.isr

    @property
    def maximal_isr(self) -> frozenset[int]:
        return self.last_committed.isr

    @property
    def is_inflight(self) -> bool:
        return True


PartitionState = CommittedPartitionState | PendingExpandIsr | PendingShrinkIsr


@dataclass(slots=True)
class ReplicaState:
    """A follower's position as the leader learns it from the follower's fetches."""

    broker_id: int
    log_end_offset: int = NO_OFFSET  # unknown until its first fetch
    last_caught_up_time_ms: int = 0
    last_fetch_time_ms: int = 0


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
    def __init__(self, topic: str, partition: int, local_broker_id: int) -> None:
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
        self.partition_state: PartitionState = CommittedPartitionState(frozenset())
        self.remote_replicas: dict[int, ReplicaState] = {}
        self.high_watermark = 0
        #: the log end offset when this broker became leader in ``leader_epoch``
        self.leader_epoch_start_offset = NO_OFFSET

    def __repr__(self) -> str:
        return (f"Partition({self.topic}-{self.partition}, {self.role.value}, "
                f"leader={self.leader_id}, epoch={self.leader_epoch})")

    @property
    def name(self) -> str:
        return f"{self.topic}-{self.partition}"

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
        self.partition_state = CommittedPartitionState(frozenset(record.isr))

    def make_leader(self, record: PartitionRecord, log: Log, now_ms: int) -> bool:
        """Lead from ``record``'s state. Returns False when this broker already led in that
        epoch (nothing changes for clients)."""
        new_epoch = self.role is not Role.LEADER or record.leader_epoch != self.leader_epoch
        self._take_state(record, log)
        self.role = Role.LEADER
        if new_epoch:
            # where this epoch starts, durable before anything is appended in it (KIP-101)
            self.leader_epoch_start_offset = log.log_end_offset
            log.assign_epoch_start_offset(record.leader_epoch, log.log_end_offset)
            # followers' positions are learnt afresh from their fetches in the new epoch
            self.remote_replicas = {
                r: ReplicaState(r, last_caught_up_time_ms=now_ms)
                for r in self.replicas if r != self.local_broker_id
            }
        else:
            for r in self.replicas:
                if r != self.local_broker_id and r not in self.remote_replicas:
                    self.remote_replicas[r] = ReplicaState(r, last_caught_up_time_ms=now_ms)
            for r in set(self.remote_replicas) - set(self.replicas):
                del self.remote_replicas[r]
        self.high_watermark = min(max(self.high_watermark, log.log_start_offset),
                                  log.log_end_offset)
        self.maybe_increment_high_watermark()
        return new_epoch

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
        self.leader_epoch_start_offset = NO_OFFSET
        self.high_watermark = min(max(self.high_watermark, log.log_start_offset),
                                  log.log_end_offset)
        return changed

    # -- the high watermark ----------------------------------------------------------------
    def maybe_increment_high_watermark(self) -> bool:
        """On the leader, move the high watermark up to the smallest log end offset over the
        maximal ISR. It never moves back. Returns whether it moved."""
        if not self.is_leader:
            return False
        assert self.log is not None
        new_hw = self.log.log_end_offset
        for broker_id in self.partition_state.maximal_isr:
            if broker_id == self.local_broker_id:
                continue
            replica = self.remote_replicas.get(broker_id)
            new_hw = min(new_hw, replica.log_end_offset if replica is not None else NO_OFFSET)
        if new_hw > self.high_watermark:
            self.high_watermark = new_hw
            return True
        return False

    def update_follower_fetch_state(self, replica_id: int, fetch_offset: int,
                                    now_ms: int) -> bool:
        """A follower's fetch at ``fetch_offset`` says its log ends there. Returns whether the
        high watermark moved."""
        replica = self.remote_replicas.get(replica_id)
        if replica is None:
            raise KafkaError(ErrorCode.NOT_LEADER_OR_FOLLOWER,
                             f"Replica {replica_id} is not a follower of {self.name}")
        assert self.log is not None
        replica.log_end_offset = fetch_offset
        replica.last_fetch_time_ms = now_ms
        if fetch_offset >= self.log.log_end_offset:
            replica.last_caught_up_time_ms = now_ms
        return self.maybe_increment_high_watermark()

    def check_enough_replicas_reach_offset(self, required_offset: int,
                                           min_insync_replicas: int) -> tuple[bool, ErrorCode]:
        """Whether an acks=all append that ended at ``required_offset`` may be answered, and
        how (Kafka's ``checkEnoughReplicasReachOffset``)."""
        if not self.is_leader:
            return True, ErrorCode.NOT_LEADER_OR_FOLLOWER
        if self.high_watermark < required_offset:
            return False, ErrorCode.NONE
        if len(self.partition_state.maximal_isr) < self._effective_min_isr(min_insync_replicas):
            return True, ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND
        return True, ErrorCode.NONE

    def _effective_min_isr(self, min_insync_replicas: int) -> int:
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
        if not self.is_leader:
            raise KafkaError(ErrorCode.NOT_LEADER_OR_FOLLOWER)
        self.check_leader_epoch(current_leader_epoch)
        assert self.log is not None
        return self.log

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

    def fetch_records(self, fetch_offset: int, max_bytes: int, *, current_leader_epoch: int,
                      last_fetched_epoch: int = NO_EPOCH, replica_id: int = -1,
                      min_one_batch: bool) -> LogReadInfo:
        """A fetch on the leader (Kafka's ``fetchRecords``/``readRecords``): a consumer reads
        below the high watermark, a follower (``replica_id`` >= 0) up to the log end. With a
        ``last_fetched_epoch`` the fetcher's log is first checked against this one: if they
        part before ``fetch_offset`` the answer is the diverging epoch and no records."""
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
        if last_fetched_epoch >= 0:
            diverging = diverging_epoch(last_fetched_epoch, fetch_offset, start,
                                        log.end_offset_for_epoch(last_fetched_epoch))
            if diverging is not None:
                return LogReadInfo(b"", diverging, hw, start, end)
        info = log.read(fetch_offset, max_bytes, max_offset=None if replica_id >= 0 else hw,
                        min_one_batch=min_one_batch)
        return LogReadInfo(info.records, None, hw, start, end)

    def append_records_to_leader(self, batch: bytearray, *, required_acks: int,
                                 min_insync_replicas: int, now_ms: int) -> AppendInfo:
        log = self.leader_log()
        isr = self.partition_state.isr
        if required_acks == -1 and len(isr) < self._effective_min_isr(min_insync_replicas):
            raise KafkaError(
                ErrorCode.NOT_ENOUGH_REPLICAS,
                f"The size of the current ISR {sorted(isr)} is insufficient to satisfy the "
                f"min.isr requirement of {min_insync_replicas} for partition {self.name}",
            )
        info = log.append_as_leader(batch, leader_epoch=self.leader_epoch, now_ms=now_ms)
        self.maybe_increment_high_watermark()
        return info

    def read(self, offset: int, max_bytes: int, *, min_one_batch: bool,
             up_to_high_watermark: bool = True) -> FetchDataInfo:
        """Whole batches from ``offset``: below the high watermark for consumers, up to the log
        end for followers and for the broker's own replay of its internal topics."""
        log = self.leader_log()
        max_offset = self.high_watermark if up_to_high_watermark else None
        return log.read(offset, max_bytes, max_offset=max_offset, min_one_batch=min_one_batch)

    def fetch_offset_for_timestamp(self, timestamp: int, current_leader_epoch: int
                                   ) -> OffsetLookup:
        """ListOffsets on the leader: a special timestamp, or the first record at or after
        ``timestamp``; only records below the high watermark are visible."""
        log = self.leader_log(current_leader_epoch)
        if timestamp == LATEST_TIMESTAMP:
            # consumers see up to the high watermark (the last stable offset, without
            # transactions)
            return OffsetLookup(self.high_watermark, NO_OFFSET, self.leader_epoch)
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
        if found is None or found[0] >= self.high_watermark:
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
        info = log.append_as_follower(records, now_ms)
        if leader_log_start_offset > log.log_start_offset:
            log.delete_records_before(min(leader_log_start_offset, log.log_end_offset), now_ms)
        self.update_follower_high_watermark(leader_high_watermark)
        return info

    def update_follower_high_watermark(self, leader_high_watermark: int) -> None:
        """A follower's high watermark: the leader's, within [log start, log end]."""
        assert self.log is not None
        self.high_watermark = min(max(leader_high_watermark, self.log.log_start_offset),
                                  self.log.log_end_offset)

    def truncate_to(self, offset: int) -> None:
        """A follower drops its log from ``offset`` on (its leader never had it); the high
        watermark follows the log end down."""
        if self.log is None:
            raise KafkaError(ErrorCode.NOT_LEADER_OR_FOLLOWER)
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
