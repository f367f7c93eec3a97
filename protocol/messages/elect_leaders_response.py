# Generated from ElectLeadersResponse.json (Apache Kafka 3.9) by protocol.codegen.
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
    write_compact_nullable_string,
    write_compact_string,
    write_nullable_string,
    write_string,
    write_tagged_fields,
    write_uvarint,
)

NAME = "ElectLeadersResponse"
API_KEY = 43
TYPE = "response"
VALID_VERSIONS = (0, 2)
FLEXIBLE_VERSIONS = (2, 2)
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False

_S_i = _struct.Struct(">i")
_S_ih = _struct.Struct(">ih")


@dataclass(slots=True)
class PartitionResult:
    partition_id: int = 0
    error_code: int = 0
    error_message: str | None = ""
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class ReplicaElectionResult:
    topic: str = ""
    partition_result: list[PartitionResult] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class ElectLeadersResponse:
    throttle_time_ms: int = 0
    error_code: int = 0
    replica_election_results: list[ReplicaElectionResult] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_PartitionResult_v0(r: Reader) -> PartitionResult:
    partition_id, error_code = r.unpack(_S_ih)
    error_message = r.nullable_string()
    return PartitionResult(partition_id=partition_id, error_code=error_code, error_message=error_message)


def _write_PartitionResult_v0(w: Writer, m: PartitionResult) -> None:
    w += _S_ih.pack(m.partition_id, m.error_code)
    write_nullable_string(w, m.error_message)


def _read_PartitionResult_v2(r: Reader) -> PartitionResult:
    partition_id, error_code = r.unpack(_S_ih)
    error_message = r.compact_nullable_string()
    unknown_tagged_fields = r.tagged_fields()
    return PartitionResult(partition_id=partition_id, error_code=error_code, error_message=error_message, unknown_tagged_fields=unknown_tagged_fields)


def _write_PartitionResult_v2(w: Writer, m: PartitionResult) -> None:
    w += _S_ih.pack(m.partition_id, m.error_code)
    write_compact_nullable_string(w, m.error_message)
    write_tagged_fields(w, m.unknown_tagged_fields)


def _read_ReplicaElectionResult_v0(r: Reader) -> ReplicaElectionResult:
    topic = r.string()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ElectLeadersResponse.PartitionResult is null")
    partition_result = [_read_PartitionResult_v0(r) for _ in range(_n)]
    return ReplicaElectionResult(topic=topic, partition_result=partition_result)


def _write_ReplicaElectionResult_v0(w: Writer, m: ReplicaElectionResult) -> None:
    write_string(w, m.topic)
    _v = m.partition_result
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_PartitionResult_v0(w, _e)


def _read_ReplicaElectionResult_v2(r: Reader) -> ReplicaElectionResult:
    topic = r.compact_string()
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ElectLeadersResponse.PartitionResult is null")
    partition_result = [_read_PartitionResult_v2(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return ReplicaElectionResult(topic=topic, partition_result=partition_result, unknown_tagged_fields=unknown_tagged_fields)


def _write_ReplicaElectionResult_v2(w: Writer, m: ReplicaElectionResult) -> None:
    write_compact_string(w, m.topic)
    _v = m.partition_result
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_PartitionResult_v2(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> ElectLeadersResponse:
    throttle_time_ms = r.int32()
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ElectLeadersResponse.ReplicaElectionResults is null")
    replica_election_results = [_read_ReplicaElectionResult_v0(r) for _ in range(_n)]
    return ElectLeadersResponse(throttle_time_ms=throttle_time_ms, replica_election_results=replica_election_results)


def write_v0(w: Writer, m: ElectLeadersResponse) -> None:
    w += _S_i.pack(m.throttle_time_ms)
    _v = m.replica_election_results
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_ReplicaElectionResult_v0(w, _e)


def read_v1(r: Reader) -> ElectLeadersResponse:
    throttle_time_ms, error_code = r.unpack(_S_ih)
    _n = r.array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ElectLeadersResponse.ReplicaElectionResults is null")
    replica_election_results = [_read_ReplicaElectionResult_v0(r) for _ in range(_n)]
    return ElectLeadersResponse(throttle_time_ms=throttle_time_ms, error_code=error_code, replica_election_results=replica_election_results)


def write_v1(w: Writer, m: ElectLeadersResponse) -> None:
    w += _S_ih.pack(m.throttle_time_ms, m.error_code)
    _v = m.replica_election_results
    w += _S_i.pack(len(_v))
    for _e in _v:
        _write_ReplicaElectionResult_v0(w, _e)


def read_v2(r: Reader) -> ElectLeadersResponse:
    throttle_time_ms, error_code = r.unpack(_S_ih)
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array ElectLeadersResponse.ReplicaElectionResults is null")
    replica_election_results = [_read_ReplicaElectionResult_v2(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return ElectLeadersResponse(throttle_time_ms=throttle_time_ms, error_code=error_code, replica_election_results=replica_election_results, unknown_tagged_fields=unknown_tagged_fields)


def write_v2(w: Writer, m: ElectLeadersResponse) -> None:
    w += _S_ih.pack(m.throttle_time_ms, m.error_code)
    _v = m.replica_election_results
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        _write_ReplicaElectionResult_v2(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


READERS = {0: read_v0, 1: read_v1, 2: read_v2}
WRITERS = {0: write_v0, 1: write_v1, 2: write_v2}


def read(r: Reader, version: int) -> ElectLeadersResponse:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: ElectLeadersResponse, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> ElectLeadersResponse:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: ElectLeadersResponse, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
