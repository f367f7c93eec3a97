"""Committed group offsets survive a broker restart, with kafka-python and with confluent-kafka.

A member of the group reads part of each partition and commits twice, synchronously, at offsets
the test chose (the second commit is the one that must win). The broker is then stopped with
SIGTERM, or killed with SIGKILL once the commit was acknowledged, and started again on the same
data. A new member of the same group must resume exactly at the last commit: the first record
it reads from each partition has the committed offset (it would start at 0 if the commit were
lost, because ``auto.offset.reset`` is earliest).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Protocol

import pytest
from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition as CKTopicPartition
from kafka import KafkaConsumer, TopicPartition as KPTopicPartition
from kafka.structs import OffsetAndMetadata

from pybroker.testing.broker_process import BrokerProcess
from tests.compat.confluent_kafka.helpers import create_topic
from tests.compat.group_helpers import FAST_GROUPS, subscribe_knowing_topic

pytestmark = [pytest.mark.compat, pytest.mark.timeout(120)]

PARTITIONS = 3
PER_PARTITION = 20
FIRST_COMMIT = {0: 2, 1: 5, 2: 1}
LAST_COMMIT = {0: 7, 1: 13, 2: 4}

#: partition -> [(offset, value), ...] in the order read
Read = dict[int, list[tuple[int, str]]]


class Member(Protocol):
    def read(self, enough: Callable[[Read], bool], what: str) -> Read: ...
    def commit(self, offsets: dict[int, int], metadata: str) -> None: ...
    def committed(self) -> dict[int, tuple[int, str | None]]: ...
    def close(self) -> None: ...


def _poll_until(poll: Callable[[], list[tuple[int, int, str]]], enough: Callable[[Read], bool],
                what: str, timeout: float = 40.0) -> Read:
    got: Read = {}
    deadline = time.monotonic() + timeout
    while not enough(got):
        assert time.monotonic() < deadline, f"timed out reading {what}; read so far {got}"
        for p, offset, value in poll():
            got.setdefault(p, []).append((offset, value))
    return got


class KafkaPythonMember:
    def __init__(self, bootstrap: str, topic: str, group: str) -> None:
        self.topic = topic
        self.consumer = KafkaConsumer(
            bootstrap_servers=bootstrap,
            group_id=group,
            enable_auto_commit=False,
            auto_offset_reset="earliest",
            session_timeout_ms=6000,
            heartbeat_interval_ms=1000,
            max_poll_interval_ms=30000,
            fetch_max_wait_ms=100,
            request_timeout_ms=10000,
        )
        assert self.consumer.partitions_for_topic(topic) == set(range(PARTITIONS))
        subscribe_knowing_topic(self.consumer, topic)

    def _poll(self) -> list[tuple[int, int, str]]:
        batches = self.consumer.poll(timeout_ms=200)
        return [(r.partition, r.offset, r.value.decode()) for b in batches.values() for r in b]

    def read(self, enough: Callable[[Read], bool], what: str) -> Read:
        return _poll_until(self._poll, enough, what)

    def commit(self, offsets: dict[int, int], metadata: str) -> None:
        self.consumer.commit({
            KPTopicPartition(self.topic, p): OffsetAndMetadata(o, metadata, -1)
            for p, o in offsets.items()
        })

    def committed(self) -> dict[int, tuple[int, str | None]]:
        out = {}
        for p in range(PARTITIONS):
            om = self.consumer.committed(KPTopicPartition(self.topic, p), metadata=True)
            out[p] = (om.offset, om.metadata) if om is not None else (-1, None)
        return out

    def close(self) -> None:
        self.consumer.close(autocommit=False, timeout_ms=10000)


class ConfluentMember:
    def __init__(self, bootstrap: str, topic: str, group: str) -> None:
        self.topic = topic
        self.consumer = Consumer({
            "bootstrap.servers": bootstrap,
            "group.id": group,
            "enable.auto.commit": False,
            "auto.offset.reset": "earliest",
            "session.timeout.ms": 6000,
            "heartbeat.interval.ms": 1000,
            "fetch.wait.max.ms": 100,
            "reconnect.backoff.max.ms": 500,
        })
        self.consumer.subscribe([topic])

    def _poll(self) -> list[tuple[int, int, str]]:
        out = []
        for m in self.consumer.consume(num_messages=1000, timeout=0.2):
            if m.error():
                raise KafkaException(m.error())
            out.append((m.partition(), m.offset(), m.value().decode()))
        return out

    def read(self, enough: Callable[[Read], bool], what: str) -> Read:
        return _poll_until(self._poll, enough, what)

    def commit(self, offsets: dict[int, int], metadata: str) -> None:
        self.consumer.commit(
            offsets=[CKTopicPartition(self.topic, p, o, metadata) for p, o in offsets.items()],
            asynchronous=False,
        )

    def committed(self) -> dict[int, tuple[int, str | None]]:
        tps = self.consumer.committed(
            [CKTopicPartition(self.topic, p) for p in range(PARTITIONS)], timeout=20
        )
        return {tp.partition: (tp.offset, tp.metadata) for tp in tps}

    def close(self) -> None:
        self.consumer.close()


MEMBERS: dict[str, Callable[[str, str, str], Member]] = {
    "kafka-python": KafkaPythonMember,
    "confluent": ConfluentMember,
}


def produce(bootstrap: str, topic: str) -> None:
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5, "acks": "all"})
    failed: list[str] = []
    for i in range(PER_PARTITION):
        for p in range(PARTITIONS):
            producer.produce(
                topic, value=f"{p}-{i}".encode(), partition=p,
                on_delivery=lambda err, _m: err and failed.append(str(err)),
            )
    assert producer.flush(30) == 0 and not failed, failed


@pytest.mark.parametrize("how", ["sigterm", "sigkill"])
@pytest.mark.parametrize("client", sorted(MEMBERS))
def test_committed_offsets_survive_restart(
    broker_factory, topic: str, client: str, how: str
) -> None:
    broker: BrokerProcess = broker_factory(**FAST_GROUPS)
    bootstrap = broker.bootstrap
    group = f"{topic}-g"
    create_topic(bootstrap, topic, PARTITIONS)
    produce(bootstrap, topic)

    first = MEMBERS[client](bootstrap, topic, group)
    try:
        read = first.read(
            lambda got: all(
                any(o >= LAST_COMMIT[p] for o, _v in got.get(p, [])) for p in range(PARTITIONS)
            ),
            "past the offsets to commit",
        )
        assert {p: read[p][0] for p in read} == {p: (0, f"{p}-0") for p in range(PARTITIONS)}
        first.commit(FIRST_COMMIT, "first")
        first.commit(LAST_COMMIT, "last")
        assert first.committed() == {p: (o, "last") for p, o in LAST_COMMIT.items()}

        broker.restart(hard=how == "sigkill")
    finally:
        first.close()

    second = MEMBERS[client](bootstrap, topic, group)
    try:
        assert second.committed() == {p: (o, "last") for p, o in LAST_COMMIT.items()}
        read = second.read(
            lambda got: all(got.get(p) for p in range(PARTITIONS)), "one record per partition"
        )
        resumed = {p: read[p][0] for p in range(PARTITIONS)}
        assert resumed == {p: (o, f"{p}-{o}") for p, o in LAST_COMMIT.items()}
    finally:
        second.close()
