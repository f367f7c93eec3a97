"""The controller's partition and replica state tables, every legal and illegal transition, both
as table lookups and through the state machines' ``handle_state_changes``."""

from __future__ import annotations

import itertools

import pytest

from pybroker.controller import partition_state_machine as psm, replica_state_machine as rsm
from pybroker.controller.election import OFFLINE
from pybroker.controller.model import PartitionAndReplica
from pybroker.controller.partition_state_machine import PartitionState, PartitionStateMachine
from pybroker.controller.replica_state_machine import ReplicaState, ReplicaStateMachine
from pybroker.controller.request_batch import RequestBatch
from pybroker.tools.state_diagrams import MACHINES, render_machine
from tests.unit.controller.controller_cluster import CONTROLLER_ID, lead, make_context

P = PartitionState
R = ReplicaState

# Kafka's validPreviousStates (PartitionStateMachine.scala), pair by pair.
PARTITION_LEGAL = {
    (P.NON_EXISTENT, P.NEW),
    (P.NEW, P.ONLINE), (P.ONLINE, P.ONLINE), (P.OFFLINE, P.ONLINE),
    (P.NEW, P.OFFLINE), (P.ONLINE, P.OFFLINE), (P.OFFLINE, P.OFFLINE),
    (P.OFFLINE, P.NON_EXISTENT),
}
PARTITION_ILLEGAL = set(itertools.product(P, P)) - PARTITION_LEGAL

# Kafka's validPreviousStates (ReplicaStateMachine.scala), pair by pair.
REPLICA_LEGAL = {
    (R.NON_EXISTENT, R.NEW),
    (R.NEW, R.ONLINE), (R.ONLINE, R.ONLINE), (R.OFFLINE, R.ONLINE),
    (R.DELETION_INELIGIBLE, R.ONLINE),
    (R.NEW, R.OFFLINE), (R.ONLINE, R.OFFLINE), (R.OFFLINE, R.OFFLINE),
    (R.DELETION_INELIGIBLE, R.OFFLINE),
    (R.OFFLINE, R.DELETION_STARTED),
    (R.DELETION_STARTED, R.DELETION_SUCCESSFUL),
    (R.OFFLINE, R.DELETION_INELIGIBLE), (R.DELETION_STARTED, R.DELETION_INELIGIBLE),
    (R.DELETION_SUCCESSFUL, R.NON_EXISTENT),
}
REPLICA_ILLEGAL = set(itertools.product(R, R)) - REPLICA_LEGAL

TP = ("orders", 0)


def test_state_names_are_kafkas():
    assert {s.value for s in P} == {
        "NewPartition", "OnlinePartition", "OfflinePartition", "NonExistentPartition"}
    assert {s.value for s in R} == {
        "NewReplica", "OnlineReplica", "OfflineReplica", "ReplicaDeletionStarted",
        "ReplicaDeletionSuccessful", "ReplicaDeletionIneligible", "NonExistentReplica"}


def test_the_tables_are_kafkas():
    assert set(psm.legal_transitions()) == PARTITION_LEGAL
    assert set(psm.VALID_PREVIOUS_STATES) == set(P)
    assert set(rsm.legal_transitions()) == REPLICA_LEGAL
    assert set(rsm.VALID_PREVIOUS_STATES) == set(R)


@pytest.mark.parametrize(("module", "initial"), [(psm, "NonExistentPartition"),
                                                 (rsm, "NonExistentReplica")])
def test_docs_draw_the_tables(module, initial):
    (machine,) = [m for m in MACHINES if m.module == module.__name__]
    assert machine.load() is module.VALID_PREVIOUS_STATES
    lines = render_machine(machine, machine.load())
    start = lines.index("stateDiagram-v2") + 1
    edges = [line.strip() for line in lines[start:lines.index("```", start)] if "-->" in line]
    assert edges[0] == f"[*] --> {initial}"
    assert set(edges[1:]) == {f"{s} --> {t}" for s, t in module.legal_transitions()}
    assert len(edges[1:]) == len(set(module.legal_transitions()))


@pytest.mark.parametrize(("source", "target"), sorted(PARTITION_LEGAL, key=str))
def test_legal_partition_transition_in_the_table(source, target):
    assert psm.is_valid_transition(source, target)
    assert psm.check_transition(TP, source, target) is None


@pytest.mark.parametrize(("source", "target"), sorted(PARTITION_ILLEGAL, key=str))
def test_illegal_partition_transition_in_the_table(source, target):
    assert not psm.is_valid_transition(source, target)
    report = psm.check_transition(TP, source, target)
    assert report is not None and (report.source, report.target) == (source, target)


def test_illegal_partition_transition_message_is_kafkas():
    report = psm.check_transition(TP, P.NON_EXISTENT, P.ONLINE)
    assert str(report) == (
        "Partition orders-0 should be in one of NewPartition,OnlinePartition,OfflinePartition "
        "states before moving to OnlinePartition state. Instead it is in NonExistentPartition "
        "state")


@pytest.mark.parametrize(("source", "target"), sorted(REPLICA_LEGAL, key=str))
def test_legal_replica_transition_in_the_table(source, target):
    assert rsm.is_valid_transition(source, target)
    assert rsm.check_transition(PartitionAndReplica(TP, 2), source, target) is None


@pytest.mark.parametrize(("source", "target"), sorted(REPLICA_ILLEGAL, key=str))
def test_illegal_replica_transition_in_the_table(source, target):
    assert not rsm.is_valid_transition(source, target)
    report = rsm.check_transition(PartitionAndReplica(TP, 2), source, target)
    assert report is not None and (report.source, report.target) == (source, target)


