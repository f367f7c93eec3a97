"""ApiVersions (18): the advertised version ranges, built from the handler registry."""

from __future__ import annotations

import re
from collections.abc import Mapping

from protocol.errors import ErrorCode
from protocol.messages import ApiKey, api_versions_request as req, api_versions_response as m
from pybroker.api.context import RequestContext
from pybroker.api.registry import ApiHandler, api

# KIP-511: client software names and versions must look like this, else INVALID_REQUEST.
_SOFTWARE = re.compile(r"[a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?")


def advertised_api_keys(handlers: Mapping[int, ApiHandler]) -> list[m.ApiVersion]:
    return [
        m.ApiVersion(api_key=h.api_key, min_version=h.min_version, max_version=h.max_version)
        for h in sorted(handlers.values(), key=lambda h: h.api_key)
    ]


#: no finalized features here; Kafka answers epoch 0 when it has none to report
FINALIZED_FEATURES_EPOCH = 0


@api(ApiKey.API_VERSIONS, 0, 4)
def handle(ctx: RequestContext, request: req.ApiVersionsRequest) -> m.ApiVersionsResponse:
    if ctx.api_version >= 3 and not (
        _SOFTWARE.fullmatch(request.client_software_name or "")
        and _SOFTWARE.fullmatch(request.client_software_version or "")
    ):
        # as Kafka: the error alone, no versions (those come only with UNSUPPORTED_VERSION)
        return m.ApiVersionsResponse(error_code=ErrorCode.INVALID_REQUEST, api_keys=[])
    if ctx.api_version >= 3:
        ctx.client_software = (request.client_software_name, request.client_software_version)
    return m.ApiVersionsResponse(error_code=ErrorCode.NONE, api_keys=advertised_api_keys(ctx.services.apis),
                                 finalized_features_epoch=FINALIZED_FEATURES_EPOCH)
