"""FindCoordinator (10): where a group's or a transactional id's coordinator is (batched keys
from v4).

A group's coordinator is the leader of its ``__consumer_offsets`` partition, a transactional
id's (key type 1) the leader of its ``__transaction_state`` partition, both computed as Kafka
does; like Kafka, the first FindCoordinator creates the topic. Any key is looked up, the empty
one included (it maps to a partition like any other). v5 only allows TRANSACTION_ABORTABLE
(KIP-890) in answers; v6 adds share groups (key type 2, KIP-932), which pybroker, like Kafka 3.9
without a share coordinator, answers COORDINATOR_NOT_AVAILABLE (INVALID_REQUEST before v6).

Error messages are Kafka's: before v4 the response carries the error's default message (the
error's name for NONE); from v4 a coordinator entry carries none, except when the whole
request failed (an unknown key type), where every key gets the error's default message.
"""

from __future__ import annotations

from protocol.errors import ErrorCode
from protocol.messages import (
    ApiKey,
    find_coordinator_request as req,
    find_coordinator_response as m,
)
from pybroker.api.acl_requests import AUTHORIZATION_MESSAGES
from pybroker.api.context import RequestContext
from pybroker.api.registry import Response, api
from pybroker.coordinator.partitioning import partition_for
from pybroker.kernel.outcome import gather, when_ready
from pybroker.metadata.topics import OFFSETS_TOPIC, TRANSACTION_STATE_TOPIC
from pybroker.security.acl import AclOperation, ResourceType

GROUP = 0
TRANSACTION = 1
SHARE = 2

#: Kafka's default messages (``Errors.message()``) for the errors answered here
MESSAGES = {
    ErrorCode.NONE: "NONE",
    ErrorCode.COORDINATOR_NOT_AVAILABLE: "The coordinator is not available.",
    ErrorCode.INVALID_REQUEST: (
        "This most likely occurs because of a request being malformed by the client library "
        "or the message was sent to an incompatible broker. See the broker logs for more "
        "details."),
    **AUTHORIZATION_MESSAGES,
}

NO_NODE = (-1, "", -1)


def _lookup(ctx: RequestContext, key: str, key_type: int, waits: set[str] | None,
            ) -> tuple[ErrorCode, tuple[int, str, int]]:
    """The key's coordinator; an internal topic still being created (or led) is added to
    ``waits`` when given (the embedded node answers once it is led)."""
    services = ctx.services
    acls = services.acls
    if key_type == GROUP and not acls.authorize(ctx, AclOperation.DESCRIBE, ResourceType.GROUP,
                                                key):
        return ErrorCode.GROUP_AUTHORIZATION_FAILED, NO_NODE
    if key_type == TRANSACTION and not acls.authorize(ctx, AclOperation.DESCRIBE,
                                                      ResourceType.TRANSACTIONAL_ID, key):
        return ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, NO_NODE
    if key_type == SHARE and ctx.api_version >= 6 and not acls.authorize_cluster(
            ctx, AclOperation.CLUSTER_ACTION):
        return ErrorCode.CLUSTER_AUTHORIZATION_FAILED, NO_NODE
    if key_type == SHARE:
        # Share groups exist from v6 (before it Kafka answers INVALID_REQUEST); Kafka 3.9 has
        # no share coordinator to name
        if ctx.api_version < 6:
            return ErrorCode.INVALID_REQUEST, NO_NODE
        return ErrorCode.COORDINATOR_NOT_AVAILABLE, NO_NODE
    if key_type == TRANSACTION:
        transactions = services.transactions
        if transactions is None:
            return ErrorCode.COORDINATOR_NOT_AVAILABLE, NO_NODE
        name = TRANSACTION_STATE_TOPIC
        created = transactions.ensure_topic(ctx.now_ms) == ErrorCode.NONE
    else:
        name = OFFSETS_TOPIC
        created = services.groups.ensure_offsets_topic(ctx.now_ms) == ErrorCode.NONE
    cache = services.metadata_cache
    topic = cache.topic(name) if created else None
    info = (topic.partitions.get(partition_for(key, len(topic.partitions)))
            if topic is not None else None)
    node = cache.brokers_for(ctx.listener).get(info.leader) if info is not None else None
    if node is None:
        if waits is not None and topic is None:  # being created (not merely leaderless)
            waits.add(name)
        return ErrorCode.COORDINATOR_NOT_AVAILABLE, NO_NODE
    return ErrorCode.NONE, (node.node_id, node.host, node.port)


@api(ApiKey.FIND_COORDINATOR, 0, 6)
def handle(ctx: RequestContext, request: req.FindCoordinatorRequest,
           ) -> Response[m.FindCoordinatorResponse]:
    admin = ctx.services.admin
    waits: set[str] | None = set() if admin.auto_create_timeout_ms > 0 else None
    answer = _answer(ctx, request, waits)
    if not waits:
        return answer
    # the embedded node answers once the internal topics it creates are led, as it always
    # has (Kafka answers COORDINATOR_NOT_AVAILABLE meanwhile, and clients ask again)
    led = gather([admin.wait_until_led(name, admin.auto_create_timeout_ms)
                  for name in sorted(waits)])
    return when_ready(led, lambda _led: _answer(ctx, request, None))


def _answer(ctx: RequestContext, request: req.FindCoordinatorRequest, waits: set[str] | None,
            ) -> m.FindCoordinatorResponse:
    v4 = ctx.api_version >= 4
    if request.key_type not in (GROUP, TRANSACTION, SHARE):
        # Kafka fails the whole request (InvalidRequestException) with the default message.
        error, message = ErrorCode.INVALID_REQUEST, MESSAGES[ErrorCode.INVALID_REQUEST]
        if v4:
            return m.FindCoordinatorResponse(throttle_time_ms=0, coordinators=[
                m.Coordinator(key=key, node_id=-1, host="", port=-1, error_code=error,
                              error_message=message)
                for key in request.coordinator_keys])
        return m.FindCoordinatorResponse(throttle_time_ms=0, error_code=error,
                                         error_message=message, node_id=-1, host="", port=-1)
    if v4:
        coordinators = []
        for key in request.coordinator_keys:
            error, (node_id, host, port) = _lookup(ctx, key, request.key_type, waits)
            coordinators.append(m.Coordinator(key=key, node_id=node_id, host=host, port=port,
                                              error_code=error, error_message=""))
        return m.FindCoordinatorResponse(throttle_time_ms=0, coordinators=coordinators)
    error, (node_id, host, port) = _lookup(ctx, request.key, request.key_type, waits)
    return m.FindCoordinatorResponse(throttle_time_ms=0, error_code=error,
                                     error_message=MESSAGES[error], node_id=node_id, host=host,
                                     port=port)
