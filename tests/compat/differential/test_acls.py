"""ACLs side by side: pybroker and Apache Kafka 3.9 (ZooKeeper mode), both running Kafka's
``AclAuthorizer`` with the same settings, get the same ACLs and the same requests, and must give
the same answers: the ACL APIs themselves (every resource type, LITERAL/PREFIXED/MATCH/ANY
filters, Kafka's validation), then produce, fetch, metadata (hidden topics), groups and admin
requests, allowed and denied, with their error codes. Kafka's ``kafka-acls`` tool runs against
both too.

Both brokers run with ``allow.everyone.if.no.acl.found=true`` (a resource without ACLs is open,
so the plaintext client, ``User:ANONYMOUS``, can set everything up) and the cluster resource
grants ANONYMOUS only ALTER (ACL administration) and CLUSTER_ACTION (Kafka's own broker-to-broker
requests travel as ANONYMOUS over the plaintext listener): creating topics needs CREATE on the
topic, and a topic with ACLs is closed to whoever they do not name.

Named users: both brokers also have an SSL listener requiring client certificates; reached
through it (``NamedUserPair``) a scenario speaks for :data:`NAMED_USER`, its certificate's
subject, and sets things up as ANONYMOUS on the PLAINTEXT listener of the same broker. The
other scenarios speak for :data:`SUBJECT`; once SASL listeners exist, a SASL_PLAINTEXT listener
with SCRAM users can be reached the same way.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from protocol.errors import ErrorCode
from protocol.messages import (
    create_acls_request as ca,
    delete_acls_request as da,
    delete_groups_request as dg,
    describe_acls_request as dsa,
    describe_configs_request as dcf,
    describe_groups_request as dsg,
    find_coordinator_request as fc,
    init_producer_id_request as ipi,
    join_group_request as jg,
    list_groups_request as lsg,
    offset_commit_request as oc,
    offset_fetch_request as of,
)
from pybroker.testing.broker_process import BrokerProcess, free_port
from pybroker.testing.certs import CertificateAuthority, server_properties
from pybroker.testing.reference_kafka import ReferenceKafka
from pybroker.testing.wire_client import WireClient
from tests.compat.cli.conftest import KafkaCli
from tests.compat.differential import requests as rq
from tests.compat.differential.conftest import Names, Pair
from tests.compat.differential.differ import Known, Recorder
from tests.compat.differential.steps import create_topic, ensure_offsets_topic, wait_until
from tests.compat.differential.test_tls import TlsPair, ssl_overrides

DESCRIBE_ACLS, CREATE_ACLS, DELETE_ACLS = 29, 30, 31

#: whom the scenarios' requests speak for (see the module's docstring)
SUBJECT = "User:ANONYMOUS"
#: the principal of the client certificate the SSL listeners are reached with
NAMED_USER = "User:CN=alice,O=example"

SECURITY = {
    "authorizer.class.name": "kafka.security.authorizer.AclAuthorizer",
    "allow.everyone.if.no.acl.found": "true",
    "super.users": "User:admin",
}

# Kafka's codes
ANY, MATCH, LITERAL, PREFIXED = 1, 2, 3, 4
TOPIC, GROUP, CLUSTER, TRANSACTIONAL_ID, DELEGATION_TOKEN, USER = 2, 3, 4, 5, 6, 7
ALL, READ, WRITE, CREATE, DELETE, ALTER, DESCRIBE = 2, 3, 4, 5, 6, 7, 8
CLUSTER_ACTION, DESCRIBE_CONFIGS, IDEMPOTENT_WRITE, CREATE_TOKENS = 9, 10, 12, 13
DENY, ALLOW = 2, 3
CONFIG_TOPIC, CONFIG_BROKER = 2, 4

#: the differences from Apache Kafka these scenarios show, each with its reason
KNOWN: list[Known] = []

#: lists Kafka answers from a hash map (DescribeAcls' resources and their ACLs, DeleteAcls'
#: matches): compared sorted
UNORDERED = ("resources", "resources[*].acls", "filter_results[*].matching_acls")


def creation(resource_type: int, name: str, pattern: int, operation: int,
             permission: int = ALLOW, principal: str = SUBJECT,
             host: str = "*") -> ca.AclCreation:
    return ca.AclCreation(resource_type=resource_type, resource_name=name,
                          resource_pattern_type=pattern, principal=principal, host=host,
                          operation=operation, permission_type=permission)


def describe(resource_type: int = ANY, name: str | None = None, pattern: int = ANY,
             principal: str | None = None, operation: int = ANY,
             permission: int = ANY) -> dsa.DescribeAclsRequest:
    return dsa.DescribeAclsRequest(resource_type_filter=resource_type, resource_name_filter=name,
                                   pattern_type_filter=pattern, principal_filter=principal,
                                   host_filter=None, operation=operation,
                                   permission_type=permission)


def delete_filter(resource_type: int = ANY, name: str | None = None, pattern: int = ANY,
                  principal: str | None = None, operation: int = ANY,
                  permission: int = ANY) -> da.DeleteAclsFilter:
    return da.DeleteAclsFilter(resource_type_filter=resource_type, resource_name_filter=name,
                               pattern_type_filter=pattern, principal_filter=principal,
                               host_filter=None, operation=operation, permission_type=permission)


def grant(rec: Recorder, *creations: ca.AclCreation) -> None:
    """Unrecorded: add ACLs (each must be created)."""
    resp = rec.quietly(CREATE_ACLS, 3, ca.CreateAclsRequest(creations=list(creations)))
    assert all(r.error_code == ErrorCode.NONE for r in resp.results), resp


# -- the pair --------------------------------------------------------------------------------


def _secure_cluster(bootstrap: str) -> None:
    """The cluster resource grants ANONYMOUS ALTER and CLUSTER_ACTION only."""
    with WireClient(bootstrap, timeout=30) as client:
        resp = client.call(CREATE_ACLS, 3, ca.CreateAclsRequest(creations=[
            creation(CLUSTER, "kafka-cluster", LITERAL, ALTER, principal="User:ANONYMOUS"),
            creation(CLUSTER, "kafka-cluster", LITERAL, CLUSTER_ACTION,
                     principal="User:ANONYMOUS")]))
        assert all(r.error_code == ErrorCode.NONE for r in resp.results), resp


@dataclass
class AclPair(Pair):
    """Both brokers, reached on their PLAINTEXT listeners (as ``User:ANONYMOUS``); ``tls`` is
    the same pair reached on their SSL listeners with the client certificate of
    :data:`NAMED_USER`."""

    tls: TlsPair | None = None


@pytest.fixture(scope="module")
def acl_pair(kafka_tools_lib: Path, tmp_path_factory: pytest.TempPathFactory
             ) -> Iterator[AclPair]:
    base = tmp_path_factory.mktemp("acl-differential")
    ca = CertificateAuthority.create()
    server = ca.issue("CN=broker")
    server.write(base / "certs", "server")
    client = ca.issue(NAMED_USER.removeprefix("User:"), client=True)
    client.write(base / "certs", "alice")
    ssl_props = {**SECURITY, **server_properties(ca, server, client_auth="required",
                                                 inline=False)}
    ours_port, ours_ssl, theirs_port, theirs_ssl = (free_port() for _ in range(4))
    kafka = ReferenceKafka(base / "kafka", port=theirs_port, lib=kafka_tools_lib,
                           overrides=ssl_overrides(theirs_port, theirs_ssl, ssl_props))
    broker = BrokerProcess(base / "pybroker", port=ours_port, config=None,
                           overrides=ssl_overrides(ours_port, ours_ssl, ssl_props))
    try:
        broker.start()
        kafka.start()
        for bootstrap in (broker.bootstrap, kafka.bootstrap):
            _secure_cluster(bootstrap)
        yield AclPair(broker, kafka, TlsPair(broker, kafka, (ours_ssl, theirs_ssl),
                                             ca.client_context(client)))
    finally:
        broker.stop()
        kafka.stop()


# -- the ACL APIs ------------------------------------------------------------------------------


def acl_administration(rec: Recorder, n: Names) -> None:
    rec.call("create every resource type", CREATE_ACLS, 3, ca.CreateAclsRequest(creations=[
        creation(TOPIC, n.topic, LITERAL, READ, principal="User:alice"),
        creation(TOPIC, n("p"), PREFIXED, WRITE, DENY, principal="User:*"),
        creation(GROUP, n("g"), LITERAL, READ, principal="User:alice", host="10.0.0.1"),
        creation(TRANSACTIONAL_ID, n("tx"), LITERAL, WRITE),
        creation(DELEGATION_TOKEN, n("tok"), LITERAL, DESCRIBE),
        creation(USER, f"User:{n('u')}", LITERAL, CREATE_TOKENS),
        creation(TOPIC, n.topic, LITERAL, READ, principal="User:alice"),  # again: no change
    ]))
    rec.call("create refused ones", CREATE_ACLS, 3, ca.CreateAclsRequest(creations=[
        creation(CLUSTER, n("cluster"), LITERAL, ALTER),
        creation(TOPIC, "", LITERAL, READ),
        creation(TOPIC, f"{n('a')}/b", LITERAL, READ),
        creation(99, n("unknown-type"), LITERAL, READ),
    ]))
    rec.call("create with ANY fails the request", CREATE_ACLS, 2, ca.CreateAclsRequest(
        creations=[creation(TOPIC, n("any"), LITERAL, READ), creation(TOPIC, n("any"), ANY,
                                                                       READ)]))
    rec.call("create v0", CREATE_ACLS, 0, ca.CreateAclsRequest(creations=[
        creation(TOPIC, n("v0"), LITERAL, DESCRIBE)]))
    for v in (1, 2, 3):
        rec.call(f"describe v{v}: MATCH", DESCRIBE_ACLS, v,
                 describe(name=n.topic, pattern=MATCH), unordered=UNORDERED)
        rec.call(f"describe v{v}: MATCH a prefixed pattern", DESCRIBE_ACLS, v,
                 describe(TOPIC, n("p") + "-x", MATCH), unordered=UNORDERED)
    rec.call("describe v0: literal", DESCRIBE_ACLS, 0, describe(TOPIC, n("v0"), LITERAL),
             unordered=UNORDERED)
    rec.call("describe: prefixed by name", DESCRIBE_ACLS, 3, describe(TOPIC, n("p"), PREFIXED),
             unordered=UNORDERED)
    for rtype, name in ((GROUP, n("g")), (TRANSACTIONAL_ID, n("tx")),
                        (DELEGATION_TOKEN, n("tok")), (USER, f"User:{n('u')}")):
        rec.call(f"describe resource type {rtype}", DESCRIBE_ACLS, 3,
                 describe(rtype, name, LITERAL), unordered=UNORDERED)
    rec.call("describe: by operation and permission", DESCRIBE_ACLS, 3,
             describe(ANY, n("p"), ANY, operation=WRITE, permission=DENY), unordered=UNORDERED)
    rec.call("describe: nothing there", DESCRIBE_ACLS, 3, describe(TOPIC, n("none"), MATCH),
             unordered=UNORDERED)
    rec.call("delete", DELETE_ACLS, 3, da.DeleteAclsRequest(filters=[
        delete_filter(TOPIC, n.topic, LITERAL),
        delete_filter(ANY, n("p"), PREFIXED, operation=WRITE),
        delete_filter(GROUP, n("g"), ANY, principal="User:bob"),  # matches nothing
        delete_filter(TOPIC, n.topic, MATCH),  # already deleted by the first filter
    ]), unordered=UNORDERED)
    rec.call("delete v0", DELETE_ACLS, 0, da.DeleteAclsRequest(filters=[
        delete_filter(TOPIC, n("v0"), LITERAL)]), unordered=UNORDERED)
    rec.call("delete the rest", DELETE_ACLS, 1, da.DeleteAclsRequest(filters=[
        delete_filter(rtype, name, ANY) for rtype, name in (
            (GROUP, n("g")), (TRANSACTIONAL_ID, n("tx")), (DELEGATION_TOKEN, n("tok")),
            (USER, f"User:{n('u')}"), (TOPIC, n("any")))]), unordered=UNORDERED)
    for name in (n.topic, n("g"), n("tx")):
        rec.call(f"describe {name} after", DESCRIBE_ACLS, 3, describe(ANY, name, MATCH),
                 unordered=UNORDERED)


def test_acl_administration(acl_pair: AclPair, names: Names):
    acl_pair.check(acl_administration, names, KNOWN)


# -- the data path -------------------------------------------------------------------------------


def data_path(rec: Recorder, n: Names) -> None:
    """Topics: open (no ACLs), read-only (ALLOW READ), hidden (ACLs for bob only), and one a
    prefixed DENY of WRITE closes to writes despite an ALLOW ALL."""
    topics = {"open": n("open"), "ro": n("ro"), "hidden": n("hidden"), "nowrite": n("nowrite")}
    for name in topics.values():
        create_topic(rec, name)
    grant(rec,
          creation(TOPIC, topics["ro"], LITERAL, READ),
          creation(TOPIC, topics["hidden"], LITERAL, ALL, principal="User:bob"),
          creation(TOPIC, topics["nowrite"], LITERAL, ALL, principal="User:*"),
          creation(TOPIC, topics["nowrite"][:-3], PREFIXED, WRITE, DENY))
    for key, name in topics.items():
        rec.call(f"produce {key}", rq.PRODUCE, 9, rq.produce(name, rq.batch(2)),
                 mask=("responses[*].partition_responses[*].log_append_time_ms",))
        rec.call(f"fetch {key}", rq.FETCH, 12, rq.fetch(name, 0))
        rec.call(f"list offsets {key}", rq.LIST_OFFSETS, 7, rq.list_offsets(name, (0, -1)))
        rec.call(f"offset for leader epoch {key}", rq.OFFSET_FOR_LEADER_EPOCH, 4,
                 rq.offset_for_leader_epoch(name, (0, 0, -1)))
    rec.call("metadata of each", rq.METADATA, 12, rq.metadata(*topics.values()),
             mask=("topics[*].topic_id",))
    rec.call("metadata v1 of each", rq.METADATA, 1, rq.metadata(*topics.values()))
    for v in (9, 12):
        asking = rq.metadata(*topics.values())
        asking.include_topic_authorized_operations = True
        asking.include_cluster_authorized_operations = True
        rec.call(f"metadata v{v} with the authorized operations", rq.METADATA, v, asking,
                 mask=("topics[*].topic_id",))
    every = rec.quietly(rq.METADATA, 12, rq.metadata(all_topics=True))
    rec.record("metadata of all: what shows of this test's topics", rq.METADATA, 12,
               sorted(t.name for t in every.topics if t.name in topics.values()))
    # (Kafka's controller creates the topic later, answering LEADER_NOT_AVAILABLE meanwhile;
    # what matters here is whether it was authorized)
    grant(rec, creation(TOPIC, n("nocreate"), PREFIXED, DESCRIBE))
    for label, name in (("where topics have no ACLs", n("auto")),
                        ("without CREATE", n("nocreate-x"))):
        [answer] = rec.quietly(rq.METADATA, 12, rq.metadata(name, auto_create=True)).topics
        rec.record(f"auto-create {label}", rq.METADATA, 12, {
            "authorized": answer.error_code != ErrorCode.TOPIC_AUTHORIZATION_FAILED,
            "error_code": answer.error_code
            if answer.error_code not in (ErrorCode.NONE, ErrorCode.LEADER_NOT_AVAILABLE)
            else None})
    idempotent = ipi.InitProducerIdRequest(transactional_id=None, transaction_timeout_ms=60_000,
                                           producer_id=-1, producer_epoch=-1)
    wait_until("a producer id", lambda: rec.quietly(rq.INIT_PRODUCER_ID, 4, idempotent)
               .error_code != ErrorCode.COORDINATOR_LOAD_IN_PROGRESS)
    rec.call("idempotent producer id", rq.INIT_PRODUCER_ID, 4, idempotent,
             mask=("producer_id",))
    grant(rec, creation(TRANSACTIONAL_ID, topics["hidden"], LITERAL, ALL, principal="User:bob"))
    rec.call("transactional producer id on a closed id", rq.INIT_PRODUCER_ID, 4,
             ipi.InitProducerIdRequest(transactional_id=topics["hidden"],
                                       transaction_timeout_ms=60_000, producer_id=-1,
                                       producer_epoch=-1))
    rec.call("find the coordinator of a closed transactional id", rq.FIND_COORDINATOR, 1,
             fc.FindCoordinatorRequest(key=topics["hidden"], key_type=1),
             mask=("error_message",))


def test_data_path(acl_pair: AclPair, names: Names):
    acl_pair.check(data_path, names, KNOWN)


# -- groups ------------------------------------------------------------------------------------


def groups(rec: Recorder, n: Names) -> None:
    open_topic, hidden_topic = n("open"), n("hidden")
    create_topic(rec, open_topic)
    create_topic(rec, hidden_topic)
    ensure_offsets_topic(rec)
    grant(rec, creation(GROUP, n("closed"), LITERAL, ALL, principal="User:bob"),
          creation(TOPIC, hidden_topic, LITERAL, ALL, principal="User:bob"))
    for g in (n("g"), n("closed")):
        rec.call(f"find coordinator {g[-6:]}", rq.FIND_COORDINATOR, 3,
                 fc.FindCoordinatorRequest(key=g), mask=("node_id", "host", "port"))
        rec.call(f"join {g[-6:]}", rq.JOIN_GROUP, 5, jg.JoinGroupRequest(
            group_id=g, session_timeout_ms=30_000, rebalance_timeout_ms=30_000,
            member_id="", group_instance_id=None, protocol_type="consumer",
            protocols=[jg.JoinGroupRequestProtocol(name="range", metadata=b"")]),
            mask=("member_id", "leader"))
    commit = oc.OffsetCommitRequest(
        group_id=n("g"), generation_id_or_member_epoch=-1, member_id="",
        group_instance_id=None, retention_time_ms=-1, topics=[
            oc.OffsetCommitRequestTopic(name=t, partitions=[oc.OffsetCommitRequestPartition(
                partition_index=0, committed_offset=0, committed_leader_epoch=-1,
                committed_metadata="")]) for t in (open_topic, hidden_topic)])
    rec.call("commit to an open group: a hidden topic", rq.OFFSET_COMMIT, 8, commit)
    commit.group_id = n("closed")
    rec.call("commit to a closed group", rq.OFFSET_COMMIT, 8, commit)
    for v in (1, 5, 8):
        fetch = (of.OffsetFetchRequest(groups=[
            of.OffsetFetchRequestGroup(group_id=g, topics=None)
            for g in (n("g"), n("closed"))]) if v >= 8 else
            of.OffsetFetchRequest(group_id=n("closed"), topics=[
                of.OffsetFetchRequestTopic(name=open_topic, partition_indexes=[0])]))
        rec.call(f"fetch offsets v{v}", rq.OFFSET_FETCH, v, fetch)
    rec.call("fetch offsets of a hidden topic", rq.OFFSET_FETCH, 5, of.OffsetFetchRequest(
        group_id=n("g"), topics=[of.OffsetFetchRequestTopic(name=t, partition_indexes=[0])
                                 for t in (open_topic, hidden_topic)]))
    rec.call("describe groups", rq.DESCRIBE_GROUPS, 5, dsg.DescribeGroupsRequest(
        groups=[n("g"), n("closed")], include_authorized_operations=True),
        mask=("groups[*].members[*].member_id", "groups[*].members[*].client_host"))
    listed = rec.quietly(rq.LIST_GROUPS, 4, lsg.ListGroupsRequest())
    rec.record("list groups: this test's", rq.LIST_GROUPS, 4,
               sorted(g.group_id for g in listed.groups if g.group_id.startswith(n.base)))
    rec.call("delete groups", rq.DELETE_GROUPS, 2, dg.DeleteGroupsRequest(
        groups_names=[n("closed"), n("never")]))


def test_groups(acl_pair: AclPair, names: Names):
    acl_pair.check(groups, names, KNOWN)


# -- admin -------------------------------------------------------------------------------------


def admin(rec: Recorder, n: Names) -> None:
    grant(rec, creation(TOPIC, n("mine"), PREFIXED, CREATE),
          creation(TOPIC, n("mine"), PREFIXED, DELETE),
          creation(TOPIC, n("theirs"), PREFIXED, ALL, principal="User:bob"))
    rec.call("create topics", rq.CREATE_TOPICS, 7, rq.create_topics(
        rq.topic(n("mine-1")), rq.topic(n("theirs-1")), rq.topic(n("free-1"))),
        mask=("topics[*].topic_id",))
    create_topic(rec, n("free-2"))
    rec.call("create partitions", rq.CREATE_PARTITIONS, 3, _create_partitions(
        n("mine-1"), n("theirs-1"), n("free-2")))
    rec.call("describe configs", rq.DESCRIBE_CONFIGS, 4, dcf.DescribeConfigsRequest(
        resources=[dcf.DescribeConfigsResource(resource_type=CONFIG_TOPIC, resource_name=t,
                                               configuration_keys=["retention.ms"])
                   for t in (n("mine-1"), n("theirs-1"))] + [
            dcf.DescribeConfigsResource(resource_type=CONFIG_BROKER, resource_name="",
                                        configuration_keys=["log.retention.hours"])],
        include_synonyms=False, include_documentation=False))
    rec.call("delete records", rq.DELETE_RECORDS, 2, _delete_records(n("mine-1"), n("theirs-1")))
    rec.call("delete topics", rq.DELETE_TOPICS, 5, _delete_topics(
        n("mine-1"), n("theirs-1"), n("free-2")))


def _create_partitions(*topics: str):
    from protocol.messages import create_partitions_request as cp
    return cp.CreatePartitionsRequest(topics=[
        cp.CreatePartitionsTopic(name=t, count=2, assignments=None) for t in topics],
        timeout_ms=30_000, validate_only=True)


def _delete_records(*topics: str):
    from protocol.messages import delete_records_request as dr
    return dr.DeleteRecordsRequest(topics=[dr.DeleteRecordsTopic(name=t, partitions=[
        dr.DeleteRecordsPartition(partition_index=0, offset=0)]) for t in topics],
        timeout_ms=30_000)


def _delete_topics(*topics: str):
    from protocol.messages import delete_topics_request as dt
    return dt.DeleteTopicsRequest(topic_names=list(topics), timeout_ms=30_000)


def test_admin(acl_pair: AclPair, names: Names):
    acl_pair.check(admin, names, KNOWN)


# -- kafka-acls ----------------------------------------------------------------------------------


def test_kafka_acls_side_by_side(acl_pair: AclPair, names: Names, kafka_tools_lib: Path):
    """kafka-acls --add/--list/--remove, prefixed and matched patterns, the --producer and
    --consumer shortcuts: the same output from both brokers, and what they print is what the
    broker stores."""
    t, g, tx = names("orders"), names("readers"), names("tx")
    commands = [
        ("--add", "--allow-principal", "User:alice", "--operation", "Read", "--operation",
         "Write", "--topic", t),
        ("--add", "--deny-principal", "User:mallory", "--allow-host", "*", "--operation", "All",
         "--topic", names("pay"), "--resource-pattern-type", "prefixed"),
        ("--add", "--producer", "--allow-principal", "User:p", "--topic", t,
         "--transactional-id", tx),
        ("--add", "--consumer", "--allow-principal", "User:c", "--topic", t, "--group", g),
        ("--list", "--topic", t),
        ("--list", "--topic", names("payments"), "--resource-pattern-type", "match"),
        ("--list", "--group", g),
        ("--remove", "--force", "--allow-principal", "User:alice", "--operation", "Read",
         "--topic", t),
        ("--remove", "--force", "--topic", names("pay"), "--resource-pattern-type", "prefixed"),
        ("--list", "--topic", t, "--resource-pattern-type", "any"),
        ("--list", "--topic", names("payments"), "--resource-pattern-type", "match"),
    ]
    outputs = []
    for bootstrap in (acl_pair.pybroker.bootstrap, acl_pair.kafka.bootstrap):
        cli = KafkaCli(bootstrap, kafka_tools_lib)
        outputs.append([_normalise(cli.tool("kafka-acls", *args).stdout, names.base)
                        for args in commands])
    ours, theirs = outputs
    for args, a, b in zip(commands, ours, theirs, strict=True):
        assert a == b, f"kafka-acls {' '.join(args)}:\npybroker: {a}\nkafka:    {b}"
    listed = ours[4]
    assert "(principal=User:alice, host=*, operation=WRITE, permissionType=ALLOW)" in listed
    assert "(principal=User:p, host=*, operation=CREATE, permissionType=ALLOW)" in listed
    assert any("patternType=PREFIXED" in line for line in ours[5])
    assert not any("patternType=PREFIXED" in line for line in ours[10])


def _normalise(stdout: str, base: str) -> list[str]:
    """The tool's lines, sorted (it prints the broker's ACLs in the order they come), with the
    test's names written T."""
    return sorted(re.sub(r"\s+", " ", line.replace(base, "T")).strip()
                  for line in stdout.splitlines() if line.strip())


