"""What both coordinators share (Kafka's ``coordinator-common``): the internal topic and its
writes (:mod:`.writer`), the chunked load of a partition (:mod:`.loader`), and the
per-partition Unloaded/Loading/Active/Failed table that decides what requests are answered
(:mod:`.state`, :mod:`.runtime`). A coordinator brings only its record codec and its replay."""

from .errors import (
    GROUP_STORE_ERRORS,
    OFFSET_COMMIT_ERRORS,
    TRANSACTION_LOG_ERRORS,
    AppendErrorMapping,
)
from .loader import CoordinatorLoader, LoadSummary, Replay
from .runtime import CoordinatorRuntime, CoordinatorShard
from .state import CoordinatorPartitions, CoordinatorState
from .writer import (
    Appended,
    PartitionWriter,
    TopicLayout,
    TransactionalProducer,
)

__all__ = [
    "GROUP_STORE_ERRORS",
    "OFFSET_COMMIT_ERRORS",
    "TRANSACTION_LOG_ERRORS",
    "AppendErrorMapping",
    "Appended",
    "CoordinatorLoader",
    "CoordinatorRuntime",
    "CoordinatorPartitions",
    "CoordinatorShard",
    "CoordinatorState",
    "LoadSummary",
    "PartitionWriter",
    "Replay",
    "TopicLayout",
    "TransactionalProducer",
]
