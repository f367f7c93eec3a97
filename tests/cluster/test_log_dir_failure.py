"""Log dir failures in a cluster (KIP-112), with real faults: real broker processes, a real
ZooKeeper, real clients, a log dir on a size-limited tmpfs that the test fills up, a log dir on
a FUSE file system whose fsync the test breaks (:mod:`pybroker.testing.faulty_fs`), and a log
dir the test removes.

* **A follower's disk fills under load** (the scenario of the defect this proves gone): three
  brokers, topics at replication factor 3 with ``min.insync.replicas=2``, an idempotent acks=all
  producer and a transactional one. Broker 3, a follower of every partition, has its only log
  dir on a small tmpfs; the test fills it. Broker 3 halts as Kafka's does ("all log dirs ...
  have failed", exit code 1) instead of carrying on with a torn batch in its log; the others go
  on taking writes. Ten seconds later the space is freed and broker 3 restarted: it catches up
  and rejoins every ISR, is made leader (preferred election), and its followers replicate past
  the point of the fault. At the end nothing acknowledged is lost, every committed transaction
  reads whole and no aborted one at all, the replicas are byte-identical up to the high
  watermark, every batch on every replica passes its CRC, and every ISR is full.
* **A broker with several log dirs loses three of them** - one fills up, one's fsync fails,
  one is removed - and keeps serving its fourth: each failed dir goes offline on the broker
  (DescribeLogDirs answers KAFKA_STORAGE_ERROR for it), the controller moves its partitions'
  leaderships away and takes the broker out of their ISRs (Metadata lists it as an offline
  replica), while the partitions of the healthy dir stay in sync on it. Restarted once the
  faults are cleared, the broker catches up every partition and rejoins every ISR, and nothing
  acknowledged was lost.

Mounting needs root (or CAP_SYS_ADMIN) and the FUSE test ``/dev/fuse``, fusermount3 and
libfuse 3: where one is missing the test is skipped, naming it.
"""

from __future__ import annotations

import shutil
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest
from confluent_kafka import Consumer, ElectionType, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from protocol.errors import ErrorCode
from protocol.messages import (
    ApiKey,
    describe_log_dirs_request as dreq,
    metadata_request as mreq,
    metadata_response as mresp,
)
from pybroker.compat.jvm_clients import KafkaCli
from pybroker.testing.chaos_check import check_replicas
from pybroker.testing.cluster import ClusterProcesses, wait_for
from pybroker.testing.disk import (
    FaultyFilesystem,
    SmallFilesystem,
    disk_faults_missing,
    fuse_missing,
)
from pybroker.testing.failover import agreed_states, full_isr, high_watermarks
from pybroker.testing.log_files import log_dir_problems
from pybroker.testing.wire_client import WireClient
from tests.cluster.failover_clients import NumberedProducer, read_partition

pytestmark = pytest.mark.timeout(420)

HALTED = "Shutdown broker because all log dirs in"
SETTINGS = {
    # checkpoints (each an fsync) every second: a failing fsync is met within a second
    "replica.high.watermark.checkpoint.interval.ms": 1000,
    "replica.lag.time.max.ms": 10000,
}


@pytest.fixture
def mounts() -> Iterator[ExitStack]:
    missing = disk_faults_missing()
    if missing:
        pytest.skip(f"SKIPPED: the log dir failure tests need {'; '.join(missing)}")
    with ExitStack() as stack:
        yield stack


def replica_bytes(cluster: ClusterProcesses, broker: int, topic: str, partition: int) -> bytes:
    """The partition's segment files on ``broker``, in whichever of its log dirs holds it."""
    for data_dir in log_dirs(cluster, broker):
        directory = data_dir / f"{topic}-{partition}"
        if directory.is_dir():
            return b"".join(s.read_bytes() for s in sorted(directory.glob("*.log")))
    return b""


def log_dirs(cluster: ClusterProcesses, broker: int) -> list[Path]:
    process = cluster.broker(broker)
    return [Path(d) for d in process.overrides["log.dirs"].split(",")]


def metadata(cluster: ClusterProcesses, broker: int, topic: str,
             ) -> dict[int, mresp.MetadataResponsePartition]:
    with WireClient(cluster.broker(broker).bootstrap) as client:
        md = client.call(ApiKey.METADATA, 12, mreq.MetadataRequest(
            topics=[mreq.MetadataRequestTopic(name=topic)], allow_auto_topic_creation=False))
    return {p.partition_index: p for p in md.topics[0].partitions}


