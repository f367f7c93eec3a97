"""The ``uniform`` and ``range`` server-side assignors: Kafka's builder and assignor test
scenarios with their expected assignments, and properties on random groups."""

from __future__ import annotations

import base64
import random
import uuid
from collections.abc import Iterable, Mapping

import pytest
from hypothesis import given, settings, strategies as st

from pybroker.coordinator.group.consumer.assignors import (
    ASSIGNORS,
    Assignment,
    MemberSubscription,
    PartitionAssignorError,
    RangeAssignor,
    UniformAssignor,
    assign_heterogeneous,
    assign_homogeneous,
    assignor,
)

Members = dict[str, MemberSubscription]
Topics = dict[uuid.UUID, int]


def kafka_uuid(text: str) -> uuid.UUID:
    """Kafka's ``Uuid.fromString``: 22 characters of URL-safe base64."""
    return uuid.UUID(bytes=base64.urlsafe_b64decode(text + "=="))


# The topic ids of Kafka's assignor tests.
T1 = kafka_uuid("T1-A4s3VTwiI5CTbEp6POw")
T2 = kafka_uuid("T2-B4s3VTwiI5YHbPp6YUe")
T3 = kafka_uuid("T3-CU8fVTLCz5YMkLoDQsa")
T4 = kafka_uuid("T4-Tw9fVTLCz5HbPp6YQsa")

# Ids in ascending topic order, for the homogeneous scenarios, whose outcome depends on the
# order topics are walked in (Kafka walks a HashSet there, this module the Uuid order).
FIRST, SECOND, THIRD = (uuid.UUID(int=n) for n in (1, 2, 3))


def member(topics: Iterable[uuid.UUID] = (),
           assigned: Mapping[uuid.UUID, Iterable[int]] | None = None,
           instance_id: str | None = None) -> MemberSubscription:
    return MemberSubscription(
        instance_id=instance_id, rack_id=None, subscribed_topic_ids=frozenset(topics),
        assigned={t: frozenset(ps) for t, ps in (assigned or {}).items()})


def expect(*pairs: tuple[uuid.UUID, Iterable[int]]) -> dict[uuid.UUID, frozenset[int]]:
    return {t: frozenset(ps) for t, ps in pairs}


def size(target: Mapping[uuid.UUID, frozenset[int]]) -> int:
    return sum(len(ps) for ps in target.values())


def with_targets(members: Mapping[str, MemberSubscription], result: Assignment) -> Members:
    """The members again, each now holding its target from ``result``."""
    return {m: MemberSubscription(s.instance_id, s.rack_id, s.subscribed_topic_ids, result[m])
            for m, s in members.items()}


def check_valid(members: Mapping[str, MemberSubscription], topics: Mapping[uuid.UUID, int],
                result: Assignment) -> None:
    """Every member has an entry; each partition of a subscribed topic goes to exactly one
    member, and that member subscribes to the topic; nothing else is handed out."""
    assert set(result) == set(members)
    owners: dict[tuple[uuid.UUID, int], str] = {}
    for member_id, target in result.items():
        for topic_id, partitions in target.items():
            assert partitions, "empty partition sets are left out"
            assert topic_id in members[member_id].subscribed_topic_ids
            for p in partitions:
                assert 0 <= p < topics[topic_id]
                assert (topic_id, p) not in owners
                owners[topic_id, p] = member_id
    subscribed = {t for s in members.values() for t in s.subscribed_topic_ids}
    assert set(owners) == {(t, p) for t in subscribed for p in range(topics[t])}


# -- the registry --------------------------------------------------------------------------------


def test_assignors_by_name() -> None:
    assert ASSIGNORS == {"uniform": UniformAssignor, "range": RangeAssignor}
    assert isinstance(assignor("uniform"), UniformAssignor)
    assert assignor("uniform").name == "uniform"
    assert isinstance(assignor("range"), RangeAssignor)
    assert assignor("range").name == "range"
    with pytest.raises(KeyError):
        assignor("sticky")


@pytest.mark.parametrize("name", ["uniform", "range"])
def test_empty_group_and_no_subscriptions(name: str) -> None:
    a = assignor(name)
    assert a.assign({}, {}) == {}
    # testOneMemberNoTopicSubscription: Kafka returns no members at all, here each maps to {}
    assert a.assign({"A": member()}, {T1: 3}) == {"A": {}}
    assert a.assign({"A": member(), "B": member()}, {}) == {"A": {}, "B": {}}


