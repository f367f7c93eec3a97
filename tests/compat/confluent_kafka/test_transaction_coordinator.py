"""The transaction coordinator seen through confluent-kafka's transactional producer against a
pybroker process: commit and abort with the markers written through the broker's own
WriteTxnMarkers (read back by read_committed and read_uncommitted consumers), a zombie fenced
by a newer producer with the same transactional.id, a transaction left open by a producer
killed with SIGKILL and aborted on its timeout, and the coordinator's state read back from
``__transaction_state`` after the broker itself is killed. The coordinator's view is read with DescribeTransactions and
ListTransactions over a raw socket."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable

import pytest
from confluent_kafka import OFFSET_BEGINNING, KafkaError, KafkaException, Producer, TopicPartition

from protocol.errors import ErrorCode
from protocol.messages import (
    ApiKey,
    describe_transactions_request as dtx,
    list_transactions_request as ltx,
)
from pybroker.testing.broker_process import REPO_ROOT, BrokerProcess
from pybroker.testing.wire_client import WireClient
from tests.compat.confluent_kafka.helpers import consumer, create_topic

pytestmark = pytest.mark.compat

#: small enough to load at once, and the timeout task every half second
TXN_BROKER = {
    "transaction.state.log.num.partitions": 5,
    "transaction.abort.timed.out.transaction.cleanup.interval.ms": 500,
}


def describe(bootstrap: str, transactional_id: str):
    with WireClient(bootstrap) as c:
        [state] = c.call(ApiKey.DESCRIBE_TRANSACTIONS, 0, dtx.DescribeTransactionsRequest(
            transactional_ids=[transactional_id])).transaction_states
    return state


def wait_until(what: str, check: Callable[[], bool], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def wait_for_state(bootstrap: str, transactional_id: str, state: str, timeout: float = 30.0):
    found = {}

    def reached() -> bool:
        found["last"] = describe(bootstrap, transactional_id)
        return found["last"].transaction_state == state

    try:
        wait_until(f"{transactional_id} to be {state}", reached, timeout)
    except AssertionError:
        raise AssertionError(
            f"{transactional_id} did not reach {state}: {found.get('last')}") from None
    return found["last"]


def log_end(bootstrap: str, topic: str, partition: int) -> int:
    c = consumer(bootstrap, **{"isolation.level": "read_uncommitted"})
    try:
        return c.get_watermark_offsets(TopicPartition(topic, partition), timeout=10,
                                       cached=False)[1]
    finally:
        c.close()


def values(bootstrap: str, topic: str, partition: int, isolation: str,
           settle: float = 3.0) -> list[bytes]:
    """The values a consumer with ``isolation`` reads from the start of the partition: for at
    least ``settle`` seconds, and until nothing more came for a second (markers are never
    records)."""
    c = consumer(bootstrap, **{"isolation.level": isolation})
    try:
        c.assign([TopicPartition(topic, partition, OFFSET_BEGINNING)])
        got: list[bytes] = []
        start = last = time.monotonic()
        while time.monotonic() - start < settle or time.monotonic() - last < 1.0:
            for m in c.consume(num_messages=1000, timeout=0.2):
                if m.error():
                    raise KafkaException(m.error())
                got.append(m.value())
                last = time.monotonic()
            if time.monotonic() - start > 30:
                raise AssertionError(f"{topic}-{partition} kept delivering: {len(got)} records")
        return got
    finally:
        c.close()


def producer(bootstrap: str, transactional_id: str, **extra: object) -> Producer:
    conf = {"bootstrap.servers": bootstrap, "transactional.id": transactional_id,
            "linger.ms": 5}
    conf.update(extra)
    return Producer(conf)


def test_commit_and_abort(broker_factory, topic: str) -> None:
    b = broker_factory(**TXN_BROKER)
    create_topic(b.bootstrap, topic, 2)
    txn = f"txn-{topic}"
    p = producer(b.bootstrap, txn)
    p.init_transactions(30)
    described = describe(b.bootstrap, txn)
    assert (described.error_code, described.transaction_state, described.producer_epoch) == (
        ErrorCode.NONE, "Empty", 0)

    p.begin_transaction()
    for i in range(10):
        p.produce(topic, value=f"c1-{i}".encode(), partition=i % 2)
    p.commit_transaction(30)
    p.begin_transaction()
    for i in range(6):
        p.produce(topic, value=f"a-{i}".encode(), partition=i % 2)
    p.flush(10)  # written before the abort (unsent records would just be dropped)
    p.abort_transaction(30)
    assert wait_for_state(b.bootstrap, txn, "CompleteAbort").producer_epoch == 0
    p.begin_transaction()
    for i in range(4):
        p.produce(topic, value=f"c2-{i}".encode(), partition=0)
    p.commit_transaction(30)

    done = wait_for_state(b.bootstrap, txn, "CompleteCommit")
    assert (done.producer_id, done.producer_epoch, done.topics) == (described.producer_id, 0, [])
    # every transaction ended with a marker in each of its partitions: 3 on partition 0 and
    # 2 on partition 1, each one offset, written by the broker's WriteTxnMarkers
    assert log_end(b.bootstrap, topic, 0) == 5 + 3 + 4 + 3
    assert log_end(b.bootstrap, topic, 1) == 5 + 3 + 2
    # read_uncommitted sees every data record, read_committed the committed ones only
    first = [f"c1-{i}".encode() for i in range(0, 10, 2)]
    aborted = [f"a-{i}".encode() for i in range(0, 6, 2)]
    second = [f"c2-{i}".encode() for i in range(4)]
    assert values(b.bootstrap, topic, 0, "read_uncommitted") == first + aborted + second
    assert values(b.bootstrap, topic, 0, "read_committed") == first + second
    with WireClient(b.bootstrap) as c:
        listed = c.call(ApiKey.LIST_TRANSACTIONS, 1, ltx.ListTransactionsRequest(
            state_filters=["CompleteCommit", "NoSuchState"]))
    assert listed.error_code == ErrorCode.NONE
    assert listed.unknown_state_filters == ["NoSuchState"]
    assert [(t.transactional_id, t.producer_id, t.transaction_state)
            for t in listed.transaction_states] == [(txn, described.producer_id,
                                                      "CompleteCommit")]
    p.flush(10)


def test_a_zombie_is_fenced_by_a_newer_producer(broker_factory, topic: str) -> None:
    b = broker_factory(**TXN_BROKER)
    create_topic(b.bootstrap, topic, 1)
    txn = f"txn-{topic}"
    zombie = producer(b.bootstrap, txn)
    zombie.init_transactions(30)
    zombie.begin_transaction()
    zombie.produce(topic, value=b"from the zombie")
    zombie.flush(10)
    assert describe(b.bootstrap, txn).transaction_state == "Ongoing"

    # the newer producer's InitProducerId aborts the zombie's transaction and fences it
    fresh = producer(b.bootstrap, txn)
    fresh.init_transactions(30)
    state = describe(b.bootstrap, txn)
    assert (state.transaction_state, state.producer_epoch) == ("Empty", 2)

    with pytest.raises(KafkaException) as raised:
        zombie.commit_transaction(10)
    error: KafkaError = raised.value.args[0]
    assert error.fatal() and error.code() in (KafkaError._FENCED, KafkaError.PRODUCER_FENCED,
                                              KafkaError.INVALID_PRODUCER_EPOCH), error

    fresh.begin_transaction()
    fresh.produce(topic, value=b"from the new producer")
    fresh.commit_transaction(30)
    wait_for_state(b.bootstrap, txn, "CompleteCommit")
    # the zombie's record, its abort marker, the new record and its commit marker
    assert log_end(b.bootstrap, topic, 0) == 4
    fresh.flush(10)


PRODUCE_AND_HANG = textwrap.dedent("""
    import sys, time
    from confluent_kafka import Producer
    p = Producer({"bootstrap.servers": sys.argv[1], "transactional.id": sys.argv[2],
                  "transaction.timeout.ms": 3000, "message.timeout.ms": 3000})
    p.init_transactions(30)
    p.begin_transaction()
    p.produce(sys.argv[3], value=b"left open")
    p.flush(10)
    print("open", flush=True)
    time.sleep(600)
