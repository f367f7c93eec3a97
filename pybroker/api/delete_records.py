"""DeleteRecords (21): move partitions' log start offsets forward (-1 = the high watermark).

The replica manager decides (the leader, the high watermark bound, the cleanup policy) and
checkpoints the new log start offsets before the answer leaves."""

from __future__ import annotations

from protocol.errors import ErrorCode
from protocol.messages import ApiKey, delete_records_request as req, delete_records_response as m
from pybroker.api.context import RequestContext
from pybroker.api.registry import api
from pybroker.security.acl import AclOperation, ResourceType


@api(ApiKey.DELETE_RECORDS, 0, 2)
def handle(ctx: RequestContext, request: req.DeleteRecordsRequest) -> m.DeleteRecordsResponse:
    deletable = ctx.services.acls.authorized(ctx, AclOperation.DELETE, ResourceType.TOPIC,
                                             (t.name for t in request.topics))
    wanted = {(t.name, p.partition_index): p.offset for t in request.topics for p in t.partitions
              if t.name in deletable}
    results = ctx.services.replica_manager.delete_records(wanted, ctx.now_ms)
    results.update({(t.name, p.partition_index): (-1, ErrorCode.TOPIC_AUTHORIZATION_FAILED)
                    for t in request.topics for p in t.partitions if t.name not in deletable})
    topics = []
    for t in request.topics:
        partitions = []
        for p in t.partitions:
            low, error = results[(t.name, p.partition_index)]
            partitions.append(m.DeleteRecordsPartitionResult(
                partition_index=p.partition_index, low_watermark=low, error_code=error))
        topics.append(m.DeleteRecordsTopicResult(name=t.name, partitions=partitions))
    return m.DeleteRecordsResponse(throttle_time_ms=0, topics=topics)
