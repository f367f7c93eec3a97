"""Fixtures that run Spark Structured Streaming (PySpark, ``format("kafka")``) against pybroker.

One local SparkSession serves the whole test session, the cluster tests' included: its JVM
takes 10-15 s to start, so the ``spark`` fixture lives in ``tests/conftest.py``. Some scenarios
also run against Apache Kafka 3.9 (the session's ``reference_kafka``, or one of the test's own
when it needs other broker settings), so that the test states what Spark does with a real Kafka
and checks that pybroker gets the same.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import (
    AdminClient,
    AlterConfigOpType,
    ConfigEntry,
    ConfigResource,
    NewTopic,
)

from pybroker.testing.broker_process import BrokerProcess
from pybroker.testing.reference_kafka import ReferenceKafka


@dataclass
class Kafka:
    """Topic set-up and plain-client reads for one broker (pybroker or the reference Kafka)."""

    bootstrap: str
    created: list[str] = field(default_factory=list)
    _admin: AdminClient | None = None

    def admin(self) -> AdminClient:
        # one client for the fixture's life: a dropped client cancels its pending futures
        if self._admin is None:
            self._admin = AdminClient({"bootstrap.servers": self.bootstrap})
        return self._admin

    def create_topic(
        self, prefix: str, partitions: int = 3, config: dict[str, str] | None = None
    ) -> str:
        name = f"{prefix}-{uuid.uuid4().hex[:8]}"
        futures = self.admin().create_topics(
            [NewTopic(name, partitions, 1, config=config or {})], operation_timeout=10
        )
        futures[name].result(timeout=30)
        self.created.append(name)
        return name

    def produce(self, topic: str, records: Iterable[Record]) -> None:
        """Produce and wait for every acknowledgement; any refused record fails the test."""
        errors: list[str] = []

        def delivered(err, msg) -> None:
            if err is not None:
                errors.append(f"{msg.topic()}[{msg.partition()}]: {err}")

        producer = Producer({"bootstrap.servers": self.bootstrap, "linger.ms": 5})
        for r in records:
            kwargs = {} if r.timestamp is None else {"timestamp": r.timestamp}
            producer.produce(
                topic, key=r.key, value=r.value, partition=r.partition,
                headers=list(r.headers) or None, on_delivery=delivered, **kwargs,
            )
        assert producer.flush(30) == 0, "records left unsent"
        assert not errors, errors

    def log_start(self, topic: str, partition: int = 0) -> int:
        consumer = Consumer({"bootstrap.servers": self.bootstrap, "group.id": "log-start"})
        try:
            return consumer.get_watermark_offsets(TopicPartition(topic, partition), timeout=10)[0]
        finally:
            consumer.close()

    def alter_topic(self, topic: str, configs: dict[str, str]) -> None:
        resource = ConfigResource(
            ConfigResource.Type.TOPIC, topic,
            incremental_configs=[
                ConfigEntry(k, v, incremental_operation=AlterConfigOpType.SET)
                for k, v in configs.items()
            ],
        )
        for f in self.admin().incremental_alter_configs([resource]).values():
            f.result(timeout=30)

    def delete_records(self, topic: str, before: dict[int, int]) -> None:
        futures = self.admin().delete_records(
            [TopicPartition(topic, p, o) for p, o in before.items()], request_timeout=10
        )
        for f in futures.values():
            f.result(timeout=30)

    def read_all(self, topic: str, expected: int, timeout: float = 30.0) -> list:
        """Every record of ``topic`` read by librdkafka, waiting until ``expected`` arrived."""
        consumer = Consumer({
            "bootstrap.servers": self.bootstrap, "group.id": f"read-{uuid.uuid4().hex[:6]}",
            "auto.offset.reset": "earliest", "enable.auto.commit": False,
        })
        consumer.subscribe([topic])
        out: list = []
        deadline = time.monotonic() + timeout
        try:
            while len(out) < expected and time.monotonic() < deadline:
                msg = consumer.poll(0.5)
                if msg is not None and msg.error() is None:
                    out.append(msg)
        finally:
            consumer.close()
        return out


@dataclass(frozen=True)
class Record:
    value: bytes
    key: bytes | None = None
    partition: int = 0
    timestamp: int | None = None
    headers: Sequence[tuple[str, bytes]] = ()


@pytest.fixture(scope="module")
def pybroker(module_broker: BrokerProcess) -> Kafka:
    return Kafka(module_broker.bootstrap)


@pytest.fixture
def kafka_of(request: pytest.FixtureRequest) -> Callable[[str], Kafka]:
    """``kafka_of("pybroker")`` or ``kafka_of("kafka")``: the broker a parametrised test runs on."""

    def get(which: str) -> Kafka:
        if which == "pybroker":
            return request.getfixturevalue("pybroker")
        return Kafka(request.getfixturevalue("reference_kafka").bootstrap)

    return get


@pytest.fixture
def fresh_kafka_of(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Callable[..., Kafka]]:
    """``fresh_kafka_of("pybroker" | "kafka", **overrides)``: a broker of the test's own, with
    broker settings the shared ones do not have; stopped at teardown."""
    references: list[ReferenceKafka] = []

    def start(which: str, **overrides: object) -> Kafka:
        if which == "pybroker":
            return Kafka(request.getfixturevalue("broker_factory")(**overrides).bootstrap)
        ref = ReferenceKafka(
            tmp_path_factory.mktemp("reference-kafka"), overrides=overrides,
            lib=request.getfixturevalue("kafka_tools_lib"),
        )
        references.append(ref)
        return Kafka(ref.start().bootstrap)

    try:
        yield start
    finally:
        for ref in references:
            ref.stop()


def records_by_partition(
    topic_values: dict[int, Sequence[str]], *, key_prefix: str = "k"
) -> list[Record]:
    """Records with values ``v`` placed on the partitions that key them."""
    return [
        Record(value=v.encode(), key=f"{key_prefix}{p}".encode(), partition=p)
        for p, values in topic_values.items()
        for v in values
    ]


@pytest.fixture
def checkpoint(tmp_path_factory: pytest.TempPathFactory) -> Callable[[], str]:
    """A fresh checkpoint directory per call."""

    def make() -> str:
        return str(tmp_path_factory.mktemp("checkpoint"))

    return make


@pytest.fixture
def stop_queries(spark) -> Iterator[None]:
    """Stop whatever streaming query a test leaves running, even when it fails."""
    yield
    for query in spark.streams.active:
        query.stop()
