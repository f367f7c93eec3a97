"""KIP-768's validation of signed JWTs for SASL/OAUTHBEARER, as Kafka's
``OAuthBearerValidatorCallbackHandler`` (``ValidatorAccessTokenValidator`` over jose4j) does it.

The verification keys are a JWKS (RFC 7517) read from ``sasl.oauthbearer.jwks.endpoint.url``:

- a ``file:`` URL is read once, when the listener is set up (:class:`FileJwks`);
- an ``http(s):`` URL is fetched by a thread of its own (:class:`RefreshingHttpJwks`), never on
  the event loop: first when the listener is set up, then every
  ``sasl.oauthbearer.jwks.endpoint.refresh.ms``, retrying with
  ``sasl.oauthbearer.jwks.endpoint.retry.backoff.ms`` doubling up to ``...backoff.max.ms``; a
  token whose ``kid`` no cached key has asks for an early refresh (once a minute per key id,
  as Kafka's ``RefreshingHttpsJwks``). Validation reads the cached keys only.

A token must be a JWS with an algorithm other than ``none``, signed by the first key of the set
that fits its header (``kid``, key type, ``alg``, ``use``), with ``exp`` and ``iat``, not
expired (``sasl.oauthbearer.clock.skew.seconds`` of leeway), and with the expected ``aud``
(any one of ``sasl.oauthbearer.expected.audience``; without it a token naming an audience is
refused, as jose4j's default) and ``iss`` (``sasl.oauthbearer.expected.issuer``). The
principal is the ``sasl.oauthbearer.sub.claim.name`` claim, the scope the
``sasl.oauthbearer.scope.claim.name`` claim. Signatures are checked with PyJWT
(``cryptography`` for RSA, EC and EdDSA keys).
"""

from __future__ import annotations

import json
import logging
import threading
import time
import urllib.parse
import urllib.request
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import jwt
from jwt.api_jws import PyJWS

from pybroker.security.oauthbearer import OAuthBearerToken, TokenInvalid
from pybroker.security.sasl_errors import SaslFailure

log = logging.getLogger(__name__)

#: how long an early refresh for one missing key id keeps others from asking again
MISSING_KEY_ID_IN_FLIGHT_MS = 60000
MISSING_KEY_ID_CACHE_MAX_ENTRIES = 16
MISSING_KEY_ID_MAX_LENGTH = 1000
#: how long one fetch of the JWKS may take
FETCH_TIMEOUT_S = 10.0

#: the key type each algorithm family verifies with
_KEY_TYPES = {"RS": "RSA", "PS": "RSA", "ES": "EC", "HS": "oct", "Ed": "OKP"}


def parse_jwks(text: str | bytes) -> list[dict[str, Any]]:
    """The keys of a JWKS document (ValueError when it is not one)."""
    try:
        document = json.loads(text)
    except ValueError as e:
        raise ValueError(f"the JWKS is not JSON: {e}") from e
    keys = document.get("keys") if isinstance(document, dict) else None
    if not isinstance(keys, list):
        raise ValueError("the JWKS has no \"keys\" array")
    return [k for k in keys if isinstance(k, dict) and isinstance(k.get("kty"), str)]


class JwksSource(Protocol):
    location: str

    def keys(self) -> Sequence[Mapping[str, Any]]: ...

    def missing_key(self, key_id: str | None) -> None: ...

    def close(self) -> None: ...


class FileJwks:
    """A JWKS file, read once (Kafka's ``JwksFileVerificationKeyResolver``)."""

    def __init__(self, path: Path) -> None:
        self.location = str(path)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as e:
            raise ValueError(f"cannot read the JWKS file {path}: {e}") from e
        self._keys = parse_jwks(text)

    def keys(self) -> Sequence[Mapping[str, Any]]:
        return self._keys

    def missing_key(self, key_id: str | None) -> None:
        pass

    def close(self) -> None:
        pass


def fetch_jwks(url: str, timeout_s: float = FETCH_TIMEOUT_S) -> list[dict[str, Any]]:
    """One GET of a JWKS endpoint (blocking: call it from a thread)."""
    request = urllib.request.Request(url, headers={"Accept": "application/json"})
    with urllib.request.urlopen(request, timeout=timeout_s) as response:  # noqa: S310
        return parse_jwks(response.read())


