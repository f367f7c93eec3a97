"""The ACL service handlers use: authorization checks on a request's principal and host, and
the ACL administration of CreateAcls, DescribeAcls and DeleteAcls over a durable store.

Without an authorizer (``authorizer.class.name`` empty, Kafka's default) every check allows and
the ACL APIs answer SECURITY_DISABLED. With one, the checks are :class:`AclAuthorizer`'s and
each change is written to the :class:`AclStore` (``/kafka-acl`` in the znode tree: ZooKeeper,
or the embedded node's file) before the cache takes it over.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from pybroker.kernel.outcome import Outcome
from pybroker.security.acl import (
    CLUSTER_NAME,
    SUPPORTED_OPERATIONS,
    AclBinding,
    AclBindingFilter,
    AclOperation,
    ResourcePattern,
    ResourceType,
)
from pybroker.security.authorizer import (
    AUTHORIZER_CLASSES,
    AclAuthorizer,
    AclChange,
    AclChanges,
    AclError,
    AclUpdates,
    host_of,
    parse_super_users,
)
from pybroker.security.principal import KafkaPrincipal

if TYPE_CHECKING:
    from pybroker.config import BrokerConfig

T = TypeVar("T")


class RequestIdentity(Protocol):
    """Who sent a request, as a handler's context knows it."""

    @property
    def principal(self) -> KafkaPrincipal: ...

    @property
    def peer(self) -> str: ...


class AclStore(Protocol):
    """Where ACLs are kept. ``write`` applies each pattern's change to what the store holds
    (a pattern left without ACLs is deleted) and returns, once durable, the entries the cache
    is to take over (those it stored; none when the store hands them to the cache itself), or
    an awaitable of them."""

    def write(self, changes: AclChanges) -> AclUpdates | Awaitable[AclUpdates]: ...


