# Generated from DescribeDelegationTokenRequest.json (Apache Kafka 3.9) by protocol.codegen.
# Do not edit: change the generator or the spec and run `make gen`.

from __future__ import annotations

from dataclasses import dataclass, field as _field

from protocol.errors import ProtocolError
from protocol.primitives import (
    Reader,
    Writer,
    decode_message,
    encode_message,
    write_array_length,
    write_compact_array_length,
    write_compact_string,
    write_string,
    write_tagged_fields,
)

NAME = "DescribeDelegationTokenRequest"
API_KEY = 41
TYPE = "request"
VALID_VERSIONS = (0, 3)
FLEXIBLE_VERSIONS = (2, 3)
LISTENERS = ("zkBroker", "broker", "controller")
LATEST_VERSION_UNSTABLE = False


@dataclass(slots=True)
class DescribeDelegationTokenOwner:
    principal_type: str = ""
    principal_name: str = ""
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


@dataclass(slots=True)
class DescribeDelegationTokenRequest:
    owners: list[DescribeDelegationTokenOwner] | None = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def _read_DescribeDelegationTokenOwner_v0(r: Reader) -> DescribeDelegationTokenOwner:
    principal_type = r.string()
    principal_name = r.string()
    return DescribeDelegationTokenOwner(principal_type=principal_type, principal_name=principal_name)


def _write_DescribeDelegationTokenOwner_v0(w: Writer, m: DescribeDelegationTokenOwner) -> None:
    write_string(w, m.principal_type)
    write_string(w, m.principal_name)


def _read_DescribeDelegationTokenOwner_v2(r: Reader) -> DescribeDelegationTokenOwner:
    principal_type = r.compact_string()
    principal_name = r.compact_string()
    unknown_tagged_fields = r.tagged_fields()
    return DescribeDelegationTokenOwner(principal_type=principal_type, principal_name=principal_name, unknown_tagged_fields=unknown_tagged_fields)


def _write_DescribeDelegationTokenOwner_v2(w: Writer, m: DescribeDelegationTokenOwner) -> None:
    write_compact_string(w, m.principal_type)
    write_compact_string(w, m.principal_name)
    write_tagged_fields(w, m.unknown_tagged_fields)


def read_v0(r: Reader) -> DescribeDelegationTokenRequest:
    _n = r.array_length()
    owners = None if _n < 0 else [_read_DescribeDelegationTokenOwner_v0(r) for _ in range(_n)]
    return DescribeDelegationTokenRequest(owners=owners)


def write_v0(w: Writer, m: DescribeDelegationTokenRequest) -> None:
    _v = m.owners
    write_array_length(w, _v)
    if _v:
        for _e in _v:
            _write_DescribeDelegationTokenOwner_v0(w, _e)


def read_v2(r: Reader) -> DescribeDelegationTokenRequest:
    _n = r.compact_array_length()
    owners = None if _n < 0 else [_read_DescribeDelegationTokenOwner_v2(r) for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return DescribeDelegationTokenRequest(owners=owners, unknown_tagged_fields=unknown_tagged_fields)


def write_v2(w: Writer, m: DescribeDelegationTokenRequest) -> None:
    _v = m.owners
    write_compact_array_length(w, _v)
    if _v:
        for _e in _v:
            _write_DescribeDelegationTokenOwner_v2(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


read_v1 = read_v0
write_v1 = write_v0
read_v3 = read_v2
write_v3 = write_v2

READERS = {0: read_v0, 1: read_v1, 2: read_v2, 3: read_v3}
WRITERS = {0: write_v0, 1: write_v1, 2: write_v2, 3: write_v3}


def read(r: Reader, version: int) -> DescribeDelegationTokenRequest:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: DescribeDelegationTokenRequest, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> DescribeDelegationTokenRequest:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: DescribeDelegationTokenRequest, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
