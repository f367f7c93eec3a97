"""DescribeLogDirs (35): each log dir with the size of the partition logs it holds.

As Kafka's ``ReplicaManager.describeLogDirs``: every dir of ``log.dirs`` is listed by its
absolute path, even when it holds none of the partitions asked about; a partition's size is the
sum of its segment files; partitions asked about that are not hosted are left out, and so is a
topic with none left. A partition being moved into a dir (AlterReplicaLogDirs) is listed there
too, as a future replica (``is_future_key``) whose offset lag is how far its copy is behind the
current log's end. A dir that cannot be used answers KAFKA_STORAGE_ERROR and nothing else.
v4 adds the size and the free space of the dir's file system.
"""

from __future__ import annotations

from protocol.errors import ErrorCode
from protocol.messages import (
    ApiKey,
    describe_log_dirs_request as req,
    describe_log_dirs_response as m,
)
from pybroker.api.context import RequestContext
from pybroker.api.registry import api
from pybroker.cluster.replica_log_dirs import LogDirDescription
from pybroker.security.acl import AclOperation


def _result(d: LogDirDescription) -> m.DescribeLogDirsResult:
    result = m.DescribeLogDirsResult(log_dir=str(d.path.absolute()), error_code=d.error)
    if d.error:
        return result
    by_topic: dict[str, list[m.DescribeLogDirsPartition]] = {}
    for p in d.partitions:
        by_topic.setdefault(p.topic, []).append(m.DescribeLogDirsPartition(
            partition_index=p.partition, partition_size=p.size, offset_lag=p.offset_lag,
            is_future_key=p.is_future))
    result.topics = [m.DescribeLogDirsTopic(name=t, partitions=ps) for t, ps in by_topic.items()]
    result.total_bytes = d.total_bytes
    result.usable_bytes = d.usable_bytes
    return result


@api(ApiKey.DESCRIBE_LOG_DIRS, 0, 4)
def handle(ctx: RequestContext, request: req.DescribeLogDirsRequest,
           ) -> m.DescribeLogDirsResponse:
    if not ctx.services.acls.authorize_cluster(ctx, AclOperation.DESCRIBE):
        return m.DescribeLogDirsResponse(throttle_time_ms=0,
                                         error_code=ErrorCode.CLUSTER_AUTHORIZATION_FAILED)
    wanted = None if request.topics is None else {
        (t.topic, p) for t in request.topics for p in t.partitions
    }
    return m.DescribeLogDirsResponse(
        throttle_time_ms=0,
        error_code=ErrorCode.NONE,
        results=[_result(d) for d in ctx.services.replica_manager.describe_log_dirs(wanted)],
    )