def describe_log_dirs(cluster: ClusterProcesses, broker: int) -> dict[str, int]:
    """Each log dir of ``broker`` with the error DescribeLogDirs answers for it."""
    with WireClient(cluster.broker(broker).bootstrap) as client:
        answer = client.call(ApiKey.DESCRIBE_LOG_DIRS, 4,
                             dreq.DescribeLogDirsRequest(topics=None))
    return {r.log_dir: r.error_code for r in answer.results}


def check_nothing_lost(cluster: ClusterProcesses, producer: NumberedProducer) -> None:
    """Every acknowledged record is in the log at the offset acknowledged, exactly once."""
    found: dict[bytes, tuple[int, int]] = {}
    for p in range(producer.partitions):
        for offset, value in read_partition(cluster.bootstrap, producer.topic, p, timeout=60):
            assert value not in found, f"{value!r} is in the log twice"
            found[value] = (p, offset)
    lost = [a for a in producer.acks if found.get(a.value) != (a.partition, a.offset)]
    assert not lost, f"{len(lost)} of {len(producer.acks)} acknowledged records lost or " \
                     f"moved, e.g. {lost[:3]}"


def dump_log_segments(lib: Path, files: list[Path]) -> str:
    """What Kafka's own ``kafka-dump-log`` (DumpLogSegments) prints for ``files``."""
    run = KafkaCli("", lib).run("kafka-dump-log", "--files", ",".join(map(str, files)),
                                timeout=120)
    return run.stdout


def check_replicas_and_files(cluster: ClusterProcesses, topics: dict[str, int],
                             kafka_tools: Path) -> None:
    """Replicas byte-identical up to the high watermark; then, with the brokers stopped, every
    segment whole and every batch valid on every replica, as pybroker's own check and Kafka's
    DumpLogSegments both read them."""
    copies, hws = {}, {}
    for topic, partitions in topics.items():
        for p, hw in high_watermarks(cluster, topic, partitions).items():
            hws[(topic, p)] = hw
            copies[(topic, p)] = {b: replica_bytes(cluster, b, topic, p)
                                  for b in cluster.brokers}
    assert len(hws) == sum(topics.values()), hws
    replicas = check_replicas(copies, hws)
    assert not replicas.divergent, [str(d) for d in replicas.divergent]
    cluster.stop()
    problems = []
    segments = []
    for broker in cluster.brokers:
        for data_dir in log_dirs(cluster, broker):
            for topic in topics:
                for d in data_dir.glob(f"{topic}-*"):
                    problems += [f"broker {broker}: {p}" for p in log_dir_problems(d)]
                    segments += sorted(d.glob("*.log"))
    assert not problems, problems
    dumped = dump_log_segments(kafka_tools, segments)
    assert dumped.count("isvalid: true") >= len(segments), dumped[-3000:]
    assert "isvalid: false" not in dumped and "invalid bytes" not in dumped, \
        [line for line in dumped.splitlines() if "isvalid: false" in line or "invalid" in line]


class Transactions:
    """A transactional producer committing or aborting a transaction of ``size`` records
    over every partition, one after the other, until stopped; remembers each outcome."""

    def __init__(self, bootstrap: str, topic: str, partitions: int, size: int = 6) -> None:
        self.topic, self.partitions, self.size = topic, partitions, size
        self.producer = Producer({
            "bootstrap.servers": bootstrap, "transactional.id": "disk-faults",
            "transaction.timeout.ms": 60000, "message.timeout.ms": 55000, "linger.ms": 2})
        self.committed: list[list[bytes]] = []
        self.aborted: list[list[bytes]] = []
        self.failed: list[str] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="transactions", daemon=True)

    def _run(self) -> None:
        self.producer.init_transactions(60)
        n = 0
        while not self._stop.is_set():
            values = [b"txn-%06d-%d" % (n, i) for i in range(self.size)]
            try:
                self.producer.begin_transaction()
                for i, value in enumerate(values):
                    self.producer.produce(self.topic, value, partition=i % self.partitions)
                if n % 4 == 3:
                    self.producer.abort_transaction(60)
                    self.aborted.append(values)
                else:
                    self.producer.commit_transaction(60)
                    self.committed.append(values)
            except KafkaException as e:
                self.failed.append(str(e))
                if e.args[0].txn_requires_abort():
                    self.producer.abort_transaction(60)
                    self.aborted.append(values)
                elif not e.args[0].retriable():
                    raise
            n += 1
            time.sleep(0.05)

    def start(self) -> Transactions:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(120)
        assert not self._thread.is_alive(), "the transactional producer did not finish"

    def check(self, bootstrap: str) -> None:
        """Read committed: every committed transaction whole, nothing of an aborted one."""
        consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "disk-faults-check",
                             "isolation.level": "read_committed", "enable.auto.commit": False,
                             "enable.partition.eof": True, "auto.offset.reset": "earliest"})
        try:
            consumer.assign([TopicPartition(self.topic, p, 0) for p in range(self.partitions)])
            seen: set[bytes] = set()
            at_end: set[int] = set()
            deadline = time.monotonic() + 60
            while len(at_end) < self.partitions and time.monotonic() < deadline:
                msg = consumer.poll(0.5)
                if msg is None:
                    continue
                if msg.error():
                    at_end.add(msg.partition() or 0)
                    continue
                seen.add(msg.value() or b"")
        finally:
            consumer.close()
        assert len(at_end) == self.partitions, "the read_committed consumer did not finish"
        torn = [t for t in self.committed if not set(t) <= seen]
        assert not torn, f"{len(torn)} committed transactions not read whole, e.g. {torn[:2]}"
        read_aborted = [t for t in self.aborted if set(t) & seen]
        assert not read_aborted, f"aborted transactions were read: {read_aborted[:2]}"


