"""The sans-IO client connection (protocol/client.py) against the server side's own codecs.

Requests it encodes are decoded by the broker's request decoder (and compared byte for byte
with frames real clients sent); responses the broker's ``encode_response`` writes, for every
API and version, come back out equal, with the right header version.
"""

from __future__ import annotations

import importlib
import re
import struct
from pathlib import Path

import pytest

from protocol import messages
from protocol.client import MAX_CORRELATION_ID, ClientConnection, PendingRequest
from protocol.codegen.emit import module_name
from protocol.codegen.samples import build_sample
from protocol.codegen.spec import MessageSpec, load_schema
from protocol.errors import ErrorCode, ProtocolError
from protocol.headers import decode_request
from protocol.messages import (
    ApiKey,
    api_versions_request,
    api_versions_response,
    controlled_shutdown_request,
    metadata_request,
    metadata_response,
    produce_request,
)
from pybroker.api.router import encode_response
from tests.unit.paths import FIXTURES

SPECS: dict[str, MessageSpec] = {spec.name: spec for spec in load_schema().specs}
FRAMES = FIXTURES / "frames"
FRAME_NAME = re.compile(r"^\d{3}-(\d+)-v(\d+)\.bin$")


def response_frame(api_key: int, version: int, correlation_id: int, body: object) -> bytes:
    return bytes(encode_response(api_key, version, correlation_id, body))


def sample(name: str, version: int) -> object:
    spec = SPECS[name]
    module = importlib.import_module(f"protocol.messages.{module_name(spec.file_name)}")
    return build_sample(spec, module, version)


def metadata_body(version: int = 12) -> metadata_response.MetadataResponse:
    return metadata_response.MetadataResponse(
        brokers=[metadata_response.MetadataResponseBroker(node_id=1, host="127.0.0.1", port=9092)],
        cluster_id="cluster" if version >= 2 else None,
        controller_id=1,
    )


# -- requests ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("api_key", "version", "header_version"),
    [
        (ApiKey.METADATA, 8, 1),
        (ApiKey.METADATA, 12, 2),
        (ApiKey.API_VERSIONS, 2, 1),
        (ApiKey.API_VERSIONS, 3, 2),
        (ApiKey.LEADER_AND_ISR, 7, 2),
        (ApiKey.UPDATE_METADATA, 8, 2),
        (ApiKey.STOP_REPLICA, 4, 2),
        (ApiKey.CONTROLLED_SHUTDOWN, 0, 0),
        (ApiKey.CONTROLLED_SHUTDOWN, 3, 2),
    ],
)
def test_request_frames_decode_on_the_server_side(api_key, version, header_version):
    spec_name = messages.API_NAMES[api_key] + "Request"
    request = sample(spec_name, version)
    conn = ClientConnection("controller-1", first_correlation_id=41)

    correlation_id, data = conn.send_request(api_key, version, request)

    assert correlation_id == 41
    (size,) = struct.unpack_from(">i", data)
    assert size == len(data) - 4
    header, decoded = decode_request(data[4:])
    assert (header.request_api_key, header.request_api_version) == (api_key, version)
    assert header.correlation_id == 41
    # request header v0 (ControlledShutdown v0) has no client id
    assert header.client_id == ("controller-1" if header_version >= 1 else "")
    assert decoded == request
    assert conn.in_flight == (PendingRequest(41, api_key, version),)


def test_controlled_shutdown_v0_uses_request_header_v0():
    conn = ClientConnection("1")
    _, data = conn.send_request(
        ApiKey.CONTROLLED_SHUTDOWN, 0, controlled_shutdown_request.ControlledShutdownRequest(
            broker_id=3
        )
    )
    # size, api key, version, correlation id, then the body's broker id: no client id at all
    assert data == struct.pack(">ihhii", 12, ApiKey.CONTROLLED_SHUTDOWN, 0, 0, 3)


def _fixture_frames() -> list[Path]:
    return sorted(p for p in FRAMES.glob("*/*.bin") if FRAME_NAME.match(p.name))


