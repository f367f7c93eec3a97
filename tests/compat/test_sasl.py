"""SASL over SASL_PLAINTEXT and SASL_SSL listeners: PLAIN (users from the listener's JAAS config),
SCRAM-SHA-256 and SCRAM-SHA-512 (credentials made with AlterUserScramCredentials), with
kafka-python, confluent-kafka and aiokafka, and raw frames for what a client library hides:
the requests allowed before authentication, Kafka's answers to bad mechanisms and passwords,
SaslHandshake v0's raw tokens, and re-authentication with ``connections.max.reauth.ms``.

The raw frames are written here with ``struct``, not with the broker's codecs.
"""

from __future__ import annotations

import asyncio
import socket
import struct
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from pybroker.security.plain import plain_message
from pybroker.security.scram import SCRAM_SHA_256, SCRAM_SHA_512, ScramClient
from pybroker.testing.broker_process import BrokerProcess, free_port
from pybroker.testing.certs import CertificateAuthority, Credential, server_properties
from tests.compat import kafka_wire as wire

SASL_HANDSHAKE, SASL_AUTHENTICATE = 17, 36
JAAS = ('org.apache.kafka.common.security.plain.PlainLoginModule required '
        'username="admin" password="admin-secret" '
        'user_admin="admin-secret" user_alice="alice-secret";')
SCRAM_USERS = {"SCRAM-SHA-256": ("scram256", "s256-secret"),
               "SCRAM-SHA-512": ("scram512", "s512-secret")}
REAUTH_MS = 3000


@dataclass
class SaslBroker:
    broker: BrokerProcess
    sasl_port: int

    @property
    def plaintext(self) -> str:
        return self.broker.bootstrap

    @property
    def sasl(self) -> str:
        return f"127.0.0.1:{self.sasl_port}"


def sasl_overrides(plain_port: int, sasl_port: int) -> dict[str, object]:
    listeners = f"PLAINTEXT://127.0.0.1:{plain_port},SASL_PLAINTEXT://127.0.0.1:{sasl_port}"
    return {
        "listeners": listeners,
        "advertised.listeners": listeners,
        "sasl.enabled.mechanisms": "PLAIN,SCRAM-SHA-256,SCRAM-SHA-512",
        "listener.name.sasl_plaintext.plain.sasl.jaas.config": JAAS,
        "listener.name.sasl_plaintext.plain.connections.max.reauth.ms": REAUTH_MS,
        "connection.failed.authentication.delay.ms": 300,
    }


def with_sasl_ssl_listener(overrides: dict[str, object], port: int, ca: CertificateAuthority,
                           server: Credential) -> dict[str, object]:
    """``overrides`` (from :func:`sasl_overrides`) plus a SASL_SSL listener on ``port``: TLS
    with ``server``'s certificate (inline PEM), the same mechanisms, PLAIN users from
    :data:`JAAS`."""
    listeners = f"{overrides['listeners']},SASL_SSL://127.0.0.1:{port}"
    return {**overrides, "listeners": listeners, "advertised.listeners": listeners,
            "listener.name.sasl_ssl.plain.sasl.jaas.config": JAAS,
            **server_properties(ca, server, listener="SASL_SSL")}


@pytest.fixture(scope="module")
def sasl_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SaslBroker]:
    port, sasl_port = free_port(), free_port()
    with BrokerProcess(tmp_path_factory.mktemp("sasl") / "kafka-logs", port=port,
                       overrides=sasl_overrides(port, sasl_port)) as broker:
        from confluent_kafka.admin import (
            AdminClient,
            ScramCredentialInfo,
            ScramMechanism,
            UserScramCredentialUpsertion,
        )
        admin = AdminClient({"bootstrap.servers": broker.bootstrap})
        upserts = [UserScramCredentialUpsertion(
            user, ScramCredentialInfo(getattr(ScramMechanism, mech.replace("-", "_")), 8192),
            password.encode()) for mech, (user, password) in SCRAM_USERS.items()]
        for fut in admin.alter_user_scram_credentials(upserts).values():
            fut.result(timeout=30)
        yield SaslBroker(broker, sasl_port)


