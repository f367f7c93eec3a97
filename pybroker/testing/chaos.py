"""One chaos run, as ``tests/cluster/test_chaos.py`` (a few minutes) and ``make chaos`` (as
long as asked) run it: three brokers on 127.0.0.2-4 on one ZooKeeper, topics at replication
factor 3 with ``min.insync.replicas=2``, and under load

* idempotent acks=all producers (confluent-kafka and Kafka's ``VerifiableProducer``) writing
  numbered records without pause, and a consumer group reading them throughout;
* with ``split`` among the faults, the split probe (``chaos_workload.SplitProbe``) writing
  acks=1 and acks=all records of ``chaos-split`` straight to every broker;
* the transactional workload (``chaos_txn``): transactions over several partitions of
  ``chaos-txn``, committed or aborted at random, and a read_committed group reading them;
* the consumer-offset workload (``chaos_offsets``): a group committing its position in
  ``chaos-librdkafka`` and a sampler of its committed offsets and the high watermarks;

while a seeded nemesis (``pybroker.testing.nemesis``) kills, freezes and cuts brokers off, splits
a leader from the cluster, cuts the controller off from ZooKeeper and kills ZooKeeper, one fault
at a time. Then:

1. the nemesis undoes its last fault, the load runs on for ``settle`` seconds and stops (each
   producer waits for what it has in flight);
2. the consumer groups read up to the high watermarks, or give up after a minute;
3. a fresh consumer reads every partition back from offset 0 (``chaos-txn`` read_committed);
4. once every replica of every partition holds the same bytes (or after a minute), the brokers
   stop cleanly (SIGTERM) and each replica's segment files are read from its log dir, with the
   high watermarks the brokers checkpointed at shutdown; the brokers' logs are read for the
   controller elections, the control requests each broker applied or refused, and the
   truncations of their state-change logs;
5. ``pybroker.testing.chaos_check`` judges the records, the replicas, the splits, the
   controllers' fencing, the stalls during and after each fault, the transactions and the
   committed offsets.

Disk after a clean stop is the honest place to compare replicas: it is what each broker will
serve after a restart, and no code of the broker under test stands between the files and the
comparison (a Fetch with a replica id would read them through the very code being checked).

Every process is stopped by its pid, and the firewall chain and cgroups of network faults are
removed, whatever happens.
"""

from __future__ import annotations

import shutil
import time
from collections import defaultdict
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from confluent_kafka.admin import AdminClient
from confluent_kafka.cimpl import NewTopic

from pybroker.log.checkpoints import REPLICATION_OFFSET_CHECKPOINT, read_offset_checkpoint
from pybroker.testing.chaos_check import (
    COMMITTED,
    Ack,
    FencingCheck,
    Gap,
    LogEvent,
    OffsetCheck,
    RecordCheck,
    ReplicaCheck,
    Split,
    SplitCheck,
    TxnCheck,
    acks_below_min_isr,
    check_controller_fencing,
    check_offsets,
    check_records,
    check_replicas,
    check_split,
    check_transactions,
    longest_gap,
    parse_broker_log,
    stall_begun,
)
from pybroker.testing.chaos_offsets import OffsetWorkload
from pybroker.testing.chaos_txn import TransactionalWorkload
from pybroker.testing.chaos_workload import (
    ClusterMonitor,
    GroupConsumer,
    JavaProducer,
    LibrdkafkaProducer,
    LoadProducer,
    SplitProbe,
    partition_leaders,
    read_back,
)
from pybroker.testing.cluster import ClusterProcesses, wait_for
from pybroker.testing.disk import SmallFilesystem
from pybroker.testing.nemesis import (
    DISK_FAULTS,
    NETWORK_FAULTS,
    Endpoint,
    FaultEvent,
    Nemesis,
    NemesisConfig,
    NetworkCut,
    NetworkSetup,
)
from pybroker.testing.zookeeper import ZooKeeperServer

