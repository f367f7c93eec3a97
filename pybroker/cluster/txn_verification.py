"""KIP-890 part 1 on the partition leader: before a producer's first transactional batch of a
transaction is appended to a partition, the leader asks the transaction coordinator whether the
partition is in the transaction (Kafka 3.9's ``AddPartitionsToTxnManager``).

* :class:`TxnErrorMode` - Kafka's ``TransactionSupportedOperation``: whether the client that
  sent the request understands TRANSACTION_ABORTABLE (Produce v11+, TxnOffsetCommit v4+) or is
  told INVALID_TXN_STATE instead.
* :func:`coordinator_errors`, :func:`errors_from_response` - the coordinator's per-partition
  answers as the leader takes them: PRODUCER_FENCED becomes INVALID_PRODUCER_EPOCH (what
  producers expect from a partition), TRANSACTION_ABORTABLE becomes INVALID_TXN_STATE for older
  clients, a refusal of the whole request (CLUSTER_AUTHORIZATION_FAILED: INVALID_TXN_STATE) goes
  to every partition. Only partitions that are not verified appear in the result.
* :func:`produce_error_for` - what a Produce answers for a partition that was not verified
  (Kafka's ``handleProduceAppend``): INVALID_TXN_STATE with Kafka's message, and the retriable
  errors of the coordinator (CONCURRENT_TRANSACTIONS, NETWORK_EXCEPTION, NOT_COORDINATOR, ...)
  as NOT_ENOUGH_REPLICAS, which every producer retries without a metadata refresh.
* :class:`VerificationQueues` - what waits to be sent to each coordinator broker, one entry per
  transactional id, with Kafka's rule for a second verification of the same id: the newer epoch
  wins (the older one is answered INVALID_PRODUCER_EPOCH), the same epoch replaces the queued
  one (answered NETWORK_EXCEPTION: its producer is retrying).
* :class:`AddPartitionsToTxnManager` - the asyncio part. The coordinator of a transactional id
  is the leader of its ``__transaction_state`` partition in the metadata cache; when that is
  this broker the coordinator is asked in-process (its answer is immediate), otherwise the
  queued verifications of each coordinator broker go out as one AddPartitionsToTxn v5
  (``verify_only``) at a time over a connection kept open. A lost connection or a timed-out
  request answers NETWORK_EXCEPTION; nothing is retried here, the producer retries.
"""

from __future__ import annotations

import asyncio
import enum
import functools
import logging
import ssl
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from protocol.errors import ErrorCode
from protocol.messages import (
    ApiKey,
    add_partitions_to_txn_request as apt,
    add_partitions_to_txn_response as aptr,
)
from pybroker.kernel.outcome import Outcome, settle
from pybroker.kernel.types import TopicPartition
from pybroker.metadata.topics import TRANSACTION_STATE_TOPIC
from pybroker.network.client import BrokerClientError, NodeConnections
from pybroker.security.sasl_client import SaslClientCredentials

if TYPE_CHECKING:
    from pybroker.cluster.metadata_cache import BrokerEndpoint, MetadataCache

log = logging.getLogger(__name__)

#: the partitions that were not verified, each with its error (verified ones are absent)
VerificationErrors = dict[TopicPartition, ErrorCode]

#: AddPartitionsToTxn's broker-to-broker form: v4 batches transactions, v5 lets the coordinator
#: answer TRANSACTION_ABORTABLE; both leaders and coordinators here serve v5
VERIFY_VERSION = 5
#: Kafka's default socket.connection.setup.timeout.ms
CONNECT_TIMEOUT_S = 10.0
#: transactional ids whose ``__transaction_state`` partition is remembered (then forgotten)
PARTITION_CACHE_SIZE = 10_000

#: coordinator errors Kafka answers a producer as NOT_ENOUGH_REPLICAS: retriable errors older
#: clients might not retry, mapped to one every client retries without refreshing metadata
RETRIABLE_AS_NOT_ENOUGH_REPLICAS = frozenset({
    ErrorCode.CONCURRENT_TRANSACTIONS, ErrorCode.NETWORK_EXCEPTION,
    ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, ErrorCode.COORDINATOR_NOT_AVAILABLE,
    ErrorCode.NOT_COORDINATOR})


