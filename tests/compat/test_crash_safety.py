"""Crash safety of the log, with real broker processes.

* ``kill -9`` at random moments (seeded) while two confluent-kafka producers write, one with
  ``acks=1`` and one idempotent with ``acks=all``; after every restart the log must still hold
  every acknowledged record at its acknowledged offset, serve only whole, CRC-valid batches and
  keep offsets dense.
* Bytes damaged while the broker is down (garbage after the last batch, a torn last batch, a
  flipped byte inside it, a broken index) are cut or rebuilt at start-up, and the broker says
  what it dropped.
* A log dir that cannot be used stops the broker with one line and a non-zero exit code.

Set ``PYBROKER_CRASH_SEED`` to replay a particular schedule of kills.
"""

from __future__ import annotations

import os
import random
import re
import subprocess
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from confluent_kafka import KafkaError, Producer

from protocol.errors import ErrorCode
from protocol.messages import (
    create_topics_request as ct,
    fetch_request as fr,
    produce_request as pr,
)
from protocol.records.batch import crc_is_valid
from protocol.records.record import build_batch, decode_batch, iter_batches
from pybroker.testing.broker_process import REPO_ROOT, BrokerProcess, broker_command, free_port
from pybroker.testing.wire_client import WireClient

from .confluent_kafka.helpers import create_topic, read_back

pytestmark = [pytest.mark.compat, pytest.mark.timeout(360)]

SEED = int(os.environ.get("PYBROKER_CRASH_SEED", "20240611"))
#: kill -9 / restart cycles: CI's short form, and make test-long's
ROUNDS = 22
SHORT_ROUNDS = 8
PARTITIONS = 3
PRODUCE, FETCH, CREATE_TOPICS = 0, 1, 19


# -- helpers --------------------------------------------------------------------------------


def value_of(name: bytes, seq: int) -> bytes:
    """The value of record ``seq``: its identity, then filler whose length and bytes follow
    from ``seq`` so a wrong or damaged record cannot compare equal."""
    filler = bytes([seq % 251]) * ((seq * 7919) % 1500)
    return b"%s-%08d|" % (name, seq) + filler


def seq_of(value: bytes) -> int:
    return int(value.split(b"|", 1)[0].rsplit(b"-", 1)[1])


@dataclass
class TrackedProducer:
    """A producer that remembers where each acknowledged record went."""

    name: bytes
    topic: str
    producer: Producer
    sent: int = 0
    acked: dict[int, tuple[int, int]] = field(default_factory=dict)  # seq -> (partition, offset)
    failed: dict[int, str] = field(default_factory=dict)

    def produce_next(self) -> None:
        seq = self.sent

        def report(err: KafkaError | None, msg) -> None:
            if err is not None:
                self.failed[seq] = f"{err.name()}{' (fatal)' if err.fatal() else ''}: {err.str()}"
            else:
                self.acked[seq] = (msg.partition(), msg.offset())

        self.producer.produce(
            self.topic, value=value_of(self.name, seq), key=b"%d" % seq,
            partition=seq % PARTITIONS, on_delivery=report,
        )
        self.sent += 1


def new_producer(bootstrap: str, **conf: object) -> Producer:
    base: dict[str, object] = {
        "bootstrap.servers": bootstrap,
        "linger.ms": 2,
        "batch.num.messages": 200,
        "message.timeout.ms": 120_000,
        "retry.backoff.ms": 50,
        "retry.backoff.max.ms": 300,
        "reconnect.backoff.ms": 20,
        "reconnect.backoff.max.ms": 300,
        "socket.connection.setup.timeout.ms": 2_000,
    }
    base.update(conf)
    return Producer(base)


def raw_fetch_all(bootstrap: str, topic: str, partition: int) -> list[tuple[int, bytes]]:
    """Every record of a partition over a raw socket, checking what a client could gloss over:
    the broker sends whole batches only, each with a valid CRC."""
    out: list[tuple[int, bytes]] = []
    offset = 0
    with WireClient(bootstrap) as c:
        while True:
            resp = c.call(FETCH, 12, fr.FetchRequest(
                replica_id=-1, max_wait_ms=0, min_bytes=1, max_bytes=4 << 20,
                session_id=0, session_epoch=-1,
                topics=[fr.FetchTopic(topic=topic, partitions=[fr.FetchPartition(
                    partition=partition, fetch_offset=offset, partition_max_bytes=1 << 20)])]))
            part = resp.responses[0].partitions[0]
            assert part.error_code == ErrorCode.NONE, (topic, partition, part.error_code)
            data = bytes(part.records or b"")
            if not data:
                assert offset == part.high_watermark, f"{topic}-{partition}: empty read below the HW"
                return out
            end = 0
            for pos, header in iter_batches(data):
                assert crc_is_valid(data, pos), f"{topic}-{partition}: batch at {header.base_offset} fails its CRC"
                _, records = decode_batch(data, pos)
                out += [(r.offset, r.value) for r in records if r.offset >= offset]
                end = pos + header.size
                offset = header.next_offset
            assert end == len(data), f"{topic}-{partition}: a partial batch was served ({len(data) - end} bytes)"


