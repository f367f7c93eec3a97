"""The Java consumer in a consumer group (subscribe with group.id, the classic protocol).

Needs the group APIs: FindCoordinator, JoinGroup, SyncGroup, Heartbeat, OffsetCommit,
OffsetFetch and LeaveGroup.
"""

from __future__ import annotations

import pytest

from pybroker.testing.broker_process import BrokerProcess
from tests.compat.confluent_kafka.helpers import create_topic
from tests.compat.java.conftest import JavaClient, ProduceRecord, unb64

pytestmark = pytest.mark.compat

PARTITIONS = 3


def records(first: int, n: int) -> list[ProduceRecord]:
    return [
        ProduceRecord(key=f"k{i}".encode(), value=f"v{i}".encode(), partition=i % PARTITIONS)
        for i in range(first, first + n)
    ]


def consume_group(java_client: JavaClient, bootstrap: str, topic: str, group: str, count: int) -> list[dict]:
    return java_client.run(
        "consume-group", "--bootstrap", bootstrap, "--topic", topic, "--group", group,
        "--count", str(count), "--timeout-ms", "30000",
    )


def test_group_consumer_reads_commits_and_resumes(
    java_client: JavaClient, module_broker: BrokerProcess, topic: str
) -> None:
    """A lone member gets every partition, reads everything, commits the end offsets; the
    next member of the same group starts from those commits and sees only newer records."""
    bootstrap = module_broker.bootstrap
    group = f"{topic}-group"
    create_topic(bootstrap, topic, PARTITIONS)
    first = java_client.produce(bootstrap, topic, records(0, 30))

    lines = consume_group(java_client, bootstrap, topic, group, 30)
    assigned = [line["assigned"] for line in lines if "assigned" in line]
    assert assigned and assigned[-1] == [{"topic": topic, "partition": p} for p in range(PARTITIONS)], lines
    got = sorted(unb64(m["value"]) for m in lines if "offset" in m)
    assert got == sorted(f"v{i}".encode() for i in range(30))
    ends = {p: sum(1 for a in first if a["partition"] == p) for p in range(PARTITIONS)}
    committed = next(line["committed"] for line in lines if "committed" in line)
    assert committed == {f"{topic}-{p}": ends[p] for p in range(PARTITIONS)}
    # Closing the consumer revokes its partitions, so the summary is not always the last line.
    summary = next(line["summary"] for line in lines if "summary" in line)
    assert summary["groupMetadata"]["groupId"] == group
    assert summary["groupMetadata"]["generationId"] >= 1

    java_client.produce(bootstrap, topic, records(30, 9))
    lines = consume_group(java_client, bootstrap, topic, group, 9)
    got = sorted(unb64(m["value"]) for m in lines if "offset" in m)
    assert got == sorted(f"v{i}".encode() for i in range(30, 39)), "should resume at the commits"
    committed = next(line["committed"] for line in lines if "committed" in line)
    assert committed == {f"{topic}-{p}": ends[p] + 3 for p in range(PARTITIONS)}
