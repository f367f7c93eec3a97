"""Delegation tokens in ZooKeeper mode, as Kafka 3.9's ``DelegationTokenManagerZk`` keeps them:
each token's information under ``/delegation_token/tokens/<id>``, a
``/delegation_token/token_changes`` notification for each change, and every broker's
:class:`~pybroker.security.delegation_tokens.TokenCache` fed from them, so a token made on one
broker authenticates on every other.

Any broker serves Create/Renew/Expire: it writes ZooKeeper, updates its own cache and notifies
the others (Kafka forwards nothing in ZooKeeper mode). One task owns the changes: they are made
one at a time, as Kafka makes them under its lock. The active controller removes the tokens
past their expiry every ``delegation.token.expiry.check.interval.ms``. The embedded node keeps
the same znodes in its local tree.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from dataclasses import dataclass

from pybroker.config import BrokerConfig
from pybroker.kernel.clock import SYSTEM_CLOCK, Clock
from pybroker.modes.zookeeper.change_notifications import (
    TokenChangeNotifications,
    ZkNodeChangeNotificationListener,
)
from pybroker.security.delegation_tokens import (
    DELEGATION_TOKEN_AUTH_DISABLED,
    ERROR_TIMESTAMP,
    NONE,
    Decision,
    TokenCache,
    TokenInformation,
    TokenSettings,
    decide_expire,
    decide_renew,
    new_token,
    token_hmac,
)
from pybroker.security.principal import KafkaPrincipal
from pybroker.zk.kafka_zk import KafkaZkClient

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Created:
    """What CreateDelegationToken answers (Kafka's ``CreateTokenResult``)."""

    error_code: int
    token: TokenInformation | None = None
    hmac: bytes = b""


class ZkDelegationTokens:
    """A broker's delegation tokens over ZooKeeper; see the module's documentation."""

    def __init__(self, zk: KafkaZkClient, cache: TokenCache, settings: TokenSettings, *,
                 clock: Clock = SYSTEM_CLOCK) -> None:
        self.zk = zk
        self.cache = cache
        self.settings = settings
        self.clock = clock
        self._lock = asyncio.Lock()
        self._listener: ZkNodeChangeNotificationListener[str] | None = None

    @property
    def enabled(self) -> bool:
        return self.settings.enabled

    def _hmac(self, token_id: str) -> bytes:
        assert self.settings.secret_key
        return token_hmac(token_id, self.settings.secret_key)

    # -- start-up ------------------------------------------------------------------------------
    async def start(self) -> None:
        """With a secret key: the paths, the change listener, then every token (a change
        between the two is read again, never missed)."""
        if not self.enabled:
            return
        await self.zk.create_delegation_token_paths()
        self._listener = ZkNodeChangeNotificationListener(
            TokenChangeNotifications(self.zk), self._token_changed, kind="delegation token",
            task_name="delegation-token-changes", sessions=self.zk.zk, clock=self.clock)
        await self._listener.start()
        async with self._lock:
            ids = await self.zk.get_delegation_token_ids()
            log.info("Loading the token cache. Total token count: %d", len(ids))
            for token_id in ids:
                try:
                    await self._reload(token_id)
                except Exception:
                    log.exception("Error while getting Token for tokenId: %s", token_id)

    async def stop(self) -> None:
        if self._listener is not None:
            await self._listener.stop()

    async def _reload(self, token_id: str) -> None:
        info = await self.zk.get_delegation_token_info(token_id)
        if info is None:
            self.cache.remove(token_id)
        else:
            self.cache.update(info, self._hmac(token_id))

    async def _token_changed(self, token_id: str) -> None:
        """Kafka's ``TokenChangedNotificationHandler``: the token as ZooKeeper holds it now."""
        async with self._lock:
            log.info("Processing Token Notification for tokenId: %s", token_id)
            await self._reload(token_id)

    # -- changes -------------------------------------------------------------------------------
    async def _write(self, info: TokenInformation) -> None:
        await self.zk.set_or_create_delegation_token(info)
        self.cache.update(info, self._hmac(info.token_id))
        await self.zk.create_token_change_notification(info.token_id)

    async def _remove(self, token_id: str) -> None:
        await self.zk.delete_delegation_token(token_id)
        self.cache.remove(token_id)
        await self.zk.create_token_change_notification(token_id)

    async def create(self, owner: KafkaPrincipal, requester: KafkaPrincipal,
                     renewers: Sequence[KafkaPrincipal], max_lifetime_ms: int) -> Created:
        if not self.enabled:
            return Created(DELEGATION_TOKEN_AUTH_DISABLED)
        async with self._lock:
            info = new_token(self.settings, owner, requester, renewers, max_lifetime_ms,
                             self.clock.milliseconds())
            await self._write(info)
            log.info("Created a delegation token: %s for owner: %s", info.token_id, owner)
            return Created(NONE, info, self._hmac(info.token_id))

    async def renew(self, principal: KafkaPrincipal, mac: bytes,
                    renew_period_ms: int) -> Decision:
        if not self.enabled:
            return Decision(DELEGATION_TOKEN_AUTH_DISABLED)
        async with self._lock:
            decision = decide_renew(self.settings, self.cache.token_for_hmac(mac), principal,
                                    renew_period_ms, self.clock.milliseconds())
            if decision.updated is not None:
                await self._write(decision.updated)
                log.info("Delegation token renewed for token: %s for owner: %s",
                         decision.updated.token_id, decision.updated.owner)
            return decision

    async def expire(self, principal: KafkaPrincipal, mac: bytes,
                     expiry_period_ms: int) -> Decision:
        if not self.enabled:
            return Decision(DELEGATION_TOKEN_AUTH_DISABLED)
        async with self._lock:
            token = self.cache.token_for_hmac(mac)
            decision = decide_expire(token, principal, expiry_period_ms,
                                     self.clock.milliseconds())
            if decision.remove and token is not None:
                await self._remove(token.token_id)
                log.info("Token expired for token: %s for owner: %s", token.token_id,
                         token.owner)
            elif decision.updated is not None:
                await self._write(decision.updated)
                log.info("Updated expiry time for token: %s for owner: %s",
                         decision.updated.token_id, decision.updated.owner)
            return decision

    def tokens(self) -> list[tuple[TokenInformation, bytes]]:
        """Every token this broker knows with its HMAC, in the order Kafka lists them."""
        return [(info, self._hmac(info.token_id)) for info in self.cache.tokens()]

    async def expire_tokens(self) -> None:
        """Kafka's ``expireTokens`` (the controller's ``delete-expired-tokens`` task): remove
        every token past its expiry or its maximum lifetime."""
        if not self.enabled:
            return
        async with self._lock:
            now = self.clock.milliseconds()
            for info in self.cache.tokens():
                if info.expired(now):
                    log.info("Delegation token expired for token: %s for owner: %s",
                             info.token_id, info.owner)
                    await self._remove(info.token_id)




def token_settings(config: BrokerConfig) -> TokenSettings:
    """``delegation.token.*`` (``delegation.token.master.key``: the deprecated name of the
    secret key)."""
    secret = config.get("delegation.token.secret.key") or \
        config.get("delegation.token.master.key")
    return TokenSettings(secret or None,
                         config.get_int("delegation.token.max.lifetime.ms"),
                         config.get_int("delegation.token.expiry.time.ms"),
                         config.get_int("delegation.token.expiry.check.interval.ms"))


__all__ = ["ERROR_TIMESTAMP", "Created", "ZkDelegationTokens", "token_settings"]