def check_partition_log(name: str, records: list[tuple[int, bytes]], partition: int) -> None:
    offsets = [o for o, _ in records]
    assert offsets == list(range(len(records))), f"{name}-{partition}: offsets are not dense from 0"


# -- kill -9 while producing ----------------------------------------------------------------


@pytest.mark.parametrize("rounds", [
    pytest.param(SHORT_ROUNDS, id="short"),
    pytest.param(ROUNDS, id="long", marks=pytest.mark.long),  # make test-long
])
def test_acknowledged_records_survive_repeated_kill_9(tmp_path: Path, rounds: int) -> None:
    rng = random.Random(SEED)
    broker = BrokerProcess(tmp_path / "kafka-logs", overrides={"num.partitions": PARTITIONS})
    broker.start()
    try:
        _run_kill_rounds(broker, rng, rounds)
    finally:
        broker.stop()


def _run_kill_rounds(broker: BrokerProcess, rng: random.Random, rounds: int) -> None:
    bootstrap = broker.bootstrap
    create_topic(bootstrap, "crash-acks1", PARTITIONS)
    create_topic(bootstrap, "crash-idempotent", PARTITIONS)
    plain = TrackedProducer(b"acks1", "crash-acks1", new_producer(bootstrap, acks="1"))
    idempotent = TrackedProducer(
        b"idem", "crash-idempotent",
        new_producer(bootstrap, acks="all", **{"enable.idempotence": True}),
    )
    producers = (plain, idempotent)
    stop = threading.Event()
    errors: list[BaseException] = []

    def produce_loop() -> None:
        try:
            n = 0
            while not stop.is_set():
                for p in producers:
                    try:
                        p.produce_next()
                    except BufferError:
                        p.producer.poll(0.05)
                    p.producer.poll(0)
                n += 1
                if n % 20 == 0:
                    time.sleep(0.002)  # a few thousand records/s each: many batches per round
        except BaseException as e:  # noqa: BLE001 - reported by the main thread
            errors.append(e)

    worker = threading.Thread(target=produce_loop, name="crash-producers")
    worker.start()
    started = time.monotonic()
    try:
        for _ in range(rounds):
            time.sleep(rng.uniform(0.05, 1.2))
            broker.kill()
            if rng.random() < 0.3:
                time.sleep(rng.uniform(0.0, 0.4))  # let the clients notice the outage
            broker.start()
    finally:
        stop.set()
        worker.join(30)
    assert not errors, f"producer thread failed: {errors[0]!r}"
    assert broker.starts == rounds + 1
    kill_phase = time.monotonic() - started

    for p in producers:
        left = p.producer.flush(90)
        assert left == 0, f"{p.name!r}: {left} records still undelivered"
    # One more crash with everything acknowledged: the final log is a recovered one.
    broker.restart(hard=True)

    for p in producers:
        assert len(p.acked) + len(p.failed) == p.sent
        assert not p.failed, f"{p.name!r}: {len(p.failed)} deliveries failed, e.g. {sorted(p.failed.items())[:3]}"
        assert len(p.acked) > 1000, f"{p.name!r}: only {len(p.acked)} records in {kill_phase:.0f}s"

    logs = read_back(bootstrap, "crash-acks1", range(PARTITIONS), timeout=60, **{"check.crcs": True})
    logs_idem = read_back(bootstrap, "crash-idempotent", range(PARTITIONS), timeout=60, **{"check.crcs": True})
    for p, topic_logs in ((plain, logs), (idempotent, logs_idem)):
        for partition, msgs in topic_logs.items():
            records = [(m.offset(), m.value()) for m in msgs]
            check_partition_log(p.topic, records, partition)
            raw = raw_fetch_all(bootstrap, p.topic, partition)
            assert raw == records, f"{p.topic}-{partition}: raw fetch and consumer disagree"
            seqs = [seq_of(v) for _, v in records]
            assert all(v == value_of(p.name, s) for (_, v), s in zip(records, seqs, strict=True)), (
                f"{p.topic}-{partition}: a record's bytes differ from what was sent")
            if p is idempotent:
                assert seqs == sorted(seqs), f"{p.topic}-{partition}: idempotent records out of order"
                dupes = [s for s, n in Counter(seqs).items() if n > 1]
                assert not dupes, f"{p.topic}-{partition}: idempotent records written twice: {dupes[:5]}"
        for seq, (partition, offset) in p.acked.items():
            msgs = topic_logs[partition]
            assert offset < len(msgs), f"{p.topic}: acked record {seq} at {partition}/{offset} is past the log end"
            assert msgs[offset].value() == value_of(p.name, seq), (
                f"{p.topic}: {partition}/{offset} is not acked record {seq}")
        total = sum(len(m) for m in topic_logs.values())
        print(f"{p.topic}: {rounds} kills in {kill_phase:.0f}s, {len(p.acked)} records acknowledged, "
              f"{total} in the log (seed {SEED})")


