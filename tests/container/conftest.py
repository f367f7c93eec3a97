"""Fixtures of the container tests: the engine (podman: these tests run where there is no Docker
engine, and use only what Docker has too) and the image built from docker/Dockerfile once per
session. Every container, volume and network a test creates is removed by that test; the image
stays, so the next run builds only what changed.
"""

from __future__ import annotations

import shutil

import pytest

from pybroker.testing.containers import build_image, build_zookeeper_image

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
