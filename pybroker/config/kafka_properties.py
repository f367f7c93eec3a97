"""Apache Kafka 3.9's broker properties beyond the catalogue, as dynamic configs meet them.

A dynamic broker config (AlterConfigs on a broker, KIP-226) may name any property Kafka knows,
and Kafka answers by what it knows of the name: a read-only property is refused, a dynamic one
is checked against its type and validator and stored, any other name is a custom config, stored
as given. :mod:`.catalogue` holds the properties this broker reads; this module holds the rest
of what those answers need:

* :data:`EXTRA_DYNAMIC` - Kafka's dynamic properties that this broker has no use for (SSL and
  SASL listener settings, thread pools, connection limits, the log cleaner's buffers, tiered
  storage): accepted, validated, stored and described as Kafka does, with no effect here;
* :data:`QUOTA_CONFIGS` - the replication throttles' rates, which exist only as dynamic configs
  (``pybroker.quota.replication`` reads the two replication rates);
* :data:`KAFKA_READ_ONLY` - the name of every read-only broker property of Kafka 3.9.

Types, defaults, validators and update modes are Kafka 3.9's documentation table's, which
``tests/compat/test_config_catalogue.py`` compares with the table Kafka's jars print. A property
the catalogue comes to define is dropped from :data:`EXTRA_DYNAMIC`, so the two never disagree.
"""

from __future__ import annotations

from .catalogue import BROKER_CONFIGS, CLUSTER_WIDE, PER_BROKER, BrokerConfigKey
from .validators import Validator, at_least, one_of
from .values import BOOLEAN, CLASS, DOUBLE, INT, LIST, LONG, LONG_MAX, PASSWORD, SHORT, STRING


def _key(name: str, config_type: str, default: object, validator: Validator | None = None, *,
         mode: str) -> BrokerConfigKey:
    return BrokerConfigKey(name, config_type, default, validator, mode, described=False)


