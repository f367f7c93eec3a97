"""Browsing a partition's records and producing a test message, through confluent-kafka's
consumer and producer (librdkafka) - a consumer that only ``assign``s, so it joins no group and
commits nothing.

A browse starts at a *position*: an offset, or the first offset at or after a timestamp (as
``offsets_for_times`` finds it), or the log's start (oldest first) or end (newest first) when
neither is given. Oldest first reads the records at and after the position; newest first the
records before it (at and before an offset), newest at the top, read in windows stepping back
from the position. A filter keeps the records whose key, value or a header value contains a
substring; the scan stops after :data:`SCAN_LIMIT` records, so a filter that matches nothing
costs a bounded read and says how far it looked.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from confluent_kafka import (
    TIMESTAMP_CREATE_TIME,
    TIMESTAMP_LOG_APPEND_TIME,
    Consumer,
    KafkaError,
    KafkaException,
    Message,
    Producer,
    TopicPartition,
)

from pybroker.console.errors import KafkaCallError

#: the most records one browse reads, whatever its filter
SCAN_LIMIT = 10_000
#: the most records one browse shows
MAX_LIMIT = 500
#: seconds a read may wait for records it knows are there
READ_TIMEOUT = 10.0
FORMATS = ("text", "json", "hex")
ORDERS = ("newest", "oldest")


@dataclass(frozen=True)
class Browse:
    """What to show: ``limit`` records of ``partition`` from a position (``offset`` or
    ``timestamp`` in ms, else the log's end for newest first and its start for oldest
    first), in ``order``, values shown as ``fmt``, keeping those that contain ``search``."""

    partition: int = 0
    offset: int | None = None
    timestamp: int | None = None
    order: str = "newest"
    fmt: str = "text"
    search: str = ""
    limit: int = 50

    def __post_init__(self) -> None:
        if self.order not in ORDERS:
            raise ValueError(f"order is newest or oldest, not {self.order!r}")
        if self.fmt not in FORMATS:
            raise ValueError(f"format is text, json or hex, not {self.fmt!r}")
        if not 1 <= self.limit <= MAX_LIMIT:
            raise ValueError(f"limit is from 1 to {MAX_LIMIT}, not {self.limit}")
        if self.offset is not None and self.timestamp is not None:
            raise ValueError("start from an offset or a timestamp, not both")


def parse_timestamp(text: str) -> int:
    """Milliseconds since the epoch, or an ISO 8601 date and time (UTC unless it says)."""
    text = text.strip()
    if text.lstrip("-").isdigit():
        return int(text)
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        raise ValueError(f"a timestamp is milliseconds or an ISO date and time, not {text!r}")\
            from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return int(when.timestamp() * 1000)


def show(data: bytes | None, fmt: str) -> dict[str, Any]:
    """A key or value as the page shows it: ``text`` (UTF-8; bytes that are not are shown
    as hex and say so), ``json`` (pretty-printed; text that is not JSON shown as text) or
    ``hex``; with its length in bytes."""
    if data is None:
        return {"shown": None, "as": "null", "bytes": 0}
    if fmt == "hex":
        return {"shown": data.hex(" "), "as": "hex", "bytes": len(data)}
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return {"shown": data.hex(" "), "as": "hex", "bytes": len(data)}
    if fmt == "json":
        try:
            return {"shown": json.dumps(json.loads(text), indent=2, ensure_ascii=False),
                    "as": "json", "bytes": len(data)}
        except ValueError:
            pass
    return {"shown": text, "as": "text", "bytes": len(data)}


def _text(data: str | bytes | None) -> str:
    if data is None:
        return ""
    return data if isinstance(data, str) else data.decode("utf-8", "replace")


def _headers(message: Message) -> list[tuple[str, str | bytes | None]]:
    return list(message.headers() or [])  # type: ignore[arg-type]


def _offset(message: Message) -> int:
    """A consumed record's offset (librdkafka gives one to every record it delivers)."""
    offset = message.offset()
    assert offset is not None
    return offset


def record(message: Message, fmt: str) -> dict[str, Any]:
    kind, ms = message.timestamp()
    return {
        "partition": message.partition(), "offset": _offset(message),
        "timestamp": ms if kind in (TIMESTAMP_CREATE_TIME, TIMESTAMP_LOG_APPEND_TIME) else None,
        "timestamp_type": {TIMESTAMP_CREATE_TIME: "CreateTime",
                           TIMESTAMP_LOG_APPEND_TIME: "LogAppendTime"}.get(kind),
        "time": datetime.fromtimestamp(ms / 1000, UTC).isoformat(timespec="milliseconds")
        if kind in (TIMESTAMP_CREATE_TIME, TIMESTAMP_LOG_APPEND_TIME) else None,
        "key": show(message.key(), fmt), "value": show(message.value(), fmt),
        "headers": [{"key": k, "value": _text(v)} for k, v in _headers(message)],
    }


def matches(message: Message, search: str) -> bool:
    if not search:
        return True
    needle = search.lower()
    texts = [_text(message.key()), _text(message.value())]
    texts += [_text(v) for _, v in _headers(message)]
    return any(needle in t.lower() for t in texts)


