"""The classic group coordinator, driven with a manual clock (no sockets, no event loop)."""

import asyncio
import itertools

import pytest

from protocol.errors import ErrorCode as E
from protocol.messages import consumer_protocol_subscription as cps, group_metadata_value as gmv
from pybroker.coordinator.group import (
    GroupConfig,
    GroupCoordinator,
    GroupState,
    JoinGroupMember,
    JoinRequest,
    LeavingMember,
    LoopScheduler,
    ManualScheduler,
    SyncRequest,
)

S = GroupState
SESSION = 10_000
REBALANCE = 30_000
DELAY = 3_000


class RecordingStore:
    def __init__(self):
        self.stored = []
        self.deleted = []
        self.fail_with = None

    def store_group(self, group_id, value, now_ms):
        self.stored.append((group_id, value, now_ms))
        return self.fail_with or E.NONE

    def delete_group(self, group_id, now_ms, *, tombstone_group=True):
        self.deleted.append((group_id, tombstone_group))
        return E.NONE


class Box:
    """Collects what a respond callback receives."""

    def __init__(self):
        self.results = []

    def __call__(self, result):
        self.results.append(result)

    @property
    def done(self):
        return bool(self.results)

    @property
    def result(self):
        assert len(self.results) == 1, self.results
        return self.results[0]


class Harness:
    def __init__(self, **config):
        self.sched = ManualScheduler()
        self.store = RecordingStore()
        counter = itertools.count(1)
        self.coord = GroupCoordinator(
            GroupConfig(**{"initial_rebalance_delay_ms": DELAY, **config}), self.store,
            self.sched, new_member_id=lambda prefix: f"{prefix}-{next(counter)}")
        self.coord.startup()

    @property
    def now(self):
        return self.sched.now_ms

    def advance(self, ms):
        self.sched.advance(ms)

    def state(self, group_id="g"):
        group = self.coord.group(group_id)
        return None if group is None else group.state

    def join(self, member_id="", instance=None, *, group_id="g", client_id="c",
             protocols=(("range", b"r"),), protocol_type="consumer", session=SESSION,
             rebalance=REBALANCE, require_known=False, skip=False):
        box = Box()
        self.coord.handle_join_group(JoinRequest(
            group_id=group_id, member_id=member_id, group_instance_id=instance,
            client_id=client_id, client_host="/127.0.0.1", rebalance_timeout_ms=rebalance,
            session_timeout_ms=session, protocol_type=protocol_type, protocols=list(protocols),
            require_known_member_id=require_known, supports_skipping_assignment=skip),
            self.now, box)
        return box

    def sync(self, member_id, generation, assignments=None, instance=None, *, group_id="g",
             protocol_type=None, protocol_name=None):
        box = Box()
        self.coord.handle_sync_group(SyncRequest(
            group_id=group_id, generation_id=generation, member_id=member_id,
            group_instance_id=instance, assignments=assignments or {},
            protocol_type=protocol_type, protocol_name=protocol_name), self.now, box)
        return box

    def heartbeat(self, member_id, generation, instance=None, group_id="g"):
        return self.coord.handle_heartbeat(group_id, member_id, instance, generation, self.now)

    def leave(self, *members, group_id="g"):
        return self.coord.handle_leave_group(group_id, list(members), self.now)

    def commit(self, member_id, generation, instance=None, group_id="g", transactional=False):
        return self.coord.handle_commit_offsets(group_id, member_id, instance, generation,
                                                self.now, transactional=transactional)

    def stable_group(self, *client_ids, instances=None):
        """Members join together, the leader assigns ``b"<client id>"`` to each; returns
        their member ids (leader first) and the generation."""
        instances = instances or [None] * len(client_ids)
        boxes = [self.join(client_id=c, instance=i)
                 for c, i in zip(client_ids, instances, strict=True)]
        self.advance(first_rebalance(len(client_ids)))
        results = [b.result for b in boxes]
        assert all(r.error_code is E.NONE for r in results)
        ids = [r.member_id for r in results]
        gen = results[0].generation_id
        leader = results[0].leader_id
        assert leader == ids[0]
        syncs = [self.sync(m, gen, {m2: c.encode() for m2, c in zip(ids, client_ids, strict=True)}
                           if m == leader else None) for m in ids]
        assert [s.result.assignment for s in syncs] == [c.encode() for c in client_ids]
        assert self.state() is S.STABLE
        return ids, gen


def first_rebalance(members):
    """How long a new group's first rebalance takes when ``members`` join at once: a member
    arriving during the initial delay extends it once."""
    return DELAY if members == 1 else 2 * DELAY


@pytest.fixture
def h():
    return Harness()


# -- joining -------------------------------------------------------------------------------------


