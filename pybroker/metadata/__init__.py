"""Cluster metadata: the records that describe topics and partitions, the topic configs the
logs run with, and what a log dir says of its cluster (``meta.properties``). Where the records
are kept is the control plane's business (the znode tree, :mod:`pybroker.zk`)."""

from pybroker.metadata.model import PartitionRecord, TopicRecord

__all__ = ["PartitionRecord", "TopicRecord"]
