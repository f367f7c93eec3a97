"""A reference Apache Kafka 4.x broker in KRaft combined mode (one process that is both its
broker and its controller), for the tests of what Kafka 3.9 cannot answer in ZooKeeper mode:
the KIP-848 consumer group protocol first.

It runs from the jars ``scripts/kafka-tools-deps.sh 4.1.1`` fetched from Maven Central into
``.cache/kafka-tools/4.1.1/lib``, as :mod:`pybroker.testing.reference_kafka` runs 3.9: the
storage formatted through ``kafka.tools.StorageTool`` (what ``bin/kafka-storage.sh format``
runs) with a fresh cluster id and ``controller.quorum.voters`` naming itself, then
``kafka.Kafka`` on that configuration. The broker listens on ``127.0.0.1:port`` and its
controller on a second free port; ``start()`` returns when Metadata names the broker.
"""

from __future__ import annotations

import shutil
import subprocess
import time
from collections.abc import Mapping
from pathlib import Path

from pybroker.testing.broker_process import REPO_ROOT, free_port, port_accepts
from pybroker.testing.reference_kafka import (
    KAFKA_HEAP,
    KAFKA_JVM,
    JavaProcess,
    ReferenceKafkaError,
    _metadata_request,
)

KAFKA4_VERSION = "4.1.1"
LIB4 = REPO_ROOT / ".cache" / "kafka-tools" / KAFKA4_VERSION / "lib"
DEPS_SCRIPT = REPO_ROOT / "scripts" / "kafka-tools-deps.sh"
#: the node id of the one broker-and-controller
NODE_ID = 1


def missing_requirements(lib: Path = LIB4) -> list[str]:
    """What stops a 4.x reference from starting here (empty when nothing does)."""
    missing = [tool for tool in ("java",) if shutil.which(tool) is None]
    if not (lib / f"kafka_2.13-{KAFKA4_VERSION}.jar").exists():
        missing.append(f"the Kafka {KAFKA4_VERSION} jars in {lib} (run make kafka-tools-deps)")
    return missing


class ReferenceKafka4:
    """Apache Kafka 4.x in KRaft combined mode on ``127.0.0.1:port``; usable as a context
    manager. ``overrides`` are server.properties entries over the defaults below."""

    live: set[ReferenceKafka4] = set()

    def __init__(self, work_dir: Path, *, port: int | None = None,
                 overrides: Mapping[str, object] | None = None, lib: Path = LIB4,
                 start_timeout: float = 120.0, stop_timeout: float = 60.0,
                 heap: tuple[str, ...] = KAFKA_HEAP) -> None:
        self.work_dir = Path(work_dir)
        self.port = port or free_port()
        self.controller_port = free_port()
        self.extra_overrides = dict(overrides or {})
        self.lib = Path(lib)
        self.start_timeout = start_timeout
        self.stop_timeout = stop_timeout
        self.heap = heap
        self.kafka = JavaProcess("kafka", self.work_dir / "kafka.log")
        self.cluster_id: str | None = None

    @property
    def bootstrap(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def properties(self) -> dict[str, str]:
        props: dict[str, object] = {
            "process.roles": "broker,controller",
            "node.id": NODE_ID,
            "controller.quorum.voters": f"{NODE_ID}@127.0.0.1:{self.controller_port}",
            "listeners": f"PLAINTEXT://127.0.0.1:{self.port},"
                         f"CONTROLLER://127.0.0.1:{self.controller_port}",
            "advertised.listeners": f"PLAINTEXT://127.0.0.1:{self.port}",
            "controller.listener.names": "CONTROLLER",
            "inter.broker.listener.name": "PLAINTEXT",
            "listener.security.protocol.map": "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT",
            "log.dirs": str(self.work_dir / "kafka-logs"),
            "num.partitions": 1,
            "auto.create.topics.enable": "true",
            # a single node cannot hold three replicas of the internal topics
            "offsets.topic.replication.factor": 1,
            "transaction.state.log.replication.factor": 1,
            "transaction.state.log.min.isr": 1,
            "share.coordinator.state.topic.replication.factor": 1,
            "share.coordinator.state.topic.min.isr": 1,
        }
        props.update(self.extra_overrides)
        return {k: str(v) for k, v in props.items()}

    def _java(self, heap: tuple[str, ...], main: str, *args: str) -> list[str]:
        return [shutil.which("java") or "java", *heap, *KAFKA_JVM, "-cp", f"{self.lib}/*",
                main, *args]

    def start(self) -> ReferenceKafka4:
        missing = missing_requirements(self.lib)
        if missing:
            raise ReferenceKafkaError("cannot start the reference Kafka 4: " + "; ".join(missing))
        self.work_dir.mkdir(parents=True, exist_ok=True)
        server_cfg = self.work_dir / "server.properties"
        server_cfg.write_text("".join(f"{k}={v}\n" for k, v in self.properties.items()))
        tool = "kafka.tools.StorageTool"
        if self.cluster_id is None:
            made = subprocess.run(self._java(("-Xmx256m",), tool, "random-uuid"),
                                  capture_output=True, text=True, timeout=60)
            self.cluster_id = made.stdout.strip().splitlines()[-1] if made.stdout else ""
            if made.returncode or not self.cluster_id:
                raise ReferenceKafkaError(f"StorageTool random-uuid failed: {made.stderr}")
            formatted = subprocess.run(
                self._java(("-Xmx256m",), tool, "format", "-t", self.cluster_id,
                           "-c", str(server_cfg)),
                capture_output=True, text=True, timeout=120)
            if formatted.returncode:
                raise ReferenceKafkaError(f"StorageTool format failed:\n{formatted.stdout}\n"
                                          f"{formatted.stderr}")
        ReferenceKafka4.live.add(self)
        try:
            self.kafka.start(self._java(self.heap, "kafka.Kafka", str(server_cfg)),
                             self.work_dir)
            deadline = time.monotonic() + self.start_timeout
            while not self._ready():
                if not self.kafka.running():
                    raise ReferenceKafkaError(f"Kafka {KAFKA4_VERSION} exited during start-up"
                                              f"\n{self.kafka.tail()}")
                if time.monotonic() > deadline:
                    raise ReferenceKafkaError(f"Kafka {KAFKA4_VERSION} did not report itself "
                                              f"in Metadata within {self.start_timeout:.0f}s")
                time.sleep(0.1)
        except BaseException:
            self.stop()
            raise
        return self

    def _ready(self) -> bool:
        if not port_accepts(self.port, timeout=0.2):
            return False
        from pybroker.testing.wire_client import WireClient

        try:
            with WireClient(self.bootstrap, timeout=5) as client:
                resp = client.call(3, 1, _metadata_request())
        except (OSError, ConnectionError):
            return False
        return any(b.port == self.port for b in resp.brokers)

    def stop(self) -> None:
        self.kafka.stop(self.stop_timeout)
        ReferenceKafka4.live.discard(self)

    def is_running(self) -> bool:
        return self.kafka.running()

    def describe(self, lines: int = 40) -> str:
        return (f"reference Kafka {KAFKA4_VERSION} (KRaft) at {self.bootstrap} (work dir "
                f"{self.work_dir})\n--- kafka ---\n{self.kafka.tail(lines)}")

    def __enter__(self) -> ReferenceKafka4:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @classmethod
    def stop_all(cls) -> None:
        for ref in list(cls.live):
            ref.stop()
