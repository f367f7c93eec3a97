"""The transaction coordinator service on a real embedded node (a one-broker cluster):
``__transaction_state`` created with Kafka's configs, state changes written to and replayed
from its real logs as its leadership moves, WriteTxnMarkers built and read back, and the
WriteTxnMarkers version by inter-broker protocol."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from protocol.errors import ErrorCode
from protocol.messages import write_txn_markers_request as wreq, write_txn_markers_response as wresp
from pybroker.coordinator.transaction import (
    InitProducerIdResult,
    MarkerEntry,
    PendingCompleteTxn,
    TransactionMetadata,
)
from pybroker.coordinator.transaction.markers import (
    errors_by_producer,
    write_txn_markers_request,
)
from pybroker.coordinator.transaction.storage import transaction_partition_for
from pybroker.coordinator.transaction_service import write_txn_markers_version
from pybroker.metadata.model import PartitionRecord
from pybroker.metadata.topics import TRANSACTION_STATE_TOPIC
from pybroker.modes.embedded.broker import Broker
from tests.unit.broker.embedded_node import EmbeddedNode

T0 = 1_700_000_000_000
PARTITIONS = 3


@pytest.fixture
def node(tmp_path: Path) -> Iterator[EmbeddedNode]:
    n = EmbeddedNode.start(tmp_path / "data", **{
        "transaction.state.log.num.partitions": str(PARTITIONS),
        "transaction.state.log.min.isr": "1",
    })
    yield n
    n.stop()


async def settled(outcome):
    return await outcome if isinstance(outcome, asyncio.Future) else outcome


async def loaded(broker: Broker) -> None:
    """Until no partition of the topic is loading."""
    assert broker.transactions is not None
    for _ in range(200):
        if not broker.transactions.coordinator.state_manager.loading_partitions:
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the partitions never loaded")


async def created(broker: Broker) -> None:
    """Ask for the topic until the controller has created and led it (as Kafka's ZooKeeper
    mode: COORDINATOR_NOT_AVAILABLE until then, as the first answer is)."""
    service = broker.transactions
    assert service is not None
    assert service.ensure_topic(T0) == ErrorCode.COORDINATOR_NOT_AVAILABLE
    for _ in range(1000):
        if service.ensure_topic(T0) == ErrorCode.NONE and \
                len(service.topic.writer.led_partitions()) == PARTITIONS:
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the topic was never created")


def test_the_topic_is_created_with_kafkas_configs(node: EmbeddedNode) -> None:
    broker = node.broker

    async def main() -> None:
        service = broker.transactions
        assert service is not None and broker.metadata_cache is not None
        assert not service.topic.exists
        await created(broker)
        assert service.ensure_topic(T0) == ErrorCode.NONE
        info = broker.metadata_cache.topic(TRANSACTION_STATE_TOPIC)
        assert info is not None and len(info.partitions) == PARTITIONS
        assert broker.configs.topic_overrides(TRANSACTION_STATE_TOPIC) == {
            "cleanup.policy": "compact", "compression.type": "uncompressed",
            "min.insync.replicas": "1", "segment.bytes": "104857600",
            "unclean.leader.election.enable": "false"}

    node.run(main())


def test_state_is_written_and_replayed_as_leadership_moves(node: EmbeddedNode) -> None:
    broker = node.broker

    async def main() -> None:
        service = broker.transactions
        assert service is not None
        await created(broker)
        await loaded(broker)
        result = await settled(service.init_producer_id("tx", 60_000, None, T0))
        assert isinstance(result, InitProducerIdResult) and result.error == ErrorCode.NONE
        pid = result.producer_id
        # (the handler checks partitions against the metadata; the coordinator takes them)
        assert await settled(service.add_partitions_to_transaction(
            "tx", pid, 0, frozenset({("__consumer_offsets", 1)}), T0)) == ErrorCode.NONE
        assert await settled(service.end_transaction("tx", pid, 0, True, T0 + 5)) == \
            ErrorCode.NONE
        described = service.describe_transaction("tx")
        # no leader in the metadata for that partition: no marker needed, the commit completes
        assert (described.state, described.producer_epoch) == ("CompleteCommit", 0)

        p = transaction_partition_for("tx", PARTITIONS)
        rm = broker.replica_manager
        node.announce_peer(9)  # alive: the partition can follow it
        # broker 9 takes the partition over: the id is forgotten here
        rm.become_leader_or_follower(TRANSACTION_STATE_TOPIC,
                                     [PartitionRecord(p, (0, 9), (0, 9), 9, 1)], T0)
        assert service.describe_transaction("tx").error == ErrorCode.NOT_COORDINATOR
        # and gives it back: replayed from the log, in the new epoch
        rm.become_leader_or_follower(TRANSACTION_STATE_TOPIC,
                                     [PartitionRecord(p, (0, 9), (0,), 0, 2)], T0)
        assert service.describe_transaction("tx").error == ErrorCode.COORDINATOR_LOAD_IN_PROGRESS
        await loaded(broker)
        again = service.describe_transaction("tx")
        assert (again.error, again.state, again.producer_id) == (ErrorCode.NONE,
                                                                  "CompleteCommit", pid)
        bumped = await settled(service.init_producer_id("tx", 60_000, None, T0 + 10))
        assert (bumped.error, bumped.producer_id, bumped.producer_epoch) == (ErrorCode.NONE, pid, 1)

    node.run(main())


def test_write_txn_markers_requests_and_answers() -> None:
    metadata = TransactionMetadata.new("tx", 7, 1000, T0)
    pending = PendingCompleteTxn("tx", 3, metadata, metadata.as_transit())
    entry = MarkerEntry(pending, 7, 2, 3, True, frozenset({("b", 1), ("a", 0), ("a", 2)}))
    request = write_txn_markers_request([entry])
    decoded = wreq.decode(wreq.encode(request, 1), 1)
    [marker] = decoded.markers
    assert (marker.producer_id, marker.producer_epoch, marker.coordinator_epoch,
            marker.transaction_result) == (7, 2, 3, True)
    assert [(t.name, t.partition_indexes) for t in marker.topics] == [("a", [0, 2]), ("b", [1])]
    response = wresp.WriteTxnMarkersResponse(markers=[wresp.WritableTxnMarkerResult(
        producer_id=7, topics=[wresp.WritableTxnMarkerTopicResult(name="a", partitions=[
            wresp.WritableTxnMarkerPartitionResult(partition_index=0, error_code=0),
            wresp.WritableTxnMarkerPartitionResult(partition_index=2, error_code=6),
            wresp.WritableTxnMarkerPartitionResult(partition_index=3, error_code=32000)])])])
    assert errors_by_producer(response) == {7: {
        ("a", 0): ErrorCode.NONE, ("a", 2): ErrorCode.NOT_LEADER_OR_FOLLOWER,
        ("a", 3): ErrorCode.UNKNOWN_SERVER_ERROR}}


@pytest.mark.parametrize(("ibp", "version"), [
    ("3.9-IV0", 1), ("3.0", 1), ("2.8-IV0", 1), ("2.8", 1), ("2.7-IV2", 0), ("0.11.0-IV0", 0)])
def test_write_txn_markers_version_follows_the_inter_broker_protocol(ibp: str,
                                                                      version: int) -> None:
    assert write_txn_markers_version(ibp) == version
