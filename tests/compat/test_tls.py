"""TLS listeners with real clients: kafka-python, confluent-kafka (librdkafka), aiokafka, the
Java clients (kafka-clients 3.9 and 4.x) and Kafka's CLI tools produce and consume over SSL,
with and without client certificates, and the broker names each connection by its
certificate's subject (through ``ssl.principal.mapping.rules``). Fetches
over TLS take the buffered path (sendfile cannot encrypt); a plaintext client on the TLS port
and a handshake that never finishes are closed without harm to anyone else.

The broker runs in the test process (real sockets on 127.0.0.1) so that each connection's
principal can be read from the socket server while the client is connected.
"""

from __future__ import annotations

import asyncio
import socket
import ssl
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from pybroker.api.context import RequestContext
from pybroker.api.router import Interception
from pybroker.testing.certs import CertificateAuthority, Credential, server_properties
from pybroker.testing.inprocess import InProcessBroker

# the Java clients' fixtures (kafka-clients 3.9 and 4.x), for the Java test below
from tests.compat.java.conftest import (  # noqa: F401
    JavaClient,
    ProduceRecord,
    java_client,
    java_clients,
)

pytestmark = pytest.mark.compat

MAPPING = r"RULE:^CN=([a-z]+),OU=mapped,.*$/$1/U,DEFAULT"


@dataclass
class Tls:
    broker: InProcessBroker
    ca: CertificateAuthority
    ca_file: Path
    alice: Credential  # a client certificate the default rule names
    bob: Credential  # one the mapping rule renames
    ports: dict[str, int]
    #: (listener, principal) of every request handled, as its context carries them
    seen: set[tuple[str, str]]

    def requests_as(self, listener: str) -> set[str]:
        """The principals requests on ``listener`` carried in their context so far."""
        return {p for name, p in list(self.seen) if name == listener}

    def principals(self, listener: str) -> set[str]:
        return self.broker.call(lambda b: {
            str(c.principal) for c in b.socket_server.connections if c.listener == listener})

    def wait_principals(self, listener: str, expected: set[str], timeout: float = 10) -> set[str]:
        deadline = time.monotonic() + timeout
        seen = self.principals(listener)
        while not expected <= seen and time.monotonic() < deadline:
            time.sleep(0.05)
            seen = self.principals(listener)
        return seen


@pytest.fixture(scope="module")
def tls(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Tls]:
    """A broker with a PLAINTEXT listener (inter-broker), ``SSL`` requiring client
    certificates (key store inline) and ``OPTIONAL``, an SSL listener that asks for one (key
    store in files)."""
    tmp = tmp_path_factory.mktemp("tls")
    ca = CertificateAuthority.create()
    server = ca.issue("CN=broker,O=pybroker")
    server.write(tmp, "server")
    alice = ca.issue("CN=alice,OU=eng,O=Example", client=True)
    alice.write(tmp, "alice")
    bob = ca.issue("CN=bob,OU=mapped,O=Example", client=True, key_password="bob-secret")
    bob.write(tmp, "bob")
    overrides = {
        "listeners": "PLAINTEXT://127.0.0.1:0,SSL://127.0.0.1:0,OPTIONAL://127.0.0.1:0",
        "advertised.listeners": "PLAINTEXT://127.0.0.1:0,SSL://127.0.0.1:0,"
                                "OPTIONAL://127.0.0.1:0",
        "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,SSL:SSL,OPTIONAL:SSL",
        "inter.broker.listener.name": "PLAINTEXT",
        "ssl.principal.mapping.rules": MAPPING,
        "connections.max.idle.ms": 2000,  # the handshake timeout
        **server_properties(ca, server, client_auth="required", listener="SSL"),
        **server_properties(ca, server, client_auth="requested", listener="OPTIONAL",
                            inline=False),
    }
    broker = InProcessBroker(tmp / "data", overrides=overrides).start()
    seen: set[tuple[str, str]] = set()

    def record(ctx: RequestContext, request: object) -> Interception | None:
        seen.add((ctx.listener, str(ctx.principal)))
        return broker.faults(ctx, request)

    try:
        broker.call(lambda b: setattr(b.dispatcher, "interceptor", record))
        server = broker.call(lambda b: b.socket_server)
        ports = {name: port for name, _, port in server.bound}
        yield Tls(broker, ca, ca.write(tmp), alice, bob, ports, seen)
    finally:
        broker.stop()


