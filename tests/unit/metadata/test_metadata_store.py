import uuid

from pybroker.metadata.local import LocalMetadataStore
from pybroker.metadata.model import PartitionRecord, TopicRecord


def test_topics_configs_and_producer_ids_survive_reopening(tmp_path):
    store = LocalMetadataStore(tmp_path, broker_id=0)
    image = store.load()
    cluster_id = image.cluster_id
    assert len(cluster_id) == 22  # a Kafka-style base64 UUID
    tid = uuid.uuid4()
    store.create_topic(TopicRecord("orders", tid, {0: PartitionRecord(0, [0], [0], 0)}, {"retention.ms": "1000"}))
    store.add_partitions("orders", [PartitionRecord(1, [0], [0], 0)])
    first = store.allocate_producer_id_block(1000)
    store.set_topic_configs("orders", {"segment.bytes": "1048576"})

    again = LocalMetadataStore(tmp_path, broker_id=0).load()
    assert again.cluster_id == cluster_id
    topic = again.topics["orders"]
    assert topic.topic_id == tid
    assert sorted(topic.partitions) == [0, 1]
    assert topic.configs == {"segment.bytes": "1048576"}
    assert again.next_producer_id == first + 1000
    assert (tmp_path / "meta.properties").read_text().splitlines() == [
        "version=0", "broker.id=0", f"cluster.id={cluster_id}",
    ]


def test_delete_topic_is_durable(tmp_path):
    store = LocalMetadataStore(tmp_path, broker_id=0)
    store.load()
    store.create_topic(TopicRecord("t", uuid.uuid4(), {0: PartitionRecord(0, [0], [0], 0)}))
    store.delete_topic("t")
    assert LocalMetadataStore(tmp_path, broker_id=0).load().topics == {}
