"""Every generated codec, every valid version: encode -> decode -> equal -> re-encode identical.

Values come from the spec model (protocol.codegen.samples), so each field present in a version gets a distinct, non-default
value (a swapped or skipped field shows up as a mismatch).  Golden vectors at the end pin the
encoding to Kafka's wire format rather than to itself.
"""

from __future__ import annotations

import importlib
import uuid
import warnings

import pytest

from protocol import messages
from protocol.codegen.emit import module_name
from protocol.codegen.samples import build_sample
from protocol.codegen.spec import MessageSpec, merged_specs
from protocol.headers import decode_request
from protocol.messages import (
    api_versions_request,
    api_versions_response,
    consumer_group_heartbeat_response,
    delete_topics_response,
    fetch_response,
    metadata_request,
    produce_request,
    response_header,
)
from protocol.primitives import Reader, Writer

SPECS: list[MessageSpec] = [spec for spec, _ in merged_specs()]

def _cases():
    for spec in SPECS:
        for version in spec.versions:
            for nulls in (False, True):
                yield pytest.param(spec, version, nulls, id=f"{spec.name}-v{version}-{'null' if nulls else 'set'}")


@pytest.mark.parametrize(("spec", "version", "nulls"), list(_cases()))
def test_roundtrip(spec: MessageSpec, version: int, nulls: bool):
    module = importlib.import_module(f"protocol.messages.{module_name(spec.file_name)}")
    message = build_sample(spec, module, version, nulls)
    data = module.encode(message, version)
    decoded = module.decode(data, version)
    assert decoded == message
    assert module.encode(decoded, version) == data
    # The per-version functions and the dispatching entry points agree.
    w = Writer()
    module.write(w, message, version)
    assert bytes(w) == data
    assert module.read(Reader(data), version) == message


def test_module_constants():
    assert produce_request.NAME == "ProduceRequest"
    assert produce_request.API_KEY == 0
    assert produce_request.TYPE == "request"
    assert produce_request.VALID_VERSIONS == (0, 11)
    assert produce_request.FLEXIBLE_VERSIONS == (9, 11)
    assert set(produce_request.READERS) == set(range(0, 12))
    assert metadata_request.FLEXIBLE_VERSIONS[0] == 9
    assert response_header.API_KEY is None and response_header.TYPE == "header"


def test_index_tables():
    assert messages.API_KEYS[0] == ("produce_request", "produce_response")
    assert messages.API_NAMES[18] == "ApiVersions"
    assert messages.request_module(3) is metadata_request
    assert messages.response_module(18) is api_versions_response
    assert messages.REQUEST_FLEXIBLE_FROM[18] == 3
    with pytest.raises(KeyError):
        messages.request_module(9999)


# The constants of org.apache.kafka.common.protocol.ApiKeys in kafka-clients 3.9.1, in order, with
# 74 under its Kafka 4.1 name (LIST_CONFIG_RESOURCES, from the overlay; 3.9 calls it
# LIST_CLIENT_METRICS_RESOURCES).
JAVA_API_KEYS = """
    PRODUCE FETCH LIST_OFFSETS METADATA LEADER_AND_ISR STOP_REPLICA UPDATE_METADATA
    CONTROLLED_SHUTDOWN OFFSET_COMMIT OFFSET_FETCH FIND_COORDINATOR JOIN_GROUP HEARTBEAT
    LEAVE_GROUP SYNC_GROUP DESCRIBE_GROUPS LIST_GROUPS SASL_HANDSHAKE API_VERSIONS CREATE_TOPICS
    DELETE_TOPICS DELETE_RECORDS INIT_PRODUCER_ID OFFSET_FOR_LEADER_EPOCH ADD_PARTITIONS_TO_TXN
    ADD_OFFSETS_TO_TXN END_TXN WRITE_TXN_MARKERS TXN_OFFSET_COMMIT DESCRIBE_ACLS CREATE_ACLS
    DELETE_ACLS DESCRIBE_CONFIGS ALTER_CONFIGS ALTER_REPLICA_LOG_DIRS DESCRIBE_LOG_DIRS
    SASL_AUTHENTICATE CREATE_PARTITIONS CREATE_DELEGATION_TOKEN RENEW_DELEGATION_TOKEN
    EXPIRE_DELEGATION_TOKEN DESCRIBE_DELEGATION_TOKEN DELETE_GROUPS ELECT_LEADERS
    INCREMENTAL_ALTER_CONFIGS ALTER_PARTITION_REASSIGNMENTS LIST_PARTITION_REASSIGNMENTS
    OFFSET_DELETE DESCRIBE_CLIENT_QUOTAS ALTER_CLIENT_QUOTAS DESCRIBE_USER_SCRAM_CREDENTIALS
    ALTER_USER_SCRAM_CREDENTIALS VOTE BEGIN_QUORUM_EPOCH END_QUORUM_EPOCH DESCRIBE_QUORUM
    ALTER_PARTITION UPDATE_FEATURES ENVELOPE FETCH_SNAPSHOT DESCRIBE_CLUSTER DESCRIBE_PRODUCERS
    BROKER_REGISTRATION BROKER_HEARTBEAT UNREGISTER_BROKER DESCRIBE_TRANSACTIONS
    LIST_TRANSACTIONS ALLOCATE_PRODUCER_IDS CONSUMER_GROUP_HEARTBEAT CONSUMER_GROUP_DESCRIBE
    CONTROLLER_REGISTRATION GET_TELEMETRY_SUBSCRIPTIONS PUSH_TELEMETRY ASSIGN_REPLICAS_TO_DIRS
    LIST_CONFIG_RESOURCES DESCRIBE_TOPIC_PARTITIONS SHARE_GROUP_HEARTBEAT
    SHARE_GROUP_DESCRIBE SHARE_FETCH SHARE_ACKNOWLEDGE ADD_RAFT_VOTER REMOVE_RAFT_VOTER
    UPDATE_RAFT_VOTER INITIALIZE_SHARE_GROUP_STATE READ_SHARE_GROUP_STATE
    WRITE_SHARE_GROUP_STATE DELETE_SHARE_GROUP_STATE READ_SHARE_GROUP_STATE_SUMMARY
""".split()


