"""The leader as a follower's fetcher sees it: the requests it sends (Fetch as a replica,
OffsetForLeaderEpoch, ListOffsets as a replica) built and parsed as pure functions, and
:class:`RemoteLeaderEndpoint`, which sends them over the inter-broker client, its fetches in an
incremental fetch session (:mod:`pybroker.cluster.fetch_session_handler`). Kafka's
``LeaderEndpoint``/``RemoteLeaderEndpoint``."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from protocol.errors import ErrorCode, KafkaError
from protocol.messages import (
    ApiKey,
    fetch_request as freq,
    fetch_response as fresp,
    list_offsets_request as loreq,
    offset_for_leader_epoch_request as oreq,
)
from pybroker.cluster.fetch_session_handler import FetchSessionHandler, SessionFetch
from pybroker.cluster.fetcher_state import UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET, FetcherConfig
from pybroker.cluster.metadata_cache import BrokerEndpoint
from pybroker.kernel.types import TopicPartition
from pybroker.network.client import BrokerClient, BrokerClientError

LATEST_TIMESTAMP = -1


EARLIEST_TIMESTAMP = -2


#: a Fetch without a fetch session (KIP-227): session id 0 and the final epoch
NO_SESSION = 0


SESSIONLESS_EPOCH = -1


#: Fetch names topics by id from v13 (KIP-516)
TOPIC_IDS_MIN_VERSION = 13


#: the follower names itself and its broker epoch in ReplicaState from v15 (KIP-903)
REPLICA_STATE_MIN_VERSION = 15


#: fetch sessions (KIP-227) from v7
SESSIONS_MIN_VERSION = 7


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
    #: the topic id the controller named for the partition (None while none is known)
    topic_id: uuid.UUID | None = None


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


def has_topic_id(p: FetchPartitionRequest) -> bool:
    return p.topic_id is not None and p.topic_id.int != 0


def fetch_version_for(partitions: Sequence[FetchPartitionRequest], config: FetcherConfig,
                      ) -> int:
    """The version of a follower's Fetch for ``partitions``: the inter-broker protocol's
    (``config.fetch_version``), but v12 when it names topics by id and a partition has no
    topic id yet (Kafka's ``RemoteLeaderEndPoint.buildFetch`` without ``canUseTopicIds``)."""
    version = config.fetch_version
    if version >= TOPIC_IDS_MIN_VERSION and any(not has_topic_id(p) for p in partitions):
        return TOPIC_IDS_MIN_VERSION - 1
    return version


def _topic_key(p: FetchPartitionRequest, by_ids: bool, version: int) -> str | uuid.UUID:
    if not by_ids:
        return p.topic
    if p.topic_id is None or not has_topic_id(p):
        raise ValueError(f"Fetch v{version} names topics by id; {p.topic} has none")
    return p.topic_id


def build_fetch_request(partitions: Iterable[FetchPartitionRequest], *, replica_id: int,
                        broker_epoch: int, config: FetcherConfig, version: int,
                        session_id: int = NO_SESSION, session_epoch: int = SESSIONLESS_EPOCH,
                        forgotten: Iterable[FetchPartitionRequest] = (),
                        ) -> freq.FetchRequest:
    """A follower's Fetch (``ReplicaFetcherThread.buildFetch``): this broker as the replica,
    ``replica.fetch.wait.max.ms``/``min.bytes``/``response.max.bytes``, read-uncommitted,
    each partition with its fetch offset, leader epoch, last fetched epoch (v12+), log start
    offset and ``replica.fetch.max.bytes``; topics in first-seen order, by name up to v12 and by
    id from v13 (every partition must then have one). Up to v14 the replica id is the
    request's; from v15 ``ReplicaState`` carries it with ``broker_epoch``. Without a session
    (the defaults) the fetch opens none; in one, ``forgotten`` are the partitions it drops."""
    by_ids = version >= TOPIC_IDS_MIN_VERSION
    topics: dict[str | uuid.UUID, freq.FetchTopic] = {}
    for p in partitions:
        key = _topic_key(p, by_ids, version)
        topic = topics.get(key)
        if topic is None:
            topic = topics[key] = (freq.FetchTopic(topic_id=key) if isinstance(key, uuid.UUID)
                                   else freq.FetchTopic(topic=key))
        topic.partitions.append(freq.FetchPartition(
            partition=p.partition,
            current_leader_epoch=p.current_leader_epoch,
            fetch_offset=p.fetch_offset,
            last_fetched_epoch=p.last_fetched_epoch if version >= 12 else UNDEFINED_EPOCH,
            log_start_offset=p.log_start_offset,
            partition_max_bytes=p.max_bytes,
        ))
    forgotten_topics: dict[str | uuid.UUID, freq.ForgottenTopic] = {}
    for p in forgotten:
        key = _topic_key(p, by_ids, version)
        gone = forgotten_topics.get(key)
        if gone is None:
            gone = forgotten_topics[key] = (
                freq.ForgottenTopic(topic_id=key) if isinstance(key, uuid.UUID)
                else freq.ForgottenTopic(topic=key))
        gone.partitions.append(p.partition)
    with_state = version >= REPLICA_STATE_MIN_VERSION
    request = freq.FetchRequest(
        replica_id=-1 if with_state else replica_id,
        max_wait_ms=config.max_wait_ms,
        min_bytes=config.min_bytes,
        max_bytes=config.max_bytes,
        isolation_level=0,
        session_id=session_id,
        session_epoch=session_epoch,
        topics=list(topics.values()),
        forgotten_topics_data=list(forgotten_topics.values()),
    )
    if with_state:
        request.replica_state = freq.ReplicaState(replica_id=replica_id,
                                                  replica_epoch=broker_epoch)
    return request


def _error(code: int) -> ErrorCode:
    try:
        return ErrorCode(code)
    except ValueError:
        return ErrorCode.UNKNOWN_SERVER_ERROR


def unknown_topic_ids(response: fresp.FetchResponse,
                      topic_names: Mapping[uuid.UUID, str]) -> int:
    """How many topics of an answer by topic id (v13+) ``topic_names`` cannot name."""
    return sum(1 for topic in response.responses if topic.topic_id not in topic_names)


def parse_fetch_response(response: fresp.FetchResponse,
                         topic_names: Mapping[uuid.UUID, str] | None = None,
                         ) -> dict[TopicPartition, FetchedPartition]:
    """The leader's answer by partition; a top-level error raises FetchRequestError. An answer
    to a fetch by topic id (v13+) names topics by id: ``topic_names`` maps the ids the request
    named back to names, and a topic it does not name is ignored."""
    if response.error_code:
        raise FetchRequestError(f"the leader answered the fetch with "
                                f"{_error(response.error_code).name}")
    out: dict[TopicPartition, FetchedPartition] = {}
    for topic in response.responses:
        name = topic.topic if topic_names is None else topic_names.get(topic.topic_id)
        if name is None:
            continue
        for p in topic.partitions:
            diverging = p.diverging_epoch
            records = p.records
            out[(name, p.partition_index)] = FetchedPartition(
                error=_error(p.error_code),
                high_watermark=p.high_watermark,
                log_start_offset=p.log_start_offset,
                # a decoded answer carries its records as a view of the frame
                records=records if isinstance(records, (bytes, bytearray, memoryview)) else b"",
                diverging_epoch=((diverging.epoch, diverging.end_offset)
                                 if diverging.epoch >= 0 else None),
            )
    return out


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
        #: this fetcher's incremental fetch session with the leader
        self.session: FetchSessionHandler[FetchPartitionRequest] = FetchSessionHandler(
            node.node_id)

    @property
    def node(self) -> BrokerEndpoint:
        return self._node

    async def _request(self, api_key: int, version: int, body: object) -> object:
        client = self._client
        if client is None or not client.connected:
            if client is not None:
                client.close()
            client = self._client = BrokerClient(self._node.host, self._node.port,
                                                 client_id=self.client_id,
                                                 ssl_context=self.config.ssl_context,
                                                 sasl=self.config.sasl)
            await client.connect(self.config.socket_timeout_ms / 1000)
        try:
            return await client.request(api_key, version, body, self.config.socket_timeout_ms)
        except BrokerClientError:
            self.close()
            raise

    async def fetch(self, partitions: list[FetchPartitionRequest],
                    ) -> dict[TopicPartition, FetchedPartition]:
        """Fetch ``partitions`` (those ready, in order) in the session: only the partitions
        new or changed since the last fetch are named, those no longer fetched forgotten, and
        the answer holds only partitions with news. A session error answers nothing (the next
        fetch is a full one); a topic-id mismatch raises FetchRequestError, as Kafka's
        ``RemoteLeaderEndPoint`` does. Nothing fetched and nothing to forget sends nothing."""
        session = self.session
        built = session.build(partitions)
        if built.is_empty:
            return {}
        version = self.config.fetch_version
        if version >= TOPIC_IDS_MIN_VERSION and not built.can_use_topic_ids:
            version = TOPIC_IDS_MIN_VERSION - 1
        request = self._session_fetch_request(built, version)
        try:
            response = await self._request(ApiKey.FETCH, version, request)
        except BaseException:
            session.handle_error()
            raise
        assert isinstance(response, fresp.FetchResponse)
        names = ({p.topic_id: p.topic for p in built.session_partitions.values()
                  if p.topic_id is not None}
                 if version >= TOPIC_IDS_MIN_VERSION else None)
        if version < SESSIONS_MIN_VERSION:
            return parse_fetch_response(response, names)
        if response.error_code:
            error = _error(response.error_code)
            session.handle_response(error, response.session_id, ())
            if error == ErrorCode.FETCH_SESSION_TOPIC_ID_ERROR:
                raise FetchRequestError(f"the leader answered the fetch with {error.name}")
            return {}
        answers = parse_fetch_response(response, names)
        unknown = unknown_topic_ids(response, names) if names is not None else 0
        if not session.handle_response(ErrorCode.NONE, response.session_id, answers.keys(),
                                       unknown):
            return {}
        return answers

    def _session_fetch_request(self, built: SessionFetch[FetchPartitionRequest],
                               version: int) -> freq.FetchRequest:
        if version < SESSIONS_MIN_VERSION:
            return build_fetch_request(built.session_partitions.values(),
                                       replica_id=self.local_broker_id,
                                       broker_epoch=self.broker_epoch(), config=self.config,
                                       version=version)
        forgotten = list(built.to_forget)
        if version >= TOPIC_IDS_MIN_VERSION:
            forgotten += built.to_replace
        return build_fetch_request(built.to_send, replica_id=self.local_broker_id,
                                   broker_epoch=self.broker_epoch(), config=self.config,
                                   version=version, session_id=built.metadata.session_id,
                                   session_epoch=built.metadata.epoch, forgotten=forgotten)

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
