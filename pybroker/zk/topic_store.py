"""The ZooKeeper-mode admin manager's topic store
(``pybroker.modes.zookeeper.admin.TopicStore``) over
:class:`~pybroker.zk.kafka_zk.KafkaZkClient`.

It is the part of Kafka's ``AdminZkClient`` a broker uses to answer CreateTopics,
CreatePartitions, DeleteTopics and config changes (topics', and dynamic broker configs under
``/config/brokers``), with ZooKeeper's outcomes turned into the
errors Kafka answers with (TOPIC_ALREADY_EXISTS, NOT_CONTROLLER when there is no controller to
fence the config write against, REASSIGNMENT_IN_PROGRESS, UNKNOWN_TOPIC_OR_PARTITION).
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence

from protocol.errors import ErrorCode, KafkaError
from pybroker.zk.client import BadVersionError, NodeExistsError, NoNodeError
from pybroker.zk.kafka_zk import KafkaZkClient
from pybroker.zk.kafka_zk_base import ControllerMovedError
from pybroker.zk.kafka_zk_topics import TopicExistsError
from pybroker.zk.znodes import (
    CONFIG_BROKER,
    CONFIG_TOPIC,
    ZERO_UUID,
    ReplicaAssignment,
    TopicAssignment,
)


class ZkTopicStore:
    def __init__(self, zk: KafkaZkClient) -> None:
        self.zk = zk

    async def get_all_topics(self) -> list[str]:
        return sorted(await self.zk.get_all_topics())

    async def get_replica_assignment(self, topic: str
                                     ) -> tuple[uuid.UUID, dict[int, list[int]], int] | None:
        """(topic id, partition -> replicas, topic znode version), or None when there is no
        such topic. A topic being reassigned cannot grow (REASSIGNMENT_IN_PROGRESS), as in
        Kafka's ``ZkAdminManager.createPartitions``; a topic written without an id has the
        zero UUID."""
        found = (await self.zk.get_replica_assignment_and_topic_ids([topic])).get(topic)
        if found is None or not found[0].partitions:
            return None
        assignment, version = found
        if any(a.adding_replicas or a.removing_replicas for a in assignment.partitions.values()):
            raise KafkaError(ErrorCode.REASSIGNMENT_IN_PROGRESS,
                             f"A partition reassignment is in progress for the topic '{topic}'.")
        replicas = {p: list(a.replicas) for p, a in assignment.partitions.items()}
        return assignment.topic_id or ZERO_UUID, replicas, version

    async def create_topic(self, topic: str, topic_id: uuid.UUID,
                           assignment: Mapping[int, Sequence[int]],
                           configs: Mapping[str, str]) -> None:
        try:
            await self.zk.create_topic_assignment(topic, topic_id, assignment, configs)
        except TopicExistsError as e:
            raise KafkaError(ErrorCode.TOPIC_ALREADY_EXISTS, str(e)) from e
        except ControllerMovedError as e:
            raise KafkaError(ErrorCode.NOT_CONTROLLER, str(e)) from e

    async def add_partitions(self, topic: str, topic_id: uuid.UUID,
                             assignment: Mapping[int, Sequence[int]], version: int) -> None:
        """Write the grown assignment if the topic znode is still at ``version``; partitions
        that existed keep what a reassignment recorded for them."""
        found = (await self.zk.get_replica_assignment_and_topic_ids([topic])).get(topic)
        if found is None:
            raise KafkaError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
                             f"The topic '{topic}' does not exist.")
        existing, _ = found
        merged: dict[int, ReplicaAssignment] = {}
        for p, replicas in assignment.items():
            old = existing.partitions.get(p)
            merged[p] = (old if old is not None and old.replicas == tuple(replicas)
                         else ReplicaAssignment(tuple(replicas)))
        ident = existing.topic_id or (None if topic_id == ZERO_UUID else topic_id)
        try:
            await self.zk.set_topic_assignment(topic, TopicAssignment(ident, merged),
                                               version=version)
        except BadVersionError as e:
            raise KafkaError(ErrorCode.UNKNOWN_SERVER_ERROR,
                             f"The assignment of topic '{topic}' changed while partitions were "
                             "being added.") from e
        except NoNodeError as e:
            raise KafkaError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
                             f"The topic '{topic}' does not exist.") from e

    async def request_topic_deletion(self, topic: str) -> None:
        """Mark the topic for deletion (Kafka's ``AdminZkClient.deleteTopic``); one already
        marked is left as is, as ``ZkAdminManager`` lets repeated deletes wait together."""
        if not await self.zk.topic_exists(topic):
            raise KafkaError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
                             f"Topic `{topic}` to delete does not exist")
        try:
            await self.zk.create_delete_topic_path(topic)
        except NodeExistsError:
            pass

    async def set_topic_config(self, topic: str, configs: Mapping[str, str]) -> None:
        try:
            await self.zk.set_topic_config(topic, configs)
        except ControllerMovedError as e:
            raise KafkaError(ErrorCode.NOT_CONTROLLER, str(e)) from e

    async def get_broker_config(self, entity: str) -> dict[str, str]:
        return await self.zk.get_entity_configs(CONFIG_BROKER, entity)

    async def get_topic_config(self, topic: str) -> dict[str, str]:
        return await self.zk.get_entity_configs(CONFIG_TOPIC, topic)

    async def set_broker_config(self, entity: str, configs: Mapping[str, str]) -> None:
        try:
            await self.zk.set_broker_config(entity, configs)
        except ControllerMovedError as e:
            raise KafkaError(ErrorCode.NOT_CONTROLLER, str(e)) from e

    async def get_group_config(self, group: str) -> dict[str, str]:
        return await self.zk.get_group_config(group)

    async def set_group_config(self, group: str, configs: Mapping[str, str]) -> None:
        try:
            await self.zk.set_group_config(group, configs)
        except ControllerMovedError as e:
            raise KafkaError(ErrorCode.NOT_CONTROLLER, str(e)) from e
