"""Differential tests of the admin APIs: configs, partitions, deletions, cluster and versions.

Each scenario runs against pybroker and against Apache Kafka 3.9 (see differ.py); the answers
must agree field by field except where KNOWN (below) says why not.
"""

from __future__ import annotations

import time
import uuid
from pathlib import Path

from protocol import messages
from protocol.errors import ErrorCode
from protocol.messages import (
    alter_configs_request as ac,
    alter_replica_log_dirs_request as arl,
    api_versions_request as av,
    create_partitions_request as cp,
    delete_records_request as dr,
    delete_topics_request as dt,
    describe_cluster_request as dc,
    describe_configs_request as dcf,
    describe_log_dirs_request as dld,
    incremental_alter_configs_request as iac,
    init_producer_id_request as ipi,
)
from pybroker.api.registry import load_handlers
from tests.compat.differential import requests as rq
from tests.compat.differential.differ import Known, Recorder
from tests.compat.differential.steps import create_topic as create, wait_for_leaders, wait_until

TOPIC, BROKER, BROKER_LOGGER = 2, 4, 8
ALTER_REPLICA_LOG_DIRS, DESCRIBE_LOG_DIRS = 34, 35
UNKNOWN_TOPIC_ID = uuid.UUID("5b6c1f3e-0000-4000-8000-00000000d1ff")
SET, DELETE, APPEND, SUBTRACT = 0, 1, 2, 3

#: APIs Apache Kafka 3.9 (ZooKeeper mode) lists in ApiVersions that pybroker does not serve
NOT_SERVED: dict[str, str] = {
    **dict.fromkeys(
        ("AddPartitionsToTxn", "AddOffsetsToTxn", "EndTxn", "WriteTxnMarkers",
         "DescribeTransactions", "ListTransactions"),
        "Transactions: pybroker runs no transaction coordinator (idempotent producers only; "
        "InitProducerId with a transactional id is COORDINATOR_NOT_AVAILABLE)."),
    "TxnOffsetCommit": "Transactional offset commits (KIP-98, KIP-447): the group coordinator "
                       "keeps no offsets pending on a transaction.",
    **dict.fromkeys(
        ("LeaderAndIsr", "StopReplica", "UpdateMetadata", "ControlledShutdown"),
        "ZooKeeper-mode controller/broker APIs: pybroker's controller is embedded in its only "
        "broker and tells it about leadership in-process."),
    **dict.fromkeys(
        ("AlterPartition", "AllocateProducerIds", "Envelope"),
        "Broker-to-controller APIs (ISR changes, producer-id blocks, request forwarding): "
        "pybroker's embedded controller is called in-process."),
}

#: APIs pybroker serves over fewer versions than Kafka 3.9: Kafka's range, and why
NARROWER: dict[str, tuple[int, int, str]] = {
    "FindCoordinator": (0, 6, "v5 only adds TRANSACTION_ABORTABLE (KIP-890, transactions) and v6 "
                              "share groups (KIP-932); pybroker has neither."),
}


def _api_versions_known() -> list[Known]:
    """Computed from the handlers this build registers, so that an API that becomes served (or
    a range that widens) drops its entry; run make compat-doc afterwards."""
    served = {h.name: (h.min_version, h.max_version) for h in load_handlers().values()}
    known = [Known("api_versions", "api versions v*", f"api_keys{{{name}}}", reason)
             for name, reason in NOT_SERVED.items() if name not in served]
    known += [Known("api_versions", "api versions v*", f"api_keys{{{name}}}.*_version",
                    f"Kafka serves v{lo}-{hi}: {reason}")
              for name, (lo, hi, reason) in NARROWER.items()
              if name in served and served[name] != (lo, hi)]
    known += [Known("api_versions", "api versions v*", f"api_keys{{{name}}}.max_version",
                    "pybroker serves the KIP-848 consumer group protocol at Kafka 4.1's "
                    "versions, 0-1 (v1: regex subscriptions, member types); Kafka 3.9 lists v0, "
                    "which it answers UNSUPPORTED_VERSION in ZooKeeper mode.")
              for name in ("ConsumerGroupHeartbeat", "ConsumerGroupDescribe")]
    known.append(Known("api_versions", "api versions v*", "api_keys{ListConfigResources}",
                       "pybroker serves Kafka 4.1's ListConfigResources v0-1 (KIP-1142, 3.9's "
                       "ListClientMetricsResources, which 3.9 serves in KRaft mode only): "
                       "Kafka 4.1's kafka-configs asks it whether a group has group configs."))
    return known


