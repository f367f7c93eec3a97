"""Kafka's znode codecs: every value round-trips, the JSON is the shape Kafka 3.9 writes
(docs: /work/shared/notes/zookeeper-layout.md, Kafka's ZkData), and older versions decode
where Kafka decodes them."""

from __future__ import annotations

import json
import uuid

import pytest

from pybroker.zk.znodes import (
    PERSISTENT_ZK_PATHS,
    RECOVERING,
    BrokerIdZNode,
    BrokerRegistration,
    ClusterIdZNode,
    ConfigEntityChangeNotificationSequenceZNode,
    ConfigEntityZNode,
    ControllerEpochZNode,
    ControllerRegistration,
    ControllerZNode,
    DeleteTopicsTopicZNode,
    EndPoint,
    IsrChangeNotificationSequenceZNode,
    LeaderIsrAndControllerEpoch,
    PreferredReplicaElectionZNode,
    ProducerIdBlockZNode,
    ProducerIdsBlock,
    ReassignPartitionsZNode,
    ReplicaAssignment,
    TopicAssignment,
    TopicPartitionStateZNode,
    TopicZNode,
    ZNodeDecodeError,
    uuid_from_string,
    uuid_to_string,
)

TOPIC_ID = uuid.UUID("3d5a1c2e-9b1f-4c5e-8a7d-0f1e2d3c4b5a")
PLAINTEXT = EndPoint("PLAINTEXT", "h", 9092, "PLAINTEXT")


def parsed(data: bytes) -> object:
    return json.loads(data)


# -- topic ids --------------------------------------------------------------------------------

def test_topic_ids_are_kafkas_base64() -> None:
    text = uuid_to_string(TOPIC_ID)
    assert len(text) == 22 and "=" not in text
    assert uuid_from_string(text) == TOPIC_ID
    assert uuid_to_string(uuid.UUID(int=0)) == "AAAAAAAAAAAAAAAAAAAAAA"  # Uuid.ZERO_UUID
    with pytest.raises(ZNodeDecodeError):
        uuid_from_string("short")


# -- cluster id, controller -------------------------------------------------------------------

def test_cluster_id() -> None:
    data = ClusterIdZNode.encode("Ab3_x-YzAAAAAAAAAAAAAA")
    assert parsed(data) == {"version": "1", "id": "Ab3_x-YzAAAAAAAAAAAAAA"}  # a string version
    assert ClusterIdZNode.decode(data) == "Ab3_x-YzAAAAAAAAAAAAAA"
    assert ClusterIdZNode.PATH == "/cluster/id"


def test_controller_registration_version_2() -> None:
    reg = ControllerRegistration(1, 1700000000123)
    data = ControllerZNode.encode(reg)
    assert parsed(data) == {"version": 2, "brokerid": 1, "timestamp": "1700000000123",
                            "kraftControllerEpoch": -1}
    assert ControllerZNode.decode(data) == reg


def test_controller_registration_version_1_has_no_kraft_epoch() -> None:
    data = b'{"version":1,"brokerid":3,"timestamp":"42"}'
    reg = ControllerZNode.decode(data)
    assert reg == ControllerRegistration(3, 42, None, 1)
    assert parsed(ControllerZNode.encode(reg)) == parsed(data)


def test_controller_epoch_is_plain_text() -> None:
    assert ControllerEpochZNode.encode(3) == b"3"
    assert ControllerEpochZNode.decode(b"17") == 17
    with pytest.raises(ZNodeDecodeError):
        ControllerEpochZNode.decode(b"x")


# -- brokers ----------------------------------------------------------------------------------

def test_broker_registration_version_5() -> None:
    reg = BrokerRegistration(1, (PLAINTEXT,), jmx_port=-1, timestamp=1700000000000)
    data = BrokerIdZNode.encode(reg)
    assert parsed(data) == {
        "version": 5, "host": "h", "port": 9092, "jmx_port": -1, "timestamp": "1700000000000",
        "endpoints": ["PLAINTEXT://h:9092"],
        "listener_security_protocol_map": {"PLAINTEXT": "PLAINTEXT"}, "features": {}}
    assert BrokerIdZNode.decode(1, data) == reg
    assert BrokerIdZNode.path(1) == "/brokers/ids/1"


def test_broker_registration_with_listeners_rack_and_features() -> None:
    reg = BrokerRegistration(
        7, (EndPoint("CLIENT", "c.example", 9092, "SASL_SSL"),
            EndPoint("REPLICATION", "::1", 9093, "PLAINTEXT"),
            EndPoint("INTERNAL", None, 9094, "SSL")),
        rack="dc1", jmx_port=9999, timestamp=5,
        features={"metadata.version": {"min_version": 1, "max_version": 21}})
    obj = parsed(BrokerIdZNode.encode(reg))
    assert obj == {
        "version": 5, "host": "::1", "port": 9093, "jmx_port": 9999, "timestamp": "5",
        "endpoints": ["CLIENT://c.example:9092", "REPLICATION://[::1]:9093", "INTERNAL://:9094"],
        "rack": "dc1",
        "listener_security_protocol_map": {"CLIENT": "SASL_SSL", "REPLICATION": "PLAINTEXT",
                                           "INTERNAL": "SSL"},
        "features": {"metadata.version": {"min_version": 1, "max_version": 21}}}
    assert BrokerIdZNode.decode(7, BrokerIdZNode.encode(reg)) == reg


