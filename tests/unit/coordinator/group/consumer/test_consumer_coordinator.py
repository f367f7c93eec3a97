"""The KIP-848 consumer group coordinator's logic, heartbeat by heartbeat, on a manual clock:
the anomalies of Kafka 4's CurrentAssignmentBuilder and GroupMetadataManager that a broker
must get right (epochs, revocation before assignment, fencing, timeouts, static members)."""

from __future__ import annotations

import pytest

from protocol.errors import ErrorCode
from pybroker.config.groups import GroupConfigs
from pybroker.coordinator.group.consumer.group import ConsumerGroupState
from pybroker.coordinator.group.consumer.member import MemberState

from .harness import Harness

E = ErrorCode
G = "group"


@pytest.fixture
def h() -> Harness:
    harness = Harness()
    harness.topics.create("foo", 6)
    return harness


def members_consistent(h: Harness, group_id: str = G) -> None:
    """What a new coordinator rebuilds from the records is what this one holds."""
    mine = h.group(group_id)
    rebuilt = h.store.replay(group_id)
    assert rebuilt is not None
    assert rebuilt.group_epoch == mine.group_epoch
    assert rebuilt.assignment_epoch == mine.assignment_epoch
    assert rebuilt.members == mine.members
    assert rebuilt.targets == mine.targets
    assert rebuilt.partition_epochs == mine.partition_epochs


def test_a_member_joins_and_gets_every_partition(h: Harness) -> None:
    r = h.heartbeat(G, "a", 0, topics=["foo"])
    assert r.error_code == E.NONE
    assert (r.member_id, r.member_epoch, r.heartbeat_interval_ms) == ("a", 1, 5000)
    assert h.named(r) == {"foo": set(range(6))}
    group = h.group(G)
    assert (group.group_epoch, group.assignment_epoch) == (1, 1)
    assert group.state is ConsumerGroupState.STABLE
    # a heartbeat without changes writes nothing and sends no assignment
    written = len(h.store.batches)
    r = h.heartbeat(G, "a", 1, owned={"foo": set(range(6))})
    assert (r.error_code, r.member_epoch, r.assignment) == (E.NONE, 1, None)
    assert len(h.store.batches) == written
    members_consistent(h)


def test_a_partition_is_revoked_before_it_moves(h: Harness) -> None:
    h.heartbeat(G, "a", 0, topics=["foo"])
    rb = h.heartbeat(G, "b", 0, topics=["foo"])
    # b is at the new epoch, but gets nothing a still holds
    assert rb.member_epoch == 2 and h.named(rb) == {}
    assert h.group(G).member("b").state is MemberState.UNRELEASED_PARTITIONS
    assert h.group(G).state is ConsumerGroupState.RECONCILING
    # a must give up three partitions and stays at epoch 1 meanwhile
    ra = h.heartbeat(G, "a", 1, owned={"foo": set(range(6))})
    kept = h.named(ra)["foo"]
    assert ra.member_epoch == 1 and len(kept) == 3
    assert h.group(G).member("a").state is MemberState.UNREVOKED_PARTITIONS
    # while a has not acknowledged, b still gets nothing
    rb = h.heartbeat(G, "b", 2, owned={})
    assert rb.member_epoch == 2 and rb.assignment is None
    # a acknowledges: it reaches epoch 2, and b gets the other three on its next heartbeat
    ra = h.heartbeat(G, "a", 1, owned={"foo": kept})
    assert ra.member_epoch == 2
    rb = h.heartbeat(G, "b", 2, owned={})
    assert h.named(rb) == {"foo": set(range(6)) - kept}
    assert h.group(G).state is ConsumerGroupState.STABLE
    members_consistent(h)


def test_fenced_epochs(h: Harness) -> None:
    h.heartbeat(G, "a", 0, topics=["foo"])
    assert h.heartbeat(G, "a", 2).error_code == E.FENCED_MEMBER_EPOCH
    h.heartbeat(G, "b", 0, topics=["foo"])
    ra = h.heartbeat(G, "a", 1, owned={"foo": set(range(6))})
    kept = h.named(ra)["foo"]
    h.heartbeat(G, "a", 1, owned={"foo": kept})  # now at epoch 2, previous 1
    # the previous epoch is accepted while the member owns no more than it is assigned
    assert h.heartbeat(G, "a", 1, owned={"foo": kept}).error_code == E.NONE
    # ... and fenced when it still claims a partition it gave up
    assert h.heartbeat(G, "a", 1, owned={"foo": set(range(6))}).error_code == \
        E.FENCED_MEMBER_EPOCH
    assert h.heartbeat(G, "nobody", 3).error_code == E.UNKNOWN_MEMBER_ID
    assert h.heartbeat("other", "a", 1).error_code == E.GROUP_ID_NOT_FOUND


def test_a_lost_join_response_is_answered_again(h: Harness) -> None:
    first = h.heartbeat(G, "a", 0, topics=["foo"])
    again = h.heartbeat(G, "a", 0, topics=["foo"])
    assert again.error_code == E.NONE
    assert again.member_epoch == first.member_epoch
    assert h.named(again) == h.named(first)
    assert len(h.group(G)) == 1


