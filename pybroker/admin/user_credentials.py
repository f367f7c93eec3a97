"""Users' SCRAM credentials: on the embedded node kept in the metadata store (as ZooKeeper's
``/config/users/<user>`` would keep them), and in the credential cache authentication reads.
ZooKeeper mode keeps them under ``/config/users``
(:mod:`pybroker.modes.zookeeper.user_credentials`).

What DescribeUserScramCredentials and AlterUserScramCredentials answer is decided by
:mod:`pybroker.security.credentials` (Kafka's rules); this service reads and writes the store.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Protocol

from pybroker.security.credentials import (
    CredentialCache,
    Deletion,
    Upsertion,
    UserResult,
    describe_credentials,
    plan_alterations,
)

log = logging.getLogger(__name__)


class UserConfigStore(Protocol):
    def set_user_configs(self, user: str, configs: dict[str, str]) -> None: ...


class LocalUserCredentials:
    """The embedded node's users: their config entities and the cache fed from them."""

    def __init__(self, store: UserConfigStore, user_configs: Mapping[str, Mapping[str, str]],
                 cache: CredentialCache) -> None:
        self.store = store
        self.cache = cache
        self._entities: dict[str, dict[str, str]] = {u: dict(c) for u, c in user_configs.items()}
        for user, configs in self._entities.items():
            cache.set_user(user, configs)

    def describe(self, users: Sequence[str] | None) -> list[UserResult]:
        return describe_credentials(users, self.cache.users())

    def alter(self, upsertions: Sequence[Upsertion],
              deletions: Sequence[Deletion]) -> list[UserResult]:
        plan = plan_alterations(upsertions, deletions,
                                lambda user: self._entities.get(user, {}))
        for user, configs in plan.new_configs.items():
            self.store.set_user_configs(user, configs)
            if configs:
                self._entities[user] = configs
            else:
                self._entities.pop(user, None)
            self.cache.set_user(user, configs)
        return plan.results
