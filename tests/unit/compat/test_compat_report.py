"""The compatibility suite's report card (rendering, pure) and the runner's decisions before a
scenario runs (skipped, not offered, failed for want of ApiVersions)."""

from __future__ import annotations

import json
import re

import pytest

from pybroker.compat.clients import CLIENTS, Client
from pybroker.compat.report import (
    api_rows,
    cell_status,
    render_html,
    render_markdown,
    summary,
    write_report,
)
from pybroker.compat.runner import Result, plan
from pybroker.compat.scenario import Scenario


def _result(scenario: str, capability: str, status: str, message: str = "",
            **extra: object) -> dict:
    client = scenario.split("/")[0]
    return {"scenario": scenario, "capability": capability, "client": client, "status": status,
            "message": message, "seconds": 1.25, "evidence": {}, "traceback": "",
            "output": "", **extra}


def _card(reference: bool = False) -> dict:
    results = {
        "kafka-python/produce-fetch": _result("kafka-python/produce-fetch", "produce-fetch",
                                              "pass"),
        "confluent-kafka/produce-fetch": _result(
            "confluent-kafka/produce-fetch", "produce-fetch", "fail", "fetched <b>differ</b>",
            evidence={"sent": ["k1"], "fetched": []}, traceback="Traceback ...",
            output="rdkafka: log line"),
        "kafka-python/old-formats-0.9": _result("kafka-python/old-formats-0.9", "old-formats",
                                                "not offered", "not advertised: Produce v0-v2"),
        "java/transactions": _result("java/transactions", "transactions", "skipped",
                                     "java not found on PATH"),
    }
    target = {"name": "broker", "bootstrap": "127.0.0.1:9092", "seconds": 12.5,
              "probe_error": "", "results": results, "cleanup": {"topics_deleted": ["t"],
                                                                 "groups_deleted": [],
                                                                 "left": []},
              "api_versions": [{"key": 0, "name": "Produce", "min": 3, "max": 11},
                               {"key": 1, "name": "Fetch", "min": 0, "max": 17}]}
    card = {
        "run_id": "r1", "started": "2026-01-01T00:00:00Z", "seconds": 20.0,
        "reference_name": "Apache Kafka 3.9 (ZooKeeper mode)",
        "reference_api_versions": [{"key": 0, "name": "Produce", "min": 0, "max": 11},
                                   {"key": 1, "name": "Fetch", "min": 0, "max": 17},
                                   {"key": 4, "name": "LeaderAndIsr", "min": 0, "max": 7}],
        "capabilities": {c: {"meaning": f"{c} works", "needs": ["Produce v3+"]}
                         for c in ("produce-fetch", "transactions", "old-formats", "acls")},
        "clients": {c: c for c in ("kafka-python", "confluent-kafka", "java", "spark")},
        "target": target, "reference": None,
    }
    if reference:
        ref = {k: dict(v, status="pass", message="", seconds=2.0) for k, v in results.items()}
        card["reference"] = {**target, "name": "reference", "bootstrap": "127.0.0.1:19092",
                             "results": ref}
    return card


def test_a_cell_fails_when_any_of_its_scenarios_fails() -> None:
    assert cell_status(["pass", "fail"]) == "fail"
    assert cell_status(["pass", "not offered"]) == "pass"
    assert cell_status(["skipped", "not offered"]) == "skipped"
    assert cell_status(["not offered"]) == "not offered"


def test_api_rows_put_the_broker_beside_kafka_and_mark_differences() -> None:
    assert api_rows(_card()) == [
        (0, "Produce", "v3-v11", "v0-v11", True),
        (1, "Fetch", "v0-v17", "v0-v17", False),
        (4, "LeaderAndIsr", "-", "v0-v7", True),
    ]


def test_the_html_page_is_self_contained_and_shows_failures_with_their_evidence() -> None:
    page = render_html(_card(reference=True))
    assert page.startswith("<!DOCTYPE html>") and "<style>" in page
    assert not re.search(r"""(src|href)=["'](?!#)""", page), "only in-page links"
    assert "<script" not in page and "http://" not in page and "https://" not in page
    assert "fetched &lt;b&gt;differ&lt;/b&gt;" in page and "<b>differ</b>" not in page
    details = page[page.index('<details id="confluent-kafka/produce-fetch">'):]
    details = details[:details.index("</details>")]
    assert "&quot;fetched&quot;: []" in details and "Traceback" in details
    assert "rdkafka: log line" in details
    assert "on the same scenario: pass" in details
    assert 'class="fail"' in page and 'class="not-offered"' in page
    assert 'class="skipped"' in page and "java not found on PATH" in page
    assert "Kafka 3.9: pass" in page
    # the matrix has the clients and capabilities of the run only
    assert ">spark<" not in page and ">acls<" not in page


def test_markdown_has_the_matrix_the_failures_and_the_api_table() -> None:
    md = render_markdown(_card(reference=True))
    assert "| capability | kafka-python | confluent-kafka | java |" in md
    assert "| produce-fetch | ✅ | ❌ |  |" in md
    assert "| old-formats | ➖ |  |  |" in md
    assert "| transactions |  |  | ⏭ |" in md
    assert "- **confluent-kafka/produce-fetch**: fetched <b>differ</b>" in md
    assert "  - Apache Kafka 3.9 (ZooKeeper mode): pass" in md
    assert "| 0 | Produce | v3-v11 ≠ | v0-v11 |" in md


def test_summary_counts_each_status() -> None:
    assert summary(_card()).startswith(
        "broker at 127.0.0.1:9092: 1 passed, 1 failed, 1 not offered, 1 skipped in 12.5s")


def test_write_report_writes_three_files(tmp_path) -> None:
    paths = write_report(_card(), tmp_path / "card")
    assert [p.name for p in paths] == ["report.json", "report.html", "report.md"]
    assert json.loads(paths[0].read_text())["run_id"] == "r1"


def _scenario(capability: str, client: str = "wire") -> Scenario:
    return Scenario(capability=capability, client=client, name=capability, timeout=5,
                    module="m", function="f")


def test_plan_decides_skipped_not_offered_and_unanswered(monkeypatch: pytest.MonkeyPatch) -> None:
    table = {0: (3, 11), 1: (4, 17), 3: (0, 12)}
    assert plan(_scenario("produce-fetch"), table, "") is None
    r = plan(_scenario("old-formats"), table, "")
    assert isinstance(r, Result) and r.status == "not offered"
    assert r.message == "not advertised: Produce v0-v2, Fetch v0-v3"
    r = plan(_scenario("produce-fetch"), None, "connection refused")
    assert r is not None and r.status == "fail" and "connection refused" in r.message
    monkeypatch.setitem(CLIENTS, "java", Client("java", "Java", lambda: "java not found"))
    r = plan(_scenario("produce-fetch", "java"), table, "")
    assert r is not None and (r.status, r.message) == ("skipped", "java not found")