#: broker id -> its own loopback address
HOSTS = {1: "127.0.0.2", 2: "127.0.0.3", 3: "127.0.0.4"}
SESSION_TIMEOUT_MS = 6000
#: the size of each broker's log dir when the run fills disks (a tmpfs: only what is written
#: takes memory)
DISK_BYTES = 1 << 30
#: a follower that has not caught up for this long leaves the ISR: the split's deadline for a
#: cut leader's last acks=all acknowledgement
REPLICA_LAG_TIME_MAX_MS = 5000
#: broker settings of a chaos run, on top of pybroker.testing.cluster.FAST_FAILOVER
BROKER_OVERRIDES: dict[str, object] = {
    "zookeeper.session.timeout.ms": SESSION_TIMEOUT_MS,
    "replica.lag.time.max.ms": REPLICA_LAG_TIME_MAX_MS,
    "replica.high.watermark.checkpoint.interval.ms": 500,
    "offsets.topic.num.partitions": 3,
    "offsets.topic.replication.factor": 3,
    "transaction.state.log.num.partitions": 3,
    "transaction.state.log.replication.factor": 3,
    "transaction.state.log.min.isr": 2,
    "transaction.abort.timed.out.transaction.cleanup.interval.ms": 1000,
    "unclean.leader.election.enable": "false",
}
TOPIC_CONFIGS = {"min.insync.replicas": "2", "unclean.leader.election.enable": "false"}
OFFSETS_TOPIC = "__consumer_offsets"
TRANSACTIONS_TOPIC = "__transaction_state"
SPLIT_TOPIC = "chaos-split"
TXN_TOPIC = "chaos-txn"
#: how long after a fault (until the next begins) a partition's stall beginning then counts to it
STALL_AFTER = 10.0
#: faults after which a broker may still believe, for a while, that it is a coordinator or a
#: leader the cluster replaced (it was cut off or frozen), and how long that while is at most
SUSPECT_KINDS = frozenset({"freeze", "cut", "isolate", "split", "zk-cut"})
SUSPECT_AFTER = 15.0
#: the longest a partition may go without an acknowledgement during and after a fault of these
#: kinds, none of which takes a leader away from the clients for long: ZooKeeper's death
#: changes no leader; a controller cut off from ZooKeeper loses its leaderships once its
#: session expires, and clients writing to it find the new leaders once it rejoins (the cut
#: is healed at most two seconds after another broker took over as the controller)
STALL_LIMITS = {"zk-kill": 4.0, "zk-cut": 6.0}


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
    #: the nemesis stops by itself after this many rounds (every kind once a round), or when
    #: ``duration`` is over, whichever comes first; None: ``duration`` alone
    rounds: int | None = None
    #: the transactional workload and the consumer-offset workload
    transactions: bool = True
    offsets: bool = True
    #: the longest stall allowed during and after a fault, by kind (seconds)
    stall_limits: dict[str, float] = field(default_factory=lambda: dict(STALL_LIMITS))

    def nemesis(self) -> NemesisConfig:
        return NemesisConfig(kinds=self.faults, seed=self.seed, interval=self.interval,
                             session_timeout=SESSION_TIMEOUT_MS / 1000, rounds=self.rounds)

    @property
    def split_probe(self) -> bool:
        return "split" in self.faults

    def to_json(self) -> dict[str, object]:
        return {"duration": self.duration, "seed": self.seed, "faults": list(self.faults),
                "partitions": self.partitions, "rate": self.rate, "java": self.java,
                "settle": self.settle, "interval": list(self.interval),
                "delivery_timeout_ms": self.delivery_timeout_ms, "rounds": self.rounds,
                "transactions": self.transactions, "offsets": self.offsets,
                "stall_limits": self.stall_limits}


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


@dataclass(frozen=True)
class FaultStall:
    """The longest a partition of the numbered records' topics went without an acknowledgement
    in a stall that began during ``fault`` or up to :data:`STALL_AFTER` seconds after its end
    (before the next fault's start), and which partition; ``limit`` is what its kind allows
    (None: no limit)."""

    fault: FaultEvent
    gap: Gap
    tp: tuple[str, int] | None
    limit: float | None

    @property
    def over(self) -> bool:
        return self.limit is not None and self.gap.seconds > self.limit

    def to_json(self) -> dict[str, object]:
        return {"kind": self.fault.kind, "broker": self.fault.broker,
                "fault_started": round(self.fault.started, 3),
                "longest_stall_s": round(self.gap.seconds, 3),
                "from": round(self.gap.start, 3), "to": round(self.gap.end, 3),
                "partition": None if self.tp is None else f"{self.tp[0]}-{self.tp[1]}",
                "limit_s": self.limit}


