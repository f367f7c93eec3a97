"""SASL/OAUTHBEARER (RFC 7628, Kafka's KIP-255) as Kafka's ``OAuthBearerSaslServer`` runs it.

The client's first message is ``n,[a=<authzid>],\\x01auth=Bearer <token>\\x01[key=value\\x01...]\\x01``
(:func:`parse_client_initial_response`, Kafka's ``OAuthBearerClientInitialResponse``). The
listener's validator (:data:`TokenValidator`) checks the token:

- unsecured (Kafka's default ``OAuthBearerUnsecuredValidatorCallbackHandler``): an ``alg``
  ``none`` JWS (:func:`unsecured_jws`) with the JAAS options ``unsecuredValidatorPrincipalClaimName``
  (``sub``), ``unsecuredValidatorScopeClaimName`` (``scope``), ``unsecuredValidatorRequiredScope``
  and ``unsecuredValidatorAllowableClockSkewMs`` (:class:`UnsecuredValidator`);
- signed JWTs checked against a JWKS (KIP-768's ``OAuthBearerValidatorCallbackHandler``):
  :mod:`.oauthbearer_jwt`.

A token that does not validate is answered with a challenge, ``{"status":"invalid_token"}``
(``insufficient_scope`` with the scope when a required scope is missing), which the client
acknowledges with a single ``\\x01``; the exchange then fails with that text as the error
message, as Kafka's does. A first message that does not parse fails with Kafka's generic
message. The principal is ``User:<the token's principal claim>``; the session ends when the
token expires (``credential_expiry_ms``, KIP-368).
"""

from __future__ import annotations

import base64
import binascii
import json
import logging
import math
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pybroker.jvm import hash_set_order
from pybroker.security.sasl_errors import SaslFailure

log = logging.getLogger(__name__)

OAUTHBEARER = "OAUTHBEARER"
OAUTHBEARER_LOGIN_MODULE = "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule"
#: the validator Kafka uses when ``sasl.server.callback.handler.class`` names none
UNSECURED_VALIDATOR_CLASS = ("org.apache.kafka.common.security.oauthbearer.internals.unsecured."
                             "OAuthBearerUnsecuredValidatorCallbackHandler")
#: KIP-768's validator of signed JWTs (3.9's name, and the older ``secured`` package's)
JWT_VALIDATOR_CLASSES = (
    "org.apache.kafka.common.security.oauthbearer.OAuthBearerValidatorCallbackHandler",
    "org.apache.kafka.common.security.oauthbearer.secured.OAuthBearerValidatorCallbackHandler",
)

SEPARATOR = "\x01"
_SASLNAME = r"(?:[\x01-\x2B\x2D-\x3C\x3E-\x7F]|=2C|=3D)+"
_KEY = r"[A-Za-z]+"
_VALUE = r"[\x21-\x7E \t\r\n]+"
_KVPAIRS = f"(?:{_KEY}={_VALUE}{SEPARATOR})*"
_CLIENT_INITIAL_RESPONSE = re.compile(
    f"n,(?:a=(?P<authzid>{_SASLNAME}))?,{SEPARATOR}(?P<kvpairs>{_KVPAIRS}){SEPARATOR}", re.DOTALL)
_AUTH = re.compile(r"(?P<scheme>\w+) +(?P<token>[-_~+/.a-zA-Z0-9]+=*)", re.ASCII)
_EXTENSION_KEY = re.compile(_KEY)
_EXTENSION_VALUE = re.compile(_VALUE)
_SCOPE_ITEM = re.compile(r"[\x23-\x5B\x5D-\x7E\x21]+")
AUTH_KEY = "auth"


@dataclass(frozen=True, slots=True)
class ClientInitialResponse:
    token: str
    authorization_id: str = ""
    extensions: dict[str, str] = field(default_factory=dict)


