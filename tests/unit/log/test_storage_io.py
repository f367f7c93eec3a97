"""BackgroundIO: the storage thread for directory removals and checkpoint writes."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from pybroker.log.manager import BackgroundIO


def test_work_runs_in_order_on_one_thread_of_its_own(tmp_path: Path) -> None:
    io = BackgroundIO()
    ran: list[tuple[int, str]] = []
    futures = [io.submit(lambda i=i: ran.append((i, threading.current_thread().name)))
               for i in range(20)]
    for f in futures:
        f.result(10)
    assert [i for i, _ in ran] == list(range(20))
    assert {name for _, name in ran} != {threading.current_thread().name}
    assert len({name for _, name in ran}) == 1
    doomed = tmp_path / "t-0.abc-delete"
    (doomed / "sub").mkdir(parents=True)
    (doomed / "sub" / "00000000000000000000.log").write_bytes(b"x" * 1000)
    io.remove_dir(doomed)
    io.close()  # waits for the removal
    assert not doomed.exists()


def test_after_close_work_runs_in_the_caller_and_errors_reach_the_future() -> None:
    io = BackgroundIO()
    io.close()
    seen: list[str] = []
    io.submit(lambda: seen.append(threading.current_thread().name)).result(0)
    assert seen == [threading.current_thread().name]

    def fail() -> None:
        raise OSError("disk gone")

    with pytest.raises(OSError, match="disk gone"):
        io.submit(fail).result(0)
