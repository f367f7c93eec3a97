"""ACLs and SCRAM users of a cluster, through confluent-kafka's admin client: what
``kafka-acls --list/--add/--remove`` and ``kafka-configs --entity-type users`` show and change.

A cluster without an authorizer answers DescribeAcls with SECURITY_DISABLED; the ACL page then
says so, as kafka-ui hides its ACL page. Passwords go to the cluster only inside SCRAM
upsertions (librdkafka salts and hashes them); no description carries one back.
"""

from __future__ import annotations

from concurrent.futures import Future
from typing import Any, cast

from confluent_kafka.admin import (
    AclBinding,
    AclBindingFilter,
    AclOperation,
    AclPermissionType,
    AdminClient,
    ResourcePatternType,
    ResourceType,
    ScramCredentialInfo,
    ScramMechanism,
    UserScramCredentialDeletion,
    UserScramCredentialUpsertion,
)

from protocol.messages import describe_acls_request, describe_acls_response
from pybroker.console.errors import TIMEOUT, result

#: Kafka's codes and names of an ACL's resource type, operation, pattern and permission
#: (``org.apache.kafka.common.resource.ResourceType`` and friends), for DescribeAcls' answer
KAFKA_RESOURCE_TYPES = {2: "TOPIC", 3: "GROUP", 4: "CLUSTER", 5: "TRANSACTIONAL_ID",
                        6: "DELEGATION_TOKEN", 7: "USER"}
KAFKA_OPERATIONS = {2: "ALL", 3: "READ", 4: "WRITE", 5: "CREATE", 6: "DELETE", 7: "ALTER",
                    8: "DESCRIBE", 9: "CLUSTER_ACTION", 10: "DESCRIBE_CONFIGS",
                    11: "ALTER_CONFIGS", 12: "IDEMPOTENT_WRITE", 13: "CREATE_TOKENS",
                    14: "DESCRIBE_TOKENS"}
KAFKA_PATTERNS = {3: "LITERAL", 4: "PREFIXED"}
KAFKA_PERMISSIONS = {2: "DENY", 3: "ALLOW"}
#: what an ACL made here may name: librdkafka's admin API knows these (its resource type
#: BROKER is Kafka's CLUSTER, code 4)
RESOURCE_TYPES = ("TOPIC", "GROUP", "CLUSTER", "TRANSACTIONAL_ID")
OPERATIONS = ("ALL", "READ", "WRITE", "CREATE", "DELETE", "ALTER", "DESCRIBE",
              "CLUSTER_ACTION", "DESCRIBE_CONFIGS", "ALTER_CONFIGS", "IDEMPOTENT_WRITE")
PATTERNS = ("LITERAL", "PREFIXED")
PERMISSIONS = ("ALLOW", "DENY")
#: DescribeAcls v1 with every filter ANY (1), names, principal and host null: every ACL
DESCRIBE_EVERY_ACL = describe_acls_request.DescribeAclsRequest(
    resource_type_filter=1, resource_name_filter=None, pattern_type_filter=1,
    principal_filter=None, host_filter=None, operation=1, permission_type=1)
MECHANISMS = ("SCRAM-SHA-256", "SCRAM-SHA-512")
#: Kafka's bounds on a SCRAM credential's iterations (ScramMechanism.minIterations, max)
MIN_ITERATIONS, MAX_ITERATIONS = 4096, 16384


def _choice(value: str, allowed: tuple[str, ...], what: str) -> str:
    value = value.strip().upper()
    if value not in allowed:
        raise ValueError(f"{what} is one of {', '.join(allowed)}, not {value!r}")
    return value


def binding(resource_type: str, name: str, pattern: str, principal: str, host: str,
            operation: str, permission: str) -> AclBinding:
    """An ACL from a form's fields, checked as kafka-acls checks them."""
    resource_type = _choice(resource_type, RESOURCE_TYPES, "the resource type")
    if resource_type == "CLUSTER":
        name = "kafka-cluster"
    if not name.strip():
        raise ValueError("an ACL names its resource")
    if ":" not in principal or not principal.split(":", 1)[1]:
        raise ValueError(f"a principal is Type:name (User:alice), not {principal!r}")
    return AclBinding(ResourceType.BROKER if resource_type == "CLUSTER"
                      else ResourceType[resource_type], name.strip(),
                      ResourcePatternType[_choice(pattern, PATTERNS, "the pattern type")],
                      principal.strip(), host.strip() or "*",
                      AclOperation[_choice(operation, OPERATIONS, "the operation")],
                      AclPermissionType[_choice(permission, PERMISSIONS, "the permission")])


