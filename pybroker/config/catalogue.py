"""The one catalogue of configuration properties: Apache Kafka 3.9's broker properties this broker
knows and Kafka's topic configs, each written once with its type, default and validator.

Everything else reads them from here: ``server.properties`` parsing (:mod:`.server`), the logs'
per-partition settings (``pybroker.log.config.LogConfig``), the group coordinator, and
DescribeConfigs, AlterConfigs and IncrementalAlterConfigs.

:data:`BROKER_CONFIGS` holds each broker property with Kafka's type, default, validator and
update mode (Kafka's "read-only", "per-broker" or "cluster-wide", KIP-226), the names that stand
for the same setting in other units (``log.retention.ms``/``minutes``/``hours``) and whether
DescribeConfigs lists it. Types, defaults, validators and update modes are those of Kafka 3.9's
configuration documentation, which ``tests/compat/test_config_catalogue.py`` compares entry by
entry with the table Kafka's own jars print.

:data:`GROUP_CONFIGS` holds Kafka 4.1's group configs (KIP-848: the GROUP config resource), each
with the broker property behind its default and the broker bounds its values are checked
against; those of share and streams groups, which this broker does not serve, are accepted and
described like Kafka's and change nothing.

:data:`TOPIC_CONFIGS` holds every topic config Kafka 3.9 defines, in the order Kafka defines (and
therefore validates) them: its type, validator, and the broker properties that supply its
default (``log.segment.bytes`` for ``segment.bytes``), in the order Kafka consults them
(``log.retention.ms`` before ``log.retention.minutes`` before ``log.retention.hours``). Its
built-in default is the broker properties' default, in the topic config's unit (168 hours are
``retention.ms`` 604800000); only the few configs no broker property backs name their own.

Some of Kafka's topic configs describe features this broker does not have: tiered storage
(``remote.storage.enable``, ``local.retention.*``, ``remote.log.*``), ``preallocate``,
down-conversion for old fetchers (``message.downconversion.enable``), ``message.format.version`` (ignored by Kafka 3.x too),
``unclean.leader.election.enable`` on the embedded single node (one replica per partition; a
ZooKeeper-mode controller uses it) and the producer-side compression
levels (``compression.*.level``; batches are stored as the producer compressed them). They are
accepted, validated, stored and described exactly like Kafka does, but have no effect here; see
``TopicConfigKey.effective``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .validators import (
    GZIP_LEVEL,
    MESSAGE_FORMAT_VERSION,
    MIGRATION_POLICY,
    NON_NULL_STRING,
    REBALANCE_PROTOCOLS,
    SHARE_AUTO_OFFSET_RESET,
    THROTTLED_REPLICAS,
    Validator,
    at_least,
    between,
    each_one_of,
    one_of,
)
from .values import (
    BOOLEAN,
    CLASS,
    DOUBLE,
    INT,
    INT_MAX,
    LIST,
    LONG,
    LONG_MAX,
    PASSWORD,
    SHORT,
    STRING,
    parse_value,
    to_config_string,
)

CREATE_TIME = "CreateTime"
LOG_APPEND_TIME = "LogAppendTime"
TIMESTAMP_TYPES = (CREATE_TIME, LOG_APPEND_TIME)
#: in the order Kafka's validator lists them
CLEANUP_POLICIES = ("compact", "delete")
COMPRESSION_TYPES = ("uncompressed", "zstd", "lz4", "snappy", "gzip", "producer")

# Kafka's update modes of broker properties (DynamicBrokerConfig, KIP-226).
READ_ONLY, PER_BROKER, CLUSTER_WIDE = "read-only", "per-broker", "cluster-wide"


# -- broker properties -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BrokerConfigKey:
    name: str
    type: str
    #: the parsed default (a list for LIST); None where Kafka has none (its ``null``)
    default: Any
    validator: Validator | None = None
    #: Kafka's update mode. This broker reads every property once, at start-up; the mode says
    #: which ones a dynamic config (AlterConfigs on a broker) may change in Kafka.
    update_mode: str = READ_ONLY
    #: the names that stand for this setting in other units, highest priority first (Kafka's
    #: DynamicBrokerConfig.brokerConfigSynonyms); empty when the name stands alone
    synonyms: tuple[str, ...] = ()
    #: listed by DescribeConfigs on the broker resource
    described: bool = True

    def parse(self, raw: str) -> Any:
        """A server.properties value parsed and validated (ConfigException when refused)."""
        value = parse_value(self.name, raw, self.type)
        if self.validator is not None:
            self.validator(self.name, value)
        return value

    @property
    def default_string(self) -> str | None:
        """The default as Kafka prints it (None for no default)."""
        return to_config_string(self.default, self.type)


def _broker(name: str, config_type: str, default: Any, validator: Validator | None = None, *,
            mode: str = READ_ONLY, synonyms: tuple[str, ...] = (),
            described: bool = True) -> BrokerConfigKey:
    return BrokerConfigKey(name, config_type, default, validator, mode, synonyms, described)


_ROLL = ("log.roll.ms", "log.roll.hours")
_ROLL_JITTER = ("log.roll.jitter.ms", "log.roll.jitter.hours")
_RETENTION = ("log.retention.ms", "log.retention.minutes", "log.retention.hours")
#: log.flush.scheduler.interval.ms backs log.flush.interval.ms, but does not stand for it
_FLUSH = ("log.flush.interval.ms", "log.flush.scheduler.interval.ms")

# In the order DescribeConfigs lists them.
BROKER_CONFIGS: dict[str, BrokerConfigKey] = {k.name: k for k in (
    # Kafka's default is -1, which asks ZooKeeper for a generated id; a single node is 0
    _broker("broker.id", INT, 0),
    _broker("listeners", STRING, "PLAINTEXT://:9092", mode=PER_BROKER),
    _broker("advertised.listeners", STRING, None, mode=PER_BROKER),
    _broker("log.dirs", STRING, None),
    _broker("log.dir", STRING, "/tmp/kafka-logs"),
    _broker("zookeeper.connect", STRING, None),
    _broker("broker.rack", STRING, None),
    _broker("num.partitions", INT, 1, at_least(1)),
    _broker("default.replication.factor", INT, 1),
    _broker("min.insync.replicas", INT, 1, at_least(1), mode=CLUSTER_WIDE),
    _broker("auto.create.topics.enable", BOOLEAN, True),
    _broker("delete.topic.enable", BOOLEAN, True),
    _broker("socket.request.max.bytes", INT, 104857600, at_least(1)),
    _broker("connections.max.idle.ms", LONG, 600000),
    _broker("request.timeout.ms", INT, 30000),
    _broker("message.max.bytes", INT, 1048588, at_least(0), mode=CLUSTER_WIDE),
    _broker("offsets.topic.num.partitions", INT, 50, at_least(1)),
    _broker("offsets.topic.replication.factor", SHORT, 3, at_least(1)),
    _broker("offsets.topic.segment.bytes", INT, 104857600, at_least(1)),
    _broker("offsets.retention.minutes", INT, 10080, at_least(1)),
    _broker("offsets.retention.check.interval.ms", LONG, 600000, at_least(1)),
    _broker("offsets.commit.timeout.ms", INT, 5000, at_least(1)),
    _broker("offsets.commit.required.acks", SHORT, -1),
    _broker("offset.metadata.max.bytes", INT, 4096),
    # the transaction coordinator and __transaction_state (TransactionStateManagerConfigs,
    # TransactionLogConfigs)
    _broker("transactional.id.expiration.ms", INT, 604800000, at_least(1)),
    _broker("transaction.max.timeout.ms", INT, 900000, at_least(1)),
    _broker("transaction.abort.timed.out.transaction.cleanup.interval.ms", INT, 10000,
            at_least(1)),
    _broker("transaction.remove.expired.transaction.cleanup.interval.ms", INT, 3600000,
            at_least(1)),
    _broker("transaction.state.log.num.partitions", INT, 50, at_least(1)),
    _broker("transaction.state.log.replication.factor", SHORT, 3, at_least(1)),
    _broker("transaction.state.log.min.isr", INT, 2, at_least(1)),
    _broker("transaction.state.log.segment.bytes", INT, 104857600, at_least(1)),
    _broker("transaction.state.log.load.buffer.size", INT, 5242880, at_least(1)),
    _broker("transaction.partition.verification.enable", BOOLEAN, True, mode=CLUSTER_WIDE),
    _broker("group.initial.rebalance.delay.ms", INT, 3000),
    _broker("group.min.session.timeout.ms", INT, 6000),
    _broker("group.max.session.timeout.ms", INT, 1800000),
    _broker("group.max.size", INT, INT_MAX, at_least(1)),
    # the consumer protocol (KIP-848) as Kafka 4 serves it, and on by default as in Kafka 4.0;
    # without `consumer` ConsumerGroupHeartbeat and ConsumerGroupDescribe answer
    # UNSUPPORTED_VERSION, as Kafka 3.9 answers them
    _broker("group.coordinator.rebalance.protocols", LIST, ["classic", "consumer"],
            REBALANCE_PROTOCOLS),
    _broker("group.consumer.session.timeout.ms", INT, 45000, at_least(1)),
    _broker("group.consumer.min.session.timeout.ms", INT, 45000, at_least(1)),
    _broker("group.consumer.max.session.timeout.ms", INT, 60000, at_least(1)),
    _broker("group.consumer.heartbeat.interval.ms", INT, 5000, at_least(1)),
    _broker("group.consumer.min.heartbeat.interval.ms", INT, 5000, at_least(1)),
    _broker("group.consumer.max.heartbeat.interval.ms", INT, 15000, at_least(1)),
    _broker("group.consumer.max.size", INT, INT_MAX, at_least(1)),
    # Kafka's classes by default; their names (uniform, range) are accepted too
    _broker("group.consumer.assignors", LIST,
            ["org.apache.kafka.coordinator.group.assignor.UniformAssignor",
             "org.apache.kafka.coordinator.group.assignor.RangeAssignor"]),
    _broker("group.consumer.migration.policy", STRING, "bidirectional", MIGRATION_POLICY),
    _broker("replica.fetch.wait.max.ms", INT, 500),
    _broker("log.flush.offset.checkpoint.interval.ms", INT, 60000, at_least(0)),
    _broker("log.retention.check.interval.ms", LONG, 300000, at_least(1)),
    _broker("log.cleaner.enable", BOOLEAN, True),
    _broker("log.cleaner.backoff.ms", LONG, 15000, at_least(0), mode=CLUSTER_WIDE),
    # the broker names behind topic configs (ServerTopicConfigSynonyms)
    _broker("log.segment.bytes", INT, 1073741824, at_least(14), mode=CLUSTER_WIDE),
    _broker("log.roll.ms", LONG, None, mode=CLUSTER_WIDE, synonyms=_ROLL),
    _broker("log.roll.hours", INT, 168, at_least(1), synonyms=_ROLL),
    _broker("log.roll.jitter.ms", LONG, None, mode=CLUSTER_WIDE, synonyms=_ROLL_JITTER),
    _broker("log.roll.jitter.hours", INT, 0, at_least(0), synonyms=_ROLL_JITTER),
    _broker("log.index.size.max.bytes", INT, 10485760, at_least(4), mode=CLUSTER_WIDE),
    _broker("log.index.interval.bytes", INT, 4096, at_least(0), mode=CLUSTER_WIDE),
    _broker("log.flush.interval.messages", LONG, LONG_MAX, at_least(1), mode=CLUSTER_WIDE),
    _broker("log.flush.interval.ms", LONG, None, mode=CLUSTER_WIDE, synonyms=_FLUSH),
    _broker("log.flush.scheduler.interval.ms", LONG, LONG_MAX),
    _broker("log.retention.bytes", LONG, -1, mode=CLUSTER_WIDE),
    _broker("log.retention.ms", LONG, None, mode=CLUSTER_WIDE, synonyms=_RETENTION),
    _broker("log.retention.minutes", INT, None, synonyms=_RETENTION),
    _broker("log.retention.hours", INT, 168, synonyms=_RETENTION),
    _broker("log.cleanup.policy", LIST, ["delete"], each_one_of(*CLEANUP_POLICIES),
            mode=CLUSTER_WIDE),
    _broker("log.segment.delete.delay.ms", LONG, 60000, at_least(0), mode=CLUSTER_WIDE),
    _broker("log.cleaner.delete.retention.ms", LONG, 86400000, at_least(0), mode=CLUSTER_WIDE),
    _broker("log.cleaner.min.cleanable.ratio", DOUBLE, 0.5, between(0, 1), mode=CLUSTER_WIDE),
    _broker("log.cleaner.min.compaction.lag.ms", LONG, 0, at_least(0), mode=CLUSTER_WIDE),
    _broker("log.cleaner.max.compaction.lag.ms", LONG, LONG_MAX, at_least(1),
            mode=CLUSTER_WIDE),
    _broker("log.message.timestamp.type", STRING, CREATE_TIME, one_of(*TIMESTAMP_TYPES),
            mode=CLUSTER_WIDE),
    _broker("log.message.timestamp.difference.max.ms", LONG, LONG_MAX, at_least(0),
            mode=CLUSTER_WIDE),
    _broker("log.message.timestamp.before.max.ms", LONG, LONG_MAX, at_least(0),
            mode=CLUSTER_WIDE),
    _broker("log.message.timestamp.after.max.ms", LONG, LONG_MAX, at_least(0),
            mode=CLUSTER_WIDE),
    _broker("log.message.format.version", STRING, "3.0-IV1", MESSAGE_FORMAT_VERSION),
    _broker("log.message.downconversion.enable", BOOLEAN, True, mode=CLUSTER_WIDE),
    _broker("log.preallocate", BOOLEAN, False, mode=CLUSTER_WIDE),
    _broker("log.local.retention.ms", LONG, -2, at_least(-2), mode=CLUSTER_WIDE),
    _broker("log.local.retention.bytes", LONG, -2, at_least(-2), mode=CLUSTER_WIDE),
    _broker("unclean.leader.election.enable", BOOLEAN, False, mode=CLUSTER_WIDE),
    _broker("compression.type", STRING, "producer", one_of(*COMPRESSION_TYPES),
            mode=CLUSTER_WIDE),
    _broker("compression.gzip.level", INT, -1, GZIP_LEVEL, mode=CLUSTER_WIDE),
    _broker("compression.lz4.level", INT, 9, between(1, 17), mode=CLUSTER_WIDE),
    _broker("compression.zstd.level", INT, 3, between(-131072, 22), mode=CLUSTER_WIDE),
    # Read, but not listed by DescribeConfigs (the first two are in Kafka's list; the last is
    # one of Kafka's internal properties, which it never lists).
    _broker("offsets.topic.compression.codec", INT, 0, described=False),
    _broker("offsets.load.buffer.size", INT, 5242880, at_least(1), described=False),
    _broker("producer.id.expiration.check.interval.ms", INT, 600000, at_least(1),
            described=False),
    # ZooKeeper mode: the cluster's own settings (Kafka 3.9's types, defaults, validators and
    # update modes; tests/compat/test_config_catalogue.py checks them against Kafka's tables).
    _broker("zookeeper.session.timeout.ms", INT, 18000),
    _broker("zookeeper.connection.timeout.ms", INT, None),
    _broker("zookeeper.max.in.flight.requests", INT, 10, at_least(1)),
    _broker("inter.broker.listener.name", STRING, None),
    # listeners' security (Kafka's SocketServerConfigs, ReplicationConfigs); read, not listed
    _broker("listener.security.protocol.map", STRING,
            "SASL_SSL:SASL_SSL,PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT",
            mode=PER_BROKER, described=False),
    _broker("security.inter.broker.protocol", STRING, "PLAINTEXT",
            one_of("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"), described=False),
    # TLS (Kafka's SslConfigs, BrokerSecurityConfigs); each may be set for one listener as
    # listener.name.<listener>.ssl.*
    _broker("ssl.protocol", STRING, "TLSv1.3", mode=PER_BROKER, described=False),
    _broker("ssl.enabled.protocols", LIST, ["TLSv1.2", "TLSv1.3"], mode=PER_BROKER,
            described=False),
    _broker("ssl.cipher.suites", LIST, [], mode=PER_BROKER, described=False),
    _broker("ssl.client.auth", STRING, "none", one_of("required", "requested", "none"),
            mode=PER_BROKER, described=False),
    _broker("ssl.keystore.type", STRING, "JKS", mode=PER_BROKER, described=False),
    _broker("ssl.keystore.location", STRING, None, mode=PER_BROKER, described=False),
    _broker("ssl.keystore.password", PASSWORD, None, mode=PER_BROKER, described=False),
    _broker("ssl.keystore.key", PASSWORD, None, mode=PER_BROKER, described=False),
    _broker("ssl.keystore.certificate.chain", PASSWORD, None, mode=PER_BROKER,
            described=False),
    _broker("ssl.key.password", PASSWORD, None, mode=PER_BROKER, described=False),
    _broker("ssl.truststore.type", STRING, "JKS", mode=PER_BROKER, described=False),
    _broker("ssl.truststore.location", STRING, None, mode=PER_BROKER, described=False),
    _broker("ssl.truststore.password", PASSWORD, None, mode=PER_BROKER, described=False),
    _broker("ssl.truststore.certificates", PASSWORD, None, mode=PER_BROKER, described=False),
    _broker("ssl.endpoint.identification.algorithm", STRING, "https", mode=PER_BROKER,
            described=False),
    _broker("ssl.principal.mapping.rules", STRING, "DEFAULT", described=False),
    _broker("inter.broker.protocol.version", STRING, "3.9-IV0", MESSAGE_FORMAT_VERSION),
    _broker("controller.socket.timeout.ms", INT, 30000),
    # client quotas' sample windows (QuotaConfigs)
    _broker("quota.window.num", INT, 11, at_least(1)),
    _broker("quota.window.size.seconds", INT, 1, at_least(1)),
    _broker("controller.quota.window.num", INT, 11, at_least(1)),
    _broker("controller.quota.window.size.seconds", INT, 1, at_least(1)),
    _broker("replication.quota.window.num", INT, 11, at_least(1)),
    _broker("replication.quota.window.size.seconds", INT, 1, at_least(1)),
    _broker("controlled.shutdown.enable", BOOLEAN, True),
    _broker("controlled.shutdown.max.retries", INT, 3),
    _broker("controlled.shutdown.retry.backoff.ms", LONG, 5000),
    _broker("auto.leader.rebalance.enable", BOOLEAN, True),
    _broker("leader.imbalance.check.interval.seconds", LONG, 300, at_least(1)),
    _broker("leader.imbalance.per.broker.percentage", INT, 10),
    _broker("replica.lag.time.max.ms", LONG, 30000),
    _broker("num.replica.fetchers", INT, 1, mode=CLUSTER_WIDE),
    _broker("replica.fetch.min.bytes", INT, 1),
    _broker("max.incremental.fetch.session.cache.slots", INT, 1000, at_least(0)),
    _broker("replica.fetch.max.bytes", INT, 1048576, at_least(0)),
    _broker("replica.fetch.response.max.bytes", INT, 10485760, at_least(0)),
    _broker("replica.fetch.backoff.ms", INT, 1000, at_least(0)),
    _broker("replica.socket.timeout.ms", INT, 30000),
    _broker("replica.high.watermark.checkpoint.interval.ms", LONG, 5000),
    # SASL authentication (listener.name.<listener>.[<mechanism>.] prefixes override them)
    _broker("sasl.enabled.mechanisms", LIST, ["GSSAPI"], mode=PER_BROKER),
    _broker("sasl.mechanism.inter.broker.protocol", STRING, "GSSAPI", mode=PER_BROKER),
    _broker("connections.max.reauth.ms", LONG, 0),
    _broker("connection.failed.authentication.delay.ms", INT, 100, at_least(0)),
    _broker("sasl.server.max.receive.size", INT, 524288),
    # SASL/OAUTHBEARER (KIP-255): the validator a listener's
    # listener.name.<l>.oauthbearer.sasl.server.callback.handler.class names, and the signed
    # JWT validator's settings (KIP-768)
    _broker("sasl.server.callback.handler.class", CLASS, None),
    _broker("sasl.oauthbearer.jwks.endpoint.url", STRING, None),
    _broker("sasl.oauthbearer.jwks.endpoint.refresh.ms", LONG, 3600000),
    _broker("sasl.oauthbearer.jwks.endpoint.retry.backoff.ms", LONG, 100),
    _broker("sasl.oauthbearer.jwks.endpoint.retry.backoff.max.ms", LONG, 10000),
    _broker("sasl.oauthbearer.expected.audience", LIST, None),
    _broker("sasl.oauthbearer.expected.issuer", STRING, None),
    _broker("sasl.oauthbearer.sub.claim.name", STRING, "sub"),
    _broker("sasl.oauthbearer.scope.claim.name", STRING, "scope"),
    _broker("sasl.oauthbearer.clock.skew.seconds", INT, 30),
    # delegation tokens (KIP-48): on with a secret key, the same on every broker
    _broker("delegation.token.secret.key", PASSWORD, None),
    _broker("delegation.token.master.key", PASSWORD, None),
    _broker("delegation.token.max.lifetime.ms", LONG, 7 * 24 * 3600 * 1000, at_least(1)),
    _broker("delegation.token.expiry.time.ms", LONG, 24 * 3600 * 1000, at_least(1)),
    _broker("delegation.token.expiry.check.interval.ms", LONG, 3600 * 1000, at_least(1)),
    # Kafka's authorizer (empty: none, every request allowed);
    # kafka.security.authorizer.AclAuthorizer turns ACLs on
    _broker("authorizer.class.name", STRING, "", NON_NULL_STRING),
)}

#: the authorizer's own settings: read from server.properties like the broker's, but not
#: properties of Kafka's broker (it hands them to the authorizer it builds, and never describes
#: them)
AUTHORIZER_CONFIGS: dict[str, BrokerConfigKey] = {k.name: k for k in (
    # principals separated by semicolons, allowed everything
    BrokerConfigKey("super.users", STRING, "", described=False),
    # a resource without ACLs is open to everyone (else to the super users only)
    BrokerConfigKey("allow.everyone.if.no.acl.found", BOOLEAN, False, described=False),
)}

#: pybroker's own settings, which Kafka has no property for (its metrics are JMX MBeans, which a
#: Prometheus JMX exporter agent serves; this broker serves them itself): read from
#: server.properties like the broker's, never described
PYBROKER_CONFIGS: dict[str, BrokerConfigKey] = {k.name: k for k in (
    # where the Prometheus endpoint listens (http://host:port; unset: no endpoint)
    BrokerConfigKey("metrics.listener", STRING, None, described=False),
)}


def broker_default(name: str) -> Any:
    """Kafka's default of a broker property (None where it has none)."""
    return BROKER_CONFIGS[name].default


