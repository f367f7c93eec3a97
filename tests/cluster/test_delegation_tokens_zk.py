"""Delegation tokens in a ZooKeeper-mode cluster (KIP-48), kept as Kafka 3.9's
``DelegationTokenManagerZk`` keeps them: a token made through one broker is written under
``/delegation_token/tokens/<id>`` (its information, never its HMAC) and announced under
``/delegation_token/token_changes``; the other broker then authenticates it (SCRAM,
``tokenauth=true``) and describes it, a broker restarted reads it back, a renewal through the
second broker reaches the first, and once expired the active controller removes it
(``delegation.token.expiry.check.interval.ms``) from ZooKeeper and from every broker."""

from __future__ import annotations

import base64
import json
import time
from pathlib import Path

from kazoo.client import KazooClient

from protocol.messages import (
    create_delegation_token_request as create_req,
    describe_delegation_token_request as describe_req,
    expire_delegation_token_request as expire_req,
    renew_delegation_token_request as renew_req,
)
from pybroker.security.sasl_client import SaslClientCredentials
from pybroker.testing.broker_process import free_port
from pybroker.testing.cluster import ClusterProcesses
from pybroker.testing.wire_client import WireClient

JAAS = ('org.apache.kafka.common.security.plain.PlainLoginModule required '
        'username="admin" password="admin-secret" user_admin="admin-secret" '
        'user_alice="alice-secret" user_bob="bob-secret";')


def login(bootstrap: str, user: str) -> WireClient:
    client = WireClient(bootstrap)
    answer = client.authenticate(SaslClientCredentials("PLAIN", user, f"{user}-secret"))
    assert answer.error_code == 0, answer
    return client


def token_authenticates(bootstrap: str, token_id: str, mac: bytes) -> bool:
    with WireClient(bootstrap) as client:
        answer = client.authenticate(SaslClientCredentials(
            "SCRAM-SHA-256", token_id, base64.b64encode(mac).decode(), token_auth=True))
        return answer.error_code == 0


def described(bootstrap: str, user: str) -> dict[str, int]:
    """The tokens ``user`` sees there: id -> expiry timestamp."""
    with login(bootstrap, user) as client:
        r = client.call(41, 3, describe_req.DescribeDelegationTokenRequest(owners=None))
        assert r.error_code == 0, r
        return {t.token_id: t.expiry_timestamp for t in r.tokens}


def wait_until(condition, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.2)


def test_tokens_reach_every_broker_and_expire_on_the_controller(
        tmp_path: Path, zk_connect: str, zk: KazooClient) -> None:
    cluster = ClusterProcesses(tmp_path / "cluster", zk_connect, size=2, overrides={
        "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT",
        "inter.broker.listener.name": "PLAINTEXT",
        "sasl.enabled.mechanisms": "PLAIN,SCRAM-SHA-256",
        "listener.name.sasl_plaintext.plain.sasl.jaas.config": JAAS,
        "delegation.token.secret.key": "cluster-token-secret",
        "delegation.token.expiry.check.interval.ms": 500,
    })
    sasl = {}
    for broker_id, broker in cluster.brokers.items():
        sasl[broker_id] = f"127.0.0.1:{free_port()}"
        listeners = f"PLAINTEXT://127.0.0.1:{broker.port},SASL_PLAINTEXT://{sasl[broker_id]}"
        broker.extra_overrides.update({"listeners": listeners,
                                       "advertised.listeners": listeners})
    try:
        cluster.start()
        cluster.wait_formed()
        with login(sasl[1], "alice") as alice:
            created = alice.call(38, 3, create_req.CreateDelegationTokenRequest(
                renewers=[create_req.CreatableRenewers("User", "bob")]))
        assert created.error_code == 0, created
        token_id, mac = created.token_id, created.hmac

        # the znode, as Kafka writes it: the information, sanitized principals, no HMAC
        node = json.loads(zk.get(f"/delegation_token/tokens/{token_id}")[0])
        assert node == {"version": 3, "owner": "User%3Aalice", "tokenRequester": "User%3Aalice",
                        "renewers": ["User%3Abob"], "issueTimestamp": created.issue_timestamp_ms,
                        "expiryTimestamp": created.expiry_timestamp_ms,
                        "maxTimestamp": created.max_timestamp_ms, "tokenId": token_id}
        changes = zk.get_children("/delegation_token/token_changes")
        assert any(n.startswith("token_change_") and
                   zk.get(f"/delegation_token/token_changes/{n}")[0] == token_id.encode()
                   for n in changes), changes

        # broker 2 hears of it: it authenticates the token and describes it
        wait_until(lambda: token_authenticates(sasl[2], token_id, mac), 30,
                   "broker 2 never authenticated the token")
        assert not token_authenticates(sasl[2], token_id, b"\0" * 64)
        assert set(described(sasl[2], "bob")) == {token_id}
        assert described(sasl[2], "admin") == {token_id: created.expiry_timestamp_ms}

        # a restarted broker reads it back from ZooKeeper
        cluster.brokers[2].restart()
        assert token_authenticates(sasl[2], token_id, mac)

        # bob renews it through broker 2 for a moment; broker 1 sees the new expiry
        with login(sasl[2], "bob") as bob:
            renewed = bob.call(39, 2, renew_req.RenewDelegationTokenRequest(
                hmac=mac, renew_period_ms=3000))
        assert renewed.error_code == 0, renewed
        wait_until(lambda: described(sasl[1], "alice").get(token_id)
                   == renewed.expiry_timestamp_ms, 30, "broker 1 never saw the renewal")

        # past its expiry the controller removes it, from ZooKeeper and both brokers
        wait_until(lambda: not zk.exists(f"/delegation_token/tokens/{token_id}"), 30,
                   "the expired token was never removed")
        for bootstrap in sasl.values():
            wait_until(lambda b=bootstrap: not token_authenticates(b, token_id, mac), 30,
                       f"{bootstrap} still authenticates a removed token")
            assert described(bootstrap, "alice") == {}
        with login(sasl[1], "alice") as alice:
            gone = alice.call(40, 2, expire_req.ExpireDelegationTokenRequest(
                hmac=mac, expiry_time_period_ms=-1))
        assert gone.error_code == 62  # DELEGATION_TOKEN_NOT_FOUND
    finally:
        cluster.stop()
