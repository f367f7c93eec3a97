#!/usr/bin/env python3
"""Replication cost: three ZooKeeper-mode brokers at replication factor 1 and 3, acks=1 and
acks=all, on pybroker and on Apache Kafka 3.9 in the same run, with the ratios the replication
goals are stated in.

One ZooKeeper (pybroker/testing/zookeeper.py) serves the whole run. On it, under a chroot of
its own, three pybroker brokers start (pybroker/testing/cluster.py), get an unmeasured warm-up
and run every case, and are stopped; then three Apache Kafka 3.9 brokers
(pybroker/testing/reference_cluster.py) do the same. The cases (``--cases``):

- ``rf1-acks1``: replication factor 1, acks=1;
- ``rf3-acks1``: replication factor 3, acks=1;
- ``rf3-acksall``: replication factor 3, acks=all, topic ``min.insync.replicas=2``.

Each case, on a fresh topic per tool (``--tools``), measures

- ``confluent``: producer throughput with confluent-kafka, as scripts/bench.py drives it;
- ``perf``: producer throughput with Kafka's kafka-producer-perf-test
  (``org.apache.kafka.tools.ProducerPerformance``), then consumer throughput with
  kafka-consumer-perf-test (``ConsumerPerformance``) reading those records back;
- ``latency``: end-to-end latency (p50, p99, p99.9) with Kafka's ``EndToEndLatency`` tool.

The Kafka tools run from the jars of scripts/kafka-tools-deps.sh, each in a JVM of its own
through its main class, as ``bin/kafka-*.sh`` start them. Results go to
``<out>/bench-replication-<timestamp>.json``, ``.png`` and ``.md``; the Markdown table and the
goals (pybroker RF3 acks=all / pybroker RF1 >= 0.5, pybroker RF3 acks=all / Kafka RF3 acks=all
>= 1.0, each "met" or "not met") are printed. Nothing is asserted. Run it as
``python -m scripts.bench_replication`` from the checkout. See docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from confluent_kafka.admin import AdminClient, NewTopic

from pybroker.testing.broker_process import BrokerProcess
from pybroker.testing.cluster import ClusterProcesses
from pybroker.testing.reference_cluster import ReferenceKafkaCluster
from pybroker.testing.reference_kafka import KAFKA_VERSION, missing_requirements
from pybroker.testing.zookeeper import ZooKeeperServer
from scripts.bench import (
    Case,
    catch_interrupts,
    cpu_seconds,
    delete_topic,
    interrupted,
    load_average,
    loud,
    machine_info,
    peak_rss_mib,
    run_produce,
    settle,
)
from scripts.kafka_perf_tools import (
    BenchError,
    KafkaTools,
    RateGuide,
    parse_consumer_perf,
    parse_end_to_end,
    parse_producer_perf,
    perf_records,
)

BROKERS = ("pybroker", "kafka")
RATIO = "pybroker/kafka"
CLUSTER_SIZE = 3
#: both clusters get these; pybroker's brokers have them already (FAST_FAILOVER). Without the
#: second, Kafka's first consumer group waits 3 s before its first rebalance.
SHARED_SETTINGS: Mapping[str, object] = {
    "zookeeper.session.timeout.ms": 6000,
    "group.initial.rebalance.delay.ms": 0,
}


@dataclass(frozen=True)
class CaseSpec:
    name: str
    replication_factor: int
    acks: str
    min_insync_replicas: int | None
    label: str

    def topic_config(self) -> dict[str, str]:
        if self.min_insync_replicas is None:
            return {}
        return {"min.insync.replicas": str(self.min_insync_replicas)}


CASES = (
    CaseSpec("rf1-acks1", 1, "1", None, "RF 1, acks=1"),
    CaseSpec("rf3-acks1", 3, "1", None, "RF 3, acks=1"),
    CaseSpec("rf3-acksall", 3, "all", 2, "RF 3, acks=all, min.insync=2"),
)
CASE_BY_NAME = {c.name: c for c in CASES}
BASE_CASE, REPLICATED_CASE = "rf1-acks1", "rf3-acksall"
TOOLS = ("confluent", "perf", "latency")

#: the figures of a case: key, label, unit, whether higher is better
FIGURES = (
    ("produce_confluent_mb_s", "produce, confluent-kafka", "MB/s", True),
    ("produce_perf_mb_s", "produce, kafka-producer-perf-test", "MB/s", True),
    ("consume_perf_mb_s", "consume, kafka-consumer-perf-test", "MB/s", True),
    ("e2e_p50_ms", "end-to-end p50, EndToEndLatency", "ms", False),
    ("e2e_p99_ms", "end-to-end p99, EndToEndLatency", "ms", False),
    ("e2e_p999_ms", "end-to-end p99.9, EndToEndLatency", "ms", False),
)
#: the producer figures the goals are judged on
GOAL_FIGURES = ("produce_confluent_mb_s", "produce_perf_mb_s")


@dataclass(frozen=True)
class Goal:
    """``numerator / denominator`` of one figure, each a (broker, case); ``minimum`` None: shown
    for reference, no goal."""

    name: str
    numerator: tuple[str, str]
    denominator: tuple[str, str]
    minimum: float | None


GOALS = (
    Goal("pybroker RF3 acks=all / pybroker RF1", ("pybroker", REPLICATED_CASE),
         ("pybroker", BASE_CASE), 0.5),
    Goal("pybroker RF3 acks=all / Kafka RF3 acks=all", ("pybroker", REPLICATED_CASE),
         ("kafka", REPLICATED_CASE), 1.0),
    Goal("Kafka RF3 acks=all / Kafka RF1 (reference)", ("kafka", REPLICATED_CASE),
         ("kafka", BASE_CASE), None),
)


# -- summary and goals ----------------------------------------------------------------------


@dataclass
class ClusterRun:
    """One cluster started, warmed up, measured over every case and stopped."""

    broker: str
    round: int
    figures: dict[str, dict[str, float]] = field(default_factory=dict)  # case -> figure -> value
    detail: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    work_dir: str | None = None  # kept after a failure, with the brokers' logs

    def to_json(self) -> dict[str, Any]:
        return {"broker": self.broker, "round": self.round, "figures": self.figures,
                "detail": self.detail, "error": self.error, "work_dir": self.work_dir}


Summary = dict[str, dict[str, dict[str, float | None]]]  # case -> figure -> broker/ratio -> value


def summarize(runs: Sequence[ClusterRun], names: Sequence[str], cases: Sequence[str]) -> Summary:
    """Per case and figure: each broker's median over its rounds and ``ratio`` pybroker/kafka
    (of rates: above 1 pybroker is faster; of latencies: below 1 it is)."""
    out: Summary = {}
    for case in cases:
        out[case] = {}
        for key, *_ in FIGURES:
            values: dict[str, float | None] = {}
            for name in names:
                got = [r.figures[case][key] for r in runs
                       if r.broker == name and key in r.figures.get(case, {})]
                values[name] = round(statistics.median(got), 4) if got else None
            if set(BROKERS) <= set(names):
                py, kafka = values["pybroker"], values["kafka"]
                values["ratio"] = round(py / kafka, 3) if py is not None and kafka else None
            out[case][key] = values
    return out


def judge(summary: Summary) -> list[dict[str, Any]]:
    """Every goal for every producer figure: the ratio and ``met``, ``not met``, ``n/a`` (a side
    of it was not measured) or ``reference`` (no goal)."""
    out = []
    for goal in GOALS:
        for key in GOAL_FIGURES:
            (nb, nc), (db, dc) = goal.numerator, goal.denominator
            num = summary.get(nc, {}).get(key, {}).get(nb)
            den = summary.get(dc, {}).get(key, {}).get(db)
            value = round(num / den, 3) if num is not None and den else None
            if goal.minimum is None:
                verdict = "reference"
            elif value is None:
                verdict = "n/a"
            else:
                verdict = "met" if value >= goal.minimum else "not met"
            out.append({"goal": goal.name, "figure": key, "value": value,
                        "minimum": goal.minimum, "verdict": verdict})
    return out


def fmt(value: float | None, unit: str) -> str:
    if value is None:
        return "n/a"
    if unit == "ratio":
        return f"{value:.2f}"
    if unit == "ms":
        return f"{value:,.0f}" if value == int(value) else f"{value:,.1f}"
    return f"{value:,.1f}"


def markdown_table(summary: Summary, names: Sequence[str], goals: list[dict[str, Any]]) -> str:
    with_ratio = set(BROKERS) <= set(names)
    head = ["case", "figure", *names, *(["pybroker/Kafka"] if with_ratio else [])]
    lines = ["| " + " | ".join(head) + " |", "|---|---|" + "---:|" * (len(head) - 2)]
    labels = {key: (label, unit) for key, label, unit, _ in FIGURES}
    for case, figures in summary.items():
        first = True
        for key, values in figures.items():
            if all(values.get(n) is None for n in names):
                continue
            label, unit = labels[key]
            cells = [CASE_BY_NAME[case].label if first else "", f"{label} ({unit})",
                     *(fmt(values.get(n), unit) for n in names)]
            if with_ratio:
                cells.append(fmt(values.get("ratio"), "ratio"))
            lines.append("| " + " | ".join(cells) + " |")
            first = False
    lines += ["", "| ratio | producer | value | goal | verdict |", "|---|---|---:|---:|---|"]
    for g in goals:
        goal = "" if g["minimum"] is None else f">= {g['minimum']:g}"
        lines.append(f"| {g['goal']} | {labels[g['figure']][0].split(', ', 1)[1]} | "
                     f"{fmt(g['value'], 'ratio')} | {goal} | {g['verdict']} |")
    return "\n".join(lines)


def plot(summary: Summary, names: Sequence[str], goals: list[dict[str, Any]], path: Path,
         title: str, note: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    colors = {"pybroker": "tab:blue", "kafka": "tab:orange"}
    cases = list(summary)
    labels = [CASE_BY_NAME[c].label.replace(", ", "\n") for c in cases]
    xs = list(range(len(cases)))
    panels = [(key, label, unit) for key, label, unit, _ in FIGURES
              if key in ("produce_confluent_mb_s", "produce_perf_mb_s", "consume_perf_mb_s",
                         "e2e_p99_ms")]
    fig = plt.figure(figsize=(16, 10))
    grid = fig.add_gridspec(2, 3)
    axes = [fig.add_subplot(grid[0, 0]), fig.add_subplot(grid[0, 1]),
            fig.add_subplot(grid[0, 2]), fig.add_subplot(grid[1, 0])]
    width = 0.8 / max(1, len(names))
    for ax, (key, label, unit) in zip(axes, panels, strict=True):
        for i, name in enumerate(names):
            values = [summary[c][key].get(name) for c in cases]
            shift = (i - (len(names) - 1) / 2) * width
            bars = ax.bar([x + shift for x in xs], [v or 0 for v in values], width, label=name,
                          color=colors.get(name))
            if key == "e2e_p99_ms":  # p50 and p99.9 of the same runs, as whiskers' ends
                p50 = [summary[c]["e2e_p50_ms"].get(name) for c in cases]
                p999 = [summary[c]["e2e_p999_ms"].get(name) for c in cases]
                ax.vlines([x + shift for x in xs], [v or 0 for v in p50], [v or 0 for v in p999],
                          color="black", linewidth=1)
            ax.bar_label(bars, labels=[fmt(v, unit) for v in values], fontsize=7, padding=2)
        ax.set_xticks(xs, labels, fontsize=8)
        ax.set_title(f"{label} ({unit})" + (", line p50-p99.9" if key == "e2e_p99_ms" else ""),
                     fontsize=9)
        ax.set_ylim(top=max(1.0, ax.get_ylim()[1]) * 1.12)
        ax.grid(axis="y", alpha=0.3)
        ax.legend(fontsize=8)
    ax = fig.add_subplot(grid[1, 1:])
    ax.set_title("throughput ratios (producers); dashed: goal", fontsize=9)
    shown = list(goals)
    ys = list(range(len(shown)))
    bars = ax.barh(ys, [g["value"] or 0 for g in shown],
                   color=["tab:green" if g["verdict"] == "met" else "tab:red"
                          if g["verdict"] == "not met" else "tab:gray" for g in shown])
    ax.bar_label(bars, labels=[f"{fmt(g['value'], 'ratio')} {g['verdict']}" for g in shown],
                 fontsize=7, padding=2)
    for y, g in zip(ys, shown, strict=True):
        if g["minimum"] is not None:
            ax.vlines(g["minimum"], y - 0.4, y + 0.4, color="black", linestyle="--",
                      linewidth=1)
    ax.set_yticks(ys, [f"{g['goal']}, {g['figure'].split('_')[1]}" for g in shown], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(right=max(1.5, *(g["value"] or 0 for g in shown)) * 1.35)
    if note:
        ax.text(0.5, 0.5, note, transform=ax.transAxes, ha="center", va="center", fontsize=9,
                wrap=True)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


# -- the clusters ---------------------------------------------------------------------------


class Cluster:
    """Three brokers of one kind on the run's ZooKeeper (``ClusterProcesses`` for pybroker,
    ``ReferenceKafkaCluster`` for Kafka: the same surface); every process is stopped by its
    pid."""

    def __init__(self, name: str, work_dir: Path, zookeeper_connect: str) -> None:
        self.name = name
        kind = ClusterProcesses if name == "pybroker" else ReferenceKafkaCluster
        self.cluster: ClusterProcesses | ReferenceKafkaCluster = kind(
            work_dir, zookeeper_connect, size=CLUSTER_SIZE, overrides=SHARED_SETTINGS)

    def start(self) -> None:
        self.cluster.start()

    def stop(self) -> None:
        self.cluster.stop()

    def bootstrap(self) -> str:
        return self.cluster.bootstrap

    def pids(self) -> dict[int, int]:
        return {i: b.pid for i, b in self.cluster.brokers.items() if b.pid is not None}

    def describe(self, lines: int) -> str:
        return self.cluster.describe(lines)

    def settings(self) -> dict[str, str]:
        """The first broker's settings, less what differs from broker to broker."""
        first = self.cluster.brokers[1]
        given = first.overrides if isinstance(first, BrokerProcess) else first.properties
        return {k: str(v) for k, v in given.items()
                if k not in ("broker.id", "listeners", "advertised.listeners", "log.dirs")}