def broker_value(props: Mapping[str, str], name: str) -> Any:
    """A broker property's (or an authorizer setting's) value from ``props``
    (server.properties), parsed and validated, or its default when ``props`` does not set it."""
    key = (BROKER_CONFIGS.get(name) or AUTHORIZER_CONFIGS.get(name)
           or PYBROKER_CONFIGS[name])
    raw = props.get(name)
    return key.default if raw is None else key.parse(str(raw))


def broker_config_synonyms(name: str) -> tuple[str, ...]:
    """The broker properties that stand for ``name``'s setting, highest priority first."""
    key = BROKER_CONFIGS.get(name)
    return key.synonyms if key is not None and key.synonyms else (name,)


# -- topic configs -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TopicConfigKey:
    name: str
    type: str
    default: Any
    field: str
    validator: Validator | None = None
    #: broker properties that supply the default, first match wins, with the factor that turns
    #: the broker unit into the topic unit (hours -> ms); empty for Kafka's configs without one
    synonyms: tuple[tuple[str, int], ...] = ()
    #: False for the configs accepted, validated, stored and described like Kafka, with no
    #: effect on this broker (see the module docstring)
    effective: bool = True


_HOUR, _MINUTE = 3_600_000, 60_000
_FROM_BROKER: Any = object()


