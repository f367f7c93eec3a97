"""kfake, the peer broker built from tools/kfake: it builds, answers on its loopback port, and
stops by its pid."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from protocol.messages import api_versions_request, metadata_request
from pybroker.testing.peers import KfakeBroker, build_kfake, kfake_missing
from pybroker.testing.wire_client import WireClient


@pytest.fixture(scope="module")
def kfake(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KfakeBroker]:
    missing = kfake_missing()
    if missing:
        pytest.skip("SKIPPED: the kfake peer needs " + "; ".join(missing))
    build_kfake()
    broker = KfakeBroker(tmp_path_factory.mktemp("kfake"))
    broker.start()
    try:
        yield broker
    finally:
        broker.stop()


def test_kfake_answers_api_versions_and_metadata(kfake: KfakeBroker) -> None:
    with WireClient(kfake.bootstrap, timeout=10) as client:
        versions = client.call(18, 3, api_versions_request.ApiVersionsRequest(
            client_software_name="pybroker-test", client_software_version="1"))
        assert versions.error_code == 0
        keys = {k.api_key for k in versions.api_keys}
        assert {0, 1, 3, 18} <= keys
        meta = client.call(3, 12, metadata_request.MetadataRequest(topics=None))
    assert [(b.host, b.port) for b in meta.brokers] == [("127.0.0.1", kfake.port)]


def test_kfake_stops_by_its_pid(tmp_path: Path, kfake: KfakeBroker) -> None:
    other = KfakeBroker(tmp_path).start()
    pid = other.pid
    assert pid is not None and other.is_running()
    assert other.stop() == 0  # SIGTERM: the program closes the cluster and exits 0
    assert other.pid is None and not Path(f"/proc/{pid}").exists()
