"""Kafka's ``AclAuthorizer`` as pure logic: the ACL cache, the decisions, and what CreateAcls
and DeleteAcls change.

A request is allowed when its principal is a super user, or when the ACLs that apply to the
resource (its literal ones, the wildcard ``*`` ones of its type, and every prefixed one whose
name starts the resource's) are empty and ``allow.everyone.if.no.acl.found`` is set, or when no
DENY entry matches and an ALLOW entry does. An entry matches a principal that is its own or
``User:*``, a host that is its own or ``*``, and an operation that is its own or ALL; DESCRIBE
is allowed by an ALLOW of READ, WRITE, DELETE or ALTER too, and DESCRIBE_CONFIGS by one of
ALTER_CONFIGS (denials are never implied). Note that ``allow.everyone.if.no.acl.found`` looks at
every ACL of the resource, whoever it names.

Changes are planned here (:meth:`AclAuthorizer.plan_create`, :meth:`AclAuthorizer.plan_delete`)
as the new entry sets of the patterns they touch; the store (the znode tree: ZooKeeper, or the
embedded node's file) applies what they add and remove to what it holds, and the sets it stored are
taken over by the cache with :meth:`AclAuthorizer.apply`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from protocol.errors import ErrorCode
from pybroker.security.acl import (
    WILDCARD_HOST,
    WILDCARD_PRINCIPAL,
    WILDCARD_RESOURCE,
    AccessControlEntry,
    AclBinding,
    AclBindingFilter,
    AclOperation,
    AclPermissionType,
    PatternType,
    ResourcePattern,
    ResourceType,
    check_binding,
)
from pybroker.security.principal import KafkaPrincipal

#: authorizer.class.name values that turn ACLs on (Kafka 3.9's ZooKeeper-mode authorizer)
ACL_AUTHORIZER = "kafka.security.authorizer.AclAuthorizer"
AUTHORIZER_CLASSES = frozenset({ACL_AUTHORIZER})

#: an ALLOW of any of these operations allows the key (Kafka's implied operations)
IMPLIED_BY: dict[AclOperation, frozenset[AclOperation]] = {
    AclOperation.DESCRIBE: frozenset({AclOperation.DESCRIBE, AclOperation.READ,
                                      AclOperation.WRITE, AclOperation.DELETE,
                                      AclOperation.ALTER}),
    AclOperation.DESCRIBE_CONFIGS: frozenset({AclOperation.DESCRIBE_CONFIGS,
                                              AclOperation.ALTER_CONFIGS}),
}

#: Patterns -> their entries; an empty set means the pattern has no ACLs left
AclUpdates = dict[ResourcePattern, frozenset[AccessControlEntry]]


@dataclass(frozen=True, slots=True)
class AclChange:
    """What a change does to one pattern's ACLs, applied by the store to what it holds (which
    another broker may have changed since this one's cache saw it)."""

    add: frozenset[AccessControlEntry] = frozenset()
    remove: frozenset[AccessControlEntry] = frozenset()

    def applied_to(self, current: frozenset[AccessControlEntry],
                   ) -> frozenset[AccessControlEntry]:
        return (current | self.add) - self.remove


AclChanges = dict[ResourcePattern, AclChange]


@dataclass(frozen=True, slots=True)
class AclError:
    """An error of one ACL creation or deletion (Kafka's ApiError: code and message)."""

    code: ErrorCode
    message: str | None


def parse_super_users(text: str) -> frozenset[KafkaPrincipal]:
    """``super.users``: principals separated by semicolons (``User:admin;User:broker``)."""
    return frozenset(KafkaPrincipal.parse(p.strip()) for p in text.split(";") if p.strip())


def host_of(peer: str) -> str:
    """The client's address from a connection's ``host:port`` peer."""
    host, sep, _port = peer.rpartition(":")
    return host if sep else peer


def _principal_matches(acl_principal: str, principal: KafkaPrincipal) -> bool:
    if acl_principal == WILDCARD_PRINCIPAL:
        return True
    try:
        return KafkaPrincipal.parse(acl_principal) == principal
    except ValueError:
        return False


def _entry_matches(entry: AccessControlEntry, principal: KafkaPrincipal, host: str,
                   operation: AclOperation, permission: AclPermissionType) -> bool:
    return (entry.permission_type is permission
            and _principal_matches(entry.principal, principal)
            and (entry.operation is operation or entry.operation is AclOperation.ALL)
            and (entry.host == host or entry.host == WILDCARD_HOST))


