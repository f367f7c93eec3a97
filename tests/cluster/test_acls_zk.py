"""ACLs in a ZooKeeper-mode cluster, kept as Kafka's AclAuthorizer keeps them: CreateAcls through
one broker writes ``/kafka-acl/<Type>/<name>`` or ``/kafka-acl-extended/prefixed/<Type>/<name>``
with Kafka's JSON and a change notification, on which every broker rereads the pattern; ACLs an
operator (or a Kafka broker) writes into ZooKeeper reach every broker the same way; a restarted
broker loads them all."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from confluent_kafka import Producer
from kazoo.client import KazooClient

from protocol.errors import ErrorCode
from protocol.messages import (
    create_acls_request as ca,
    delete_acls_request as da,
    describe_acls_request as dsa,
    metadata_request as mreq,
)
from pybroker.testing.cluster import running_cluster, wait_for
from pybroker.testing.wire_client import WireClient
from tests.compat.differential import requests as rq

DESCRIBE_ACLS, CREATE_ACLS, DELETE_ACLS, CREATE_TOPICS, METADATA = 29, 30, 31, 19, 3
ANY, LITERAL, PREFIXED = 1, 3, 4
TOPIC, GROUP = 2, 3
ALL, READ = 2, 3
DENY, ALLOW = 2, 3

SECURITY = {
    "authorizer.class.name": "kafka.security.authorizer.AclAuthorizer",
    # the brokers (and this test) speak as User:ANONYMOUS over plaintext: a resource without
    # ACLs stays open to them
    "allow.everyone.if.no.acl.found": "true",
}


def described(bootstrap: str) -> set[tuple[int, str, int, str, int, int]]:
    with WireClient(bootstrap) as client:
        resp = client.call(DESCRIBE_ACLS, 3, dsa.DescribeAclsRequest(
            resource_type_filter=ANY, resource_name_filter=None, pattern_type_filter=ANY,
            principal_filter=None, host_filter=None, operation=ANY, permission_type=ANY))
    assert resp.error_code == ErrorCode.NONE, resp
    return {(r.resource_type, r.resource_name, r.pattern_type, a.principal, a.operation,
             a.permission_type) for r in resp.resources for a in r.acls}


def test_acls_live_in_zookeeper_and_reach_every_broker(tmp_path: Path, zk_connect: str,
                                                       zk: KazooClient):
    with running_cluster(tmp_path / "cluster", zk_connect, size=2, overrides=SECURITY) as c:
        one, two = c.broker(1).bootstrap, c.broker(2).bootstrap
        with WireClient(one) as client:
            created = client.call(CREATE_TOPICS, 7, rq.create_topics(rq.topic("orders")))
            assert created.topics[0].error_code == ErrorCode.NONE, created
            resp = client.call(CREATE_ACLS, 3, ca.CreateAclsRequest(creations=[
                ca.AclCreation(resource_type=TOPIC, resource_name="orders",
                               resource_pattern_type=LITERAL, principal="User:bob", host="*",
                               operation=READ, permission_type=ALLOW),
                ca.AclCreation(resource_type=TOPIC, resource_name="pay",
                               resource_pattern_type=PREFIXED, principal="User:ANONYMOUS",
                               host="*", operation=ALL, permission_type=DENY)]))
            assert [r.error_code for r in resp.results] == [0, 0], resp

        # Kafka's znodes, JSON and notifications
        data, _ = zk.get("/kafka-acl/Topic/orders")
        assert json.loads(data) == {"version": 1, "acls": [
            {"principal": "User:bob", "permissionType": "Allow", "operation": "Read",
             "host": "*"}]}
        data, _ = zk.get("/kafka-acl-extended/prefixed/Topic/pay")
        assert json.loads(data)["acls"][0]["permissionType"] == "Deny"
        [literal] = zk.get_children("/kafka-acl-changes")
        assert literal.startswith("acl_changes_")
        assert zk.get(f"/kafka-acl-changes/{literal}")[0] == b"Topic:orders"
        [extended] = zk.get_children("/kafka-acl-extended-changes")
        assert json.loads(zk.get(f"/kafka-acl-extended-changes/{extended}")[0]) == {
            "version": 1, "resourceType": "Topic", "name": "pay", "patternType": "Prefixed"}
        assert set(zk.get_children("/kafka-acl")) >= {
            "Topic", "Group", "Cluster", "TransactionalId", "DelegationToken", "User"}

        expected = {(TOPIC, "orders", LITERAL, "User:bob", READ, ALLOW),
                    (TOPIC, "pay", PREFIXED, "User:ANONYMOUS", ALL, DENY)}
        wait_for(lambda: described(two) == expected, 15, "broker 2 to learn the ACLs")
        # and to act on them: orders now has ACLs, none of them for ANONYMOUS
        with WireClient(two) as client:
            meta = client.call(METADATA, 12, mreq.MetadataRequest(
                topics=[mreq.MetadataRequestTopic(name="orders")],
                allow_auto_topic_creation=False))
        assert meta.topics[0].error_code == ErrorCode.TOPIC_AUTHORIZATION_FAILED

        # written into ZooKeeper as Kafka writes it, by someone else
        zk.create("/kafka-acl/Group/readers", json.dumps({"version": 1, "acls": [
            {"principal": "User:carol", "permissionType": "Allow", "operation": "Read",
             "host": "*"}]}).encode(), makepath=True)
        zk.create("/kafka-acl-changes/acl_changes_", b"Group:readers", sequence=True)
        expected.add((GROUP, "readers", LITERAL, "User:carol", READ, ALLOW))
        for bootstrap in (one, two):
            wait_for(lambda b=bootstrap: described(b) == expected, 15,
                     f"{bootstrap} to learn an ACL written into ZooKeeper")

        # the same pattern changed through both brokers at once: neither change is lost
        def grant(bootstrap: str, principal: str) -> None:
            with WireClient(bootstrap) as client:
                resp = client.call(CREATE_ACLS, 3, ca.CreateAclsRequest(creations=[
                    ca.AclCreation(resource_type=GROUP, resource_name="readers",
                                   resource_pattern_type=LITERAL, principal=principal,
                                   host="*", operation=READ, permission_type=ALLOW)]))
            assert resp.results[0].error_code == ErrorCode.NONE, resp

        with ThreadPoolExecutor(4) as pool:
            for f in [pool.submit(grant, b, f"User:{who}-{i}")
                      for i in range(3) for b, who in ((one, "one"), (two, "two"))]:
                f.result()
        stored = json.loads(zk.get("/kafka-acl/Group/readers")[0])["acls"]
        assert {a["principal"] for a in stored} == {
            "User:carol", *(f"User:{w}-{i}" for i in range(3) for w in ("one", "two"))}
        with WireClient(one) as client:
            client.call(DELETE_ACLS, 3, da.DeleteAclsRequest(filters=[
                da.DeleteAclsFilter(resource_type_filter=GROUP, resource_name_filter="readers",
                                    pattern_type_filter=LITERAL, principal_filter=p,
                                    host_filter=None, operation=ANY, permission_type=ANY)
                for p in (f"User:{w}-{i}" for i in range(3) for w in ("one", "two"))]))

        # deleted through broker 2: gone from ZooKeeper and from broker 1
        with WireClient(two) as client:
            resp = client.call(DELETE_ACLS, 3, da.DeleteAclsRequest(filters=[
                da.DeleteAclsFilter(resource_type_filter=TOPIC, resource_name_filter=None,
                                    pattern_type_filter=ANY, principal_filter=None,
                                    host_filter=None, operation=ANY, permission_type=ANY)]))
        assert len(resp.filter_results[0].matching_acls) == 2, resp
        assert zk.exists("/kafka-acl/Topic/orders") is None
        assert zk.exists("/kafka-acl-extended/prefixed/Topic/pay") is None
        remaining = {(GROUP, "readers", LITERAL, "User:carol", READ, ALLOW)}
        wait_for(lambda: described(one) == remaining, 15, "broker 1 to learn of the deletion")

        # a restarted broker loads what ZooKeeper holds
        c.broker(1).stop()
        c.broker(1).start()
        assert described(one) == remaining


def test_brokers_as_super_users_replicate_with_acls_closed_to_everyone_else(
        tmp_path: Path, zk_connect: str):
    """allow.everyone.if.no.acl.found off: the brokers' own requests (LeaderAndIsr,
    UpdateMetadata, follower fetches, all as User:ANONYMOUS over plaintext) pass because the
    brokers are super users, as a Kafka cluster with an authorizer is set up."""
    overrides = {**SECURITY, "allow.everyone.if.no.acl.found": "false",
                 "super.users": "User:ANONYMOUS", "default.replication.factor": 2,
                 "min.insync.replicas": 2}
    with running_cluster(tmp_path / "cluster", zk_connect, size=2, overrides=overrides) as c:
        producer = Producer({"bootstrap.servers": c.bootstrap, "acks": "all",
                             "message.timeout.ms": 30_000})
        delivered: list[object] = []
        for i in range(5):
            producer.produce("replicated", f"v{i}".encode(),
                             on_delivery=lambda err, _m: delivered.append(err))
        producer.flush(40)
        assert delivered == [None] * 5

        def in_sync() -> bool:
            with WireClient(c.broker(1).bootstrap) as client:
                meta = client.call(METADATA, 12, mreq.MetadataRequest(
                    topics=[mreq.MetadataRequestTopic(name="replicated")],
                    allow_auto_topic_creation=False))
            [partition] = meta.topics[0].partitions
            return sorted(partition.isr_nodes) == [1, 2]

        wait_for(in_sync, 30, "both replicas in sync")
