"""SASL/OAUTHBEARER with confluent-kafka (librdkafka) against a ``pybroker serve`` process.

One broker, four listeners: PLAINTEXT (the test's admin, a super user), SASL_PLAINTEXT with
Kafka's default unsecured validator (librdkafka's built-in unsecured JWT,
``sasl.oauthbearer.config``), and two SASL_PLAINTEXT listeners with KIP-768's validator of
signed JWTs, one reading its JWKS from a ``file:`` URL and one from a loopback HTTP server this
module runs (a ``http.server`` thread, stopped at the end). ACLs are on: alice and carol may use
their topics and bob may not. Bad tokens (expired, wrong signature, issuer or audience) are
refused with Kafka's ``{"status":"invalid_token"}``, which librdkafka reports as an
authentication error.
"""

from __future__ import annotations

import base64
import http.server
import json
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa

from pybroker.testing.broker_process import BrokerProcess, free_port

ISSUER, AUDIENCE = "https://issuer.test", "kafka"
VALIDATOR = "org.apache.kafka.common.security.oauthbearer.OAuthBearerValidatorCallbackHandler"
JAAS = ('org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required '
        'unsecuredLoginStringClaim_sub="admin";')
INVALID_TOKEN = '{"status":"invalid_token"}'


@dataclass
class OAuthBroker:
    broker: BrokerProcess
    unsecured: str
    jwt_file: str
    jwt_http: str
    key: rsa.RSAPrivateKey


def jwks(key: rsa.RSAPrivateKey) -> bytes:
    public = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(key.public_key()))
    return json.dumps({"keys": [{**public, "kid": "test-key", "use": "sig",
                                 "alg": "RS256"}]}).encode()


class _JwksServer(http.server.ThreadingHTTPServer):
    document = b""


