"""Several in-process brokers forming a ZooKeeper-mode cluster, for tests that move a partition's
leadership or stop a broker under a client.

Each broker is an :class:`~pybroker.testing.inprocess.InProcessBroker` (its own event loop on
its own thread, its own port, log dir and fault rules) with ``zookeeper.connect`` set, so they
elect a controller, replicate and fail over exactly as broker processes do. ZooKeeper is a real
server: one the caller names (``zookeeper_connect``, a chroot of its own per cluster is
advised), or one this cluster starts from Kafka's jars
(:class:`~pybroker.testing.zookeeper.ZooKeeperServer`, a child process stopped by its pid).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TypeVar

from protocol.errors import ErrorCode, KafkaError
from protocol.messages import (
    ApiKey,
    alter_partition_reassignments_request as apr,
    elect_leaders_request as elr,
    metadata_request as mreq,
    metadata_response as mresp,
)
from pybroker.testing.cluster import FAST_FAILOVER
from pybroker.testing.inprocess import InProcessBroker, StoredRecord

T = TypeVar("T")

#: ElectLeaders' election type for the preferred (first assigned) replica
PREFERRED = 0


def missing_requirements() -> list[str]:
    """What stops this cluster from starting its own ZooKeeper here (empty when nothing)."""
    from pybroker.testing.zookeeper import ZooKeeperServer

    return ZooKeeperServer.missing_requirements()


class InProcessCluster:
    """Brokers ``1..size`` of one cluster in this process, on 127.0.0.1.

    ``start()`` returns once every broker names the same controller and lists every broker;
    ``stop()`` stops the brokers (controlled shutdowns, the controller last) and the
    ZooKeeper this cluster started. Usable as a context manager.
    """

    def __init__(self, work_dir: Path, *, size: int = 3,
                 overrides: Mapping[str, object] | None = None,
                 zookeeper_connect: str | None = None, timeout: float = 60.0) -> None:
        self.work_dir = Path(work_dir)
        self.size = size
        self.timeout = timeout
        self.zookeeper = None
        if zookeeper_connect is None:
            from pybroker.testing.zookeeper import ZooKeeperServer

            self.zookeeper = ZooKeeperServer(self.work_dir / "zookeeper")
            zookeeper_connect = self.zookeeper.connect_string(f"/pybroker-{uuid.uuid4().hex[:8]}")
        self.zookeeper_connect = zookeeper_connect
        self.brokers: dict[int, InProcessBroker] = {}
        for broker_id in range(1, size + 1):
            props: dict[str, object] = {
                "broker.id": broker_id,
                "zookeeper.connect": zookeeper_connect,
                "offsets.topic.replication.factor": min(3, size),
                "default.replication.factor": min(3, size),
                **FAST_FAILOVER,
                # the last broker of a cluster being stopped retries its controlled shutdown
                # in vain: not for long
                "controlled.shutdown.retry.backoff.ms": 100,
            }
            props.update(overrides or {})
            self.brokers[broker_id] = InProcessBroker(
                self.work_dir / f"broker-{broker_id}", overrides=props, timeout=timeout)

    # -- life cycle ---------------------------------------------------------------------------
    def start(self) -> InProcessCluster:
        try:
            if self.zookeeper is not None:
                self.zookeeper.start()
            for broker in self.brokers.values():
                broker.start()
            self.wait_formed()
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self) -> None:
        try:
            controller = self._controller_or_none()
            order = sorted(self.brokers, key=lambda b: (b == controller, -b))
            for broker_id in order:
                self.brokers[broker_id].stop()
        finally:
            if self.zookeeper is not None:
                self.zookeeper.stop()

    def __enter__(self) -> InProcessCluster:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def broker(self, broker_id: int) -> InProcessBroker:
        return self.brokers[broker_id]

    def live(self) -> list[int]:
        return [i for i, b in self.brokers.items() if b.running]

    def stop_broker(self, broker_id: int) -> None:
        """Stop one broker cleanly (a controlled shutdown moves its leaderships first)."""
        self.brokers[broker_id].stop()

    def start_broker(self, broker_id: int) -> None:
        """Start a stopped broker again on its port and data; returns once the cluster counts
        it in."""
        self.brokers[broker_id].start()
        self.wait_formed()

    @property
    def bootstrap(self) -> str:
        return ",".join(b.bootstrap for i, b in self.brokers.items() if b.running)

    # -- what the brokers say ------------------------------------------------------------------
    def metadata(self, broker_id: int | None = None, topics: list[str] | None = None,
                 ) -> mresp.MetadataResponse:
        """A Metadata v12 answer from ``broker_id`` (default: the first live broker)."""
        target = self.brokers[broker_id if broker_id is not None else self.live()[0]]
        request = mreq.MetadataRequest(
            topics=None if topics is None else [mreq.MetadataRequestTopic(name=t)
                                                for t in topics],
            allow_auto_topic_creation=False)
        with target.client() as client:
            return client.call(ApiKey.METADATA, 12, request)

    def _controller_or_none(self) -> int | None:
        for broker_id in self.live():
            try:
                controller = self.metadata(broker_id, []).controller_id
            except OSError:
                continue
            if controller in self.brokers:
                return int(controller)
        return None

    def controller(self) -> int:
        controller = self._controller_or_none()
        if controller is None:
            raise AssertionError("no live broker names a controller")
        return controller

    def wait_formed(self) -> int:
        """Wait until every live broker names the same live controller and lists every live
        broker; the controller's id."""
        live = frozenset(self.live())

        def formed() -> int | None:
            views = set()
            for broker_id in live:
                md = self.metadata(broker_id, [])
                views.add((md.controller_id, frozenset(b.node_id for b in md.brokers)))
            if len(views) == 1:
                [(controller, listed)] = views
                if controller in live and listed == live:
                    return int(controller)
            return None

        return self._wait(formed, f"brokers {sorted(live)} to agree on a controller")

    def leader(self, topic: str, partition: int = 0) -> int:
        """The partition's leader as the controller's metadata says (-1: none)."""
        md = self.metadata(self.controller(), [topic])
        for t in md.topics:
            for p in t.partitions:
                if p.partition_index == partition:
                    return int(p.leader_id)
        raise KafkaError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, f"{topic}-{partition} unknown")

    def wait_leader(self, topic: str, partition: int = 0,
                    expected: int | None = None) -> int:
        """Wait until every live broker names the same live leader for the partition
        (``expected``, when given); that leader."""

        def agreed() -> int | None:
            leaders = set()
            for broker_id in self.live():
                md = self.metadata(broker_id, [topic])
                found = [p.leader_id for t in md.topics for p in t.partitions
                         if t.error_code == 0 and p.partition_index == partition]
                leaders.add(found[0] if found else None)
            if len(leaders) == 1:
                [leader] = leaders
                if leader in self.live() and (expected is None or leader == expected):
                    return int(leader)
            return None

        return self._wait(agreed, f"one leader of {topic}-{partition}"
                          + (f" (broker {expected})" if expected is not None else ""))

    # -- changes ------------------------------------------------------------------------------
    def create_topic(self, name: str, partitions: int = 1, *, replication_factor: int = -1,
                     config: Mapping[str, object] | None = None) -> None:
        """Create a topic and wait until every live broker knows a leader for each
        partition."""
        self.brokers[self.live()[0]].create_topic(
            name, partitions, replication_factor=replication_factor, config=config)
        for p in range(partitions):
            self.wait_leader(name, p)

    def move_leadership(self, topic: str, partition: int, to: int) -> None:
        """Make broker ``to`` (a replica of the partition) its leader, as an operator does:
        reassign the partition to the same replicas with ``to`` first, then elect the
        preferred leader. Returns once every live broker names ``to``."""
        md = self.metadata(self.controller(), [topic])
        replicas = [list(p.replica_nodes) for t in md.topics for p in t.partitions
                    if p.partition_index == partition]
        if not replicas:
            raise KafkaError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, f"{topic}-{partition} unknown")
        if to not in replicas[0]:
            raise ValueError(f"broker {to} is not a replica of {topic}-{partition} "
                             f"(replicas {replicas[0]})")
        order = [to] + [b for b in replicas[0] if b != to]
        with self.brokers[self.controller()].client() as client:
            answer = client.call(ApiKey.ALTER_PARTITION_REASSIGNMENTS, 0,
                                 apr.AlterPartitionReassignmentsRequest(topics=[
                                     apr.ReassignableTopic(name=topic, partitions=[
                                         apr.ReassignablePartition(partition_index=partition,
                                                                   replicas=order)])]))
            errors = [answer.error_code] + [p.error_code for t in answer.responses
                                            for p in t.partitions]
            if any(errors):
                raise KafkaError(ErrorCode(max(errors)), f"reassigning {topic}-{partition}: "
                                 f"{answer.error_message or errors}")
        self._wait(lambda: self._assigned(topic, partition) == order,
                   f"{topic}-{partition} assigned to {order}")

        def elected() -> bool:
            with self.brokers[self.controller()].client() as client:
                result = client.call(ApiKey.ELECT_LEADERS, 2, elr.ElectLeadersRequest(
                    election_type=PREFERRED,
                    topic_partitions=[elr.TopicPartitions(topic=topic, partitions=[partition])]))
            codes = [p.error_code for r in result.replica_election_results
                     for p in r.partition_result]
            # ELECTION_NOT_NEEDED: the preferred replica leads already
            return all(c in (ErrorCode.NONE, ErrorCode.ELECTION_NOT_NEEDED) for c in codes)

        self._wait(elected, f"a preferred election of {topic}-{partition}")
        self.wait_leader(topic, partition, expected=to)

    def _assigned(self, topic: str, partition: int) -> list[int]:
        md = self.metadata(self.controller(), [topic])
        return [list(p.replica_nodes) for t in md.topics for p in t.partitions
                if p.partition_index == partition][0]

    def records(self, topic: str, partition: int = 0) -> list[StoredRecord]:
        """What the partition's leader stored, up to its high watermark."""
        return self.brokers[self.leader(topic, partition)].records(topic, partition)

    def _wait(self, condition: Callable[[], T | None], what: str) -> T:
        deadline = time.monotonic() + self.timeout
        last: object = None
        while time.monotonic() < deadline:
            try:
                found = condition()
            except (OSError, KafkaError) as e:
                last = e
            else:
                if found:
                    return found
                last = found
            time.sleep(0.05)
        raise AssertionError(f"timed out after {self.timeout:.0f}s waiting for {what} "
                             f"(last: {last!r})")

