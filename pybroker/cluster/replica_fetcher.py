"""Followers copying their leaders' logs: Kafka's ``AbstractFetcherThread`` /
``ReplicaFetcherThread`` as one asyncio task per (source broker, fetcher id), and the pure
decisions they make.

A fetcher keeps a :class:`PartitionFetchState` per partition it follows from its source broker
and loops (:meth:`ReplicaFetcher.do_work`):

1. **Truncate** the partitions in the *Truncating* state. Those whose log has leader epochs ask
   the leader where their latest epoch ends (OffsetForLeaderEpoch) and truncate there
   (:func:`offset_truncation_state`, possibly over several rounds, KIP-279); those without
   epochs (a new, empty log) truncate to their high watermark, which is harmless.
2. **Fetch**: one Fetch for every partition ready to fetch, as the follower (replica id), from
   each partition's log end offset with the epoch of its last batch (``LastFetchedEpoch``); at
   the version the inter-broker protocol allows (v17 at 3.9-IV0: topics by id, the replica id
   and broker epoch in ``ReplicaState``), v12 by name while a partition has no topic id. The
   fetch is part of an incremental fetch session with the leader (KIP-227, as Kafka's
   followers fetch): it names only the partitions whose fetch data changed since the last one,
   and the answer only those with news; the others are implied unchanged.
3. **Process** the answer, partition by partition:

   * data: append it unvalidated (``Partition.append_records_to_follower``), take the
     leader's high watermark bounded by our log end, raise our log start to the leader's;
   * a ``DivergingEpoch``: truncate to where the logs part, as the leader sees it, and fetch
     again from there (no data is taken from such an answer);
   * OFFSET_OUT_OF_RANGE: ask the leader for its log end; truncate to it if it is below ours
     (the unclean-election case), else restart at its log start if ours ends before it;
   * FENCED_LEADER_EPOCH with our current epoch: stop following the partition until the next
     LeaderAndIsr; UNKNOWN_LEADER_EPOCH, NOT_LEADER_OR_FOLLOWER, UNKNOWN_TOPIC_ID (a leader
     whose metadata does not name the topic yet) and other errors: back off
     ``replica.fetch.backoff.ms`` and retry. A failed request backs off every partition in it.

Truncation goes only by leader epochs, never to the high watermark of a log that has epochs
(KIP-101): with ``inter.broker.protocol.version`` 2.7 or later (the default) the divergence
rides on Fetch v12 (``LastFetchedEpoch`` -> ``DivergingEpoch``, KAFKA-10554); below it every
partition starts *Truncating* and OffsetForLeaderEpoch decides, as before 2.7.

:class:`ReplicaFetcherManager` (Kafka's ``AbstractFetcherManager``) owns the fetchers: a
partition goes to fetcher ``abs(31 * hash(topic) + partition) % num.replica.fetchers`` of its
leader (:func:`fetcher_id`); fetchers left with no partitions are stopped.

Concurrency notes: everything runs on the event loop that owns the partitions. A fetcher awaits
only the leader's answers; a partition's state is re-checked after every await, since a
LeaderAndIsr or StopReplica may have removed or re-added it meanwhile, and an answer is used
only for the fetch offset and leader epoch it was asked with. Logic that depends on time takes
``now_ms``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Protocol

from protocol.errors import ErrorCode, KafkaError
from pybroker.cluster.fetcher_state import (
    UNDEFINED_EPOCH,
    FetcherConfig,
    FetchState,
    InitialFetchState,
    OffsetTruncationState,
    PartitionFetchState,
    check_transition,
    fetcher_id,
    offset_truncation_state,
)
from pybroker.cluster.leader_endpoint import (
    EpochEndOffset,
    FetchedPartition,
    FetchPartitionRequest,
    FetchRequestError,
    LeaderEndpoint,
    RemoteLeaderEndpoint,
)
from pybroker.cluster.metadata_cache import BrokerEndpoint
from pybroker.kernel.clock import SYSTEM_CLOCK, Clock
from pybroker.kernel.types import TopicPartition
from pybroker.metrics.broker_topic_stats import REPLICATION_BYTES_IN, BrokerTopicStats
from pybroker.metrics.registry import Meter, MetricsRegistry, mbean
from pybroker.network.client import BrokerClientError

if TYPE_CHECKING:
    from pybroker.cluster.partition import Partition
    from pybroker.quota.replication import ReplicationQuota

log = logging.getLogger(__name__)


class FollowerPartitions(Protocol):
    """What a fetcher needs of the replica manager: the partitions it follows."""

    def get_partition(self, topic: str, partition: int) -> Partition | None: ...

    @property
    def topic_stats(self) -> BrokerTopicStats: ...


class ReplicaFetcher:
    """The partitions this broker follows from one leader, fetched together by one task."""

    def __init__(self, name: str, fetcher_id: int, leader: LeaderEndpoint,
                 replicas: FollowerPartitions, config: FetcherConfig,
                 clock: Clock = SYSTEM_CLOCK) -> None:
        self.name = name
        self.fetcher_id = fetcher_id
        self.leader = leader
        self.replicas = replicas
        self.config = config
        self.clock = clock
        self.partitions: dict[TopicPartition, PartitionFetchState] = {}
        #: the fetch requests sent (the manager's MinFetchRate reads its rate)
        self.requests = Meter(clock.monotonic())
        #: partitions fenced or broken here, left alone until added again (a LeaderAndIsr)
        self.failed: set[TopicPartition] = set()
        self._changed = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        #: the request last built for each partition, with what it was built from: a quiet
        #: partition is asked for with the same object round after round
        self._built: dict[TopicPartition,
                          tuple[PartitionFetchState, int, object, FetchPartitionRequest]] = {}
        #: the followers' replication quota (KIP-73); None or unbounded: no throttle
        self.quota: ReplicationQuota | None = None

    def __repr__(self) -> str:
        return f"ReplicaFetcher({self.name}, {len(self.partitions)} partitions)"

    @property
    def truncation_on_fetch(self) -> bool:
        return self.config.truncation_on_fetch

    @property
    def partition_count(self) -> int:
        return len(self.partitions)

    # -- partitions ----------------------------------------------------------------------------
    def add_partitions(self, initial: Mapping[TopicPartition, InitialFetchState]) -> None:
        """Follow these partitions (``addPartitions``): a partition already followed in the
        same leader epoch keeps its state; otherwise it starts at its initial offset, fetching
        with its latest epoch when its log has epochs, else truncating first."""
        added: list[str] = []
        for tp, init in initial.items():
            was_failed = tp in self.failed
            self.failed.discard(tp)
            current = self.partitions.pop(tp, None)
            if current is not None and current.current_leader_epoch == init.current_leader_epoch:
                self.partitions[tp] = current
                continue
            partition = self.replicas.get_partition(*tp)
            latest = partition.latest_epoch if partition is not None else None
            if self.truncation_on_fetch and latest is not None:
                state = PartitionFetchState(init.init_offset, init.current_leader_epoch,
                                            FetchState.FETCHING, latest)
            else:
                state = PartitionFetchState(init.init_offset, init.current_leader_epoch,
                                            FetchState.TRUNCATING, None)
            if was_failed:
                check_transition(tp, FetchState.FAILED, state.state)
            self.partitions[tp] = state
            added.append(f"{tp[0]}-{tp[1]} from offset {init.init_offset} in leader epoch "
                         f"{init.current_leader_epoch} ({state.state.value})")
        if added:  # one line per change, as Kafka's "Added fetcher to broker ..."
            log.info("%s: following %s", self.name, ", ".join(added))
        self._changed.set()

    def remove_partitions(self, partitions: Iterable[TopicPartition]) -> None:
        for tp in partitions:
            self.partitions.pop(tp, None)
            self.failed.discard(tp)

    def _mark_failed(self, tp: TopicPartition, why: str, level: int = logging.WARNING) -> None:
        state = self.partitions.pop(tp, None)
        if state is not None:
            check_transition(tp, state.state, FetchState.FAILED)
            self.failed.add(tp)
            log.log(level, "%s: stopped fetching %s-%d until its next leader and ISR: %s",
                    self.name, tp[0], tp[1], why)

    def _delay(self, partitions: Iterable[TopicPartition], now_ms: int) -> None:
        until = now_ms + self.config.backoff_ms
        for tp in partitions:
            state = self.partitions.get(tp)
            if state is not None:
                self.partitions[tp] = replace(state, delayed_until_ms=until)

    def _update(self, tp: TopicPartition, state: PartitionFetchState) -> None:
        """Replace a partition's state and move it to the end of the fetch order, so that
        partitions with data do not crowd the others out of ``replica.fetch.response.max.bytes``
        (Kafka's ``updateAndMoveToEnd``)."""
        old = self.partitions.pop(tp, None)
        if old is not None:
            check_transition(tp, old.state, state.state)
        self.partitions[tp] = state

    # -- life cycle ----------------------------------------------------------------------------
    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run(), name=self.name)

    @property
    def dead(self) -> bool:
        """The task ended on its own, while it was to run (Kafka's dead fetcher thread)."""
        return self._task is not None and self._task.done()

    def stop(self) -> asyncio.Task[None] | None:
        """Stop the task and close the connection; returns the task to await, if any."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
        self.leader.close()
        return task

    async def shutdown(self) -> None:
        task = self.stop()
        if task is not None:
            await asyncio.gather(task, return_exceptions=True)

    async def _run(self) -> None:
        log.info("%s: started, fetching from broker %d at %s:%d", self.name,
                 self.leader.node.node_id, self.leader.node.host, self.leader.node.port)
        while True:
            try:
                await self.do_work()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("%s: unexpected error; backing off", self.name)
                self._delay(list(self.partitions), self.clock.milliseconds())
                await asyncio.sleep(self.config.backoff_ms / 1000)

    async def do_work(self) -> None:
        """One round: truncate what must be truncated, then one Fetch and its processing."""
        await self.maybe_truncate()
        await self.maybe_fetch()

    # -- truncation ----------------------------------------------------------------------------
    async def maybe_truncate(self) -> None:
        now = self.clock.milliseconds()
        with_epochs: dict[TopicPartition, tuple[int, int]] = {}
        without_epochs: list[TopicPartition] = []
        for tp, state in self.partitions.items():
            if not state.is_truncating(now):
                continue
            partition = self.replicas.get_partition(*tp)
            latest = partition.latest_epoch if partition is not None else None
            if latest is not None:
                with_epochs[tp] = (state.current_leader_epoch, latest)
            else:
                without_epochs.append(tp)
        if with_epochs:
            await self._truncate_to_epoch_end_offsets(with_epochs)
        if without_epochs:
            self._truncate_to_high_watermark(without_epochs)

    async def _truncate_to_epoch_end_offsets(
            self, latest: dict[TopicPartition, tuple[int, int]]) -> None:
        try:
            answers = await self.leader.fetch_epoch_end_offsets(latest)
        except (BrokerClientError, OSError, KafkaError) as e:
            log.warning("%s: OffsetForLeaderEpoch failed: %s", self.name, e)
            self._delay(latest, self.clock.milliseconds())
            return
        # only answers for the leader epoch they were asked in (no LeaderAndIsr since)
        current = {tp: answer for tp, answer in answers.items()
                   if tp in latest and tp in self.partitions
                   and self.partitions[tp].current_leader_epoch == latest[tp][0]}
        self._truncate_to_epoch_end_offsets_now(current, {tp: e for tp, (e, _) in latest.items()})

    def _truncate_to_epoch_end_offsets_now(self, answers: Mapping[TopicPartition, EpochEndOffset],
                                           request_epochs: Mapping[TopicPartition, int]) -> None:
        """``maybeTruncateToEpochEndOffsets`` and ``updateFetchOffsetAndMaybeMarkTruncation
        Complete``: truncate each partition as its leader's answer says."""
        now = self.clock.milliseconds()
        with_error: list[TopicPartition] = []
        done: dict[TopicPartition, OffsetTruncationState] = {}
        for tp, answer in answers.items():
            state = self.partitions.get(tp)
            if state is None:
                continue
            if answer.error == ErrorCode.NONE:
                truncation = self._offset_truncation_state(tp, state, answer)
                if truncation is not None and self._do_truncate(tp, truncation):
                    done[tp] = truncation
            elif answer.error == ErrorCode.FENCED_LEADER_EPOCH:
                if self._on_partition_fenced(tp, request_epochs.get(tp)):
                    with_error.append(tp)
            else:
                log.info("%s: retrying the truncation of %s-%d: the leader answered %s",
                         self.name, tp[0], tp[1], answer.error.name)
                with_error.append(tp)
        self._delay(with_error, now)
        for tp, truncation in done.items():
            state = self.partitions.get(tp)
            if state is None:
                continue
            partition = self.replicas.get_partition(*tp)
            if partition is None:
                continue
            completed = self.truncation_on_fetch or truncation.truncation_completed
            self._update(tp, replace(
                state, fetch_offset=self._offset_after_truncation(partition, truncation.offset),
                state=FetchState.FETCHING if completed else FetchState.TRUNCATING,
                last_fetched_epoch=partition.latest_epoch))

    def _offset_truncation_state(self, tp: TopicPartition, state: PartitionFetchState,
                                 answer: EpochEndOffset) -> OffsetTruncationState | None:
        partition = self.replicas.get_partition(*tp)
        if partition is None or partition.log is None:
            self._mark_failed(tp, "the partition is no longer hosted here")
            return None
        plog = partition.log
        truncation = offset_truncation_state(
            answer.leader_epoch, answer.end_offset, fetch_offset=state.fetch_offset,
            log_end_offset=plog.log_end_offset, local_end_offset_for=plog.end_offset_for_epoch)
        log.info("%s: truncating %s-%d to %d (the leader's epoch %d ends at %d; %s)", self.name,
                 tp[0], tp[1], truncation.offset, answer.leader_epoch, answer.end_offset,
                 "done" if truncation.truncation_completed else "another round follows")
        return truncation

    def _do_truncate(self, tp: TopicPartition, truncation: OffsetTruncationState) -> bool:
        partition = self.replicas.get_partition(*tp)
        try:
            if partition is None:
                raise KafkaError(ErrorCode.NOT_LEADER_OR_FOLLOWER)
            high_watermark = partition.high_watermark
            partition.truncate_to(truncation.offset)
        except Exception as e:  # noqa: BLE001 - the partition stops; the others carry on
            log.exception("%s: truncating %s-%d failed", self.name, *tp)
            self._mark_failed(tp, f"truncation failed: {e}")
            return False
        if truncation.offset < high_watermark:
            log.warning("%s: truncated %s-%d to %d, below its high watermark %d", self.name,
                        tp[0], tp[1], truncation.offset, high_watermark)
        return True

    def _truncate_to_high_watermark(self, partitions: list[TopicPartition]) -> None:
        """Partitions whose log has no epochs truncate to their initial fetch offset (their
        high watermark): a new, empty log, where it changes nothing."""
        done: dict[TopicPartition, OffsetTruncationState] = {}
        for tp in partitions:
            state = self.partitions.get(tp)
            if state is None:
                continue
            truncation = OffsetTruncationState(state.fetch_offset, True)
            if self._do_truncate(tp, truncation):
                done[tp] = truncation
        for tp, truncation in done.items():
            state = self.partitions[tp]
            partition = self.replicas.get_partition(*tp)
            if partition is None:
                continue
            self._update(tp, replace(
                state, fetch_offset=self._offset_after_truncation(partition, truncation.offset),
                state=FetchState.FETCHING, last_fetched_epoch=partition.latest_epoch))

    @staticmethod
    def _offset_after_truncation(partition: Partition, offset: int) -> int:
        """Where to fetch after truncating to ``offset``: there, unless the truncation had to
        cut a whole batch across it and the log now ends earlier (offsets a leader without
        epochs gave; Kafka would stop the partition on the offset mismatch)."""
        return min(offset, partition.log_end_offset)

    def _on_partition_fenced(self, tp: TopicPartition, request_epoch: int | None) -> bool:
        """The leader has a newer epoch than the one we asked with. If that is still our
        epoch, wait for the LeaderAndIsr that brings the new one (returns False); otherwise
        we already moved on: retry later (True)."""
        state = self.partitions.get(tp)
        if state is None:
            return False
        if request_epoch is not None and request_epoch == state.current_leader_epoch:
            # the usual order of things: the leader heard of the new epoch first
            self._mark_failed(tp, f"the leader has an epoch newer than {request_epoch}",
                              logging.INFO)
            return False
        return True

    # -- fetching ------------------------------------------------------------------------------
    def build_fetch(self, now_ms: int) -> tuple[list[FetchPartitionRequest], list[TopicPartition]]:
        """The partitions ready to fetch, as Fetch asks for them, and those whose log is gone."""
        requests: list[FetchPartitionRequest] = []
        broken: list[TopicPartition] = []
        built = self._built
        quota = self.quota if self.quota is not None and self.quota.enabled else None
        exceeded: bool | None = None
        for tp, state in self.partitions.items():
            if not state.is_ready_for_fetch(now_ms):
                continue
            if quota is not None and not (state.lag is not None and state.lag <= 0) \
                    and quota.is_throttled(*tp):
                # a throttled replica this broker lags on waits while the follower quota is
                # exceeded (Kafka's shouldFollowerThrottle)
                if exceeded is None:
                    exceeded = quota.is_exceeded()
                if exceeded:
                    continue
            partition = self.replicas.get_partition(*tp)
            if partition is None or partition.log is None:
                broken.append(tp)
                continue
            start, topic_id = partition.log_start_offset, partition.topic_id
            last = built.get(tp)
            if last is not None and last[0] is state and last[1] == start \
                    and last[2] is topic_id:
                requests.append(last[3])
                continue
            last_fetched = state.last_fetched_epoch
            request = FetchPartitionRequest(
                topic=tp[0], partition=tp[1], fetch_offset=state.fetch_offset,
                current_leader_epoch=state.current_leader_epoch,
                last_fetched_epoch=(last_fetched if self.truncation_on_fetch
                                    and last_fetched is not None else UNDEFINED_EPOCH),
                log_start_offset=start,
                max_bytes=self.config.partition_max_bytes,
                # as the controller's LeaderAndIsr named it; Fetch v13+ needs it
                topic_id=topic_id)
            built[tp] = (state, start, topic_id, request)
            requests.append(request)
        if len(built) > len(self.partitions):
            for tp in [tp for tp in built if tp not in self.partitions]:
                del built[tp]
        return requests, broken

    async def maybe_fetch(self) -> None:
        self._changed.clear()
        now = self.clock.milliseconds()
        requests, broken = self.build_fetch(now)
        self._delay(broken, now)
        if not requests:
            await self._forget_session_partitions()
            try:
                async with asyncio.timeout(self.config.backoff_ms / 1000):
                    await self._changed.wait()
            except TimeoutError:
                pass
            return
        self.requests.count += 1
        try:
            answers = await self.leader.fetch(requests)
        except (BrokerClientError, OSError, FetchRequestError) as e:
            log.warning("%s: fetch from broker %d failed: %s", self.name,
                        self.leader.node.node_id, e)
            self._delay([(r.topic, r.partition) for r in requests], self.clock.milliseconds())
            return
        await self.process_fetch_response(requests, answers)

    async def _forget_session_partitions(self) -> None:
        """Nothing is ready to fetch: a fetch that fetches nothing tells the leader to forget
        the partitions still in the fetch session (sent only when there are some), as Kafka's
        fetcher does when its builder comes out with partitions to forget alone."""
        try:
            await self.leader.fetch([])
        except (BrokerClientError, OSError, FetchRequestError) as e:
            log.debug("%s: a fetch forgetting every partition failed: %s", self.name, e)

    async def process_fetch_response(self, requests: list[FetchPartitionRequest],
                                     answers: Mapping[TopicPartition, FetchedPartition]) -> None:
        now = self.clock.milliseconds()
        asked = {(r.topic, r.partition): r for r in requests}
        diverging: dict[TopicPartition, EpochEndOffset] = {}
        out_of_range: list[tuple[TopicPartition, FetchPartitionRequest]] = []
        with_error: list[TopicPartition] = []
        for tp, answer in answers.items():
            request = asked.get(tp)
            state = self.partitions.get(tp)
            # only answers to what we asked for in the state we are still in
            if request is None or state is None or state.state is not FetchState.FETCHING \
                    or request.fetch_offset != state.fetch_offset \
                    or request.current_leader_epoch != state.current_leader_epoch:
                continue
            error = answer.error
            if error == ErrorCode.NONE:
                if answer.diverging_epoch is not None and self.truncation_on_fetch:
                    epoch, end_offset = answer.diverging_epoch
                    diverging[tp] = EpochEndOffset(ErrorCode.NONE, epoch, end_offset)
                    continue
                try:
                    self._process_partition_data(tp, state, answer, now)
                except KafkaError as e:
                    if e.code == ErrorCode.CORRUPT_MESSAGE:
                        log.error("%s: invalid batches fetched for %s-%d at offset %d: %s",
                                  self.name, tp[0], tp[1], state.fetch_offset, e)
                        with_error.append(tp)
                    else:
                        self._mark_failed(tp, f"appending failed: {e}")
                except Exception as e:  # noqa: BLE001 - the partition stops; the others go on
                    log.exception("%s: appending to %s-%d failed", self.name, *tp)
                    self._mark_failed(tp, f"appending failed: {e}")
            elif error == ErrorCode.OFFSET_OUT_OF_RANGE:
                out_of_range.append((tp, request))
            elif error == ErrorCode.FENCED_LEADER_EPOCH:
                if self._on_partition_fenced(tp, request.current_leader_epoch):
                    with_error.append(tp)
            else:
                level = logging.DEBUG if error in (ErrorCode.NOT_LEADER_OR_FOLLOWER,
                                                   ErrorCode.UNKNOWN_LEADER_EPOCH) \
                    else logging.WARNING
                log.log(level, "%s: the leader answered %s for %s-%d; retrying", self.name,
                        error.name, tp[0], tp[1])
                with_error.append(tp)
        if diverging:
            self._truncate_to_epoch_end_offsets_now(diverging, {})
        self._delay(with_error, now)
        for tp, request in out_of_range:
            if await self._handle_out_of_range(tp, request):
                self._delay([tp], self.clock.milliseconds())

    def _process_partition_data(self, tp: TopicPartition, state: PartitionFetchState,
                                answer: FetchedPartition, now_ms: int) -> None:
        partition = self.replicas.get_partition(*tp)
        if partition is None or partition.log is None:
            raise KafkaError(ErrorCode.NOT_LEADER_OR_FOLLOWER,
                             "the partition is no longer hosted here")
        if state.fetch_offset != partition.log_end_offset:
            raise RuntimeError(f"offset mismatch: fetched from {state.fetch_offset}, the log "
                               f"ends at {partition.log_end_offset}")
        info = partition.append_records_to_follower(
            answer.records, answer.high_watermark, now_ms,
            leader_log_start_offset=answer.log_start_offset)
        if info.valid_bytes:
            self.replicas.topic_stats.all.mark(REPLICATION_BYTES_IN, info.valid_bytes)
            quota = self.quota
            if quota is not None and quota.enabled and quota.is_throttled(*tp):
                quota.record(info.valid_bytes)
        next_offset = info.last_offset + 1 if info.batches else state.fetch_offset
        last_epoch = info.last_leader_epoch if info.batches and info.last_leader_epoch >= 0 \
            else state.last_fetched_epoch
        self._update(tp, PartitionFetchState(  # (as replace() would, without its overhead)
            fetch_offset=next_offset, current_leader_epoch=state.current_leader_epoch,
            state=state.state, last_fetched_epoch=last_epoch,
            delayed_until_ms=state.delayed_until_ms,
            lag=max(0, answer.high_watermark - next_offset)))

    async def _handle_out_of_range(self, tp: TopicPartition,
                                   request: FetchPartitionRequest) -> bool:
        """Kafka's ``handleOutOfRangeError``: find a new fetch offset with the leader; returns
        whether the partition must back off."""
        epoch = request.current_leader_epoch
        try:
            new_state = await self._fetch_offset_and_truncate(tp, epoch)
        except KafkaError as e:
            if e.code == ErrorCode.FENCED_LEADER_EPOCH:
                return self._on_partition_fenced(tp, epoch)
            log.info("%s: could not find a fetch offset for %s-%d: %s", self.name, tp[0], tp[1],
                     e)
            return True
        except (BrokerClientError, OSError) as e:
            log.info("%s: could not find a fetch offset for %s-%d: %s", self.name, tp[0], tp[1],
                     e)
            return True
        if new_state is not None:
            log.info("%s: offset %d of %s-%d is out of range; fetching from %d", self.name,
                     request.fetch_offset, tp[0], tp[1], new_state.fetch_offset)
            self._update(tp, new_state)
        return False

    async def _fetch_offset_and_truncate(self, tp: TopicPartition, epoch: int,
                                         ) -> PartitionFetchState | None:
        """Kafka's ``fetchOffsetAndTruncate``. A leader whose log ends before ours (an unclean
        election) has us truncate to its end; a leader whose log starts after ours ends has us
        start afresh at its start; otherwise we fetch from our log end. None when the
        partition changed hands meanwhile."""
        leader_end = await self.leader.fetch_latest_offset(tp, epoch)
        leader_start: int | None = None
        partition = self._still_following(tp, epoch)
        if partition is None:
            return None
        if leader_end >= partition.log_end_offset:
            leader_start = await self.leader.fetch_earliest_offset(tp, epoch)
            partition = self._still_following(tp, epoch)
            if partition is None:
                return None
        state = self.partitions[tp]
        replica_end = partition.log_end_offset
        if leader_start is None:
            log.warning("%s: the leader's log of %s-%d ends at %d, before ours at %d: "
                        "truncating to it", self.name, tp[0], tp[1], leader_end, replica_end)
            partition.truncate_to(leader_end)
            offset = self._offset_after_truncation(partition, leader_end)
        elif leader_start > replica_end:
            log.warning("%s: the leader's log of %s-%d starts at %d, after ours ends at %d: "
                        "starting afresh there", self.name, tp[0], tp[1], leader_start,
                        replica_end)
            partition.truncate_fully_and_start_at(leader_start, self.clock.milliseconds())
            offset = leader_start
        else:
            offset = replica_end
        return replace(state, fetch_offset=offset, lag=max(0, leader_end - offset),
                       state=FetchState.FETCHING, last_fetched_epoch=partition.latest_epoch)

    def _still_following(self, tp: TopicPartition, epoch: int) -> Partition | None:
        state = self.partitions.get(tp)
        if state is None or state.current_leader_epoch != epoch:
            return None
        partition = self.replicas.get_partition(*tp)
        return partition if partition is not None and partition.log is not None else None