class AclAuthorizer:
    """The ACLs every broker holds, and Kafka's decisions on them."""

    def __init__(self, super_users: frozenset[KafkaPrincipal] = frozenset(),
                 allow_everyone_if_no_acl_found: bool = False) -> None:
        self.super_users = super_users
        self.allow_everyone_if_no_acl_found = allow_everyone_if_no_acl_found
        self._acls: dict[ResourcePattern, frozenset[AccessControlEntry]] = {}
        #: resource type -> prefix -> entries: the prefixed patterns, for matching_acls
        self._prefixed: dict[ResourceType, dict[str, frozenset[AccessControlEntry]]] = {}

    # -- the cache -----------------------------------------------------------------------------

    def load(self, acls: Mapping[ResourcePattern, Iterable[AccessControlEntry]]) -> None:
        self._acls.clear()
        self._prefixed.clear()
        self.apply({p: frozenset(e) for p, e in acls.items()})

    def apply(self, updates: Mapping[ResourcePattern, frozenset[AccessControlEntry]]) -> None:
        """Take over stored changes: each pattern's entries replaced (removed when empty)."""
        for pattern, entries in updates.items():
            if entries:
                self._acls[pattern] = entries
            else:
                self._acls.pop(pattern, None)
            if pattern.pattern_type is PatternType.PREFIXED:
                by_name = self._prefixed.setdefault(pattern.resource_type, {})
                if entries:
                    by_name[pattern.name] = entries
                else:
                    by_name.pop(pattern.name, None)

    def entries(self, pattern: ResourcePattern) -> frozenset[AccessControlEntry]:
        return self._acls.get(pattern, frozenset())

    @property
    def patterns(self) -> dict[ResourcePattern, frozenset[AccessControlEntry]]:
        return dict(self._acls)

    # -- decisions -----------------------------------------------------------------------------

    def is_super_user(self, principal: KafkaPrincipal) -> bool:
        return principal in self.super_users

    def matching_acls(self, resource_type: ResourceType, name: str) -> list[AccessControlEntry]:
        """Every entry that applies to the resource: wildcard, literal, then prefixed ones."""
        out = list(self._acls.get(
            ResourcePattern(resource_type, WILDCARD_RESOURCE, PatternType.LITERAL), ()))
        out.extend(self._acls.get(ResourcePattern(resource_type, name, PatternType.LITERAL), ()))
        for prefix, entries in self._prefixed.get(resource_type, {}).items():
            if name.startswith(prefix):
                out.extend(entries)
        return out

    def authorize(self, principal: KafkaPrincipal, host: str, operation: AclOperation,
                  resource_type: ResourceType, name: str) -> bool:
        if self.is_super_user(principal):
            return True
        acls = self.matching_acls(resource_type, name)
        if not acls:
            return self.allow_everyone_if_no_acl_found
        if any(_entry_matches(e, principal, host, operation, AclPermissionType.DENY)
               for e in acls):
            return False
        allowing = IMPLIED_BY.get(operation, frozenset({operation}))
        return any(_entry_matches(e, principal, host, op, AclPermissionType.ALLOW)
                   for op in allowing for e in acls)

    def _names(self, principal: KafkaPrincipal, host: str, operation: AclOperation,
               permission: AclPermissionType, resource_type: ResourceType,
               pattern_type: PatternType) -> set[str]:
        return {p.name for p, entries in self._acls.items()
                if p.resource_type is resource_type and p.pattern_type is pattern_type
                and any(_entry_matches(e, principal, host, operation, permission)
                        for e in entries)}

    def authorize_by_resource_type(self, principal: KafkaPrincipal, host: str,
                                   operation: AclOperation, resource_type: ResourceType) -> bool:
        """Whether the principal may do ``operation`` on some resource of the type (Kafka's
        ``authorizeByResourceType``: an ALLOW on a literal or prefixed pattern that no DENY on
        the same name, on ``*`` or on a prefix of it overrides; implied operations do not
        count here)."""
        if self.is_super_user(principal):
            return True
        args = (principal, host, operation)
        deny_literals = self._names(*args, AclPermissionType.DENY, resource_type,
                                    PatternType.LITERAL)
        if WILDCARD_RESOURCE in deny_literals:
            return False
        if self.allow_everyone_if_no_acl_found:
            return True
        deny_prefixes = self._names(*args, AclPermissionType.DENY, resource_type,
                                    PatternType.PREFIXED)
        allow_literals = self._names(*args, AclPermissionType.ALLOW, resource_type,
                                     PatternType.LITERAL)
        allow_prefixes = self._names(*args, AclPermissionType.ALLOW, resource_type,
                                     PatternType.PREFIXED)
        if not deny_literals and not deny_prefixes:
            return bool(allow_literals or allow_prefixes)

        def dominant_deny(name: str) -> bool:
            return any(name[:i] in deny_prefixes for i in range(1, len(name) + 1))

        if any(not dominant_deny(p) for p in allow_prefixes):
            return True
        return any(lit == WILDCARD_RESOURCE
                   or (lit not in deny_literals and not dominant_deny(lit))
                   for lit in allow_literals)

    # -- ACL administration --------------------------------------------------------------------

    def acls(self, binding_filter: AclBindingFilter) -> list[AclBinding]:
        """The bindings a DescribeAcls filter selects."""
        return [b for pattern, entries in self._acls.items() for entry in entries
                if binding_filter.matches(b := AclBinding(pattern, entry))]

    def plan_create(self, bindings: list[AclBinding],
                    ) -> tuple[list[AclError | None], AclUpdates]:
        """Each binding's error (None: created) and the new entry sets of the patterns it
        adds to. A binding with UNKNOWN parts or a ``/`` in its name is refused with
        INVALID_REQUEST, as Kafka's authorizer refuses it; an unparsable principal fails every
        binding of its pattern."""
        results: list[AclError | None] = [None] * len(bindings)
        by_pattern: dict[ResourcePattern, list[int]] = {}
        for i, binding in enumerate(bindings):
            if binding.is_unknown or "/" in binding.pattern.name:
                results[i] = AclError(ErrorCode.INVALID_REQUEST, "Failed to create ACL")
                continue
            by_pattern.setdefault(binding.pattern, []).append(i)
        updates: AclUpdates = {}
        for pattern, indexes in by_pattern.items():
            try:
                for i in indexes:
                    KafkaPrincipal.parse(bindings[i].entry.principal)
                    check_binding(bindings[i])
            except ValueError:
                for i in indexes:
                    results[i] = AclError(ErrorCode.UNKNOWN_SERVER_ERROR, None)
                continue
            current = self._acls.get(pattern, frozenset())
            new = current | {bindings[i].entry for i in indexes}
            if new != current:
                updates[pattern] = new
        return results, updates

    def delete_candidates(self, filters: list[AclBindingFilter]) -> list[ResourcePattern]:
        """The patterns DeleteAcls filters may touch: those known with ACLs that a filter
        matches, and those a filter names exactly (Kafka's ``filterToResources``)."""
        candidates = list(self._acls)
        for f in filters:
            if f.pattern.matches_at_most_one:
                candidates.extend(p for p in f.pattern.specific_patterns()
                                  if p not in self._acls)
        return [p for p in dict.fromkeys(candidates)
                if any(f.pattern.matches(p) for f in filters)]

    def plan_delete(self, filters: list[AclBindingFilter],
                    ) -> tuple[list[list[AclBinding]], AclUpdates]:
        """The bindings each DeleteAcls filter deletes (a binding that several filters match
        counts for the first), and the new entry sets of the patterns they leave."""
        deleted: list[list[AclBinding]] = [[] for _ in filters]
        updates: AclUpdates = {}
        for pattern in self.delete_candidates(filters):
            matching = [(i, f) for i, f in enumerate(filters) if f.pattern.matches(pattern)]
            if not matching:
                continue
            current = self._acls.get(pattern, frozenset())
            removed: set[AccessControlEntry] = set()
            for entry in sorted(current, key=_entry_key):
                for i, f in matching:
                    if f.entry.matches(entry):
                        deleted[i].append(AclBinding(pattern, entry))
                        removed.add(entry)
                        break
            if removed:
                updates[pattern] = current - removed
        return deleted, updates


def _entry_key(entry: AccessControlEntry) -> tuple[str, str, int, int]:
    return (entry.principal, entry.host, entry.operation.value, entry.permission_type.value)