class RefreshingHttpJwks:
    """A JWKS endpoint's keys, kept fresh by a daemon thread (Kafka's
    ``RefreshingHttpsJwks``); :meth:`keys` only reads the cache."""

    def __init__(self, url: str, refresh_ms: int, retry_backoff_ms: int,
                 retry_backoff_max_ms: int,
                 fetch: Callable[[str], list[dict[str, Any]]] = fetch_jwks,
                 clock_ms: Callable[[], int] = lambda: int(time.time() * 1000)) -> None:
        if refresh_ms <= 0:
            raise ValueError("JWKS validation key refresh configuration value retryWaitMs "
                             "value must be positive")
        self.location = url
        self.refresh_ms = refresh_ms
        self.retry_backoff_ms = max(0, retry_backoff_ms)
        self.retry_backoff_max_ms = max(0, retry_backoff_max_ms)
        self._fetch = fetch
        self._clock_ms = clock_ms
        self._lock = threading.Lock()
        self._keys: list[dict[str, Any]] = []
        self._missing: OrderedDict[str, int] = OrderedDict()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._first = threading.Event()
        self._first_error: Exception | None = None
        self._thread = threading.Thread(target=self._run, name=f"jwks-refresh {url}",
                                        daemon=True)

    def start(self, wait_s: float | None) -> None:
        """Start the refreshing thread; with ``wait_s``, wait that long for the first fetch
        (ValueError when it failed, as Kafka's broker refuses to start)."""
        self._thread.start()
        if wait_s is None:
            return
        if not self._first.wait(wait_s):
            self.close()
            raise ValueError(f"Could not refresh JWKS from {self.location}: no answer in "
                             f"{wait_s:g} s")
        if self._first_error is not None:
            self.close()
            raise ValueError(f"Could not refresh JWKS from {self.location}: "
                             f"{self._first_error}") from self._first_error

    def keys(self) -> Sequence[Mapping[str, Any]]:
        with self._lock:
            return self._keys

    def missing_key(self, key_id: str | None) -> None:
        """A token named a key the cache lacks: refresh now, unless a refresh for that key id
        was asked for within the last minute."""
        if key_id is None:
            # Kafka's resolver dereferences the absent key id (a NullPointerException that
            # closes the connection)
            raise SaslFailure("no verification key and no key id", unanswered=True)
        if len(key_id) > MISSING_KEY_ID_MAX_LENGTH:
            log.warning("Key ID %s (trimmed to first %d characters out of %d total) was too "
                        "long to cache", key_id[:MISSING_KEY_ID_MAX_LENGTH],
                        MISSING_KEY_ID_MAX_LENGTH, len(key_id))
            return
        now = self._clock_ms()
        with self._lock:
            next_check = self._missing.get(key_id)
            if next_check is not None and next_check > now:
                self._missing.move_to_end(key_id)
                return
            self._missing[key_id] = now + MISSING_KEY_ID_IN_FLIGHT_MS
            self._missing.move_to_end(key_id)
            while len(self._missing) > MISSING_KEY_ID_CACHE_MAX_ENTRIES:
                self._missing.popitem(last=False)
        log.debug("refreshing JWKS from %s early for key id %s", self.location, key_id)
        self._wake.set()

    def close(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout=FETCH_TIMEOUT_S + 1)

    # -- the thread ----------------------------------------------------------------------------
    def _run(self) -> None:
        try:
            self._keys = self._fetch(self.location)
            log.info("JWKS validation key refresh thread started with a refresh interval of "
                     "%d ms", self.refresh_ms)
        except Exception as e:  # noqa: BLE001 - any failure of the first fetch is reported
            self._first_error = e
            log.warning("OAuth JWKS fetch of %s failed: %s", self.location, e)
        finally:
            self._first.set()
        while not self._stop.is_set():
            self._wake.wait(self.refresh_ms / 1000)
            self._wake.clear()
            if self._stop.is_set():
                return
            self._refresh()

    def _refresh(self) -> None:
        backoff = self.retry_backoff_ms
        waited = 0
        while not self._stop.is_set():
            try:
                keys = self._fetch(self.location)
            except Exception as e:  # noqa: BLE001 - retried, then logged
                if waited + backoff > self.retry_backoff_max_ms:
                    log.warning("OAuth JWKS refresh of %s encountered an error; not updating "
                                "local JWKS cache: %s", self.location, e)
                    return
                if self._stop.wait(backoff / 1000):
                    return
                waited += backoff
                backoff = min(max(1, backoff * 2), self.retry_backoff_max_ms)
                continue
            with self._lock:
                for key in keys:
                    kid = key.get("kid")
                    if isinstance(kid, str):
                        self._missing.pop(kid, None)
                self._keys = keys
            log.info("OAuth JWKS refresh of %s complete", self.location)
            return


