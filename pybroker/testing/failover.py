"""What clients lived through while a broker failed over, and the verdict on it, for the failover
tests (``tests/cluster/test_group_failover.py``, ``test_producer_failover.py``,
``test_spark_failover.py``).

The tests run the clients and record what each was told, on the wall clock (``time.time()``,
which the Java tools print too); the judging here is pure and takes those records as data.

* :func:`judge_group` — a consumer group read and committed across broker kills: every
  acknowledged record read, re-reads only after a fault and only from the last offset committed
  before it, so the duplicates stay within what was read after that commit, and the offsets the
  group committed last.
* :func:`judge_order` — one producer's acknowledged records of one partition as read back:
  each exactly once, in the order sent.
* :func:`first_ack_after` and :func:`longest_gap` — how long a producer waited for an
  acknowledgement across a fault.

The rest asks the cluster over the wire (:class:`~pybroker.testing.wire_client.WireClient`):
which broker leads what, which broker coordinates a group (computed as Kafka computes it, and as
FindCoordinator answers), what a coordinator holds as a group's committed offsets, and a raw
offset commit for a group with no members.
"""

from __future__ import annotations

import time
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from protocol.errors import ErrorCode
from protocol.messages import (
    ApiKey,
    find_coordinator_request as fcreq,
    list_offsets_request as lreq,
    metadata_request as mreq,
    offset_commit_request as ocreq,
    offset_fetch_request as ofreq,
)
from pybroker.coordinator.partitioning import OFFSETS_TOPIC, partition_for
from pybroker.testing.cluster import ClusterProcesses
from pybroker.testing.wire_client import WireClient

# -- what the clients were told -----------------------------------------------------------------


@dataclass(frozen=True)
class Read:
    """One record a member of a consumer group read."""

    member: str
    partition: int
    offset: int
    value: bytes
    at: float


@dataclass(frozen=True)
class Commit:
    """One offset commit of a group member as it ended (``at``): partition -> offset, and
    whether the coordinator accepted it."""

    member: str
    at: float
    offsets: Mapping[int, int]
    ok: bool


@dataclass(frozen=True)
class Rewind:
    """A member of the group read ``partition`` again from ``start`` when the group had already
    read it up to ``high`` (exclusive), at ``at``; ``fault`` is the last fault before it (None:
    there was none) and ``committed`` the last offset of the partition the group had committed
    before that fault."""

    partition: int
    start: int
    high: int
    at: float
    fault: float | None
    committed: int

    @property
    def explained(self) -> bool:
        """A re-read a fault explains: after one, from no lower than the last offset committed
        before it (lower would mean a commit was lost, or the position reset)."""
        return self.fault is not None and self.start >= self.committed


@dataclass
class GroupVerdict:
    acknowledged: int
    read: int
    #: acknowledged, never read
    missing: list[bytes] = field(default_factory=list)
    #: read, never acknowledged
    unexpected: list[bytes] = field(default_factory=list)
    #: the same (partition, offset) read with two different values
    inconsistent: list[tuple[int, int]] = field(default_factory=list)
    #: reads beyond the first of each (partition, offset)
    duplicates: int = 0
    #: for each fault, what the group had read of each partition after the last offset it
    #: committed before the fault, up to where it re-read from: the most a fault may duplicate
    allowed_duplicates: int = 0
    rewinds: list[Rewind] = field(default_factory=list)
    #: partition -> the offset of the group's last successful commit of it
    committed: dict[int, int] = field(default_factory=dict)
    commits_ok: int = 0
    commits_failed: int = 0

    @property
    def unexplained(self) -> list[Rewind]:
        return [r for r in self.rewinds if not r.explained]

    @property
    def failures(self) -> dict[str, int]:
        """Every count that must be zero, by name."""
        return {
            "missing": len(self.missing),
            "unexpected": len(self.unexpected),
            "inconsistent": len(self.inconsistent),
            "unexplained re-reads": len(self.unexplained),
            "duplicates beyond the bound": max(0, self.duplicates - self.allowed_duplicates),
        }

    def summary(self) -> str:
        return (f"{self.acknowledged} acknowledged, {self.read} read, "
                f"{len(self.missing)} missing, {self.duplicates} duplicated "
                f"(at most {self.allowed_duplicates} allowed), {len(self.rewinds)} re-read(s), "
                f"commits {self.commits_ok} ok / {self.commits_failed} failed")


