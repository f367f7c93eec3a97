"""Deleting a topic removes the consumer groups' offsets for it, as Kafka's group coordinator
does (``onPartitionsDeleted``): a topic created again under the same name does not inherit
them, and a group left Empty without offsets is gone. Run against pybroker and against the
reference Kafka 3.9 (``txn_bootstrap``), so the expectations are Kafka's own."""

from __future__ import annotations

import uuid

from confluent_kafka import (
    Consumer,
    ConsumerGroupTopicPartitions,
    KafkaError,
    KafkaException,
    Producer,
    TopicPartition,
)
from confluent_kafka.admin import AdminClient, NewTopic

from pybroker.testing.cluster import wait_for


def _create(admin: AdminClient, *topics: str) -> None:
    for future in admin.create_topics([NewTopic(t, num_partitions=2, replication_factor=1)
                                       for t in topics], operation_timeout=30).values():
        future.result(30)


def _created(admin: AdminClient, topic: str) -> bool:
    try:
        _create(admin, topic)
    except KafkaException as e:
        if e.args[0].code() == KafkaError.TOPIC_ALREADY_EXISTS:  # still marked for deletion
            return False
        raise
    return True


def _committed(admin: AdminClient, group: str) -> dict[tuple[str, int], int]:
    request = [ConsumerGroupTopicPartitions(group)]
    result = admin.list_consumer_group_offsets(request, request_timeout=20)[group].result(30)
    return {(tp.topic, tp.partition): tp.offset for tp in result.topic_partitions}


def _groups(admin: AdminClient) -> set[str]:
    result = admin.list_consumer_groups(request_timeout=20).result(30)
    return {g.group_id for g in result.valid}


def _topics(admin: AdminClient) -> set[str]:
    return set(admin.list_topics(timeout=20).topics)


def test_deleting_a_topic_removes_the_groups_offsets_for_it(txn_bootstrap: str) -> None:
    check_deletion_removes_offsets(txn_bootstrap)


def check_deletion_removes_offsets(bootstrap: str) -> None:
    """The scenario, on any broker or cluster (tests/cluster runs it on three brokers)."""
    run = uuid.uuid4().hex[:8]
    gone, kept = f"gone-{run}", f"kept-{run}"
    member_group, offsets_only = f"members-{run}", f"offsets-only-{run}"
    admin = AdminClient({"bootstrap.servers": bootstrap})
    _create(admin, gone, kept)
    producer = Producer({"bootstrap.servers": bootstrap})
    for topic in (gone, kept):
        for p in (0, 1):
            for i in range(3):
                producer.produce(topic, b"v%d" % i, partition=p)
    assert producer.flush(30) == 0

    # a group with a generation (a consumer joined, committed and left) on both topics
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": member_group,
                         "auto.offset.reset": "earliest", "enable.auto.commit": False})
    consumer.subscribe([gone, kept])
    seen = 0
    while seen < 12:
        msg = consumer.poll(1.0)
        if msg is not None and msg.error() is None:
            seen += 1
    consumer.commit(asynchronous=False)
    consumer.close()
    # a group that only stores offsets (generation 0), on the topic to be deleted only
    admin.alter_consumer_group_offsets(
        [ConsumerGroupTopicPartitions(offsets_only, [TopicPartition(gone, 0, 2)])],
        request_timeout=20)[offsets_only].result(30)
    assert _committed(admin, member_group) == {
        (gone, 0): 3, (gone, 1): 3, (kept, 0): 3, (kept, 1): 3}
    assert {member_group, offsets_only} <= _groups(admin)

    admin.delete_topics([gone], operation_timeout=30)[gone].result(30)
    wait_for(lambda: gone not in _topics(admin), 30, f"{gone} deleted")
    # the offsets go once the coordinator hears of the deletion
    wait_for(lambda: _committed(admin, member_group) == {(kept, 0): 3, (kept, 1): 3}, 30,
             f"{member_group}'s offsets of {gone} removed")
    wait_for(lambda: offsets_only not in _groups(admin), 30,
             f"{offsets_only}, left without offsets, gone")
    assert member_group in _groups(admin)  # it still has offsets of the other topic

    # the same name again (once Kafka has finished deleting it): a new topic, without the old
    # one's offsets
    wait_for(lambda: _created(admin, gone), 30, f"{gone} created again")
    assert (gone, 0) not in _committed(admin, member_group)
    assert _committed(admin, offsets_only) == {}
