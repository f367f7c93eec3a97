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
