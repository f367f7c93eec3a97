"""Real clients for the failover tests, each recording what it was told on the wall clock
(``time.time()``, which the Java tools print too) for ``pybroker.testing.failover`` to judge.

* :func:`create_topic` (replication factor 3, ``min.insync.replicas=2``, every replica in
  sync before it returns), :func:`read_partition`, :func:`settled_coordinator`.
* :class:`NumberedProducer` — confluent-kafka, idempotent, acks=all: unique numbered values,
  round robin over the partitions, at a steady rate, from a thread.
* Members of a consumer group that read and commit after every poll, as Kafka's
  ``VerifiableConsumer`` does: :class:`ConfluentMember` (librdkafka),
  :class:`KafkaPythonMember` (kafka-python's ``KafkaConsumer``) and
  :class:`VerifiableConsumerMember` (the Java client, through Kafka 3.9's own
  ``org.apache.kafka.tools.VerifiableConsumer`` in a JVM of its own, started as
  ``tests/compat/cli``'s ``KafkaCli`` starts the tools and stopped by its pid).
"""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Protocol

from confluent_kafka import Consumer, KafkaError, KafkaException, Message, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from pybroker.testing.broker_process import REPO_ROOT
from pybroker.testing.cluster import ClusterProcesses
from pybroker.testing.failover import Commit, Read, coordinator_of, full_isr
from tests.compat.group_helpers import subscribe_knowing_topic

LOG4J_CONFIG = REPO_ROOT / "tests" / "compat" / "cli" / "tools-log4j.properties"
#: a short-lived tool's JVM, as tests/compat/cli runs Kafka's tools
JVM_FLAGS = ("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-XX:-UsePerfData",
             "-Djava.awt.headless=true", "-Xmx256M",
             f"-Dlog4j.configuration={LOG4J_CONFIG.as_uri()}")
#: the Java client's default session timeout since Kafka 3.0 (KIP-735), for every client
SESSION_TIMEOUT_MS = 45_000


@dataclass(frozen=True)
class Ack:
    value: bytes
    partition: int
    offset: int
    sent: float
    acked: float


class NumberedProducer:
    """Sends ``<name>-<n>`` for n = 0, 1, ... to partition ``n % partitions``, ``rate`` records a
    second, and remembers when each was sent and acknowledged."""

    def __init__(self, bootstrap: str, topic: str, partitions: int, *, name: str = "producer",
                 rate: float = 300, **config: object) -> None:
        self.name = name
        self.topic = topic
        self.partitions = partitions
        self.rate = rate
        self.producer = Producer({
            "bootstrap.servers": bootstrap, "acks": "all", "enable.idempotence": True,
            "linger.ms": 5, "message.timeout.ms": 120_000, "client.id": name, **config})
        self.acks: list[Ack] = []
        self.errors: list[str] = []
        self.sent_at: dict[bytes, float] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)

    @property
    def sent(self) -> int:
        return len(self.sent_at)

    def in_flight(self) -> int:
        return self.sent - len(self.acks) - len(self.errors)

    def _delivered(self, err: KafkaError | None, msg: Message) -> None:
        value = msg.value() or b""
        if err is None:
            self.acks.append(Ack(value, msg.partition() or 0, msg.offset() or 0,
                                 self.sent_at[value], time.time()))
        else:
            self.errors.append(f"{value!r}: {err}")

    def _run(self) -> None:
        begun = time.monotonic()
        n = 0
        while not self._stop.is_set():
            due = int((time.monotonic() - begun) * self.rate) + 1
            while n < due and not self._stop.is_set():
                value = b"%s-%08d" % (self.name.encode(), n)
                self.sent_at[value] = time.time()
                try:
                    self.producer.produce(self.topic, value, partition=n % self.partitions,
                                          on_delivery=self._delivered)
                except BufferError:
                    del self.sent_at[value]
                    break
                n += 1
            self.producer.poll(0.01)

    def start(self) -> NumberedProducer:
        self._thread.start()
        return self

    def stop(self, timeout: float = 60) -> int:
        """Stop sending and wait for every send to be acknowledged or fail; the number left."""
        self._stop.set()
        self._thread.join(10)
        return self.producer.flush(timeout)

    def acked_values(self) -> list[bytes]:
        return [a.value for a in self.acks]

    def ack_times(self) -> list[tuple[float, float]]:
        return [(a.sent, a.acked) for a in list(self.acks)]


class GroupMember(Protocol):
    """What the failover tests need of a consumer group member."""

    name: str
    reads: list[Read]
    commits: list[Commit]
    assigned: set[int]
    errors: list[str]

    def start(self) -> None: ...

    def request_stop(self) -> None:
        """Stop reading, without waiting."""
        ...

    def stop(self) -> None:
        """Stop reading and close; wait until closed."""
        ...


MemberFactory = Callable[[str, str, str, str], GroupMember]  # (bootstrap, topic, group, name)


