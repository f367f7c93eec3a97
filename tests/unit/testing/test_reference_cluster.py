"""How ``ReferenceKafkaCluster`` configures its brokers and the command that starts each;
no JVM is started."""

from __future__ import annotations

from pathlib import Path

from pybroker.testing.reference_cluster import ReferenceKafkaCluster
from pybroker.testing.reference_kafka import KAFKA_HEAP, KAFKA_JVM


def test_brokers_one_to_n_with_own_ports_dirs_and_the_same_zookeeper(tmp_path: Path) -> None:
    cluster = ReferenceKafkaCluster(tmp_path, "127.0.0.1:2181/chroot", size=3)
    assert list(cluster.brokers) == [1, 2, 3]
    ports = {b.port for b in cluster.brokers.values()}
    assert len(ports) == 3
    for broker_id, broker in cluster.brokers.items():
        props = broker.properties
        assert props["broker.id"] == str(broker_id)
        assert props["listeners"] == props["advertised.listeners"] == (
            f"PLAINTEXT://127.0.0.1:{broker.port}")
        assert props["log.dirs"] == str(tmp_path / f"broker-{broker_id}" / "kafka-logs")
        assert props["zookeeper.connect"] == "127.0.0.1:2181/chroot"
        assert props["offsets.topic.replication.factor"] == "3"
        assert broker.process.log_path == tmp_path / f"broker-{broker_id}" / "kafka.log"
        assert broker.pid is None and not broker.is_running()
    assert cluster.bootstrap == ",".join(f"127.0.0.1:{b.port}" for b in cluster.brokers.values())


def test_internal_topics_fit_a_small_cluster_and_overrides_win(tmp_path: Path) -> None:
    cluster = ReferenceKafkaCluster(tmp_path, "127.0.0.1:2181", size=1,
                                    overrides={"zookeeper.session.timeout.ms": 6000,
                                               "num.partitions": 4})
    props = cluster.broker(1).properties
    assert props["offsets.topic.replication.factor"] == "1"
    assert props["transaction.state.log.replication.factor"] == "1"
    assert props["transaction.state.log.min.isr"] == "1"
    assert props["zookeeper.session.timeout.ms"] == "6000"
    assert props["num.partitions"] == "4"


def test_each_broker_runs_kafka_with_the_single_reference_jvm_options(tmp_path: Path) -> None:
    broker = ReferenceKafkaCluster(tmp_path, "127.0.0.1:2181").broker(2)
    cmd = broker.command()
    assert cmd[1:1 + len(KAFKA_HEAP) + len(KAFKA_JVM)] == [*KAFKA_HEAP, *KAFKA_JVM]
    assert cmd[-2:] == ["kafka.Kafka", str(tmp_path / "broker-2" / "server.properties")]
    assert f"-Dlog4j.configuration={(tmp_path / 'broker-2' / 'log4j.properties').as_uri()}" in cmd


def test_stop_and_kill_without_a_process_do_nothing(tmp_path: Path) -> None:
    cluster = ReferenceKafkaCluster(tmp_path, "127.0.0.1:2181")
    cluster.kill(1)
    cluster.stop()
    assert cluster.live_brokers() == []
