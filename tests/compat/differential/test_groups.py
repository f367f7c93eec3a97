"""Differential tests of the classic consumer-group protocol as clients drive it: FindCoordinator,
JoinGroup, SyncGroup, Heartbeat, LeaveGroup, OffsetCommit, OffsetFetch, DescribeGroups,
ListGroups, DeleteGroups and OffsetDelete, at old and flexible versions; and Kafka 3.9's answer
to KIP-848's ConsumerGroupHeartbeat and ConsumerGroupDescribe with its default protocols.

Each scenario runs against pybroker and against Apache Kafka 3.9 (see differ.py); the answers
must agree field by field except where KNOWN (below) says why not. Member ids are each broker's
own (masked by the harness); a JoinGroup that waits for other members is sent with
``Recorder.start`` and the other members join through ``Recorder.other`` connections.
Both brokers run with ``group.initial.rebalance.delay.ms=0``, so a new group's first join
completes at once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from protocol.messages import (
    api_versions_request as av,
    consumer_group_describe_request as cgd,
    consumer_group_heartbeat_request as cgh,
    consumer_protocol_assignment as cpa,
    consumer_protocol_subscription as cps,
    delete_groups_request as dg,
    describe_groups_request as dsg,
    find_coordinator_request as fc,
    heartbeat_request as hb,
    join_group_request as jg,
    leave_group_request as lg,
    list_groups_request as lsg,
    offset_commit_request as oc,
    offset_delete_request as od,
    offset_fetch_request as of,
    sync_group_request as sg,
)
from tests.compat.differential import requests as rq
from tests.compat.differential.differ import Known, Recorder
from tests.compat.differential.steps import create_topic, wait_until

CONSUMER_GROUP_HEARTBEAT, CONSUMER_GROUP_DESCRIBE = 68, 69

#: the differences from Apache Kafka these scenarios show, each with its reason
KNOWN: list[Known] = [
    Known("offset_commit_versions", "fetch v[01] of *", "topics{T}.partitions{*}.*",
          "Kafka in ZooKeeper mode keeps OffsetCommit v0 offsets in ZooKeeper and serves "
          "OffsetFetch v0 from there: a store apart from the group coordinator's, holding the "
          "offset only (no metadata) and answering UNKNOWN_TOPIC_OR_PARTITION where it has "
          "none. pybroker keeps no offsets in ZooKeeper: v0 commits and fetches use the group "
          "coordinator's offsets like v1+ (Kafka in KRaft mode rejects v0 with "
          "UNSUPPORTED_VERSION)."),
    Known("offset_commit_versions", "describe the v0 group", "groups{T-c0}.group_state",
          "An OffsetCommit v0 goes to ZooKeeper on Kafka and creates no group (Dead); pybroker "
          "stores it with the group coordinator, which creates the group (Empty), as a v1+ "
          "commit does on both."),
    Known("offset_fetch_versions", "v0 *", "topics{*}.partitions{*}.*",
          "OffsetFetch v0 reads ZooKeeper on Kafka in ZooKeeper mode (nothing was committed "
          "there: UNKNOWN_TOPIC_OR_PARTITION, offset -1, no metadata); pybroker keeps no "
          "offsets in ZooKeeper and answers v0 from the group coordinator's offsets like v1."),
]

SESSION_MS = 30_000
REBALANCE_MS = 30_000
END_TXN = 26

#: members of JoinGroup (leader) and DescribeGroups answers: Kafka keeps them in a hash map
MEMBERS = ("members", "groups[*].members")


# -- set-up ------------------------------------------------------------------------------------


def coordinator_ready(rec: Recorder, *groups: str) -> None:
    """Unrecorded: until ``__consumer_offsets`` exists and each group's coordinator has loaded
    (DescribeGroups says COORDINATOR_LOAD_IN_PROGRESS until then)."""
    wait_until("the group coordinator", lambda: rec.quietly(
        rq.FIND_COORDINATOR, 1, fc.FindCoordinatorRequest(key=groups[0])).error_code == 0)
    wait_until("the groups' coordinator to load", lambda: all(
        g.error_code == 0 for g in rec.quietly(
            rq.DESCRIBE_GROUPS, 5, dsg.DescribeGroupsRequest(groups=list(groups))).groups))


def wait_for_state(rec: Recorder, group: str, state: str, members: int) -> None:
    """Unrecorded: until DescribeGroups shows ``group`` in ``state`` with that many members, so
    that a request sent on another connection is known to have been handled."""
    def reached() -> bool:
        (g,) = rec.quietly(rq.DESCRIBE_GROUPS, 5, describe(group)).groups
        return g.group_state == state and len(g.members) == members

    wait_until(f"{group} to be {state} with {members} member(s)", reached)


def runs_transactions(rec: Recorder) -> bool:
    """Whether the broker runs a transaction coordinator (advertises EndTxn)."""
    resp = rec.quietly(rq.API_VERSIONS, 3, av.ApiVersionsRequest(
        client_software_name="differential", client_software_version="1"))
    return any(k.api_key == END_TXN for k in resp.api_keys)


# -- request builders ------------------------------------------------------------------------


def subscription(*topics: str) -> bytes:
    """ConsumerProtocolSubscription v0, with its version prefix, as consumers send it."""
    return (0).to_bytes(2, "big") + cps.encode(
        cps.ConsumerProtocolSubscription(topics=list(topics)), 0)


def assignment(topic: str, *partitions: int) -> bytes:
    return (0).to_bytes(2, "big") + cpa.encode(cpa.ConsumerProtocolAssignment(
        assigned_partitions=[cpa.TopicPartition(topic=topic, partitions=list(partitions))]), 0)


def join_request(group: str, topic: str, member_id: str = "", *, instance: str | None = None,
                 protocol_type: str = "consumer",
                 protocols: Sequence[str] = ("range",)) -> jg.JoinGroupRequest:
    return jg.JoinGroupRequest(
        group_id=group, session_timeout_ms=SESSION_MS, rebalance_timeout_ms=REBALANCE_MS,
        member_id=member_id, group_instance_id=instance, protocol_type=protocol_type,
        protocols=[jg.JoinGroupRequestProtocol(name=p, metadata=subscription(topic))
                   for p in protocols],
        reason="differential test")


def join(rec: Recorder, label: str, version: int, group: str, topic: str, *,
         instance: str | None = None, wait: bool = True) -> Any:
    """A new member joins, as a client does: from v4 a dynamic member is first told
    MEMBER_ID_REQUIRED and joins again with the id it was given. With ``wait=False`` the
    (blocking) second JoinGroup is only sent: the function returned collects its answer."""
    member_id = ""
    if version >= 4 and instance is None:
        first = rec.call(f"{label} (member id required)", rq.JOIN_GROUP, version,
                         join_request(group, topic))
        member_id = first.member_id
    req = join_request(group, topic, member_id, instance=instance)
    if wait:
        return rec.call(label, rq.JOIN_GROUP, version, req, unordered=MEMBERS)
    return rec.start(label, rq.JOIN_GROUP, version, req, unordered=MEMBERS)


def rejoin(rec: Recorder, label: str, version: int, group: str, topic: str, member_id: str, *,
           instance: str | None = None, wait: bool = True) -> Any:
    req = join_request(group, topic, member_id, instance=instance)
    if wait:
        return rec.call(label, rq.JOIN_GROUP, version, req, unordered=MEMBERS)
    return rec.start(label, rq.JOIN_GROUP, version, req, unordered=MEMBERS)


def sync_request(group: str, generation: int, member_id: str, *, instance: str | None = None,
                 assignments: dict[str, bytes] | None = None) -> sg.SyncGroupRequest:
    return sg.SyncGroupRequest(
        group_id=group, generation_id=generation, member_id=member_id,
        group_instance_id=instance, protocol_type="consumer", protocol_name="range",
        assignments=[sg.SyncGroupRequestAssignment(member_id=m, assignment=a)
                     for m, a in (assignments or {}).items()])


def heartbeat(group: str, generation: int, member_id: str,
              instance: str | None = None) -> hb.HeartbeatRequest:
    return hb.HeartbeatRequest(group_id=group, generation_id=generation, member_id=member_id,
                               group_instance_id=instance)


def leave(group: str, *members: tuple[str, str | None]) -> lg.LeaveGroupRequest:
    """v0-2 send the first member id; v3+ all of ``(member id, instance id)``."""
    return lg.LeaveGroupRequest(
        group_id=group, member_id=members[0][0],
        members=[lg.MemberIdentity(member_id=m, group_instance_id=i, reason="done")
                 for m, i in members])


def commit(group: str, topic: str, offsets: dict[int, int], *, generation: int = -1,
           member_id: str = "", metadata: str | None = "meta", leader_epoch: int = -1,
           instance: str | None = None) -> oc.OffsetCommitRequest:
    return oc.OffsetCommitRequest(
        group_id=group, generation_id_or_member_epoch=generation, member_id=member_id,
        group_instance_id=instance,
        topics=[oc.OffsetCommitRequestTopic(name=topic, partitions=[
            oc.OffsetCommitRequestPartition(partition_index=p, committed_offset=o,
                                            committed_leader_epoch=leader_epoch,
                                            committed_metadata=metadata)
            for p, o in offsets.items()])])


def offset_fetch(version: int, group: str, topics: dict[str, list[int]] | None, *,
                 require_stable: bool = False) -> of.OffsetFetchRequest:
    """One group, in the v0-7 layout or the v8+ one; ``topics=None`` asks for all (v2+)."""
    if version >= 8:
        return of.OffsetFetchRequest(require_stable=require_stable, groups=[
            of.OffsetFetchRequestGroup(group_id=group, topics=None if topics is None else [
                of.OffsetFetchRequestTopics(name=t, partition_indexes=ps)
                for t, ps in topics.items()])])
    return of.OffsetFetchRequest(
        group_id=group, require_stable=require_stable,
        topics=None if topics is None else [
            of.OffsetFetchRequestTopic(name=t, partition_indexes=ps) for t, ps in topics.items()])


def describe(*groups: str, operations: bool = False) -> dsg.DescribeGroupsRequest:
    return dsg.DescribeGroupsRequest(groups=list(groups), include_authorized_operations=operations)


def list_groups(rec: Recorder, label: str, version: int, names, *, states: Sequence[str] = (),
                types: Sequence[str] = ()) -> None:
    """ListGroups, recorded with only this test's groups (the reference broker is shared)."""
    resp = rec.quietly(rq.LIST_GROUPS, version, lsg.ListGroupsRequest(
        states_filter=list(states), types_filter=list(types)))
    resp.groups = [g for g in resp.groups if g.group_id.startswith(names.base)]
    rec.record(label, rq.LIST_GROUPS, version, resp)