class _ThreadMember:
    """A member on a thread of its own: poll, record, commit what was read, again."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.reads: list[Read] = []
        self.commits: list[Commit] = []
        self.assigned: set[int] = set()
        self.errors: list[str] = []
        #: partition -> next offset to commit, for what was read and not yet committed
        self.pending: dict[int, int] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name=name, daemon=True)

    def start(self) -> None:
        self._thread.start()

    def request_stop(self) -> None:
        self._stop.set()

    def stop(self) -> None:
        self._stop.set()
        if self._thread.ident is None:  # never started
            return
        self._thread.join(60)
        assert not self._thread.is_alive(), f"{self.name} did not stop"

    def _loop(self) -> None:
        try:
            self.run(self._stop)
        except Exception as exc:  # noqa: BLE001 - the test reads it from errors
            self.errors.append(f"{type(exc).__name__}: {exc}")

    def run(self, stop: threading.Event) -> None:
        raise NotImplementedError

    def read(self, partition: int, offset: int, value: bytes) -> None:
        self.reads.append(Read(self.name, partition, offset, value, time.time()))
        self.pending[partition] = offset + 1

    def revoked(self, partitions: set[int]) -> None:
        self.assigned -= partitions
        for p in partitions:
            self.pending.pop(p, None)

    def committed(self, offsets: dict[int, int], ok: bool) -> None:
        self.commits.append(Commit(self.name, time.time(), offsets, ok))
        if ok:
            for p, o in offsets.items():
                if self.pending.get(p) == o:
                    del self.pending[p]


class ConfluentMember(_ThreadMember):
    def __init__(self, bootstrap: str, topic: str, group: str, name: str) -> None:
        super().__init__(name)
        self.topic = topic
        self.consumer = Consumer({
            "bootstrap.servers": bootstrap, "group.id": group, "client.id": name,
            "enable.auto.commit": False, "auto.offset.reset": "earliest",
            "session.timeout.ms": SESSION_TIMEOUT_MS})

    def run(self, stop: threading.Event) -> None:
        def on_assign(_: Consumer, tps: list[TopicPartition]) -> None:
            self.assigned |= {tp.partition for tp in tps}

        def on_revoke(_: Consumer, tps: list[TopicPartition]) -> None:
            self.revoked({tp.partition for tp in tps})

        self.consumer.subscribe([self.topic], on_assign=on_assign, on_revoke=on_revoke)
        try:
            while not stop.is_set():
                for msg in self.consumer.consume(200, 0.2):
                    if msg.error():
                        self.errors.append(str(msg.error()))
                    else:
                        self.read(msg.partition() or 0, msg.offset() or 0, msg.value() or b"")
                if self.pending:
                    self.commit(dict(self.pending))
        finally:
            self.consumer.close()

    def commit(self, offsets: dict[int, int]) -> None:
        try:
            answer = self.consumer.commit(offsets=[
                TopicPartition(self.topic, p, o) for p, o in offsets.items()],
                asynchronous=False) or []
            self.committed(offsets, all(tp.error is None for tp in answer))
        except KafkaException:
            self.committed(offsets, False)


class KafkaPythonMember(_ThreadMember):
    def __init__(self, bootstrap: str, topic: str, group: str, name: str) -> None:
        from kafka import KafkaConsumer

        super().__init__(name)
        self.topic = topic
        self.consumer = KafkaConsumer(
            bootstrap_servers=bootstrap.split(","), group_id=group, client_id=name,
            enable_auto_commit=False, auto_offset_reset="earliest",
            session_timeout_ms=SESSION_TIMEOUT_MS)

    def run(self, stop: threading.Event) -> None:
        from kafka import ConsumerRebalanceListener, OffsetAndMetadata, TopicPartition as KTP
        from kafka.errors import KafkaError as KPError

        member = self

        class Listener(ConsumerRebalanceListener):
            def on_partitions_revoked(self, revoked: list[KTP]) -> None:
                member.revoked({tp.partition for tp in revoked})

            def on_partitions_assigned(self, assigned: list[KTP]) -> None:
                member.assigned |= {tp.partition for tp in assigned}

        subscribe_knowing_topic(self.consumer, self.topic, Listener())
        try:
            while not stop.is_set():
                for tp, records in self.consumer.poll(timeout_ms=200, max_records=200).items():
                    for record in records:
                        self.read(tp.partition, record.offset, record.value)
                if self.pending:
                    offsets = dict(self.pending)
                    try:
                        self.consumer.commit({KTP(self.topic, p): OffsetAndMetadata(o, "", -1)
                                              for p, o in offsets.items()})
                        self.committed(offsets, True)
                    except KPError:
                        self.committed(offsets, False)
        finally:
            self.consumer.close(autocommit=False)


class VerifiableConsumerMember:
    """Kafka 3.9's ``VerifiableConsumer`` (the Java client): ``--verbose`` prints every record,
    and it commits synchronously after each poll, printing each commit's outcome."""

    MAIN_CLASS = "org.apache.kafka.tools.VerifiableConsumer"

    def __init__(self, bootstrap: str, topic: str, group: str, name: str, *, lib: Path,
                 log_dir: Path) -> None:
        self.name = name
        self.reads: list[Read] = []
        self.commits: list[Commit] = []
        self.assigned: set[int] = set()
        self.errors: list[str] = []
        self.shutdown_complete = False
        self.command = [
            shutil.which("java") or "java", *JVM_FLAGS, "-cp", f"{lib}/*", self.MAIN_CLASS,
            "--bootstrap-server", bootstrap, "--topic", topic, "--group-id", group,
            "--session-timeout", str(SESSION_TIMEOUT_MS), "--reset-policy", "earliest",
            "--verbose"]
        self.stderr_path = log_dir / f"{name}.stderr.log"
        self.proc: subprocess.Popen[str] | None = None
        self._stderr: IO[bytes] | None = None
        self._reader: threading.Thread | None = None

    def start(self) -> None:
        self.stderr_path.parent.mkdir(parents=True, exist_ok=True)
        self._stderr = open(self.stderr_path, "wb")  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen(self.command, stdout=subprocess.PIPE, stderr=self._stderr,
                                     stdin=subprocess.DEVNULL, text=True, cwd=REPO_ROOT)
        self._reader = threading.Thread(target=self._read, name=self.name, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        for line in self.proc.stdout:
            try:
                event = json.loads(line)
            except ValueError:
                self.errors.append(line.rstrip())
                continue
            self.handle(event)

    def handle(self, event: dict) -> None:
        at = event["timestamp"] / 1000
        name = event["name"]
        if name == "record_data":
            self.reads.append(Read(self.name, event["partition"], event["offset"],
                                   event["value"].encode(), at))
        elif name == "offsets_committed":
            self.commits.append(Commit(self.name, at, {o["partition"]: o["offset"]
                                                       for o in event["offsets"]},
                                       bool(event["success"])))
        elif name == "partitions_assigned":
            self.assigned |= {p["partition"] for p in event["partitions"]}
        elif name == "partitions_revoked":
            self.assigned -= {p["partition"] for p in event["partitions"]}
        elif name == "shutdown_complete":
            self.shutdown_complete = True

    def request_stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)

    def stop(self) -> None:
        """SIGTERM (its shutdown hook closes the consumer and prints shutdown_complete), by pid;
        SIGKILL if it lingers."""
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
                self.errors.append("did not exit 30 s after SIGTERM")
        if self._reader is not None:
            self._reader.join(10)
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None

    def stderr_tail(self, lines: int = 40) -> str:
        try:
            return "\n".join(self.stderr_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""


def wait_until(condition: Callable[[], object], timeout: float, what: str,
               interval: float = 0.1) -> float:
    """Poll ``condition`` until truthy; the ``time.time()`` it became so."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return time.time()
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}")


def create_topic(cluster: ClusterProcesses, name: str, partitions: int,
                 config: dict[str, str] | None = None) -> None:
    """At replication factor 3 and ``min.insync.replicas=2``; returns once every live broker
    answers it led with every replica in sync."""
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap})
    admin.create_topics([NewTopic(name, partitions, 3, config={
        "min.insync.replicas": "2", **(config or {})})], operation_timeout=30)[name].result()
    wait_until(lambda: full_isr(cluster, name), 30, f"{name} led, with every replica in sync")


def settled_coordinator(cluster: ClusterProcesses, group: str, timeout: float) -> int:
    """The group's coordinator, once every live broker agrees on a live one."""
    found: list[int] = []

    def settled() -> bool:
        node = coordinator_of(cluster, group)
        if node is not None:
            found.append(node)
        return node is not None

    wait_until(settled, timeout, f"a live coordinator of {group} every broker agrees on")
    return found[-1]


def read_partition(bootstrap: str, topic: str, partition: int, timeout: float = 30,
                   ) -> list[tuple[int, bytes]]:
    """(offset, value) of every record of the partition below its high watermark, read by a
    plain librdkafka consumer from offset 0."""
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "failover-read-back",
                         "enable.auto.commit": False, "enable.partition.eof": True})
    try:
        end = consumer.get_watermark_offsets(TopicPartition(topic, partition), timeout=10)[1]
        consumer.assign([TopicPartition(topic, partition, 0)])
        out: list[tuple[int, bytes]] = []
        deadline = time.monotonic() + timeout
        while (not out or out[-1][0] < end - 1) and end > 0:
            if time.monotonic() > deadline:
                raise AssertionError(f"read {len(out)} records of {topic}-{partition} "
                                     f"in {timeout:.0f}s; its high watermark is {end}")
            msg = consumer.poll(0.2)
            if msg is not None and not msg.error():
                out.append((msg.offset() or 0, msg.value() or b""))
        return out
    finally:
        consumer.close()
