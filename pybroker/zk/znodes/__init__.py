"""Kafka's znodes: one codec per znode, with Kafka 3.9's paths and JSON (``kafka.zk.ZkData``).

Each ``*ZNode`` class holds a znode's path (``PATH`` when fixed, ``path(...)`` when it names
something) and, where the znode has content, ``encode`` and ``decode``. The values are frozen
dataclasses. Writing Kafka's exact shapes lets Kafka's own tools read a pybroker cluster's
ZooKeeper, and lets pybroker read what Kafka wrote.

Decoding follows Kafka: older versions of a znode are read where Kafka reads them (broker
registrations from version 1, topic assignments without ``topic_id`` or the adding/removing
sets, controller registrations without ``kraftControllerEpoch``, version-1 config change
notifications); an empty znode reads as Kafka reads it (no configs, no assignment, no producer
id block yet). Bytes that are not the JSON a znode holds raise :class:`ZNodeDecodeError`.
Encoding always writes the current version, except for broker registrations, which carry the
version they were registered with.

The codecs live by family, as ``ZkData.scala`` groups them: ``brokers`` (the cluster id and
broker registrations), ``topics`` (assignments and partition states), ``controller`` (the
controller, admin requests, the notifications brokers leave for the controller, producer id
blocks), ``configs`` (entity configs, ACLs and their change notifications) and ``tokens``
(delegation tokens and their change notifications), over ``codec``
(Kafka's JSON and UUIDs). Every public name is imported from here, as from one module.
"""

from __future__ import annotations

from pybroker.zk.znodes.brokers import (
    DEFAULT_SECURITY_PROTOCOL_MAP,
    BrokerIdsZNode,
    BrokerIdZNode,
    BrokerRegistration,
    BrokerSequenceIdZNode,
    BrokersZNode,
    ClusterIdZNode,
    ClusterZNode,
    ConsumerPathZNode,
    EndPoint,
)
from pybroker.zk.znodes.codec import (
    ZERO_UUID,
    ZNodeDecodeError,
    new_base64_uuid,
    uuid_from_string,
    uuid_to_string,
)
from pybroker.zk.znodes.configs import (
    ACL_RESOURCE_TYPES,
    CONFIG_BROKER,
    CONFIG_CLIENT,
    CONFIG_GROUP,
    CONFIG_IP,
    CONFIG_TOPIC,
    CONFIG_TYPES,
    CONFIG_USER,
    AclChangeNotificationZNode,
    AclZNode,
    ConfigEntityChangeNotificationSequenceZNode,
    ConfigEntityChangeNotificationZNode,
    ConfigEntityTypeZNode,
    ConfigEntityZNode,
    ConfigZNode,
    GroupConfigChangeNotificationZNode,
    desanitize,
    sanitize,
)
from pybroker.zk.znodes.controller import (
    PRODUCER_ID_BLOCK_SIZE,
    AdminZNode,
    ControllerEpochZNode,
    ControllerRegistration,
    ControllerZNode,
    DeleteTopicsTopicZNode,
    DeleteTopicsZNode,
    FeatureZNode,
    IsrChangeNotificationSequenceZNode,
    IsrChangeNotificationZNode,
    LogDirEventNotificationSequenceZNode,
    LogDirEventNotificationZNode,
    PreferredReplicaElectionZNode,
    ProducerIdBlockZNode,
    ProducerIdsBlock,
    ReassignPartitionsZNode,
)
from pybroker.zk.znodes.tokens import (
    DelegationTokenAuthZNode,
    DelegationTokenChangeNotificationZNode,
    DelegationTokenInfoZNode,
)
from pybroker.zk.znodes.topics import (
    RECOVERED,
    RECOVERING,
    LeaderIsrAndControllerEpoch,
    ReplicaAssignment,
    TopicAssignment,
    TopicPartitionStateZNode,
    TopicPartitionsZNode,
    TopicPartitionZNode,
    TopicsZNode,
    TopicZNode,
)

#: persistent paths every broker makes sure exist at start-up (Kafka's
#: ``ZkData.PersistentZkPaths``)
PERSISTENT_ZK_PATHS: tuple[str, ...] = (
    ConsumerPathZNode.PATH,
    BrokerIdsZNode.PATH,
    TopicsZNode.PATH,
    ConfigEntityChangeNotificationZNode.PATH,
    DeleteTopicsZNode.PATH,
    BrokerSequenceIdZNode.PATH,
    IsrChangeNotificationZNode.PATH,
    ProducerIdBlockZNode.PATH,
    LogDirEventNotificationZNode.PATH,
    *(ConfigEntityTypeZNode.path(t) for t in CONFIG_TYPES),
)

__all__ = [
    "ACL_RESOURCE_TYPES",
    "AclChangeNotificationZNode",
    "AclZNode",
    "DelegationTokenAuthZNode",
    "DelegationTokenChangeNotificationZNode",
    "DelegationTokenInfoZNode",
    "AdminZNode",
    "BrokerIdZNode",
    "BrokerIdsZNode",
    "BrokerRegistration",
    "BrokerSequenceIdZNode",
    "BrokersZNode",
    "CONFIG_BROKER",
    "CONFIG_CLIENT",
    "CONFIG_GROUP",
    "CONFIG_IP",
    "CONFIG_TOPIC",
    "CONFIG_TYPES",
    "CONFIG_USER",
    "ClusterIdZNode",
    "ClusterZNode",
    "ConfigEntityChangeNotificationSequenceZNode",
    "ConfigEntityChangeNotificationZNode",
    "ConfigEntityTypeZNode",
    "GroupConfigChangeNotificationZNode",
    "ConfigEntityZNode",
    "ConfigZNode",
    "ConsumerPathZNode",
    "ControllerEpochZNode",
    "ControllerRegistration",
    "ControllerZNode",
    "DEFAULT_SECURITY_PROTOCOL_MAP",
    "DeleteTopicsTopicZNode",
    "DeleteTopicsZNode",
    "FeatureZNode",
    "EndPoint",
    "IsrChangeNotificationSequenceZNode",
    "IsrChangeNotificationZNode",
    "LeaderIsrAndControllerEpoch",
    "LogDirEventNotificationSequenceZNode",
    "LogDirEventNotificationZNode",
    "PERSISTENT_ZK_PATHS",
    "PRODUCER_ID_BLOCK_SIZE",
    "PreferredReplicaElectionZNode",
    "ProducerIdBlockZNode",
    "ProducerIdsBlock",
    "RECOVERED",
    "RECOVERING",
    "ReassignPartitionsZNode",
    "ReplicaAssignment",
    "TopicAssignment",
    "TopicPartitionStateZNode",
    "TopicPartitionZNode",
    "TopicPartitionsZNode",
    "TopicZNode",
    "TopicsZNode",
    "ZERO_UUID",
    "ZNodeDecodeError",
    "desanitize",
    "new_base64_uuid",
    "sanitize",
    "uuid_from_string",
    "uuid_to_string",
]