def test_api_key_enum_names_keys_as_kafka_does():
    assert [k.name for k in messages.ApiKey] == JAVA_API_KEYS
    assert [k.value for k in messages.ApiKey] == sorted(messages.API_KEYS)
    assert messages.ApiKey.PRODUCE == 0
    assert messages.ApiKey.LEADER_AND_ISR == 4
    assert messages.ApiKey.OFFSET_FOR_LEADER_EPOCH == 23
    assert messages.ApiKey.ALTER_PARTITION == 56
    assert messages.ApiKey(18) is messages.ApiKey.API_VERSIONS
    assert messages.API_NAMES[messages.ApiKey.DESCRIBE_USER_SCRAM_CREDENTIALS] == (
        "DescribeUserScramCredentials"
    )


# -- unknown tagged fields ------------------------------------------------------------------


def test_unknown_tags_survive_a_roundtrip():
    # ApiVersionsRequest v3: two compact strings, then tags 7 ("hi") and 9 (empty) we do not know.
    data = b"\x05kcat\x041.7" + b"\x02" + b"\x07\x02hi" + b"\x09\x00"
    m = api_versions_request.decode(data, 3)
    assert m.client_software_name == "kcat"
    assert m.unknown_tagged_fields == [(7, b"hi"), (9, b"")]
    assert api_versions_request.encode(m, 3) == data


def test_unknown_tags_merge_in_tag_order_with_known_ones():
    m = api_versions_response.ApiVersionsResponse(
        zk_migration_ready=True, unknown_tagged_fields=[(1, b"\x00" * 8), (7, b"x")]
    )
    # tag 1 is FinalizedFeaturesEpoch: bytes for it decode into the known field
    data = api_versions_response.encode(m, 3)
    assert data.endswith(b"\x03" + b"\x01\x08" + b"\x00" * 8 + b"\x03\x01\x01" + b"\x07\x01x")
    back = api_versions_response.decode(data, 3)
    assert back.finalized_features_epoch == 0
    assert back.zk_migration_ready is True
    assert back.unknown_tagged_fields == [(7, b"x")]


def test_unknown_tags_in_nested_struct():
    topic = fetch_response.FetchableTopicResponse(
        topic_id=uuid.UUID(int=1), unknown_tagged_fields=[(42, b"abc")]
    )
    m = fetch_response.FetchResponse(responses=[topic])
    back = fetch_response.decode(fetch_response.encode(m, 16), 16)
    assert back.responses[0].unknown_tagged_fields == [(42, b"abc")]


# -- golden vectors -------------------------------------------------------------------------


