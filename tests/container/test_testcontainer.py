"""``PyBrokerContainer`` through testcontainers, driven by podman's Docker-compatible API: the
surface of testcontainers' ``KafkaContainer`` (with-statement, start/stop,
``get_bootstrap_server()``), a client in this process, and one in another container."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from confluent_kafka import Consumer, Producer

pytestmark = pytest.mark.container


@pytest.fixture
def testcontainers_on_podman(docker_api: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """testcontainers configured for podman's API: no Ryuk (its image cannot be pulled here:
    every container is removed by the test), the host's address taken from DOCKER_HOST's
    host, published ports reached on 127.0.0.1."""
    from testcontainers.core.config import ConnectionMode, testcontainers_config

    monkeypatch.setenv("DOCKER_HOST", docker_api)
    monkeypatch.setenv("TESTCONTAINERS_RYUK_DISABLED", "true")
    monkeypatch.setenv("TESTCONTAINERS_CONNECTION_MODE", "docker_host")
    monkeypatch.setenv("TC_HOST", "127.0.0.1")
    monkeypatch.setattr(testcontainers_config, "ryuk_disabled", True)
    monkeypatch.setattr(testcontainers_config, "tc_host_override", "127.0.0.1")
    # (the settings were read when testcontainers was imported: set them where they are kept)
    monkeypatch.setattr(testcontainers_config, "connection_mode_override",
                        ConnectionMode.docker_host)
    yield


def test_a_suite_switches_by_one_import(testcontainers_on_podman: None,
                                        pybroker_image: str) -> None:
    from pybroker.testing import PyBrokerContainer

    with PyBrokerContainer(pybroker_image) as kafka:
        bootstrap = kafka.get_bootstrap_server()
        assert bootstrap.startswith("127.0.0.1:")
        producer = Producer({"bootstrap.servers": bootstrap})
        producer.produce("tc", key=b"k", value=b"from the test process")
        assert producer.flush(20) == 0

        consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "tc",
                             "auto.offset.reset": "earliest"})
        consumer.subscribe(["tc"])
        try:
            message = consumer.poll(20)
            assert message is not None and message.error() is None
            assert message.value() == b"from the test process"
        finally:
            consumer.close()
        container_id = kafka.get_container_id()
        client = kafka.get_docker_client()
    assert not client.client.containers.list(all=True, filters={"id": container_id}), (
        "the container outlived its with-block")


#: a client in another container: Metadata through the BROKER listener, then ApiVersions with
#: the broker it names
PROBE = """
import sys
from pybroker.healthcheck import check
from pybroker.testing.wire_client import WireClient
from protocol.messages import ApiKey, metadata_request as md
with WireClient(sys.argv[1]) as client:
    [broker] = client.call(ApiKey.METADATA, 12, md.MetadataRequest(topics=None)).brokers
check(f"{broker.host}:{broker.port}")
print(broker.node_id, broker.port)
"""


def test_start_stop_and_the_broker_listener(testcontainers_on_podman: None,
                                            pybroker_image: str) -> None:
    from testcontainers.core.container import DockerContainer
    from testcontainers.core.network import Network

    from pybroker.testing import PyBrokerContainer

    with Network() as network:
        kafka = (PyBrokerContainer(pybroker_image).with_network(network)
                 .with_network_aliases("kafka").with_env("KAFKA_NUM_PARTITIONS", "2"))
        try:
            kafka.start()
            # a client in another container on the network is told the BROKER listener
            probe = (DockerContainer(pybroker_image).with_network(network)
                     .with_command(["sleep", "60"]))
            with probe:
                result = probe.exec(["python", "-c", PROBE, "kafka:9092"])
                assert result.exit_code == 0, result.output
                assert result.output.decode().split() == ["1", "9092"]
            assert "num.partitions=2" in kafka.exec(
                ["pybroker", "env-properties"]).output.decode().splitlines()
        finally:
            kafka.stop()