# -- damage while stopped -------------------------------------------------------------------


def wire_create(c: WireClient, topic: str, partitions: int) -> None:
    resp = c.call(CREATE_TOPICS, 5, ct.CreateTopicsRequest(
        topics=[ct.CreatableTopic(name=topic, num_partitions=partitions, replication_factor=1)],
        timeout_ms=10_000))
    assert resp.topics[0].error_code == ErrorCode.NONE, resp.topics[0]


def wire_produce(c: WireClient, topic: str, partition: int, values: list[bytes]) -> int:
    batch = bytes(build_batch([(None, v) for v in values]))
    resp = c.call(PRODUCE, 9, pr.ProduceRequest(acks=-1, timeout_ms=10_000, topic_data=[
        pr.TopicProduceData(name=topic, partition_data=[pr.PartitionProduceData(index=partition, records=batch)])]))
    part = resp.responses[0].partition_responses[0]
    assert part.error_code == ErrorCode.NONE
    return part.base_offset


def batch_positions(log_file: Path) -> list[int]:
    data = log_file.read_bytes()
    return [pos for pos, _ in iter_batches(data)]


BATCHES, PER_BATCH = 30, 4


def fill(broker: BrokerProcess, topic: str, partitions: int) -> None:
    with WireClient(broker.bootstrap) as c:
        wire_create(c, topic, partitions)
        for p in range(partitions):
            for b in range(BATCHES):
                values = [b"p%d-b%d-r%d-" % (p, b, r) + b"x" * 200 for r in range(PER_BATCH)]
                assert wire_produce(c, topic, p, values) == b * PER_BATCH


