# Generated from BrokerHeartbeatRequest.json (Apache Kafka 3.9) by protocol.codegen.
# Do not edit: change the generator or the spec and run `make gen`.

from __future__ import annotations

import struct as _struct
import uuid  # noqa: F401  (annotations)
from dataclasses import dataclass, field as _field

from protocol.errors import ProtocolError
from protocol.primitives import (
    Reader,
    Writer,
    decode_message,
    encode_message,
    write_tagged_fields,
    write_uvarint,
)

NAME = "BrokerHeartbeatRequest"
API_KEY = 63
TYPE = "request"
VALID_VERSIONS = (0, 1)
FLEXIBLE_VERSIONS = (0, 1)
LISTENERS = ("controller",)
LATEST_VERSION_UNSTABLE = False

_S_iqqxx = _struct.Struct(">iqq??")


@dataclass(slots=True)
class BrokerHeartbeatRequest:
    broker_id: int = 0
    broker_epoch: int = -1
    current_metadata_offset: int = 0
    want_fence: bool = False
    want_shut_down: bool = False
    offline_log_dirs: list[uuid.UUID] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def read_v0(r: Reader) -> BrokerHeartbeatRequest:
    broker_id, broker_epoch, current_metadata_offset, want_fence, want_shut_down = r.unpack(_S_iqqxx)
    unknown_tagged_fields = r.tagged_fields()
    return BrokerHeartbeatRequest(broker_id=broker_id, broker_epoch=broker_epoch, current_metadata_offset=current_metadata_offset, want_fence=want_fence, want_shut_down=want_shut_down, unknown_tagged_fields=unknown_tagged_fields)


def write_v0(w: Writer, m: BrokerHeartbeatRequest) -> None:
    w += _S_iqqxx.pack(m.broker_id, m.broker_epoch, m.current_metadata_offset, m.want_fence, m.want_shut_down)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v1(r: Reader) -> BrokerHeartbeatRequest:
    broker_id, broker_epoch, current_metadata_offset, want_fence, want_shut_down = r.unpack(_S_iqqxx)
    offline_log_dirs = []
    unknown_tagged_fields = None
    for _ in range(r.uvarint()):
        _tag = r.uvarint()
        _size = r.uvarint()
        if _tag == 0:
            _end = r.pos + _size
            _n = r.compact_array_length()
            if _n < 0:
                raise ProtocolError("non-nullable array BrokerHeartbeatRequest.OfflineLogDirs is null")
            offline_log_dirs = [r.uuid() for _ in range(_n)]
            if r.pos != _end:
                raise ProtocolError("tagged field BrokerHeartbeatRequest.OfflineLogDirs does not match its size")
        else:
            unknown_tagged_fields = r.unknown_tag(unknown_tagged_fields, _tag, _size)
    return BrokerHeartbeatRequest(broker_id=broker_id, broker_epoch=broker_epoch, current_metadata_offset=current_metadata_offset, want_fence=want_fence, want_shut_down=want_shut_down, offline_log_dirs=offline_log_dirs, unknown_tagged_fields=unknown_tagged_fields)


def write_v1(w: Writer, m: BrokerHeartbeatRequest) -> None:
    w += _S_iqqxx.pack(m.broker_id, m.broker_epoch, m.current_metadata_offset, m.want_fence, m.want_shut_down)
    _known = []
    if m.offline_log_dirs != []:
        _t = Writer()
        _v = m.offline_log_dirs
        write_uvarint(_t, len(_v) + 1)
        for _e in _v:
            _t += _e.bytes
        _known.append((0, _t))
    write_tagged_fields(w, m.unknown_tagged_fields, _known)


READERS = {0: read_v0, 1: read_v1}
WRITERS = {0: write_v0, 1: write_v1}


def read(r: Reader, version: int) -> BrokerHeartbeatRequest:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: BrokerHeartbeatRequest, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> BrokerHeartbeatRequest:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: BrokerHeartbeatRequest, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
