"""Scenarios with kafka-python (pure Python; it also speaks the old message formats)."""

from __future__ import annotations

import time
from typing import Any

from pybroker.compat.scenario import Context, scenario
from pybroker.compat.scenarios.common import CODECS, records

CLIENT = "kafka-python"


def _produce(ctx: Context, topic: str, sent: list[tuple[bytes, bytes]], **config: Any) -> list[int]:
    from kafka import KafkaProducer

    producer = KafkaProducer(**ctx.kafka_python(), linger_ms=5, **config)
    try:
        futures = [producer.send(topic, key=k, value=v, headers=[("h", k)]) for k, v in sent]
        producer.flush(timeout=ctx.remaining())
        return [f.get(timeout=ctx.remaining()).offset for f in futures]
    finally:
        producer.close(timeout=5)


def _consume(ctx: Context, topic: str, n: int, partition: int = 0, **config: Any) -> list[Any]:
    """The first ``n`` records of the partition, read from the beginning without a group."""
    from kafka import KafkaConsumer, TopicPartition

    consumer = KafkaConsumer(**ctx.kafka_python(), enable_auto_commit=False,
                             **config)
    try:
        tp = TopicPartition(topic, partition)
        consumer.assign([tp])
        consumer.seek_to_beginning(tp)
        got: list[Any] = []

        def read() -> bool:
            for batch in consumer.poll(timeout_ms=300).values():
                got.extend(batch)
            return len(got) >= n

        ctx.wait_until(read, f"fetching {n} records of {topic}")
        return got
    finally:
        consumer.close()


def _round_trip(ctx: Context, n: int = 50, **producer_config: Any) -> None:
    topic = ctx.create_topic()
    sent = records(n)
    offsets = _produce(ctx, topic, sent, **producer_config)
    ctx.evidence("produced offsets", offsets)
    ctx.check(offsets == list(range(n)), f"offsets are not 0..{n - 1}", offsets=offsets)
    got = _consume(ctx, topic, n)
    seen = [(r.key, r.value) for r in got]
    ctx.check(seen == sent, "fetched records differ from those produced",
              sent=sent[:3], fetched=seen[:3])
    ctx.check([r.offset for r in got] == list(range(n)), "fetched offsets are not contiguous",
              fetched_offsets=[r.offset for r in got])
    ctx.check(all(list(r.headers) == [("h", r.key)] for r in got), "headers were not kept",
              headers=[r.headers for r in got[:3]])


@scenario("produce-fetch", client=CLIENT, timeout=30)
def produce_fetch(ctx: Context) -> None:
    """Produce 50 records with headers (acks=all); read them back unchanged, in order."""
    _round_trip(ctx, acks="all")


def codec(ctx: Context, codec: str) -> None:
    """Produce 50 records in compressed batches; read them back unchanged."""
    _round_trip(ctx, compression_type=codec, acks=1)


for _codec in CODECS:
    scenario(f"codec-{_codec}", client=CLIENT, timeout=30, params={"codec": _codec})(codec)


@scenario("idempotence", client=CLIENT, timeout=30)
def idempotence(ctx: Context) -> None:
    """An idempotent producer (producer id, sequence numbers) writes 200 records once, in order."""
    _round_trip(ctx, n=200, enable_idempotence=True, acks="all")


