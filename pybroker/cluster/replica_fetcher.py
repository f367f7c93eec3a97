"""Followers copying their leaders' logs: Kafka's ``AbstractFetcherThread`` /
``ReplicaFetcherThread`` as one asyncio task per (source broker, fetcher id), and the pure
decisions they make.

A fetcher keeps a :class:`PartitionFetchState` per partition it follows from its source broker
and loops (:meth:`ReplicaFetcher.do_work`):

1. **Truncate** the partitions in the *Truncating* state. Those whose log has leader epochs ask
   the leader where their latest epoch ends (OffsetForLeaderEpoch) and truncate there
   (:func:`offset_truncation_state`, possibly over several rounds, KIP-279); those without
   epochs (a new, empty log) truncate to their high watermark, which is harmless.
2. **Fetch**: one Fetch for every partition ready to fetch, as the follower (replica id), from
   each partition's log end offset with the epoch of its last batch (``LastFetchedEpoch``).
3. **Process** the answer, partition by partition:

   * data: append it unvalidated (``Partition.append_records_to_follower``), take the
     leader's high watermark bounded by our log end, raise our log start to the leader's;
   * a ``DivergingEpoch``: truncate to where the logs part, as the leader sees it, and fetch
     again from there (no data is taken from such an answer);
   * OFFSET_OUT_OF_RANGE: ask the leader for its log end; truncate to it if it is below ours
     (the unclean-election case), else restart at its log start if ours ends before it;
   * FENCED_LEADER_EPOCH with our current epoch: stop following the partition until the next
     LeaderAndIsr; UNKNOWN_LEADER_EPOCH, NOT_LEADER_OR_FOLLOWER and other errors: back off
     ``replica.fetch.backoff.ms`` and retry. A failed request backs off every partition in it.

Truncation goes only by leader epochs, never to the high watermark of a log that has epochs
(KIP-101): with ``inter.broker.protocol.version`` 2.7 or later (the default) the divergence
rides on Fetch v12 (``LastFetchedEpoch`` -> ``DivergingEpoch``, KAFKA-10554); below it every
partition starts *Truncating* and OffsetForLeaderEpoch decides, as before 2.7.

:class:`ReplicaFetcherManager` (Kafka's ``AbstractFetcherManager``) owns the fetchers: a
partition goes to fetcher ``abs(31 * hash(topic) + partition) % num.replica.fetchers`` of its
leader (:func:`fetcher_id`); fetchers left with no partitions are stopped.

Concurrency notes: everything runs on the event loop that owns the partitions. A fetcher awaits
only the leader's answers; a partition's state is re-checked after every await, since a
LeaderAndIsr or StopReplica may have removed or re-added it meanwhile, and an answer is used
only for the fetch offset and leader epoch it was asked with. Logic that depends on time takes
``now_ms``.
"""

from __future__ import annotations

import asyncio
import enum
import logging
import time
import uuid
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Protocol

from protocol.errors import ErrorCode, KafkaError
from protocol.messages import (
    ApiKey,
    fetch_request as freq,
    fetch_response as fresp,
    list_offsets_request as loreq,
    offset_for_leader_epoch_request as oreq,
)
from pybroker.cluster.metadata_cache import BrokerEndpoint
from pybroker.config.validators import IBP_VERSIONS
from pybroker.network.client import BrokerClient, BrokerClientError

if TYPE_CHECKING:
    from pybroker.cluster.partition import Partition
    from pybroker.config import BrokerConfig

log = logging.getLogger(__name__)

TopicPartition = tuple[str, int]

UNDEFINED_EPOCH = -1
UNDEFINED_EPOCH_OFFSET = -1
LATEST_TIMESTAMP = -1
EARLIEST_TIMESTAMP = -2
#: a Fetch without a fetch session (KIP-227): session id 0 and the final epoch
NO_SESSION = 0
SESSIONLESS_EPOCH = -1


def now_ms() -> int:
    return int(time.time() * 1000)


# -- settings --------------------------------------------------------------------------------


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

    @classmethod
    def from_broker_config(cls, config: BrokerConfig) -> FetcherConfig:
        get = config.get_int
        return cls(
            num_fetchers=max(1, get("num.replica.fetchers")),
            max_wait_ms=get("replica.fetch.wait.max.ms"),
            min_bytes=get("replica.fetch.min.bytes"),
            max_bytes=get("replica.fetch.response.max.bytes"),
            partition_max_bytes=get("replica.fetch.max.bytes"),
            backoff_ms=get("replica.fetch.backoff.ms"),
            socket_timeout_ms=get("replica.socket.timeout.ms"),
            truncation_on_fetch=truncation_on_fetch_supported(
                config.get("inter.broker.protocol.version") or "3.9-IV0"),
            list_offsets_version=list_offsets_version(
                config.get("inter.broker.protocol.version") or "3.9-IV0"),
        )

    @property
    def fetch_version(self) -> int:
        """The highest Fetch version leaders serve here: v12 (``LastFetchedEpoch``); v11 for
        an inter-broker protocol before 2.7."""
        return 12 if self.truncation_on_fetch else 11

    @property
    def offset_for_leader_epoch_version(self) -> int:
        return 4 if self.truncation_on_fetch else 3


