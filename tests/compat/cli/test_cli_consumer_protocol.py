"""``kafka-consumer-groups`` of Kafka 4.1 on a consumer-protocol (KIP-848) group, against
pybroker and against Apache Kafka 4.1 with the same group: ``--list --type``, ``--describe``
(offsets), ``--describe --state --verbose`` (group and assignment epochs, the assignor) and
``--describe --members --verbose`` (member epochs, assignments and targets). The rows are
compared as tokens, with what differs by nature between two brokers masked (hosts, member and
client ids, coordinator addresses)."""

from __future__ import annotations

import re
import time
import uuid
from pathlib import Path

import pytest

from pybroker.compat.jvm_clients import KafkaCli
from pybroker.testing.broker_process import BrokerProcess
from pybroker.testing.reference_kafka4 import ReferenceKafka4
from tests.compat.confluent_kafka.test_consumer_protocol import Member, create, produce, wait_for

# both brokers, each with a group of two librdkafka members: in make test-long
pytestmark = [pytest.mark.compat, pytest.mark.long]




_MASKS = [
    (re.compile(r"rdkafka-[0-9a-f-]+"), "<id>"),
    (re.compile(r"/?127\.0\.0\.1(:\d+)?"), "<host>"),
    (re.compile(r"\(\d+\)"), "(<node>)"),
]
#: a member id the client made (KIP-1082: a base64 uuid of 22 characters)
_MEMBER_ID = re.compile(r"[A-Za-z0-9+/_-]{22}")


def tokens(text: str, names: dict[str, str]) -> list[list[str]]:
    rows = []
    for line in text.splitlines():
        if not line.strip():
            continue
        for real, alias in names.items():
            line = line.replace(real, alias)
        for pattern, mask in _MASKS:
            line = pattern.sub(mask, line)
        rows.append(["<member>" if _MEMBER_ID.fullmatch(t) else t for t in line.split()])
    return rows


def describe_all(cli: KafkaCli, group: str) -> dict[str, str]:
    out = {}
    for name, args in {
        "offsets": ["--describe"],
        "state": ["--describe", "--state", "--verbose"],
        "members": ["--describe", "--members", "--verbose"],
    }.items():
        out[name] = cli.run("kafka-consumer-groups", "--bootstrap-server", cli.bootstrap,
                            "--group", group, *args).stdout
    out["list"] = "\n".join(line for line in cli.run(
        "kafka-consumer-groups", "--bootstrap-server", cli.bootstrap, "--list", "--type",
        "consumer").stdout.splitlines() if group in line)
    return out


def run_on(bootstrap: str, lib: Path, tag: str) -> tuple[dict[str, str], dict[str, str]]:
    topic, group = f"cli848-{tag}-{uuid.uuid4().hex[:6]}", f"cg-{tag}-{uuid.uuid4().hex[:6]}"
    create(bootstrap, topic, 4)
    produce(bootstrap, topic, 4, 5)
    members = [Member(bootstrap, group, topic), Member(bootstrap, group, topic)]
    try:
        wait_for("20 records and a settled group", lambda: sum(
            len(m.records()) for m in members) >= 20 and all(
            len(m.assignment()) == 2 for m in members))
        time.sleep(3)  # heartbeats settle the member epochs
        cli = KafkaCli(bootstrap, lib)
        return describe_all(cli, group), {topic: "TOPIC", group: "GROUP"}
    finally:
        for m in members:
            m.stop()


def test_kafka_consumer_groups_describes_a_consumer_group_alike(
        pybroker4: BrokerProcess, reference_kafka4: ReferenceKafka4, kafka4_lib: Path) -> None:
    ours, our_names = run_on(pybroker4.bootstrap, kafka4_lib, "p")
    theirs, their_names = run_on(reference_kafka4.bootstrap, kafka4_lib, "k")
    for view in ours:
        mine, kafkas = tokens(ours[view], our_names), tokens(theirs[view], their_names)
        assert sorted(mine) == sorted(kafkas), (view, ours[view], theirs[view])
