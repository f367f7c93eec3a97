"""Transactions on a three-broker cluster: the coordinator sends its markers to the leaders of
the transaction's partitions on the other brokers, and follows the leadership of
``__transaction_state`` when its broker is killed with SIGKILL.

A transaction is committed over three partitions led by three different brokers; a second one
is left open and the coordinator's broker killed. The broker that takes over the coordinator's
``__transaction_state`` partition replays it from its replica, so a new producer with the same
transactional id finds the open transaction, aborts it (fencing the old producer) and commits
its own. A read_committed consumer then sees exactly the two committed transactions.

Three pybroker processes on the session's ZooKeeper; ``__transaction_state`` with three
partitions at replication factor 3 and ``min.insync.replicas`` 2.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from confluent_kafka import KafkaError, KafkaException, Producer, TopicPartition

from protocol.errors import ErrorCode
from protocol.messages import (
    ApiKey,
    describe_transactions_request as dtx,
    find_coordinator_request as fc,
)
from pybroker.testing.cluster import ClusterProcesses, running_cluster
from pybroker.testing.failover import agreed_states
from pybroker.testing.wire_client import WireClient
from tests.cluster.failover_clients import create_topic, wait_until

TXN_SETTINGS = {
    "transaction.state.log.num.partitions": 3,
    "transaction.state.log.replication.factor": 3,
    "transaction.state.log.min.isr": 2,
    "transaction.abort.timed.out.transaction.cleanup.interval.ms": 500,
}
FAILOVER_TIMEOUT = 60.0


@pytest.fixture
def txn_cluster(tmp_path: Path, zk_connect: str) -> Iterator[ClusterProcesses]:
    with running_cluster(tmp_path / "cluster", zk_connect, overrides=TXN_SETTINGS) as c:
        yield c


def coordinator_answers(cluster: ClusterProcesses, transactional_id: str) -> set[int]:
    """The transaction coordinator each live broker names (-1 for an error)."""
    named = set()
    for b in cluster.live():
        try:
            with WireClient(cluster.broker(b).bootstrap, timeout=5) as c:
                r = c.call(ApiKey.FIND_COORDINATOR, 4, fc.FindCoordinatorRequest(
                    key_type=1, coordinator_keys=[transactional_id]))
        except OSError:
            named.add(-1)
            continue
        [found] = r.coordinators
        named.add(found.node_id if found.error_code == ErrorCode.NONE else -1)
    return named


def settled_coordinator(cluster: ClusterProcesses, transactional_id: str,
                        not_: int | None = None) -> int:
    found: list[int] = []

    def settled() -> bool:
        named = coordinator_answers(cluster, transactional_id)
        if len(named) == 1:
            [node] = named
            if node in cluster.live() and node != not_:
                found.append(node)
                return True
        return False

    wait_until(settled, FAILOVER_TIMEOUT, f"a live coordinator of {transactional_id}")
    return found[-1]


def describe(cluster: ClusterProcesses, broker: int, transactional_id: str):
    with WireClient(cluster.broker(broker).bootstrap) as c:
        [state] = c.call(ApiKey.DESCRIBE_TRANSACTIONS, 0, dtx.DescribeTransactionsRequest(
            transactional_ids=[transactional_id])).transaction_states
    return state


def wait_for_state(cluster: ClusterProcesses, broker: int, transactional_id: str,
                   state: str):
    seen: list = []

    def reached() -> bool:
        seen.append(describe(cluster, broker, transactional_id))
        return seen[-1].transaction_state == state

    wait_until(reached, FAILOVER_TIMEOUT, f"{transactional_id} {state} on broker {broker}")
    return seen[-1]


def committed_values(bootstrap: str, topic: str, partitions: int) -> dict[int, list[bytes]]:
    """What a read_committed consumer reads from the start of each partition, until it has
    been quiet for two seconds."""
    from confluent_kafka import Consumer

    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "txn-read-back",
                  "isolation.level": "read_committed", "enable.auto.commit": False})
    try:
        c.assign([TopicPartition(topic, p, 0) for p in range(partitions)])
        got: dict[int, list[bytes]] = {p: [] for p in range(partitions)}
        start = last = time.monotonic()
        while time.monotonic() - start < 5 or time.monotonic() - last < 2:
            for m in c.consume(num_messages=1000, timeout=0.2):
                if m.error():
                    raise KafkaException(m.error())
                got[m.partition()].append(m.value())
                last = time.monotonic()
            assert time.monotonic() - start < 60, "the partitions kept delivering"
        return got
    finally:
        c.close()


def producer(cluster: ClusterProcesses, transactional_id: str) -> Producer:
    return Producer({"bootstrap.servers": cluster.bootstrap, "transactional.id": transactional_id,
                     "linger.ms": 5, "transaction.timeout.ms": 60000})


def test_markers_cross_brokers_and_the_coordinator_survives_a_kill(
        txn_cluster: ClusterProcesses) -> None:
    cluster = txn_cluster
    topic, txn = "payments", "payments-writer"
    create_topic(cluster, topic, 3)
    states = agreed_states(cluster, topic)
    assert states is not None
    assert len({leader for leader, _, _ in states.values()}) == 3, states

    first = producer(cluster, txn)
    first.init_transactions(60)
    coordinator = settled_coordinator(cluster, txn)
    first.begin_transaction()
    for i in range(30):
        first.produce(topic, value=f"c1-{i}".encode(), partition=i % 3)
    first.commit_transaction(60)
    done = wait_for_state(cluster, coordinator, txn, "CompleteCommit")
    assert done.producer_epoch == 0

    first.begin_transaction()
    for i in range(9):
        first.produce(topic, value=f"open-{i}".encode(), partition=i % 3)
    first.flush(30)
    opened = describe(cluster, coordinator, txn)
    assert (opened.transaction_state, sorted(opened.topics[0].partitions)) == (
        "Ongoing", [0, 1, 2])

    cluster.broker(coordinator).kill()
    successor = settled_coordinator(cluster, txn, not_=coordinator)
    # the new coordinator replayed the open transaction from its replica
    second = producer(cluster, txn)
    second.init_transactions(60)
    state = describe(cluster, successor, txn)
    assert (state.transaction_state, state.producer_id, state.producer_epoch) == (
        "Empty", done.producer_id, 2)

    second.begin_transaction()
    for i in range(6):
        second.produce(topic, value=f"c2-{i}".encode(), partition=i % 3)
    second.commit_transaction(60)
    wait_for_state(cluster, successor, txn, "CompleteCommit")

    with pytest.raises(KafkaException) as raised:
        first.commit_transaction(20)
    assert raised.value.args[0].fatal(), raised.value.args[0]
    assert raised.value.args[0].code() in (KafkaError._FENCED, KafkaError.PRODUCER_FENCED,
                                           KafkaError.INVALID_PRODUCER_EPOCH)

    got = committed_values(cluster.bootstrap, topic, 3)
    for p in range(3):
        assert got[p] == ([f"c1-{i}".encode() for i in range(p, 30, 3)]
                          + [f"c2-{i}".encode() for i in range(p, 6, 3)]), (p, got[p])
    second.flush(10)
