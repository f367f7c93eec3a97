"""A KIP-848 consumer group across a coordinator failover in a ZooKeeper-mode cluster: three
pybroker processes, ``__consumer_offsets`` at replication factor 3. Two members reconcile
half-way (one is asked to revoke), then the group's coordinator is killed with SIGKILL. The new
coordinator rebuilds the group from the replicated records: the same epochs, targets and
reconciliation, the members carry on at their epochs without rejoining, and a committed offset
is still there. The group's configs (KIP-848), set through another broker before the kill,
reach every broker through ZooKeeper: the first coordinator and, after the kill, the new one
give the members the group's heartbeat interval."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from kazoo.client import KazooClient

from protocol.errors import ErrorCode
from protocol.messages import (
    consumer_group_describe_request as cgd,
    consumer_group_heartbeat_request as cgh,
    describe_configs_request as dc,
    incremental_alter_configs_request as iac,
    metadata_request as md,
    offset_commit_request as oc,
)
from pybroker.testing.cluster import ClusterProcesses, running_cluster
from pybroker.testing.failover import fetch_committed, find_coordinator
from pybroker.testing.wire_client import WireClient
from tests.cluster.failover_clients import create_topic, settled_coordinator, wait_until

HEARTBEAT, DESCRIBE, METADATA, OFFSET_COMMIT = 68, 69, 3, 8
DESCRIBE_CONFIGS, INCREMENTAL_ALTER_CONFIGS, GROUP_RESOURCE, SET = 32, 44, 32, 0


@pytest.fixture
def cluster(tmp_path: Path, zk_connect: str) -> Iterator[ClusterProcesses]:
    with running_cluster(tmp_path / "cluster", zk_connect,
                         overrides={"offsets.topic.num.partitions": 3}) as c:
        yield c


def beat(bootstrap: str, group: str, member: str, epoch: int,
         owned: dict[uuid.UUID, list[int]] | None, topics: list[str] | None = None):
    with WireClient(bootstrap) as client:
        return client.call(HEARTBEAT, 1, cgh.ConsumerGroupHeartbeatRequest(
            group_id=group, member_id=member, member_epoch=epoch,
            rebalance_timeout_ms=120_000 if epoch == 0 else -1,
            subscribed_topic_names=topics,
            topic_partitions=None if owned is None else [
                cgh.TopicPartitions(topic_id=t, partitions=ps) for t, ps in owned.items()]))


def owned(resp) -> dict[uuid.UUID, list[int]]:
    return {tp.topic_id: sorted(tp.partitions) for tp in resp.assignment.topic_partitions}


def described(bootstrap: str, group: str) -> tuple:
    with WireClient(bootstrap) as client:
        (g,) = client.call(DESCRIBE, 1, cgd.ConsumerGroupDescribeRequest(group_ids=[group])).groups
    assert g.error_code == ErrorCode.NONE, g
    return (g.group_state, g.group_epoch, g.assignment_epoch, sorted(
        (m.member_id, m.member_epoch, sorted(tuple(t.partitions) for t in m.assignment.topic_partitions),
         sorted(tuple(t.partitions) for t in m.target_assignment.topic_partitions))
        for m in g.members))


def set_heartbeat_interval(bootstrap: str, group: str, interval_ms: int) -> None:
    with WireClient(bootstrap) as client:
        (r,) = client.call(INCREMENTAL_ALTER_CONFIGS, 1, iac.IncrementalAlterConfigsRequest(
            resources=[iac.AlterConfigsResource(
                resource_type=GROUP_RESOURCE, resource_name=group, configs=[iac.AlterableConfig(
                    name="consumer.heartbeat.interval.ms", config_operation=SET,
                    value=str(interval_ms))])])).responses
    assert r.error_code == ErrorCode.NONE, r


def described_interval(bootstrap: str, group: str) -> tuple[str, int]:
    with WireClient(bootstrap) as client:
        (r,) = client.call(DESCRIBE_CONFIGS, 4, dc.DescribeConfigsRequest(resources=[
            dc.DescribeConfigsResource(resource_type=GROUP_RESOURCE, resource_name=group,
                                       configuration_keys=["consumer.heartbeat.interval.ms"])],
        )).results
    (entry,) = r.configs
    return entry.value, entry.config_source


def test_a_consumer_group_moves_with_its_coordinator(cluster: ClusterProcesses,
                                                     zk: KazooClient) -> None:
    topic, group = f"kip848-{uuid.uuid4().hex[:6]}", f"g-{uuid.uuid4().hex[:6]}"
    create_topic(cluster, topic, 4)
    # as a client starts: FindCoordinator (which has the controller create __consumer_offsets)
    first = cluster.broker(cluster.live()[0]).bootstrap
    wait_until(lambda: find_coordinator(first, group) >= 0, 60, "a coordinator")
    node = settled_coordinator(cluster, group, 60)
    at = cluster.broker(node).bootstrap
    with WireClient(at) as client:
        (meta,) = client.call(METADATA, 12, md.MetadataRequest(
            topics=[md.MetadataRequestTopic(name=topic)])).topics
    # the group's heartbeat interval, set through a broker that does not coordinate it
    other = cluster.broker(next(b for b in cluster.live() if b != node)).bootstrap
    set_heartbeat_interval(other, group, 7000)
    assert described_interval(at, group) == ("7000", 8)  # GROUP_CONFIG, read from ZooKeeper
    data, _ = zk.get(f"/config/groups/{group}")
    assert b'"consumer.heartbeat.interval.ms":"7000"' in data
    assert zk.get_children("/config/group_changes")
    assert not any(zk.get(f"/config/changes/{n}")[0].find(b"groups/") >= 0
                   for n in zk.get_children("/config/changes"))
    wait_until(lambda: beat(at, group, "probe", 0, {}, [topic]).heartbeat_interval_ms == 7000,
               30, "the coordinator to follow the group's config")
    beat(at, group, "probe", -1, None)
    a = beat(at, group, "member-a", 0, {}, [topic])
    assert a.error_code == ErrorCode.NONE, a
    assert a.heartbeat_interval_ms == 7000
    assert beat(at, group, "member-a", a.member_epoch, owned(a)).error_code == ErrorCode.NONE
    b = beat(at, group, "member-b", 0, {}, [topic])
    revoke = beat(at, group, "member-a", a.member_epoch, owned(a))
    assert len(owned(revoke)[meta.topic_id]) == 2
    with WireClient(at) as client:
        committed = client.call(OFFSET_COMMIT, 9, oc.OffsetCommitRequest(
            group_id=group, member_id="member-a",
            generation_id_or_member_epoch=revoke.member_epoch, topics=[
                oc.OffsetCommitRequestTopic(name=topic, partitions=[
                    oc.OffsetCommitRequestPartition(partition_index=p, committed_offset=7)
                    for p in owned(revoke)[meta.topic_id]])]))
    assert all(p.error_code == ErrorCode.NONE for t in committed.topics for p in t.partitions)
    before = described(at, group)
    assert before[0] == "Reconciling"

    cluster.broker(node).kill()
    started = time.monotonic()
    new = settled_coordinator(cluster, group, 60)
    assert new != node
    at = cluster.broker(new).bootstrap
    deadline = time.monotonic() + 60
    while True:
        try:
            after = described(at, group)
            break
        except AssertionError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)
    print(f"the group was served again {time.monotonic() - started:.1f} s after the kill")
    assert after == before
    done = beat(at, group, "member-a", revoke.member_epoch, owned(revoke))
    assert (done.error_code, done.member_epoch) == (ErrorCode.NONE, revoke.member_epoch + 1)
    assert done.heartbeat_interval_ms == 7000  # the new coordinator had followed it too
    rest = beat(at, group, "member-b", b.member_epoch, {})
    assert rest.error_code == ErrorCode.NONE
    assert sorted(owned(rest)[meta.topic_id] + owned(revoke)[meta.topic_id]) == [0, 1, 2, 3]
    assert described(at, group)[0] == "Stable"
    kept = fetch_committed(at, group, topic, owned(revoke)[meta.topic_id])
    assert set(kept.values()) == {7}