def _unit_factor(broker_name: str) -> int:
    """What turns a broker property's unit into milliseconds (``log.retention.hours``)."""
    return {"hours": _HOUR, "minutes": _MINUTE}.get(broker_name.rsplit(".", 1)[-1], 1)


def _topic(name: str, config_type: str, validator: Validator | None = None, *,
           synonyms: tuple[str, ...] = (), default: Any = _FROM_BROKER,
           effective: bool = True) -> TopicConfigKey:
    """A topic config. Its default is, as in Kafka, the default of the first of its broker
    synonyms that has one, in the topic config's unit; a config without synonyms names its own."""
    syn = tuple((s, _unit_factor(s)) for s in synonyms)
    if default is _FROM_BROKER:
        broker_name, factor = next((s, f) for s, f in syn if BROKER_CONFIGS[s].default is not None)
        default = BROKER_CONFIGS[broker_name].default
        if config_type == LIST:
            default = ",".join(default)
        elif factor != 1:
            default *= factor
    return TopicConfigKey(name, config_type, default, name.replace(".", "_"), validator, syn,
                          effective)


def _same(name: str) -> tuple[str]:
    """The broker property of the same name (``min.insync.replicas``; Kafka's ``sameName``)."""
    return (name,)


def _log(name: str) -> tuple[str]:
    """The broker property with a ``log.`` prefix (``log.preallocate``; Kafka's
    ``sameNameWithLogPrefix``)."""
    return ("log." + name,)


