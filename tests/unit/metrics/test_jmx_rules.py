"""The JMX exporter's rendering with Strimzi's Kafka rules, on the worked examples of the
rules' own documentation and the anomalies dashboards depend on."""

from __future__ import annotations

import json

import pytest

from pybroker.metrics.exposition import FamilyTexts, SeriesCache, families
from pybroker.metrics.jmx_rules import (
    COUNTER,
    GAUGE,
    QUOTA_RULES,
    STRIMZI_KAFKA_RULES,
    RuleSet,
    exporter_config,
    safe_name,
    strip_reserved_suffixes,
)
from pybroker.metrics.registry import MetricsRegistry, mbean

RULES = RuleSet()


@pytest.mark.parametrize(("bean", "attribute", "name", "kind", "labels"), [
    ("kafka.server<type=BrokerTopicMetrics, name=BytesInPerSec, topic=orders>", "Count",
     "kafka_server_brokertopicmetrics_bytesin", COUNTER, (("topic", "orders"),)),
    ("kafka.server<type=BrokerTopicMetrics, name=BytesInPerSec>", "Count",
     "kafka_server_brokertopicmetrics_bytesin", COUNTER, ()),
    ("kafka.network<type=RequestMetrics, name=RequestsPerSec, request=Produce, version=9>",
     "Count", "kafka_network_requestmetrics_requests", COUNTER,
     (("request", "Produce"), ("version", "9"))),
    ("kafka.network<type=RequestMetrics, name=ErrorsPerSec, request=Produce, error=NONE>",
     "Count", "kafka_network_requestmetrics_errors", COUNTER,
     (("request", "Produce"), ("error", "NONE"))),
    ("kafka.network<type=RequestMetrics, name=TotalTimeMs, request=Produce>",
     "99thPercentile", "kafka_network_requestmetrics_totaltimems", GAUGE,
     (("request", "Produce"), ("quantile", "0.99"))),
    ("kafka.network<type=RequestMetrics, name=TotalTimeMs, request=Produce>",
     "999thPercentile", "kafka_network_requestmetrics_totaltimems", GAUGE,
     (("request", "Produce"), ("quantile", "0.999"))),
    ("kafka.network<type=RequestMetrics, name=TotalTimeMs, request=Produce>",
     "50thPercentile", "kafka_network_requestmetrics_totaltimems", GAUGE,
     (("request", "Produce"), ("quantile", "0.50"))),
    # a histogram's count: "_count" by the rules, a counter, so served as "_count_total"
    ("kafka.network<type=RequestMetrics, name=TotalTimeMs, request=Produce>", "Count",
     "kafka_network_requestmetrics_totaltimems_count", COUNTER, (("request", "Produce"),)),
    ("kafka.server<type=ReplicaManager, name=UnderReplicatedPartitions>", "Value",
     "kafka_server_replicamanager_underreplicatedpartitions", GAUGE, ()),
    ("kafka.controller<type=KafkaController, name=ActiveControllerCount>", "Value",
     "kafka_controller_kafkacontroller_activecontrollercount", GAUGE, ()),
    ("kafka.log<type=Log, name=Size, topic=t, partition=0>", "Value",
     "kafka_log_log_size", GAUGE, (("topic", "t"), ("partition", "0"))),
    ("kafka.server<type=socket-server-metrics, listener=PLAINTEXT, networkProcessor=0>",
     "connection-count", "kafka_server_socket_server_metrics_connection_count", GAUGE,
     (("listener", "PLAINTEXT"), ("networkProcessor", "0"))),
    ("kafka.server<type=socket-server-metrics, listener=PLAINTEXT, networkProcessor=0>",
     "connection-creation-total", "kafka_server_socket_server_metrics_connection_creation",
     COUNTER, (("listener", "PLAINTEXT"), ("networkProcessor", "0"))),
    ("kafka.server<type=KafkaRequestHandlerPool, name=RequestHandlerAvgIdlePercent>",
     "MeanRate", "kafka_server_kafkarequesthandlerpool_requesthandleravgidle_percent", GAUGE,
     ()),
    # "Percent" is case-sensitive: this one falls through to the generic gauge
    ("kafka.log<type=LogCleanerManager, name=max-dirty-percent>", "Value",
     "kafka_log_logcleanermanager_max_dirty_percent", GAUGE, ()),
    ("kafka.server<type=FetcherLagMetrics, name=ConsumerLag, clientId=ReplicaFetcherThread-0-1,"
     " topic=t, partition=3>", "Value", "kafka_server_fetcherlagmetrics_consumerlag", GAUGE,
     (("clientId", "ReplicaFetcherThread-0-1"), ("topic", "t"), ("partition", "3"))),
])
def test_the_documented_renderings(bean: str, attribute: str, name: str, kind: str,
                                   labels: tuple[tuple[str, str], ...]) -> None:
    rendered = RULES.render(bean, attribute)
    assert rendered is not None
    assert (rendered.name, rendered.type, rendered.labels) == (name, kind, labels)