# -- raw frames ---------------------------------------------------------------------------------

def handshake(sock: socket.socket, mechanism: str, version: int = 1, cid: int = 1,
              ) -> tuple[int, list[str]] | None:
    sock.sendall(wire.request(SASL_HANDSHAKE, version, cid, wire.string(mechanism)))
    answer = wire.read_response(sock)
    if answer is None:
        return None
    assert answer[0] == cid
    body = answer[1]
    error, count = struct.unpack_from(">hi", body)
    pos, mechanisms = 6, []
    for _ in range(count):
        (n,) = struct.unpack_from(">h", body, pos)
        mechanisms.append(body[pos + 2:pos + 2 + n].decode())
        pos += 2 + n
    return error, mechanisms


@dataclass
class AuthAnswer:
    error: int
    message: str | None
    auth_bytes: bytes
    session_lifetime_ms: int


def authenticate(sock: socket.socket, token: bytes, cid: int = 2, version: int = 1,
                 ) -> AuthAnswer | None:
    """SaslAuthenticate v1, or v2 (flexible: compact fields, tagged fields)."""
    if version == 2:
        body = wire.uvarint(len(token) + 1) + token + b"\0"
        sock.sendall(wire.request(SASL_AUTHENTICATE, 2, cid, body, flexible=True))
    else:
        sock.sendall(wire.request(SASL_AUTHENTICATE, 1, cid,
                                  struct.pack(">i", len(token)) + token))
    answer = wire.read_response(sock)
    if answer is None:
        return None
    assert answer[0] == cid
    body = answer[1]
    if version == 2:
        assert body[0] == 0  # the response header's tagged fields
        body = body[1:]
        (error,) = struct.unpack_from(">h", body)
        n, pos = _uvarint(body, 2)
        message = None if n == 0 else body[pos:pos + n - 1].decode()
        size, pos = _uvarint(body, pos + max(n - 1, 0))
        auth_bytes = body[pos:pos + size - 1]
        (lifetime,) = struct.unpack_from(">q", body, pos + size - 1)
        return AuthAnswer(error, message, auth_bytes, lifetime)
    (error, n) = struct.unpack_from(">hh", body)
    message = None if n < 0 else body[4:4 + n].decode()
    pos = 4 + max(n, 0)
    (size,) = struct.unpack_from(">i", body, pos)
    auth_bytes = body[pos + 4:pos + 4 + size]
    (lifetime,) = struct.unpack_from(">q", body, pos + 4 + size)
    return AuthAnswer(error, message, auth_bytes, lifetime)