def create(cluster: ClusterProcesses, topic: str, assignment: list[list[int]]) -> None:
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap})
    admin.create_topics([NewTopic(topic, num_partitions=len(assignment),
                                  replica_assignment=assignment, config={
        "min.insync.replicas": "2"})], operation_timeout=30)[topic].result()
    wait_for(lambda: full_isr(cluster, topic), 30, f"{topic} led, every replica in sync")


def leaders(cluster: ClusterProcesses, topic: str) -> dict[int, int] | None:
    states = agreed_states(cluster, topic)
    return None if states is None else {p: s[0] for p, s in states.items()}


def test_a_follower_whose_disk_fills_halts_then_catches_up_and_leads(
        tmp_path: Path, zk_connect: str, mounts: ExitStack, kafka_tools_lib: Path) -> None:
    cluster = ClusterProcesses(tmp_path / "cluster", zk_connect, overrides=SETTINGS)
    disk = mounts.enter_context(SmallFilesystem(cluster.broker(3).data_dir, 48 << 20))
    mounts.callback(cluster.stop)
    cluster.start()
    topic, txn_topic = "disk", "disk-txn"
    # broker 3 first in every assignment (the preferred leader), a follower to begin with: it
    # restarts once, so that brokers 1 and 2 lead
    create(cluster, topic, [[3, 1, 2], [3, 2, 1], [3, 1, 2]])
    create(cluster, txn_topic, [[3, 1, 2], [3, 2, 1]])
    cluster.broker(3).restart()
    wait_for(lambda: full_isr(cluster, topic) and full_isr(cluster, txn_topic), 60,
             "every replica in sync after broker 3's restart")
    assert 3 not in (leaders(cluster, topic) or {3: 3}).values()

    producer = NumberedProducer(cluster.bootstrap, topic, 3, rate=400).start()
    txns = Transactions(cluster.bootstrap, txn_topic, 2).start()
    try:
        wait_for(lambda: len(producer.acks) >= 2000, 60, "records acknowledged before the fault")
        ends_at_fault = high_watermarks(cluster, topic, 3)
        disk.fill()
        wait_for(lambda: not cluster.broker(3).is_running(), 60, "broker 3 to halt")
        assert cluster.broker(3).stop() == 1
        log_text = cluster.broker(3).log_path.read_text()
        assert HALTED in log_text and "No space left on device" in log_text, log_text[-3000:]
        # the others go on taking acks=all writes with two replicas in sync
        acked = len(producer.acks)
        wait_for(lambda: len(producer.acks) >= acked + 1000, 60,
                 "records acknowledged without broker 3")
        time.sleep(max(0.0, 10 - 2))  # the disk stays full ten seconds in all
        disk.free()
        cluster.broker(3).start()
        wait_for(lambda: full_isr(cluster, topic) and full_isr(cluster, txn_topic), 90,
                 "broker 3 back in every ISR")
        # broker 3 leads (its preferred leaderships), and its followers replicate from it
        admin = AdminClient({"bootstrap.servers": cluster.bootstrap})
        admin.elect_leaders(ElectionType.PREFERRED, [TopicPartition(topic, p) for p in range(3)]
                            + [TopicPartition(txn_topic, p) for p in range(2)]).result(30)
        wait_for(lambda: set((leaders(cluster, topic) or {}).values()) == {3}, 30,
                 "broker 3 leading every partition")
        acked = len(producer.acks)
        wait_for(lambda: len(producer.acks) >= acked + 1000, 60,
                 "records acknowledged with broker 3 leading")
    finally:
        assert producer.stop() == 0, "records still unacknowledged"
        txns.stop()
    wait_for(lambda: full_isr(cluster, topic) and full_isr(cluster, txn_topic), 60,
             "every ISR full at the end")
    ends = high_watermarks(cluster, topic, 3)
    assert all(ends[p] > ends_at_fault[p] + 300 for p in range(3)), (ends_at_fault, ends)
    assert producer.errors == [], producer.errors[:5]
    check_nothing_lost(cluster, producer)
    assert len(txns.committed) >= 10, (len(txns.committed), txns.failed)
    txns.check(cluster.bootstrap)
    check_replicas_and_files(cluster, {topic: 3, txn_topic: 2}, kafka_tools_lib)


