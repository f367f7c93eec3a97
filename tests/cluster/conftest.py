"""Fixtures of the cluster tests: one real ZooKeeper server for the session, and a chroot of
its own for each test, so that tests never see each other's znodes; ``cluster``, three brokers
on that chroot with the default settings (a module that needs others defines its own with
:func:`~pybroker.testing.cluster.running_cluster`), and ``zk``, a kazoo client on the chroot.

The server runs from Kafka 3.9.1's jars (``kafka_tools_lib`` fetches them, or skips naming the
missing tool) and is stopped by its pid when the session ends.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from kazoo.client import KazooClient

from pybroker.testing.cluster import ClusterProcesses, running_cluster
from pybroker.testing.zookeeper import ZooKeeperServer


@pytest.fixture(scope="session")
def zookeeper_server(kafka_tools_lib: Path,
                     tmp_path_factory: pytest.TempPathFactory) -> Iterator[ZooKeeperServer]:
    """A standalone ZooKeeper 3.8 on 127.0.0.1, shared by the session."""
    missing = ZooKeeperServer.missing_requirements(kafka_tools_lib)
    if missing:
        pytest.skip(f"SKIPPED: a ZooKeeper server needs {'; '.join(missing)}: install them, "
                    "then run make setup")
    server = ZooKeeperServer(tmp_path_factory.mktemp("zookeeper"), lib=kafka_tools_lib)
    try:
        yield server.start()
    finally:
        server.stop()


@pytest.fixture
def zk_chroot(request: pytest.FixtureRequest) -> str:
    """A chroot unique to this test (``/test_x-1a2b3c4d``); nothing creates it in advance."""
    name = re.sub(r"[^A-Za-z0-9_-]+", "-", request.node.name).strip("-")[:80]
    return f"/{name}-{uuid.uuid4().hex[:8]}"


@pytest.fixture
def zk_connect(zookeeper_server: ZooKeeperServer, zk_chroot: str) -> str:
    """``zookeeper.connect`` for this test: the shared server, under the test's chroot."""
    return zookeeper_server.connect_string(zk_chroot)



@pytest.fixture
def cluster(tmp_path: Path, zk_connect: str) -> Iterator[ClusterProcesses]:
    """Three brokers with the default settings, started and formed; stopped by pid."""
    with running_cluster(tmp_path / "cluster", zk_connect) as c:
        yield c


@pytest.fixture
def zk(zk_connect: str) -> Iterator[KazooClient]:
    """A kazoo client on this test's chroot, to read and write znodes as an operator would."""
    client = KazooClient(hosts=zk_connect)
    client.start(timeout=15)
    try:
        yield client
    finally:
        client.stop()
        client.close()

@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):
    outcome = yield
    report = outcome.get_result()
    if report.failed:
        for server in list(ZooKeeperServer.live):
            report.sections.append((f"zookeeper {server.port}", server.describe(lines=60)))


def pytest_sessionfinish(session: pytest.Session) -> None:
    ZooKeeperServer.stop_all()
