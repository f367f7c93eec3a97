"""Validation of produced record batches before the leader appends them (Kafka's
``LogValidator``).

A batch a client produced is checked here once, on the leader, by its header alone: size limits,
CRC-32C, the v2 header's own consistency, the idempotent producer's fields and, when the topic
bounds them, the timestamps. Records are decoded only where Kafka's checks need them: a batch
whose timestamps are out of bounds, to name each offending record as Kafka's record errors do
(and, when the topic bounds how old a record may be, a batch of several records, since only
the first and the largest timestamps are in the header), a client's batch for a compacted topic,
whose records must all have a key (INVALID_RECORD naming the keyless ones, as Kafka's
``validateKey``; the broker's coordinators always write keys, so their appends are not
decoded). A topic whose ``compression.type`` names a codec (not ``producer``) stores every
batch in that codec: a batch produced in another is decoded and rebuilt, as Kafka's validator
does (a new CRC; control batches stay as written). Then the leader's part of the header is
written in place (base offset, partition leader epoch and, for LogAppendTime topics, the
timestamp): all outside the CRC, so the batch's CRC stays valid.

A follower appends what its leader validated and skips all of this
(:meth:`pybroker.log.log.Log.append_as_follower`). The broker's own coordinators append through
the same checks as clients, except Kafka's client-only ones: they may write control batches
(transaction markers) and batches with a producer id and no sequence.
"""

from __future__ import annotations

from dataclasses import dataclass

from protocol.errors import ErrorCode, KafkaError
from protocol.records.batch import (
    COMPRESSION_MASK,
    NO_TIMESTAMP,
    BatchHeader,
    compute_crc,
    set_base_offset,
    set_log_append_time,
    set_partition_leader_epoch,
)
from protocol.records.compression import CompressionType, compression_level
from protocol.records.record import build_batch, decode_batch

from .config import LONG_MAX, LogConfig
from .producer_state import AppendOrigin

_MAX_CODEC = 4  # zstd


class InvalidRecords(KafkaError):
    """A refusal that names the records at fault: ``(index in batch, message)`` pairs."""

    def __init__(self, code: ErrorCode, message: str, record_errors: list[tuple[int, str]]):
        super().__init__(code, message)
        self.record_errors = record_errors


def _java_long(value: int) -> int:
    return (value + (1 << 63)) % (1 << 64) - (1 << 63)


def timestamp_bounds(config: LogConfig) -> tuple[int, int] | None:
    """How far (before, after) a CreateTime timestamp may be from now; None when unbounded."""
    if config.log_append_time:
        return None
    before = min(config.message_timestamp_before_max_ms,
                 config.message_timestamp_difference_max_ms)
    after = min(config.message_timestamp_after_max_ms, config.message_timestamp_difference_max_ms)
    if before == LONG_MAX and after == LONG_MAX:
        return None
    return before, after


@dataclass(frozen=True, slots=True)
class ValidatedBatch:
    """A produced batch that passed validation, with the values the append needs: ``batch``
    is the one to append (the produced one, or its re-compression in the topic's codec)."""

    header: BatchHeader
    size: int
    batch: bytearray | memoryview


