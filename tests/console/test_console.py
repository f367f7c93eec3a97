"""``pybroker console`` against a three-broker pybroker cluster and the reference Apache Kafka
3.9, shown by one console process at once: what its JSON API and its pages (loaded in a real
headless Chromium) show is what the admin API says, and the actions clicked in the browser do
what Kafka's own CLI tools then report."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka.admin import AdminClient
from selenium.webdriver.common.by import By

from pybroker.compat.jvm_clients import KafkaCli
from pybroker.testing.console_process import ConsoleProcess
from tests.console.helpers import (
    click,
    commit,
    confirm,
    create_topic,
    load,
    produce,
    replication,
    rows,
    submit,
    unique,
)

pytestmark = pytest.mark.compat


# -- what the console shows ------------------------------------------------------------------


def test_the_clusters_page_and_api_list_both_clusters_without_secrets(
        console: ConsoleProcess, bootstraps: dict[str, str], browser: Any) -> None:
    clusters = console.get_json("/api/clusters")
    assert [c["name"] for c in clusters] == ["pybroker", "kafka"]
    assert {c["name"]: c["bootstrap"] for c in clusters} == bootstraps

    load(browser, console, "/")  # (redirected to /clusters)
    assert browser.current_url == console.url + "/clusters"
    shown = rows(browser, "clusters")
    assert [(r[0], r[1]) for r in shown] == [(c["name"], c["bootstrap"]) for c in clusters]
    metrics = {c["name"]: len(c["metrics"]) for c in clusters}
    assert [r[3] for r in shown] == [f"{metrics[r[0]]} endpoint(s)" for r in shown]
    click(browser, browser.find_element(By.LINK_TEXT, "kafka"))
    assert browser.current_url == console.url + "/clusters/kafka"


def test_the_overview_shows_the_brokers_and_the_controller(
        console: ConsoleProcess, admin: AdminClient, target: str, browser: Any,
        screenshots: Path) -> None:
    described = admin.describe_cluster().result(30)
    overview = console.get_json(f"/api/clusters/{target}")
    assert overview["cluster_id"] == described.cluster_id
    assert overview["controller"] == described.controller.id
    assert [(b["id"], b["host"], b["port"]) for b in overview["brokers"]] == sorted(
        (n.id, n.host, n.port) for n in described.nodes)
    metadata = admin.list_topics(timeout=10)
    assert overview["topics"] == len(metadata.topics)
    assert overview["partitions"] == sum(len(t.partitions) for t in metadata.topics.values())
    assert sum(b["leaders"] for b in overview["brokers"]) == overview["partitions"]
    assert overview["offline"] == 0

    load(browser, console, f"/clusters/{target}")
    shown = rows(browser, "brokers")
    assert [int(r[0]) for r in shown] == [b["id"] for b in overview["brokers"]]
    marked = [int(r[0]) for r in shown if r[4] == "controller"]
    assert marked == [described.controller.id]
    assert browser.find_element(By.ID, "count-brokers").text == str(len(described.nodes))
    browser.save_screenshot(str(screenshots / f"overview-{target}.png"))


def test_topics_and_a_topic_page_show_what_the_admin_api_says(
        console: ConsoleProcess, admin: AdminClient, bootstrap: str, target: str,
        browser: Any, screenshots: Path) -> None:
    topic = unique("shown")
    create_topic(admin, topic, 3, replication(target))
    for p, count in enumerate((5, 7, 0)):
        if count:
            produce(bootstrap, topic, count, partition=p)

    status, headers, body = console.request(f"/api/clusters/{target}/topics?q={topic}")
    assert status == 200 and headers["x-total-count"] == "1"
    [row] = json.loads(body)
    assert row["name"] == topic and row["partitions"] == 3
    assert row["replication_factor"] == replication(target)
    assert row["messages"] == 12 and row["size"] > 0 and not row["internal"]

    detail = console.get_json(f"/api/clusters/{target}/topics/{topic}")
    meta = admin.list_topics(topic, timeout=10).topics[topic]
    for p in detail["partitions"]:
        m = meta.partitions[p["partition"]]
        assert (p["leader"], p["replicas"], sorted(p["isr"])) == (
            m.leader, list(m.replicas), sorted(m.isrs))
        assert p["start_offset"] == 0
    assert [p["end_offset"] for p in detail["partitions"]] == [5, 7, 0]
    assert detail["partitions"][2]["size"] == 0 and detail["partitions"][0]["size"] > 0
    configs = {c["name"]: c for c in detail["configs"]}
    assert configs["cleanup.policy"]["value"] == "delete"
    assert not configs["retention.ms"]["override"]

    load(browser, console, f"/clusters/{target}/topics?q={topic}")
    [shown] = rows(browser, "topics")
    assert shown[0] == topic and shown[1:3] == ["3", str(replication(target))]
    assert shown[4] == "12"
    load(browser, console, f"/clusters/{target}/topics/{topic}")
    partitions = rows(browser, "partitions")
    assert [r[0] for r in partitions] == ["0", "1", "2"]
    assert [r[5] for r in partitions] == ["5", "7", "0"]
    browser.save_screenshot(str(screenshots / f"topic-{target}.png"))
    load(browser, console, f"/clusters/{target}/topics")
    browser.save_screenshot(str(screenshots / f"topics-{target}.png"))


def test_topic_lists_are_paged_and_sorted_on_the_server(
        console: ConsoleProcess, admin: AdminClient, bootstrap: str, target: str) -> None:
    prefix = unique("paged")
    for i, count in enumerate((3, 1, 2)):
        create_topic(admin, f"{prefix}-{i}", 1, 1)
        produce(bootstrap, f"{prefix}-{i}", count)
    status, headers, body = console.request(
        f"/api/clusters/{target}/topics?q={prefix}&sort=-messages&size=2")
    assert status == 200 and headers["x-total-count"] == "3"
    assert [r["name"] for r in json.loads(body)] == [f"{prefix}-0", f"{prefix}-2"]
    _, _, body = console.request(
        f"/api/clusters/{target}/topics?q={prefix}&sort=-messages&size=2&page=2")
    assert [r["name"] for r in json.loads(body)] == [f"{prefix}-1"]


def test_groups_show_members_offsets_and_lag(
        console: ConsoleProcess, admin: AdminClient, bootstrap: str, target: str,
        browser: Any, screenshots: Path, running_member: Any) -> None:
    topic, group = unique("lagging"), unique("billing")
    create_topic(admin, topic, 2, replication(target))
    produce(bootstrap, topic, 10, partition=0)
    produce(bootstrap, topic, 4, partition=1)
    commit(bootstrap, group, {(topic, 0): 6, (topic, 1): 4})

    _, member_group = running_member
    status, headers, body = console.request(f"/api/clusters/{target}/groups?q={group}")
    assert status == 200
    [row] = json.loads(body)
    assert (row["group_id"], row["state"], row["lag"], row["partitions"]) == (
        group, "Empty", 4, 2)
    detail = console.get_json(f"/api/clusters/{target}/groups/{group}")
    assert [(o["partition"], o["committed"], o["end_offset"], o["lag"])
            for o in detail["offsets"]] == [(0, 6, 10, 4), (1, 4, 4, 0)]
    stable = console.get_json(f"/api/clusters/{target}/groups/{member_group}")
    assert stable["state"] == "Stable" and len(stable["members"]) == 1
    assert stable["members"][0]["assignment"] and stable["assignor"] == "range"

    load(browser, console, f"/clusters/{target}/groups?q={group}")
    assert rows(browser, "groups") == [[group, "Empty", "0", "2", "4"]]
    load(browser, console, f"/clusters/{target}/groups/{group}")
    assert browser.find_element(By.ID, "group-lag").text == "4"
    assert [r[2:5] for r in rows(browser, "offsets")] == [["6", "10", "4"], ["4", "4", "0"]]
    load(browser, console, f"/clusters/{target}/groups/{member_group}")
    assert browser.find_element(By.ID, "group-state").text == "Stable"
    browser.save_screenshot(str(screenshots / f"group-{target}.png"))


def test_an_unknown_topic_is_kafkas_error(console: ConsoleProcess, target: str,
                                          browser: Any) -> None:
    status, _, body = console.request(f"/api/clusters/{target}/topics/{unique('absent')}")
    assert status == 404
    assert json.loads(body)["error"] == "UNKNOWN_TOPIC_OR_PARTITION"
    load(browser, console, f"/clusters/{target}/topics/{unique('absent')}")
    assert browser.find_element(By.ID, "error-name").text == "UNKNOWN_TOPIC_OR_PARTITION"


# -- actions, clicked in the browser and checked with Kafka's tools --------------------------


def test_create_add_partitions_configure_and_delete_a_topic_in_the_browser(
        console: ConsoleProcess, admin: AdminClient, cli: KafkaCli, target: str,
        browser: Any) -> None:
    topic = unique("clicked")
    load(browser, console, f"/clusters/{target}/topics")
    submit(browser, "create-topic", {"topic": topic, "partitions": "2",
                                     "replication_factor": str(replication(target)),
                                     "configs": "retention.ms=3600000"})
    assert browser.find_element(By.ID, "topic-name").text == topic
    described = cli.tool("kafka-topics", "--describe", "--topic", topic)
    assert f"PartitionCount: 2\tReplicationFactor: {replication(target)}" in described.stdout
    assert "retention.ms=3600000" in described.stdout

    # creating it again: Kafka's error, as Kafka gives it
    load(browser, console, f"/clusters/{target}/topics")
    submit(browser, "create-topic", {"topic": topic})
    assert browser.find_element(By.ID, "error-name").text == "TOPIC_ALREADY_EXISTS"

    load(browser, console, f"/clusters/{target}/topics/{topic}")
    submit(browser, "add-partitions", {"partitions": "5"})
    assert len(rows(browser, "partitions")) == 5
    assert "PartitionCount: 5" in cli.tool("kafka-topics", "--describe", "--topic",
                                           topic).stdout

    submit(browser, "alter-config", {"config": "cleanup.policy", "value": "compact"})
    configs = cli.tool("kafka-configs", "--describe", "--entity-type", "topics",
                       "--entity-name", topic).stdout
    assert "cleanup.policy=compact" in configs and "retention.ms=3600000" in configs
    overridden = [tr.find_element(By.TAG_NAME, "td").text
                  for tr in browser.find_elements(By.CSS_SELECTOR, "#configs tr.override")]
    assert sorted(overridden) == ["cleanup.policy", "retention.ms"]

    browser.find_element(By.CSS_SELECTOR, "#alter-config [value=delete]").click()
    submit(browser, "alter-config", {"config": "retention.ms"})
    configs = cli.tool("kafka-configs", "--describe", "--entity-type", "topics",
                       "--entity-name", topic).stdout
    assert "retention.ms" not in configs and "cleanup.policy=compact" in configs

    submit(browser, "delete-topic", {})
    deadline = time.monotonic() + 30
    while topic in cli.tool("kafka-topics", "--list").lines and time.monotonic() < deadline:
        time.sleep(0.5)
    assert topic not in cli.tool("kafka-topics", "--list").lines


def test_preferred_leader_election_in_the_browser(
        console: ConsoleProcess, admin: AdminClient, cli: KafkaCli, target: str,
        browser: Any, tmp_path: Path) -> None:
    topic = unique("elected")
    create_topic(admin, topic, 1, replication(target))
    leader = admin.list_topics(topic, timeout=10).topics[topic].partitions[0].leader
    if target == "pybroker":
        # reorder the replicas: the first one, now the preferred leader, does not lead
        replicas = list(admin.list_topics(topic, timeout=10).topics[topic].partitions[0]
                        .replicas)
        preferred = next(r for r in replicas if r != leader)
        order = [preferred] + [r for r in replicas if r != preferred]
        plan = tmp_path / "plan.json"
        plan.write_text(json.dumps({"version": 1, "partitions": [
            {"topic": topic, "partition": 0, "replicas": order}]}))
        cli.tool("kafka-reassign-partitions", "--execute", "--reassignment-json-file",
                 str(plan))
        deadline = time.monotonic() + 30
        while list(admin.list_topics(topic, timeout=10).topics[topic].partitions[0]
                   .replicas) != order and time.monotonic() < deadline:
            time.sleep(0.3)
    else:
        preferred = leader

    load(browser, console, f"/clusters/{target}/topics/{topic}")
    click(browser, browser.find_element(By.CSS_SELECTOR, "#elect-leaders button"))
    confirm(browser)
    assert browser.find_elements(By.ID, "outcome"), browser.page_source
    [outcome] = rows(browser, "outcome")
    if target == "pybroker":
        assert outcome[:3] == [topic, "0", "elected"]
    else:  # the only replica leads already
        assert outcome[2].startswith("ELECTION_NOT_NEEDED")
    described = cli.tool("kafka-topics", "--describe", "--topic", topic).stdout
    assert f"Leader: {preferred}\t" in described


def test_reset_offsets_in_the_browser_only_for_an_empty_group(
        console: ConsoleProcess, admin: AdminClient, bootstrap: str, cli: KafkaCli,
        target: str, browser: Any, running_member: Any) -> None:
    topic, group = unique("reset"), unique("resetting")
    create_topic(admin, topic, 1, replication(target))
    produce(bootstrap, topic, 8)
    commit(bootstrap, group, {(topic, 0): 8})

    load(browser, console, f"/clusters/{target}/groups/{group}")
    submit(browser, "reset-offsets", {"to": "offset", "value": "3"})
    assert browser.find_element(By.ID, "group-lag").text == "5"
    described = cli.tool("kafka-consumer-groups", "--describe", "--group", group).lines
    [line] = [line for line in described if line.startswith(group)]
    assert line.split()[2:6] == ["0", "3", "8", "5"], described

    load(browser, console, f"/clusters/{target}/groups/{group}")
    submit(browser, "reset-offsets", {"to": "earliest"})
    assert browser.find_element(By.ID, "group-lag").text == "8"

    _, stable = running_member
    load(browser, console, f"/clusters/{target}/groups/{stable}")
    submit(browser, "reset-offsets", {"to": "latest"})
    assert browser.find_element(By.ID, "error-name").text == "GROUP_NOT_EMPTY"
    assert "current state is Stable" in browser.find_element(By.ID, "error-message").text


# -- safety ------------------------------------------------------------------------------------


def test_actions_need_the_csrf_token(console: ConsoleProcess) -> None:
    topic = unique("forged")
    status, _, _ = console.request("/clusters/kafka/actions/create-topic",
                                   data=f"topic={topic}&confirm=yes".encode())
    assert status == 400
    admin = AdminClient({"bootstrap.servers": json.loads(
        console.request("/api/clusters")[2])[1]["bootstrap"]})
    assert topic not in admin.list_topics(timeout=10).topics


def test_read_only_serves_no_action(bootstraps: dict[str, str], tmp_path: Path,
                                    browser: Any) -> None:
    with ConsoleProcess(tmp_path, {"kafka": bootstraps["kafka"]},
                        args=["--read-only"]) as read_only:
        for path in ("/clusters/kafka", "/clusters/kafka/topics",
                     "/clusters/kafka/topics/__consumer_offsets",
                     "/clusters/kafka/topics/__consumer_offsets/messages",
                     "/clusters/kafka/reassignments?topics=__consumer_offsets"):
            load(browser, read_only, path)
            assert browser.find_elements(By.TAG_NAME, "form") == [] or all(
                f.get_attribute("method") == "get"
                for f in browser.find_elements(By.TAG_NAME, "form")), path
            assert browser.find_element(By.ID, "read-only").text == "read-only"
        status, _, _ = read_only.request("/clusters/kafka/actions/create-topic",
                                         data=b"topic=x&confirm=yes")
        assert status == 403


def test_basic_authentication_and_no_password_shown(tmp_path: Path,
                                                    bootstraps: dict[str, str]) -> None:
    config = tmp_path / "console.toml"
    config.write_text(f'''
[auth]
username = "operator"
password = "let-me-in"

[[clusters]]
name = "kafka"
bootstrap = "{bootstraps['kafka']}"

[[clusters]]
name = "secured"
bootstrap = "127.0.0.1:1"
[clusters.security]
protocol = "SASL_PLAINTEXT"
mechanism = "SCRAM-SHA-256"
username = "console"
password = "s3cret-never-shown"
''')
    with ConsoleProcess(tmp_path / "run", {}, args=["--config", str(config)]) as anonymous:
        status, headers, _ = anonymous.request("/api/clusters")
        assert status == 401 and headers["www-authenticate"].startswith("Basic")
        anonymous.auth = ("operator", "wrong")
        assert anonymous.request("/clusters")[0] == 401
        anonymous.auth = ("operator", "let-me-in")
        status, _, body = anonymous.request("/api/clusters")
        assert status == 200
        assert b"s3cret-never-shown" not in body
        assert [c["name"] for c in json.loads(body)] == ["kafka", "secured"]
        status, _, page = anonymous.request("/clusters")
        assert status == 200 and b"s3cret-never-shown" not in page


def test_a_cluster_that_does_not_answer_is_an_error_page_not_a_hang(tmp_path: Path) -> None:
    with ConsoleProcess(tmp_path, {"gone": "127.0.0.1:1"}) as process:
        start = time.monotonic()
        status, _, body = process.request("/api/clusters/gone/topics", timeout=60)
        assert status == 502, body
        assert json.loads(body)["error"]
        assert time.monotonic() - start < 45
