"""ListConfigResources (74), Kafka 4.1's name for ListClientMetricsResources (KIP-1142): the
config resources there are, of the types asked for, as Kafka 4.1 answers.

Version 0 lists the client-metrics resources only (this broker keeps none). Version 1 takes
resource types (none: every type it knows): the topics (internal ones too), the brokers by id
as BROKER and as BROKER_LOGGER, the groups that have stored group configs (KIP-848; a group
whose configs were all deleted too, as Kafka keeps it) and the client-metrics resources; an
unknown type is UNSUPPORTED_VERSION. Each resource appears once, in the order of the names.
It needs DESCRIBE_CONFIGS on the cluster (CLUSTER_AUTHORIZATION_FAILED). ``kafka-configs
--describe --entity-type groups`` of Kafka 4.1 asks it whether a group has configs.
"""

from __future__ import annotations

from protocol.errors import ErrorCode
from protocol.messages import (
    ApiKey,
    list_config_resources_request as req,
    list_config_resources_response as m,
)
from pybroker.admin.configs import BROKER, BROKER_LOGGER, GROUP, TOPIC
from pybroker.api.context import RequestContext
from pybroker.api.registry import api
from pybroker.security.acl import AclOperation

CLIENT_METRICS = 16
#: the types Kafka 4.1 lists when none is asked for, in the order it gathers them
ALL_TYPES = (BROKER_LOGGER, BROKER, TOPIC, GROUP, CLIENT_METRICS)


@api(ApiKey.LIST_CONFIG_RESOURCES, 0, 1)
def handle(ctx: RequestContext, request: req.ListConfigResourcesRequest,
           ) -> m.ListConfigResourcesResponse:
    if not ctx.services.acls.authorize_cluster(ctx, AclOperation.DESCRIBE_CONFIGS):
        return m.ListConfigResourcesResponse(error_code=ErrorCode.CLUSTER_AUTHORIZATION_FAILED)
    if ctx.api_version == 0:
        return m.ListConfigResourcesResponse(error_code=ErrorCode.NONE, config_resources=[])
    asked = set(request.resource_types or ALL_TYPES)
    if not asked <= set(ALL_TYPES):
        return m.ListConfigResourcesResponse(error_code=ErrorCode.UNSUPPORTED_VERSION)
    services = ctx.services
    brokers = [str(b) for b in services.metadata_cache.alive_broker_ids]
    names = {
        BROKER_LOGGER: brokers,
        BROKER: brokers,
        TOPIC: sorted(services.metadata_cache.topics),
        GROUP: services.groups.group_configs.groups(),
        CLIENT_METRICS: [],
    }
    found = [(name, kind) for kind in ALL_TYPES if kind in asked for name in names[kind]]
    found.sort(key=lambda item: item[0])  # stable: the gathering order breaks ties
    return m.ListConfigResourcesResponse(error_code=ErrorCode.NONE, config_resources=[
        m.ConfigResource(resource_name=name, resource_type=kind) for name, kind in found])
