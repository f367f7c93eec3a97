"""Fixtures of the container tests: the engine (podman: these tests run where there is no Docker
engine, and use only what Docker has too) and the image built from docker/Dockerfile once per
session. Every container, volume and network a test creates is removed by that test; the image
stays, so the next run builds only what changed.
"""

from __future__ import annotations

import shutil
import subprocess
import time
from collections.abc import Iterator

import pytest

from pybroker.testing.containers import build_image, build_zookeeper_image, engine_env

#: the tag the tests build (``make image`` builds localhost/pybroker:dev)
TEST_IMAGE = "localhost/pybroker:test"
TEST_ZOOKEEPER_IMAGE = "localhost/pybroker-zookeeper:test"
PODMAN_MISSING = ("SKIPPED: podman is not installed: the image, compose and testcontainers "
                  "tests need it (make system-deps installs it)")


@pytest.fixture(scope="session")
def engine() -> str:
    if shutil.which("podman") is None:
        pytest.skip(PODMAN_MISSING)
    return "podman"


@pytest.fixture(scope="session")
def pybroker_image(engine: str) -> str:
    """The image, built from this checkout on the local Debian base image."""
    build = build_image(engine, TEST_IMAGE)
    print(f"\n{TEST_IMAGE}: built in {build.seconds:.1f}s, {build.size_bytes / 1e6:.0f} MB")
    return build.image


@pytest.fixture(scope="session")
def zookeeper_image(engine: str) -> str:
    """docker/zookeeper's image on the local Debian base (ZooKeeper 3.8 from Debian)."""
    build = build_zookeeper_image(engine, TEST_ZOOKEEPER_IMAGE)
    print(f"\n{TEST_ZOOKEEPER_IMAGE}: built in {build.seconds:.1f}s, "
          f"{build.size_bytes / 1e6:.0f} MB")
    return build.image


@pytest.fixture(scope="session")
def docker_api(engine: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """podman's Docker-compatible API on a unix socket of a temporary directory
    (``podman system service``, stopped by its pid when the session ends); its DOCKER_HOST."""
    socket_path = tmp_path_factory.mktemp("podman-api") / "podman.sock"
    log = open(socket_path.with_name("service.log"), "wb")  # noqa: SIM115 - closed below
    service = subprocess.Popen(
        [engine, "system", "service", "--time=0", f"unix://{socket_path}"],
        env=engine_env(engine), stdin=subprocess.DEVNULL, stdout=log, stderr=log)
    try:
        deadline = time.monotonic() + 30
        while not socket_path.exists():
            if service.poll() is not None or time.monotonic() > deadline:
                log.flush()
                pytest.fail("podman system service did not start:\n"
                            + socket_path.with_name("service.log").read_text())
            time.sleep(0.05)
        yield f"unix://{socket_path}"
    finally:
        service.terminate()
        try:
            service.wait(20)
        except subprocess.TimeoutExpired:
            service.kill()
            service.wait(10)
        log.close()
