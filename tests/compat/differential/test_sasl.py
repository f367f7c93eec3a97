"""SASL side by side: a pybroker and a reference Apache Kafka 3.9 with the same SASL_PLAINTEXT
listener (PLAIN users from the listener's JAAS config, SCRAM users made with
AlterUserScramCredentials) go through the same exchanges in hand-built frames, and what each
answers - error codes, messages, offered mechanisms, session lifetimes, whether the connection
is closed - is compared. Each also has a SASL_SSL listener (certificates from
pybroker/testing/certs.py), where one scenario compares SCRAM and PLAIN inside TLS.

Both have a delegation token secret key and Kafka's ACL authorizer (``User:admin`` and
``User:ANONYMOUS`` super users, nothing allowed without an ACL), and one scenario goes through
the delegation tokens' rules (KIP-48): where they may be asked for, who may create, renew,
expire and describe which, their lifetimes, and SCRAM authentication with ``tokenauth=true``.

Kafka also needs a JAAS entry for each SCRAM mechanism a listener enables (its login module);
pybroker reads only PLAIN's users and ignores the others.
"""

from __future__ import annotations

import base64
import json
import socket
import ssl
import struct
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from protocol.messages import (
    alter_user_scram_credentials_request as alter_req,
    create_acls_request as acl_req,
    create_delegation_token_request as token_req,
    describe_delegation_token_request as describe_token_req,
    describe_user_scram_credentials_request as describe_req,
    expire_delegation_token_request as expire_req,
    renew_delegation_token_request as renew_req,
)
from pybroker.security.plain import plain_message
from pybroker.security.sasl_client import SaslClientCredentials
from pybroker.security.scram import SCRAM_SHA_256, SCRAM_SHA_512, ScramClient
from pybroker.testing.broker_process import BrokerProcess, free_port
from pybroker.testing.certs import CertificateAuthority, server_properties
from pybroker.testing.reference_kafka import ReferenceKafka
from pybroker.testing.wire_client import WireClient
from tests.compat import kafka_wire as wire
from tests.compat.test_sasl import JAAS, authenticate, handshake
from tests.conftest import REFERENCE_OVERRIDES

SCRAM_JAAS = "org.apache.kafka.common.security.scram.ScramLoginModule required;"
#: OAUTHBEARER with Kafka's unsecured validator: tokens need the scope "kafka"
OAUTH_JAAS = ("org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required "
              'unsecuredLoginStringClaim_sub="admin" unsecuredValidatorRequiredScope="kafka";')
#: test_sasl's PLAIN users, and two more for the delegation tokens' owners and renewers
PLAIN_JAAS = JAAS.replace('user_alice=', 'user_bob="bob-secret" user_carol="carol-secret" '
                                         'user_alice=')
USERS = {"SCRAM-SHA-256": ("scram256", "s256-secret"), "SCRAM-SHA-512": ("scram512", "s512")}


def overrides(port: int, sasl_port: int, tls_port: int,
              tls_props: dict[str, str]) -> dict[str, object]:
    listeners = (f"PLAINTEXT://127.0.0.1:{port},SASL_PLAINTEXT://127.0.0.1:{sasl_port},"
                 f"SASL_SSL://127.0.0.1:{tls_port}")
    return {
        **REFERENCE_OVERRIDES,
        "listeners": listeners, "advertised.listeners": listeners,
        "sasl.enabled.mechanisms": "PLAIN,SCRAM-SHA-256,SCRAM-SHA-512,OAUTHBEARER",
        **{f"listener.name.{listener}.{key}": value
           for listener in ("sasl_plaintext", "sasl_ssl")
           for key, value in (("plain.sasl.jaas.config", PLAIN_JAAS),
                              ("scram-sha-256.sasl.jaas.config", SCRAM_JAAS),
                              ("scram-sha-512.sasl.jaas.config", SCRAM_JAAS),
                              ("oauthbearer.sasl.jaas.config", OAUTH_JAAS),
                              ("plain.connections.max.reauth.ms", 60000))},
        "connection.failed.authentication.delay.ms": 100,
        "delegation.token.secret.key": "token-secret",
        "authorizer.class.name": "kafka.security.authorizer.AclAuthorizer",
        "super.users": "User:admin;User:ANONYMOUS",
        **tls_props,
    }


