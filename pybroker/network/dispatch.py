"""What the network layer hands each request frame to: a :class:`RequestDispatcher`.

The network layer frames, orders and writes; which handler a request goes to, and with which
context, is the request router's (:class:`pybroker.api.router.RequestRouter`), which the broker
hands the socket server when it starts. Kafka's ``SocketServer`` knows ``KafkaApis`` the same
way, only through the request channel. Per request this is one method call, as before.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from pybroker.metrics.request_metrics import RequestTimes
    from pybroker.network.connection import KafkaConnection


class RequestDispatcher(Protocol):
    """Called on the event loop with each complete request frame of a connection."""

    def dispatch(self, frame: bytes | bytearray | memoryview, conn: KafkaConnection,
                 times: RequestTimes | None = None) -> Any:
        """The encoded response (a buffer, or a ``Writer`` with file splices), a future of it,
        or None when nothing is to be sent (acks=0, a request the connection is closed on).
        ``times``: the request's times, which the dispatcher names and stamps (the connection
        completes them once the response is written)."""
        ...
