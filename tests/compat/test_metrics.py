"""The metrics endpoint of a real broker process, driven by real clients: counters that equal
the traffic exactly (bytes and messages in and out against the bytes the log holds, requests,
errors per occurrence), Fetch counted under two names, the time split of each request, and
the readiness check."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from protocol.messages import ApiKey, produce_request as preq
from protocol.records.record import build_batch
from pybroker.metrics.catalogue import documented, prometheus_names
from pybroker.testing.broker_process import BrokerProcess, BrokerStartError
from pybroker.testing.metrics import Scrape, ready, scrape
from pybroker.testing.wire_client import WireClient

pytestmark = pytest.mark.compat

BTM = "kafka_server_brokertopicmetrics_"
RM = "kafka_network_requestmetrics_"


@pytest.fixture(scope="module")
def metered(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrokerProcess]:
    broker = BrokerProcess(tmp_path_factory.mktemp("metrics") / "data", metrics=True,
                           overrides={"auto.create.topics.enable": "false"})
    broker.start()
    try:
        yield broker
    finally:
        broker.stop()


def create(broker: BrokerProcess, topic: str, partitions: int) -> None:
    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    admin.create_topics([NewTopic(topic, partitions, 1)])[topic].result(30)


def log_bytes(broker: BrokerProcess, topic: str) -> int:
    """What the topic's segment files hold: every batch appended, as appended."""
    return sum(f.stat().st_size for f in Path(broker.data_dir).glob(f"{topic}-*/*.log"))


def value(page: Scrape, name: str, **labels: str) -> float:
    return page.value(name, labels, default=0.0)


def requests(page: Scrape, request: str) -> float:
    """RequestsPerSec of one request name, all versions."""
    return sum(v for labels, v in page.series(RM + "requests_total").items()
               if ("request", request) in labels)


def test_ready_and_the_page(metered: BrokerProcess) -> None:
    assert ready(metered.metrics_url) == 200
    page = scrape(metered.metrics_url)
    # process metrics as prometheus-client reads them, beside Kafka's
    assert page.value("process_resident_memory_bytes") > 0
    assert page.value("process_open_fds") > 0
    assert page.types[BTM + "bytesin_total"] == "counter"


def test_bytes_and_messages_in_and_out_equal_the_log(metered: BrokerProcess) -> None:
    topic = "counted"
    create(metered, topic, 3)
    before = scrape(metered.metrics_url)
    producer = Producer({"bootstrap.servers": metered.bootstrap, "linger.ms": 20})
    for i in range(3000):
        producer.produce(topic, value=b"v%05d" % i * 20, partition=i % 3)
    assert producer.flush(30) == 0
    after = scrape(metered.metrics_url)
    stored = log_bytes(metered, topic)
    assert stored > 3000 * 100
    assert value(after, BTM + "messagesin_total", topic=topic) == 3000
    assert value(after, BTM + "bytesin_total", topic=topic) == stored
    # the series without a topic label is all topics together
    assert value(after, BTM + "bytesin_total") - value(before, BTM + "bytesin_total") == stored
    produced = value(after, BTM + "totalproducerequests_total", topic=topic)
    assert produced >= 3
    # one Produce request may carry batches of several partitions
    assert requests(after, "Produce") - requests(before, "Produce") >= produced / 3

    consumer = Consumer({"bootstrap.servers": metered.bootstrap, "group.id": "metrics",
                         "enable.auto.commit": False})
    consumer.assign([TopicPartition(topic, p, 0) for p in range(3)])
    got = 0
    deadline = time.monotonic() + 30
    while got < 3000 and time.monotonic() < deadline:
        got += len(consumer.consume(500, 1.0))
    consumer.close()
    assert got == 3000
    out = scrape(metered.metrics_url)
    assert value(out, BTM + "bytesout_total", topic=topic) == stored
    # a consumer's fetch counts under Fetch and under FetchConsumer, the same number of times
    fetches = requests(out, "Fetch") - requests(before, "Fetch")
    assert fetches == requests(out, "FetchConsumer") - requests(before, "FetchConsumer") > 0
    assert requests(out, "FetchFollower") == 0


def test_errors_count_once_per_occurrence(metered: BrokerProcess) -> None:
    topic = "errors"
    create(metered, topic, 1)
    batch = bytes(build_batch([(None, b"x")]))

    def produce(partitions: list[int]) -> list[int]:
        body = preq.ProduceRequest(acks=1, timeout_ms=10_000, topic_data=[preq.TopicProduceData(
            name=topic, partition_data=[preq.PartitionProduceData(index=p, records=batch)
                                        for p in partitions])])
        with WireClient(metered.bootstrap) as client:
            response = client.call(ApiKey.PRODUCE, 9, body)
        return [p.error_code for t in response.responses for p in t.partition_responses]

    before = scrape(metered.metrics_url)
    # three partitions that do not exist and one that does
    assert sorted(produce([0, 5, 6, 7])) == [0, 3, 3, 3]
    after = scrape(metered.metrics_url)

    def delta(error: str) -> float:
        return (value(after, RM + "errors_total", request="Produce", error=error)
                - value(before, RM + "errors_total", request="Produce", error=error))

    assert delta("UNKNOWN_TOPIC_OR_PARTITION") == 3
    assert delta("NONE") == 1


