#!/usr/bin/env python3
"""Start-up time and memory of pybroker for many partitions and for one very large log.

For each partition count (default 10, 1,000 and 2,000) the script creates that many
partitions and writes one record to each; for the large log it fills one partition with
``--big-log-gb`` (default 10) of 1 MB batches sent as raw Produce requests. Then it measures
three kinds of start-up:

* ``kill -9 after writing``: once, right after the data was written, before the broker has
  checkpointed its recovery points, so everything written is re-validated (the worst case);
* ``clean``: after SIGTERM (``--repeat`` times); nothing is recovered;
* ``kill -9``: after SIGKILL of a broker that has been up a moment (``--repeat`` times); the
  active segment of each partition is re-validated.

Every start is timed from launching the process to the first Metadata answer listing every
partition; the broker's RSS and its open descriptors are read from /proc at that moment.

Results go to ``<out>/bench-startup-<timestamp>.json`` and ``.png``; see docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic

from protocol import messages
from protocol.headers import request_header_version
from protocol.messages import (
    metadata_request as md,
    produce_request as pr,
)
from protocol.primitives import Writer
from protocol.records.record import build_batch
from pybroker.testing.broker_process import BrokerProcess
from pybroker.testing.wire_client import WireClient

REPO_ROOT = Path(__file__).resolve().parents[1]
GB = 1_000_000_000
MB = 1_000_000
PRODUCE, METADATA = 0, 3
PRODUCE_VERSION = 9
_STARTED = re.compile(r"broker \d+ started in ([0-9.]+)s")


KINDS = ("kill -9 after writing", "clean", "kill -9")


@dataclass
class Start:
    """One measured start-up."""

    how: str  # one of KINDS
    seconds_to_metadata: float  # process launch -> first Metadata answer
    broker_reported_s: float | None  # the broker's own "started in" figure
    rss_mib: float
    open_fds: int


@dataclass
class Case:
    label: str
    partitions: int
    log_bytes: int
    starts: list[Start] = field(default_factory=list)
    note: str = ""

    def summary(self, how: str) -> dict[str, float]:
        runs = [s for s in self.starts if s.how == how]
        reported = [s.broker_reported_s for s in runs if s.broker_reported_s is not None]
        return {
            "median_seconds": round(statistics.median(s.seconds_to_metadata for s in runs), 3),
            "median_broker_reported_s": round(statistics.median(reported), 3) if reported else None,
            "median_rss_mib": round(statistics.median(s.rss_mib for s in runs), 1),
            "max_open_fds": max(s.open_fds for s in runs),
        } if runs else {}


# -- measuring ------------------------------------------------------------------------------


def proc_status(pid: int) -> tuple[float, int]:
    rss_kib = 0
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            rss_kib = int(line.split()[1])
    return rss_kib / 1024, len(os.listdir(f"/proc/{pid}/fd"))


def metadata_ready(bootstrap: str, expect_partitions: int, timeout: float) -> None:
    """Poll Metadata (all topics) until it lists ``expect_partitions`` partitions."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            with WireClient(bootstrap, timeout=30) as c:
                resp = c.call(METADATA, 9, md.MetadataRequest(topics=None, allow_auto_topic_creation=False))
            count = sum(len(t.partitions) for t in resp.topics if not t.name.startswith("__"))
            if count >= expect_partitions:
                return
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"Metadata did not list {expect_partitions} partitions in {timeout:.0f}s")
        time.sleep(0.01)


def timed_start(broker: BrokerProcess, how: str, partitions: int) -> Start:
    mark = broker.log_path.stat().st_size if broker.log_path.exists() else 0
    t0 = time.perf_counter()
    broker.start()
    metadata_ready(broker.bootstrap, partitions, timeout=broker.start_timeout)
    elapsed = time.perf_counter() - t0
    assert broker.pid is not None
    rss, fds = proc_status(broker.pid)
    with broker.log_path.open("rb") as f:
        f.seek(mark)
        found = _STARTED.search(f.read().decode(errors="replace"))
    return Start(how, round(elapsed, 3), float(found.group(1)) if found else None, round(rss, 1), fds)


def measure(case: Case, broker: BrokerProcess, repeat: int) -> None:
    """Every kind of start-up (the broker is running, just after writing, on entry)."""
    for how in KINDS:
        for _ in range(1 if how == "kill -9 after writing" else repeat):
            if how == "clean":
                broker.stop()
            else:
                broker.kill()
                time.sleep(0.2)
            start = timed_start(broker, how, case.partitions)
            case.starts.append(start)
            print(f"  {case.label:<26} {how:<22} {start.seconds_to_metadata:7.2f} s  "
                  f"RSS {start.rss_mib:7.1f} MiB  fds {start.open_fds}", flush=True)


# -- filling --------------------------------------------------------------------------------


