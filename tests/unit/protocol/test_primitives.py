"""Wire primitives: varint edges, compact and nullable forms, and rejection of bad input."""

from __future__ import annotations

import uuid

import pytest

from protocol import primitives as p
from protocol.errors import ProtocolError
from protocol.primitives import Reader, Writer


def written(fn, *args) -> bytes:
    w = Writer()
    fn(w, *args)
    return bytes(w)


@pytest.mark.parametrize(
    ("value", "encoded"),
    [
        (0, b"\x00"),
        (-1, b"\x01"),
        (1, b"\x02"),
        (63, b"\x7e"),
        (-64, b"\x7f"),
        (64, b"\x80\x01"),
        (2**31 - 1, b"\xfe\xff\xff\xff\x0f"),
        (-(2**31), b"\xff\xff\xff\xff\x0f"),
    ],
)
def test_varint_zigzag(value, encoded):
    assert written(p.write_varint, value) == encoded
    r = Reader(encoded)
    assert r.varint() == value
    assert r.remaining() == 0


@pytest.mark.parametrize("value", [0, 1, -1, 2**63 - 1, -(2**63), 2**31, -(2**31) - 1, 300])
def test_varlong_roundtrip(value):
    data = written(p.write_varlong, value)
    assert len(data) <= 10
    assert Reader(data).varlong() == value


def test_varlong_extremes_bytes():
    assert written(p.write_varlong, -(2**63)) == b"\xff" * 9 + b"\x01"
    assert written(p.write_varlong, 2**63 - 1) == b"\xfe" + b"\xff" * 8 + b"\x01"


@pytest.mark.parametrize(("value", "encoded"), [(0, b"\x00"), (127, b"\x7f"), (128, b"\x80\x01"), (300, b"\xac\x02"), (2**32 - 1, b"\xff\xff\xff\xff\x0f")])
def test_unsigned_varint(value, encoded):
    assert written(p.write_uvarint, value) == encoded
    assert Reader(encoded).uvarint() == value


def test_uvarlong_roundtrip():
    for value in (0, 1, 2**35, 2**64 - 1):
        assert Reader(written(p.write_uvarlong, value)).uvarlong() == value


def test_varint_out_of_range_on_write():
    with pytest.raises(ValueError):
        written(p.write_varint, 2**31)
    with pytest.raises(ValueError):
        written(p.write_uvarint, -1)
    with pytest.raises(ValueError):
        written(p.write_varlong, 2**63)


@pytest.mark.parametrize(
    ("method", "data"),
    [
        ("uvarint", b"\x80\x80\x80\x80\x80\x01"),  # six bytes
        ("uvarint", b"\xff\xff\xff\xff\x1f"),  # 33 bits
        ("varint", b"\x80\x80\x80\x80\x80"),
        ("varlong", b"\x80" * 10 + b"\x01"),
        ("uvarint", b"\x80"),  # truncated
        ("varlong", b""),
    ],
)
def test_bad_varints(method, data):
    with pytest.raises(ProtocolError):
        getattr(Reader(data), method)()


def test_fixed_width_roundtrip():
    w = Writer()
    p.write_int8(w, -128)
    p.write_int16(w, -2)
    p.write_int32(w, 2**31 - 1)
    p.write_int64(w, -(2**63))
    p.write_uint16(w, 65535)
    p.write_uint32(w, 2**32 - 1)
    p.write_float64(w, 1.5)
    p.write_boolean(w, True)
    u = uuid.uuid4()
    p.write_uuid(w, u)
    r = Reader(bytes(w))
    assert [r.int8(), r.int16(), r.int32(), r.int64(), r.uint16(), r.uint32(), r.float64(), r.boolean(), r.uuid()] == [
        -128, -2, 2**31 - 1, -(2**63), 65535, 2**32 - 1, 1.5, True, u,
    ]
    assert r.remaining() == 0


def test_short_buffers_raise_protocol_error():
    for method in ("int8", "int16", "int32", "int64", "uint16", "uint32", "float64", "boolean", "uuid"):
        with pytest.raises(ProtocolError):
            getattr(Reader(b""), method)()
    with pytest.raises(ProtocolError):
        Reader(b"\x00\x00\x00").int32()


def test_strings_in_all_forms():
    assert written(p.write_string, "ab") == b"\x00\x02ab"
    assert written(p.write_nullable_string, None) == b"\xff\xff"
    assert written(p.write_compact_string, "ab") == b"\x03ab"
    assert written(p.write_compact_nullable_string, None) == b"\x00"
    assert written(p.write_compact_string, "") == b"\x01"
    assert Reader(b"\x00\x02ab").string() == "ab"
    assert Reader(b"\xff\xff").nullable_string() is None
    assert Reader(b"\x03ab").compact_string() == "ab"
    assert Reader(b"\x00").compact_nullable_string() is None
    assert Reader(b"\x03" + "é".encode()).compact_string() == "é"


