"""The ISR as leaders keep it, on three pybroker processes and a real ZooKeeper, with real
confluent-kafka clients and Kafka's own reassignment tool:

* a follower frozen with SIGSTOP leaves the ISR within ``replica.lag.time.max.ms`` (3 s here)
  by its leader's AlterPartition, with acks=all producers carrying on; thawed, it catches up
  and joins again, as both Metadata and the partition's ``state`` znode show, and as the
  leader's metrics count it (UnderReplicatedPartitions, IsrShrinks, IsrExpands);
* with ``min.insync.replicas=2`` and both followers frozen, acks=all is refused with
  NOT_ENOUGH_REPLICAS and nothing is written, while acks=1 is still taken (and stays invisible
  until the ISR has grown back);
* a reassignment adding a replica completes once that replica has copied the log and joined
  the ISR, with its copy byte-identical to the leader's.

The ZooKeeper session timeout is 30 s here, so that what removes a frozen broker from an ISR is
its leader (the partition epoch moves, the leader epoch does not), never the controller
noticing a lost session. Every broker is stopped by its pid when the test ends.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from confluent_kafka import OFFSET_BEGINNING, Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic
from kazoo.client import KazooClient

from protocol.errors import ErrorCode
from protocol.messages import ApiKey, produce_request as pr
from protocol.records.record import build_batch
from pybroker.testing.cluster import ClusterProcesses, running_cluster, wait_for
from pybroker.testing.metrics import scrape
from pybroker.testing.wire_client import WireClient
from tests.cluster.test_replication import (
    Load,
    consume_all,
    controller_of,
    identical_replicas,
    latest_offset,
    layout,
    replica_bytes,
)

LAG_MS = 3000
SESSION_TIMEOUT_MS = 30000
OVERRIDES = {
    "replica.lag.time.max.ms": LAG_MS,
    "zookeeper.session.timeout.ms": SESSION_TIMEOUT_MS,
    "offsets.topic.num.partitions": 3,
}


@pytest.fixture
def cluster(tmp_path: Path, zk_connect: str) -> Iterator[ClusterProcesses]:
    with running_cluster(tmp_path / "cluster", zk_connect, overrides=OVERRIDES,
                         metrics=True) as c:
        yield c



def state(zk: KazooClient, topic: str, partition: int = 0) -> dict:
    data, stat = zk.get(f"/brokers/topics/{topic}/partitions/{partition}/state")
    return {**json.loads(data), "partition_epoch": stat.version}


def create(cluster: ClusterProcesses, topic: str, assignment: list[int],
           **config: str) -> None:
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap})
    admin.create_topics([NewTopic(topic, num_partitions=1, replica_assignment=[assignment],
                                 config=config)],
                        operation_timeout=30)[topic].result()
    wait_for(lambda: all(layout(cluster, b, topic).get(0, (-1,))[0] == assignment[0]
                         for b in cluster.brokers), 30, f"{topic} led by {assignment[0]}")


def metadata_isr(cluster: ClusterProcesses, broker: int, topic: str) -> list[int]:
    return sorted(layout(cluster, broker, topic)[0][2])


def roles(cluster: ClusterProcesses) -> tuple[int, int, int]:
    """(leader, follower that stays, follower to freeze): the controller leads, so that the
    frozen brokers are never the controller."""
    controller = controller_of(cluster)
    others = [b for b in sorted(cluster.brokers) if b != controller]
    return controller, others[0], others[1]


def produce_raw(cluster: ClusterProcesses, broker: int, topic: str, acks: int,
                value: bytes) -> tuple[int, int]:
    """One record by a Produce v9 request: (error code, base offset)."""
    batch = bytes(build_batch([(None, value)]))
    with WireClient(cluster.broker(broker).bootstrap) as client:
        answer = client.call(ApiKey.PRODUCE, 9, pr.ProduceRequest(
            acks=acks, timeout_ms=10_000, topic_data=[pr.TopicProduceData(
                name=topic, partition_data=[pr.PartitionProduceData(index=0,
                                                                    records=batch)])]))
    [part] = answer.responses[0].partition_responses
    return part.error_code, part.base_offset


def replica_metric(cluster: ClusterProcesses, broker: int, name: str) -> float:
    """A ``kafka.server:type=ReplicaManager`` metric as the broker's endpoint serves it."""
    return scrape(cluster.broker(broker).metrics_url).value(
        f"kafka_server_replicamanager_{name}")