def test_broker_without_plaintext_listener_has_no_top_level_address() -> None:
    reg = BrokerRegistration(2, (EndPoint("SSL", "h", 9093, "SSL"),), timestamp=1)
    obj = parsed(BrokerIdZNode.encode(reg))
    assert isinstance(obj, dict) and obj["host"] is None and obj["port"] == -1


def test_broker_registration_version_1() -> None:
    data = b'{"version":1,"host":"localhost","port":9092,"jmx_port":9999,"timestamp":"2233"}'
    reg = BrokerIdZNode.decode(0, data)
    assert reg.endpoints == (EndPoint("PLAINTEXT", "localhost", 9092, "PLAINTEXT"),)
    assert (reg.version, reg.jmx_port, reg.timestamp, reg.rack) == (1, 9999, 2233, None)


def test_broker_registration_version_2_uses_the_default_protocol_map() -> None:
    data = (b'{"version":2,"host":"h1","port":9092,"jmx_port":-1,"timestamp":"1",'
            b'"endpoints":["PLAINTEXT://h1:9092","SSL://h1:9093"]}')
    reg = BrokerIdZNode.decode(0, data)
    assert reg.endpoints == (EndPoint("PLAINTEXT", "h1", 9092, "PLAINTEXT"),
                             EndPoint("SSL", "h1", 9093, "SSL"))
    assert reg.features == {}


def test_broker_registration_version_4_with_rack() -> None:
    data = (b'{"version":4,"host":null,"port":-1,"jmx_port":1,"timestamp":"1",'
            b'"endpoints":["CLIENT://h1:9092"],"rack":"r",'
            b'"listener_security_protocol_map":{"CLIENT":"SSL"}}')
    reg = BrokerIdZNode.decode(4, data)
    assert reg.endpoints == (EndPoint("CLIENT", "h1", 9092, "SSL"),)
    assert reg.rack == "r"
    assert parsed(BrokerIdZNode.encode(reg)) == parsed(data)


@pytest.mark.parametrize("data", [
    b"not json", b"[]", b'{"version":5}',  # no jmx_port
    b'{"version":5,"jmx_port":-1,"endpoints":["NOPE://h:1"],'
    b'"listener_security_protocol_map":{"PLAINTEXT":"PLAINTEXT"}}',
    b'{"version":0,"jmx_port":-1}',
])
def test_broken_broker_registrations_are_refused(data: bytes) -> None:
    with pytest.raises(ZNodeDecodeError):
        BrokerIdZNode.decode(0, data)


# -- topics -----------------------------------------------------------------------------------

def test_topic_assignment_version_3() -> None:
    assignment = TopicAssignment.of(TOPIC_ID, {0: [1, 2, 3], 1: [2, 3, 1]})
    data = TopicZNode.encode(assignment)
    assert parsed(data) == {
        "version": 3, "topic_id": uuid_to_string(TOPIC_ID),
        "partitions": {"0": [1, 2, 3], "1": [2, 3, 1]},
        "adding_replicas": {}, "removing_replicas": {}}
    assert TopicZNode.decode("t", data) == assignment
    assert TopicZNode.path("t") == "/brokers/topics/t"


def test_topic_assignment_with_a_reassignment() -> None:
    assignment = TopicAssignment(None, {
        0: ReplicaAssignment((1, 2, 4), adding_replicas=(4,), removing_replicas=(3,)),
        1: ReplicaAssignment((2, 3))})
    obj = parsed(TopicZNode.encode(assignment))
    assert obj == {"version": 3, "partitions": {"0": [1, 2, 4], "1": [2, 3]},
                   "adding_replicas": {"0": [4]}, "removing_replicas": {"0": [3]}}
    assert TopicZNode.decode("t", TopicZNode.encode(assignment)) == assignment
    assert assignment.replicas() == {0: (1, 2, 4), 1: (2, 3)}


def test_older_topic_assignments_decode() -> None:
    v1 = TopicZNode.decode("t", b'{"version":1,"partitions":{"1":[2],"0":[1]}}')
    assert v1 == TopicAssignment.of(None, {0: [1], 1: [2]})
    assert list(v1.partitions) == [0, 1]
    assert TopicZNode.decode("t", b"") == TopicAssignment(None, {})  # as Kafka reads it


def test_partition_state() -> None:
    state = LeaderIsrAndControllerEpoch(1, 0, (1, 2, 3), 3)
    data = TopicPartitionStateZNode.encode(state)
    assert parsed(data) == {"version": 1, "leader": 1, "leader_epoch": 0, "controller_epoch": 3,
                            "isr": [1, 2, 3]}
    assert TopicPartitionStateZNode.decode(data) == state
    assert TopicPartitionStateZNode.path(("t", 2)) == "/brokers/topics/t/partitions/2/state"