class _JwksHandler(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        assert isinstance(self.server, _JwksServer)
        body = self.server.document
        self.send_response(200 if self.path == "/jwks.json" else 404)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass


@pytest.fixture(scope="module")
def oauth_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[OAuthBroker]:
    tmp = tmp_path_factory.mktemp("oauthbearer")
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    (tmp / "jwks.json").write_bytes(jwks(key))
    server = _JwksServer(("127.0.0.1", 0), _JwksHandler)
    server.document = jwks(key)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    port, unsecured, by_file, by_http = free_port(), free_port(), free_port(), free_port()
    listeners = (f"PLAINTEXT://127.0.0.1:{port},SASL_PLAINTEXT://127.0.0.1:{unsecured},"
                 f"JWTFILE://127.0.0.1:{by_file},JWTHTTP://127.0.0.1:{by_http}")
    overrides = {
        "listeners": listeners, "advertised.listeners": listeners,
        "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT,"
                                          "JWTFILE:SASL_PLAINTEXT,JWTHTTP:SASL_PLAINTEXT",
        "inter.broker.listener.name": "PLAINTEXT",
        "sasl.enabled.mechanisms": "OAUTHBEARER",
        "listener.name.sasl_plaintext.oauthbearer.sasl.jaas.config": JAAS,
        "listener.name.jwtfile.oauthbearer.sasl.server.callback.handler.class": VALIDATOR,
        "listener.name.jwtfile.oauthbearer.sasl.oauthbearer.jwks.endpoint.url":
            (tmp / "jwks.json").as_uri(),
        "listener.name.jwthttp.oauthbearer.sasl.server.callback.handler.class": VALIDATOR,
        "listener.name.jwthttp.oauthbearer.sasl.oauthbearer.jwks.endpoint.url":
            f"http://127.0.0.1:{server.server_address[1]}/jwks.json",
        "sasl.oauthbearer.expected.audience": AUDIENCE,
        "sasl.oauthbearer.expected.issuer": ISSUER,
        "connection.failed.authentication.delay.ms": 50,
        "authorizer.class.name": "kafka.security.authorizer.AclAuthorizer",
        "super.users": "User:ANONYMOUS",
    }
    try:
        with BrokerProcess(tmp / "kafka-logs", port=port, overrides=overrides) as broker:
            _grant(broker.bootstrap)
            yield OAuthBroker(broker, f"127.0.0.1:{unsecured}", f"127.0.0.1:{by_file}",
                              f"127.0.0.1:{by_http}", key)
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def _grant(bootstrap: str) -> None:
    from confluent_kafka.admin import (
        AclBinding,
        AclOperation,
        AclPermissionType,
        AdminClient,
        NewTopic,
        ResourcePatternType,
        ResourceType,
    )

    admin = AdminClient({"bootstrap.servers": bootstrap})
    bindings = [AclBinding(kind, f"{user}-", ResourcePatternType.PREFIXED, f"User:{user}", "*",
                           AclOperation.ALL, AclPermissionType.ALLOW)
                for user in ("alice", "carol") for kind in (ResourceType.TOPIC,
                                                             ResourceType.GROUP)]
    for fut in admin.create_acls(bindings).values():
        fut.result(timeout=30)
    topics = [NewTopic(name, 1, 1) for name in ("alice-t", "carol-t", "bob-t")]
    for fut in admin.create_topics(topics).values():
        fut.result(timeout=30)


def unsecured_token(claims: dict[str, Any]) -> str:
    def b64(value: Any) -> str:
        return base64.urlsafe_b64encode(json.dumps(value).encode()).rstrip(b"=").decode()
    return f"{b64({'alg': 'none'})}.{b64(claims)}."


def signed_token(key: rsa.RSAPrivateKey, **overrides: Any) -> str:
    now = int(time.time())
    claims = {"sub": "carol", "iss": ISSUER, "aud": AUDIENCE, "iat": now, "exp": now + 300,
              "scope": "kafka"}
    claims.update(overrides)
    claims = {k: v for k, v in claims.items() if v is not None}
    return jwt.encode(claims, key, algorithm="RS256", headers={"kid": "test-key"})


def token_cb(token: str) -> Callable[[str], tuple[str, float]]:
    """An ``oauth_cb`` handing librdkafka ``token`` (valid for librdkafka for a minute, whatever
    the token says)."""
    return lambda config: (token, time.time() + 60)


def produce_and_consume(conf: dict[str, Any], topic: str) -> None:
    from confluent_kafka import Consumer, Producer

    value = uuid.uuid4().bytes
    producer = Producer(conf)
    producer.produce(topic, value)
    assert producer.flush(30) == 0
    consumer = Consumer({**conf, "group.id": f"{topic.split('-')[0]}-g-{uuid.uuid4().hex[:6]}",
                         "auto.offset.reset": "earliest"})
    try:
        consumer.subscribe([topic])
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            msg = consumer.poll(0.5)
            if msg is not None and msg.error() is None and msg.value() == value:
                return
        pytest.fail(f"nothing consumed from {topic}")
    finally:
        consumer.close()


def authentication_errors(conf: dict[str, Any]) -> list[str]:
    """What librdkafka reports when its token is refused."""
    from confluent_kafka import KafkaError, Producer

    errors: list[KafkaError] = []
    producer = Producer({**conf, "error_cb": errors.append})
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and not any(
            e.code() == KafkaError._AUTHENTICATION for e in errors):
        producer.poll(0.2)
    producer.flush(0)
    found = [e.str() for e in errors if e.code() == KafkaError._AUTHENTICATION]
    assert found, errors
    return found


def unsecured_conf(broker: OAuthBroker, **extra: Any) -> dict[str, Any]:
    return {"bootstrap.servers": broker.unsecured, "security.protocol": "SASL_PLAINTEXT",
            "sasl.mechanism": "OAUTHBEARER", **extra}


def test_librdkafka_unsecured_jwt_produces_and_consumes(oauth_broker: OAuthBroker) -> None:
    conf = unsecured_conf(oauth_broker, **{"enable.sasl.oauthbearer.unsecure.jwt": True,
                                           "sasl.oauthbearer.config":
                                               "principal=alice scope=read,write"})
    produce_and_consume(conf, "alice-t")


def test_acls_apply_to_the_tokens_principal(oauth_broker: OAuthBroker) -> None:
    from confluent_kafka import KafkaError, Producer

    conf = unsecured_conf(oauth_broker, **{"enable.sasl.oauthbearer.unsecure.jwt": True,
                                           "sasl.oauthbearer.config": "principal=bob"})
    errors: list[Any] = []
    producer = Producer({**conf, "on_delivery": lambda err, msg: errors.append(err)})
    producer.produce("alice-t", b"not allowed")
    producer.flush(30)
    assert [e.code() for e in errors] == [KafkaError.TOPIC_AUTHORIZATION_FAILED]


def test_expired_and_garbled_unsecured_tokens_are_refused(oauth_broker: OAuthBroker) -> None:
    now = int(time.time())
    expired = unsecured_token({"sub": "alice", "iat": now - 600, "exp": now - 300})
    for token in (expired, unsecured_token({"sub": "alice", "iat": now}), "garbage"):
        errors = authentication_errors(unsecured_conf(oauth_broker, oauth_cb=token_cb(token)))
        assert any(INVALID_TOKEN in e for e in errors), errors


@pytest.mark.parametrize("listener", ["jwt_file", "jwt_http"])
def test_signed_jwt_produces_and_consumes(oauth_broker: OAuthBroker, listener: str) -> None:
    conf = {"bootstrap.servers": getattr(oauth_broker, listener),
            "security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "OAUTHBEARER",
            "oauth_cb": token_cb(signed_token(oauth_broker.key))}
    produce_and_consume(conf, "carol-t")


@pytest.mark.parametrize("listener", ["jwt_file", "jwt_http"])
def test_signed_jwt_refusals(oauth_broker: OAuthBroker, listener: str) -> None:
    other = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    now = int(time.time())
    bad = {
        "signature": signed_token(other),
        "issuer": signed_token(oauth_broker.key, iss="https://elsewhere"),
        "audience": signed_token(oauth_broker.key, aud="other"),
        "expired": signed_token(oauth_broker.key, iat=now - 600, exp=now - 300),
        "unsecured": unsecured_token({"sub": "carol", "iat": now, "exp": now + 60}),
    }
    for name, token in bad.items():
        conf = {"bootstrap.servers": getattr(oauth_broker, listener),
                "security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "OAUTHBEARER",
                "oauth_cb": token_cb(token)}
        errors = authentication_errors(conf)
        assert any(INVALID_TOKEN in e for e in errors), (name, errors)


def test_the_session_ends_with_the_token(oauth_broker: OAuthBroker) -> None:
    """SaslAuthenticate tells the client the token's remaining lifetime; a request after it
    closes the connection (KIP-368), as Kafka's SaslServerAuthenticator has it."""
    from pybroker.security.oauthbearer import client_initial_response
    from tests.compat import kafka_wire as wire
    from tests.compat.test_sasl import authenticate, handshake

    expiry = time.time() + 3
    token = unsecured_token({"sub": "alice", "iat": int(time.time()), "exp": expiry})
    with wire.connect(oauth_broker.unsecured) as sock:
        assert handshake(sock, "OAUTHBEARER")[0] == 0
        answer = authenticate(sock, client_initial_response(token))
        assert answer is not None and answer.error == 0, answer
        assert 1000 < answer.session_lifetime_ms <= 3000, answer
        sock.sendall(wire.metadata_v1(5, []))
        assert wire.read_response(sock)[0] == 5
        time.sleep(max(0.0, expiry - time.time()) + 0.3)
        sock.sendall(wire.metadata_v1(6, []))
        assert wire.wait_closed(sock, timeout=5) == b""


def test_librdkafka_reauthenticates_with_fresh_tokens(oauth_broker: OAuthBroker) -> None:
    """Tokens that live 3 s: librdkafka asks its oauth_cb for a new one before each expires and
    re-authenticates with it; the producer delivers throughout."""
    from confluent_kafka import Producer

    tokens: list[float] = []

    def fresh_token(config: str) -> tuple[str, float]:
        expiry = time.time() + 3
        tokens.append(expiry)
        return signed_token(oauth_broker.key, exp=int(expiry)), expiry

    delivered: list[object] = []
    producer = Producer({"bootstrap.servers": oauth_broker.jwt_file,
                         "security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "OAUTHBEARER",
                         "oauth_cb": fresh_token})
    deadline = time.monotonic() + 7
    while time.monotonic() < deadline:
        producer.produce("carol-t", b"v", on_delivery=lambda err, msg: delivered.append(err))
        producer.poll(0.5)
    assert producer.flush(30) == 0
    assert len(tokens) >= 3, tokens
    assert delivered and all(err is None for err in delivered), delivered
