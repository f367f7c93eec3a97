"""Kafka's own tools against SASL_PLAINTEXT and SASL_SSL listeners: ``kafka-configs`` manages
SCRAM users (``--add-config 'SCRAM-SHA-256=[iterations=8192,password=...]' --entity-type users``,
``--describe``, ``--delete-config``), and the tools (the Java client inside them) authenticate
with a client properties file carrying ``sasl.jaas.config``: PLAIN, SCRAM-SHA-256 and
SCRAM-SHA-512, and a wrong password refused with Kafka's message. Over SASL_SSL the whole round
goes through the TLS listener: an admin (a PLAIN user of the listener's JAAS config) adds a
SCRAM user, who then creates and lists a topic and moves records with the console tools; the
properties file trusts the test CA as a PEM file. ``kafka-delegation-tokens`` creates,
describes, renews and expires a delegation token (KIP-48) that the tools then authenticate with
(SCRAM, ``tokenauth="true"``). One broker serves the whole module."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from pybroker.testing.broker_process import BrokerProcess, free_port
from pybroker.testing.certs import CertificateAuthority
from tests.compat.cli.conftest import KafkaCli
from tests.compat.test_sasl import sasl_overrides, with_sasl_ssl_listener

pytestmark = pytest.mark.compat

PLAIN_MODULE = "org.apache.kafka.common.security.plain.PlainLoginModule"
SCRAM_MODULE = "org.apache.kafka.common.security.scram.ScramLoginModule"


@dataclass(frozen=True)
class SaslSsl:
    """The broker's SASL_SSL listener and the PEM file of the CA its certificate comes from."""

    bootstrap: str
    ca_file: Path


@pytest.fixture(scope="module")
def listeners(tmp_path_factory: pytest.TempPathFactory
              ) -> Iterator[tuple[BrokerProcess, str, SaslSsl]]:
    tmp = tmp_path_factory.mktemp("cli-sasl")
    ca = CertificateAuthority.create()
    port, sasl_port, ssl_port = free_port(), free_port(), free_port()
    overrides = with_sasl_ssl_listener(sasl_overrides(port, sasl_port), ssl_port, ca,
                                       ca.issue("CN=broker,O=pybroker"))
    overrides["delegation.token.secret.key"] = "cli-token-secret"
    with BrokerProcess(tmp / "kafka-logs", port=port, overrides=overrides) as b:
        yield b, f"127.0.0.1:{sasl_port}", SaslSsl(f"127.0.0.1:{ssl_port}", ca.write(tmp))


@pytest.fixture(scope="module")
def broker(listeners: tuple[BrokerProcess, str, SaslSsl]) -> tuple[BrokerProcess, str]:
    return listeners[0], listeners[1]


@pytest.fixture(scope="module")
def sasl_ssl(listeners: tuple[BrokerProcess, str, SaslSsl]) -> SaslSsl:
    return listeners[2]


@pytest.fixture(scope="module")
def admin_cli(kafka_tools_lib: Path, broker: tuple[BrokerProcess, str]) -> KafkaCli:
    """The tools on the PLAINTEXT listener, where the users are made."""
    return KafkaCli(broker[0].bootstrap, kafka_tools_lib)


