"""A follower's side of its fetch session (pybroker/cluster/fetch_session_handler.py): what
each fetch names and forgets, and how answers move the session on (Kafka's
FetchSessionHandler)."""

from __future__ import annotations

import uuid
from dataclasses import replace

from protocol.errors import ErrorCode
from pybroker.cluster.fetch_session_handler import INITIAL, FetchMetadata, FetchSessionHandler
from pybroker.cluster.leader_endpoint import FetchPartitionRequest

A_ID = uuid.UUID(int=1)
B_ID = uuid.UUID(int=2)


def part(topic: str, partition: int, offset: int = 0, topic_id: uuid.UUID | None = A_ID,
         epoch: int = 0) -> FetchPartitionRequest:
    return FetchPartitionRequest(topic=topic, partition=partition, fetch_offset=offset,
                                 current_leader_epoch=epoch, last_fetched_epoch=epoch,
                                 log_start_offset=0, max_bytes=1 << 20, topic_id=topic_id)


def names(ps: list[FetchPartitionRequest]) -> list[tuple[str, int]]:
    return [(p.topic, p.partition) for p in ps]


def opened(handler: FetchSessionHandler[FetchPartitionRequest],
           ps: list[FetchPartitionRequest], session_id: int = 77) -> None:
    built = handler.build(ps)
    assert built.metadata == INITIAL and names(built.to_send) == names(ps)
    assert handler.handle_response(ErrorCode.NONE, session_id, [(p.topic, p.partition)
                                                                for p in ps])
    assert handler.next_metadata == FetchMetadata(session_id, 1)


def test_a_full_fetch_opens_the_session_and_later_ones_name_only_what_changed() -> None:
    h: FetchSessionHandler[FetchPartitionRequest] = FetchSessionHandler(1)
    a0, a1, b0 = part("a", 0), part("a", 1), part("b", 0, topic_id=B_ID)
    opened(h, [a0, a1, b0])
    # nothing changed: an incremental fetch naming nothing, forgetting nothing
    built = h.build([a0, a1, b0])
    assert built.metadata == FetchMetadata(77, 1)
    assert (built.to_send, built.to_forget, built.to_replace) == ([], [], [])
    assert list(built.session_partitions) == [("a", 0), ("a", 1), ("b", 0)]
    assert not built.is_empty and built.can_use_topic_ids
    assert h.handle_response(ErrorCode.NONE, 77, [])  # nothing new at the leader either
    assert h.next_metadata == FetchMetadata(77, 2)
    # a1 moved on, b0 is not fetched this time (backing off), c0 is new
    a1_moved, c0 = part("a", 1, offset=5), part("c", 0)
    built = h.build([c0, a0, a1_moved])
    assert names(built.to_send) == [("c", 0), ("a", 1)]  # new ones, then the changed ones
    assert built.to_send[1].fetch_offset == 5
    assert names(built.to_forget) == [("b", 0)]
    assert set(built.session_partitions) == {("a", 0), ("a", 1), ("c", 0)}
    assert h.handle_response(ErrorCode.NONE, 77, [("a", 1)])
    assert h.next_metadata == FetchMetadata(77, 3)


def test_a_partition_under_a_new_topic_id_is_replaced() -> None:
    h: FetchSessionHandler[FetchPartitionRequest] = FetchSessionHandler(1)
    old = part("a", 0)
    opened(h, [old])
    new = part("a", 0, topic_id=B_ID)
    built = h.build([new])
    assert built.to_send == [new] and built.to_replace == [old] and built.to_forget == []
    assert built.session_partitions == {("a", 0): new}


def test_topic_ids_only_when_every_partition_named_or_forgotten_has_one() -> None:
    h: FetchSessionHandler[FetchPartitionRequest] = FetchSessionHandler(1)
    assert not h.build([part("a", 0), part("b", 0, topic_id=None)]).can_use_topic_ids
    h = FetchSessionHandler(1)
    opened(h, [part("a", 0), part("b", 0, topic_id=uuid.UUID(int=0))])
    assert not h.build([part("a", 0)]).can_use_topic_ids  # forgets one without an id
    assert h.build([part("a", 0)]).can_use_topic_ids


def test_nothing_to_fetch_and_nothing_to_forget_is_no_fetch() -> None:
    h: FetchSessionHandler[FetchPartitionRequest] = FetchSessionHandler(1)
    assert h.build([]).is_empty
    opened(h, [part("a", 0)])
    built = h.build([])
    assert not built.is_empty and names(built.to_forget) == [("a", 0)]
    # the leader drops a session left empty and answers outside any (session id 0)
    assert h.handle_response(ErrorCode.NONE, 0, [])
    assert h.next_metadata == INITIAL and h.build([]).is_empty


def test_session_errors() -> None:
    h: FetchSessionHandler[FetchPartitionRequest] = FetchSessionHandler(1)
    opened(h, [part("a", 0)])
    assert not h.handle_response(ErrorCode.INVALID_FETCH_SESSION_EPOCH, 0, [])
    assert h.next_metadata == FetchMetadata(77, 0)  # close it, ask for a new one
    built = h.build([part("a", 0)])
    assert built.metadata == FetchMetadata(77, 0) and names(built.to_send) == [("a", 0)]
    assert h.handle_response(ErrorCode.NONE, 78, [("a", 0)])
    assert h.next_metadata == FetchMetadata(78, 1)
    assert not h.handle_response(ErrorCode.FETCH_SESSION_ID_NOT_FOUND, 0, [])
    assert h.next_metadata == INITIAL
    opened(h, [part("a", 0)], session_id=79)
    h.handle_error()  # a lost connection
    assert h.next_metadata == FetchMetadata(79, 0)


def test_answers_that_do_not_fit_the_session_are_not_used() -> None:
    h: FetchSessionHandler[FetchPartitionRequest] = FetchSessionHandler(1)
    h.build([part("a", 0), part("a", 1)])
    # a full answer must name every partition of the session
    assert not h.handle_response(ErrorCode.NONE, 77, [("a", 0)])
    assert h.next_metadata == INITIAL
    h.build([part("a", 0), part("a", 1)])
    assert not h.handle_response(ErrorCode.NONE, 77, [("a", 0), ("a", 1)], unresolved_ids=1)
    opened(h, [part("a", 0), part("a", 1)])
    h.build([part("a", 0), part("a", 1)])
    assert not h.handle_response(ErrorCode.NONE, 77, [("z", 0)])  # not in the session
    assert h.next_metadata == FetchMetadata(77, 0)


def test_a_full_answer_without_a_session_keeps_fetching_in_full() -> None:
    h: FetchSessionHandler[FetchPartitionRequest] = FetchSessionHandler(1)
    h.build([part("a", 0)])
    assert h.handle_response(ErrorCode.NONE, 0, [("a", 0)])  # the leader's cache was full
    assert h.next_metadata == INITIAL
    built = h.build([replace(part("a", 0), fetch_offset=3)])
    assert built.metadata.is_full and names(built.to_send) == [("a", 0)]


def test_epochs_wrap_to_one() -> None:
    assert FetchMetadata(5, 2**31 - 1).next_incremental() == FetchMetadata(5, 1)
    assert FetchMetadata(5, 4).next_incremental() == FetchMetadata(5, 5)
