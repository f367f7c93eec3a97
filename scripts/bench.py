#!/usr/bin/env python3
"""Produce/consume throughput of pybroker next to Apache Kafka, measured with confluent-kafka.

By default the same workloads run against pybroker and against a reference Apache Kafka 3.9
broker (pybroker/testing/reference_kafka.py: ZooKeeper mode, started from the Maven jars), one
broker at a time: start pybroker, warm it up (one unmeasured case per record size), run every
case, stop it; then the same for Kafka. Every broker gets a fresh temporary data directory. For
every (record size, partition count) case a producer sends records until all are delivered and
an assign()-consumer reads them all back. Each figure is reported for both brokers and as the
ratio pybroker/Kafka.

``--brokers pybroker`` or ``--brokers kafka`` runs one of them; Kafka is skipped, loudly, when
java or its jars are missing (the ratios are then n/a). ``--bootstrap`` benchmarks a broker
that is already running instead. ``--baseline REV`` adds a third broker, "baseline": pybroker
as it was at git revision REV, run from a temporary worktree of that revision with the same
interpreter, in the same rounds; every figure then also gets the ratio pybroker/baseline.
Results go to ``<out>/bench-<timestamp>.json`` and ``.png``; a table is printed. See
docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import confluent_kafka
from confluent_kafka import OFFSET_BEGINNING, Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

# scripts/ is not an installed package: run this as `python -m scripts.bench` from the checkout
# (as `make bench` does), so that its reporting half, scripts/bench_report.py, is imported from it
from pybroker.testing.broker_process import BrokerProcess
from pybroker.testing.reference_kafka import (
    KAFKA_VERSION,
    ReferenceKafka,
    missing_requirements,
)
from scripts.bench_report import (
    BASELINE,
    BROKERS,
    EXTERNAL,
    RATIO,
    RATIO_BASELINE,
    SCRAPED,
    case_label,
    case_specs,
    markdown_table,
    plot,
    print_table,
    summarize,
)

REPO_ROOT = Path(__file__).resolve().parents[1]
MB = 1_000_000  # throughput is payload (value) bytes per second, in decimal megabytes
CLK_TCK = os.sysconf("SC_CLK_TCK")


# -- measurements ---------------------------------------------------------------------------


@dataclass(kw_only=True)
class Throughput:
    """Records and payload moved in ``seconds``, with the brokers' CPU seconds over them: the
    rates the side-by-side scripts report (bench_tls, bench_transactions)."""

    records: int = 0
    payload_bytes: int = 0
    seconds: float = 0.0
    broker_cpu_s: float | None = None
    error: str | None = None

    @property
    def msgs_per_s(self) -> float:
        return self.records / self.seconds if self.seconds else 0.0

    @property
    def mb_per_s(self) -> float:
        return self.payload_bytes / MB / self.seconds if self.seconds else 0.0

    @property
    def cpu_s_per_gb(self) -> float | None:
        if self.broker_cpu_s is None or not self.payload_bytes:
            return None
        return self.broker_cpu_s / (self.payload_bytes / 1e9)

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "msgs_per_s": round(self.msgs_per_s, 1),
                "mb_per_s": round(self.mb_per_s, 3),
                "cpu_s_per_gb": None if self.cpu_s_per_gb is None else round(self.cpu_s_per_gb, 2)}


@dataclass
class Phase:
    records: int = 0
    payload_bytes: int = 0
    seconds: float = 0.0
    errors: int = 0
    broker_cpu_s: float | None = None  # CPU time the broker process(es) used during the phase

    @property
    def mb_per_s(self) -> float:
        return self.payload_bytes / MB / self.seconds if self.seconds else 0.0

    @property
    def msgs_per_s(self) -> float:
        return self.records / self.seconds if self.seconds else 0.0

    @property
    def broker_cpu_pct(self) -> float | None:
        if self.broker_cpu_s is None or not self.seconds:
            return None
        return 100 * self.broker_cpu_s / self.seconds

    def to_json(self) -> dict:
        out = {**asdict(self), "mb_per_s": round(self.mb_per_s, 3), "msgs_per_s": round(self.msgs_per_s, 1)}
        if self.broker_cpu_s is not None:
            out["broker_cpu_s"] = round(self.broker_cpu_s, 2)
            out["broker_cpu_pct"] = round(self.broker_cpu_pct or 0.0, 1)
        return out


@dataclass
class Case:
    record_size: int
    partitions: int
    topic: str = ""
    produce: Phase = field(default_factory=Phase)
    consume: Phase = field(default_factory=Phase)

    @property
    def key(self) -> tuple[int, int]:
        return self.record_size, self.partitions

    @property
    def label(self) -> str:
        return case_label(self.record_size, self.partitions)

    def to_json(self) -> dict:
        return {"label": self.label, "record_size": self.record_size, "partitions": self.partitions,
                "produce": self.produce.to_json(), "consume": self.consume.to_json()}


@dataclass
class BrokerRun:
    """One broker started, warmed up, measured over every case and stopped."""

    broker: str
    round: int
    bootstrap: str = ""
    start_s: float | None = None  # launch -> ready, as the harness sees it
    warmup: list[Case] = field(default_factory=list)  # unmeasured
    cases: list[Case] = field(default_factory=list)
    peak_rss_mib: dict[str, float] = field(default_factory=dict)  # per process: VmHWM
    error: str | None = None

    def to_json(self) -> dict:
        return {
            "broker": self.broker, "round": self.round, "bootstrap": self.bootstrap,
            "start_s": self.start_s, "error": self.error, "peak_rss_mib": self.peak_rss_mib,
            "warmup": [c.to_json() for c in self.warmup],
            "cases": [c.to_json() for c in self.cases],
        }


def cpu_seconds(pids: list[int]) -> float | None:
    """utime + stime of the processes, from /proc; None when any of them cannot be read."""
    if not pids:
        return None
    total = 0
    try:
        for pid in pids:
            # the command name in field 2 may contain spaces: split after its closing bracket
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])  # fields 14 and 15 of proc(5)
    except (OSError, IndexError, ValueError):
        return None
    return total / CLK_TCK


def peak_rss_mib(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return round(int(line.split()[1]) / 1024, 1)
    except (OSError, ValueError):
        pass
    return None


# -- the brokers ----------------------------------------------------------------------------


class Target:
    """A broker under test: ``start()`` returns its bootstrap address, ``stop()`` always works."""

    name = ""

    def start(self) -> str:
        raise NotImplementedError

    def stop(self) -> None:
        pass

    def check(self) -> None:
        """Called once the broker is ready, outside the start-up time; raises if it is not the
        broker it should be."""

    def pids(self) -> dict[str, int]:
        """The processes whose CPU time counts as the broker's, by role."""
        return {}

    def describe(self) -> str:
        return ""