def parse_client_initial_response(message: bytes) -> ClientInitialResponse:
    """The client's first message (SaslFailure with Kafka's text when it is not one; the
    client is told only that its credentials were invalid)."""
    text = message.decode("utf-8", errors="replace")
    match = _CLIENT_INITIAL_RESPONSE.fullmatch(text)
    if match is None:
        raise SaslFailure("Invalid OAUTHBEARER client first message")
    properties: dict[str, str] = {}
    kvpairs = match.group("kvpairs")
    if kvpairs:
        # Java's split drops the trailing empty string; each pair has its '='
        for pair in kvpairs.rstrip(SEPARATOR).split(SEPARATOR):
            key, _, value = pair.partition("=")
            properties[key] = value
    auth = properties.pop(AUTH_KEY, None)
    if auth is None:
        raise SaslFailure("Invalid OAUTHBEARER client first message: 'auth' not specified")
    validate_extensions(properties)
    auth_match = _AUTH.fullmatch(auth)
    if auth_match is None:
        raise SaslFailure("Invalid OAUTHBEARER client first message: invalid 'auth' format")
    if auth_match.group("scheme").lower() != "bearer":
        # Kafka formats this message with a group its pattern does not have, and the
        # resulting IllegalArgumentException closes the connection unanswered
        raise SaslFailure("Invalid scheme in OAUTHBEARER client first message", unanswered=True)
    return ClientInitialResponse(auth_match.group("token"), match.group("authzid") or "",
                                 properties)


def validate_extensions(extensions: Mapping[str, str]) -> None:
    """RFC 7628's rules for extension names and values (``auth`` is reserved)."""
    if AUTH_KEY in extensions:
        raise SaslFailure(f"Extension name {AUTH_KEY} is invalid")
    for name, value in extensions.items():
        if not _EXTENSION_KEY.fullmatch(name):
            raise SaslFailure(f"Extension name {name} is invalid")
        if not _EXTENSION_VALUE.fullmatch(value):
            raise SaslFailure(f"Extension value ({value}) for extension {name} is invalid")


def client_initial_response(token: str, authorization_id: str = "",
                            extensions: Mapping[str, str] | None = None) -> bytes:
    """The client's first message (Kafka's ``OAuthBearerClientInitialResponse.toBytes``)."""
    authzid = f"a={authorization_id}" if authorization_id else ""
    ext = SEPARATOR.join(f"{k}={v}" for k, v in (extensions or {}).items())
    if ext:
        ext = SEPARATOR + ext
    return f"n,{authzid},{SEPARATOR}auth=Bearer {token}{ext}{SEPARATOR}{SEPARATOR}".encode()


# -- tokens -------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class OAuthBearerToken:
    """A validated token (Kafka's ``OAuthBearerToken``)."""

    value: str
    principal_name: str
    #: when the token expires, in ms since the epoch (Kafka's ``lifetimeMs``)
    lifetime_ms: int
    scope: frozenset[str] = frozenset()
    start_time_ms: int | None = None
    claims: Mapping[str, Any] = field(default_factory=dict)


class TokenInvalid(Exception):
    """A token failed validation: the client is sent ``status`` (and ``scope``) as the error
    challenge; ``reason`` is logged only, as Kafka logs it."""

    def __init__(self, reason: str, *, scope: str | None = None,
                 openid_configuration: str | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.scope = scope
        self.openid_configuration = openid_configuration

    @property
    def status(self) -> str:
        return "insufficient_scope" if self.scope is not None else "invalid_token"


#: validates a token value at a time (ms since the epoch): the token, or TokenInvalid
TokenValidator = Callable[[str, int], OAuthBearerToken]


def error_challenge(status: str, scope: str | None = None,
                    openid_configuration: str | None = None) -> str:
    """The server's error challenge, formatted exactly as Kafka's ``jsonErrorResponse``."""
    text = f'{{"status":"{status}"'
    if scope is not None:
        text += f', "scope":"{scope}"'
    if openid_configuration is not None:
        text += f', "openid-configuration":"{openid_configuration}"'
    return text + "}"


# -- the unsecured validator ------------------------------------------------------------------
def _java_base64(split: str) -> bytes:
    """Java's basic Base64 decoder: the standard alphabet, padding optional but exact when
    present (TokenInvalid otherwise)."""
    stripped = split.rstrip("=")
    padding = len(split) - len(stripped)
    if (not re.fullmatch(r"[A-Za-z0-9+/]*", stripped) or len(stripped) % 4 == 1
            or padding > 2 or (padding and len(split) % 4)):
        raise TokenInvalid("malformed Base64 URL encoded value")
    try:
        return base64.b64decode(stripped + "=" * (-len(stripped) % 4), validate=True)
    except (binascii.Error, ValueError) as e:
        raise TokenInvalid("malformed Base64 URL encoded value") from e


def _jackson(value: Any) -> Any:
    """A JSON value as Kafka's unsecured JWS keeps it: numbers as numbers, arrays as lists of
    their elements' text, everything else as its text (Jackson's ``asText``)."""
    if isinstance(value, list):
        return [_jackson_text(v) for v in value]
    if isinstance(value, bool) or value is None or isinstance(value, dict):
        return _jackson_text(value)
    return value


def _jackson_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, (dict, list)):
        return ""
    if isinstance(value, float):
        return repr(value)
    return str(value)


