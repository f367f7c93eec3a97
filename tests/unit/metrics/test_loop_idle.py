"""The event loop's idle share: the wall time its thread did not run, from the thread's CPU
clock, read from any thread."""

from __future__ import annotations

import threading
import time

from pybroker.metrics.loop_idle import IdleShare


def test_idle_is_the_wall_time_the_thread_did_not_run() -> None:
    idle = IdleShare()
    started = time.perf_counter()
    cpu = time.thread_time()
    while time.thread_time() - cpu < 0.2:  # run for 0.2 s of this thread's CPU
        pass
    time.sleep(0.2)
    wall = time.perf_counter() - started
    assert 0.19 <= idle.idle_s <= wall - 0.19
    share = idle.since_start()
    assert 0 < share < 1
    assert abs(share - idle.idle_s / wall) < 0.05


def test_read_from_another_thread_it_is_still_the_makers() -> None:
    """The endpoint reads the gauges from its own thread: a busy reader does not make the
    loop look busy."""
    made: list[IdleShare] = []
    done = threading.Event()

    def loop_thread() -> None:  # makes it, then idles until the reading is over
        made.append(IdleShare())
        done.wait(10)

    maker = threading.Thread(target=loop_thread)
    maker.start()
    try:
        while not made:
            time.sleep(0.01)
        time.sleep(0.1)
        cpu = time.thread_time()
        while time.thread_time() - cpu < 0.2:  # the reader is busy
            pass
        assert made[0].recent() > 0.8
    finally:
        done.set()
        maker.join()
