"""SASL/OAUTHBEARER's pure parts, against Kafka 3.9's rules: the client's first message
(``OAuthBearerClientInitialResponse``), the unsecured JWS validator
(``OAuthBearerUnsecuredJws``, ``OAuthBearerUnsecuredValidatorCallbackHandler``), the server's
error challenge and the client's ``\\x01`` (``OAuthBearerSaslServer``), KIP-768's signed JWT
validator over a JWKS (``ValidatorAccessTokenValidator``), and the authenticator's session
lifetime from the token's expiry."""

from __future__ import annotations

import base64
import json
import threading
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa

from pybroker.security.oauthbearer import (
    OAuthBearerServer,
    TokenInvalid,
    UnsecuredValidator,
    client_initial_response,
    error_challenge,
    parse_client_initial_response,
    unsecured_jws,
)
from pybroker.security.oauthbearer_jwt import JwtValidator, RefreshingHttpJwks
from pybroker.security.sasl import (
    NONE,
    SASL_AUTHENTICATION_FAILED,
    SaslAuthenticator,
    SaslServerSettings,
)
from pybroker.security.sasl_errors import SaslFailure

NOW_S = 1_700_000_000
NOW_MS = NOW_S * 1000


def b64(value: Any) -> str:
    return base64.urlsafe_b64encode(json.dumps(value).encode()).rstrip(b"=").decode()


def unsecured(claims: dict[str, Any], header: dict[str, Any] | None = None) -> str:
    return f"{b64(header or {'alg': 'none'})}.{b64(claims)}."


ALICE = {"sub": "alice", "iat": NOW_S - 10, "exp": NOW_S + 3600, "scope": ["read", "write"]}


# -- the first message ------------------------------------------------------------------------
def test_first_message_round_trips() -> None:
    message = client_initial_response("abc.def.", "alice", {"traceId": "x y"})
    assert message == b"n,a=alice,\x01auth=Bearer abc.def.\x01traceId=x y\x01\x01"
    first = parse_client_initial_response(message)
    assert (first.token, first.authorization_id, first.extensions) == (
        "abc.def.", "alice", {"traceId": "x y"})


@pytest.mark.parametrize("message, reason", [
    (b"", "Invalid OAUTHBEARER client first message"),
    (b"y,,\x01auth=Bearer t\x01\x01", "Invalid OAUTHBEARER client first message"),
    (b"n,,\x01auth=Bearer t\x01", "Invalid OAUTHBEARER client first message"),
    (b"n,,\x01\x01", "Invalid OAUTHBEARER client first message: 'auth' not specified"),
    (b"n,,\x01x=1\x01\x01", "Invalid OAUTHBEARER client first message: 'auth' not specified"),
    (b"n,,\x01auth=Bearer\x01\x01",
     "Invalid OAUTHBEARER client first message: invalid 'auth' format"),
    (b"n,,\x01auth=Bearer a b\x01\x01",
     "Invalid OAUTHBEARER client first message: invalid 'auth' format"),
    (b"n,,\x01auth=Bearer t\x01x1=v\x01\x01", "Invalid OAUTHBEARER client first message"),
])
def test_garbled_first_messages_fail_with_kafkas_reasons(message: bytes, reason: str) -> None:
    with pytest.raises(SaslFailure) as e:
        parse_client_initial_response(message)
    assert e.value.message == reason
    assert not e.value.client_visible and not e.value.unanswered


def test_another_scheme_closes_the_connection_unanswered() -> None:
    with pytest.raises(SaslFailure) as e:
        parse_client_initial_response(b"n,,\x01auth=Basic abc\x01\x01")
    assert e.value.unanswered


def test_scheme_is_case_insensitive_and_later_keys_win() -> None:
    first = parse_client_initial_response(b"n,,\x01auth=bEaReR tok==\x01a=1\x01a=2\x01\x01")
    assert first.token == "tok==" and first.extensions == {"a": "2"}


# -- the unsecured JWS ------------------------------------------------------------------------
def test_unsecured_jws_claims() -> None:
    token = unsecured_jws(unsecured(ALICE))
    assert token.principal_name == "alice"
    assert token.lifetime_ms == (NOW_S + 3600) * 1000
    assert token.start_time_ms == (NOW_S - 10) * 1000
    assert token.scope == {"read", "write"}
    other = unsecured_jws(unsecured({**ALICE, "user": "bob", "roles": "admin"}), "user", "roles")
    assert (other.principal_name, other.scope) == ("bob", {"admin"})