def delete_offsets(group: str, topics: dict[str, list[int]]) -> od.OffsetDeleteRequest:
    return od.OffsetDeleteRequest(group_id=group, topics=[
        od.OffsetDeleteRequestTopic(name=t, partitions=[
            od.OffsetDeleteRequestPartition(partition_index=p) for p in ps])
        for t, ps in topics.items()])


# -- scenarios -------------------------------------------------------------------------------


def find_coordinator_answers(rec: Recorder, names) -> None:
    """FindCoordinator for groups at v0-v4 (batched from v4), empty keys and other key types."""
    group = names("g")
    coordinator_ready(rec, group)
    for version in range(4):
        rec.call(f"group v{version}", rq.FIND_COORDINATOR, version,
                 fc.FindCoordinatorRequest(key=group))
    rec.call("group v4, two keys", rq.FIND_COORDINATOR, 4,
             fc.FindCoordinatorRequest(coordinator_keys=[group, names("h")]))
    rec.call("empty group id v3", rq.FIND_COORDINATOR, 3, fc.FindCoordinatorRequest(key=""))
    rec.call("empty group id v4", rq.FIND_COORDINATOR, 4,
             fc.FindCoordinatorRequest(coordinator_keys=[""]))
    txn = names("txn")
    if runs_transactions(rec):
        # the first lookup creates __transaction_state; compare the settled answers
        wait_until("the transaction coordinator", lambda: rec.quietly(
            rq.FIND_COORDINATOR, 3, fc.FindCoordinatorRequest(key=txn, key_type=1)
        ).error_code == 0)
    for version in (1, 3):
        rec.call(f"transaction key v{version}", rq.FIND_COORDINATOR, version,
                 fc.FindCoordinatorRequest(key=txn, key_type=1))
    rec.call("transaction key v4", rq.FIND_COORDINATOR, 4,
             fc.FindCoordinatorRequest(coordinator_keys=[txn], key_type=1))
    rec.call("share key type v4", rq.FIND_COORDINATOR, 4,
             fc.FindCoordinatorRequest(coordinator_keys=[group], key_type=2))
    rec.call("unknown key type v3", rq.FIND_COORDINATOR, 3,
             fc.FindCoordinatorRequest(key=group, key_type=7))
    rec.call("unknown key type v4", rq.FIND_COORDINATOR, 4,
             fc.FindCoordinatorRequest(coordinator_keys=[group], key_type=7))