@pytest.mark.parametrize("name", ["uniform", "range"])
def test_subscription_to_a_missing_topic_is_an_error(name: str) -> None:
    # testOneMemberSubscribedToNonexistentTopic
    with pytest.raises(PartitionAssignorError):
        assignor(name).assign({"A": member([T2])}, {T1: 3})
    with pytest.raises(PartitionAssignorError):
        assignor(name).assign({"A": member([T1]), "B": member([T2])}, {T1: 3})


# -- range: RangeAssignorTest ------------------------------------------------------------------


def test_range_two_members_same_subscriptions() -> None:
    # testFirstAssignmentTwoMembersTwoTopicsSameSubscriptions
    result = RangeAssignor().assign(
        {"A": member([T1, T3]), "B": member([T1, T3])}, {T1: 3, T3: 2})
    assert result == {
        "A": expect((T1, [0, 1]), (T3, [0])),
        "B": expect((T1, [2]), (T3, [1])),
    }


def test_range_three_members_different_subscriptions() -> None:
    # testFirstAssignmentThreeMembersThreeTopicsDifferentSubscriptions
    result = RangeAssignor().assign(
        {"A": member([T1, T2]), "B": member([T3]), "C": member([T2, T3])},
        {T1: 3, T2: 3, T3: 2})
    assert result == {
        "A": expect((T1, [0, 1, 2]), (T2, [0, 1])),
        "B": expect((T3, [0])),
        "C": expect((T2, [2]), (T3, [1])),
    }


def test_range_more_members_than_partitions() -> None:
    # testFirstAssignmentNumMembersGreaterThanNumPartitions
    result = RangeAssignor().assign(
        {m: member([T1, T3]) for m in "ABC"}, {T1: 3, T3: 2})
    assert result == {
        "A": expect((T1, [0]), (T3, [0])),
        "B": expect((T1, [1]), (T3, [1])),
        "C": expect((T1, [2])),
    }


def test_range_ignores_current_assignment_and_co_partitions() -> None:
    # testReassignmentWhenOneMemberAddedAfterInitialAssignmentWithTwoMembersTwoTopics
    result = RangeAssignor().assign({
        "A": member([T1, T2], {T1: [0, 1], T2: [0, 1]}),
        "B": member([T1, T2], {T1: [2], T2: [2]}),
        "C": member([T1, T2]),
    }, {T1: 3, T2: 3})
    assert result == {
        "A": expect((T1, [0]), (T2, [0])),
        "B": expect((T1, [1]), (T2, [1])),
        "C": expect((T1, [2]), (T2, [2])),
    }


def test_range_static_member_keeps_its_ranges_under_a_new_member_id() -> None:
    # testStaticMembership: "A1" would sort after "B" by member id, but instance ids decide
    topics = {T1: 3}
    before = RangeAssignor().assign(
        {"A": member([T1], instance_id="instanceA"),
         "B": member([T1], instance_id="instanceB")}, topics)
    after = RangeAssignor().assign(
        {"memberA1": member([T1], instance_id="instanceA"),
         "B": member([T1], instance_id="instanceB")}, topics)
    assert before == {"A": expect((T1, [0, 1])), "B": expect((T1, [2]))}
    assert after == {"memberA1": before["A"], "B": before["B"]}


def test_range_static_members_come_before_dynamic_ones() -> None:
    # testMixedStaticMembership: static A and C first (by instance id), then dynamic B
    topics = {T1: 5}
    before = RangeAssignor().assign(
        {"A": member([T1], instance_id="instanceA"),
         "C": member([T1], instance_id="instanceC"),
         "B": member([T1])}, topics)
    assert before == {
        "A": expect((T1, [0, 1])), "C": expect((T1, [2, 3])), "B": expect((T1, [4]))}
    after = RangeAssignor().assign(
        {"memberA1": member([T1], instance_id="instanceA"),
         "C": member([T1], instance_id="instanceC"),
         "B": member([T1])}, topics)
    assert after == {"memberA1": before["A"], "C": before["C"], "B": before["B"]}


def test_range_orders_member_ids_as_java_does() -> None:
    # U+FF5E is one UTF-16 unit above the surrogates; U+1F600 is a surrogate pair, so Java's
    # String.compareTo puts it first, where a code point comparison would put it last.
    result = RangeAssignor().assign(
        {"\uff5e": member([T1]), "\U0001f600": member([T1])}, {T1: 3})
    assert result == {"\U0001f600": expect((T1, [0, 1])), "\uff5e": expect((T1, [2]))}


