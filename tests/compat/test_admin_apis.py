"""The admin APIs behind Kafka's log-dirs, reassignment, leader-election and transactions tools,
over a raw socket at every version pybroker serves.

The expected answers are Apache Kafka 3.9's (ZooKeeper mode, one broker), codes and messages
included; sizes are checked against the segment files on disk and against the bytes produced.
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest

from protocol.errors import ErrorCode
from protocol.messages import (
    alter_partition_reassignments_request as ar,
    api_versions_request as av,
    create_topics_request as ct,
    describe_log_dirs_request as dl,
    describe_producers_request as dp,
    elect_leaders_request as el,
    init_producer_id_request as ip,
    list_partition_reassignments_request as lr,
    metadata_request as md,
    produce_request as pr,
)
from protocol.records.record import build_batch
from pybroker.testing.broker_process import BrokerProcess
from pybroker.testing.wire_client import WireClient

pytestmark = pytest.mark.compat

PRODUCE, METADATA, API_VERSIONS, CREATE_TOPICS, INIT_PRODUCER_ID = 0, 3, 18, 19, 22
DESCRIBE_LOG_DIRS, ELECT_LEADERS, ALTER_REASSIGNMENTS, LIST_REASSIGNMENTS = 35, 43, 45, 46
DESCRIBE_PRODUCERS = 61

PREFERRED, UNCLEAN = 0, 1
MISSING = "no-such-topic-admin-apis"

NOT_NEEDED = (ErrorCode.ELECTION_NOT_NEEDED, "Leader election not needed for topic partition.")
NO_PARTITION = (ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, "The partition does not exist.")
NOTHING_TO_CANCEL = (ErrorCode.NO_REASSIGNMENT_IN_PROGRESS, "No partition reassignment is in progress.")


# -- helpers ----------------------------------------------------------------------------------


def create(client: WireClient, topic: str, partitions: int) -> None:
    resp = client.call(CREATE_TOPICS, 5, ct.CreateTopicsRequest(
        topics=[ct.CreatableTopic(name=topic, num_partitions=partitions, replication_factor=1)],
        timeout_ms=10_000))
    assert resp.topics[0].error_code == ErrorCode.NONE, resp.topics[0]


def produce(client: WireClient, topic: str, partition: int, batch: bytes) -> int:
    resp = client.call(PRODUCE, 9, pr.ProduceRequest(
        acks=-1, timeout_ms=10_000,
        topic_data=[pr.TopicProduceData(name=topic, partition_data=[
            pr.PartitionProduceData(index=partition, records=batch)])]))
    result = resp.responses[0].partition_responses[0]
    assert result.error_code == ErrorCode.NONE, result
    return result.base_offset


def batch(n: int, *, timestamp: int | None = None, size: int = 20, **kw) -> bytes:
    ts = timestamp if timestamp is not None else int(time.time() * 1000)
    return bytes(build_batch(
        [(b"k%d" % i, bytes([i % 256]) * size, [], ts + i) for i in range(n)], **kw))


def init_producer_id(client: WireClient) -> tuple[int, int]:
    init = client.call(INIT_PRODUCER_ID, 4, ip.InitProducerIdRequest(
        transactional_id=None, transaction_timeout_ms=60_000))
    assert init.error_code == ErrorCode.NONE, init
    return init.producer_id, init.producer_epoch


def on_disk(log_dir: Path, topic: str, partition: int) -> int:
    """What Kafka reports as a partition's size: its segment (.log) files, summed."""
    return sum(f.stat().st_size for f in (log_dir / f"{topic}-{partition}").glob("*.log"))


def describe_log_dirs(client: WireClient, version: int, topics) -> list:
    resp = client.call(DESCRIBE_LOG_DIRS, version, dl.DescribeLogDirsRequest(topics=topics))
    assert resp.error_code == ErrorCode.NONE  # (v3+ on the wire; the default below)
    return resp.results


def partitions_of(result, topic: str) -> dict[int, object]:
    return {p.partition_index: p for t in result.topics if t.name == topic for p in t.partitions}


