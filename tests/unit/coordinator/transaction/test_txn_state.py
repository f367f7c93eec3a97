"""The transaction state table, against Kafka 3.9's ``TransactionState.validPreviousStates``, and
the transitions TransactionMetadata prepares and completes."""

from __future__ import annotations

import pytest

from protocol.errors import ErrorCode as E
from pybroker.coordinator.transaction import (
    IllegalStateTransition,
    TransactionMetadata,
    TransactionState,
    TransitionError,
)
from pybroker.coordinator.transaction.metadata import is_epoch_exhausted
from pybroker.coordinator.transaction.state import VALID_PREVIOUS_STATES, legal_transitions

S = TransactionState

#: Kafka 3.9's table, written out from its source (TransactionMetadata.scala)
KAFKA = {
    "Empty": {"Empty", "CompleteCommit", "CompleteAbort"},
    "Ongoing": {"Ongoing", "Empty", "CompleteCommit", "CompleteAbort"},
    "PrepareCommit": {"Ongoing"},
    "PrepareAbort": {"Ongoing", "PrepareEpochFence"},
    "CompleteCommit": {"PrepareCommit"},
    "CompleteAbort": {"PrepareAbort"},
    "Dead": {"Empty", "CompleteAbort", "CompleteCommit"},
    "PrepareEpochFence": {"Ongoing"},
}


def test_the_table_is_kafkas() -> None:
    assert {t.value: {s.value for s in sources}
            for t, sources in VALID_PREVIOUS_STATES.items()} == KAFKA
    assert len(list(legal_transitions())) == sum(len(v) for v in KAFKA.values())


def test_state_ids_are_the_ones_the_log_stores() -> None:
    assert [s.id for s in S] == [0, 1, 2, 3, 4, 5, 6, 7]
    assert [S.from_id(i).value for i in range(8)] == [
        "Empty", "Ongoing", "PrepareCommit", "PrepareAbort", "CompleteCommit",
        "CompleteAbort", "Dead", "PrepareEpochFence"]
    with pytest.raises(ValueError):
        S.from_id(8)


def test_names_are_matched_exactly() -> None:
    assert S.from_name("Ongoing") is S.ONGOING
    assert S.from_name("ongoing") is None  # Kafka's fromName is case-sensitive


def test_only_states_between_transactions_may_expire() -> None:
    assert {s for s in S if s.is_expiration_allowed} == {
        S.EMPTY, S.COMPLETE_COMMIT, S.COMPLETE_ABORT}


def meta(state: S = S.EMPTY, epoch: int = 0) -> TransactionMetadata:
    m = TransactionMetadata.new("t", 7, 1000, 10)
    m.state, m.producer_epoch = state, epoch
    return m


def test_an_illegal_transition_is_refused_and_leaves_nothing_pending() -> None:
    m = meta(S.EMPTY)
    with pytest.raises(IllegalStateTransition):
        m.prepare_abort_or_commit(S.PREPARE_COMMIT, 20)
    assert m.pending_state is None


def test_a_second_transition_cannot_be_prepared_while_one_is_pending() -> None:
    m = meta(S.EMPTY)
    m.prepare_add_partitions(frozenset({("a", 0)}), 20)
    with pytest.raises(TransitionError):
        m.prepare_add_partitions(frozenset({("a", 1)}), 21)


def test_adding_partitions_starts_the_transaction_clock_once() -> None:
    m = meta(S.EMPTY)
    m.complete_transition_to(m.prepare_add_partitions(frozenset({("a", 0)}), 20))
    assert (m.state, m.txn_start_timestamp, m.topic_partitions) == (S.ONGOING, 20, {("a", 0)})
    m.complete_transition_to(m.prepare_add_partitions(frozenset({("b", 0)}), 30))
    assert m.txn_start_timestamp == 20 and m.txn_last_update_timestamp == 30
    assert m.topic_partitions == {("a", 0), ("b", 0)}


def test_completing_a_transition_other_than_the_prepared_one_fails() -> None:
    m = meta(S.ONGOING)
    m.topic_partitions.add(("a", 0))
    m.txn_start_timestamp = 5
    other = meta(S.ONGOING)
    other.topic_partitions.add(("a", 0))
    transit = other.prepare_abort_or_commit(S.PREPARE_ABORT, 20)
    m.prepare_abort_or_commit(S.PREPARE_COMMIT, 20)
    with pytest.raises(TransitionError):
        m.complete_transition_to(transit)


def test_epoch_bumps() -> None:
    m = TransactionMetadata.new("t", 7, 1000, 10)
    first = m.prepare_increment_producer_epoch(1000, None, 20)
    assert not isinstance(first, E)
    assert (first.producer_epoch, first.last_producer_epoch) == (0, -1)
    m.complete_transition_to(first)
    # KIP-360: the producer names its epoch and bumps it; a retry of that bump gets the same
    again = m.prepare_increment_producer_epoch(1000, 0, 30)
    assert not isinstance(again, E)
    assert (again.producer_epoch, again.last_producer_epoch) == (1, 0)
    m.complete_transition_to(again)
    retry = m.prepare_increment_producer_epoch(1000, 0, 40)
    assert not isinstance(retry, E)
    assert (retry.producer_epoch, retry.last_producer_epoch) == (1, 0)
    m.abandon_pending()
    assert m.prepare_increment_producer_epoch(1000, 5, 40) == E.PRODUCER_FENCED


def test_the_last_epochs_are_kept_for_fencing() -> None:
    assert not is_epoch_exhausted(32765)
    assert is_epoch_exhausted(32766)
    m = meta(S.ONGOING, epoch=32767)
    with pytest.raises(TransitionError):
        m.prepare_fence_producer_epoch()
    m = meta(S.EMPTY, epoch=32766)
    with pytest.raises(TransitionError):
        m.prepare_increment_producer_epoch(1000, None, 20)
    rotated = m.prepare_producer_id_rotation(8, 1000, 20, record_last_epoch=True)
    assert (rotated.producer_id, rotated.producer_epoch, rotated.last_producer_id,
            rotated.last_producer_epoch) == (8, 0, 7, 32766)


def test_a_failed_fence_is_not_bumped_twice() -> None:
    m = meta(S.ONGOING, epoch=3)
    assert m.prepare_fence_producer_epoch().producer_epoch == 4
    m.abandon_pending()
    m.has_failed_epoch_fence = True
    assert m.prepare_fence_producer_epoch().producer_epoch == 3


def test_markers_leave_only_while_preparing_the_end() -> None:
    m = meta(S.ONGOING)
    m.topic_partitions.add(("a", 0))
    with pytest.raises(TransitionError):
        m.remove_partition(("a", 0))
    m.state = S.PREPARE_COMMIT
    m.remove_partition(("a", 0))
    assert not m.topic_partitions
