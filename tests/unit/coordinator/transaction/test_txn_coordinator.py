"""The transaction coordinator's logic with the clock passed in
(tests/unit/coordinator/transaction/txn_coordinator_harness): producer ids and epochs, fencing,
EndTxn and its markers, timeouts, expiry, loading, and what a failed or slow write does."""

from __future__ import annotations

import pytest

from protocol.errors import ErrorCode as E
from pybroker.coordinator.runtime import CoordinatorState
from pybroker.coordinator.transaction import (
    UNKNOWN_DESTINATION,
    TransactionMetadata,
    TransactionState,
)
from tests.unit.coordinator.transaction.txn_coordinator_harness import (
    PARTITIONS,
    T0,
    TIMEOUT,
    Harness,
)

S = TransactionState
TP = ("orders", 0)
TP2 = ("orders", 1)


@pytest.fixture
def h() -> Harness:
    return Harness()


def begin(h: Harness, txn: str = "t", *partitions: tuple[str, int], now_ms: int = T0):
    r = h.init_ok(txn, now_ms)
    assert h.add(txn, r.producer_id, r.producer_epoch, *(partitions or (TP,)),
                 now_ms=now_ms).result == E.NONE
    return r


# -- InitProducerId ------------------------------------------------------------------------------


def test_a_new_transactional_id_gets_a_producer_id_at_epoch_0(h: Harness) -> None:
    r = h.init_ok("t")
    assert (r.producer_id, r.producer_epoch) == (1000, 0)
    [(txn, stored)] = h.log.last.decoded()
    assert h.log.last.partition == h.coordinator.partition_for("t") < PARTITIONS
    assert (txn, stored.state, stored.producer_id, stored.producer_epoch,
            stored.txn_timeout_ms) == ("t", S.EMPTY, 1000, 0, TIMEOUT)
    assert h.log.last.timeout_ms == TIMEOUT  # the write waits for the ISR up to the timeout


def test_each_init_bumps_the_epoch(h: Harness) -> None:
    assert [h.init_ok("t").producer_epoch for _ in range(3)] == [0, 1, 2]
    assert {h.init_ok("t").producer_id, h.init_ok("u").producer_id} == {1000, 1001}


def test_bad_requests(h: Harness) -> None:
    assert h.init("").result.error == E.INVALID_REQUEST
    assert h.init("t", timeout_ms=0).result.error == E.INVALID_TRANSACTION_TIMEOUT
    assert h.init("t", timeout_ms=900_001).result.error == E.INVALID_TRANSACTION_TIMEOUT
    assert h.init_ok("t", timeout_ms=900_000).producer_epoch == 0
    assert not h.log.writes[:-1]  # nothing was written for the refused ones


def test_an_init_while_a_write_is_in_flight_is_concurrent(h: Harness) -> None:
    h.init_ok("t")
    h.log.auto = False
    first = h.init("t")
    assert not first.done
    assert h.init("t").result.error == E.CONCURRENT_TRANSACTIONS
    h.log.last.complete()
    assert first.result.producer_epoch == 1
    assert h.metadata("t").pending_state is None


def test_kip360_a_producer_bumps_its_own_epoch_and_a_retry_gets_the_same_answer(
        h: Harness) -> None:
    r = h.init_ok("t")
    bumped = h.init_ok("t", expected=(r.producer_id, 0))
    assert (bumped.producer_id, bumped.producer_epoch) == (r.producer_id, 1)
    assert h.metadata("t").last_producer_epoch == 0
    # the answer was lost; the producer asks again with the epoch it had
    assert h.init_ok("t", expected=(r.producer_id, 0)).producer_epoch == 1
    assert h.init("t", expected=(r.producer_id, 7)).result.error == E.PRODUCER_FENCED
    assert h.init("t", expected=(999, 1)).result.error == E.PRODUCER_FENCED
    # a new producer (no expectation) forgets the last epoch: the old retry is now fenced
    assert h.init_ok("t").producer_epoch == 2
    assert h.init("t", expected=(r.producer_id, 0)).result.error == E.PRODUCER_FENCED


