"""A mixed group (KIP-848): a consumer-protocol member (librdkafka, ``group.protocol=consumer``)
and classic members (kafka-python and aiokafka, JoinGroup/SyncGroup/Heartbeat) in one consumer
group, against pybroker and against Apache Kafka 4.1 with the same assertions. Each member is a
process of its own that commits every record before it reports it
(:mod:`tests.compat.classic_member`, :mod:`tests.compat.confluent_kafka.consumer_member`), so a
record reported twice means a partition was read by two members at once.

The consumer-protocol member takes the six partitions first (the group is a consumer group);
the two classic members join it and are given partitions by the broker's assignor; records
produced meanwhile and after are each read exactly once; the kafka-python member leaves and the
others take its partitions over, still reading every record once.
"""

from __future__ import annotations

import sys
import time
import uuid
from collections import Counter

import pytest

from tests.compat.confluent_kafka.test_consumer_protocol import (
    Member,
    create,
    members,  # noqa: F401 - the fixture that stops every member
    produce,
    wait_for,
)

pytestmark = pytest.mark.compat


def classic(bootstrap: str, group: str, topic: str, client: str) -> Member:
    return Member(bootstrap, group, topic, command=[
        sys.executable, "-m", "tests.compat.classic_member", client, bootstrap, group, topic])


def read_once(everyone: list[Member], expected: int) -> bool:
    counts = Counter(r for m in everyone for r in m.records())
    doubled = [r for r, n in counts.items() if n > 1]
    assert not doubled, f"records read twice: {doubled[:5]}"
    return len(counts) >= expected


def test_classic_and_consumer_protocol_members_share_a_group(
        kip848_bootstrap: str, members: list[Member]) -> None:  # noqa: F811
    bootstrap = kip848_bootstrap
    topic, group = f"mixed-{uuid.uuid4().hex[:6]}", f"mixed-{uuid.uuid4().hex[:6]}"
    create(bootstrap, topic, 6)
    produce(bootstrap, topic, 6, 20)
    new = Member(bootstrap, group, topic)
    members.append(new)
    wait_for("the consumer-protocol member to hold the six partitions",
             lambda: len(new.assignment()) == 6)
    python, aio = (classic(bootstrap, group, topic, c) for c in ("kafka-python", "aiokafka"))
    members.extend([python, aio])
    everyone = [new, python, aio]
    wait_for("the classic members to get partitions, and the group to settle", lambda: (
        python.assignment() and aio.assignment()
        and sum(len(m.assignment()) for m in everyone) == 6
        and set().union(*(m.assignment() for m in everyone)) == {
            f"{topic}:{p}" for p in range(6)}), timeout=90)
    produce(bootstrap, topic, 6, 20)
    wait_for("240 records, each read once", lambda: read_once(everyone, 240), timeout=90)
    assert all(m.records() for m in everyone), [len(m.records()) for m in everyone]

    python.stop()  # it leaves the group
    produce(bootstrap, topic, 6, 20)
    wait_for("360 records, each read once", lambda: read_once(everyone, 360), timeout=90)
    wait_for("the others to hold the six partitions", lambda: sum(
        len(m.assignment()) for m in (new, aio)) == 6, timeout=60)
    time.sleep(1)
    assert read_once(everyone, 360)
