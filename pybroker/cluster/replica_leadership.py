"""Becoming leader or follower (Kafka's ``becomeLeaderOrFollower`` with its ``makeLeaders`` and
``makeFollowers``): the controller's decisions applied to the partitions hosted here, the replica
fetchers restarted for the partitions followed, the leadership listeners told, and the
partitions no longer hosted stopped (StopReplica)."""

from __future__ import annotations

import logging
from collections.abc import Container, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from protocol.errors import ErrorCode, KafkaError
from pybroker.cluster.fetcher_state import InitialFetchState
from pybroker.cluster.hosted_partitions import LeadershipChange
from pybroker.cluster.partition import Partition
from pybroker.cluster.replica_log_dirs import ReplicaLogDirs
from pybroker.kernel.types import TopicPartition

if TYPE_CHECKING:
    from pybroker.metadata.model import PartitionRecord


# the replica manager logs under one name, whichever of its parts speaks
log = logging.getLogger("pybroker.cluster.replica_manager")


class ReplicaLeadership(ReplicaLogDirs):
    """Leadership changes, a part of :class:`~pybroker.cluster.replica_manager.ReplicaManager`
    (it starts the moves between log dirs a partition's first leadership finds)."""

    def become_leader_or_follower(self, topic: str, records: Iterable[PartitionRecord],
                                  now_ms: int, *, is_new: bool | Container[int] = True,
                                  ) -> dict[int, ErrorCode]:
        """Take the part each record gives this broker: leader when it names this broker,
        follower otherwise (Kafka's ``makeLeaders``/``makeFollowers``). Listeners hear of every
        start and end of a leadership. Returns the partitions refused, with their error:
        KAFKA_STORAGE_ERROR for one whose log dir failed, or whose log cannot be opened or
        created; while a log dir is offline, also for one not hosted yet that is not new
        (``is_new``: True for all, False for none, or the new partitions' ids), since its log
        may be in that dir (Kafka's LeaderAndIsr ``isNew``).

        A new leader stops fetching the partition and records where its epoch starts in the
        leader epoch cache. A follower whose leader or leader epoch changed (KAFKA-7164: any
        epoch change) has its fetcher restarted from its log end offset (its high watermark
        when the log has no epochs); without a live leader in the metadata cache only the log
        is opened, as in Kafka. The first time a partition is hosted its high watermark comes
        from ``replication-offset-checkpoint``."""
        self.high_watermark_checkpointing = True
        checkpoints: dict[Path, dict[TopicPartition, int]] = {}
        new_followers: dict[TopicPartition, Partition] = {}
        refused: dict[int, ErrorCode] = {}
        for record in records:
            key = (topic, record.partition)
            if key in self.offline_partitions:
                refused[record.partition] = ErrorCode.KAFKA_STORAGE_ERROR
                continue
            partition = self.partitions.get(key)
            try:
                plog = self._log_for(topic, record.partition, now_ms,
                                     is_new if isinstance(is_new, bool)
                                     else record.partition in is_new)
            except KafkaError as e:
                log.error("%s-%d: cannot be led or followed here: %s", topic, record.partition,
                          e.message or e.code.name)
                refused[record.partition] = e.code
                continue
            if partition is None:
                partition = self.partitions[key] = Partition(topic, record.partition,
                                                             self.broker_id, self.isr_settings)
            was_leader = partition.is_leader
            first_hosted = partition.log is None
            if self.log_manager.get_future_log(topic, record.partition) is not None:
                # a move found at start-up, or one that failed: (re)start it
                self._start_move(key)
            if first_hosted:
                partition.high_watermark = self._checkpointed_high_watermark(key, checkpoints)
            if record.leader == self.broker_id:
                if self.fetchers is not None:
                    self.fetchers.remove_fetcher_for_partitions([key])
                try:
                    became = partition.make_leader(record, plog, now_ms)
                except KafkaError as e:  # the log's dir failed under it (just reported)
                    refused[record.partition] = e.code
                    continue
                if became:
                    self._announce(LeadershipChange(topic, record.partition,
                                                    record.leader_epoch, True), now_ms)
            else:
                if self._alive_broker is not None and self._alive_broker(record.leader) is None:
                    log.warning("%s-%d: leader %d of epoch %d is not alive in the metadata "
                                "cache; only opening the log", topic, record.partition,
                                record.leader, record.leader_epoch)
                    if first_hosted:
                        partition.log = plog
                    continue
                if partition.make_follower(record, plog):
                    new_followers[key] = partition
                if was_leader:
                    self._announce(LeadershipChange(topic, record.partition,
                                                    record.leader_epoch, False), now_ms)
            # waiting requests learn of the change (answered, or left to wait)
            self.fetch_purgatory.check_and_complete(key)
            self.produce_purgatory.check_and_complete(key)
        if self.fetchers is not None:
            self._restart_fetchers(new_followers)
        return refused

    def _restart_fetchers(self, followers: Mapping[TopicPartition, Partition]) -> None:
        """Fetch these partitions afresh from their (new) leaders."""
        fetchers = self.fetchers
        assert fetchers is not None and self._alive_broker is not None
        fetchers.remove_fetcher_for_partitions(followers)
        if followers and not fetchers.shutting_down:
            initial = {}
            for key, partition in followers.items():
                leader = self._alive_broker(partition.leader_id)
                assert partition.log is not None
                if leader is None:
                    continue
                plog = partition.log
                offset = (plog.log_end_offset
                          if fetchers.truncation_on_fetch and plog.latest_epoch is not None
                          else partition.high_watermark)
                initial[key] = InitialFetchState(leader, partition.leader_epoch, offset,
                                                 partition.topic_id)
            fetchers.add_fetcher_for_partitions(initial)
        fetchers.shutdown_idle_fetchers()

    def stop_replicas(self, topic: str, partitions: Iterable[int], *, delete: bool,
                      now_ms: int = 0) -> None:
        """Stop hosting these partitions: with ``delete`` the partition and its log go (and
        the future log of a move between log dirs); without, the partition stays (neither
        leading nor following) with its logs. Either way their fetchers and moves stop
        first."""
        partitions = list(partitions)
        if self.fetchers is not None:
            self.fetchers.remove_fetcher_for_partitions([(topic, p) for p in partitions])
        # a move in progress stops too: with deletion its future log goes (delete_log), without
        # it stays and the move resumes at the next leadership decision, as in Kafka (a
        # controlled shutdown stops the partitions a broker follows without deleting them)
        self.log_dir_mover.remove([(topic, p) for p in partitions])
        for p in partitions:
            partition = (self.partitions.pop((topic, p), None) if delete
                         else self.partitions.get((topic, p)))
            if partition is None:
                continue
            if partition.is_leader:
                self._announce(LeadershipChange(topic, p, partition.leader_epoch, False), now_ms)
            if delete:
                self.log_manager.delete_log(topic, p)
            else:
                partition.stop()
            # waiting requests for a partition that is gone answer now, with the error
            self.fetch_purgatory.check_and_complete((topic, p))
            self.produce_purgatory.check_and_complete((topic, p))
        if delete and not any(t == topic for t, _ in self.partitions):
            # Kafka's maybeRemoveTopicMetrics: no partition of the topic is hosted any more,
            # so its BrokerTopicMetrics series go (a deleted topic's would stay for ever)
            self.topic_stats.remove_topic(topic)
        if self.fetchers is not None:
            self.fetchers.shutdown_idle_fetchers()
