"""Partition reassignment as ``kafka-reassign-partitions`` does it - the plan it generates, the
JSON it reads and writes, the replication throttles ``--execute --throttle`` sets and
``--verify`` clears, and the words ``--verify`` reports with - as pure functions; the calls
to the cluster are :class:`~pybroker.console.cluster.ClusterClient`'s.

``--generate`` proposes, for each topic, the placement Kafka gives a new topic of the same
partition count and replication factor (its first partition's) over the chosen brokers:
``AdminUtils.assignReplicasToBrokers``, from a random start, rack-aware when the brokers have
racks and rack awareness is not disabled (:mod:`pybroker.kernel.placement`).
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Mapping
from typing import Any

from protocol.errors import KafkaError
from pybroker.kernel.placement import assign_replicas

Assignment = dict[tuple[str, int], list[int]]

LEADER_RATE = "leader.replication.throttled.rate"
FOLLOWER_RATE = "follower.replication.throttled.rate"
LOG_DIR_RATE = "replica.alter.log.dirs.io.max.bytes.per.second"
LEADER_REPLICAS = "leader.replication.throttled.replicas"
FOLLOWER_REPLICAS = "follower.replication.throttled.replicas"


class PlanError(ValueError):
    """A plan the tool would refuse, in the tool's words."""


def generate(current: Assignment, brokers: Iterable[tuple[int, str | None]],
             rack_aware: bool = True, rng: random.Random | None = None) -> Assignment:
    """The tool's proposal: each topic placed afresh over ``brokers`` (id, rack), keeping its
    partition count and its first partition's replication factor."""
    usable = [(b, rack if rack_aware else None) for b, rack in brokers]
    by_topic: dict[str, list[int]] = {}
    for topic, partition in sorted(current):
        by_topic.setdefault(topic, []).append(partition)
    proposed: Assignment = {}
    for topic, partitions in by_topic.items():
        rf = len(current[(topic, partitions[0])])
        try:
            placed = assign_replicas(usable, len(partitions), rf, rng=rng)
        except KafkaError as e:
            raise PlanError(e.message) from None
        for p in partitions:
            proposed[(topic, p)] = placed[p]
    return proposed


def plan_json(assignment: Assignment) -> str:
    """The tool's JSON of an assignment (one line, "any" log dir for each replica)."""
    return json.dumps({"version": 1, "partitions": [
        {"topic": t, "partition": p, "replicas": replicas, "log_dirs": ["any"] * len(replicas)}
        for (t, p), replicas in sorted(assignment.items())]}, separators=(",", ":"))


def parse_plan(text: str) -> Assignment:
    """A ``--reassignment-json-file``'s plan; refused as the tool refuses it."""
    try:
        data = json.loads(text)
    except ValueError as e:
        raise PlanError(f"the plan is not JSON: {e}") from None
    entries = data.get("partitions") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        raise PlanError("The reassignment JSON has no \"partitions\" list.")
    if not entries:
        raise PlanError("Partition reassignment list cannot be empty")
    plan: Assignment = {}
    for entry in entries:
        try:
            key = (str(entry["topic"]), int(entry["partition"]))
            replicas = [int(r) for r in entry["replicas"]]
        except (KeyError, TypeError, ValueError):
            raise PlanError(f"each partition needs a topic, a partition and replicas: {entry!r}")\
                from None
        if key in plan:
            raise PlanError(f"Cannot reassign the same partition twice: {key[0]}-{key[1]}")
        if len(set(replicas)) != len(replicas):
            raise PlanError(f"Cannot reassign {key[0]}-{key[1]}: its replica list "
                            f"{replicas} has duplicates")
        if not replicas:
            raise PlanError(f"Cannot reassign {key[0]}-{key[1]} to no replicas")
        plan[key] = replicas
    return plan


def moves(current: Assignment, proposed: Assignment) -> dict[tuple[str, int], tuple[list[int],
                                                                                     list[int]]]:
    """Each partition that moves: (its current replicas, the replicas it gains)."""
    return {tp: (current.get(tp, []), [r for r in target if r not in current.get(tp, [])])
            for tp, target in proposed.items() if current.get(tp) != target}


def throttled_replicas(current: Assignment,
                       proposed: Assignment) -> dict[str, dict[str, str]]:
    """The topic configs ``--throttle`` sets: on each moving topic, the leader throttle on
    its current replicas and the follower throttle on the replicas being added
    (``partition:broker`` lists)."""
    out: dict[str, dict[str, set[tuple[int, int]]]] = {}
    for (topic, p), (sources, added) in moves(current, proposed).items():
        configs = out.setdefault(topic, {LEADER_REPLICAS: set(), FOLLOWER_REPLICAS: set()})
        configs[LEADER_REPLICAS] |= {(p, b) for b in sources}
        configs[FOLLOWER_REPLICAS] |= {(p, b) for b in added}
    return {topic: {name: ",".join(f"{p}:{b}" for p, b in sorted(pairs))
                    for name, pairs in configs.items() if pairs}
            for topic, configs in out.items()}


def reassigning_brokers(current: Assignment, proposed: Assignment) -> list[int]:
    """The brokers ``--throttle`` sets the rates on: every current and target replica of a
    moving partition."""
    return sorted({b for tp, (sources, added) in moves(current, proposed).items()
                   for b in (*sources, *added)})


def verify(plan: Assignment, current: Assignment,
           in_progress: Iterable[tuple[str, int]]) -> list[dict[str, Any]]:
    """``--verify``'s verdict on each partition of the plan, in its words."""
    ongoing = set(in_progress)
    rows = []
    for (topic, p), target in sorted(plan.items()):
        name = f"{topic}-{p}"
        if (topic, p) in ongoing:
            state, words = "in_progress", f"Reassignment of partition {name} is still in progress."
        elif current.get((topic, p)) == target:
            state, words = "completed", f"Reassignment of partition {name} is completed."
        else:
            state = "missing"
            words = (f"There is no active reassignment of partition {name}, but replica set is "
                     f"{_java_list(current.get((topic, p), []))} rather than "
                     f"{_java_list(target)}.")
        rows.append({"topic": topic, "partition": p, "state": state, "message": words})
    return rows


def _java_list(items: Iterable[int]) -> str:
    return "[" + ", ".join(str(i) for i in items) + "]"


def missing_brokers(plan: Mapping[tuple[str, int], list[int]], brokers: Iterable[int]) -> list[int]:
    known = set(brokers)
    return sorted({b for replicas in plan.values() for b in replicas if b not in known})
