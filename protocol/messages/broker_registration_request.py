# Generated from BrokerRegistrationRequest.json (Apache Kafka 3.9) by protocol.codegen.
# Do not edit: change the generator or the spec and run `make gen`.

from __future__ import annotations

import struct as _struct
import uuid  # noqa: F401  (annotations)
from dataclasses import dataclass, field as _field

from protocol.errors import ProtocolError
from protocol.primitives import (
    Reader,
    Writer,
    ZERO_UUID,
    decode_message,
    encode_message,
    write_compact_nullable_string,
    write_compact_string,
    write_tagged_fields,
    write_uvarint,
)

NAME = "BrokerRegistrationRequest"
API_KEY = 62
TYPE = "request"
VALID_VERSIONS = (0, 4)
FLEXIBLE_VERSIONS = (0, 4)
LISTENERS = ("controller",)
LATEST_VERSION_UNSTABLE = False

_S_Hh = _struct.Struct(">Hh")
_S_hh = _struct.Struct(">hh")
_S_i = _struct.Struct(">i")
_S_q = _struct.Struct(">q")
_S_x = _struct.Struct(">?")


@dataclass(slots=True)
class Listener:
    name: str = ""
    host: str = ""
    port: int = 0
    security_protocol: int = 0
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class Feature:
    name: str = ""
    min_supported_version: int = 0
    max_supported_version: int = 0
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class BrokerRegistrationRequest:
    broker_id: int = 0
    cluster_id: str = ""
    incarnation_id: uuid.UUID = ZERO_UUID
    listeners: list[Listener] = _field(default_factory=list)
    features: list[Feature] = _field(default_factory=list)
    rack: str | None = ""
    is_migrating_zk_broker: bool = False
    log_dirs: list[uuid.UUID] = _field(default_factory=list)
    previous_broker_epoch: int = -1
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_Listener_v0(r: Reader) -> Listener:
    name = r.compact_string()
    host = r.compact_string()
    port, security_protocol = r.unpack(_S_Hh)
    unknown_tagged_fields = r.tagged_fields()
    return Listener(name=name, host=host, port=port, security_protocol=security_protocol, unknown_tagged_fields=unknown_tagged_fields)


def _write_Listener_v0(w: Writer, m: Listener) -> None:
    write_compact_string(w, m.name)
    write_compact_string(w, m.host)
    w += _S_Hh.pack(m.port, m.security_protocol)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_Feature_v0(r: Reader) -> Feature:
    name = r.compact_string()
    min_supported_version, max_supported_version = r.unpack(_S_hh)
    unknown_tagged_fields = r.tagged_fields()
    return Feature(name=name, min_supported_version=min_supported_version, max_supported_version=max_supported_version, unknown_tagged_fields=unknown_tagged_fields)


def _write_Feature_v0(w: Writer, m: Feature) -> None:
    write_compact_string(w, m.name)
    w += _S_hh.pack(m.min_supported_version, m.max_supported_version)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> BrokerRegistrationRequest:
    broker_id = r.int32()
    cluster_id = r.compact_string()
    incarnation_id = r.uuid()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array BrokerRegistrationRequest.Listeners is null")
    listeners = [_read_Listener_v0(r) for _ in range(_n)]
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array BrokerRegistrationRequest.Features is null")
    features = [_read_Feature_v0(r) for _ in range(_n)]
    rack = r.compact_nullable_string()
    unknown_tagged_fields = r.tagged_fields()
    return BrokerRegistrationRequest(broker_id=broker_id, cluster_id=cluster_id, incarnation_id=incarnation_id, listeners=listeners, features=features, rack=rack, unknown_tagged_fields=unknown_tagged_fields)


def write_v0(w: Writer, m: BrokerRegistrationRequest) -> None:
    w += _S_i.pack(m.broker_id)
    write_compact_string(w, m.cluster_id)
    w += m.incarnation_id.bytes
    _v = m.listeners
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_Listener_v0(w, _e)
    _v = m.features
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_Feature_v0(w, _e)
    write_compact_nullable_string(w, m.rack)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v1(r: Reader) -> BrokerRegistrationRequest:
    broker_id = r.int32()
    cluster_id = r.compact_string()
    incarnation_id = r.uuid()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array BrokerRegistrationRequest.Listeners is null")
    listeners = [_read_Listener_v0(r) for _ in range(_n)]
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array BrokerRegistrationRequest.Features is null")
    features = [_read_Feature_v0(r) for _ in range(_n)]
    rack = r.compact_nullable_string()
    is_migrating_zk_broker = r.boolean()
    unknown_tagged_fields = r.tagged_fields()
    return BrokerRegistrationRequest(broker_id=broker_id, cluster_id=cluster_id, incarnation_id=incarnation_id, listeners=listeners, features=features, rack=rack, is_migrating_zk_broker=is_migrating_zk_broker, unknown_tagged_fields=unknown_tagged_fields)


