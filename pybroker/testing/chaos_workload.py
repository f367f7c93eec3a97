"""The load of a chaos run: idempotent acks=all producers writing unique, numbered records without
pause (confluent-kafka, and the Java client through Kafka's own ``VerifiableProducer``), a
consumer group reading throughout, a monitor noting which broker leads what, and the split
probe (:class:`SplitProbe`), which writes to every broker directly, so that what a leader cut
off from the cluster acknowledged is known by broker. The transactional and the
consumer-offset workloads are in :mod:`pybroker.testing.chaos_txn` and
:mod:`pybroker.testing.chaos_offsets`.

Each producer remembers every acknowledgement (an :class:`~pybroker.testing.chaos_check.Ack`,
on the run's clock) and every failed send; the consumer every (offset, value) it read per
partition. Nothing here judges: ``chaos_check`` does.
"""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Protocol

from confluent_kafka import (
    Consumer,
    KafkaError,
    KafkaException,
    Message,
    Producer,
    TopicPartition,
)

from protocol.messages import ApiKey, metadata_request as mreq, produce_request as preq
from protocol.records.record import build_batch
from pybroker.testing.broker_process import REPO_ROOT
from pybroker.testing.chaos_check import NO_ANSWER, Ack, ProbeWrite
from pybroker.testing.cluster import ClusterProcesses
from pybroker.testing.reference_kafka import LIB, TOOL_LOG4J
from pybroker.testing.wire_client import WireClient

Clock = Callable[[], float]

#: a short-lived tool's JVM: no optimising compiler, the serial collector, no hsperfdata file
TOOL_JVM = ("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-XX:-UsePerfData",
            "-Djava.awt.headless=true", "-Xmx256M")


@dataclass(frozen=True)
class SendError:
    producer: str
    seq: int
    error: str
    at: float


class LoadProducer(Protocol):
    """What the chaos run needs of a producer."""

    name: str
    topic: str
    acks: list[Ack]
    errors: list[SendError]
    started: float | None
    #: an error that ended the producer (it sends nothing more), if one did
    fatal: str | None

    def start(self) -> None: ...

    def stop(self, timeout: float = 150.0) -> int:
        """Stop sending, wait up to ``timeout`` for what is in flight to be acknowledged or
        fail; the number of sends that got neither."""
        ...

    def sent(self) -> int: ...


class LibrdkafkaProducer:
    """confluent-kafka: an idempotent acks=all producer sending ``<name>.<n>`` for n = 0, 1, ...
    to partition ``n % partitions`` at ``rate`` records a second, from a thread."""

    def __init__(self, bootstrap: str, topic: str, partitions: int, *, rate: float,
                 clock: Clock, name: str = "librdkafka",
                 message_timeout_ms: int = 120_000) -> None:
        self.name = name
        self.topic = topic
        self.partitions = partitions
        self.rate = rate
        self.clock = clock
        self.producer = Producer({
            "bootstrap.servers": bootstrap, "acks": "all", "enable.idempotence": True,
            "linger.ms": 5, "message.timeout.ms": message_timeout_ms,
            "client.id": f"chaos-{name}"})
        self.acks: list[Ack] = []
        self.errors: list[SendError] = []
        self.started: float | None = None
        self.fatal: str | None = None
        self._sent = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"producer-{name}", daemon=True)

    def sent(self) -> int:
        return self._sent

    def _delivered(self, err: KafkaError | None, msg: Message) -> None:
        value = msg.value() or b""
        seq = int(value.rsplit(b".", 1)[1])
        if err is None:
            self.acks.append(Ack(self.name, self.topic, msg.partition() or 0, msg.offset() or 0,
                                 seq, value, self.clock()))
        else:
            self.errors.append(SendError(self.name, seq, str(err), self.clock()))

    def _run(self) -> None:
        try:
            self._produce()
        except KafkaException as exc:  # a fatal error: librdkafka's producer is done for
            self.fatal = f"at t={self.clock():.1f}s: {exc}"

    def _produce(self) -> None:
        begun = time.monotonic()
        self.started = self.clock()
        while not self._stop.is_set():
            due = int((time.monotonic() - begun) * self.rate) + 1
            while self._sent < due:
                value = b"%s.%d" % (self.name.encode(), self._sent)
                try:
                    self.producer.produce(self.topic, value, partition=self._sent % self.partitions,
                                          on_delivery=self._delivered)
                except BufferError:  # the local queue is full: let deliveries drain it
                    self.producer.poll(0.05)
                    break
                self._sent += 1
            self.producer.poll(0.005)

    def start(self) -> None:
        self._thread.start()

    def stop(self, timeout: float = 150.0) -> int:
        self._stop.set()
        self._thread.join(30)
        try:
            return self.producer.flush(timeout)
        except KafkaException as exc:
            self.fatal = self.fatal or str(exc)
            return len(self.producer)


