"""Request and response headers, and which header version goes with which API version.

Kafka picks the header version from the body's API version: flexible request versions use
request header v2 (with a tagged-field section), older ones v1.  Two quirks matter:

* ControlledShutdown v0 predates the client id and uses request header v0;
* ApiVersions responses always use response header v0, because a client that sent a version
  the broker does not know still has to be able to read the answer.
"""

from __future__ import annotations

import struct

from protocol import messages
from protocol.errors import ProtocolError
from protocol.messages import ApiKey, request_header
from protocol.messages.request_header import RequestHeader
from protocol.primitives import Reader, Writer

__all__ = [
    "RequestHeader",
    "decode_request",
    "read_request_header",
    "request_header_version",
    "response_header_version",
    "write_response_header",
]

_REQUEST_FLEXIBLE_FROM = messages.REQUEST_FLEXIBLE_FROM
_RESPONSE_FLEXIBLE_FROM = messages.RESPONSE_FLEXIBLE_FROM
_REQUEST_VERSIONS = messages.REQUEST_VERSIONS
_read_header = {v: request_header.READERS[v] for v in (0, 1, 2)}


def request_header_version(api_key: int, api_version: int) -> int:
    """2 for flexible request versions, else 1; 0 for ControlledShutdown v0; 1 for unknown keys.

    Versions above the highest known one count as flexible when the API is flexible from some
    version on, as Kafka does, so a newer client's header still parses.
    """
    if api_key == ApiKey.CONTROLLED_SHUTDOWN and api_version == 0:
        return 0
    first = _REQUEST_FLEXIBLE_FROM.get(api_key)
    return 2 if first is not None and api_version >= first else 1


def response_header_version(api_key: int, api_version: int) -> int:
    """1 for flexible response versions, else 0; ApiVersions responses always use v0."""
    if api_key == ApiKey.API_VERSIONS:
        return 0
    first = _RESPONSE_FLEXIBLE_FROM.get(api_key)
    return 1 if first is not None and api_version >= first else 0


def read_request_header(r: Reader) -> RequestHeader:
    """Read a request header, choosing its version from the api key and version it starts with."""
    pos = r.pos
    api_key = r.int16()
    api_version = r.int16()
    r.pos = pos
    return _read_header[request_header_version(api_key, api_version)](r)


#: a response header's bytes after the correlation id, by header version: nothing in v0, an
#: empty tagged-field section in v1 (what ``response_header.WRITERS`` write for a header
#: without tagged fields; written here without building one, as every response has a header)
_RESPONSE_HEADER_TAIL = {0: b"", 1: b"\x00"}
_CORRELATION_ID = struct.Struct(">i")


def write_response_header(w: Writer, correlation_id: int, header_version: int) -> None:
    """Append a response header: the correlation id, plus an empty tag section in v1."""
    try:
        tail = _RESPONSE_HEADER_TAIL[header_version]
    except KeyError:
        raise ValueError(f"unknown response header version {header_version}") from None
    w += _CORRELATION_ID.pack(correlation_id)
    w += tail


def decode_request(frame: bytes | bytearray | memoryview) -> tuple[RequestHeader, object | None]:
    """Split a request frame (without its size prefix) into header and decoded body.

    The body is None when the api key or version is not one this codebase knows, so the caller
    can still answer (UNSUPPORTED_VERSION, or an ApiVersions v0 response).  Bytes that cannot be
    decoded raise ProtocolError.  Trailing bytes after a known body are ignored.
    """
    r = Reader(frame)
    try:
        header = read_request_header(r)
        versions = _REQUEST_VERSIONS.get(header.request_api_key)
        if versions is None or not versions[0] <= header.request_api_version <= versions[1]:
            return header, None
        module = messages.request_module(header.request_api_key)
        body = module.READERS[header.request_api_version](r)
    except ProtocolError:
        raise
    except (struct.error, ValueError, IndexError, OverflowError, MemoryError, UnicodeDecodeError) as exc:
        raise ProtocolError(f"malformed request: {exc}") from exc
    return header, body
