"""How fast the console's pages load with 1,000 partitions in the cluster: measured in the
browser (Navigation Timing's loadEventEnd) and written to the test report, never asserted on
(speed belongs in benchmarks); what is asserted is that the lists stay paged, so no page
carries every partition of every topic. The measured figures are printed in the summary of
the test run, under "console page loads with 1,000 partitions"."""

from __future__ import annotations

import time
from typing import Any

import pytest
from confluent_kafka.admin import AdminClient
from selenium.webdriver.common.by import By

from pybroker.testing.console_process import ConsoleProcess
from tests.console.conftest import PAGE_LOADS
from tests.console.helpers import create_topic, load, replication, rows, unique

pytestmark = pytest.mark.compat

PARTITIONS = 1000
#: 1,000 partitions: topics of 500 and 400, and ten of 10
LAYOUT = [500, 400] + [10] * 10


def test_pages_with_a_thousand_partitions(console: ConsoleProcess, bootstraps: dict[str, str],
                                          browser: Any) -> None:
    """On the three pybroker brokers at replication factor 3 (the reference Kafka is left
    out to keep the suite short: what is measured is the console)."""
    target = "pybroker"
    admin = AdminClient({"bootstrap.servers": bootstraps[target]})
    prefix = unique("wide")
    names = [f"{prefix}-{i:02d}" for i in range(len(LAYOUT))]
    assert sum(LAYOUT) == PARTITIONS
    started = time.monotonic()
    for name, count in zip(names, LAYOUT, strict=True):
        create_topic(admin, name, count, replication(target))
    created = time.monotonic() - started
    try:
        pages = {
            "overview": f"/clusters/{target}",
            "topics (first page of 50)": f"/clusters/{target}/topics",
            "topics sorted by size": f"/clusters/{target}/topics?sort=-size",
            "topic of 500 partitions": f"/clusters/{target}/topics/{names[0]}",
            "consumer groups": f"/clusters/{target}/groups",
            "messages": f"/clusters/{target}/topics/{names[2]}/messages",
        }
        for what, path in pages.items():
            load(browser, console, path)  # once to warm the console's clients
            PAGE_LOADS.append((target, what, load(browser, console, path)))
        load(browser, console, f"/clusters/{target}/topics?q={prefix}&size=10")
        assert len(rows(browser, "topics")) == 10  # a page, not all 12
        assert browser.find_element(By.ID, "paging-summary").text == "1-10 of 12"
        load(browser, console, f"/clusters/{target}/topics/{names[0]}")
        assert len(browser.find_elements(By.CSS_SELECTOR, "#partitions tbody tr")) == 500
        overview = console.get_json(f"/api/clusters/{target}")
        assert overview["partitions"] >= PARTITIONS
        PAGE_LOADS.append((target, f"(the {PARTITIONS} partitions' creation)", created))
    finally:
        admin.delete_topics(names)
