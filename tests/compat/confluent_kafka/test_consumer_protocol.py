"""confluent-kafka (librdkafka) with ``group.protocol=consumer`` (KIP-848), against pybroker and
against Apache Kafka 4.1 with the same assertions: each member is a process of its own
(:mod:`.consumer_member`) that commits every record before it reports it, so a record reported
twice means a partition was read by two members at once, or an offset went back.

* three members share six partitions; one is killed with SIGKILL and one added meanwhile;
  every record is reported exactly once, and the survivors and the newcomer end up with all
  six partitions between them;
* a regex subscription picks up a topic created after the member joined;
* static members (``group.instance.id``): a member restarted with its instance id gets its
  partitions back.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator

import pytest
from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic

from pybroker.testing.broker_process import REPO_ROOT

pytestmark = pytest.mark.compat


class Member:
    """A consumer process and the lines it printed."""

    def __init__(self, bootstrap: str, group: str, subscription: str,
                 instance: str | None = None, protocol: str = "consumer",
                 command: list[str] | None = None) -> None:
        """A librdkafka member (:mod:`.consumer_member`), or ``command`` (another client's
        member program printing the same lines)."""
        args = command or [sys.executable, "-m", "tests.compat.confluent_kafka.consumer_member",
                           bootstrap, group, protocol, subscription]
        if instance and command is None:
            args.append(instance)
        self.proc = subprocess.Popen(args, cwd=REPO_ROOT, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True,
                                     env={**os.environ, "PYTHONPATH": str(REPO_ROOT)})
        self.lines: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line.rstrip("\n"))

    def records(self) -> list[tuple[str, int, int]]:
        out = []
        for line in list(self.lines):
            if line.startswith("record "):
                _, topic, partition, offset = line.split()
                out.append((topic, int(partition), int(offset)))
        return out

    def assignment(self) -> set[str]:
        """What the member holds now, from its assigned/revoked/lost lines."""
        held: set[str] = set()
        for line in list(self.lines):
            kind, *parts = line.split()
            if kind == "assigned":
                held |= set(parts)
            elif kind in ("revoked", "lost"):
                held -= set(parts)
        return held

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        self._reader.join(5)


@pytest.fixture
def members() -> Iterator[list[Member]]:
    started: list[Member] = []
    try:
        yield started
    finally:
        for m in started:
            m.stop()


def create(bootstrap: str, topic: str, partitions: int) -> None:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(topic, partitions, 1)])[topic].result(30)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        t = admin.list_topics(topic, timeout=10).topics.get(topic)
        if t is not None and t.error is None and len(t.partitions) == partitions and all(
                p.leader >= 0 for p in t.partitions.values()):
            return
        time.sleep(0.1)
    raise AssertionError(f"topic {topic} has no leaders")


def produce(bootstrap: str, topic: str, partitions: int, per_partition: int) -> None:
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5})
    for p in range(partitions):
        for i in range(per_partition):
            producer.produce(topic, b"v%d" % i, partition=p)
    assert producer.flush(30) == 0


def wait_for(what: str, done, timeout: float = 90.0) -> None:
    deadline = time.monotonic() + timeout
    while not done():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.2)


def reported(members: list[Member]) -> Counter:
    return Counter(r for m in members for r in m.records())


def test_three_members_share_six_partitions_through_a_kill_and_a_join(
        kip848_bootstrap: str, members: list[Member]) -> None:
    topic, group = f"kip848-{uuid.uuid4().hex[:8]}", f"g-{uuid.uuid4().hex[:8]}"
    create(kip848_bootstrap, topic, 6)
    produce(kip848_bootstrap, topic, 6, 50)
    members += [Member(kip848_bootstrap, group, topic) for _ in range(3)]
    wait_for("300 records", lambda: sum(reported(members).values()) >= 300)
    wait_for("every member to hold partitions",
             lambda: all(len(m.assignment()) == 2 for m in members))
    members[2].kill()
    members.append(Member(kip848_bootstrap, group, topic))
    produce(kip848_bootstrap, topic, 6, 50)
    wait_for("600 records", lambda: sum(reported(members).values()) >= 600, timeout=120)
    counts = reported(members)
    assert len(counts) == 600
    assert max(counts.values()) == 1, [r for r, n in counts.items() if n > 1]
    expected = {(topic, p, o) for p in range(6) for o in range(100)}
    assert set(counts) == expected
    live = [members[0], members[1], members[3]]
    wait_for("the live members to hold all six partitions",
             lambda: sorted(p for m in live for p in m.assignment())
             == sorted(f"{topic}:{p}" for p in range(6)))


def test_a_regex_subscription_picks_up_a_new_topic(kip848_bootstrap: str,
                                                   members: list[Member]) -> None:
    prefix = f"rx{uuid.uuid4().hex[:6]}"
    create(kip848_bootstrap, f"{prefix}-a", 2)
    create(kip848_bootstrap, f"other{prefix}", 1)
    produce(kip848_bootstrap, f"{prefix}-a", 2, 5)
    produce(kip848_bootstrap, f"other{prefix}", 1, 5)
    members.append(Member(kip848_bootstrap, f"g-{prefix}", f"^{prefix}-.*"))
    wait_for("the first topic", lambda: len(members[0].records()) >= 10)
    create(kip848_bootstrap, f"{prefix}-b", 1)
    produce(kip848_bootstrap, f"{prefix}-b", 1, 5)
    wait_for("the new topic", lambda: len(members[0].records()) >= 15, timeout=120)
    topics = {t for t, _, _ in members[0].records()}
    assert topics == {f"{prefix}-a", f"{prefix}-b"}


def test_a_restarted_static_member_gets_its_partitions_back(kip848_bootstrap: str,
                                                            members: list[Member]) -> None:
    topic, group = f"static-{uuid.uuid4().hex[:8]}", f"g-{uuid.uuid4().hex[:8]}"
    create(kip848_bootstrap, topic, 4)
    produce(kip848_bootstrap, topic, 4, 10)
    members += [Member(kip848_bootstrap, group, topic, instance="i-1"),
                Member(kip848_bootstrap, group, topic, instance="i-2")]
    wait_for("both to hold two partitions",
             lambda: all(len(m.assignment()) == 2 for m in members))
    before = members[0].assignment()
    members[0].stop()  # a static member's close leaves with epoch -2: its partitions wait
    members.append(Member(kip848_bootstrap, group, topic, instance="i-1"))
    wait_for("the new process to get i-1's partitions",
             lambda: members[2].assignment() == before, timeout=60)
    assert members[1].assignment().isdisjoint(before)
    assert max(reported(members).values()) == 1