def topic() -> str:
    return f"tls-{uuid.uuid4().hex[:8]}"


def test_confluent_kafka_with_a_client_certificate(tls: Tls) -> None:
    from confluent_kafka import Consumer, Producer

    name = topic()
    common = {"bootstrap.servers": f"127.0.0.1:{tls.ports['SSL']}", "security.protocol": "SSL",
              "ssl.ca.location": str(tls.ca_file),
              "ssl.certificate.location": str(tls.alice.files["chain"]),
              "ssl.key.location": str(tls.alice.files["key"])}
    producer = Producer(common)
    for i in range(100):
        producer.produce(name, key=b"k%d" % i, value=b"v%d" % i * 100)
    assert producer.flush(30) == 0
    consumer = Consumer({**common, "group.id": name, "auto.offset.reset": "earliest"})
    consumer.subscribe([name])
    values = []
    deadline = time.monotonic() + 30
    while len(values) < 100 and time.monotonic() < deadline:
        msg = consumer.poll(0.5)
        if msg is not None and msg.error() is None:
            values.append(msg.value())
    assert tls.wait_principals("SSL", {"User:CN=alice,OU=eng,O=Example"}) == {
        "User:CN=alice,OU=eng,O=Example"}
    consumer.close()
    assert values == [b"v%d" % i * 100 for i in range(100)]


def test_confluent_kafka_without_a_certificate_is_refused_where_one_is_required(
        tls: Tls) -> None:
    from confluent_kafka import KafkaException
    from confluent_kafka.admin import AdminClient

    admin = AdminClient({"bootstrap.servers": f"127.0.0.1:{tls.ports['SSL']}",
                         "security.protocol": "SSL", "ssl.ca.location": str(tls.ca_file)})
    with pytest.raises(KafkaException):
        admin.list_topics(timeout=3)


def test_kafka_python_with_a_mapped_principal_and_an_encrypted_key(tls: Tls) -> None:
    from kafka import KafkaConsumer, KafkaProducer

    name = topic()
    common = {"bootstrap_servers": f"127.0.0.1:{tls.ports['OPTIONAL']}",
              "security_protocol": "SSL", "ssl_cafile": str(tls.ca_file),
              "ssl_certfile": str(tls.bob.files["chain"]),
              "ssl_keyfile": str(tls.bob.files["key"]), "ssl_password": "bob-secret",
              "ssl_check_hostname": True}
    producer = KafkaProducer(**common)
    for i in range(50):
        producer.send(name, b"m%d" % i)
    producer.flush(30)
    assert "User:BOB" in tls.wait_principals("OPTIONAL", {"User:BOB"})
    producer.close()
    consumer = KafkaConsumer(name, auto_offset_reset="earliest", consumer_timeout_ms=10_000,
                             **common)
    got = [m.value for _, m in zip(range(50), consumer, strict=False)]
    consumer.close()
    assert got == [b"m%d" % i for i in range(50)]


def test_aiokafka_without_a_certificate_is_anonymous_where_one_is_only_requested(
        tls: Tls) -> None:
    from aiokafka import AIOKafkaConsumer, AIOKafkaProducer

    name = topic()
    seen: set[str] = set()

    async def main() -> list[bytes]:
        context = ssl.create_default_context(cafile=str(tls.ca_file))
        common = {"bootstrap_servers": f"127.0.0.1:{tls.ports['OPTIONAL']}",
                  "security_protocol": "SSL", "ssl_context": context}
        producer = AIOKafkaProducer(**common)
        await producer.start()
        try:
            for i in range(30):
                await producer.send_and_wait(name, b"a%d" % i)
            seen.update(await asyncio.to_thread(tls.principals, "OPTIONAL"))
        finally:
            await producer.stop()
        consumer = AIOKafkaConsumer(name, auto_offset_reset="earliest", **common)
        await consumer.start()
        try:
            out = []
            async with asyncio.timeout(30):
                while len(out) < 30:
                    batch = await consumer.getmany(timeout_ms=500)
                    out += [r.value for records in batch.values() for r in records]
            return out
        finally:
            await consumer.stop()

    assert asyncio.run(main()) == [b"a%d" % i for i in range(30)]
    assert "User:ANONYMOUS" in seen


