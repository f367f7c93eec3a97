"""Replica assignment of new topics and partitions, as Kafka's ``AdminUtils`` computes it."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from protocol.errors import ErrorCode, KafkaError
from pybroker.kernel.placement import (
    assign_replicas,
    assign_replicas_rack_unaware,
    new_partitions_start_index,
    rack_alternated_broker_list,
    replica_index,
)

# Worked out by hand from Kafka's rule, brokers [1, 2, 3] (positions 0-2), start index 1,
# initial shift 1 (Kafka's fixedStartIndex = 1 fixes both):
#   first replica of p:   position (p + 1) mod 3
#   replica j+1 of p:     position (first + 1 + (shift + j) mod 2) mod 3
#   shift:                +1 whenever p > 0 and p mod 3 == 0
# p0: first 1 (broker 2): j0 (1+1+(1+0)%2)%3 = 0 (1), j1 (1+1+(1+1)%2)%3 = 2 (3) -> [2, 1, 3]
# p1: first 2 (broker 3): (2+1+1)%3 = 1 (2), (2+1+0)%3 = 0 (1)                 -> [3, 2, 1]
# p2: first 0 (broker 1): (0+1+1)%3 = 2 (3), (0+1+0)%3 = 1 (2)                 -> [1, 3, 2]
# p3: shift 2; first 1 (broker 2): (1+1+0)%3 = 2 (3), (1+1+1)%3 = 0 (1)        -> [2, 3, 1]
# p4: first 2 (broker 3): (2+1+0)%3 = 0 (1), (2+1+1)%3 = 1 (2)                 -> [3, 1, 2]
# p5: first 0 (broker 1): (0+1+0)%3 = 1 (2), (0+1+1)%3 = 2 (3)                 -> [1, 2, 3]
# p6: shift 3, odd again: the same as p0; the pattern repeats every 6 partitions.
PATTERN = [[2, 1, 3], [3, 2, 1], [1, 3, 2], [2, 3, 1], [3, 1, 2], [1, 2, 3]]


def test_small_case_worked_by_hand():
    result = assign_replicas([(3, None), (1, None), (2, None)], 6, 3, start_index=1)
    assert result == dict(enumerate(PATTERN))


def test_a_thousand_partitions_over_three_brokers_at_rf_3():
    result = assign_replicas([(1, None), (2, None), (3, None)], 1000, 3, start_index=1)
    assert list(result) == list(range(1000))
    assert all(result[p] == PATTERN[p % 6] for p in range(1000))
    # leaders round robin from position 1: p mod 3 == 0 -> broker 2 (334 of them)
    assert Counter(r[0] for r in result.values()) == {2: 334, 3: 333, 1: 333}
    # second replicas: 2 per broker every 6 partitions (332), then p996-999 give 1, 2, 3, 3
    assert Counter(r[1] for r in result.values()) == {1: 333, 2: 333, 3: 334}
    assert all(sorted(r) == [1, 2, 3] for r in result.values())


def test_kafkas_own_five_broker_case():
    # AdminRackAwareTest.testReplicaAssignment: brokers 0-4, 10 partitions, RF 3, start 0
    assert assign_replicas([(b, None) for b in range(5)], 10, 3, start_index=0) == {
        0: [0, 1, 2], 1: [1, 2, 3], 2: [2, 3, 4], 3: [3, 4, 0], 4: [4, 0, 1],
        5: [0, 2, 3], 6: [1, 3, 4], 7: [2, 4, 0], 8: [3, 0, 1], 9: [4, 1, 2]}


def test_kafkas_own_rack_aware_case():
    # AdminRackAwareTest.testGetRackAlternatedBrokerListAndAssignReplicasToBrokers
    racks = {0: "rack1", 1: "rack3", 2: "rack3", 3: "rack2", 4: "rack2", 5: "rack1"}
    assert rack_alternated_broker_list(racks) == [0, 3, 1, 5, 4, 2]
    assert rack_alternated_broker_list({b: r for b, r in racks.items() if b != 5}) == [
        0, 3, 1, 4, 2]
    assert assign_replicas(racks.items(), 7, 3, start_index=0) == {
        0: [0, 3, 1], 1: [3, 1, 5], 2: [1, 5, 4], 3: [5, 4, 2], 4: [4, 2, 0], 5: [2, 0, 3],
        6: [0, 4, 2]}


def test_rack_aware_puts_each_partitions_replicas_on_distinct_racks():
    racks = {0: "a", 1: "b", 2: "b", 3: "c", 4: "c", 5: "a"}
    result = assign_replicas(racks.items(), 60, 3, rng=random.Random(7))
    assert all(len({racks[b] for b in replicas}) == 3 for replicas in result.values())
    assert Counter(b for replicas in result.values() for b in replicas) == {
        b: 30 for b in racks}


def test_random_start_and_shift_come_from_the_given_generator():
    brokers = [(1, None), (2, None), (3, None), (4, None)]
    drawn = random.Random(42)
    start, shift = drawn.randrange(4), drawn.randrange(4)
    assert assign_replicas(brokers, 9, 2, rng=random.Random(42)) == assign_replicas(
        brokers, 9, 2, start_index=start, replica_shift=shift)


def test_start_and_shift_may_differ():
    result = assign_replicas_rack_unaware(3, 2, [1, 2, 3], start_index=0, replica_shift=1)
    # shift 1: the follower is two positions on, (first + 1 + 1 mod 2) mod 3
    assert result == {0: [1, 3], 1: [2, 1], 2: [3, 2]}
    assert replica_index(0, 1, 0, 3) == 2


def test_new_partitions_continue_an_existing_topic():
    # CreatePartitions on a topic of 3 partitions whose partition 0 starts on broker 2: Kafka
    # fixes the start at broker 2's position and numbers the new partitions from 3
    start = new_partitions_start_index([1, 2, 3], 2)
    assert start == 1
    result = assign_replicas([(1, None), (2, None), (3, None)], 2, 3, start_index=start,
                             start_partition_id=3)
    assert result == {3: PATTERN[3], 4: PATTERN[4]}
    assert new_partitions_start_index([1, 2, 3], 9) == 0


@pytest.mark.parametrize(("partitions", "rf", "code", "message"), [
    (0, 1, ErrorCode.INVALID_PARTITIONS, "Number of partitions must be larger than 0."),
    (3, 0, ErrorCode.INVALID_REPLICATION_FACTOR, "Replication factor must be larger than 0."),
    (3, 4, ErrorCode.INVALID_REPLICATION_FACTOR,
     "Replication factor: 4 larger than available brokers: 3."),
])
def test_invalid_requests(partitions, rf, code, message):
    with pytest.raises(KafkaError) as e:
        assign_replicas([(1, None), (2, None), (3, None)], partitions, rf)
    assert (e.value.code, e.value.message) == (code, message)


def test_some_brokers_without_a_rack_are_refused():
    with pytest.raises(KafkaError, match="Not all brokers have rack information"):
        assign_replicas([(1, "a"), (2, None)], 1, 1)
