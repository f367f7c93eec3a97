"""The pure parts of scripts/bench_metrics.py: CPU per GB of a phase with and without its
scrapes, the offered rates, the medians, ratios and capacity estimate of the summary, the
Markdown; and the CPU reading of a live process (this one)."""

from __future__ import annotations

import json
import os
import threading
import time

import pytest

from scripts.bench_metrics import (
    BASELINE,
    PLAIN,
    SCRAPED,
    Case,
    Phase,
    RequestCount,
    cpu_times,
    markdown,
    paired_summary,
    summarize,
)

NAMES = [PLAIN, SCRAPED, BASELINE]


def phase(broker: str, cpu_s: float, rnd: int = 0, scrapes: int = 0, direction: str = "produce",
          payload: int = 10**9) -> Phase:
    return Phase(broker, rnd, "1 KiB x 6p", direction, records=payload // 1024,
                 payload_bytes=payload, seconds=10.0, cpu_s=cpu_s, user_s=cpu_s * 0.5,
                 system_s=cpu_s * 0.5, scrapes=scrapes)


def test_cpu_per_gb_takes_the_scrapes_out_only_when_asked() -> None:
    p = phase(SCRAPED, 3.0, scrapes=2, payload=500_000_000)
    assert p.cpu_per_gb() == {"user": pytest.approx(3.0), "total": pytest.approx(6.0),
                              "without_scrapes": pytest.approx(6.0)}
    assert p.cpu_per_gb(0.25)["without_scrapes"] == pytest.approx((3.0 - 0.5) * 2)
    assert p.cpu_per_gb(10.0)["without_scrapes"] == 0.0  # never below nothing
    assert Phase(PLAIN, 0, "c", "produce").cpu_per_gb()["total"] is None  # nothing moved
    assert p.mb_per_s == pytest.approx(50.0)


def test_offered_rate_scales_below_one_kib() -> None:
    assert Case(1024, 6).rate_mb(40) == 40
    assert Case(4096, 1).rate_mb(40) == 40
    assert Case(100, 1).rate_mb(40) == pytest.approx(40 * 100 / 1024)
    assert Case(100, 6).label == "100 B x 6p" and Case(1024, 1).label == "1 KiB x 1p"


def test_summary_medians_ratios_and_capacity() -> None:
    phases = [phase(PLAIN, c, r) for r, c in enumerate((3.0, 3.3, 3.1))]
    phases += [phase(SCRAPED, c, r, scrapes=2) for r, c in enumerate((3.2, 3.4, 3.3))]
    phases += [phase(BASELINE, c, r) for r, c in enumerate((2.9, 3.0, 2.8))]
    phases.append(phase(BASELINE, 0.1, 3))
    phases[-1].errors = 5  # a phase with errors counts for nothing
    got = summarize(phases, scrape_cpu_s=0.05, interval=5.0, names=NAMES)
    cells = got["figures"]["1 KiB x 6p produce"]
    assert cells[PLAIN]["total"] == pytest.approx(3.1)
    assert cells[SCRAPED]["total"] == pytest.approx(3.3)
    assert cells[SCRAPED]["without_scrapes"] == pytest.approx(3.2)  # two scrapes of 0.05 s
    assert cells[BASELINE]["total"] == pytest.approx(2.9)
    row = got["ratios"]["1 KiB x 6p produce"]
    assert row["scraped/pybroker total"] == pytest.approx(3.3 / 3.1)
    assert row["scraped/baseline total"] == pytest.approx(3.3 / 2.9)
    assert got["scrape"]["core_share"] == pytest.approx(0.01)
    assert row["capacity vs pybroker"] == pytest.approx(0.99 * 3.1 / 3.2)
    assert row["capacity vs baseline"] == pytest.approx(0.99 * 2.9 / 3.2)
    table = markdown(got, NAMES)
    assert "| 1 KiB x 6p produce | 1.55 / 3.10 | 1.65 / 3.30 | 1.45 / 2.90 |" in table
    assert "50.0 ms of broker CPU" in table


def test_summary_without_a_baseline_has_no_baseline_ratios() -> None:
    phases = [phase(PLAIN, 3.0), phase(SCRAPED, 3.0)]
    row = summarize(phases, 0.0, 15.0, [PLAIN, SCRAPED])["ratios"]["1 KiB x 6p produce"]
    assert set(row) == {"scraped/pybroker user", "scraped/pybroker total", "capacity vs pybroker"}
    assert row["capacity vs pybroker"] == pytest.approx(1.0)


