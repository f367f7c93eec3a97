"""Scenarios with kafka-python (pure Python; it also speaks the old message formats)."""

from __future__ import annotations

from typing import Any

from pybroker.compat.scenario import Context, scenario


def _records(n: int) -> list[tuple[bytes, bytes]]:
    return [(f"k{i}".encode(), f"value-{i}".encode() * (1 + i % 7)) for i in range(n)]


@scenario("produce-fetch", client="kafka-python", timeout=30)
def produce_fetch(ctx: Context) -> None:
    """Produce 50 records with headers; a consumer reads them back unchanged, in order."""
    from kafka import KafkaConsumer, KafkaProducer, TopicPartition

    topic = ctx.topic()
    sent = _records(50)
    producer = KafkaProducer(bootstrap_servers=ctx.bootstrap, acks="all", linger_ms=5)
    try:
        futures = [producer.send(topic, key=k, value=v, headers=[("h", k)]) for k, v in sent]
        producer.flush(timeout=ctx.remaining())
        offsets = [f.get(timeout=ctx.remaining()).offset for f in futures]
    finally:
        producer.close(timeout=5)
    ctx.evidence("produced offsets", offsets)
    ctx.check(offsets == list(range(50)), "offsets are not 0..49", offsets=offsets)
    consumer = KafkaConsumer(bootstrap_servers=ctx.bootstrap, enable_auto_commit=False,
                             consumer_timeout_ms=1000)
    try:
        tp = TopicPartition(topic, 0)
        consumer.assign([tp])
        consumer.seek_to_beginning(tp)
        got: list[Any] = []

        def read() -> bool:
            for batch in consumer.poll(timeout_ms=500).values():
                got.extend(batch)
            return len(got) >= len(sent)

        ctx.wait_until(read, "fetching the 50 records")
    finally:
        consumer.close()
    seen = [(r.key, r.value) for r in got]
    ctx.check(seen == sent, "fetched records differ from those produced",
              sent=sent[:5], fetched=seen[:5])
    ctx.check([r.offset for r in got] == list(range(50)), "fetched offsets are not 0..49")
    ctx.check(all(list(r.headers) == [("h", r.key)] for r in got), "headers were not kept",
              headers=[r.headers for r in got[:3]])
