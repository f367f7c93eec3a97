"""What every part of the group coordinator shares: its state, request validation, the
delivery of parked answers, and the timer keys.

:class:`CoordinatorCore` is the base of the phase mixins (:mod:`.join`, :mod:`.sync`,
:mod:`.membership`, :mod:`.group_apis`) that :class:`~.coordinator.GroupCoordinator` puts
together; it holds no protocol logic of its own.

Concurrency notes
-----------------
The coordinator runs on the broker's event loop and never awaits, so each entry point (a
request handler or a timer) runs to completion before the next starts; there are no locks.
What needs care is re-entry: a ``respond`` callback may call straight back into the
coordinator. So answers are never called where they are decided: :meth:`_deliver` queues them
and the outermost entry point (methods wrapped in :func:`entry_point`, timers made by
:meth:`_timer`) delivers the queue when it returns, once the group is consistent again.

Owns: the outbox and the entry depth. Declares, for the mixins, the state that
``GroupCoordinator.__init__`` sets (groups, config, store, scheduler); the mixins read and
change it only from inside an entry point. Declares too, for the type checker only, the
methods one mixin calls in another.
"""

from __future__ import annotations

import functools
import itertools
import logging
from collections import deque
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec, Protocol, TypeVar

from protocol.errors import ErrorCode
from pybroker.kernel.outcome import Outcome, is_pending, when_settled

from .group import ClassicGroup, JoinGroupResult, SyncGroupResult
from .member import MemberMetadata, Responder
from .timers import Scheduler

if TYPE_CHECKING:
    from .coordinator import GroupConfig, GroupStore

log = logging.getLogger(__name__)

E = ErrorCode

_C = TypeVar("_C", bound="CoordinatorCore")
_P = ParamSpec("_P")
_R = TypeVar("_R")


