"""Scenarios with confluent-kafka (librdkafka)."""

from __future__ import annotations

import time
from typing import Any

from pybroker.compat.scenario import Context, scenario
from pybroker.compat.scenarios.common import CODECS, records

CLIENT = "confluent-kafka"


def _conf(ctx: Context, **extra: Any) -> dict[str, Any]:
    return {**ctx.confluent(), "client.id": "pybroker-compat", **extra}


def _produce(ctx: Context, topic: str, sent: list[tuple[bytes, bytes]], partition: int = -1,
             producer: Any = None, **config: Any) -> list[int]:
    from confluent_kafka import Producer

    own = producer is None
    p = Producer(_conf(ctx, **{"linger.ms": 5, **config})) if own else producer
    offsets: list[int] = []
    errors: list[str] = []

    def delivered(err: Any, msg: Any) -> None:
        if err is not None:
            errors.append(str(err))
        else:
            offsets.append(msg.offset())

    for k, v in sent:
        p.produce(topic, key=k, value=v, headers=[("h", k)], partition=partition,
                  on_delivery=delivered)
        p.poll(0)
    left = p.flush(ctx.remaining())
    ctx.check(not errors and not left, "not every record was delivered", errors=errors[:5],
              undelivered=left)
    return offsets


def _consume(ctx: Context, topic: str, n: int, partition: int = 0, **config: Any) -> list[Any]:
    from confluent_kafka import OFFSET_BEGINNING, Consumer, TopicPartition

    c = Consumer(_conf(ctx, **{"group.id": ctx.group("reader"), "enable.auto.commit": False,
                               **config}))
    try:
        c.assign([TopicPartition(topic, partition, OFFSET_BEGINNING)])
        got: list[Any] = []

        def read() -> bool:
            for m in c.consume(num_messages=n - len(got), timeout=0.3):
                ctx.check(m.error() is None, f"the consumer got an error: {m.error()}")
                got.append(m)
            return len(got) >= n

        ctx.wait_until(read, f"fetching {n} records of {topic}")
        return got
    finally:
        c.close()


def _round_trip(ctx: Context, n: int = 50, **producer_config: Any) -> None:
    topic = ctx.create_topic()
    sent = records(n)
    offsets = _produce(ctx, topic, sent, **producer_config)
    ctx.evidence("produced offsets", offsets)
    ctx.check(sorted(offsets) == list(range(n)), f"offsets are not 0..{n - 1}", offsets=offsets)
    got = _consume(ctx, topic, n)
    seen = [(m.key(), m.value()) for m in got]
    ctx.check(seen == sent, "fetched records differ from those produced",
              sent=sent[:3], fetched=seen[:3])
    ctx.check([m.offset() for m in got] == list(range(n)), "fetched offsets are not contiguous")
    ctx.check(all(m.headers() == [("h", m.key())] for m in got), "headers were not kept",
              headers=[m.headers() for m in got[:3]])


@scenario("produce-fetch", client=CLIENT, timeout=30)
def produce_fetch(ctx: Context) -> None:
    """Produce 50 records with headers (acks=all); read them back unchanged, in order."""
    _round_trip(ctx, acks="all")


def codec(ctx: Context, codec: str) -> None:
    """Produce 50 records in compressed batches; read them back unchanged."""
    config: dict[str, Any] = {"compression.type": codec, "acks": 1}
    _round_trip(ctx, **config)


for _codec in CODECS:
    scenario(f"codec-{_codec}", client=CLIENT, timeout=30, params={"codec": _codec})(codec)


@scenario("idempotence", client=CLIENT, timeout=30)
def idempotence(ctx: Context) -> None:
    """An idempotent producer writes 500 records once, in order (max 5 requests in flight)."""
    config: dict[str, Any] = {"enable.idempotence": True, "batch.num.messages": 20}
    _round_trip(ctx, n=500, **config)


