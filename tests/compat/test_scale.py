"""2,000 partitions on one broker whose open-files limit is 1,024.

Every partition has a segment with three files, so a broker that kept each file open would run
out of descriptors long before it had loaded them all. The broker must create the partitions,
answer Metadata for all of them, accept a record in each, serve them back (one consumer
assigned to every partition, so one fetch response carries hundreds of partitions), and come
back after ``kill -9`` with all of it - all without exceeding the limit.
"""

from __future__ import annotations

import random
import resource
import time
from pathlib import Path

import pytest
from confluent_kafka import OFFSET_BEGINNING, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from pybroker.testing.broker_process import BrokerProcess

from .confluent_kafka.helpers import consumer

pytestmark = [pytest.mark.compat, pytest.mark.timeout(600)]

TOPICS, PER_TOPIC = 20, 100  # 2,000 partitions
FD_LIMIT = 1024


class LimitedBroker(BrokerProcess):
    """A broker started with a lower soft ``RLIMIT_NOFILE`` (``ulimit -Sn`` in a shell that
    then execs the broker, so the pid is the broker's own)."""

    def __init__(self, *args, fd_limit: int, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fd_limit = fd_limit

    def command(self) -> list[str]:
        return ["sh", "-c", f'ulimit -Sn {self.fd_limit} && exec "$@"', "sh", *super().command()]

    def open_fds(self) -> int:
        return len(list(Path(f"/proc/{self.pid}/fd").iterdir()))

    def soft_fd_limit(self) -> int:
        for line in Path(f"/proc/{self.pid}/limits").read_text().splitlines():
            if line.startswith("Max open files"):
                return int(line.split()[3])
        raise AssertionError("no open-files line in /proc/<pid>/limits")


def topic_names() -> list[str]:
    return [f"scale-{i:02d}" for i in range(TOPICS)]


def value_of(topic: str, partition: int) -> bytes:
    return f"{topic}/{partition}".encode()


def create_all(admin: AdminClient) -> None:
    futures = admin.create_topics(
        [NewTopic(t, num_partitions=PER_TOPIC, replication_factor=1) for t in topic_names()],
        operation_timeout=60, request_timeout=120,
    )
    for name, future in futures.items():
        future.result(timeout=120)
        assert name in topic_names()


def check_metadata(admin: AdminClient) -> None:
    md = admin.list_topics(timeout=60)
    for name in topic_names():
        t = md.topics.get(name)
        assert t is not None and t.error is None, (name, t and t.error)
        assert sorted(t.partitions) == list(range(PER_TOPIC)), name
        bad = [p for p in t.partitions.values() if p.error is not None or p.leader != 0]
        assert not bad, f"{name}: partitions without a leader: {bad[:3]}"


def produce_one_each(bootstrap: str) -> dict[tuple[str, int], int]:
    acked: dict[tuple[str, int], int] = {}
    failed: list[str] = []

    def report(err, msg) -> None:
        if err is not None:
            failed.append(f"{msg.topic()}-{msg.partition()}: {err}")
        else:
            acked[(msg.topic(), msg.partition())] = msg.offset()

    producer = Producer({"bootstrap.servers": bootstrap, "acks": "all", "linger.ms": 20,
                         "message.timeout.ms": 120_000})
    for name in topic_names():
        for p in range(PER_TOPIC):
            producer.produce(name, value=value_of(name, p), partition=p, on_delivery=report)
        producer.poll(0)
    assert producer.flush(120) == 0, "records still undelivered after 120 s"
    assert not failed, failed[:5]
    return acked


def read_first_records(bootstrap: str, partitions: list[tuple[str, int]]) -> dict[tuple[str, int], bytes]:
    """The record at offset 0 of each partition, with one consumer assigned to all of them."""
    c = consumer(bootstrap, **{"check.crcs": True, "fetch.max.bytes": 50 << 20})
    try:
        c.assign([TopicPartition(t, p, OFFSET_BEGINNING) for t, p in partitions])
        got: dict[tuple[str, int], bytes] = {}
        deadline = time.monotonic() + 120
        while len(got) < len(partitions) and time.monotonic() < deadline:
            for m in c.consume(num_messages=10_000, timeout=0.5):
                if m.error():
                    raise KafkaException(m.error())
                got.setdefault((m.topic(), m.partition()), m.value())
        return got
    finally:
        c.close()


def test_two_thousand_partitions_within_a_1024_descriptor_limit(tmp_path: Path) -> None:
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    limit = FD_LIMIT if hard == resource.RLIM_INFINITY else min(FD_LIMIT, hard)
    broker = LimitedBroker(tmp_path / "kafka-logs", fd_limit=limit, start_timeout=120,
                           overrides={"num.partitions": 1})
    broker.start()
    try:
        assert broker.soft_fd_limit() == limit
        admin = AdminClient({"bootstrap.servers": broker.bootstrap})
        create_all(admin)
        check_metadata(admin)
        assert broker.is_running() and broker.open_fds() < limit

        acked = produce_one_each(broker.bootstrap)
        assert len(acked) == TOPICS * PER_TOPIC and set(acked.values()) == {0}
        assert broker.open_fds() < limit

        everything = sorted(acked)
        sample = random.Random(7).sample(everything, 200)
        got = read_first_records(broker.bootstrap, sample)
        assert got == {tp: value_of(*tp) for tp in sample}

        got = read_first_records(broker.bootstrap, everything)  # one consumer, all partitions
        assert got == {tp: value_of(*tp) for tp in everything}
        assert broker.is_running() and broker.open_fds() < limit

        broker.restart(hard=True)  # recovery of 2,000 logs under the same limit
        assert broker.soft_fd_limit() == limit
        admin = AdminClient({"bootstrap.servers": broker.bootstrap})
        check_metadata(admin)
        got = read_first_records(broker.bootstrap, sample)
        assert got == {tp: value_of(*tp) for tp in sample}
        assert broker.open_fds() < limit
    finally:
        broker.stop()
    said = broker.log_path.read_text(errors="replace")
    assert "Too many open files" not in said
    assert "Traceback" not in said
