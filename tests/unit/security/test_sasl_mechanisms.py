"""SCRAM (RFC 5802/7677), PLAIN (RFC 4616) and Kafka's JAAS text, as the broker's server side
runs them."""

from __future__ import annotations

import base64

import pytest

from pybroker.security.jaas import (
    JaasConfigError,
    login_credentials,
    parse_jaas_config,
    plain_users,
)
from pybroker.security.plain import PlainServer, plain_message, users_check
from pybroker.security.sasl_errors import SaslFailure
from pybroker.security.scram import (
    SCRAM_SHA_256,
    SCRAM_SHA_512,
    ScramClient,
    ScramCredential,
    ScramServer,
    new_credential,
    parse_client_first,
)
from tests.unit.security.helpers import (
    RFC_CLIENT_FINAL,
    RFC_CLIENT_FIRST,
    RFC_SALT,
    RFC_SERVER_FINAL,
    RFC_SERVER_FIRST,
)


def _server(credentials: dict[str, ScramCredential], mechanism=SCRAM_SHA_256,
            nonce: str = "srv") -> ScramServer:
    return ScramServer(mechanism, lambda user, mech: credentials.get(user)
                       if mech is mechanism else None, nonce=lambda: nonce)


def test_rfc7677_exchange_server_side() -> None:
    cred = new_credential(SCRAM_SHA_256, "pencil", 4096, RFC_SALT)
    server = _server({"user": cred}, nonce="%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0")
    assert server.evaluate(RFC_CLIENT_FIRST) == RFC_SERVER_FIRST
    assert not server.complete
    assert server.evaluate(RFC_CLIENT_FINAL) == RFC_SERVER_FINAL
    assert server.complete and server.authorization_id == "user"


def test_rfc7677_exchange_client_side() -> None:
    client = ScramClient(SCRAM_SHA_256, "user", "pencil", nonce="rOprNGfwEbeRWgbNEkqO")
    assert client.first() == RFC_CLIENT_FIRST
    assert client.final(RFC_SERVER_FIRST) == RFC_CLIENT_FINAL
    client.verify(RFC_SERVER_FINAL)
    with pytest.raises(SaslFailure):
        client.verify(b"v=" + base64.b64encode(b"x" * 32))


def test_credential_config_string_round_trips_like_kafka() -> None:
    cred = new_credential(SCRAM_SHA_512, "alice-secret", 8192)
    text = cred.to_config_string()
    assert text.startswith("salt=") and text.endswith(",iterations=8192")
    assert [f.split("=", 1)[0] for f in text.split(",")] == [
        "salt", "stored_key", "server_key", "iterations"]
    assert ScramCredential.from_config_string(text) == cred
    with pytest.raises(ValueError):
        ScramCredential.from_config_string("salt=AA==,iterations=4096")


@pytest.mark.parametrize("mechanism", [SCRAM_SHA_256, SCRAM_SHA_512])
def test_client_and_server_agree(mechanism) -> None:
    server = _server({"alice": new_credential(mechanism, "s3cret", 4096)}, mechanism)
    client = ScramClient(mechanism, "alice", "s3cret")
    final = client.final(server.evaluate(client.first()))
    client.verify(server.evaluate(final))
    assert server.complete


def test_wrong_password_is_not_told_to_the_client() -> None:
    server = _server({"alice": new_credential(SCRAM_SHA_256, "right", 4096)})
    client = ScramClient(SCRAM_SHA_256, "alice", "wrong")
    with pytest.raises(SaslFailure) as e:
        server.evaluate(client.final(server.evaluate(client.first())))
    assert not e.value.client_visible
    assert not server.complete and server.state == "FAILED"


def test_unknown_user_fails_like_a_wrong_password() -> None:
    server = _server({})
    with pytest.raises(SaslFailure) as e:
        server.evaluate(ScramClient(SCRAM_SHA_256, "nobody", "x").first())
    assert not e.value.client_visible
    assert e.value.message == "Authentication failed: Invalid user credentials"


def test_too_few_iterations_in_a_stored_credential_fail() -> None:
    server = _server({"alice": new_credential(SCRAM_SHA_256, "pw", 1000)})
    with pytest.raises(SaslFailure) as e:
        server.evaluate(ScramClient(SCRAM_SHA_256, "alice", "pw").first())
    assert "is less than the minimum 4096" in e.value.message


def test_tokenauth_with_an_unknown_token_is_refused() -> None:
    server = _server({"alice": new_credential(SCRAM_SHA_256, "pw", 4096)})
    with pytest.raises(SaslFailure) as e:
        server.evaluate(b"n,,n=alice,r=abc,tokenauth=true")
    assert e.value.message.startswith("Token Authentication failed")