def test_each_request_time_is_split_as_kafkas(metered: BrokerProcess) -> None:
    topic = "timed"
    create(metered, topic, 1)
    producer = Producer({"bootstrap.servers": metered.bootstrap, "acks": "all"})
    for i in range(50):
        producer.produce(topic, value=b"%d" % i)
        producer.flush(10)
    page = scrape(metered.metrics_url)
    produces = requests(page, "Produce")
    for part in ("requestqueuetimems", "localtimems", "remotetimems", "throttletimems",
                 "responsequeuetimems", "responsesendtimems", "totaltimems", "requestbytes"):
        assert value(page, RM + part + "_count_total", request="Produce") == produces, part
        quantiles = {q: value(page, RM + part, request="Produce", quantile=q)
                     for q in ("0.50", "0.75", "0.95", "0.98", "0.99", "0.999")}
        assert all(v >= 0 for v in quantiles.values()), part
    assert value(page, RM + "totaltimems", request="Produce", quantile="0.99") > 0
    assert value(page, RM + "totaltimems", request="Produce", quantile="0.99") >= \
        value(page, RM + "localtimems", request="Produce", quantile="0.50")
    assert value(page, RM + "requestbytes", request="Produce", quantile="0.50") > 60
    # every API's histograms exist before its first request, as Kafka's do
    assert RM + "totaltimems_count_total" in page.names()
    assert (RM + "totaltimems_count_total", frozenset({("request", "DeleteRecords")})) \
        in page.samples


def test_a_bad_metrics_listener_stops_start_up(tmp_path: Path) -> None:
    broker = BrokerProcess(tmp_path / "data", overrides={"metrics.listener": "ftp://x:1"})
    with pytest.raises(BrokerStartError):
        broker.start()
    assert "only http is served" in broker.stderr_tail()
    broker.stop()


def test_replica_controller_and_log_gauges(metered: BrokerProcess) -> None:
    topic = "gauges"
    create(metered, topic, 2)
    producer = Producer({"bootstrap.servers": metered.bootstrap})
    for i in range(200):
        producer.produce(topic, value=b"g%d" % i, partition=i % 2)
    assert producer.flush(30) == 0
    page = scrape(metered.metrics_url)
    # the single node is the one active controller and leads every partition
    assert page.value("kafka_controller_kafkacontroller_activecontrollercount") == 1
    assert page.value("kafka_controller_kafkacontroller_globaltopiccount") >= 1
    assert page.value("kafka_controller_kafkacontroller_offlinepartitionscount") == 0
    leaders = page.value("kafka_server_replicamanager_leadercount")
    assert leaders == page.value("kafka_server_replicamanager_partitioncount") >= 2
    assert page.value("kafka_server_replicamanager_underreplicatedpartitions") == 0
    sizes = sum(page.value("kafka_log_log_size", {"topic": topic, "partition": str(p)})
                for p in range(2))
    assert sizes == log_bytes(metered, topic)
    assert sum(page.value("kafka_log_log_logendoffset", {"topic": topic, "partition": str(p)})
               for p in range(2)) == 200
    assert page.value("kafka_topic_partition_current_offset",
                      {"topic": topic, "partition": "0"}) == 100
    connections = page.series("kafka_server_socket_server_metrics_connection_count")
    assert connections and all(v >= 0 for v in connections.values())
    idle = page.value("kafka_network_socketserver_networkprocessoravgidle_percent")
    assert 0 <= idle <= 1


