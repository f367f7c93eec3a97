"""What the topic-changing handlers share of the controller mutation quota (KIP-599)."""

from __future__ import annotations

from pybroker.api.context import RequestContext
from pybroker.quota.manager import MutationQuota


def mutation_quota(ctx: RequestContext, strict_since: int) -> MutationQuota:
    """The client's controller mutation quota for this request: strict from ``strict_since``
    (its refusals are THROTTLING_QUOTA_EXCEEDED), permissive below (Kafka's ``newQuotaFor``)."""
    return ctx.services.quotas.controller_mutation.new_quota(
        ctx.principal.name, ctx.client_id or "", strict=ctx.api_version >= strict_since)


def throttled(ctx: RequestContext, mutations: MutationQuota) -> int:
    """The throttle time the mutations earned, which the response carries and the connection
    then waits out."""
    throttle_ms = mutations.throttle_ms()
    if throttle_ms:
        ctx.throttle_ms = max(ctx.throttle_ms, throttle_ms)
    return throttle_ms