@scenario("transactions", client=CLIENT, timeout=45)
def transactions(ctx: Context) -> None:
    """Commit, abort, commit, with the consumed offsets sent to the transaction:
    read_committed sees the committed records only, and the group's offset is committed."""
    from confluent_kafka import Consumer, Producer, TopicPartition

    topic, source, group = ctx.create_topic(), ctx.create_topic("in"), ctx.group()
    _produce(ctx, source, records(3, "src"), partition=0)
    producer = Producer(_conf(ctx, **{"transactional.id": ctx.transactional_id()}))
    ctx.log("init_transactions")
    producer.init_transactions(ctx.remaining())
    batches = {tag: records(10, tag) for tag in ("a", "b", "c")}
    consumer = Consumer(_conf(ctx, **{"group.id": group, "enable.auto.commit": False,
                                      "auto.offset.reset": "earliest"}))
    try:
        for tag, commit in (("a", True), ("b", False), ("c", True)):
            ctx.log(f"transaction {tag}: {'commit' if commit else 'abort'}")
            producer.begin_transaction()
            for k, v in batches[tag]:
                producer.produce(topic, key=k, value=v, partition=0)
            if tag == "c":
                offsets = [TopicPartition(source, 0, 3)]
                producer.send_offsets_to_transaction(
                    offsets, consumer.consumer_group_metadata(), ctx.remaining())
            if commit:
                producer.commit_transaction(ctx.remaining())
            else:
                producer.abort_transaction(ctx.remaining())
        committed = consumer.committed([TopicPartition(source, 0)], timeout=ctx.remaining())
    finally:
        consumer.close()
    ctx.check(committed[0].offset == 3, "the offset sent to the transaction was not committed",
              committed=str(committed))
    expected = batches["a"] + batches["c"]
    config: dict[str, Any] = {"isolation.level": "read_committed"}
    got = _consume(ctx, topic, len(expected), **config)
    seen = [(m.key(), m.value()) for m in got]
    ctx.check(seen == expected, "read_committed did not see exactly the committed records",
              expected=[k for k, _ in expected], fetched=[k for k, _ in seen])


@scenario("group-classic", client=CLIENT, timeout=60)
def group_classic(ctx: Context) -> None:
    """One member takes both partitions and commits; a second member joins and the group
    rebalances to one partition each; the committed offsets are fetched back."""
    _two_members(ctx, {"session.timeout.ms": 10000, "heartbeat.interval.ms": 500},
                 "the rebalance to one partition per member")


@scenario("group-kip848", client=CLIENT, timeout=90)
def group_kip848(ctx: Context) -> None:
    """``group.protocol=consumer``: one member takes both partitions and commits; a second
    member joins and the broker's assignor moves one partition to it (the first revokes it
    before the second gets it); the committed offsets are fetched back."""
    _two_members(ctx, {"group.protocol": "consumer"},
                 "the broker's assignment of one partition per member")


def _two_members(ctx: Context, protocol: dict[str, Any], balancing: str) -> None:
    """The group scenario of either protocol (``protocol``: the members' settings of it)."""
    from confluent_kafka import Consumer, TopicPartition

    topic, group = ctx.create_topic(partitions=2), ctx.group()
    for p in (0, 1):
        _produce(ctx, topic, records(5, f"p{p}"), partition=p)

    def member() -> Any:
        c = Consumer(_conf(ctx, **{"group.id": group, "enable.auto.commit": False,
                                   "auto.offset.reset": "earliest", **protocol}))
        c.subscribe([topic])
        return c

    first = member()
    second = None
    try:
        got: list[Any] = []

        def read_all() -> bool:
            got.extend(m for m in first.consume(10, timeout=0.3) if m.error() is None)
            return len(got) >= 10

        ctx.wait_until(read_all, "the first member reading both partitions")
        first.commit(asynchronous=False)
        committed = first.committed([TopicPartition(topic, p) for p in (0, 1)],
                                    timeout=ctx.remaining())
        ctx.check([tp.offset for tp in committed] == [5, 5],
                  "committed offsets were not fetched back", committed=str(committed))
        second = member()

        def balanced() -> bool:
            first.poll(0.1)
            assert second is not None
            second.poll(0.1)
            return len(first.assignment()) == 1 and len(second.assignment()) == 1

        ctx.wait_until(balanced, balancing)
    finally:
        first.close()
        if second is not None:
            second.close()


@scenario("admin-topics", client=CLIENT, timeout=45)
def admin_topics(ctx: Context) -> None:
    """Create a topic of 3 partitions, grow it to 5, describe it, delete it."""
    from confluent_kafka import TopicCollection
    from confluent_kafka.admin import AdminClient, NewPartitions, NewTopic

    topic = ctx.topic()
    admin = AdminClient(_conf(ctx))
    admin.create_topics([NewTopic(topic, 3, 1)])[topic].result(ctx.remaining())
    admin.create_partitions([NewPartitions(topic, 5)])[topic].result(ctx.remaining())

    def partitions() -> int:
        d = admin.describe_topics(TopicCollection([topic]))[topic].result(ctx.remaining())
        return len(d.partitions)

    ctx.wait_until(lambda: partitions() == 5, "the topic described with 5 partitions")
    admin.delete_topics([topic])[topic].result(ctx.remaining())
    ctx.wait_until(lambda: topic not in admin.list_topics(timeout=5).topics,
                   "the deleted topic gone from Metadata")


