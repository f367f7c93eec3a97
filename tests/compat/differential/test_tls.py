"""The same scenarios on an SSL listener of both brokers: a pybroker and a reference Apache
Kafka 3.9 configured alike (PEM key and trust stores in files, client certificates required)
answer Metadata, CreateTopics, Produce and Fetch over TLS as they answer them in the clear -
field by field, with the differences the plaintext scenarios document and no others. A client
without a certificate is refused by both."""

from __future__ import annotations

import ssl
from collections.abc import Iterator
from pathlib import Path

import pytest

from pybroker.testing.broker_process import BrokerProcess, free_port
from pybroker.testing.certs import CertificateAuthority, server_properties
from pybroker.testing.reference_kafka import ReferenceKafka
from pybroker.testing.wire_client import WireClient
from tests.compat.differential.conftest import Names, Pair
from tests.compat.differential.differ import Recorder
from tests.compat.differential.test_data_path import KNOWN, metadata_answers, produce_and_fetch
from tests.conftest import REFERENCE_OVERRIDES


class TlsPair(Pair):
    """Both brokers reached on their SSL listeners."""

    def __init__(self, pybroker: BrokerProcess, kafka: ReferenceKafka,
                 ssl_ports: tuple[int, int], context: ssl.SSLContext) -> None:
        super().__init__(pybroker, kafka)
        self.ssl_ports = ssl_ports
        self.context = context

    def run(self, scenario, names: Names) -> tuple[Recorder, Recorder]:
        ours = Recorder(f"127.0.0.1:{self.ssl_ports[0]}", ssl_context=self.context)
        theirs = Recorder(f"127.0.0.1:{self.ssl_ports[1]}", ssl_context=self.context)
        for rec in (ours, theirs):
            try:
                scenario(rec, names)
            finally:
                rec.close()
        return ours, theirs


def ssl_overrides(port: int, ssl_port: int, ssl_props: dict[str, str]) -> dict[str, object]:
    listeners = f"PLAINTEXT://127.0.0.1:{port},SSL://127.0.0.1:{ssl_port}"
    return {**REFERENCE_OVERRIDES, "listeners": listeners, "advertised.listeners": listeners,
            **ssl_props}


@pytest.fixture(scope="module")
def tls_pair(kafka_tools_lib: Path, tmp_path_factory: pytest.TempPathFactory
             ) -> Iterator[TlsPair]:
    base = tmp_path_factory.mktemp("differential-tls")
    ca = CertificateAuthority.create()
    server = ca.issue("CN=broker")
    server.write(base / "certs", "server")
    client = ca.issue("CN=differ", client=True)
    client.write(base / "certs", "differ")
    ssl_props = server_properties(ca, server, client_auth="required", inline=False)
    ours_port, ours_ssl, theirs_port, theirs_ssl = (free_port() for _ in range(4))
    broker = BrokerProcess(base / "kafka-logs", port=ours_port, config=None,
                           overrides=ssl_overrides(ours_port, ours_ssl, ssl_props))
    kafka = ReferenceKafka(base / "reference", port=theirs_port, lib=kafka_tools_lib,
                           overrides=ssl_overrides(theirs_port, theirs_ssl, ssl_props))
    try:
        broker.start()
        kafka.start()
        yield TlsPair(broker, kafka, (ours_ssl, theirs_ssl), ca.client_context(client))
    finally:
        kafka.stop()
        broker.stop()


def test_metadata_over_tls(tls_pair: TlsPair, names: Names) -> None:
    tls_pair.check(metadata_answers, names, KNOWN)


def test_produce_and_fetch_over_tls(tls_pair: TlsPair, names: Names) -> None:
    tls_pair.check(produce_and_fetch, names, KNOWN)


def test_a_client_without_a_certificate_is_refused_by_both(tls_pair: TlsPair) -> None:
    context = ssl.create_default_context(cadata=None)
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    outcomes = []
    for port in tls_pair.ssl_ports:
        try:
            with WireClient(f"127.0.0.1:{port}", timeout=10, ssl_context=context) as client:
                client.call(18, 0, _api_versions())
            outcomes.append("answered")
        except (ssl.SSLError, ConnectionError, OSError):
            outcomes.append("refused")
    assert outcomes == ["refused", "refused"]


def _api_versions():
    from protocol.messages import api_versions_request as av

    return av.ApiVersionsRequest()
