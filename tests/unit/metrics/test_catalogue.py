"""The metric catalogue behind docs/metrics.md: one entry per MBean, each rendered by the
endpoint's rules (the ones no rule names are the ones Kafka's exporter does not serve either)."""

from __future__ import annotations

from collections import Counter

from pybroker.metrics.catalogue import documented, prometheus_names


def test_each_mbean_is_catalogued_once() -> None:
    keys = Counter((d.domain, d.type, d.name, d.forms) for d in documented())
    assert [k for k, n in keys.items() if n > 1] == []


def test_what_the_rules_do_not_name_is_what_kafkas_exporter_leaves_out() -> None:
    unnamed = sorted(f"{d.domain}:{d.type}:{d.name}" for d in documented()
                     if not prometheus_names(d))
    # group-coordinator-metrics (Kafka's own metrics library, no rule for it) and the
    # kafka.coordinator.transaction domain (the rules' (\w+) does not match its dot)
    assert unnamed == [
        "kafka.coordinator.transaction:TransactionMarkerChannelManager:LogAppendRetryQueueSize",
        "kafka.coordinator.transaction:TransactionMarkerChannelManager:"
        "UnknownDestinationQueueSize",
        "kafka.server:group-coordinator-metrics:",
    ]


def test_names_follow_the_strimzi_rules() -> None:
    by_name = {d.name: d for d in documented() if d.type in ("BrokerTopicMetrics",
                                                                 "RequestMetrics")}
    assert prometheus_names(by_name["BytesInPerSec"]) == {
        "kafka_server_brokertopicmetrics_bytesin_total": {(), ("topic",)}}
    total = prometheus_names(by_name["TotalTimeMs"])
    assert total["kafka_network_requestmetrics_totaltimems"] == {("quantile", "request")}
    assert total["kafka_network_requestmetrics_totaltimems_count_total"] == {("request",)}
