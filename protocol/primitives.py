"""Kafka's wire primitives: a bounds-checked :class:`Reader` and a splice-aware :class:`Writer`.

Everything here is sans-IO and allocation-conscious because the generated message codecs in
:mod:`protocol.messages` call these functions once per field of every request and response.

Reading never trusts a length prefix: lengths are checked against the bytes that are actually
left *before* anything is allocated, and every malformed input surfaces as
:class:`~protocol.errors.ProtocolError` (the connection is then closed by the caller).

Writing appends to a :class:`Writer`, a ``bytearray`` that can also carry *splices*: objects
that stand for bytes which are not copied into the buffer (for example a region of a segment
file a Fetch response sends with ``sendfile``).  See :meth:`Writer.splice`.
"""

from __future__ import annotations

import struct
import uuid
from collections.abc import Iterator, Sequence, Sized
from typing import Any, Protocol, TypeAlias

from protocol.errors import ProtocolError

__all__ = [
    "MAX_STRING_LENGTH",
    "ZERO_UUID",
    "Reader",
    "RecordsData",
    "Splice",
    "Writer",
]

ZERO_UUID = uuid.UUID(int=0)
MAX_STRING_LENGTH = 0x7FFF


class Splice(Protocol):
    """Bytes a :class:`Writer` records instead of copying (a file region): their length, and
    the bytes themselves for :meth:`Writer.to_bytes`."""

    def __len__(self) -> int: ...

    def __bytes__(self) -> bytes: ...


#: What a ``records`` field may hold when writing: bytes-like data is copied into the buffer;
#: any other object (a file region) is recorded as a splice.  Decoding yields memoryviews.
RecordsData: TypeAlias = "bytes | bytearray | memoryview | Splice"

_I8 = struct.Struct(">b")
_I16 = struct.Struct(">h")
_I32 = struct.Struct(">i")
_I64 = struct.Struct(">q")
_U16 = struct.Struct(">H")
_U32 = struct.Struct(">I")
_F64 = struct.Struct(">d")
_BOOL = struct.Struct(">?")

_i8_pack = _I8.pack
_i16_pack = _I16.pack
_i32_pack = _I32.pack
_i64_pack = _I64.pack
_u16_pack = _U16.pack
_u32_pack = _U32.pack
_f64_pack = _F64.pack

_TRUE = b"\x01"
_FALSE = b"\x00"
_NULL16 = b"\xff\xff"
_NULL32 = b"\xff\xff\xff\xff"


def _short(what: str, need: int, have: int) -> ProtocolError:
    return ProtocolError(f"short buffer reading {what}: need {need} bytes, {have} left")


