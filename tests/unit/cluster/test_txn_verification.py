"""KIP-890 part 1, transaction verification on produce, as Kafka 3.9 has it: the log's
verification guard (a transactional batch opens a transaction only with the guard of a
verification still current; a marker written meanwhile invalidates it; later sequences wait for
the lowest one), the leader's mapping of the coordinator's answers, the per-coordinator queues
of AddPartitionsToTxn, and the replica manager's produce and TxnOffsetCommit paths on a broker
without sockets whose own transaction coordinator answers in-process."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from protocol.errors import ErrorCode, KafkaError
from protocol.messages import (
    add_offsets_to_txn_request as aot,
    add_partitions_to_txn_request as apt,
    add_partitions_to_txn_response as aptr,
    describe_groups_request as dg,
    init_producer_id_request as ipi,
    produce_request as preq,
    txn_offset_commit_request as toc,
)
from protocol.records.batch import BatchHeader
from protocol.records.control import (
    ControlRecordType,
    EndTransactionMarker,
    build_end_txn_marker_batch,
)
from protocol.records.record import build_batch
from pybroker.cluster.txn_verification import (
    PendingVerification,
    TxnErrorMode,
    VerificationQueues,
    coordinator_errors,
    errors_from_response,
    produce_error_for,
    verify_request,
)
from pybroker.log import Log, LogConfig
from pybroker.log.producer_state import AppendOrigin, ProducerStateManager
from pybroker.metadata.model import PartitionRecord
from pybroker.security.principal import ANONYMOUS
from tests.unit.broker.embedded_node import EmbeddedNode
from tests.unit.log.helpers import OPENED as _opened
from tests.unit.network.helpers import call as dispatch_call
from tests.unit.protocol.records.helpers import value_batch

E = ErrorCode
T0 = 1_700_000_000_000
PID = 4000
PRODUCE, INIT_PRODUCER_ID, ADD_PARTITIONS_TO_TXN, ADD_OFFSETS_TO_TXN = 0, 22, 24, 25
TXN_OFFSET_COMMIT, DESCRIBE_GROUPS = 28, 15


def open_log(path: Path, *, verifying: bool = True) -> Log:
    log = Log.open(path / "verify-0", LogConfig(), now_ms=T0)
    log.producer_state.transaction_verification_enabled = verifying
    _opened.append(log)
    return log


def txn_batch(seq: int, n: int = 1, *, pid: int = PID, epoch: int = 0,
              transactional: bool = True) -> bytearray:
    return value_batch(n, first=seq, ts_step=0, producer_id=pid, producer_epoch=epoch,
                       base_sequence=seq, is_transactional=transactional)


def marker(commit: bool, *, pid: int = PID, epoch: int = 0) -> bytearray:
    kind = ControlRecordType.COMMIT if commit else ControlRecordType.ABORT
    return build_end_txn_marker_batch(pid, epoch, EndTransactionMarker(kind, 0), timestamp=T0)


def append(log: Log, batch: bytearray, guard=None,  # noqa: ANN001
           origin: AppendOrigin = AppendOrigin.CLIENT) -> int:
    return log.append_as_leader(batch, leader_epoch=0, now_ms=T0, origin=origin,
                                verification_guard=guard).first_offset


def refused(log: Log, batch: bytearray, guard=None,  # noqa: ANN001
            origin: AppendOrigin = AppendOrigin.CLIENT) -> ErrorCode:
    end = log.log_end_offset
    with pytest.raises(KafkaError) as e:
        append(log, batch, guard, origin)
    assert log.log_end_offset == end, "nothing is written"
    return e.value.code


# ------------------------------------------------------------------ the log's guard


def test_a_transaction_opens_only_with_the_guard_of_its_verification(tmp_path: Path) -> None:
    log = open_log(tmp_path)
    assert refused(log, txn_batch(0)) == E.INVALID_TXN_STATE
    guard = log.maybe_start_transaction_verification(PID, 0, 0, T0)
    assert guard is not None
    # a guard of another verification does not do
    other = open_log(tmp_path / "other").maybe_start_transaction_verification(PID, 0, 0, T0)
    assert refused(log, txn_batch(0), other) == E.INVALID_TXN_STATE
    assert append(log, txn_batch(0), guard) == 0
    # the transaction is open: nothing more to verify, and the guard is spent
    assert log.maybe_start_transaction_verification(PID, 1, 0, T0) is None
    assert log.producer_state.verification_guard(PID) is None
    assert append(log, txn_batch(1)) == 1
    append(log, marker(True), origin=AppendOrigin.COORDINATOR)
    # the next transaction is verified again
    assert refused(log, txn_batch(2)) == E.INVALID_TXN_STATE
    assert refused(log, txn_batch(2), guard) == E.INVALID_TXN_STATE


def test_a_marker_written_during_the_verification_invalidates_its_guard(tmp_path: Path) -> None:
    """Kafka's ABA case: verified while the transaction was open at the coordinator, but the
    transaction ended (its marker written here) before the append: the stale answer must not
    open a transaction the coordinator no longer knows."""
    log = open_log(tmp_path)
    guard = log.maybe_start_transaction_verification(PID, 0, 0, T0)
    append(log, marker(False), origin=AppendOrigin.COORDINATOR)
    assert refused(log, txn_batch(0), guard) == E.INVALID_TXN_STATE
    fresh = log.maybe_start_transaction_verification(PID, 0, 0, T0)
    assert fresh is not None and fresh is not guard
    assert append(log, txn_batch(0), fresh) == 1


def test_verifications_of_one_producer_share_a_guard_and_hold_back_later_sequences(
        tmp_path: Path) -> None:
    log = open_log(tmp_path)
    first = log.maybe_start_transaction_verification(PID, 5, 0, T0)
    again = log.maybe_start_transaction_verification(PID, 10, 0, T0)
    assert first is again
    # sequence 10 may not overtake sequence 5, whose verification may have failed
    assert refused(log, txn_batch(10), first) == E.OUT_OF_ORDER_SEQUENCE_NUMBER
    # a lower sequence lowers the bar, a newer epoch resets it
    log.maybe_start_transaction_verification(PID, 3, 0, T0)
    assert refused(log, txn_batch(5), first) == E.OUT_OF_ORDER_SEQUENCE_NUMBER
    log.maybe_start_transaction_verification(PID, 0, 1, T0)
    assert log.producer_state.verification_states[PID].lowest_sequence == 0
    assert refused(log, txn_batch(3, epoch=1), first) == E.OUT_OF_ORDER_SEQUENCE_NUMBER
    assert append(log, txn_batch(0, epoch=1), first) == 0


def test_a_plain_batch_of_the_producer_also_waits_for_the_lowest_sequence(
        tmp_path: Path) -> None:
    log = open_log(tmp_path)
    log.maybe_start_transaction_verification(PID, 0, 0, T0)
    assert refused(log, txn_batch(2, transactional=False)) == E.OUT_OF_ORDER_SEQUENCE_NUMBER
    assert append(log, txn_batch(0, transactional=False)) == 0  # the idempotent path


def test_the_coordinator_needs_a_guard_too_but_no_sequence(tmp_path: Path) -> None:
    """A TxnOffsetCommit's batch (the group coordinator's, transactional) is checked like a
    producer's, but its sequence is not."""
    log = open_log(tmp_path)
    assert refused(log, txn_batch(0), origin=AppendOrigin.COORDINATOR) == E.INVALID_TXN_STATE
    guard = log.maybe_start_transaction_verification(PID, -1, 0, T0)
    assert append(log, txn_batch(0), guard, AppendOrigin.COORDINATOR) == 0


