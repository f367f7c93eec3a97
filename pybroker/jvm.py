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
