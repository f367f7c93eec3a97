"""The Java clients (each release in ``versions.txt``) over SASL_PLAINTEXT and SASL_SSL: a
producer and a group consumer authenticate with SCRAM-SHA-512, SCRAM-SHA-256 and PLAIN through
``sasl.jaas.config``; over SASL_SSL they trust the test CA as PEM (``ssl.truststore.type=PEM``
with a file, or the certificates inline). A wrong password fails the producer with Kafka's
SaslAuthenticationException and message. One broker serves the whole module."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from pybroker.testing.broker_process import BrokerProcess, free_port
from pybroker.testing.certs import CertificateAuthority
from tests.compat.java.conftest import JavaClient, ProduceRecord, unb64
from tests.compat.test_sasl import sasl_overrides, with_sasl_ssl_listener

MODULES = {"PLAIN": "org.apache.kafka.common.security.plain.PlainLoginModule",
           "SCRAM-SHA-256": "org.apache.kafka.common.security.scram.ScramLoginModule",
           "SCRAM-SHA-512": "org.apache.kafka.common.security.scram.ScramLoginModule"}
USERS = {"PLAIN": ("alice", "alice-secret"), "SCRAM-SHA-256": ("java256", "java256-secret"),
         "SCRAM-SHA-512": ("java512", "java-secret")}


@dataclass(frozen=True)
class Listeners:
    """The module's broker: a SASL_PLAINTEXT and a SASL_SSL listener, and the CA the SASL_SSL
    one's certificate comes from (``ca_file``: its PEM)."""

    sasl_plaintext: str
    sasl_ssl: str
    ca: CertificateAuthority
    ca_file: Path


@pytest.fixture(scope="module")
def listeners(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Listeners]:
    tmp = tmp_path_factory.mktemp("java-sasl")
    ca = CertificateAuthority.create()
    port, sasl_port, ssl_port = free_port(), free_port(), free_port()
    overrides = with_sasl_ssl_listener(sasl_overrides(port, sasl_port), ssl_port, ca,
                                       ca.issue("CN=broker,O=pybroker"))
    with BrokerProcess(tmp / "kafka-logs", port=port, overrides=overrides) as broker:
        from confluent_kafka.admin import (
            AdminClient,
            ScramCredentialInfo,
            ScramMechanism,
            UserScramCredentialUpsertion,
        )
        admin = AdminClient({"bootstrap.servers": broker.bootstrap})
        upserts = [UserScramCredentialUpsertion(
            USERS[mech][0], ScramCredentialInfo(getattr(ScramMechanism, mech.replace("-", "_")),
                                                4096), USERS[mech][1].encode())
            for mech in ("SCRAM-SHA-256", "SCRAM-SHA-512")]
        for fut in admin.alter_user_scram_credentials(upserts).values():
            fut.result(timeout=30)
        yield Listeners(f"127.0.0.1:{sasl_port}", f"127.0.0.1:{ssl_port}", ca, ca.write(tmp))


@pytest.fixture
def sasl_bootstrap(listeners: Listeners) -> str:
    return listeners.sasl_plaintext


def sasl_config(mechanism: str, user: str, password: str,
                protocol: str = "SASL_PLAINTEXT") -> list[str]:
    jaas = f'{MODULES[mechanism]} required username="{user}" password="{password}";'
    return ["--config", f"security.protocol={protocol}",
            "--config", f"sasl.mechanism={mechanism}",
            "--config", f"sasl.jaas.config={jaas}"]


def produce_and_consume_in_group(java_client: JavaClient, bootstrap: str, prefix: str,
                                 config: list[str]) -> None:
    topic = f"{prefix}-{uuid.uuid4().hex[:6]}"
    records = [ProduceRecord(key=b"k%d" % i, value=b"v%d" % i) for i in range(5)]
    java_client.produce(bootstrap, topic, records, *config)
    lines = java_client.run("consume-group", "--bootstrap", bootstrap, "--topic", topic,
                            "--group", f"g-{topic}", "--count", "5", "--timeout-ms", "30000",
                            *config)
    values = sorted(unb64(line["value"]) for line in lines if "value" in line)
    assert values == [b"v%d" % i for i in range(5)]


@pytest.mark.parametrize("mechanism", ["PLAIN", "SCRAM-SHA-512"])
def test_java_producer_and_group_consumer(java_client: JavaClient, sasl_bootstrap: str,
                                          mechanism: str) -> None:
    produce_and_consume_in_group(java_client, sasl_bootstrap, "java-sasl",
                                 sasl_config(mechanism, *USERS[mechanism]))


@pytest.mark.parametrize(("mechanism", "truststore"), [("SCRAM-SHA-512", "location"),
                                                       ("SCRAM-SHA-256", "inline")])
def test_java_producer_and_group_consumer_over_sasl_ssl(java_client: JavaClient,
                                                        listeners: Listeners, mechanism: str,
                                                        truststore: str) -> None:
    """The Java clients verify the broker's certificate (against the test CA, host name
    included: ``ssl.endpoint.identification.algorithm`` is ``https`` by default) and then
    authenticate with SCRAM inside the TLS session."""
    trust = (["--config", f"ssl.truststore.location={listeners.ca_file}"]
             if truststore == "location" else
             ["--config", f"ssl.truststore.certificates={listeners.ca.cert_pem}"])
    config = [*sasl_config(mechanism, *USERS[mechanism], protocol="SASL_SSL"),
              "--config", "ssl.truststore.type=PEM", *trust]
    produce_and_consume_in_group(java_client, listeners.sasl_ssl, "java-sasl-ssl", config)


def test_java_wrong_password(java_client: JavaClient, sasl_bootstrap: str) -> None:
    run = java_client.run_raw("produce", "--bootstrap", sasl_bootstrap, "--topic", "t",
                              "--count", "1", *sasl_config("SCRAM-SHA-512", "java512", "nope"))
    assert run.returncode != 0
    text = run.stdout + run.stderr
    assert "SaslAuthenticationException" in text, run.explain()
    assert ("Authentication failed during authentication due to invalid credentials with SASL "
            "mechanism SCRAM-SHA-512") in text, run.explain()
