"""Fetch and ListOffsets with isolation levels through the real handlers and dispatcher: the
last stable offset, the aborted transactions, a long poll woken by a marker, and a follower's
last stable offset held until the high watermark passes the marker."""

from __future__ import annotations

import asyncio

import pytest

from protocol.errors import ErrorCode
from protocol.messages import (
    ApiKey,
    fetch_request as freq,
    fetch_response as fresp,
    list_offsets_request as lreq,
)
from protocol.records.record import build_batch, decode_batch, iter_batches
from tests.unit.api.test_write_txn_markers import call, markers, produce
from tests.unit.cluster.replication_harness import TOPIC, Cluster, Node, follow, rounds, run, until

T0 = 1_700_000_000_000
FUTURE = 4_000_000_000_000
A, B = 9000, 9001
READ_UNCOMMITTED, READ_COMMITTED = 0, 1


def txn(pid: int, seq: int, n: int, ts: int = T0) -> bytearray:
    return build_batch([(None, b"%d-%d" % (pid, seq + i), (), ts) for i in range(n)],
                       producer_id=pid, producer_epoch=0, base_sequence=seq,
                       is_transactional=True)


def fetch(offset: int, isolation: int, *, wait_ms: int = 0, version: int = 12,
          ) -> freq.FetchRequest:
    return freq.FetchRequest(
        max_wait_ms=wait_ms, min_bytes=1, isolation_level=isolation,
        topics=[freq.FetchTopic(topic=TOPIC, partitions=[
            freq.FetchPartition(partition=0, fetch_offset=offset, partition_max_bytes=1 << 20)])])


def partition_of(answer: fresp.FetchResponse) -> fresp.PartitionData:
    [topic] = answer.responses
    [data] = topic.partitions
    return data


def values(data: fresp.PartitionData) -> list[bytes]:
    raw = bytes(data.records or b"")
    out = []
    for pos, header in iter_batches(raw):
        if not header.is_control:
            out += [r.value or b"" for r in decode_batch(raw, pos)[1]]
    return out


async def end_txn(node: Node, pid: int, commit: bool) -> None:
    answer = await call(node, ApiKey.WRITE_TXN_MARKERS, 1,
                        markers((pid, 0, commit, 0, [(TOPIC, [0])])))
    assert answer.markers[0].topics[0].partitions[0].error_code == ErrorCode.NONE


def list_latest(isolation: int, timestamp: int = -1) -> lreq.ListOffsetsRequest:
    return lreq.ListOffsetsRequest(replica_id=-1, isolation_level=isolation, topics=[
        lreq.ListOffsetsTopic(name=TOPIC, partitions=[
            lreq.ListOffsetsPartition(partition_index=0, timestamp=timestamp)])])


def offset_of(answer) -> int:
    [topic] = answer.topics
    [p] = topic.partitions
    assert p.error_code == ErrorCode.NONE
    return p.offset


@pytest.mark.parametrize("version", [4, 11, 12])
def test_read_committed_stops_at_the_lso_with_the_aborted_list(cluster: Cluster,
                                                              version: int) -> None:
    leader = cluster[1]
    leader.become(1, 0, (1,))

    async def main() -> None:
        assert produce(leader, txn(A, 0, 2)) == ErrorCode.NONE  # 0-1
        await end_txn(leader, A, commit=False)  # 2
        assert produce(leader, txn(B, 0, 1)) == ErrorCode.NONE  # 3: left open
        committed = partition_of(await call(leader, ApiKey.FETCH, version,
                                            fetch(0, READ_COMMITTED, version=version)))
        assert (committed.high_watermark, committed.last_stable_offset) == (4, 3)
        assert [(t.producer_id, t.first_offset) for t in committed.aborted_transactions] == \
            [(A, 0)]
        assert values(committed) == [b"9000-0", b"9000-1"]  # the consumer drops them itself
        everything = partition_of(await call(leader, ApiKey.FETCH, version,
                                             fetch(0, READ_UNCOMMITTED, version=version)))
        assert everything.last_stable_offset == 3
        assert everything.aborted_transactions is None
        assert values(everything) == [b"9000-0", b"9000-1", b"9001-0"]
        at_lso = partition_of(await call(leader, ApiKey.FETCH, version,
                                         fetch(3, READ_COMMITTED, version=version)))
        assert values(at_lso) == [] and at_lso.aborted_transactions == []

    run(main)


