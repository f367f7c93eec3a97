"""A reference Apache Kafka 3.9 cluster: brokers 1..N as separate JVMs on one ZooKeeper.

The counterpart of :mod:`pybroker.testing.cluster` for Apache Kafka, for benchmarks and
side-by-side cluster checks. Each broker is ``kafka.Kafka`` from the jars of
``scripts/kafka-tools-deps.sh``, started as :class:`~pybroker.testing.reference_kafka.ReferenceKafka`
starts its single broker (the same JVM options and heap, the same quiet log4j settings), with
its own port, log dir, ``server.properties`` and log file under ``work_dir/broker-<id>/``. The
ZooKeeper is the caller's (a :class:`~pybroker.testing.zookeeper.ZooKeeperServer`, say);
``zookeeper_connect`` may carry a chroot, which Kafka creates.

Every broker is stopped by its pid: ``stop()`` sends SIGTERM (a controlled shutdown) and SIGKILL
if it lingers; ``kill()`` sends SIGKILL at once, as a crash.

Settings: Kafka's defaults, plus the replication factors of the internal topics capped at the
cluster's size (a smaller cluster cannot hold three replicas), plus ``overrides``.
"""

from __future__ import annotations

import shutil
import signal
import subprocess
import time
from collections.abc import Iterable, Mapping
from pathlib import Path

from pybroker.testing.broker_process import free_port, port_accepts
from pybroker.testing.reference_kafka import (
    KAFKA_HEAP,
    KAFKA_JVM,
    KAFKA_VERSION,
    LIB,
    LOG4J,
    JavaProcess,
    ReferenceKafkaError,
    missing_requirements,
)