def test_other_authzid_is_refused_with_kafkas_message() -> None:
    server = _server({"alice": new_credential(SCRAM_SHA_256, "pw", 4096)})
    with pytest.raises(SaslFailure) as e:
        server.evaluate(b"n,a=bob,n=alice,r=abc")
    assert e.value.client_visible
    assert "authorization id that is different from username" in e.value.message
    ok = _server({"alice": new_credential(SCRAM_SHA_256, "pw", 4096)})
    assert ok.evaluate(b"n,a=alice,n=alice,r=abc").startswith(b"r=abc")


def test_nonce_must_be_the_servers() -> None:
    server = _server({"alice": new_credential(SCRAM_SHA_256, "pw", 4096)})
    client = ScramClient(SCRAM_SHA_256, "alice", "pw", nonce="abc")
    server.evaluate(client.first())
    with pytest.raises(SaslFailure, match="Invalid client nonce"):
        server.evaluate(b"c=biws,r=abcother,p=" + base64.b64encode(b"x" * 32))


def test_malformed_messages_and_escaped_names() -> None:
    for bad in (b"y,,n=alice,r=abc", b"n,,r=abc", b"n,,n=al,ice,r=abc", b""):
        with pytest.raises(SaslFailure, match="Invalid SCRAM client first message"):
            parse_client_first(bad)
    first = parse_client_first(b"n,,n=a=2Cb=3Dc,r=xyz,ext=1")
    assert first.sasl_name == "a=2Cb=3Dc" and first.bare == "n=a=2Cb=3Dc,r=xyz,ext=1"
    server = _server({"a,b=c": new_credential(SCRAM_SHA_256, "pw", 4096)})
    client = ScramClient(SCRAM_SHA_256, "a,b=c", "pw")
    client.verify(server.evaluate(client.final(server.evaluate(client.first()))))
    assert server.authorization_id == "a,b=c"


def test_a_finished_exchange_takes_no_more_tokens() -> None:
    server = _server({"alice": new_credential(SCRAM_SHA_256, "pw", 4096)})
    client = ScramClient(SCRAM_SHA_256, "alice", "pw")
    server.evaluate(client.final(server.evaluate(client.first())))
    with pytest.raises(SaslFailure) as e:
        server.evaluate(b"again")
    assert e.value.illegal_state


# -- PLAIN ----------------------------------------------------------------------------------

def _plain() -> PlainServer:
    return PlainServer(users_check({"alice": "alice-secret"}))


def test_plain_accepts_the_user_with_an_empty_or_equal_authzid() -> None:
    for authzid in ("", "alice"):
        server = _plain()
        assert server.evaluate(plain_message("alice", "alice-secret", authzid)) == b""
        assert server.complete and server.authorization_id == "alice"


@pytest.mark.parametrize("message, text, visible", [
    (plain_message("alice", "nope"), "Authentication failed: Invalid username or password", True),
    (plain_message("bob", "alice-secret"), "Authentication failed: Invalid username or password",
     True),
    (plain_message("alice", "alice-secret", "bob"),
     "Authentication failed: Client requested an authorization id that is different from "
     "username", True),
    (plain_message("", "x"), "Authentication failed: username not specified", True),
    (plain_message("alice", ""), "Authentication failed: password not specified", True),
    (b"alice\0alice-secret", "Invalid SASL/PLAIN response: expected 3 tokens, got 2", True),
    (b"\0alice\0pw\0more", "Invalid SASL/PLAIN response: expected 3 tokens, got 4", True),
])
def test_plain_failures_carry_kafkas_messages(message: bytes, text: str, visible: bool) -> None:
    server = _plain()
    with pytest.raises(SaslFailure) as e:
        server.evaluate(message)
    assert e.value.message == text and e.value.client_visible is visible
    assert not server.complete


# -- JAAS -----------------------------------------------------------------------------------

def test_jaas_plain_users_and_login() -> None:
    text = ('org.apache.kafka.common.security.plain.PlainLoginModule required '
            'username="admin" password="admin-secret" user_admin="admin-secret" '
            'user_alice="al\\"ice" user_bob=bob-pw;')
    modules = parse_jaas_config(text)
    assert modules[0].flag == "required"
    assert plain_users(modules) == {"admin": "admin-secret", "alice": 'al"ice', "bob": "bob-pw"}
    assert login_credentials(modules) == ("admin", "admin-secret")


def test_jaas_several_modules_and_errors() -> None:
    text = ("org.apache.kafka.common.security.scram.ScramLoginModule required;\n"
            "org.apache.kafka.common.security.plain.PlainLoginModule optional user_x=\"y\";")
    modules = parse_jaas_config(text)
    assert [m.flag for m in modules] == ["required", "optional"]
    assert plain_users(modules) == {"x": "y"}
    assert login_credentials(modules) is None
    for bad in ("", "Module required user_x=\"y\"", "Module maybe;", "Module required x;",
                "Module required x=\"unterminated;"):
        with pytest.raises(JaasConfigError):
            parse_jaas_config(bad)