def jwks_source(url: str, refresh_ms: int, retry_backoff_ms: int, retry_backoff_max_ms: int,
                *, wait_s: float | None) -> JwksSource:
    """The JWKS of ``sasl.oauthbearer.jwks.endpoint.url`` (ValueError with Kafka's words for a
    URL it refuses)."""
    name = "sasl.oauthbearer.jwks.endpoint.url"
    parsed = urllib.parse.urlparse(url)
    scheme = parsed.scheme.lower()
    if not scheme:
        raise ValueError(f"The OAuth configuration option {name} contains a URL ({url}) that "
                         f"is malformed: no protocol: {url}")
    if scheme not in ("http", "https", "file"):
        raise ValueError(f"The OAuth configuration option {name} contains a URL ({url}) that "
                         f"contains an invalid protocol ({scheme}); only \"http\", \"https\", "
                         f"and \"file\" protocol are supported")
    if scheme == "file":
        path = Path(urllib.parse.unquote(parsed.path)).absolute()
        if not path.exists():
            raise ValueError(f"The OAuth configuration option {name} contains a file ({path}) "
                             f"that doesn't exist")
        if path.is_dir():
            raise ValueError(f"The OAuth configuration option {name} references a directory "
                             f"({path}), not a file")
        return FileJwks(path)
    if refresh_ms < 0:
        raise ValueError("The OAuth configuration option "
                         "sasl.oauthbearer.jwks.endpoint.refresh.ms value must be at least 0")
    source = RefreshingHttpJwks(url, refresh_ms, retry_backoff_ms, retry_backoff_max_ms)
    source.start(wait_s)
    return source


# -- validation -------------------------------------------------------------------------------
def _section(section: str, name: str) -> str:
    section = section.strip()
    if not section:
        raise TokenInvalid(f"Malformed JWT provided; expected at least three sections (header, "
                           f"payload, and signature), but {name} section missing")
    return section


def _selected_key(keys: Sequence[Mapping[str, Any]], header: Mapping[str, Any]
                  ) -> Mapping[str, Any] | None:
    """The first key that fits the header, as jose4j's ``VerificationJwkSelector`` picks it."""
    alg = header.get("alg")
    kid = header.get("kid")
    key_type = _KEY_TYPES.get(str(alg)[:2])
    for key in keys:
        if kid is not None and key.get("kid") != kid:
            continue
        if key.get("kty") != key_type:
            continue
        if key.get("use") not in (None, "sig"):
            continue
        if key.get("alg") not in (None, alg):
            continue
        return key
    return None


def _number(claims: Mapping[str, Any], name: str) -> int | None:
    value = claims.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TokenInvalid(f"The value of the '{name}' claim is not the expected type")
    return int(value)  # jose4j keeps whole seconds


def _string_claim(claims: Mapping[str, Any], name: str) -> str | None:
    value = claims.get(name)
    if value is not None and not isinstance(value, str):
        raise TokenInvalid(f"Could not extract the '{name}' claim from the access token")
    return value


def _validated_string(name: str, value: str | None) -> str:
    if value is None:
        raise TokenInvalid(f"{name} value must be non-null")
    if not value:
        raise TokenInvalid(f"{name} value must be non-empty")
    value = value.strip()
    if not value:
        raise TokenInvalid(f"{name} value must not contain only whitespace")
    return value


