"""A snapshot of the registry as Prometheus metric families, named by the JMX exporter's rules
(:mod:`.jmx_rules`), for ``prometheus_client``'s text exposition.

Each sample becomes the JMX attributes Kafka's MBean of that kind has (a Yammer meter's
``Count`` and rates, a histogram's ``Count``, ``Min``, ``Max``, ``Mean`` and percentiles, a
gauge's ``Value``, an attribute group's own attributes), and each attribute goes through the
rules, as the exporter running in a Kafka broker does: what no rule names is not served.
"""

from __future__ import annotations

from collections.abc import Iterable

from prometheus_client.metrics_core import Metric

from .jmx_rules import COUNTER, RuleSet
from .registry import Sample

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


def families(samples: Iterable[Sample], rules: RuleSet) -> list[Metric]:
    """The samples as metric families, in the order their names first appear."""
    by_name: dict[str, Metric] = {}
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
        bean = sample.mbean.exporter_bean()
        for attribute, value in attributes_of(sample):
            rendered = rules.render(bean, attribute)
            if rendered is None:
                continue
            family = by_name.get(rendered.name)
            counter = rendered.type == COUNTER
            if family is None:
                family = by_name[rendered.name] = Metric(
                    rendered.name, f"{sample.mbean} {attribute}",
                    "counter" if counter else "gauge")
            family.add_sample(rendered.name + "_total" if counter else rendered.name,
                              dict(rendered.labels), value)
    return list(by_name.values())
