"""The records of a KIP-848 consumer group in ``__consumer_offsets``, as Kafka 4 writes them.

The key starts with an int16 record type, followed by the key's fields (Kafka 3.9's key specs
give the record type as their version; 4.x's ``coordinator-key`` specs are version 0 and carry
the type as ``apiKey``: the bytes are the same). The value starts with an int16 version, 0 for
all of these, then the flexible fields. A null value is a tombstone.

====  ============================================  =============================================
type  key                                           value
====  ============================================  =============================================
3     ConsumerGroupMetadata (group)                 group epoch, metadata hash (tagged, 4.1)
4     ConsumerGroupPartitionMetadata (group)        subscribed topics' metadata (4.0; read and
                                                    dropped: pybroker writes the hash, as 4.1)
5     ConsumerGroupMemberMetadata (group, member)   instance, rack, client, subscription, ...
6     ConsumerGroupTargetAssignmentMetadata (group) assignment epoch
7     ConsumerGroupTargetAssignmentMember (g, m)    the member's target partitions
8     ConsumerGroupCurrentMemberAssignment (g, m)   member epoch, previous epoch, state, assigned
                                                    and pending-revocation partitions
16    ConsumerGroupRegularExpression (g, regex)     resolved topics, metadata version, timestamp
====  ============================================  =============================================

Each record is a small frozen dataclass here; :meth:`ConsumerGroup.replay
<pybroker.coordinator.group.consumer.group.ConsumerGroup.replay>` applies it, and the same
object is serialized for the log, so the state in memory is always what replaying the log
gives.
"""

from __future__ import annotations

import struct
import uuid
from dataclasses import dataclass
from typing import Any

from protocol.errors import ProtocolError
from protocol.messages import (
    consumer_group_current_member_assignment_key as cur_key,
    consumer_group_current_member_assignment_value as cur_value,
    consumer_group_member_metadata_key as member_key,
    consumer_group_member_metadata_value as member_value,
    consumer_group_metadata_key as group_key,
    consumer_group_metadata_value as group_value,
    consumer_group_regular_expression_key as regex_key,
    consumer_group_regular_expression_value as regex_value,
    consumer_group_target_assignment_member_key as target_key,
    consumer_group_target_assignment_member_value as target_value,
    consumer_group_target_assignment_metadata_key as target_epoch_key,
    consumer_group_target_assignment_metadata_value as target_epoch_value,
)
from protocol.primitives import Reader

from .member import Assignment, ClassicMemberMetadata, ConsumerGroupMember, MemberState, assignment

GROUP_METADATA = 3
PARTITION_METADATA = 4
MEMBER_METADATA = 5
TARGET_ASSIGNMENT_METADATA = 6
TARGET_ASSIGNMENT_MEMBER = 7
CURRENT_MEMBER_ASSIGNMENT = 8
REGULAR_EXPRESSION = 16

#: the record types of a consumer group
RECORD_TYPES = frozenset({GROUP_METADATA, PARTITION_METADATA, MEMBER_METADATA,
                          TARGET_ASSIGNMENT_METADATA, TARGET_ASSIGNMENT_MEMBER,
                          CURRENT_MEMBER_ASSIGNMENT, REGULAR_EXPRESSION})

_VERSION = struct.Struct(">h")
_VALUE_VERSION = 0


@dataclass(frozen=True, slots=True)
class GroupEpoch:
    """Type 3: the group epoch and the hash of its subscribed topics; ``epoch`` None is the
    tombstone that deletes the group."""

    group_id: str
    epoch: int | None
    metadata_hash: int = 0


@dataclass(frozen=True, slots=True)
class PartitionMetadata:
    """Type 4, written by Kafka 4.0 only: replay ignores it."""

    group_id: str


@dataclass(frozen=True, slots=True)
class MemberMetadata:
    """Type 5: a member's metadata (its assignment fields are not part of it); ``member``
    None is the tombstone that removes the member."""

    group_id: str
    member_id: str
    member: ConsumerGroupMember | None


@dataclass(frozen=True, slots=True)
class TargetAssignmentEpoch:
    """Type 6: the group epoch the target assignment was computed for (None: tombstone)."""

    group_id: str
    epoch: int | None


@dataclass(frozen=True, slots=True)
class TargetAssignmentMember:
    """Type 7: a member's target partitions (None: tombstone)."""

    group_id: str
    member_id: str
    partitions: Assignment | None


@dataclass(frozen=True, slots=True)
class CurrentAssignment:
    """Type 8: a member's epochs, state and partitions, taken from ``member`` (None:
    tombstone)."""

    group_id: str
    member_id: str
    member: ConsumerGroupMember | None


@dataclass(frozen=True, slots=True)
class ResolvedRegex:
    """What a subscription regex resolved to: topic names, at which metadata version, when."""

    topics: frozenset[str]
    version: int
    timestamp_ms: int


