"""The ACL znodes' codecs agree with Kafka's JSON and with the paths the single node stores."""

from __future__ import annotations

import json

import pytest

from pybroker.security import acl_json
from pybroker.security.acl import PatternType, ResourcePattern, ResourceType
from pybroker.zk.znodes import (
    ACL_RESOURCE_TYPES,
    AclChangeNotificationZNode,
    AclZNode,
    ZNodeDecodeError,
)

KAFKA_DOC = (b'{"version":1,"acls":[{"principal":"User:alice","permissionType":"Allow",'
             b'"operation":"Read","host":"*"}]}')


def test_decode_what_kafka_writes_and_encode_it_back():
    acls = AclZNode.decode(KAFKA_DOC)
    assert acls == [{"principal": "User:alice", "permissionType": "Allow", "operation": "Read",
                     "host": "*"}]
    assert json.loads(AclZNode.encode(acls)) == json.loads(KAFKA_DOC)
    assert AclZNode.decode(b"") == []


@pytest.mark.parametrize("bad", [b'{"version":2,"acls":[]}', b'{"version":1,"acls":[1]}',
                                 b'{"version":1,"acls":[{"principal":"User:a"}]}'])
def test_refuses_what_it_cannot_read(bad):
    with pytest.raises(ZNodeDecodeError):
        AclZNode.decode(bad)


def test_paths_agree_with_the_single_nodes_store():
    assert [t.json_name for t in ResourceType if t.value > 1] == list(ACL_RESOURCE_TYPES)
    for resource_type in ResourceType:
        if resource_type.value <= 1:
            continue
        literal = ResourcePattern(resource_type, "n", PatternType.LITERAL)
        prefixed = ResourcePattern(resource_type, "n", PatternType.PREFIXED)
        assert acl_json.pattern_path(literal) == AclZNode.path(
            AclZNode.LITERAL_ROOT, resource_type.json_name, "n")
        assert acl_json.pattern_path(prefixed) == AclZNode.path(
            AclZNode.PREFIXED_ROOT, resource_type.json_name, "n")
    assert acl_json.LITERAL_CHANGES == AclChangeNotificationZNode.LITERAL
    assert acl_json.EXTENDED_CHANGES == AclChangeNotificationZNode.EXTENDED