def test_first_member_waits_for_the_initial_rebalance_delay(h):
    box = h.join(client_id="a")
    assert not box.done
    assert h.state() is S.PREPARING_REBALANCE
    h.advance(DELAY - 1)
    assert not box.done
    h.advance(1)
    r = box.result
    assert r.error_code is E.NONE
    assert r.member_id == "a-1" and r.leader_id == "a-1" and r.generation_id == 1
    assert r.protocol_type == "consumer" and r.protocol_name == "range"
    assert r.members == (JoinGroupMember("a-1", None, b"r"),)
    assert h.state() is S.COMPLETING_REBALANCE


def test_initial_delay_is_extended_while_members_keep_arriving(h):
    a = h.join(client_id="a")
    h.advance(1000)
    b = h.join(client_id="b")
    h.advance(DELAY - 1000)  # t=3000: a new member arrived, so wait another delay
    assert not a.done and not b.done
    h.advance(DELAY)  # t=6000: nobody new since 3000
    assert a.result.generation_id == b.result.generation_id == 1


def test_initial_delay_extension_stops_at_the_rebalance_timeout():
    h = Harness()
    a = h.join(client_id="a", rebalance=5000)
    h.advance(1000)
    h.join(client_id="b", rebalance=5000)
    h.advance(2000)  # t=3000: extended by min(3000, 5000-3000) = 2000
    assert not a.done
    h.advance(1000)
    c = h.join(client_id="c", rebalance=5000)  # t=4000, but no time remains for more
    h.advance(1000)  # t=5000
    assert a.result.generation_id == 1 and c.result.generation_id == 1
    assert len(a.result.members) == 3


def test_three_members_join_one_rebalance_and_the_leader_gets_all_metadata(h):
    boxes = [h.join(client_id=c, protocols=[("range", c.encode() * 3)]) for c in "abc"]
    h.advance(first_rebalance(2))
    results = [b.result for b in boxes]
    assert {r.generation_id for r in results} == {1}
    assert {r.leader_id for r in results} == {"a-1"}
    leader, *followers = results
    assert leader.members == (JoinGroupMember("a-1", None, b"aaa"),
                              JoinGroupMember("b-2", None, b"bbb"),
                              JoinGroupMember("c-3", None, b"ccc"))
    assert all(f.members == () for f in followers)


def test_sync_distributes_the_leaders_assignment(h):
    boxes = [h.join(client_id=c) for c in "abc"]
    h.advance(first_rebalance(2))
    a, b, c = (x.result.member_id for x in boxes)
    follower = h.sync(b, 1)
    assert not follower.done  # waits for the leader
    leader = h.sync(a, 1, {a: b"A", b: b"B", "stranger": b"?"})
    assert leader.result.assignment == b"A"
    assert follower.result.assignment == b"B"
    assert follower.result.protocol_type == "consumer"
    assert follower.result.protocol_name == "range"
    assert h.state() is S.STABLE
    late = h.sync(c, 1)  # left out by the leader: an empty assignment
    assert late.result.error_code is E.NONE and late.result.assignment == b""
    group_id, value, _ = h.store.stored[-1]
    assert group_id == "g" and value.generation == 1 and value.leader == a
    assert value.protocol_type == "consumer" and value.protocol == "range"
    assert {m.member_id: m.assignment for m in value.members} == {a: b"A", b: b"B", c: b""}


def test_a_sync_request_holds_its_own_read_only_copy_of_the_assignments():
    buffer = bytearray(b"A")
    given = {"a": memoryview(buffer)}
    request = SyncRequest(group_id="g", generation_id=1, member_id="a", group_instance_id=None,
                          assignments=given)
    buffer[:] = b"Z"  # the buffer the request was read from is reused
    given["b"] = b"B"
    assert dict(request.assignments) == {"a": b"A"}
    with pytest.raises(TypeError):
        request.assignments["b"] = b"B"


def test_a_new_member_rebalances_a_stable_group_and_heartbeats_tell_the_others(h):
    (a, b), gen = h.stable_group("a", "b")
    c = h.join(client_id="c")
    assert h.state() is S.PREPARING_REBALANCE
    assert h.heartbeat(a, gen) is E.REBALANCE_IN_PROGRESS
    ra = h.join(a)
    assert not ra.done
    rb = h.join(b)  # the last known member: the rebalance completes at once
    assert h.state() is S.COMPLETING_REBALANCE
    assert ra.result.generation_id == rb.result.generation_id == c.result.generation_id == gen + 1
    assert len(ra.result.members) == 3
    assert h.heartbeat(b, gen + 1) is E.NONE


