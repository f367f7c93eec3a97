"""A single node whose only log dir fills up (KIP-112), with a real broker process on a real,
size-limited file system (a tmpfs this test mounts) and a real client.

An idempotent acks=all confluent-kafka producer writes numbered records while the disk fills:
the broker halts as Kafka's does ("Shutdown broker because all log dirs in ... have failed",
exit code 1), never acknowledging a write it could not make. Started again while the disk is
still full it halts again, with the same message. Once space is freed it starts cleanly: every
acknowledged record is there, once, at the offset acknowledged; every segment is whole and
every batch passes its CRC (no torn batch from the failed write); and the broker takes writes
again.

Mounting the tmpfs needs root (or CAP_SYS_ADMIN): without it the test is skipped, naming
what is missing.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from confluent_kafka import KafkaError, Producer

from pybroker.testing.broker_process import BrokerProcess, BrokerStartError
from pybroker.testing.disk import SmallFilesystem, disk_faults_missing
from pybroker.testing.log_files import log_dir_problems

from .confluent_kafka.helpers import create_topic, read_back

pytestmark = [pytest.mark.compat, pytest.mark.timeout(300)]

TOPIC = "full-disk"
PARTITIONS = 2
HALTED = "Shutdown broker because all log dirs in"


@pytest.fixture
def small_disk(tmp_path: Path):  # type: ignore[no-untyped-def]
    missing = disk_faults_missing()
    if missing:
        pytest.skip(f"SKIPPED: a full-disk test needs {'; '.join(missing)}")
    with SmallFilesystem(tmp_path / "disk", 24 << 20) as fs:
        yield fs


def wait_exit(broker: BrokerProcess, timeout: float = 60) -> int | None:
    """Until the broker process ends by itself; its exit code."""
    deadline = time.monotonic() + timeout
    while broker.is_running():
        if time.monotonic() > deadline:
            raise AssertionError(f"the broker did not halt:\n{broker.stderr_tail()}")
        time.sleep(0.1)
    return broker.stop()  # (reaps it)


def test_a_single_node_halts_on_a_full_disk_and_loses_nothing(
        small_disk: SmallFilesystem) -> None:
    broker = BrokerProcess(small_disk.path / "kafka-logs",
                           overrides={"log.segment.bytes": 2 << 20}, stop_timeout=30,
                           log_path=small_disk.path.parent / "broker.log")  # not on the disk
    broker.start()
    try:
        create_topic(broker.bootstrap, TOPIC, PARTITIONS)
        acked: dict[int, tuple[int, int]] = {}
        failed: dict[int, str] = {}
        producer = Producer({
            "bootstrap.servers": broker.bootstrap, "enable.idempotence": True, "acks": "all",
            "linger.ms": 5, "message.timeout.ms": 8000, "retry.backoff.ms": 50,
            "reconnect.backoff.max.ms": 500})
        stop = threading.Event()

        def produce() -> None:
            seq = 0

            def report(err: KafkaError | None, msg, seq: int) -> None:  # type: ignore[no-untyped-def]
                if err is None:
                    acked[seq] = (msg.partition(), msg.offset())
                else:
                    failed[seq] = err.name()

            while not stop.is_set():
                value = b"%08d|" % seq + b"x" * 500
                try:
                    producer.produce(TOPIC, value=value, partition=seq % PARTITIONS,
                                     on_delivery=lambda e, m, s=seq: report(e, m, s))
                except BufferError:
                    producer.poll(0.05)
                    continue
                seq += 1
                producer.poll(0)
                if seq % 50 == 0:
                    time.sleep(0.01)

        writer = threading.Thread(target=produce, daemon=True)
        writer.start()
        deadline = time.monotonic() + 30
        while len(acked) < 2000 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(acked) >= 2000, "the producer made no progress before the disk filled"
        small_disk.fill()
        code = wait_exit(broker)
        stop.set()
        writer.join(10)
        producer.flush(15)
        log_text = broker.log_path.read_text()
        assert code == 1, broker.stderr_tail()
        assert HALTED in log_text and "No space left on device" in log_text, \
            broker.stderr_tail()
        before = dict(acked)

        # started again on the full disk: it halts again, saying why
        halts = log_text.count(HALTED)
        try:
            broker.start()
        except BrokerStartError as e:  # it may stop before it listens
            assert "exited with code" in str(e), e
        else:
            assert wait_exit(broker) == 1
        again_text = broker.log_path.read_text()
        assert again_text.count(HALTED) > halts or "cannot be used: No space left" in again_text, \
            broker.stderr_tail()

        small_disk.free()
        broker.start()
        partition_dirs = [small_disk.path / "kafka-logs" / f"{TOPIC}-{p}"
                          for p in range(PARTITIONS)]
        got = read_back(broker.bootstrap, TOPIC, range(PARTITIONS))
        where = {int(m.value()[:8]): (p, m.offset()) for p, ms in got.items() for m in ms}
        lost = {s: at for s, at in before.items() if where.get(s) != at}
        assert not lost, f"{len(lost)} acknowledged records lost or moved, e.g. " \
                         f"{sorted(lost.items())[:5]}"
        values = [int(m.value()[:8]) for ms in got.values() for m in ms]
        assert len(values) == len(set(values)), "a record is in the log twice"
        # it takes writes again
        again = Producer({"bootstrap.servers": broker.bootstrap, "acks": "all"})
        results: list[KafkaError | None] = []
        again.produce(TOPIC, value=b"after", partition=0,
                      on_delivery=lambda e, _m: results.append(e))
        again.flush(30)
        assert results == [None]
        broker.stop()
        problems = [p for d in partition_dirs for p in log_dir_problems(d)]
        assert not problems, problems
    finally:
        if broker.is_running():
            broker.kill()