@scenario("admin-configs", client=CLIENT, timeout=30)
def admin_configs(ctx: Context) -> None:
    """Create a topic with a config; IncrementalAlterConfigs sets another and deletes the
    first; DescribeConfigs shows each change with its source."""
    from confluent_kafka.admin import (
        AdminClient,
        AlterConfigOpType,
        ConfigEntry,
        ConfigResource,
        ConfigSource,
        NewTopic,
        ResourceType,
    )

    topic = ctx.topic()
    admin = AdminClient(_conf(ctx))
    admin.create_topics([NewTopic(topic, 1, 1, config={"retention.ms": "3600000"})])[
        topic].result(ctx.remaining())
    resource = ConfigResource(ResourceType.TOPIC, topic)

    def describe() -> dict[str, Any]:
        found = admin.describe_configs([resource])[resource].result(ctx.remaining())
        return {k: (e.value, ConfigSource(e.source).name) for k, e in found.items()}

    before = describe()
    ctx.evidence("before", {k: before[k] for k in ("retention.ms", "segment.ms")})
    ctx.check(before["retention.ms"] == ("3600000", "DYNAMIC_TOPIC_CONFIG"),
              "the topic's retention.ms is not described as set")
    ops = [ConfigEntry("segment.ms", "7200000",
                       incremental_operation=AlterConfigOpType.SET),
           ConfigEntry("retention.ms", None, incremental_operation=AlterConfigOpType.DELETE)]
    admin.incremental_alter_configs([ConfigResource(ResourceType.TOPIC, topic,
                                                    incremental_configs=ops)])[
        resource].result(ctx.remaining())
    after = describe()
    ctx.evidence("after", {k: after[k] for k in ("retention.ms", "segment.ms")})
    ctx.check(after["segment.ms"] == ("7200000", "DYNAMIC_TOPIC_CONFIG"),
              "the set segment.ms is not described")
    ctx.check(after["retention.ms"][1] != "DYNAMIC_TOPIC_CONFIG",
              "the deleted retention.ms is still a topic config")


@scenario("admin-groups", client=CLIENT, timeout=45)
def admin_groups(ctx: Context) -> None:
    """A group commits offsets; it is listed, described, its offsets listed and altered,
    then it is deleted."""
    from confluent_kafka import ConsumerGroupTopicPartitions, TopicPartition
    from confluent_kafka.admin import AdminClient

    topic, group = ctx.create_topic(), ctx.group()
    _produce(ctx, topic, records(5), partition=0)
    from confluent_kafka import Consumer

    c = Consumer(_conf(ctx, **{"group.id": group, "enable.auto.commit": False,
                               "auto.offset.reset": "earliest"}))
    try:
        c.subscribe([topic])
        got: list[Any] = []

        def read() -> bool:
            got.extend(m for m in c.consume(5, timeout=0.3) if m.error() is None)
            return len(got) >= 5

        ctx.wait_until(read, "the member reading 5 records")
        c.commit(asynchronous=False)
    finally:
        c.close()
    admin = AdminClient(_conf(ctx))
    listed = admin.list_consumer_groups().result(ctx.remaining())
    ids = [g.group_id for g in listed.valid]
    ctx.check(group in ids, "the group is not listed", listed=ids)
    described = admin.describe_consumer_groups([group])[group].result(ctx.remaining())
    ctx.evidence("described", {"state": str(described.state), "members": len(described.members)})
    ctx.check(str(described.state).endswith("EMPTY"), "the group is not described Empty")
    request = [ConsumerGroupTopicPartitions(group, [TopicPartition(topic, 0)])]
    offsets = admin.list_consumer_group_offsets(request)[group].result(ctx.remaining())
    ctx.check(offsets.topic_partitions[0].offset == 5, "the committed offset is not listed",
              offsets=str(offsets.topic_partitions))
    admin.alter_consumer_group_offsets(
        [ConsumerGroupTopicPartitions(group, [TopicPartition(topic, 0, 2)])])[group].result(
        ctx.remaining())
    offsets = admin.list_consumer_group_offsets(request)[group].result(ctx.remaining())
    ctx.check(offsets.topic_partitions[0].offset == 2, "the altered offset is not listed",
              offsets=str(offsets.topic_partitions))
    admin.delete_consumer_groups([group])[group].result(ctx.remaining())
    listed = admin.list_consumer_groups().result(ctx.remaining())
    ctx.check(group not in [g.group_id for g in listed.valid], "the deleted group is listed")


