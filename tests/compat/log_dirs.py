"""Helpers for the tests that move partitions between a broker's log dirs (AlterReplicaLogDirs):
a broker with two log dirs, what DescribeLogDirs says of a partition's replicas, and many small
batches written quickly (a move copies at least one batch a step, so small batches with
``replica.fetch.max.bytes=1`` make a move last long enough to act while it runs)."""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from confluent_kafka import KafkaException, Producer

from protocol.errors import ErrorCode
from protocol.messages import (
    alter_replica_log_dirs_request as ar,
    describe_log_dirs_request as dl,
)
from pybroker.testing.wire_client import WireClient

ALTER_REPLICA_LOG_DIRS, DESCRIBE_LOG_DIRS = 34, 35


def two_log_dirs(data_dir: Path) -> tuple[Path, Path]:
    """The two log dirs of a broker whose data dir is ``data_dir`` (the first is it)."""
    return data_dir, data_dir.with_name(data_dir.name + "-second")


def overrides_for(data_dir: Path, **extra: object) -> dict[str, object]:
    """``server.properties`` overrides giving a broker the two log dirs of ``data_dir``."""
    first, second = two_log_dirs(data_dir)
    return {"log.dirs": f"{first},{second}", **extra}


@dataclass(frozen=True)
class Replica:
    """A partition's replica in one log dir, as DescribeLogDirs reports it."""

    log_dir: str
    size: int
    offset_lag: int
    is_future: bool


def describe(bootstrap: str, topic: str, partition: int) -> list[Replica]:
    """The replicas of the partition in every log dir (the current one, and a future one while
    it moves), from DescribeLogDirs v4."""
    with WireClient(bootstrap) as client:
        answer = client.call(DESCRIBE_LOG_DIRS, 4, dl.DescribeLogDirsRequest(topics=[
            dl.DescribableLogDirTopic(topic=topic, partitions=[partition])]))
    assert answer.error_code == ErrorCode.NONE, answer
    out = []
    for result in answer.results:
        assert result.error_code == ErrorCode.NONE, result
        for t in result.topics:
            for p in t.partitions:
                if (t.name, p.partition_index) == (topic, partition):
                    out.append(Replica(result.log_dir, p.partition_size, p.offset_lag,
                                       p.is_future_key))
    return out


def current_and_future(bootstrap: str, topic: str, partition: int,
                       ) -> tuple[Replica | None, Replica | None]:
    replicas = describe(bootstrap, topic, partition)
    current = [r for r in replicas if not r.is_future]
    future = [r for r in replicas if r.is_future]
    assert len(current) <= 1 and len(future) <= 1, replicas
    return (current[0] if current else None), (future[0] if future else None)


def alter(bootstrap: str, moves: dict[tuple[str, int], str], version: int = 2,
          ) -> dict[tuple[str, int], ErrorCode]:
    """AlterReplicaLogDirs: each partition to a log dir (its absolute path)."""
    by_dir: dict[str, dict[str, list[int]]] = {}
    for (topic, partition), path in moves.items():
        by_dir.setdefault(path, {}).setdefault(topic, []).append(partition)
    request = ar.AlterReplicaLogDirsRequest(dirs=[
        ar.AlterReplicaLogDir(path=path, topics=[
            ar.AlterReplicaLogDirTopic(name=t, partitions=ps) for t, ps in topics.items()])
        for path, topics in by_dir.items()])
    with WireClient(bootstrap) as client:
        answer = client.call(ALTER_REPLICA_LOG_DIRS, version, request)
    return {(t.topic_name, p.partition_index): ErrorCode(p.error_code)
            for t in answer.results for p in t.partitions}


def wait_until_moved(bootstrap: str, topic: str, partition: int, dest: str,
                     timeout: float = 120.0) -> Replica:
    """Poll DescribeLogDirs until the partition is in ``dest`` with no future replica left."""
    deadline = time.monotonic() + timeout
    while True:
        current, future = current_and_future(bootstrap, topic, partition)
        if current is not None and current.log_dir == dest and future is None:
            return current
        if time.monotonic() > deadline:
            raise AssertionError(f"{topic}-{partition} not moved to {dest} after {timeout:.0f}s: "
                                 f"current {current}, future {future}")
        time.sleep(0.05)


def value_of(i: int) -> bytes:
    """Record ``i``'s value: its number, then filler that differs from record to record."""
    return b"%08d|" % i + bytes([i % 251]) * (100 + i % 97)


def produce_one_per_batch(bootstrap: str, topic: str, numbers: Iterable[int], *,
                          partition: int = 0) -> int:
    """One record per batch (``batch.num.messages=1``), idempotent with acks=all; fails the
    test unless every record is acknowledged. Returns how many were sent."""
    errors: list[str] = []

    def delivered(err, _msg) -> None:  # type: ignore[no-untyped-def]
        if err is not None:
            errors.append(str(err))

    producer = Producer({"bootstrap.servers": bootstrap, "batch.num.messages": 1,
                         "linger.ms": 0, "enable.idempotence": True, "acks": "all"})
    sent = 0
    for i in numbers:
        while True:
            try:
                producer.produce(topic, value=value_of(i), partition=partition,
                                 on_delivery=delivered)
                break
            except BufferError:
                producer.poll(0.01)
        producer.poll(0)
        sent += 1
    left = producer.flush(120)
    if left or errors:
        raise KafkaException(f"{left} records not acknowledged; errors: {errors[:5]}")
    return sent


def partition_dirs(log_dir: Path, topic: str, partition: int) -> list[str]:
    """Names of the directories of the partition in ``log_dir``: its current directory,
    ``.<id>-future`` while a move fills it there, ``.<id>-delete`` until the old one is gone."""
    name = f"{topic}-{partition}"
    return sorted(p.name for p in log_dir.iterdir()
                  if p.is_dir() and (p.name == name or p.name.startswith(name + ".")))
