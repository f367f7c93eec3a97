"""AllocateProducerIds (KIP-730) served by pybroker's controller, as a Kafka 3.9 controller
serves it in ZooKeeper mode (a Kafka broker of a mixed cluster asks for its producer-id blocks
so): the next block of ``/latest_producer_id_block`` for a registered broker of the current
epoch; NOT_CONTROLLER elsewhere, STALE_BROKER_EPOCH for an old epoch,
BROKER_ID_NOT_REGISTERED for a broker the controller does not know. The blocks never overlap
the ones pybroker's brokers reserve for themselves."""

from __future__ import annotations

import json

from confluent_kafka import Producer
from kazoo.client import KazooClient

from protocol.messages import (
    allocate_producer_ids_request as apr,
    init_producer_id_request as ipr,
)
from pybroker.testing.cluster import ClusterProcesses
from pybroker.testing.wire_client import WireClient

ALLOCATE_PRODUCER_IDS, INIT_PRODUCER_ID = 67, 22
NOT_CONTROLLER, STALE_BROKER_EPOCH, BROKER_ID_NOT_REGISTERED = 41, 77, 102


def latest_block(zk: KazooClient) -> dict[str, object]:
    """``{"version":1,"broker":b,"block_start":"0","block_end":"999"}``: ids as strings, as
    Kafka writes them."""
    return json.loads(zk.get("/latest_producer_id_block")[0])


def test_the_controller_hands_out_producer_id_blocks(cluster: ClusterProcesses,
                                                     zk: KazooClient) -> None:
    controller = cluster.wait_formed()
    other = next(b for b in cluster.brokers if b != controller)
    epoch = zk.exists(f"/brokers/ids/{other}").czxid  # a broker's epoch is its znode's czxid
    # a producer id handed out by a broker itself first, so that a block exists
    producer = Producer({"bootstrap.servers": cluster.bootstrap, "enable.idempotence": True})
    producer.produce("allocate-producer-ids", b"x")
    assert producer.flush(30) == 0
    del producer
    before = latest_block(zk)

    with WireClient(cluster.broker(controller).bootstrap) as c:
        first = c.call(ALLOCATE_PRODUCER_IDS, 0,
                       apr.AllocateProducerIdsRequest(broker_id=other, broker_epoch=epoch))
        second = c.call(ALLOCATE_PRODUCER_IDS, 0,
                        apr.AllocateProducerIdsRequest(broker_id=other, broker_epoch=epoch))
        stale = c.call(ALLOCATE_PRODUCER_IDS, 0,
                       apr.AllocateProducerIdsRequest(broker_id=other, broker_epoch=epoch - 1))
        unknown = c.call(ALLOCATE_PRODUCER_IDS, 0,
                         apr.AllocateProducerIdsRequest(broker_id=99, broker_epoch=epoch))
    assert (first.error_code, first.producer_id_start, first.producer_id_len) == (
        0, int(str(before["block_end"])) + 1, 1000)
    assert (second.error_code, second.producer_id_start, second.producer_id_len) == (
        0, first.producer_id_start + 1000, 1000)
    assert latest_block(zk) == {"version": 1, "broker": other,
                                "block_start": str(second.producer_id_start),
                                "block_end": str(second.producer_id_start + 999)}
    assert (stale.error_code, stale.producer_id_len) == (STALE_BROKER_EPOCH, 0)
    assert (unknown.error_code, unknown.producer_id_len) == (BROKER_ID_NOT_REGISTERED, 0)
    with WireClient(cluster.broker(other).bootstrap) as c:
        refused = c.call(ALLOCATE_PRODUCER_IDS, 0,
                         apr.AllocateProducerIdsRequest(broker_id=other, broker_epoch=epoch))
    assert refused.error_code == NOT_CONTROLLER

    # a broker that needs a new block of its own takes the one after
    taken = range(first.producer_id_start, second.producer_id_start + 1000)
    for broker_id in cluster.brokers:
        with WireClient(cluster.broker(broker_id).bootstrap) as c:
            r = c.call(INIT_PRODUCER_ID, 4, ipr.InitProducerIdRequest(
                transactional_id=None, transaction_timeout_ms=60_000, producer_id=-1,
                producer_epoch=-1))
        assert r.error_code == 0 and r.producer_id not in taken, (broker_id, r)