def member_life_by_version(rec: Recorder, names) -> None:
    """One member's life at each JoinGroup version 0-9, with SyncGroup, Heartbeat, OffsetCommit,
    OffsetFetch, DescribeGroups and LeaveGroup at the matching (capped) versions: join, sync,
    heartbeat, commit and fetch, the leader rejoins (a new generation), leave."""
    topic = names.topic
    create_topic(rec, topic, 2)
    groups = [names(f"v{v}") for v in range(10)]
    coordinator_ready(rec, *groups)
    for v, group in enumerate(groups):
        sv, hv, lv, dv, cv = min(v, 5), min(v, 4), min(v, 5), min(v, 5), max(v, 1)
        joined = join(rec, f"v{v} join", v, group, topic)
        me, gen = joined.member_id, joined.generation_id
        rec.call(f"v{v} sync", rq.SYNC_GROUP, sv, sync_request(
            group, gen, me, assignments={me: assignment(topic, 0, 1)}))
        rec.call(f"v{v} heartbeat", rq.HEARTBEAT, hv, heartbeat(group, gen, me))
        rec.call(f"v{v} describe stable", rq.DESCRIBE_GROUPS, dv, describe(group),
                 unordered=MEMBERS)
        rec.call(f"v{v} commit v{cv}", rq.OFFSET_COMMIT, cv, commit(
            group, topic, {0: 10 + v, 1: 20 + v}, generation=gen, member_id=me,
            leader_epoch=0))
        rec.call(f"v{v} fetch v{cv}", rq.OFFSET_FETCH, cv,
                 offset_fetch(cv, group, {topic: [0, 1]}))
        again = rejoin(rec, f"v{v} leader rejoins", v, group, topic, me)
        rec.call(f"v{v} sync again", rq.SYNC_GROUP, sv, sync_request(
            group, again.generation_id, me, assignments={me: assignment(topic, 0)}))
        rec.call(f"v{v} heartbeat old generation", rq.HEARTBEAT, hv, heartbeat(group, gen, me))
        rec.call(f"v{v} leave", rq.LEAVE_GROUP, lv, leave(group, (me, None), ("nobody", None)))
        rec.call(f"v{v} leave again", rq.LEAVE_GROUP, lv, leave(group, (me, None)))
        rec.call(f"v{v} describe empty", rq.DESCRIBE_GROUPS, dv, describe(group))
        rec.call(f"v{v} heartbeat after leaving", rq.HEARTBEAT, hv,
                 heartbeat(group, again.generation_id, me))