@scenario("transactions", client=CLIENT, timeout=45)
def transactions(ctx: Context) -> None:
    """Commit, abort, commit: read_committed sees the committed records only,
    read_uncommitted all three batches."""
    from kafka import KafkaProducer

    topic = ctx.create_topic()
    producer = KafkaProducer(**ctx.kafka_python(),
                             transactional_id=ctx.transactional_id())
    batches = {tag: records(10, tag) for tag in ("a", "b", "c")}
    try:
        producer.init_transactions()
        for tag, commit in (("a", True), ("b", False), ("c", True)):
            producer.begin_transaction()
            for k, v in batches[tag]:
                producer.send(topic, key=k, value=v)
            producer.flush(timeout=ctx.remaining())
            if commit:
                producer.commit_transaction()
            else:
                producer.abort_transaction()
    finally:
        producer.close(timeout=5)
    committed = batches["a"] + batches["c"]
    got = _consume(ctx, topic, len(committed), isolation_level="read_committed")
    seen = [(r.key, r.value) for r in got]
    ctx.check(seen == committed, "read_committed did not see exactly the committed records",
              expected=[k for k, _ in committed], fetched=[k for k, _ in seen])
    everything = batches["a"] + batches["b"] + batches["c"]
    got = _consume(ctx, topic, len(everything), isolation_level="read_uncommitted")
    seen = [(r.key, r.value) for r in got]
    ctx.check(seen == everything, "read_uncommitted did not see every record",
              fetched=[k for k, _ in seen])


@scenario("group-classic", client=CLIENT, timeout=60)
def group_classic(ctx: Context) -> None:
    """One member takes both partitions and commits; a second member joins and the group
    rebalances to one partition each; the committed offsets are fetched back."""
    from kafka import KafkaConsumer, TopicPartition

    topic, group = ctx.create_topic(partitions=2), ctx.group()
    for p in (0, 1):
        _produce_to(ctx, topic, p, 5)

    def member() -> Any:
        c = KafkaConsumer(topic, **ctx.kafka_python(), group_id=group,
                          enable_auto_commit=False, auto_offset_reset="earliest",
                          heartbeat_interval_ms=500, session_timeout_ms=10000)
        return c

    first = member()
    second = None
    try:
        got: list[Any] = []

        def read_all() -> bool:
            for batch in first.poll(timeout_ms=300).values():
                got.extend(batch)
            return len(got) >= 10

        ctx.wait_until(read_all, "the first member reading both partitions")
        ctx.evidence("first member's assignment", sorted(map(str, first.assignment())))
        first.commit()
        committed = {p: first.committed(TopicPartition(topic, p)) for p in (0, 1)}
        ctx.check(committed == {0: 5, 1: 5}, "committed offsets were not fetched back",
                  committed=committed)
        second = member()

        def balanced() -> bool:
            first.poll(timeout_ms=100)
            assert second is not None
            second.poll(timeout_ms=100)
            return len(first.assignment()) == 1 and len(second.assignment()) == 1

        ctx.wait_until(balanced, "the rebalance to one partition per member")
        ctx.evidence("assignments", [sorted(map(str, first.assignment())),
                                     sorted(map(str, second.assignment()))])
    finally:
        first.close()
        if second is not None:
            second.close()


def _produce_to(ctx: Context, topic: str, partition: int, n: int) -> None:
    from kafka import KafkaProducer

    producer = KafkaProducer(**ctx.kafka_python(), acks="all")
    try:
        for k, v in records(n, f"p{partition}"):
            producer.send(topic, key=k, value=v, partition=partition)
        producer.flush(timeout=ctx.remaining())
    finally:
        producer.close(timeout=5)


@scenario("admin-topics", client=CLIENT, timeout=45)
def admin_topics(ctx: Context) -> None:
    """Create a topic of 3 partitions, grow it to 5, describe it, delete it."""
    from kafka import KafkaAdminClient
    from kafka.admin import NewPartitions, NewTopic

    topic = ctx.topic()
    admin = KafkaAdminClient(**ctx.kafka_python())
    try:
        admin.create_topics([NewTopic(topic, 3, 1)])
        ctx.wait_until(lambda: topic in admin.list_topics(), "the new topic in the topic list")
        admin.create_partitions({topic: NewPartitions(5)})

        def five() -> bool:
            described = admin.describe_topics([topic])
            return len(described[0]["partitions"]) == 5

        ctx.wait_until(five, "the topic described with 5 partitions")
        admin.delete_topics([topic])
        ctx.wait_until(lambda: topic not in admin.list_topics(),
                       "the deleted topic gone from the topic list")
    finally:
        admin.close()


