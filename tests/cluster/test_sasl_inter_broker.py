"""Two brokers whose inter-broker listener is SASL_PLAINTEXT: the controller's requests, the
replica fetchers, AlterPartition and the transaction markers all authenticate with
``sasl.mechanism.inter.broker.protocol`` and the username and password of the listener's JAAS
configuration - PLAIN, and SCRAM-SHA-256 with the brokers' credentials put in
``/config/users`` before they start, as Kafka's documentation has it. A transactional
producer writes with acks=all to a topic that needs both replicas in sync.

Each broker also has a PLAINTEXT listener, which the test's clients use."""

from __future__ import annotations

import json
import time
import uuid
from pathlib import Path

import pytest
from confluent_kafka import Consumer, Producer
from confluent_kafka.admin import AdminClient, NewTopic
from kazoo.client import KazooClient

from pybroker.security.scram import SCRAM_SHA_256, new_credential
from pybroker.testing.broker_process import free_port
from pybroker.testing.cluster import ClusterProcesses

PLAIN_JAAS = ('org.apache.kafka.common.security.plain.PlainLoginModule required '
              'username="broker" password="broker-secret" user_broker="broker-secret";')
SCRAM_JAAS = ('org.apache.kafka.common.security.scram.ScramLoginModule required '
              'username="broker" password="broker-scram";')


@pytest.mark.parametrize("mechanism", ["PLAIN", "SCRAM-SHA-256"])
def test_a_cluster_replicates_over_a_sasl_inter_broker_listener(
        tmp_path: Path, zk_connect: str, zk: KazooClient, mechanism: str) -> None:
    if mechanism == "SCRAM-SHA-256":
        credential = new_credential(SCRAM_SHA_256, "broker-scram", 4096).to_config_string()
        zk.create("/config/users/broker", json.dumps(
            {"version": 1, "config": {"SCRAM-SHA-256": credential}}).encode(), makepath=True)
    cluster = ClusterProcesses(tmp_path / "cluster", zk_connect, size=2, overrides={
        "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT",
        "inter.broker.listener.name": "SASL_PLAINTEXT",
        "sasl.enabled.mechanisms": mechanism,
        "sasl.mechanism.inter.broker.protocol": mechanism,
        f"listener.name.sasl_plaintext.{mechanism.lower()}.sasl.jaas.config":
            PLAIN_JAAS if mechanism == "PLAIN" else SCRAM_JAAS,
        "min.insync.replicas": 2,
        "offsets.topic.replication.factor": 2,
        "transaction.state.log.replication.factor": 2,
        "transaction.state.log.min.isr": 2,
        "transaction.state.log.num.partitions": 2,
    })
    for broker in cluster.brokers.values():
        listeners = (f"PLAINTEXT://127.0.0.1:{broker.port},"
                     f"SASL_PLAINTEXT://127.0.0.1:{free_port()}")
        broker.extra_overrides.update({"listeners": listeners,
                                       "advertised.listeners": listeners})
    try:
        cluster.start()
        common = {"bootstrap.servers": cluster.bootstrap}
        topic = f"sasl-ib-{uuid.uuid4().hex[:8]}"
        admin = AdminClient(common)
        admin.create_topics([NewTopic(topic, 2, 2)])[topic].result(30)

        producer = Producer({**common, "transactional.id": topic, "acks": "all"})
        producer.init_transactions(60)
        producer.begin_transaction()
        for i in range(200):
            producer.produce(topic, key=b"%d" % i, value=b"v%d" % i)
        producer.commit_transaction(60)

        consumer = Consumer({**common, "group.id": topic, "auto.offset.reset": "earliest",
                             "isolation.level": "read_committed"})
        consumer.subscribe([topic])
        values = set()
        deadline = time.monotonic() + 60
        while len(values) < 200 and time.monotonic() < deadline:
            msg = consumer.poll(0.5)
            if msg is not None and msg.error() is None:
                values.add(msg.value())
        consumer.close()
        assert values == {b"v%d" % i for i in range(200)}
        for partition in admin.list_topics(topic, timeout=10).topics[topic].partitions.values():
            assert sorted(partition.isrs) == [1, 2], partition
    finally:
        cluster.stop()