def two_members(rec: Recorder, names) -> None:
    """A second member joins a Stable group: the first hears REBALANCE_IN_PROGRESS and rejoins;
    leader and follower sync; errors for stale generations and unknown members; batch leave."""
    topic, group = names.topic, names("g")
    create_topic(rec, topic, 2)
    coordinator_ready(rec, group)
    other = rec.other()
    a = join(rec, "a joins", 5, group, topic)
    gen1 = a.generation_id
    rec.call("a syncs", rq.SYNC_GROUP, 5, sync_request(
        group, gen1, a.member_id, assignments={a.member_id: assignment(topic, 0, 1)}))
    rec.call("a heartbeat (stable)", rq.HEARTBEAT, 4, heartbeat(group, gen1, a.member_id))
    b_joined = join(other, "b joins", 7, group, topic, wait=False)
    wait_for_state(rec, group, "PreparingRebalance", 2)
    rec.call("a heartbeat (rebalance pending)", rq.HEARTBEAT, 4,
             heartbeat(group, gen1, a.member_id))
    rec.call("describe preparing", rq.DESCRIBE_GROUPS, 5, describe(group), unordered=MEMBERS)
    rec.call("a commits during the rebalance", rq.OFFSET_COMMIT, 8, commit(
        group, topic, {0: 5}, generation=gen1, member_id=a.member_id))
    rec.call("a syncs during the rebalance", rq.SYNC_GROUP, 5, sync_request(
        group, gen1, a.member_id))
    a = rejoin(rec, "a rejoins", 5, group, topic, a.member_id)
    b = b_joined()
    gen2 = a.generation_id
    assert a.leader == a.member_id, "the first member leads"
    rec.call("describe completing", rq.DESCRIBE_GROUPS, 5, describe(group), unordered=MEMBERS)
    rec.call("a heartbeat (completing)", rq.HEARTBEAT, 4, heartbeat(group, gen2, a.member_id))
    rec.call("a commits before its assignment", rq.OFFSET_COMMIT, 8, commit(
        group, topic, {0: 6}, generation=gen2, member_id=a.member_id))
    b_synced = other.start("b syncs (follower)", rq.SYNC_GROUP, 3, sync_request(
        group, gen2, b.member_id))
    rec.call("a syncs (leader)", rq.SYNC_GROUP, 5, sync_request(
        group, gen2, a.member_id,
        assignments={a.member_id: assignment(topic, 0), b.member_id: assignment(topic, 1)}))
    b_synced()
    rec.call("describe stable", rq.DESCRIBE_GROUPS, 5, describe(group), unordered=MEMBERS)
    other.call("b heartbeat", rq.HEARTBEAT, 2, heartbeat(group, gen2, b.member_id))
    rec.call("heartbeat old generation", rq.HEARTBEAT, 4, heartbeat(group, gen1, a.member_id))
    rec.call("heartbeat unknown member", rq.HEARTBEAT, 4, heartbeat(group, gen2, "nobody"))
    rec.call("heartbeat v0 unknown member", rq.HEARTBEAT, 0, heartbeat(group, gen2, "nobody"))
    rec.call("heartbeat unknown group", rq.HEARTBEAT, 4,
             heartbeat(names("missing"), 1, "nobody"))
    rec.call("sync old generation", rq.SYNC_GROUP, 5, sync_request(group, gen1, a.member_id))
    rec.call("sync unknown member", rq.SYNC_GROUP, 5, sync_request(group, gen2, "nobody"))
    rec.call("sync unknown group", rq.SYNC_GROUP, 5,
             sync_request(names("missing"), 1, "nobody"))
    rec.call("sync v5 wrong protocol name", rq.SYNC_GROUP, 5, sg.SyncGroupRequest(
        group_id=group, generation_id=gen2, member_id=a.member_id,
        protocol_type="consumer", protocol_name="roundrobin"))
    rec.call("sync v5 wrong protocol type", rq.SYNC_GROUP, 5, sg.SyncGroupRequest(
        group_id=group, generation_id=gen2, member_id=a.member_id,
        protocol_type="connect", protocol_name="range"))
    rec.call("sync v5 no protocol given", rq.SYNC_GROUP, 5, sg.SyncGroupRequest(
        group_id=group, generation_id=gen2, member_id=a.member_id))
    rec.call("sync empty group id", rq.SYNC_GROUP, 5, sync_request("", gen2, a.member_id))
    rec.call("sync stable (assignment again)", rq.SYNC_GROUP, 4, sync_request(
        group, gen2, a.member_id))
    rec.call("join unknown member id", rq.JOIN_GROUP, 6,
             join_request(group, topic, "nobody"))
    rec.call("join unknown member id, unknown group", rq.JOIN_GROUP, 6,
             join_request(names("missing"), topic, "nobody"))
    rec.call("join other protocol type", rq.JOIN_GROUP, 6,
             join_request(group, topic, protocol_type="connect"))
    rec.call("join unsupported protocol", rq.JOIN_GROUP, 6,
             join_request(group, topic, protocols=("roundrobin",)))
    rec.call("join empty group id", rq.JOIN_GROUP, 6, join_request("", topic))
    bad_session = join_request(group, topic)
    bad_session.session_timeout_ms = 1000
    rec.call("join session timeout too small", rq.JOIN_GROUP, 6, bad_session)
    bad_session.session_timeout_ms = 1_800_001
    rec.call("join session timeout too large", rq.JOIN_GROUP, 6, bad_session)
    no_protocols = join_request(names("new"), topic)
    no_protocols.protocols = []
    rec.call("join a new group, no protocols", rq.JOIN_GROUP, 6, no_protocols)
    rec.call("join a new group, empty protocol type", rq.JOIN_GROUP, 6,
             join_request(names("new"), topic, protocol_type=""))
    pending = rec.call("join for a member id", rq.JOIN_GROUP, 6, join_request(group, topic))
    rec.call("pending member heartbeat", rq.HEARTBEAT, 4,
             heartbeat(group, gen2, pending.member_id))
    rec.call("pending member syncs", rq.SYNC_GROUP, 5, sync_request(
        group, gen2, pending.member_id))
    rec.call("pending member commits", rq.OFFSET_COMMIT, 8, commit(
        group, topic, {0: 7}, generation=gen2, member_id=pending.member_id))
    rec.call("pending member leaves", rq.LEAVE_GROUP, 2, leave(group, (pending.member_id, None)))
    rec.call("describe after the pending member left", rq.DESCRIBE_GROUPS, 5, describe(group),
             unordered=MEMBERS)
    rec.call("follower rejoins unchanged (stable)", rq.JOIN_GROUP, 6,
             join_request(group, topic, b.member_id), unordered=MEMBERS)
    rec.call("commit old generation", rq.OFFSET_COMMIT, 8, commit(
        group, topic, {0: 7}, generation=gen1, member_id=a.member_id))
    rec.call("commit unknown member", rq.OFFSET_COMMIT, 8, commit(
        group, topic, {0: 7}, generation=gen2, member_id="nobody"))
    rec.call("simple commit to a group with members", rq.OFFSET_COMMIT, 8, commit(
        group, topic, {0: 7}))
    rec.call("member commits", rq.OFFSET_COMMIT, 8, commit(
        group, topic, {0: 8, 1: 9}, generation=gen2, member_id=a.member_id))
    rec.call("delete non-empty group", rq.DELETE_GROUPS, 2,
             dg.DeleteGroupsRequest(groups_names=[group]))
    rec.call("delete offsets of a subscribed topic", rq.OFFSET_DELETE, 0,
             delete_offsets(group, {topic: [0, 1]}))
    rec.call("leave unknown group v1", rq.LEAVE_GROUP, 1, leave(names("missing"), ("x", None)))
    rec.call("leave unknown group v3", rq.LEAVE_GROUP, 3, leave(
        names("missing"), ("x", None), ("", "inst")))
    rec.call("leave empty group id", rq.LEAVE_GROUP, 3, leave("", ("x", None)))
    rec.call("leave v2 unknown member", rq.LEAVE_GROUP, 2, leave(group, ("nobody", None)))
    rec.call("batch leave (b twice and strangers)", rq.LEAVE_GROUP, 4, leave(
        group, (b.member_id, None), ("nobody", None), ("", "no-instance"), (b.member_id, None)))
    rec.call("describe after b left", rq.DESCRIBE_GROUPS, 5, describe(group), unordered=MEMBERS)
    rec.call("a heartbeat (b left)", rq.HEARTBEAT, 4, heartbeat(group, gen2, a.member_id))
    a3 = rejoin(rec, "a rejoins alone", 5, group, topic, a.member_id)
    rec.call("a syncs alone", rq.SYNC_GROUP, 5, sync_request(
        group, a3.generation_id, a.member_id, assignments={a.member_id: assignment(topic, 0, 1)}))
    rec.call("a leaves (v0)", rq.LEAVE_GROUP, 0, leave(group, (a.member_id, None)))
    rec.call("describe empty", rq.DESCRIBE_GROUPS, 5, describe(group))
    rec.call("fetch what was committed", rq.OFFSET_FETCH, 9, offset_fetch(9, group, None))
    rec.call("delete offsets of the empty group", rq.OFFSET_DELETE, 0,
             delete_offsets(group, {topic: [0]}))
    rec.call("fetch after the delete", rq.OFFSET_FETCH, 9, offset_fetch(9, group, None))
    rec.call("delete the empty group", rq.DELETE_GROUPS, 2,
             dg.DeleteGroupsRequest(groups_names=[group]))
    rec.call("describe deleted", rq.DESCRIBE_GROUPS, 5, describe(group))
    rec.call("fetch deleted", rq.OFFSET_FETCH, 9, offset_fetch(9, group, None))


