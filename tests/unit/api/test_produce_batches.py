"""The produce handler appends a request's batch from the request's own buffer when it can."""

from __future__ import annotations

from protocol.framing import FrameReader, frame
from protocol.messages import produce_request
from protocol.primitives import Reader, Writer
from pybroker.api.produce import writable_batch


def test_a_writable_view_is_appended_in_place() -> None:
    buf = bytearray(b"batch bytes")
    view = memoryview(buf)[2:7]
    got = writable_batch(view)
    assert got is view
    got[0:1] = b"X"  # the log's offset rewrite lands in the request's buffer
    assert buf == bytearray(b"baXch bytes")


def test_read_only_bytes_are_copied() -> None:
    for records in (b"batch", memoryview(b"batch")):
        got = writable_batch(records)
        assert isinstance(got, bytearray) and got == b"batch"


def test_records_of_a_frame_read_into_place_are_writable() -> None:
    body = produce_request.ProduceRequest(acks=-1, timeout_ms=100, topic_data=[
        produce_request.TopicProduceData(name="t", partition_data=[
            produce_request.PartitionProduceData(index=0, records=b"\0" * 70)])])
    w = Writer()
    produce_request.write(w, body, 9)
    reader = FrameReader()
    data = frame(w.to_bytes())
    buf = reader.buffer()
    buf[: len(data)] = data
    (payload,) = reader.filled(len(data))
    decoded = produce_request.read(Reader(payload), 9)
    records = decoded.topic_data[0].partition_data[0].records
    assert isinstance(records, memoryview) and not records.readonly
    assert writable_batch(records) is records
