"""A followed partition's state in its replica fetcher and the pure decisions about it: the
follower's settings (``replica.*`` and what ``inter.broker.protocol.version`` implies), the
state table (Truncating, Fetching, Failed), where truncation ends (KIP-101/279) and which fetcher
follows a partition. Used by :mod:`pybroker.cluster.replica_fetcher`."""

from __future__ import annotations

import enum
import ssl
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pybroker.cluster.metadata_cache import BrokerEndpoint
from pybroker.config.validators import IBP_VERSIONS
from pybroker.jvm import int32, string_hash, utils_abs
from pybroker.kernel.state_table import IllegalTransition, StateTable
from pybroker.kernel.types import tp_str

if TYPE_CHECKING:
    from pybroker.config import BrokerConfig
    from pybroker.security.sasl_client import SaslClientCredentials


UNDEFINED_EPOCH = -1


UNDEFINED_EPOCH_OFFSET = -1


def _ibp_index(version: str) -> int:
    """Position of ``inter.broker.protocol.version`` among Kafka's MetadataVersions; a bare
    release ("2.8") names its latest version."""
    if version in IBP_VERSIONS:
        return IBP_VERSIONS.index(version)
    parts = version.split(".")
    key = ".".join(parts[:3] if version.startswith("0.") else parts[:2])
    found = [i for i, v in enumerate(IBP_VERSIONS) if v == key or v.startswith(key + "-")]
    return max(found) if found else len(IBP_VERSIONS) - 1


def truncation_on_fetch_supported(inter_broker_protocol_version: str) -> bool:
    """Kafka's ``MetadataVersion.isTruncationOnFetchSupported``: IBP 2.7-IV1 and later."""
    return _ibp_index(inter_broker_protocol_version) >= IBP_VERSIONS.index("2.7-IV1")


#: Kafka's ``MetadataVersion.listOffsetRequestVersion``: from which IBP each version is sent
_LIST_OFFSETS_VERSIONS = (("3.9-IV0", 9), ("3.5-IV0", 8), ("3.0-IV1", 7), ("2.8-IV0", 6),
                          ("2.2-IV1", 5), ("2.1-IV1", 4), ("2.0-IV1", 3), ("0.11.0-IV0", 2),
                          ("0.10.1-IV2", 1))


#: Kafka's ``MetadataVersion.fetchRequestVersion`` from 3.1-IV0 (topic ids, v13) on: from which
#: IBP each version is sent. Below it a follower keeps v12 (LastFetchedEpoch, 2.7-IV1+) or v11.
_FETCH_VERSIONS = (("3.9-IV0", 17), ("3.7-IV4", 16), ("3.5-IV1", 15), ("3.5-IV0", 14),
                   ("3.1-IV0", 13), ("2.7-IV1", 12))


def fetch_request_version(inter_broker_protocol_version: str) -> int:
    """The highest Fetch version a follower sends at ``inter.broker.protocol.version``: 17 at
    3.9-IV0 (ReplicaDirectoryId), 16 at 3.7-IV4, 15 at 3.5-IV1 (ReplicaState with the broker
    epoch), 14 at 3.5-IV0, 13 at 3.1-IV0 (topic ids), 12 from 2.7-IV1, else 11."""
    index = _ibp_index(inter_broker_protocol_version)
    for since, version in _FETCH_VERSIONS:
        if index >= IBP_VERSIONS.index(since):
            return version
    return 11


def list_offsets_version(inter_broker_protocol_version: str) -> int:
    """The ListOffsets version a follower sends at ``inter.broker.protocol.version``."""
    index = _ibp_index(inter_broker_protocol_version)
    for since, version in _LIST_OFFSETS_VERSIONS:
        if since in IBP_VERSIONS and index >= IBP_VERSIONS.index(since):
            return version
    return 0


@dataclass(frozen=True, slots=True)
class FetcherConfig:
    """The follower's settings (``replica.*``), Kafka's defaults."""

    num_fetchers: int = 1
    max_wait_ms: int = 500
    min_bytes: int = 1
    #: ``replica.fetch.response.max.bytes``: the whole answer
    max_bytes: int = 10 * 1024 * 1024
    #: ``replica.fetch.max.bytes``: per partition
    partition_max_bytes: int = 1024 * 1024
    backoff_ms: int = 1000
    socket_timeout_ms: int = 30000
    truncation_on_fetch: bool = True
    #: ListOffsets as this replica (a leader's log start and end)
    list_offsets_version: int = 9
    #: the highest Fetch version ``inter.broker.protocol.version`` allows
    #: (:func:`fetch_request_version`)
    max_fetch_version: int = 17
    #: TLS to the leaders (an SSL or SASL_SSL inter-broker listener), or None
    ssl_context: ssl.SSLContext | None = None
    #: how to authenticate to the leaders (a SASL_* inter-broker listener), or None
    sasl: SaslClientCredentials | None = None

    @classmethod
    def from_broker_config(cls, config: BrokerConfig,
                           ssl_context: ssl.SSLContext | None = None,
                           sasl: SaslClientCredentials | None = None) -> FetcherConfig:
        get = config.get_int
        ibp = config.get("inter.broker.protocol.version") or "3.9-IV0"
        return cls(
            num_fetchers=max(1, get("num.replica.fetchers")),
            max_wait_ms=get("replica.fetch.wait.max.ms"),
            min_bytes=get("replica.fetch.min.bytes"),
            max_bytes=get("replica.fetch.response.max.bytes"),
            partition_max_bytes=get("replica.fetch.max.bytes"),
            backoff_ms=get("replica.fetch.backoff.ms"),
            socket_timeout_ms=get("replica.socket.timeout.ms"),
            truncation_on_fetch=truncation_on_fetch_supported(ibp),
            list_offsets_version=list_offsets_version(ibp),
            max_fetch_version=fetch_request_version(ibp),
            ssl_context=ssl_context,
            sasl=sasl,
        )

    @property
    def fetch_version(self) -> int:
        """The Fetch version to send when every partition has a topic id (Kafka's
        ``fetchRequestVersion``); without truncation on fetch (an inter-broker protocol before
        2.7-IV1) v11, with no ``LastFetchedEpoch``. A fetch naming a partition whose topic id
        is not known yet is sent at v12 at most
        (:func:`pybroker.cluster.leader_endpoint.fetch_version_for`)."""
        return self.max_fetch_version if self.truncation_on_fetch else 11

    @property
    def offset_for_leader_epoch_version(self) -> int:
        return 4 if self.truncation_on_fetch else 3


