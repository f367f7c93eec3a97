#!/usr/bin/env python3
"""Produce/consume throughput of pybroker, measured with confluent-kafka (librdkafka).

Starts its own broker on 127.0.0.1 with a temporary data directory (or uses ``--bootstrap``),
then for every (record size, partition count) case produces records until all are delivered and
reads them all back with an assign()-consumer from the beginning. Results go to
``<out>/bench-<timestamp>.json`` and ``.png``; a table is printed. See docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

import confluent_kafka  # noqa: E402
from confluent_kafka import OFFSET_BEGINNING, Consumer, Producer, TopicPartition  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402

from tests.compat.broker_process import BrokerProcess  # noqa: E402

MB = 1_000_000  # throughput is payload (value) bytes per second, in decimal megabytes


@dataclass
class Phase:
    records: int = 0
    payload_bytes: int = 0
    seconds: float = 0.0
    errors: int = 0

    @property
    def mb_per_s(self) -> float:
        return self.payload_bytes / MB / self.seconds if self.seconds else 0.0

    @property
    def msgs_per_s(self) -> float:
        return self.records / self.seconds if self.seconds else 0.0

    def to_json(self) -> dict:
        return {**asdict(self), "mb_per_s": round(self.mb_per_s, 3), "msgs_per_s": round(self.msgs_per_s, 1)}


@dataclass
class Case:
    record_size: int
    partitions: int
    topic: str = ""
    produce: Phase = field(default_factory=Phase)
    consume: Phase = field(default_factory=Phase)

    @property
    def label(self) -> str:
        size = f"{self.record_size // 1024} KiB" if self.record_size % 1024 == 0 else f"{self.record_size} B"
        return f"{size} x {self.partitions}p"


def create_topic(bootstrap: str, topic: str, partitions: int) -> None:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(topic, num_partitions=partitions, replication_factor=1)])[topic].result(60)
    deadline = time.monotonic() + 30
    while True:
        t = admin.list_topics(topic, timeout=10).topics.get(topic)
        if t is not None and t.error is None and len(t.partitions) == partitions:
            return
        if time.monotonic() > deadline:
            raise RuntimeError(f"topic {topic} has no usable metadata")
        time.sleep(0.1)


def delete_topic(bootstrap: str, topic: str) -> None:
    """Best effort: frees disk between cases; a broker without DeleteTopics still benchmarks."""
    admin = AdminClient({"bootstrap.servers": bootstrap})  # must outlive the future
    try:
        admin.delete_topics([topic])[topic].result(60)
    except Exception as e:  # noqa: BLE001
        print(f"  (could not delete {topic}: {e})", file=sys.stderr)


def run_produce(bootstrap: str, case: Case, args: argparse.Namespace) -> None:
    """Enqueue up to ``args.records`` records (or for ``args.seconds``), then wait for every
    delivery report. The clock runs from the first produce() to the last report."""
    phase = case.produce
    payloads = [os.urandom(case.record_size) for _ in range(16)]
    delivered = 0
    errors = 0

    def on_delivery(err, _msg) -> None:
        nonlocal delivered, errors
        if err is None:
            delivered += 1
        else:
            errors += 1

    producer = Producer(
        {
            "bootstrap.servers": bootstrap,
            "acks": args.acks,
            "linger.ms": args.linger_ms,
            "batch.size": args.batch_size,
            "compression.type": "none",
            "queue.buffering.max.messages": 1_000_000,
            "queue.buffering.max.kbytes": 1_048_576,
            "message.timeout.ms": 120_000,
        }
    )
    produce = producer.produce
    topic = case.topic
    start = time.perf_counter()
    stop_enqueue = start + args.seconds
    sent = 0
    while sent < args.records:
        try:
            produce(topic, payloads[sent & 15], on_delivery=on_delivery)
        except BufferError:
            producer.poll(0.01)
            continue
        sent += 1
        if (sent & 1023) == 0:
            producer.poll(0)
            if time.perf_counter() > stop_enqueue:
                break
    remaining = producer.flush(180)
    phase.seconds = time.perf_counter() - start
    phase.records = delivered
    phase.errors = errors + remaining
    phase.payload_bytes = delivered * case.record_size


def run_consume(bootstrap: str, case: Case, args: argparse.Namespace) -> None:
    """Read every delivered record from the beginning of each partition."""
    phase = case.consume
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": "bench",
            "enable.auto.commit": False,
            "enable.partition.eof": False,
            "fetch.wait.max.ms": 100,
        }
    )
    want = case.produce.records
    got = 0
    nbytes = 0
    consumer.assign([TopicPartition(case.topic, p, OFFSET_BEGINNING) for p in range(case.partitions)])
    start = time.perf_counter()
    deadline = start + max(60.0, 4 * args.seconds)
    try:
        while got < want and time.perf_counter() < deadline:
            for m in consumer.consume(num_messages=10_000, timeout=0.5):
                if m.error():
                    phase.errors += 1
                    continue
                got += 1
                nbytes += len(m.value() or b"")
        phase.seconds = time.perf_counter() - start
    finally:
        consumer.close()
    phase.records = got
    phase.payload_bytes = nbytes
    if got < want:
        phase.errors += want - got


def machine_info() -> dict:
    info: dict[str, object] = {
        "platform": platform.platform(),
        "python": platform.python_version(),
        "cpu_count": os.cpu_count(),
        "confluent_kafka": confluent_kafka.__version__,
        "librdkafka": confluent_kafka.libversion()[0],
    }
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                info["cpu_model"] = line.split(":", 1)[1].strip()
                break
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                info["mem_total_kib"] = int(line.split()[1])
                break
    except OSError:
        pass
    try:
        info["pybroker_commit"] = subprocess.run(
            ["git", "-C", str(REPO_ROOT), "describe", "--always", "--dirty"],
            capture_output=True, text=True, check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        pass
    return info


def print_table(cases: list[Case]) -> None:
    header = f"{'case':<14} {'produce MB/s':>13} {'produce msg/s':>14} {'consume MB/s':>13} {'consume msg/s':>14} {'records':>9} {'errors':>7}"
    print(header)
    print("-" * len(header))
    for c in cases:
        print(
            f"{c.label:<14} {c.produce.mb_per_s:>13.1f} {c.produce.msgs_per_s:>14,.0f} "
            f"{c.consume.mb_per_s:>13.1f} {c.consume.msgs_per_s:>14,.0f} {c.produce.records:>9,} "
            f"{c.produce.errors + c.consume.errors:>7}"
        )


def plot(cases: list[Case], path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = [c.label for c in cases]
    xs = range(len(cases))
    width = 0.38
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    for ax, metric, unit in ((axes[0], "mb_per_s", "MB/s (payload)"), (axes[1], "msgs_per_s", "records/s")):
        prod = [getattr(c.produce, metric) for c in cases]
        cons = [getattr(c.consume, metric) for c in cases]
        bars1 = ax.bar([x - width / 2 for x in xs], prod, width, label="produce")
        bars2 = ax.bar([x + width / 2 for x in xs], cons, width, label="consume")
        for bars in (bars1, bars2):
            ax.bar_label(bars, fmt="{:,.0f}", fontsize=7, padding=2)
        ax.set_xticks(list(xs), labels)
        ax.set_ylabel(unit)
        ax.grid(axis="y", alpha=0.3)
        ax.legend()
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", type=Path, default=Path("bench-results"), help="output directory")
    p.add_argument("--sizes", type=int, nargs="+", default=[1024, 100], help="record value sizes in bytes")
    p.add_argument("--partitions", type=int, nargs="+", default=[1, 6], help="partition counts")
    p.add_argument("--records", type=int, default=500_000, help="records per case at most")
    p.add_argument("--seconds", type=float, default=10.0, help="stop enqueuing after this long per case")
    p.add_argument("--acks", default="all", choices=["0", "1", "all"])
    p.add_argument("--linger-ms", type=int, default=5)
    p.add_argument("--batch-size", type=int, default=1_000_000, help="librdkafka batch.size")
    p.add_argument("--bootstrap", help="benchmark a broker that is already running instead")
    p.add_argument("--keep-topics", action="store_true", help="do not delete each case's topic")
    args = p.parse_args(argv)

    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    args.out.mkdir(parents=True, exist_ok=True)
    tmp = None
    broker = None
    if args.bootstrap:
        bootstrap = args.bootstrap
    else:
        tmp = tempfile.TemporaryDirectory(prefix="pybroker-bench-")
        broker = BrokerProcess(Path(tmp.name) / "kafka-logs", log_path=Path(tmp.name) / "broker.log")
        broker.start()
        bootstrap = broker.bootstrap
    print(f"benchmarking {bootstrap} ({'own broker, data in ' + tmp.name if tmp else 'external broker'})")

    cases = [Case(size, parts) for size in args.sizes for parts in args.partitions]
    try:
        for case in cases:
            case.topic = f"bench-{case.record_size}b-{case.partitions}p-{stamp}"
            create_topic(bootstrap, case.topic, case.partitions)
            print(f"{case.label}: producing ...", flush=True)
            run_produce(bootstrap, case, args)
            print(f"{case.label}: consuming {case.produce.records:,} records ...", flush=True)
            run_consume(bootstrap, case, args)
            if not args.keep_topics:
                delete_topic(bootstrap, case.topic)
    except BaseException:
        if broker is not None:
            print(broker.describe(lines=40), file=sys.stderr)
        raise
    finally:
        if broker is not None:
            broker.stop()
        if tmp is not None:
            tmp.cleanup()

    config = {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()}
    result = {
        "timestamp": stamp,
        "machine": machine_info(),
        "config": config,
        "cases": [
            {
                "label": c.label,
                "record_size": c.record_size,
                "partitions": c.partitions,
                "produce": c.produce.to_json(),
                "consume": c.consume.to_json(),
            }
            for c in cases
        ],
    }
    json_path = args.out / f"bench-{stamp}.json"
    json_path.write_text(json.dumps(result, indent=2) + "\n")
    png_path = args.out / f"bench-{stamp}.png"
    m = result["machine"]
    plot(cases, png_path, f"pybroker {m.get('pybroker_commit', '')} - {m.get('cpu_count')} CPU, "
                          f"librdkafka {m['librdkafka']}, acks={args.acks}")
    print()
    print_table(cases)
    print(f"\nwrote {json_path} and {png_path}")
    failed = sum(c.produce.errors + c.consume.errors for c in cases)
    if failed:
        print(f"warning: {failed} records failed to deliver or were not read back", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
