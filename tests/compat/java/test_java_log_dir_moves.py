"""The Java Admin client's alterReplicaLogDirs and describeReplicaLogDirs against a pybroker with
two log dirs, for every kafka-clients release under test: a move seen in progress (the future
replica's dir and lag), cancelled by moving back, started again and completed; the errors Kafka
answers for a dir that is not a log dir and for a partition that does not exist.

The broker copies one batch a step (``replica.fetch.max.bytes=1``) and the partition holds
thousands of one-record batches, so that the move lasts while the client looks at it.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from pybroker.testing.broker_process import BrokerProcess
from tests.compat.confluent_kafka.helpers import read_back
from tests.compat.java.conftest import JavaClient
from tests.compat.log_dirs import (
    current_and_future,
    overrides_for,
    partition_dirs,
    produce_one_per_batch,
    two_log_dirs,
    value_of,
)

pytestmark = [pytest.mark.compat, pytest.mark.timeout(300)]

RECORDS = 20_000


def error(cls: str, message: str) -> dict:
    return {"error": {"class": f"org.apache.kafka.common.errors.{cls}", "message": message}}


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[BrokerProcess]:
    data = tmp_path / "kafka-logs"
    b = BrokerProcess(data, overrides=overrides_for(data, **{"replica.fetch.max.bytes": 1}))
    try:
        yield b.start()
    finally:
        b.stop()


def test_alter_and_describe_replica_log_dirs(java_client: JavaClient,
                                             broker: BrokerProcess) -> None:
    bootstrap = broker.bootstrap
    topic = f"java-dirs-{uuid.uuid4().hex[:8]}"
    [created] = java_client.admin(bootstrap, f"create-topics --topic {topic} --partitions 1")
    assert "error" not in created["result"][topic], created
    produce_one_per_batch(bootstrap, topic, range(RECORDS))
    current, _ = current_and_future(bootstrap, topic, 0)
    assert current is not None
    source = current.log_dir
    dest = next(str(d.absolute()) for d in two_log_dirs(broker.data_dir)
                if str(d.absolute()) != source)
    replica = f"{topic}-0-0"
    which = f"--topic {topic} --partitions 0 --broker 0"

    ops = java_client.admin(
        bootstrap,
        f"describe-replica-log-dirs {which}",
        f"alter-replica-log-dirs {which} --dir {dest}",
        f"describe-replica-log-dirs {which}",
        f"alter-replica-log-dirs {which} --dir {source}",  # back where it is: cancelled
        f"describe-replica-log-dirs {which}",
        f"alter-replica-log-dirs {which} --dir {broker.data_dir.parent / 'not-a-log-dir'}",
        f"alter-replica-log-dirs --topic no-such-{topic} --partitions 0 --broker 0 --dir {dest}",
        f"alter-replica-log-dirs {which} --dir {dest}",  # and again
    )
    results = [op["result"][replica] if replica in op["result"] else op["result"]
               for op in ops]
    assert results[0] == {"currentReplicaLogDir": source, "currentReplicaOffsetLag": 0,
                          "futureReplicaLogDir": None, "futureReplicaOffsetLag": -1}, ops[0]
    assert results[1] == {}, ops[1]
    moving = results[2]
    assert (moving["currentReplicaLogDir"], moving["currentReplicaOffsetLag"]) == (source, 0)
    assert moving["futureReplicaLogDir"] == dest, ops[2]
    assert 0 < moving["futureReplicaOffsetLag"] <= RECORDS, ops[2]
    assert results[3] == {}, ops[3]
    assert results[4] == {"currentReplicaLogDir": source, "currentReplicaOffsetLag": 0,
                          "futureReplicaLogDir": None, "futureReplicaOffsetLag": -1}, ops[4]
    assert results[5] == error(
        "LogDirNotFoundException",
        "The user-specified log directory is not found in the broker config."), ops[5]
    assert results[6] == {f"no-such-{topic}-0-0": error(
        "UnknownTopicOrPartitionException",
        "This server does not host this topic-partition.")}, ops[6]
    assert results[7] == {}, ops[7]

    deadline = time.monotonic() + 120
    while current_and_future(bootstrap, topic, 0)[1] is not None:
        assert time.monotonic() < deadline, "the move did not complete"
        time.sleep(0.1)
    [done, logdirs] = java_client.admin(bootstrap, f"describe-replica-log-dirs {which}",
                                        "describe-log-dirs --broker 0")
    assert done["result"][replica] == {
        "currentReplicaLogDir": dest, "currentReplicaOffsetLag": 0,
        "futureReplicaLogDir": None, "futureReplicaOffsetLag": -1}, done
    by_dir = logdirs["result"]["0"]
    assert by_dir[dest]["replicas"][f"{topic}-0"]["isFuture"] is False
    assert f"{topic}-0" not in by_dir[source]["replicas"]
    assert partition_dirs(Path(dest), topic, 0) == [f"{topic}-0"]
    got = read_back(bootstrap, topic, [0])[0]
    assert [m.value() for m in got] == [value_of(i) for i in range(RECORDS)]
