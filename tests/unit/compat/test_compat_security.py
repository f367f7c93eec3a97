"""The compatibility suite's secured-broker settings and its own SASL client side (pure)."""

from __future__ import annotations

import pytest

from pybroker.compat.cli import build_parser, security_from_args
from pybroker.compat.scenarios.security import principal
from pybroker.compat.security import (
    AuthenticationError,
    ClientSecurity,
    ScramClient,
    plain_token,
)
from tests.unit.security.helpers import (  # RFC 7677's SCRAM-SHA-256 example
    RFC_CLIENT_FINAL as CLIENT_FINAL,
    RFC_NONCE as NONCE,
    RFC_SERVER_FINAL as SERVER_FINAL,
    RFC_SERVER_FIRST as SERVER_FIRST,
)


def test_scram_client_follows_rfc_7677() -> None:
    client = ScramClient("SCRAM-SHA-256", "user", "pencil", nonce=NONCE)
    assert client.first() == b"n,,n=user,r=" + NONCE.encode()
    assert client.final(SERVER_FIRST) == CLIENT_FINAL
    client.verify(SERVER_FINAL)


def test_scram_client_rejects_a_wrong_server_signature_or_nonce() -> None:
    client = ScramClient("SCRAM-SHA-256", "user", "pencil", nonce=NONCE)
    client.final(SERVER_FIRST)
    with pytest.raises(AuthenticationError):
        client.verify(b"v=AAAA")
    other = ScramClient("SCRAM-SHA-256", "user", "pencil", nonce="another-nonce")
    with pytest.raises(AuthenticationError):
        other.final(SERVER_FIRST)


def test_scram_escapes_the_user_name() -> None:
    client = ScramClient("SCRAM-SHA-512", "a=b,c", "p", nonce="n")
    assert client.first() == b"n,,n=a=3Db=2Cc,r=n"


def test_plain_token() -> None:
    assert plain_token("alice", "secret") == b"\0alice\0secret"


def test_plaintext_gives_the_libraries_nothing_more() -> None:
    s = ClientSecurity()
    assert (s.kafka_python(), s.aiokafka(), s.confluent()) == ({}, {}, {})
    assert not s.sasl and not s.tls and not s.credentials


def test_sasl_ssl_settings_of_each_library(tmp_path) -> None:
    s = ClientSecurity("SASL_SSL", "SCRAM-SHA-512", "u", "p", cafile=None,
                       properties=(("socket.timeout.ms", "9000"),))
    kp = s.kafka_python()
    assert kp["security_protocol"] == "SASL_SSL" and kp["sasl_mechanism"] == "SCRAM-SHA-512"
    assert (kp["sasl_plain_username"], kp["sasl_plain_password"]) == ("u", "p")
    assert "ssl_context" in kp and "ssl_context" in s.aiokafka()
    assert s.confluent() == {"security.protocol": "SASL_SSL", "sasl.mechanism": "SCRAM-SHA-512",
                             "sasl.username": "u", "sasl.password": "p",
                             "socket.timeout.ms": "9000"}
    assert ClientSecurity.from_json(s.to_json()) == s
    assert ClientSecurity.from_json(None) == ClientSecurity()
    assert s.with_sasl(mechanism="PLAIN", password="q") == ClientSecurity(
        "SASL_SSL", "PLAIN", "u", "q", properties=s.properties)


@pytest.mark.parametrize("kwargs", [
    {"protocol": "SASL_SOMETHING"}, {"mechanism": "GSSAPI"}, {"username": "only-a-user"},
])
def test_wrong_settings_are_refused(kwargs) -> None:
    with pytest.raises(ValueError):
        ClientSecurity(**kwargs)


def _args(*argv: str):
    return build_parser().parse_args(["--bootstrap", "127.0.0.1:9092", *argv])


def test_options_make_the_settings(tmp_path, monkeypatch) -> None:
    ca = tmp_path / "ca.pem"
    s = security_from_args(_args("--security-protocol", "SASL_SSL", "--sasl-mechanism",
                                 "SCRAM-SHA-256", "--sasl-username", "alice",
                                 "--sasl-password", "pw", "--ssl-cafile", str(ca),
                                 "--client-property", "client.rack=r1"))
    assert s == ClientSecurity("SASL_SSL", "SCRAM-SHA-256", "alice", "pw", str(ca.resolve()),
                               (("client.rack", "r1"),))
    monkeypatch.setenv("PYBROKER_COMPAT_SASL_PASSWORD", "from-env")
    s = security_from_args(_args("--security-protocol", "SASL_PLAINTEXT",
                                 "--sasl-username", "bob"))
    assert s.password == "from-env"
    assert security_from_args(_args()) == ClientSecurity()


@pytest.mark.parametrize("argv", [
    ("--client-property", "no-equals-sign"),
    ("--sasl-username", "u", "--sasl-password", "p"),  # not a SASL protocol
])
def test_wrong_options_are_refused(argv) -> None:
    with pytest.raises(ValueError):
        security_from_args(_args(*argv))


def test_principal_of_the_run() -> None:
    assert principal(ClientSecurity()) == "User:ANONYMOUS"
    assert principal(ClientSecurity("SSL")) == "User:ANONYMOUS"
    assert principal(ClientSecurity("SASL_PLAINTEXT", "PLAIN", "alice", "x")) == "User:alice"


def test_java_properties() -> None:
    assert ClientSecurity().java_properties() == {}
    s = ClientSecurity("SASL_SSL", "SCRAM-SHA-256", 'a"b', "p\\q", cafile="/ca.pem",
                       properties=(("client.rack", "r1"),))
    assert s.java_properties() == {
        "security.protocol": "SASL_SSL", "ssl.truststore.type": "PEM",
        "ssl.truststore.location": "/ca.pem", "sasl.mechanism": "SCRAM-SHA-256",
        "sasl.jaas.config": 'org.apache.kafka.common.security.scram.ScramLoginModule required '
                            'username="a\\"b" password="p\\\\q";',
        "client.rack": "r1"}
    plain = ClientSecurity("SASL_PLAINTEXT", "PLAIN", "u", "p").java_properties()
    assert plain["sasl.jaas.config"].startswith(
        "org.apache.kafka.common.security.plain.PlainLoginModule required")


def test_the_card_says_how_the_run_connected_without_the_password() -> None:
    assert ClientSecurity().describe() == "PLAINTEXT"
    s = ClientSecurity("SASL_SSL", "SCRAM-SHA-512", "alice", "secret", cafile="/ca.pem",
                       properties=(("client.rack", "r1"),))
    assert s.describe() == ("SASL_SSL, SCRAM-SHA-512 as alice, CA certificates from /ca.pem, "
                            "client properties client.rack")
    assert "secret" not in s.describe()
    assert ClientSecurity("SSL").describe() == "SSL, the system's CA certificates"
