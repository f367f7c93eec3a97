"""A KIP-848 consumer group survives a restart of the single node, clean or by SIGKILL: the
group is rebuilt from its records in ``__consumer_offsets`` with the same epochs, targets and
half-done reconciliation, and its members carry on at their epochs without rejoining. The
group's configs (KIP-848) are kept in the node's own znode tree and given again after it, and a
group the online downgrade turned classic is classic after it."""

from __future__ import annotations

import time
import uuid

import pytest

from protocol.errors import ErrorCode
from protocol.messages import (
    consumer_group_describe_request as cgd,
    consumer_group_heartbeat_request as cgh,
    create_topics_request as ct,
    describe_groups_request as dsg,
    find_coordinator_request as fc,
    incremental_alter_configs_request as iac,
    metadata_request as md,
    sync_group_request as sg,
)
from pybroker.testing.broker_process import BrokerProcess
from pybroker.testing.wire_client import WireClient
from tests.compat.differential.test_mixed_groups import classic_join

pytestmark = pytest.mark.compat

HEARTBEAT, DESCRIBE, METADATA, CREATE_TOPICS, FIND_COORDINATOR = 68, 69, 3, 19, 10
INCREMENTAL_ALTER_CONFIGS, GROUP_RESOURCE = 44, 32


def find_coordinator(client: WireClient, group: str) -> None:
    """As a client starts: until FindCoordinator answers (it creates __consumer_offsets)."""
    deadline = time.monotonic() + 30
    while client.call(FIND_COORDINATOR, 1, fc.FindCoordinatorRequest(key=group)).error_code:
        if time.monotonic() > deadline:
            raise AssertionError("no group coordinator")
        time.sleep(0.1)


def beat(client: WireClient, group: str, member: str, epoch: int,
         owned: dict[uuid.UUID, list[int]] | None, topics: list[str] | None = None):
    join = epoch == 0
    return client.call(HEARTBEAT, 1, cgh.ConsumerGroupHeartbeatRequest(
        group_id=group, member_id=member, member_epoch=epoch,
        rebalance_timeout_ms=60_000 if join else -1, subscribed_topic_names=topics,
        topic_partitions=None if owned is None else [
            cgh.TopicPartitions(topic_id=t, partitions=ps) for t, ps in owned.items()]))


def owned(resp) -> dict[uuid.UUID, list[int]]:
    return {tp.topic_id: sorted(tp.partitions) for tp in resp.assignment.topic_partitions}


def describe(client: WireClient, group: str):
    (described,) = client.call(DESCRIBE, 1, cgd.ConsumerGroupDescribeRequest(
        group_ids=[group])).groups
    return described


def until_ready(broker: BrokerProcess, group: str) -> WireClient:
    deadline = time.monotonic() + 60
    while True:
        client = WireClient(broker.bootstrap)
        if describe(client, group).error_code == ErrorCode.NONE:
            return client
        client.close()
        if time.monotonic() > deadline:
            raise AssertionError(f"{group} was not loaded again")
        time.sleep(0.2)


def summary(described) -> tuple:
    return (described.group_state, described.group_epoch, described.assignment_epoch,
            sorted((m.member_id, m.member_epoch,
                    sorted((tp.topic_name, tuple(tp.partitions))
                           for tp in m.assignment.topic_partitions),
                    sorted((tp.topic_name, tuple(tp.partitions))
                           for tp in m.target_assignment.topic_partitions))
                   for m in described.members))