def _uvarint(data: bytes, pos: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        b = data[pos]
        pos += 1
        value |= (b & 0x7F) << shift
        if not b & 0x80:
            return value, pos
        shift += 7


def metadata_works(sock: socket.socket, cid: int = 9) -> bool:
    sock.sendall(wire.metadata_v1(cid, []))
    answer = wire.read_response(sock)
    return answer is not None and answer[0] == cid


def assert_closed(sock: socket.socket) -> None:
    assert wire.wait_closed(sock, timeout=10) == b""


# -- what the broker allows before authentication ----------------------------------------------

def test_requests_before_authentication_close_the_connection(sasl_broker: SaslBroker) -> None:
    with wire.connect(sasl_broker.sasl) as sock:
        sock.sendall(wire.metadata_v1(1, []))
        assert_closed(sock)
    with wire.connect(sasl_broker.sasl) as sock:
        # an ApiVersions at a version the broker does not serve may be asked again (KIP-511)
        sock.sendall(wire.api_versions(0, 127))
        assert wire.parse_api_versions_v0(wire.read_response(sock)[1]).error_code == 35
        sock.sendall(wire.api_versions(1, 0))
        versions = wire.parse_api_versions_v0(wire.read_response(sock)[1])
        assert versions.ranges[SASL_HANDSHAKE] == (0, 1)
        assert versions.ranges[SASL_AUTHENTICATE] == (0, 2)
        assert handshake(sock, "PLAIN") == (0, ["PLAIN", "SCRAM-SHA-512", "SCRAM-SHA-256"])
        sock.sendall(wire.metadata_v1(3, []))  # a request while the exchange runs
        assert_closed(sock)
    # the PLAINTEXT listener of the same broker needs nothing
    with wire.connect(sasl_broker.plaintext) as sock:
        assert metadata_works(sock)


def test_large_frames_wait_for_authentication(sasl_broker: SaslBroker) -> None:
    # sasl.server.max.receive.size (512 KiB) bounds a frame before authentication ...
    with wire.connect(sasl_broker.sasl) as sock:
        sock.sendall(struct.pack(">i", 600_000) + b"\0" * 1000)
        assert_closed(sock)
    # ... and socket.request.max.bytes after it: a 700 KB record goes through
    from confluent_kafka import Producer

    producer = Producer({"bootstrap.servers": sasl_broker.sasl,
                         "security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "PLAIN",
                         "sasl.username": "alice", "sasl.password": "alice-secret",
                         "compression.type": "none"})
    errors: list[object] = []
    producer.produce(f"big-{uuid.uuid4().hex[:6]}", b"x" * 700_000,
                     on_delivery=lambda err, _msg: errors.append(err))
    assert producer.flush(30) == 0
    assert errors == [None]


@pytest.mark.parametrize("mechanism", ["GSSAPI", "OAUTHBEARER", "DIGEST-MD5"])
def test_unsupported_mechanism_gets_the_enabled_list(sasl_broker: SaslBroker,
                                                     mechanism: str) -> None:
    with wire.connect(sasl_broker.sasl) as sock:
        assert handshake(sock, mechanism) == (33, ["PLAIN", "SCRAM-SHA-512", "SCRAM-SHA-256"])
        assert_closed(sock)


def test_plain_with_raw_frames(sasl_broker: SaslBroker) -> None:
    with wire.connect(sasl_broker.sasl) as sock:
        assert handshake(sock, "PLAIN")[0] == 0
        answer = authenticate(sock, plain_message("alice", "alice-secret"), version=2)
        assert (answer.error, answer.auth_bytes) == (0, b"")
        assert answer.session_lifetime_ms == REAUTH_MS
        assert metadata_works(sock)
        # authenticated: Kafka's KafkaApis answers a second SaslAuthenticate
        again = authenticate(sock, b"x", cid=10)
        assert again.error == 34
        assert again.message == "SaslAuthenticate request received after successful authentication"
        assert metadata_works(sock, cid=11)


@pytest.mark.parametrize("version", [1, 2])
def test_wrong_password_is_answered_late_then_closed(sasl_broker: SaslBroker,
                                                     version: int) -> None:
    with wire.connect(sasl_broker.sasl) as sock:
        assert handshake(sock, "PLAIN")[0] == 0
        started = time.monotonic()
        answer = authenticate(sock, plain_message("alice", "wrong"), version=version)
        assert time.monotonic() - started >= 0.25  # connection.failed.authentication.delay.ms
        assert answer.error == 58
        assert answer.message == "Authentication failed: Invalid username or password"
        assert_closed(sock)


@pytest.mark.parametrize("mechanism", [SCRAM_SHA_256, SCRAM_SHA_512], ids=lambda m: m.name)
def test_scram_with_raw_frames(sasl_broker: SaslBroker, mechanism) -> None:
    user, password = SCRAM_USERS[mechanism.name]
    with wire.connect(sasl_broker.sasl) as sock:
        assert handshake(sock, mechanism.name)[0] == 0
        client = ScramClient(mechanism, user, password)
        first = authenticate(sock, client.first())
        assert first.error == 0 and b",i=8192" in first.auth_bytes
        final = authenticate(sock, client.final(first.auth_bytes), cid=3)
        assert final.error == 0 and final.session_lifetime_ms == 0
        client.verify(final.auth_bytes)
        assert metadata_works(sock)
    with wire.connect(sasl_broker.sasl) as sock:
        assert handshake(sock, mechanism.name)[0] == 0
        client = ScramClient(mechanism, user, "not-" + password)
        first = authenticate(sock, client.first())
        final = authenticate(sock, client.final(first.auth_bytes), cid=3)
        assert final.error == 58
        assert final.message == ("Authentication failed during authentication due to invalid "
                                 f"credentials with SASL mechanism {mechanism.name}")
        assert_closed(sock)


def test_scram_unknown_user_fails_like_a_wrong_password(sasl_broker: SaslBroker) -> None:
    with wire.connect(sasl_broker.sasl) as sock:
        assert handshake(sock, "SCRAM-SHA-256")[0] == 0
        answer = authenticate(sock, ScramClient(SCRAM_SHA_256, "nobody", "x").first())
        assert answer.error == 58
        assert answer.message == ("Authentication failed during authentication due to invalid "
                                  "credentials with SASL mechanism SCRAM-SHA-256")
        assert_closed(sock)


def test_handshake_v0_takes_raw_tokens(sasl_broker: SaslBroker) -> None:
    with wire.connect(sasl_broker.sasl) as sock:
        assert handshake(sock, "SCRAM-SHA-512", version=0)[0] == 0
        user, password = SCRAM_USERS["SCRAM-SHA-512"]
        client = ScramClient(SCRAM_SHA_512, user, password)
        sock.sendall(wire.sized(client.first()))
        (n,) = struct.unpack(">i", wire.recv_exact(sock, 4))
        server_first = wire.recv_exact(sock, n)
        sock.sendall(wire.sized(client.final(server_first)))
        (n,) = struct.unpack(">i", wire.recv_exact(sock, 4))
        client.verify(wire.recv_exact(sock, n))
        assert metadata_works(sock)
    with wire.connect(sasl_broker.sasl) as sock:
        assert handshake(sock, "PLAIN", version=0)[0] == 0
        sock.sendall(wire.sized(plain_message("alice", "wrong")))
        assert_closed(sock)  # no answer for these clients, as on Kafka


def test_reauthentication_and_expired_sessions(sasl_broker: SaslBroker) -> None:
    with wire.connect(sasl_broker.sasl) as sock:
        assert handshake(sock, "PLAIN")[0] == 0
        assert authenticate(sock, plain_message("alice", "alice-secret")).error == 0
        time.sleep(1.2)
        # re-authenticate on the same connection before the session ends
        assert handshake(sock, "PLAIN", cid=5)[0] == 0
        answer = authenticate(sock, plain_message("alice", "alice-secret"), cid=6)
        assert (answer.error, answer.session_lifetime_ms) == (0, REAUTH_MS)
        assert metadata_works(sock)
        time.sleep(REAUTH_MS / 1000 + 0.3)
        sock.sendall(wire.metadata_v1(12, []))
        assert_closed(sock)


def test_confluent_kafka_reauthenticates_on_the_same_connections(
        sasl_broker: SaslBroker) -> None:
    """librdkafka re-authenticates (KIP-368) before the 3 s sessions end: a producer keeps
    working for three sessions without an error and without the broker closing a connection
    for an expired session."""
    from confluent_kafka import KafkaError, Producer

    errors: list[KafkaError] = []
    producer = Producer({"bootstrap.servers": sasl_broker.sasl,
                         "security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "PLAIN",
                         "sasl.username": "alice", "sasl.password": "alice-secret",
                         "error_cb": errors.append})
    topic = f"reauth-{uuid.uuid4().hex[:6]}"
    log = sasl_broker.broker.log_path
    expired_before = log.read_text().count("session expired")
    for i in range(9):
        producer.produce(topic, b"%d" % i)
        assert producer.flush(10) == 0
        time.sleep(1)
    assert errors == []
    assert log.read_text().count("session expired") == expired_before


# -- real clients --------------------------------------------------------------------------------

CASES = [("PLAIN", "alice", "alice-secret"),
         ("SCRAM-SHA-256", *SCRAM_USERS["SCRAM-SHA-256"]),
         ("SCRAM-SHA-512", *SCRAM_USERS["SCRAM-SHA-512"])]


@pytest.mark.parametrize("mechanism, user, password", CASES, ids=[c[0] for c in CASES])
def test_confluent_kafka_produces_and_consumes(sasl_broker: SaslBroker, mechanism: str,
                                               user: str, password: str) -> None:
    from confluent_kafka import Consumer, Producer

    conf = {"bootstrap.servers": sasl_broker.sasl, "security.protocol": "SASL_PLAINTEXT",
            "sasl.mechanism": mechanism, "sasl.username": user, "sasl.password": password}
    topic = f"ck-{mechanism.lower()}-{uuid.uuid4().hex[:6]}"
    producer = Producer(conf)
    producer.produce(topic, b"secret value")
    assert producer.flush(30) == 0
    consumer = Consumer({**conf, "group.id": f"g-{topic}", "auto.offset.reset": "earliest"})
    try:
        consumer.subscribe([topic])
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            msg = consumer.poll(0.5)
            if msg is not None and msg.error() is None:
                assert msg.value() == b"secret value"
                break
        else:
            pytest.fail("no message consumed over SASL")
    finally:
        consumer.close()


def test_confluent_kafka_wrong_password_is_an_authentication_error(
        sasl_broker: SaslBroker) -> None:
    from confluent_kafka import KafkaError, KafkaException
    from confluent_kafka.admin import AdminClient

    errors: list[KafkaError] = []
    admin = AdminClient({"bootstrap.servers": sasl_broker.sasl,
                         "security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "SCRAM-SHA-256",
                         "sasl.username": "scram256", "sasl.password": "wrong",
                         "error_cb": errors.append})
    with pytest.raises(KafkaException):
        admin.list_topics(timeout=3)
    deadline = time.monotonic() + 10
    while not errors and time.monotonic() < deadline:
        admin.poll(0.2)
    assert any(e.code() == KafkaError._AUTHENTICATION for e in errors), errors


@pytest.mark.parametrize("mechanism, user, password", CASES, ids=[c[0] for c in CASES])
def test_kafka_python_produces_and_consumes(sasl_broker: SaslBroker, mechanism: str,
                                            user: str, password: str) -> None:
    from kafka import KafkaConsumer, KafkaProducer

    conf = dict(bootstrap_servers=sasl_broker.sasl, security_protocol="SASL_PLAINTEXT",
                sasl_mechanism=mechanism, sasl_plain_username=user,
                sasl_plain_password=password)
    topic = f"kp-{mechanism.lower()}-{uuid.uuid4().hex[:6]}"
    producer = KafkaProducer(**conf)
    producer.send(topic, b"kafka-python value").get(timeout=30)
    producer.close()
    consumer = KafkaConsumer(topic, auto_offset_reset="earliest", consumer_timeout_ms=15000,
                             **conf)
    try:
        assert next(iter(consumer)).value == b"kafka-python value"
    finally:
        consumer.close()


def test_kafka_python_wrong_password(sasl_broker: SaslBroker) -> None:
    from kafka import KafkaProducer
    from kafka.errors import KafkaTimeoutError

    # (kafka-python 3.0 reports the closed connection, not the SASL_AUTHENTICATION_FAILED
    # answer that arrives with it: test_wrong_password_is_answered_late_then_closed reads it)
    with pytest.raises(KafkaTimeoutError, match="Unable to bootstrap"):
        KafkaProducer(bootstrap_servers=sasl_broker.sasl, security_protocol="SASL_PLAINTEXT",
                      sasl_mechanism="PLAIN", sasl_plain_username="alice",
                      sasl_plain_password="wrong", bootstrap_timeout_ms=3000)


@pytest.mark.parametrize("mechanism, user, password", CASES, ids=[c[0] for c in CASES])
def test_aiokafka_produces_and_consumes(sasl_broker: SaslBroker, mechanism: str, user: str,
                                        password: str) -> None:
    from aiokafka import AIOKafkaConsumer, AIOKafkaProducer

    conf = dict(bootstrap_servers=sasl_broker.sasl, security_protocol="SASL_PLAINTEXT",
                sasl_mechanism=mechanism, sasl_plain_username=user,
                sasl_plain_password=password)
    topic = f"aio-{mechanism.lower()}-{uuid.uuid4().hex[:6]}"

    async def run() -> bytes:
        producer = AIOKafkaProducer(**conf)
        await producer.start()
        try:
            await producer.send_and_wait(topic, b"aiokafka value")
        finally:
            await producer.stop()
        consumer = AIOKafkaConsumer(topic, auto_offset_reset="earliest", **conf)
        await consumer.start()
        try:
            msg = await asyncio.wait_for(consumer.getone(), 30)
            return msg.value
        finally:
            await consumer.stop()

    assert asyncio.run(run()) == b"aiokafka value"


def test_scram_credentials_are_described_and_deleted(sasl_broker: SaslBroker) -> None:
    from confluent_kafka.admin import (
        AdminClient,
        ScramCredentialInfo,
        ScramMechanism,
        UserScramCredentialDeletion,
        UserScramCredentialUpsertion,
    )

    admin = AdminClient({"bootstrap.servers": sasl_broker.sasl,
                         "security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "PLAIN",
                         "sasl.username": "admin", "sasl.password": "admin-secret"})
    described = admin.describe_user_scram_credentials(["scram256", "scram512"])
    infos = {u: [(i.mechanism, i.iterations) for i in f.result(30).scram_credential_infos]
             for u, f in described.items()}
    assert infos == {"scram256": [(ScramMechanism.SCRAM_SHA_256, 8192)],
                     "scram512": [(ScramMechanism.SCRAM_SHA_512, 8192)]}
    upsert = UserScramCredentialUpsertion(
        "temp", ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 4096), b"temp-secret")
    admin.alter_user_scram_credentials([upsert])["temp"].result(30)
    with wire.connect(sasl_broker.sasl) as sock:
        assert handshake(sock, "SCRAM-SHA-256")[0] == 0
        client = ScramClient(SCRAM_SHA_256, "temp", "temp-secret")
        first = authenticate(sock, client.first())
        assert authenticate(sock, client.final(first.auth_bytes), cid=3).error == 0
    admin.alter_user_scram_credentials([UserScramCredentialDeletion(
        "temp", ScramMechanism.SCRAM_SHA_256)])["temp"].result(30)
    with pytest.raises(Exception, match="does not exist"):
        admin.describe_user_scram_credentials(["temp"])["temp"].result(30)
    with wire.connect(sasl_broker.sasl) as sock:
        assert handshake(sock, "SCRAM-SHA-256")[0] == 0
        assert authenticate(sock, ScramClient(SCRAM_SHA_256, "temp", "x").first()).error == 58