_EXTRA = (
    _key("background.threads", INT, 10, at_least(1), mode=CLUSTER_WIDE),
    _key("listener.security.protocol.map", STRING,
         "SASL_SSL:SASL_SSL,PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT",
         mode=PER_BROKER),
    _key("log.cleaner.dedupe.buffer.size", LONG, 134217728, mode=CLUSTER_WIDE),
    _key("log.cleaner.io.buffer.load.factor", DOUBLE, 0.9, mode=CLUSTER_WIDE),
    _key("log.cleaner.io.buffer.size", INT, 524288, at_least(0), mode=CLUSTER_WIDE),
    _key("log.cleaner.io.max.bytes.per.second", DOUBLE, 1.7976931348623157e+308,
         mode=CLUSTER_WIDE),
    _key("log.cleaner.threads", INT, 1, at_least(0), mode=CLUSTER_WIDE),
    _key("max.connection.creation.rate", INT, 2147483647, at_least(0), mode=CLUSTER_WIDE),
    _key("max.connections", INT, 2147483647, at_least(0), mode=CLUSTER_WIDE),
    _key("max.connections.per.ip", INT, 2147483647, at_least(0), mode=CLUSTER_WIDE),
    _key("max.connections.per.ip.overrides", STRING, "", mode=CLUSTER_WIDE),
    _key("metric.reporters", LIST, [], mode=CLUSTER_WIDE),
    _key("num.io.threads", INT, 8, at_least(1), mode=CLUSTER_WIDE),
    _key("num.network.threads", INT, 3, at_least(1), mode=CLUSTER_WIDE),
    _key("num.recovery.threads.per.data.dir", INT, 1, at_least(1), mode=CLUSTER_WIDE),
    _key("principal.builder.class", CLASS,
         "org.apache.kafka.common.security.authenticator.DefaultKafkaPrincipalBuilder",
         mode=PER_BROKER),
    _key("producer.id.expiration.ms", INT, 86400000, at_least(1), mode=CLUSTER_WIDE),
    _key("remote.fetch.max.wait.ms", INT, 500, at_least(1), mode=CLUSTER_WIDE),
    _key("remote.log.index.file.cache.total.size.bytes", LONG, 1073741824, at_least(1),
         mode=CLUSTER_WIDE),
    _key("remote.log.manager.copy.max.bytes.per.second", LONG, LONG_MAX, at_least(1),
         mode=CLUSTER_WIDE),
    _key("remote.log.manager.fetch.max.bytes.per.second", LONG, LONG_MAX, at_least(1),
         mode=CLUSTER_WIDE),
    _key("sasl.enabled.mechanisms", LIST, ["GSSAPI"], mode=PER_BROKER),
    _key("sasl.jaas.config", PASSWORD, None, mode=PER_BROKER),
    _key("sasl.kerberos.kinit.cmd", STRING, "/usr/bin/kinit", mode=PER_BROKER),
    _key("sasl.kerberos.min.time.before.relogin", LONG, 60000, mode=PER_BROKER),
    _key("sasl.kerberos.principal.to.local.rules", LIST, ["DEFAULT"], mode=PER_BROKER),
    _key("sasl.kerberos.service.name", STRING, None, mode=PER_BROKER),
    _key("sasl.kerberos.ticket.renew.jitter", DOUBLE, 0.05, mode=PER_BROKER),
    _key("sasl.kerberos.ticket.renew.window.factor", DOUBLE, 0.8, mode=PER_BROKER),
    _key("sasl.login.refresh.buffer.seconds", SHORT, 300, mode=PER_BROKER),
    _key("sasl.login.refresh.min.period.seconds", SHORT, 60, mode=PER_BROKER),
    _key("sasl.login.refresh.window.factor", DOUBLE, 0.8, mode=PER_BROKER),
    _key("sasl.login.refresh.window.jitter", DOUBLE, 0.05, mode=PER_BROKER),
    _key("sasl.mechanism.inter.broker.protocol", STRING, "GSSAPI", mode=PER_BROKER),
    _key("ssl.cipher.suites", LIST, [], mode=PER_BROKER),
    _key("ssl.client.auth", STRING, "none", one_of("required", "requested", "none"),
         mode=PER_BROKER),
    _key("ssl.enabled.protocols", LIST, ["TLSv1.2", "TLSv1.3"], mode=PER_BROKER),
    _key("ssl.endpoint.identification.algorithm", STRING, "https", mode=PER_BROKER),
    _key("ssl.engine.factory.class", CLASS, None, mode=PER_BROKER),
    _key("ssl.key.password", PASSWORD, None, mode=PER_BROKER),
    _key("ssl.keymanager.algorithm", STRING, "SunX509", mode=PER_BROKER),
    _key("ssl.keystore.certificate.chain", PASSWORD, None, mode=PER_BROKER),
    _key("ssl.keystore.key", PASSWORD, None, mode=PER_BROKER),
    _key("ssl.keystore.location", STRING, None, mode=PER_BROKER),
    _key("ssl.keystore.password", PASSWORD, None, mode=PER_BROKER),
    _key("ssl.keystore.type", STRING, "JKS", mode=PER_BROKER),
    _key("ssl.protocol", STRING, "TLSv1.3", mode=PER_BROKER),
    _key("ssl.provider", STRING, None, mode=PER_BROKER),
    _key("ssl.secure.random.implementation", STRING, None, mode=PER_BROKER),
    _key("ssl.trustmanager.algorithm", STRING, "PKIX", mode=PER_BROKER),
    _key("ssl.truststore.certificates", PASSWORD, None, mode=PER_BROKER),
    _key("ssl.truststore.location", STRING, None, mode=PER_BROKER),
    _key("ssl.truststore.password", PASSWORD, None, mode=PER_BROKER),
    _key("ssl.truststore.type", STRING, "JKS", mode=PER_BROKER),
    _key("transaction.partition.verification.enable", BOOLEAN, True, mode=CLUSTER_WIDE),
)

#: Kafka's dynamic broker properties that the catalogue does not define, by name
EXTRA_DYNAMIC: dict[str, BrokerConfigKey] = {
    k.name: k for k in _EXTRA if k.name not in BROKER_CONFIGS}

#: the replication throttles (Kafka's QuotaConfigs.brokerQuotaConfigs): dynamic configs only,
#: which no server.properties sets; Kafka lists them apart from its dynamic properties, so
#: DescribeConfigs shows them read-only
QUOTA_CONFIGS: dict[str, BrokerConfigKey] = {k.name: k for k in (
    BrokerConfigKey(name, LONG, LONG_MAX, at_least(0), described=False)
    for name in ("leader.replication.throttled.rate", "follower.replication.throttled.rate",
                 "replica.alter.log.dirs.io.max.bytes.per.second"))}