def test_partition_state_records_recovery_only_while_recovering() -> None:
    state = LeaderIsrAndControllerEpoch(2, 5, (2,), 4, RECOVERING)
    obj = parsed(TopicPartitionStateZNode.encode(state))
    assert isinstance(obj, dict) and obj["leader_recovery_state"] == 1
    assert TopicPartitionStateZNode.decode(TopicPartitionStateZNode.encode(state)) == state
    assert TopicPartitionStateZNode.decode(b"") is None
    with pytest.raises(ZNodeDecodeError):
        TopicPartitionStateZNode.decode(b'{"version":1,"leader":1}')


# -- configs ----------------------------------------------------------------------------------

def test_entity_config() -> None:
    data = ConfigEntityZNode.encode({"retention.ms": "1000"})
    assert parsed(data) == {"version": 1, "config": {"retention.ms": "1000"}}
    assert ConfigEntityZNode.decode(data) == {"retention.ms": "1000"}
    assert ConfigEntityZNode.path("topics", "t") == "/config/topics/t"
    assert ConfigEntityZNode.decode(b"") == {}
    assert ConfigEntityZNode.decode(b'{"version":1}') == {}
    with pytest.raises(ZNodeDecodeError):
        ConfigEntityZNode.decode(b'{"version":1,"config":{"retention.ms":1000}}')


def test_config_change_notification() -> None:
    assert ConfigEntityChangeNotificationSequenceZNode.CREATE_PATH == "/config/changes/config_change_"
    data = ConfigEntityChangeNotificationSequenceZNode.encode("topics/t")
    assert parsed(data) == {"version": 2, "entity_path": "topics/t"}
    assert ConfigEntityChangeNotificationSequenceZNode.decode(data) == "topics/t"
    v1 = b'{"version":1,"entity_type":"topics","entity_name":"t"}'
    assert ConfigEntityChangeNotificationSequenceZNode.decode(v1) == "topics/t"
    with pytest.raises(ZNodeDecodeError):
        ConfigEntityChangeNotificationSequenceZNode.decode(b'{"version":3}')


# -- admin znodes -----------------------------------------------------------------------------

def test_delete_topic_request_path() -> None:
    assert DeleteTopicsTopicZNode.path("t") == "/admin/delete_topics/t"


def test_reassign_partitions() -> None:
    reassignment = {("t", 0): (4, 5, 6), ("a", 1): (1,)}
    data = ReassignPartitionsZNode.encode(reassignment)
    assert parsed(data) == {"version": 1, "partitions": [
        {"topic": "a", "partition": 1, "replicas": [1]},
        {"topic": "t", "partition": 0, "replicas": [4, 5, 6]}]}
    assert ReassignPartitionsZNode.decode(data) == reassignment
    with pytest.raises(ZNodeDecodeError):
        ReassignPartitionsZNode.decode(b'{"version":1,"partitions":[{"topic":"t"}]}')


def test_preferred_replica_election() -> None:
    partitions = frozenset({("t", 0), ("t", 1)})
    data = PreferredReplicaElectionZNode.encode(partitions)
    assert parsed(data) == {"version": 1, "partitions": [{"topic": "t", "partition": 0},
                                                         {"topic": "t", "partition": 1}]}
    assert PreferredReplicaElectionZNode.decode(data) == partitions


def test_isr_change_notification() -> None:
    data = IsrChangeNotificationSequenceZNode.encode([("t", 0)])
    assert parsed(data) == {"version": 1, "partitions": [{"topic": "t", "partition": 0}]}
    assert IsrChangeNotificationSequenceZNode.decode(data) == {("t", 0)}
    assert IsrChangeNotificationSequenceZNode.path() == "/isr_change_notification/isr_change_"
    assert IsrChangeNotificationSequenceZNode.sequence_number(
        "/isr_change_notification/isr_change_0000000012") == "0000000012"


# -- producer ids -----------------------------------------------------------------------------

def test_producer_id_block() -> None:
    block = ProducerIdsBlock(1, 0, 1000)
    data = ProducerIdBlockZNode.encode(block)
    assert parsed(data) == {"version": 1, "broker": 1, "block_start": "0", "block_end": "999"}
    assert ProducerIdBlockZNode.decode(data) == block
    assert (block.last_producer_id, block.next_block_first_id) == (999, 1000)
    assert ProducerIdBlockZNode.decode(b"") is None  # created empty at start-up
    with pytest.raises(ZNodeDecodeError):
        ProducerIdBlockZNode.decode(b'{"version":1,"broker":1,"block_start":"9","block_end":"1"}')


def test_persistent_paths_are_kafkas() -> None:
    assert set(PERSISTENT_ZK_PATHS) == {
        "/consumers", "/brokers/ids", "/brokers/topics", "/config/changes",
        "/admin/delete_topics", "/brokers/seqid", "/isr_change_notification",
        "/latest_producer_id_block", "/log_dir_event_notification", "/config/topics",
        "/config/clients", "/config/users", "/config/brokers", "/config/ips"}
