#!/usr/bin/env python3
"""Spark Structured Streaming's Kafka connector reading from and writing to pybroker, next to
Apache Kafka 3.9: records per second for three jobs a Spark user runs.

- ``batch read``: ``spark.read.format("kafka")`` over the whole topic, summing value lengths
  (every record is fetched and its value touched);
- ``stream read``: ``readStream`` with ``Trigger.AvailableNow`` into the ``noop`` sink, the
  same records through the micro-batch engine, checkpoint included;
- ``batch write``: ``df.write.format("kafka")`` of the same number of records.

One local[2] SparkSession serves both brokers, so they meet the same warmed-up JVM. For each
broker in turn: start it with a fresh data folder, fill a topic with librdkafka (not timed),
run every job once unmeasured, then ``--repeat`` times measured (the median is reported), and
stop it. The broker's CPU seconds over each job are read from /proc. Results go to
``<out>/bench-spark-<timestamp>.json`` and ``.png``; a table is printed. Spark's own CPU is the
larger share on two cores, so the ratios say how much the broker holds Spark back, not how
fast the broker is on its own (``scripts/bench.py`` measures that). See docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path

from confluent_kafka import Producer

# examples/ and scripts/ are not installed packages: run this as `python -m scripts.bench_spark`
# from the checkout (as `make bench` does), so the examples' Spark session and bench.py's
# brokers and helpers are imported from it
from examples.spark_connector import local_session, spark_version
from pybroker.testing.broker_process import BrokerProcess
from pybroker.testing.reference_kafka import ReferenceKafka
from scripts.bench import (
    KAFKA_VERSION,
    OwnKafka,
    OwnPybroker,
    Target,
    cpu_seconds,
    create_topic,
    loud,
    machine_info,
    missing_requirements,
    settle,
)

JOBS = ("batch read", "stream read", "batch write")
BROKERS = ("pybroker", "kafka")


def fill(bootstrap: str, topic: str, records: int, size: int) -> None:
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 20, "batch.size": 1_000_000,
                         "queue.buffering.max.messages": 1_000_000})
    value = b"x" * size
    for i in range(records):
        while True:
            try:
                producer.produce(topic, value, key=str(i % 1000).encode())
                break
            except BufferError:
                producer.poll(0.05)
    if producer.flush(120) != 0:
        raise RuntimeError("records left unsent while filling the topic")


def run_job(spark, job: str, bootstrap: str, topic: str, args: argparse.Namespace, tmp: Path) -> int:
    """Run one job; return the number of records it moved."""
    if job == "batch read":
        df = spark.read.format("kafka").option("kafka.bootstrap.servers", bootstrap) \
            .option("subscribe", topic).load()
        row = df.selectExpr("count(*) AS n", "sum(length(value)) AS bytes").collect()[0]
        if row["bytes"] != row["n"] * args.size:
            raise RuntimeError(f"read {row['bytes']} value bytes for {row['n']} records")
        return row["n"]
    if job == "stream read":
        df = spark.readStream.format("kafka").option("kafka.bootstrap.servers", bootstrap) \
            .option("subscribe", topic).option("startingOffsets", "earliest").load()
        query = df.writeStream.format("noop").trigger(availableNow=True) \
            .option("checkpointLocation", str(tmp / uuid.uuid4().hex)).start()
        query.awaitTermination()
        return sum(p["numInputRows"] for p in query.recentProgress)
    out = f"{topic}-out-{uuid.uuid4().hex[:6]}"
    create_topic(bootstrap, out, args.partitions)
    spark.range(args.records, numPartitions=args.partitions) \
        .selectExpr("CAST(id % 1000 AS STRING) AS key", f"repeat('x', {args.size}) AS value") \
        .write.format("kafka").option("kafka.bootstrap.servers", bootstrap) \
        .option("topic", out).save()
    return args.records


def bench_broker(spark, target: Target, args: argparse.Namespace, tmp: Path) -> dict:
    print(f"\n== {target.name} ==", flush=True)
    try:
        settle()
        bootstrap = target.start()
        pids = list(target.pids().values())
        topic = f"bench-spark-{uuid.uuid4().hex[:6]}"
        create_topic(bootstrap, topic, args.partitions)
        fill(bootstrap, topic, args.records, args.size)
        print(f"{target.name}: {bootstrap}, {args.records:,} records of {args.size} B in "
              f"{args.partitions} partitions", flush=True)
        result: dict[str, dict] = {}
        for job in JOBS:
            run_job(spark, job, bootstrap, topic, args, tmp)  # warm-up, unmeasured
            seconds, cpu = [], []
            for _ in range(args.repeat):
                settle()
                cpu0, t0 = cpu_seconds(pids), time.perf_counter()
                moved = run_job(spark, job, bootstrap, topic, args, tmp)
                seconds.append(time.perf_counter() - t0)
                cpu1 = cpu_seconds(pids)
                if moved != args.records:
                    raise RuntimeError(f"{job} moved {moved} of {args.records} records")
                if None not in (cpu0, cpu1):
                    cpu.append(cpu1 - cpu0)
            median = statistics.median(seconds)
            result[job] = {
                "seconds": [round(s, 3) for s in seconds],
                "median_s": round(median, 3),
                "records_per_s": round(args.records / median),
                "broker_cpu_s": round(statistics.median(cpu), 3) if cpu else None,
            }
            print(f"{target.name}: {job}: {args.records / median:,.0f} records/s "
                  f"(median of {args.repeat}: {median:.2f}s; broker CPU "
                  f"{result[job]['broker_cpu_s']}s)", flush=True)
        return {"status": "ran", "jobs": result}
    except Exception as e:  # noqa: BLE001 - report it and go on with the other broker
        print(f"\n!!! {target.name} FAILED: {type(e).__name__}: {e}\n{target.describe()}", file=sys.stderr)
        return {"status": "failed", "error": f"{type(e).__name__}: {e}"}
    finally:
        target.stop()


def plot(results: dict[str, dict], path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [n for n in BROKERS if results.get(n, {}).get("status") == "ran"]
    fig, (ax, rax) = plt.subplots(1, 2, figsize=(12, 5), gridspec_kw={"width_ratios": [2, 1]})
    width = 0.8 / max(len(names), 1)
    xs = range(len(JOBS))
    for i, name in enumerate(names):
        values = [results[name]["jobs"][j]["records_per_s"] for j in JOBS]
        bars = ax.bar([x + (i - (len(names) - 1) / 2) * width for x in xs], values, width,
                      label=name, color={"pybroker": "tab:blue", "kafka": "tab:orange"}[name])
        ax.bar_label(bars, labels=[f"{v / 1000:,.0f}k" for v in values], fontsize=8, padding=2)
    ax.set_xticks(list(xs), JOBS)
    ax.set_ylabel("records/s (median)")
    ax.legend()
    ax.grid(axis="y", alpha=0.3)
    rax.set_title("ratio pybroker/kafka (records/s)", fontsize=9)
    if len(names) == 2:
        ratios = [results["pybroker"]["jobs"][j]["records_per_s"] / results["kafka"]["jobs"][j]["records_per_s"]
                  for j in JOBS]
        bars = rax.bar(list(xs), ratios, 0.6, color="tab:green")
        rax.bar_label(bars, labels=[f"{r:.2f}" for r in ratios], fontsize=8, padding=2)
        rax.axhline(1.0, color="black", linewidth=0.8, linestyle="--")
    else:
        rax.text(0.5, 0.5, "one broker only: no ratio", ha="center", va="center", transform=rax.transAxes)
    rax.set_xticks(list(xs), JOBS, fontsize=8)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", type=Path, default=Path("bench-results"))
    p.add_argument("--brokers", default="pybroker,kafka", help="comma-separated: pybroker, kafka")
    p.add_argument("--records", type=int, default=500_000)
    p.add_argument("--size", type=int, default=100, help="value bytes per record")
    p.add_argument("--partitions", type=int, default=3)
    p.add_argument("--repeat", type=int, default=3, help="measured runs of each job (median)")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    names = [n.strip() for n in args.brokers.split(",") if n.strip()]
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    args.out.mkdir(parents=True, exist_ok=True)
    results: dict[str, dict] = {}
    if "kafka" in names and (missing := missing_requirements()):
        results["kafka"] = {"status": "skipped", "reason": "; ".join(missing)}
        loud([f"Apache Kafka {KAFKA_VERSION} is SKIPPED: cannot start it without {'; '.join(missing)}.",
              "The pybroker/kafka ratios will be n/a."])
    spark = local_session("pybroker-bench")
    spark.sparkContext.setLogLevel("ERROR")
    tmp = args.out / f"spark-checkpoints-{stamp}"
    try:
        for name in names:
            if name in results:
                continue
            target = OwnPybroker() if name == "pybroker" else OwnKafka()
            results[name] = bench_broker(spark, target, args, tmp)
    finally:
        spark.stop()
        BrokerProcess.stop_all()
        ReferenceKafka.stop_all()
        shutil.rmtree(tmp, ignore_errors=True)

    machine = machine_info()
    machine["pyspark"] = spark_version()
    config = {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()}
    json_path = args.out / f"bench-spark-{stamp}.json"
    png_path = args.out / f"bench-spark-{stamp}.png"
    json_path.write_text(json.dumps(
        {"timestamp": stamp, "machine": machine, "config": config, "brokers": results}, indent=2) + "\n")
    plot(results, png_path, f"Spark {machine['pyspark']} (local[2]) on pybroker "
         f"{machine.get('pybroker_commit', '')} vs Apache Kafka {KAFKA_VERSION}: "
         f"{args.records:,} records of {args.size} B, {args.partitions} partitions")

    print(f"\n{'job':<12} " + " ".join(f"{n + ' rec/s':>16} {n + ' CPU s':>13}" for n in names)
          + (f" {'ratio':>7}" if len(names) == 2 else ""))
    for job in JOBS:
        cells, rates = [], []
        for n in names:
            j = results.get(n, {}).get("jobs", {}).get(job)
            rates.append(j["records_per_s"] if j else None)
            cells.append(f"{j['records_per_s']:>16,} {j['broker_cpu_s'] or 0:>13.2f}" if j else f"{'n/a':>16} {'n/a':>13}")
        ratio = f" {rates[0] / rates[1]:>7.2f}" if len(names) == 2 and None not in rates else ""
        print(f"{job:<12} " + " ".join(cells) + ratio)
    print(f"wrote {json_path} and {png_path}")
    return 1 if any(r.get("status") == "failed" for r in results.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
