"""Fixtures that run the Apache Kafka Java clients against pybroker.

The clients are driven by ``src/ClientDriver.java`` in a JVM of its own per call: the driver
prints one JSON object per line, which :meth:`JavaClient.run` parses (the classes that run it
are the compatibility suite's, :mod:`pybroker.compat.jvm_clients`). ``scripts/java-deps.sh``
puts the jars of every version in ``versions.txt`` (and the compiled driver) under
``.cache/java/<version>/``; it runs once per test session and does nothing when the cache is
current.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from pybroker.compat.jvm_clients import (  # noqa: F401 - the tests import them from here
    JVM_FLAGS,
    DriverRun,
    JavaClient,
    ProduceRecord,
    b64_field,
    java_versions,
    unb64,
)
from pybroker.testing.broker_process import REPO_ROOT
from tests.compat.maven_jars import fetch_or_skip

CACHE = REPO_ROOT / ".cache" / "java"
DEPS_SCRIPT = REPO_ROOT / "scripts" / "java-deps.sh"
TOOLS = ("java", "javac", "mvn")
#: the kafka-clients releases under test, from ``versions.txt``
CLIENT_VERSIONS = java_versions()


@pytest.fixture(scope="session")
def java_clients() -> Callable[[str], JavaClient]:
    """``java_clients(version)``: the Java clients of that release, fetched and compiled once."""
    fetch_or_skip(DEPS_SCRIPT, *CLIENT_VERSIONS, tools=TOOLS, needed_for="Java client tests")

    def for_version(version: str) -> JavaClient:
        home = CACHE / version
        if not (home / "classes" / "ClientDriver.class").exists():
            pytest.fail(f"no compiled driver in {home}: run scripts/java-deps.sh {version}")
        return JavaClient(version, home)

    return for_version


@pytest.fixture(params=CLIENT_VERSIONS, ids=lambda v: f"java-{v}")
def java_client(request: pytest.FixtureRequest, java_clients: Callable[[str], JavaClient]) -> JavaClient:
    """The Java clients, once for each release in ``versions.txt``."""
    return java_clients(request.param)
