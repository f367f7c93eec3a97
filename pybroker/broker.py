"""The broker: builds the subsystems, starts the listeners, and stops everything in order."""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import logging
import os
import signal
import ssl
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

from protocol.messages import API_NAMES
from pybroker.api.registry import EMBEDDED, load_handlers
from pybroker.api.router import RequestRouter
from pybroker.api.services import BrokerServices
from pybroker.cluster.fetch_session import FetchSessionCache
from pybroker.cluster.metadata_cache import BrokerEndpoint, MetadataCache
from pybroker.cluster.replica_manager import ReplicaManager
from pybroker.cluster.txn_verification import AddPartitionsToTxnManager
from pybroker.config import BrokerConfig, ConfigException, Endpoint
from pybroker.config.dynamic import DEFAULT_ENTITY, DynamicBrokerConfig, EffectiveBrokerConfig
from pybroker.config.listeners import SASL_PROTOCOLS, TLS_PROTOCOLS
from pybroker.coordinator.group_service import GroupCoordinatorService
from pybroker.coordinator.transaction_service import TransactionCoordinatorService
from pybroker.kernel.clock import Clock, SystemClock
from pybroker.log.cleaner import LogCleaner
from pybroker.log.config import LogConfig
from pybroker.log.dir_failure import LogDirFailureChannel
from pybroker.log.log_metrics import register_cleaner, register_log_manager
from pybroker.log.manager import (
    BackgroundIO,
    LogManager,
    write_offset_checkpoints,
)
from pybroker.metadata.config_repository import ConfigRepository
from pybroker.metrics.endpoint import MetricsEndpoint, parse_metrics_listener
from pybroker.metrics.loop_idle import IdleShare
from pybroker.metrics.registry import MetricsRegistry, mbean
from pybroker.metrics.request_metrics import RequestChannelMetrics
from pybroker.network.server import SocketServer
from pybroker.reconfigurables import (
    ListenerReconfigurable,
    LogCleanerReconfigurable,
    LogConfigReconfigurable,
    TransactionVerificationReconfigurable,
)
from pybroker.security.credentials import CredentialCache
from pybroker.security.delegation_tokens import TokenCache
from pybroker.security.listeners import check_listener_security, listener_security
from pybroker.security.sasl import SaslAuthenticator, SaslServerSettings
from pybroker.security.sasl_client import inter_broker_credentials
from pybroker.security.sasl_config import sasl_server_settings
from pybroker.security.service import AclService, authorizer_from_config
from pybroker.security.tls import client_context

log = logging.getLogger(__name__)


def halt_process(message: str) -> NoReturn:
    """Kafka's ``Exit.halt(1)``: log ``message`` and end the process at once, without the
    orderly shutdown (which would write to the storage that failed: clean-shutdown markers,
    checkpoints, snapshots). The logs are recovered at the next start."""
    log.critical("%s", message)
    for handler in logging.getLogger().handlers:
        try:
            handler.flush()
        except Exception:  # noqa: BLE001 - exiting regardless
            pass
    os._exit(1)


class ConfigError(Exception):
    """The configuration cannot be served; the message says why."""



def _proc_io(field: str) -> int | None:
    """A counter of this process's /proc/self/io (Linux; None elsewhere), as Kafka's
    ``linux-disk-read-bytes`` and ``linux-disk-write-bytes`` read it."""
    try:
        with open("/proc/self/io") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key == field:
                    return int(value)
    except OSError:
        return None
    return None

