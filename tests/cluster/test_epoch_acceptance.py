"""Kafka's leader-epoch acceptance scenarios (``EpochDrivenReplicationProtocolAcceptanceTest``,
KIP-101 and KIP-279) on two pybroker processes and a real ZooKeeper (a chroot per test).

One partition with replicas [1, 2], written by the project's wire client one batch per Produce
request, so that every offset, batch boundary and leader epoch a test expects is known.
Brokers are stopped by SIGTERM (a controlled shutdown), killed by SIGKILL, frozen by SIGSTOP
and started again on the same data. Where Kafka's test deletes a stopped broker's unflushed
data, these cut the stopped broker's segment file, as a crash that lost the page cache leaves
it. Outcomes are read from what each replica holds on disk, as Kafka's test compares its
brokers' logs and epoch caches: after a clean stop both replicas must be byte-identical, every
batch's CRC valid, offsets contiguous from 0, leader epochs never going down, and each
replica's ``leader-epoch-checkpoint`` must say where each epoch starts as its batch headers do.

* ``shouldFollowLeaderEpochBasicWorkflow``: bouncing the follower and then the leader each
  starts an epoch (1, then 2); the leader records it in its cache at once, the follower with
  the first batch written in it, and every batch carries the epoch it was written in.
* ``shouldNotAllowDivergentLogs`` (KIP-101): the leader, alone in the ISR, crashes (SIGKILL) and
  loses the tail of its log (its second segment's data), comes back and takes new records at
  the offsets it lost; the follower, whose high watermark is past that point, truncates to
  where its epoch ends on the leader (its own second segment's base), not to its high
  watermark, and the logs converge.
* ``offsetsShouldNotGoBackwards`` (KIP-101): the leader loses half its log (no clean-shutdown
  marker, the segment cut in two) and then writes two compressed batches of 77 records; the
  follower's log end falls inside the first. The follower truncates to the batch boundary, so
  offsets only go up, on disk and as a consumer reads them from the follower alone.
* ``shouldSurviveFastLeaderChange``: five rounds of writing a record, bouncing the follower
  and at once the leader; no record is lost and both logs end at the count written.
* ``logsShouldNotDivergeOnUncleanLeaderElections`` (KIP-279): each broker in turn alone and
  elected unclean, so each log ends with epochs the other never had; the returning follower
  truncates in two rounds (to 2, to 1) until it reaches the epoch both share. Kafka's test can
  switch the inter-broker protocol to one before leader epochs to show the failure; pybroker
  always truncates by epoch, so the scenario runs at both protocols that do: the default (the
  divergence reported by Fetch, ``LastFetchedEpoch``) and 2.6 (OffsetForLeaderEpoch before
  fetching).
* KIP-279's own example, which Kafka's test could not make deterministic: two quick leader
  changes (A to B when A crashes with a record B never fetched, B to A by an unclean election
  after B crashes too) leave B with a record in an epoch A never had, below the end A gives for
  the epoch before it; B truncates to where the epoch A names ends on B, not to A's end.

Where the logs diverge, the test first checks that the divergence is there to be found (the
copies differ below what truncating to the high watermark, or to the leader's end offset alone,
would keep), so that a follower that kept it fails the final comparison. Every broker is
stopped by its pid when the test ends.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
from confluent_kafka.admin import AdminClient, NewTopic
from kazoo.client import KazooClient

from protocol.errors import ErrorCode
from protocol.messages import ApiKey, metadata_request as mreq, produce_request as preq
from protocol.records.batch import BatchHeader, crc_is_valid
from protocol.records.compression import CompressionType
from protocol.records.record import build_batch, decode_batch, iter_batches
from pybroker.log.checkpoints import (
    CLEAN_SHUTDOWN_MARKER,
    REPLICATION_OFFSET_CHECKPOINT,
    read_offset_checkpoint,
)
from pybroker.log.leader_epoch import LEADER_EPOCH_CHECKPOINT, read_leader_epoch_checkpoint
from pybroker.testing.broker_process import BrokerProcess
from pybroker.testing.cluster import ClusterProcesses, running_cluster, wait_for
from pybroker.testing.wire_client import WireClient
from tests.cluster.failover_clients import read_partition

TOPIC = "epochs"
VALUE_SIZE = 1000  # Kafka's msg
BIG_VALUE_SIZE = 10_000  # Kafka's msgBigger
SESSION_TIMEOUT_S = 6.0  # pybroker.testing.cluster.FAST_FAILOVER
FETCH_WAIT_MS = 200  # replica.fetch.wait.max.ms: how long a follower's fetch waits at its leader
NONE, SNAPPY = CompressionType.NONE, CompressionType.SNAPPY

#: (leader epoch, start offset) entries of a leader epoch cache
Epochs = list[tuple[int, int]]


@contextmanager
def two_brokers(tmp_path: Path, zk_connect: str, **overrides: object,
                ) -> Iterator[ClusterProcesses]:
    """Brokers 1 and 2 (FAST_FAILOVER settings), started and formed; stopped by pid."""
    settings = {"replica.fetch.wait.max.ms": FETCH_WAIT_MS, **overrides}
    with running_cluster(tmp_path / "cluster", zk_connect, size=2,
                         overrides=settings) as cluster:
        yield cluster


# -- the partition as the cluster shows it ---------------------------------------------------


@dataclass(frozen=True)
class View:
    leader: int
    leader_epoch: int
    isr: tuple[int, ...]


def view(cluster: ClusterProcesses, among: Sequence[int] | None = None) -> View | None:
    """The partition's leader, leader epoch and ISR when every live broker's Metadata (or that
    of the brokers ``among``: not a frozen one) answers the same and a live broker leads."""
    seen = set()
    for broker in cluster.live() if among is None else among:
        try:
            with WireClient(cluster.broker(broker).bootstrap, timeout=5) as client:
                md = client.call(ApiKey.METADATA, 12, mreq.MetadataRequest(
                    topics=[mreq.MetadataRequestTopic(name=TOPIC)],
                    allow_auto_topic_creation=False))
        except OSError:
            return None
        [t] = md.topics
        if t.error_code or len(t.partitions) != 1:
            return None
        [p] = t.partitions
        seen.add(View(p.leader_id, p.leader_epoch, tuple(sorted(p.isr_nodes))))
    if len(seen) != 1:
        return None
    [found] = seen
    return found if found.leader in cluster.live() else None


def wait_view(cluster: ClusterProcesses, what: str, *, leader: int | None = None,
              isr: Sequence[int] | None = None, timeout: float = 40.0) -> View:
    """The :func:`view` once it shows ``leader`` and ``isr`` (those given)."""
    def shown() -> View | None:
        v = view(cluster)
        if v is None or (leader is not None and v.leader != leader) \
                or (isr is not None and v.isr != tuple(sorted(isr))):
            return None
        return v
    found = wait_for(shown, timeout, what)
    assert found is not None
    return found


def create_topic(cluster: ClusterProcesses, **config: str) -> View:
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap})
    admin.create_topics([NewTopic(TOPIC, num_partitions=1, replica_assignment=[[1, 2]],
                                  config=config)], operation_timeout=30)[TOPIC].result()
    return wait_view(cluster, f"{TOPIC}-0 led by broker 1, both in sync", leader=1, isr=[1, 2])


def bounce(cluster: ClusterProcesses, broker: int) -> None:
    """SIGTERM (a controlled shutdown), then start again on the same data."""
    cluster.broker(broker).stop()
    cluster.broker(broker).start()


def wait_unregistered(zk: KazooClient, broker: int) -> None:
    """Until ZooKeeper has expired a killed broker's session: as in Kafka, a broker does not
    start over the ``/brokers/ids/<id>`` of its dead predecessor."""
    wait_for(lambda: zk.exists(f"/brokers/ids/{broker}") is None, SESSION_TIMEOUT_S + 20,
             f"broker {broker}'s registration to expire")


def logs_match(cluster: ClusterProcesses) -> bool:
    """Kafka's ``waitForLogsToMatch`` (and its ``awaitISR``): both replicas in the ISR, their
    logs ending at the same offset."""
    v = view(cluster)
    return v is not None and v.isr == (1, 2) \
        and log_end(cluster.broker(1)) == log_end(cluster.broker(2))


# -- writing ------------------------------------------------------------------------------


def value(tag: str, i: int, size: int = VALUE_SIZE) -> bytes:
    return f"{tag}-{i:04d}".encode().ljust(size, b".")


#: answers that say nothing was written, so that sending again cannot duplicate
NOT_WRITTEN = frozenset({ErrorCode.NOT_LEADER_OR_FOLLOWER, ErrorCode.LEADER_NOT_AVAILABLE,
                         ErrorCode.NOT_ENOUGH_REPLICAS, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION})


def produce(cluster: ClusterProcesses, values: Sequence[bytes], *, acks: int = -1,
            codec: CompressionType = NONE, among: Sequence[int] | None = None,
            timeout: float = 40.0) -> int:
    """``values`` as one batch to the partition's leader as :func:`view` finds it (found again
    while the answer says nothing was written); the base offset it was written at."""
    batch = bytes(build_batch([(None, v) for v in values], codec=codec))
    deadline = time.monotonic() + timeout
    last: object = None
    while time.monotonic() < deadline:
        v = view(cluster, among)
        if v is None:
            time.sleep(0.1)
            continue
        try:
            with WireClient(cluster.broker(v.leader).bootstrap) as client:
                answer = client.call(ApiKey.PRODUCE, 9, preq.ProduceRequest(
                    acks=acks, timeout_ms=15_000, topic_data=[preq.TopicProduceData(
                        name=TOPIC, partition_data=[preq.PartitionProduceData(
                            index=0, records=batch)])]))
        except ConnectionRefusedError as e:
            last = e
            time.sleep(0.1)
            continue
        [part] = answer.responses[0].partition_responses
        error = ErrorCode(part.error_code)
        if error == ErrorCode.NONE:
            return int(part.base_offset)
        assert error in NOT_WRITTEN, f"broker {v.leader} answered the produce with {error.name}"
        last = error
        time.sleep(0.1)
    raise AssertionError(f"no produce acknowledged in {timeout:.0f}s (last: {last!r})")


def produce_each(cluster: ClusterProcesses, values: Sequence[bytes], *, acks: int = -1,
                 codec: CompressionType = NONE) -> list[int]:
    """Each value in a batch of its own, one after the other (Kafka's ``send(...).get()``)."""
    return [produce(cluster, [v], acks=acks, codec=codec) for v in values]


# -- what a replica holds on disk -------------------------------------------------------------


@dataclass(frozen=True)
class Batch:
    position: int
    header: BatchHeader
    crc_ok: bool
    data: bytes

    @property
    def base(self) -> int:
        return self.header.base_offset

    @property
    def epoch(self) -> int:
        return self.header.partition_leader_epoch

    def values(self) -> list[bytes]:
        return [r.value or b"" for r in decode_batch(self.data, verify_crc=False)[1]]

    def __repr__(self) -> str:  # for assertion messages: offsets, epoch, the values' tags
        tags = sorted({v.rstrip(b".")[:1].decode() for v in self.values()})
        return f"<{self.base}-{self.header.last_offset} epoch {self.epoch} {''.join(tags)}>"


def partition_dir(broker: BrokerProcess) -> Path:
    return broker.data_dir / f"{TOPIC}-0"


def log_bytes(broker: BrokerProcess) -> bytes:
    """The partition's segment files, concatenated in offset order."""
    return b"".join(s.read_bytes() for s in sorted(partition_dir(broker).glob("*.log")))


def batches_of(data: bytes) -> list[Batch]:
    """Every whole batch (a batch still being written at the end is left out)."""
    return [Batch(pos, header, crc_is_valid(data, pos, header), data[pos:pos + header.size])
            for pos, header in iter_batches(data)]


def log_batches(broker: BrokerProcess) -> list[Batch]:
    return batches_of(log_bytes(broker))


def log_end(broker: BrokerProcess) -> int:
    found = log_batches(broker)
    return found[-1].header.next_offset if found else 0


def values_of(batches: Sequence[Batch]) -> list[bytes]:
    return [v for b in batches for v in b.values()]


def epoch_cache(broker: BrokerProcess) -> Epochs:
    """The replica's ``leader-epoch-checkpoint`` (its storage thread writes it a moment after
    the cache changes)."""
    entries = read_leader_epoch_checkpoint(partition_dir(broker) / LEADER_EPOCH_CHECKPOINT)
    return [(e.epoch, e.start_offset) for e in entries or ()]


def epochs_of(batches: Sequence[Batch]) -> Epochs:
    """Where each epoch starts, by the batch headers."""
    out: Epochs = []
    for b in batches:
        if not out or b.epoch != out[-1][0]:
            out.append((b.epoch, b.base))
    return out


def checkpointed_high_watermark(broker: BrokerProcess) -> int:
    return read_offset_checkpoint(broker.data_dir / REPLICATION_OFFSET_CHECKPOINT)[(TOPIC, 0)]


def cut_tail(broker: BrokerProcess, size: int) -> list[Batch]:
    """Cut ``size`` bytes off the end of the stopped broker's last segment of the partition (the
    unflushed tail a crash loses); the whole batches left in the log."""
    segment = sorted(partition_dir(broker).glob("*.log"))[-1]
    length = segment.stat().st_size
    assert size <= length, f"{segment.name} holds {length} bytes, fewer than {size}"
    with open(segment, "r+b") as f:
        f.truncate(length - size)
    return log_batches(broker)


def check_replica(cluster: ClusterProcesses, broker_id: int) -> list[Batch]:
    """A stopped replica's batches, after checking them: no torn bytes, valid CRCs, offsets
    from 0 without a gap or a step back, epochs never going down, and a leader epoch checkpoint
    that says where each epoch starts as the batches do (its last entries may start at the log
    end: epochs a leader began without writing in them)."""
    name = f"broker {broker_id}"
    data = log_bytes(cluster.broker(broker_id))
    batches = batches_of(data)
    assert batches, f"{name} holds no batches"
    assert sum(len(b.data) for b in batches) == len(data), f"{name}: torn bytes at the end"
    bad = [b for b in batches if not b.crc_ok]
    assert not bad, f"{name}: CRC mismatch in {bad}"
    expected = 0
    for b in batches:
        assert b.base == expected, f"{name}: the batch after offset {expected - 1} is {b}"
        expected = b.header.next_offset
    epochs = [b.epoch for b in batches]
    assert epochs == sorted(epochs), f"{name}: leader epochs go down: {batches}"
    cache = epoch_cache(cluster.broker(broker_id))
    with_data = [(e, start) for e, start in cache if start < expected]
    assert with_data == epochs_of(batches), \
        f"{name}: its epoch checkpoint {cache} disagrees with its batches {batches}"
    assert all(start == expected for _, start in cache[len(with_data):]), cache
    return batches


def wait_logs_match(cluster: ClusterProcesses, timeout: float = 40.0) -> None:
    """Until :func:`logs_match`; on a timeout, what each replica holds."""
    try:
        wait_for(lambda: logs_match(cluster), timeout, "both in the ISR, their logs ending alike")
    except AssertionError as e:
        raise AssertionError(f"{e}\nbroker 1: {log_batches(cluster.broker(1))}\n"
                             f"broker 2: {log_batches(cluster.broker(2))}") from None


def stop_and_compare(cluster: ClusterProcesses) -> list[Batch]:
    """Once the logs match, stop both brokers cleanly (broker 2 first), check each replica
    (:func:`check_replica`) and compare them byte for byte, epoch caches too; the batches."""
    wait_logs_match(cluster)
    cluster.stop()
    first, second = check_replica(cluster, 1), check_replica(cluster, 2)
    assert [b.data for b in first] == [b.data for b in second], \
        f"the replicas differ:\nbroker 1: {first}\nbroker 2: {second}"
    end = first[-1].header.next_offset
    ones, twos = (epoch_cache(cluster.broker(b)) for b in (1, 2))
    assert [e for e in ones if e[1] < end] == [e for e in twos if e[1] < end], (ones, twos)
    return first


def logged_since_start(broker: BrokerProcess) -> str:
    """What the broker logged since it last started."""
    return broker.log_path.read_text().split(f"===== start #{broker.starts}")[-1]


TRUNCATION = re.compile(rf"truncating {TOPIC}-0 to (\d+) \(the leader's epoch (\d+) ends at "
                        rf"(\d+); (done|another round follows)\)")


def truncations(broker: BrokerProcess) -> list[tuple[int, int, int, bool]]:
    """(to, the leader's epoch, its end offset, done) of each truncation the broker's fetcher
    made since it last started."""
    return [(int(to), int(epoch), int(end), done == "done")
            for to, epoch, end, done in TRUNCATION.findall(logged_since_start(broker))]


# -- the scenarios ----------------------------------------------------------------------------


def test_should_follow_leader_epoch_basic_workflow(tmp_path: Path, zk_connect: str) -> None:
    with two_brokers(tmp_path, zk_connect) as cluster:
        create_topic(cluster)
        one, two = cluster.broker(1), cluster.broker(2)

        def caches(leader: BrokerProcess, leaders: Epochs,
                   follower: BrokerProcess, followers: Epochs) -> None:
            wait_for(lambda: epoch_cache(leader) == leaders and epoch_cache(follower) == followers,
                     10, f"epoch caches {leaders} on the leader and {followers} on the follower")

        # one record: epoch 0 stamped on both copies, both caches at (0, 0)
        assert produce(cluster, [value("m", 0)]) == 0
        assert [b.epoch for b in log_batches(one)] == [b.epoch for b in log_batches(two)] == [0]
        caches(one, [(0, 0)], two, [(0, 0)])

        # the follower bounces: its controlled shutdown took it out of the ISR in a new epoch,
        # which the leader records at once; the follower has nothing of it yet
        bounce(cluster, 2)
        assert wait_view(cluster, "broker 2 back in the ISR", leader=1, isr=[1, 2]) \
            .leader_epoch == 1
        caches(one, [(0, 0), (1, 1)], two, [(0, 0)])

        # a record brings epoch 1 to the follower with it
        assert produce(cluster, [value("m", 1)]) == 1
        caches(one, [(0, 0), (1, 1)], two, [(0, 0), (1, 1)])
        assert log_batches(one)[-1].epoch == log_batches(two)[-1].epoch == 1

        # the leader bounces: broker 2 leads in epoch 2, broker 1 follows without it so far
        bounce(cluster, 1)
        assert wait_view(cluster, "broker 1 back in the ISR, following 2", leader=2,
                         isr=[1, 2]).leader_epoch == 2
        caches(two, [(0, 0), (1, 1), (2, 2)], one, [(0, 0), (1, 1)])

        assert produce(cluster, [value("m", 2)]) == 2
        assert log_batches(one)[-1].epoch == log_batches(two)[-1].epoch == 2
        caches(two, [(0, 0), (1, 1), (2, 2)], one, [(0, 0), (1, 1), (2, 2)])

        batches = stop_and_compare(cluster)
        assert [(b.base, b.epoch) for b in batches] == [(0, 0), (1, 1), (2, 2)]


def test_should_not_allow_divergent_logs(tmp_path: Path, zk_connect: str,
                                         zk: KazooClient) -> None:
    # five batches to a segment: the last five of the ten below roll a second one
    segment_bytes = 5 * len(build_batch([(None, value("a", 0))]))
    with two_brokers(tmp_path, zk_connect) as cluster:
        create_topic(cluster, **{"segment.bytes": str(segment_bytes)})
        one, two = cluster.broker(1), cluster.broker(2)
        # ten records, a batch each, so that the log can be cut between them
        assert produce_each(cluster, [value("a", i) for i in range(10)]) == list(range(10))
        for broker in (one, two):
            assert [p.name for p in sorted(partition_dir(broker).glob("*.log"))] == \
                ["00000000000000000000.log", "00000000000000000005.log"]

        # the follower stops first (broker 1 stays the leader), then the leader crashes...
        two.stop()
        wait_view(cluster, "broker 1 leading alone", leader=1, isr=[1])
        one.kill()
        wait_unregistered(zk, 1)
        # ...and what it had not flushed is lost: five values' worth of bytes, all of the
        # second segment but a piece of its first batch (recovery drops the torn batch)
        assert [b.base for b in cut_tail(one, 5 * VALUE_SIZE)] == list(range(5))

        # broker 1 comes back alone and leads; nine new records take offsets 5..13
        one.start()
        wait_view(cluster, "broker 1 leading again", leader=1, isr=[1])
        assert produce_each(cluster, [value("b", i) for i in range(9)]) == list(range(5, 14))

        # the divergence is there: broker 2's offsets 5..9 hold other records, and its high
        # watermark (one fetch behind the leader's 10) is past the first of them, so truncating
        # to it, as followers did before KIP-101, would keep some
        assert values_of(log_batches(two)[5:]) == [value("a", i) for i in range(5, 10)]
        assert values_of(log_batches(one)[5:10]) == [value("b", i) for i in range(5)]
        assert 5 < checkpointed_high_watermark(two) <= 10

        two.start()
        wait_logs_match(cluster)
        # to where epoch 0 ends on broker 1: the base offset of broker 2's second segment
        assert truncations(two) == [(5, 0, 5, True)]
        batches = stop_and_compare(cluster)
        assert values_of(batches) == \
            [value("a", i) for i in range(5)] + [value("b", i) for i in range(9)]


def test_offsets_should_not_go_backwards(tmp_path: Path, zk_connect: str) -> None:
    with two_brokers(tmp_path, zk_connect) as cluster:
        create_topic(cluster)
        one, two = cluster.broker(1), cluster.broker(2)
        # a hundred compressed batches of one record each
        assert produce_each(cluster, [value("a", i) for i in range(100)], codec=SNAPPY) \
            == list(range(100))

        # Kafka's test stops broker 100 (the leader) first, which hands its leadership to 101
        # and leaves the damaged broker out of the ISR; stopped the other way round, as in
        # shouldNotAllowDivergentLogs, the broker whose log lost half its bytes leads again
        two.stop()
        wait_view(cluster, "broker 1 leading alone", leader=1, isr=[1])
        one.stop()
        (one.data_dir / CLEAN_SHUTDOWN_MARKER).unlink()  # as if it had crashed
        kept = len(cut_tail(one, len(log_bytes(one)) // 2))  # (one segment)
        assert 40 <= kept <= 60

        one.start()
        wait_view(cluster, "broker 1 leading again", leader=1, isr=[1])
        # two batches of 77 records: broker 2's log end (100), and its high watermark, fall
        # inside the first
        first = produce(cluster, [value("b", i) for i in range(77)], codec=SNAPPY)
        second = produce(cluster, [value("c", i) for i in range(77)], codec=SNAPPY)
        assert (first, second) == (kept, kept + 77)
        assert first < checkpointed_high_watermark(two) <= log_end(two) == 100 < second

        # broker 2 comes back: had it not truncated to the batch boundary, it would append the
        # whole batch after its offset 99, numbering records backwards
        two.start()
        wait_logs_match(cluster)
        assert truncations(two) == [(kept, 0, kept, True)]  # once, to the batch boundary
        copy = log_batches(two)
        assert [b.base for b in copy] == sorted({b.base for b in copy}), \
            f"broker 2's offsets go backwards: {copy}"
        assert log_bytes(two) == log_bytes(one), \
            f"the replicas differ:\nbroker 1: {log_batches(one)}\nbroker 2: {copy}"
        # read back from broker 2 alone by a consumer, as Kafka's test does
        one.stop()
        wait_view(cluster, "broker 2 leading", leader=2)
        read = read_partition(two.bootstrap, TOPIC, 0)
        assert [offset for offset, _ in read] == list(range(kept + 154))
        assert [v for _, v in read] == [value("a", i) for i in range(kept)] + \
            [value("b", i) for i in range(77)] + [value("c", i) for i in range(77)]

        one.start()
        wait_logs_match(cluster)
        assert truncations(one) == []  # back as a follower of a log the same as its own
        batches = stop_and_compare(cluster)
        assert [(b.base, b.header.records_count) for b in batches[kept:]] == \
            [(kept, 77), (kept + 77, 77)]
        assert {b.header.compression for b in batches} == {SNAPPY}


FAST_CHANGES = 5


@pytest.mark.long  # make test-long
def test_should_survive_fast_leader_change(tmp_path: Path, zk_connect: str) -> None:
    with two_brokers(tmp_path, zk_connect) as cluster:
        epochs = [create_topic(cluster).leader_epoch]
        assert produce(cluster, [value("m", 0)]) == 0
        written = 1
        for round_ in range(FAST_CHANGES):
            leader = wait_view(cluster, "a leader").leader
            follower = 3 - leader
            assert produce(cluster, [value("m", written)]) == written
            written += 1
            # as soon as it has the record, the follower bounces, then the leader
            bounce(cluster, follower)
            epochs.append(wait_view(cluster, f"round {round_}: broker {follower} in sync",
                                    isr=[1, 2]).leader_epoch)
            bounce(cluster, leader)
            epochs.append(wait_view(cluster, f"round {round_}: broker {leader} in sync",
                                    leader=follower, isr=[1, 2]).leader_epoch)
            # no record lost, on either
            ends = {b: log_end(cluster.broker(b)) for b in (1, 2)}
            assert ends == {1: written, 2: written}, f"round {round_}: log ends {ends}"
        assert epochs == sorted(set(epochs)), f"a bounce did not start an epoch: {epochs}"
        batches = stop_and_compare(cluster)
        assert values_of(batches) == [value("m", i) for i in range(written)]


@pytest.mark.long  # make test-long
@pytest.mark.parametrize("ibp", ["3.9-IV0", "2.6"],
                         ids=["truncation-on-fetch", "offset-for-leader-epoch"])
def test_logs_should_not_diverge_on_unclean_leader_elections(
        tmp_path: Path, zk_connect: str, ibp: str) -> None:
    with two_brokers(tmp_path, zk_connect, **{"unclean.leader.election.enable": "true",
                                              "inter.broker.protocol.version": ibp}) as cluster:
        create_topic(cluster, **{"min.insync.replicas": "1"})
        one, two = cluster.broker(1), cluster.broker(2)

        def alone(up: int, down: int) -> None:
            """``down``, the last of the ISR, stops; ``up`` starts and is elected unclean."""
            cluster.broker(down).stop()
            cluster.broker(up).start()
            wait_view(cluster, f"broker {up} elected", leader=up, isr=[up])

        assert produce(cluster, [value("m", 0)], acks=1) == 0
        wait_logs_match(cluster)  # acks=1: until the follower has it
        one.stop()  # broker 2 takes over (controlled shutdown)
        wait_view(cluster, "broker 2 leading", leader=2, isr=[2])
        assert produce(cluster, [value("n", 1)], acks=1) == 1
        alone(1, 2)
        assert produce_each(cluster, [value("o", i, BIG_VALUE_SIZE) for i in range(1, 4)],
                            acks=1) == [1, 2, 3]
        alone(2, 1)
        assert produce(cluster, [value("p", 2)], acks=1) == 2
        alone(1, 2)
        assert produce_each(cluster, [value("q", i, BIG_VALUE_SIZE) for i in range(4, 6)],
                            acks=1) == [4, 5]

        # each log ends with epochs the other never had: broker 2's offsets 1 and 2 are
        # records broker 1 does not hold, and its high watermark is past both
        ours, theirs = log_batches(one), log_batches(two)
        assert [b.base for b in ours] == list(range(6)) and [b.base for b in theirs] == [0, 1, 2]
        assert theirs[0].data == ours[0].data
        assert {b.epoch for b in theirs[1:]}.isdisjoint(b.epoch for b in ours)
        assert values_of(theirs[1:]) == [value("n", 1), value("p", 2)]
        assert checkpointed_high_watermark(two) == 3

        two.start()
        wait_logs_match(cluster)
        # broker 2 reached the epoch both share in two rounds (KIP-279): its latest epoch
        # ends at 4 on broker 1, where broker 2 has nothing of it: to where broker 2's own
        # epoch before it ends (2), then by that epoch (0, which ends at 1 on both)
        assert [(to, done) for to, _, _, done in truncations(two)] == [(2, False), (1, True)]
        batches = stop_and_compare(cluster)
        assert values_of(batches) == [value("m", 0)] + \
            [value("o", i, BIG_VALUE_SIZE) for i in range(1, 4)] + \
            [value("q", i, BIG_VALUE_SIZE) for i in range(4, 6)]
        assert [b.header.crc for b in batches] == [b.header.crc for b in ours]  # Kafka's check


@pytest.mark.long  # make test-long
def test_kip_279_follower_ahead_of_a_new_leader_with_fewer_epochs(
        tmp_path: Path, zk_connect: str, zk: KazooClient) -> None:
    with two_brokers(tmp_path, zk_connect, **{"unclean.leader.election.enable": "true"}) \
            as cluster:
        create_topic(cluster, **{"min.insync.replicas": "1"})
        a, b = cluster.broker(1), cluster.broker(2)
        assert produce(cluster, [value("m", 1)]) == 0  # acks=all: on both

        # B stops fetching (a fetch it had waiting at A comes back empty meanwhile); A takes
        # m2 with acks=1 and crashes before B has it
        b.freeze()
        try:
            time.sleep(8 * FETCH_WAIT_MS / 1000)
            assert produce(cluster, [value("m", 2)], acks=1, among=[1]) == 1
            a.kill()
        finally:
            b.thaw()
        # B, still in the ISR, is elected once A's session is gone (a clean election), and
        # takes m3 at offset 1
        wait_view(cluster, "broker 2 leading", leader=2, timeout=SESSION_TIMEOUT_S + 30)
        assert "Unclean leader election" not in b.log_path.read_text()
        assert produce(cluster, [value("m", 3)], acks=1) == 1
        # B crashes too; A comes back and is elected unclean, and takes m4 at offset 2
        b.kill()
        wait_unregistered(zk, 2)
        a.start()
        wait_view(cluster, "broker 1 elected", leader=1, isr=[1])
        assert produce(cluster, [value("m", 4)], acks=1) == 2

        # B's log [m1, m3] has an epoch A never had. The largest epoch A has below it is 0,
        # which ends at 2 on A but at 1 on B: a follower truncating to the leader's end offset
        # alone (before KIP-279) would keep m3 at offset 1, where A has m2.
        ours, theirs = log_batches(a), log_batches(b)
        assert values_of(ours) == [value("m", i) for i in (1, 2, 4)]
        assert values_of(theirs) == [value("m", i) for i in (1, 3)]
        b_epoch, a_epoch = theirs[1].epoch, ours[2].epoch
        assert epochs_of(theirs) == [(0, 0), (b_epoch, 1)]
        assert epochs_of(ours) == [(0, 0), (a_epoch, 2)] and 0 < b_epoch < a_epoch

        b.start()
        wait_logs_match(cluster)
        assert truncations(b) == [(1, 0, 2, True)]  # A names epoch 0: B's ends at 1
        batches = stop_and_compare(cluster)
        assert values_of(batches) == [value("m", i) for i in (1, 2, 4)]
