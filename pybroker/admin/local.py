"""The admin seam on the embedded single node: every change is decided at once by the local
controller, so every :data:`~pybroker.admin.Outcome` here is the result itself. A dynamic
broker config is stored in the local metadata store and applied to this broker at once (it is
the whole cluster, so the cluster-wide defaults are its too)."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from protocol.errors import ErrorCode, KafkaError
from pybroker.admin import NewPartitions, NewTopic
from pybroker.config.dynamic import DEFAULT_ENTITY
from pybroker.controller import replicas
from pybroker.kernel.types import Reassignment, TopicPartition
from pybroker.metadata.model import TopicRecord

if TYPE_CHECKING:
    from pybroker.config.dynamic import DynamicBrokerConfig
    from pybroker.controller.local import LocalController

log = logging.getLogger(__name__)


class LocalAdminManager:
    def __init__(self, controller: LocalController, *, default_partitions: int,
                 default_replication_factor: int,
                 dynamic_config: DynamicBrokerConfig | None = None) -> None:
        self.controller = controller
        self.defaults = (default_partitions, default_replication_factor)
        #: where stored dynamic broker configs take effect (this node is the whole cluster)
        self.dynamic_config = dynamic_config

    def create_topics(self, topics: Sequence[NewTopic], *, validate_only: bool,
                      timeout_ms: int, now_ms: int) -> list[TopicRecord | KafkaError]:
        results: list[TopicRecord | KafkaError] = []
        for t in topics:
            try:
                results.append(self.controller.create_topic(
                    t.name, t.num_partitions, t.replication_factor,
                    assignments={p: list(r) for p, r in t.assignments.items()}
                    if t.assignments else None,
                    configs=t.configs, validate_only=validate_only, now_ms=now_ms,
                    defaults=self.defaults))
            except KafkaError as e:
                results.append(e)
        return results

    def delete_topics(self, names: Sequence[str], *, timeout_ms: int, now_ms: int,
                      ) -> list[TopicRecord | KafkaError]:
        results: list[TopicRecord | KafkaError] = []
        for name in names:
            try:
                results.append(self.controller.delete_topic(name))
            except KafkaError as e:
                results.append(e)
        return results

    def create_partitions(self, requests: Sequence[NewPartitions], *, validate_only: bool,
                          timeout_ms: int, now_ms: int) -> list[KafkaError | None]:
        results: list[KafkaError | None] = []
        for r in requests:
            try:
                self.controller.create_partitions(
                    r.topic, r.count,
                    [list(a) for a in r.assignments] if r.assignments is not None else None,
                    validate_only=validate_only, now_ms=now_ms)
            except KafkaError as e:
                results.append(e)
            else:
                results.append(None)
        return results

    def alter_topic_configs(self, topic: str, overrides: Mapping[str, str], *,
                            validate_only: bool) -> KafkaError | None:
        if topic not in self.controller.topics:
            return KafkaError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
                              f"The topic '{topic}' does not exist.")
        if not validate_only:
            try:
                self.controller.set_topic_configs(topic, overrides)
            except KafkaError as e:
                return e
        return None

    def broker_configs(self, entity: str) -> dict[str, str]:
        return self.controller.broker_configs(entity)

    def alter_broker_configs(self, entity: str, configs: Mapping[str, str],
                             ) -> KafkaError | None:
        self.controller.set_broker_configs(entity, configs)
        dynamic = self.dynamic_config
        if dynamic is not None:
            if entity == DEFAULT_ENTITY:
                dynamic.update_default_config(configs)
            elif entity == str(dynamic.broker_id):
                dynamic.update_broker_config(configs)
        return None

    def elect_leaders(self, partitions: Sequence[TopicPartition], election_type: int, *,
                      timeout_ms: int, now_ms: int) -> dict[TopicPartition, KafkaError | None]:
        return replicas.elect_leaders(self.controller, partitions, election_type)

    def alter_partition_reassignments(
        self, targets: Mapping[TopicPartition, Sequence[int] | None], *, timeout_ms: int,
        now_ms: int) -> dict[TopicPartition, KafkaError | None]:
        results: dict[TopicPartition, KafkaError | None] = {}
        for (topic, partition), target in targets.items():
            try:
                replicas.reassign_partition(self.controller, topic, partition, target)
            except KafkaError as e:
                results[(topic, partition)] = e
            else:
                results[(topic, partition)] = None
        return results

    def list_partition_reassignments(self, partitions: Sequence[TopicPartition] | None,
                                     ) -> dict[TopicPartition, Reassignment]:
        return {tp: Reassignment(tuple(r), tuple(a), tuple(d)) for tp, (r, a, d)
                in replicas.ongoing_reassignments(self.controller, partitions).items()}

    def create_internal_topic(self, name: str, num_partitions: int, replication_factor: int,
                              configs: Mapping[str, str], now_ms: int) -> KafkaError | None:
        if name in self.controller.topics:
            return None
        replication = max(1, min(replication_factor, len(self.controller.live_brokers)))
        try:
            self.controller.create_topic(
                name, num_partitions, replication, assignments=None, configs=configs,
                validate_only=False, now_ms=now_ms, defaults=(num_partitions, replication))
        except KafkaError as e:
            if e.code == ErrorCode.TOPIC_ALREADY_EXISTS:
                return None
            log.error("Could not create %s: %s", name, e)
            return e
        log.info("Created %s with %d partitions and replication factor %d", name,
                 num_partitions, replication)
        return None