# -- uniform, homogeneous: UniformHomogeneousAssignmentBuilderTest (4.1) ------------------------


def test_homogeneous_first_assignment_two_members_two_topics() -> None:
    # testFirstAssignmentTwoMembersTwoTopicsNoMemberRacks: Kafka's HashSet walks topic3 first;
    # neither member holds anything, so A leaves the extra slot and it falls to B, the last.
    t3, t1 = FIRST, SECOND
    result = UniformAssignor().assign(
        {"A": member([t1, t3]), "B": member([t1, t3])}, {t1: 3, t3: 2})
    assert result == {"A": expect((t3, [0, 1])), "B": expect((t1, [0, 1, 2]))}


def test_homogeneous_more_members_than_partitions() -> None:
    # testFirstAssignmentNumMembersGreaterThanTotalNumPartitions
    result = UniformAssignor().assign({m: member([T3]) for m in "ABC"}, {T3: 2})
    assert result == {"A": {}, "B": expect((T3, [0])), "C": expect((T3, [1]))}


def test_homogeneous_unbalanced_previous_assignment() -> None:
    # testReassignmentForTwoMembersTwoTopicsGivenUnbalancedPrevAssignment: A keeps its first
    # three partitions in topic order and gives up topic2-1
    t1, t2 = FIRST, SECOND
    result = UniformAssignor().assign({
        "A": member([t1, t2], {t1: [0, 1], t2: [0, 1]}),
        "B": member([t1, t2], {t1: [2], t2: [2]}),
    }, {t1: 3, t2: 3})
    assert result == {
        "A": expect((t1, [0, 1]), (t2, [0])),
        "B": expect((t1, [2]), (t2, [1, 2])),
    }


def test_homogeneous_partitions_added() -> None:
    # testReassignmentWhenPartitionsAreAddedForTwoMembersTwoTopics: 11 partitions, both hold 3;
    # the extra slot goes to the last member, the new partitions in topic order (topic2 first
    # in Kafka's HashSet)
    t2, t1 = FIRST, SECOND
    result = UniformAssignor().assign({
        "A": member([t1, t2], {t1: [0, 2], t2: [0]}),
        "B": member([t1, t2], {t1: [1], t2: [1, 2]}),
    }, {t1: 6, t2: 5})
    assert result == {
        "A": expect((t1, [0, 2]), (t2, [0, 3, 4])),
        "B": expect((t1, [1, 3, 4, 5]), (t2, [1, 2])),
    }


def test_homogeneous_member_added() -> None:
    # testReassignmentWhenOneMemberAddedAfterInitialAssignmentWithTwoMembersTwoTopics
    t1, t2 = FIRST, SECOND
    result = UniformAssignor().assign({
        "A": member([t1, t2], {t1: [0, 2], t2: [0]}),
        "B": member([t1, t2], {t1: [1], t2: [1, 2]}),
        "C": member([t1, t2]),
    }, {t1: 3, t2: 3})
    assert result == {
        "A": expect((t1, [0, 2])),
        "B": expect((t1, [1]), (t2, [1])),
        "C": expect((t2, [0, 2])),
    }


def test_homogeneous_member_removed() -> None:
    # testReassignmentWhenOneMemberRemovedAfterInitialAssignmentWithThreeMembersTwoTopics
    t2, t1 = FIRST, SECOND
    result = UniformAssignor().assign({
        "A": member([t1, t2], {t1: [0], t2: [0]}),
        "B": member([t1, t2], {t1: [1], t2: [1]}),
    }, {t1: 3, t2: 3})
    assert result == {
        "A": expect((t1, [0]), (t2, [0, 2])),
        "B": expect((t1, [1, 2]), (t2, [1])),
    }


def test_homogeneous_subscription_removed() -> None:
    # testReassignmentWhenOneSubscriptionRemovedAfterInitialAssignmentWithTwoMembersTwoTopics
    result = UniformAssignor().assign({
        "A": member([T2], {T1: [0], T2: [0]}),
        "B": member([T2], {T1: [1], T2: [1]}),
    }, {T1: 2, T2: 2})
    assert result == {"A": expect((T2, [0])), "B": expect((T2, [1]))}


