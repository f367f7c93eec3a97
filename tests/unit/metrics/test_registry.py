"""The registry's metric kinds: Yammer's meter rates and histogram quantiles, gauges, groups."""

from __future__ import annotations

import math

import pytest

from pybroker.kernel.clock import ManualClock
from pybroker.metrics.broker_topic_stats import BYTES_IN, MESSAGES_IN, BrokerTopicStats
from pybroker.metrics.registry import Histogram, MBean, MetricsRegistry, mbean


def test_mbean_names_read_as_kafkas() -> None:
    bean = mbean("kafka.server", "BrokerTopicMetrics", "BytesInPerSec", topic="orders")
    assert str(bean) == "kafka.server:type=BrokerTopicMetrics,name=BytesInPerSec,topic=orders"
    assert bean.exporter_bean() == \
        "kafka.server<type=BrokerTopicMetrics, name=BytesInPerSec, topic=orders>"
    group = MBean("kafka.server", "socket-server-metrics", "",
                  (("listener", "PLAINTEXT"), ("networkProcessor", "0")))
    assert group.exporter_bean() == \
        "kafka.server<type=socket-server-metrics, listener=PLAINTEXT, networkProcessor=0>"
    assert bean.tag("topic") == "orders" and bean.tag("partition") is None


def test_a_meter_decays_its_rates_as_yammer_ticks() -> None:
    clock = ManualClock(0, monotonic=100.0)
    registry = MetricsRegistry(clock)
    meter = registry.meter(mbean("kafka.server", "X", "EventsPerSec"))
    meter.mark(50)
    clock.advance(5000)  # one tick: the instant rate is 10/s, which every window starts from
    mean, m1, m5, m15 = meter.rates(clock.monotonic())
    assert (mean, m1, m5, m15) == (10.0, 10.0, 10.0, 10.0)
    clock.advance(60_000)  # twelve ticks without events
    _, m1, m5, m15 = meter.rates(clock.monotonic())
    alpha1 = 1 - math.exp(-5 / 60)
    assert m1 == pytest.approx(10.0 * (1 - alpha1) ** 12)
    assert m1 < m5 < m15 < 10.0
    assert meter.count == 50


def test_a_histogram_keeps_the_last_values_and_their_count() -> None:
    h = Histogram()
    for v in range(1, 101):
        h.update(float(v))
    q = dict(h.quantiles())
    # Yammer's Snapshot interpolates at q * (n + 1)
    assert q[0.50] == pytest.approx(50.5)
    assert q[0.99] == pytest.approx(99.99)
    assert q[0.999] == 100.0
    assert h.stats() == (1.0, 100.0, 50.5)
    for _ in range(2000):
        h.update(7.0)
    assert h.count == 2100 and dict(h.quantiles())[0.50] == 7.0


def test_a_snapshot_reads_every_kind_and_skips_a_failing_gauge() -> None:
    registry = MetricsRegistry(ManualClock(0, monotonic=1.0))
    registry.meter(mbean("kafka.server", "T", "APerSec")).mark(3)
    registry.gauge(mbean("kafka.server", "T", "Good"), lambda: 2)
    registry.gauge(mbean("kafka.server", "T", "Gone"), lambda: 1 / 0)
    registry.gauge(mbean("kafka.server", "T", "Unknown"), lambda: None)
    registry.timer(mbean("kafka.controller", "ControllerStats",
                         "LeaderElectionRateAndTimeMs")).update(12.0)
    registry.attributes(MBean("kafka.server", "socket-server-metrics", "",
                              (("listener", "P"),)), lambda: {"connection-count": 2})
    by_name = {s.mbean.name or s.mbean.type: s for s in registry.snapshot()}
    assert set(by_name) == {"APerSec", "Good", "LeaderElectionRateAndTimeMs",
                            "socket-server-metrics"}
    assert by_name["APerSec"].value == 3 and by_name["Good"].value == 2
    assert by_name["LeaderElectionRateAndTimeMs"].quantiles[0] == (0.50, 12.0)
    assert by_name["socket-server-metrics"].attributes == (("connection-count", 2.0),)


def test_broker_topic_stats_count_a_topic_and_all_topics() -> None:
    stats = BrokerTopicStats()
    names = {str(n) for n in stats.registry.names()}
    # all topics' meters exist from the start, a topic's from its first event
    assert "kafka.server:type=BrokerTopicMetrics,name=BytesInPerSec" in names
    assert not any("topic=" in n for n in names)
    stats.mark("a", BYTES_IN, 100)
    stats.mark("b", BYTES_IN, 50)
    stats.mark("a", MESSAGES_IN, 3)
    assert stats.all.meter(BYTES_IN).count == 150
    assert stats.topic("a").meter(BYTES_IN).count == 100
    stats.remove_old_leader_metrics("a")
    assert mbean("kafka.server", "BrokerTopicMetrics", BYTES_IN, topic="a") not in set(
        stats.registry.names())
    stats.mark("a", BYTES_IN, 1)  # leading again: it restarts from nothing
    assert stats.topic("a").meter(BYTES_IN).count == 1
    stats.remove_topic("b")
    assert not any(n.tag("topic") == "b" for n in stats.registry.names())
    assert stats.all.meter(BYTES_IN).count == 151
