"""A connection's SASL state machine (Kafka's SaslServerAuthenticator), its table, and the
SCRAM credential rules of DescribeUserScramCredentials/AlterUserScramCredentials."""

from __future__ import annotations

import pytest

from pybroker.jvm import hash_set_order
from pybroker.security.credentials import (
    CredentialCache,
    Deletion,
    Upsertion,
    describe_credentials,
    plan_alterations,
)
from pybroker.security.plain import plain_message, users_check
from pybroker.security.principal import KafkaPrincipal
from pybroker.security.sasl import (
    API_VERSIONS,
    ILLEGAL_SASL_STATE,
    SASL_AUTHENTICATE,
    SASL_AUTHENTICATION_FAILED,
    SASL_HANDSHAKE,
    UNSUPPORTED_SASL_MECHANISM,
    VALID_PREVIOUS_STATES,
    Admission,
    IllegalTransition,
    SaslAuthenticator,
    SaslServerSettings,
    SaslState,
)
from pybroker.security.sasl_config import sasl_server_settings
from pybroker.security.sasl_errors import SaslFailure
from pybroker.security.scram import SCRAM_SHA_256, SCRAM_SHA_512, ScramClient, new_credential

METADATA = 3


def _settings(**kw) -> SaslServerSettings:
    cache = CredentialCache()
    cache.set_user("alice", {"SCRAM-SHA-256": new_credential(SCRAM_SHA_256, "alice-scram")
                             .to_config_string()})
    base = dict(enabled_mechanisms=("GSSAPI", "PLAIN", "SCRAM-SHA-256"),
                plain_check=users_check({"alice": "alice-secret", "bob": "bob-secret"}),
                scram_lookup=cache.lookup, failed_delay_ms=100)
    base.update(kw)
    return SaslServerSettings(**base)


def test_every_state_is_in_the_table_and_the_initial_one_has_no_predecessor() -> None:
    assert set(VALID_PREVIOUS_STATES) == set(SaslState)
    assert VALID_PREVIOUS_STATES[SaslState.HANDSHAKE_OR_VERSIONS_REQUEST] == frozenset()
    auth = SaslAuthenticator(_settings())
    with pytest.raises(IllegalTransition):
        auth._move(SaslState.COMPLETE)


def test_plain_over_authenticate_requests() -> None:
    auth = SaslAuthenticator(_settings())
    assert auth.admit(API_VERSIONS, 0) is Admission.HANDLE
    # an ApiVersions at a version the broker does not serve may be asked again
    assert auth.state is SaslState.HANDSHAKE_OR_VERSIONS_REQUEST
    assert auth.admit(API_VERSIONS, 0) is Admission.HANDLE
    auth.api_versions_answered()
    assert auth.state is SaslState.HANDSHAKE_REQUEST
    assert auth.admit(SASL_HANDSHAKE, 0) is Admission.HANDLE
    answer = auth.handshake("PLAIN", 1)
    assert answer.error_code == 0 and answer.mechanisms == ["PLAIN", "SCRAM-SHA-256"]
    assert auth.admit(METADATA, 0) is Admission.CLOSE
    assert auth.admit(SASL_AUTHENTICATE, 0) is Admission.HANDLE
    result = auth.authenticate(plain_message("alice", "alice-secret"), 2, 1000)
    assert result.error_code == 0 and result.close_after_ms is None
    assert result.session_lifetime_ms == 0 and auth.session_expiry_ms is None
    assert auth.authenticated and auth.principal == KafkaPrincipal("User", "alice")
    assert auth.admit(METADATA, 10**12) is Admission.HANDLE
    # after authentication: Kafka's KafkaApis answers
    assert auth.authenticate(b"", 2, 0).error_code == ILLEGAL_SASL_STATE
    assert auth.admit(SASL_HANDSHAKE, 0) is Admission.HANDLE
    assert auth.handshake("PLAIN", 1).error_code == ILLEGAL_SASL_STATE


def test_requests_before_authentication_close_the_connection() -> None:
    for api_key in (METADATA, SASL_AUTHENTICATE, 0):
        assert SaslAuthenticator(_settings()).admit(api_key, 0) is Admission.CLOSE
    auth = SaslAuthenticator(_settings())
    auth.admit(API_VERSIONS, 0)
    auth.api_versions_answered()
    assert auth.admit(API_VERSIONS, 0) is Admission.CLOSE


