"""What transactions cost: an idempotent producer next to a transactional one that commits
every ``--commit-every`` records, on pybroker and on Apache Kafka 3.9, in the same run.

Each broker (a single node: pybroker's embedded mode, Kafka with its ZooKeeper, both from
pybroker/testing) starts, gets an unmeasured warm-up, and runs every mode on a fresh topic:

- ``idempotent``: confluent-kafka with ``enable.idempotence=true`` (acks=all), as a
  transactional producer writes, without transactions;
- ``transactional``: the same producer with a ``transactional.id``: ``begin_transaction``,
  ``--commit-every`` records, ``commit_transaction`` (which waits for the records and for the
  markers), again and again.

For each mode: records/s and MB/s of payload from the first send to the last acknowledgement
(the last commit), commits/s, and the broker's CPU seconds per GB. The ratios are
transactional/idempotent on each broker (what a commit every N records costs) and
pybroker/Kafka per mode. Results go to ``--out`` as JSON, Markdown and a PNG. Nothing is
asserted: the figures are for reading (docs/benchmarks.md, "Transactions").
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from confluent_kafka import KafkaException, Producer
from confluent_kafka.admin import AdminClient, NewTopic

from pybroker.testing.broker_process import BrokerProcess
from pybroker.testing.reference_kafka import KAFKA_VERSION, ReferenceKafka, missing_requirements
from scripts.bench import (
    Throughput,
    catch_interrupts,
    cpu_seconds,
    interrupted,
    load_average,
    loud,
    machine_info,
)

BROKERS = ("pybroker", "kafka")
MODES = ("idempotent", "transactional")
#: both brokers get these (Kafka's single-node settings for its internal topics)
SHARED_SETTINGS: dict[str, object] = {
    "num.partitions": 1,
    "offsets.topic.replication.factor": 1,
    "transaction.state.log.replication.factor": 1,
    "transaction.state.log.min.isr": 1,
    "group.initial.rebalance.delay.ms": 0,
}


@dataclass
class ModeResult(Throughput):
    mode: str
    commits: int = 0


@dataclass
class BrokerRun:
    broker: str
    round: int
    results: list[ModeResult]
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"broker": self.broker, "round": self.round, "error": self.error,
                "results": [r.to_json() for r in self.results]}


def produce(bootstrap: str, topic: str, mode: str, args: argparse.Namespace,
            result: ModeResult, tag: str) -> None:
    config: dict[str, object] = {
        "bootstrap.servers": bootstrap, "enable.idempotence": True, "linger.ms": args.linger_ms,
        "batch.size": args.batch_size, "compression.type": "none",
        "queue.buffering.max.messages": 1_000_000,
        # (librdkafka: at most transaction.timeout.ms, whose default is a minute)
        "message.timeout.ms": 60_000,
    }
    transactional = mode == "transactional"
    if transactional:
        config["transactional.id"] = f"bench-{tag}"
    producer = Producer(config)
    payloads = [os.urandom(args.record_size) for _ in range(16)]
    failed = 0

    def on_delivery(err: object, _msg: object) -> None:
        nonlocal failed
        if err is not None:
            failed += 1

    if transactional:
        producer.init_transactions(60)
    start = time.perf_counter()
    sent = 0
    while sent < args.records:
        if transactional:
            producer.begin_transaction()
        chunk = min(args.commit_every, args.records - sent)
        for i in range(chunk):
            while True:
                try:
                    producer.produce(topic, payloads[(sent + i) & 15], on_delivery=on_delivery)
                    break
                except BufferError:
                    producer.poll(0.005)
        sent += chunk
        producer.poll(0)
        if transactional:
            producer.commit_transaction(120)
            result.commits += 1
    remaining = producer.flush(120)
    result.seconds = time.perf_counter() - start
    result.records = sent - failed - remaining
    result.payload_bytes = result.records * args.record_size
    if failed or remaining:
        result.error = f"{failed} failed and {remaining} undelivered records"


def run_broker(name: str, rnd: int, args: argparse.Namespace, work: Path) -> BrokerRun:
    run = BrokerRun(name, rnd, [])
    target: BrokerProcess | ReferenceKafka
    if name == "pybroker":
        target = BrokerProcess(work / f"{name}-{rnd}" / "kafka-logs", overrides=SHARED_SETTINGS)
    else:
        target = ReferenceKafka(work / f"{name}-{rnd}", overrides=SHARED_SETTINGS)
    try:
        target.start()
        pid = target.pid if isinstance(target, BrokerProcess) else (
            target.kafka.proc.pid if target.kafka.proc is not None else None)
        pids = [pid] if pid is not None else []  # the broker's process (not ZooKeeper's)
        admin = AdminClient({"bootstrap.servers": target.bootstrap})
        tag = f"{name}-{rnd}-{int(time.time())}"
        if args.warmup_records:
            warm = argparse.Namespace(**{**vars(args), "records": args.warmup_records})
            for mode in MODES:
                topic = f"warmup-{mode}-{tag}"
                for f in admin.create_topics([NewTopic(topic, args.partitions, 1)]).values():
                    f.result(60)
                try:
                    produce(target.bootstrap, topic, mode, warm, ModeResult(mode), f"w-{tag}")
                except KafkaException as e:  # the measured run of this mode reports it
                    print(f"  {name:8s} round {rnd}: {mode} warm-up failed: {e}", flush=True)
        for mode in MODES:
            result = ModeResult(mode)
            run.results.append(result)
            topic = f"bench-{mode}-{tag}"
            for f in admin.create_topics([NewTopic(topic, args.partitions, 1)]).values():
                f.result(60)
            os.sync()
            time.sleep(0.5)
            cpu0 = cpu_seconds(pids)
            try:
                produce(target.bootstrap, topic, mode, args, result, tag)
            except KafkaException as e:
                result.error = f"{type(e).__name__}: {e}"
            cpu1 = cpu_seconds(pids)
            if cpu0 is not None and cpu1 is not None:
                result.broker_cpu_s = cpu1 - cpu0
            if (why := interrupted()) is not None:
                raise KeyboardInterrupt(why)
            print(f"  {name:8s} round {rnd}: {mode:13s} {result.msgs_per_s:10.0f} records/s "
                  f"{result.mb_per_s:8.2f} MB/s {result.commits:5d} commits"
                  + (f"  ERROR {result.error}" if result.error else ""), flush=True)
    except KeyboardInterrupt:
        raise
    except Exception as e:  # noqa: BLE001 - one broker's failure is reported, the run goes on
        run.error = f"{type(e).__name__}: {e}"
        print(f"\n!!! {name} FAILED: {run.error}", file=sys.stderr)
    finally:
        target.stop()
    return run


def median(values: list[float]) -> float | None:
    return statistics.median(values) if values else None


def summarize(runs: list[BrokerRun], names: list[str]) -> dict[str, Any]:
    figures: dict[str, Any] = {}
    for name in names:
        for mode in MODES:
            ok = [r for run in runs if run.broker == name for r in run.results
                  if r.mode == mode and r.error is None and r.records]
            figures.setdefault(name, {})[mode] = {
                "msgs_per_s": median([r.msgs_per_s for r in ok]),
                "mb_per_s": median([r.mb_per_s for r in ok]),
                "cpu_s_per_gb": median([r.cpu_s_per_gb for r in ok if r.cpu_s_per_gb is not None]),
                "commits_per_s": median([r.commits / r.seconds for r in ok if r.seconds]),
            }
    ratios: dict[str, Any] = {}
    for name in names:
        i, t = figures[name]["idempotent"]["mb_per_s"], figures[name]["transactional"]["mb_per_s"]
        ratios[f"{name} transactional/idempotent"] = t / i if i and t else None
    if set(BROKERS) <= set(names):
        for mode in MODES:
            p, k = figures["pybroker"][mode]["mb_per_s"], figures["kafka"][mode]["mb_per_s"]
            ratios[f"pybroker/kafka {mode}"] = p / k if p and k else None
    return {"figures": figures, "ratios": ratios}


def fmt(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:,.{digits}f}"


def markdown(summary: dict[str, Any], names: list[str]) -> str:
    lines = ["| broker | mode | records/s | MB/s | commits/s | broker CPU s/GB |",
             "|---|---|---:|---:|---:|---:|"]
    for name in names:
        for mode in MODES:
            f = summary["figures"][name][mode]
            lines.append(f"| {name} | {mode} | {fmt(f['msgs_per_s'], 0)} | "
                         f"{fmt(f['mb_per_s'], 2)} | {fmt(f['commits_per_s'], 1)} | "
                         f"{fmt(f['cpu_s_per_gb'], 2)} |")
    lines += ["", "| ratio | value |", "|---|---:|"]
    lines += [f"| {k} | {fmt(v, 2)} |" for k, v in summary["ratios"].items()]
    return "\n".join(lines)


def plot(summary: dict[str, Any], names: list[str], path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 5), width_ratios=[1.4, 1])
    width = 0.8 / len(names)
    colors = {"pybroker": "tab:blue", "kafka": "tab:orange"}
    for i, name in enumerate(names):
        values = [summary["figures"][name][m]["mb_per_s"] for m in MODES]
        xs = [x + (i - (len(names) - 1) / 2) * width for x in range(len(MODES))]
        bars = left.bar(xs, [v or 0 for v in values], width, label=name, color=colors.get(name))
        left.bar_label(bars, labels=[fmt(v, 1) for v in values], fontsize=8, padding=2)
    left.set_xticks(range(len(MODES)), MODES)
    left.set_ylabel("MB/s (payload)")
    left.set_title("producer throughput", fontsize=9)
    left.legend(fontsize=8)
    left.grid(axis="y", alpha=0.3)
    ratios = summary["ratios"]
    keys = list(ratios)
    bars = right.bar(range(len(keys)), [ratios[k] or 0 for k in keys], color="tab:green")
    right.bar_label(bars, labels=[fmt(ratios[k], 2) for k in keys], fontsize=8, padding=2)
    right.set_xticks(range(len(keys)), [k.replace(" ", "\n", 1) for k in keys], fontsize=7)
    right.axhline(1.0, color="black", linewidth=0.8, linestyle="--")
    right.set_title("ratios", fontsize=9)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", type=Path, default=Path("bench-results"), help="output directory")
    p.add_argument("--brokers", default=",".join(BROKERS),
                   help="comma-separated, run in this order: pybroker, kafka (default: both)")
    p.add_argument("--records", type=int, default=300_000, help="records per mode")
    p.add_argument("--record-size", type=int, default=512, help="record value size in bytes")
    p.add_argument("--partitions", type=int, default=3, help="partitions of each topic")
    p.add_argument("--commit-every", type=int, default=1000,
                   help="records per transaction in the transactional mode")
    p.add_argument("--linger-ms", type=int, default=5, help="confluent-kafka linger.ms")
    p.add_argument("--batch-size", type=int, default=1_000_000, help="confluent-kafka batch.size")
    p.add_argument("--warmup-records", type=int, default=50_000,
                   help="unmeasured records per mode before the measured ones (0: none)")
    p.add_argument("--rounds", type=int, default=1,
                   help="run every broker this many times, alternating the order; medians")
    args = p.parse_args(argv)
    args.names = [n.strip() for n in args.brokers.split(",") if n.strip()]
    if not args.names or set(args.names) - set(BROKERS) or len(set(args.names)) != len(args.names):
        p.error(f"--brokers takes a comma-separated list of {', '.join(BROKERS)}")
    if min(args.records, args.record_size, args.partitions, args.commit_every, args.rounds) < 1:
        p.error("--records, --record-size, --partitions, --commit-every and --rounds must be "
                "at least 1")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    catch_interrupts()
    names: list[str] = args.names
    if "kafka" in names and (missing := missing_requirements()):
        loud([f"bench_transactions: the Kafka side is SKIPPED ({'; '.join(missing)}): no "
              "pybroker/Kafka ratio.", "`make setup` installs a JDK and the Kafka jars."])
        names = [n for n in names if n != "kafka"]
        if not names:
            return 1
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    args.out.mkdir(parents=True, exist_ok=True)
    load_before = load_average()
    print(f"load average before: {' '.join(map(str, load_before))} ({os.cpu_count()} CPUs); "
          f"{args.records} records of {args.record_size} bytes per mode, a commit every "
          f"{args.commit_every}, {args.partitions} partitions", flush=True)
    runs: list[BrokerRun] = []
    work = Path(tempfile.mkdtemp(prefix="bench-transactions-"))
    try:
        for rnd in range(args.rounds):
            for name in (names if rnd % 2 == 0 else names[::-1]):
                runs.append(run_broker(name, rnd, args, work))
    except KeyboardInterrupt as e:
        print(f"\ninterrupted ({str(e) or 'Ctrl-C'}); every process is stopped, nothing was "
              "written", file=sys.stderr)
        return 130
    finally:
        ReferenceKafka.stop_all()
        BrokerProcess.stop_all()
    summary = summarize(runs, names)
    machine = machine_info()
    machine["load_average_before"] = load_before
    machine["load_average_after"] = load_average()
    config = {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()}
    config["shared_settings"] = SHARED_SETTINGS
    result = {"timestamp": stamp, "machine": machine, "config": config, **summary,
              "runs": [r.to_json() for r in runs]}
    (args.out / f"bench-transactions-{stamp}.json").write_text(json.dumps(result, indent=2) + "\n")
    table = markdown(summary, names)
    (args.out / f"bench-transactions-{stamp}.md").write_text(table + "\n")
    title = (f"pybroker {machine.get('pybroker_commit', '')} vs Apache Kafka {KAFKA_VERSION}: "
             f"idempotent vs transactional (a commit every {args.commit_every} records), "
             f"{args.record_size}-byte records - {machine.get('cpu_count')} CPU")
    plot(summary, names, args.out / f"bench-transactions-{stamp}.png", title)
    print()
    print(table)
    print(f"\nwritten: {args.out}/bench-transactions-{stamp}.{{json,md,png}}")
    failed = [r for r in runs if r.error] + [m for r in runs for m in r.results if m.error]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