def test_the_page_serves_exactly_the_catalogue(metered: BrokerProcess) -> None:
    """docs/metrics.md is generated from the catalogue: every series the broker serves is in
    it, with the labels it says, and everything it lists as served is served."""
    topic = "catalogued"
    create(metered, topic, 1)
    producer = Producer({"bootstrap.servers": metered.bootstrap})
    for i in range(20):
        producer.produce(topic, value=b"c%d" % i)
    assert producer.flush(30) == 0
    consumer = Consumer({"bootstrap.servers": metered.bootstrap, "group.id": "catalogued",
                         "auto.offset.reset": "earliest", "enable.auto.commit": False})
    consumer.subscribe([topic])
    got: list[object] = []
    deadline = time.monotonic() + 30
    while len(got) < 10 and time.monotonic() < deadline:
        got += consumer.consume(10 - len(got), 1.0)
    consumer.commit(asynchronous=False)
    consumer.close()
    with WireClient(metered.bootstrap) as client:  # an error code for ErrorsPerSec
        client.call(ApiKey.PRODUCE, 9, preq.ProduceRequest(
            acks=1, timeout_ms=1000, topic_data=[preq.TopicProduceData(
                name=topic, partition_data=[preq.PartitionProduceData(
                    index=9, records=bytes(build_batch([(None, b"x")])))])]))

    catalogued: dict[str, set[tuple[str, ...]]] = {}
    elsewhere: set[str] = set()  # series only a cluster's brokers serve
    for doc in documented():
        for name, label_sets in prometheus_names(doc).items():
            catalogued.setdefault(name, set()).update(label_sets)
            if doc.when:
                elsewhere.add(name)
    page = scrape(metered.metrics_url)
    served: dict[str, set[tuple[str, ...]]] = {}
    for name, labels in page.samples:
        if not name.startswith(("process_", "python_")):
            served.setdefault(name, set()).add(tuple(sorted(k for k, _ in labels)))
    uncatalogued = {n: keys - catalogued.get(n, set()) for n, keys in served.items()
                    if keys - catalogued.get(n, set())}
    assert not uncatalogued, f"served but not in pybroker/metrics/catalogue.py: {uncatalogued}"
    missing = sorted(catalogued.keys() - served.keys() - elsewhere)
    assert not missing, f"catalogued but not served: {missing}"


def test_a_lagging_groups_lag_is_what_it_has_not_read(metered: BrokerProcess) -> None:
    topic, group = "lagging", "lagging-group"
    create(metered, topic, 1)
    producer = Producer({"bootstrap.servers": metered.bootstrap})
    for i in range(30):
        producer.produce(topic, value=b"l%d" % i)
    assert producer.flush(30) == 0
    consumer = Consumer({"bootstrap.servers": metered.bootstrap, "group.id": group,
                         "enable.auto.commit": False})
    consumer.assign([TopicPartition(topic, 0, 0)])
    read: list[object] = []
    deadline = time.monotonic() + 30
    while len(read) < 12 and time.monotonic() < deadline:
        read += consumer.consume(12 - len(read), 1.0)
    assert len(read) == 12
    consumer.commit(asynchronous=False)  # the position: offset 12
    consumer.close()
    page = scrape(metered.metrics_url)
    labels = {"consumergroup": group, "topic": topic, "partition": "0"}
    assert page.value("kafka_consumergroup_current_offset", labels) == 12
    assert page.value("kafka_consumergroup_lag", labels) == 30 - 12


def test_a_deleted_topics_series_go(metered: BrokerProcess) -> None:
    """As Kafka's ReplicaManager removes a topic's BrokerTopicMetrics once it hosts no
    partition of it (``maybeRemoveTopicMetrics``), and its partitions' Log and Partition
    gauges with them: a broker that sees topics come and go keeps no series of the gone."""
    topic = "deleted-later"
    create(metered, topic, 2)
    producer = Producer({"bootstrap.servers": metered.bootstrap})
    for i in range(20):
        producer.produce(topic, value=b"d%d" % i, partition=i % 2)
    assert producer.flush(30) == 0

    def of_topic(page: Scrape) -> set[str]:
        return {name for name, labels in page.samples if ("topic", topic) in labels}

    before = of_topic(scrape(metered.metrics_url))
    assert {BTM + "messagesin_total", BTM + "bytesin_total", "kafka_log_log_size"} <= before
    admin = AdminClient({"bootstrap.servers": metered.bootstrap})
    admin.delete_topics([topic])[topic].result(30)
    deadline = time.monotonic() + 15
    while (left := of_topic(scrape(metered.metrics_url))) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert left == set()


def test_group_counts_by_protocol_and_state(metered: BrokerProcess) -> None:
    topic, group = "kip848-counted", "kip848-counted-group"
    create(metered, topic, 2)
    before = scrape(metered.metrics_url)
    consumer = Consumer({"bootstrap.servers": metered.bootstrap, "group.id": group,
                         "group.protocol": "consumer", "auto.offset.reset": "earliest"})
    try:
        consumer.subscribe([topic])
        deadline = time.monotonic() + 30
        while len(consumer.assignment()) < 2 and time.monotonic() < deadline:
            consumer.poll(0.2)
        assert len(consumer.assignment()) == 2
        deadline = time.monotonic() + 30
        while True:
            page = scrape(metered.metrics_url)
            stable = page.value("kafka_server_group_coordinator_metrics_consumer_group_count",
                                {"state": "stable"})
            if stable >= 1 or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        assert stable == before.value(
            "kafka_server_group_coordinator_metrics_consumer_group_count",
            {"state": "stable"}) + 1
        assert page.value("kafka_server_group_coordinator_metrics_group_count",
                          {"protocol": "consumer"}) == before.value(
            "kafka_server_group_coordinator_metrics_group_count", {"protocol": "consumer"}) + 1
    finally:
        consumer.close()
