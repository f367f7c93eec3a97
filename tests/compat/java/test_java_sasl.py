"""The Java clients (each release in ``versions.txt``) over SASL_PLAINTEXT: a producer and a
group consumer authenticate with SCRAM-SHA-512 and PLAIN through ``sasl.jaas.config``; a wrong
password fails the producer with Kafka's SaslAuthenticationException and message."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

from pybroker.testing.broker_process import BrokerProcess, free_port
from tests.compat.java.conftest import JavaClient, ProduceRecord, unb64
from tests.compat.test_sasl import sasl_overrides

MODULES = {"PLAIN": "org.apache.kafka.common.security.plain.PlainLoginModule",
           "SCRAM-SHA-512": "org.apache.kafka.common.security.scram.ScramLoginModule"}
USERS = {"PLAIN": ("alice", "alice-secret"), "SCRAM-SHA-512": ("java512", "java-secret")}


@pytest.fixture(scope="module")
def sasl_bootstrap(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    port, sasl_port = free_port(), free_port()
    with BrokerProcess(tmp_path_factory.mktemp("java-sasl") / "kafka-logs", port=port,
                       overrides=sasl_overrides(port, sasl_port)) as broker:
        from confluent_kafka.admin import (
            AdminClient,
            ScramCredentialInfo,
            ScramMechanism,
            UserScramCredentialUpsertion,
        )
        admin = AdminClient({"bootstrap.servers": broker.bootstrap})
        upsert = UserScramCredentialUpsertion(
            "java512", ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 4096), b"java-secret")
        admin.alter_user_scram_credentials([upsert])["java512"].result(timeout=30)
        yield f"127.0.0.1:{sasl_port}"


def sasl_config(mechanism: str, user: str, password: str) -> list[str]:
    jaas = f'{MODULES[mechanism]} required username="{user}" password="{password}";'
    return ["--config", "security.protocol=SASL_PLAINTEXT",
            "--config", f"sasl.mechanism={mechanism}",
            "--config", f"sasl.jaas.config={jaas}"]


@pytest.mark.parametrize("mechanism", ["PLAIN", "SCRAM-SHA-512"])
def test_java_producer_and_group_consumer(java_client: JavaClient, sasl_bootstrap: str,
                                          mechanism: str) -> None:
    config = sasl_config(mechanism, *USERS[mechanism])
    topic = f"java-sasl-{uuid.uuid4().hex[:6]}"
    records = [ProduceRecord(key=b"k%d" % i, value=b"v%d" % i) for i in range(5)]
    java_client.produce(sasl_bootstrap, topic, records, *config)
    lines = java_client.run("consume-group", "--bootstrap", sasl_bootstrap, "--topic", topic,
                            "--group", f"g-{topic}", "--count", "5", "--timeout-ms", "30000",
                            *config)
    values = sorted(unb64(line["value"]) for line in lines if "value" in line)
    assert values == [b"v%d" % i for i in range(5)]


def test_java_wrong_password(java_client: JavaClient, sasl_bootstrap: str) -> None:
    run = java_client.run_raw("produce", "--bootstrap", sasl_bootstrap, "--topic", "t",
                              "--count", "1", *sasl_config("SCRAM-SHA-512", "java512", "nope"))
    assert run.returncode != 0
    text = run.stdout + run.stderr
    assert "SaslAuthenticationException" in text, run.explain()
    assert ("Authentication failed during authentication due to invalid credentials with SASL "
            "mechanism SCRAM-SHA-512") in text, run.explain()