def test_a_member_that_does_not_revoke_is_fenced_after_its_rebalance_timeout(h: Harness) -> None:
    h.heartbeat(G, "a", 0, topics=["foo"], rebalance_timeout_ms=10_000)
    h.heartbeat(G, "b", 0, topics=["foo"])
    h.heartbeat(G, "a", 1, owned={"foo": set(range(6))})  # asked to revoke; never does
    epoch = h.group(G).group_epoch
    h.advance(10_001)
    assert h.group(G).member("a") is None
    assert h.group(G).group_epoch == epoch + 1
    rb = h.heartbeat(G, "b", 2, owned={})
    assert h.named(rb) == {"foo": set(range(6))}
    assert h.heartbeat(G, "a", 1).error_code == E.UNKNOWN_MEMBER_ID
    members_consistent(h)


def test_a_silent_member_is_removed_after_the_session_timeout(h: Harness) -> None:
    h.heartbeat(G, "a", 0, topics=["foo"])
    h.heartbeat(G, "b", 0, topics=["foo"])
    for _ in range(10):
        h.advance(5_000)
        h.heartbeat(G, "b", h.group(G).member("b").member_epoch, owned="same")
    assert h.group(G).member("a") is None
    assert list(h.group(G).members) == ["b"]
    members_consistent(h)


def test_a_group_config_sets_its_session_timeout_and_heartbeat_interval() -> None:
    """KIP-848's group configs: the tuned group's member is given its heartbeat interval and
    fenced after its session timeout; another group's keeps the broker's."""
    configs = GroupConfigs({"group.consumer.min.session.timeout.ms": "6000",
                            "group.consumer.min.heartbeat.interval.ms": "500"})
    configs.set("tuned", {"consumer.session.timeout.ms": "20000",
                          "consumer.heartbeat.interval.ms": "2500"})
    h = Harness(group_configs=configs)
    h.topics.create("foo", 2)
    assert h.heartbeat("tuned", "a", 0, topics=["foo"]).heartbeat_interval_ms == 2500
    assert h.heartbeat("plain", "b", 0, topics=["foo"]).heartbeat_interval_ms == 5000
    h.advance(25_000)
    assert h.group("tuned").member("a") is None
    assert h.group("plain").member("b") is not None
    # a change applies from the next heartbeat on; removing the override restores the broker's
    configs.set("plain", {"consumer.heartbeat.interval.ms": "1000"})
    epoch = h.group("plain").member("b").member_epoch
    assert h.heartbeat("plain", "b", epoch).heartbeat_interval_ms == 1000
    configs.set("plain", {})
    assert h.heartbeat("plain", "b", epoch).heartbeat_interval_ms == 5000


def test_static_members_leave_for_a_while_and_come_back(h: Harness) -> None:
    r = h.heartbeat(G, "a1", 0, topics=["foo"], instance="i-a")
    h.heartbeat(G, "b", 0, topics=["foo"])
    ra = h.heartbeat(G, "a1", r.member_epoch, owned={"foo": set(range(6))}, instance="i-a")
    kept = h.named(ra)["foo"]
    h.heartbeat(G, "a1", 1, owned={"foo": kept}, instance="i-a")
    epoch = h.group(G).group_epoch
    # another process claims the instance while a1 is active
    assert h.heartbeat(G, "a2", 0, topics=["foo"], instance="i-a").error_code == \
        E.UNRELEASED_INSTANCE_ID
    # a1 leaves for a while: no new group epoch, and its partitions stay assigned
    left = h.heartbeat(G, "a1", -2, instance="i-a")
    assert (left.error_code, left.member_epoch) == (E.NONE, -2)
    assert h.group(G).group_epoch == epoch
    back = h.heartbeat(G, "a2", 0, topics=["foo"], instance="i-a")
    assert back.error_code == E.NONE
    assert h.named(back) == {"foo": kept}
    assert h.group(G).group_epoch == epoch
    assert set(h.group(G).members) == {"a2", "b"}
    # the old member id is fenced for the instance
    assert h.heartbeat(G, "b", 2, instance="i-a").error_code == E.FENCED_INSTANCE_ID
    members_consistent(h)


@pytest.mark.parametrize(("version", "member", "epoch", "extra", "message"), [
    (1, "", 0, {}, "MemberId can't be empty."),
    (0, "", 3, {}, "MemberId can't be empty."),
    (0, "m", 0, {"rebalance_timeout_ms": -1}, "RebalanceTimeoutMs must be provided"),
    (0, "m", 0, {"topic_partitions": None}, "TopicPartitions must be empty"),
    (0, "m", 0, {"subscribed_topic_names": None}, "Either SubscribedTopicNames"),
    (0, "m", -2, {}, "InstanceId can't be null."),
    (0, "m", -3, {}, "MemberEpoch is invalid"),
    (0, "m", 0, {"instance_id": ""}, "InstanceId can't be empty."),
    (0, "m", 0, {"rack_id": " "}, "RackId can't be empty."),
])
def test_invalid_requests(h: Harness, version: int, member: str, epoch: int, extra: dict,
                          message: str) -> None:
    from protocol.messages import consumer_group_heartbeat_request as hb

    fields = {"group_id": G, "member_id": member, "member_epoch": epoch,
              "rebalance_timeout_ms": 30_000, "subscribed_topic_names": ["foo"],
              "topic_partitions": [], **extra}
    r = h.coordinator.heartbeat(hb.ConsumerGroupHeartbeatRequest(**fields), version, "c",
                                "/h", 0)
    assert r.error_code == E.INVALID_REQUEST
    assert message in r.error_message