class Reader:
    """A cursor over a received frame.

    ``buf`` is a memoryview of the input (never copied) and ``pos`` the offset of the next
    byte; callers may save and restore ``pos`` to peek.
    """

    __slots__ = ("buf", "pos", "end")

    def __init__(self, data: bytes | bytearray | memoryview, pos: int = 0) -> None:
        buf = memoryview(data)
        if buf.ndim != 1 or buf.itemsize != 1:
            buf = buf.cast("B")
        self.buf = buf
        self.pos = pos
        self.end = len(buf)

    def remaining(self) -> int:
        return self.end - self.pos

    # -- fixed width (written out: these are the hottest calls) ---------------------------

    def int8(self) -> int:
        pos = self.pos
        try:
            value = _I8.unpack_from(self.buf, pos)[0]
        except struct.error:
            raise _short("int8", _I8.size, self.end - pos) from None
        self.pos = pos + _I8.size
        return value

    def int16(self) -> int:
        pos = self.pos
        try:
            value = _I16.unpack_from(self.buf, pos)[0]
        except struct.error:
            raise _short("int16", _I16.size, self.end - pos) from None
        self.pos = pos + _I16.size
        return value

    def int32(self) -> int:
        pos = self.pos
        try:
            value = _I32.unpack_from(self.buf, pos)[0]
        except struct.error:
            raise _short("int32", _I32.size, self.end - pos) from None
        self.pos = pos + _I32.size
        return value

    def int64(self) -> int:
        pos = self.pos
        try:
            value = _I64.unpack_from(self.buf, pos)[0]
        except struct.error:
            raise _short("int64", _I64.size, self.end - pos) from None
        self.pos = pos + _I64.size
        return value

    def uint16(self) -> int:
        pos = self.pos
        try:
            value = _U16.unpack_from(self.buf, pos)[0]
        except struct.error:
            raise _short("uint16", _U16.size, self.end - pos) from None
        self.pos = pos + _U16.size
        return value

    def uint32(self) -> int:
        pos = self.pos
        try:
            value = _U32.unpack_from(self.buf, pos)[0]
        except struct.error:
            raise _short("uint32", _U32.size, self.end - pos) from None
        self.pos = pos + _U32.size
        return value

    def float64(self) -> float:
        pos = self.pos
        try:
            value = _F64.unpack_from(self.buf, pos)[0]
        except struct.error:
            raise _short("float64", _F64.size, self.end - pos) from None
        self.pos = pos + _F64.size
        return value

    def boolean(self) -> bool:
        pos = self.pos
        try:
            value = _BOOL.unpack_from(self.buf, pos)[0]
        except struct.error:
            raise _short("boolean", _BOOL.size, self.end - pos) from None
        self.pos = pos + _BOOL.size
        return value

    def unpack(self, st: struct.Struct) -> tuple:
        """Read a run of fixed-width fields with one precompiled struct (used by generated code)."""
        pos = self.pos
        try:
            values = st.unpack_from(self.buf, pos)
        except struct.error:
            raise _short("fixed-width fields", st.size, self.end - pos) from None
        self.pos = pos + st.size
        return values

    def uuid(self) -> uuid.UUID:
        pos = self.pos
        end = pos + 16
        if end > self.end:
            raise _short("uuid", 16, self.end - pos)
        self.pos = end
        return uuid.UUID(bytes=bytes(self.buf[pos:end]))

    # -- varints -----------------------------------------------------------------------

    def _unsigned(self, max_bytes: int, what: str) -> int:
        buf = self.buf
        pos = self.pos
        end = self.end
        value = 0
        shift = 0
        for i in range(max_bytes):
            if pos >= end:
                raise _short(what, i + 1, i)
            b = buf[pos]
            pos += 1
            value |= (b & 0x7F) << shift
            if not b & 0x80:
                self.pos = pos
                return value
            shift += 7
        raise ProtocolError(f"{what} longer than {max_bytes} bytes")

    def uvarint(self) -> int:
        # Fast path: most unsigned varints on the wire (lengths, tag counts) fit in one byte.
        pos = self.pos
        if pos < self.end:
            b = self.buf[pos]
            if b < 0x80:
                self.pos = pos + 1
                return b
        value = self._unsigned(5, "unsigned varint")
        if value > 0xFFFFFFFF:
            raise ProtocolError("unsigned varint does not fit in 32 bits")
        return value

    def uvarlong(self) -> int:
        value = self._unsigned(10, "unsigned varlong")
        if value > 0xFFFFFFFFFFFFFFFF:
            raise ProtocolError("unsigned varlong does not fit in 64 bits")
        return value

    def varint(self) -> int:
        value = self._unsigned(5, "varint")
        if value > 0xFFFFFFFF:
            raise ProtocolError("varint does not fit in 32 bits")
        return (value >> 1) ^ -(value & 1)

    def varlong(self) -> int:
        value = self._unsigned(10, "varlong")
        if value > 0xFFFFFFFFFFFFFFFF:
            raise ProtocolError("varlong does not fit in 64 bits")
        return (value >> 1) ^ -(value & 1)

    # -- variable length -----------------------------------------------------------------

    def _take(self, n: int, what: str) -> memoryview:
        pos = self.pos
        end = pos + n
        if end > self.end:
            raise ProtocolError(f"{what} of length {n} exceeds the {self.end - pos} bytes left")
        self.pos = end
        return self.buf[pos:end]

    def _text(self, n: int) -> str:
        if n > MAX_STRING_LENGTH:
            raise ProtocolError(f"string length {n} exceeds {MAX_STRING_LENGTH}")
        try:
            return str(self._take(n, "string"), "utf-8")
        except UnicodeDecodeError as exc:
            raise ProtocolError(f"string is not valid UTF-8: {exc}") from None

    def string(self) -> str:
        n = self.int16()
        if n < 0:
            raise ProtocolError("non-nullable string is null")
        return self._text(n)

    def nullable_string(self) -> str | None:
        n = self.int16()
        if n < 0:
            if n != -1:
                raise ProtocolError(f"negative string length {n}")
            return None
        return self._text(n)

    def compact_string(self) -> str:
        n = self.uvarint() - 1
        if n < 0:
            raise ProtocolError("non-nullable compact string is null")
        return self._text(n)

    def compact_nullable_string(self) -> str | None:
        n = self.uvarint() - 1
        if n < 0:
            return None
        return self._text(n)

    def bytes_(self) -> bytes:
        n = self.int32()
        if n < 0:
            raise ProtocolError("non-nullable bytes field is null")
        return bytes(self._take(n, "bytes"))

    def nullable_bytes(self) -> bytes | None:
        n = self.int32()
        if n < 0:
            if n != -1:
                raise ProtocolError(f"negative bytes length {n}")
            return None
        return bytes(self._take(n, "bytes"))

    def compact_bytes(self) -> bytes:
        n = self.uvarint() - 1
        if n < 0:
            raise ProtocolError("non-nullable compact bytes field is null")
        return bytes(self._take(n, "bytes"))

    def compact_nullable_bytes(self) -> bytes | None:
        n = self.uvarint() - 1
        if n < 0:
            return None
        return bytes(self._take(n, "bytes"))

    def records(self) -> memoryview | None:
        """A zero-copy view of a record set (int32 length, -1 = null)."""
        n = self.int32()
        if n < 0:
            if n != -1:
                raise ProtocolError(f"negative records length {n}")
            return None
        return self._take(n, "records")

    def compact_records(self) -> memoryview | None:
        n = self.uvarint() - 1
        if n < 0:
            return None
        return self._take(n, "records")

    # -- arrays --------------------------------------------------------------------------

    def array_length(self) -> int:
        """An int32 element count; -1 means null.  Each element takes at least one byte, so a
        count larger than what is left is rejected before any list is built."""
        n = self.int32()
        if n < 0:
            if n != -1:
                raise ProtocolError(f"negative array length {n}")
            return -1
        if n > self.end - self.pos:
            raise ProtocolError(f"array of {n} elements exceeds the {self.end - self.pos} bytes left")
        return n

    def compact_array_length(self) -> int:
        """An unsigned varint element count plus one; -1 means null."""
        n = self.uvarint() - 1
        if n > self.end - self.pos:
            raise ProtocolError(f"array of {n} elements exceeds the {self.end - self.pos} bytes left")
        return n

    def fixed_array(self, code: str, n: int) -> list:
        """``n`` fixed-width numbers in one unpack; ``code`` is a struct format character."""
        st = struct.Struct(f">{n}{code}")
        return list(self.unpack(st))

    # -- tagged fields -------------------------------------------------------------------

    def unknown_tag(
        self, fields: list[tuple[int, bytes]] | None, tag: int, size: int
    ) -> list[tuple[int, bytes]]:
        """Keep the raw bytes of a tag this version does not know, so it can be written back."""
        data = bytes(self._take(size, "tagged field"))
        if fields is None:
            return [(tag, data)]
        fields.append((tag, data))
        return fields

    def tagged_fields(self) -> list[tuple[int, bytes]] | None:
        """Read a tagged-field section where no tag is known; None when the section is empty."""
        count = self.uvarint()
        if not count:
            return None
        fields: list[tuple[int, bytes]] = []
        for _ in range(count):
            tag = self.uvarint()
            size = self.uvarint()
            fields.append((tag, bytes(self._take(size, "tagged field"))))
        return fields


