"""Header versions per API version, and the request-frame convenience decoder."""

from __future__ import annotations

import pytest

from protocol.errors import ProtocolError
from protocol.headers import (
    decode_request,
    read_request_header,
    request_header_version,
    response_header_version,
    write_response_header,
)
from protocol.messages import ApiKey, metadata_request, request_header, response_header
from protocol.primitives import Reader, Writer


@pytest.mark.parametrize(
    ("api_key", "api_version", "expected"),
    [
        (ApiKey.PRODUCE, 8, 1),  # not flexible
        (ApiKey.PRODUCE, 9, 2),
        (ApiKey.METADATA, 8, 1),
        (ApiKey.METADATA, 9, 2),
        (ApiKey.METADATA, 99, 2),  # newer than we know: still flexible
        (ApiKey.API_VERSIONS, 2, 1),
        (ApiKey.API_VERSIONS, 3, 2),
        (ApiKey.CONTROLLED_SHUTDOWN, 0, 0),  # v0 has no client id
        (ApiKey.CONTROLLED_SHUTDOWN, 1, 1),
        (ApiKey.CONTROLLED_SHUTDOWN, 3, 2),
        (12345, 0, 1),  # unknown api key
    ],
)
def test_request_header_version(api_key, api_version, expected):
    assert request_header_version(api_key, api_version) == expected


@pytest.mark.parametrize(
    ("api_key", "api_version", "expected"),
    [
        (ApiKey.PRODUCE, 8, 0),
        (ApiKey.PRODUCE, 9, 1),
        (ApiKey.FETCH, 12, 1),
        (ApiKey.API_VERSIONS, 0, 0),  # ApiVersions responses always use header v0 ...
        (ApiKey.API_VERSIONS, 3, 0),  # ... even for flexible versions
        (ApiKey.API_VERSIONS, 4, 0),
        (ApiKey.CONTROLLED_SHUTDOWN, 0, 0),
        (12345, 5, 0),
    ],
)
def test_response_header_version(api_key, api_version, expected):
    assert response_header_version(api_key, api_version) == expected


def test_write_response_header():
    w = Writer()
    write_response_header(w, 258, 0)
    write_response_header(w, 258, 1)
    assert bytes(w) == b"\x00\x00\x01\x02" + b"\x00\x00\x01\x02\x00"
    with pytest.raises(ValueError):
        write_response_header(w, 1, 2)


@pytest.mark.parametrize("version", [0, 1])
@pytest.mark.parametrize("correlation_id", [0, 1, 258, 2**31 - 1, -1, -(2**31)])
def test_write_response_header_writes_what_the_generated_writer_does(version, correlation_id):
    ours, generated = Writer(), Writer()
    write_response_header(ours, correlation_id, version)
    response_header.WRITERS[version](generated, response_header.ResponseHeader(
        correlation_id=correlation_id))
    assert bytes(ours) == bytes(generated)


def test_read_request_header_v2_keeps_client_id_non_compact():
    data = b"\x00\x03\x00\x0c\x00\x00\x00\x2a\x00\x03abc\x00" + b"rest"
    r = Reader(data)
    h = read_request_header(r)
    assert (h.request_api_key, h.request_api_version, h.correlation_id, h.client_id) == (3, 12, 42, "abc")
    assert bytes(r.buf[r.pos :]) == b"rest"


def test_read_request_header_v1_has_no_tags_and_may_have_null_client():
    r = Reader(b"\x00\x03\x00\x01\x00\x00\x00\x01\xff\xff" + b"\x00")
    h = read_request_header(r)
    assert h.client_id is None
    assert r.remaining() == 1  # the byte after the client id is body, not a tag section


def test_controlled_shutdown_v0_header_has_no_client_id():
    body = b"\x00\x00\x00\x05"  # broker id 5
    header, decoded = decode_request(b"\x00\x07\x00\x00\x00\x00\x00\x09" + body)
    assert header.correlation_id == 9
    assert header.client_id == ""  # default: absent in header v0
    assert decoded.broker_id == 5


def test_decode_request_known_body():
    head = request_header.encode(request_header.RequestHeader(3, 1, 77, "cli"), 1)
    header, body = decode_request(head + b"\xff\xff\xff\xff")
    assert header.correlation_id == 77
    assert body == metadata_request.MetadataRequest(topics=None)


def test_decode_request_unknown_version_returns_no_body():
    # ApiVersions v99 from a newer client: header parses (flexible), body is left for the broker
    frame = b"\x00\x12\x00\x63\x00\x00\x00\x01\x00\x01c\x00" + b"\x01\x02\x03"
    header, body = decode_request(frame)
    assert (header.request_api_key, header.request_api_version, header.client_id) == (18, 99, "c")
    assert body is None
    header, body = decode_request(b"\x7f\x00\x00\x00\x00\x00\x00\x01\x00\x00")
    assert header.request_api_key == 0x7F00 and body is None


@pytest.mark.parametrize(
    "frame",
    [
        b"",
        b"\x00\x03\x00",
        b"\x00\x03\x00\x01\x00\x00\x00\x01\x00\x05ab",  # client id runs past the end
        b"\x00\x03\x00\x01\x00\x00\x00\x01\x00\x00\x00\x00\x00",  # truncated topics array
    ],
)
def test_decode_request_malformed(frame):
    with pytest.raises(ProtocolError):
        decode_request(frame)
