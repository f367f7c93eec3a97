"""The container image from the command line: the engine (podman, else docker), the image's
build from docker/Dockerfile, and containers run, inspected, stopped and removed by name - for
``make image``, the image and compose tests and ``PyBrokerContainer``'s tests.

podman runs with the settings of ``docker/containers.conf`` (``CONTAINERS_CONF``; runc,
cgroupfs, no default ulimits), which work on hosts where podman's defaults do not; an engine
set up otherwise can override it by setting ``CONTAINERS_CONF`` itself. Where no image registry
can be reached, the base image is built from Debian packages (``scripts/base-image.sh``).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from pybroker.testing.broker_process import REPO_ROOT

DOCKERFILE = REPO_ROOT / "docker" / "Dockerfile"
CONTAINERS_CONF = REPO_ROOT / "docker" / "containers.conf"
BASE_IMAGE_SCRIPT = REPO_ROOT / "scripts" / "base-image.sh"
#: the base image scripts/base-image.sh builds from Debian packages (no registry needed)
LOCAL_BASE_IMAGE = "localhost/pybroker-base:bookworm"
ZOOKEEPER_DOCKERFILE_DIR = REPO_ROOT / "docker" / "zookeeper"
#: the tag ``make image`` and the tests build
IMAGE = "localhost/pybroker:dev"
ZOOKEEPER_IMAGE = "localhost/pybroker-zookeeper:dev"


class ContainerError(RuntimeError):
    """An engine command failed; the message has its output."""


def find_engine(preferred: str | None = None) -> str | None:
    """``preferred`` if installed, else podman, else docker; None when there is neither."""
    for name in ([preferred] if preferred else ["podman", "docker"]):
        if shutil.which(name):
            return name
    return None


def engine_env(engine: str, base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment to run ``engine`` with (podman: this repository's containers.conf
    unless ``CONTAINERS_CONF`` is set)."""
    env = dict(os.environ if base is None else base)
    if Path(engine).name == "podman":
        env.setdefault("CONTAINERS_CONF", str(CONTAINERS_CONF))
    return env


def run(engine: str, *args: str, timeout: float = 600.0,
        check: bool = True) -> subprocess.CompletedProcess[str]:
    """``engine args...``; ContainerError with its output when it fails and ``check``."""
    done = subprocess.run([engine, *args], capture_output=True, text=True, timeout=timeout,
                          env=engine_env(engine), stdin=subprocess.DEVNULL)
    if check and done.returncode != 0:
        raise ContainerError(f"{engine} {' '.join(args)} exited {done.returncode}\n"
                             f"{done.stdout}{done.stderr}")
    return done


def image_exists(engine: str, image: str) -> bool:
    return run(engine, "image", "inspect", image, check=False, timeout=60).returncode == 0


def ensure_base_image(engine: str) -> None:
    """Import (building it first if not cached) the local Debian base image."""
    if image_exists(engine, LOCAL_BASE_IMAGE):
        return
    done = subprocess.run(["bash", str(BASE_IMAGE_SCRIPT), engine], cwd=REPO_ROOT,
                          capture_output=True, text=True, timeout=900, env=engine_env(engine))
    if done.returncode != 0:
        raise ContainerError(f"{BASE_IMAGE_SCRIPT} failed\n{done.stdout}{done.stderr}")


@dataclass(frozen=True, slots=True)
class Build:
    image: str
    base_image: str
    seconds: float
    size_bytes: int


def build_image(engine: str, image: str = IMAGE, base_image: str = LOCAL_BASE_IMAGE) -> Build:
    """Build docker/Dockerfile from the repository as ``image`` on ``base_image``."""
    return _build(engine, image, base_image, ["-f", str(DOCKERFILE)], REPO_ROOT)