# In Kafka's definition order (LogConfig), which is also the order values are validated in.
TOPIC_CONFIGS: dict[str, TopicConfigKey] = {k.name: k for k in (
    _topic("segment.bytes", INT, at_least(14), synonyms=_log("segment.bytes")),
    _topic("segment.ms", LONG, at_least(1), synonyms=_ROLL),
    _topic("segment.jitter.ms", LONG, at_least(0), synonyms=_ROLL_JITTER),
    _topic("segment.index.bytes", INT, at_least(4), synonyms=("log.index.size.max.bytes",)),
    _topic("flush.messages", LONG, at_least(1), synonyms=("log.flush.interval.messages",)),
    _topic("flush.ms", LONG, at_least(0), synonyms=_FLUSH),
    _topic("retention.bytes", LONG, synonyms=_log("retention.bytes")),
    _topic("retention.ms", LONG, at_least(-1), synonyms=_RETENTION),
    _topic("max.message.bytes", INT, at_least(0), synonyms=("message.max.bytes",)),
    _topic("index.interval.bytes", INT, at_least(0), synonyms=_log("index.interval.bytes")),
    _topic("delete.retention.ms", LONG, at_least(0),
           synonyms=("log.cleaner.delete.retention.ms",)),
    _topic("min.compaction.lag.ms", LONG, at_least(0),
           synonyms=("log.cleaner.min.compaction.lag.ms",)),
    _topic("max.compaction.lag.ms", LONG, at_least(1),
           synonyms=("log.cleaner.max.compaction.lag.ms",)),
    _topic("file.delete.delay.ms", LONG, at_least(0), synonyms=("log.segment.delete.delay.ms",)),
    _topic("min.cleanable.dirty.ratio", DOUBLE, between(0, 1),
           synonyms=("log.cleaner.min.cleanable.ratio",)),
    _topic("cleanup.policy", LIST, each_one_of(*CLEANUP_POLICIES),
           synonyms=_log("cleanup.policy")),
    _topic("unclean.leader.election.enable", BOOLEAN,
           synonyms=_same("unclean.leader.election.enable")),
    _topic("min.insync.replicas", INT, at_least(1), synonyms=_same("min.insync.replicas")),
    _topic("compression.type", STRING, one_of(*COMPRESSION_TYPES),
           synonyms=_same("compression.type")),
    _topic("compression.gzip.level", INT, GZIP_LEVEL, synonyms=_same("compression.gzip.level"),
           effective=False),
    _topic("compression.lz4.level", INT, between(1, 17), synonyms=_same("compression.lz4.level"),
           effective=False),
    _topic("compression.zstd.level", INT, between(-131072, 22),
           synonyms=_same("compression.zstd.level"), effective=False),
    _topic("preallocate", BOOLEAN, synonyms=_log("preallocate"), effective=False),
    _topic("message.format.version", STRING, MESSAGE_FORMAT_VERSION,
           synonyms=_log("message.format.version"), effective=False),
    _topic("message.timestamp.type", STRING, one_of(*TIMESTAMP_TYPES),
           synonyms=_log("message.timestamp.type")),
    _topic("message.timestamp.difference.max.ms", LONG, at_least(0),
           synonyms=_log("message.timestamp.difference.max.ms")),
    _topic("message.timestamp.before.max.ms", LONG, at_least(0),
           synonyms=_log("message.timestamp.before.max.ms")),
    _topic("message.timestamp.after.max.ms", LONG, at_least(0),
           synonyms=_log("message.timestamp.after.max.ms")),
    # (read by the replication quotas, pybroker.quota.replication)
    _topic("leader.replication.throttled.replicas", LIST, THROTTLED_REPLICAS, default=""),
    _topic("follower.replication.throttled.replicas", LIST, THROTTLED_REPLICAS, default=""),
    _topic("message.downconversion.enable", BOOLEAN,
           synonyms=_log("message.downconversion.enable"), effective=False),
    _topic("remote.storage.enable", BOOLEAN, default=False, effective=False),
    _topic("local.retention.ms", LONG, at_least(-2), synonyms=_log("local.retention.ms"),
           effective=False),
    _topic("local.retention.bytes", LONG, at_least(-2), synonyms=_log("local.retention.bytes"),
           effective=False),
    _topic("remote.log.copy.disable", BOOLEAN, default=False, effective=False),
    _topic("remote.log.delete.on.disable", BOOLEAN, default=False, effective=False),
)}

