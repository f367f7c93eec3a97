"""The API version table of a ZooKeeper-mode pybroker broker beside Apache Kafka 3.9's (a
ZooKeeper-mode broker too), key by key and version by version: every key Kafka lists is
listed with the same range, but for :data:`LEFT_OUT`, and only :data:`ADDED` is listed beside
them; docs/compatibility.md names each with its reason."""

from __future__ import annotations

from pathlib import Path

from protocol.messages import API_NAMES, api_versions_request as av
from pybroker.testing.broker_process import REPO_ROOT
from pybroker.testing.cluster import ClusterProcesses
from pybroker.testing.reference_kafka import ReferenceKafka
from pybroker.testing.wire_client import WireClient

API_VERSIONS = 18

#: the keys Kafka 3.9 lists that a pybroker cluster broker does not (or lists narrower), each
#: with the section of docs/compatibility.md that says why
LEFT_OUT = {
    "Envelope": "request forwarding",
    "ConsumerGroupHeartbeat": "KIP-848 at Kafka 4.1's versions",
    "ConsumerGroupDescribe": "KIP-848 at Kafka 4.1's versions",
}

#: the keys a pybroker cluster broker lists that Kafka 3.9 does not in ZooKeeper mode
ADDED = {
    "ListConfigResources": "Kafka 4.1's kafka-configs for group configs",
}


def table(bootstrap: str) -> dict[str, tuple[int, int]]:
    with WireClient(bootstrap) as c:
        r = c.call(API_VERSIONS, 3, av.ApiVersionsRequest(client_software_name="table",
                                                          client_software_version="1"))
    assert r.error_code == 0, r
    return {API_NAMES[k.api_key]: (k.min_version, k.max_version) for k in r.api_keys}


def test_a_cluster_broker_lists_what_kafka_lists(tmp_path: Path, zk_connect: str,
                                                 reference_kafka: ReferenceKafka) -> None:
    with ClusterProcesses(tmp_path / "cluster", zk_connect, size=1) as cluster:
        ours = table(cluster.broker(1).bootstrap)
    kafkas = table(reference_kafka.bootstrap)
    differ = {name for name in kafkas if ours.get(name) != kafkas[name]}
    assert differ == set(LEFT_OUT), {n: (ours.get(n), kafkas[n]) for n in differ}
    assert set(ours) - set(kafkas) == set(ADDED), set(ours) - set(kafkas)
    doc = (REPO_ROOT / "docs" / "compatibility.md").read_text()
    section = doc.split("## The API version table of a cluster broker", 1)[1].split("\n## ", 1)[0]
    for name in [*LEFT_OUT, *ADDED]:
        assert f"`{name}`" in section, f"docs/compatibility.md does not say why {name} differs"