class LogValidator:
    """The checks of one partition's config, applied to each produced batch.

    ``name`` (``topic-partition``) appears in the messages, as in Kafka's."""

    __slots__ = ("config", "name", "_bounds", "_compacted", "_codec")

    def __init__(self, config: LogConfig, name: str) -> None:
        self.config = config
        self.name = name
        self._bounds = timestamp_bounds(config)
        self._compacted = "compact" in config.cleanup_policy.split(",")
        #: the topic's codec for every batch (None: ``producer``, each batch keeps its own)
        self._codec: int | None = (
            None if config.compression_type.strip().lower() == "producer"
            else CompressionType.from_name(config.compression_type))

    def validate(self, batch: bytearray | memoryview, now_ms: int,
                 origin: AppendOrigin = AppendOrigin.CLIENT,
                 header: BatchHeader | None = None) -> ValidatedBatch:
        """Check one v2 batch as the leader receives it (``header``: its header, when the
        caller read it; read here otherwise); raises KafkaError with Kafka's code."""
        cfg = self.config
        if header is None:
            header = BatchHeader.parse(batch)
        size = len(batch)
        if header.size != size:
            raise KafkaError(
                ErrorCode.CORRUPT_MESSAGE,
                f"batch length field says {header.size} bytes but {size} were sent",
            )
        if size > cfg.max_message_bytes:
            raise KafkaError(
                ErrorCode.MESSAGE_TOO_LARGE,
                f"The record batch size in the append to {self.name} is {size} bytes which "
                f"exceeds the maximum configured value of {cfg.max_message_bytes}.",
            )
        if size > cfg.segment_bytes:
            raise KafkaError(
                ErrorCode.RECORD_LIST_TOO_LARGE,
                f"The record batch size {size} exceeds the segment size {cfg.segment_bytes}",
            )
        if compute_crc(batch, 0, size) != header.crc:
            raise KafkaError(ErrorCode.CORRUPT_MESSAGE,
                             f"Record batch for {self.name} failed its CRC check")
        validate_header(header, origin)
        if self._bounds is not None:
            self._validate_timestamps(batch, header, now_ms)
        if self._compacted and origin is AppendOrigin.CLIENT and not header.is_control:
            self._validate_keys(batch)
        target = self._target_codec(header)
        if target is not None:
            batch = self._recompressed(batch, header, target)
            header = BatchHeader.parse(batch)
            size = len(batch)
            if size > cfg.max_message_bytes:
                raise KafkaError(
                    ErrorCode.MESSAGE_TOO_LARGE,
                    f"Message batch size is {size} bytes in append to partition {self.name} "
                    f"which exceeds the maximum configured size of {cfg.max_message_bytes}.")
        return ValidatedBatch(header, size, batch)

    def _target_codec(self, header: BatchHeader) -> int | None:
        """The codec the topic stores this batch in when it is not the batch's own
        (``compression.type`` other than ``producer``); None to keep the batch as it came.
        Control batches (transaction markers) always stay as the coordinator wrote them."""
        if self._codec is None or header.is_control or header.compression == self._codec:
            return None
        return self._codec

    def _recompressed(self, batch: bytearray | memoryview, header: BatchHeader,
                      codec: int) -> bytearray:
        """The batch rebuilt in ``codec``, as Kafka's validator rebuilds it when the topic's
        compression differs from the producer's: the same records, producer fields,
        transactional flag and timestamp type; a new CRC."""
        _, records = decode_batch(batch, verify_crc=False)
        cfg = self.config
        return build_batch(
            records, codec=codec, timestamp_type=1 if header.is_log_append_time else 0,
            producer_id=header.producer_id, producer_epoch=header.producer_epoch,
            base_sequence=header.base_sequence,
            partition_leader_epoch=header.partition_leader_epoch,
            is_transactional=header.is_transactional, last_offset_delta=header.last_offset_delta,
            compression_level=compression_level(
                codec, gzip_level=cfg.compression_gzip_level, lz4_level=cfg.compression_lz4_level,
                zstd_level=cfg.compression_zstd_level))

    def _validate_keys(self, batch: bytearray | memoryview) -> None:
        """A compacted topic keeps the last record of each key: a record without one is refused,
        with Kafka's messages (the first three record errors are named in the top one)."""
        _, records = decode_batch(batch)
        text = f"Compacted topic cannot accept message without key in topic partition {self.name}"
        errors = [(i, text) for i, r in enumerate(records) if r.key is None]
        if not errors:
            return
        shown = ", ".join(f"RecordError(batchIndex={i}, message='{m}')" for i, m in errors[:3])
        raise InvalidRecords(
            ErrorCode.INVALID_RECORD,
            f"One or more records have been rejected due to {len(errors)} record errors in total, "
            f"and only showing the first three errors at most: [{shown}]",
            errors)

    def _validate_timestamps(self, batch: bytearray | memoryview, h: BatchHeader,
                             now_ms: int) -> None:
        """message.timestamp.before/after.max.ms, record by record as Kafka checks them. The
        header tells the first and the largest timestamps, which settle the upper bound; a
        lower bound needs every record (a later one may be older than the first), so the
        records are decoded when the topic sets one and the batch has more than one record.
        Records out of range are named, as Kafka's record errors do."""
        assert self._bounds is not None
        before, after = self._bounds

        def in_range(ts: int) -> bool:
            # a record without a timestamp (-1, as converted from message format v0) has
            # nothing to check, as in Kafka
            return ts == NO_TIMESTAMP or now_ms - before <= ts <= now_ms + after

        if in_range(h.base_timestamp) and in_range(h.max_timestamp):
            if before == LONG_MAX or h.records_count == 1:
                return
            if all(in_range(r.timestamp) for r in decode_batch(batch, verify_crc=False)[1]):
                return
        # Kafka prints the bounds as Java longs, so an unlimited upper bound wraps around
        low, high = _java_long(now_ms - before), _java_long(now_ms + after)
        _, records = decode_batch(batch)
        errors = [
            (i, f"Timestamp {r.timestamp} of message with offset {r.offset - h.base_offset} is "
                f"out of range. The timestamp should be within [{low}, {high}]")
            for i, r in enumerate(records)
            if not in_range(r.timestamp)
        ]
        raise InvalidRecords(ErrorCode.INVALID_TIMESTAMP,
                             "One or more records have been rejected due to invalid timestamp",
                             errors)

    def assign(self, batch: bytearray | memoryview, header: BatchHeader, first_offset: int,
               leader_epoch: int, now_ms: int) -> tuple[int, int]:
        """Write the leader's part of the header in place; returns ``(max timestamp, log
        append time or -1)``."""
        set_base_offset(batch, first_offset)
        set_partition_leader_epoch(batch, leader_epoch)
        if self.config.log_append_time:
            set_log_append_time(batch, now_ms)
            return now_ms, now_ms
        return header.max_timestamp, -1