def election_results(resp) -> list[tuple[str, int, int, str | None]]:
    return [(t.topic, p.partition_id, p.error_code, p.error_message)
            for t in resp.replica_election_results for p in t.partition_result]


def reassignment_results(resp) -> dict[tuple[str, int], tuple[int, str | None]]:
    return {(t.name, p.partition_index): (p.error_code, p.error_message)
            for t in resp.responses for p in t.partitions}


# -- ApiVersions ------------------------------------------------------------------------------


def test_api_versions_advertise_the_admin_apis(module_broker: BrokerProcess) -> None:
    with WireClient(module_broker.bootstrap) as c:
        resp = c.call(API_VERSIONS, 3, av.ApiVersionsRequest(
            client_software_name="wire-test", client_software_version="1"))
    ranges = {k.api_key: (k.min_version, k.max_version) for k in resp.api_keys}
    assert ranges[DESCRIBE_LOG_DIRS] == (0, 4)
    assert ranges[ELECT_LEADERS] == (0, 2)
    assert ranges[ALTER_REASSIGNMENTS] == (0, 0)
    assert ranges[LIST_REASSIGNMENTS] == (0, 0)
    assert ranges[DESCRIBE_PRODUCERS] == (0, 0)


# -- DescribeLogDirs --------------------------------------------------------------------------


@pytest.mark.parametrize("version", range(5))
def test_describe_log_dirs_reports_partition_sizes(
    module_broker: BrokerProcess, topic: str, version: int
) -> None:
    log_dir = module_broker.data_dir
    with WireClient(module_broker.bootstrap) as c:
        create(c, topic, 3)
        batches = {0: [batch(3), batch(5, size=200), batch(1)], 1: [batch(2)], 2: []}
        for partition, bs in batches.items():
            for b in bs:
                produce(c, topic, partition, b)

        [result] = describe_log_dirs(c, version, None)  # null: every partition
        assert result.error_code == ErrorCode.NONE
        assert result.log_dir == str(log_dir.absolute())
        listed = partitions_of(result, topic)
        assert sorted(listed) == [0, 1, 2]
        for partition, bs in batches.items():
            p = listed[partition]
            assert p.partition_size == sum(map(len, bs)) == on_disk(log_dir, topic, partition)
            assert (p.offset_lag, p.is_future_key) == (0, False)
        if version >= 4:
            fs = os.statvfs(log_dir)
            assert result.total_bytes == fs.f_frsize * fs.f_blocks
            assert 0 < result.usable_bytes <= result.total_bytes
        else:
            assert (result.total_bytes, result.usable_bytes) == (-1, -1)  # not on the wire

        # Named partitions: those not hosted are left out, and so is a topic with none left.
        [named] = describe_log_dirs(c, version, [
            dl.DescribableLogDirTopic(topic=topic, partitions=[1, 7]),
            dl.DescribableLogDirTopic(topic=MISSING, partitions=[0]),
        ])
        assert named.log_dir == str(log_dir.absolute())
        assert [(t.name, [(p.partition_index, p.partition_size) for p in t.partitions])
                for t in named.topics] == [(topic, [(1, sum(map(len, batches[1])))])]

        [empty] = describe_log_dirs(c, version, [
            dl.DescribableLogDirTopic(topic=topic, partitions=[9])])
        assert (empty.error_code, empty.log_dir, empty.topics) == (
            ErrorCode.NONE, str(log_dir.absolute()), [])


def test_describe_log_dirs_size_follows_the_log(module_broker: BrokerProcess, topic: str) -> None:
    """The size grows with appends and is the segment files' size, not a count of records."""
    with WireClient(module_broker.bootstrap) as c:
        create(c, topic, 1)
        sizes = []
        for n in (1, 10, 100):
            produce(c, topic, 0, batch(n))
            [result] = describe_log_dirs(c, 4, [dl.DescribableLogDirTopic(topic, [0])])
            sizes.append(partitions_of(result, topic)[0].partition_size)
        assert sizes[0] < sizes[1] < sizes[2]
        assert sizes[2] == on_disk(module_broker.data_dir, topic, 0)


