"""What metrics cost, measured in the broker's CPU at a fixed offered load rather than in
throughput (which swings by tens of percent from round to round on a small virtual machine).

Three pybroker brokers run side by side, each with its own data directory, for the whole run:

- ``pybroker``: this checkout, no metrics endpoint (the meters are recorded all the same);
- ``scraped``: this checkout serving ``metrics.listener``, read every ``--scrape-interval``
  seconds by a scraper thread, as Prometheus would;
- ``baseline``: this repository at ``--baseline`` (default 8aecba4, the last commit before the
  metrics), run from a temporary worktree with the same interpreter (``--baseline none``: no
  baseline).

Every round runs every case on all three at the same time, each with a client process of its
own, so that whatever the machine does meanwhile (the neighbours, the hypervisor, the page
cache) hits all three alike: run one after the other, the same broker's CPU per GB differed by
10-15 % from one run to the next here; side by side, two brokers of the same code agree within
1 %. A case is a fresh topic per broker; a confluent-kafka producer offers records at a fixed
rate (``--rate`` MB/s of payload for 1 KiB records, a tenth of it for 100-byte ones; acks=all,
``--linger-ms`` 5) for ``--seconds``, then a consumer reads them back from the beginning as
fast as it can, again and again for ``--consume-seconds``. The figure is the broker process's
CPU seconds per GB of payload (its threads' run time from /proc; user and system time apart, to
the clock tick), so a broker that does more work per request shows it whatever the machine's
noise does to the clock. Every broker runs its checkout's code first on ``PYTHONPATH`` (not whatever
checkout the virtualenv's editable install points at). The producer and the consumer also read
how many Produce and Fetch requests they sent from librdkafka's statistics, for the broker's
CPU per request: the figure that does not move with how the client happened to batch.

Each round also measures one scrape: ``scraped`` idle, ``--probe-scrapes`` reads of /metrics
back to back, its CPU divided by their number. The scraped broker's CPU per GB is then given
twice: as measured (the scrapes that fell into the phase included) and without them.

After the rounds, a paired measurement prices a scrape under load (:func:`paired_scrape_cost`):
the ``scraped`` broker alone, under each case's load, its CPU per second read in segments
without scrapes and with one a second. It is the endpoint's cost on one broker with one load,
free of the broker-to-broker noise of the side-by-side figures, and it includes what a scrape
costs the loop beside its own work, which the idle probe does not.

What it means for throughput: a broker bound by its one event loop moves at most 1 core
divided by its CPU per GB. Serving metrics takes ``scrape CPU / interval`` of that core and
recording them raises the CPU per GB, so the throughput a saturated broker keeps is estimated as

    capacity = (1 - scrape CPU / interval) x CPU per GB(reference) / CPU per GB(scraped, without scrapes)

against ``pybroker`` (the endpoint alone) and against ``baseline`` (everything metrics add).
At a fixed rate the requests are smaller than at full speed, so per-request costs weigh more
here than at saturation: the estimate errs on the side of cost. Results go to ``--out`` as
JSON, Markdown and a PNG; nothing is asserted. See docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import threading
import time
import urllib.request
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from multiprocessing import get_context
from pathlib import Path
from typing import Any

from confluent_kafka import Consumer, Producer, TopicPartition

from pybroker.testing.broker_process import BrokerProcess
from scripts.bench import (
    CLK_TCK,
    REPO_ROOT,
    BaselineCheckout,
    catch_interrupts,
    create_topic,
    delete_topic,
    interrupted,
    load_average,
    loud,
    machine_info,
    settle,
)

PLAIN, SCRAPED, BASELINE = "pybroker", "scraped", "baseline"
METRICS_BASELINE = "8aecba4"  # the last commit before the metrics (docs/benchmarks.md)
DIRECTIONS = ("produce", "consume")
GB = 1e9
MB = 1e6


# -- measurements ---------------------------------------------------------------------------


def _ticks(stat: Path) -> tuple[int, int]:
    # the command name in field 2 may contain spaces: split after its closing bracket
    fields = stat.read_text().rsplit(")", 1)[1].split()
    return int(fields[11]), int(fields[12])  # utime, stime: fields 14 and 15 of proc(5)


def cpu_times(pid: int) -> tuple[float, float, float]:
    """(utime, stime, cpu) of the process in seconds. The first two are /proc/<pid>/stat's, in
    clock ticks (10 ms). ``cpu`` is precise enough for a phase of a fraction of a second: the
    nanoseconds the live threads ran (/proc/<pid>/task/*/schedstat, user and system time
    together) plus, in ticks, what threads that ended left in the process's total (the metrics
    endpoint answers each scrape on a thread of its own)."""
    user, system = _ticks(Path(f"/proc/{pid}/stat"))
    run_ns = live = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            ns = int((task / "schedstat").read_text().split()[0])
            u, s = _ticks(task / "stat")
        except (OSError, IndexError, ValueError):
            continue  # a thread that ended meanwhile: counted in the process's ticks
        run_ns += ns
        live += u + s
    return user / CLK_TCK, system / CLK_TCK, run_ns / 1e9 + (user + system - live) / CLK_TCK


@dataclass
class Phase:
    """One direction of one case on one broker: what moved and what the broker spent on it."""

    broker: str
    round: int
    case: str
    direction: str
    records: int = 0
    payload_bytes: int = 0
    seconds: float = 0.0
    cpu_s: float = 0.0  # the threads' run time (schedstat)
    user_s: float = 0.0  # of which user and system time, to the clock tick
    system_s: float = 0.0
    scrapes: int = 0  # reads of /metrics that fell into the phase
    errors: int = 0
    requests: int = 0  # Produce or Fetch requests the client sent (librdkafka's statistics)

    @property
    def mb_per_s(self) -> float:
        return self.payload_bytes / MB / self.seconds if self.seconds else 0.0

    def per_gb(self, cpu_s: float) -> float | None:
        return cpu_s * GB / self.payload_bytes if self.payload_bytes else None

    def cpu_per_gb(self, scrape_cpu_s: float = 0.0) -> dict[str, float | None]:
        """CPU seconds per GB: user, total, and total without ``scrape_cpu_s`` per scrape."""
        total = self.cpu_s
        return {"user": self.per_gb(self.user_s), "total": self.per_gb(total),
                "without_scrapes": self.per_gb(max(0.0, total - self.scrapes * scrape_cpu_s))}

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "mb_per_s": self.mb_per_s}


@dataclass(frozen=True)
class Case:
    record_size: int
    partitions: int

    @property
    def label(self) -> str:
        size = f"{self.record_size // 1024} KiB" if self.record_size % 1024 == 0 else f"{self.record_size} B"
        return f"{size} x {self.partitions}p"

    def rate_mb(self, rate: float) -> float:
        """The offered rate: ``rate`` MB/s for 1 KiB records, scaled by size below it (100-byte
        records are offered a tenth), so that the record rate stays within what one Python
        producer loop offers steadily."""
        return rate * min(1.0, self.record_size / 1024)


class Scraper:
    """Reads ``url`` every ``interval`` seconds on a thread and remembers when."""

    def __init__(self, url: str, interval: float) -> None:
        self.url = url
        self.interval = interval
        self.times: list[float] = []
        self.errors = 0
        #: while set, the thread skips its reads (a paired measurement scrapes by itself)
        self.paused = False
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="bench-scraper", daemon=True)

    def read(self) -> int:
        with urllib.request.urlopen(self.url, timeout=10) as response:  # noqa: S310 - loopback
            return len(response.read())

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            if self.paused:
                continue
            try:
                self.read()
                self.times.append(time.monotonic())
            except OSError:
                self.errors += 1

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(15)

    def between(self, start: float, end: float) -> int:
        return sum(start <= t <= end for t in self.times)


class Broker:
    """A pybroker process kept up for the whole run."""

    def __init__(self, name: str, source: Path | None = None, metrics: bool = False) -> None:
        self.name = name
        self.tmp = Path(tempfile.mkdtemp(prefix=f"bench-metrics-{name}-"))
        self.proc = BrokerProcess(self.tmp / "kafka-logs", log_path=self.tmp / "broker.log",
                                  source=source, metrics=metrics)
        self.scraper: Scraper | None = None

    def start(self, scrape_interval: float | None) -> None:
        self.proc.start()
        if scrape_interval is not None:
            self.scraper = Scraper(self.proc.metrics_url, scrape_interval)
            self.scraper.start()

    @property
    def pid(self) -> int:
        assert self.proc.pid is not None
        return self.proc.pid

    def stop(self) -> None:
        try:
            if self.scraper is not None:
                self.scraper.stop()
            self.proc.stop()
        finally:
            shutil.rmtree(self.tmp, ignore_errors=True)


def scrape_cost(broker: Broker, scrapes: int) -> dict[str, float]:
    """CPU seconds of the idle broker per read of /metrics, and the page's size."""
    assert broker.scraper is not None
    *_, c0 = cpu_times(broker.pid)
    size = 0
    for _ in range(scrapes):
        size = broker.scraper.read()
    *_, c1 = cpu_times(broker.pid)
    return {"cpu_s": (c1 - c0) / scrapes, "page_bytes": size}


#: how many pairs of segments (without scrapes, then with one a second) a paired measurement has
PAIRS = 3


def paired_scrape_cost(pool: ProcessPoolExecutor, broker: Broker, case: Case,
                       args: argparse.Namespace, tag: str) -> dict[str, dict[str, float]]:
    """What a scrape costs under load, on one broker: while a client offers the case's load
    (a producer at its rate, then a consumer reading what it wrote), the broker's CPU per
    second is read in segments of ``--paired-seconds``, alternately without scrapes and with
    one a second. The same broker and the same load on both sides: the difference per scrape
    does not carry the broker-to-broker and round-to-round noise of the side-by-side figures,
    and it takes in what a scrape costs the event loop beside its own work (the loop's
    snapshot, the two threads taking turns), which a scrape of an idle broker does not."""
    assert broker.scraper is not None
    topic = f"bench-metrics-{tag}-paired"
    create_topic(broker.proc.bootstrap, topic, case.partitions)
    settle()
    seg = args.paired_seconds
    span = 2 * PAIRS * seg
    out: dict[str, dict[str, float]] = {}
    produced = 0
    broker.scraper.paused = True
    try:
        for direction in DIRECTIONS:
            start_at = time.time() + 1.0
            future = pool.submit(client, Phase(broker.name, -1, case.label, direction),
                                 broker.proc.bootstrap, topic, case, args.rate, span + 2.0,
                                 produced, start_at, args.linger_ms, span + 2.0)
            time.sleep(max(0.0, start_at - time.time()) + 0.5)  # the client is under way
            cpu: dict[bool, list[float]] = {False: [], True: []}
            scrapes = 0
            for i in range(2 * PAIRS):
                scraping = i % 2 == 1
                *_, c0 = cpu_times(broker.pid)
                t0 = time.monotonic()
                while time.monotonic() - t0 < seg:
                    if scraping:
                        s0 = time.monotonic()
                        broker.scraper.read()
                        scrapes += 1
                        time.sleep(max(0.0, 1.0 - (time.monotonic() - s0)))
                    else:
                        time.sleep(0.05)
                *_, c1 = cpu_times(broker.pid)
                cpu[scraping].append((c1 - c0) / (time.monotonic() - t0))
            phase = future.result()
            if direction == "produce":
                produced = phase.records
            off, on = statistics.fmean(cpu[False]), statistics.fmean(cpu[True])
            per_s = scrapes / (PAIRS * seg)
            out[direction] = {"cpu_per_s_off": off, "cpu_per_s_on": on, "scrapes_per_s": per_s,
                              "scrape_cpu_s": (on - off) / per_s if per_s else 0.0}
    finally:
        broker.scraper.paused = False
        delete_topic(broker.proc.bootstrap, topic)
    return out


def idle_cpu(brokers: list[Broker], seconds: float) -> dict[str, float]:
    """CPU seconds per second of each broker with no clients at all (the scraped one is still
    scraped): what runs whatever the load."""
    before = {b.name: cpu_times(b.pid)[2] for b in brokers}
    time.sleep(seconds)
    return {b.name: (cpu_times(b.pid)[2] - before[b.name]) / seconds for b in brokers}


# -- the workload ---------------------------------------------------------------------------


class RequestCount:
    """How many requests of one API a librdkafka client sent to its brokers, from its
    statistics (``brokers.*.req``): a broker's CPU per request is the figure that does not move
    with how the client happened to batch."""

    INTERVAL_MS = 200

    def __init__(self, api: str) -> None:
        self.api = api
        self.latest: dict[str, Any] | None = None
        self.config = {"statistics.interval.ms": self.INTERVAL_MS, "stats_cb": self._on_stats}

    def _on_stats(self, text: str) -> None:
        self.latest = json.loads(text)

    def count(self) -> int:
        if self.latest is None:
            return 0
        return sum(b.get("req", {}).get(self.api, 0)
                   for b in self.latest.get("brokers", {}).values() if b.get("nodeid", -1) >= 0)

    def final(self, poll: Any) -> int:
        """The count once a report newer than now came (served by ``poll``)."""
        self.latest = None
        deadline = time.monotonic() + 5 * self.INTERVAL_MS / 1000
        while self.latest is None and time.monotonic() < deadline:
            poll(self.INTERVAL_MS / 1000)
        return self.count()


def produce_at(bootstrap: str, topic: str, case: Case, rate_mb: float, seconds: float,
               phase: Phase, linger_ms: int = 5) -> None:
    """Offer ``rate_mb`` MB/s of payload for ``seconds``, then wait for every report."""
    per_s = rate_mb * MB / case.record_size
    total = int(per_s * seconds)
    payloads = [os.urandom(case.record_size) for _ in range(16)]
    failed = 0

    def on_delivery(err: object, _msg: object) -> None:
        nonlocal failed
        if err is not None:
            failed += 1

    stats = RequestCount("Produce")
    producer = Producer({"bootstrap.servers": bootstrap, "acks": "all", "linger.ms": linger_ms,
                         "batch.size": 1_000_000, "compression.type": "none",
                         "queue.buffering.max.messages": 1_000_000, **stats.config})
    produce = producer.produce
    sent = 0
    start = time.perf_counter()
    while sent < total:
        due = min(total, int((time.perf_counter() - start) * per_s) + 1)
        while sent < due:
            try:
                produce(topic, payloads[sent & 15], on_delivery=on_delivery)
            except BufferError:
                producer.poll(0.005)
                continue
            sent += 1
        producer.poll(0)
        time.sleep(0.001)
    remaining = producer.flush(120)
    phase.seconds = time.perf_counter() - start
    phase.requests = stats.final(producer.poll)
    phase.records = total - failed - remaining
    phase.payload_bytes = phase.records * case.record_size
    phase.errors = failed + remaining


#: what the consumer asks a Fetch for, per partition and in all
FETCH_BYTES = 64 * 1024


def consume_all(bootstrap: str, topic: str, case: Case, want: int, phase: Phase,
                seconds: float = 6.0) -> None:
    """Read the topic from the beginning until ``want`` records came, as fast as they come,
    again and again for ``seconds`` (at least once): one read takes a fraction of a second,
    which the broker spends a few clock ticks of CPU on; several seconds of reads give it
    enough to measure. The records are counted, not looked at (every one has the case's size),
    so the consumer asks for the next ones sooner. The Fetch requests it sent come from
    librdkafka's statistics, for the broker's CPU per Fetch."""
    stats = RequestCount("Fetch")
    # small fetches (64 KiB a partition): a fast consumer's whole read is a few dozen Fetch
    # requests otherwise, a few clock ticks of the broker's CPU; this way, some thousand
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"bench-{topic}",
                         "enable.auto.commit": False, "max.partition.fetch.bytes": FETCH_BYTES,
                         "fetch.max.bytes": FETCH_BYTES, "message.max.bytes": FETCH_BYTES,
                         **stats.config})
    got = 0
    passes = 0
    start = time.perf_counter()
    deadline = start + 120 + seconds
    try:
        # (nothing to read, when the producer got nothing in: one empty pass, not a spin)
        while passes == 0 or (want > 0 and time.perf_counter() - start < seconds
                              and time.perf_counter() < deadline):
            consumer.assign([TopicPartition(topic, p, 0) for p in range(case.partitions)])
            read = 0
            while read < want and time.perf_counter() < deadline:
                # never ask for more than is left: consume() waits out its timeout for a
                # batch it cannot fill
                read += sum(1 for msg in consumer.consume(min(10_000, want - read), 0.5)
                            if msg.error() is None)
            got += read
            passes += 1
            consumer.unassign()
            if read < want:
                break
        phase.seconds = time.perf_counter() - start
        phase.requests = stats.final(consumer.poll)
    finally:
        consumer.close()
    phase.records = got
    phase.payload_bytes = got * case.record_size
    phase.errors = want * passes - got


def client(phase: Phase, bootstrap: str, topic: str, case: Case, rate: float, seconds: float,
           want: int, start_at: float, linger_ms: int = 5, consume_seconds: float = 6.0) -> Phase:
    """One broker's client for one phase, in a process of its own: it waits for ``start_at``
    (wall clock) so that every broker's client starts at once."""
    time.sleep(max(0.0, start_at - time.time()))
    if phase.direction == "produce":
        produce_at(bootstrap, topic, case, case.rate_mb(rate), seconds, phase, linger_ms)
    else:
        consume_all(bootstrap, topic, case, want, phase, consume_seconds)
    return phase


def measure(pool: ProcessPoolExecutor, brokers: list[Broker], case: Case, rnd: int,
            args: argparse.Namespace, tag: str) -> list[Phase]:
    """One case on every broker at the same time: a fresh topic each, a producer process per
    broker offering the same rate, then a consumer process per broker. Each broker's CPU is
    read from the common start until its own client is done, so whatever the machine does
    meanwhile (the neighbours, the hypervisor) hits every broker alike."""
    topics = {b.name: f"bench-metrics-{tag}-{b.name}" for b in brokers}
    for b in brokers:
        create_topic(b.proc.bootstrap, topics[b.name], case.partitions)
    settle()
    phases: list[Phase] = []
    produced: dict[str, int] = {}
    for direction in DIRECTIONS:
        start_at = time.time() + 1.0  # the pool's processes are up well before
        time.sleep(max(0.0, start_at - time.time() - 0.01))
        t0 = time.monotonic()
        before = {b.name: cpu_times(b.pid) for b in brokers}
        futures = {pool.submit(client, Phase(b.name, rnd, case.label, direction), b.proc.bootstrap,
                               topics[b.name], case, args.rate, args.seconds,
                               produced.get(b.name, 0), start_at, args.linger_ms,
                               args.consume_seconds): b
                   for b in brokers}
        for future in as_completed(futures):
            b = futures[future]
            u1, s1, c1 = cpu_times(b.pid)
            t1 = time.monotonic()
            phase = future.result()
            u0, s0, c0 = before[b.name]
            phase.user_s, phase.system_s, phase.cpu_s = u1 - u0, s1 - s0, c1 - c0
            if b.scraper is not None:
                phase.scrapes = b.scraper.between(t0, t1)
            if direction == "produce":
                produced[b.name] = phase.records
            phases.append(phase)
    for b in brokers:
        delete_topic(b.proc.bootstrap, topics[b.name])
    order = {b.name: i for i, b in enumerate(brokers)}
    return sorted(phases, key=lambda p: (DIRECTIONS.index(p.direction), order[p.broker]))


# -- the summary ----------------------------------------------------------------------------


def median(values: list[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return statistics.median(known) if known else None


def summarize(phases: list[Phase], scrape_cpu_s: float | None, interval: float,
              names: list[str]) -> dict[str, Any]:
    """Medians of CPU per GB per broker, case and direction, the ratios to ``pybroker`` and to
    ``baseline``, and the capacity estimate of the module docstring."""
    per_scrape = scrape_cpu_s or 0.0
    figures: dict[str, dict[str, dict[str, float | None]]] = {}
    for p in phases:
        if p.errors or not p.payload_bytes:
            continue
        key = f"{p.case} {p.direction}"
        cell = figures.setdefault(key, {}).setdefault(p.broker, {})
        for kind, value in p.cpu_per_gb(per_scrape).items():
            cell.setdefault(kind, []).append(value)  # type: ignore[attr-defined]
        cell.setdefault("mb_per_s", []).append(p.mb_per_s)  # type: ignore[attr-defined]
        if p.requests:
            cell.setdefault("us_per_request", []).append(  # type: ignore[attr-defined]
                p.cpu_s / p.requests * 1e6)
    for cells in figures.values():
        for cell in cells.values():
            for kind in list(cell):
                cell[kind] = median(cell[kind])  # type: ignore[arg-type]
    share = per_scrape / interval
    ratios: dict[str, dict[str, float | None]] = {}
    for key, cells in figures.items():
        scraped = cells.get(SCRAPED, {})
        row: dict[str, float | None] = {}
        for ref in (PLAIN, BASELINE):
            if ref not in names or ref not in cells:
                continue
            base = cells[ref]
            row[f"{SCRAPED}/{ref} user"] = _ratio(scraped.get("user"), base.get("user"))
            row[f"{SCRAPED}/{ref} total"] = _ratio(scraped.get("total"), base.get("total"))
            row[f"capacity vs {ref}"] = (None if not scraped.get("without_scrapes") or not base.get("total")
                                         else (1 - share) * base["total"] / scraped["without_scrapes"])
        if PLAIN in cells and BASELINE in cells:
            # the recording alone: the same checkout without the endpoint, per request
            row[f"{PLAIN}/{BASELINE} per request"] = _ratio(
                cells[PLAIN].get("us_per_request"), cells[BASELINE].get("us_per_request"))
        ratios[key] = row
    return {"figures": figures, "ratios": ratios,
            "scrape": {"cpu_s": scrape_cpu_s, "interval_s": interval, "core_share": share}}


def paired_summary(paired: dict[str, dict[str, dict[str, float]]],
                   interval: float) -> dict[str, dict[str, float]]:
    """Per case and direction, the paired measurement with what it means at ``interval``: the
    share of a core the scrapes take under that load, and the throughput a broker saturated
    by its event loop keeps (1 less that share)."""
    out: dict[str, dict[str, float]] = {}
    for label, cells in paired.items():
        for direction, cell in cells.items():
            share = max(0.0, cell["scrape_cpu_s"]) / interval
            out[f"{label} {direction}"] = {**cell, "core_share": share, "capacity": 1 - share}
    return out


def _ratio(a: float | None, b: float | None) -> float | None:
    return a / b if a is not None and b else None


def fmt(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{value:,.{digits}f}"


def markdown(summary: dict[str, Any], names: list[str]) -> str:
    scrape = summary["scrape"]
    lines = [f"One scrape: {fmt((scrape['cpu_s'] or 0) * 1000, 1)} ms of broker CPU; every "
             f"{scrape['interval_s']:g} s that is {fmt(scrape['core_share'] * 100, 2)} % of a core."]
    if summary.get("idle_cpu_per_s"):
        lines.append("Idle, no clients: " + ", ".join(
            f"{n} {fmt((v or 0) * 1000, 1)} ms" for n, v in summary["idle_cpu_per_s"].items())
            + " of CPU per second.")
    lines += ["",
             "Broker CPU seconds per GB of payload (medians; user time / all of it):", "",
             "| case | " + " | ".join(names) + " |", "|---|" + "---:|" * len(names)]
    for key, cells in summary["figures"].items():
        row = [f"{fmt(cells.get(n, {}).get('user'))} / {fmt(cells.get(n, {}).get('total'))}" for n in names]
        lines.append(f"| {key} | " + " | ".join(row) + " |")
    per_request = {k: c for k, c in summary["figures"].items()
                   if any("us_per_request" in cell for cell in c.values())}
    if per_request:
        lines += ["", "Broker CPU per request the client sent (Produce or Fetch; us, medians; the "
                      "figure that does not move with how the client batched):", "",
                  "| case | " + " | ".join(names) + " |", "|---|" + "---:|" * len(names)]
        for key, cells in per_request.items():
            lines.append(f"| {key} | " + " | ".join(
                fmt(cells.get(n, {}).get("us_per_request"), 0) for n in names) + " |")
    if summary.get("paired"):
        lines += ["", f"The endpoint, paired: the scraped broker alone under each case's load, "
                      f"CPU per second in segments without scrapes and with one a second; what a "
                      f"scrape costs there, and at one every {scrape['interval_s']:g} s:", "",
                  "| case | CPU-s/s without | CPU-s/s with | scrapes/s | ms per scrape "
                  "| share of a core | capacity |", "|---|---:|---:|---:|---:|---:|---:|"]
        for key, cell in summary["paired"].items():
            lines.append(f"| {key} | {fmt(cell['cpu_per_s_off'], 3)} | {fmt(cell['cpu_per_s_on'], 3)} "
                         f"| {fmt(cell['scrapes_per_s'], 2)} | {fmt(cell['scrape_cpu_s'] * 1000, 1)} "
                         f"| {fmt(cell['core_share'] * 100, 2)} % | {fmt(cell['capacity'], 3)} |")
    kinds = sorted({k for r in summary["ratios"].values() for k in r})
    lines += ["", "| case | " + " | ".join(kinds) + " |", "|---|" + "---:|" * len(kinds)]
    for key, row in summary["ratios"].items():
        lines.append(f"| {key} | " + " | ".join(fmt(row.get(k), 3) for k in kinds) + " |")
    return "\n".join(lines)


def plot(summary: dict[str, Any], names: list[str], path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    keys = list(summary["figures"])
    fig, (left, right) = plt.subplots(1, 2, figsize=(14, 5.5), width_ratios=[1.4, 1])
    width = 0.8 / len(names)
    colors = {PLAIN: "tab:blue", SCRAPED: "tab:green", BASELINE: "tab:gray"}
    for i, name in enumerate(names):
        xs = [x + (i - (len(names) - 1) / 2) * width for x in range(len(keys))]
        total = [summary["figures"][k].get(name, {}).get("total") or 0 for k in keys]
        user = [summary["figures"][k].get(name, {}).get("user") or 0 for k in keys]
        bars = left.bar(xs, total, width, label=f"{name} (user+system)", color=colors[name], alpha=0.45)
        left.bar(xs, user, width, label=f"{name} (user)", color=colors[name])
        left.bar_label(bars, labels=[fmt(v, 1) for v in total], fontsize=7, padding=2)
    left.set_xticks(range(len(keys)), [k.replace(" produce", "\nproduce").replace(" consume", "\nconsume")
                                       for k in keys], fontsize=8)
    left.set_ylabel("broker CPU seconds per GB")
    left.set_title("broker CPU per GB at a fixed offered rate (lower is better)", fontsize=9)
    left.legend(fontsize=7, ncol=2)
    left.grid(axis="y", alpha=0.3)
    rows = [(f"{k}: {kind}", v) for k, r in summary["ratios"].items() for kind, v in r.items()
            if kind.startswith("capacity")]
    bars = right.barh(range(len(rows)), [v or 0 for _, v in rows], color="tab:green")
    right.bar_label(bars, labels=[fmt(v, 3) for _, v in rows], fontsize=7, padding=2)
    right.set_yticks(range(len(rows)), [r for r, _ in rows], fontsize=7)
    right.invert_yaxis()
    right.axvline(1.0, color="black", linewidth=0.8, linestyle="--")
    right.axvline(0.97, color="red", linewidth=0.8, linestyle=":")
    right.set_xlim(0.8, 1.1)
    right.set_title("estimated throughput kept when saturated (goal: at least 0.97)", fontsize=9)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


# -- the run --------------------------------------------------------------------------------


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", type=Path, default=Path("bench-results"), help="output directory")
    p.add_argument("--rounds", type=int, default=6, help="every case on every broker this many times")
    p.add_argument("--sizes", default="1024,100", help="record value sizes in bytes")
    p.add_argument("--partitions", default="1,6", help="partition counts")
    p.add_argument("--rate", type=float, default=40.0,
                   help="offered MB/s of payload for 1 KiB records (scaled down for smaller ones)")
    p.add_argument("--seconds", type=float, default=6.0, help="produce for this long per case")
    p.add_argument("--consume-seconds", type=float, default=6.0,
                   help="the consumer reads each case's records again and again for this long")
    p.add_argument("--linger-ms", type=int, default=5,
                   help="the producer's linger.ms: how many requests carry the offered rate")
    p.add_argument("--scrape-interval", type=float, default=5.0,
                   help="seconds between reads of /metrics (Prometheus' default: 15)")
    p.add_argument("--probe-scrapes", type=int, default=20,
                   help="back-to-back reads per round that price one scrape")
    p.add_argument("--paired-seconds", type=float, default=4.0,
                   help="segment length of the paired measurement of a scrape under each case's "
                        "load (3 pairs per direction; 0: not measured)")
    p.add_argument("--idle-seconds", type=float, default=5.0,
                   help="per round, how long every broker's CPU is read with no clients")
    p.add_argument("--baseline", default=METRICS_BASELINE,
                   help=f"git revision of the baseline broker (default {METRICS_BASELINE}, before "
                        "the metrics); 'none' for no baseline")
    args = p.parse_args(argv)
    try:
        args.cases = [Case(int(s), int(n)) for s in args.sizes.split(",") for n in args.partitions.split(",")]
    except ValueError:
        p.error("--sizes and --partitions take comma-separated integers")
    if min(args.rounds, args.probe_scrapes) < 1 or min(args.rate, args.seconds, args.consume_seconds, args.scrape_interval) <= 0:
        p.error("--rounds, --probe-scrapes, --rate, --seconds, --consume-seconds and --scrape-interval must be positive")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    catch_interrupts()
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    args.out.mkdir(parents=True, exist_ok=True)
    checkout: BaselineCheckout | None = None
    if args.baseline != "none":
        try:
            checkout = BaselineCheckout.resolve(args.baseline)
        except ValueError as e:
            loud([f"bench_metrics: the baseline is SKIPPED: {e} (a shallow clone?)",
                  "only the endpoint's cost is measured, not the recording's"])
    load_before = load_average()
    print(f"load average before: {' '.join(map(str, load_before))}; {len(args.cases)} cases x "
          f"{args.rounds} rounds, {args.seconds:g} s at {args.rate:g} MB/s (1 KiB)", flush=True)
    brokers: list[Broker] = []
    phases: list[Phase] = []
    probes: list[dict[str, float]] = []
    paired: dict[str, dict[str, dict[str, float]]] = {}
    idles: list[dict[str, float]] = []
    pool: ProcessPoolExecutor | None = None
    try:
        # this checkout's code, started as the baseline's is (its directory first on
        # PYTHONPATH): not whatever checkout the virtualenv's editable install points at
        brokers.append(Broker(PLAIN, source=REPO_ROOT))
        brokers.append(Broker(SCRAPED, source=REPO_ROOT, metrics=True))
        if checkout is not None:
            brokers.append(Broker(BASELINE, source=checkout.add()))
        for b in brokers:
            b.start(args.scrape_interval if b.name == SCRAPED else None)
            print(f"{b.name}: pid {b.pid} on {b.proc.bootstrap}", flush=True)
        pool = ProcessPoolExecutor(max_workers=len(brokers), mp_context=get_context("spawn"))
        # unmeasured: the first topics, the page cache, the allocator, the pool's processes
        measure(pool, brokers, Case(1024, 6), -1, argparse.Namespace(**{**vars(args), "seconds": 2.0}),
                f"{stamp}-warm")
        scraped = brokers[1]
        for rnd in range(args.rounds):
            probes.append(scrape_cost(scraped, args.probe_scrapes))
            idles.append(idle_cpu(brokers, args.idle_seconds))
            for i, case in enumerate(args.cases):
                got = measure(pool, brokers, case, rnd, args, f"{stamp}-r{rnd}-c{i}")
                phases.extend(got)
                for p in got:
                    print(f"round {rnd + 1}/{args.rounds} {case.label} {p.direction} {p.broker}: "
                          f"{p.mb_per_s:.1f} MB/s, {fmt(p.cpu_per_gb()['total'])} CPU s/GB"
                          + (f", {p.requests} requests, {p.cpu_s / p.requests * 1e6:.0f} us each"
                             if p.requests else "")
                          + (f" ({p.errors} errors)" if p.errors else ""), flush=True)
        if args.paired_seconds > 0:
            for i, case in enumerate(args.cases):
                paired[case.label] = got_paired = paired_scrape_cost(pool, scraped, case, args,
                                                                     f"{stamp}-p{i}")
                for direction, cell in got_paired.items():
                    print(f"paired {case.label} {direction}: {cell['cpu_per_s_off']:.3f} CPU-s/s "
                          f"without scrapes, {cell['cpu_per_s_on']:.3f} with "
                          f"{cell['scrapes_per_s']:.2f}/s: "
                          f"{cell['scrape_cpu_s'] * 1000:.1f} ms per scrape", flush=True)
    except KeyboardInterrupt as e:
        print(f"\ninterrupted ({str(e) or interrupted() or 'Ctrl-C'}); nothing was written", file=sys.stderr)
        return 130
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)
        for b in brokers:
            b.stop()
        BrokerProcess.stop_all()
        if checkout is not None:
            checkout.remove()
    names = [b.name for b in brokers]
    scrape_cpu = median([p["cpu_s"] for p in probes])
    summary = summarize(phases, scrape_cpu, args.scrape_interval, names)
    summary["scrape"]["page_bytes"] = probes[-1]["page_bytes"] if probes else None
    summary["idle_cpu_per_s"] = {n: median([i[n] for i in idles]) for n in names}
    summary["paired"] = paired_summary(paired, args.scrape_interval)
    machine = machine_info()
    machine["load_average_before"] = load_before
    machine["load_average_after"] = load_average()
    config = {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items() if k != "cases"}
    config["cases"] = [c.label for c in args.cases]
    result = {"timestamp": stamp, "machine": machine, "config": config,
              "baseline": checkout.to_json() if checkout else None, **summary,
              "probes": probes, "idles": idles, "phases": [p.to_json() for p in phases]}
    (args.out / f"bench-metrics-{stamp}.json").write_text(json.dumps(result, indent=2) + "\n")
    table = markdown(summary, names)
    (args.out / f"bench-metrics-{stamp}.md").write_text(table + "\n")
    title = (f"what metrics cost: pybroker {machine.get('pybroker_commit', '')}"
             f"{f' vs {checkout.describe} (before the metrics)' if checkout else ''}, "
             f"{args.rounds} rounds, {machine.get('cpu_count')} CPU")
    plot(summary, names, args.out / f"bench-metrics-{stamp}.png", title)
    print("\n" + table)
    print(f"\nwrote {args.out}/bench-metrics-{stamp}.json, .md and .png")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