def test_cpu_times_counts_threads_that_ended() -> None:
    """A thread that burns CPU and ends still counts (the endpoint answers each scrape on a
    thread of its own); the run time is read far finer than the clock tick."""
    def burn() -> None:
        end = time.thread_time() + 0.3
        while time.thread_time() < end:
            pass

    before = cpu_times(os.getpid())
    t = threading.Thread(target=burn)
    t.start()
    t.join()
    after = cpu_times(os.getpid())
    assert after[2] - before[2] >= 0.25
    assert after[0] + after[1] - before[0] - before[1] >= 0.2


def test_cpu_per_request_where_the_client_counted_its_requests() -> None:
    phases = [phase(PLAIN, c, r) for r, c in enumerate((0.6, 0.5, 0.7))]
    for p, n in zip(phases, (1000, 1000, 1000), strict=True):
        p.requests = n
    phases.append(phase(SCRAPED, 0.6))  # no count: no figure
    got = summarize(phases, scrape_cpu_s=None, interval=5.0, names=[PLAIN, SCRAPED])
    cells = got["figures"]["1 KiB x 6p produce"]
    assert cells[PLAIN]["us_per_request"] == pytest.approx(600.0)
    assert "us_per_request" not in cells[SCRAPED]
    text = markdown(got, [PLAIN, SCRAPED])
    assert "| 1 KiB x 6p produce | 600 | - |" in text


def test_request_count_reads_librdkafkas_statistics() -> None:
    """Only the brokers' own entries count (``nodeid`` -1 is the bootstrap connection)."""
    count = RequestCount("Produce")
    assert count.count() == 0 and count.config["statistics.interval.ms"] > 0
    count.config["stats_cb"](json.dumps({"brokers": {
        "127.0.0.1:9092/bootstrap": {"nodeid": -1, "req": {"Produce": 7, "Metadata": 2}},
        "127.0.0.1:9092/1": {"nodeid": 1, "req": {"Produce": 40, "Fetch": 0}},
        "127.0.0.1:9093/2": {"nodeid": 2, "req": {"Produce": 2}}}}))
    assert count.count() == 42
    polls: list[float] = []
    assert count.final(lambda t: polls.append(t)) == 0  # no newer report came
    assert polls


def test_the_recordings_cost_per_request_against_the_baseline() -> None:
    """pybroker/baseline per request: the same requests, this checkout's recording against the
    commit before the metrics; in both directions (a Fetch counted like a Produce)."""
    phases = []
    for direction in ("produce", "consume"):
        for broker, cpu_s, n in ((PLAIN, 0.66, 1000), (BASELINE, 0.6, 1000), (SCRAPED, 0.7, 1000)):
            p = phase(broker, cpu_s, direction=direction)
            p.requests = n
            phases.append(p)
    got = summarize(phases, scrape_cpu_s=0.0, interval=5.0, names=NAMES)
    for key in ("1 KiB x 6p produce", "1 KiB x 6p consume"):
        assert got["ratios"][key]["pybroker/baseline per request"] == pytest.approx(1.1)
    no_baseline = summarize([p for p in phases if p.broker != BASELINE], scrape_cpu_s=0.0,
                            interval=5.0, names=[PLAIN, SCRAPED])
    assert "pybroker/baseline per request" not in no_baseline["ratios"]["1 KiB x 6p produce"]


def test_the_paired_scrape_cost_as_a_share_of_a_core_at_the_interval() -> None:
    paired = {"1 KiB x 6p": {
        "produce": {"cpu_per_s_off": 0.5, "cpu_per_s_on": 0.56, "scrapes_per_s": 1.0,
                    "scrape_cpu_s": 0.06},
        "consume": {"cpu_per_s_off": 0.4, "cpu_per_s_on": 0.39, "scrapes_per_s": 1.0,
                    "scrape_cpu_s": -0.01}}}
    got = paired_summary(paired, interval=5.0)
    assert got["1 KiB x 6p produce"]["core_share"] == pytest.approx(0.012)
    assert got["1 KiB x 6p produce"]["capacity"] == pytest.approx(0.988)
    assert got["1 KiB x 6p consume"]["capacity"] == 1.0  # noise below nothing costs nothing
    summary = summarize([phase(PLAIN, 0.6)], scrape_cpu_s=0.03, interval=5.0, names=[PLAIN])
    summary["paired"] = got
    assert "| 1 KiB x 6p produce | 0.500 | 0.560 | 1.00 | 60.0 | 1.20 % | 0.988 |" in markdown(
        summary, [PLAIN])
