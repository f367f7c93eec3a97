"""The single node's ACL store: Kafka's ACL documents in the local metadata store."""

from __future__ import annotations

from pybroker.metadata.local import LocalMetadataStore
from pybroker.security import acl_json
from pybroker.security.acl import AccessControlEntry, ResourcePattern
from pybroker.security.authorizer import AclChanges, AclUpdates


class LocalAclStore:
    """Writes each changed pattern's document at its ZooKeeper path, all in one durable write."""

    def __init__(self, store: LocalMetadataStore) -> None:
        self.store = store

    def load(self) -> dict[ResourcePattern, frozenset[AccessControlEntry]]:
        return {acl_json.pattern_from_path(path): acl_json.entries_from_json(doc)
                for path, doc in self.store.image.acls.items()}

    def write(self, changes: AclChanges) -> AclUpdates:
        acls = self.store.image.acls
        stored: AclUpdates = {}
        for pattern, change in changes.items():
            doc = acls.get(acl_json.pattern_path(pattern))
            current = acl_json.entries_from_json(doc) if doc is not None else frozenset()
            stored[pattern] = change.applied_to(current)
        self.store.set_acls({
            acl_json.pattern_path(pattern): acl_json.entries_to_json(entries) if entries else None
            for pattern, entries in stored.items()})
        return stored
