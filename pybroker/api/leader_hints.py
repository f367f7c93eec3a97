"""Where a partition's leader is now, for the answers that tell a client it asked the wrong
broker (KIP-951: Fetch v16+ and Produce v10+ carry the current leader and its endpoint, so the
client can retry there without a Metadata round trip first)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pybroker.api.context import RequestContext

if TYPE_CHECKING:
    from pybroker.cluster.metadata_cache import BrokerEndpoint

NO_LEADER = -1


def current_leader(ctx: RequestContext, topic: str, partition: int) -> tuple[int, int]:
    """The leader and leader epoch this broker knows for a partition (Kafka's
    ``getCurrentLeader``): the hosted partition's own, else the metadata cache's, else none."""
    hosted = ctx.services.replica_manager.get_partition(topic, partition)
    if hosted is not None and hosted.log is not None:
        return hosted.leader_id, hosted.leader_epoch
    info = ctx.services.metadata_cache.partition(topic, partition)
    if info is not None:
        return info.leader, info.leader_epoch
    return NO_LEADER, -1


def leader_endpoint(ctx: RequestContext, leader: int) -> BrokerEndpoint | None:
    """The leader's endpoint on the listener the request came in on, if it is known."""
    if leader == NO_LEADER:
        return None
    return ctx.services.metadata_cache.brokers_for(ctx.listener).get(leader)