def _json_map(split: str) -> dict[str, Any]:
    decoded = _java_base64(split)
    try:
        node = json.loads(decoded.decode("utf-8")) if decoded.strip() else {}
    except (UnicodeDecodeError, ValueError) as e:
        raise TokenInvalid("malformed JSON") from e
    if not isinstance(node, dict):
        return {}  # Jackson's fields() of a non-object: none
    return {k: _jackson(v) for k, v in node.items()}


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _java_type(value: Any) -> str:
    if isinstance(value, str):
        return "String"
    if isinstance(value, list):
        return "ArrayList"
    if isinstance(value, float):
        return "Double"
    return "Integer" if -2**31 <= value < 2**31 else "Long"


def _number_claim(claims: Mapping[str, Any], name: str) -> float | int | None:
    value = claims.get(name)
    if value is None or _is_number(value):
        return value
    raise TokenInvalid(f"The '{name}' claim was not of type Number: {_java_type(value)}")


def _java_round(seconds: float) -> int:
    return math.floor(seconds * 1000 + 0.5)


def _java_double(value: float) -> str:
    return f"{float(value):f}"


def unsecured_jws(value: str, principal_claim: str = "sub",
                  scope_claim: str = "scope") -> OAuthBearerToken:
    """An ``alg`` ``none`` JWS as Kafka's ``OAuthBearerUnsecuredJws`` reads it (TokenInvalid
    with Kafka's reason when it is not one)."""
    if ".." in value:
        raise TokenInvalid("Malformed compact serialization contains '..'")
    splits = value.split(".")
    while splits and splits[-1] == "":  # Java's split drops trailing empty strings
        splits.pop()
    if value.endswith("."):
        splits.append("")
    if len(splits) != 3:
        raise TokenInvalid("Unsecured JWS compact serializations must have 3 dot-separated "
                           "Base64URL-encoded values")
    header = _json_map(splits[0])
    claims = _json_map(splits[1])
    alg = header.get("alg")
    if alg is None:
        # a NullPointerException in Kafka: the connection closes unanswered
        raise SaslFailure("JWS header must have an Algorithm value", unanswered=True)
    if str(alg) != "none":
        raise TokenInvalid("Unsecured JWS must have 'none' for an algorithm")
    if splits[2]:
        raise TokenInvalid("Unsecured JWS must not contain a digital signature")
    scope = _unsecured_scope(claims, scope_claim)
    expiration = _number_claim(claims, "exp")
    if expiration is None:
        raise TokenInvalid("No expiration time in JWT")
    principal = claims.get(principal_claim)
    if principal is not None and not isinstance(principal, str):
        raise TokenInvalid(f"The '{principal_claim}' claim was not of type String: "
                           f"{_java_type(principal)}")
    if principal is None or not principal.strip():
        raise TokenInvalid(f"No principal name in JWT claim: {principal_claim}")
    issued_at = _number_claim(claims, "iat")
    return OAuthBearerToken(value, principal, _java_round(expiration), scope,
                            None if issued_at is None else _java_round(issued_at), claims)


def _unsecured_scope(claims: Mapping[str, Any], scope_claim: str) -> frozenset[str]:
    value = claims.get(scope_claim)
    if isinstance(value, str):
        return frozenset([value.strip()]) if value.strip() else frozenset()
    if value is None:
        return frozenset()
    if not isinstance(value, list):
        raise TokenInvalid(f"The '{scope_claim}' claim was not of type List: "
                           f"{_java_type(value)}")
    return frozenset(s.strip() for s in value if s.strip())


def parse_scope(space_delimited: str) -> list[str]:
    """``unsecuredValidatorRequiredScope``'s items (ValueError for an invalid one)."""
    items = []
    for item in space_delimited.split(" "):
        if item:
            if not _SCOPE_ITEM.fullmatch(item):
                raise ValueError(f"Invalid scope value: {item}")
            items.append(item)
    return items


def _java_set(items: frozenset[str]) -> str:
    return "[" + ", ".join(hash_set_order(list(items))) + "]"


def _java_list(items: list[str]) -> str:
    return "[" + ", ".join(items) + "]"


