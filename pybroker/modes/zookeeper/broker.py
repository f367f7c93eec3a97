"""A broker of a ZooKeeper-mode cluster (Kafka's ``KafkaServer``).

Start-up, in Kafka 3.9's order: connect to ZooKeeper (the chroot is created if missing), make
sure of the persistent paths, get or create the cluster id (and check ``meta.properties``), read
every topic's config overrides, load and recover the logs, start the replica manager and the
listeners, register ``/brokers/ids/<id>`` (its czxid is this broker's epoch), start the
controller module (which may win the election), the group coordinator and the transaction
coordinator. From then on the
controller tells this broker what to lead and follow (LeaderAndIsr) and what the cluster looks
like (UpdateMetadata); topic config changes and dynamic broker configs (``/config/brokers``,
read before the logs open) arrive through ``/config/changes``. Partitions it
follows are copied from their leaders by the replica fetchers
(:mod:`pybroker.cluster.replica_fetcher`), which reach the leaders on the inter-broker listener;
from the first LeaderAndIsr on, the high watermarks are checkpointed every
``replica.high.watermark.checkpoint.interval.ms``. Partitions it leads keep their ISR: followers
that catch up join it, and every ``replica.lag.time.max.ms`` / 2 those that fell behind are
dropped, each change asked of the controller with AlterPartition
(:mod:`pybroker.cluster.alter_partition`).

The session: when ZooKeeper expires it, this broker keeps serving what it leads (it changes role
only on a LeaderAndIsr), resigns as controller if it was one, and once a new session is up
registers again - with a new, higher broker epoch - and takes part in the election again.

Shutdown: a controlled shutdown first (the controller moves this broker's leaderships away, up
to ``controlled.shutdown.max.retries`` attempts), then the controller module, the replica
fetchers and the ISR changes in flight, the listeners, the logs (high watermarks and offsets
checkpointed, marked clean), and the session last, which removes the registration.
"""

from __future__ import annotations

import asyncio
import logging
import ssl
from collections.abc import Callable
from pathlib import Path
from typing import Any

from protocol.errors import ErrorCode
from protocol.messages import ApiKey, controlled_shutdown_request
from pybroker.api.registry import ZOOKEEPER
from pybroker.api.services import BrokerServices
from pybroker.broker import BrokerBase, ConfigError
from pybroker.cluster.alter_partition import AlterPartitionManager
from pybroker.cluster.control import ControlRequestHandler
from pybroker.cluster.fetcher_state import FetcherConfig
from pybroker.cluster.hosted_partitions import write_high_watermark_checkpoints
from pybroker.cluster.metadata_cache import BrokerEndpoint, MetadataCache
from pybroker.cluster.replica_fetcher import ReplicaFetcherManager
from pybroker.config import BrokerConfig
from pybroker.config.dynamic import DEFAULT_ENTITY, EffectiveBrokerConfig
from pybroker.controller.channel import ControllerChannelManager
from pybroker.controller.kafka_controller import KafkaController
from pybroker.coordinator.group_service import GroupCoordinatorService
from pybroker.coordinator.producer_id_manager import ProducerIdManager
from pybroker.coordinator.transaction_service import TransactionCoordinatorService
from pybroker.kernel.outcome import Outcome
from pybroker.kernel.placement import assign_replicas_rack_unaware
from pybroker.metadata.meta_properties import check_meta_properties
from pybroker.modes.zookeeper.acls import AclChangeWatcher, ZkAclStore
from pybroker.modes.zookeeper.admin import ZkAdminManager
from pybroker.modes.zookeeper.client_quotas import ZkClientQuotas
from pybroker.modes.zookeeper.config_changes import ConfigChangeWatcher
from pybroker.modes.zookeeper.controller_store import ZkControllerStore
from pybroker.modes.zookeeper.delegation_tokens import ZkDelegationTokens, token_settings
from pybroker.modes.zookeeper.group_configs import ZkGroupConfigs
from pybroker.modes.zookeeper.user_credentials import ZkUserCredentials
from pybroker.network.client import BrokerClient, BrokerClientError
from pybroker.quota.manager import QuotaManagers
from pybroker.quota.replication import FOLLOWER_REPLICAS, LEADER_REPLICAS, ReplicationQuota
from pybroker.reconfigurables import (
    ReplicationQuotaReconfigurable,
    ThreadPoolReconfigurable,
    UncleanLeaderElectionReconfigurable,
)
from pybroker.security.sasl_client import SaslClientCredentials
from pybroker.security.service import AclService
from pybroker.zk.client import SessionEvent, SessionState, ZkClient, ZnodeStore
from pybroker.zk.kafka_zk import KafkaZkClient
from pybroker.zk.topic_store import ZkTopicStore
from pybroker.zk.znodes import (
    CONFIG_BROKER,
    CONFIG_CLIENT,
    CONFIG_TOPIC,
    CONFIG_USER,
    BrokerRegistration,
    EndPoint,
    desanitize,
    sanitize,
)