# -- without an authorizer -----------------------------------------------------------------------


def acls_without_authorizer(rec: Recorder, n: Names) -> None:
    for v in (0, 3):
        rec.call(f"create v{v}", CREATE_ACLS, v, ca.CreateAclsRequest(creations=[
            creation(TOPIC, n.topic, LITERAL, READ), creation(GROUP, n("g"), LITERAL, READ)]))
        rec.call(f"describe v{v}", DESCRIBE_ACLS, v, describe(TOPIC, n.topic, LITERAL))
        rec.call(f"delete v{v}", DELETE_ACLS, v, da.DeleteAclsRequest(filters=[
            delete_filter(TOPIC, n.topic, LITERAL)]))


def test_acls_without_an_authorizer(pair: Pair, names: Names):
    """The brokers every other differential test uses have no authorizer: SECURITY_DISABLED."""
    pair.check(acls_without_authorizer, names, KNOWN)


DESCRIBE_USER_SCRAM_CREDENTIALS, ALTER_USER_SCRAM_CREDENTIALS, DESCRIBE_CLIENT_QUOTAS = 50, 51, 48


# -- a named user --------------------------------------------------------------------------------


class NamedUserPair(TlsPair):
    """Scenarios reach each broker on its SSL listener as the named user, and get the same
    broker's PLAINTEXT address to set things up as ANONYMOUS."""

    def run(self, scenario, names: Names) -> tuple[Recorder, Recorder]:
        ours = Recorder(f"127.0.0.1:{self.ssl_ports[0]}", ssl_context=self.context)
        theirs = Recorder(f"127.0.0.1:{self.ssl_ports[1]}", ssl_context=self.context)
        for rec, plaintext in ((ours, self.pybroker.bootstrap), (theirs, self.kafka.bootstrap)):
            try:
                scenario(rec, names, plaintext)
            finally:
                rec.close()
        return ours, theirs