# -- SASL_SSL --------------------------------------------------------------------------------

@dataclass
class SaslSslBroker:
    broker: BrokerProcess
    bootstrap: str
    ca_file: Path
    ca: CertificateAuthority


@pytest.fixture(scope="module")
def sasl_ssl_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SaslSslBroker]:
    tmp = tmp_path_factory.mktemp("sasl-ssl")
    ca = CertificateAuthority.create()
    server = ca.issue("CN=broker,O=pybroker")
    port, sasl_port = free_port(), free_port()
    listeners = f"PLAINTEXT://127.0.0.1:{port},SASL_SSL://127.0.0.1:{sasl_port}"
    overrides = {
        **sasl_overrides(port, sasl_port),
        "listeners": listeners, "advertised.listeners": listeners,
        "listener.name.sasl_ssl.plain.sasl.jaas.config": JAAS,
        **server_properties(ca, server, listener="SASL_SSL"),
    }
    with BrokerProcess(tmp / "kafka-logs", port=port, overrides=overrides) as broker:
        from confluent_kafka.admin import (
            AdminClient,
            ScramCredentialInfo,
            ScramMechanism,
            UserScramCredentialUpsertion,
        )
        admin = AdminClient({"bootstrap.servers": broker.bootstrap})
        upsert = UserScramCredentialUpsertion(
            "scram512", ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 4096), b"s512-secret")
        admin.alter_user_scram_credentials([upsert])["scram512"].result(timeout=30)
        yield SaslSslBroker(broker, f"127.0.0.1:{sasl_port}", ca.write(tmp), ca)


