"""Admin operations on logs and topic configs through confluent-kafka (librdkafka):
DeleteRecords, AlterConfigs, IncrementalAlterConfigs and ListOffsets by max timestamp."""

from __future__ import annotations

import pytest
from confluent_kafka import (
    OFFSET_BEGINNING,
    Consumer,
    KafkaException,
    Producer,
    TopicPartition,
)
from confluent_kafka.admin import (
    AdminClient,
    AlterConfigOpType,
    ConfigEntry,
    ConfigResource,
    NewTopic,
    OffsetSpec,
    ResourceType,
)

from pybroker.testing.broker_process import BrokerProcess

pytestmark = [
    pytest.mark.compat,
    # AlterConfigs is deprecated in the clients but still part of the protocol, and tested here.
    pytest.mark.filterwarnings("ignore:alter_configs has been deprecated:DeprecationWarning"),
]


def admin(bootstrap: str) -> AdminClient:
    return AdminClient({"bootstrap.servers": bootstrap})


def create(bootstrap: str, topic: str, partitions: int = 1, config: dict | None = None) -> None:
    a = admin(bootstrap)  # the handle must outlive the futures
    a.create_topics([NewTopic(topic, partitions, 1, config=config or {})])[topic].result(30)


def produce(bootstrap: str, topic: str, items: list[tuple[bytes, int]]) -> None:
    p = Producer({"bootstrap.servers": bootstrap, "linger.ms": 0})
    for value, ts in items:
        p.produce(topic, value=value, partition=0, timestamp=ts)
        p.flush(30)  # one batch per record, so offsets and segments are predictable


def topic_config(bootstrap: str, topic: str) -> dict[str, ConfigEntry]:
    res = ConfigResource(ResourceType.TOPIC, topic)
    a = admin(bootstrap)
    return a.describe_configs([res])[res].result(30)


def first_offset_read(bootstrap: str, topic: str) -> int:
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "x", "enable.auto.commit": False})
    c.assign([TopicPartition(topic, 0, OFFSET_BEGINNING)])
    try:
        for _ in range(30):
            m = c.poll(1)
            if m is not None and not m.error():
                return m.offset()
        raise AssertionError("nothing read")
    finally:
        c.close()


def test_delete_records_moves_the_log_start(module_broker: BrokerProcess, topic: str) -> None:
    boot = module_broker.bootstrap
    create(boot, topic)
    produce(boot, topic, [(b"%d" % i, 1000 + i) for i in range(10)])
    a = admin(boot)
    result = a.delete_records([TopicPartition(topic, 0, 6)])
    deleted = result[TopicPartition(topic, 0, 6)].result(30)
    assert deleted.low_watermark == 6
    watcher = Consumer({"bootstrap.servers": boot, "group.id": "w"})
    low, high = watcher.get_watermark_offsets(TopicPartition(topic, 0), timeout=10)
    watcher.close()
    assert (low, high) == (6, 10)
    assert first_offset_read(boot, topic) == 6
    # Past the high watermark is refused.
    with pytest.raises(KafkaException) as e:
        a.delete_records([TopicPartition(topic, 0, 99)])[TopicPartition(topic, 0, 99)].result(30)
    assert e.value.args[0].name() == "OFFSET_OUT_OF_RANGE"


def test_list_offsets_max_timestamp(module_broker: BrokerProcess, topic: str) -> None:
    boot = module_broker.bootstrap
    create(boot, topic)
    produce(boot, topic, [(b"a", 5000), (b"b", 9000), (b"c", 7000)])
    tp = TopicPartition(topic, 0)
    a = admin(boot)
    res = a.list_offsets({tp: OffsetSpec.max_timestamp()})[tp].result(30)
    assert (res.offset, res.timestamp) == (1, 9000)


def test_alter_configs_replace_and_incremental(module_broker: BrokerProcess, topic: str) -> None:
    boot = module_broker.bootstrap
    create(boot, topic, config={"retention.ms": "1000000"})
    a = admin(boot)

    inc = ConfigResource(ResourceType.TOPIC, topic, incremental_configs=[
        ConfigEntry("segment.bytes", "1048576", incremental_operation=AlterConfigOpType.SET),
        ConfigEntry("cleanup.policy", "compact", incremental_operation=AlterConfigOpType.APPEND),
    ])
    a.incremental_alter_configs([inc])[inc].result(30)
    cfg = topic_config(boot, topic)
    assert cfg["segment.bytes"].value == "1048576"
    assert cfg["cleanup.policy"].value == "delete,compact"
    assert cfg["retention.ms"].value == "1000000"  # untouched by an incremental change

    delete = ConfigResource(ResourceType.TOPIC, topic, incremental_configs=[
        ConfigEntry("retention.ms", None, incremental_operation=AlterConfigOpType.DELETE)])
    a.incremental_alter_configs([delete])[delete].result(30)
    assert topic_config(boot, topic)["retention.ms"].value == "604800000"  # Kafka's default

    bad = ConfigResource(ResourceType.TOPIC, topic, incremental_configs=[
        ConfigEntry("segment.bytes", "not-a-number", incremental_operation=AlterConfigOpType.SET)])
    with pytest.raises(KafkaException) as e:
        a.incremental_alter_configs([bad])[bad].result(30)
    assert e.value.args[0].name() == "INVALID_CONFIG"

    # AlterConfigs replaces every override at once.
    full = ConfigResource(ResourceType.TOPIC, topic, set_config={"max.message.bytes": "2000000"})
    a.alter_configs([full])[full].result(30)
    cfg = topic_config(boot, topic)
    assert cfg["max.message.bytes"].value == "2000000"
    assert cfg["segment.bytes"].value == "1073741824"  # the earlier override is gone
    assert cfg["cleanup.policy"].value == "delete"

    unknown = ConfigResource(ResourceType.TOPIC, topic, set_config={"no.such.config": "1"})
    with pytest.raises(KafkaException) as e:
        a.alter_configs([unknown])[unknown].result(30)
    assert e.value.args[0].name() == "INVALID_CONFIG"


def test_topic_config_changes_survive_a_restart(broker: BrokerProcess, topic: str) -> None:
    create(broker.bootstrap, topic)
    res = ConfigResource(ResourceType.TOPIC, topic, incremental_configs=[
        ConfigEntry("retention.bytes", "123456789", incremental_operation=AlterConfigOpType.SET)])
    a = admin(broker.bootstrap)
    a.incremental_alter_configs([res])[res].result(30)
    broker.restart()
    entry = topic_config(broker.bootstrap, topic)["retention.bytes"]
    assert entry.value == "123456789"
    assert entry.source == 1  # DYNAMIC_TOPIC_CONFIG


@pytest.mark.parametrize("hard", [False, True], ids=["sigterm", "sigkill"])
def test_topic_overrides_still_apply_after_a_restart(
    broker: BrokerProcess, topic: str, hard: bool
) -> None:
    """The logs reopen with their topic's overrides, not the broker defaults: a record over the
    topic's max.message.bytes is refused before and after the restart alike."""
    create(broker.bootstrap, topic, config={"max.message.bytes": "200"})

    def refusal() -> str | None:
        errors: list[str] = []
        p = Producer({"bootstrap.servers": broker.bootstrap, "message.max.bytes": 100_000})
        p.produce(topic, value=b"x" * 500, partition=0,
                  on_delivery=lambda err, _msg: errors.append(err.name() if err else "ok"))
        p.flush(30)
        return errors[0] if errors else None

    assert refusal() == "MSG_SIZE_TOO_LARGE"
    broker.restart(hard=hard)
    assert refusal() == "MSG_SIZE_TOO_LARGE"
