"""franz-go's group consumer with its KIP-848 balancer (``ServerSideBalancer``), against
pybroker and against Apache Kafka 4.1 with the same assertions: two members
(``tools/franz-consumer``, each a process) share four partitions, a third joins and one is
killed with SIGKILL meanwhile; every record is reported exactly once (each is committed before
it is reported), and the live members end up holding all four partitions between them."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from pybroker.testing.peers import PeerError, build_franz_consumer, go_tool
from tests.compat.confluent_kafka.test_consumer_protocol import (
    Member,
    create,
    produce,
    reported,
    wait_for,
)

pytestmark = pytest.mark.compat


@pytest.fixture(scope="module")
def franz_consumer() -> Path:
    if go_tool() is None:
        pytest.skip("SKIPPED LOUDLY: no Go toolchain here to build franz-go's consumer")
    try:
        return build_franz_consumer()
    except PeerError as exc:
        pytest.fail(str(exc))


@pytest.fixture
def members() -> Iterator[list[Member]]:
    started: list[Member] = []
    try:
        yield started
    finally:
        for m in started:
            m.stop()


def test_franz_go_members_share_partitions_through_a_kill(
        franz_consumer: Path, kip848_bootstrap: str, members: list[Member]) -> None:
    topic, group = f"franz848-{uuid.uuid4().hex[:6]}", f"fg-{uuid.uuid4().hex[:6]}"
    create(kip848_bootstrap, topic, 4)
    produce(kip848_bootstrap, topic, 4, 25)

    def member() -> Member:
        return Member(kip848_bootstrap, group, topic,
                      command=[str(franz_consumer), kip848_bootstrap, group, topic, "consumer"])

    members += [member(), member()]
    wait_for("100 records", lambda: sum(reported(members).values()) >= 100)
    wait_for("both to hold two partitions", lambda: all(len(m.assignment()) == 2
                                                        for m in members))
    members.append(member())
    members[0].kill()
    produce(kip848_bootstrap, topic, 4, 25)
    wait_for("200 records", lambda: sum(reported(members).values()) >= 200, timeout=120)
    counts = reported(members)
    assert max(counts.values()) == 1, [r for r, n in counts.items() if n > 1]
    assert set(counts) == {(topic, p, o) for p in range(4) for o in range(50)}
    live = members[1:]
    wait_for("the live members to hold all four partitions",
             lambda: sorted(p for m in live for p in m.assignment())
             == sorted(f"{topic}:{p}" for p in range(4)))
