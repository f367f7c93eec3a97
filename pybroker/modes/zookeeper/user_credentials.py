"""Users' SCRAM credentials in ZooKeeper mode: their config entities under
``/config/users/<user>``, and the credential cache authentication reads.

What DescribeUserScramCredentials and AlterUserScramCredentials answer is decided by
:mod:`pybroker.security.credentials` (Kafka's rules); this service reads and writes ZooKeeper.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping, Sequence
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

#: the config entity type of users (ZooKeeper's /config/users)
CONFIG_USERS = "users"
UNKNOWN_SERVER_ERROR = -1


class ZkUserConfigs(Protocol):
    """What :class:`ZkUserCredentials` needs of ZooKeeper (``KafkaZkClient``)."""

    async def get_entity_configs(self, entity_type: str, name: str) -> dict[str, str]: ...

    async def get_all_entity_configs(self, entity_type: str) -> dict[str, dict[str, str]]: ...

    async def set_user_config(self, sanitized_user: str, configs: Mapping[str, str]) -> None: ...


class ZkUserCredentials:
    """A ZooKeeper-mode broker's users: their config entities under ``/config/users/<user>``
    (the name sanitized, as Kafka's ``Sanitizer`` does), read at start-up and again when a
    ``/config/changes`` notification names one (:meth:`user_changed`), so every broker
    authenticates with the same credentials. Describing answers from what this broker knows;
    altering reads the entities, writes them and notifies, as Kafka's ZkAdminManager does
    (only the controller alters; the handler answers NOT_CONTROLLER elsewhere)."""

    def __init__(self, zk: ZkUserConfigs, cache: CredentialCache,
                 sanitize: Callable[[str], str], desanitize: Callable[[str], str]) -> None:
        self.zk = zk
        self.cache = cache
        self.sanitize = sanitize
        self.desanitize = desanitize

    async def load(self) -> None:
        for name, configs in (await self.zk.get_all_entity_configs(CONFIG_USERS)).items():
            self.cache.set_user(self.desanitize(name), configs)

    def user_changed(self, sanitized: str, configs: dict[str, str]) -> None:
        self.cache.set_user(self.desanitize(sanitized), configs)

    def describe(self, users: Sequence[str] | None) -> list[UserResult]:
        return describe_credentials(users, self.cache.users())

    def alter(self, upsertions: Sequence[Upsertion], deletions: Sequence[Deletion],
              ) -> asyncio.Future[list[UserResult]]:
        return asyncio.ensure_future(self._alter(upsertions, deletions))

    async def _alter(self, upsertions: Sequence[Upsertion],
                     deletions: Sequence[Deletion]) -> list[UserResult]:
        names = {u.name for u in upsertions} | {d.name for d in deletions}
        names.discard("")
        entities = {n: await self.zk.get_entity_configs(CONFIG_USERS, self.sanitize(n))
                    for n in sorted(names)}
        plan = plan_alterations(upsertions, deletions, lambda user: entities.get(user, {}))
        failed: dict[str, str] = {}
        for user, configs in plan.new_configs.items():
            try:
                await self.zk.set_user_config(self.sanitize(user), configs)
            except Exception as e:  # Kafka reports a failed write per user
                log.info("could not write the SCRAM credentials of %s: %s", user, e)
                failed[user] = str(e) or type(e).__name__
                continue
            self.cache.set_user(user, configs)
        return [UserResult(r.user, UNKNOWN_SERVER_ERROR, failed[r.user])
                if r.user in failed and r.error_code == 0 else r for r in plan.results]
