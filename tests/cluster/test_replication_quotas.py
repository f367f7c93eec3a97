"""Replication quotas (KIP-73) in a three-broker cluster: ``kafka-reassign-partitions --execute
--throttle`` sets the brokers' throttled rates and the topic's throttled replicas, the new
replica then copies the partition at about the set rate while clients are not throttled, and
``--verify`` removes the throttle once the move is done."""

from __future__ import annotations

import json
import time
from pathlib import Path

from kazoo.client import KazooClient

from protocol.messages import create_topics_request as ct, produce_request as pr
from protocol.records.record import build_batch
from pybroker.testing.cluster import ClusterProcesses, wait_for
from pybroker.testing.wire_client import WireClient
from tests.compat.cli.conftest import KafkaCli

PRODUCE, CREATE_TOPICS = 0, 19
BATCH, BATCHES = 100_000, 40  # 4 MB in the partition
THROTTLE = 1_000_000  # bytes per second


def produce(bootstrap: str, topic: str, count: int) -> list[int]:
    """``count`` batches of 100 KB, acks=1; each response's throttle time."""
    throttles = []
    with WireClient(bootstrap, timeout=30) as c:
        for i in range(count):
            batch = build_batch([(None, bytes([i % 256]) * BATCH)])
            r = c.call(PRODUCE, 8, pr.ProduceRequest(acks=1, timeout_ms=10_000, topic_data=[
                pr.TopicProduceData(name=topic, partition_data=[
                    pr.PartitionProduceData(index=0, records=bytes(batch))])]))
            assert r.responses[0].partition_responses[0].error_code == 0, r
            throttles.append(r.throttle_time_ms)
    return throttles


def config(zk: KazooClient, path: str) -> dict[str, str]:
    found = zk.exists(path)
    if found is None or not zk.get(path)[0]:
        return {}
    return json.loads(zk.get(path)[0])["config"]


def test_a_throttled_reassignment_moves_data_at_the_set_rate(
        cluster: ClusterProcesses, zk: KazooClient, kafka_tools_lib: Path,
        tmp_path: Path) -> None:
    topic = "throttled-move"
    with WireClient(cluster.broker(1).bootstrap) as c:
        r = c.call(CREATE_TOPICS, 4, ct.CreateTopicsRequest(timeout_ms=30_000, topics=[
            ct.CreatableTopic(name=topic, num_partitions=-1, replication_factor=-1,
                              assignments=[ct.CreatableReplicaAssignment(partition_index=0,
                                                                         broker_ids=[1])])]))
    assert r.topics[0].error_code == 0, r
    wait_for(lambda: zk.exists(f"/brokers/topics/{topic}/partitions/0/state") is not None, 30,
             "the partition led")
    produce(cluster.broker(1).bootstrap, topic, BATCHES)

    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"version": 1, "partitions": [
        {"topic": topic, "partition": 0, "replicas": [1, 2]}]}))
    cli = KafkaCli(cluster.broker(1).bootstrap, kafka_tools_lib)
    started = time.monotonic()
    run = cli.tool("kafka-reassign-partitions", "--execute", "--reassignment-json-file",
                   str(plan), "--throttle", str(THROTTLE))
    assert "The inter-broker throttle limit was set to 1000000 B/s" in run.stdout, run.explain()
    assert config(zk, f"/config/topics/{topic}") == {
        "leader.replication.throttled.replicas": "0:1",
        "follower.replication.throttled.replicas": "0:2"}
    for broker in (1, 2):
        assert config(zk, f"/config/brokers/{broker}") == {
            "leader.replication.throttled.rate": str(THROTTLE),
            "follower.replication.throttled.rate": str(THROTTLE)}

    # clients meanwhile are not throttled
    assert produce(cluster.broker(1).bootstrap, topic, 3) == [0, 0, 0]

    def isr() -> list[int]:
        return json.loads(zk.get(f"/brokers/topics/{topic}/partitions/0/state")[0])["isr"]

    wait_for(lambda: sorted(isr()) == [1, 2], 60, "broker 2 in the ISR")
    took = time.monotonic() - started
    moved = (BATCHES + 3) * BATCH
    print(f"\n{moved} bytes moved at {THROTTLE} B/s in {took:.1f}s "
          f"({moved / took / 1e6:.2f} MB/s)")
    # the first second's worth goes at once (a rate is measured over a window at least),
    # then about the set rate: well above it unthrottled, it would take a fraction of this
    assert moved / took < THROTTLE * 1.6, took
    assert moved / took > THROTTLE * 0.4, took

    verified = cli.tool("kafka-reassign-partitions", "--verify", "--reassignment-json-file",
                        str(plan))
    assert "Clearing broker-level throttles on brokers 1,2,3" in verified.stdout, verified.explain()
    assert f"Clearing topic-level throttles on topic {topic}" in verified.stdout
    assert config(zk, f"/config/topics/{topic}") == {}
    for broker in (1, 2):
        assert config(zk, f"/config/brokers/{broker}") == {}
