"""Incremental fetch sessions (KIP-227): the fetch session cache and the context of one fetch.

A client with many partitions opens a session with a full fetch (session id 0, epoch 0); the
broker remembers the partitions and their fetch parameters under a new session id, and later
fetches of that session (epoch 1, 2, ...) name only the partitions whose parameters changed,
add new ones or forget some. The answer to an incremental fetch carries only the partitions
with something to say: records, a moved high watermark or log start offset, an error, a
diverging epoch. This module is Kafka's ``FetchSession.scala`` rules, without I/O; the Fetch
handler asks :meth:`FetchSessionCache.new_context` for the partitions to read and hands the
results back to :meth:`FetchContext.finish` for the answer.

* **Request metadata.** ``(session id, epoch)``: epoch 0 is a full fetch that opens a session
  (closing the named one, if any); epoch -1 a full fetch that opens none (closing the named
  one); any other epoch an incremental fetch of the named session, which must be the session's
  current epoch (else INVALID_FETCH_SESSION_EPOCH; an unknown id FETCH_SESSION_ID_NOT_FOUND).
  Fetch v13+ keys partitions by topic id, older versions by name: a session opened one way and
  continued the other way is FETCH_SESSION_TOPIC_ID_ERROR.
* **Cache.** ``max.incremental.fetch.session.cache.slots`` sessions at most. When it is full a
  new session may take the place of one unused for ``eviction_ms`` (two minutes, Kafka's
  ``MIN_INCREMENTAL_FETCH_SESSION_EVICTION_MS``), else of the least valuable one: a follower's
  session (privileged) beats a consumer's, a bigger session beats a smaller one, and a session
  younger than ``eviction_ms`` is only evictable by a privileged one if it is a consumer's.
* **Order.** A partition that returned records moves to the end of its session, so that under
  ``max_bytes`` the others are read first next time.

Sessions live on the event loop like the rest of the broker state; ``now`` is passed in.
"""

from __future__ import annotations

import logging
import random
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from protocol.errors import ErrorCode
from protocol.primitives import ZERO_UUID
from pybroker.metrics.registry import Meter

from .replica_fetch import FetchResult

log = logging.getLogger(__name__)

INVALID_SESSION_ID = 0
INITIAL_EPOCH = 0
FINAL_EPOCH = -1
#: Kafka's MIN_INCREMENTAL_FETCH_SESSION_EVICTION_MS
EVICTION_MS = 120_000
#: the first Fetch version that names topics by id
TOPIC_IDS_MIN_VERSION = 13
_MAX_INT = 2**31 - 1


def next_epoch(epoch: int) -> int:
    """The epoch after ``epoch`` (Kafka's ``FetchMetadata.nextEpoch``): wraps to 1."""
    if epoch < 0:
        return FINAL_EPOCH
    return 1 if epoch == _MAX_INT else epoch + 1


PartitionKey = tuple[uuid.UUID | str | None, int]


@dataclass(slots=True, eq=False)
class CachedPartition:
    """A partition of a fetch: what the fetcher asked for, and what it was last told.

    ``topic`` is None while a topic id is unknown to this broker. The last two fields are the
    answer the fetcher last got; an incremental answer leaves out a partition whose answer
    would not differ from it and carries no records."""

    topic: str | None
    topic_id: uuid.UUID
    partition: int
    fetch_offset: int
    max_bytes: int
    current_leader_epoch: int = -1
    last_fetched_epoch: int = -1
    #: the fetcher's log start offset (a follower's; -1 for consumers)
    log_start_offset: int = -1
    high_watermark: int = -1
    local_log_start_offset: int = -1

    @property
    def key(self) -> PartitionKey:
        """By topic id when the fetch names topics by id, else by name (as Kafka's equality)."""
        return (self.topic_id if self.topic_id != ZERO_UUID else self.topic, self.partition)

    def update_request(self, other: CachedPartition) -> None:
        self.fetch_offset = other.fetch_offset
        self.max_bytes = other.max_bytes
        self.current_leader_epoch = other.current_leader_epoch
        self.last_fetched_epoch = other.last_fetched_epoch
        self.log_start_offset = other.log_start_offset

    def must_respond(self, result: FetchResult, *, update: bool) -> bool:
        """Whether an incremental answer includes this partition (Kafka's
        ``maybeUpdateResponseData``); with ``update`` it remembers the answer."""
        respond = len(result.records) > 0 or result.diverging_epoch is not None
        if self.high_watermark != result.high_watermark:
            respond = True
            if update:
                self.high_watermark = result.high_watermark
        if self.local_log_start_offset != result.log_start_offset:
            respond = True
            if update:
                self.local_log_start_offset = result.log_start_offset
        if result.error != ErrorCode.NONE:
            # -1 makes the partition come back once the error is gone
            if update:
                self.high_watermark = -1
            respond = True
        return respond


