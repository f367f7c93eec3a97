"""Client quotas in ZooKeeper mode: their config entities as Kafka 3.9 keeps them, and this
broker's quota managers fed from them.

- ``/config/users/<user>`` (beside the user's SCRAM credentials),
  ``/config/users/<user>/clients/<client-id>``, ``/config/clients/<client-id>`` and
  ``/config/ips/<ip>``; ``<default>`` stands for the default entity, other names are
  sanitized as Kafka's ``Sanitizer`` does;
- every change is announced by a ``/config/changes`` notification naming the entity
  (``users/alice/clients/app``), on which every broker reads the entity again;
- AlterClientQuotas writes them on whichever broker receives it (Kafka's
  ``ZkAdminManager.alterClientQuotas``), removing an emptied entity's znode as Kafka's
  ``tryCleanQuotaNodes`` does; DescribeClientQuotas reads ZooKeeper, not this broker's copy, so
  an answer right after an alteration on another broker already shows it.

The embedded single node runs the same code over its local znode tree.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Protocol

from pybroker.quota.entities import (
    DEFAULT,
    UNKNOWN_SERVER_ERROR,
    Default,
    Name,
    Op,
    QuotaEntity,
    QuotaError,
    QuotaFilter,
    apply_ops,
    describe,
)
from pybroker.quota.manager import QuotaManagers
from pybroker.zk.kafka_zk_base import ControllerMovedError

log = logging.getLogger(__name__)

USERS, CLIENTS, IPS = "users", "clients", "ips"
DEFAULT_NAME = "<default>"
NOT_CONTROLLER = 41


class ZkQuotaConfigs(Protocol):
    """What :class:`ZkClientQuotas` needs of ZooKeeper (``KafkaZkClient``)."""

    async def get_entity_configs(self, entity_type: str, name: str) -> dict[str, str]: ...

    async def get_all_entity_configs(self, entity_type: str) -> dict[str, dict[str, str]]: ...

    async def get_entity_children(self, entity_type: str, name: str) -> list[str]: ...

    async def delete_entity_config_path(self, entity_type: str, name: str) -> None: ...

    async def set_or_create_entity_configs(self, entity_type: str, name: str,
                                           configs: Mapping[str, str]) -> None: ...

    async def create_config_change_notification(self, entity_path: str) -> str: ...


class ZkClientQuotas:
    """The quota entities in ZooKeeper, and the managers that enforce them on this broker."""

    def __init__(self, zk: ZkQuotaConfigs, managers: QuotaManagers,
                 sanitize: Callable[[str], str], desanitize: Callable[[str], str]) -> None:
        self.zk = zk
        self.managers = managers
        self.sanitize = sanitize
        self.desanitize = desanitize

    # -- names ----------------------------------------------------------------------------------
    def _znode_name(self, name: Name) -> str:
        return DEFAULT_NAME if isinstance(name, Default) else self.sanitize(name)

    def _entity_name(self, znode_name: str) -> Name:
        return DEFAULT if znode_name == DEFAULT_NAME else self.desanitize(znode_name)

    def _path(self, entity: QuotaEntity) -> tuple[str, str]:
        """(entity type, sanitized name) of an entity's znode."""
        if entity.ip is not None:
            return IPS, self._znode_name(entity.ip)
        if entity.user is not None:
            user = self._znode_name(entity.user)
            if entity.client_id is not None:
                return USERS, f"{user}/{CLIENTS}/{self._znode_name(entity.client_id)}"
            return USERS, user
        assert entity.client_id is not None
        return CLIENTS, self._znode_name(entity.client_id)

    # -- reading -------------------------------------------------------------------------------
    async def entities(self) -> dict[QuotaEntity, dict[str, str]]:
        """Every quota entity in ZooKeeper with its configs (Kafka's ``fetchAllEntityConfigs``
        and ``fetchAllChildEntityConfigs``)."""
        out: dict[QuotaEntity, dict[str, str]] = {}
        for name, configs in (await self.zk.get_all_entity_configs(USERS)).items():
            user = self._entity_name(name)
            out[QuotaEntity(user=user)] = configs
            children = await self.zk.get_all_entity_configs(f"{USERS}/{name}/{CLIENTS}")
            for client, client_configs in children.items():
                out[QuotaEntity(user=user, client_id=self._entity_name(client))] = client_configs
        for name, configs in (await self.zk.get_all_entity_configs(CLIENTS)).items():
            out[QuotaEntity(client_id=self._entity_name(name))] = configs
        for name, configs in (await self.zk.get_all_entity_configs(IPS)).items():
            out[QuotaEntity(ip=self._entity_name(name))] = configs
        return out

    async def load(self) -> None:
        """Feed the managers every quota in ZooKeeper (at start-up)."""
        for entity, configs in (await self.entities()).items():
            if entity.ip is None:
                self.managers.entity_changed(entity.user, entity.client_id, configs)

    def user_changed(self, sanitized: str, configs: dict[str, str]) -> None:
        """``users/<user>`` or ``users/<user>/clients/<client-id>`` changed."""
        user, sep, client = sanitized.partition(f"/{CLIENTS}/")
        self.managers.entity_changed(self._entity_name(user),
                                     self._entity_name(client) if sep else None, configs)

    def client_changed(self, sanitized: str, configs: dict[str, str]) -> None:
        """``clients/<client-id>`` changed."""
        self.managers.entity_changed(None, self._entity_name(sanitized), configs)

    # -- DescribeClientQuotas, AlterClientQuotas -----------------------------------------------
    async def describe(self, quota_filter: QuotaFilter,
                       ) -> list[tuple[QuotaEntity, dict[str, float]]]:
        return describe(quota_filter, await self.entities())

    async def alter(self, entries: Sequence[tuple[QuotaEntity | QuotaError, Sequence[Op]]],
                    validate_only: bool) -> list[QuotaError | None]:
        """Each entry's outcome: None when it was applied (or, validating only, would be)."""
        out: list[QuotaError | None] = []
        for entity, ops in entries:
            if isinstance(entity, QuotaError):
                out.append(entity)
                continue
            try:
                await self._alter_one(entity, ops, validate_only)
            except QuotaError as e:
                out.append(e)
                continue
            except ControllerMovedError as e:  # no controller: Kafka refuses the write
                out.append(QuotaError(NOT_CONTROLLER, str(e)))
                continue
            except Exception as e:  # ZooKeeper unreachable: Kafka's ApiError, no message
                log.info("Error encountered while updating client quotas: %s", e)
                out.append(QuotaError(UNKNOWN_SERVER_ERROR, None))
                continue
            out.append(None)
        return out

    async def _alter_one(self, entity: QuotaEntity, ops: Sequence[Op],
                         validate_only: bool) -> None:
        entity_type, name = self._path(entity)
        current = await self.zk.get_entity_configs(entity_type, name)
        configs = apply_ops(entity, current, ops)
        if validate_only:
            return
        # Kafka's changeEntityConfig: an emptied entity's znode goes if nothing is under it
        if configs or not await self._clean(entity_type, name, entity):
            await self.zk.set_or_create_entity_configs(entity_type, name, configs)
        await self.zk.create_config_change_notification(f"{entity_type}/{name}")

    async def _clean(self, entity_type: str, name: str, entity: QuotaEntity) -> bool:
        """Kafka's ``tryCleanQuotaNodes``: delete an emptied entity's znode unless it has
        children (a user's ``clients``); a user's last client takes ``clients`` with it, and
        the user too when the user holds nothing else. False when the znode stays."""
        if await self.zk.get_entity_children(entity_type, name):
            return False
        doomed = name
        if entity.user is not None and entity.client_id is not None:
            user, _, client = name.partition(f"/{CLIENTS}/")
            if await self.zk.get_entity_children(USERS, f"{user}/{CLIENTS}") == [client]:
                doomed = f"{user}/{CLIENTS}"
                if not await self.zk.get_entity_configs(USERS, user) and \
                        await self.zk.get_entity_children(USERS, user) == [CLIENTS]:
                    doomed = user
        log.info("Deleting zk node %s/%s since node of entityType %s and entityName %s is "
                 "empty.", entity_type, doomed, entity_type, name)
        await self.zk.delete_entity_config_path(entity_type, doomed)
        return True