def fill_partitions(bootstrap: str, partitions: int) -> None:
    """One topic per 500 partitions (as a real cluster spreads them), one record in each."""
    admin = AdminClient({"bootstrap.servers": bootstrap})
    layout: list[tuple[str, int]] = []
    left, i = partitions, 0
    while left:
        n = min(500, left)
        layout.append((f"startup-{i:02d}", n))
        left -= n
        i += 1
    futures = admin.create_topics([NewTopic(t, num_partitions=n, replication_factor=1) for t, n in layout],
                                  operation_timeout=120, request_timeout=180)
    for f in futures.values():
        f.result(180)
    metadata_ready(bootstrap, partitions, timeout=120)
    failed: list[object] = []
    producer = Producer({"bootstrap.servers": bootstrap, "acks": "all", "linger.ms": 20})
    for topic, n in layout:
        for p in range(n):
            producer.produce(topic, value=b"startup-bench", partition=p,
                             on_delivery=lambda err, _m: err and failed.append(err))
        producer.poll(0)
    if producer.flush(180) or failed:
        raise RuntimeError(f"could not write a record to every partition: {failed[:3]}")


def produce_frame(topic: str, batch: bytes, correlation_id: int) -> bytes:
    body = Writer()
    messages.request_module(PRODUCE).write(body, pr.ProduceRequest(
        acks=1, timeout_ms=30_000,
        topic_data=[pr.TopicProduceData(name=topic, partition_data=[
            pr.PartitionProduceData(index=0, records=batch)])]), PRODUCE_VERSION)
    client = b"bench-startup"
    header = struct.pack(">hhih", PRODUCE, PRODUCE_VERSION, correlation_id, len(client)) + client
    if request_header_version(PRODUCE, PRODUCE_VERSION) >= 2:
        header += b"\x00"  # no tagged fields
    return struct.pack(">i", len(header) + len(body)) + header + bytes(body)