def test_an_exhausted_epoch_rotates_the_producer_id(h: Harness) -> None:
    r = h.init_ok("t")
    h.metadata("t").producer_epoch = 32765
    assert h.init_ok("t").producer_epoch == 32766
    rotated = h.init_ok("t", expected=(r.producer_id, 32766))
    assert (rotated.producer_id, rotated.producer_epoch) == (1001, 0)
    m = h.metadata("t")
    assert (m.last_producer_id, m.last_producer_epoch) == (r.producer_id, 32766)
    # a retry of that rotation with the old id and its exhausted epoch is not fenced
    assert h.init("t", expected=(r.producer_id, 32766)).result.error != E.PRODUCER_FENCED


def test_producer_ids_that_come_later(h: Harness) -> None:
    h.pids.auto = False
    box = h.init("t")
    other = h.init("t")
    assert not box.done and not other.done
    h.pids.release(T0 + 5)
    # both ran again once their ids came: the first created the id, the second bumped it
    assert sorted(r.producer_epoch for r in box.results + other.results) == [0, 1]
    assert h.metadata("t").producer_id == 1000


# -- AddPartitionsToTxn ---------------------------------------------------------------------------


def test_add_partitions_starts_a_transaction(h: Harness) -> None:
    r = begin(h, "t", TP, now_ms=T0 + 10)
    m = h.metadata("t")
    assert (m.state, m.topic_partitions, m.txn_start_timestamp) == (S.ONGOING, {TP}, T0 + 10)
    writes = len(h.log.writes)
    # partitions already in the transaction: answered without a write
    assert h.add("t", r.producer_id, r.producer_epoch, TP).result == E.NONE
    assert len(h.log.writes) == writes
    assert h.add("t", r.producer_id, r.producer_epoch, TP2).result == E.NONE
    assert h.metadata("t").topic_partitions == {TP, TP2}
    [(_, stored)] = h.log.last.decoded()
    assert stored.topic_partitions == {TP, TP2}


def test_add_partitions_errors(h: Harness) -> None:
    r = h.init_ok("t")
    assert h.add("nope", r.producer_id, 0, TP).result == E.INVALID_PRODUCER_ID_MAPPING
    assert h.add("t", r.producer_id + 1, 0, TP).result == E.INVALID_PRODUCER_ID_MAPPING
    assert h.add("t", r.producer_id, 5, TP).result == E.PRODUCER_FENCED
    assert h.add("", r.producer_id, 0, TP).result == E.INVALID_REQUEST
    h.log.auto = False
    first = h.add("t", r.producer_id, 0, TP)
    assert h.add("t", r.producer_id, 0, TP2).result == E.CONCURRENT_TRANSACTIONS
    h.log.last.complete()
    assert first.result == E.NONE


def test_a_failed_write_abandons_the_transition(h: Harness) -> None:
    r = h.init_ok("t")
    h.log.error = E.NOT_ENOUGH_REPLICAS
    assert h.add("t", r.producer_id, 0, TP).result == E.COORDINATOR_NOT_AVAILABLE
    m = h.metadata("t")
    assert (m.state, m.pending_state, m.topic_partitions) == (S.EMPTY, None, set())
    h.log.error = E.NOT_LEADER_OR_FOLLOWER
    assert h.add("t", r.producer_id, 0, TP).result == E.NOT_COORDINATOR
    h.log.error = E.REQUEST_TIMED_OUT
    assert h.init("t").result.error == E.COORDINATOR_NOT_AVAILABLE
    h.log.error = E.NONE
    assert h.add("t", r.producer_id, 0, TP).result == E.NONE


def test_verification_for_kip890(h: Harness) -> None:
    r = begin(h, "t", TP)
    assert h.coordinator.verify_partitions_in_transaction(
        "t", r.producer_id, 0, frozenset({TP, TP2})) == {TP: E.NONE,
                                                          TP2: E.TRANSACTION_ABORTABLE}
    assert h.coordinator.verify_partitions_in_transaction(
        "t", r.producer_id, 1, frozenset({TP})) == {TP: E.PRODUCER_FENCED}
    assert h.coordinator.verify_partitions_in_transaction(
        "x", r.producer_id, 0, frozenset({TP})) == {TP: E.INVALID_PRODUCER_ID_MAPPING}