TOPIC_CONFIG_NAMES: tuple[str, ...] = tuple(TOPIC_CONFIGS)

#: the Kafka topic configs that are accepted, stored and described but change nothing here
INERT_TOPIC_CONFIGS = frozenset(k.name for k in TOPIC_CONFIGS.values() if not k.effective)

# topic config name -> broker properties that supply its default (see TopicConfigKey.synonyms)
BROKER_SYNONYMS: dict[str, tuple[tuple[str, int], ...]] = {
    k.name: k.synonyms for k in TOPIC_CONFIGS.values() if k.synonyms
}

#: Kafka's topic configs that no broker property defaults (LogConfig.CONFIGS_WITH_NO_SERVER_DEFAULTS)
CONFIGS_WITH_NO_SERVER_DEFAULTS = frozenset(set(TOPIC_CONFIGS) - set(BROKER_SYNONYMS))


def config_type(name: str) -> str | None:
    key = TOPIC_CONFIGS.get(name)
    return key.type if key else None


def parse_topic_config(name: str, raw: str) -> Any:
    """One topic config value, parsed and validated (ConfigException when refused)."""
    key = TOPIC_CONFIGS[name]
    value = parse_value(name, raw, key.type)
    if key.validator is not None:
        key.validator(name, value)
    return ",".join(value) if key.type == LIST else value


