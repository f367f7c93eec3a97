"""confluent-kafka (librdkafka) consumer groups against pybroker: the range assignor under the
eager protocol, cooperative-sticky under the incremental one, and the AdminClient group API.

Members run in their own processes (``tests/compat/group_helpers.py``) and report what
librdkafka tells them about their assignment.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from confluent_kafka import (
    Consumer,
    ConsumerGroupState,
    ConsumerGroupTopicPartitions,
    KafkaError,
    KafkaException,
    Producer,
    TopicPartition,
)
from confluent_kafka.admin import AdminClient

from pybroker.testing.broker_process import BrokerProcess
from tests.compat.confluent_kafka.helpers import create_topic
from tests.compat.group_helpers import FAST_GROUPS, GroupMember, describe_all, wait_balanced

pytestmark = [pytest.mark.compat, pytest.mark.timeout(180)]

PARTITIONS = 6

MEMBER_CONFIG = {"session.timeout.ms": 6000, "heartbeat.interval.ms": 1000}


@pytest.fixture(scope="module")
def group_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrokerProcess]:
    with BrokerProcess(tmp_path_factory.mktemp("groups") / "kafka-logs", overrides=FAST_GROUPS) as b:
        yield b


@pytest.fixture
def admin(group_broker: BrokerProcess) -> AdminClient:
    return AdminClient({"bootstrap.servers": group_broker.bootstrap})


@pytest.fixture
def members() -> Iterator[list[GroupMember]]:
    started: list[GroupMember] = []
    try:
        yield started
    finally:
        for m in started:
            m.stop()


def start_member(
    members: list[GroupMember], name: str, broker: BrokerProcess, topic: str, log_dir: Path,
    strategy: str, *, commit: bool = True,
) -> GroupMember:
    m = GroupMember(
        name, "confluent", broker.bootstrap, topic, f"{topic}-g", log_dir,
        config={**MEMBER_CONFIG, "partition.assignment.strategy": strategy}, commit=commit,
    )
    members.append(m)
    return m.start()


def range_split(member_ids: list[str], partitions: int) -> dict[str, frozenset[int]]:
    """What the range assignor gives members of a one-topic subscription, by sorted member id."""
    ids = sorted(member_ids)
    per, extra = divmod(partitions, len(ids))
    out, start = {}, 0
    for i, member_id in enumerate(ids):
        n = per + (1 if i < extra else 0)
        out[member_id] = frozenset(range(start, start + n))
        start += n
    return out


def check_range(group: list[GroupMember], split: dict[str, frozenset[int]]) -> None:
    ids = {m.latest_state()["member_id"]: m.name for m in group}
    expected = {ids[i]: ps for i, ps in range_split(list(ids), PARTITIONS).items()}
    assert split == expected, f"range assignment by member id {ids}"


def test_range_assignor(
    group_broker: BrokerProcess, members: list[GroupMember], topic: str, tmp_path: Path
) -> None:
    create_topic(group_broker.bootstrap, topic, PARTITIONS)

    def member(name: str) -> GroupMember:
        return start_member(members, name, group_broker, topic, tmp_path, "range")

    a, b = member("a"), member("b")
    check_range([a, b], wait_balanced([a, b], PARTITIONS))
    c = member("c")
    check_range([a, b, c], wait_balanced([a, b, c], PARTITIONS))

    assert a.close() == 0, a.describe()
    check_range([b, c], wait_balanced([b, c], PARTITIONS))

    b.kill()
    split = wait_balanced([c], PARTITIONS)
    assert split == {"c": frozenset(range(PARTITIONS))}


def deltas(member: GroupMember, since: int, kind: str) -> set[int]:
    return {p for e in member.snapshot()[since:] if e["event"] == kind for p in e["partitions"]}


def test_cooperative_sticky_moves_only_what_it_must(
    group_broker: BrokerProcess, members: list[GroupMember], topic: str, tmp_path: Path
) -> None:
    create_topic(group_broker.bootstrap, topic, PARTITIONS)

    def member(name: str) -> GroupMember:
        return start_member(members, name, group_broker, topic, tmp_path, "cooperative-sticky")

    a, b = member("a"), member("b")
    before = wait_balanced([a, b], PARTITIONS)

    # a third member joins: a and b hand over only what c gets, and keep the rest throughout
    marks = {m.name: len(m.snapshot()) for m in (a, b)}
    c = member("c")
    after = wait_balanced([a, b, c], PARTITIONS)
    assert sorted(len(ps) for ps in after.values()) == [2, 2, 2], after
    for m in (a, b):
        assert after[m.name] <= before[m.name], (m.name, before, after)
        revoked = deltas(m, marks[m.name], "revoked")
        assert revoked == before[m.name] - after[m.name], describe_all([m])
        assert not deltas(m, marks[m.name], "lost"), describe_all([m])
    assert deltas(c, 0, "assigned") == after["c"]

    # a leaves cleanly: b and c only gain a's partitions, and revoke nothing
    before = after
    marks = {m.name: len(m.snapshot()) for m in (b, c)}
    assert a.close() == 0, a.describe()
    assert deltas(a, 0, "revoked") | deltas(a, 0, "lost") >= before["a"], a.describe()
    after = wait_balanced([b, c], PARTITIONS)
    assert sorted(len(ps) for ps in after.values()) == [3, 3], after
    for m in (b, c):
        assert after[m.name] >= before[m.name], (m.name, before, after)
        assert not deltas(m, marks[m.name], "revoked"), describe_all([m])
        assert deltas(m, marks[m.name], "assigned") == after[m.name] - before[m.name]


# --------------------------------------------------------------------------------------------
# AdminClient
# --------------------------------------------------------------------------------------------


def commit_offsets(bootstrap: str, topic: str, group: str, offsets: dict[int, int]) -> None:
    """Join ``group`` alone, commit ``offsets`` synchronously, and leave."""
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": group,
                         "enable.auto.commit": False, **MEMBER_CONFIG})
    try:
        consumer.subscribe([topic])
        deadline = time.monotonic() + 30
        while not consumer.assignment():
            assert time.monotonic() < deadline, "no assignment within 30s"
            consumer.poll(0.2)
        consumer.commit(
            offsets=[TopicPartition(topic, p, o, f"m{o}") for p, o in offsets.items()],
            asynchronous=False,
        )
    finally:
        consumer.close()


def listing(admin: AdminClient, group: str) -> list:
    result = admin.list_consumer_groups(request_timeout=20).result(30)
    assert not result.errors, result.errors
    return [g for g in result.valid if g.group_id == group]


def describe(admin: AdminClient, group: str):
    return admin.describe_consumer_groups([group], request_timeout=20)[group].result(30)


def committed(admin: AdminClient, group: str) -> dict[int, tuple[int, str | None]]:
    request = [ConsumerGroupTopicPartitions(group)]
    result = admin.list_consumer_group_offsets(request, request_timeout=20)[group].result(30)
    assert result.group_id == group
    for tp in result.topic_partitions:
        assert tp.error is None, tp
    return {tp.partition: (tp.offset, tp.metadata) for tp in result.topic_partitions}


def test_admin_client_group_operations(
    group_broker: BrokerProcess, admin: AdminClient, members: list[GroupMember], topic: str,
    tmp_path: Path,
) -> None:
    bootstrap = group_broker.bootstrap
    group = f"{topic}-g"
    create_topic(bootstrap, topic, 3)
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5})
    for i in range(30):
        producer.produce(topic, value=b"r%d" % i, partition=i % 3)
    assert producer.flush(30) == 0
    offsets = {0: 4, 1: 9, 2: 1}
    commit_offsets(bootstrap, topic, group, offsets)

    (entry,) = listing(admin, group)
    assert (entry.is_simple_consumer_group, entry.state) == (False, ConsumerGroupState.EMPTY)
    assert committed(admin, group) == {p: (o, f"m{o}") for p, o in offsets.items()}

    for name in ("x", "y"):
        start_member(members, name, group_broker, topic, tmp_path, "range", commit=False)
    split = wait_balanced(members, 3)

    (entry,) = listing(admin, group)
    assert entry.state == ConsumerGroupState.STABLE
    d = describe(admin, group)
    assert (d.group_id, d.state, d.partition_assignor) == (group, ConsumerGroupState.STABLE, "range")
    assert d.coordinator.id == 0
    names = {m.latest_state()["member_id"]: m.name for m in members}
    assert {md.member_id: {tp.partition for tp in md.assignment.topic_partitions}
            for md in d.members} == {i: split[n] for i, n in names.items()}
    assert {tp.topic for md in d.members for tp in md.assignment.topic_partitions} == {topic}

    with pytest.raises(KafkaException) as refused:
        admin.delete_consumer_groups([group], request_timeout=20)[group].result(30)
    assert refused.value.args[0].code() == KafkaError.NON_EMPTY_GROUP, refused.value

    for m in members:
        assert m.close() == 0, m.describe()
    d = describe(admin, group)
    assert (d.state, d.members) == (ConsumerGroupState.EMPTY, [])

    altered = admin.alter_consumer_group_offsets(
        [ConsumerGroupTopicPartitions(group, [TopicPartition(topic, 1, 2)])], request_timeout=20
    )[group].result(30)
    assert [(tp.partition, tp.offset, tp.error) for tp in altered.topic_partitions] == [(1, 2, None)]
    # librdkafka shows empty metadata as None
    assert committed(admin, group) == {0: (4, "m4"), 1: (2, None), 2: (1, "m1")}

    assert admin.delete_consumer_groups([group], request_timeout=20)[group].result(30) is None
    assert listing(admin, group) == []
    assert committed(admin, group) == {}
    with pytest.raises(KafkaException) as gone:
        admin.delete_consumer_groups([group], request_timeout=20)[group].result(30)
    assert gone.value.args[0].code() == KafkaError.GROUP_ID_NOT_FOUND, gone.value