def test_describe_log_dirs_reports_a_lost_dir(
    broker_factory, tmp_path: Path, topic: str
) -> None:
    """A log dir that is gone answers KAFKA_STORAGE_ERROR with nothing else, as Kafka answers for
    an offline dir; the other dir is still described, and DescribeProducers on a partition of the
    lost dir answers KAFKA_STORAGE_ERROR too."""
    first, second = tmp_path / "dir-a", tmp_path / "dir-b"
    broker = broker_factory(**{"log.dirs": f"{first},{second}"})
    with WireClient(broker.bootstrap) as c:
        create(c, topic, 2)
        pid, epoch = init_producer_id(c)
        for partition in (0, 1):
            produce(c, topic, partition, batch(2, producer_id=pid, producer_epoch=epoch,
                                               base_sequence=0))
        results = describe_log_dirs(c, 4, None)
        assert [r.log_dir for r in results] == [str(first), str(second)]
        placed = {d.log_dir: sorted(partitions_of(d, topic)) for d in results}
        assert sorted(placed[str(first)] + placed[str(second)]) == [0, 1]
        # The first dir keeps the cluster metadata: lose the second.
        [lost_partition] = placed[str(second)]
        [kept_partition] = placed[str(first)]
        shutil.rmtree(second)
        try:
            # first the dir is gone, then a file stands where it was
            for replace_with_file in (False, True):
                if replace_with_file:
                    second.write_text("not a directory")
                for version in (0, 3, 4):
                    kept, lost = describe_log_dirs(c, version, None)
                    assert (lost.log_dir, lost.error_code, lost.topics) == (
                        str(second), ErrorCode.KAFKA_STORAGE_ERROR, [])
                    assert (lost.total_bytes, lost.usable_bytes) == (-1, -1)
                    assert kept.error_code == ErrorCode.NONE
                    assert sorted(partitions_of(kept, topic)) == [kept_partition]
                    if version >= 4:
                        assert kept.total_bytes > 0
                resp = c.call(DESCRIBE_PRODUCERS, 0, dp.DescribeProducersRequest(topics=[
                    dp.TopicRequest(name=topic, partition_indexes=[kept_partition, lost_partition])]))
                kept_state, lost_state = resp.topics[0].partitions
                assert kept_state.error_code == ErrorCode.NONE
                assert [s.producer_id for s in kept_state.active_producers] == [pid]
                assert (lost_state.error_code, lost_state.active_producers) == (
                    ErrorCode.KAFKA_STORAGE_ERROR, [])
        finally:
            # a dir again, so that the broker's shutdown can write its checkpoints
            if second.is_file():
                second.unlink()
            second.mkdir(exist_ok=True)


# -- ListPartitionReassignments / AlterPartitionReassignments ---------------------------------


def test_list_partition_reassignments_finds_none(module_broker: BrokerProcess, topic: str) -> None:
    with WireClient(module_broker.bootstrap) as c:
        create(c, topic, 2)
        for topics in (None, [
            lr.ListPartitionReassignmentsTopics(name=topic, partition_indexes=[0, 1, 5]),
            lr.ListPartitionReassignmentsTopics(name=MISSING, partition_indexes=[0]),
        ]):
            resp = c.call(LIST_REASSIGNMENTS, 0,
                          lr.ListPartitionReassignmentsRequest(timeout_ms=10_000, topics=topics))
            # Kafka's answer leaves the message at its default, "" rather than null
            assert (resp.error_code, resp.error_message, resp.topics) == (ErrorCode.NONE, "", [])


