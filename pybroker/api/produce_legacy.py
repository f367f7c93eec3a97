"""Produce v0-v2: the record set of each partition, as old clients send it, turned into the one
v2 batch the normal append path takes (Kafka 3.9's ``UnifiedLog.analyzeAndValidateRecords``
and ``LogValidator``, whose target format is always v2 since 3.0).

A record set of magic 0 or 1 (a message set) is checked as Kafka checks it, in Kafka's order:

1. the shallow entries: sizes and magics (CORRUPT_MESSAGE), each entry against
   ``max.message.bytes`` (MESSAGE_TOO_LARGE) and its CRC-32 (CORRUPT_MESSAGE);
2. a compressed entry must be alone (INVALID_RECORD); entries share one magic (INVALID_RECORD);
3. every message, a wrapper's inner ones included: not compressed itself (INVALID_RECORD), its
   own CRC when inside a wrapper (CORRUPT_MESSAGE), a key on a compacted topic and its
   timestamp (record errors, which make the refusal INVALID_TIMESTAMP when one is about a
   timestamp, else INVALID_RECORD); a producer may not set LogAppendTime.

Then the messages become one v2 batch: offsets from 0 (the log assigns the real ones), the
timestamps they carry (-1 for magic 0, ``NO_TIMESTAMP``), no producer id, compressed with the
codec the topic's ``compression.type`` gives for the producer's (``producer``: the wrapper's
own), at the topic's level. The log then validates that batch like any other (its size
against ``max.message.bytes`` again, LogAppendTime topics, leadership, acks).

A v2 batch in a v0-v2 request is taken as Kafka takes it (no version rule applies below v3):
one batch only, any codec.
"""

from __future__ import annotations

from typing import Protocol

from protocol.errors import ErrorCode, KafkaError
from protocol.records import legacy
from protocol.records.batch import MAGIC as MAGIC_V2
from protocol.records.compression import (
    CompressionType,
    compression_level as codec_level,
    topic_compression,
)
from protocol.records.legacy import MAGIC_OFFSET
from protocol.records.record import Record, build_batch

LOG_APPEND_TIME = "LogAppendTime"


class TopicSettings(Protocol):
    """The topic configs the conversion reads (a ``LogConfig``)."""

    @property
    def max_message_bytes(self) -> int: ...
    @property
    def cleanup_policy(self) -> str: ...
    @property
    def compression_type(self) -> str: ...
    @property
    def compression_gzip_level(self) -> int: ...
    @property
    def compression_lz4_level(self) -> int: ...
    @property
    def compression_zstd_level(self) -> int: ...
    @property
    def message_timestamp_type(self) -> str: ...
    @property
    def message_timestamp_difference_max_ms(self) -> int: ...
    @property
    def message_timestamp_before_max_ms(self) -> int: ...
    @property
    def message_timestamp_after_max_ms(self) -> int: ...


def compression_level(config: TopicSettings, codec: int) -> int | None:
    """The topic's ``compression.<codec>.level`` for ``codec``."""
    return codec_level(codec, gzip_level=config.compression_gzip_level,
                       lz4_level=config.compression_lz4_level,
                       zstd_level=config.compression_zstd_level)


class _RecordChecks:
    """Kafka's per-record checks (``LogValidator.validateRecord``) for one topic at ``now``."""

    def __init__(self, config: TopicSettings, now_ms: int) -> None:
        self.compacted = "compact" in config.cleanup_policy.split(",")
        self.log_append_time = config.message_timestamp_type == LOG_APPEND_TIME
        # as pybroker.log.validator.timestamp_bounds reads them
        self.before = min(config.message_timestamp_before_max_ms,
                          config.message_timestamp_difference_max_ms)
        self.after = min(config.message_timestamp_after_max_ms,
                         config.message_timestamp_difference_max_ms)
        self.now_ms = now_ms

    def error(self, message: legacy.LegacyMessage,
              wrapper: legacy.LegacyMessage) -> tuple[ErrorCode, str] | None:
        """The record error of ``message`` (inside ``wrapper``, or itself), if any."""
        if self.compacted and message.key is None:
            return (ErrorCode.INVALID_RECORD,
                    "Compacted topic cannot accept message without key")
        ts = message.timestamp
        if not self.log_append_time and ts != legacy.NO_TIMESTAMP:
            if not -self.after <= self.now_ms - ts <= self.before:
                return (ErrorCode.INVALID_TIMESTAMP,
                        f"Timestamp {ts} of message with offset {message.offset} is out of range")
        elif wrapper.is_log_append_time:
            return (ErrorCode.INVALID_TIMESTAMP,
                    "Producer should not set timestamp type to LogAppendTime.")
        return None


