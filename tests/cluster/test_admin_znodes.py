"""The znodes older tools and older brokers write for the controller to act on:
``/admin/reassign_partitions`` (reassignment before KIP-455), ``/admin/preferred_replica_election``
and ``/isr_change_notification/isr_change_<seq>`` (leaders of an inter-broker protocol before 2.7).
The controller acts on each and deletes it, as Apache Kafka 3.9's controller does — which the last
test checks on the reference Kafka too."""

from __future__ import annotations

import json
import uuid

from confluent_kafka.admin import AdminClient, NewTopic
from kazoo.client import KazooClient

from pybroker.testing.cluster import wait_for
from tests.cluster.test_cluster_mode import all_agree, layout

REASSIGN = "/admin/reassign_partitions"
PREFERRED = "/admin/preferred_replica_election"
ISR_CHANGES = "/isr_change_notification"




def partitions_json(entries: list[dict]) -> bytes:
    return json.dumps({"version": 1, "partitions": entries}).encode()


def create_laid_out(bootstrap: str, topic: str, layout_: list[list[int]]) -> None:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(topic, num_partitions=len(layout_),
                                  replica_assignment=layout_)],
                        operation_timeout=30)[topic].result()


def assignment(zk: KazooClient, topic: str) -> dict[str, list[int]]:
    return json.loads(zk.get(f"/brokers/topics/{topic}")[0])["partitions"]


def test_reassign_partitions_znode_is_carried_out_and_deleted(cluster, zk) -> None:
    create_laid_out(cluster.bootstrap, "z", [[1, 2], [3, 2]])
    wait_for(lambda: all_agree(cluster, "z", 2), 20, "z created")
    # a reorder and a removal (both complete at once: the targets are in the ISR), and a
    # partition that does not exist (refused, and dropped from the znode)
    zk.create(REASSIGN, partitions_json([
        {"topic": "z", "partition": 0, "replicas": [2, 1]},
        {"topic": "z", "partition": 1, "replicas": [3]},
        {"topic": "nope", "partition": 0, "replicas": [1]},
    ]))
    wait_for(lambda: zk.exists(REASSIGN) is None, 20, f"{REASSIGN} deleted")
    assert assignment(zk, "z") == {"0": [2, 1], "1": [3]}
    wait_for(lambda: {p: r for p, (_, r, _) in layout(cluster.broker(2).bootstrap, "z").items()}
             == {0: (2, 1), 1: (3,)}, 10, "Metadata showing the new replicas")
    wait_for(lambda: not (cluster.broker(2).data_dir / "z-1").exists(), 10,
             "broker 2's replica of z-1 deleted")
    # the watch is set again: a second request is carried out too
    zk.create(REASSIGN, partitions_json([{"topic": "z", "partition": 0, "replicas": [2]}]))
    wait_for(lambda: zk.exists(REASSIGN) is None and assignment(zk, "z")["0"] == [2], 20,
             "the second request carried out")


def test_preferred_replica_election_znode_moves_leadership_home(cluster, zk) -> None:
    create_laid_out(cluster.bootstrap, "p", [[1, 2]])
    wait_for(lambda: all_agree(cluster, "p", 1), 20, "p created")
    assert layout(cluster.bootstrap.split(",")[0], "p")[0][0] == 1
    # reorder the replicas: broker 2 becomes the preferred leader, broker 1 keeps leading
    zk.create(REASSIGN, partitions_json([{"topic": "p", "partition": 0, "replicas": [2, 1]}]))
    wait_for(lambda: zk.exists(REASSIGN) is None, 20, "reordered")
    assert layout(cluster.broker(3).bootstrap, "p")[0][0] == 1
    zk.create(PREFERRED, partitions_json([{"topic": "p", "partition": 0},
                                          {"topic": "gone", "partition": 3}]))
    wait_for(lambda: layout(cluster.broker(3).bootstrap, "p")[0][0] == 2, 20,
             "broker 2 leading p-0")
    wait_for(lambda: zk.exists(PREFERRED) is None, 10, f"{PREFERRED} deleted")
    state = json.loads(zk.get("/brokers/topics/p/partitions/0/state")[0])
    assert state["leader"] == 2


def test_isr_change_notification_reaches_every_broker(cluster, zk) -> None:
    create_laid_out(cluster.bootstrap, "n", [[1, 2, 3]])
    wait_for(lambda: all_agree(cluster, "n", 1), 20, "n created")
    # what a leader of an older inter-broker protocol does: write the state itself (a
    # compare-and-set on the znode version), then leave a notification
    path = "/brokers/topics/n/partitions/0/state"
    data, stat = zk.get(path)
    state = json.loads(data)
    state["isr"] = [1, 2]
    zk.set(path, json.dumps(state).encode(), version=stat.version)
    zk.create(f"{ISR_CHANGES}/isr_change_", partitions_json([{"topic": "n", "partition": 0}]),
              sequence=True)
    for broker in (1, 2, 3):
        wait_for(lambda b=broker: layout(cluster.broker(b).bootstrap, "n")[0][2] == (1, 2), 10,
                 f"broker {broker} showing ISR [1, 2]")
    wait_for(lambda: zk.get_children(ISR_CHANGES) == [], 10, "the notification deleted")


def test_kafka_consumes_these_znodes_the_same_way(reference_kafka) -> None:
    """On the reference Kafka 3.9 (one broker, id 0): a reassignment to the current replicas
    completes and, with a partition that does not exist, the znode is deleted; a preferred
    election znode and an ISR change notification are deleted once acted on."""
    topic = f"legacy-{uuid.uuid4().hex[:6]}"
    create_laid_out(reference_kafka.bootstrap, topic, [[0]])
    zk = KazooClient(hosts=reference_kafka.zookeeper_connect)
    zk.start(timeout=15)
    try:
        wait_for(lambda: zk.exists(f"/brokers/topics/{topic}/partitions/0/state"), 20,
                 "the reference topic's state")
        zk.create(REASSIGN, partitions_json([
            {"topic": topic, "partition": 0, "replicas": [0]},
            {"topic": "nope", "partition": 0, "replicas": [0]},
        ]))
        wait_for(lambda: zk.exists(REASSIGN) is None, 30, f"Kafka deleting {REASSIGN}")
        zk.create(PREFERRED, partitions_json([{"topic": topic, "partition": 0}]))
        wait_for(lambda: zk.exists(PREFERRED) is None, 30, f"Kafka deleting {PREFERRED}")
        zk.create(f"{ISR_CHANGES}/isr_change_", partitions_json([{"topic": topic,
                                                                   "partition": 0}]),
                  sequence=True)
        wait_for(lambda: zk.get_children(ISR_CHANGES) == [], 30,
                 "Kafka deleting the notification")
    finally:
        zk.stop()
        zk.close()
