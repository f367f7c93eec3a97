"""AlterPartition (56): a partition leader asks the controller to change its ISR (KIP-497;
Kafka 2.7+'s path, ZooKeeper mode here). Answered by the active controller, NOT_CONTROLLER
elsewhere; each partition gets the state now recorded, or why not."""

from __future__ import annotations

from typing import Any

from protocol.errors import ErrorCode
from protocol.messages import (
    ApiKey,
    alter_partition_request as req,
    alter_partition_response as m,
)
from pybroker.api.context import RequestContext
from pybroker.api.registry import ZOOKEEPER, Response, api
from pybroker.kernel.outcome import when_ready
from pybroker.kernel.types import IsrChange
from pybroker.security.acl import AclOperation


def _changes(request: req.AlterPartitionRequest, version: int
             ) -> dict[tuple[Any, int], IsrChange]:
    out: dict[tuple[Any, int], IsrChange] = {}
    for t in request.topics:
        topic: Any = t.topic_id if version >= 2 else t.topic_name
        for p in t.partitions:
            if version >= 3:
                isr = tuple(b.broker_id for b in p.new_isr_with_epochs)
                epochs: dict[int, int] | None = {b.broker_id: b.broker_epoch
                                                 for b in p.new_isr_with_epochs}
            else:
                isr, epochs = tuple(p.new_isr), None
            out[(topic, p.partition_index)] = IsrChange(
                p.leader_epoch, isr, p.leader_recovery_state if version >= 1 else 0,
                p.partition_epoch, epochs)
    return out


@api(ApiKey.ALTER_PARTITION, 0, 3, modes=frozenset({ZOOKEEPER}))
def handle(ctx: RequestContext, request: req.AlterPartitionRequest,
           ) -> Response[m.AlterPartitionResponse]:
    if not ctx.services.acls.authorize_cluster(ctx, AclOperation.CLUSTER_ACTION):
        return m.AlterPartitionResponse(throttle_time_ms=0,
                                        error_code=ErrorCode.CLUSTER_AUTHORIZATION_FAILED)
    controller = ctx.services.controller
    if controller is None or not controller.is_active:
        return m.AlterPartitionResponse(throttle_time_ms=0, error_code=ErrorCode.NOT_CONTROLLER)
    version = ctx.api_version

    def respond(outcome: tuple[ErrorCode, dict[tuple[Any, int], Any]],
                ) -> m.AlterPartitionResponse:
        error, results = outcome
        by_topic: dict[Any, list[m.PartitionData]] = {}
        for (topic, index), result in results.items():
            data = m.PartitionData(partition_index=index)
            if isinstance(result, ErrorCode):
                data.error_code = (ErrorCode.OPERATION_NOT_ATTEMPTED
                                   if result == ErrorCode.INELIGIBLE_REPLICA and version < 2
                                   else result)
            else:
                data.error_code = ErrorCode.NONE
                data.leader_id = result.leader
                data.leader_epoch = result.leader_epoch
                data.isr = list(result.isr)
                data.leader_recovery_state = int(result.leader_recovery_state)
                data.partition_epoch = result.partition_epoch
            by_topic.setdefault(topic, []).append(data)
        return m.AlterPartitionResponse(
            throttle_time_ms=0, error_code=error,
            topics=[m.TopicData(topic_id=t, partitions=ps) if version >= 2
                    else m.TopicData(topic_name=t, partitions=ps)
                    for t, ps in by_topic.items()])

    return when_ready(controller.alter_partition(request.broker_id, request.broker_epoch,
                                                 _changes(request, version)), respond)