def committed_at(commits: Iterable[Commit], at: float | None = None) -> dict[int, int]:
    """partition -> the offset of the last successful commit that ended at or before ``at``
    (all of them when None), in the order they ended."""
    out: dict[int, int] = {}
    for c in sorted((c for c in commits if c.ok and (at is None or c.at <= at)),
                    key=lambda c: c.at):
        out.update(c.offsets)
    return out


def judge_group(acknowledged: Iterable[bytes], reads: Sequence[Read], commits: Sequence[Commit],
                faults: Sequence[float], *, start_offset: int = 0) -> GroupVerdict:
    """Judge what a consumer group read and committed while ``faults`` (the times brokers were
    killed) happened. ``acknowledged``: the values the producers were told were written;
    ``start_offset``: where the group began reading each partition.

    A re-read (a member reading a partition below the highest offset the group had read of it)
    must follow a fault and start no lower than the partition's last offset committed before
    that fault; the duplicates may not exceed, summed over the faults and partitions, what the
    group had read after that commit when it re-read.
    """
    acked = set(acknowledged)
    out = GroupVerdict(acknowledged=len(acked), read=len(reads))
    values: dict[tuple[int, int], bytes] = {}
    seen_values: set[bytes] = set()
    for r in reads:
        key = (r.partition, r.offset)
        if values.setdefault(key, r.value) != r.value:
            out.inconsistent.append(key)
        seen_values.add(r.value)
    out.duplicates = len(reads) - len(values)
    out.missing = sorted(acked - seen_values)
    out.unexpected = sorted(seen_values - acked)

    ordered_faults = sorted(faults)
    committed_before = {t: committed_at(commits, t) for t in ordered_faults}
    high: dict[int, int] = {}
    previous: dict[int, int] = {}
    rewinding: dict[int, bool] = defaultdict(bool)
    for r in sorted(reads, key=lambda r: r.at):  # stable: each member's reads keep their order
        p = r.partition
        top = high.get(p, start_offset)
        if r.offset < top:
            if not rewinding[p] or r.offset != previous[p] + 1:
                fault = next((t for t in reversed(ordered_faults) if t <= r.at), None)
                committed = (committed_before[fault].get(p, start_offset)
                             if fault is not None else start_offset)
                out.rewinds.append(Rewind(p, r.offset, top, r.at, fault, committed))
            rewinding[p] = True
        else:
            rewinding[p] = False
        previous[p] = r.offset
        high[p] = max(top, r.offset + 1)

    worst: dict[tuple[float, int], int] = {}
    for rw in out.rewinds:
        if rw.fault is not None:
            at = (rw.fault, rw.partition)
            worst[at] = max(worst.get(at, 0), rw.high - rw.committed)
    out.allowed_duplicates = sum(worst.values())
    out.committed = committed_at(commits)
    out.commits_ok = sum(1 for c in commits if c.ok)
    out.commits_failed = len(commits) - out.commits_ok
    return out


@dataclass
class OrderVerdict:
    acknowledged: int
    found: int
    missing: list[bytes] = field(default_factory=list)
    #: value -> how many times it is there, for those there more than once
    duplicated: dict[bytes, int] = field(default_factory=dict)
    #: acknowledged records found before one sent earlier
    out_of_order: int = 0
    #: found, never acknowledged
    unexpected: list[bytes] = field(default_factory=list)

    @property
    def failures(self) -> dict[str, int]:
        return {"missing": len(self.missing), "duplicated": sum(self.duplicated.values()),
                "out of order": self.out_of_order, "unexpected": len(self.unexpected)}