def test_without_verification_and_for_replicas_no_guard_is_asked(tmp_path: Path) -> None:
    log = open_log(tmp_path, verifying=False)
    assert append(log, txn_batch(0)) == 0
    follower = open_log(tmp_path / "follower")
    info = follower.append_as_follower(bytes(log.read(0, 1 << 20).records.read_bytes()), T0)
    assert info.last_offset == 0
    assert follower.producer_state.has_ongoing_transaction(PID)


def test_a_duplicate_is_answered_before_the_verification_is_looked_at(tmp_path: Path) -> None:
    log = open_log(tmp_path)
    guard = log.maybe_start_transaction_verification(PID, 0, 0, T0)
    assert append(log, txn_batch(0, 3), guard) == 0
    append(log, marker(True), origin=AppendOrigin.COORDINATOR)
    info = log.append_as_leader(txn_batch(0, 3), leader_epoch=0, now_ms=T0)
    assert info.duplicate and info.first_offset == 0


def test_verifications_expire_with_the_producers_and_survive_truncation(tmp_path: Path) -> None:
    state = ProducerStateManager(tmp_path)
    guard = state.maybe_start_transaction_verification(PID, 0, 0, T0)
    state.clear()  # a truncation reloads producers, not verifications (as Kafka)
    assert state.verification_guard(PID) is guard
    state.remove_expired(T0 + 1000, expiration_ms=1000)
    assert state.verification_guard(PID) is None


