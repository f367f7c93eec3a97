"""A partition as this broker holds it: its log, its leadership and its high watermark.

The state here has one owner, the event loop. Leadership changes come from the controller
(directly in the embedded mode; through LeaderAndIsr in ZooKeeper mode).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from protocol.errors import ErrorCode, KafkaError

if TYPE_CHECKING:
    from pybroker.log.log import AppendInfo, FetchDataInfo, Log
    from pybroker.metadata.model import PartitionRecord


class Partition:
    def __init__(self, topic: str, partition: int, local_broker_id: int) -> None:
        self.topic = topic
        self.partition = partition
        self.local_broker_id = local_broker_id
        self.log: Log | None = None
        self.leader_id = -1
        self.leader_epoch = -1
        self.replicas: tuple[int, ...] = ()
        self.isr: tuple[int, ...] = ()
        self.high_watermark = 0

    def __repr__(self) -> str:
        return f"Partition({self.topic}-{self.partition}, leader={self.leader_id}, epoch={self.leader_epoch})"

    @property
    def is_leader(self) -> bool:
        return self.leader_id == self.local_broker_id and self.log is not None

    def make_leader(self, record: PartitionRecord, log: Log) -> None:
        self.log = log
        self.leader_id = record.leader
        self.leader_epoch = record.leader_epoch
        self.replicas = tuple(record.replicas)
        self.isr = tuple(record.isr)
        # Until followers report, only the local replica's position is known.
        self.high_watermark = max(self.high_watermark, log.log_start_offset)
        self.maybe_increment_high_watermark()

    def maybe_increment_high_watermark(self) -> bool:
        """Advance the high watermark to the smallest log end offset in the ISR.

        With this broker as the only in-sync replica that is its own log end offset."""
        assert self.log is not None
        if self.isr == (self.local_broker_id,) or not self.isr:
            new_hw = self.log.log_end_offset
        else:
            new_hw = self.high_watermark  # follower positions arrive with replication
        if new_hw > self.high_watermark:
            self.high_watermark = new_hw
            return True
        return False

    def check_leader_epoch(self, current_leader_epoch: int) -> None:
        """Kafka's fencing: a client that saw an older epoch is fenced, a newer one is unknown to us."""
        if current_leader_epoch < 0 or current_leader_epoch == self.leader_epoch:
            return
        if current_leader_epoch < self.leader_epoch:
            raise KafkaError(ErrorCode.FENCED_LEADER_EPOCH)
        raise KafkaError(ErrorCode.UNKNOWN_LEADER_EPOCH)

    def leader_log(self) -> Log:
        if not self.is_leader:
            raise KafkaError(ErrorCode.NOT_LEADER_OR_FOLLOWER)
        assert self.log is not None
        return self.log

    def append_as_leader(self, batch: bytearray, *, required_acks: int, min_insync_replicas: int,
                         now_ms: int) -> AppendInfo:
        log = self.leader_log()
        # as in Kafka 3.7+ (KIP-966), a min.insync.replicas above the replication factor counts
        # as the replication factor: acks=all to a topic with one replica is accepted
        effective_min_isr = min(min_insync_replicas, max(len(self.replicas), 1))
        if required_acks == -1 and len(self.isr) < effective_min_isr:
            raise KafkaError(
                ErrorCode.NOT_ENOUGH_REPLICAS,
                f"the ISR of {self.topic}-{self.partition} has {len(self.isr)} replicas, "
                f"fewer than min.insync.replicas={min_insync_replicas}",
            )
        info = log.append_as_leader(batch, leader_epoch=self.leader_epoch, now_ms=now_ms)
        self.maybe_increment_high_watermark()
        return info

    def read(self, offset: int, max_bytes: int, *, min_one_batch: bool,
             up_to_high_watermark: bool = True) -> FetchDataInfo:
        log = self.leader_log()
        max_offset = self.high_watermark if up_to_high_watermark else None
        return log.read(offset, max_bytes, max_offset=max_offset, min_one_batch=min_one_batch)

    @property
    def log_start_offset(self) -> int:
        return self.log.log_start_offset if self.log is not None else -1

    @property
    def log_end_offset(self) -> int:
        return self.log.log_end_offset if self.log is not None else -1
