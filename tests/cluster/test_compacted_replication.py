"""A replica added to a compacted partition copies the leader's cleaned log, offset gaps and
all: the cleaner removes whole batches, and the new follower must take the surviving batches
at their offsets (as Kafka's appendAsFollower does) to catch up and join the ISR."""

from __future__ import annotations

from pathlib import Path

from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic
from kazoo.client import KazooClient

from protocol.messages import ApiKey, fetch_request as fr
from protocol.records.record import iter_batches
from pybroker.testing.cluster import running_cluster, wait_for
from pybroker.testing.wire_client import WireClient
from tests.cluster.test_admin_znodes import REASSIGN, partitions_json
from tests.cluster.test_cluster_mode import all_agree, layout

TOPIC = "compacted-gaps"


def batch_offsets(bootstrap: str, topic: str) -> list[tuple[int, int]]:
    """(base, last) offset of every batch partition 0's leader serves from offset 0."""
    client = WireClient(bootstrap)
    try:
        answer = client.call(ApiKey.FETCH, 12, fr.FetchRequest(
            replica_id=-1, max_wait_ms=0, min_bytes=0, max_bytes=50 << 20,
            topics=[fr.FetchTopic(topic=topic, partitions=[fr.FetchPartition(
                partition=0, fetch_offset=0, partition_max_bytes=50 << 20)])]))
    finally:
        client.close()
    records = bytes(answer.responses[0].partitions[0].records or b"")
    return [(h.base_offset, h.last_offset) for _, h in iter_batches(records)]


def has_gaps(offsets: list[tuple[int, int]]) -> bool:
    return bool(offsets) and (offsets[0][0] > 0 or any(
        nxt[0] != prev[1] + 1 for prev, nxt in zip(offsets, offsets[1:], strict=False)))


def test_a_new_replica_copies_a_cleaned_log_with_its_gaps(tmp_path: Path, zk_connect: str,
                                                          zk: KazooClient) -> None:
    with running_cluster(tmp_path / "cluster", zk_connect,
                         overrides={"log.cleaner.backoff.ms": 200}) as cluster:
        leader = cluster.broker(1).bootstrap
        admin = AdminClient({"bootstrap.servers": leader})
        admin.create_topics([NewTopic(TOPIC, num_partitions=1, replica_assignment=[[1]],
                                      config={"cleanup.policy": "compact",
                                              "segment.bytes": "2048",
                                              "min.cleanable.dirty.ratio": "0.01"})],
                            operation_timeout=30)[TOPIC].result()
        wait_for(lambda: all_agree(cluster, TOPIC, 1), 20, "the topic created")
        # one record per batch, ten keys written over and over: the cleaner keeps the last
        # batch of each key, with gaps between them
        producer = Producer({"bootstrap.servers": leader, "linger.ms": 0,
                             "batch.num.messages": 1})
        for i in range(400):
            producer.produce(TOPIC, key=b"key-%d" % (i % 10), value=b"value-%d" % i,
                             partition=0)
            producer.poll(0)
        assert producer.flush(30) == 0
        wait_for(lambda: has_gaps(batch_offsets(leader, TOPIC)), 60,
                 "the leader's cleaner leaving gaps between batches")

        zk.create(REASSIGN, partitions_json([{"topic": TOPIC, "partition": 0,
                                              "replicas": [1, 2]}]))
        wait_for(lambda: layout(leader, TOPIC)[0][2] == (1, 2), 60,
                 "broker 2 caught up over the gaps and in the ISR")
        assert (cluster.broker(2).data_dir / f"{TOPIC}-0").is_dir()