def test_homogeneous_member_holding_the_extra_partition_keeps_it() -> None:
    # KAFKA-18688: 7 partitions over 3 members is 3/2/2, and C, last in order, already has the
    # 3; before the fix A would have taken the extra slot and C given one up.
    topics = {FIRST: 7}
    current = {"A": [0, 1], "B": [2, 3], "C": [4, 5, 6]}
    members = {m: member([FIRST], {FIRST: ps}) for m, ps in current.items()}
    assert UniformAssignor().assign(members, topics) == {
        m: expect((FIRST, ps)) for m, ps in current.items()}


def test_homogeneous_cleans_up_malformed_current_assignments() -> None:
    # out-of-range partitions, a partition listed twice, a topic outside the subscription
    result = assign_homogeneous({
        "A": member([FIRST], {FIRST: [0, 1, 9], SECOND: [0]}),
        "B": member([FIRST], {FIRST: [1, 2, -1]}),
    }, {FIRST: 4, SECOND: 1})
    assert result == {"A": expect((FIRST, [0, 1])), "B": expect((FIRST, [2, 3]))}


# -- uniform, heterogeneous: UniformHeterogeneousAssignmentBuilderTest --------------------------


def test_heterogeneous_first_assignment_two_members_two_topics() -> None:
    # testFirstAssignmentTwoMembersTwoTopics
    result = UniformAssignor().assign(
        {"A": member([T1, T3]), "B": member([T3])}, {T1: 3, T3: 6})
    assert result == {
        "A": expect((T1, [0, 1, 2]), (T3, [4])),
        "B": expect((T3, [0, 1, 2, 3, 5])),
    }


def test_heterogeneous_unbalanced_previous_assignment() -> None:
    # testReassignmentForTwoMembersThreeTopicsGivenUnbalancedPrevAssignment
    result = UniformAssignor().assign({
        "A": member([T1], {T1: [0, 1, 2]}),
        "B": member([T1, T2], {T1: [3], T2: [0]}),
        "C": member([T1, T2, T3], {T1: [4, 5], T2: [1, 2, 3], T3: [0, 1, 2, 3]}),
    }, {T1: 6, T2: 4, T3: 4})
    assert result == {
        "A": expect((T1, [0, 1, 2, 5])),
        "B": expect((T1, [3]), (T2, [0, 1, 2, 3])),
        "C": expect((T1, [4]), (T3, [0, 1, 2, 3])),
    }


def test_heterogeneous_partitions_added() -> None:
    # testReassignmentWhenPartitionsAreAddedForTwoMembers
    result = UniformAssignor().assign({
        "A": member([T1, T3], {T1: [0, 1, 2, 3], T3: [0, 1]}),
        "B": member([T1, T2, T3, T4], {T2: [0, 1, 2], T4: [0, 1, 2]}),
    }, {T1: 6, T2: 5, T3: 3, T4: 3})
    assert result == {
        "A": expect((T1, range(6)), (T3, range(3))),
        "B": expect((T2, range(5)), (T4, range(3))),
    }


def test_heterogeneous_member_and_partitions_added() -> None:
    # testReassignmentWhenOneMemberAddedAndPartitionsAddedTwoMembersTwoTopics
    result = UniformAssignor().assign({
        "A": member([T1], {T1: [0, 2], T2: [0]}),
        "B": member([T1, T2], {T1: [1], T2: [1, 2]}),
        "C": member([T1, T2]),
    }, {T1: 6, T2: 7})
    assert result == {
        "A": expect((T1, [0, 2, 3, 4, 5])),
        "B": expect((T1, [1]), (T2, [1, 2, 6])),
        "C": expect((T2, [0, 3, 4, 5])),
    }


def test_heterogeneous_member_removed() -> None:
    # testReassignmentWhenOneMemberRemovedAfterInitialAssignmentWithThreeMembersThreeTopics
    result = UniformAssignor().assign({
        "A": member([T1, T3], {T1: [0, 1, 2], T3: [0, 1]}),
        "B": member([T2], {T2: [3, 4, 5, 6]}),
    }, {T1: 3, T2: 8, T3: 3})
    assert result == {
        "A": expect((T1, [0, 1, 2]), (T3, [0, 1, 2])),
        "B": expect((T2, range(8))),
    }


def test_heterogeneous_subscription_removed() -> None:
    # testReassignmentWhenOneSubscriptionRemovedAfterInitialAssignmentWithTwoMembersTwoTopics
    result = UniformAssignor().assign({
        "A": member([T1], {T1: [0, 2], T2: [1, 3]}),
        "B": member([T1, T2], {T1: [1], T2: [0, 2, 4]}),
    }, {T1: 3, T2: 5})
    assert result == {"A": expect((T1, [0, 1, 2])), "B": expect((T2, range(5)))}