@dataclass
class WorkloadSummary:
    """What a workload besides the numbered records did: counts, samples of its errors, and
    when each kind of event it counts happened (for the report's plot)."""

    name: str
    counts: dict[str, int] = field(default_factory=dict)
    error_samples: list[str] = field(default_factory=list)
    times: dict[str, list[float]] = field(default_factory=dict, repr=False)


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
    #: the splits, judged by the split probe's writes (None: no split among the faults)
    split: SplitCheck | None = None
    #: controller elections and the control requests of older epochs that came after them
    fencing: FencingCheck = field(default_factory=FencingCheck)
    #: the longest stall during and after each fault
    stalls: list[FaultStall] = field(default_factory=list)
    #: the transactions (None: the workload did not run)
    txns: TxnCheck | None = None
    #: the committed offsets (None: the workload did not run)
    offsets: OffsetCheck | None = None
    workloads: list[WorkloadSummary] = field(default_factory=list)

    @property
    def stalled(self) -> list[tuple[str, int]]:
        """Partitions no producer got an acknowledgement from after the last fault."""
        recovered_by = self.load_end - self.config.settle
        return sorted(tp for tp, t in self.last_acks.items() if t < recovered_by)

    @property
    def counts(self) -> dict[str, int]:
        r = self.records
        out = {"acknowledged": r.acknowledged, "lost": len(r.lost),
               "duplicated": r.duplicated, "divergent": len(self.replicas.divergent),
               "misplaced": len(r.misplaced), "out_of_order": r.out_of_order,
               "phantom": r.phantom, "group_missed": r.group_missed,
               "unacknowledged_present": r.unacknowledged_present,
               "send_errors": sum(p.errors for p in self.producers),
               "acked_below_min_isr": self.acked_below_min_isr,
               "faults": len(self.faults),
               "controller_takeovers": len(self.fencing.takeovers),
               "stale_controller_requests_applied": self.fencing.stale_applied,
               "stale_controller_requests_refused": self.fencing.stale_refused,
               "stale_controller_requests_after_resignation":
                   self.fencing.stale_after_resignation,
               "stalls_over_limit": sum(1 for st in self.stalls if st.over)}
        if self.split is not None:
            sp = self.split
            out.update({"split_probe_sent": sp.sent,
                        "split_probe_acks_all_taken": sp.acks_all_taken,
                        "split_probe_acks_one_taken": sp.acks_one_taken,
                        "splits": len(sp.splits),
                        "split_acks_one_after_cut": sum(o.acks_one_after_cut
                                                        for o in sp.splits),
                        "split_acks_one_truncated": sum(o.truncated for o in sp.splits),
                        **sp.failures})
        if self.txns is not None:
            t = self.txns
            out.update({"txn_committed": t.committed, "txn_aborted": t.aborted,
                        "txn_unknown": t.unknown, "txn_unknown_committed": t.unknown_committed,
                        "txn_read_whole": t.read_whole, "txn_values_read": t.values_read,
                        **t.failures})
        if self.offsets is not None:
            o = self.offsets
            out.update({"offsets_commits": o.commits, "offsets_samples": o.samples,
                        "offsets_samples_set_aside": o.suspect,
                        "offsets_stale_set_aside": o.suspect_stale, **o.failures})
        return out

    @property
    def safety_failures(self) -> list[str]:
        """What the cluster got wrong about the data: anything here means an acknowledged write
        was lost or misplaced, a consumer read something that later disappeared, or replicas
        diverged (or the nemesis could not do its work)."""
        out = [f"{name}: {count}" for name, count in self.records.failures.items()
               if count and name != "group_missed"]
        if self.replicas.divergent:
            out.append(f"divergent: {len(self.replicas.divergent)}")
        if self.split is not None:
            out += [f"{name}: {count}" for name, count in self.split.failures.items() if count]
        if self.fencing.stale_applied:
            out.append("control requests of a deposed controller's epoch applied: "
                       f"{self.fencing.stale_applied}")
        if self.fencing.stale_after_resignation:
            out.append("control requests sent by a controller after it resigned: "
                       f"{self.fencing.stale_after_resignation}")
        if self.txns is not None:
            out += [f"{name}: {count}" for name, count in self.txns.failures.items()
                    if count and name != "txn_group_missed"]
        if self.offsets is not None:
            out += [f"{name}: {count}" for name, count in self.offsets.failures.items()
                    if count]
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
        out += [f"{st.fault.kind} of {st.fault.victim} at t={st.fault.started:.1f}s: "
                f"{st.tp[0]}-{st.tp[1]} stalled {st.gap.seconds:.1f}s "
                f"(t={st.gap.start:.1f}..{st.gap.end:.1f}), over its {st.limit:.1f}s"
                for st in self.stalls if st.over and st.tp is not None
                and st.limit is not None]
        if self.txns is not None:
            if self.txns.group_missed:
                out.append(f"txn_group_missed: {self.txns.group_missed}")
            if not self.txns.committed:
                out.append("transactions: none committed")
        if self.offsets is not None and not (self.offsets.commits and self.offsets.samples):
            out.append(f"offsets: {self.offsets.commits} commits acknowledged, "
                       f"{self.offsets.samples} samples")
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
        lines += self._summary_more()
        lines.append("  at the end (leader, ISR): " + ", ".join(
            f"{t}-{p} {leader} {list(isr)}"
            for (t, p), (leader, isr) in sorted(self.final_layout.items())))
        lines += [f"  note: {n}" for n in self.notes]
        lines.append("PASSED" if self.passed else "FAILED: " + "; ".join(self.failures))
        return "\n".join(lines)

    def _summary_more(self) -> list[str]:
        """The summary's lines on the splits, the controllers, the stalls and the other
        workloads."""
        lines = []
        if self.split is not None:
            for o in self.split.splits:
                sp, last = o.split, o.last_acks_all_after_cut
                lines.append(
                    f"  split of broker {sp.broker} (leader of {sp.tp[0]}-{sp.tp[1]}) at "
                    f"t={sp.started:.1f}..{sp.ended:.1f}: new leader {o.new_leader}; acks=all "
                    f"it acknowledged after the cut {o.acks_all_after_cut} (last "
                    + ("none" if last is None else f"{last:.2f}s in") + f", late "
                    f"{o.acks_all_late}); acks=1 it took after the cut {o.acks_one_after_cut}, "
                    f"truncated {o.truncated}, kept {o.kept}; truncations logged at "
                    f"{o.truncations_logged[:5]}")
            lines += [f"  split probe lost: {w}" for w in self.split.lost[:10]]
        for t in self.fencing.takeovers:
            resigned = ("-" if t.previous_resigned is None
                        else f"t={t.previous_resigned:.1f}s")
            lines.append(f"  controller epoch {t.epoch}: broker {t.controller} at t={t.at:.1f}s "
                         f"(before: {t.previous}, resigned {resigned}); older epochs' requests "
                         f"after it: {len(t.stale_applied)} applied, {len(t.stale_refused)} "
                         "refused")
        for st in self.stalls:
            where = "" if st.tp is None else f" on {st.tp[0]}-{st.tp[1]}"
            limit = "" if st.limit is None else f" (limit {st.limit:.1f}s)"
            lines.append(f"  {st.fault.kind} of {st.fault.victim} at t={st.fault.started:.1f}s: "
                         f"longest stall {st.gap.seconds:.2f}s{where}{limit}")
        for w in self.workloads:
            lines.append(f"  {w.name}: " + ", ".join(f"{k} {v}" for k, v in w.counts.items()))
            lines += [f"    error: {e}" for e in w.error_samples[:5]]
        if self.offsets is not None:
            oc = self.offsets
            lines += [f"  offsets {name}: {x}" for name, found in (
                ("backwards", oc.backwards), ("past the high watermark", oc.past_high_watermark),
                ("below an acknowledged commit", oc.below_acknowledged)) for x in found[:5]]
        return lines

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
            "splits": [] if self.split is None else [
                {"broker": o.split.broker, "partition": f"{o.split.tp[0]}-{o.split.tp[1]}",
                 "started": round(o.split.started, 3), "ended": round(o.split.ended, 3),
                 "new_leader": o.new_leader, "acks_all_after_cut": o.acks_all_after_cut,
                 "last_acks_all_after_cut_s": None if o.last_acks_all_after_cut is None
                 else round(o.last_acks_all_after_cut, 3),
                 "acks_all_late": o.acks_all_late, "acks_one_after_cut": o.acks_one_after_cut,
                 "truncated": o.truncated, "kept": o.kept,
                 "first_truncated": o.first_truncated,
                 "truncations_logged": o.truncations_logged,
                 "truncation_unlogged": o.truncation_unlogged} for o in self.split.splits],
            "split_lost_samples": [] if self.split is None else [
                repr(w) for w in self.split.lost[:50]],
            "controller_takeovers": [
                {"epoch": t.epoch, "controller": t.controller, "at": round(t.at, 3),
                 "previous": t.previous,
                 "previous_resigned": None if t.previous_resigned is None
                 else round(t.previous_resigned, 3),
                 "stale_applied": [_event(e) for e in t.stale_applied[:20]],
                 "stale_refused": len(t.stale_refused),
                 "stale_after_resignation": len(t.stale_after_resignation)}
                for t in self.fencing.takeovers],
            "stalls": [st.to_json() for st in self.stalls],
            "offsets_violations": {} if self.offsets is None else {
                name: [repr(x) for x in found[:50]] for name, found in (
                    ("backwards", self.offsets.backwards),
                    ("past_high_watermark", self.offsets.past_high_watermark),
                    ("below_acknowledged", self.offsets.below_acknowledged))},
            "workloads": [{"name": w.name, "counts": w.counts, "error_samples": w.error_samples}
                          for w in self.workloads],
        }