def test_illegal_replica_transition_message_is_kafkas():
    report = rsm.check_transition(PartitionAndReplica(TP, 2), R.NEW, R.DELETION_STARTED)
    assert str(report) == (
        "Replica [Topic=orders,Partition=0,Replica=2] should be in the OfflineReplica states "
        "before moving to ReplicaDeletionStarted state. Instead it is in NewReplica state")
    report = rsm.check_transition(PartitionAndReplica(TP, 2), R.NEW, R.DELETION_INELIGIBLE)
    assert "should be in the OfflineReplica,ReplicaDeletionStarted states" in str(report)


# -- through the partition state machine ------------------------------------------------------


def _partition_machine(source: PartitionState):
    ctx = make_context(topics={"orders": [[1, 2, 3]]})
    if source is not P.NEW:
        lead(ctx, TP, 1, [1, 2, 3])
    if source is not P.NON_EXISTENT:
        ctx.put_partition_state(TP, source)
    return ctx, PartitionStateMachine(ctx, CONTROLLER_ID)


@pytest.mark.parametrize(("source", "target"), sorted(PARTITION_LEGAL, key=str))
def test_legal_partition_transition_is_made(source, target):
    ctx, machine = _partition_machine(source)
    change = machine.handle_state_changes(RequestBatch(ctx), [TP], target, OFFLINE)
    assert change.illegal == [] and change.failed == {}
    if target is P.ONLINE and source is P.NEW:
        assert list(change.to_create) == [TP]  # waits for the state znode
        assert ctx.partition_state(TP) is P.NEW
    elif target is P.ONLINE:
        assert change.to_elect == [TP]  # waits for the read of the state znode
        assert ctx.partition_state(TP) is source
    else:
        assert change.done and change.batch.is_empty()
        assert ctx.partition_state(TP) is target


@pytest.mark.parametrize(("source", "target"), sorted(PARTITION_ILLEGAL, key=str))
def test_illegal_partition_transition_is_reported_and_skipped(source, target):
    ctx, machine = _partition_machine(source)
    change = machine.handle_state_changes(RequestBatch(ctx), [TP], target, OFFLINE)
    assert [(i.topic_partition, i.source, i.target) for i in change.illegal] == [
        (TP, source, target)]
    assert change.done and change.succeeded == {} and change.batch.is_empty()
    assert ctx.partition_state(TP) is source


def test_a_partition_never_seen_starts_non_existent():
    ctx, machine = _partition_machine(P.NON_EXISTENT)
    assert TP not in ctx.partition_states
    change = machine.handle_state_changes(RequestBatch(ctx), [TP], P.OFFLINE)
    assert len(change.illegal) == 1 and ctx.partition_state(TP) is P.NON_EXISTENT


def test_online_needs_a_strategy_when_an_election_is_due():
    ctx, machine = _partition_machine(P.OFFLINE)
    with pytest.raises(ValueError, match="Election strategy is a required field"):
        machine.handle_state_changes(RequestBatch(ctx), [TP], P.ONLINE)


# -- through the replica state machine --------------------------------------------------------

REPLICA = PartitionAndReplica(TP, 2)


def _replica_machine(source: ReplicaState):
    ctx = make_context(topics={"orders": [[1, 2, 3]]})
    lead(ctx, TP, 1, [1, 2, 3])
    if source is not R.NON_EXISTENT:
        ctx.put_replica_state(REPLICA, source)
    return ctx, ReplicaStateMachine(ctx, CONTROLLER_ID)


@pytest.mark.parametrize(("source", "target"), sorted(REPLICA_LEGAL, key=str))
def test_legal_replica_transition_is_made(source, target):
    ctx, machine = _replica_machine(source)
    batch = RequestBatch(ctx)
    change = machine.handle_state_changes(batch, [REPLICA], target)
    assert change.illegal == [] and change.failed == {}
    if target is R.OFFLINE:
        # leaving the ISR waits for ZooKeeper; the StopReplica is in the batch already
        assert change.next_isr_removal() == (2, [TP])
        assert ctx.replica_state(REPLICA) is source
        assert batch.stop_replica[2][TP].delete_partition is False
    elif target is R.NON_EXISTENT:
        assert REPLICA not in ctx.replica_states
        assert ctx.partition_replica_assignment(TP) == (1, 3)
    else:
        assert change.done
        assert ctx.replica_state(REPLICA) is target
    if target is R.DELETION_STARTED:
        assert batch.stop_replica[2][TP].delete_partition is True
    if target is R.NEW:
        assert batch.leader_and_isr[2][TP].is_new is True
    if target is R.ONLINE:
        # from New: only the assignment is checked; otherwise the replica gets the state
        assert (2 in batch.leader_and_isr) is (source is not R.NEW)


@pytest.mark.parametrize(("source", "target"), sorted(REPLICA_ILLEGAL, key=str))
def test_illegal_replica_transition_is_reported_and_skipped(source, target):
    ctx, machine = _replica_machine(source)
    batch = RequestBatch(ctx)
    change = machine.handle_state_changes(batch, [REPLICA], target)
    assert [(i.replica, i.source, i.target) for i in change.illegal] == [
        (REPLICA, source, target)]
    assert change.done and batch.is_empty()
    assert ctx.replica_state(REPLICA) is source
    assert ctx.partition_replica_assignment(TP) == (1, 2, 3)
