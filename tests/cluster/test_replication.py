"""Replication between pybroker processes: three real brokers on the session's ZooKeeper (a
chroot per test), real confluent-kafka clients, replicas compared byte for byte.

* A topic at replication factor 3 produced with acks=all: every produce completes, every
  replica's log ends byte-identical to its leader's (the segment files themselves), the high
  watermark moves on the leaders and reaches the followers (their
  ``replication-offset-checkpoint``), and a consumer reads every record.
* A follower restarted under load, by SIGTERM (a controlled shutdown) and by SIGKILL: it comes
  back, truncates what it must by leader epoch, catches up, and its log ends byte-identical;
  nothing that was acknowledged is missing.

Every broker is stopped by its pid when the test ends (ClusterProcesses.stop), whatever
happened.
"""

from __future__ import annotations

import re
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from protocol.messages import ApiKey, list_offsets_request as lreq, metadata_request as mreq
from pybroker.log.checkpoints import REPLICATION_OFFSET_CHECKPOINT, read_offset_checkpoint
from pybroker.testing.cluster import ClusterProcesses, running_cluster, wait_for
from pybroker.testing.failover import PartitionState, partition_states
from pybroker.testing.wire_client import WireClient

SESSION_TIMEOUT_S = 6.0  # pybroker.testing.cluster.FAST_FAILOVER

OVERRIDES = {
    "replica.high.watermark.checkpoint.interval.ms": 500,
    "offsets.topic.num.partitions": 3,
}


def running(tmp_path: Path, zk_connect: str, **extra: object) -> Iterator[ClusterProcesses]:
    # start() waits until every broker names the controller: a broker answers Metadata with
    # controller -1 until the controller's UpdateMetadata reaches it, and librdkafka's admin
    # client, told so, may wait minutes before it asks again
    with running_cluster(tmp_path / "cluster", zk_connect,
                         overrides={**OVERRIDES, **extra}) as c:
        yield c


@pytest.fixture
def cluster(tmp_path: Path, zk_connect: str) -> Iterator[ClusterProcesses]:
    yield from running(tmp_path, zk_connect)


@pytest.fixture
def cluster_before_2_7(tmp_path: Path, zk_connect: str) -> Iterator[ClusterProcesses]:
    """inter.broker.protocol.version 2.6: no truncation on fetch (Fetch v11, and
    OffsetForLeaderEpoch before every fetch after a leadership change)."""
    yield from running(tmp_path, zk_connect, **{"inter.broker.protocol.version": "2.6"})


# -- looking at the cluster ----------------------------------------------------------------------


def layout(cluster: ClusterProcesses, broker: int, topic: str) -> dict[int, PartitionState]:
    """partition -> (leader, replicas, ISR) as ``broker`` answers Metadata."""
    return partition_states(cluster.broker(broker).bootstrap, topic)


def agreed_layout(cluster: ClusterProcesses, topic: str, partitions: int):
    """The layout when every live broker answers the same one, each partition led by a live
    broker; else None."""
    live = cluster.live()
    views = [layout(cluster, b, topic) for b in live]
    first = views[0]
    if len(first) == partitions and all(v == first for v in views) \
            and all(leader in live for leader, _, _ in first.values()):
        return first
    return None


def controller_of(cluster: ClusterProcesses, broker: int | None = None) -> int:
    """The controller as ``broker`` (default: the first live one) names it; -1 for none."""
    asked = broker if broker is not None else cluster.live()[0]
    with WireClient(cluster.broker(asked).bootstrap) as client:
        md = client.call(ApiKey.METADATA, 12, mreq.MetadataRequest(
            topics=[], allow_auto_topic_creation=False))
    return md.controller_id


def one_controller(cluster: ClusterProcesses) -> bool:
    """Whether every broker names the same controller."""
    named = {controller_of(cluster, b) for b in cluster.brokers}
    return len(named) == 1 and -1 not in named


