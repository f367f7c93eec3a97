"""ConsumerGroupDescribe (69): the KIP-848 consumer groups' description, v0-1 (v1, KIP-1099:
each member's type, classic or consumer).

Without ``consumer`` in ``group.coordinator.rebalance.protocols`` every group asked for gets
UNSUPPORTED_VERSION, as from Kafka 3.9. Otherwise, as Kafka 4.1's ``KafkaApis``: groups without
DESCRIBE come first with GROUP_AUTHORIZATION_FAILED, then the coordinator's descriptions, with
the authorized operations when asked for; a group whose members hold or are assigned a topic
the client may not describe answers TOPIC_AUTHORIZATION_FAILED."""

from __future__ import annotations

from protocol.errors import ErrorCode
from protocol.messages import (
    ApiKey,
    consumer_group_describe_request as req,
    consumer_group_describe_response as m,
)
from pybroker.api.context import RequestContext
from pybroker.api.registry import api
from pybroker.security.acl import AclOperation, ResourceType

#: what Kafka 4 reports for a group: 3.9's READ, DELETE, DESCRIBE and the group configs'
#: DESCRIBE_CONFIGS and ALTER_CONFIGS (KIP-848)
GROUP_OPERATIONS = (AclOperation.READ, AclOperation.DELETE, AclOperation.DESCRIBE,
                    AclOperation.DESCRIBE_CONFIGS, AclOperation.ALTER_CONFIGS)


def _topics(group: m.DescribedGroup) -> set[str]:
    return {tp.topic_name for member in group.members
            for a in (member.assignment, member.target_assignment)
            for tp in a.topic_partitions}


@api(ApiKey.CONSUMER_GROUP_DESCRIBE, 0, 1)
def handle(ctx: RequestContext, request: req.ConsumerGroupDescribeRequest,
           ) -> m.ConsumerGroupDescribeResponse:
    groups = ctx.services.groups
    if not groups.consumer_config.enabled:
        return m.ConsumerGroupDescribeResponse(groups=[
            m.DescribedGroup(group_id=group_id, error_code=ErrorCode.UNSUPPORTED_VERSION)
            for group_id in request.group_ids])
    acls = ctx.services.acls
    out: list[m.DescribedGroup] = []
    described = []
    for group_id in request.group_ids:
        if acls.authorize(ctx, AclOperation.DESCRIBE, ResourceType.GROUP, group_id):
            described.append(group_id)
        else:
            out.append(m.DescribedGroup(group_id=group_id,
                                        error_code=ErrorCode.GROUP_AUTHORIZATION_FAILED))
    for group_id in described:
        if not group_id:
            out.append(m.DescribedGroup(group_id=group_id,
                                        error_code=ErrorCode.INVALID_GROUP_ID))
            continue
        group = groups.consumer.describe(group_id)
        if group.error_code == ErrorCode.NONE:
            topics = _topics(group)
            if topics and len(set(acls.authorized(ctx, AclOperation.DESCRIBE,
                                                  ResourceType.TOPIC, topics))) < len(topics):
                group = m.DescribedGroup(
                    group_id=group_id, error_code=ErrorCode.TOPIC_AUTHORIZATION_FAILED,
                    error_message="The group has described topic(s) that the client is not "
                                  "authorized to describe.")
            elif request.include_authorized_operations:
                group.authorized_operations = acls.authorized_operations(
                    ctx, ResourceType.GROUP, group_id, GROUP_OPERATIONS)
        out.append(group)
    return m.ConsumerGroupDescribeResponse(groups=out)
