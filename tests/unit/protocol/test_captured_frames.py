"""Request frames recorded from real clients decode, and re-encode to the same bytes.

The fixtures in tests/fixtures/frames/<client>/<nnn>-<apikey>-v<version>.bin are request frames
(header and body, without the size prefix) that kafka-python, confluent-kafka and kcat sent to
pybroker through scripts/capture_frames.py. They pin the codecs to what clients really send,
including the quirks a spec-only round trip would not catch.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from protocol import messages
from protocol.headers import decode_request, read_request_header, request_header_version
from protocol.messages import request_header
from protocol.primitives import Reader, Writer
from tests.unit.paths import FIXTURES

FRAMES = FIXTURES / "frames"
NAME = re.compile(r"^(\d{3})-(\d+)-v(\d+)\.bin$")
CLIENTS = ("kafka_python", "confluent_kafka", "kcat")
API_VERSIONS = 18

FIXTURES = sorted(FRAMES.glob("*/*.bin"))


def fixture_id(path: Path) -> str:
    return f"{path.parent.name}/{path.name}"


def test_every_client_has_fixtures() -> None:
    for client in CLIENTS:
        names = [p.name for p in FRAMES.joinpath(client).glob("*.bin")]
        assert names, f"no captured frames for {client}: run scripts/capture_frames.py"
        keys = {int(NAME.match(n).group(2)) for n in names if NAME.match(n)}
        assert API_VERSIONS in keys, f"{client}: no ApiVersions request captured"


def test_fixture_names_are_well_formed() -> None:
    bad = [fixture_id(p) for p in FIXTURES if not NAME.match(p.name)]
    assert not bad, f"unexpected fixture names: {bad}"


@pytest.mark.parametrize("path", FIXTURES, ids=fixture_id)
def test_frame_decodes_and_reencodes(path: Path) -> None:
    match = NAME.match(path.name)
    assert match, path.name
    api_key, version = int(match.group(2)), int(match.group(3))
    frame = path.read_bytes()

    header, body = decode_request(frame)
    assert header.request_api_key == api_key
    assert header.request_api_version == version
    assert header.client_id, "every captured client sends a client id"
    assert body is not None, f"{messages.API_NAMES[api_key]} v{version} is not a known request version"

    # where the header ends, and the body decoded strictly (no trailing bytes allowed)
    r = Reader(frame)
    assert read_request_header(r) == header
    header_end = r.pos
    module = messages.request_module(api_key)
    assert module.decode(frame[header_end:], version) == body

    # re-encoding gives back exactly what the client sent
    w = Writer()
    request_header.WRITERS[request_header_version(api_key, version)](w, header)
    assert w.to_bytes() == frame[:header_end]
    assert module.encode(body, version) == frame[header_end:]
