"""A leader's ISR changes on their way to the controller (Kafka's ``AlterPartitionManager``).

A partition leader never writes its ISR itself: it asks the controller with AlterPartition
(KIP-497, Kafka 2.7+'s path) and the controller records the change in the partition's ``state``
znode as a compare-and-set. This module is the broker's side of that conversation:

* :meth:`AlterPartitionManager.submit` takes one partition's proposed state (an
  :class:`IsrUpdate`) and returns a future of the controller's answer for it: the state now
  recorded (:class:`RecordedIsr`) or the partition's error. At most one update per partition
  is pending; a second one is answered OPERATION_NOT_ATTEMPTED at once, as Kafka does.
* One request is in flight at a time, carrying every pending partition (Kafka batches the same
  way); updates submitted meanwhile go in the next one.
* The request goes to the controller the metadata cache names, over a :class:`BrokerClient` on
  the inter-broker listener, at the highest version both sides know (an ApiVersions exchange
  on each new connection): v3 with topic ids and each ISR member's broker epoch (KIP-903) when
  every pending partition has a topic id, v1 with topic names otherwise.
* It is never given up: a lost connection, a timeout, or NOT_CONTROLLER (the controller moved)
  sends the same request again to whoever is controller then, after ``retry_backoff_ms``;
  another request-level error (STALE_BROKER_EPOCH while this broker registers again, ...)
  leaves the updates pending and retries 50 ms later. A partition missing from an answer is
  sent again. Only an answer naming the partition completes its future.

What a partition does with the answer is :meth:`pybroker.cluster.partition.Partition.
handle_alter_partition_answer`'s decision. :func:`build_alter_partition_request` and
:func:`parse_alter_partition_response` are the pure halves of the exchange.

Concurrency notes: everything runs on the event loop; the sending task is the only one that
awaits, and futures are completed on the loop.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from protocol.errors import ErrorCode
from protocol.messages import (
    ApiKey,
    alter_partition_request as areq,
    alter_partition_response as aresp,
    api_versions_request,
)
from pybroker.cluster.metadata_cache import BrokerEndpoint
from pybroker.kernel.types import TopicPartition
from pybroker.network.client import BrokerClient, BrokerClientError

log = logging.getLogger(__name__)


#: ``LeaderRecoveryState`` (KIP-704)
RECOVERED = 0
RECOVERING = 1
#: the highest AlterPartition version Kafka 3.9 sends; v2+ name topics by id
MAX_VERSION = 3
TOPIC_IDS_FROM_VERSION = 2
#: Kafka's AlterPartitionManager retries a request-level error after 50 ms
TOP_LEVEL_RETRY_MS = 50
ZERO_UUID = uuid.UUID(int=0)


@dataclass(frozen=True, slots=True)
class IsrUpdate:
    """The state a leader asks the controller to record (Kafka's ``LeaderAndIsr`` as sent): its
    own id, its leader epoch, the new ISR, and the partition epoch it last knew, which the
    controller compares-and-sets on. ``isr_broker_epochs`` gives, member by member, the broker
    epoch the leader last saw in that member's fetches (-1: unknown)."""

    leader: int
    leader_epoch: int
    isr: tuple[int, ...]
    partition_epoch: int
    leader_recovery_state: int = RECOVERED
    isr_broker_epochs: tuple[int, ...] = ()

    def broker_epoch_of(self, broker_id: int) -> int:
        if len(self.isr_broker_epochs) != len(self.isr):
            return -1
        return self.isr_broker_epochs[self.isr.index(broker_id)]


@dataclass(frozen=True, slots=True)
class RecordedIsr:
    """The partition's state as the controller answered it: what ZooKeeper now holds."""

    leader: int
    leader_epoch: int
    isr: tuple[int, ...]
    leader_recovery_state: int
    partition_epoch: int


#: the controller's answer for one partition
IsrAnswer = RecordedIsr | ErrorCode


@dataclass(slots=True)
class AlterPartitionItem:
    """One partition's pending update and the future its answer completes."""

    topic: str
    partition: int
    topic_id: uuid.UUID | None
    update: IsrUpdate
    future: asyncio.Future[IsrAnswer] = field(repr=False)

    @property
    def key(self) -> TopicPartition:
        return (self.topic, self.partition)


# -- the pure halves ---------------------------------------------------------------------------


def alter_partition_version(controller_max: int | None, all_have_topic_ids: bool,
                            ) -> int | None:
    """The version to send: the highest both sides know, below v2 when a partition has no topic
    id (Kafka's ``AlterPartitionRequest.Builder(canUseTopicIds)``); None when the controller
    does not serve AlterPartition."""
    if controller_max is None:
        return None
    version = min(MAX_VERSION, controller_max)
    if not all_have_topic_ids:
        version = min(version, TOPIC_IDS_FROM_VERSION - 1)
    return version


def build_alter_partition_request(broker_id: int, broker_epoch: int,
                                  items: Sequence[AlterPartitionItem], version: int,
                                  ) -> areq.AlterPartitionRequest:
    """AlterPartition ``version`` for ``items``, grouped by topic (by id from v2)."""
    by_topic: dict[str, areq.TopicData] = {}
    for item in items:
        topic = by_topic.get(item.topic)
        if topic is None:
            topic = by_topic[item.topic] = (
                areq.TopicData(topic_id=item.topic_id or ZERO_UUID)
                if version >= TOPIC_IDS_FROM_VERSION else areq.TopicData(topic_name=item.topic))
        update = item.update
        data = areq.PartitionData(partition_index=item.partition,
                                  leader_epoch=update.leader_epoch,
                                  partition_epoch=update.partition_epoch,
                                  leader_recovery_state=update.leader_recovery_state)
        if version >= 3:
            data.new_isr_with_epochs = [
                areq.BrokerState(broker_id=b, broker_epoch=update.broker_epoch_of(b))
                for b in update.isr]
        else:
            data.new_isr = list(update.isr)
        topic.partitions.append(data)
    return areq.AlterPartitionRequest(broker_id=broker_id, broker_epoch=broker_epoch,
                                      topics=list(by_topic.values()))


def parse_alter_partition_response(response: aresp.AlterPartitionResponse, version: int,
                                   items: Sequence[AlterPartitionItem],
                                   ) -> tuple[ErrorCode, dict[TopicPartition, IsrAnswer]]:
    """The request-level error and each named partition's answer (Kafka's
    ``handleAlterPartitionResponse``); topics are matched by id from v2, by name below.
    Partitions the answer leaves out are absent (they are sent again)."""
    top = _error(response.error_code)
    if top != ErrorCode.NONE:
        return top, {}
    names = {item.topic_id: item.topic for item in items if item.topic_id is not None}
    out: dict[TopicPartition, IsrAnswer] = {}
    for topic in response.topics:
        name = (names.get(topic.topic_id) if version >= TOPIC_IDS_FROM_VERSION
                else topic.topic_name)
        if not name:
            log.error("AlterPartition answer names an unexpected topic %s; ignoring it",
                      topic.topic_id if version >= TOPIC_IDS_FROM_VERSION else topic.topic_name)
            continue
        for p in topic.partitions:
            error = _error(p.error_code)
            if error != ErrorCode.NONE:
                out[(name, p.partition_index)] = error
            elif p.leader_recovery_state not in (RECOVERED, RECOVERING):
                log.error("The controller answered an invalid leader recovery state %d for "
                          "%s-%d", p.leader_recovery_state, name, p.partition_index)
                out[(name, p.partition_index)] = ErrorCode.UNKNOWN_SERVER_ERROR
            else:
                out[(name, p.partition_index)] = RecordedIsr(
                    p.leader_id, p.leader_epoch, tuple(p.isr), p.leader_recovery_state,
                    p.partition_epoch)
    return ErrorCode.NONE, out


def _error(code: int) -> ErrorCode:
    try:
        return ErrorCode(code)
    except ValueError:
        return ErrorCode.UNKNOWN_SERVER_ERROR


# -- the manager -------------------------------------------------------------------------------


class ControllerConnection(Protocol):
    """What the manager needs of a connection (:class:`BrokerClient`)."""

    @property
    def connected(self) -> bool: ...

    async def connect(self, timeout: float) -> None: ...

    async def request(self, api_key: int, version: int, body: Any,
                      timeout_ms: int | None) -> Any: ...

    def close(self) -> None: ...


ConnectionFactory = Callable[[BrokerEndpoint], ControllerConnection]


class AlterPartitionManager:
    """Sends this broker's ISR changes to the controller; see the module's notes.

    ``controller()`` gives the controller's endpoint on the inter-broker listener as the
    metadata cache knows it (None while unknown); ``broker_epoch()`` this broker's current
    epoch, read for every request."""

    def __init__(self, broker_id: int, broker_epoch: Callable[[], int],
                 controller: Callable[[], BrokerEndpoint | None], *,
                 request_timeout_ms: int = 30000, retry_backoff_ms: int = 100,
                 connect: ConnectionFactory | None = None) -> None:
        self.broker_id = broker_id
        self.broker_epoch = broker_epoch
        self.controller = controller
        self.request_timeout_ms = request_timeout_ms
        self.retry_backoff_ms = retry_backoff_ms
        self._connect = connect or (lambda node: BrokerClient(
            node.host, node.port, client_id=f"broker-{broker_id}-alter-partition"))
        #: pending updates by partition: sent or not, they stay until answered
        self.unsent: dict[TopicPartition, AlterPartitionItem] = {}
        self._inflight: asyncio.Task[None] | None = None
        self._retry: asyncio.TimerHandle | None = None
        self._client: ControllerConnection | None = None
        self._client_node: BrokerEndpoint | None = None
        self._controller_max_version: int | None = None
        self._closed = False
        #: requests sent (answered or not), for the logs and the tests
        self.requests_sent = 0

    @property
    def in_flight(self) -> bool:
        return self._inflight is not None

    def submit(self, topic: str, partition: int, topic_id: uuid.UUID | None,
               update: IsrUpdate) -> asyncio.Future[IsrAnswer]:
        """Queue ``update`` for ``topic``-``partition``; the future gets the controller's answer
        for it (OPERATION_NOT_ATTEMPTED at once when an update of that partition is already
        pending)."""
        future: asyncio.Future[IsrAnswer] = asyncio.get_running_loop().create_future()
        key = (topic, partition)
        if self._closed or key in self.unsent:
            future.set_result(ErrorCode.OPERATION_NOT_ATTEMPTED)
            return future
        self.unsent[key] = AlterPartitionItem(topic, partition, topic_id, update, future)
        self._maybe_propagate()
        return future

    def _maybe_propagate(self) -> None:
        """Send every pending update, unless a request is in flight already."""
        self._retry = None
        if self._closed or not self.unsent or self._inflight is not None:
            return
        items = list(self.unsent.values())
        self._inflight = asyncio.get_running_loop().create_task(
            self._send(items), name="alter-partition")

    async def _send(self, items: list[AlterPartitionItem]) -> None:
        top = ErrorCode.UNKNOWN_SERVER_ERROR
        try:
            top = await self._send_until_answered(items)
        except asyncio.CancelledError:
            raise
        except Exception:  # noqa: BLE001 - the updates stay pending and go again
            log.exception("AlterPartition request failed")
        finally:
            self._inflight = None
        if self._closed:
            return
        if top == ErrorCode.NONE:
            self._maybe_propagate()
        else:
            self._retry = asyncio.get_running_loop().call_later(TOP_LEVEL_RETRY_MS / 1000,
                                                                self._maybe_propagate)

    async def _send_until_answered(self, items: list[AlterPartitionItem]) -> ErrorCode:
        """Send ``items`` to the controller until one answers other than NOT_CONTROLLER; hand
        out its per-partition answers and return its request-level error."""
        backoff = self.retry_backoff_ms / 1000
        while True:
            node = self.controller()
            if node is None:
                await asyncio.sleep(backoff)
                continue
            try:
                client = await self._client_for(node)
                version = alter_partition_version(
                    self._controller_max_version,
                    all(item.topic_id is not None and item.topic_id.int for item in items))
                if version is None:
                    log.warning("Controller %d does not serve AlterPartition", node.node_id)
                    return ErrorCode.UNSUPPORTED_VERSION
                request = build_alter_partition_request(self.broker_id, self.broker_epoch(),
                                                        items, version)
                self.requests_sent += 1
                response = await client.request(ApiKey.ALTER_PARTITION, version, request,
                                                self.request_timeout_ms)
            except (BrokerClientError, OSError) as e:
                log.info("AlterPartition to controller %d failed (%s); sending it again",
                         node.node_id, e)
                self._forget_client()
                await asyncio.sleep(backoff)
                continue
            top, answers = parse_alter_partition_response(response, version, items)
            if top == ErrorCode.NOT_CONTROLLER or ErrorCode.NOT_CONTROLLER in answers.values():
                # the controller moved: find it again (Kafka's NodeToControllerChannelManager)
                log.info("Broker %d is no longer the controller; sending AlterPartition to the "
                         "next one", node.node_id)
                self._forget_client()
                await asyncio.sleep(backoff)
                continue
            if top != ErrorCode.NONE:
                log.warning("The controller refused AlterPartition: %s; retrying", top.name)
                return top
            self._complete(items, answers)
            return ErrorCode.NONE

    def _complete(self, items: list[AlterPartitionItem],
                  answers: dict[TopicPartition, IsrAnswer]) -> None:
        for item in items:
            answer = answers.get(item.key)
            if answer is None:
                log.warning("%s-%d was sent but not answered; sending it again", item.topic,
                            item.partition)
                continue
            # cleared before the answer is handed out, so its handler may submit again
            if self.unsent.get(item.key) is item:
                del self.unsent[item.key]
            if not item.future.done():
                item.future.set_result(answer)

    async def _client_for(self, node: BrokerEndpoint) -> ControllerConnection:
        client = self._client
        if client is not None and client.connected and self._client_node == node:
            return client
        self._forget_client()
        client = self._connect(node)
        self._client, self._client_node = client, node
        await client.connect(self.request_timeout_ms / 1000)
        versions = await client.request(ApiKey.API_VERSIONS, 3,
                                         api_versions_request.ApiVersionsRequest(
                                             client_software_name="pybroker",
                                             client_software_version="1"),
                                         self.request_timeout_ms)
        self._controller_max_version = next(
            (k.max_version for k in getattr(versions, "api_keys", [])
             if k.api_key == ApiKey.ALTER_PARTITION), None)
        return client

    def _forget_client(self) -> None:
        if self._client is not None:
            self._client.close()
        self._client = self._client_node = None
        self._controller_max_version = None

    async def shutdown(self) -> None:
        """Stop sending; pending updates are answered OPERATION_NOT_ATTEMPTED."""
        self._closed = True
        if self._retry is not None:
            self._retry.cancel()
        task = self._inflight
        if task is not None:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        self._forget_client()
        pending, self.unsent = self.unsent, {}
        for item in pending.values():
            if not item.future.done():
                item.future.set_result(ErrorCode.OPERATION_NOT_ATTEMPTED)