class OwnPybroker(Target):
    name = "pybroker"

    def __init__(self, source: Path | None = None) -> None:
        self.source = source  # None: this checkout
        self.tmp: Path | None = None
        self.proc: BrokerProcess | None = None

    def start(self) -> str:
        self.tmp = Path(tempfile.mkdtemp(prefix=f"bench-{self.name}-"))
        self.proc = BrokerProcess(self.tmp / "kafka-logs", log_path=self.tmp / "broker.log", source=self.source)
        self.proc.start()
        return self.proc.bootstrap

    def stop(self) -> None:
        try:
            if self.proc is not None:
                self.proc.stop()
        finally:
            if self.tmp is not None:
                shutil.rmtree(self.tmp, ignore_errors=True)
            self.proc = self.tmp = None

    def pids(self) -> dict[str, int]:
        return {self.name: self.proc.pid} if self.proc is not None and self.proc.pid else {}

    def describe(self) -> str:
        return self.proc.describe(lines=40) if self.proc is not None else ""


@dataclass
class BaselineCheckout:
    """pybroker at an earlier git revision, checked out in a temporary worktree for the run."""

    revision: str  # as given
    commit: str
    describe: str
    subject: str
    tree: Path | None = None
    imported_from: dict[str, str] = field(default_factory=dict)  # what the baseline broker runs

    @staticmethod
    def git(*argv: str) -> str:
        return subprocess.run(["git", "-C", str(REPO_ROOT), *argv], capture_output=True, text=True,
                              check=True, timeout=120).stdout.strip()

    @classmethod
    def resolve(cls, revision: str) -> BaselineCheckout:
        """Raises ValueError when ``revision`` names no commit of this repository."""
        try:
            commit = cls.git("rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}")
        except (OSError, subprocess.SubprocessError) as e:
            raise ValueError(f"{revision!r} is not a commit of {REPO_ROOT}") from e
        return cls(revision, commit, cls.git("describe", "--always", commit),
                   cls.git("log", "-1", "--format=%s", commit))

    def add(self) -> Path:
        """``git worktree add --detach`` into a new temporary directory."""
        home = Path(tempfile.mkdtemp(prefix="bench-baseline-"))
        self.tree = home / f"pybroker-{self.commit[:12]}"
        self.git("worktree", "add", "--detach", str(self.tree), self.commit)
        return self.tree

    def remove(self) -> None:
        """Remove the worktree and its directory; safe to call more than once."""
        if self.tree is None:
            return
        tree, self.tree = self.tree, None
        try:
            self.git("worktree", "remove", "--force", str(tree))
        except (OSError, subprocess.SubprocessError):
            pass
        shutil.rmtree(tree.parent, ignore_errors=True)
        try:
            self.git("worktree", "prune")
        except (OSError, subprocess.SubprocessError):
            pass

    def to_json(self) -> dict:
        return {"revision": self.revision, "commit": self.commit, "describe": self.describe,
                "subject": self.subject, "imported_from": self.imported_from}


