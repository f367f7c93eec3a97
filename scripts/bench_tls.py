"""What TLS costs: produce and consume throughput over a PLAINTEXT and an SSL listener of the
same broker, on pybroker and on Apache Kafka 3.9, in the same run.

Each broker (a single node: pybroker's embedded mode, Kafka with its ZooKeeper, both from
pybroker/testing) gets both listeners, the same PEM key and trust store files (a CA and a
server certificate made by pybroker/testing/certs.py; no client certificates), an unmeasured
warm-up, then for each listener a fresh topic:

- ``produce``: confluent-kafka, acks=1, ``--records`` records of ``--record-size`` bytes, from
  the first send to the last acknowledgement;
- ``consume``: confluent-kafka reading the topic back from the beginning (fetches from the
  segment files: sendfile on PLAINTEXT, read+write on TLS).

For each: records/s, MB/s of payload and the broker's CPU seconds per GB. The ratios are
SSL/PLAINTEXT on each broker (what TLS costs) and pybroker/Kafka per listener and direction.
Results go to ``--out`` as JSON, Markdown and a PNG. Nothing is asserted.
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

from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from pybroker.testing.broker_process import BrokerProcess, free_port
from pybroker.testing.certs import CertificateAuthority, server_properties
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
LISTENERS = ("PLAINTEXT", "SSL")
DIRECTIONS = ("produce", "consume")
SHARED_SETTINGS: dict[str, object] = {
    "num.partitions": 1,
    "offsets.topic.replication.factor": 1,
    "transaction.state.log.replication.factor": 1,
    "transaction.state.log.min.isr": 1,
    "group.initial.rebalance.delay.ms": 0,
}


@dataclass
class Result(Throughput):
    listener: str
    direction: str


@dataclass
class BrokerRun:
    broker: str
    round: int
    results: list[Result]
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"broker": self.broker, "round": self.round, "error": self.error,
                "results": [r.to_json() for r in self.results]}


def client_config(bootstrap: str, listener: str, ca_file: Path) -> dict[str, object]:
    if listener == "SSL":
        return {"bootstrap.servers": bootstrap, "security.protocol": "SSL",
                "ssl.ca.location": str(ca_file)}
    return {"bootstrap.servers": bootstrap}


def produce(config: dict[str, object], topic: str, args: argparse.Namespace,
            result: Result) -> None:
    producer = Producer({**config, "acks": 1, "linger.ms": args.linger_ms,
                         "batch.size": args.batch_size, "compression.type": "none",
                         "queue.buffering.max.messages": 1_000_000})
    payloads = [os.urandom(args.record_size) for _ in range(16)]
    failed = 0

    def on_delivery(err: object, _msg: object) -> None:
        nonlocal failed
        if err is not None:
            failed += 1

    start = time.perf_counter()
    for i in range(args.records):
        while True:
            try:
                producer.produce(topic, payloads[i & 15], on_delivery=on_delivery)
                break
            except BufferError:
                producer.poll(0.005)
    remaining = producer.flush(120)
    result.seconds = time.perf_counter() - start
    result.records = args.records - failed - remaining
    result.payload_bytes = result.records * args.record_size
    if failed or remaining:
        result.error = f"{failed} failed and {remaining} undelivered records"


def consume(config: dict[str, object], topic: str, args: argparse.Namespace,
            result: Result) -> None:
    consumer = Consumer({**config, "group.id": f"bench-{topic}", "enable.auto.commit": False,
                         "fetch.max.bytes": 52_428_800,
                         "max.partition.fetch.bytes": 10_485_760})
    consumer.assign([TopicPartition(topic, p, 0) for p in range(args.partitions)])
    got = 0
    start = time.perf_counter()
    deadline = start + 300
    try:
        while got < args.records and time.perf_counter() < deadline:
            # never ask for more than is left: consume() waits out its timeout for a batch it
            # cannot fill, which would add up to a second to every measurement
            for msg in consumer.consume(min(10_000, args.records - got), 1.0):
                if msg.error() is None:
                    got += 1
                    result.payload_bytes += len(msg.value() or b"")
        result.seconds = time.perf_counter() - start
    finally:
        consumer.close()
    result.records = got
    if got < args.records:
        result.error = f"read {got} of {args.records} records"


def start_broker(name: str, rnd: int, work: Path, ssl_props: dict[str, str]
                 ) -> tuple[BrokerProcess | ReferenceKafka, dict[str, str]]:
    port, ssl_port = free_port(), free_port()
    listeners = f"PLAINTEXT://127.0.0.1:{port},SSL://127.0.0.1:{ssl_port}"
    overrides = {**SHARED_SETTINGS, "listeners": listeners, "advertised.listeners": listeners,
                 **ssl_props}
    target: BrokerProcess | ReferenceKafka
    if name == "pybroker":
        target = BrokerProcess(work / f"{name}-{rnd}" / "kafka-logs", port=port,
                               overrides=overrides)
    else:
        target = ReferenceKafka(work / f"{name}-{rnd}", port=port, overrides=overrides)
    return target, {"PLAINTEXT": f"127.0.0.1:{port}", "SSL": f"127.0.0.1:{ssl_port}"}


def run_broker(name: str, rnd: int, args: argparse.Namespace, work: Path,
               ssl_props: dict[str, str], ca_file: Path) -> BrokerRun:
    run = BrokerRun(name, rnd, [])
    target, bootstraps = start_broker(name, rnd, work, ssl_props)
    try:
        target.start()
        pid = target.pid if isinstance(target, BrokerProcess) else (
            target.kafka.proc.pid if target.kafka.proc is not None else None)
        pids = [pid] if pid is not None else []
        admin = AdminClient({"bootstrap.servers": bootstraps["PLAINTEXT"]})
        tag = f"{name}-{rnd}-{int(time.time())}"
        for listener in LISTENERS:
            config = client_config(bootstraps[listener], listener, ca_file)
            topics = {kind: f"{kind}-{listener.lower()}-{tag}" for kind in ("warmup", "bench")}
            for f in admin.create_topics([NewTopic(t, args.partitions, 1)
                                          for t in topics.values()]).values():
                f.result(60)
            if args.warmup_records:
                warm = argparse.Namespace(**{**vars(args), "records": args.warmup_records})
                try:
                    produce(config, topics["warmup"], warm, Result(listener, "produce"))
                    consume(config, topics["warmup"], warm, Result(listener, "consume"))
                except KafkaException as e:
                    print(f"  {name:8s} round {rnd}: {listener} warm-up failed: {e}", flush=True)
            for direction, step in (("produce", produce), ("consume", consume)):
                result = Result(listener, direction)
                run.results.append(result)
                os.sync()
                time.sleep(0.5)
                cpu0 = cpu_seconds(pids)
                try:
                    step(config, topics["bench"], args, result)
                except KafkaException as e:
                    result.error = f"{type(e).__name__}: {e}"
                cpu1 = cpu_seconds(pids)
                if cpu0 is not None and cpu1 is not None:
                    result.broker_cpu_s = cpu1 - cpu0
                if (why := interrupted()) is not None:
                    raise KeyboardInterrupt(why)
                print(f"  {name:8s} round {rnd}: {listener:9s} {direction:7s} "
                      f"{result.msgs_per_s:10.0f} records/s {result.mb_per_s:8.2f} MB/s"
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
        for listener in LISTENERS:
            for direction in DIRECTIONS:
                ok = [r for run in runs if run.broker == name for r in run.results
                      if (r.listener, r.direction) == (listener, direction)
                      and r.error is None and r.records]
                figures.setdefault(name, {})[f"{listener} {direction}"] = {
                    "msgs_per_s": median([r.msgs_per_s for r in ok]),
                    "mb_per_s": median([r.mb_per_s for r in ok]),
                    "cpu_s_per_gb": median([r.cpu_s_per_gb for r in ok
                                            if r.cpu_s_per_gb is not None]),
                }
    ratios: dict[str, Any] = {}
    for name in names:
        for direction in DIRECTIONS:
            plain = figures[name][f"PLAINTEXT {direction}"]["mb_per_s"]
            tls = figures[name][f"SSL {direction}"]["mb_per_s"]
            ratios[f"{name} SSL/PLAINTEXT {direction}"] = tls / plain if plain and tls else None
    if set(BROKERS) <= set(names):
        for key in figures["pybroker"]:
            p, k = figures["pybroker"][key]["mb_per_s"], figures["kafka"][key]["mb_per_s"]
            ratios[f"pybroker/kafka {key}"] = p / k if p and k else None
    return {"figures": figures, "ratios": ratios}


def fmt(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:,.{digits}f}"


def markdown(summary: dict[str, Any], names: list[str]) -> str:
    lines = ["| broker | listener | direction | records/s | MB/s | broker CPU s/GB |",
             "|---|---|---|---:|---:|---:|"]
    for name in names:
        for key, f in summary["figures"][name].items():
            listener, direction = key.split()
            lines.append(f"| {name} | {listener} | {direction} | {fmt(f['msgs_per_s'], 0)} | "
                         f"{fmt(f['mb_per_s'], 2)} | {fmt(f['cpu_s_per_gb'], 2)} |")
    lines += ["", "| ratio | value |", "|---|---:|"]
    lines += [f"| {k} | {fmt(v, 2)} |" for k, v in summary["ratios"].items()]
    return "\n".join(lines)


def plot(summary: dict[str, Any], names: list[str], path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    keys = [f"{listener} {direction}" for direction in DIRECTIONS for listener in LISTENERS]
    fig, (left, right) = plt.subplots(1, 2, figsize=(13, 5), width_ratios=[1.4, 1])
    width = 0.8 / len(names)
    colors = {"pybroker": "tab:blue", "kafka": "tab:orange"}
    for i, name in enumerate(names):
        values = [summary["figures"][name][k]["mb_per_s"] for k in keys]
        xs = [x + (i - (len(names) - 1) / 2) * width for x in range(len(keys))]
        bars = left.bar(xs, [v or 0 for v in values], width, label=name, color=colors.get(name))
        left.bar_label(bars, labels=[fmt(v, 1) for v in values], fontsize=8, padding=2)
    left.set_xticks(range(len(keys)), [k.replace(" ", "\n") for k in keys], fontsize=8)
    left.set_ylabel("MB/s (payload)")
    left.set_title("throughput by listener", fontsize=9)
    left.legend(fontsize=8)
    left.grid(axis="y", alpha=0.3)
    ratios = summary["ratios"]
    rkeys = list(ratios)
    bars = right.barh(range(len(rkeys)), [ratios[k] or 0 for k in rkeys], color="tab:green")
    right.bar_label(bars, labels=[fmt(ratios[k], 2) for k in rkeys], fontsize=7, padding=2)
    right.set_yticks(range(len(rkeys)), rkeys, fontsize=7)
    right.invert_yaxis()
    right.axvline(1.0, color="black", linewidth=0.8, linestyle="--")
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
    p.add_argument("--records", type=int, default=200_000, help="records per measurement")
    p.add_argument("--record-size", type=int, default=1024, help="record value size in bytes")
    p.add_argument("--partitions", type=int, default=3, help="partitions of each topic")
    p.add_argument("--linger-ms", type=int, default=5, help="confluent-kafka linger.ms")
    p.add_argument("--batch-size", type=int, default=1_000_000, help="confluent-kafka batch.size")
    p.add_argument("--warmup-records", type=int, default=30_000,
                   help="unmeasured records per listener before the measured ones (0: none)")
    p.add_argument("--rounds", type=int, default=1,
                   help="run every broker this many times, alternating the order; medians")
    args = p.parse_args(argv)
    args.names = [n.strip() for n in args.brokers.split(",") if n.strip()]
    if not args.names or set(args.names) - set(BROKERS) or len(set(args.names)) != len(args.names):
        p.error(f"--brokers takes a comma-separated list of {', '.join(BROKERS)}")
    if min(args.records, args.record_size, args.partitions, args.rounds) < 1:
        p.error("--records, --record-size, --partitions and --rounds must be at least 1")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    catch_interrupts()
    names: list[str] = args.names
    if "kafka" in names and (missing := missing_requirements()):
        loud([f"bench_tls: the Kafka side is SKIPPED ({'; '.join(missing)}): no pybroker/Kafka "
              "ratio.", "`make setup` installs a JDK and the Kafka jars."])
        names = [n for n in names if n != "kafka"]
        if not names:
            return 1
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    args.out.mkdir(parents=True, exist_ok=True)
    load_before = load_average()
    print(f"load average before: {' '.join(map(str, load_before))} ({os.cpu_count()} CPUs); "
          f"{args.records} records of {args.record_size} bytes per measurement, "
          f"{args.partitions} partitions", flush=True)
    runs: list[BrokerRun] = []
    work = Path(tempfile.mkdtemp(prefix="bench-tls-"))
    ca = CertificateAuthority.create()
    server = ca.issue("CN=broker")
    server.write(work / "certs", "server")
    ssl_props = server_properties(ca, server, inline=False)
    ca_file = work / "certs" / "ca.pem"
    try:
        for rnd in range(args.rounds):
            for name in (names if rnd % 2 == 0 else names[::-1]):
                runs.append(run_broker(name, rnd, args, work, ssl_props, ca_file))
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
    (args.out / f"bench-tls-{stamp}.json").write_text(json.dumps(result, indent=2) + "\n")
    table = markdown(summary, names)
    (args.out / f"bench-tls-{stamp}.md").write_text(table + "\n")
    title = (f"pybroker {machine.get('pybroker_commit', '')} vs Apache Kafka {KAFKA_VERSION}: "
             f"PLAINTEXT vs SSL, {args.record_size}-byte records - "
             f"{machine.get('cpu_count')} CPU")
    plot(summary, names, args.out / f"bench-tls-{stamp}.png", title)
    print()
    print(table)
    print(f"\nwritten: {args.out}/bench-tls-{stamp}.{{json,md,png}}")
    failed = [r for r in runs if r.error] + [m for r in runs for m in r.results if m.error]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