# -- state -----------------------------------------------------------------------------------


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
VALID_PREVIOUS_STATES: Mapping[FetchState, frozenset[FetchState]] = {
    _F.TRUNCATING: frozenset({_F.TRUNCATING, _F.FAILED}),
    _F.FETCHING: frozenset({_F.TRUNCATING, _F.FETCHING, _F.FAILED}),
    _F.FAILED: frozenset({_F.TRUNCATING, _F.FETCHING}),
}


class IllegalStateTransition(RuntimeError):
    """A fetcher tried a transition the state table forbids."""


def check_transition(tp: TopicPartition, source: FetchState, target: FetchState) -> None:
    if source not in VALID_PREVIOUS_STATES[target]:
        allowed = ", ".join(sorted(s.value for s in VALID_PREVIOUS_STATES[target]))
        raise IllegalStateTransition(f"{tp[0]}-{tp[1]} cannot move from {source.value} to "
                                     f"{target.value} ({target.value} is entered only from: "
                                     f"{allowed})")


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


@dataclass(frozen=True, slots=True)
class FetchPartitionRequest:
    """One partition of a follower's Fetch."""

    topic: str
    partition: int
    fetch_offset: int
    current_leader_epoch: int
    last_fetched_epoch: int
    log_start_offset: int
    max_bytes: int


@dataclass(frozen=True, slots=True)
class FetchedPartition:
    """One partition of the leader's answer."""

    error: ErrorCode
    high_watermark: int = -1
    log_start_offset: int = -1
    records: bytes | bytearray | memoryview = b""
    diverging_epoch: tuple[int, int] | None = None


@dataclass(frozen=True, slots=True)
class EpochEndOffset:
    """One partition of an OffsetForLeaderEpoch answer."""

    error: ErrorCode
    leader_epoch: int = UNDEFINED_EPOCH
    end_offset: int = UNDEFINED_EPOCH_OFFSET


class FetchRequestError(Exception):
    """The leader refused a whole Fetch (a top-level error)."""


# -- pure decisions --------------------------------------------------------------------------


def _java_string_hash(s: str) -> int:
    h = 0
    data = s.encode("utf-16-be")
    for i in range(0, len(data), 2):
        h = (31 * h + ((data[i] << 8) | data[i + 1])) & 0xFFFFFFFF
    return h


def _int32(n: int) -> int:
    n &= 0xFFFFFFFF
    return n - (1 << 32) if n & 0x80000000 else n


def fetcher_id(topic: str, partition: int, num_fetchers: int) -> int:
    """Kafka's ``getFetcherId``: ``Utils.abs(31 * topic.hashCode + partition) %
    num.replica.fetchers`` in 32-bit arithmetic (``Utils.abs`` maps Integer.MIN_VALUE to 0)."""
    n = _int32(31 * _java_string_hash(topic) + partition)
    return (0 if n == -(1 << 31) else abs(n)) % num_fetchers


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


def build_fetch_request(partitions: Iterable[FetchPartitionRequest], *, replica_id: int,
                        broker_epoch: int, config: FetcherConfig, version: int,
                        ) -> freq.FetchRequest:
    """A follower's Fetch (``ReplicaFetcherThread.buildFetch``): this broker as the replica,
    ``replica.fetch.wait.max.ms``/``min.bytes``/``response.max.bytes``, no fetch session,
    read-uncommitted, each partition with its fetch offset, leader epoch, last fetched epoch
    (v12+), log start offset and ``replica.fetch.max.bytes``; topics in first-seen order."""
    topics: dict[str, freq.FetchTopic] = {}
    for p in partitions:
        topic = topics.get(p.topic)
        if topic is None:
            topic = topics[p.topic] = freq.FetchTopic(topic=p.topic)
        topic.partitions.append(freq.FetchPartition(
            partition=p.partition,
            current_leader_epoch=p.current_leader_epoch,
            fetch_offset=p.fetch_offset,
            last_fetched_epoch=p.last_fetched_epoch if version >= 12 else UNDEFINED_EPOCH,
            log_start_offset=p.log_start_offset,
            partition_max_bytes=p.max_bytes,
        ))
    request = freq.FetchRequest(
        replica_id=replica_id if version < 15 else -1,
        max_wait_ms=config.max_wait_ms,
        min_bytes=config.min_bytes,
        max_bytes=config.max_bytes,
        isolation_level=0,
        session_id=NO_SESSION,
        session_epoch=SESSIONLESS_EPOCH,
        topics=list(topics.values()),
    )
    if version >= 15:
        request.replica_state = freq.ReplicaState(replica_id=replica_id,
                                                  replica_epoch=broker_epoch)
    return request


def _error(code: int) -> ErrorCode:
    try:
        return ErrorCode(code)
    except ValueError:
        return ErrorCode.UNKNOWN_SERVER_ERROR


