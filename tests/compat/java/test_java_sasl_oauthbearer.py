"""The Java clients (each release in ``versions.txt``) with SASL/OAUTHBEARER: Kafka's
``OAuthBearerLoginModule`` with its unsecured login (``unsecuredLoginStringClaim_sub``) on the
unsecured listener, and KIP-768's ``OAuthBearerLoginCallbackHandler`` reading a signed JWT from
a file (``sasl.oauthbearer.token.endpoint.url``, allowed by the
``org.apache.kafka.sasl.oauthbearer.allowed.urls`` system property) on the listener that checks signatures against
a JWKS file. The broker (and its ACLs) is ``tests/compat/test_sasl_oauthbearer.py``'s."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from tests.compat.java.conftest import JavaClient, ProduceRecord, unb64
from tests.compat.test_sasl_oauthbearer import OAuthBroker, oauth_broker, signed_token

__all__ = ["oauth_broker"]

LOGIN_MODULE = "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule"
LOGIN_HANDLER = "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler"


def oauth_config(jaas_options: str = "", **extra: str) -> list[str]:
    config = ["--config", "security.protocol=SASL_PLAINTEXT",
              "--config", "sasl.mechanism=OAUTHBEARER",
              "--config", f"sasl.jaas.config={LOGIN_MODULE} required {jaas_options};"]
    for key, value in extra.items():
        config += ["--config", f"{key}={value}"]
    return config


def produce_and_consume(java_client: JavaClient, bootstrap: str, user: str,
                        config: list[str]) -> None:
    topic = f"{user}-java-{uuid.uuid4().hex[:6]}"  # the user's ACLs cover it
    marker = uuid.uuid4().hex[:8].encode()
    records = [ProduceRecord(key=b"k%d" % i, value=marker + b"%d" % i) for i in range(3)]
    java_client.produce(bootstrap, topic, records, *config)
    lines = java_client.run("consume-group", "--bootstrap", bootstrap, "--topic", topic,
                            "--group", f"{user}-g-{uuid.uuid4().hex[:6]}", "--count", "3",
                            "--timeout-ms", "30000", *config)
    values = {unb64(line["value"]) for line in lines if "value" in line}
    assert values == {marker + b"%d" % i for i in range(3)}


def test_java_unsecured_login(java_client: JavaClient, oauth_broker: OAuthBroker) -> None:
    produce_and_consume(java_client, oauth_broker.unsecured, "alice",
                        oauth_config('unsecuredLoginStringClaim_sub="alice"'))


def test_java_signed_token_from_a_file(java_client: JavaClient, oauth_broker: OAuthBroker,
                                       tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    token = tmp_path / "token.jwt"
    # kafka-clients 3.9.1 and later read only the URLs this system property allows
    monkeypatch.setenv("JAVA_TOOL_OPTIONS",
                       f"-Dorg.apache.kafka.sasl.oauthbearer.allowed.urls={token.as_uri()}")
    token.write_text(signed_token(oauth_broker.key))
    config = oauth_config(**{"sasl.login.callback.handler.class": LOGIN_HANDLER,
                             "sasl.oauthbearer.token.endpoint.url": token.as_uri()})
    produce_and_consume(java_client, oauth_broker.jwt_file, "carol", config)