@pytest.mark.parametrize("path", _fixture_frames(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_requests_are_byte_identical_to_real_clients(path: Path):
    """Given the same client id, correlation id and body, the frame is what the client sent."""
    frame = path.read_bytes()
    header, body = decode_request(frame)
    assert body is not None
    if header.unknown_tagged_fields:
        pytest.fail(f"{path.name}: the client sent header tags; compare the body only")
    conn = ClientConnection(header.client_id, first_correlation_id=header.correlation_id)
    _, data = conn.send_request(header.request_api_key, header.request_api_version, body)
    assert data == struct.pack(">i", len(frame)) + frame


def test_correlation_ids_increase_and_wrap():
    conn = ClientConnection("c", first_correlation_id=MAX_CORRELATION_ID - 1)
    req = metadata_request.MetadataRequest(topics=[])
    ids = [conn.send_request(ApiKey.METADATA, 12, req)[0] for _ in range(3)]
    assert ids == [MAX_CORRELATION_ID - 1, MAX_CORRELATION_ID, 0]
    fresh = ClientConnection("c")
    assert [fresh.send_request(ApiKey.METADATA, 12, req)[0] for _ in range(3)] == [0, 1, 2]


def test_unknown_key_or_version_is_the_callers_mistake():
    conn = ClientConnection("c")
    with pytest.raises(ValueError, match="unknown api key"):
        conn.send_request(9999, 0, object())
    with pytest.raises(ValueError, match="Metadata v99"):
        conn.send_request(ApiKey.METADATA, 99, metadata_request.MetadataRequest())
    # nothing was sent, so no correlation id was used
    assert conn.send_request(ApiKey.METADATA, 1, metadata_request.MetadataRequest())[0] == 0
    assert len(conn.in_flight) == 1


def test_produce_with_acks_0_expects_no_response():
    conn = ClientConnection("c")
    cid0, _ = conn.send_request(ApiKey.PRODUCE, 9, produce_request.ProduceRequest(acks=0))
    cid1, _ = conn.send_request(ApiKey.PRODUCE, 9, produce_request.ProduceRequest(acks=-1))
    assert [p.correlation_id for p in conn.in_flight] == [cid1]
    cid2, _ = conn.send_request(
        ApiKey.METADATA, 12, metadata_request.MetadataRequest(), expect_response=False
    )
    assert [p.correlation_id for p in conn.in_flight] == [cid1]
    assert (cid0, cid1, cid2) == (0, 1, 2)


# -- responses -----------------------------------------------------------------------------


def _response_cases():
    for key in sorted(messages.API_KEYS):
        name = messages.API_NAMES[key]
        spec = SPECS.get(name + "Response")
        if spec is None:
            continue
        for version in spec.versions:
            yield pytest.param(key, version, id=f"{name}-v{version}")


@pytest.mark.parametrize(("api_key", "version"), list(_response_cases()))
def test_every_response_round_trips_through_the_servers_encoder(api_key, version):
    request = sample(messages.API_NAMES[api_key] + "Request", version)
    if api_key == ApiKey.PRODUCE:
        request.acks = -1  # type: ignore[attr-defined]
    conn = ClientConnection("c", first_correlation_id=7)
    cid, _ = conn.send_request(api_key, version, request)
    body = sample(messages.API_NAMES[api_key] + "Response", version)

    got = conn.receive_data(response_frame(api_key, version, cid, body))

    assert got == [(7, body)]
    assert conn.in_flight == ()


def test_pipelined_responses_in_one_chunk_and_byte_by_byte():
    conn = ClientConnection("c")
    sent = []
    for i in range(5):
        version = 4 + i  # Metadata v4..v8 (header v0), and flexible ones below
        cid, _ = conn.send_request(ApiKey.METADATA, version, metadata_request.MetadataRequest())
        sent.append((cid, version))
    cid, _ = conn.send_request(ApiKey.METADATA, 12, metadata_request.MetadataRequest())
    sent.append((cid, 12))
    cid, _ = conn.send_request(ApiKey.API_VERSIONS, 3, api_versions_request.ApiVersionsRequest())
    sent.append((cid, 3))

    frames = [
        response_frame(ApiKey.METADATA, v, c, metadata_body(v)) for c, v in sent[:-1]
    ] + [response_frame(ApiKey.API_VERSIONS, 3, sent[-1][0], api_versions_response.
                        ApiVersionsResponse(api_keys=[api_versions_response.ApiVersion(3, 0, 12)]))]
    stream = b"".join(frames)

    got = conn.receive_data(stream[:5]) + conn.receive_data(stream[5:])
    assert [c for c, _ in got] == [c for c, _ in sent]
    assert got[-1][1].api_keys[0].max_version == 12
    assert got[0][1] == metadata_body(4)

    # the same again, one byte at a time
    conn2 = ClientConnection("c")
    for _, v in sent[:-1]:
        conn2.send_request(ApiKey.METADATA, v, metadata_request.MetadataRequest())
    conn2.send_request(ApiKey.API_VERSIONS, 3, api_versions_request.ApiVersionsRequest())
    got2 = []
    for i in range(len(stream)):
        got2 += conn2.receive_data(stream[i:i + 1])
    assert got2 == got


def test_frames_read_elsewhere_decode_as_received_bytes_do():
    """``receive_frames`` takes the frames a FrameReader read into place (size prefix gone)."""
    conn = ClientConnection("c")
    sent = [conn.send_request(ApiKey.METADATA, v, metadata_request.MetadataRequest())[0]
            for v in (4, 12)]
    frames = [bytearray(response_frame(ApiKey.METADATA, v, c, metadata_body(v))[4:])
              for c, v in zip(sent, (4, 12), strict=True)]
    got = conn.receive_frames(frames)
    assert [c for c, _ in got] == sent
    assert got[1][1] == metadata_body(12)
    # the same rules: an answer out of order breaks the connection
    first, _ = conn.send_request(ApiKey.METADATA, 12, metadata_request.MetadataRequest())
    second, _ = conn.send_request(ApiKey.METADATA, 12, metadata_request.MetadataRequest())
    with pytest.raises(ProtocolError, match=rf"got {second}, expected {first}"):
        conn.receive_frames([response_frame(ApiKey.METADATA, 12, second, metadata_body())[4:]])
    assert conn.broken
    with pytest.raises(ProtocolError, match="unusable"):
        conn.receive_frames([])


def test_api_versions_response_uses_header_v0_even_when_flexible():
    conn = ClientConnection("c")
    cid, _ = conn.send_request(ApiKey.API_VERSIONS, 3, api_versions_request.ApiVersionsRequest(
        client_software_name="pybroker", client_software_version="1"))
    body = api_versions_response.ApiVersionsResponse(
        api_keys=[api_versions_response.ApiVersion(api_key=0, min_version=3, max_version=11)]
    )
    frame = response_frame(ApiKey.API_VERSIONS, 3, cid, body)
    # header v0: the body's int16 error code follows the correlation id directly
    assert frame[4:10] == struct.pack(">ih", cid, 0)
    assert conn.receive_data(frame) == [(cid, body)]


def test_unsupported_api_versions_version_is_read_in_the_v0_layout():
    """KIP-511: a broker that does not know the version answers error 35 in v0's layout."""
    conn = ClientConnection("c")
    cid, _ = conn.send_request(ApiKey.API_VERSIONS, 4, api_versions_request.ApiVersionsRequest())
    answer = api_versions_response.ApiVersionsResponse(
        error_code=ErrorCode.UNSUPPORTED_VERSION,
        api_keys=[api_versions_response.ApiVersion(api_key=18, min_version=0, max_version=2)],
    )
    [(got_cid, got)] = conn.receive_data(response_frame(ApiKey.API_VERSIONS, 0, cid, answer))
    assert got_cid == cid
    assert got.error_code == ErrorCode.UNSUPPORTED_VERSION
    assert got.api_keys == answer.api_keys


def test_correlation_mismatch_is_a_protocol_error_and_breaks_the_connection():
    conn = ClientConnection("c")
    first, _ = conn.send_request(ApiKey.METADATA, 12, metadata_request.MetadataRequest())
    second, _ = conn.send_request(ApiKey.METADATA, 12, metadata_request.MetadataRequest())
    with pytest.raises(ProtocolError, match=rf"got {second}, expected {first}"):
        conn.receive_data(response_frame(ApiKey.METADATA, 12, second, metadata_body()))
    assert conn.broken
    with pytest.raises(ProtocolError, match="unusable"):
        conn.receive_data(response_frame(ApiKey.METADATA, 12, first, metadata_body()))


def test_response_nobody_asked_for_is_a_protocol_error():
    conn = ClientConnection("c")
    with pytest.raises(ProtocolError, match="no request is in flight"):
        conn.receive_data(response_frame(ApiKey.METADATA, 12, 0, metadata_body()))
    # a Produce with acks=0 is never answered, so an answer to it is unsolicited too
    conn = ClientConnection("c")
    cid, _ = conn.send_request(ApiKey.PRODUCE, 9, produce_request.ProduceRequest(acks=0))
    with pytest.raises(ProtocolError):
        conn.receive_data(response_frame(ApiKey.METADATA, 12, cid, metadata_body()))


@pytest.mark.parametrize(
    "tamper",
    [
        pytest.param(lambda f: f + b"\0", id="trailing-byte"),
        pytest.param(lambda f: f[:-3], id="truncated-body"),
    ],
)
def test_malformed_response_is_a_protocol_error(tamper):
    conn = ClientConnection("c")
    cid, _ = conn.send_request(ApiKey.METADATA, 12, metadata_request.MetadataRequest())
    frame = response_frame(ApiKey.METADATA, 12, cid, metadata_body())[4:]
    bad = tamper(frame)
    with pytest.raises(ProtocolError, match="Metadata"):
        conn.receive_data(struct.pack(">i", len(bad)) + bad)


def test_negative_frame_size_is_a_protocol_error():
    conn = ClientConnection("c")
    conn.send_request(ApiKey.METADATA, 12, metadata_request.MetadataRequest())
    with pytest.raises(ProtocolError, match="frame size"):
        conn.receive_data(struct.pack(">i", -1))
    assert conn.broken


def test_short_frame_is_a_protocol_error():
    conn = ClientConnection("c")
    conn.send_request(ApiKey.METADATA, 12, metadata_request.MetadataRequest())
    with pytest.raises(ProtocolError, match="response header"):
        conn.receive_data(struct.pack(">i", 2) + b"\0\0")