def test_session_expiry_removes_the_member_and_rebalances(h):
    (a, b), gen = h.stable_group("a", "b")
    for _ in range(3):
        h.advance(SESSION // 2)
        assert h.heartbeat(a, gen) in (E.NONE, E.REBALANCE_IN_PROGRESS)
    assert h.state() is S.PREPARING_REBALANCE
    assert b not in h.coord.group("g")
    rejoin = h.join(a)
    assert rejoin.result.generation_id == gen + 1
    assert rejoin.result.members == (JoinGroupMember(a, None, b"r"),)


def test_leave_rebalances_and_the_last_leave_empties_the_group(h):
    (a, b), gen = h.stable_group("a", "b")
    result = h.leave(LeavingMember(b))
    assert result.error_code is E.NONE
    assert [(m.member_id, m.error_code) for m in result.members] == [(b, E.NONE)]
    assert h.state() is S.PREPARING_REBALANCE
    rejoin = h.join(a)
    assert rejoin.result.generation_id == gen + 1
    h.sync(a, gen + 1, {a: b"all"})
    assert h.state() is S.STABLE

    h.leave(LeavingMember(a))
    assert h.state() is S.EMPTY
    group = h.coord.group("g")
    assert group.generation_id == gen + 2 and group.protocol_name is None
    _, value, _ = h.store.stored[-1]
    assert value.members == [] and value.generation == gen + 2
    assert value.protocol is None and value.leader is None

    assert h.coord.handle_delete_groups(["g"], h.now) == {"g": E.NONE}
    assert h.coord.group("g") is None
    assert h.store.deleted == [("g", True)]
    assert h.coord.handle_describe_group("g").summary.state == "Dead"


def test_the_rebalance_timeout_removes_members_that_do_not_rejoin(h):
    boxes = [h.join(client_id=c, rebalance=8000) for c in "ab"]
    h.advance(first_rebalance(2))
    a, b = (x.result.member_id for x in boxes)
    h.sync(b, 1)
    h.sync(a, 1, {a: b"A", b: b"B"})
    rejoin = h.join(a, rebalance=8000)  # a leader's JoinGroup rebalances a Stable group
    assert h.state() is S.PREPARING_REBALANCE
    h.advance(7999)
    assert not rejoin.done
    assert h.heartbeat(b, 1) is E.REBALANCE_IN_PROGRESS
    h.advance(1)
    assert rejoin.result.generation_id == 2
    assert [m.member_id for m in rejoin.result.members] == [a]
    assert h.heartbeat(b, 2) is E.UNKNOWN_MEMBER_ID


def test_a_follower_that_never_syncs_is_removed(h):
    boxes = [h.join(client_id=c, rebalance=8000) for c in "ab"]
    h.advance(first_rebalance(2))
    a, b = (x.result.member_id for x in boxes)
    h.sync(a, 1, {a: b"A", b: b"B"})
    assert h.state() is S.STABLE
    h.advance(8000 - 1)
    assert b in h.coord.group("g")
    h.advance(1)  # the rebalance timeout since the JoinGroup answers, before any session ends
    assert b not in h.coord.group("g")
    assert h.state() is S.PREPARING_REBALANCE
    assert h.join(a).result.generation_id == 2


def test_a_follower_rejoining_a_stable_group_unchanged_gets_the_current_generation(h):
    (a, b), gen = h.stable_group("a", "b")
    r = h.join(b).result
    assert r.error_code is E.NONE and r.generation_id == gen and r.leader_id == a
    assert r.members == ()
    assert h.state() is S.STABLE
    changed = h.join(b, protocols=[("range", b"new")])
    assert not changed.done and h.state() is S.PREPARING_REBALANCE


def test_rejoin_with_same_metadata_during_completing_rebalance_resends_the_answer(h):
    boxes = [h.join(client_id=c) for c in "ab"]
    h.advance(first_rebalance(2))
    a, b = (x.result.member_id for x in boxes)
    again = h.join(a).result
    assert again.generation_id == 1 and len(again.members) == 2
    assert h.state() is S.COMPLETING_REBALANCE


def test_a_rebalance_interrupts_waiting_syncs(h):
    boxes = [h.join(client_id=c) for c in "ab"]
    h.advance(first_rebalance(2))
    a, b = (x.result.member_id for x in boxes)
    waiting = h.sync(b, 1)
    h.join(client_id="c")  # a newcomer during CompletingRebalance
    assert waiting.result.error_code is E.REBALANCE_IN_PROGRESS
    assert h.state() is S.PREPARING_REBALANCE


# -- MEMBER_ID_REQUIRED --------------------------------------------------------------------------


def test_member_id_required_then_join_with_it(h):
    first = h.join(client_id="app", require_known=True).result
    assert first.error_code is E.MEMBER_ID_REQUIRED and first.member_id == "app-1"
    assert h.state() is S.EMPTY
    second = h.join("app-1", require_known=True)
    h.advance(DELAY)
    assert second.result.error_code is E.NONE and second.result.member_id == "app-1"


def test_a_pending_member_id_expires_after_the_session_timeout(h):
    first = h.join(client_id="app", require_known=True).result
    h.advance(SESSION)
    late = h.join(first.member_id, require_known=True).result
    assert late.error_code is E.UNKNOWN_MEMBER_ID


def test_a_pending_member_holds_up_a_rebalance_until_it_joins(h):
    (a,), gen = h.stable_group("a")
    pending = h.join(client_id="n", require_known=True).result.member_id
    rejoin = h.join(a)  # leader rejoin: rebalance
    assert not rejoin.done  # everyone known rejoined, but a pending member may still come
    h.join(pending, require_known=True)
    assert rejoin.result.generation_id == gen + 1 and len(rejoin.result.members) == 2


# -- static membership ---------------------------------------------------------------------------


def test_static_member_rejoins_a_stable_group_without_rebalance_and_fences_the_old_id(h):
    (a, b), gen = h.stable_group("a", "b", instances=["ia", "ib"])
    stored = len(h.store.stored)
    r = h.join("", "ib", client_id="b").result
    assert r.error_code is E.NONE and r.member_id not in (a, b)
    assert r.generation_id == gen and r.leader_id == a and r.members == ()
    assert h.state() is S.STABLE
    new_b = r.member_id
    assert len(h.store.stored) == stored + 1  # the new member id is persisted
    assert {m.member_id for m in h.store.stored[-1][1].members} == {a, new_b}
    assert h.heartbeat(b, gen, "ib") is E.FENCED_INSTANCE_ID
    assert h.sync(b, gen, instance="ib").result.error_code is E.FENCED_INSTANCE_ID
    assert h.heartbeat(b, gen) is E.UNKNOWN_MEMBER_ID
    assert h.heartbeat(new_b, gen, "ib") is E.NONE
    assert h.sync(new_b, gen, instance="ib").result.assignment == b"b"


def test_a_static_leader_rejoining_is_not_told_it_leads_before_v9(h):
    (a, b), gen = h.stable_group("a", "b", instances=["ia", "ib"])
    r = h.join("", "ia", client_id="a").result
    assert r.leader_id == a and r.member_id != a and r.members == ()
    assert h.coord.group("g").leader_id == r.member_id


def test_a_static_leader_rejoining_skips_assignment_from_v9(h):
    (a, b), gen = h.stable_group("a", "b", instances=["ia", "ib"])
    r = h.join("", "ia", client_id="a", skip=True).result
    assert r.skip_assignment and r.leader_id == r.member_id
    assert [m.member_id for m in r.members] == [r.member_id, b]
    assert [m.group_instance_id for m in r.members] == ["ia", "ib"]


def test_a_static_member_changing_protocol_rebalances(h):
    (a, b), gen = h.stable_group("a", "b", instances=["ia", "ib"])
    b_again = h.join("", "ib", client_id="b", protocols=[("sticky", b"s"), ("range", b"r")])
    assert b_again.result.error_code is E.NONE
    assert h.state() is S.STABLE  # a supports only range, so range it stays
    a_again = h.join("", "ia", client_id="a", protocols=[("sticky", b"s"), ("range", b"r")])
    assert h.state() is S.PREPARING_REBALANCE  # now both vote sticky
    assert not a_again.done
    h.join(b_again.result.member_id, "ib", protocols=[("sticky", b"s"), ("range", b"r")])
    assert a_again.result.protocol_name == "sticky"
    assert a_again.result.generation_id == gen + 1


def test_a_static_rejoin_fences_a_parked_join_of_the_old_id(h):
    (a, b), gen = h.stable_group("a", "b", instances=["ia", "ib"])
    parked = h.join(a, "ia", client_id="a")  # leader rejoin: rebalance, parked
    assert not parked.done
    h.join("", "ia", client_id="a")
    assert parked.result.error_code is E.FENCED_INSTANCE_ID


def test_failed_store_of_a_static_rejoin_reverts_to_the_old_member_id(h):
    (a, b), gen = h.stable_group("a", "b", instances=["ia", "ib"])
    h.store.fail_with = E.NOT_COORDINATOR
    r = h.join("", "ib", client_id="b").result
    assert r.error_code is E.NOT_COORDINATOR and r.member_id == ""
    assert h.heartbeat(b, gen, "ib") is E.NONE
    assert h.state() is S.STABLE


def test_static_members_that_do_not_rejoin_are_kept(h):
    (a, b), gen = h.stable_group("a", "b", instances=["ia", "ib"])
    rejoin = h.join(a, "ia")
    for _ in range(REBALANCE // 5000):
        assert not rejoin.done
        h.advance(5000)
        h.heartbeat(b, gen, "ib")  # alive, but never rejoins
    assert rejoin.result.generation_id == gen + 1
    assert [m.member_id for m in rejoin.result.members] == [a, b]


def test_static_members_leave_by_instance_id(h):
    (a, b), gen = h.stable_group("a", "b", instances=["ia", "ib"])
    result = h.leave(LeavingMember("", "ib"), LeavingMember("", "nobody"),
                     LeavingMember("stale-id", "ia"), LeavingMember("ghost"))
    assert [m.error_code for m in result.members] == [
        E.NONE, E.UNKNOWN_MEMBER_ID, E.FENCED_INSTANCE_ID, E.UNKNOWN_MEMBER_ID]
    assert list(h.coord.group("g").members) == [a]
    assert h.state() is S.PREPARING_REBALANCE


# -- protocols -----------------------------------------------------------------------------------


def test_the_protocol_is_chosen_by_vote(h):
    boxes = [h.join(client_id="a", protocols=[("range", b"a-r"), ("roundrobin", b"a-rr")]),
             h.join(client_id="b", protocols=[("roundrobin", b"b-rr"), ("range", b"b-r")]),
             h.join(client_id="c", protocols=[("roundrobin", b"c-rr"), ("sticky", b"c-s"),
                                              ("range", b"c-r")])]
    h.advance(first_rebalance(2))
    leader = boxes[0].result
    assert leader.protocol_name == "roundrobin"
    assert [m.metadata for m in leader.members] == [b"a-rr", b"b-rr", b"c-rr"]


def test_a_join_request_holds_its_own_copy_of_the_protocol_metadata(h):
    buffer = bytearray(b"a-r")
    request = JoinRequest(group_id="g", member_id="", group_instance_id=None, client_id="a",
                          client_host="/127.0.0.1", rebalance_timeout_ms=REBALANCE,
                          session_timeout_ms=SESSION, protocol_type="consumer",
                          protocols=[("range", memoryview(buffer))],
                          require_known_member_id=False)
    buffer[:] = b"xyz"  # the buffer the request was read from is reused
    assert request.protocols == (("range", b"a-r"),)
    box = Box()
    h.coord.handle_join_group(request, h.now, box)
    h.advance(DELAY)
    assert [m.metadata for m in box.result.members] == [b"a-r"]


def test_only_protocols_every_member_supports_are_candidates(h):
    boxes = [h.join(client_id="a", protocols=[("sticky", b"s"), ("range", b"r")]),
             h.join(client_id="b", protocols=[("range", b"r")])]
    h.advance(first_rebalance(2))
    assert boxes[0].result.protocol_name == "range"


def test_inconsistent_protocols_are_rejected(h):
    h.join(client_id="a", protocols=[("range", b"r")])
    assert h.join(client_id="b", protocols=[("sticky", b"")]).result.error_code \
        is E.INCONSISTENT_GROUP_PROTOCOL
    assert h.join(client_id="b", protocol_type="connect").result.error_code \
        is E.INCONSISTENT_GROUP_PROTOCOL
    assert h.join(group_id="other", protocols=[]).result.error_code \
        is E.INCONSISTENT_GROUP_PROTOCOL


# -- error codes ---------------------------------------------------------------------------------


def test_empty_group_id_is_invalid_for_group_management(h):
    assert h.join(group_id="").result.error_code is E.INVALID_GROUP_ID
    assert h.sync("m", 1, group_id="").result.error_code is E.INVALID_GROUP_ID
    assert h.heartbeat("m", 1, group_id="") is E.INVALID_GROUP_ID
    assert h.leave(LeavingMember("m"), group_id="").error_code is E.INVALID_GROUP_ID
    # offsets, describe and delete accept it
    assert h.commit("", -1, group_id="") is E.NONE
    assert h.coord.handle_fetch_offsets("") is E.NONE


@pytest.mark.parametrize("session", [5999, 1_800_001])
def test_session_timeout_out_of_bounds(h, session):
    assert h.join(session=session).result.error_code is E.INVALID_SESSION_TIMEOUT
    assert h.coord.group("g") is None


def test_unknown_member_ids(h):
    r = h.join("nobody").result
    assert r.error_code is E.UNKNOWN_MEMBER_ID and r.member_id == "nobody"
    h.stable_group("a")
    assert h.join("nobody").result.error_code is E.UNKNOWN_MEMBER_ID
    assert h.sync("nobody", 1).result.error_code is E.UNKNOWN_MEMBER_ID
    assert h.sync("x", 1, group_id="unknown").result.error_code is E.UNKNOWN_MEMBER_ID
    assert h.heartbeat("nobody", 1) is E.UNKNOWN_MEMBER_ID
    assert h.heartbeat("x", 1, group_id="unknown") is E.UNKNOWN_MEMBER_ID
    unknown_group = h.leave(LeavingMember("x"), group_id="unknown")
    assert unknown_group.error_code is E.NONE
    assert [m.error_code for m in unknown_group.members] == [E.UNKNOWN_MEMBER_ID]


def test_group_max_size():
    h = Harness(max_size=2)
    a, b = h.join(client_id="a"), h.join(client_id="b")
    c = h.join(client_id="c").result
    assert c.error_code is E.GROUP_MAX_SIZE_REACHED and c.member_id == ""
    h.advance(first_rebalance(2))
    assert len(a.result.members) == 2 and b.result.error_code is E.NONE
    assert h.join(client_id="d").result.error_code is E.GROUP_MAX_SIZE_REACHED


def test_sync_errors(h):
    boxes = [h.join(client_id=c) for c in "ab"]
    h.advance(first_rebalance(2))
    a, b = (x.result.member_id for x in boxes)
    assert h.sync(b, 7).result.error_code is E.ILLEGAL_GENERATION
    assert h.sync(b, 1, protocol_type="connect").result.error_code \
        is E.INCONSISTENT_GROUP_PROTOCOL
    assert h.sync(b, 1, protocol_name="sticky").result.error_code \
        is E.INCONSISTENT_GROUP_PROTOCOL
    ok = h.sync(b, 1, protocol_type="consumer", protocol_name="range")
    h.sync(a, 1, {a: b"A", b: b"B"})
    assert ok.result.assignment == b"B"
    h.join(a)  # leader rejoin: PreparingRebalance
    assert h.sync(b, 1).result.error_code is E.REBALANCE_IN_PROGRESS


def test_a_failed_store_sends_members_back_to_rejoin(h):
    boxes = [h.join(client_id=c) for c in "ab"]
    h.advance(first_rebalance(2))
    a, b = (x.result.member_id for x in boxes)
    follower = h.sync(b, 1)
    h.store.fail_with = E.COORDINATOR_NOT_AVAILABLE
    leader = h.sync(a, 1, {a: b"A", b: b"B"})
    assert leader.result.error_code is E.COORDINATOR_NOT_AVAILABLE
    assert follower.result.error_code is E.COORDINATOR_NOT_AVAILABLE
    assert follower.result.assignment == b"" and follower.result.protocol_name is None
    assert h.state() is S.PREPARING_REBALANCE


def test_heartbeat_answers_by_state(h):
    boxes = [h.join(client_id=c) for c in "ab"]
    h.advance(first_rebalance(2))
    a, b = (x.result.member_id for x in boxes)
    assert h.heartbeat(a, 1) is E.NONE  # CompletingRebalance
    assert h.heartbeat(a, 0) is E.ILLEGAL_GENERATION
    h.sync(b, 1)
    h.sync(a, 1, {})
    assert h.heartbeat(b, 1) is E.NONE  # Stable
    h.join(a)
    assert h.heartbeat(b, 1) is E.REBALANCE_IN_PROGRESS


def test_heartbeats_keep_a_member_alive(h):
    (a,), gen = h.stable_group("a")
    for _ in range(10):
        h.advance(SESSION - 1)
        assert h.heartbeat(a, gen) is E.NONE
    assert h.state() is S.STABLE


def test_coordinator_status_errors():
    h = Harness()
    loading = {"g": False}
    h.coord = GroupCoordinator(GroupConfig(), h.store, h.sched,
                               is_coordinator_for=lambda gid: gid != "elsewhere",
                               is_loading=lambda gid: loading["g"])
    assert h.join().result.error_code is E.COORDINATOR_NOT_AVAILABLE
    assert h.coord.handle_list_groups().error_code is E.COORDINATOR_NOT_AVAILABLE
    h.coord.startup()
    assert h.join(group_id="elsewhere").result.error_code is E.NOT_COORDINATOR
    assert h.commit("", -1, group_id="elsewhere") is E.NOT_COORDINATOR
    loading["g"] = True
    assert h.join().result.error_code is E.COORDINATOR_LOAD_IN_PROGRESS
    assert h.heartbeat("m", 1) is E.NONE
    assert h.sync("m", 1).result.error_code is E.REBALANCE_IN_PROGRESS
    assert h.coord.handle_list_groups().error_code is E.COORDINATOR_LOAD_IN_PROGRESS


# -- offset commits ------------------------------------------------------------------------------


def test_simple_commits_create_an_empty_group(h):
    assert h.commit("", 5, group_id="simple") is E.ILLEGAL_GENERATION
    assert h.coord.group("simple") is None
    assert h.commit("", -1, group_id="simple") is E.NONE
    assert h.state("simple") is S.EMPTY
    assert h.commit("anyone", -1, group_id="simple") is E.NONE
    assert h.commit("anyone", 0, group_id="simple") is E.UNKNOWN_MEMBER_ID
    assert h.coord.handle_delete_groups(["simple"], h.now) == {"simple": E.NONE}
    assert h.store.deleted == [("simple", False)]  # generation 0: no metadata tombstone


def test_commit_validation_for_a_group_with_members(h):
    (a, b), gen = h.stable_group("a", "b", instances=[None, "ib"])
    assert h.commit(a, gen) is E.NONE
    assert h.commit(a, gen + 1) is E.ILLEGAL_GENERATION
    assert h.commit("nobody", gen) is E.UNKNOWN_MEMBER_ID
    assert h.commit("", -1) is E.UNKNOWN_MEMBER_ID  # only members commit for a live group
    assert h.commit("", -1, transactional=True) is E.NONE
    assert h.commit(a, gen, instance="ib") is E.FENCED_INSTANCE_ID
    assert h.commit(b, gen, instance="ib") is E.NONE
    h.join(client_id="c")
    assert h.state() is S.PREPARING_REBALANCE
    assert h.commit(a, gen) is E.NONE  # the previous generation may still commit
    h.join(a), h.join(b, "ib")
    assert h.state() is S.COMPLETING_REBALANCE
    assert h.commit(a, gen + 1) is E.REBALANCE_IN_PROGRESS


def test_a_commit_counts_as_a_heartbeat(h):
    (a,), gen = h.stable_group("a")
    for _ in range(3):
        h.advance(SESSION - 1)
        assert h.commit(a, gen) is E.NONE
    assert h.state() is S.STABLE


# -- describe, list, delete ----------------------------------------------------------------------


def test_describe_group(h):
    (a, b), gen = h.stable_group("a", "b")
    d = h.coord.handle_describe_group("g")
    assert d.error_code is E.NONE
    assert (d.summary.state, d.summary.protocol_type, d.summary.protocol) == (
        "Stable", "consumer", "range")
    assert [(m.member_id, m.client_id, m.client_host, m.metadata, m.assignment)
            for m in d.summary.members] == [(a, "a", "/127.0.0.1", b"r", b"a"),
                                            (b, "b", "/127.0.0.1", b"r", b"b")]
    h.join(a)
    d = h.coord.handle_describe_group("g")
    assert d.summary.state == "PreparingRebalance" and d.summary.protocol == ""
    assert all(m.metadata == b"" and m.assignment == b"" for m in d.summary.members)
    assert h.coord.handle_describe_group("nope").summary.state == "Dead"


def test_list_groups_filters(h):
    h.stable_group("a")
    h.commit("", -1, group_id="simple")
    all_groups = h.coord.handle_list_groups()
    assert all_groups.error_code is E.NONE
    assert {(g.group_id, g.state, g.protocol_type, g.group_type) for g in all_groups.groups} == {
        ("g", "Stable", "consumer", "classic"), ("simple", "Empty", "", "classic")}
    assert [g.group_id for g in h.coord.handle_list_groups(states=["empty"]).groups] == [
        "simple"]
    assert h.coord.handle_list_groups(types=["consumer"]).groups == ()
    assert len(h.coord.handle_list_groups(types=["Classic"]).groups) == 2


def test_delete_groups(h):
    h.stable_group("a")
    h.commit("", -1, group_id="simple")
    assert h.coord.handle_delete_groups(["g", "simple", "nope"], h.now) == {
        "g": E.NON_EMPTY_GROUP, "simple": E.NONE, "nope": E.GROUP_ID_NOT_FOUND}
    assert h.state() is S.STABLE and h.coord.group("simple") is None


def test_offset_delete_checks_subscriptions(h):
    sub = (0).to_bytes(2, "big") + cps.encode(
        cps.ConsumerProtocolSubscription(topics=["t1", "t2"]), 0)
    boxes = [h.join(client_id="a", protocols=[("range", sub)])]
    h.advance(DELAY)
    assert h.coord.validate_delete_offsets("g", ["t1", "t3"]) == (E.NONE, frozenset({"t1"}))
    a = boxes[0].result.member_id
    h.sync(a, 1, {a: b""})
    h.leave(LeavingMember(a))
    assert h.coord.validate_delete_offsets("g", ["t1"]) == (E.NONE, frozenset())
    assert h.coord.validate_delete_offsets("nope", ["t1"])[0] is E.GROUP_ID_NOT_FOUND
    h.join(group_id="connect", protocol_type="connect")
    assert h.coord.validate_delete_offsets("connect", ["t1"])[0] is E.NON_EMPTY_GROUP


def test_remove_empty_group_for_offset_expiry(h):
    h.commit("", -1, group_id="simple")
    h.stable_group("a")
    assert not h.coord.remove_empty_group("g", h.now)
    assert h.coord.remove_empty_group("simple", h.now)
    assert h.coord.group("simple") is None


# -- loading -------------------------------------------------------------------------------------


def stored_value(**overrides):
    fields = dict(
        protocol_type="consumer", generation=5, protocol="range", leader="m1",
        current_state_timestamp=1234,
        members=[gmv.MemberMetadata(member_id=f"m{i}", group_instance_id=inst, client_id=f"c{i}",
                                    client_host="/10.0.0.1", rebalance_timeout=REBALANCE,
                                    session_timeout=SESSION, subscription=b"sub",
                                    assignment=f"as{i}".encode())
                 for i, inst in ((1, None), (2, "i2"))])
    fields.update(overrides)
    return gmv.GroupMetadataValue(**fields)


def test_load_group_from_a_stored_value(h):
    group = h.coord.load_group("g", stored_value(), h.now)
    assert group.state is S.STABLE and group.generation_id == 5
    assert group.leader_id == "m1" and group.protocol_name == "range"
    assert group.current_state_timestamp == 1234
    assert group.static_member_id("i2") == "m2"
    assert h.sync("m2", 5, instance="i2").result.assignment == b"as2"
    assert h.heartbeat("m1", 5) is E.NONE
    h.advance(SESSION - 1)
    assert h.heartbeat("m1", 5) is E.NONE
    h.advance(1)  # m2 never heartbeated after its sync at t=0
    assert "m2" not in group and group.state is S.PREPARING_REBALANCE


def test_a_stored_value_round_trips_through_load(h):
    (a, b), gen = h.stable_group("a", "b", instances=[None, "ib"])
    _, value, _ = h.store.stored[-1]
    other = Harness()
    loaded = other.coord.load_group("g", value, other.now)
    original = h.coord.group("g")
    assert loaded.summary() == original.summary()
    assert loaded.to_metadata_value({a: b"a", b: b"b"}) == value


def test_load_empty_and_offsets_only_groups(h):
    empty = h.coord.load_group("e", stored_value(members=[], protocol=None, leader=None), h.now)
    assert empty.state is S.EMPTY and empty.generation_id == 5
    assert empty.protocol_type == "consumer"
    only_offsets = h.coord.load_group("o", None, h.now)
    assert only_offsets.state is S.EMPTY and only_offsets.protocol_type is None
    first = h.join(group_id="e")
    h.advance(DELAY)
    assert first.result.generation_id == 6


def test_a_loaded_group_over_capacity_rebalances():
    h = Harness(max_size=1)
    group = h.coord.load_group("g", stored_value(), h.now)
    assert group.state is S.PREPARING_REBALANCE


# -- delivery and timers -------------------------------------------------------------------------


def test_answers_may_call_back_into_the_coordinator(h):
    syncs = []

    def on_join(result):
        # a client that sends SyncGroup the moment its JoinGroup answer arrives
        box = Box()
        h.coord.handle_sync_group(SyncRequest(group_id="g", generation_id=result.generation_id,
                                              member_id=result.member_id, group_instance_id=None,
                                              assignments={result.member_id: b"mine"}),
                                  h.now, box)
        syncs.append(box)

    h.coord.handle_join_group(JoinRequest(group_id="g", member_id="", group_instance_id=None,
                                          client_id="a", client_host="h",
                                          rebalance_timeout_ms=REBALANCE,
                                          session_timeout_ms=SESSION, protocol_type="consumer",
                                          protocols=[("range", b"")],
                                          require_known_member_id=False),
                              h.now, on_join)
    h.advance(DELAY)
    assert syncs[0].result.assignment == b"mine"
    assert h.state() is S.STABLE


def test_manual_scheduler_fires_in_deadline_order_and_honours_cancel():
    sched = ManualScheduler()
    fired = []
    sched.schedule("b", 20, lambda now: fired.append(("b", now)))

    def a(now):
        fired.append(("a", now))
        sched.schedule("c", now + 5, lambda n: fired.append(("c", n)))  # fires in this advance

    sched.schedule("a", 10, a)
    sched.schedule("x", 15, lambda now: fired.append(("x", now)))
    assert sched.cancel("x") and not sched.cancel("x")
    sched.schedule("b", 30, lambda now: fired.append(("b2", now)))  # replaces b
    assert sched.advance_to(25) == 2
    assert fired == [("a", 10), ("c", 15)]
    sched.advance_to(30)
    assert fired[-1] == ("b2", 30) and len(sched) == 0
    with pytest.raises(ValueError):
        sched.advance_to(0)


def test_loop_scheduler_runs_callbacks_on_the_loop():
    async def main():
        loop = asyncio.get_running_loop()
        now = lambda: int(loop.time() * 1000)  # noqa: E731
        sched = LoopScheduler(loop, now)
        done = loop.create_future()
        fired = []
        sched.schedule("gone", now() + 1, lambda t: fired.append("gone"))
        sched.cancel("gone")
        sched.schedule("first", now() + 1, lambda t: fired.append("first"))
        sched.schedule("last", now() + 5, lambda t: done.set_result(t))
        await asyncio.wait_for(done, 5)
        assert fired == ["first"] and len(sched) == 0

    asyncio.run(main())


def test_a_pending_member_may_leave(h):
    pending = h.join(client_id="app", require_known=True).result.member_id
    result = h.leave(LeavingMember(pending))
    assert [m.error_code for m in result.members] == [E.NONE]
    assert h.join(pending, require_known=True).result.error_code is E.UNKNOWN_MEMBER_ID


def test_a_repeated_join_answers_the_request_it_replaces(h):
    (a, b), gen = h.stable_group("a", "b")
    first = h.join(a)
    second = h.join(a)
    assert first.result.error_code is E.REBALANCE_IN_PROGRESS
    assert not second.done
    h.join(b)
    assert second.result.generation_id == gen + 1


def test_shutdown_answers_parked_requests_and_drops_timers(h):
    parked = h.join(client_id="a")
    h.coord.shutdown(h.now)
    assert parked.result.error_code is E.NOT_COORDINATOR
    assert len(h.sched) == 0
    assert h.heartbeat("a-1", 0) is E.COORDINATOR_NOT_AVAILABLE