class AclService:
    """Authorization and ACL administration for the handlers (``BrokerServices.acls``)."""

    def __init__(self, authorizer: AclAuthorizer | None = None,
                 store: AclStore | None = None) -> None:
        self.authorizer = authorizer
        self.store = store
        #: the last change still being stored; the next one waits for it
        self._tail: asyncio.Future[Any] | None = None

    @property
    def enabled(self) -> bool:
        return self.authorizer is not None

    # -- checks --------------------------------------------------------------------------------

    def authorize(self, ctx: RequestIdentity, operation: AclOperation,
                  resource_type: ResourceType, name: str) -> bool:
        if self.authorizer is None:
            return True
        return self.authorizer.authorize(ctx.principal, host_of(ctx.peer), operation,
                                         resource_type, name)

    def authorize_cluster(self, ctx: RequestIdentity, operation: AclOperation) -> bool:
        return self.authorize(ctx, operation, ResourceType.CLUSTER, CLUSTER_NAME)

    def authorized(self, ctx: RequestIdentity, operation: AclOperation,
                   resource_type: ResourceType, names: Iterable[str]) -> set[str]:
        """The names among ``names`` the request may do ``operation`` on (Kafka's
        ``filterByAuthorized``)."""
        if self.authorizer is None:
            return set(names)
        host = host_of(ctx.peer)
        return {n for n in set(names)
                if self.authorizer.authorize(ctx.principal, host, operation, resource_type, n)}

    def authorize_by_resource_type(self, ctx: RequestIdentity, operation: AclOperation,
                                   resource_type: ResourceType) -> bool:
        if self.authorizer is None:
            return True
        return self.authorizer.authorize_by_resource_type(ctx.principal, host_of(ctx.peer),
                                                          operation, resource_type)

    def authorized_operations(self, ctx: RequestIdentity, resource_type: ResourceType,
                              name: str, operations: Iterable[AclOperation] | None = None,
                              ) -> int:
        """The operations of the resource's type the request may do, as a bit field of their
        codes (Kafka's ``authorizedOperations``; without an authorizer, all of them).
        ``operations`` replaces Kafka 3.9's list for the type (Kafka 4's groups add the
        config operations of KIP-848's group configs)."""
        ops = SUPPORTED_OPERATIONS[resource_type] if operations is None else operations
        return sum(1 << op.value for op in ops if self.authorize(ctx, op, resource_type, name))

    # -- administration ------------------------------------------------------------------------

    def describe(self, binding_filter: AclBindingFilter) -> list[AclBinding]:
        assert self.authorizer is not None
        return self.authorizer.acls(binding_filter)

    def create(self, bindings: list[AclBinding],
               ) -> Outcome[list[AclError | None]]:
        authorizer = self._require()
        return self._change(lambda: authorizer.plan_create(bindings))

    def delete(self, filters: list[AclBindingFilter],
               ) -> Outcome[list[list[AclBinding]]]:
        """A store shared with other brokers is read again for the patterns the filters may
        touch first, so that a filter deletes what others added there too (Kafka applies the
        filters to what it reads from ZooKeeper)."""
        authorizer = self._require()
        refresh: Callable[[list[ResourcePattern]], Awaitable[None]] | None = getattr(
            self.store, "refresh", None)
        prepare = None
        if refresh is not None:
            def prepare() -> Awaitable[None]:
                return refresh(authorizer.delete_candidates(filters))
        return self._change(lambda: authorizer.plan_delete(filters), prepare)

    def _require(self) -> AclAuthorizer:
        if self.authorizer is None or self.store is None:
            raise RuntimeError("ACL administration without an authorizer")
        return self.authorizer

    def _change(self, plan: Callable[[], tuple[T, AclUpdates]],
                prepare: Callable[[], Awaitable[None]] | None = None,
                ) -> Outcome[T]:
        """Plan on the cache (after ``prepare``), store, then take over what the store holds.
        Changes that must wait for the store run one at a time, each planned on the ACLs its
        predecessor left."""
        previous = self._tail
        if prepare is not None:
            future = asyncio.ensure_future(self._after(previous, plan, prepare))
        elif previous is None or previous.done():
            result, updates = plan()
            written = self._write(updates)
            if written is None:
                return result
            future = asyncio.ensure_future(self._finish(written, result))
        else:
            future = asyncio.ensure_future(self._after(previous, plan))
        self._tail = future
        return future

    def _write(self, updates: AclUpdates) -> Awaitable[AclUpdates] | None:
        """None once stored and taken over; else what to await for it."""
        assert self.authorizer is not None and self.store is not None
        if not updates:
            return None
        changes: AclChanges = {}
        for pattern, entries in updates.items():
            current = self.authorizer.entries(pattern)
            changes[pattern] = AclChange(entries - current, current - entries)
        stored = self.store.write(changes)
        if isinstance(stored, dict):
            self.authorizer.apply(stored)
            return None
        return stored

    async def _finish(self, written: Awaitable[AclUpdates], result: T) -> T:
        stored = await written
        assert self.authorizer is not None
        self.authorizer.apply(stored)
        return result

    async def _after(self, previous: asyncio.Future[Any] | None,
                     plan: Callable[[], tuple[T, AclUpdates]],
                     prepare: Callable[[], Awaitable[None]] | None = None) -> T:
        if previous is not None:
            await asyncio.wait([previous])
        if prepare is not None:
            await prepare()
        result, updates = plan()
        written = self._write(updates)
        if written is not None:
            await self._finish(written, result)
        return result


def authorizer_from_config(config: BrokerConfig) -> AclAuthorizer | None:
    """The authorizer ``authorizer.class.name`` names (None when it is empty), with
    ``super.users`` and ``allow.everyone.if.no.acl.found``; ValueError for a class this
    broker does not have."""
    class_name = (config.get("authorizer.class.name") or "").strip()
    if not class_name:
        return None
    if class_name not in AUTHORIZER_CLASSES:
        raise ValueError(f"authorizer.class.name={class_name}: the authorizers this broker has "
                         f"are {', '.join(sorted(AUTHORIZER_CLASSES))}")
    return AclAuthorizer(parse_super_users(str(config.value("super.users") or "")),
                         bool(config.value("allow.everyone.if.no.acl.found")))
