"""Moving replicas between log dirs in a three-broker cluster (ZooKeeper mode), each broker with
two log dirs, under acks=all load from an idempotent confluent-kafka producer: one partition
moved on its leader (its followers keep fetching from it, fetch responses holding slices of the
log being replaced) and one on a follower (its replica fetcher keeps appending to the log being
copied). Afterwards every replica of every partition holds the same bytes, wherever it is, every
broker is back in the ISR, and every acknowledged record is read exactly once.

Every broker is stopped by its pid when the test ends (ClusterProcesses.stop).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from confluent_kafka.admin import AdminClient, NewTopic

from protocol.errors import ErrorCode
from pybroker.testing.cluster import ClusterProcesses, wait_for
from pybroker.testing.failover import agreed_states
from tests.cluster.test_replication import OVERRIDES, Load, consume_all
from tests.compat.log_dirs import alter, current_and_future, partition_dirs, two_log_dirs

pytestmark = pytest.mark.timeout(300)

TOPIC, PARTITIONS = "moves", 2


@pytest.fixture
def cluster(tmp_path: Path, zk_connect: str) -> Iterator[ClusterProcesses]:
    c = ClusterProcesses(tmp_path / "cluster", zk_connect, overrides=OVERRIDES)
    for broker in c.brokers.values():
        first, second = two_log_dirs(broker.data_dir)
        broker.extra_overrides["log.dirs"] = f"{first},{second}"
    try:
        yield c.start()
    finally:
        c.stop()
        assert not c.live(), f"brokers still running: {c.live()}"


def replica_bytes(cluster: ClusterProcesses, broker: int, partition: int) -> bytes:
    """The partition's records as ``broker`` stores them, in whichever of its dirs."""
    found = [d / f"{TOPIC}-{partition}" for d in two_log_dirs(cluster.broker(broker).data_dir)
             if (d / f"{TOPIC}-{partition}").is_dir()]
    assert len(found) == 1, found
    return b"".join(s.read_bytes() for s in sorted(found[0].glob("*.log")))


def identical_replicas(cluster: ClusterProcesses) -> bool:
    return all(len({replica_bytes(cluster, b, p) for b in cluster.brokers}) == 1
               for p in range(PARTITIONS))


def move(cluster: ClusterProcesses, broker: int, partition: int) -> str:
    """Move the broker's replica of the partition to its other log dir; returns that dir."""
    bootstrap = cluster.broker(broker).bootstrap
    current, future = current_and_future(bootstrap, TOPIC, partition)
    assert current is not None and future is None
    dest = next(str(d.absolute()) for d in two_log_dirs(cluster.broker(broker).data_dir)
                if str(d.absolute()) != current.log_dir)
    assert alter(bootstrap, {(TOPIC, partition): dest}) == {(TOPIC, partition): ErrorCode.NONE}
    return dest


def test_moves_on_a_leader_and_a_follower_under_acks_all_load(cluster: ClusterProcesses) -> None:
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap})
    admin.create_topics([NewTopic(TOPIC, PARTITIONS, 3)], operation_timeout=30)[TOPIC].result()
    states = wait_for(lambda: agreed_states(cluster, TOPIC), 30, f"{TOPIC} led everywhere")
    leader0 = states[0][0]
    follower1 = next(b for b in states[1][1] if b != states[1][0])

    with Load(cluster.bootstrap, TOPIC, PARTITIONS) as load:
        wait_for(lambda: len(load.acked) > 3000 or None, 60, "records acknowledged")
        moves = {(leader0, 0): move(cluster, leader0, 0),
                 (follower1, 1): move(cluster, follower1, 1)}

        def moved() -> bool | None:
            for (broker, p), dest in moves.items():
                current, future = current_and_future(cluster.broker(broker).bootstrap, TOPIC, p)
                if future is not None or current is None or current.log_dir != dest:
                    return None
            return True

        wait_for(moved, 120, "both moves completed")
        acked_at_move = len(load.acked)
        wait_for(lambda: len(load.acked) > acked_at_move + 2000 or None, 60,
                 "records acknowledged after the moves")
    assert load.errors == []

    for (_, p), dest in moves.items():
        assert partition_dirs(Path(dest), TOPIC, p) == [f"{TOPIC}-{p}"]
    wait_for(lambda: identical_replicas(cluster) or None, 30, "byte-identical replicas")
    wait_for(lambda: (s := agreed_states(cluster, TOPIC)) is not None
             and all(sorted(isr) == [1, 2, 3] for _, _, isr in s.values()) or None, 60,
             "every broker in every ISR")
    seen = consume_all(cluster.bootstrap, TOPIC, len(load.acked), timeout=120)
    assert Counter(seen) == Counter(load.acked), "every acknowledged record, once"
