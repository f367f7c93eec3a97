"""Brokers of a replicated partition in one process, for the replication unit tests.

Each :class:`Node` is a broker's storage and request path without sockets: a real LogManager
over a temporary directory, a real ReplicaManager, a metadata cache, and the real request
dispatcher with the registered API handlers. A follower reaches its leader through
:class:`LoopbackLeader`, the production :class:`RemoteLeaderEndpoint` with its connection
replaced by a loopback: each request is encoded with the client codec, dispatched to the
leader's handlers, and the answer decoded again. So a fetcher's requests, the leader's Fetch
and OffsetForLeaderEpoch handlers and the fetcher's parsing all run as they do between two
broker processes; only the TCP connection is left out (tests/cluster has that).
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from protocol.errors import ErrorCode
from protocol.records.record import build_batch, decode_batch, iter_batches
from pybroker.api.registry import ZOOKEEPER, load_handlers
from pybroker.api.router import RequestRouter
from pybroker.api.services import BrokerServices
from pybroker.cluster.fetch_session import FetchSessionCache
from pybroker.cluster.fetcher_state import FetcherConfig, InitialFetchState
from pybroker.cluster.leader_endpoint import RemoteLeaderEndpoint
from pybroker.cluster.metadata_cache import (
    BrokerEndpoint,
    MetadataCache,
    PartitionInfo,
    PartitionUpdate,
)
from pybroker.cluster.partition import Role
from pybroker.cluster.replica_fetcher import ReplicaFetcher, ReplicaFetcherManager
from pybroker.cluster.replica_manager import ReplicaManager
from pybroker.config import BrokerConfig
from pybroker.config.dynamic import DynamicBrokerConfig
from pybroker.log import Log, LogConfig
from pybroker.log.manager import LogManager
from pybroker.metadata.config_repository import ConfigRepository
from pybroker.metadata.model import PartitionRecord
from tests.unit.network.helpers import call
from tests.unit.protocol.records.helpers import value_batch

T0 = 1_700_000_000_000
TOPIC = "t"
#: the id the controller gives the topic: followers fetch by it (Fetch v13+)
TOPIC_ID = uuid.UUID("5f1d0c3e-9a4b-4c2d-8e7f-000000000001")

#: fetch at once, back off briefly: the tests drive fetchers round by round
FAST = FetcherConfig(max_wait_ms=0, backoff_ms=10)
#: for fetchers running as tasks: fetches wait at the leader, as between processes
LIVE = FetcherConfig(max_wait_ms=100, backoff_ms=10)


@dataclass
class Node:
    broker_id: int
    dir: Path
    log_config: LogConfig = field(default_factory=LogConfig)

    def __post_init__(self) -> None:
        self.logs = LogManager([self.dir], self.log_config)
        self.logs.startup(T0)
        self.rm = ReplicaManager(self.broker_id, self.logs, lambda _t: self.log_config)
        self.cache = MetadataCache("cluster", controller_id=-1)
        configs = ConfigRepository(self.log_config)
        handlers = load_handlers(ZOOKEEPER)
        config = BrokerConfig.from_dict({})
        services = BrokerServices(
            broker_id=self.broker_id, config=config, dynamic_config=DynamicBrokerConfig(config),
            replica_manager=self.rm,
            metadata_cache=self.cache, admin=None, configs=configs,  # type: ignore[arg-type]
            groups=None, producer_ids=None, apis=handlers,  # type: ignore[arg-type]
            fetch_sessions=FetchSessionCache(1000))
        self.dispatcher = RequestRouter(services, handlers)
        self.endpoint = BrokerEndpoint(self.broker_id, "127.0.0.1", 9000 + self.broker_id)
        self.closed = False

    @property
    def log(self) -> Log:
        log = self.logs.get_log(TOPIC, 0)
        assert log is not None
        return log

    def become(self, leader: int, epoch: int, replicas: Iterable[int] = (1, 2), *,
               topic_id: uuid.UUID | None = TOPIC_ID) -> None:
        """A LeaderAndIsr and the UpdateMetadata after it, as the controller sends them: the
        partition takes the topic id, which the metadata cache then resolves (no topic id:
        a controller that names none, and followers fetch by name)."""
        replicas = tuple(replicas)
        self.rm.become_leader_or_follower(
            TOPIC, [PartitionRecord(0, replicas, replicas, leader, epoch)], T0)
        if topic_id is not None:
            partition = self.rm.get_partition(TOPIC, 0)
            assert partition is not None
            partition.topic_id = topic_id
            self.cache.update_metadata(leader, [], [PartitionUpdate(
                TOPIC, topic_id, PartitionInfo(0, leader, epoch, replicas, replicas))])

    def log_bytes(self) -> bytes:
        """Every batch of the partition's log from its start, as the segment files hold them."""
        return b"".join(s.log_path.read_bytes() for s in self.log.segments)

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.rm.shutdown()
            self.logs.shutdown()


