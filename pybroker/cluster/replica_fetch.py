"""The fetch path (Kafka's ``fetchMessages`` and ``readFromLog``): whole batches read from the
leaders' logs within the fetch's limits, followers' fetch offsets taken as their log ends (which
may move the high watermark and the ISR), and fetches that cannot be answered yet left in the
fetch purgatory."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from protocol.errors import ErrorCode, KafkaError
from pybroker.cluster.hosted_partitions import HostedPartitions
from pybroker.cluster.partition import LogReadInfo, Partition
from pybroker.kernel.outcome import Outcome, when_ready
from pybroker.metrics.broker_topic_stats import (
    BYTES_OUT,
    FAILED_FETCH,
    REPLICATION_BYTES_OUT,
    TOTAL_FETCH,
)
from pybroker.purgatory.delayed_fetch import DelayedFetch

if TYPE_CHECKING:
    import uuid

    from pybroker.log.file_slice import FileSlice
    from pybroker.log.txn_index import AbortedTxn
    from pybroker.quota.replication import ReplicationQuota


CONSUMER_REPLICA_ID = -1


#: Fetch's and ListOffsets' isolation levels (KIP-98)
READ_UNCOMMITTED = 0
READ_COMMITTED = 1


@dataclass(frozen=True, slots=True)
class FetchParams:
    """What a fetch asks for as a whole (Kafka's FetchParams)."""

    replica_id: int = CONSUMER_REPLICA_ID
    replica_epoch: int = -1
    max_wait_ms: int = 0
    min_bytes: int = 1
    max_bytes: int = 0x7FFFFFFF
    #: whether the first partition with data may exceed the limits by one batch (KIP-74);
    #: Fetch v0-v2 hold to them strictly (Kafka's ``hardMaxBytesLimit``)
    min_one_batch: bool = True
    #: READ_COMMITTED: a consumer reads below the last stable offset, told the aborted
    #: transactions in what it reads
    isolation_level: int = READ_UNCOMMITTED

    @property
    def is_from_follower(self) -> bool:
        return self.replica_id >= 0

    @property
    def read_committed(self) -> bool:
        return self.isolation_level == READ_COMMITTED and not self.is_from_follower


@dataclass(slots=True)
class FetchRequestPartition:
    topic: str
    partition: int
    fetch_offset: int
    max_bytes: int
    current_leader_epoch: int = -1
    #: the epoch of the fetcher's last batch (Fetch v12+); -1: not given
    last_fetched_epoch: int = -1
    #: a follower's log start offset (Fetch v5+)
    log_start_offset: int = -1
    #: the topic id a fetch by id (v13+) named; None: fetched by name
    topic_id: uuid.UUID | None = None


@dataclass(slots=True)
class FetchResult:
    error: ErrorCode = ErrorCode.NONE
    high_watermark: int = -1
    last_stable_offset: int = -1
    log_start_offset: int = -1
    records: FileSlice | bytes = b""
    #: ``(epoch, end offset)`` where the fetcher's log parts from the leader's (no records)
    diverging_epoch: tuple[int, int] | None = None
    #: read_committed: the aborted transactions overlapping ``records``; else None
    aborted_transactions: list[AbortedTxn] | None = None


#: the read errors Kafka does not count as failed fetch requests (``readFromLog``)
_NOT_FAILED_FETCH = frozenset({
    ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, ErrorCode.NOT_LEADER_OR_FOLLOWER,
    ErrorCode.UNKNOWN_LEADER_EPOCH, ErrorCode.FENCED_LEADER_EPOCH,
    ErrorCode.REPLICA_NOT_AVAILABLE, ErrorCode.KAFKA_STORAGE_ERROR,
    ErrorCode.OFFSET_OUT_OF_RANGE, ErrorCode.INCONSISTENT_TOPIC_ID})


class ReplicaFetch(HostedPartitions):
    """Fetch, a part of :class:`~pybroker.cluster.replica_manager.ReplicaManager`."""

    #: the leaders' replication quota (KIP-73), set by the replica manager
    leader_quota: ReplicationQuota | None

    # -- fetch -----------------------------------------------------------------------------
    def _read_partition(self, params: FetchParams, req: FetchRequestPartition, limit: int,
                        min_one: bool) -> tuple[Partition, LogReadInfo]:
        p = self.partitions.get((req.topic, req.partition))
        if p is None:
            raise self._not_hosted(req.topic, req.partition)
        if (req.topic_id is not None and p.topic_id is not None
                and req.topic_id.int != p.topic_id.int):  # (UUID's == is Python code)
            # the name resolved to a topic recreated under a new id while this broker still
            # hosts the old one, or the other way round (Kafka's hasConsistentTopicId)
            raise KafkaError(ErrorCode.INCONSISTENT_TOPIC_ID)
        info = p.fetch_records(req.fetch_offset, limit,
                               current_leader_epoch=req.current_leader_epoch,
                               last_fetched_epoch=req.last_fetched_epoch,
                               replica_id=params.replica_id if params.is_from_follower else -1,
                               min_one_batch=min_one and req.max_bytes > 0,
                               read_committed=params.read_committed)
        return p, info

    def read_from_local_logs(self, params: FetchParams, partitions: list[FetchRequestPartition],
                             ) -> tuple[list[FetchResult], int, bool]:
        """Read each partition in request order within ``params.max_bytes``; the first
        partition with data may exceed it by one batch (KIP-74). Returns results, bytes read,
        and whether the fetch must be answered now whatever it read (a partition failed, or a
        fetcher's log diverges from the leader's)."""
        results: list[FetchResult] = []
        budget = params.max_bytes
        total = 0
        min_one = params.min_one_batch
        answer_now = False
        stats = self.topic_stats
        quota = self.leader_quota if params.is_from_follower else None
        if quota is not None and not quota.enabled:
            quota = None
        for req in partitions:
            stats.mark(req.topic, TOTAL_FETCH)
            try:
                p, info = self._read_partition(params, req, max(0, min(req.max_bytes, budget)),
                                               min_one)
            except KafkaError as e:
                answer_now = True
                if e.code not in _NOT_FAILED_FETCH:
                    stats.mark(req.topic, FAILED_FETCH)
                p_ = self.partitions.get((req.topic, req.partition))
                results.append(FetchResult(
                    error=e.code,
                    high_watermark=p_.high_watermark if p_ and p_.log else -1,
                    last_stable_offset=p_.last_stable_offset if p_ and p_.log else -1,
                    log_start_offset=p_.log_start_offset if p_ else -1,
                ))
                continue
            if info.diverging_epoch is not None:
                answer_now = True
            if quota is not None and len(info.records) \
                    and params.replica_id not in p.partition_state.isr \
                    and quota.is_throttled(req.topic, req.partition) and quota.is_exceeded():
                # a throttled replica outside the ISR gets no records while the leader's
                # replication quota is exceeded (Kafka's shouldLeaderThrottle)
                info = replace(info, records=b"")
            size = len(info.records)
            if size:
                min_one = False
                budget -= size
                total += size
            results.append(FetchResult(
                high_watermark=info.high_watermark,
                last_stable_offset=info.last_stable_offset,
                log_start_offset=info.log_start_offset,
                records=info.records,
                diverging_epoch=info.diverging_epoch,
                aborted_transactions=info.aborted_transactions,
            ))
        return results, total, answer_now

    def _update_follower_positions(self, params: FetchParams,
                                   partitions: list[FetchRequestPartition],
                                   results: list[FetchResult], now_ms: int) -> None:
        """A follower's fetch offsets are its log end offsets: the leader may move the high
        watermark and answer waiting acks=all produces. Only partitions read without error
        and without divergence count (KAFKA-13141), and only when the fetch arrives, never
        when a waiting one completes."""
        for req, result in zip(partitions, results, strict=True):
            if result.error != ErrorCode.NONE or result.diverging_epoch is not None:
                continue
            p = self.partitions.get((req.topic, req.partition))
            if p is None or not p.is_leader or params.replica_id not in p.remote_replicas:
                continue
            update = p.update_follower_fetch_state(
                params.replica_id, req.fetch_offset, now_ms,
                follower_start_offset=req.log_start_offset, broker_epoch=params.replica_epoch)
            if update.isr_change is not None:
                self._submit_isr_change(p, update.isr_change)
            if update.high_watermark_moved:
                self._on_high_watermark_moved((req.topic, req.partition))

    def _may_have_news(self, params: FetchParams,
                       partitions: list[FetchRequestPartition]) -> bool:
        """Whether a waiting fetch could read anything new: some partition has records past
        its fetch offset (to the log end for a follower, the high watermark for a consumer),
        or is no longer led here as it was (the read will say how). False: every partition is
        still where the fetch's first read found nothing."""
        from_follower = params.is_from_follower
        for req in partitions:
            p = self.partitions.get((req.topic, req.partition))
            if p is None or not p.is_leader or p.log is None:
                return True
            if 0 <= req.current_leader_epoch != p.leader_epoch:
                return True
            log = p.log
            limit = log.log_end_offset if from_follower else p.high_watermark
            if limit != req.fetch_offset or log.log_start_offset > req.fetch_offset:
                return True
        return False

    def fetch_messages(self, params: FetchParams, partitions: list[FetchRequestPartition], *,
                       now_ms: int = 0,
                       ) -> Outcome[list[FetchResult]]:
        results, total, answer_now = self.read_from_local_logs(params, partitions)
        if params.is_from_follower:
            self._update_follower_positions(params, partitions, results, now_ms)
        if params.max_wait_ms <= 0 or not partitions or total >= params.min_bytes or answer_now:
            return self._count_bytes_out(params, partitions, results)
        op = DelayedFetch(lambda: self.read_from_local_logs(params, partitions),
                          params.min_bytes,
                          lambda: self._may_have_news(params, partitions))
        keys = [(r.topic, r.partition) for r in partitions]
        waiting: Outcome[list[FetchResult]] = self.fetch_purgatory.try_complete_else_watch(
            op, keys, params.max_wait_ms)
        return when_ready(waiting,
                          lambda answered: self._count_bytes_out(params, partitions, answered))

    def _count_bytes_out(self, params: FetchParams, partitions: list[FetchRequestPartition],
                         results: list[FetchResult]) -> list[FetchResult]:
        """BytesOutPerSec of each partition's records (a follower's: ReplicationBytesOutPerSec,
        of all topics only), once the answer is final (Kafka's ``updateBytesOut``)."""
        stats = self.topic_stats
        if params.is_from_follower:
            out = sum(len(r.records) for r in results)
            if out:
                stats.all.mark(REPLICATION_BYTES_OUT, out)
                quota = self.leader_quota
                if quota is not None and quota.enabled:
                    # the bytes of throttled partitions count, in sync or not
                    quota.record(sum(len(r.records) for req, r in zip(partitions, results,
                                                                       strict=False)
                                     if len(r.records) and quota.is_throttled(req.topic,
                                                                              req.partition)))
            return results
        for req, result in zip(partitions, results, strict=False):
            size = len(result.records)
            if size:
                stats.mark(req.topic, BYTES_OUT, size)
        return results
