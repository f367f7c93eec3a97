"""The controller's and the admin requests' znodes of ``kafka.zk.ZkData``: ``/controller`` and
``/controller_epoch``; ``/admin`` (topic deletions, legacy reassignments, preferred replica
elections); the ISR-change and log-dir-event notifications brokers leave for the controller; the
latest producer id block."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from pybroker.kernel.types import TopicPartition
from pybroker.zk.znodes.codec import (
    ZNodeDecodeError,
    _dumps,
    _field,
    _int,
    _ints,
    _object,
    _partitions_from_json,
    _partitions_json,
)


class AdminZNode:
    PATH = "/admin"


class DeleteTopicsZNode:
    PATH = "/admin/delete_topics"


class LogDirEventNotificationZNode:
    PATH = "/log_dir_event_notification"


class IsrChangeNotificationZNode:
    PATH = "/isr_change_notification"


@dataclass(frozen=True, slots=True)
class ControllerRegistration:
    """The content of ``/controller``: who the controller is (``kraftControllerEpoch`` is -1
    for a ZooKeeper controller, absent before version 2)."""

    broker_id: int
    timestamp: int | None = None
    kraft_controller_epoch: int | None = -1
    version: int = 2


class ControllerZNode:
    """``/controller``, ephemeral: whoever creates it is the controller."""

    PATH = "/controller"

    @staticmethod
    def encode(reg: ControllerRegistration) -> bytes:
        obj: dict[str, object] = {"version": reg.version, "brokerid": reg.broker_id}
        if reg.timestamp is not None:
            obj["timestamp"] = str(reg.timestamp)
        if reg.kraft_controller_epoch is not None:
            obj["kraftControllerEpoch"] = reg.kraft_controller_epoch
        return _dumps(obj)

    @staticmethod
    def decode(data: bytes | None) -> ControllerRegistration:
        what = "controller registration"
        obj = _object(data, what)
        if obj is None:
            raise ZNodeDecodeError(f"{what}: empty znode")
        timestamp = obj.get("timestamp")
        kraft = obj.get("kraftControllerEpoch")
        if kraft is not None and (not isinstance(kraft, int) or isinstance(kraft, bool)):
            raise ZNodeDecodeError(f"{what}: kraftControllerEpoch {kraft!r}")
        try:
            ts = int(timestamp) if timestamp is not None else None
        except (TypeError, ValueError) as e:
            raise ZNodeDecodeError(f"{what}: timestamp {timestamp!r}") from e
        version = obj.get("version", 1)
        if not isinstance(version, int):
            raise ZNodeDecodeError(f"{what}: version {version!r}")
        return ControllerRegistration(_int(obj, "brokerid", what), ts, kraft, version)


class ControllerEpochZNode:
    """``/controller_epoch``: the controller epoch as plain decimal text."""

    PATH = "/controller_epoch"

    @staticmethod
    def encode(epoch: int) -> bytes:
        return str(epoch).encode()

    @staticmethod
    def decode(data: bytes | None) -> int:
        try:
            return int((data or b"").decode())
        except (UnicodeDecodeError, ValueError) as e:
            raise ZNodeDecodeError(f"controller epoch: {data!r}") from e


class DeleteTopicsTopicZNode:
    """``/admin/delete_topics/<t>``, empty: a request to delete the topic."""

    @staticmethod
    def path(topic: str) -> str:
        return f"{DeleteTopicsZNode.PATH}/{topic}"


class ReassignPartitionsZNode:
    """``/admin/reassign_partitions``: the legacy way to ask for reassignments."""

    PATH = "/admin/reassign_partitions"

    @staticmethod
    def encode(reassignment: Mapping[TopicPartition, Sequence[int]]) -> bytes:
        return _dumps({"version": 1, "partitions": [
            {"topic": t, "partition": p, "replicas": list(reassignment[(t, p)])}
            for t, p in sorted(reassignment)]})

    @staticmethod
    def decode(data: bytes | None) -> dict[TopicPartition, tuple[int, ...]]:
        what = "partition reassignment"
        obj = _object(data, what)
        if obj is None:
            raise ZNodeDecodeError(f"{what}: empty znode")
        _int(obj, "version", what)
        out: dict[TopicPartition, tuple[int, ...]] = {}
        for item in _field(obj, "partitions", list, what):
            if not isinstance(item, dict):
                raise ZNodeDecodeError(f"{what}: entry {item!r}")
            tp = (_field(item, "topic", str, what), _int(item, "partition", what))
            out[tp] = _ints(_field(item, "replicas", list, what), what)
        return out


class PreferredReplicaElectionZNode:
    """``/admin/preferred_replica_election``: partitions whose preferred replica should lead."""

    PATH = "/admin/preferred_replica_election"

    @staticmethod
    def encode(partitions: Iterable[TopicPartition]) -> bytes:
        return _dumps({"version": 1, "partitions": _partitions_json(partitions)})

    @staticmethod
    def decode(data: bytes | None) -> frozenset[TopicPartition]:
        obj = _object(data, "preferred replica election")
        if obj is None:
            return frozenset()
        return _partitions_from_json(obj, "preferred replica election")


class IsrChangeNotificationSequenceZNode:
    """``/isr_change_notification/isr_change_<seq>``: partitions whose ISR a leader changed."""

    SEQUENCE_PREFIX = "isr_change_"
    VERSION = 1

    @staticmethod
    def path(sequence_number: str = "") -> str:
        return (f"{IsrChangeNotificationZNode.PATH}/"
                f"{IsrChangeNotificationSequenceZNode.SEQUENCE_PREFIX}{sequence_number}")

    @staticmethod
    def encode(partitions: Iterable[TopicPartition]) -> bytes:
        return _dumps({"version": IsrChangeNotificationSequenceZNode.VERSION,
                       "partitions": _partitions_json(partitions)})

    @staticmethod
    def decode(data: bytes | None) -> frozenset[TopicPartition]:
        obj = _object(data, "ISR change notification")
        if obj is None:
            return frozenset()
        return _partitions_from_json(obj, "ISR change notification")

    @staticmethod
    def sequence_number(path: str) -> str:
        prefix = IsrChangeNotificationSequenceZNode.SEQUENCE_PREFIX
        return path[path.rfind(prefix) + len(prefix):]


class LogDirEventNotificationSequenceZNode:
    """``/log_dir_event_notification/log_dir_event_<seq>``: a broker's log dir failed (KIP-112);
    the controller asks that broker which of its replicas are still online."""

    SEQUENCE_PREFIX = "log_dir_event_"
    VERSION = 1
    #: Kafka's ``LogDirFailureEvent``, the only event there is
    LOG_DIR_FAILURE_EVENT = 1

    @staticmethod
    def path(sequence_number: str = "") -> str:
        return (f"{LogDirEventNotificationZNode.PATH}/"
                f"{LogDirEventNotificationSequenceZNode.SEQUENCE_PREFIX}{sequence_number}")

    @staticmethod
    def encode(broker_id: int) -> bytes:
        return _dumps({"version": LogDirEventNotificationSequenceZNode.VERSION,
                       "broker": broker_id,
                       "event": LogDirEventNotificationSequenceZNode.LOG_DIR_FAILURE_EVENT})

    @staticmethod
    def decode(data: bytes | None) -> int | None:
        """The broker the event names (None for an empty znode)."""
        what = "log dir event notification"
        obj = _object(data, what)
        if obj is None:
            return None
        broker: int = _field(obj, "broker", int, what)
        return broker

    @staticmethod
    def sequence_number(path: str) -> str:
        prefix = LogDirEventNotificationSequenceZNode.SEQUENCE_PREFIX
        return path[path.rfind(prefix) + len(prefix):]


# -- producer ids -----------------------------------------------------------------------------

#: Kafka's ``ProducerIdsBlock.PRODUCER_ID_BLOCK_SIZE``
PRODUCER_ID_BLOCK_SIZE = 1000
_LONG_MAX = (1 << 63) - 1


@dataclass(frozen=True, slots=True)
class ProducerIdsBlock:
    """``size`` producer ids from ``first_producer_id``, reserved by one broker."""

    assigned_broker_id: int
    first_producer_id: int
    size: int

    @property
    def last_producer_id(self) -> int:
        return self.first_producer_id + self.size - 1

    @property
    def next_block_first_id(self) -> int:
        return self.first_producer_id + self.size


class ProducerIdBlockZNode:
    """``/latest_producer_id_block``: the last block handed out,
    ``{"version":1,"broker":b,"block_start":"0","block_end":"999"}`` (ids as strings)."""

    PATH = "/latest_producer_id_block"
    CURRENT_VERSION = 1

    @staticmethod
    def encode(block: ProducerIdsBlock) -> bytes:
        return _dumps({"version": ProducerIdBlockZNode.CURRENT_VERSION,
                       "broker": block.assigned_broker_id,
                       "block_start": str(block.first_producer_id),
                       "block_end": str(block.last_producer_id)})

    @staticmethod
    def decode(data: bytes | None) -> ProducerIdsBlock | None:
        """The latest block, or None when none was handed out yet (an empty znode)."""
        what = "producer id block"
        obj = _object(data, what)
        if obj is None:
            return None
        try:
            start = int(_field(obj, "block_start", str, what))
            end = int(_field(obj, "block_end", str, what))
        except ValueError as e:
            raise ZNodeDecodeError(f"{what}: {obj!r}") from e
        if not (0 <= start <= end <= _LONG_MAX):
            raise ZNodeDecodeError(f"{what}: block {start}..{end}")
        return ProducerIdsBlock(_int(obj, "broker", what), start, end - start + 1)


class FeatureZNode:
    """``/feature`` (KIP-584): the cluster's finalized features, which the controller keeps
    enabled: ``{"features":{"name":{"max_version_level":N}},"version":2,"status":1}`` (Kafka's
    key order; status 1 enabled, 0 disabled)."""

    PATH = "/feature"
    V2 = 2
    ENABLED, DISABLED = 1, 0

    @staticmethod
    def encode(features: Mapping[str, int], status: int = 1) -> bytes:
        return _dumps({"features": {name: {"max_version_level": level}
                                    for name, level in features.items()},
                       "version": FeatureZNode.V2, "status": status})

    @staticmethod
    def decode(data: bytes | None) -> tuple[int, int, dict[str, int]] | None:
        """(version, status, finalized max version level by feature), or None when empty."""
        what = "feature"
        obj = _object(data, what)
        if obj is None:
            return None
        features = obj.get("features", {})
        if not isinstance(features, dict):
            raise ZNodeDecodeError(f"{what}: {obj!r}")
        levels = {}
        for name, spec in features.items():
            if not isinstance(spec, dict) or not isinstance(spec.get("max_version_level"), int):
                raise ZNodeDecodeError(f"{what}: {name}: {spec!r}")
            levels[name] = spec["max_version_level"]
        return _int(obj, "version", what), _int(obj, "status", what), levels