def rebalance_interplay(rec: Recorder, names) -> None:
    """Old clients (JoinGroup v1/v3, no MEMBER_ID_REQUIRED) through several rebalances: a
    repeated JoinGroup while CompletingRebalance, a changed subscription that sends a parked
    follower's SyncGroup back to JoinGroup, a leader's assignment that leaves a member out,
    and a member leaving while its own JoinGroup waits."""
    topic, group = names.topic, names("g")
    create_topic(rec, topic, 2)
    coordinator_ready(rec, group)
    other, third, fourth = rec.other(), rec.other(), rec.other()
    a = join(rec, "a joins (v1)", 1, group, topic)
    rec.call("a syncs (v1)", rq.SYNC_GROUP, 1, sync_request(
        group, a.generation_id, a.member_id, assignments={a.member_id: assignment(topic, 0, 1)}))
    b_joined = join(other, "b joins (v3)", 3, group, topic, wait=False)
    wait_for_state(rec, group, "PreparingRebalance", 2)
    a = rejoin(rec, "a rejoins (v1)", 1, group, topic, a.member_id)
    b = b_joined()
    rejoin(other, "b rejoins unchanged (completing)", 3, group, topic, b.member_id)
    rejoin(rec, "a rejoins unchanged (completing)", 1, group, topic, a.member_id)
    b_synced = other.start("b syncs, then hears of the rebalance", rq.SYNC_GROUP, 2,
                           sync_request(group, b.generation_id, b.member_id))
    changed = join_request(group, topic, a.member_id)
    changed.protocols[0].metadata = subscription(topic, names("other"))
    a_joined = rec.start("a rejoins with a new subscription", rq.JOIN_GROUP, 1, changed,
                         unordered=MEMBERS)
    b_synced()
    wait_for_state(other, group, "PreparingRebalance", 2)
    other.call("b heartbeat (v1)", rq.HEARTBEAT, 1, heartbeat(group, b.generation_id, b.member_id))
    b = rejoin(other, "b rejoins", 3, group, topic, b.member_id)
    a = a_joined()
    b_synced = other.start("b syncs (left out by the leader)", rq.SYNC_GROUP, 2,
                           sync_request(group, b.generation_id, b.member_id))
    rec.call("a syncs (leader, b left out, a stranger named)", rq.SYNC_GROUP, 2, sync_request(
        group, a.generation_id, a.member_id,
        assignments={a.member_id: assignment(topic, 0, 1), "ghost": assignment(topic, 1)}))
    b_synced()
    rec.call("describe", rq.DESCRIBE_GROUPS, 2, describe(group), unordered=MEMBERS)
    first = third.call("c joins (member id required)", rq.JOIN_GROUP, 5,
                       join_request(group, topic))
    c_joined = third.start("c joins", rq.JOIN_GROUP, 5,
                           join_request(group, topic, first.member_id), unordered=MEMBERS)
    wait_for_state(rec, group, "PreparingRebalance", 3)
    fourth.call("c leaves while its JoinGroup waits", rq.LEAVE_GROUP, 1,
                leave(group, (first.member_id, None)))
    c_joined()
    a_joined = rejoin(rec, "a rejoins after c left", 1, group, topic, a.member_id, wait=False)
    rejoin(other, "b rejoins after c left", 3, group, topic, b.member_id)
    a_joined()
    rec.call("describe after c left", rq.DESCRIBE_GROUPS, 2, describe(group), unordered=MEMBERS)
    rec.call("a leaves (v1)", rq.LEAVE_GROUP, 1, leave(group, (a.member_id, None)))
    other.call("b leaves (v1)", rq.LEAVE_GROUP, 1, leave(group, (b.member_id, None)))
    rec.call("describe empty", rq.DESCRIBE_GROUPS, 2, describe(group))


