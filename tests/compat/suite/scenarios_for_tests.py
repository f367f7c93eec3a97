"""Scenarios that exercise the runner itself: one that hangs, one that fails with evidence, one
that leaves a topic and a group behind for cleanup, one that skips. Loaded only by the tests
(``--scenario-module tests.compat.suite.scenarios_for_tests``)."""

from __future__ import annotations

import time

from pybroker.compat.scenario import Context, scenario

CLIENT = "wire"


@scenario("produce-fetch", client=CLIENT, name="test-hangs", timeout=2)
def hangs(ctx: Context) -> None:
    """Attaches evidence, then never returns (as a hung client library would not)."""
    ctx.evidence("before hanging", "sent a request")
    time.sleep(600)


@scenario("produce-fetch", client=CLIENT, name="test-fails", timeout=10)
def fails(ctx: Context) -> None:
    """Fails with evidence."""
    ctx.fail("the broker answered wrongly", request={"api": "Produce v9"}, answer="CORRUPT")


@scenario("produce-fetch", client=CLIENT, name="test-leaves-things", timeout=30)
def leaves_things(ctx: Context) -> None:
    """Creates a topic and a group with offsets under the run prefix, and leaves them."""
    from kafka import KafkaConsumer, KafkaProducer

    topic = ctx.create_topic()
    producer = KafkaProducer(bootstrap_servers=ctx.bootstrap)
    producer.send(topic, b"v").get(timeout=ctx.remaining())
    producer.close()
    consumer = KafkaConsumer(topic, bootstrap_servers=ctx.bootstrap, group_id=ctx.group(),
                             auto_offset_reset="earliest", enable_auto_commit=False)
    ctx.wait_until(lambda: consumer.poll(timeout_ms=300), "the record")
    consumer.commit()
    consumer.close()


@scenario("produce-fetch", client=CLIENT, name="test-skips", timeout=10)
def skips(ctx: Context) -> None:
    """Skips with a reason."""
    ctx.skip("this client cannot do that here")
