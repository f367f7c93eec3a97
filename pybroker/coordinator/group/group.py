"""A classic group's membership bookkeeping, and the plain results handed back to its members.

:class:`ClassicGroup` keeps what Kafka's GroupMetadata keeps for the JoinGroup/SyncGroup
protocol: the members, the static-member mapping, the pending (MEMBER_ID_REQUIRED) members, the
per-protocol support counts the protocol vote uses, the leader, the generation and the state.
It makes no decisions about requests and owns no timers; the coordinator does both.
Offsets are not kept here either: the offset cache lives with the ``__consumer_offsets`` store.
"""

from __future__ import annotations

import logging
import struct
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from protocol.errors import ErrorCode, ProtocolError
from protocol.messages import consumer_protocol_subscription as cps, group_metadata_value as gmv
from protocol.primitives import Reader

from .member import MemberMetadata, MemberSummary, Protocol, Responder
from .state import GroupState, can_rebalance, check_transition

log = logging.getLogger(__name__)

CONSUMER_PROTOCOL_TYPE = "consumer"
CLASSIC_GROUP_TYPE = "classic"


# -- results handed to the caller ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class JoinGroupMember:
    """One entry of the leader's JoinGroup answer: a member and its metadata, verbatim."""

    member_id: str
    group_instance_id: str | None
    metadata: bytes


@dataclass(frozen=True, slots=True)
class JoinGroupResult:
    error_code: ErrorCode
    member_id: str
    generation_id: int = -1
    protocol_type: str | None = None
    protocol_name: str | None = None
    leader_id: str = ""
    skip_assignment: bool = False
    #: Every member with its metadata for the chosen protocol for the leader; empty otherwise.
    members: tuple[JoinGroupMember, ...] = ()

    @classmethod
    def failure(cls, member_id: str, error: ErrorCode) -> JoinGroupResult:
        return cls(error_code=error, member_id=member_id)


@dataclass(frozen=True, slots=True)
class SyncGroupResult:
    error_code: ErrorCode
    protocol_type: str | None = None
    protocol_name: str | None = None
    assignment: bytes = b""

    @classmethod
    def failure(cls, error: ErrorCode) -> SyncGroupResult:
        return cls(error_code=error)


@dataclass(frozen=True, slots=True)
class GroupOverview:
    """A group as ListGroups shows it."""

    group_id: str
    protocol_type: str
    state: str
    group_type: str = CLASSIC_GROUP_TYPE


@dataclass(frozen=True, slots=True)
class GroupSummary:
    """A group as DescribeGroups shows it."""

    state: str
    protocol_type: str
    protocol: str
    members: tuple[MemberSummary, ...]


# -- the group -----------------------------------------------------------------------------------


