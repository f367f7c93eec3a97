"""Three brokers whose inter-broker listener is SSL with client certificates required: the
controller's LeaderAndIsr/UpdateMetadata, the replica fetchers, AlterPartition and the
transaction markers all travel over TLS, and a client on the same SSL listener produces with
acks=all to a topic that needs all three replicas in sync, then reads it back transactionally
committed.

Each broker also has a PLAINTEXT listener, which only the test harness uses to watch the
cluster form."""

from __future__ import annotations

import time
import uuid
from pathlib import Path

from confluent_kafka import Consumer, Producer
from confluent_kafka.admin import AdminClient, NewTopic

from pybroker.testing.broker_process import free_port
from pybroker.testing.certs import CertificateAuthority, server_properties
from pybroker.testing.cluster import ClusterProcesses


def test_a_cluster_replicates_over_an_ssl_inter_broker_listener(tmp_path: Path,
                                                                 zk_connect: str) -> None:
    ca = CertificateAuthority.create()
    server = ca.issue("CN=broker,O=pybroker")  # every broker's, a client's too (mutual TLS)
    client = ca.issue("CN=app", client=True)
    client.write(tmp_path / "certs", "app")
    ca_file = ca.write(tmp_path / "certs")
    cluster = ClusterProcesses(tmp_path / "cluster", zk_connect, size=3, overrides={
        "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,SSL:SSL",
        "inter.broker.listener.name": "SSL",
        "min.insync.replicas": 3,
        "transaction.state.log.replication.factor": 3,
        "transaction.state.log.min.isr": 2,
        "transaction.state.log.num.partitions": 3,
        **server_properties(ca, server, client_auth="required"),
    })
    ssl_ports = {}
    for broker_id, broker in cluster.brokers.items():
        ssl_ports[broker_id] = port = free_port()
        listeners = f"PLAINTEXT://127.0.0.1:{broker.port},SSL://127.0.0.1:{port}"
        broker.extra_overrides.update({"listeners": listeners,
                                       "advertised.listeners": listeners})
    try:
        cluster.start()
        common = {"bootstrap.servers": ",".join(f"127.0.0.1:{p}" for p in ssl_ports.values()),
                  "security.protocol": "SSL", "ssl.ca.location": str(ca_file),
                  "ssl.certificate.location": str(client.files["chain"]),
                  "ssl.key.location": str(client.files["key"])}
        topic = f"tls-{uuid.uuid4().hex[:8]}"
        admin = AdminClient(common)
        admin.create_topics([NewTopic(topic, 3, 3)])[topic].result(30)
        metadata = admin.list_topics(topic, timeout=10)
        # clients on the SSL listener are told the SSL endpoints
        assert sorted(b.port for b in metadata.brokers.values()) == sorted(ssl_ports.values())

        producer = Producer({**common, "transactional.id": topic, "acks": "all"})
        producer.init_transactions(30)
        producer.begin_transaction()
        for i in range(300):
            producer.produce(topic, key=b"%d" % i, value=b"v%d" % i)
        producer.commit_transaction(60)

        consumer = Consumer({**common, "group.id": topic, "auto.offset.reset": "earliest",
                             "isolation.level": "read_committed"})
        consumer.subscribe([topic])
        values = set()
        deadline = time.monotonic() + 60
        while len(values) < 300 and time.monotonic() < deadline:
            msg = consumer.poll(0.5)
            if msg is not None and msg.error() is None:
                values.add(msg.value())
        consumer.close()
        assert values == {b"v%d" % i for i in range(300)}
        # every partition kept all three replicas in sync (min.insync.replicas=3 held)
        for partition in admin.list_topics(topic, timeout=10).topics[topic].partitions.values():
            assert sorted(partition.isrs) == [1, 2, 3], partition
    finally:
        cluster.stop()
