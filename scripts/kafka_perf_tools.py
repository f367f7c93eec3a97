"""Apache Kafka's own load tools for the benchmarks: kafka-producer-perf-test
(``ProducerPerformance``), kafka-consumer-perf-test (``ConsumerPerformance``) and
``EndToEndLatency``, each run to completion in a JVM of its own from the jars of
scripts/kafka-tools-deps.sh, and the figures parsed from what they print.

scripts/bench_replication.py drives them; the parsers and the sizing are unit-tested in
tests/unit/scripts/test_bench_replication.py.
"""

from __future__ import annotations

import math
import re
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pybroker.testing.reference_kafka import KAFKA_JVM, LIB, TOOL_LOG4J

MB = 1_000_000  # payload bytes per second in decimal megabytes, as scripts/bench.py reports

class BenchError(RuntimeError):
    """A cluster or a tool did not do what the benchmark needs."""


# -- the Kafka tools' output ----------------------------------------------------------------

PRODUCER_SUMMARY = re.compile(
    r"^(?P<records>\d+) records sent, (?P<rate>[\d.]+) records/sec \([\d.]+ MB/sec\), "
    r"(?P<avg>[\d.]+) ms avg latency, (?P<max>[\d.]+) ms max latency, (?P<p50>\d+) ms 50th, "
    r"(?P<p95>\d+) ms 95th, (?P<p99>\d+) ms 99th, (?P<p999>\d+) ms 99\.9th\.$"
)
E2E_AVERAGE = re.compile(r"^Avg latency: (?P<avg>[\d.]+) ms$")
E2E_PERCENTILES = re.compile(
    r"^Percentiles: 50th = (?P<p50>\d+), 99th = (?P<p99>\d+), 99\.9th = (?P<p999>\d+)$")


def parse_producer_perf(stdout: str, record_size: int) -> dict[str, float]:
    """kafka-producer-perf-test's final summary (the progress lines before it lack the
    percentiles). Throughput is recomputed in decimal MB/s from records/s and the record size:
    the tool's own MB/sec are binary."""
    for line in reversed(stdout.splitlines()):
        m = PRODUCER_SUMMARY.match(line.strip())
        if m:
            rate = float(m["rate"])
            return {"records": int(m["records"]), "msgs_per_s": rate,
                    "mb_per_s": round(rate * record_size / MB, 3),
                    "latency_avg_ms": float(m["avg"]), "latency_max_ms": float(m["max"]),
                    "latency_p50_ms": int(m["p50"]), "latency_p95_ms": int(m["p95"]),
                    "latency_p99_ms": int(m["p99"]), "latency_p999_ms": int(m["p999"])}
    raise BenchError("kafka-producer-perf-test printed no final summary")


def parse_consumer_perf(stdout: str, record_size: int) -> dict[str, float]:
    """kafka-consumer-perf-test's CSV: the header and the row after it. The headline rate is the
    fetch rate (``fetch.nMsg.sec``), which leaves out the time spent joining the group;
    ``nMsg.sec`` includes it."""
    lines = [line for line in stdout.splitlines() if line.strip()]
    for i, line in enumerate(lines[:-1]):
        header = [c.strip() for c in line.split(",")]
        if "fetch.nMsg.sec" not in header:
            continue
        values = [v.strip() for v in lines[i + 1].split(",")]
        if len(values) != len(header):
            break
        row = dict(zip(header, values, strict=True))
        fetch_rate = float(row["fetch.nMsg.sec"])
        return {"records": int(row["data.consumed.in.nMsg"]), "msgs_per_s": fetch_rate,
                "mb_per_s": round(fetch_rate * record_size / MB, 3),
                "total_msgs_per_s": float(row["nMsg.sec"]),
                "rebalance_ms": float(row["rebalance.time.ms"]),
                "fetch_ms": float(row["fetch.time.ms"])}
    raise BenchError("kafka-consumer-perf-test printed no result row")


