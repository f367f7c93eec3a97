"""Size-prefixed framing of the Kafka byte stream."""

from __future__ import annotations

import struct

import pytest
from hypothesis import given, settings, strategies as st

from protocol.errors import ProtocolError
from protocol.framing import (
    DEFAULT_MAX_FRAME_SIZE,
    FrameDecoder,
    FrameReader,
    allocate_frame_buffer,
    frame,
    frame_prefix,
)


def _feed_in_pieces(decoder: FrameDecoder, stream: bytes, cuts: list[int]) -> list[bytes]:
    out: list[bytes] = []
    start = 0
    for cut in [*sorted(cuts), len(stream)]:
        out.extend(decoder.feed(stream[start:cut]))
        start = cut
    return out


@settings(max_examples=300, deadline=None)
@given(
    payloads=st.lists(st.binary(max_size=300), max_size=40),
    data=st.data(),
    kind=st.sampled_from([bytes, bytearray, memoryview]),
)
def test_any_chunking_reproduces_the_frames(
    payloads: list[bytes], data: st.DataObject, kind: type
) -> None:
    stream = b"".join(frame(p) for p in payloads)
    cuts = data.draw(st.lists(st.integers(min_value=0, max_value=len(stream)), max_size=60))
    decoder = FrameDecoder()
    out: list[bytes] = []
    start = 0
    for cut in [*sorted(cuts), len(stream)]:
        out.extend(decoder.feed(kind(stream[start:cut])))
        start = cut
    assert out == payloads
    assert decoder.pending == 0


def test_many_tiny_frames_in_one_chunk() -> None:
    payloads = [b"%d" % i for i in range(20_000)]
    decoder = FrameDecoder()
    assert decoder.feed(b"".join(frame(p) for p in payloads)) == payloads


def test_one_large_frame_in_many_small_chunks() -> None:
    payload = bytes(range(256)) * 40_000  # ~10 MB
    stream = frame(payload) + frame(b"next")
    decoder = FrameDecoder()
    cuts = list(range(0, len(stream), 1000))
    out = _feed_in_pieces(decoder, stream, cuts)
    assert out == [payload, b"next"]
    assert decoder.pending == 0


def test_partial_frame_is_kept() -> None:
    decoder = FrameDecoder()
    assert decoder.feed(frame(b"one") + frame(b"two")[:5]) == [b"one"]
    assert decoder.pending == 5
    assert decoder.feed(b"") == []
    assert decoder.feed(b"w") == []
    assert decoder.feed(b"o") == [b"two"]
    assert decoder.pending == 0


def test_returned_frames_do_not_alias_the_input() -> None:
    decoder = FrameDecoder()
    chunk = bytearray(frame(b"abc"))
    (got,) = decoder.feed(chunk)
    chunk[4:7] = b"xyz"
    assert got == b"abc"


def test_empty_frame() -> None:
    assert FrameDecoder().feed(frame(b"") + frame(b"x")) == [b"", b"x"]


@pytest.mark.parametrize("size", [-1, -(2**31), DEFAULT_MAX_FRAME_SIZE + 1, 2**31 - 1])
def test_bad_sizes_raise(size: int) -> None:
    decoder = FrameDecoder()
    with pytest.raises(ProtocolError):
        decoder.feed(struct.pack(">i", size))


def test_size_is_checked_before_the_frame_arrives() -> None:
    decoder = FrameDecoder(max_frame_size=100)
    assert decoder.feed(frame(b"x" * 100)) == [b"x" * 100]
    assert decoder.feed(b"\x00\x00") == []
    with pytest.raises(ProtocolError):
        decoder.feed(b"\x00\x65")  # 101: refused on the prefix alone


def test_bad_size_after_good_frames_in_the_pending_buffer() -> None:
    decoder = FrameDecoder(max_frame_size=10)
    assert decoder.feed(frame(b"ok")[:3]) == []
    with pytest.raises(ProtocolError):
        decoder.feed(frame(b"ok")[3:] + struct.pack(">i", 11))


def test_frame_helpers() -> None:
    assert frame(b"abc") == b"\x00\x00\x00\x03abc"
    assert frame(memoryview(b"abc")) == b"\x00\x00\x00\x03abc"
    assert frame_prefix(0) == b"\x00\x00\x00\x00"
    assert frame_prefix(2**31 - 1) == b"\x7f\xff\xff\xff"
    for bad in (-1, 2**31):
        with pytest.raises(ValueError):
            frame_prefix(bad)


# -- FrameReader: reads land in the buffer it hands out ---------------------------------------


