"""A reference Apache Kafka 3.9 broker, with its ZooKeeper, for differential tests and benchmarks.

Both run from the jars that ``scripts/kafka-tools-deps.sh`` fetched from Maven Central into
``.cache/kafka-tools/<version>/lib`` (``kafka_2.13`` brings ``zookeeper`` with it): ZooKeeper
through ``QuorumPeerMain`` and the broker through ``kafka.Kafka``, which is what
``bin/zookeeper-server-start.sh`` and ``bin/kafka-server-start.sh`` do. There is no Kafka
distribution on disk. Everything listens on 127.0.0.1, on free ports unless told otherwise, and
keeps its data and logs in one working directory.

The broker runs in ZooKeeper mode with the settings a single-node development cluster needs
(replication factor 1 for the internal topics) and Kafka's defaults for everything else; the
same ``overrides`` a pybroker gets can be passed so that both are configured alike. With
``metrics=True`` the broker runs with the Prometheus JMX exporter's java agent
(``.cache/kafka-tools/<version>/agent``) and the Strimzi Kafka rules pybroker renders with
(:func:`pybroker.metrics.jmx_rules.exporter_config`), on a free port (:attr:`metrics_url`):
Kafka's own MBeans as a Strimzi deployment serves them.
"""

from __future__ import annotations

import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from pybroker.testing.broker_process import REPO_ROOT, free_port, port_accepts

KAFKA_VERSION = "3.9.1"
LIB = REPO_ROOT / ".cache" / "kafka-tools" / KAFKA_VERSION / "lib"
#: the Prometheus JMX exporter's java agent (scripts/kafka-tools-deps.sh fetches it)
JMX_EXPORTER_AGENT = LIB.parent / "agent" / "jmx_prometheus_javaagent-1.0.1.jar"
DEPS_SCRIPT = REPO_ROOT / "scripts" / "kafka-tools-deps.sh"

#: the JVM options bin/kafka-server-start.sh and bin/zookeeper-server-start.sh use by default
KAFKA_HEAP = ("-Xmx1G", "-Xms1G")
KAFKA_JVM = (
    "-server",
    "-XX:+UseG1GC",
    "-XX:MaxGCPauseMillis=20",
    "-XX:InitiatingHeapOccupancyPercent=35",
    "-XX:+ExplicitGCInvokesConcurrent",
    "-Djava.awt.headless=true",
)
ZOOKEEPER_HEAP = ("-Xmx512M", "-Xms512M")
#: log4j (reload4j) for Kafka's command-line tools run as subprocesses: warnings and errors to
#: stderr, stdout left to what the tool prints
TOOL_LOG4J = """\
log4j.rootLogger=WARN, stderr
log4j.appender.stderr=org.apache.log4j.ConsoleAppender
log4j.appender.stderr.Target=System.err
log4j.appender.stderr.layout=org.apache.log4j.PatternLayout
log4j.appender.stderr.layout.ConversionPattern=[%d] %p %m (%c)%n
"""

#: log4j 1 (reload4j) settings: INFO to stdout, which the harness sends to a file per process
LOG4J = """\
log4j.rootLogger=INFO, stdout
log4j.appender.stdout=org.apache.log4j.ConsoleAppender
log4j.appender.stdout.layout=org.apache.log4j.PatternLayout
log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n
log4j.logger.kafka.request.logger=WARN
log4j.logger.state.change.logger=WARN
log4j.logger.org.apache.zookeeper=WARN
"""


class ReferenceKafkaError(RuntimeError):
    """ZooKeeper or the Kafka broker exited or never became ready."""


def missing_requirements(lib: Path = LIB, version: str = KAFKA_VERSION) -> list[str]:
    """What stops a reference broker of ``version`` from starting here (empty when nothing
    does)."""
    missing = [tool for tool in ("java",) if shutil.which(tool) is None]
    if not (lib / f"kafka_2.13-{version}.jar").exists():
        missing.append(f"the Kafka {version} jars in {lib} (run make kafka-tools-deps)")
    return missing


def fetch_jars(timeout: float = 900.0) -> subprocess.CompletedProcess[str]:
    """Run scripts/kafka-tools-deps.sh (a no-op when the cache is current)."""
    return subprocess.run(
        ["bash", str(DEPS_SCRIPT), KAFKA_VERSION], capture_output=True, text=True, timeout=timeout
    )


