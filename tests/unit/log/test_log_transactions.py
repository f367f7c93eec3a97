"""Transactions in the log: producer state (open transactions, markers, fencing), the last
stable offset, ``.txnindex`` in Kafka's format, reads of committed data, and recovery,
truncation and replication of all of it."""

from __future__ import annotations

import shutil
import struct
from pathlib import Path

import pytest
from crc32c import crc32c

from protocol.errors import ErrorCode, KafkaError
from protocol.records.batch import BatchHeader
from protocol.records.control import (
    ControlRecordType,
    EndTransactionMarker,
    build_end_txn_marker_batch,
)
from protocol.records.record import build_batch
from pybroker.log import Log, LogConfig
from pybroker.log.producer_state import (
    AppendOrigin,
    CompletedTxn,
    ProducerStateManager,
    snapshot_path,
)
from pybroker.log.txn_index import AbortedTxn, TransactionIndex, parse_entries
from tests.unit.log.helpers import OPENED as _opened
from tests.unit.paths import FIXTURES as FIXTURES_ROOT

T0 = 1_700_000_000_000
FIXTURES = FIXTURES_ROOT / "txn"
A, B, C = 1000, 2000, 3000
COMMIT, ABORT = ControlRecordType.COMMIT, ControlRecordType.ABORT


def open_log(path: Path, *, clean: bool = True, **config: object) -> Log:
    log = Log.open(path / "txn-0", LogConfig(**config), now_ms=T0,  # type: ignore[arg-type]
                   clean_shutdown=clean)
    _opened.append(log)
    return log


class Producer:
    """A transactional producer's batches, sequence numbers kept per producer."""

    def __init__(self, pid: int, epoch: int = 0) -> None:
        self.pid, self.epoch, self.seq = pid, epoch, 0

    def batch(self, n: int = 1, *, transactional: bool = True) -> bytearray:
        data = build_batch([(None, b"%d-%d" % (self.pid, self.seq + i), (), T0)
                            for i in range(n)],
                           producer_id=self.pid, producer_epoch=self.epoch,
                           base_sequence=self.seq, is_transactional=transactional)
        self.seq += n
        return data

    def send(self, log: Log, n: int = 1, *, transactional: bool = True) -> int:
        info = log.append_as_leader(self.batch(n, transactional=transactional), leader_epoch=0,
                                    now_ms=T0)
        return info.first_offset

    def marker(self, control_type: ControlRecordType, coordinator_epoch: int = 0, *,
               epoch: int | None = None) -> bytearray:
        return build_end_txn_marker_batch(
            self.pid, self.epoch if epoch is None else epoch,
            EndTransactionMarker(control_type, coordinator_epoch), timestamp=T0)

    def end(self, log: Log, control_type: ControlRecordType, coordinator_epoch: int = 0, *,
            epoch: int | None = None) -> int:
        info = log.append_as_leader(self.marker(control_type, coordinator_epoch, epoch=epoch),
                                    leader_epoch=0, now_ms=T0, origin=AppendOrigin.COORDINATOR)
        return info.first_offset


def refused(code: ErrorCode, log: Log, batch: bytearray,
            origin: AppendOrigin = AppendOrigin.CLIENT) -> None:
    end = log.log_end_offset
    with pytest.raises(KafkaError) as e:
        log.append_as_leader(batch, leader_epoch=0, now_ms=T0, origin=origin)
    assert e.value.code == code
    assert log.log_end_offset == end, "a refused batch must not be appended"


def aborted(log: Log) -> list[AbortedTxn]:
    return [t for s in log.segments for t in s.txn_index.entries]


# -- producer state --------------------------------------------------------------------------


def test_a_transaction_opens_at_its_first_batch_and_a_marker_ends_it(tmp_path: Path) -> None:
    log = open_log(tmp_path)
    a = Producer(A)
    assert a.send(log, 2) == 0
    assert a.send(log, 3) == 2
    state = log.producer_state
    assert state.producers[A].current_txn_first_offset == 0
    assert state.ongoing_txns == {0: A}
    assert log.last_stable_offset(5) == 0
    assert a.end(log, COMMIT, 4) == 5
    entry = state.producers[A]
    assert (entry.current_txn_first_offset, entry.coordinator_epoch) == (-1, 4)
    # decided, but the high watermark has not passed the marker yet
    assert state.ongoing_txns == {} and state.unreplicated_txns == {0: 5}
    assert log.last_stable_offset(5) == 0
    assert log.last_stable_offset(6) == 6
    assert state.unreplicated_txns == {}
    assert aborted(log) == []  # a commit is not indexed


