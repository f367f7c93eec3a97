"""The console's reassignment plans: the proposal ``kafka-reassign-partitions --generate``
makes, the tool's JSON, the throttles ``--throttle`` sets and ``--verify``'s verdicts."""

from __future__ import annotations

import json
import random
from itertools import product

import pytest

from pybroker.console import reassign
from pybroker.kernel.placement import assign_replicas


def candidates(brokers: list[tuple[int, str | None]], partitions: int,
               rf: int) -> list[dict[int, list[int]]]:
    """Every placement Kafka's random start and shift can give."""
    n = len(brokers)
    return [assign_replicas(brokers, partitions, rf, start_index=s, replica_shift=h)
            for s, h in product(range(n), range(n))]


def test_a_proposal_is_one_kafka_could_make_for_each_topic() -> None:
    current = {("a", p): [1] for p in range(6)} | {("b", p): [2, 3] for p in range(4)}
    brokers = [(1, None), (2, None), (3, None), (4, None)]
    for seed in range(20):
        proposed = reassign.generate(current, brokers, rng=random.Random(seed))
        assert set(proposed) == set(current)
        for topic, count, rf in (("a", 6, 1), ("b", 4, 2)):
            mine = {p: proposed[(topic, p)] for p in range(count)}
            assert mine in candidates(brokers, count, rf)


def test_racks_are_used_unless_disabled() -> None:
    current = {("t", p): [1, 2] for p in range(4)}
    racked = [(1, "r1"), (2, "r1"), (3, "r2"), (4, "r2")]
    rack_of = dict(racked)
    proposed = reassign.generate(current, racked, rng=random.Random(1))
    assert all(len({rack_of[b] for b in replicas}) == 2 for replicas in proposed.values())
    unaware = reassign.generate(current, racked, rack_aware=False, rng=random.Random(1))
    plain = [(b, None) for b, _ in racked]
    assert {p: unaware[("t", p)] for p in range(4)} in candidates(plain, 4, 2)
    # some brokers with a rack and some without: refused as the tool refuses it
    with pytest.raises(reassign.PlanError, match="Not all brokers have rack information"):
        reassign.generate(current, [(1, "r1"), (2, None)])
    with pytest.raises(reassign.PlanError, match="larger than available brokers"):
        reassign.generate({("t", 0): [1, 2, 3]}, [(1, None), (2, None)])


def test_the_tools_json_round_trips() -> None:
    plan = {("t", 1): [2, 1], ("t", 0): [1, 2], ("a", 0): [3]}
    text = reassign.plan_json(plan)
    assert text == ('{"version":1,"partitions":['
                    '{"topic":"a","partition":0,"replicas":[3],"log_dirs":["any"]},'
                    '{"topic":"t","partition":0,"replicas":[1,2],"log_dirs":["any","any"]},'
                    '{"topic":"t","partition":1,"replicas":[2,1],"log_dirs":["any","any"]}]}')
    assert reassign.parse_plan(text) == plan


@pytest.mark.parametrize("text, words", [
    ("not json", "not JSON"),
    ('{"version": 1}', "no \"partitions\" list"),
    ('{"version": 1, "partitions": []}', "cannot be empty"),
    ('{"partitions": [{"topic": "t", "partition": 0}]}', "needs a topic, a partition and"),
    ('{"partitions": [{"topic": "t", "partition": 0, "replicas": [1]},'
     ' {"topic": "t", "partition": 0, "replicas": [2]}]}', "same partition twice"),
    ('{"partitions": [{"topic": "t", "partition": 0, "replicas": [1, 1]}]}', "duplicates"),
    ('{"partitions": [{"topic": "t", "partition": 0, "replicas": []}]}', "no replicas"),
])
def test_bad_plans_are_refused(text: str, words: str) -> None:
    with pytest.raises(reassign.PlanError, match=words):
        reassign.parse_plan(text)


def test_throttles_cover_the_moving_replicas_only() -> None:
    current = {("t", 0): [1, 2], ("t", 1): [2, 3], ("u", 0): [1]}
    proposed = {("t", 0): [1, 2], ("t", 1): [3, 4], ("u", 0): [2]}
    assert reassign.throttled_replicas(current, proposed) == {
        "t": {reassign.LEADER_REPLICAS: "1:2,1:3", reassign.FOLLOWER_REPLICAS: "1:4"},
        "u": {reassign.LEADER_REPLICAS: "0:1", reassign.FOLLOWER_REPLICAS: "0:2"},
    }
    assert reassign.reassigning_brokers(current, proposed) == [1, 2, 3, 4]
    assert reassign.throttled_replicas(current, current) == {}


def test_verify_speaks_the_tools_words() -> None:
    plan = {("t", 0): [1, 2], ("t", 1): [2, 3], ("t", 2): [3, 1]}
    current = {("t", 0): [1, 2], ("t", 1): [2, 1], ("t", 2): [2, 3]}
    rows = reassign.verify(plan, current, in_progress=[("t", 1)])
    assert [(r["state"], r["message"]) for r in rows] == [
        ("completed", "Reassignment of partition t-0 is completed."),
        ("in_progress", "Reassignment of partition t-1 is still in progress."),
        ("missing", "There is no active reassignment of partition t-2, but replica set is "
                    "[2, 3] rather than [3, 1]."),
    ]
    assert reassign.missing_brokers(plan, [1, 2]) == [3]
    json.dumps(rows)  # the API serves them as they are