@pytest.mark.parametrize("hard", [False, True], ids=["clean", "sigkill"])
def test_a_consumer_group_survives_a_restart(broker: BrokerProcess, hard: bool) -> None:
    topic, group = f"restart-{uuid.uuid4().hex[:6]}", f"g-{uuid.uuid4().hex[:6]}"
    with WireClient(broker.bootstrap) as client:
        r = client.call(CREATE_TOPICS, 5, ct.CreateTopicsRequest(topics=[ct.CreatableTopic(
            name=topic, num_partitions=4, replication_factor=1)], timeout_ms=30_000))
        assert r.topics[0].error_code == ErrorCode.NONE
        (meta,) = client.call(METADATA, 12, md.MetadataRequest(
            topics=[md.MetadataRequestTopic(name=topic)])).topics
        assert meta.error_code == ErrorCode.NONE
        find_coordinator(client, group)
        (altered,) = client.call(INCREMENTAL_ALTER_CONFIGS, 1, iac.IncrementalAlterConfigsRequest(
            resources=[iac.AlterConfigsResource(
                resource_type=GROUP_RESOURCE, resource_name=group, configs=[iac.AlterableConfig(
                    name="consumer.heartbeat.interval.ms", config_operation=0, value="6000")])],
        )).responses
        assert altered.error_code == ErrorCode.NONE, altered
        # the broker that took the change follows it at once
        a = beat(client, group, "member-a", 0, {}, [topic])
        assert a.heartbeat_interval_ms == 6000
        assert a.error_code == ErrorCode.NONE and a.member_epoch == 1
        b = beat(client, group, "member-b", 0, {}, [topic])
        revoke = beat(client, group, "member-a", 1, owned(a))  # asked to give two up
        assert revoke.member_epoch == 1 and len(owned(revoke)[meta.topic_id]) == 2
        before = summary(describe(client, group))
        assert before[0] == "Reconciling"
    broker.restart(hard=hard)
    client = until_ready(broker, group)
    try:
        assert summary(describe(client, group)) == before
        # the members carry on where they were: a finishes its revocation, b gets the rest
        done = beat(client, group, "member-a", 1, owned(revoke))
        assert (done.error_code, done.member_epoch) == (ErrorCode.NONE, 2)
        assert done.heartbeat_interval_ms == 6000
        rest = beat(client, group, "member-b", b.member_epoch, {})
        assert rest.error_code == ErrorCode.NONE
        assert sorted(owned(rest)[meta.topic_id] + owned(revoke)[meta.topic_id]) == [0, 1, 2, 3]
        assert describe(client, group).group_state == "Stable"
    finally:
        client.close()


def test_a_downgraded_group_is_a_classic_group_after_a_restart(broker: BrokerProcess) -> None:
    """KIP-848's online downgrade is in the log: after a restart the group is the classic group
    it became (its consumer-group records tombstoned, its classic metadata written)."""
    topic, group = f"down-{uuid.uuid4().hex[:6]}", f"g-{uuid.uuid4().hex[:6]}"
    with WireClient(broker.bootstrap) as client:
        r = client.call(CREATE_TOPICS, 5, ct.CreateTopicsRequest(topics=[ct.CreatableTopic(
            name=topic, num_partitions=2, replication_factor=1)], timeout_ms=30_000))
        assert r.topics[0].error_code == ErrorCode.NONE
        find_coordinator(client, group)
        a = beat(client, group, "member-a", 0, {}, [topic])
        beat(client, group, "member-a", a.member_epoch, owned(a))
        c = client.call(11, 9, classic_join(group, "", [topic])).member_id
        joined = client.call(11, 9, classic_join(group, c, [topic]))
        assert joined.error_code == ErrorCode.NONE
        assert beat(client, group, "member-a", -1, None).error_code == ErrorCode.NONE
        led = client.call(11, 9, classic_join(group, c, [topic]))
        assert (led.error_code, led.leader) == (ErrorCode.NONE, c)
        assert client.call(14, 5, sg.SyncGroupRequest(
            group_id=group, generation_id=led.generation_id, member_id=c,
            protocol_type="consumer", protocol_name="range")).error_code == ErrorCode.NONE
    broker.restart()
    deadline = time.monotonic() + 60
    while True:
        with WireClient(broker.bootstrap) as client:
            (g,) = client.call(15, 5, dsg.DescribeGroupsRequest(groups=[group])).groups
        if g.error_code != ErrorCode.COORDINATOR_LOAD_IN_PROGRESS or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert (g.error_code, g.group_state, g.protocol_type) == (ErrorCode.NONE, "Stable", "consumer")
    assert [m.member_id for m in g.members] == [c]
    with WireClient(broker.bootstrap) as client:
        assert describe(client, group).error_code == ErrorCode.GROUP_ID_NOT_FOUND
