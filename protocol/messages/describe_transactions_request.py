# Generated from DescribeTransactionsRequest.json (Apache Kafka 3.9) by protocol.codegen.
# Do not edit: change the generator or the spec and run `make gen`.

from __future__ import annotations

from dataclasses import dataclass, field as _field

from protocol.errors import ProtocolError
from protocol.primitives import (
    Reader,
    Writer,
    decode_message,
    encode_message,
    write_compact_string,
    write_tagged_fields,
    write_uvarint,
)

NAME = "DescribeTransactionsRequest"
API_KEY = 65
TYPE = "request"
VALID_VERSIONS = (0, 0)
FLEXIBLE_VERSIONS = (0, 0)
LISTENERS = ("zkBroker", "broker")
LATEST_VERSION_UNSTABLE = False


@dataclass(slots=True)
class DescribeTransactionsRequest:
    transactional_ids: list[str] = _field(default_factory=list)
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def read_v0(r: Reader) -> DescribeTransactionsRequest:
    _n = r.compact_array_length()
    if _n < 0:
        raise ProtocolError("non-nullable array DescribeTransactionsRequest.TransactionalIds is null")
    transactional_ids = [r.compact_string() for _ in range(_n)]
    unknown_tagged_fields = r.tagged_fields()
    return DescribeTransactionsRequest(transactional_ids=transactional_ids, unknown_tagged_fields=unknown_tagged_fields)


def write_v0(w: Writer, m: DescribeTransactionsRequest) -> None:
    _v = m.transactional_ids
    write_uvarint(w, len(_v) + 1)
    for _e in _v:
        write_compact_string(w, _e)
    write_tagged_fields(w, m.unknown_tagged_fields)


READERS = {0: read_v0}
WRITERS = {0: write_v0}


def read(r: Reader, version: int) -> DescribeTransactionsRequest:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: DescribeTransactionsRequest, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> DescribeTransactionsRequest:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: DescribeTransactionsRequest, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
