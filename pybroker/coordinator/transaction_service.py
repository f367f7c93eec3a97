"""The transaction coordinator as the broker runs it: the pure logic of
:mod:`pybroker.coordinator.transaction` wired to ``__transaction_state``, the producer ids and
the other brokers, on the event loop.

* :class:`TransactionStateTopic` - the internal topic, the runtime's writer with the layout
  and configs Kafka enforces: its creation through the admin seam, acks=all appends.
* :class:`TxnMarkerChannel` - Kafka's ``TransactionMarkerChannelManager``: one sender per
  destination broker, each draining its queue into one WriteTxnMarkers request at a time over
  a real connection (this broker included), retrying after a lost connection; entries whose
  partition has no live leader are looked up again every :data:`RETRY_BACKOFF_S`.
* :class:`TransactionCoordinatorService` - follows the leadership of ``__transaction_state``
  (a leadership listener, Kafka's ``onElection``/``onResignation``) through the coordinator
  runtime (:mod:`pybroker.coordinator.runtime`): a partition this broker starts leading is
  replayed chunk by chunk on the loop, yielding between chunks, and its ids handed to the
  coordinator, which finishes the transactions left preparing; one it stops
  leading is forgotten. The coordinator epoch is the partition's leader epoch. The handlers'
  calls answer at once or with a future (:meth:`TransactionCoordinatorService.init_producer_id`
  and the others).
"""

from __future__ import annotations

import asyncio
import logging
import ssl
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from protocol.errors import ErrorCode
from protocol.messages import ApiKey
from pybroker.coordinator import transaction_metrics
from pybroker.coordinator.runtime import (
    Appended,
    CoordinatorLoader,
    CoordinatorRuntime,
    LoadSummary,
    PartitionWriter,
    TopicLayout,
)
from pybroker.coordinator.transaction import (
    UNKNOWN_DESTINATION,
    DescribedTransaction,
    InitProducerIdResult,
    ListTransactionsResult,
    MarkerEntry,
    PartitionReplay,
    TransactionConfig,
    TransactionCoordinator,
)
from pybroker.coordinator.transaction.manager import WriteCallback
from pybroker.coordinator.transaction.markers import (
    errors_by_producer,
    write_txn_markers_request,
)
from pybroker.coordinator.transaction.storage import transaction_partition_for
from pybroker.kernel.clock import SYSTEM_CLOCK, Clock
from pybroker.kernel.outcome import Answer, Outcome, is_pending, then, when_settled
from pybroker.kernel.types import TopicPartition
from pybroker.metadata.topics import TRANSACTION_STATE_TOPIC
from pybroker.network.client import BrokerClientError, NodeConnections
from pybroker.security.sasl_client import SaslClientCredentials

if TYPE_CHECKING:
    from pybroker.cluster.hosted_partitions import LeadershipChange
    from pybroker.cluster.metadata_cache import BrokerEndpoint, MetadataCache
    from pybroker.cluster.replica_manager import ReplicaManager
    from pybroker.config import BrokerConfig
    from pybroker.coordinator.producer_id_manager import ProducerIdManager

log = logging.getLogger(__name__)


#: after a lost connection or an answer with failed markers, before sending again
RETRY_BACKOFF_S = 0.1
#: Kafka's default socket.connection.setup.timeout.ms
CONNECT_TIMEOUT_S = 10.0


def write_txn_markers_version(inter_broker_protocol_version: str) -> int:
    """Kafka's ``MetadataVersion.writeTxnMarkersRequestVersion``: 1 from IBP 2.8 on."""
    release = inter_broker_protocol_version.split("-")[0].split(".")
    try:
        major, minor = int(release[0]), int(release[1])
    except (IndexError, ValueError):
        return 1
    return 1 if (major, minor) >= (2, 8) else 0


# ---------------------------------------------------------------------------- the topic


