"""One chaos run, as ``tests/cluster/test_chaos.py`` (about two minutes) and ``make chaos`` (as
long as asked) run it: three brokers on 127.0.0.2-4 on one ZooKeeper, topics at replication
factor 3 with ``min.insync.replicas=2``, idempotent acks=all producers (confluent-kafka and
Kafka's ``VerifiableProducer``) writing numbered records without pause and a consumer group
reading throughout, while a seeded nemesis (``pybroker.testing.nemesis``) kills, freezes and
cuts brokers off one at a time. Then:

1. the nemesis undoes its last fault, the load runs on for ``settle`` seconds and stops (each
   producer waits for what it has in flight);
2. the consumer group reads up to the high watermarks, or gives up after a minute;
3. a fresh consumer reads every partition back from offset 0;
4. once every replica of every partition holds the same bytes (or after a minute), the brokers
   stop cleanly (SIGTERM) and each replica's segment files are read from its log dir, with the
   high watermarks the brokers checkpointed at shutdown;
5. ``pybroker.testing.chaos_check`` judges the records and the replicas.

Disk after a clean stop is the honest place to compare replicas: it is what each broker will
serve after a restart, and no code of the broker under test stands between the files and the
comparison (a Fetch with a replica id would read them through the very code being checked).

Every process is stopped by its pid, and the firewall chain and cgroups of network faults are
removed, whatever happens.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from confluent_kafka.admin import AdminClient
from confluent_kafka.cimpl import NewTopic

from pybroker.log.checkpoints import REPLICATION_OFFSET_CHECKPOINT, read_offset_checkpoint
from pybroker.testing.chaos_check import (
    Ack,
    Gap,
    RecordCheck,
    ReplicaCheck,
    acks_below_min_isr,
    check_records,
    check_replicas,
    longest_gap,
)
from pybroker.testing.chaos_workload import (
    ClusterMonitor,
    GroupConsumer,
    JavaProducer,
    LibrdkafkaProducer,
    LoadProducer,
    read_back,
)
from pybroker.testing.cluster import ClusterProcesses, wait_for
from pybroker.testing.nemesis import (
    NETWORK_FAULTS,
    Endpoint,
    FaultEvent,
    Nemesis,
    NemesisConfig,
    NetworkCut,
    NetworkSetup,
)

#: broker id -> its own loopback address
HOSTS = {1: "127.0.0.2", 2: "127.0.0.3", 3: "127.0.0.4"}
SESSION_TIMEOUT_MS = 6000
#: broker settings of a chaos run, on top of pybroker.testing.cluster.FAST_FAILOVER
BROKER_OVERRIDES: dict[str, object] = {
    "zookeeper.session.timeout.ms": SESSION_TIMEOUT_MS,
    "replica.lag.time.max.ms": 5000,
    "replica.high.watermark.checkpoint.interval.ms": 500,
    "offsets.topic.num.partitions": 3,
    "offsets.topic.replication.factor": 3,
    "unclean.leader.election.enable": "false",
}
TOPIC_CONFIGS = {"min.insync.replicas": "2", "unclean.leader.election.enable": "false"}
OFFSETS_TOPIC = "__consumer_offsets"


@dataclass
class ChaosConfig:
    """A run: ``duration`` seconds of faults of ``faults`` kinds chosen by ``seed``."""

    duration: float = 90.0
    seed: int = 0
    faults: tuple[str, ...] = ("kill", "freeze")
    partitions: int = 3
    #: records a second, per producer
    rate: float = 200.0
    java: bool = True
    #: load before the first fault and after the last
    settle: float = 10.0
    interval: tuple[float, float] = (2.0, 5.0)
    #: how long a producer keeps retrying one record (message.timeout.ms, delivery.timeout.ms)
    delivery_timeout_ms: int = 60_000
    #: how long a producer, once stopped, waits for what it has in flight
    stop_timeout: float = 70.0

    def nemesis(self) -> NemesisConfig:
        return NemesisConfig(kinds=self.faults, seed=self.seed, interval=self.interval,
                             session_timeout=SESSION_TIMEOUT_MS / 1000)

    def to_json(self) -> dict[str, object]:
        return {"duration": self.duration, "seed": self.seed, "faults": list(self.faults),
                "partitions": self.partitions, "rate": self.rate, "java": self.java,
                "settle": self.settle, "interval": list(self.interval),
                "delivery_timeout_ms": self.delivery_timeout_ms}


@dataclass
class ProducerSummary:
    name: str
    topic: str
    sent: int
    acknowledged: int
    errors: int
    unanswered: int
    longest_gap: Gap
    ack_times: list[float] = field(repr=False, default_factory=list)
    error_samples: list[str] = field(default_factory=list)
    fatal: str | None = None


@dataclass
class ChaosResult:
    config: ChaosConfig
    started_at: str
    records: RecordCheck
    replicas: ReplicaCheck
    producers: list[ProducerSummary]
    faults: list[FaultEvent]
    controllers: list[tuple[float, int]]
    leaders: list[Any]
    nemesis_error: str | None
    load_end: float
    notes: list[str] = field(default_factory=list)
    #: partition -> (leader, ISR) as last seen
    final_layout: dict[tuple[str, int], tuple[int, tuple[int, ...]]] = field(
        default_factory=dict)
    #: partition -> when its last acknowledgement came
    last_acks: dict[tuple[str, int], float] = field(default_factory=dict)
    #: acknowledgements while Metadata showed an ISR below min.insync.replicas (for the record)
    acked_below_min_isr: int = 0

    @property
    def stalled(self) -> list[tuple[str, int]]:
        """Partitions no producer got an acknowledgement from after the last fault."""
        recovered_by = self.load_end - self.config.settle
        return sorted(tp for tp, t in self.last_acks.items() if t < recovered_by)

    @property
    def counts(self) -> dict[str, int]:
        r = self.records
        return {"acknowledged": r.acknowledged, "lost": len(r.lost),
                "duplicated": r.duplicated, "divergent": len(self.replicas.divergent),
                "misplaced": len(r.misplaced), "out_of_order": r.out_of_order,
                "phantom": r.phantom, "group_missed": r.group_missed,
                "unacknowledged_present": r.unacknowledged_present,
                "send_errors": sum(p.errors for p in self.producers),
                "acked_below_min_isr": self.acked_below_min_isr,
                "faults": len(self.faults)}

    @property
    def safety_failures(self) -> list[str]:
        """What the cluster got wrong about the data: anything here means an acknowledged write
        was lost or misplaced, a consumer read something that later disappeared, or replicas
        diverged (or the nemesis could not do its work)."""
        out = [f"{name}: {count}" for name, count in self.records.failures.items()
               if count and name != "group_missed"]
        if self.replicas.divergent:
            out.append(f"divergent: {len(self.replicas.divergent)}")
        if self.nemesis_error:
            out.append(f"nemesis: {self.nemesis_error}")
        return out

    @property
    def liveness_failures(self) -> list[str]:
        """What the cluster did not do once the faults were over: take writes on every
        partition again, and let the consumer group read everything acknowledged."""
        out = []
        for p in self.producers:
            if p.fatal:
                out.append(f"{p.name}: stopped by a fatal error {p.fatal}")
            if not p.acknowledged:
                out.append(f"{p.name}: nothing acknowledged")
            elif max(p.ack_times) < self.load_end - self.config.settle:
                out.append(f"{p.name}: no acknowledgement after the last fault")
        if self.stalled:
            out.append("stalled after the last fault: " + ", ".join(
                f"{t}-{p} (leader, ISR {self.final_layout.get((t, p))})"
                for t, p in self.stalled))
        if self.records.group_missed:
            out.append(f"group_missed: {self.records.group_missed}")
        return out

    @property
    def failures(self) -> list[str]:
        """Why the run failed; empty when it passed."""
        return self.safety_failures + self.liveness_failures

    @property
    def passed(self) -> bool:
        return not self.failures

    def summary(self) -> str:
        c = self.counts
        lines = [f"chaos seed {self.config.seed}, faults {','.join(self.config.faults)}, "
                 f"{len(self.faults)} injected over {self.config.duration:.0f}s",
                 f"acknowledged {c['acknowledged']}  lost {c['lost']}  duplicated "
                 f"{c['duplicated']}  divergent {c['divergent']}  (misplaced {c['misplaced']}, "
                 f"out of order {c['out_of_order']}, phantom reads {c['phantom']}, "
                 f"missed by the group {c['group_missed']}, unacknowledged but present "
                 f"{c['unacknowledged_present']}, send errors {c['send_errors']}, "
                 f"acknowledged while Metadata showed an ISR below min.insync.replicas "
                 f"{c['acked_below_min_isr']})"]
        for p in self.producers:
            g = p.longest_gap
            lines.append(f"  {p.name}: {p.acknowledged} of {p.sent} acknowledged, {p.errors} "
                         f"failed, longest unavailability {g.seconds:.1f}s "
                         f"(t={g.start:.1f}..{g.end:.1f})")
            if p.fatal:
                lines.append(f"    fatal: {p.fatal}")
        lines.append(f"  replicas: {self.replicas.replicas} of {self.replicas.partitions} "
                     f"partitions compared, {self.replicas.bytes_compared} bytes below the "
                     "high watermarks")
        lines += [f"  divergent: {d}" for d in self.replicas.divergent[:10]]
        lines += [f"  lost: {a}" for a in self.records.lost[:10]]
        lines.append("  at the end (leader, ISR): " + ", ".join(
            f"{t}-{p} {leader} {list(isr)}"
            for (t, p), (leader, isr) in sorted(self.final_layout.items())))
        lines += [f"  note: {n}" for n in self.notes]
        lines.append("PASSED" if self.passed else "FAILED: " + "; ".join(self.failures))
        return "\n".join(lines)

    def to_json(self) -> dict[str, object]:
        return {
            "config": self.config.to_json(), "started_at": self.started_at,
            "passed": self.passed, "failures": self.failures,
            "safety_failures": self.safety_failures,
            "liveness_failures": self.liveness_failures, "counts": self.counts,
            "producers": [{"name": p.name, "topic": p.topic, "sent": p.sent,
                           "acknowledged": p.acknowledged, "errors": p.errors,
                           "unanswered": p.unanswered,
                           "longest_unavailability_s": round(p.longest_gap.seconds, 3),
                           "longest_unavailability_from": round(p.longest_gap.start, 3),
                           "longest_unavailability_to": round(p.longest_gap.end, 3),
                           "error_samples": p.error_samples, "fatal": p.fatal}
                          for p in self.producers],
            "faults": [f.to_json() for f in self.faults],
            "controllers": [{"at": round(t, 3), "controller": c} for t, c in self.controllers],
            "leaders": [{"at": round(c.at, 3), "topic": c.topic, "partition": c.partition,
                         "leader": c.leader, "isr": list(c.isr)} for c in self.leaders],
            "divergent": [str(d) for d in self.replicas.divergent],
            "lost_samples": [repr(a) for a in self.records.lost[:50]],
            "misplaced_samples": [repr(a) for a in self.records.misplaced[:50]],
            "replicas": {"partitions": self.replicas.partitions,
                         "replicas": self.replicas.replicas,
                         "bytes_compared": self.replicas.bytes_compared},
            "nemesis_error": self.nemesis_error, "load_end": round(self.load_end, 3),
            "notes": self.notes,
            "final_layout": [{"topic": t, "partition": p, "leader": leader, "isr": list(isr)}
                             for (t, p), (leader, isr) in sorted(self.final_layout.items())],
            "last_acks": [{"topic": t, "partition": p, "at": round(at, 3)}
                          for (t, p), at in sorted(self.last_acks.items())],
        }


def replica_bytes(cluster: ClusterProcesses, broker: int, topic: str, partition: int) -> bytes:
    """The partition's records as ``broker`` stores them: its segment files in offset order."""
    directory = cluster.broker(broker).data_dir / f"{topic}-{partition}"
    segments = sorted(directory.glob("*.log")) if directory.is_dir() else []
    return b"".join(s.read_bytes() for s in segments)


