"""TxnOffsetCommit (KIP-98, KIP-447) over a raw socket against a broker process: the offsets a
transactional producer sends for a group are pending, so OffsetFetch answers the previous
offset, or UNSTABLE_OFFSET_COMMIT when the consumer asks for stable offsets (v7+,
``require_stable``, what a read_committed consumer sends); v3+ requests are checked against the
group's members (ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID); unknown partitions
and an empty group id are refused as Kafka refuses them; the pending offsets survive a restart
of the broker. WriteTxnMarkers, as the transaction coordinator sends it, commits or aborts them,
and a real read_committed consumer (confluent-kafka) starts from the committed transaction's
offset. Requests are built with the generated codecs (:mod:`pybroker.testing.wire_client`).
As the test plays the transaction coordinator, its broker does not verify transactions with one
(``transaction.partition.verification.enable=false``; KIP-890's verification of TxnOffsetCommit
is compared with Kafka in tests/compat/differential/test_transaction_coordinator.py)."""

from __future__ import annotations

import time

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition as CKTopicPartition

from protocol.errors import ErrorCode
from protocol.messages import (
    consumer_protocol_subscription as cps,
    create_topics_request as ct,
    find_coordinator_request as fc,
    init_producer_id_request as ipi,
    join_group_request as jg,
    metadata_request as md,
    offset_commit_request as oc,
    offset_fetch_request as of,
    sync_group_request as sg,
    txn_offset_commit_request as toc,
    write_txn_markers_request as wtm,
)
from pybroker.coordinator.partitioning import OFFSETS_TOPIC, partition_for
from pybroker.testing.broker_process import BrokerProcess
from pybroker.testing.wire_client import WireClient

pytestmark = [pytest.mark.compat, pytest.mark.timeout(120)]

METADATA, OFFSET_COMMIT, OFFSET_FETCH, FIND_COORDINATOR, JOIN_GROUP = 3, 8, 9, 10, 11
SYNC_GROUP, CREATE_TOPICS, INIT_PRODUCER_ID, WRITE_TXN_MARKERS, TXN_OFFSET_COMMIT = (
    14, 19, 22, 27, 28)
E = ErrorCode
TOPIC = "txn-input"


@pytest.fixture
def broker(broker_factory) -> BrokerProcess:
    return broker_factory(**{"transaction.partition.verification.enable": "false"})


def setup(c: WireClient, group: str) -> tuple[int, int]:
    """The topic, the group's coordinator, and an idempotent producer's id and epoch."""
    resp = c.call(CREATE_TOPICS, 7, ct.CreateTopicsRequest(
        topics=[ct.CreatableTopic(name=TOPIC, num_partitions=3, replication_factor=1)],
        timeout_ms=10_000))
    assert resp.topics[0].error_code in (E.NONE, E.TOPIC_ALREADY_EXISTS), resp
    wait_for_coordinator(c, group)
    producer = c.call(INIT_PRODUCER_ID, 4, ipi.InitProducerIdRequest(
        transactional_id=None, transaction_timeout_ms=60_000, producer_id=-1,
        producer_epoch=-1))
    assert producer.error_code == E.NONE
    return producer.producer_id, producer.producer_epoch


def wait_for_coordinator(c: WireClient, group: str) -> None:
    deadline = time.monotonic() + 30
    while c.call(FIND_COORDINATOR, 3, fc.FindCoordinatorRequest(key=group)).error_code:
        assert time.monotonic() < deadline, "no group coordinator"
        time.sleep(0.1)


def txn_commit(c: WireClient, version: int, group: str, producer: tuple[int, int],
               offsets: dict[int, int], *, topic: str = TOPIC, generation: int = -1,
               member_id: str = "", instance: str | None = None) -> dict[int, ErrorCode]:
    resp = c.call(TXN_OFFSET_COMMIT, version, toc.TxnOffsetCommitRequest(
        transactional_id="txn-1", group_id=group, producer_id=producer[0],
        producer_epoch=producer[1], generation_id=generation, member_id=member_id,
        group_instance_id=instance, topics=[toc.TxnOffsetCommitRequestTopic(
            name=topic, partitions=[toc.TxnOffsetCommitRequestPartition(
                partition_index=p, committed_offset=o, committed_leader_epoch=4,
                committed_metadata="in a transaction") for p, o in offsets.items()])]))
    [t] = resp.topics
    assert t.name == topic
    return {p.partition_index: E(p.error_code) for p in t.partitions}


def fetch(c: WireClient, version: int, group: str, partitions: list[int], *,
          require_stable: bool) -> dict[int, tuple[int, ErrorCode]]:
    topics = [of.OffsetFetchRequestTopics(name=TOPIC, partition_indexes=partitions)]
    if version >= 8:
        resp = c.call(OFFSET_FETCH, version, of.OffsetFetchRequest(
            require_stable=require_stable, groups=[of.OffsetFetchRequestGroup(
                group_id=group, topics=topics)]))
        [g] = resp.groups
        assert g.error_code == E.NONE
        parts = g.topics[0].partitions
    else:
        resp = c.call(OFFSET_FETCH, version, of.OffsetFetchRequest(
            group_id=group, require_stable=require_stable, topics=[
                of.OffsetFetchRequestTopic(name=TOPIC, partition_indexes=partitions)]))
        assert resp.error_code == E.NONE
        parts = resp.topics[0].partitions
    return {p.partition_index: (p.committed_offset, E(p.error_code)) for p in parts}


