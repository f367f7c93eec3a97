"""Shared fixtures: broker processes for the compatibility tests, and the kcat binary.

Every broker runs on 127.0.0.1 with its data in pytest's temporary directory and is stopped in
teardown whatever the test did; when a test fails, the tail of each broker's stderr is attached
to the report.
"""

from __future__ import annotations

import re
import shutil
import sys
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from pybroker.testing.broker_process import REPO_ROOT, BrokerProcess, ProxiedBroker, free_port
from pybroker.testing.frame_proxy import FrameProxy
from pybroker.testing.reference_kafka import (
    DEPS_SCRIPT as KAFKA_TOOLS_DEPS_SCRIPT,
    JMX_EXPORTER_AGENT,
    KAFKA_VERSION,
    LIB as KAFKA_TOOLS_LIB,
    ReferenceKafka,
)
from pybroker.testing.reference_kafka4 import KAFKA4_VERSION, LIB4 as KAFKA4_LIB, ReferenceKafka4
from tests.compat.maven_jars import fetch_or_skip

BrokerFactory = Callable[..., BrokerProcess]

KCAT_MISSING = "kcat not installed: run make setup"
SPARK_DEPS_SCRIPT = REPO_ROOT / "scripts" / "spark-deps.sh"


def _new_broker(base: Path, overrides: dict[str, object]) -> BrokerProcess:
    base.mkdir(parents=True, exist_ok=True)
    n = len(list(base.glob("kafka-logs-*")))
    return BrokerProcess(base / f"kafka-logs-{n}", overrides=overrides)


@pytest.fixture
def broker_factory(tmp_path: Path) -> Iterator[BrokerFactory]:
    """Start brokers with extra ``server.properties`` overrides: ``broker_factory(**{"num.partitions": 3})``."""
    started: list[BrokerProcess] = []

    def start(**overrides: object) -> BrokerProcess:
        b = _new_broker(tmp_path, overrides)
        started.append(b)
        return b.start()

    try:
        yield start
    finally:
        for b in started:
            b.stop()


@pytest.fixture
def broker(broker_factory: BrokerFactory) -> BrokerProcess:
    """A fresh broker for this test only (auto topic creation on, one partition per topic)."""
    return broker_factory()


@pytest.fixture(scope="module")
def module_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrokerProcess]:
    """One broker shared by a test module; tests use their own topic names to stay apart."""
    b = _new_broker(tmp_path_factory.mktemp("module-broker"), {"num.partitions": 3})
    try:
        yield b.start()
    finally:
        b.stop()


@pytest.fixture(scope="module")
def proxied_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ProxiedBroker]:
    proxy_port = free_port()
    b = _new_broker(
        tmp_path_factory.mktemp("proxied-broker"),
        {"num.partitions": 3, "advertised.listeners": f"PLAINTEXT://127.0.0.1:{proxy_port}"},
    )
    with FrameProxy(proxy_port, ("127.0.0.1", b.port)) as proxy:
        try:
            yield ProxiedBroker(b.start(), proxy)
        finally:
            b.stop()


@pytest.fixture
def topic(request: pytest.FixtureRequest) -> str:
    """A topic name unique to this test (legal Kafka characters only)."""
    name = re.sub(r"[^A-Za-z0-9._-]+", "-", request.node.name).strip("-")[:150]
    return f"{name}-{uuid.uuid4().hex[:8]}"


@pytest.fixture(scope="session")
def kcat_bin() -> str:
    path = shutil.which("kcat")
    if path is None:
        pytest.skip(KCAT_MISSING)
    return path


@pytest.fixture(scope="session")
def kafka_tools_lib() -> Path:
    """The directory holding Apache Kafka 3.9's jars (tools, broker, ZooKeeper), fetched once."""
    fetch_or_skip(
        KAFKA_TOOLS_DEPS_SCRIPT, KAFKA_VERSION, tools=("java", "mvn"),
        needed_for="tests with Apache Kafka's own jars",
    )
    if not (KAFKA_TOOLS_LIB / f"kafka-tools-{KAFKA_VERSION}.jar").exists():
        pytest.fail(f"no kafka-tools jar in {KAFKA_TOOLS_LIB}: run scripts/kafka-tools-deps.sh")
    return KAFKA_TOOLS_LIB


@pytest.fixture(scope="session")
def kafka4_lib() -> Path:
    """The directory holding Apache Kafka 4.1's jars (the KRaft reference), fetched once."""
    fetch_or_skip(
        KAFKA_TOOLS_DEPS_SCRIPT, KAFKA4_VERSION, tools=("java", "mvn"),
        needed_for="tests against Apache Kafka 4 (KRaft)",
    )
    if not (KAFKA4_LIB / f"kafka_2.13-{KAFKA4_VERSION}.jar").exists():
        pytest.fail(f"no kafka_2.13 jar in {KAFKA4_LIB}: run scripts/kafka-tools-deps.sh "
                    f"{KAFKA4_VERSION}")
    return KAFKA4_LIB


