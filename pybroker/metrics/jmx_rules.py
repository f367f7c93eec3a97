"""Kafka's MBeans as the Prometheus JMX exporter (``io.prometheus.jmx``, 1.0.1) renders them
with the Kafka rules Strimzi ships in ``examples/metrics/kafka-metrics.yaml`` (0.45.0, the
release of Kafka 3.9): the names Grafana dashboards and alert rules are written against.

The exporter turns each numeric attribute of an MBean into the line
``<domain><key1=value1, key2=value2, ...><>Attribute: value`` (keys in the MBean's own order)
and tries the rules in order; the first whose pattern matches somewhere in the line names the
sample (``$1``... are the pattern's groups), and an attribute no rule matches is not exported.
Names are then made safe (characters outside ``[a-zA-Z0-9:_]`` become ``_``, runs of ``_``
collapse), lowercased (``lowercaseOutputName``), stripped of the suffixes the exporter's
client library reserves (``_total``, ``_created``, ``_bucket``, ``_info``), and a counter is
written with ``_total`` appended. So a histogram's count, named ``..._count`` by the rules, is
served as ``..._count_total``, as a Strimzi 0.45 cluster serves it.

:data:`STRIMZI_KAFKA_RULES` is the rule list, written here once, and :data:`QUOTA_RULES` the
client quotas' MBeans that Strimzi's list leaves out: the broker renders its metrics with both
(:data:`KAFKA_RULES`), and the tests hand :func:`exporter_config` to the reference Kafka's
exporter agent, so both sides of a comparison use the same rules.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

COUNTER, GAUGE = "COUNTER", "GAUGE"

_UNSAFE = re.compile(r"[^a-zA-Z0-9:_]")
_UNDERSCORES = re.compile(r"_+")
_GROUP = re.compile(r"\$(\d+)")
#: the suffixes the exporter's client library strips from every name (``PrometheusNaming``)
RESERVED_SUFFIXES = ("_total", "_created", "_bucket", "_info")


@dataclass(frozen=True, slots=True)
class Rule:
    """One rule of an exporter configuration: ``pattern`` as written in the YAML."""

    pattern: str
    name: str
    type: str
    labels: Mapping[str, str] = field(default_factory=dict)

    def compiled(self) -> re.Pattern[str]:
        # the exporter matches a rule anywhere in the line: ^.*(?:pattern).*$
        return re.compile(r"^.*(?:" + self.pattern + r").*$")


def _rules() -> tuple[Rule, ...]:
    lp = {"listener": "$2", "networkProcessor": "$3"}
    two = {"$4": "$5", "$6": "$7"}
    one = {"$4": "$5"}
    return (
        # special cases and very specific rules
        Rule(r"kafka.server<type=(.+), name=(.+), clientId=(.+), topic=(.+), partition=(.*)><>Value",
             "kafka_server_$1_$2", GAUGE,
             {"clientId": "$3", "topic": "$4", "partition": "$5"}),
        Rule(r"kafka.server<type=(.+), name=(.+), clientId=(.+), brokerHost=(.+), brokerPort=(.+)><>Value",
             "kafka_server_$1_$2", GAUGE, {"clientId": "$3", "broker": "$4:$5"}),
        Rule(r"kafka.server<type=(.+), cipher=(.+), protocol=(.+), listener=(.+), networkProcessor=(.+)><>connections",
             "kafka_server_$1_connections_tls_info", GAUGE,
             {"cipher": "$2", "protocol": "$3", "listener": "$4", "networkProcessor": "$5"}),
        Rule(r"kafka.server<type=(.+), clientSoftwareName=(.+), clientSoftwareVersion=(.+), listener=(.+), networkProcessor=(.+)><>connections",
             "kafka_server_$1_connections_software", GAUGE,
             {"clientSoftwareName": "$2", "clientSoftwareVersion": "$3", "listener": "$4",
              "networkProcessor": "$5"}),
        Rule(r"kafka.server<type=(.+), listener=(.+), networkProcessor=(.+)><>(.+-total):",
             "kafka_server_$1_$4", COUNTER, lp),
        Rule(r"kafka.server<type=(.+), listener=(.+), networkProcessor=(.+)><>(.+):",
             "kafka_server_$1_$4", GAUGE, lp),
        Rule(r"kafka.server<type=(.+), listener=(.+), networkProcessor=(.+)><>(.+-total)",
             "kafka_server_$1_$4", COUNTER, lp),
        Rule(r"kafka.server<type=(.+), listener=(.+), networkProcessor=(.+)><>(.+)",
             "kafka_server_$1_$4", GAUGE, lp),
        # some percent metrics use the MeanRate attribute
        Rule(r"kafka.(\w+)<type=(.+), name=(.+)Percent\w*><>MeanRate",
             "kafka_$1_$2_$3_percent", GAUGE),
        # generic gauges for percents
        Rule(r"kafka.(\w+)<type=(.+), name=(.+)Percent\w*><>Value",
             "kafka_$1_$2_$3_percent", GAUGE),
        Rule(r"kafka.(\w+)<type=(.+), name=(.+)Percent\w*, (.+)=(.+)><>Value",
             "kafka_$1_$2_$3_percent", GAUGE, one),
        # generic per-second counters with 0-2 key/value pairs
        Rule(r"kafka.(\w+)<type=(.+), name=(.+)PerSec\w*, (.+)=(.+), (.+)=(.+)><>Count",
             "kafka_$1_$2_$3_total", COUNTER, two),
        Rule(r"kafka.(\w+)<type=(.+), name=(.+)PerSec\w*, (.+)=(.+)><>Count",
             "kafka_$1_$2_$3_total", COUNTER, one),
        Rule(r"kafka.(\w+)<type=(.+), name=(.+)PerSec\w*><>Count",
             "kafka_$1_$2_$3_total", COUNTER),
        # generic gauges with 0-2 key/value pairs
        Rule(r"kafka.(\w+)<type=(.+), name=(.+), (.+)=(.+), (.+)=(.+)><>Value",
             "kafka_$1_$2_$3", GAUGE, two),
        Rule(r"kafka.(\w+)<type=(.+), name=(.+), (.+)=(.+)><>Value", "kafka_$1_$2_$3", GAUGE, one),
        Rule(r"kafka.(\w+)<type=(.+), name=(.+)><>Value", "kafka_$1_$2_$3", GAUGE),
        # histograms as summaries (without a _sum)
        Rule(r"kafka.(\w+)<type=(.+), name=(.+), (.+)=(.+), (.+)=(.+)><>Count",
             "kafka_$1_$2_$3_count", COUNTER, two),
        Rule(r"kafka.(\w+)<type=(.+), name=(.+), (.+)=(.*), (.+)=(.+)><>(\d+)thPercentile",
             "kafka_$1_$2_$3", GAUGE, {**two, "quantile": "0.$8"}),
        Rule(r"kafka.(\w+)<type=(.+), name=(.+), (.+)=(.+)><>Count",
             "kafka_$1_$2_$3_count", COUNTER, one),
        Rule(r"kafka.(\w+)<type=(.+), name=(.+), (.+)=(.*)><>(\d+)thPercentile",
             "kafka_$1_$2_$3", GAUGE, {**one, "quantile": "0.$6"}),
        Rule(r"kafka.(\w+)<type=(.+), name=(.+)><>Count", "kafka_$1_$2_$3_count", COUNTER),
        Rule(r"kafka.(\w+)<type=(.+), name=(.+)><>(\d+)thPercentile",
             "kafka_$1_$2_$3", GAUGE, {"quantile": "0.$4"}),
    )


#: Strimzi 0.45.0's Kafka rules (its KRaft-only rules left out: this broker runs ZooKeeper mode)
STRIMZI_KAFKA_RULES: tuple[Rule, ...] = _rules()

_QUOTA_TYPES = "(Produce|Fetch|Request|ControllerMutation)"
#: the client quotas' MBeans (``kafka.server:type=Produce,user=..,client-id=..``), which
#: Strimzi's rules leave out: these follow the naming of the rules above
#: (``kafka_server_produce_throttle_time{user,client_id}``), and go before them
QUOTA_RULES: tuple[Rule, ...] = (
    Rule(rf"kafka.server<type={_QUOTA_TYPES}, user=(.+), client-id=(.+)><>([a-z-]+)",
         "kafka_server_$1_$4", GAUGE, {"user": "$2", "client_id": "$3"}),
    Rule(rf"kafka.server<type={_QUOTA_TYPES}, user=(.+)><>([a-z-]+)",
         "kafka_server_$1_$3", GAUGE, {"user": "$2"}),
    Rule(rf"kafka.server<type={_QUOTA_TYPES}, client-id=(.+)><>([a-z-]+)",
         "kafka_server_$1_$3", GAUGE, {"client_id": "$2"}),
)

#: the rules the broker renders its metrics with, and the reference Kafka's exporter is given
KAFKA_RULES: tuple[Rule, ...] = QUOTA_RULES + STRIMZI_KAFKA_RULES


def exporter_config(rules: tuple[Rule, ...] = KAFKA_RULES) -> dict[str, Any]:
    """The exporter configuration with these rules (JSON is YAML: write it with ``json``)."""
    return {
        "lowercaseOutputName": True,
        "rules": [{"pattern": r.pattern, "name": r.name, "type": r.type,
                   **({"labels": dict(r.labels)} if r.labels else {})} for r in rules],
    }


def safe_name(name: str) -> str:
    """The exporter's ``safeName``: unsafe characters to ``_``, runs of ``_`` collapsed."""
    return _UNDERSCORES.sub("_", _UNSAFE.sub("_", name))