class TransactionStateTopic:
    """``__transaction_state`` as the transaction coordinator writes it: the runtime's
    :class:`~pybroker.coordinator.runtime.PartitionWriter` with the topic's layout and the
    configs Kafka enforces, written uncompressed with acks=all (Kafka's
    ``EnforcedCompression`` and ``EnforcedRequiredAcks``) for the coordinator's
    :class:`~pybroker.coordinator.transaction.manager.TransactionLog`."""

    name = TRANSACTION_STATE_TOPIC

    def __init__(self, replica_manager: ReplicaManager, metadata: MetadataCache, admin: Any,
                 config: TransactionConfig, *, clock: Clock = SYSTEM_CLOCK) -> None:
        self.replica_manager = replica_manager
        self.config = config
        self.clock = clock
        self.writer = PartitionWriter(replica_manager, metadata, admin, TopicLayout(
            TRANSACTION_STATE_TOPIC, config.num_partitions, config.replication_factor,
            config.topic_configs()), clock=clock)

    @property
    def exists(self) -> bool:
        return self.writer.exists

    @property
    def num_partitions(self) -> int:
        """The existing topic's partition count, else ``transaction.state.log.num.partitions``."""
        return self.writer.num_partitions

    def partition_for(self, transactional_id: str) -> int:
        return transaction_partition_for(transactional_id, self.num_partitions)

    def ensure_created(self, now_ms: int) -> ErrorCode:
        """Ask for the topic if it does not exist yet (Kafka does it on the first
        FindCoordinator for a transactional id); COORDINATOR_NOT_AVAILABLE until it exists."""
        return self.writer.ensure_created(now_ms)

    def append(self, partition: int, records: Sequence[tuple[bytes, bytes | None]], *,
               timeout_ms: int, now_ms: int, done: WriteCallback) -> None:
        """One uncompressed batch with acks=all; ``done(error, now_ms)`` once the ISR has it,
        at once when the leader is the whole ISR."""
        outcome = self.writer.append(partition, records, now_ms, required_acks=-1,
                                     timeout_ms=timeout_ms)
        if not is_pending(outcome):
            done(outcome.error, now_ms)
            return

        def replicated(appended: Appended) -> None:
            done(appended.error, self.clock.milliseconds())

        then(outcome, replicated)


# ---------------------------------------------------------------------------- producer ids


class ProducerIds:
    """The coordinator's producer-id source over the broker's :class:`ProducerIdManager`,
    whose ids come at once or (a block being reserved in ZooKeeper) later."""

    def __init__(self, manager: ProducerIdManager, clock: Clock = SYSTEM_CLOCK) -> None:
        self.manager = manager
        self.clock = clock

    def generate(self, done: Callable[[int | ErrorCode, int], None]) -> None:
        try:
            outcome = self.manager.generate_producer_id()
        except Exception:
            log.exception("No producer id could be had")
            done(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, self.clock.milliseconds())
            return
        # a failure as Kafka's RPCProducerIdManager answers it: retriable, the client asks again
        when_settled(outcome, lambda producer_id: done(producer_id, self.clock.milliseconds()),
                     lambda _error: done(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS,
                                         self.clock.milliseconds()))


# ---------------------------------------------------------------------------- markers


class TxnMarkerChannel:
    """Sends the coordinator's queued markers: one task per destination broker, one
    WriteTxnMarkers request in flight each, over a connection kept between requests."""

    def __init__(self, coordinator: TransactionCoordinator,
                 endpoint_of: Callable[[int], BrokerEndpoint | None], *, broker_id: int,
                 request_version: int, request_timeout_ms: int,
                 ssl_context: ssl.SSLContext | None = None,
                 sasl: SaslClientCredentials | None = None,
                 clock: Clock = SYSTEM_CLOCK) -> None:
        self.coordinator = coordinator
        self.endpoint_of = endpoint_of
        self.clock = clock
        self.client_id = f"broker-{broker_id}-txn-marker-sender"
        self.request_version = request_version
        self.request_timeout_ms = request_timeout_ms
        self._wakeups: dict[int, asyncio.Event] = {}
        self._tasks: dict[int, asyncio.Task[None]] = {}
        self._connections = NodeConnections(self.client_id, CONNECT_TIMEOUT_S, ssl_context, sasl)
        self._stopped = False

    def wakeup(self, destination: int) -> None:
        """Markers were queued for ``destination``: make sure its sender runs."""
        if self._stopped:
            return
        event = self._wakeups.get(destination)
        if event is None:
            event = self._wakeups[destination] = asyncio.Event()
            runner = self._run_unknown if destination == UNKNOWN_DESTINATION else self._run
            self._tasks[destination] = asyncio.get_running_loop().create_task(
                runner(destination, event), name=f"txn-markers-{destination}")
        event.set()

    async def _run_unknown(self, destination: int, event: asyncio.Event) -> None:
        """Entries whose partition leader is not alive: looked up again until one is."""
        while True:
            await event.wait()
            event.clear()
            while self.coordinator.queues.waiting(UNKNOWN_DESTINATION):
                await asyncio.sleep(RETRY_BACKOFF_S)
                entries = self.coordinator.unknown_destination_entries()
                self._call(self.coordinator.requeue_markers, entries)

    async def _run(self, destination: int, event: asyncio.Event) -> None:
        while True:
            await event.wait()
            event.clear()
            entries = self.coordinator.queues.drain(destination)
            if not entries:
                continue
            try:
                failed = await self._send(destination, entries)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("Sending transaction markers to broker %d failed", destination)
                self._call(self.coordinator.on_markers_failed, entries)
                failed = True
            if failed:
                await asyncio.sleep(RETRY_BACKOFF_S)

    def _call(self, fn: Callable[[list[MarkerEntry], int], None],
              entries: list[MarkerEntry]) -> None:
        if not self._stopped:
            fn(entries, self.clock.milliseconds())

    async def _send(self, destination: int, entries: list[MarkerEntry]) -> bool:
        """Send one request; True when it or some of its markers failed (back off)."""
        endpoint = self.endpoint_of(destination)
        if endpoint is None:
            # the broker left: the leaders are looked up again
            self._connections.close(destination)
            self._call(self.coordinator.requeue_markers, entries)
            return True
        try:
            client = await self._connections.get(destination, endpoint.host, endpoint.port)
        except BrokerClientError as exc:
            log.info("Cannot reach broker %d for transaction markers: %s", destination, exc)
            self._call(self.coordinator.on_markers_failed, entries)
            return True
        try:
            response = await client.request(ApiKey.WRITE_TXN_MARKERS, self.request_version,
                                            write_txn_markers_request(entries),
                                            self.request_timeout_ms)
        except BrokerClientError as exc:
            log.info("WriteTxnMarkers to broker %d failed: %s", destination, exc)
            self._connections.close(destination)
            self._call(self.coordinator.on_markers_failed, entries)
            return True
        errors = errors_by_producer(response)
        self._call(lambda es, now: self.coordinator.on_markers_answered(es, errors, now),
                   entries)
        return any(e != ErrorCode.NONE for by_tp in errors.values() for e in by_tp.values())

    async def shutdown(self) -> None:
        self._stopped = True
        tasks = list(self._tasks.values())
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self._connections.close_all()


