"""What the console's browser tests do again and again: make topics, records and commits with
confluent-kafka, and load, fill in, click and confirm pages in the browser."""

from __future__ import annotations

import time
import uuid
from typing import Any

from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic
from selenium.webdriver.common.by import By

from pybroker.testing.console_process import ConsoleProcess


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def replication(target: str) -> int:
    return 3 if target == "pybroker" else 1


def create_topic(admin: AdminClient, topic: str, partitions: int, rf: int) -> None:
    admin.create_topics([NewTopic(topic, partitions, rf)])[topic].result(30)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:  # every partition has a leader
        meta = admin.list_topics(topic, timeout=10).topics[topic]
        if meta.error is None and len(meta.partitions) == partitions and all(
                p.leader >= 0 for p in meta.partitions.values()):
            return
        time.sleep(0.2)
    raise AssertionError(f"{topic} has no leaders after 30 s")


def produce(bootstrap: str, topic: str, count: int, partition: int | None = None) -> None:
    producer = Producer({"bootstrap.servers": bootstrap, "acks": "all"})
    for i in range(count):
        if partition is None:
            producer.produce(topic, key=f"k{i}", value=f"value {i}")
        else:
            producer.produce(topic, key=f"k{i}", value=f"value {i}", partition=partition)
    assert producer.flush(30) == 0


def commit(bootstrap: str, group: str, offsets: dict[tuple[str, int], int]) -> None:
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": group,
                         "enable.auto.commit": False})
    try:
        consumer.commit(offsets=[TopicPartition(t, p, o) for (t, p), o in offsets.items()],
                        asynchronous=False)
    finally:
        consumer.close()


def rows(browser: Any, table: str) -> list[list[str]]:
    return [[td.text for td in tr.find_elements(By.TAG_NAME, "td")]
            for tr in browser.find_elements(By.CSS_SELECTOR, f"#{table} tbody tr")]


def load(browser: Any, console: ConsoleProcess, path: str) -> float:
    """Open a page; the seconds until it was loaded (Navigation Timing's loadEventEnd)."""
    browser.get(console.url + path)
    # a page's title is its name and the console's, nothing of its body
    assert browser.title.endswith("pybroker console") and "<" not in browser.title, \
        browser.title
    timing = browser.execute_script(
        "const t = performance.getEntriesByType('navigation')[0];"
        "return t.loadEventEnd - t.startTime;")
    return float(timing) / 1000.0


def submit(browser: Any, form: str, fields: dict[str, str]) -> None:
    """Fill a form, submit it, and confirm on the page that says what it will do."""
    send(browser, form, fields)
    confirm(browser)


def send(browser: Any, form: str, fields: dict[str, str]) -> None:
    """Fill a form and submit it."""
    for name, value in fields.items():
        element = browser.find_element(By.CSS_SELECTOR, f"#{form} [name={name}]")
        if element.tag_name == "select":
            from selenium.webdriver.support.ui import Select

            Select(element).select_by_value(value)
        else:
            element.clear()
            element.send_keys(value)
    click(browser, browser.find_element(By.CSS_SELECTOR, f"#{form} button[type=submit]"))


def click(browser: Any, element: Any) -> None:
    """Click something that loads another page, and wait until it has (Selenium's click
    returns once the click is sent)."""
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.support.ui import WebDriverWait

    browser.execute_script("window.consoleTestOldPage = true;")
    element.click()
    WebDriverWait(browser, 60, ignored_exceptions=(WebDriverException,)).until(
        lambda b: b.execute_script(
            "return window.consoleTestOldPage === undefined"
            " && document.readyState === 'complete';"))


def confirm(browser: Any) -> None:
    """Click Confirm on the page that says what an action will do."""
    found = browser.find_elements(By.ID, "confirm")
    assert found, f"no confirmation page at {browser.current_url}:\n" + browser.find_element(
        By.TAG_NAME, "main").text
    click(browser, found[0])