def make_users(bootstrap: str) -> Any:
    body = alter_req.AlterUserScramCredentialsRequest(upsertions=[
        alter_req.ScramCredentialUpsertion(name=user, mechanism=mech.type_code, iterations=8192,
                                           salt=b"fixed-salt-" + user.encode(),
                                           salted_password=mech.salted_password(
                                               password.encode(), b"fixed-salt-" + user.encode(),
                                               8192))
        for mech, (user, password) in ((SCRAM_SHA_256, USERS["SCRAM-SHA-256"]),
                                       (SCRAM_SHA_512, USERS["SCRAM-SHA-512"]))])
    with WireClient(bootstrap) as client:
        return client.call(51, 0, body)


@dataclass(frozen=True)
class Brokers:
    """pybroker and Kafka: each one's PLAINTEXT, SASL_PLAINTEXT and SASL_SSL address, and a
    client TLS context trusting the CA both SASL_SSL listeners' certificates come from."""

    ours: tuple[str, str, str]
    theirs: tuple[str, str, str]
    context: ssl.SSLContext


@pytest.fixture(scope="module")
def brokers(kafka_tools_lib: Path, tmp_path_factory: pytest.TempPathFactory,
            ) -> Iterator[Brokers]:
    base = tmp_path_factory.mktemp("differential-sasl")
    ca = CertificateAuthority.create()
    server = ca.issue("CN=broker")
    server.write(base / "certs", "server")
    tls_props = server_properties(ca, server, listener="SASL_SSL", inline=False)
    ours, ours_sasl, ours_tls, theirs, theirs_sasl, theirs_tls = (free_port() for _ in range(6))
    broker = BrokerProcess(base / "kafka-logs", port=ours, config=None,
                           overrides=overrides(ours, ours_sasl, ours_tls, tls_props))
    kafka = ReferenceKafka(base / "reference", port=theirs, lib=kafka_tools_lib,
                           overrides=overrides(theirs, theirs_sasl, theirs_tls, tls_props))
    try:
        broker.start()
        kafka.start()
        for port in (ours, theirs):
            answer = make_users(f"127.0.0.1:{port}")
            assert [r.error_code for r in answer.results] == [0, 0], answer
        # Kafka's brokers learn of new credentials through /config/changes: wait for them
        deadline = time.monotonic() + 30
        while not scram_ok(f"127.0.0.1:{theirs_sasl}", SCRAM_SHA_512, *USERS["SCRAM-SHA-512"]):
            assert time.monotonic() < deadline, "Kafka never took the SCRAM credentials"
            time.sleep(0.2)
        yield Brokers(tuple(f"127.0.0.1:{p}" for p in (ours, ours_sasl, ours_tls)),
                      tuple(f"127.0.0.1:{p}" for p in (theirs, theirs_sasl, theirs_tls)),
                      ca.client_context())
    finally:
        kafka.stop()
        broker.stop()


@pytest.fixture(scope="module")
def pair(brokers: Brokers) -> tuple[str, str, str, str]:
    """(pybroker's PLAINTEXT, its SASL_PLAINTEXT, Kafka's PLAINTEXT, its SASL_PLAINTEXT)."""
    return brokers.ours[0], brokers.ours[1], brokers.theirs[0], brokers.theirs[1]


def scram_ok(bootstrap: str, mechanism, user: str, password: str) -> bool:
    with wire.connect(bootstrap) as sock:
        handshake(sock, mechanism.name)
        client = ScramClient(mechanism, user, password)
        first = authenticate(sock, client.first())
        if first is None or first.error:
            return False
        final = authenticate(sock, client.final(first.auth_bytes), cid=3)
        return final is not None and final.error == 0


def closed(sock: socket.socket) -> bool:
    try:
        return wire.wait_closed(sock, timeout=5) == b""
    except TimeoutError:
        return False


def metadata_answered(sock: socket.socket) -> bool:
    sock.sendall(wire.metadata_v1(20, []))
    try:
        answer = wire.read_response(sock)
    except OSError:
        return False
    return answer is not None and answer[0] == 20


# -- the scenarios: each returns what a client observes ------------------------------------------

def versions(bootstrap: str) -> object:
    with wire.connect(bootstrap) as sock:
        sock.sendall(wire.api_versions(1, 0))
        ranges = wire.parse_api_versions_v0(wire.read_response(sock)[1]).ranges
        return {k: ranges.get(k) for k in (17, 36, 50, 51)}, handshake(sock, "PLAIN")


def request_before_authentication(bootstrap: str) -> object:
    with wire.connect(bootstrap) as sock:
        sock.sendall(wire.metadata_v1(1, []))
        return closed(sock)


