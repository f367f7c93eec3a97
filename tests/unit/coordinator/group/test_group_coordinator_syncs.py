"""The classic group coordinator's syncs, heartbeats and leaves, driven with a manual clock (no
sockets, no event loop)."""

import asyncio

import pytest

from protocol.errors import ErrorCode as E
from pybroker.coordinator.group import JoinGroupMember, LeavingMember, SyncRequest
from tests.unit.coordinator.group.group_coordinator_harness import (
    SESSION,
    S,
    first_rebalance,
)

# -- syncing ---------------------------------------------------------------------------------------


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


@pytest.mark.parametrize("outcome", [E.NONE, E.NOT_COORDINATOR])
def test_sync_answers_wait_for_the_assignment_to_be_replicated(h, outcome):
    """As Kafka's storeGroup callback: no member learns its assignment (or the error) before
    the group's record has reached the ISR; until then the group is still completing."""
    loop = asyncio.new_event_loop()
    try:
        boxes = [h.join(client_id=c) for c in "ab"]
        h.advance(first_rebalance(2))
        a, b = (x.result.member_id for x in boxes)
        follower = h.sync(b, 1)
        h.store.next_outcome = replicated = loop.create_future()
        leader = h.sync(a, 1, {a: b"A", b: b"B"})
        h.advance(100)
        assert not leader.done and not follower.done
        assert h.state() is S.COMPLETING_REBALANCE
        replicated.set_result(outcome)
        loop.run_until_complete(asyncio.sleep(0))  # the future's callbacks
        h.advance(0)  # the continuation runs as a coordinator timer
        assert leader.result.error_code is outcome and follower.result.error_code is outcome
        if outcome is E.NONE:
            assert (leader.result.assignment, follower.result.assignment) == (b"A", b"B")
            assert h.state() is S.STABLE
        else:
            assert h.state() is S.PREPARING_REBALANCE
    finally:
        loop.close()


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


def test_a_rebalance_interrupts_waiting_syncs(h):
    boxes = [h.join(client_id=c) for c in "ab"]
    h.advance(first_rebalance(2))
    a, b = (x.result.member_id for x in boxes)
    waiting = h.sync(b, 1)
    h.join(client_id="c")  # a newcomer during CompletingRebalance
    assert waiting.result.error_code is E.REBALANCE_IN_PROGRESS
    assert h.state() is S.PREPARING_REBALANCE


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


# -- heartbeats and session expiry -----------------------------------------------------------------


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


# -- leaving ---------------------------------------------------------------------------------------


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


def test_static_members_leave_by_instance_id(h):
    (a, b), gen = h.stable_group("a", "b", instances=["ia", "ib"])
    result = h.leave(LeavingMember("", "ib"), LeavingMember("", "nobody"),
                     LeavingMember("stale-id", "ia"), LeavingMember("ghost"))
    assert [m.error_code for m in result.members] == [
        E.NONE, E.UNKNOWN_MEMBER_ID, E.FENCED_INSTANCE_ID, E.UNKNOWN_MEMBER_ID]
    assert list(h.coord.group("g").members) == [a]
    assert h.state() is S.PREPARING_REBALANCE


def test_a_pending_member_may_leave(h):
    pending = h.join(client_id="app", require_known=True).result.member_id
    result = h.leave(LeavingMember(pending))
    assert [m.error_code for m in result.members] == [E.NONE]
    assert h.join(pending, require_known=True).result.error_code is E.UNKNOWN_MEMBER_ID