def commit(c: WireClient, group: str, offsets: dict[int, int]) -> None:
    resp = c.call(OFFSET_COMMIT, 8, oc.OffsetCommitRequest(
        group_id=group, generation_id_or_member_epoch=-1, member_id="", topics=[
            oc.OffsetCommitRequestTopic(name=TOPIC, partitions=[
                oc.OffsetCommitRequestPartition(partition_index=p, committed_offset=o)
                for p, o in offsets.items()])]))
    assert all(p.error_code == E.NONE for t in resp.topics for p in t.partitions), resp


@pytest.mark.parametrize("version", [0, 2, 3, 4])
def test_txn_offsets_are_pending_and_unstable_for_stable_fetches(broker: BrokerProcess,
                                                                 version: int) -> None:
    group = f"eos-v{version}"
    with WireClient(broker.bootstrap) as c:
        producer = setup(c, group)
        commit(c, group, {0: 3})
        assert txn_commit(c, version, group, producer, {0: 10, 1: 11}) == {0: E.NONE, 1: E.NONE}
        for v in (7, 8, 9):
            # a consumer not asking for stable offsets gets what is committed
            assert fetch(c, v, group, [0, 1, 2], require_stable=False) == {
                0: (3, E.NONE), 1: (-1, E.NONE), 2: (-1, E.NONE)}
            # a read_committed consumer is told to ask again while the transaction is open
            assert fetch(c, v, group, [0, 1, 2], require_stable=True) == {
                0: (-1, E.UNSTABLE_OFFSET_COMMIT), 1: (-1, E.UNSTABLE_OFFSET_COMMIT),
                2: (-1, E.NONE)}


def test_unknown_partitions_and_an_empty_group_id_are_refused(broker: BrokerProcess) -> None:
    with WireClient(broker.bootstrap) as c:
        producer = setup(c, "eos")
        assert txn_commit(c, 4, "eos", producer, {0: 1, 7: 1}) == {
            0: E.NONE, 7: E.UNKNOWN_TOPIC_OR_PARTITION}
        assert txn_commit(c, 4, "eos", producer, {0: 1}, topic="no-such-topic") == {
            0: E.UNKNOWN_TOPIC_OR_PARTITION}
        assert txn_commit(c, 4, "", producer, {0: 1}) == {0: E.INVALID_GROUP_ID}


def join_and_sync(c: WireClient, group: str, instance: str) -> tuple[str, int]:
    """A static member joins the group alone and gets its assignment: (member id, generation)."""
    subscription = (0).to_bytes(2, "big") + cps.encode(
        cps.ConsumerProtocolSubscription(topics=[TOPIC]), 0)
    joined = c.call(JOIN_GROUP, 7, jg.JoinGroupRequest(
        group_id=group, session_timeout_ms=30_000, rebalance_timeout_ms=30_000, member_id="",
        group_instance_id=instance, protocol_type="consumer",
        protocols=[jg.JoinGroupRequestProtocol(name="range", metadata=subscription)]))
    assert joined.error_code == E.NONE, joined
    synced = c.call(SYNC_GROUP, 5, sg.SyncGroupRequest(
        group_id=group, generation_id=joined.generation_id, member_id=joined.member_id,
        group_instance_id=instance, protocol_type="consumer", protocol_name="range",
        assignments=[sg.SyncGroupRequestAssignment(member_id=joined.member_id,
                                                   assignment=b"")]))
    assert synced.error_code == E.NONE, synced
    return joined.member_id, joined.generation_id


def test_v3_commits_are_checked_against_the_group_members(broker: BrokerProcess) -> None:
    group = "eos-members"
    with WireClient(broker.bootstrap) as c:
        producer = setup(c, group)
        member, generation = join_and_sync(c, group, "instance-1")

        def attempt(version: int = 3, generation: int = -1, member_id: str = "",
                    instance: str | None = None) -> ErrorCode:
            [error] = txn_commit(c, version, group, producer, {0: 5}, generation=generation,
                                 member_id=member_id, instance=instance).values()
            return error

        assert attempt(generation=generation + 1, member_id=member) is E.ILLEGAL_GENERATION
        assert attempt(generation=generation, member_id="someone-else") is E.UNKNOWN_MEMBER_ID
        assert attempt(generation=generation, member_id="someone-else",
                       instance="instance-1") is E.FENCED_INSTANCE_ID
        assert attempt(generation=generation, member_id=member,
                       instance="instance-1") is E.NONE
        # before v3 no member is named: the producer may commit for a group with members
        assert attempt(version=2) is E.NONE
        assert fetch(c, 9, group, [0], require_stable=True) == {
            0: (-1, E.UNSTABLE_OFFSET_COMMIT)}


