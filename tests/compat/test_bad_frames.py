"""Malformed input on raw sockets, and request pipelining.

Each bad connection must be closed (or, where Kafka answers, answered with an error) without
disturbing anyone else: a confluent-kafka producer keeps producing on its own connection while
the bad input arrives, and at the end every message it produced is read back.
"""

from __future__ import annotations

import socket
import struct
from collections.abc import Iterator

import pytest
from confluent_kafka import Producer

from pybroker.testing.broker_process import BrokerProcess
from tests.compat import kafka_wire as wire
from tests.compat.confluent_kafka.helpers import create_topic, read_back
from tests.compat.timestamps import a_day_ago_ms

pytestmark = pytest.mark.compat

HEALTH_TOPIC = "bad-frames-health"
TS0 = a_day_ago_ms()  # the CreateTime of the raw batches


class HealthyClient:
    """A producer on its own connection that must keep working whatever raw sockets do."""

    def __init__(self, bootstrap: str) -> None:
        self.bootstrap = bootstrap
        self.producer = Producer({"bootstrap.servers": bootstrap, "acks": "all", "linger.ms": 0})
        self.sent: list[bytes] = []
        self.errors: list[str] = []

    def round(self, label: str, n: int = 20) -> None:
        """Produce ``n`` messages and wait for all of them to be acknowledged."""

        def cb(err, _m) -> None:
            if err is not None:
                self.errors.append(f"{label}: {err}")

        for i in range(n):
            value = f"{label}-{i}".encode()
            self.producer.produce(HEALTH_TOPIC, value=value, partition=0, on_delivery=cb)
            self.sent.append(value)
        assert self.producer.flush(30) == 0, f"{label}: producer could not deliver"
        assert not self.errors, self.errors


@pytest.fixture(scope="module")
def healthy(module_broker: BrokerProcess) -> Iterator[HealthyClient]:
    create_topic(module_broker.bootstrap, HEALTH_TOPIC, 1)
    client = HealthyClient(module_broker.bootstrap)
    client.round("start")
    yield client
    # everything produced across the module's tests is there, in order
    client.round("end")
    got = read_back(module_broker.bootstrap, HEALTH_TOPIC, [0])
    assert [m.value() for m in got[0]] == client.sent
    assert module_broker.is_running()


def raw(broker: BrokerProcess) -> socket.socket:
    return wire.connect(broker.bootstrap)


def assert_still_serving(broker: BrokerProcess) -> None:
    """A fresh raw connection still gets a well-formed ApiVersions v0 answer."""
    with raw(broker) as s:
        s.sendall(wire.api_versions(correlation_id=77, version=0))
        response = wire.read_response(s)
        assert response is not None, "broker closed a good connection"
        cid, body = response
        assert cid == 77
        parsed = wire.parse_api_versions_v0(body)
        assert parsed.error_code == 0
        assert wire.API_API_VERSIONS in parsed.ranges


BAD_INPUTS: dict[str, bytes] = {
    # an HTTP request: the "size" is 0x47455420, about 1.2 GB, far above socket.request.max.bytes
    "http-request": b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
    "negative-size": struct.pack(">i", -1) + b"\x00" * 16,
    "huge-size": struct.pack(">i", 0x7FFFFFFF) + b"\x00" * 16,
    "zero-size": struct.pack(">i", 0),
    "too-short-for-a-header": wire.sized(b"\x00\x12\x00"),
    "client-id-longer-than-frame": wire.sized(struct.pack(">hhih", 18, 0, 1, 1000) + b"abc"),
    # array counts far larger than the bytes that follow
    "metadata-topic-count-overflow": wire.sized(
        struct.pack(">hhi", 3, 1, 5) + wire.string("x") + struct.pack(">i", 1_000_000) + wire.string("t")
    ),
    "produce-topic-count-overflow": wire.sized(
        struct.pack(">hhi", 0, 3, 6) + wire.string("x") + wire.string(None)
        + struct.pack(">hii", 1, 30_000, 50_000_000) + b"\x00" * 40
    ),
    "string-length-overflow": wire.sized(
        struct.pack(">hhi", 3, 1, 7) + wire.string("x") + struct.pack(">ih", 1, 30_000) + b"abc"
    ),
}


@pytest.mark.parametrize("name", list(BAD_INPUTS))
def test_bad_frame_closes_connection(
    module_broker: BrokerProcess, healthy: HealthyClient, name: str
) -> None:
    healthy.round(f"before-{name}")
    with raw(module_broker) as s:
        s.sendall(BAD_INPUTS[name])
        leftover = wire.wait_closed(s)
    assert leftover == b"", f"broker answered undecodable input with {leftover[:64]!r}"
    healthy.round(f"after-{name}")
    assert_still_serving(module_broker)


def test_truncated_frame_then_close(module_broker: BrokerProcess, healthy: HealthyClient) -> None:
    healthy.round("before-truncated")
    frame = wire.metadata_v1(correlation_id=9)
    with raw(module_broker) as s:
        s.sendall(frame[: len(frame) - 3])
    with raw(module_broker) as s:
        s.sendall(struct.pack(">i", 1000) + b"\x00\x03")
        s.shutdown(socket.SHUT_WR)  # half-close: the broker sees EOF mid-frame
        assert wire.wait_closed(s) == b""
    healthy.round("after-truncated")
    assert_still_serving(module_broker)