def build_zookeeper_image(engine: str, image: str = ZOOKEEPER_IMAGE,
                          base_image: str = LOCAL_BASE_IMAGE) -> Build:
    """Build docker/zookeeper (ZooKeeper from Debian's packages) as ``image``."""
    return _build(engine, image, base_image, [], ZOOKEEPER_DOCKERFILE_DIR)


def _build(engine: str, image: str, base_image: str, args: list[str], context: Path) -> Build:
    if base_image == LOCAL_BASE_IMAGE:
        ensure_base_image(engine)
    args = ["build", *args, "--build-arg", f"BASE_IMAGE={base_image}", "-t", image]
    if Path(engine).name == "podman":
        # docker format keeps HEALTHCHECK and STOPSIGNAL; the host network lets pip and apt
        # reach their archives
        args += ["--format", "docker", "--network", "host"]
    previous = _image_id(engine, image)
    started = time.monotonic()
    run(engine, *args, str(context), timeout=1800)
    seconds = time.monotonic() - started
    if previous is not None and previous != _image_id(engine, image):
        # the image this tag named before, now untagged: not kept (unless a container uses it)
        run(engine, "rmi", previous, check=False, timeout=120)
    return Build(image, base_image, seconds, image_size(engine, image))


def _image_id(engine: str, image: str) -> str | None:
    done = run(engine, "image", "inspect", image, "--format", "{{.Id}}", check=False,
               timeout=60)
    return done.stdout.strip() if done.returncode == 0 else None


def image_size(engine: str, image: str) -> int:
    return int(run(engine, "image", "inspect", image, "--format", "{{.Size}}").stdout.strip())


class Container:
    """A container of ``image`` started with ``engine run -d``; :meth:`remove` stops and removes
    it (and is safe to call twice). Usable as a context manager."""

    def __init__(self, engine: str, image: str, *, name: str | None = None,
                 env: Mapping[str, str] | None = None, ports: Sequence[str] = (),
                 volumes: Sequence[str] = (), network: str | None = None,
                 command: Sequence[str] = (), extra: Sequence[str] = ()) -> None:
        self.engine = engine
        self.image = image
        self.name = name or f"pybroker-test-{uuid.uuid4().hex[:10]}"
        self.env = dict(env or {})
        self.ports = list(ports)
        self.volumes = list(volumes)
        self.network = network
        self.command = list(command)
        self.extra = list(extra)
        self.started = False

    def start(self) -> Container:
        args = ["run", "-d", "--name", self.name]
        for key, value in self.env.items():
            args += ["-e", f"{key}={value}"]
        for port in self.ports:
            args += ["-p", port]
        for volume in self.volumes:
            args += ["-v", volume]
        if self.network:
            args += ["--network", self.network]
        self.started = True
        run(self.engine, *args, *self.extra, self.image, *self.command, timeout=120)
        return self

    def inspect(self) -> dict:
        [info] = json.loads(run(self.engine, "inspect", self.name, timeout=60).stdout)
        return info

    def exit_code(self) -> int | None:
        state = self.inspect()["State"]
        return None if state.get("Running") else int(state["ExitCode"])

    def logs(self) -> str:
        done = run(self.engine, "logs", self.name, check=False, timeout=60)
        return done.stdout + done.stderr

    def exec(self, *command: str, check: bool = False) -> subprocess.CompletedProcess[str]:
        return run(self.engine, "exec", self.name, *command, check=check, timeout=120)

    def stop(self, timeout: int = 20) -> float:
        """``engine stop`` (the image's stop signal, then SIGKILL after ``timeout``); the
        seconds it took."""
        started = time.monotonic()
        run(self.engine, "stop", "-t", str(timeout), self.name, timeout=timeout + 60)
        return time.monotonic() - started

    def remove(self) -> None:
        """Remove the container and its anonymous volumes, killing it if it still runs (as
        ``docker rm -f`` does; podman's would wait out the stop timeout first)."""
        if self.started:
            kill_now = ["-t", "0"] if Path(self.engine).name == "podman" else []
            run(self.engine, "rm", "-f", "-v", *kill_now, self.name, check=False, timeout=120)
            self.started = False

    def __enter__(self) -> Container:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.remove()


