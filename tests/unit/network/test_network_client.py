"""BrokerClient and the controller's channel against a peer that misbehaves on purpose.

A real broker answers promptly and correctly, so the failures the client must survive - no
answer, an answer out of order, a connection closed mid-request - come from a small asyncio
server on 127.0.0.1 that decodes requests with the broker's own decoder and answers (or not)
with its own encoder. tests/cluster/test_broker_client.py runs the same code against real
broker processes.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import pytest

from protocol.framing import FrameDecoder
from protocol.headers import RequestHeader, decode_request
from protocol.messages import ApiKey, metadata_request, metadata_response, produce_request
from pybroker.api.router import encode_response
from pybroker.controller.channel import ChannelRequestFailed, ControllerChannelManager
from pybroker.network.client import (
    BrokerClient,
    BrokerClientError,
    ConnectionLostError,
    RequestTimeoutError,
)

T = TypeVar("T")

#: what the peer does with one request: the frame to write back (None: stay silent), or CLOSE
CLOSE = object()
Behaviour = Callable[["Peer", int, RequestHeader, Any], Any]


def answer(header: RequestHeader, body: Any) -> bytes:
    """A Metadata response naming the topics the request asked for."""
    topics = [metadata_response.MetadataResponseTopic(name=t.name) for t in body.topics or []]
    return bytes(encode_response(
        header.request_api_key, header.request_api_version, header.correlation_id,
        metadata_response.MetadataResponse(topics=topics),
    ))


def always_answer(peer: Peer, conn: int, header: RequestHeader, body: Any) -> Any:
    return answer(header, body)


@dataclass
class Peer:
    """An asyncio server on 127.0.0.1 that hands every request to ``behaviour``."""

    behaviour: Behaviour = always_answer
    seen: list[tuple[int, RequestHeader, Any]] = field(default_factory=list)
    connections: int = 0
    server: asyncio.Server | None = None

    @property
    def port(self) -> int:
        assert self.server is not None
        return int(self.server.sockets[0].getsockname()[1])

    async def start(self) -> Peer:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        return self

    async def stop(self) -> None:
        assert self.server is not None
        self.server.close()
        await self.server.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        conn = self.connections
        decoder = FrameDecoder()
        try:
            while data := await reader.read(65536):
                for frame in decoder.feed(data):
                    header, body = decode_request(frame)
                    self.seen.append((conn, header, body))
                    out = self.behaviour(self, conn, header, body)
                    if out is CLOSE:
                        return
                    if out is not None:
                        writer.write(out)
        finally:
            writer.close()


def run(main: Callable[[], Awaitable[T]], timeout: float = 30) -> T:
    async def bounded() -> T:
        return await asyncio.wait_for(main(), timeout)

    return asyncio.run(bounded())


def metadata_for(topic: str) -> metadata_request.MetadataRequest:
    return metadata_request.MetadataRequest(
        topics=[metadata_request.MetadataRequestTopic(name=topic)]
    )


async def connected(peer: Peer) -> BrokerClient:
    client = BrokerClient("127.0.0.1", peer.port, client_id="9")
    await client.connect(5)
    return client


# -- BrokerClient --------------------------------------------------------------------------


def test_answers_reach_their_own_requests():
    async def main() -> None:
        peer = await Peer().start()
        client = await connected(peer)
        answers = await asyncio.gather(*(
            client.request(ApiKey.METADATA, 12, metadata_for(f"t{i}"), 5000) for i in range(20)
        ))
        assert [[t.name for t in a.topics] for a in answers] == [[f"t{i}"] for i in range(20)]
        assert {h.client_id for _, h, _ in peer.seen} == {"9"}
        client.close()
        await peer.stop()

    run(main)


def test_a_request_without_answer_times_out_and_closes_the_connection():
    def silent(peer: Peer, conn: int, header: RequestHeader, body: Any) -> Any:
        return None

    async def main() -> None:
        peer = await Peer(silent).start()
        client = await connected(peer)
        first = asyncio.ensure_future(client.request(ApiKey.METADATA, 12, metadata_for("first"),
                                                     300))
        # the second has time left, but its answer could only come after the first one's
        second = asyncio.ensure_future(client.request(ApiKey.METADATA, 12,
                                                      metadata_for("second"), 5000))
        with pytest.raises(RequestTimeoutError, match="Metadata v12 .* 300 ms"):
            await first
        with pytest.raises(ConnectionLostError, match="got no response within 300 ms"):
            await second
        assert not client.connected and client.in_flight == 0
        with pytest.raises(ConnectionLostError):
            await client.request(ApiKey.METADATA, 12, metadata_for("later"), 5000)
        await peer.stop()

    run(main)


def test_an_answer_out_of_order_fails_every_request_in_flight():
    held: list[bytes] = []

    def swap_first_two(peer: Peer, conn: int, header: RequestHeader, body: Any) -> Any:
        held.append(answer(header, body))
        if len(held) == 2:
            return held[1] + held[0]
        return None

    async def main() -> None:
        peer = await Peer(swap_first_two).start()
        client = await connected(peer)
        requests = [
            asyncio.ensure_future(client.request(ApiKey.METADATA, 12, metadata_for(f"t{i}"), 5000))
            for i in range(3)
        ]
        for request in requests:
            with pytest.raises(ConnectionLostError, match="correlation id mismatch"):
                await request
        assert not client.connected
        await peer.stop()

    run(main)


def test_the_peer_closing_fails_requests_in_flight():
    def close(peer: Peer, conn: int, header: RequestHeader, body: Any) -> Any:
        return CLOSE

    async def main() -> None:
        peer = await Peer(close).start()
        client = await connected(peer)
        with pytest.raises(ConnectionLostError, match="closed by the broker|lost"):
            await client.request(ApiKey.METADATA, 12, metadata_for("t"), 5000)
        await peer.stop()

    run(main)


def test_close_fails_requests_in_flight_and_later_ones():
    def silent(peer: Peer, conn: int, header: RequestHeader, body: Any) -> Any:
        return None

    async def main() -> None:
        peer = await Peer(silent).start()
        client = await connected(peer)
        pending = asyncio.ensure_future(client.request(ApiKey.METADATA, 12, metadata_for("t"),
                                                       None))
        await asyncio.sleep(0.05)
        client.close()
        with pytest.raises(ConnectionLostError, match="closed by this side"):
            await pending
        with pytest.raises(ConnectionLostError, match="closed by this side"):
            await client.request(ApiKey.METADATA, 12, metadata_for("t"), None)
        with pytest.raises(BrokerClientError, match="already connected"):
            await client.connect(5)
        await peer.stop()

    run(main)


def test_produce_with_acks_0_returns_without_an_answer():
    def answer_metadata(peer: Peer, conn: int, header: RequestHeader, body: Any) -> Any:
        return answer(header, body) if header.request_api_key == ApiKey.METADATA else None

    async def main() -> None:
        peer = await Peer(answer_metadata).start()
        client = await connected(peer)
        assert await client.request(ApiKey.PRODUCE, 9, produce_request.ProduceRequest(acks=0),
                                    1000) is None
        got = await client.request(ApiKey.METADATA, 12, metadata_for("after"), 5000)
        assert [t.name for t in got.topics] == ["after"]
        assert [h.request_api_key for _, h, _ in peer.seen] == [ApiKey.PRODUCE, ApiKey.METADATA]
        client.close()
        await peer.stop()

    run(main)


# -- ControllerChannelManager --------------------------------------------------------------


def test_channel_resends_a_request_that_timed_out_on_a_new_connection(caplog):
    caplog.set_level(logging.INFO, logger="pybroker.controller.channel")

    def silent_on_first_connection(peer: Peer, conn: int, header: RequestHeader,
                                   body: Any) -> Any:
        return None if conn == 1 else answer(header, body)

    async def main() -> None:
        peer = await Peer(silent_on_first_connection).start()
        channel = ControllerChannelManager(3, socket_timeout_ms=300, retry_backoff_ms=50)
        done: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        channel.add_broker(1, "127.0.0.1", peer.port)
        channel.send(1, ApiKey.METADATA, 12, metadata_for("again"), done.set_result)
        response = await asyncio.wait_for(done, 10)
        await channel.shutdown()
        await peer.stop()
        assert [t.name for t in response.topics] == ["again"]
        assert [(conn, body.topics[0].name) for conn, _, body in peer.seen] == [
            (1, "again"), (2, "again")
        ]
        assert peer.seen[0][1].client_id == "3"

    run(main)
    warnings = [r.getMessage() for r in caplog.records
                if r.levelno == logging.WARNING and r.name == "pybroker.controller.channel"]
    assert len(warnings) == 1 and "got no answer to Metadata v12 from broker 1" in warnings[0]


def test_a_failing_callback_does_not_stop_the_sender(caplog):
    async def main() -> None:
        peer = await Peer().start()
        channel = ControllerChannelManager(3)
        done: asyncio.Future[Any] = asyncio.get_running_loop().create_future()

        def boom(response: Any) -> None:
            raise RuntimeError("callback bug")

        channel.add_broker(1, "127.0.0.1", peer.port)
        channel.send(1, ApiKey.METADATA, 12, metadata_for("one"), boom)
        channel.send(1, ApiKey.METADATA, 12, metadata_for("two"), done.set_result)
        response = await asyncio.wait_for(done, 10)
        assert [t.name for t in response.topics] == ["two"]
        await channel.shutdown()
        await peer.stop()

    run(main)
    assert any("callback of Metadata v12 failed" in r.getMessage() for r in caplog.records)


def test_send_refuses_a_request_it_cannot_encode():
    async def main() -> None:
        channel = ControllerChannelManager(3)
        channel.add_broker(1, "127.0.0.1", 1)
        with pytest.raises(ValueError):
            channel.send(1, ApiKey.METADATA, 99, metadata_for("x"), lambda r: None)
        assert channel.queue_size(1) == 0
        await channel.shutdown()
        with pytest.raises(RuntimeError, match="shut down"):
            channel.add_broker(2, "127.0.0.1", 1)

    run(main)


def test_outcomes_of_removal_are_channel_failures():
    """Nothing listens on the port: the request waits until the broker is removed."""

    async def main() -> None:
        server = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        server.close()
        await server.wait_closed()
        channel = ControllerChannelManager(3, retry_backoff_ms=20)
        outcomes: list[Any] = []
        channel.add_broker(1, "127.0.0.1", port)
        channel.send(1, ApiKey.METADATA, 12, metadata_for("x"), outcomes.append)
        await asyncio.sleep(0.2)
        assert outcomes == []
        channel.remove_broker(1)
        channel.remove_broker(1)  # twice is harmless
        await asyncio.sleep(0)
        assert len(outcomes) == 1 and isinstance(outcomes[0], ChannelRequestFailed)
        assert "broker 1 was removed" in str(outcomes[0])
        await channel.shutdown()

    run(main)
