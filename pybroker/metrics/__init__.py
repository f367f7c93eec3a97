"""The broker's metrics: Kafka's MBeans (:mod:`.registry`), named for Prometheus as the JMX
exporter names them with Strimzi's Kafka rules (:mod:`.jmx_rules`, :mod:`.exposition`), and
served over HTTP beside the Kafka listeners (:mod:`.endpoint`)."""

from .registry import (
    Histogram,
    MBean,
    Meter,
    MetricsRegistry,
    Timer,
    mbean,
)

__all__ = ["Histogram", "MBean", "Meter", "MetricsRegistry", "Timer", "mbean"]
