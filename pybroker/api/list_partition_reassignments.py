"""ListPartitionReassignments (46): the reassignments in progress, of some partitions or of all.

On the embedded single node reassignments complete as they are accepted, so the answer is
always an empty list; in ZooKeeper mode the controller lists the ones in progress. Partitions
named that do not exist are left out without an error, as Kafka's controller leaves them out.
"""

from __future__ import annotations

from protocol.errors import ErrorCode, KafkaError
from protocol.messages import (
    ApiKey,
    list_partition_reassignments_request as req,
    list_partition_reassignments_response as m,
)
from pybroker.api.context import RequestContext
from pybroker.api.registry import Response, api
from pybroker.kernel.outcome import when_ready
from pybroker.kernel.types import Reassignment, TopicPartition
from pybroker.security.acl import AclOperation


@api(ApiKey.LIST_PARTITION_REASSIGNMENTS, 0, 0)
def handle(ctx: RequestContext, request: req.ListPartitionReassignmentsRequest,
           ) -> Response[m.ListPartitionReassignmentsResponse]:
    if not ctx.services.acls.authorize_cluster(ctx, AclOperation.DESCRIBE):
        return m.ListPartitionReassignmentsResponse(
            throttle_time_ms=0, error_code=ErrorCode.CLUSTER_AUTHORIZATION_FAILED,
            error_message="Cluster authorization failed.")
    partitions = None if request.topics is None else [
        (t.name, p) for t in request.topics for p in t.partition_indexes
    ]

    def respond(ongoing: dict[TopicPartition, Reassignment] | KafkaError,
                ) -> m.ListPartitionReassignmentsResponse:
        if isinstance(ongoing, KafkaError):  # not the controller (ZooKeeper mode)
            return m.ListPartitionReassignmentsResponse(
                throttle_time_ms=0, error_code=ongoing.code, error_message=ongoing.message)
        by_topic: dict[str, list[m.OngoingPartitionReassignment]] = {}
        for (topic, partition), r in sorted(ongoing.items()):
            by_topic.setdefault(topic, []).append(m.OngoingPartitionReassignment(
                partition_index=partition, replicas=list(r.replicas),
                adding_replicas=list(r.adding), removing_replicas=list(r.removing)))
        return m.ListPartitionReassignmentsResponse(
            throttle_time_ms=0,
            error_code=ErrorCode.NONE,
            error_message="",  # Kafka leaves the field at its default, the empty string
            topics=[m.OngoingTopicReassignment(name=t, partitions=ps)
                    for t, ps in by_topic.items()],
        )

    return when_ready(ctx.services.admin.list_partition_reassignments(partitions), respond)