@pytest.fixture(scope="session")
def reference_kafka4(kafka4_lib: Path, tmp_path_factory: pytest.TempPathFactory,
                     ) -> Iterator[ReferenceKafka4]:
    """Apache Kafka 4.1 in KRaft combined mode, shared by the session: the reference where
    Kafka 3.9 in ZooKeeper mode cannot answer (the KIP-848 consumer group protocol)."""
    ref = ReferenceKafka4(tmp_path_factory.mktemp("reference-kafka4"),
                          overrides=KAFKA4_OVERRIDES, lib=kafka4_lib)
    try:
        yield ref.start()
    finally:
        ref.stop()


@pytest.fixture(scope="session")
def spark():
    """A ``local[2]`` SparkSession with the Kafka connector (``tests/compat/spark``, and the
    cluster tests' pipeline), stopped at the end of the session: its JVM takes 10-15 s to
    start, so every Spark test shares it. The connector jars come from
    ``scripts/spark-deps.sh`` (run by ``make setup`` and again here, which does nothing when
    the cache is current)."""
    from examples.spark_connector import ConnectorMissing, connector_jars, local_session

    fetch_or_skip(
        SPARK_DEPS_SCRIPT, sys.executable, tools=("java", "mvn"),
        needed_for="the Spark tests",
    )
    try:
        connector_jars()
    except ConnectorMissing as exc:
        pytest.fail(str(exc))
    session = local_session("pybroker-compat")
    session.sparkContext.setLogLevel("ERROR")
    try:
        yield session
    finally:
        session.stop()


#: settings both pybroker and the reference Kafka get in the differential tests, so that they
#: are configured alike (the rest are each broker's defaults, which are Kafka's)
REFERENCE_OVERRIDES: dict[str, object] = {
    "num.partitions": 1,
    "group.initial.rebalance.delay.ms": 0,
}

#: the Kafka 4 reference, and pybroker beside it: the consumer protocol's session and
#: heartbeat bounds lowered (Kafka's minimum session timeout is 45 s), so that the tests of a
#: member that stops heartbeating take seconds
KAFKA4_OVERRIDES: dict[str, object] = {
    **REFERENCE_OVERRIDES,
    "group.consumer.min.session.timeout.ms": 6000,
    "group.consumer.session.timeout.ms": 10000,
    "group.consumer.min.heartbeat.interval.ms": 500,
    "group.consumer.heartbeat.interval.ms": 1000,
}


@pytest.fixture(scope="session")
def reference_kafka(
    kafka_tools_lib: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ReferenceKafka]:
    """Apache Kafka 3.9 with its ZooKeeper, from the same Maven jars, shared by the session;
    serving its MBeans through the Prometheus JMX exporter (``metrics_url``) when
    kafka-tools-deps fetched the agent."""
    ref = ReferenceKafka(
        tmp_path_factory.mktemp("reference-kafka"), overrides=REFERENCE_OVERRIDES,
        lib=kafka_tools_lib, metrics=JMX_EXPORTER_AGENT.exists(),
    )
    try:
        yield ref.start()
    finally:
        ref.stop()


#: the brokers the transactional client tests run against: each must pass against the
#: reference Kafka too, which shows the test itself is right
TRANSACTION_TARGETS = ["pybroker", "kafka"]


@pytest.fixture(params=TRANSACTION_TARGETS)
def txn_bootstrap(request: pytest.FixtureRequest) -> str:
    """The bootstrap address of a fresh pybroker or of the session's reference Kafka."""
    if request.param == "kafka":
        return request.getfixturevalue("reference_kafka").bootstrap
    return request.getfixturevalue("broker").bootstrap


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):
    outcome = yield
    report = outcome.get_result()
    if not report.failed:
        return
    seen: set[int] = set()
    brokers = [
        v for v in getattr(item, "funcargs", {}).values() if isinstance(v, BrokerProcess)
    ] + list(BrokerProcess.live)
    for b in brokers:
        if id(b) in seen:
            continue
        seen.add(id(b))
        report.sections.append((f"broker {b.bootstrap} stderr", b.describe(lines=80)))


def pytest_configure(config: pytest.Config) -> None:
    """The in-process broker's fixtures (``kafka_bootstrap``, ``kafka_broker``, ...) come from
    pybroker's pytest plugin, which installing pybroker registers through its ``pytest11`` entry
    point. A virtualenv whose editable install predates that entry point has not registered it:
    then it is registered here, under the entry point's name."""
    if not config.pluginmanager.has_plugin("pybroker"):
        from pybroker.testing import pytest_plugin

        config.pluginmanager.register(pytest_plugin, "pybroker")


def pytest_sessionfinish(session: pytest.Session) -> None:
    BrokerProcess.stop_all()
    ReferenceKafka.stop_all()  # the 4.x references too
