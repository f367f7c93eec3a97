"""ElectLeaders (43): preferred (v0+) or unclean (v1+) leader elections.

Decided by the controller, through the admin seam, as Kafka's controller decides:
a partition led by its preferred replica (PREFERRED), or by a live broker (UNCLEAN), answers
ELECTION_NOT_NEEDED; one that does not exist, UNKNOWN_TOPIC_OR_PARTITION. With
``topic_partitions`` null every partition is considered and, as in Kafka, only those for which
an election was held or failed are reported.
"""

from __future__ import annotations

from protocol.errors import ErrorCode, KafkaError
from protocol.messages import ApiKey, elect_leaders_request as req, elect_leaders_response as m
from pybroker.admin import PREFERRED, UNCLEAN
from pybroker.api.context import RequestContext
from pybroker.api.registry import Response, api
from pybroker.kernel.outcome import when_ready
from pybroker.kernel.types import TopicPartition
from pybroker.security.acl import AclOperation


def _group(results: list[tuple[TopicPartition, tuple[ErrorCode, str | None]]],
           ) -> list[m.ReplicaElectionResult]:
    by_topic: dict[str, list[m.PartitionResult]] = {}
    for (topic, partition), (code, message) in results:
        by_topic.setdefault(topic, []).append(
            m.PartitionResult(partition_id=partition, error_code=code, error_message=message))
    return [m.ReplicaElectionResult(topic=t, partition_result=ps) for t, ps in by_topic.items()]


@api(ApiKey.ELECT_LEADERS, 0, 2)
def handle(ctx: RequestContext, request: req.ElectLeadersRequest,
           ) -> Response[m.ElectLeadersResponse]:
    election_type = PREFERRED if ctx.api_version == 0 else request.election_type
    requested = request.topic_partitions
    if election_type not in (PREFERRED, UNCLEAN):
        # Kafka fails the whole request (its ElectionType lookup throws): every partition named
        # gets UNKNOWN_SERVER_ERROR without a message, and so does the request.
        failed: list[tuple[TopicPartition, tuple[ErrorCode, str | None]]] = [
            ((t.topic, p), (ErrorCode.UNKNOWN_SERVER_ERROR, None))
            for t in requested or () for p in t.partitions]
        return m.ElectLeadersResponse(throttle_time_ms=0, error_code=ErrorCode.UNKNOWN_SERVER_ERROR,
                                      replica_election_results=_group(failed))
    if not ctx.services.acls.authorize_cluster(ctx, AclOperation.ALTER):
        denied: list[tuple[TopicPartition, tuple[ErrorCode, str | None]]] = [
            ((t.topic, p), (ErrorCode.CLUSTER_AUTHORIZATION_FAILED, None))
            for t in requested or () for p in t.partitions]
        return m.ElectLeadersResponse(throttle_time_ms=0,
                                      error_code=ErrorCode.CLUSTER_AUTHORIZATION_FAILED,
                                      replica_election_results=_group(denied))
    if requested is None:
        topics = ctx.services.metadata_cache.topics
        partitions = [(t, p) for t in sorted(topics) for p in sorted(topics[t].partitions)]
    else:
        partitions = list(dict.fromkeys((t.topic, p) for t in requested for p in t.partitions))
    outcome = ctx.services.admin.elect_leaders(partitions, election_type,
                                               timeout_ms=request.timeout_ms, now_ms=ctx.now_ms)

    def respond(outcomes: dict[TopicPartition, KafkaError | None]) -> m.ElectLeadersResponse:
        results = [
            (tp, (ErrorCode.NONE, None) if e is None else (e.code, e.message))
            for tp, e in outcomes.items()
            if requested is not None or e is None or e.code != ErrorCode.ELECTION_NOT_NEEDED
        ]
        return m.ElectLeadersResponse(throttle_time_ms=0, error_code=ErrorCode.NONE,
                                      replica_election_results=_group(results))

    return when_ready(outcome, respond)