def judge_order(sent: Sequence[bytes], found: Sequence[bytes]) -> OrderVerdict:
    """``sent``: one producer's acknowledged values for one partition, in the order it sent
    them; ``found``: the partition's values read back from its start. Each must be there
    exactly once, in that order, and nothing else."""
    counts = Counter(found)
    out = OrderVerdict(acknowledged=len(sent), found=len(found))
    out.missing = [v for v in sent if not counts[v]]
    out.duplicated = {v: n for v, n in counts.items() if n > 1}
    wanted = set(sent)
    out.unexpected = [v for v in counts if v not in wanted]
    position: dict[bytes, int] = {}
    for i, v in enumerate(found):
        position.setdefault(v, i)
    placed = [position[v] for v in sent if v in position]
    out.out_of_order = sum(1 for a, b in zip(placed, placed[1:], strict=False) if b < a)
    return out


# -- unavailability -----------------------------------------------------------------------------


def first_ack_after(acks: Iterable[tuple[float, float]], at: float) -> float | None:
    """``acks``: (sent, acknowledged) times. Seconds from ``at`` (a fault) to the first
    acknowledgement of a record sent at or after it; None if there is none."""
    times = [acked for sent, acked in acks if sent >= at]
    return min(times) - at if times else None


def longest_gap(times: Iterable[float], start: float, end: float) -> float:
    """The longest stretch between ``start`` and ``end`` with none of ``times`` in it."""
    points = sorted(t for t in times if start <= t <= end)
    edges = [start, *points, end]
    return max(b - a for a, b in zip(edges, edges[1:], strict=False))


# -- asking the cluster -------------------------------------------------------------------------

PartitionState = tuple[int, tuple[int, ...], tuple[int, ...]]


def partition_states(bootstrap: str, topic: str) -> dict[int, PartitionState]:
    """partition -> (leader, replicas, ISR) as the broker at ``bootstrap`` answers Metadata;
    empty when it does not know the topic."""
    with WireClient(bootstrap) as client:
        md = client.call(ApiKey.METADATA, 12, mreq.MetadataRequest(
            topics=[mreq.MetadataRequestTopic(name=topic)], allow_auto_topic_creation=False))
    [t] = md.topics
    if t.error_code:
        return {}
    return {p.partition_index: (p.leader_id, tuple(p.replica_nodes), tuple(p.isr_nodes))
            for p in t.partitions}


def agreed_states(cluster: ClusterProcesses, topic: str) -> dict[int, PartitionState] | None:
    """The topic's partitions when every live broker answers the same, each led by a live
    broker; else None."""
    live = cluster.live()
    views = [partition_states(cluster.broker(b).bootstrap, topic) for b in live]
    first = views[0] if views else {}
    if first and all(v == first for v in views) and all(s[0] in live for s in first.values()):
        return first
    return None


def full_isr(cluster: ClusterProcesses, topic: str) -> bool:
    """Whether every live broker answers that every broker of the cluster is in the ISR of
    every partition of the topic, and a live one leads it."""
    states = agreed_states(cluster, topic)
    return bool(states) and all(sorted(isr) == sorted(cluster.brokers)
                                for _, _, isr in (states or {}).values())


def high_watermarks(cluster: ClusterProcesses, topic: str, partitions: int) -> dict[int, int]:
    """partition -> high watermark (ListOffsets LATEST) as each partition's leader answers,
    asking every live broker; a partition without a leader that answers is left out."""
    out: dict[int, int] = {}
    request = lreq.ListOffsetsRequest(replica_id=-1, topics=[lreq.ListOffsetsTopic(
        name=topic, partitions=[lreq.ListOffsetsPartition(partition_index=p, timestamp=-1)
                                for p in range(partitions)])])
    for broker in cluster.live():
        try:
            with WireClient(cluster.broker(broker).bootstrap, timeout=2) as client:
                answer = client.call(ApiKey.LIST_OFFSETS, 7, request)
        except OSError:
            continue
        for t in answer.topics:
            for p in t.partitions:
                if p.error_code == ErrorCode.NONE:
                    out[p.partition_index] = p.offset
    return out