def named_user(rec: Recorder, n: Names, plaintext: str) -> None:
    """The client of the SSL listeners is User:CN=alice,O=example (its certificate's subject):
    ACLs naming it apply to it, and those naming ANONYMOUS do not."""
    topics = {"mine": n("mine"), "anonymous": n("anonymous"), "denied": n("denied")}
    admin = Recorder(plaintext)  # ANONYMOUS, on the other listener of the same broker
    try:
        for name in topics.values():
            create_topic(admin, name)
        grant(admin,
              creation(TOPIC, topics["mine"], LITERAL, ALL, principal=NAMED_USER),
              creation(TOPIC, topics["anonymous"], LITERAL, ALL),
              creation(TOPIC, topics["denied"], LITERAL, ALL, principal="User:*"),
              creation(TOPIC, topics["denied"], LITERAL, WRITE, DENY, principal=NAMED_USER))
    finally:
        admin.close()
    outcomes = {}
    for key, name in topics.items():
        produced = rec.call(f"produce {key}", rq.PRODUCE, 9, rq.produce(name, rq.batch(1)),
                            mask=("responses[*].partition_responses[*].log_append_time_ms",))
        fetched = rec.call(f"fetch {key}", rq.FETCH, 12, rq.fetch(name, 0))
        outcomes[key] = (produced.responses[0].partition_responses[0].error_code,
                         fetched.responses[0].partitions[0].error_code)
    # (on both brokers: the scenario itself is checked against Kafka)
    denied = ErrorCode.TOPIC_AUTHORIZATION_FAILED
    assert outcomes == {"mine": (0, 0), "anonymous": (denied, denied), "denied": (denied, 0)}
    rec.call("metadata", rq.METADATA, 12, rq.metadata(*topics.values()),
             mask=("topics[*].topic_id",))
    # the cluster's ACLs name only ANONYMOUS: no ACL administration for this user (Kafka's
    # message prints its request object)
    rec.call("describe ACLs: not on the cluster", DESCRIBE_ACLS, 3,
             describe(TOPIC, topics["mine"], LITERAL), mask=("error_message",))
    # nor may it see or change users' SCRAM credentials (DESCRIBE / ALTER on the cluster) or
    # read quotas (DESCRIBE_CONFIGS on the cluster)
    from protocol.messages import (
        alter_user_scram_credentials_request as aus,
        describe_client_quotas_request as dcq,
        describe_user_scram_credentials_request as dus,
    )
    rec.call("describe SCRAM credentials", DESCRIBE_USER_SCRAM_CREDENTIALS, 0,
             dus.DescribeUserScramCredentialsRequest(users=[dus.UserName(name="alice")]))
    # (not "describe every user" (users null): refused, Kafka 3.9 never answers it, as its
    # error response iterates the null list)
    rec.call("alter SCRAM credentials", ALTER_USER_SCRAM_CREDENTIALS, 0,
             aus.AlterUserScramCredentialsRequest(deletions=[
                 aus.ScramCredentialDeletion(name="nobody", mechanism=1)]))
    rec.call("describe quotas", DESCRIBE_CLIENT_QUOTAS, 1,
             dcq.DescribeClientQuotasRequest(components=[
                 dcq.ComponentData(entity_type="user", match_type=1, match=None)]))


def test_a_named_user_over_tls(acl_pair: AclPair, names: Names):
    assert acl_pair.tls is not None
    tls = acl_pair.tls
    NamedUserPair(tls.pybroker, tls.kafka, tls.ssl_ports, tls.context).check(
        named_user, names, KNOWN)