@scenario("list-offsets", client=CLIENT, timeout=30)
def list_offsets(ctx: Context) -> None:
    """Earliest, latest, max-timestamp and by-timestamp offsets (the admin client's
    ListOffsets)."""
    from confluent_kafka import Producer, TopicPartition
    from confluent_kafka.admin import AdminClient, OffsetSpec

    topic = ctx.create_topic()
    ts0 = int(time.time() * 1000) - 3_600_000
    p = Producer(_conf(ctx, acks="all"))
    for i, (k, v) in enumerate(records(20)):
        p.produce(topic, key=k, value=v, partition=0, timestamp=ts0 + 1000 * i)
    ctx.check(p.flush(ctx.remaining()) == 0, "not every record was delivered")
    admin = AdminClient(_conf(ctx))
    tp = TopicPartition(topic, 0)
    found = {}
    for name, spec in (("earliest", OffsetSpec.earliest()), ("latest", OffsetSpec.latest()),
                       ("max_timestamp", OffsetSpec.max_timestamp()),
                       ("for_time", OffsetSpec.for_timestamp(ts0 + 5500))):
        r = admin.list_offsets({tp: spec})[tp].result(ctx.remaining())
        found[name] = (r.offset, r.timestamp)
    ctx.evidence("offsets", found)
    ctx.check(found["earliest"][0] == 0 and found["latest"][0] == 20,
              "earliest/latest are not 0/20")
    ctx.check(found["max_timestamp"] == (19, ts0 + 19_000),
              "max timestamp is not the last record's")
    ctx.check(found["for_time"] == (6, ts0 + 6000),
              "the offset for a timestamp is not the first record at or after it")


@scenario("delete-records", client=CLIENT, timeout=30)
def delete_records(ctx: Context) -> None:
    """Records before offset 7 are deleted; the partition then starts at 7."""
    from confluent_kafka import TopicPartition
    from confluent_kafka.admin import AdminClient

    topic = ctx.create_topic()
    _produce(ctx, topic, records(10), partition=0)
    admin = AdminClient(_conf(ctx))
    tp = TopicPartition(topic, 0, 7)
    result = admin.delete_records([tp])[tp].result(ctx.remaining())
    ctx.evidence("delete_records", str(result))
    ctx.check(result.low_watermark == 7, f"the log starts at {result.low_watermark}, not 7")


def old_format(ctx: Context, fallback: str) -> None:
    """librdkafka without ApiVersions, on an old broker's fallback versions (0.9.0: Produce
    and Fetch v1, message format v0; 0.8.2: v0) produces and fetches 30 records."""
    from confluent_kafka import OFFSET_BEGINNING, Consumer, Producer, TopicPartition

    if ctx.security.sasl:
        ctx.skip(f"librdkafka pinned to Kafka {fallback} cannot log in with SASL (it would not "
                 "send SaslHandshake, which came with 0.10)")
    pinned = {"api.version.request": False, "broker.version.fallback": fallback}
    topic = ctx.create_topic()
    sent = records(30)
    errors: list[str] = []
    p = Producer(_conf(ctx, **{"linger.ms": 5, **pinned}))

    def delivered(err: Any, _msg: Any) -> None:
        if err is not None:
            errors.append(str(err))

    for k, v in sent:
        p.produce(topic, key=k, value=v, partition=0, on_delivery=delivered)
    left = p.flush(ctx.remaining())
    ctx.check(not errors and not left, "not every record was delivered", errors=errors[:5])
    c = Consumer(_conf(ctx, **{"group.id": ctx.group("reader"), "enable.auto.commit": False,
                               **pinned}))
    try:
        c.assign([TopicPartition(topic, 0, OFFSET_BEGINNING)])
        got: list[Any] = []

        def read() -> bool:
            got.extend(m for m in c.consume(30, timeout=0.3) if m.error() is None)
            return len(got) >= 30

        ctx.wait_until(read, "fetching the 30 records")
    finally:
        c.close()
    seen = [(m.offset(), m.key(), m.value()) for m in got]
    expected = [(i, k, v) for i, (k, v) in enumerate(sent)]
    ctx.check(seen == expected, "fetched records differ", sent=expected[:3], fetched=seen[:3])


scenario("old-formats", client=CLIENT, name="old-formats-0.9.0", timeout=30,
         params={"fallback": "0.9.0"})(old_format)
scenario("old-formats", client=CLIENT, name="old-formats-0.8.2", timeout=30,
         params={"fallback": "0.8.2"})(old_format)
