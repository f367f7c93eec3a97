"""The proof, in its CI form (about two minutes): ZooKeeper and three brokers on 127.0.0.2-4,
topics at replication factor 3 with ``min.insync.replicas=2``, idempotent acks=all producers
(confluent-kafka and the Java client through Kafka's ``VerifiableProducer``) writing numbered
records without pause and a consumer group reading, while a seeded nemesis kill -9s random
brokers (leaders and the controller included) and restarts them, and freezes them with SIGSTOP
past the ZooKeeper session timeout. At the end every acknowledged record is in the log exactly
once, in order, at the offset acknowledged; the group read nothing that is not there; every
replica is byte-identical up to the high watermark (``pybroker.testing.chaos``); and after the
last fault every partition acknowledges writes again (with ``min.insync.replicas=2`` that needs
the ISR to grow back as restarted followers catch up).

``CHAOS_SEED`` picks another seed (the one used is printed); ``CHAOS_FAULTS`` other fault kinds
(``kill,freeze,cut,isolate``: the network cuts need iptables, root and cgroup v2, and without
ISR shrinking a cut stalls acks=all on the partitions the cut broker follows until it heals).
``make chaos`` runs the same for as long as asked and writes a report.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pybroker.testing.chaos import ChaosConfig, run_chaos
from pybroker.testing.chaos_workload import JavaProducer
from pybroker.testing.nemesis import NETWORK_FAULTS, Endpoint, network_faults_missing
from pybroker.testing.zookeeper import ZooKeeperServer

SEED = int(os.environ.get("CHAOS_SEED", "15"))
FAULTS = tuple(os.environ.get("CHAOS_FAULTS", "kill,freeze").split(","))


@pytest.mark.timeout(600)
def test_no_acknowledged_write_lost_under_kills_and_freezes(
        tmp_path: Path, zk_connect: str, zookeeper_server: ZooKeeperServer,
        kafka_tools_lib: Path) -> None:
    missing = JavaProducer.missing(kafka_tools_lib)
    if NETWORK_FAULTS & set(FAULTS):
        missing += network_faults_missing()
    if missing:
        pytest.skip(f"SKIPPED: the chaos test needs {'; '.join(missing)}")
    config = ChaosConfig(duration=75, seed=SEED, faults=FAULTS, rate=150, settle=10)
    print(f"\nchaos seed {SEED} (CHAOS_SEED), faults {','.join(FAULTS)} (CHAOS_FAULTS)")
    result = run_chaos(config, tmp_path, zk_connect,
                       Endpoint("127.0.0.1", zookeeper_server.port))
    print(result.summary())
    assert result.counts["faults"] >= 5, result.summary()
    assert {f.kind for f in result.faults} == set(FAULTS), result.summary()
    # nothing acknowledged lost, misplaced or doubled; no read of data that disappeared; no
    # divergent replica
    assert result.safety_failures == [], result.summary()
    # every partition takes writes again after the last fault, and the group read everything
    assert result.liveness_failures == [], result.summary()
