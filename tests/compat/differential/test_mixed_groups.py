"""Differential tests of KIP-848's mixed groups: a classic member (JoinGroup, SyncGroup,
Heartbeat, LeaveGroup) inside a consumer group, against Apache Kafka 4.1 in KRaft mode.

A consumer-protocol member holds every partition; a classic member joins (asked for a member
id first), is answered with its member epoch as the generation and no member list, gets an
empty assignment from SyncGroup while the other still holds what it will get, is told to
rejoin (REBALANCE_IN_PROGRESS) once the other has revoked, rejoins and gets its partitions;
it commits offsets at its generation; the refusals (an unsupported protocol, a wrong
generation, a consumer-protocol member using the classic APIs) carry Kafka's errors; it leaves
and the other gets everything back. The broker-made member id and which partitions each member
gets (the assignors walk members in different orders) are masked; that the two members share
the partitions without overlap is checked on each broker.
"""

from __future__ import annotations

import struct

from protocol.messages import (
    consumer_protocol_assignment as cpa,
    consumer_protocol_subscription as cps,
    describe_groups_request as dsg,
    heartbeat_request as hbq,
    join_group_request as jg,
    leave_group_request as lg,
    offset_commit_request as oc,
    sync_group_request as sg,
)
from tests.compat.differential import requests as rq
from tests.compat.differential.differ import Known, Recorder
from tests.compat.differential.steps import create_topic
from tests.compat.differential.test_consumer_groups import (
    DESCRIBE,
    HEARTBEAT,
    assigned,
    call_describe,
    coordinator_ready,
    describe,
    heartbeat,
    join,
    topic_seen,
)

KNOWN: list[Known] = []

#: what differs by nature between the two brokers: the member id the broker made, and which
#: partitions the assignor gave each member
MASK = ("member_id", "assignment", "members[*].member_id", "groups[*].members[*].member_id",
        "groups[*].members[*].assignment", "groups[*].members[*].target_assignment")


def subscription(topics: list[str], version: int = 1) -> bytes:
    body = cps.encode(cps.ConsumerProtocolSubscription(topics=topics, user_data=None), version)
    return struct.pack(">h", version) + body


def classic_join(group: str, member_id: str, topics: list[str], *, names=("range",),
                 protocol_type: str = "consumer") -> jg.JoinGroupRequest:
    return jg.JoinGroupRequest(
        group_id=group, session_timeout_ms=30_000, rebalance_timeout_ms=60_000,
        member_id=member_id, protocol_type=protocol_type,
        protocols=[jg.JoinGroupRequestProtocol(name=n, metadata=subscription(topics))
                   for n in names])


def partitions_of(sync) -> list[int]:
    data = bytes(sync.assignment)
    (version,) = struct.unpack_from(">h", data)
    decoded = cpa.decode(data[2:], version)
    return sorted(p for tp in decoded.assigned_partitions for p in tp.partitions)