def test_golden_api_versions_request_v3_frame():
    frame = (
        b"\x00\x12\x00\x03\x00\x00\x00\x01"  # api key 18, version 3, correlation id 1
        b"\x00\x07rdkafka"  # client id: int16 length, never compact
        b"\x00"  # header tags
        b"\x0dlibrdkafka-x"  # compact string: length + 1
        b"\x062.3.0"
        b"\x00"  # body tags
    )
    header, body = decode_request(frame)
    assert (header.request_api_key, header.request_api_version, header.correlation_id) == (18, 3, 1)
    assert header.client_id == "rdkafka"
    assert body == api_versions_request.ApiVersionsRequest(
        client_software_name="librdkafka-x", client_software_version="2.3.0"
    )
    assert api_versions_request.encode(body, 3) == frame[18:]


def test_golden_metadata_request_null_topics():
    m = metadata_request.MetadataRequest(topics=None)
    assert metadata_request.encode(m, 1) == b"\xff\xff\xff\xff"
    assert metadata_request.decode(b"\xff\xff\xff\xff", 1).topics is None
    # v0 has no null form: an empty list meant "all topics".
    assert metadata_request.encode(metadata_request.MetadataRequest(topics=[]), 0) == b"\x00\x00\x00\x00"
    # v4+: allow_auto_topic_creation follows the array.
    topics = [metadata_request.MetadataRequestTopic(name="t")]
    assert metadata_request.encode(metadata_request.MetadataRequest(topics=topics), 4) == (
        b"\x00\x00\x00\x01\x00\x01t\x01"
    )


def test_golden_flexible_response_with_tagged_fields():
    key = api_versions_response.ApiVersion(api_key=18, min_version=0, max_version=3)
    m = api_versions_response.ApiVersionsResponse(
        api_keys=[key], throttle_time_ms=0, finalized_features_epoch=5, zk_migration_ready=True
    )
    expected = (
        b"\x00\x00"  # error code
        b"\x02" b"\x00\x12\x00\x00\x00\x03\x00"  # compact array of 1 ApiVersion (+ its empty tags)
        b"\x00\x00\x00\x00"  # throttle time
        b"\x02"  # two tagged fields
        b"\x01\x08\x00\x00\x00\x00\x00\x00\x00\x05"  # tag 1: FinalizedFeaturesEpoch int64
        b"\x03\x01\x01"  # tag 3: ZkMigrationReady true
    )
    assert api_versions_response.encode(m, 3) == expected
    assert api_versions_response.decode(expected, 3) == m


def test_golden_produce_request_v3():
    part = produce_request.PartitionProduceData(index=2, records=b"RB")
    topic = produce_request.TopicProduceData(name="t", partition_data=[part])
    m = produce_request.ProduceRequest(transactional_id=None, acks=-1, timeout_ms=1000, topic_data=[topic])
    assert produce_request.encode(m, 3) == (
        b"\xff\xff"  # null transactional id
        b"\xff\xff\x00\x00\x03\xe8"  # acks -1, timeout 1000
        b"\x00\x00\x00\x01\x00\x01t"  # one topic "t"
        b"\x00\x00\x00\x01\x00\x00\x00\x02\x00\x00\x00\x02RB"  # one partition, 2 bytes of records
    )
    decoded = produce_request.decode(produce_request.encode(m, 3), 3)
    assert isinstance(decoded.topic_data[0].partition_data[0].records, memoryview)


def test_golden_nullable_struct_marker():
    m = consumer_group_heartbeat_response.ConsumerGroupHeartbeatResponse(assignment=None)
    data = consumer_group_heartbeat_response.encode(m, 0)
    # throttle, error, null error message, null member id, epoch, interval, assignment=-1, tags
    assert data == b"\x00" * 4 + b"\x00\x00" + b"\x00" + b"\x00" + b"\x00" * 4 + b"\x00" * 4 + b"\xff" + b"\x00"
    assignment = consumer_group_heartbeat_response.Assignment()
    data = consumer_group_heartbeat_response.encode(
        consumer_group_heartbeat_response.ConsumerGroupHeartbeatResponse(assignment=assignment), 0
    )
    assert data.endswith(b"\x01" + b"\x01\x00" + b"\x00")  # marker 1, empty array, tags, tags


def test_golden_response_header():
    assert response_header.encode(response_header.ResponseHeader(correlation_id=7), 0) == b"\x00\x00\x00\x07"
    assert response_header.encode(response_header.ResponseHeader(correlation_id=7), 1) == b"\x00\x00\x00\x07\x00"


# -- splices --------------------------------------------------------------------------------


class FileRegion:
    """Stands in for a segment-file slice: sized, not a buffer."""

    def __init__(self, payload: bytes) -> None:
        self.payload = payload

    def __len__(self) -> int:
        return len(self.payload)

    def __bytes__(self) -> bytes:
        return self.payload