def validate_header(h: BatchHeader, origin: AppendOrigin = AppendOrigin.CLIENT) -> None:
    """Kafka's batch-level checks (``LogValidator.validateBatch``); control batches and
    producer ids without a sequence are refused from clients only."""
    if h.base_offset != 0:
        # clients' batches start at 0: offsets are the broker's to assign
        raise KafkaError(ErrorCode.INVALID_RECORD,
                         f"The base offset of a produced batch must be 0, not {h.base_offset}")
    if h.records_count <= 0 or h.last_offset_delta < 0:
        raise KafkaError(
            ErrorCode.INVALID_RECORD,
            f"Invalid reported count for record batch: {h.records_count} "
            f"(last offset delta {h.last_offset_delta})",
        )
    if h.records_count != h.last_offset_delta + 1:
        raise KafkaError(
            ErrorCode.INVALID_RECORD,
            f"Inconsistent batch offset range [0, {h.last_offset_delta}] "
            f"and count of records {h.records_count}",
        )
    if origin is AppendOrigin.CLIENT:
        if h.is_control:
            raise KafkaError(ErrorCode.INVALID_RECORD,
                             "Clients are not allowed to write control records")
        if h.has_producer_id and h.base_sequence < 0:
            raise KafkaError(
                ErrorCode.INVALID_RECORD,
                f"Invalid sequence number {h.base_sequence} in record batch with producerId "
                f"{h.producer_id}",
            )
    if h.attributes & COMPRESSION_MASK > _MAX_CODEC:
        raise KafkaError(
            ErrorCode.CORRUPT_MESSAGE,
            f"Unknown compression codec id {h.attributes & COMPRESSION_MASK}"
        )
