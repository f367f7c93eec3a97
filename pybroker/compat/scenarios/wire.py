"""Scenarios in raw Kafka protocol (pybroker's generated codecs): every version of an API the
broker advertises, with the exact requests and answers as evidence."""

from __future__ import annotations

import time
from typing import Any

from protocol import messages
from protocol.errors import ErrorCode
from protocol.messages import (
    ApiKey,
    create_topics_request,
    fetch_request,
    metadata_request,
    produce_request,
)
from protocol.records.record import build_batch, decode_batch, iter_batches
from pybroker.compat.apiversions import ApiTable, probe
from pybroker.compat.scenario import Context, ScenarioFailed, scenario
from pybroker.compat.wire import WireConnection

CLIENT = "wire"


def versions(table: ApiTable, api_key: int, lowest: int) -> range:
    """The versions of ``api_key`` from ``lowest`` that the broker and the codecs both know."""
    lo, hi = table[api_key]
    ours_lo, ours_hi = messages.REQUEST_VERSIONS[api_key]
    return range(max(lo, ours_lo, lowest), min(hi, ours_hi) + 1)


def _error(code: int) -> str:
    return ErrorCode(code).name


@scenario("produce-fetch", client=CLIENT, name="produce-fetch-versions", timeout=30)
def produce_fetch_versions(ctx: Context) -> None:
    """One batch produced with each Produce version from v3 the broker advertises; every
    batch fetched back with each Fetch version from v4, byte for byte the records sent."""
    table = probe(ctx.bootstrap, security=ctx.security)
    topic = ctx.topic()
    with WireConnection(ctx.bootstrap, timeout=max(1.0, ctx.remaining() - 1),
                        security=ctx.security) as conn:
        try:
            _produce_fetch_versions(ctx, conn, table, topic)
        except BaseException:
            ctx.evidence("requests and answers (last 8)", conn.transcript[-8:])
            raise


def _produce_fetch_versions(ctx: Context, conn: WireConnection, table: ApiTable,
                            topic: str) -> None:
    create_v = versions(table, ApiKey.CREATE_TOPICS, 0)[-1]
    created = conn.call(ApiKey.CREATE_TOPICS, create_v, create_topics_request.CreateTopicsRequest(
        topics=[create_topics_request.CreatableTopic(name=topic, num_partitions=1,
                                                     replication_factor=1)],
        timeout_ms=30_000))
    ctx.check(created.topics[0].error_code == 0,
              f"CreateTopics answered {_error(created.topics[0].error_code)}")
    meta_v = versions(table, ApiKey.METADATA, 1)[-1]

    def leader() -> Any:
        meta = conn.call(ApiKey.METADATA, meta_v, metadata_request.MetadataRequest(
            topics=[metadata_request.MetadataRequestTopic(name=topic)],
            allow_auto_topic_creation=False))
        t = meta.topics[0]
        return meta if t.error_code == 0 and t.partitions and t.partitions[0].leader_id >= 0 \
            else None

    meta = ctx.wait_until(leader, "the new topic's leader in Metadata")
    node = meta.topics[0].partitions[0].leader_id
    ctx.check(any(b.node_id == node for b in meta.brokers), "the leader is not among the brokers")
    topic_id = meta.topics[0].topic_id
    # a leader elsewhere is reached at the address the broker gives for it
    broker = next(b for b in meta.brokers if b.node_id == node)
    leader_conn = conn
    address = f"{broker.host}:{broker.port}"
    if address != ctx.bootstrap:
        leader_conn = WireConnection(address, timeout=conn.timeout, security=ctx.security)
    sent: list[tuple[bytes, bytes]] = []
    now = int(time.time() * 1000)
    produced = []
    for v in versions(table, ApiKey.PRODUCE, 3):
        pair = [(f"v{v}-k{i}".encode(), f"produce v{v} record {i}".encode()) for i in range(2)]
        batch = build_batch([(k, val, [], now) for k, val in pair])
        answer = leader_conn.call(ApiKey.PRODUCE, v, produce_request.ProduceRequest(
            acks=-1, timeout_ms=10_000, topic_data=[produce_request.TopicProduceData(
                name=topic, partition_data=[produce_request.PartitionProduceData(
                    index=0, records=bytes(batch))])]))
        part = answer.responses[0].partition_responses[0]
        ctx.check(part.error_code == 0 and part.base_offset == len(sent),
                  f"Produce v{v} answered {_error(part.error_code)} at offset {part.base_offset}, "
                  f"expected NONE at {len(sent)}")
        sent += pair
        produced.append(v)
    ctx.evidence("produce versions", produced)
    fetched_with = []
    for v in versions(table, ApiKey.FETCH, 4):
        got = _fetch_all(leader_conn, v, topic, topic_id, len(sent))
        ctx.check(got == sent, f"Fetch v{v} returned other records than were produced",
                  sent=sent, fetched=got)
        fetched_with.append(v)
    ctx.evidence("fetch versions", fetched_with)
    if leader_conn is not conn:
        leader_conn.close()


def _fetch_all(conn: WireConnection, version: int, topic: str, topic_id: Any,
               n: int) -> list[tuple[bytes | None, bytes | None]]:
    got: list[tuple[bytes | None, bytes | None]] = []
    offset = 0
    for _ in range(n + 1):
        answer = conn.call(ApiKey.FETCH, version, fetch_request.FetchRequest(
            max_wait_ms=0, min_bytes=0, max_bytes=1 << 20, isolation_level=0,
            topics=[fetch_request.FetchTopic(topic=topic, topic_id=topic_id, partitions=[
                fetch_request.FetchPartition(partition=0, fetch_offset=offset,
                                             partition_max_bytes=1 << 20)])]))
        error = answer.error_code or answer.responses[0].partitions[0].error_code
        if error:
            raise ScenarioFailed(f"Fetch v{version} answered {_error(error)}")
        data = bytes(answer.responses[0].partitions[0].records or b"")
        for pos, _header in iter_batches(data):
            _, records = decode_batch(data, pos)
            for r in records:
                if r.offset >= offset:
                    got.append((r.key, r.value))
                    offset = r.offset + 1
        if len(got) >= n or not data:
            break
    return got
