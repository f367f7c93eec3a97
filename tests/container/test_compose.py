"""docker/compose.yaml (ZooKeeper and three brokers) and docker/compose.single-node.yaml, run
with podman-compose: clients on the host and inside the compose network both connect, and the
cluster carries on when a broker's container stops. Each test brings its own project up on free
host ports and takes it down (containers, network, volumes)."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator

import pytest
from confluent_kafka import Consumer, Producer
from confluent_kafka.admin import AdminClient, NewTopic

from pybroker.testing.broker_process import REPO_ROOT, free_port
from pybroker.testing.containers import ComposeProject, run, wait_serving
from pybroker.testing.metrics import scrape

pytestmark = pytest.mark.container

COMPOSE = REPO_ROOT / "docker" / "compose.yaml"
SINGLE_NODE = REPO_ROOT / "docker" / "compose.single-node.yaml"

#: a client inside the compose network: the image's Python asks a listener for Metadata and
#: prints the brokers it is told about
METADATA_FROM_INSIDE = """
import sys
from pybroker.testing.wire_client import WireClient
from protocol.messages import ApiKey, metadata_request as md
with WireClient(sys.argv[1]) as client:
    answer = client.call(ApiKey.METADATA, 12, md.MetadataRequest(topics=None))
print(" ".join(sorted(f"{b.node_id}={b.host}:{b.port}" for b in answer.brokers)))
"""


def inside(engine: str, project: ComposeProject, image: str, bootstrap: str) -> str:
    """The brokers a client in the project's network is told about through ``bootstrap``."""
    return run(engine, "run", "--rm", "--network", project.network, image, "python", "-c",
               METADATA_FROM_INSIDE, bootstrap).stdout.strip()


def produce(bootstrap: str, topic: str, values: list[bytes]) -> None:
    producer = Producer({"bootstrap.servers": bootstrap, "acks": "all",
                         "enable.idempotence": True})
    failed: list[object] = []
    for value in values:
        producer.produce(topic, value=value,
                         on_delivery=lambda err, _m: failed.append(err) if err else None)
    assert producer.flush(60) == 0
    assert failed == []


def consume(bootstrap: str, topic: str, count: int) -> list[bytes]:
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"g-{uuid.uuid4().hex}",
                         "auto.offset.reset": "earliest"})
    consumer.subscribe([topic])
    values: list[bytes] = []
    try:
        deadline = time.monotonic() + 60
        while len(values) < count and time.monotonic() < deadline:
            message = consumer.poll(1)
            if message is not None and message.error() is None:
                values.append(message.value())
    finally:
        consumer.close()
    return sorted(values)


@pytest.fixture
def single_node(engine: str,
                pybroker_image: str) -> Iterator[tuple[ComposeProject, str, str]]:
    port, metrics_port = free_port(), free_port()
    project = ComposeProject(engine, SINGLE_NODE, env={
        "PYBROKER_IMAGE": pybroker_image, "EXTERNAL_HOST": "127.0.0.1",
        "EXTERNAL_BIND": "127.0.0.1", "BROKER_PORT": str(port),
        "METRICS_PORT": str(metrics_port)})
    with project:
        yield project, f"127.0.0.1:{port}", f"http://127.0.0.1:{metrics_port}/metrics"


def test_single_node(engine: str, pybroker_image: str,
                     single_node: tuple[ComposeProject, str, str]) -> None:
    project, bootstrap, metrics_url = single_node
    wait_serving(bootstrap)
    produce(bootstrap, "single", [b"a", b"b", b"c"])
    assert consume(bootstrap, "single", 3) == [b"a", b"b", b"c"]
    page = scrape(metrics_url)  # the published metrics port
    assert page.value("kafka_server_brokertopicmetrics_messagesin_total",
                      {"topic": "single"}) == 3
    port = bootstrap.rsplit(":", 1)[1]
    assert inside(engine, project, pybroker_image, "broker:29092") == "0=broker:29092"
    assert inside(engine, project, pybroker_image, "broker:9092") == f"0=127.0.0.1:{port}"


@pytest.fixture
def cluster(engine: str, pybroker_image: str,
            zookeeper_image: str,
            ) -> Iterator[tuple[ComposeProject, dict[int, int], list[str]]]:
    ports = {broker: free_port() for broker in (1, 2, 3)}
    metrics_ports = {broker: free_port() for broker in (1, 2, 3)}
    project = ComposeProject(engine, COMPOSE, env={
        "PYBROKER_IMAGE": pybroker_image, "ZOOKEEPER_IMAGE": zookeeper_image,
        "EXTERNAL_HOST": "127.0.0.1", "EXTERNAL_BIND": "127.0.0.1",
        **{f"BROKER_{b}_PORT": str(p) for b, p in ports.items()},
        **{f"BROKER_{b}_METRICS_PORT": str(p) for b, p in metrics_ports.items()}})
    with project:
        yield project, ports, [f"http://127.0.0.1:{p}/metrics" for p in metrics_ports.values()]


def test_three_brokers_carry_on_without_one(engine: str, pybroker_image: str,
                                            cluster: tuple[ComposeProject, dict[int, int],
                                                           list[str]],
                                            ) -> None:
    project, ports, metrics_urls = cluster
    bootstrap = ",".join(f"127.0.0.1:{p}" for p in ports.values())
    started = time.monotonic()
    for port in ports.values():
        wait_serving(f"127.0.0.1:{port}", timeout=90)
    external = " ".join(f"{b}=127.0.0.1:{p}" for b, p in sorted(ports.items()))
    internal = "1=broker-1:29092 2=broker-2:29092 3=broker-3:29092"
    deadline = time.monotonic() + 60
    while inside(engine, project, pybroker_image, "broker-1:9092") != external:
        assert time.monotonic() < deadline, "the brokers never formed one cluster"
        time.sleep(0.5)
    print(f"\ncluster formed {time.monotonic() - started:.1f}s after up")
    assert inside(engine, project, pybroker_image, "broker-2:29092") == internal
    # one active controller among the three, read from their published metrics ports
    assert sum(scrape(url).value("kafka_controller_kafkacontroller_activecontrollercount")
               for url in metrics_urls) == 1

    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic("orders", num_partitions=3)])["orders"].result(30)
    before = [f"before-{i}".encode() for i in range(30)]
    produce(bootstrap, "orders", before)
    # (the first group also creates __consumer_offsets, which needs its three replicas)
    assert consume(bootstrap, "orders", 30) == sorted(before)

    leaders = {p.leader for p in admin.list_topics("orders", timeout=10)
               .topics["orders"].partitions.values()}
    stopped = sorted(leaders)[0]
    project.stop(f"broker-{stopped}")
    print(f"stopped broker-{stopped}")
    alive = ",".join(f"127.0.0.1:{p}" for b, p in ports.items() if b != stopped)
    after = [f"after-{i}".encode() for i in range(30)]
    produce(alive, "orders", after)
    assert consume(alive, "orders", 60) == sorted(before + after)
    survivors = " ".join(f"{b}=broker-{b}:29092" for b in (1, 2, 3) if b != stopped)
    assert inside(engine, project, pybroker_image,
                  f"broker-{next(b for b in (1, 2, 3) if b != stopped)}:29092") == survivors
