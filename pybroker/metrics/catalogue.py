"""Every metric the broker serves, with its Kafka MBean and what it means: the source of
docs/metrics.md (``make gen``), and what the metrics tests hold the endpoint to (every series
it serves is named here, and everything named here is served).

An entry is an MBean type and name with the tag keys of each form it takes (the
BrokerTopicMetrics meters are served for all topics, with no tags, and per topic); its Prometheus
names are not written here but rendered by the same rules the endpoint uses
(:func:`prometheus_names`), so the document cannot drift from what is served.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from .broker_topic_stats import ALL_TOPICS_ONLY, TOPIC_METERS
from .exposition import families
from .jmx_rules import RuleSet
from .registry import QUANTILES, MBean, Sample

METER, HISTOGRAM, TIMER, GAUGE, ATTRIBUTES = "meter", "histogram", "timer", "gauge", "attributes"
EXPORTED_GAUGE, EXPORTED_COUNTER = "exported-gauge", "exported-counter"


@dataclass(frozen=True, slots=True)
class Documented:
    """One metric: ``forms`` are the tag keys of each form it is served in, ``attributes``
    an attribute group's metric names; an exported family has ``domain`` "" and its series
    name as ``name``, its label keys as its one form."""

    domain: str
    type: str
    name: str
    kind: str
    meaning: str
    forms: tuple[tuple[str, ...], ...] = ((),)
    attributes: tuple[str, ...] = ()
    #: when the series appear, if not on every broker from start-up or first use (the
    #: metrics tests of a single node leave these out)
    when: str = ""

    @property
    def mbean_pattern(self) -> str:
        """The MBean as Kafka's docs write it: ``kafka.server:type=T,name=N,topic=<topic>``."""
        if not self.domain:
            return ""
        keys = [f"type={self.type}", *([f"name={self.name}"] if self.name else [])]
        return ",".join([f"{self.domain}:" + keys[0], *keys[1:],
                         *(f"{k}=<{k}>" for k in self.forms[-1])])


@dataclass(frozen=True, slots=True)
class Section:
    title: str
    intro: str
    metrics: tuple[Documented, ...]


def _m(domain: str, type_: str, name: str, kind: str, meaning: str,
       *forms: tuple[str, ...], attributes: tuple[str, ...] = (), when: str = "") -> Documented:
    return Documented(domain, type_, name, kind, meaning, forms or ((),), attributes, when)


_TOPIC = ((), ("topic",))
_BTM_MEANINGS = {
    "MessagesInPerSec": "Records appended as leader (counted per batch, from its offsets).",
    "BytesInPerSec": "Bytes of record batches appended as leader from producers.",
    "BytesOutPerSec": "Bytes of record batches sent to consumers and followers.",
    "BytesRejectedPerSec": "Bytes of produced batches the broker refused (too large, corrupt, "
                           "invalid).",
    "FailedProduceRequestsPerSec": "Partitions of Produce requests that failed (Kafka's "
                                   "exclusions apply: not leader, unknown partition...).",
    "FailedFetchRequestsPerSec": "Partitions of Fetch requests that failed.",
    "TotalProduceRequestsPerSec": "Partitions of Produce requests, failed or not.",
    "TotalFetchRequestsPerSec": "Partitions of Fetch requests, failed or not.",
    "FetchMessageConversionsPerSec": "Records converted to an older format for a fetch: "
                                     "served, not counted (0; see compatibility.md).",
    "ProduceMessageConversionsPerSec": "Records converted to the current format on produce: "
                                       "served, not counted (0; see compatibility.md).",
    "NoKeyCompactedTopicRecordsPerSec": "Keyless records refused by a compacted topic.",
    "InvalidMagicNumberRecordsPerSec": "Records refused for a bad magic byte.",
    "InvalidMessageCrcRecordsPerSec": "Records refused for a bad CRC.",
    "InvalidOffsetOrSequenceRecordsPerSec": "Records refused for non-monotonic offsets or "
                                            "sequence numbers.",
    "ReplicationBytesInPerSec": "Bytes this broker's replica fetchers appended as follower.",
    "ReplicationBytesOutPerSec": "Bytes sent to followers' fetchers.",
    "ReassignmentBytesInPerSec": "Bytes fetched for reassignments (counted with replication "
                                 "here: 0).",
    "ReassignmentBytesOutPerSec": "Bytes sent for reassignments (counted with replication "
                                  "here: 0).",
}

