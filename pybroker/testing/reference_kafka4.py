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

import subprocess
from collections.abc import Mapping
from pathlib import Path

from pybroker.testing.broker_process import REPO_ROOT, free_port
from pybroker.testing.reference_kafka import (
    KAFKA_HEAP,
    LOG4J,
    ReferenceKafka,
    ReferenceKafkaError,
    missing_requirements as _missing,
)

KAFKA4_VERSION = "4.1.1"
LIB4 = REPO_ROOT / ".cache" / "kafka-tools" / KAFKA4_VERSION / "lib"
#: the node id of the one broker-and-controller
NODE_ID = 1


def missing_requirements(lib: Path = LIB4) -> list[str]:
    """What stops a 4.x reference from starting here (empty when nothing does)."""
    return _missing(lib, KAFKA4_VERSION)


class ReferenceKafka4(ReferenceKafka):
    """Apache Kafka 4.x in KRaft combined mode on ``127.0.0.1:port``; usable as a context
    manager. ``overrides`` are server.properties entries over the defaults below. The 3.9
    reference's lifecycle (the ready check, the waits, stop_all) serves it; it has no
    ZooKeeper."""

    def __init__(self, work_dir: Path, *, port: int | None = None,
                 overrides: Mapping[str, object] | None = None, lib: Path = LIB4,
                 start_timeout: float = 120.0, stop_timeout: float = 60.0,
                 heap: tuple[str, ...] = KAFKA_HEAP) -> None:
        super().__init__(work_dir, port=port, overrides=overrides, lib=lib,
                         start_timeout=start_timeout, stop_timeout=stop_timeout, heap=heap)
        self.controller_port = free_port()
        self.cluster_id: str | None = None

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

    def _storage_tool(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(self._java(("-Xmx256m",), "kafka.tools.StorageTool", *args),
                              capture_output=True, text=True, timeout=120)

    def start(self) -> ReferenceKafka4:
        missing = missing_requirements(self.lib)
        if missing:
            raise ReferenceKafkaError("cannot start the reference Kafka 4: " + "; ".join(missing))
        self.work_dir.mkdir(parents=True, exist_ok=True)
        (self.work_dir / "log4j.properties").write_text(LOG4J)
        server_cfg = self.work_dir / "server.properties"
        server_cfg.write_text("".join(f"{k}={v}\n" for k, v in self.properties.items()))
        if self.cluster_id is None:
            made = self._storage_tool("random-uuid")
            lines = made.stdout.strip().splitlines()
            if made.returncode or not lines:
                raise ReferenceKafkaError(f"StorageTool random-uuid failed: {made.stderr}")
            formatted = self._storage_tool("format", "-t", lines[-1], "-c", str(server_cfg))
            if formatted.returncode:
                raise ReferenceKafkaError(f"StorageTool format failed:\n{formatted.stdout}\n"
                                          f"{formatted.stderr}")
            self.cluster_id = lines[-1]
        ReferenceKafka.live.add(self)
        try:
            self.kafka.start(self._java(self.heap, "kafka.Kafka", str(server_cfg)),
                             self.work_dir)
            self._wait(self.kafka, self._ready, "report itself in Metadata")
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self) -> None:
        self.kafka.stop(self.stop_timeout)
        ReferenceKafka.live.discard(self)

    def is_running(self) -> bool:
        return self.kafka.running()

    def describe(self, lines: int = 40) -> str:
        return (f"reference Kafka {KAFKA4_VERSION} (KRaft) at {self.bootstrap} (work dir "
                f"{self.work_dir})\n--- kafka ---\n{self.kafka.tail(lines)}")

    def __enter__(self) -> ReferenceKafka4:
        return self.start()

    def __repr__(self) -> str:
        return f"ReferenceKafka4({self.bootstrap}, dir={self.work_dir})"
