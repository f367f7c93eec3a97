"""confluent-kafka (librdkafka) against a pybroker with Kafka's AclAuthorizer: the admin client
creates, describes and deletes ACLs, and a producer and a consumer meet the authorization
errors a Kafka broker would give them."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from confluent_kafka import Consumer, KafkaError, KafkaException, Producer
from confluent_kafka.admin import (
    AclBinding,
    AclBindingFilter,
    AclOperation,
    AclPermissionType,
    AdminClient,
    NewTopic,
    ResourcePatternType,
    ResourceType,
)

from pybroker.testing.broker_process import BrokerProcess

SECURITY = {"authorizer.class.name": "kafka.security.authorizer.AclAuthorizer",
            "allow.everyone.if.no.acl.found": "true", "num.partitions": 1,
            "group.initial.rebalance.delay.ms": 0}


@pytest.fixture(scope="module")
def secured(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrokerProcess]:
    broker = BrokerProcess(Path(tmp_path_factory.mktemp("acl-broker")) / "logs",
                           overrides=SECURITY, config=None)
    try:
        yield broker.start()
    finally:
        broker.stop()


def _admin(broker: BrokerProcess) -> AdminClient:
    return AdminClient({"bootstrap.servers": broker.bootstrap})


def test_admin_client_manages_acls(secured: BrokerProcess):
    admin = _admin(secured)
    name = f"acl-{uuid.uuid4().hex[:8]}"
    bindings = [
        AclBinding(ResourceType.TOPIC, name, ResourcePatternType.LITERAL, "User:alice", "*",
                   AclOperation.READ, AclPermissionType.ALLOW),
        AclBinding(ResourceType.GROUP, name, ResourcePatternType.PREFIXED, "User:*", "*",
                   AclOperation.ALL, AclPermissionType.DENY),
    ]
    for future in admin.create_acls(bindings, request_timeout=15).values():
        assert future.result(timeout=15) is None
    found = admin.describe_acls(AclBindingFilter(
        ResourceType.ANY, name, ResourcePatternType.MATCH, None, None, AclOperation.ANY,
        AclPermissionType.ANY), request_timeout=15).result(timeout=15)
    assert sorted(found, key=str) == sorted(bindings, key=str)
    deleted = admin.delete_acls([AclBindingFilter(
        ResourceType.GROUP, name, ResourcePatternType.ANY, None, None, AclOperation.ANY,
        AclPermissionType.ANY)], request_timeout=15)
    [result] = deleted.values()
    assert result.result(timeout=15) == [bindings[1]]
    # (librdkafka's BROKER is Kafka's CLUSTER resource type)
    futures = admin.create_acls([AclBinding(
        ResourceType.BROKER, "other-cluster", ResourcePatternType.LITERAL, "User:a", "*",
        AclOperation.ALTER, AclPermissionType.ALLOW)], request_timeout=15)
    with pytest.raises(KafkaException) as refused:
        [future] = futures.values()
        future.result(timeout=15)
    assert refused.value.args[0].code() == KafkaError.INVALID_REQUEST


def test_clients_meet_authorization_errors(secured: BrokerProcess):
    admin = _admin(secured)
    closed = f"closed-{uuid.uuid4().hex[:8]}"
    admin.create_topics([NewTopic(closed, 1, 1)])[closed].result(timeout=15)
    # ACLs on the topic, none of them for the plaintext client (User:ANONYMOUS)
    for future in admin.create_acls([AclBinding(
            ResourceType.TOPIC, closed, ResourcePatternType.LITERAL, "User:bob", "*",
            AclOperation.ALL, AclPermissionType.ALLOW)], request_timeout=15).values():
        future.result(timeout=15)

    errors: list[KafkaError] = []
    producer = Producer({"bootstrap.servers": secured.bootstrap, "message.timeout.ms": 10_000,
                         "error_cb": errors.append})
    delivered: list[KafkaError | None] = []
    producer.produce(closed, b"v", on_delivery=lambda err, _msg: delivered.append(err))
    producer.flush(15)
    assert [e.code() for e in delivered if e is not None] == [
        KafkaError.TOPIC_AUTHORIZATION_FAILED]

    consumer = Consumer({"bootstrap.servers": secured.bootstrap,
                         "group.id": f"g-{uuid.uuid4().hex[:8]}",
                         "auto.offset.reset": "earliest"})
    try:
        consumer.subscribe([closed])
        seen = None
        for _ in range(30):
            msg = consumer.poll(1.0)
            if msg is not None and msg.error() is not None:
                seen = msg.error().code()
                break
        assert seen == KafkaError.TOPIC_AUTHORIZATION_FAILED
    finally:
        consumer.close()