class JavaProducer:
    """Kafka's ``VerifiableProducer`` (the Java client, idempotent, acks=all) sending the numbers
    0, 1, ... at ``rate`` a second with the keys 0..``keys``-1 in turn, so that the default
    partitioner (by key hash) writes every partition all the time (without keys the sticky
    partitioner stays on one partition for a whole batch.size); its stdout, one JSON line per
    acknowledged or failed send, is read as it comes. Stopped by SIGTERM to its pid, on which
    it closes its producer (waiting for what is in flight) and exits."""

    MAIN_CLASS = "org.apache.kafka.tools.VerifiableProducer"

    def __init__(self, bootstrap: str, topic: str, *, rate: float, clock: Clock, work_dir: Path,
                 lib: Path = LIB, name: str = "java", delivery_timeout_ms: int = 120_000,
                 keys: int = 30) -> None:
        self.name = name
        self.topic = topic
        self.clock = clock
        self.acks: list[Ack] = []
        self.errors: list[SendError] = []
        self.started: float | None = None
        self.lib = lib
        self.work_dir = Path(work_dir)
        self.bootstrap = bootstrap
        self.rate = rate
        self.delivery_timeout_ms = delivery_timeout_ms
        self.keys = keys
        self.proc: subprocess.Popen[str] | None = None
        self.summary: dict[str, Any] = {}
        self.fatal: str | None = None
        self._sent = 0
        self._stderr: IO[bytes] | None = None
        self._reader: threading.Thread | None = None
        self._ready = threading.Event()

    @staticmethod
    def missing(lib: Path = LIB) -> list[str]:
        out = []
        if shutil.which("java") is None:
            out.append("java (a JDK: scripts/install-system-deps.sh)")
        if not any(lib.glob("kafka-tools-*.jar")):
            out.append(f"Kafka's tool jars in {lib} (scripts/kafka-tools-deps.sh)")
        return out

    def sent(self) -> int:
        return self._sent

    def command(self) -> list[str]:
        return [shutil.which("java") or "java", *TOOL_JVM,
                f"-Dlog4j.configuration={(self.work_dir / 'log4j.properties').as_uri()}",
                "-cp", f"{self.lib}/*", self.MAIN_CLASS,
                "--bootstrap-server", self.bootstrap, "--topic", self.topic,
                "--throughput", str(int(self.rate)), "--acks", "-1", "--max-messages", "-1",
                "--repeating-keys", str(self.keys),
                "--producer.config", str(self.work_dir / "producer.properties")]

    def start(self, timeout: float = 60.0) -> None:
        self.work_dir.mkdir(parents=True, exist_ok=True)
        (self.work_dir / "log4j.properties").write_text(TOOL_LOG4J)
        (self.work_dir / "producer.properties").write_text(
            "enable.idempotence=true\nacks=all\nlinger.ms=5\nretries=2147483647\n"
            f"delivery.timeout.ms={self.delivery_timeout_ms}\nclient.id=chaos-{self.name}\n")
        self._stderr = open(self.work_dir / "stderr.log", "wb")  # noqa: SIM115 - closed in stop
        self.proc = subprocess.Popen(self.command(), stdout=subprocess.PIPE, stderr=self._stderr,
                                     stdin=subprocess.DEVNULL, text=True, cwd=REPO_ROOT,
                                     start_new_session=True)
        self._reader = threading.Thread(target=self._read, name=f"producer-{self.name}",
                                        daemon=True)
        self._reader.start()
        if not self._ready.wait(timeout) or self.proc.poll() is not None:
            self.stop(10)
            tail = (self.work_dir / "stderr.log").read_text(errors="replace")[-3000:]
            raise RuntimeError(f"VerifiableProducer did not start within {timeout:.0f}s:\n{tail}")

    def _read(self) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        for line in self.proc.stdout:
            try:
                event = json.loads(line)
            except ValueError:
                continue
            name = event.get("name")
            if name == "startup_complete":
                self.started = self.clock()
                self._ready.set()
            elif name == "producer_send_success":
                value = str(event["value"])
                self._sent += 1
                self.acks.append(Ack(self.name, event["topic"], int(event["partition"]),
                                     int(event["offset"]), int(value), value.encode(),
                                     self.clock()))
            elif name == "producer_send_error":
                value = str(event.get("value"))
                self._sent += 1
                self.errors.append(SendError(
                    self.name, int(value) if value.isdigit() else -1,
                    f"{event.get('exception')}: {event.get('message')}", self.clock()))
            elif name == "tool_data":
                self.summary = event
                self._sent = max(self._sent, int(event.get("sent", 0)))
        self._ready.set()

    def stop(self, timeout: float = 150.0) -> int:
        """SIGTERM; the producer's close waits for what is in flight (bounded by the delivery
        timeout). SIGKILL if it has not exited after ``timeout``. Sends never answered."""
        if self.proc is not None:
            if self.proc.poll() is None:
                self.proc.send_signal(signal.SIGTERM)
                try:
                    self.proc.wait(timeout)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait(10)
            if self._reader is not None:
                self._reader.join(10)
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None
        if self.proc is not None and self.proc.returncode not in (0, 143, -15) and not self.fatal:
            self.fatal = f"VerifiableProducer exited with code {self.proc.returncode}"
        sent = int(self.summary.get("sent", self._sent))
        return max(0, sent - len(self.acks) - len(self.errors))


