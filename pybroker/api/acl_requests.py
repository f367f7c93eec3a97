"""What the ACL APIs share: the bindings and filters their requests carry, Kafka's checks of
them, and the refusals every one of them may answer with."""

from __future__ import annotations

from protocol.errors import ErrorCode, ProtocolError
from pybroker.api.context import RequestContext
from pybroker.security.acl import (
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

NO_AUTHORIZER = "No Authorizer is configured."


def not_authorized(ctx: RequestContext) -> str:
    """The message of a request refused CLUSTER_AUTHORIZATION_FAILED on the cluster."""
    return f"Request from {ctx.principal} on {ctx.peer} is not authorized."


def check_codes(resource_type: int, pattern_type: int, operation: int, permission: int,
                what: str) -> None:
    """Kafka refuses to parse a request naming UNKNOWN (code 0) parts: the connection closes."""
    if 0 in (resource_type, pattern_type, operation, permission):
        raise ProtocolError(f"{what} contains UNKNOWN elements")


def binding(resource_type: int, name: str, pattern_type: int, principal: str, host: str,
            operation: int, permission: int) -> AclBinding:
    return AclBinding(
        ResourcePattern(ResourceType.from_code(resource_type), name,
                        PatternType.from_code(pattern_type)),
        AccessControlEntry(principal, host, AclOperation.from_code(operation),
                           AclPermissionType.from_code(permission)))


def binding_filter(resource_type: int, name: str | None, pattern_type: int,
                   principal: str | None, host: str | None, operation: int,
                   permission: int) -> AclBindingFilter:
    return AclBindingFilter(
        ResourcePatternFilter(ResourceType.from_code(resource_type), name,
                              PatternType.from_code(pattern_type)),
        AccessControlEntryFilter(principal, host, AclOperation.from_code(operation),
                                 AclPermissionType.from_code(permission)))


def sort_key(b: AclBinding) -> tuple[int, int, str, str, str, int, int]:
    return (b.pattern.resource_type.value, b.pattern.pattern_type.value, b.pattern.name,
            b.entry.principal, b.entry.host, b.entry.operation.value,
            b.entry.permission_type.value)


#: Kafka's default messages of the authorization errors
AUTHORIZATION_MESSAGES = {
    ErrorCode.TOPIC_AUTHORIZATION_FAILED: "Topic authorization failed.",
    ErrorCode.GROUP_AUTHORIZATION_FAILED: "Group authorization failed.",
    ErrorCode.CLUSTER_AUTHORIZATION_FAILED: "Cluster authorization failed.",
    ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED: "Transactional Id authorization failed.",
}

#: Kafka's ConfigResource types
CONFIG_TOPIC, CONFIG_BROKER, CONFIG_BROKER_LOGGER, CONFIG_CLIENT_METRICS, CONFIG_GROUP = (
    2, 4, 8, 16, 32)


def config_refusal(ctx: RequestContext, resource_type: int, name: str,
                   operation: AclOperation) -> ErrorCode | None:
    """The error of a config resource the request may not describe or alter: a topic needs
    the operation on the topic, a group's (Kafka 4) on the group, the broker's configs and
    loggers on the cluster."""
    acls = ctx.services.acls
    if resource_type == CONFIG_TOPIC:
        if not acls.authorize(ctx, operation, ResourceType.TOPIC, name):
            return ErrorCode.TOPIC_AUTHORIZATION_FAILED
    elif resource_type == CONFIG_GROUP:
        if not acls.authorize(ctx, operation, ResourceType.GROUP, name):
            return ErrorCode.GROUP_AUTHORIZATION_FAILED
    elif resource_type in (CONFIG_BROKER, CONFIG_BROKER_LOGGER, CONFIG_CLIENT_METRICS):
        if not acls.authorize_cluster(ctx, operation):
            return ErrorCode.CLUSTER_AUTHORIZATION_FAILED
    return None