#: the differences from Apache Kafka these scenarios show, each with its reason
KNOWN: list[Known] = [
    Known("describe_configs", "documentation v*", "results{T}.configs{*}.documentation",
          "pybroker does not carry Kafka's configuration documentation text: the field is null "
          "(the protocol allows it), so tools show no description."),
    Known("describe_configs", "broker 0 v*", "results{0}.configs{broker.id}.synonyms[*].value",
          "The default broker.id is 0 in pybroker (a single node) and -1 in Kafka (generate an "
          "id); both brokers here set it to 0."),
    Known("broker_dynamic_configs", "*", "results{0}.configs{broker.id}.synonyms[*].value",
          "The default broker.id is 0 in pybroker (a single node) and -1 in Kafka (generate an "
          "id); both brokers here set it to 0."),
    Known("broker_dynamic_configs", "refused: append to an unknown config",
          "responses{0}.error_*",
          "APPEND to a name Kafka does not know is INVALID_CONFIG \"Unknown config name\", the "
          "answer Kafka's code means to give; Kafka 3.9 fails on it internally "
          "(UNKNOWN_SERVER_ERROR, no message)."),
    Known("incremental_alter_configs", "invalid operation", "responses{T}.error_*",
          "An unknown operation (not SET, DELETE, APPEND, SUBTRACT) is INVALID_REQUEST with a "
          "message; Kafka 3.9 fails on it internally (UNKNOWN_SERVER_ERROR, no message)."),
    Known("incremental_alter_configs", "append to an unknown config", "responses{T}.error_*",
          "APPEND to a name that is not a topic config is INVALID_CONFIG \"Unknown topic config "
          "name\", as SET is; Kafka 3.9 fails on it internally (UNKNOWN_SERVER_ERROR, no "
          "message)."),
    *_api_versions_known(),
]


# -- helpers -----------------------------------------------------------------------------------


def describe(*resources: tuple[int, str, list[str] | None], synonyms: bool = False,
             documentation: bool = False) -> dcf.DescribeConfigsRequest:
    return dcf.DescribeConfigsRequest(
        resources=[dcf.DescribeConfigsResource(resource_type=t, resource_name=n,
                                               configuration_keys=keys)
                   for t, n, keys in resources],
        include_synonyms=synonyms, include_documentation=documentation)


def alter(name: str, configs: dict[str, str | None], *, resource_type: int = TOPIC,
          validate_only: bool = False) -> ac.AlterConfigsRequest:
    return ac.AlterConfigsRequest(
        resources=[ac.AlterConfigsResource(
            resource_type=resource_type, resource_name=name,
            configs=[ac.AlterableConfig(name=k, value=v) for k, v in configs.items()])],
        validate_only=validate_only)


def incremental(name: str, *ops: tuple[str, int, str | None], resource_type: int = TOPIC,
                validate_only: bool = False) -> iac.IncrementalAlterConfigsRequest:
    return iac.IncrementalAlterConfigsRequest(
        resources=[iac.AlterConfigsResource(
            resource_type=resource_type, resource_name=name,
            configs=[iac.AlterableConfig(name=k, config_operation=op, value=v)
                     for k, op, v in ops])],
        validate_only=validate_only)


def create_partitions(name: str, count: int, assignments: list[list[int]] | None = None, *,
                      validate_only: bool = False) -> cp.CreatePartitionsRequest:
    return cp.CreatePartitionsRequest(
        topics=[cp.CreatePartitionsTopic(
            name=name, count=count,
            assignments=None if assignments is None else
            [cp.CreatePartitionsAssignment(broker_ids=a) for a in assignments])],
        timeout_ms=30_000, validate_only=validate_only)


def delete_records(name: str, *offsets: tuple[int, int]) -> dr.DeleteRecordsRequest:
    return dr.DeleteRecordsRequest(
        topics=[dr.DeleteRecordsTopic(name=name, partitions=[
            dr.DeleteRecordsPartition(partition_index=p, offset=o) for p, o in offsets])],
        timeout_ms=30_000)


#: the topic configs a step checks after a change (the whole set is compared elsewhere)
WATCHED = ["cleanup.policy", "retention.ms", "segment.bytes", "min.cleanable.dirty.ratio"]


# -- scenarios ---------------------------------------------------------------------------------


def describe_configs(rec: Recorder, names) -> None:
    """DescribeConfigs of topics (all, named keys, synonyms, documentation) and of the broker."""
    t, plain_topic = names.topic, names("plain")
    create(rec, t, configs={"retention.ms": "3600000", "cleanup.policy": "compact",
                            "preallocate": "true"})
    create(rec, plain_topic)
    for version in range(5):
        rec.call(f"all configs v{version}", rq.DESCRIBE_CONFIGS, version,
                 describe((TOPIC, t, None), synonyms=version >= 1))
    rec.call("no overrides", rq.DESCRIBE_CONFIGS, 4,
             describe((TOPIC, plain_topic, None), synonyms=True))
    rec.call("named keys", rq.DESCRIBE_CONFIGS, 4,
             describe((TOPIC, t, [*WATCHED, "no.such.config"]), synonyms=True))
    rec.call("empty key list", rq.DESCRIBE_CONFIGS, 4, describe((TOPIC, plain_topic, [])))
    rec.call("without synonyms", rq.DESCRIBE_CONFIGS, 4, describe((TOPIC, t, WATCHED)))
    for version in (3, 4):
        rec.call(f"documentation v{version}", rq.DESCRIBE_CONFIGS, version,
                 describe((TOPIC, t, ["retention.ms", "cleanup.policy"]), documentation=True))
    rec.call("unknown topic", rq.DESCRIBE_CONFIGS, 4, describe((TOPIC, names("missing"), None)))
    rec.call("invalid topic name", rq.DESCRIBE_CONFIGS, 4, describe((TOPIC, "bad/name", None)))
    rec.call("two resources", rq.DESCRIBE_CONFIGS, 4,
             describe((TOPIC, t, ["retention.ms"]), (TOPIC, plain_topic, ["retention.ms"])))
    broker_keys = ["broker.id", "num.partitions", "auto.create.topics.enable",
                   "default.replication.factor", "message.max.bytes", "log.retention.hours",
                   "log.retention.ms", "log.roll.hours", "log.segment.bytes",
                   "log.cleanup.policy", "log.cleaner.min.cleanable.ratio",
                   "min.insync.replicas", "delete.topic.enable", "broker.rack"]
    for version in (1, 4):
        rec.call(f"broker 0 v{version}", rq.DESCRIBE_CONFIGS, version,
                 describe((BROKER, "0", broker_keys), synonyms=True))
    rec.call("broker default resource", rq.DESCRIBE_CONFIGS, 4, describe((BROKER, "", None)))
    rec.call("other broker id", rq.DESCRIBE_CONFIGS, 4, describe((BROKER, "1", None)))
    rec.call("broker id not a number", rq.DESCRIBE_CONFIGS, 4, describe((BROKER, "zero", None)))