def test_unsupported_mechanism_answers_the_offered_list_and_closes() -> None:
    for mechanism in ("GSSAPI", "OAUTHBEARER", "SCRAM-SHA-512"):
        auth = SaslAuthenticator(_settings())
        answer = auth.handshake(mechanism, 1)
        assert answer.error_code == UNSUPPORTED_SASL_MECHANISM
        assert answer.mechanisms == ["PLAIN", "SCRAM-SHA-256"]
        assert answer.close_after_ms == 100 and auth.state is SaslState.FAILED
        assert auth.admit(METADATA, 0) is Admission.DROP


def test_wrong_password_fails_with_kafkas_messages_after_the_delay() -> None:
    auth = SaslAuthenticator(_settings())
    auth.handshake("PLAIN", 1)
    result = auth.authenticate(plain_message("alice", "nope"), 2, 0)
    assert result.error_code == SASL_AUTHENTICATION_FAILED
    assert result.error_message == "Authentication failed: Invalid username or password"
    assert result.close_after_ms == 100 and auth.principal is None
    auth = SaslAuthenticator(_settings())
    auth.handshake("SCRAM-SHA-256", 1)
    client = ScramClient(SCRAM_SHA_256, "alice", "wrong")
    first = auth.authenticate(client.first(), 2, 0)
    result = auth.authenticate(client.final(first.auth_bytes), 2, 0)
    assert result.error_message == ("Authentication failed during authentication due to "
                                    "invalid credentials with SASL mechanism SCRAM-SHA-256")


def test_scram_with_raw_tokens_after_handshake_v0() -> None:
    auth = SaslAuthenticator(_settings())
    assert auth.handshake("SCRAM-SHA-256", 0).error_code == 0
    assert auth.raw_tokens
    assert auth.admit(SASL_AUTHENTICATE, 0) is Admission.CLOSE  # tokens come raw
    client = ScramClient(SCRAM_SHA_256, "alice", "alice-scram")
    final = auth.raw_token(client.first(), 0)
    client.verify(auth.raw_token(client.final(final), 0))
    assert auth.authenticated and not auth.raw_tokens
    bad = SaslAuthenticator(_settings())
    bad.handshake("PLAIN", 0)
    with pytest.raises(SaslFailure):
        bad.raw_token(plain_message("alice", "x"), 0)
    assert bad.state is SaslState.FAILED


def test_reauthentication_and_session_expiry() -> None:
    auth = SaslAuthenticator(_settings(max_reauth_ms={"PLAIN": 5000}))
    auth.handshake("PLAIN", 1)
    result = auth.authenticate(plain_message("alice", "alice-secret"), 2, 1000)
    assert result.session_lifetime_ms == 5000 and auth.session_expiry_ms == 6000
    assert auth.admit(METADATA, 5999) is Admission.HANDLE
    assert auth.admit(METADATA, 6000) is Admission.CLOSE
    # re-authentication on time: same mechanism, same principal
    assert auth.admit(SASL_HANDSHAKE, 5500) is Admission.HANDLE
    assert auth.state is SaslState.REAUTH_PROCESS_HANDSHAKE
    assert auth.handshake("PLAIN", 1).error_code == 0
    result = auth.authenticate(plain_message("alice", "alice-secret"), 2, 5600)
    assert result.error_code == 0 and auth.session_expiry_ms == 10600
    # not twice within a second: the handshake is answered as on an authenticated connection
    assert auth.admit(SASL_HANDSHAKE, 6000) is Admission.HANDLE
    assert auth.handshake("PLAIN", 1).error_code == ILLEGAL_SASL_STATE
    # another principal is refused
    assert auth.admit(SASL_HANDSHAKE, 7000) is Admission.HANDLE
    auth.handshake("PLAIN", 1)
    result = auth.authenticate(plain_message("bob", "bob-secret"), 2, 7000)
    assert result.error_code == SASL_AUTHENTICATION_FAILED
    assert result.error_message == ("Cannot change principals during re-authentication from "
                                    "User.alice: User.bob")
    assert auth.state is SaslState.FAILED


