"""The controller's channel to every broker (Kafka's ``ControllerChannelManager`` and its
``RequestSendThread``s, as asyncio tasks).

Each broker has its own FIFO queue and one sender task, so a slow or absent broker holds up
only its own requests. The sender takes the request at the head of the queue, sends it, waits
for the answer (``controller.socket.timeout.ms``), hands the answer to the request's callback,
and only then goes on to the next request: one request in flight per broker, as in Kafka.

When the connection cannot be made, breaks, or an answer does not come in time, the sender
closes the connection, waits ``retry_backoff_ms`` (Kafka: 100 ms), reconnects and sends the
*same* request again, until it is answered or the broker is removed. That is how a controller
waits for a broker that is still starting or has just restarted: its queued requests are
delivered once it is back. Each successful (re)connection is logged once at INFO, and the
first failure of a run of failed attempts once at WARNING; the retries in between only at
DEBUG.

Callbacks run on the event loop, never inside ``add_broker``/``remove_broker``/``send``. Every
request handed to :meth:`ControllerChannelManager.send` gets exactly one outcome: its
response, or a :class:`ChannelRequestFailed` - :class:`BrokerRemovedError` when its broker is
removed (or was never added, or the channel shuts down) before an answer came.
"""

from __future__ import annotations

import asyncio
import collections
import logging
import ssl
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeAlias

from protocol import messages
from pybroker.metrics.registry import MetricsRegistry, Timer, mbean
from pybroker.network.client import BrokerClient, BrokerClientError
from pybroker.security.sasl_client import SaslClientCredentials

log = logging.getLogger(__name__)

__all__ = [
    "BrokerRemovedError",
    "ChannelRequestFailed",
    "ControllerChannelManager",
    "ResponseCallback",
]

#: Kafka's controller.socket.timeout.ms
DEFAULT_SOCKET_TIMEOUT_MS = 30000
#: the pause between two attempts of Kafka's RequestSendThread
DEFAULT_RETRY_BACKOFF_MS = 100

#: called with the response dataclass, or with a ChannelRequestFailed
ResponseCallback = Callable[[Any], None]


class ChannelRequestFailed(Exception):
    """The outcome of a request that will never get a response."""


class BrokerRemovedError(ChannelRequestFailed):
    """The request's broker left the channel (or was never in it) before the request was
    answered."""

    def __init__(self, broker_id: int, reason: str) -> None:
        super().__init__(f"broker {broker_id} {reason}")
        self.broker_id = broker_id


@dataclass(slots=True)
class _QueueItem:
    api_key: int
    version: int
    body: Any
    callback: ResponseCallback
    #: when it was queued (time.perf_counter: the queue time is a measurement)
    queued_at: float = 0.0

    @property
    def name(self) -> str:
        return f"{messages.API_NAMES.get(self.api_key, str(self.api_key))} v{self.version}"


@dataclass(slots=True)
class _BrokerState:
    broker_id: int
    host: str
    port: int
    queue: collections.deque[_QueueItem] = field(default_factory=collections.deque)
    wakeup: asyncio.Event = field(default_factory=asyncio.Event)
    client: BrokerClient | None = None
    task: asyncio.Task[None] | None = None
    failing: bool = False  # the last attempt failed and was logged; its retries are not
    #: the broker's requests handed to it in this process, without a socket (or None)
    local: LocalDelivery | None = None
    #: the head of the queue is being sent (Kafka's QueueSize leaves it out)
    in_flight: bool = False
    #: RequestRateAndQueueTimeMs: the time requests waited in the queue
    queue_time: Timer | None = None

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"


#: hands a request (api key, version, body) to a broker in this process; its response
LocalDelivery: TypeAlias = Callable[[int, int, Any], Awaitable[Any]]