class Baseline(OwnPybroker):
    """pybroker from a :class:`BaselineCheckout`: the same interpreter and virtualenv, that
    tree's code (``PYTHONPATH``), working directory and ``config/server.properties``."""

    name = BASELINE

    def __init__(self, checkout: BaselineCheckout) -> None:
        assert checkout.tree is not None
        super().__init__(source=checkout.tree)
        self.checkout = checkout

    def check(self) -> None:
        self.checkout.imported_from = self.check_runs_tree()

    def check_runs_tree(self) -> dict[str, str]:
        """Fails unless the running child has the tree as its working directory and first
        PYTHONPATH entry, and its interpreter in that environment imports pybroker and protocol
        from the tree (not from the virtualenv's editable install of the current checkout)."""
        assert self.proc is not None and self.proc.pid is not None and self.source is not None
        tree = self.source.resolve()
        pid = self.proc.pid
        cwd = Path(os.readlink(f"/proc/{pid}/cwd"))
        environ = dict(item.split("=", 1) for item in
                       Path(f"/proc/{pid}/environ").read_text().split("\0") if "=" in item)
        first = environ.get("PYTHONPATH", "").split(os.pathsep)[0]
        found = self.proc.imported_from("pybroker", "protocol")
        wrong = [f"{module} from {path}" for module, path in found.items() if not Path(path).is_relative_to(tree)]
        if cwd != tree or Path(first or ".").resolve() != tree or wrong:
            raise RuntimeError(f"the baseline broker does not run {tree}: cwd {cwd}, "
                               f"PYTHONPATH {environ.get('PYTHONPATH')!r}, imports {found}")
        print(f"{self.name}: pid {pid} runs {self.checkout.describe} from {tree} "
              f"(cwd and PYTHONPATH; {', '.join(f'{m} from {p}' for m, p in found.items())})", flush=True)
        return found


