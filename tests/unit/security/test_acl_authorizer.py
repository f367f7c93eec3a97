"""Kafka's AclAuthorizer semantics: matching, implied operations, deny wins, super users,
allow.everyone.if.no.acl.found, authorizeByResourceType, and what CreateAcls/DeleteAcls change."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from protocol.errors import ErrorCode
from pybroker.security import acl_json
from pybroker.security.acl import (
    ANY_BINDING,
    AccessControlEntry,
    AccessControlEntryFilter,
    AclBinding,
    AclBindingFilter,
    AclOperation,
    AclPermissionType,
    PatternType,
    ResourcePattern,
    ResourcePatternFilter,
    ResourceType,
)
from pybroker.security.authorizer import AclAuthorizer, host_of, parse_super_users
from pybroker.security.principal import KafkaPrincipal

ALICE = KafkaPrincipal("User", "alice")
BOB = KafkaPrincipal("User", "bob")
HOST = "10.0.0.1"
ALLOW, DENY = AclPermissionType.ALLOW, AclPermissionType.DENY
LITERAL, PREFIXED = PatternType.LITERAL, PatternType.PREFIXED
TOPIC, GROUP, CLUSTER = ResourceType.TOPIC, ResourceType.GROUP, ResourceType.CLUSTER
Op = AclOperation


def ace(op: AclOperation, permission: AclPermissionType = ALLOW, principal: str = "User:alice",
        host: str = "*") -> AccessControlEntry:
    return AccessControlEntry(principal, host, op, permission)


def authorizer(*acls: tuple[ResourcePattern, AccessControlEntry], **kw) -> AclAuthorizer:
    a = AclAuthorizer(**kw)
    by_pattern: dict[ResourcePattern, set[AccessControlEntry]] = {}
    for pattern, entry in acls:
        by_pattern.setdefault(pattern, set()).add(entry)
    a.load(by_pattern)
    return a


def topic(name: str, pattern_type: PatternType = LITERAL) -> ResourcePattern:
    return ResourcePattern(TOPIC, name, pattern_type)


# -- authorize -----------------------------------------------------------------------------------


def test_no_acls_denies_unless_allow_everyone():
    assert not authorizer().authorize(ALICE, HOST, Op.READ, TOPIC, "t")
    assert authorizer(allow_everyone_if_no_acl_found=True).authorize(ALICE, HOST, Op.READ,
                                                                     TOPIC, "t")


def test_allow_everyone_only_where_the_resource_has_no_acls_at_all():
    # an ACL naming someone else still counts: alice is not let in by allow.everyone
    a = authorizer((topic("t"), ace(Op.READ, principal="User:bob")),
                   allow_everyone_if_no_acl_found=True)
    assert not a.authorize(ALICE, HOST, Op.READ, TOPIC, "t")
    assert a.authorize(BOB, HOST, Op.READ, TOPIC, "t")
    assert a.authorize(ALICE, HOST, Op.READ, TOPIC, "other")


def test_literal_wildcard_and_prefixed_patterns_apply():
    a = authorizer((topic("orders"), ace(Op.READ)),
                   (topic("*"), ace(Op.WRITE)),
                   (topic("pay", PREFIXED), ace(Op.DELETE)))
    assert a.authorize(ALICE, HOST, Op.READ, TOPIC, "orders")
    assert not a.authorize(ALICE, HOST, Op.READ, TOPIC, "orders2")
    assert a.authorize(ALICE, HOST, Op.WRITE, TOPIC, "anything")
    assert a.authorize(ALICE, HOST, Op.DELETE, TOPIC, "payments")
    assert a.authorize(ALICE, HOST, Op.DELETE, TOPIC, "pay")
    assert not a.authorize(ALICE, HOST, Op.DELETE, TOPIC, "pa")
    # a literal "*" is the wildcard only for literal patterns; a group named like a topic is
    # another resource
    assert not a.authorize(ALICE, HOST, Op.READ, GROUP, "orders")


def test_principal_and_host_wildcards():
    a = authorizer((topic("t"), ace(Op.READ, principal="User:*", host=HOST)))
    assert a.authorize(BOB, HOST, Op.READ, TOPIC, "t")
    assert not a.authorize(BOB, "10.0.0.2", Op.READ, TOPIC, "t")
    # as in Kafka, an ACL for User:* applies to principals of every type
    assert a.authorize(KafkaPrincipal("Group", "x"), HOST, Op.READ, TOPIC, "t")


@pytest.mark.parametrize("granted", [Op.READ, Op.WRITE, Op.DELETE, Op.ALTER, Op.DESCRIBE])
def test_describe_is_implied_by_read_write_delete_alter(granted):
    a = authorizer((topic("t"), ace(granted)))
    assert a.authorize(ALICE, HOST, Op.DESCRIBE, TOPIC, "t")


@pytest.mark.parametrize("granted", [Op.CREATE, Op.DESCRIBE_CONFIGS, Op.ALTER_CONFIGS])
def test_describe_is_not_implied_by_others(granted):
    assert not authorizer((topic("t"), ace(granted))).authorize(ALICE, HOST, Op.DESCRIBE,
                                                                TOPIC, "t")


def test_describe_configs_is_implied_by_alter_configs_only():
    a = authorizer((topic("t"), ace(Op.ALTER_CONFIGS)))
    assert a.authorize(ALICE, HOST, Op.DESCRIBE_CONFIGS, TOPIC, "t")
    assert not a.authorize(ALICE, HOST, Op.DESCRIBE, TOPIC, "t")
    assert not authorizer((topic("t"), ace(Op.ALTER))).authorize(
        ALICE, HOST, Op.DESCRIBE_CONFIGS, TOPIC, "t")


def test_all_allows_every_operation_and_read_does_not_imply_write():
    a = authorizer((topic("t"), ace(Op.ALL)))
    for op in (Op.READ, Op.WRITE, Op.CREATE, Op.DELETE, Op.ALTER, Op.DESCRIBE,
               Op.DESCRIBE_CONFIGS, Op.ALTER_CONFIGS):
        assert a.authorize(ALICE, HOST, op, TOPIC, "t")
    assert not authorizer((topic("t"), ace(Op.READ))).authorize(ALICE, HOST, Op.WRITE,
                                                                TOPIC, "t")


def test_deny_wins_and_is_never_implied():
    a = authorizer((topic("t"), ace(Op.ALL)), (topic("t", PREFIXED), ace(Op.READ, DENY)))
    assert not a.authorize(ALICE, HOST, Op.READ, TOPIC, "t")
    assert a.authorize(ALICE, HOST, Op.WRITE, TOPIC, "t")
    # a denied READ does not deny the DESCRIBE that WRITE implies
    assert a.authorize(ALICE, HOST, Op.DESCRIBE, TOPIC, "t")
    everyone_denied = authorizer((topic("t"), ace(Op.READ)),
                                 (topic("*"), ace(Op.ALL, DENY, principal="User:*")))
    assert not everyone_denied.authorize(ALICE, HOST, Op.READ, TOPIC, "t")


def test_super_users_bypass_every_acl():
    a = authorizer((topic("t"), ace(Op.ALL, DENY, principal="User:*")),
                   super_users=parse_super_users(" User:alice ; User:admin"))
    assert a.authorize(ALICE, HOST, Op.READ, TOPIC, "t")
    assert a.authorize(ALICE, HOST, Op.ALTER, CLUSTER, "kafka-cluster")
    assert not a.authorize(BOB, HOST, Op.READ, TOPIC, "t")


def test_host_of_a_peer():
    assert host_of("127.0.0.1:5000") == "127.0.0.1"
    assert host_of("::1:5000") == "::1"
    assert host_of("loopback") == "loopback"


# -- authorizeByResourceType -------------------------------------------------------------------


def test_by_resource_type_needs_an_allow_somewhere():
    assert not authorizer().authorize_by_resource_type(ALICE, HOST, Op.WRITE, TOPIC)
    assert authorizer(allow_everyone_if_no_acl_found=True).authorize_by_resource_type(
        ALICE, HOST, Op.WRITE, TOPIC)
    assert authorizer((topic("t"), ace(Op.WRITE))).authorize_by_resource_type(
        ALICE, HOST, Op.WRITE, TOPIC)
    assert authorizer((topic("t", PREFIXED), ace(Op.ALL))).authorize_by_resource_type(
        ALICE, HOST, Op.WRITE, TOPIC)
    # implied operations do not count here
    assert not authorizer((topic("t"), ace(Op.WRITE))).authorize_by_resource_type(
        ALICE, HOST, Op.DESCRIBE, TOPIC)


def test_by_resource_type_denials():
    # a denial of the same literal, or of a prefix of it, overrides the allow
    assert not authorizer((topic("t"), ace(Op.WRITE)), (topic("t"), ace(Op.WRITE, DENY))
                          ).authorize_by_resource_type(ALICE, HOST, Op.WRITE, TOPIC)
    assert not authorizer((topic("abc"), ace(Op.WRITE)),
                          (topic("ab", PREFIXED), ace(Op.WRITE, DENY))
                          ).authorize_by_resource_type(ALICE, HOST, Op.WRITE, TOPIC)
    # a denial of another name leaves the allow standing
    assert authorizer((topic("abc"), ace(Op.WRITE)), (topic("x"), ace(Op.WRITE, DENY))
                      ).authorize_by_resource_type(ALICE, HOST, Op.WRITE, TOPIC)
    # a literal "*" denial denies the whole type, even with allow.everyone
    assert not authorizer((topic("abc"), ace(Op.WRITE)), (topic("*"), ace(Op.WRITE, DENY)),
                          allow_everyone_if_no_acl_found=True
                          ).authorize_by_resource_type(ALICE, HOST, Op.WRITE, TOPIC)


# -- filters -----------------------------------------------------------------------------------


def pattern_filter(name, pattern_type, resource_type=TOPIC):
    return ResourcePatternFilter(resource_type, name, pattern_type)


def test_pattern_filters():
    lit, pre, star = topic("orders"), topic("ord", PREFIXED), topic("*")
    match = pattern_filter("orders", PatternType.MATCH)
    assert match.matches(lit) and match.matches(pre) and match.matches(star)
    assert not match.matches(topic("order"))
    any_ = pattern_filter("orders", PatternType.ANY)
    assert any_.matches(lit) and not any_.matches(pre) and not any_.matches(star)
    assert any_.matches(topic("orders", PREFIXED))
    literal = pattern_filter("orders", LITERAL)
    assert literal.matches(lit) and not literal.matches(star)
    assert pattern_filter(None, PatternType.ANY, ResourceType.ANY).matches(
        ResourcePattern(GROUP, "g"))
    assert not pattern_filter(None, PREFIXED).matches(lit)
    assert pattern_filter("orders", LITERAL).matches_at_most_one
    assert not match.matches_at_most_one


def test_entry_filters():
    entry = ace(Op.READ)
    assert AccessControlEntryFilter(None, None, Op.ANY, AclPermissionType.ANY).matches(entry)
    assert AccessControlEntryFilter("User:alice", "*", Op.READ, ALLOW).matches(entry)
    assert not AccessControlEntryFilter("User:bob", None, Op.ANY, AclPermissionType.ANY
                                        ).matches(entry)
    assert not AccessControlEntryFilter(None, "h", Op.ANY, AclPermissionType.ANY).matches(entry)
    # ALL in a filter is the operation ALL, not a wildcard
    assert not AccessControlEntryFilter(None, None, Op.ALL, AclPermissionType.ANY).matches(entry)


# -- create and delete ---------------------------------------------------------------------------


def test_create_refuses_unknown_parts_and_slashes():
    a = AclAuthorizer()
    results, updates = a.plan_create([
        AclBinding(topic("a/b"), ace(Op.READ)),
        AclBinding(topic("ok"), ace(Op.UNKNOWN)),
        AclBinding(topic("ok"), ace(Op.READ)),
        AclBinding(topic("bad-principal"), ace(Op.READ, principal="nocolon")),
    ])
    assert [r.code if r else None for r in results] == [
        ErrorCode.INVALID_REQUEST, ErrorCode.INVALID_REQUEST, None,
        ErrorCode.UNKNOWN_SERVER_ERROR]
    assert updates == {topic("ok"): frozenset({ace(Op.READ)})}


def test_create_of_an_existing_binding_changes_nothing():
    a = authorizer((topic("t"), ace(Op.READ)))
    results, updates = a.plan_create([AclBinding(topic("t"), ace(Op.READ))])
    assert results == [None] and updates == {}


def test_delete_by_filters():
    a = authorizer((topic("t"), ace(Op.READ)), (topic("t"), ace(Op.WRITE)),
                   (topic("t", PREFIXED), ace(Op.READ)), (ResourcePattern(GROUP, "g"),
                                                         ace(Op.READ)))
    reads = AclBindingFilter(pattern_filter("t", PatternType.MATCH),
                             AccessControlEntryFilter(None, None, Op.READ, AclPermissionType.ANY))
    deleted, updates = a.plan_delete([reads, ANY_BINDING])
    assert sorted(b.pattern.pattern_type for b in deleted[0]) == [LITERAL, PREFIXED]
    # a binding two filters match counts for the first
    assert {(b.pattern.resource_type, b.entry.operation) for b in deleted[1]} == {
        (TOPIC, Op.WRITE), (GROUP, Op.READ)}
    a.apply(updates)
    assert a.acls(ANY_BINDING) == []


def test_delete_of_nothing():
    deleted, updates = AclAuthorizer().plan_delete([ANY_BINDING])
    assert deleted == [[]] and updates == {}


# -- Kafka's JSON and paths ----------------------------------------------------------------------


def test_json_documents_and_paths_are_kafkas():
    entries = {ace(Op.CLUSTER_ACTION), ace(Op.READ, DENY, principal="User:*", host="h")}
    assert acl_json.entries_to_json(entries) == {"version": 1, "acls": [
        {"principal": "User:*", "permissionType": "Deny", "operation": "Read", "host": "h"},
        {"principal": "User:alice", "permissionType": "Allow", "operation": "ClusterAction",
         "host": "*"}]}
    assert acl_json.decode(acl_json.encode(entries)) == entries
    lit = ResourcePattern(ResourceType.TRANSACTIONAL_ID, "tx", LITERAL)
    pre = ResourcePattern(ResourceType.DELEGATION_TOKEN, "to", PREFIXED)
    assert acl_json.pattern_path(lit) == "/kafka-acl/TransactionalId/tx"
    assert acl_json.pattern_path(pre) == "/kafka-acl-extended/prefixed/DelegationToken/to"
    for p in (lit, pre):
        assert acl_json.pattern_from_path(acl_json.pattern_path(p)) == p
        where, data = acl_json.change_notification(p)
        assert acl_json.pattern_from_change(where, data) == p
    assert acl_json.literal_change(lit) == b"TransactionalId:tx"


# -- properties ----------------------------------------------------------------------------------

names = st.sampled_from(["a", "ab", "abc", "b", "*"])
operations = st.sampled_from([Op.READ, Op.WRITE, Op.DESCRIBE, Op.ALTER, Op.ALL,
                              Op.DESCRIBE_CONFIGS, Op.ALTER_CONFIGS])
bindings = st.builds(
    lambda name, pt, op, perm, principal, host: AclBinding(
        ResourcePattern(TOPIC, name, pt), AccessControlEntry(principal, host, op, perm)),
    names, st.sampled_from([LITERAL, PREFIXED]), operations, st.sampled_from([ALLOW, DENY]),
    st.sampled_from(["User:alice", "User:bob", "User:*"]), st.sampled_from([HOST, "*", "h2"]))


def _reference(acls: list[AclBinding], op: AclOperation, name: str) -> bool:
    """The rule, written out plainly: no applying ACL -> denied; a matching DENY -> denied;
    else allowed by a matching ALLOW of the operation or one implying it."""
    def applies(b: AclBinding) -> bool:
        p = b.pattern
        return ((p.pattern_type is LITERAL and p.name in (name, "*"))
                or (p.pattern_type is PREFIXED and name.startswith(p.name)))

    def who(b: AclBinding) -> bool:
        return (b.entry.principal in ("User:alice", "User:*") and b.entry.host in (HOST, "*"))

    relevant = [b for b in acls if applies(b)]
    if not relevant:
        return False
    if any(who(b) and b.entry.permission_type is DENY and b.entry.operation in (op, Op.ALL)
           for b in relevant):
        return False
    implied = {Op.DESCRIBE: {Op.READ, Op.WRITE, Op.DELETE, Op.ALTER, Op.DESCRIBE},
               Op.DESCRIBE_CONFIGS: {Op.ALTER_CONFIGS, Op.DESCRIBE_CONFIGS}}.get(op, {op})
    return any(who(b) and b.entry.permission_type is ALLOW
               and (b.entry.operation in implied or b.entry.operation is Op.ALL)
               for b in relevant)


@settings(max_examples=300, deadline=None)
@given(st.lists(bindings, max_size=8), operations, st.sampled_from(["a", "ab", "abc", "b"]))
def test_authorize_matches_the_rule(acls, op, name):
    a = AclAuthorizer()
    _, updates = a.plan_create(acls)
    a.apply(updates)
    assert a.authorize(ALICE, HOST, op, TOPIC, name) == _reference(acls, op, name)


@settings(max_examples=200, deadline=None)
@given(st.lists(bindings, max_size=8), operations)
def test_by_resource_type_allows_when_some_resource_is_allowed(acls, op):
    """Whenever some concrete topic is authorized by a literal or prefixed ALLOW of the
    operation itself, authorizeByResourceType allows (its converse does not hold: it is an
    approximation by design)."""
    a = AclAuthorizer()
    _, updates = a.plan_create(acls)
    a.apply(updates)
    explicit = AclAuthorizer()
    _, updates = explicit.plan_create([b for b in acls if b.entry.operation in (op, Op.ALL)])
    explicit.apply(updates)
    some = any(explicit.authorize(ALICE, HOST, op, TOPIC, n) and a.authorize(
        ALICE, HOST, op, TOPIC, n) for n in ("a", "ab", "abc", "b", "zzz"))
    if some and not any(b.pattern.name == "*" and b.entry.permission_type is DENY
                        for b in acls):
        assert a.authorize_by_resource_type(ALICE, HOST, op, TOPIC)


@settings(max_examples=200, deadline=None)
@given(st.lists(bindings, max_size=8), st.lists(bindings, max_size=4))
def test_delete_then_describe(acls, removed):
    """Deleting bindings exactly (LITERAL/PREFIXED filters naming every field) removes those
    and only those."""
    a = AclAuthorizer()
    _, updates = a.plan_create(acls)
    a.apply(updates)
    filters = [AclBindingFilter(
        ResourcePatternFilter(b.pattern.resource_type, b.pattern.name, b.pattern.pattern_type),
        AccessControlEntryFilter(b.entry.principal, b.entry.host, b.entry.operation,
                                 b.entry.permission_type)) for b in removed]
    deleted, updates = a.plan_delete(filters)
    a.apply(updates)
    assert set(a.acls(ANY_BINDING)) == set(acls) - set(removed)
    assert {b for d in deleted for b in d} == set(acls) & set(removed)