def test_the_last_stable_offset_is_the_earliest_open_transaction(tmp_path: Path) -> None:
    log = open_log(tmp_path)
    a, b = Producer(A), Producer(B)
    log.append_as_leader(build_batch([(None, b"plain", (), T0)]), leader_epoch=0, now_ms=T0)
    assert a.send(log) == 1
    assert b.send(log) == 2
    assert log.last_stable_offset(3) == 1
    assert log.last_stable_offset(1) == 1 and log.last_stable_offset(0) == 0
    a.end(log, COMMIT)  # 3
    assert log.last_stable_offset(4) == 2  # B's transaction still open
    b.end(log, ABORT)  # 4
    assert log.last_stable_offset(4) == 2  # B's marker not replicated yet
    assert log.last_stable_offset(5) == 5
    assert aborted(log) == [AbortedTxn(B, 2, 4, 5)]


def test_an_aborted_transactions_last_stable_offset_is_another_open_one(tmp_path: Path) -> None:
    log = open_log(tmp_path)
    a, b = Producer(A), Producer(B)
    a.send(log)  # 0
    b.send(log)  # 1
    a.end(log, ABORT)  # 2: B is still open from 1
    b.end(log, ABORT)  # 3
    assert aborted(log) == [AbortedTxn(A, 0, 2, 1), AbortedTxn(B, 1, 3, 4)]


def test_non_transactional_batches_during_a_transaction_are_refused(tmp_path: Path) -> None:
    log = open_log(tmp_path)
    a = Producer(A)
    a.send(log)
    refused(ErrorCode.INVALID_TXN_STATE, log, a.batch(transactional=False))
    a.seq -= 1
    a.end(log, ABORT)
    assert a.send(log, transactional=False) == 2  # nothing open: accepted


def test_markers_are_fenced_by_coordinator_and_producer_epochs(tmp_path: Path) -> None:
    log = open_log(tmp_path)
    a = Producer(A, epoch=3)
    a.send(log)
    a.end(log, COMMIT, coordinator_epoch=7)
    refused(ErrorCode.TRANSACTION_COORDINATOR_FENCED, log, a.marker(ABORT, 6),
            AppendOrigin.COORDINATOR)
    refused(ErrorCode.INVALID_PRODUCER_EPOCH, log, a.marker(ABORT, 7, epoch=2),
            AppendOrigin.COORDINATOR)
    # the same coordinator epoch again, and a marker without an open transaction: written,
    # nothing completed, nothing indexed
    assert a.end(log, ABORT, 7) == 2
    assert log.producer_state.unreplicated_txns == {0: 1}
    assert aborted(log) == []
    # a marker with a bumped producer epoch (a coordinator aborting on timeout) forgets the
    # old epoch's batches: the producer's next epoch starts at sequence 0
    a.send(log)
    a.end(log, ABORT, 8, epoch=4)
    entry = log.producer_state.producers[A]
    assert (entry.epoch, entry.coordinator_epoch, list(entry.batches)) == (4, 8, [])
    refused(ErrorCode.INVALID_PRODUCER_EPOCH, log, a.batch())


def test_clients_cannot_write_markers(tmp_path: Path) -> None:
    log = open_log(tmp_path)
    a = Producer(A)
    a.send(log)
    refused(ErrorCode.INVALID_RECORD, log, a.marker(COMMIT))


def test_replicated_markers_are_never_refused() -> None:
    state = ProducerStateManager(Path("unused-0"))
    header = BatchHeader.parse(build_batch([(None, b"x", (), T0)], producer_id=A,
                                           producer_epoch=5, base_sequence=0,
                                           is_transactional=True))
    state.update(header, 0, 0, T0)
    marker = EndTransactionMarker(COMMIT, 9)
    state.check_marker(BatchHeader.parse(build_end_txn_marker_batch(A, 5, marker, timestamp=T0)),
                       marker)
    state.update_marker(BatchHeader.parse(build_end_txn_marker_batch(A, 5, marker,
                                                                     timestamp=T0)),
                        marker, 1, T0)
    stale = EndTransactionMarker(ABORT, 2)
    old = BatchHeader.parse(build_end_txn_marker_batch(A, 4, stale, timestamp=T0))
    with pytest.raises(KafkaError):
        state.check_marker(old, stale)
    state.check_marker(old, stale, AppendOrigin.REPLICATION)  # logged only


