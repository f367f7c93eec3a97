"""The partitions this broker hosts, and the produce and fetch paths through them.

Produce: each partition's single batch goes to the leader's log as bytes (header and CRC
checked, base offset rewritten, appended); no record is decoded. Fetch: whole batches are read
from the segment files as file slices; a fetch that cannot be satisfied yet waits in the fetch
purgatory until an append wakes it or ``max_wait_ms`` passes.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from protocol.errors import ErrorCode, KafkaError
from pybroker.cluster.partition import Partition
from pybroker.purgatory import DelayedOperation, Purgatory

if TYPE_CHECKING:
    from pybroker.log.config import LogConfig
    from pybroker.log.manager import LogManager
    from pybroker.metadata.model import PartitionRecord

log = logging.getLogger(__name__)

TopicPartition = tuple[str, int]

#: refusals of Kafka's LogValidator, answered with the partition's log start offset
RECORD_VALIDATION_ERRORS = frozenset({ErrorCode.INVALID_RECORD, ErrorCode.INVALID_TIMESTAMP})


@dataclass(slots=True)
class ProduceResult:
    error: ErrorCode = ErrorCode.NONE
    base_offset: int = -1
    log_append_time: int = -1
    log_start_offset: int = -1
    error_message: str | None = None
    #: ``(index in batch, message)`` of the records a refusal names
    record_errors: list[tuple[int, str]] = field(default_factory=list)


@dataclass(slots=True)
class FetchRequestPartition:
    topic: str
    partition: int
    fetch_offset: int
    max_bytes: int
    current_leader_epoch: int = -1


@dataclass(slots=True)
class FetchResult:
    error: ErrorCode = ErrorCode.NONE
    high_watermark: int = -1
    last_stable_offset: int = -1
    log_start_offset: int = -1
    records: Any = b""


class DelayedFetch(DelayedOperation):
    """A fetch waiting for ``min_bytes`` of new data (Kafka's DelayedFetch)."""

    def __init__(self, manager: ReplicaManager, partitions: list[FetchRequestPartition],
                 max_bytes: int, min_bytes: int) -> None:
        super().__init__()
        self.manager = manager
        self.partitions = partitions
        self.max_bytes = max_bytes
        self.min_bytes = min_bytes

    def try_complete(self) -> list[FetchResult] | None:
        results, total, errors = self.manager.read_from_local_logs(self.partitions, self.max_bytes)
        if total >= self.min_bytes or errors:
            return results
        return None

    def on_expiration(self) -> list[FetchResult]:
        return self.manager.read_from_local_logs(self.partitions, self.max_bytes)[0]


class ReplicaManager:
    def __init__(self, broker_id: int, log_manager: LogManager,
                 log_config_for: Callable[[str], LogConfig]) -> None:
        self.broker_id = broker_id
        self.log_manager = log_manager
        self.log_config_for = log_config_for
        self.partitions: dict[TopicPartition, Partition] = {}
        self.fetch_purgatory = Purgatory("Fetch")

    # -- leadership ------------------------------------------------------------------------
    def become_leader(self, topic: str, record: PartitionRecord, now_ms: int) -> Partition:
        key = (topic, record.partition)
        partition = self.partitions.get(key)
        if partition is None:
            partition = self.partitions[key] = Partition(topic, record.partition, self.broker_id)
        plog = self.log_manager.get_log(topic, record.partition)
        if plog is None:
            config = self.log_config_for(topic)
            plog = self.log_manager.get_or_create_log(topic, record.partition, config, now_ms)
        partition.make_leader(record, plog)
        self.fetch_purgatory.check_and_complete(key)
        return partition

    def update_log_config(self, topic: str) -> None:
        config = self.log_config_for(topic)
        for (t, _), partition in self.partitions.items():
            if t == topic and partition.log is not None:
                partition.log.update_config(config)

    def stop_replicas(self, topic: str, partitions: list[int], *, delete: bool) -> None:
        for p in partitions:
            partition = self.partitions.pop((topic, p), None)
            if partition is None:
                continue
            if delete:
                self.log_manager.delete_log(topic, p)
            # Waiting fetches for a partition that is gone answer now, with the error.
            self.fetch_purgatory.check_and_complete((topic, p))

    def get_partition(self, topic: str, partition: int) -> Partition | None:
        return self.partitions.get((topic, partition))

    def _leader_partition(self, topic: str, partition: int) -> Partition:
        p = self.partitions.get((topic, partition))
        if p is None:
            raise KafkaError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)
        if not p.is_leader:
            raise KafkaError(ErrorCode.NOT_LEADER_OR_FOLLOWER)
        return p

    # -- produce ---------------------------------------------------------------------------
    def append_records(self, topic: str, partition: int, batch: bytearray, *, required_acks: int,
                       now_ms: int) -> ProduceResult:
        p: Partition | None = None
        try:
            p = self._leader_partition(topic, partition)
            assert p.log is not None
            info = p.append_as_leader(
                batch,
                required_acks=required_acks,
                min_insync_replicas=p.log.config.min_insync_replicas,
                now_ms=now_ms,
            )
        except KafkaError as e:
            result = ProduceResult(error=e.code, error_message=e.message,
                                   record_errors=getattr(e, "record_errors", []))
            if e.code in RECORD_VALIDATION_ERRORS and p is not None and p.log is not None:
                # as Kafka: a refusal by record validation reports the log start offset
                result.log_start_offset = p.log.log_start_offset
            return result
        if not info.duplicate:
            self.fetch_purgatory.check_and_complete((topic, partition))
        return ProduceResult(
            base_offset=info.first_offset,
            log_append_time=info.log_append_time,
            log_start_offset=info.log_start_offset,
        )

    # -- fetch -----------------------------------------------------------------------------
    def read_from_local_logs(self, partitions: list[FetchRequestPartition], max_bytes: int,
                             ) -> tuple[list[FetchResult], int, bool]:
        """Read each partition in request order within ``max_bytes``; the first partition with
        data may exceed it by one batch (KIP-74). Returns results, bytes read, any errors."""
        results: list[FetchResult] = []
        budget = max_bytes
        total = 0
        min_one = True
        errors = False
        for req in partitions:
            try:
                p = self._leader_partition(req.topic, req.partition)
                p.check_leader_epoch(req.current_leader_epoch)
                limit = max(0, min(req.max_bytes, budget))
                info = p.read(req.fetch_offset, limit, min_one_batch=min_one and req.max_bytes > 0)
            except KafkaError as e:
                errors = True
                p_ = self.partitions.get((req.topic, req.partition))
                results.append(FetchResult(
                    error=e.code,
                    high_watermark=p_.high_watermark if p_ and p_.log else -1,
                    last_stable_offset=p_.high_watermark if p_ and p_.log else -1,
                    log_start_offset=p_.log_start_offset if p_ else -1,
                ))
                continue
            size = len(info.records)
            if size:
                min_one = False
                budget -= size
                total += size
            results.append(FetchResult(
                high_watermark=p.high_watermark,
                last_stable_offset=p.high_watermark,  # no transactions: the LSO is the HW
                log_start_offset=p.log_start_offset,
                records=info.records,
            ))
        return results, total, errors

    def fetch_messages(self, partitions: list[FetchRequestPartition], *, max_bytes: int,
                       min_bytes: int, max_wait_ms: int,
                       ) -> list[FetchResult] | asyncio.Future[list[FetchResult]]:
        results, total, errors = self.read_from_local_logs(partitions, max_bytes)
        if max_wait_ms <= 0 or not partitions or total >= min_bytes or errors:
            return results
        op = DelayedFetch(self, partitions, max_bytes, min_bytes)
        keys = [(r.topic, r.partition) for r in partitions]
        return self.fetch_purgatory.try_complete_else_watch(op, keys, max_wait_ms)

    def shutdown(self) -> None:
        self.fetch_purgatory.shutdown()
