"""The socket server: one asyncio listener per configured listener."""

from __future__ import annotations

import asyncio
import logging
from functools import partial
from typing import TYPE_CHECKING

from pybroker.network.connection import KafkaConnection

if TYPE_CHECKING:
    from pybroker.config import Endpoint
    from pybroker.network.dispatch import RequestDispatcher

log = logging.getLogger(__name__)


class SocketServer:
    def __init__(self, dispatcher: RequestDispatcher, *, max_frame_size: int) -> None:
        self.dispatcher = dispatcher
        self.max_frame_size = max_frame_size
        self.use_sendfile = True
        self.connections: set[KafkaConnection] = set()
        self._servers: list[asyncio.base_events.Server] = []
        self.bound: list[tuple[str, str, int]] = []

    def _new_connection(self, listener: str) -> KafkaConnection:
        return KafkaConnection(self.dispatcher, max_frame_size=self.max_frame_size,
                               use_sendfile=self.use_sendfile, connections=self.connections,
                               on_sendfile_unsupported=self.disable_sendfile,
                               listener=listener)

    def disable_sendfile(self) -> None:
        """New connections write fetched file regions with read+write (this event loop has
        no sendfile)."""
        self.use_sendfile = False

    async def start(self, endpoints: list[Endpoint]) -> None:
        loop = asyncio.get_running_loop()
        for ep in endpoints:
            server = await loop.create_server(partial(self._new_connection, ep.listener),
                                              host=ep.host or None,
                                              port=ep.port, reuse_address=True, backlog=1024)
            self._servers.append(server)
            for sock in server.sockets:
                host, port = sock.getsockname()[:2]
                self.bound.append((ep.listener, host, port))
                log.info("listening on %s://%s:%d", ep.listener, host, port)

    async def stop(self) -> None:
        for server in self._servers:
            server.close()
        for conn in list(self.connections):
            conn.abort("broker shutting down", logging.DEBUG)
        for server in self._servers:
            await server.wait_closed()
        self._servers.clear()
