"""pybroker's metrics beside Apache Kafka 3.9's, as the Prometheus JMX exporter (1.0.1, the java
agent) serves Kafka's MBeans with the Strimzi rules: the same traffic to both, then

* every series name and label set the reference serves for the metrics pybroker has
  (docs/metrics.md) is served by pybroker too, but for the differences kept in
  :data:`KNOWN_DIFFERENCES` (listed in docs/compatibility.md with their reasons);
* the counters of that traffic agree: messages and bytes in exactly, requests and errors
  per API exactly; timings only in kind (a count per request, non-negative quantiles).
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from confluent_kafka import Consumer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from protocol.messages import ApiKey, produce_request as preq
from protocol.records.record import build_batch
from pybroker.testing.broker_process import BrokerProcess
from pybroker.testing.metrics import Scrape, scrape
from pybroker.testing.reference_kafka import ReferenceKafka
from pybroker.testing.wire_client import WireClient
from tests.conftest import REFERENCE_OVERRIDES

pytestmark = pytest.mark.compat

TOPIC, GROUP = "metered-alike", "metered-alike-group"
#: the Produce requests both brokers get: the same batches, byte for byte
BATCHES = [bytes(build_batch([(b"k%d" % i, b"v%05d" % (i * 50 + j) * 10) for j in range(50)]))
           for i in range(10)]

#: the families compared: the MBeans of issue-listed subsystems pybroker serves
COMPARED = re.compile(
    r"kafka_(server_(brokertopicmetrics|replicamanager|delayedoperationpurgatory|"
    r"groupmetadatamanager|socket_server_metrics|kafkarequesthandlerpool|"
    r"replicafetchermanager|replicaalterlogdirsmanager|fetchsessioncache|kafkaserver|"
    r"metadataloader|addpartitionstotxnmanager|zookeeperclientmetrics|sessionexpirelistener)|"
    r"network_|controller_|cluster_partition|log_|utils_)")

#: series the reference serves and pybroker does not, by name prefix, each with its reason
#: (docs/compatibility.md lists them)
KNOWN_DIFFERENCES: dict[str, str] = {
    "kafka_network_requestchannel_": "no request channel: a request is handled in the wake-up "
    "that read it, and responses wait on their own connection",
    "kafka_server_addpartitionstotxnmanager_": "KIP-890's verification requests are not timed",
    "kafka_network_requestmetrics_deprecatedrequests": "requests of the API versions Kafka 3.9 "
    "deprecates (KIP-896) are served but not counted apart",
    "kafka_server_replicaalterlogdirsmanager_": "moves between log dirs are not replica "
    "fetchers here (their progress is DescribeLogDirs' future replica)",
    "kafka_server_sessionexpirelistener_": "the ZooKeeper client's (kazoo's) connection states "
    "are logged, not counted",
    "kafka_server_zookeeperclientmetrics_": "ZooKeeper request latency is not measured",
    "kafka_utils_throttler_cleaner_io": "the log cleaner's I/O is not throttled "
    "(log.cleaner.io.max.bytes.per.second)",
    **{f"kafka_server_socket_server_metrics_{m}": "one event loop is the selector of every "
       "listener: its idle share is NetworkProcessorAvgIdlePercent, and per-listener select, "
       "I/O time and network-I/O counts are not kept"
       for m in ("io_", "iotime", "select_", "network_io_")},
    **{f"kafka_server_socket_server_metrics_{m}": "authentication outcomes are logged, not "
       "counted per listener (ExpiredConnectionsKilledCount counts expired sessions for the "
       "broker)"
       for m in ("successful_", "failed_", "reauthentication_", "expired_connections_")},
}


def known(name: str) -> bool:
    return any(name.startswith(prefix) for prefix in KNOWN_DIFFERENCES)


@pytest.fixture(scope="module")
def both(reference_kafka: ReferenceKafka,
         tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[BrokerProcess,
                                                                     ReferenceKafka]]:
    if reference_kafka.metrics_port is None:
        pytest.skip("SKIPPED: the reference Kafka runs without the JMX exporter's agent: "
                    "run scripts/kafka-tools-deps.sh")
    broker = BrokerProcess(Path(tmp_path_factory.mktemp("metrics-alike")) / "data",
                           metrics=True, overrides=REFERENCE_OVERRIDES)
    broker.start()
    try:
        yield broker, reference_kafka
    finally:
        broker.stop()


def drive(bootstrap: str) -> None:
    """The traffic both brokers get."""
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(TOPIC, 1, 1)])[TOPIC].result(30)
    deadline = time.monotonic() + 30
    with WireClient(bootstrap) as client:
        for i, batch in enumerate([*BATCHES, BATCHES[0]]):
            partition = 7 if i == len(BATCHES) else 0  # the last one: a partition that is not
            while True:
                response = client.call(ApiKey.PRODUCE, 9, preq.ProduceRequest(
                    acks=1, timeout_ms=10_000, topic_data=[preq.TopicProduceData(
                        name=TOPIC, partition_data=[preq.PartitionProduceData(
                            index=partition, records=batch)])]))
                [part] = response.responses[0].partition_responses
                # a leader that is not known yet (NOT_LEADER_OR_FOLLOWER) right after creation
                if part.error_code != 6 or time.monotonic() > deadline:
                    break
                time.sleep(0.1)
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": GROUP,
                         "enable.auto.commit": False})
    consumer.assign([TopicPartition(TOPIC, 0, 0)])
    read = 0
    deadline = time.monotonic() + 30
    while read < 200 and time.monotonic() < deadline:
        read += len(consumer.consume(200 - read, 1.0))
    consumer.commit(offsets=[TopicPartition(TOPIC, 0, 200)], asynchronous=False)
    consumer.close()


def families(page: Scrape) -> set[tuple[str, frozenset[str]]]:
    """The compared series' names and label keys; of the series of one topic, this test's
    (the session's reference Kafka also serves the topics of other tests)."""
    return {(name, frozenset(k for k, _ in labels)) for name, labels in page.samples
            if COMPARED.match(name) and dict(labels).get("topic", TOPIC) == TOPIC}


@pytest.fixture(scope="module")
def pages(both: tuple[BrokerProcess, ReferenceKafka]) -> dict[str, tuple[Scrape, Scrape]]:
    broker, reference = both
    out = {}
    for name, url, bootstrap in (("pybroker", broker.metrics_url, broker.bootstrap),
                                 ("kafka", reference.metrics_url, reference.bootstrap)):
        before = scrape(url)
        drive(bootstrap)
        time.sleep(1)  # gauges such as the log's size read the state after the last append
        out[name] = (before, scrape(url))
    return out


def test_every_series_the_reference_serves_is_served(pages) -> None:
    ours = families(pages["pybroker"][1])
    theirs = families(pages["kafka"][1])
    missing = sorted((n, sorted(k)) for n, k in theirs - ours if not known(n))
    print(f"\ncompared {len(theirs)} reference series shapes; pybroker serves "
          f"{len(theirs & ours)}")
    assert not missing, f"served by Kafka, not by pybroker: {missing}"


def delta(pages, broker: str, name: str, **labels: str) -> float:
    before, after = pages[broker]
    return after.value(name, labels, default=0.0) - before.value(name, labels, default=0.0)


@pytest.mark.parametrize("name,labels", [
    ("kafka_server_brokertopicmetrics_messagesin_total", {"topic": TOPIC}),
    ("kafka_server_brokertopicmetrics_bytesin_total", {"topic": TOPIC}),
    ("kafka_server_brokertopicmetrics_bytesin_total", {}),
    ("kafka_server_brokertopicmetrics_totalproducerequests_total", {"topic": TOPIC}),
    ("kafka_server_brokertopicmetrics_failedproducerequests_total", {"topic": TOPIC}),
    ("kafka_network_requestmetrics_requests_total", {"request": "Produce", "version": "9"}),
    ("kafka_network_requestmetrics_errors_total",
     {"request": "Produce", "error": "UNKNOWN_TOPIC_OR_PARTITION"}),
    ("kafka_network_requestmetrics_errors_total", {"request": "Produce", "error": "NONE"}),
    ("kafka_network_requestmetrics_requests_total", {"request": "OffsetCommit", "version": "9"}),
])
def test_the_same_traffic_counts_the_same(pages, name: str, labels: dict[str, str]) -> None:
    ours, theirs = delta(pages, "pybroker", name, **labels), delta(pages, "kafka", name, **labels)
    assert ours == theirs, f"{name}{labels}: pybroker {ours}, Kafka {theirs}"


def test_the_log_gauges_agree(pages) -> None:
    labels = {"topic": TOPIC, "partition": "0"}
    for name in ("kafka_log_log_size", "kafka_log_log_logendoffset",
                 "kafka_log_log_numlogsegments", "kafka_cluster_partition_replicascount"):
        ours = pages["pybroker"][1].value(name, labels)
        theirs = pages["kafka"][1].value(name, labels)
        assert ours == theirs, f"{name}: pybroker {ours}, Kafka {theirs}"


def test_timings_agree_in_kind(pages) -> None:
    for broker in ("pybroker", "kafka"):
        page = pages[broker][1]
        count = page.value("kafka_network_requestmetrics_totaltimems_count_total",
                           {"request": "Produce"})
        assert count >= len(BATCHES) + 1, broker
        for q in ("0.50", "0.99", "0.999"):
            assert page.value("kafka_network_requestmetrics_totaltimems",
                              {"request": "Produce", "quantile": q}) >= 0, (broker, q)
