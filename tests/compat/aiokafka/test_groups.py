"""aiokafka's group consumer against pybroker: membership changes, static membership (KIP-345)
and a killed member, with each member in its own process (tests/compat/group_helpers.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from kafka import KafkaAdminClient, KafkaProducer

from pybroker.testing.broker_process import BrokerProcess
from tests.compat.group_helpers import GroupMember, describe_all, wait_balanced
from tests.compat.kafka_python.test_groups import (
    MEMBER_CONFIG,
    PARTITIONS,
    check_owners_consume,
    create_topic,
    produce,
)

pytestmark = [pytest.mark.compat, pytest.mark.timeout(180)]


def test_membership_changes_rebalance_without_losing_or_doubling_partitions(
    group_broker: BrokerProcess, admin: KafkaAdminClient, producer: KafkaProducer,
    members: list[GroupMember], topic: str, tmp_path: Path,
) -> None:
    """Three aiokafka members, a fourth joins, one leaves cleanly, one is SIGKILLed: each time
    the group settles on one generation with a disjoint, complete split, and a fresh record on
    each partition reaches its owner only."""
    create_topic(admin, topic, PARTITIONS)
    initial = {p: [f"initial-{p}-{i}" for i in range(5)] for p in range(PARTITIONS)}
    produce(producer, topic, initial)

    def member(name: str) -> GroupMember:
        m = GroupMember(name, "aiokafka", group_broker.bootstrap, topic, f"{topic}-g", tmp_path,
                        config=MEMBER_CONFIG)
        members.append(m)
        return m.start()

    generations: list[int] = []

    def settled(step: str, group: list[GroupMember]) -> dict[str, frozenset[int]]:
        split = wait_balanced(group, PARTITIONS)
        (generation,) = {m.latest_state()["generation"] for m in group}
        assert not generations or generation > generations[-1], (step, generations, generation)
        generations.append(generation)
        check_owners_consume(step, producer, topic, group)
        return split

    a, b, c = member("a"), member("b"), member("c")
    split = settled("three", [a, b, c])
    assert sorted(len(ps) for ps in split.values()) == [2, 2, 2], split
    d = member("d")
    split = settled("four", [a, b, c, d])
    assert sorted(len(ps) for ps in split.values()) == [1, 1, 2, 2], split
    assert a.close() == 0, describe_all([a])
    settled("after-leave", [b, c, d])
    b.kill()
    settled("after-kill", [c, d])
    read = {(p, v) for m in members for p, _o, v in m.records()}
    missing = [(p, v) for p, vs in initial.items() for v in vs if (p, v) not in read]
    assert not missing, f"initial records nobody read: {missing}"


def events(member: GroupMember, kind: str) -> list[dict]:
    return [e for e in member.snapshot() if e["event"] == kind]


def test_static_members_hand_over_partitions_and_a_restarted_instance_keeps_its_own(
    group_broker: BrokerProcess, admin: KafkaAdminClient, producer: KafkaProducer,
    members: list[GroupMember], topic: str, tmp_path: Path,
) -> None:
    """KIP-345 with aiokafka: a second static member joining a stable group gets partitions
    only after the first has revoked them (no partition has two owners), and a static member
    killed and restarted within the session timeout rejoins with its old partitions without a
    rebalance of the others."""
    create_topic(admin, topic, PARTITIONS)
    produce(producer, topic, {p: [f"r-{p}"] for p in range(PARTITIONS)})

    def member(name: str) -> GroupMember:
        m = GroupMember(name, "aiokafka", group_broker.bootstrap, topic, f"{topic}-g", tmp_path,
                        config={**MEMBER_CONFIG, "group_instance_id": f"instance-{name}"})
        members.append(m)
        return m.start()

    a = member("a")
    wait_balanced([a], PARTITIONS)
    b = member("b")
    split = wait_balanced([a, b], PARTITIONS)
    assert sorted(len(ps) for ps in split.values()) == [3, 3], split
    # a revoked everything before b was handed any partition
    first_b = next(e for e in events(b, "assigned") if e["partitions"])
    revoked_a = [e for e in events(a, "revoked") if e["partitions"]]
    assert revoked_a and revoked_a[0]["t"] <= first_b["t"], describe_all([a, b])
    check_owners_consume("two static", producer, topic, [a, b])

    generation = a.latest_state()["generation"]
    revokes_before = len(events(a, "revoked"))
    b_partitions = b.assignment
    b.kill()
    b2 = member("b")  # the same group.instance.id, well within the 6 s session timeout
    b2.wait_for(lambda: b2.assignment == b_partitions, "the restarted instance's old partitions")
    assert a.latest_state()["generation"] == generation, describe_all([a, b2])
    assert len(events(a, "revoked")) == revokes_before, describe_all([a, b2])
    check_owners_consume("restarted static", producer, topic, [a, b2])