# -- group configs (KIP-848) -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GroupConfigKey:
    """A config of the GROUP resource (Kafka 4.1's ``GroupConfig``): its type, validator and
    default. ``broker`` names the broker property that supplies the default (Kafka's
    ``extractGroupConfigMap``); ``bounds`` the broker properties (or, for the share and streams
    groups this broker does not serve, Kafka's defaults of them) that a value must stay
    within, each checked with Kafka's message."""

    name: str
    type: str
    default: Any
    validator: Validator | None = None
    broker: str | None = None
    #: (the broker property of the minimum, its value here when the catalogue has no such
    #: property), the same for the maximum; None where Kafka checks no such bound
    minimum: tuple[str, int] | None = None
    maximum: tuple[str, int] | None = None
    #: False for the share and streams group configs: accepted, validated, stored and
    #: described as Kafka 4.1 does, with no effect (no share or streams groups are served)
    effective: bool = True


def _group(name: str, config_type: str, default: Any, validator: Validator | None = None, *,
           broker: str | None = None, minimum: tuple[str, int] | None = None,
           maximum: tuple[str, int] | None = None, effective: bool = True) -> GroupConfigKey:
    if broker is not None and broker in BROKER_CONFIGS:
        default = BROKER_CONFIGS[broker].default
    return GroupConfigKey(name, config_type, default, validator, broker, minimum, maximum,
                          effective)