class ClassicGroup:
    def __init__(self, group_id: str, state: GroupState, now_ms: int) -> None:
        self.group_id = group_id
        self.state = state
        self.current_state_timestamp: int | None = now_ms
        self.protocol_type: str | None = None
        self.protocol_name: str | None = None
        self.generation_id = 0
        self.leader_id: str | None = None
        self.members: dict[str, MemberMetadata] = {}
        self.pending_members: set[str] = set()
        self.pending_sync_members: set[str] = set()
        #: A member joined during the first rebalance's initial delay, so it may be extended.
        self.new_member_added = False
        #: Topics the consumer members subscribe to; None when unknown (not a consumer group,
        #: or unparsable metadata).
        self.subscribed_topics: frozenset[str] | None = None
        #: The coordinator's parked rebalance (join phase), if any.
        self.delayed_join: Any = None
        self._static_members: dict[str, str] = {}
        self._protocol_support: Counter[str] = Counter()
        self._num_awaiting_join = 0

    def __repr__(self) -> str:
        return (f"ClassicGroup({self.group_id!r}, {self.state}, generation={self.generation_id}, "
                f"members={list(self.members)})")

    # -- state ---------------------------------------------------------------------------------

    def transition_to(self, target: GroupState, now_ms: int) -> None:
        check_transition(self.group_id, self.state, target)
        self.state = target
        self.current_state_timestamp = now_ms

    @property
    def can_rebalance(self) -> bool:
        return can_rebalance(self.state)

    def is_in_states(self, lower_case_names: set[str]) -> bool:
        return self.state.value.lower() in lower_case_names

    # -- membership ----------------------------------------------------------------------------

    def __contains__(self, member_id: str) -> bool:
        return member_id in self.members

    def __len__(self) -> int:
        return len(self.members)

    def is_leader(self, member_id: str) -> bool:
        return self.leader_id is not None and self.leader_id == member_id

    def static_member_id(self, group_instance_id: str) -> str | None:
        return self._static_members.get(group_instance_id)

    @property
    def static_members(self) -> Mapping[str, str]:
        """group.instance.id -> member id."""
        return self._static_members

    @property
    def num_awaiting_join(self) -> int:
        return self._num_awaiting_join

    @property
    def rebalance_timeout_ms(self) -> int:
        return max((m.rebalance_timeout_ms for m in self.members.values()), default=0)

    def has_all_members_joined(self) -> bool:
        return len(self.members) == self._num_awaiting_join and not self.pending_members

    def not_yet_rejoined_members(self) -> list[MemberMetadata]:
        return [m for m in self.members.values() if not m.is_awaiting_join]

    def add(self, member: MemberMetadata, respond: Responder | None = None) -> None:
        if member.group_instance_id is not None:
            if member.group_instance_id in self._static_members:
                raise ValueError(f"static member {member.group_instance_id} is already in group "
                                 f"{self.group_id}")
            self._static_members[member.group_instance_id] = member.member_id
        if not self.members:
            self.protocol_type = member.protocol_type
        if self.leader_id is None:
            self.leader_id = member.member_id
        self.members[member.member_id] = member
        self._protocol_support.update(member.protocol_names)
        member.awaiting_join = respond
        if respond is not None:
            self._num_awaiting_join += 1
        self.pending_members.discard(member.member_id)

    def remove(self, member_id: str) -> MemberMetadata | None:
        member = self.members.pop(member_id, None)
        if member is not None:
            self._protocol_support.subtract(member.protocol_names)
            if member.is_awaiting_join:
                self._num_awaiting_join -= 1
            if member.group_instance_id is not None:
                self._static_members.pop(member.group_instance_id, None)
        if self.is_leader(member_id):
            self.leader_id = next(iter(self.members), None)
        self.pending_members.discard(member_id)
        self.pending_sync_members.discard(member_id)
        return member

    def add_pending_member(self, member_id: str) -> None:
        if member_id in self.members:
            raise ValueError(f"{member_id} is already a member of group {self.group_id}")
        self.pending_members.add(member_id)

    def update_member(self, member: MemberMetadata, protocols: Sequence[Protocol],
                      rebalance_timeout_ms: int, session_timeout_ms: int,
                      respond: Responder | None) -> Responder | None:
        """Replace the member's protocols and timeouts and park ``respond`` as its JoinGroup
        answer; returns a previously parked answer that this displaces."""
        self._protocol_support.subtract(member.protocol_names)
        member.supported_protocols = list(protocols)
        self._protocol_support.update(member.protocol_names)
        member.rebalance_timeout_ms = rebalance_timeout_ms
        member.session_timeout_ms = session_timeout_ms
        displaced = member.awaiting_join
        if respond is not None and displaced is None:
            self._num_awaiting_join += 1
        elif respond is None and displaced is not None:
            self._num_awaiting_join -= 1
        member.awaiting_join = respond
        return displaced

    def take_join_responder(self, member: MemberMetadata) -> Responder | None:
        """Unpark the member's JoinGroup answer, if any, for the caller to answer."""
        respond = member.awaiting_join
        if respond is not None:
            member.awaiting_join = None
            self._num_awaiting_join -= 1
        return respond

    @staticmethod
    def take_sync_responder(member: MemberMetadata) -> Responder | None:
        respond = member.awaiting_sync
        member.awaiting_sync = None
        return respond

    def replace_static_member(self, group_instance_id: str, old_member_id: str,
                              new_member_id: str) -> MemberMetadata:
        """Give a static member a new member id, keeping everything else (its parked answers
        must have been dealt with by the caller)."""
        member = self.members.get(old_member_id)
        if member is None:
            raise ValueError(f"cannot replace unknown member {old_member_id}")
        member.member_id = new_member_id
        # keep the member's place: JoinGroup answers list members in this order
        self.members = {(new_member_id if mid == old_member_id else mid): m
                        for mid, m in self.members.items()}
        if self.is_leader(old_member_id):
            self.leader_id = new_member_id
        if old_member_id in self.pending_sync_members:
            self.pending_sync_members.discard(old_member_id)
            self.pending_sync_members.add(new_member_id)
        self._static_members[group_instance_id] = new_member_id
        return member

    def maybe_elect_new_joined_leader(self) -> bool:
        """Keep the leader if it rejoined, else make any rejoined member the leader. False when
        the group has no leader or nobody rejoined."""
        if self.leader_id is None:
            return False
        if self.members[self.leader_id].is_awaiting_join:
            return True
        for member_id, member in self.members.items():
            if member.is_awaiting_join:
                log.info("group %s: leader %s did not rejoin in time, %s is the new leader",
                         self.group_id, self.leader_id, member_id)
                self.leader_id = member_id
                return True
        return False

    # -- protocols -----------------------------------------------------------------------------

    def candidate_protocols(self) -> set[str]:
        """Protocols every member supports."""
        n = len(self.members)
        return {name for name, count in self._protocol_support.items() if count == n and n}

    def supports_protocols(self, protocol_type: str, protocol_names: Sequence[str]) -> bool:
        """Whether a member with these protocols may be in the group."""
        if self.state is GroupState.EMPTY:
            return bool(protocol_type) and bool(protocol_names)
        n = len(self.members)
        return (self.protocol_type == protocol_type
                and any(self._protocol_support[name] == n for name in protocol_names))

    def select_protocol(self) -> str:
        """Each member votes for its most preferred protocol among those all members support;
        the most votes wins (a tie goes to the protocol that got its first vote first)."""
        if not self.members:
            raise ValueError(f"cannot select a protocol for empty group {self.group_id}")
        candidates = self.candidate_protocols()
        votes = Counter(member.vote(candidates) for member in self.members.values())
        return votes.most_common(1)[0][0]

    # -- generations ---------------------------------------------------------------------------

    def init_next_generation(self, now_ms: int) -> None:
        self.generation_id += 1
        if self.members:
            self.protocol_name = self.select_protocol()
            self.subscribed_topics = self.compute_subscribed_topics()
            self.transition_to(GroupState.COMPLETING_REBALANCE, now_ms)
        else:
            self.protocol_name = None
            self.subscribed_topics = self.compute_subscribed_topics()
            self.transition_to(GroupState.EMPTY, now_ms)
        self.pending_sync_members.clear()

    def current_member_metadata(self) -> tuple[JoinGroupMember, ...]:
        if self.state in (GroupState.DEAD, GroupState.PREPARING_REBALANCE):
            raise ValueError(f"group {self.group_id} has no member metadata in {self.state}")
        protocol = self.protocol_name
        assert protocol is not None
        return tuple(JoinGroupMember(m.member_id, m.group_instance_id, m.metadata(protocol))
                     for m in self.members.values())

    # -- views ---------------------------------------------------------------------------------

    def summary(self) -> GroupSummary:
        if self.state is GroupState.STABLE:
            assert self.protocol_name is not None
            members = tuple(m.summary(self.protocol_name) for m in self.members.values())
            return GroupSummary(self.state.value, self.protocol_type or "", self.protocol_name,
                                members)
        members = tuple(m.summary_without_metadata() for m in self.members.values())
        return GroupSummary(self.state.value, self.protocol_type or "", "", members)

    def overview(self) -> GroupOverview:
        return GroupOverview(self.group_id, self.protocol_type or "", self.state.value)

    @property
    def is_consumer_group(self) -> bool:
        return self.protocol_type == CONSUMER_PROTOCOL_TYPE

    def is_subscribed_to_topic(self, topic: str) -> bool:
        """Unknown subscriptions count as subscribed, to be safe."""
        return self.subscribed_topics is None or topic in self.subscribed_topics

    def compute_subscribed_topics(self) -> frozenset[str] | None:
        if self.protocol_type != CONSUMER_PROTOCOL_TYPE:
            return None
        if not self.members:
            return frozenset()
        if self.protocol_name is None:
            return None
        topics: set[str] = set()
        for member in self.members.values():
            parsed = _subscription_topics(member.metadata(self.protocol_name))
            if parsed is None:
                log.warning("group %s: cannot parse the consumer subscription of member %s",
                            self.group_id, member.member_id)
                return None
            topics.update(parsed)
        return frozenset(topics)

    # -- persistence ---------------------------------------------------------------------------

    def to_metadata_value(self, assignment: Mapping[str, bytes]) -> gmv.GroupMetadataValue:
        """The GroupMetadataValue to store, with ``assignment`` for each member (every member
        needs one). A group with no members stores no protocol and no leader."""
        members = []
        for m in self.members.values():
            assert self.protocol_name is not None, "a non-empty group must have a protocol"
            members.append(gmv.MemberMetadata(
                member_id=m.member_id, group_instance_id=m.group_instance_id,
                client_id=m.client_id, client_host=m.client_host,
                rebalance_timeout=m.rebalance_timeout_ms, session_timeout=m.session_timeout_ms,
                subscription=m.metadata(self.protocol_name), assignment=assignment[m.member_id]))
        return gmv.GroupMetadataValue(
            protocol_type=self.protocol_type or "",
            generation=self.generation_id,
            protocol=self.protocol_name,
            leader=self.leader_id,
            current_state_timestamp=(-1 if self.current_state_timestamp is None
                                     else self.current_state_timestamp),
            members=members,
        )

    @classmethod
    def from_metadata_value(cls, group_id: str, value: gmv.GroupMetadataValue | None,
                            now_ms: int) -> ClassicGroup:
        """A stored group: Stable with its members, or Empty when it has none. ``None`` is a
        group known only through its committed offsets (Empty, generation 0)."""
        if value is None:
            return cls(group_id, GroupState.EMPTY, now_ms)
        state = GroupState.STABLE if value.members else GroupState.EMPTY
        group = cls(group_id, state, now_ms)
        group.generation_id = value.generation
        group.protocol_type = value.protocol_type or None
        group.protocol_name = value.protocol if value.members else None
        group.leader_id = value.leader if value.members else None
        group.current_state_timestamp = (None if value.current_state_timestamp < 0
                                         else value.current_state_timestamp)
        for m in value.members:
            group.add(MemberMetadata(
                member_id=m.member_id, group_instance_id=m.group_instance_id,
                client_id=m.client_id, client_host=m.client_host,
                # v0 records have no rebalance timeout; Kafka uses the session timeout
                rebalance_timeout_ms=(m.rebalance_timeout if m.rebalance_timeout >= 0
                                      else m.session_timeout),
                session_timeout_ms=m.session_timeout,
                protocol_type=value.protocol_type,
                supported_protocols=[(value.protocol or "", bytes(m.subscription))],
                assignment=bytes(m.assignment)))
        if group.leader_id is not None and group.leader_id not in group.members:
            group.leader_id = next(iter(group.members), None)
        group.subscribed_topics = group.compute_subscribed_topics()
        return group


def _subscription_topics(metadata: bytes) -> list[str] | None:
    """Topics of a consumer subscription, read with the v0 layout every version starts with."""
    try:
        r = Reader(metadata)
        r.int16()  # version
        return cps.read_v0(r).topics
    except (ProtocolError, ValueError, IndexError, OverflowError, MemoryError, struct.error):
        return None
