"""A real Prometheus server (Debian's ``prometheus``, on a loopback port) scraping three
pybroker processes with the example configuration and alert rules of ``config/prometheus/``:

* PromQL sees exactly one active controller, on the broker Metadata names;
* every series the alert rules use is served by every broker, and every rule evaluates;
* after the controller is killed (SIGKILL), its target is down and the one active controller
  is another broker, which took the dead one's leaderships (no partition is left offline) in
  a ControllerChange event its timer counts.

Every process is stopped by its pid when the test ends.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from confluent_kafka.admin import AdminClient, NewTopic

from pybroker.testing.cluster import ClusterProcesses, running_cluster, wait_for
from pybroker.testing.prometheus import EXAMPLE_DIR, PrometheusServer
from tests.cluster.test_replication import controller_of

ACTIVE = "kafka_controller_kafkacontroller_activecontrollercount"
UP = 'up{job="kafka"}'
CHANGES = "kafka_controller_controllerstats_controllerchangerateandtimems_count_total"


@pytest.fixture
def scraped(tmp_path: Path,
            zk_connect: str) -> Iterator[tuple[ClusterProcesses, PrometheusServer]]:
    missing = PrometheusServer.missing()
    if missing:
        pytest.skip(f"SKIPPED: the Prometheus test needs {missing}")
    with running_cluster(tmp_path / "cluster", zk_connect, metrics=True) as cluster:
        targets = [f"127.0.0.1:{b.metrics_port}" for b in cluster.brokers.values()]
        with PrometheusServer(tmp_path / "prometheus", targets) as prometheus:
            yield cluster, prometheus


def instance(cluster: ClusterProcesses, broker: int) -> str:
    return f"127.0.0.1:{cluster.broker(broker).metrics_port}"


def alert_series() -> set[str]:
    """The series names the example alert rules use."""
    rules = yaml.safe_load((EXAMPLE_DIR / "kafka-alerts.yml").read_text())
    return {name for group in rules["groups"] for rule in group["rules"]
            for name in re.findall(r"\bkafka_[a-z_]+", rule["expr"])}


def test_one_active_controller_and_its_move(scraped: tuple[ClusterProcesses,
                                                           PrometheusServer]) -> None:
    cluster, prometheus = scraped
    prometheus.wait(f"count({UP} == 1)", 3)
    prometheus.wait(f"sum({ACTIVE})", 1)
    controller = controller_of(cluster)
    [(labels, _)] = prometheus.query(f"{ACTIVE} == 1")
    assert labels["instance"] == instance(cluster, controller)

    # the alert rules are written against series every broker serves, and all evaluate
    names = alert_series()
    assert len(names) >= 8
    for name in sorted(names):
        assert prometheus.value(f"count({name})") == 3, name
    groups = prometheus.api("rules")["groups"]
    rules = [r for g in groups for r in g["rules"]]
    assert len(rules) == sum(len(g["rules"]) for g in yaml.safe_load(
        (EXAMPLE_DIR / "kafka-alerts.yml").read_text())["groups"])
    wait_for(lambda: all(r.get("health") == "ok" for r in prometheus.api("rules")["groups"][0]
                         ["rules"]), 10, "every alert rule evaluated")
    # a healthy cluster fires none of them
    assert prometheus.query('ALERTS{alertstate="firing"}') == []

    # partitions led by every broker, the controller among them
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap})
    admin.create_topics([NewTopic("watched", 6, 3)])["watched"].result(30)
    prometheus.wait("sum(kafka_controller_kafkacontroller_globalpartitioncount)", 6)
    changes = {labels["instance"]: v for labels, v in prometheus.query(CHANGES)}
    assert len(changes) == 3

    cluster.broker(controller).kill()
    new = wait_for(lambda: (lambda c: c if c not in (-1, controller) else None)(
        controller_of(cluster)), 60, "another controller")
    print(f"\ncontroller {controller} killed; broker {new} took over")
    prometheus.wait(f'up{{instance="{instance(cluster, controller)}"}}', 0)
    prometheus.wait(f"sum({ACTIVE})", 1, timeout=60)
    [(labels, _)] = prometheus.query(f"{ACTIVE} == 1")
    assert labels["instance"] == instance(cluster, new)
    # the new controller moved the dead broker's leaderships: nothing offline
    prometheus.wait("sum(kafka_controller_kafkacontroller_offlinepartitionscount)", 0)
    # the failover ran on it as Kafka's ControllerChange event (its LeaderElectionRateAndTimeMs
    # times broker changes, which a new controller's failover is not)
    prometheus.wait(f'{CHANGES}{{instance="{instance(cluster, new)}"}} > bool '
                    f'{changes[instance(cluster, new)]}', 1)
