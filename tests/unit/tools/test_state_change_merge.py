"""``pybroker state-change-log merge`` on the lines Kafka 3.9 writes (its own merger, which
looks for ``[topic,partition]``, finds none of them) and on pybroker's."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

from pybroker.cli import build_parser
from pybroker.tools.state_change_merge import merge, run

# Kafka 3.9's lines (controller/PartitionStateMachine.scala, ControllerChannelManager.scala,
# server/ReplicaManager.scala), as its state-change.log has them
CONTROLLER = """\
[2024-10-21 10:41:26,123] INFO [Controller id=1 epoch=3] Changed partition orders-0 state from NonExistentPartition to NewPartition with assigned replicas 1,2,3 (state.change.logger)
[2024-10-21 10:41:26,140] INFO [Controller id=1 epoch=3] Changed partition orders-0 from NewPartition to OnlinePartition with state LeaderAndIsr(leader=1, leaderEpoch=0, isrWithBrokerEpoch=List(BrokerState(brokerId=1, brokerEpoch=-1), BrokerState(brokerId=2, brokerEpoch=-1)), leaderRecoveryState=RECOVERED, partitionEpoch=0) (state.change.logger)
[2024-10-21 10:41:26,141] INFO [Controller id=1 epoch=3] Sending LeaderAndIsr request to broker 2 with 0 become-leader and 1 become-follower partitions (state.change.logger)
[2024-10-21 10:41:26,142] INFO [Controller id=1 epoch=3] Changed partition orders-10 state from NonExistentPartition to NewPartition with assigned replicas 1 (state.change.logger)
[2024-10-21 10:41:26,143] INFO [Controller id=1 epoch=3] Changed partition orders-eu-0 state from NonExistentPartition to NewPartition with assigned replicas 1 (state.change.logger)
[2024-10-21 10:41:30,000] ERROR [Controller id=1 epoch=3] Controller 1 epoch 3 failed to change state for partition orders-1 from OnlinePartition to OnlinePartition
kafka.common.StateChangeFailedException: Failed to elect leader for partition orders-1
\tat kafka.controller.ZkPartitionStateMachine.doElectLeaderForPartitions(PartitionStateMachine.scala:1)
"""
BROKER = """\
[2024-10-21 10:41:26,150] INFO [Broker id=2] Handling LeaderAndIsr request correlationId 5 from controller 1 for 1 partitions (state.change.logger)
[2024-10-21 10:41:26,160] INFO [Broker id=2] Follower orders-0 starts at leader epoch 0 from offset 0 with partition epoch 0 and high watermark 0. Current leader is 1. (state.change.logger)
[2024-10-21 10:41:26,171] INFO [Broker id=2] Finished LeaderAndIsr request in 21ms correlationId 5 from controller 1 for 1 partitions (state.change.logger)
"""


def merged(**filters: object) -> list[str]:
    return [text.split("] ", 1)[0][1:] for text in
            merge([io.StringIO(CONTROLLER), io.StringIO(BROKER)], **filters)]  # type: ignore[arg-type]


def test_the_files_merge_in_time_order() -> None:
    assert merged() == ["2024-10-21 10:41:26,123", "2024-10-21 10:41:26,140",
                        "2024-10-21 10:41:26,141", "2024-10-21 10:41:26,142",
                        "2024-10-21 10:41:26,143", "2024-10-21 10:41:26,150",
                        "2024-10-21 10:41:26,160", "2024-10-21 10:41:26,171",
                        "2024-10-21 10:41:30,000"]


def test_a_topic_keeps_its_partitions_lines_and_no_other_topics() -> None:
    texts = list(merge([io.StringIO(CONTROLLER), io.StringIO(BROKER)], topic="orders"))
    assert [t[1:24] for t in texts] == ["2024-10-21 10:41:26,123", "2024-10-21 10:41:26,140",
                                        "2024-10-21 10:41:26,142", "2024-10-21 10:41:26,160",
                                        "2024-10-21 10:41:30,000"]
    assert not any("orders-eu-0" in t for t in texts)  # another topic, same prefix
    # the stack trace stays with its line
    assert texts[-1].count("\n") == 3 and "StateChangeFailedException" in texts[-1]


def test_partitions_and_the_time_window() -> None:
    assert merged(topic="orders", partitions=[0]) == [
        "2024-10-21 10:41:26,123", "2024-10-21 10:41:26,140", "2024-10-21 10:41:26,160"]
    assert merged(topic="orders", partitions=[10, 1]) == [
        "2024-10-21 10:41:26,142", "2024-10-21 10:41:30,000"]
    assert merged(start="2024-10-21 10:41:26,141", end="2024-10-21 10:41:26,160") == [
        "2024-10-21 10:41:26,141", "2024-10-21 10:41:26,142", "2024-10-21 10:41:26,143",
        "2024-10-21 10:41:26,150", "2024-10-21 10:41:26,160"]


def test_the_pre_1_0_form_is_recognised_too() -> None:
    old = "[2016-01-01 00:00:00,000] TRACE Controller 1 epoch 2 changed state of [orders,0]\n"
    assert len(list(merge([io.StringIO(old)], topic="orders", partitions=[0]))) == 1
    assert list(merge([io.StringIO(old)], topic="orders", partitions=[1])) == []


def test_the_command_line(tmp_path: Path) -> None:
    (tmp_path / "state-change.log").write_text(CONTROLLER)
    (tmp_path / "state-change.log.1").write_text(BROKER)
    out = io.StringIO()
    args = build_parser().parse_args(["state-change-log", "merge", "--logs-regex",
                                      f"{tmp_path}/state-change.log.*", "--topic", "orders",
                                      "--partitions", "0", "--end-time",
                                      "2024-10-21 10:41:26,150"])
    assert run(args, out) == 0
    assert [line[1:24] for line in out.getvalue().splitlines()] == [
        "2024-10-21 10:41:26,123", "2024-10-21 10:41:26,140"]
    # Kafka's checks: --partitions needs --topic, no duplicates, times as Kafka writes them
    for bad in (["--partitions", "0"], ["--topic", "t", "--partitions", "0,0"],
                ["--topic", "t", "--start-time", "yesterday"], []):
        proc = subprocess.run([sys.executable, "-m", "pybroker", "state-change-log", "merge",
                               *(["--logs", str(tmp_path / "state-change.log")] if bad else []),
                               *bad], capture_output=True, text=True, timeout=60)
        assert proc.returncode == 2, (bad, proc.stderr)
