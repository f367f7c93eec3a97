"""Segment files opened lazily through a bounded cache: descriptors stay within the cache's
capacity however many segments exist, evicted files reopen transparently, and a FileSlice
keeps its descriptor until it is released."""

from __future__ import annotations

import asyncio
import errno
import os
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from protocol.records.batch import crc_is_valid, set_base_offset
from protocol.records.record import decode_batch, iter_batches
from pybroker.log import FileSlice, Log, LogConfig, file_slice as file_slice_module
from pybroker.log.file_slice import SEGMENT_FILES, OpenFiles
from pybroker.log.segment import LogSegment
from tests.unit.protocol.records.helpers import value_batch

T0 = 1_700_000_000_000


def make_batch(n: int = 1, value: bytes = b"v", *, base: int = 0) -> bytearray:
    batch = value_batch(n, tag=value)
    set_base_offset(batch, base)
    return batch


def open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def fd_is_open(fd: int) -> bool:
    try:
        os.fstat(fd)
    except OSError:
        return False
    return True


def records_of(data: bytes) -> list[tuple[int, bytes | None]]:
    out = []
    for pos, _ in iter_batches(data):
        assert crc_is_valid(data, pos)
        _, records = decode_batch(data, pos)
        out += [(r.offset, r.value) for r in records]
    return out


@pytest.fixture
def small_cache() -> Iterator[OpenFiles]:
    """The broker-wide cache shrunk to 4 descriptors for the test (logs use it implicitly)."""
    saved = SEGMENT_FILES.capacity
    SEGMENT_FILES.resize(4)
    try:
        yield SEGMENT_FILES
    finally:
        SEGMENT_FILES.resize(saved)


def open_logs(tmp_path: Path, opened: list[Log], n: int, **config: object) -> list[Log]:
    for i in range(n):
        opened.append(Log.open(tmp_path / f"t-{i}", LogConfig(**config), now_ms=T0))  # type: ignore[arg-type]
    return opened


# -- the cache ------------------------------------------------------------------------------


def test_cache_closes_the_least_recently_used_file(tmp_path: Path) -> None:
    cache = OpenFiles(2)
    paths = [tmp_path / f"f{i}" for i in range(3)]
    owners = [object() for _ in paths]
    a = cache.get(owners[0], paths[0], create=True)
    b = cache.get(owners[1], paths[1], create=True)
    assert cache.get(owners[0], paths[0]) is a  # touch: owner 1 is now the oldest
    c = cache.get(owners[2], paths[2], create=True)
    assert (a.closed, b.closed, c.closed) == (False, True, False)
    assert len(cache) == 2 and owners[1] not in cache
    again = cache.get(owners[1], paths[1])
    assert again is not b and not again.closed and a.closed
    assert cache.opens == 4


def test_cache_does_not_create_files_unless_asked(tmp_path: Path) -> None:
    cache = OpenFiles(2)
    with pytest.raises(FileNotFoundError):
        cache.get(object(), tmp_path / "missing")
    assert not (tmp_path / "missing").exists() and len(cache) == 0


def test_retained_file_outlives_eviction_and_closes_on_last_release(tmp_path: Path) -> None:
    cache = OpenFiles(1)
    first = cache.get("a", tmp_path / "a", create=True)
    first.retain()
    first.retain()
    fd = first.fileno()
    cache.get("b", tmp_path / "b", create=True)
    assert first.retired and not first.closed and fd_is_open(fd)
    first.release()
    assert not first.closed
    first.release()
    assert first.closed
    with pytest.raises(ValueError, match="closed file"):
        first.fileno()