@dataclass(frozen=True, slots=True)
class RegularExpression:
    """Type 16: a regex's resolution (None: tombstone, the last member using it left)."""

    group_id: str
    regex: str
    resolved: ResolvedRegex | None


Record = (GroupEpoch | PartitionMetadata | MemberMetadata | TargetAssignmentEpoch
          | TargetAssignmentMember | CurrentAssignment | RegularExpression)


# -- serialization ---------------------------------------------------------------------------


def _topic_partitions(parts: Assignment, cls: type) -> list:
    return [cls(topic_id=t, partitions=sorted(ps)) for t, ps in sorted(parts.items(),
                                                                          key=lambda kv: kv[0].bytes)]


def serialize(record: Record) -> tuple[bytes, bytes | None]:
    """The record's key and value bytes (value None for a tombstone)."""
    if isinstance(record, GroupEpoch):
        key = _VERSION.pack(GROUP_METADATA) + group_key.encode(
            group_key.ConsumerGroupMetadataKey(group_id=record.group_id), GROUP_METADATA)
        value = None if record.epoch is None else group_value.encode(
            group_value.ConsumerGroupMetadataValue(epoch=record.epoch,
                                                   metadata_hash=record.metadata_hash),
            _VALUE_VERSION)
    elif isinstance(record, MemberMetadata):
        key = _VERSION.pack(MEMBER_METADATA) + member_key.encode(
            member_key.ConsumerGroupMemberMetadataKey(group_id=record.group_id,
                                                      member_id=record.member_id),
            MEMBER_METADATA)
        m = record.member
        value = None if m is None else member_value.encode(member_value.ConsumerGroupMemberMetadataValue(
            instance_id=m.instance_id, rack_id=m.rack_id, client_id=m.client_id,
            client_host=m.client_host, subscribed_topic_names=list(m.subscribed_topic_names),
            subscribed_topic_regex=m.subscribed_topic_regex or "",
            rebalance_timeout_ms=m.rebalance_timeout_ms, server_assignor=m.server_assignor,
            classic_member_metadata=None if m.classic is None else
            member_value.ClassicMemberMetadata(
                session_timeout_ms=m.classic.session_timeout_ms,
                supported_protocols=[member_value.ClassicProtocol(name=n, metadata=md)
                                     for n, md in m.classic.protocols])),
            _VALUE_VERSION)
    elif isinstance(record, TargetAssignmentEpoch):
        key = _VERSION.pack(TARGET_ASSIGNMENT_METADATA) + target_epoch_key.encode(
            target_epoch_key.ConsumerGroupTargetAssignmentMetadataKey(group_id=record.group_id),
            TARGET_ASSIGNMENT_METADATA)
        value = None if record.epoch is None else target_epoch_value.encode(
            target_epoch_value.ConsumerGroupTargetAssignmentMetadataValue(
                assignment_epoch=record.epoch), _VALUE_VERSION)
    elif isinstance(record, TargetAssignmentMember):
        key = _VERSION.pack(TARGET_ASSIGNMENT_MEMBER) + target_key.encode(
            target_key.ConsumerGroupTargetAssignmentMemberKey(group_id=record.group_id,
                                                              member_id=record.member_id),
            TARGET_ASSIGNMENT_MEMBER)
        value = None if record.partitions is None else target_value.encode(
            target_value.ConsumerGroupTargetAssignmentMemberValue(
                topic_partitions=_topic_partitions(record.partitions,
                                                   target_value.TopicPartition)),
            _VALUE_VERSION)
    elif isinstance(record, CurrentAssignment):
        key = _VERSION.pack(CURRENT_MEMBER_ASSIGNMENT) + cur_key.encode(
            cur_key.ConsumerGroupCurrentMemberAssignmentKey(group_id=record.group_id,
                                                            member_id=record.member_id),
            CURRENT_MEMBER_ASSIGNMENT)
        m = record.member
        value = None if m is None else cur_value.encode(
            cur_value.ConsumerGroupCurrentMemberAssignmentValue(
                member_epoch=m.member_epoch, previous_member_epoch=m.previous_member_epoch,
                state=m.state.code,
                assigned_partitions=_topic_partitions(m.assigned, cur_value.TopicPartitions),
                partitions_pending_revocation=_topic_partitions(m.pending_revocation,
                                                                cur_value.TopicPartitions)),
            _VALUE_VERSION)
    elif isinstance(record, RegularExpression):
        key = _VERSION.pack(REGULAR_EXPRESSION) + regex_key.encode(
            regex_key.ConsumerGroupRegularExpressionKey(group_id=record.group_id,
                                                        regular_expression=record.regex), 0)
        r = record.resolved
        value = None if r is None else regex_value.encode(
            regex_value.ConsumerGroupRegularExpressionValue(
                topics=sorted(r.topics), version=r.version, timestamp=r.timestamp_ms),
            _VALUE_VERSION)
    else:
        raise TypeError(f"not a consumer group record: {record!r}")
    return key, None if value is None else _VERSION.pack(_VALUE_VERSION) + value


