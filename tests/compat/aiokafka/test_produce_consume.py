"""aiokafka's producer and consumer against pybroker: every codec, idempotence, headers, keys
and timestamps survive a round trip; offsets and the batch API behave as on Kafka."""

from __future__ import annotations

import asyncio
import random

import pytest
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition
from aiokafka.admin import AIOKafkaAdminClient, NewTopic

from pybroker.testing.broker_process import BrokerProcess
from tests.compat.timestamps import a_day_ago_ms

pytestmark = [pytest.mark.compat, pytest.mark.timeout(120)]

TS0 = a_day_ago_ms()
PARTITIONS = 3


def messages(n: int, seed: int) -> list[dict]:
    rng = random.Random(seed)
    return [
        {
            "key": None if i % 7 == 0 else f"key-{i}".encode(),
            "value": rng.randbytes(rng.choice([0, 1, 17, 100, 1000, 5000])),
            "headers": [] if i % 5 == 0 else [("h1", f"v{i}".encode()), ("bin", bytes([i % 256, 0]))],
            "timestamp_ms": TS0 + i * 13,
            "partition": i % PARTITIONS,
        }
        for i in range(n)
    ]


async def create_topic(bootstrap: str, topic: str, partitions: int = PARTITIONS) -> None:
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    try:
        await admin.create_topics([NewTopic(topic, partitions, 1)])
    finally:
        await admin.close()


async def read_back(bootstrap: str, topic: str, expected: int) -> dict[int, list]:
    consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False,
                                auto_offset_reset="earliest")
    await consumer.start()
    try:
        tps = [TopicPartition(topic, p) for p in range(PARTITIONS)]
        consumer.assign(tps)
        await consumer.seek_to_beginning(*tps)
        got: dict[int, list] = {p: [] for p in range(PARTITIONS)}
        n = 0
        async with asyncio.timeout(60):
            while n < expected:
                for tp, records in (await consumer.getmany(timeout_ms=500)).items():
                    got[tp.partition].extend(records)
                    n += len(records)
        # one more short read catches anything past the expected count (duplicates)
        for tp, records in (await consumer.getmany(timeout_ms=300)).items():
            got[tp.partition].extend(records)
        return got
    finally:
        await consumer.stop()


@pytest.mark.parametrize("codec", [None, "gzip", "snappy", "lz4", "zstd"])
def test_every_codec_round_trips_with_idempotence(broker: BrokerProcess, topic: str,
                                                  codec: str | None) -> None:
    sent = messages(300, seed=len(codec or ""))

    async def run() -> dict[int, list]:
        await create_topic(broker.bootstrap, topic)
        producer = AIOKafkaProducer(bootstrap_servers=broker.bootstrap, compression_type=codec,
                                    enable_idempotence=True, acks="all", linger_ms=5)
        await producer.start()
        try:
            futures = [await producer.send(topic, m["value"], key=m["key"],
                                           partition=m["partition"],
                                           timestamp_ms=m["timestamp_ms"], headers=m["headers"])
                       for m in sent]
            metadata = await asyncio.gather(*futures)
        finally:
            await producer.stop()
        for p in range(PARTITIONS):
            offsets = [md.offset for md in metadata if md.partition == p]
            assert offsets == list(range(len(offsets))), (p, offsets[:10])
        return await read_back(broker.bootstrap, topic, len(sent))

    got = asyncio.run(run())
    for p in range(PARTITIONS):
        expected = [m for m in sent if m["partition"] == p]
        records = got[p]
        assert [r.offset for r in records] == list(range(len(expected)))
        assert [(r.key, r.value, list(r.headers), r.timestamp) for r in records] == [
            (m["key"], m["value"], m["headers"], m["timestamp_ms"]) for m in expected]


def test_send_batch_and_offsets_queries(broker: BrokerProcess, topic: str) -> None:
    """The producer's batch API, then the consumer's offset queries: beginning, end, by
    timestamp, and the committed position after a seek."""

    async def run() -> None:
        await create_topic(broker.bootstrap, topic, 1)
        producer = AIOKafkaProducer(bootstrap_servers=broker.bootstrap)
        await producer.start()
        try:
            batch = producer.create_batch()
            for i in range(10):
                assert batch.append(key=None, value=b"v%d" % i, timestamp=TS0 + i * 1000) is not None
            md = await (await producer.send_batch(batch, topic, partition=0))
            assert md.offset == 0
        finally:
            await producer.stop()
        consumer = AIOKafkaConsumer(bootstrap_servers=broker.bootstrap, enable_auto_commit=False)
        await consumer.start()
        try:
            tp = TopicPartition(topic, 0)
            assert await consumer.beginning_offsets([tp]) == {tp: 0}
            assert await consumer.end_offsets([tp]) == {tp: 10}
            found = await consumer.offsets_for_times({tp: TS0 + 4500})
            assert found[tp].offset == 5 and found[tp].timestamp == TS0 + 5000
            assert (await consumer.offsets_for_times({tp: TS0 + 10**9}))[tp] is None
            consumer.assign([tp])
            consumer.seek(tp, 7)
            records = (await consumer.getmany(tp, timeout_ms=5000))[tp]
            assert [r.value for r in records] == [b"v7", b"v8", b"v9"]
        finally:
            await consumer.stop()

    asyncio.run(run())