@dataclass
class JwtValidator:
    """Kafka's ``ValidatorAccessTokenValidator``: a signed JWT's signature and claims."""

    source: JwksSource
    clock_skew_s: int = 30
    expected_audiences: frozenset[str] | None = None
    expected_issuer: str | None = None
    scope_claim: str = "scope"
    sub_claim: str = "sub"

    def close(self) -> None:
        """Stop refreshing the keys (blocking: the refresh thread is joined)."""
        self.source.close()

    def __call__(self, value: str, now_ms: int) -> OAuthBearerToken:
        token = value.strip()
        if not token:
            raise TokenInvalid("Empty JWT provided; expected three sections (header, payload, "
                               "and signature)")
        splits = token.split(".")
        while splits and splits[-1] == "":
            splits.pop()
        if len(splits) != 3:
            raise TokenInvalid(f"Malformed JWT provided ({token}); expected three sections "
                               f"(header, payload, and signature), but {len(splits)} sections "
                               f"provided")
        for section, name in zip(splits, ("header", "payload", "signature"), strict=True):
            _section(section, name)
        claims = self._verified_claims(token)
        self._check_claims(claims, now_ms // 1000)
        scope_raw = claims.get(self.scope_claim)
        if isinstance(scope_raw, str):
            scope_items: list[Any] = [scope_raw]
        elif isinstance(scope_raw, list):
            scope_items = scope_raw
        else:
            scope_items = []
        scope: set[str] = set()
        for item in scope_items:
            item = _validated_string(self.scope_claim, item if isinstance(item, str) else None)
            if item in scope:
                raise TokenInvalid(f"{self.scope_claim} value must not contain duplicates - "
                                   f"{item} already present")
            scope.add(item)
        expiration = _number(claims, "exp")
        sub = _validated_string(self.sub_claim, _string_claim(claims, self.sub_claim))
        issued_at = _number(claims, "iat")
        if expiration is None:
            raise TokenInvalid("exp value must be non-null")
        if expiration < 0:
            raise TokenInvalid(f'exp value must be non-negative; value given was '
                               f'"{expiration * 1000}"')
        if issued_at is not None and issued_at < 0:
            raise TokenInvalid(f'iat value must be null or non-negative; value given was '
                               f'"{issued_at * 1000}"')
        return OAuthBearerToken(token, sub, expiration * 1000, frozenset(scope),
                                None if issued_at is None else issued_at * 1000, claims)

    def _verified_claims(self, token: str) -> dict[str, Any]:
        try:
            header = jwt.get_unverified_header(token)
        except jwt.PyJWTError as e:
            raise TokenInvalid(f"Could not validate the access token: {e}") from e
        alg = header.get("alg")
        if not isinstance(alg, str) or not alg or alg == "none":
            raise TokenInvalid("Could not validate the access token: 'none' is not a permitted "
                               "algorithm")
        key = _selected_key(self.source.keys(), header)
        if key is None:
            kid = header.get("kid")
            self.source.missing_key(kid if isinstance(kid, str) else None)
            raise TokenInvalid(f"Unable to find a suitable verification key for JWS w/ header "
                               f"{json.dumps(header)} obtained from {self.source.location}")
        try:
            verification_key = jwt.PyJWK(dict(key), algorithm=alg).key
            verified = PyJWS().decode_complete(token, verification_key, algorithms=[alg])
            claims = json.loads(verified["payload"])
        except (jwt.PyJWTError, ValueError, TypeError) as e:
            raise TokenInvalid(f"Could not validate the access token: {e}") from e
        if not isinstance(claims, dict):
            raise TokenInvalid("Could not validate the access token: the payload is not a JSON "
                               "object")
        return claims

    def _check_claims(self, claims: Mapping[str, Any], now_s: int) -> None:
        """jose4j's claim checks: exp and iat present, exp (and nbf) with the clock skew, the
        audience and the issuer."""
        expiration = _number(claims, "exp")
        if expiration is None:
            raise TokenInvalid("No Expiration Time (exp) claim present.")
        if _number(claims, "iat") is None:
            raise TokenInvalid("No Issued At (iat) claim present.")
        if now_s - self.clock_skew_s >= expiration:
            raise TokenInvalid(f"The JWT is no longer valid - the evaluation time {now_s} is on "
                               f"or after the Expiration Time (exp={expiration}) claim value")
        not_before = _number(claims, "nbf")
        if not_before is not None and now_s + self.clock_skew_s < not_before:
            raise TokenInvalid(f"The JWT is not yet valid as the evaluation time {now_s} is "
                               f"before the Not Before (nbf={not_before}) claim time")
        audience = claims.get("aud")
        if isinstance(audience, str):
            audiences = [audience]
        elif audience is None:
            audiences = None
        elif isinstance(audience, list) and all(isinstance(a, str) for a in audience):
            audiences = audience
        else:
            raise TokenInvalid("The value of the 'aud' claim is not the expected type")
        expected = self.expected_audiences or frozenset()
        if audiences is None:
            if expected:
                raise TokenInvalid("No Audience (aud) claim present.")
        elif not expected.intersection(audiences):
            raise TokenInvalid(f"Audience (aud) claim {audiences} doesn't contain an acceptable "
                               f"identifier. Expected {sorted(expected)} as an aud value.")
        if self.expected_issuer is not None:
            issuer = claims.get("iss")
            if issuer is None:
                raise TokenInvalid("No Issuer (iss) claim present but was expecting "
                                   f"{self.expected_issuer}")
            if issuer != self.expected_issuer:
                raise TokenInvalid(f"Issuer (iss) claim value ({issuer}) doesn't match expected "
                                   f"value of {self.expected_issuer}")
