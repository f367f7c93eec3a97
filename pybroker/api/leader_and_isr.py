"""LeaderAndIsr (4): the controller tells this broker which partitions to lead or follow.

ZooKeeper mode only. The fencing and the per-partition decisions are the control-request
handler's (:mod:`pybroker.cluster.control`); this turns the request (v0-1 ungrouped, v2+ by
topic, v5+ with topic ids) into its values and its answer into the response of that version.
Topics new to this broker have their configs read before the request is applied (an answer
that waits for ZooKeeper).
"""

from __future__ import annotations

import logging
import time
import uuid

from protocol.errors import ErrorCode
from protocol.messages import ApiKey, leader_and_isr_request as req, leader_and_isr_response as m
from pybroker.api.context import RequestContext
from pybroker.api.registry import ZOOKEEPER, Response, api
from pybroker.cluster.control import LeaderAndIsrPartition
from pybroker.kernel.outcome import then
from pybroker.metadata.model import PartitionRecord
from pybroker.security.acl import AclOperation

ZERO_UUID = uuid.UUID(int=0)
#: Kafka's state.change.logger
state_change_log = logging.getLogger("pybroker.state.change")


def _partitions(request: req.LeaderAndIsrRequest, version: int
                ) -> list[tuple[uuid.UUID, req.LeaderAndIsrPartitionState]]:
    if version < 2:
        return [(ZERO_UUID, p) for p in request.ungrouped_partition_states]
    out = []
    for t in request.topic_states:
        for p in t.partition_states:
            p.topic_name = t.topic_name
            out.append((t.topic_id if version >= 5 else ZERO_UUID, p))
    return out


@api(ApiKey.LEADER_AND_ISR, 0, 7, modes=frozenset({ZOOKEEPER}))
def handle(ctx: RequestContext, request: req.LeaderAndIsrRequest,
           ) -> Response[m.LeaderAndIsrResponse]:
    if not ctx.services.acls.authorize_cluster(ctx, AclOperation.CLUSTER_ACTION):
        return m.LeaderAndIsrResponse(error_code=ErrorCode.CLUSTER_AUTHORIZATION_FAILED)
    control = ctx.services.control
    assert control is not None, "LeaderAndIsr is served only in ZooKeeper mode"
    version = ctx.api_version
    states = _partitions(request, version)
    partitions = [LeaderAndIsrPartition(
        p.topic_name, topic_id,
        PartitionRecord(p.partition_index, tuple(p.replicas), tuple(p.isr), p.leader,
                        p.leader_epoch, p.partition_epoch,
                        p.leader_recovery_state if version >= 6 else 0,
                        tuple(p.adding_replicas) if version >= 3 else (),
                        tuple(p.removing_replicas) if version >= 3 else ()),
        bool(p.is_new)) for topic_id, p in states]

    broker_id = ctx.services.broker_id
    state_change_log.info("[Broker id=%d] Handling LeaderAndIsr request correlationId %d from "
                          "controller %d epoch %d for %d partitions", broker_id,
                          ctx.correlation_id, request.controller_id, request.controller_epoch,
                          len(partitions))
    started = time.monotonic()

    def apply(_loaded: object = None) -> m.LeaderAndIsrResponse:
        error, results = control.leader_and_isr(
            request.controller_id, request.controller_epoch,
            request.broker_epoch if version >= 2 else -1, partitions, ctx.now_ms)
        state_change_log.info("[Broker id=%d] Finished LeaderAndIsr request in %dms "
                              "correlationId %d from controller %d for %d partitions%s",
                              broker_id, (time.monotonic() - started) * 1000,
                              ctx.correlation_id, request.controller_id, len(partitions),
                              f" ({error.name})" if error else "")
        return _response(version, states, error, results)

    # topics new to this broker have their configs read first, so their logs open with them
    loading = control.load_topic_configs(control.topics_to_load(partitions))
    return apply() if loading is None else then(loading, apply)


def _response(version: int,
              states: list[tuple[uuid.UUID, req.LeaderAndIsrPartitionState]],
              error: ErrorCode, results: dict[tuple[str, int], ErrorCode],
              ) -> m.LeaderAndIsrResponse:
    if error:
        # as Kafka: the request-wide error, and every partition with it too
        results = {(p.topic_name, p.partition_index): error for _, p in states}
    if version < 5:
        return m.LeaderAndIsrResponse(error_code=error, partition_errors=[
            m.LeaderAndIsrPartitionError(topic_name=t, partition_index=i, error_code=e)
            for (t, i), e in results.items()])
    ids = {p.topic_name: topic_id for topic_id, p in states}
    by_topic: dict[str, list[m.LeaderAndIsrPartitionError]] = {}
    for (topic, index), e in results.items():
        by_topic.setdefault(topic, []).append(
            m.LeaderAndIsrPartitionError(partition_index=index, error_code=e))
    return m.LeaderAndIsrResponse(
        error_code=error if error else ErrorCode.NONE,
        topics=[m.LeaderAndIsrTopicError(topic_id=ids[t], partition_errors=ps)
                for t, ps in by_topic.items()])