def parse_fetch_response(response: fresp.FetchResponse) -> dict[TopicPartition, FetchedPartition]:
    """The leader's answer by partition; a top-level error raises FetchRequestError."""
    if response.error_code:
        raise FetchRequestError(f"the leader answered the fetch with "
                                f"{_error(response.error_code).name}")
    out: dict[TopicPartition, FetchedPartition] = {}
    for topic in response.responses:
        for p in topic.partitions:
            diverging = p.diverging_epoch
            records = p.records
            out[(topic.topic, p.partition_index)] = FetchedPartition(
                error=_error(p.error_code),
                high_watermark=p.high_watermark,
                log_start_offset=p.log_start_offset,
                # a decoded answer carries its records as a view of the frame
                records=records if isinstance(records, (bytes, bytearray, memoryview)) else b"",
                diverging_epoch=((diverging.epoch, diverging.end_offset)
                                 if diverging.epoch >= 0 else None),
            )
    return out


# -- the leader, as a fetcher sees it ----------------------------------------------------------


class LeaderEndpoint(Protocol):
    """The source broker of a fetcher (Kafka's ``LeaderEndPoint``)."""

    @property
    def node(self) -> BrokerEndpoint: ...

    async def fetch(self, partitions: list[FetchPartitionRequest],
                    ) -> dict[TopicPartition, FetchedPartition]: ...

    async def fetch_epoch_end_offsets(self, partitions: Mapping[TopicPartition, tuple[int, int]],
                                      ) -> dict[TopicPartition, EpochEndOffset]:
        """``partitions``: (current leader epoch, epoch to look up) of each."""
        ...

    async def fetch_earliest_offset(self, tp: TopicPartition, current_leader_epoch: int,
                                    ) -> int: ...

    async def fetch_latest_offset(self, tp: TopicPartition, current_leader_epoch: int,
                                  ) -> int: ...

    def close(self) -> None: ...


class RemoteLeaderEndpoint:
    """The leader over one :class:`BrokerClient` connection, made on first use and again after
    a failure; each request waits at most ``replica.socket.timeout.ms``."""

    def __init__(self, node: BrokerEndpoint, *, local_broker_id: int,
                 broker_epoch: Callable[[], int], config: FetcherConfig,
                 fetcher_id: int) -> None:
        self._node = node
        self.local_broker_id = local_broker_id
        self.broker_epoch = broker_epoch
        self.config = config
        self.client_id = f"broker-{local_broker_id}-fetcher-{fetcher_id}"
        self._client: BrokerClient | None = None

    @property
    def node(self) -> BrokerEndpoint:
        return self._node

    async def _request(self, api_key: int, version: int, body: object) -> object:
        client = self._client
        if client is None or not client.connected:
            if client is not None:
                client.close()
            client = self._client = BrokerClient(self._node.host, self._node.port,
                                                 client_id=self.client_id)
            await client.connect(self.config.socket_timeout_ms / 1000)
        try:
            return await client.request(api_key, version, body, self.config.socket_timeout_ms)
        except BrokerClientError:
            self.close()
            raise

    async def fetch(self, partitions: list[FetchPartitionRequest],
                    ) -> dict[TopicPartition, FetchedPartition]:
        version = self.config.fetch_version
        request = build_fetch_request(partitions, replica_id=self.local_broker_id,
                                      broker_epoch=self.broker_epoch(), config=self.config,
                                      version=version)
        response = await self._request(ApiKey.FETCH, version, request)
        assert isinstance(response, fresp.FetchResponse)
        return parse_fetch_response(response)

    async def fetch_epoch_end_offsets(self, partitions: Mapping[TopicPartition, tuple[int, int]],
                                      ) -> dict[TopicPartition, EpochEndOffset]:
        topics: dict[str, oreq.OffsetForLeaderTopic] = {}
        for (topic, partition), (current, epoch) in partitions.items():
            t = topics.setdefault(topic, oreq.OffsetForLeaderTopic(topic=topic))
            t.partitions.append(oreq.OffsetForLeaderPartition(
                partition=partition, current_leader_epoch=current, leader_epoch=epoch))
        response = await self._request(
            ApiKey.OFFSET_FOR_LEADER_EPOCH, self.config.offset_for_leader_epoch_version,
            oreq.OffsetForLeaderEpochRequest(replica_id=self.local_broker_id,
                                             topics=list(topics.values())))
        out: dict[TopicPartition, EpochEndOffset] = {}
        for t in getattr(response, "topics", []):
            for p in t.partitions:
                out[(t.topic, p.partition)] = EpochEndOffset(_error(p.error_code),
                                                             p.leader_epoch, p.end_offset)
        return out

    async def _list_offset(self, tp: TopicPartition, current_leader_epoch: int,
                           timestamp: int) -> int:
        """ListOffsets as this replica (Kafka's ``RemoteLeaderEndPoint.fetchOffset``)."""
        topic, partition = tp
        response = await self._request(
            ApiKey.LIST_OFFSETS, self.config.list_offsets_version, loreq.ListOffsetsRequest(
                replica_id=self.local_broker_id, isolation_level=0,
                topics=[loreq.ListOffsetsTopic(name=topic, partitions=[
                    loreq.ListOffsetsPartition(partition_index=partition,
                                               current_leader_epoch=current_leader_epoch,
                                               timestamp=timestamp)])]))
        for t in getattr(response, "topics", []):
            for p in t.partitions:
                if p.error_code:
                    raise KafkaError(_error(p.error_code))
                if p.old_style_offsets:  # v0
                    return int(p.old_style_offsets[0])
                return int(p.offset)
        raise KafkaError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)

    async def fetch_earliest_offset(self, tp: TopicPartition, current_leader_epoch: int,
                                    ) -> int:
        """The leader's log start offset (ListOffsets EARLIEST as this replica)."""
        return await self._list_offset(tp, current_leader_epoch, EARLIEST_TIMESTAMP)

    async def fetch_latest_offset(self, tp: TopicPartition, current_leader_epoch: int,
                                  ) -> int:
        """The leader's log end offset: ListOffsets LATEST as this replica, which a leader
        answers with its log end (a consumer gets the high watermark)."""
        return await self._list_offset(tp, current_leader_epoch, LATEST_TIMESTAMP)

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None


