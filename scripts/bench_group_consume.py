"""librdkafka's group consumer next to its simple (assign) consumer, on pybroker and on Apache
Kafka 3.9, in the same run.

A consumer in a group (``subscribe``) reads through the group coordinator: FindCoordinator,
JoinGroup, SyncGroup, OffsetFetch, then the same fetches as a consumer that assigns itself the
partition. This benchmark keeps an eye on the difference: ``--records`` small records are
written to one partition, then read back to the end, in turn, by

- ``assign``: ``kcat -C -t TOPIC -p 0 -o beginning -e`` (librdkafka's simple consumer);
- ``group``: ``kcat -G GROUP TOPIC -e`` with ``auto.offset.reset=earliest`` (librdkafka's
  high-level consumer, a fresh group each time).

kcat is librdkafka in C, so a Python consumer loop does not hide the broker. The time is kcat's
whole run (the group's join included), the figure records/s; the ratios are group/assign on
each broker and pybroker/Kafka per consumer. Results go to ``--out`` as JSON, Markdown and a PNG;
nothing is asserted (docs/benchmarks.md, "Group consumers").
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from confluent_kafka import Producer

from pybroker.testing.broker_process import BrokerProcess
from pybroker.testing.reference_kafka import ReferenceKafka, missing_requirements
from scripts.bench import catch_interrupts, load_average, loud, machine_info

BROKERS = ("pybroker", "kafka")
CONSUMERS = ("assign", "group")
SHARED_SETTINGS: dict[str, object] = {
    "num.partitions": 1,
    "offsets.topic.replication.factor": 1,
    "group.initial.rebalance.delay.ms": 0,
}


def fill(bootstrap: str, topic: str, records: int, size: int) -> None:
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 20,
                         "batch.size": 1_000_000, "queue.buffering.max.messages": 2_000_000})
    value = b"x" * size
    for _ in range(records):
        while True:
            try:
                producer.produce(topic, value, partition=0)
                break
            except BufferError:
                producer.poll(0.01)
    if producer.flush(120):
        raise RuntimeError("records left undelivered")


def read(kcat: str, bootstrap: str, topic: str, consumer: str) -> tuple[float, int]:
    """Seconds kcat took to read ``topic`` to its end, and the records it printed."""
    if consumer == "assign":
        args = ["-C", "-t", topic, "-p", "0", "-o", "beginning"]
    else:
        args = ["-G", f"bench-{uuid.uuid4().hex[:8]}", "-X", "auto.offset.reset=earliest", topic]
    start = time.perf_counter()
    done = subprocess.run([kcat, "-b", bootstrap, "-q", "-e", "-f", "\n", *args],
                          capture_output=True, timeout=600)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"kcat failed ({done.returncode}): {done.stderr[-500:]!r}")
    return seconds, done.stdout.count(b"\n")


def run_broker(name: str, args: argparse.Namespace, kcat: str, work: Path,
               ) -> dict[str, list[float]]:
    target: BrokerProcess | ReferenceKafka
    if name == "pybroker":
        target = BrokerProcess(work / name / "kafka-logs", overrides=SHARED_SETTINGS)
    else:
        target = ReferenceKafka(work / name, overrides=SHARED_SETTINGS)
    rates: dict[str, list[float]] = {c: [] for c in CONSUMERS}
    try:
        target.start()
        topic = f"bench-group-{uuid.uuid4().hex[:8]}"
        fill(target.bootstrap, topic, args.records, args.record_size)
        read(kcat, target.bootstrap, topic, "assign")  # warm-up: page cache, JIT
        for rnd in range(args.rounds):
            for consumer in (CONSUMERS if rnd % 2 == 0 else CONSUMERS[::-1]):
                seconds, got = read(kcat, target.bootstrap, topic, consumer)
                if got != args.records:
                    raise RuntimeError(f"{consumer} read {got} of {args.records} records")
                rates[consumer].append(got / seconds)
                print(f"  {name:8s} {consumer:6s} round {rnd}: {got / seconds:12,.0f} "
                      f"records/s ({seconds:.2f} s)", flush=True)
    finally:
        target.stop()
    return rates


def plot(medians: dict[str, dict[str, float | None]], ratios: dict[str, float | None],
         path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.5), width_ratios=[1.3, 1])
    names = list(medians)
    width = 0.8 / max(1, len(names))
    colors = {"pybroker": "tab:blue", "kafka": "tab:orange"}
    for i, name in enumerate(names):
        values = [medians[name][c] or 0 for c in CONSUMERS]
        xs = [x + (i - (len(names) - 1) / 2) * width for x in range(len(CONSUMERS))]
        bars = left.bar(xs, values, width, label=name, color=colors.get(name))
        left.bar_label(bars, labels=[f"{v / 1e6:.2f} M" for v in values], fontsize=8)
    left.set_xticks(range(len(CONSUMERS)), CONSUMERS)
    left.set_ylabel("records/s (median)")
    left.legend(fontsize=8)
    left.grid(axis="y", alpha=0.3)
    keys = list(ratios)
    bars = right.bar(range(len(keys)), [ratios[k] or 0 for k in keys], color="tab:green")
    right.bar_label(bars, labels=[f"{ratios[k]:.2f}" if ratios[k] else "-" for k in keys],
                    fontsize=8)
    right.set_xticks(range(len(keys)), [k.replace(" ", "\n", 1) for k in keys], fontsize=7)
    right.axhline(1.0, color="black", linewidth=0.8, linestyle="--")
    right.set_title("ratios", fontsize=9)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", type=Path, default=Path("bench-results"), help="output directory")
    p.add_argument("--brokers", default=",".join(BROKERS), help="pybroker, kafka or both")
    p.add_argument("--records", type=int, default=3_000_000, help="records in the partition")
    p.add_argument("--record-size", type=int, default=100, help="record value size in bytes")
    p.add_argument("--rounds", type=int, default=3, help="reads per consumer; medians")
    args = p.parse_args(argv)
    names = [n.strip() for n in args.brokers.split(",") if n.strip()]
    if not names or set(names) - set(BROKERS):
        p.error(f"--brokers takes a comma-separated list of {', '.join(BROKERS)}")
    kcat = shutil.which("kcat") or shutil.which("kafkacat")
    if kcat is None:
        loud(["bench_group_consume is SKIPPED: kcat is not installed (make system-deps)."])
        return 1
    if "kafka" in names and (missing := missing_requirements()):
        loud([f"bench_group_consume: the Kafka side is SKIPPED ({'; '.join(missing)})."])
        names.remove("kafka")
    catch_interrupts()
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    load_before = load_average()
    print(f"load average before: {' '.join(map(str, load_before))} ({os.cpu_count()} CPUs); "
          f"{args.records:,} records of {args.record_size} bytes in one partition", flush=True)
    work = Path(tempfile.mkdtemp(prefix="bench-group-consume-"))
    rates: dict[str, dict[str, list[float]]] = {}
    errors: dict[str, str] = {}
    try:
        for name in names:
            try:
                rates[name] = run_broker(name, args, kcat, work)
            except (RuntimeError, subprocess.SubprocessError, OSError) as e:
                errors[name] = f"{type(e).__name__}: {e}"
                print(f"\n!!! {name} FAILED: {errors[name]}", file=sys.stderr)
    except KeyboardInterrupt as e:
        print(f"\ninterrupted ({str(e) or 'Ctrl-C'}); nothing was written", file=sys.stderr)
        return 130
    finally:
        ReferenceKafka.stop_all()
        BrokerProcess.stop_all()
        shutil.rmtree(work, ignore_errors=True)
    medians = {n: {c: statistics.median(r[c]) if r[c] else None for c in CONSUMERS}
               for n, r in rates.items()}
    ratios: dict[str, float | None] = {}
    for name, m in medians.items():
        ratios[f"{name} group/assign"] = (m["group"] / m["assign"]
                                          if m["group"] and m["assign"] else None)
    if set(BROKERS) <= set(medians):
        for c in CONSUMERS:
            p_, k = medians["pybroker"][c], medians["kafka"][c]
            ratios[f"pybroker/kafka {c}"] = p_ / k if p_ and k else None
    lines = ["| broker | consumer | records/s (median) |", "|---|---|---:|"]
    lines += [f"| {n} | {c} | {m[c]:,.0f} |" if m[c] else f"| {n} | {c} | - |"
              for n, m in medians.items() for c in CONSUMERS]
    lines += ["", "| ratio | value |", "|---|---:|"]
    lines += [f"| {k} | {v:.2f} |" if v else f"| {k} | - |" for k, v in ratios.items()]
    table = "\n".join(lines)
    machine = machine_info()
    machine["load_average_before"] = load_before
    machine["load_average_after"] = load_average()
    args.out.mkdir(parents=True, exist_ok=True)
    result: dict[str, Any] = {"timestamp": stamp, "machine": machine,
                              "config": {k: str(v) for k, v in vars(args).items()},
                              "rates": rates, "medians": medians, "ratios": ratios,
                              "errors": errors}
    (args.out / f"bench-group-consume-{stamp}.json").write_text(json.dumps(result, indent=2))
    (args.out / f"bench-group-consume-{stamp}.md").write_text(table + "\n")
    plot(medians, ratios, args.out / f"bench-group-consume-{stamp}.png",
         f"librdkafka group vs simple consumer, {args.records:,} records of "
         f"{args.record_size} bytes - pybroker {machine.get('pybroker_commit', '')}")
    print()
    print(table)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