log = logging.getLogger(__name__)


class ControllerSettings:
    """The controller module's settings, from server.properties."""

    def __init__(self, config: BrokerConfig, inter_broker_listener: str,
                 ssl_context: ssl.SSLContext | None = None,
                 sasl: SaslClientCredentials | None = None) -> None:
        self.inter_broker_listener = inter_broker_listener
        self.ssl_context = ssl_context
        self.sasl = sasl
        self.socket_timeout_ms = config.get_int("controller.socket.timeout.ms")
        self.auto_leader_rebalance = config.get_bool("auto.leader.rebalance.enable")
        self.leader_imbalance_check_interval_s = float(
            config.get_int("leader.imbalance.check.interval.seconds"))
        self.leader_imbalance_per_broker_percentage = config.get_int(
            "leader.imbalance.per.broker.percentage")
        self.delete_topic_enable = config.get_bool("delete.topic.enable")


class ZkProducerIdBlocks:
    """Producer id blocks reserved by compare-and-set on /latest_producer_id_block."""

    def __init__(self, zk: KafkaZkClient, broker_id: int) -> None:
        self.zk = zk
        self.broker_id = broker_id

    async def _allocate(self, size: int) -> int:
        block = await self.zk.allocate_producer_id_block(self.broker_id, size)
        return block.first_producer_id

    def allocate_producer_id_block(self, size: int) -> Any:
        return self._allocate(size)


