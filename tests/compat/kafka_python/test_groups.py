"""kafka-python 3.x consumer groups against pybroker: membership changes and the group admin API.

The members run in their own processes (see ``tests/compat/group_helpers.py``) so that one can
be killed outright; the test watches what each member reports about its assignment.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from kafka import KafkaAdminClient, KafkaConsumer, KafkaProducer, TopicPartition
from kafka.errors import GroupIdNotFoundError, NonEmptyGroupError, UnknownMemberIdError
from kafka.structs import OffsetAndMetadata

from pybroker.testing.broker_process import BrokerProcess
from tests.compat.group_helpers import GroupMember, describe_all, wait_balanced

pytestmark = [pytest.mark.compat, pytest.mark.timeout(180)]

PARTITIONS = 6

#: the broker's minimum session timeout, so a killed member is noticed as soon as possible
MEMBER_CONFIG = {
    "session_timeout_ms": 6000,
    "heartbeat_interval_ms": 1000,
    "max_poll_interval_ms": 30000,
    "fetch_max_wait_ms": 100,
}


def create_topic(admin: KafkaAdminClient, topic: str, partitions: int) -> None:
    admin.create_topics({topic: {"num_partitions": partitions, "replication_factor": 1}})


def produce(producer: KafkaProducer, topic: str, values: dict[int, list[str]]) -> None:
    futures = [
        producer.send(topic, value=v.encode(), partition=p) for p, vs in values.items() for v in vs
    ]
    producer.flush(30)
    for f in futures:
        f.get(timeout=30)


def check_owners_consume(
    step: str, producer: KafkaProducer, topic: str, members: list[GroupMember]
) -> None:
    """One marker per partition: the member that owns the partition must read it, no other."""
    owner = {p: m for m in members for p in m.assignment}
    markers = {p: f"marker-{step}-{p}" for p in range(PARTITIONS)}
    produce(producer, topic, {p: [v] for p, v in markers.items()})
    for p, value in markers.items():
        m = owner[p]
        try:
            m.wait_for(
                lambda m=m, p=p, value=value: any(r[0] == p and r[2] == value for r in m.records()),
                f"{m.name} to read {value} from partition {p} it owns",
            )
        except AssertionError as e:
            raise AssertionError(f"{e}\nall members:\n{describe_all(members)}") from None
    for m in members:
        stray = [r for r in m.records() if r[2] in markers.values() and owner[r[0]] is not m]
        assert not stray, f"{step}: {m.name} read markers of partitions it does not own: {stray}"


def test_membership_changes_rebalance_without_losing_or_doubling_partitions(
    group_broker: BrokerProcess,
    admin: KafkaAdminClient,
    producer: KafkaProducer,
    members: list[GroupMember],
    topic: str,
    tmp_path: Path,
) -> None:
    """Three members, a fourth joins, one leaves cleanly, one is SIGKILLed: after each step the
    group settles on one generation whose assignments are disjoint and cover all six partitions,
    the generation grows, and a fresh record on each partition reaches its owner and no one else.
    """
    create_topic(admin, topic, PARTITIONS)
    initial = {p: [f"initial-{p}-{i}" for i in range(5)] for p in range(PARTITIONS)}
    produce(producer, topic, initial)

    def member(name: str) -> GroupMember:
        m = GroupMember(
            name, "kafka-python", group_broker.bootstrap, topic, f"{topic}-g", tmp_path,
            config=MEMBER_CONFIG,
        )
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
    assert a.snapshot()[-2]["event"] == "closed", a.describe()
    settled("after-leave", [b, c, d])

    b.kill()
    settled("after-kill", [c, d])

    read = {(p, v) for m in members for p, _o, v in m.records()}
    missing = [(p, v) for p, vs in initial.items() for v in vs if (p, v) not in read]
    assert not missing, f"initial records nobody read: {missing}"


# --------------------------------------------------------------------------------------------
# KafkaAdminClient
# --------------------------------------------------------------------------------------------


def commit_offsets(bootstrap: str, topic: str, group: str, offsets: dict[int, int]) -> None:
    """Join ``group`` alone, commit ``offsets`` synchronously, and leave."""
    consumer = KafkaConsumer(
        bootstrap_servers=bootstrap, group_id=group, enable_auto_commit=False, **MEMBER_CONFIG
    )
    try:
        # metadata first: see the kafka-python note in group_helpers._run_kafka_python
        assert consumer.partitions_for_topic(topic) == set(offsets)
        consumer.subscribe([topic])
        deadline = time.monotonic() + 30
        while not consumer.assignment():
            assert time.monotonic() < deadline, "no assignment within 30s"
            consumer.poll(timeout_ms=200)
        consumer.commit({TopicPartition(topic, p): OffsetAndMetadata(o, f"m{o}", -1)
                         for p, o in offsets.items()})
    finally:
        consumer.close()


def group_listing(admin: KafkaAdminClient, group: str) -> list[dict]:
    return [g for g in admin.list_groups() if g["group_id"] == group]


def test_admin_lists_describes_and_deletes_groups(
    group_broker: BrokerProcess,
    admin: KafkaAdminClient,
    producer: KafkaProducer,
    members: list[GroupMember],
    topic: str,
    tmp_path: Path,
) -> None:
    bootstrap = group_broker.bootstrap
    group = f"{topic}-g"
    create_topic(admin, topic, 3)
    produce(producer, topic, {p: [f"r{i}" for i in range(10)] for p in range(3)})
    committed = {0: 4, 1: 9, 2: 1}
    commit_offsets(bootstrap, topic, group, committed)

    # an empty group that has offsets
    listed = group_listing(admin, group)
    assert [(g["protocol_type"], g.get("group_state")) for g in listed] == [("consumer", "Empty")]
    offsets = admin.list_group_offsets(group)[group]
    assert {tp: (om.offset, om.metadata) for tp, om in offsets.items()} == {
        TopicPartition(topic, p): (o, f"m{o}") for p, o in committed.items()
    }

    # two live members
    for name in ("x", "y"):
        members.append(
            GroupMember(name, "kafka-python", bootstrap, topic, group, tmp_path,
                        config=MEMBER_CONFIG, commit=False).start()
        )
    split = wait_balanced(members, 3)
    # A kafka-python leader may rejoin once right after its first assignment (when the topic
    # metadata it assigned from changes under it): wait for the group to settle, then re-read.
    states: list = []
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        states = [g.get("group_state") for g in group_listing(admin, group)]
        if states == ["Stable"]:
            break
        time.sleep(0.2)
    assert states == ["Stable"], states
    split = wait_balanced(members, 3)
    described = admin.describe_groups([group])[group]
    assert described["error"] is None, described
    assert (described["group_state"], described["protocol_type"]) == ("Stable", "consumer")
    assert described["protocol_data"] == "range"
    by_member = {m["member_id"]: m for m in described["members"]}
    ids = {m.latest_state()["member_id"]: m.name for m in members}
    assert set(by_member) == set(ids), (by_member.keys(), ids)
    for member_id, d in by_member.items():
        assignment = d["member_assignment"]
        parts = {p for t in assignment["assigned_partitions"] for p in t["partitions"]}
        assert {t["topic"] for t in assignment["assigned_partitions"]} <= {topic}
        assert parts == split[ids[member_id]], (d, split)
        assert d["member_metadata"]["topics"] == [topic]

    # a group with members cannot be deleted
    assert admin.delete_groups([group]) == {group: NonEmptyGroupError.__name__}
    # nor can its offsets be changed from outside: the coordinator knows no member ""
    refused = admin.alter_group_offsets(
        group, {TopicPartition(topic, 0): OffsetAndMetadata(0, "", -1)}
    )
    assert {tp: e.__name__ for tp, e in refused.items()} == {
        TopicPartition(topic, 0): UnknownMemberIdError.__name__
    }
    assert admin.list_group_offsets(group)[group][TopicPartition(topic, 0)].offset == committed[0]

    for m in members:
        assert m.close() == 0, m.describe()
    described = admin.describe_groups([group])[group]
    assert (described["group_state"], described["members"]) == ("Empty", []), described

    # offsets of an empty group can be changed and removed one by one
    altered = admin.alter_group_offsets(
        group, {TopicPartition(topic, 0): OffsetAndMetadata(2, "again", -1)}
    )
    assert {tp: e.__name__ for tp, e in altered.items()} == {TopicPartition(topic, 0): "NoError"}
    deleted = admin.delete_group_offsets(group, [TopicPartition(topic, 2)])
    assert {tp: e.__name__ for tp, e in deleted.items()} == {TopicPartition(topic, 2): "NoError"}
    offsets = admin.list_group_offsets(group)[group]
    assert {tp.partition: (om.offset, om.metadata) for tp, om in offsets.items()} == {
        0: (2, "again"), 1: (9, "m9")
    }

    assert admin.delete_groups([group]) == {group: "OK"}
    assert group_listing(admin, group) == []
    assert admin.list_group_offsets(group)[group] == {}
    assert admin.delete_groups([group]) == {group: GroupIdNotFoundError.__name__}