def test_the_first_transactional_batch_replayed_clears_the_verification(tmp_path: Path) -> None:
    """A follower (or a recovery) that writes the transaction's first batch forgets any
    verification of it, as the leader's append does."""
    state = ProducerStateManager(tmp_path)
    state.maybe_start_transaction_verification(PID, 0, 0, T0)
    state.replay(BatchHeader.parse(txn_batch(0)))
    assert state.verification_guard(PID) is None and state.has_ongoing_transaction(PID)


# ------------------------------------------------------------------ the leader's mappings


def test_the_coordinators_answers_as_a_leader_takes_them() -> None:
    generic, default = TxnErrorMode.GENERIC_ERROR, TxnErrorMode.DEFAULT_ERROR
    results = {("t", 0): E.NONE, ("t", 1): E.TRANSACTION_ABORTABLE, ("u", 0): E.PRODUCER_FENCED}
    assert coordinator_errors(results, generic) == {("t", 1): E.TRANSACTION_ABORTABLE,
                                                    ("u", 0): E.INVALID_PRODUCER_EPOCH}
    assert coordinator_errors(results, default) == {("t", 1): E.INVALID_TXN_STATE,
                                                    ("u", 0): E.INVALID_PRODUCER_EPOCH}
    assert TxnErrorMode.for_produce(10) is default and TxnErrorMode.for_produce(11) is generic
    assert TxnErrorMode.for_txn_offset_commit(3) is default
    assert TxnErrorMode.for_txn_offset_commit(4) is generic


@pytest.mark.parametrize(("error", "answer", "message"), [
    (E.INVALID_TXN_STATE, E.INVALID_TXN_STATE, "Partition was not added to the transaction"),
    (E.CONCURRENT_TRANSACTIONS, E.NOT_ENOUGH_REPLICAS,
     "Unable to verify the partition has been added to the transaction. Underlying error: "
     "CONCURRENT_TRANSACTIONS"),
    (E.NETWORK_EXCEPTION, E.NOT_ENOUGH_REPLICAS, None),
    (E.COORDINATOR_LOAD_IN_PROGRESS, E.NOT_ENOUGH_REPLICAS, None),
    (E.COORDINATOR_NOT_AVAILABLE, E.NOT_ENOUGH_REPLICAS, None),
    (E.NOT_COORDINATOR, E.NOT_ENOUGH_REPLICAS, None),
    (E.TRANSACTION_ABORTABLE, E.TRANSACTION_ABORTABLE, None),
    (E.INVALID_PRODUCER_EPOCH, E.INVALID_PRODUCER_EPOCH, None),
    (E.INVALID_PRODUCER_ID_MAPPING, E.INVALID_PRODUCER_ID_MAPPING, None),
])
def test_what_a_produce_answers_for_a_partition_not_verified(error: ErrorCode, answer: ErrorCode,
                                                             message: str | None) -> None:
    code, text = produce_error_for(error)
    assert code == answer
    if message is not None:
        assert text == message
    elif answer == E.NOT_ENOUGH_REPLICAS:
        assert text is not None and text.endswith(f"Underlying error: {error.name}")
    else:
        assert text is None


def pending(txn: str, epoch: int, *partitions: tuple[str, int],
            answers: dict[str, dict] | None = None) -> PendingVerification:
    def answer(errors: dict) -> None:  # noqa: ANN001
        assert answers is not None and txn not in answers, "answered once"
        answers[txn] = errors
    return PendingVerification(txn, 7, epoch, partitions, TxnErrorMode.GENERIC_ERROR, answer)


