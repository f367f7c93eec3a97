"""One classic-protocol member of a group, kafka-python's or aiokafka's, as a process of its
own, printing what :mod:`tests.compat.confluent_kafka.consumer_member` prints:
``python -m tests.compat.classic_member CLIENT BOOTSTRAP GROUP TOPICS`` (CLIENT is
``kafka-python`` or ``aiokafka``, TOPICS comma-separated).

It commits every record synchronously before it reports it, so that a record it reports is
never handed to another member too (a record whose commit is refused, while the group
rebalances, is sought back to and read again), and prints one line per event, flushed::

    assigned <topic>:<partition> ...
    revoked <topic>:<partition> ...
    record <topic> <partition> <offset>
    error <text>

SIGTERM closes the consumer (leaving the group) and exits.
"""

from __future__ import annotations

import asyncio
import signal
import sys
from collections.abc import Iterable
from typing import Any

SESSION = {"session_timeout_ms": 10_000, "heartbeat_interval_ms": 1_000}


def show(kind: str, partitions: Iterable[Any]) -> None:
    print(kind, *sorted(f"{p.topic}:{p.partition}" for p in partitions), flush=True)


def run_kafka_python(bootstrap: str, group: str, topics: list[str], stopping: list) -> None:
    from kafka import KafkaConsumer, OffsetAndMetadata
    from kafka.consumer.subscription_state import ConsumerRebalanceListener
    from kafka.errors import KafkaError

    class Listener(ConsumerRebalanceListener):
        def on_partitions_revoked(self, revoked):  # noqa: ANN001, ANN202 - kafka-python's API
            show("revoked", revoked)

        def on_partitions_assigned(self, assigned):  # noqa: ANN001, ANN202
            show("assigned", assigned)

    consumer = KafkaConsumer(bootstrap_servers=bootstrap, group_id=group,
                             enable_auto_commit=False, auto_offset_reset="earliest",
                             max_poll_records=20, **SESSION)
    consumer.subscribe(topics, listener=Listener())
    try:
        while not stopping:
            for tp, messages in consumer.poll(timeout_ms=200).items():
                for msg in messages:
                    try:
                        consumer.commit({tp: OffsetAndMetadata(msg.offset + 1, "", -1)})
                    except KafkaError as exc:
                        print(f"error commit {exc!r}", flush=True)
                        try:
                            consumer.seek(tp, msg.offset)
                        except Exception:  # noqa: BLE001 - no longer ours: another reads it
                            pass
                        break
                    print(f"record {msg.topic} {msg.partition} {msg.offset}", flush=True)
    finally:
        consumer.close()


async def run_aiokafka(bootstrap: str, group: str, topics: list[str], stopping: list) -> None:
    from aiokafka import AIOKafkaConsumer, ConsumerRebalanceListener
    from aiokafka.errors import KafkaError

    class Listener(ConsumerRebalanceListener):
        async def on_partitions_revoked(self, revoked):  # noqa: ANN001, ANN202
            show("revoked", revoked)

        async def on_partitions_assigned(self, assigned):  # noqa: ANN001, ANN202
            show("assigned", assigned)

    consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap, group_id=group,
                                enable_auto_commit=False, auto_offset_reset="earliest",
                                **SESSION)
    consumer.subscribe(topics, listener=Listener())
    await consumer.start()
    try:
        while not stopping:
            batches = await consumer.getmany(timeout_ms=200, max_records=20)
            for tp, messages in batches.items():
                for msg in messages:
                    try:
                        await consumer.commit({tp: msg.offset + 1})
                    except KafkaError as exc:
                        print(f"error commit {exc!r}", flush=True)
                        try:
                            consumer.seek(tp, msg.offset)
                        except Exception:  # noqa: BLE001
                            pass
                        break
                    print(f"record {msg.topic} {msg.partition} {msg.offset}", flush=True)
    finally:
        await consumer.stop()


def main(argv: list[str]) -> int:
    client, bootstrap, group, topics = argv[:4]
    stopping: list = []
    signal.signal(signal.SIGTERM, lambda *_: stopping.append(True))
    if client == "kafka-python":
        run_kafka_python(bootstrap, group, topics.split(","), stopping)
    elif client == "aiokafka":
        asyncio.run(run_aiokafka(bootstrap, group, topics.split(","), stopping))
    else:
        raise SystemExit(f"unknown client {client}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