class GroupConsumer:
    """A confluent-kafka consumer in group ``group`` subscribed to ``topics`` from the earliest
    offset, committing automatically, reading from a thread until stopped; every (offset, value)
    read is kept per partition. ``settings`` adds to or overrides the consumer's
    (``isolation.level``)."""

    def __init__(self, bootstrap: str, topics: Sequence[str], *, group: str, clock: Clock,
                 settings: dict[str, object] | None = None) -> None:
        self.topics = list(topics)
        self.clock = clock
        self.consumer = Consumer({
            "bootstrap.servers": bootstrap, "group.id": group, "auto.offset.reset": "earliest",
            "enable.auto.commit": True, "auto.commit.interval.ms": 1000,
            "session.timeout.ms": 10000, "client.id": group, **(settings or {})})
        self.reads: dict[tuple[str, int], set[tuple[int, bytes]]] = defaultdict(set)
        self.positions: dict[tuple[str, int], int] = {}
        self.errors: list[str] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="group-consumer", daemon=True)

    def _run(self) -> None:
        self.consumer.subscribe(self.topics)
        while not self._stop.is_set():
            msg = self.consumer.poll(0.2)
            if msg is None:
                continue
            err = msg.error()
            if err is not None:
                self.errors.append(str(err))
                continue
            tp = (msg.topic() or "", msg.partition() or 0)
            offset = msg.offset() or 0
            self.reads[tp].add((offset, msg.value() or b""))
            self.positions[tp] = max(self.positions.get(tp, 0), offset + 1)
        self.consumer.close()

    def start(self) -> None:
        self._thread.start()

    def caught_up(self, ends: dict[tuple[str, int], int]) -> bool:
        return all(self.positions.get(tp, 0) >= end for tp, end in ends.items() if end > 0)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(60)


