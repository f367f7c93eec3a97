"""The leader's AlterPartition sender (pybroker.cluster.alter_partition): the request of each
version, the answers read back, and the manager's conversation with controllers that answer,
move, drop the connection or refuse, over stand-in connections whose requests go through the
real codecs. tests/cluster/test_isr.py runs it against a real controller."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from typing import Any

import pytest

from protocol.client import ClientConnection
from protocol.errors import ErrorCode
from protocol.framing import FrameDecoder
from protocol.messages import (
    ApiKey,
    alter_partition_request as areq,
    alter_partition_response as aresp,
    api_versions_response as vresp,
    request_module,
)
from pybroker.cluster.alter_partition import (
    AlterPartitionItem,
    AlterPartitionManager,
    IsrUpdate,
    RecordedIsr,
    alter_partition_version,
    build_alter_partition_request,
    parse_alter_partition_response,
)
from pybroker.cluster.metadata_cache import BrokerEndpoint
from pybroker.network.client import ConnectionLostError

TID = uuid.UUID("6d1f2b7c-0000-4000-8000-000000000001")
UPDATE = IsrUpdate(1, 4, (1, 2), 7, 0, (-1, 12))


def item(topic: str = "t", partition: int = 0, topic_id: uuid.UUID | None = TID,
         update: IsrUpdate = UPDATE) -> AlterPartitionItem:
    # (the pure halves never touch the future)
    return AlterPartitionItem(topic, partition, topic_id, update, None)  # type: ignore[arg-type]


def roundtrip(request: areq.AlterPartitionRequest, version: int) -> areq.AlterPartitionRequest:
    """The request as a controller decodes it."""
    conn = ClientConnection("test")
    _, frame = conn.send_request(ApiKey.ALTER_PARTITION, version, request)
    [raw] = FrameDecoder().feed(frame)
    from protocol.messages import request_header
    from protocol.primitives import Reader

    r = Reader(memoryview(raw))
    request_header.read(r, 2)
    return request_module(ApiKey.ALTER_PARTITION).read(r, version)


def test_the_version_follows_the_controller_and_the_topic_ids() -> None:
    assert alter_partition_version(3, True) == 3
    assert alter_partition_version(2, True) == 2
    assert alter_partition_version(3, False) == 1  # a partition without a topic id: names
    assert alter_partition_version(0, False) == 0
    assert alter_partition_version(None, True) is None


def test_v3_names_topics_by_id_with_each_members_broker_epoch() -> None:
    request = build_alter_partition_request(1, 99, [item()], 3)
    got = roundtrip(request, 3)
    assert (got.broker_id, got.broker_epoch) == (1, 99)
    [topic] = got.topics
    assert topic.topic_id == TID
    [p] = topic.partitions
    assert (p.partition_index, p.leader_epoch, p.partition_epoch) == (0, 4, 7)
    assert [(b.broker_id, b.broker_epoch) for b in p.new_isr_with_epochs] == [(1, -1), (2, 12)]


def test_v1_names_topics_and_lists_the_isr() -> None:
    request = build_alter_partition_request(
        1, 99, [item(topic_id=None), item(partition=1, topic_id=None)], 1)
    got = roundtrip(request, 1)
    [topic] = got.topics
    assert topic.topic_name == "t"
    assert [(p.partition_index, p.new_isr) for p in topic.partitions] == [(0, [1, 2]),
                                                                           (1, [1, 2])]


def test_answers_are_read_per_partition() -> None:
    response = aresp.AlterPartitionResponse(topics=[aresp.TopicData(topic_id=TID, partitions=[
        aresp.PartitionData(partition_index=0, leader_id=1, leader_epoch=4, isr=[1, 2],
                            partition_epoch=8),
        aresp.PartitionData(partition_index=1, error_code=ErrorCode.INVALID_UPDATE_VERSION),
    ])])
    top, answers = parse_alter_partition_response(response, 3, [item(), item(partition=1)])
    assert top == ErrorCode.NONE
    assert answers == {("t", 0): RecordedIsr(1, 4, (1, 2), 0, 8),
                       ("t", 1): ErrorCode.INVALID_UPDATE_VERSION}
    top, answers = parse_alter_partition_response(
        aresp.AlterPartitionResponse(error_code=ErrorCode.STALE_BROKER_EPOCH), 3, [item()])
    assert (top, answers) == (ErrorCode.STALE_BROKER_EPOCH, {})


# -- the manager against stand-in controllers ---------------------------------------------------


class Controller:
    """A controller behind stand-in connections: ``answer(request)`` decides each reply (a
    response, or an exception the connection fails with)."""

    def __init__(self, node_id: int, answer: Callable[[areq.AlterPartitionRequest], Any],
                 max_version: int = 3) -> None:
        self.node = BrokerEndpoint(node_id, "127.0.0.1", 9000 + node_id)
        self.answer = answer
        self.max_version = max_version
        self.requests: list[tuple[int, areq.AlterPartitionRequest]] = []
        self.gate: asyncio.Event | None = None


class Connection:
    def __init__(self, controller: Controller) -> None:
        self.controller = controller
        self.connected = False

    async def connect(self, timeout: float) -> None:
        self.connected = True

    async def request(self, api_key: int, version: int, body: Any, timeout_ms: int | None,
                      ) -> Any:
        if api_key == ApiKey.API_VERSIONS:
            return vresp.ApiVersionsResponse(api_keys=[vresp.ApiVersion(
                api_key=ApiKey.ALTER_PARTITION, min_version=0,
                max_version=self.controller.max_version)])
        decoded = roundtrip(body, version)
        self.controller.requests.append((version, decoded))
        if self.controller.gate is not None:
            await self.controller.gate.wait()
        answer = self.controller.answer(decoded)
        if isinstance(answer, Exception):
            self.connected = False
            raise answer
        return answer

    def close(self) -> None:
        self.connected = False


def echo(request: areq.AlterPartitionRequest) -> aresp.AlterPartitionResponse:
    """Records every ISR asked for, partition epoch + 1."""
    return aresp.AlterPartitionResponse(topics=[
        aresp.TopicData(topic_id=t.topic_id, topic_name=t.topic_name, partitions=[
            aresp.PartitionData(partition_index=p.partition_index, leader_id=request.broker_id,
                                leader_epoch=p.leader_epoch,
                                isr=[b.broker_id for b in p.new_isr_with_epochs] or p.new_isr,
                                partition_epoch=p.partition_epoch + 1)
            for p in t.partitions]) for t in request.topics])


def manager_for(current: list[Controller]) -> AlterPartitionManager:
    """A manager whose controller is ``current[0]`` (the test may change it)."""
    return AlterPartitionManager(
        1, lambda: 99, lambda: current[0].node if current else None, retry_backoff_ms=1,
        connect=lambda node: Connection(next(c for c in current if c.node == node)))


def run(main: Callable[[], Any]) -> None:
    asyncio.run(asyncio.wait_for(main(), 10))


def test_one_request_in_flight_carries_every_pending_partition() -> None:
    async def main() -> None:
        controller = Controller(3, echo)
        controller.gate = asyncio.Event()
        m = manager_for([controller])
        first = m.submit("t", 0, TID, UPDATE)
        await asyncio.sleep(0.01)
        # while the first is in flight, two more partitions wait; a second update of a
        # pending partition is not attempted
        second = m.submit("t", 1, TID, UPDATE)
        third = m.submit("u", 0, uuid.uuid4(), UPDATE)
        assert await m.submit("t", 1, TID, UPDATE) == ErrorCode.OPERATION_NOT_ATTEMPTED
        controller.gate.set()
        assert await first == RecordedIsr(1, 4, (1, 2), 0, 8)
        assert await second == await third == RecordedIsr(1, 4, (1, 2), 0, 8)
        assert [len(r.topics) for _, r in controller.requests] == [1, 2]
        assert [v for v, _ in controller.requests] == [3, 3]
        assert not m.unsent and not m.in_flight
        await m.shutdown()

    run(main)


def test_a_moved_controller_or_a_lost_connection_gets_the_same_request_again() -> None:
    async def main() -> None:
        old = Controller(2, lambda _r: aresp.AlterPartitionResponse(
            error_code=ErrorCode.NOT_CONTROLLER))
        new = Controller(3, echo)
        current = [old, new]
        calls = []

        def flaky(request: areq.AlterPartitionRequest) -> Any:
            calls.append(request)
            return ConnectionLostError("gone") if len(calls) == 1 else echo(request)

        new.answer = flaky
        m = manager_for(current)
        answer = m.submit("t", 0, None, UPDATE)  # no topic id: v1, by name
        await asyncio.sleep(0.02)
        assert old.requests and not answer.done()
        current.pop(0)  # the metadata cache learns of the new controller
        assert await answer == RecordedIsr(1, 4, (1, 2), 0, 8)
        assert [v for v, _ in new.requests] == [1, 1]
        await m.shutdown()

    run(main)


def test_a_request_level_error_leaves_the_updates_pending_and_retries() -> None:
    async def main() -> None:
        answers: list[Any] = [aresp.AlterPartitionResponse(
            error_code=ErrorCode.STALE_BROKER_EPOCH)]
        controller = Controller(3, lambda r: answers.pop(0) if answers else echo(r))
        m = manager_for([controller])
        answer = m.submit("t", 0, TID, UPDATE)
        assert isinstance(await answer, RecordedIsr)
        assert len(controller.requests) == 2
        await m.shutdown()

    run(main)


def test_a_partition_left_out_of_the_answer_is_sent_again() -> None:
    async def main() -> None:
        def skip_first(request: areq.AlterPartitionRequest) -> aresp.AlterPartitionResponse:
            response = echo(request)
            if len(controller.requests) == 1:
                response.topics[0].partitions = response.topics[0].partitions[1:]
            return response

        controller = Controller(3, skip_first)
        m = manager_for([controller])
        a = m.submit("t", 0, TID, UPDATE)
        b = m.submit("t", 1, TID, UPDATE)
        assert isinstance(await b, RecordedIsr) and isinstance(await a, RecordedIsr)
        assert [[p.partition_index for p in r.topics[0].partitions]
                for _, r in controller.requests] == [[0], [0, 1]]
        await m.shutdown()

    run(main)


def test_shutdown_answers_what_is_pending() -> None:
    async def main() -> None:
        m = manager_for([])  # no controller known
        answer = m.submit("t", 0, TID, UPDATE)
        await asyncio.sleep(0.01)
        await m.shutdown()
        assert await answer == ErrorCode.OPERATION_NOT_ATTEMPTED

    run(main)


@pytest.mark.parametrize("max_version", [0, 2])
def test_an_older_controller_gets_the_version_it_knows(max_version: int) -> None:
    async def main() -> None:
        controller = Controller(3, echo, max_version=max_version)
        m = manager_for([controller])
        assert isinstance(await m.submit("t", 0, TID, UPDATE), RecordedIsr)
        assert [v for v, _ in controller.requests] == [max_version]
        await m.shutdown()

    run(main)
