"""Retention and LogAppendTime with real clients: old segments go in the background, the log
start offset moves (and survives a restart), fetches below it answer OFFSET_OUT_OF_RANGE, and a
LogAppendTime topic stamps records with the broker's clock."""

from __future__ import annotations

import time

import pytest
from confluent_kafka import (
    OFFSET_BEGINNING,
    TIMESTAMP_LOG_APPEND_TIME,
    Consumer,
    Producer,
    TopicPartition,
)
from confluent_kafka.admin import (
    AdminClient,
    AlterConfigOpType,
    ConfigEntry,
    ConfigResource,
    NewTopic,
)

from protocol.errors import ErrorCode
from protocol.messages import fetch_request as fr
from pybroker.testing.broker_process import BrokerProcess
from pybroker.testing.wire_client import WireClient

pytestmark = pytest.mark.compat


def create(boot: str, topic: str, config: dict[str, str]) -> None:
    a = AdminClient({"bootstrap.servers": boot})
    a.create_topics([NewTopic(topic, 1, 1, config=config)])[topic].result(30)


def set_topic_config(boot: str, topic: str, name: str, value: str) -> None:
    a = AdminClient({"bootstrap.servers": boot})
    resource = ConfigResource(ConfigResource.Type.TOPIC, topic, incremental_configs=[
        ConfigEntry(name, value, incremental_operation=AlterConfigOpType.SET)])
    for f in a.incremental_alter_configs([resource]).values():
        f.result(30)


def watermarks(boot: str, topic: str) -> tuple[int, int]:
    c = Consumer({"bootstrap.servers": boot, "group.id": "wm"})
    try:
        return c.get_watermark_offsets(TopicPartition(topic, 0), timeout=10)
    finally:
        c.close()


def test_retention_deletes_old_segments_and_moves_the_log_start(broker_factory) -> None:
    broker: BrokerProcess = broker_factory(**{"log.retention.check.interval.ms": 200,
                                              "log.segment.delete.delay.ms": 0})
    boot = broker.bootstrap
    topic = "short-lived"
    create(boot, topic, {"segment.bytes": "2048"})
    p = Producer({"bootstrap.servers": boot, "linger.ms": 0})
    old = int(time.time() * 1000) - 60_000  # a minute old: past retention at once
    for i in range(100):
        p.produce(topic, value=b"x" * 100, partition=0, timestamp=old + i)
        p.flush(30)
    # Retention is switched on once every segment is written, so that one pass deletes all
    # the old ones. Were it on while producing, a pass in the middle would move the log start
    # part of the way, and the next (200 ms later) further, after the test had read it.
    set_topic_config(boot, topic, "retention.ms", "1000")
    deadline = time.monotonic() + 30
    while watermarks(boot, topic)[0] == 0 and time.monotonic() < deadline:
        time.sleep(0.3)
    low, high = watermarks(boot, topic)
    assert high == 100
    assert 0 < low < 100, "retention never deleted a segment"  # the active segment stays

    # Below the log start: OFFSET_OUT_OF_RANGE (with no offsets, as Kafka answers it).
    with WireClient(boot) as c:
        resp = c.call(1, 12, fr.FetchRequest(
            replica_id=-1, max_wait_ms=0, min_bytes=1, max_bytes=1 << 20, session_id=0,
            session_epoch=-1, topics=[fr.FetchTopic(topic=topic, partitions=[
                fr.FetchPartition(partition=0, fetch_offset=0, partition_max_bytes=1 << 20)])]))
    part = resp.responses[0].partitions[0]
    assert part.error_code == ErrorCode.OFFSET_OUT_OF_RANGE
    assert part.log_start_offset == -1

    # A consumer starting from the beginning starts at the new log start.
    c = Consumer({"bootstrap.servers": boot, "group.id": "r", "enable.auto.commit": False})
    c.assign([TopicPartition(topic, 0, OFFSET_BEGINNING)])
    try:
        first = None
        for _ in range(30):
            m = c.poll(1)
            if m is not None and not m.error():
                first = m.offset()
                break
    finally:
        c.close()
    assert first == low

    broker.restart()
    assert watermarks(boot, topic) == (low, 100)


def test_log_append_time_topics_stamp_records(module_broker: BrokerProcess, topic: str) -> None:
    boot = module_broker.bootstrap
    create(boot, topic, {"message.timestamp.type": "LogAppendTime"})
    before = int(time.time() * 1000)
    p = Producer({"bootstrap.servers": boot})
    p.produce(topic, value=b"v", partition=0, timestamp=1000)  # ignored by the broker
    p.flush(30)
    after = int(time.time() * 1000)
    c = Consumer({"bootstrap.servers": boot, "group.id": "lat", "enable.auto.commit": False,
                  "check.crcs": True})
    c.assign([TopicPartition(topic, 0, OFFSET_BEGINNING)])
    try:
        m = None
        for _ in range(30):
            m = c.poll(1)
            if m is not None and not m.error():
                break
    finally:
        c.close()
    assert m is not None and not m.error()
    ts_type, ts = m.timestamp()
    assert ts_type == TIMESTAMP_LOG_APPEND_TIME
    assert before - 1000 <= ts <= after + 1000
