"""Delete what a run created: every topic and group whose name starts with the run prefix, and
the ACLs of resource patterns so named, and nothing else, over the Kafka protocol alone (no
client library, no file system).

Requests go to the address given and to the brokers its Metadata names (the controller for
DeleteTopics, each broker for ListGroups, a group's coordinator for DeleteGroups), as any
client's would. A group whose members a killed scenario left behind is non-empty until their
sessions expire; it is asked again until ``group_wait`` seconds have passed, then reported as
left over.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from protocol import messages
from protocol.errors import ErrorCode
from protocol.messages import (
    ApiKey,
    delete_acls_request,
    delete_groups_request,
    delete_topics_request,
    describe_acls_request,
    find_coordinator_request,
    list_groups_request,
    metadata_request,
)
from pybroker.compat.apiversions import ApiTable, probe
from pybroker.compat.security import AuthenticationError, ClientSecurity
from pybroker.compat.wire import WireConnection


@dataclass
class Cleanup:
    topics: list[str] = field(default_factory=list)
    groups: list[str] = field(default_factory=list)
    #: the ACLs deleted, as "<resource type> <pattern type> <name>: <principal> ..."
    acls: list[str] = field(default_factory=list)
    #: what could not be deleted, and why
    left: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"topics_deleted": self.topics, "groups_deleted": self.groups,
                "acls_deleted": self.acls, "left": self.left}


def version(table: ApiTable, api_key: int) -> int:
    """The highest version of ``api_key`` both the broker and the codecs know."""
    lo, hi = table[api_key]
    ours_lo, ours_hi = messages.REQUEST_VERSIONS[api_key]
    v = min(hi, ours_hi)
    if v < max(lo, ours_lo):
        raise ValueError(f"no common version of {messages.API_NAMES[api_key]}")
    return v


class _Connections:
    def __init__(self, timeout: float, security: ClientSecurity | None = None) -> None:
        self.timeout = timeout
        self.security = security
        self.open: dict[str, WireConnection] = {}

    def __call__(self, address: str) -> WireConnection:
        conn = self.open.get(address)
        if conn is None:
            conn = self.open[address] = WireConnection(address, self.timeout,
                                                       security=self.security)
        return conn

    def close(self) -> None:
        for conn in self.open.values():
            conn.close()


def address(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def cleanup(bootstrap: str, prefix: str, *, timeout: float = 15.0, group_wait: float = 50.0,
            now: Callable[[], float] = time.monotonic,
            security: ClientSecurity | None = None) -> Cleanup:
    """Delete the topics and groups named ``prefix...`` from the broker at ``bootstrap``."""
    if not prefix.startswith("compat-") or len(prefix) < len("compat-x-"):
        raise ValueError(f"refusing to clean up a prefix the suite does not own: {prefix!r}")
    done = Cleanup()
    table = probe(bootstrap, timeout, security)
    conns = _Connections(timeout, security)
    try:
        meta_v = version(table, ApiKey.METADATA)
        meta = conns(bootstrap).call(ApiKey.METADATA, meta_v, metadata_request.MetadataRequest(
            topics=None, allow_auto_topic_creation=False))
        brokers = {b.node_id: address(b.host, b.port) for b in meta.brokers}
        controller = brokers.get(meta.controller_id, bootstrap)
        topics = sorted(t.name for t in meta.topics if t.name and t.name.startswith(prefix))
        # ACLs first: one denying this client could keep it from deleting the run's topics
        if ApiKey.DESCRIBE_ACLS in table and ApiKey.DELETE_ACLS in table:
            _delete_acls(conns(bootstrap), table, prefix, done)
        # groups first: deleting a topic deletes the offsets committed for it, and with them
        # the empty groups that had nothing else
        if ApiKey.LIST_GROUPS in table and ApiKey.DELETE_GROUPS in table:
            groups: set[str] = set()
            for node in brokers.values() or [bootstrap]:
                listed = conns(node).call(ApiKey.LIST_GROUPS, version(table, ApiKey.LIST_GROUPS),
                                             list_groups_request.ListGroupsRequest())
                groups.update(g.group_id for g in listed.groups if g.group_id.startswith(prefix))
            _delete_groups(conns, bootstrap, table, sorted(groups), done, now() + group_wait, now)
        if topics:
            _delete_topics(conns(controller), table, topics, done)
    except (OSError, ValueError, AuthenticationError) as e:
        done.left.append(f"cleanup stopped: {e}")
    finally:
        conns.close()
    return done


def _delete_topics(conn: WireConnection, table: ApiTable, topics: list[str], done: Cleanup) -> None:
    request = delete_topics_request.DeleteTopicsRequest(
        topics=[delete_topics_request.DeleteTopicState(name=t) for t in topics],
        topic_names=list(topics), timeout_ms=30_000)
    response = conn.call(ApiKey.DELETE_TOPICS, version(table, ApiKey.DELETE_TOPICS), request)
    for r in response.responses:
        if r.error_code in (ErrorCode.NONE, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION):
            done.topics.append(str(r.name))
        else:
            done.left.append(f"topic {r.name}: {ErrorCode(r.error_code).name}")


#: Kafka's codes: resource type and pattern type ANY, operation and permission ANY
_ANY = 1
#: the errors that say there are no ACLs this client could have made
_NO_ACLS = (ErrorCode.SECURITY_DISABLED, ErrorCode.CLUSTER_AUTHORIZATION_FAILED)


def _delete_acls(conn: WireConnection, table: ApiTable, prefix: str, done: Cleanup) -> None:
    """Delete the ACLs whose resource pattern is named ``prefix...``: DescribeAcls lists every
    ACL, then DeleteAcls gets one filter per such resource pattern, naming it exactly (type,
    name, LITERAL or PREFIXED), which no other pattern can match."""
    describe_v = version(table, ApiKey.DESCRIBE_ACLS)
    delete_v = version(table, ApiKey.DELETE_ACLS)
    if describe_v < 1 or delete_v < 1:
        return  # before pattern types (KIP-290) a filter cannot name a pattern exactly
    listed = conn.call(ApiKey.DESCRIBE_ACLS, describe_v, describe_acls_request.DescribeAclsRequest(
        resource_type_filter=_ANY, resource_name_filter=None, pattern_type_filter=_ANY,
        principal_filter=None, host_filter=None, operation=_ANY, permission_type=_ANY))
    if listed.error_code in _NO_ACLS:
        return
    if listed.error_code != ErrorCode.NONE:
        done.left.append(f"ACLs: DescribeAcls answered {ErrorCode(listed.error_code).name}")
        return
    patterns = sorted({(r.resource_type, r.resource_name, r.pattern_type)
                       for r in listed.resources if r.resource_name.startswith(prefix)})
    if not patterns:
        return
    answer = conn.call(ApiKey.DELETE_ACLS, delete_v, delete_acls_request.DeleteAclsRequest(
        filters=[delete_acls_request.DeleteAclsFilter(
            resource_type_filter=rtype, resource_name_filter=name, pattern_type_filter=ptype,
            principal_filter=None, host_filter=None, operation=_ANY, permission_type=_ANY)
            for rtype, name, ptype in patterns]))
    for (rtype, name, ptype), result in zip(patterns, answer.filter_results, strict=True):
        where = f"{rtype} {ptype} {name}"
        if result.error_code != ErrorCode.NONE:
            done.left.append(f"ACLs of {where}: {ErrorCode(result.error_code).name}")
            continue
        done.acls += [f"{where}: {a.principal} {a.host} {a.operation} {a.permission_type}"
                      for a in result.matching_acls]


def _coordinator(conns: _Connections, bootstrap: str, table: ApiTable, group: str) -> str:
    v = version(table, ApiKey.FIND_COORDINATOR)
    response = conns(bootstrap).call(
        ApiKey.FIND_COORDINATOR, v,
        find_coordinator_request.FindCoordinatorRequest(key=group, coordinator_keys=[group]))
    found = response.coordinators[0] if v >= 4 else response
    if found.error_code != ErrorCode.NONE:
        raise ValueError(f"no coordinator for {group}: {ErrorCode(found.error_code).name}")
    return address(found.host, found.port)


def _delete_groups(conns: _Connections, bootstrap: str, table: ApiTable, groups: list[str],
                   done: Cleanup, give_up: float, now: Callable[[], float]) -> None:
    pending = list(groups)
    last: dict[str, str] = {}
    while pending:
        retry = []
        for group in pending:
            try:
                conn = conns(_coordinator(conns, bootstrap, table, group))
                response = conn.call(ApiKey.DELETE_GROUPS, version(table, ApiKey.DELETE_GROUPS),
                                     delete_groups_request.DeleteGroupsRequest(groups_names=[group]))
                code = response.results[0].error_code
            except ValueError as e:
                last[group] = str(e)
                retry.append(group)
                continue
            if code in (ErrorCode.NONE, ErrorCode.GROUP_ID_NOT_FOUND):
                done.groups.append(group)
            else:
                last[group] = ErrorCode(code).name
                retry.append(group)
        pending = retry
        if pending and now() >= give_up:
            done.left.extend(f"group {g}: {last[g]}" for g in pending)
            return
        if pending:
            time.sleep(1.0)