def test_unknown_api_key(module_broker: BrokerProcess, healthy: HealthyClient) -> None:
    healthy.round("before-unknown-key")
    with raw(module_broker) as s:
        s.sendall(wire.request(api_key=9999, version=0, correlation_id=42, body=b"\x00" * 8))
        leftover = wire.wait_closed(s)
    # Kafka closes the connection; an error response must at least carry our correlation id
    if leftover:
        (size, cid) = struct.unpack_from(">ii", leftover)
        assert size == len(leftover) - 4 and cid == 42, leftover[:64]
    healthy.round("after-unknown-key")
    assert_still_serving(module_broker)


def test_api_versions_unsupported_version(module_broker: BrokerProcess, healthy: HealthyClient) -> None:
    """ApiVersions v99: error 35 in a v0 body listing ApiVersions' own range, header v0."""
    with raw(module_broker) as s:
        s.sendall(wire.api_versions(correlation_id=1234, version=99))
        response = wire.read_response(s)
        assert response is not None, "connection closed instead of UNSUPPORTED_VERSION"
        cid, body = response
        assert cid == 1234
        parsed = wire.parse_api_versions_v0(body)  # also proves: header v0, v0 body, nothing else
        assert parsed.error_code == wire.UNSUPPORTED_VERSION
        lo, hi = parsed.ranges[wire.API_API_VERSIONS]
        assert lo == 0 and hi >= 3
        # the connection stays usable: the client retries with a version it now knows
        s.sendall(wire.api_versions(correlation_id=1235, version=hi))
        response = wire.read_response(s)
        assert response is not None and response[0] == 1235
    healthy.round("after-api-versions-v99")


def produce_v3_partition_error(body: bytes) -> int:
    """The single partition's error code from a Produce v3 response body."""
    (topics,) = struct.unpack_from(">i", body)
    (name_len,) = struct.unpack_from(">h", body, 4)
    pos = 6 + name_len
    (partitions, _index, error_code) = struct.unpack_from(">iih", body, pos)
    assert topics == 1 and partitions == 1
    return error_code


def test_produce_with_bad_crc_is_rejected(module_broker: BrokerProcess, topic: str) -> None:
    """A batch whose CRC does not match is refused with CORRUPT_MESSAGE and not stored."""
    create_topic(module_broker.bootstrap, topic, 1)
    batch = bytearray(wire.record_batch([wire.Record(b"k", b"value")], base_timestamp=TS0))
    batch[-1] ^= 0xFF  # flip bits in the last value byte; the CRC no longer matches
    with raw(module_broker) as s:
        s.sendall(wire.produce_v3(300, topic, 0, bytes(batch), acks=-1))
        response = wire.read_response(s)
        assert response is not None, "connection closed instead of a CORRUPT_MESSAGE answer"
        cid, body = response
        assert cid == 300
        assert produce_v3_partition_error(body) == 2  # CORRUPT_MESSAGE
        # the same connection goes on working
        good = wire.record_batch([wire.Record(b"k", b"value")], base_timestamp=TS0)
        s.sendall(wire.produce_v3(301, topic, 0, good, acks=-1))
        response = wire.read_response(s)
        assert response is not None and response[0] == 301
        assert produce_v3_partition_error(response[1]) == 0
    got = read_back(module_broker.bootstrap, topic, [0])[0]
    assert [(m.offset(), m.key(), m.value()) for m in got] == [(0, b"k", b"value")]


def test_pipelined_requests_answer_in_order(module_broker: BrokerProcess) -> None:
    requests = [
        wire.api_versions(100, 0),
        wire.metadata_v1(101),
        wire.api_versions(102, 3),
        wire.metadata_v1(103, [HEALTH_TOPIC]),
        wire.api_versions(104, 1),
        wire.metadata_v1(105, []),
    ] * 5
    expected = [struct.unpack_from(">i", r, 8)[0] for r in requests]
    with raw(module_broker) as s:
        s.sendall(b"".join(requests))
        got = []
        for _ in requests:
            response = wire.read_response(s)
            assert response is not None, f"connection closed after {len(got)} responses"
            got.append(response[0])
    assert got == expected


def test_acks0_produce_gets_no_response(module_broker: BrokerProcess, topic: str) -> None:
    create_topic(module_broker.bootstrap, topic, 1)
    records = [
        wire.Record(b"k0", b"v0", (("h", b"1"),)),
        wire.Record(None, b"v1"),
        wire.Record(b"k2", None),
    ]
    batch = wire.record_batch(records, base_timestamp=TS0)
    with raw(module_broker) as s:
        s.sendall(
            wire.produce_v3(200, topic, 0, batch, acks=0)
            + wire.api_versions(201, 0)
            + wire.produce_v3(202, topic, 0, batch, acks=0)
            + wire.metadata_v1(203, [topic])
        )
        first = wire.read_response(s)
        second = wire.read_response(s)
    assert first is not None and first[0] == 201, "acks=0 produce must not be answered"
    assert second is not None and second[0] == 203

    got = read_back(module_broker.bootstrap, topic, [0])[0]
    assert [(m.offset(), m.key(), m.value(), m.headers() or []) for m in got] == [
        (0, b"k0", b"v0", [("h", b"1")]),
        (1, None, b"v1", []),
        (2, b"k2", None, []),
        (3, b"k0", b"v0", [("h", b"1")]),
        (4, None, b"v1", []),
        (5, b"k2", None, []),
    ]
    assert all(m.timestamp()[1] == TS0 for m in got)
