"""Idempotent producer state survives the loss of a partition's leader: the followers rebuild it
from the batches they replicate, so the broker that takes over still knows each producer's last
batches and deduplicates the ones a producer sends again.

* librdkafka with batches in flight when the leader is killed (SIGKILL): it sends them again to
  the new leader, and the partition, read back, holds each acknowledged record exactly once, in
  the order sent (counted per value, so a duplicate shows).
* The same at the wire, deterministically: a producer's last batches, sent again to the new
  leader, are answered with the offsets they were first written at and add nothing; its next
  sequence is appended after them; a sequence gap is refused.

Three pybroker processes on the session's ZooKeeper; replication factor 3,
``min.insync.replicas=2``, acks=all. Each failover's duration is printed.
"""

from __future__ import annotations

import time

from protocol.errors import ErrorCode
from protocol.messages import (
    ApiKey,
    init_producer_id_request as ipreq,
    produce_request as preq,
)
from protocol.records.record import build_batch
from pybroker.testing.cluster import ClusterProcesses
from pybroker.testing.failover import agreed_states, first_ack_after, judge_order, longest_gap
from pybroker.testing.wire_client import WireClient
from tests.cluster.failover_clients import (
    NumberedProducer,
    create_topic,
    read_partition,
    wait_until,
)

FAILOVER_TIMEOUT = 40.0



def leader_of(cluster: ClusterProcesses, topic: str, partition: int = 0) -> int:
    states = agreed_states(cluster, topic)
    assert states, f"the live brokers do not agree on {topic}'s leaders"
    return states[partition][0]


def new_leader(cluster: ClusterProcesses, topic: str, old: int) -> int:
    found: list[int] = []

    def elected() -> bool:
        states = agreed_states(cluster, topic)
        if states and states[0][0] != old:
            found.append(states[0][0])
            return True
        return False

    wait_until(elected, FAILOVER_TIMEOUT, f"a leader of {topic}-0 other than broker {old}")
    return found[-1]


def test_an_idempotent_producer_in_flight_across_a_leader_kill_writes_each_record_once(
        cluster: ClusterProcesses) -> None:
    topic = "ledger"
    create_topic(cluster, topic, 1)
    leader = leader_of(cluster, topic)
    # small batches, five requests in flight: a kill finds batches sent and not yet answered
    producer = NumberedProducer(cluster.bootstrap, topic, 1, name="ledger", rate=2000,
                                **{"batch.num.messages": 20, "linger.ms": 2})
    try:
        producer.start()
        wait_until(lambda: len(producer.acks) >= 2000, 30, "records acknowledged")
        in_flight = producer.in_flight()
        killed = time.time()
        cluster.broker(leader).kill()
        successor = new_leader(cluster, topic, leader)
        wait_until(lambda: first_ack_after(producer.ack_times(), killed) is not None,
                   FAILOVER_TIMEOUT, "a write acknowledged after the kill")
        acked_then = len(producer.acks)
        wait_until(lambda: len(producer.acks) >= acked_then + 2000, 30,
                   "records acknowledged by the new leader")
    finally:
        left = producer.stop()
    first = first_ack_after(producer.ack_times(), killed)
    assert first is not None
    acks = [a.acked for a in producer.acks]
    print(f"\nkilled leader {leader} of {topic}-0 with {in_flight} record(s) sent and not yet "
          f"acknowledged; broker {successor} leads; first write after the kill acknowledged in "
          f"{first:.1f}s; longest wait for an acknowledgement "
          f"{longest_gap(acks, killed, max(acks)):.1f}s")
    assert left == 0 and producer.errors == [], (left, producer.errors[:5])
    assert in_flight > 0, "nothing was in flight at the kill: the test proved nothing"

    found = [value for _, value in read_partition(cluster.bootstrap, topic, 0)]
    sent_order = sorted(producer.acks, key=lambda a: producer.sent_at[a.value])
    verdict = judge_order([a.value for a in sent_order], found)
    print(f"{len(found)} records in {topic}-0 for {len(producer.acks)} acknowledged: "
          f"{verdict.failures}")
    assert verdict.failures == dict.fromkeys(verdict.failures, 0), (
        verdict.failures, list(verdict.duplicated.items())[:5], verdict.missing[:5])
    # each acknowledgement named the offset its record is at
    at = {value: offset for offset, value in enumerate(found)}
    assert [a for a in producer.acks if at[a.value] != a.offset] == []


def produce(client: WireClient, topic: str, batch: bytes):  # noqa: ANN201 - a generated type
    answer = client.call(ApiKey.PRODUCE, 9, preq.ProduceRequest(
        acks=-1, timeout_ms=30_000, topic_data=[preq.TopicProduceData(name=topic, partition_data=[
            preq.PartitionProduceData(index=0, records=batch)])]))
    return answer.responses[0].partition_responses[0]


def test_the_new_leader_knows_the_producers_last_batches(cluster: ClusterProcesses) -> None:
    topic = "receipts"
    create_topic(cluster, topic, 1)
    leader = leader_of(cluster, topic)
    with WireClient(cluster.broker(leader).bootstrap) as client:
        init = client.call(ApiKey.INIT_PRODUCER_ID, 4, ipreq.InitProducerIdRequest(
            transactional_id=None, transaction_timeout_ms=60_000))
    assert init.error_code == ErrorCode.NONE
    pid, epoch = init.producer_id, init.producer_epoch

    def batch(first_seq: int, n: int = 10) -> bytes:
        return bytes(build_batch([(None, b"r%d" % (first_seq + i)) for i in range(n)],
                                 producer_id=pid, producer_epoch=epoch, base_sequence=first_seq))

    # six batches, sequences 0..59, each on every replica before its answer (acks=all)
    with WireClient(cluster.broker(leader).bootstrap) as client:
        for i in range(6):
            answer = produce(client, topic, batch(10 * i))
            assert (answer.error_code, answer.base_offset) == (ErrorCode.NONE, 10 * i), answer
    killed = time.time()
    cluster.broker(leader).kill()
    successor = new_leader(cluster, topic, leader)
    with WireClient(cluster.broker(successor).bootstrap) as client:
        # the producer's last five batches, sent again: answered with their first offsets
        again = {seq: produce(client, topic, batch(seq)) for seq in (50, 10, 30)}
        first = time.time() - killed
        for seq, answer in again.items():
            assert (answer.error_code, answer.base_offset) == (ErrorCode.NONE, seq), (seq, answer)
        # the next sequence goes after them; a gap is refused
        following = produce(client, topic, batch(60))
        assert (following.error_code, following.base_offset) == (ErrorCode.NONE, 60), following
        gap = produce(client, topic, batch(80))
        assert gap.error_code == ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER, gap
    print(f"\nkilled leader {leader}; broker {successor} deduplicated the producer's batches "
          f"{first:.1f}s after the kill")
    values = [value for _, value in read_partition(cluster.bootstrap, topic, 0)]
    assert values == [b"r%d" % i for i in range(70)]
