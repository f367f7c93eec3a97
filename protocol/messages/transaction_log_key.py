# Generated from TransactionLogKey.json (Apache Kafka 3.9) by protocol.codegen.
# Do not edit: change the generator or the spec and run `make gen`.

from __future__ import annotations

from dataclasses import dataclass

from protocol.errors import ProtocolError
from protocol.primitives import (
    Reader,
    Writer,
    decode_message,
    encode_message,
    write_string,
)

NAME = "TransactionLogKey"
API_KEY = None
TYPE = "data"
VALID_VERSIONS = (0, 0)
FLEXIBLE_VERSIONS = None
LISTENERS = ()
LATEST_VERSION_UNSTABLE = False


@dataclass(slots=True)
class TransactionLogKey:
    transactional_id: str = ""
    unknown_tagged_fields: list[tuple[int, bytes]] | None = None


def read_v0(r: Reader) -> TransactionLogKey:
    transactional_id = r.string()
    return TransactionLogKey(transactional_id=transactional_id)


def write_v0(w: Writer, m: TransactionLogKey) -> None:
    write_string(w, m.transactional_id)


READERS = {0: read_v0}
WRITERS = {0: write_v0}


def read(r: Reader, version: int) -> TransactionLogKey:
    try:
        reader = READERS[version]
    except KeyError:
        raise ProtocolError(f"unsupported {NAME} version {version}") from None
    return reader(r)


def write(w: Writer, m: TransactionLogKey, version: int) -> None:
    try:
        writer = WRITERS[version]
    except KeyError:
        raise ValueError(f"unsupported {NAME} version {version}") from None
    writer(w, m)


def decode(data: bytes | bytearray | memoryview, version: int) -> TransactionLogKey:
    """Decode a whole buffer; anything malformed raises ProtocolError."""
    return decode_message(READERS, NAME, data, version)


def encode(m: TransactionLogKey, version: int) -> bytes:
    return encode_message(WRITERS, NAME, m, version)