def create(cluster: ClusterProcesses, topic: str, partitions: int) -> dict:
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap})
    admin.create_topics([NewTopic(topic, partitions, 3)], operation_timeout=30)[topic].result()
    return wait_for(lambda: agreed_layout(cluster, topic, partitions), 30,
                    f"{topic} led on every broker")


def replica_bytes(cluster: ClusterProcesses, broker: int, topic: str, partition: int) -> bytes:
    """The partition's records as ``broker`` stores them: its segment files, in order."""
    directory = cluster.broker(broker).data_dir / f"{topic}-{partition}"
    segments = sorted(directory.glob("*.log")) if directory.is_dir() else []
    return b"".join(s.read_bytes() for s in segments)


def identical_replicas(cluster: ClusterProcesses, topic: str, partitions: int,
                       ) -> dict[int, int] | None:
    """partition -> bytes, when every broker's copy of every partition is the same and holds
    something; else None."""
    sizes = {}
    for p in range(partitions):
        copies = {replica_bytes(cluster, b, topic, p) for b in cluster.brokers}
        if len(copies) != 1 or not next(iter(copies)):
            return None
        sizes[p] = len(next(iter(copies)))
    return sizes


def latest_offset(cluster: ClusterProcesses, leader: int, topic: str, partition: int) -> int:
    """ListOffsets LATEST from the leader: its high watermark."""
    with WireClient(cluster.broker(leader).bootstrap) as client:
        answer = client.call(ApiKey.LIST_OFFSETS, 7, lreq.ListOffsetsRequest(
            replica_id=-1, topics=[lreq.ListOffsetsTopic(name=topic, partitions=[
                lreq.ListOffsetsPartition(partition_index=partition, timestamp=-1)])]))
    [[p]] = [t.partitions for t in answer.topics]
    assert p.error_code == 0, p
    return p.offset


def checkpointed_high_watermarks(cluster: ClusterProcesses, broker: int,
                                 ) -> dict[tuple[str, int], int]:
    return read_offset_checkpoint(cluster.broker(broker).data_dir / REPLICATION_OFFSET_CHECKPOINT)


def consume_all(bootstrap: str, topic: str, expected: int, timeout: float = 60) -> list[bytes]:
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"g-{uuid.uuid4().hex[:8]}",
                         "auto.offset.reset": "earliest", "enable.auto.commit": False})
    consumer.subscribe([topic])
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


class Load:
    """A producer thread writing ``topic`` with acks=all until stopped; remembers every value
    acknowledged and every error reported."""

    def __init__(self, bootstrap: str, topic: str, partitions: int) -> None:
        self.topic = topic
        self.partitions = partitions
        self.producer = Producer({
            "bootstrap.servers": bootstrap, "acks": "all", "enable.idempotence": True,
            "linger.ms": 5, "message.timeout.ms": 120000})
        self.acked: list[bytes] = []
        self.errors: list[str] = []
        self.sent = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="load", daemon=True)

    def _delivered(self, err, msg) -> None:  # noqa: ANN001 - confluent-kafka's callback
        if err is None:
            self.acked.append(msg.value())
        else:
            self.errors.append(str(err))

    def _run(self) -> None:
        while not self._stop.is_set():
            for _ in range(20):
                value = b"%08d" % self.sent
                self.producer.produce(self.topic, value, partition=self.sent % self.partitions,
                                      on_delivery=self._delivered)
                self.sent += 1
            self.producer.poll(0.01)

    def __enter__(self) -> Load:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        if not self._stop.is_set():
            self._stop.set()
            self._thread.join(30)
            self.producer.flush(120)


# -- tests -----------------------------------------------------------------------------------