@pytest.mark.parametrize("value, reason", [
    ("a..b", "Malformed compact serialization contains '..'"),
    (f"{b64({'alg': 'none'})}.{b64(ALICE)}",
     "Unsecured JWS compact serializations must have 3 dot-separated Base64URL-encoded values"),
    (unsecured(ALICE, {"alg": "RS256"}), "Unsecured JWS must have 'none' for an algorithm"),
    (unsecured(ALICE) + "c2ln", "Unsecured JWS must not contain a digital signature"),
    (unsecured({k: v for k, v in ALICE.items() if k != "exp"}), "No expiration time in JWT"),
    (unsecured({**ALICE, "exp": "soon"}), "The 'exp' claim was not of type Number: String"),
    (unsecured({k: v for k, v in ALICE.items() if k != "sub"}),
     "No principal name in JWT claim: sub"),
    (unsecured({**ALICE, "sub": "  "}), "No principal name in JWT claim: sub"),
    (unsecured({**ALICE, "sub": 7}), "The 'sub' claim was not of type String: Integer"),
    ("e30.!!!.", "malformed Base64 URL encoded value"),
    (f"{b64({'alg': 'none'})}.bm90IGpzb24.", "malformed JSON"),
])
def test_malformed_unsecured_tokens(value: str, reason: str) -> None:
    with pytest.raises(TokenInvalid) as e:
        unsecured_jws(value)
    assert e.value.reason == reason
    assert e.value.status == "invalid_token"


def test_a_header_without_alg_closes_the_connection() -> None:
    with pytest.raises(SaslFailure) as e:
        unsecured_jws(unsecured(ALICE, {"typ": "JWT"}))
    assert e.value.unanswered


def test_unsecured_validator_times_and_scope() -> None:
    validator = UnsecuredValidator()
    assert validator(unsecured(ALICE), NOW_MS).principal_name == "alice"
    expired = unsecured({**ALICE, "exp": NOW_S})
    with pytest.raises(TokenInvalid, match="was on or after the Expiration Time value"):
        validator(expired, NOW_MS)
    assert UnsecuredValidator(allowable_clock_skew_ms=1)(expired, NOW_MS)
    with pytest.raises(TokenInvalid, match="The Issued At value"):
        validator(unsecured({**ALICE, "iat": NOW_S + 1}), NOW_MS)
    with pytest.raises(TokenInvalid, match="was not after the Issued At time"):
        UnsecuredValidator(allowable_clock_skew_ms=10**9)(
            unsecured({**ALICE, "iat": NOW_S + 7200}), NOW_MS)
    scoped = UnsecuredValidator.from_options({"unsecuredValidatorRequiredScope": "read admin"})
    with pytest.raises(TokenInvalid) as e:
        scoped(unsecured(ALICE), NOW_MS)
    assert (e.value.status, e.value.scope) == ("insufficient_scope", "[read, admin]")
    assert scoped(unsecured({**ALICE, "scope": ["admin", "read"]}), NOW_MS)


def test_unsecured_validator_options() -> None:
    validator = UnsecuredValidator.from_options({
        "unsecuredValidatorPrincipalClaimName": " user ",
        "unsecuredValidatorScopeClaimName": "roles",
        "unsecuredValidatorAllowableClockSkewMs": "500"})
    assert validator == UnsecuredValidator("user", "roles", (), 500)
    with pytest.raises(ValueError, match="must not be negative"):
        UnsecuredValidator.from_options({"unsecuredValidatorAllowableClockSkewMs": "-1"})
    with pytest.raises(ValueError, match="Invalid scope value"):
        UnsecuredValidator.from_options({"unsecuredValidatorRequiredScope": 'a "b"'})


# -- the server's exchange --------------------------------------------------------------------
def test_error_challenge_is_kafkas_text() -> None:
    assert error_challenge("invalid_token") == '{"status":"invalid_token"}'
    assert error_challenge("insufficient_scope", "[a]", "u") == (
        '{"status":"insufficient_scope", "scope":"[a]", "openid-configuration":"u"}')