def _bound(broker: str, kafka_default: int) -> tuple[str, int]:
    return (broker, BROKER_CONFIGS[broker].default if broker in BROKER_CONFIGS else kafka_default)


# In Kafka 4.1's definition order (GroupConfig), which is also the order values are parsed in.
GROUP_CONFIGS: dict[str, GroupConfigKey] = {k.name: k for k in (
    _group("consumer.session.timeout.ms", INT, 45000, at_least(1),
           broker="group.consumer.session.timeout.ms",
           minimum=_bound("group.consumer.min.session.timeout.ms", 45000),
           maximum=_bound("group.consumer.max.session.timeout.ms", 60000)),
    _group("consumer.heartbeat.interval.ms", INT, 5000, at_least(1),
           broker="group.consumer.heartbeat.interval.ms",
           minimum=_bound("group.consumer.min.heartbeat.interval.ms", 5000),
           maximum=_bound("group.consumer.max.heartbeat.interval.ms", 15000)),
    _group("share.session.timeout.ms", INT, 45000, at_least(1),
           minimum=_bound("group.share.min.session.timeout.ms", 45000),
           maximum=_bound("group.share.max.session.timeout.ms", 60000), effective=False),
    _group("share.heartbeat.interval.ms", INT, 5000, at_least(1),
           minimum=_bound("group.share.min.heartbeat.interval.ms", 5000),
           maximum=_bound("group.share.max.heartbeat.interval.ms", 15000), effective=False),
    _group("share.record.lock.duration.ms", INT, 30000, at_least(1000),
           minimum=_bound("group.share.min.record.lock.duration.ms", 15000),
           maximum=_bound("group.share.max.record.lock.duration.ms", 60000), effective=False),
    _group("share.auto.offset.reset", STRING, "latest", SHARE_AUTO_OFFSET_RESET,
           effective=False),
    _group("share.isolation.level", STRING, "read_uncommitted",
           one_of("read_committed", "read_uncommitted"), effective=False),
    _group("streams.session.timeout.ms", INT, 45000, at_least(1),
           minimum=_bound("group.streams.min.session.timeout.ms", 45000),
           maximum=_bound("group.streams.max.session.timeout.ms", 60000), effective=False),
    _group("streams.heartbeat.interval.ms", INT, 5000, at_least(1),
           minimum=_bound("group.streams.min.heartbeat.interval.ms", 5000),
           maximum=_bound("group.streams.max.heartbeat.interval.ms", 15000), effective=False),
    _group("streams.num.standby.replicas", INT, 0, at_least(0),
           maximum=_bound("group.streams.max.standby.replicas", 2), effective=False),
)}
