"""The chaos tests' network cut, checked directly: three brokers on 127.0.0.2-4, each in a cgroup
of its own, on the session's ZooKeeper.

* Cut off, a broker can reach neither of the others, nor they it (a process in its cgroup, and
  in theirs, tries to connect), while ZooKeeper and the clients still reach it; the brokers' own
  traffic hits the rules (their packet counters move); healing restores every path, and
  replication with it (an acks=all produce completes and the replicas end byte-identical).
* ``isolate`` (and ``split``) also cuts the broker's packets to ZooKeeper; ``zk-cut`` cuts
  those alone.
* The iptables chain and the cgroups are gone once the test ends, also when it fails.

Skipped, loudly, where iptables, root or cgroup v2 are missing.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic

from pybroker.testing.cluster import ClusterProcesses, wait_for
from pybroker.testing.nemesis import (
    Endpoint,
    NetworkCut,
    NetworkSetup,
    iptables,
    network_faults_missing,
)
from pybroker.testing.zookeeper import ZooKeeperServer
from tests.cluster.test_replication import agreed_layout, identical_replicas, one_controller

HOSTS = {1: "127.0.0.2", 2: "127.0.0.3", 3: "127.0.0.4"}


@pytest.fixture
def network(tmp_path: Path, zk_connect: str,
            zookeeper_server: ZooKeeperServer) -> Iterator[NetworkCut]:
    missing = network_faults_missing()
    if missing:
        pytest.skip(f"SKIPPED: network cuts need {'; '.join(missing)}")
    setup = NetworkSetup.make(sorted(HOSTS))
    cluster = ClusterProcesses(tmp_path / "cluster", zk_connect, hosts=HOSTS,
                               cgroups=setup.cgroups.dirs)
    chain, base = setup.firewall.chain, setup.cgroups.base
    try:
        cluster.start()
        wait_for(lambda: one_controller(cluster), 30, "every broker to know the controller")
        yield NetworkCut(cluster, setup.cgroups, setup.firewall,
                         Endpoint("127.0.0.1", zookeeper_server.port))
    finally:
        cluster.stop()
        setup.close()
    listing = subprocess.run([iptables() or "iptables", "-S"], capture_output=True,
                             text=True, check=True).stdout
    assert chain not in listing, listing
    assert not base.exists()


def test_a_cut_broker_reaches_no_other_broker_until_healed(network: NetworkCut) -> None:
    cluster = network.cluster
    for broker_id, broker in cluster.brokers.items():
        # each broker listens on its own address and runs in its own cgroup
        assert broker.bootstrap.startswith(HOSTS[broker_id] + ":")
        assert network.cgroups.pids(broker_id) == [broker.pid]
    topic = "cut"
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap})
    admin.create_topics([NewTopic(topic, 3, 3)], operation_timeout=30)[topic].result()
    wait_for(lambda: agreed_layout(cluster, topic, 3), 30, f"{topic} led on every broker")
    zookeeper = network.zookeeper
    ends = {b: network.endpoint(b) for b in cluster.brokers}
    for a in cluster.brokers:
        for b in cluster.brokers:
            if a != b:
                assert network.probe(a, ends[b]), f"broker {a} cannot reach {b} before the cut"

    network.cut(2)
    try:
        assert not network.probe(2, ends[1]) and not network.probe(2, ends[3])
        assert not network.probe(1, ends[2]) and not network.probe(3, ends[2])
        assert network.probe(1, ends[3]) and network.probe(3, ends[1])
        assert network.probe(2, zookeeper), "the cut broker lost ZooKeeper too"
        # the clients (this process, in no broker's cgroup) still reach it
        assert network.probe_from_here(ends[2])
        # the brokers' own connections (fetchers, the controller's channel) hit the rules
        wait_for(lambda: network.cgroup_rule_drops() > 0, 20, "the brokers' packets dropped")
        print(f"\ncut: {network.dropped_packets()} packets dropped; per rule:\n" +
              "\n".join(f"  {c.packets:6d}  {c.rule}" for c in network.firewall.counts()))
    finally:
        network.heal()
    assert network.firewall.counts() == []
    for a in cluster.brokers:
        for b in cluster.brokers:
            if a != b:
                assert network.probe(a, ends[b]), f"broker {a} cannot reach {b} after healing"
    # replication works again: an acks=all write completes and every replica holds it
    producer = Producer({"bootstrap.servers": cluster.bootstrap, "acks": "all",
                         "enable.idempotence": True, "message.timeout.ms": 90000})
    for i in range(300):
        producer.produce(topic, b"after-heal-%d" % i, partition=i % 3)
    assert producer.flush(120) == 0
    wait_for(lambda: identical_replicas(cluster, topic, 3), 60, "byte-identical replicas")


def test_isolate_also_cuts_zookeeper(network: NetworkCut) -> None:
    zookeeper = network.zookeeper
    network.cut(3, from_zookeeper=True)
    try:
        assert not network.probe(3, zookeeper)
        assert not network.probe(3, network.endpoint(1))
        assert network.probe(1, zookeeper)
    finally:
        network.heal()
    assert network.probe(3, zookeeper)
    assert os.path.isdir(network.cgroups.base)


def test_zk_cut_cuts_only_zookeeper(network: NetworkCut) -> None:
    """The controller's cut of ``zk-cut``: its packets to ZooKeeper are dropped, its paths to
    the other brokers (both ways) and the clients' to it are not."""
    zookeeper = network.zookeeper
    network.cut(1, from_zookeeper=True, from_brokers=False)
    try:
        assert not network.probe(1, zookeeper)
        assert network.probe(1, network.endpoint(2)) and network.probe(3, network.endpoint(1))
        assert network.probe(2, zookeeper)
        assert network.probe_from_here(network.endpoint(1))
    finally:
        network.heal()
    assert network.probe(1, zookeeper)