# -- EndTxn and the markers -----------------------------------------------------------------------


def test_commit_writes_markers_then_completes(h: Harness) -> None:
    h.leaders[TP2] = 2
    r = begin(h, "t", TP, TP2)
    assert h.end("t", r.producer_id, 0, True, now_ms=T0 + 50).result == E.NONE
    assert h.metadata("t").state is S.PREPARE_COMMIT
    [(_, stored)] = h.log.last.decoded()
    assert (stored.state, stored.topic_partitions) == (S.PREPARE_COMMIT, {TP, TP2})
    assert sorted(h.woken) == [1, 2]
    # while the markers are written (CompleteCommit pending) EndTxn and AddPartitionsToTxn
    # are concurrent, whatever they ask
    assert h.end("t", r.producer_id, 0, True).result == E.CONCURRENT_TRANSACTIONS
    assert h.end("t", r.producer_id, 0, False).result == E.CONCURRENT_TRANSACTIONS
    assert h.add("t", r.producer_id, 0, TP).result == E.CONCURRENT_TRANSACTIONS
    [entry] = h.answer_markers(1)
    assert (entry.producer_id, entry.producer_epoch, entry.coordinator_epoch, entry.commit,
            entry.partitions) == (r.producer_id, 0, 0, True, frozenset({TP}))
    assert h.metadata("t").state is S.PREPARE_COMMIT
    h.answer_markers(2, now_ms=T0 + 60)
    m = h.metadata("t")
    # the completion is stamped when it was prepared: once PrepareCommit was written
    assert (m.state, m.topic_partitions, m.txn_last_update_timestamp) == (S.COMPLETE_COMMIT,
                                                                          set(), T0 + 50)
    [(_, stored)] = h.log.last.decoded()
    assert stored.state is S.COMPLETE_COMMIT and stored.txn_start_timestamp == T0
    # a retry of the commit that completed is answered NONE; an abort is invalid
    assert h.end("t", r.producer_id, 0, True).result == E.NONE
    assert h.end("t", r.producer_id, 0, False).result == E.INVALID_TXN_STATE
    assert h.coordinator.transactions_with_pending_markers == 0
    # the next transaction
    assert h.add("t", r.producer_id, 0, TP2, now_ms=T0 + 70).result == E.NONE
    assert h.metadata("t").txn_start_timestamp == T0 + 70


def test_end_txn_errors(h: Harness) -> None:
    r = h.init_ok("t")
    assert h.end("t", r.producer_id, 0, True).result == E.INVALID_TXN_STATE  # Empty
    begin(h, "u")
    assert h.end("u", 1234, 0, True).result == E.INVALID_PRODUCER_ID_MAPPING
    assert h.end("nope", 1, 0, True).result == E.INVALID_PRODUCER_ID_MAPPING
    u = h.metadata("u")
    assert h.end("u", u.producer_id, 1, True).result == E.PRODUCER_FENCED
    assert h.end("", 1, 0, True).result == E.INVALID_REQUEST


def test_retriable_marker_errors_are_sent_again_to_the_new_leader(h: Harness) -> None:
    r = begin(h, "t", TP)
    h.end("t", r.producer_id, 0, False)
    h.leaders[TP] = 3
    h.answer_markers(1, error=E.NOT_LEADER_OR_FOLLOWER)
    assert h.metadata("t").state is S.PREPARE_ABORT
    assert h.coordinator.queues.waiting(3) == 1
    h.answer_markers(3)
    assert h.metadata("t").state is S.COMPLETE_ABORT


def test_a_lost_connection_sends_the_markers_again(h: Harness) -> None:
    r = begin(h, "t", TP)
    h.end("t", r.producer_id, 0, True)
    entries = h.coordinator.queues.drain(1)
    h.coordinator.on_markers_failed(entries, T0)
    assert h.coordinator.queues.waiting(1) == 1


