"""The Java Admin client's log-dir, reassignment, leader-election and producer-state calls against
pybroker, for every kafka-clients release under test.

What the client reports (exception classes and messages included) is what it reports against
Apache Kafka 3.9 in ZooKeeper mode with one broker; sizes and producer ids are checked against
the segment files on disk.
"""

from __future__ import annotations

import os

import pytest

from protocol.records.batch import BatchHeader
from protocol.records.record import iter_batches
from pybroker.testing.broker_process import BrokerProcess
from tests.compat.java.conftest import JavaClient, ProduceRecord

pytestmark = pytest.mark.compat

RECORDS = 10


def error(cls: str, message: str) -> dict:
    return {"error": {"class": f"org.apache.kafka.common.errors.{cls}", "message": message}}


NOT_NEEDED = error("ElectionNotNeededException", "Leader election not needed for topic partition.")
NO_PARTITION = error("UnknownTopicOrPartitionException", "The partition does not exist.")


def partition_files(broker: BrokerProcess, topic: str, partition: int):
    return sorted((broker.data_dir / f"{topic}-{partition}").glob("*.log"))


def batch_headers(broker: BrokerProcess, topic: str, partition: int) -> list[BatchHeader]:
    headers = []
    for path in partition_files(broker, topic, partition):
        data = path.read_bytes()
        headers += [BatchHeader.parse(data, pos) for pos, _ in iter_batches(data)]
    return headers


def test_admin_log_dirs_reassignments_elections_and_producers(
    java_client: JavaClient, module_broker: BrokerProcess, topic: str
) -> None:
    bootstrap = module_broker.bootstrap
    [created] = java_client.admin(bootstrap, f"create-topics --topic {topic} --partitions 2")
    assert "error" not in created["result"][topic], created
    # the producer is idempotent by default (acks=all, enable.idempotence=true)
    java_client.produce(bootstrap, topic, [
        ProduceRecord(key=b"k%d" % i, value=b"v" * 50, partition=0) for i in range(RECORDS)])
    headers = batch_headers(module_broker, topic, 0)
    assert {h.producer_id for h in headers} == {headers[0].producer_id} and headers[0].producer_id >= 0

    ops = [
        "describe-log-dirs",
        "list-partition-reassignments",
        f"list-partition-reassignments --topic {topic} --partitions 0,1,9",
        f"alter-partition-reassignments --topic {topic} --partitions 0,1 --replicas 0",
        f"alter-partition-reassignments --topic {topic} --partitions 1 --cancel",
        f"alter-partition-reassignments --topic {topic} --partitions 0 --replicas 0,5",
        f"alter-partition-reassignments --topic {topic} --partitions 9 --replicas 0",
        "elect-leaders --type preferred",
        f"elect-leaders --type preferred --topic {topic} --partitions 0,1,9",
        f"elect-leaders --type unclean --topic {topic} --partitions 0",
        f"describe-producers --topic {topic} --partitions 0,1",
    ]
    lines = java_client.admin(bootstrap, *ops)
    assert [line["op"] for line in lines] == [op.split()[0] for op in ops]
    assert all("result" in line for line in lines), lines
    (log_dirs, list_all, list_named, alter_current, cancel, alter_dead, alter_missing,
     elect_all, elect_named, elect_unclean, producers) = [line["result"] for line in lines]

    # describe-log-dirs: the one dir, its volume and the partitions' sizes on disk
    [(log_dir, described)] = log_dirs["0"].items()
    assert log_dir == str(module_broker.data_dir.absolute())
    assert described["error"] is None
    fs = os.statvfs(log_dir)
    assert described["totalBytes"] == fs.f_frsize * fs.f_blocks
    assert 0 < described["usableBytes"] <= described["totalBytes"]
    mine = {tp: r for tp, r in described["replicas"].items() if tp.rsplit("-", 1)[0] == topic}
    assert mine == {
        f"{topic}-{p}": {"size": sum(f.stat().st_size for f in partition_files(module_broker, topic, p)),
                         "offsetLag": 0, "isFuture": False}
        for p in (0, 1)
    }
    assert mine[f"{topic}-0"]["size"] == sum(h.batch_length + 12 for h in headers)
    assert mine[f"{topic}-1"]["size"] == 0

    # reassignments: complete at once, never in progress
    assert list_all == {} and list_named == {}
    assert alter_current == {f"{topic}-0": {}, f"{topic}-1": {}}
    assert cancel == {f"{topic}-1": error("NoReassignmentInProgressException",
                                          "No partition reassignment is in progress.")}
    assert alter_dead == {f"{topic}-0": error(
        "InvalidReplicaAssignmentException",
        "Replica assignment has brokers that are not alive. Replica list: ArrayBuffer(5), "
        "live broker list: Set(0)")}
    assert alter_missing == {f"{topic}-9": NO_PARTITION}

    # elections: none needed, so none reported when all partitions are asked for
    assert elect_all == {}
    assert elect_named == {f"{topic}-0": NOT_NEEDED, f"{topic}-1": NOT_NEEDED,
                           f"{topic}-9": NO_PARTITION}
    assert elect_unclean == {f"{topic}-0": NOT_NEEDED}

    # producer state: the producer that wrote partition 0, as the batches on disk name it
    last = headers[-1]
    assert producers == {
        f"{topic}-0": [{
            "producerId": last.producer_id,
            "producerEpoch": last.producer_epoch,
            "lastSequence": RECORDS - 1,
            "lastTimestamp": last.max_timestamp,
            "coordinatorEpoch": None,  # -1 on the wire: no transaction coordinator
            "currentTransactionStartOffset": None,
        }],
        f"{topic}-1": [],
    }