def test_failed_log_dirs_go_offline_while_the_broker_serves_its_healthy_one(
        tmp_path: Path, zk_connect: str, mounts: ExitStack, kafka_tools_lib: Path) -> None:
    missing = fuse_missing()
    if missing:
        pytest.skip(f"SKIPPED: the fsync fault needs {'; '.join(missing)}")
    base = tmp_path / "broker-3-dirs"
    full, broken, removed, healthy = (base / n for n in ("full", "fsync", "removed", "healthy"))
    cluster = ClusterProcesses(tmp_path / "cluster", zk_connect, overrides=SETTINGS)
    cluster.broker(3).extra_overrides["log.dirs"] = ",".join(
        str(d) for d in (full, broken, removed, healthy))
    disk = mounts.enter_context(SmallFilesystem(full, 24 << 20))
    fuse = mounts.enter_context(FaultyFilesystem(base / "fsync-source", broken))
    mounts.callback(cluster.stop)
    cluster.start()
    topic, partitions = "jbod", 8
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap})
    admin.create_topics([NewTopic(topic, partitions, 3, config={"min.insync.replicas": "2"})],
                        operation_timeout=30)[topic].result()
    wait_for(lambda: full_isr(cluster, topic), 30, "every replica in sync")
    where = {d: sorted(int(p.name.rsplit("-", 1)[1]) for p in d.glob(f"{topic}-*"))
             for d in (full, broken, removed, healthy)}
    assert all(len(ps) == 2 for ps in where.values()), where  # two replicas in each dir

    producer = NumberedProducer(cluster.bootstrap, topic, partitions, rate=300).start()
    try:
        wait_for(lambda: len(producer.acks) >= 1000, 60, "records acknowledged before the faults")
        faults = [("full", full, disk.fill), ("fsync", broken, lambda: fuse.fail("fsync")),
                  ("removed", removed, lambda: shutil.rmtree(removed))]
        offline: list[Path] = []
        for name, log_dir, inject in faults:
            inject()
            offline.append(log_dir)
            dirs_now: dict[str, int] = {}

            def took_offline(dirs_now: dict[str, int] = dirs_now) -> bool:
                dirs_now.update(describe_log_dirs(cluster, 3))
                return all(dirs_now.get(str(d.absolute())) == ErrorCode.KAFKA_STORAGE_ERROR
                           for d in offline)

            wait_for(took_offline, 30, f"the {name} log dir offline on broker 3")
            assert dirs_now[str(healthy.absolute())] == ErrorCode.NONE, dirs_now
            gone = [p for d in offline for p in where[d]]

            def moved_away(gone: list[int] = gone) -> bool:
                md = metadata(cluster, 1, topic)
                return all(3 not in md[p].isr_nodes and md[p].leader_id not in (3, -1)
                           and 3 in md[p].offline_replicas for p in gone)

            wait_for(moved_away, 30, f"the controller moving {gone} off broker 3 ({name})")
            md = metadata(cluster, 1, topic)
            assert all(3 in md[p].isr_nodes for p in where[healthy]), md
            assert cluster.broker(3).is_running()
            acked = len(producer.acks)
            wait_for(lambda acked=acked: len(producer.acks) >= acked + 300, 60,
                     f"records acknowledged after the {name} fault")
        log_text = cluster.broker(3).log_path.read_text()
        for log_dir in offline:
            assert f"Stopping serving logs in dir {log_dir}" in log_text
        # the faults are cleared; a restart brings the dirs back (the removed one empty)
        disk.free()
        fuse.fail()
        cluster.broker(3).restart()
        wait_for(lambda: full_isr(cluster, topic), 120, "broker 3 back in every ISR")
        assert set(describe_log_dirs(cluster, 3).values()) == {ErrorCode.NONE}
        acked = len(producer.acks)
        wait_for(lambda: len(producer.acks) >= acked + 300, 60, "records acknowledged at the end")
    finally:
        assert producer.stop() == 0, "records still unacknowledged"
    assert producer.errors == [], producer.errors[:5]
    check_nothing_lost(cluster, producer)
    check_replicas_and_files(cluster, {topic: partitions}, kafka_tools_lib)
