"""The error answers of the fault rules (``pybroker.testing.faults.error_response``): shaped from
the request as Kafka's ``getErrorResponse`` shapes them, and encodable at every version.

The requests are the frames real clients sent (tests/fixtures/frames), so the shapes are the
ones the fault rules meet.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from protocol import messages
from protocol.errors import ErrorCode
from protocol.headers import decode_request
from protocol.messages import ApiKey, fetch_request as freq, offset_fetch_request as ofreq
from protocol.primitives import Reader, Writer
from pybroker.api.registry import load_handlers
from pybroker.testing.faults import error_response
from tests.unit.paths import FIXTURES

FRAMES = sorted((FIXTURES / "frames").glob("*/*.bin"))
ERROR = ErrorCode.NOT_LEADER_OR_FOLLOWER


def round_trip(api_key: int, version: int, body: Any) -> Any:
    w = Writer()
    module = messages.response_module(api_key)
    module.write(w, body, version)
    r = Reader(bytes(w))
    out = module.read(r, version)
    assert r.remaining() == 0
    return out


def error_codes(value: Any) -> list[int]:
    """Every error_code in a response, depth first."""
    found: list[int] = []
    if dataclasses.is_dataclass(value):
        for f in dataclasses.fields(value):
            item = getattr(value, f.name)
            if f.name == "error_code":
                found.append(item)
            else:
                found.extend(error_codes(item))
    elif isinstance(value, list):
        for item in value:
            found.extend(error_codes(item))
    return found


@pytest.mark.parametrize("path", FRAMES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_error_answer_to_what_clients_send(path: Path) -> None:
    header, request = decode_request(path.read_bytes())
    api_key, version = header.request_api_key, header.request_api_version
    answer = round_trip(api_key, version, error_response(api_key, request, ERROR))
    codes = error_codes(answer)
    if api_key == ApiKey.METADATA and not request.topics:
        # a Metadata request for every topic names none: Kafka's error answer to it is empty too
        assert codes == [] and answer.brokers == []
        return
    assert codes, f"{messages.API_NAMES[api_key]} v{version}: the error has nowhere to go"
    assert set(codes) == {ERROR}


@pytest.mark.parametrize("api_key", sorted(load_handlers(None)),
                         ids=lambda k: messages.API_NAMES[k])
def test_every_served_version_encodes(api_key: int) -> None:
    handler = load_handlers(None)[api_key]
    module = messages.request_module(api_key)
    request = getattr(module, module.NAME)()
    for version in range(handler.min_version, handler.max_version + 1):
        round_trip(api_key, version, error_response(api_key, request, ERROR))


def test_each_partition_named_gets_the_error() -> None:
    request = freq.FetchRequest(topics=[
        freq.FetchTopic(topic="a", partitions=[freq.FetchPartition(partition=0),
                                                freq.FetchPartition(partition=3)]),
        freq.FetchTopic(topic="b", partitions=[freq.FetchPartition(partition=1)]),
    ], forgotten_topics_data=[freq.ForgottenTopic(topic="gone", partitions=[9])])
    answer = round_trip(ApiKey.FETCH, 12, error_response(ApiKey.FETCH, request, ERROR))
    assert [(t.topic, [(p.partition_index, p.error_code) for p in t.partitions])
            for t in answer.responses] == [("a", [(0, ERROR), (3, ERROR)]), ("b", [(1, ERROR)])]


def test_partition_indexes_become_partitions() -> None:
    request = ofreq.OffsetFetchRequest(group_id="g", topics=[
        ofreq.OffsetFetchRequestTopic(name="t", partition_indexes=[2, 5])])
    answer = round_trip(ApiKey.OFFSET_FETCH, 5,
                        error_response(ApiKey.OFFSET_FETCH, request, ErrorCode.COORDINATOR_LOAD_IN_PROGRESS))
    assert answer.error_code == ErrorCode.COORDINATOR_LOAD_IN_PROGRESS
    assert [(p.partition_index, p.error_code) for p in answer.topics[0].partitions] == [
        (2, ErrorCode.COORDINATOR_LOAD_IN_PROGRESS), (5, ErrorCode.COORDINATOR_LOAD_IN_PROGRESS)]