def client_config(path: Path, mechanism: str, user: str, password: str,
                  ca_file: Path | None = None) -> Path:
    """A client properties file; with ``ca_file``, for SASL_SSL trusting that PEM file."""
    module = PLAIN_MODULE if mechanism == "PLAIN" else SCRAM_MODULE
    tls = ("security.protocol=SASL_SSL\nssl.truststore.type=PEM\n"
           f"ssl.truststore.location={ca_file}\n") if ca_file else ""
    path.write_text(
        (tls or "security.protocol=SASL_PLAINTEXT\n") +
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


# -- SASL_SSL --------------------------------------------------------------------------------

def test_scram_user_made_and_used_over_sasl_ssl(sasl_ssl: SaslSsl, kafka_tools_lib: Path,
                                                 tmp_path: Path) -> None:
    cli = KafkaCli(sasl_ssl.bootstrap, kafka_tools_lib)
    admin = client_config(tmp_path / "admin.properties", "PLAIN", "admin", "admin-secret",
                          sasl_ssl.ca_file)
    user = f"tls-{uuid.uuid4().hex[:6]}"
    run = cli.tool("kafka-configs", "--command-config", str(admin), "--alter", "--add-config",
                   "SCRAM-SHA-512=[iterations=8192,password=tls-secret]", "--entity-type",
                   "users", "--entity-name", user)
    assert run.lines == [f"Completed updating config for user {user}."], run.explain()

    config = client_config(tmp_path / "client.properties", "SCRAM-SHA-512", user, "tls-secret",
                           sasl_ssl.ca_file)
    topic = f"sasl-ssl-{uuid.uuid4().hex[:6]}"
    cli.tool("kafka-topics", "--command-config", str(config), "--create", "--topic", topic,
             "--partitions", "1")
    run = cli.tool("kafka-topics", "--command-config", str(config), "--list")
    assert topic in run.lines, run.explain()
    cli.tool("kafka-console-producer", "--producer.config", str(config), "--topic", topic,
             stdin="one\ntwo\n")
    run = cli.tool("kafka-console-consumer", "--consumer.config", str(config), "--topic", topic,
                   "--group", f"g-{topic}", "--from-beginning", "--max-messages", "2",
                   "--timeout-ms", "20000")
    assert run.lines == ["one", "two"], run.explain()

    wrong = client_config(tmp_path / "wrong.properties", "SCRAM-SHA-512", user, "nope",
                          sasl_ssl.ca_file)
    run = cli.run_raw("kafka-topics", "--bootstrap-server", sasl_ssl.bootstrap,
                      "--command-config", str(wrong), "--list")
    assert run.returncode != 0
    assert ("Authentication failed during authentication due to invalid credentials with SASL "
            "mechanism SCRAM-SHA-512") in run.stdout + run.stderr, run.explain()


# -- delegation tokens -----------------------------------------------------------------------

def token_config(path: Path, token_id: str, hmac: str) -> Path:
    """A client properties file authenticating with a delegation token, as Kafka documents it:
    SCRAM, the token id as username, its HMAC as password and ``tokenauth="true"``."""
    path.write_text("security.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-512\n"
                    f'sasl.jaas.config={SCRAM_MODULE} required username="{token_id}" '
                    f'password="{hmac}" tokenauth="true";\n')
    return path


def test_kafka_delegation_tokens_end_to_end(broker: tuple[BrokerProcess, str],
                                            kafka_tools_lib: Path, tmp_path: Path) -> None:
    cli = KafkaCli(broker[1], kafka_tools_lib)
    alice = client_config(tmp_path / "alice.properties", "PLAIN", "alice", "alice-secret")
    run = cli.tool("kafka-delegation-tokens", "--command-config", str(alice), "--create",
                   "--max-life-time-period", "-1", "--renewer-principal", "User:admin")
    assert run.lines[0] == ("Calling create token operation with renewers :[User:admin] , "
                            "max-life-time-period :-1"), run.explain()
    token_id = run.lines[1].removeprefix("Created delegation token with tokenId : ")
    assert len(token_id) == 22, run.explain()
    assert run.lines[2].split() == ["TOKENID", "HMAC", "OWNER", "REQUESTER", "RENEWERS",
                                    "ISSUEDATE", "EXPIRYDATE", "MAXDATE"], run.explain()
    row = run.lines[3].split()
    assert row[0] == token_id and row[2:5] == ["User:alice", "User:alice", "[User:admin]"], \
        run.explain()
    hmac = row[1]

    # Kafka 3.9's tool sends an empty owner list without --owner-principal, which Kafka
    # answers with no tokens (test_delegation_tokens_answer_alike compares that)
    run = cli.tool("kafka-delegation-tokens", "--command-config", str(alice), "--describe")
    assert run.lines[:2] == ["Calling describe token operation for current user.",
                             "Total number of tokens : 0"], run.explain()
    run = cli.tool("kafka-delegation-tokens", "--command-config", str(alice), "--describe",
                   "--owner-principal", "User:alice")
    assert run.lines[0] == "Calling describe token operation for owners: [User:alice]", \
        run.explain()
    assert any(line.split()[:2] == [token_id, hmac] for line in run.lines), run.explain()

    # the tools authenticate with the token, as its owner
    token = token_config(tmp_path / "token.properties", token_id, hmac)
    topic = f"token-{uuid.uuid4().hex[:6]}"
    cli.tool("kafka-topics", "--command-config", str(token), "--create", "--topic", topic,
             "--partitions", "1")
    cli.tool("kafka-console-producer", "--producer.config", str(token), "--topic", topic,
             stdin="one\ntwo\n")
    run = cli.tool("kafka-console-consumer", "--consumer.config", str(token), "--topic", topic,
                   "--from-beginning", "--max-messages", "2", "--timeout-ms", "20000")
    assert run.lines == ["one", "two"], run.explain()
    # ...but may not ask for tokens with one
    refused = cli.run_raw("kafka-delegation-tokens", "--bootstrap-server", cli.bootstrap,
                          "--command-config", str(token), "--describe")
    assert refused.returncode != 0
    assert "DelegationTokenDisabledException" not in refused.stdout + refused.stderr
    assert ("Delegation Token requests are not allowed on PLAINTEXT/1-way SSL channels and on "
            "delegation token authenticated channels.") in refused.stdout + refused.stderr, \
        refused.explain()

    # a renewer renews it; its owner expires it, and it no longer authenticates
    admin = client_config(tmp_path / "admin.properties", "PLAIN", "admin", "admin-secret")
    run = cli.tool("kafka-delegation-tokens", "--command-config", str(admin), "--renew",
                   "--hmac", hmac, "--renew-time-period", "3600000")
    assert run.lines[0] == (f"Calling renew token operation with hmac :{hmac} , "
                            "renew-time-period :3600000"), run.explain()
    assert run.lines[1].startswith("Completed renew operation. New expiry date : "), \
        run.explain()
    run = cli.tool("kafka-delegation-tokens", "--command-config", str(alice), "--expire",
                   "--hmac", hmac, "--expiry-time-period", "-1")
    assert run.lines[1].startswith("Completed expire operation. New expiry date : "), \
        run.explain()
    run = cli.tool("kafka-delegation-tokens", "--command-config", str(alice), "--describe",
                   "--owner-principal", "User:alice")
    assert "Total number of tokens : 0" in run.stdout and token_id not in run.stdout, \
        run.explain()
    failed = cli.run_raw("kafka-topics", "--bootstrap-server", cli.bootstrap, "--command-config",
                         str(token), "--list")
    assert failed.returncode != 0
    assert ("Authentication failed during authentication due to invalid credentials with SASL "
            "mechanism SCRAM-SHA-512") in failed.stdout + failed.stderr, failed.explain()