class BrokerBase:
    """What every broker process has, whatever runs the cluster: its configuration, the logs,
    the replica manager and the topic configs they run with, the request handlers and the
    socket server, the scheduled tasks, and the order of shutdown. The embedded single node
    (:mod:`pybroker.modes.embedded.broker`) and a ZooKeeper-mode broker
    (:mod:`pybroker.modes.zookeeper.broker`) build the rest."""

    #: the handler set this kind of broker serves (pybroker.api.registry's modes)
    mode = EMBEDDED

    def __init__(self, config: BrokerConfig) -> None:
        try:
            config.check_listeners()
            for endpoint in config.listeners:  # (their key and trust stores are read later)
                check_listener_security(config, endpoint.listener)
        except ConfigException as e:
            raise ConfigError(e.message) from e
        self.config = config
        #: the time every subsystem built here reads
        self.clock: Clock = SystemClock()
        #: every metric of this broker (Kafka's MBeans), which subsystems record into
        self.metrics = MetricsRegistry(self.clock)
        #: the Prometheus endpoint metrics.listener asks for (None: not served)
        self.metrics_endpoint: MetricsEndpoint | None = None
        listener = config.value("metrics.listener")
        if listener:
            try:
                host, port = parse_metrics_listener(listener)
            except ValueError as e:
                raise ConfigError(str(e)) from e
            self.metrics_endpoint = MetricsEndpoint(self.metrics, host, port,
                                                    ready=lambda: self.serving)
        #: (name, security protocol) of the listener brokers reach each other on
        self.inter_broker: tuple[str, str] = config.inter_broker_listener
        #: TLS for this broker's connections to that listener (None unless it runs over TLS)
        self.inter_broker_tls: ssl.SSLContext | None = None
        if self.inter_broker[1] in TLS_PROTOCOLS:
            try:
                self.inter_broker_tls = client_context(config, self.inter_broker[0])
            except ConfigException as e:
                raise ConfigError(e.message) from e
        #: how this broker authenticates to that listener (None unless it is SASL_*)
        try:
            self.inter_broker_sasl = inter_broker_credentials(config.props, *self.inter_broker)
        except ValueError as e:
            raise ConfigError(str(e)) from e
        #: the configuration as dynamic broker configs change it (KIP-226)
        self.dynamic_config = DynamicBrokerConfig(config)
        self.broker_id = config.broker_id
        self.log_dirs: list[Path] = config.log_dirs
        try:
            self.default_log_config = LogConfig.from_broker_properties(config.props)
        except Exception as e:
            raise ConfigError(f"invalid log configuration: {e}") from e
        self.configs = ConfigRepository(self.default_log_config)
        #: directory removals and checkpoint writes (leader epochs too), off the event loop
        self.storage_io = BackgroundIO()
        #: where every storage path reports an I/O error in a log dir (KIP-112)
        self.failures = LogDirFailureChannel()
        self.log_manager = LogManager(self.log_dirs, self.default_log_config,
                                      remove_dir=self.storage_io.remove_dir,
                                      io=self.storage_io.submit, failures=self.failures)
        register_log_manager(self.metrics, self.log_manager)
        self.replica_manager = ReplicaManager(self.broker_id, self.log_manager,
                                              self.configs.log_config, clock=self.clock,
                                              metrics=self.metrics)
        # a move between log dirs copies at most what a follower fetches of a partition
        self.replica_manager.log_dir_mover.chunk_bytes = config.get_int("replica.fetch.max.bytes")
        self.replica_manager.transaction_max_timeout_ms = config.get_int(
            "transaction.max.timeout.ms")
        self.configs.add_listener(self.replica_manager.update_log_config)
        self.dynamic_config.add_reconfigurable(
            LogConfigReconfigurable(self.configs, self.log_manager))
        self.metadata_cache: MetadataCache | None = None
        self.groups: GroupCoordinatorService | None = None
        self.transactions: TransactionCoordinatorService | None = None
        #: KIP-890's verification of transactional appends (whether it is on:
        #: transaction.partition.verification.enable)
        self.txn_verification: AddPartitionsToTxnManager | None = None
        self.services: BrokerServices | None = None
        try:
            #: the authorizer authorizer.class.name names (None: every request allowed)
            self.authorizer = authorizer_from_config(config)
        except ValueError as e:
            raise ConfigError(str(e)) from e
        self.acls = AclService()
        self.handlers = load_handlers(self.mode)
        self.fetch_sessions = FetchSessionCache(
            config.get_int("max.incremental.fetch.session.cache.slots"))
        self.dispatcher = RequestRouter(None, self.handlers, clock=self.clock)
        self.dispatcher.request_metrics = RequestChannelMetrics(
            self.metrics, (API_NAMES[key] for key in sorted(self.handlers)))
        self.socket_server = SocketServer(
            self.dispatcher, max_frame_size=config.get_int("socket.request.max.bytes"),
            security=lambda listener: listener_security(self.current_config, listener),
            metrics=self.metrics)
        #: users' SCRAM credentials, as SASL authentication reads them
        self.credential_cache = CredentialCache()
        #: delegation tokens, and their SCRAM credentials (``tokenauth=true``)
        self.token_cache = TokenCache()
        self._sasl_settings: dict[str, SaslServerSettings | None] = {}
        for ep in config.listeners:
            self._sasl_listener_settings(ep.listener)
        self.socket_server.sasl_authenticator = self._new_sasl_authenticator
        self._tasks: list[asyncio.Task] = []
        #: the compacting cleaner, once the scheduled tasks run with log.cleaner.enable
        self.log_cleaner: LogCleaner | None = None
        self._stopped = asyncio.Event()
        self._stopping = False
        self.started = False

    def _sasl_listener_settings(self, listener: str) -> SaslServerSettings | None:
        """A listener's SASL settings (None: it does not authenticate with SASL), read once."""
        if listener not in self._sasl_settings:
            config = self.current_config
            settings = None
            if config.security_protocol(listener) in SASL_PROTOCOLS:
                try:
                    settings = dataclasses.replace(
                        sasl_server_settings(config.props, listener,
                                             self.credential_cache.lookup),
                        token_lookup=self.token_cache.credential)
                except ValueError as e:
                    raise ConfigError(str(e)) from e
            self._sasl_settings[listener] = settings
        return self._sasl_settings[listener]

    def _new_sasl_authenticator(self, listener: str) -> SaslAuthenticator | None:
        try:
            settings = self._sasl_listener_settings(listener)
        except ConfigError as e:
            # a listener added at run time with SASL settings that do not parse: it fails
            # closed (no mechanism is offered) rather than letting anyone in
            log.error("listener %s: %s; it offers no SASL mechanism", listener, e)
            settings = self._sasl_settings[listener] = SaslServerSettings(())
        return SaslAuthenticator(settings) if settings is not None else None

    def _check_log_dirs(self) -> None:
        for d in self.log_dirs:
            if d.exists() and not d.is_dir():
                raise ConfigError(f"log dir {d} is not a directory")
            try:
                d.mkdir(parents=True, exist_ok=True)
            except OSError as e:
                raise ConfigError(f"log dir {d} cannot be created: {e.strerror}") from e

    @property
    def current_config(self) -> BrokerConfig:
        """The configuration now, dynamic broker configs included."""
        return self.dynamic_config.current.config

    def _apply_stored_broker_configs(self, entities: dict[str, dict[str, str]]) -> None:
        """The stored dynamic broker configs, before the logs open (Kafka's
        ``DynamicBrokerConfig.initialize``): the cluster's defaults, then this broker's."""
        self.dynamic_config.update_default_config(entities.get(DEFAULT_ENTITY, {}))
        self.dynamic_config.update_broker_config(entities.get(str(self.broker_id), {}))

    def _add_listener_reconfigurable(self) -> None:
        """Listeners opened and closed as ``listeners`` changes, once the first are open."""
        def add(endpoints: list[Endpoint]) -> None:
            self._background(self.socket_server.add_listeners(endpoints), "add-listeners")

        def remove(names: list[str]) -> None:
            self._background(self.socket_server.remove_listeners(names), "remove-listeners")

        self.dynamic_config.add_reconfigurable(ListenerReconfigurable(
            add=add, remove=remove, advertise=self._advertised_listeners_changed))

    def _advertised_listeners_changed(self, new: EffectiveBrokerConfig) -> None:
        """What this broker advertises changed (a dynamic ``advertised.listeners``)."""

    async def _open_listeners(self, *, serving: bool = True) -> None:
        """Open the configured listeners (a TLS listener whose stores cannot be read is a
        ConfigError); without ``serving``, bound but not accepting yet."""
        try:
            await self.socket_server.start(self.current_config.listeners, serving=serving)
        except ConfigException as e:
            raise ConfigError(e.message) from e

    def _background(self, work: Any, name: str) -> None:
        """Run a coroutine a reconfiguration started; its failure is logged."""
        task = asyncio.get_running_loop().create_task(work, name=name)

        def done(t: asyncio.Task[Any]) -> None:
            if not t.cancelled() and t.exception() is not None:
                log.error("%s failed", name, exc_info=t.exception())
        task.add_done_callback(done)
        self._tasks.append(task)

    def _advertised_endpoints(self) -> list[tuple[str, str, int]]:
        """``(listener, host, port)`` of each advertised listener; an ephemeral listener
        advertises the port it got."""
        out = []
        for advertised in self.current_config.advertised_listeners:
            port = advertised.port
            if port == 0:
                port = next(p for name, _, p in self.socket_server.bound
                            if name == advertised.listener)
            out.append((advertised.listener, advertised.host, port))
        return out

    def _advertised_endpoint(self) -> BrokerEndpoint:
        listener, host, port = self._advertised_endpoints()[0]
        rack = self.current_config.get("broker.rack") or None
        return BrokerEndpoint(self.broker_id, host, port, rack)

    def _schedule(self, name: str, interval_ms: int, job: Callable[[int], object]) -> None:
        """Run ``job(now_ms)`` every ``interval_ms`` on the event loop (Kafka's KafkaScheduler);
        a job that returns an awaitable (work handed to :attr:`storage_io`) is waited for
        before the next interval starts."""

        async def loop() -> None:
            while True:
                await asyncio.sleep(interval_ms / 1000)
                try:
                    result = job(self.clock.milliseconds())
                    if inspect.isawaitable(result):
                        await result
                except Exception:
                    log.exception("scheduled task %s failed", name)

        self._tasks.append(asyncio.create_task(loop(), name=name))

    def _start_scheduled_tasks(self) -> None:
        get = self.config.get_int
        logs = self.log_manager
        assert self.groups is not None, "the group coordinator is built before the tasks start"
        # flush.ms is checked every second: Kafka's log.flush.scheduler.interval.ms defaults to
        # "never" and relies on the OS; a topic that sets flush.ms still gets its fsyncs.
        self._schedule("log-flusher", 1000, logs.flush_dirty)
        self._schedule("recovery-point-checkpoint",
                       get("log.flush.offset.checkpoint.interval.ms"),
                       lambda _now: self.in_storage_io(write_offset_checkpoints,
                                                       logs.checkpoint_contents(),
                                                       self.failures))
        self._schedule("log-retention", get("log.retention.check.interval.ms"), logs.cleanup)
        self._schedule("offsets-expiration", get("offsets.retention.check.interval.ms"),
                       self.groups.expire_offsets)
        if self.transactions is not None:
            self._schedule("transaction-abort",
                           get("transaction.abort.timed.out.transaction.cleanup.interval.ms"),
                           self.transactions.abort_timed_out_transactions)
            self._schedule("transactionalId-expiration",
                           get("transaction.remove.expired.transaction.cleanup.interval.ms"),
                           self.transactions.remove_expired_transactional_ids)
        if self.config.get_bool("log.cleaner.enable"):
            cleaner = self.log_cleaner = LogCleaner(
                logs, backoff_ms=self.current_config.get_int("log.cleaner.backoff.ms"))
            self.dynamic_config.add_reconfigurable(LogCleanerReconfigurable(cleaner))
            cleaner_task = asyncio.create_task(cleaner.run(self.clock), name="log-cleaner")
            self._tasks.append(cleaner_task)
            register_cleaner(self.metrics, cleaner, lambda: cleaner_task,
                             self.clock.milliseconds)
        self._schedule(
            "producer-expiration", get("producer.id.expiration.check.interval.ms"),
            lambda now: [log_.remove_expired_producers(now) for log_ in logs.all_logs().values()],
        )

    def _set_up_transaction_verification(self, cache: MetadataCache,
                                         alive_endpoint: Callable[[int], BrokerEndpoint | None],
                                         ) -> None:
        """KIP-890's verification of transactional appends with the transaction coordinators
        (this broker's own in-process, the others' over AddPartitionsToTxn), on while
        ``transaction.partition.verification.enable`` is (Kafka's default; a dynamic
        cluster-wide config); set before any partition is led."""
        assert self.transactions is not None
        verifier = self.txn_verification = AddPartitionsToTxnManager(
            self.broker_id, cache, alive_endpoint, self.transactions.partition_for,
            self.transactions, request_timeout_ms=self.config.get_int("request.timeout.ms"),
            ssl_context=self.inter_broker_tls, sasl=self.inter_broker_sasl)

        def apply(enabled: bool) -> None:
            self.replica_manager.set_transaction_verifier(verifier if enabled else None)

        apply(self.current_config.get_bool("transaction.partition.verification.enable"))
        self.dynamic_config.add_reconfigurable(TransactionVerificationReconfigurable(apply))

    async def start(self) -> None:
        raise NotImplementedError

    @property
    def serving(self) -> bool:
        """Whether the broker has started and its listeners accept clients (``/ready``)."""
        return self.started and self.socket_server.serving and not self._stopping

    def _register_server_metrics(self) -> None:
        """The broker's own gauges: ``kafka.server:type=KafkaServer`` (its state, the bytes its
        process read and wrote on disk, how many metrics it has), the controller it knows of
        and its fetch session cache."""
        def gauge(type_: str, name: str, read: Callable[[], float | int | None]) -> None:
            self.metrics.gauge(mbean("kafka.server", type_, name), read)

        gauge("KafkaServer", "BrokerState", self._broker_state)
        gauge("KafkaServer", "linux-disk-read-bytes", lambda: _proc_io("read_bytes"))
        gauge("KafkaServer", "linux-disk-write-bytes", lambda: _proc_io("write_bytes"))
        gauge("KafkaServer", "yammer-metrics-count", lambda: sum(1 for _ in self.metrics.names()))
        gauge("MetadataLoader", "CurrentControllerId",
              lambda: self.metadata_cache.controller_id if self.metadata_cache else -1)
        sessions = self.fetch_sessions
        gauge("FetchSessionCache", "NumIncrementalFetchSessions", lambda: len(sessions))
        gauge("FetchSessionCache", "NumIncrementalFetchPartitionsCached",
              lambda: sessions.total_partitions)
        sessions.eviction_meter = self.metrics.meter(mbean(
            "kafka.server", "FetchSessionCache", "IncrementalFetchSessionEvictionsPerSec"))

    def _broker_state(self) -> int:
        """Kafka's ``BrokerState``: STARTING (1), RUNNING (3), SHUTTING_DOWN (7)."""
        if self._stopping:
            return 7
        return 3 if self.serving else 1

    def _start_metrics_endpoint(self) -> None:
        """Serve /metrics from the start of start-up (/ready says 503 until serving), and
        register what the running loop tells (its idle share)."""
        self._register_server_metrics()
        idle = IdleShare()  # on the loop's thread: its CPU clock
        self.metrics.gauge(mbean("kafka.network", "SocketServer",
                                 "NetworkProcessorAvgIdlePercent"), idle.recent)
        self.metrics.gauge(mbean("kafka.network", "Processor", "IdlePercent",
                                 networkProcessor=0), idle.since_start)
        self.metrics.attributes(
            mbean("kafka.server", "KafkaRequestHandlerPool", "RequestHandlerAvgIdlePercent"),
            lambda: {"Count": idle.idle_s * 1e9, "MeanRate": idle.since_start()})
        if self.metrics_endpoint is None:
            return
        try:
            self.metrics_endpoint.start()
        except OSError as e:
            raise ConfigError(f"metrics.listener {self.config.value('metrics.listener')}: "
                              f"{e.strerror or e}") from e

    # -- log dir failures (KIP-112) ------------------------------------------------------------
    #: how the broker ends when its storage is gone (Kafka's ``Exit.halt(1)``; an in-process
    #: test broker replaces it)
    halt: Callable[[str], None] = staticmethod(halt_process)

    def _watch_log_dirs(self) -> None:
        """Take failed log dirs offline from now on (and those start-up found failed)."""
        self.failures.set_handler(self._handle_log_dir_failure)

    def _handle_log_dir_failure(self, log_dir: Path) -> None:
        """A log dir failed (Kafka's ``LogDirFailureHandler``): its partitions go offline
        here; with no healthy dir left the broker halts, as Kafka's does."""
        offline = self.replica_manager.handle_log_dir_failure(log_dir, self.clock.milliseconds())
        if offline is None:
            return  # offline already
        if not self.log_manager.live_log_dirs:
            self._halt(f"Shutdown broker because all log dirs in "
                       f"{', '.join(str(d) for d in self.log_dirs)} have failed")
            return
        self._log_dir_failed(log_dir, offline)

    def _log_dir_failed(self, log_dir: Path, partitions: list[tuple[str, int]]) -> None:
        """What the mode does once a log dir (not the last) went offline."""

    def _halt(self, message: str) -> None:
        self.halt(message)

    async def _stop_cluster(self) -> None:
        """What the cluster mode stops before the listeners close (nothing when embedded)."""

    def in_storage_io(self, fn: Callable[..., None], *args: object) -> asyncio.Future[None]:
        """Run ``fn(*args)`` on the storage thread; a future of it on this loop."""
        return asyncio.wrap_future(self.storage_io.submit(fn, *args))

    def stop_storage(self) -> None:
        self.storage_io.close()
        self.replica_manager.shutdown()
        self.log_manager.shutdown()

    async def stop(self) -> None:
        log.info("broker %d shutting down", self.broker_id)
        self._stopping = True
        await self._stop_cluster()
        for t in self._tasks:
            t.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        await self.socket_server.stop()
        await self._close_sasl_validators()
        if self.metrics_endpoint is not None:
            await self.metrics_endpoint.stop()
        if self.txn_verification is not None:
            await self.txn_verification.shutdown()
        if self.transactions is not None:
            await self.transactions.shutdown()
        if self.groups is not None:
            self.groups.shutdown(self.clock.milliseconds())
        self.stop_storage()
        await self._close_cluster()
        self._stopped.set()
        log.info("broker %d shut down cleanly", self.broker_id)

    async def _close_sasl_validators(self) -> None:
        """Stop the listeners' OAUTHBEARER validators that refresh keys in a thread (joined
        off the event loop)."""
        for settings in self._sasl_settings.values():
            close = getattr(settings.oauth_validator if settings else None, "close", None)
            if close is not None:
                await asyncio.to_thread(close)

    async def _close_cluster(self) -> None:
        """What the cluster mode closes last (nothing when embedded)."""

    async def run_until_signal(self) -> None:
        await self.start()
        loop = asyncio.get_running_loop()
        stop = asyncio.Event()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        await stop.wait()
        await self.stop()
