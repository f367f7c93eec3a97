"""StopReplica (5): stop hosting partitions, deleting them or not (ZooKeeper mode only)."""

from __future__ import annotations

from protocol.errors import ErrorCode
from protocol.messages import ApiKey, stop_replica_request as req, stop_replica_response as m
from pybroker.api.context import RequestContext
from pybroker.api.registry import ZOOKEEPER, api
from pybroker.cluster.control import StopReplicaPartition
from pybroker.security.acl import AclOperation

NO_EPOCH = -1


def _partitions(request: req.StopReplicaRequest, version: int) -> list[StopReplicaPartition]:
    if version == 0:
        return [StopReplicaPartition(p.topic_name, p.partition_index, NO_EPOCH,
                                     bool(request.delete_partitions))
                for p in request.ungrouped_partitions]
    if version < 3:
        return [StopReplicaPartition(t.name, i, NO_EPOCH, bool(request.delete_partitions))
                for t in request.topics for i in t.partition_indexes]
    return [StopReplicaPartition(t.topic_name, p.partition_index, p.leader_epoch,
                                 bool(p.delete_partition))
            for t in request.topic_states for p in t.partition_states]


@api(ApiKey.STOP_REPLICA, 0, 4, modes=frozenset({ZOOKEEPER}))
def handle(ctx: RequestContext, request: req.StopReplicaRequest) -> m.StopReplicaResponse:
    if not ctx.services.acls.authorize_cluster(ctx, AclOperation.CLUSTER_ACTION):
        return m.StopReplicaResponse(error_code=ErrorCode.CLUSTER_AUTHORIZATION_FAILED)
    control = ctx.services.control
    assert control is not None, "StopReplica is served only in ZooKeeper mode"
    version = ctx.api_version
    partitions = _partitions(request, version)
    error, results = control.stop_replica(
        request.controller_id, request.controller_epoch,
        request.broker_epoch if version >= 1 else -1, partitions, ctx.now_ms)
    if error:
        results = {(p.topic, p.partition): error for p in partitions}
    return m.StopReplicaResponse(error_code=error, partition_errors=[
        m.StopReplicaPartitionError(topic_name=t, partition_index=i, error_code=e)
        for (t, i), e in results.items()])