def write_v1(w: Writer, m: BrokerRegistrationRequest) -> None:
    w += _S_i.pack(m.broker_id)
    write_compact_string(w, m.cluster_id)
    w += m.incarnation_id.bytes
    _v = m.listeners
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_Listener_v0(w, _e)
    _v = m.features
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_Feature_v0(w, _e)
    write_compact_nullable_string(w, m.rack)
    w += _S_x.pack(m.is_migrating_zk_broker)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v2(r: Reader) -> BrokerRegistrationRequest:
    broker_id = r.int32()
    cluster_id = r.compact_string()
    incarnation_id = r.uuid()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array BrokerRegistrationRequest.Listeners is null")
    listeners = [_read_Listener_v0(r) for _ in range(_n)]
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array BrokerRegistrationRequest.Features is null")
    features = [_read_Feature_v0(r) for _ in range(_n)]
    rack = r.compact_nullable_string()
    is_migrating_zk_broker = r.boolean()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array BrokerRegistrationRequest.LogDirs is null")
    log_dirs = [r.uuid() for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return BrokerRegistrationRequest(broker_id=broker_id, cluster_id=cluster_id, incarnation_id=incarnation_id, listeners=listeners, features=features, rack=rack, is_migrating_zk_broker=is_migrating_zk_broker, log_dirs=log_dirs, unknown_tagged_fields=unknown_tagged_fields)


def write_v2(w: Writer, m: BrokerRegistrationRequest) -> None:
    w += _S_i.pack(m.broker_id)
    write_compact_string(w, m.cluster_id)
    w += m.incarnation_id.bytes
    _v = m.listeners
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_Listener_v0(w, _e)
    _v = m.features
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_Feature_v0(w, _e)
    write_compact_nullable_string(w, m.rack)
    w += _S_x.pack(m.is_migrating_zk_broker)
    _v = m.log_dirs
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        w += _e.bytes
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v3(r: Reader) -> BrokerRegistrationRequest:
    broker_id = r.int32()
    cluster_id = r.compact_string()
    incarnation_id = r.uuid()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array BrokerRegistrationRequest.Listeners is null")
    listeners = [_read_Listener_v0(r) for _ in range(_n)]
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array BrokerRegistrationRequest.Features is null")
    features = [_read_Feature_v0(r) for _ in range(_n)]
    rack = r.compact_nullable_string()
    is_migrating_zk_broker = r.boolean()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array BrokerRegistrationRequest.LogDirs is null")
    log_dirs = [r.uuid() for _ in range(_n)]
    previous_broker_epoch = r.int64()
    unknown_tagged_fields = r.tagged_fields()
    return BrokerRegistrationRequest(broker_id=broker_id, cluster_id=cluster_id, incarnation_id=incarnation_id, listeners=listeners, features=features, rack=rack, is_migrating_zk_broker=is_migrating_zk_broker, log_dirs=log_dirs, previous_broker_epoch=previous_broker_epoch, unknown_tagged_fields=unknown_tagged_fields)


def write_v3(w: Writer, m: BrokerRegistrationRequest) -> None:
    w += _S_i.pack(m.broker_id)
    write_compact_string(w, m.cluster_id)
    w += m.incarnation_id.bytes
    _v = m.listeners
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_Listener_v0(w, _e)
    _v = m.features
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_Feature_v0(w, _e)
    write_compact_nullable_string(w, m.rack)
    w += _S_x.pack(m.is_migrating_zk_broker)
    _v = m.log_dirs
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        w += _e.bytes
    w += _S_q.pack(m.previous_broker_epoch)
    write_tagged_fields(w, m.unknown_tagged_fields)


read_v4 = read_v3
write_v4 = write_v3

READERS = {0: read_v0, 1: read_v1, 2: read_v2, 3: read_v3, 4: read_v4}
WRITERS = {0: write_v0, 1: write_v1, 2: write_v2, 3: write_v3, 4: write_v4}


def read(r: Reader, version: int) -> BrokerRegistrationRequest:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: BrokerRegistrationRequest, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> BrokerRegistrationRequest:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: BrokerRegistrationRequest, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