# ---------------------------------------------------------------------------- the service


class TransactionCoordinatorService:
    def __init__(self, config: BrokerConfig, replica_manager: ReplicaManager,
                 metadata: MetadataCache, admin: Any, producer_ids: ProducerIdManager,
                 endpoint_of: Callable[[int], BrokerEndpoint | None],
                 ssl_context: ssl.SSLContext | None = None,
                 sasl: SaslClientCredentials | None = None, *,
                 clock: Clock = SYSTEM_CLOCK) -> None:
        """``endpoint_of``: a broker's endpoint on the inter-broker listener, which markers are
        sent to (over TLS with ``ssl_context``, authenticated with ``sasl``)."""
        self.clock = clock
        self.config = TransactionConfig.from_props(config.props)
        self.topic = TransactionStateTopic(replica_manager, metadata, admin, self.config,
                                           clock=clock)
        self.metadata = metadata
        self.endpoint_of = endpoint_of
        self.coordinator = TransactionCoordinator(
            self.config, self.topic, ProducerIds(producer_ids, clock), self._leader_of,
            partition_count=lambda: self.topic.num_partitions,
            on_markers_queued=self._markers_queued,
            on_completion_retry=self._completion_retry)
        transaction_metrics.register(self.coordinator, replica_manager.metrics)
        ibp = config.get("inter.broker.protocol.version") or "3.9-IV0"
        self.channel = TxnMarkerChannel(self.coordinator, endpoint_of,
                                        broker_id=config.broker_id,
                                        request_version=write_txn_markers_version(ibp),
                                        request_timeout_ms=self.config.request_timeout_ms,
                                        ssl_context=ssl_context, sasl=sasl, clock=clock)
        #: the partitions of __transaction_state loaded here, replayed chunk by chunk on the loop
        self.runtime = CoordinatorRuntime(
            self.topic.writer, CoordinatorLoader(self.topic.writer, self.config.load_buffer_size,
                                                 clock=clock), self, clock=clock,
            partitions=self.coordinator.partitions)
        self._retry_handle: asyncio.TimerHandle | None = None
        self._started = False
        replica_manager.add_leadership_listener(self.topic.name, self.on_leadership_change)

    # -- wiring --------------------------------------------------------------------------------

    def _leader_of(self, topic: str, partition: int) -> int | None:
        info = self.metadata.partition(topic, partition)
        if info is None:
            return None
        if info.leader < 0 or self.endpoint_of(info.leader) is None:
            return UNKNOWN_DESTINATION
        return info.leader

    def _markers_queued(self, destination: int) -> None:
        if self._started:
            self.channel.wakeup(destination)

    def _completion_retry(self) -> None:
        if self._retry_handle is None and self._started:
            self._retry_handle = asyncio.get_running_loop().call_later(
                RETRY_BACKOFF_S, self._retry_completions)

    def _retry_completions(self) -> None:
        self._retry_handle = None
        self.coordinator.retry_completions(self.clock.milliseconds())

    # -- leadership ------------------------------------------------------------------------------

    def on_leadership_change(self, change: LeadershipChange, now_ms: int) -> None:
        """Load a partition this broker now leads; forget one it no longer leads. Before
        :meth:`startup` nothing is loaded: startup loads what is led."""
        if self._started:
            self.runtime.on_leadership_change(change, now_ms)

    # the runtime's shard: the coordinator's replay and what it does with one

    def new_replay(self, partition: int) -> PartitionReplay:
        return PartitionReplay(partition)

    def on_loading(self, partition: int, epoch: int) -> None:
        self.coordinator.on_election(partition, epoch)

    def on_loaded(self, partition: int, epoch: int, replay: PartitionReplay,
                  summary: LoadSummary, now_ms: int) -> None:
        self._complete_loading(partition, epoch, replay, summary.elapsed_ms)

    def on_load_failed(self, partition: int, epoch: int, replay: PartitionReplay,
                       error: BaseException, now_ms: int) -> bool:
        """What was read before the error is taken and served, as Kafka's loader keeps what
        it loaded."""
        self._complete_loading(partition, epoch, replay, None)
        return True

    def on_unloaded(self, partition: int, epoch: int | None, now_ms: int) -> None:
        self.coordinator.on_resignation(partition, epoch)

    def _complete_loading(self, partition: int, epoch: int, replay: PartitionReplay,
                          elapsed_ms: float | None) -> None:
        if self.coordinator.complete_loading(partition, epoch, replay.transactions,
                                             self.clock.milliseconds()):
            log.info("Finished loading %d transactional id(s) from %s-%d%s",
                     len(replay.transactions), self.topic.name, partition,
                     "" if elapsed_ms is None else f" in {elapsed_ms:.0f} ms")

    # -- life cycle --------------------------------------------------------------------------------

    def startup(self, now_ms: int) -> None:
        self.coordinator.startup()
        self._started = True
        self.runtime.load_led_partitions(now_ms)

    async def shutdown(self) -> None:
        self._started = False
        if self._retry_handle is not None:
            self._retry_handle.cancel()
            self._retry_handle = None
        await self.runtime.shutdown()
        await self.channel.shutdown()
        self.coordinator.shutdown()

    # -- scheduled tasks ---------------------------------------------------------------------------

    def abort_timed_out_transactions(self, now_ms: int) -> None:
        """The ``transaction-abort`` task, every
        ``transaction.abort.timed.out.transaction.cleanup.interval.ms``."""
        if self._started:
            self.coordinator.abort_timed_out_transactions(now_ms)

    def remove_expired_transactional_ids(self, now_ms: int) -> None:
        """The ``transactionalId-expiration`` task, every
        ``transaction.remove.expired.transaction.cleanup.interval.ms``."""
        if self._started:
            expired = self.coordinator.remove_expired_transactional_ids(now_ms)
            if expired:
                log.info("Expiring %d transactional id(s)", expired)

    # -- what the handlers call ------------------------------------------------------------------

    def ensure_topic(self, now_ms: int) -> ErrorCode:
        """Create ``__transaction_state`` on first need; NONE once it exists."""
        return self.topic.ensure_created(now_ms)

    def partition_for(self, transactional_id: str) -> int:
        return self.topic.partition_for(transactional_id)

    def init_producer_id(self, transactional_id: str, transaction_timeout_ms: int,
                         expected: tuple[int, int] | None, now_ms: int,
                         ) -> Outcome[InitProducerIdResult]:
        answer: Answer[InitProducerIdResult] = Answer()
        self.coordinator.init_producer_id(transactional_id, transaction_timeout_ms, expected,
                                          now_ms, answer)
        return answer.outcome()

    def add_partitions_to_transaction(self, transactional_id: str, producer_id: int,
                                      producer_epoch: int, partitions: frozenset[TopicPartition],
                                      now_ms: int) -> Outcome[ErrorCode]:
        answer: Answer[ErrorCode] = Answer()
        self.coordinator.add_partitions_to_transaction(transactional_id, producer_id,
                                                       producer_epoch, partitions, now_ms,
                                                       answer)
        return answer.outcome()

    def verify_partitions_in_transaction(self, transactional_id: str, producer_id: int,
                                         producer_epoch: int,
                                         partitions: frozenset[TopicPartition],
                                         ) -> Mapping[TopicPartition, ErrorCode]:
        return self.coordinator.verify_partitions_in_transaction(
            transactional_id, producer_id, producer_epoch, partitions)

    def end_transaction(self, transactional_id: str, producer_id: int, producer_epoch: int,
                        commit: bool, now_ms: int) -> Outcome[ErrorCode]:
        answer: Answer[ErrorCode] = Answer()
        self.coordinator.end_transaction(transactional_id, producer_id, producer_epoch, commit,
                                         now_ms, answer)
        return answer.outcome()

    def describe_transaction(self, transactional_id: str) -> DescribedTransaction:
        return self.coordinator.describe_transaction(transactional_id)

    def list_transactions(self, producer_ids: set[int], states: set[str], duration_ms: int,
                          now_ms: int) -> ListTransactionsResult:
        return self.coordinator.list_transactions(producer_ids, states, duration_ms, now_ms)
