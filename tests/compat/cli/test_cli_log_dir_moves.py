"""Moving replicas between log dirs with Apache Kafka 3.9's own tools: kafka-reassign-partitions
with ``log_dirs`` in its JSON (--execute, then --verify until done) and kafka-log-dirs, against a
pybroker with two log dirs and, to show that the test expects what Kafka prints, against the
reference Kafka 3.9 with two log dirs as well.

The data must survive the move: every record is read back afterwards, and on pybroker the
partitions' directories are checked on disk.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from pybroker.testing.broker_process import BrokerProcess
from pybroker.testing.reference_kafka import ReferenceKafka
from tests.compat.cli.conftest import KafkaCli
from tests.compat.confluent_kafka.helpers import read_back
from tests.compat.log_dirs import (
    overrides_for,
    partition_dirs,
    produce_one_per_batch,
    two_log_dirs,
    value_of,
)
from tests.conftest import REFERENCE_OVERRIDES

pytestmark = [pytest.mark.compat, pytest.mark.timeout(300)]

TARGETS = ["pybroker", "kafka"]


@dataclass(frozen=True)
class Target:
    name: str
    cli: KafkaCli
    bootstrap: str
    log_dirs: tuple[Path, Path]


@pytest.fixture(scope="module")
def pybroker_two_dirs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrokerProcess]:
    data = tmp_path_factory.mktemp("two-dirs") / "kafka-logs"
    broker = BrokerProcess(data, overrides=overrides_for(data))
    try:
        yield broker.start()
    finally:
        broker.stop()


@pytest.fixture(scope="module")
def kafka_two_dirs(kafka_tools_lib: Path, tmp_path_factory: pytest.TempPathFactory,
                   ) -> Iterator[ReferenceKafka]:
    work = tmp_path_factory.mktemp("reference-two-dirs")
    first, second = two_log_dirs(work / "kafka-logs")
    ref = ReferenceKafka(work, lib=kafka_tools_lib, overrides={
        **REFERENCE_OVERRIDES, "log.dirs": f"{first},{second}"})
    try:
        yield ref.start()
    finally:
        ref.stop()


@pytest.fixture(params=TARGETS)
def target(request: pytest.FixtureRequest, kafka_tools_lib: Path) -> Target:
    if request.param == "kafka":
        ref: ReferenceKafka = request.getfixturevalue("kafka_two_dirs")
        dirs = two_log_dirs(ref.work_dir / "kafka-logs")
        return Target("kafka", KafkaCli(ref.bootstrap, kafka_tools_lib), ref.bootstrap, dirs)
    broker: BrokerProcess = request.getfixturevalue("pybroker_two_dirs")
    return Target("pybroker", KafkaCli(broker.bootstrap, kafka_tools_lib), broker.bootstrap,
                  two_log_dirs(broker.data_dir))


def log_dir_report(target: Target, topic: str) -> dict[str, list[dict]]:
    """kafka-log-dirs --describe: log dir -> the topic's replicas there."""
    run = target.cli.tool("kafka-log-dirs", "--describe", "--topic-list", topic)
    assert run.lines[:2] == [
        "Querying brokers for log directories information",
        "Received log directory information from brokers 0",
    ], run.explain()
    [broker] = json.loads(run.lines[2])["brokers"]
    return {d["logDir"]: d["partitions"] for d in broker["logDirs"]}


def test_reassign_partitions_moves_replicas_between_log_dirs(target: Target,
                                                             tmp_path: Path) -> None:
    topic = f"dirs-{uuid.uuid4().hex[:8]}"
    cli = target.cli
    run = cli.tool("kafka-topics", "--create", "--topic", topic, "--partitions", "2")
    assert run.lines == [f"Created topic {topic}."], run.explain()
    counts = {0: 3000, 1: 500}
    for p, n in counts.items():
        produce_one_per_batch(target.bootstrap, topic, range(n), partition=p)
    dirs = [str(d.absolute()) for d in target.log_dirs]
    before = log_dir_report(target, topic)
    assert sorted(before) == sorted(dirs)
    where = {p["partition"]: d for d, ps in before.items() for p in ps}
    assert set(where) == {f"{topic}-0", f"{topic}-1"}
    dest = {p: next(d for d in dirs if d != where[f"{topic}-{p}"]) for p in counts}

    plan = tmp_path / "move.json"
    plan.write_text(json.dumps({"version": 1, "partitions": [
        {"topic": topic, "partition": p, "replicas": [0], "log_dirs": [dest[p]]}
        for p in counts]}))
    run = cli.tool("kafka-reassign-partitions", "--execute", "--reassignment-json-file",
                   str(plan))
    current = {"version": 1, "partitions": [
        {"topic": topic, "partition": p, "replicas": [0], "log_dirs": ["any"]} for p in counts]}
    assert run.lines == [
        "Current partition replica assignment",
        json.dumps(current, separators=(",", ":")),
        "Save this to use as the --reassignment-json-file option during rollback",
        f"Successfully started partition reassignments for {topic}-0,{topic}-1",
        *(f"Successfully started moving log directory to {dest[p]} for replica {topic}-{p} "
          f"with broker 0" for p in counts),
    ], run.explain()

    in_progress = [f"Reassignment of replica {topic}-{p}-0 is still in progress."
                   for p in counts]
    done = [f"Reassignment of replica {topic}-{p}-0 completed successfully." for p in counts]
    deadline = time.monotonic() + 120
    while True:
        run = cli.tool("kafka-reassign-partitions", "--verify",
                       "--reassignment-json-file", str(plan))
        assert run.lines[:3] == [
            "Status of partition reassignment:",
            f"Reassignment of partition {topic}-0 is completed.",
            f"Reassignment of partition {topic}-1 is completed.",
        ], run.explain()
        moves = run.lines[3:5]
        assert all(line in (in_progress[i], done[i]) for i, line in enumerate(moves)), \
            run.explain()
        if moves == done:
            break
        assert time.monotonic() < deadline, run.explain()
        time.sleep(1)
    assert run.lines[5:] == [
        "Clearing broker-level throttles on broker 0",
        f"Clearing topic-level throttles on topic {topic}",
    ], run.explain()

    after = log_dir_report(target, topic)
    for p in counts:
        [replica] = [r for r in after[dest[p]] if r["partition"] == f"{topic}-{p}"]
        assert (replica["offsetLag"], replica["isFuture"]) == (0, False)
        assert replica["size"] > 0
        assert not [r for r in after[where[f"{topic}-{p}"]]
                    if r["partition"] == f"{topic}-{p}"]
    got = read_back(target.bootstrap, topic, counts)
    for p, n in counts.items():
        assert [m.value() for m in got[p]] == [value_of(i) for i in range(n)]
    if target.name == "pybroker":
        for p in counts:
            assert partition_dirs(Path(dest[p]), topic, p) == [f"{topic}-{p}"]
            assert f"{topic}-{p}" not in partition_dirs(Path(where[f"{topic}-{p}"]), topic, p)
