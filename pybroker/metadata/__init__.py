"""Cluster metadata: the records that describe topics and partitions, and where they are kept.

The embedded single-node mode keeps them in a local file (:mod:`pybroker.metadata.local`); the
ZooKeeper mode keeps the same records in znodes. Both implement :class:`MetadataStore`.
"""

from pybroker.metadata.model import ClusterImage, PartitionRecord, TopicRecord
from pybroker.metadata.store import MetadataStore

__all__ = ["ClusterImage", "MetadataStore", "PartitionRecord", "TopicRecord"]