def wait_serving(bootstrap: str, timeout: float = 60.0, container: Container | None = None,
                 ) -> float:
    """Seconds until ``bootstrap`` answers ApiVersions; ContainerError after ``timeout``, with
    ``container``'s logs."""
    from pybroker.healthcheck import Unhealthy, check

    started = time.monotonic()
    last = ""
    while time.monotonic() - started < timeout:
        try:
            check(bootstrap, timeout=1.0)
            return time.monotonic() - started
        except Unhealthy as e:
            last = str(e)
        if container is not None and container.exit_code() is not None:
            break
        time.sleep(0.05)
    logs = container.logs() if container is not None else ""
    raise ContainerError(f"{bootstrap} not serving after {time.monotonic() - started:.1f}s: "
                         f"{last}\n{logs}")


def compose_command(engine: str) -> list[str]:
    """How to run compose files with ``engine``: podman-compose (from PyPI, next to this
    interpreter or on PATH) for podman, ``docker compose`` for docker."""
    if Path(engine).name == "docker":
        return [engine, "compose"]
    beside = Path(sys.executable).with_name("podman-compose")
    if beside.exists():
        return [str(beside)]
    found = shutil.which("podman-compose")
    if found is None:
        raise ContainerError("podman-compose is not installed (it is in the test extra: "
                             "make setup)")
    return [found]


class ComposeProject:
    """A compose file brought up as project ``name`` with ``env`` for its ``${...}`` settings;
    :meth:`down` removes its containers, network and volumes. Usable as a context manager."""

    def __init__(self, engine: str, file: Path, name: str | None = None,
                 env: Mapping[str, str] | None = None) -> None:
        self.engine = engine
        self.file = Path(file)
        self.name = name or f"pybroker-test-{uuid.uuid4().hex[:8]}"
        self.env = dict(env or {})
        self.command = compose_command(engine)

    def run(self, *args: str, timeout: float = 300.0,
            check: bool = True) -> subprocess.CompletedProcess[str]:
        env = engine_env(self.engine)
        env.update(self.env)
        done = subprocess.run([*self.command, "-f", str(self.file), "-p", self.name, *args],
                              capture_output=True, text=True, timeout=timeout, env=env,
                              stdin=subprocess.DEVNULL, cwd=self.file.parent)
        if check and done.returncode != 0:
            raise ContainerError(f"compose {' '.join(args)} exited {done.returncode}\n"
                                 f"{done.stdout}{done.stderr}")
        return done

    def up(self) -> ComposeProject:
        self.run("up", "-d")
        return self

    def down(self, timeout: int = 10) -> None:
        """Stop and remove everything (a container still running ``timeout`` seconds after its
        stop signal is killed, as compose's own default does)."""
        self.run("down", "-v", "-t", str(timeout), check=False)

    def stop(self, service: str) -> None:
        self.run("stop", service)

    def start(self, service: str) -> None:
        self.run("start", service)

    def container(self, service: str) -> str:
        """The name of the service's (first) container."""
        for separator in ("_", "-"):
            candidate = f"{self.name}{separator}{service}{separator}1"
            if run(self.engine, "container", "exists", candidate, check=False).returncode == 0:
                return candidate
        raise ContainerError(f"no container for service {service} of project {self.name}")

    @property
    def network(self) -> str:
        """The project's default network."""
        return f"{self.name}_default"

    def logs(self, service: str) -> str:
        done = run(self.engine, "logs", self.container(service), check=False, timeout=60)
        return done.stdout + done.stderr

    def __enter__(self) -> ComposeProject:
        try:
            return self.up()
        except BaseException:
            self.down()
            raise

    def __exit__(self, *exc: object) -> None:
        self.down()
