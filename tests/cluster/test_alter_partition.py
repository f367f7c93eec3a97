"""AlterPartition (KIP-497) as the controller of a three-broker cluster answers it: the ISR a
leader asks for is written to the partition's ``state`` znode (compare-and-set on the partition
epoch), every broker's Metadata shows it, and stale or ineligible requests are refused with
Kafka's errors. The requests are the ones a partition leader sends, over a real socket."""

from __future__ import annotations

import json
import uuid

from confluent_kafka.admin import AdminClient, NewTopic
from kazoo.client import KazooClient

from protocol.errors import ErrorCode
from protocol.messages import ApiKey, alter_partition_request as ap
from pybroker.testing.cluster import ClusterProcesses, wait_for
from pybroker.testing.wire_client import WireClient
from tests.cluster.test_cluster_mode import all_agree, controller_of, layout


def state(zk: KazooClient, topic: str, partition: int) -> tuple[dict, int]:
    data, stat = zk.get(f"/brokers/topics/{topic}/partitions/{partition}/state")
    return json.loads(data), stat.version


def topic_id(zk: KazooClient, topic: str) -> uuid.UUID:
    import base64

    text = json.loads(zk.get(f"/brokers/topics/{topic}")[0])["topic_id"]
    return uuid.UUID(bytes=base64.urlsafe_b64decode(text + "=="))


def broker_epoch(zk: KazooClient, broker_id: int) -> int:
    return zk.get(f"/brokers/ids/{broker_id}")[1].czxid


def alter(cluster: ClusterProcesses, to: int, leader: int, epoch: int, tid: uuid.UUID,
          partition: int, leader_epoch: int, isr: list[int], partition_epoch: int,
          isr_epochs: dict[int, int] | None = None):
    request = ap.AlterPartitionRequest(broker_id=leader, broker_epoch=epoch, topics=[
        ap.TopicData(topic_id=tid, partitions=[ap.PartitionData(
            partition_index=partition, leader_epoch=leader_epoch,
            new_isr_with_epochs=[ap.BrokerState(broker_id=b, broker_epoch=(isr_epochs or {})
                                                .get(b, -1)) for b in isr],
            partition_epoch=partition_epoch)])])
    with WireClient(cluster.broker(to).bootstrap) as client:
        return client.call(ApiKey.ALTER_PARTITION, 3, request)


def test_the_controller_records_an_isr_its_leader_asks_for(cluster, zk) -> None:
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap})
    admin.create_topics([NewTopic("t", 1, 3)], operation_timeout=30)["t"].result()
    view = wait_for(lambda: all_agree(cluster, "t", 1), 20, "t created")
    leader, replicas, _ = view[0]
    controller = controller_of(cluster)
    current, version = state(zk, "t", 0)
    tid = topic_id(zk, "t")
    epoch = broker_epoch(zk, leader)
    shrunk = [leader, next(r for r in replicas if r != leader)]

    # not the controller: refused as a whole
    other = next(b for b in (1, 2, 3) if b != controller)
    assert alter(cluster, other, leader, epoch, tid, 0, current["leader_epoch"], shrunk,
                 version).error_code == ErrorCode.NOT_CONTROLLER
    # a stale broker epoch: refused as a whole
    assert alter(cluster, controller, leader, epoch - 1, tid, 0, current["leader_epoch"],
                 shrunk, version).error_code == ErrorCode.STALE_BROKER_EPOCH

    response = alter(cluster, controller, leader, epoch, tid, 0, current["leader_epoch"],
                     shrunk, version)
    assert response.error_code == ErrorCode.NONE
    [topic] = response.topics
    assert topic.topic_id == tid
    [p] = topic.partitions
    assert (p.error_code, p.leader_id, p.leader_epoch, sorted(p.isr), p.partition_epoch) == (
        ErrorCode.NONE, leader, current["leader_epoch"], sorted(shrunk), version + 1)
    recorded, new_version = state(zk, "t", 0)
    assert sorted(recorded["isr"]) == sorted(shrunk) and new_version == version + 1
    assert recorded["leader_epoch"] == current["leader_epoch"]  # only the partition epoch moves
    wait_for(lambda: all(sorted(layout(cluster.broker(b).bootstrap, "t")[0][2]) == sorted(shrunk)
                         for b in (1, 2, 3)), 10, "every broker's Metadata showing the new ISR")

    # the same request again (a retry): answered with what is recorded, nothing written
    again = alter(cluster, controller, leader, epoch, tid, 0, current["leader_epoch"], shrunk,
                  version).topics[0].partitions[0]
    assert (again.error_code, again.partition_epoch) == (ErrorCode.NONE, version + 1)
    assert state(zk, "t", 0)[1] == version + 1

    def error(**kw) -> int:  # noqa: ANN003
        args = {"leader_epoch": current["leader_epoch"], "isr": list(replicas),
                "partition_epoch": version + 1, **kw}
        return alter(cluster, controller, leader, epoch, tid, 0, args["leader_epoch"],
                     args["isr"], args["partition_epoch"],
                     kw.get("isr_epochs")).topics[0].partitions[0].error_code

    assert error(partition_epoch=version) == ErrorCode.INVALID_UPDATE_VERSION
    # a leader that knows newer epochs than the controller is told to look for another one
    assert error(leader_epoch=current["leader_epoch"] + 1) == ErrorCode.NOT_CONTROLLER
    assert error(partition_epoch=version + 5) == ErrorCode.NOT_CONTROLLER
    assert error(leader_epoch=current["leader_epoch"] - 1) == ErrorCode.FENCED_LEADER_EPOCH
    assert error(isr=[*replicas, 7]) == ErrorCode.INELIGIBLE_REPLICA
    # growing it back is accepted; a ZooKeeper-mode controller does not check the members'
    # broker epochs (KIP-903 is KRaft's), so a stale one changes nothing
    follower = next(r for r in replicas if r != leader)
    assert error(isr_epochs={follower: broker_epoch(zk, follower) - 1}) == ErrorCode.NONE
    assert sorted(state(zk, "t", 0)[0]["isr"]) == sorted(replicas)
