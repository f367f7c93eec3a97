"""The consumer-offset workload of a chaos run: a consumer group member reading ``topics`` and
committing its position synchronously every ``commit_interval`` seconds, and a sampler that asks
every broker for the group's committed offsets (OffsetFetch) and, right after the answers, for
every partition's high watermark (ListOffsets), every ``sample_interval`` seconds.

Each commit the consumer was told succeeded is kept as an
:class:`~pybroker.testing.chaos_check.OffsetCommit`; each committed offset a broker answered as
the group's coordinator, as an :class:`~pybroker.testing.chaos_check.OffsetSample` naming that
broker, with the high watermarks the brokers that lead the partition answered.
``chaos_check.check_offsets`` judges them (committed offsets never go backwards, never past the
high watermark). Brokers that are not the coordinator (or not the leader) answer
NOT_COORDINATOR (NOT_LEADER_OR_FOLLOWER) and give no sample; a broker cut off from the cluster
that still believes it is the coordinator answers from its own state, which is why the sampler
asks every broker itself and keeps who answered.

The sampler speaks the protocol itself (:class:`~pybroker.testing.wire_client.WireClient`) rather
than through librdkafka, which would not say which broker answered - and whose admin
``list_consumer_group_offsets`` crashes the process when a coordinator answers NOT_COORDINATOR,
as coordinators do while they move (librdkafka issue 5040: it asks for a new coordinator
through a consumer group handle an admin client does not have).
"""

from __future__ import annotations

import threading
from collections import defaultdict
from collections.abc import Callable, Sequence

from confluent_kafka import Consumer, KafkaError, KafkaException

from protocol.messages import (
    ApiKey,
    list_offsets_request as loreq,
    offset_fetch_request as ofreq,
)
from pybroker.kernel.types import TopicPartition
from pybroker.testing.chaos_check import OffsetCommit, OffsetSample
from pybroker.testing.cluster import ClusterProcesses
from pybroker.testing.wire_client import WireClient

Clock = Callable[[], float]
LATEST_TIMESTAMP = -1


