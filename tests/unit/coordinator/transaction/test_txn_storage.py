"""``__transaction_state`` records in Kafka's format, byte for byte, and the replay of a
partition."""

from __future__ import annotations

import struct

import pytest

from protocol.errors import ProtocolError
from protocol.records.record import build_batch
from pybroker.config import BrokerConfig
from pybroker.coordinator.transaction import (
    PartitionReplay,
    TransactionConfig,
    TransactionState,
    TxnTransitMetadata,
)
from pybroker.coordinator.transaction.storage import (
    UnknownKey,
    deserialize_key,
    deserialize_value,
    serialize_key,
    serialize_value,
    transaction_partition_for,
)

S = TransactionState


def transit(state: S, partitions=frozenset(), start: int = -1) -> TxnTransitMetadata:
    return TxnTransitMetadata(producer_id=1001, last_producer_id=-1, producer_epoch=3,
                              last_producer_epoch=-1, txn_timeout_ms=60000, txn_state=state,
                              topic_partitions=frozenset(partitions), txn_start_timestamp=start,
                              txn_last_update_timestamp=1_700_000_000_123)


def kstring(s: str) -> bytes:
    raw = s.encode()
    return struct.pack(">h", len(raw)) + raw


def test_the_key_is_kafkas() -> None:
    assert serialize_key("my-txn") == b"\x00\x00" + kstring("my-txn")
    assert deserialize_key(serialize_key("my-txn")).transactional_id == "my-txn"
    assert deserialize_key(b"\x00\x05anything") == UnknownKey(5)


def test_the_value_is_kafkas_version_0() -> None:
    value = serialize_value(transit(S.ONGOING, {("b", 1), ("a", 2), ("a", 0)}, start=99))
    expected = (
        struct.pack(">hqhib", 0, 1001, 3, 60000, 1)
        + struct.pack(">i", 2)
        + kstring("a") + struct.pack(">iii", 2, 0, 2)
        + kstring("b") + struct.pack(">ii", 1, 1)
        + struct.pack(">qq", 1_700_000_000_123, 99)
    )
    assert value == expected


def test_an_empty_transaction_has_null_partitions() -> None:
    value = serialize_value(transit(S.EMPTY))
    assert value == (struct.pack(">hqhib", 0, 1001, 3, 60000, 0) + struct.pack(">i", -1)
                     + struct.pack(">qq", 1_700_000_000_123, -1))
    with pytest.raises(ValueError):
        serialize_value(transit(S.EMPTY, {("a", 0)}))


def test_values_read_back_without_the_last_epoch() -> None:
    m = deserialize_value("t", serialize_value(transit(S.PREPARE_COMMIT, {("a", 0)}, 5)))
    assert m is not None
    assert (m.producer_id, m.producer_epoch, m.last_producer_epoch, m.state,
            m.topic_partitions, m.txn_start_timestamp) == (1001, 3, -1, S.PREPARE_COMMIT,
                                                           {("a", 0)}, 5)
    assert deserialize_value("t", None) is None
    with pytest.raises(ProtocolError):
        deserialize_value("t", b"\x00\x07" + bytes(40))


def test_replay_keeps_the_last_record_and_honours_tombstones() -> None:
    records = [
        (serialize_key("a"), serialize_value(transit(S.EMPTY))),
        (serialize_key("b"), serialize_value(transit(S.ONGOING, {("t", 0)}, 5))),
        (serialize_key("a"), serialize_value(transit(S.ONGOING, {("t", 1)}, 6))),
        (b"\x00\x09future", b"whatever"),  # a key version of a later Kafka: skipped
        (serialize_key("b"), None),
    ]
    replay = PartitionReplay(0)
    replay.apply_batch(bytes(build_batch(records[:2])), 0)
    replay.apply_batch(bytes(build_batch(records[2:], base_offset=2)), 0)
    assert list(replay.transactions) == ["a"]
    assert replay.transactions["a"].state is S.ONGOING
    assert replay.transactions["a"].topic_partitions == {("t", 1)}


def test_an_unreadable_record_is_skipped() -> None:
    replay = PartitionReplay(0)
    replay.apply_batch(bytes(build_batch([(serialize_key("a"), b"\x00\x00\x01"),
                                          (serialize_key("b"), serialize_value(
                                              transit(S.EMPTY)))])), 0)
    assert list(replay.transactions) == ["b"]


def test_ids_are_placed_like_kafka_places_them() -> None:
    # Kafka: Utils.abs("my-txn".hashCode) % 50
    h = 0
    for ch in "my-txn":
        h = (31 * h + ord(ch)) & 0xFFFFFFFF
    h = h - (1 << 32) if h >= 1 << 31 else h
    assert transaction_partition_for("my-txn", 50) == (0 if h == -(1 << 31) else abs(h)) % 50


def test_config_from_properties_and_topic_configs() -> None:
    config = TransactionConfig.from_props(BrokerConfig.from_dict({
        "transaction.state.log.num.partitions": "7",
        "transaction.state.log.min.isr": "1",
        "transaction.max.timeout.ms": "5000",
    }).props)
    assert (config.num_partitions, config.min_insync_replicas,
            config.transaction_max_timeout_ms) == (7, 1, 5000)
    assert TransactionConfig().num_partitions == 50
    assert config.topic_configs() == {
        "unclean.leader.election.enable": "false", "compression.type": "uncompressed",
        "cleanup.policy": "compact", "min.insync.replicas": "1",
        "segment.bytes": "104857600"}