def test_raw_plain_over_tls(sasl_ssl_broker: SaslSslBroker) -> None:
    context = sasl_ssl_broker.ca.client_context()
    with context.wrap_socket(wire.connect(sasl_ssl_broker.bootstrap),
                             server_hostname="127.0.0.1") as sock:
        sock.sendall(wire.metadata_v1(1, []))
        assert_closed(sock)  # TLS alone does not authenticate a SASL_SSL connection
    with context.wrap_socket(wire.connect(sasl_ssl_broker.bootstrap),
                             server_hostname="127.0.0.1") as sock:
        assert handshake(sock, "PLAIN")[0] == 0
        assert authenticate(sock, plain_message("alice", "alice-secret")).error == 0
        assert metadata_works(sock)


def test_confluent_kafka_scram_over_sasl_ssl(sasl_ssl_broker: SaslSslBroker) -> None:
    from confluent_kafka import Consumer, Producer

    conf = {"bootstrap.servers": sasl_ssl_broker.bootstrap, "security.protocol": "SASL_SSL",
            "ssl.ca.location": str(sasl_ssl_broker.ca_file), "sasl.mechanism": "SCRAM-SHA-512",
            "sasl.username": "scram512", "sasl.password": "s512-secret"}
    topic = f"ssl-ck-{uuid.uuid4().hex[:6]}"
    producer = Producer(conf)
    producer.produce(topic, b"over tls")
    assert producer.flush(30) == 0
    consumer = Consumer({**conf, "group.id": f"g-{topic}", "auto.offset.reset": "earliest"})
    try:
        consumer.subscribe([topic])
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            msg = consumer.poll(0.5)
            if msg is not None and msg.error() is None:
                assert msg.value() == b"over tls"
                break
        else:
            pytest.fail("no message consumed over SASL_SSL")
    finally:
        consumer.close()


