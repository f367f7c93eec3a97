"""Delegation tokens' rules (Kafka's DelegationTokenManager), their znode and SCRAM
authentication with ``tokenauth=true``; the same rules against Kafka 3.9 itself are in
tests/compat/differential/test_sasl.py."""

from __future__ import annotations

import base64
import hashlib
import hmac

import pytest

from pybroker.security.delegation_tokens import (
    DELEGATION_TOKEN_EXPIRED,
    DELEGATION_TOKEN_NOT_FOUND,
    DELEGATION_TOKEN_OWNER_MISMATCH,
    NONE,
    TokenCache,
    TokenSettings,
    concurrent_hash_map_order,
    decide_expire,
    decide_renew,
    describable,
    new_token,
    new_token_id,
    token_hmac,
)
from pybroker.security.principal import KafkaPrincipal
from pybroker.security.sasl_errors import SaslFailure
from pybroker.security.scram import SCRAM_SHA_256, SCRAM_SHA_512, ScramClient, ScramServer
from pybroker.zk.znodes import DelegationTokenInfoZNode, ZNodeDecodeError

ALICE, BOB, CAROL = (KafkaPrincipal("User", n) for n in ("alice", "bob", "carol"))
SETTINGS = TokenSettings("secret", max_lifetime_ms=100_000, expiry_time_ms=10_000)
NOW = 1_000_000