def test_out_of_descriptors_gives_back_half_the_cache_and_retries(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = OpenFiles(10)
    held = [cache.get(i, tmp_path / f"f{i}", create=True) for i in range(6)]
    real_open = os.open
    calls = []

    def flaky_open(path, flags, mode=0o777):  # type: ignore[no-untyped-def]
        calls.append(path)
        if len(calls) == 1:
            raise OSError(errno.EMFILE, "Too many open files")
        return real_open(path, flags, mode)

    monkeypatch.setattr(file_slice_module.os, "open", flaky_open)
    new = cache.get("new", tmp_path / "new", create=True)
    assert not new.closed and len(calls) == 2
    assert [f.closed for f in held] == [True, True, True, False, False, False]


def test_resize_closes_the_excess(tmp_path: Path) -> None:
    cache = OpenFiles(5)
    files = [cache.get(i, tmp_path / f"f{i}", create=True) for i in range(5)]
    cache.resize(2)
    assert [f.closed for f in files] == [True, True, True, False, False]
    with pytest.raises(ValueError):
        cache.resize(0)


# -- segments and logs ----------------------------------------------------------------------


def test_a_loaded_segment_holds_no_descriptor_until_used(tmp_path: Path) -> None:
    cache = OpenFiles(8)
    seg = LogSegment(tmp_path, 0, LogConfig(), T0, files=cache)
    seg.append(make_batch(3), 0, 2, T0 + 2, T0)
    seg.close()
    assert len(cache) == 0

    reopened = LogSegment(tmp_path, 0, LogConfig(), T0, files=cache)
    assert reopened.size > 0 and not reopened.is_open and len(cache) == 0
    assert reopened.load() is None
    assert reopened.next_offset == 3 and reopened.is_open
    reopened.close()
    assert len(cache) == 0


def test_descriptors_stay_within_the_cache_for_many_partitions(
    tmp_path: Path, small_cache: OpenFiles, logs: list[Log]
) -> None:
    before = open_fds()
    # index.interval.bytes=0 writes index entries on every append, so indexes are opened too.
    open_logs(tmp_path, logs, 60, index_interval_bytes=0)
    for round_ in range(3):
        for i, log in enumerate(logs):
            log.append_as_leader(make_batch(2, b"p%d-r%d-" % (i, round_)), leader_epoch=0, now_ms=T0)
            assert open_fds() - before <= small_cache.capacity
    for i, log in enumerate(logs):
        slice_ = log.read(0, 1 << 20).records
        assert isinstance(slice_, FileSlice)
        values = [v for _, v in records_of(slice_.read_bytes())]
        assert values == [b"p%d-r%d-%d" % (i, r, k) for r in range(3) for k in range(2)]
        del slice_
        assert open_fds() - before <= small_cache.capacity
    for log in logs:  # index entries reach their files in bunches: a flush opens each index
        log.flush()
        assert open_fds() - before <= small_cache.capacity
    assert len(small_cache) <= small_cache.capacity
    assert all(log.log_end_offset == 6 for log in logs)
    assert all((log.dir / "00000000000000000000.index").stat().st_size > 0 for log in logs)


def test_slices_hold_no_descriptor_until_sent(
    tmp_path: Path, small_cache: OpenFiles, logs: list[Log]
) -> None:
    """A fetch answering for many partitions holds slices of all of them at once."""
    open_logs(tmp_path, logs, 40)
    for log in logs:
        log.append_as_leader(make_batch(3), leader_epoch=0, now_ms=T0)
    before = open_fds()
    slices = [log.read(0, 1 << 20).records for log in logs]
    assert all(isinstance(s, FileSlice) for s in slices)
    assert open_fds() <= before
    for log, slice_ in zip(logs, slices, strict=True):
        assert slice_.read_bytes() == (log.dir / "00000000000000000000.log").read_bytes()
        assert open_fds() - before <= small_cache.capacity


def test_a_send_pins_the_descriptor_through_eviction(
    tmp_path: Path, small_cache: OpenFiles, logs: list[Log]
) -> None:
    open_logs(tmp_path, logs, 10)
    for log in logs:
        log.append_as_leader(make_batch(3), leader_epoch=0, now_ms=T0)
    slice_ = logs[0].read(0, 1 << 20).records
    assert isinstance(slice_, FileSlice)
    expected = (logs[0].dir / "00000000000000000000.log").read_bytes()
    reader = slice_.file  # what the connection hands to loop.sendfile
    fd = reader.fileno()
    for log in logs[1:]:  # pushes log 0's file out of the cache
        log.append_as_leader(make_batch(1), leader_epoch=0, now_ms=T0)
    assert not logs[0].active_segment.is_open
    assert reader.fileno() == fd and os.pread(fd, len(slice_), slice_.position) == expected
    del reader
    assert not fd_is_open(fd) or os.path.realpath(f"/proc/self/fd/{fd}") != str(
        logs[0].dir / "00000000000000000000.log"
    )
    # The slice itself still reads: the file is reopened.
    assert slice_.read_bytes() == expected


def test_a_slice_of_a_closed_segment_cannot_be_read(tmp_path: Path) -> None:
    cache = OpenFiles(4)
    seg = LogSegment(tmp_path, 0, LogConfig(), T0, files=cache)
    seg.append(make_batch(1), 0, 0, T0, T0)
    slice_ = FileSlice(seg.file, 0, seg.size)
    seg.delete()
    with pytest.raises(ValueError, match="closed"):
        slice_.read_bytes()
    with pytest.raises(ValueError, match="closed"):
        slice_.file  # noqa: B018 - taking the reader opens the file


def test_a_slice_of_a_shared_file_holds_it_until_dropped(tmp_path: Path) -> None:
    cache = OpenFiles(1)
    seg = LogSegment(tmp_path, 0, LogConfig(), T0, files=cache)
    seg.append(make_batch(1), 0, 0, T0, T0)
    shared = seg.shared_file()
    slice_ = FileSlice(shared, 0, seg.size)
    other = LogSegment(tmp_path, 100, LogConfig(), T0, files=cache)  # evicts seg's file
    assert shared.retired and not shared.closed and shared.users == 1
    del slice_
    assert shared.closed
    seg.close()
    other.close()


def test_appends_and_flushes_survive_eviction(tmp_path: Path) -> None:
    cache = OpenFiles(1)
    seg = LogSegment(tmp_path, 0, LogConfig(index_interval_bytes=0), T0, files=cache)
    other = LogSegment(tmp_path, 1000, LogConfig(), T0, files=cache)
    offset = 0
    for i in range(5):
        batch = make_batch(2, b"x%d-" % i, base=offset)
        seg.append(batch, offset, offset + 1, T0 + 1, T0)
        offset += 2
        other.read_at(0, 1)  # evict seg's .log and index files
        seg.flush()
    assert len(cache) == 1
    data = seg.read_at(0, seg.size)
    assert [o for o, _ in records_of(data)] == list(range(10))
    seg.close()
    other.close()
    reopened = LogSegment(tmp_path, 0, LogConfig(), T0, files=cache)
    assert reopened.load(verify_indexes=True) is None and reopened.next_offset == 10
    assert len(reopened.offset_index) == 4  # an entry per append after the first
    reopened.close()
    other = LogSegment(tmp_path, 1000, LogConfig(), T0, files=cache)
    other.close()


def test_recovery_with_a_one_file_cache_cuts_a_torn_tail(tmp_path: Path) -> None:
    cache = OpenFiles(1)
    seg = LogSegment(tmp_path, 0, LogConfig(index_interval_bytes=0), T0, files=cache)
    for i in range(4):
        seg.append(make_batch(2, base=2 * i), 2 * i, 2 * i + 1, T0, T0)
    good = seg.size
    seg.close()
    with open(tmp_path / "00000000000000000000.log", "ab") as f:
        f.write(bytes(make_batch(3, base=8))[:40])
    seg = LogSegment(tmp_path, 0, LogConfig(index_interval_bytes=0), T0, files=cache)
    dropped, reason = seg.recover()
    assert dropped == 40 and reason == "torn batch header"
    assert seg.size == good == (tmp_path / "00000000000000000000.log").stat().st_size
    assert seg.next_offset == 8
    seg.close()


def test_deleted_segments_are_not_recreated_by_a_reopen(tmp_path: Path) -> None:
    cache = OpenFiles(1)
    seg = LogSegment(tmp_path, 0, LogConfig(), T0, files=cache)
    seg.append(make_batch(1), 0, 0, T0, T0)
    seg.mark_deleted()
    LogSegment(tmp_path, 50, LogConfig(), T0, files=cache).close()  # evict
    assert seg.read_at(0, 4)  # reopened under its *.deleted name
    seg.delete()
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith("00000000000000000000")]
    with pytest.raises(ValueError, match="closed"):
        seg.read_at(0, 4)
    assert not (tmp_path / "00000000000000000000.log").exists()