def test_pending_offsets_survive_a_restart(broker: BrokerProcess) -> None:
    group = "eos-restart"
    with WireClient(broker.bootstrap) as c:
        producer = setup(c, group)
        commit(c, group, {1: 7})
        assert txn_commit(c, 4, group, producer, {0: 10}) == {0: E.NONE}
    broker.restart(hard=True)
    with WireClient(broker.bootstrap) as c:
        wait_for_coordinator(c, group)
        assert fetch(c, 9, group, [0, 1], require_stable=True) == {
            0: (-1, E.UNSTABLE_OFFSET_COMMIT), 1: (7, E.NONE)}


# -- the transaction's end: WriteTxnMarkers ------------------------------------------------------


def offsets_partition(c: WireClient, group: str) -> int:
    """The group's partition of ``__consumer_offsets`` (Kafka's hash of the group id)."""
    [t] = c.call(METADATA, 12, md.MetadataRequest(
        topics=[md.MetadataRequestTopic(name=OFFSETS_TOPIC)],
        allow_auto_topic_creation=False)).topics
    assert t.error_code == E.NONE, t
    return partition_for(group, len(t.partitions))


def end_transaction(c: WireClient, producer: tuple[int, int], partition: int,
                    committed: bool) -> None:
    """What the transaction coordinator sends the group's coordinator once EndTxn is decided."""
    resp = c.call(WRITE_TXN_MARKERS, 1, wtm.WriteTxnMarkersRequest(markers=[
        wtm.WritableTxnMarker(
            producer_id=producer[0], producer_epoch=producer[1], transaction_result=committed,
            coordinator_epoch=0, topics=[wtm.WritableTxnMarkerTopic(
                name=OFFSETS_TOPIC, partition_indexes=[partition])])]))
    [marker] = resp.markers
    assert [(t.name, p.partition_index, E(p.error_code))
            for t in marker.topics for p in t.partitions] == [(OFFSETS_TOPIC, partition, E.NONE)]


def test_markers_commit_or_abort_the_offsets(broker: BrokerProcess) -> None:
    group = "eos-markers"
    with WireClient(broker.bootstrap) as c:
        producer = setup(c, group)
        partition = offsets_partition(c, group)
        commit(c, group, {0: 3})
        assert txn_commit(c, 4, group, producer, {0: 10, 1: 11}) == {0: E.NONE, 1: E.NONE}
        end_transaction(c, producer, partition, committed=True)
        assert fetch(c, 9, group, [0, 1], require_stable=True) == {
            0: (10, E.NONE), 1: (11, E.NONE)}
        # the next transaction of the same producer is aborted: its offsets never count
        assert txn_commit(c, 4, group, producer, {0: 20}) == {0: E.NONE}
        assert fetch(c, 9, group, [0], require_stable=True) == {
            0: (-1, E.UNSTABLE_OFFSET_COMMIT)}
        end_transaction(c, producer, partition, committed=False)
        assert fetch(c, 9, group, [0, 1], require_stable=True) == {
            0: (10, E.NONE), 1: (11, E.NONE)}
    broker.restart(hard=True)
    with WireClient(broker.bootstrap) as c:
        wait_for_coordinator(c, group)
        assert fetch(c, 9, group, [0, 1], require_stable=True) == {
            0: (10, E.NONE), 1: (11, E.NONE)}


def test_a_read_committed_consumer_starts_from_the_committed_transaction(
        broker: BrokerProcess) -> None:
    """KIP-447 with a real client: a read_committed consumer of the group is told its offset is
    unstable while the transaction is open, asks again, and starts where the transaction
    committed, not at the offset committed before it."""
    group = "eos-consumer"
    with WireClient(broker.bootstrap) as c:
        producer = setup(c, group)
        partition = offsets_partition(c, group)
        produce = Producer({"bootstrap.servers": broker.bootstrap})
        for i in range(20):
            produce.produce(TOPIC, value=b"%d" % i, partition=0)
        assert produce.flush(30) == 0
        commit(c, group, {0: 3})
        assert txn_commit(c, 4, group, producer, {0: 10}) == {0: E.NONE}
    consumer = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": group,
                         "isolation.level": "read_committed", "enable.auto.commit": False,
                         "auto.offset.reset": "earliest"})
    try:
        consumer.assign([CKTopicPartition(TOPIC, 0)])
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline:
            msg = consumer.poll(0.2)
            assert msg is None or msg.error() is not None, \
                f"read offset {msg.offset()} while the transaction was open"
        with WireClient(broker.bootstrap) as c:
            end_transaction(c, producer, partition, committed=True)
        deadline = time.monotonic() + 30
        while (msg := consumer.poll(0.2)) is None or msg.error() is not None:
            assert time.monotonic() < deadline, "the consumer read nothing after the commit"
        assert msg.offset() == 10 and msg.value() == b"10"
    finally:
        consumer.close()