def test_a_frozen_follower_leaves_the_isr_and_joins_it_again(cluster, zk) -> None:
    leader, stays, frozen = roles(cluster)
    topic = "isr"
    create(cluster, topic, [leader, stays, frozen], **{"min.insync.replicas": "2"})
    before = state(zk, topic)
    assert sorted(before["isr"]) == [1, 2, 3]
    # what Kafka's operators alert on, before and after: the leader's replica metrics
    wait_for(lambda: replica_metric(cluster, leader, "underreplicatedpartitions") == 0, 10,
             "no under-replicated partition")
    shrinks = replica_metric(cluster, leader, "isrshrinks_total")
    expands = replica_metric(cluster, leader, "isrexpands_total")
    with Load(cluster.bootstrap, topic, 1) as load:
        wait_for(lambda: len(load.acked) >= 300, 30, "records acknowledged by all three")
        cluster.broker(frozen).freeze()
        froze = time.monotonic()
        try:
            shrunk = wait_for(lambda: (lambda s: s if frozen not in s["isr"] else None)(
                state(zk, topic)), 3 * LAG_MS / 1000 + 10, f"broker {frozen} out of the ISR")
            took = time.monotonic() - froze
            print(f"\nfollower {frozen} frozen: out of the ISR after {took:.1f}s")
            assert took <= 1.5 * LAG_MS / 1000 + 5
            # the leader asked (AlterPartition): the partition epoch moved, the leader epoch
            # did not, and the session of the frozen broker is still alive
            assert sorted(shrunk["isr"]) == sorted([leader, stays])
            assert shrunk["leader"] == leader
            assert shrunk["leader_epoch"] == before["leader_epoch"]
            assert shrunk["partition_epoch"] > before["partition_epoch"]
            assert zk.exists(f"/brokers/ids/{frozen}") is not None
            for b in (leader, stays):
                wait_for(lambda b=b: metadata_isr(cluster, b, topic) == sorted([leader, stays]),
                         10, f"broker {b}'s Metadata showing the smaller ISR")
            # one partition under-replicated, one shrink, counted by the leader only
            assert replica_metric(cluster, leader, "underreplicatedpartitions") == 1
            assert replica_metric(cluster, leader, "isrshrinks_total") == shrinks + 1
            assert replica_metric(cluster, stays, "underreplicatedpartitions") == 0
            page = scrape(cluster.broker(leader).metrics_url)
            assert page.value("kafka_cluster_partition_underreplicated",
                              {"topic": topic, "partition": "0"}) == 1
            assert page.value("kafka_cluster_partition_insyncreplicascount",
                              {"topic": topic, "partition": "0"}) == 2
            # acks=all carries on with the two
            acked = len(load.acked)
            wait_for(lambda: len(load.acked) >= acked + 500, 30,
                     "records acknowledged without the frozen follower")
        finally:
            cluster.broker(frozen).thaw()
        thawed = time.monotonic()
        wait_for(lambda: frozen in state(zk, topic)["isr"], 30,
                 f"broker {frozen} back in the ISR")
        print(f"follower {frozen} thawed: back in the ISR after {time.monotonic() - thawed:.1f}s")
        assert state(zk, topic)["leader_epoch"] == before["leader_epoch"]
        for b in cluster.brokers:
            wait_for(lambda b=b: metadata_isr(cluster, b, topic) == [1, 2, 3], 10,
                     f"broker {b}'s Metadata showing all three again")
        assert replica_metric(cluster, leader, "isrexpands_total") == expands + 1
        assert replica_metric(cluster, leader, "underreplicatedpartitions") == 0
        acked = len(load.acked)
        wait_for(lambda: len(load.acked) >= acked + 300, 30, "records acknowledged by all three")
    assert load.errors == []
    wait_for(lambda: identical_replicas(cluster, topic, 1), 30, "byte-identical replicas")
    values = consume_all(cluster.bootstrap, topic, len(load.acked))
    assert sorted(values) == sorted(load.acked)
    log = cluster.broker(leader).log_path.read_text()
    assert f"Shrinking the ISR of {topic}-0" in log and f"Expanding the ISR of {topic}-0" in log


