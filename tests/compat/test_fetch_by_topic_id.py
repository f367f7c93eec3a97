"""Fetch v13-v17 (KIP-516 topic ids) over a raw socket against a broker process: the topic id
Metadata gives is the one Fetch takes and answers with, an id the broker does not know is
UNKNOWN_TOPIC_ID (after the partitions read), a deleted and recreated topic's old id is
unknown while its new one reads the new log, and a long poll by id is woken by an append.
Requests are built with the generated codecs (:mod:`pybroker.testing.wire_client`)."""

from __future__ import annotations

import threading
import time
import uuid

import pytest

from protocol.errors import ErrorCode
from protocol.messages import (
    create_topics_request as ct,
    delete_topics_request as dt,
    fetch_request as fr,
    fetch_response as fresp,
    metadata_request as md,
    produce_request as pr,
)
from protocol.primitives import ZERO_UUID
from protocol.records.record import build_batch, decode_batch, iter_batches
from pybroker.testing.broker_process import BrokerProcess
from pybroker.testing.wire_client import WireClient

from .timestamps import a_day_ago_ms

pytestmark = pytest.mark.compat

PRODUCE, FETCH, METADATA, CREATE_TOPICS, DELETE_TOPICS = 0, 1, 3, 19, 20
UNKNOWN = uuid.UUID("0e7f6a52-51f4-4f0e-9d3c-2a1b5c6d7e8f")


def create(c: WireClient, topic: str, partitions: int = 2) -> uuid.UUID:
    resp = c.call(CREATE_TOPICS, 7, ct.CreateTopicsRequest(
        topics=[ct.CreatableTopic(name=topic, num_partitions=partitions, replication_factor=1)],
        timeout_ms=10_000))
    [result] = resp.topics
    assert result.error_code == ErrorCode.NONE, result
    return topic_id(c, topic)


def topic_id(c: WireClient, topic: str) -> uuid.UUID:
    [t] = c.call(METADATA, 12, md.MetadataRequest(
        topics=[md.MetadataRequestTopic(name=topic)], allow_auto_topic_creation=False)).topics
    assert t.error_code == ErrorCode.NONE and t.topic_id != ZERO_UUID, t
    return t.topic_id


def produce(c: WireClient, topic: str, values: list[bytes], partition: int = 0) -> None:
    ts = a_day_ago_ms()
    batch = build_batch([(None, v, (), ts) for v in values])
    resp = c.call(PRODUCE, 9, pr.ProduceRequest(acks=-1, timeout_ms=10_000, topic_data=[
        pr.TopicProduceData(name=topic, partition_data=[
            pr.PartitionProduceData(index=partition, records=bytes(batch))])]))
    assert resp.responses[0].partition_responses[0].error_code == ErrorCode.NONE


def fetch(c: WireClient, version: int, *topics: tuple[uuid.UUID, tuple[int, ...]],
          max_wait_ms: int = 0) -> fresp.FetchResponse:
    resp = c.call(FETCH, version, fr.FetchRequest(
        max_wait_ms=max_wait_ms, min_bytes=1, max_bytes=50 << 20, session_id=0,
        session_epoch=-1, topics=[fr.FetchTopic(topic_id=i, partitions=[
            fr.FetchPartition(partition=p, fetch_offset=0, partition_max_bytes=1 << 20)
            for p in parts]) for i, parts in topics]))
    assert isinstance(resp, fresp.FetchResponse) and resp.error_code == ErrorCode.NONE
    return resp


def values(records) -> list[bytes]:
    buf = bytes(records)
    return [r.value for pos, _ in iter_batches(buf) for r in decode_batch(buf, pos)[1]]


def answers(resp: fresp.FetchResponse) -> list[tuple[uuid.UUID, int, str]]:
    return [(t.topic_id, p.partition_index, ErrorCode(p.error_code).name)
            for t in resp.responses for p in t.partitions]