def test_heterogeneous_topic_partitions_run_out() -> None:
    # testReassignmentWhenTopicPartitionsRunOutAndMembersHaveNoPartitions (Kafka runs the
    # heterogeneous builder on identical subscriptions here, so this calls it directly)
    result = assign_heterogeneous({
        "A": member([T1, T2, T3], {T1: [0, 1], T2: [0, 1], T3: [0, 1]}),
        "B": member([T1, T2, T3]),
    }, {T1: 2, T2: 2, T3: 2})
    assert result == {
        "A": expect((T2, [0]), (T3, [0, 1])),
        "B": expect((T1, [0, 1]), (T2, [1])),
    }


def test_heterogeneous_member_without_subscriptions() -> None:
    # testFirstAssignmentWithTwoMembersIncludingOneWithoutSubscriptions
    result = UniformAssignor().assign({"A": member([T1]), "B": member()}, {T1: 3})
    assert result == {"A": expect((T1, [0, 1, 2])), "B": {}}


def test_heterogeneous_overlapping_subscriptions_balance_per_topic() -> None:
    # Kafka's balanceTopics comment: with members 1-2 on one topic and 2-3 on another, 9/10/11
    # is final, though 10/10/10 exists: each topic is balanced among its own subscribers.
    topics = {T1: 19, T2: 11}
    members = {"1": member([T1], {T1: range(9)}),
               "2": member([T1, T2], {T1: range(9, 19)}),
               "3": member([T2], {T2: range(11)})}
    result = UniformAssignor().assign(members, topics)
    assert result == {m: dict(s.assigned) for m, s in members.items()}
    assert [size(result[m]) for m in "123"] == [9, 10, 11]


# -- properties on random groups ---------------------------------------------------------------


@st.composite
def groups(draw: st.DrawFn, same_subscriptions: bool = False,
           messy: bool = True) -> tuple[Members, Topics]:
    """A random group and its topics. ``messy`` current assignments may list partitions twice,
    beyond the partition count, or of topics the member does not subscribe to."""
    topic_ids = draw(st.lists(st.uuids(), min_size=1, max_size=4, unique=True))
    topics = {t: draw(st.integers(0, 12)) for t in topic_ids}
    member_ids = draw(st.lists(st.text("abcxyz", min_size=1, max_size=3),
                               min_size=1, max_size=7, unique=True))
    shared = draw(st.frozensets(st.sampled_from(topic_ids)))
    instances: set[str] = set()
    members: Members = {}
    for member_id in member_ids:
        subscribed = shared if same_subscriptions else draw(
            st.frozensets(st.sampled_from(topic_ids)))
        assigned: dict[uuid.UUID, frozenset[int]] = {}
        if messy:
            for t in draw(st.sets(st.sampled_from(topic_ids))):
                assigned[t] = draw(st.frozensets(st.integers(-1, topics[t] + 1), max_size=6))
        instance = draw(st.none() | st.text("pq", min_size=1, max_size=2))
        if instance in instances:
            instance = None
        if instance is not None:
            instances.add(instance)
        members[member_id] = MemberSubscription(instance, None, subscribed, assigned)
    return members, topics


def heterogeneous_balanced(members: Mapping[str, MemberSubscription],
                           result: Assignment) -> bool:
    """What the heterogeneous builder guarantees once it converges: no member holding a
    partition of a topic has two or more partitions more than another subscriber of it."""
    sizes = {m: size(t) for m, t in result.items()}
    for topic_id in {t for s in members.values() for t in s.subscribed_topic_ids}:
        subscribers = [m for m, s in members.items() if topic_id in s.subscribed_topic_ids]
        lightest = min(sizes[m] for m in subscribers)
        if any(sizes[m] - lightest > 1 for m in subscribers if topic_id in result[m]):
            return False
    return True


@settings(max_examples=60, deadline=None)
@given(groups(), st.sampled_from(["uniform", "range"]))
def test_each_partition_goes_to_exactly_one_subscriber(group: tuple[Members, Topics],
                                                       name: str) -> None:
    members, topics = group
    check_valid(members, topics, assignor(name).assign(members, topics))


@settings(max_examples=40, deadline=None)
@given(groups(same_subscriptions=True))
def test_homogeneous_sizes_differ_by_at_most_one(group: tuple[Members, Topics]) -> None:
    members, topics = group
    result = UniformAssignor().assign(members, topics)
    check_valid(members, topics, result)
    sizes = [size(t) for t in result.values()]
    assert max(sizes) - min(sizes) <= 1