def test_one_verification_per_transactional_id_waits_for_its_coordinator() -> None:
    queues = VerificationQueues()
    a, b = pending("a", 1, ("t", 0)), pending("b", 0, ("t", 1))
    assert queues.add(2, a) == [] and queues.add(2, b) == []
    assert queues.add(3, pending("c", 0)) == []
    # the same epoch again: the queued one is answered NETWORK_EXCEPTION, the new one waits
    retry = pending("a", 1, ("t", 0), ("t", 2))
    assert queues.add(2, retry) == [(a, E.NETWORK_EXCEPTION)]
    # an older epoch is fenced at once and the newer one stays
    stale = pending("a", 0, ("t", 0))
    assert queues.add(2, stale) == [(stale, E.INVALID_PRODUCER_EPOCH)]
    # a newer epoch fences the queued one
    newer = pending("a", 2, ("t", 0))
    assert queues.add(2, newer) == [(retry, E.INVALID_PRODUCER_EPOCH)]
    assert queues.drain(2) == [b, newer] and not queues.waiting(2) and queues.waiting(3)
    assert [p.transactional_id for p in queues.drain_all()] == ["c"]


def test_verify_requests_and_their_answers() -> None:
    answers: dict[str, dict] = {}
    a = pending("a", 1, ("t", 0), ("t", 1), ("u", 0), answers=answers)
    b = pending("b", 0, ("t", 2), answers=answers)
    request = verify_request([a, b])
    assert request.transactions == [
        apt.AddPartitionsToTxnTransaction(
            transactional_id="a", producer_id=7, producer_epoch=1, verify_only=True,
            topics=[apt.AddPartitionsToTxnTopic(name="t", partitions=[0, 1]),
                    apt.AddPartitionsToTxnTopic(name="u", partitions=[0])]),
        apt.AddPartitionsToTxnTransaction(
            transactional_id="b", producer_id=7, producer_epoch=0, verify_only=True,
            topics=[apt.AddPartitionsToTxnTopic(name="t", partitions=[2])])]

    def result(txn: str, *errors: tuple[str, int, ErrorCode]) -> aptr.AddPartitionsToTxnResult:
        return aptr.AddPartitionsToTxnResult(transactional_id=txn, topic_results=[
            aptr.AddPartitionsToTxnTopicResult(name=t, results_by_partition=[
                aptr.AddPartitionsToTxnPartitionResult(partition_index=p, partition_error_code=e)])
            for t, p, e in errors])

    answered = errors_from_response(aptr.AddPartitionsToTxnResponse(results_by_transaction=[
        result("a", ("t", 0, E.NONE), ("t", 1, E.TRANSACTION_ABORTABLE),
               ("u", 0, E.PRODUCER_FENCED))]), [a, b])
    assert answered == [(a, {("t", 1): E.TRANSACTION_ABORTABLE,
                             ("u", 0): E.INVALID_PRODUCER_EPOCH}),
                        (b, {("t", 2): E.NETWORK_EXCEPTION})]  # left out: not answered
    refused = errors_from_response(aptr.AddPartitionsToTxnResponse(
        error_code=E.CLUSTER_AUTHORIZATION_FAILED), [b])
    assert refused == [(b, {("t", 2): E.INVALID_TXN_STATE})]


# ------------------------------------------------------------------ a broker, no sockets

TOPIC = "orders"
TXN = "verify-txn"
NOT_ADDED = "Partition was not added to the transaction"
GROUP = "verify-group"


class _Peer:
    peer = "loopback"
    listener = "PLAINTEXT"
    principal = ANONYMOUS

    def __init__(self) -> None:
        self.closed = False

    def close_after_responses(self) -> None:
        self.closed = True


