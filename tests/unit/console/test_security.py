"""The console's checks of an ACL and a SCRAM credential before anything is sent, and its
reading of DescribeAcls' answer."""

from __future__ import annotations

import pytest
from confluent_kafka.admin import ResourceType

from protocol.messages import describe_acls_response as r
from pybroker.console import security


def test_an_acl_is_checked_as_kafka_acls_checks_it() -> None:
    acl = security.binding("cluster", "ignored", "literal", "User:ops", "", "alter", "allow")
    # Kafka's CLUSTER resource is librdkafka's BROKER (code 4), always named kafka-cluster
    assert (acl.restype, acl.name, acl.host) == (ResourceType.BROKER, "kafka-cluster", "*")
    assert security.binding_row(acl)["resource_type"] == "CLUSTER"
    for bad in (dict(principal="bob"), dict(principal="User:"), dict(operation="FLY"),
                dict(name=" "), dict(resource_type="USER")):
        fields = {"resource_type": "TOPIC", "name": "t", "pattern": "LITERAL",
                  "principal": "User:bob", "host": "*", "operation": "READ",
                  "permission": "ALLOW", **bad}
        with pytest.raises(ValueError):
            security.binding(**fields)


def test_a_credential_is_checked_before_the_call() -> None:
    # (no admin client is needed: each is refused before one would be used)
    for user, mechanism, iterations, password, words in (
            ("u", "SCRAM-SHA-256", 100, "x", "iterations are from 4096"),
            ("u", "SCRAM-SHA-256", 20000, "x", "iterations are from 4096"),
            ("u", "SCRAM-SHA-1", 8192, "x", "the mechanism is one of"),
            ("u", "SCRAM-SHA-256", 8192, "", "needs a password"),
            (" ", "SCRAM-SHA-256", 8192, "x", "a user has a name")):
        with pytest.raises(ValueError, match=words):
            security.upsert_user(None, user, mechanism, iterations, password)  # type: ignore[arg-type]


def test_describe_acls_answers_are_named_as_kafka_names_them() -> None:
    answer = r.DescribeAclsResponse(resources=[
        r.DescribeAclsResource(resource_type=4, resource_name="kafka-cluster", pattern_type=3,
                               acls=[r.AclDescription("User:a", "*", 13, 3)]),
        r.DescribeAclsResource(resource_type=2, resource_name="t-", pattern_type=4,
                               acls=[r.AclDescription("User:b", "10.0.0.1", 3, 2)]),
    ])
    assert security.acl_rows(answer) == [
        {"resource_type": "CLUSTER", "name": "kafka-cluster", "pattern": "LITERAL",
         "principal": "User:a", "host": "*", "operation": "CREATE_TOKENS",
         "permission": "ALLOW"},
        {"resource_type": "TOPIC", "name": "t-", "pattern": "PREFIXED", "principal": "User:b",
         "host": "10.0.0.1", "operation": "READ", "permission": "DENY"}]
