"""``kafka-configs --entity-type groups`` of Kafka 4.1 (KIP-848's group configs), against
pybroker and against Apache Kafka 4.1 with the same commands: add configs, describe them (the
group's own and, with ``--all``, every group config with its source), delete one, and a value
out of the broker's bounds refused with Kafka's words. The outputs are compared whole, with the
group's name and the address written alike."""

from __future__ import annotations

import re
import uuid
from pathlib import Path

import pytest

from pybroker.compat.jvm_clients import KafkaCli
from pybroker.testing.broker_process import BrokerProcess
from pybroker.testing.reference_kafka4 import ReferenceKafka4

# a dozen JVM starts on each broker: in make test-long
pytestmark = [pytest.mark.compat, pytest.mark.long]


#: what the tools print of themselves (their logging set-up), not of the broker
_TOOL_NOISE = re.compile(r"SLF4J|^\d{4}-\d\d-\d\dT\S+ main (ERROR|WARN) ")


def session(bootstrap: str, lib: Path) -> list[tuple[str, int, str]]:
    """(what was asked, exit code, output with the group's name as GROUP) for each step."""
    group = f"cfg-{uuid.uuid4().hex[:8]}"
    cli = KafkaCli(bootstrap, lib)
    steps = {
        "describe, nothing set": ["--describe"],
        "add two": ["--alter", "--add-config",
                    "consumer.session.timeout.ms=20000,consumer.heartbeat.interval.ms=2000"],
        "describe": ["--describe"],
        "describe all": ["--describe", "--all"],
        "out of bounds": ["--alter", "--add-config", "consumer.session.timeout.ms=1000"],
        "unknown name": ["--alter", "--add-config", "consumer.session.timeout=1000"],
        "delete one": ["--alter", "--delete-config", "consumer.session.timeout.ms"],
        "describe after the delete": ["--describe"],
    }
    out = []
    for label, args in steps.items():
        run = cli.run_raw("kafka-configs", "--bootstrap-server", bootstrap, "--entity-type",
                          "groups", "--entity-name", group, *args)
        text = "\n".join(line for line in (run.stdout + run.stderr).splitlines()
                         if line.strip() and not _TOOL_NOISE.search(line))
        out.append((label, run.returncode,
                    text.replace(group, "GROUP").replace(bootstrap, "BOOTSTRAP")))
    return out


def test_kafka_configs_sets_and_describes_group_configs_alike(
        pybroker4: BrokerProcess, reference_kafka4: ReferenceKafka4, kafka4_lib: Path) -> None:
    ours = session(pybroker4.bootstrap, kafka4_lib)
    theirs = session(reference_kafka4.bootstrap, kafka4_lib)
    for mine, kafkas in zip(ours, theirs, strict=True):
        assert mine == kafkas, f"pybroker:\n{mine[2]}\nKafka 4.1:\n{kafkas[2]}"
    assert any("consumer.heartbeat.interval.ms=2000" in text for _, _, text in ours)
