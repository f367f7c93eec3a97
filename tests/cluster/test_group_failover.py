"""A consumer group across broker failures, with exact counts: three pybroker processes on the
session's ZooKeeper, a topic at replication factor 3 with ``min.insync.replicas=2``, an
idempotent acks=all producer writing numbered records throughout, and a group of two members
reading and committing after every poll. Mid-run the group's coordinator (the leader of its
``__consumer_offsets`` partition, computed as Kafka computes it) is killed with SIGKILL and
restarted, then a broker leading a partition of the topic and not coordinating the group.

At the end:

* every acknowledged record was read (set equality), and nothing else;
* records read twice only after a kill, from no lower than the last offset the group committed
  before it, so the duplicates stay within what it read after that commit;
* the offsets the new coordinator holds are the ones the group committed, also right after the
  kill (a commit acknowledged by the old coordinator is not lost), and a group committing
  without pause up to the kill (a witness sharing the coordinator) finds its last acknowledged
  commit there.

Before the second kill the restarted broker must be back in every ISR (its leaders take it back
once it has caught up), or ``min.insync.replicas=2`` would refuse the writes. The same run with
librdkafka (confluent-kafka), kafka-python's ``KafkaConsumer`` and the Java client through
Kafka's own ``VerifiableConsumer``. Each failover's duration (the kill to the
first acknowledged write sent after it, and to the group's first successful commit) is printed.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from protocol.errors import ErrorCode
from pybroker.coordinator.partitioning import OFFSETS_TOPIC
from pybroker.testing.cluster import ClusterProcesses, running_cluster
from pybroker.testing.failover import (
    Commit,
    GroupVerdict,
    agreed_states,
    commit_offset,
    committed_at,
    fetch_committed,
    find_coordinator,
    first_ack_after,
    full_isr,
    group_sharing_partition,
    judge_group,
    longest_gap,
)
from pybroker.testing.wire_client import WireClient
from tests.cluster.failover_clients import (
    ConfluentMember,
    GroupMember,
    KafkaPythonMember,
    MemberFactory,
    NumberedProducer,
    VerifiableConsumerMember,
    create_topic,
    settled_coordinator,
    wait_until,
)
from tests.compat.test_topic_deletion_offsets import check_deletion_removes_offsets

OFFSETS_PARTITIONS = 3
PARTITIONS = 3  # one led by each broker: after any one kill, both survivors lead some
OVERRIDES = {"offsets.topic.num.partitions": OFFSETS_PARTITIONS}
#: time for a failover: the ZooKeeper session timeout (6 s), the election, the clients' retries
FAILOVER_TIMEOUT = 40.0


@pytest.fixture
def cluster(tmp_path: Path, zk_connect: str) -> Iterator[ClusterProcesses]:
    with running_cluster(tmp_path / "cluster", zk_connect, overrides=OVERRIDES) as c:
        yield c


# -- a group committing without pause ----------------------------------------------------------


class CommitWitness:
    """Commits offsets 1, 2, 3, ... for partition 0 of ``topic`` under ``group`` (no members)
    to ``coordinator`` as fast as it answers, until the connection fails; remembers the last
    one acknowledged."""

    def __init__(self, bootstrap: str, group: str, topic: str) -> None:
        self.bootstrap, self.group, self.topic = bootstrap, group, topic
        self.last_acked = 0
        self.errors: list[str] = []
        self._thread = threading.Thread(target=self._run, name="witness", daemon=True)

    def _run(self) -> None:
        try:
            with WireClient(self.bootstrap, timeout=5) as client:
                while True:
                    error = commit_offset(client, self.group, self.topic, 0, self.last_acked + 1)
                    if error != ErrorCode.NONE:
                        self.errors.append(error.name)
                        return
                    self.last_acked += 1
        except OSError as exc:  # the coordinator died: the end of the witness
            self.errors.append(f"{type(exc).__name__}: {exc}")

    def start(self) -> CommitWitness:
        self._thread.start()
        return self

    def join(self) -> None:
        self._thread.join(15)


# -- the run ------------------------------------------------------------------------------------


@dataclass
class Failover:
    what: str
    broker: int
    killed: float
    #: seconds from the kill to the first acknowledged write sent after it
    producer: float
    #: seconds from the kill to each member's first successful commit after it
    commits: dict[str, float]
    rejoined: float = 0.0
    notes: list[str] = field(default_factory=list)

    def report(self) -> str:
        commits = ", ".join(f"{m} {s:.1f}s" for m, s in sorted(self.commits.items()))
        return (f"killed broker {self.broker} ({self.what}): first acknowledged write after "
                f"{self.producer:.1f}s; first commits after {commits}; restarted and back in "
                f"every ISR {self.rejoined:.1f}s after the kill"
                + "".join(f"; {n}" for n in self.notes))


class GroupRun:
    def __init__(self, cluster: ClusterProcesses, client: str, make_member: MemberFactory
                 ) -> None:
        self.cluster = cluster
        self.client = client
        suffix = uuid.uuid4().hex[:6]
        self.topic = f"orders-{client}-{suffix}"
        self.group = f"readers-{client}-{suffix}"
        self.make_member = make_member
        self.members: list[GroupMember] = []
        self.producer: NumberedProducer | None = None
        self.failovers: list[Failover] = []
        #: what went wrong on the way; the run goes on to judge everything else
        self.problems: list[str] = []

    def all_commits(self) -> list[Commit]:
        return [c for m in self.members for c in list(m.commits)]

    def start(self) -> None:
        create_topic(self.cluster, self.topic, PARTITIONS)
        # the first FindCoordinator creates __consumer_offsets: have it there, fully in sync
        wait_until(lambda: find_coordinator(self.cluster.bootstrap.split(",")[0],
                                            self.group) >= 0, 30, "a coordinator")
        wait_until(lambda: full_isr(self.cluster, OFFSETS_TOPIC), 30,
                   f"{OFFSETS_TOPIC} with every replica in sync")
        self.members = [self.make_member(self.cluster.bootstrap, self.topic, self.group,
                                         f"{self.client}-{i}") for i in (1, 2)]
        for m in self.members:
            m.start()
        # the group is formed before anything is written: no record read before a rebalance
        wait_until(lambda: all(m.assigned for m in self.members) and sorted(
            p for m in self.members for p in m.assigned) == list(range(PARTITIONS)),
            60, "both members assigned every partition between them")
        self.producer = NumberedProducer(self.cluster.bootstrap, self.topic, PARTITIONS,
                                         name=f"{self.client}-producer", rate=300).start()
        wait_until(lambda: all(any(c.ok for c in m.commits) for m in self.members), 30,
                   "both members committing")

    def kill(self, broker: int, what: str, witness: CommitWitness | None = None) -> Failover:
        producer = self.producer
        assert producer is not None
        killed = time.time()
        self.cluster.broker(broker).kill()
        acked = wait_until(lambda: first_ack_after(producer.ack_times(), killed) is not None,
                           FAILOVER_TIMEOUT, f"a write acknowledged after broker {broker}'s kill")
        assert acked
        firsts: dict[str, float] = {}

        def every_member_committed() -> bool:
            for m in self.members:
                after = [c.at for c in list(m.commits) if c.ok and c.at > killed]
                if after:
                    firsts[m.name] = min(after) - killed
            return len(firsts) == len(self.members)

        wait_until(every_member_committed, FAILOVER_TIMEOUT,
                   f"both members committing again after broker {broker}'s kill")
        first = first_ack_after(producer.ack_times(), killed)
        assert first is not None
        failover = Failover(what, broker, killed, first, firsts)
        self.failovers.append(failover)
        return failover

    def restart(self, failover: Failover) -> None:
        self.cluster.broker(failover.broker).start()
        wait_until(lambda: full_isr(self.cluster, self.topic)
                   and full_isr(self.cluster, OFFSETS_TOPIC), 60,
                   f"broker {failover.broker} back in the ISR of {self.topic} and "
                   f"{OFFSETS_TOPIC} (the leaders expand the ISR once it has caught up)")
        failover.rejoined = time.time() - failover.killed

    def stop(self) -> None:
        for m in self.members:
            m.request_stop()  # every member stops reading at once: no rebalance to re-read
        for m in self.members:
            m.stop()


def run_group_across_failovers(cluster: ClusterProcesses, client: str,
                               make_member: MemberFactory,
                               describe: Callable[[], str] = lambda: "") -> None:
    run = GroupRun(cluster, client, make_member)
    try:
        run.start()
        producer = run.producer
        assert producer is not None

        # 1. the group's coordinator, with a witness committing up to the kill
        coordinator = settled_coordinator(cluster, run.group, 10)
        witness_group = group_sharing_partition(run.group, OFFSETS_PARTITIONS, f"{run.group}-w")
        witness = CommitWitness(cluster.broker(coordinator).bootstrap, witness_group,
                                run.topic).start()
        wait_until(lambda: witness.last_acked >= 200, 10, "the witness committing")
        failover = run.kill(coordinator, "the group's coordinator")
        witness.join()
        new_coordinator = settled_coordinator(cluster, run.group, FAILOVER_TIMEOUT)
        assert new_coordinator != coordinator
        # no acknowledged commit lost: the witness's last one, and the group's before the kill
        held = fetch_committed(cluster.broker(new_coordinator).bootstrap, witness_group,
                               run.topic, [0])[0]
        failover.notes.append(f"new coordinator {new_coordinator} holds the witness's "
                              f"commit {held} (last acknowledged {witness.last_acked})")
        if held not in (witness.last_acked, witness.last_acked + 1):
            run.problems.append(
                f"acknowledged commits lost: the witness's last acknowledged commit was "
                f"{witness.last_acked}; broker {new_coordinator}, the new coordinator, holds "
                f"{held}")
        before = committed_at(run.all_commits(), failover.killed)
        now = fetch_committed(cluster.broker(new_coordinator).bootstrap, run.group, run.topic,
                              range(PARTITIONS))
        if any(now[p] < o for p, o in before.items()):
            run.problems.append(f"the group's commits before the kill {before}; the new "
                                f"coordinator holds {now}")
        run.restart(failover)
        print(f"\n[{client}] {failover.report()}")

        # 2. a broker leading a partition of the topic and not coordinating the group
        states = agreed_states(cluster, run.topic)
        assert states
        leaders = {leader for leader, _, _ in states.values()} - {new_coordinator}
        assert leaders, f"broker {new_coordinator} leads every partition: {states}"
        victim = min(leaders)
        failover = run.kill(victim, "a partition leader")
        run.restart(failover)
        print(f"[{client}] {failover.report()}")

        time.sleep(1)
        left = producer.stop()
        assert left == 0 and producer.errors == [], (left, producer.errors[:5])
        acked = set(producer.acked_values())
        wait_until(lambda: acked <= {r.value for m in run.members for r in list(m.reads)}, 60,
                   "the group to read every acknowledged record")
        wait_until(lambda: committed_at(run.all_commits()) == read_ends(run), 30,
                   "the members' commits of everything they read")
        run.stop()
        reads = [r for m in run.members for r in m.reads]
        verdict = judge_group(acked, reads, run.all_commits(),
                              [f.killed for f in run.failovers])
        report(client, run, verdict, producer)
        for m in run.members:
            if m.errors:
                run.problems.append(f"{m.name}: {m.errors[:5]}")
        if any(verdict.failures.values()):
            run.problems.append(f"{verdict.failures}; unexplained re-reads "
                                f"{verdict.unexplained[:5]}; missing {verdict.missing[:5]}")

        # the committed offsets the coordinator holds are the group's last commits: the end
        # of every partition, since the group read and committed everything
        coordinator = settled_coordinator(cluster, run.group, 10)
        held_at_end = fetch_committed(cluster.broker(coordinator).bootstrap, run.group,
                                      run.topic, range(PARTITIONS))
        ends = {p: 1 + max(a.offset for a in producer.acks if a.partition == p)
                for p in range(PARTITIONS)}
        if verdict.committed != ends:
            run.problems.append(f"the group's last commits {verdict.committed} are not the "
                                f"ends of the partitions {ends}")
        if held_at_end != verdict.committed:
            run.problems.append(f"coordinator {coordinator} holds {held_at_end}; the group's "
                                f"last commits were {verdict.committed}")
        assert run.problems == [], "\n".join(run.problems)
    except BaseException:
        for problem in run.problems:
            print(f"[{client}] also: {problem}")
        extra = describe()
        if extra:
            print(extra)
        raise
    finally:
        if run.producer is not None:
            run.producer.stop(5)
        for m in run.members:
            try:
                m.stop()
            except AssertionError as exc:
                print(f"{m.name}: {exc}")


def read_ends(run: GroupRun) -> dict[int, int]:
    """partition -> the offset after the last record the group read of it."""
    ends: dict[int, int] = {}
    for m in run.members:
        for r in list(m.reads):
            ends[r.partition] = max(ends.get(r.partition, 0), r.offset + 1)
    return ends


def report(client: str, run: GroupRun, verdict: GroupVerdict,
           producer: NumberedProducer) -> None:
    acks = [a.acked for a in producer.acks]
    gap = longest_gap(acks, min(a.sent for a in producer.acks), max(acks))
    print(f"[{client}] {verdict.summary()}; longest wait for an acknowledgement {gap:.1f}s")
    for rw in verdict.rewinds:
        print(f"[{client}]   re-read partition {rw.partition} from {rw.start} (had read to "
              f"{rw.high}; committed {rw.committed} before the kill at {rw.fault})")


# -- the clients --------------------------------------------------------------------------------


@pytest.mark.long  # make test-long: CI keeps the Java client's run
def test_confluent_kafka_group_across_coordinator_and_leader_kills(
        cluster: ClusterProcesses) -> None:
    run_group_across_failovers(cluster, "librdkafka", ConfluentMember)


@pytest.mark.long  # make test-long: CI keeps the Java client's run
def test_kafka_python_group_across_coordinator_and_leader_kills(
        cluster: ClusterProcesses) -> None:
    run_group_across_failovers(cluster, "kafka-python", KafkaPythonMember)


def test_java_verifiable_consumer_group_across_coordinator_and_leader_kills(
        cluster: ClusterProcesses, kafka_tools_lib: Path, tmp_path: Path) -> None:
    members: list[VerifiableConsumerMember] = []

    def make(bootstrap: str, topic: str, group: str, name: str) -> GroupMember:
        member = VerifiableConsumerMember(bootstrap, topic, group, name, lib=kafka_tools_lib,
                                          log_dir=tmp_path / "java")
        members.append(member)
        return member

    def describe() -> str:
        return "\n".join(f"--- {m.name} stderr ---\n{m.stderr_tail(15)}" for m in members)

    run_group_across_failovers(cluster, "java", make, describe)
    assert all(m.shutdown_complete for m in members)



def test_deleting_a_topic_removes_the_groups_offsets_for_it(cluster) -> None:
    """In ZooKeeper mode every broker hears of a deletion through UpdateMetadata (leader -2),
    and the group's coordinator drops the topic's offsets whether it hosts a replica or not."""
    check_deletion_removes_offsets(cluster.bootstrap)