EndpointFactory = Callable[[BrokerEndpoint, int], LeaderEndpoint]


class ReplicaFetcherManager:
    """Every fetcher of this broker, keyed by (source broker, fetcher id)."""

    def __init__(self, broker_id: int, broker_epoch: Callable[[], int],
                 replicas: FollowerPartitions, config: FetcherConfig, *,
                 endpoint_factory: EndpointFactory | None = None,
                 clock: Clock = SYSTEM_CLOCK, metrics: MetricsRegistry | None = None) -> None:
        """``metrics``: where the fetchers' lag and rate go (Kafka's
        ``kafka.server:type=ReplicaFetcherManager,clientId=Replica`` gauges MaxLag and
        MinFetchRate, and ``FetcherLagMetrics`` ConsumerLag per partition)."""
        self.broker_id = broker_id
        self.broker_epoch = broker_epoch
        self.replicas = replicas
        self.config = config
        self.clock = clock
        self._endpoint_factory = endpoint_factory or self._remote_endpoint
        self.fetchers: dict[tuple[int, int], ReplicaFetcher] = {}
        self._stopping: list[asyncio.Task[None]] = []
        self.shutting_down = False
        #: the followers' replication quota (KIP-73), handed to every fetcher
        self.quota: ReplicationQuota | None = None
        if metrics is not None:
            self._register(metrics)

    def _register(self, registry: MetricsRegistry) -> None:
        def lags() -> Iterator[tuple[tuple[tuple[str, str], ...], int]]:
            for fetcher in list(self.fetchers.values()):
                for (topic, partition), state in list(fetcher.partitions.items()):
                    yield ((("clientId", fetcher.name), ("topic", topic),
                            ("partition", str(partition))), state.lag or 0)

        registry.gauge(mbean("kafka.server", "ReplicaFetcherManager", "MaxLag",
                             clientId="Replica"),
                       lambda: max((lag for _, lag in lags()), default=0))

        def min_fetch_rate() -> float:
            now = self.clock.monotonic()
            return min((f.requests.rates(now)[1] for f in list(self.fetchers.values())),
                       default=0.0)

        registry.gauge(mbean("kafka.server", "ReplicaFetcherManager", "MinFetchRate",
                             clientId="Replica"), min_fetch_rate)
        registry.gauge_family(mbean("kafka.server", "FetcherLagMetrics", "ConsumerLag"), lags)
        # partitions a fetcher gave up on (until they are followed anew), and fetchers whose
        # task ended while they were to run
        registry.gauge(mbean("kafka.server", "ReplicaFetcherManager", "FailedPartitionsCount",
                             clientId="Replica"),
                       lambda: sum(len(f.failed) for f in list(self.fetchers.values())))
        registry.gauge(mbean("kafka.server", "ReplicaFetcherManager", "DeadThreadCount",
                             clientId="Replica"),
                       lambda: sum(1 for f in list(self.fetchers.values()) if f.dead))

    @property
    def truncation_on_fetch(self) -> bool:
        return self.config.truncation_on_fetch

    def _remote_endpoint(self, node: BrokerEndpoint, fid: int) -> LeaderEndpoint:
        return RemoteLeaderEndpoint(node, local_broker_id=self.broker_id,
                                    broker_epoch=self.broker_epoch, config=self.config,
                                    fetcher_id=fid)

    def fetcher_id(self, topic: str, partition: int) -> int:
        return fetcher_id(topic, partition, self.config.num_fetchers)

    def add_fetcher_for_partitions(self, initial: Mapping[TopicPartition, InitialFetchState],
                                   ) -> None:
        """Follow each partition from its leader, on the fetcher its id picks; a fetcher whose
        leader moved to another address is replaced."""
        if self.shutting_down:
            return
        groups: dict[tuple[int, int], dict[TopicPartition, InitialFetchState]] = {}
        nodes: dict[tuple[int, int], BrokerEndpoint] = {}
        for tp, state in initial.items():
            key = (state.leader.node_id, self.fetcher_id(*tp))
            groups.setdefault(key, {})[tp] = state
            nodes[key] = state.leader
        for key, states in groups.items():
            fetcher = self.fetchers.get(key)
            if fetcher is not None and fetcher.leader.node != nodes[key]:
                self._stop(self.fetchers.pop(key))
                fetcher = None
            if fetcher is None:
                source, fid = key
                fetcher = self.fetchers[key] = ReplicaFetcher(
                    f"ReplicaFetcherThread-{fid}-{source}", fid,
                    self._endpoint_factory(nodes[key], fid), self.replicas, self.config,
                    self.clock)
                fetcher.quota = self.quota
                fetcher.start()
            fetcher.add_partitions(states)

    def remove_fetcher_for_partitions(self, partitions: Iterable[TopicPartition]) -> None:
        doomed = set(partitions)
        if doomed:
            for fetcher in self.fetchers.values():
                fetcher.remove_partitions(doomed)

    def resize(self, num_fetchers: int) -> None:
        """A new ``num.replica.fetchers`` (a dynamic broker config; Kafka's
        ``resizeThreadPool``): every followed partition moves to the fetcher its id picks
        under the new count, keeping its offset and leader epoch; fetchers left idle stop."""
        if num_fetchers == self.config.num_fetchers or self.shutting_down:
            return
        log.info("Resizing fetcher pool size from %d to %d", self.config.num_fetchers,
                 num_fetchers)
        moved: dict[TopicPartition, InitialFetchState] = {}
        for fetcher in self.fetchers.values():
            for tp, state in fetcher.partitions.items():
                moved[tp] = InitialFetchState(fetcher.leader.node, state.current_leader_epoch,
                                              state.fetch_offset)
            fetcher.remove_partitions(list(fetcher.partitions))
        self.config = replace(self.config, num_fetchers=num_fetchers)
        self.add_fetcher_for_partitions(moved)
        self.shutdown_idle_fetchers()

    def shutdown_idle_fetchers(self) -> None:
        for key in [k for k, f in self.fetchers.items() if f.partition_count == 0]:
            self._stop(self.fetchers.pop(key))

    def fetch_state(self, topic: str, partition: int) -> PartitionFetchState | None:
        for fetcher in self.fetchers.values():
            state = fetcher.partitions.get((topic, partition))
            if state is not None:
                return state
        return None

    def _stop(self, fetcher: ReplicaFetcher) -> None:
        task = fetcher.stop()
        if task is not None:
            self._stopping.append(task)
            task.add_done_callback(self._stopping.remove)

    async def shutdown(self) -> None:
        """Stop every fetcher; none is started afterwards."""
        self.shutting_down = True
        for fetcher in self.fetchers.values():
            self._stop(fetcher)
        self.fetchers.clear()
        if self._stopping:
            await asyncio.gather(*self._stopping, return_exceptions=True)