class Writer(bytearray):
    """An output buffer that generated writers append to with ``+=``.

    ``splices`` lists ``(offset, obj)`` pairs: at ``offset`` in the buffer the sender must emit
    ``len(obj)`` bytes taken from ``obj`` instead of anything stored here.  A Fetch response thus
    embeds segment-file regions without copying them; the network layer walks
    :meth:`chunks` and hands splices to ``sendfile``.  :meth:`to_bytes` materialises splices with
    ``bytes(obj)`` for callers (and tests) that want one contiguous value.
    """

    __slots__ = ("splices",)

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.splices: list[tuple[int, Splice]] = []

    def splice(self, obj: Splice) -> None:
        self.splices.append((len(self), obj))

    def total_size(self) -> int:
        """Bytes on the wire: the buffer plus every spliced object."""
        return len(self) + sum(len(obj) for _, obj in self.splices)

    def chunks(self) -> Iterator[memoryview | Splice]:
        """Buffer pieces (memoryviews) and spliced objects in wire order."""
        view = memoryview(self)
        start = 0
        for offset, obj in self.splices:
            if offset > start:
                yield view[start:offset]
            yield obj
            start = offset
        if start < len(self):
            yield view[start:]

    def to_bytes(self) -> bytes:
        if not self.splices:
            return bytes(self)
        return b"".join(bytes(chunk) for chunk in self.chunks())


