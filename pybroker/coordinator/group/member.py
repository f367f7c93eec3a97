"""One member of a classic group: its protocols, timeouts, assignment and parked requests."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Any

#: A protocol a member supports: (name, metadata bytes), in the member's order of preference.
Protocol = tuple[str, bytes]

#: Where a parked JoinGroup or SyncGroup answer goes.
Responder = Callable[[Any], None]


@dataclass(frozen=True, slots=True)
class MemberSummary:
    """A member as DescribeGroups shows it (metadata and assignment only for Stable groups)."""

    member_id: str
    group_instance_id: str | None
    client_id: str
    client_host: str
    metadata: bytes
    assignment: bytes


@dataclass(eq=False, slots=True)
class MemberMetadata:
    member_id: str
    group_instance_id: str | None
    client_id: str
    client_host: str
    rebalance_timeout_ms: int
    session_timeout_ms: int
    protocol_type: str
    supported_protocols: list[Protocol]
    assignment: bytes = b""
    #: The parked JoinGroup answer while the member waits for the rebalance to complete.
    awaiting_join: Responder | None = None
    #: The parked SyncGroup answer while the member waits for the leader's assignment.
    awaiting_sync: Responder | None = None
    #: Joined but not yet part of a generation; its join times out instead of its session.
    is_new: bool = False
    #: The member proved liveness since its session deadline was last set.
    heartbeat_satisfied: bool = False

    @property
    def is_static(self) -> bool:
        return self.group_instance_id is not None

    @property
    def is_awaiting_join(self) -> bool:
        return self.awaiting_join is not None

    @property
    def is_awaiting_sync(self) -> bool:
        return self.awaiting_sync is not None

    @property
    def protocol_names(self) -> list[str]:
        return [name for name, _ in self.supported_protocols]

    def metadata(self, protocol: str) -> bytes:
        for name, data in self.supported_protocols:
            if name == protocol:
                return data
        raise ValueError(f"member {self.member_id} does not support protocol {protocol!r}")

    def has_satisfied_heartbeat(self) -> bool:
        """Whether a session deadline passing now leaves the member alive.

        A member parked in JoinGroup or SyncGroup cannot heartbeat, so it counts as alive, unless
        it is new: a new member's join deadline is what removes a client that gave up waiting.
        """
        if self.is_new:
            return self.heartbeat_satisfied
        if self.is_awaiting_join or self.is_awaiting_sync:
            return True
        return self.heartbeat_satisfied

    def matches(self, protocols: Sequence[Protocol]) -> bool:
        """Same protocols, same order, same metadata bytes."""
        if len(protocols) != len(self.supported_protocols):
            return False
        return all(a[0] == b[0] and bytes(a[1]) == bytes(b[1])
                   for a, b in zip(protocols, self.supported_protocols, strict=True))

    def vote(self, candidates: Collection[str]) -> str:
        """The member's most preferred protocol among ``candidates``."""
        for name, _ in self.supported_protocols:
            if name in candidates:
                return name
        raise ValueError(f"member {self.member_id} supports none of {sorted(candidates)}")

    def summary(self, protocol: str) -> MemberSummary:
        return MemberSummary(self.member_id, self.group_instance_id, self.client_id,
                             self.client_host, self.metadata(protocol), self.assignment)

    def summary_without_metadata(self) -> MemberSummary:
        return MemberSummary(self.member_id, self.group_instance_id, self.client_id,
                             self.client_host, b"", b"")