# -- sending a slice ------------------------------------------------------------------------


def test_slice_reader_positions_are_private(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_bytes(bytes(range(100)))
    cache = OpenFiles(2)
    shared = cache.get("f", path)
    s1, s2 = FileSlice(shared, 10, 20), FileSlice(shared, 50, 10)
    r1, r2 = s1.file, s2.file
    assert r1.mode == "rb" and r1.fileno() == shared.fileno()
    buf1, buf2 = bytearray(5), bytearray(5)
    r1.seek(10)
    r2.seek(50)
    assert r1.readinto(buf1) == 5 and r2.readinto(buf2) == 5 and r1.readinto(buf1) == 5
    assert bytes(buf1) == bytes(range(15, 20)) and bytes(buf2) == bytes(range(50, 55))
    assert r1.tell() == 20


@pytest.mark.parametrize("native", [True, False])
def test_loop_sendfile_sends_an_evicted_slice(tmp_path: Path, native: bool) -> None:
    cache = OpenFiles(1)
    seg = LogSegment(tmp_path, 0, LogConfig(), T0, files=cache)
    for i in range(3):
        seg.append(make_batch(4, b"s%d-" % i, base=4 * i), 4 * i, 4 * i + 3, T0, T0)
    expected = seg.read_at(0, seg.size)
    slice_ = FileSlice(seg.file, 0, seg.size)
    reader = slice_.file
    LogSegment(tmp_path, 99, LogConfig(), T0, files=cache).close()  # evicts seg's file
    assert not seg.is_open

    async def send() -> bytes:
        loop = asyncio.get_running_loop()
        left, right = socket.socketpair()
        with left, right:
            left.setblocking(False)
            right.setblocking(False)
            if native:
                sent = await loop.sock_sendfile(left, reader, slice_.position, len(slice_), fallback=False)
            else:
                sent = await loop._sock_sendfile_fallback(left, reader, slice_.position, len(slice_))
            assert sent == len(expected)
            got = b""
            while len(got) < sent:
                got += await loop.sock_recv(right, 1 << 16)
            return got

    assert asyncio.run(send()) == expected
    seg.close()
