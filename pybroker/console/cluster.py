"""What the console knows of one cluster, asked of the cluster itself each time a page is
drawn: an admin client of confluent-kafka (librdkafka) for almost everything, and the
generated codecs over a plain connection for the one call librdkafka's admin API lacks here
(DescribeLogDirs, for sizes).

Every method returns plain data (dicts and lists of JSON types), the same for the pages and
for the JSON API; a call Kafka refuses raises :class:`KafkaCallError` with Kafka's error name
and message, which both show as Kafka gives them.

Large clusters: the lists take a page (``offset``, ``limit``) and a sort key, and only the
rows of that page cost more than the cluster's metadata - offsets, sizes, and the groups'
descriptions and committed offsets are asked for those rows alone.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from confluent_kafka import (
    ConsumerGroupTopicPartitions,
    ElectionType,
    KafkaException,
    TopicPartition,
)
from confluent_kafka.admin import (
    AclBinding,
    AdminClient,
    AlterConfigOpType,
    ConfigEntry,
    ConfigResource,
    ConfigSource,
    NewPartitions,
    NewTopic,
    OffsetSpec,
    ResourceType,
)

from protocol.errors import ErrorCode
from protocol.messages import (
    ApiKey,
    alter_partition_reassignments_request,
    describe_log_dirs_request,
    list_partition_reassignments_request,
)
from pybroker.compat.wire import WireConnection
from pybroker.console import messages, reassign, security
from pybroker.console.errors import TIMEOUT, KafkaCallError, result as _result, results as _results
from pybroker.console.settings import ClusterSettings

#: Kafka's internal topics (Metadata's ``is_internal``; librdkafka's metadata lacks it)
INTERNAL_TOPICS = frozenset({"__consumer_offsets", "__transaction_state"})
#: ConsumerGroupState as Kafka names the states (kafka-consumer-groups, DescribeGroups)
GROUP_STATES = {"UNKNOWN": "Unknown", "PREPARING_REBALANCING": "PreparingRebalance",
                "COMPLETING_REBALANCING": "CompletingRebalance", "STABLE": "Stable",
                "DEAD": "Dead", "EMPTY": "Empty"}
#: ConfigSource as Kafka's DescribeConfigs and kafka-configs name the sources
CONFIG_SOURCES = {ConfigSource.UNKNOWN_CONFIG: "UNKNOWN",
                  ConfigSource.DYNAMIC_TOPIC_CONFIG: "DYNAMIC_TOPIC_CONFIG",
                  ConfigSource.DYNAMIC_BROKER_CONFIG: "DYNAMIC_BROKER_CONFIG",
                  ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG: "DYNAMIC_DEFAULT_BROKER_CONFIG",
                  ConfigSource.STATIC_BROKER_CONFIG: "STATIC_BROKER_CONFIG",
                  ConfigSource.DEFAULT_CONFIG: "DEFAULT_CONFIG",
                  ConfigSource.GROUP_CONFIG: "GROUP_CONFIG"}


def _config_source(source: Any) -> str:
    """librdkafka gives a config's source as ConfigSource's number."""
    try:
        return CONFIG_SOURCES[ConfigSource(int(getattr(source, "value", source)))]
    except (ValueError, KeyError):
        return "UNKNOWN"


def _s(items: list[Any]) -> str:
    """The tool's plural: "broker 0", "brokers 0,1"."""
    return "" if len(items) == 1 else "s"


def _wire_error(code: int, message: str | None) -> KafkaCallError:
    """An error code of an answer read over the generated codecs, named as Kafka names it."""
    try:
        name = ErrorCode(code).name
    except ValueError:
        name = f"UNKNOWN_ERROR_CODE_{code}"
    return KafkaCallError(name, message or "", code)


@dataclass(frozen=True)
class Page:
    """Which rows of a list: ``limit`` of them from ``offset``, sorted by ``sort`` (a column
    name; ``-name`` for descending), keeping those whose name contains ``search``."""

    offset: int = 0
    limit: int = 50
    sort: str = "name"
    search: str = ""

    @property
    def column(self) -> str:
        return self.sort.lstrip("-")

    def take(self, rows: list[dict[str, Any]]) -> tuple[int, list[dict[str, Any]]]:
        """The total after the search, and this page's rows, sorted by the column (then by
        name); rows whose value is unknown come last either way."""
        if self.search:
            rows = [r for r in rows if self.search.lower() in str(r["name"]).lower()]
        column = self.column
        known = sorted((r for r in rows if r.get(column) is not None),
                       key=lambda r: (r[column], r["name"]), reverse=self.sort.startswith("-"))
        unknown = sorted((r for r in rows if r.get(column) is None), key=lambda r: r["name"])
        ordered = known + unknown
        return len(ordered), ordered[self.offset:self.offset + self.limit]


