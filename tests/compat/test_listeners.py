"""Several listeners: a client is told the endpoints of the listener it came in on, as Kafka
answers each listener with its own (the internal/external pair of a compose file, where clients
inside the network and on the host reach the same broker under different names)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from protocol.messages import (
    ApiKey,
    describe_cluster_request as dc,
    find_coordinator_request as fc,
    metadata_request as md,
)
from pybroker.testing.broker_process import BrokerProcess, free_port
from pybroker.testing.wire_client import WireClient

pytestmark = pytest.mark.compat


@pytest.fixture
def two_listeners(tmp_path: Path) -> Iterator[tuple[int, int]]:
    """A broker listening as INTERNAL (advertised under a name only an internal network would
    resolve) and EXTERNAL on two ports of 127.0.0.1; the two ports."""
    internal, external = free_port(), free_port()
    broker = BrokerProcess(tmp_path / "kafka-logs", port=internal, overrides={
        "listeners": f"INTERNAL://127.0.0.1:{internal},EXTERNAL://127.0.0.1:{external}",
        "advertised.listeners": f"INTERNAL://broker-1.internal:{internal},"
                                f"EXTERNAL://127.0.0.1:{external}",
        "listener.security.protocol.map": "INTERNAL:PLAINTEXT,EXTERNAL:PLAINTEXT",
        "inter.broker.listener.name": "INTERNAL",
    })
    with broker:
        yield internal, external


def test_each_listener_advertises_its_own_endpoint(two_listeners: tuple[int, int]) -> None:
    internal, external = two_listeners
    seen = {}
    for name, port in (("INTERNAL", internal), ("EXTERNAL", external)):
        with WireClient(f"127.0.0.1:{port}") as client:
            metadata = client.call(ApiKey.METADATA, 12, md.MetadataRequest(
                topics=None, allow_auto_topic_creation=False))
            cluster = client.call(ApiKey.DESCRIBE_CLUSTER, 0, dc.DescribeClusterRequest())
            coordinator = None
            for _ in range(50):  # __consumer_offsets is created by the first lookup
                coordinator = client.call(ApiKey.FIND_COORDINATOR, 3,
                                          fc.FindCoordinatorRequest(key="g"))
                if coordinator.error_code == 0:
                    break
        seen[name] = (
            [(b.host, b.port) for b in metadata.brokers],
            [(b.host, b.port) for b in cluster.brokers],
            (coordinator.host, coordinator.port),
        )
    assert seen["INTERNAL"] == ([("broker-1.internal", internal)],
                                [("broker-1.internal", internal)],
                                ("broker-1.internal", internal))
    assert seen["EXTERNAL"] == ([("127.0.0.1", external)], [("127.0.0.1", external)],
                                ("127.0.0.1", external))