#: every read-only broker property of Kafka 3.9: a dynamic config naming one is refused
KAFKA_READ_ONLY: frozenset[str] = frozenset({
    "alter.config.policy.class.name", "alter.log.dirs.replication.quota.window.num",
    "alter.log.dirs.replication.quota.window.size.seconds", "authorizer.class.name",
    "auto.create.topics.enable", "auto.include.jmx.reporter", "auto.leader.rebalance.enable",
    "broker.heartbeat.interval.ms", "broker.id", "broker.id.generation.enable", "broker.rack",
    "broker.session.timeout.ms", "client.quota.callback.class",
    "connection.failed.authentication.delay.ms", "connections.max.idle.ms",
    "connections.max.reauth.ms", "control.plane.listener.name", "controlled.shutdown.enable",
    "controlled.shutdown.max.retries", "controlled.shutdown.retry.backoff.ms",
    "controller.listener.names", "controller.quorum.append.linger.ms",
    "controller.quorum.bootstrap.servers", "controller.quorum.election.backoff.max.ms",
    "controller.quorum.election.timeout.ms", "controller.quorum.fetch.timeout.ms",
    "controller.quorum.request.timeout.ms", "controller.quorum.retry.backoff.ms",
    "controller.quorum.voters", "controller.quota.window.num",
    "controller.quota.window.size.seconds", "controller.socket.timeout.ms",
    "create.topic.policy.class.name", "default.replication.factor",
    "delegation.token.expiry.check.interval.ms", "delegation.token.expiry.time.ms",
    "delegation.token.master.key", "delegation.token.max.lifetime.ms",
    "delegation.token.secret.key", "delete.records.purgatory.purge.interval.requests",
    "delete.topic.enable", "early.start.listeners", "eligible.leader.replicas.enable",
    "fetch.max.bytes", "fetch.purgatory.purge.interval.requests", "group.consumer.assignors",
    "group.consumer.heartbeat.interval.ms", "group.consumer.max.heartbeat.interval.ms",
    "group.consumer.max.session.timeout.ms", "group.consumer.max.size",
    "group.consumer.min.heartbeat.interval.ms", "group.consumer.min.session.timeout.ms",
    "group.consumer.session.timeout.ms", "group.coordinator.append.linger.ms",
    "group.coordinator.rebalance.protocols", "group.coordinator.threads",
    "group.initial.rebalance.delay.ms", "group.max.session.timeout.ms", "group.max.size",
    "group.min.session.timeout.ms", "group.share.delivery.count.limit",
    "group.share.heartbeat.interval.ms", "group.share.max.groups",
    "group.share.max.heartbeat.interval.ms", "group.share.max.record.lock.duration.ms",
    "group.share.max.session.timeout.ms", "group.share.max.size",
    "group.share.min.heartbeat.interval.ms", "group.share.min.record.lock.duration.ms",
    "group.share.min.session.timeout.ms", "group.share.partition.max.record.locks",
    "group.share.record.lock.duration.ms", "group.share.session.timeout.ms",
    "initial.broker.registration.timeout.ms", "inter.broker.listener.name",
    "inter.broker.protocol.version", "kafka.metrics.polling.interval.secs",
    "kafka.metrics.reporters", "leader.imbalance.check.interval.seconds",
    "leader.imbalance.per.broker.percentage", "log.cleaner.enable", "log.dir",
    "log.dir.failure.timeout.ms", "log.dirs", "log.flush.offset.checkpoint.interval.ms",
    "log.flush.scheduler.interval.ms", "log.flush.start.offset.checkpoint.interval.ms",
    "log.message.format.version", "log.retention.check.interval.ms", "log.retention.hours",
    "log.retention.minutes", "log.roll.hours", "log.roll.jitter.hours",
    "max.incremental.fetch.session.cache.slots", "max.request.partition.size.limit",
    "metadata.log.dir", "metadata.log.max.record.bytes.between.snapshots",
    "metadata.log.max.snapshot.interval.ms", "metadata.log.segment.bytes",
    "metadata.log.segment.ms", "metadata.max.idle.interval.ms", "metadata.max.retention.bytes",
    "metadata.max.retention.ms", "metrics.num.samples", "metrics.recording.level",
    "metrics.sample.window.ms", "node.id", "num.partitions", "num.replica.alter.log.dirs.threads",
    "offset.metadata.max.bytes", "offsets.commit.required.acks", "offsets.commit.timeout.ms",
    "offsets.load.buffer.size", "offsets.retention.check.interval.ms",
    "offsets.retention.minutes", "offsets.topic.compression.codec",
    "offsets.topic.num.partitions", "offsets.topic.replication.factor",
    "offsets.topic.segment.bytes", "password.encoder.cipher.algorithm",
    "password.encoder.iterations", "password.encoder.key.length",
    "password.encoder.keyfactory.algorithm", "password.encoder.old.secret",
    "password.encoder.secret", "process.roles", "producer.purgatory.purge.interval.requests",
    "queued.max.request.bytes", "queued.max.requests", "quota.window.num",
    "quota.window.size.seconds", "remote.log.manager.copier.thread.pool.size",
    "remote.log.manager.copy.quota.window.num",
    "remote.log.manager.copy.quota.window.size.seconds",
    "remote.log.manager.expiration.thread.pool.size", "remote.log.manager.fetch.quota.window.num",
    "remote.log.manager.fetch.quota.window.size.seconds", "remote.log.manager.task.interval.ms",
    "remote.log.manager.thread.pool.size", "remote.log.metadata.custom.metadata.max.bytes",
    "remote.log.metadata.manager.class.name", "remote.log.metadata.manager.class.path",
    "remote.log.metadata.manager.impl.prefix", "remote.log.metadata.manager.listener.name",
    "remote.log.reader.max.pending.tasks", "remote.log.reader.threads",
    "remote.log.storage.manager.class.name", "remote.log.storage.manager.class.path",
    "remote.log.storage.manager.impl.prefix", "remote.log.storage.system.enable",
    "replica.fetch.backoff.ms", "replica.fetch.max.bytes", "replica.fetch.min.bytes",
    "replica.fetch.response.max.bytes", "replica.fetch.wait.max.ms",
    "replica.high.watermark.checkpoint.interval.ms", "replica.lag.time.max.ms",
    "replica.selector.class", "replica.socket.receive.buffer.bytes", "replica.socket.timeout.ms",
    "replication.quota.window.num", "replication.quota.window.size.seconds", "request.timeout.ms",
    "reserved.broker.max.id", "sasl.client.callback.handler.class",
    "sasl.login.callback.handler.class", "sasl.login.class", "sasl.login.connect.timeout.ms",
    "sasl.login.read.timeout.ms", "sasl.login.retry.backoff.max.ms",
    "sasl.login.retry.backoff.ms", "sasl.mechanism.controller.protocol",
    "sasl.oauthbearer.clock.skew.seconds", "sasl.oauthbearer.expected.audience",
    "sasl.oauthbearer.expected.issuer", "sasl.oauthbearer.jwks.endpoint.refresh.ms",
    "sasl.oauthbearer.jwks.endpoint.retry.backoff.max.ms",
    "sasl.oauthbearer.jwks.endpoint.retry.backoff.ms", "sasl.oauthbearer.jwks.endpoint.url",
    "sasl.oauthbearer.scope.claim.name", "sasl.oauthbearer.sub.claim.name",
    "sasl.oauthbearer.token.endpoint.url", "sasl.server.callback.handler.class",
    "sasl.server.max.receive.size", "security.inter.broker.protocol", "security.providers",
    "socket.connection.setup.timeout.max.ms", "socket.connection.setup.timeout.ms",
    "socket.listen.backlog.size", "socket.receive.buffer.bytes", "socket.request.max.bytes",
    "socket.send.buffer.bytes", "ssl.allow.dn.changes", "ssl.allow.san.changes",
    "ssl.principal.mapping.rules", "telemetry.max.bytes",
    "transaction.abort.timed.out.transaction.cleanup.interval.ms", "transaction.max.timeout.ms",
    "transaction.remove.expired.transaction.cleanup.interval.ms",
    "transaction.state.log.load.buffer.size", "transaction.state.log.min.isr",
    "transaction.state.log.num.partitions", "transaction.state.log.replication.factor",
    "transaction.state.log.segment.bytes", "transactional.id.expiration.ms",
    "zookeeper.clientCnxnSocket", "zookeeper.connect", "zookeeper.connection.timeout.ms",
    "zookeeper.max.in.flight.requests", "zookeeper.metadata.migration.enable",
    "zookeeper.session.timeout.ms", "zookeeper.set.acl", "zookeeper.ssl.cipher.suites",
    "zookeeper.ssl.client.enable", "zookeeper.ssl.crl.enable", "zookeeper.ssl.enabled.protocols",
    "zookeeper.ssl.endpoint.identification.algorithm", "zookeeper.ssl.keystore.location",
    "zookeeper.ssl.keystore.password", "zookeeper.ssl.keystore.type", "zookeeper.ssl.ocsp.enable",
    "zookeeper.ssl.protocol", "zookeeper.ssl.truststore.location",
    "zookeeper.ssl.truststore.password", "zookeeper.ssl.truststore.type",
})
