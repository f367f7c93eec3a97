"""Hand-built Kafka frames for raw-socket tests.

These tests must not depend on the broker's own codecs (a shared bug would cancel out), so the
few requests they need are written out here with ``struct``: request header v1/v2, ApiVersions
v0 and v3, Metadata v1, Produce v3 with one uncompressed magic-v2 batch.
"""

from __future__ import annotations

import socket
import struct
import time
from dataclasses import dataclass

from crc32c import crc32c

API_PRODUCE = 0
API_METADATA = 3
API_API_VERSIONS = 18

UNSUPPORTED_VERSION = 35

CLIENT_ID = "compat-raw"


# -- primitive encoders ------------------------------------------------------------------------


def string(s: str | None) -> bytes:
    if s is None:
        return struct.pack(">h", -1)
    raw = s.encode()
    return struct.pack(">h", len(raw)) + raw


def uvarint(n: int) -> bytes:
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def varint(n: int) -> bytes:
    """Zig-zag signed varint (records use these for lengths and deltas)."""
    return uvarint((n << 1) ^ (n >> 63))


def compact_string(s: str) -> bytes:
    raw = s.encode()
    return uvarint(len(raw) + 1) + raw


def sized(payload: bytes) -> bytes:
    return struct.pack(">i", len(payload)) + payload


# -- requests ----------------------------------------------------------------------------------


def request_header(api_key: int, version: int, correlation_id: int, *, flexible: bool) -> bytes:
    header = struct.pack(">hhi", api_key, version, correlation_id) + string(CLIENT_ID)
    return header + (b"\x00" if flexible else b"")


def request(api_key: int, version: int, correlation_id: int, body: bytes, *, flexible: bool = False) -> bytes:
    """A complete size-prefixed request frame."""
    return sized(request_header(api_key, version, correlation_id, flexible=flexible) + body)


def api_versions(correlation_id: int, version: int = 0) -> bytes:
    if version >= 3:
        body = compact_string("compat-raw") + compact_string("1.0") + b"\x00"
        return request(API_API_VERSIONS, version, correlation_id, body, flexible=True)
    return request(API_API_VERSIONS, version, correlation_id, b"")


def metadata_v1(correlation_id: int, topics: list[str] | None = None) -> bytes:
    """Metadata v1; ``None`` asks for every topic."""
    if topics is None:
        body = struct.pack(">i", -1)
    else:
        body = struct.pack(">i", len(topics)) + b"".join(string(t) for t in topics)
    return request(API_METADATA, 1, correlation_id, body)


@dataclass(frozen=True)
class Record:
    key: bytes | None
    value: bytes | None
    headers: tuple[tuple[str, bytes | None], ...] = ()


def record_batch(records: list[Record], base_timestamp: int) -> bytes:
    """One uncompressed magic-v2 batch, CreateTime, no producer id, offsets 0..n-1."""
    body = bytearray()
    for i, r in enumerate(records):
        rec = bytearray(b"\x00")  # attributes
        rec += varint(0) + varint(i)  # timestamp delta, offset delta
        for part in (r.key, r.value):
            rec += varint(-1) if part is None else varint(len(part)) + part
        rec += varint(len(r.headers))
        for hk, hv in r.headers:
            rec += varint(len(hk.encode())) + hk.encode()
            rec += varint(-1) if hv is None else varint(len(hv)) + hv
        body += varint(len(rec)) + rec
    after_crc = struct.pack(
        ">hiqqqhii", 0, len(records) - 1, base_timestamp, base_timestamp, -1, -1, -1, len(records)
    ) + bytes(body)
    after_length = struct.pack(">ibI", -1, 2, crc32c(after_crc)) + after_crc
    return struct.pack(">qi", 0, len(after_length)) + after_length


def produce_v3(correlation_id: int, topic: str, partition: int, batch: bytes, *, acks: int) -> bytes:
    body = (
        string(None)  # transactional id
        + struct.pack(">hi", acks, 30_000)
        + struct.pack(">i", 1)
        + string(topic)
        + struct.pack(">i", 1)
        + struct.pack(">i", partition)
        + sized(batch)
    )
    return request(API_PRODUCE, 3, correlation_id, body)


# -- responses ---------------------------------------------------------------------------------


def recv_exact(sock: socket.socket, n: int) -> bytes | None:
    """Read exactly ``n`` bytes; None if the peer closed first."""
    buf = bytearray()
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            return None
        buf += chunk
    return bytes(buf)


def read_response(sock: socket.socket) -> tuple[int, bytes] | None:
    """One response frame as (correlation id, rest); None if the connection was closed."""
    prefix = recv_exact(sock, 4)
    if prefix is None:
        return None
    (size,) = struct.unpack(">i", prefix)
    assert 4 <= size < 64 * 1024 * 1024, f"implausible response size {size}"
    payload = recv_exact(sock, size)
    if payload is None:
        return None
    (cid,) = struct.unpack_from(">i", payload)
    return cid, payload[4:]


@dataclass(frozen=True)
class ApiVersionsV0:
    error_code: int
    ranges: dict[int, tuple[int, int]]


def parse_api_versions_v0(body: bytes) -> ApiVersionsV0:
    """The v0 body: error code and the (key, min, max) array; nothing may follow."""
    error_code, count = struct.unpack_from(">hi", body)
    assert 0 <= count < 1000, f"bad ApiKeys count {count}"
    ranges = {}
    pos = 6
    for _ in range(count):
        key, lo, hi = struct.unpack_from(">hhh", body, pos)
        ranges[key] = (lo, hi)
        pos += 6
    assert pos == len(body), f"{len(body) - pos} unexpected trailing bytes in ApiVersions v0 body"
    return ApiVersionsV0(error_code, ranges)


def connect(bootstrap: str, timeout: float = 10.0) -> socket.socket:
    host, port = bootstrap.rsplit(":", 1)
    assert host == "127.0.0.1"
    sock = socket.create_connection((host, int(port)), timeout=timeout)
    sock.settimeout(timeout)
    return sock


def wait_closed(sock: socket.socket, timeout: float = 15.0) -> bytes:
    """Read until the peer closes the connection; returns whatever arrived before that.

    Raises ``TimeoutError`` if the connection is still open after ``timeout`` seconds.
    """
    deadline = time.monotonic() + timeout
    received = bytearray()
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError(f"connection still open after {timeout:.0f}s; got {bytes(received)[:64]!r}")
        sock.settimeout(remaining)
        try:
            chunk = sock.recv(65536)
        except (ConnectionResetError, BrokenPipeError):
            return bytes(received)
        except TimeoutError:
            continue
        if not chunk:
            return bytes(received)
        received += chunk