class OwnKafka(Target):
    name = "kafka"

    def __init__(self) -> None:
        self.tmp: Path | None = None
        self.ref: ReferenceKafka | None = None

    def start(self) -> str:
        self.tmp = Path(tempfile.mkdtemp(prefix="bench-kafka-"))
        self.ref = ReferenceKafka(self.tmp)
        self.ref.start()
        return self.ref.bootstrap

    def stop(self) -> None:
        try:
            if self.ref is not None:
                self.ref.stop()
        finally:
            if self.tmp is not None:
                shutil.rmtree(self.tmp, ignore_errors=True)
            self.ref = self.tmp = None

    def pids(self) -> dict[str, int]:
        if self.ref is None:
            return {}
        procs = {"kafka": self.ref.kafka.proc, "zookeeper": self.ref.zookeeper.proc}
        return {role: p.pid for role, p in procs.items() if p is not None}

    def describe(self) -> str:
        return self.ref.describe(lines=40) if self.ref is not None else ""


class External(Target):
    name = EXTERNAL

    def __init__(self, bootstrap: str) -> None:
        self.bootstrap = bootstrap

    def start(self) -> str:
        return self.bootstrap


class ScrapedPybroker(OwnPybroker):
    """This checkout's pybroker serving its metrics (``metrics.listener``), with a scraper
    reading ``/metrics`` every five seconds (three times as often as the usual 15 s scrape
    interval; one scrape costs the broker about 25 ms of CPU here): what metrics cost,
    next to the same broker without the endpoint (``--metrics``)."""

    name = SCRAPED
    INTERVAL_S = 5.0

    def __init__(self) -> None:
        super().__init__()
        self._scraper: threading.Thread | None = None
        self._stop = threading.Event()
        self.scrapes = 0
        self.scrape_errors = 0

    def start(self) -> str:
        self.tmp = Path(tempfile.mkdtemp(prefix=f"bench-{self.name}-"))
        self.proc = BrokerProcess(self.tmp / "kafka-logs", log_path=self.tmp / "broker.log",
                                  metrics=True)
        self.proc.start()
        self._stop.clear()
        self._scraper = threading.Thread(target=self._scrape, args=(self.proc.metrics_url,),
                                         name="bench-scraper", daemon=True)
        self._scraper.start()
        return self.proc.bootstrap

    def _scrape(self, url: str) -> None:
        while not self._stop.wait(self.INTERVAL_S):
            try:
                with urllib.request.urlopen(url, timeout=10) as response:  # noqa: S310 - loopback
                    response.read()
                self.scrapes += 1
            except OSError:
                self.scrape_errors += 1

    def stop(self) -> None:
        self._stop.set()
        if self._scraper is not None:
            self._scraper.join(15)
            self._scraper = None
            print(f"{self.name}: {self.scrapes} scrapes of /metrics, {self.scrape_errors} failed",
                  flush=True)
        super().stop()


def make_target(name: str, args: argparse.Namespace, baseline: BaselineCheckout | None = None) -> Target:
    if name == "pybroker":
        return OwnPybroker()
    if name == SCRAPED:
        return ScrapedPybroker()
    if name == "kafka":
        return OwnKafka()
    if name == BASELINE:
        assert baseline is not None
        return Baseline(baseline)
    return External(args.bootstrap)


# -- the workload ---------------------------------------------------------------------------


def create_topic(bootstrap: str, topic: str, partitions: int) -> None:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(topic, num_partitions=partitions, replication_factor=1)])[topic].result(60)
    deadline = time.monotonic() + 30
    while True:
        t = admin.list_topics(topic, timeout=10).topics.get(topic)
        if (t is not None and t.error is None and len(t.partitions) == partitions
                and all(p.leader >= 0 and p.error is None for p in t.partitions.values())):
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


def run_produce(bootstrap: str, case: Case, args: argparse.Namespace, records: int, seconds: float) -> None:
    """Enqueue up to ``records`` records (or for ``seconds``), then wait for every delivery
    report. The clock runs from the first produce() to the last report."""
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
    stop_enqueue = start + seconds
    sent = 0
    while sent < records:
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


