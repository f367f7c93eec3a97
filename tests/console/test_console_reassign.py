"""Partition reassignment in the console - generate, execute with a throttle, verify - against
the three-broker pybroker cluster and the reference Apache Kafka 3.9, checked against
``kafka-reassign-partitions`` and ``kafka-configs``: the plan proposed is one Kafka's own
``--generate`` could propose, the replicas move, and the throttles set are cleared by verify."""

from __future__ import annotations

import json
import time
from itertools import product
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka.admin import AdminClient
from selenium.webdriver.common.by import By

from pybroker.compat.jvm_clients import KafkaCli
from pybroker.kernel.placement import assign_replicas
from pybroker.testing.console_process import ConsoleProcess
from tests.console.helpers import (
    click,
    create_topic,
    load,
    produce,
    rows,
    submit,
    unique,
)

pytestmark = pytest.mark.compat


def placements(brokers: list[tuple[int, str | None]], partitions: int,
               rf: int) -> list[dict[int, list[int]]]:
    """Every placement Kafka's ``assignReplicasToBrokers`` can make (its random start and
    shift each take every value)."""
    n = len(brokers)
    return [assign_replicas(brokers, partitions, rf, start_index=s, replica_shift=h)
            for s, h in product(range(n), range(n))]


def by_partition(plan_text: str) -> dict[int, list[int]]:
    return {e["partition"]: e["replicas"] for e in json.loads(plan_text)["partitions"]}


def broker_configs(cli: KafkaCli, broker: int) -> str:
    return cli.tool("kafka-configs", "--describe", "--entity-type", "brokers",
                    "--entity-name", str(broker)).stdout


def topic_configs(cli: KafkaCli, topic: str) -> str:
    return cli.tool("kafka-configs", "--describe", "--entity-type", "topics",
                    "--entity-name", topic).stdout


def test_the_generated_plan_is_one_kafkas_tool_could_propose(
        console: ConsoleProcess, admin: AdminClient, cli: KafkaCli, target: str,
        browser: Any, tmp_path: Path) -> None:
    topic = unique("planned")
    create_topic(admin, topic, 6, 1)
    nodes = sorted((n.id, n.rack or None) for n in admin.describe_cluster().result(30).nodes)
    possible = placements(nodes, 6, 1)

    load(browser, console, f"/clusters/{target}/topics/{topic}")
    click(browser, browser.find_element(By.ID, "reassign-link"))
    current = browser.find_element(By.ID, "current-plan").text
    proposed = browser.find_element(By.ID, "proposed-plan").text
    assert by_partition(proposed) in possible

    moving = tmp_path / "topics.json"
    moving.write_text(json.dumps({"version": 1, "topics": [{"topic": topic}]}))
    run = cli.tool("kafka-reassign-partitions", "--generate", "--topics-to-move-json-file",
                   str(moving), "--broker-list", ",".join(str(b) for b, _ in nodes))
    lines = [line for line in run.lines if line]
    assert lines[0] == "Current partition replica assignment", run.explain()
    assert lines[2] == "Proposed partition reassignment configuration", run.explain()
    assert current == lines[1]  # the same JSON, byte for byte
    assert by_partition(lines[3]) in possible

    # the tool's refusals, in its words
    load(browser, console, f"/clusters/{target}/reassignments?topics={topic}&brokers=0,0")
    assert "duplicate entries" in browser.find_element(By.ID, "generate-error").text
    load(browser, console, f"/clusters/{target}/reassignments?topics={unique('absent')}")
    assert browser.find_element(By.ID, "error-name").text == "UNKNOWN_TOPIC_OR_PARTITION"


