# Generated from AlterReplicaLogDirsRequest.json (Apache Kafka 3.9) by protocol.codegen.
# Do not edit: change the generator or the spec and run `make gen`.

from __future__ import annotations

import struct as _struct
from dataclasses import dataclass, field as _field

from protocol.errors import ProtocolError
from protocol.primitives import (
    Reader,
    Writer,
    decode_message,
    encode_message,
    write_compact_string,
    write_fixed_array,
    write_string,
    write_tagged_fields,
    write_uvarint,
)

NAME = "AlterReplicaLogDirsRequest"
API_KEY = 34
TYPE = "request"
VALID_VERSIONS = (0, 2)
FLEXIBLE_VERSIONS = (2, 2)
LISTENERS = ("zkBroker", "broker")
LATEST_VERSION_UNSTABLE = False

_S_i = _struct.Struct(">i")


@dataclass(slots=True)
class AlterReplicaLogDirTopic:
    name: str = ""
    partitions: list[int] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class AlterReplicaLogDir:
    path: str = ""
    topics: list[AlterReplicaLogDirTopic] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class AlterReplicaLogDirsRequest:
    dirs: list[AlterReplicaLogDir] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_AlterReplicaLogDirTopic_v0(r: Reader) -> AlterReplicaLogDirTopic:
    name = r.string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array AlterReplicaLogDirsRequest.Partitions is null")
    partitions = r.fixed_array("i", _n)
    return AlterReplicaLogDirTopic(name=name, partitions=partitions)


def _write_AlterReplicaLogDirTopic_v0(w: Writer, m: AlterReplicaLogDirTopic) -> None:
    write_string(w, m.name)
    _v = m.partitions
    w += _S_i.pack(len(_v))
    write_fixed_array(w, "i", _v)


def _read_AlterReplicaLogDirTopic_v2(r: Reader) -> AlterReplicaLogDirTopic:
    name = r.compact_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array AlterReplicaLogDirsRequest.Partitions is null")
    partitions = r.fixed_array("i", _n)
    unknown_tagged_fields = r.tagged_fields()
    return AlterReplicaLogDirTopic(name=name, partitions=partitions, unknown_tagged_fields=unknown_tagged_fields)


def _write_AlterReplicaLogDirTopic_v2(w: Writer, m: AlterReplicaLogDirTopic) -> None:
    write_compact_string(w, m.name)
    _v = m.partitions
    write_uvarint(w, len(_v) + 1)
    write_fixed_array(w, "i", _v)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_AlterReplicaLogDir_v0(r: Reader) -> AlterReplicaLogDir:
    path = r.string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array AlterReplicaLogDirsRequest.Topics is null")
    topics = [_read_AlterReplicaLogDirTopic_v0(r) for _ in range(_n)]
    return AlterReplicaLogDir(path=path, topics=topics)


def _write_AlterReplicaLogDir_v0(w: Writer, m: AlterReplicaLogDir) -> None:
    write_string(w, m.path)
    _v = m.topics
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_AlterReplicaLogDirTopic_v0(w, _e)


def _read_AlterReplicaLogDir_v2(r: Reader) -> AlterReplicaLogDir:
    path = r.compact_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array AlterReplicaLogDirsRequest.Topics is null")
    topics = [_read_AlterReplicaLogDirTopic_v2(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return AlterReplicaLogDir(path=path, topics=topics, unknown_tagged_fields=unknown_tagged_fields)


def _write_AlterReplicaLogDir_v2(w: Writer, m: AlterReplicaLogDir) -> None:
    write_compact_string(w, m.path)
    _v = m.topics
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_AlterReplicaLogDirTopic_v2(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> AlterReplicaLogDirsRequest:
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array AlterReplicaLogDirsRequest.Dirs is null")
    dirs = [_read_AlterReplicaLogDir_v0(r) for _ in range(_n)]
    return AlterReplicaLogDirsRequest(dirs=dirs)


def write_v0(w: Writer, m: AlterReplicaLogDirsRequest) -> None:
    _v = m.dirs
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_AlterReplicaLogDir_v0(w, _e)


def read_v2(r: Reader) -> AlterReplicaLogDirsRequest:
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array AlterReplicaLogDirsRequest.Dirs is null")
    dirs = [_read_AlterReplicaLogDir_v2(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return AlterReplicaLogDirsRequest(dirs=dirs, unknown_tagged_fields=unknown_tagged_fields)


def write_v2(w: Writer, m: AlterReplicaLogDirsRequest) -> None:
    _v = m.dirs
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_AlterReplicaLogDir_v2(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


read_v1 = read_v0
write_v1 = write_v0

READERS = {0: read_v0, 1: read_v1, 2: read_v2}
WRITERS = {0: write_v0, 1: write_v1, 2: write_v2}


def read(r: Reader, version: int) -> AlterReplicaLogDirsRequest:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: AlterReplicaLogDirsRequest, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> AlterReplicaLogDirsRequest:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: AlterReplicaLogDirsRequest, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
