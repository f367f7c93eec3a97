"""Fixtures of the console's tests: a real headless Chromium (Debian's ``chromium`` driven
through ``chromium-driver`` by Selenium), and one console process showing two clusters at
once - three pybroker brokers on a ZooKeeper of their own, and the session's reference Apache
Kafka 3.9 - stopped by its pid when the package's tests end (its test modules share them).

``CONSOLE_SCREENSHOTS=docs/console`` has the tests write their screenshots of the main pages
there (the committed ones in docs/console.md are made so); otherwise they go to the test's
temporary directory."""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Consumer
from confluent_kafka.admin import AdminClient

from pybroker.compat.jvm_clients import KafkaCli
from pybroker.testing.cluster import ClusterProcesses, running_cluster
from pybroker.testing.console_process import ConsoleProcess
from pybroker.testing.reference_kafka import ReferenceKafka
from pybroker.testing.zookeeper import ZooKeeperServer
from tests.console.helpers import create_topic, unique

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
#: the names the console gives the two clusters
TARGETS = ["pybroker", "kafka"]
#: (cluster, page, seconds until loaded) measured by test_console_scale, for the report
PAGE_LOADS: list[tuple[str, str, float]] = []


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """The page loads measured with 1,000 partitions, in the test report (not asserted)."""
    if not PAGE_LOADS:
        return
    terminalreporter.section("console page loads with 1,000 partitions (loadEventEnd)")
    for cluster, page, seconds in PAGE_LOADS:
        terminalreporter.write_line(f"{cluster:>9}  {seconds * 1000:7.0f} ms  {page}")


def browser_missing() -> list[str]:
    missing = []
    if shutil.which("chromium") is None:
        missing.append("chromium (Debian package chromium)")
    if shutil.which("chromedriver") is None:
        missing.append("chromedriver (Debian package chromium-driver)")
    try:
        import selenium  # noqa: F401
    except ImportError:
        missing.append("selenium (make setup)")
    return missing


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """Headless Chromium at 1280x900, shared by the session; quit (and its driver stopped by
    Selenium's service, by pid) at the end."""
    missing = browser_missing()
    if missing:
        pytest.skip(f"SKIPPED: the console's browser tests need {'; '.join(missing)}")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                "--window-size=1280,900", "--disable-gpu"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver") or CHROMEDRIVER),
                              options=options)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture(scope="package")
def pybroker_cluster(kafka_tools_lib: Path,
                     tmp_path_factory: pytest.TempPathFactory) -> Iterator[ClusterProcesses]:
    """Three pybroker brokers on a ZooKeeper of the package's own, each serving its
    Prometheus endpoint."""
    missing = ZooKeeperServer.missing_requirements(kafka_tools_lib)
    if missing:
        pytest.skip(f"SKIPPED: a ZooKeeper server needs {'; '.join(missing)}")
    work = tmp_path_factory.mktemp("console-cluster")
    with ZooKeeperServer(work / "zookeeper", lib=kafka_tools_lib) as zookeeper, \
            running_cluster(work / "cluster", zookeeper.connect_string("/console"),
                            metrics=True) as cluster:
        yield cluster


@pytest.fixture(scope="package")
def bootstraps(pybroker_cluster: ClusterProcesses,
               reference_kafka: ReferenceKafka) -> dict[str, str]:
    return {"pybroker": pybroker_cluster.bootstrap, "kafka": reference_kafka.bootstrap}


@pytest.fixture(scope="package")
def console(bootstraps: dict[str, str], pybroker_cluster: ClusterProcesses,
            reference_kafka: ReferenceKafka,
            tmp_path_factory: pytest.TempPathFactory) -> Iterator[ConsoleProcess]:
    """``pybroker console --cluster pybroker=... --cluster kafka=...``, with every broker's
    metrics endpoint (the reference Kafka's when its exporter agent is there), scraped each
    second."""
    metrics = {"pybroker": [b.metrics_url for b in pybroker_cluster.brokers.values()]}
    if reference_kafka.metrics_port is not None:
        metrics["kafka"] = [reference_kafka.metrics_url]
    args = ["--metrics-interval", "1"]
    for name, urls in metrics.items():
        args += ["--metrics", f"{name}={','.join(urls)}"]
    with ConsoleProcess(tmp_path_factory.mktemp("console"), bootstraps, args=args) as process:
        yield process


@pytest.fixture(params=TARGETS)
def target(request: pytest.FixtureRequest) -> str:
    """The name of the cluster a test runs against."""
    return str(request.param)


@pytest.fixture
def screenshots(tmp_path: Path) -> Path:
    folder = Path(os.environ.get("CONSOLE_SCREENSHOTS") or tmp_path / "screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture
def bootstrap(bootstraps: dict[str, str], target: str) -> str:
    return bootstraps[target]


@pytest.fixture
def admin(bootstrap: str) -> AdminClient:
    return AdminClient({"bootstrap.servers": bootstrap})


@pytest.fixture
def cli(bootstrap: str, kafka_tools_lib: Path) -> KafkaCli:
    return KafkaCli(bootstrap, kafka_tools_lib)


@pytest.fixture
def running_member(bootstrap: str) -> Iterator[Any]:
    """A consumer that has joined a group on a topic of its own: the group is Stable."""
    group, topic = unique("stable"), unique("stable-topic")
    admin = AdminClient({"bootstrap.servers": bootstrap})
    create_topic(admin, topic, 1, 1)
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": group,
                         "session.timeout.ms": 10000})
    consumer.subscribe([topic])
    deadline = time.monotonic() + 30
    while not consumer.assignment() and time.monotonic() < deadline:
        consumer.poll(0.2)
    assert consumer.assignment(), "the consumer was not assigned its partition"
    try:
        yield consumer, group
    finally:
        consumer.close()
