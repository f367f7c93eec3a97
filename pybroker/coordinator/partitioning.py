"""Which ``__consumer_offsets`` partition a group lives in, computed exactly as Kafka does."""

from __future__ import annotations

from pybroker.jvm import string_hash, utils_abs

OFFSETS_TOPIC = "__consumer_offsets"


def partition_for(group_id: str, num_partitions: int) -> int:
    """Kafka's ``Utils.abs(groupId.hashCode) % groupMetadataTopicPartitionCount``."""
    return utils_abs(string_hash(group_id)) % num_partitions