def test_execute_with_a_throttle_then_verify_clears_it(
        console: ConsoleProcess, admin: AdminClient, bootstrap: str, cli: KafkaCli,
        target: str, browser: Any, screenshots: Path) -> None:
    topic = unique("moved")
    create_topic(admin, topic, 3, 1)
    produce(bootstrap, topic, 30)
    brokers = sorted(n.id for n in admin.describe_cluster().result(30).nodes)
    before = {p.id: list(p.replicas) for p in
              admin.list_topics(topic, timeout=10).topics[topic].partitions.values()}
    # each partition moves to the next broker (on one broker, it stays where it is)
    target_replicas = {p: [brokers[(brokers.index(r[0]) + 1) % len(brokers)]]
                       for p, r in before.items()}
    plan = json.dumps({"version": 1, "partitions": [
        {"topic": topic, "partition": p, "replicas": r} for p, r in target_replicas.items()]})
    moves = target != "kafka"

    load(browser, console, f"/clusters/{target}/reassignments")
    assert browser.find_element(By.ID, "no-reassignments").text == \
        "No partition reassignments found."
    submit(browser, "execute", {"plan": plan, "throttle": "50000000"})
    outcome = rows(browser, "outcome")
    assert [r[:3] for r in outcome] == [[topic, str(p), "started"] for p in range(3)], \
        browser.find_element(By.TAG_NAME, "main").text
    if moves:  # the throttles the tool sets: on the moving replicas and the brokers involved
        configs = topic_configs(cli, topic)
        leaders = ",".join(f"{p}:{before[p][0]}" for p in range(3))
        followers = ",".join(f"{p}:{target_replicas[p][0]}" for p in range(3))
        assert f"leader.replication.throttled.replicas={leaders}" in configs, configs
        assert f"follower.replication.throttled.replicas={followers}" in configs, configs
        for b in brokers:
            assert "leader.replication.throttled.rate=50000000" in broker_configs(cli, b)

    deadline = time.monotonic() + 60
    while True:
        load(browser, console, f"/clusters/{target}/reassignments")
        submit(browser, "verify", {"plan": plan})
        verdicts = rows(browser, "outcome")
        if all(r[2].endswith("is completed.") for r in verdicts) or \
                time.monotonic() > deadline:
            break
        time.sleep(1)
    assert [r[2] for r in verdicts] == [
        f"Reassignment of partition {topic}-{p} is completed." for p in range(3)]
    notes = [n.text for n in browser.find_elements(By.CSS_SELECTOR, "p.note")]
    assert notes == [
        f"Clearing broker-level throttles on broker{'s' if len(brokers) > 1 else ''} "
        + ",".join(map(str, brokers)),
        f"Clearing topic-level throttles on topic {topic}"]
    browser.save_screenshot(str(screenshots / f"reassign-{target}.png"))

    after = {p.id: list(p.replicas) for p in
             admin.list_topics(topic, timeout=10).topics[topic].partitions.values()}
    assert after == target_replicas
    assert "throttled" not in topic_configs(cli, topic)
    for b in brokers:
        assert "throttled.rate" not in broker_configs(cli, b)
    ends = cli.tool("kafka-get-offsets", "--topic", topic).lines
    assert sum(int(line.rsplit(":", 1)[1]) for line in ends) == 30

    # a plan whose replicas are not where it says, with none running: the tool's words
    wrong = json.dumps({"version": 1, "partitions": [
        {"topic": topic, "partition": 0, "replicas": [brokers[0], 99]}]})
    load(browser, console, f"/clusters/{target}/reassignments")
    submit(browser, "verify", {"plan": wrong})
    [verdict] = rows(browser, "outcome")
    assert verdict[2] == (f"There is no active reassignment of partition {topic}-0, but replica "
                          f"set is [{target_replicas[0][0]}] rather than [{brokers[0]}, 99].")
    # and executing it is refused before anything is sent
    load(browser, console, f"/clusters/{target}/reassignments")
    submit(browser, "execute", {"plan": wrong})
    assert browser.find_element(By.ID, "http-message").text == \
        "The proposed assignment contains non-existent brokerIDs: 99"
