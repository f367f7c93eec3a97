"""Which ``__consumer_offsets`` partition a group lives in, computed exactly as Kafka does."""

from __future__ import annotations

OFFSETS_TOPIC = "__consumer_offsets"


def java_string_hash(s: str) -> int:
    """``java.lang.String.hashCode``: over UTF-16 code units, wrapped to a signed 32-bit int."""
    h = 0
    data = s.encode("utf-16-be")
    for i in range(0, len(data), 2):
        h = (31 * h + ((data[i] << 8) | data[i + 1])) & 0xFFFFFFFF
    return h - (1 << 32) if h & 0x80000000 else h


def partition_for(group_id: str, num_partitions: int) -> int:
    """Kafka's ``Utils.abs(groupId.hashCode) % groupMetadataTopicPartitionCount``.

    ``Utils.abs`` is ``Math.abs`` except that Integer.MIN_VALUE, which ``Math.abs`` leaves
    negative, maps to 0. (Masking the sign bit would differ for every other negative hash.)
    """
    h = java_string_hash(group_id)
    return (0 if h == -(1 << 31) else abs(h)) % num_partitions