def test_a_plaintext_client_on_the_tls_port_is_closed(tls: Tls) -> None:
    from protocol.messages import ApiKey, api_versions_request as av
    from pybroker.testing.wire_client import WireClient

    with socket.create_connection(("127.0.0.1", tls.ports["SSL"]), timeout=5) as sock:
        # an ApiVersions request in the clear: not a TLS ClientHello
        sock.sendall(b"\x00\x00\x00\x0e\x00\x12\x00\x00\x00\x00\x00\x01\x00\x04test")
        sock.settimeout(5)
        while sock.recv(4096):  # perhaps a TLS alert, then the close (a timeout fails)
            pass
    # the broker serves on
    with WireClient(f"127.0.0.1:{tls.ports['PLAINTEXT']}") as client:
        assert client.call(ApiKey.API_VERSIONS, 3, av.ApiVersionsRequest(
            client_software_name="t", client_software_version="1")).error_code == 0


def test_a_handshake_that_never_finishes_is_closed_on_a_timeout(tls: Tls) -> None:
    with socket.create_connection(("127.0.0.1", tls.ports["SSL"]), timeout=10) as sock:
        started = time.monotonic()
        assert sock.recv(1) == b""  # said nothing: closed by the broker
        waited = time.monotonic() - started
    assert 1.5 < waited < 8, waited


def test_kafkas_cli_tools_with_pem_key_and_trust_stores(tls: Tls, kafka_tools_lib: Path,
                                                        tmp_path: Path) -> None:
    """The Java clients inside Kafka's tools (kafka-topics, the console producer and consumer)
    with Kafka 3.9's PEM stores: the trust store and a key store file of key and chain."""
    from tests.compat.cli.conftest import KafkaCli

    config = tmp_path / "client.properties"
    config.write_text("\n".join([
        "security.protocol=SSL", "ssl.truststore.type=PEM",
        f"ssl.truststore.location={tls.ca_file}", "ssl.keystore.type=PEM",
        f"ssl.keystore.location={tls.alice.files['keystore']}"]) + "\n")
    cli = KafkaCli(f"127.0.0.1:{tls.ports['SSL']}", kafka_tools_lib)
    name = topic()
    cli.tool("kafka-topics", "--command-config", str(config), "--create", "--topic", name,
             "--partitions", "2")
    assert name in cli.tool("kafka-topics", "--command-config", str(config), "--list").lines
    cli.tool("kafka-console-producer", "--producer.config", str(config), "--topic", name,
             stdin="".join(f"line {i}\n" for i in range(20)))
    out = cli.tool("kafka-console-consumer", "--consumer.config", str(config), "--topic", name,
                   "--from-beginning", "--max-messages", "20", "--timeout-ms", "30000")
    assert sorted(out.lines) == sorted(f"line {i}" for i in range(20))
    assert ("SSL", "User:CN=alice,OU=eng,O=Example") in tls.seen
    assert tls.requests_as("SSL") == {"User:CN=alice,OU=eng,O=Example"}


def test_an_ssl_only_single_node_sends_its_transaction_markers_over_tls(tmp_path: Path) -> None:
    """With no PLAINTEXT listener at all, the node reaches itself over TLS (the transaction
    marker sender, the verification of transactional produces) as its own client."""
    from confluent_kafka import Consumer, Producer

    ca = CertificateAuthority.create()
    server = ca.issue("CN=broker")
    ca_file = ca.write(tmp_path)
    overrides = {"listeners": "SSL://127.0.0.1:0", "advertised.listeners": "SSL://127.0.0.1:0",
                 "security.inter.broker.protocol": "SSL",
                 "transaction.state.log.replication.factor": 1,
                 "transaction.state.log.min.isr": 1, "transaction.state.log.num.partitions": 1,
                 **server_properties(ca, server, client_auth="requested")}
    with InProcessBroker(tmp_path / "data", overrides=overrides) as broker:
        common = {"bootstrap.servers": broker.bootstrap, "security.protocol": "SSL",
                  "ssl.ca.location": str(ca_file)}
        name = topic()
        producer = Producer({**common, "transactional.id": name})
        producer.init_transactions(30)
        producer.begin_transaction()
        for i in range(10):
            producer.produce(name, value=b"t%d" % i)
        producer.commit_transaction(30)
        consumer = Consumer({**common, "group.id": name, "auto.offset.reset": "earliest",
                             "isolation.level": "read_committed"})
        consumer.subscribe([name])
        got = []
        deadline = time.monotonic() + 30
        while len(got) < 10 and time.monotonic() < deadline:
            msg = consumer.poll(0.5)
            if msg is not None and msg.error() is None:
                got.append(msg.value())
        consumer.close()
        assert got == [b"t%d" % i for i in range(10)]
        # the broker's own connections authenticated with its certificate
        principals = broker.call(lambda b: {str(c.principal)
                                            for c in b.socket_server.connections})
        assert "User:CN=broker" in principals, principals