def static_members(rec: Recorder, names) -> None:
    """group.instance.id: static members skip MEMBER_ID_REQUIRED; a restarted instance takes
    over its slot without a rebalance and fences its old member id; leaving by instance id."""
    topic, group = names.topic, names("g")
    create_topic(rec, topic, 2)
    coordinator_ready(rec, group)
    other = rec.other()
    a = join(rec, "a joins (static)", 5, group, topic, instance="inst-a")
    rec.call("a syncs", rq.SYNC_GROUP, 5, sync_request(
        group, a.generation_id, a.member_id, instance="inst-a",
        assignments={a.member_id: assignment(topic, 0, 1)}))
    b_joined = join(other, "b joins (static)", 7, group, topic, instance="inst-b", wait=False)
    wait_for_state(rec, group, "PreparingRebalance", 2)
    a = rejoin(rec, "a rejoins", 7, group, topic, a.member_id, instance="inst-a")
    b = b_joined()
    gen = a.generation_id
    b_synced = other.start("b syncs", rq.SYNC_GROUP, 5, sync_request(
        group, gen, b.member_id, instance="inst-b"))
    rec.call("a syncs (leader)", rq.SYNC_GROUP, 5, sync_request(
        group, gen, a.member_id, instance="inst-a",
        assignments={a.member_id: assignment(topic, 0), b.member_id: assignment(topic, 1)}))
    b_synced()
    rec.call("describe static members", rq.DESCRIBE_GROUPS, 5, describe(group),
             unordered=MEMBERS)
    restarted = other.other()
    b2 = restarted.call("b restarts (v7)", rq.JOIN_GROUP, 7,
                        join_request(group, topic, instance="inst-b"), unordered=MEMBERS)
    restarted.call("b restarted syncs", rq.SYNC_GROUP, 5, sync_request(
        group, b2.generation_id, b2.member_id, instance="inst-b"))
    other.call("old b heartbeat (fenced)", rq.HEARTBEAT, 4,
               heartbeat(group, gen, b.member_id, "inst-b"))
    other.call("old b commit (fenced)", rq.OFFSET_COMMIT, 7, commit(
        group, topic, {1: 3}, generation=gen, member_id=b.member_id, instance="inst-b"))
    rec.call("leader restarts (v9)", rq.JOIN_GROUP, 9,
             join_request(group, topic, instance="inst-a"), unordered=MEMBERS)
    rec.call("a restarts (v5)", rq.JOIN_GROUP, 5,
             join_request(group, topic, instance="inst-a"), unordered=MEMBERS)
    rec.call("join known instance, wrong member id", rq.JOIN_GROUP, 7,
             join_request(group, topic, "nobody", instance="inst-b"))
    rec.call("heartbeat unknown instance", rq.HEARTBEAT, 4,
             heartbeat(group, gen, b2.member_id, "inst-x"))
    rec.call("describe after the restarts", rq.DESCRIBE_GROUPS, 5, describe(group),
             unordered=MEMBERS)
    rec.call("leave by instance id (and an unknown one)", rq.LEAVE_GROUP, 5, leave(
        group, ("", "inst-b"), ("", "inst-x")))
    rec.call("leave with a fenced member id", rq.LEAVE_GROUP, 5, leave(
        group, (a.member_id, "inst-a")))
    rec.call("describe after leaving", rq.DESCRIBE_GROUPS, 5, describe(group),
             unordered=MEMBERS)
    rec.call("the last one leaves by instance id", rq.LEAVE_GROUP, 3, leave(
        group, ("", "inst-a")))
    rec.call("describe empty", rq.DESCRIBE_GROUPS, 5, describe(group))


def offset_commit_versions(rec: Recorder, names) -> None:
    """Simple (generation -1, no member) commits at v1-v9 read back at the same version;
    v0 (ZooKeeper-stored on Kafka); errors for unknown topics and partitions and metadata
    size; commits for a group of another generation."""
    topic = names.topic
    create_topic(rec, topic, 2)
    groups = {v: names(f"c{v}") for v in range(10)}
    coordinator_ready(rec, *groups.values())
    for v in range(1, 10):
        group = groups[v]
        rec.call(f"commit v{v}", rq.OFFSET_COMMIT, v, commit(
            group, topic, {0: 100 + v, 1: 200 + v}, metadata=f"m{v}", leader_epoch=3))
        rec.call(f"fetch v{v}", rq.OFFSET_FETCH, v, offset_fetch(v, group, {topic: [0, 1]}))
    rec.call("commit v1 with a timestamp", rq.OFFSET_COMMIT, 1, oc.OffsetCommitRequest(
        group_id=groups[1], generation_id_or_member_epoch=-1, topics=[
            oc.OffsetCommitRequestTopic(name=topic, partitions=[oc.OffsetCommitRequestPartition(
                partition_index=0, committed_offset=111, commit_timestamp=rq.T0,
                committed_metadata="ts")])]))
    rec.call("fetch v1 after the timestamped commit", rq.OFFSET_FETCH, 1,
             offset_fetch(1, groups[1], {topic: [0]}))
    rec.call("commit v2 with a retention time", rq.OFFSET_COMMIT, 2, oc.OffsetCommitRequest(
        group_id=groups[2], generation_id_or_member_epoch=-1, retention_time_ms=3_600_000,
        topics=[oc.OffsetCommitRequestTopic(name=topic, partitions=[
            oc.OffsetCommitRequestPartition(partition_index=0, committed_offset=222)])]))
    rec.call("fetch v2 after the retention commit", rq.OFFSET_FETCH, 2,
             offset_fetch(2, groups[2], {topic: [0]}))
    # v0
    rec.call("commit v0", rq.OFFSET_COMMIT, 0, commit(groups[0], topic, {0: 7}))
    rec.call("fetch v0 of the v0 commit", rq.OFFSET_FETCH, 0,
             offset_fetch(0, groups[0], {topic: [0, 1]}))
    rec.call("fetch v1 of the v0 commit", rq.OFFSET_FETCH, 1,
             offset_fetch(1, groups[0], {topic: [0]}))
    rec.call("fetch v0 of a v1 commit", rq.OFFSET_FETCH, 0,
             offset_fetch(0, groups[1], {topic: [0]}))
    rec.call("describe the v0 group", rq.DESCRIBE_GROUPS, 5, describe(groups[0]))
    # errors
    g = groups[9]
    rec.call("unknown partition", rq.OFFSET_COMMIT, 9, commit(g, topic, {0: 1, 5: 1}))
    rec.call("unknown topic", rq.OFFSET_COMMIT, 9, commit(g, names("missing"), {0: 1}))
    rec.call("metadata of 4096 characters", rq.OFFSET_COMMIT, 9, commit(
        g, topic, {0: 300}, metadata="x" * 4096))
    rec.call("metadata of 4097 characters", rq.OFFSET_COMMIT, 9, commit(
        g, topic, {0: 301, 1: 301}, metadata="y" * 4097))
    rec.call("metadata too large at v0", rq.OFFSET_COMMIT, 0, commit(
        groups[0], topic, {0: 9}, metadata="y" * 4097))
    rec.call("null metadata", rq.OFFSET_COMMIT, 9, commit(g, topic, {1: 302}, metadata=None))
    rec.call("fetch after the errors", rq.OFFSET_FETCH, 9, offset_fetch(9, g, {topic: [0, 1]}))
    rec.call("negative offset", rq.OFFSET_COMMIT, 9, commit(g, topic, {0: -5}))
    rec.call("fetch the negative offset", rq.OFFSET_FETCH, 9, offset_fetch(9, g, {topic: [0]}))
    rec.call("generation 3 for an unknown group", rq.OFFSET_COMMIT, 9, commit(
        names("nogroup"), topic, {0: 1}, generation=3, member_id="someone"))
    rec.call("member id for a simple group", rq.OFFSET_COMMIT, 9, commit(
        g, topic, {0: 1}, generation=1, member_id="someone"))
    rec.call("describe a group of simple commits", rq.DESCRIBE_GROUPS, 5, describe(g))
    fresh = names("fresh")
    rec.call("only unknown topics, new group", rq.OFFSET_COMMIT, 9, commit(
        fresh, names("missing"), {0: 1}))
    rec.call("describe the group of the refused commit", rq.DESCRIBE_GROUPS, 5, describe(fresh))
    stale = commit(names("nogroup"), topic, {0: 1, 9: 1}, generation=3, member_id="someone")
    stale.topics.append(oc.OffsetCommitRequestTopic(name=names("missing"), partitions=[
        oc.OffsetCommitRequestPartition(partition_index=0, committed_offset=1)]))
    rec.call("generation 3, unknown group, unknown topic and partition", rq.OFFSET_COMMIT, 9,
             stale)


