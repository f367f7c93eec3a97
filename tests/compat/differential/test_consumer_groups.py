"""Differential tests of the KIP-848 consumer group protocol: ConsumerGroupHeartbeat and
ConsumerGroupDescribe at v0 and v1, and what the other group APIs say of a consumer group,
against Apache Kafka 4.1 in KRaft mode (Kafka 3.9 refuses the protocol in ZooKeeper mode).

The members are driven by hand, request by request, so every epoch, assignment and error is
compared: validation in Kafka's order and with Kafka's messages, joins, revocation before a
partition moves, fencing, leaving, static members, offset commits checked against the member
epoch, ListGroups' type filter and DescribeGroups of a consumer group. Topic ids differ between
the brokers and are masked; the scenario sends each broker's own ids.
"""

from __future__ import annotations

import uuid

from protocol.errors import ErrorCode
from protocol.messages import (
    consumer_group_describe_request as cgd,
    consumer_group_heartbeat_request as cgh,
    describe_groups_request as dsg,
    list_groups_request as lsg,
    offset_commit_request as oc,
    offset_fetch_request as of,
)
from tests.compat.differential import requests as rq
from tests.compat.differential.differ import Known, Recorder
from tests.compat.differential.steps import create_topic, ensure_offsets_topic, wait_until

HEARTBEAT, DESCRIBE = 68, 69

KNOWN: list[Known] = []


def coordinator_ready(rec: Recorder, *groups: str) -> None:
    """Until the groups' coordinator answers (Kafka 4 loads its partitions after electing
    them, and answers NOT_COORDINATOR meanwhile)."""
    ensure_offsets_topic(rec)
    busy = {ErrorCode.NOT_COORDINATOR, ErrorCode.COORDINATOR_LOAD_IN_PROGRESS,
            ErrorCode.COORDINATOR_NOT_AVAILABLE}
    wait_until(f"the coordinator of {groups} at {rec.bootstrap}", lambda: all(
        g.error_code not in busy
        for g in rec.quietly(DESCRIBE, 1, describe(*groups)).groups))


def topic_seen(rec: Recorder, topic: str, group: str) -> None:
    """Until the group coordinator sees a new topic: a probe member of a group of its own
    joins until it gets partitions (Kafka 4's coordinator learns of topics from the metadata
    image a moment after CreateTopics returns), then leaves."""
    def assigned_something() -> bool:
        resp = rec.quietly(HEARTBEAT, 1, join(group, "probe", [topic]))
        rec.quietly(HEARTBEAT, 1, heartbeat(group, "probe", -1))
        return resp.error_code == ErrorCode.NONE and bool(assigned(resp))

    wait_until(f"{topic} in the group coordinator at {rec.bootstrap}", assigned_something)


def topic_id(rec: Recorder, name: str) -> uuid.UUID:
    resp = rec.quietly(rq.METADATA, 12, rq.metadata(name))
    (topic,) = resp.topics
    assert topic.error_code == ErrorCode.NONE, resp
    return topic.topic_id


def heartbeat(group: str, member: str, epoch: int, *, topics: list[str] | None = None,
              owned: dict[uuid.UUID, list[int]] | None = None, instance: str | None = None,
              rebalance_timeout_ms: int = -1, regex: str | None = None,
              assignor: str | None = None, rack: str | None = None,
              ) -> cgh.ConsumerGroupHeartbeatRequest:
    return cgh.ConsumerGroupHeartbeatRequest(
        group_id=group, member_id=member, member_epoch=epoch, instance_id=instance,
        rack_id=rack, rebalance_timeout_ms=rebalance_timeout_ms, subscribed_topic_names=topics,
        subscribed_topic_regex=regex, server_assignor=assignor,
        topic_partitions=None if owned is None else [
            cgh.TopicPartitions(topic_id=t, partitions=sorted(ps)) for t, ps in owned.items()])


def join(group: str, member: str, topics: list[str], **kw) -> cgh.ConsumerGroupHeartbeatRequest:
    return heartbeat(group, member, 0, topics=topics, owned={}, rebalance_timeout_ms=30_000,
                     **kw)


def assigned(resp) -> dict[uuid.UUID, list[int]]:
    if resp.assignment is None:
        return {}
    return {tp.topic_id: sorted(tp.partitions) for tp in resp.assignment.topic_partitions}


def describe(*groups: str) -> cgd.ConsumerGroupDescribeRequest:
    return cgd.ConsumerGroupDescribeRequest(group_ids=list(groups),
                                            include_authorized_operations=True)