class TxnErrorMode(enum.Enum):
    """Which error a client gets when its partition is not in the transaction (Kafka's
    ``TransactionSupportedOperation``)."""

    #: clients before TRANSACTION_ABORTABLE (Produce v10 and older, TxnOffsetCommit v3 and
    #: older): INVALID_TXN_STATE
    DEFAULT_ERROR = "defaultError"
    #: Produce v11+, TxnOffsetCommit v4+: TRANSACTION_ABORTABLE as the coordinator answers it
    GENERIC_ERROR = "genericError"

    @classmethod
    def for_produce(cls, version: int) -> TxnErrorMode:
        return cls.GENERIC_ERROR if version > 10 else cls.DEFAULT_ERROR

    @classmethod
    def for_txn_offset_commit(cls, version: int) -> TxnErrorMode:
        return cls.GENERIC_ERROR if version >= 4 else cls.DEFAULT_ERROR


# ---------------------------------------------------------------------------- pure logic


def partition_error(error: ErrorCode, mode: TxnErrorMode) -> ErrorCode:
    """One partition's error from the coordinator, as the leader takes it."""
    if error == ErrorCode.PRODUCER_FENCED:
        return ErrorCode.INVALID_PRODUCER_EPOCH  # what producers expect from a partition
    if error == ErrorCode.TRANSACTION_ABORTABLE and mode is not TxnErrorMode.GENERIC_ERROR:
        return ErrorCode.INVALID_TXN_STATE
    return error


def request_error(error: ErrorCode) -> ErrorCode:
    """A refusal of the whole verification request, for each of its partitions: the client
    is not told of CLUSTER_AUTHORIZATION_FAILED, only that the verification did not happen."""
    if error == ErrorCode.CLUSTER_AUTHORIZATION_FAILED:
        return ErrorCode.INVALID_TXN_STATE
    return error


def coordinator_errors(results: Mapping[TopicPartition, ErrorCode | int],
                       mode: TxnErrorMode) -> VerificationErrors:
    """The coordinator's answer for one transaction, without the verified partitions."""
    return {tp: partition_error(ErrorCode(e), mode) for tp, e in results.items()
            if e != ErrorCode.NONE}


def produce_error_for(error: ErrorCode) -> tuple[ErrorCode, str | None]:
    """What a Produce answers for a partition that was not verified, and Kafka's message
    (None: the error's own)."""
    if error == ErrorCode.INVALID_TXN_STATE:
        return error, "Partition was not added to the transaction"
    if error in RETRIABLE_AS_NOT_ENOUGH_REPLICAS:
        return (ErrorCode.NOT_ENOUGH_REPLICAS, "Unable to verify the partition has been added "
                f"to the transaction. Underlying error: {error.name}")
    return error, None


@dataclass(slots=True)
class PendingVerification:
    """One transaction's partitions waiting to be verified by its coordinator broker."""

    transactional_id: str
    producer_id: int
    producer_epoch: int
    partitions: tuple[TopicPartition, ...]
    mode: TxnErrorMode
    #: called once with the partitions that were not verified
    answer: Callable[[VerificationErrors], None]

    def fail(self, error: ErrorCode) -> None:
        self.answer(dict.fromkeys(self.partitions, error))


class VerificationQueues:
    """The verifications waiting for each coordinator broker, at most one per transactional
    id (Kafka's ``addTxnData``)."""

    def __init__(self) -> None:
        self._by_node: dict[int, dict[str, PendingVerification]] = {}

    def add(self, node: int, pending: PendingVerification,
            ) -> list[tuple[PendingVerification, ErrorCode]]:
        """Queue ``pending`` for ``node``; returns the verifications to answer at once with an
        error: a queued one of the same id with an older epoch (INVALID_PRODUCER_EPOCH: it is
        fenced) or the same epoch (NETWORK_EXCEPTION: its producer is retrying, and will again),
        or ``pending`` itself when the queued one has the newer epoch (which stays queued)."""
        queued = self._by_node.setdefault(node, {})
        existing = queued.get(pending.transactional_id)
        answered: list[tuple[PendingVerification, ErrorCode]] = []
        if existing is not None:
            if existing.producer_epoch > pending.producer_epoch:
                return [(pending, ErrorCode.INVALID_PRODUCER_EPOCH)]
            answered.append((existing, ErrorCode.INVALID_PRODUCER_EPOCH
                             if existing.producer_epoch < pending.producer_epoch
                             else ErrorCode.NETWORK_EXCEPTION))
            del queued[pending.transactional_id]
        queued[pending.transactional_id] = pending
        return answered

    def waiting(self, node: int) -> bool:
        return bool(self._by_node.get(node))

    def drain(self, node: int) -> list[PendingVerification]:
        """Everything queued for ``node``, in the order it came; the queue is left empty."""
        queued = self._by_node.pop(node, None)
        return list(queued.values()) if queued else []

    def drain_all(self) -> list[PendingVerification]:
        out = [p for queued in self._by_node.values() for p in queued.values()]
        self._by_node.clear()
        return out