class Reader:
    """One browse: a consumer assigned to one partition, closed when the browse ends."""

    def __init__(self, config: dict[str, Any], topic: str, browse: Browse) -> None:
        self.topic = topic
        self.browse = browse
        self.consumer = Consumer({
            **config, "group.id": "pybroker-console-browse", "enable.auto.commit": False,
            "enable.auto.offset.store": False, "enable.partition.eof": True,
            "isolation.level": "read_committed", "api.version.request": True})

    def close(self) -> None:
        self.consumer.close()

    def range(self) -> tuple[int, int]:
        """The partition's log start offset and last stable offset."""
        try:
            low, high = self.consumer.get_watermark_offsets(
                TopicPartition(self.topic, self.browse.partition), timeout=READ_TIMEOUT)
        except KafkaException as e:
            raise KafkaCallError.of(e.args[0]) from None
        return int(low), int(high)

    def position(self, low: int, high: int) -> int:
        """Where the browse starts (clamped to the log)."""
        b = self.browse
        if b.timestamp is not None:
            try:
                found = self.consumer.offsets_for_times(
                    [TopicPartition(self.topic, b.partition, b.timestamp)],
                    timeout=READ_TIMEOUT)[0]
            except KafkaException as e:
                raise KafkaCallError.of(e.args[0]) from None
            if found.error is not None:
                raise KafkaCallError.of(found.error)
            return high if found.offset < 0 else min(max(found.offset, low), high)
        if b.offset is not None:
            # newest first from an offset includes that offset's record
            at = b.offset + 1 if b.order == "newest" else b.offset
            return min(max(at, low), high)
        return high if b.order == "newest" else low

    def read(self, start: int, stop: int) -> list[Message]:
        """The records from ``start`` up to (not including) ``stop``, as far as they exist
        (control records and aborted ones are skipped, so offsets have gaps)."""
        if start >= stop:
            return []
        self.consumer.assign([TopicPartition(self.topic, self.browse.partition, start)])
        out: list[Message] = []
        try:
            while True:
                batch = self.consumer.consume(num_messages=min(500, stop - start),
                                              timeout=READ_TIMEOUT)
                if not batch:
                    return out  # the time ran out: what came
                for m in batch:
                    error = m.error()
                    if error is not None:
                        if error.code() == KafkaError._PARTITION_EOF:
                            return out
                        raise KafkaCallError.of(error)
                    if _offset(m) >= stop:
                        return out
                    out.append(m)
                position = self.consumer.position(
                    [TopicPartition(self.topic, self.browse.partition)])[0].offset
                if position >= stop or (out and _offset(out[-1]) >= stop - 1):
                    return out
        finally:
            self.consumer.unassign()


def browse(config: dict[str, Any], topic: str, b: Browse) -> dict[str, Any]:
    """The records a browse shows, with the log's range and how many records it read."""
    reader = Reader(config, topic, b)
    try:
        low, high = reader.range()
        at = reader.position(low, high)
        shown: list[Message] = []
        scanned = 0
        if b.order == "oldest":
            cursor = at
            while len(shown) < b.limit and cursor < high and scanned < SCAN_LIMIT:
                window = reader.read(cursor, min(high, cursor + max(b.limit, 100)))
                if not window:
                    break
                for m in window:
                    scanned += 1
                    if matches(m, b.search) and len(shown) < b.limit:
                        shown.append(m)
                cursor = _offset(window[-1]) + 1
        else:
            cursor = at
            while len(shown) < b.limit and cursor > low and scanned < SCAN_LIMIT:
                begin = max(low, cursor - max(b.limit, 100))
                window = reader.read(begin, cursor)
                scanned += len(window)
                for m in reversed(window):
                    if matches(m, b.search) and len(shown) < b.limit:
                        shown.append(m)
                cursor = begin
        return {"topic": topic, "partition": b.partition, "start_offset": low,
                "end_offset": high, "position": at, "order": b.order, "format": b.fmt,
                "search": b.search, "scanned": scanned, "scan_limit": SCAN_LIMIT,
                "messages": [record(m, b.fmt) for m in shown]}
    finally:
        reader.close()


def produce(config: dict[str, Any], topic: str, *, value: str, key: str | None = None,
            partition: int | None = None,
            headers: list[tuple[str, str]] | None = None) -> dict[str, Any]:
    """One record, acks=all, flushed; where it went (partition, offset)."""
    producer = Producer({**config, "acks": "all", "enable.idempotence": False,
                         "linger.ms": 0, "message.timeout.ms": int(READ_TIMEOUT * 1000)})
    outcome: dict[str, Any] = {}

    def delivered(error: KafkaError | None, message: Message) -> None:
        if error is not None:
            outcome["error"] = error
        else:
            outcome.update(topic=message.topic(), partition=message.partition(),
                           offset=message.offset())

    extra: dict[str, Any] = {} if partition is None else {"partition": partition}
    try:
        producer.produce(topic, value=value.encode(), key=None if key is None else key.encode(),
                         headers=[(k, v.encode()) for k, v in headers or []],
                         on_delivery=delivered, **extra)
    except KafkaException as e:
        raise KafkaCallError.of(e.args[0]) from None
    except BufferError as e:
        raise KafkaCallError("QUEUE_FULL", str(e)) from None
    left = producer.flush(READ_TIMEOUT + 5)
    if left or not outcome:
        raise KafkaCallError("REQUEST_TIMED_OUT", "the record was not acknowledged in time")
    if "error" in outcome:
        raise KafkaCallError.of(outcome["error"])
    return outcome
