"""What handlers may use: a small set of narrow services, never the broker itself.

Each handler module under :mod:`pybroker.api` is thin: it turns a request into calls on these
services and their answers into the response. Log decisions (leadership, epochs, the high
watermark, offsets, deletion) are the replica manager's; layout changes go through the admin
seam; what the cluster looks like comes from the metadata cache. The same handlers serve the
embedded single node and a ZooKeeper-mode cluster: only the services behind them differ.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from protocol.errors import ErrorCode, KafkaError
from pybroker.kernel.outcome import Outcome
from pybroker.quota.entities import Op, QuotaEntity, QuotaError, QuotaFilter
from pybroker.quota.manager import QuotaManagers
from pybroker.security.credentials import Deletion, Upsertion, UserResult
from pybroker.security.delegation_tokens import Decision, TokenInformation
from pybroker.security.principal import KafkaPrincipal
from pybroker.security.service import AclService

if TYPE_CHECKING:
    from pybroker.admin import AdminManager
    from pybroker.api.registry import ApiHandler
    from pybroker.cluster.control import ControlRequestHandler
    from pybroker.cluster.fetch_session import FetchSessionCache
    from pybroker.cluster.metadata_cache import MetadataCache
    from pybroker.cluster.replica_manager import ReplicaManager
    from pybroker.config import BrokerConfig
    from pybroker.config.dynamic import DynamicBrokerConfig
    from pybroker.coordinator.group_service import GroupCoordinatorService
    from pybroker.coordinator.producer_id_manager import ProducerIdManager
    from pybroker.coordinator.transaction_service import TransactionCoordinatorService
    from pybroker.kernel.types import IsrChange
    from pybroker.metadata.config_repository import ConfigRepository


class UserCredentialService(Protocol):
    """Users' SCRAM credentials (DescribeUserScramCredentials, AlterUserScramCredentials)."""

    def describe(self, users: Sequence[str] | None) -> list[UserResult]: ...

    def alter(self, upsertions: Sequence[Upsertion], deletions: Sequence[Deletion],
              ) -> Outcome[list[UserResult]]: ...


class ClientQuotaService(Protocol):
    """The quota entities as the store keeps them (DescribeClientQuotas, AlterClientQuotas)."""

    async def describe(self, quota_filter: QuotaFilter,
                       ) -> list[tuple[QuotaEntity, dict[str, float]]]: ...

    async def alter(self, entries: Sequence[tuple[QuotaEntity | QuotaError, Sequence[Op]]],
                    validate_only: bool) -> list[QuotaError | None]: ...


class TokenCreated(Protocol):
    @property
    def error_code(self) -> int: ...

    @property
    def token(self) -> TokenInformation | None: ...

    @property
    def hmac(self) -> bytes: ...


class DelegationTokenService(Protocol):
    """Delegation tokens (KIP-48): Create/Renew/Expire/DescribeDelegationToken."""

    @property
    def enabled(self) -> bool: ...

    async def create(self, owner: KafkaPrincipal, requester: KafkaPrincipal,
                     renewers: Sequence[KafkaPrincipal], max_lifetime_ms: int,
                     ) -> TokenCreated: ...

    async def renew(self, principal: KafkaPrincipal, mac: bytes,
                    renew_period_ms: int) -> Decision: ...

    async def expire(self, principal: KafkaPrincipal, mac: bytes,
                     expiry_period_ms: int) -> Decision: ...

    def tokens(self) -> list[tuple[TokenInformation, bytes]]: ...


class ControllerModule(Protocol):
    """What handlers ask of this broker's controller module (ZooKeeper mode)."""

    @property
    def is_active(self) -> bool: ...

    def controlled_shutdown(self, broker_id: int, broker_epoch: int,
                            ) -> asyncio.Future[tuple[ErrorCode, list[tuple[str, int]]]]: ...

    def alter_partition(self, broker_id: int, broker_epoch: int,
                        partitions: dict[tuple[Any, int], IsrChange],
                        ) -> asyncio.Future[tuple[ErrorCode, dict[tuple[Any, int], Any]]]: ...

    def update_features(self, updates: Sequence[tuple[str, int, int]],
                        ) -> asyncio.Future[list[tuple[str, int, str | None]] | KafkaError]: ...

    def allocate_producer_ids(self, broker_id: int, broker_epoch: int,
                              ) -> asyncio.Future[tuple[ErrorCode, int, int] | KafkaError]: ...


@dataclass(frozen=True, slots=True)
class BrokerServices:
    broker_id: int
    #: the broker's static configuration (server.properties)
    config: BrokerConfig
    #: its configuration as dynamic broker configs change it (KIP-226), and their layers
    dynamic_config: DynamicBrokerConfig
    #: partitions, produce and fetch, offsets, log dirs
    replica_manager: ReplicaManager
    #: brokers, controller, topics and partitions as this broker knows them
    metadata_cache: MetadataCache
    #: topic creation and deletion, partitions, config changes, elections, reassignments
    admin: AdminManager
    #: topic config overrides and the settings each topic's logs run with
    configs: ConfigRepository
    #: the classic group coordinator and committed offsets
    groups: GroupCoordinatorService
    #: producer ids for idempotent producers
    producer_ids: ProducerIdManager
    #: the APIs this broker serves, as ApiVersions advertises them
    apis: Mapping[int, ApiHandler]
    #: incremental fetch sessions (KIP-227)
    fetch_sessions: FetchSessionCache
    #: the controller's requests (LeaderAndIsr, UpdateMetadata, StopReplica); ZooKeeper mode
    control: ControlRequestHandler | None = None
    #: this broker's controller module, active or not; ZooKeeper mode
    controller: ControllerModule | None = None
    #: the transaction coordinator (None: transactional requests have no coordinator here)
    transactions: TransactionCoordinatorService | None = None
    #: authorization checks and ACL administration (no authorizer: everything is allowed)
    acls: AclService = field(default_factory=AclService)
    #: users' SCRAM credentials (None: this broker keeps none)
    credentials: UserCredentialService | None = None
    #: the client quotas' entities in the store (None: this broker keeps none)
    client_quotas: ClientQuotaService | None = None
    #: delegation tokens (None: this broker keeps none)
    tokens: DelegationTokenService | None = None
    #: the client quotas this broker enforces, and the rates it measures against them
    quotas: QuotaManagers = field(default_factory=QuotaManagers)