def hosted(cluster: ClusterProcesses, broker: int, topics: set[str]) -> set[tuple[str, int]]:
    """The partitions of ``topics`` with a directory in ``broker``'s log dir."""
    out = set()
    for d in cluster.broker(broker).data_dir.iterdir():
        topic, _, partition = d.name.rpartition("-")
        if d.is_dir() and topic in topics and partition.isdigit():
            out.add((topic, int(partition)))
    return out


def replicas_identical(cluster: ClusterProcesses, partitions: list[tuple[str, int]]) -> bool:
    for topic, partition in partitions:
        copies = {replica_bytes(cluster, b, topic, partition) for b in cluster.brokers}
        if len(copies) != 1:
            return False
    return True


def create_topics(cluster: ClusterProcesses, topics: list[str], partitions: int) -> None:
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap})
    futures = admin.create_topics(
        [NewTopic(t, partitions, 3, config=TOPIC_CONFIGS) for t in topics], operation_timeout=30)
    for future in futures.values():
        future.result()


def run_chaos(config: ChaosConfig, work_dir: Path, zookeeper_connect: str,
              zookeeper: Endpoint, *, log: Callable[[str], None] = print) -> ChaosResult:
    """Run ``config`` on a cluster of its own in ``work_dir`` on the ZooKeeper at
    ``zookeeper_connect`` (a chroot of its own), whose server listens at ``zookeeper``."""
    started_at = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    origin = time.monotonic()

    def clock() -> float:
        return time.monotonic() - origin

    def note(text: str) -> None:
        log(f"[{clock():7.1f}s] {text}")

    network = NetworkSetup.make(sorted(HOSTS)) if NETWORK_FAULTS & set(config.faults) else None
    if network is not None and network.removed_stale:
        note(f"removed leftovers of earlier runs: {', '.join(network.removed_stale)}")
    cluster = ClusterProcesses(work_dir / "cluster", zookeeper_connect, hosts=HOSTS,
                               overrides=BROKER_OVERRIDES,
                               cgroups=network.cgroups.dirs if network else None)
    topics = ["chaos-librdkafka"] + (["chaos-java"] if config.java else [])
    producers: list[LoadProducer] = []
    consumer: GroupConsumer | None = None
    monitor: ClusterMonitor | None = None
    nemesis: Nemesis | None = None
    notes: list[str] = []
    try:
        cluster.start()
        note(f"brokers {', '.join(cluster.broker(b).bootstrap for b in cluster.brokers)} "
             f"on ZooKeeper {zookeeper_connect}")
        create_topics(cluster, topics, config.partitions)
        mon = monitor = ClusterMonitor(
            cluster, topics, clock=clock,
            avoid=lambda: nemesis.faulted if nemesis is not None else None)
        wait_for(lambda: mon.poll() and len({(c.topic, c.partition) for c in mon.leaders})
                 == len(topics) * config.partitions, 30, "every partition led")
        mon.start()
        group = consumer = GroupConsumer(cluster.bootstrap, topics, group="chaos-group",
                                         clock=clock)
        group.start()
        producers.append(LibrdkafkaProducer(
            cluster.bootstrap, topics[0], config.partitions, rate=config.rate, clock=clock,
            message_timeout_ms=config.delivery_timeout_ms))
        if config.java:
            producers.append(JavaProducer(
                cluster.bootstrap, topics[1], rate=config.rate, clock=clock,
                work_dir=work_dir / "java-producer",
                delivery_timeout_ms=config.delivery_timeout_ms))
        for producer in producers:
            producer.start()
        note(f"load: {', '.join(p.name for p in producers)} at {config.rate:.0f} records/s each")
        time.sleep(config.settle)
        cut = None if network is None else NetworkCut(cluster, network.cgroups,
                                                       network.firewall, zookeeper)
        nemesis = Nemesis(cluster, config.nemesis(), network=cut, clock=clock,
                          controller=lambda: mon.controller, log=note)
        note(f"nemesis: seed {config.seed}, faults {','.join(config.faults)}, "
             f"{config.duration:.0f}s")
        nemesis.start()
        time.sleep(config.duration)
        nemesis.stop()
        nemesis.wait_recovered()
        note("nemesis stopped; the load runs on")
        time.sleep(config.settle)
        load_end = clock()
        unanswered = {p.name: p.stop(config.stop_timeout) for p in producers}
        note(f"load stopped; unanswered sends: {unanswered}")

        partitions = [(t, p) for t in topics for p in range(config.partitions)]
        final, ends = read_back(cluster.bootstrap, partitions)
        note(f"read back {sum(len(v) for v in final.values())} records")
        try:
            wait_for(lambda: group.caught_up(ends), 60,
                     "the consumer group to reach the high watermarks")
        except AssertionError as exc:
            notes.append(str(exc))
        consumer.stop()
        monitor.stop()
        final_layout = monitor.layout()
        all_partitions = partitions + sorted(
            {tp for b in cluster.brokers for tp in hosted(cluster, b, {OFFSETS_TOPIC})})
        try:
            wait_for(lambda: replicas_identical(cluster, all_partitions), 60,
                     "identical replicas before the clean stop")
        except AssertionError as exc:
            notes.append(f"replicas still differed at the clean stop ({exc})")
        cluster.stop()
        note("brokers stopped cleanly")

        copies: dict[tuple[str, int], dict[int, bytes]] = defaultdict(dict)
        hws: dict[tuple[str, int], int] = {}
        for b in cluster.brokers:
            checkpoint = read_offset_checkpoint(
                cluster.broker(b).data_dir / REPLICATION_OFFSET_CHECKPOINT)
            for tp in hosted(cluster, b, set(topics) | {OFFSETS_TOPIC}):
                copies[tp][b] = replica_bytes(cluster, b, *tp)
                hws[tp] = max(hws.get(tp, 0), checkpoint.get(tp, 0))
        acks: list[Ack] = [a for p in producers for a in p.acks]
        last_acks: dict[tuple[str, int], float] = {}
        for a in acks:
            last_acks[a.tp] = max(last_acks.get(a.tp, 0.0), a.at)
        records = check_records(acks, final, consumer.reads)
        isr_sizes: dict[tuple[str, int], list[tuple[float, int]]] = defaultdict(list)
        for change in monitor.leaders:
            isr_sizes[(change.topic, change.partition)].append((change.at, len(change.isr)))
        below = acks_below_min_isr(acks, isr_sizes, int(TOPIC_CONFIGS["min.insync.replicas"]))
        replicas = check_replicas(copies, hws)
        summaries = []
        for p in producers:
            times = [a.at for a in p.acks]
            summaries.append(ProducerSummary(
                p.name, p.topic, p.sent(), len(p.acks), len(p.errors), unanswered[p.name],
                longest_gap(times, p.started or 0.0, load_end), times,
                sorted({e.error for e in p.errors})[:10], p.fatal))
        return ChaosResult(
            config, started_at, records, replicas, summaries, nemesis.events,
            monitor.controllers, monitor.leaders,
            repr(nemesis.error) if nemesis.error else None, load_end, notes, final_layout,
            last_acks, below)
    finally:
        for closing in (nemesis.stop if nemesis else None,
                        *(lambda p=p: p.stop(10) for p in producers),
                        consumer.stop if consumer else None,
                        monitor.stop if monitor else None,
                        cluster.stop,
                        network.close if network else None):
            if closing is None:
                continue
            try:
                closing()
            except Exception as exc:  # noqa: BLE001 - go on stopping the rest
                log(f"while stopping: {exc!r}")