def _event(e: LogEvent) -> dict[str, object]:
    return {"at": round(e.at, 3), "broker": e.broker, "request": e.request,
            "controller": e.controller, "epoch": e.epoch}


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


def fault_stalls(faults: list[FaultEvent], acks: list[Ack], load_end: float,
                 limits: dict[str, float]) -> list[FaultStall]:
    """The longest stall of any partition of ``acks`` among those that began during each fault
    (from half a second before it: the last acknowledgement before a kill takes effect) or up to
    :data:`STALL_AFTER` seconds after it, and before the next fault; a stall still under way
    from an earlier fault is that fault's."""
    times: dict[tuple[str, int], list[float]] = defaultdict(list)
    for a in acks:
        times[a.tp].append(a.at)
    out = []
    for i, f in enumerate(faults):
        start = f.started - 0.5
        end = min((f.ended if f.ended is not None else load_end) + STALL_AFTER, load_end)
        if i + 1 < len(faults):
            end = min(end, faults[i + 1].started - 0.5)
        gap, tp = stall_begun(times, start, max(end, start), load_end)
        out.append(FaultStall(f, gap, tp, limits.get(f.kind)))
    return out


def broker_log_events(cluster: ClusterProcesses, wall_origin: float) -> list[LogEvent]:
    """Every broker's log, read for the checks (:func:`chaos_check.parse_broker_log`)."""
    events: list[LogEvent] = []
    for b in cluster.brokers:
        path = cluster.broker(b).log_path
        if path.exists():
            events += parse_broker_log(path.read_text(errors="replace"), b, wall_origin)
    return sorted(events, key=lambda e: e.at)