def run_consume(bootstrap: str, case: Case, seconds: float) -> None:
    """Read every delivered record from the beginning of each partition."""
    phase = case.consume
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": "bench",  # required by librdkafka; assign() never joins it
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
    deadline = start + max(60.0, 4 * seconds)
    try:
        while got < want and time.perf_counter() < deadline:
            # never ask for more than is left: consume() waits out its timeout for a batch it
            # cannot fill, which would add up to half a second to every measurement
            for m in consumer.consume(num_messages=min(10_000, want - got), timeout=0.5):
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


def settle() -> None:
    """Write back what the previous case (or broker) left dirty in the page cache, so that no
    run pays for another's writeback."""
    os.sync()
    time.sleep(0.5)


def run_case(bootstrap: str, case: Case, args: argparse.Namespace, pids: list[int],
             records: int, seconds: float, tag: str) -> None:
    case.topic = f"bench-{tag}-{case.record_size}b-{case.partitions}p"
    create_topic(bootstrap, case.topic, case.partitions)
    settle()
    cpu0 = cpu_seconds(pids)
    run_produce(bootstrap, case, args, records, seconds)
    cpu1 = cpu_seconds(pids)
    run_consume(bootstrap, case, seconds)
    cpu2 = cpu_seconds(pids)
    if None not in (cpu0, cpu1, cpu2):
        case.produce.broker_cpu_s = cpu1 - cpu0
        case.consume.broker_cpu_s = cpu2 - cpu1
    if not args.keep_topics:
        delete_topic(bootstrap, case.topic)


def run_broker(name: str, rnd: int, args: argparse.Namespace, stamp: str,
               baseline: BaselineCheckout | None = None) -> BrokerRun:
    """Start one broker, warm it up, run every case, stop it (whatever happens)."""
    run = BrokerRun(name, rnd)
    target = make_target(name, args, baseline)
    banner = f"== {name}" + (f" (round {rnd + 1} of {args.rounds})" if args.rounds > 1 else "")
    print(f"\n{banner} ==", flush=True)
    try:
        settle()
        t0 = time.perf_counter()
        run.bootstrap = target.start()
        run.start_s = round(time.perf_counter() - t0, 2)
        pids = list(target.pids().values())
        print(f"{name}: {run.bootstrap}, ready in {run.start_s:.1f}s" if target.pids()
              else f"{name}: {run.bootstrap} (not started here)", flush=True)
        target.check()
        tag = f"{stamp}-{name}-r{rnd}"
        if args.warmup_records > 0:
            for i, size in enumerate(dict.fromkeys(args.sizes)):
                warm = Case(size, max(args.partitions))
                print(f"{name}: warm-up (unmeasured): {args.warmup_records:,} records, {warm.label} ...", flush=True)
                run_case(run.bootstrap, warm, args, pids, args.warmup_records, args.warmup_seconds, f"{tag}-w{i}")
                run.warmup.append(warm)
                print(f"{name}: warm-up {warm.label}: {warm.produce.seconds + warm.consume.seconds:.1f}s "
                      f"({warm.produce.msgs_per_s:,.0f} msg/s in, {warm.consume.msgs_per_s:,.0f} msg/s out)",
                      flush=True)
        for i, (size, parts) in enumerate(case_specs(args)):
            case = Case(size, parts)
            print(f"{name}: {case.label}: producing ...", flush=True)
            run_case(run.bootstrap, case, args, pids, args.records, args.seconds, f"{tag}-c{i}")
            print(f"{name}: {case.label}: {case.produce.mb_per_s:.1f} MB/s in, {case.consume.mb_per_s:.1f} MB/s out "
                  f"({case.produce.records:,} records, {case.produce.errors + case.consume.errors} errors)", flush=True)
            run.cases.append(case)
        for role, pid in target.pids().items():
            rss = peak_rss_mib(pid)
            if rss is not None:
                run.peak_rss_mib[role] = rss
    except Exception as e:  # noqa: BLE001 - report it and go on with the other broker
        if _interrupted:  # a signal that the client library turned into another exception
            raise KeyboardInterrupt(_interrupted[-1]) from e
        run.error = f"{type(e).__name__}: {e}"
        print(f"\n!!! {name} FAILED: {run.error}", file=sys.stderr)
        detail = target.describe()
        if detail:
            print(detail, file=sys.stderr)
    finally:
        target.stop()
    return run