def test_list_offsets_honours_the_isolation_level(cluster: Cluster) -> None:
    leader = cluster[1]
    leader.become(1, 0, (1,))

    async def main() -> None:
        assert produce(leader, txn(A, 0, 2, T0)) == ErrorCode.NONE  # 0-1
        await end_txn(leader, A, commit=True)  # 2
        # far in the future: the markers carry the time they were written
        assert produce(leader, txn(B, 0, 1, FUTURE)) == ErrorCode.NONE  # 3: open
        for version in (2, 5, 9):
            assert offset_of(await call(leader, ApiKey.LIST_OFFSETS, version,
                                        list_latest(READ_COMMITTED))) == 3
            assert offset_of(await call(leader, ApiKey.LIST_OFFSETS, version,
                                        list_latest(READ_UNCOMMITTED))) == 4
            # a timestamp found only above the last stable offset is not found
            assert offset_of(await call(leader, ApiKey.LIST_OFFSETS, version,
                                        list_latest(READ_COMMITTED, FUTURE - 1))) == -1
            assert offset_of(await call(leader, ApiKey.LIST_OFFSETS, version,
                                        list_latest(READ_UNCOMMITTED, FUTURE - 1))) == 3
        await end_txn(leader, B, commit=True)
        assert offset_of(await call(leader, ApiKey.LIST_OFFSETS, 5,
                                    list_latest(READ_COMMITTED))) == 5

    run(main)


def test_a_waiting_read_committed_fetch_wakes_on_the_marker(cluster: Cluster) -> None:
    leader = cluster[1]
    leader.become(1, 0, (1,))

    async def main() -> None:
        assert produce(leader, txn(A, 0, 2)) == ErrorCode.NONE
        waiting = asyncio.ensure_future(call(leader, ApiKey.FETCH, 12,
                                             fetch(0, READ_COMMITTED, wait_ms=30_000)))
        await asyncio.sleep(0.05)
        assert not waiting.done(), "nothing is committed yet"
        # more of the open transaction moves the high watermark, not the LSO
        assert produce(leader, txn(A, 2, 1)) == ErrorCode.NONE
        await asyncio.sleep(0.05)
        assert not waiting.done()
        await end_txn(leader, A, commit=True)
        data = partition_of(await asyncio.wait_for(waiting, 5))
        assert data.last_stable_offset == 4 and data.aborted_transactions == []
        assert values(data) == [b"9000-0", b"9000-1", b"9000-2"]

    run(main)


def test_the_lso_waits_for_the_followers_to_have_the_marker(cluster: Cluster) -> None:
    leader, follower = cluster[1], cluster[2]

    async def main() -> None:
        fetcher, _ = cluster.fetcher(2, 1)
        for node in (leader, follower):
            node.become(1, 0, (1, 2))
        follow(fetcher, follower)
        assert produce(leader, txn(A, 0, 2)) == ErrorCode.NONE
        await rounds(fetcher, 2)
        partition = leader.rm.get_partition(TOPIC, 0)
        assert partition is not None
        assert (partition.high_watermark, partition.last_stable_offset) == (2, 0)
        pending = asyncio.ensure_future(end_txn(leader, A, commit=True))
        await asyncio.sleep(0)
        # decided, written, not replicated: still unstable
        assert leader.log.log_end_offset == 3
        assert (partition.high_watermark, partition.last_stable_offset) == (2, 0)
        await rounds(fetcher, 1)  # the follower copies the marker
        await rounds(fetcher, 1)  # and its next fetch tells the leader
        await until(lambda: partition.high_watermark == 3, "the high watermark")
        assert partition.last_stable_offset == 3
        await asyncio.wait_for(pending, 5)
        # the follower has the transaction's state too: its high watermark, and so its last
        # stable offset, pass the marker with its next fetch
        fpart = follower.rm.get_partition(TOPIC, 0)
        assert fpart is not None
        assert (fpart.high_watermark, fpart.last_stable_offset) == (2, 0)
        await rounds(fetcher, 1)
        assert (fpart.high_watermark, fpart.last_stable_offset) == (3, 3)

    run(main)
