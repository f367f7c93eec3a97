"""The transaction coordinator's logic (Kafka's ``TransactionCoordinator`` with the completion
half of its marker channel), clock-free and without I/O.

Requests
--------
* InitProducerId with a transactional id (:meth:`TransactionCoordinator.init_producer_id`):
  a new id gets a producer id at epoch 0; a known one between transactions gets its epoch
  bumped, or a new producer id once the epochs run out; KIP-360's expected producer id and
  epoch let a producer bump its own epoch after an error, and a retry of a bump that
  succeeded gets the same answer. A transaction still open is aborted first with a fencing
  epoch bump (PrepareEpochFence, then PrepareAbort): the old producer is fenced and the new
  one answered CONCURRENT_TRANSACTIONS until the abort is complete, when its retry bumps
  again.
* AddPartitionsToTxn and AddOffsetsToTxn (:meth:`add_partitions_to_transaction`), and the
  KIP-890 verification leaders ask for (:meth:`verify_partitions_in_transaction`).
* EndTxn (:meth:`end_transaction`): PrepareCommit or PrepareAbort is written, the client
  answered, and the markers queued; CompleteCommit or CompleteAbort is written once every
  partition has its marker.
* DescribeTransactions and ListTransactions.

Background work the service drives: aborting transactions past their timeout (with an epoch
bump, so the producer is fenced), expiring idle transactional ids, loading and unloading
partitions, feeding WriteTxnMarkers answers back.

Every entry point takes ``now_ms``; answers go to ``respond`` callbacks, at once or when a
write completes. Producer ids come from a :class:`ProducerIdSource`, which may answer later.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Protocol

from protocol.errors import ErrorCode
from pybroker.coordinator.runtime.state import CoordinatorPartitions
from pybroker.kernel.types import TopicPartition

from .manager import Found, ListTransactionsResult, TransactionLog, TransactionStateManager
from .markers import UNKNOWN_DESTINATION, MarkerEntry, MarkerQueues, PendingCompleteTxn
from .metadata import (
    NO_PRODUCER_EPOCH,
    NO_PRODUCER_ID,
    TransactionMetadata,
    TransitionError,
    TxnTransitMetadata,
    is_epoch_exhausted,
)
from .state import TransactionState
from .storage import TransactionConfig

log = logging.getLogger(__name__)

E = ErrorCode
S = TransactionState


@dataclass(frozen=True, slots=True)
class InitProducerIdResult:
    producer_id: int
    producer_epoch: int
    error: ErrorCode = E.NONE

    @classmethod
    def failed(cls, error: ErrorCode) -> InitProducerIdResult:
        return cls(NO_PRODUCER_ID, NO_PRODUCER_EPOCH, error)


@dataclass(slots=True)
class DescribedTransaction:
    """DescribeTransactions' answer for one id (an error leaves the rest at the response's
    defaults, zeros, as Kafka's does)."""

    transactional_id: str
    error: ErrorCode = E.NONE
    state: str = ""
    producer_id: int = 0
    producer_epoch: int = 0
    transaction_timeout_ms: int = 0
    transaction_start_time_ms: int = 0
    topics: dict[str, list[int]] = field(default_factory=dict)


class ProducerIdSource(Protocol):
    def generate(self, done: Callable[[int | ErrorCode, int], None]) -> None:
        """Call ``done(producer id, now_ms)``, or ``done(error, now_ms)`` when none can be
        had (possibly before returning)."""
        ...


#: a partition's leader: its broker id, UNKNOWN_DESTINATION when the leader is not alive,
#: None when the partition does not exist (its topic was deleted)
LeaderLookup = Callable[[str, int], int | None]

#: WriteTxnMarkers partition errors: the partition has its marker, or is gone for good
_MARKER_DONE = frozenset({E.NONE, E.UNSUPPORTED_FOR_MESSAGE_FORMAT, E.UNSUPPORTED_VERSION})
#: ... worth sending again (to the leader looked up anew)
_MARKER_RETRIABLE = frozenset({
    E.UNKNOWN_TOPIC_OR_PARTITION, E.NOT_LEADER_OR_FOLLOWER, E.NOT_ENOUGH_REPLICAS,
    E.NOT_ENOUGH_REPLICAS_AFTER_APPEND, E.REQUEST_TIMED_OUT, E.KAFKA_STORAGE_ERROR})
#: ... a newer producer epoch or coordinator wrote (or will write) this partition's marker
_MARKER_OBSOLETE = frozenset({E.INVALID_PRODUCER_EPOCH, E.TRANSACTION_COORDINATOR_FENCED})

Respond = Callable[[ErrorCode], None]


