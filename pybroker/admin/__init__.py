"""The admin seam: how handlers change the cluster's layout, whichever controller runs it.

CreateTopics, DeleteTopics, CreatePartitions, topic config changes, dynamic broker configs,
group configs, leader elections and partition reassignments (and the creation of the internal
topics the coordinators need) go through one :class:`AdminManager`. What it returns is an
:data:`~pybroker.kernel.outcome.Outcome`: the results at once, or a future of them. A broker
writes the request to the znode tree (a ZooKeeper ensemble, or the embedded node's own file)
and the outcome arrives later from the controller (LeaderAndIsr, UpdateMetadata), so the
answer waits in a purgatory, as in Kafka's ``ZkAdminManager`` (:mod:`pybroker.modes.zookeeper.admin`).
Handlers use :func:`~pybroker.kernel.outcome.when_ready` and never need to know when.

Results never share mutable state with the controller: topics come back as the immutable
records of :mod:`pybroker.metadata.model`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from protocol.errors import KafkaError
from pybroker.kernel.outcome import Outcome
from pybroker.kernel.types import Reassignment, TopicPartition
from pybroker.metadata.model import TopicRecord
from pybroker.quota.manager import UNBOUNDED_MUTATIONS, MutationQuota

__all__ = ["AdminManager", "NewPartitions", "NewTopic"]

#: ElectLeaders election types
PREFERRED = 0
UNCLEAN = 1


@dataclass(frozen=True, slots=True)
class NewTopic:
    """A topic to create. -1 asks for the broker's default (``num.partitions``,
    ``default.replication.factor``); ``assignments`` (partition -> replicas) excludes both."""

    name: str
    num_partitions: int = -1
    replication_factor: int = -1
    assignments: Mapping[int, Sequence[int]] | None = None
    configs: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class NewPartitions:
    """Grow ``topic`` to ``count`` partitions, optionally with explicit replica lists."""

    topic: str
    count: int
    assignments: Sequence[Sequence[int]] | None = None


class AdminManager(Protocol):
    """Changes to the cluster's layout. Each result is per item: a record or None when it
    succeeded, the :class:`KafkaError` (Kafka's code and message) when it did not."""

    #: how long a Metadata request that auto-creates a topic waits for it to be led: 0 answers
    #: LEADER_NOT_AVAILABLE at once, as Kafka does; the embedded node, whose controller is its
    #: own, answers with the leader
    auto_create_timeout_ms: int

    def create_topics(self, topics: Sequence[NewTopic], *, validate_only: bool,
                      timeout_ms: int, now_ms: int,
                      mutations: MutationQuota = UNBOUNDED_MUTATIONS,
                      ) -> Outcome[list[TopicRecord | KafkaError]]:
        """``mutations``: the client's controller mutation quota, charged each topic's
        partitions before it is created (a strict one refuses a topic once exhausted)."""
        ...

    def wait_until_led(self, topic: str, timeout_ms: int) -> Outcome[bool]:
        """True once every partition of ``topic`` has a leader; False when ``timeout_ms``
        passes first."""
        ...

    def delete_topics(self, names: Sequence[str], *, timeout_ms: int, now_ms: int,
                      mutations: MutationQuota = UNBOUNDED_MUTATIONS,
                      ) -> Outcome[list[TopicRecord | KafkaError]]: ...

    def create_partitions(self, requests: Sequence[NewPartitions], *, validate_only: bool,
                          timeout_ms: int, now_ms: int,
                          mutations: MutationQuota = UNBOUNDED_MUTATIONS,
                          ) -> Outcome[list[KafkaError | None]]: ...

    def alter_topic_configs(self, topic: str, overrides: Mapping[str, str], *,
                            validate_only: bool) -> Outcome[KafkaError | None]:
        """Replace ``topic``'s overrides with ``overrides`` (already validated by the
        caller against the topic config catalogue)."""
        ...

    def topic_configs(self, topic: str) -> Outcome[dict[str, str]]:
        """A topic's overrides as the store holds them now (Kafka's DescribeConfigs reads
        ZooKeeper, not the broker's copy, which follows the change notifications)."""
        ...

    def broker_configs(self, entity: str) -> Outcome[dict[str, str]]:
        """The dynamic broker configs stored for ``entity``: a broker id, or ``<default>`` for
        the cluster-wide defaults (none when nothing is stored)."""
        ...

    def alter_broker_configs(self, entity: str, configs: Mapping[str, str],
                             ) -> Outcome[KafkaError | None]:
        """Replace ``entity``'s stored dynamic broker configs with ``configs`` (already
        checked by the caller); the brokers concerned apply them (every broker for
        ``<default>``)."""
        ...

    def group_configs(self, group: str) -> Outcome[dict[str, str]]:
        """A group's config overrides as the store holds them now (KIP-848's GROUP
        resource; none when nothing is stored)."""
        ...

    def alter_group_configs(self, group: str, configs: Mapping[str, str],
                            ) -> Outcome[KafkaError | None]:
        """Replace a group's stored overrides with ``configs`` (already checked by the
        caller); every broker's group coordinator follows them."""
        ...

    def elect_leaders(self, partitions: Sequence[TopicPartition], election_type: int, *,
                      timeout_ms: int, now_ms: int,
                      ) -> Outcome[dict[TopicPartition, KafkaError | None]]: ...

    def alter_partition_reassignments(
        self, targets: Mapping[TopicPartition, Sequence[int] | None], *, timeout_ms: int,
        now_ms: int) -> Outcome[dict[TopicPartition, KafkaError | None]]: ...

    def list_partition_reassignments(self, partitions: Sequence[TopicPartition] | None,
                                     ) -> Outcome[dict[TopicPartition, Reassignment]]: ...

    def create_internal_topic(self, name: str, num_partitions: int, replication_factor: int,
                              configs: Mapping[str, str], now_ms: int,
                              ) -> Outcome[KafkaError | None]:
        """Create a coordinator's topic (``__consumer_offsets``, ``__transaction_state``) if it
        does not exist; the replication factor is capped at the live brokers. A topic that
        already exists is success."""
        ...
