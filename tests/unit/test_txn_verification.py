"""KIP-890 part 1, transaction verification on produce, as Kafka 3.9 has it: the log's
verification guard (a transactional batch opens a transaction only with the guard of a
verification still current; a marker written meanwhile invalidates it; later sequences wait for
the lowest one), the leader's mapping of the coordinator's answers, the per-coordinator queues
of AddPartitionsToTxn, and the replica manager's produce and TxnOffsetCommit paths on a broker
without sockets whose own transaction coordinator answers in-process."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from protocol.errors import ErrorCode, KafkaError
from protocol.messages import (
    add_partitions_to_txn_request as apt,
    add_partitions_to_txn_response as aptr,
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

E = ErrorCode
T0 = 1_700_000_000_000
PID = 4000

_opened: list[Log] = []


@pytest.fixture(autouse=True)
def _close_logs() -> Iterator[None]:
    yield
    while _opened:
        _opened.pop().close()


def open_log(path: Path, *, verifying: bool = True) -> Log:
    log = Log.open(path / "verify-0", LogConfig(), now_ms=T0)
    log.producer_state.transaction_verification_enabled = verifying
    _opened.append(log)
    return log


def txn_batch(seq: int, n: int = 1, *, pid: int = PID, epoch: int = 0,
              transactional: bool = True) -> bytearray:
    return build_batch([(None, b"v%d" % (seq + i), (), T0) for i in range(n)],
                       producer_id=pid, producer_epoch=epoch, base_sequence=seq,
                       is_transactional=transactional)


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
