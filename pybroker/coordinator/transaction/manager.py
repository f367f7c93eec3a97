"""The transaction metadata of the ``__transaction_state`` partitions this broker leads, and
every write to them (Kafka's ``TransactionStateManager``).

Partitions: whether a partition is loading, loaded or not here is the coordinator runtime's
:class:`~pybroker.coordinator.runtime.state.CoordinatorPartitions` table, which requests are
answered from (COORDINATOR_LOAD_IN_PROGRESS while it loads, NOT_COORDINATOR when it is not
Active here); a loaded partition's ids are cached under its *coordinator epoch*, the leader
epoch this broker was elected in (:meth:`complete_loading`).

Writes: :meth:`append_transaction_to_log` writes a prepared transition as one record with
acks=all and takes it over once the ISR has it, unless the partition changed hands meanwhile
(another coordinator epoch: NOT_COORDINATOR). A failed write clears the pending state, so the
client may retry, unless the caller asks to keep it (the completion of a transaction is
retried until it is written).

Nothing here reads a clock or knows asyncio: every entry point takes ``now_ms``, and the log
is reached through :class:`TransactionLog`, whose ``done`` callback carries the time the write
completed at.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple, Protocol

from protocol.errors import ErrorCode
from pybroker.coordinator.runtime.errors import TRANSACTION_LOG_ERRORS
from pybroker.coordinator.runtime.state import CoordinatorPartitions

from .metadata import TransactionMetadata, TxnTransitMetadata
from .state import TransactionState
from .storage import TransactionConfig, serialize_key, serialize_value, transaction_partition_for

log = logging.getLogger(__name__)

E = ErrorCode
S = TransactionState

#: what a write reports: its error and the time it completed at
WriteCallback = Callable[[ErrorCode, int], None]

#: Kafka's default max.message.bytes: the size an expiry's tombstone batch stays under
MAX_TOMBSTONE_BATCH_BYTES = 1_000_000


class TransactionLog(Protocol):
    """How the coordinator writes ``__transaction_state``."""

    def append(self, partition: int, records: Sequence[tuple[bytes, bytes | None]], *,
               timeout_ms: int, now_ms: int, done: WriteCallback) -> None:
        """Append ``(key, value)`` records to ``partition`` as one batch with acks=all and
        call ``done(error, now_ms)`` once the ISR has them or the write failed (possibly
        before returning)."""
        ...


class Found(NamedTuple):
    """An id's metadata in a partition this broker coordinates (None: not known there)."""

    coordinator_epoch: int
    metadata: TransactionMetadata | None


@dataclass(slots=True)
class CacheEntry:
    """The ids of one loaded partition, under the epoch it was loaded in."""

    coordinator_epoch: int
    transactions: dict[str, TransactionMetadata] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ListedTransaction:
    transactional_id: str
    producer_id: int
    state: TransactionState


@dataclass(slots=True)
class ListTransactionsResult:
    error: ErrorCode = E.NONE
    unknown_state_filters: list[str] = field(default_factory=list)
    transactions: list[ListedTransaction] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class TimedOut:
    transactional_id: str
    producer_id: int
    producer_epoch: int


#: what a failed write answers (Kafka's mapping in ``appendTransactionToLog``): clients retry,
#: or look the coordinator up again
append_error_for = TRANSACTION_LOG_ERRORS