def test_coordinator_data_batches_skip_sequence_checks(tmp_path: Path) -> None:
    """The group coordinator's transactional offset commits carry a producer id: their epoch
    is checked, their sequence not (Kafka checks sequences of clients' batches only)."""
    log = open_log(tmp_path)
    a = Producer(A)
    a.send(log)
    a.seq = 40
    info = log.append_as_leader(a.batch(), leader_epoch=0, now_ms=T0,
                                origin=AppendOrigin.COORDINATOR)
    assert info.first_offset == 1 and not info.duplicate
    a.seq = 50
    refused(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER, log, a.batch())


def test_open_transactions_keep_their_producer_from_expiring(tmp_path: Path) -> None:
    log = open_log(tmp_path)
    a, b = Producer(A), Producer(B)
    a.send(log)
    b.send(log)
    b.end(log, COMMIT)
    assert log.remove_expired_producers(T0 + 86_400_001) == 1
    assert set(log.producer_state.producers) == {A}


def test_complete_txn_needs_an_open_transaction() -> None:
    with pytest.raises(ValueError):
        ProducerStateManager(Path("unused-0")).complete_txn(CompletedTxn(A, 0, 1, True))


# -- snapshots -------------------------------------------------------------------------------


def test_open_transactions_survive_a_clean_restart(tmp_path: Path) -> None:
    log = open_log(tmp_path)
    a, b = Producer(A), Producer(B)
    a.send(log)
    b.send(log)
    a.end(log, ABORT, 2)
    log.close()
    log = open_log(tmp_path)
    state = log.producer_state
    assert state.ongoing_txns == {1: B}
    assert state.producers[A].coordinator_epoch == 2
    assert log.last_stable_offset(3) == 1
    refused(ErrorCode.TRANSACTION_COORDINATOR_FENCED, log, a.marker(ABORT, 1),
            AppendOrigin.COORDINATOR)
    b.end(log, COMMIT)
    assert log.last_stable_offset(4) == 4


def test_version_1_snapshots_are_read(tmp_path: Path) -> None:
    dir = tmp_path / "v1-0"
    dir.mkdir()
    body = struct.pack(">i", 1) + struct.pack(">qhqb", A, 2, T0, 1) + \
        struct.pack(">iiqqq", 0, 4, 10, 14, T0)
    snapshot_path(dir, 15).write_bytes(struct.pack(">4sHI", b"PBPS", 1, crc32c(body)) + body)
    state = ProducerStateManager(dir)
    assert state.load_latest_snapshot(15) == 15
    entry = state.producers[A]
    assert (entry.epoch, entry.last_seq, entry.coordinator_epoch,
            entry.current_txn_first_offset) == (2, 4, -1, -1)
    state.take_snapshot(20)
    assert snapshot_path(dir, 20).read_bytes()[4:6] == b"\x00\x02"
    again = ProducerStateManager(dir)
    assert again.load_latest_snapshot(20) == 20 and again.producers[A].last_seq == 4


# -- .txnindex -------------------------------------------------------------------------------


def test_txnindex_bytes_are_kafkas(tmp_path: Path) -> None:
    """``tests/fixtures/txn/00000000000000000100.txnindex`` was written by Kafka 3.9's
    TransactionIndex (GenerateTxnFixtures.java)."""
    kafkas = (FIXTURES / "00000000000000000100.txnindex").read_bytes()
    entries = [AbortedTxn(A + 3242, 100, 130, 131), AbortedTxn(77, 120, 180, 125),
               AbortedTxn(A + 3242, 200, 205, 206)]
    assert parse_entries(kafkas) == entries
    index = TransactionIndex(tmp_path / "00000000000000000100.txnindex", 100)
    for e in entries:
        index.append(e)
    index.close()
    assert index.path.read_bytes() == kafkas
    assert len(kafkas) == 3 * 34