class IllegalStateTransition(IllegalTransition):
    """A fetcher tried a transition the state table forbids."""

    @classmethod
    def describe(cls, subject: Any) -> str:
        return tp_str(subject)


class FetchState(enum.Enum):
    """A followed partition's state in its fetcher (Kafka's ``ReplicaState``, plus Failed for
    the partitions Kafka moves to its ``failedPartitions``)."""

    TRUNCATING = "Truncating"
    FETCHING = "Fetching"
    #: fenced, or broken here: left alone until a LeaderAndIsr adds it again
    FAILED = "Failed"


_F = FetchState


#: target state -> the states it may be entered from (Kafka's ``validPreviousStates`` form). A
#: partition starts Truncating, or Fetching when its log has leader epochs and the leader takes
#: LastFetchedEpoch; Truncating goes on for another round while the truncation is not complete
#: (KIP-279 without truncation on fetch); a DivergingEpoch or an out-of-range offset keeps it
#: Fetching from a new offset. A new leader or epoch takes it out and starts it afresh.
VALID_PREVIOUS_STATES: StateTable[FetchState] = StateTable({
    _F.TRUNCATING: {_F.TRUNCATING, _F.FAILED},
    _F.FETCHING: {_F.TRUNCATING, _F.FETCHING, _F.FAILED},
    _F.FAILED: {_F.TRUNCATING, _F.FETCHING},
}, error=IllegalStateTransition)

#: ``check_transition(tp, source, target)`` raises :class:`IllegalStateTransition`
check_transition = VALID_PREVIOUS_STATES.check


@dataclass(frozen=True, slots=True)
class InitialFetchState:
    """Where to start following a partition (Kafka's ``InitialFetchState``): its leader, the
    leader epoch, and the offset (the log end offset when the log has epochs, else the high
    watermark)."""

    leader: BrokerEndpoint
    current_leader_epoch: int
    init_offset: int
    topic_id: uuid.UUID | None = None


@dataclass(frozen=True, slots=True)
class PartitionFetchState:
    fetch_offset: int
    current_leader_epoch: int
    state: FetchState
    #: the epoch of the last batch appended (or the latest cache entry after a truncation)
    last_fetched_epoch: int | None
    #: no fetch or truncation before this time (a back-off after an error)
    delayed_until_ms: int = 0
    lag: int | None = None

    def is_delayed(self, now_ms: int) -> bool:
        return now_ms < self.delayed_until_ms

    def is_ready_for_fetch(self, now_ms: int) -> bool:
        return self.state is FetchState.FETCHING and not self.is_delayed(now_ms)

    def is_truncating(self, now_ms: int) -> bool:
        return self.state is FetchState.TRUNCATING and not self.is_delayed(now_ms)


@dataclass(frozen=True, slots=True)
class OffsetTruncationState:
    offset: int
    truncation_completed: bool


def fetcher_id(topic: str, partition: int, num_fetchers: int) -> int:
    """Kafka's ``getFetcherId``: ``Utils.abs(31 * topic.hashCode + partition) %
    num.replica.fetchers`` in 32-bit arithmetic (``Utils.abs`` maps Integer.MIN_VALUE to 0)."""
    return utils_abs(int32(31 * string_hash(topic) + partition)) % num_fetchers


def offset_truncation_state(leader_epoch: int, leader_end_offset: int, *, fetch_offset: int,
                            log_end_offset: int,
                            local_end_offset_for: Callable[[int], tuple[int, int] | None],
                            ) -> OffsetTruncationState:
    """Where a follower truncates given the leader's ``(epoch, end offset)`` for its latest
    epoch, from DivergingEpoch or OffsetForLeaderEpoch (Kafka's ``getOffsetTruncationState``).
    ``local_end_offset_for(epoch)`` is the follower's own answer for an epoch (None when
    undefined).

    * The leader knows no end offset: truncate to the current fetch offset.
    * The leader names no epoch (a protocol without epochs): truncate to its end offset.
    * We know nothing of that epoch either (our epochs are all later): truncate to the leader's
      end offset.
    * Our largest epoch not above the leader's is the leader's epoch: truncate to the smaller of
      the two end offsets. Done.
    * It is an earlier epoch (we never had the leader's): truncate to where it ends here and
      ask again with it (KIP-279); not done.

    Never beyond our log end."""
    if leader_end_offset == UNDEFINED_EPOCH_OFFSET:
        return OffsetTruncationState(fetch_offset, True)
    if leader_epoch == UNDEFINED_EPOCH:
        return OffsetTruncationState(min(leader_end_offset, log_end_offset), True)
    found = local_end_offset_for(leader_epoch)
    if found is None:
        return OffsetTruncationState(min(leader_end_offset, log_end_offset), True)
    follower_epoch, follower_end_offset = found
    if follower_epoch != leader_epoch:
        return OffsetTruncationState(min(follower_end_offset, log_end_offset), False)
    return OffsetTruncationState(min(follower_end_offset, leader_end_offset, log_end_offset),
                                 True)
