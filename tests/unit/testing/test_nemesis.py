"""The nemesis's choices and steps against stand-in brokers that record what was done to them:
a seed gives one sequence of faults, every enabled kind comes once a round, each fault is undone,
and a killed broker comes back only once the others no longer list it."""

from __future__ import annotations

import time
from typing import Any, cast

import pytest

from pybroker.testing.cluster import ClusterProcesses
from pybroker.testing.nemesis import Nemesis, NemesisConfig


class FakeBroker:
    def __init__(self, broker_id: int, cluster: FakeCluster) -> None:
        self.broker_id = broker_id
        self.cluster = cluster
        self.running = True

    def is_running(self) -> bool:
        return self.running

    def kill(self) -> None:
        self.cluster.actions.append(("kill", self.broker_id))
        self.running = False

    def start(self) -> None:
        assert self.broker_id not in self.cluster.registered, "started over its registration"
        self.cluster.actions.append(("start", self.broker_id))
        self.running = True
        self.cluster.registered.add(self.broker_id)

    def freeze(self) -> None:
        self.cluster.actions.append(("freeze", self.broker_id))

    def thaw(self) -> None:
        self.cluster.actions.append(("thaw", self.broker_id))


class FakeCluster:
    """Three brokers; a killed broker's registration lasts two more polls of the others."""

    def __init__(self) -> None:
        self.brokers = {i: FakeBroker(i, self) for i in (1, 2, 3)}
        self.registered = {1, 2, 3}
        self.actions: list[tuple[str, int]] = []
        self.polls_since_kill: dict[int, int] = {}

    def broker(self, broker_id: int) -> FakeBroker:
        return self.brokers[broker_id]

    def live(self) -> list[int]:
        return [i for i, b in self.brokers.items() if b.running]

    def controllers_named(self) -> dict[int, tuple[int, frozenset[int]]]:
        for i, b in self.brokers.items():
            if not b.running and i in self.registered:
                self.polls_since_kill[i] = self.polls_since_kill.get(i, 0) + 1
                if self.polls_since_kill[i] > 2:
                    self.registered.discard(i)
                    self.polls_since_kill.pop(i)
        listed = frozenset(self.registered)
        return {i: (min(self.live()), listed) for i in self.live()}


QUICK = dict(interval=(0.0, 0.01), downtime=(0.0, 0.01), session_timeout=0.01,
             freeze_margin=(0.0, 0.01), recovery_timeout=5.0)


def run(seed: int, kinds: tuple[str, ...], faults: int) -> list[tuple[str, int]]:
    cluster = FakeCluster()
    nemesis = Nemesis(cast(ClusterProcesses, cluster),
                      NemesisConfig(kinds=kinds, seed=seed, **cast(dict[str, Any], QUICK)),
                      log=lambda line: None)
    nemesis.start()
    deadline = time.monotonic() + 20
    while len(nemesis.events) < faults and time.monotonic() < deadline:
        time.sleep(0.005)
    nemesis.stop()
    assert nemesis.error is None
    assert all(b.running for b in cluster.brokers.values())
    assert all(e.ended is not None for e in nemesis.events)
    return [(e.kind, e.broker) for e in nemesis.events][:faults]


def test_a_seed_gives_one_sequence_and_every_kind_comes_each_round() -> None:
    first = run(3, ("kill", "freeze"), 6)
    assert first == run(3, ("kill", "freeze"), 6)
    for r in range(3):
        assert sorted(kind for kind, _ in first[2 * r:2 * r + 2]) == ["freeze", "kill"]
    assert len({tuple(run(seed, ("kill", "freeze"), 6)) for seed in (4, 5, 6)} | {
        tuple(first)}) > 1


def test_every_fault_is_undone_and_a_kill_waits_for_the_deregistration() -> None:
    cluster = FakeCluster()
    nemesis = Nemesis(cast(ClusterProcesses, cluster),
                      NemesisConfig(kinds=("kill", "freeze"), seed=1,
                                    **cast(dict[str, Any], QUICK)), log=lambda line: None)
    nemesis.inject("kill", 2)
    nemesis.inject("freeze", 3)
    assert cluster.actions == [("kill", 2), ("start", 2), ("freeze", 3), ("thaw", 3)]
    # FakeBroker.start asserts that the old registration was gone


def test_fault_kinds_are_checked() -> None:
    with pytest.raises(ValueError):
        NemesisConfig(kinds=("reboot",))
    with pytest.raises(ValueError):
        NemesisConfig(kinds=())
    with pytest.raises(ValueError):
        Nemesis(cast(ClusterProcesses, FakeCluster()), NemesisConfig(kinds=("cut",)))