def alter_configs(rec: Recorder, names) -> None:
    """AlterConfigs: replace the overrides, refusals, validate_only, unknown topic."""
    t = names.topic
    create(rec, t, configs={"retention.ms": "3600000"})
    check = describe((TOPIC, t, WATCHED), synonyms=True)
    for version in range(3):
        rec.call(f"alter v{version}", rq.ALTER_CONFIGS, version,
                 alter(t, {"retention.ms": str(1000 + version), "cleanup.policy": "compact"}))
        rec.call(f"after alter v{version}", rq.DESCRIBE_CONFIGS, 4, check)
    rec.call("replace drops the others", rq.ALTER_CONFIGS, 2, alter(t, {"segment.bytes": "1048576"}))
    rec.call("after replace", rq.DESCRIBE_CONFIGS, 4, check)
    rec.call("invalid value", rq.ALTER_CONFIGS, 2, alter(t, {"retention.ms": "soon"}))
    rec.call("below the minimum", rq.ALTER_CONFIGS, 2, alter(t, {"segment.bytes": "10"}))
    rec.call("invalid list item", rq.ALTER_CONFIGS, 2,
             alter(t, {"cleanup.policy": "compact,sometimes"}))
    rec.call("invalid boolean", rq.ALTER_CONFIGS, 2, alter(t, {"preallocate": "yes"}))
    rec.call("invalid double", rq.ALTER_CONFIGS, 2,
             alter(t, {"min.cleanable.dirty.ratio": "1.5"}))
    rec.call("unknown config", rq.ALTER_CONFIGS, 2, alter(t, {"no.such.config": "1"}))
    rec.call("null value", rq.ALTER_CONFIGS, 2, alter(t, {"retention.ms": None}))
    rec.call("validate only", rq.ALTER_CONFIGS, 2,
             alter(t, {"retention.ms": "5000"}, validate_only=True))
    rec.call("after validate only", rq.DESCRIBE_CONFIGS, 4, check)
    rec.call("unknown topic", rq.ALTER_CONFIGS, 2, alter(names("missing"), {"retention.ms": "1"}))
    rec.call("default topic resource", rq.ALTER_CONFIGS, 2, alter("", {"retention.ms": "1"}))
    rec.call("lags in conflict", rq.ALTER_CONFIGS, 2,
             alter(t, {"min.compaction.lag.ms": "10", "max.compaction.lag.ms": "5"}))
    rec.call("remote storage", rq.ALTER_CONFIGS, 2, alter(t, {"remote.storage.enable": "true"}))
    rec.call("bad message format version", rq.ALTER_CONFIGS, 2,
             alter(t, {"message.format.version": "0.7"}))
    rec.call("bad throttled replicas", rq.ALTER_CONFIGS, 2,
             alter(t, {"follower.replication.throttled.replicas": "0:0,x"}))
    rec.call("bad gzip level", rq.ALTER_CONFIGS, 2, alter(t, {"compression.gzip.level": "0"}))
    rec.call("two invalid values", rq.ALTER_CONFIGS, 2,
             alter(t, {"segment.ms": "0", "segment.bytes": "1"}))
    # (a resource named twice is not compared: Kafka 3.9 never answers such a request; pybroker
    # refuses both with INVALID_REQUEST, as Kafka's ConfigAdminManager means to)
    rec.call("config named twice", rq.ALTER_CONFIGS, 2, ac.AlterConfigsRequest(resources=[
        ac.AlterConfigsResource(resource_type=TOPIC, resource_name=t, configs=[
            ac.AlterableConfig(name="retention.ms", value="1"),
            ac.AlterableConfig(name="retention.ms", value="2")])]))
    rec.call("after the refusals", rq.DESCRIBE_CONFIGS, 4, check)
    rec.call("accepted without effect", rq.ALTER_CONFIGS, 2,
             alter(t, {"preallocate": "true", "message.downconversion.enable": "false",
                       "leader.replication.throttled.replicas": "0:0",
                       "unclean.leader.election.enable": "true"}))
    rec.call("after accepted without effect", rq.DESCRIBE_CONFIGS, 4,
             describe((TOPIC, t, ["preallocate", "message.downconversion.enable",
                                  "leader.replication.throttled.replicas",
                                  "unclean.leader.election.enable"]), synonyms=True))
    rec.call("values as written", rq.ALTER_CONFIGS, 2,
             alter(t, {"min.cleanable.dirty.ratio": "1", "cleanup.policy": " compact , delete ",
                       "segment.ms": "+3600000", "preallocate": "TRUE",
                       "message.format.version": "2.8.1"}))
    rec.call("values as printed", rq.DESCRIBE_CONFIGS, 4, describe(
        (TOPIC, t, [*WATCHED, "segment.ms", "preallocate", "message.format.version"]),
        synonyms=True))