class OffsetWorkload:
    """Group ``group`` reads ``topics`` (``partitions`` each) from the earliest offset and commits
    what it read every ``commit_interval`` seconds; every ``sample_interval`` seconds every
    broker of ``cluster`` is asked for the committed offsets and the high watermarks."""

    name = "offsets"

    def __init__(self, cluster: ClusterProcesses, topics: Sequence[str], partitions: int, *,
                 clock: Clock, group: str = "chaos-offsets", commit_interval: float = 0.3,
                 sample_interval: float = 0.5, timeout: float = 2.0) -> None:
        self.cluster = cluster
        self.bootstrap = cluster.bootstrap
        self.topics = list(topics)
        self.partitions = [(t, p) for t in self.topics for p in range(partitions)]
        self.clock = clock
        self.group = group
        self.commit_interval = commit_interval
        self.sample_interval = sample_interval
        self.timeout = timeout
        self.commits: list[OffsetCommit] = []
        self.samples: list[OffsetSample] = []
        self.commit_errors: list[str] = []
        self.sample_errors: list[str] = []
        self.read = 0
        self._clients: dict[int, WireClient] = {}
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._consume, name="offsets-consumer",
                                          daemon=True),
                         threading.Thread(target=self._sample, name="offsets-sampler",
                                          daemon=True)]

    # -- the committing member ------------------------------------------------------------------

    def _consume(self) -> None:
        consumer = Consumer({
            "bootstrap.servers": self.bootstrap, "group.id": self.group,
            "auto.offset.reset": "earliest", "enable.auto.commit": False,
            "session.timeout.ms": 10000, "client.id": self.group})
        consumer.subscribe(self.topics)
        try:
            last_commit = self.clock()
            while not self._stop.is_set():
                for msg in consumer.consume(num_messages=500, timeout=0.1):
                    if msg.error() is None:
                        self.read += 1
                if self.clock() - last_commit >= self.commit_interval:
                    last_commit = self.clock()
                    self._commit(consumer)
        finally:
            consumer.close()

    def _commit(self, consumer: Consumer) -> None:
        try:
            answered = consumer.commit(asynchronous=False)
        except KafkaException as exc:
            # nothing consumed since the last commit is an error too (_NO_OFFSET): not counted
            if exc.args[0].code() != KafkaError._NO_OFFSET:
                self.commit_errors.append(f"t={self.clock():.1f}s {exc.args[0]}")
            return
        at = self.clock()
        for tp in answered or []:
            if tp.error is None and tp.offset >= 0:
                self.commits.append(OffsetCommit(at, (tp.topic, tp.partition), tp.offset))
            elif tp.error is not None:
                self.commit_errors.append(f"t={at:.1f}s {tp.topic}-{tp.partition}: {tp.error}")

    # -- the sampler ------------------------------------------------------------------------------

    def _call(self, broker_id: int, api: int, version: int, body: object) -> object | None:
        """``body`` to ``broker_id`` over a connection kept for it; None when it does not
        answer (the connection is opened again next time)."""
        client = self._clients.get(broker_id)
        try:
            if client is None:
                client = WireClient(self.cluster.broker(broker_id).bootstrap,
                                    timeout=self.timeout)
                self._clients[broker_id] = client
            return client.call(api, version, body)
        except (OSError, ConnectionError, AssertionError, ValueError):
            if client is not None:
                client.close()
            self._clients.pop(broker_id, None)
            return None

    def _sample(self) -> None:
        try:
            while not self._stop.wait(self.sample_interval):
                self._sample_once()
        finally:
            for client in self._clients.values():
                client.close()

    def _sample_once(self) -> None:
        asked = self.clock()
        by_topic: dict[str, list[int]] = defaultdict(list)
        for topic, partition in self.partitions:
            by_topic[topic].append(partition)
        committed: list[tuple[int, TopicPartition, int]] = []
        for broker_id in sorted(self.cluster.brokers):
            answer = self._call(broker_id, ApiKey.OFFSET_FETCH, 8, ofreq.OffsetFetchRequest(
                groups=[ofreq.OffsetFetchRequestGroup(group_id=self.group, topics=[
                    ofreq.OffsetFetchRequestTopics(name=t, partition_indexes=ps)
                    for t, ps in by_topic.items()])]))
            if answer is None:
                continue
            for group in answer.groups:  # type: ignore[attr-defined]
                if group.error_code:
                    continue  # not the coordinator (or loading): no sample
                for t in group.topics:
                    for p in t.partitions:
                        if p.error_code:
                            self.sample_errors.append(
                                f"t={asked:.1f}s OffsetFetch {t.name}-{p.partition_index} from "
                                f"broker {broker_id}: error {p.error_code}")
                        elif p.committed_offset >= 0:
                            committed.append((broker_id, (t.name, p.partition_index),
                                              p.committed_offset))
        if not committed:
            return
        high: dict[TopicPartition, list[tuple[int, int]]] = defaultdict(list)
        for broker_id in sorted(self.cluster.brokers):
            answer = self._call(broker_id, ApiKey.LIST_OFFSETS, 7, loreq.ListOffsetsRequest(
                replica_id=-1, isolation_level=0, topics=[loreq.ListOffsetsTopic(
                    name=t, partitions=[loreq.ListOffsetsPartition(
                        partition_index=p, timestamp=LATEST_TIMESTAMP) for p in ps])
                    for t, ps in by_topic.items()]))
            if answer is None:
                continue
            for t in answer.topics:  # type: ignore[attr-defined]
                for p in t.partitions:
                    if not p.error_code:
                        high[(t.name, p.partition_index)].append((broker_id, p.offset))
        for broker_id, tp, offset in committed:
            self.samples.append(OffsetSample(asked, tp, offset, broker_id, tuple(high[tp])))

    def start(self) -> None:
        for thread in self._threads:
            thread.start()

    def stop(self) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(60)