class TransactionStateManager:
    def __init__(self, config: TransactionConfig, log_writer: TransactionLog,
                 partition_count: Callable[[], int] | None = None,
                 partitions: CoordinatorPartitions | None = None) -> None:
        """``partitions``: the runtime's table of which partitions are loading and loaded."""
        self.config = config
        self.log_writer = log_writer
        #: the partition count of ``__transaction_state`` (the topic's, once it exists)
        self._partition_count = partition_count or (lambda: config.num_partitions)
        self.partitions = partitions if partitions is not None else CoordinatorPartitions()
        self._cache: dict[int, CacheEntry] = {}

    # -- placement -----------------------------------------------------------------------------

    def partition_for(self, transactional_id: str) -> int:
        return transaction_partition_for(transactional_id, self._partition_count())

    def validate_transaction_timeout_ms(self, txn_timeout_ms: int) -> bool:
        return 0 < txn_timeout_ms <= self.config.transaction_max_timeout_ms

    @property
    def loading_partitions(self) -> set[int]:
        return self.partitions.loading()

    @property
    def owned_partitions(self) -> list[int]:
        return sorted(self._cache)

    # -- lookups -------------------------------------------------------------------------------

    def get_transaction_state(self, transactional_id: str,
                              create: TransactionMetadata | None = None) -> ErrorCode | Found:
        """The id's metadata and its partition's coordinator epoch; with ``create``, that
        metadata is added if the id is unknown (Kafka's ``putTransactionStateIfNotExists``).
        COORDINATOR_LOAD_IN_PROGRESS while its partition loads, NOT_COORDINATOR when it is not
        led here."""
        partition = self.partition_for(transactional_id)
        error = self.partitions.error_for(partition)
        if error:
            return error
        entry = self._cache.get(partition)
        if entry is None or entry.coordinator_epoch != self.partitions.epoch(partition):
            return E.NOT_COORDINATOR
        metadata = entry.transactions.get(transactional_id)
        if metadata is None and create is not None:
            metadata = entry.transactions[transactional_id] = create
        return Found(entry.coordinator_epoch, metadata)

    def all_transactions(self) -> Iterable[tuple[int, TransactionMetadata]]:
        """Every cached id with its partition's coordinator epoch."""
        for entry in list(self._cache.values()):
            for metadata in list(entry.transactions.values()):
                yield entry.coordinator_epoch, metadata

    # -- loading and unloading -----------------------------------------------------------------

    def complete_loading(self, partition: int, coordinator_epoch: int,
                         loaded: dict[str, TransactionMetadata]) -> bool:
        """Cache a replayed partition, if the table still has it from its election in that
        epoch (a resignation or a newer election meanwhile drops the replay). Returns whether
        it was taken."""
        if not self.partitions.elected_in(partition, coordinator_epoch):
            return False
        previous = self._cache.get(partition)
        if previous is not None:
            log.warning("Unloaded %d transactional id(s) of partition %d (epoch %d) when loading "
                        "it at epoch %d", len(previous.transactions), partition,
                        previous.coordinator_epoch, coordinator_epoch)
        self._cache[partition] = CacheEntry(coordinator_epoch, loaded)
        return True

    def remove_transactions_for_partition(self, partition: int,
                                          coordinator_epoch: int | None = None) -> None:
        """Forget a partition this broker no longer leads (with its epoch: the resignation of
        that election; without: the partition was deleted here)."""
        entry = self._cache.pop(partition, None)
        if entry is not None:
            log.info("Unloaded %d transactional id(s) of partition %d (coordinator epoch %d)",
                     len(entry.transactions), partition, entry.coordinator_epoch)

    def shutdown(self) -> None:
        self._cache.clear()

    # -- writes --------------------------------------------------------------------------------

    def append_transaction_to_log(
        self, transactional_id: str, coordinator_epoch: int, new_metadata: TxnTransitMetadata,
        now_ms: int, callback: WriteCallback,
        retry_on_error: Callable[[ErrorCode], bool] = lambda _error: False,
    ) -> None:
        """Write a prepared transition and complete it once replicated; ``callback(error,
        now_ms)`` gets the client-facing error."""
        found = self.get_transaction_state(transactional_id)
        if isinstance(found, ErrorCode):
            callback(found, now_ms)
            return
        if found.metadata is None or found.coordinator_epoch != coordinator_epoch:
            callback(E.NOT_COORDINATOR, now_ms)
            return
        records = [(serialize_key(transactional_id), serialize_value(new_metadata))]

        def written(append_error: ErrorCode, done_ms: int) -> None:
            error = append_error_for(append_error) if append_error else E.NONE
            if append_error:
                log.debug("Appending %s's new metadata %s failed: %s", transactional_id,
                          new_metadata, append_error.name)
            current = self.get_transaction_state(transactional_id)
            if error == E.NONE:
                if isinstance(current, ErrorCode):
                    log.info("Accessing the metadata of %s after writing %s answered %s",
                             transactional_id, new_metadata, current.name)
                    error = current
                elif current.metadata is None or current.coordinator_epoch != coordinator_epoch:
                    log.info("The coordinator of %s changed (epoch %d) while %s was written",
                             transactional_id, coordinator_epoch, new_metadata)
                    error = E.NOT_COORDINATOR
                else:
                    current.metadata.complete_transition_to(new_metadata)
            elif (not isinstance(current, ErrorCode) and current.metadata is not None
                  and current.coordinator_epoch == coordinator_epoch):
                if retry_on_error(error):
                    log.info("Writing %s for %s failed with %s; keeping the pending state %s "
                             "for a retry", new_metadata, transactional_id, error.name,
                             current.metadata.pending_state)
                else:
                    log.info("Writing %s for %s failed with %s; the transition is abandoned",
                             new_metadata, transactional_id, error.name)
                    current.metadata.abandon_pending()
            callback(error, done_ms)

        self.log_writer.append(self.partition_for(transactional_id), records,
                               timeout_ms=new_metadata.txn_timeout_ms, now_ms=now_ms,
                               done=written)

    # -- listing -------------------------------------------------------------------------------

    def list_transaction_states(self, producer_ids: set[int], state_names: set[str],
                                duration_ms: int, now_ms: int) -> ListTransactionsResult:
        """ListTransactions: every id but the Dead ones, filtered by producer id, state and
        (v1) a transaction running longer than ``duration_ms``; -1 filters nothing."""
        result = ListTransactionsResult()
        if self.partitions.is_loading():
            result.error = E.COORDINATOR_LOAD_IN_PROGRESS
            return result
        states: set[TransactionState] = set()
        for name in sorted(state_names):
            state = TransactionState.from_name(name)
            if state is None:
                result.unknown_state_filters.append(name)
            else:
                states.add(state)
        for _, metadata in self.all_transactions():
            if metadata.state is S.DEAD:
                continue  # being removed
            if producer_ids and metadata.producer_id not in producer_ids:
                continue
            if state_names and metadata.state not in states:
                continue
            if duration_ms >= 0 and now_ms - metadata.txn_start_timestamp <= duration_ms:
                continue
            result.transactions.append(ListedTransaction(
                metadata.transactional_id, metadata.producer_id, metadata.state))
        return result

    # -- timeouts and expiry -------------------------------------------------------------------

    def timed_out_transactions(self, now_ms: int) -> list[TimedOut]:
        """Ongoing transactions past their timeout with no transition in flight."""
        return [TimedOut(m.transactional_id, m.producer_id, m.producer_epoch)
                for _, m in self.all_transactions()
                if m.pending_state is None and m.state is S.ONGOING
                and m.txn_start_timestamp + m.txn_timeout_ms < now_ms]

    def remove_expired_transactional_ids(self, now_ms: int) -> int:
        """Write tombstones for the ids idle longer than ``transactional.id.expiration.ms``
        between transactions, and forget each once its tombstone is replicated. Returns how
        many ids were marked Dead."""
        marked = 0
        for partition, entry in list(self._cache.items()):
            batch: list[tuple[str, TxnTransitMetadata]] = []
            size = 0
            for metadata in list(entry.transactions.values()):
                if metadata.pending_state is not None or not self._should_expire(metadata,
                                                                                  now_ms):
                    continue
                key_size = len(serialize_key(metadata.transactional_id)) + 32
                if batch and size + key_size > MAX_TOMBSTONE_BATCH_BYTES:
                    self._write_tombstones(partition, entry.coordinator_epoch, batch, now_ms)
                    batch, size = [], 0
                batch.append((metadata.transactional_id, metadata.prepare_dead()))
                size += key_size
                marked += 1
            if batch:
                self._write_tombstones(partition, entry.coordinator_epoch, batch, now_ms)
        return marked

    def _should_expire(self, metadata: TransactionMetadata, now_ms: int) -> bool:
        return (metadata.state.is_expiration_allowed and metadata.txn_last_update_timestamp
                <= now_ms - self.config.transactional_id_expiration_ms)

    def _write_tombstones(self, partition: int, coordinator_epoch: int,
                          expired: list[tuple[str, TxnTransitMetadata]], now_ms: int) -> None:
        def written(error: ErrorCode, _done_ms: int) -> None:
            entry = self._cache.get(partition)
            for transactional_id, transit in expired:
                metadata = entry.transactions.get(transactional_id) if entry else None
                if metadata is None:
                    continue
                if (entry is not None and entry.coordinator_epoch == coordinator_epoch
                        and metadata.pending_state is S.DEAD
                        and metadata.producer_epoch == transit.producer_epoch
                        and error == E.NONE):
                    del entry.transactions[transactional_id]
                else:
                    log.warning("Failed to remove expired transactional id %s from the cache "
                                "(tombstone append error %s, pending state %s)",
                                transactional_id, error.name, metadata.pending_state)
                    metadata.abandon_pending()

        records: list[tuple[bytes, bytes | None]] = [
            (serialize_key(transactional_id), None) for transactional_id, _ in expired]
        self.log_writer.append(partition, records, timeout_ms=self.config.request_timeout_ms,
                               now_ms=now_ms, done=written)