def offset_fetch_versions(rec: Recorder, names) -> None:
    """OffsetFetch v0-v9: known and unknown groups, topics and partitions, all partitions
    (topics=null, v2+), several groups at once (v8+), require_stable (v7+)."""
    topic, other_topic = names.topic, names("other")
    create_topic(rec, topic, 3)
    create_topic(rec, other_topic, 1)
    group, empty = names("g"), names("empty")
    coordinator_ready(rec, group, empty)
    rec.quietly(rq.OFFSET_COMMIT, 8, commit(group, topic, {0: 10, 2: 30}, leader_epoch=1))
    rec.quietly(rq.OFFSET_COMMIT, 8, commit(group, other_topic, {0: 5}, metadata=None))
    for v in range(10):
        rec.call(f"v{v} some partitions", rq.OFFSET_FETCH, v, offset_fetch(
            v, group, {topic: [0, 1, 2, 7], names("missing"): [0]}))
        rec.call(f"v{v} unknown group", rq.OFFSET_FETCH, v,
                 offset_fetch(v, names("nobody"), {topic: [0]}))
        if v >= 2:
            rec.call(f"v{v} all partitions", rq.OFFSET_FETCH, v, offset_fetch(v, group, None))
            rec.call(f"v{v} all partitions, unknown group", rq.OFFSET_FETCH, v,
                     offset_fetch(v, names("nobody"), None))
    rec.call("v7 require stable", rq.OFFSET_FETCH, 7,
             offset_fetch(7, group, {topic: [0]}, require_stable=True))
    rec.call("v8 several groups", rq.OFFSET_FETCH, 8, of.OffsetFetchRequest(groups=[
        of.OffsetFetchRequestGroup(group_id=group, topics=[
            of.OffsetFetchRequestTopics(name=topic, partition_indexes=[0, 1])]),
        of.OffsetFetchRequestGroup(group_id=group + "-all", topics=None),
        of.OffsetFetchRequestGroup(group_id=names("nobody"), topics=[
            of.OffsetFetchRequestTopics(name=topic, partition_indexes=[0])]),
        of.OffsetFetchRequestGroup(group_id=names("nobody2"), topics=None),
    ]))
    rec.call("v9 several groups, require stable", rq.OFFSET_FETCH, 9, of.OffsetFetchRequest(
        require_stable=True, groups=[
            of.OffsetFetchRequestGroup(group_id=group, topics=None),
            of.OffsetFetchRequestGroup(group_id=empty, topics=None),
        ]))
    rec.call("v9 empty group id", rq.OFFSET_FETCH, 9, offset_fetch(9, "", {topic: [0]}))


def describe_and_list(rec: Recorder, names) -> None:
    """DescribeGroups v0-v5 of Stable, Empty and unknown groups; ListGroups v0-v5 with state
    (v4+) and type (v5+) filters."""
    topic = names.topic
    create_topic(rec, topic, 1)
    stable, empty = names("stable"), names("empty")
    coordinator_ready(rec, stable, empty)
    a = join(rec, "join", 5, stable, topic)
    rec.call("sync", rq.SYNC_GROUP, 5, sync_request(
        stable, a.generation_id, a.member_id, assignments={a.member_id: assignment(topic, 0)}))
    rec.quietly(rq.OFFSET_COMMIT, 8, commit(empty, topic, {0: 1}))
    for v in range(6):
        rec.call(f"describe v{v}", rq.DESCRIBE_GROUPS, v,
                 describe(stable, empty, names("unknown")), unordered=MEMBERS)
    rec.call("describe v3 with operations", rq.DESCRIBE_GROUPS, 3,
             describe(stable, empty, names("unknown"), operations=True), unordered=MEMBERS)
    rec.call("describe v5 with operations", rq.DESCRIBE_GROUPS, 5,
             describe(stable, names("unknown"), operations=True), unordered=MEMBERS)
    rec.call("describe empty group id", rq.DESCRIBE_GROUPS, 5, describe(""))
    for v in range(6):
        list_groups(rec, f"list v{v}", v, names)
    list_groups(rec, "list v4 Stable", 4, names, states=["Stable"])
    list_groups(rec, "list v4 stable, empty (any case)", 4, names, states=["stable", "EMPTY"])
    list_groups(rec, "list v4 Dead", 4, names, states=["Dead"])
    list_groups(rec, "list v4 unknown state", 4, names, states=["Sleeping"])
    list_groups(rec, "list v5 classic", 5, names, types=["classic"])
    list_groups(rec, "list v5 Classic, Stable", 5, names, types=["Classic"], states=["Stable"])
    list_groups(rec, "list v5 consumer", 5, names, types=["consumer"])
    list_groups(rec, "list v5 unknown type", 5, names, types=["nosuchtype"])
    rec.call("leave", rq.LEAVE_GROUP, 5, leave(stable, (a.member_id, None)))