def unsupported_mechanism(bootstrap: str) -> object:
    out = []
    for mechanism in ("GSSAPI", "oauthbearer", "plain"):
        with wire.connect(bootstrap) as sock:
            out.append((handshake(sock, mechanism), closed(sock)))
    return out


def plain(bootstrap: str) -> object:
    out = []
    for user, password, authzid in (("alice", "alice-secret", ""),
                                    ("alice", "alice-secret", "alice"),
                                    ("alice", "wrong", ""), ("nobody", "x", ""),
                                    ("alice", "alice-secret", "admin"), ("", "x", ""),
                                    ("alice", "", "")):
        with wire.connect(bootstrap) as sock:
            handshake(sock, "PLAIN")
            answer = authenticate(sock, plain_message(user, password, authzid))
            out.append((vars(answer), metadata_answered(sock)))
    with wire.connect(bootstrap) as sock:
        handshake(sock, "PLAIN")
        answer = authenticate(sock, b"alice\0alice-secret")
        out.append((vars(answer) if answer else None, closed(sock)))
    return out


def scram(bootstrap: str) -> object:
    out: list[object] = []
    for mechanism in (SCRAM_SHA_256, SCRAM_SHA_512):
        user, password = USERS[mechanism.name]
        for pw in (password, "wrong"):
            with wire.connect(bootstrap) as sock:
                handshake(sock, mechanism.name)
                client = ScramClient(mechanism, user, pw)
                first = authenticate(sock, client.first())
                server_first = dict(f.split("=", 1) for f in first.auth_bytes.decode().split(","))
                final = authenticate(sock, client.final(first.auth_bytes), cid=3)
                if final.error == 0:
                    client.verify(final.auth_bytes)
                out.append((first.error, first.message, server_first["s"], server_first["i"],
                            final.error, final.message, final.session_lifetime_ms,
                            metadata_answered(sock)))
    with wire.connect(bootstrap) as sock:
        handshake(sock, "SCRAM-SHA-256")
        answer = authenticate(sock, ScramClient(SCRAM_SHA_256, "nobody", "x").first())
        out.append((vars(answer), closed(sock)))
    with wire.connect(bootstrap) as sock:
        handshake(sock, "SCRAM-SHA-512")  # a user with no SCRAM-SHA-512 credential
        answer = authenticate(sock, ScramClient(SCRAM_SHA_512, "scram256", "x").first())
        out.append((vars(answer), closed(sock)))
    with wire.connect(bootstrap) as sock:
        handshake(sock, "SCRAM-SHA-256")
        answer = authenticate(sock, b"n,a=other,n=scram256,r=abc")
        out.append((vars(answer), closed(sock)))
    return out


def after_authentication(bootstrap: str) -> object:
    with wire.connect(bootstrap) as sock:
        handshake(sock, "SCRAM-SHA-256")
        client = ScramClient(SCRAM_SHA_256, *USERS["SCRAM-SHA-256"])
        first = authenticate(sock, client.first())
        authenticate(sock, client.final(first.auth_bytes), cid=3)
        again = authenticate(sock, b"more", cid=4)
        return vars(again), handshake(sock, "SCRAM-SHA-256", cid=5), metadata_answered(sock)


def handshake_v0(bootstrap: str) -> object:
    out: list[object] = []
    with wire.connect(bootstrap) as sock:
        out.append(handshake(sock, "SCRAM-SHA-512", version=0))
        client = ScramClient(SCRAM_SHA_512, *USERS["SCRAM-SHA-512"])
        sock.sendall(wire.sized(client.first()))
        (n,) = struct.unpack(">i", wire.recv_exact(sock, 4))
        sock.sendall(wire.sized(client.final(wire.recv_exact(sock, n))))
        (n,) = struct.unpack(">i", wire.recv_exact(sock, 4))
        client.verify(wire.recv_exact(sock, n))
        out.append(metadata_answered(sock))
    with wire.connect(bootstrap) as sock:
        out.append(handshake(sock, "PLAIN", version=0))
        sock.sendall(wire.sized(plain_message("alice", "alice-secret")))
        (n,) = struct.unpack(">i", wire.recv_exact(sock, 4))
        out.append((n, metadata_answered(sock)))
    with wire.connect(bootstrap) as sock:
        out.append(handshake(sock, "PLAIN", version=0))
        sock.sendall(wire.sized(plain_message("alice", "wrong")))
        out.append(closed(sock))
    return out


