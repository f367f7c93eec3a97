"""The consumer-offset workload of a chaos run: a consumer group member reading ``topics`` and
committing its position synchronously every ``commit_interval`` seconds, and a sampler that asks
the group's committed offsets (OffsetFetch to the group coordinator) and, right after each
answer, every partition's high watermark (ListOffsets to its leader).

The sampler is a consumer of the same group that never subscribes (so never joins it) and asks
with ``Consumer.committed``: librdkafka's admin ``list_consumer_group_offsets`` crashes the
process when the coordinator answers NOT_COORDINATOR, as coordinators do while they move
(librdkafka issue 5040: it asks for a new coordinator through a consumer group handle an admin
client does not have).

Each commit the consumer was told succeeded is kept as an
:class:`~pybroker.testing.chaos_check.OffsetCommit`, each sampled partition as an
:class:`~pybroker.testing.chaos_check.OffsetSample`; ``chaos_check.check_offsets`` judges them
(committed offsets never go backwards, never past the high watermark). Both run from threads
until stopped; a failed commit or sample is counted and skipped.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

from confluent_kafka import Consumer, KafkaError, KafkaException, TopicPartition

from pybroker.testing.chaos_check import OffsetCommit, OffsetSample

Clock = Callable[[], float]


class OffsetWorkload:
    """Group ``group`` reads ``topics`` (``partitions`` each) from the earliest offset and commits
    what it read every ``commit_interval`` seconds; every ``sample_interval`` seconds the
    committed offsets are sampled with the partitions' high watermarks."""

    name = "offsets"

    def __init__(self, bootstrap: str, topics: Sequence[str], partitions: int, *, clock: Clock,
                 group: str = "chaos-offsets", commit_interval: float = 0.3,
                 sample_interval: float = 0.5, timeout: float = 10.0) -> None:
        self.bootstrap = bootstrap
        self.topics = list(topics)
        self.partitions = [TopicPartition(t, p) for t in self.topics for p in range(partitions)]
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

    def _sample(self) -> None:
        sampler = Consumer({"bootstrap.servers": self.bootstrap, "group.id": self.group,
                            "enable.auto.commit": False, "client.id": f"{self.group}-sampler"})
        try:
            while not self._stop.wait(self.sample_interval):
                self._sample_once(sampler)
        finally:
            sampler.close()

    def _sample_once(self, sampler: Consumer) -> None:
        asked = self.clock()
        try:
            answer = sampler.committed(self.partitions, timeout=self.timeout)
        except KafkaException as exc:
            self.sample_errors.append(f"t={asked:.1f}s OffsetFetch: {exc.args[0]}")
            return
        for tp in answer:
            if tp.error is not None:
                self.sample_errors.append(f"t={asked:.1f}s {tp.topic}-{tp.partition}: "
                                          f"{tp.error}")
                continue
            if tp.offset < 0:
                continue  # nothing committed yet
            try:
                _, high = sampler.get_watermark_offsets(
                    TopicPartition(tp.topic, tp.partition), timeout=self.timeout, cached=False)
            except KafkaException as exc:
                self.sample_errors.append(f"t={asked:.1f}s ListOffsets: {exc.args[0]}")
                continue
            self.samples.append(OffsetSample(asked, (tp.topic, tp.partition), tp.offset, high))

    def start(self) -> None:
        for thread in self._threads:
            thread.start()

    def stop(self) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(60)