""")


def test_a_transaction_left_open_by_a_killed_producer_is_aborted_on_its_timeout(
        broker_factory, topic: str) -> None:
    b = broker_factory(**TXN_BROKER)
    create_topic(b.bootstrap, topic, 1)
    txn = f"txn-{topic}"
    child = subprocess.Popen([sys.executable, "-c", PRODUCE_AND_HANG, b.bootstrap, txn, topic],
                             stdout=subprocess.PIPE, cwd=REPO_ROOT,
                             env={**os.environ, "PYTHONPATH": str(REPO_ROOT)})
    try:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == b"open"
        before = describe(b.bootstrap, txn)
        assert (before.transaction_state, before.transaction_timeout_ms) == ("Ongoing", 3000)
        # the open transaction holds read_committed readers back
        assert values(b.bootstrap, topic, 0, "read_committed") == []
        assert values(b.bootstrap, topic, 0, "read_uncommitted") == [b"left open"]
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait(10)
    after = wait_for_state(b.bootstrap, txn, "CompleteAbort", timeout=20)
    # aborted with a bumped epoch, so the dead producer could not have committed it
    assert (after.producer_id, after.producer_epoch) == (before.producer_id,
                                                          before.producer_epoch + 1)
    assert log_end(b.bootstrap, topic, 0) == 2  # the record and its abort marker
    assert values(b.bootstrap, topic, 0, "read_committed") == []
    # the next producer with this id starts cleanly
    p = producer(b.bootstrap, txn)
    p.init_transactions(30)
    assert describe(b.bootstrap, txn).producer_epoch == before.producer_epoch + 2


def test_the_coordinator_state_survives_a_broker_kill(broker_factory, topic: str) -> None:
    b: BrokerProcess = broker_factory(**TXN_BROKER)
    create_topic(b.bootstrap, topic, 1)
    committed, open_ = f"txn-c-{topic}", f"txn-o-{topic}"
    p = producer(b.bootstrap, committed)
    p.init_transactions(30)
    p.begin_transaction()
    p.produce(topic, value=b"committed")
    p.commit_transaction(30)
    before = wait_for_state(b.bootstrap, committed, "CompleteCommit")
    q = producer(b.bootstrap, open_, **{"transaction.timeout.ms": 4000,
                                        "message.timeout.ms": 4000})
    q.init_transactions(30)
    q.begin_transaction()
    q.produce(topic, value=b"open at the kill")
    q.flush(10)
    opened = describe(b.bootstrap, open_)
    assert opened.transaction_state == "Ongoing"

    b.kill()
    b.restart()
    # replayed from __transaction_state: the finished one as it was, the open one still open
    after = wait_for_state(b.bootstrap, committed, "CompleteCommit")
    assert (after.producer_id, after.producer_epoch) == (before.producer_id,
                                                          before.producer_epoch)
    reopened = describe(b.bootstrap, open_)
    assert (reopened.transaction_state, reopened.producer_id, reopened.topics[0].topic) == (
        "Ongoing", opened.producer_id, topic)
    # ... until its timeout, counted from its start before the kill
    wait_for_state(b.bootstrap, open_, "CompleteAbort", timeout=20)
    again = producer(b.bootstrap, committed)
    again.init_transactions(30)
    assert describe(b.bootstrap, committed).producer_epoch == before.producer_epoch + 1


def test_a_timeout_above_the_maximum_is_refused(broker_factory) -> None:
    b = broker_factory(**{**TXN_BROKER, "transaction.max.timeout.ms": 5000})
    p = producer(b.bootstrap, "too-long", **{"transaction.timeout.ms": 6000})
    with pytest.raises(KafkaException) as raised:
        p.init_transactions(20)
    assert raised.value.args[0].code() == KafkaError.INVALID_TRANSACTION_TIMEOUT
