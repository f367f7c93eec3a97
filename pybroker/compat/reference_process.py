"""The handle on the reference Kafka process (``python -m pybroker.compat.reference``) that
``pybroker compat --reference`` starts and stops by its pid."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO


class ReferenceProcess:
    """Starts and stops ``python -m pybroker.compat.reference`` (by its pid)."""

    def __init__(self, work_dir: Path, start_timeout: float = 180.0) -> None:
        self.work_dir = Path(work_dir)
        self.start_timeout = start_timeout
        self.proc: subprocess.Popen[str] | None = None
        self.bootstrap = ""

    def start(self) -> str:
        """The reference broker's bootstrap; RuntimeError saying why it did not start."""
        self.work_dir.mkdir(parents=True, exist_ok=True)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "pybroker.compat.reference", str(self.work_dir)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        )
        line = _readline(self.proc.stdout, self.start_timeout)
        if not line.startswith("BOOTSTRAP "):
            self.stop()
            raise RuntimeError(f"the reference Kafka did not start: {line.strip() or 'no answer'}")
        self.bootstrap = line.split()[1]
        return self.bootstrap

    def stop(self, timeout: float = 90.0) -> None:
        proc, self.proc = self.proc, None
        if proc is None:
            return
        if proc.poll() is None:
            assert proc.stdin is not None
            proc.stdin.close()
            try:
                proc.wait(timeout)
            except subprocess.TimeoutExpired:
                os.kill(proc.pid, signal.SIGTERM)
                try:
                    proc.wait(30)
                except subprocess.TimeoutExpired:
                    os.kill(proc.pid, signal.SIGKILL)
                    proc.wait(10)


def _readline(stream: IO[str] | None, timeout: float) -> str:
    assert stream is not None
    box: list[str] = []
    reader = threading.Thread(target=lambda: box.append(stream.readline()), daemon=True)
    reader.start()
    reader.join(timeout)
    return box[0] if box else ""
