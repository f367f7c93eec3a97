"""AclService: checks without an authorizer, and changes stored as what they add and remove to
what the store holds, one at a time when the store answers later."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from pybroker.security.acl import (
    ANY_BINDING,
    AccessControlEntry,
    AclBinding,
    AclOperation,
    AclPermissionType,
    PatternType,
    ResourcePattern,
    ResourceType,
)
from pybroker.security.authorizer import AclAuthorizer, AclChanges, AclUpdates
from pybroker.security.principal import ANONYMOUS, KafkaPrincipal
from pybroker.security.service import AclService

ORDERS = ResourcePattern(ResourceType.TOPIC, "orders", PatternType.LITERAL)


def entry(principal: str, op: AclOperation = AclOperation.READ) -> AccessControlEntry:
    return AccessControlEntry(principal, "*", op, AclPermissionType.ALLOW)


@dataclass
class Ctx:
    principal: KafkaPrincipal = ANONYMOUS
    peer: str = "127.0.0.1:5000"


class SharedStore:
    """A store another broker writes too: ``truth`` is what it holds."""

    def __init__(self, later: bool) -> None:
        self.truth: dict[ResourcePattern, frozenset[AccessControlEntry]] = {}
        self.later = later
        self.writes: list[AclChanges] = []

    def write(self, changes: AclChanges) -> AclUpdates | asyncio.Future[AclUpdates]:
        self.writes.append(changes)
        stored = {p: c.applied_to(self.truth.get(p, frozenset())) for p, c in changes.items()}
        self.truth.update(stored)
        if not self.later:
            return stored
        future: asyncio.Future[AclUpdates] = asyncio.get_running_loop().create_future()
        asyncio.get_running_loop().call_later(0.01, future.set_result, stored)
        return future


def test_without_an_authorizer_everything_is_allowed():
    service = AclService()
    assert not service.enabled
    assert service.authorize(Ctx(), AclOperation.ALTER, ResourceType.CLUSTER, "kafka-cluster")
    assert service.authorized(Ctx(), AclOperation.READ, ResourceType.TOPIC, ["a", "b"]) == {
        "a", "b"}
    assert service.authorized_operations(Ctx(), ResourceType.GROUP, "g") == (
        (1 << 3) | (1 << 6) | (1 << 8))


def test_a_change_keeps_what_another_broker_stored_meanwhile():
    store = SharedStore(later=False)
    service = AclService(AclAuthorizer(), store)
    store.truth[ORDERS] = frozenset({entry("User:bob")})  # written elsewhere, not yet seen
    assert service.create([AclBinding(ORDERS, entry("User:alice"))]) == [None]
    assert store.truth[ORDERS] == {entry("User:bob"), entry("User:alice")}
    # the cache took over what the store holds
    assert set(service.describe(ANY_BINDING)) == {AclBinding(ORDERS, entry("User:bob")),
                                                  AclBinding(ORDERS, entry("User:alice"))}


def test_changes_that_wait_for_the_store_run_one_at_a_time():
    async def scenario() -> None:
        store = SharedStore(later=True)
        service = AclService(AclAuthorizer(), store)
        first = service.create([AclBinding(ORDERS, entry("User:a"))])
        second = service.create([AclBinding(ORDERS, entry("User:b"))])
        assert isinstance(first, asyncio.Future) and isinstance(second, asyncio.Future)
        assert await first == [None] and await second == [None]
        # the second was planned on what the first left: it adds only its own entry
        assert [c[ORDERS].add for c in store.writes] == [{entry("User:a")}, {entry("User:b")}]
        deleted = service.delete([ANY_BINDING])
        assert isinstance(deleted, asyncio.Future)
        assert len((await deleted)[0]) == 2
        assert store.truth[ORDERS] == frozenset()
        assert service.describe(ANY_BINDING) == []

    asyncio.run(scenario())