@scenario("admin-configs", client=CLIENT, timeout=30)
def admin_configs(ctx: Context) -> None:
    """Create a topic with a config, describe it, alter another, describe again."""
    from kafka import KafkaAdminClient
    from kafka.admin import ConfigResource, ConfigResourceType, NewTopic

    topic = ctx.topic()
    admin = KafkaAdminClient(**ctx.kafka_python())
    try:
        admin.create_topics([NewTopic(topic, 1, 1, topic_configs={"retention.ms": "3600000"})])
        resource = ConfigResource(ConfigResourceType.TOPIC, topic)

        def config_value(name: str) -> Any:
            described = admin.describe_configs([resource], config_filter="all")
            ctx.evidence("described", described)
            return described["topic"][topic][name]["value"]

        ctx.check(config_value("retention.ms") == "3600000", "the topic's retention.ms was not kept")
        admin.alter_configs([ConfigResource(ConfigResourceType.TOPIC, topic,
                                            configs={"segment.ms": "7200000"})])
        ctx.check(config_value("segment.ms") == "7200000", "the altered segment.ms was not kept")
    finally:
        admin.close()


@scenario("admin-groups", client=CLIENT, timeout=45)
def admin_groups(ctx: Context) -> None:
    """A group commits offsets; it is listed, described, its offsets listed and altered,
    then it is deleted."""
    from kafka import KafkaAdminClient, KafkaConsumer, TopicPartition
    from kafka.structs import OffsetAndMetadata

    topic, group = ctx.create_topic(), ctx.group()
    _produce_to(ctx, topic, 0, 5)
    consumer = KafkaConsumer(topic, **ctx.kafka_python(), group_id=group,
                             enable_auto_commit=False, auto_offset_reset="earliest")
    try:
        n = 0

        def read() -> bool:
            nonlocal n
            n += sum(len(b) for b in consumer.poll(timeout_ms=300).values())
            return n >= 5

        ctx.wait_until(read, "the member reading 5 records")
        consumer.commit()
    finally:
        consumer.close()
    tp = TopicPartition(topic, 0)
    admin = KafkaAdminClient(**ctx.kafka_python())
    try:
        listed = ctx.wait_until(
            lambda: [g for g in admin.list_groups() if g.get("group_id") == group],
            "the group in ListGroups")
        ctx.evidence("listed", listed)
        described = admin.describe_groups([group])
        ctx.evidence("described", described)
        state = described[group].get("group_state")
        ctx.check(state == "Empty", f"the group is described {state!r}, not Empty")
        offsets = admin.list_group_offsets({group: None})[group]
        ctx.check(offsets[tp].offset == 5, "the committed offset is not listed",
                  offsets=offsets)
        admin.alter_group_offsets(group, {tp: OffsetAndMetadata(2, "", -1)})
        offsets = admin.list_group_offsets({group: None})[group]
        ctx.check(offsets[tp].offset == 2, "the altered offset is not listed", offsets=offsets)
        ctx.evidence("deleted", admin.delete_groups([group]))
        ctx.wait_until(lambda: group not in [g.get("group_id") for g in admin.list_groups()],
                       "the deleted group gone from ListGroups")
    finally:
        admin.close()


