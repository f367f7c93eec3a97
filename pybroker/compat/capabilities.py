"""The capabilities the suite checks: what each means, and which APIs a broker must advertise
for it (the not-offered decision, :func:`pybroker.compat.apiversions.not_offered`)."""

from __future__ import annotations

from dataclasses import dataclass

from protocol.messages import API_NAMES, ApiKey


@dataclass(frozen=True, slots=True)
class Requirement:
    """The broker must advertise some version of ``api_key`` in ``[min_version, max_version]``
    (``max_version`` None: no upper bound)."""

    api_key: int
    min_version: int = 0
    max_version: int | None = None

    def __str__(self) -> str:
        name = API_NAMES.get(self.api_key, f"api {self.api_key}")
        if self.max_version is None:
            return f"{name} v{self.min_version}+"
        return f"{name} v{self.min_version}-v{self.max_version}"


@dataclass(frozen=True, slots=True)
class Capability:
    id: str
    meaning: str
    needs: tuple[Requirement, ...]


def _r(key: ApiKey, lo: int = 0, hi: int | None = None) -> Requirement:
    return Requirement(int(key), lo, hi)


_BASIC = (_r(ApiKey.METADATA, 1), _r(ApiKey.PRODUCE, 3), _r(ApiKey.FETCH, 4))
_GROUP = (
    _r(ApiKey.FIND_COORDINATOR), _r(ApiKey.JOIN_GROUP), _r(ApiKey.SYNC_GROUP),
    _r(ApiKey.HEARTBEAT), _r(ApiKey.LEAVE_GROUP), _r(ApiKey.OFFSET_COMMIT),
    _r(ApiKey.OFFSET_FETCH),
)
_TXN = (
    _r(ApiKey.INIT_PRODUCER_ID), _r(ApiKey.FIND_COORDINATOR, 1),
    _r(ApiKey.ADD_PARTITIONS_TO_TXN), _r(ApiKey.ADD_OFFSETS_TO_TXN), _r(ApiKey.END_TXN),
    _r(ApiKey.TXN_OFFSET_COMMIT),
)
_SASL = (_r(ApiKey.SASL_HANDSHAKE, 1), _r(ApiKey.SASL_AUTHENTICATE))

_TABLE: tuple[Capability, ...] = (
    Capability("produce-fetch", "records produced (message format v2) are fetched back "
               "unchanged: keys, values, headers, timestamps, offsets", _BASIC),
    Capability("codec-gzip", "batches compressed with gzip are accepted and served", _BASIC),
    Capability("codec-snappy", "batches compressed with snappy are accepted and served",
               _BASIC),
    Capability("codec-lz4", "batches compressed with lz4 are accepted and served", _BASIC),
    Capability("codec-zstd", "batches compressed with zstd are accepted and served (KIP-110)",
               (_r(ApiKey.METADATA, 1), _r(ApiKey.PRODUCE, 7), _r(ApiKey.FETCH, 10))),
    Capability("list-offsets", "earliest, latest and by-timestamp offsets of a partition",
               (*_BASIC, _r(ApiKey.LIST_OFFSETS, 1))),
    Capability("idempotence", "an idempotent producer gets a producer id and its batches are "
               "written once, in order (KIP-98)", (*_BASIC, _r(ApiKey.INIT_PRODUCER_ID))),
    Capability("transactions", "transactional produce: committed records are read by a "
               "read_committed consumer, aborted ones are not (KIP-98)", (*_BASIC, *_TXN)),
    Capability("group-classic", "consumer groups with the classic protocol: join, sync, "
               "commit, fetch committed offsets, rebalance to a second member",
               (*_BASIC, *_GROUP)),
    # v1 (Kafka 4.0): Kafka 3.9 lists v0 but answers it UNSUPPORTED_VERSION in ZooKeeper mode,
    # so v0 alone does not say the protocol is served
    Capability("group-kip848", "consumer groups with the consumer protocol of KIP-848",
               (*_BASIC, _r(ApiKey.CONSUMER_GROUP_HEARTBEAT, 1),
                _r(ApiKey.OFFSET_COMMIT, 9))),
    Capability("admin-topics", "create and delete topics, add partitions, describe them",
               (_r(ApiKey.METADATA, 1), _r(ApiKey.CREATE_TOPICS), _r(ApiKey.DELETE_TOPICS),
                _r(ApiKey.CREATE_PARTITIONS))),
    Capability("admin-configs", "describe and alter topic configs (AlterConfigs or "
               "IncrementalAlterConfigs)",
               (_r(ApiKey.DESCRIBE_CONFIGS), _r(ApiKey.INCREMENTAL_ALTER_CONFIGS))),
    Capability("admin-groups", "list and describe groups, list and alter their committed "
               "offsets, delete them",
               (*_GROUP, _r(ApiKey.LIST_GROUPS), _r(ApiKey.DESCRIBE_GROUPS),
                _r(ApiKey.DELETE_GROUPS))),
    Capability("delete-records", "records before an offset are deleted (the log start moves)",
               (*_BASIC, _r(ApiKey.DELETE_RECORDS))),
    Capability("old-formats", "old clients' message formats v0/v1 (Produce v0-v2, "
               "Fetch v0-v3) are accepted and served",
               (_r(ApiKey.METADATA, 0), _r(ApiKey.PRODUCE, 0, 2), _r(ApiKey.FETCH, 0, 3))),
    Capability("acls", "ACLs are created, described and deleted",
               (_r(ApiKey.CREATE_ACLS), _r(ApiKey.DESCRIBE_ACLS), _r(ApiKey.DELETE_ACLS))),
    Capability("sasl-plain", "clients authenticate with SASL/PLAIN", _SASL),
    Capability("sasl-scram", "clients authenticate with SASL/SCRAM-SHA-256 or -512", _SASL),
)

#: every capability by id, in the order the report card shows them
CAPABILITIES: dict[str, Capability] = {c.id: c for c in _TABLE}


def register_capability(capability: Capability) -> Capability:
    """Add a capability (for scenario modules that bring their own)."""
    if capability.id in CAPABILITIES and CAPABILITIES[capability.id] != capability:
        raise ValueError(f"capability {capability.id!r} is already defined differently")
    CAPABILITIES[capability.id] = capability
    return capability