def test_server_challenges_then_fails_with_the_challenge() -> None:
    server = OAuthBearerServer(UnsecuredValidator(), lambda: NOW_MS)
    challenge = server.evaluate(client_initial_response(unsecured({**ALICE, "exp": 1})))
    assert challenge == b'{"status":"invalid_token"}' and not server.complete
    with pytest.raises(SaslFailure) as e:
        server.evaluate(b"\x01")
    assert e.value.client_visible and e.value.message == '{"status":"invalid_token"}'
    # a \x01 with no challenge before it is a malformed first message
    with pytest.raises(SaslFailure, match="Invalid OAUTHBEARER client first message"):
        OAuthBearerServer(UnsecuredValidator(), lambda: NOW_MS).evaluate(b"\x01")


def test_server_authorization_id_must_be_the_principal() -> None:
    server = OAuthBearerServer(UnsecuredValidator(), lambda: NOW_MS)
    with pytest.raises(SaslFailure) as e:
        server.evaluate(client_initial_response(unsecured(ALICE), "bob"))
    assert e.value.client_visible and e.value.message == (
        "Authentication failed: Client requested an authorization id (bob) that is different "
        "from the token's principal name (alice)")
    server = OAuthBearerServer(UnsecuredValidator(), lambda: NOW_MS)
    assert server.evaluate(client_initial_response(unsecured(ALICE), "alice", {"k": "v"})) == b""
    assert server.complete and server.authorization_id == "alice"
    assert server.extensions == {"k": "v"}
    assert server.credential_expiry_ms == (NOW_S + 3600) * 1000


def test_authenticator_session_ends_with_the_token() -> None:
    settings = SaslServerSettings(("OAUTHBEARER",), oauth_validator=UnsecuredValidator(),
                                  max_reauth_ms={"OAUTHBEARER": 10**9})
    sasl = SaslAuthenticator(settings)
    assert sasl.handshake("OAUTHBEARER", 1).error_code == NONE
    sasl._server = OAuthBearerServer(UnsecuredValidator(), lambda: NOW_MS)  # a fixed clock
    answer = sasl.authenticate(client_initial_response(unsecured(ALICE)), 1, NOW_MS)
    assert answer.error_code == NONE and str(sasl.principal) == "User:alice"
    assert answer.session_lifetime_ms == 3600 * 1000


def test_authenticator_answers_a_garbled_token_and_closes() -> None:
    sasl = SaslAuthenticator(SaslServerSettings(("OAUTHBEARER",),
                                                oauth_validator=UnsecuredValidator()))
    sasl.handshake("OAUTHBEARER", 1)
    answer = sasl.authenticate(b"\xff\x00garbage", 1, NOW_MS)
    assert answer.error_code == SASL_AUTHENTICATION_FAILED
    assert answer.error_message == ("Authentication failed during authentication due to "
                                    "invalid credentials with SASL mechanism OAUTHBEARER")
    assert answer.close_after_ms is not None
    sasl = SaslAuthenticator(SaslServerSettings(("OAUTHBEARER",),
                                                oauth_validator=UnsecuredValidator()))
    sasl.handshake("OAUTHBEARER", 1)
    assert sasl.authenticate(b"n,,\x01auth=Basic x\x01\x01", 1, NOW_MS).unanswered


# -- signed JWTs ------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def rsa_key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def jwk(key: rsa.RSAPrivateKey, kid: str) -> dict[str, Any]:
    return {**json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(key.public_key())), "kid": kid,
            "use": "sig"}


class StaticJwks:
    location = "test"

    def __init__(self, keys: list[dict[str, Any]]) -> None:
        self._keys = keys
        self.missing: list[str | None] = []

    def keys(self) -> list[dict[str, Any]]:
        return self._keys

    def missing_key(self, key_id: str | None) -> None:
        self.missing.append(key_id)

    def close(self) -> None:
        pass


CLAIMS = {"sub": "carol", "iat": NOW_S, "exp": NOW_S + 600, "iss": "https://issuer",
          "aud": "kafka", "scope": "produce consume"}


def signed(key: rsa.RSAPrivateKey, claims: dict[str, Any], kid: str = "k1") -> str:
    return jwt.encode(claims, key, algorithm="RS256", headers={"kid": kid})