def fill_big_log(bootstrap: str, topic: str, total_bytes: int) -> float:
    """Append ~``total_bytes`` of 1 MB batches to partition 0 with pipelined raw Produce
    requests (acks=1); returns MB/s."""
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(topic, num_partitions=1, replication_factor=1)])[topic].result(60)
    metadata_ready(bootstrap, 1, timeout=60)
    batch = bytes(build_batch([(None, os.urandom(1000)) for _ in range(1000)]))
    count = max(1, total_bytes // len(batch))
    window = 16
    client = WireClient(bootstrap, timeout=120)
    frames = [produce_frame(topic, batch, i) for i in range(window)]
    t0 = time.perf_counter()
    sent = answered = 0
    last_report = t0
    try:
        while answered < count:
            while sent < count and sent - answered < window:
                client.sock.sendall(frames[sent % window])
                sent += 1
            resp = client.receive(PRODUCE, PRODUCE_VERSION, answered % window)
            err = resp.responses[0].partition_responses[0].error_code
            if err:
                raise RuntimeError(f"produce failed with error {err} after {answered} batches")
            answered += 1
            now = time.perf_counter()
            if now - last_report > 10:
                done = answered * len(batch)
                print(f"  ... {done / GB:.1f} GB written ({done / MB / (now - t0):.0f} MB/s)", flush=True)
                last_report = now
    finally:
        client.close()
    return count * len(batch) / MB / (time.perf_counter() - t0)


# -- report ---------------------------------------------------------------------------------


def machine_info() -> dict:
    info: dict[str, object] = {"platform": platform.platform(), "python": platform.python_version(),
                               "cpu_count": os.cpu_count()}
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                info["cpu_model"] = line.split(":", 1)[1].strip()
                break
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                info["mem_total_kib"] = int(line.split()[1])
                break
        info["pybroker_commit"] = subprocess.run(
            ["git", "-C", str(REPO_ROOT), "describe", "--always", "--dirty"],
            capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        pass
    return info


def plot(cases: list[Case], path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = [c.label.replace(" ", "\n", 1) for c in cases]
    xs = range(len(cases))
    width = 0.27
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.6))
    for ax, key, unit in ((axes[0], "median_seconds", "seconds to first Metadata answer"),
                          (axes[1], "median_rss_mib", "RSS at that moment (MiB)")):
        for shift, how in zip((-width, 0.0, width), KINDS, strict=True):
            values = [c.summary(how).get(key, 0) for c in cases]
            bars = ax.bar([x + shift for x in xs], values, width, label=how)
            ax.bar_label(bars, fmt="{:,.1f}", fontsize=7, padding=2)
        ax.set_xticks(list(xs), labels, fontsize=8)
        ax.set_ylabel(unit)
        ax.set_ylim(top=ax.get_ylim()[1] * 1.3)  # room for the legend above the bars
        ax.grid(axis="y", alpha=0.3)
        ax.legend(fontsize=8, loc="upper left")
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


class _LimitedBroker(BrokerProcess):
    """Started through ``sh -c 'ulimit -Sn N && exec ...'``: same pid, lower descriptor limit."""

    fd_limit = 0

    def command(self) -> list[str]:
        return ["sh", "-c", f'ulimit -Sn {self.fd_limit} && exec "$@"', "sh", *super().command()]


def new_broker(home: Path, fd_limit: int | None) -> BrokerProcess:
    cls = BrokerProcess
    if fd_limit:
        cls = type("LimitedBroker", (_LimitedBroker,), {"fd_limit": fd_limit})
    return cls(home / "kafka-logs", start_timeout=1800, stop_timeout=600, log_path=home / "broker.log",
               overrides={"num.partitions": 1})


def plan_big_log(requested: int, data_root: Path) -> tuple[int, str]:
    """The big-log size that fits the disk, with a note when it had to shrink."""
    free = shutil.disk_usage(data_root).free
    room = int(free * 0.8) - 2 * GB  # leave space for everything else on the disk
    if requested <= room:
        return requested, ""
    size = max(room, 0)
    note = (f"SCALED DOWN: asked for {requested / GB:.1f} GB but only {free / GB:.1f} GB are free "
            f"under {data_root}; the big log is {size / GB:.1f} GB")
    return size, note


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", type=Path, default=Path("bench-results"), help="output directory")
    p.add_argument("--partitions", type=int, nargs="+", default=[10, 1000, 2000], help="partition counts")
    p.add_argument("--big-log-gb", type=float, default=10.0, help="size of the one-partition log (0 skips it)")
    p.add_argument("--repeat", type=int, default=3, help="start-ups measured per case and kind")
    p.add_argument("--data-dir", type=Path, help="where the brokers keep data (default: a temporary dir)")
    p.add_argument("--fd-limit", type=int, help="run the broker with this soft open-files limit")
    args = p.parse_args(argv)

    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    args.out.mkdir(parents=True, exist_ok=True)
    tmp = tempfile.TemporaryDirectory(prefix="pybroker-bench-startup-", dir=args.data_dir)
    root = Path(tmp.name)
    cases: list[Case] = []
    notes: list[str] = []
    try:
        for n in args.partitions:
            case = Case(f"{n:,} partitions", n, 0)
            cases.append(case)
            broker = new_broker(root / f"p{n}", args.fd_limit)
            broker.start()
            try:
                print(f"{case.label}: creating and writing one record to each ...", flush=True)
                fill_partitions(broker.bootstrap, n)
                measure(case, broker, args.repeat)
            finally:
                broker.stop()
            shutil.rmtree(root / f"p{n}", ignore_errors=True)

        if args.big_log_gb > 0:
            size, note = plan_big_log(int(args.big_log_gb * GB), root)
            if note:
                print(f"\n!!! {note} !!!\n", file=sys.stderr, flush=True)
                notes.append(note)
            if size >= 100 * MB:
                case = Case(f"1 partition, {size / GB:.1f} GB log", 1, size, note=note)
                cases.append(case)
                broker = new_broker(root / "big", args.fd_limit)
                broker.start()
                try:
                    print(f"{case.label}: writing ...", flush=True)
                    rate = fill_big_log(broker.bootstrap, "startup-big", size)
                    case.note = (note + "; " if note else "") + f"written at {rate:.0f} MB/s"
                    print(f"  written at {rate:.0f} MB/s", flush=True)
                    measure(case, broker, args.repeat)
                finally:
                    broker.stop()
            else:
                notes.append("big-log case skipped: not enough free disk")
    finally:
        tmp.cleanup()

    result = {
        "timestamp": stamp,
        "machine": machine_info(),
        "config": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
        "notes": notes,
        "cases": [{
            "label": c.label, "partitions": c.partitions, "log_bytes": c.log_bytes, "note": c.note,
            "kill_9_after_writing": c.summary(KINDS[0]), "clean": c.summary("clean"),
            "kill_9": c.summary("kill -9"),
            "starts": [asdict(s) for s in c.starts],
        } for c in cases],
    }
    json_path = args.out / f"bench-startup-{stamp}.json"
    json_path.write_text(json.dumps(result, indent=2) + "\n")
    png_path = args.out / f"bench-startup-{stamp}.png"
    m = result["machine"]
    plot(cases, png_path, f"pybroker {m.get('pybroker_commit', '')} start-up - {m.get('cpu_count')} CPU, "
                          f"median of {args.repeat}")
    print("\nseconds to the first Metadata answer (the broker's own start-up figure in brackets)")
    print(f"{'case':<28} {'kill -9 after writing':>22} {'clean':>14} {'kill -9':>14} {'RSS MiB':>8} {'fds':>6}")
    for c in cases:
        runs = [c.summary(how) for how in KINDS]
        cells = [f"{r.get('median_seconds', 0):.2f} ({r.get('median_broker_reported_s') or 0:.2f})" for r in runs]
        print(f"{c.label:<28} {cells[0]:>22} {cells[1]:>14} {cells[2]:>14} "
              f"{max(r.get('median_rss_mib', 0) for r in runs):>8.1f} {max(r.get('max_open_fds', 0) for r in runs):>6}")
    for note in notes:
        print(f"NOTE: {note}", file=sys.stderr)
    print(f"\nwrote {json_path} and {png_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