def delete_groups_and_offsets(rec: Recorder, names) -> None:
    """DeleteGroups v0-v2 (empty, unknown, non-empty, repeated) and OffsetDelete of Empty,
    unknown and non-consumer groups."""
    topic = names.topic
    create_topic(rec, topic, 2)
    busy, empties = names("busy"), [names(f"empty{v}") for v in range(3)]
    connect = names("connect")
    coordinator_ready(rec, busy, connect, *empties)
    for g in empties:
        rec.quietly(rq.OFFSET_COMMIT, 8, commit(g, topic, {0: 1, 1: 2}))
    a = join(rec, "join", 5, busy, topic)
    rec.call("sync", rq.SYNC_GROUP, 5, sync_request(
        busy, a.generation_id, a.member_id, assignments={a.member_id: assignment(topic, 0)}))
    c = rec.call("join a connect group (v3)", rq.JOIN_GROUP, 3, join_request(
        connect, topic, protocol_type="connect", protocols=("default",)))
    rec.call("offset delete, empty group", rq.OFFSET_DELETE, 0,
             delete_offsets(empties[0], {topic: [0, 5], names("missing"): [0]}))
    rec.call("fetch after offset delete", rq.OFFSET_FETCH, 8,
             offset_fetch(8, empties[0], {topic: [0, 1]}))
    rec.call("offset delete, unknown group", rq.OFFSET_DELETE, 0,
             delete_offsets(names("nobody"), {topic: [0]}))
    rec.call("offset delete, unknown group and topic", rq.OFFSET_DELETE, 0,
             delete_offsets(names("nobody"), {names("missing"): [0]}))
    rec.call("offset delete, non-consumer group", rq.OFFSET_DELETE, 0,
             delete_offsets(connect, {topic: [0]}))
    rec.call("offset delete, consumer group, other topic", rq.OFFSET_DELETE, 0,
             delete_offsets(busy, {names("missing"): [0]}))
    for v in range(3):
        rec.call(f"delete v{v}", rq.DELETE_GROUPS, v, dg.DeleteGroupsRequest(
            groups_names=[empties[v], busy, names("nobody")]))
    rec.call("delete again", rq.DELETE_GROUPS, 2,
             dg.DeleteGroupsRequest(groups_names=[empties[0]]))
    rec.call("delete one group named twice", rq.DELETE_GROUPS, 2,
             dg.DeleteGroupsRequest(groups_names=[names("nobody"), names("nobody")]))
    rec.call("delete empty group id", rq.DELETE_GROUPS, 2,
             dg.DeleteGroupsRequest(groups_names=[""]))
    rec.call("fetch a deleted group", rq.OFFSET_FETCH, 8,
             offset_fetch(8, empties[1], {topic: [0, 1]}))
    rec.call("describe a deleted group", rq.DESCRIBE_GROUPS, 5, describe(empties[2]))
    rec.call("leave", rq.LEAVE_GROUP, 5, leave(busy, (a.member_id, None)))
    rec.call("leave the connect group", rq.LEAVE_GROUP, 5, leave(connect, (c.member_id, None)))


# -- tests -------------------------------------------------------------------------------------


def consumer_group_protocol(rec: Recorder, names) -> None:
    """KIP-848's two requests with the default ``group.coordinator.rebalance.protocols``
    (``classic``; Kafka 3.9 refuses ``consumer`` in ZooKeeper mode): UNSUPPORTED_VERSION in the
    body, which the Java and librdkafka consumers report as a cluster without the new
    protocol."""
    group = names("kip848")
    rec.call("heartbeat: join", CONSUMER_GROUP_HEARTBEAT, 0, cgh.ConsumerGroupHeartbeatRequest(
        group_id=group, member_id="", member_epoch=0, rebalance_timeout_ms=30000,
        subscribed_topic_names=[names.topic], topic_partitions=[]))
    rec.call("heartbeat: leave", CONSUMER_GROUP_HEARTBEAT, 0, cgh.ConsumerGroupHeartbeatRequest(
        group_id=group, member_id="m", member_epoch=-1))
    rec.call("describe", CONSUMER_GROUP_DESCRIBE, 0, cgd.ConsumerGroupDescribeRequest(
        group_ids=[group, names("missing"), ""], include_authorized_operations=True))


def test_consumer_group_protocol(pair, names) -> None:
    pair.check(consumer_group_protocol, names, KNOWN)


def test_find_coordinator(pair, names) -> None:
    pair.check(find_coordinator_answers, names, KNOWN)


def test_member_life_by_version(pair, names) -> None:
    pair.check(member_life_by_version, names, KNOWN)


def test_two_members(pair, names) -> None:
    pair.check(two_members, names, KNOWN)


def test_rebalance_interplay(pair, names) -> None:
    pair.check(rebalance_interplay, names, KNOWN)


def test_static_members(pair, names) -> None:
    pair.check(static_members, names, KNOWN)


def test_offset_commit(pair, names) -> None:
    pair.check(offset_commit_versions, names, KNOWN)


def test_offset_fetch(pair, names) -> None:
    pair.check(offset_fetch_versions, names, KNOWN)


def test_describe_and_list_groups(pair, names) -> None:
    pair.check(describe_and_list, names, KNOWN)


def test_delete_groups_and_offsets(pair, names) -> None:
    pair.check(delete_groups_and_offsets, names, KNOWN)
