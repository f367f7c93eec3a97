"""Large buffers stay on the heap once the broker has set malloc's thresholds
(pybroker/network/heap.py): counted in page faults, in a process of its own."""

from __future__ import annotations

import platform
import subprocess
import sys

from pybroker.network.heap import keep_large_buffers_on_heap

_PROBE = """
import resource, sys
from pybroker.network.heap import keep_large_buffers_on_heap
from protocol.framing import allocate_frame_buffer
if sys.argv[1] == "tuned":
    assert keep_large_buffers_on_heap()
kept = []
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for i in range(200):  # frames of varying sizes, a few alive at once, as a broker reads them
    frame = allocate_frame_buffer((2 << 20) - (i % 7) * 4096)
    frame[::4096] = b"x" * len(frame[::4096])  # touch every page, as recv_into would
    kept.append(frame)
    if len(kept) > 3:
        kept.pop(0)
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


def _page_faults(mode: str) -> int:
    out = subprocess.run([sys.executable, "-c", _PROBE, mode], capture_output=True, text=True,
                         check=True, timeout=60)
    return int(out.stdout.strip())


GLIBC = platform.system() == "Linux" and platform.libc_ver()[0] == "glibc"


def test_large_frame_buffers_are_reused_not_mapped_afresh() -> None:
    if not GLIBC:
        # only glibc has these thresholds: elsewhere the broker must leave malloc alone
        assert keep_large_buffers_on_heap() is False
        return
    untuned, tuned = _page_faults("default"), _page_faults("tuned")
    # 200 buffers of 2 MB are up to 100,000 fresh pages when each is mapped anew; on the heap
    # the same few megabytes serve them all
    assert untuned > 50_000
    assert tuned < 10_000
