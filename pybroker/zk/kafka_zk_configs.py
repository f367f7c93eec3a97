"""The config and ACL side of :class:`~pybroker.zk.kafka_zk.KafkaZkClient` (with the part of
Kafka's ``AdminZkClient`` that changes configs): entity configs and their change
notifications, ACL znodes written conditionally on their version, and the ACL change
notifications."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Iterable, Mapping

from pybroker.security.delegation_tokens import TokenInformation
from pybroker.zk.client import (
    BadVersionError,
    CheckOp,
    DeleteOp,
    NodeExistsError,
    NoNodeError,
    Op,
    SetDataOp,
    Watch,
    ZkError,
)
from pybroker.zk.kafka_zk_base import ControllerMovedError, KafkaZkBase, _raise_unexpected
from pybroker.zk.znodes import (
    ACL_RESOURCE_TYPES,
    CONFIG_BROKER,
    CONFIG_GROUP,
    CONFIG_TOPIC,
    CONFIG_USER,
    AclChangeNotificationZNode,
    AclZNode,
    ConfigEntityChangeNotificationSequenceZNode,
    ConfigEntityChangeNotificationZNode,
    ConfigEntityTypeZNode,
    ConfigEntityZNode,
    ControllerZNode,
    DelegationTokenChangeNotificationZNode,
    DelegationTokenInfoZNode,
    GroupConfigChangeNotificationZNode,
    desanitize,
    sanitize,
)


class ConfigZkOps(KafkaZkBase):
    """Configs and ACLs in ZooKeeper (a part of :class:`KafkaZkClient`)."""

    # -- configs ------------------------------------------------------------------------------

    async def get_entity_configs(self, entity_type: str, name: str) -> dict[str, str]:
        """The overrides of one entity (``topics``/``orders``); none if it has no znode."""
        found = await self._get(ConfigEntityZNode.path(entity_type, name))
        return ConfigEntityZNode.decode(found[0]) if found is not None else {}

    async def get_topic_configs(self, topics: Iterable[str]) -> dict[str, dict[str, str]]:
        names = sorted(set(topics))
        found = await asyncio.gather(*(self.get_entity_configs(CONFIG_TOPIC, t) for t in names))
        return dict(zip(names, found, strict=True))

    async def set_or_create_entity_configs(self, entity_type: str, name: str,
                                           configs: Mapping[str, str], *,
                                           check_controller: bool = True) -> None:
        """Write an entity's config znode, creating it if missing. As in Kafka, the write is
        refused (ControllerMovedError) when there is no controller, and made conditional on
        ``/controller`` staying the same znode; ``check_controller=False`` skips that."""
        path = ConfigEntityZNode.path(entity_type, name)
        data = ConfigEntityZNode.encode(configs)
        check: list[Op] = []
        if check_controller:
            found = await self._get(ControllerZNode.PATH)
            if found is None:
                raise ControllerMovedError(f"Cannot set entity configs for {entity_type} {name} "
                                           "when there is no controller.")
            check = [CheckOp(ControllerZNode.PATH, found[1].version)]

        async def set_data() -> None:
            try:
                await self._call(lambda: self.zk.multi([*check, SetDataOp(path, data)]))
            except ZkError as e:
                if check and e.op_index == 0:
                    raise ControllerMovedError(
                        f"The controller changed while setting entity configs for "
                        f"{entity_type} {name}") from e
                raise

        try:
            await set_data()
        except NoNodeError:
            try:
                await self._create_recursive(path, data)
            except NodeExistsError:
                await set_data()

    async def create_config_change_notification(self, entity_path: str) -> str:
        """``/config/changes/config_change_<seq>`` naming ``topics/<t>`` or ``brokers/<id>``;
        the path created."""
        await self.make_sure_persistent_path_exists(ConfigEntityChangeNotificationZNode.PATH)
        return await self._call(lambda: self.zk.create(
            ConfigEntityChangeNotificationSequenceZNode.CREATE_PATH,
            ConfigEntityChangeNotificationSequenceZNode.encode(entity_path), sequence=True))

    async def set_topic_config(self, topic: str, configs: Mapping[str, str]) -> None:
        """Replace a topic's overrides and tell every broker (Kafka's ``changeTopicConfig``)."""
        await self.set_or_create_entity_configs(CONFIG_TOPIC, topic, configs)
        await self.create_config_change_notification(f"{CONFIG_TOPIC}/{topic}")

    async def set_broker_config(self, entity: str, configs: Mapping[str, str]) -> None:
        """Replace a broker's dynamic configs (``entity`` is its id) or the cluster-wide
        defaults (``<default>``) and tell every broker (Kafka's ``changeBrokerConfig``)."""
        await self.set_or_create_entity_configs(CONFIG_BROKER, entity, configs)
        await self.create_config_change_notification(f"{CONFIG_BROKER}/{entity}")

    async def set_user_config(self, sanitized_user: str, configs: Mapping[str, str]) -> None:
        """Replace a user's config entity (its SCRAM credentials, its quotas) and tell every
        broker (Kafka's ``changeUserOrUserClientIdConfig``); ``sanitized_user`` as
        :func:`~pybroker.zk.znodes.sanitize` makes it."""
        await self.set_or_create_entity_configs(CONFIG_USER, sanitized_user, configs)
        await self.create_config_change_notification(f"{CONFIG_USER}/{sanitized_user}")

    # -- group configs (KIP-848) --------------------------------------------------------------

    async def get_group_config(self, group: str) -> dict[str, str]:
        """``/config/groups/<group>``: a group's overrides (none when it has no znode)."""
        return await self.get_entity_configs(CONFIG_GROUP, sanitize(group))

    async def get_all_group_configs(self) -> dict[str, dict[str, str]]:
        """Every group with stored configs, by its id."""
        found = await self.get_all_entity_configs(CONFIG_GROUP)
        return {desanitize(name): configs for name, configs in found.items()}

    async def set_group_config(self, group: str, configs: Mapping[str, str]) -> None:
        """Replace a group's overrides and tell every broker, through
        ``/config/group_changes`` (see :class:`GroupConfigChangeNotificationZNode`)."""
        name = sanitize(group)
        await self.set_or_create_entity_configs(CONFIG_GROUP, name, configs)
        await self._call(lambda: self.zk.create(
            GroupConfigChangeNotificationZNode.path(
                GroupConfigChangeNotificationZNode.SEQUENCE_PREFIX),
            GroupConfigChangeNotificationZNode.encode(name), sequence=True))

    async def get_group_config_change_notifications(self, watch: Watch | None = None,
                                                    ) -> list[str]:
        return sorted(await self._children(GroupConfigChangeNotificationZNode.PATH, watch))

    async def create_group_config_paths(self) -> None:
        """``/config/group_changes``, so that its watch can be set before the first change."""
        await self.make_sure_persistent_path_exists(GroupConfigChangeNotificationZNode.PATH)

    async def get_group_config_change_notification(self, name: str) -> tuple[str, int] | None:
        """(the group's id, ctime in ms) of one notification, or None when it is gone."""
        found = await self._get(GroupConfigChangeNotificationZNode.path(name))
        if found is None:
            return None
        return desanitize(GroupConfigChangeNotificationZNode.decode(found[0])), found[1].ctime

    async def delete_group_config_change_notifications(self, names: Iterable[str]) -> None:
        for name in names:
            try:
                await self._call(functools.partial(
                    self.zk.delete, GroupConfigChangeNotificationZNode.path(name)))
            except NoNodeError:
                pass

    async def get_entity_children(self, entity_type: str, name: str) -> list[str]:
        """The children of an entity's znode (``clients`` under a user)."""
        return await self._children(ConfigEntityZNode.path(entity_type, name))

    async def delete_entity_config_path(self, entity_type: str, name: str) -> None:
        """Delete an entity's znode and what is under it (Kafka's ``deletePath``, which
        ``AdminZkClient.tryCleanQuotaNodes`` calls for an emptied quota entity)."""
        await self._delete_recursive(ConfigEntityZNode.path(entity_type, name))

    async def get_all_entity_configs(self, entity_type: str) -> dict[str, dict[str, str]]:
        """Every entity of a type (``users``) with its configs, by its znode's name."""
        names = sorted(await self._children(ConfigEntityTypeZNode.path(entity_type)))
        found = await asyncio.gather(*(self.get_entity_configs(entity_type, n) for n in names))
        return dict(zip(names, found, strict=True))

    async def get_config_change_notifications(self, watch: Watch | None = None) -> list[str]:
        """The notification znodes' names (``config_change_0000000007``), oldest first."""
        return sorted(await self._children(ConfigEntityChangeNotificationZNode.PATH, watch))

    async def get_config_change_notification(self, name: str) -> tuple[str, int] | None:
        """(entity path, ctime in ms) of one notification, or None when it is gone."""
        found = await self._get(ConfigEntityChangeNotificationSequenceZNode.path(name))
        if found is None:
            return None
        return ConfigEntityChangeNotificationSequenceZNode.decode(found[0]), found[1].ctime

    async def delete_config_change_notifications(self, names: Iterable[str]) -> None:
        for name in names:
            path = ConfigEntityChangeNotificationSequenceZNode.path(name)
            try:
                await self._call(functools.partial(self.zk.delete, path))
            except NoNodeError:
                pass

    # -- ACLs --------------------------------------------------------------------------------

    async def create_acl_paths(self) -> None:
        """The ACL roots with a child per resource type, and the change roots (Kafka's
        ``createAclPaths``)."""
        for root in AclZNode.ROOTS:
            for resource_type in ACL_RESOURCE_TYPES:
                await self.make_sure_persistent_path_exists(f"{root}/{resource_type}")
        for root in AclChangeNotificationZNode.ROOTS:
            await self.make_sure_persistent_path_exists(root)

    async def get_acl_node_paths(self) -> list[str]:
        """Every ACL znode: ``<root>/<ResourceType>/<name>``."""
        out = []
        for root in AclZNode.ROOTS:
            for resource_type in sorted(await self._children(root)):
                for name in sorted(await self._children(f"{root}/{resource_type}")):
                    out.append(AclZNode.path(root, resource_type, name))
        return out

    async def get_acl_node(self, path: str) -> bytes | None:
        """An ACL znode's data; None when it does not exist."""
        found = await self.get_versioned_acl_node(path)
        return found[0] if found is not None else None

    async def get_versioned_acl_node(self, path: str) -> tuple[bytes, int] | None:
        """An ACL znode's data and version; None when it does not exist."""
        found = await self._get(path)
        return (found[0], found[1].version) if found is not None else None

    async def conditional_set_acl_node(self, path: str, data: bytes | None,
                                       version: int | None) -> bool:
        """Write an ACL znode if it is still at ``version`` (None: if it does not exist yet),
        deleting it for ``data`` None; False when someone else changed it first (Kafka's
        ``conditionalSetAclsForResource``/``createAclsForResourceIfNotExists``/
        ``conditionalDelete``)."""
        try:
            if version is None:
                if data is not None:
                    await self._create_recursive(path, data)
            elif data is None:
                await self._call(functools.partial(self.zk.delete, path, version))
            else:
                await self._call(lambda: self.zk.set(path, data, version))
        except (BadVersionError, NodeExistsError, NoNodeError):
            return False
        return True

    async def set_acl_node(self, path: str, data: bytes | None) -> None:
        """Write an ACL znode whatever its version, creating it if missing; None deletes it."""
        while True:
            found = await self.get_versioned_acl_node(path)
            if await self.conditional_set_acl_node(
                    path, data, found[1] if found is not None else None):
                return

    async def create_acl_change_notification(self, root: str, data: bytes) -> str:
        """A sequential ``acl_changes_`` child of ``root``; the path created."""
        await self.make_sure_persistent_path_exists(root)
        return await self._call(lambda: self.zk.create(
            f"{root}/{AclChangeNotificationZNode.SEQUENCE_PREFIX}", data, sequence=True))

    async def get_acl_change_notifications(self, root: str,
                                           watch: Watch | None = None) -> list[str]:
        """The notification znodes' names under ``root``, oldest first."""
        return sorted(await self._children(root, watch))

    async def get_acl_change_notification(self, root: str, name: str,
                                          ) -> tuple[bytes, int] | None:
        """(data, ctime in ms) of one notification, or None when it is gone."""
        found = await self._get(AclChangeNotificationZNode.path(root, name))
        return (found[0], found[1].ctime) if found is not None else None

    async def delete_acl_change_notifications(self, root: str, names: Iterable[str]) -> None:
        for name in names:
            await self.set_acl_node(AclChangeNotificationZNode.path(root, name), None)

    # -- delegation tokens ---------------------------------------------------------------------

    async def create_delegation_token_paths(self) -> None:
        """``/delegation_token/token_changes`` and ``/delegation_token/tokens``."""
        await self.make_sure_persistent_path_exists(DelegationTokenChangeNotificationZNode.PATH)
        await self.make_sure_persistent_path_exists(DelegationTokenInfoZNode.TOKENS)

    async def get_delegation_token_ids(self) -> list[str]:
        return sorted(await self._children(DelegationTokenInfoZNode.TOKENS))

    async def get_delegation_token_info(self, token_id: str) -> TokenInformation | None:
        found = await self._get(DelegationTokenInfoZNode.path(token_id))
        return DelegationTokenInfoZNode.decode(found[0]) if found is not None else None

    async def set_or_create_delegation_token(self, token: TokenInformation) -> None:
        """Kafka's ``setOrCreateDelegationToken``: set the znode whatever its version, or
        create it."""
        path, data = DelegationTokenInfoZNode.path(token.token_id), \
            DelegationTokenInfoZNode.encode(token)
        try:
            await self._call(lambda: self.zk.set(path, data, -1))
        except NoNodeError:
            await self._create_recursive(path, data)

    async def delete_delegation_token(self, token_id: str) -> bool:
        return await self._delete_recursive(DelegationTokenInfoZNode.path(token_id))

    async def create_token_change_notification(self, token_id: str) -> None:
        await self._call(lambda: self.zk.create(
            DelegationTokenChangeNotificationZNode.path(
                DelegationTokenChangeNotificationZNode.SEQUENCE_PREFIX),
            DelegationTokenChangeNotificationZNode.encode(token_id), sequence=True))

    async def get_token_change_notifications(self, watch: Watch | None = None) -> list[str]:
        return sorted(await self._children(DelegationTokenChangeNotificationZNode.PATH, watch))

    async def get_token_change_notification(self, name: str) -> tuple[str, int] | None:
        """(the token id, ctime in ms) of one notification, or None when it is gone."""
        found = await self._get(DelegationTokenChangeNotificationZNode.path(name))
        if found is None:
            return None
        return DelegationTokenChangeNotificationZNode.decode(found[0]), found[1].ctime

    async def delete_token_change_notifications(self, names: Iterable[str]) -> None:
        for name in names:
            try:
                await self._call(functools.partial(
                    self.zk.delete, DelegationTokenChangeNotificationZNode.path(name)))
            except NoNodeError:
                pass

    async def delete_topic_configs(self, topics: Iterable[str], epoch_zk_version: int) -> None:
        results = await self._writes(
            {t: DeleteOp(ConfigEntityZNode.path(CONFIG_TOPIC, t)) for t in topics},
            epoch_zk_version)
        _raise_unexpected(results, NoNodeError)