# -- write functions (module level so generated code can bind them as globals) --------------


def write_int8(w: Writer, v: int) -> None:
    w += _i8_pack(v)


def write_int16(w: Writer, v: int) -> None:
    w += _i16_pack(v)


def write_int32(w: Writer, v: int) -> None:
    w += _i32_pack(v)


def write_int64(w: Writer, v: int) -> None:
    w += _i64_pack(v)


def write_uint16(w: Writer, v: int) -> None:
    w += _u16_pack(v)


def write_uint32(w: Writer, v: int) -> None:
    w += _u32_pack(v)


def write_float64(w: Writer, v: float) -> None:
    w += _f64_pack(v)


def write_boolean(w: Writer, v: bool) -> None:
    w += _TRUE if v else _FALSE


def write_uuid(w: Writer, v: uuid.UUID) -> None:
    w += v.bytes


def write_uvarint(w: Writer, v: int) -> None:
    if 0 <= v < 0x80:
        w.append(v)
        return
    if v < 0 or v > 0xFFFFFFFF:
        raise ValueError(f"unsigned varint out of range: {v}")
    _write_unsigned(w, v)


def write_uvarlong(w: Writer, v: int) -> None:
    if v < 0 or v > 0xFFFFFFFFFFFFFFFF:
        raise ValueError(f"unsigned varlong out of range: {v}")
    _write_unsigned(w, v)


def write_varint(w: Writer, v: int) -> None:
    if not -0x80000000 <= v <= 0x7FFFFFFF:
        raise ValueError(f"varint out of range: {v}")
    _write_unsigned(w, ((v << 1) ^ (v >> 31)) & 0xFFFFFFFF)


def write_varlong(w: Writer, v: int) -> None:
    if not -0x8000000000000000 <= v <= 0x7FFFFFFFFFFFFFFF:
        raise ValueError(f"varlong out of range: {v}")
    _write_unsigned(w, ((v << 1) ^ (v >> 63)) & 0xFFFFFFFFFFFFFFFF)


def _write_unsigned(w: Writer, v: int) -> None:
    while v >= 0x80:
        w.append((v & 0x7F) | 0x80)
        v >>= 7
    w.append(v)


def _utf8(v: str) -> bytes:
    data = v.encode("utf-8")
    if len(data) > MAX_STRING_LENGTH:
        raise ValueError(f"string of {len(data)} bytes exceeds {MAX_STRING_LENGTH}")
    return data


def write_string(w: Writer, v: str) -> None:
    data = _utf8(v)
    w += _i16_pack(len(data))
    w += data


def write_nullable_string(w: Writer, v: str | None) -> None:
    if v is None:
        w += _NULL16
    else:
        write_string(w, v)


def write_compact_string(w: Writer, v: str) -> None:
    data = _utf8(v)
    write_uvarint(w, len(data) + 1)
    w += data


