"""Requests through a broker's real dispatcher without a socket, shared by the tests that drive
handlers in-process (tests/unit/api, tests/unit/cluster)."""

from __future__ import annotations

import asyncio
from typing import Any

from protocol.client import ClientConnection
from protocol.framing import FrameDecoder
from pybroker.network.dispatch import RequestDispatcher
from pybroker.security.principal import ANONYMOUS


class LoopbackPeer:
    """The connection a request dispatched in-process came in on: a PLAINTEXT listener's,
    anonymous. The handlers these tests reach never close their connection."""

    peer = "loopback"
    listener = "PLAINTEXT"
    principal = ANONYMOUS

    def close_after_responses(self) -> None:  # pragma: no cover - handlers here never ask
        raise AssertionError("a request dispatched in-process asked to close its connection")


async def call(dispatcher: RequestDispatcher, api_key: int, version: int, body: object, *,
               client_id: str, peer: object | None = None) -> Any:
    """One request as from a socket: encoded by the client codec, framed, dispatched (a future
    answer awaited) and the answer decoded again; None when the request gets no answer."""
    conn = ClientConnection(client_id)
    _, frame = conn.send_request(api_key, version, body)
    [request] = FrameDecoder().feed(frame)
    result = dispatcher.dispatch(request, peer or LoopbackPeer())  # type: ignore[arg-type]
    if isinstance(result, asyncio.Future):
        result = await result
    if result is None:
        return None
    [(_, response)] = conn.receive_data(result.to_bytes())  # (size-prefixed already)
    return response