@dataclass(frozen=True, slots=True)
class UnsecuredValidator:
    """Kafka's ``OAuthBearerUnsecuredValidatorCallbackHandler``, configured from the JAAS
    options of the listener's ``OAuthBearerLoginModule`` (:meth:`from_options`)."""

    principal_claim: str = "sub"
    scope_claim: str = "scope"
    required_scope: tuple[str, ...] = ()
    allowable_clock_skew_ms: int = 0

    @classmethod
    def from_options(cls, options: Mapping[str, str]) -> UnsecuredValidator:
        """ValueError for options Kafka refuses (a bad scope or clock skew)."""
        def option(name: str) -> str:
            return (options.get(f"unsecuredValidator{name}") or "").strip()

        skew_text = option("AllowableClockSkewMs")
        try:
            skew = int(skew_text) if skew_text else 0
        except ValueError as e:
            raise ValueError(f'For input string: "{skew_text}"') from e
        if skew < 0:
            raise ValueError(f"Allowable clock skew millis must not be negative: {skew_text}")
        required = option("RequiredScope")
        return cls(option("PrincipalClaimName") or "sub", option("ScopeClaimName") or "scope",
                   tuple(parse_scope(required)) if required else (), skew)

    def __call__(self, value: str, now_ms: int) -> OAuthBearerToken:
        token = unsecured_jws(value, self.principal_claim, self.scope_claim)
        claims, skew = token.claims, self.allowable_clock_skew_ms
        principal = claims.get(self.principal_claim)
        if principal is None:
            raise TokenInvalid(f"Required claim missing: {self.principal_claim}")
        issued_at = _number_claim(claims, "iat")
        if issued_at is not None and 1000 * float(issued_at) > now_ms + skew:
            raise TokenInvalid(
                f"The Issued At value ({_java_double(issued_at)} seconds) was after the "
                f"indicated time ({now_ms} ms) plus allowable clock skew ({skew} ms)")
        expiration = _number_claim(claims, "exp")
        assert expiration is not None
        if now_ms - skew >= 1000 * float(expiration):
            raise TokenInvalid(
                f"The indicated time ({now_ms} ms) minus allowable clock skew ({skew} ms) was "
                f"on or after the Expiration Time value ({_java_double(expiration)} seconds)")
        if issued_at is not None and float(expiration) <= float(issued_at):
            raise TokenInvalid(
                f"The Expiration Time time ({_java_double(expiration)} seconds) was not after "
                f"the Issued At time ({_java_double(issued_at)} seconds)")
        for item in self.required_scope:
            if item not in token.scope:
                required = _java_list(list(self.required_scope))
                raise TokenInvalid(
                    f"The provided scope ({_java_set(token.scope)}) was missing a required "
                    f"scope ({item}).  All required scope elements: {required}", scope=required)
        return token


def _refuse_all(value: str, now_ms: int) -> OAuthBearerToken:
    raise TokenInvalid("no OAUTHBEARER validator is configured")


# -- the SASL server --------------------------------------------------------------------------
class OAuthBearerServer:
    """One OAUTHBEARER exchange, server side (Kafka's ``OAuthBearerSaslServer``)."""

    def __init__(self, validator: TokenValidator | None,
                 now_ms: Callable[[], int] = lambda: int(time.time() * 1000)) -> None:
        self.validator = validator or _refuse_all
        self.now_ms = now_ms
        self.complete = False
        self.authorization_id: str | None = None
        #: when the session must end: the token's expiry (KIP-368)
        self.credential_expiry_ms: int | None = None
        self.token: OAuthBearerToken | None = None
        self.extensions: dict[str, str] = {}
        self._error: str | None = None

    def evaluate(self, response: bytes) -> bytes:
        if response == SEPARATOR.encode() and self._error is not None:
            # the client's acknowledgement of our error challenge
            raise SaslFailure(self._error, client_visible=True)
        self._error = None
        first = parse_client_initial_response(response)
        try:
            token = self.validator(first.token, self.now_ms())
        except TokenInvalid as e:
            log.debug("OAUTHBEARER token refused: %s", e.reason)
            self._error = error_challenge(e.status, e.scope, e.openid_configuration)
            return self._error.encode()
        if first.authorization_id and first.authorization_id != token.principal_name:
            raise SaslFailure(
                f"Authentication failed: Client requested an authorization id "
                f"({first.authorization_id}) that is different from the token's principal "
                f"name ({token.principal_name})", client_visible=True)
        # both of Kafka's validators accept every extension
        self.extensions = dict(first.extensions)
        self.token = token
        self.authorization_id = token.principal_name
        self.credential_expiry_ms = token.lifetime_ms
        self.complete = True
        return b""
