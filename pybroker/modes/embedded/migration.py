"""The single node's metadata as releases before the one control plane kept it, moved into
the znode tree once.

Those releases kept the embedded node's cluster metadata in one JSON document in its first log
dir (``__pybroker_metadata.json``, format 1): the cluster id, the topics with their partitions
and config overrides, the next producer id, the dynamic broker configs, the ACL documents by
their ZooKeeper paths and the users' SCRAM credentials. :func:`migrate` writes each as the
znodes a ZooKeeper-mode cluster keeps it in; the logs themselves need nothing.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pybroker.metadata.model import PartitionRecord, TopicRecord
from pybroker.zk.client import ANY_VERSION
from pybroker.zk.kafka_zk import KafkaZkClient
from pybroker.zk.znodes import (
    CONFIG_BROKER,
    CONFIG_TOPIC,
    CONFIG_USER,
    LeaderIsrAndControllerEpoch,
    ProducerIdBlockZNode,
    ProducerIdsBlock,
    TopicAssignment,
    TopicZNode,
    sanitize,
)

#: the document's name in the first log dir
METADATA_FILE = "__pybroker_metadata.json"
#: what it is renamed to once its content is in the znode tree
MIGRATED_SUFFIX = ".migrated"
FORMAT_VERSION = 1


@dataclass(slots=True)
class SingleNodeImage:
    """What the document holds."""

    cluster_id: str
    topics: dict[str, TopicRecord] = field(default_factory=dict)
    next_producer_id: int = 0
    #: dynamic broker configs by entity: a broker id, or ``<default>`` for the cluster's
    broker_configs: dict[str, dict[str, str]] = field(default_factory=dict)
    #: ACL documents by Kafka's ZooKeeper path (``/kafka-acl/Topic/orders``), in Kafka's JSON
    acls: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: users' config entities (their SCRAM credentials), by user name
    user_configs: dict[str, dict[str, str]] = field(default_factory=dict)


def read_document(path: Path) -> SingleNodeImage:
    doc = json.loads(path.read_text())
    if doc.get("version") != FORMAT_VERSION:
        raise RuntimeError(f"{path}: unknown metadata format {doc.get('version')!r}")
    return SingleNodeImage(
        cluster_id=doc["cluster_id"],
        topics={n: _topic(n, t) for n, t in doc["topics"].items()},
        next_producer_id=int(doc.get("next_producer_id", 0)),
        broker_configs={str(e): {str(k): str(v) for k, v in c.items()}
                        for e, c in doc.get("broker_configs", {}).items()},
        acls={str(p): dict(d) for p, d in doc.get("acls", {}).items()},
        user_configs={str(u): {str(k): str(v) for k, v in c.items()}
                      for u, c in doc.get("user_configs", {}).items()},
    )


def _topic(name: str, data: dict[str, Any]) -> TopicRecord:
    return TopicRecord(
        name, uuid.UUID(data["topic_id"]),
        {int(p): PartitionRecord(int(p), tuple(r["replicas"]), tuple(r["isr"]), r["leader"],
                                 r.get("leader_epoch", 0), r.get("partition_epoch", 0))
         for p, r in data["partitions"].items()},
        dict(data.get("configs", {})))


async def migrate(zk: KafkaZkClient, image: SingleNodeImage, broker_id: int) -> None:
    """Write ``image`` as Kafka's znodes: the cluster id; each topic's configs, assignment and
    partition states (leaders and leader epochs kept); the dynamic broker configs; the users'
    SCRAM credentials; the ACLs; and the producer ids handed out so far, as a block already
    taken, so that none is handed out again."""
    await zk.create_top_level_paths()
    await zk.get_or_create_cluster_id(image.cluster_id)
    for name, topic in sorted(image.topics.items()):
        # no controller runs yet: nothing to fence these writes against
        await zk.set_or_create_entity_configs(CONFIG_TOPIC, name, dict(topic.configs),
                                              check_controller=False)
        await zk.zk.create(TopicZNode.path(name), TopicZNode.encode(TopicAssignment.of(
            topic.topic_id, {p: list(r.replicas) for p, r in topic.partitions.items()})),
            makepath=True)
        await zk.create_partition_states(
            {(name, p): LeaderIsrAndControllerEpoch(r.leader, r.leader_epoch, tuple(r.isr), 0)
             for p, r in topic.partitions.items()}, ANY_VERSION)
    for entity, configs in sorted(image.broker_configs.items()):
        await zk.set_or_create_entity_configs(CONFIG_BROKER, entity, configs,
                                              check_controller=False)
    for user, configs in sorted(image.user_configs.items()):
        await zk.set_or_create_entity_configs(CONFIG_USER, sanitize(user), configs,
                                              check_controller=False)
    if image.acls:
        await zk.create_acl_paths()
        for path, document in sorted(image.acls.items()):
            await zk.set_acl_node(path, json.dumps(document).encode())
    if image.next_producer_id > 0:
        await zk.make_sure_persistent_path_exists(ProducerIdBlockZNode.PATH)
        await zk.zk.set(ProducerIdBlockZNode.PATH, ProducerIdBlockZNode.encode(
            ProducerIdsBlock(broker_id, 0, image.next_producer_id)))
