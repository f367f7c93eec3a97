"""Fixtures the group tests of several clients share (kafka-python's and aiokafka's): a broker
with quick group settings for the module, a kafka-python admin client and producer on it, and
the member processes a test starts, stopped in teardown. A module that defines a fixture of
the same name uses its own.

The KIP-848 client tests (librdkafka, the Java consumer, franz-go, the 4.x CLI) share
``pybroker4``, a broker with the consumer protocol's bounds of the Kafka 4 reference, and run
against it and against that reference through ``kip848_bootstrap``."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from kafka import KafkaAdminClient, KafkaProducer

from pybroker.testing.broker_process import BrokerProcess
from tests.compat.group_helpers import FAST_GROUPS, GroupMember
from tests.conftest import KAFKA4_OVERRIDES


@pytest.fixture(scope="session")
def pybroker4(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrokerProcess]:
    """pybroker with the Kafka 4 reference's consumer-protocol bounds (``KAFKA4_OVERRIDES``),
    shared by the KIP-848 client tests, which keep to their own topic and group names."""
    with BrokerProcess(tmp_path_factory.mktemp("kip848") / "kafka-logs",
                       overrides=KAFKA4_OVERRIDES) as b:
        yield b


# the reference's side calibrates the tests (make test-long); pybroker's runs in make test
@pytest.fixture(params=["pybroker", pytest.param("kafka4", marks=pytest.mark.long)])
def kip848_bootstrap(request: pytest.FixtureRequest) -> str:
    """pybroker (``pybroker4``), then Apache Kafka 4.1 (``reference_kafka4``): the same test
    against both."""
    if request.param == "kafka4":
        return request.getfixturevalue("reference_kafka4").bootstrap
    return request.getfixturevalue("pybroker4").bootstrap


@pytest.fixture(scope="module")
def group_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrokerProcess]:
    with BrokerProcess(tmp_path_factory.mktemp("groups") / "kafka-logs", overrides=FAST_GROUPS) as b:
        yield b


@pytest.fixture
def admin(group_broker: BrokerProcess) -> Iterator[KafkaAdminClient]:
    client = KafkaAdminClient(bootstrap_servers=group_broker.bootstrap, request_timeout_ms=20_000)
    try:
        yield client
    finally:
        client.close()


@pytest.fixture
def members() -> Iterator[list[GroupMember]]:
    """Members a test started; every one still running is stopped in teardown."""
    started: list[GroupMember] = []
    try:
        yield started
    finally:
        for m in started:
            m.stop()


@pytest.fixture
def producer(group_broker: BrokerProcess) -> Iterator[KafkaProducer]:
    p = KafkaProducer(bootstrap_servers=group_broker.bootstrap, linger_ms=5)
    try:
        yield p
    finally:
        p.close()