def _value(data: bytes | bytearray | memoryview, module: Any) -> object:
    if len(data) < 2:
        raise ProtocolError("a consumer group record value without a version")
    version = _VERSION.unpack_from(data)[0]
    if version != _VALUE_VERSION:
        raise ProtocolError(f"unknown {module.NAME} version {version}")
    return module.read(Reader(data, 2), version)


def _assignment(topic_partitions: list) -> Assignment:
    return assignment({tp.topic_id: tp.partitions for tp in topic_partitions})


def deserialize(record_type: int, key: Reader,
                value: bytes | bytearray | memoryview | None) -> Record:
    """A record from its type, a reader past the type, and its value (None: tombstone).
    Raises ProtocolError for bytes that do not parse."""
    try:
        if record_type == GROUP_METADATA:
            gid = group_key.read(key, GROUP_METADATA).group_id
            if value is None:
                return GroupEpoch(gid, None)
            gv = _value(value, group_value)
            assert isinstance(gv, group_value.ConsumerGroupMetadataValue)
            return GroupEpoch(gid, gv.epoch, gv.metadata_hash)
        if record_type == PARTITION_METADATA:
            return PartitionMetadata(group_key.read(key, GROUP_METADATA).group_id)
        if record_type == MEMBER_METADATA:
            k = member_key.read(key, MEMBER_METADATA)
            if value is None:
                return MemberMetadata(k.group_id, k.member_id, None)
            mv = _value(value, member_value)
            assert isinstance(mv, member_value.ConsumerGroupMemberMetadataValue)
            classic = mv.classic_member_metadata
            return MemberMetadata(k.group_id, k.member_id, ConsumerGroupMember(
                member_id=k.member_id, instance_id=mv.instance_id, rack_id=mv.rack_id,
                rebalance_timeout_ms=mv.rebalance_timeout_ms, client_id=mv.client_id,
                client_host=mv.client_host,
                subscribed_topic_names=tuple(mv.subscribed_topic_names),
                subscribed_topic_regex=mv.subscribed_topic_regex or None,
                server_assignor=mv.server_assignor,
                classic=None if classic is None else ClassicMemberMetadata(
                    classic.session_timeout_ms,
                    tuple((p.name, bytes(p.metadata)) for p in classic.supported_protocols))))
        if record_type == TARGET_ASSIGNMENT_METADATA:
            gid = target_epoch_key.read(key, TARGET_ASSIGNMENT_METADATA).group_id
            if value is None:
                return TargetAssignmentEpoch(gid, None)
            tv = _value(value, target_epoch_value)
            assert isinstance(tv, target_epoch_value.ConsumerGroupTargetAssignmentMetadataValue)
            return TargetAssignmentEpoch(gid, tv.assignment_epoch)
        if record_type == TARGET_ASSIGNMENT_MEMBER:
            tk = target_key.read(key, TARGET_ASSIGNMENT_MEMBER)
            if value is None:
                return TargetAssignmentMember(tk.group_id, tk.member_id, None)
            av = _value(value, target_value)
            assert isinstance(av, target_value.ConsumerGroupTargetAssignmentMemberValue)
            return TargetAssignmentMember(tk.group_id, tk.member_id,
                                          _assignment(av.topic_partitions))
        if record_type == CURRENT_MEMBER_ASSIGNMENT:
            ck = cur_key.read(key, CURRENT_MEMBER_ASSIGNMENT)
            if value is None:
                return CurrentAssignment(ck.group_id, ck.member_id, None)
            cv = _value(value, cur_value)
            assert isinstance(cv, cur_value.ConsumerGroupCurrentMemberAssignmentValue)
            return CurrentAssignment(ck.group_id, ck.member_id, ConsumerGroupMember(
                member_id=ck.member_id, member_epoch=cv.member_epoch,
                previous_member_epoch=cv.previous_member_epoch,
                state=MemberState.of_code(cv.state),
                assigned=_assignment(cv.assigned_partitions),
                pending_revocation=_assignment(cv.partitions_pending_revocation)))
        if record_type == REGULAR_EXPRESSION:
            rk = regex_key.read(key, 0)
            if value is None:
                return RegularExpression(rk.group_id, rk.regular_expression, None)
            rv = _value(value, regex_value)
            assert isinstance(rv, regex_value.ConsumerGroupRegularExpressionValue)
            return RegularExpression(rk.group_id, rk.regular_expression, ResolvedRegex(
                frozenset(rv.topics), rv.version, rv.timestamp))
    except (struct.error, IndexError, ValueError, UnicodeDecodeError, AssertionError) as exc:
        raise ProtocolError(f"malformed consumer group record of type {record_type}: "
                            f"{exc}") from exc
    raise ProtocolError(f"not a consumer group record type: {record_type}")


def topic_ids(parts: Assignment) -> list[uuid.UUID]:
    return sorted(parts, key=lambda t: t.bytes)