class LoopbackLeader(RemoteLeaderEndpoint):
    """The production endpoint, its connection replaced by a codec round trip through the
    leader's dispatcher."""

    def __init__(self, leader: Node, follower_id: int, config: FetcherConfig) -> None:
        super().__init__(leader.endpoint, local_broker_id=follower_id, broker_epoch=lambda: 7,
                         config=config, fetcher_id=0)
        self.leader = leader
        self.requests: list[tuple[int, int, Any]] = []
        self.fail_next: Exception | None = None

    async def _request(self, api_key: int, version: int, body: object) -> object:
        self.requests.append((api_key, version, body))
        await asyncio.sleep(0)  # a request always lets the loop run, as on a socket
        if self.fail_next is not None:
            error, self.fail_next = self.fail_next, None
            raise error
        return await call(self.leader.dispatcher, api_key, version, body,
                          client_id=self.client_id)


class Cluster:
    """Brokers 1..n in one process; ``fetcher(follower, leader)`` makes a fetcher that a test
    drives round by round, ``enable_replication(node)`` gives a node a real fetcher manager."""

    def __init__(self, tmp_path: Path, n: int = 2, log_config: LogConfig | None = None) -> None:
        self.nodes = {i: Node(i, tmp_path / f"broker-{i}", log_config or LogConfig())
                      for i in range(1, n + 1)}
        self.alive = set(self.nodes)
        self.managers: list[ReplicaFetcherManager] = []

    def __getitem__(self, broker_id: int) -> Node:
        return self.nodes[broker_id]

    def fetcher(self, follower: int, leader: int, config: FetcherConfig = FAST,
                ) -> tuple[ReplicaFetcher, LoopbackLeader]:
        endpoint = LoopbackLeader(self.nodes[leader], follower, config)
        fetcher = ReplicaFetcher(f"fetcher-{follower}-from-{leader}", 0, endpoint,
                                 self.nodes[follower].rm, config)
        return fetcher, endpoint

    def enable_replication(self, broker_id: int, config: FetcherConfig = LIVE,
                           ) -> ReplicaFetcherManager:
        node = self.nodes[broker_id]
        manager = ReplicaFetcherManager(
            broker_id, lambda: 7, node.rm, config,
            endpoint_factory=lambda ep, _fid: LoopbackLeader(self.nodes[ep.node_id], broker_id,
                                                             config))
        node.rm.enable_replication(
            manager, lambda b: self.nodes[b].endpoint if b in self.alive else None)
        self.managers.append(manager)
        return manager

    async def shutdown(self) -> None:
        """Stop the fetcher managers and close every node, on the loop that ran them (their
        purgatories hold fetches parked by the fetchers)."""
        for manager in self.managers:
            await manager.shutdown()
        self.close()

    def close(self) -> None:
        for node in self.nodes.values():
            node.close()


# -- helpers of the replication tests ----------------------------------------------------------

TP = (TOPIC, 0)


def run(main: Callable[[], object], timeout: float = 20) -> None:
    async def bounded() -> None:
        await asyncio.wait_for(main(), timeout)  # type: ignore[arg-type]

    asyncio.run(bounded())


async def until(condition: Callable[[], object], what: str, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.01)


def records(n: int, *, base: int = 0, epoch: int = -1, tag: bytes = b"v") -> bytearray:
    return value_batch(n, tag=tag, first=base, base_offset=base, partition_leader_epoch=epoch)


def produce(node: Node, n: int = 1, tag: bytes = b"v") -> int:
    """Append one batch of ``n`` records (tag0, tag1, ...) to ``node`` as leader; returns the
    offset after them."""
    result, end = node.rm.append_to_leader(TOPIC, 0, records(n, tag=tag), required_acks=1,
                                           now_ms=T0)
    assert result.error == ErrorCode.NONE, result
    return end


def produce_value(node: Node, value: bytes) -> None:
    batch = build_batch([(None, value, (), T0)])
    result, _ = node.rm.append_to_leader(TOPIC, 0, batch, required_acks=1, now_ms=T0)
    assert result.error == ErrorCode.NONE, result


def history(node: Node, *batches: bytearray) -> None:
    """Write ``batches`` (offsets and epochs assigned) into ``node``'s log as they are."""
    log = node.logs.get_or_create_log(TOPIC, 0, node.log_config, T0)
    for b in batches:
        log.append_as_follower(b, T0)


def values(node: Node) -> list[bytes]:
    data = node.log_bytes()
    out = []
    for pos, _ in iter_batches(data):
        _, recs = decode_batch(data, pos)
        out += [r.value or b"" for r in recs]
    return out


def follow(fetcher, follower: Node) -> None:
    """Start following as the replica manager would (from the log end when it has epochs)."""
    partition = follower.rm.get_partition(*TP)
    assert partition is not None and partition.role is Role.FOLLOWER
    log = follower.log
    offset = (log.log_end_offset if fetcher.truncation_on_fetch and log.latest_epoch is not None
              else partition.high_watermark)
    fetcher.add_partitions({TP: InitialFetchState(fetcher.leader.node, partition.leader_epoch,
                                                  offset)})


async def rounds(fetcher, n: int) -> None:
    for _ in range(n):
        await fetcher.do_work()


def fetched_requests(endpoint: LoopbackLeader, api_key: int) -> list[object]:
    return [body for key, _, body in endpoint.requests if key == api_key]