def test_alter_partition_reassignments_as_kafka_answers(
    module_broker: BrokerProcess, topic: str
) -> None:
    P = ar.ReassignablePartition
    with WireClient(module_broker.bootstrap) as c:
        create(c, topic, 2)

        def alter(*topics: ar.ReassignableTopic):
            resp = c.call(ALTER_REASSIGNMENTS, 0, ar.AlterPartitionReassignmentsRequest(
                timeout_ms=10_000, topics=list(topics)))
            assert (resp.error_code, resp.error_message) == (ErrorCode.NONE, "")
            return reassignment_results(resp)

        assert alter(
            ar.ReassignableTopic(name=topic, partitions=[P(0, [0]), P(1, None), P(5, [0]), P(6, [])]),
            ar.ReassignableTopic(name=MISSING, partitions=[P(0, [0]), P(1, None), P(2, [5])]),
        ) == {
            (topic, 0): (ErrorCode.NONE, None),  # to its current replicas: complete at once
            (topic, 1): NOTHING_TO_CANCEL,
            (topic, 5): NO_PARTITION,
            (topic, 6): (ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                         "Empty replica list specified in partition reassignment."),
            (MISSING, 0): NO_PARTITION,
            (MISSING, 1): NOTHING_TO_CANCEL,
            (MISSING, 2): (ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                           "Replica assignment has brokers that are not alive. Replica list: "
                           "ArrayBuffer(5), live broker list: Set(0)"),
        }
        invalid = ErrorCode.INVALID_REPLICA_ASSIGNMENT
        assert alter(ar.ReassignableTopic(name=topic, partitions=[P(0, [0, 0])])) == {
            (topic, 0): (invalid, "Duplicate replica ids in partition reassignment replica list: "
                                  "ArrayBuffer(0, 0)")}
        assert alter(ar.ReassignableTopic(name=topic, partitions=[P(0, [-1])])) == {
            (topic, 0): (invalid, "Invalid broker id in replica list: ArrayBuffer(-1)")}
        assert alter(ar.ReassignableTopic(name=topic, partitions=[P(0, [0, 3, 4])])) == {
            (topic, 0): (invalid, "Replica assignment has brokers that are not alive. Replica "
                                  "list: ArrayBuffer(3, 4), live broker list: Set(0)")}
        # A partition named twice counts once, with the last target.
        assert alter(ar.ReassignableTopic(name=topic, partitions=[P(1, [0]), P(1, None)])) == {
            (topic, 1): NOTHING_TO_CANCEL}
        assert alter() == {}

        # Nothing moved and nothing is left in progress.
        listed = c.call(LIST_REASSIGNMENTS, 0, lr.ListPartitionReassignmentsRequest(topics=None))
        assert listed.topics == []
        meta = c.call(METADATA, 9, md.MetadataRequest(
            topics=[md.MetadataRequestTopic(name=topic)], allow_auto_topic_creation=False))
        assert [(p.partition_index, p.leader_id, p.replica_nodes, p.isr_nodes)
                for p in meta.topics[0].partitions] == [(0, 0, [0], [0]), (1, 0, [0], [0])]


# -- ElectLeaders -----------------------------------------------------------------------------


@pytest.mark.parametrize("version", range(3))
def test_elect_leaders_finds_no_election_needed(
    module_broker: BrokerProcess, topic: str, version: int
) -> None:
    with WireClient(module_broker.bootstrap) as c:
        create(c, topic, 2)
        for election_type in ([PREFERRED] if version == 0 else [PREFERRED, UNCLEAN]):
            resp = c.call(ELECT_LEADERS, version, el.ElectLeadersRequest(
                election_type=election_type, timeout_ms=10_000, topic_partitions=[
                    el.TopicPartitions(topic=topic, partitions=[0, 1, 9, 0]),
                    el.TopicPartitions(topic=MISSING, partitions=[0]),
                ]))
            assert resp.error_code == ErrorCode.NONE
            assert sorted(election_results(resp)) == sorted([
                (topic, 0, *NOT_NEEDED), (topic, 1, *NOT_NEEDED), (topic, 9, *NO_PARTITION),
                (MISSING, 0, *NO_PARTITION),
            ])
            # All partitions: those that needed no election are not reported.
            every = c.call(ELECT_LEADERS, version, el.ElectLeadersRequest(
                election_type=election_type, timeout_ms=10_000, topic_partitions=None))
            assert (every.error_code, every.replica_election_results) == (ErrorCode.NONE, [])
        if version >= 1:
            # An election type Kafka does not know fails the whole request.
            bad = c.call(ELECT_LEADERS, version, el.ElectLeadersRequest(
                election_type=7, timeout_ms=10_000,
                topic_partitions=[el.TopicPartitions(topic=topic, partitions=[0])]))
            assert bad.error_code == ErrorCode.UNKNOWN_SERVER_ERROR
            assert election_results(bad) == [(topic, 0, ErrorCode.UNKNOWN_SERVER_ERROR, None)]