def test_a_tls_listener_added_at_run_time(tmp_path: Path) -> None:
    """A dynamic ``listeners`` change opens an SSL listener with the listener's TLS settings
    from server.properties; clients then reach it over TLS with their certificates."""
    from confluent_kafka.admin import AdminClient

    from protocol.errors import ErrorCode
    from protocol.messages import ApiKey, alter_configs_request as ac
    from pybroker.testing.broker_process import free_port
    from pybroker.testing.wire_client import WireClient

    ca = CertificateAuthority.create()
    server = ca.issue("CN=broker")
    carol = ca.issue("CN=carol", client=True)
    carol.write(tmp_path, "carol")
    ca_file = ca.write(tmp_path)
    port, tls_port = free_port(), free_port()
    overrides = {"listeners": f"PLAINTEXT://127.0.0.1:{port}",
                 "advertised.listeners": f"PLAINTEXT://127.0.0.1:{port}",
                 "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,SECURE:SSL",
                 **server_properties(ca, server, client_auth="required", listener="SECURE")}
    with InProcessBroker(tmp_path / "data", overrides=overrides, port=port) as broker:
        listeners = f"PLAINTEXT://127.0.0.1:{port},SECURE://127.0.0.1:{tls_port}"
        with WireClient(broker.bootstrap) as client:
            response = client.call(ApiKey.ALTER_CONFIGS, 2, ac.AlterConfigsRequest(resources=[
                ac.AlterConfigsResource(resource_type=4, resource_name="0", configs=[
                    ac.AlterableConfig(name="listeners", value=listeners),
                    ac.AlterableConfig(name="advertised.listeners", value=listeners)])]))
        [result] = response.responses
        assert result.error_code == ErrorCode.NONE, result
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and "SECURE" not in broker.call(
                lambda b: b.socket_server.listener_security):
            time.sleep(0.05)
        admin = AdminClient({"bootstrap.servers": f"127.0.0.1:{tls_port}",
                             "security.protocol": "SSL", "ssl.ca.location": str(ca_file),
                             "ssl.certificate.location": str(carol.files["chain"]),
                             "ssl.key.location": str(carol.files["key"])})
        metadata = admin.list_topics(timeout=10)
        assert [(b.host, b.port) for b in metadata.brokers.values()] == [
            ("127.0.0.1", tls_port)]
        assert broker.call(lambda b: b.socket_server.listener_security["SECURE"].protocol) == \
            "SSL"


def test_the_java_clients_with_inline_pem(tls: Tls, java_client: JavaClient) -> None:  # noqa: F811
    """kafka-clients 3.9 and 4.x (the driver of tests/compat/java), each producing and
    reading back over SSL with the key store given inline (ssl.keystore.key and
    ssl.keystore.certificate.chain), as Kafka's clients take it."""
    name = topic()
    ssl_config = ["security.protocol=SSL", "ssl.truststore.type=PEM",
                  f"ssl.truststore.certificates={tls.ca.cert_pem}",
                  "ssl.keystore.type=PEM", f"ssl.keystore.key={tls.alice.key_pem}",
                  f"ssl.keystore.certificate.chain={tls.alice.chain_pem}"]
    options = [arg for item in ssl_config for arg in ("--config", item)]
    bootstrap = f"127.0.0.1:{tls.ports['SSL']}"
    records = [ProduceRecord(b"k%d" % i, b"java-%d" % i, partition=0) for i in range(40)]
    acks = java_client.produce(bootstrap, name, records, *options)
    assert [a["offset"] for a in acks] == list(range(40))
    consumed = java_client.run("consume-assign", "--bootstrap", bootstrap, "--topic", name,
                               "--partitions", "0", "--from-beginning", "--count", "40",
                               *options)
    assert consumed[-1]["summary"]["timedOut"] is False
    assert len([line for line in consumed if "offset" in line]) == 40
    assert ("SSL", "User:CN=alice,OU=eng,O=Example") in tls.seen