def test_acks_all_produces_byte_identical_replicas(cluster: ClusterProcesses) -> None:
    topic, partitions, count = "orders", 3, 3000
    view = create(cluster, topic, partitions)
    assert all(sorted(isr) == [1, 2, 3] for _, _, isr in view.values())
    producer = Producer({"bootstrap.servers": cluster.bootstrap, "acks": "all",
                         "linger.ms": 5, "message.timeout.ms": 60000})
    acked: list[bytes] = []
    failed: list[str] = []

    def delivered(err, msg) -> None:  # noqa: ANN001 - confluent-kafka's callback
        (acked.append(msg.value()) if err is None else failed.append(str(err)))

    started = time.monotonic()
    for i in range(count):
        producer.produce(topic, b"order-%05d" % i, key=b"k%d" % (i % 17), on_delivery=delivered)
        producer.poll(0)
    assert producer.flush(60) == 0
    print(f"\n{count} records at acks=all to RF 3 in {time.monotonic() - started:.1f}s")
    assert failed == [] and len(acked) == count

    # every replica of every partition holds the same bytes as its leader
    sizes = wait_for(lambda: identical_replicas(cluster, topic, partitions), 30,
                     "byte-identical replicas")
    assert all(size > 0 for size in sizes.values())
    # the leaders' high watermarks cover everything acknowledged...
    per_partition = {p: latest_offset(cluster, view[p][0], topic, p) for p in range(partitions)}
    assert sum(per_partition.values()) == count
    # ...and the followers learn them: their checkpointed high watermarks reach the log end
    for p, (leader, replicas, _) in view.items():
        for follower in (r for r in replicas if r != leader):
            wait_for(lambda f=follower, p=p: checkpointed_high_watermarks(cluster, f)
                     .get((topic, p)) == per_partition[p], 15,
                     f"follower {follower}'s high watermark of {topic}-{p}")
    # a consumer reads every record
    values = consume_all(cluster.bootstrap, topic, count)
    assert sorted(values) == sorted(acked)
    # the replicas copied the leader epoch caches along with the data (each broker writes its
    # checkpoint on its storage thread, a moment after the change)
    for p in range(partitions):
        def caches(p: int = p) -> set[str]:
            return {(cluster.broker(b).data_dir / f"{topic}-{p}" / "leader-epoch-checkpoint")
                    .read_text() for b in cluster.brokers}
        wait_for(lambda p=p: len(caches(p)) == 1, 10, f"one leader epoch cache of {topic}-{p}")
        assert len(caches()) == 1, caches()


@pytest.mark.parametrize("how", ["SIGTERM", "SIGKILL"])
def test_a_follower_restarted_under_load_catches_up_byte_identical(
        cluster: ClusterProcesses, how: str) -> None:
    restart_a_follower_under_load(cluster, how)


def test_before_ibp_2_7_a_restarted_follower_truncates_by_offset_for_leader_epoch(
        cluster_before_2_7: ClusterProcesses) -> None:
    follower = restart_a_follower_under_load(cluster_before_2_7, "SIGKILL")
    log = cluster_before_2_7.broker(follower).log_path.read_text().split("===== start #2")[-1]
    # it came back truncating (its log has epochs, but no LastFetchedEpoch rides on Fetch v11),
    # asked its leaders where its epochs end, and went on fetching from there
    assert re.search(r"flow-0 from offset \d+ in leader epoch \d+ \(Truncating\)", log), log
    assert "truncating flow-0 to" in log, log[-3000:]


