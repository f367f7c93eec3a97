"""The transaction coordinator (KIP-98, KIP-360, KIP-447, KIP-890's server side as Kafka 3.9
has it), as pure logic; :mod:`pybroker.coordinator.transaction_service` runs it on the event
loop.

* :mod:`.state` - the states of a transactional id, as a table of legal transitions.
* :mod:`.metadata` - :class:`TransactionMetadata` and the transitions it prepares and completes.
* :mod:`.storage` - ``__transaction_state``: settings, Kafka's record format, replay.
* :mod:`.manager` - the ids of the partitions this broker leads, loading, and every write.
* :mod:`.markers` - the queues of transaction markers per destination broker.
* :mod:`.coordinator` - :class:`TransactionCoordinator`: the requests, timeouts, expiry, and the
  completion of transactions as their markers are written.
"""

from .coordinator import (
    DescribedTransaction,
    InitProducerIdResult,
    LeaderLookup,
    ProducerIdSource,
    TransactionCoordinator,
)
from .manager import ListedTransaction, ListTransactionsResult, TransactionLog
from .markers import UNKNOWN_DESTINATION, MarkerEntry, MarkerQueues, PendingCompleteTxn
from .metadata import (
    NO_PRODUCER_EPOCH,
    NO_PRODUCER_ID,
    TransactionMetadata,
    TransitionError,
    TxnTransitMetadata,
)
from .state import IllegalStateTransition, TransactionState
from .storage import PartitionReplay, TransactionConfig

__all__ = [
    "NO_PRODUCER_EPOCH",
    "NO_PRODUCER_ID",
    "UNKNOWN_DESTINATION",
    "DescribedTransaction",
    "IllegalStateTransition",
    "InitProducerIdResult",
    "LeaderLookup",
    "ListTransactionsResult",
    "ListedTransaction",
    "MarkerEntry",
    "MarkerQueues",
    "PartitionReplay",
    "PendingCompleteTxn",
    "ProducerIdSource",
    "TransactionConfig",
    "TransactionCoordinator",
    "TransactionLog",
    "TransactionMetadata",
    "TransactionState",
    "TransitionError",
    "TxnTransitMetadata",
]
