"""Delegation tokens (KIP-48) as Kafka 3.9's ``DelegationTokenManager`` keeps them.

A token is issued to an owner (``User:alice``) by a requester, names the principals that may
renew it, and has three times: when it was issued, when it expires unless renewed, and the
most it may live (``delegation.token.max.lifetime.ms`` after its issue). Its id is a random
UUID in URL-safe base64; its HMAC (the password a client authenticates with) is HmacSHA512 of
the id under ``delegation.token.secret.key``, so every broker with the same key derives it and
only the information is stored. A client authenticates with SCRAM, the token id as user name,
the HMAC in base64 as password and the ``tokenauth=true`` extension: :class:`TokenCache` keeps
the SCRAM credentials of every token for that, as Kafka's ``DelegationTokenCache`` does.

The functions here decide (the error, the new expiry); whoever stores the tokens
(:mod:`pybroker.modes.zookeeper.delegation_tokens`: ZooKeeper, or the embedded node's tree)
applies what they decide. Time is what the caller passes.
"""

from __future__ import annotations

import base64
import hashlib
import hmac as hmac_lib
import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace

from pybroker.jvm import string_hash
from pybroker.security.principal import KafkaPrincipal
from pybroker.security.scram import MECHANISMS, ScramCredential, ScramMechanism, new_credential

# Kafka's error codes (protocol.errors values)
NONE = 0
DELEGATION_TOKEN_AUTH_DISABLED, DELEGATION_TOKEN_NOT_FOUND = 61, 62
DELEGATION_TOKEN_OWNER_MISMATCH, DELEGATION_TOKEN_EXPIRED = 63, 66
#: what Kafka answers for a timestamp when it fails a request
ERROR_TIMESTAMP = -1


def new_token_id() -> str:
    """Kafka's ``CoreUtils.generateUuidAsBase64``: a random UUID's 16 bytes, URL-safe base64
    without padding (22 characters)."""
    return base64.urlsafe_b64encode(uuid.uuid4().bytes).rstrip(b"=").decode("ascii")


def token_hmac(token_id: str, secret_key: str) -> bytes:
    """HmacSHA512 of the token id under the secret key (both UTF-8)."""
    return hmac_lib.new(secret_key.encode(), token_id.encode(), hashlib.sha512).digest()


def hmac_base64(mac: bytes) -> str:
    """The password a client authenticates with (``DelegationToken.hmacAsBase64String``)."""
    return base64.b64encode(mac).decode("ascii")


@dataclass(frozen=True, slots=True)
class TokenInformation:
    token_id: str
    owner: KafkaPrincipal
    token_requester: KafkaPrincipal
    renewers: tuple[KafkaPrincipal, ...]
    issue_timestamp: int
    max_timestamp: int
    expiry_timestamp: int

    def owner_or_renewer(self, principal: KafkaPrincipal) -> bool:
        """``TokenInformation.ownerOrRenewer``: the owner, the requester or a renewer."""
        return principal in (self.owner, self.token_requester) or principal in self.renewers

    def may_renew(self, principal: KafkaPrincipal) -> bool:
        """``allowedToRenew``: the owner or a renewer (the requester is neither)."""
        return principal == self.owner or principal in self.renewers

    def expired(self, now_ms: int) -> bool:
        return self.max_timestamp < now_ms or self.expiry_timestamp < now_ms


@dataclass(frozen=True, slots=True)
class TokenSettings:
    """``delegation.token.*``: tokens are on only with a secret key."""

    secret_key: str | None
    max_lifetime_ms: int = 7 * 24 * 3600 * 1000
    expiry_time_ms: int = 24 * 3600 * 1000
    expiry_check_interval_ms: int = 3600 * 1000

    @property
    def enabled(self) -> bool:
        return bool(self.secret_key)


def new_token(settings: TokenSettings, owner: KafkaPrincipal, requester: KafkaPrincipal,
              renewers: Sequence[KafkaPrincipal], max_lifetime_ms: int, now_ms: int, *,
              token_id: str | None = None) -> TokenInformation:
    """``createToken``: a lifetime of at most the broker's (its own when the request asks for
    none), expiring after ``delegation.token.expiry.time.ms`` unless renewed."""
    lifetime = settings.max_lifetime_ms if max_lifetime_ms <= 0 \
        else min(max_lifetime_ms, settings.max_lifetime_ms)
    max_timestamp = now_ms + lifetime
    return TokenInformation(token_id or new_token_id(), owner, requester, tuple(renewers),
                            now_ms, max_timestamp,
                            min(max_timestamp, now_ms + settings.expiry_time_ms))


@dataclass(frozen=True, slots=True)
class Decision:
    """What a renewal or an expiry comes to: the error, the expiry timestamp to answer, and
    the token's new information (None: nothing to write), or ``remove`` it."""

    error_code: int
    expiry_timestamp: int = ERROR_TIMESTAMP
    updated: TokenInformation | None = None
    remove: bool = False


def decide_renew(settings: TokenSettings, token: TokenInformation | None,
                 principal: KafkaPrincipal, renew_period_ms: int, now_ms: int) -> Decision:
    """``renewToken``: the owner or a renewer pushes the expiry out by the period asked (the
    broker's default when negative), never past the token's maximum."""
    if token is None:
        return Decision(DELEGATION_TOKEN_NOT_FOUND)
    if not token.may_renew(principal):
        return Decision(DELEGATION_TOKEN_OWNER_MISMATCH)
    if token.expired(now_ms):
        return Decision(DELEGATION_TOKEN_EXPIRED)
    period = settings.expiry_time_ms if renew_period_ms < 0 else renew_period_ms
    expiry = min(token.max_timestamp, now_ms + period)
    return Decision(NONE, expiry, replace(token, expiry_timestamp=expiry))


