"""A real ZooKeeper server for the cluster tests and for running a cluster by hand.

ZooKeeper 3.8 runs from the jars ``scripts/kafka-tools-deps.sh`` fetched into
``.cache/kafka-tools/<version>/lib`` (Kafka 3.9.1's broker jar brings ZooKeeper with it),
through ``QuorumPeerMain`` as ``bin/zookeeper-server-start.sh`` runs it: a standalone server on
127.0.0.1, on a free port unless told otherwise, with its data and log in its own directory.
The JVM is started and stopped as the reference Kafka's are (:class:`JavaProcess`: SIGTERM to
its pid, SIGKILL if it lingers).

``python -m pybroker.testing.zookeeper [--port N] [--dir D]`` runs one until Ctrl-C.
"""

from __future__ import annotations

import argparse
import shutil
import signal
import tempfile
import time
from pathlib import Path

from pybroker.testing.broker_process import free_port
from pybroker.testing.reference_kafka import (
    KAFKA_JVM,
    LIB,
    LOG4J,
    ZOOKEEPER_HEAP,
    JavaProcess,
    missing_requirements,
    zookeeper_ok,
)

MAIN_CLASS = "org.apache.zookeeper.server.quorum.QuorumPeerMain"
#: ZooKeeper's sample tick: sessions may last from 4 s (2 ticks) to 40 s (20 ticks)
TICK_TIME_MS = 2000


class ZooKeeperError(RuntimeError):
    """The ZooKeeper server exited or never answered."""


class ZooKeeperServer:
    """A standalone ZooKeeper server on ``127.0.0.1:port`` keeping its data in ``work_dir``.

    ``restart()`` stops it and starts it again on the same port and data, so sessions can
    reconnect and find their znodes; ``kill()`` then ``start()`` does the same after a crash.
    Usable as a context manager.
    """

    #: instances with a live process, so a harness can stop stragglers at exit
    live: set[ZooKeeperServer] = set()

    def __init__(self, work_dir: Path, *, port: int | None = None, lib: Path = LIB,
                 heap: tuple[str, ...] = ZOOKEEPER_HEAP, tick_time_ms: int = TICK_TIME_MS,
                 start_timeout: float = 60.0, stop_timeout: float = 30.0) -> None:
        self.work_dir = Path(work_dir)
        self.port = port or free_port()
        self.lib = Path(lib)
        self.heap = heap
        self.tick_time_ms = tick_time_ms
        self.start_timeout = start_timeout
        self.stop_timeout = stop_timeout
        self.process = JavaProcess("zookeeper", self.work_dir / "zookeeper.log")

    @staticmethod
    def missing_requirements(lib: Path = LIB) -> list[str]:
        """What stops a server from starting here (empty when nothing does)."""
        return missing_requirements(lib)

    @property
    def pid(self) -> int | None:
        proc = self.process.proc
        return proc.pid if proc is not None else None

    def connect_string(self, chroot: str | None = None) -> str:
        """``zookeeper.connect`` for this server, under ``chroot`` if given."""
        base = f"127.0.0.1:{self.port}"
        if chroot is None:
            return base
        return base + "/" + chroot.strip("/")

    def _command(self, config: Path) -> list[str]:
        log4j = self.work_dir / "log4j.properties"
        return [
            shutil.which("java") or "java", *self.heap, *KAFKA_JVM,
            f"-Dlog4j.configuration={log4j.as_uri()}",
            "-cp", f"{self.lib}/*", MAIN_CLASS, str(config),
        ]

    def start(self) -> ZooKeeperServer:
        """Start the server; return once it answers ``ruok``."""
        missing = self.missing_requirements(self.lib)
        if missing:
            raise ZooKeeperError("cannot start ZooKeeper: " + "; ".join(missing))
        if self.process.running():
            return self
        self.work_dir.mkdir(parents=True, exist_ok=True)
        (self.work_dir / "log4j.properties").write_text(LOG4J)
        config = self.work_dir / "zookeeper.properties"
        config.write_text(
            f"dataDir={self.work_dir / 'data'}\n"
            f"clientPort={self.port}\n"
            "clientPortAddress=127.0.0.1\n"
            f"tickTime={self.tick_time_ms}\n"
            "maxClientCnxns=0\n"
            "admin.enableServer=false\n"
            "4lw.commands.whitelist=ruok\n"
        )
        ZooKeeperServer.live.add(self)
        try:
            self.process.start(self._command(config), self.work_dir)
            deadline = time.monotonic() + self.start_timeout
            while not zookeeper_ok(self.port):
                if not self.process.running():
                    raise ZooKeeperError(
                        f"ZooKeeper exited during start-up\n--- {self.process.log_path} ---\n"
                        f"{self.process.tail()}")
                if time.monotonic() > deadline:
                    raise ZooKeeperError(
                        f"ZooKeeper did not answer ruok on port {self.port} within "
                        f"{self.start_timeout:.0f}s\n--- {self.process.log_path} ---\n"
                        f"{self.process.tail()}")
                time.sleep(0.1)
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self) -> None:
        """SIGTERM to the server's pid, SIGKILL if it is still there after ``stop_timeout``."""
        self.process.stop(self.stop_timeout)
        ZooKeeperServer.live.discard(self)

    def restart(self) -> ZooKeeperServer:
        self.stop()
        return self.start()

    def kill(self) -> None:
        """SIGKILL to the server's pid, as a crash: ZooKeeper keeps only what its transaction
        log had synced. :meth:`start` brings it back on the same port and data, where the
        sessions it had are restored and their clients may reconnect within their timeout."""
        proc = self.process.proc
        if proc is not None:
            if proc.poll() is None:
                proc.kill()
            proc.wait(30)
        self.process.proc = None
        ZooKeeperServer.live.discard(self)

    def is_running(self) -> bool:
        return self.process.running()

    def describe(self, lines: int = 40) -> str:
        return (f"ZooKeeper at {self.connect_string()} (work dir {self.work_dir})\n"
                f"{self.process.tail(lines)}")

    def __enter__(self) -> ZooKeeperServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @classmethod
    def stop_all(cls) -> None:
        for server in list(cls.live):
            server.stop()

    def __repr__(self) -> str:
        return f"ZooKeeperServer({self.connect_string()}, pid={self.pid}, dir={self.work_dir})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Run a standalone ZooKeeper on 127.0.0.1.")
    parser.add_argument("--port", type=int, default=2181)
    parser.add_argument("--dir", type=Path, default=None,
                        help="data and log directory (a temporary one by default)")
    args = parser.parse_args(argv)
    work_dir = args.dir or Path(tempfile.mkdtemp(prefix="zookeeper-"))
    server = ZooKeeperServer(work_dir, port=args.port)
    stopping: list[int] = []
    signal.signal(signal.SIGTERM, lambda signum, frame: stopping.append(signum))
    with server:
        print(f"ZooKeeper on {server.connect_string()} (data in {work_dir}); Ctrl-C stops it",
              flush=True)
        try:
            while not stopping and server.is_running():
                time.sleep(0.5)
        except KeyboardInterrupt:
            pass
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
