"""Replication quotas (KIP-73): a cap on the bytes a broker's leaders send to catching-up
followers, and on the bytes its followers fetch for catching-up replicas, so that a
reassignment on a busy cluster moves data at a set rate without slowing clients.

Kafka's ``ReplicationQuotaManager``, one for the leaders and one for the followers of a broker:

- the rate is this broker's ``leader.replication.throttled.rate`` or
  ``follower.replication.throttled.rate`` (dynamic broker configs, bytes per second,
  unlimited by default), measured with ``replication.quota.window.*`` samples as Kafka's
  ``SimpleRate``;
- the throttled replicas are named by the topic configs ``leader.replication.throttled.replicas``
  and ``follower.replication.throttled.replicas`` (``partition:broker,...`` or ``*``): each broker
  keeps the partitions listed with its own id (Kafka's ``parseThrottledPartitions``);
- a leader sends no records of a throttled partition to a follower outside the ISR while the
  leader quota is exceeded, and a follower leaves a throttled partition it lags on out of its
  fetch while the follower quota is exceeded; the bytes of throttled partitions count either
  way, in sync or not.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping

from pybroker.kernel.clock import SYSTEM_CLOCK, Clock
from pybroker.quota.rate import SampledRate

LEADER_RATE = "leader.replication.throttled.rate"
FOLLOWER_RATE = "follower.replication.throttled.rate"
LEADER_REPLICAS = "leader.replication.throttled.replicas"
FOLLOWER_REPLICAS = "follower.replication.throttled.replicas"
#: every partition of the topic (``*``)
ALL = frozenset({-1})


def throttled_partitions(value: str | None, broker_id: int) -> frozenset[int]:
    """The partitions a ``*.replication.throttled.replicas`` value throttles on
    ``broker_id``: those listed as ``partition:broker`` with its id, or :data:`ALL` for
    ``*``."""
    if not value:
        return frozenset()
    if value.strip() == "*":
        return ALL
    out = set()
    for entry in value.split(","):
        partition, sep, broker = entry.strip().partition(":")
        if sep and broker.strip() == str(broker_id):
            try:
                out.add(int(partition))
            except ValueError:
                continue
    return frozenset(out)


class ReplicationQuota:
    """One broker's leader or follower replication quota. ``overrides``: a topic's config
    overrides now (the throttled replicas are read from them, each value parsed once)."""

    def __init__(self, replicas_config: str, broker_id: int,
                 overrides: Callable[[str], Mapping[str, str]], *, samples: int = 11,
                 window_s: int = 1, clock: Clock = SYSTEM_CLOCK) -> None:
        self.replicas_config = replicas_config
        self.broker_id = broker_id
        self._overrides = overrides
        self.clock = clock
        self.rate = SampledRate(samples, window_s * 1000, simple=True)
        #: bytes per second (infinite: no quota, nothing is throttled)
        self.bound = math.inf
        self._parsed: dict[str, tuple[str | None, frozenset[int]]] = {}

    @property
    def enabled(self) -> bool:
        return not math.isinf(self.bound)

    def set_bound(self, bytes_per_s: float | None) -> None:
        self.bound = math.inf if bytes_per_s is None else float(bytes_per_s)

    def is_throttled(self, topic: str, partition: int) -> bool:
        """Whether this broker throttles the replica of ``topic``-``partition`` (Kafka's
        ``isThrottled``)."""
        value = self._overrides(topic).get(self.replicas_config)
        cached = self._parsed.get(topic)
        if cached is None or cached[0] != value:
            cached = self._parsed[topic] = (value, throttled_partitions(value, self.broker_id))
        partitions = cached[1]
        return partitions is ALL or partition in partitions

    def is_exceeded(self) -> bool:
        """The measured rate is over the quota (Kafka's ``isQuotaExceeded``)."""
        if not self.enabled:
            return False
        return self.rate.measure(self.clock.milliseconds()) > self.bound

    def record(self, size: int) -> None:
        if size:
            self.rate.record(size, self.clock.milliseconds())
