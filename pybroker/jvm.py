"""Integer arithmetic as Kafka computes it on the JVM, where a placement depends on it: which
``__consumer_offsets`` partition holds a group, which replica fetcher follows a partition.

Java's ``int`` wraps at 32 bits and ``String.hashCode`` runs over UTF-16 code units; Kafka's
``Utils.abs`` is ``Math.abs`` except that Integer.MIN_VALUE (which ``Math.abs`` leaves negative)
maps to 0. Pure functions, no imports of the broker.
"""

from __future__ import annotations

_INT_MIN = -(1 << 31)


def int32(n: int) -> int:
    """``n`` wrapped to a signed 32-bit int, as Java's ``int`` arithmetic wraps."""
    n &= 0xFFFFFFFF
    return n - (1 << 32) if n & 0x80000000 else n


def string_hash(s: str) -> int:
    """``java.lang.String.hashCode``: over UTF-16 code units, a signed 32-bit int."""
    h = 0
    data = s.encode("utf-16-be")
    for i in range(0, len(data), 2):
        h = (31 * h + ((data[i] << 8) | data[i + 1])) & 0xFFFFFFFF
    return int32(h)


def utils_abs(n: int) -> int:
    """Kafka's ``Utils.abs``: the absolute value, with Integer.MIN_VALUE mapped to 0."""
    return 0 if n == _INT_MIN else abs(n)


def hash_set_order(items: list[str]) -> list[str]:
    """The distinct strings in the order ``new ArrayList<>(new HashSet<>(items))`` lists them
    (Kafka answers SaslHandshake with its enabled mechanisms in that order): a HashSet made
    from a collection has at least 16 buckets, enough for 3/4 of them to be filled; it iterates
    bucket by bucket, each bucket in insertion order, the bucket being the spread hash
    ``h ^ (h >>> 16)`` modulo the table size."""
    distinct = list(dict.fromkeys(items))
    wanted = max(int(len(distinct) / 0.75) + 1, 16)
    size = 1
    while size < wanted:
        size <<= 1

    def bucket(s: str) -> int:
        h = string_hash(s) & 0xFFFFFFFF
        return (h ^ (h >> 16)) & (size - 1)

    return sorted(distinct, key=bucket)  # sorted is stable: insertion order within a bucket


def scala_hash_order(items: list[str]) -> list[str]:
    """The distinct strings in the order a Scala 2.13 ``mutable.HashMap`` (or ``HashSet``)
    they were added to one by one iterates them (Kafka's CreateTopics and DeleteTopics
    handlers collect their topics so, and create or delete them in that order): 16 buckets,
    doubled whenever one more entry would reach 3/4 of them; bucket by bucket, each bucket in
    ascending order of the spread hash ``h ^ (h >>> 16)`` (a signed int)."""
    distinct = list(dict.fromkeys(items))
    size, count = 16, 0
    for _ in distinct:
        if count + 1 >= size * 0.75:
            size *= 2
        count += 1

    def spread(s: str) -> int:
        h = string_hash(s) & 0xFFFFFFFF
        return int32(h ^ (h >> 16))

    return sorted(distinct, key=lambda s: (spread(s) & (size - 1), spread(s)))