def test_jwt_validator_accepts_a_signed_token(rsa_key: rsa.RSAPrivateKey) -> None:
    validator = JwtValidator(StaticJwks([jwk(rsa_key, "k1")]), 30, frozenset({"kafka"}),
                             "https://issuer")
    token = validator(signed(rsa_key, CLAIMS), NOW_MS)
    assert token.principal_name == "carol"
    assert token.lifetime_ms == (NOW_S + 600) * 1000
    assert token.scope == {"produce consume"}


def test_jwt_validator_refusals(rsa_key: rsa.RSAPrivateKey) -> None:
    other = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    source = StaticJwks([jwk(rsa_key, "k1")])
    validator = JwtValidator(source, 30, frozenset({"kafka"}), "https://issuer")
    refused = {
        "wrong key": signed(other, CLAIMS),
        "unknown kid": signed(rsa_key, CLAIMS, kid="k2"),
        "expired": signed(rsa_key, {**CLAIMS, "exp": NOW_S - 30}),
        "no iat": signed(rsa_key, {k: v for k, v in CLAIMS.items() if k != "iat"}),
        "no exp": signed(rsa_key, {k: v for k, v in CLAIMS.items() if k != "exp"}),
        "issuer": signed(rsa_key, {**CLAIMS, "iss": "https://elsewhere"}),
        "no issuer": signed(rsa_key, {k: v for k, v in CLAIMS.items() if k != "iss"}),
        "audience": signed(rsa_key, {**CLAIMS, "aud": ["other"]}),
        "no audience": signed(rsa_key, {k: v for k, v in CLAIMS.items() if k != "aud"}),
        "no sub": signed(rsa_key, {k: v for k, v in CLAIMS.items() if k != "sub"}),
        "not yet": signed(rsa_key, {**CLAIMS, "nbf": NOW_S + 60}),
        "alg none": unsecured(CLAIMS),
        "two sections": "a.b",
        "empty": " ",
        "garbage": "x.y.z",
    }
    for name, value in refused.items():
        with pytest.raises(TokenInvalid):
            validator(value, NOW_MS)
            pytest.fail(name)
    assert source.missing == ["k2"]
    # within the clock skew an expired token still passes
    assert validator(signed(rsa_key, {**CLAIMS, "exp": NOW_S - 29}), NOW_MS)
    # without an expected audience, a token naming one is refused (jose4j's default)
    lax = JwtValidator(StaticJwks([jwk(rsa_key, "k1")]))
    with pytest.raises(TokenInvalid):
        lax(signed(rsa_key, CLAIMS), NOW_MS)
    assert lax(signed(rsa_key, {k: v for k, v in CLAIMS.items() if k != "aud"}), NOW_MS)


def test_refreshing_jwks_fetches_off_the_caller_and_refreshes_early(
        rsa_key: rsa.RSAPrivateKey) -> None:
    fetched: list[str] = []
    keys = [[jwk(rsa_key, "k1")], [jwk(rsa_key, "k1"), jwk(rsa_key, "k2")]]
    again = threading.Event()

    def fetch(url: str) -> list[dict[str, Any]]:
        fetched.append(url)
        if len(fetched) > 1:
            again.set()
        return keys[min(len(fetched), 2) - 1]

    source = RefreshingHttpJwks("http://127.0.0.1:1/jwks", 3600_000, 10, 100, fetch=fetch)
    try:
        source.start(wait_s=5)
        assert [k["kid"] for k in source.keys()] == ["k1"]
        source.missing_key("k2")
        assert again.wait(5)
        source.missing_key("k2")  # asked again within a minute: no second fetch
    finally:
        source.close()
    assert [k["kid"] for k in source.keys()] == ["k1", "k2"]
    assert len(fetched) == 2


def test_refreshing_jwks_first_fetch_failure_refuses_the_listener() -> None:
    def fetch(url: str) -> list[dict[str, Any]]:
        raise OSError("connection refused")

    source = RefreshingHttpJwks("http://127.0.0.1:1/jwks", 1000, 10, 100, fetch=fetch)
    with pytest.raises(ValueError, match="Could not refresh JWKS"):
        source.start(wait_s=5)
