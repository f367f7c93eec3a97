"""The inter-broker client against real pybroker processes: BrokerClient (one pipelined
connection) and the controller's channel (a queue and a sender per broker, retrying until the
broker answers).

Every broker runs on 127.0.0.1 as a child process (``pybroker serve``) and is stopped by its
pid in the teardown of the ``brokers`` fixture, whatever the test did.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest

from protocol.errors import ErrorCode
from protocol.messages import ApiKey, api_versions_request, metadata_request
from pybroker.controller.channel import BrokerRemovedError, ControllerChannelManager
from pybroker.network.client import BrokerClient, BrokerConnectError, ConnectionLostError
from pybroker.testing.broker_process import BrokerProcess, free_port

T = TypeVar("T")
BrokerMaker = Callable[..., BrokerProcess]

METADATA_VERSION = 12


@pytest.fixture
def brokers(tmp_path: Path) -> Iterator[BrokerMaker]:
    """Make (not start) brokers: ``brokers(port=None)``. Each is stopped in teardown."""
    made: list[BrokerProcess] = []

    def make(port: int | None = None) -> BrokerProcess:
        b = BrokerProcess(tmp_path / f"kafka-logs-{len(made)}", port=port)
        made.append(b)
        return b

    try:
        yield make
    finally:
        for b in made:
            b.stop()
            assert not b.is_running(), f"broker pid {b.pid} is still running"


def run(main: Callable[[], Awaitable[T]], timeout: float = 60) -> T:
    async def bounded() -> T:
        return await asyncio.wait_for(main(), timeout)

    return asyncio.run(bounded())


def metadata_for(topic: str) -> metadata_request.MetadataRequest:
    return metadata_request.MetadataRequest(
        topics=[metadata_request.MetadataRequestTopic(name=topic)],
        allow_auto_topic_creation=False,
    )


def api_versions() -> api_versions_request.ApiVersionsRequest:
    return api_versions_request.ApiVersionsRequest(
        client_software_name="pybroker-controller", client_software_version="1"
    )


class Outcomes:
    """Callbacks for the channel: records each outcome and wakes whoever waits for a count."""

    def __init__(self) -> None:
        self.got: list[tuple[int, Any]] = []
        self._changed = asyncio.Event()

    def callback(self, tag: int) -> Callable[[Any], None]:
        def record(outcome: Any) -> None:
            self.got.append((tag, outcome))
            self._changed.set()

        return record

    async def wait_for(self, count: int, timeout: float) -> list[tuple[int, Any]]:
        async with asyncio.timeout(timeout):
            while len(self.got) < count:
                self._changed.clear()
                await self._changed.wait()
        return self.got


# -- BrokerClient --------------------------------------------------------------------------


def test_api_versions_and_metadata(brokers: BrokerMaker) -> None:
    broker = brokers().start()

    async def main() -> None:
        client = BrokerClient("127.0.0.1", broker.port, client_id="1")
        await client.connect(10)
        try:
            versions = await client.request(ApiKey.API_VERSIONS, 3, api_versions(), 10000)
            assert versions.error_code == ErrorCode.NONE
            ranges = {k.api_key: (k.min_version, k.max_version) for k in versions.api_keys}
            assert ranges[ApiKey.METADATA][1] >= METADATA_VERSION
            assert ranges[ApiKey.API_VERSIONS] == (0, 4)

            meta = await client.request(
                ApiKey.METADATA, METADATA_VERSION, metadata_request.MetadataRequest(topics=None),
                10000,
            )
            assert [(b.node_id, b.host, b.port) for b in meta.brokers] == [
                (0, "127.0.0.1", broker.port)
            ]
            assert meta.controller_id == 0
            # an old, non-flexible version on the same connection (response header v0)
            old = await client.request(
                ApiKey.METADATA, 1, metadata_request.MetadataRequest(topics=[]), 10000
            )
            assert [b.port for b in old.brokers] == [broker.port] and old.topics == []
            absent = await client.request(
                ApiKey.METADATA, METADATA_VERSION, metadata_for("absent"), 10000
            )
            assert [(t.name, t.error_code) for t in absent.topics] == [
                ("absent", ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)
            ]
        finally:
            client.close()
        assert not client.connected

    run(main)


def test_many_pipelined_requests_are_answered_in_order(brokers: BrokerMaker) -> None:
    broker = brokers().start()
    count = 200

    async def main() -> None:
        client = BrokerClient("127.0.0.1", broker.port, client_id="1")
        await client.connect(10)
        try:
            tasks = []
            for i in range(count):
                if i % 10 == 0:
                    tasks.append(asyncio.ensure_future(
                        client.request(ApiKey.API_VERSIONS, i % 5, api_versions_request
                                       .ApiVersionsRequest(), 20000)))
                else:
                    version = (4, 9, METADATA_VERSION)[i % 3]
                    tasks.append(asyncio.ensure_future(
                        client.request(ApiKey.METADATA, version, metadata_for(f"t-{i}"), 20000)))
            await asyncio.sleep(0)
            # every request was written before any answer could be read
            assert client.in_flight == count
            answers = await asyncio.gather(*tasks)
        finally:
            client.close()
        for i, answer in enumerate(answers):
            if i % 10 == 0:
                assert answer.error_code == ErrorCode.NONE and answer.api_keys, i
            else:
                assert [t.name for t in answer.topics] == [f"t-{i}"], i

    run(main)


def test_refused_connection_and_lost_connection(brokers: BrokerMaker) -> None:
    broker = brokers()  # not started yet: nothing listens on its port

    async def refused() -> None:
        with pytest.raises(BrokerConnectError, match=f"127.0.0.1:{broker.port}"):
            await BrokerClient("127.0.0.1", broker.port, client_id="1").connect(5)

    run(refused)
    broker.start()

    async def lost() -> None:
        client = BrokerClient("127.0.0.1", broker.port, client_id="1")
        await client.connect(10)
        await client.request(ApiKey.API_VERSIONS, 3, api_versions(), 10000)
        await asyncio.to_thread(broker.kill)
        # the kernel closes the dead process's socket: the client hears of it
        async with asyncio.timeout(10):
            while client.connected:
                await asyncio.sleep(0.01)
        with pytest.raises(ConnectionLostError, match="closed by the broker|lost"):
            await client.request(ApiKey.API_VERSIONS, 3, api_versions(), 10000)

    run(lost)


# -- ControllerChannelManager --------------------------------------------------------------


def test_channel_delivers_once_a_late_broker_is_up(
    brokers: BrokerMaker, caplog: pytest.LogCaptureFixture
) -> None:
    broker = brokers(port=free_port())
    caplog.set_level(logging.DEBUG, logger="pybroker.controller.channel")

    async def main() -> None:
        channel = ControllerChannelManager(controller_id=7)
        outcomes = Outcomes()
        try:
            channel.add_broker(0, "127.0.0.1", broker.port)
            channel.send(0, ApiKey.API_VERSIONS, 3, api_versions(), outcomes.callback(1))
            channel.send(0, ApiKey.METADATA, METADATA_VERSION, metadata_for("late"),
                         outcomes.callback(2))
            await asyncio.sleep(2)
            assert outcomes.got == [], "nothing can be answered before the broker is up"
            assert channel.queue_size(0) == 2
            started = time.monotonic()
            await asyncio.to_thread(broker.start)
            got = await outcomes.wait_for(2, timeout=30)
            assert time.monotonic() - started < 15
        finally:
            await channel.shutdown()
        assert [tag for tag, _ in got] == [1, 2]
        assert got[0][1].error_code == ErrorCode.NONE
        assert [t.name for t in got[1][1].topics] == ["late"]

    run(main)
    records = [r for r in caplog.records if r.name == "pybroker.controller.channel"]
    warnings = [r for r in records if r.levelno == logging.WARNING]
    infos = [r.getMessage() for r in records if r.levelno == logging.INFO]
    retries = [r for r in records if r.levelno == logging.DEBUG]
    assert len(warnings) == 1, [r.getMessage() for r in warnings]
    assert "cannot reach broker 0" in warnings[0].getMessage()
    assert len(retries) >= 5, "the channel kept retrying, quietly"
    assert infos == [
        f"Controller 7 connected to broker 0 at 127.0.0.1:{broker.port} for sending state change "
        "requests"
    ]


def test_channel_redelivers_to_a_broker_killed_and_restarted(
    brokers: BrokerMaker, caplog: pytest.LogCaptureFixture
) -> None:
    broker = brokers().start()
    caplog.set_level(logging.INFO, logger="pybroker.controller.channel")
    queued = 20

    async def main() -> None:
        channel = ControllerChannelManager(controller_id=1)
        outcomes = Outcomes()
        try:
            channel.add_broker(0, "127.0.0.1", broker.port)
            channel.send(0, ApiKey.API_VERSIONS, 3, api_versions(), outcomes.callback(0))
            await outcomes.wait_for(1, timeout=20)  # connected and answered

            await asyncio.to_thread(broker.kill)
            for i in range(1, queued + 1):
                channel.send(0, ApiKey.METADATA, METADATA_VERSION, metadata_for(f"q-{i}"),
                             outcomes.callback(i))
            await asyncio.sleep(1)
            assert len(outcomes.got) == 1, "the broker is down: nothing more is answered"
            assert channel.queue_size(0) == queued

            await asyncio.to_thread(broker.start)  # same port, same data
            got = await outcomes.wait_for(queued + 1, timeout=30)
            assert channel.queue_size(0) == 0
        finally:
            await channel.shutdown()
        assert [tag for tag, _ in got] == list(range(queued + 1))
        for tag, response in got[1:]:
            assert [t.name for t in response.topics] == [f"q-{tag}"]

    run(main)
    connected = [r.getMessage() for r in caplog.records
                 if r.levelno == logging.INFO and "connected to broker 0" in r.getMessage()]
    assert len(connected) == 2, connected  # the first connection and the one after the restart
    warnings = [r for r in caplog.records
                if r.levelno == logging.WARNING and r.name == "pybroker.controller.channel"]
    assert len(warnings) == 1, [r.getMessage() for r in warnings]


def test_remove_broker_answers_its_pending_callbacks(brokers: BrokerMaker) -> None:
    live = brokers().start()
    absent = brokers()  # never started: its requests wait

    async def main() -> None:
        channel = ControllerChannelManager(controller_id=1)
        outcomes = Outcomes()
        try:
            channel.add_broker(0, "127.0.0.1", live.port)
            channel.add_broker(1, "127.0.0.1", absent.port)
            for i in range(3):
                channel.send(1, ApiKey.METADATA, METADATA_VERSION, metadata_for(f"r-{i}"),
                             outcomes.callback(10 + i))
            channel.send(0, ApiKey.API_VERSIONS, 3, api_versions(), outcomes.callback(0))
            got = await outcomes.wait_for(1, timeout=20)
            assert got[0][0] == 0 and got[0][1].error_code == ErrorCode.NONE
            await asyncio.sleep(0.5)
            assert channel.queue_size(1) == 3

            channel.remove_broker(1)
            assert outcomes.got == got, "callbacks never run inside remove_broker"
            got = await outcomes.wait_for(4, timeout=5)
            assert [tag for tag, _ in got[1:]] == [10, 11, 12]
            for _, outcome in got[1:]:
                assert isinstance(outcome, BrokerRemovedError)
                assert outcome.broker_id == 1
            assert channel.broker_ids == [0]

            # a request for a broker that is not in the channel is answered the same way
            channel.send(1, ApiKey.API_VERSIONS, 3, api_versions(), outcomes.callback(20))
            got = await outcomes.wait_for(5, timeout=5)
            assert got[4][0] == 20 and isinstance(got[4][1], BrokerRemovedError)

            # the live broker's sender is unaffected
            channel.send(0, ApiKey.METADATA, METADATA_VERSION, metadata_for("still"),
                         outcomes.callback(30))
            got = await outcomes.wait_for(6, timeout=20)
            assert got[5][0] == 30 and [t.name for t in got[5][1].topics] == ["still"]

            # shutting down answers what is still queued, and ends every sender task
            absent_port = absent.port
            channel.add_broker(2, "127.0.0.1", absent_port)
            channel.send(2, ApiKey.API_VERSIONS, 3, api_versions(), outcomes.callback(40))
        finally:
            await channel.shutdown()
        got = await outcomes.wait_for(7, timeout=5)
        assert got[6][0] == 40 and isinstance(got[6][1], BrokerRemovedError)
        senders = [t for t in asyncio.all_tasks() if "-to-broker-" in t.get_name()]
        assert senders == []

    run(main)
