"""Counting a response's error codes as Kafka's ErrorsPerSec does: once per occurrence."""

from __future__ import annotations

from protocol.error_counts import error_counts
from protocol.messages import (
    fetch_response as f,
    heartbeat_response as h,
    metadata_response as md,
    produce_response as p,
)


def test_every_partition_counts() -> None:
    response = p.ProduceResponse(responses=[p.TopicProduceResponse(name="t", partition_responses=[
        p.PartitionProduceResponse(index=0, error_code=0),
        p.PartitionProduceResponse(index=1, error_code=6),
        p.PartitionProduceResponse(index=2, error_code=6),
        p.PartitionProduceResponse(index=3, error_code=6)])])
    assert error_counts(response) == {0: 1, 6: 3}


def test_a_top_level_error_counts_with_the_nested_ones() -> None:
    response = f.FetchResponse(error_code=0, responses=[f.FetchableTopicResponse(
        topic="t", partitions=[f.PartitionData(partition_index=0, error_code=1),
                               f.PartitionData(partition_index=1, error_code=0)])])
    assert error_counts(response) == {0: 2, 1: 1}
    assert error_counts(h.HeartbeatResponse(error_code=27)) == {27: 1}
    topics = [md.MetadataResponseTopic(name="t", error_code=0, partitions=[
        md.MetadataResponsePartition(partition_index=0, error_code=5)])]
    assert error_counts(md.MetadataResponse(topics=topics)) == {0: 1, 5: 1}


def test_a_response_without_error_fields_counts_nothing() -> None:
    from protocol.messages import api_versions_response as av
    assert error_counts(av.ApiVersionsResponse(error_code=0)) == {0: 1}
    assert error_counts(md.MetadataResponse()) == {}
