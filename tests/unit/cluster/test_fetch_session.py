"""The fetch session cache and fetch contexts (KIP-227), without a broker."""

from __future__ import annotations

import random
import uuid

from protocol.errors import ErrorCode
from protocol.primitives import ZERO_UUID
from pybroker.cluster.fetch_session import (
    EVICTION_MS,
    FINAL_EPOCH,
    INVALID_SESSION_ID,
    CachedPartition,
    FetchSessionCache,
    FullFetchContext,
    IncrementalFetchContext,
    next_epoch,
)
from pybroker.cluster.replica_fetch import FetchResult

T = 1_000_000
TOPIC_ID = uuid.UUID("0b6e4a52-8f0b-4c2b-9d4e-1f2a3b4c5d6e")


def part(partition: int, offset: int = 0, topic: str | None = "t",
         topic_id: uuid.UUID = ZERO_UUID) -> CachedPartition:
    return CachedPartition(topic, topic_id, partition, offset, 1 << 20)


def result(hw: int, records: bytes = b"", error: ErrorCode = ErrorCode.NONE,
           log_start: int = 0) -> FetchResult:
    return FetchResult(error=error, high_watermark=hw, last_stable_offset=hw,
                       log_start_offset=log_start, records=records)


def cache(slots: int = 10) -> FetchSessionCache:
    return FetchSessionCache(slots, rng=random.Random(7))


def new(c: FetchSessionCache, session_id: int, epoch: int, *requested: CachedPartition,
        forgotten=(), version: int = 12, privileged: bool = False, now: int = T):
    return c.new_context(version, session_id, epoch, privileged=privileged,
                         requested=list(requested), forgotten=list(forgotten),
                         resolve=lambda _id: None, now_ms=now)


def open_session(c: FetchSessionCache, *partitions: CachedPartition, hw: int = 5,
                 privileged: bool = False, now: int = T) -> int:
    ctx = new(c, 0, 0, *partitions, privileged=privileged, now=now)
    answer = ctx.finish([(p, result(hw)) for p in ctx.partitions])
    return answer.session_id


def test_next_epoch_wraps_to_one_and_keeps_final() -> None:
    assert next_epoch(0) == 1
    assert next_epoch(2**31 - 1) == 1
    assert next_epoch(FINAL_EPOCH) == FINAL_EPOCH


def test_a_full_fetch_at_epoch_zero_opens_a_session_at_epoch_one() -> None:
    c = cache()
    ctx = new(c, 0, 0, part(0), part(1))
    assert isinstance(ctx, FullFetchContext)
    answer = ctx.finish([(p, result(5)) for p in ctx.partitions])
    assert answer.session_id != INVALID_SESSION_ID and len(answer.partitions) == 2
    session = c.get(answer.session_id)
    assert session is not None and session.epoch == 1
    assert [p.high_watermark for p in session.partitions.values()] == [5, 5]


def test_the_final_epoch_reads_without_a_session_and_closes_the_named_one() -> None:
    c = cache()
    sid = open_session(c, part(0))
    ctx = new(c, sid, FINAL_EPOCH, part(0))
    assert not isinstance(ctx, (FullFetchContext, IncrementalFetchContext))
    assert ctx.finish([(part(0), result(5))]).session_id == INVALID_SESSION_ID
    assert c.get(sid) is None


def test_an_incremental_fetch_reads_every_partition_and_answers_only_news() -> None:
    c = cache()
    sid = open_session(c, part(0), part(1), part(2), hw=5)
    # partition 1 moved on: the client names it with its new offset
    ctx = new(c, sid, 1, part(1, offset=5))
    assert isinstance(ctx, IncrementalFetchContext)
    assert [(p.partition, p.fetch_offset) for p in ctx.partitions] == [(0, 0), (1, 5), (2, 0)]
    answer = ctx.finish([
        (ctx.partitions[0], result(5)),                    # nothing new
        (ctx.partitions[1], result(5)),                    # nothing new
        (ctx.partitions[2], result(8, records=b"xyz")),    # records and a new high watermark
    ])
    assert answer.session_id == sid
    assert [p.partition for p, _ in answer.partitions] == [2]
    # a partition with records goes to the end of the session
    assert [p.partition for p in c.get(sid).partitions.values()] == [0, 1, 2]


def test_a_partition_with_records_is_read_last_next_time() -> None:
    c = cache()
    sid = open_session(c, part(0), part(1), hw=5)
    ctx = new(c, sid, 1)
    ctx.finish([(ctx.partitions[0], result(6, records=b"r")), (ctx.partitions[1], result(5))])
    assert [p.partition for p in new(c, sid, 2).partitions] == [1, 0]


