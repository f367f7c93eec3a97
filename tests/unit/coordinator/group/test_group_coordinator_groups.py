"""The classic group coordinator's group-level APIs (offset commits, describe, list, delete,
loading, shutdown), its error codes and its timers, driven with a manual clock (no sockets, no
event loop)."""

import asyncio

import pytest

from protocol.errors import ErrorCode as E
from protocol.messages import consumer_protocol_subscription as cps, group_metadata_value as gmv
from pybroker.coordinator.group import (
    GroupConfig,
    GroupCoordinator,
    JoinRequest,
    LeavingMember,
    LoopScheduler,
    ManualScheduler,
    SyncRequest,
)
from tests.unit.coordinator.group.group_coordinator_harness import (
    DELAY,
    REBALANCE,
    SESSION,
    Box,
    Harness,
    S,
)

# -- error codes -----------------------------------------------------------------------------------


def test_empty_group_id_is_invalid_for_group_management(h):
    assert h.join(group_id="").result.error_code is E.INVALID_GROUP_ID
    assert h.sync("m", 1, group_id="").result.error_code is E.INVALID_GROUP_ID
    assert h.heartbeat("m", 1, group_id="") is E.INVALID_GROUP_ID
    assert h.leave(LeavingMember("m"), group_id="").error_code is E.INVALID_GROUP_ID
    # offsets, describe and delete accept it
    assert h.commit("", -1, group_id="") is E.NONE
    assert h.coord.handle_fetch_offsets("") is E.NONE


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


# -- offset commits --------------------------------------------------------------------------------


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


# -- describe, list, delete ------------------------------------------------------------------------


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


# -- loading ---------------------------------------------------------------------------------------


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


# -- delivery and timers ---------------------------------------------------------------------------


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


def test_shutdown_answers_parked_requests_and_drops_timers(h):
    parked = h.join(client_id="a")
    h.coord.shutdown(h.now)
    assert parked.result.error_code is E.NOT_COORDINATOR
    assert len(h.sched) == 0
    assert h.heartbeat("a-1", 0) is E.COORDINATOR_NOT_AVAILABLE
