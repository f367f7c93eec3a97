"""Transactional offset commits in the group coordinator (KIP-98, KIP-447): the pending
offsets' bookkeeping, their replay, TxnOffsetCommit's checks, and the offset manager on the
broker's real log and replica manager (a real embedded node): one transactional batch per
commit, pending offsets invisible to OffsetFetch (UNSTABLE_OFFSET_COMMIT with ``require_stable``) until the
transaction completes, the order of transactional and plain commits, reloads, unloading,
DeleteGroups, OffsetDelete and expiry."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from protocol.errors import ErrorCode
from protocol.records.batch import BatchHeader, set_base_offset
from protocol.records.control import (
    ControlRecordType,
    EndTransactionMarker,
    build_end_txn_marker_batch,
)
from protocol.records.record import build_batch
from pybroker.cluster.replica_manager import AppendOrigin
from pybroker.coordinator.group import GroupState
from pybroker.coordinator.group.offsets import OffsetFetchResult, OffsetManager, TxnProducer
from pybroker.coordinator.group.storage import (
    Appended,
    CommittedOffset,
    OffsetRecord,
    OffsetsConfig,
    PartitionReplay,
    serialize_offset_commit_key,
    serialize_offset_commit_value,
)
from pybroker.coordinator.group.txn_offsets import PendingTxnOffset, PendingTxnOffsets
from pybroker.coordinator.group_service import GroupCoordinatorService
from pybroker.coordinator.partitioning import OFFSETS_TOPIC, partition_for
from pybroker.metadata.model import PartitionRecord
from tests.unit.broker.embedded_node import EmbeddedNode
from tests.unit.cluster.helpers import partition_batches
from tests.unit.coordinator.group.group_coordinator_harness import Harness

E = ErrorCode
T0 = 1_700_000_000_000
MINUTE = 60_000
RETENTION = 10080 * MINUTE  # offsets.retention.minutes default
UNSTABLE = E.UNSTABLE_OFFSET_COMMIT


def c(offset: int, ts: int = T0) -> CommittedOffset:
    return CommittedOffset(offset, -1, "", ts)


# ------------------------------------------------------------------ the pending offsets


def test_a_pending_offset_learns_its_batch_and_leaves_with_its_transaction() -> None:
    pending = PendingTxnOffsets()
    pending.prepare(3, 7, "g", {("t", 0): c(10), ("t", 1): c(11)})
    assert pending.is_pending(3, "g", ("t", 0)) and pending.has_pending(3, "g")
    assert not pending.is_pending(3, "g", ("t", 2)) and not pending.is_pending(2, "g", ("t", 0))
    assert pending.of(3, 7, "g")[("t", 0)] == PendingTxnOffset(c(10), None)
    pending.appended(3, 7, "g", {("t", 0): c(10), ("t", 1): c(11)}, 40)
    assert pending.of(3, 7, "g")[("t", 1)].record() == OffsetRecord(40, c(11))
    assert pending.producers(3) == [7] and pending.groups(3) == {"g"}
    assert pending.complete(3, 8) == {}  # another producer: nothing
    done = pending.complete(3, 7)
    assert done == {"g": {("t", 0): PendingTxnOffset(c(10), 40),
                          ("t", 1): PendingTxnOffset(c(11), 40)}}
    assert not pending.has_pending(3, "g") and pending.complete(3, 7) == {}


def test_an_append_that_failed_or_was_overtaken_leaves_no_batch_offset() -> None:
    pending = PendingTxnOffsets()
    pending.prepare(0, 7, "g", {("t", 0): c(10), ("t", 1): c(11)})
    pending.failed(0, 7, "g", {("t", 0): c(10)})
    assert not pending.is_pending(0, "g", ("t", 0)) and pending.is_pending(0, "g", ("t", 1))
    # a second commit of the same producer replaces the first before the first is written
    pending.prepare(0, 7, "g", {("t", 1): c(12)})
    pending.appended(0, 7, "g", {("t", 1): c(11)}, 50)
    assert pending.of(0, 7, "g")[("t", 1)] == PendingTxnOffset(c(12), None)
    pending.appended(0, 7, "g", {("t", 1): c(12)}, 51)
    assert pending.of(0, 7, "g")[("t", 1)].batch_offset == 51
    pending.failed(0, 7, "g", {("t", 1): c(11)})  # not what is pending: nothing to undo
    assert pending.of(0, 7, "g")[("t", 1)].batch_offset == 51
    pending.prepare(0, 7, "g", {("t", 2): c(1)})
    pending.failed(0, 7, "g", {("t", 2): c(1)})
    assert pending.of(0, 7, "g") == {("t", 1): PendingTxnOffset(c(12), 51)}
    assert pending.complete(0, 7) and pending.producers(0) == [] and pending.groups(0) == set()


def test_a_refused_commit_gives_back_the_offset_it_replaced() -> None:
    """A zombie (the same producer id, an older epoch) is refused by the log after its offsets
    were prepared: the offset its successor wrote is pending again."""
    pending = PendingTxnOffsets()
    pending.prepare(0, 7, "g", {("t", 0): c(10)})
    pending.appended(0, 7, "g", {("t", 0): c(10)}, 40)
    replaced = pending.prepare(0, 7, "g", {("t", 0): c(3), ("t", 1): c(3)})
    assert replaced == {("t", 0): PendingTxnOffset(c(10), 40)}
    pending.failed(0, 7, "g", {("t", 0): c(3), ("t", 1): c(3)}, replaced)
    assert pending.of(0, 7, "g") == {("t", 0): PendingTxnOffset(c(10), 40)}


def test_removals_by_partition_group_and_unload() -> None:
    pending = PendingTxnOffsets()
    pending.prepare(0, 7, "g", {("t", 0): c(1), ("t", 1): c(1)})
    pending.prepare(0, 8, "g", {("t", 0): c(2)})
    pending.prepare(0, 8, "h", {("t", 0): c(3)})
    pending.remove(0, "g", [("t", 0)])  # OffsetDelete: every producer's offset of it goes
    assert not pending.is_pending(0, "g", ("t", 0)) and pending.is_pending(0, "g", ("t", 1))
    assert pending.producers(0) == [7, 8] and pending.producers(0, "g") == [7]
    pending.remove(0, "g")  # DeleteGroups
    assert pending.groups(0) == {"h"}
    pending.load(0, {9: {"x": {("t", 5): OffsetRecord(77, c(5))}, "empty": {}}})
    assert pending.groups(0) == {"x"}  # a load replaces what the partition had
    assert pending.of(0, 9, "x") == {("t", 5): PendingTxnOffset(c(5), 77)}
    pending.unload(0)
    assert pending.groups(0) == set() and pending.complete(0, 9) == {}


# ------------------------------------------------------------------ replay


def _marker(pid: int, commit: bool, epoch: int = 0) -> bytearray:
    return build_batch([(b"\x00\x00" + (b"\x00\x01" if commit else b"\x00\x00"),
                         b"\x00\x00\x00\x00\x00\x00")],
                       producer_id=pid, producer_epoch=epoch, is_transactional=True,
                       is_control=True, default_timestamp=T0)


class _Replay:
    def __init__(self, group: str = "g") -> None:
        self.group = group
        self.state = PartitionReplay(partition_for(group, 4), 4)
        self.log_end = 0

    def apply(self, batch: bytearray) -> int:
        set_base_offset(batch, self.log_end)
        base = self.log_end
        self.log_end += BatchHeader.parse(batch).last_offset_delta + 1
        self.state.apply_batch(bytes(batch), 0)
        return base

    def commit(self, pid: int | None, offsets: dict[int, int | None]) -> int:
        records = [(serialize_offset_commit_key(self.group, "t", p),
                    None if o is None else serialize_offset_commit_value(c(o)))
                   for p, o in offsets.items()]
        if pid is None:
            return self.apply(build_batch(records, default_timestamp=T0))
        return self.apply(build_batch(records, producer_id=pid, producer_epoch=0,
                                      base_sequence=0, is_transactional=True,
                                      default_timestamp=T0))


def test_replay_hands_over_the_transactions_still_open() -> None:
    r = _Replay()
    r.commit(None, {0: 1})
    at = r.commit(7, {0: 5, 1: 6})
    r.commit(8, {2: 9})
    r.apply(_marker(8, False))
    result = r.state.result(r.log_end)
    assert result.offsets == {"g": {("t", 0): c(1)}}
    assert result.records("g") == {("t", 0): OffsetRecord(0, c(1))}
    assert result.pending == {7: {"g": {("t", 0): OffsetRecord(at, c(5)),
                                        ("t", 1): OffsetRecord(at, c(6))}}}


def test_a_transactional_tombstone_only_leaves_the_pending_set() -> None:
    r = _Replay()
    r.commit(None, {0: 1})
    r.commit(7, {0: 5, 1: 6})
    r.commit(7, {0: None})  # Kafka's loader: out of the producer's pending set, cache untouched
    r.apply(_marker(7, True))
    assert r.state.result(r.log_end).offsets == {"g": {("t", 0): c(1), ("t", 1): c(6)}}


def test_commit_markers_apply_only_offsets_written_after_the_plain_ones() -> None:
    r = _Replay()
    r.commit(7, {0: 5})
    r.commit(None, {0: 8, 1: 8})  # written after producer 7's: wins over it
    r.commit(9, {1: 20})          # written after the plain commit: wins over it
    r.apply(_marker(7, True))
    r.apply(_marker(9, True))
    assert r.state.result(r.log_end).offsets == {"g": {("t", 0): c(8), ("t", 1): c(20)}}


def test_an_emptied_control_batch_ends_nothing() -> None:
    r = _Replay()
    r.commit(7, {0: 5})
    empty = build_batch([], producer_id=7, producer_epoch=0, is_transactional=True,
                        is_control=True, default_timestamp=T0, last_offset_delta=0)
    r.apply(empty)
    assert 7 in r.state.result(r.log_end).pending
    r.apply(_marker(7, True))
    assert r.state.result(r.log_end).offsets == {"g": {("t", 0): c(5)}}


# ------------------------------------------------------------------ TxnOffsetCommit's checks


def txn_commit(h: Harness, member_id: str, generation: int, instance: str | None = None,
               group_id: str = "g") -> ErrorCode:
    return h.coord.handle_commit_offsets(group_id, member_id, instance, generation, h.now,
                                         transactional=True)


def test_txn_commits_of_a_group_with_members_are_checked_like_kafka() -> None:
    h = Harness()
    (a, b), gen = h.stable_group("a", "b", instances=[None, "ib"])
    assert txn_commit(h, a, gen) is E.NONE
    assert txn_commit(h, a, gen + 1) is E.ILLEGAL_GENERATION
    assert txn_commit(h, "nobody", gen) is E.UNKNOWN_MEMBER_ID
    assert txn_commit(h, a, gen, instance="ib") is E.FENCED_INSTANCE_ID
    assert txn_commit(h, "nobody", -1, instance="gone") is E.UNKNOWN_MEMBER_ID
    assert txn_commit(h, b, gen, instance="ib") is E.NONE
    # v0-v2 producers name no member: accepted whatever the group's state (not for OffsetCommit)
    assert txn_commit(h, "", -1) is E.NONE
    assert h.commit("", -1) is E.UNKNOWN_MEMBER_ID
    h.join(client_id="c")
    h.join(a), h.join(b, "ib")
    assert h.state() is GroupState.COMPLETING_REBALANCE
    # a rebalance does not hold a transactional commit back (a plain one gets
    # REBALANCE_IN_PROGRESS)
    assert txn_commit(h, a, gen + 1) is E.NONE
    assert h.commit(a, gen + 1) is E.REBALANCE_IN_PROGRESS



def test_txn_commits_create_unknown_groups_and_need_a_group_id() -> None:
    h = Harness()
    assert txn_commit(h, "", -1, group_id="") is E.INVALID_GROUP_ID
    assert h.commit("", -1, group_id="") is E.NONE  # OffsetCommit accepts it, for compatibility
    assert txn_commit(h, "", -1, group_id="eos") is E.NONE
    assert h.state("eos") is GroupState.EMPTY
    # a member of a group this coordinator does not know: created, then unknown
    assert txn_commit(h, "m-1", 3, group_id="other") is E.UNKNOWN_MEMBER_ID
    assert h.state("other") is GroupState.EMPTY


# ------------------------------------------------------------------ on the broker's real log


class Node:
    """A real embedded node with its group coordinator service (called on the node's loop),
    every ``__consumer_offsets`` partition led and loaded. The tests here play the transaction
    coordinator (they write the markers), so the leaders do not verify transactions with one
    (KIP-890's verification of TxnOffsetCommit is tested in test_txn_verification.py)."""

    def __init__(self, data: Path) -> None:
        self.data = data
        self.node = EmbeddedNode.start(data, **{
            "offsets.topic.num.partitions": "4",
            "transaction.partition.verification.enable": "false"})
        self.broker = self.node.broker
        groups = self.broker.groups
        assert groups is not None
        self._groups: GroupCoordinatorService = groups
        #: the service, its methods called on the node's loop
        self.groups = self.node.on_loop(groups)
        if not groups.offsets.topic.exists:
            # as Kafka's ZooKeeper mode: no coordinator until the controller created the topic
            assert self.node.ensure_internal_topic(groups.ensure_offsets_topic) == \
                E.COORDINATOR_NOT_AVAILABLE
        assert self.groups.ensure_offsets_topic(T0) == E.NONE
        self.node.wait_until(lambda: groups.offsets.loaded_partitions == {0, 1, 2, 3},
                             what="every offsets partition loaded")

    @property
    def offsets(self) -> OffsetManager:
        return self.groups.offsets

    def txn_commit(self, group: str, pid: int, offsets: dict[tuple[str, int], int], *,
                   epoch: int = 0, now: int = T0) -> None:
        assert self.groups.coordinator.handle_commit_offsets(
            group, "", None, -1, now, transactional=True) is E.NONE
        answer = self.offsets.commit(group, [(t, p, o, -1, "") for (t, p), o in offsets.items()],
                                     now, producer=TxnProducer(pid, epoch))
        assert answer == dict.fromkeys(offsets, E.NONE)

    def commit(self, group: str, offsets: dict[tuple[str, int], int], now: int = T0) -> None:
        assert self.groups.coordinator.handle_commit_offsets(group, "", None, -1, now) is E.NONE
        answer = self.offsets.commit(group, [(t, p, o, -1, "") for (t, p), o in offsets.items()],
                                     now)
        assert answer == dict.fromkeys(offsets, E.NONE)

    def marker(self, pid: int, groups: list[str], commit: bool, *, epoch: int = 0) -> None:
        """What WriteTxnMarkers does for ``__consumer_offsets``: the marker appended as the
        coordinator's to the groups' partitions, then the transaction completed there."""
        partitions = sorted({partition_for(g, 4) for g in groups})
        kind = ControlRecordType.COMMIT if commit else ControlRecordType.ABORT

        def append() -> None:
            results = self.broker.replica_manager.append_records(
                {(OFFSETS_TOPIC, p): build_end_txn_marker_batch(
                    pid, epoch, EndTransactionMarker(kind, 0), timestamp=T0)
                 for p in partitions},
                required_acks=-1, timeout_ms=1000, now_ms=T0, origin=AppendOrigin.COORDINATOR)
            # the ISR is this broker alone: acks=all is answered at once
            assert not isinstance(results, asyncio.Future)
            assert all(r.error == E.NONE for r in results.values()), results

        self.node.call(append)
        self.groups.complete_transaction(pid, partitions, commit)

    def committed(self, group: str) -> dict[tuple[str, int], int]:
        return {tp: c.offset for tp, c in self.offsets.offsets_of(group).items()}

    def stable_fetch(self, group: str, *tps: tuple[str, int]) -> list[tuple[int, ErrorCode]]:
        return [(r.offset, r.error)
                for r in self.offsets.fetch(group, list(tps), require_stable=True)]

    def batches(self, partition: int) -> list:
        """Every batch of the ``__consumer_offsets`` partition."""
        rm = self.broker.replica_manager
        return partition_batches(rm.get_partition(OFFSETS_TOPIC, partition))

    def close(self) -> None:
        self.node.stop()


@pytest.fixture
def node(tmp_path: Path) -> Iterator[Node]:
    n = Node(tmp_path / "data")
    yield n
    n.close()


def reopen(n: Node) -> Node:
    n.close()
    return Node(n.data)


def test_a_txn_commit_is_one_transactional_batch_pending_until_its_marker(node: Node) -> None:
    p = partition_for("g", 4)
    node.commit("g", {("t", 2): 3})
    node.txn_commit("g", 7, {("t", 0): 10, ("t", 1): 11}, epoch=3)
    header, records = node.batches(p)[-1]
    assert (header.producer_id, header.producer_epoch, header.base_sequence) == (7, 3, 0)
    assert header.is_transactional and not header.is_control and header.records_count == 2
    assert [(r.key, r.value) for r in records] == [
        (serialize_offset_commit_key("g", "t", 0), serialize_offset_commit_value(c(10))),
        (serialize_offset_commit_key("g", "t", 1), serialize_offset_commit_value(c(11)))]
    # not committed yet: OffsetFetch answers what was there before, or UNSTABLE when asked to
    assert node.committed("g") == {("t", 2): 3}
    assert node.offsets.fetch("g", [("t", 0)]) == [
        OffsetFetchResult("t", 0, -1, -1, "", E.NONE)]
    assert node.stable_fetch("g", ("t", 0), ("t", 1), ("t", 2)) == [
        (-1, UNSTABLE), (-1, UNSTABLE), (3, E.NONE)]
    node.groups.complete_transaction(7, [p], True)
    assert node.committed("g") == {("t", 0): 10, ("t", 1): 11, ("t", 2): 3}
    assert node.stable_fetch("g", ("t", 0), ("t", 1)) == [(10, E.NONE), (11, E.NONE)]


def test_an_abort_drops_the_offsets_and_other_producers_and_partitions_are_untouched(
        node: Node) -> None:
    p = partition_for("g", 4)
    other = next(f"h{i}" for i in range(100) if partition_for(f"h{i}", 4) != p)
    node.txn_commit("g", 7, {("t", 0): 10})
    node.txn_commit("g", 8, {("t", 1): 20})
    node.txn_commit(other, 7, {("t", 0): 30})
    node.groups.complete_transaction(7, [p], False)
    assert node.committed("g") == {}
    assert node.stable_fetch("g", ("t", 0), ("t", 1)) == [(-1, E.NONE), (-1, UNSTABLE)]
    assert node.stable_fetch(other, ("t", 0)) == [(-1, UNSTABLE)]  # its partition had no marker
    node.groups.complete_transaction(8, [p], True)
    node.groups.complete_transaction(7, [partition_for(other, 4)], True)
    assert node.committed("g") == {("t", 1): 20} and node.committed(other) == {("t", 0): 30}


def test_a_plain_commit_written_after_the_transaction_wins(node: Node) -> None:
    p = partition_for("g", 4)
    node.txn_commit("g", 7, {("t", 0): 10, ("t", 1): 11})
    node.commit("g", {("t", 0): 5})  # later in the log than producer 7's batch
    assert node.stable_fetch("g", ("t", 0)) == [(-1, UNSTABLE)]
    node.groups.complete_transaction(7, [p], True)
    assert node.committed("g") == {("t", 0): 5, ("t", 1): 11}
    # and a transaction written after a plain commit wins over it
    node.txn_commit("g", 9, {("t", 0): 50})
    node.groups.complete_transaction(9, [p], True)
    assert node.committed("g") == {("t", 0): 50, ("t", 1): 11}


def test_pending_offsets_survive_a_reload(node: Node) -> None:
    p = partition_for("eos", 4)
    node.commit("eos", {("t", 1): 4})
    node.txn_commit("eos", 7, {("t", 0): 10})
    node = reopen(node)
    try:
        group = node.groups.coordinator.group("eos")
        assert group is not None and group.state is GroupState.EMPTY
        assert node.offsets.pending.producers(p) == [7]
        assert node.stable_fetch("eos", ("t", 0), ("t", 1)) == [(-1, UNSTABLE), (4, E.NONE)]
        node.groups.complete_transaction(7, [p], True)
        assert node.committed("eos") == {("t", 0): 10, ("t", 1): 4}
    finally:
        node.close()


def test_a_group_with_only_pending_offsets_is_loaded(node: Node) -> None:
    node.txn_commit("only-pending", 7, {("t", 0): 10})
    node = reopen(node)
    try:
        group = node.groups.coordinator.group("only-pending")
        assert group is not None and group.state is GroupState.EMPTY
        assert node.offsets.has_offsets("only-pending")
    finally:
        node.close()


def test_unloading_a_partition_drops_its_pending_offsets(node: Node) -> None:
    p = partition_for("g", 4)
    node.txn_commit("g", 7, {("t", 0): 10})
    node.node.announce_peer(9)  # alive: the partition can follow it
    rm = node.node.on_loop(node.broker.replica_manager)
    rm.become_leader_or_follower(OFFSETS_TOPIC, [PartitionRecord(p, (0, 9), (0, 9), 9, 1)], T0)
    assert node.offsets.pending.groups(p) == set() and not node.offsets.has_offsets("g")
    node.groups.complete_transaction(7, [p], True)  # not coordinated here: skipped
    assert node.committed("g") == {}
    rm.become_leader_or_follower(OFFSETS_TOPIC, [PartitionRecord(p, (0, 9), (0, 9), 0, 2)], T0)
    assert node.stable_fetch("g", ("t", 0)) == [(-1, UNSTABLE)]  # replayed: pending again


def test_delete_groups_takes_the_pending_offsets_along(node: Node) -> None:
    p = partition_for("g", 4)
    node.commit("g", {("t", 1): 1})
    node.txn_commit("g", 7, {("t", 0): 10, ("t", 1): 11})
    coordinator = node.groups.coordinator
    assert coordinator.handle_delete_groups(["g"], T0) == {"g": E.NONE}
    assert coordinator.group("g") is None and not node.offsets.has_offsets("g")
    node.groups.complete_transaction(7, [p], True)
    assert node.committed("g") == {}
    assert node.offsets.fetch("g", [("t", 0)], require_stable=True)[0].error is E.NONE


def test_an_empty_group_with_pending_offsets_does_not_expire(node: Node) -> None:
    node.txn_commit("g", 7, {("t", 0): 10})
    later = T0 + 10 * RETENTION
    node.groups.expire_offsets(later)
    assert node.groups.coordinator.group("g") is not None
    node.groups.complete_transaction(7, [partition_for("g", 4)], False)
    node.groups.expire_offsets(later)
    assert node.groups.coordinator.group("g") is None


def test_a_committed_offset_expires_even_with_a_transaction_pending(node: Node) -> None:
    node.commit("g", {("t", 0): 1})
    node.txn_commit("g", 7, {("t", 0): 10}, now=T0 + RETENTION)
    node.groups.expire_offsets(T0 + RETENTION)
    assert node.committed("g") == {}  # as Kafka: only plain commits being written hold it
    assert node.groups.coordinator.group("g") is not None  # the pending offset keeps the group
    node.groups.complete_transaction(7, [partition_for("g", 4)], True)
    assert node.committed("g") == {("t", 0): 10}


def test_offset_delete_drops_pending_offsets_and_then_the_emptied_group(node: Node) -> None:
    node.commit("g", {("t", 0): 1})
    node.txn_commit("g", 7, {("t", 0): 10, ("t", 1): 11})
    node.groups.delete_offsets("g", [("t", 0)], T0)
    assert node.committed("g") == {}
    assert node.stable_fetch("g", ("t", 0), ("t", 1)) == [(-1, E.NONE), (-1, UNSTABLE)]
    assert node.groups.coordinator.group("g") is not None  # ("t", 1) is still pending
    node.groups.delete_offsets("g", [("t", 1)], T0)
    assert node.groups.coordinator.group("g") is None
    node.groups.complete_transaction(7, [partition_for("g", 4)], True)
    assert node.committed("g") == {}


def test_a_producer_commits_offsets_transaction_after_transaction(node: Node) -> None:
    """Every TxnOffsetCommit of a producer is its own batch (base sequence 0 each time: the
    log checks no sequences of the coordinator's appends), two in one transaction included."""
    p = partition_for("g", 4)
    node.txn_commit("g", 7, {("t", 0): 10})
    node.txn_commit("g", 7, {("t", 0): 12})  # the same partition again, same transaction
    node.txn_commit("g", 7, {("t", 1): 20})
    node.marker(7, ["g"], True)
    assert node.committed("g") == {("t", 0): 12, ("t", 1): 20}
    node.txn_commit("g", 7, {("t", 0): 30})
    node.marker(7, ["g"], False)
    node.txn_commit("g", 7, {("t", 1): 40}, epoch=1)
    node.marker(7, ["g"], True, epoch=1)
    assert node.committed("g") == {("t", 0): 12, ("t", 1): 40}
    headers = [h for h, _ in node.batches(p)]
    assert [(h.is_control, h.producer_epoch) for h in headers if h.is_transactional] == [
        (False, 0), (False, 0), (False, 0), (True, 0), (False, 0), (True, 0), (False, 1),
        (True, 1)]
    assert all(h.base_sequence == 0 for h in headers if not h.is_control)
    node = reopen(node)
    try:  # the replay of the log agrees with the live cache
        assert node.committed("g") == {("t", 0): 12, ("t", 1): 40}
        assert node.offsets.pending.groups(p) == set()
    finally:
        node.close()


def test_a_zombie_commit_is_refused_and_leaves_its_successors_offset(node: Node) -> None:
    p = partition_for("g", 4)
    node.txn_commit("g", 7, {("t", 0): 10}, epoch=2)
    zombie = node.offsets.commit("g", [("t", 0, 3, -1, "")], T0, producer=TxnProducer(7, 1))
    assert zombie == {("t", 0): E.INVALID_PRODUCER_EPOCH}
    assert node.offsets.pending.of(p, 7, "g")[("t", 0)].committed.offset == 10
    node.marker(7, ["g"], True, epoch=2)
    assert node.committed("g") == {("t", 0): 10}


def test_a_transaction_over_several_groups_completes_on_each_partition(node: Node) -> None:
    p = partition_for("a", 4)
    b = next(f"b{i}" for i in range(100) if partition_for(f"b{i}", 4) != p)
    same = next(f"s{i}" for i in range(100) if partition_for(f"s{i}", 4) == p and f"s{i}" != "a")
    for group in ("a", b, same):
        node.txn_commit(group, 7, {("t", 0): 5})
    node.marker(7, ["a", b], True)  # a marker on the partition completes every group there
    assert node.committed("a") == node.committed(b) == node.committed(same) == {("t", 0): 5}


# ------------------------------------------------------------------ plain commits in flight


class _ReplicatingTopic:
    """An offsets topic whose appends are still being replicated: each returns a future."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.config = OffsetsConfig()
        self.appends: list[asyncio.Future[Appended]] = []
        self.tombstones: list[list[tuple[bytes, bytes | None]]] = []

    def partition_for(self, group_id: str) -> int:
        return 0

    def is_leader(self, partition: int) -> bool:
        return True

    def append_offsets(self, partition, records, now_ms, producer=None,  # noqa: ANN001, ANN201
                       verification_guard=None):  # noqa: ANN001
        future = self.loop.create_future()
        self.appends.append(future)
        return future

    def append(self, partition, records, now_ms, *, required_acks=0):  # noqa: ANN001, ANN201
        self.tombstones.append(list(records))
        return E.NONE


def test_a_plain_commit_being_replicated_is_unstable_and_does_not_expire() -> None:
    """Kafka's ``pendingOffsetCommits``: while a commit waits for the ISR, OffsetFetch with
    ``require_stable`` answers UNSTABLE_OFFSET_COMMIT, the partition's offset does not expire
    and the group is not empty."""
    loop = asyncio.new_event_loop()
    try:
        topic = _ReplicatingTopic(loop)
        offsets = OffsetManager(topic)  # type: ignore[arg-type]
        offsets.loaded_partitions.add(0)
        first = offsets.commit("g", [("t", 0, 5, -1, "")], T0)
        assert isinstance(first, asyncio.Future)
        topic.appends[0].set_result(Appended(E.NONE, 0))
        loop.run_until_complete(asyncio.sleep(0))
        second = offsets.commit("g", [("t", 0, 6, -1, "")], T0)
        assert offsets.fetch("g", [("t", 0)])[0].offset == 5
        assert offsets.fetch("g", [("t", 0)], require_stable=True)[0].error is UNSTABLE
        result = offsets.expire(T0 + RETENTION, lambda g: None)
        assert result.removed == {} and result.dead_groups == []
        topic.appends[1].set_result(Appended(E.NONE, 1))
        loop.run_until_complete(asyncio.sleep(0))
        assert isinstance(second, asyncio.Future) and second.result() == {("t", 0): E.NONE}
        assert offsets.fetch("g", [("t", 0)], require_stable=True)[0][2:] == (6, -1, "",
                                                                              E.NONE)
        # a commit whose offsets were deleted while it was replicated is not cached
        offsets.commit("g", [("t", 1, 7, -1, "")], T0)
        assert offsets.delete_offsets("g", [("t", 1)], T0) == []
        topic.appends[2].set_result(Appended(E.NONE, 2))
        loop.run_until_complete(asyncio.sleep(0))
        assert ("t", 1) not in offsets.offsets_of("g")
    finally:
        loop.close()