def reauthentication(bootstrap: str) -> object:
    with wire.connect(bootstrap) as sock:
        handshake(sock, "PLAIN")
        first = authenticate(sock, plain_message("alice", "alice-secret"))
        time.sleep(1.1)
        again = handshake(sock, "PLAIN", cid=5)
        second = authenticate(sock, plain_message("alice", "alice-secret"), cid=6)
        return (first.session_lifetime_ms, again, second.error, second.session_lifetime_ms,
                metadata_answered(sock))


def b64url(value: object) -> str:
    text = value if isinstance(value, str) else json.dumps(value)
    return base64.urlsafe_b64encode(text.encode()).rstrip(b"=").decode()


def unsecured_jws(claims: object, header: object | None = None) -> str:
    return f"{b64url(header or {'alg': 'none'})}.{b64url(claims)}."


def bearer(token: str, authzid: str = "", extensions: str = "", scheme: str = "Bearer",
           ) -> bytes:
    authz = f"a={authzid}" if authzid else ""
    return f"n,{authz},\x01auth={scheme} {token}\x01{extensions}\x01".encode()


def oauthbearer(bootstrap: str) -> object:
    """OAUTHBEARER's first messages with Kafka's unsecured validator: a good token (its
    session ends with the token), and each way Kafka refuses one - the error challenge the
    client acknowledges with 0x01, a generic failure, or a connection closed unanswered."""
    now = int(time.time())
    good = {"sub": "alice", "iat": now, "exp": now + 3600, "scope": "kafka"}
    cases = [
        ("good", bearer(unsecured_jws(good))),
        # a string claim is one scope item, spaces and all (Kafka's OAuthBearerUnsecuredJws)
        ("space-separated scope", bearer(unsecured_jws({**good, "scope": "kafka other"}))),
        ("scope as a list", bearer(unsecured_jws({**good, "scope": ["kafka"]}))),
        ("expired", bearer(unsecured_jws({**good, "iat": now - 100, "exp": now - 50}))),
        ("issued in the future", bearer(unsecured_jws({**good, "iat": now + 600}))),
        ("no expiry", bearer(unsecured_jws({"sub": "alice", "scope": "kafka"}))),
        ("exp not a number", bearer(unsecured_jws({**good, "exp": "soon"}))),
        ("no subject", bearer(unsecured_jws({"exp": now + 60, "scope": "kafka"}))),
        ("blank subject", bearer(unsecured_jws({**good, "sub": " "}))),
        ("missing scope", bearer(unsecured_jws({**good, "scope": "other"}))),
        ("signed", bearer(unsecured_jws(good, {"alg": "HS256"}))),
        ("a signature", bearer(unsecured_jws(good) + "c2ln")),
        ("two parts", bearer(f"{b64url({'alg': 'none'})}.{b64url(good)}")),
        ("not base64", bearer("e30.%%%.")),
        ("not JSON", bearer(f"{b64url('nope')}.{b64url(good)}.")),
        ("authzid of another", bearer(unsecured_jws(good), authzid="bob")),
        ("authzid of its own", bearer(unsecured_jws(good), authzid="alice")),
        ("an extension", bearer(unsecured_jws(good), extensions="traceId=abc\x01")),
        ("a bad extension name", bearer(unsecured_jws(good), extensions="trace-id=abc\x01")),
        ("no auth", b"n,,\x01\x01"),
        ("not a first message", b"garbage"),
        ("another scheme", bearer(unsecured_jws(good), scheme="Basic")),
        ("no alg", bearer(unsecured_jws(good, {"typ": "JWT"}))),
    ]
    out: list[object] = []
    for what, message in cases:
        with wire.connect(bootstrap) as sock:
            assert handshake(sock, "OAUTHBEARER")[0] == 0
            sent_ms = time.time() * 1000
            first = authenticate(sock, message)
            answered_ms = time.time() * 1000
            if first is None:
                out.append((what, "closed unanswered"))
                continue
            observed: list[object] = [what, first.error, first.message, first.auth_bytes]
            if first.error == 0 and first.auth_bytes:  # the error challenge
                second = authenticate(sock, b"\x01", cid=3)
                observed.append(None if second is None else
                                (second.error, second.message, second.auth_bytes))
                observed.append(closed(sock))
            elif first.error == 0:
                # the session ends with the token: its expiry less the time of the exchange
                expiry_ms = good["exp"] * 1000
                observed.append(expiry_ms - answered_ms - 1000 <= first.session_lifetime_ms
                                <= expiry_ms - sent_ms + 1000)
                observed.append(metadata_answered(sock))
            else:
                observed.append(closed(sock))
            out.append(tuple(observed))
    return out