class ZkBroker(BrokerBase):
    mode = ZOOKEEPER

    def __init__(self, config: BrokerConfig, metadata_store: ZnodeStore | None = None) -> None:
        """``metadata_store``: where the cluster's znodes are (a ZooKeeper client; None: the
        ensemble ``zookeeper.connect`` names)."""
        if metadata_store is None and not config.zookeeper_connect:
            raise ConfigError("zookeeper.connect is not set: this is the embedded broker")
        super().__init__(config)
        self.inter_broker_listener = self.inter_broker[0]
        self.zk_client: ZnodeStore = metadata_store if metadata_store is not None else ZkClient(
            config.zookeeper_connect,
            session_timeout_ms=config.get_int("zookeeper.session.timeout.ms"),
            connection_timeout_ms=config.value("zookeeper.connection.timeout.ms"))
        self.zk = KafkaZkClient(self.zk_client)
        self.broker_epoch = -1
        self.controller: KafkaController | None = None
        self.control: ControlRequestHandler | None = None
        self.admin: ZkAdminManager | None = None
        self.config_watcher: ConfigChangeWatcher | None = None
        self.group_configs: ZkGroupConfigs | None = None
        self.acl_watcher: AclChangeWatcher | None = None
        self.tokens: ZkDelegationTokens | None = None
        self.credentials: ZkUserCredentials | None = None
        self.client_quotas: ZkClientQuotas | None = None
        #: the client quotas this broker enforces (``quota.window.*`` samples)
        self.quotas = QuotaManagers.with_windows(
            config.get_int("quota.window.num"), config.get_int("quota.window.size.seconds"),
            self.clock, controller_samples=config.get_int("controller.quota.window.num"),
            controller_window_s=config.get_int("controller.quota.window.size.seconds"))
        self.quotas.serve_metrics(self.metrics)
        self.fetchers: ReplicaFetcherManager | None = None
        self.alter_partition: AlterPartitionManager | None = None
        self._session_lost = False
        self._reregistering: asyncio.Task[None] | None = None

    # -- start-up ------------------------------------------------------------------------------
    async def start(self) -> None:
        started = self.clock.monotonic()
        self._start_metrics_endpoint()
        self._watch_log_dirs()
        self._check_log_dirs()
        await self.zk_client.start()
        await self.zk.create_top_level_paths()
        cluster_id = await self.zk.get_or_create_cluster_id()
        for d in self.log_dirs:
            try:
                check_meta_properties(d, self.broker_id, cluster_id)
            except RuntimeError as e:
                raise ConfigError(str(e)) from e
        self._apply_stored_broker_configs({
            entity: await self.zk.get_entity_configs(CONFIG_BROKER, entity)
            for entity in (DEFAULT_ENTITY, str(self.broker_id))})
        topics = await self.zk.get_all_topics()
        for topic, overrides in (await self.zk.get_topic_configs(topics)).items():
            self.configs.set_topic_overrides(topic, overrides)
        await asyncio.to_thread(self.log_manager.startup, self.clock.milliseconds(),
                                config_for=self.configs.log_config)
        cache = self.metadata_cache = MetadataCache(
            cluster_id, controller_id=-1,
            listener=self.current_config.advertised_listeners[0].listener)
        self.control = ControlRequestHandler(self.broker_id, self.replica_manager, cache,
                                             lambda: self.broker_epoch)
        self.fetchers = ReplicaFetcherManager(self.broker_id, lambda: self.broker_epoch,
                                              self.replica_manager,
                                              FetcherConfig.from_broker_config(
                                                  self.current_config, self.inter_broker_tls,
                                                  self.inter_broker_sasl),
                                              clock=self.clock, metrics=self.metrics)
        self.dynamic_config.add_reconfigurable(ThreadPoolReconfigurable(self.fetchers.resize))
        self._set_up_replication_quotas()
        def controller_node() -> BrokerEndpoint | None:
            if cache.controller_id < 0:
                return None
            return cache.alive_endpoint(cache.controller_id, self.inter_broker_listener)

        self.alter_partition = AlterPartitionManager(
            self.broker_id, lambda: self.broker_epoch, controller_node,
            request_timeout_ms=self.config.get_int("controller.socket.timeout.ms"),
            connect=lambda node: BrokerClient(
                node.host, node.port, client_id=f"broker-{self.broker_id}-alter-partition",
                ssl_context=self.inter_broker_tls, sasl=self.inter_broker_sasl))
        self.replica_manager.enable_replication(
            self.fetchers, lambda b: cache.alive_endpoint(b, self.inter_broker_listener),
            isr_changes=self.alter_partition,
            replica_lag_time_max_ms=self.config.get_int("replica.lag.time.max.ms"))
        controller_store = ZkControllerStore(
            self.zk,
            unclean_default=self.current_config.get_bool("unclean.leader.election.enable"),
            clock=self.clock)
        settings = ControllerSettings(self.config, self.inter_broker_listener,
                                      self.inter_broker_tls, self.inter_broker_sasl)
        controller = self.controller = KafkaController(
            self.broker_id, controller_store, settings,
            channel_factory=self._controller_channel_factory(settings), metrics=self.metrics)

        def unclean_default(enabled: bool) -> None:
            turned_on = enabled and not controller_store.unclean_default
            controller_store.unclean_default = enabled
            if turned_on:
                controller.enable_default_unclean_leader_election()

        self.dynamic_config.add_reconfigurable(UncleanLeaderElectionReconfigurable(
            unclean_default))
        self.admin = ZkAdminManager(
            ZkTopicStore(self.zk), cache, self.configs, self.controller,
            lambda n, rf, brokers, first, start: list(assign_replicas_rack_unaware(
                n, rf, sorted(brokers), start_index=start, start_partition_id=first).values()),
            default_partitions=self.config.get_int("num.partitions"),
            default_replication_factor=self.config.get_int("default.replication.factor"),
            cap_internal_replication=self.alone)
        self.control.metadata_listeners.append(self.admin.on_metadata_updated)
        if self.alone:
            # the controller is this broker's: a deletion is answered once it is complete, an
            # auto-created topic once it is led
            admin = self.admin
            admin.deletion_completed = lambda topic: topic not in controller.context.all_topics
            admin.auto_create_timeout_ms = self.config.get_int("request.timeout.ms")
            controller.deletion_listeners.append(lambda topic: admin.on_metadata_updated([topic]))
        self.control.topic_config_loader = self._load_topic_configs
        self.groups = GroupCoordinatorService(self.config, self.replica_manager, cache,
                                              self.admin, clock=self.clock)
        self.control.deleted_partition_listeners.append(self.groups.partitions_deleted)
        self.groups.startup(self.clock.milliseconds())
        producer_ids = ProducerIdManager(ZkProducerIdBlocks(self.zk, self.broker_id))
        self.transactions = TransactionCoordinatorService(
            self.config, self.replica_manager, cache, self.admin, producer_ids,
            endpoint_of=lambda b: cache.alive_endpoint(b, self.inter_broker_listener),
            ssl_context=self.inter_broker_tls, sasl=self.inter_broker_sasl, clock=self.clock)
        self._set_up_transaction_verification(
            cache, lambda b: cache.alive_endpoint(b, self.inter_broker_listener))
        self.transactions.startup(self.clock.milliseconds())
        if self.authorizer is not None:
            # the change listeners first, then the ACLs, so that no change falls in between
            lock = asyncio.Lock()
            acl_store = ZkAclStore(self.zk, self.authorizer, lock)
            await self.zk.create_acl_paths()
            self.acl_watcher = AclChangeWatcher(self.zk, self.authorizer, self.clock, lock)
            await self.acl_watcher.start()
            async with lock:
                self.authorizer.load(await acl_store.load())
            self.acls = AclService(self.authorizer, acl_store)
        self.credentials = ZkUserCredentials(self.zk, self.credential_cache, sanitize,
                                             desanitize)
        await self.credentials.load()
        self.client_quotas = ZkClientQuotas(self.zk, self.quotas, sanitize, desanitize)
        await self.client_quotas.load()
        self.tokens = ZkDelegationTokens(self.zk, self.token_cache,
                                         token_settings(self.config), clock=self.clock)
        await self.tokens.start()
        self.services = self.dispatcher.services = BrokerServices(
            broker_id=self.broker_id, config=self.config, dynamic_config=self.dynamic_config,
            replica_manager=self.replica_manager,
            metadata_cache=cache, admin=self.admin, configs=self.configs, groups=self.groups,
            producer_ids=producer_ids, apis=self.handlers, fetch_sessions=self.fetch_sessions,
            control=self.control, controller=self.controller, transactions=self.transactions,
            acls=self.acls,
            credentials=self.credentials, client_quotas=self.client_quotas, quotas=self.quotas,
            tokens=self.tokens)
        # the embedded node accepts clients once its controller has applied its state
        await self._open_listeners(serving=not self.alone)
        self._add_listener_reconfigurable()
        self.zk_client.add_session_listener(self._on_session_event)
        await self._register()
        self.controller.startup()
        self.config_watcher = ConfigChangeWatcher(self.zk, {
            CONFIG_TOPIC: self.configs.set_topic_overrides,
            CONFIG_BROKER: self._broker_configs_changed,
            CONFIG_USER: self._user_changed,
            CONFIG_CLIENT: self.client_quotas.client_changed}, clock=self.clock)
        await self.config_watcher.start()
        self.group_configs = ZkGroupConfigs(self.zk, self.groups.group_configs, clock=self.clock)
        await self.group_configs.start()
        self._start_scheduled_tasks()
        self.started = True
        log.info("broker %d started in %.2fs (cluster %s, %s, broker epoch %d)",
                 self.broker_id, self.clock.monotonic() - started, cluster_id,
                 self._metadata_location(), self.broker_epoch)

    def _set_up_replication_quotas(self) -> None:
        """KIP-73: the leaders' and the followers' replication quotas, their rates from the
        dynamic broker configs and their replicas from the topics' configs."""
        assert self.fetchers is not None
        samples = self.config.get_int("replication.quota.window.num")
        window_s = self.config.get_int("replication.quota.window.size.seconds")
        leader, follower = (ReplicationQuota(replicas, self.broker_id,
                                             self.configs.topic_overrides, samples=samples,
                                             window_s=window_s, clock=self.clock)
                            for replicas in (LEADER_REPLICAS, FOLLOWER_REPLICAS))
        self.replica_manager.leader_quota = leader
        self.fetchers.quota = follower
        self.dynamic_config.add_reconfigurable(
            ReplicationQuotaReconfigurable(leader, follower, self.dynamic_config.current))

    def _user_changed(self, sanitized: str, configs: dict[str, str]) -> None:
        """``users/<user>`` holds the user's SCRAM credentials and quotas;
        ``users/<user>/clients/<client-id>`` quotas only."""
        assert self.credentials is not None and self.client_quotas is not None
        if "/" not in sanitized:
            self.credentials.user_changed(sanitized, configs)
        self.client_quotas.user_changed(sanitized, configs)

    def _metadata_location(self) -> str:
        """Where the cluster's metadata is, for the start-up line."""
        return f"ZooKeeper {self.config.zookeeper_connect}"

    #: the only broker there will ever be (the embedded single node)
    alone = False

    def _controller_channel_factory(self, settings: ControllerSettings,
                                    ) -> Callable[[int], ControllerChannelManager] | None:
        """How the controller module reaches the brokers (None: over their inter-broker
        listeners, every one of them)."""
        return None

    def _log_dir_failed(self, log_dir: Path, partitions: list[tuple[str, int]]) -> None:
        """Tell the controller (``/log_dir_event_notification``, Kafka's
        ``propagateLogDirEvent``): it asks this broker which replicas are still online, and
        moves the leaderships and ISR memberships of the others away."""
        async def propagate() -> None:
            path = await self.zk.propagate_log_dir_event(self.broker_id)
            log.info("Told the controller of the failure of log dir %s (%s)", log_dir, path)
        self._background(propagate(), "propagate-log-dir-event")

    def _halt(self, message: str) -> None:
        """Before halting, end the ZooKeeper session (for a moment at most), so that the
        controller moves this broker's leaderships at once rather than after
        ``zookeeper.session.timeout.ms``."""
        self.zk_client.close_now(timeout=2.0)
        super()._halt(message)

    def _broker_configs_changed(self, entity: str, configs: dict[str, str]) -> None:
        """Kafka's ``BrokerConfigHandler``: the cluster's defaults, or this broker's own."""
        if entity == DEFAULT_ENTITY:
            self.dynamic_config.update_default_config(configs)
        elif entity.strip() == str(self.broker_id):
            self.dynamic_config.update_broker_config(configs)

    def _advertised_listeners_changed(self, new: EffectiveBrokerConfig) -> None:
        """Register the new endpoints (Kafka's ``updateBrokerInfo``), once the listeners they
        name are open; the controller tells the other brokers."""
        async def reregister() -> None:
            done = asyncio.get_running_loop().create_future()
            await self.socket_server.when_listening(lambda: done.set_result(None))
            await done
            await self.zk.update_broker_info(self._registration())
            log.info("Broker %d registered its new endpoints", self.broker_id)
        self._background(reregister(), "update-broker-info")

    def _start_scheduled_tasks(self) -> None:
        super()._start_scheduled_tasks()
        rm = self.replica_manager

        def checkpoint_high_watermarks(_now: int) -> Outcome[None]:
            if rm.high_watermark_checkpointing:  # from the first LeaderAndIsr on, as Kafka
                return self.in_storage_io(write_high_watermark_checkpoints,
                                          rm.high_watermark_checkpoints(), self.failures)
            return None

        self._schedule("highwatermark-checkpoint",
                       self.config.get_int("replica.high.watermark.checkpoint.interval.ms"),
                       checkpoint_high_watermarks)
        # a follower can lag for up to 1.5 x replica.lag.time.max.ms before it is out
        self._schedule("isr-expiration",
                       max(1, self.config.get_int("replica.lag.time.max.ms") // 2),
                       rm.maybe_shrink_isr)
        tokens = self.tokens
        if tokens is not None and tokens.enabled:
            # the active controller's delete-expired-tokens task (Kafka's KafkaController)
            controller = self.controller

            def delete_expired_tokens(_now: int) -> Outcome[None] | None:
                if controller is not None and controller.is_active:
                    return asyncio.ensure_future(tokens.expire_tokens())
                return None

            self._schedule("delete-expired-tokens",
                           tokens.settings.expiry_check_interval_ms, delete_expired_tokens)

    async def _load_topic_configs(self, topics: list[str]) -> None:
        """Read topics' config overrides from ZooKeeper (before their logs open here), within
        ``zookeeper.session.timeout.ms``."""
        timeout_s = self.config.get_int("zookeeper.session.timeout.ms") / 1000
        found = await asyncio.wait_for(self.zk.get_topic_configs(topics), timeout_s)
        for topic, overrides in found.items():
            self.configs.set_topic_overrides(topic, overrides)

    def _registration(self) -> BrokerRegistration:
        protocol_map = self.current_config.security_protocol_map
        endpoints = tuple(
            EndPoint(listener, host, port, protocol_map.get(listener, "PLAINTEXT"))
            for listener, host, port in self._advertised_endpoints())
        return BrokerRegistration(self.broker_id, endpoints,
                                  rack=self.config.get("broker.rack") or None,
                                  timestamp=self.clock.milliseconds())

    async def _register(self) -> None:
        self.broker_epoch = await self.zk.register_broker(self._registration())

    def _on_session_event(self, event: SessionEvent) -> None:
        if event.state is SessionState.LOST and not self.zk_client.closed:
            log.warning("ZooKeeper session 0x%x expired; serving on, re-registering once a new "
                        "session is up", event.session_id or 0)
            self._session_lost = True
            if self.controller is not None:
                self.controller.session_expired()
        elif event.state is SessionState.CONNECTED and self._session_lost:
            self._session_lost = False
            self._reregistering = asyncio.get_running_loop().create_task(self._reregister())

    async def _reregister(self) -> None:
        try:
            await self._register()
        except Exception:
            log.exception("Could not register broker %d again", self.broker_id)
            return
        log.info("Broker %d registered again with broker epoch %d", self.broker_id,
                 self.broker_epoch)
        if self.controller is not None:
            self.controller.reelect()

    # -- shutdown --------------------------------------------------------------------------------
    async def _stop_cluster(self) -> None:
        if self.started and self.config.get_bool("controlled.shutdown.enable"):
            await self._controlled_shutdown()
        if self.config_watcher is not None:
            await self.config_watcher.stop()
        if self.group_configs is not None:
            await self.group_configs.stop()
        if self.acl_watcher is not None:
            await self.acl_watcher.stop()
        if self.tokens is not None:
            await self.tokens.stop()
        if self.controller is not None:
            await self.controller.shutdown()
        if self.fetchers is not None:
            await self.fetchers.shutdown()
        if self.alter_partition is not None:
            await self.alter_partition.shutdown()

    async def _controlled_shutdown(self) -> None:
        """Kafka's ``controlledShutdown``: ask the controller to move this broker's
        leaderships away, again until none is left or the attempts run out."""
        attempts = self.config.get_int("controlled.shutdown.max.retries")
        backoff_s = self.config.get_int("controlled.shutdown.retry.backoff.ms") / 1000
        for attempt in range(1, attempts + 1):
            remaining = await self._ask_controller_to_shut_down()
            if remaining == 0:
                log.info("Controlled shutdown of broker %d succeeded", self.broker_id)
                return
            log.info("Controlled shutdown attempt %d of %d: %s", attempt, attempts,
                     "no controller reachable" if remaining < 0
                     else f"{remaining} partition(s) still led here")
            if attempt < attempts:
                await asyncio.sleep(backoff_s)
        log.warning("Proceeding to do an unclean shutdown as all the controlled shutdown "
                    "attempts failed")

    async def _ask_controller_to_shut_down(self) -> int:
        """The number of partitions still led here, or -1 when the controller could not be
        asked."""
        cache = self.metadata_cache
        if cache is None or cache.controller_id < 0:
            return -1
        if cache.controller_id == self.broker_id and self.controller is not None:
            error, left = await self.controller.controlled_shutdown(self.broker_id,
                                                                    self.broker_epoch)
            return len(left) if not error else -1
        # the controller is reached on the inter-broker listener, as Kafka's controlledShutdown
        node = cache.alive_endpoint(cache.controller_id, self.inter_broker_listener)
        if node is None:
            return -1
        client = BrokerClient(node.host, node.port, client_id=f"broker-{self.broker_id}",
                              ssl_context=self.inter_broker_tls, sasl=self.inter_broker_sasl)
        try:
            await client.connect(self.config.get_int("controller.socket.timeout.ms") / 1000)
            response = await client.request(
                ApiKey.CONTROLLED_SHUTDOWN, 3,
                controlled_shutdown_request.ControlledShutdownRequest(
                    broker_id=self.broker_id, broker_epoch=self.broker_epoch),
                self.config.get_int("controller.socket.timeout.ms"))
        except (BrokerClientError, OSError) as e:
            log.info("Controlled shutdown request to controller %d failed: %s",
                     cache.controller_id, e)
            return -1
        finally:
            client.close()
        if response is None or response.error_code != ErrorCode.NONE:
            return -1
        return len(response.remaining_partitions)

    async def _close_cluster(self) -> None:
        if self._reregistering is not None:
            self._reregistering.cancel()
        await self.zk_client.close()
