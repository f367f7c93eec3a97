"""A follower's side of its incremental fetch session with a leader (KIP-227): Kafka's
``FetchSessionHandler`` as ``RemoteLeaderEndPoint`` uses it, without I/O.

Without a session every replica fetch names every partition the fetcher follows from that
leader, and every answer carries every one of them, though most (the fifty partitions of
``__consumer_offsets``, a quiet topic) have nothing new. With a session the first fetch is
*full* (session id 0, epoch 0): it names them all and the leader, if its cache has room, opens a
session of them and answers with its id. Later fetches are *incremental* (that id, epoch 1, 2,
...): they name only the partitions added or whose fetch data changed since the last fetch
(a new fetch offset after an append, a new leader epoch, ...) and *forget* those no longer
fetched (a partition backing off, truncating or removed). The leader reads every partition of
the session and answers only those with news (records, a moved high watermark or log start,
an error, a diverging epoch); the others are implied unchanged.

:meth:`FetchSessionHandler.build` takes the partitions ready to fetch this round, in fetch
order, and returns what to send (:class:`SessionFetch`); :meth:`~FetchSessionHandler.
handle_response` checks the answer against the session and moves the session metadata on,
as Kafka's client does:

* an answer with a top-level error: FETCH_SESSION_ID_NOT_FOUND starts afresh (session 0,
  epoch 0); any other error closes the session on the next fetch, which is full and may open
  a new one (the same id, epoch 0);
* a full answer must name exactly the session's partitions; with session id 0 the leader
  opened no session and the next fetch is full again, else the next is incremental, epoch 1;
* an incremental answer must name only partitions of the session; session id 0 means the
  leader closed it (next fetch full), else the epoch moves on;
* an answer that breaks those rules is not used, and the next fetch closes the session.

:meth:`~FetchSessionHandler.handle_error` (a failed or lost request) closes the session on the
next fetch too. Topics are named by id when every partition has one (Fetch v13+), else by name
(v12); an incremental answer names topics by id, resolved through the session's partitions.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from protocol.errors import ErrorCode
from pybroker.cluster.fetch_session import (
    FINAL_EPOCH,
    INITIAL_EPOCH,
    INVALID_SESSION_ID,
    next_epoch,
)
from pybroker.kernel.types import TopicPartition

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class FetchMetadata:
    """The session id and epoch a fetch carries (Kafka's ``FetchMetadata``)."""

    session_id: int = INVALID_SESSION_ID
    epoch: int = INITIAL_EPOCH

    @property
    def is_full(self) -> bool:
        """A full fetch names every partition (epoch 0 opens a session, -1 none)."""
        return self.epoch in (INITIAL_EPOCH, FINAL_EPOCH)

    def next_close_existing_attempt_new(self) -> FetchMetadata:
        """A full fetch that closes this session and asks for a new one."""
        return FetchMetadata(self.session_id, INITIAL_EPOCH)

    def next_incremental(self) -> FetchMetadata:
        return FetchMetadata(self.session_id, next_epoch(self.epoch))


INITIAL = FetchMetadata()


class SessionPartition(Protocol):
    """What the handler needs of a partition's fetch data; equal data means unchanged."""

    @property
    def topic(self) -> str: ...

    @property
    def partition(self) -> int: ...

    @property
    def topic_id(self) -> uuid.UUID | None: ...


P = TypeVar("P", bound=SessionPartition)


def _has_topic_id(p: SessionPartition) -> bool:
    return p.topic_id is not None and p.topic_id.int != 0


@dataclass(frozen=True, slots=True)
class SessionFetch(Generic[P]):
    """One fetch of the session (Kafka's ``FetchRequestData``)."""

    #: the partitions the request names, in order
    to_send: list[P]
    #: the partitions it forgets (as the session had them)
    to_forget: list[P]
    #: partitions whose topic id changed: forgotten under the old id (v13+) and sent anew
    to_replace: list[P]
    #: every partition of the session after this fetch, in fetch order: what the fetch asks
    #: about, implied or named
    session_partitions: dict[TopicPartition, P]
    metadata: FetchMetadata
    #: every partition named, and every one forgotten, has a topic id (Fetch v13+)
    can_use_topic_ids: bool

    @property
    def is_empty(self) -> bool:
        """Nothing to fetch and nothing to forget: no request to send."""
        return not self.session_partitions and not self.to_forget


class FetchSessionHandler(Generic[P]):
    """The session of one fetcher with its leader ``node_id``."""

    def __init__(self, node_id: int) -> None:
        self.node_id = node_id
        self.next_metadata = INITIAL
        #: the session's partitions and the fetch data last sent for each, in fetch order
        self.session_partitions: dict[TopicPartition, P] = {}

    @property
    def session_id(self) -> int:
        return self.next_metadata.session_id

    def build(self, partitions: Sequence[P]) -> SessionFetch[P]:
        """The next fetch of ``partitions`` (those ready to fetch, in the order to read them),
        and the session as it will be once the leader has it (Kafka's ``Builder.build``)."""
        next_: dict[TopicPartition, P] = {(p.topic, p.partition): p for p in partitions}
        can_use_topic_ids = all(_has_topic_id(p) for p in partitions)
        metadata = self.next_metadata
        if metadata.is_full:
            self.session_partitions = next_
            return SessionFetch(list(next_.values()), [], [], dict(next_), metadata,
                                can_use_topic_ids)
        removed: list[P] = []
        replaced: list[P] = []
        session = self.session_partitions
        for tp, previous in list(session.items()):
            current = next_.pop(tp, None)
            if current is None:
                del session[tp]
                removed.append(previous)
                if not _has_topic_id(previous):
                    can_use_topic_ids = False
                continue
            if current is previous or current == previous:
                continue
            # changed: sent again, at the end of what this fetch names
            next_[tp] = current
            session[tp] = current
            if (_has_topic_id(previous) and _has_topic_id(current)
                    and previous.topic_id != current.topic_id):
                replaced.append(previous)
        # what is left of next_ before the changed ones: partitions new to the session
        for tp, p in next_.items():
            if tp in session:
                break
            session[tp] = p
        return SessionFetch(list(next_.values()), removed, replaced, dict(session), metadata,
                            can_use_topic_ids)

    def handle_response(self, error: ErrorCode, session_id: int,
                        partitions: Collection[TopicPartition], unresolved_ids: int = 0,
                        ) -> bool:
        """Check an answer (its top-level error, session id, the partitions it names and how
        many topic ids in it the session cannot name) and move the session on. Returns
        whether the answer can be used (Kafka's ``handleResponse``)."""
        metadata = self.next_metadata
        if error != ErrorCode.NONE:
            log.info("Node %d was unable to process the fetch request with (sessionId=%d, "
                     "epoch=%d): %s", self.node_id, metadata.session_id, metadata.epoch,
                     error.name)
            self.next_metadata = (INITIAL if error == ErrorCode.FETCH_SESSION_ID_NOT_FOUND
                                  else metadata.next_close_existing_attempt_new())
            return False
        extra = [tp for tp in partitions if tp not in self.session_partitions]
        if metadata.is_full:
            omitted = [tp for tp in self.session_partitions if tp not in partitions]
            if extra or omitted or unresolved_ids:
                log.info("Node %d sent an invalid full fetch response with omitted "
                         "partitions %s, extra partitions %s, %d unknown topic ids",
                         self.node_id, omitted, extra, unresolved_ids)
                self.next_metadata = INITIAL
                return False
            self.next_metadata = (INITIAL if session_id == INVALID_SESSION_ID
                                  else FetchMetadata(session_id, next_epoch(INITIAL_EPOCH)))
            return True
        if extra or unresolved_ids:
            log.info("Node %d sent an invalid incremental fetch response with extra partitions "
                     "%s, %d unknown topic ids", self.node_id, extra, unresolved_ids)
            self.next_metadata = metadata.next_close_existing_attempt_new()
            return False
        self.next_metadata = (INITIAL if session_id == INVALID_SESSION_ID
                              else metadata.next_incremental())
        return True

    def handle_error(self) -> None:
        """The fetch failed or its connection was lost: the next one is full, closing this
        session and asking for a new one."""
        self.next_metadata = self.next_metadata.next_close_existing_attempt_new()