@dataclass(slots=True, eq=False)
class FetchSession:
    id: int
    #: a follower's session, which may evict consumers' sessions
    privileged: bool
    uses_topic_ids: bool
    creation_ms: int
    last_used_ms: int
    epoch: int
    #: the session's partitions, in the order they are read
    partitions: dict[PartitionKey, CachedPartition] = field(default_factory=dict)

    def update(self, requested: Iterable[CachedPartition], forgotten: Iterable[PartitionKey],
               ) -> None:
        for p in requested:
            cached = self.partitions.get(p.key)
            if cached is None:
                self.partitions[p.key] = p
            else:
                cached.update_request(p)
        for key in forgotten:
            self.partitions.pop(key, None)

    def evictable_key(self) -> tuple[bool, int, int]:
        return (self.privileged, len(self.partitions), self.id)


class FetchSessionCache:
    """The broker's fetch sessions (Kafka's ``FetchSessionCache`` and ``FetchManager``)."""

    def __init__(self, max_entries: int, eviction_ms: int = EVICTION_MS, *,
                 rng: random.Random | None = None) -> None:
        self.max_entries = max_entries
        self.eviction_ms = eviction_ms
        self._sessions: dict[int, FetchSession] = {}
        self._rng = rng or random.Random()
        self.evictions = 0
        #: kafka.server:type=FetchSessionCache,name=IncrementalFetchSessionEvictionsPerSec
        #: (set by the broker)
        self.eviction_meter: Meter | None = None

    def __len__(self) -> int:
        return len(self._sessions)

    def get(self, session_id: int) -> FetchSession | None:
        return self._sessions.get(session_id)

    @property
    def total_partitions(self) -> int:
        return sum(len(s.partitions) for s in self._sessions.values())

    def remove(self, session_id: int) -> FetchSession | None:
        return self._sessions.pop(session_id, None)

    def _new_session_id(self) -> int:
        while True:
            session_id = self._rng.randint(1, _MAX_INT - 1)
            if session_id not in self._sessions:
                return session_id

    def _try_evict(self, privileged: bool, size: int, now_ms: int) -> bool:
        """Make room for a session of ``size`` partitions (Kafka's ``tryEvict``)."""
        if not self._sessions:
            return False
        stalest = min(self._sessions.values(), key=lambda s: (s.last_used_ms, s.id))
        if now_ms - stalest.last_used_ms > self.eviction_ms:
            log.debug("Evicting stale fetch session %d", stalest.id)
            return self._evict(stalest)
        old = [s for s in self._sessions.values() if now_ms - s.creation_ms > self.eviction_ms]
        if privileged:
            # a follower may also evict a consumer's session however young
            old += [s for s in self._sessions.values()
                    if not s.privileged and now_ms - s.creation_ms <= self.eviction_ms]
        if not old:
            return False
        cheapest = min(old, key=FetchSession.evictable_key)
        if (privileged, size, 0) < cheapest.evictable_key():
            return False
        log.debug("Evicting fetch session %d (privileged=%s, %d partitions) for a new one "
                  "(privileged=%s, %d partitions)", cheapest.id, cheapest.privileged,
                  len(cheapest.partitions), privileged, size)
        return self._evict(cheapest)

    def _evict(self, session: FetchSession) -> bool:
        del self._sessions[session.id]
        self.evictions += 1
        if self.eviction_meter is not None:
            self.eviction_meter.count += 1
        return True

    def maybe_create_session(self, partitions: list[CachedPartition], *, privileged: bool,
                             uses_topic_ids: bool, now_ms: int) -> int:
        """A new session of ``partitions`` and its id, or INVALID_SESSION_ID when there is no
        room for it."""
        if len(self._sessions) >= self.max_entries and not self._try_evict(
                privileged, len(partitions), now_ms):
            return INVALID_SESSION_ID
        session = FetchSession(self._new_session_id(), privileged, uses_topic_ids, now_ms,
                               now_ms, next_epoch(INITIAL_EPOCH),
                               {p.key: p for p in partitions})
        self._sessions[session.id] = session
        return session.id

    def new_context(self, version: int, session_id: int, epoch: int, *, privileged: bool,
                    requested: list[CachedPartition], forgotten: list[PartitionKey],
                    resolve: Callable[[uuid.UUID], str | None], now_ms: int) -> FetchContext:
        """The context of one Fetch request (Kafka's ``FetchManager.newContext``)."""
        uses_topic_ids = version >= TOPIC_IDS_MIN_VERSION
        if epoch in (INITIAL_EPOCH, FINAL_EPOCH):
            if session_id != INVALID_SESSION_ID and self.remove(session_id) is not None:
                log.debug("Closed fetch session %d on a full fetch", session_id)
            if epoch == FINAL_EPOCH:
                return FetchContext(requested)
            return FullFetchContext(requested, self, privileged, uses_topic_ids, now_ms)
        session = self._sessions.get(session_id)
        if session is None:
            return FetchContext([], ErrorCode.FETCH_SESSION_ID_NOT_FOUND)
        if session.epoch != epoch:
            return FetchContext([], ErrorCode.INVALID_FETCH_SESSION_EPOCH)
        if session.uses_topic_ids != uses_topic_ids:
            return FetchContext([], ErrorCode.FETCH_SESSION_TOPIC_ID_ERROR)
        session.update(requested, forgotten)
        if not session.partitions:
            self.remove(session.id)
            return FetchContext(requested)
        session.last_used_ms = now_ms
        session.epoch = next_epoch(session.epoch)
        for p in session.partitions.values():
            if p.topic is None:
                p.topic = resolve(p.topic_id)
        return IncrementalFetchContext(list(session.partitions.values()), session)