class ReferenceBroker:
    """One Kafka broker of a :class:`ReferenceKafkaCluster` on ``127.0.0.1:port``."""

    def __init__(self, broker_id: int, work_dir: Path, port: int,
                 properties: Mapping[str, str], lib: Path, heap: tuple[str, ...]) -> None:
        self.broker_id = broker_id
        self.work_dir = Path(work_dir)
        self.port = port
        self.properties = dict(properties)
        self.lib = lib
        self.heap = heap
        self.process = JavaProcess(f"kafka-{broker_id}", self.work_dir / "kafka.log")
        self.starts = 0

    @property
    def bootstrap(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def pid(self) -> int | None:
        proc = self.process.proc
        return proc.pid if proc is not None else None

    def is_running(self) -> bool:
        return self.process.running()

    def command(self) -> list[str]:
        return [
            shutil.which("java") or "java", *self.heap, *KAFKA_JVM,
            f"-Dlog4j.configuration={(self.work_dir / 'log4j.properties').as_uri()}",
            "-cp", f"{self.lib}/*", "kafka.Kafka", str(self.work_dir / "server.properties"),
        ]

    def launch(self) -> None:
        """Start the JVM; :meth:`ReferenceKafkaCluster.start` waits for it to be ready."""
        if self.is_running():
            raise RuntimeError(f"broker {self.broker_id} already running")
        self.work_dir.mkdir(parents=True, exist_ok=True)
        (self.work_dir / "log4j.properties").write_text(LOG4J)
        (self.work_dir / "server.properties").write_text(
            "".join(f"{k}={v}\n" for k, v in self.properties.items()))
        self.starts += 1
        self.process.start(self.command(), self.work_dir)

    def ready(self) -> bool:
        """The broker answers Metadata listing itself and a controller."""
        if not port_accepts(self.port, timeout=0.2):
            return False
        from protocol.messages import metadata_request  # the codecs load only when needed
        from pybroker.testing.wire_client import WireClient

        try:
            with WireClient(self.bootstrap, timeout=5) as client:
                resp = client.call(3, 1, metadata_request.MetadataRequest(topics=[]))
        except (OSError, ConnectionError):
            return False
        return resp.controller_id >= 0 and any(b.node_id == self.broker_id for b in resp.brokers)

    def stop(self, timeout: float) -> None:
        """SIGTERM to the pid (a controlled shutdown), SIGKILL after ``timeout`` seconds."""
        self.process.stop(timeout)

    def kill(self) -> None:
        """SIGKILL to the pid, as if the process crashed."""
        proc = self.process.proc
        if proc is None:
            return
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                pass
        self.process.proc = None

    def describe(self, lines: int = 40) -> str:
        state = "running" if self.is_running() else "not running"
        return (f"Kafka broker {self.broker_id} at {self.bootstrap} ({state}, pid {self.pid}, "
                f"dir {self.work_dir})\n--- {self.process.log_path} ---\n"
                f"{self.process.tail(lines)}")


class ReferenceKafkaCluster:
    """Kafka brokers ``1..size`` on the ZooKeeper at ``zookeeper_connect`` (chroot included).

    ``start()`` launches the JVMs together and returns once each answers Metadata listing
    itself and a controller. Usable as a context manager.
    """

    #: instances with live processes, so a harness can stop stragglers at exit
    live: set[ReferenceKafkaCluster] = set()

    def __init__(self, work_dir: Path, zookeeper_connect: str, *, size: int = 3,
                 overrides: Mapping[str, object] | None = None, lib: Path = LIB,
                 heap: tuple[str, ...] = KAFKA_HEAP, start_timeout: float = 120.0,
                 stop_timeout: float = 60.0) -> None:
        self.work_dir = Path(work_dir)
        self.zookeeper_connect = zookeeper_connect
        self.size = size
        self.overrides = dict(overrides or {})
        self.lib = Path(lib)
        self.start_timeout = start_timeout
        self.stop_timeout = stop_timeout
        self.brokers: dict[int, ReferenceBroker] = {}
        for broker_id in range(1, size + 1):
            port = free_port()
            broker_dir = self.work_dir / f"broker-{broker_id}"
            listener = f"PLAINTEXT://127.0.0.1:{port}"
            props: dict[str, object] = {
                "broker.id": broker_id,
                "listeners": listener,
                "advertised.listeners": listener,
                "log.dirs": str(broker_dir / "kafka-logs"),
                "zookeeper.connect": zookeeper_connect,
                "offsets.topic.replication.factor": min(3, size),
                "transaction.state.log.replication.factor": min(3, size),
                "transaction.state.log.min.isr": min(2, size),
            }
            props.update(self.overrides)
            self.brokers[broker_id] = ReferenceBroker(
                broker_id, broker_dir, port, {k: str(v) for k, v in props.items()}, self.lib,
                heap)

    @property
    def bootstrap(self) -> str:
        return ",".join(b.bootstrap for b in self.brokers.values())

    def broker(self, broker_id: int) -> ReferenceBroker:
        return self.brokers[broker_id]

    def start(self, broker_ids: Iterable[int] | None = None) -> ReferenceKafkaCluster:
        missing = missing_requirements(self.lib)
        if missing:
            raise ReferenceKafkaError("cannot start the reference Kafka: " + "; ".join(missing))
        ids = list(broker_ids or self.brokers)
        ReferenceKafkaCluster.live.add(self)
        try:
            for broker_id in ids:
                self.brokers[broker_id].launch()
            deadline = time.monotonic() + self.start_timeout
            waiting = list(ids)
            while waiting:
                broker = self.brokers[waiting[0]]
                if not broker.is_running():
                    raise ReferenceKafkaError(
                        f"Kafka broker {broker.broker_id} exited during start-up\n"
                        f"{broker.describe()}")
                if broker.ready():
                    waiting.pop(0)
                    continue
                if time.monotonic() > deadline:
                    raise ReferenceKafkaError(
                        f"Kafka broker {broker.broker_id} did not report itself in Metadata "
                        f"within {self.start_timeout:.0f}s\n{broker.describe()}")
                time.sleep(0.1)
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self) -> None:
        """Stop every broker (SIGTERM to its pid, SIGKILL if it lingers), the lowest id last."""
        for broker in reversed(list(self.brokers.values())):
            broker.stop(self.stop_timeout)
        ReferenceKafkaCluster.live.discard(self)

    def kill(self, broker_id: int) -> None:
        self.brokers[broker_id].kill()

    def live_brokers(self) -> list[int]:
        return [i for i, b in self.brokers.items() if b.is_running()]

    def describe(self, lines: int = 40) -> str:
        head = (f"reference Kafka {KAFKA_VERSION} cluster of {self.size} on "
                f"{self.zookeeper_connect} (work dir {self.work_dir})")
        return "\n".join([head, *(b.describe(lines) for b in self.brokers.values())])

    def __enter__(self) -> ReferenceKafkaCluster:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @classmethod
    def stop_all(cls) -> None:
        for cluster in list(cls.live):
            cluster.stop()

    def __repr__(self) -> str:
        return (f"ReferenceKafkaCluster({self.bootstrap}, zk={self.zookeeper_connect}, "
                f"dir={self.work_dir})")
