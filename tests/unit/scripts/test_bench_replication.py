"""The pure parts of scripts/bench_replication.py: reading the Kafka tools' output, sizing the
perf test, the medians and ratios of the summary, the goals' verdicts and the Markdown table;
no process runs. The page cache probe writes a few megabytes to a temporary directory."""

from __future__ import annotations

import pytest

from scripts.bench_replication import (
    CASES,
    FIGURES,
    ClusterRun,
    judge,
    markdown_table,
    page_cache_probe,
    summarize,
)
from scripts.kafka_perf_tools import (
    BenchError,
    RateGuide,
    parse_consumer_perf,
    parse_end_to_end,
    parse_producer_perf,
    perf_records,
)

# what the Kafka 3.9.1 tools print (a progress line, then the summary)
PRODUCER_OUT = """\
81937 records sent, 16384.1 records/sec (16.00 MB/sec), 1017.6 ms avg latency, 1812.0 ms max latency.
100000 records sent, 17636.684303 records/sec (17.22 MB/sec), 1010.31 ms avg latency, 1850.00 ms max latency, 1011 ms 50th, 1700 ms 95th, 1820 ms 99th, 1845 ms 99.9th.
"""
CONSUMER_OUT = """\
start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec
2024-11-24 16:24:12:301, 2024-11-24 16:24:13:652, 29.2969, 21.6853, 30000, 22205.7735, 302, 1049, 27.9284, 28598.6654
"""
E2E_OUT = """\
0\t34.012
1000\t1.201
Avg latency: 2.9412 ms
Percentiles: 50th = 2, 99th = 9, 99.9th = 52
"""


def test_producer_summary_is_the_last_line_in_decimal_megabytes() -> None:
    got = parse_producer_perf(PRODUCER_OUT, 1024)
    assert got["records"] == 100000
    assert got["msgs_per_s"] == pytest.approx(17636.684303)
    assert got["mb_per_s"] == pytest.approx(17636.684303 * 1024 / 1e6, abs=1e-3)
    assert (got["latency_p50_ms"], got["latency_p99_ms"], got["latency_p999_ms"]) == (
        1011, 1820, 1845)
    with pytest.raises(BenchError):
        parse_producer_perf(PRODUCER_OUT.splitlines()[0], 1024)  # progress only


def test_consumer_rate_is_the_fetch_rate() -> None:
    got = parse_consumer_perf("some warning\n" + CONSUMER_OUT, 1024)
    assert got["records"] == 30000
    assert got["msgs_per_s"] == pytest.approx(28598.6654)
    assert got["total_msgs_per_s"] == pytest.approx(22205.7735)
    assert got["rebalance_ms"] == 302
    assert got["mb_per_s"] == pytest.approx(28598.6654 * 1024 / 1e6, abs=1e-3)
    with pytest.raises(BenchError):
        parse_consumer_perf(CONSUMER_OUT.splitlines()[0], 1024)  # a header without its row


def test_end_to_end_needs_average_and_percentiles() -> None:
    assert parse_end_to_end(E2E_OUT) == {"avg_ms": 2.9412, "p50_ms": 2, "p99_ms": 9,
                                         "p999_ms": 52}
    with pytest.raises(BenchError):
        parse_end_to_end("Avg latency: 2.9412 ms\n")


def test_perf_records_follow_the_measured_rate_within_bounds() -> None:
    assert perf_records(50_000.0, 10.0, 1_000_000) == 500_000
    assert perf_records(500_000.0, 10.0, 1_000_000) == 1_000_000  # capped
    assert perf_records(10.0, 10.0, 1_000_000) == 1000  # the floor
    assert perf_records(10.0, 10.0, 500) == 500  # the floor never exceeds the cap
    assert perf_records(None, 10.0, 1_000_000) == 1_000_000  # no rate: the cap
    assert perf_records(0.0, 10.0, 20_000) == 20_000


def test_the_perf_test_rate_is_expected_from_its_last_run_scaled_by_confluent_kafka() -> None:
    assert RateGuide().expect(None) is None
    assert RateGuide().expect(90_000.0) == 90_000.0  # no perf run yet: confluent-kafka's rate
    guide = RateGuide(perf_msgs_per_s=20_000.0, confluent_msgs_per_s=100_000.0)
    assert guide.expect(50_000.0) == 10_000.0  # this case is half as fast for confluent-kafka
    assert guide.expect(None) == 20_000.0  # confluent-kafka not run on this case
    assert RateGuide(perf_msgs_per_s=20_000.0).expect(50_000.0) == 20_000.0