def _read_stream(reader: FrameReader, stream: bytes, reads: list[int]) -> tuple[list[bytearray], int]:
    """Deliver ``stream`` as a socket would: each read fills at most the buffer offered and at
    most the next of ``reads`` bytes (then the rest in reads of whatever the buffer takes).
    Returns the frames and how many reads it took."""
    out: list[bytearray] = []
    pos = 0
    count = 0
    wanted = iter(reads)
    while pos < len(stream):
        buf = reader.buffer()
        assert len(buf) > 0
        n = min(len(buf), len(stream) - pos, next(wanted, len(stream)))
        n = max(n, 1)
        buf[:n] = stream[pos : pos + n]
        pos += n
        count += 1
        out.extend(reader.filled(n))
    return out, count


@settings(max_examples=300, deadline=None)
@given(
    payloads=st.lists(st.binary(max_size=300), max_size=40),
    reads=st.lists(st.integers(min_value=1, max_value=700), max_size=60),
    chunk=st.integers(min_value=4, max_value=200),
)
def test_reader_any_read_sizes_reproduce_the_frames(
    payloads: list[bytes], reads: list[int], chunk: int
) -> None:
    stream = b"".join(frame(p) for p in payloads)
    reader = FrameReader(chunk=bytearray(chunk))
    out, _ = _read_stream(reader, stream, reads)
    assert out == payloads
    assert all(type(f) is bytearray for f in out)
    assert reader.pending == 0


def test_reader_reads_a_large_frame_into_its_own_buffer() -> None:
    payload = bytes(range(256)) * 40_000  # ~10 MB
    reader = FrameReader(chunk=bytearray(1000))
    assert reader.filled(_put(reader, frame(payload)[:1000])) == []
    assert reader.pending == 1000
    target = reader.buffer()
    assert len(target) == len(payload) - 996  # the rest of the payload, no more
    target[:] = payload[996:]
    (got,) = reader.filled(len(target))
    assert got == payload
    assert reader.pending == 0
    # the next read goes to the chunk again
    assert len(reader.buffer()) == 1000


def _put(reader: FrameReader, data: bytes) -> int:
    buf = reader.buffer()
    buf[: len(data)] = data
    return len(data)


def test_reader_many_small_frames_in_one_read() -> None:
    payloads = [b"%d" % i for i in range(5000)]
    stream = b"".join(frame(p) for p in payloads)
    reader = FrameReader(chunk=bytearray(len(stream)))
    assert reader.filled(_put(reader, stream)) == payloads


def test_reader_prefix_in_pieces_and_empty_frames() -> None:
    reader = FrameReader(chunk=bytearray(16))
    assert reader.filled(_put(reader, frame(b"ab") + b"\x00\x00")) == [b"ab"]
    assert reader.pending == 2
    assert len(reader.buffer()) == 2  # only the rest of the prefix
    assert reader.filled(_put(reader, b"\x00\x00")) == [b""]
    assert reader.filled(_put(reader, frame(b"") + frame(b"x"))) == [b"", b"x"]


def test_reader_frames_are_independent_of_the_shared_chunk() -> None:
    chunk = bytearray(64)
    first, second = FrameReader(chunk=chunk), FrameReader(chunk=chunk)
    (a,) = first.filled(_put(first, frame(b"abc")))
    assert second.filled(_put(second, frame(b"xyz") + frame(b"long one")[:6])) == [b"xyz"]
    assert a == b"abc"
    assert second.filled(_put(second, frame(b"long one")[6:])) == [b"long one"]
    a[0:1] = b"A"  # writable, and nobody else's
    assert a == b"Abc"


@pytest.mark.parametrize("size", [-1, -(2**31), DEFAULT_MAX_FRAME_SIZE + 1, 2**31 - 1])
def test_reader_bad_sizes_raise(size: int) -> None:
    reader = FrameReader()
    with pytest.raises(ProtocolError):
        reader.filled(_put(reader, struct.pack(">i", size)))
    reader = FrameReader()
    reader.filled(_put(reader, struct.pack(">i", size)[:1]))
    with pytest.raises(ProtocolError):
        reader.filled(_put(reader, struct.pack(">i", size)[1:]))


def test_reader_chunk_must_hold_a_prefix() -> None:
    with pytest.raises(ValueError):
        FrameReader(chunk=bytearray(3))


@pytest.mark.parametrize("size", [0, 1, 70_000, 3 << 20])
def test_frame_buffers_are_writable_bytearrays_of_the_asked_size(size: int) -> None:
    a, b = allocate_frame_buffer(size), allocate_frame_buffer(size)
    assert type(a) is bytearray and len(a) == size
    a[:] = b"\x01" * size
    b[:] = b"\x02" * size
    assert a == b"\x01" * size and b == b"\x02" * size  # two buffers, not one