def decide_expire(token: TokenInformation | None, principal: KafkaPrincipal,
                  expiry_period_ms: int, now_ms: int) -> Decision:
    """``expireToken``: a negative period removes the token at once (even an expired one);
    otherwise its expiry moves to that long from now, never past its maximum."""
    if token is None:
        return Decision(DELEGATION_TOKEN_NOT_FOUND)
    if not token.may_renew(principal):
        return Decision(DELEGATION_TOKEN_OWNER_MISMATCH)
    if expiry_period_ms < 0:
        return Decision(NONE, now_ms, remove=True)
    if token.expired(now_ms):
        return Decision(DELEGATION_TOKEN_EXPIRED)
    expiry = min(token.max_timestamp, now_ms + expiry_period_ms)
    return Decision(NONE, expiry, replace(token, expiry_timestamp=expiry))


def describable(token: TokenInformation, requester: KafkaPrincipal,
                owners: Sequence[KafkaPrincipal] | None,
                may_describe_token: Callable[[str], bool],
                may_describe_owner: Callable[[KafkaPrincipal], bool]) -> bool:
    """``DelegationTokenManager.filterToken``: a token of the owners asked for (all when
    None), that the requester owns, requested or renews, or may describe (DESCRIBE on the
    token, or DESCRIBE_TOKENS on its owner)."""
    if owners is not None and not any(token.owner_or_renewer(o) for o in owners):
        return False
    return (token.owner_or_renewer(requester) or may_describe_token(token.token_id)
            or may_describe_owner(token.owner))


def concurrent_hash_map_order(keys: Iterable[str]) -> list[str]:
    """The order a ``ConcurrentHashMap`` filled with these keys one by one iterates them
    (Kafka's token cache, which DescribeDelegationToken lists): 16 buckets, doubled when the
    count reaches 3/4 of them; bucket by bucket, each in insertion order."""
    distinct = list(dict.fromkeys(keys))
    size = 16
    for count in range(1, len(distinct) + 1):
        if count >= size - (size >> 2):
            size <<= 1

    def bucket(key: str) -> int:
        h = string_hash(key) & 0xFFFFFFFF
        return (h ^ (h >> 16)) & 0x7FFFFFFF & (size - 1)

    return sorted(distinct, key=bucket)


@dataclass(slots=True)
class _Entry:
    info: TokenInformation
    hmac: bytes
    #: the SCRAM credential of each mechanism, made once per token (salted as any credential)
    credentials: dict[str, ScramCredential] = field(default_factory=dict)


class TokenCache:
    """Every token this broker knows, by id, with its HMAC and SCRAM credentials (Kafka's
    ``DelegationTokenCache``); fed by whoever stores the tokens. ``credential_maker`` makes a
    SCRAM credential from the HMAC's base64 (Kafka salts each one with the mechanism's
    minimum iterations)."""

    def __init__(self, credential_maker: Callable[[ScramMechanism, str], ScramCredential]
                 = lambda mechanism, password: new_credential(
                     mechanism, password, mechanism.min_iterations)) -> None:
        self._tokens: dict[str, _Entry] = {}
        self._by_hmac: dict[bytes, str] = {}
        self._order: list[str] = []
        self._make = credential_maker

    def update(self, info: TokenInformation, mac: bytes) -> None:
        """Add or replace a token (a renewal keeps its credentials: the HMAC is the same)."""
        entry = self._tokens.get(info.token_id)
        if entry is not None and entry.hmac == mac:
            entry.info = info
            return
        self.remove(info.token_id)
        password = hmac_base64(mac)
        self._tokens[info.token_id] = _Entry(
            info, mac, {name: self._make(m, password) for name, m in MECHANISMS.items()})
        self._by_hmac[mac] = info.token_id
        self._order.append(info.token_id)

    def remove(self, token_id: str) -> None:
        entry = self._tokens.pop(token_id, None)
        if entry is not None:
            self._by_hmac.pop(entry.hmac, None)
            self._order.remove(token_id)

    def token(self, token_id: str) -> TokenInformation | None:
        entry = self._tokens.get(token_id)
        return entry.info if entry is not None else None

    def hmac_of(self, token_id: str) -> bytes | None:
        entry = self._tokens.get(token_id)
        return entry.hmac if entry is not None else None

    def token_for_hmac(self, mac: bytes) -> TokenInformation | None:
        token_id = self._by_hmac.get(bytes(mac))
        return self.token(token_id) if token_id is not None else None

    def tokens(self) -> list[TokenInformation]:
        """Every token, in the order Kafka's cache iterates them."""
        return [self._tokens[t].info for t in concurrent_hash_map_order(self._order)]

    def credential(self, token_id: str, mechanism: ScramMechanism,
                   ) -> tuple[ScramCredential, str, int] | None:
        """What SCRAM authentication with ``tokenauth=true`` looks up (Kafka's
        ``ScramServerCallbackHandler``): the token's credential, its owner's name and its
        expiry; None for a token this broker does not know."""
        entry = self._tokens.get(token_id)
        if entry is None:
            return None
        return (entry.credentials[mechanism.name], entry.info.owner.name,
                entry.info.expiry_timestamp)
