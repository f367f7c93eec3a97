"""UpdateMetadata (6): the controller's view of the live brokers and of partition leadership.

ZooKeeper mode only; it is how a broker learns the controller id, every live broker's endpoints
and, for the partitions named, leaders, ISRs, offline replicas and deletions (leader -2)."""

from __future__ import annotations

import uuid

from protocol.errors import ErrorCode
from protocol.messages import ApiKey, update_metadata_request as req, update_metadata_response as m
from pybroker.api.context import RequestContext
from pybroker.api.registry import ZOOKEEPER, api
from pybroker.cluster.metadata_cache import BrokerNode, PartitionInfo, PartitionUpdate
from pybroker.security.acl import AclOperation

ZERO_UUID = uuid.UUID(int=0)


def _brokers(request: req.UpdateMetadataRequest, version: int) -> list[BrokerNode]:
    nodes = []
    for b in request.live_brokers:
        if version == 0:
            endpoints: tuple[tuple[str, str, int], ...] = (("PLAINTEXT", b.v0_host, b.v0_port),)
        else:
            endpoints = tuple(
                (e.listener if version >= 3 else "PLAINTEXT", e.host, e.port) for e in b.endpoints)
        nodes.append(BrokerNode(b.id, endpoints, b.rack if version >= 2 else None))
    return nodes


def _partitions(request: req.UpdateMetadataRequest, version: int) -> list[PartitionUpdate]:
    if version < 5:
        states = [(ZERO_UUID, p.topic_name, p) for p in request.ungrouped_partition_states]
    else:
        states = [(t.topic_id if version >= 7 else ZERO_UUID, t.topic_name, p)
                  for t in request.topic_states for p in t.partition_states]
    return [PartitionUpdate(topic, topic_id, PartitionInfo(
        p.partition_index, p.leader, p.leader_epoch, tuple(p.replicas), tuple(p.isr),
        tuple(p.offline_replicas) if version >= 4 else (), p.zk_version))
        for topic_id, topic, p in states]


@api(ApiKey.UPDATE_METADATA, 0, 8, modes=frozenset({ZOOKEEPER}))
def handle(ctx: RequestContext, request: req.UpdateMetadataRequest) -> m.UpdateMetadataResponse:
    if not ctx.services.acls.authorize_cluster(ctx, AclOperation.CLUSTER_ACTION):
        return m.UpdateMetadataResponse(error_code=ErrorCode.CLUSTER_AUTHORIZATION_FAILED)
    control = ctx.services.control
    assert control is not None, "UpdateMetadata is served only in ZooKeeper mode"
    version = ctx.api_version
    error = control.update_metadata(
        request.controller_id, request.controller_epoch,
        request.broker_epoch if version >= 5 else -1,
        _brokers(request, version), _partitions(request, version))
    return m.UpdateMetadataResponse(error_code=error)
