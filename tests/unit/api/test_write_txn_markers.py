"""WriteTxnMarkers through the real handler and dispatcher (tests/unit/cluster/replication_harness):
markers appended as control batches, Kafka's errors, epoch fencing, and the answer waiting for
the ISR when a follower replicates the marker."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from protocol.errors import ErrorCode
from protocol.messages import (
    ApiKey,
    write_txn_markers_request as wreq,
    write_txn_markers_response as wresp,
)
from protocol.records.control import ControlRecordType, EndTransactionMarker, read_end_txn_marker
from protocol.records.record import build_batch, iter_batches
from tests.unit.cluster.replication_harness import TOPIC, Cluster, Node, run, until
from tests.unit.network.helpers import call as dispatch_call
from tests.unit.protocol.records.helpers import value_batch

T0 = 1_700_000_000_000
PID = 9000


async def call(node: Node, api_key: int, version: int, body: object) -> Any:
    """A request through ``node``'s dispatcher and codecs, as from a socket."""
    return await dispatch_call(node.dispatcher, api_key, version, body, client_id="txn-test")


def txn_batch(seq: int, n: int = 2, *, pid: int = PID, epoch: int = 0) -> bytearray:
    return value_batch(n, tag=b"t", first=seq, ts_step=0, producer_id=pid, producer_epoch=epoch,
                       base_sequence=seq, is_transactional=True)


def produce(node: Node, batch: bytearray, partition: int = 0) -> ErrorCode:
    """Append as a client's Produce does, at the time the markers' requests are handled (an
    append at T0 followed by one now would roll the segment for its age)."""
    result, _ = node.rm.append_to_leader(TOPIC, partition, batch, required_acks=1,
                                         now_ms=int(time.time() * 1000))
    return result.error


def markers(*items: tuple[int, int, bool, int, list[tuple[str, list[int]]]],
            ) -> wreq.WriteTxnMarkersRequest:
    return wreq.WriteTxnMarkersRequest(markers=[
        wreq.WritableTxnMarker(
            producer_id=pid, producer_epoch=epoch, transaction_result=commit,
            coordinator_epoch=coordinator_epoch,
            topics=[wreq.WritableTxnMarkerTopic(name=t, partition_indexes=ps) for t, ps in topics])
        for pid, epoch, commit, coordinator_epoch, topics in items])


def errors_of(response: wresp.WriteTxnMarkersResponse) -> dict[tuple[int, str, int], ErrorCode]:
    return {(mk.producer_id, t.name, p.partition_index): ErrorCode(p.error_code)
            for mk in response.markers for t in mk.topics for p in t.partitions}


def control_batches(node: Node) -> list[tuple[int, int, int, EndTransactionMarker | None]]:
    data = node.log_bytes()
    out = []
    for pos, header in iter_batches(data):
        if header.is_control:
            _, marker = read_end_txn_marker(data, pos)
            out.append((header.base_offset, header.producer_id, header.producer_epoch, marker))
    return out


@pytest.mark.parametrize("version", [0, 1])
def test_markers_are_written_as_control_batches(cluster: Cluster, version: int) -> None:
    leader = cluster[1]
    leader.become(1, 0, (1,))

    async def main() -> None:
        assert produce(leader, txn_batch(0)) == ErrorCode.NONE
        answer = await call(leader, ApiKey.WRITE_TXN_MARKERS, version,
                            markers((PID, 0, True, 3, [(TOPIC, [0])])))
        assert errors_of(answer) == {(PID, TOPIC, 0): ErrorCode.NONE}
        assert control_batches(leader) == [
            (2, PID, 0, EndTransactionMarker(ControlRecordType.COMMIT, 3))]
        entry = leader.log.producer_state.producers[PID]
        assert (entry.coordinator_epoch, entry.current_txn_first_offset) == (3, -1)
        # an abort of the next transaction
        assert produce(leader, txn_batch(2)) == ErrorCode.NONE
        answer = await call(leader, ApiKey.WRITE_TXN_MARKERS, version,
                            markers((PID, 0, False, 3, [(TOPIC, [0])])))
        assert errors_of(answer) == {(PID, TOPIC, 0): ErrorCode.NONE}
        assert control_batches(leader)[-1] == (
            5, PID, 0, EndTransactionMarker(ControlRecordType.ABORT, 3))

    run(main)


