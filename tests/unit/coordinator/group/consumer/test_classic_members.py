"""Classic members inside a KIP-848 consumer group, on a manual clock (Kafka's
``classicGroup*ToConsumerGroup``): what the differential tests cannot wait for - the classic
member's own session timeout, the sync and rejoin deadlines - and the records a new coordinator
rebuilds the member from."""

from __future__ import annotations

import struct

from protocol.errors import ErrorCode
from protocol.messages import (
    consumer_protocol_assignment as cpa,
    consumer_protocol_subscription as cps,
)
from pybroker.coordinator.group import JoinRequest, LeavingMember, SyncRequest

from .harness import Harness

E = ErrorCode
G = "group"


def subscription(topics: list[str], version: int = 1, owned: dict[str, list[int]] | None = None,
                 ) -> bytes:
    body = cps.encode(cps.ConsumerProtocolSubscription(
        topics=topics, user_data=None, owned_partitions=[
            cps.TopicPartition(topic=t, partitions=ps) for t, ps in (owned or {}).items()]),
        version)
    return struct.pack(">h", version) + body


def join(h: Harness, member_id: str, *, session_ms: int = 10_000, rebalance_ms: int = 20_000,
         owned: dict[str, list[int]] | None = None, names: tuple[str, ...] = ("range",)):
    return h.coordinator.classic_join(JoinRequest(
        group_id=G, member_id=member_id, group_instance_id=None, client_id="classic",
        client_host="/127.0.0.1", rebalance_timeout_ms=rebalance_ms,
        session_timeout_ms=session_ms, protocol_type="consumer",
        protocols=[(n, subscription(["foo"], owned=owned)) for n in names]), h.clock.now_ms)


def sync(h: Harness, member_id: str, generation: int):
    return h.coordinator.classic_sync(SyncRequest(
        group_id=G, generation_id=generation, member_id=member_id, group_instance_id=None,
        assignments={}, protocol_type="consumer", protocol_name="range"), h.clock.now_ms)


def partitions(result) -> list[int]:
    data = bytes(result.assignment)
    (version,) = struct.unpack_from(">h", data)
    assert version == 1  # the version of the member's subscription
    return sorted(p for tp in cpa.decode(data[2:], version).assigned_partitions
                  for p in tp.partitions)


def group_with_a_consumer_member() -> Harness:
    h = Harness()
    h.topics.create("foo", 4)
    r = h.heartbeat(G, "a", 0, topics=["foo"])
    h.heartbeat(G, "a", r.member_epoch, owned={"foo": set(range(4))})
    return h


def test_a_classic_member_joins_syncs_and_is_told_to_rejoin() -> None:
    h = group_with_a_consumer_member()
    first = join(h, "")
    assert first.error_code == E.MEMBER_ID_REQUIRED
    joined = join(h, first.member_id)
    c = joined.member_id
    assert (joined.error_code, joined.protocol_type, joined.protocol_name, joined.members,
            joined.leader_id) == (E.NONE, "consumer", "range", (), "")
    assert joined.generation_id == h.group(G).group_epoch == 2
    assert partitions(sync(h, c, 2)) == []  # a still holds them
    assert h.coordinator.classic_heartbeat(G, c, None, 2, h.clock.now_ms) == E.NONE
    ra = h.heartbeat(G, "a", 1, owned={"foo": set(range(4))})
    kept = h.named(ra)["foo"]
    h.heartbeat(G, "a", 1, owned={"foo": kept})
    # a revoked: the classic member must rejoin to get its partitions
    assert h.coordinator.classic_heartbeat(G, c, None, 2, h.clock.now_ms) == \
        E.REBALANCE_IN_PROGRESS
    again = join(h, c)
    got = partitions(sync(h, c, again.generation_id))
    assert sorted(got + sorted(kept)) == [0, 1, 2, 3] and len(got) == 2
    assert h.store.replay(G).members[c].classic.session_timeout_ms == 10_000


def test_the_classic_members_own_session_timeout_fences_it() -> None:
    h = group_with_a_consumer_member()
    c = join(h, "c1").member_id
    sync(h, c, 2)
    for _ in range(3):  # a keeps heartbeating; the classic member is silent
        h.advance(4_000)
        a = h.group(G).member("a")
        h.heartbeat(G, "a", a.member_epoch)
    assert h.group(G).member(c) is None  # 10 s, not the group's 45 s
    assert h.coordinator.classic_heartbeat(G, c, None, 2, h.clock.now_ms) == E.UNKNOWN_MEMBER_ID


def test_a_classic_member_that_never_syncs_or_rejoins_is_fenced() -> None:
    h = group_with_a_consumer_member()
    c = join(h, "c1", session_ms=60_000, rebalance_ms=5_000).member_id
    h.advance(5_001)
    assert h.group(G).member(c) is None  # no SyncGroup within its rebalance timeout
    c = join(h, "c2", session_ms=60_000, rebalance_ms=5_000).member_id
    generation = h.group(G).member(c).member_epoch
    sync(h, c, generation)
    h.heartbeat(G, "a", h.group(G).member("a").member_epoch, owned={"foo": {0, 1}})
    assert h.coordinator.classic_heartbeat(G, c, None, generation, h.clock.now_ms) == \
        E.REBALANCE_IN_PROGRESS
    h.advance(5_001)
    assert h.group(G).member(c) is None  # told to rejoin, it did not within the timeout


def test_refusals() -> None:
    h = group_with_a_consumer_member()
    c = join(h, "c1").member_id
    assert join(h, "c2", names=("roundrobin",)).error_code == E.INCONSISTENT_GROUP_PROTOCOL
    assert sync(h, c, 7).error_code == E.ILLEGAL_GENERATION
    assert h.coordinator.classic_heartbeat(G, "a", None, 1, h.clock.now_ms) == \
        E.UNKNOWN_MEMBER_ID  # a uses the consumer protocol
    left = h.coordinator.classic_leave(G, [LeavingMember(c), LeavingMember("a")],
                                       h.clock.now_ms)
    assert [m.error_code for m in left.members] == [E.NONE, E.UNKNOWN_MEMBER_ID]
    assert list(h.group(G).members) == ["a"]


def test_the_last_consumer_protocol_member_leaving_downgrades_the_group() -> None:
    h = group_with_a_consumer_member()
    c = join(h, "c1").member_id
    h.heartbeat(G, "a", -1)
    assert h.downgrades == [(G, 2, [c])]
    assert h.coordinator.group(G) is None  # the classic coordinator has it now
    assert h.store.batches[-1][1][-1] == (b"classic-key", b"classic-value")
    assert h.store.replay(G) is None  # the consumer group is tombstoned


def test_a_policy_without_downgrade_keeps_the_consumer_group() -> None:
    for policy in ("upgrade", "disabled"):
        h = Harness(migration_policy=policy)
        h.topics.create("foo", 4)
        r = h.heartbeat(G, "a", 0, topics=["foo"])
        h.heartbeat(G, "a", r.member_epoch, owned={"foo": set(range(4))})
        c = join(h, "c1").member_id
        h.heartbeat(G, "a", -1)
        assert h.downgrades == []
        assert list(h.group(G).members) == [c]