def read_back(bootstrap: str, partitions: Sequence[tuple[str, int]], timeout: float = 120.0,
              *, read_committed: bool = False,
              ) -> tuple[dict[tuple[str, int], list[tuple[int, bytes]]], dict[tuple[str, int], int]]:
    """Every record of ``partitions`` from offset 0 up to the high watermark, through a fresh
    consumer (no group offsets); the records and the high watermarks. ``read_committed``: as
    such a consumer reads them (no aborted records, no control records)."""
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "chaos-read-back",
                         "enable.auto.commit": False, "auto.offset.reset": "earliest",
                         "enable.partition.eof": True,
                         "isolation.level": "read_committed" if read_committed
                         else "read_uncommitted"})
    try:
        ends = {tp: consumer.get_watermark_offsets(TopicPartition(*tp), timeout=30)[1]
                for tp in partitions}
        out: dict[tuple[str, int], list[tuple[int, bytes]]] = {tp: [] for tp in partitions}
        consumer.assign([TopicPartition(t, p, 0) for t, p in partitions])
        done = {tp for tp, end in ends.items() if end == 0}
        deadline = time.monotonic() + timeout
        while len(done) < len(partitions):
            if time.monotonic() > deadline:
                raise TimeoutError(f"read-back incomplete after {timeout:.0f}s: "
                                   f"{ {tp: len(out[tp]) for tp in partitions} } of {ends}")
            msg = consumer.poll(0.5)
            if msg is None:
                continue
            tp = (msg.topic() or "", msg.partition() or 0)
            err = msg.error()
            if err is not None:
                if err.code() == KafkaError._PARTITION_EOF:
                    if msg.offset() is not None and (msg.offset() or 0) >= ends[tp]:
                        done.add(tp)
                    continue
                raise RuntimeError(f"read-back of {tp}: {err}")
            offset = msg.offset() or 0
            if offset < ends[tp]:
                out[tp].append((offset, msg.value() or b""))
            if offset + 1 >= ends[tp]:
                done.add(tp)
        return out, ends
    finally:
        consumer.close()


@dataclass(frozen=True)
class LeaderChange:
    at: float
    topic: str
    partition: int
    leader: int
    isr: tuple[int, ...]


class ClusterMonitor:
    """Asks a broker for Metadata every ``interval`` seconds (one the ``avoid`` callable does not
    name, as the nemesis's current target, when it can) and notes each change of controller
    and of each partition's leader and ISR, on the run's clock."""

    def __init__(self, cluster: ClusterProcesses, topics: Sequence[str], *, clock: Clock,
                 avoid: Callable[[], int | None] = lambda: None, interval: float = 1.0) -> None:
        self.cluster = cluster
        self.topics = list(topics)
        self.clock = clock
        self.avoid = avoid
        self.interval = interval
        self.controller: int | None = None
        self.controllers: list[tuple[float, int]] = []
        self.leaders: list[LeaderChange] = []
        self._last: dict[tuple[str, int], tuple[int, tuple[int, ...]]] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="monitor", daemon=True)

    def layout(self) -> dict[tuple[str, int], tuple[int, tuple[int, ...]]]:
        """The last (leader, ISR) seen of each partition."""
        return dict(self._last)

    def poll(self) -> bool:
        avoid = self.avoid()
        order = sorted(self.cluster.live(), key=lambda b: b == avoid)
        for broker_id in order:
            try:
                with WireClient(self.cluster.broker(broker_id).bootstrap, timeout=2) as client:
                    md = client.call(ApiKey.METADATA, 12, mreq.MetadataRequest(
                        topics=[mreq.MetadataRequestTopic(name=t) for t in self.topics],
                        allow_auto_topic_creation=False))
            except (OSError, ConnectionError, AssertionError):
                continue
            now = self.clock()
            if md.controller_id >= 0 and md.controller_id != self.controller:
                self.controller = md.controller_id
                self.controllers.append((now, md.controller_id))
            for topic in md.topics:
                if topic.error_code:
                    continue
                for p in topic.partitions:
                    key = (topic.name or "", p.partition_index)
                    state = (p.leader_id, tuple(sorted(p.isr_nodes)))
                    if self._last.get(key) != state:
                        self._last[key] = state
                        self.leaders.append(LeaderChange(now, key[0], key[1], *state))
            return True
        return False

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self.poll()

    def start(self) -> None:
        self.poll()
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(30)