def _raise_record_errors(errors: list[tuple[int, ErrorCode, str]]) -> None:
    """Kafka's ``processRecordErrors``: one refusal for the batch, INVALID_TIMESTAMP when a
    record's timestamp is at fault. (Produce v0-v2 answers carry no record errors.)"""
    if not errors:
        return
    named = "; ".join(f"record {i}: {text}" for i, _, text in errors[:3])
    if any(code == ErrorCode.INVALID_TIMESTAMP for _, code, _ in errors):
        raise KafkaError(ErrorCode.INVALID_TIMESTAMP,
                         f"One or more records have been rejected due to invalid timestamp "
                         f"({named})")
    raise KafkaError(ErrorCode.INVALID_RECORD,
                     f"One or more records have been rejected due to {len(errors)} record "
                     f"errors in total ({named})")


def _shallow(records: memoryview, config: TopicSettings) -> list[legacy.LegacyMessage]:
    """The complete entries, each checked for size and CRC (``analyzeAndValidateRecords``)."""
    out = []
    for pos, size in legacy.iter_entries(records):
        if size > config.max_message_bytes:
            raise KafkaError(ErrorCode.MESSAGE_TOO_LARGE,
                             f"The record batch size in the append is {size} bytes which exceeds "
                             f"the maximum configured value of {config.max_message_bytes}.")
        if legacy.peek_magic(records, pos) == MAGIC_V2:
            # a v2 batch after legacy messages: Kafka's validator refuses the mixed magics
            raise KafkaError(ErrorCode.INVALID_RECORD,
                             f"Batch magic {MAGIC_V2} is not the same as the first batch's "
                             f"magic byte {records[MAGIC_OFFSET]}")
        message = legacy.read_message(records, pos, size)
        if not message.crc_ok:
            raise KafkaError(ErrorCode.CORRUPT_MESSAGE,
                             f"Record is corrupt (stored crc = {message.crc})")
        if message.compression > CompressionType.ZSTD:
            raise KafkaError(ErrorCode.CORRUPT_MESSAGE,
                             f"Unknown compression type id {message.compression}")
        out.append(message)
    return out


def _validated(entries: list[legacy.LegacyMessage], config: TopicSettings,
               now_ms: int) -> list[legacy.LegacyMessage]:
    """Every message the entries hold, once Kafka's validator has passed them."""
    checks = _RecordChecks(config, now_ms)
    first = entries[0]
    compressed = any(e.compression for e in entries)
    if compressed and len(entries) > 1:
        raise KafkaError(ErrorCode.INVALID_RECORD,
                         "Compressed outer record has more than one batch")
    validated: list[legacy.LegacyMessage] = []
    for entry in entries:
        if entry.magic != first.magic:
            raise KafkaError(ErrorCode.INVALID_RECORD,
                             f"Batch magic {entry.magic} is not the same as the first batch's "
                             f"magic byte {first.magic}")
        inner = legacy.inner_messages(entry) if entry.compression else [entry]
        errors: list[tuple[int, ErrorCode, str]] = []
        for index, message in enumerate(inner):
            if message is not entry:
                if message.compression:
                    raise KafkaError(ErrorCode.INVALID_RECORD,
                                     "Inner messages must not be compressed")
                if not message.crc_ok:
                    raise KafkaError(ErrorCode.CORRUPT_MESSAGE,
                                     f"Record is corrupt (stored crc = {message.crc})")
            error = checks.error(message, entry)
            if error is not None:
                errors.append((index, *error))
            elif not errors:
                validated.append(message)
        _raise_record_errors(errors)
    return validated


def to_v2_batch(records: bytes | bytearray | memoryview | None, config: TopicSettings,
                now_ms: int) -> bytearray | None:
    """The v2 batch to append for the record set of one partition of a Produce v0-v2 request;
    None when it holds no complete entry (Kafka then appends nothing and answers success).
    Raises :class:`KafkaError` with Kafka's code."""
    if records is None or len(records) == 0:
        return None
    view = memoryview(records)
    magic = legacy.peek_magic(view)
    if magic == MAGIC_V2:
        return _v2_batch(view)
    entries = _shallow(view, config)
    if not entries:
        return None
    messages = _validated(entries, config, now_ms)
    source = entries[0].compression if len(entries) == 1 else CompressionType.NONE
    codec = topic_compression(config.compression_type, source)
    return build_batch(
        [Record(i, m.timestamp, m.key, m.value) for i, m in enumerate(messages)],
        codec=codec, compression_level=compression_level(config, codec))


def _v2_batch(view: memoryview) -> bytearray | None:
    """A v2 batch in an old request: Kafka allows one, and trims bytes past it."""
    entries = list(legacy.iter_entries(view))
    if not entries:
        return None
    if len(entries) > 1:
        raise KafkaError(ErrorCode.INVALID_RECORD,
                         "Compressed outer record has more than one batch")
    _, size = entries[0]
    return bytearray(view[:size])