class Node:
    """A real embedded node and its real handlers, reached through its dispatcher (the
    services ``Broker.start`` hands it) rather than a socket; :func:`run` drives a scenario
    on the node's loop."""

    def __init__(self, data: Path, **config: str) -> None:
        self.node = EmbeddedNode.start(data, **{
            "transaction.state.log.num.partitions": "2",
            "offsets.topic.num.partitions": "2", "transaction.state.log.min.isr": "1",
            **config})
        self.broker = b = self.node.broker
        assert b.controller is not None and b.admin is not None
        assert b.metadata_cache is not None and b.groups is not None
        assert b.dispatcher.services is not None
        self.node.create_topic(TOPIC, 2)
        self.pid = self.epoch = -1

    async def start(self) -> None:
        b = self.broker
        assert b.groups is not None and b.transactions is not None
        # as Kafka's ZooKeeper mode: each internal topic is there once the controller made it
        for ensure in (b.transactions.ensure_topic, b.groups.ensure_offsets_topic):
            for _ in range(300):
                if ensure(T0) == E.NONE:
                    break
                await asyncio.sleep(0.01)
            assert ensure(T0) == E.NONE
        assert len(b.transactions.topic.writer.led_partitions()) == 2
        for _ in range(300):
            init = await self.call(INIT_PRODUCER_ID, 4, ipi.InitProducerIdRequest(
                transactional_id=TXN, transaction_timeout_ms=60_000))
            if init.error_code == E.NONE:
                self.pid, self.epoch = init.producer_id, init.producer_epoch
                return
            await asyncio.sleep(0.01)
        raise AssertionError(f"no producer id: {init}")

    def close(self) -> None:
        self.node.stop()

    async def call(self, api_key: int, version: int, body: object, peer: _Peer | None = None,
                   ) -> Any:
        return await dispatch_call(self.broker.dispatcher, api_key, version, body,
                                   client_id="verify-test", peer=peer or _Peer())

    def batch(self, seq: int, n: int = 1, *, pid: int | None = None,
              transactional: bool = True) -> bytes:
        return bytes(build_batch([(None, b"r%d" % (seq + i), (), T0) for i in range(n)],
                                 producer_id=self.pid if pid is None else pid,
                                 producer_epoch=self.epoch, base_sequence=seq,
                                 is_transactional=transactional))

    async def produce(self, *parts: tuple[int, bytes], version: int = 9,
                      transactional_id: str | None = TXN, acks: int = -1) -> Any:
        return await self.call(PRODUCE, version, preq.ProduceRequest(
            transactional_id=transactional_id, acks=acks, timeout_ms=5000,
            topic_data=[preq.TopicProduceData(name=TOPIC, partition_data=[
                preq.PartitionProduceData(index=p, records=records) for p, records in parts])]))

    async def add(self, *partitions: int) -> None:
        answer = await self.call(ADD_PARTITIONS_TO_TXN, 3, apt.AddPartitionsToTxnRequest(
            v3_and_below_transactional_id=TXN, v3_and_below_producer_id=self.pid,
            v3_and_below_producer_epoch=self.epoch, v3_and_below_topics=[
                apt.AddPartitionsToTxnTopic(name=TOPIC, partitions=list(partitions))]))
        errors = [r.partition_error_code for t in answer.results_by_topic_v3_and_below
                  for r in t.results_by_partition]
        assert errors == [E.NONE] * len(partitions), answer

    def log_end(self, partition: int) -> int:
        p = self.broker.replica_manager.get_partition(TOPIC, partition)
        assert p is not None
        return p.log_end_offset


def answers(response: Any) -> list[tuple[int, ErrorCode, str | None]]:
    return [(p.index, ErrorCode(p.error_code), p.error_message)
            for t in response.responses for p in t.partition_responses]


@pytest.fixture
def node(tmp_path: Path) -> Iterator[Node]:
    n = Node(tmp_path / "data")
    yield n
    n.close()


def run(node: Node, scenario) -> None:  # noqa: ANN001
    async def main() -> None:
        await node.start()
        await scenario()

    try:
        node.node.run(main(), timeout=30)
    finally:
        node.close()


def test_a_partition_never_added_is_not_written(node: Node) -> None:
    async def scenario() -> None:
        refused = await node.produce((0, node.batch(0)))
        assert answers(refused) == [(0, E.INVALID_TXN_STATE,
                                     "Partition was not added to the transaction")]
        assert node.log_end(0) == 0
        # Produce v11 understands TRANSACTION_ABORTABLE
        assert answers(await node.produce((0, node.batch(0)), version=11)) == [
            (0, E.TRANSACTION_ABORTABLE, None)]
        await node.add(0)
        written = await node.produce((0, node.batch(0, 3)), (1, node.batch(0)))
        assert answers(written) == [(0, E.NONE, None), (1, E.INVALID_TXN_STATE,
                                                        "Partition was not added to the "
                                                        "transaction")]
        assert (node.log_end(0), node.log_end(1)) == (3, 0)
        # the transaction is open in partition 0: the next batch is not verified again
        assert answers(await node.produce((0, node.batch(3)))) == [(0, E.NONE, None)]

    run(node, scenario)


