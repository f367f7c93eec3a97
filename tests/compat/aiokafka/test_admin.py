"""aiokafka's admin client against pybroker: topics, partitions, configs, records, groups and
the cluster, each answer checked against what the broker holds."""

from __future__ import annotations

import asyncio

import pytest
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition
from aiokafka.admin import AIOKafkaAdminClient, NewPartitions, NewTopic, RecordsToDelete
from aiokafka.admin.config_resource import ConfigResource, ConfigResourceType
from aiokafka.errors import TopicAlreadyExistsError
from aiokafka.structs import OffsetAndMetadata

from pybroker.testing.broker_process import BrokerProcess

pytestmark = [pytest.mark.compat, pytest.mark.timeout(120)]


def test_topics_configs_records_and_groups(broker: BrokerProcess, topic: str) -> None:
    bootstrap = broker.bootstrap
    group = f"{topic}-g"

    async def run() -> None:
        admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
        await admin.start()
        try:
            await admin.create_topics([NewTopic(topic, 2, 1,
                                                topic_configs={"retention.ms": "3600000"})])
            # aiokafka hands back the response rather than raising per-topic errors
            again = await admin.create_topics([NewTopic(topic, 2, 1)])
            assert [t[1] for t in again.topic_errors] == [TopicAlreadyExistsError.errno]
            assert topic in await admin.list_topics()
            [described] = await admin.describe_topics([topic])
            assert described["error_code"] == 0
            assert sorted(p["partition"] for p in described["partitions"]) == [0, 1]

            await admin.create_partitions({topic: NewPartitions(total_count=3)})
            [described] = await admin.describe_topics([topic])
            assert len(described["partitions"]) == 3

            resource = ConfigResource(ConfigResourceType.TOPIC, topic)
            await admin.alter_configs([ConfigResource(ConfigResourceType.TOPIC, topic,
                                                      configs={"retention.ms": "7200000"})])
            [response] = await admin.describe_configs([resource])
            configs = {c[0]: c[1] for r in response.resources for c in r[4]}
            assert configs["retention.ms"] == "7200000"

            cluster = await admin.describe_cluster()
            # the test broker is broker 0, and on a single node its own controller
            assert [b["node_id"] for b in cluster["brokers"]] == [0]
            assert cluster["controller_id"] == 0

            producer = AIOKafkaProducer(bootstrap_servers=bootstrap)
            await producer.start()
            try:
                for i in range(10):
                    await producer.send_and_wait(topic, b"v%d" % i, partition=0)
            finally:
                await producer.stop()
            tp = TopicPartition(topic, 0)
            deleted = await admin.delete_records({tp: RecordsToDelete(before_offset=4)})
            assert deleted[tp] == 4  # the new low watermark

            consumer = AIOKafkaConsumer(topic, bootstrap_servers=bootstrap, group_id=group,
                                        enable_auto_commit=False, auto_offset_reset="earliest")
            await consumer.start()
            try:
                async with asyncio.timeout(30):
                    while not consumer.assignment():
                        await consumer.getmany(timeout_ms=200)
                await consumer.commit({tp: OffsetAndMetadata(7, "seven")})
                groups = {g[0]: g for g in await admin.list_consumer_groups()}
                assert group in groups
                [desc] = await admin.describe_consumer_groups([group])
                assert desc.groups[0][2] == "Stable"
            finally:
                await consumer.stop()
            offsets = await admin.list_consumer_group_offsets(group)
            assert offsets[tp].offset == 7 and offsets[tp].metadata == "seven"

            await admin.delete_topics([topic])
            async with asyncio.timeout(30):
                while topic in await admin.list_topics():
                    await asyncio.sleep(0.2)
        finally:
            await admin.close()

    asyncio.run(run())
