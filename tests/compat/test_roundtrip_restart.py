"""The big round trip: many messages through confluent-kafka while the broker restarts.

The producer is idempotent with acks=all and keeps producing while the broker goes down and
comes back (the restart runs in a thread), relying on librdkafka's retries. Afterwards every
message whose delivery report came back without an error must be in the log at the offset the
report named, byte for byte, with offsets in each partition contiguous from 0 and in send order.

The SIGKILL variant checks durability of acknowledged writes across a process crash: the data is
in the OS page cache even if the broker never fsynced it, so nothing acknowledged may vanish.
"""

from __future__ import annotations

import random
import threading
import time
from collections import Counter

import pytest
from confluent_kafka import Producer

from pybroker.testing.broker_process import BrokerProcess
from tests.compat.confluent_kafka.helpers import Msg, as_tuple, create_topic, read_back
from tests.compat.timestamps import a_day_ago_ms

pytestmark = [pytest.mark.compat, pytest.mark.timeout(280)]

PARTITIONS = 4
TS0 = a_day_ago_ms()


def message(i: int, rng: random.Random) -> Msg:
    """Message ``i``: an ``id`` header names it; sizes from empty to 8 KiB, text and binary."""
    size = rng.choice((0, 0, 1, 7, 64, 200, 200, 512, 1024, 8192))
    value = rng.randbytes(size) if i % 2 else (b"text-%d " % i * (size // 8 + 1))[:size]
    if i % 97 == 0:
        value = None
    key = None if i % 11 == 0 else rng.randbytes(rng.choice((1, 8, 16))) + b"%d" % i
    headers = [("id", b"%d" % i)]
    if i % 3 == 0:
        headers.append(("bin", rng.randbytes(rng.choice((0, 5, 40)))))
    if i % 13 == 0:
        headers.append(("null", None))
    return Msg(partition=rng.randrange(PARTITIONS), key=key, value=value, headers=headers, timestamp=TS0 + i)


@pytest.mark.parametrize(
    ("how", "count"),
    [("sigterm", 100_000), ("sigkill", 40_000)],
)
def test_acknowledged_messages_survive_restart(broker_factory, topic: str, how: str, count: int) -> None:
    broker: BrokerProcess = broker_factory(**{"num.partitions": PARTITIONS})
    create_topic(broker.bootstrap, topic, PARTITIONS)

    rng = random.Random(count)
    messages = [message(i, rng) for i in range(count)]
    offsets: list[int | None] = [None] * count
    failures: dict[int, str] = {}

    def on_delivery(i: int):
        def report(err, m) -> None:
            if err is not None:
                failures[i] = str(err)
            elif m.partition() != messages[i].partition:
                failures[i] = f"delivered to partition {m.partition()}"
            else:
                offsets[i] = m.offset()

        return report

    producer = Producer(
        {
            "bootstrap.servers": broker.bootstrap,
            "enable.idempotence": True,
            "acks": "all",
            "linger.ms": 5,
            "message.timeout.ms": 120_000,
            "retry.backoff.ms": 100,
            "reconnect.backoff.ms": 50,
            "reconnect.backoff.max.ms": 500,
            "queue.buffering.max.messages": count + 1000,
        }
    )
    restart_errors: list[BaseException] = []

    def restart() -> None:
        try:
            broker.restart(hard=(how == "sigkill"))
        except BaseException as e:  # noqa: BLE001 - reported by the main thread
            restart_errors.append(e)

    restarter = threading.Thread(target=restart, name="restart-broker")
    for i, m in enumerate(messages):
        if i == count // 2:
            # make sure part of the first half is on the broker before pulling it away
            producer.poll(0.5)
            restarter.start()
        producer.produce(
            topic,
            value=m.value,
            key=m.key,
            partition=m.partition,
            headers=m.headers,
            timestamp=m.timestamp,
            on_delivery=on_delivery(i),
        )
        if restarter.is_alive() and i % 1000 == 0:
            producer.poll(0.05)  # stretch the second half so producing spans the outage
        else:
            producer.poll(0)
    restarter.join(60)
    assert not restarter.is_alive(), "broker restart hung"
    assert not restart_errors, f"broker restart failed: {restart_errors[0]!r}"
    deadline = time.monotonic() + 150
    while len(producer) and time.monotonic() < deadline:
        producer.poll(0.5)
    assert len(producer) == 0, f"{len(producer)} messages still undelivered after 150 s"
    assert broker.starts == 2

    acked = [i for i in range(count) if offsets[i] is not None]
    assert len(acked) + len(failures) == count
    # every message was given 120 s to get through a restart of a few seconds
    assert not failures, f"{len(failures)} deliveries failed, e.g. {sorted(failures.items())[:5]}"

    log = read_back(broker.bootstrap, topic, range(PARTITIONS), timeout=120)
    seen_ids: Counter[int] = Counter()
    for p in range(PARTITIONS):
        records = log[p]
        assert [r.offset() for r in records] == list(range(len(records))), f"partition {p} has offset gaps"
        seen_ids.update(int(dict(r.headers())["id"]) for r in records)

        sent_here = [i for i in acked if messages[i].partition == p]
        acked_offsets = [offsets[i] for i in sent_here]
        assert acked_offsets == sorted(acked_offsets), f"partition {p}: acked offsets out of send order"
        assert len(set(acked_offsets)) == len(acked_offsets), f"partition {p}: an offset acked twice"
        for i in sent_here:
            off = offsets[i]
            assert off < len(records), f"acked message {i} at {p}/{off} is beyond the log end {len(records)}"
            m = messages[i]
            expected = (off, m.key, m.value, m.headers, m.timestamp)
            assert as_tuple(records[off]) == expected, f"message {i} at {p}/{off} differs"

    duplicated = [i for i, n in seen_ids.items() if n > 1]
    assert not duplicated, f"idempotent producer, yet {len(duplicated)} messages are in the log twice, e.g. {duplicated[:5]}"
