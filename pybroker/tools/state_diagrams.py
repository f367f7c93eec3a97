"""Print ``docs/state-machines.md``: a diagram and a transition table for each state table.

State machines declare their transitions as a :class:`~pybroker.kernel.state_table.StateTable`
(Kafka's ``validPreviousStates`` form: each state mapped to the states it may be entered from,
with the state a new instance starts in); they are drawn from those tables, so the pictures in
the docs cannot drift from the code.  ``make gen`` writes the file and ``make gen-check`` fails
when it is stale.  A new table only needs an entry in :data:`MACHINES`.
"""

from __future__ import annotations

import enum
import importlib
import re
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from pybroker.kernel.state_table import StateTable, state_name


@dataclass(frozen=True)
class StateMachine:
    title: str
    module: str
    table: str  # attribute of ``module``: state -> the states it may be entered from
    description: str
    #: the state a new instance starts in, when it has one (by default the table's own)
    initial: str | None = None

    def load(self) -> Mapping[object, Iterable[object]]:
        return getattr(importlib.import_module(self.module), self.table)


MACHINES: list[StateMachine] = [
    StateMachine(
        title="Classic consumer group",
        module="pybroker.coordinator.group.state",
        table="VALID_PREVIOUS_STATES",
        description=(
            "Each group of the classic (JoinGroup/SyncGroup) protocol in the group coordinator, "
            "with Kafka's states and transitions. A new group starts Empty; any state may move "
            "to Dead (the group was deleted, expired or moved to another coordinator)."
        ),
    ),
    StateMachine(
        title="Member of a consumer group (KIP-848 reconciliation)",
        module="pybroker.coordinator.group.consumer.member",
        table="MEMBER_STATES",
        description=(
            "Each member of a consumer-protocol group, as Kafka's CurrentAssignmentBuilder "
            "moves it towards its target assignment one heartbeat at a time: "
            "unrevoked_partitions while it must still give partitions up (it keeps its old "
            "epoch), unreleased_partitions while partitions of its target are still held by "
            "other members, stable once it holds its whole target at the assignment epoch. "
            "unknown is only read from a record of a newer coordinator, and is left by "
            "reconciling the member from nothing."
        ),
    ),
    StateMachine(
        title="Transactional id (transaction coordinator)",
        module="pybroker.coordinator.transaction.state",
        table="VALID_PREVIOUS_STATES",
        description=(
            "Each transactional id in the transaction coordinator, with Kafka's states and "
            "transitions (TransactionState). InitProducerId leaves it Empty; the first "
            "AddPartitionsToTxn or AddOffsetsToTxn makes it Ongoing; EndTxn (or a timeout) "
            "moves it to PrepareCommit or PrepareAbort, and once every partition has its "
            "marker to CompleteCommit or CompleteAbort. PrepareEpochFence is the fencing bump "
            "of a newer producer's InitProducerId, which turns into PrepareAbort before it is "
            "written; Dead is an id expiring after transactional.id.expiration.ms."
        ),
    ),
    StateMachine(
        title="Coordinator partition (coordinator runtime)",
        module="pybroker.coordinator.runtime.state",
        table="VALID_PREVIOUS_STATES",
        description=(
            "Each partition of a coordinator's internal topic (__consumer_offsets, "
            "__transaction_state) on this broker, as both coordinators' runtime keeps it "
            "(Kafka's CoordinatorState): Loading while its log is replayed after this broker "
            "became its leader (its requests answer COORDINATOR_LOAD_IN_PROGRESS), Active once "
            "the replay was handed over, Failed when the load broke off (Active with what was "
            "read for the transaction coordinator, which serves it as Kafka's does), Unloaded "
            "when another "
            "broker leads it (NOT_COORDINATOR). A new election loads it again from any state."
        ),
    ),
    StateMachine(
        title="Partition (ZooKeeper-mode controller)",
        module="pybroker.controller.partition_state_machine",
        table="VALID_PREVIOUS_STATES",
        description=(
            "Each partition as the controller sees it, with Kafka's states and transitions "
            "(PartitionStateMachine). A partition is New once its replicas are assigned, Online "
            "once a leader is elected (again on every election), Offline when its leader dies, "
            "and NonExistent again when its topic is deleted."
        ),
    ),
    StateMachine(
        title="Replica (ZooKeeper-mode controller)",
        module="pybroker.controller.replica_state_machine",
        table="VALID_PREVIOUS_STATES",
        description=(
            "Each replica (a partition on one broker) as the controller sees it, with Kafka's "
            "states and transitions (ReplicaStateMachine): New while a reassignment adds it, "
            "Online on a live broker, Offline when its broker dies or shuts down, and the "
            "deletion states while its topic is deleted."
        ),
    ),
    StateMachine(
        title="Followed partition (replica fetcher)",
        module="pybroker.cluster.fetcher_state",
        table="VALID_PREVIOUS_STATES",
        description=(
            "Each partition a broker follows, in its replica fetcher (Kafka's ReplicaState in "
            "AbstractFetcherThread, with Failed for the partitions Kafka sets aside). It starts "
            "Truncating, or Fetching when its log has leader epochs and truncation rides on "
            "Fetch; Failed partitions (fenced by a newer epoch, or broken) wait for the next "
            "LeaderAndIsr. A new leader or leader epoch starts the partition afresh."
        ),
    ),
    StateMachine(
        title="Partition moving between log dirs (log dir mover)",
        module="pybroker.cluster.alter_log_dirs",
        table="VALID_PREVIOUS_STATES",
        description=(
            "Each partition AlterReplicaLogDirs moves to another log dir on this broker, in the "
            "log dir mover (Kafka's ReplicaAlterLogDirsThread). It starts Copying into its "
            "future log and leaves the table when the future log is swapped in, or when the "
            "move is cancelled or the partition stopped; a step that fails leaves it Failed "
            "until the move is asked for again (AlterReplicaLogDirs, a LeaderAndIsr, a restart)."
        ),
    ),
    StateMachine(
        title="SASL authentication of a connection",
        module="pybroker.security.sasl",
        table="VALID_PREVIOUS_STATES",
        description=(
            "Each connection on a SASL listener (Kafka's SaslServerAuthenticator). Before "
            "COMPLETE only ApiVersions, SaslHandshake and SaslAuthenticate (or raw tokens after "
            "SaslHandshake v0) are taken; anything else closes the connection, and FAILED closes "
            "it after the failure's answer. With connections.max.reauth.ms a SaslHandshake on an "
            "authenticated connection re-authenticates it (KIP-368)."
        ),
    ),
]