def test_records_objects_are_spliced_not_copied():
    region = FileRegion(b"BATCH")
    part = fetch_response.PartitionData(partition_index=0, records=region)
    topic = fetch_response.FetchableTopicResponse(topic="t", partitions=[part])
    m = fetch_response.FetchResponse(responses=[topic])
    w = Writer()
    fetch_response.write(w, m, 11)
    assert len(w.splices) == 1
    offset, obj = w.splices[0]
    assert obj is region
    assert bytes(w[offset - 4 : offset]) == b"\x00\x00\x00\x05"  # the length prefix is written
    assert b"BATCH" not in w
    assert w.total_size() == len(w) + 5
    copied = fetch_response.encode(
        fetch_response.FetchResponse(
            responses=[
                fetch_response.FetchableTopicResponse(
                    topic="t", partitions=[fetch_response.PartitionData(partition_index=0, records=b"BATCH")]
                )
            ]
        ),
        11,
    )
    assert w.to_bytes() == copied
    assert fetch_response.encode(m, 11) == copied


def test_file_slices_materialise_when_encoded_whole(tmp_path):
    """``encode`` of a Fetch response carrying a segment-file slice reads the slice's bytes."""
    from pybroker.log import FileSlice

    path = tmp_path / "segment.log"
    path.write_bytes(b"..BATCH..")
    with path.open("rb") as f:
        part = fetch_response.PartitionData(partition_index=0, records=FileSlice(f, 2, 5))
        m = fetch_response.FetchResponse(
            responses=[fetch_response.FetchableTopicResponse(topic="t", partitions=[part])])
        data = fetch_response.encode(m, 11)
    part.records = b"BATCH"
    assert data == fetch_response.encode(m, 11)


def test_writers_refuse_null_in_versions_without_a_null_form():
    # MetadataRequest.Topics is nullable from v1; v0 cannot say null (it used [] for "all")
    with pytest.raises(ValueError, match="MetadataRequest.Topics is null"):
        metadata_request.encode(metadata_request.MetadataRequest(topics=None), 0)
    # DeleteTopicsResponse's topic Name is nullable from v6 (topics named by id)
    result = delete_topics_response.DeletableTopicResult(name=None)
    m = delete_topics_response.DeleteTopicsResponse(responses=[result])
    with pytest.raises(ValueError, match="DeleteTopicsResponse.Name is null"):
        delete_topics_response.encode(m, 5)
    assert delete_topics_response.decode(
        delete_topics_response.encode(m, 6), 6).responses[0].name is None


# -- an independent implementation as oracle ------------------------------------------------


def _kafka_python_classes() -> dict[str, type]:
    """kafka-python 3.x's own JSON-driven codecs, by message name."""
    import pkgutil

    import kafka.protocol
    from kafka.protocol.api_message import ApiMessage

    found: dict[str, type] = {}
    for info in pkgutil.walk_packages(kafka.protocol.__path__, "kafka.protocol."):
        if ".old" in info.name:
            continue
        module = importlib.import_module(info.name)
        for obj in vars(module).values():
            if isinstance(obj, type) and issubclass(obj, ApiMessage) and getattr(obj, "_json", None):
                found[obj._json["name"]] = obj
    return found


with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)  # kafka-python's schema loader
    KAFKA_PYTHON = _kafka_python_classes()


def _oracle_cases():
    for spec in SPECS:
        cls = KAFKA_PYTHON.get(spec.name)
        if cls is None:
            continue
        for version in spec.versions:
            if version <= cls.max_version:
                yield pytest.param(spec, cls, version, id=f"{spec.name}-v{version}")


with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    ORACLE_CASES = list(_oracle_cases())


def test_oracle_covers_the_common_apis():
    names = {p.values[0].name for p in ORACLE_CASES}
    assert {"ProduceRequest", "FetchResponse", "MetadataResponse", "JoinGroupRequest"} <= names


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # kafka-python's lazy schema loading
@pytest.mark.parametrize(("spec", "cls", "version"), ORACLE_CASES)
def test_kafka_python_reads_and_rewrites_our_bytes_identically(spec, cls, version):
    module = importlib.import_module(f"protocol.messages.{module_name(spec.file_name)}")
    message = build_sample(spec, module, version)
    if spec.name == "ApiVersionsResponse":
        message.error_code = 0  # kafka-python falls back to v0 for any error response
    data = module.encode(message, version)
    theirs = cls.decode(data, version=version)
    for attr in ("_header", "_min_version", "_max_version"):  # decode skips __init__
        if not hasattr(theirs, attr):
            setattr(theirs, attr, None)
    assert bytes(theirs.encode(version=version)) == data