def test_errors_log_start_moves_and_diverging_epochs_are_always_answered() -> None:
    c = cache()
    sid = open_session(c, part(0), part(1), part(2), hw=5)
    ctx = new(c, sid, 1)
    diverging = result(5)
    diverging.diverging_epoch = (3, 4)
    answer = ctx.finish([
        (ctx.partitions[0], result(-1, error=ErrorCode.NOT_LEADER_OR_FOLLOWER)),
        (ctx.partitions[1], result(5, log_start=2)),
        (ctx.partitions[2], diverging),
    ])
    assert [p.partition for p, _ in answer.partitions] == [0, 1, 2]
    # once the error is gone the partition is answered again (its high watermark was reset)
    ctx = new(c, sid, 2)
    answer = ctx.finish([(ctx.partitions[0], result(5)), (ctx.partitions[1], result(5, log_start=2)),
                         (ctx.partitions[2], result(5))])
    assert [p.partition for p, _ in answer.partitions] == [0]


def test_session_errors() -> None:
    c = cache()
    sid = open_session(c, part(0))
    assert new(c, sid + 1, 1).error == ErrorCode.FETCH_SESSION_ID_NOT_FOUND
    assert new(c, sid, 9).error == ErrorCode.INVALID_FETCH_SESSION_EPOCH
    assert new(c, sid, 1, version=13).error == ErrorCode.FETCH_SESSION_TOPIC_ID_ERROR
    # the errors leave the session as it was
    assert new(c, sid, 1).error == ErrorCode.NONE


def test_a_duplicate_request_is_refused_when_answered() -> None:
    c = cache()
    sid = open_session(c, part(0))
    first = new(c, sid, 1)
    second = new(c, sid, 2)
    assert first.finish([(first.partitions[0], result(5))]).error == \
        ErrorCode.INVALID_FETCH_SESSION_EPOCH
    assert second.finish([(second.partitions[0], result(5))]).error == ErrorCode.NONE


def test_forgetting_every_partition_ends_the_session() -> None:
    c = cache()
    sid = open_session(c, part(0), part(1))
    ctx = new(c, sid, 1, forgotten=[("t", 0)])
    assert [p.partition for p in ctx.partitions] == [1]
    ctx = new(c, sid, 2, forgotten=[("t", 1)])
    assert ctx.partitions == [] and c.get(sid) is None


def test_sessions_by_topic_id_resolve_names_later() -> None:
    c = cache()
    ctx = c.new_context(13, 0, 0, privileged=False,
                        requested=[part(0, topic=None, topic_id=TOPIC_ID)], forgotten=[],
                        resolve=lambda _id: None, now_ms=T)
    sid = ctx.finish([(ctx.partitions[0], result(-1, error=ErrorCode.UNKNOWN_TOPIC_ID))]).session_id
    ctx = c.new_context(13, sid, 1, privileged=False, requested=[], forgotten=[],
                        resolve=lambda topic_id: "t" if topic_id == TOPIC_ID else None,
                        now_ms=T)
    assert [p.topic for p in ctx.partitions] == ["t"]
    ctx = c.new_context(13, sid, 2, privileged=False, requested=[],
                        forgotten=[(TOPIC_ID, 0)], resolve=lambda _id: None, now_ms=T)
    assert c.get(sid) is None


def test_a_full_cache_opens_no_session_for_a_young_equal_one() -> None:
    c = cache(slots=1)
    open_session(c, part(0), part(1))
    assert open_session(c, part(0), part(1), now=T + 1) == INVALID_SESSION_ID
    assert len(c) == 1


def test_a_stale_session_makes_room() -> None:
    c = cache(slots=1)
    old = open_session(c, part(0))
    new_id = open_session(c, part(0), now=T + EVICTION_MS + 1)
    assert new_id != INVALID_SESSION_ID and c.get(old) is None and c.evictions == 1


def test_a_follower_evicts_a_young_consumer_session() -> None:
    c = cache(slots=1)
    consumer = open_session(c, part(0), part(1), part(2))
    follower = open_session(c, part(0), privileged=True, now=T + 1)
    assert follower != INVALID_SESSION_ID and c.get(consumer) is None
    # ... but a consumer never evicts a young follower session
    assert open_session(c, part(0), part(1), part(2), now=T + 2) == INVALID_SESSION_ID


def test_a_bigger_session_evicts_an_old_smaller_one_but_not_a_bigger() -> None:
    c = cache(slots=1)
    small = open_session(c, part(0))
    # used recently (not stale) but created long ago
    now = T + EVICTION_MS + 10
    ctx = new(c, small, 1, now=now - 5)
    ctx.finish([(ctx.partitions[0], result(5))])
    assert open_session(c, part(0), part(1), now=now) != INVALID_SESSION_ID
    assert c.get(small) is None
    assert open_session(c, part(0), now=now + 1) == INVALID_SESSION_ID


def test_a_cache_of_zero_slots_never_opens_a_session() -> None:
    assert open_session(cache(slots=0), part(0)) == INVALID_SESSION_ID