def incremental_alter_configs(rec: Recorder, names) -> None:
    """IncrementalAlterConfigs: SET, DELETE, APPEND, SUBTRACT and their refusals."""
    t = names.topic
    create(rec, t)
    check = describe((TOPIC, t, WATCHED), synonyms=True)
    for version in range(2):
        rec.call(f"set v{version}", rq.INCREMENTAL_ALTER_CONFIGS, version,
                 incremental(t, ("retention.ms", SET, str(2000 + version))))
        rec.call(f"after set v{version}", rq.DESCRIBE_CONFIGS, 4, check)
    rec.call("append", rq.INCREMENTAL_ALTER_CONFIGS, 1,
             incremental(t, ("cleanup.policy", APPEND, "compact")))
    rec.call("after append", rq.DESCRIBE_CONFIGS, 4, check)
    rec.call("append again", rq.INCREMENTAL_ALTER_CONFIGS, 1,
             incremental(t, ("cleanup.policy", APPEND, "compact")))
    rec.call("subtract", rq.INCREMENTAL_ALTER_CONFIGS, 1,
             incremental(t, ("cleanup.policy", SUBTRACT, "delete")))
    rec.call("after subtract", rq.DESCRIBE_CONFIGS, 4, check)
    rec.call("delete", rq.INCREMENTAL_ALTER_CONFIGS, 1,
             incremental(t, ("retention.ms", DELETE, None), ("cleanup.policy", DELETE, None)))
    rec.call("after delete", rq.DESCRIBE_CONFIGS, 4, check)
    rec.call("delete absent", rq.INCREMENTAL_ALTER_CONFIGS, 1,
             incremental(t, ("segment.bytes", DELETE, None)))
    rec.call("set and append together", rq.INCREMENTAL_ALTER_CONFIGS, 1,
             incremental(t, ("segment.bytes", SET, "1048576"),
                         ("cleanup.policy", APPEND, "compact")))
    rec.call("after set and append", rq.DESCRIBE_CONFIGS, 4, check)
    rec.call("invalid operation", rq.INCREMENTAL_ALTER_CONFIGS, 1,
             incremental(t, ("retention.ms", 7, "1")))
    rec.call("invalid value", rq.INCREMENTAL_ALTER_CONFIGS, 1,
             incremental(t, ("retention.ms", SET, "soon")))
    rec.call("append to a non-list", rq.INCREMENTAL_ALTER_CONFIGS, 1,
             incremental(t, ("retention.ms", APPEND, "5")))
    rec.call("subtract from a non-list", rq.INCREMENTAL_ALTER_CONFIGS, 1,
             incremental(t, ("retention.ms", SUBTRACT, "5")))
    rec.call("append an invalid item", rq.INCREMENTAL_ALTER_CONFIGS, 1,
             incremental(t, ("cleanup.policy", APPEND, "sometimes")))
    rec.call("unknown config", rq.INCREMENTAL_ALTER_CONFIGS, 1,
             incremental(t, ("no.such.config", SET, "1")))
    rec.call("append to an unknown config", rq.INCREMENTAL_ALTER_CONFIGS, 1,
             incremental(t, ("no.such.config", APPEND, "1")))
    rec.call("delete an unknown config", rq.INCREMENTAL_ALTER_CONFIGS, 1,
             incremental(t, ("no.such.config", DELETE, None)))
    rec.call("null value with set", rq.INCREMENTAL_ALTER_CONFIGS, 1,
             incremental(t, ("retention.ms", SET, None)))
    rec.call("duplicate keys", rq.INCREMENTAL_ALTER_CONFIGS, 1,
             incremental(t, ("retention.ms", SET, "1"), ("retention.ms", SET, "2")))
    rec.call("validate only", rq.INCREMENTAL_ALTER_CONFIGS, 1,
             incremental(t, ("retention.ms", SET, "5000"), validate_only=True))
    rec.call("after the refusals", rq.DESCRIBE_CONFIGS, 4, check)
    rec.call("unknown topic", rq.INCREMENTAL_ALTER_CONFIGS, 1,
             incremental(names("missing"), ("retention.ms", SET, "1")))
    # what kafka-reassign-partitions --verify/--cancel send to clear replication throttles
    throttles = [(name, DELETE, None) for name in (
        "leader.replication.throttled.rate", "follower.replication.throttled.rate",
        "replica.alter.log.dirs.io.max.bytes.per.second")]
    rec.call("delete broker throttles", rq.INCREMENTAL_ALTER_CONFIGS, 1,
             incremental("0", *throttles, resource_type=BROKER))
    rec.call("delete default broker throttles", rq.INCREMENTAL_ALTER_CONFIGS, 1,
             incremental("", *throttles, resource_type=BROKER))