@pytest.mark.parametrize("version", [13, 14, 15, 16, 17])
def test_fetch_by_topic_id(module_broker: BrokerProcess, topic: str, version: int) -> None:
    with WireClient(module_broker.bootstrap) as c:
        tid = create(c, topic)
        produce(c, topic, [b"a", b"b", b"c"])
        resp = fetch(c, version, (tid, (0, 1)))
        assert answers(resp) == [(tid, 0, "NONE"), (tid, 1, "NONE")]
        [t] = resp.responses
        assert values(t.partitions[0].records) == [b"a", b"b", b"c"]
        assert t.partitions[0].high_watermark == 3 and len(t.partitions[1].records) == 0
        assert resp.node_endpoints == []


def test_unknown_topic_ids(module_broker: BrokerProcess, topic: str) -> None:
    with WireClient(module_broker.bootstrap) as c:
        tid = create(c, topic)
        produce(c, topic, [b"x"])
        resp = fetch(c, 17, (UNKNOWN, (0, 1)), (tid, (0,)), (ZERO_UUID, (0,)))
        # the unknown ids come after the partition read, as Kafka answers them
        assert answers(resp) == [(tid, 0, "NONE"), (UNKNOWN, 0, "UNKNOWN_TOPIC_ID"),
                                 (UNKNOWN, 1, "UNKNOWN_TOPIC_ID"),
                                 (ZERO_UUID, 0, "UNKNOWN_TOPIC_ID")]
        refused = resp.responses[1].partitions[0]
        assert (refused.high_watermark, refused.log_start_offset) == (-1, -1)
        assert refused.records is not None and len(refused.records) == 0
        # a partition the known topic does not have is the old error
        assert answers(fetch(c, 17, (tid, (7,)))) == [(tid, 7, "UNKNOWN_TOPIC_OR_PARTITION")]


def test_a_recreated_topic_has_a_new_id(module_broker: BrokerProcess, topic: str) -> None:
    with WireClient(module_broker.bootstrap) as c:
        old = create(c, topic, 1)
        produce(c, topic, [b"old"])
        resp = c.call(DELETE_TOPICS, 6, dt.DeleteTopicsRequest(
            topics=[dt.DeleteTopicState(name=topic)], timeout_ms=10_000))
        assert resp.responses[0].error_code == ErrorCode.NONE
        deadline = time.monotonic() + 20
        while True:  # the name is free once the deletion completed
            again = c.call(CREATE_TOPICS, 7, ct.CreateTopicsRequest(topics=[ct.CreatableTopic(
                name=topic, num_partitions=1, replication_factor=1)], timeout_ms=10_000))
            if again.topics[0].error_code == ErrorCode.NONE:
                break
            assert again.topics[0].error_code == ErrorCode.TOPIC_ALREADY_EXISTS
            assert time.monotonic() < deadline, "the deleted topic's name never came free"
            time.sleep(0.2)
        new = topic_id(c, topic)
        assert new != old
        produce(c, topic, [b"new"])
        assert answers(fetch(c, 17, (old, (0,)))) == [(old, 0, "UNKNOWN_TOPIC_ID")]
        resp = fetch(c, 17, (new, (0,)))
        assert values(resp.responses[0].partitions[0].records) == [b"new"]


def test_a_long_poll_by_id_is_woken_by_an_append(module_broker: BrokerProcess,
                                                 topic: str) -> None:
    with WireClient(module_broker.bootstrap) as c:
        tid = create(c, topic, 1)

    def append_later() -> None:
        time.sleep(0.5)
        with WireClient(module_broker.bootstrap) as p:
            produce(p, topic, [b"late"])

    t = threading.Thread(target=append_later)
    # the socket gives up after 20 s: only the append can answer a 120 s poll in time
    with WireClient(module_broker.bootstrap, timeout=20) as c:
        t.start()
        resp = fetch(c, 17, (tid, (0,)), max_wait_ms=120_000)
    t.join()
    assert answers(resp) == [(tid, 0, "NONE")]
    assert values(resp.responses[0].partitions[0].records) == [b"late"]
