"""pytest fixtures giving each test a real Kafka-protocol broker inside the test process.

Installing pybroker registers this plugin (the ``pytest11`` entry point ``pybroker``); nothing
else is needed::

    def test_roundtrip(kafka_bootstrap):
        producer = KafkaProducer(bootstrap_servers=kafka_bootstrap)
        ...

Fixtures:

- ``kafka_broker``: an :class:`~pybroker.testing.inprocess.InProcessBroker` for this test only,
  on a free port of 127.0.0.1 with a fresh data directory, stopped after the test; with its
  helpers (``create_topic``, ``produce``, ``records``, ``enforce_retention``, ``compact``,
  ``restart``, ...) and its fault rules (``kafka_broker.faults``).
- ``kafka_bootstrap``: that broker's ``host:port``.
- ``kafka_metrics_url``: that broker's Prometheus endpoint (``http://127.0.0.1:port/metrics``,
  Kafka's metrics as docs/metrics.md lists them; read it with
  :func:`pybroker.testing.metrics.scrape`).
- ``kafka_broker_session`` / ``kafka_bootstrap_session``: one broker shared by the whole
  session (give each test its own topic names); fault rules added in a test are removed after
  it.
- ``kafka_broker_overrides``: the ``server.properties`` settings ``kafka_broker`` starts with
  (empty); override it in a conftest.py or a test module to configure the broker.
- ``kafka_cluster``: three in-process brokers of a ZooKeeper-mode cluster
  (:class:`~pybroker.testing.inprocess_cluster.InProcessCluster`), for leadership moves and
  broker stops, on ``kafka_zookeeper``: a real ZooKeeper server shared by the session (a
  chroot per cluster); skipped, naming what is missing, where ZooKeeper cannot run.

Importing this module costs next to nothing: the broker is imported by the first fixture that
starts one.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from pybroker.testing.inprocess import InProcessBroker
    from pybroker.testing.inprocess_cluster import InProcessCluster
    from pybroker.testing.zookeeper import ZooKeeperServer

#: session brokers whose fault rules are cleared after each test
_shared: list[InProcessBroker] = []


@pytest.fixture
def kafka_broker_overrides() -> dict[str, object]:
    """``server.properties`` settings for ``kafka_broker`` (over the test defaults of
    :data:`pybroker.testing.inprocess.TEST_DEFAULTS`). Override this fixture to change them."""
    return {}


@pytest.fixture
def kafka_broker(tmp_path_factory: pytest.TempPathFactory,
                 kafka_broker_overrides: dict[str, object]) -> Iterator[InProcessBroker]:
    """A broker for this test only, stopped after it."""
    from pybroker.testing.inprocess import InProcessBroker

    broker = InProcessBroker(tmp_path_factory.mktemp("kafka-broker"),
                             overrides=kafka_broker_overrides)
    broker.start()
    try:
        yield broker
    finally:
        broker.stop()


@pytest.fixture
def kafka_bootstrap(kafka_broker: InProcessBroker) -> str:
    """``bootstrap.servers`` of this test's broker."""
    return kafka_broker.bootstrap


@pytest.fixture
def kafka_metrics_url(kafka_broker: InProcessBroker) -> str:
    """The ``/metrics`` URL of this test's broker."""
    return kafka_broker.metrics_url


@pytest.fixture(scope="session")
def kafka_broker_session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[InProcessBroker]:
    """One broker for the whole session; fault rules are cleared after each test."""
    from pybroker.testing.inprocess import InProcessBroker

    broker = InProcessBroker(tmp_path_factory.mktemp("kafka-broker-session"))
    broker.start()
    _shared.append(broker)
    try:
        yield broker
    finally:
        _shared.remove(broker)
        broker.stop()


@pytest.fixture(scope="session")
def kafka_bootstrap_session(kafka_broker_session: InProcessBroker) -> str:
    return kafka_broker_session.bootstrap


@pytest.fixture(scope="session")
def kafka_zookeeper(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ZooKeeperServer]:
    """A ZooKeeper server (a child process, from Kafka's jars) for the session's clusters,
    stopped by its pid when the session ends; skipped, naming what is missing, where it
    cannot run."""
    from pybroker.testing.inprocess_cluster import missing_requirements
    from pybroker.testing.zookeeper import ZooKeeperServer

    missing = missing_requirements()
    if missing:
        pytest.skip("SKIPPED: kafka_cluster needs a ZooKeeper server: " + "; ".join(missing))
    server = ZooKeeperServer(tmp_path_factory.mktemp("kafka-zookeeper"))
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def kafka_cluster(tmp_path_factory: pytest.TempPathFactory,
                  kafka_zookeeper: ZooKeeperServer) -> Iterator[InProcessCluster]:
    """Brokers 1-3 of a ZooKeeper-mode cluster in this process, under a ZooKeeper chroot of
    their own, stopped after the test."""
    import uuid

    from pybroker.testing.inprocess_cluster import InProcessCluster

    chroot = f"/kafka-cluster-{uuid.uuid4().hex[:12]}"
    with InProcessCluster(tmp_path_factory.mktemp("kafka-cluster"),
                          zookeeper_connect=kafka_zookeeper.connect_string(chroot)) as cluster:
        yield cluster


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item: pytest.Item) -> None:
    for broker in _shared:
        broker.faults.clear()