#: the broker properties the dynamic-config scenario looks at
BROKER_KEYS = ["log.retention.ms", "log.retention.hours", "log.cleaner.backoff.ms",
               "min.insync.replicas", "message.max.bytes", "log.cleanup.policy",
               "sasl.enabled.mechanisms", "num.replica.fetchers", "broker.id",
               "my.custom.setting", "leader.replication.throttled.rate"]


def settle(rec: Recorder, request, done, timeout: float = 30.0) -> None:
    """Until ``done(answer)`` of a DescribeConfigs (unrecorded): Kafka applies a dynamic broker
    config when the change notification reaches it, a moment after AlterConfigs answers."""
    wait_until(f"a dynamic config applied at {rec.bootstrap}",
               lambda: done(rec.quietly(rq.DESCRIBE_CONFIGS, 4, request).results[0]), timeout)


def values(result) -> dict[str, str | None]:
    return {c.name: c.value for c in result.configs}


def broker_dynamic_configs(rec: Recorder, names) -> None:
    """Dynamic broker configs (KIP-226): the cluster-wide defaults and broker 0's own, set,
    described with their sources and synonyms, changed incrementally, and Kafka's refusals;
    the broker's loggers (BROKER_LOGGER). Everything set is removed again at the end (the
    reference Kafka is shared by the session)."""
    t = names.topic
    create(rec, t)
    broker0 = describe((BROKER, "0", BROKER_KEYS), synonyms=True)
    default = describe((BROKER, "", None), synonyms=True)
    on_topic = describe((TOPIC, t, ["retention.ms", "min.insync.replicas", "cleanup.policy"]),
                        synonyms=True)
    try:
        rec.call("default before", rq.DESCRIBE_CONFIGS, 4, default)
        # longer than the default retention, so that nothing of anyone's is deleted meanwhile
        rec.call("alter default", rq.ALTER_CONFIGS, 2, alter(
            "", {"log.retention.ms": "691200000", "log.cleaner.backoff.ms": "16000",
                 "my.custom.setting": "x"}, resource_type=BROKER))
        settle(rec, default, lambda r: "log.retention.ms" in values(r))
        for version in (1, 4):
            rec.call(f"default after alter v{version}", rq.DESCRIBE_CONFIGS, version,
                     describe((BROKER, "", None), synonyms=version >= 1))
        settle(rec, broker0, lambda r: values(r).get("log.retention.ms") == "691200000")
        rec.call("broker 0 with defaults", rq.DESCRIBE_CONFIGS, 4, broker0)
        rec.call("topic with defaults", rq.DESCRIBE_CONFIGS, 4, on_topic)
        rec.call("alter broker 0", rq.ALTER_CONFIGS, 2, alter(
            "0", {"log.retention.ms": "777600000", "min.insync.replicas": "1"},
            resource_type=BROKER))
        settle(rec, broker0, lambda r: values(r).get("log.retention.ms") == "777600000")
        rec.call("broker 0 after alter", rq.DESCRIBE_CONFIGS, 4, broker0)
        rec.call("topic after alter", rq.DESCRIBE_CONFIGS, 4, on_topic)
        rec.call("broker 0 without synonyms", rq.DESCRIBE_CONFIGS, 4,
                 describe((BROKER, "0", BROKER_KEYS)))
        rec.call("append to a list", rq.INCREMENTAL_ALTER_CONFIGS, 1, incremental(
            "0", ("sasl.enabled.mechanisms", APPEND, "PLAIN"), resource_type=BROKER))
        settle(rec, broker0,
               lambda r: values(r).get("sasl.enabled.mechanisms") == "GSSAPI,PLAIN")
        rec.call("subtract from a list", rq.INCREMENTAL_ALTER_CONFIGS, 1, incremental(
            "0", ("sasl.enabled.mechanisms", SUBTRACT, "GSSAPI"),
            ("log.retention.ms", DELETE, None), resource_type=BROKER))
        settle(rec, broker0, lambda r: values(r).get("sasl.enabled.mechanisms") == "PLAIN")
        rec.call("broker 0 after incremental", rq.DESCRIBE_CONFIGS, 4, broker0)
        rec.call("validate only", rq.INCREMENTAL_ALTER_CONFIGS, 1, incremental(
            "", ("log.cleanup.policy", APPEND, "compact"), ("log.retention.ms", SET, "1000"),
            resource_type=BROKER, validate_only=True))
        rec.call("after validate only", rq.DESCRIBE_CONFIGS, 4, default)
        # Kafka's refusals
        for label, name, configs in (
                ("read-only", "0", {"broker.id": "1"}),
                ("two read-only", "0", {"num.partitions": "2", "log.dirs": "/tmp/x"}),
                ("five read-only", "0", {n: "1" for n in (
                    "broker.id", "log.dirs", "zookeeper.connect", "num.partitions",
                    "broker.rack")}),
                ("read-only Kafka has", "0", {"num.replica.alter.log.dirs.threads": "2"}),
                ("invalid value", "0", {"log.retention.ms": "soon"}),
                ("below the minimum", "", {"log.cleaner.threads": "-1"}),
                ("per-broker at the default", "", {"advertised.listeners": "PLAINTEXT://h:1"}),
                ("security without a listener", "0", {"ssl.keystore.type": "PKCS12"}),
                ("password", "0", {"listener.name.plaintext.ssl.key.password": "secret"}),
                ("threads beyond double", "0", {"num.replica.fetchers": "3"}),
                ("retention of zero", "0", {"log.retention.ms": "0"}),
                ("another broker", "1", {"log.retention.ms": "1000"}),
                ("not a broker id", "zero", {"log.retention.ms": "1000"})):
            rec.call(f"refused: {label}", rq.ALTER_CONFIGS, 2,
                     alter(name, configs, resource_type=BROKER))
        rec.call("refused: append to a non-list", rq.INCREMENTAL_ALTER_CONFIGS, 1, incremental(
            "0", ("log.retention.ms", APPEND, "1"), resource_type=BROKER))
        rec.call("refused: unknown operation", rq.INCREMENTAL_ALTER_CONFIGS, 1, incremental(
            "0", ("log.retention.ms", 7, "1"), resource_type=BROKER))
        rec.call("refused: append to an unknown config", rq.INCREMENTAL_ALTER_CONFIGS, 1,
                 incremental("0", ("no.such.config", APPEND, "1"), resource_type=BROKER))
        rec.call("after the refusals", rq.DESCRIBE_CONFIGS, 4, broker0)
        # the broker's loggers
        rec.call("loggers: root", rq.DESCRIBE_CONFIGS, 4,
                 describe((BROKER_LOGGER, "0", ["root"]), synonyms=True))
        rec.call("loggers: describe another broker", rq.DESCRIBE_CONFIGS, 4,
                 describe((BROKER_LOGGER, "1", None)))
        for label, name, op in (
                ("set root", "0", ("root", SET, "INFO")),
                ("unknown logger", "0", ("no.such.logger", SET, "INFO")),
                ("unknown level", "0", ("root", SET, "LOUD")),
                ("delete root", "0", ("root", DELETE, None)),
                ("append", "0", ("root", APPEND, "INFO")),
                ("another broker", "1", ("root", SET, "INFO"))):
            rec.call(f"loggers: {label}", rq.INCREMENTAL_ALTER_CONFIGS, 1,
                     incremental(name, op, resource_type=BROKER_LOGGER))
        rec.call("loggers: with AlterConfigs", rq.ALTER_CONFIGS, 2,
                 alter("0", {"root": "INFO"}, resource_type=BROKER_LOGGER))
    finally:
        for name in ("0", ""):
            rec.quietly(rq.ALTER_CONFIGS, 2, alter(name, {}, resource_type=BROKER))
        settle(rec, default, lambda r: not r.configs)
        settle(rec, broker0,
               lambda r: values(r).get("sasl.enabled.mechanisms") in (None, "GSSAPI"))
    rec.call("default after removal", rq.DESCRIBE_CONFIGS, 4, default)


