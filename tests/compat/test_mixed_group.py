"""A mixed group (KIP-848): a consumer-protocol member (librdkafka, ``group.protocol=consumer``)
and classic members (kafka-python and aiokafka, JoinGroup/SyncGroup/Heartbeat) in one consumer
group, against pybroker and against Apache Kafka 4.1 with the same assertions. Each member is a
process of its own that commits every record before it reports it
(:mod:`tests.compat.classic_member`, :mod:`tests.compat.confluent_kafka.consumer_member`), so a
record reported twice means a partition was read by two members at once.

The consumer-protocol member takes the six partitions first (the group is a consumer group);
the two classic members join it and are given partitions by the broker's assignor; records
produced meanwhile and after are each read exactly once; the kafka-python member leaves and the
others take its partitions over, still reading every record once; the consumer-protocol member
leaves last, the group turns back into a classic group (the online downgrade) and the aiokafka
member reads on alone.

And the online upgrade: a classic group of kafka-python and aiokafka members running; a
consumer-protocol member joins it, the group becomes a consumer group without stopping, the
classic members hand partitions over, and every record is still read once.
"""

from __future__ import annotations

import sys
import time
import uuid
from collections import Counter
from pathlib import Path

import pytest

from protocol.errors import ErrorCode
from protocol.messages import (
    find_coordinator_request as fc,
    heartbeat_request as hbq,
    sync_group_request as sg,
)
from pybroker.testing.broker_process import BrokerProcess
from pybroker.testing.wire_client import WireClient
from tests.compat.confluent_kafka.test_consumer_protocol import (
    Member,
    create,
    members,  # noqa: F401 - the fixture that stops every member
    produce,
    wait_for,
)
from tests.compat.differential.test_consumer_groups import join
from tests.compat.differential.test_mixed_groups import assignment_of, classic_join

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

    new.stop()  # the last consumer-protocol member leaves: the group turns classic again
    wait_for("the aiokafka member to hold the six partitions in the classic group",
             lambda: len(aio.assignment()) == 6, timeout=60)
    produce(bootstrap, topic, 6, 20)
    wait_for("480 records, each read once", lambda: read_once(everyone, 480), timeout=90)
    time.sleep(1)
    assert read_once(everyone, 480)


def test_a_consumer_protocol_member_upgrades_a_running_classic_group(
        kip848_bootstrap: str, members: list[Member]) -> None:  # noqa: F811
    bootstrap = kip848_bootstrap
    topic, group = f"upgrade-{uuid.uuid4().hex[:6]}", f"upgrade-{uuid.uuid4().hex[:6]}"
    create(bootstrap, topic, 6)
    produce(bootstrap, topic, 6, 20)
    python, aio = (classic(bootstrap, group, topic, c) for c in ("kafka-python", "aiokafka"))
    members.extend([python, aio])
    wait_for("the classic group to read 120 records", lambda: read_once([python, aio], 120),
             timeout=90)
    new = Member(bootstrap, group, topic)
    members.append(new)
    everyone = [python, aio, new]
    wait_for("the consumer-protocol member to get partitions in the upgraded group", lambda: (
        new.assignment() and sum(len(m.assignment()) for m in everyone) == 6
        and set().union(*(m.assignment() for m in everyone)) == {
            f"{topic}:{p}" for p in range(6)}), timeout=90)
    produce(bootstrap, topic, 6, 20)
    wait_for("240 records, each read once", lambda: read_once(everyone, 240), timeout=90)
    assert new.records(), "the new member read nothing"


@pytest.mark.parametrize("policy", ["disabled", "downgrade"])
def test_the_migration_policy_can_refuse_the_upgrade(tmp_path: Path, policy: str) -> None:
    """``group.consumer.migration.policy`` without upgrade: a consumer-protocol member is refused
    a running classic group (GROUP_ID_NOT_FOUND, Kafka's message), which carries on."""
    group, topic = "classic-only", "t"
    with BrokerProcess(tmp_path / "logs", config=None, overrides={
            "group.consumer.migration.policy": policy}) as broker, \
            WireClient(broker.bootstrap) as client:
        create(broker.bootstrap, topic, 2)
        while client.call(10, 3, fc.FindCoordinatorRequest(key=group)).error_code:
            time.sleep(0.1)
        member = client.call(11, 9, classic_join(group, "", [topic])).member_id
        led = client.call(11, 9, classic_join(group, member, [topic]))
        assert led.error_code == ErrorCode.NONE and led.leader == member
        synced = client.call(14, 5, sg.SyncGroupRequest(
            group_id=group, generation_id=led.generation_id, member_id=member,
            protocol_type="consumer", protocol_name="range",
            assignments=[sg.SyncGroupRequestAssignment(
                member_id=member, assignment=assignment_of(topic, [0, 1]))]))
        assert synced.error_code == ErrorCode.NONE
        refused = client.call(68, 1, join(group, "new", [topic]))
        assert (refused.error_code, refused.error_message) == (
            ErrorCode.GROUP_ID_NOT_FOUND, f"Group {group} is not a consumer group")
        assert client.call(12, 4, hbq.HeartbeatRequest(
            group_id=group, generation_id=led.generation_id,
            member_id=member)).error_code == ErrorCode.NONE