def test_unknown_and_followed_partitions(cluster: Cluster) -> None:
    node = cluster[1]
    node.become(2, 0, (1, 2))  # node 1 follows partition 0

    async def main() -> None:
        answer = await call(node, ApiKey.WRITE_TXN_MARKERS, 1, markers(
            (PID, 0, True, 0, [(TOPIC, [0, 7]), ("nowhere", [0])]),
            (PID + 1, 0, False, 0, [(TOPIC, [0])])))
        assert errors_of(answer) == {
            (PID, TOPIC, 0): ErrorCode.NOT_LEADER_OR_FOLLOWER,
            (PID, TOPIC, 7): ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
            (PID, "nowhere", 0): ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
            (PID + 1, TOPIC, 0): ErrorCode.NOT_LEADER_OR_FOLLOWER,
        }
        assert [mk.producer_id for mk in answer.markers] == [PID, PID + 1]
        empty = await call(node, ApiKey.WRITE_TXN_MARKERS, 1, markers())
        assert empty.markers == []

    run(main)


def test_stale_coordinator_and_producer_epochs_are_fenced(cluster: Cluster) -> None:
    leader = cluster[1]
    leader.become(1, 0, (1,))

    async def main() -> None:
        assert produce(leader, txn_batch(0, epoch=2)) == ErrorCode.NONE
        first = await call(leader, ApiKey.WRITE_TXN_MARKERS, 1,
                           markers((PID, 2, True, 5, [(TOPIC, [0])])))
        assert errors_of(first) == {(PID, TOPIC, 0): ErrorCode.NONE}
        end = leader.log.log_end_offset
        zombie = await call(leader, ApiKey.WRITE_TXN_MARKERS, 1,
                            markers((PID, 2, False, 4, [(TOPIC, [0])])))
        assert errors_of(zombie) == {(PID, TOPIC, 0): ErrorCode.TRANSACTION_COORDINATOR_FENCED}
        old = await call(leader, ApiKey.WRITE_TXN_MARKERS, 1,
                         markers((PID, 1, False, 5, [(TOPIC, [0])])))
        assert errors_of(old) == {(PID, TOPIC, 0): ErrorCode.INVALID_PRODUCER_EPOCH}
        assert leader.log.log_end_offset == end, "a refused marker must not be appended"
        # a newer coordinator epoch and a bumped producer epoch (a timed-out transaction
        # aborted by the coordinator) are taken
        bumped = await call(leader, ApiKey.WRITE_TXN_MARKERS, 1,
                            markers((PID, 3, False, 6, [(TOPIC, [0])])))
        assert errors_of(bumped) == {(PID, TOPIC, 0): ErrorCode.NONE}
        entry = leader.log.producer_state.producers[PID]
        assert (entry.epoch, entry.coordinator_epoch, list(entry.batches)) == (3, 6, [])

    run(main)


def test_clients_cannot_produce_control_batches(cluster: Cluster) -> None:
    leader = cluster[1]
    leader.become(1, 0, (1,))
    data = build_batch([(b"\x00\x00\x00\x01", b"\x00\x00\x00\x00\x00\x01")], producer_id=PID,
                       producer_epoch=0, is_transactional=True, is_control=True,
                       default_timestamp=T0)
    assert produce(leader, data) == ErrorCode.INVALID_RECORD
    assert leader.log.log_end_offset == 0


def test_the_answer_waits_for_the_isr(cluster: Cluster) -> None:
    leader, follower = cluster[1], cluster[2]

    async def main() -> None:
        cluster.enable_replication(2)
        try:
            await replicated()
        finally:
            await cluster.shutdown()

    async def replicated() -> None:
        for node in (leader, follower):
            node.become(1, 0, (1, 2))
        assert produce(leader, txn_batch(0)) == ErrorCode.NONE
        partition = leader.rm.get_partition(TOPIC, 0)
        assert partition is not None
        await until(lambda: partition.high_watermark == 2, "the follower to copy the data")
        pending = asyncio.ensure_future(call(leader, ApiKey.WRITE_TXN_MARKERS, 1,
                                             markers((PID, 0, True, 1, [(TOPIC, [0])]))))
        await asyncio.sleep(0)
        assert leader.log.log_end_offset == 3 and partition.high_watermark == 2
        assert not pending.done(), "answered before the follower has the marker"
        answer = await pending
        assert errors_of(answer) == {(PID, TOPIC, 0): ErrorCode.NONE}
        assert partition.high_watermark == 3 and follower.log.log_end_offset == 3
        assert control_batches(follower) == control_batches(leader)
        entry = follower.log.producer_state.producers[PID]
        assert (entry.coordinator_epoch, entry.current_txn_first_offset) == (1, -1)

    run(main)