def create_partitions_rules(rec: Recorder, names) -> None:
    """CreatePartitions: grow, refusals, validate_only, explicit assignments."""
    t = names.topic
    create(rec, t, 1)
    for version in range(4):
        rec.call(f"grow v{version}", rq.CREATE_PARTITIONS, version,
                 create_partitions(t, 2 + version))
    rec.call("same count", rq.CREATE_PARTITIONS, 3, create_partitions(t, 5))
    rec.call("fewer", rq.CREATE_PARTITIONS, 3, create_partitions(t, 2))
    rec.call("unknown topic", rq.CREATE_PARTITIONS, 3, create_partitions(names("missing"), 2))
    rec.call("validate only", rq.CREATE_PARTITIONS, 3, create_partitions(t, 9, validate_only=True))
    rec.call("with assignments", rq.CREATE_PARTITIONS, 3, create_partitions(t, 7, [[0], [0]]))
    rec.call("too few assignments", rq.CREATE_PARTITIONS, 3, create_partitions(t, 9, [[0]]))
    rec.call("unknown broker", rq.CREATE_PARTITIONS, 3, create_partitions(t, 8, [[5]]))
    rec.call("empty replica list", rq.CREATE_PARTITIONS, 3, create_partitions(t, 8, [[]]))
    rec.call("duplicate replicas", rq.CREATE_PARTITIONS, 3, create_partitions(t, 8, [[0, 0]]))
    rec.call("duplicate topic", rq.CREATE_PARTITIONS, 3, cp.CreatePartitionsRequest(
        topics=[cp.CreatePartitionsTopic(name=t, count=9, assignments=None)] * 2,
        timeout_ms=30_000))
    wait_for_leaders(rec, t)
    rec.call("metadata after", rq.METADATA, 12, rq.metadata(t))


def delete_topics_rules(rec: Recorder, names) -> None:
    """DeleteTopics at each version, unknown names, and by topic id."""
    for version in range(7):
        create(rec, names(f"v{version}"))
    for version in range(6):
        rec.call(f"delete v{version}", rq.DELETE_TOPICS, version, dt.DeleteTopicsRequest(
            topic_names=[names(f"v{version}")], timeout_ms=30_000))
    rec.call("unknown v5", rq.DELETE_TOPICS, 5, dt.DeleteTopicsRequest(
        topic_names=[names("missing")], timeout_ms=30_000))
    topic_id = rec.quietly(rq.METADATA, 12, rq.metadata(names("v6"))).topics[0].topic_id
    rec.call("by id v6", rq.DELETE_TOPICS, 6, dt.DeleteTopicsRequest(
        topics=[dt.DeleteTopicState(name=None, topic_id=topic_id)], timeout_ms=30_000))
    rec.call("unknown id v6", rq.DELETE_TOPICS, 6, dt.DeleteTopicsRequest(
        topics=[dt.DeleteTopicState(name=None, topic_id=UNKNOWN_TOPIC_ID)], timeout_ms=30_000))
    rec.call("unknown name v6", rq.DELETE_TOPICS, 6, dt.DeleteTopicsRequest(
        topics=[dt.DeleteTopicState(name=names("missing"))], timeout_ms=30_000))