def create_topic(admin: AdminClient, topic: str, partitions: int, spec: CaseSpec,
                 timeout: float) -> None:
    """Create ``topic`` and wait until every partition has a leader and its full replica set
    in the ISR, so that no case is measured while its followers are still joining."""
    admin.create_topics([NewTopic(topic, num_partitions=partitions,
                                  replication_factor=spec.replication_factor,
                                  config=spec.topic_config())],
                        operation_timeout=60)[topic].result(timeout)
    deadline = time.monotonic() + timeout
    last = "no metadata"
    while time.monotonic() < deadline:
        t = admin.list_topics(topic, timeout=10).topics.get(topic)
        if t is not None and t.error is None and len(t.partitions) == partitions:
            short = [p.id for p in t.partitions.values()
                     if p.error is not None or p.leader < 0
                     or len(p.isrs) < spec.replication_factor]
            if not short:
                return
            last = f"partitions without a leader or a full ISR: {short}"
        time.sleep(0.1)
    raise BenchError(f"topic {topic} was not led with a full ISR within {timeout:.0f}s ({last})")


# -- one cluster's run ----------------------------------------------------------------------


class Meter:
    """CPU seconds of the brokers (together) and of ZooKeeper over a stretch of the run."""

    def __init__(self, broker_pids: Iterable[int], zookeeper_pid: int | None) -> None:
        self.brokers = list(broker_pids)
        self.zookeeper = [zookeeper_pid] if zookeeper_pid else []
        self.start = (cpu_seconds(self.brokers), cpu_seconds(self.zookeeper))

    def read(self, seconds: float, payload_bytes: int = 0) -> dict[str, float]:
        """``payload_bytes``: what the stretch moved, for the brokers' CPU seconds per GB."""
        out: dict[str, float] = {}
        b0, z0 = self.start
        b1, z1 = cpu_seconds(self.brokers), cpu_seconds(self.zookeeper)
        if b0 is not None and b1 is not None:
            out["broker_cpu_s"] = round(b1 - b0, 2)
            if seconds > 0:
                out["broker_cpu_pct"] = round(100 * (b1 - b0) / seconds, 1)
            if payload_bytes > 0:
                out["broker_cpu_s_per_gb"] = round((b1 - b0) / (payload_bytes / 1e9), 2)
        if z0 is not None and z1 is not None:
            out["zookeeper_cpu_s"] = round(z1 - z0, 2)
        return out