def _name(value: Any) -> str:
    """An enum member's name (librdkafka's bindings are typed loosely as str | int too)."""
    return str(getattr(value, "name", value))


def binding_row(b: AclBinding) -> dict[str, Any]:
    restype = _name(b.restype)
    return {"resource_type": "CLUSTER" if restype == "BROKER" else restype, "name": b.name,
            "pattern": _name(b.resource_pattern_type), "principal": b.principal,
            "host": b.host, "operation": _name(b.operation),
            "permission": _name(b.permission_type)}


def acl_rows(answer: describe_acls_response.DescribeAclsResponse) -> list[dict[str, Any]]:
    """DescribeAcls' answer as rows, each named as Kafka names it. (librdkafka's
    ``describe_acls`` is not used: it gives an empty list where the broker answered
    SECURITY_DISABLED, so a cluster without an authorizer would look like one without
    ACLs.)"""
    rows = [{"resource_type": KAFKA_RESOURCE_TYPES.get(r.resource_type, str(r.resource_type)),
             "name": r.resource_name,
             "pattern": KAFKA_PATTERNS.get(r.pattern_type, str(r.pattern_type)),
             "principal": a.principal, "host": a.host,
             "operation": KAFKA_OPERATIONS.get(a.operation, str(a.operation)),
             "permission": KAFKA_PERMISSIONS.get(a.permission_type, str(a.permission_type))}
            for r in answer.resources for a in r.acls]
    return sorted(rows, key=lambda r: (r["resource_type"], r["name"], r["pattern"],
                                       r["principal"], r["operation"], r["permission"]))


def create_acl(admin: AdminClient, acl: AclBinding) -> None:
    for future in admin.create_acls([acl], request_timeout=TIMEOUT).values():
        result(future)


def delete_acl(admin: AdminClient, acl: AclBinding) -> int:
    """DeleteAcls with a filter matching exactly this ACL; how many it removed."""
    exact = AclBindingFilter(acl.restype, acl.name, acl.resource_pattern_type, acl.principal,
                             acl.host, acl.operation, acl.permission_type)
    removed = 0
    for future in admin.delete_acls([exact], request_timeout=TIMEOUT).values():
        removed += len(result(future))
    return removed


def users(admin: AdminClient) -> list[dict[str, Any]]:
    """Every SCRAM user and its credentials' mechanisms and iterations (no secrets: the
    cluster never sends them)."""
    # (for every user, one future of a dict user -> description)
    found = result(cast(Future[Any], admin.describe_user_scram_credentials(
        request_timeout=TIMEOUT)))
    rows = []
    for user, description in sorted(found.items()):
        rows.append({"user": user, "credentials": sorted(
            ({"mechanism": _mechanism_name(i.mechanism), "iterations": i.iterations}
             for i in description.scram_credential_infos), key=lambda c: c["mechanism"])})
    return rows


def _mechanism_name(mechanism: ScramMechanism) -> str:
    return mechanism.name.replace("_", "-")


def upsert_user(admin: AdminClient, user: str, mechanism: str, iterations: int,
                password: str) -> None:
    """Create or replace one SCRAM credential (kafka-configs --add-config
    'SCRAM-SHA-256=[iterations=8192,password=...]')."""
    if not user.strip():
        raise ValueError("a user has a name")
    if not password:
        raise ValueError("a SCRAM credential needs a password")
    if not MIN_ITERATIONS <= iterations <= MAX_ITERATIONS:
        raise ValueError(f"iterations are from {MIN_ITERATIONS} to {MAX_ITERATIONS}, not "
                         f"{iterations}")
    chosen = ScramMechanism[_choice(mechanism, MECHANISMS, "the mechanism").replace("-", "_")]
    change = UserScramCredentialUpsertion(user.strip(), ScramCredentialInfo(chosen, iterations),
                                          password.encode())
    for future in admin.alter_user_scram_credentials([change],
                                                     request_timeout=TIMEOUT).values():
        result(future)


def delete_user_credential(admin: AdminClient, user: str, mechanism: str) -> None:
    chosen = ScramMechanism[_choice(mechanism, MECHANISMS, "the mechanism").replace("-", "_")]
    change = UserScramCredentialDeletion(user.strip(), chosen)
    for future in admin.alter_user_scram_credentials([change],
                                                     request_timeout=TIMEOUT).values():
        result(future)
