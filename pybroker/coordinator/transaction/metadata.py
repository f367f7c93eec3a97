"""What the coordinator knows of one transactional id, and the transitions it prepares.

A change of state is two steps, as in Kafka's ``TransactionMetadata``:

1. ``prepare_*`` checks the transition against the state table, sets :attr:`pending_state`
   (so that no other request starts a transition meanwhile: CONCURRENT_TRANSACTIONS) and
   returns the target as an immutable :class:`TxnTransitMetadata`, which is what gets written
   to ``__transaction_state``;
2. once the record is replicated, :meth:`TransactionMetadata.complete_transition_to` takes the
   target over (after checking it is the one prepared); a failed write instead clears the
   pending state (:meth:`TransactionMetadata.abandon_pending`).

Producer ids and epochs follow KIP-98 and KIP-360: every InitProducerId bumps the epoch (a new
id starts at epoch 0), a producer that names its current id and epoch may bump it again after a
failure, a retry of a bump that succeeded is recognised through the last epoch, and an id whose
epoch reaches ``Short.MAX_VALUE - 1`` is replaced by a new producer id (the old one is kept as
the last producer id).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import NoReturn

from protocol.errors import ErrorCode
from pybroker.kernel.types import TopicPartition

from .state import TransactionState, check_transition

log = logging.getLogger(__name__)

S = TransactionState

NO_PRODUCER_ID = -1
NO_PRODUCER_EPOCH = -1
SHORT_MAX = 32767


def is_epoch_exhausted(producer_epoch: int) -> bool:
    """Kafka keeps ``Short.MAX_VALUE`` for fencing: a producer never gets an epoch above
    ``Short.MAX_VALUE - 1``, so the coordinator can always bump once more."""
    return producer_epoch >= SHORT_MAX - 1


class TransitionError(RuntimeError):
    """A transition the metadata cannot take (a bug, never a client's error)."""


@dataclass(frozen=True, slots=True)
class TxnTransitMetadata:
    """The target of a prepared transition: what is written to the log, then taken over."""

    producer_id: int
    last_producer_id: int
    producer_epoch: int
    last_producer_epoch: int
    txn_timeout_ms: int
    txn_state: TransactionState
    topic_partitions: frozenset[TopicPartition]
    txn_start_timestamp: int
    txn_last_update_timestamp: int


@dataclass(slots=True, eq=False)
class TransactionMetadata:
    """One transactional id (Kafka's ``TransactionMetadata``).

    ``txn_start_timestamp`` is when the current transaction added its first partition (-1
    between transactions); ``txn_last_update_timestamp`` moves with every completed transition
    and is what ``transactional.id.expiration.ms`` is measured from.
    """

    transactional_id: str
    producer_id: int
    last_producer_id: int
    producer_epoch: int
    last_producer_epoch: int
    txn_timeout_ms: int
    state: TransactionState
    topic_partitions: set[TopicPartition] = field(default_factory=set)
    txn_start_timestamp: int = -1
    txn_last_update_timestamp: int = -1
    #: the state a transition in flight goes to (its record is being written)
    pending_state: TransactionState | None = None
    #: a fencing epoch bump whose write failed: the next fence reuses the bumped epoch
    has_failed_epoch_fence: bool = False

    @classmethod
    def new(cls, transactional_id: str, producer_id: int, txn_timeout_ms: int,
            now_ms: int) -> TransactionMetadata:
        """A transactional id seen for the first time: Empty, with no epoch yet."""
        return cls(transactional_id, producer_id, NO_PRODUCER_ID, NO_PRODUCER_EPOCH,
                   NO_PRODUCER_EPOCH, txn_timeout_ms, S.EMPTY, set(), -1, now_ms)

    # -- queries -------------------------------------------------------------------------------

    @property
    def pending_transition_in_progress(self) -> bool:
        return self.pending_state is not None

    @property
    def is_producer_epoch_exhausted(self) -> bool:
        return is_epoch_exhausted(self.producer_epoch)

    @property
    def has_pending_transaction(self) -> bool:
        return self.state in (S.ONGOING, S.PREPARE_ABORT, S.PREPARE_COMMIT)

    def as_transit(self) -> TxnTransitMetadata:
        """The current state as a transit, without preparing anything."""
        return TxnTransitMetadata(
            self.producer_id, self.last_producer_id, self.producer_epoch,
            self.last_producer_epoch, self.txn_timeout_ms, self.state,
            frozenset(self.topic_partitions), self.txn_start_timestamp,
            self.txn_last_update_timestamp)

    # -- preparing transitions -----------------------------------------------------------------

    def _prepare(self, new_state: TransactionState, producer_id: int, epoch: int,
                 last_epoch: int, txn_timeout_ms: int,
                 partitions: frozenset[TopicPartition], txn_start_timestamp: int,
                 update_timestamp: int) -> TxnTransitMetadata:
        if self.pending_state is not None:
            raise TransitionError(
                f"{self.transactional_id}: preparing a transition to {new_state} while "
                f"{self.pending_state} is pending")
        if producer_id < 0:
            raise TransitionError(f"{self.transactional_id}: illegal new producer id {producer_id}")
        if new_state is not S.DEAD and epoch < 0:
            raise TransitionError(f"{self.transactional_id}: illegal new producer epoch {epoch}")
        check_transition(self.transactional_id, self.state, new_state)
        self.pending_state = new_state
        return TxnTransitMetadata(producer_id, self.producer_id, epoch, last_epoch,
                                  txn_timeout_ms, new_state, partitions, txn_start_timestamp,
                                  update_timestamp)

    def prepare_fence_producer_epoch(self) -> TxnTransitMetadata:
        """Bump the epoch to fence the current producer before aborting its transaction (an
        InitProducerId of a newer producer, or a timeout). After a failed fence the epoch was
        already bumped in memory, so it is not bumped twice."""
        if self.producer_epoch == SHORT_MAX:
            raise TransitionError(f"{self.transactional_id}: cannot fence producer epoch "
                                  f"{SHORT_MAX}, it would overflow")
        epoch = self.producer_epoch if self.has_failed_epoch_fence else self.producer_epoch + 1
        return self._prepare(S.PREPARE_EPOCH_FENCE, self.producer_id, epoch, NO_PRODUCER_EPOCH,
                             self.txn_timeout_ms, frozenset(self.topic_partitions),
                             self.txn_start_timestamp, self.txn_last_update_timestamp)

    def prepare_increment_producer_epoch(
        self, new_txn_timeout_ms: int, expected_producer_epoch: int | None,
        update_timestamp: int,
    ) -> TxnTransitMetadata | ErrorCode:
        """InitProducerId on an id between transactions: the next epoch, or PRODUCER_FENCED
        when the producer names an epoch that is neither the current nor the last one
        (KIP-360)."""
        if self.is_producer_epoch_exhausted:
            raise TransitionError(f"{self.transactional_id}: no producer epochs left for "
                                  f"producer id {self.producer_id}")
        bumped = self.producer_epoch + 1
        if expected_producer_epoch is None:
            # a new producer: bump, and forget the last epoch (an old producer cannot retry)
            epoch, last_epoch = bumped, NO_PRODUCER_EPOCH
        elif (self.producer_epoch == NO_PRODUCER_EPOCH
              or expected_producer_epoch == self.producer_epoch):
            # the producer resumes after an error and nobody else took over: bump
            epoch, last_epoch = bumped, self.producer_epoch
        elif expected_producer_epoch == self.last_producer_epoch:
            # a retry of a bump that succeeded: answer the current epoch again
            epoch, last_epoch = self.producer_epoch, self.last_producer_epoch
        else:
            log.info("Expected producer epoch %d of %s does not match the current epoch %d or "
                     "the previous epoch %d", expected_producer_epoch, self.transactional_id,
                     self.producer_epoch, self.last_producer_epoch)
            return ErrorCode.PRODUCER_FENCED
        return self._prepare(S.EMPTY, self.producer_id, epoch, last_epoch, new_txn_timeout_ms,
                             frozenset(), -1, update_timestamp)

    def prepare_producer_id_rotation(self, new_producer_id: int, new_txn_timeout_ms: int,
                                     update_timestamp: int,
                                     record_last_epoch: bool) -> TxnTransitMetadata:
        """A new producer id at epoch 0 once the epochs of the current one are used up."""
        if self.has_pending_transaction:
            raise TransitionError(f"{self.transactional_id}: cannot rotate producer ids while a "
                                  f"transaction is pending")
        last_epoch = self.producer_epoch if record_last_epoch else NO_PRODUCER_EPOCH
        return self._prepare(S.EMPTY, new_producer_id, 0, last_epoch, new_txn_timeout_ms,
                             frozenset(), -1, update_timestamp)

    def prepare_add_partitions(self, added: frozenset[TopicPartition],
                               update_timestamp: int) -> TxnTransitMetadata:
        """Ongoing with ``added`` among its partitions; a first partition starts the
        transaction's clock."""
        if self.state in (S.EMPTY, S.COMPLETE_ABORT, S.COMPLETE_COMMIT):
            start = update_timestamp
        else:
            start = self.txn_start_timestamp
        return self._prepare(S.ONGOING, self.producer_id, self.producer_epoch,
                             self.last_producer_epoch, self.txn_timeout_ms,
                             frozenset(self.topic_partitions | added), start, update_timestamp)

    def prepare_abort_or_commit(self, new_state: TransactionState,
                                update_timestamp: int) -> TxnTransitMetadata:
        return self._prepare(new_state, self.producer_id, self.producer_epoch,
                             self.last_producer_epoch, self.txn_timeout_ms,
                             frozenset(self.topic_partitions), self.txn_start_timestamp,
                             update_timestamp)

    def prepare_complete(self, update_timestamp: int) -> TxnTransitMetadata:
        """CompleteCommit or CompleteAbort, once every partition has its marker."""
        new_state = S.COMPLETE_COMMIT if self.state is S.PREPARE_COMMIT else S.COMPLETE_ABORT
        # the fence was written with the PrepareAbort that led here
        self.has_failed_epoch_fence = False
        return self._prepare(new_state, self.producer_id, self.producer_epoch,
                             self.last_producer_epoch, self.txn_timeout_ms, frozenset(),
                             self.txn_start_timestamp, update_timestamp)

    def prepare_dead(self) -> TxnTransitMetadata:
        return self._prepare(S.DEAD, self.producer_id, self.producer_epoch,
                             self.last_producer_epoch, self.txn_timeout_ms, frozenset(),
                             self.txn_start_timestamp, self.txn_last_update_timestamp)

    # -- completing transitions ----------------------------------------------------------------

    def complete_transition_to(self, transit: TxnTransitMetadata) -> None:
        """Take over a prepared transition once its record is replicated, checking that it is
        the one prepared and consistent with the current state (Kafka's checks)."""
        to_state = self.pending_state
        if to_state is None:
            raise TransitionError(f"{self.transactional_id}: completing a transition to "
                                  f"{transit.txn_state} without a pending state")
        if to_state is not transit.txn_state:
            self._fail(transit)
        if to_state is S.EMPTY:  # InitProducerId
            if ((self.producer_epoch != transit.producer_epoch
                 and not self._valid_producer_epoch_bump(transit))
                    or transit.topic_partitions or transit.txn_start_timestamp != -1):
                self._fail(transit)
            self.txn_timeout_ms = transit.txn_timeout_ms
            self.producer_epoch = transit.producer_epoch
            self.last_producer_epoch = transit.last_producer_epoch
            self.producer_id = transit.producer_id
            self.last_producer_id = transit.last_producer_id
        elif to_state is S.ONGOING:  # AddPartitionsToTxn, AddOffsetsToTxn
            if (not self._valid_producer_epoch(transit)
                    or not self.topic_partitions <= transit.topic_partitions
                    or self.txn_timeout_ms != transit.txn_timeout_ms):
                self._fail(transit)
            self.txn_start_timestamp = transit.txn_start_timestamp
            self.topic_partitions |= transit.topic_partitions
        elif to_state in (S.PREPARE_ABORT, S.PREPARE_COMMIT):  # EndTxn
            if (not self._valid_producer_epoch(transit)
                    or self.topic_partitions != transit.topic_partitions
                    or self.txn_timeout_ms != transit.txn_timeout_ms
                    or self.txn_start_timestamp != transit.txn_start_timestamp):
                self._fail(transit)
        elif to_state in (S.COMPLETE_ABORT, S.COMPLETE_COMMIT):  # the markers are written
            if (not self._valid_producer_epoch(transit)
                    or self.txn_timeout_ms != transit.txn_timeout_ms
                    or transit.txn_start_timestamp == -1):
                self._fail(transit)
            self.txn_start_timestamp = transit.txn_start_timestamp
            self.topic_partitions.clear()
        else:
            # PrepareEpochFence is only ever pending (it becomes PrepareAbort before any
            # write); Dead ends in the removal of the id, never in a completed transition
            self._fail(transit)
        self.txn_last_update_timestamp = transit.txn_last_update_timestamp
        self.pending_state = None
        self.state = to_state

    def abandon_pending(self) -> None:
        """The prepared transition will not happen (its write failed)."""
        self.pending_state = None

    def remove_partition(self, tp: TopicPartition) -> None:
        """A partition whose marker is written (or that no longer exists)."""
        if self.state not in (S.PREPARE_COMMIT, S.PREPARE_ABORT):
            raise TransitionError(f"{self.transactional_id}: removing {tp} whose marker was "
                                  f"sent, in state {self.state} (pending {self.pending_state})")
        self.topic_partitions.discard(tp)

    def _valid_producer_epoch(self, transit: TxnTransitMetadata) -> bool:
        return (transit.producer_epoch == self.producer_epoch
                and transit.producer_id == self.producer_id)

    def _valid_producer_epoch_bump(self, transit: TxnTransitMetadata) -> bool:
        return (transit.producer_epoch == self.producer_epoch + 1
                or (transit.producer_epoch == 0 and transit.producer_id != self.producer_id))

    def _fail(self, transit: TxnTransitMetadata) -> NoReturn:
        raise TransitionError(f"{self.transactional_id}: the transition of {self} to "
                              f"{transit} does not follow from the current metadata")
