"""A leader's ISR as a typed state, and what it knows of each follower (Kafka's
``PartitionState`` family and ``Replica``).

:class:`CommittedPartitionState` once the controller has recorded the ISR,
:class:`PendingExpandIsr` / :class:`PendingShrinkIsr` while a change the leader asked for is in
flight; each knows its committed ISR (for ``min.insync.replicas``) and its *maximal* ISR (what
the high watermark waits for). :class:`ReplicaState` is one follower as its fetches show it.
Used by :class:`pybroker.cluster.partition.Partition`; pure values and decisions, ``now_ms``
passed in.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from protocol.errors import ErrorCode
from pybroker.cluster.alter_partition import IsrUpdate

NO_OFFSET = -1

@dataclass(frozen=True, slots=True)
class CommittedPartitionState:
    """The ISR as the controller recorded it."""

    isr: frozenset[int]

    @property
    def maximal_isr(self) -> frozenset[int]:
        return self.isr

    @property
    def is_inflight(self) -> bool:
        return False


@dataclass(frozen=True, slots=True)
class PendingExpandIsr:
    """The leader asked to add ``new_in_sync_replica``; the high watermark waits for it already."""

    new_in_sync_replica: int
    last_committed: CommittedPartitionState
    #: what was sent to the controller
    sent: IsrUpdate | None = None

    @property
    def isr(self) -> frozenset[int]:
        return self.last_committed.isr

    @property
    def maximal_isr(self) -> frozenset[int]:
        return self.last_committed.isr | {self.new_in_sync_replica}

    @property
    def is_inflight(self) -> bool:
        return True


@dataclass(frozen=True, slots=True)
class PendingShrinkIsr:
    """The leader asked to drop ``out_of_sync``; until that is recorded they still count."""

    out_of_sync: frozenset[int]
    last_committed: CommittedPartitionState
    #: what was sent to the controller
    sent: IsrUpdate | None = None

    @property
    def isr(self) -> frozenset[int]:
        return self.last_committed.isr

    @property
    def maximal_isr(self) -> frozenset[int]:
        return self.last_committed.isr

    @property
    def is_inflight(self) -> bool:
        return True


PartitionState = CommittedPartitionState | PendingExpandIsr | PendingShrinkIsr
PendingIsrChange = PendingExpandIsr | PendingShrinkIsr

#: the answers after which a proposal is known not to have been applied (Kafka reverts then)
NOT_APPLIED = frozenset({ErrorCode.OPERATION_NOT_ATTEMPTED, ErrorCode.INELIGIBLE_REPLICA})
#: the answers after which the leader waits, pending, for the controller's LeaderAndIsr
AWAIT_METADATA = frozenset({
    ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, ErrorCode.UNKNOWN_TOPIC_ID,
    ErrorCode.FENCED_LEADER_EPOCH, ErrorCode.INVALID_UPDATE_VERSION,
    ErrorCode.INVALID_REQUEST, ErrorCode.NEW_LEADER_ELECTED})


@dataclass(slots=True)
class ReplicaState:
    """A follower as the leader learns it from the follower's fetches (Kafka's ``Replica``).

    ``last_caught_up_time_ms`` is the latest time at which the follower's fetch offset reached
    the leader's log end: the time of a fetch at or past the log end the leader had when it
    arrived, or, for a fetch past the log end the leader had at the *previous* fetch, the time
    of that previous fetch (so that a follower under a steady trickle of small produces, which
    never quite reaches the moving log end, still counts as caught up)."""

    broker_id: int
    log_end_offset: int = NO_OFFSET  # unknown until its first fetch
    log_start_offset: int = NO_OFFSET
    #: the leader's log end offset when the previous fetch arrived
    last_fetch_leader_log_end_offset: int = 0
    last_fetch_time_ms: int = 0
    last_caught_up_time_ms: int = 0
    #: the broker epoch the follower's fetch named (Fetch v15+), None until one did
    broker_epoch: int | None = None

    def update_fetch_state(self, fetch_offset: int, follower_start_offset: int, now_ms: int,
                           leader_end_offset: int, broker_epoch: int) -> None:
        """A fetch at ``fetch_offset`` arrived at ``now_ms``, when the leader's log ended at
        ``leader_end_offset`` (Kafka's ``updateFetchStateOrThrow``)."""
        if fetch_offset >= leader_end_offset:
            self.last_caught_up_time_ms = max(self.last_caught_up_time_ms, now_ms)
        elif fetch_offset >= self.last_fetch_leader_log_end_offset:
            self.last_caught_up_time_ms = max(self.last_caught_up_time_ms,
                                              self.last_fetch_time_ms)
        self.log_start_offset = follower_start_offset
        self.log_end_offset = fetch_offset
        self.last_fetch_leader_log_end_offset = max(leader_end_offset,
                                                    self.last_fetch_leader_log_end_offset)
        self.last_fetch_time_ms = now_ms
        self.broker_epoch = broker_epoch

    def is_caught_up(self, leader_end_offset: int, now_ms: int, max_lag_ms: int) -> bool:
        """At the leader's log end, or there within the last ``max_lag_ms``."""
        return (leader_end_offset == self.log_end_offset
                or now_ms - self.last_caught_up_time_ms <= max_lag_ms)

    def reset(self, now_ms: int, leader_end_offset: int, *, is_new_leader: bool,
              in_sync: bool) -> None:
        """This broker leads in a new epoch (Kafka's ``resetReplicaState``): an ISR member
        counts as caught up now, anyone else not at all, so that it neither holds the high
        watermark back nor joins the ISR before it fetches. A broker that led already keeps
        what it knew of the follower's log."""
        self.last_caught_up_time_ms = now_ms if in_sync else 0
        if is_new_leader:
            self.log_start_offset = NO_OFFSET
            self.log_end_offset = NO_OFFSET
            self.last_fetch_leader_log_end_offset = NO_OFFSET
            self.last_fetch_time_ms = 0
            self.broker_epoch = None
        else:
            self.last_fetch_leader_log_end_offset = leader_end_offset
            self.last_fetch_time_ms = now_ms if in_sync else 0


def _always_eligible(_broker_id: int) -> bool:
    return True


@dataclass(frozen=True, slots=True)
class IsrSettings:
    """How a broker's leaders keep their ISR: ``replica.lag.time.max.ms``, whether they may ask
    the controller for changes at all (the embedded node, whose partitions have one replica,
    never does), and which followers may join (ZooKeeper mode: those the metadata cache knows
    alive; the controller also refuses brokers shutting down)."""

    replica_lag_time_max_ms: int = 30000
    alter_isr: bool = False
    is_eligible: Callable[[int], bool] = field(default=_always_eligible)


@dataclass(frozen=True, slots=True)
class FollowerFetchUpdate:
    """What a follower's fetch changed on the leader: whether the high watermark moved, and an
    ISR expansion now pending, for the caller to send to the controller."""

    high_watermark_moved: bool
    isr_change: PendingExpandIsr | None = None


#: a fetch that changed neither (most of them)
NO_UPDATE = FollowerFetchUpdate(False)


def describe(proposed: PendingIsrChange) -> str:
    if isinstance(proposed, PendingExpandIsr):
        return f"(adding {proposed.new_in_sync_replica})"
    return f"(removing {sorted(proposed.out_of_sync)})"
