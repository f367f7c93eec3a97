"""The console's message browser and its test producer, against the three-broker pybroker
cluster and the reference Apache Kafka 3.9: what it shows is what a consumer of
confluent-kafka reads from the same partition, in the order and from the position asked."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from pybroker.testing.console_process import ConsoleProcess
from tests.console.helpers import (
    click,
    create_topic,
    load,
    replication,
    rows,
    submit,
    unique,
)

pytestmark = pytest.mark.compat


def produce_records(bootstrap: str, topic: str, count: int, *, start_ms: int) -> None:
    """Records 0..count-1 on partition 0: JSON values, keys, one header, timestamps one
    second apart from ``start_ms``."""
    producer = Producer({"bootstrap.servers": bootstrap, "acks": "all"})
    for i in range(count):
        producer.produce(topic, partition=0, key=f"key-{i}",
                         value=json.dumps({"n": i, "word": "even" if i % 2 == 0 else "odd"}),
                         headers=[("source", f"test-{i}".encode())],
                         timestamp=start_ms + i * 1000)
    assert producer.flush(30) == 0


def read_back(bootstrap: str, topic: str, partition: int, offset: int) -> Any:
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": unique("check"),
                         "enable.auto.commit": False})
    try:
        consumer.assign([TopicPartition(topic, partition, offset)])
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            m = consumer.poll(1)
            if m is not None and m.error() is None:
                return m
        raise AssertionError(f"nothing at {topic}-{partition}@{offset}")
    finally:
        consumer.close()


def browse(console: ConsoleProcess, target: str, topic: str, **args: Any) -> dict[str, Any]:
    query = "&".join(f"{k}={v}" for k, v in args.items())
    return console.get_json(f"/api/clusters/{target}/topics/{topic}/messages?{query}")


def offsets(found: dict[str, Any]) -> list[int]:
    return [m["offset"] for m in found["messages"]]


def test_browse_newest_and_oldest_first_from_an_offset_or_a_timestamp(
        console: ConsoleProcess, admin: AdminClient, bootstrap: str, target: str) -> None:
    topic = unique("browsed")
    create_topic(admin, topic, 2, replication(target))
    start_ms = (int(time.time()) - 3600) * 1000
    produce_records(bootstrap, topic, 30, start_ms=start_ms)

    newest = browse(console, target, topic, limit=5)
    assert (newest["start_offset"], newest["end_offset"]) == (0, 30)
    assert offsets(newest) == [29, 28, 27, 26, 25]
    top = newest["messages"][0]
    assert top["key"] == {"shown": "key-29", "as": "text", "bytes": 6}
    assert json.loads(top["value"]["shown"]) == {"n": 29, "word": "odd"}
    assert top["headers"] == [{"key": "source", "value": "test-29"}]
    assert (top["timestamp"], top["timestamp_type"]) == (start_ms + 29_000, "CreateTime")
    # what a consumer reads at that offset
    m = read_back(bootstrap, topic, 0, 29)
    assert (m.key().decode(), m.value().decode()) == ("key-29", top["value"]["shown"])

    assert offsets(browse(console, target, topic, order="oldest", limit=4)) == [0, 1, 2, 3]
    assert offsets(browse(console, target, topic, order="oldest", offset=10, limit=3)) == [
        10, 11, 12]
    # newest first from an offset: that record and the ones before it
    assert offsets(browse(console, target, topic, offset=10, limit=3)) == [10, 9, 8]
    # from a timestamp: the first record at or after it, onwards; or the ones before it
    at_12 = start_ms + 12_000
    assert offsets(browse(console, target, topic, order="oldest", timestamp=at_12 - 500,
                          limit=2)) == [12, 13]
    assert offsets(browse(console, target, topic, timestamp=at_12, limit=2)) == [11, 10]
    # past the end: nothing; an empty partition: nothing
    assert offsets(browse(console, target, topic, order="oldest", offset=30)) == []
    assert offsets(browse(console, target, topic, partition=1)) == []

    # a filter on key, value or header; the JSON pretty-printed; or hex
    even = browse(console, target, topic, q="even", limit=100)
    assert offsets(even) == list(range(28, -1, -2))
    assert browse(console, target, topic, q="test-7", limit=100)["messages"][0]["offset"] == 7
    pretty = browse(console, target, topic, offset=3, limit=1, format="json")["messages"][0]
    assert pretty["value"]["shown"] == '{\n  "n": 3,\n  "word": "odd"\n}'
    raw = browse(console, target, topic, offset=3, limit=1, format="hex")["messages"][0]
    assert bytes.fromhex(raw["value"]["shown"]) == json.dumps({"n": 3, "word": "odd"}).encode()

    # Kafka's error for a partition the topic lacks; a bad argument is the request's fault
    status, _, body = console.request(
        f"/api/clusters/{target}/topics/{topic}/messages?partition=7")
    assert status == 404 and json.loads(body)["error"] == "UNKNOWN_TOPIC_OR_PARTITION"
    assert console.request(
        f"/api/clusters/{target}/topics/{topic}/messages?order=sideways")[0] == 400


def test_the_messages_page_and_a_test_message_produced_in_the_browser(
        console: ConsoleProcess, admin: AdminClient, bootstrap: str, target: str,
        browser: Any, screenshots: Path) -> None:
    topic = unique("typed")
    create_topic(admin, topic, 1, replication(target))
    produce_records(bootstrap, topic, 3, start_ms=int(time.time() * 1000))

    load(browser, console, f"/clusters/{target}/topics/{topic}")
    click(browser, browser.find_element(By.ID, "messages-link"))
    assert [r[0] for r in rows(browser, "messages")] == ["2", "1", "0"]

    submit(browser, "produce", {"partition": "0", "key": "typed-key",
                                "value": '{"typed": true}', "headers": "trace=abc\nteam=ops"})
    # the page it lands on shows the record at the top, where a consumer finds it
    [first, *_] = rows(browser, "messages")
    assert first[0] == "3" and first[2] == "typed-key"
    assert first[3].startswith('{"typed": true}')
    assert "trace: abc" in first[4] and "team: ops" in first[4]
    m = read_back(bootstrap, topic, 0, 3)
    assert (m.key(), m.value()) == (b"typed-key", b'{"typed": true}')
    assert m.headers() == [("trace", b"abc"), ("team", b"ops")]

    # the browse form: oldest first, as JSON, filtered
    load(browser, console, f"/clusters/{target}/topics/{topic}/messages")
    for name, value in (("order", "oldest"), ("format", "json")):
        Select(browser.find_element(By.CSS_SELECTOR, f"#browse [name={name}]")
               ).select_by_value(value)
    browser.find_element(By.CSS_SELECTOR, "#browse [name=q]").send_keys("typed")
    click(browser, browser.find_element(By.CSS_SELECTOR, "#browse button"))
    shown = rows(browser, "messages")
    assert [r[0] for r in shown] == ["3"]
    assert shown[0][3].startswith('{\n  "typed": true\n}')
    browser.save_screenshot(str(screenshots / f"messages-{target}.png"))