def test_markers_wait_for_a_live_leader_and_skip_deleted_partitions(h: Harness) -> None:
    h.leaders[TP] = UNKNOWN_DESTINATION
    h.leaders[TP2] = None
    r = begin(h, "t", TP, TP2)
    h.end("t", r.producer_id, 0, True)
    # TP2's topic is gone: it needs no marker; TP waits for its leader
    assert h.metadata("t").topic_partitions == {TP}
    waiting = h.coordinator.unknown_destination_entries()
    h.coordinator.requeue_markers(waiting, T0)
    assert h.coordinator.queues.waiting(UNKNOWN_DESTINATION) == 1
    h.leaders[TP] = 2
    h.coordinator.requeue_markers(h.coordinator.unknown_destination_entries(), T0)
    h.answer_markers(2)
    assert h.metadata("t").state is S.COMPLETE_COMMIT


def test_a_fenced_marker_cancels_the_completion(h: Harness) -> None:
    r = begin(h, "t", TP)
    h.end("t", r.producer_id, 0, True)
    h.answer_markers(1, error=E.INVALID_PRODUCER_EPOCH)
    assert h.metadata("t").state is S.PREPARE_COMMIT
    assert h.coordinator.transactions_with_pending_markers == 0


def test_a_completion_that_finds_no_coordinator_available_is_retried(h: Harness) -> None:
    r = begin(h, "t", TP)
    h.end("t", r.producer_id, 0, True)
    h.log.error = E.NOT_ENOUGH_REPLICAS
    h.answer_markers(1)
    m = h.metadata("t")
    assert (m.state, m.pending_state) == (S.PREPARE_COMMIT, S.COMPLETE_COMMIT)
    assert h.coordinator.has_completion_retries and h.retries_asked == 1
    h.log.error = E.NONE
    h.coordinator.retry_completions(T0 + 100)
    assert h.metadata("t").state is S.COMPLETE_COMMIT
    assert not h.coordinator.has_completion_retries


# -- fencing ------------------------------------------------------------------------------------


def test_a_new_producer_fences_the_zombie_and_aborts_its_transaction(h: Harness) -> None:
    zombie = begin(h, "t", TP)
    # the new producer's InitProducerId: the open transaction is aborted with a bumped epoch
    assert h.init("t").result.error == E.CONCURRENT_TRANSACTIONS
    m = h.metadata("t")
    assert (m.state, m.producer_epoch) == (S.PREPARE_ABORT, 1)
    [(_, stored)] = h.log.last.decoded()
    assert (stored.state, stored.producer_epoch) == (S.PREPARE_ABORT, 1)
    # the zombie can neither commit nor add partitions
    assert h.end("t", zombie.producer_id, 0, True).result == E.PRODUCER_FENCED
    assert h.add("t", zombie.producer_id, 0, TP2).result == E.PRODUCER_FENCED
    # until the abort's markers are written the new producer waits
    assert h.init("t").result.error == E.CONCURRENT_TRANSACTIONS
    [entry] = h.answer_markers(1)
    assert (entry.commit, entry.producer_epoch) == (False, 1)
    assert h.metadata("t").state is S.COMPLETE_ABORT
    fresh = h.init_ok("t")
    assert (fresh.producer_id, fresh.producer_epoch) == (zombie.producer_id, 2)
    assert h.end("t", zombie.producer_id, 0, False).result == E.PRODUCER_FENCED


def test_a_fence_whose_write_fails_does_not_bump_twice(h: Harness) -> None:
    begin(h, "t", TP)
    h.log.error = E.NOT_ENOUGH_REPLICAS
    assert h.init("t").result.error == E.COORDINATOR_NOT_AVAILABLE
    m = h.metadata("t")
    assert (m.state, m.pending_state, m.producer_epoch, m.has_failed_epoch_fence) == (
        S.ONGOING, None, 1, True)
    h.log.error = E.NONE
    assert h.init("t").result.error == E.CONCURRENT_TRANSACTIONS
    assert h.metadata("t").producer_epoch == 1
    h.answer_markers(1)
    assert h.init_ok("t").producer_epoch == 2


# -- timeouts and expiry ----------------------------------------------------------------------------


