"""``python -m pybroker.compat.reference WORKDIR``: the reference Apache Kafka 3.9 for
``pybroker compat --reference``, in a process of its own.

It starts Kafka with its ZooKeeper on free 127.0.0.1 ports from the jars in
``.cache/kafka-tools`` (:mod:`pybroker.testing.reference_kafka`), prints ``BOOTSTRAP
host:port`` (or ``ERROR reason``) on stdout, and stops both when its stdin closes or on
SIGTERM. Running it as a separate process keeps the test tooling out of everything that
imports :mod:`pybroker.compat` (the ``pybroker`` command included): this module is the only
one of the package that imports :mod:`pybroker.testing`, and nothing imports it.
:class:`ReferenceProcess` is the runner's handle on it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO

#: Kafka's defaults, with what its own config/server.properties sets for a development broker
OVERRIDES = {"group.initial.rebalance.delay.ms": 0, "num.partitions": 1}


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


def main(argv: list[str] | None = None) -> int:
    from pybroker.testing.reference_kafka import ReferenceKafka

    args = sys.argv[1:] if argv is None else argv
    ref = ReferenceKafka(Path(args[0]), overrides=OVERRIDES)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    try:
        ref.start()
    except Exception as e:  # noqa: BLE001 - reported to the parent, which decides
        print(f"ERROR {' '.join(str(e).split())[:2000]}", flush=True)
        return 1
    try:
        print(f"BOOTSTRAP {ref.bootstrap}", flush=True)

        def wait_for_eof() -> None:
            sys.stdin.read()
            stop.set()

        threading.Thread(target=wait_for_eof, daemon=True).start()
        stop.wait()
    finally:
        ref.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