_REQUEST_TIMES = {
    "RequestQueueTimeMs": "From the request's arrival until its handler started.",
    "LocalTimeMs": "The handler's own work.",
    "RemoteTimeMs": "The wait in purgatory: for the ISR, for fetch data, for the group.",
    "ThrottleTimeMs": "The throttle time the response carries.",
    "ResponseQueueTimeMs": "From the response being ready until the connection took it.",
    "ResponseSendTimeMs": "Writing the response to the socket.",
    "TotalTimeMs": "From arrival until the response was sent.",
    "RequestBytes": "The request's size in bytes.",
    "MessageConversionsTimeMs": "Time converting records (Produce and Fetch): not measured, 0.",
    "TemporaryMemoryBytes": "Memory taken for conversions (Produce and Fetch): not measured, 0.",
}

_CONTROLLER_STATES = (
    ("ControllerChangeRateAndTimeMs", "Elections of this broker as controller, and their time."),
    ("TopicChangeRateAndTimeMs", "Topic creations handled, and their time."),
    ("TopicDeletionRateAndTimeMs", "Topic deletions handled, and their time."),
    ("PartitionReassignmentRateAndTimeMs", "Reassignments handled, and their time."),
    ("AutoLeaderBalanceRateAndTimeMs", "Automatic preferred-leader balancing, and its time."),
    ("ManualLeaderBalanceRateAndTimeMs", "Requested leader elections, and their time."),
    ("ControlledShutdownRateAndTimeMs", "Controlled shutdowns handled, and their time."),
    ("IsrChangeRateAndTimeMs", "ISR change notifications handled, and their time."),
    ("LeaderElectionRateAndTimeMs", "Partition leader elections, and their time."),
    ("UncleanLeaderElectionEnableRateAndTimeMs", "Unclean election enabled, and its time."),
    ("TopicUncleanLeaderElectionEnableRateAndTimeMs",
     "Unclean election enabled for a topic, and its time."),
    ("ListPartitionReassignmentRateAndTimeMs", "ListPartitionReassignments, and its time."),
    ("LogDirChangeRateAndTimeMs", "Log directory failures handled, and their time."),
    ("UpdateFeaturesRateAndTimeMs", "UpdateFeatures handled, and its time."),
    ("LeaderAndIsrResponseReceivedRateAndTimeMs",
     "LeaderAndIsr responses received, and their handling time."),
    ("UpdateMetadataResponseReceivedRateAndTimeMs",
     "UpdateMetadata responses received, and their handling time."),
    ("ControllerShutdownRateAndTimeMs", "The controller's resignation, and its time."),
)

