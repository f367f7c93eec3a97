"""A rolled segment is fsynced on the storage thread, not on the event loop, and the recovery
point follows only once that fsync is done (and only if no truncation came in between)."""

from __future__ import annotations

import asyncio
import os
import threading
from concurrent.futures import Future
from pathlib import Path

import pytest

from protocol.records.record import build_batch
from pybroker.log import Log, LogConfig
from pybroker.log.manager import BackgroundIO

T0 = 1_700_000_000_000
CONFIG = LogConfig(segment_bytes=4096)


def batch(n: int = 10) -> bytearray:
    return build_batch([(None, b"x" * 100, (), T0) for _ in range(n)])


def append_until_rolled(log: Log) -> int:
    """Append until the log has a second segment; its base offset."""
    while len(log.segments) == 1:
        log.append_as_leader(batch(), leader_epoch=0, now_ms=T0)
    return log.segments[-1].base_offset


async def settled(condition, what: str) -> None:
    for _ in range(500):
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"never: {what}")


def test_a_roll_fsyncs_the_rolled_segment_on_the_storage_thread(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    threads: list[str] = []
    real_fsync = os.fsync

    def recording(fd: int) -> None:
        threads.append(threading.current_thread().name)
        real_fsync(fd)

    async def scenario() -> None:
        io = BackgroundIO()
        log = Log.open(tmp_path / "t-0", CONFIG, now_ms=T0, io=io.submit)
        try:
            monkeypatch.setattr(os, "fsync", recording)
            base = append_until_rolled(log)
            # the roll returned without an fsync of its own; the recovery point waits for one
            assert "MainThread" not in threads
            assert log.recovery_point == 0
            await settled(lambda: log.recovery_point == base, "the recovery point moved")
            assert threads and all(t.startswith("storage-io") for t in threads)
        finally:
            io.close()
            log.close()

    asyncio.run(scenario())


@pytest.mark.parametrize("truncated", [False, True])
def test_the_recovery_point_moves_only_if_no_truncation_came_before_the_fsync(
        tmp_path: Path, truncated: bool) -> None:
    held: list[tuple[object, tuple[object, ...], Future[None]]] = []

    def io(fn, *args) -> Future[None]:
        done: Future[None] = Future()
        held.append((fn, args, done))
        return done

    async def scenario() -> None:
        log = Log.open(tmp_path / "t-0", CONFIG, now_ms=T0, io=io)
        try:
            base = append_until_rolled(log)
            if truncated:  # a new leader's log parts from ours below the roll...
                log.truncate_to(base // 2)
                while log.log_end_offset <= base:  # ...and we refill it, nothing fsynced
                    log.append_as_follower(build_batch([(None, b"y", (), T0)] * 10,
                                                       base_offset=log.log_end_offset), T0)
            for fn, args, done in held:  # the storage thread's work, in order
                fn(*args)  # type: ignore[operator]
                done.set_result(None)
            await asyncio.sleep(0.05)  # the completions reach the loop
            assert log.recovery_point == (0 if truncated else base)
        finally:
            log.close()

    asyncio.run(scenario())


def test_without_a_loop_the_roll_fsyncs_at_once(tmp_path: Path) -> None:
    log = Log.open(tmp_path / "t-0", CONFIG, now_ms=T0, io=BackgroundIO().submit)
    try:
        base = append_until_rolled(log)
        assert log.recovery_point == base
    finally:
        log.close()
