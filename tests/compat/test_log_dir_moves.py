"""Moving a partition between a broker's log dirs (AlterReplicaLogDirs) with real clients and a
real broker process with two ``log.dirs``: confluent-kafka producing and consuming while the
partition moves, then every record there exactly once, in the new dir; a broker killed with
``kill -9`` in the middle of a move resumes it after its restart; transactions open, ended and
begun across a move keep the last stable offset, the aborted transactions and the producers'
state.

The broker copies one batch a step here (``replica.fetch.max.bytes=1``) and the partitions hold
thousands of one-record batches, so that a move lasts long enough to act while it runs.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from confluent_kafka import OFFSET_BEGINNING, KafkaException, TopicPartition

from protocol.errors import ErrorCode
from pybroker.testing.broker_process import BrokerProcess
from pybroker.testing.wire_client import WireClient

from . import test_transaction_markers as txn
from .confluent_kafka.helpers import consumer, create_topic, read_back
from .log_dirs import (
    alter,
    current_and_future,
    overrides_for,
    partition_dirs,
    produce_one_per_batch,
    two_log_dirs,
    value_of,
    wait_until_moved,
)

pytestmark = [pytest.mark.compat, pytest.mark.timeout(300)]

TOPIC = "moving"


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[BrokerProcess]:
    """The transactions test plays the transaction coordinator (WriteTxnMarkers by hand), so
    the broker does not verify transactions with one."""
    data = tmp_path / "kafka-logs"
    b = BrokerProcess(data, overrides=overrides_for(data, **{
        "replica.fetch.max.bytes": 1, "transaction.partition.verification.enable": "false"}))
    try:
        yield b.start()
    finally:
        b.stop()


def dirs_of(broker: BrokerProcess, topic: str = TOPIC) -> tuple[Path, Path]:
    """(the dir holding the topic's partition 0 now, the other one)."""
    first, second = two_log_dirs(broker.data_dir)
    current, _ = current_and_future(broker.bootstrap, topic, 0)
    assert current is not None
    return (first, second) if current.log_dir == str(first.absolute()) else (second, first)


def assert_every_record_once(bootstrap: str, total: int) -> None:
    got = read_back(bootstrap, TOPIC, [0])[0]
    assert [m.offset() for m in got] == list(range(total))
    values = [m.value() for m in got]
    assert values == [value_of(i) for i in range(total)], "every record, once, in order"


def test_produce_and_consume_while_the_partition_moves(broker: BrokerProcess) -> None:
    before, during = 15_000, 3_000
    total = before + during
    create_topic(broker.bootstrap, TOPIC, 1)
    produce_one_per_batch(broker.bootstrap, TOPIC, range(before))
    source, dest = dirs_of(broker)

    consumed: list[tuple[int, bytes]] = []
    failures: list[BaseException] = []

    def consume() -> None:
        c = consumer(broker.bootstrap)
        try:
            c.assign([TopicPartition(TOPIC, 0, OFFSET_BEGINNING)])
            deadline = time.monotonic() + 180
            while len(consumed) < total and time.monotonic() < deadline:
                for m in c.consume(num_messages=1000, timeout=0.2):
                    if m.error():
                        raise KafkaException(m.error())
                    consumed.append((m.offset(), m.value()))
        except BaseException as e:  # reported by the test thread
            failures.append(e)
        finally:
            c.close()

    def produce() -> None:
        try:
            produce_one_per_batch(broker.bootstrap, TOPIC, range(before, total))
        except BaseException as e:
            failures.append(e)

    assert alter(broker.bootstrap, {(TOPIC, 0): str(dest.absolute())}) == {
        (TOPIC, 0): ErrorCode.NONE}
    threads = [threading.Thread(target=consume), threading.Thread(target=produce)]
    for t in threads:
        t.start()
    # the move is seen going on: a future replica in the destination, catching up
    lags = []
    while True:
        current, future = current_and_future(broker.bootstrap, TOPIC, 0)
        if future is None:
            break
        assert current is not None and current.log_dir == str(source.absolute())
        assert future.log_dir == str(dest.absolute())
        lags.append(future.offset_lag)
        time.sleep(0.05)
    assert lags and max(lags) > 0, "the move was never seen in progress"
    for t in threads:
        t.join(200)
    assert not failures, failures
    assert [o for o, _ in consumed] == list(range(total))
    assert [v for _, v in consumed] == [value_of(i) for i in range(total)]

    moved = wait_until_moved(broker.bootstrap, TOPIC, 0, str(dest.absolute()))
    assert moved.offset_lag == 0 and moved.size > 0
    assert partition_dirs(dest, TOPIC, 0) == [f"{TOPIC}-0"]
    assert f"{TOPIC}-0" not in partition_dirs(source, TOPIC, 0)
    assert_every_record_once(broker.bootstrap, total)
    # the partition goes on in its new dir
    produce_one_per_batch(broker.bootstrap, TOPIC, range(total, total + 10))
    assert_every_record_once(broker.bootstrap, total + 10)
    log_files = sorted((dest / f"{TOPIC}-0").glob("*.log"))
    assert log_files and sum(f.stat().st_size for f in log_files) >= moved.size


def test_a_broker_killed_mid_move_resumes_it_after_restart(broker: BrokerProcess) -> None:
    total = 20_000
    create_topic(broker.bootstrap, TOPIC, 1)
    produce_one_per_batch(broker.bootstrap, TOPIC, range(total))
    source, dest = dirs_of(broker)
    assert alter(broker.bootstrap, {(TOPIC, 0): str(dest.absolute())}) == {
        (TOPIC, 0): ErrorCode.NONE}
    # kill -9 once a part of the partition has been copied
    deadline = time.monotonic() + 60
    while True:
        _, future = current_and_future(broker.bootstrap, TOPIC, 0)
        assert future is not None, "the move ended before the broker could be killed mid-way"
        if future.offset_lag < total * 0.8:
            break
        assert time.monotonic() < deadline, future
        time.sleep(0.01)
    broker.kill()
    [future_dir] = [d for d in partition_dirs(dest, TOPIC, 0) if d.endswith("-future")]
    assert partition_dirs(source, TOPIC, 0) == [f"{TOPIC}-0"]

    broker.start()
    current, future = current_and_future(broker.bootstrap, TOPIC, 0)
    assert current is not None and current.log_dir == str(source.absolute())
    if future is not None:  # (it may be done already)
        assert future.log_dir == str(dest.absolute())
    wait_until_moved(broker.bootstrap, TOPIC, 0, str(dest.absolute()))
    assert partition_dirs(dest, TOPIC, 0) == [f"{TOPIC}-0"], "the future dir became the log"
    assert future_dir not in partition_dirs(dest, TOPIC, 0)
    assert_every_record_once(broker.bootstrap, total)
    # a clean restart finds the partition in its new dir
    broker.restart()
    current, future = current_and_future(broker.bootstrap, TOPIC, 0)
    assert current is not None and current.log_dir == str(dest.absolute()) and future is None
    assert_every_record_once(broker.bootstrap, total)


def test_transactions_and_producer_state_carry_over_to_the_new_dir(
        broker: BrokerProcess) -> None:
    """Transactions written the way a transaction coordinator writes them (raw Produce and
    WriteTxnMarkers, as in test_transaction_markers.py): an aborted one, a committed one and an
    open one before the move, one ended and one begun while it runs. Afterwards the last stable
    offset, the aborted transactions, the producers' state and what a read_committed consumer
    reads are what they would have been without the move."""
    bootstrap = broker.bootstrap
    create_topic(bootstrap, txn.TOPIC, 1)
    with WireClient(bootstrap) as client:
        p, q, r = txn.TxnProducer(client), txn.TxnProducer(client), txn.TxnProducer(client)
        for producer in (p, q, r):
            producer.init()
        assert p.send(b"p-aborted") == 0
        assert q.send(b"q-committed") == 1
        assert p.end(commit=False) == ErrorCode.NONE  # 2
        assert q.end(commit=True) == ErrorCode.NONE  # 3
        assert q.send(b"q-open") == 4  # open across the move's start, committed while it runs
        # thousands of one-record batches, so that the move lasts
        produce_one_per_batch(bootstrap, txn.TOPIC, range(5000))  # 5-5004
        assert r.send(b"r-open") == 5005  # open across the whole move
        source, dest = dirs_of(broker, txn.TOPIC)
        assert alter(bootstrap, {(txn.TOPIC, 0): str(dest.absolute())}) == {
            (txn.TOPIC, 0): ErrorCode.NONE}
        assert current_and_future(bootstrap, txn.TOPIC, 0)[1] is not None, "moving"
        assert q.end(commit=True) == ErrorCode.NONE  # 5006
        assert p.send(b"p-during") == 5007  # begun while the partition moves, aborted after
        assert current_and_future(bootstrap, txn.TOPIC, 0)[1] is not None, "still moving"
        wait_until_moved(bootstrap, txn.TOPIC, 0, str(dest.absolute()))

        assert p.end(commit=False) == ErrorCode.NONE  # 5008
        assert txn.raw_fetch(client, txn.READ_COMMITTED).last_stable_offset == 5005
        assert txn.latest(client, txn.READ_COMMITTED) == 5005  # held by r
        states = txn.producers(client)
        assert states[r.producer_id] == (-1, 5005)
        assert states[q.producer_id] == (3, -1) and states[p.producer_id] == (3, -1)
        assert r.end(commit=True) == ErrorCode.NONE  # 5009
        assert txn.latest(client, txn.READ_COMMITTED) == txn.latest(client, txn.READ_UNCOMMITTED) \
            == 5010
        first = txn.raw_fetch(client, txn.READ_COMMITTED).aborted_transactions
        assert (p.producer_id, 0) in [(t.producer_id, t.first_offset) for t in first]
        tail = txn.raw_fetch(client, txn.READ_COMMITTED, offset=5005).aborted_transactions
        assert [(t.producer_id, t.first_offset) for t in tail] == [(p.producer_id, 5007)]

    values = txn.consume(bootstrap, "read_committed", 5010, timeout=120)
    assert values == [b"q-committed", b"q-open", *(value_of(i) for i in range(5000)), b"r-open"]
    assert partition_dirs(dest, txn.TOPIC, 0) == [f"{txn.TOPIC}-0"]
    assert f"{txn.TOPIC}-0" not in partition_dirs(source, txn.TOPIC, 0)
