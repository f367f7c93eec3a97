"""Three Apache Kafka 3.9 brokers on the session's ZooKeeper (under the test's chroot): they
form one cluster, a SIGKILL to the controller's pid takes its registration away after the
session timeout and another broker becomes the controller; every JVM is stopped by its pid."""

from __future__ import annotations

from pathlib import Path

from protocol.messages.metadata_request import MetadataRequest
from pybroker.testing.cluster import wait_for
from pybroker.testing.reference_cluster import ReferenceKafkaCluster
from pybroker.testing.wire_client import WireClient


def cluster_view(bootstrap: str) -> tuple[int, list[int]]:
    with WireClient(bootstrap, timeout=10) as client:
        resp = client.call(3, 12, MetadataRequest(topics=[]))
    return resp.controller_id, sorted(b.node_id for b in resp.brokers)


def test_three_brokers_form_a_cluster_and_survive_the_controller(
        kafka_tools_lib: Path, zk_connect: str, tmp_path: Path) -> None:
    cluster = ReferenceKafkaCluster(tmp_path, zk_connect, size=3, lib=kafka_tools_lib,
                                    overrides={"zookeeper.session.timeout.ms": 6000})
    with cluster:
        pids = {i: b.pid for i, b in cluster.brokers.items()}
        assert len(set(pids.values())) == 3 and None not in pids.values()

        def formed() -> int | None:
            views = [cluster_view(b.bootstrap) for b in cluster.brokers.values()]
            controllers = {c for c, _ in views}
            if len(controllers) == 1 and all(members == [1, 2, 3] for _, members in views):
                return controllers.pop()
            return None

        controller = wait_for(formed, 60, "three brokers naming one controller")
        cluster.kill(controller)
        assert not cluster.broker(controller).is_running()
        assert cluster.live_brokers() == [i for i in (1, 2, 3) if i != controller]
        survivor = cluster.broker(cluster.live_brokers()[0])

        def taken_over() -> bool:
            new, members = cluster_view(survivor.bootstrap)
            return new not in (controller, -1) and controller not in members

        wait_for(taken_over, 60, f"a controller other than {controller}")
    assert cluster.live_brokers() == []
    assert all(b.process.proc is None for b in cluster.brokers.values())