def entry_point(fn: Callable[Concatenate[_C, _P], _R]) -> Callable[Concatenate[_C, _P], _R]:
    """Deliver queued answers when the outermost coordinator call returns."""

    @functools.wraps(fn)
    def wrapper(self: _C, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        self._depth += 1
        try:
            return fn(self, *args, **kwargs)
        finally:
            self._depth -= 1
            if self._depth == 0:
                self._flush()

    return wrapper


class MixedGroups(Protocol):
    """The consumer groups (KIP-848) classic members may belong to: a classic JoinGroup for
    the id of a consumer group with members joins it, and that member's SyncGroup, Heartbeat
    and LeaveGroup are the consumer group's (Kafka's ``classicGroup*ToConsumerGroup``)."""

    def has_members(self, group_id: str) -> bool: ...

    def serves(self, group_id: str) -> bool: ...

    def classic_join(self, request: Any, now_ms: int) -> Outcome[Any]: ...

    def classic_sync(self, request: Any, now_ms: int) -> Any: ...

    def classic_heartbeat(self, group_id: str, member_id: str, instance_id: str | None,
                          generation_id: int, now_ms: int) -> ErrorCode: ...

    def classic_leave(self, group_id: str, members: Sequence[Any], now_ms: int,
                      ) -> Outcome[Any]: ...


class CoordinatorCore:
    """The shared state and plumbing of :class:`~.coordinator.GroupCoordinator`."""

    config: GroupConfig
    store: GroupStore
    scheduler: Scheduler
    _is_coordinator_for: Callable[[str], bool]
    _is_loading: Callable[[str | None], bool]
    _new_member_id: Callable[[str], str]
    _groups: dict[str, ClassicGroup]
    foreign_group: Callable[[str, int], ErrorCode]
    mixed: MixedGroups | None
    completed_rebalances: int
    _active: bool
    _depth: int
    _outbox: deque[tuple[Responder, Any]]
    #: numbers the continuations of group writes waiting for their replication
    _stores: itertools.count[int]

    if TYPE_CHECKING:
        # What one part calls in another: GroupCoordinator inherits them all, and mypy checks
        # each definition against the signature declared here.

        # membership.py
        def _schedule_heartbeat(self, group: ClassicGroup, member: MemberMetadata, now_ms: int,
                                timeout_ms: int | None = None) -> None: ...

        def _drop_member(self, group: ClassicGroup, member_id: str) -> None: ...

        def _on_pending_member_expired(self, group: ClassicGroup, member_id: str,
                                       now_ms: int) -> None: ...

        # join.py
        def _maybe_prepare_rebalance(self, group: ClassicGroup, reason: str,
                                     now_ms: int) -> None: ...

        def _prepare_rebalance(self, group: ClassicGroup, reason: str, now_ms: int) -> None: ...

        def _try_complete_join(self, group: ClassicGroup, now_ms: int) -> None: ...

        # sync.py
        def _reset_and_propagate_assignment_error(self, group: ClassicGroup, error: ErrorCode,
                                                  now_ms: int) -> None: ...

        def _remove_sync_expiration(self, group: ClassicGroup) -> None: ...

        def _schedule_pending_sync(self, group: ClassicGroup, now_ms: int) -> None: ...

        # coordinator.py
        def _forget(self, group: ClassicGroup, now_ms: int) -> None: ...

    # -- validation ----------------------------------------------------------------------------

    def _validate_group_status(self, group_id: str | None, *,
                               allow_empty_id: bool) -> ErrorCode | None:
        # OffsetCommit/Fetch, DescribeGroups and DeleteGroups accept the empty group id, for
        # compatibility; the group-management APIs need a real one.
        if group_id is None or (group_id == "" and not allow_empty_id):
            return E.INVALID_GROUP_ID
        if not self._active:
            return E.COORDINATOR_NOT_AVAILABLE
        if self._is_loading(group_id):
            return E.COORDINATOR_LOAD_IN_PROGRESS
        if not self._is_coordinator_for(group_id):
            return E.NOT_COORDINATOR
        return None

    @staticmethod
    def _validate_current_member(group: ClassicGroup, member_id: str,
                                 group_instance_id: str | None) -> ErrorCode | None:
        """A given instance id must map to ``member_id`` (else FENCED_INSTANCE_ID, or
        UNKNOWN_MEMBER_ID if unknown), and the member must exist."""
        if group_instance_id is not None:
            current = group.static_member_id(group_instance_id)
            if current is None:
                return E.UNKNOWN_MEMBER_ID
            if current != member_id:
                return E.FENCED_INSTANCE_ID
        if member_id not in group:
            return E.UNKNOWN_MEMBER_ID
        return None

    # -- answers -------------------------------------------------------------------------------

    def _answer_join(self, group: ClassicGroup, member: MemberMetadata,
                     result: JoinGroupResult) -> bool:
        respond = group.take_join_responder(member)
        if respond is None:
            return False
        self._deliver(respond, result)
        return True

    def _answer_sync(self, member: MemberMetadata, result: SyncGroupResult) -> bool:
        respond = ClassicGroup.take_sync_responder(member)
        if respond is None:
            return False
        self._deliver(respond, result)
        return True

    def _deliver(self, respond: Responder, result: Any) -> None:
        self._outbox.append((respond, result))

    def _deliver_outcome(self, respond: Responder, outcome: Outcome[Any]) -> None:
        """Deliver ``outcome`` now, or when it settles (a consumer group's write)."""
        if is_pending(outcome):
            outcome.add_done_callback(
                lambda fut: respond(fut.result()) if not fut.cancelled() else None)
        else:
            self._deliver(respond, outcome)

    def _flush(self) -> None:
        while self._outbox:
            respond, result = self._outbox.popleft()
            try:
                respond(result)
            except Exception:
                log.exception("delivering %r failed", result)

    def _after_store(self, group: ClassicGroup, outcome: Outcome[ErrorCode],
                     then: Callable[[ErrorCode, int], None], now_ms: int) -> None:
        """Go on with ``then(error, now_ms)`` once the group's record is stored: at once when
        the store answered at once (the ISR is the leader alone), else when the ISR has it,
        as a coordinator entry point with that moment's time (Kafka's ``storeGroup``
        callback)."""
        if not is_pending(outcome):
            then(outcome, now_ms)
            return
        key = ("stored", group.group_id, next(self._stores))

        def stored(error: ErrorCode) -> None:
            self.scheduler.schedule(key, 0, self._timer(then, error))

        when_settled(outcome, stored, lambda _error: stored(E.UNKNOWN_SERVER_ERROR))

    def _timer(self, fn: Callable[..., None], *args: Any) -> Callable[[int], None]:
        """A timer callback that runs ``fn(*args, now_ms)`` as a coordinator entry point."""

        def fire(now_ms: int) -> None:
            self._depth += 1
            try:
                fn(*args, now_ms)
            finally:
                self._depth -= 1
                if self._depth == 0:
                    self._flush()

        return fire


def heartbeat_key(group: ClassicGroup, member_id: str) -> tuple[str, str, str]:
    return ("heartbeat", group.group_id, member_id)


def pending_key(group: ClassicGroup, member_id: str) -> tuple[str, str, str]:
    return ("pending", group.group_id, member_id)


def join_key(group: ClassicGroup) -> tuple[str, str]:
    return ("join", group.group_id)


def sync_key(group: ClassicGroup) -> tuple[str, str]:
    return ("sync", group.group_id)