@dataclass(frozen=True, slots=True)
class FetchAnswer:
    """What a fetch answers: an error for the whole request, the session id, and the
    partitions to include with their results, in order."""

    error: ErrorCode
    session_id: int
    partitions: list[tuple[CachedPartition, FetchResult]]


class FetchContext:
    """A fetch outside any session (or one refused with a session error): every partition
    asked for is read and answered."""

    def __init__(self, partitions: list[CachedPartition],
                 error: ErrorCode = ErrorCode.NONE) -> None:
        #: the partitions to read, in order
        self.partitions = partitions
        self.error = error

    def finish(self, results: list[tuple[CachedPartition, FetchResult]]) -> FetchAnswer:
        if self.error != ErrorCode.NONE:
            return FetchAnswer(self.error, INVALID_SESSION_ID, [])
        return FetchAnswer(ErrorCode.NONE, INVALID_SESSION_ID, results)

    def throttled(self) -> FetchAnswer:
        """The answer instead of :meth:`finish` when a quota throttles the fetch: no
        partitions, and no session opened or changed (Kafka's ``getThrottledResponse``)."""
        return FetchAnswer(self.error, INVALID_SESSION_ID, [])


class FullFetchContext(FetchContext):
    """A full fetch that opens a session, if the cache has room, once it is answered."""

    def __init__(self, partitions: list[CachedPartition], cache: FetchSessionCache,
                 privileged: bool, uses_topic_ids: bool, now_ms: int) -> None:
        super().__init__(partitions)
        self._cache = cache
        self._privileged = privileged
        self._uses_topic_ids = uses_topic_ids
        self._now_ms = now_ms

    def finish(self, results: list[tuple[CachedPartition, FetchResult]]) -> FetchAnswer:
        for p, result in results:
            p.high_watermark = result.high_watermark
            p.local_log_start_offset = result.log_start_offset
        session_id = self._cache.maybe_create_session(
            [p for p, _ in results], privileged=self._privileged,
            uses_topic_ids=self._uses_topic_ids, now_ms=self._now_ms)
        return FetchAnswer(ErrorCode.NONE, session_id, results)


class IncrementalFetchContext(FetchContext):
    """A fetch of an open session: every partition of the session is read, and only those
    with news are answered."""

    def __init__(self, partitions: list[CachedPartition], session: FetchSession) -> None:
        super().__init__(partitions)
        self._session = session
        self._epoch = session.epoch

    def finish(self, results: list[tuple[CachedPartition, FetchResult]]) -> FetchAnswer:
        session = self._session
        if session.epoch != self._epoch:
            # another fetch of this session came in meanwhile (Kafka: a duplicate request)
            log.info("Fetch session %d expected epoch %d but has %d: a duplicate request?",
                     session.id, self._epoch, session.epoch)
            return FetchAnswer(ErrorCode.INVALID_FETCH_SESSION_EPOCH, session.id, [])
        kept = []
        for p, result in results:
            if not p.must_respond(result, update=True):
                continue
            kept.append((p, result))
            if len(result.records) > 0 and session.partitions.get(p.key) is p:
                # read last next time, so that the others get their share of max_bytes
                del session.partitions[p.key]
                session.partitions[p.key] = p
        return FetchAnswer(ErrorCode.NONE, session.id, kept)

    def throttled(self) -> FetchAnswer:
        if self._session.epoch != self._epoch:
            return FetchAnswer(ErrorCode.INVALID_FETCH_SESSION_EPOCH, self._session.id, [])
        return FetchAnswer(ErrorCode.NONE, self._session.id, [])