def offsets_partition(bootstrap: str, group_id: str) -> tuple[int, int]:
    """The group's partition of ``__consumer_offsets`` (Kafka's rule over the topic's partition
    count) and its leader as the broker at ``bootstrap`` knows it: the group's coordinator."""
    states = partition_states(bootstrap, OFFSETS_TOPIC)
    if not states:
        raise LookupError(f"{bootstrap} does not know {OFFSETS_TOPIC}")
    partition = partition_for(group_id, len(states))
    return partition, states[partition][0]


def find_coordinator(bootstrap: str, group_id: str) -> int:
    """The node FindCoordinator names for the group; -1 while there is none."""
    with WireClient(bootstrap) as client:
        answer = client.call(ApiKey.FIND_COORDINATOR, 3, fcreq.FindCoordinatorRequest(
            key=group_id, key_type=0))
    return answer.node_id if answer.error_code == ErrorCode.NONE else -1


def coordinator_of(cluster: ClusterProcesses, group_id: str) -> int | None:
    """The group's coordinator when every live broker agrees on it: each names the same live
    leader of the group's ``__consumer_offsets`` partition, and FindCoordinator answers it;
    else None."""
    live = cluster.live()
    try:
        led = {offsets_partition(cluster.broker(b).bootstrap, group_id)[1] for b in live}
        answered = {find_coordinator(cluster.broker(b).bootstrap, group_id) for b in live}
    except (LookupError, OSError):
        return None
    if len(led) == 1 and led == answered and next(iter(led)) in live:
        return next(iter(led))
    return None


def fetch_committed(bootstrap: str, group_id: str, topic: str,
                    partitions: Iterable[int], timeout: float = 15.0) -> dict[int, int]:
    """partition -> committed offset (-1: none) as the coordinator at ``bootstrap`` holds them;
    raises unless it answers as the group's coordinator. Stable offsets are asked for, as a
    consumer asks: a partition whose commit is still being replicated (or is pending in a
    transaction) answers UNSTABLE_OFFSET_COMMIT, and the question is asked again, as a client
    retries it, for up to ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        with WireClient(bootstrap) as client:
            answer = client.call(ApiKey.OFFSET_FETCH, 7, ofreq.OffsetFetchRequest(
                group_id=group_id, require_stable=True, topics=[ofreq.OffsetFetchRequestTopic(
                    name=topic, partition_indexes=sorted(partitions))]))
        if answer.error_code:
            raise RuntimeError(f"OffsetFetch of {group_id} from {bootstrap}: "
                               f"{ErrorCode(answer.error_code).name}")
        unstable = any(p.error_code == ErrorCode.UNSTABLE_OFFSET_COMMIT
                       for t in answer.topics for p in t.partitions)
        if not unstable or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    out = {}
    for t in answer.topics:
        for p in t.partitions:
            if p.error_code:
                raise RuntimeError(f"OffsetFetch of {group_id} {topic}-{p.partition_index} "
                                   f"from {bootstrap}: {ErrorCode(p.error_code).name}")
            out[p.partition_index] = p.committed_offset
    return out


def commit_offset(client: WireClient, group_id: str, topic: str, partition: int,
                  offset: int) -> ErrorCode:
    """OffsetCommit of one offset for a group with no members (generation -1), as an admin
    client or a consumer with manual assignment commits; the partition's error."""
    answer = client.call(ApiKey.OFFSET_COMMIT, 8, ocreq.OffsetCommitRequest(
        group_id=group_id, generation_id_or_member_epoch=-1, member_id="",
        topics=[ocreq.OffsetCommitRequestTopic(name=topic, partitions=[
            ocreq.OffsetCommitRequestPartition(partition_index=partition,
                                               committed_offset=offset)])]))
    return ErrorCode(answer.topics[0].partitions[0].error_code)


def group_sharing_partition(group_id: str, num_partitions: int, prefix: str) -> str:
    """A group id starting with ``prefix`` whose ``__consumer_offsets`` partition is
    ``group_id``'s: it has the same coordinator, always."""
    target = partition_for(group_id, num_partitions)
    for i in range(100_000):
        candidate = f"{prefix}-{i}"
        if partition_for(candidate, num_partitions) == target:
            return candidate
    raise LookupError(f"no group id starting with {prefix} in partition {target}")
