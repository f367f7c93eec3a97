"""The console's charts: the counters read from a scrape, and the per-second rates between
sweeps (a manual clock and canned scrapes), and the vendored library it serves."""

from __future__ import annotations

import hashlib
from pathlib import Path

from pybroker.console import charts

VENDOR = Path(charts.__file__).parent / "static" / "vendor" / "uplot"

SCRAPE = """# TYPE kafka_server_brokertopicmetrics_messagesin_total counter
kafka_server_brokertopicmetrics_messagesin_total {all}
kafka_server_brokertopicmetrics_messagesin_total{{topic="orders"}} {orders}
# TYPE kafka_server_brokertopicmetrics_bytesin_total counter
kafka_server_brokertopicmetrics_bytesin_total {bytes}
# TYPE kafka_server_brokertopicmetrics_bytesout_total counter
kafka_server_brokertopicmetrics_bytesout_total{{topic="orders",other="x"}} 5
# TYPE process_cpu_seconds_total counter
process_cpu_seconds_total 1.5
"""


def scrape(all: float, orders: float | None, bytes: float) -> str:  # noqa: A002
    text = SCRAPE.format(all=all, orders=orders if orders is not None else 0, bytes=bytes)
    if orders is None:
        text = "\n".join(line for line in text.splitlines() if "orders\"}" not in line)
    return text


def test_parse_keeps_the_chart_counters_only() -> None:
    counts = charts.parse(scrape(10, 4, 1000))
    assert counts == {("messages_in", None): 10.0, ("messages_in", "orders"): 4.0,
                      ("bytes_in", None): 1000.0}


def test_rates_between_sweeps_per_endpoint() -> None:
    now = [100.0]
    pages = {"http://a:1/metrics": [scrape(0, None, 0), scrape(10, 10, 500),
                                    scrape(30, 20, 1500), scrape(5, 5, 100)],
             "http://b:2/metrics": [scrape(0, None, 0), "garbage {", scrape(4, 4, 40),
                                    scrape(8, 8, 80)]}

    def fetch(url: str) -> str:
        page = pages[url].pop(0)
        if page.endswith("{"):
            raise OSError("down")
        return page

    sampler = charts.Sampler({"c": tuple(pages)}, interval=2.0, clock=lambda: now[0],
                             fetch=fetch)
    for _ in range(4):
        sampler.sweep()
        now[0] += 2.0
    series = sampler.series("c", "orders")
    assert series["endpoints"] == ["a:1", "b:2"]
    assert series["times"] == [102.0, 104.0, 106.0] and series["steps"] == [2.0, 2.0, 2.0]
    # a's topic meter appears (from zero), grows, then the broker restarted (no point);
    # b failed one scrape (a gap either side of it), then grew by 4
    assert series["charts"]["messages_in"] == {"a:1": [5.0, 5.0, None],
                                               "b:2": [None, None, 2.0]}
    everything = sampler.series("c")
    assert everything["charts"]["bytes_in"]["a:1"] == [250.0, 500.0, None]
    assert everything["charts"]["bytes_out"]["a:1"] == [None, None, None]
    assert sampler.series("unknown")["times"] == []
    # the latest step, summed over the endpoints that answered both sweeps
    assert sampler.topic_rates("c") == {"orders": 2.0}


def test_the_vendored_chart_library_is_the_one_recorded() -> None:
    digests = {p.name: hashlib.sha256(p.read_bytes()).hexdigest()
               for p in VENDOR.iterdir() if p.suffix in (".js", ".css")}
    assert digests == {
        "uPlot.iife.min.js": "19c8d4c6ad88929a79f4ae49d6f7161566dfd0ba3d15cc495e974f787eb78f1f",
        "uPlot.min.css": "df630c6a8d6f8eeaff264b50f73ce5b114f646ffd9a0bb74f049b0a00135fa04"}
    assert "1.6.32" in (VENDOR / "README.md").read_text()