def delete_records_rules(rec: Recorder, names) -> None:
    """DeleteRecords: forward the log start, -1 for the high watermark, refusals."""
    t, compacted = names.topic, names("compacted")
    create(rec, t, 2)
    create(rec, compacted, configs={"cleanup.policy": "compact"})
    rec.quietly(rq.PRODUCE, 9, rq.produce(t, rq.batch(10)))
    rec.quietly(rq.PRODUCE, 9, rq.produce(compacted, rq.batch(3)))
    rec.call("delete v0", rq.DELETE_RECORDS, 0, delete_records(t, (0, 3)))
    rec.call("delete v1", rq.DELETE_RECORDS, 1, delete_records(t, (0, 5)))
    rec.call("below the log start", rq.DELETE_RECORDS, 2, delete_records(t, (0, 2)))
    rec.call("beyond the high watermark", rq.DELETE_RECORDS, 2, delete_records(t, (0, 11)))
    rec.call("negative", rq.DELETE_RECORDS, 2, delete_records(t, (0, -5)))
    rec.call("high watermark v2", rq.DELETE_RECORDS, 2, delete_records(t, (0, -1), (1, -1)))
    rec.call("unknown partition", rq.DELETE_RECORDS, 2, delete_records(t, (9, 0)))
    rec.call("unknown topic", rq.DELETE_RECORDS, 2, delete_records(names("missing"), (0, 0)))
    rec.call("compacted topic", rq.DELETE_RECORDS, 2, delete_records(compacted, (0, 1)))
    rec.call("log start after", rq.LIST_OFFSETS, 7, rq.list_offsets(t, (0, -2), (1, -2)))


def alter_log_dirs(*moves: tuple[str, str, list[int]]) -> arl.AlterReplicaLogDirsRequest:
    """AlterReplicaLogDirs: ``(dir, topic, partitions)`` each."""
    return arl.AlterReplicaLogDirsRequest(dirs=[
        arl.AlterReplicaLogDir(path=path, topics=[
            arl.AlterReplicaLogDirTopic(name=topic, partitions=partitions)])
        for path, topic, partitions in moves])


def alter_replica_log_dirs_rules(rec: Recorder, names) -> None:
    """AlterReplicaLogDirs on a broker with one log dir: each partition to the dir it is in
    (nothing to move), to paths that are not log dirs, for partitions and topics that do not
    exist, for a topic whose future directory's name would be too long; one partition named
    twice (the last dir counts)."""
    t = names.topic
    create(rec, t, 2)
    [own] = rec.quietly(DESCRIBE_LOG_DIRS, 4, dld.DescribeLogDirsRequest(topics=[])).results
    here = own.log_dir
    for version in range(3):
        rec.call(f"to its own dir v{version}", ALTER_REPLICA_LOG_DIRS, version,
                 alter_log_dirs((here, t, [0, 1])))
    rec.call("not a log dir", ALTER_REPLICA_LOG_DIRS, 2,
             alter_log_dirs(("/no/such/log/dir", t, [0])))
    rec.call("a relative path", ALTER_REPLICA_LOG_DIRS, 2,
             alter_log_dirs((Path(here).name, t, [0])))
    rec.call("unknown partition", ALTER_REPLICA_LOG_DIRS, 2, alter_log_dirs((here, t, [7])))
    rec.call("unknown topic", ALTER_REPLICA_LOG_DIRS, 2,
             alter_log_dirs((here, names("missing"), [0])))
    rec.call("name too long for a future dir", ALTER_REPLICA_LOG_DIRS, 2,
             alter_log_dirs((here, "x" * 214, [0])))
    rec.call("several dirs and topics", ALTER_REPLICA_LOG_DIRS, 2,
             alter_log_dirs((here, t, [0]), ("/no/such/log/dir", t, [1]),
                            (here, names("missing"), [0])),
             unordered=("results",))
    rec.call("named twice", ALTER_REPLICA_LOG_DIRS, 2,
             alter_log_dirs((here, t, [0]), ("/no/such/log/dir", t, [0])))


def describe_cluster(rec: Recorder, names) -> None:
    """DescribeCluster: brokers and controller; the CONTROLLER endpoint type is refused."""
    for version in range(2):
        rec.call(f"describe v{version}", rq.DESCRIBE_CLUSTER, version, dc.DescribeClusterRequest())
    rec.call("authorized operations", rq.DESCRIBE_CLUSTER, 1,
             dc.DescribeClusterRequest(include_cluster_authorized_operations=True))
    rec.call("controller endpoint", rq.DESCRIBE_CLUSTER, 1,
             dc.DescribeClusterRequest(endpoint_type=2))
    rec.call("unknown endpoint type", rq.DESCRIBE_CLUSTER, 1,
             dc.DescribeClusterRequest(endpoint_type=9))