@pytest.mark.parametrize(("bean", "attribute"), [
    # a meter's rates and a histogram's other statistics match no rule
    ("kafka.server<type=BrokerTopicMetrics, name=BytesInPerSec>", "OneMinuteRate"),
    ("kafka.server<type=BrokerTopicMetrics, name=BytesInPerSec>", "MeanRate"),
    ("kafka.network<type=RequestMetrics, name=TotalTimeMs, request=Produce>", "Mean"),
    ("kafka.network<type=RequestMetrics, name=TotalTimeMs, request=Produce>", "Max"),
    # Kafka's own metrics groups other than the listeners' and the quotas' are not exported
    ("kafka.server<type=group-coordinator-metrics>", "offset-commit-count"),
    ("kafka.server<type=Request>", "exempt-request-time"),
])
def test_what_no_rule_names_is_not_exported(bean: str, attribute: str) -> None:
    assert RULES.render(bean, attribute) is None


def test_names_are_made_safe_and_stripped_as_the_exporter_does() -> None:
    assert safe_name("a-b..c__d") == "a_b_c_d"
    assert strip_reserved_suffixes("x_connections_tls_info") == "x_connections_tls"
    assert strip_reserved_suffixes("x_count_total") == "x_count"
    assert strip_reserved_suffixes("x_total_created") == "x"
    tls = RULES.render("kafka.server<type=socket-server-metrics, cipher=TLS_AES, "
                       "protocol=TLSv1.3, listener=SSL, networkProcessor=0>", "connections")
    assert tls is not None and tls.name == "kafka_server_socket_server_metrics_connections_tls"


def test_the_exporter_config_is_the_rule_list() -> None:
    config = json.loads(json.dumps(exporter_config()))
    assert config["lowercaseOutputName"] is True
    assert len(config["rules"]) == len(QUOTA_RULES) + len(STRIMZI_KAFKA_RULES)
    first = config["rules"][len(QUOTA_RULES)]
    assert first["pattern"].startswith("kafka.server<type=(.+), name=(.+), clientId=(.+)")
    assert first["labels"] == {"clientId": "$3", "topic": "$4", "partition": "$5"}


def test_the_client_quotas_render_with_their_user_and_client_id() -> None:
    both = RULES.render("kafka.server<type=Produce, user=alice, client-id=app>", "byte-rate")
    assert both is not None
    assert (both.name, both.labels) == ("kafka_server_produce_byte_rate",
                                        (("user", "alice"), ("client_id", "app")))
    alone = RULES.render("kafka.server<type=Fetch, client-id=app>", "throttle-time")
    assert alone is not None
    assert (alone.name, alone.labels) == ("kafka_server_fetch_throttle_time",
                                          (("client_id", "app"),))
    assert RULES.render("kafka.server<type=FetchSessionCache, name=NumIncrementalFetchSessions>",
                        "Value") is not None


def test_families_render_a_registry_page() -> None:
    registry = MetricsRegistry()
    registry.meter(mbean("kafka.server", "BrokerTopicMetrics", "BytesInPerSec")).mark(10)
    registry.meter(mbean("kafka.server", "BrokerTopicMetrics", "BytesInPerSec",
                         topic="t")).mark(7)
    h = registry.histogram(mbean("kafka.network", "RequestMetrics", "TotalTimeMs",
                                 request="Produce"))
    for v in (1.0, 2.0, 3.0):
        h.update(v)
    registry.gauge(mbean("kafka.server", "ReplicaManager", "LeaderCount"), lambda: 4)
    out = {f.name: f for f in families(registry.snapshot(), RULES)}
    bytes_in = out["kafka_server_brokertopicmetrics_bytesin"]
    assert bytes_in.type == "counter"
    assert {(s.name, tuple(sorted(s.labels.items())), s.value) for s in bytes_in.samples} == {
        ("kafka_server_brokertopicmetrics_bytesin_total", (), 10),
        ("kafka_server_brokertopicmetrics_bytesin_total", (("topic", "t"),), 7)}
    count = out["kafka_network_requestmetrics_totaltimems_count"]
    assert [(s.name, s.value) for s in count.samples] == [
        ("kafka_network_requestmetrics_totaltimems_count_total", 3)]
    quantiles = {s.labels["quantile"]: s.value
                 for s in out["kafka_network_requestmetrics_totaltimems"].samples}
    assert set(quantiles) == {"0.50", "0.75", "0.95", "0.98", "0.99", "0.999"}
    assert quantiles["0.50"] == 2.0 and quantiles["0.999"] == 3.0
    assert [s.value for s in out["kafka_server_replicamanager_leadercount"].samples] == [4]