def test_reauthentication_with_another_mechanism_fails() -> None:
    auth = SaslAuthenticator(_settings(max_reauth_ms={"PLAIN": 5000}))
    auth.handshake("PLAIN", 1)
    auth.authenticate(plain_message("alice", "alice-secret"), 2, 0)
    auth.admit(SASL_HANDSHAKE, 2000)
    assert auth.handshake("SCRAM-SHA-256", 1).error_code == 0
    assert auth.state is SaslState.REAUTH_BAD_MECHANISM
    result = auth.authenticate(b"n,,n=alice,r=x", 2, 2000)
    assert result.error_code == SASL_AUTHENTICATION_FAILED and result.close_after_ms == 100
    assert "not supported for re-authentication of mechanism 'PLAIN'" in result.error_message


def test_settings_from_kafka_properties() -> None:
    props = {
        "listener.security.protocol.map": "CLIENT:SASL_PLAINTEXT,INTERNAL:PLAINTEXT",
        "sasl.enabled.mechanisms": "GSSAPI",
        "listener.name.client.sasl.enabled.mechanisms": "PLAIN,SCRAM-SHA-512",
        "listener.name.client.plain.sasl.jaas.config":
            'org.apache.kafka.common.security.plain.PlainLoginModule required '
            'user_alice="alice-secret";',
        "listener.name.client.scram-sha-512.connections.max.reauth.ms": "60000",
        "connection.failed.authentication.delay.ms": "250",
    }
    s = sasl_server_settings(props, "CLIENT", lambda u, m: None)
    assert s.offered_mechanisms == ["PLAIN", "SCRAM-SHA-512"]
    assert s.plain_check is not None and s.plain_check("alice", "alice-secret")
    assert s.max_reauth_ms == {"PLAIN": 0, "SCRAM-SHA-512": 60000}
    assert s.failed_delay_ms == 250 and s.max_receive_size == 524288
    assert sasl_server_settings({}, "SASL_PLAINTEXT", lambda u, m: None).offered_mechanisms == []


# -- credentials ------------------------------------------------------------------------------

def _up(name: str, mechanism: int = 1, iterations: int = 8192) -> Upsertion:
    return Upsertion(name, mechanism, iterations, b"salt", b"x" * 32)


def test_alterations_follow_kafkas_rules() -> None:
    existing = {"carol": {"SCRAM-SHA-256": new_credential(SCRAM_SHA_256, "c").to_config_string(),
                          "producer_byte_rate": "1024"}}
    plan = plan_alterations(
        [_up("alice"), _up("alice", 2), _up(""), _up("bob", 9), _up("dan", iterations=100),
         _up("erin", iterations=20000), _up("frank"), _up("frank")],
        [Deletion("carol", 1), Deletion("gina", 2)],
        lambda user: existing.get(user, {}))
    by_user = {r.user: (r.error_code, r.error_message) for r in plan.results}
    assert by_user == {
        "": (93, "Username must not be empty"),
        "bob": (33, "Unknown SCRAM mechanism"),
        "dan": (93, "Too few iterations"),
        "erin": (93, "Too many iterations"),
        "frank": (92, "A user credential cannot be altered twice in the same request"),
        "gina": (91, "Attempt to delete a user credential that does not exist"),
        "alice": (0, None),
        "carol": (0, None),
    }
    assert set(plan.new_configs) == {"alice", "carol"}
    assert set(plan.new_configs["alice"]) == {"SCRAM-SHA-256", "SCRAM-SHA-512"}
    assert plan.new_configs["carol"] == {"producer_byte_rate": "1024"}


def test_describe_follows_kafkas_rules() -> None:
    cache = CredentialCache()
    cache.set_user("bob", {"SCRAM-SHA-512": new_credential(SCRAM_SHA_512, "b", 8192)
                           .to_config_string()})
    cache.set_user("alice", {"SCRAM-SHA-256": new_credential(SCRAM_SHA_256, "a")
                             .to_config_string(), "other": "x"})
    assert cache.user_configs("alice").keys() == {"SCRAM-SHA-256"}
    everyone = describe_credentials(None, cache.users())
    assert [(r.user, r.credentials) for r in everyone] == [("alice", ((1, 4096),)),
                                                           ("bob", ((2, 8192),))]
    named = describe_credentials(["bob", "zed", "", "bob"], cache.users())
    assert [(r.user, r.error_code) for r in named] == [("bob", 92), ("zed", 91), ("", 91)]
    assert named[1].error_message == ("Attempt to describe a user credential that does not "
                                      "exist: zed")
    assert cache.lookup("bob", SCRAM_SHA_256) is None
    assert cache.lookup("bob", SCRAM_SHA_512) is not None