SASL_SCENARIOS: list[Callable[[str], object]] = [
    versions, request_before_authentication, unsupported_mechanism, plain, scram,
    after_authentication, handshake_v0, reauthentication, oauthbearer]


@pytest.mark.parametrize("scenario", SASL_SCENARIOS, ids=lambda s: s.__name__)
def test_sasl_exchanges_answer_alike(pair: tuple[str, str, str, str],
                                     scenario: Callable[[str], object]) -> None:
    ours, theirs = scenario(pair[1]), scenario(pair[3])
    assert ours == theirs
    if scenario is oauthbearer:  # sanity: the good token logged in, the others did not
        assert ours[0] == ("good", 0, "", b"", True, True), ours[0]
        assert sum(1 for o in ours if len(o) > 1 and o[1] == 0 and o[3] == b"") == 4, ours


def sasl_inside_tls(bootstrap: str, context: ssl.SSLContext) -> object:
    """On a SASL_SSL listener: a request before authentication, SCRAM with the right and a
    wrong password, and PLAIN, each in a TLS session of its own."""
    def connect() -> ssl.SSLSocket:
        return context.wrap_socket(wire.connect(bootstrap), server_hostname="127.0.0.1")

    out: list[object] = []
    with connect() as sock:
        sock.sendall(wire.metadata_v1(1, []))
        out.append(closed(sock))
    for mechanism in (SCRAM_SHA_256, SCRAM_SHA_512):
        user, password = USERS[mechanism.name]
        for pw in (password, "wrong"):
            with connect() as sock:
                handshake(sock, mechanism.name)
                client = ScramClient(mechanism, user, pw)
                first = authenticate(sock, client.first())
                final = authenticate(sock, client.final(first.auth_bytes), cid=3)
                if final.error == 0:
                    client.verify(final.auth_bytes)
                    out.append((first.error, final.error, final.session_lifetime_ms,
                                metadata_answered(sock)))
                else:
                    out.append((first.error, final.error, final.message, closed(sock)))
    with connect() as sock:
        handshake(sock, "PLAIN")
        answer = authenticate(sock, plain_message("alice", "alice-secret"))
        out.append((vars(answer), metadata_answered(sock)))
    return out


def test_sasl_inside_tls_answers_alike(brokers: Brokers) -> None:
    ours = sasl_inside_tls(brokers.ours[2], brokers.context)
    assert ours == sasl_inside_tls(brokers.theirs[2], brokers.context)
    assert ours[0] is True and ours[2][1] != 0  # sanity: early request closed, wrong pw failed


def test_user_scram_credentials_answer_alike(pair: tuple[str, str, str, str]) -> None:
    def observe(bootstrap: str) -> object:
        with WireClient(bootstrap) as client:
            everyone = client.call(50, 0, describe_req.DescribeUserScramCredentialsRequest(
                users=None))
            named = client.call(50, 0, describe_req.DescribeUserScramCredentialsRequest(users=[
                describe_req.UserName(name=n) for n in ("scram512", "nobody", "", "scram512")]))
            up = alter_req.ScramCredentialUpsertion
            bad = client.call(51, 0, alter_req.AlterUserScramCredentialsRequest(
                upsertions=[up(name="", mechanism=1, iterations=4096, salt=b"s",
                               salted_password=b"p" * 32),
                            up(name="x", mechanism=7, iterations=4096, salt=b"s",
                               salted_password=b"p" * 32),
                            up(name="y", mechanism=1, iterations=10, salt=b"s",
                               salted_password=b"p" * 32),
                            up(name="z", mechanism=2, iterations=99999, salt=b"s",
                               salted_password=b"p" * 32),
                            up(name="w", mechanism=1, iterations=4096, salt=b"s",
                               salted_password=b"p" * 32),
                            up(name="w", mechanism=1, iterations=4096, salt=b"s",
                               salted_password=b"p" * 32)],
                deletions=[alter_req.ScramCredentialDeletion(name="nobody", mechanism=1)]))
        return (
            (everyone.error_code, everyone.error_message,
             [(r.user, r.error_code, [(i.mechanism, i.iterations) for i in r.credential_infos])
              for r in everyone.results]),
            [(r.user, r.error_code, r.error_message,
              [(i.mechanism, i.iterations) for i in r.credential_infos]) for r in named.results],
            sorted((r.user, r.error_code, r.error_message) for r in bad.results),
        )

    assert observe(pair[0]) == observe(pair[2])