def verify_request(pending: Iterable[PendingVerification]) -> apt.AddPartitionsToTxnRequest:
    """One AddPartitionsToTxn (v4+) verifying each transaction's partitions."""
    transactions = []
    for p in pending:
        by_topic: dict[str, list[int]] = {}
        for topic, partition in p.partitions:
            by_topic.setdefault(topic, []).append(partition)
        transactions.append(apt.AddPartitionsToTxnTransaction(
            transactional_id=p.transactional_id, producer_id=p.producer_id,
            producer_epoch=p.producer_epoch, verify_only=True,
            topics=[apt.AddPartitionsToTxnTopic(name=t, partitions=ps)
                    for t, ps in by_topic.items()]))
    return apt.AddPartitionsToTxnRequest(transactions=transactions)


def errors_from_response(response: aptr.AddPartitionsToTxnResponse,
                         sent: Sequence[PendingVerification],
                         ) -> list[tuple[PendingVerification, VerificationErrors]]:
    """Each sent verification with its unverified partitions, from the coordinator's answer.
    A transaction the answer leaves out (a coordinator never does) counts as not answered:
    NETWORK_EXCEPTION, which the producer retries."""
    if response.error_code != ErrorCode.NONE:
        error = request_error(ErrorCode(response.error_code))
        return [(p, dict.fromkeys(p.partitions, error)) for p in sent]
    by_id = {r.transactional_id: r for r in response.results_by_transaction}
    out = []
    for p in sent:
        result = by_id.get(p.transactional_id)
        if result is None:
            out.append((p, dict.fromkeys(p.partitions, ErrorCode.NETWORK_EXCEPTION)))
            continue
        out.append((p, coordinator_errors(
            {(t.name, r.partition_index): r.partition_error_code
             for t in result.topic_results for r in t.results_by_partition}, p.mode)))
    return out


# ---------------------------------------------------------------------------- the manager


class LocalTransactionCoordinator(Protocol):
    """The verification this broker's own transaction coordinator answers in-process
    (:meth:`pybroker.coordinator.transaction_service.TransactionCoordinatorService.
    verify_partitions_in_transaction`)."""

    def verify_partitions_in_transaction(self, transactional_id: str, producer_id: int,
                                         producer_epoch: int,
                                         partitions: frozenset[TopicPartition],
                                         ) -> Mapping[TopicPartition, ErrorCode]: ...