def mixed_group(rec: Recorder, names) -> None:
    topic, group = names.topic, names("mixed")
    coordinator_ready(rec, group)
    create_topic(rec, topic, 4)
    topic_seen(rec, topic, names("probe"))
    a = rec.call("a joins", HEARTBEAT, 1, join(group, "member-a", [topic]))
    a = rec.call("a settles", HEARTBEAT, 1, heartbeat(group, "member-a", a.member_epoch,
                                                      owned=assigned(a)))
    first = rec.call("a classic member joins without an id", rq.JOIN_GROUP, 9,
                     classic_join(group, "", [topic]), mask=MASK)
    c = first.member_id
    joined = rec.call("it joins with the id it was given", rq.JOIN_GROUP, 9,
                      classic_join(group, c, [topic]), mask=MASK)
    sync = rec.call("its first sync", rq.SYNC_GROUP, 5, sg.SyncGroupRequest(
        group_id=group, generation_id=joined.generation_id, member_id=c,
        protocol_type="consumer", protocol_name="range"), mask=MASK)
    assert partitions_of(sync) == [], "the other member still holds them"
    rec.call("it heartbeats while the other holds its partitions", rq.HEARTBEAT, 4,
             hbq.HeartbeatRequest(group_id=group, generation_id=joined.generation_id,
                                  member_id=c))
    a2 = rec.call("a is asked to revoke", HEARTBEAT, 1,
                  heartbeat(group, "member-a", a.member_epoch, owned=assigned(a)), mask=MASK)
    a3 = rec.call("a revokes", HEARTBEAT, 1,
                  heartbeat(group, "member-a", a2.member_epoch, owned=assigned(a2)),
                  mask=MASK)
    rec.call("the classic member is told to rejoin", rq.HEARTBEAT, 4, hbq.HeartbeatRequest(
        group_id=group, generation_id=joined.generation_id, member_id=c))
    rejoined = rec.call("it rejoins", rq.JOIN_GROUP, 9, classic_join(group, c, [topic]),
                        mask=MASK)
    sync2 = rec.call("and syncs", rq.SYNC_GROUP, 5, sg.SyncGroupRequest(
        group_id=group, generation_id=rejoined.generation_id, member_id=c,
        protocol_type="consumer", protocol_name="range"), mask=MASK)
    kept = assigned(a3) or assigned(a2)  # (a heartbeat without a change carries none)
    mine, others = partitions_of(sync2), sorted(p for ps in kept.values() for p in ps)
    assert len(mine) == 2 and sorted(mine + others) == [0, 1, 2, 3], (mine, others)
    rec.call("it heartbeats", rq.HEARTBEAT, 4, hbq.HeartbeatRequest(
        group_id=group, generation_id=rejoined.generation_id, member_id=c))
    call_describe(rec, "describe the mixed group", DESCRIBE, 1, describe(group))
    commit = oc.OffsetCommitRequest(
        group_id=group, generation_id_or_member_epoch=rejoined.generation_id, member_id=c,
        topics=[oc.OffsetCommitRequestTopic(name=topic, partitions=[
            oc.OffsetCommitRequestPartition(partition_index=mine[0], committed_offset=0)])])
    rec.call("it commits at its generation", rq.OFFSET_COMMIT, 8, commit)
    commit.generation_id_or_member_epoch += 3
    rec.call("and with a wrong one", rq.OFFSET_COMMIT, 8, commit)
    refusals = {
        "another protocol name": classic_join(group, "", [topic], names=("roundrobin",)),
        "another protocol type": classic_join(group, "", [topic], protocol_type="connect"),
    }
    for label, body in refusals.items():
        rec.call(f"refused: {label}", rq.JOIN_GROUP, 9, body, mask=MASK)
    rec.call("refused: a sync at a wrong generation", rq.SYNC_GROUP, 5, sg.SyncGroupRequest(
        group_id=group, generation_id=rejoined.generation_id + 1, member_id=c,
        protocol_type="consumer", protocol_name="range"))
    rec.call("refused: a sync with another protocol name", rq.SYNC_GROUP, 5,
             sg.SyncGroupRequest(group_id=group, generation_id=rejoined.generation_id,
                                 member_id=c, protocol_type="consumer",
                                 protocol_name="roundrobin"))
    rec.call("refused: a heartbeat at a wrong generation", rq.HEARTBEAT, 4,
             hbq.HeartbeatRequest(group_id=group, generation_id=rejoined.generation_id + 1,
                                  member_id=c))
    rec.call("refused: an unknown member's heartbeat", rq.HEARTBEAT, 4, hbq.HeartbeatRequest(
        group_id=group, generation_id=rejoined.generation_id, member_id="nobody"))
    rec.call("refused: the consumer-protocol member's classic heartbeat", rq.HEARTBEAT, 4,
             hbq.HeartbeatRequest(group_id=group, generation_id=a3.member_epoch,
                                  member_id="member-a"))
    rec.call("the classic member leaves", rq.LEAVE_GROUP, 5, lg.LeaveGroupRequest(
        group_id=group, members=[lg.MemberIdentity(member_id=c),
                                 lg.MemberIdentity(member_id="nobody")]), mask=MASK)
    rec.call("a gets everything back", HEARTBEAT, 1,
             heartbeat(group, "member-a", a3.member_epoch, owned=kept))
    rec.call("a leaves", HEARTBEAT, 1, heartbeat(group, "member-a", -1))


def assignment_of(topic: str, partitions: list[int]) -> bytes:
    body = cpa.encode(cpa.ConsumerProtocolAssignment(
        assigned_partitions=[cpa.TopicPartition(topic=topic, partitions=partitions)],
        user_data=None), 1)
    return struct.pack(">h", 1) + body


