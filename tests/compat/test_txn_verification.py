"""The hanging transaction KIP-890's verification prevents, on a broker process over raw requests.

A transactional producer writes to partition 0, stalls past its transaction timeout, and the
coordinator aborts the transaction (bumping the producer's epoch, markers to partition 0 only).
The stalled producer, now a zombie, then writes to partition 1, which its transaction never
added. Without verification partition 1 takes the batch: it opens a transaction no coordinator
will ever end, and read_committed consumers are held at its offset for good (the last stable
offset stops there). With verification (Kafka's default) the leader asks the coordinator first,
the zombie is answered INVALID_PRODUCER_EPOCH, nothing is written, and the last stable offset
follows the high watermark.

The answers themselves are compared with Kafka 3.9 in
tests/compat/differential/test_transaction_coordinator.py (``verification``). The setting is a
cluster-wide dynamic config, as in Kafka: IncrementalAlterConfigs turns the verification off and
on again on a running broker.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from protocol.errors import ErrorCode
from protocol.messages import (
    ApiKey,
    add_partitions_to_txn_request as apt,
    describe_producers_request as dpreq,
    describe_transactions_request as dtx,
    find_coordinator_request as fc,
    incremental_alter_configs_request as iac,
    init_producer_id_request as ipi,
    list_offsets_request as loreq,
    produce_request as preq,
)
from protocol.records.record import build_batch
from pybroker.testing.wire_client import WireClient

from .confluent_kafka.helpers import create_topic

pytestmark = [pytest.mark.compat, pytest.mark.timeout(120)]

E = ErrorCode
TOPIC = "hanging"
TXN = "stalled-writer"
READ_COMMITTED = 1
BROKER_RESOURCE, SET, DELETE = 4, 0, 1
#: the coordinator looks for transactions past their timeout this often
ABORT_CHECK_MS = 200


def until(what: str, check: Any, timeout: float = 30.0) -> Any:
    deadline = time.monotonic() + timeout
    while not (found := check()):
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)
    return found


def produce(c: WireClient, partition: int, batch: bytes,
            transactional_id: str | None = TXN) -> ErrorCode:
    answer = c.call(ApiKey.PRODUCE, 9, preq.ProduceRequest(
        transactional_id=transactional_id, acks=-1, timeout_ms=10_000,
        topic_data=[preq.TopicProduceData(name=TOPIC, partition_data=[
            preq.PartitionProduceData(index=partition, records=batch)])]))
    return ErrorCode(answer.responses[0].partition_responses[0].error_code)


def last_stable_offset(c: WireClient, partition: int) -> int:
    answer = c.call(ApiKey.LIST_OFFSETS, 5, loreq.ListOffsetsRequest(
        replica_id=-1, isolation_level=READ_COMMITTED, topics=[loreq.ListOffsetsTopic(
            name=TOPIC, partitions=[loreq.ListOffsetsPartition(partition_index=partition,
                                                              timestamp=-1)])]))
    [p] = answer.topics[0].partitions
    assert p.error_code == E.NONE
    return p.offset


def open_transactions(c: WireClient, partition: int) -> dict[int, int]:
    """producer id -> the first offset of its open transaction in the partition."""
    answer = c.call(ApiKey.DESCRIBE_PRODUCERS, 0, dpreq.DescribeProducersRequest(
        topics=[dpreq.TopicRequest(name=TOPIC, partition_indexes=[partition])]))
    [p] = answer.topics[0].partitions
    return {s.producer_id: s.current_txn_start_offset for s in p.active_producers
            if s.current_txn_start_offset >= 0}


@pytest.mark.parametrize("verification", [True, False], ids=["verifying", "not-verifying"])
def test_a_zombie_cannot_leave_a_hanging_transaction(broker_factory, verification: bool,
                                                     ) -> None:
    broker = broker_factory(**{
        "transaction.partition.verification.enable": str(verification).lower(),
        "transaction.abort.timed.out.transaction.cleanup.interval.ms": ABORT_CHECK_MS})
    create_topic(broker.bootstrap, TOPIC, 2)
    with WireClient(broker.bootstrap) as c:
        until("the transaction coordinator", lambda: c.call(
            ApiKey.FIND_COORDINATOR, 3, fc.FindCoordinatorRequest(key=TXN, key_type=1),
        ).error_code == E.NONE)
        init = until("a producer id", lambda: (lambda r: r if r.error_code == E.NONE else None)(
            c.call(ApiKey.INIT_PRODUCER_ID, 4, ipi.InitProducerIdRequest(
                transactional_id=TXN, transaction_timeout_ms=1000))))
        pid, epoch = init.producer_id, init.producer_epoch

        def batch(value: bytes, *, transactional: bool = True, producer: int = pid) -> bytes:
            return bytes(build_batch([(None, value)], producer_id=producer,
                                     producer_epoch=epoch if producer == pid else 0,
                                     base_sequence=0, is_transactional=transactional))

        added = c.call(ApiKey.ADD_PARTITIONS_TO_TXN, 3, apt.AddPartitionsToTxnRequest(
            v3_and_below_transactional_id=TXN, v3_and_below_producer_id=pid,
            v3_and_below_producer_epoch=epoch, v3_and_below_topics=[
                apt.AddPartitionsToTxnTopic(name=TOPIC, partitions=[0])]))
        assert added.results_by_topic_v3_and_below[0].results_by_partition[0] \
            .partition_error_code == E.NONE
        assert produce(c, 0, batch(b"in time")) == E.NONE

        # the producer stalls: its transaction times out and is aborted with a new epoch
        def aborted() -> bool:
            [state] = c.call(ApiKey.DESCRIBE_TRANSACTIONS, 0, dtx.DescribeTransactionsRequest(
                transactional_ids=[TXN])).transaction_states
            return state.transaction_state == "CompleteAbort" and state.producer_epoch > epoch

        until("the timed-out transaction aborted", aborted)
        # the zombie writes to a partition its transaction never added
        late = produce(c, 1, batch(b"too late"))
        # another producer's record follows it
        plain = c.call(ApiKey.INIT_PRODUCER_ID, 4, ipi.InitProducerIdRequest(
            transactional_id=None, transaction_timeout_ms=60_000)).producer_id
        assert produce(c, 1, batch(b"plain", transactional=False, producer=plain),
                       transactional_id=None) == E.NONE
        if verification:
            assert late == E.INVALID_PRODUCER_EPOCH
            assert open_transactions(c, 1) == {}
            assert last_stable_offset(c, 1) == 1  # the plain record, readable
        else:
            # what the verification prevents: a transaction that never ends
            assert late == E.NONE
            assert open_transactions(c, 1) == {pid: 0}
            time.sleep(3 * ABORT_CHECK_MS / 1000)
            assert last_stable_offset(c, 1) == 0
        # partition 0 got its abort marker either way
        assert open_transactions(c, 0) == {} and last_stable_offset(c, 0) == 2


def set_verification(c: WireClient, enabled: bool | None) -> None:
    """The cluster-wide dynamic default (None: deleted, back to the static config)."""
    answer = c.call(ApiKey.INCREMENTAL_ALTER_CONFIGS, 1, iac.IncrementalAlterConfigsRequest(
        resources=[iac.AlterConfigsResource(resource_type=BROKER_RESOURCE, resource_name="",
                                            configs=[iac.AlterableConfig(
            name="transaction.partition.verification.enable",
            config_operation=SET if enabled is not None else DELETE,
            value=str(enabled).lower() if enabled is not None else None)])]))
    assert [r.error_code for r in answer.responses] == [E.NONE], answer


def test_the_verification_is_a_dynamic_cluster_config(broker) -> None:
    create_topic(broker.bootstrap, TOPIC, 2)
    with WireClient(broker.bootstrap) as c:
        until("the transaction coordinator", lambda: c.call(
            ApiKey.FIND_COORDINATOR, 3, fc.FindCoordinatorRequest(key=TXN, key_type=1),
        ).error_code == E.NONE)
        init = until("a producer id", lambda: (lambda r: r if r.error_code == E.NONE else None)(
            c.call(ApiKey.INIT_PRODUCER_ID, 4, ipi.InitProducerIdRequest(
                transactional_id=TXN, transaction_timeout_ms=60_000))))

        batch = bytes(build_batch([(None, b"v")], producer_id=init.producer_id,
                                  producer_epoch=init.producer_epoch, base_sequence=0,
                                  is_transactional=True))
        assert produce(c, 0, batch) == E.INVALID_TXN_STATE  # never added
        set_verification(c, False)
        assert produce(c, 0, batch) == E.NONE  # not verified: written
        set_verification(c, None)
        assert produce(c, 1, batch) == E.INVALID_TXN_STATE  # verified again