def test_a_v0_join_without_member_id_gets_one(h: Harness) -> None:
    r = h.heartbeat(G, "", 0, version=0, topics=["foo"])
    assert r.error_code == E.NONE and len(r.member_id) == 22  # Kafka's Uuid.toString()


def test_unknown_assignor(h: Harness) -> None:
    r = h.heartbeat(G, "a", 0, topics=["foo"], assignor="sticky")
    assert r.error_code == E.UNSUPPORTED_ASSIGNOR


def test_regex_subscriptions(h: Harness) -> None:
    h.topics.create("foo1", 2)
    r = h.heartbeat(G, "a", 0, regex="foo")
    assert h.named(r) == {"foo": set(range(6))}  # full match: not foo1
    assert h.heartbeat(G, "b", 0, regex="a(?=b)").error_code == E.INVALID_REGULAR_EXPRESSION
    epoch = h.group(G).group_epoch
    r = h.heartbeat(G, "a", 1, regex="foo.*", owned={"foo": set(range(6))})
    assert h.group(G).group_epoch == epoch + 1
    assert h.named(r) == {"foo": set(range(6)), "foo1": {0, 1}}
    # a new matching topic is picked up once the 10 s refresh interval has passed
    h.topics.create("foo2", 1)
    h.advance(10_001)
    r = h.heartbeat(G, "a", h.group(G).member("a").member_epoch,
                    owned={"foo": set(range(6)), "foo1": {0, 1}})
    assert h.named(r)["foo2"] == {0}
    # giving the regex up ("") moves the group epoch too (KAFKA-19899)
    epoch = h.group(G).group_epoch
    h.heartbeat(G, "a", h.group(G).member("a").member_epoch, regex="", topics=["foo"])
    assert h.group(G).group_epoch == epoch + 1
    assert h.group(G).regexes == {}
    members_consistent(h)


def test_metadata_changes_move_the_group_epoch(h: Harness) -> None:
    h.heartbeat(G, "a", 0, topics=["foo"])
    h.topics.grow("foo", 8)
    r = h.heartbeat(G, "a", 1, owned={"foo": set(range(6))})
    assert r.member_epoch == 2 and h.named(r) == {"foo": set(range(8))}
    h.topics.delete("foo")
    r = h.heartbeat(G, "a", 2, owned={"foo": set(range(8))})
    assert h.group(G).group_epoch == 3
    assert h.group(G).target("a") == {}


def test_leaving_removes_the_member_and_moves_the_epoch(h: Harness) -> None:
    h.heartbeat(G, "a", 0, topics=["foo"])
    h.heartbeat(G, "b", 0, topics=["foo"])
    epoch = h.group(G).group_epoch
    r = h.heartbeat(G, "b", -1)
    assert (r.error_code, r.member_id, r.member_epoch) == (E.NONE, "b", -1)
    assert list(h.group(G).members) == ["a"]
    assert h.group(G).group_epoch == epoch + 1
    assert h.heartbeat(G, "b", -1).error_code == E.UNKNOWN_MEMBER_ID
    members_consistent(h)


def test_a_failed_write_leaves_the_group_as_it_was(h: Harness) -> None:
    h.heartbeat(G, "a", 0, topics=["foo"])
    before = h.group(G).copy()
    h.store.fail_with = E.NOT_COORDINATOR
    assert h.heartbeat(G, "b", 0, topics=["foo"]).error_code == E.NOT_COORDINATOR
    after = h.group(G)
    assert after.members == before.members and after.group_epoch == before.group_epoch
    assert h.heartbeat("new", "x", 0, topics=["foo"]).error_code == E.NOT_COORDINATOR
    assert h.coordinator.group("new") is None


def test_offset_commits_are_checked_against_the_member_epoch(h: Harness) -> None:
    h.heartbeat(G, "a", 0, topics=["foo"])
    group = h.group(G)
    check = h.coordinator.validate_offset_commit
    assert check(group, "a", 1, 9, False) == E.NONE
    assert check(group, "a", 0, 9, False) == E.STALE_MEMBER_EPOCH
    assert check(group, "a", 1, 8, False) == E.UNSUPPORTED_VERSION
    assert check(group, "", -1, 9, False) == E.UNKNOWN_MEMBER_ID
    assert check(group, "", -1, 9, True) == E.NONE
    h.heartbeat(G, "a", -1)
    assert check(h.group(G), "", -1, 9, False) == E.NONE
