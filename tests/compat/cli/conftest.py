"""Fixtures that run Apache Kafka's own command-line tools against pybroker.

``scripts/kafka-tools-deps.sh`` puts the jars of ``kafka_2.13`` and ``kafka-tools`` under
``.cache/kafka-tools/<version>/lib`` (once; it does nothing when the cache is current). Each tool
then runs in a JVM of its own through its main class, which is what ``bin/kafka-topics.sh`` and
friends do via ``kafka-run-class.sh``; there is no Kafka distribution on disk. The classes that
run them are the compatibility suite's (:mod:`pybroker.compat.jvm_clients`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from pybroker.compat.jvm_clients import (  # noqa: F401 - the tests import them from here
    MAIN_CLASSES,
    KafkaCli as _KafkaCli,
    ToolRun,
    tool_jvm_flags,
)
from pybroker.testing.broker_process import BrokerProcess

CLI_DIR = Path(__file__).resolve().parent
LOG4J_CONFIG = CLI_DIR / "tools-log4j.properties"

#: each JVM lives for one command: skip the optimising compiler and the parallel collector;
#: no hsperfdata file (when one with the same pid is held by another JVM, the JVM warns on
#: stderr, which the side-by-side comparison would see); log4j (reload4j) gets a config that
#: sends warnings to stderr and keeps stdout for the tool
JVM_FLAGS = tool_jvm_flags(LOG4J_CONFIG)


@dataclass(frozen=True)
class KafkaCli(_KafkaCli):
    """Kafka's CLI tools (:class:`pybroker.compat.jvm_clients.KafkaCli`) with this folder's
    log4j configuration; a failed tool fails the test (``ToolFailed`` is an AssertionError)."""

    log4j: Path | None = LOG4J_CONFIG


@pytest.fixture(scope="module")
def cli(kafka_tools_lib: Path, module_broker: BrokerProcess) -> KafkaCli:
    """The tools, with the bootstrap address of this module's broker."""
    return KafkaCli(module_broker.bootstrap, kafka_tools_lib)
