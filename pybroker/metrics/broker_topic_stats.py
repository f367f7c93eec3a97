"""Kafka's ``BrokerTopicStats``: the ``kafka.server:type=BrokerTopicMetrics`` meters of every
topic and of all topics together (the series without a ``topic`` tag).

The all-topics meters exist from start-up; a topic's appear with their first event, as
Kafka's lazily created meters do. They are marked once per batch or per partition of a
request, never per record: ``MessagesInPerSec`` by a batch's record count.
"""

from __future__ import annotations

from .registry import Meter, MetricsRegistry, mbean

_TYPE = "BrokerTopicMetrics"

MESSAGES_IN = "MessagesInPerSec"
BYTES_IN = "BytesInPerSec"
BYTES_OUT = "BytesOutPerSec"
BYTES_REJECTED = "BytesRejectedPerSec"
FAILED_PRODUCE = "FailedProduceRequestsPerSec"
FAILED_FETCH = "FailedFetchRequestsPerSec"
TOTAL_PRODUCE = "TotalProduceRequestsPerSec"
TOTAL_FETCH = "TotalFetchRequestsPerSec"
FETCH_CONVERSIONS = "FetchMessageConversionsPerSec"
PRODUCE_CONVERSIONS = "ProduceMessageConversionsPerSec"
NO_KEY_COMPACTED = "NoKeyCompactedTopicRecordsPerSec"
INVALID_MAGIC = "InvalidMagicNumberRecordsPerSec"
INVALID_CRC = "InvalidMessageCrcRecordsPerSec"
INVALID_OFFSET_OR_SEQUENCE = "InvalidOffsetOrSequenceRecordsPerSec"
#: the all-topics-only ones
REPLICATION_BYTES_IN = "ReplicationBytesInPerSec"
REPLICATION_BYTES_OUT = "ReplicationBytesOutPerSec"
REASSIGNMENT_BYTES_IN = "ReassignmentBytesInPerSec"
REASSIGNMENT_BYTES_OUT = "ReassignmentBytesOutPerSec"

#: what every topic (and all topics together) has, in Kafka's order
TOPIC_METERS = (MESSAGES_IN, BYTES_IN, BYTES_OUT, BYTES_REJECTED, FAILED_PRODUCE, FAILED_FETCH,
                TOTAL_PRODUCE, TOTAL_FETCH, FETCH_CONVERSIONS, PRODUCE_CONVERSIONS,
                NO_KEY_COMPACTED, INVALID_MAGIC, INVALID_CRC, INVALID_OFFSET_OR_SEQUENCE)
ALL_TOPICS_ONLY = (REPLICATION_BYTES_IN, REPLICATION_BYTES_OUT, REASSIGNMENT_BYTES_IN,
                   REASSIGNMENT_BYTES_OUT)
#: what a broker that no longer leads any partition of a topic drops of it (Kafka's
#: ``removeOldLeaderMetrics``)
LEADER_METERS = (MESSAGES_IN, BYTES_IN, BYTES_REJECTED, FAILED_PRODUCE, TOTAL_PRODUCE,
                 PRODUCE_CONVERSIONS, NO_KEY_COMPACTED, INVALID_MAGIC, INVALID_CRC,
                 INVALID_OFFSET_OR_SEQUENCE)


class TopicMetrics:
    """The meters of one topic (``topic`` None: of all topics), each made on first use."""

    __slots__ = ("registry", "topic", "_meters")

    def __init__(self, registry: MetricsRegistry, topic: str | None) -> None:
        self.registry = registry
        self.topic = topic
        self._meters: dict[str, Meter] = {}

    def meter(self, name: str) -> Meter:
        m = self._meters.get(name)
        if m is None:
            bean = (mbean("kafka.server", _TYPE, name) if self.topic is None
                    else mbean("kafka.server", _TYPE, name, topic=self.topic))
            m = self._meters[name] = self.registry.meter(bean)
        return m

    def mark(self, name: str, n: int = 1) -> None:
        self.meter(name).count += n

    def remove(self, names: tuple[str, ...]) -> None:
        for name in names:
            m = self._meters.pop(name, None)
            if m is not None and self.topic is not None:
                self.registry.remove(mbean("kafka.server", _TYPE, name, topic=self.topic))


class BrokerTopicStats:
    """Every topic's :class:`TopicMetrics` and all topics' (``all``)."""

    def __init__(self, registry: MetricsRegistry | None = None) -> None:
        self.registry = registry if registry is not None else MetricsRegistry()
        self.all = TopicMetrics(self.registry, None)
        for name in (*TOPIC_METERS, *ALL_TOPICS_ONLY):
            self.all.meter(name)  # Kafka makes the all-topics meters at start-up
        self._topics: dict[str, TopicMetrics] = {}

    def topic(self, topic: str) -> TopicMetrics:
        stats = self._topics.get(topic)
        if stats is None:
            stats = self._topics[topic] = TopicMetrics(self.registry, topic)
        return stats

    def mark(self, topic: str, name: str, n: int = 1) -> None:
        """Mark ``name`` of ``topic`` and of all topics (one call per batch or request: the
        meters are looked up in place, made only the first time)."""
        stats = self._topics.get(topic)
        if stats is None:
            stats = self.topic(topic)
        meter = stats._meters.get(name)
        if meter is None:
            meter = stats.meter(name)
        meter.count += n
        meter = self.all._meters.get(name)
        if meter is None:
            meter = self.all.meter(name)
        meter.count += n

    def mark_produced(self, topic: str, nbytes: int, messages: int) -> None:
        """A batch appended: TotalProduceRequestsPerSec, BytesInPerSec and MessagesInPerSec of
        ``topic`` and of all topics, in one call (the produce path's three marks, unrolled:
        this runs for every batch)."""
        stats = self._topics.get(topic)
        if stats is None:
            stats = self.topic(topic)
        meters = stats._meters
        if MESSAGES_IN not in meters or BYTES_IN not in meters or TOTAL_PRODUCE not in meters:
            for name in (TOTAL_PRODUCE, BYTES_IN, MESSAGES_IN):
                stats.meter(name)
        meters[TOTAL_PRODUCE].count += 1
        meters[BYTES_IN].count += nbytes
        meters[MESSAGES_IN].count += messages
        meters = self.all._meters  # made at start-up
        meters[TOTAL_PRODUCE].count += 1
        meters[BYTES_IN].count += nbytes
        meters[MESSAGES_IN].count += messages

    def remove_topic(self, topic: str) -> None:
        """The topic was deleted (or this broker no longer hosts it): its series go."""
        stats = self._topics.pop(topic, None)
        if stats is not None:
            stats.remove(TOPIC_METERS)

    def remove_old_leader_metrics(self, topic: str) -> None:
        """This broker no longer leads any partition of ``topic``: what only a leader counts
        restarts from nothing when it leads one again."""
        stats = self._topics.get(topic)
        if stats is not None:
            stats.remove(LEADER_METERS)
