"""The console's throughput charts, from the brokers' Prometheus endpoints: pybroker's own and
the reference Kafka 3.9's (its JMX exporter agent, when kafka-tools-deps fetched it). The
messages a producer sends to a topic are the messages the topic's chart counts, and the page
draws the charts in the browser."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from pybroker.testing.console_process import ConsoleProcess
from tests.console.helpers import create_topic, load, produce, replication, unique

pytestmark = pytest.mark.compat


def keep_producing(bootstrap: str, topic: str, stop: threading.Event) -> None:
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 0})
    while not stop.is_set():
        producer.produce(topic, value=b"steady")
        producer.poll(0)
        time.sleep(0.02)
    producer.flush(30)


def counted(series: dict[str, Any], meter: str) -> float:
    """What a chart's lines add up to: each rate times its step, over every endpoint."""
    return sum(rate * step for line in series["charts"][meter].values()
               for rate, step in zip(line, series["steps"], strict=True) if rate is not None)


def test_a_topics_charts_count_what_was_produced(
        console: ConsoleProcess, admin: AdminClient, bootstrap: str, target: str,
        browser: Any, screenshots: Path) -> None:
    clusters = {c["name"]: c for c in console.get_json("/api/clusters")}
    if not clusters[target]["metrics"]:
        pytest.skip(f"SKIPPED: {target} serves no metrics here (the reference Kafka's JMX "
                    "exporter agent is missing: make kafka-tools-deps fetches it)")
    topic = unique("charted")
    create_topic(admin, topic, 2, replication(target))
    time.sleep(2.5)  # two sweeps before the records: the count starts from a known point
    produce(bootstrap, topic, 120)

    deadline = time.monotonic() + 45
    series: dict[str, Any] = {}
    while time.monotonic() < deadline:
        series = console.get_json(f"/api/clusters/{target}/topics/{topic}/charts")
        if round(counted(series, "messages_in")) >= 120:
            break
        time.sleep(1)
    assert round(counted(series, "messages_in")) == 120, series
    assert counted(series, "bytes_in") > 120 * len("value 0")
    everything = console.get_json(f"/api/clusters/{target}/charts")
    assert len(everything["endpoints"]) == len(clusters[target]["metrics"])
    assert counted(everything, "messages_in") >= 120

    # the topics list's messages in per second, while a producer keeps writing
    stop = threading.Event()
    writer = threading.Thread(target=keep_producing, args=(bootstrap, topic, stop))
    writer.start()
    try:
        deadline, rate = time.monotonic() + 30, 0.0
        while time.monotonic() < deadline and not rate:
            [row] = console.get_json(f"/api/clusters/{target}/topics?q={topic}")
            rate = row["messages_in_per_sec"]
            time.sleep(0.5)
        assert rate > 0, row
    finally:
        stop.set()
        writer.join()

    load(browser, console, f"/clusters/{target}/topics/{topic}")
    WebDriverWait(browser, 30).until(lambda b: b.find_element(
        By.ID, "charts").get_attribute("data-loaded") == "true")
    charts = browser.find_elements(By.CSS_SELECTOR, "#charts .chart")
    assert [c.get_attribute("data-meter") for c in charts] == [
        "bytes_in", "bytes_out", "messages_in"]
    for chart in charts:
        assert chart.find_elements(By.TAG_NAME, "canvas"), chart.get_attribute("outerHTML")
        legend = chart.find_element(By.CLASS_NAME, "u-legend").text
        assert all(endpoint in legend for endpoint in everything["endpoints"]), legend
    browser.save_screenshot(str(screenshots / f"charts-{target}.png"))


def test_no_endpoints_no_charts(bootstraps: dict[str, str], tmp_path: Path,
                                browser: Any) -> None:
    with ConsoleProcess(tmp_path, {"kafka": bootstraps["kafka"]}) as plain:
        load(browser, plain, "/clusters/kafka")
        assert "No metrics endpoints" in browser.find_element(By.ID, "no-charts").text
        assert plain.get_json("/api/clusters/kafka/charts")["times"] == []