def api_versions(rec: Recorder, names) -> None:
    """ApiVersions at each version; the ranges are compared per API, by name."""
    for version in range(4):
        body = av.ApiVersionsRequest(client_software_name="pybroker-differential",
                                     client_software_version="1.0")
        resp = rec.quietly(rq.API_VERSIONS, version, body)
        resp.api_keys = [
            {"name": messages.API_NAMES.get(k.api_key, str(k.api_key)),
             "min_version": k.min_version, "max_version": k.max_version}
            for k in resp.api_keys
        ]
        rec.record(f"api versions v{version}", rq.API_VERSIONS, version, resp)
    rec.call("bad software name v3", rq.API_VERSIONS, 3,
             av.ApiVersionsRequest(client_software_name="-bad-", client_software_version="1.0"))


def init_producer_id(rec: Recorder, names) -> None:
    """InitProducerId for idempotent producers (no transactional id) at each version."""
    # a fresh Kafka answers COORDINATOR_LOAD_IN_PROGRESS until it holds a block of producer
    # ids from its controller; clients retry, and so does this (unrecorded)
    deadline = time.monotonic() + 60
    while rec.quietly(rq.INIT_PRODUCER_ID, 4, ipi.InitProducerIdRequest(
            transactional_id=None, transaction_timeout_ms=60_000)).error_code \
            == ErrorCode.COORDINATOR_LOAD_IN_PROGRESS:
        assert time.monotonic() < deadline, f"no producer ids from {rec.bootstrap}"
        time.sleep(0.2)
    for version in range(6):
        rec.call(f"idempotent v{version}", rq.INIT_PRODUCER_ID, version,
                 ipi.InitProducerIdRequest(transactional_id=None, transaction_timeout_ms=60_000),
                 mask=("producer_id",))
    first = rec.quietly(rq.INIT_PRODUCER_ID, 4,
                        ipi.InitProducerIdRequest(transactional_id=None,
                                                  transaction_timeout_ms=60_000))
    rec.call("epoch bump", rq.INIT_PRODUCER_ID, 4, ipi.InitProducerIdRequest(
        transactional_id=None, transaction_timeout_ms=60_000,
        producer_id=first.producer_id, producer_epoch=first.producer_epoch),
        mask=("producer_id",))
    rec.call("epoch without a producer id", rq.INIT_PRODUCER_ID, 4, ipi.InitProducerIdRequest(
        transactional_id=None, transaction_timeout_ms=60_000, producer_id=-1, producer_epoch=3),
        mask=("producer_id",))
    rec.call("producer id without an epoch", rq.INIT_PRODUCER_ID, 4, ipi.InitProducerIdRequest(
        transactional_id=None, transaction_timeout_ms=60_000, producer_id=first.producer_id,
        producer_epoch=-1), mask=("producer_id",))


# -- tests -------------------------------------------------------------------------------------


def test_describe_configs(pair, names) -> None:
    pair.check(describe_configs, names, KNOWN)


def test_alter_configs(pair, names) -> None:
    pair.check(alter_configs, names, KNOWN)


def test_incremental_alter_configs(pair, names) -> None:
    pair.check(incremental_alter_configs, names, KNOWN)


def test_broker_dynamic_configs(pair, names) -> None:
    pair.check(broker_dynamic_configs, names, KNOWN)


def test_create_partitions(pair, names) -> None:
    pair.check(create_partitions_rules, names, KNOWN)


def test_delete_topics(pair, names) -> None:
    pair.check(delete_topics_rules, names, KNOWN)


def test_delete_records(pair, names) -> None:
    pair.check(delete_records_rules, names, KNOWN)


def test_alter_replica_log_dirs(pair, names) -> None:
    pair.check(alter_replica_log_dirs_rules, names, KNOWN)


def test_describe_cluster(pair, names) -> None:
    pair.check(describe_cluster, names, KNOWN)


def test_api_versions(pair, names) -> None:
    pair.check(api_versions, names, KNOWN)


def test_api_versions_above_the_newest_answer_alike(pair) -> None:
    """What a newer client may send first: ApiVersions v5 and later, which neither serves, get
    UNSUPPORTED_VERSION in a v0 body whose only entry is ApiVersions' range, with a v0 response
    header (KIP-511), byte for byte as Kafka 3.9 sends it; the client then retries at v4."""
    from tests.compat import kafka_wire as wire

    def observe(bootstrap: str) -> list[object]:
        out: list[object] = []
        with wire.connect(bootstrap) as sock:
            for correlation_id, version in ((7, 5), (8, 6), (9, 127)):
                sock.sendall(wire.api_versions(correlation_id, version))
                out.append(wire.read_response(sock))
            sock.sendall(wire.api_versions(10, 4))
            answer = wire.read_response(sock)
            out.append(answer is not None and answer[0] == 10)
        return out

    ours = observe(pair.pybroker.bootstrap)
    assert ours == observe(pair.kafka.bootstrap)
    parsed = wire.parse_api_versions_v0(ours[0][1])
    assert parsed.error_code == wire.UNSUPPORTED_VERSION and \
        parsed.ranges == {wire.API_API_VERSIONS: (0, 4)}, parsed
    assert ours[-1] is True


def test_init_producer_id(pair, names) -> None:
    pair.check(init_producer_id, names, KNOWN)

