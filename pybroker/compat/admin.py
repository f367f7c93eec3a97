"""Topic creation over the Kafka protocol, for scenarios (``Context.create_topic``).

Scenarios create their topics explicitly rather than relying on auto-creation, which many
brokers turn off (Redpanda's and Amazon MSK's defaults, for instance). The replication factor
is the broker's default (-1, KIP-464) where CreateTopics v4+ allows it, else 1.
"""

from __future__ import annotations

import time

from protocol.errors import ErrorCode
from protocol.messages import ApiKey, create_topics_request, metadata_request
from pybroker.compat.apiversions import probe
from pybroker.compat.cleanup import address, version
from pybroker.compat.security import ClientSecurity
from pybroker.compat.wire import WireConnection


class TopicCreationError(Exception):
    """The broker refused to create a topic, or did not make it usable in time."""


def create_topic(bootstrap: str, name: str, partitions: int = 1,
                 configs: dict[str, str] | None = None, timeout: float = 20.0,
                 security: ClientSecurity | None = None) -> None:
    """Create ``name`` through the controller and wait until every partition has a leader."""
    deadline = time.monotonic() + timeout
    table = probe(bootstrap, timeout, security)
    create_v = version(table, ApiKey.CREATE_TOPICS)
    meta_v = version(table, ApiKey.METADATA)
    with WireConnection(bootstrap, timeout, security=security) as conn:
        meta = conn.call(ApiKey.METADATA, meta_v, metadata_request.MetadataRequest(
            topics=[], allow_auto_topic_creation=False))
        brokers = {b.node_id: address(b.host, b.port) for b in meta.brokers}
        controller = brokers.get(meta.controller_id, bootstrap)
        topic = create_topics_request.CreatableTopic(
            name=name, num_partitions=partitions, replication_factor=-1 if create_v >= 4 else 1,
            configs=[create_topics_request.CreatableTopicConfig(name=k, value=v)
                     for k, v in (configs or {}).items()])
        request = create_topics_request.CreateTopicsRequest(topics=[topic],
                                                             timeout_ms=int(timeout * 1000))
        if controller == bootstrap:
            answer = conn.call(ApiKey.CREATE_TOPICS, create_v, request)
        else:
            with WireConnection(controller, timeout, security=security) as to_controller:
                answer = to_controller.call(ApiKey.CREATE_TOPICS, create_v, request)
        code = answer.topics[0].error_code
        if code not in (ErrorCode.NONE, ErrorCode.TOPIC_ALREADY_EXISTS):
            message = answer.topics[0].error_message or ""
            raise TopicCreationError(f"CreateTopics {name}: {ErrorCode(code).name} {message}")
        while True:
            meta = conn.call(ApiKey.METADATA, meta_v, metadata_request.MetadataRequest(
                topics=[metadata_request.MetadataRequestTopic(name=name)],
                allow_auto_topic_creation=False))
            t = meta.topics[0]
            if (t.error_code == ErrorCode.NONE and len(t.partitions) == partitions
                    and all(p.leader_id >= 0 for p in t.partitions)):
                return
            if time.monotonic() >= deadline:
                raise TopicCreationError(
                    f"{name} has no leader for every partition after {timeout:g}s "
                    f"({ErrorCode(t.error_code).name})")
            time.sleep(0.05)