def zookeeper_ok(port: int, timeout: float = 0.5) -> bool:
    """ZooKeeper's ``ruok`` four-letter word answered ``imok``."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
            s.sendall(b"ruok")
            return s.recv(4) == b"imok"
    except OSError:
        return False


class JavaProcess:
    """One JVM with its output in a log file."""

    def __init__(self, name: str, log_path: Path) -> None:
        self.name = name
        self.log_path = log_path
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self, cmd: list[str], cwd: Path) -> None:
        with open(self.log_path, "ab") as log:
            log.write(f"\n===== {' '.join(cmd)}\n".encode())
            log.flush()
            self.proc = subprocess.Popen(
                cmd,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                cwd=cwd,
                start_new_session=True,
            )

    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def stop(self, timeout: float) -> None:
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        self.proc = None

    def tail(self, lines: int = 40) -> str:
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return f"<no {self.name} log>"
        return "\n".join(text.splitlines()[-lines:])


class ReferenceKafka:
    """Apache Kafka on ``127.0.0.1:port`` with ZooKeeper on ``127.0.0.1:zk_port``.

    ``start()`` returns when the broker answers Metadata with itself as a live broker and a
    controller; ``stop()`` stops the broker (SIGTERM, as a controlled shutdown) and then
    ZooKeeper. Usable as a context manager.
    """

    #: instances with live processes, so a harness can stop stragglers at exit
    live: set[ReferenceKafka] = set()

    def __init__(
        self,
        work_dir: Path,
        *,
        port: int | None = None,
        zk_port: int | None = None,
        overrides: Mapping[str, object] | None = None,
        lib: Path = LIB,
        start_timeout: float = 120.0,
        stop_timeout: float = 60.0,
        heap: tuple[str, ...] = KAFKA_HEAP,
        metrics: bool = False,
    ) -> None:
        self.work_dir = Path(work_dir)
        #: the JMX exporter's port (None: no agent)
        self.metrics_port = free_port() if metrics else None
        self.port = port or free_port()
        self.zk_port = zk_port or free_port()
        self.extra_overrides = dict(overrides or {})
        self.lib = Path(lib)
        self.start_timeout = start_timeout
        self.stop_timeout = stop_timeout
        self.heap = heap
        self.zookeeper = JavaProcess("zookeeper", self.work_dir / "zookeeper.log")
        self.kafka = JavaProcess("kafka", self.work_dir / "kafka.log")

    # -- properties ---------------------------------------------------------------------------

    @property
    def bootstrap(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def metrics_url(self) -> str:
        if self.metrics_port is None:
            raise RuntimeError("this reference Kafka runs without metrics=True")
        return f"http://127.0.0.1:{self.metrics_port}/metrics"

    @property
    def zookeeper_connect(self) -> str:
        return f"127.0.0.1:{self.zk_port}"

    @property
    def properties(self) -> dict[str, str]:
        """The broker's server.properties."""
        listener = f"PLAINTEXT://127.0.0.1:{self.port}"
        props: dict[str, object] = {
            "broker.id": 0,
            "listeners": listener,
            "advertised.listeners": listener,
            "log.dirs": str(self.work_dir / "kafka-logs"),
            "zookeeper.connect": self.zookeeper_connect,
            "num.partitions": 1,
            "auto.create.topics.enable": "true",
            # a single node cannot hold three replicas of the internal topics
            "offsets.topic.replication.factor": 1,
            "transaction.state.log.replication.factor": 1,
            "transaction.state.log.min.isr": 1,
        }
        props.update(self.extra_overrides)
        return {k: str(v) for k, v in props.items()}

    def _java(self, heap: tuple[str, ...], main: str, *args: str) -> list[str]:
        log4j = self.work_dir / "log4j.properties"
        return [
            shutil.which("java") or "java", *heap, *KAFKA_JVM,
            f"-Dlog4j.configuration={log4j.as_uri()}",
            "-cp", f"{self.lib}/*", main, *args,
        ]

    # -- lifecycle ----------------------------------------------------------------------------

    def start(self) -> ReferenceKafka:
        missing = missing_requirements(self.lib)
        if missing:
            raise ReferenceKafkaError("cannot start the reference Kafka: " + "; ".join(missing))
        self.work_dir.mkdir(parents=True, exist_ok=True)
        (self.work_dir / "log4j.properties").write_text(LOG4J)
        zk_cfg = self.work_dir / "zookeeper.properties"
        zk_cfg.write_text(
            f"dataDir={self.work_dir / 'zookeeper'}\n"
            f"clientPort={self.zk_port}\n"
            "clientPortAddress=127.0.0.1\n"
            "maxClientCnxns=0\n"
            "admin.enableServer=false\n"
            "4lw.commands.whitelist=ruok\n"
        )
        server_cfg = self.work_dir / "server.properties"
        server_cfg.write_text("".join(f"{k}={v}\n" for k, v in self.properties.items()))
        ReferenceKafka.live.add(self)
        try:
            self.zookeeper.start(
                self._java(
                    ZOOKEEPER_HEAP, "org.apache.zookeeper.server.quorum.QuorumPeerMain", str(zk_cfg)
                ),
                self.work_dir,
            )
            self._wait(self.zookeeper, lambda: zookeeper_ok(self.zk_port), "answer ruok")
            heap = self.heap
            if self.metrics_port is not None:
                heap = (*heap, self._agent())
            self.kafka.start(self._java(heap, "kafka.Kafka", str(server_cfg)), self.work_dir)
            self._wait(self.kafka, self._ready, "report itself in Metadata")
        except BaseException:
            self.stop()
            raise
        return self

    def _agent(self) -> str:
        """``-javaagent:`` for the JMX exporter with the rules pybroker serves by (before
        ``-cp``, as a JVM option)."""
        import json

        from pybroker.metrics.jmx_rules import exporter_config

        if not JMX_EXPORTER_AGENT.exists():
            raise ReferenceKafkaError(f"no {JMX_EXPORTER_AGENT}: run {DEPS_SCRIPT}")
        config = self.work_dir / "kafka-metrics.yml"
        config.write_text(json.dumps(exporter_config(), indent=1) + "\n")  # JSON is YAML
        return f"-javaagent:{JMX_EXPORTER_AGENT}=127.0.0.1:{self.metrics_port}:{config}"

    def _ready(self) -> bool:
        if not port_accepts(self.port, timeout=0.2):
            return False
        from pybroker.testing.wire_client import WireClient  # the codecs load only when needed

        try:
            with WireClient(self.bootstrap, timeout=5) as client:
                body = _metadata_request()
                resp = client.call(3, 1, body)
        except (OSError, ConnectionError):
            return False
        return resp.controller_id >= 0 and any(b.port == self.port for b in resp.brokers)

    def _wait(self, proc: JavaProcess, ready: Callable[[], bool], what: str) -> None:
        deadline = time.monotonic() + self.start_timeout
        while time.monotonic() < deadline:
            if not proc.running():
                raise ReferenceKafkaError(
                    f"{proc.name} exited during start-up\n--- {proc.log_path} ---\n{proc.tail()}"
                )
            if ready():
                return
            time.sleep(0.1)
        raise ReferenceKafkaError(
            f"{proc.name} did not {what} within {self.start_timeout:.0f}s\n"
            f"--- {proc.log_path} ---\n{proc.tail()}"
        )

    def stop(self) -> None:
        self.kafka.stop(self.stop_timeout)
        self.zookeeper.stop(self.stop_timeout)
        ReferenceKafka.live.discard(self)

    def is_running(self) -> bool:
        return self.kafka.running() and self.zookeeper.running()

    def describe(self, lines: int = 40) -> str:
        return (
            f"reference Kafka {KAFKA_VERSION} at {self.bootstrap} (ZooKeeper {self.zookeeper_connect},"
            f" work dir {self.work_dir})\n--- kafka ---\n{self.kafka.tail(lines)}\n"
            f"--- zookeeper ---\n{self.zookeeper.tail(lines // 2)}"
        )

    def __enter__(self) -> ReferenceKafka:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @classmethod
    def stop_all(cls) -> None:
        for ref in list(cls.live):
            ref.stop()

    def __repr__(self) -> str:
        return f"ReferenceKafka({self.bootstrap}, zk={self.zookeeper_connect}, dir={self.work_dir})"


def _metadata_request() -> Any:
    from protocol.messages import metadata_request

    return metadata_request.MetadataRequest(topics=[])