def validation(rec: Recorder, names) -> None:
    """Every INVALID_REQUEST row of Kafka's validation, at v0 and v1, and the errors of a
    heartbeat that names no known group or member."""
    group = names("validation")
    coordinator_ready(rec, group)
    cases = {
        "empty member id": heartbeat(group, "", 0, topics=["t"], owned={},
                                     rebalance_timeout_ms=1000),
        "empty member id, epoch 1": heartbeat(group, "", 1),
        "empty member id, leave": heartbeat(group, "", -1),
        "empty group id": heartbeat("", "m", 0, topics=["t"], owned={},
                                    rebalance_timeout_ms=1000),
        "empty instance id": heartbeat(group, "m", 0, topics=["t"], owned={},
                                       rebalance_timeout_ms=1000, instance=""),
        "blank rack id": heartbeat(group, "m", 0, topics=["t"], owned={},
                                   rebalance_timeout_ms=1000, rack=" "),
        "join without rebalance timeout": heartbeat(group, "m", 0, topics=["t"], owned={}),
        "join with owned partitions null": heartbeat(group, "m", 0, topics=["t"],
                                                     rebalance_timeout_ms=1000),
        "join owning partitions": heartbeat(group, "m", 0, topics=["t"],
                                            owned={uuid.UUID(int=1): [0]},
                                            rebalance_timeout_ms=1000),
        "join without subscription": heartbeat(group, "m", 0, owned={},
                                               rebalance_timeout_ms=1000),
        "static leave without instance": heartbeat(group, "m", -2),
        "epoch -3": heartbeat(group, "m", -3),
        "unknown assignor": join(group, "m", ["t"], assignor="sticky"),
        "unknown group, epoch 5": heartbeat(group, "m", 5),
        "unknown group, leave": heartbeat(group, "m", -1),
    }
    for version in (0, 1):
        for label, body in cases.items():
            rec.call(f"v{version} {label}", HEARTBEAT, version, body)
    rec.call("v1 bad regex", HEARTBEAT, 1, heartbeat(group, "m", 0, regex="a(?=b)", owned={},
                                                     rebalance_timeout_ms=1000))
    call_describe(rec, "describe unknown and empty", DESCRIBE, 1, describe(group, ""))


def two_members(rec: Recorder, names) -> None:
    """A joins a topic of six partitions; B joins; A revokes before B gets anything; offsets
    are committed at the member epoch; B leaves; the group is described along the way."""
    topic, group = names.topic, names("two")
    coordinator_ready(rec, group)
    create_topic(rec, topic, 6)
    topic_seen(rec, topic, names("probe"))
    a = rec.call("a joins", HEARTBEAT, 1, join(group, "member-a", [topic]))
    call_describe(rec, "describe after a", DESCRIBE, 1, describe(group))
    rec.call("a heartbeats", HEARTBEAT, 1, heartbeat(group, "member-a", a.member_epoch,
                                                     owned=assigned(a)))
    b = rec.call("b joins", HEARTBEAT, 1, join(group, "member-b", [topic]))
    call_describe(rec, "describe while reconciling", DESCRIBE, 1, describe(group))
    a2 = rec.call("a is asked to revoke", HEARTBEAT, 1,
                  heartbeat(group, "member-a", a.member_epoch, owned=assigned(a)))
    rec.call("b waits", HEARTBEAT, 1, heartbeat(group, "member-b", b.member_epoch, owned={}))
    rec.call("a commits at its epoch", rq.OFFSET_COMMIT, 9, oc.OffsetCommitRequest(
        group_id=group, generation_id_or_member_epoch=a.member_epoch, member_id="member-a",
        topics=[oc.OffsetCommitRequestTopic(name=topic, partitions=[
            oc.OffsetCommitRequestPartition(partition_index=0, committed_offset=0)])]))
    rec.call("a commits with a stale epoch", rq.OFFSET_COMMIT, 9, oc.OffsetCommitRequest(
        group_id=group, generation_id_or_member_epoch=a.member_epoch + 5,
        member_id="member-a", topics=[oc.OffsetCommitRequestTopic(name=topic, partitions=[
            oc.OffsetCommitRequestPartition(partition_index=0, committed_offset=0)])]))
    rec.call("a commits with v8", rq.OFFSET_COMMIT, 8, oc.OffsetCommitRequest(
        group_id=group, generation_id_or_member_epoch=a.member_epoch, member_id="member-a",
        topics=[oc.OffsetCommitRequestTopic(name=topic, partitions=[
            oc.OffsetCommitRequestPartition(partition_index=0, committed_offset=0)])]))
    rec.call("an admin commits to a busy group", rq.OFFSET_COMMIT, 9, oc.OffsetCommitRequest(
        group_id=group, generation_id_or_member_epoch=-1, member_id="",
        topics=[oc.OffsetCommitRequestTopic(name=topic, partitions=[
            oc.OffsetCommitRequestPartition(partition_index=0, committed_offset=0)])]))
    a3 = rec.call("a revokes", HEARTBEAT, 1,
                  heartbeat(group, "member-a", a2.member_epoch, owned=assigned(a2)))
    rec.call("a's greater epoch is fenced", HEARTBEAT, 1,
             heartbeat(group, "member-a", a3.member_epoch + 1, owned=assigned(a2)))
    b2 = rec.call("b gets the rest", HEARTBEAT, 1,
                  heartbeat(group, "member-b", b.member_epoch, owned={}))
    call_describe(rec, "describe when stable", DESCRIBE, 1, describe(group))
    call_describe(rec, "describe v0", DESCRIBE, 0, describe(group))
    for label, states, types in (("list consumer groups", [], ["consumer"]),
                                 ("list classic groups", [], ["classic"]),
                                 ("list stable groups", ["stable"], [])):
        listed_here(rec, label, names.base, lsg.ListGroupsRequest(states_filter=states,
                                                                   types_filter=types))
    call_describe(rec, "describe groups v5", rq.DESCRIBE_GROUPS, 5, dsg.DescribeGroupsRequest(
        groups=[group], include_authorized_operations=False))
    rec.call("fetch offsets", rq.OFFSET_FETCH, 8, of.OffsetFetchRequest(groups=[
        of.OffsetFetchRequestGroup(group_id=group, topics=None)]))
    for label, member, epoch in (("at its epoch", "member-a", a3.member_epoch),
                                 ("with a stale epoch", "member-a", a3.member_epoch - 1),
                                 ("as an unknown member", "nobody", 1),
                                 ("without a member", None, -1),
                                 ("with an empty member id", "", -1)):
        rec.call(f"fetch v9 {label}", rq.OFFSET_FETCH, 9, of.OffsetFetchRequest(groups=[
            of.OffsetFetchRequestGroup(group_id=group, member_id=member, member_epoch=epoch,
                                       topics=None)]))
    rec.call("b leaves", HEARTBEAT, 1, heartbeat(group, "member-b", -1))
    rec.call("b again", HEARTBEAT, 1, heartbeat(group, "member-b", b2.member_epoch))
    rec.call("a takes everything back", HEARTBEAT, 1,
             heartbeat(group, "member-a", a3.member_epoch, owned=assigned(a2)))
    rec.call("a leaves", HEARTBEAT, 1, heartbeat(group, "member-a", -1))
    call_describe(rec, "describe when empty", DESCRIBE, 1, describe(group))
    rec.call("delete the empty group", rq.DELETE_GROUPS, 2, rq_delete(group))
    call_describe(rec, "describe when deleted", DESCRIBE, 1, describe(group))