class TransactionCoordinator:
    def __init__(self, config: TransactionConfig, log_writer: TransactionLog,
                 producer_ids: ProducerIdSource, leader_of: LeaderLookup, *,
                 partition_count: Callable[[], int] | None = None,
                 on_markers_queued: Callable[[int], None] | None = None,
                 on_completion_retry: Callable[[], None] | None = None,
                 partitions: CoordinatorPartitions | None = None) -> None:
        """``partitions``: the coordinator runtime's table of which partitions of
        ``__transaction_state`` are loading and loaded here (requests are answered from it)."""
        self.config = config
        self.state_manager = TransactionStateManager(config, log_writer, partition_count,
                                                     partitions)
        self.partitions = self.state_manager.partitions
        self.producer_ids = producer_ids
        self.leader_of = leader_of
        self.queues = MarkerQueues()
        #: told the destination whenever markers are queued for it
        self.on_markers_queued = on_markers_queued or (lambda _destination: None)
        #: told when a completion must be written again (:meth:`retry_completions`)
        self.on_completion_retry = on_completion_retry or (lambda: None)
        self._pending_markers: dict[str, PendingCompleteTxn] = {}
        self._completion_retries: list[PendingCompleteTxn] = []
        self._active = False

    # -- life cycle ----------------------------------------------------------------------------

    def startup(self) -> None:
        self._active = True

    def shutdown(self) -> None:
        self._active = False
        self.state_manager.shutdown()
        self._pending_markers.clear()
        self._completion_retries.clear()
        for destination in self.queues.destinations():
            self.queues.drain(destination)

    @property
    def is_active(self) -> bool:
        return self._active

    def partition_for(self, transactional_id: str) -> int:
        return self.state_manager.partition_for(transactional_id)

    # -- InitProducerId ------------------------------------------------------------------------

    def init_producer_id(self, transactional_id: str, transaction_timeout_ms: int,
                         expected: tuple[int, int] | None, now_ms: int,
                         respond: Callable[[InitProducerIdResult], None],
                         spare_producer_id: int | None = None) -> None:
        """InitProducerId for a transactional id; ``expected`` is KIP-360's (producer id,
        epoch). ``spare_producer_id`` is a producer id fetched for this request: the request
        runs again once one arrives, so everything is checked again against the state of that
        moment."""
        if transactional_id == "":
            respond(InitProducerIdResult.failed(E.INVALID_REQUEST))
            return
        if not self.state_manager.validate_transaction_timeout_ms(transaction_timeout_ms):
            respond(InitProducerIdResult.failed(E.INVALID_TRANSACTION_TIMEOUT))
            return

        def with_producer_id(pid: int, later_ms: int) -> None:
            self.init_producer_id(transactional_id, transaction_timeout_ms, expected, later_ms,
                                  respond, pid)

        found = self.state_manager.get_transaction_state(transactional_id)
        if isinstance(found, ErrorCode):
            respond(InitProducerIdResult.failed(found))
            return
        if found.metadata is None:
            if spare_producer_id is None:
                self._generate_producer_id(with_producer_id, respond)
                return
            created = TransactionMetadata.new(transactional_id, spare_producer_id,
                                              transaction_timeout_ms, now_ms)
            found = self.state_manager.get_transaction_state(transactional_id, create=created)
            if isinstance(found, ErrorCode):
                respond(InitProducerIdResult.failed(found))
                return
            spare_producer_id = None
        coordinator_epoch, metadata = found.coordinator_epoch, found.metadata
        assert metadata is not None

        prepared = self._prepare_init_producer_id(transactional_id, transaction_timeout_ms,
                                                  metadata, expected, spare_producer_id, now_ms)
        if prepared is None:  # a new producer id is needed first
            self._generate_producer_id(with_producer_id, respond)
            return
        if isinstance(prepared, ErrorCode):
            respond(InitProducerIdResult.failed(prepared))
            return
        transit = prepared
        if transit.txn_state is S.PREPARE_EPOCH_FENCE:
            # abort the ongoing transaction first; the client retries and bumps again
            def fenced(error: ErrorCode, _done_ms: int) -> None:
                respond(InitProducerIdResult.failed(error or E.CONCURRENT_TRANSACTIONS))

            self._end_transaction(transactional_id, transit.producer_id, transit.producer_epoch,
                                  False, False, now_ms, fenced)
            return

        def written(error: ErrorCode, _done_ms: int) -> None:
            if error:
                log.info("Returning %s to %s's InitProducerId request", error.name,
                         transactional_id)
                respond(InitProducerIdResult.failed(error))
                return
            log.info("Initialized transactional id %s with producer id %d and producer epoch "
                     "%d on partition %d", transactional_id, transit.producer_id,
                     transit.producer_epoch, self.partition_for(transactional_id))
            respond(InitProducerIdResult(transit.producer_id, transit.producer_epoch))

        self.state_manager.append_transaction_to_log(transactional_id, coordinator_epoch,
                                                     transit, now_ms, written)

    def _generate_producer_id(self, then: Callable[[int, int], None],
                              respond: Callable[[InitProducerIdResult], None]) -> None:
        def done(result: int | ErrorCode, now_ms: int) -> None:
            if isinstance(result, ErrorCode):
                respond(InitProducerIdResult.failed(result))
            else:
                then(result, now_ms)

        self.producer_ids.generate(done)

    def _prepare_init_producer_id(
        self, transactional_id: str, transaction_timeout_ms: int,
        metadata: TransactionMetadata, expected: tuple[int, int] | None,
        spare_producer_id: int | None, now_ms: int,
    ) -> TxnTransitMetadata | ErrorCode | None:
        """The transition InitProducerId asks for, an error, or None when a new producer id
        is needed and ``spare_producer_id`` is not there."""
        if metadata.pending_transition_in_progress:
            return E.CONCURRENT_TRANSACTIONS  # let the client back off and retry
        if expected is not None and not self._is_valid_producer_id(metadata, *expected):
            return E.PRODUCER_FENCED
        state = metadata.state
        if state in (S.PREPARE_ABORT, S.PREPARE_COMMIT):
            return E.CONCURRENT_TRANSACTIONS
        if state in (S.COMPLETE_ABORT, S.COMPLETE_COMMIT, S.EMPTY):
            if metadata.is_producer_epoch_exhausted and (
                    expected is None or expected[1] == metadata.producer_epoch):
                if spare_producer_id is None:
                    return None
                return metadata.prepare_producer_id_rotation(
                    spare_producer_id, transaction_timeout_ms, now_ms, expected is not None)
            return metadata.prepare_increment_producer_epoch(
                transaction_timeout_ms, expected[1] if expected is not None else None, now_ms)
        if state is S.ONGOING:
            # Fence the producer and abort its transaction. The bumped epoch is never
            # returned: the client gets CONCURRENT_TRANSACTIONS and retries, which bumps again
            # (onto a new producer id if this bump used the last epoch).
            return metadata.prepare_fence_producer_epoch()
        raise RuntimeError(f"found transactional id {transactional_id} in state {state}, "
                           f"which it never rests in")

    @staticmethod
    def _is_valid_producer_id(metadata: TransactionMetadata, producer_id: int,
                              epoch: int) -> bool:
        # KIP-360: a producer naming its id is fenced unless the metadata was just created
        # (it recovers from UNKNOWN_PRODUCER_ID), the id is the current one (the epoch is
        # checked when bumping), or it is the last one and its epoch was exhausted (a retry of
        # a bump that rotated the producer id)
        return (metadata.producer_epoch == NO_PRODUCER_EPOCH
                or producer_id == metadata.producer_id
                or (producer_id == metadata.last_producer_id and is_epoch_exhausted(epoch)))

    # -- AddPartitionsToTxn / AddOffsetsToTxn ----------------------------------------------------

    def add_partitions_to_transaction(self, transactional_id: str, producer_id: int,
                                      producer_epoch: int, partitions: frozenset[TopicPartition],
                                      now_ms: int, respond: Respond) -> None:
        if not transactional_id:
            respond(E.INVALID_REQUEST)
            return
        found = self.state_manager.get_transaction_state(transactional_id)
        if isinstance(found, ErrorCode):
            respond(found)
            return
        metadata = found.metadata
        if metadata is None:
            respond(E.INVALID_PRODUCER_ID_MAPPING)
            return
        if metadata.producer_id != producer_id:
            respond(E.INVALID_PRODUCER_ID_MAPPING)
            return
        if metadata.producer_epoch != producer_epoch:
            respond(E.PRODUCER_FENCED)
            return
        if metadata.pending_transition_in_progress or metadata.state in (S.PREPARE_COMMIT,
                                                                         S.PREPARE_ABORT):
            respond(E.CONCURRENT_TRANSACTIONS)
            return
        if metadata.state is S.ONGOING and partitions <= metadata.topic_partitions:
            respond(E.NONE)  # already there
            return
        transit = metadata.prepare_add_partitions(partitions, now_ms)
        self.state_manager.append_transaction_to_log(
            transactional_id, found.coordinator_epoch, transit, now_ms,
            lambda error, _done_ms: respond(error))

    def verify_partitions_in_transaction(self, transactional_id: str, producer_id: int,
                                         producer_epoch: int,
                                         partitions: frozenset[TopicPartition],
                                         ) -> dict[TopicPartition, ErrorCode]:
        """KIP-890's check before a leader appends transactional records: NONE for each
        partition already in the transaction, TRANSACTION_ABORTABLE for the others. A pending
        transition is not checked: the leader's append checks the epoch again."""
        if not transactional_id:
            return dict.fromkeys(partitions, E.INVALID_REQUEST)
        found = self.state_manager.get_transaction_state(transactional_id)
        error: ErrorCode
        if isinstance(found, ErrorCode):
            error = found
        elif found.metadata is None or found.metadata.producer_id != producer_id:
            error = E.INVALID_PRODUCER_ID_MAPPING
        elif found.metadata.producer_epoch != producer_epoch:
            error = E.PRODUCER_FENCED
        elif found.metadata.state in (S.PREPARE_COMMIT, S.PREPARE_ABORT):
            error = E.CONCURRENT_TRANSACTIONS
        else:
            added = found.metadata.topic_partitions
            return {tp: E.NONE if tp in added else E.TRANSACTION_ABORTABLE for tp in partitions}
        return dict.fromkeys(partitions, error)

    # -- EndTxn --------------------------------------------------------------------------------

    def end_transaction(self, transactional_id: str, producer_id: int, producer_epoch: int,
                        commit: bool, now_ms: int, respond: Respond) -> None:
        self._end_transaction(transactional_id, producer_id, producer_epoch, commit, True,
                              now_ms, lambda error, _done_ms: respond(error))

    def _end_transaction(self, transactional_id: str, producer_id: int, producer_epoch: int,
                         commit: bool, from_client: bool, now_ms: int,
                         respond: Callable[[ErrorCode, int], None]) -> None:
        if not transactional_id:
            respond(E.INVALID_REQUEST, now_ms)
            return
        result = "COMMIT" if commit else "ABORT"
        is_epoch_fence = False
        found = self.state_manager.get_transaction_state(transactional_id)
        if isinstance(found, ErrorCode):
            respond(found, now_ms)
            return
        metadata = found.metadata
        if metadata is None or metadata.producer_id != producer_id:
            respond(E.INVALID_PRODUCER_ID_MAPPING, now_ms)
            return
        # clients must name the current epoch; the coordinator's own aborts name a bumped one
        if ((from_client and producer_epoch != metadata.producer_epoch)
                or producer_epoch < metadata.producer_epoch):
            respond(E.PRODUCER_FENCED, now_ms)
            return
        if metadata.pending_state not in (None, S.PREPARE_EPOCH_FENCE):
            respond(E.CONCURRENT_TRANSACTIONS, now_ms)
            return
        state = metadata.state
        if state is S.ONGOING:
            next_state = S.PREPARE_COMMIT if commit else S.PREPARE_ABORT
            if next_state is S.PREPARE_ABORT and metadata.pending_state is S.PREPARE_EPOCH_FENCE:
                # the fence becomes this abort: its bumped epoch goes into the record
                is_epoch_fence = True
                metadata.pending_state = None
                metadata.producer_epoch = producer_epoch
                metadata.last_producer_epoch = NO_PRODUCER_EPOCH
            transit = metadata.prepare_abort_or_commit(next_state, now_ms)
        elif state in (S.COMPLETE_COMMIT, S.COMPLETE_ABORT):
            # a retry of an EndTxn that completed answers NONE; the other outcome is invalid
            same = (state is S.COMPLETE_COMMIT) == commit
            respond(E.NONE if same else self._invalid_state(transactional_id, state, result),
                    now_ms)
            return
        elif state in (S.PREPARE_COMMIT, S.PREPARE_ABORT):
            same = (state is S.PREPARE_COMMIT) == commit
            respond(E.CONCURRENT_TRANSACTIONS if same
                    else self._invalid_state(transactional_id, state, result), now_ms)
            return
        elif state is S.EMPTY:
            respond(self._invalid_state(transactional_id, state, result), now_ms)
            return
        else:
            raise RuntimeError(f"found transactional id {transactional_id} in state {state}, "
                               f"which it never rests in")
        coordinator_epoch = found.coordinator_epoch

        def prepared(error: ErrorCode, done_ms: int) -> None:
            if error:
                log.info("Not sending the markers of %s's %s: writing %s with coordinator epoch "
                         "%d failed with %s", transactional_id, result, transit.txn_state,
                         coordinator_epoch, error.name)
                if is_epoch_fence:
                    current = self.state_manager.get_transaction_state(transactional_id)
                    if (not isinstance(current, ErrorCode) and current.metadata is not None
                            and current.coordinator_epoch == coordinator_epoch):
                        # the bumped epoch is in memory but not in the log: do not bump again
                        current.metadata.has_failed_epoch_fence = True
                        log.warning("Writing the epoch fence of %s failed with %s; the epoch was "
                                    "raised to %d but not returned to the client",
                                    transactional_id, error.name, transit.producer_epoch)
                respond(error, done_ms)
                return
            self._send_markers_after_prepare(transactional_id, producer_id, producer_epoch,
                                             commit, coordinator_epoch, done_ms, respond)

        self.state_manager.append_transaction_to_log(transactional_id, coordinator_epoch,
                                                     transit, now_ms, prepared)

    def _send_markers_after_prepare(self, transactional_id: str, producer_id: int,
                                    producer_epoch: int, commit: bool, coordinator_epoch: int,
                                    now_ms: int, respond: Callable[[ErrorCode, int], None],
                                    ) -> None:
        result = "COMMIT" if commit else "ABORT"
        found = self.state_manager.get_transaction_state(transactional_id)
        error: ErrorCode | None = None
        if isinstance(found, ErrorCode):
            error = found
        elif found.metadata is None:
            log.error("The coordinator still owns the partition of %s but has no metadata for "
                      "it", transactional_id)
            error = E.NOT_COORDINATOR
        elif found.coordinator_epoch != coordinator_epoch:
            log.debug("The coordinator epoch of %s changed to %d after %s was written",
                      transactional_id, found.coordinator_epoch, result)
            error = E.NOT_COORDINATOR
        else:
            metadata = found.metadata
            if metadata.producer_id != producer_id:
                error = E.INVALID_PRODUCER_ID_MAPPING
            elif metadata.producer_epoch != producer_epoch:
                error = E.PRODUCER_FENCED
            elif metadata.pending_transition_in_progress:
                error = E.CONCURRENT_TRANSACTIONS
            elif metadata.state is (S.PREPARE_COMMIT if commit else S.PREPARE_ABORT):
                complete = metadata.prepare_complete(now_ms)
                # answer now, and write the markers
                respond(E.NONE, now_ms)
                self.add_txn_markers_to_send(coordinator_epoch, commit, metadata, complete,
                                             now_ms)
                return
            else:
                error = self._invalid_state(transactional_id, metadata.state, result)
        log.info("Not sending the markers of %s's %s: %s", transactional_id, result, error.name)
        respond(error, now_ms)

    @staticmethod
    def _invalid_state(transactional_id: str, state: TransactionState,
                       result: str) -> ErrorCode:
        log.debug("Transactional id %s is %s, but was asked to %s", transactional_id, state,
                  result)
        return E.INVALID_TXN_STATE

    # -- DescribeTransactions / ListTransactions -------------------------------------------------

    def describe_transaction(self, transactional_id: str) -> DescribedTransaction:
        described = DescribedTransaction(transactional_id)
        if not self._active:
            described.error = E.COORDINATOR_NOT_AVAILABLE
            return described
        if transactional_id == "":
            described.error = E.INVALID_REQUEST
            return described
        found = self.state_manager.get_transaction_state(transactional_id)
        if isinstance(found, ErrorCode):
            described.error = found
            return described
        metadata = found.metadata
        if metadata is None or metadata.state is S.DEAD:
            described.error = E.TRANSACTIONAL_ID_NOT_FOUND
            return described
        for topic, partition in sorted(metadata.topic_partitions):
            described.topics.setdefault(topic, []).append(partition)
        described.state = metadata.state.value
        described.producer_id = metadata.producer_id
        described.producer_epoch = metadata.producer_epoch
        described.transaction_timeout_ms = metadata.txn_timeout_ms
        described.transaction_start_time_ms = metadata.txn_start_timestamp
        return described

    def list_transactions(self, producer_ids: set[int], states: set[str], duration_ms: int,
                          now_ms: int) -> ListTransactionsResult:
        if not self._active:
            return ListTransactionsResult(error=E.COORDINATOR_NOT_AVAILABLE)
        return self.state_manager.list_transaction_states(producer_ids, states, duration_ms,
                                                          now_ms)

    # -- timeouts and expiry ---------------------------------------------------------------------

    def abort_timed_out_transactions(self, now_ms: int) -> int:
        """Abort every Ongoing transaction older than its timeout, fencing its producer with an
        epoch bump (the ``transaction-abort`` task). Returns how many aborts started."""
        started = 0
        for timed_out in self.state_manager.timed_out_transactions(now_ms):
            found = self.state_manager.get_transaction_state(timed_out.transactional_id)
            if isinstance(found, ErrorCode) or found.metadata is None:
                continue
            metadata = found.metadata
            if metadata.producer_id != timed_out.producer_id:
                log.error("Found producer id %d for %s while timing out producer id %d",
                          metadata.producer_id, timed_out.transactional_id,
                          timed_out.producer_id)
                continue
            if metadata.pending_transition_in_progress:
                continue
            try:
                fence = metadata.prepare_fence_producer_epoch()
            except TransitionError as exc:
                log.error("Cannot abort the timed out transaction of %s: %s",
                          timed_out.transactional_id, exc)
                continue
            started += 1

            def aborted(error: ErrorCode, _done_ms: int, txn: str = timed_out.transactional_id,
                        ) -> None:
                if error == E.NONE:
                    log.info("Completed rollback of ongoing transaction for transactional id %s "
                             "due to timeout", txn)
                elif error in (E.INVALID_PRODUCER_ID_MAPPING, E.PRODUCER_FENCED,
                               E.CONCURRENT_TRANSACTIONS):
                    log.debug("Rollback of %s's timed out transaction was cancelled: %s", txn,
                              error.name)
                else:
                    log.warning("Rollback of %s's timed out transaction failed: %s", txn,
                                error.name)

            self._end_transaction(metadata.transactional_id, fence.producer_id,
                                  fence.producer_epoch, False, False, now_ms, aborted)
        return started

    def remove_expired_transactional_ids(self, now_ms: int) -> int:
        return self.state_manager.remove_expired_transactional_ids(now_ms)

    # -- leadership of __transaction_state -------------------------------------------------------

    def on_election(self, partition: int, coordinator_epoch: int) -> None:
        """This broker leads ``partition`` in ``coordinator_epoch`` and loads it (the table
        says so: requests for its ids wait with COORDINATOR_LOAD_IN_PROGRESS) until
        :meth:`complete_loading`: markers queued under an older epoch are dropped."""
        log.info("Elected as the transaction coordinator for partition %d at epoch %d",
                 partition, coordinator_epoch)
        self.remove_markers_for_partition(partition)

    def complete_loading(self, partition: int, coordinator_epoch: int,
                         loaded: dict[str, TransactionMetadata], now_ms: int) -> bool:
        """Take a partition's replay; the transactions it left in PrepareCommit or
        PrepareAbort get their markers sent again. False when the load is obsolete."""
        if not self.state_manager.complete_loading(partition, coordinator_epoch, loaded):
            return False
        to_complete: list[tuple[bool, TransactionMetadata, TxnTransitMetadata]] = []
        for metadata in loaded.values():
            if metadata.state in (S.PREPARE_COMMIT, S.PREPARE_ABORT):
                to_complete.append((metadata.state is S.PREPARE_COMMIT, metadata,
                                    metadata.prepare_complete(now_ms)))
        log.info("Loaded %d transactional id(s) of partition %d at epoch %d", len(loaded),
                 partition, coordinator_epoch)
        for commit, metadata, complete in to_complete:
            log.info("Sending the markers of %s's %s after loading partition %d",
                     metadata.transactional_id, "commit" if commit else "abort", partition)
            self.add_txn_markers_to_send(coordinator_epoch, commit, metadata, complete, now_ms)
        return True

    def on_resignation(self, partition: int, coordinator_epoch: int | None) -> None:
        log.info("Resigned as the transaction coordinator for partition %d at epoch %s",
                 partition, coordinator_epoch)
        self.state_manager.remove_transactions_for_partition(partition, coordinator_epoch)
        self.remove_markers_for_partition(partition)

    # -- markers ---------------------------------------------------------------------------------

    @property
    def transactions_with_pending_markers(self) -> int:
        return len(self._pending_markers)

    def add_txn_markers_to_send(self, coordinator_epoch: int, commit: bool,
                                metadata: TransactionMetadata, complete: TxnTransitMetadata,
                                now_ms: int) -> None:
        """Queue the markers of a transaction in PrepareCommit/PrepareAbort, whose transition
        to ``complete`` is written once every partition has its marker."""
        transactional_id = metadata.transactional_id
        pending = PendingCompleteTxn(transactional_id, coordinator_epoch, metadata, complete)
        previous = self._pending_markers.get(transactional_id)
        if previous is not None:
            log.info("Replaced the pending completion of %s", transactional_id)
        self._pending_markers[transactional_id] = pending
        self._queue_markers(metadata.producer_id, metadata.producer_epoch, commit, pending,
                            frozenset(metadata.topic_partitions), now_ms)
        self.maybe_write_txn_completion(transactional_id, now_ms)

    def _queue_markers(self, producer_id: int, producer_epoch: int, commit: bool,
                       pending: PendingCompleteTxn, partitions: frozenset[TopicPartition],
                       now_ms: int) -> None:
        """Queue the markers of ``partitions`` for their leaders (Kafka's
        ``addTxnMarkersToBrokerQueue``); partitions that no longer exist need none."""
        transactional_id = pending.transactional_id
        txn_partition = self.partition_for(transactional_id)
        by_destination: dict[int | None, set[TopicPartition]] = {}
        for tp in sorted(partitions):
            by_destination.setdefault(self.leader_of(*tp), set()).add(tp)
        woken: list[int] = []
        for destination, tps in by_destination.items():
            if destination is not None:
                self.queues.add(destination, txn_partition, MarkerEntry(
                    pending, producer_id, producer_epoch, pending.coordinator_epoch, commit,
                    frozenset(tps)))
                woken.append(destination)
                continue
            found = self.state_manager.get_transaction_state(transactional_id)
            if isinstance(found, ErrorCode) or found.metadata is None:
                log.info("%s when looking up %s to send its markers; cancelling them",
                         found.name if isinstance(found, ErrorCode) else "no metadata",
                         transactional_id)
                self._remove_pending(pending)
            elif found.coordinator_epoch != pending.coordinator_epoch:
                log.info("The coordinator epoch of %s changed since its markers were prepared; "
                         "cancelling them", transactional_id)
                self._remove_pending(pending)
            else:
                log.info("Partitions %s of %s's transaction have no leader in the metadata: "
                         "they were deleted and need no marker", sorted(tps), transactional_id)
                for tp in tps:
                    found.metadata.remove_partition(tp)
                self.maybe_write_txn_completion(transactional_id, now_ms)
        for destination in woken:
            self.on_markers_queued(destination)

    def maybe_write_txn_completion(self, transactional_id: str, now_ms: int) -> None:
        pending = self._pending_markers.get(transactional_id)
        if pending is None or pending.txn_metadata.topic_partitions:
            return
        del self._pending_markers[transactional_id]
        found = self.state_manager.get_transaction_state(transactional_id)
        if isinstance(found, ErrorCode):
            log.info("%s for %s (coordinator epoch %d): not writing %s, %s",
                     found.name, transactional_id, pending.coordinator_epoch,
                     pending.new_metadata.txn_state,
                     "the load completes it" if found == E.COORDINATOR_LOAD_IN_PROGRESS
                     else "no longer its coordinator")
        elif found.metadata is None:
            log.error("The coordinator still owns the partition of %s but has no metadata for "
                      "it", transactional_id)
        elif found.coordinator_epoch != pending.coordinator_epoch:
            log.info("The metadata of %s changed (coordinator epoch %d) after its markers were "
                     "written; not writing %s", transactional_id, found.coordinator_epoch,
                     pending.new_metadata.txn_state)
        else:
            self._append_completion(pending, now_ms)

    def _append_completion(self, pending: PendingCompleteTxn, now_ms: int) -> None:
        transactional_id = pending.transactional_id

        def written(error: ErrorCode, _done_ms: int) -> None:
            if error == E.NONE:
                log.debug("Completed the transaction of %s (coordinator epoch %d): %s",
                          transactional_id, pending.coordinator_epoch,
                          pending.new_metadata.txn_state)
            elif error == E.COORDINATOR_NOT_AVAILABLE:
                log.info("Writing %s for %s failed (coordinator not available); retrying",
                         pending.new_metadata.txn_state, transactional_id)
                self._completion_retries.append(pending)
                self.on_completion_retry()
            elif error in (E.NOT_COORDINATOR, E.COORDINATOR_LOAD_IN_PROGRESS):
                log.info("Not writing %s for %s: %s", pending.new_metadata.txn_state,
                         transactional_id, error.name)
            else:
                log.error("Unexpected error %s writing %s for %s", error.name,
                          pending.new_metadata.txn_state, transactional_id)

        self.state_manager.append_transaction_to_log(
            transactional_id, pending.coordinator_epoch, pending.new_metadata, now_ms, written,
            retry_on_error=lambda error: error == E.COORDINATOR_NOT_AVAILABLE)

    @property
    def completion_retry_count(self) -> int:
        """Completions waiting to be written again (LogAppendRetryQueueSize)."""
        return len(self._completion_retries)

    @property
    def has_completion_retries(self) -> bool:
        return bool(self._completion_retries)

    def retry_completions(self, now_ms: int) -> None:
        """Write again the completions whose write found no coordinator available."""
        retries, self._completion_retries = self._completion_retries, []
        for pending in retries:
            self._append_completion(pending, now_ms)

    def requeue_markers(self, entries: list[MarkerEntry], now_ms: int) -> None:
        """Queue entries again with their partitions' leaders looked up anew (those that
        waited for a leader, or whose destination is gone)."""
        for entry in entries:
            self._queue_markers(entry.producer_id, entry.producer_epoch, entry.commit,
                                entry.pending, entry.partitions, now_ms)

    def _current_for(self, entry: MarkerEntry) -> TransactionMetadata | None:
        """The entry's transaction if this coordinator still owns it in the same epoch;
        otherwise its markers are cancelled and None is returned."""
        transactional_id = entry.transactional_id
        found = self.state_manager.get_transaction_state(transactional_id)
        if isinstance(found, ErrorCode):
            log.info("%s for %s: cancelling its markers %s", found.name, transactional_id,
                     sorted(entry.partitions))
        elif found.metadata is None:
            log.error("The coordinator still owns the partition of %s but has no metadata for "
                      "it", transactional_id)
        elif found.coordinator_epoch != entry.coordinator_epoch:
            log.info("The coordinator epoch of %s changed from %d to %d: cancelling its markers",
                     transactional_id, entry.coordinator_epoch, found.coordinator_epoch)
        else:
            return found.metadata
        self._remove_pending(entry.pending)
        return None

    def on_markers_failed(self, entries: list[MarkerEntry], now_ms: int) -> None:
        """A WriteTxnMarkers request got no answer (its connection failed): send its markers
        again, to the leaders of that moment."""
        for entry in entries:
            if self._current_for(entry) is not None:
                self._queue_markers(entry.producer_id, entry.producer_epoch, entry.commit,
                                    entry.pending, entry.partitions, now_ms)

    def on_markers_answered(self, entries: list[MarkerEntry],
                            errors_by_producer: Mapping[int, Mapping[TopicPartition, ErrorCode]],
                            now_ms: int) -> None:
        """A WriteTxnMarkers answer (Kafka's ``TransactionMarkerRequestCompletionHandler``):
        partitions that have their marker leave the transaction, retriable failures are sent
        again, and the completion is written once none is left."""
        for entry in entries:
            errors = errors_by_producer.get(entry.producer_id)
            metadata = self._current_for(entry)
            if metadata is None:
                continue
            if errors is None:
                log.error("The WriteTxnMarkers answer has no result for producer id %d (%s); "
                          "sending its markers again", entry.producer_id, entry.transactional_id)
                self._queue_markers(entry.producer_id, entry.producer_epoch, entry.commit,
                                    entry.pending, entry.partitions, now_ms)
                continue
            retry: set[TopicPartition] = set()
            abandoned = False
            for tp in sorted(entry.partitions):
                error = errors.get(tp)
                if error is None:
                    log.warning("The WriteTxnMarkers answer has no result for %s of %s; "
                                "retrying", tp, entry.transactional_id)
                    retry.add(tp)
                elif error in _MARKER_DONE:
                    if error != E.NONE:
                        log.info("The marker of %s for %s failed with %s; the partition leaves "
                                 "the transaction", entry.transactional_id, tp, error.name)
                    metadata.remove_partition(tp)
                elif error in _MARKER_RETRIABLE:
                    log.info("The marker of %s for %s failed with %s; retrying",
                             entry.transactional_id, tp, error.name)
                    retry.add(tp)
                elif error in _MARKER_OBSOLETE:
                    log.info("The marker of %s for %s failed for good with %s; cancelling its "
                             "markers", entry.transactional_id, tp, error.name)
                    abandoned = True
                else:
                    log.error("Unexpected error %s writing the marker of %s for %s; giving up "
                              "its markers", error.name, entry.transactional_id, tp)
                    abandoned = True
            if abandoned:
                self._remove_pending(entry.pending)
            elif retry:
                self._queue_markers(entry.producer_id, entry.producer_epoch, entry.commit,
                                    entry.pending, frozenset(retry), now_ms)
            else:
                self.maybe_write_txn_completion(entry.transactional_id, now_ms)

    def remove_markers_for_partition(self, partition: int) -> None:
        for entry in self.queues.remove_partition(partition):
            self._remove_pending(entry.pending)

    def _remove_pending(self, pending: PendingCompleteTxn) -> None:
        if self._pending_markers.get(pending.transactional_id) is pending:
            del self._pending_markers[pending.transactional_id]

    def unknown_destination_entries(self) -> list[MarkerEntry]:
        """Take the entries waiting for a leader to be alive (to be queued again)."""
        return self.queues.drain(UNKNOWN_DESTINATION)


__all__ = ["DescribedTransaction", "Found", "InitProducerIdResult", "LeaderLookup",
           "ProducerIdSource", "TransactionCoordinator"]