def upgrade(rec: Recorder, names) -> None:
    """A classic group of one member, which assigned itself every partition, becomes a consumer
    group when a consumer-protocol member joins (the online upgrade): the new member waits for
    what the classic member still holds, the classic member is told to rejoin, revokes by
    rejoining without them, and both end up with half."""
    topic, group = names.topic, names("upgraded")
    coordinator_ready(rec, group)
    create_topic(rec, topic, 4)
    topic_seen(rec, topic, names("probe"))
    first = rec.call("a classic member joins without an id", rq.JOIN_GROUP, 9,
                     classic_join(group, "", [topic]), mask=MASK)
    c = first.member_id
    led = rec.call("it joins and leads", rq.JOIN_GROUP, 9, classic_join(group, c, [topic]),
                   mask=MASK + ("leader", "members[*].metadata"))
    rec.call("it assigns itself everything", rq.SYNC_GROUP, 5, sg.SyncGroupRequest(
        group_id=group, generation_id=led.generation_id, member_id=c, protocol_type="consumer",
        protocol_name="range", assignments=[sg.SyncGroupRequestAssignment(
            member_id=c, assignment=assignment_of(topic, [0, 1, 2, 3]))]))
    a = rec.call("a consumer-protocol member joins the classic group", HEARTBEAT, 1,
                 join(group, "member-a", [topic]), mask=MASK)
    call_describe(rec, "describe the converted group", DESCRIBE, 1, describe(group))
    rec.call("the classic member is told to rejoin", rq.HEARTBEAT, 4, hbq.HeartbeatRequest(
        group_id=group, generation_id=led.generation_id, member_id=c))
    rejoined = rec.call("it rejoins, without its partitions", rq.JOIN_GROUP, 9,
                        classic_join(group, c, [topic]), mask=MASK)
    sync = rec.call("and syncs", rq.SYNC_GROUP, 5, sg.SyncGroupRequest(
        group_id=group, generation_id=rejoined.generation_id, member_id=c,
        protocol_type="consumer", protocol_name="range"), mask=MASK)
    a2 = rec.call("a heartbeats", HEARTBEAT, 1, heartbeat(group, "member-a", a.member_epoch,
                                                          owned=assigned(a)), mask=MASK)
    mine, theirs = partitions_of(sync), sorted(p for ps in assigned(a2).values() for p in ps)
    assert len(mine) == 2 and sorted(mine + theirs) == [0, 1, 2, 3], (mine, theirs)
    rec.call("the classic member leaves", rq.LEAVE_GROUP, 5, lg.LeaveGroupRequest(
        group_id=group, members=[lg.MemberIdentity(member_id=c)]), mask=MASK)
    rec.call("a leaves", HEARTBEAT, 1, heartbeat(group, "member-a", -1))


def test_a_classic_member_in_a_consumer_group(pair4, names) -> None:
    pair4.check(mixed_group, names, KNOWN)


def test_a_classic_group_upgraded_by_a_consumer_protocol_member(pair4, names) -> None:
    pair4.check(upgrade, names, KNOWN)


def downgrade(rec: Recorder, names) -> None:
    """The last consumer-protocol member of a consumer group leaves; the classic member that
    remains is told to rejoin, and rejoins a classic group (the online downgrade), which it now
    leads, assigning itself the partitions."""
    topic, group = names.topic, names("downgraded")
    coordinator_ready(rec, group)
    create_topic(rec, topic, 4)
    topic_seen(rec, topic, names("probe"))
    a = rec.call("a joins", HEARTBEAT, 1, join(group, "member-a", [topic]))
    rec.call("a settles", HEARTBEAT, 1, heartbeat(group, "member-a", a.member_epoch,
                                                  owned=assigned(a)))
    c = rec.call("a classic member joins without an id", rq.JOIN_GROUP, 9,
                 classic_join(group, "", [topic]), mask=MASK).member_id
    joined = rec.call("it joins", rq.JOIN_GROUP, 9, classic_join(group, c, [topic]), mask=MASK)
    rec.call("it syncs", rq.SYNC_GROUP, 5, sg.SyncGroupRequest(
        group_id=group, generation_id=joined.generation_id, member_id=c,
        protocol_type="consumer", protocol_name="range"), mask=MASK)
    rec.call("the last consumer-protocol member leaves", HEARTBEAT, 1,
             heartbeat(group, "member-a", -1))
    rec.call("the classic member is told to rejoin", rq.HEARTBEAT, 4, hbq.HeartbeatRequest(
        group_id=group, generation_id=joined.generation_id, member_id=c))
    call_describe(rec, "describe it as a consumer group", DESCRIBE, 1, describe(group))
    led = rec.call("it rejoins the classic group, and leads it", rq.JOIN_GROUP, 9,
                   classic_join(group, c, [topic]),
                   mask=MASK + ("leader", "members[*].metadata"))
    rec.call("it assigns itself everything", rq.SYNC_GROUP, 5, sg.SyncGroupRequest(
        group_id=group, generation_id=led.generation_id, member_id=c, protocol_type="consumer",
        protocol_name="range", assignments=[sg.SyncGroupRequestAssignment(
            member_id=c, assignment=assignment_of(topic, [0, 1, 2, 3]))]))
    call_describe(rec, "describe the classic group", rq.DESCRIBE_GROUPS, 5,
                  dsg.DescribeGroupsRequest(groups=[group], include_authorized_operations=False))
    rec.call("a comes back with the consumer protocol", HEARTBEAT, 1,
             join(group, "member-a", [topic]), mask=MASK)
    rec.call("the classic member leaves", rq.LEAVE_GROUP, 5, lg.LeaveGroupRequest(
        group_id=group, members=[lg.MemberIdentity(member_id=c)]), mask=MASK)
    rec.call("a leaves", HEARTBEAT, 1, heartbeat(group, "member-a", -1))


def test_a_consumer_group_downgraded_when_its_last_consumer_protocol_member_leaves(
        pair4, names) -> None:
    pair4.check(downgrade, names, KNOWN)