class ControllerChannelManager:
    """Queues and sender tasks, one per broker, from controller ``controller_id``.

    Create it on the event loop it will run on. ``socket_timeout_ms`` bounds each connection
    attempt and each wait for an answer (``controller.socket.timeout.ms``);
    ``retry_backoff_ms`` is the pause before a reconnection. The client id of the requests is
    the controller's broker id, as Kafka's.
    """

    def __init__(
        self,
        controller_id: int,
        *,
        socket_timeout_ms: int = DEFAULT_SOCKET_TIMEOUT_MS,
        retry_backoff_ms: int = DEFAULT_RETRY_BACKOFF_MS,
        ssl_context: ssl.SSLContext | None = None,
        sasl: SaslClientCredentials | None = None,
        local: Mapping[int, LocalDelivery] | None = None,
    ) -> None:
        self.controller_id = controller_id
        #: the brokers in this process, reached without a socket (the embedded node's own
        #: control requests: a loopback channel)
        self.local = dict(local or {})
        #: how to authenticate to the brokers (a SASL_* inter-broker listener), or None
        self.sasl = sasl
        #: TLS to the brokers (an SSL or SASL_SSL inter-broker listener), or None
        self.ssl_context = ssl_context
        self.socket_timeout_ms = socket_timeout_ms
        self.retry_backoff_ms = retry_backoff_ms
        self._loop = asyncio.get_running_loop()
        self._brokers: dict[int, _BrokerState] = {}
        self._stopping: set[asyncio.Task[None]] = set()
        self._shut_down = False
        self._metrics: MetricsRegistry | None = None

    # -- metrics (Kafka's ControllerChannelManager MBeans) -------------------------------------

    def register_metrics(self, registry: MetricsRegistry) -> None:
        """Serve TotalQueueSize and, per broker while it is in the channel, QueueSize and
        RequestRateAndQueueTimeMs (tag ``broker-id``); :meth:`shutdown` removes them."""
        self._metrics = registry
        registry.gauge(mbean("kafka.controller", "ControllerChannelManager", "TotalQueueSize"),
                       lambda: sum(self._waiting(s) for s in list(self._brokers.values())))
        for state in self._brokers.values():
            self._register_broker(state)

    @staticmethod
    def _waiting(state: _BrokerState) -> int:
        return len(state.queue) - (1 if state.in_flight else 0)

    def _broker_beans(self, broker_id: int) -> tuple[Any, Any]:
        return (mbean("kafka.controller", "ControllerChannelManager", "QueueSize",
                      **{"broker-id": broker_id}),
                mbean("kafka.controller", "ControllerChannelManager",
                      "RequestRateAndQueueTimeMs", **{"broker-id": broker_id}))

    def _register_broker(self, state: _BrokerState) -> None:
        if self._metrics is None:
            return
        size, queue_time = self._broker_beans(state.broker_id)
        self._metrics.gauge(size, lambda: self._waiting(state))
        state.queue_time = self._metrics.timer(queue_time)

    def _unregister_broker(self, broker_id: int) -> None:
        if self._metrics is not None:
            for bean in self._broker_beans(broker_id):
                self._metrics.remove(bean)

    # -- membership ---------------------------------------------------------------------------

    @property
    def broker_ids(self) -> list[int]:
        return sorted(self._brokers)

    def queue_size(self, broker_id: int) -> int:
        """Requests queued for ``broker_id``, the one being sent included (0 if unknown)."""
        state = self._brokers.get(broker_id)
        return len(state.queue) if state is not None else 0

    def add_broker(self, broker_id: int, host: str, port: int) -> None:
        """Open a queue and a sender task for a broker; a broker already here is left as is."""
        if self._shut_down:
            raise RuntimeError("the controller channel has been shut down")
        if broker_id in self._brokers:
            return
        state = _BrokerState(broker_id, host, port, local=self.local.get(broker_id))
        self._register_broker(state)
        state.task = self._loop.create_task(
            self._send_loop(state),
            name=f"controller-{self.controller_id}-to-broker-{broker_id}-sender",
        )
        self._brokers[broker_id] = state

    def remove_broker(self, broker_id: int) -> None:
        """Stop sending to a broker: its connection is closed, its sender stopped, and every
        request still queued for it (the one in flight too) is answered BrokerRemovedError."""
        state = self._brokers.pop(broker_id, None)
        if state is not None:
            self._unregister_broker(broker_id)
            self._stop(state, "was removed from the controller's channel")

    def send(
        self, broker_id: int, api_key: int, version: int, body: Any, callback: ResponseCallback
    ) -> None:
        """Queue a request for ``broker_id``; ``callback`` gets its response, or a
        ChannelRequestFailed. A request that cannot be encoded raises here, at once."""
        messages.request_module(api_key).encode(body, version)  # the caller's mistake, now
        item = _QueueItem(api_key, version, body, callback, time.perf_counter())
        state = self._brokers.get(broker_id)
        if state is None:
            log.warning("Controller %d is not sending %s to broker %d: it is not (or no longer) "
                        "in the controller's channel", self.controller_id, item.name, broker_id)
            self._loop.call_soon(
                self._deliver, item, BrokerRemovedError(broker_id, "is not in the controller's "
                                                        "channel")
            )
            return
        state.queue.append(item)
        state.wakeup.set()

    async def shutdown(self) -> None:
        """Remove every broker and wait until their sender tasks have ended."""
        self._shut_down = True
        states, self._brokers = list(self._brokers.values()), {}
        for state in states:
            self._unregister_broker(state.broker_id)
            self._stop(state, "left the controller's channel when it shut down")
        if self._metrics is not None:
            self._metrics.remove(mbean("kafka.controller", "ControllerChannelManager",
                                       "TotalQueueSize"))
        if self._stopping:
            await asyncio.gather(*self._stopping, return_exceptions=True)

    # -- the sender ---------------------------------------------------------------------------

    def _stop(self, state: _BrokerState, reason: str) -> None:
        task, state.task = state.task, None
        if task is not None and not task.done():
            task.cancel()
            self._stopping.add(task)
            task.add_done_callback(self._stopping.discard)
        if state.client is not None:
            state.client.close()
            state.client = None
        pending, state.queue = list(state.queue), collections.deque()
        if pending:
            log.info("Controller %d dropped %d request(s) queued for broker %d: it %s",
                     self.controller_id, len(pending), state.broker_id, reason)
        for item in pending:
            self._loop.call_soon(self._deliver, item, BrokerRemovedError(state.broker_id, reason))

    async def _send_loop(self, state: _BrokerState) -> None:
        while True:
            while not state.queue:
                state.wakeup.clear()
                await state.wakeup.wait()
            item = state.queue[0]
            state.in_flight = True
            if state.queue_time is not None:
                state.queue_time.update((time.perf_counter() - item.queued_at) * 1000)
            try:
                outcome: Any = await self._send_until_answered(state, item)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # a bug, not the network: answer it and go on
                log.exception("Controller %d could not send %s to broker %d",
                              self.controller_id, item.name, state.broker_id)
                outcome = ChannelRequestFailed(f"{item.name} to broker {state.broker_id}: {exc}")
            # the head is still this request: removing the broker cancels this task first
            state.in_flight = False
            state.queue.popleft()
            self._deliver(item, outcome)

    async def _send_until_answered(self, state: _BrokerState, item: _QueueItem) -> Any:
        if state.local is not None:
            return await state.local(item.api_key, item.version, item.body)
        while True:
            client = await self._ready_client(state)
            try:
                return await client.request(
                    item.api_key, item.version, item.body, self.socket_timeout_ms
                )
            except BrokerClientError as exc:
                client.close()
                state.client = None
                self._note_failure(state, f"got no answer to {item.name} from", exc)
                await asyncio.sleep(self.retry_backoff_ms / 1000)

    async def _ready_client(self, state: _BrokerState) -> BrokerClient:
        """The broker's connection, made (again, after a backoff, as often as needed) if it has
        none or has lost it."""
        while state.client is None or not state.client.connected:
            if state.client is not None:
                log.info("Controller %d: connection to broker %d at %s %s; reconnecting",
                         self.controller_id, state.broker_id, state.address,
                         state.client.closed_reason)
                state.client.close()
                state.client = None
            client = BrokerClient(state.host, state.port, client_id=str(self.controller_id),
                                  ssl_context=self.ssl_context, sasl=self.sasl)
            try:
                await client.connect(self.socket_timeout_ms / 1000)
            except BrokerClientError as exc:
                self._note_failure(state, "cannot reach", exc)
                await asyncio.sleep(self.retry_backoff_ms / 1000)
                continue
            state.client = client
            log.info("Controller %d connected to broker %d at %s for sending state change "
                     "requests", self.controller_id, state.broker_id, state.address)
            state.failing = False
        return state.client

    def _note_failure(self, state: _BrokerState, what: str, exc: Exception) -> None:
        """Log the first failure of a run at WARNING, the retries that follow at DEBUG."""
        if state.failing:
            log.debug("Controller %d %s broker %d (retrying): %s",
                      self.controller_id, what, state.broker_id, exc)
            return
        state.failing = True
        log.warning("Controller %d %s broker %d: %s; retrying every %d ms until it answers",
                    self.controller_id, what, state.broker_id, exc, self.retry_backoff_ms)

    def _deliver(self, item: _QueueItem, outcome: Any) -> None:
        try:
            item.callback(outcome)
        except Exception:
            log.exception("Controller %d: the callback of %s failed", self.controller_id,
                          item.name)