def run(broker: str, rnd: int, **cases: dict[str, float]) -> ClusterRun:
    return ClusterRun(broker, rnd, figures=dict(cases))


def test_summary_takes_medians_and_ratios_over_what_was_measured() -> None:
    runs = [
        run("pybroker", 0, **{"rf1-acks1": {"produce_confluent_mb_s": 100.0, "e2e_p99_ms": 8},
                             "rf3-acksall": {"produce_confluent_mb_s": 40.0}}),
        run("pybroker", 1, **{"rf1-acks1": {"produce_confluent_mb_s": 120.0, "e2e_p99_ms": 10},
                             "rf3-acksall": {"produce_confluent_mb_s": 60.0}}),
        run("kafka", 0, **{"rf1-acks1": {"produce_confluent_mb_s": 80.0, "e2e_p99_ms": 20},
                          "rf3-acksall": {"produce_confluent_mb_s": 25.0}}),
    ]
    summary = summarize(runs, ["pybroker", "kafka"], ["rf1-acks1", "rf3-acksall"])
    assert set(summary["rf1-acks1"]) == {key for key, *_ in FIGURES}
    base = summary["rf1-acks1"]["produce_confluent_mb_s"]
    assert base == {"pybroker": 110.0, "kafka": 80.0, "ratio": 1.375}
    assert summary["rf1-acks1"]["e2e_p99_ms"] == {"pybroker": 9.0, "kafka": 20.0, "ratio": 0.45}
    assert summary["rf3-acksall"]["produce_perf_mb_s"] == {"pybroker": None, "kafka": None,
                                                           "ratio": None}
    only = summarize(runs[:1], ["pybroker"], ["rf1-acks1"])
    assert "ratio" not in only["rf1-acks1"]["produce_confluent_mb_s"]


def test_goals_are_judged_never_asserted() -> None:
    runs = [
        run("pybroker", 0, **{"rf1-acks1": {"produce_confluent_mb_s": 100.0,
                                            "produce_perf_mb_s": 50.0},
                             "rf3-acksall": {"produce_confluent_mb_s": 40.0,
                                             "produce_perf_mb_s": 30.0}}),
        run("kafka", 0, **{"rf1-acks1": {"produce_confluent_mb_s": 80.0},
                          "rf3-acksall": {"produce_confluent_mb_s": 30.0}}),
    ]
    names = ["pybroker", "kafka"]
    goals = judge(summarize(runs, names, [c.name for c in CASES]))
    by = {(g["goal"].split(" / ")[1], g["figure"]): g for g in goals}
    assert by["pybroker RF1", "produce_confluent_mb_s"]["verdict"] == "not met"  # 0.4
    assert by["pybroker RF1", "produce_confluent_mb_s"]["value"] == 0.4
    assert by["pybroker RF1", "produce_perf_mb_s"]["verdict"] == "met"  # 0.6
    kafka = by["Kafka RF3 acks=all", "produce_confluent_mb_s"]
    assert (kafka["value"], kafka["verdict"]) == (1.333, "met")
    assert by["Kafka RF3 acks=all", "produce_perf_mb_s"]["verdict"] == "n/a"  # Kafka not run
    assert by["Kafka RF1 (reference)", "produce_confluent_mb_s"]["verdict"] == "reference"

    table = markdown_table(summarize(runs, names, ["rf1-acks1", "rf3-acksall"]), names, goals)
    assert "| RF 1, acks=1 | produce, confluent-kafka (MB/s) | 100.0 | 80.0 | 1.25 |" in table
    assert "| pybroker RF3 acks=all / pybroker RF1 | confluent-kafka | 0.40 | >= 0.5 | not met |" \
        in table
    assert "end-to-end" not in table  # no latency figure was measured: no empty rows


def test_page_cache_probe_reports_both_writes_and_leaves_nothing(tmp_path) -> None:
    probe = page_cache_probe(tmp_path, megabytes=4)
    assert probe["megabytes"] == 4
    for label in ("new_pages", "cached_pages"):
        assert probe[f"{label}_mb_per_s"] > 0
        assert probe[f"{label}_sys_ms_per_mb"] >= 0
    assert list(tmp_path.iterdir()) == []
