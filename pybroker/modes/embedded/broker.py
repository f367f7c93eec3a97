"""The embedded single node: a one-broker cluster.

It runs the cluster's control plane as a ZooKeeper-mode broker does - Kafka's znode layout,
the controller module, the admin manager, the change notifications, and LeaderAndIsr,
UpdateMetadata and StopReplica applied by the control-request handler - over
:class:`~pybroker.modes.embedded.store.LocalZkClient`, a znode tree kept in its first log dir
instead of a ZooKeeper ensemble (as Kafka's combined KRaft mode runs its one metadata path over
a local log). What differs is what one broker alone implies:

- its controller hands the requests for this broker to its own handlers through a loopback
  channel, without a socket and without the ACL checks a client's request meets (they are the
  broker's own);
- a controlled shutdown has nowhere to move leaderships, so it is skipped, and the internal
  topics get as many replicas as there are brokers: one, whatever their configured factor;
- the cluster's metadata lives in the first log dir: when that dir fails the node halts;
- it serves the client APIs only (no LeaderAndIsr or UpdateMetadata from the wire), as before;
- a log dir an earlier release's single node wrote is moved into the znode tree once
  (:mod:`pybroker.modes.embedded.migration`).
"""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pybroker.api.context import RequestContext
from pybroker.api.registry import EMBEDDED, ZOOKEEPER, load_handlers
from pybroker.broker import ConfigError
from pybroker.config import BrokerConfig
from pybroker.controller.channel import ControllerChannelManager
from pybroker.log.dir_failure import log_dir_key
from pybroker.modes.embedded.migration import (
    METADATA_FILE,
    MIGRATED_SUFFIX,
    migrate,
    read_document,
)
from pybroker.modes.embedded.store import LocalZkClient
from pybroker.modes.zookeeper.broker import ControllerSettings, ZkBroker
from pybroker.security.service import AclService
from pybroker.zk.kafka_zk import KafkaZkClient

log = logging.getLogger(__name__)

#: the znode tree's file in the first log dir
ZNODES_FILE = "__pybroker_znodes.json"


def _install(built: Path, path: Path) -> None:
    """Rename ``built`` to ``path``, durably (the directory fsynced after)."""
    os.replace(built, path)
    fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class Broker(ZkBroker):
    """The embedded single node: a one-broker cluster whose metadata lives in its first log
    dir."""

    mode = EMBEDDED
    alone = True

    def __init__(self, config: BrokerConfig) -> None:
        if config.zookeeper_connect:
            raise ConfigError("zookeeper.connect is set: this is a ZooKeeper-mode broker "
                              "(pybroker.modes.zookeeper.broker.ZkBroker)")
        metadata_dir = config.log_dirs[0]
        store = LocalZkClient(metadata_dir / ZNODES_FILE,
                              on_write_error=lambda e: self._metadata_write_failed(e))
        super().__init__(config, metadata_store=store)
        self.store = store
        self._control_handlers = load_handlers(ZOOKEEPER)

    # -- start-up ------------------------------------------------------------------------------
    async def start(self) -> None:
        self._check_log_dirs()
        await self._migrate_single_node_document()
        await super().start()
        await self._wait_until_serving()
        await self.socket_server.enable_request_processing()

    async def _wait_until_serving(self) -> None:
        """Return once this broker is the controller and has applied what its failover sent:
        itself alive, every partition led. Its listeners are bound before (their ports are in
        its registration) but accept clients only after, as Kafka enables request processing
        at the end of start-up: the first request a client makes meets the whole cluster."""
        controller, cache = self.controller, self.metadata_cache
        assert controller is not None and cache is not None
        deadline = self.clock.monotonic() + self.config.get_int("request.timeout.ms") / 1000
        while not (controller.failover_complete and controller.channel is not None
                   and controller.channel.queue_size(self.broker_id) == 0
                   and self.broker_id in cache.alive_broker_ids):
            if self.clock.monotonic() > deadline:
                log.warning("Broker %d serves before its controller has applied its state",
                            self.broker_id)
                return
            await asyncio.sleep(0.001)

    async def _migrate_single_node_document(self) -> None:
        """Move an earlier release's metadata document into the znode tree, once, before the
        tree is read; the document stays beside it, renamed. The tree is written whole under
        another name and renamed into place, so a start cut short (a crash, a full disk) leaves
        the document to be moved again, never half a tree."""
        old = self.log_dirs[0] / METADATA_FILE
        if self.store.path.exists() or not old.exists():
            return
        image = read_document(old)
        building = self.store.path.with_name(self.store.path.name + ".migrating")
        building.unlink(missing_ok=True)
        async with LocalZkClient(building) as tree:
            await migrate(KafkaZkClient(tree), image, self.broker_id)
        await asyncio.to_thread(_install, building, self.store.path)
        old.rename(old.with_name(old.name + MIGRATED_SUFFIX))
        log.info("Moved the cluster metadata of %s (%d topic(s)) into %s", old,
                 len(image.topics), self.store.path)

    def _metadata_location(self) -> str:
        return f"metadata in {self.store.path}"

    # -- the loopback channel ------------------------------------------------------------------
    def _controller_channel_factory(self, settings: ControllerSettings,
                                    ) -> Callable[[int], ControllerChannelManager] | None:
        def channel(controller_id: int) -> ControllerChannelManager:
            return ControllerChannelManager(controller_id,
                                            socket_timeout_ms=settings.socket_timeout_ms,
                                            local={self.broker_id: self._deliver_locally})
        return channel

    async def _deliver_locally(self, api_key: int, version: int, body: Any) -> Any:
        """The controller's request to this broker, handled as its handler handles one from
        the wire (the broker's own: no ACL applies)."""
        services = self.services
        assert services is not None, "the controller starts after the services are built"
        if services.acls.enabled:
            services = dataclasses.replace(services, acls=AclService())
        ctx = RequestContext(services, api_key, version, 0, str(self.broker_id), "loopback",
                             listener=self.inter_broker_listener,
                             now_ms=self.clock.milliseconds())
        result = self._control_handlers[api_key].handle(ctx, body)
        if inspect.isawaitable(result):
            result = await result
        return result

    # -- one broker alone ----------------------------------------------------------------------
    async def _controlled_shutdown(self) -> None:
        """No other broker can take over this one's leaderships."""

    def _metadata_write_failed(self, error: OSError) -> None:
        metadata_dir = self.log_dirs[0]
        self.failures.maybe_add_offline_log_dir(
            metadata_dir, f"Error while writing the cluster metadata to dir {metadata_dir}",
            error)

    def _log_dir_failed(self, log_dir: Path, partitions: list[tuple[str, int]]) -> None:
        """The cluster's metadata lives in the first log dir: without it the node halts (as a
        KRaft broker does when its metadata log dir fails). Another dir's failure reaches the
        controller as in a cluster, which marks its replicas offline."""
        if log_dir_key(log_dir) == log_dir_key(self.log_dirs[0]):
            self._halt(f"Shutdown broker because the metadata log dir {self.log_dirs[0]} has "
                       f"failed")
            return
        super()._log_dir_failed(log_dir, partitions)