class AddPartitionsToTxnManager:
    """Verifies transactions with their coordinators, for the replica manager's appends.

    ``partition_for(transactional_id)`` names the id's ``__transaction_state`` partition;
    ``alive_endpoint(broker_id)`` a live broker's endpoint on the inter-broker listener (None
    when it is not alive); ``local`` is this broker's coordinator."""

    def __init__(self, broker_id: int, metadata: MetadataCache,
                 alive_endpoint: Callable[[int], BrokerEndpoint | None],
                 partition_for: Callable[[str], int],
                 local: LocalTransactionCoordinator | None, *,
                 request_timeout_ms: int, ssl_context: ssl.SSLContext | None = None,
                 sasl: SaslClientCredentials | None = None) -> None:
        self.broker_id = broker_id
        self.metadata = metadata
        self.alive_endpoint = alive_endpoint
        self.partition_for = partition_for
        self.local = local
        self.request_timeout_ms = request_timeout_ms
        self.client_id = f"broker-{broker_id}-add-partitions-to-txn"
        self.queues = VerificationQueues()
        self._partitions: dict[tuple[str, int], int] = {}
        self._wakeups: dict[int, asyncio.Event] = {}
        self._tasks: dict[int, asyncio.Task[None]] = {}
        self._connections = NodeConnections(self.client_id, CONNECT_TIMEOUT_S, ssl_context, sasl)
        self._stopped = False

    def coordinator_of(self, transactional_id: str) -> int | None:
        """The broker leading the id's ``__transaction_state`` partition, if it is alive."""
        topic = self.metadata.topic(TRANSACTION_STATE_TOPIC)
        if topic is None:
            return None
        # the id's partition (a Java string hash) once per id and partition count
        key = (transactional_id, len(topic.partitions))
        partition = self._partitions.get(key)
        if partition is None:
            if len(self._partitions) >= PARTITION_CACHE_SIZE:
                self._partitions.clear()
            partition = self._partitions[key] = self.partition_for(transactional_id)
        info = topic.partitions.get(partition)
        if info is None or info.leader < 0:
            return None
        if info.leader != self.broker_id and self.alive_endpoint(info.leader) is None:
            return None
        return info.leader

    def verify_transaction(self, transactional_id: str, producer_id: int, producer_epoch: int,
                           partitions: Sequence[TopicPartition], mode: TxnErrorMode,
                           ) -> Outcome[VerificationErrors]:
        """The partitions the coordinator does not have in the producer's transaction (or could
        not be asked about), each with its error: at once when the coordinator is this broker
        or unknown, else a future of them."""
        node = self.coordinator_of(transactional_id)
        if node is None or self._stopped:
            return dict.fromkeys(partitions, ErrorCode.COORDINATOR_NOT_AVAILABLE)
        if node == self.broker_id and self.local is not None:
            return coordinator_errors(self.local.verify_partitions_in_transaction(
                transactional_id, producer_id, producer_epoch, frozenset(partitions)), mode)
        future: asyncio.Future[VerificationErrors] = \
            asyncio.get_running_loop().create_future()
        pending = PendingVerification(transactional_id, producer_id, producer_epoch,
                                      tuple(partitions), mode, functools.partial(settle, future))
        for superseded, error in self.queues.add(node, pending):
            superseded.fail(error)
        if not future.done():
            self._wakeup(node)
        return future

    # -- sending -------------------------------------------------------------------------------

    def _wakeup(self, node: int) -> None:
        event = self._wakeups.get(node)
        if event is None:
            event = self._wakeups[node] = asyncio.Event()
            self._tasks[node] = asyncio.get_running_loop().create_task(
                self._run(node, event), name=f"add-partitions-to-txn-{node}")
        event.set()

    async def _run(self, node: int, event: asyncio.Event) -> None:
        """One request in flight to ``node`` at a time; what queues meanwhile goes next."""
        while True:
            await event.wait()
            event.clear()
            while self.queues.waiting(node):
                sent = self.queues.drain(node)
                try:
                    answered = await self._send(node, sent)
                except asyncio.CancelledError:
                    for p in sent:
                        p.fail(ErrorCode.NETWORK_EXCEPTION)
                    raise
                except Exception:
                    log.exception("Verifying transactions with broker %d failed", node)
                    answered = [(p, dict.fromkeys(p.partitions, ErrorCode.NETWORK_EXCEPTION))
                                for p in sent]
                for p, errors in answered:
                    p.answer(errors)

    async def _send(self, node: int, sent: list[PendingVerification],
                    ) -> list[tuple[PendingVerification, VerificationErrors]]:
        def failed() -> list[tuple[PendingVerification, VerificationErrors]]:
            return [(p, dict.fromkeys(p.partitions, ErrorCode.NETWORK_EXCEPTION)) for p in sent]

        endpoint = self.alive_endpoint(node)
        if endpoint is None:
            self._connections.close(node)
            return failed()
        try:
            client = await self._connections.get(node, endpoint.host, endpoint.port)
        except BrokerClientError as exc:
            log.info("Cannot reach broker %d to verify transactions: %s", node, exc)
            return failed()
        try:
            response = await client.request(ApiKey.ADD_PARTITIONS_TO_TXN, VERIFY_VERSION,
                                            verify_request(sent), self.request_timeout_ms)
        except BrokerClientError as exc:
            log.warning("AddPartitionsToTxn to broker %d failed: %s", node, exc)
            self._connections.close(node)
            return failed()
        return errors_from_response(response, sent)

    async def shutdown(self) -> None:
        """Stop sending; what still waits is answered NETWORK_EXCEPTION."""
        self._stopped = True
        tasks = list(self._tasks.values())
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for p in self.queues.drain_all():
            p.fail(ErrorCode.NETWORK_EXCEPTION)
        self._connections.close_all()