def listed_here(rec: Recorder, label: str, base: str, body: lsg.ListGroupsRequest) -> None:
    """ListGroups, recorded with only this test's groups (the brokers are shared)."""
    resp = rec.quietly(rq.LIST_GROUPS, 5, body)
    resp.groups = [g for g in resp.groups if g.group_id.startswith(base)]
    rec.record(label, rq.LIST_GROUPS, 5, resp)


def call_describe(rec: Recorder, label: str, api_key: int, version: int, body) -> None:
    rec.call(label, api_key, version, body, unordered=["groups[*].members"])


def rq_delete(group: str):
    from protocol.messages import delete_groups_request as dg

    return dg.DeleteGroupsRequest(groups_names=[group])


def static_members(rec: Recorder, names) -> None:
    """A static member leaves for a while (-2) and a new process takes its instance back; a
    second claim while it is active is refused; the wrong member id is fenced."""
    topic, group = names.topic, names("static")
    coordinator_ready(rec, group)
    create_topic(rec, topic, 4)
    topic_seen(rec, topic, names("probe"))
    a = rec.call("a joins", HEARTBEAT, 1, join(group, "a-1", [topic], instance="inst-a"))
    b = rec.call("b joins", HEARTBEAT, 1, join(group, "b-1", [topic], instance="inst-b"))
    a2 = rec.call("a revokes", HEARTBEAT, 1, heartbeat(group, "a-1", a.member_epoch,
                                                       owned=assigned(a), instance="inst-a"))
    rec.call("a done", HEARTBEAT, 1, heartbeat(group, "a-1", a2.member_epoch,
                                               owned=assigned(a2), instance="inst-a"))
    rec.call("b heartbeats", HEARTBEAT, 1, heartbeat(group, "b-1", b.member_epoch, owned={},
                                                     instance="inst-b"))
    rec.call("another process claims inst-a", HEARTBEAT, 1,
             join(group, "a-2", [topic], instance="inst-a"))
    rec.call("a leaves for a while", HEARTBEAT, 1,
             heartbeat(group, "a-1", -2, instance="inst-a"))
    call_describe(rec, "describe with a away", DESCRIBE, 1, describe(group))
    rec.call("a comes back as a-2", HEARTBEAT, 1, join(group, "a-2", [topic],
                                                       instance="inst-a"))
    rec.call("the old id for inst-a", HEARTBEAT, 1,
             heartbeat(group, "b-1", 1, instance="inst-a"))
    call_describe(rec, "describe with a back", DESCRIBE, 1, describe(group))
    rec.call("a-2 leaves", HEARTBEAT, 1, heartbeat(group, "a-2", -1, instance="inst-a"))
    rec.call("b leaves", HEARTBEAT, 1, heartbeat(group, "b-1", -1, instance="inst-b"))


def test_validation(pair4, names) -> None:
    pair4.check(validation, names, KNOWN)


def test_two_members(pair4, names) -> None:
    pair4.check(two_members, names, KNOWN)


def test_static_members(pair4, names) -> None:
    pair4.check(static_members, names, KNOWN)