def test_token_ids_are_22_url_safe_characters() -> None:
    ids = {new_token_id() for _ in range(100)}
    assert len(ids) == 100
    assert all(len(i) == 22 and set(i) <= set(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_") for i in ids)


def test_the_hmac_is_hmac_sha512_of_the_id() -> None:
    assert token_hmac("id", "secret") == hmac.new(b"secret", b"id", hashlib.sha512).digest()
    assert len(token_hmac("id", "secret")) == 64


@pytest.mark.parametrize(("asked", "max_ts", "expiry_ts"), [
    (0, NOW + 100_000, NOW + 10_000),        # none asked: the broker's maximum
    (-5, NOW + 100_000, NOW + 10_000),
    (5_000, NOW + 5_000, NOW + 5_000),       # shorter than the renewal time
    (50_000, NOW + 50_000, NOW + 10_000),
    (10**9, NOW + 100_000, NOW + 10_000),    # never past the broker's maximum
])
def test_new_tokens_lifetimes(asked: int, max_ts: int, expiry_ts: int) -> None:
    token = new_token(SETTINGS, ALICE, ALICE, [BOB], asked, NOW, token_id="t")
    assert (token.issue_timestamp, token.max_timestamp, token.expiry_timestamp) == \
        (NOW, max_ts, expiry_ts)


def test_renewal_rules() -> None:
    token = new_token(SETTINGS, ALICE, CAROL, [BOB], 0, NOW, token_id="t")
    assert decide_renew(SETTINGS, None, ALICE, 1, NOW).error_code == DELEGATION_TOKEN_NOT_FOUND
    # the requester is neither owner nor renewer
    assert decide_renew(SETTINGS, token, CAROL, 1, NOW).error_code == \
        DELEGATION_TOKEN_OWNER_MISMATCH
    renewed = decide_renew(SETTINGS, token, BOB, 500, NOW + 1)
    assert (renewed.error_code, renewed.expiry_timestamp) == (NONE, NOW + 501)
    assert renewed.updated is not None and renewed.updated.expiry_timestamp == NOW + 501
    assert decide_renew(SETTINGS, token, ALICE, -1, NOW).expiry_timestamp == NOW + 10_000
    assert decide_renew(SETTINGS, token, ALICE, 10**9, NOW).expiry_timestamp == NOW + 100_000
    assert decide_renew(SETTINGS, token, ALICE, 1, NOW + 10_001).error_code == \
        DELEGATION_TOKEN_EXPIRED


def test_expiry_rules() -> None:
    token = new_token(SETTINGS, ALICE, ALICE, [BOB], 0, NOW, token_id="t")
    assert decide_expire(token, CAROL, -1, NOW).error_code == DELEGATION_TOKEN_OWNER_MISMATCH
    soon = decide_expire(token, BOB, 100, NOW)
    assert (soon.error_code, soon.expiry_timestamp, soon.remove) == (NONE, NOW + 100, False)
    # a negative period removes even an expired token; a positive one fails on it
    late = NOW + 20_000
    assert decide_expire(token, ALICE, 5, late).error_code == DELEGATION_TOKEN_EXPIRED
    removed = decide_expire(token, ALICE, -1, late)
    assert (removed.error_code, removed.expiry_timestamp, removed.remove) == (NONE, late, True)


def test_who_may_describe_a_token() -> None:
    token = new_token(SETTINGS, ALICE, CAROL, [BOB], 0, NOW, token_id="t")
    never = lambda _x: False  # noqa: E731
    stranger = KafkaPrincipal("User", "dave")
    assert describable(token, ALICE, None, never, never)
    assert describable(token, BOB, None, never, never)
    assert describable(token, CAROL, None, never, never)  # the requester
    assert not describable(token, stranger, None, never, never)
    assert describable(token, stranger, None, lambda t: t == "t", never)
    assert describable(token, stranger, None, never, lambda o: o == ALICE)
    # an owners filter matches owners, requesters and renewers
    assert describable(token, ALICE, [BOB], never, never)
    assert not describable(token, ALICE, [stranger], never, never)


def test_the_cache_lists_tokens_as_a_concurrent_hash_map_iterates_them() -> None:
    # "Aa" and "BB" share a String.hashCode (2112, bucket 0): insertion order; "a" is 97
    # (bucket 1), "c" 99 (bucket 3)
    assert concurrent_hash_map_order(["c", "BB", "a", "Aa"]) == ["BB", "Aa", "a", "c"]
    cache = TokenCache()
    for token_id in ("c", "a"):
        cache.update(new_token(SETTINGS, ALICE, ALICE, [], 0, NOW, token_id=token_id),
                     token_hmac(token_id, "secret"))
    assert [t.token_id for t in cache.tokens()] == ["a", "c"]
    assert cache.token_for_hmac(token_hmac("c", "secret")).token_id == "c"
    cache.remove("c")
    assert cache.token_for_hmac(token_hmac("c", "secret")) is None
    assert [t.token_id for t in cache.tokens()] == ["a"]


def test_scram_authenticates_a_token_as_its_owner() -> None:
    cache = TokenCache()
    token = new_token(SETTINGS, ALICE, ALICE, [], 0, NOW, token_id="tok")
    mac = token_hmac("tok", "secret")
    cache.update(token, mac)
    for mechanism in (SCRAM_SHA_256, SCRAM_SHA_512):
        server = ScramServer(mechanism, lambda user, mech: None, token_lookup=cache.credential)
        client = ScramClient(mechanism, "tok", base64.b64encode(mac).decode(), token_auth=True)
        server_first = server.evaluate(client.first())
        assert server_first.decode().endswith(f",i={mechanism.min_iterations}")
        client.verify(server.evaluate(client.final(server_first)))
        assert server.complete and server.authorization_id == "alice"
        assert server.token_authenticated and server.credential_expiry_ms == NOW + 10_000
    # without tokenauth the token id is a user name like any other (none here)
    server = ScramServer(SCRAM_SHA_256, lambda user, mech: None, token_lookup=cache.credential)
    with pytest.raises(SaslFailure):
        server.evaluate(ScramClient(SCRAM_SHA_256, "tok", "x").first())


def test_the_znode_is_kafkas() -> None:
    token = new_token(SETTINGS, ALICE, CAROL, [BOB, KafkaPrincipal("User", "a b")], 0, NOW,
                      token_id="tok")
    data = DelegationTokenInfoZNode.encode(token)
    assert DelegationTokenInfoZNode.decode(data) == token
    assert b'"owner":"User%3Aalice"' in data and b'"User%3Aa%20b"' in data
    # version 1 and 2 had no requester: it is the owner
    old = (b'{"version":2,"owner":"User%3Aalice","renewers":[],"issueTimestamp":1,'
           b'"maxTimestamp":3,"expiryTimestamp":2,"tokenId":"t"}')
    decoded = DelegationTokenInfoZNode.decode(old)
    assert decoded is not None and decoded.token_requester == ALICE
    assert DelegationTokenInfoZNode.decode(b"") is None
    for bad in (b"[]", b'{"version":9}', b'{"version":3,"owner":"nocolon"}', b"{"):
        with pytest.raises(ZNodeDecodeError):
            DelegationTokenInfoZNode.decode(bad)