def parse_end_to_end(stdout: str) -> dict[str, float]:
    """EndToEndLatency's average (4 decimals) and percentiles (whole milliseconds: the tool
    truncates each sample to a millisecond)."""
    out: dict[str, float] = {}
    for line in stdout.splitlines():
        line = line.strip()
        if m := E2E_AVERAGE.match(line):
            out["avg_ms"] = float(m["avg"])
        elif m := E2E_PERCENTILES.match(line):
            out.update(p50_ms=int(m["p50"]), p99_ms=int(m["p99"]), p999_ms=int(m["p999"]))
    if len(out) != 4:
        raise BenchError("EndToEndLatency printed no average and percentiles")
    return out


@dataclass
class RateGuide:
    """The last rate kafka-producer-perf-test reached on this cluster, and confluent-kafka's on
    the same case: what the next perf test is sized by."""

    perf_msgs_per_s: float | None = None
    confluent_msgs_per_s: float | None = None

    def expect(self, confluent_now: float | None) -> float | None:
        """The perf test's rate to expect on a case where confluent-kafka just reached
        ``confluent_now``: its last rate, scaled by how confluent-kafka's rate changed between
        that case and this one (unscaled when either confluent rate is missing); without a
        last rate, ``confluent_now`` itself; None when there is nothing to go by."""
        if not self.perf_msgs_per_s:
            return confluent_now or None
        if self.confluent_msgs_per_s and confluent_now:
            return self.perf_msgs_per_s * confluent_now / self.confluent_msgs_per_s
        return self.perf_msgs_per_s


def perf_records(msgs_per_s: float | None, seconds: float, cap: int, floor: int = 1000) -> int:
    """How many records kafka-producer-perf-test sends: about ``seconds`` worth at the rate it
    is expected to reach (the tool has no time limit of its own), at most ``cap``, at least
    ``floor``; ``cap`` when there is no rate to go by."""
    if not msgs_per_s or msgs_per_s <= 0:
        return cap
    return max(min(floor, cap), min(cap, math.ceil(msgs_per_s * seconds)))


# -- the Kafka tools ------------------------------------------------------------------------

#: what kafka-run-class.sh starts a tool with (kafka-*-perf-test.sh set -Xmx512M); no
#: hsperfdata file; reload4j warnings to stderr, stdout left to the tool; numbers in the locale
#: the parsers expect
TOOL_JVM = ("-Xmx512M", *KAFKA_JVM, "-XX:MaxInlineLevel=15", "-XX:-UsePerfData",
            "-Duser.language=en", "-Duser.country=US")
MAIN_CLASSES = {
    "kafka-producer-perf-test": "org.apache.kafka.tools.ProducerPerformance",
    "kafka-consumer-perf-test": "org.apache.kafka.tools.ConsumerPerformance",
    "EndToEndLatency": "org.apache.kafka.tools.EndToEndLatency",
}


@dataclass
class KafkaTools:
    """Kafka's load tools, each run to completion in a JVM of its own (killed on timeout)."""

    work_dir: Path
    lib: Path = LIB

    def run(self, tool: str, args: Sequence[str], timeout: float) -> str:
        """The tool's stdout; BenchError when it fails or outlives ``timeout`` seconds."""
        log4j = self.work_dir / "tools-log4j.properties"
        if not log4j.exists():
            self.work_dir.mkdir(parents=True, exist_ok=True)
            log4j.write_text(TOOL_LOG4J)
        cmd = [shutil.which("java") or "java", *TOOL_JVM,
               f"-Dlog4j.configuration={log4j.as_uri()}", "-cp", f"{self.lib}/*",
               MAIN_CLASSES[tool], *args]
        try:
            done = subprocess.run(cmd, capture_output=True, text=True, errors="replace",
                                  timeout=timeout, cwd=self.work_dir)
        except subprocess.TimeoutExpired as e:
            raise BenchError(f"{tool} did not finish within {timeout:.0f}s: "
                             f"{tail(e.stderr)}") from e
        if done.returncode != 0:
            raise BenchError(f"{tool} exited with {done.returncode}: {tail(done.stderr)} "
                             f"{tail(done.stdout)}")
        return done.stdout


def tail(text: str | bytes | None, lines: int = 15) -> str:
    if isinstance(text, bytes):
        text = text.decode(errors="replace")
    return "\n".join((text or "").splitlines()[-lines:])
