"""A real pybroker inside the test process: the broker runs on its own asyncio event loop in a
background thread and serves Kafka's protocol on 127.0.0.1, so any client - kafka-python,
confluent-kafka, aiokafka, the Java clients - talks to it over a socket as to any broker.

What a child process cannot offer comes with it: rules that make the broker fail, delay, drop
or cut off requests of any API (:attr:`InProcessBroker.faults`, :mod:`pybroker.testing.faults`),
retention and compaction run when the test says so (:meth:`InProcessBroker.enforce_retention`,
:meth:`InProcessBroker.compact`), and what was produced read straight from the log
(:meth:`InProcessBroker.records`). It starts in tens of milliseconds, so every test can have
its own broker (the pytest fixtures of :mod:`pybroker.testing.pytest_plugin`).

Everything the broker owns lives on its event loop; the test thread reaches it only through
:meth:`InProcessBroker.call`, which runs a function on the loop and waits for its result.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import threading
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from protocol.errors import ErrorCode, KafkaError
from protocol.messages import (
    ApiKey,
    create_topics_request as ctreq,
    delete_topics_request as dtreq,
    metadata_request as mreq,
    produce_request as preq,
)
from protocol.records.record import Header, build_batch, decode_batch, iter_batches
from pybroker.api.registry import load_handlers
from pybroker.broker import BrokerBase
from pybroker.config import BrokerConfig
from pybroker.log.file_slice import FileSlice
from pybroker.testing.faults import FaultInjector
from pybroker.testing.wire_client import WireClient

T = TypeVar("T")

# Every request handler (and the protocol modules it uses) is imported with this module rather
# than by the first broker's start, so that the first broker starts as quickly as the next.
load_handlers(None)

#: what a test broker runs with unless told otherwise: Kafka's defaults, except what only makes
#: tests wait (the first rebalance's 3 s delay) or builds more than a test needs (fifty
#: ``__consumer_offsets`` partitions, created at a group's first request)
TEST_DEFAULTS: Mapping[str, object] = {
    "broker.id": 0,
    "num.partitions": 1,
    "default.replication.factor": 1,
    "auto.create.topics.enable": "true",
    "group.initial.rebalance.delay.ms": 0,
    "offsets.topic.num.partitions": 1,
    "offsets.topic.replication.factor": 1,
    # Prometheus metrics on a free loopback port (metrics_url)
    "metrics.listener": "http://127.0.0.1:0",
}


class BrokerNotRunning(RuntimeError):
    """The broker is stopped (or never started)."""


@dataclass(frozen=True, slots=True)
class StoredRecord:
    """A record as the broker stored it."""

    topic: str
    partition: int
    offset: int
    timestamp: int
    key: bytes | None
    value: bytes | None
    headers: tuple[Header, ...] = ()


class LoopThread:
    """An asyncio event loop running on a daemon thread until :meth:`close`."""

    def __init__(self, name: str) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        try:
            self.loop.run_forever()
            self.loop.run_until_complete(self._cancel_all())
            self.loop.run_until_complete(self.loop.shutdown_asyncgens())
        finally:
            self.loop.close()

    @staticmethod
    async def _cancel_all() -> None:
        tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    def run(self, coro: Awaitable[T], timeout: float | None = None) -> T:
        """Run ``coro`` on the loop; its result, or its exception raised here."""

        async def wrapped() -> T:
            return await coro

        future = asyncio.run_coroutine_threadsafe(wrapped(), self.loop)
        try:
            return future.result(timeout)
        except concurrent.futures.TimeoutError:
            future.cancel()
            raise TimeoutError(f"not done on the broker's loop within {timeout}s") from None

    def call(self, fn: Callable[..., T], *args: Any, timeout: float | None = None) -> T:
        """``fn(*args)`` on the loop (a plain function: it must not block)."""

        async def call() -> T:
            return fn(*args)

        return self.run(call(), timeout)

    def close(self, timeout: float = 30.0) -> None:
        """Stop the loop (cancelling what still runs on it) and join the thread."""
        if self._thread.is_alive():
            self.loop.call_soon_threadsafe(self.loop.stop)
            self._thread.join(timeout)

    @property
    def alive(self) -> bool:
        return self._thread.is_alive()


class InProcessBroker:
    """One pybroker on ``127.0.0.1`` (a free port, kept across restarts) with its data in
    ``data_dir``, running in this process.

    ``overrides`` are ``server.properties`` settings over :data:`TEST_DEFAULTS`; with
    ``zookeeper.connect`` among them the broker is a ZooKeeper-mode cluster member
    (:class:`pybroker.modes.zookeeper.broker.ZkBroker`), otherwise the embedded single node. ``start()``
    returns once the listener accepts connections; ``stop()`` shuts down cleanly (logs flushed,
    checkpoints written), ``restart()`` does both on the same port and data. Usable as a
    context manager.
    """

    def __init__(self, data_dir: Path, *, overrides: Mapping[str, object] | None = None,
                 host: str = "127.0.0.1", port: int = 0, timeout: float = 30.0) -> None:
        self.data_dir = Path(data_dir)
        self.host = host
        self.port = port
        self.overrides = dict(overrides or {})
        self.timeout = timeout
        #: the fault rules in force; they stay across restarts
        self.faults = FaultInjector()
        self.broker: BrokerBase | None = None
        self._loop: LoopThread | None = None
        #: why the broker stopped serving on its own (its log dirs failed), if it did
        self.halted: str | None = None
        #: seconds the last start and stop took
        self.start_seconds = 0.0
        self.stop_seconds = 0.0

    # -- configuration ------------------------------------------------------------------------
    @property
    def properties(self) -> dict[str, str]:
        """The ``server.properties`` the broker (re)starts with."""
        listener = f"PLAINTEXT://{self.host}:{self.port}"
        props: dict[str, object] = {
            **TEST_DEFAULTS,
            "listeners": listener,
            "advertised.listeners": listener,
            "log.dirs": str(self.data_dir),
        }
        props.update(self.overrides)
        return {k: str(v) for k, v in props.items()}

    @property
    def broker_id(self) -> int:
        return int(self.properties["broker.id"])

    @property
    def bootstrap(self) -> str:
        """``host:port`` for ``bootstrap.servers`` (the port is known once started)."""
        return f"{self.host}:{self.port}"

    @property
    def metrics_url(self) -> str:
        """``http://host:port/metrics`` of the running broker's Prometheus endpoint (its port
        is chosen at each start unless ``metrics.listener`` names one)."""
        endpoint = self.broker.metrics_endpoint if self.broker is not None else None
        if endpoint is None:
            raise BrokerNotRunning("no metrics endpoint: the broker is stopped, or "
                                   "metrics.listener is unset")
        host, port = endpoint.address
        return f"http://{host}:{port}/metrics"

    # -- life cycle ---------------------------------------------------------------------------
    def start(self) -> InProcessBroker:
        if self.running:
            raise RuntimeError(f"broker {self.bootstrap} is already running")
        started = time.perf_counter()
        config = BrokerConfig.from_dict(self.properties)
        loop = LoopThread(f"pybroker-{self.broker_id}")
        try:
            self.broker = loop.run(self._start(config), self.timeout)
        except BaseException:
            loop.close()
            raise
        self._loop = loop
        if self.port == 0:
            self.port = next(port for _, _, port in self.broker.socket_server.bound)
        self.start_seconds = time.perf_counter() - started
        return self

    async def _start(self, config: BrokerConfig) -> BrokerBase:
        broker: BrokerBase
        if config.zookeeper_connect:
            from pybroker.modes.zookeeper.broker import ZkBroker

            broker = ZkBroker(config)
        else:
            from pybroker.modes.embedded.broker import Broker

            broker = Broker(config)
        broker.dispatcher.interceptor = self.faults
        # a broker whose storage is gone stops serving; the process it runs in (the tests)
        # goes on, unlike a broker process's, which halts
        broker.halt = lambda message: self._halt(broker, message)
        try:
            await broker.start()
        except BaseException:
            # close what did start; the reason it failed is the error to report
            with contextlib.suppress(Exception):
                await broker.stop()
            raise
        return broker

    def _halt(self, broker: BrokerBase, message: str) -> None:
        logging.getLogger(__name__).critical("%s: the in-process broker stops listening",
                                             message)
        self.halted = message
        asyncio.get_running_loop().create_task(broker.socket_server.stop())

    def stop(self) -> None:
        """A clean shutdown (a no-op when stopped)."""
        loop, broker = self._loop, self.broker
        if loop is None or broker is None:
            return
        started = time.perf_counter()
        try:
            loop.run(broker.stop(), self.timeout)
        finally:
            loop.close(self.timeout)
            self._loop = None
            self.broker = None
            self.stop_seconds = time.perf_counter() - started

    def restart(self) -> InProcessBroker:
        self.stop()
        return self.start()

    @property
    def running(self) -> bool:
        return self._loop is not None and self._loop.alive

    def __enter__(self) -> InProcessBroker:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def __repr__(self) -> str:
        state = "running" if self.running else "stopped"
        return f"InProcessBroker({self.bootstrap}, {state}, data_dir={self.data_dir})"

    # -- reaching into the broker ------------------------------------------------------------
    def call(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(broker, *args)`` on the broker's event loop, for a look at (or a change to) its
        state; the result, or the exception raised here. ``fn`` must not block."""
        loop, broker = self._loop, self.broker
        if loop is None or broker is None:
            raise BrokerNotRunning(f"broker {self.bootstrap} is not running")
        return loop.call(fn, broker, *args, timeout=self.timeout)

    def run(self, fn: Callable[..., Awaitable[T]], *args: Any) -> T:
        """``await fn(broker, *args)`` on the broker's event loop."""
        loop, broker = self._loop, self.broker
        if loop is None or broker is None:
            raise BrokerNotRunning(f"broker {self.bootstrap} is not running")
        return loop.run(fn(broker, *args), self.timeout)

    def client(self) -> WireClient:
        """A raw-socket client of this broker (close it, or use it in a ``with``)."""
        return WireClient(self.bootstrap, timeout=self.timeout)

    # -- topics ---------------------------------------------------------------------------------
    def create_topic(self, name: str, partitions: int = 1, *, replication_factor: int = -1,
                     config: Mapping[str, object] | None = None,
                     exist_ok: bool = False) -> None:
        """Create a topic through CreateTopics, as an admin client does; returns once it
        exists. ``config``: topic configs (``cleanup.policy``, ``retention.ms``, ...)."""
        topic = ctreq.CreatableTopic(
            name=name, num_partitions=partitions, replication_factor=replication_factor,
            configs=[ctreq.CreatableTopicConfig(name=k, value=str(v))
                     for k, v in (config or {}).items()])
        request = ctreq.CreateTopicsRequest(topics=[topic], timeout_ms=int(self.timeout * 1000))
        with self.client() as client:
            response = client.call(ApiKey.CREATE_TOPICS, 7, request)
        [result] = response.topics
        if result.error_code == ErrorCode.TOPIC_ALREADY_EXISTS and exist_ok:
            return
        if result.error_code != ErrorCode.NONE:
            raise KafkaError(ErrorCode(result.error_code),
                             result.error_message or f"cannot create topic {name}")

    def delete_topic(self, name: str) -> None:
        request = dtreq.DeleteTopicsRequest(topic_names=[name],
                                            timeout_ms=int(self.timeout * 1000))
        with self.client() as client:
            response = client.call(ApiKey.DELETE_TOPICS, 5, request)
        [result] = response.responses
        if result.error_code != ErrorCode.NONE:
            raise KafkaError(ErrorCode(result.error_code),
                             result.error_message or f"cannot delete topic {name}")

    def topics(self) -> list[str]:
        """The topics this broker knows, internal ones included."""
        return self.call(lambda b: sorted(b.metadata_cache.topics))

    # -- records --------------------------------------------------------------------------------
    def produce(self, topic: str, values: Iterable[bytes | tuple[bytes | None, bytes | None]],
                *, partition: int = 0) -> int:
        """Append records (values, or ``(key, value)`` pairs) in one batch with acks=all, as
        a producer does (asking for the topic's metadata first, which creates it when
        ``auto.create.topics.enable`` allows); the offset of the first."""
        records = [(None, v, ()) if not isinstance(v, tuple) else (v[0], v[1], ())
                   for v in values]
        batch = build_batch(records)
        request = preq.ProduceRequest(acks=-1, timeout_ms=int(self.timeout * 1000), topic_data=[
            preq.TopicProduceData(name=topic, partition_data=[
                preq.PartitionProduceData(index=partition, records=bytes(batch))])])
        with self.client() as client:
            self._wait_for_leader(client, topic, partition)
            response = client.call(ApiKey.PRODUCE, 9, request)
        [answer] = response.responses[0].partition_responses
        if answer.error_code != ErrorCode.NONE:
            raise KafkaError(ErrorCode(answer.error_code),
                             answer.error_message or f"cannot produce to {topic}-{partition}")
        return int(answer.base_offset)

    def _wait_for_leader(self, client: WireClient, topic: str, partition: int) -> None:
        """Ask for the topic's metadata until the partition has a leader, as a producer does
        (the first request creates the topic when ``auto.create.topics.enable`` allows; the
        controller elects its leader a moment later)."""
        deadline = time.monotonic() + self.timeout
        while True:
            response = client.call(ApiKey.METADATA, 12, mreq.MetadataRequest(
                topics=[mreq.MetadataRequestTopic(name=topic)], allow_auto_topic_creation=True))
            [found] = response.topics
            if any(p.partition_index == partition and p.leader_id >= 0
                   for p in found.partitions) or time.monotonic() > deadline:
                return
            time.sleep(0.01)

    def records(self, topic: str, partition: int | None = None) -> list[StoredRecord]:
        """What the broker stored for ``topic`` (one partition, or every partition it leads),
        up to the high watermark - what a consumer can read - in offset order per partition.
        Control records (transaction markers) are left out."""
        return self.call(_read_records, topic, partition)

    def end_offsets(self, topic: str) -> dict[int, int]:
        """Partition -> high watermark, for the partitions of ``topic`` this broker leads."""

        def read(broker: BrokerBase) -> dict[int, int]:
            out = {}
            for p in broker.replica_manager.led_partitions(topic):
                part = broker.replica_manager.get_partition(topic, p)
                if part is not None:
                    out[p] = part.high_watermark
            return out

        return self.call(read)

    # -- time-driven work, now -------------------------------------------------------------
    def enforce_retention(self, now_ms: int | None = None) -> int:
        """Apply retention (time, size, log start offset) to every log as the broker's
        ``log.retention.check.interval.ms`` task does, at ``now_ms`` (default: the clock) - a
        time in the future makes ``retention.ms`` pass at once. The number of segments
        deleted. Only closed segments go: roll first (:meth:`roll`) to include the active."""

        def enforce(broker: BrokerBase) -> int:
            return broker.log_manager.cleanup(_now(now_ms))

        return self.call(enforce)

    def roll(self, topic: str | None = None) -> int:
        """Close the active segment of each non-empty log (of ``topic``, or all), as
        ``segment.ms`` would; the number of logs rolled."""

        def roll(broker: BrokerBase) -> int:
            rolled = 0
            for (name, _), log in broker.log_manager.all_logs().items():
                if (topic is None or name == topic) and log.active_segment.size > 0:
                    log.roll(_now(None))
                    rolled += 1
            return rolled

        return self.call(roll)

    def compact(self, topic: str | None = None, *, now_ms: int | None = None,
                roll: bool = True) -> int:
        """Compact the compacted logs (``cleanup.policy=compact``) now, every cleanable one,
        as the log cleaner does in the background: with ``roll`` their active segments are
        closed first so the records produced so far are all cleanable. ``now_ms`` is the
        time the cleaner sees (tombstones go after ``delete.retention.ms``). The number of
        cleaning passes."""
        if roll:
            self.call(_roll_compacted, topic)

        def clean(broker: BrokerBase) -> int:
            from pybroker.log.cleaner import LogCleaner

            cleaner = broker.log_cleaner or LogCleaner(broker.log_manager)
            passes = 0
            while True:
                stats = cleaner.clean_once(_now(now_ms))
                if stats is None or not stats.progressed:
                    return passes
                passes += 1

        return self.call(clean)


