"""Fetch v13-v17 as a follower sends it: the version each inter-broker protocol allows, v12
while a partition has no topic id, the request by topic id with the replica and its broker
epoch in ReplicaState, the answer mapped back to names, and a follower replicating through the
leader's real handler (tests/unit/cluster/replication_harness) at v17, then by name."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from protocol.errors import ErrorCode
from protocol.messages import ApiKey, fetch_request as freq, fetch_response as fresp
from protocol.primitives import ZERO_UUID
from protocol.records.record import build_batch
from pybroker.cluster.fetcher_state import (
    FetcherConfig,
    InitialFetchState,
    fetch_request_version,
)
from pybroker.cluster.leader_endpoint import (
    FetchPartitionRequest,
    build_fetch_request,
    fetch_version_for,
    parse_fetch_response,
)
from pybroker.config import BrokerConfig
from tests.unit.cluster.replication_harness import T0, TOPIC, TOPIC_ID, Cluster

OTHER_ID = uuid.UUID("5f1d0c3e-9a4b-4c2d-8e7f-0000000000ff")


@pytest.mark.parametrize(("ibp", "version"), [
    ("3.9-IV0", 17), ("3.9", 17), ("4.0-IV1", 17), ("3.8", 16), ("3.7-IV4", 16),
    ("3.7-IV3", 15), ("3.5-IV1", 15), ("3.5-IV0", 14), ("3.4", 13), ("3.1-IV0", 13),
    ("3.0", 12), ("2.7-IV1", 12), ("2.7-IV0", 11), ("2.3", 11), ("0.10.2", 11),
])
def test_the_fetch_version_follows_the_inter_broker_protocol(ibp: str, version: int) -> None:
    assert fetch_request_version(ibp) == version
    config = FetcherConfig.from_broker_config(
        BrokerConfig.from_dict({"inter.broker.protocol.version": ibp}))
    assert config.fetch_version == version


def _wanted(*topics: tuple[str, uuid.UUID | None]) -> list[FetchPartitionRequest]:
    return [FetchPartitionRequest(t, p, 10 * p, 3, 2, 0, 1 << 20, topic_id=i)
            for t, i in topics for p in (0, 1)]


def test_a_partition_without_a_topic_id_makes_the_fetch_v12() -> None:
    config = FetcherConfig()
    assert fetch_version_for(_wanted(("a", TOPIC_ID), ("b", OTHER_ID)), config) == 17
    assert fetch_version_for(_wanted(("a", TOPIC_ID), ("b", None)), config) == 12
    assert fetch_version_for(_wanted(("a", ZERO_UUID)), config) == 12
    old = FetcherConfig(truncation_on_fetch=False, max_fetch_version=11)
    assert fetch_version_for(_wanted(("a", TOPIC_ID)), old) == 11
    with pytest.raises(ValueError, match="by id"):
        build_fetch_request(_wanted(("b", None)), replica_id=2, broker_epoch=5, config=config,
                            version=13)


def test_a_follower_fetch_by_topic_id_and_its_answer() -> None:
    wanted = _wanted(("a", TOPIC_ID), ("b", OTHER_ID))
    request = build_fetch_request(wanted, replica_id=2, broker_epoch=0x1_0000_002A,
                                  config=FetcherConfig(), version=17)
    assert [(t.topic, t.topic_id, [p.partition for p in t.partitions])
            for t in request.topics] == [("", TOPIC_ID, [0, 1]), ("", OTHER_ID, [0, 1])]
    assert (request.replica_id, request.replica_state.replica_id,
            request.replica_state.replica_epoch) == (-1, 2, 0x1_0000_002A)
    # it survives the wire as it was built
    again = freq.decode(freq.encode(request, 17), 17)
    assert again.topics == request.topics and again.replica_state == request.replica_state
    v14 = build_fetch_request(wanted, replica_id=2, broker_epoch=42, config=FetcherConfig(),
                              version=14)
    assert (v14.replica_id, v14.replica_state) == (2, freq.ReplicaState())

    answer = fresp.FetchResponse(responses=[
        fresp.FetchableTopicResponse(topic_id=OTHER_ID, partitions=[
            fresp.PartitionData(partition_index=1, high_watermark=7, records=b"")]),
        fresp.FetchableTopicResponse(topic_id=uuid.uuid4(), partitions=[
            fresp.PartitionData(partition_index=0, error_code=ErrorCode.UNKNOWN_TOPIC_ID)]),
    ])
    decoded = fresp.decode(fresp.encode(answer, 17), 17)
    parsed = parse_fetch_response(decoded, {TOPIC_ID: "a", OTHER_ID: "b"})
    assert list(parsed) == [("b", 1)]  # a topic the request did not name is left out
    assert parsed[("b", 1)].high_watermark == 7


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[Cluster]:
    c = Cluster(tmp_path)
    c[1].become(leader=1, epoch=2)
    c[2].become(leader=1, epoch=2)
    batch = build_batch([(None, b"v%d" % i, (), T0) for i in range(3)])
    result, _ = c[1].rm.append_to_leader(TOPIC, 0, batch, required_acks=1, now_ms=T0)
    assert result.error == ErrorCode.NONE
    yield c
    c.close()


def test_the_follower_replicates_at_v17_and_by_name_without_ids(cluster) -> None:
    """The production endpoint against the handler: v17 with topic ids, v12 without."""
    fetcher, endpoint = cluster.fetcher(2, 1)
    follower = cluster[2]

    async def main() -> None:
        fetcher.add_partitions({(TOPIC, 0): InitialFetchState(cluster[1].endpoint, 2, 0)})
        for _ in range(3):
            await fetcher.do_work()
        partition = follower.rm.get_partition(TOPIC, 0)
        assert partition is not None
        assert follower.log.log_end_offset == 3
        partition.topic_id = None  # a controller that named no id
        before = len(endpoint.requests)
        await fetcher.do_work()
        versions = [v for k, v, _ in endpoint.requests if k == ApiKey.FETCH]
        assert set(versions[:before]) == {17} and set(versions[before:]) == {12}

    asyncio.run(main())
    assert follower.log_bytes() == cluster[1].log_bytes()

