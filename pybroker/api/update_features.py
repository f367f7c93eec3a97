"""UpdateFeatures (57): finalize, upgrade or delete cluster features (KIP-584), answered by
the active controller as Kafka 3.9's ZooKeeper-mode controller answers it
(:mod:`pybroker.controller.features`). Such a broker supports no feature, so additions and
upgrades are refused per feature with Kafka's messages; ``/feature`` stays as the controller
keeps it. NOT_CONTROLLER elsewhere, CLUSTER_AUTHORIZATION_FAILED without ALTER on the
cluster."""

from __future__ import annotations

from protocol.errors import ErrorCode, KafkaError
from protocol.messages import (
    ApiKey,
    update_features_request as req,
    update_features_response as m,
)
from pybroker.api.context import RequestContext
from pybroker.api.registry import Response, api
from pybroker.kernel.outcome import when_ready
from pybroker.security.acl import AclOperation

#: FeatureUpdateKey's upgrade types (v1; v0's allow_downgrade is the second)
UPGRADE, SAFE_DOWNGRADE = 1, 2
#: Kafka's messages of the top-level refusals (``new ApiError(error)`` carries the error's own)
MESSAGES = {ErrorCode.CLUSTER_AUTHORIZATION_FAILED: "Cluster authorization failed.",
            ErrorCode.NOT_CONTROLLER: "This is not the correct controller for this cluster."}


def _refused(code: ErrorCode) -> m.UpdateFeaturesResponse:
    return m.UpdateFeaturesResponse(error_code=code, error_message=MESSAGES.get(code),
                                    results=[])


def _updates(request: req.UpdateFeaturesRequest, version: int) -> list[tuple[str, int, int]]:
    """(feature, level, upgrade type) of each update; a feature named twice counts once, the
    first time (Kafka reads the updates into a collection keyed by feature name)."""
    seen: dict[str, tuple[str, int, int]] = {}
    for u in request.feature_updates:
        seen.setdefault(u.feature, (
            u.feature, u.max_version_level,
            u.upgrade_type if version >= 1 else SAFE_DOWNGRADE if u.allow_downgrade
            else UPGRADE))
    return list(seen.values())


@api(ApiKey.UPDATE_FEATURES, 0, 1)
def handle(ctx: RequestContext, request: req.UpdateFeaturesRequest,
           ) -> Response[m.UpdateFeaturesResponse]:
    if not ctx.services.acls.authorize_cluster(ctx, AclOperation.ALTER):
        return _refused(ErrorCode.CLUSTER_AUTHORIZATION_FAILED)
    controller = ctx.services.controller
    if controller is None or not controller.is_active:
        return _refused(ErrorCode.NOT_CONTROLLER)

    def respond(outcome: list[tuple[str, int, str | None]] | KafkaError,
                ) -> m.UpdateFeaturesResponse:
        if isinstance(outcome, KafkaError):
            return _refused(outcome.code)
        return m.UpdateFeaturesResponse(error_code=ErrorCode.NONE, error_message=None, results=[
            m.UpdatableFeatureResult(feature=name, error_code=code, error_message=message)
            for name, code, message in outcome])

    return when_ready(controller.update_features(_updates(request, ctx.api_version)), respond)