def old_format(ctx: Context, api_version: list[int]) -> None:
    """kafka-python pinned to an old broker version produces and fetches in the old message
    format (magic 1 for 0.10, magic 0 for 0.9); its timestamps and values come back."""
    version = tuple(api_version)
    if ctx.security.sasl and version < (0, 10):
        ctx.skip("a client of Kafka 0.9 cannot log in with SASL (SaslHandshake came with 0.10)")
    topic = ctx.create_topic()
    sent = records(30)
    ts0 = int(time.time() * 1000) - 60_000
    from kafka import KafkaConsumer, KafkaProducer, TopicPartition

    producer = KafkaProducer(**ctx.kafka_python(), api_version=version, linger_ms=5)
    try:
        futures = [producer.send(topic, key=k, value=v, timestamp_ms=ts0 + i)
                   for i, (k, v) in enumerate(sent)]
        producer.flush(timeout=ctx.remaining())
        offsets = [f.get(timeout=ctx.remaining()).offset for f in futures]
    finally:
        producer.close(timeout=5)
    ctx.check(offsets == list(range(30)), "offsets are not 0..29", offsets=offsets)
    consumer = KafkaConsumer(**ctx.kafka_python(), api_version=version,
                             enable_auto_commit=False)
    try:
        tp = TopicPartition(topic, 0)
        consumer.assign([tp])
        consumer.seek_to_beginning(tp)
        got: list[Any] = []

        def read() -> bool:
            for batch in consumer.poll(timeout_ms=300).values():
                got.extend(batch)
            return len(got) >= 30

        ctx.wait_until(read, "fetching the 30 records")
    finally:
        consumer.close()
    seen = [(r.key, r.value) for r in got]
    ctx.check(seen == sent, "fetched records differ", sent=sent[:3], fetched=seen[:3])
    if version >= (0, 10):
        stamps = [r.timestamp for r in got]
        ctx.check(stamps == [ts0 + i for i in range(30)], "timestamps were not kept",
                  timestamps=stamps[:5])


scenario("old-formats", client=CLIENT, name="old-formats-0.10", timeout=30,
         params={"api_version": [0, 10]})(old_format)
scenario("old-formats", client=CLIENT, name="old-formats-0.9", timeout=30,
         params={"api_version": [0, 9]})(old_format)


@scenario("list-offsets", client=CLIENT, timeout=30)
def list_offsets(ctx: Context) -> None:
    """Earliest, latest and by-timestamp offsets of a partition of 20 timestamped records."""
    from kafka import KafkaConsumer, KafkaProducer, TopicPartition

    topic = ctx.create_topic()
    ts0 = int(time.time() * 1000) - 3_600_000
    producer = KafkaProducer(**ctx.kafka_python(), acks="all")
    try:
        for i, (k, v) in enumerate(records(20)):
            producer.send(topic, key=k, value=v, timestamp_ms=ts0 + 1000 * i)
        producer.flush(timeout=ctx.remaining())
    finally:
        producer.close(timeout=5)
    tp = TopicPartition(topic, 0)
    consumer = KafkaConsumer(**ctx.kafka_python())
    try:
        earliest = consumer.beginning_offsets([tp])[tp]
        latest = consumer.end_offsets([tp])[tp]
        by_time = consumer.offsets_for_times({tp: ts0 + 5500})[tp]
        after = consumer.offsets_for_times({tp: ts0 + 60_000})[tp]
    finally:
        consumer.close()
    ctx.evidence("offsets", {"earliest": earliest, "latest": latest, "by_time": by_time,
                             "after_the_last": after})
    ctx.check((earliest, latest) == (0, 20), "earliest/latest are not 0/20")
    ctx.check(by_time is not None and by_time.offset == 6 and by_time.timestamp == ts0 + 6000,
              "the offset for a timestamp is not the first record at or after it")
    ctx.check(after is None, "a timestamp after the last record found an offset")


@scenario("delete-records", client=CLIENT, timeout=30)
def delete_records(ctx: Context) -> None:
    """Records before offset 7 are deleted; the partition then starts at 7."""
    from kafka import KafkaAdminClient, KafkaConsumer, TopicPartition

    topic = ctx.create_topic()
    _produce_to(ctx, topic, 0, 10)
    tp = TopicPartition(topic, 0)
    admin = KafkaAdminClient(**ctx.kafka_python())
    try:
        result = admin.delete_records({tp: 7})
        ctx.evidence("delete_records", result)
    finally:
        admin.close()
    consumer = KafkaConsumer(**ctx.kafka_python())
    try:
        start = consumer.beginning_offsets([tp])[tp]
    finally:
        consumer.close()
    ctx.check(start == 7, f"the log starts at {start}, not 7")
