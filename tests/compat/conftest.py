"""Fixtures the group tests of several clients share (kafka-python's and aiokafka's): a broker
with quick group settings for the module, a kafka-python admin client and producer on it, and
the member processes a test starts, stopped in teardown. A module that defines a fixture of
the same name uses its own."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from kafka import KafkaAdminClient, KafkaProducer

from pybroker.testing.broker_process import BrokerProcess
from tests.compat.group_helpers import FAST_GROUPS, GroupMember


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