def strip_reserved_suffixes(name: str) -> str:
    """What the exporter's client library makes of a name (``sanitizeMetricName``)."""
    stripped = True
    while stripped:
        stripped = False
        for suffix in RESERVED_SUFFIXES:
            if name.endswith(suffix) and name != suffix:
                name = name[: -len(suffix)]
                stripped = True
    return name


@dataclass(frozen=True, slots=True)
class Rendered:
    """An attribute as the rules render it: the family name without its ``_total`` (the
    exposition adds that to a counter), its type and its labels in the rule's order."""

    name: str
    type: str
    labels: tuple[tuple[str, str], ...]


class RuleSet:
    """Rules compiled once, with the rendering of each (MBean, attribute) remembered: an
    MBean's attributes render the same way at every scrape."""

    def __init__(self, rules: tuple[Rule, ...] = KAFKA_RULES,
                 lowercase_output_name: bool = True) -> None:
        self.rules = rules
        self._compiled = [(r, r.compiled()) for r in rules]
        self.lowercase = lowercase_output_name
        self._cache: dict[tuple[str, str, str], Rendered | None] = {}

    def render(self, bean: str, attribute: str, value_text: str = "0") -> Rendered | None:
        """``bean``: ``domain<key=value, ...>``. None: no rule matches (not exported).

        The value takes part in matching (rules may end in ``:``) but no rule here reads it,
        so the rendering is remembered per (bean, attribute)."""
        key = (bean, attribute, "")
        try:
            return self._cache[key]
        except KeyError:
            pass
        line = f"{bean}<>{attribute}: {value_text}"
        rendered = None
        for rule, pattern in self._compiled:
            m = pattern.match(line)
            if m is None:
                continue
            rendered = self._apply(rule, m)
            break
        self._cache[key] = rendered
        return rendered

    def _apply(self, rule: Rule, m: re.Match[str]) -> Rendered:
        def sub(template: str) -> str:
            return _GROUP.sub(lambda g: m.group(int(g.group(1))) or "", template)

        name = safe_name(sub(rule.name))
        if self.lowercase:
            name = name.lower()
        name = strip_reserved_suffixes(name)
        labels = tuple((safe_name(sub(k)), sub(v)) for k, v in rule.labels.items())
        return Rendered(name, rule.type, labels)
