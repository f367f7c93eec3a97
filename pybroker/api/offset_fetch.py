"""OffsetFetch (9): committed offsets of one group (v0-7) or several (v8+). The ACL checks
are the handler's; the group's status and the offsets come from the group service
(``fetch_offsets``)."""

from __future__ import annotations

from collections import defaultdict
from typing import TypeAlias

from protocol.errors import ErrorCode
from protocol.messages import ApiKey, offset_fetch_request as req, offset_fetch_response as m
from pybroker.api.context import RequestContext
from pybroker.api.registry import api
from pybroker.security.acl import AclOperation, ResourceType

#: (topic, partition, offset, leader epoch, metadata, error) - one partition's answer
FetchedOffset: TypeAlias = tuple[str, int, int, int, str, ErrorCode]


def _fetch(ctx: RequestContext, group_id: str, topics: list[tuple[str, list[int]]] | None,
           require_stable: bool, member: tuple[str | None, int] = (None, -1),
           ) -> tuple[ErrorCode, list[FetchedOffset]]:
    """``topics``: [(name, [partitions])] or None for all; returns (group error, results).

    The group needs DESCRIBE; so does each topic, whose offsets are otherwise hidden (all
    topics) or answered TOPIC_AUTHORIZATION_FAILED (named ones)."""
    groups = ctx.services.groups
    acls = ctx.services.acls
    if not acls.authorize(ctx, AclOperation.DESCRIBE, ResourceType.GROUP, group_id):
        error = ErrorCode.GROUP_AUTHORIZATION_FAILED
        # v0 names the error on every partition; from v1 Kafka answers through the group
        # coordinator's path, whose refused group has no partitions (nor, before v2, an error)
        return error, ([(name, p, -1, -1, "", error) for name, ps in (topics or []) for p in ps]
                       if ctx.api_version == 0 else [])
    denied: list[FetchedOffset] = []
    if topics is None:
        partitions = None
    else:
        allowed = acls.authorized(ctx, AclOperation.DESCRIBE, ResourceType.TOPIC,
                                  (name for name, _ in topics))
        denied = [(name, p, -1, -1, "", ErrorCode.TOPIC_AUTHORIZATION_FAILED)
                  for name, ps in topics if name not in allowed for p in ps]
        partitions = [(name, p) for name, ps in topics if name in allowed for p in ps]
    error, fetched = groups.fetch_offsets(group_id, partitions, require_stable=require_stable,
                                          member=member)
    if error:
        return error, [(name, p, -1, -1, "", error) for name, ps in (topics or []) for p in ps]
    results: list[FetchedOffset] = list(fetched)
    if topics is None and acls.enabled:
        allowed = acls.authorized(ctx, AclOperation.DESCRIBE, ResourceType.TOPIC,
                                  {r[0] for r in results})
        results = [r for r in results if r[0] in allowed]
    return ErrorCode.NONE, results + denied


def _by_topic(results: list[FetchedOffset]) -> dict[str, list[FetchedOffset]]:
    grouped: dict[str, list[FetchedOffset]] = defaultdict(list)
    for r in results:
        grouped[r[0]].append(r)
    return grouped


@api(ApiKey.OFFSET_FETCH, 0, 9)
def handle(ctx: RequestContext, request: req.OffsetFetchRequest) -> m.OffsetFetchResponse:
    v = ctx.api_version
    require_stable = bool(request.require_stable) if v >= 7 else False
    if v >= 8:
        out = []
        for g in request.groups:
            topics = None if g.topics is None else [(t.name, t.partition_indexes) for t in g.topics]
            member = (g.member_id, g.member_epoch) if v >= 9 else (None, -1)
            error, results = _fetch(ctx, g.group_id, topics, require_stable, member)
            out.append(m.OffsetFetchResponseGroup(
                group_id=g.group_id, error_code=error,
                topics=[m.OffsetFetchResponseTopics(name=name, partitions=[
                    m.OffsetFetchResponsePartitions(
                        partition_index=r[1], committed_offset=r[2], committed_leader_epoch=r[3],
                        metadata=r[4], error_code=r[5]) for r in rs])
                    for name, rs in _by_topic(results).items()]))
        return m.OffsetFetchResponse(throttle_time_ms=0, groups=out)

    # v0-1 cannot ask for "all topics"; v2+ may send null.
    topics = None if request.topics is None else [(t.name, t.partition_indexes)
                                                 for t in request.topics]
    error, results = _fetch(ctx, request.group_id, topics, require_stable)
    if v < 2 and error:
        # No top-level error before v2: every partition carries it.
        results = [(r[0], r[1], -1, -1, "", error) for r in results]
    return m.OffsetFetchResponse(
        throttle_time_ms=0,
        error_code=error if v >= 2 else ErrorCode.NONE,
        topics=[m.OffsetFetchResponseTopic(name=name, partitions=[
            m.OffsetFetchResponsePartition(
                partition_index=r[1], committed_offset=r[2], committed_leader_epoch=r[3],
                metadata=r[4], error_code=r[5]) for r in rs])
            for name, rs in _by_topic(results).items()],
    )