def cpu_per_gb(phase: Mapping[str, Any]) -> str:
    """``, brokers N CPU-s/GB`` for a progress line, when the phase has the figure."""
    value = phase.get("broker_cpu_s_per_gb")
    return "" if value is None else f", brokers {value:.2f} CPU-s/GB"


def confluent_produce(bootstrap: str, topic: str, spec: CaseSpec, partitions: int,
                      args: argparse.Namespace, records: int, seconds: float) -> dict[str, Any]:
    """scripts/bench.py's producer (its settings, the clock from the first produce() to the
    last delivery report) with this case's acks."""
    case = Case(args.record_size, partitions, topic)
    settings = argparse.Namespace(acks=spec.acks, linger_ms=args.linger_ms,
                                  batch_size=args.batch_size)
    run_produce(bootstrap, case, settings, records, seconds)
    return case.produce.to_json()


def run_case(spec: CaseSpec, cluster: Cluster, admin: AdminClient, tools: KafkaTools,
             zookeeper: ZooKeeperServer, args: argparse.Namespace, tag: str, guide: RateGuide,
             ) -> tuple[dict[str, float], dict[str, Any]]:
    """Every tool of ``args.tools`` on this case, each on a fresh topic; the figures and the
    detail. ``guide`` sizes the perf test and learns from it."""
    bootstrap = cluster.bootstrap()
    figures: dict[str, float] = {}
    detail: dict[str, Any] = {}
    pids = list(cluster.pids().values())
    size = args.record_size
    timeout = args.timeout

    def fresh(tool: str, partitions: int) -> str:
        topic = f"bench-repl-{tag}-{spec.name}-{tool}"
        create_topic(admin, topic, partitions, spec, timeout)
        settle()
        return topic

    confluent_rate: float | None = None
    if "confluent" in args.tools:
        topic = fresh("confluent", args.partitions)
        meter = Meter(pids, zookeeper.pid)
        got = confluent_produce(bootstrap, topic, spec, args.partitions, args, args.records,
                                args.seconds)
        got.update(meter.read(got["seconds"], got["payload_bytes"]))
        detail["produce_confluent"] = got
        if got["records"] and not got["errors"]:
            figures["produce_confluent_mb_s"] = got["mb_per_s"]
            confluent_rate = got["msgs_per_s"]
        print(f"  {spec.name}: confluent-kafka produced {got['records']:,} records, "
              f"{got['mb_per_s']:.1f} MB/s ({got['msgs_per_s']:,.0f} msg/s), "
              f"{got['errors']} errors{cpu_per_gb(got)}", flush=True)
        if not args.keep_topics:
            delete_topic(bootstrap, topic)

    if "perf" in args.tools:
        topic = fresh("perf", args.partitions)
        n = perf_records(guide.expect(confluent_rate), args.seconds, args.records)
        meter = Meter(pids, zookeeper.pid)
        t0 = time.perf_counter()
        out = tools.run("kafka-producer-perf-test", [
            "--topic", topic, "--num-records", str(n), "--record-size", str(size),
            "--throughput", "-1", "--producer-props", f"bootstrap.servers={bootstrap}",
            f"acks={spec.acks}"], timeout)
        produced = parse_producer_perf(out, size)
        produced.update(meter.read(time.perf_counter() - t0, int(produced["records"]) * size),
                        asked=n)
        detail["produce_perf"] = produced
        guide.perf_msgs_per_s, guide.confluent_msgs_per_s = produced["msgs_per_s"], confluent_rate
        if produced["records"] == n:
            figures["produce_perf_mb_s"] = produced["mb_per_s"]
        print(f"  {spec.name}: kafka-producer-perf-test sent {produced['records']:,} of {n:,} "
              f"records, {produced['mb_per_s']:.1f} MB/s, producer latency p99 "
              f"{produced['latency_p99_ms']} ms{cpu_per_gb(produced)}", flush=True)
        settle()
        meter = Meter(pids, zookeeper.pid)
        t0 = time.perf_counter()
        out = tools.run("kafka-consumer-perf-test", [
            "--bootstrap-server", bootstrap, "--topic", topic,
            "--messages", str(produced["records"]), "--timeout", "30000",
            "--group", f"bench-repl-{tag}-{spec.name}"], timeout)
        consumed = parse_consumer_perf(out, size)
        consumed.update(meter.read(time.perf_counter() - t0))
        detail["consume_perf"] = consumed
        if consumed["records"] >= produced["records"]:
            figures["consume_perf_mb_s"] = consumed["mb_per_s"]
        print(f"  {spec.name}: kafka-consumer-perf-test read {consumed['records']:,} records, "
              f"{consumed['mb_per_s']:.1f} MB/s (group joined in "
              f"{consumed['rebalance_ms']:.0f} ms)", flush=True)
        if not args.keep_topics:
            delete_topic(bootstrap, topic)

    if "latency" in args.tools:
        topic = fresh("latency", 1)
        meter = Meter(pids, zookeeper.pid)
        t0 = time.perf_counter()
        out = tools.run("EndToEndLatency", [
            bootstrap, topic, str(args.latency_messages), spec.acks, str(size)], timeout)
        latency = parse_end_to_end(out)
        latency.update(meter.read(time.perf_counter() - t0), messages=args.latency_messages)
        detail["latency"] = latency
        figures.update(e2e_p50_ms=latency["p50_ms"], e2e_p99_ms=latency["p99_ms"],
                       e2e_p999_ms=latency["p999_ms"])
        print(f"  {spec.name}: EndToEndLatency over {args.latency_messages:,} messages: avg "
              f"{latency['avg_ms']:.2f} ms, p50 {latency['p50_ms']} ms, p99 "
              f"{latency['p99_ms']} ms, p99.9 {latency['p999_ms']} ms", flush=True)
        if not args.keep_topics:
            delete_topic(bootstrap, topic)
    return figures, detail


