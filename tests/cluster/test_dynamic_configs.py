"""Dynamic broker configs (KIP-226) in a three-broker ZooKeeper-mode cluster: a cluster-wide
default set through one broker is stored as Kafka stores it (``/config/brokers/<default>``
and a ``/config/changes`` notification), reaches every broker, holds for the topics they lead,
and survives a restart - a broker that was down when it changed reads it as it starts; a
broker's own configs reach that broker only. ``num.replica.fetchers`` changes while followers
copy under acks=all; a broker's listeners and what it advertises change, and every broker
learns of it through the controller."""

from __future__ import annotations

import json
import uuid

from confluent_kafka import Producer
from kazoo.client import KazooClient

from protocol.errors import ErrorCode
from protocol.messages import (
    ApiKey,
    alter_configs_request as ac,
    create_topics_request as ct,
    describe_configs_request as dc,
    metadata_request as mreq,
)
from pybroker.testing.broker_process import free_port, port_accepts
from pybroker.testing.cluster import ClusterProcesses, wait_for
from pybroker.testing.wire_client import WireClient

BROKER, TOPIC = 4, 2
DESCRIBE_CONFIGS, ALTER_CONFIGS, CREATE_TOPICS = 32, 33, 19
DYNAMIC_BROKER_CONFIG, DYNAMIC_DEFAULT_BROKER_CONFIG = 2, 3


def alter(cluster: ClusterProcesses, via: int, name: str, configs: dict[str, str]) -> None:
    with WireClient(cluster.broker(via).bootstrap) as client:
        response = client.call(ALTER_CONFIGS, 2, ac.AlterConfigsRequest(resources=[
            ac.AlterConfigsResource(resource_type=BROKER, resource_name=name, configs=[
                ac.AlterableConfig(name=k, value=v) for k, v in configs.items()])]))
    [result] = response.responses
    assert result.error_code == ErrorCode.NONE, result


def describe(cluster: ClusterProcesses, broker_id: int, resource_type: int, name: str,
             keys: list[str]) -> dict[str, tuple[str | None, int]]:
    """name -> (value, source), as broker ``broker_id`` describes the resource."""
    with WireClient(cluster.broker(broker_id).bootstrap) as client:
        response = client.call(DESCRIBE_CONFIGS, 4, dc.DescribeConfigsRequest(resources=[
            dc.DescribeConfigsResource(resource_type=resource_type, resource_name=name,
                                       configuration_keys=keys)]))
    [result] = response.results
    assert result.error_code == ErrorCode.NONE, result
    return {c.name: (c.value, c.config_source) for c in result.configs}


def retention(cluster: ClusterProcesses, broker_id: int) -> tuple[str | None, int]:
    return describe(cluster, broker_id, BROKER, str(broker_id),
                    ["log.retention.ms"])["log.retention.ms"]


def settled(cluster: ClusterProcesses, expected: dict[int, tuple[str | None, int]]) -> None:
    wait_for(lambda: all(retention(cluster, b) == v for b, v in expected.items()), 30,
             f"log.retention.ms to be {expected}")