# -- DescribeProducers ------------------------------------------------------------------------


def test_describe_producers_lists_idempotent_producers(
    module_broker: BrokerProcess, topic: str
) -> None:
    now = int(time.time() * 1000)
    with WireClient(module_broker.bootstrap) as c:
        create(c, topic, 3)
        first, first_epoch = init_producer_id(c)
        second, second_epoch = init_producer_id(c)
        produce(c, topic, 0, batch(3, timestamp=now, producer_id=first,
                                   producer_epoch=first_epoch, base_sequence=0))
        produce(c, topic, 0, batch(2, timestamp=now - 5000, producer_id=first,
                                   producer_epoch=first_epoch, base_sequence=3))
        produce(c, topic, 0, batch(4, timestamp=now + 10, producer_id=second,
                                   producer_epoch=second_epoch, base_sequence=0))
        produce(c, topic, 1, batch(2))  # a producer without an id keeps no state

        resp = c.call(DESCRIBE_PRODUCERS, 0, dp.DescribeProducersRequest(topics=[
            dp.TopicRequest(name=topic, partition_indexes=[0, 1, 2, 9]),
            dp.TopicRequest(name=MISSING, partition_indexes=[0, 1]),
            dp.TopicRequest(name="bad name!", partition_indexes=[0]),
        ]))
    by_topic = {t.name: t.partitions for t in resp.topics}
    p0, p1, p2, p9 = by_topic[topic]
    assert [p.partition_index for p in (p0, p1, p2, p9)] == [0, 1, 2, 9]
    assert p0.error_code == ErrorCode.NONE
    assert sorted(
        (s.producer_id, s.producer_epoch, s.last_sequence, s.last_timestamp, s.coordinator_epoch,
         s.current_txn_start_offset) for s in p0.active_producers
    ) == sorted([
        # the last sequence and the timestamp of each producer's last batch (its max timestamp)
        (first, first_epoch, 4, now - 5000 + 1, -1, -1),
        (second, second_epoch, 3, now + 10 + 3, -1, -1),
    ])
    assert (p1.error_code, p1.active_producers) == (ErrorCode.NONE, [])
    assert (p2.error_code, p2.active_producers) == (ErrorCode.NONE, [])
    assert (p9.error_code, p9.error_message) == (ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, None)
    assert [(p.partition_index, p.error_code, p.error_message) for p in by_topic[MISSING]] == [
        (i, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
         "This server does not host this topic-partition.") for i in (0, 1)]
    [bad] = by_topic["bad name!"]
    assert (bad.error_code, bad.error_message) == (
        ErrorCode.INVALID_TOPIC_EXCEPTION,
        "Topic name is invalid: 'bad name!' contains one or more characters other than ASCII "
        "alphanumerics, '.', '_' and '-'")


def test_describe_producers_after_a_restart(broker_factory, topic: str) -> None:
    """The producer state comes from the log's producer snapshots, so it survives a restart."""
    broker = broker_factory()
    with WireClient(broker.bootstrap) as c:
        create(c, topic, 1)
        pid, epoch = init_producer_id(c)
        produce(c, topic, 0, batch(6, producer_id=pid, producer_epoch=epoch, base_sequence=0))
        request = dp.DescribeProducersRequest(topics=[dp.TopicRequest(topic, [0])])
        before = c.call(DESCRIBE_PRODUCERS, 0, request).topics[0].partitions[0]
    assert [(s.producer_id, s.last_sequence) for s in before.active_producers] == [(pid, 5)]
    broker.restart()
    with WireClient(broker.bootstrap) as c:
        after = c.call(DESCRIBE_PRODUCERS, 0, request).topics[0].partitions[0]
    assert after == before
