"""The classic group coordinator's joins and rebalances, driven with a manual clock (no sockets,
no event loop)."""

import pytest

from protocol.errors import ErrorCode as E
from pybroker.coordinator.group import JoinGroupMember, JoinRequest
from tests.unit.coordinator.group.group_coordinator_harness import (
    DELAY,
    REBALANCE,
    SESSION,
    Box,
    Harness,
    S,
    first_rebalance,
)

# -- joining ---------------------------------------------------------------------------------------


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


def test_a_repeated_join_answers_the_request_it_replaces(h):
    (a, b), gen = h.stable_group("a", "b")
    first = h.join(a)
    second = h.join(a)
    assert first.result.error_code is E.REBALANCE_IN_PROGRESS
    assert not second.done
    h.join(b)
    assert second.result.generation_id == gen + 1


# -- MEMBER_ID_REQUIRED ----------------------------------------------------------------------------


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


# -- static membership -----------------------------------------------------------------------------


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


# -- protocols -------------------------------------------------------------------------------------


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


# -- join errors -----------------------------------------------------------------------------------


@pytest.mark.parametrize("session", [5999, 1_800_001])
def test_session_timeout_out_of_bounds(h, session):
    assert h.join(session=session).result.error_code is E.INVALID_SESSION_TIMEOUT
    assert h.coord.group("g") is None


def test_group_max_size():
    h = Harness(max_size=2)
    a, b = h.join(client_id="a"), h.join(client_id="b")
    c = h.join(client_id="c").result
    assert c.error_code is E.GROUP_MAX_SIZE_REACHED and c.member_id == ""
    h.advance(first_rebalance(2))
    assert len(a.result.members) == 2 and b.result.error_code is E.NONE
    assert h.join(client_id="d").result.error_code is E.GROUP_MAX_SIZE_REACHED