def warm_up(cluster: Cluster, admin: AdminClient, tools: KafkaTools,
            args: argparse.Namespace, tag: str, guide: RateGuide) -> dict[str, Any]:
    """Unmeasured, at RF 3 acks=all: confluent-kafka produces ``--warmup-records``,
    kafka-producer-perf-test a quarter as many (its rate sizes the first measured perf test),
    and kafka-consumer-perf-test reads them all back in a group, which creates
    ``__consumer_offsets`` before any measured phase rather than during one."""
    spec = CASE_BY_NAME[REPLICATED_CASE]
    topic = f"bench-repl-{tag}-warmup"
    bootstrap = cluster.bootstrap()
    create_topic(admin, topic, args.partitions, spec, args.timeout)
    t0 = time.perf_counter()
    got = confluent_produce(bootstrap, topic, spec, args.partitions, args, args.warmup_records,
                            args.warmup_seconds)
    n = max(1000, args.warmup_records // 4)
    out = tools.run("kafka-producer-perf-test", [
        "--topic", topic, "--num-records", str(n), "--record-size", str(args.record_size),
        "--throughput", "-1", "--producer-props", f"bootstrap.servers={bootstrap}",
        f"acks={spec.acks}"], args.timeout)
    produced = parse_producer_perf(out, args.record_size)
    guide.perf_msgs_per_s, guide.confluent_msgs_per_s = produced["msgs_per_s"], got["msgs_per_s"]
    out = tools.run("kafka-consumer-perf-test", [
        "--bootstrap-server", bootstrap, "--topic", topic,
        "--messages", str(got["records"] + produced["records"]),
        "--timeout", "30000", "--group", f"bench-repl-{tag}-warmup"], args.timeout)
    consumed = parse_consumer_perf(out, args.record_size)
    if not args.keep_topics:
        delete_topic(bootstrap, topic)
    return {"produce_confluent": got, "produce_perf": produced, "consume_perf": consumed,
            "seconds": round(time.perf_counter() - t0, 2)}


def run_cluster(name: str, rnd: int, args: argparse.Namespace,
                zookeeper: ZooKeeperServer) -> ClusterRun:
    """Start a cluster of ``name`` on the ZooKeeper, warm it up, run every case, stop it
    (whatever happens)."""
    run = ClusterRun(name, rnd)
    banner = f"== {name}" + (f" (round {rnd + 1} of {args.rounds})" if args.rounds > 1 else "")
    print(f"\n{banner} ==", flush=True)
    work = Path(tempfile.mkdtemp(prefix=f"bench-replication-{name}-"))
    chroot = f"/bench-replication-{name}-r{rnd}"
    cluster = Cluster(name, work / "brokers", zookeeper.connect_string(chroot))
    tools = KafkaTools(work / "tools")
    admin: AdminClient | None = None
    tag = f"r{rnd}"
    try:
        settle()
        t0 = time.perf_counter()
        cluster.start()
        run.detail["cluster_start_s"] = round(time.perf_counter() - t0, 2)
        run.detail["settings"] = cluster.settings()
        pids = cluster.pids()
        print(f"{name}: brokers {', '.join(f'{i} pid {p}' for i, p in pids.items())} on "
              f"{zookeeper.connect_string(chroot)}, up in {run.detail['cluster_start_s']:.1f}s",
              flush=True)
        admin = AdminClient({"bootstrap.servers": cluster.bootstrap()})
        guide = RateGuide()
        if args.warmup_records > 0:
            print(f"{name}: warm-up (unmeasured): {args.warmup_records:,} records with "
                  "confluent-kafka and a quarter as many with kafka-producer-perf-test at RF 3 "
                  "acks=all, read back in a group ...", flush=True)
            run.detail["warmup"] = warm_up(cluster, admin, tools, args, tag, guide)
            print(f"{name}: warm-up done in {run.detail['warmup']['seconds']:.1f}s", flush=True)
        # odd rounds take the cases in reverse, so that no case always runs first after the
        # warm-up (the page cache it writes into differs: see docs/benchmarks.md)
        for case in (args.cases if rnd % 2 == 0 else args.cases[::-1]):
            spec = CASE_BY_NAME[case]
            print(f"{name}: {spec.label} ...", flush=True)
            figures, detail = run_case(spec, cluster, admin, tools, zookeeper, args, tag, guide)
            run.figures[case] = figures
            run.detail.setdefault("cases", {})[case] = detail
        run.detail["peak_rss_mib"] = {str(i): peak_rss_mib(p) for i, p in pids.items()}
    except Exception as e:  # noqa: BLE001 - report it and go on with the other cluster
        if (signame := interrupted()) is not None:
            raise KeyboardInterrupt(signame) from e
        run.error = f"{type(e).__name__}: {e}"
        print(f"\n!!! {name} FAILED: {run.error}", file=sys.stderr)
        print(cluster.describe(args.log_lines), file=sys.stderr)
    finally:
        del admin  # its connections close before the brokers go away
        try:
            cluster.stop()
        finally:
            if run.error is not None or args.keep:
                run.work_dir = str(work)
                print(f"{name}: data and logs kept in {work}", file=sys.stderr)
            else:
                shutil.rmtree(work, ignore_errors=True)
    return run


# -- the run --------------------------------------------------------------------------------


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", type=Path, default=Path("bench-results"), help="output directory")
    p.add_argument("--brokers", default=",".join(BROKERS),
                   help="comma-separated, run in this order: pybroker, kafka (default: both)")
    p.add_argument("--cases", default=",".join(c.name for c in CASES),
                   help=f"comma-separated subset of {', '.join(c.name for c in CASES)}")
    p.add_argument("--tools", default=",".join(TOOLS),
                   help=f"comma-separated subset of {', '.join(TOOLS)}")
    p.add_argument("--seconds", type=float, default=10.0,
                   help="per case: confluent-kafka stops enqueuing after this long, and "
                        "kafka-producer-perf-test gets about this long's worth of records")
    p.add_argument("--records", type=int, default=1_000_000,
                   help="per case and producer: records at most")
    p.add_argument("--latency-messages", type=int, default=2000,
                   help="messages EndToEndLatency sends, one at a time, per case")
    p.add_argument("--record-size", type=int, default=1024, help="record value size in bytes")
    p.add_argument("--partitions", type=int, default=6,
                   help="partitions of the throughput topics (the latency topic has one)")
    p.add_argument("--linger-ms", type=int, default=5, help="confluent-kafka linger.ms")
    p.add_argument("--batch-size", type=int, default=1_000_000,
                   help="confluent-kafka batch.size")
    p.add_argument("--warmup-records", type=int, default=200_000,
                   help="unmeasured records per cluster before the cases (0: no warm-up)")
    p.add_argument("--warmup-seconds", type=float, default=30.0,
                   help="safety cap on the warm-up's enqueuing")
    p.add_argument("--rounds", type=int, default=1,
                   help="run every cluster this many times, alternating the order; figures "
                        "are medians")
    p.add_argument("--timeout", type=float, default=300.0,
                   help="seconds any one step (a topic led, a tool run) may take")
    p.add_argument("--keep", action="store_true",
                   help="keep every run's data and logs (a failed run's are always kept)")
    p.add_argument("--keep-topics", action="store_true", help="do not delete the topics")
    p.add_argument("--log-lines", type=int, default=60,
                   help="lines of each broker's log shown when a run fails")
    args = p.parse_args(argv)

    def names(value: str, known: Sequence[str], option: str) -> list[str]:
        got = [n.strip() for n in value.split(",") if n.strip()]
        if not got or set(got) - set(known) or len(set(got)) != len(got):
            p.error(f"{option} takes a comma-separated list of {', '.join(known)} "
                    f"(got {value!r})")
        return got

    args.names = names(args.brokers, BROKERS, "--brokers")
    args.cases = [c.name for c in CASES if c.name in names(args.cases, list(CASE_BY_NAME),
                                                           "--cases")]
    args.tools = names(args.tools, TOOLS, "--tools")
    if min(args.records, args.latency_messages, args.record_size, args.partitions,
           args.rounds) < 1 or args.seconds <= 0 or args.warmup_records < 0:
        p.error("--records, --latency-messages, --record-size, --partitions and --rounds must "
                "be at least 1, --seconds positive, --warmup-records at least 0")
    return args



def page_cache_probe(directory: Path, megabytes: int = 512) -> dict[str, float]:
    """What writing into the page cache costs on this machine: ``megabytes`` written in 1 MB
    ``write`` calls to a new file (pages the kernel must allocate, as a log's appends get them),
    then over the same file again (pages already cached). MB/s and this process's system
    CPU-milliseconds per MB for each; the file is removed. Every replica of a produced byte is
    one such write, so replication factor 3 pays the first figure three times per byte."""
    block = os.urandom(1 << 20)
    path = directory / f"page-cache-probe-{os.getpid()}"
    out: dict[str, float] = {"megabytes": megabytes}
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        for label in ("new_pages", "cached_pages"):
            os.lseek(fd, 0, os.SEEK_SET)
            cpu, wall = os.times().system, time.perf_counter()
            for _ in range(megabytes):
                os.write(fd, block)
            wall, cpu = time.perf_counter() - wall, os.times().system - cpu
            out[f"{label}_mb_per_s"] = round(megabytes / wall, 1)
            out[f"{label}_sys_ms_per_mb"] = round(1000 * cpu / megabytes, 3)
    finally:
        os.close(fd)
        path.unlink(missing_ok=True)
    return out


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    catch_interrupts()
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    names: list[str] = args.names
    missing = missing_requirements()
    if missing:
        # ZooKeeper and the load tools run from the same jars: without them nothing can run
        loud([f"bench_replication is SKIPPED: ZooKeeper, Apache Kafka {KAFKA_VERSION} and its "
              f"tools cannot start without {'; '.join(missing)}.",
              "Neither cluster ran. `make setup` installs a JDK (make system-deps) and the",
              "Kafka jars (make kafka-tools-deps)."])
        return 1
    args.out.mkdir(parents=True, exist_ok=True)
    load_before = load_average()
    print(f"load average before: {' '.join(map(str, load_before))} ({os.cpu_count()} CPUs); "
          f"{CLUSTER_SIZE} brokers on one ZooKeeper; cases {', '.join(args.cases)}; tools "
          f"{', '.join(args.tools)}; {args.record_size}-byte records, {args.partitions} "
          "partitions", flush=True)
    if load_before[0] > 0.5 * (os.cpu_count() or 1):
        loud([f"the machine looks busy (load average {load_before[0]} on {os.cpu_count()} "
              "CPUs):", "other work competes with the brokers and the clients; the figures "
              "will be noisy."])

    probe = page_cache_probe(Path(tempfile.gettempdir()))
    print(f"page cache ({tempfile.gettempdir()}): writing new pages {probe['new_pages_mb_per_s']:,.0f} "
          f"MB/s ({probe['new_pages_sys_ms_per_mb']} CPU-ms/MB), rewriting cached pages "
          f"{probe['cached_pages_mb_per_s']:,.0f} MB/s ({probe['cached_pages_sys_ms_per_mb']} "
          "CPU-ms/MB)", flush=True)
    runs: list[ClusterRun] = []
    zk_dir = Path(tempfile.mkdtemp(prefix="bench-replication-zookeeper-"))
    zookeeper = ZooKeeperServer(zk_dir)
    try:
        zookeeper.start()
        print(f"ZooKeeper on {zookeeper.connect_string()} (pid {zookeeper.pid})", flush=True)
        for rnd in range(args.rounds):
            for name in (names if rnd % 2 == 0 else names[::-1]):
                runs.append(run_cluster(name, rnd, args, zookeeper))
    except KeyboardInterrupt as e:
        print(f"\ninterrupted ({str(e) or 'Ctrl-C'}); every process is stopped, nothing was written",
              file=sys.stderr)
        return 130
    except Exception as e:  # noqa: BLE001 - ZooKeeper did not start
        print(f"\n!!! {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    finally:
        ReferenceKafkaCluster.stop_all()
        BrokerProcess.stop_all()
        zookeeper.stop()
        shutil.rmtree(zk_dir, ignore_errors=True)
    load_after = load_average()

    status: dict[str, dict[str, Any]] = {}
    note = "" if set(BROKERS) <= set(names) else "only one cluster run: no pybroker/Kafka ratio"
    for name in names:
        errors = [r.error for r in runs if r.broker == name and r.error]
        status[name] = {"status": "failed", "errors": errors} if errors else {"status": "ran"}
        if errors and not note:
            note = f"{name} failed:\n{errors[0][:200]}"
    summary = summarize(runs, names, args.cases)
    goals = judge(summary)
    machine = machine_info()
    machine["load_average_before"] = load_before
    machine["load_average_after"] = load_after
    machine["page_cache_write"] = probe
    config = {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()}
    config.update(cluster_size=CLUSTER_SIZE, shared_settings=dict(SHARED_SETTINGS),
                  case_specs={c.name: {"replication_factor": c.replication_factor,
                                       "acks": c.acks, "topic_config": c.topic_config()}
                              for c in CASES if c.name in args.cases})
    result = {"timestamp": stamp, "machine": machine, "config": config, "brokers": status,
              "ratio": RATIO, "figures": summary, "goals": goals,
              "runs": [r.to_json() for r in runs]}
    json_path = args.out / f"bench-replication-{stamp}.json"
    json_path.write_text(json.dumps(result, indent=2) + "\n")
    table = markdown_table(summary, names, goals)
    md_path = args.out / f"bench-replication-{stamp}.md"
    md_path.write_text(table + "\n")
    png_path = args.out / f"bench-replication-{stamp}.png"
    title = (f"pybroker {machine.get('pybroker_commit', '')} vs Apache Kafka {KAFKA_VERSION}: "
             f"{CLUSTER_SIZE} brokers, {args.record_size}-byte records, {args.partitions} "
             f"partitions - {machine.get('cpu_count')} CPU"
             + (f", median of {args.rounds} rounds" if args.rounds > 1 else ""))
    plot(summary, names, goals, png_path, title, note)
    print()
    print(f"{CLUSTER_SIZE} brokers on one ZooKeeper, {args.record_size}-byte records, "
          f"{args.partitions} partitions (latency: 1)"
          + (f", median of {args.rounds} rounds" if args.rounds > 1 else "")
          + f"; {RATIO}: of MB/s above 1, of ms below 1 means pybroker is faster")
    print(table)
    print(f"load average before {' '.join(map(str, load_before))}, "
          f"after {' '.join(map(str, load_after))}")
    print(f"wrote {json_path}, {md_path} and {png_path}")
    for name, st in status.items():
        if st["status"] == "failed":
            loud([f"{name} FAILED: {st['errors'][0][:300]}"])
    return 1 if any(st["status"] == "failed" for st in status.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
