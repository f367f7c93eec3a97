"""AlterReplicaLogDirs (34): move partitions' replicas on this broker to other log dirs.

Kafka's ``handleAlterReplicaLogDirsRequest``: each partition named under a dir (the dir's
absolute path, as DescribeLogDirs reports it; a partition named twice takes the last) goes to
the replica manager, which answers at once per partition: NONE when the move started, is going
on, or the partition is in that dir already; LOG_DIR_NOT_FOUND, KAFKA_STORAGE_ERROR,
REPLICA_NOT_AVAILABLE (not hosted here yet: it will be created in that dir),
UNKNOWN_TOPIC_OR_PARTITION or INVALID_TOPIC_EXCEPTION otherwise. The copy itself goes on after
the answer; DescribeLogDirs shows it as a future replica until it is done. The answer lists
topics and partitions in the order the request first named them.
"""

from __future__ import annotations

from protocol.errors import ErrorCode
from protocol.messages import (
    ApiKey,
    alter_replica_log_dirs_request as req,
    alter_replica_log_dirs_response as m,
)
from pybroker.api.context import RequestContext
from pybroker.api.registry import api
from pybroker.security.acl import AclOperation


@api(ApiKey.ALTER_REPLICA_LOG_DIRS, 0, 2)
def handle(ctx: RequestContext, request: req.AlterReplicaLogDirsRequest,
           ) -> m.AlterReplicaLogDirsResponse:
    wanted: dict[tuple[str, int], str] = {}
    for d in request.dirs:
        for topic in d.topics:
            for partition in topic.partitions:
                wanted[(topic.name, partition)] = d.path
    cache = ctx.services.metadata_cache
    if ctx.services.acls.authorize_cluster(ctx, AclOperation.ALTER):
        results = ctx.services.replica_manager.alter_replica_log_dirs(
            wanted, ctx.now_ms, known=lambda t, p: cache.partition(t, p) is not None)
    else:
        results = dict.fromkeys(wanted, ErrorCode.CLUSTER_AUTHORIZATION_FAILED)
    by_topic: dict[str, list[m.AlterReplicaLogDirPartitionResult]] = {}
    for (topic_name, partition), error in results.items():
        by_topic.setdefault(topic_name, []).append(
            m.AlterReplicaLogDirPartitionResult(partition_index=partition, error_code=error))
    return m.AlterReplicaLogDirsResponse(
        throttle_time_ms=0,
        results=[m.AlterReplicaLogDirTopicResult(topic_name=t, partitions=ps)
                 for t, ps in by_topic.items()])
