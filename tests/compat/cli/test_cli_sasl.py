"""Kafka's own tools against a SASL_PLAINTEXT listener: ``kafka-configs`` manages SCRAM users
(``--add-config 'SCRAM-SHA-256=[iterations=8192,password=...]' --entity-type users``,
``--describe``, ``--delete-config``), and the tools (the Java client inside them) authenticate
with a client properties file carrying ``sasl.jaas.config``: PLAIN, SCRAM-SHA-256 and
SCRAM-SHA-512, and a wrong password refused with Kafka's message."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from pybroker.testing.broker_process import BrokerProcess, free_port
from tests.compat.cli.conftest import KafkaCli
from tests.compat.test_sasl import sasl_overrides

pytestmark = pytest.mark.compat

PLAIN_MODULE = "org.apache.kafka.common.security.plain.PlainLoginModule"
SCRAM_MODULE = "org.apache.kafka.common.security.scram.ScramLoginModule"


@pytest.fixture(scope="module")
def broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[BrokerProcess, str]]:
    port, sasl_port = free_port(), free_port()
    with BrokerProcess(tmp_path_factory.mktemp("cli-sasl") / "kafka-logs", port=port,
                       overrides=sasl_overrides(port, sasl_port)) as b:
        yield b, f"127.0.0.1:{sasl_port}"


@pytest.fixture(scope="module")
def admin_cli(kafka_tools_lib: Path, broker: tuple[BrokerProcess, str]) -> KafkaCli:
    """The tools on the PLAINTEXT listener, where the users are made."""
    return KafkaCli(broker[0].bootstrap, kafka_tools_lib)


def client_config(path: Path, mechanism: str, user: str, password: str) -> Path:
    module = PLAIN_MODULE if mechanism == "PLAIN" else SCRAM_MODULE
    path.write_text(
        "security.protocol=SASL_PLAINTEXT\n"
        f"sasl.mechanism={mechanism}\n"
        f'sasl.jaas.config={module} required username="{user}" password="{password}";\n')
    return path


def test_kafka_configs_manages_scram_users(admin_cli: KafkaCli) -> None:
    user = f"cli-{uuid.uuid4().hex[:6]}"
    entity = ("--entity-type", "users", "--entity-name", user)
    run = admin_cli.tool("kafka-configs", "--alter", "--add-config",
                         "SCRAM-SHA-256=[iterations=8192,password=p256],"
                         "SCRAM-SHA-512=[password=p512]", *entity)
    assert run.lines == [f"Completed updating config for user {user}."]
    run = admin_cli.tool("kafka-configs", "--describe", *entity)
    assert run.lines == [f"SCRAM credential configs for user-principal '{user}' are "
                         "SCRAM-SHA-256=iterations=8192, SCRAM-SHA-512=iterations=4096"]
    admin_cli.tool("kafka-configs", "--alter", "--delete-config", "SCRAM-SHA-512", *entity)
    run = admin_cli.tool("kafka-configs", "--describe", *entity)
    assert run.lines == [f"SCRAM credential configs for user-principal '{user}' are "
                         "SCRAM-SHA-256=iterations=8192"]
    refused = admin_cli.run_raw("kafka-configs", "--bootstrap-server", admin_cli.bootstrap,
                                "--alter", "--add-config",
                                "SCRAM-SHA-256=[iterations=20000,password=x]", *entity)
    assert refused.returncode != 0
    assert "Too many iterations" in refused.stdout + refused.stderr, refused.explain()


def tools_for(admin_cli: KafkaCli, broker: tuple[BrokerProcess, str], kafka_tools_lib: Path,
              tmp_path: Path, mechanism: str) -> tuple[KafkaCli, Path]:
    """The tools on the SASL listener, with a client config for a user of ``mechanism``."""
    if mechanism == "PLAIN":
        user, password = "alice", "alice-secret"
    else:
        user, password = f"u-{uuid.uuid4().hex[:6]}", "tool-secret"
        admin_cli.tool("kafka-configs", "--alter", "--add-config",
                       f"{mechanism}=[password={password}]", "--entity-type", "users",
                       "--entity-name", user)
    config = client_config(tmp_path / "client.properties", mechanism, user, password)
    return KafkaCli(broker[1], kafka_tools_lib), config


@pytest.mark.parametrize("mechanism", ["PLAIN", "SCRAM-SHA-512"])
def test_tools_authenticate(admin_cli: KafkaCli, broker: tuple[BrokerProcess, str],
                            kafka_tools_lib: Path, tmp_path: Path, mechanism: str) -> None:
    cli, config = tools_for(admin_cli, broker, kafka_tools_lib, tmp_path, mechanism)
    topic = f"sasl-cli-{mechanism.lower()}-{uuid.uuid4().hex[:6]}"
    cli.tool("kafka-topics", "--command-config", str(config), "--create", "--topic", topic,
             "--partitions", "1")
    run = cli.tool("kafka-topics", "--command-config", str(config), "--list")
    assert topic in run.lines, run.explain()


def test_console_tools_move_records_with_scram(admin_cli: KafkaCli,
                                               broker: tuple[BrokerProcess, str],
                                               kafka_tools_lib: Path, tmp_path: Path) -> None:
    cli, config = tools_for(admin_cli, broker, kafka_tools_lib, tmp_path, "SCRAM-SHA-256")
    topic = f"sasl-console-{uuid.uuid4().hex[:6]}"
    cli.tool("kafka-console-producer", "--producer.config", str(config), "--topic", topic,
             stdin="one\ntwo\n")
    run = cli.tool("kafka-console-consumer", "--consumer.config", str(config), "--topic", topic,
                   "--from-beginning", "--max-messages", "2", "--timeout-ms", "20000")
    assert run.lines == ["one", "two"], run.explain()


def test_wrong_password_is_refused_with_kafkas_message(broker: tuple[BrokerProcess, str],
                                                       kafka_tools_lib: Path,
                                                       tmp_path: Path) -> None:
    config = client_config(tmp_path / "client.properties", "PLAIN", "alice", "wrong")
    cli = KafkaCli(broker[1], kafka_tools_lib)
    run = cli.run_raw("kafka-topics", "--bootstrap-server", broker[1], "--command-config",
                      str(config), "--list")
    assert run.returncode != 0
    assert "Authentication failed: Invalid username or password" in run.stdout + run.stderr, \
        run.explain()
