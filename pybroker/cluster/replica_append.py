"""The append path (Kafka's ``appendRecords`` and ``handleProduceAppend``): each partition's
batch appended to the leader's log, acks=all answers left in the produce purgatory until the
ISR has the batch, and KIP-890's verification of a producer's first transactional batch in a
partition before it is appended."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from protocol.errors import ErrorCode, KafkaError
from protocol.records.batch import BatchHeader, transactional_producer
from pybroker.cluster.hosted_partitions import HostedPartitions
from pybroker.cluster.partition import Partition
from pybroker.cluster.txn_verification import TxnErrorMode, produce_error_for
from pybroker.kernel.outcome import Outcome, chain, is_pending, when_ready
from pybroker.kernel.types import TopicPartition
from pybroker.log.producer_state import AppendOrigin, VerificationGuard
from pybroker.metrics.broker_topic_stats import (
    BYTES_REJECTED,
    FAILED_PRODUCE,
    TOTAL_PRODUCE,
)
from pybroker.purgatory.delayed_produce import DelayedProduce, ProducePartitionStatus

#: the append errors Kafka answers without the partition's log start offset (its
#: ``appendToLocalLog``: unknown or moved partitions, records too large or corrupt, storage);
#: every other refusal (record validation, producer state, transactions, min.insync.replicas)
#: carries it
ERRORS_WITHOUT_LOG_START = frozenset({
    ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, ErrorCode.NOT_LEADER_OR_FOLLOWER,
    ErrorCode.MESSAGE_TOO_LARGE, ErrorCode.RECORD_LIST_TOO_LARGE, ErrorCode.CORRUPT_MESSAGE,
    ErrorCode.KAFKA_STORAGE_ERROR})


@dataclass(slots=True)
class ProduceResult:
    error: ErrorCode = ErrorCode.NONE
    base_offset: int = -1
    log_append_time: int = -1
    log_start_offset: int = -1
    error_message: str | None = None
    #: ``(index in batch, message)`` of the records a refusal names
    record_errors: list[tuple[int, str]] = field(default_factory=list)
    #: whether Kafka sends ``error_message`` with this error (its ``hasCustomErrorMessage``:
    #: the verification's own wording)
    has_custom_message: bool = False


#: the append errors Kafka does not count as failed produce requests (``appendToLocalLog``:
#: the client's or the partition's state, not a failure of the broker)
_NOT_FAILED_PRODUCE = frozenset({
    ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, ErrorCode.NOT_LEADER_OR_FOLLOWER,
    ErrorCode.MESSAGE_TOO_LARGE, ErrorCode.RECORD_LIST_TOO_LARGE, ErrorCode.CORRUPT_MESSAGE,
    ErrorCode.KAFKA_STORAGE_ERROR})
#: ... and those whose bytes count as rejected (a batch over max.message.bytes or the segment)
_REJECTED_BYTES = frozenset({ErrorCode.MESSAGE_TOO_LARGE, ErrorCode.RECORD_LIST_TOO_LARGE})


class ReplicaAppend(HostedPartitions):
    """Produce, a part of :class:`~pybroker.cluster.replica_manager.ReplicaManager`."""

    # -- produce ---------------------------------------------------------------------------
    def handle_produce_append(self, batches: Mapping[TopicPartition, bytearray | memoryview], *,
                              transactional_id: str | None, required_acks: int,
                              timeout_ms: int, now_ms: int,
                              mode: TxnErrorMode = TxnErrorMode.GENERIC_ERROR,
                              producers: Mapping[TopicPartition, tuple[int, int, int]]
                              | None = None,
                              headers: Mapping[TopicPartition, BatchHeader] | None = None,
                              ) -> Outcome[dict[TopicPartition, ProduceResult]]:
        """A client's Produce (Kafka's ``handleProduceAppend``): the transactional batches that
        would open their producer's transaction in a partition are verified with the
        transaction coordinator first (KIP-890), and appended with the verification's guard;
        a partition that is not verified is answered with the error a producer expects
        (:func:`pybroker.cluster.txn_verification.produce_error_for`; ``mode``: what the
        client's version understands) and nothing is written to it. Everything else is
        :meth:`append_records`. Raises INVALID_PRODUCER_ID_MAPPING when the transactional
        batches are of more than one producer (or epoch).

        ``producers``: the :func:`~protocol.records.batch.transactional_producer` of each
        transactional batch, when the caller has read them already (Produce's handler does, so
        a request's headers are read for them once); partitions not in ``batches`` are
        ignored. Without it they are read here. ``headers``: the batches' headers, when the
        caller has read them (see :meth:`append_records`)."""
        if producers is None:
            producers = {key: found for key, batch in batches.items()
                         if (found := transactional_producer(batch)) is not None}
        txn_partitions: dict[TopicPartition, int] = {}
        ids: set[tuple[int, int]] = set()
        for key, (producer_id, producer_epoch, sequence) in producers.items():
            if key in batches:
                ids.add((producer_id, producer_epoch))
                txn_partitions[key] = sequence
        if len(ids) > 1:
            raise KafkaError(ErrorCode.INVALID_PRODUCER_ID_MAPPING,
                             "Transactional records contained more than one producer ID")
        verifier = self.transaction_verifier
        if not ids or verifier is None or transactional_id is None:
            return self.append_records(batches, required_acks=required_acks,
                                       timeout_ms=timeout_ms, now_ms=now_ms, headers=headers)
        [(producer_id, producer_epoch)] = ids
        errors: dict[TopicPartition, ErrorCode] = {}
        guards: dict[TopicPartition, VerificationGuard] = {}
        for key, sequence in txn_partitions.items():
            try:
                guard = self._known_partition(*key).maybe_start_transaction_verification(
                    producer_id, sequence, producer_epoch, now_ms)
            except KafkaError as e:
                errors[key] = e.code
                continue
            if guard is not None:
                guards[key] = guard
        verified: Outcome[dict[TopicPartition, ErrorCode]] = {}
        if guards:
            verified = verifier.verify_transaction(transactional_id, producer_id,
                                                   producer_epoch, list(guards), mode)
        later = is_pending(verified)

        def append(unverified: Mapping[TopicPartition, ErrorCode],
                   ) -> Outcome[dict[TopicPartition, ProduceResult]]:
            refused: dict[TopicPartition, ProduceResult] = {}
            for key, error in {**errors, **unverified}.items():
                code, message = produce_error_for(error)
                refused[key] = ProduceResult(error=code, error_message=message,
                                             has_custom_message=message is not None)
            rest = ({k: b for k, b in batches.items() if k not in refused} if refused
                    else batches)
            outcome = self.append_records(
                rest, required_acks=required_acks, timeout_ms=timeout_ms,
                now_ms=self.clock.milliseconds() if later else now_ms,
                verification_guards={k: g for k, g in guards.items() if k not in refused},
                headers=headers)
            if not refused:
                return outcome
            return when_ready(outcome, lambda results: {**results, **refused})

        return chain(verified, append)

    def maybe_start_transaction_verification_for_partition(
            self, key: TopicPartition, transactional_id: str | None, producer_id: int,
            producer_epoch: int, base_sequence: int, mode: TxnErrorMode, now_ms: int,
    ) -> Outcome[tuple[ErrorCode, VerificationGuard | None]]:
        """For the broker's own transactional appends (a TxnOffsetCommit's offsets): the
        verification of one partition, as ``(error, guard)`` to append with; NONE and no guard
        when nothing needs verifying (verification off, or the producer's transaction is open
        in the partition already). The error is the coordinator's, as a leader takes it."""
        verifier = self.transaction_verifier
        if verifier is None or transactional_id is None:
            return ErrorCode.NONE, None
        try:
            guard = self._known_partition(*key).maybe_start_transaction_verification(
                producer_id, base_sequence, producer_epoch, now_ms)
        except KafkaError as e:
            return e.code, None
        if guard is None:
            return ErrorCode.NONE, None
        return when_ready(
            verifier.verify_transaction(transactional_id, producer_id, producer_epoch, [key],
                                        mode),
            lambda errors: (ErrorCode(errors.get(key, ErrorCode.NONE)), guard))

    def append_to_leader(self, topic: str, partition: int, batch: bytearray | memoryview, *,
                         required_acks: int, now_ms: int,
                         origin: AppendOrigin = AppendOrigin.CLIENT,
                         verification_guard: VerificationGuard | None = None,
                         header: BatchHeader | None = None,
                         ) -> tuple[ProduceResult, int]:
        """Append one batch to the leader's log. Returns the result and the offset the high
        watermark must reach for an acks=all answer (-1 when nothing was appended).
        ``origin`` is the client's Produce or the broker's own coordinators (which may write
        control batches: transaction markers); ``verification_guard`` the guard of the
        transaction's verification (KIP-890), when the append follows one; ``header`` the
        batch's header, when the caller has read it (the log reads it otherwise)."""
        p: Partition | None = None
        stats = self.topic_stats
        try:
            p = self._leader_partition(topic, partition)
            assert p.log is not None
            high_watermark = p.high_watermark
            info = p.append_records_to_leader(
                batch, required_acks=required_acks,
                min_insync_replicas=p.log.config.min_insync_replicas, now_ms=now_ms,
                origin=origin, verification_guard=verification_guard, header=header)
        except KafkaError as e:
            stats.mark(topic, TOTAL_PRODUCE)
            if e.code in _REJECTED_BYTES:
                stats.mark(topic, BYTES_REJECTED, len(batch))
            if e.code not in _NOT_FAILED_PRODUCE:
                stats.mark(topic, FAILED_PRODUCE)
            result = ProduceResult(error=e.code, error_message=e.message,
                                   record_errors=getattr(e, "record_errors", []))
            if e.code not in ERRORS_WITHOUT_LOG_START and p is not None and p.log is not None:
                result.log_start_offset = p.log.log_start_offset
            return result, -1
        stats.mark_produced(topic, len(batch), info.last_offset - info.first_offset + 1)
        if p.high_watermark > high_watermark:
            self._on_high_watermark_moved((topic, partition))
        elif not info.duplicate:
            # followers' fetches wait for appends; consumers' for the high watermark
            self.fetch_purgatory.check_and_complete((topic, partition))
        return ProduceResult(
            base_offset=info.first_offset,
            log_append_time=info.log_append_time,
            log_start_offset=info.log_start_offset,
        ), info.last_offset + 1

    def append_records(self, batches: Mapping[TopicPartition, bytearray | memoryview], *,
                       required_acks: int, timeout_ms: int, now_ms: int,
                       origin: AppendOrigin = AppendOrigin.CLIENT,
                       verification_guards: Mapping[TopicPartition, VerificationGuard]
                       | None = None,
                       headers: Mapping[TopicPartition, BatchHeader] | None = None,
                       ) -> Outcome[dict[TopicPartition, ProduceResult]]:
        """Append each partition's batch. With acks=all, partitions whose batch is not yet
        replicated to the whole ISR wait in the produce purgatory (a future of every result);
        otherwise the results come back at once. ``origin`` and the partitions'
        ``verification_guards``: see :meth:`append_to_leader`; ``headers``: the batches'
        headers as Produce's handler read them, so a request's headers are read once."""
        results: dict[TopicPartition, ProduceResult] = {}
        waiting: dict[TopicPartition, ProducePartitionStatus] = {}
        for (topic, partition), batch in batches.items():
            result, required_offset = self.append_to_leader(
                topic, partition, batch, required_acks=required_acks, now_ms=now_ms,
                origin=origin, verification_guard=verification_guards.get((topic, partition))
                if verification_guards else None,
                header=headers.get((topic, partition)) if headers else None)
            results[(topic, partition)] = result
            if required_acks == -1 and required_offset >= 0:
                p = self.partitions[(topic, partition)]
                assert p.log is not None
                status = ProducePartitionStatus(required_offset,
                                                p.log.config.min_insync_replicas, result)
                done, error = p.check_enough_replicas_reach_offset(
                    required_offset, status.min_insync_replicas)
                if done:
                    result.error = error
                else:
                    waiting[(topic, partition)] = status
        if not waiting:
            return results
        op = DelayedProduce(waiting, self._lookup_leader,
                            lambda answered: {**results, **answered})
        return self.produce_purgatory.try_complete_else_watch(op, list(waiting), timeout_ms)