def _ordered(table: Mapping[object, Iterable[object]]) -> list[object]:
    """Every state, in enum definition order (or by name), so the output is deterministic."""
    states = set(table)
    for sources in table.values():
        states.update(sources)
    members = [s for s in states if isinstance(s, enum.Enum)]
    if members and len(members) == len(states):
        order: dict[object, int] = {m: i for i, m in enumerate(type(members[0]))}
        if all(s in order for s in states):
            return sorted(states, key=order.__getitem__)
    return sorted(states, key=state_name)


def _node_id(name: str) -> str:
    return re.sub(r"\W", "_", name)


def render_machine(machine: StateMachine, table: Mapping[object, Iterable[object]]) -> list[str]:
    states = _ordered(table)
    rank = {s: i for i, s in enumerate(states)}
    previous = {s: sorted(table.get(s, ()), key=rank.__getitem__) for s in states}
    following = {s: [t for t in states if s in previous[t]] for s in states}
    lines = [
        f"## {machine.title}",
        "",
        machine.description,
        "",
        f"Table: `{machine.module}.{machine.table}`.",
        "",
        "```mermaid",
        "stateDiagram-v2",
    ]
    for s in states:
        name = state_name(s)
        if _node_id(name) != name:
            lines.append(f'    state "{name}" as {_node_id(name)}')
    initial = machine.initial
    if initial is None and isinstance(table, StateTable) and table.initial is not None:
        initial = state_name(table.initial)
    if initial is not None:
        if initial not in {state_name(s) for s in states}:
            raise ValueError(f"{machine.title}: initial state {initial} is not in the table")
        lines.append(f"    [*] --> {_node_id(initial)}")
    for target in states:
        for source in previous[target]:
            lines.append(f"    {_node_id(state_name(source))} --> {_node_id(state_name(target))}")
    lines += ["```", "", "| State | Entered from | Leads to |", "|---|---|---|"]

    def names(items: list[object]) -> str:
        return ", ".join(state_name(i) for i in items) or "-"

    for s in states:
        lines.append(f"| {state_name(s)} | {names(previous[s])} | {names(following[s])} |")
    return lines


def render(machines: list[StateMachine] = MACHINES) -> str:
    lines = [
        "<!-- @generated by pybroker.tools.state_diagrams from the state tables in the code."
        " DO NOT EDIT: run `make gen`. -->",
        "# State machines",
        "",
        "Drawn from the state tables in the code by `python -m pybroker.tools.state_diagrams`",
        "(`make gen`; `make gen-check` fails when this page is stale). Each table (a `StateTable`,",
        "`pybroker/kernel/state_table.py`) maps a state to the states it may be entered from, as",
        "Kafka's `validPreviousStates` do; an arrow goes from a previous state to the state it may",
        "enter.",
    ]
    for machine in machines:
        lines.append("")
        lines.extend(render_machine(machine, machine.load()))
    return "\n".join(lines) + "\n"


def main() -> int:
    sys.stdout.write(render())
    return 0


if __name__ == "__main__":
    sys.exit(main())