# -- the run --------------------------------------------------------------------------------


def machine_info() -> dict:
    info: dict[str, object] = {
        "platform": platform.platform(),
        "python": platform.python_version(),
        "cpu_count": os.cpu_count(),
        "confluent_kafka": confluent_kafka.__version__,
        "librdkafka": confluent_kafka.libversion()[0],
        "kafka_reference": KAFKA_VERSION,
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
    for key, cmd in (("pybroker_commit", ["git", "-C", str(REPO_ROOT), "describe", "--always", "--dirty"]),
                     ("java", ["java", "-version"])):
        try:
            done = subprocess.run(cmd, capture_output=True, text=True, check=True, timeout=30)
            info[key] = (done.stdout or done.stderr).strip().splitlines()[0]
        except (OSError, subprocess.SubprocessError, IndexError):
            pass
    return info


def load_average() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def loud(lines: list[str]) -> None:
    bar = "!" * 78
    print("\n".join(["", bar, *(f"!!! {line}" for line in lines), bar, ""]), file=sys.stderr, flush=True)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", type=Path, default=Path("bench-results"), help="output directory")
    p.add_argument("--brokers", default=None,
                   help="comma-separated, run in this order: pybroker, kafka (default: pybroker,kafka)")
    p.add_argument("--bootstrap", help="benchmark a broker that is already running instead (no ratio)")
    p.add_argument("--baseline", metavar="REV",
                   help="also benchmark pybroker as it was at this git revision (a temporary worktree, same "
                        "interpreter), next to pybroker in every round, and report pybroker/baseline ratios")
    p.add_argument("--sizes", type=int, nargs="+", default=[1024, 100], help="record value sizes in bytes")
    p.add_argument("--partitions", type=int, nargs="+", default=[1, 6], help="partition counts")
    p.add_argument("--records", type=int, default=500_000, help="records per case at most")
    p.add_argument("--seconds", type=float, default=10.0, help="stop enqueuing after this long per case")
    p.add_argument("--warmup-records", type=int, default=500_000,
                   help="before measuring, each broker gets an unmeasured warm-up case per record size "
                        "(at the largest partition count) of this many records (0: no warm-up)")
    p.add_argument("--warmup-seconds", type=float, default=60.0, help="safety cap on the warm-up's enqueuing")
    p.add_argument("--rounds", type=int, default=1,
                   help="run every broker this many times, alternating the order; figures are medians")
    p.add_argument("--acks", default="all", choices=["0", "1", "all"])
    p.add_argument("--linger-ms", type=int, default=5)
    p.add_argument("--batch-size", type=int, default=1_000_000, help="librdkafka batch.size")
    p.add_argument("--keep-topics", action="store_true", help="do not delete each case's topic")
    p.add_argument("--metrics", action="store_true",
                   help=f"also run pybroker serving its metrics, scraped every 5 s ({SCRAPED}), "
                        "next to pybroker in every round, and report the scraped/pybroker ratios")
    p.add_argument("--markdown", action="store_true", help="also print the results as a Markdown table")
    args = p.parse_args(argv)
    if args.bootstrap and args.brokers:
        p.error("--bootstrap benchmarks one external broker; it cannot be combined with --brokers")
    if args.bootstrap:
        args.names = [EXTERNAL]
    else:
        args.names = [n.strip() for n in (args.brokers or ",".join(BROKERS)).split(",") if n.strip()]
        unknown = sorted(set(args.names) - set(BROKERS))
        if unknown or not args.names or len(set(args.names)) != len(args.names):
            p.error(f"--brokers takes a comma-separated list of {', '.join(BROKERS)} (got {args.brokers!r})")
    if args.baseline is not None:
        if args.bootstrap or "pybroker" not in args.names:
            p.error("--baseline compares pybroker with an earlier pybroker: it needs pybroker among --brokers "
                    "and cannot be combined with --bootstrap")
        try:
            args.baseline_checkout = BaselineCheckout.resolve(args.baseline)
        except ValueError as e:
            p.error(f"--baseline: {e}")
        i = args.names.index("pybroker")
        args.names = [*args.names[:i + 1], BASELINE, *args.names[i + 1:]]
    if args.metrics:
        if args.bootstrap or "pybroker" not in args.names:
            p.error("--metrics compares pybroker with and without its metrics endpoint: it needs "
                    "pybroker among --brokers and cannot be combined with --bootstrap")
        i = args.names.index("pybroker")
        args.names = [*args.names[:i + 1], SCRAPED, *args.names[i + 1:]]
    if args.rounds < 1:
        p.error("--rounds must be at least 1")
    return args


_interrupted: list[str] = []


def _interrupt(signum: int, _frame: object) -> None:
    """Ctrl-C or SIGTERM: unwind through the finally blocks that stop the brokers. librdkafka's
    poll() can turn the exception into a SystemError, so the signal is also remembered. A second
    signal while the brokers are being stopped is ignored (every stop has its own timeout)."""
    first = not _interrupted
    _interrupted.append(signal.Signals(signum).name)
    if first:
        raise KeyboardInterrupt(_interrupted[-1])


def catch_interrupts() -> None:
    """SIGTERM, and SIGINT unless it is ignored, unwind the run as KeyboardInterrupt (see
    :func:`_interrupt`); every benchmark script installs the same handler."""
    signal.signal(signal.SIGTERM, _interrupt)
    if signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
        signal.signal(signal.SIGINT, _interrupt)


def interrupted() -> str | None:
    """The name of the signal that interrupted the run, if one did: a client library may have
    turned the KeyboardInterrupt into another exception."""
    return _interrupted[-1] if _interrupted else None


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    baseline: BaselineCheckout | None = vars(args).pop("baseline_checkout", None)
    catch_interrupts()
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    args.out.mkdir(parents=True, exist_ok=True)

    names: list[str] = args.names
    status: dict[str, dict] = {name: {"status": "pending"} for name in names}
    ratio_note = ""
    baseline_note = ""
    if "kafka" in names:
        missing = missing_requirements()
        if missing:
            reason = "; ".join(missing)
            status["kafka"] = {"status": "skipped", "reason": reason}
            ratio_note = f"Kafka not run:\n{reason}"
            loud([f"Apache Kafka {KAFKA_VERSION} is SKIPPED: cannot start it without {reason}.",
                  "The pybroker/kafka ratios will be n/a. `make setup` installs a JDK (make system-deps)",
                  "and the Kafka jars (make kafka-tools-deps)."])
    if args.bootstrap:
        ratio_note = "external broker: no ratio"
    elif "kafka" not in names or "pybroker" not in names:
        ratio_note = ratio_note or ("Kafka not run: no ratio" if BASELINE in names else "only one broker run: no ratio")
    to_run = [n for n in names if status[n]["status"] == "pending"]
    if not to_run:
        print("nothing to benchmark", file=sys.stderr)
        return 1

    load_before = load_average()
    print(f"load average before: {' '.join(map(str, load_before))} ({os.cpu_count()} CPUs)")
    if load_before[0] > 0.5 * (os.cpu_count() or 1):
        loud([f"the machine looks busy (load average {load_before[0]} on {os.cpu_count()} CPUs):",
              "other work competes with the brokers and the client; the figures will be noisy."])

    runs: list[BrokerRun] = []
    try:
        if baseline is not None:
            try:
                tree = baseline.add()
            except (OSError, subprocess.SubprocessError) as e:
                detail = getattr(e, "stderr", "") or ""
                print(f"cannot check out the baseline {baseline.revision}: {e} {detail}".strip(), file=sys.stderr)
                return 1
            print(f"{BASELINE}: pybroker {baseline.describe} ({baseline.revision}: {baseline.subject}), "
                  f"checked out in {tree}", flush=True)
        for rnd in range(args.rounds):
            order = to_run if rnd % 2 == 0 else to_run[::-1]
            for name in order:
                runs.append(run_broker(name, rnd, args, stamp, baseline))
    except KeyboardInterrupt as e:
        print(f"\ninterrupted ({e or 'Ctrl-C'}); the brokers are stopped and their data removed, "
              "nothing was written", file=sys.stderr)
        return 130
    finally:  # run_broker stops its own broker; this catches anything left behind
        BrokerProcess.stop_all()
        ReferenceKafka.stop_all()
        if baseline is not None:
            baseline.remove()
    load_after = load_average()

    for name in to_run:
        errors = [r.error for r in runs if r.broker == name and r.error]
        status[name] = {"status": "failed", "errors": errors} if errors else {"status": "ran"}
        if errors and name != BASELINE and not ratio_note:
            ratio_note = f"{name} failed:\n{errors[0][:200]}"
        if errors and name != "kafka" and not baseline_note:
            baseline_note = f"{name} failed:\n{errors[0][:200]}"

    summary = summarize(runs, names, args)
    config = {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()}
    machine = machine_info()
    machine["load_average_before"] = load_before
    machine["load_average_after"] = load_after
    title = f"pybroker {machine.get('pybroker_commit', '')} vs Apache Kafka {KAFKA_VERSION}"
    ratios = {"ratio": RATIO}
    if baseline is not None:
        machine["baseline"] = baseline.to_json()
        config["baseline_commit"] = baseline.commit
        ratios["ratio_baseline"] = RATIO_BASELINE
        title += f" and pybroker {baseline.describe} (baseline)"
    result = {
        "timestamp": stamp,
        "machine": machine,
        "config": config,
        "brokers": status,
        **ratios,
        "cases": summary,
        "runs": [r.to_json() for r in runs],
    }
    json_path = args.out / f"bench-{stamp}.json"
    json_path.write_text(json.dumps(result, indent=2) + "\n")
    png_path = args.out / f"bench-{stamp}.png"
    plot(summary, names, png_path,
         f"{title} - "
         f"{machine.get('cpu_count')} CPU, librdkafka {machine['librdkafka']}, acks={args.acks}"
         + (f", median of {args.rounds} rounds" if args.rounds > 1 else ""), ratio_note, baseline_note)
    print()
    if baseline is not None:
        print(f"{BASELINE} = pybroker {baseline.describe} ({baseline.revision}, {baseline.commit[:12]}: "
              f"{baseline.subject}); {RATIO_BASELINE} above 1: faster than then")
    print_table(summary, names)
    if args.markdown:
        print()
        print(markdown_table(summary, names))
    rss = "; ".join(f"{r.broker}: " + ", ".join(f"{k} {v:.0f} MiB" for k, v in r.peak_rss_mib.items())
                    for r in runs if r.peak_rss_mib)
    if rss:
        print(f"\npeak RSS: {rss}")
    print(f"load average before {' '.join(map(str, load_before))}, after {' '.join(map(str, load_after))}")
    print(f"wrote {json_path} and {png_path}")
    for name, st in status.items():
        if st["status"] == "skipped":
            loud([f"{name} was SKIPPED (missing: {st['reason']}); ratios are n/a"])
        elif st["status"] == "failed":
            loud([f"{name} FAILED: {st['errors'][0][:300]}"])
    failed = sum(c[d]["errors"][n] for c in summary for d in ("produce", "consume") for n in names
                 if c[d]["errors"].get(n))
    if failed:
        print(f"warning: {failed} records failed to deliver or were not read back", file=sys.stderr)
    return 1 if any(st["status"] == "failed" for st in status.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