def _now(now_ms: int | None) -> int:
    return int(time.time() * 1000) if now_ms is None else now_ms


def _roll_compacted(broker: BrokerBase, topic: str | None) -> None:
    for (name, _), log in broker.log_manager.all_logs().items():
        if topic is not None and name != topic:
            continue
        if "compact" in log.config.cleanup_policy.split(",") and log.active_segment.size > 0:
            log.roll(_now(None))


def _read_records(broker: BrokerBase, topic: str, partition: int | None) -> list[StoredRecord]:
    manager = broker.replica_manager
    partitions: Sequence[int] = (manager.led_partitions(topic) if partition is None
                                 else [partition])
    out: list[StoredRecord] = []
    for index in sorted(partitions):
        part = manager.get_partition(topic, index)
        if part is None or part.log is None:
            raise KafkaError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
                             f"{topic}-{index} is not hosted by broker {broker.broker_id}")
        log, end = part.log, part.high_watermark
        offset = log.log_start_offset
        while offset < end:
            info = log.read(offset, 1 << 20, max_offset=end)
            data = info.records.read_bytes() if isinstance(info.records, FileSlice) \
                else bytes(info.records)
            if not data:
                break
            for pos, header in iter_batches(data):
                if not header.is_control:
                    _, records = decode_batch(data, pos)
                    out.extend(
                        StoredRecord(topic, index, r.offset, r.timestamp, r.key, r.value,
                                     tuple(r.headers))
                        for r in records if offset <= r.offset < end)
                offset = max(offset, header.next_offset)
    return out