def test_a_cluster_default_reaches_every_broker_and_survives_restarts(
        cluster: ClusterProcesses, zk: KazooClient) -> None:
    default = ("3600000", DYNAMIC_DEFAULT_BROKER_CONFIG)
    alter(cluster, 1, "", {"log.retention.ms": "3600000", "message.max.bytes": "2000"})
    data, _ = zk.get("/config/brokers/<default>")
    assert json.loads(data) == {"version": 1, "config": {
        "log.retention.ms": "3600000", "message.max.bytes": "2000"}}
    notes = [json.loads(zk.get(f"/config/changes/{n}")[0])
             for n in zk.get_children("/config/changes")]
    assert {"version": 2, "entity_path": "brokers/<default>"} in notes
    settled(cluster, {1: default, 2: default, 3: default})
    for b in (1, 2, 3):
        assert describe(cluster, b, BROKER, "", [])["message.max.bytes"] == (
            "2000", DYNAMIC_DEFAULT_BROKER_CONFIG)

    # the topics each broker leads run with it
    topic = f"dynamic-{uuid.uuid4().hex[:8]}"
    with WireClient(cluster.broker(1).bootstrap) as client:
        created = client.call(CREATE_TOPICS, 7, ct.CreateTopicsRequest(topics=[
            ct.CreatableTopic(name=topic, num_partitions=3, replication_factor=3,
                              assignments=[], configs=[])], timeout_ms=30_000))
    assert created.topics[0].error_code == ErrorCode.NONE, created
    for b in (1, 2, 3):
        # (each broker knows the topic once the controller's UpdateMetadata reaches it)
        wait_for(lambda b=b: topic in known_topics(cluster, b), 30,
                 f"broker {b} to know {topic}")
        on_topic = describe(cluster, b, TOPIC, topic, ["retention.ms", "max.message.bytes"])
        assert on_topic == {"retention.ms": default, "max.message.bytes": (
            "2000", DYNAMIC_DEFAULT_BROKER_CONFIG)}

    # a broker's own configs are its alone
    alter(cluster, 2, "2", {"log.retention.ms": "7200000"})
    assert json.loads(zk.get("/config/brokers/2")[0])["config"] == {
        "log.retention.ms": "7200000"}
    settled(cluster, {1: default, 2: ("7200000", DYNAMIC_BROKER_CONFIG), 3: default})

    # a restart reads them back; a change made while a broker is down reaches it as it starts
    cluster.broker(2).restart()
    cluster.broker(3).stop()
    alter(cluster, 1, "", {"log.retention.ms": "5400000"})
    cluster.broker(3).start()
    cluster.wait_formed()
    later = ("5400000", DYNAMIC_DEFAULT_BROKER_CONFIG)
    settled(cluster, {1: later, 2: ("7200000", DYNAMIC_BROKER_CONFIG), 3: later})
    assert describe(cluster, 3, BROKER, "", [])["log.retention.ms"] == later


def produce_acks_all(cluster: ClusterProcesses, topic: str, n: int) -> None:
    producer = Producer({"bootstrap.servers": cluster.bootstrap, "acks": "all",
                         "enable.idempotence": True, "delivery.timeout.ms": 30000})
    failed: list[object] = []
    for i in range(n):
        producer.produce(topic, b"v%d" % i, partition=i % 4,
                         on_delivery=lambda err, _m: failed.append(err) if err else None)
    assert producer.flush(60) == 0 and not failed, failed
    del producer


def test_the_number_of_replica_fetchers_changes_at_run_time(cluster: ClusterProcesses) -> None:
    topic = f"fetchers-{uuid.uuid4().hex[:8]}"
    with WireClient(cluster.broker(1).bootstrap) as client:
        created = client.call(CREATE_TOPICS, 7, ct.CreateTopicsRequest(topics=[
            ct.CreatableTopic(name=topic, num_partitions=4, replication_factor=3,
                              assignments=[], configs=[])], timeout_ms=30_000))
    assert created.topics[0].error_code == ErrorCode.NONE, created
    produce_acks_all(cluster, topic, 40)
    alter(cluster, 2, "", {"num.replica.fetchers": "2"})
    for b in (1, 2, 3):
        wait_for(lambda b=b: "Resizing fetcher pool size from 1 to 2"
                 in cluster.broker(b).log_path.read_text(errors="replace"), 30,
                 f"broker {b}'s fetchers to be resized")
    # the followers copy on from where they were: acks=all still completes
    produce_acks_all(cluster, topic, 40)


def endpoints_named(cluster: ClusterProcesses, via: int) -> dict[int, int]:
    """broker -> the port Metadata names it at, as broker ``via`` answers."""
    with WireClient(cluster.broker(via).bootstrap) as client:
        md = client.call(ApiKey.METADATA, 12, mreq.MetadataRequest(
            topics=[], allow_auto_topic_creation=False))
    return {b.node_id: b.port for b in md.brokers}


def known_topics(cluster: ClusterProcesses, via: int) -> set[str]:
    """The topics broker ``via`` knows, every partition led."""
    with WireClient(cluster.broker(via).bootstrap) as client:
        md = client.call(ApiKey.METADATA, 12, mreq.MetadataRequest(
            topics=None, allow_auto_topic_creation=False))
    return {t.name for t in md.topics
            if t.error_code == 0 and all(p.leader_id >= 0 for p in t.partitions)}