def test_a_series_cache_kept_between_scrapes_renders_what_the_rules_do() -> None:
    """The endpoint keeps a SeriesCache from one scrape to the next: the second page, with
    moved values and a series that came meanwhile, reads as one rendered afresh."""
    registry = MetricsRegistry()
    meter = registry.meter(mbean("kafka.server", "BrokerTopicMetrics", "BytesInPerSec", topic="t"))
    meter.mark(5)
    registry.gauge(mbean("kafka.server", "ReplicaManager", "LeaderCount"), lambda: 4)
    cache = SeriesCache(RULES)

    def page(rules: RuleSet | SeriesCache) -> list[tuple[str, str, set[tuple[object, ...]]]]:
        return [(f.name, f.type, {(s.name, tuple(sorted(s.labels.items())), s.value)
                                  for s in f.samples})
                for f in families(registry.snapshot(), rules)]

    assert page(cache) == page(RULES)
    meter.mark(2)
    registry.meter(mbean("kafka.server", "BrokerTopicMetrics", "BytesInPerSec", topic="u")).mark(1)
    second = page(cache)
    assert second == page(RULES)
    assert second[0][2] == {("kafka_server_brokertopicmetrics_bytesin_total", (("topic", "t"),), 7),
                            ("kafka_server_brokertopicmetrics_bytesin_total", (("topic", "u"),), 1)}
    assert cache.get(mbean("com.example", "Nothing", "NoRuleMatches"), "Value") is None


def test_family_texts_kept_between_scrapes_write_the_page_generate_latest_does() -> None:
    """The endpoint writes each family once and keeps its text while nothing in it moves: the
    page must be byte for byte prometheus_client's for the same families, at the first scrape,
    after a value moved, after a series came, and with nothing changed."""
    from prometheus_client import CollectorRegistry, generate_latest
    from prometheus_client.registry import Collector

    class Page(Collector):
        def __init__(self, metrics: list) -> None:
            self.metrics = metrics

        def collect(self) -> list:
            return self.metrics

    def whole(metrics: list) -> bytes:
        registry = CollectorRegistry(auto_describe=False)
        registry.register(Page(metrics))
        return generate_latest(registry)

    registry = MetricsRegistry()
    meter = registry.meter(mbean("kafka.server", "BrokerTopicMetrics", "BytesInPerSec", topic="t"))
    h = registry.histogram(mbean("kafka.network", "RequestMetrics", "TotalTimeMs", request="Produce"))
    registry.gauge(mbean("kafka.server", "ReplicaManager", "LeaderCount"), lambda: 4)
    cache, texts = SeriesCache(RULES), FamilyTexts()
    pages = []
    for step in range(4):
        if step == 1:
            meter.mark(3)
            h.update(2.5)
        if step == 2:
            registry.meter(mbean("kafka.server", "BrokerTopicMetrics", "BytesInPerSec", topic="u")).mark(1)
        metrics = families(registry.snapshot(), cache)
        page = texts.render(metrics)
        assert page == whole(metrics), step
        pages.append(page)
    assert pages[0] != pages[1] != pages[2] == pages[3]
    assert b'kafka_server_brokertopicmetrics_bytesin_total{topic="u"} 1.0' in pages[2]


def test_the_series_cache_forgets_the_mbeans_gone_from_the_page() -> None:
    """Topics come and go: a cache kept for ever would hold every MBean that ever existed."""
    cache = SeriesCache(RULES)
    for i in range(3000):
        registry = MetricsRegistry()
        registry.meter(mbean("kafka.server", "BrokerTopicMetrics", "BytesInPerSec", topic=f"t{i}"))
        families(registry.snapshot(), cache)
        assert len(cache) <= 2 * 5 + 1024 + 5  # one meter: five attributes a page