def test_kafka_python_and_aiokafka_over_sasl_ssl(sasl_ssl_broker: SaslSslBroker) -> None:
    from aiokafka import AIOKafkaConsumer
    from kafka import KafkaProducer

    topic = f"ssl-kp-{uuid.uuid4().hex[:6]}"
    producer = KafkaProducer(bootstrap_servers=sasl_ssl_broker.bootstrap,
                             security_protocol="SASL_SSL",
                             ssl_cafile=str(sasl_ssl_broker.ca_file), sasl_mechanism="PLAIN",
                             sasl_plain_username="alice", sasl_plain_password="alice-secret")
    producer.send(topic, b"kafka-python over tls").get(timeout=30)
    producer.close()

    async def consume() -> bytes:
        consumer = AIOKafkaConsumer(
            topic, bootstrap_servers=sasl_ssl_broker.bootstrap, security_protocol="SASL_SSL",
            ssl_context=sasl_ssl_broker.ca.client_context(), sasl_mechanism="SCRAM-SHA-512",
            sasl_plain_username="scram512", sasl_plain_password="s512-secret",
            auto_offset_reset="earliest")
        await consumer.start()
        try:
            return (await asyncio.wait_for(consumer.getone(), 30)).value
        finally:
            await consumer.stop()

    assert asyncio.run(consume()) == b"kafka-python over tls"


def test_broker_client_reauthenticates(sasl_broker: SaslBroker) -> None:
    """The brokers' own client (inter-broker connections) re-authenticates before its session
    ends; one that did not is closed at its first request after the end."""
    from protocol.messages.metadata_request import MetadataRequest
    from pybroker.network.client import BrokerClient, ConnectionLostError
    from pybroker.security.sasl_client import SaslClientCredentials

    credentials = SaslClientCredentials("PLAIN", "alice", "alice-secret")
    host, port = sasl_broker.sasl.split(":")

    async def run(reauthenticate: bool) -> str:
        client = BrokerClient(host, int(port), client_id="reauth-test", sasl=credentials)
        await client.connect(10)
        try:
            await client.request(3, 12, MetadataRequest(topics=[]), 10_000)
            if not reauthenticate:
                client._reauth_at = None  # as a client that does not re-authenticate
            await asyncio.sleep(REAUTH_MS / 1000 + 0.3)
            try:
                await client.request(3, 12, MetadataRequest(topics=[]), 10_000)
            except ConnectionLostError:
                return "closed"
            return "answered"
        finally:
            client.close()

    assert asyncio.run(run(True)) == "answered"
    assert asyncio.run(run(False)) == "closed"