SECTIONS: tuple[Section, ...] = (
    Section("Broker",
            "The broker itself (`kafka.server:type=KafkaServer`), the controller it knows of "
            "and its incremental fetch sessions (KIP-227).",
            (_m("kafka.server", "KafkaServer", "BrokerState", GAUGE,
                "Kafka's BrokerState: 1 starting, 3 running (serving its listeners), 7 "
                "shutting down."),
             _m("kafka.server", "KafkaServer", "linux-disk-read-bytes", GAUGE,
                "Bytes the broker process read from disk (/proc/self/io read_bytes)."),
             _m("kafka.server", "KafkaServer", "linux-disk-write-bytes", GAUGE,
                "Bytes the broker process wrote to disk (/proc/self/io write_bytes)."),
             _m("kafka.server", "KafkaServer", "yammer-metrics-count", GAUGE,
                "How many MBeans the broker serves (its metrics registry's size)."),
             _m("kafka.server", "MetadataLoader", "CurrentControllerId", GAUGE,
                "The controller this broker knows of (-1: none yet)."),
             _m("kafka.server", "FetchSessionCache", "NumIncrementalFetchSessions", GAUGE,
                "Incremental fetch sessions cached."),
             _m("kafka.server", "FetchSessionCache", "NumIncrementalFetchPartitionsCached",
                GAUGE, "Partitions those sessions hold."),
             _m("kafka.server", "FetchSessionCache", "IncrementalFetchSessionEvictionsPerSec",
                METER, "Sessions evicted to make room for new ones."))),
    Section("Broker topic metrics",
            "Meters of `kafka.server:type=BrokerTopicMetrics`: for all topics (no `topic` "
            "label) and per topic, a topic's from its first event. The replication and "
            "reassignment meters exist for all topics only.",
            tuple(_m("kafka.server", "BrokerTopicMetrics", name, METER, _BTM_MEANINGS[name],
                     *(((),) if name in ALL_TOPICS_ONLY else _TOPIC))
                  for name in (*TOPIC_METERS, *ALL_TOPICS_ONLY))),
    Section("Request metrics",
            "Per API key (`request`), as `kafka.network:type=RequestMetrics`. A Fetch is "
            "counted under `Fetch` and under `FetchConsumer` or `FetchFollower`; a "
            "verification-only AddPartitionsToTxn under `AddPartitionsToTxnVerification`. "
            "Histograms serve Kafka's percentiles as `quantile` labels.",
            (_m("kafka.network", "RequestMetrics", "RequestsPerSec", METER,
                "Requests received, per API and version.", ("request", "version")),
             _m("kafka.network", "RequestMetrics", "ErrorsPerSec", METER,
                "Error codes in responses, per API and code (`NONE` included), counted per "
                "occurrence in the response.", ("request", "error")),
             *(_m("kafka.network", "RequestMetrics", name, HISTOGRAM, meaning, ("request",))
               for name, meaning in _REQUEST_TIMES.items()))),
    Section("Network",
            "The listeners and the event loop. A Kafka broker's network and request-handler "
            "threads are one asyncio loop here: their idle ratio is the share of the wall "
            "time the loop's thread did not run (its CPU clock; Kafka's processors count "
            "their wait in select).",
            (_m("kafka.network", "SocketServer", "NetworkProcessorAvgIdlePercent", GAUGE,
                "The event loop's idle share (0 to 1) over the last interval."),
             _m("kafka.network", "Processor", "IdlePercent", GAUGE,
                "The same, as the one network processor's.", ("networkProcessor",)),
             _m("kafka.server", "KafkaRequestHandlerPool", "RequestHandlerAvgIdlePercent",
                ATTRIBUTES, "The same, as the request handlers' idle meter: `Count` the "
                "nanoseconds idle, `MeanRate` the idle share since start.",
                attributes=("Count", "MeanRate")),
             _m("kafka.server", "socket-server-metrics", "", ATTRIBUTES,
                "Per listener: open connections, connections created and closed, bytes "
                "read and written, requests and responses (totals and per-second rates), and "
                "the request size's average and maximum over the last minute (Kafka's two "
                "30 s samples; NaN with no request).", ("listener", "networkProcessor"),
                attributes=("connection-count", "connection-creation-total",
                            "connection-creation-rate", "connection-close-total",
                            "connection-close-rate", "incoming-byte-total",
                            "incoming-byte-rate", "outgoing-byte-total", "outgoing-byte-rate",
                            "request-total", "request-rate", "response-total",
                            "response-rate", "request-size-avg", "request-size-max")),
             _m("kafka.server", "socket-server-metrics", "", ATTRIBUTES,
                "Open connections per listener by the client software their ApiVersions "
                "named (KIP-511; `unknown` before it); a software seen once keeps its series.",
                ("clientSoftwareName", "clientSoftwareVersion", "listener", "networkProcessor"),
                attributes=("connections",)),
             _m("kafka.network", "Acceptor", "AcceptorBlockedPercent", METER,
                "Nanoseconds a listener's acceptor was blocked by connection quotas: 0, as no "
                "quota (max.connections) blocks it here.", ("listener",)),
             _m("kafka.network", "SocketServer", "ExpiredConnectionsKilledCount", GAUGE,
                "Connections closed because their SASL session expired without "
                "re-authentication (KIP-368, connections.max.reauth.ms)."),
             _m("kafka.network", "SocketServer", "MemoryPoolAvailable", GAUGE,
                "Bytes the request memory pool has free: as Kafka's with "
                "queued.max.request.bytes -1 (no pool), the largest long."),
             _m("kafka.network", "SocketServer", "MemoryPoolUsed", GAUGE,
                "Bytes of the request memory pool in use: 0, as Kafka's without a pool."),
             _m("kafka.network", "SocketServer", "ControlPlaneNetworkProcessorAvgIdlePercent",
                GAUGE, "NaN: there is no control-plane listener (control.plane.listener.name), "
                "as on a Kafka broker without one."),
             _m("kafka.network", "SocketServer", "ControlPlaneExpiredConnectionsKilledCount",
                GAUGE, "0: there is no control-plane listener."))),
    Section("Replica manager",
            "The partitions this broker hosts, `kafka.server:type=ReplicaManager`, and the "
            "purgatories that hold produce and fetch requests.",
            (_m("kafka.server", "ReplicaManager", "PartitionCount", GAUGE,
                "Partitions hosted (leader or follower)."),
             _m("kafka.server", "ReplicaManager", "LeaderCount", GAUGE,
                "Partitions this broker leads."),
             _m("kafka.server", "ReplicaManager", "UnderReplicatedPartitions", GAUGE,
                "Led partitions whose ISR is smaller than their replica set. Alert when > 0."),
             _m("kafka.server", "ReplicaManager", "UnderMinIsrPartitionCount", GAUGE,
                "Led partitions whose ISR is below min.insync.replicas: acks=all produce "
                "fails. Alert when > 0."),
             _m("kafka.server", "ReplicaManager", "AtMinIsrPartitionCount", GAUGE,
                "Led partitions whose ISR is exactly min.insync.replicas."),
             _m("kafka.server", "ReplicaManager", "OfflineReplicaCount", GAUGE,
                "Hosted replicas on an offline log directory."),
             _m("kafka.server", "ReplicaManager", "ReassigningPartitions", GAUGE,
                "Led partitions a reassignment is adding replicas to or removing from."),
             _m("kafka.server", "ReplicaManager", "PartitionsWithLateTransactionsCount", GAUGE,
                "Hosted partitions with a transaction open longer than "
                "transaction.max.timeout.ms and five minutes (KIP-664)."),
             _m("kafka.server", "ReplicaManager", "ProducerIdCount", GAUGE,
                "Producer ids kept by the hosted partitions' producer state."),
             _m("kafka.server", "ReplicaManager", "IsrShrinksPerSec", METER,
                "ISR shrinks of led partitions."),
             _m("kafka.server", "ReplicaManager", "IsrExpandsPerSec", METER,
                "ISR expansions of led partitions."),
             _m("kafka.server", "ReplicaManager", "FailedIsrUpdatesPerSec", METER,
                "ISR updates the controller (ZooKeeper) refused."),
             _m("kafka.server", "DelayedOperationPurgatory", "PurgatorySize", GAUGE,
                "Requests watched in a purgatory (Produce, Fetch, ...).",
                ("delayedOperation",)),
             _m("kafka.server", "DelayedOperationPurgatory", "NumDelayedOperations", GAUGE,
                "Delayed operations not yet completed in a purgatory.",
                ("delayedOperation",)),
             _m("kafka.server", "ReplicaFetcherManager", "MaxLag", GAUGE,
                "The largest lag, in records, of this broker's follower replicas.",
                ("clientId",)),
             _m("kafka.server", "ReplicaFetcherManager", "MinFetchRate", GAUGE,
                "The lowest fetch rate (per second, one-minute) of this broker's replica "
                "fetchers.", ("clientId",)),
             _m("kafka.server", "ReplicaFetcherManager", "FailedPartitionsCount", GAUGE,
                "Followed partitions a replica fetcher gave up on (an error it cannot retry), "
                "until they are followed anew.", ("clientId",)),
             _m("kafka.server", "ReplicaFetcherManager", "DeadThreadCount", GAUGE,
                "Replica fetchers whose task ended while they were to run.", ("clientId",)),
             _m("kafka.server", "FetcherLagMetrics", "ConsumerLag", GAUGE,
                "Per followed partition: how many records the follower is behind its "
                "leader.", ("clientId", "topic", "partition"),
                when="on a broker that follows a partition"))),
    Section("Partitions",
            "Per partition this broker leads (`kafka.cluster:type=Partition`).",
            (_m("kafka.cluster", "Partition", "UnderReplicated", GAUGE,
                "1 if the ISR is smaller than the replica set.", ("topic", "partition")),
             _m("kafka.cluster", "Partition", "UnderMinIsr", GAUGE,
                "1 if the ISR is below min.insync.replicas.", ("topic", "partition")),
             _m("kafka.cluster", "Partition", "AtMinIsr", GAUGE,
                "1 if the ISR is exactly min.insync.replicas.", ("topic", "partition")),
             _m("kafka.cluster", "Partition", "InSyncReplicasCount", GAUGE,
                "The ISR's size.", ("topic", "partition")),
             _m("kafka.cluster", "Partition", "ReplicasCount", GAUGE,
                "The replica set's size.", ("topic", "partition")),
             _m("kafka.cluster", "Partition", "LastStableOffsetLag", GAUGE,
                "High watermark minus last stable offset: how far open transactions hold "
                "read_committed consumers back.", ("topic", "partition")))),
    Section("Log",
            "Per hosted partition's log (`kafka.log:type=Log`), the log directories, flushes "
            "and the log cleaner.",
            (_m("kafka.log", "Log", "Size", GAUGE, "Bytes of the log's segments.",
                ("topic", "partition")),
             _m("kafka.log", "Log", "NumLogSegments", GAUGE, "Segments of the log.",
                ("topic", "partition")),
             _m("kafka.log", "Log", "LogStartOffset", GAUGE, "The log start offset.",
                ("topic", "partition")),
             _m("kafka.log", "Log", "LogEndOffset", GAUGE, "The log end offset.",
                ("topic", "partition")),
             _m("kafka.log", "LogFlushStats", "LogFlushRateAndTimeMs", TIMER,
                "Log flushes (fsync of a log's dirty segments) and their time."),
             _m("kafka.log", "LogManager", "OfflineLogDirectoryCount", GAUGE,
                "Log directories taken offline after an I/O error. Alert when > 0."),
             _m("kafka.log", "LogManager", "LogDirectoryOffline", GAUGE,
                "1 if the log directory is offline.", ("logDirectory",)),
             _m("kafka.log", "LogCleaner", "max-clean-time-secs", GAUGE,
                "Seconds the cleaner's last run took."),
             _m("kafka.log", "LogCleaner", "max-buffer-utilization-percent", GAUGE,
                "How full the cleaner's offset map got on its last run, in percent."),
             _m("kafka.log", "LogCleaner", "cleaner-recopy-percent", GAUGE,
                "The share of the bytes read that the last run wrote again, in percent."),
             _m("kafka.log", "LogCleaner", "DeadThreadCount", GAUGE,
                "Cleaner threads that died (0 or 1)."),
             _m("kafka.log", "LogCleaner", "max-compaction-delay-secs", GAUGE,
                "How far past max.compaction.lag.ms the most overdue compacted log's oldest "
                "dirty batch was when the cleaner last chose a log, in seconds."),
             _m("kafka.log", "LogCleanerManager", "max-dirty-percent", GAUGE,
                "The dirtiest compacted log's dirty ratio at the last run, in percent."),
             _m("kafka.log", "LogCleanerManager", "time-since-last-run-ms", GAUGE,
                "Milliseconds since the cleaner last ran."),
             _m("kafka.log", "LogCleanerManager", "uncleanable-partitions-count", GAUGE,
                "Partitions the cleaner gave up on, per log directory.", ("logDirectory",)),
             _m("kafka.log", "LogCleanerManager", "uncleanable-bytes", GAUGE,
                "Bytes of those partitions, per log directory.", ("logDirectory",)))),
    Section("Controller",
            "`kafka.controller`: on the active controller only (0 on the others), except the "
            "event manager's and the controller state's. "
            "`sum(kafka_controller_kafkacontroller_activecontrollercount)` is 1 in a healthy "
            "cluster.",
            (_m("kafka.controller", "KafkaController", "ActiveControllerCount", GAUGE,
                "1 on the active controller, 0 elsewhere. Alert when the sum is not 1."),
             _m("kafka.controller", "KafkaController", "OfflinePartitionsCount", GAUGE,
                "Partitions without a leader. Alert when > 0."),
             _m("kafka.controller", "KafkaController", "GlobalTopicCount", GAUGE,
                "Topics in the cluster."),
             _m("kafka.controller", "KafkaController", "GlobalPartitionCount", GAUGE,
                "Partitions in the cluster."),
             _m("kafka.controller", "KafkaController", "ActiveBrokerCount", GAUGE,
                "Live brokers."),
             _m("kafka.controller", "KafkaController", "PreferredReplicaImbalanceCount", GAUGE,
                "Partitions not led by their preferred replica."),
             _m("kafka.controller", "KafkaController", "TopicsToDeleteCount", GAUGE,
                "Topics queued for deletion."),
             _m("kafka.controller", "KafkaController", "ReplicasToDeleteCount", GAUGE,
                "Replicas queued for deletion."),
             _m("kafka.controller", "KafkaController", "TopicsIneligibleToDeleteCount", GAUGE,
                "Topics whose deletion waits (a replica is offline)."),
             _m("kafka.controller", "KafkaController", "ReplicasIneligibleToDeleteCount", GAUGE,
                "Replicas whose deletion waits."),
             _m("kafka.controller", "KafkaController", "FencedBrokerCount", GAUGE,
                "Fenced brokers: 0, as a ZooKeeper-mode controller's (fencing is KRaft's)."),
             _m("kafka.controller", "KafkaController", "ZkMigrationState", GAUGE,
                "4 (ZK): a ZooKeeper-mode cluster not migrating to KRaft, on every broker."),
             _m("kafka.controller", "ControllerChannelManager", "TotalQueueSize", GAUGE,
                "Requests the controller has queued for all brokers (not yet sent)."),
             _m("kafka.controller", "ControllerChannelManager", "QueueSize", GAUGE,
                "Requests the controller has queued for one broker.", ("broker-id",)),
             _m("kafka.controller", "ControllerChannelManager", "RequestRateAndQueueTimeMs",
                TIMER, "The controller's requests to one broker, and how long each waited in "
                "its queue.", ("broker-id",)),
             _m("kafka.controller", "KafkaController", "ControllerState", GAUGE,
                "The event the controller is handling, by Kafka's state number (0: idle)."),
             _m("kafka.controller", "ControllerEventManager", "EventQueueSize", GAUGE,
                "Controller events waiting."),
             _m("kafka.controller", "ControllerEventManager", "EventQueueTimeMs", HISTOGRAM,
                "How long events waited before the controller handled them."),
             _m("kafka.controller", "ControllerStats", "UncleanLeaderElectionsPerSec", METER,
                "Leaders elected outside the ISR. Alert when it rises."),
             *(_m("kafka.controller", "ControllerStats", name, TIMER, meaning)
               for name, meaning in _CONTROLLER_STATES))),
    Section("Group coordinator",
            "The groups and offsets this broker coordinates.",
            (_m("kafka.server", "GroupMetadataManager", "NumGroups", GAUGE, "Groups."),
             *(_m("kafka.server", "GroupMetadataManager", f"NumGroups{state}", GAUGE,
                  f"Groups in state {state}.")
               for state in ("PreparingRebalance", "CompletingRebalance", "Stable", "Dead",
                             "Empty")),
             _m("kafka.server", "GroupMetadataManager", "NumOffsets", GAUGE,
                "Committed offsets held."),
             _m("kafka.server", "group-coordinator-metrics", "", ATTRIBUTES,
                "Offset commits (count and rate) and rebalances completed. The JMX exporter's "
                "rules serve none of these attributes, so they are also served as named "
                "below.",
                attributes=("offset-commit-count", "offset-commit-rate",
                            "group-completed-rebalance-count")),
             _m("", "exported", "kafka_server_group_coordinator_metrics_offset_commit_count",
                EXPORTED_COUNTER, "Offsets committed (offset-commit-count)."),
             _m("", "exported",
                "kafka_server_group_coordinator_metrics_group_completed_rebalance_count",
                EXPORTED_COUNTER, "Rebalances whose join phase completed "
                "(group-completed-rebalance-count)."),
             _m("", "exported", "kafka_server_group_coordinator_metrics_group_count",
                EXPORTED_GAUGE, "Groups by protocol, classic or consumer (Kafka 4's "
                "group-count).", ("protocol",)),
             _m("", "exported", "kafka_server_group_coordinator_metrics_consumer_group_count",
                EXPORTED_GAUGE, "KIP-848 consumer groups by state: empty, assigning, "
                "reconciling, stable, dead (Kafka 4's consumer-group-count).", ("state",)),
             _m("", "exported", "kafka_consumergroup_current_offset", EXPORTED_GAUGE,
                "A group's committed offset per partition, as kafka-exporter names it.",
                ("consumergroup", "topic", "partition")),
             _m("", "exported", "kafka_consumergroup_lag", EXPORTED_GAUGE,
                "High watermark minus the committed offset: the records a group has not "
                "read, as kafka-exporter names it.", ("consumergroup", "topic", "partition")),
             _m("", "exported", "kafka_topic_partition_current_offset", EXPORTED_GAUGE,
                "A led partition's high watermark, as kafka-exporter names it.",
                ("topic", "partition")))),
    Section("Client quotas",
            "A bucket per (user, client id) a quota applies to (KIP-13, KIP-55), once some "
            "quota exists: every client's requests are then measured. Kafka's metrics library "
            "leaves out an empty tag, so a client-id quota's series has no `user`; Strimzi's "
            "rules serve none of these, pybroker's quota rules (`QUOTA_RULES`) serve them.",
            tuple(_m("kafka.server", group, "", ATTRIBUTES, meaning,
                     ("client-id",), ("user",), ("user", "client-id"),
                     attributes=(rate, "throttle-time"),
                     when="once a quota of some user or client id exists")
                  for group, rate, meaning in (
                      ("Produce", "byte-rate", "Bytes produced per second, over the quota's "
                       "sample windows (at least ten of them), and the mean throttle time of the "
                       "last minute's throttled responses (NaN with none)."),
                      ("Fetch", "byte-rate", "Bytes fetched by consumers per second, and the "
                       "mean throttle time."),
                      ("Request", "request-time", "The share of a second (in percent) the "
                       "broker spent on the client's requests, and the mean throttle time."),
                      ("ControllerMutation", "mutation-rate", "Partitions created or deleted "
                       "per second, and the mean throttle time.")))),
    Section("Transaction coordinator",
            "The transactions this broker coordinates.",
            (_m("kafka.coordinator.transaction", "TransactionMarkerChannelManager",
                "UnknownDestinationQueueSize", GAUGE,
                "Transaction markers waiting for their partition's leader to be known."),
             _m("kafka.coordinator.transaction", "TransactionMarkerChannelManager",
                "LogAppendRetryQueueSize", GAUGE,
                "Transaction completions waiting to be written again."),
             _m("", "exported", "pybroker_transaction_coordinator_transactions",
                EXPORTED_GAUGE, "Transactions by state (open ones: Ongoing, "
                "PrepareCommit, PrepareAbort...); Kafka has no MBean for them.",
                ("state",)))),
)