def test_offered_mechanisms_come_in_kafkas_hash_set_order() -> None:
    # what Kafka 3.9 answered with sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-256,SCRAM-SHA-512
    # (tests/compat/differential/test_sasl.py compares them)
    enabled = ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512")
    assert _settings(enabled_mechanisms=enabled).offered_mechanisms == [
        "PLAIN", "SCRAM-SHA-512", "SCRAM-SHA-256"]
    assert hash_set_order(["SCRAM-SHA-256", "PLAIN", "SCRAM-SHA-256"]) == [
        "PLAIN", "SCRAM-SHA-256"]
    many = [f"M{i}" for i in range(40)]  # more than 12: a bigger table
    assert sorted(hash_set_order(many)) == sorted(many)


# -- the client side (inter-broker connections) -------------------------------------------------

def test_client_exchanges_complete_against_the_server() -> None:
    from pybroker.security.sasl_client import SaslClientCredentials

    for mechanism, user, password in (("PLAIN", "alice", "alice-secret"),
                                      ("SCRAM-SHA-256", "alice", "alice-scram")):
        auth = SaslAuthenticator(_settings())
        assert auth.handshake(mechanism, 1).error_code == 0
        exchange = SaslClientCredentials(mechanism, user, password).exchange()
        token: bytes | None = exchange.first()
        while token is not None:
            answer = auth.authenticate(token, 2, 0)
            assert answer.error_code == 0, answer
            token = exchange.respond(answer.auth_bytes)
        assert exchange.done and auth.authenticated


def test_inter_broker_credentials_come_from_the_listeners_jaas() -> None:
    from pybroker.security.sasl_client import SaslClientCredentials, inter_broker_credentials

    props = {"sasl.mechanism.inter.broker.protocol": "SCRAM-SHA-512",
             "listener.name.internal.scram-sha-512.sasl.jaas.config":
                 'org.apache.kafka.common.security.scram.ScramLoginModule required '
                 'username="broker" password="pw";'}
    assert inter_broker_credentials(props, "INTERNAL", "PLAINTEXT") is None
    assert inter_broker_credentials(props, "INTERNAL", "SASL_SSL") == SaslClientCredentials(
        "SCRAM-SHA-512", "broker", "pw")
    with pytest.raises(ValueError, match="GSSAPI is not supported"):
        inter_broker_credentials({}, "INTERNAL", "SASL_PLAINTEXT")
    with pytest.raises(ValueError, match="no username and password"):
        inter_broker_credentials({"sasl.mechanism.inter.broker.protocol": "PLAIN"},
                                 "INTERNAL", "SASL_PLAINTEXT")


# -- the broker's SASL listeners ------------------------------------------------------------------

BAD_JAAS = "org.apache.kafka.common.security.plain.PlainLoginModule required user_x=;"


def _broker_config(tmp_path, **extra: str):
    from pybroker.config import BrokerConfig

    return BrokerConfig.from_dict({
        "log.dirs": str(tmp_path), "listeners": "PLAINTEXT://127.0.0.1:0",
        "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,EXTRA:SASL_PLAINTEXT",
        "sasl.enabled.mechanisms": "PLAIN", **extra})


def test_a_sasl_listener_with_bad_jaas_stops_the_broker(tmp_path) -> None:
    from pybroker.broker import ConfigError
    from pybroker.modes.embedded.broker import Broker

    config = _broker_config(tmp_path, **{
        "listeners": "PLAINTEXT://127.0.0.1:0,EXTRA://127.0.0.1:0",
        "listener.name.extra.plain.sasl.jaas.config": BAD_JAAS})
    with pytest.raises(ConfigError, match="invalid sasl.jaas.config for PLAIN"):
        Broker(config)


def test_a_sasl_listener_added_later_with_bad_jaas_fails_closed(tmp_path) -> None:
    from pybroker.modes.embedded.broker import Broker

    broker = Broker(_broker_config(tmp_path, **{
        "listener.name.extra.plain.sasl.jaas.config": BAD_JAAS}))
    assert broker._new_sasl_authenticator("PLAINTEXT") is None
    auth = broker._new_sasl_authenticator("EXTRA")
    assert auth is not None and auth.settings.offered_mechanisms == []
    assert auth.handshake("PLAIN", 1).error_code == UNSUPPORTED_SASL_MECHANISM