def test_describe_client_quotas_answers_alike(pair: tuple[str, str, str, str]) -> None:
    """kafka-configs --describe --entity-type users asks for quotas first; neither broker has
    any, and both check the filter alike."""
    from protocol.messages import describe_client_quotas_request as quotas

    def component(entity_type: str, match_type: int = 0, match: str | None = "alice"):
        return quotas.ComponentData(entity_type=entity_type, match_type=match_type, match=match)

    filters = [[], [component("user")], [component("user", 2, None)],
               [component("user", 1, None), component("client-id", 2, None)],
               [component("nonsense")], [component("user"), component("user")],
               [component("ip", 2, None), component("user")]]

    def observe(bootstrap: str) -> object:
        out = []
        with WireClient(bootstrap) as client:
            for components in filters:
                for strict in (False, True):
                    r = client.call(48, 1, quotas.DescribeClientQuotasRequest(
                        components=components, strict=strict))
                    out.append((r.error_code, r.error_message, r.entries))
        return out

    assert observe(pair[0]) == observe(pair[2])


# -- delegation tokens ----------------------------------------------------------------------------

USER, DELEGATION_TOKEN = 7, 6
CREATE_TOKENS, DESCRIBE_TOKENS, DESCRIBE = 13, 14, 8


def plain_login(bootstrap: str, user: str) -> WireClient:
    client = WireClient(bootstrap)
    answer = client.authenticate(SaslClientCredentials("PLAIN", user, f"{user}-secret"))
    assert answer.error_code == 0, answer
    return client


def token_login(bootstrap: str, mechanism: str, token_id: str, mac: bytes,
                ) -> tuple[WireClient, Any]:
    """A connection authenticated (or not) with a token: its id as the SCRAM user name, its
    HMAC in base64 as the password, and ``tokenauth=true``."""
    client = WireClient(bootstrap)
    return client, client.authenticate(SaslClientCredentials(
        mechanism, token_id, base64.b64encode(mac).decode(), token_auth=True))


def answered_metadata(client: WireClient) -> bool:
    from protocol.messages import metadata_request
    try:
        client.call(3, 1, metadata_request.MetadataRequest(topics=[]))
    except (ConnectionError, OSError):
        return False
    return True


def token_requests(client: WireClient, mac: bytes, labels: dict[str, str]) -> object:
    """The four requests' errors on one connection (and who CreateDelegationToken names)."""
    created = client.call(38, 3, token_req.CreateDelegationTokenRequest())
    described = client.call(41, 3, describe_token_req.DescribeDelegationTokenRequest(owners=None))
    renewed = client.call(39, 2, renew_req.RenewDelegationTokenRequest(hmac=mac,
                                                                       renew_period_ms=1000))
    expired = client.call(40, 2, expire_req.ExpireDelegationTokenRequest(
        hmac=mac, expiry_time_period_ms=1000))
    return ((created.error_code, created.principal_name, created.token_requester_principal_name,
             created.issue_timestamp_ms, created.token_id, created.hmac),
            (described.error_code, described_tokens(described, labels)),
            (renewed.error_code, renewed.expiry_timestamp_ms),
            (expired.error_code, expired.expiry_timestamp_ms))


def described_tokens(response: Any, labels: dict[str, str]) -> list[object]:
    """The tokens by label, with their lifetimes in minutes (a renewal adds a few ms)."""
    return sorted((labels.get(t.token_id, "?"), f"{t.principal_type}:{t.principal_name}",
                   f"{t.token_requester_principal_type}:{t.token_requester_principal_name}",
                   [f"{r.principal_type}:{r.principal_name}" for r in t.renewers],
                   round((t.expiry_timestamp - t.issue_timestamp) / 60000),
                   round((t.max_timestamp - t.issue_timestamp) / 60000), len(t.hmac))
                  for t in response.tokens)


def near(value: int, expected: int, slack_ms: int = 3000) -> bool:
    return abs(value - expected) <= slack_ms