# -- the fetcher -----------------------------------------------------------------------------


class FollowerPartitions(Protocol):
    """What a fetcher needs of the replica manager: the partitions it follows."""

    def get_partition(self, topic: str, partition: int) -> Partition | None: ...


class ReplicaFetcher:
    """The partitions this broker follows from one leader, fetched together by one task."""

    def __init__(self, name: str, fetcher_id: int, leader: LeaderEndpoint,
                 replicas: FollowerPartitions, config: FetcherConfig,
                 time_ms: Callable[[], int] = now_ms) -> None:
        self.name = name
        self.fetcher_id = fetcher_id
        self.leader = leader
        self.replicas = replicas
        self.config = config
        self.time_ms = time_ms
        self.partitions: dict[TopicPartition, PartitionFetchState] = {}
        #: partitions fenced or broken here, left alone until added again (a LeaderAndIsr)
        self.failed: set[TopicPartition] = set()
        self._changed = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def __repr__(self) -> str:
        return f"ReplicaFetcher({self.name}, {len(self.partitions)} partitions)"

    @property
    def truncation_on_fetch(self) -> bool:
        return self.config.truncation_on_fetch

    @property
    def partition_count(self) -> int:
        return len(self.partitions)

    # -- partitions ----------------------------------------------------------------------------
    def add_partitions(self, initial: Mapping[TopicPartition, InitialFetchState]) -> None:
        """Follow these partitions (``addPartitions``): a partition already followed in the
        same leader epoch keeps its state; otherwise it starts at its initial offset, fetching
        with its latest epoch when its log has epochs, else truncating first."""
        added: list[str] = []
        for tp, init in initial.items():
            was_failed = tp in self.failed
            self.failed.discard(tp)
            current = self.partitions.pop(tp, None)
            if current is not None and current.current_leader_epoch == init.current_leader_epoch:
                self.partitions[tp] = current
                continue
            partition = self.replicas.get_partition(*tp)
            latest = partition.latest_epoch if partition is not None else None
            if self.truncation_on_fetch and latest is not None:
                state = PartitionFetchState(init.init_offset, init.current_leader_epoch,
                                            FetchState.FETCHING, latest)
            else:
                state = PartitionFetchState(init.init_offset, init.current_leader_epoch,
                                            FetchState.TRUNCATING, None)
            if was_failed:
                check_transition(tp, FetchState.FAILED, state.state)
            self.partitions[tp] = state
            added.append(f"{tp[0]}-{tp[1]} from offset {init.init_offset} in leader epoch "
                         f"{init.current_leader_epoch} ({state.state.value})")
        if added:  # one line per change, as Kafka's "Added fetcher to broker ..."
            log.info("%s: following %s", self.name, ", ".join(added))
        self._changed.set()

    def remove_partitions(self, partitions: Iterable[TopicPartition]) -> None:
        for tp in partitions:
            self.partitions.pop(tp, None)
            self.failed.discard(tp)

    def _mark_failed(self, tp: TopicPartition, why: str, level: int = logging.WARNING) -> None:
        state = self.partitions.pop(tp, None)
        if state is not None:
            check_transition(tp, state.state, FetchState.FAILED)
            self.failed.add(tp)
            log.log(level, "%s: stopped fetching %s-%d until its next leader and ISR: %s",
                    self.name, tp[0], tp[1], why)

    def _delay(self, partitions: Iterable[TopicPartition], now_ms: int) -> None:
        until = now_ms + self.config.backoff_ms
        for tp in partitions:
            state = self.partitions.get(tp)
            if state is not None:
                self.partitions[tp] = replace(state, delayed_until_ms=until)

    def _update(self, tp: TopicPartition, state: PartitionFetchState) -> None:
        """Replace a partition's state and move it to the end of the fetch order, so that
        partitions with data do not crowd the others out of ``replica.fetch.response.max.bytes``
        (Kafka's ``updateAndMoveToEnd``)."""
        old = self.partitions.pop(tp, None)
        if old is not None:
            check_transition(tp, old.state, state.state)
        self.partitions[tp] = state

    # -- life cycle ----------------------------------------------------------------------------
    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run(), name=self.name)

    def stop(self) -> asyncio.Task[None] | None:
        """Stop the task and close the connection; returns the task to await, if any."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
        self.leader.close()
        return task

    async def shutdown(self) -> None:
        task = self.stop()
        if task is not None:
            await asyncio.gather(task, return_exceptions=True)

    async def _run(self) -> None:
        log.info("%s: started, fetching from broker %d at %s:%d", self.name,
                 self.leader.node.node_id, self.leader.node.host, self.leader.node.port)
        while True:
            try:
                await self.do_work()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("%s: unexpected error; backing off", self.name)
                self._delay(list(self.partitions), self.time_ms())
                await asyncio.sleep(self.config.backoff_ms / 1000)

    async def do_work(self) -> None:
        """One round: truncate what must be truncated, then one Fetch and its processing."""
        await self.maybe_truncate()
        await self.maybe_fetch()

    # -- truncation ----------------------------------------------------------------------------
    async def maybe_truncate(self) -> None:
        now = self.time_ms()
        with_epochs: dict[TopicPartition, tuple[int, int]] = {}
        without_epochs: list[TopicPartition] = []
        for tp, state in self.partitions.items():
            if not state.is_truncating(now):
                continue
            partition = self.replicas.get_partition(*tp)
            latest = partition.latest_epoch if partition is not None else None
            if latest is not None:
                with_epochs[tp] = (state.current_leader_epoch, latest)
            else:
                without_epochs.append(tp)
        if with_epochs:
            await self._truncate_to_epoch_end_offsets(with_epochs)
        if without_epochs:
            self._truncate_to_high_watermark(without_epochs)

    async def _truncate_to_epoch_end_offsets(
            self, latest: dict[TopicPartition, tuple[int, int]]) -> None:
        try:
            answers = await self.leader.fetch_epoch_end_offsets(latest)
        except (BrokerClientError, OSError, KafkaError) as e:
            log.warning("%s: OffsetForLeaderEpoch failed: %s", self.name, e)
            self._delay(latest, self.time_ms())
            return
        # only answers for the leader epoch they were asked in (no LeaderAndIsr since)
        current = {tp: answer for tp, answer in answers.items()
                   if tp in latest and tp in self.partitions
                   and self.partitions[tp].current_leader_epoch == latest[tp][0]}
        self._truncate_to_epoch_end_offsets_now(current, {tp: e for tp, (e, _) in latest.items()})

    def _truncate_to_epoch_end_offsets_now(self, answers: Mapping[TopicPartition, EpochEndOffset],
                                           request_epochs: Mapping[TopicPartition, int]) -> None:
        """``maybeTruncateToEpochEndOffsets`` and ``updateFetchOffsetAndMaybeMarkTruncation
        Complete``: truncate each partition as its leader's answer says."""
        now = self.time_ms()
        with_error: list[TopicPartition] = []
        done: dict[TopicPartition, OffsetTruncationState] = {}
        for tp, answer in answers.items():
            state = self.partitions.get(tp)
            if state is None:
                continue
            if answer.error == ErrorCode.NONE:
                truncation = self._offset_truncation_state(tp, state, answer)
                if truncation is not None and self._do_truncate(tp, truncation):
                    done[tp] = truncation
            elif answer.error == ErrorCode.FENCED_LEADER_EPOCH:
                if self._on_partition_fenced(tp, request_epochs.get(tp)):
                    with_error.append(tp)
            else:
                log.info("%s: retrying the truncation of %s-%d: the leader answered %s",
                         self.name, tp[0], tp[1], answer.error.name)
                with_error.append(tp)
        self._delay(with_error, now)
        for tp, truncation in done.items():
            state = self.partitions.get(tp)
            if state is None:
                continue
            partition = self.replicas.get_partition(*tp)
            if partition is None:
                continue
            completed = self.truncation_on_fetch or truncation.truncation_completed
            self._update(tp, replace(
                state, fetch_offset=self._offset_after_truncation(partition, truncation.offset),
                state=FetchState.FETCHING if completed else FetchState.TRUNCATING,
                last_fetched_epoch=partition.latest_epoch))

    def _offset_truncation_state(self, tp: TopicPartition, state: PartitionFetchState,
                                 answer: EpochEndOffset) -> OffsetTruncationState | None:
        partition = self.replicas.get_partition(*tp)
        if partition is None or partition.log is None:
            self._mark_failed(tp, "the partition is no longer hosted here")
            return None
        plog = partition.log
        truncation = offset_truncation_state(
            answer.leader_epoch, answer.end_offset, fetch_offset=state.fetch_offset,
            log_end_offset=plog.log_end_offset, local_end_offset_for=plog.end_offset_for_epoch)
        log.info("%s: truncating %s-%d to %d (the leader's epoch %d ends at %d; %s)", self.name,
                 tp[0], tp[1], truncation.offset, answer.leader_epoch, answer.end_offset,
                 "done" if truncation.truncation_completed else "another round follows")
        return truncation

    def _do_truncate(self, tp: TopicPartition, truncation: OffsetTruncationState) -> bool:
        partition = self.replicas.get_partition(*tp)
        try:
            if partition is None:
                raise KafkaError(ErrorCode.NOT_LEADER_OR_FOLLOWER)
            high_watermark = partition.high_watermark
            partition.truncate_to(truncation.offset)
        except Exception as e:  # noqa: BLE001 - the partition stops; the others carry on
            log.exception("%s: truncating %s-%d failed", self.name, *tp)
            self._mark_failed(tp, f"truncation failed: {e}")
            return False
        if truncation.offset < high_watermark:
            log.warning("%s: truncated %s-%d to %d, below its high watermark %d", self.name,
                        tp[0], tp[1], truncation.offset, high_watermark)
        return True

    def _truncate_to_high_watermark(self, partitions: list[TopicPartition]) -> None:
        """Partitions whose log has no epochs truncate to their initial fetch offset (their
        high watermark): a new, empty log, where it changes nothing."""
        done: dict[TopicPartition, OffsetTruncationState] = {}
        for tp in partitions:
            state = self.partitions.get(tp)
            if state is None:
                continue
            truncation = OffsetTruncationState(state.fetch_offset, True)
            if self._do_truncate(tp, truncation):
                done[tp] = truncation
        for tp, truncation in done.items():
            state = self.partitions[tp]
            partition = self.replicas.get_partition(*tp)
            if partition is None:
                continue
            self._update(tp, replace(
                state, fetch_offset=self._offset_after_truncation(partition, truncation.offset),
                state=FetchState.FETCHING, last_fetched_epoch=partition.latest_epoch))

    @staticmethod
    def _offset_after_truncation(partition: Partition, offset: int) -> int:
        """Where to fetch after truncating to ``offset``: there, unless the truncation had to
        cut a whole batch across it and the log now ends earlier (offsets a leader without
        epochs gave; Kafka would stop the partition on the offset mismatch)."""
        return min(offset, partition.log_end_offset)

    def _on_partition_fenced(self, tp: TopicPartition, request_epoch: int | None) -> bool:
        """The leader has a newer epoch than the one we asked with. If that is still our
        epoch, wait for the LeaderAndIsr that brings the new one (returns False); otherwise
        we already moved on: retry later (True)."""
        state = self.partitions.get(tp)
        if state is None:
            return False
        if request_epoch is not None and request_epoch == state.current_leader_epoch:
            # the usual order of things: the leader heard of the new epoch first
            self._mark_failed(tp, f"the leader has an epoch newer than {request_epoch}",
                              logging.INFO)
            return False
        return True

    # -- fetching ------------------------------------------------------------------------------
    def build_fetch(self, now_ms: int) -> tuple[list[FetchPartitionRequest], list[TopicPartition]]:
        """The partitions ready to fetch, as Fetch asks for them, and those whose log is gone."""
        requests: list[FetchPartitionRequest] = []
        broken: list[TopicPartition] = []
        for tp, state in self.partitions.items():
            if not state.is_ready_for_fetch(now_ms):
                continue
            partition = self.replicas.get_partition(*tp)
            if partition is None or partition.log is None:
                broken.append(tp)
                continue
            last_fetched = state.last_fetched_epoch
            requests.append(FetchPartitionRequest(
                topic=tp[0], partition=tp[1], fetch_offset=state.fetch_offset,
                current_leader_epoch=state.current_leader_epoch,
                last_fetched_epoch=(last_fetched if self.truncation_on_fetch
                                    and last_fetched is not None else UNDEFINED_EPOCH),
                log_start_offset=partition.log_start_offset,
                max_bytes=self.config.partition_max_bytes))
        return requests, broken

    async def maybe_fetch(self) -> None:
        self._changed.clear()
        now = self.time_ms()
        requests, broken = self.build_fetch(now)
        self._delay(broken, now)
        if not requests:
            try:
                async with asyncio.timeout(self.config.backoff_ms / 1000):
                    await self._changed.wait()
            except TimeoutError:
                pass
            return
        try:
            answers = await self.leader.fetch(requests)
        except (BrokerClientError, OSError, FetchRequestError) as e:
            log.warning("%s: fetch from broker %d failed: %s", self.name,
                        self.leader.node.node_id, e)
            self._delay([(r.topic, r.partition) for r in requests], self.time_ms())
            return
        await self.process_fetch_response(requests, answers)

    async def process_fetch_response(self, requests: list[FetchPartitionRequest],
                                     answers: Mapping[TopicPartition, FetchedPartition]) -> None:
        now = self.time_ms()
        asked = {(r.topic, r.partition): r for r in requests}
        diverging: dict[TopicPartition, EpochEndOffset] = {}
        out_of_range: list[tuple[TopicPartition, FetchPartitionRequest]] = []
        with_error: list[TopicPartition] = []
        for tp, answer in answers.items():
            request = asked.get(tp)
            state = self.partitions.get(tp)
            # only answers to what we asked for in the state we are still in
            if request is None or state is None or state.state is not FetchState.FETCHING \
                    or request.fetch_offset != state.fetch_offset \
                    or request.current_leader_epoch != state.current_leader_epoch:
                continue
            error = answer.error
            if error == ErrorCode.NONE:
                if answer.diverging_epoch is not None and self.truncation_on_fetch:
                    epoch, end_offset = answer.diverging_epoch
                    diverging[tp] = EpochEndOffset(ErrorCode.NONE, epoch, end_offset)
                    continue
                try:
                    self._process_partition_data(tp, state, answer, now)
                except KafkaError as e:
                    if e.code == ErrorCode.CORRUPT_MESSAGE:
                        log.error("%s: invalid batches fetched for %s-%d at offset %d: %s",
                                  self.name, tp[0], tp[1], state.fetch_offset, e)
                        with_error.append(tp)
                    else:
                        self._mark_failed(tp, f"appending failed: {e}")
                except Exception as e:  # noqa: BLE001 - the partition stops; the others go on
                    log.exception("%s: appending to %s-%d failed", self.name, *tp)
                    self._mark_failed(tp, f"appending failed: {e}")
            elif error == ErrorCode.OFFSET_OUT_OF_RANGE:
                out_of_range.append((tp, request))
            elif error == ErrorCode.FENCED_LEADER_EPOCH:
                if self._on_partition_fenced(tp, request.current_leader_epoch):
                    with_error.append(tp)
            else:
                level = logging.DEBUG if error in (ErrorCode.NOT_LEADER_OR_FOLLOWER,
                                                   ErrorCode.UNKNOWN_LEADER_EPOCH) \
                    else logging.WARNING
                log.log(level, "%s: the leader answered %s for %s-%d; retrying", self.name,
                        error.name, tp[0], tp[1])
                with_error.append(tp)
        if diverging:
            self._truncate_to_epoch_end_offsets_now(diverging, {})
        self._delay(with_error, now)
        for tp, request in out_of_range:
            if await self._handle_out_of_range(tp, request):
                self._delay([tp], self.time_ms())

    def _process_partition_data(self, tp: TopicPartition, state: PartitionFetchState,
                                answer: FetchedPartition, now_ms: int) -> None:
        partition = self.replicas.get_partition(*tp)
        if partition is None or partition.log is None:
            raise KafkaError(ErrorCode.NOT_LEADER_OR_FOLLOWER,
                             "the partition is no longer hosted here")
        if state.fetch_offset != partition.log_end_offset:
            raise RuntimeError(f"offset mismatch: fetched from {state.fetch_offset}, the log "
                               f"ends at {partition.log_end_offset}")
        info = partition.append_records_to_follower(
            answer.records, answer.high_watermark, now_ms,
            leader_log_start_offset=answer.log_start_offset)
        next_offset = info.last_offset + 1 if info.batches else state.fetch_offset
        last_epoch = info.last_leader_epoch if info.batches and info.last_leader_epoch >= 0 \
            else state.last_fetched_epoch
        self._update(tp, replace(state, fetch_offset=next_offset,
                                 lag=max(0, answer.high_watermark - next_offset),
                                 last_fetched_epoch=last_epoch))

    async def _handle_out_of_range(self, tp: TopicPartition,
                                   request: FetchPartitionRequest) -> bool:
        """Kafka's ``handleOutOfRangeError``: find a new fetch offset with the leader; returns
        whether the partition must back off."""
        epoch = request.current_leader_epoch
        try:
            new_state = await self._fetch_offset_and_truncate(tp, epoch)
        except KafkaError as e:
            if e.code == ErrorCode.FENCED_LEADER_EPOCH:
                return self._on_partition_fenced(tp, epoch)
            log.info("%s: could not find a fetch offset for %s-%d: %s", self.name, tp[0], tp[1],
                     e)
            return True
        except (BrokerClientError, OSError) as e:
            log.info("%s: could not find a fetch offset for %s-%d: %s", self.name, tp[0], tp[1],
                     e)
            return True
        if new_state is not None:
            log.info("%s: offset %d of %s-%d is out of range; fetching from %d", self.name,
                     request.fetch_offset, tp[0], tp[1], new_state.fetch_offset)
            self._update(tp, new_state)
        return False

    async def _fetch_offset_and_truncate(self, tp: TopicPartition, epoch: int,
                                         ) -> PartitionFetchState | None:
        """Kafka's ``fetchOffsetAndTruncate``. A leader whose log ends before ours (an unclean
        election) has us truncate to its end; a leader whose log starts after ours ends has us
        start afresh at its start; otherwise we fetch from our log end. None when the
        partition changed hands meanwhile."""
        leader_end = await self.leader.fetch_latest_offset(tp, epoch)
        leader_start: int | None = None
        partition = self._still_following(tp, epoch)
        if partition is None:
            return None
        if leader_end >= partition.log_end_offset:
            leader_start = await self.leader.fetch_earliest_offset(tp, epoch)
            partition = self._still_following(tp, epoch)
            if partition is None:
                return None
        state = self.partitions[tp]
        replica_end = partition.log_end_offset
        if leader_start is None:
            log.warning("%s: the leader's log of %s-%d ends at %d, before ours at %d: "
                        "truncating to it", self.name, tp[0], tp[1], leader_end, replica_end)
            partition.truncate_to(leader_end)
            offset = self._offset_after_truncation(partition, leader_end)
        elif leader_start > replica_end:
            log.warning("%s: the leader's log of %s-%d starts at %d, after ours ends at %d: "
                        "starting afresh there", self.name, tp[0], tp[1], leader_start,
                        replica_end)
            partition.truncate_fully_and_start_at(leader_start, self.time_ms())
            offset = leader_start
        else:
            offset = replica_end
        return replace(state, fetch_offset=offset, lag=max(0, leader_end - offset),
                       state=FetchState.FETCHING, last_fetched_epoch=partition.latest_epoch)

    def _still_following(self, tp: TopicPartition, epoch: int) -> Partition | None:
        state = self.partitions.get(tp)
        if state is None or state.current_leader_epoch != epoch:
            return None
        partition = self.replicas.get_partition(*tp)
        return partition if partition is not None and partition.log is not None else None