def test_txnindex_search_truncation_and_order(tmp_path: Path) -> None:
    index = TransactionIndex(tmp_path / "00000000000000000000.txnindex", 0)
    assert not index.path.exists() and index.entries == []
    # producer 2's transaction was open from 5 when producer 1's abort was written at 10
    one, two, three = AbortedTxn(1, 0, 10, 5), AbortedTxn(2, 5, 20, 21), AbortedTxn(3, 30, 40, 41)
    for e in (one, two, three):
        index.append(e)
    with pytest.raises(ValueError):
        index.append(AbortedTxn(4, 35, 40, 41))
    # overlapping [fetch offset, upper bound): marker at or after the fetch offset, first offset
    # below the bound; the search is complete at an entry whose last stable offset reaches it
    assert index.collect(0, 6).aborted == [one, two] and index.collect(0, 6).is_complete
    assert index.collect(11, 25).aborted == [two] and index.collect(11, 25).is_complete
    assert index.collect(21, 100).aborted == [three]
    assert not index.collect(21, 100).is_complete
    index.truncate_to(20)
    assert index.entries == [one]
    assert len(index.path.read_bytes()) == 34
    reread = TransactionIndex(index.path, 0)
    assert reread.entries == [one]
    index.path.write_bytes(index.path.read_bytes() + b"\x00")
    from pybroker.log.index import IndexCorrupt
    with pytest.raises(IndexCorrupt):
        TransactionIndex(index.path, 0).sanity_check()


def test_aborts_are_indexed_in_the_segment_of_their_marker(tmp_path: Path) -> None:
    probe = Producer(9)
    size = len(probe.batch())
    log = open_log(tmp_path, segment_bytes=size * 3)
    a = Producer(A)
    a.send(log)
    a.send(log)
    a.send(log)  # rolls: offsets 0-1 in segment 0, 2.. in the next
    a.end(log, ABORT)
    assert [s.base_offset for s in log.segments][:2] == [0, 2]
    assert log.segments[0].txn_index.entries == []
    marker_segment = next(s for s in log.segments if s.base_offset <= 3 < s.next_offset)
    assert marker_segment.txn_index.entries == [AbortedTxn(A, 0, 3, 4)]
    assert marker_segment.txn_index.path.exists()
    assert not log.segments[0].txn_index.path.exists()


# -- reads of committed data ------------------------------------------------------------------


def test_reads_of_committed_data_stop_at_the_lso_and_list_the_aborted(tmp_path: Path) -> None:
    log = open_log(tmp_path)
    a, b = Producer(A), Producer(B)
    a.send(log, 2)  # 0-1
    a.end(log, ABORT)  # 2
    b.send(log)  # 3
    hw = log.log_end_offset
    lso = log.last_stable_offset(hw)
    assert lso == 3
    info = log.read(0, 1 << 20, max_offset=lso, with_aborted=True)
    assert info.aborted_transactions == [AbortedTxn(A, 0, 2, 3)]
    assert len(info.records) == sum(len(x) for x in (a.batch(2), a.marker(ABORT)))
    # from the LSO on there is nothing committed to read, and nothing aborted to tell
    empty = log.read(3, 1 << 20, max_offset=lso, with_aborted=True)
    assert empty.records == b"" and empty.aborted_transactions == []
    # read_uncommitted: no list at all
    assert log.read(0, 1 << 20, max_offset=hw).aborted_transactions is None
    # after the aborted transaction's marker nothing overlaps
    b.end(log, COMMIT)
    later = log.read(3, 1 << 20, max_offset=log.last_stable_offset(6), with_aborted=True)
    assert later.aborted_transactions == []


def test_aborted_transactions_from_later_segments_are_collected(tmp_path: Path) -> None:
    size = len(Producer(A).batch())
    log = open_log(tmp_path, segment_bytes=size * 2)
    a, b = Producer(A), Producer(B)
    a.send(log)  # 0
    b.send(log)  # 1
    for _ in range(3):
        b.send(log)  # 2-4, further segments
    a.end(log, ABORT)  # 5, in a later segment than A's data
    b.end(log, COMMIT)  # 6
    assert len(log.segments) > 2
    info = log.read(0, size, max_offset=7, with_aborted=True, min_one_batch=True)
    assert len(info.records) == size
    assert info.aborted_transactions == [AbortedTxn(A, 0, 5, 1)]
    assert log.collect_aborted_transactions(6, 7) == []


# -- recovery, truncation, deletion, replication ---------------------------------------------


def _history(log: Log) -> None:
    a, b = Producer(A), Producer(B)
    a.send(log, 2)  # 0-1
    b.send(log)  # 2
    a.end(log, ABORT, 1)  # 3
    b.send(log)  # 4
    b.end(log, COMMIT, 1)  # 5
    c = Producer(C)
    c.send(log)  # 6: left open
    a.seq = 0
    a.epoch = 1
    a.send(log)  # 7
    a.end(log, ABORT, 1)  # 8


EXPECTED = [AbortedTxn(A, 0, 3, 2), AbortedTxn(A, 7, 8, 6)]


