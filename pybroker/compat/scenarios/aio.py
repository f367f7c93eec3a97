"""Scenarios with aiokafka (asyncio). Each runs its own event loop in the scenario's process."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any

from pybroker.compat.scenario import Context, scenario
from pybroker.compat.scenarios.common import CODECS, records

CLIENT = "aiokafka"


def _run(ctx: Context, coro: Coroutine[Any, Any, None]) -> None:
    asyncio.run(asyncio.wait_for(coro, max(1.0, ctx.remaining() - 1.0)))


async def _produce(ctx: Context, topic: str, sent: list[tuple[bytes, bytes]],
                   partition: int | None = None, **config: Any) -> list[int]:
    from aiokafka import AIOKafkaProducer

    producer = AIOKafkaProducer(**ctx.aiokafka(), linger_ms=5, **config)
    await producer.start()
    try:
        futures = [await producer.send(topic, key=k, value=v, headers=[("h", k)],
                                       partition=partition)
                   for k, v in sent]
        return [(await f).offset for f in futures]
    finally:
        await producer.stop()


async def _consume(ctx: Context, topic: str, n: int, **config: Any) -> list[Any]:
    from aiokafka import AIOKafkaConsumer, TopicPartition

    consumer = AIOKafkaConsumer(**ctx.aiokafka(), enable_auto_commit=False,
                                **config)
    await consumer.start()
    try:
        tp = TopicPartition(topic, 0)
        consumer.assign([tp])
        await consumer.seek_to_beginning(tp)
        got: list[Any] = []
        while len(got) < n:
            for batch in (await consumer.getmany(timeout_ms=300)).values():
                got.extend(batch)
        return got
    finally:
        await consumer.stop()


async def _round_trip(ctx: Context, n: int = 50, **producer_config: Any) -> None:
    topic = await asyncio.to_thread(ctx.create_topic)
    sent = records(n)
    offsets = await _produce(ctx, topic, sent, **producer_config)
    ctx.evidence("produced offsets", offsets)
    ctx.check(offsets == list(range(n)), f"offsets are not 0..{n - 1}", offsets=offsets)
    got = await _consume(ctx, topic, n)
    seen = [(r.key, r.value) for r in got]
    ctx.check(seen == sent, "fetched records differ from those produced",
              sent=sent[:3], fetched=seen[:3])
    ctx.check(all(list(r.headers) == [("h", r.key)] for r in got), "headers were not kept",
              headers=[r.headers for r in got[:3]])


@scenario("produce-fetch", client=CLIENT, timeout=30)
def produce_fetch(ctx: Context) -> None:
    """Produce 50 records with headers (acks=all); read them back unchanged, in order."""
    _run(ctx, _round_trip(ctx, acks="all"))


def codec(ctx: Context, codec: str) -> None:
    """Produce 50 records in compressed batches; read them back unchanged."""
    _run(ctx, _round_trip(ctx, compression_type=codec))


for _codec in CODECS:
    scenario(f"codec-{_codec}", client=CLIENT, timeout=30, params={"codec": _codec})(codec)


@scenario("idempotence", client=CLIENT, timeout=30)
def idempotence(ctx: Context) -> None:
    """An idempotent producer writes 200 records once, in order."""
    _run(ctx, _round_trip(ctx, n=200, enable_idempotence=True))


@scenario("transactions", client=CLIENT, timeout=45)
def transactions(ctx: Context) -> None:
    """Commit, abort, commit: read_committed sees the committed records only."""

    async def go() -> None:
        from aiokafka import AIOKafkaProducer

        topic = await asyncio.to_thread(ctx.create_topic)
        producer = AIOKafkaProducer(**ctx.aiokafka(),
                                    transactional_id=ctx.transactional_id())
        await producer.start()
        batches = {tag: records(10, tag) for tag in ("a", "b", "c")}
        try:
            for tag, commit in (("a", True), ("b", False), ("c", True)):
                await producer.begin_transaction()
                for k, v in batches[tag]:
                    await producer.send(topic, key=k, value=v, partition=0)
                if commit:
                    await producer.commit_transaction()
                else:
                    await producer.abort_transaction()
        finally:
            await producer.stop()
        expected = batches["a"] + batches["c"]
        got = await _consume(ctx, topic, len(expected), isolation_level="read_committed")
        seen = [(r.key, r.value) for r in got]
        ctx.check(seen == expected, "read_committed did not see exactly the committed records",
                  expected=[k for k, _ in expected], fetched=[k for k, _ in seen])

    _run(ctx, go())


@scenario("group-classic", client=CLIENT, timeout=60)
def group_classic(ctx: Context) -> None:
    """One member takes both partitions and commits; a second member joins and the group
    rebalances to one partition each; the committed offsets are fetched back."""

    async def go() -> None:
        from aiokafka import AIOKafkaConsumer, TopicPartition

        topic, group = await asyncio.to_thread(ctx.create_topic, partitions=2), ctx.group()
        for p in (0, 1):
            await _produce(ctx, topic, records(5, f"p{p}"), partition=p)

        def member() -> Any:
            return AIOKafkaConsumer(topic, **ctx.aiokafka(), group_id=group,
                                    enable_auto_commit=False, auto_offset_reset="earliest",
                                    heartbeat_interval_ms=500, session_timeout_ms=10000)

        first = member()
        await first.start()
        second = None
        try:
            got: list[Any] = []
            while len(got) < 10:
                for batch in (await first.getmany(timeout_ms=300)).values():
                    got.extend(batch)
            await first.commit()
            committed = [await first.committed(TopicPartition(topic, p)) for p in (0, 1)]
            ctx.check(committed == [5, 5], "committed offsets were not fetched back",
                      committed=committed)
            second = member()
            await second.start()
            while not (len(first.assignment()) == 1 and len(second.assignment()) == 1):
                await asyncio.gather(first.getmany(timeout_ms=100),
                                     second.getmany(timeout_ms=100))
        finally:
            await first.stop()
            if second is not None:
                await second.stop()

    _run(ctx, go())


@scenario("admin-topics", client=CLIENT, timeout=45)
def admin_topics(ctx: Context) -> None:
    """Create a topic of 3 partitions, grow it to 5, describe it, delete it."""

    async def go() -> None:
        from aiokafka.admin import AIOKafkaAdminClient, NewPartitions, NewTopic

        topic = ctx.topic()
        admin = AIOKafkaAdminClient(**ctx.aiokafka())
        await admin.start()
        try:
            await admin.create_topics([NewTopic(topic, 3, 1)])
            await admin.create_partitions({topic: NewPartitions(5)})
            while True:
                described = await admin.describe_topics([topic])
                if len(described[0]["partitions"]) == 5:
                    break
                await asyncio.sleep(0.1)
            await admin.delete_topics([topic])
            while topic in await admin.list_topics():
                await asyncio.sleep(0.1)
        finally:
            await admin.close()

    _run(ctx, go())


@scenario("list-offsets", client=CLIENT, timeout=30)
def list_offsets(ctx: Context) -> None:
    """Earliest, latest and by-timestamp offsets of a partition of 20 timestamped records."""

    async def go() -> None:
        import time

        from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition

        topic = await asyncio.to_thread(ctx.create_topic)
        ts0 = int(time.time() * 1000) - 3_600_000
        producer = AIOKafkaProducer(**ctx.aiokafka(), acks="all")
        await producer.start()
        try:
            for i, (k, v) in enumerate(records(20)):
                await producer.send(topic, key=k, value=v, partition=0,
                                    timestamp_ms=ts0 + 1000 * i)
            await producer.flush()
        finally:
            await producer.stop()
        tp = TopicPartition(topic, 0)
        consumer = AIOKafkaConsumer(**ctx.aiokafka())
        await consumer.start()
        try:
            earliest = (await consumer.beginning_offsets([tp]))[tp]
            latest = (await consumer.end_offsets([tp]))[tp]
            by_time = (await consumer.offsets_for_times({tp: ts0 + 5500}))[tp]
            after = (await consumer.offsets_for_times({tp: ts0 + 60_000}))[tp]
        finally:
            await consumer.stop()
        ctx.evidence("offsets", {"earliest": earliest, "latest": latest, "by_time": by_time,
                                 "after_the_last": after})
        ctx.check((earliest, latest) == (0, 20), "earliest/latest are not 0/20")
        ctx.check(by_time is not None and by_time.offset == 6
                  and by_time.timestamp == ts0 + 6000,
                  "the offset for a timestamp is not the first record at or after it")
        ctx.check(after is None, "a timestamp after the last record found an offset")

    _run(ctx, go())


@scenario("delete-records", client=CLIENT, timeout=30)
def delete_records(ctx: Context) -> None:
    """Records before offset 7 are deleted; the answer and the partition then start at 7."""

    async def go() -> None:
        from aiokafka import AIOKafkaConsumer, TopicPartition
        from aiokafka.admin import AIOKafkaAdminClient, RecordsToDelete

        topic = await asyncio.to_thread(ctx.create_topic)
        await _produce(ctx, topic, records(10), partition=0)
        tp = TopicPartition(topic, 0)
        admin = AIOKafkaAdminClient(**ctx.aiokafka())
        await admin.start()
        try:
            answer = await admin.delete_records({tp: RecordsToDelete(before_offset=7)})
        finally:
            await admin.close()
        ctx.evidence("delete_records", {str(k): v for k, v in answer.items()})
        ctx.check(answer.get(tp) == 7, "DeleteRecords did not answer low watermark 7")
        consumer = AIOKafkaConsumer(**ctx.aiokafka())
        await consumer.start()
        try:
            start = (await consumer.beginning_offsets([tp]))[tp]
        finally:
            await consumer.stop()
        ctx.check(start == 7, f"the log starts at {start}, not 7")

    _run(ctx, go())


@scenario("admin-groups", client=CLIENT, timeout=45)
def admin_groups(ctx: Context) -> None:
    """A group commits offsets; it is listed, described Empty, and its offsets listed (aiokafka's
    admin client has no calls to alter offsets or delete groups)."""

    async def go() -> None:
        from aiokafka import AIOKafkaConsumer, TopicPartition
        from aiokafka.admin import AIOKafkaAdminClient

        topic, group = await asyncio.to_thread(ctx.create_topic), ctx.group()
        await _produce(ctx, topic, records(5), partition=0)
        consumer = AIOKafkaConsumer(topic, **ctx.aiokafka(), group_id=group,
                                    enable_auto_commit=False, auto_offset_reset="earliest")
        await consumer.start()
        try:
            n = 0
            while n < 5:
                n += sum(len(b) for b in (await consumer.getmany(timeout_ms=300)).values())
            await consumer.commit()
        finally:
            await consumer.stop()
        admin = AIOKafkaAdminClient(**ctx.aiokafka())
        await admin.start()
        try:
            listed = [g[0] for g in await admin.list_consumer_groups()]
            ctx.check(group in listed, "the group is not listed", listed=listed)
            described = await admin.describe_consumer_groups([group])
            ctx.evidence("described", repr(described))
            groups = described[0].groups
            ctx.check(groups and groups[0][2] == "Empty", "the group is not described Empty")
            offsets = await admin.list_consumer_group_offsets(group)
            tp = TopicPartition(topic, 0)
            ctx.check(tp in offsets and offsets[tp].offset == 5,
                      "the committed offset is not listed",
                      offsets={str(k): v.offset for k, v in offsets.items()})
        finally:
            await admin.close()

    _run(ctx, go())
