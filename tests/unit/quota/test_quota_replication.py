"""Replication quotas' pieces (KIP-73): which replicas a broker throttles, and Kafka's
SimpleRate they are measured with."""

from __future__ import annotations

from pybroker.kernel.clock import ManualClock
from pybroker.quota.rate import SampledRate
from pybroker.quota.replication import (
    ALL,
    LEADER_REPLICAS,
    ReplicationQuota,
    throttled_partitions,
)


def test_each_broker_keeps_the_partitions_listed_with_its_id() -> None:
    assert throttled_partitions("0:1,1:2,2:1", 1) == {0, 2}
    assert throttled_partitions("0:1,1:2,2:1", 3) == frozenset()
    assert throttled_partitions(" * ", 7) is ALL
    assert throttled_partitions("", 1) == frozenset()
    assert throttled_partitions(None, 1) == frozenset()


def test_a_simple_rate_is_taken_over_one_window_at_least() -> None:
    rate = SampledRate(11, 1000, simple=True)
    rate.record(1_000_000, 0)
    assert rate.measure(0) == 1_000_000  # over one window, not ten
    assert rate.measure(2000) == 500_000


def test_a_quota_throttles_only_its_replicas_and_only_once_exceeded() -> None:
    clock = ManualClock(10_000)
    overrides = {"t": {LEADER_REPLICAS: "0:1"}}
    quota = ReplicationQuota(LEADER_REPLICAS, 1, lambda topic: overrides.get(topic, {}),
                             clock=clock)
    assert not quota.enabled and not quota.is_exceeded()
    quota.set_bound(1000)
    assert quota.is_throttled("t", 0) and not quota.is_throttled("t", 1)
    assert not quota.is_throttled("other", 0)
    quota.record(900)
    assert not quota.is_exceeded()
    quota.record(200)
    assert quota.is_exceeded()
    clock.advance(2000)
    assert not quota.is_exceeded()
    overrides["t"] = {LEADER_REPLICAS: "*"}
    assert quota.is_throttled("t", 5)