def write_compact_nullable_string(w: Writer, v: str | None) -> None:
    if v is None:
        w.append(0)
    else:
        write_compact_string(w, v)


def write_bytes(w: Writer, v: bytes | bytearray | memoryview) -> None:
    w += _i32_pack(len(v))
    w += v


def write_nullable_bytes(w: Writer, v: bytes | bytearray | memoryview | None) -> None:
    if v is None:
        w += _NULL32
    else:
        write_bytes(w, v)


def write_compact_bytes(w: Writer, v: bytes | bytearray | memoryview) -> None:
    write_uvarint(w, len(v) + 1)
    w += v


def write_compact_nullable_bytes(w: Writer, v: bytes | bytearray | memoryview | None) -> None:
    if v is None:
        w.append(0)
    else:
        write_compact_bytes(w, v)


def write_records(w: Writer, v: RecordsData | None) -> None:
    """int32 length then the records.  Bytes-like values are copied; any other sized object is
    recorded with :meth:`Writer.splice` and its bytes are left to the sender."""
    if v is None:
        w += _NULL32
        return
    w += _i32_pack(len(v))
    if isinstance(v, (bytes, bytearray, memoryview)):
        w += v
    else:
        w.splice(v)


def write_compact_records(w: Writer, v: RecordsData | None) -> None:
    """Flexible-version form of :func:`write_records` (unsigned varint length plus one)."""
    if v is None:
        w.append(0)
        return
    write_uvarint(w, len(v) + 1)
    if isinstance(v, (bytes, bytearray, memoryview)):
        w += v
    else:
        w.splice(v)


def write_array_length(w: Writer, v: Sized | None) -> None:
    w += _NULL32 if v is None else _i32_pack(len(v))


def write_compact_array_length(w: Writer, v: Sized | None) -> None:
    if v is None:
        w.append(0)
    else:
        write_uvarint(w, len(v) + 1)


def write_fixed_array(w: Writer, code: str, v: list) -> None:
    """The elements of an array of fixed-width numbers, packed in one call."""
    w += struct.pack(f">{len(v)}{code}", *v)


def _tag_of(field: tuple[int, object]) -> int:
    return field[0]


def write_tagged_fields(
    w: Writer,
    unknown: Sequence[tuple[int, bytes]] | None,
    known: Sequence[tuple[int, bytes | bytearray]] | None = None,
) -> None:
    """Write a tagged-field section: ``known`` holds already-encoded values of the message's own
    tags, ``unknown`` the raw tags kept from decoding.  Tags go out in ascending order."""
    fields: Sequence[tuple[int, bytes | bytearray]]
    if known:
        fields = sorted([*known, *unknown], key=_tag_of) if unknown else known
    elif unknown:
        fields = unknown
    else:
        w.append(0)
        return
    write_uvarint(w, len(fields))
    for tag, data in fields:
        write_uvarint(w, tag)
        write_uvarint(w, len(data))
        w += data


# -- entry points shared by every generated module ------------------------------------------

_DECODE_ERRORS = (struct.error, UnicodeDecodeError, ValueError, IndexError, OverflowError, MemoryError)


def decode_message(readers: dict, name: str, data: bytes | bytearray | memoryview,
                   version: int) -> Any:
    """Decode all of ``data`` with ``readers[version]``; trailing bytes are an error."""
    reader = readers.get(version)
    if reader is None:
        raise ProtocolError(f"unsupported {name} version {version}")
    r = Reader(data)
    try:
        message = reader(r)
    except ProtocolError:
        raise
    except _DECODE_ERRORS as exc:
        raise ProtocolError(f"malformed {name} v{version}: {exc}") from exc
    if r.pos != r.end:
        raise ProtocolError(f"{r.end - r.pos} trailing bytes after {name} v{version}")
    return message


def encode_message(writers: dict, name: str, message: object, version: int) -> bytes:
    """Encode ``message`` into one contiguous value (splices materialised)."""
    writer = writers.get(version)
    if writer is None:
        raise ValueError(f"unsupported {name} version {version}")
    w = Writer()
    writer(w, message)
    return w.to_bytes()