@pytest.mark.parametrize("shutdown", ["kill", "clean"])
def test_damaged_tail_and_index_are_repaired_at_startup(tmp_path: Path, shutdown: str) -> None:
    topic = "damaged"
    broker = BrokerProcess(tmp_path / "kafka-logs", overrides={"log.index.interval.bytes": 1024})
    broker.start()
    try:
        fill(broker, topic, 4)
        broker.kill() if shutdown == "kill" else broker.stop()
        seg = "00000000000000000000"
        logs = [broker.data_dir / f"{topic}-{p}" / f"{seg}.log" for p in range(4)]
        sizes = [f.stat().st_size for f in logs]
        last = [batch_positions(f)[-1] for f in logs]

        with logs[0].open("ab") as f:  # garbage after the last batch
            f.write(random.Random(1).randbytes(100))
        os.truncate(logs[1], sizes[1] - 10)  # a torn last batch
        if shutdown == "kill":  # a flipped byte inside the last batch (only checked after a crash)
            with logs[2].open("r+b") as f:
                f.seek(last[2] + 70)
                byte = f.read(1)
                f.seek(last[2] + 70)
                f.write(bytes([byte[0] ^ 0xFF]))
        index = logs[3].with_suffix(".index")
        index_size = index.stat().st_size
        if shutdown == "clean":
            # a clean shutdown writes every entry; after a kill the index may hold none yet
            # (entries reach the file in bunches) and the damage below is all it holds
            assert index_size >= 16, "the test needs index entries to damage"
        with index.open("ab") as f:  # not a whole entry
            f.write(b"\x01\x02\x03")
        timeindex = logs[3].with_suffix(".timeindex")
        timeindex.write_bytes(timeindex.read_bytes()[::-1])  # entries out of order

        mark = broker.log_path.stat().st_size
        broker.start()
        said = broker.log_path.read_text(errors="replace")[mark:]

        def dropped_line(p: int) -> str:
            found = re.search(rf"{topic}-{p}: {seg}\.log: dropped (\d+) bytes at position (\d+) \((.+)\)", said)
            assert found, f"no log line about what was cut from {topic}-{p}:\n{said}"
            return found.group(0)

        line = dropped_line(0)
        assert f"dropped 100 bytes at position {sizes[0]}" in line
        line = dropped_line(1)
        assert f"dropped {sizes[1] - 10 - last[1]} bytes at position {last[1]}" in line
        if shutdown == "kill":
            line = dropped_line(2)
            assert f"at position {last[2]} (CRC mismatch)" in line
        assert re.search(rf"{topic}-3: {seg}\.log: rebuilt {seg}\.index from the log: dropped its "
                         rf"{index_size + 3} bytes \(now \d+ entries\)", said), said
        if shutdown == "clean":  # trusted at start-up, so checked: the reason comes first
            assert re.search(rf"{topic}-3: offset index {seg}\.index: size {index_size + 3} is not a "
                             rf"multiple of 8; rebuilding from the log", said), said
        assert "Traceback" not in said

        with WireClient(broker.bootstrap) as c:
            for p in range(4):
                records = raw_fetch_all(broker.bootstrap, topic, p)
                lost_last = p in (1, 2) if shutdown == "kill" else p == 1
                kept = BATCHES - 1 if lost_last else BATCHES
                assert [o for o, _ in records] == list(range(kept * PER_BATCH)), f"partition {p}"
                assert records[-1][1].startswith(b"p%d-b%d-r%d-" % (p, kept - 1, PER_BATCH - 1))
                # The log goes on from the repaired end.
                assert wire_produce(c, topic, p, [b"after"]) == kept * PER_BATCH
                assert raw_fetch_all(broker.bootstrap, topic, p)[-1] == (kept * PER_BATCH, b"after")
        assert index.stat().st_size % 8 == 0 and timeindex.stat().st_size % 12 == 0
    finally:
        broker.stop()


# -- unusable log dirs ----------------------------------------------------------------------


def run_broker_once(log_dirs: Path, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    port = free_port()
    listener = f"PLAINTEXT://127.0.0.1:{port}"
    cmd = [*broker_command(), "serve", "--config", str(REPO_ROOT / "config" / "server.properties")]
    for key, value in {
        "broker.id": 0, "listeners": listener, "advertised.listeners": listener, "log.dirs": log_dirs,
    }.items():
        cmd += ["--override", f"{key}={value}"]
    return subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=timeout, cwd=REPO_ROOT, start_new_session=True)


def assert_one_line_error(result: subprocess.CompletedProcess[str], *expected: str) -> None:
    assert result.returncode != 0, f"broker did not fail:\n{result.stderr}"
    assert "Traceback" not in result.stderr, result.stderr
    errors = [line for line in result.stderr.splitlines() if " ERROR " in line]
    assert len(errors) == 1, result.stderr
    for text in expected:
        assert text in errors[0], errors[0]


def test_log_dir_that_is_a_regular_file(tmp_path: Path) -> None:
    not_a_dir = tmp_path / "kafka-logs"
    not_a_dir.write_text("this is a file\n")
    result = run_broker_once(not_a_dir)
    assert_one_line_error(result, str(not_a_dir), "log dir")
    assert not_a_dir.read_text() == "this is a file\n"


def test_log_dir_below_a_regular_file(tmp_path: Path) -> None:
    blocker = tmp_path / "blocker"
    blocker.write_text("")
    result = run_broker_once(blocker / "kafka-logs")
    assert_one_line_error(result, str(blocker / "kafka-logs"), "log dir")


def test_partition_that_cannot_be_opened(tmp_path: Path) -> None:
    """A segment file that is a directory: the log dir is named, with the file and the reason."""
    broker = BrokerProcess(tmp_path / "kafka-logs")
    broker.start()
    broker.stop()
    bad = broker.data_dir / "broken-0" / "00000000000000000000.log"
    bad.mkdir(parents=True)
    result = run_broker_once(broker.data_dir)
    assert_one_line_error(result, f"log dir {broker.data_dir}", str(bad))