def test_transactional_records_need_a_transactional_id(node: Node) -> None:
    async def scenario() -> None:
        plain = node.batch(0, transactional=False)
        refused = await node.produce((0, node.batch(0)), (1, plain), transactional_id=None)
        assert [(p.index, p.error_code, p.base_offset, p.log_start_offset)
                for p in refused.responses[0].partition_responses] == [
            (0, E.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, -1, -1),
            (1, E.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, -1, -1)]
        # an acks=0 producer cannot be told: its connection is closed
        peer = _Peer()
        assert await node.call(PRODUCE, 9, preq.ProduceRequest(acks=0, timeout_ms=100,
                               topic_data=[preq.TopicProduceData(name=TOPIC, partition_data=[
                                   preq.PartitionProduceData(index=0, records=node.batch(0))])]),
                               peer) is None
        assert peer.closed
        # a transactional id with plain batches is accepted, as Kafka accepts it
        assert answers(await node.produce((1, plain))) == [(1, E.NONE, None)]
        assert (node.log_end(0), node.log_end(1)) == (0, 1)

    run(node, scenario)


def test_batches_of_two_producers_fail_the_whole_request(node: Node) -> None:
    async def scenario() -> None:
        await node.add(0, 1)
        answer = await node.produce((0, node.batch(0)), (1, node.batch(0, pid=node.pid + 1)))
        assert answers(answer) == [
            (0, E.INVALID_PRODUCER_ID_MAPPING,
             "Transactional records contained more than one producer ID"),
            (1, E.INVALID_PRODUCER_ID_MAPPING,
             "Transactional records contained more than one producer ID")]
        assert (node.log_end(0), node.log_end(1)) == (0, 0)

    run(node, scenario)


def test_the_coordinators_errors_reach_the_producer_as_kafka_maps_them(node: Node) -> None:
    async def scenario() -> None:
        await node.add(0)
        node.epoch -= 1  # a zombie: the coordinator answers PRODUCER_FENCED
        assert answers(await node.produce((0, node.batch(0)))) == [
            (0, E.INVALID_PRODUCER_EPOCH, None)]
        node.epoch += 1
        # another transactional id: no such transaction at its coordinator
        assert answers(await node.produce((0, node.batch(0)), transactional_id="nobody")) == [
            (0, E.INVALID_PRODUCER_ID_MAPPING, None)]
        # its coordinator is loading: retriable, as NOT_ENOUGH_REPLICAS
        rm = node.broker.replica_manager
        transactions = node.broker.transactions
        assert transactions is not None
        p = transactions.partition_for(TXN)
        leader = rm.get_partition("__transaction_state", p)
        assert leader is not None
        rm.become_leader_or_follower("__transaction_state", [
            PartitionRecord(p, (0,), (0,), 0, leader.leader_epoch + 1)], T0)
        assert answers(await node.produce((0, node.batch(0)))) == [
            (0, E.NOT_ENOUGH_REPLICAS, "Unable to verify the partition has been added to the "
                                       "transaction. Underlying error: "
                                       "COORDINATOR_LOAD_IN_PROGRESS")]
        assert node.log_end(0) == 0

    run(node, scenario)


def test_txn_offset_commit_is_verified_before_its_offsets_are_written(node: Node) -> None:
    async def scenario() -> None:
        def commit(version: int) -> toc.TxnOffsetCommitRequest:
            return toc.TxnOffsetCommitRequest(
                transactional_id=TXN, group_id=GROUP, producer_id=node.pid,
                producer_epoch=node.epoch, generation_id=-1, member_id="",
                topics=[toc.TxnOffsetCommitRequestTopic(name=TOPIC, partitions=[
                    toc.TxnOffsetCommitRequestPartition(partition_index=0, committed_offset=5)])])

        def errors(answer: Any) -> list[int]:
            return [p.error_code for t in answer.topics for p in t.partitions]

        groups = node.broker.groups
        assert groups is not None
        offsets_partition = (groups.topic.name, groups.topic.partition_for(GROUP))
        end = groups.topic.replica_manager.get_partition(*offsets_partition).log_end_offset
        # AddOffsetsToTxn skipped: the group's partition is not in the transaction
        assert errors(await node.call(TXN_OFFSET_COMMIT, 3, commit(3))) == [E.INVALID_TXN_STATE]
        assert errors(await node.call(TXN_OFFSET_COMMIT, 4, commit(4))) == [
            E.TRANSACTION_ABORTABLE]
        after = groups.topic.replica_manager.get_partition(*offsets_partition)
        assert after.log_end_offset == end, "nothing written"
        # but the group was created (Kafka creates it before it verifies)
        described = await node.call(DESCRIBE_GROUPS, 0, dg.DescribeGroupsRequest(groups=[GROUP]))
        assert [(g.error_code, g.group_state) for g in described.groups] == [(E.NONE, "Empty")]
        added = await node.call(ADD_OFFSETS_TO_TXN, 3, aot.AddOffsetsToTxnRequest(
            transactional_id=TXN, producer_id=node.pid, producer_epoch=node.epoch,
            group_id=GROUP))
        assert added.error_code == E.NONE
        assert errors(await node.call(TXN_OFFSET_COMMIT, 3, commit(3))) == [E.NONE]
        assert after.log_end_offset == end + 1

    run(node, scenario)


