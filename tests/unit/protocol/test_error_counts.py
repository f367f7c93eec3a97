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


def test_the_unrolled_walk_counts_as_the_generic_one_for_every_message() -> None:
    """Each message class's counter is made from its fields; for every generated message it
    compiles and agrees with the field-by-field walk (here on default instances, and on a
    produce response holding structs without error fields, which the unrolled walk skips)."""
    import dataclasses
    import importlib
    import pkgutil

    import protocol.messages as messages
    from protocol.error_counts import _count

    checked = 0
    for info in pkgutil.iter_modules(messages.__path__):
        module = importlib.import_module(f"protocol.messages.{info.name}")
        for cls in vars(module).values():
            if not (isinstance(cls, type) and dataclasses.is_dataclass(cls)
                    and cls.__module__ == module.__name__):
                continue
            try:
                message = cls()
            except TypeError:
                continue  # a struct with required fields
            generic: dict[int, int] = {}
            _count(message, generic)
            assert error_counts(message) == generic, cls
            checked += 1
    assert checked > 200
    response = p.ProduceResponse(responses=[p.TopicProduceResponse(name="t", partition_responses=[
        p.PartitionProduceResponse(index=0, error_code=87, record_errors=[
            p.BatchIndexAndErrorMessage(batch_index=1)],
            current_leader=p.LeaderIdAndEpoch(leader_id=1, leader_epoch=2))])])
    generic = {}
    _count(response, generic)
    assert error_counts(response) == generic == {87: 1}
