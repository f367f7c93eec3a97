"""Run a pybroker server as a child process for tests, benchmarks and frame capture.

The broker is started exactly as a user would start it (the ``pybroker serve`` console script
with Kafka property overrides), bound to 127.0.0.1 (or another loopback address given as
``host``) on a free port, with its data directory in a caller-supplied place so that a restart
finds the same log. Its stderr goes to a file so that a failing test can show what the broker
said. ``cgroup=`` starts it inside a cgroup v2 directory of the caller's (the chaos tests' network
cuts match its sockets by cgroup).

By default the broker runs from the checkout this package was imported from. ``source=`` runs
the code of another checkout of the repository (an earlier revision, say) with the same
interpreter instead, and ``env=`` adds environment variables to the child's.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from pybroker.testing.frame_proxy import FrameLog, FrameProxy

#: the repository checkout this package runs from (pybroker/testing/ is two levels below it)
REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_CONFIG = REPO_ROOT / "config" / "server.properties"


class BrokerStartError(RuntimeError):
    """The broker process exited or never accepted connections."""


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port on ``host`` (a local address) that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        port: int = s.getsockname()[1]
        return port


def port_accepts(port: int, timeout: float = 0.5, host: str = "127.0.0.1") -> bool:
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


def listener_endpoints(listeners: str, default_host: str = "127.0.0.1") -> list[tuple[str, int]]:
    """The ``(host, port)`` every listener of a ``listeners`` value can be reached at: a host
    left empty (all interfaces) is ``default_host``; an ephemeral port (0) cannot be known and is
    left out."""
    found: list[tuple[str, int]] = []
    for entry in filter(None, (e.strip() for e in listeners.split(","))):
        _, sep, address = entry.partition("://")
        host, _, port = (address if sep else entry).rpartition(":")
        host = host.strip("[]") or default_host
        if port.isdigit() and int(port) > 0:
            found.append((host, int(port)))
    return found


def broker_command() -> list[str]:
    """The command that starts the broker from the current interpreter's environment.

    The console script is preferred because that is what users run; ``-m pybroker`` is the
    fallback for environments where scripts are not on disk next to the interpreter.
    """
    script = Path(sys.executable).with_name("pybroker")
    if script.exists():
        return [str(script)]
    found = shutil.which("pybroker")
    if found and Path(found).parent == Path(sys.executable).parent:
        return [found]
    return [sys.executable, "-m", "pybroker"]


class BrokerProcess:
    """One single-node pybroker on ``host:port`` (``127.0.0.1`` unless told otherwise) storing
    its data in ``data_dir``.

    ``start()`` returns once the listener accepts TCP connections; ``stop()`` sends SIGTERM and
    waits, ``kill()`` sends SIGKILL, ``restart()`` does either and starts again on the same port
    with the same data. The object can be used as a context manager.
    """

    #: every instance with a live child process, so a harness can stop stragglers at exit
    live: set[BrokerProcess] = set()

    def __init__(
        self,
        data_dir: Path,
        *,
        port: int | None = None,
        overrides: Mapping[str, object] | None = None,
        config: Path | None = DEFAULT_CONFIG,
        log_path: Path | None = None,
        start_timeout: float = 30.0,
        stop_timeout: float = 20.0,
        source: Path | None = None,
        env: Mapping[str, str] | None = None,
        host: str = "127.0.0.1",
        cgroup: Path | None = None,
        metrics: bool = False,
    ) -> None:
        """``source``: a checkout of the repository to run instead of this one. It becomes the
        working directory and the first entry of ``PYTHONPATH`` (which the interpreter searches
        before the virtualenv's editable install), and the default ``config`` is its
        ``config/server.properties``. ``env``: variables added to (or replacing) the child's
        environment, which is otherwise this process's. ``host``: the loopback address the
        listener binds and advertises (Linux routes all of 127.0.0.0/8 to ``lo``). ``cgroup``: a
        cgroup v2 directory the broker is started in (moved there before it executes, so every
        socket it ever opens belongs to it); a restart goes there again. ``metrics``: serve
        the Prometheus endpoint (``metrics.listener``) on a free port of ``host``
        (:attr:`metrics_url`)."""
        self.data_dir = Path(data_dir)
        self.host = host
        self.cgroup = Path(cgroup) if cgroup is not None else None
        self.port = port or free_port(host)
        #: the metrics endpoint's port (None: not served)
        self.metrics_port = free_port(host) if metrics else None
        self.source = Path(source).resolve() if source is not None else None
        if self.source is not None and config == DEFAULT_CONFIG:
            config = self.source / "config" / "server.properties"
        self.config = config if config is not None and Path(config).exists() else None
        self.extra_env = dict(env or {})
        self.extra_overrides = dict(overrides or {})
        self.log_path = Path(log_path) if log_path else self.data_dir.parent / (
            self.data_dir.name + f"-broker-{self.port}.stderr.log"
        )
        self.start_timeout = start_timeout
        self.stop_timeout = stop_timeout
        self.proc: subprocess.Popen[bytes] | None = None
        self.starts = 0
        self._log_file: BinaryIO | None = None

    # -- properties ---------------------------------------------------------------------------

    @property
    def bootstrap(self) -> str:
        return f"{self.host}:{self.port}"

    @property
    def state_change_log(self) -> Path:
        """The broker's state-change log (``<log file>.logs/state-change.log``)."""
        return self.log_path.parent / f"{self.log_path.stem}.logs" / "state-change.log"

    @property
    def metrics_url(self) -> str:
        """``http://host:port/metrics`` of the broker's metrics endpoint."""
        if self.metrics_port is None:
            raise RuntimeError("this broker was started without metrics=True")
        return f"http://{self.host}:{self.metrics_port}/metrics"

    @property
    def overrides(self) -> dict[str, str]:
        listener = f"PLAINTEXT://{self.host}:{self.port}"
        props: dict[str, object] = {
            "broker.id": 0,
            "listeners": listener,
            "advertised.listeners": listener,
            "log.dirs": str(self.data_dir),
            "num.partitions": 1,
            "auto.create.topics.enable": "true",
        }
        if self.metrics_port is not None:
            props["metrics.listener"] = f"http://{self.host}:{self.metrics_port}"
        props.update(self.extra_overrides)
        return {k: str(v) for k, v in props.items()}

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc else None

    def is_running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    @property
    def workdir(self) -> Path:
        """The child's working directory: the checkout it runs from."""
        return self.source if self.source is not None else REPO_ROOT

    def environment(self) -> dict[str, str]:
        """The child's environment."""
        env = dict(os.environ)
        env.setdefault("PYTHONUNBUFFERED", "1")
        # its own state-change log (Kafka's LOG_DIR), beside its log file
        env["LOG_DIR"] = str(self.state_change_log.parent)
        if self.source is not None:
            env["PYTHONPATH"] = os.pathsep.join(
                p for p in (str(self.source), env.get("PYTHONPATH", "")) if p
            )
        env.update(self.extra_env)
        return env

    def imported_from(self, *modules: str) -> dict[str, str]:
        """Where the broker's interpreter, in the broker's environment and working directory,
        imports ``modules`` from (``-P``: like the console script, without the working directory
        on ``sys.path``). Shows which source tree a broker started by this object runs."""
        names = modules or ("pybroker", "protocol")
        code = (
            "import importlib, sys\n"
            "for name in sys.argv[1:]:\n"
            "    print(name, importlib.import_module(name).__file__)\n"
        )
        done = subprocess.run(
            [sys.executable, "-P", "-c", code, *names],
            cwd=self.workdir,
            env=self.environment(),
            capture_output=True,
            text=True,
            check=True,
            timeout=60,
        )
        return dict(line.split(" ", 1) for line in done.stdout.splitlines())

    def command(self) -> list[str]:
        cmd = [*broker_command(), "serve"]
        if self.config is not None:
            cmd += ["--config", str(self.config)]
        for key, value in self.overrides.items():
            cmd += ["--override", f"{key}={value}"]
        return cmd

    def launch_command(self) -> list[str]:
        """:meth:`command`, through a shell that first moves itself into ``cgroup`` when there
        is one: ``exec`` keeps the pid, so the broker starts inside the cgroup."""
        if self.cgroup is None:
            return self.command()
        move = 'echo $$ > "$0" && exec "$@"'
        return ["/bin/sh", "-c", move, str(self.cgroup / "cgroup.procs"), *self.command()]

    # -- lifecycle ----------------------------------------------------------------------------

    #: start-ups tried when the metrics port picked turns out taken (see :meth:`start`)
    METRICS_PORT_ATTEMPTS = 3

    def start(self) -> BrokerProcess:
        """Start the broker and wait until every listener accepts connections.

        The metrics port is picked free (:func:`free_port`) but bound only by the broker, so
        another process may take it in between - an outgoing connection's ephemeral port
        comes from the same range. A broker that exits because of that is started again on
        a port picked afresh (its Kafka listeners, which clients were given, never change)."""
        for attempt in range(1, self.METRICS_PORT_ATTEMPTS + 1):
            try:
                return self._start_once()
            except BrokerStartError as e:
                taken = "metrics.listener" in str(e) and "Address already in use" in str(e)
                if not taken or self.metrics_port is None \
                        or attempt == self.METRICS_PORT_ATTEMPTS:
                    raise
                self.metrics_port = free_port(self.host)
        raise AssertionError("unreachable")

    def _start_once(self) -> BrokerProcess:
        if self.is_running():
            raise RuntimeError("broker already running")
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        self._log_file = open(self.log_path, "ab")  # noqa: SIM115 - closed in _reap()
        self.starts += 1
        origin = f" (from {self.source})" if self.source is not None else ""
        self._log_file.write(
            f"\n===== start #{self.starts}{origin}: {' '.join(self.command())}\n".encode()
        )
        self._log_file.flush()
        self.proc = subprocess.Popen(
            self.launch_command(),
            stdin=subprocess.DEVNULL,
            stdout=self._log_file,
            stderr=self._log_file,
            cwd=self.workdir,
            env=self.environment(),
            start_new_session=True,  # a Ctrl-C in the terminal is for pytest, not the broker
        )
        BrokerProcess.live.add(self)
        self._wait_listening()
        return self

    def _wait_listening(self) -> None:
        deadline = time.monotonic() + self.start_timeout
        waiting = listener_endpoints(self.overrides["listeners"], self.host) \
            or [(self.host, self.port)]
        while time.monotonic() < deadline:
            assert self.proc is not None
            code = self.proc.poll()
            if code is not None:
                self._reap()
                raise BrokerStartError(
                    f"broker exited with code {code} during start-up\n{self.describe()}"
                )
            # every listener, not only the first: a test may go straight to the second one
            if all(port_accepts(port, timeout=0.2, host=host) for host, port in waiting):
                return
            time.sleep(0.05)
        self.kill()
        raise BrokerStartError(
            f"broker did not accept connections on every listener of "
            f"{', '.join(f'{h}:{p}' for h, p in waiting)} within "
            f"{self.start_timeout:.0f}s\n{self.describe()}"
        )

    def stop(self) -> int | None:
        """SIGTERM, wait up to ``stop_timeout``, then SIGKILL. Returns the exit code."""
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGCONT)  # a frozen process cannot act on SIGTERM
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(self.stop_timeout)
            except subprocess.TimeoutExpired:
                self._note(f"did not exit {self.stop_timeout:.0f}s after SIGTERM; sending SIGKILL")
                self.proc.kill()
                self.proc.wait(10)
        return self._reap()

    def kill(self) -> int | None:
        """SIGKILL, as if the process crashed. Written data stays in the OS page cache."""
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
        return self._reap()

    def freeze(self) -> None:
        """SIGSTOP: the process stops answering, its sockets and ZooKeeper session stay open
        until timeouts run out (a long GC pause, a hung disk)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGSTOP)
            self._note("SIGSTOP")

    def thaw(self) -> None:
        """SIGCONT after :meth:`freeze`."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGCONT)
            self._note("SIGCONT")

    def restart(self, *, hard: bool = False) -> BrokerProcess:
        """Stop (SIGTERM, or SIGKILL with ``hard``) and start again on the same port and data."""
        if hard:
            self.kill()
        else:
            self.stop()
        return self.start()

    def _reap(self) -> int | None:
        code = self.proc.returncode if self.proc else None
        BrokerProcess.live.discard(self)
        if self._log_file is not None:
            self._log_file.write(f"===== exit code {code}\n".encode())
            self._log_file.close()
            self._log_file = None
        return code

    def _note(self, text: str) -> None:
        if self._log_file is not None:
            self._log_file.write(f"===== {text}\n".encode())
            self._log_file.flush()

    # -- diagnostics --------------------------------------------------------------------------

    def stderr_tail(self, lines: int = 60) -> str:
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return "<no broker log>"
        return "\n".join(text.splitlines()[-lines:])

    def describe(self, lines: int = 60) -> str:
        state = "running" if self.is_running() else "not running"
        source = f"source: {self.source}\n" if self.source is not None else ""
        return (
            f"broker {self.bootstrap} ({state}, pid {self.pid}, data {self.data_dir})\n"
            f"command: {' '.join(self.command())}\n{source}"
            f"--- last {lines} lines of {self.log_path} ---\n{self.stderr_tail(lines)}"
        )

    def __enter__(self) -> BrokerProcess:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @classmethod
    def stop_all(cls) -> None:
        """Stop every broker this process started and has not stopped yet."""
        for broker in list(cls.live):
            try:
                broker.stop()
            except Exception:  # noqa: BLE001 - keep stopping the others
                broker.kill()

    def __repr__(self) -> str:
        return f"BrokerProcess({self.bootstrap}, pid={self.pid}, data_dir={self.data_dir})"


@dataclass
class ProxiedBroker:
    """A broker whose advertised listener is a :class:`FrameProxy`, so every request a client
    sends (after bootstrapping too) passes the proxy and can be inspected."""

    broker: BrokerProcess
    proxy: FrameProxy

    @property
    def bootstrap(self) -> str:
        return self.proxy.bootstrap

    def watch(self) -> FrameLog:
        """Frames of connections opened from now on (create the client after calling this)."""
        log = FrameLog()
        self.proxy.observer = log
        return log