def partition_leaders(cluster: ClusterProcesses, topics: Sequence[str],
                      exclude: int | None = None) -> dict[tuple[str, int], int]:
    """Each partition of ``topics`` and its leader, as the first running broker other than
    ``exclude`` that answers says in Metadata; OSError when none answers."""
    for broker_id in (b for b in cluster.live() if b != exclude):
        try:
            with WireClient(cluster.broker(broker_id).bootstrap, timeout=3) as client:
                md = client.call(ApiKey.METADATA, 12, mreq.MetadataRequest(
                    topics=[mreq.MetadataRequestTopic(name=t) for t in topics],
                    allow_auto_topic_creation=False))
        except (OSError, ConnectionError, AssertionError):
            continue
        return {(t.name or "", p.partition_index): p.leader_id
                for t in md.topics if not t.error_code for p in t.partitions}
    raise OSError(f"no broker answered Metadata for {list(topics)}")


class SplitProbe:
    """Writes to ``topic`` (all its ``partitions`` in each request) straight to every broker,
    whatever Metadata says leads: one thread per broker and ``acks`` value (1 and -1, i.e.
    all), each sending one Produce at a time, one new record per partition, every
    ``interval`` seconds. A broker that does not lead a partition answers
    NOT_LEADER_OR_FOLLOWER for it; the leader - also a leader cut off from the other brokers
    and ZooKeeper, which still believes it leads - takes it. Every record's answer is kept as a
    :class:`~pybroker.testing.chaos_check.ProbeWrite` naming the broker, so that the checker
    knows what the cut leader acknowledged and what the new one did. Nothing is retried; a
    connection that fails or does not answer within ``socket_timeout`` is opened again."""

    name = "split-probe"

    def __init__(self, cluster: ClusterProcesses, topic: str, partitions: int, *, clock: Clock,
                 interval: float = 0.1, acks_all_timeout_ms: int = 3000,
                 socket_timeout: float = 10.0) -> None:
        self.cluster = cluster
        self.topic = topic
        self.partitions = partitions
        self.clock = clock
        self.interval = interval
        self.acks_all_timeout_ms = acks_all_timeout_ms
        self.socket_timeout = socket_timeout
        self.writes: list[ProbeWrite] = []
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._run, args=(b, acks), daemon=True,
                                          name=f"split-probe-{b}-{acks}")
                         for b in sorted(cluster.brokers) for acks in (1, -1)]

    def _request(self, values: dict[int, bytes], acks: int) -> preq.ProduceRequest:
        return preq.ProduceRequest(
            acks=acks, timeout_ms=self.acks_all_timeout_ms, topic_data=[preq.TopicProduceData(
                name=self.topic, partition_data=[
                    preq.PartitionProduceData(index=p, records=build_batch([(None, v)]))
                    for p, v in values.items()])])

    def _run(self, broker_id: int, acks: int) -> None:
        client: WireClient | None = None
        seq = 0
        mode = "all" if acks == -1 else "one"
        try:
            while not self._stop.is_set():
                values = {p: b"probe-%s.b%d.p%d.%d" % (mode.encode(), broker_id, p, seq)
                          for p in range(self.partitions)}
                seq += 1
                sent = self.clock()
                try:
                    if client is None:
                        broker = self.cluster.broker(broker_id)
                        client = WireClient(broker.bootstrap, timeout=self.socket_timeout)
                    answer = client.call(ApiKey.PRODUCE, 9, self._request(values, acks))
                except (OSError, ConnectionError, AssertionError, ValueError):
                    answered = self.clock()
                    self.writes.extend(ProbeWrite(broker_id, acks, self.topic, p, v, sent,
                                                  answered, NO_ANSWER)
                                       for p, v in values.items())
                    if client is not None:
                        client.close()
                        client = None
                    self._stop.wait(0.2)
                    continue
                answered = self.clock()
                got = {r.index: r for t in answer.responses for r in t.partition_responses}
                for p, v in values.items():
                    r = got.get(p)
                    self.writes.append(ProbeWrite(
                        broker_id, acks, self.topic, p, v, sent, answered,
                        NO_ANSWER if r is None else r.error_code,
                        -1 if r is None or r.error_code else r.base_offset))
                self._stop.wait(self.interval)
        finally:
            if client is not None:
                client.close()

    def start(self) -> None:
        for thread in self._threads:
            thread.start()

    def stop(self) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(self.socket_timeout + 5)