# -- the manager -----------------------------------------------------------------------------

EndpointFactory = Callable[[BrokerEndpoint, int], LeaderEndpoint]


class ReplicaFetcherManager:
    """Every fetcher of this broker, keyed by (source broker, fetcher id)."""

    def __init__(self, broker_id: int, broker_epoch: Callable[[], int],
                 replicas: FollowerPartitions, config: FetcherConfig, *,
                 endpoint_factory: EndpointFactory | None = None,
                 time_ms: Callable[[], int] = now_ms) -> None:
        self.broker_id = broker_id
        self.broker_epoch = broker_epoch
        self.replicas = replicas
        self.config = config
        self.time_ms = time_ms
        self._endpoint_factory = endpoint_factory or self._remote_endpoint
        self.fetchers: dict[tuple[int, int], ReplicaFetcher] = {}
        self._stopping: list[asyncio.Task[None]] = []
        self.shutting_down = False

    @property
    def truncation_on_fetch(self) -> bool:
        return self.config.truncation_on_fetch

    def _remote_endpoint(self, node: BrokerEndpoint, fid: int) -> LeaderEndpoint:
        return RemoteLeaderEndpoint(node, local_broker_id=self.broker_id,
                                    broker_epoch=self.broker_epoch, config=self.config,
                                    fetcher_id=fid)

    def fetcher_id(self, topic: str, partition: int) -> int:
        return fetcher_id(topic, partition, self.config.num_fetchers)

    def add_fetcher_for_partitions(self, initial: Mapping[TopicPartition, InitialFetchState],
                                   ) -> None:
        """Follow each partition from its leader, on the fetcher its id picks; a fetcher whose
        leader moved to another address is replaced."""
        if self.shutting_down:
            return
        groups: dict[tuple[int, int], dict[TopicPartition, InitialFetchState]] = {}
        nodes: dict[tuple[int, int], BrokerEndpoint] = {}
        for tp, state in initial.items():
            key = (state.leader.node_id, self.fetcher_id(*tp))
            groups.setdefault(key, {})[tp] = state
            nodes[key] = state.leader
        for key, states in groups.items():
            fetcher = self.fetchers.get(key)
            if fetcher is not None and fetcher.leader.node != nodes[key]:
                self._stop(self.fetchers.pop(key))
                fetcher = None
            if fetcher is None:
                source, fid = key
                fetcher = self.fetchers[key] = ReplicaFetcher(
                    f"ReplicaFetcherThread-{fid}-{source}", fid,
                    self._endpoint_factory(nodes[key], fid), self.replicas, self.config,
                    self.time_ms)
                fetcher.start()
            fetcher.add_partitions(states)

    def remove_fetcher_for_partitions(self, partitions: Iterable[TopicPartition]) -> None:
        doomed = set(partitions)
        if doomed:
            for fetcher in self.fetchers.values():
                fetcher.remove_partitions(doomed)

    def shutdown_idle_fetchers(self) -> None:
        for key in [k for k, f in self.fetchers.items() if f.partition_count == 0]:
            self._stop(self.fetchers.pop(key))

    def fetch_state(self, topic: str, partition: int) -> PartitionFetchState | None:
        for fetcher in self.fetchers.values():
            state = fetcher.partitions.get((topic, partition))
            if state is not None:
                return state
        return None

    def _stop(self, fetcher: ReplicaFetcher) -> None:
        task = fetcher.stop()
        if task is not None:
            self._stopping.append(task)
            task.add_done_callback(self._stopping.remove)

    async def shutdown(self) -> None:
        """Stop every fetcher; none is started afterwards."""
        self.shutting_down = True
        for fetcher in self.fetchers.values():
            self._stop(fetcher)
        self.fetchers.clear()
        if self._stopping:
            await asyncio.gather(*self._stopping, return_exceptions=True)