def splits_of(faults: list[FaultEvent]) -> list[Split]:
    out = []
    for f in faults:
        if f.kind == "split" and f.broker is not None and f.ended is not None:
            topic, _, partition = f.target.rpartition("-")
            out.append(Split(f.broker, (topic, int(partition)), f.started, f.ended))
    return out


def keep_data(cluster: ClusterProcesses, where: Path) -> None:
    """Copy the brokers' log dirs out of their tmpfs mounts before those go (the run's data is
    kept for a post-mortem)."""
    for b, broker in cluster.brokers.items():
        if broker.data_dir.is_dir():
            shutil.copytree(broker.data_dir, where / f"broker-{b}", dirs_exist_ok=True)


def run_chaos(config: ChaosConfig, work_dir: Path, zookeeper_connect: str,
              zookeeper: Endpoint, *, zookeeper_server: ZooKeeperServer | None = None,
              log: Callable[[str], None] = print) -> ChaosResult:
    """Run ``config`` on a cluster of its own in ``work_dir`` on the ZooKeeper at
    ``zookeeper_connect`` (a chroot of its own), whose server listens at ``zookeeper``;
    ``zookeeper_server`` is that server's process, which ``zk-kill`` kills and restarts."""
    started_at = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    origin = time.monotonic()
    wall_origin = time.time()

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
    # for disk faults each broker's log dir is a tmpfs of its own, which the nemesis fills
    disks: dict[int, SmallFilesystem] = {}
    mounted = ExitStack()
    topics = ["chaos-librdkafka"] + (["chaos-java"] if config.java else [])
    extra_topics = ([SPLIT_TOPIC] if config.split_probe else []) + (
        [TXN_TOPIC] if config.transactions else [])
    producers: list[LoadProducer] = []
    consumer: GroupConsumer | None = None
    txn_group: GroupConsumer | None = None
    monitor: ClusterMonitor | None = None
    nemesis: Nemesis | None = None
    probe: SplitProbe | None = None
    txn: TransactionalWorkload | None = None
    offsets: OffsetWorkload | None = None
    notes: list[str] = []
    try:
        if DISK_FAULTS & set(config.faults):
            for b in cluster.brokers:
                disks[b] = mounted.enter_context(
                    SmallFilesystem(cluster.broker(b).data_dir, DISK_BYTES))
            mounted.callback(keep_data, cluster, work_dir / "kept-data")
        cluster.start()
        note(f"brokers {', '.join(cluster.broker(b).bootstrap for b in cluster.brokers)} "
             f"on ZooKeeper {zookeeper_connect}")
        create_topics(cluster, topics + extra_topics, config.partitions)
        mon = monitor = ClusterMonitor(
            cluster, topics + extra_topics, clock=clock,
            avoid=lambda: nemesis.faulted if nemesis is not None else None)
        wait_for(lambda: mon.poll() and len({(c.topic, c.partition) for c in mon.leaders})
                 == len(topics + extra_topics) * config.partitions, 30, "every partition led")
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
        load = [p.name for p in producers]
        if config.split_probe:
            probe = SplitProbe(cluster, SPLIT_TOPIC, config.partitions, clock=clock)
            probe.start()
            load.append(probe.name)
        if config.transactions:
            txn_group = GroupConsumer(cluster.bootstrap, [TXN_TOPIC], group="chaos-txn-group",
                                      clock=clock, settings={"isolation.level": "read_committed"})
            txn_group.start()
            txn = TransactionalWorkload(cluster.bootstrap, TXN_TOPIC, config.partitions,
                                        clock=clock, seed=config.seed)
            txn.start()
            load.append(txn.name)
        if config.offsets:
            offsets = OffsetWorkload(cluster, [topics[0]], config.partitions, clock=clock)
            offsets.start()
            load.append(offsets.name)
        note(f"load: {', '.join(load)}; numbered records at {config.rate:.0f}/s per producer")
        time.sleep(config.settle)
        cut = None if network is None else NetworkCut(cluster, network.cgroups,
                                                       network.firewall, zookeeper)
        nemesis = Nemesis(cluster, config.nemesis(), network=cut, zookeeper=zookeeper_server,
                          disks=disks if disks else None,
                          leaders=lambda exclude: partition_leaders(cluster, [SPLIT_TOPIC],
                                                                    exclude),
                          clock=clock, controller=lambda: mon.controller, log=note)
        rounds = "" if config.rounds is None else f" or {config.rounds} round(s)"
        note(f"nemesis: seed {config.seed}, faults {','.join(config.faults)}, "
             f"{config.duration:.0f}s{rounds}")
        nemesis.start()
        nemesis.join(config.duration)
        nemesis.stop()
        nemesis.wait_recovered()
        note("nemesis stopped; the load runs on")
        time.sleep(config.settle)
        load_end = clock()
        unanswered = {p.name: p.stop(config.stop_timeout) for p in producers}
        if probe is not None:
            probe.stop()
        if txn is not None:
            txn.stop()
        if offsets is not None:
            offsets.stop()
        note(f"load stopped; unanswered sends: {unanswered}")

        partitions = [(t, p) for t in topics for p in range(config.partitions)]
        final, ends = read_back(cluster.bootstrap, partitions)
        note(f"read back {sum(len(v) for v in final.values())} records")
        split_final: dict[tuple[str, int], list[tuple[int, bytes]]] = {}
        if probe is not None:
            split_final, _ = read_back(cluster.bootstrap,
                                       [(SPLIT_TOPIC, p) for p in range(config.partitions)])
        txn_final: dict[tuple[str, int], list[tuple[int, bytes]]] = {}
        if txn is not None:
            txn_final, _ = read_back(cluster.bootstrap,
                                     [(TXN_TOPIC, p) for p in range(config.partitions)],
                                     read_committed=True)
        try:
            wait_for(lambda: group.caught_up(ends), 60,
                     "the consumer group to reach the high watermarks")
        except AssertionError as exc:
            notes.append(str(exc))
        if txn is not None and txn_group is not None:
            committed = {((t, p), v) for x in txn.txns if x.outcome == COMMITTED
                         for (t, p), v in x.writes}
            tg = txn_group

            def txn_group_done() -> bool:
                read = {(tp, v) for tp, pairs in list(tg.reads.items()) for _, v in pairs}
                return committed <= read

            try:
                wait_for(txn_group_done, 60,
                         "the read_committed group to read every committed transaction")
            except AssertionError as exc:
                notes.append(str(exc))
            txn_group.stop()
        consumer.stop()
        monitor.stop()
        final_layout = monitor.layout()
        internal = {OFFSETS_TOPIC, TRANSACTIONS_TOPIC}
        all_partitions = partitions + [(t, p) for t in extra_topics
                                       for p in range(config.partitions)] + sorted(
            {tp for b in cluster.brokers for tp in hosted(cluster, b, internal)})
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
            for tp in hosted(cluster, b, set(topics) | set(extra_topics) | internal):
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
        events = broker_log_events(cluster, wall_origin)
        summaries = []
        for p in producers:
            times = [a.at for a in p.acks]
            summaries.append(ProducerSummary(
                p.name, p.topic, p.sent(), len(p.acks), len(p.errors), unanswered[p.name],
                longest_gap(times, p.started or 0.0, load_end), times,
                sorted({e.error for e in p.errors})[:10], p.fatal))
        result = ChaosResult(
            config, started_at, records, replicas, summaries, nemesis.events,
            monitor.controllers, monitor.leaders,
            repr(nemesis.error) if nemesis.error else None, load_end, notes, final_layout,
            last_acks, below)
        result.fencing = check_controller_fencing(events)
        result.stalls = fault_stalls(nemesis.events, acks, load_end, config.stall_limits)
        if probe is not None:
            taken: dict[str, list[float]] = defaultdict(list)
            for w in probe.writes:
                if w.taken and w.acks == 1:
                    taken[f"acks=1 taken by broker {w.broker}"].append(w.answered)
            result.workloads.append(WorkloadSummary(
                probe.name, {"sent": len(probe.writes),
                             "taken": sum(1 for w in probe.writes if w.taken)},
                times=dict(sorted(taken.items()))))
            result.split = check_split(splits_of(nemesis.events), probe.writes, split_final,
                                       events, acks_all_deadline=REPLICA_LAG_TIME_MAX_MS / 1000)
        if txn is not None and txn_group is not None:
            result.txns = check_transactions(txn.txns, txn_final, txn_group.reads)
            result.workloads.append(WorkloadSummary(
                txn.name, {**txn.counts, "producers_replaced": txn.restarts,
                           "errors": len(txn.errors), "group_read_errors": len(txn_group.errors)},
                txn.errors[:10],
                {outcome: [x.at for x in txn.txns if x.outcome == outcome]
                 for outcome in txn.counts}))
        if offsets is not None:
            suspect = [(f.broker, f.started, (f.ended or load_end) + SUSPECT_AFTER)
                       for f in nemesis.events if f.kind in SUSPECT_KINDS and f.broker is not None]
            result.offsets = check_offsets(offsets.samples, offsets.commits, suspect)
            result.workloads.append(WorkloadSummary(
                offsets.name, {"records_read": offsets.read, "commits": len(offsets.commits),
                               "commit_errors": len(offsets.commit_errors),
                               "samples": len(offsets.samples),
                               "samples_of_a_suspect_broker": result.offsets.suspect,
                               "of_them_stale": result.offsets.suspect_stale,
                               "sample_errors": len(offsets.sample_errors)},
                offsets.commit_errors[:5] + offsets.sample_errors[:5],
                {"offset commits": sorted({c.at for c in offsets.commits})}))
        return result
    finally:
        for closing in (nemesis.stop if nemesis else None,
                        *(lambda p=p: p.stop(10) for p in producers),
                        probe.stop if probe else None,
                        (lambda: txn.stop(30)) if txn else None,
                        offsets.stop if offsets else None,
                        txn_group.stop if txn_group else None,
                        consumer.stop if consumer else None,
                        monitor.stop if monitor else None,
                        cluster.stop,
                        network.close if network else None,
                        mounted.close):
            if closing is None:
                continue
            try:
                closing()
            except Exception as exc:  # noqa: BLE001 - go on stopping the rest
                log(f"while stopping: {exc!r}")
