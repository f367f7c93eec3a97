"""What a coordinator answers when its append failed: the part every coordinator shares (no
topic yet or too few replicas: COORDINATOR_NOT_AVAILABLE; no longer the leader:
NOT_COORDINATOR) and each write's own rows, as Kafka's ``maybeConvertOffsetCommitError``,
``storeGroup`` and ``appendTransactionToLog`` spell them. Pure: the coordinators' logic maps
its errors without knowing how the append was made."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from protocol.errors import ErrorCode

E = ErrorCode

#: what every coordinator answers for these append errors: retry, or look the coordinator up
_SHARED_APPEND_ERRORS: Mapping[ErrorCode, ErrorCode] = {
    E.UNKNOWN_TOPIC_OR_PARTITION: E.COORDINATOR_NOT_AVAILABLE,
    E.NOT_ENOUGH_REPLICAS: E.COORDINATOR_NOT_AVAILABLE,
    E.NOT_ENOUGH_REPLICAS_AFTER_APPEND: E.COORDINATOR_NOT_AVAILABLE,
    E.NOT_LEADER_OR_FOLLOWER: E.NOT_COORDINATOR,
    E.KAFKA_STORAGE_ERROR: E.NOT_COORDINATOR,
}


@dataclass(frozen=True, slots=True)
class AppendErrorMapping:
    """The client-facing error of a failed coordinator append: the write's own rows, then the
    shared ones, else the append's error itself. NONE stays NONE."""

    name: str
    rows: Mapping[ErrorCode, ErrorCode] = field(default_factory=dict)

    def __call__(self, error: ErrorCode) -> ErrorCode:
        if not error:
            return E.NONE
        mapped = self.rows.get(error)
        if mapped is None:
            mapped = _SHARED_APPEND_ERRORS.get(error, error)
        return mapped


#: an OffsetCommit's or TxnOffsetCommit's write (Kafka's ``maybeConvertOffsetCommitError``)
OFFSET_COMMIT_ERRORS = AppendErrorMapping("offset commit", {
    E.MESSAGE_TOO_LARGE: E.INVALID_COMMIT_OFFSET_SIZE,
    E.RECORD_LIST_TOO_LARGE: E.INVALID_COMMIT_OFFSET_SIZE,
    E.INVALID_FETCH_SIZE: E.INVALID_COMMIT_OFFSET_SIZE,
    E.NETWORK_EXCEPTION: E.COORDINATOR_LOAD_IN_PROGRESS,
})

#: a group's metadata write, which a SyncGroup waits for (Kafka's ``storeGroup``)
GROUP_STORE_ERRORS = AppendErrorMapping("group metadata", {
    E.REQUEST_TIMED_OUT: E.REBALANCE_IN_PROGRESS,
    E.MESSAGE_TOO_LARGE: E.UNKNOWN_SERVER_ERROR,
    E.RECORD_LIST_TOO_LARGE: E.UNKNOWN_SERVER_ERROR,
    E.INVALID_FETCH_SIZE: E.UNKNOWN_SERVER_ERROR,
})

#: a KIP-848 consumer group's records (Kafka 4's ``CoordinatorOperationExceptionHelper``)
CONSUMER_GROUP_ERRORS = AppendErrorMapping("consumer group", {
    E.REQUEST_TIMED_OUT: E.COORDINATOR_NOT_AVAILABLE,
    E.MESSAGE_TOO_LARGE: E.UNKNOWN_SERVER_ERROR,
    E.RECORD_LIST_TOO_LARGE: E.UNKNOWN_SERVER_ERROR,
    E.INVALID_FETCH_SIZE: E.UNKNOWN_SERVER_ERROR,
})

#: a transaction's state write (Kafka's ``appendTransactionToLog``)
TRANSACTION_LOG_ERRORS = AppendErrorMapping("transaction state", {
    E.REQUEST_TIMED_OUT: E.COORDINATOR_NOT_AVAILABLE,
    E.MESSAGE_TOO_LARGE: E.UNKNOWN_SERVER_ERROR,
    E.RECORD_LIST_TOO_LARGE: E.UNKNOWN_SERVER_ERROR,
})


