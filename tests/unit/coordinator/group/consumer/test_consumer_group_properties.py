"""Random runs of a consumer group (hypothesis): members join, leave, heartbeat with or without
acknowledging their revocations, topics grow; after every step no partition is held by two
members, in the coordinator's books or in what the clients believe they own; and once the
members keep heartbeating, the group is Stable with every partition owned exactly once.
(Anomaly 1 of Kafka's KIP-848 implementation: a partition owned by two members.)"""

from __future__ import annotations

from hypothesis import HealthCheck, example, given, settings, strategies as st

from protocol.errors import ErrorCode
from pybroker.coordinator.group.consumer.group import ConsumerGroupState

from .harness import Harness

G = "g"
MEMBERS = [f"m{i}" for i in range(5)]

step = st.one_of(
    st.tuples(st.just("join"), st.sampled_from(MEMBERS), st.booleans()),
    st.tuples(st.just("beat"), st.sampled_from(MEMBERS), st.booleans()),
    st.tuples(st.just("leave"), st.sampled_from(MEMBERS), st.booleans()),
    st.tuples(st.just("grow"), st.sampled_from(["a", "b"]), st.integers(1, 3)),
    st.tuples(st.just("wait"), st.just(""), st.integers(1, 20_000)),
)


class Client:
    """A member as a consumer runs it: ``assigned`` is its latest assignment from the
    coordinator; ``owned`` what it actually reads. A new partition is read at once; one taken
    away is read until the member has revoked it (its rebalance callback, a commit), which it
    reports on a later heartbeat - or not yet, when the test withholds that."""

    def __init__(self) -> None:
        self.epoch = 0
        self.assigned: dict[str, set[int]] = {}
        self.owned: dict[str, set[int]] = {}


def overlap(sets: list[set[tuple[str, int]]]) -> set[tuple[str, int]]:
    seen: set[tuple[str, int]] = set()
    twice: set[tuple[str, int]] = set()
    for s in sets:
        twice |= seen & s
        seen |= s
    return twice


def flat(parts: dict[str, set[int]]) -> set[tuple[str, int]]:
    return {(t, p) for t, ps in parts.items() for p in ps}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(step, min_size=1, max_size=40))
# the second member joins while the first is still reading what it is to give up
@example([("join", "m0", False), ("join", "m1", False), ("beat", "m0", False),
          ("beat", "m1", True), ("beat", "m0", False), ("beat", "m1", True)])
def test_no_partition_is_ever_owned_twice(steps: list[tuple]) -> None:
    h = Harness(session_timeout_ms=30_000)
    h.topics.create("a", 4)
    h.topics.create("b", 2)
    clients: dict[str, Client] = {}

    def apply(member: str, response) -> None:
        client = clients[member]
        if response.error_code in (ErrorCode.FENCED_MEMBER_EPOCH, ErrorCode.UNKNOWN_MEMBER_ID):
            clients.pop(member)  # fenced: releases everything, rejoins later
            return
        assert response.error_code == ErrorCode.NONE, response
        client.epoch = response.member_epoch
        named = h.named(response)
        if named is not None:
            client.assigned = named
            for topic, parts in named.items():
                client.owned.setdefault(topic, set()).update(parts)

    def beat(member: str, revoked: bool) -> None:
        client = clients[member]
        if revoked:  # done with what was taken away
            client.owned = {t: set(ps) for t, ps in client.assigned.items()}
        apply(member, h.heartbeat(G, member, client.epoch, owned=client.owned))

    for kind, who, arg in steps:
        if kind == "join" and who not in clients:
            clients[who] = Client()
            apply(who, h.heartbeat(G, who, 0, topics=["a", "b"] if arg else ["a"]))
        elif kind == "beat" and who in clients:
            beat(who, arg)
        elif kind == "leave" and who in clients:
            response = h.heartbeat(G, who, -1)
            assert response.error_code in (ErrorCode.NONE, ErrorCode.UNKNOWN_MEMBER_ID)
            clients.pop(who)
        elif kind == "grow":
            h.topics.grow(who, len(h.topics.topic(who).partitions) + arg)
        elif kind == "wait":
            h.advance(arg)
            for member in list(clients):
                if h.coordinator.group(G) is None or h.group(G).member(member) is None:
                    clients.pop(member)  # its session timed out
        group = h.coordinator.group(G)
        if group is not None:
            books = [flat({h.topics.topic_name(t): set(ps) for t, ps in
                           {**m.assigned, **{}}.items()}) |
                     flat({h.topics.topic_name(t): set(ps) for t, ps in m.pending_revocation.items()})
                     for m in group.members.values()]
            assert not overlap(books)
        assert not overlap([flat(c.owned) for c in clients.values()])

    # everyone keeps heartbeating and acknowledging: the group settles
    for _ in range(12):
        for member in list(clients):
            beat(member, True)
    if clients:
        group = h.group(G)
        assert group.state is ConsumerGroupState.STABLE
        owned = [flat(c.owned) for c in clients.values()]
        assert not overlap(owned)
        subscribed = {t for m in group.members.values() for t in m.subscribed_topic_names}
        everything = {(t, p) for t in subscribed
                      for p in range(len(h.topics.topic(t).partitions))}
        assert set().union(*owned) == everything
