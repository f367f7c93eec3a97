"""AlterPartitionReassignments (45): move partitions to new replica sets, or cancel moves.

Decided by the controller, through the admin seam, with Kafka's checks and messages. On the
embedded single node a valid target is the partition's current replica set, so an accepted
reassignment is complete when the answer leaves and a cancellation finds nothing to cancel
(NO_REASSIGNMENT_IN_PROGRESS); in ZooKeeper mode the controller runs Kafka's reassignment
(``pybroker.controller.reassignment``) and another broker answers NOT_CONTROLLER.
"""

from __future__ import annotations

from protocol.errors import ErrorCode, KafkaError
from protocol.messages import (
    ApiKey,
    alter_partition_reassignments_request as req,
    alter_partition_reassignments_response as m,
)
from pybroker.api.context import RequestContext
from pybroker.api.registry import Response, api
from pybroker.kernel.outcome import when_ready
from pybroker.kernel.types import TopicPartition
from pybroker.security.acl import AclOperation


@api(ApiKey.ALTER_PARTITION_REASSIGNMENTS, 0, 0)
def handle(ctx: RequestContext, request: req.AlterPartitionReassignmentsRequest,
           ) -> Response[m.AlterPartitionReassignmentsResponse]:
    if not ctx.services.acls.authorize_cluster(ctx, AclOperation.ALTER):
        return m.AlterPartitionReassignmentsResponse(
            throttle_time_ms=0, error_code=ErrorCode.CLUSTER_AUTHORIZATION_FAILED,
            error_message="Cluster authorization failed.")
    # A partition named twice counts once, with its last target (Kafka builds a map).
    targets: dict[TopicPartition, list[int] | None] = {}
    for t in request.topics:
        for p in t.partitions:
            targets[(t.name, p.partition_index)] = p.replicas
    outcome = ctx.services.admin.alter_partition_reassignments(
        targets, timeout_ms=request.timeout_ms, now_ms=ctx.now_ms)

    def respond(errors: dict[TopicPartition, KafkaError | None],
                ) -> m.AlterPartitionReassignmentsResponse:
        by_topic: dict[str, list[m.ReassignablePartitionResponse]] = {}
        for (topic, partition), error in errors.items():
            by_topic.setdefault(topic, []).append(m.ReassignablePartitionResponse(
                partition_index=partition,
                error_code=error.code if error else ErrorCode.NONE,
                error_message=error.message if error else None))
        return m.AlterPartitionReassignmentsResponse(
            throttle_time_ms=0,
            error_code=ErrorCode.NONE,
            error_message="",  # Kafka leaves the field at its default, the empty string
            responses=[m.ReassignableTopicResponse(name=t, partitions=ps)
                       for t, ps in by_topic.items()],
        )

    return when_ready(outcome, respond)