def test_a_broker_advertises_new_listeners_at_run_time(cluster: ClusterProcesses,
                                                       zk: KazooClient) -> None:
    """Broker 2 opens a second listener and advertises its PLAINTEXT endpoint there (Kafka
    allows one listener to advertise another's address): it registers the new endpoints, the
    controller tells every broker, clients follow; a restart keeps it so."""
    old, new = cluster.broker(2).port, free_port()
    alter(cluster, 2, "2", {
        "listeners": f"PLAINTEXT://127.0.0.1:{old},OTHER://127.0.0.1:{new}",
        "advertised.listeners": f"PLAINTEXT://127.0.0.1:{new},OTHER://127.0.0.1:{old}",
        "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,OTHER:PLAINTEXT"})
    wait_for(lambda: port_accepts(new), 30, "broker 2's new listener")
    wait_for(lambda: f"PLAINTEXT://127.0.0.1:{new}" in json.loads(
        zk.get("/brokers/ids/2")[0])["endpoints"], 30, "broker 2's new registration")
    for b in (1, 2, 3):
        wait_for(lambda b=b: endpoints_named(cluster, b).get(2) == new, 30,
                 f"broker {b} to name broker 2's new endpoint")
    topic = f"listeners-{uuid.uuid4().hex[:8]}"
    with WireClient(cluster.broker(1).bootstrap) as client:
        created = client.call(CREATE_TOPICS, 7, ct.CreateTopicsRequest(topics=[
            ct.CreatableTopic(name=topic, num_partitions=4, replication_factor=3,
                              assignments=[], configs=[])], timeout_ms=30_000))
    assert created.topics[0].error_code == ErrorCode.NONE, created
    produce_acks_all(cluster, topic, 40)  # some partitions are led by broker 2

    cluster.broker(2).restart()
    cluster.wait_formed()
    assert port_accepts(new)
    wait_for(lambda: endpoints_named(cluster, 1).get(2) == new, 30,
             "broker 1 to name broker 2's endpoint after its restart")
    produce_acks_all(cluster, topic, 40)


def test_a_topic_config_altered_through_one_broker_is_described_by_another_at_once(
        cluster: ClusterProcesses) -> None:
    """Kafka's DescribeConfigs reads a topic's overrides from ZooKeeper, not from the
    broker's copy (which follows the change notifications a moment later): so does
    pybroker. Alter through broker 1, describe at once through brokers 2 and 3, many times."""
    topic = f"described-at-once-{uuid.uuid4().hex[:8]}"
    with WireClient(cluster.broker(1).bootstrap) as one:
        created = one.call(CREATE_TOPICS, 4, ct.CreateTopicsRequest(timeout_ms=30_000, topics=[
            ct.CreatableTopic(name=topic, num_partitions=1, replication_factor=3)]))
        assert created.topics[0].error_code == ErrorCode.NONE, created
        clients = {b: WireClient(cluster.broker(b).bootstrap) for b in (2, 3)}
        try:
            wait_for(lambda: all(
                c.call(DESCRIBE_CONFIGS, 4, dc.DescribeConfigsRequest(resources=[
                    dc.DescribeConfigsResource(resource_type=TOPIC, resource_name=topic,
                                               configuration_keys=["retention.ms"])]))
                .results[0].error_code == ErrorCode.NONE for c in clients.values()),
                30, "every broker to know the topic")
            for retention in range(3_600_000, 3_600_020):
                r = one.call(ALTER_CONFIGS, 2, ac.AlterConfigsRequest(resources=[
                    ac.AlterConfigsResource(resource_type=TOPIC, resource_name=topic, configs=[
                        ac.AlterableConfig(name="retention.ms", value=str(retention))])]))
                assert r.responses[0].error_code == ErrorCode.NONE, r
                for broker_id, client in clients.items():
                    d = client.call(DESCRIBE_CONFIGS, 4, dc.DescribeConfigsRequest(resources=[
                        dc.DescribeConfigsResource(resource_type=TOPIC, resource_name=topic,
                                                   configuration_keys=["retention.ms"])]))
                    [entry] = d.results[0].configs
                    assert entry.value == str(retention), (broker_id, entry)
        finally:
            for c in clients.values():
                c.close()