_RULES = RuleSet()


def documented() -> Iterator[Documented]:
    for section in SECTIONS:
        yield from section.metrics


def _samples(doc: Documented, tags: tuple[str, ...]) -> Sample:
    bean = MBean(doc.domain, doc.type, doc.name, tuple((k, f"<{k}>") for k in tags))
    if doc.kind in (EXPORTED_GAUGE, EXPORTED_COUNTER):
        return Sample(bean, doc.kind, 0.0, series=((tuple((k, f"<{k}>") for k in tags), 0.0),))
    if doc.kind == ATTRIBUTES:
        return Sample(bean, doc.kind, 0.0, attributes=tuple((a, 0.0) for a in doc.attributes))
    rates = (0.0, 0.0, 0.0, 0.0) if doc.kind in (METER, TIMER) else None
    quantiles = tuple((q, 0.0) for q in QUANTILES) if doc.kind in (HISTOGRAM, TIMER) else ()
    stats = (0.0, 0.0, 0.0) if doc.kind in (HISTOGRAM, TIMER) else None
    return Sample(bean, doc.kind, 0.0, rates=rates, quantiles=quantiles, stats=stats)


def prometheus_names(doc: Documented, rules: RuleSet | None = None
                     ) -> dict[str, set[tuple[str, ...]]]:
    """The series names the endpoint serves the metric as, each with its label key sets."""
    rules = rules or _RULES
    out: dict[str, set[tuple[str, ...]]] = {}
    for form in doc.forms:
        for family in families([_samples(doc, form)], rules):
            for sample in family.samples:
                out.setdefault(sample.name, set()).add(tuple(sorted(sample.labels)))
    return out