def test_a_timed_out_transaction_is_aborted_with_an_epoch_bump(h: Harness) -> None:
    r = begin(h, "t", TP, now_ms=T0)
    assert h.coordinator.abort_timed_out_transactions(T0 + TIMEOUT) == 0
    assert h.coordinator.abort_timed_out_transactions(T0 + TIMEOUT + 1) == 1
    m = h.metadata("t")
    assert (m.state, m.producer_epoch) == (S.PREPARE_ABORT, 1)
    assert h.coordinator.abort_timed_out_transactions(T0 + TIMEOUT + 2) == 0
    h.answer_markers(1)
    assert h.metadata("t").state is S.COMPLETE_ABORT
    # the producer that timed out is fenced
    assert h.add("t", r.producer_id, 0, TP).result == E.PRODUCER_FENCED
    assert h.end("t", r.producer_id, 0, True).result == E.PRODUCER_FENCED


def test_idle_transactional_ids_expire(h: Harness) -> None:
    h.init_ok("idle", now_ms=T0)
    begin(h, "busy", TP, now_ms=T0)
    expiry = h.config.transactional_id_expiration_ms
    assert h.coordinator.remove_expired_transactional_ids(T0 + expiry - 1) == 0
    h.log.auto = False
    assert h.coordinator.remove_expired_transactional_ids(T0 + expiry) == 1
    tombstones = h.log.last
    assert tombstones.records == [(tombstones.records[0][0], None)]
    assert tombstones.decoded() == [("idle", None)]
    assert h.metadata("idle").pending_state is S.DEAD
    assert h.init("idle").result.error == E.CONCURRENT_TRANSACTIONS
    tombstones.complete()
    assert h.metadata("idle") is None
    assert h.metadata("busy").state is S.ONGOING


def test_an_expiry_whose_tombstone_fails_keeps_the_id(h: Harness) -> None:
    h.init_ok("idle", now_ms=T0)
    h.log.error = E.NOT_ENOUGH_REPLICAS
    assert h.coordinator.remove_expired_transactional_ids(
        T0 + h.config.transactional_id_expiration_ms) == 1
    m = h.metadata("idle")
    assert (m.state, m.pending_state) == (S.EMPTY, None)


# -- loading ----------------------------------------------------------------------------------------


def test_requests_wait_for_the_load_and_go_elsewhere_after_a_resignation(h: Harness) -> None:
    p = h.coordinator.partition_for("t")
    h.resign(p, 0)
    assert h.init("t").result.error == E.NOT_COORDINATOR
    h.elect(p, 1)
    assert h.init("t").result.error == E.COORDINATOR_LOAD_IN_PROGRESS
    assert h.coordinator.list_transactions(set(), set(), -1, T0).error == \
        E.COORDINATOR_LOAD_IN_PROGRESS
    # a newer election while loading: requests wait for the newer load, the older is dropped
    h.elect(p, 2)
    assert not h.coordinator.complete_loading(p, 1, {}, T0)
    assert h.init("t").result.error == E.COORDINATOR_LOAD_IN_PROGRESS
    assert h.loaded(p, 2)
    assert h.init_ok("t").producer_epoch == 0
    # a load whose election was resigned is dropped
    h.resign(p, 2)
    h.elect(p, 3)
    h.resign(p, 3)
    assert not h.coordinator.complete_loading(p, 3, {}, T0)
    assert h.init("t").result.error == E.NOT_COORDINATOR
    # the cache of an older election does not answer for a newer one
    h.elect(p, 4)
    h.coordinator.partitions.transition(p, CoordinatorState.ACTIVE)
    assert h.init("t").result.error == E.NOT_COORDINATOR


def test_a_write_that_completes_after_the_partition_moved_is_not_taken(h: Harness) -> None:
    r = h.init_ok("t")
    h.log.auto = False
    box = h.add("t", r.producer_id, 0, TP)
    p = h.coordinator.partition_for("t")
    h.resign(p, 0)
    h.load(p, 1, {"t": h.log.replay(p).transactions["t"]})
    h.log.last.complete()
    assert box.result == E.NOT_COORDINATOR
    assert h.metadata("t").state is S.EMPTY