def restart_a_follower_under_load(cluster: ClusterProcesses, how: str) -> int:
    """Restart a follower of every partition of a new topic while a producer writes to it;
    returns the follower."""
    topic, partitions = "flow", 2
    view = create(cluster, topic, partitions)
    controller = controller_of(cluster)
    leaders = {leader for leader, _, _ in view.values()}
    # a follower of every partition, and not the controller if another broker will do
    candidates = [b for b in cluster.brokers if b not in leaders] or \
        [b for b in cluster.brokers if b != view[0][0]]
    follower = next((b for b in candidates if b != controller), candidates[0])
    with Load(cluster.bootstrap, topic, partitions) as load:
        wait_for(lambda: len(load.acked) >= 500, 30, "records acknowledged before the restart")
        broker = cluster.broker(follower)
        stopped = time.monotonic()
        if how == "SIGTERM":
            broker.stop()
        else:
            broker.kill()
        # the producer carries on while the follower is away (for SIGKILL, acks=all waits
        # until the controller drops it from the ISR)
        acked_before = len(load.acked)
        wait_for(lambda: len(load.acked) >= acked_before + 500, SESSION_TIMEOUT_S + 40,
                 "records acknowledged without the follower")
        # a broker restarted before its old registration expired could not register (Kafka's
        # brokers refuse to start on someone else's /brokers/ids/<id> too)
        wait_for(lambda: all(follower not in listed
                             for b, (_, listed) in cluster.controllers_named().items()
                             if b != follower), SESSION_TIMEOUT_S + 40,
                 f"broker {follower}'s registration to expire")
        broker.start()
        print(f"\nfollower {follower} ({how}) back after {time.monotonic() - stopped:.1f}s")
        acked_back = len(load.acked)
        wait_for(lambda: len(load.acked) >= acked_back + 500, 60,
                 "records acknowledged after the restart")
    assert load.errors == []
    sizes = wait_for(lambda: identical_replicas(cluster, topic, partitions), 60,
                     f"follower {follower} byte-identical with its leaders again")
    assert all(size > 0 for size in sizes.values())
    # nothing acknowledged is missing, and nothing is there twice (idempotent producer)
    values = consume_all(cluster.bootstrap, topic, len(load.acked))
    assert sorted(values) == sorted(load.acked)
    # the restarted follower fetches again: its position is where its log ends
    log = cluster.broker(follower).log_path.read_text().split("===== start #2")[-1]
    assert re.search(r"following .*flow-0 from offset \d+ in leader epoch", log), log[-3000:]
    return follower


def test_the_followers_log_is_what_the_leader_serves(cluster: ClusterProcesses) -> None:
    """Reading a follower's copy as a follower does (Fetch with a replica id, from offset 0 to
    the end) gives the leader's bytes too."""
    topic = "mirror"
    view = create(cluster, topic, 1)
    leader, replicas, _ = view[0]
    producer = Producer({"bootstrap.servers": cluster.bootstrap, "acks": "all"})
    for i in range(200):
        producer.produce(topic, b"m%d" % i, partition=0)
    assert producer.flush(30) == 0
    wait_for(lambda: identical_replicas(cluster, topic, 1), 30, "identical replicas")
    from protocol.messages import fetch_request as freq

    def read_as_follower(source: int, replica_id: int) -> bytes:
        with WireClient(cluster.broker(source).bootstrap) as client:
            answer = client.call(ApiKey.FETCH, 12, freq.FetchRequest(
                replica_id=replica_id, max_wait_ms=0, min_bytes=0, max_bytes=50 << 20,
                session_id=0, session_epoch=-1, topics=[freq.FetchTopic(topic=topic, partitions=[
                    freq.FetchPartition(partition=0, fetch_offset=0, partition_max_bytes=50 << 20,
                                        last_fetched_epoch=-1)])]))
        [[p]] = [t.partitions for t in answer.responses]
        assert p.error_code == 0, p
        return bytes(p.records)

    served = read_as_follower(leader, next(r for r in replicas if r != leader))
    assert served == replica_bytes(cluster, leader, topic, 0)
    for follower in (r for r in replicas if r != leader):
        assert replica_bytes(cluster, follower, topic, 0) == served
    consumer = Consumer({"bootstrap.servers": cluster.bootstrap, "group.id": "mirror-check",
                         "enable.auto.commit": False})
    try:
        low, high = consumer.get_watermark_offsets(TopicPartition(topic, 0), timeout=10)
    finally:
        consumer.close()
    assert (low, high) == (0, 200)