@settings(max_examples=60, deadline=None)
@given(groups())
def test_heterogeneous_no_subscriber_is_two_behind_an_owner(
        group: tuple[Members, Topics]) -> None:
    members, topics = group
    result = assign_heterogeneous(members, topics)
    check_valid(members, topics, result)
    assert heterogeneous_balanced(members, result)


@settings(max_examples=60, deadline=None)
@given(groups(), st.sampled_from(["uniform", "range"]), st.randoms(use_true_random=False))
def test_output_is_a_fixed_point_whatever_the_member_order(
        group: tuple[Members, Topics], name: str, rnd: random.Random) -> None:
    # Kafka's CommonAssignorTests.testReassignmentStickiness: run again on its own output, in
    # any member order, the assignor changes nothing.
    members, topics = group
    a = assignor(name)
    result = a.assign(members, topics)
    assert a.assign(dict(reversed(members.items())), topics) == result
    again = list(with_targets(members, result).items())
    rnd.shuffle(again)
    assert a.assign(dict(again), topics) == result


@settings(max_examples=40, deadline=None)
@given(groups(same_subscriptions=True, messy=False), st.text("abcxyz", min_size=4, max_size=4))
def test_homogeneous_join_moves_only_the_newcomers_share(group: tuple[Members, Topics],
                                                        newcomer: str) -> None:
    members, topics = group
    before = UniformAssignor().assign(members, topics)
    subscribed = next(iter(members.values())).subscribed_topic_ids
    joined = with_targets(members, before)
    joined[newcomer] = member(subscribed)
    after = UniformAssignor().assign(joined, topics)
    check_valid(joined, topics, after)
    total = sum(topics[t] for t in subscribed)
    share = total // len(joined)
    # the newcomer gets the smaller share, and only those partitions move
    assert size(after[newcomer]) == share
    kept = sum(len(before[m].get(t, frozenset()) & ps)
               for m in members for t, ps in after[m].items())
    assert kept == total - share


@settings(max_examples=40, deadline=None)
@given(groups(same_subscriptions=True, messy=False), st.data())
def test_homogeneous_leave_moves_only_the_leavers_partitions(group: tuple[Members, Topics],
                                                             data: st.DataObject) -> None:
    members, topics = group
    before = UniformAssignor().assign(members, topics)
    leaver = data.draw(st.sampled_from(sorted(members)))
    remaining = {m: s for m, s in with_targets(members, before).items() if m != leaver}
    after = UniformAssignor().assign(remaining, topics)
    check_valid(remaining, topics, after)
    for m in remaining:
        for t, ps in before[m].items():
            assert ps <= after[m].get(t, frozenset())


@settings(max_examples=30, deadline=None)
@given(groups())
def test_range_gives_contiguous_ranges_larger_first(group: tuple[Members, Topics]) -> None:
    members, topics = group
    result = RangeAssignor().assign(members, topics)
    for topic_id in {t for s in members.values() for t in s.subscribed_topic_ids}:
        ranges = [sorted(result[m][topic_id]) for m in result if topic_id in result[m]]
        assert all(r == list(range(r[0], r[-1] + 1)) for r in ranges)
        lengths = [len(r) for r in sorted(ranges)]
        assert lengths == sorted(lengths, reverse=True)
        assert not lengths or lengths[0] - lengths[-1] <= 1


# -- size ----------------------------------------------------------------------------------------


def test_a_thousand_members_and_ten_thousand_partitions() -> None:
    topic_ids = [uuid.UUID(int=(n + 1) * 7919) for n in range(10)]
    topics = {t: 1000 for t in topic_ids}
    homogeneous = {f"member-{i:04d}": member(topic_ids) for i in range(1000)}
    heterogeneous = {m: member(topic_ids[i % 10:] or topic_ids)
                     for i, m in enumerate(homogeneous)}
    # a large group stays valid and stable (how fast is for make bench, not a unit test)
    for members in (homogeneous, heterogeneous):
        for name in ("uniform", "range"):
            result = assignor(name).assign(members, topics)
            check_valid(members, topics, result)
            again = assignor(name).assign(with_targets(members, result), topics)
            assert again == result
    sizes = [size(t) for t in UniformAssignor().assign(homogeneous, topics).values()]
    assert set(sizes) == {10}