def test_a_reload_finishes_the_transactions_left_preparing(h: Harness) -> None:
    committed = begin(h, "c", TP)
    begin(h, "o", TP2)
    h.end("c", committed.producer_id, 0, True)
    assert h.metadata("c").state is S.PREPARE_COMMIT
    # the broker dies before the markers are written; another one loads the log
    again = Harness()
    for p in range(PARTITIONS):
        replayed = h.log.replay(p).transactions
        again.resign(p, 0)
        again.load(p, 5, replayed, now_ms=T0 + 1000)
    c, o = again.metadata("c"), again.metadata("o")
    assert (c.state, c.pending_state, c.topic_partitions) == (S.PREPARE_COMMIT,
                                                              S.COMPLETE_COMMIT, {TP})
    assert (o.state, o.topic_partitions, o.producer_id) == (S.ONGOING, {TP2}, 1001)
    [entry] = again.answer_markers(1)
    assert (entry.commit, entry.coordinator_epoch, entry.producer_id) == (True, 5, 1000)
    assert again.metadata("c").state is S.COMPLETE_COMMIT
    # the ongoing one times out from its own start time
    assert again.coordinator.abort_timed_out_transactions(T0 + TIMEOUT + 1) == 1


def test_markers_of_a_partition_no_longer_led_are_dropped(h: Harness) -> None:
    r = begin(h, "t", TP)
    h.end("t", r.producer_id, 0, True)
    assert h.coordinator.transactions_with_pending_markers == 1
    h.resign(h.coordinator.partition_for("t"), 0)
    assert h.coordinator.queues.waiting() == 0
    assert h.coordinator.transactions_with_pending_markers == 0


# -- DescribeTransactions / ListTransactions -------------------------------------------------------


def test_describe(h: Harness) -> None:
    r = begin(h, "t", TP2, TP, ("a", 3), now_ms=T0 + 5)
    d = h.coordinator.describe_transaction("t")
    assert (d.error, d.state, d.producer_id, d.producer_epoch, d.transaction_timeout_ms,
            d.transaction_start_time_ms, d.topics) == (
        E.NONE, "Ongoing", r.producer_id, 0, TIMEOUT, T0 + 5, {"a": [3], "orders": [0, 1]})
    assert h.coordinator.describe_transaction("nope").error == E.TRANSACTIONAL_ID_NOT_FOUND
    assert h.coordinator.describe_transaction("").error == E.INVALID_REQUEST
    h.coordinator.shutdown()
    assert h.coordinator.describe_transaction("t").error == E.COORDINATOR_NOT_AVAILABLE


def test_list_filters(h: Harness) -> None:
    a = h.init_ok("a", now_ms=T0)
    begin(h, "b", TP, now_ms=T0 + 1000)
    listed = h.coordinator.list_transactions(set(), set(), -1, T0 + 2000)
    assert sorted((t.transactional_id, t.state.value) for t in listed.transactions) == [
        ("a", "Empty"), ("b", "Ongoing")]
    by_state = h.coordinator.list_transactions(set(), {"Ongoing", "Bogus"}, -1, T0 + 2000)
    assert [t.transactional_id for t in by_state.transactions] == ["b"]
    assert by_state.unknown_state_filters == ["Bogus"]
    by_pid = h.coordinator.list_transactions({a.producer_id}, set(), -1, T0 + 2000)
    assert [t.transactional_id for t in by_pid.transactions] == ["a"]
    # v1: running longer than the duration (an Empty one has no start, so it always is)
    longer = h.coordinator.list_transactions(set(), set(), 1000, T0 + 2000)
    assert sorted(t.transactional_id for t in longer.transactions) == ["a"]
    longer = h.coordinator.list_transactions(set(), set(), 999, T0 + 2000)
    assert sorted(t.transactional_id for t in longer.transactions) == ["a", "b"]


def test_loaded_metadata_is_the_one_served() -> None:
    h = Harness()
    m = TransactionMetadata.new("t", 77, TIMEOUT, T0)
    m.producer_epoch = 4
    p = h.coordinator.partition_for("t")
    h.resign(p, 0)
    h.load(p, 1, {"t": m})
    assert h.init_ok("t").producer_epoch == 5