def delegation_tokens(plaintext: str, sasl: str) -> object:
    """Everything a client observes of delegation tokens on one broker, with what differs by
    nature (ids, HMACs, clocks) replaced by labels and durations."""
    out: list[object] = []
    labels: dict[str, str] = {}
    tokens: dict[str, Any] = {}
    renewer = token_req.CreatableRenewers

    def create(client: WireClient, label: str, version: int = 3, **fields: Any) -> object:
        before = int(time.time() * 1000)
        r = client.call(38, version, token_req.CreateDelegationTokenRequest(**fields))
        if r.error_code == 0:
            labels[r.token_id], tokens[label] = label, r
        return (label, version, r.error_code, r.principal_type, r.principal_name,
                r.token_requester_principal_type, r.token_requester_principal_name,
                r.error_code != 0 and (r.issue_timestamp_ms, r.expiry_timestamp_ms,
                                       r.max_timestamp_ms, r.token_id, r.hmac),
                r.error_code == 0 and (near(r.issue_timestamp_ms, before),
                                       r.expiry_timestamp_ms - r.issue_timestamp_ms,
                                       r.max_timestamp_ms - r.issue_timestamp_ms,
                                       len(r.token_id), len(r.hmac)))

    # not on a PLAINTEXT listener, whoever asks
    with WireClient(plaintext) as client:
        out.append(("plaintext", token_requests(client, b"x" * 64, labels)))
    with plain_login(sasl, "admin") as admin:
        # ACLs: alice may create bob's tokens and describe carol's
        acls = admin.call(30, 1, acl_req.CreateAclsRequest(creations=[
            acl_req.AclCreation(resource_type=USER, resource_name="User:bob",
                                resource_pattern_type=3, principal="User:alice", host="*",
                                operation=CREATE_TOKENS, permission_type=3),
            acl_req.AclCreation(resource_type=USER, resource_name="User:carol",
                                resource_pattern_type=3, principal="User:alice", host="*",
                                operation=DESCRIBE_TOKENS, permission_type=3)]))
        out.append(("acls", [r.error_code for r in acls.results]))
        out.append(create(admin, "admin-for-carol", owner_principal_type="User",
                          owner_principal_name="carol"))
    time.sleep(1)  # Kafka's authorizer reads new ACLs through its change notifications
    with plain_login(sasl, "alice") as alice:
        for version in range(4):
            out.append(create(alice, f"alice-v{version}", version,
                              renewers=[renewer("User", "bob")]))
        out.append(create(alice, "alice-short", max_lifetime_ms=60000))
        out.append(create(alice, "alice-group-renewer", renewers=[renewer("Group", "g")]))
        out.append(create(alice, "alice-for-bob", owner_principal_type="User",
                          owner_principal_name="bob"))
        out.append(create(alice, "alice-for-carol", owner_principal_type="User",
                          owner_principal_name="carol"))
    # who sees which tokens, for each owners filter
    owner = describe_token_req.DescribeDelegationTokenOwner
    for user in ("alice", "bob", "carol", "admin"):
        with plain_login(sasl, user) as client:
            for owners in (None, [], [owner("User", "bob")], [owner("User", "nobody")]):
                for version in (0, 3):
                    r = client.call(41, version, describe_token_req.DescribeDelegationTokenRequest(
                        owners=owners))
                    out.append(("describe", user, owners and [o.principal_name for o in owners],
                                version, r.error_code, described_tokens(r, labels)))
    main = tokens["alice-v3"]
    # SCRAM with the token; on that connection no token request is allowed
    for mechanism in ("SCRAM-SHA-256", "SCRAM-SHA-512"):
        client, answer = token_login(sasl, mechanism, main.token_id, main.hmac)
        with client:
            lifetime = answer.session_lifetime_ms
            out.append(("token login", mechanism, answer.error_code,
                        near(lifetime, main.expiry_timestamp_ms - int(time.time() * 1000)),
                        answered_metadata(client), token_requests(client, main.hmac, labels)))
    for token_id, mac, what in ((main.token_id, b"\0" * 64, "wrong hmac"),
                                ("no-such-token", main.hmac, "unknown id"),
                                ("scram256", b"s256-secret", "a user, not a token")):
        client, answer = token_login(sasl, "SCRAM-SHA-256", token_id, mac)
        with client:
            out.append(("token login", what, answer.error_code, answer.error_message))
    # renewals: by a renewer, by someone else, of an unknown token, by the requester when
    # the owner is another, past the maximum lifetime
    with plain_login(sasl, "bob") as bob:
        before = int(time.time() * 1000)
        r = bob.call(39, 2, renew_req.RenewDelegationTokenRequest(hmac=main.hmac,
                                                                  renew_period_ms=5000))
        out.append(("renew by renewer", r.error_code, near(r.expiry_timestamp_ms, before + 5000)))
        r = bob.call(39, 0, renew_req.RenewDelegationTokenRequest(hmac=b"\1" * 64,
                                                                  renew_period_ms=5000))
        out.append(("renew unknown", r.error_code, r.expiry_timestamp_ms))
    with plain_login(sasl, "carol") as carol:
        r = carol.call(39, 1, renew_req.RenewDelegationTokenRequest(hmac=main.hmac,
                                                                    renew_period_ms=5000))
        out.append(("renew by stranger", r.error_code, r.expiry_timestamp_ms))
        r = carol.call(40, 1, expire_req.ExpireDelegationTokenRequest(
            hmac=main.hmac, expiry_time_period_ms=-1))
        out.append(("expire by stranger", r.error_code, r.expiry_timestamp_ms))
        r = carol.call(39, 2, renew_req.RenewDelegationTokenRequest(
            hmac=tokens["admin-for-carol"].hmac, renew_period_ms=-1))
        out.append(("renew by owner, default period", r.error_code,
                    near(r.expiry_timestamp_ms, int(time.time() * 1000) + 86400000)))
    with plain_login(sasl, "alice") as alice:
        r = alice.call(39, 2, renew_req.RenewDelegationTokenRequest(
            hmac=tokens["alice-for-bob"].hmac, renew_period_ms=5000))
        out.append(("renew by requester", r.error_code))
        short = tokens["alice-short"]
        r = alice.call(39, 2, renew_req.RenewDelegationTokenRequest(hmac=short.hmac,
                                                                    renew_period_ms=10 ** 9))
        out.append(("renew past the maximum", r.error_code,
                    r.expiry_timestamp_ms == short.max_timestamp_ms))
        # expiry: soon, then past it nothing renews or expires it, but it still authenticates
        # (with a session that ends at once) until it is removed
        r = alice.call(40, 2, expire_req.ExpireDelegationTokenRequest(
            hmac=short.hmac, expiry_time_period_ms=1000))
        out.append(("expire soon", r.error_code,
                    near(r.expiry_timestamp_ms, int(time.time() * 1000) + 1000)))
        time.sleep(2)
        r = alice.call(39, 2, renew_req.RenewDelegationTokenRequest(hmac=short.hmac,
                                                                    renew_period_ms=5000))
        out.append(("renew expired", r.error_code, r.expiry_timestamp_ms))
        r = alice.call(40, 2, expire_req.ExpireDelegationTokenRequest(
            hmac=short.hmac, expiry_time_period_ms=5000))
        out.append(("expire expired", r.error_code, r.expiry_timestamp_ms))
        client, answer = token_login(sasl, "SCRAM-SHA-512", short.token_id, short.hmac)
        with client:
            out.append(("expired token login", answer.error_code, answer.session_lifetime_ms,
                        answered_metadata(client)))
        # removal at once (an expired token too), then it is gone everywhere
        for label in ("alice-short", "alice-v3"):
            before = int(time.time() * 1000)
            r = alice.call(40, 2, expire_req.ExpireDelegationTokenRequest(
                hmac=tokens[label].hmac, expiry_time_period_ms=-1))
            out.append(("remove", label, r.error_code, near(r.expiry_timestamp_ms, before)))
        r = alice.call(41, 3, describe_token_req.DescribeDelegationTokenRequest(owners=None))
        out.append(("after removal", described_tokens(r, labels)))
        r = alice.call(40, 2, expire_req.ExpireDelegationTokenRequest(
            hmac=main.hmac, expiry_time_period_ms=-1))
        out.append(("remove again", r.error_code, r.expiry_timestamp_ms))
    client, answer = token_login(sasl, "SCRAM-SHA-256", main.token_id, main.hmac)
    with client:
        out.append(("removed token login", answer.error_code, answer.error_message))
    return out


def test_delegation_tokens_answer_alike(pair: tuple[str, str, str, str]) -> None:
    ours = delegation_tokens(pair[0], pair[1])
    theirs = delegation_tokens(pair[2], pair[3])
    for mine, kafka in zip(ours, theirs, strict=True):
        assert mine == kafka
    # sanity: tokens were made, and one authenticated
    assert ("alice-v3", 3, 0) == ours[3 + 3][:3]
    assert any(o[:3] == ("token login", "SCRAM-SHA-512", 0) for o in ours if isinstance(o, tuple))