def test_acks_all_is_refused_below_min_insync_replicas_and_acks_1_is_not(cluster, zk) -> None:
    leader, first, second = roles(cluster)
    topic = "min-isr"
    create(cluster, topic, [leader, first, second], **{"min.insync.replicas": "2"})
    assert produce_raw(cluster, leader, topic, -1, b"before") == (ErrorCode.NONE, 0)
    wait_for(lambda: latest_offset(cluster, leader, topic, 0) == 1, 10, "the first record")
    for b in (first, second):
        cluster.broker(b).freeze()
    try:
        # followers at the leader's log end are in sync however long they are silent (as on
        # Kafka): a record they do not fetch makes them lag
        assert produce_raw(cluster, leader, topic, 1, b"taken") == (ErrorCode.NONE, 1)
        wait_for(lambda: state(zk, topic)["isr"] == [leader], 3 * LAG_MS / 1000 + 10,
                 "the ISR down to the leader")
        wait_for(lambda: metadata_isr(cluster, leader, topic) == [leader], 10,
                 "Metadata showing the leader alone")
        assert replica_metric(cluster, leader, "underminisrpartitioncount") == 1
        assert replica_metric(cluster, leader, "underreplicatedpartitions") == 1
        # acks=all: refused before the append, nothing written
        assert produce_raw(cluster, leader, topic, -1, b"refused")[0] == \
            ErrorCode.NOT_ENOUGH_REPLICAS
        # acks=1: taken, from confluent-kafka too
        producer = Producer({"bootstrap.servers": cluster.broker(leader).bootstrap, "acks": 1,
                             "enable.idempotence": False, "message.timeout.ms": 20000})
        errors: list[object] = []
        producer.produce(topic, b"taken too", partition=0,
                         on_delivery=lambda err, _msg: errors.append(err))
        assert producer.flush(20) == 0 and errors == [None]
        # ...but invisible: the high watermark stands still under min.insync.replicas
        assert latest_offset(cluster, leader, topic, 0) == 1
    finally:
        for b in (first, second):
            cluster.broker(b).thaw()
    wait_for(lambda: sorted(state(zk, topic)["isr"]) == [1, 2, 3], 30, "the ISR whole again")
    wait_for(lambda: latest_offset(cluster, leader, topic, 0) == 3, 10,
             "the acks=1 records visible")
    assert produce_raw(cluster, leader, topic, -1, b"after") == (ErrorCode.NONE, 3)
    values = consume_all(cluster.bootstrap, topic, 4)
    assert values == [b"before", b"taken", b"taken too", b"after"]  # nothing refused is there
    wait_for(lambda: identical_replicas(cluster, topic, 1), 30, "byte-identical replicas")


def test_a_reassignment_adding_a_replica_completes_once_it_has_copied_the_log(
        cluster, zk, kafka_tools_lib, tmp_path: Path) -> None:
    from tests.compat.cli.conftest import KafkaCli

    topic = "moving"
    create(cluster, topic, [1, 2])
    producer = Producer({"bootstrap.servers": cluster.bootstrap, "acks": "all",
                         "linger.ms": 5})
    for i in range(5000):
        producer.produce(topic, b"m%05d" % i, partition=0)
        producer.poll(0)
    assert producer.flush(60) == 0
    assert not (cluster.broker(3).data_dir / f"{topic}-0").exists()
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"version": 1, "partitions": [
        {"topic": topic, "partition": 0, "replicas": [1, 3]}]}))
    cli = KafkaCli(cluster.broker(1).bootstrap, kafka_tools_lib)
    started = time.monotonic()
    cli.tool("kafka-reassign-partitions", "--execute", "--reassignment-json-file", str(plan))

    def recorded() -> dict:
        return json.loads(zk.get(f"/brokers/topics/{topic}")[0])

    wait_for(lambda: recorded()["partitions"]["0"] == [1, 3]
             and recorded()["adding_replicas"] == {} and recorded()["removing_replicas"] == {},
             60, "the reassignment completed")
    print(f"\nreassignment adding broker 3 completed in {time.monotonic() - started:.1f}s")
    assert sorted(state(zk, topic)["isr"]) == [1, 3]
    wait_for(lambda: not (cluster.broker(2).data_dir / f"{topic}-0").exists(), 20,
             "broker 2's replica deleted")
    assert replica_bytes(cluster, 3, topic, 0) == replica_bytes(cluster, 1, topic, 0) != b""
    verified = cli.tool("kafka-reassign-partitions", "--verify", "--reassignment-json-file",
                        str(plan)).stdout
    assert f"Reassignment of partition {topic}-0 is completed" in verified, verified
    for b in cluster.brokers:
        wait_for(lambda b=b: layout(cluster, b, topic)[0][1:] == ((1, 3), (1, 3)), 10,
                 f"broker {b}'s Metadata showing replicas [1, 3]")
    # broker 3 serves what it copied once it leads
    cluster.broker(1).stop()
    wait_for(lambda: layout(cluster, 3, topic).get(0, (-1,))[0] == 3, 30, "broker 3 leading")
    values = read_partition(cluster.broker(3).bootstrap, topic, 5000)
    assert values == [b"m%05d" % i for i in range(5000)]


def read_partition(bootstrap: str, topic: str, expected: int, timeout: float = 60,
                   ) -> list[bytes]:
    """Partition 0 from the start, by assignment (no group, so no coordinator needed)."""
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "unused",
                         "enable.auto.commit": False})
    consumer.assign([TopicPartition(topic, 0, OFFSET_BEGINNING)])
    seen: list[bytes] = []
    deadline = time.monotonic() + timeout
    try:
        while len(seen) < expected and time.monotonic() < deadline:
            msg = consumer.poll(0.2)
            if msg is not None and msg.error() is None:
                seen.append(msg.value())
    finally:
        consumer.close()
    return seen