def test_recovery_rebuilds_txn_indexes_and_open_transactions(tmp_path: Path) -> None:
    log = open_log(tmp_path)
    _history(log)
    assert aborted(log) == EXPECTED
    assert log.last_stable_offset(9) == 6
    # a crash: no clean close, no snapshot at the log end, the index lost
    dir = log.dir
    _opened.remove(log)
    for segment in log.segments:
        segment.close()
    for snap in dir.glob("*.snapshot"):
        snap.unlink()
    for index in dir.glob("*.txnindex"):
        index.unlink()
    again = open_log(tmp_path, clean=False)
    assert aborted(again) == EXPECTED
    assert again.producer_state.ongoing_txns == {6: C}
    assert again.last_stable_offset(9) == 6
    assert again.collect_aborted_transactions(0, 9) == EXPECTED


def test_a_torn_txnindex_is_rebuilt_on_a_clean_start(tmp_path: Path) -> None:
    log = open_log(tmp_path)
    _history(log)
    log.close()
    _opened.remove(log)
    index = next(log.dir.glob("*.txnindex"))
    index.write_bytes(index.read_bytes()[:-3])
    again = open_log(tmp_path, clean=True)
    assert aborted(again) == EXPECTED


def test_recovery_from_a_snapshot_inside_the_log(tmp_path: Path) -> None:
    """Only segments from the recovery point's on are recovered: their indexes are rebuilt
    from the producer snapshot at the first one's base (written when it was rolled), the
    earlier segments' indexes are kept."""
    size = len(Producer(A).batch())
    log = open_log(tmp_path, segment_bytes=size * 3)
    _history(log)
    last = next(s for s in log.segments if s.base_offset <= 8 < s.next_offset)
    assert last.base_offset > 3, "the first abort's marker must be in an earlier segment"
    assert (log.dir / f"{last.base_offset:020d}.snapshot").exists()
    dir = log.dir
    _opened.remove(log)
    for segment in log.segments:
        segment.close()
    for snap in dir.glob("*.snapshot"):
        if int(snap.name.split(".")[0]) > last.base_offset:
            snap.unlink()
    last.txn_index.path.unlink()
    again = Log.open(dir, LogConfig(segment_bytes=size * 3), now_ms=T0, clean_shutdown=False,
                     recovery_point=last.base_offset)
    _opened.append(again)
    assert aborted(again) == EXPECTED
    assert again.last_stable_offset(9) == 6


def test_truncation_drops_index_entries_and_reopens_transactions(tmp_path: Path) -> None:
    log = open_log(tmp_path)
    _history(log)
    log.truncate_to(8)  # the second abort's marker goes
    assert aborted(log) == EXPECTED[:1]
    assert log.producer_state.ongoing_txns == {6: C, 7: A}
    assert log.last_stable_offset(8) == 6
    log.truncate_to(3)  # the first one's too
    assert aborted(log) == []
    assert log.producer_state.ongoing_txns == {0: A, 2: B}


def test_segments_deleted_by_retention_take_their_txnindex(tmp_path: Path) -> None:
    probe = Producer(9)
    size = len(probe.batch())
    log = open_log(tmp_path, segment_bytes=size * 2, retention_bytes=1, file_delete_delay_ms=0)
    a = Producer(A)
    a.send(log)
    a.end(log, ABORT)
    for _ in range(4):
        Producer(B + _).send(log, transactional=False)
    assert any(log.dir.glob("*.txnindex"))
    log.enforce_retention(T0 + 1)
    assert not any(log.dir.glob("*.txnindex*"))


def test_followers_index_replicated_aborts(tmp_path: Path) -> None:
    leader = open_log(tmp_path / "leader")
    _history(leader)
    follower = open_log(tmp_path / "follower")
    data = b"".join(s.log_path.read_bytes() for s in leader.segments)
    follower.append_as_follower(data, T0)
    assert aborted(follower) == EXPECTED
    assert follower.producer_state.ongoing_txns == {6: C}
    assert follower.last_stable_offset(9) == 6
    # the same files, byte for byte
    assert [s.txn_index.path.read_bytes() for s in follower.segments if len(s.txn_index)] == \
        [s.txn_index.path.read_bytes() for s in leader.segments if len(s.txn_index)]


def test_a_copied_log_dir_reads_the_same(tmp_path: Path) -> None:
    log = open_log(tmp_path)
    _history(log)
    log.close()
    copy = tmp_path / "copy"
    shutil.copytree(log.dir, copy / "txn-0")
    again = open_log(copy)
    assert again.collect_aborted_transactions(0, 9) == EXPECTED
