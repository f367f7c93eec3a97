"""The proof, in its CI form (about two minutes): ZooKeeper and three brokers on 127.0.0.2-4,
topics at replication factor 3 with ``min.insync.replicas=2``, under load - idempotent acks=all
producers (confluent-kafka and the Java client through Kafka's ``VerifiableProducer``) writing
numbered records without pause and a consumer group reading them; the split probe writing
acks=1 and acks=all records straight to every broker; transactions over several partitions
committed and aborted at random, read by a read_committed group; a group committing its offsets,
sampled throughout - while a seeded nemesis goes once through every fault kind, in an order the
seed picks:

* ``kill``: kill -9 a broker (leaders and the controller included) and restart it;
* ``freeze``: SIGSTOP one past the ZooKeeper session timeout;
* ``cut``: cut one off from the other brokers, then heal; ``isolate``: from ZooKeeper too;
* ``split``: cut the leader of a ``chaos-split`` partition off from the brokers and ZooKeeper
  while clients still reach it, until another leader is elected;
* ``zk-cut``: cut the controller off from ZooKeeper only, until its session expires and
  another broker is the controller;
* ``zk-kill``: kill -9 ZooKeeper under load and start it again on the same port and data;
* ``disk``: fill a broker's log dir (a tmpfs of its own) for a few seconds, then free it: the
  broker halts, and is started again once there is room.

At the end every acknowledged record is in the log exactly once, in order, at the offset
acknowledged; the group read nothing that is not there; every replica is byte-identical up to
the high watermark (``pybroker.testing.chaos``); after the last fault every partition
acknowledges writes again. The split leader acknowledged no acks=all write after its ISR could
no longer be kept, lost none it had acknowledged, and the acks=1 writes it took after the cut
were truncated when it rejoined, as its state-change log records; no broker applied a control
request of a deposed controller's epoch; no partition stalled longer than a few seconds during
and after the ZooKeeper faults; no aborted transaction's value was ever read and every committed
one was read whole, in order; committed offsets never went backwards nor past the high
watermark. The faults are checked to have bitten: the split had a new leader and truncated
writes, the ZooKeeper cut a new controller, the full disk halted its broker.

``CHAOS_SEED`` picks another seed (the one used is printed); ``CHAOS_FAULTS`` other fault kinds
(default: all of them). The network faults need iptables, root and cgroup v2, the disk fault
root (to mount a tmpfs): where one is missing the run goes on without them and says so loudly.
``make chaos`` runs the same for as long as asked and writes a report.
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path

import pytest

from pybroker.testing.chaos import ChaosConfig, ChaosResult, run_chaos
from pybroker.testing.chaos_workload import JavaProducer
from pybroker.testing.disk import disk_faults_missing
from pybroker.testing.nemesis import (
    DISK_FAULTS,
    FAULT_KINDS,
    NETWORK_FAULTS,
    Endpoint,
    network_faults_missing,
)
from pybroker.testing.zookeeper import ZooKeeperServer

SEED = int(os.environ.get("CHAOS_SEED", "15"))
FAULTS = tuple(os.environ.get("CHAOS_FAULTS", ",".join(FAULT_KINDS)).split(","))


def check_the_faults_bit(result: ChaosResult) -> None:
    """A fault that changed nothing proves nothing: each ZooKeeper cut deposed its controller,
    each full disk halted its broker, and a split had another leader elected and acks=1 writes
    of the cut leader truncated."""
    summary = result.summary()
    for f in result.faults:
        if f.kind == "zk-cut":
            assert f.ended is not None
            deposed = [t for t in result.fencing.takeovers
                       if f.started < t.at < f.ended and t.previous == f.broker]
            assert deposed, f"the zk-cut at t={f.started:.1f}s elected no new controller\n" \
                            + summary
        if f.kind == "disk":
            assert f.note.startswith("halted"), \
                f"the broker whose disk filled at t={f.started:.1f}s did not halt\n" + summary
    if result.split is not None and result.split.splits:
        assert any(o.new_leader is not None and o.truncated for o in result.split.splits), \
            "no split had a new leader and truncated writes\n" + summary


@pytest.mark.timeout(720)
def test_no_acknowledged_write_lost_under_faults(
        tmp_path: Path, zk_chroot: str, kafka_tools_lib: Path) -> None:
    missing = JavaProducer.missing(kafka_tools_lib)
    if missing:
        pytest.skip(f"SKIPPED: the chaos test needs {'; '.join(missing)}")
    faults = FAULTS
    network_missing = network_faults_missing() if NETWORK_FAULTS & set(faults) else []
    if network_missing:
        faults = tuple(f for f in faults if f not in NETWORK_FAULTS)
        warnings.warn(f"NO NETWORK CUTS in the chaos test: they need {'; '.join(network_missing)}",
                      stacklevel=1)
        print(f"\n*** NO NETWORK CUTS: they need {'; '.join(network_missing)} ***")
        if not faults:
            pytest.skip(f"SKIPPED: network faults need {'; '.join(network_missing)}")
    disk_missing = disk_faults_missing() if DISK_FAULTS & set(faults) else []
    if disk_missing:
        faults = tuple(f for f in faults if f not in DISK_FAULTS)
        warnings.warn(f"NO DISK FAULTS in the chaos test: they need {'; '.join(disk_missing)}",
                      stacklevel=1)
        print(f"\n*** NO DISK FAULTS: they need {'; '.join(disk_missing)} ***")
    # one round of every kind; the duration only bounds it
    config = ChaosConfig(duration=300, rounds=1, seed=SEED, faults=faults, rate=120, settle=10)
    print(f"\nchaos seed {SEED} (CHAOS_SEED), faults {','.join(faults)} (CHAOS_FAULTS)")
    # a ZooKeeper of the test's own: zk-kill kills it
    with ZooKeeperServer(tmp_path / "zookeeper", lib=kafka_tools_lib) as zookeeper:
        result = run_chaos(config, tmp_path, zookeeper.connect_string(zk_chroot),
                           Endpoint("127.0.0.1", zookeeper.port), zookeeper_server=zookeeper)
    print(result.summary())
    assert sorted(f.kind for f in result.faults) == sorted(faults), result.summary()
    # nothing acknowledged lost, misplaced or doubled; no read of data that disappeared; no
    # divergent replica; the split, the controllers, the transactions and the offsets held
    assert result.safety_failures == [], result.summary()
    # every partition takes writes again after the last fault, the groups read everything,
    # and the ZooKeeper faults stalled nothing for long
    assert result.liveness_failures == [], result.summary()
    check_the_faults_bit(result)
    assert result.txns is not None and result.txns.committed and result.txns.aborted
    assert result.offsets is not None and result.offsets.samples and result.offsets.commits