class HeldVerifier:
    """A coordinator whose answers the test releases (the race a remote one allows)."""

    def __init__(self) -> None:
        self.waiting: list[asyncio.Future[dict]] = []

    def verify_transaction(self, transactional_id, producer_id, producer_epoch,  # noqa: ANN001
                           partitions, mode) -> asyncio.Future[dict]:  # noqa: ANN001
        future: asyncio.Future[dict] = asyncio.get_running_loop().create_future()
        self.waiting.append(future)
        return future


def test_a_marker_written_while_the_coordinator_answers_wins(node: Node) -> None:
    """Verified, but the transaction was aborted (its marker written) before the answer came:
    the append is refused as Kafka refuses it, and the log stays as the marker left it."""
    async def scenario() -> None:
        rm = node.broker.replica_manager
        held = HeldVerifier()
        rm.transaction_verifier = held
        outcome = rm.handle_produce_append({(TOPIC, 0): bytearray(node.batch(0))},
                                           transactional_id=TXN, required_acks=-1,
                                           timeout_ms=1000, now_ms=T0)
        assert isinstance(outcome, asyncio.Future) and len(held.waiting) == 1
        rm.append_records({(TOPIC, 0): marker(False, pid=node.pid, epoch=node.epoch)},
                          required_acks=-1, timeout_ms=1000, now_ms=T0,
                          origin=AppendOrigin.COORDINATOR)
        held.waiting[0].set_result({})  # "the partition is in the transaction"
        result = (await outcome)[(TOPIC, 0)]
        assert (result.error, node.log_end(0)) == (E.INVALID_TXN_STATE, 1)
        # a retry verifies afresh
        retried = rm.handle_produce_append({(TOPIC, 0): bytearray(node.batch(0))},
                                           transactional_id=TXN, required_acks=-1,
                                           timeout_ms=1000, now_ms=T0)
        held.waiting[1].set_result({})
        assert (await retried)[(TOPIC, 0)].error == E.NONE
        assert node.log_end(0) == 2

    run(node, scenario)


def test_without_verification_nothing_asks_the_coordinator(tmp_path: Path) -> None:
    node = Node(tmp_path / "data", **{"transaction.partition.verification.enable": "false"})

    async def scenario() -> None:
        assert node.broker.replica_manager.transaction_verifier is None
        assert answers(await node.produce((0, node.batch(0)))) == [(0, E.NONE, None)]
        # the transactional id is still required
        assert answers(await node.produce((1, node.batch(0)), transactional_id=None)) == [
            (1, E.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, None)]

    run(node, scenario)


def test_the_verification_follows_the_dynamic_config(node: Node) -> None:
    """``transaction.partition.verification.enable`` is a cluster-wide dynamic config in
    Kafka: turning it off lets unverified transactional batches in, turning it on again
    verifies the next transactions."""
    async def scenario() -> None:
        dynamic = node.broker.dynamic_config
        dynamic.update_default_config({"transaction.partition.verification.enable": "false"})
        assert node.broker.replica_manager.transaction_verifier is None
        assert answers(await node.produce((0, node.batch(0)))) == [(0, E.NONE, None)]
        dynamic.update_default_config({})
        assert node.broker.replica_manager.transaction_verifier is node.broker.txn_verification
        # partition 0's transaction is open: not verified; partition 1 is
        assert answers(await node.produce((0, node.batch(1)), (1, node.batch(0)))) == [
            (0, E.NONE, None), (1, E.INVALID_TXN_STATE, NOT_ADDED)]

    run(node, scenario)
