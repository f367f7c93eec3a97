"""A snapshot of the registry as Prometheus metric families, named by the JMX exporter's rules
(:mod:`.jmx_rules`), for ``prometheus_client``'s text exposition.

Each sample becomes the JMX attributes Kafka's MBean of that kind has (a Yammer meter's
``Count`` and rates, a histogram's ``Count``, ``Min``, ``Max``, ``Mean`` and percentiles, a
gauge's ``Value``, an attribute group's own attributes), and each attribute goes through the
rules, as the exporter running in a Kafka broker does: what no rule names is not served.
"""

from __future__ import annotations

from collections.abc import Iterable

from prometheus_client import generate_latest
from prometheus_client.metrics_core import Metric
from prometheus_client.registry import Collector

from .jmx_rules import COUNTER, RuleSet
from .registry import MBean, Sample

_PERCENTILE_ATTRIBUTES = {0.50: "50thPercentile", 0.75: "75thPercentile",
                          0.95: "95thPercentile", 0.98: "98thPercentile",
                          0.99: "99thPercentile", 0.999: "999thPercentile"}


def attributes_of(sample: Sample) -> list[tuple[str, float]]:
    """The numeric JMX attributes of the sample's MBean, as Kafka's would have them."""
    kind = sample.kind
    if kind == "gauge":
        return [("Value", sample.value)]
    if kind == "attributes":
        return list(sample.attributes)
    out: list[tuple[str, float]] = [("Count", sample.value)]
    if sample.rates is not None:
        mean, m1, m5, m15 = sample.rates
        out += [("MeanRate", mean), ("OneMinuteRate", m1), ("FiveMinuteRate", m5),
                ("FifteenMinuteRate", m15)]
    if sample.stats is not None:
        lo, hi, mean_value = sample.stats
        out += [("Min", lo), ("Max", hi), ("Mean", mean_value)]
    out += [(_PERCENTILE_ATTRIBUTES[q], v) for q, v in sample.quantiles]
    return out


#: how one attribute of one MBean is served: its family's name, help and type, the sample's
#: name (a counter's with ``_total``) and labels; None: no rule exports it
Series = tuple[str, str, str, str, dict[str, str]] | None


class SeriesCache:
    """The :data:`Series` of each (MBean, attribute), worked out once: an MBean's attributes
    render the same way at every scrape, so a scrape after the first one looks each up instead
    of naming the bean, matching the rules and building its labels again."""

    def __init__(self, rules: RuleSet) -> None:
        self.rules = rules
        self._series: dict[tuple[MBean, str], Series] = {}

    def get(self, bean: MBean, attribute: str) -> Series:
        key = (bean, attribute)
        try:
            return self._series[key]
        except KeyError:
            pass
        rendered = self.rules.render(bean.exporter_bean(), attribute)
        series: Series = None
        if rendered is not None:
            counter = rendered.type == COUNTER
            series = (rendered.name, f"{bean} {attribute}", "counter" if counter else "gauge",
                      rendered.name + "_total" if counter else rendered.name,
                      dict(rendered.labels))
        self._series[key] = series
        return series

    def __len__(self) -> int:
        return len(self._series)

    def bound(self, served: int) -> None:
        """After a page of ``served`` lookups: forget everything once the cache holds more
        than twice that (the MBeans of deleted topics and gone groups would otherwise stay
        for ever); the next page works its entries out again."""
        if len(self._series) > 2 * served + 1024:
            self._series.clear()


def families(samples: Iterable[Sample], rules: RuleSet | SeriesCache) -> list[Metric]:
    """The samples as metric families, in the order their names first appear (``rules``: a
    :class:`SeriesCache` kept from one scrape to the next, or the rules alone)."""
    cache = rules if isinstance(rules, SeriesCache) else SeriesCache(rules)
    by_name: dict[str, Metric] = {}
    served = 0
    for sample in samples:
        if sample.kind.startswith("exported-"):
            counter = sample.kind == "exported-counter"
            name = sample.mbean.name
            family = by_name.get(name)
            if family is None:
                family = by_name[name] = Metric(name, sample.help,
                                                "counter" if counter else "gauge")
            for labels, value in sample.series:
                family.add_sample(name + "_total" if counter else name, dict(labels), value)
            continue
        bean = sample.mbean
        for attribute, value in attributes_of(sample):
            served += 1
            series = cache.get(bean, attribute)
            if series is None:
                continue
            family_name, help_text, kind, sample_name, attribute_labels = series
            family = by_name.get(family_name)
            if family is None:
                family = by_name[family_name] = Metric(family_name, help_text, kind)
            # (the labels' dict is the cache's: the exposition only reads it)
            family.add_sample(sample_name, attribute_labels, value)
    cache.bound(served)
    return list(by_name.values())


class _Families(Collector):
    def __init__(self, metrics: list[Metric]) -> None:
        self._metrics = metrics

    def collect(self) -> Iterable[Metric]:
        return self._metrics


class FamilyTexts:
    """The text of a page of families, as ``prometheus_client.generate_latest`` writes it,
    with each family's text kept from one scrape to the next: a family whose help, type,
    samples, labels and values are what they were is not written again. Most are (the
    histograms of the APIs nobody called, the gauges that stand still), and writing the text
    is most of a scrape's work."""

    def __init__(self) -> None:
        self._texts: dict[str, tuple[tuple[object, ...], bytes]] = {}

    def render(self, metrics: Iterable[Metric]) -> bytes:
        kept = self._texts
        texts: dict[str, tuple[tuple[object, ...], bytes]] = {}
        out: list[bytes] = []
        for family in metrics:
            key = (family.documentation, family.type,
                   tuple([(s.name, tuple(s.labels.items()), s.value, s.timestamp)
                          for s in family.samples]))
            last = kept.get(family.name)
            text = last[1] if last is not None and last[0] == key \
                else generate_latest(_Families([family]))
            texts[family.name] = (key, text)
            out.append(text)
        self._texts = texts  # (one assignment: a scrape on another thread sees one or the other)
        return b"".join(out)