@pytest.mark.parametrize(
    ("method", "data"),
    [
        ("string", b"\xff\xff"),  # null for a non-nullable string
        ("compact_string", b"\x00"),
        ("string", b"\x00\x05ab"),  # longer than what is left
        ("compact_string", b"\x05ab"),
        ("nullable_string", b"\xff\xfe"),  # -2
        ("string", b"\x00\x02\xff\xfe"),  # not UTF-8
        ("compact_nullable_string", b"\x03\xc3\x28"),
        ("bytes_", b"\xff\xff\xff\xff"),
        ("bytes_", b"\x7f\xff\xff\xff"),  # 2 GiB claimed, nothing there: no allocation
        ("nullable_bytes", b"\xff\xff\xff\xfe"),
        ("compact_bytes", b"\x00"),
        ("compact_bytes", b"\xff\xff\xff\xff\x0f"),
        ("records", b"\x00\x00\x00\x09abc"),
        ("records", b"\x80\x00\x00\x00"),
    ],
)
def test_bad_variable_length_fields(method, data):
    with pytest.raises(ProtocolError):
        getattr(Reader(data), method)()


def test_compact_string_longer_than_kafka_allows():
    data = written(p.write_uvarint, 0x8000 + 1) + b"a" * 0x8000
    with pytest.raises(ProtocolError):
        Reader(data).compact_string()
    with pytest.raises(ValueError):
        written(p.write_string, "a" * 0x8000)


def test_bytes_in_all_forms():
    assert written(p.write_bytes, b"xy") == b"\x00\x00\x00\x02xy"
    assert written(p.write_nullable_bytes, None) == b"\xff\xff\xff\xff"
    assert written(p.write_compact_bytes, b"xy") == b"\x03xy"
    assert written(p.write_compact_nullable_bytes, None) == b"\x00"
    assert Reader(b"\x00\x00\x00\x02xy").bytes_() == b"xy"
    assert Reader(b"\xff\xff\xff\xff").nullable_bytes() is None
    assert Reader(b"\x03xy").compact_bytes() == b"xy"
    assert Reader(b"\x00").compact_nullable_bytes() is None


def test_records_are_zero_copy_views():
    frame = bytearray(b"\x00\x00\x00\x03abc\x04xyz\x00\xff\xff\xff\xff")
    r = Reader(frame)
    view = r.records()
    assert isinstance(view, memoryview) and view == b"abc"
    assert view.obj is frame  # a slice of the frame, not a copy
    assert r.compact_records() == b"xyz"
    assert r.compact_records() is None
    assert r.records() is None


def test_array_lengths():
    assert Reader(b"\xff\xff\xff\xff").array_length() == -1
    assert Reader(b"\x00").compact_array_length() == -1
    assert Reader(b"\x03ab").compact_array_length() == 2
    with pytest.raises(ProtocolError):
        Reader(b"\x00\x00\x00\x05abcd").array_length()  # five elements cannot fit in four bytes
    with pytest.raises(ProtocolError):
        Reader(b"\xff\xff\xff\xfe").array_length()
    with pytest.raises(ProtocolError):
        Reader(b"\xff\xff\xff\xff\x0f").compact_array_length()
    assert written(p.write_array_length, None) == b"\xff\xff\xff\xff"
    assert written(p.write_compact_array_length, [1, 2]) == b"\x03"
    assert Reader(written(p.write_fixed_array, "i", [1, -1])).fixed_array("i", 2) == [1, -1]


def test_tagged_fields_sections():
    assert Reader(b"\x00").tagged_fields() is None
    assert Reader(b"\x02\x01\x01a\x05\x00").tagged_fields() == [(1, b"a"), (5, b"")]
    with pytest.raises(ProtocolError):
        Reader(b"\x01\x01\x05a").tagged_fields()
    assert written(p.write_tagged_fields, None) == b"\x00"
    assert written(p.write_tagged_fields, [(9, b"z")], [(2, b"k")]) == b"\x02\x02\x01k\x09\x01z"


class Region:
    def __init__(self, n: int) -> None:
        self.n = n

    def __len__(self) -> int:
        return self.n

    def __bytes__(self) -> bytes:
        return b"R" * self.n


def test_writer_splices():
    w = Writer()
    p.write_int16(w, 1)
    region = Region(3)
    p.write_records(w, region)
    p.write_compact_records(w, b"cp")
    p.write_compact_records(w, Region(2))
    p.write_int8(w, 9)
    assert bytes(w) == b"\x00\x01" + b"\x00\x00\x00\x03" + b"\x03cp" + b"\x03" + b"\x09"
    assert [(off, type(o)) for off, o in w.splices] == [(6, Region), (10, Region)]
    assert w.splices[0][1] is region
    assert w.total_size() == len(w) + 5
    assert w.to_bytes() == b"\x00\x01\x00\x00\x00\x03RRR\x03cp\x03RR\x09"
    assert [bytes(c) for c in w.chunks()] == [b"\x00\x01\x00\x00\x00\x03", b"RRR", b"\x03cp\x03", b"RR", b"\x09"]
    assert written(p.write_records, None) == b"\xff\xff\xff\xff"
    assert written(p.write_compact_records, None) == b"\x00"


def test_reader_accepts_memoryviews_and_offsets():
    r = Reader(memoryview(b"..\x00\x07"), pos=2)
    assert r.int16() == 7
    assert p.ZERO_UUID == uuid.UUID(int=0)