class ClusterClient:
    """One configured cluster. Thread-safe: the web server calls it from several threads,
    and librdkafka's admin client is thread-safe."""

    def __init__(self, settings: ClusterSettings) -> None:
        self.settings = settings
        self._lock = threading.Lock()
        self._admin: AdminClient | None = None

    @property
    def admin(self) -> AdminClient:
        with self._lock:
            if self._admin is None:
                self._admin = AdminClient(self._client_config())
            return self._admin

    # -- the cluster ----------------------------------------------------------------------

    def _metadata(self) -> Any:
        try:
            return self.admin.list_topics(timeout=TIMEOUT)
        except KafkaException as e:
            raise KafkaCallError.of(e.args[0]) from None

    def overview(self) -> dict[str, Any]:
        """Brokers (id, host, port, rack, controller, leaders and replicas held), topic and
        partition counts, and the partitions that are under-replicated, under their
        ``min.insync.replicas`` or offline."""
        described = _result(self.admin.describe_cluster(request_timeout=TIMEOUT))
        metadata = self._metadata()
        controller = described.controller.id if described.controller is not None else None
        leaders: dict[int, int] = {}
        replicas: dict[int, int] = {}
        partitions = under_replicated = offline = 0
        topics = metadata.topics
        for topic in topics.values():
            for p in topic.partitions.values():
                partitions += 1
                if p.leader >= 0:
                    leaders[p.leader] = leaders.get(p.leader, 0) + 1
                else:
                    offline += 1
                for r in p.replicas:
                    replicas[r] = replicas.get(r, 0) + 1
                if len(p.isrs) < len(p.replicas):
                    under_replicated += 1
        min_isr = self._topic_configs(list(topics), "min.insync.replicas")
        under_min_isr = sum(
            1 for name, topic in topics.items() for p in topic.partitions.values()
            if p.leader >= 0 and len(p.isrs) < int(min_isr.get(name) or 1))
        brokers = [{"id": n.id, "host": n.host, "port": n.port, "rack": n.rack,
                    "controller": n.id == controller, "leaders": leaders.get(n.id, 0),
                    "partitions": replicas.get(n.id, 0)}
                   for n in sorted(described.nodes, key=lambda n: n.id)]
        return {"name": self.settings.name, "cluster_id": described.cluster_id,
                "controller": controller, "brokers": brokers, "topics": len(topics),
                "partitions": partitions, "under_replicated": under_replicated,
                "under_min_isr": under_min_isr, "offline": offline}

    def _topic_configs(self, topics: Iterable[str], config: str) -> dict[str, str | None]:
        """One config's value for each topic (DescribeConfigs, all topics in one call)."""
        resources = [ConfigResource(ResourceType.TOPIC, t) for t in topics]
        if not resources:
            return {}
        out: dict[str, str | None] = {}
        for resource, entries in _results(self.admin.describe_configs(
                resources, request_timeout=TIMEOUT)).items():
            if isinstance(entries, KafkaCallError):
                continue
            entry = entries.get(config)
            out[resource.name] = entry.value if entry is not None else None
        return out

    # -- topics ---------------------------------------------------------------------------

    def topics(self, page: Page = Page(), rates: dict[str, float] | None = None
               ) -> tuple[int, list[dict[str, Any]]]:
        """A page of topics: name, partitions, replication factor, internal, the partitions
        under-replicated, messages (end - start offsets), size on disk (the leaders'
        replicas) and, given the brokers' ``rates``, messages in per second; the total count
        of topics the search matched."""
        metadata = self._metadata()
        rows = [{"name": name, "partitions": len(t.partitions),
                 "replication_factor": max((len(p.replicas) for p in t.partitions.values()),
                                           default=0),
                 "internal": name in INTERNAL_TOPICS,
                 "under_replicated": sum(1 for p in t.partitions.values()
                                         if len(p.isrs) < len(p.replicas))}
                for name, t in metadata.topics.items()]
        for r in rows:
            r["messages_in_per_sec"] = None if rates is None else rates.get(r["name"], 0.0)
        costly = page.column in ("messages", "size")
        if costly:  # sorting on them needs them for every topic
            self._add_messages_and_sizes(rows, metadata)
        total, rows = page.take(rows)
        if not costly:
            self._add_messages_and_sizes(rows, metadata)
        return total, rows

    def _add_messages_and_sizes(self, rows: list[dict[str, Any]], metadata: Any) -> None:
        names = {r["name"] for r in rows}
        tps = [(name, p) for name in names for p in metadata.topics[name].partitions]
        start, end = self._offsets(tps, OffsetSpec.earliest()), self._offsets(
            tps, OffsetSpec.latest())
        sizes = self._sizes(names, metadata)
        for r in rows:
            parts = metadata.topics[r["name"]].partitions
            known = [p for p in parts if (r["name"], p) in start and (r["name"], p) in end]
            r["messages"] = sum(end[(r["name"], p)] - start[(r["name"], p)] for p in known) \
                if len(known) == len(parts) else None
            leader_sizes = [sizes.get((r["name"], p, parts[p].leader)) for p in parts]
            r["size"] = None if any(s is None for s in leader_sizes) else \
                sum(s for s in leader_sizes if s is not None)

    def _offsets(self, tps: list[tuple[str, int]], spec: OffsetSpec) -> dict[tuple[str, int], int]:
        if not tps:
            return {}
        futures = self.admin.list_offsets({TopicPartition(t, p): spec for t, p in tps},
                                          request_timeout=TIMEOUT)
        return {(tp.topic, tp.partition): info.offset
                for tp, info in _results(futures).items()
                if not isinstance(info, KafkaCallError)}

    def _sizes(self, topics: set[str], metadata: Any) -> dict[tuple[str, int, int], int]:
        """``(topic, partition, broker) -> bytes`` from every broker's DescribeLogDirs (the
        current replicas, not future ones of a log-dir move)."""
        out: dict[tuple[str, int, int], int] = {}
        if not topics:
            return out
        wanted = [describe_log_dirs_request.DescribableLogDirTopic(
            topic=t, partitions=sorted(metadata.topics[t].partitions)) for t in sorted(topics)]
        for broker in metadata.brokers.values():
            try:
                with WireConnection(f"{broker.host}:{broker.port}", timeout=TIMEOUT,
                                    client_id="pybroker-console",
                                    security=self.settings.security) as conn:
                    answer = conn.call(ApiKey.DESCRIBE_LOG_DIRS, 1,
                                       describe_log_dirs_request.DescribeLogDirsRequest(
                                           topics=wanted))
            except Exception:  # noqa: BLE001 - a broker that cannot say: sizes unknown
                continue
            for result in answer.results:
                if result.error_code:
                    continue
                for topic in result.topics:
                    for p in topic.partitions:
                        if not p.is_future_key:
                            key = (topic.name, p.partition_index, broker.id)
                            out[key] = out.get(key, 0) + p.partition_size
        return out

    def topic(self, name: str) -> dict[str, Any]:
        """Every partition (leader, replicas, ISR, offline, log start and end offsets, size
        of the leader's replica) and the topic's configs, each with its source."""
        metadata = self._metadata()
        topic = metadata.topics.get(name)
        if topic is None or (topic.error is not None and not topic.partitions):
            raise KafkaCallError("UNKNOWN_TOPIC_OR_PARTITION",
                                 "This server does not host this topic-partition.", 3)
        tps = [(name, p) for p in topic.partitions]
        start, end = self._offsets(tps, OffsetSpec.earliest()), self._offsets(
            tps, OffsetSpec.latest())
        sizes = self._sizes({name}, metadata)
        partitions = [{"partition": p.id, "leader": p.leader if p.leader >= 0 else None,
                       "replicas": list(p.replicas), "isr": list(p.isrs),
                       "under_replicated": len(p.isrs) < len(p.replicas),
                       "offline": p.leader < 0,
                       "start_offset": start.get((name, p.id)),
                       "end_offset": end.get((name, p.id)),
                       "size": sizes.get((name, p.id, p.leader))}
                      for p in sorted(topic.partitions.values(), key=lambda p: p.id)]
        return {"name": name, "internal": name in INTERNAL_TOPICS,
                "partitions": partitions,
                "replication_factor": max((len(p["replicas"]) for p in partitions), default=0),
                "configs": self.topic_configs(name)}

    def topic_configs(self, name: str) -> list[dict[str, Any]]:
        """The topic's configs as kafka-configs --describe --all shows them: each value with
        its source, overrides (DYNAMIC_TOPIC_CONFIG) told apart from defaults; sensitive
        values hidden."""
        resource = ConfigResource(ResourceType.TOPIC, name)
        entries = _result(self.admin.describe_configs(
            [resource], request_timeout=TIMEOUT)[resource])
        rows = []
        for entry in sorted(entries.values(), key=lambda e: e.name):
            source = _config_source(entry.source)
            rows.append({"name": entry.name,
                         "value": None if entry.is_sensitive else entry.value,
                         "source": source, "override": source == "DYNAMIC_TOPIC_CONFIG",
                         "read_only": bool(entry.is_read_only),
                         "sensitive": bool(entry.is_sensitive)})
        return rows

    # -- messages -------------------------------------------------------------------------

    def _client_config(self) -> dict[str, Any]:
        return {"bootstrap.servers": self.settings.bootstrap, "client.id": "pybroker-console",
                **self.settings.security.confluent()}

    def _partitions_of(self, topic: str) -> list[int]:
        found = self._metadata().topics.get(topic)
        if found is None or (found.error is not None and not found.partitions):
            raise KafkaCallError("UNKNOWN_TOPIC_OR_PARTITION",
                                 "This server does not host this topic-partition.", 3)
        return sorted(found.partitions)

    def messages(self, topic: str, b: messages.Browse) -> dict[str, Any]:
        """A partition's records as :func:`messages.browse` reads them, with the topic's
        partition numbers (for the page's choice of partition)."""
        partitions = self._partitions_of(topic)
        if b.partition not in partitions:
            raise KafkaCallError("UNKNOWN_TOPIC_OR_PARTITION",
                                 f"{topic} has no partition {b.partition}.", 3)
        return {**messages.browse(self._client_config(), topic, b), "partitions": partitions}

    def produce(self, topic: str, *, value: str, key: str | None = None,
                partition: int | None = None,
                headers: list[tuple[str, str]] | None = None) -> dict[str, Any]:
        """One test record (acks=all); its partition and offset."""
        self._partitions_of(topic)
        return messages.produce(self._client_config(), topic, value=value, key=key,
                                partition=partition, headers=headers)

    # -- reassignment -------------------------------------------------------------------

    def _controller_call(self, api_key: int, version: int, body: Any) -> Any:
        """A request the controller must answer, over a connection of its own."""
        return self._wire_call(api_key, version, body, controller=True)

    def _wire_call(self, api_key: int, version: int, body: Any, controller: bool) -> Any:
        """A request over the generated codecs to the controller or to any broker; an
        error code at the top of the answer raised as Kafka's error."""
        described = _result(self.admin.describe_cluster(request_timeout=TIMEOUT))
        node = described.controller if controller else min(
            described.nodes, key=lambda n: n.id, default=None)
        if node is None:
            raise KafkaCallError("NOT_CONTROLLER", "The cluster has no controller now.", 41)
        try:
            with WireConnection(f"{node.host}:{node.port}", timeout=TIMEOUT,
                                client_id="pybroker-console",
                                security=self.settings.security) as conn:
                answer = conn.call(api_key, version, body)
        except (OSError, ConnectionError) as e:
            raise KafkaCallError("NETWORK_EXCEPTION", str(e), 13) from None
        if getattr(answer, "error_code", 0):
            raise _wire_error(answer.error_code, getattr(answer, "error_message", None))
        return answer

    def assignment(self, topics: Iterable[str] | None = None) -> reassign.Assignment:
        """Each partition's replicas, of ``topics`` or of every topic."""
        metadata = self._metadata()
        names = sorted(metadata.topics) if topics is None else list(topics)
        out: reassign.Assignment = {}
        for name in names:
            topic = metadata.topics.get(name)
            if topic is None or (topic.error is not None and not topic.partitions):
                raise KafkaCallError("UNKNOWN_TOPIC_OR_PARTITION",
                                     f"Topic {name} not found.", 3)
            for p in topic.partitions.values():
                out[(name, p.id)] = list(p.replicas)
        return out

    def brokers(self) -> list[tuple[int, str | None]]:
        described = _result(self.admin.describe_cluster(request_timeout=TIMEOUT))
        return sorted((n.id, n.rack or None) for n in described.nodes)

    def generate_reassignment(self, topics: list[str], brokers: list[int] | None,
                              rack_aware: bool = True) -> dict[str, Any]:
        """``kafka-reassign-partitions --generate``: the current assignment of ``topics`` and
        a proposal over ``brokers`` (all when None), both as the tool's JSON."""
        if not topics:
            raise reassign.PlanError("List at least one topic to move.")
        if brokers is not None and len(set(brokers)) != len(brokers):
            raise reassign.PlanError("Broker list contains duplicate entries: "
                                     + ",".join(str(b) for b in sorted(brokers)))
        known = self.brokers()
        usable = [(b, rack) for b, rack in known if brokers is None or b in brokers]
        missing = sorted(set(brokers or []) - {b for b, _ in known})
        if missing:
            raise reassign.PlanError("The broker list contains unknown brokers: "
                                     + ",".join(map(str, missing)))
        current = self.assignment(topics)
        proposed = reassign.generate(current, usable, rack_aware)
        return {"current": reassign.plan_json(current),
                "proposed": reassign.plan_json(proposed),
                "brokers": [b for b, _ in usable]}

    def reassignments(self) -> list[dict[str, Any]]:
        """The reassignments in progress (ListPartitionReassignments): each partition's
        replicas, those being added and removed, and how far the added ones have copied
        (their size on disk against the leader's)."""
        answer = self._controller_call(
            ApiKey.LIST_PARTITION_REASSIGNMENTS, 0,
            list_partition_reassignments_request.ListPartitionReassignmentsRequest(
                timeout_ms=int(TIMEOUT * 1000), topics=None))
        rows = [{"topic": t.name, "partition": p.partition_index, "replicas": list(p.replicas),
                 "adding": list(p.adding_replicas), "removing": list(p.removing_replicas)}
                for t in answer.topics for p in t.partitions]
        rows.sort(key=lambda r: (r["topic"], r["partition"]))
        if rows:
            metadata = self._metadata()
            topics = {r["topic"] for r in rows if r["topic"] in metadata.topics}
            sizes = self._sizes(topics, metadata)
            for r in rows:
                parts = metadata.topics[r["topic"]].partitions if r["topic"] in topics else {}
                part = parts.get(r["partition"])
                leader = part.leader if part is not None else -1
                r["leader"] = leader if leader >= 0 else None
                r["leader_size"] = sizes.get((r["topic"], r["partition"], leader))
                r["adding_sizes"] = {str(b): sizes.get((r["topic"], r["partition"], b))
                                     for b in r["adding"]}
        return rows

    def execute_reassignment(self, plan: reassign.Assignment, throttle: int | None = None,
                             additional: bool = False) -> list[dict[str, Any]]:
        """``kafka-reassign-partitions --execute``: refused while another reassignment runs
        (unless ``additional``) or when the plan names brokers or partitions the cluster
        lacks; with a ``throttle`` (bytes/s), the replication throttles the tool sets first;
        then AlterPartitionReassignments, each partition's outcome as Kafka gives it."""
        if self.reassignments() and not additional:
            raise KafkaCallError(
                "REASSIGNMENT_IN_PROGRESS", "Cannot execute because there is an existing "
                "partition assignment.  Use --additional to override this and create a new "
                "partition assignment in addition to the existing one.", 60)
        missing = reassign.missing_brokers(plan, (b for b, _ in self.brokers()))
        if missing:
            raise reassign.PlanError("The proposed assignment contains non-existent brokerIDs: "
                                     + ",".join(map(str, missing)))
        current = self.assignment(sorted({t for t, _ in plan}))
        unknown = sorted(tp for tp in plan if tp not in current)
        if unknown:
            raise reassign.PlanError("Unable to find partition: "
                                     + ",".join(f"{t}-{p}" for t, p in unknown))
        if throttle is not None:
            self._set_throttles(current, plan, throttle)
        by_topic: dict[str, list[alter_partition_reassignments_request.ReassignablePartition]] = {}
        for (t, p), replicas in sorted(plan.items()):
            by_topic.setdefault(t, []).append(
                alter_partition_reassignments_request.ReassignablePartition(
                    partition_index=p, replicas=replicas))
        answer = self._controller_call(
            ApiKey.ALTER_PARTITION_REASSIGNMENTS, 0,
            alter_partition_reassignments_request.AlterPartitionReassignmentsRequest(
                timeout_ms=int(TIMEOUT * 1000),
                topics=[alter_partition_reassignments_request.ReassignableTopic(
                    name=t, partitions=parts) for t, parts in by_topic.items()]))
        rows = []
        for topic in answer.responses:
            for p in topic.partitions:
                failure = _wire_error(p.error_code, p.error_message) if p.error_code else None
                rows.append({"topic": topic.name, "partition": p.partition_index,
                             "replicas": plan.get((topic.name, p.partition_index)),
                             "error": failure.name if failure else None,
                             "message": failure.message if failure else None})
        return sorted(rows, key=lambda r: (r["topic"], r["partition"]))

    def _alter_configs(self, resources: list[ConfigResource]) -> None:
        """IncrementalAlterConfigs: the topics in one call, each broker in one of its own
        (librdkafka sends a broker's configs to that broker, one per request)."""
        topics = [r for r in resources if r.restype != ResourceType.BROKER]
        batches = [topics] if topics else []
        batches += [[r] for r in resources if r.restype == ResourceType.BROKER]
        for batch in batches:
            for outcome in _results(self.admin.incremental_alter_configs(
                    batch, request_timeout=TIMEOUT)).values():
                if isinstance(outcome, KafkaCallError):
                    raise outcome

    def _set_throttles(self, current: reassign.Assignment, plan: reassign.Assignment,
                       rate: int) -> None:
        """What ``--throttle`` sets: the moving replicas on each topic, and the rates on
        each broker that sends or receives."""
        topics = [ConfigResource(ResourceType.TOPIC, topic, incremental_configs=[
            ConfigEntry(name, value, incremental_operation=AlterConfigOpType.SET)
            for name, value in configs.items()])
            for topic, configs in reassign.throttled_replicas(current, plan).items()]
        brokers = [ConfigResource(ResourceType.BROKER, str(b), incremental_configs=[
            ConfigEntry(name, str(rate), incremental_operation=AlterConfigOpType.SET)
            for name in (reassign.LEADER_RATE, reassign.FOLLOWER_RATE)])
            for b in reassign.reassigning_brokers(current, plan)]
        self._alter_configs(topics + brokers)

    def verify_reassignment(self, plan: reassign.Assignment,
                            preserve_throttles: bool = False) -> dict[str, Any]:
        """``kafka-reassign-partitions --verify``: each partition's state in the tool's words;
        once none is in progress, the throttles cleared as the tool clears them (the rates on
        every broker, the throttled replicas of the plan's topics) unless preserved."""
        ongoing = [(r["topic"], r["partition"]) for r in self.reassignments()]
        topics = sorted({t for t, _ in plan})
        rows = reassign.verify(plan, self.assignment(topics), ongoing)
        cleared: list[str] = []
        if not preserve_throttles and not any(r["state"] == "in_progress" for r in rows):
            brokers = [b for b, _ in self.brokers()]
            self._alter_configs([ConfigResource(ResourceType.BROKER, str(b), incremental_configs=[
                ConfigEntry(name, "", incremental_operation=AlterConfigOpType.DELETE)
                for name in (reassign.LEADER_RATE, reassign.FOLLOWER_RATE,
                             reassign.LOG_DIR_RATE)]) for b in brokers])
            cleared.append(f"Clearing broker-level throttles on broker{_s(brokers)} "
                           + ",".join(map(str, brokers)))
            self._alter_configs([ConfigResource(ResourceType.TOPIC, t, incremental_configs=[
                ConfigEntry(name, "", incremental_operation=AlterConfigOpType.DELETE)
                for name in (reassign.LEADER_REPLICAS, reassign.FOLLOWER_REPLICAS)])
                for t in topics])
            cleared.append(f"Clearing topic-level throttles on topic{_s(topics)} "
                           + ",".join(topics))
        return {"partitions": rows, "cleared": cleared}

    # -- ACLs and SCRAM users -------------------------------------------------------------

    def acls(self) -> dict[str, Any]:
        """Every ACL, and whether the cluster has an authorizer at all (one without answers
        DescribeAcls with SECURITY_DISABLED)."""
        try:
            answer = self._wire_call(ApiKey.DESCRIBE_ACLS, 1, security.DESCRIBE_EVERY_ACL,
                                     controller=False)
            return {"authorizer": True, "acls": security.acl_rows(answer)}
        except KafkaCallError as e:
            if e.name == "SECURITY_DISABLED":
                return {"authorizer": False, "acls": [], "message": e.message}
            raise

    def create_acl(self, acl: AclBinding) -> None:
        security.create_acl(self.admin, acl)

    def delete_acl(self, acl: AclBinding) -> int:
        return security.delete_acl(self.admin, acl)

    def users(self) -> list[dict[str, Any]]:
        return security.users(self.admin)

    def upsert_user(self, user: str, mechanism: str, iterations: int, password: str) -> None:
        security.upsert_user(self.admin, user, mechanism, iterations, password)

    def delete_user_credential(self, user: str, mechanism: str) -> None:
        security.delete_user_credential(self.admin, user, mechanism)

    # -- consumer groups ------------------------------------------------------------------

    def groups(self, page: Page = Page()) -> tuple[int, list[dict[str, Any]]]:
        """A page of consumer groups: id, state, members, and lag summed over the partitions
        it has committed offsets for (the log end offset minus the committed offset, as
        kafka-consumer-groups computes it)."""
        listed = _result(self.admin.list_consumer_groups(request_timeout=TIMEOUT))
        rows = [{"name": g.group_id, "group_id": g.group_id,
                 "state": GROUP_STATES.get(g.state.name, g.state.name) if g.state else None,
                 "simple": bool(g.is_simple_consumer_group)}
                for g in listed.valid]
        costly = page.column in ("lag", "members")
        if costly:
            self._add_lag(rows)
        total, rows = page.take(rows)
        if not costly:
            self._add_lag(rows)
        for r in rows:
            del r["name"]
        return total, rows

    def _add_lag(self, rows: list[dict[str, Any]]) -> None:
        ids = [r["group_id"] for r in rows]
        descriptions = _results(self.admin.describe_consumer_groups(
            ids, request_timeout=TIMEOUT)) if ids else {}
        committed = {g: self._committed(g) for g in ids}
        ends = self._offsets(sorted({tp for c in committed.values() for tp in c}),
                             OffsetSpec.latest())
        for r in rows:
            d = descriptions.get(r["group_id"])
            r["members"] = None if d is None or isinstance(d, KafkaCallError) else len(d.members)
            offsets = committed[r["group_id"]]
            lags = [max(0, ends[tp] - o) for tp, o in offsets.items() if tp in ends]
            r["lag"] = sum(lags) if offsets and len(lags) == len(offsets) else (
                0 if not offsets else None)
            r["partitions"] = len(offsets)

    def _committed(self, group: str) -> dict[tuple[str, int], int]:
        futures = self.admin.list_consumer_group_offsets(
            [ConsumerGroupTopicPartitions(group)], request_timeout=TIMEOUT)
        try:
            answer = _result(futures[group])
        except KafkaCallError:
            return {}
        return {(tp.topic, tp.partition): tp.offset for tp in answer.topic_partitions
                if tp.error is None and tp.offset >= 0}

    def group(self, group_id: str) -> dict[str, Any]:
        """State, assignor, coordinator, members (id, client id, host, instance id,
        assignment) and each partition's committed offset, end offset and lag, with the
        totals."""
        d = _result(self.admin.describe_consumer_groups(
            [group_id], request_timeout=TIMEOUT)[group_id])
        committed = self._committed(group_id)
        owners = {(tp.topic, tp.partition): m.member_id for m in d.members
                  for tp in m.assignment.topic_partitions}
        wanted = sorted(set(committed) | set(owners))
        ends = self._offsets(wanted, OffsetSpec.latest())
        offsets = []
        for tp in wanted:
            done, end = committed.get(tp), ends.get(tp)
            offsets.append({"topic": tp[0], "partition": tp[1], "committed": done,
                            "end_offset": end, "member": owners.get(tp),
                            "lag": None if done is None or end is None else max(0, end - done)})
        state = GROUP_STATES.get(d.state.name, d.state.name) if d.state else None
        known = [o["lag"] for o in offsets if o["lag"] is not None]
        return {
            "group_id": group_id, "state": state, "simple": bool(d.is_simple_consumer_group),
            "assignor": d.partition_assignor or None,
            "coordinator": d.coordinator.id if d.coordinator is not None else None,
            "members": [{"member_id": m.member_id, "client_id": m.client_id, "host": m.host,
                         "instance_id": m.group_instance_id,
                         "assignment": [{"topic": tp.topic, "partition": tp.partition}
                                        for tp in sorted(m.assignment.topic_partitions,
                                                         key=lambda tp: (tp.topic,
                                                                         tp.partition))]}
                        for m in sorted(d.members, key=lambda m: m.member_id)],
            "offsets": offsets, "lag": sum(known) if known else 0,
            "partitions": len(offsets)}

    # -- actions ----------------------------------------------------------------------------

    def create_topic(self, name: str, partitions: int | None, replication_factor: int | None,
                     configs: dict[str, str]) -> None:
        """CreateTopics; ``None`` partitions or replication factor: the broker's defaults
        (``num.partitions``, ``default.replication.factor``), as kafka-topics leaves them."""
        topic = NewTopic(name, num_partitions=-1 if partitions is None else partitions,
                         replication_factor=-1 if replication_factor is None
                         else replication_factor, config=configs)
        _result(self.admin.create_topics([topic], request_timeout=TIMEOUT)[name])

    def delete_topic(self, name: str) -> None:
        _result(self.admin.delete_topics([name], request_timeout=TIMEOUT)[name])

    def add_partitions(self, name: str, total: int) -> None:
        """CreatePartitions: the topic has ``total`` partitions afterwards."""
        _result(self.admin.create_partitions([NewPartitions(name, total)],
                                             request_timeout=TIMEOUT)[name])

    def alter_topic_config(self, topic: str, name: str, value: str | None) -> None:
        """IncrementalAlterConfigs: set ``name`` to ``value``, or remove its override
        (``None``), as kafka-configs --add-config / --delete-config do."""
        entry = ConfigEntry(name, value if value is not None else "",
                            incremental_operation=AlterConfigOpType.SET if value is not None
                            else AlterConfigOpType.DELETE)
        resource = ConfigResource(ResourceType.TOPIC, topic, incremental_configs=[entry])
        _result(self.admin.incremental_alter_configs([resource],
                                                     request_timeout=TIMEOUT)[resource])

    def elect_preferred_leaders(self, topic: str | None) -> list[dict[str, Any]]:
        """ElectLeaders (preferred) for every partition of ``topic``, or of every topic
        (``None``); each partition's outcome as Kafka gives it (``ELECTION_NOT_NEEDED`` when
        the preferred replica already leads; for every topic, Kafka lists only the
        partitions it elected or failed to)."""
        partitions = None
        if topic is not None:
            metadata = self._metadata()
            if topic not in metadata.topics:
                raise KafkaCallError("UNKNOWN_TOPIC_OR_PARTITION",
                                     "This server does not host this topic-partition.", 3)
            partitions = [TopicPartition(topic, p) for p in sorted(metadata.topics[topic].partitions)]
        # (no request_timeout: confluent-kafka 2.16's elect_leaders fails on any keyword
        # argument with a SystemError; the admin client's default timeout applies)
        answer = _result(self.admin.elect_leaders(ElectionType.PREFERRED, partitions))
        rows = []
        for tp, error in sorted(answer.items(), key=lambda kv: (kv[0].topic, kv[0].partition)):
            failure = KafkaCallError.of(error) if error is not None else None
            rows.append({"topic": tp.topic, "partition": tp.partition,
                         "error": failure.name if failure else None,
                         "message": failure.message if failure else None})
        return rows

    def reset_offsets(self, group_id: str, to: str, value: int | None = None,
                      topic: str | None = None) -> list[dict[str, Any]]:
        """What kafka-consumer-groups --reset-offsets --execute does: the group's committed
        partitions (or all of ``topic``'s) moved to the earliest or latest offset, the first
        offset at or after a timestamp (ms), or a given offset (clamped to the log's range, as
        the tool clamps it). Refused unless the group is Empty or Dead, with the tool's
        words."""
        d = _result(self.admin.describe_consumer_groups(
            [group_id], request_timeout=TIMEOUT)[group_id])
        state = GROUP_STATES.get(d.state.name, d.state.name) if d.state else "Unknown"
        if state not in ("Empty", "Dead"):
            raise KafkaCallError(
                "GROUP_NOT_EMPTY", f"Assignments can only be reset if the group '{group_id}' "
                f"is inactive, but the current state is {state}.")
        if to not in ("earliest", "latest", "timestamp", "offset"):
            raise ValueError(f"reset to earliest, latest, timestamp or offset, not {to!r}")
        if to in ("timestamp", "offset") and value is None:
            raise ValueError(f"a reset to a {to} needs one")
        if topic is not None:
            metadata = self._metadata()
            if topic not in metadata.topics:
                raise KafkaCallError("UNKNOWN_TOPIC_OR_PARTITION",
                                     "This server does not host this topic-partition.", 3)
            tps = [(topic, p) for p in sorted(metadata.topics[topic].partitions)]
        else:
            tps = sorted(self._committed(group_id))
        if not tps:
            return []
        earliest = self._offsets(tps, OffsetSpec.earliest())
        latest = self._offsets(tps, OffsetSpec.latest())
        if to == "timestamp":
            assert value is not None
            found = self._offsets(tps, OffsetSpec.for_timestamp(value))
            # no record at or after the timestamp: the end of the log, as the tool does
            target = {tp: found[tp] if found.get(tp, -1) >= 0 else latest[tp] for tp in tps}
        elif to == "offset":
            assert value is not None
            target = {tp: min(max(value, earliest[tp]), latest[tp]) for tp in tps}
        else:
            target = dict(earliest if to == "earliest" else latest)
        request = ConsumerGroupTopicPartitions(
            group_id, [TopicPartition(t, p, target[(t, p)]) for t, p in tps])
        _result(self.admin.alter_consumer_group_offsets([request],
                                                        request_timeout=TIMEOUT)[group_id])
        return [{"topic": t, "partition": p, "offset": target[(t, p)]} for t, p in tps]
