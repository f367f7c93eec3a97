"""ACLs on a single pybroker process: kept across restarts in the metadata store, requests Kafka
cannot parse close the connection, an authorizer pybroker does not have stops the start, and a
group's configs (KIP-848) are guarded by the group's DESCRIBE_CONFIGS and ALTER_CONFIGS, as in
Kafka 4."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from protocol.errors import ErrorCode
from protocol.messages import (
    create_acls_request as ca,
    describe_acls_request as dsa,
    describe_configs_request as dc,
    incremental_alter_configs_request as iac,
)
from pybroker.testing.broker_process import REPO_ROOT, BrokerProcess
from pybroker.testing.wire_client import WireClient
from pybroker.testing.znodes import stored_znodes

DESCRIBE_ACLS, CREATE_ACLS, DESCRIBE_CONFIGS, INCREMENTAL_ALTER_CONFIGS = 29, 30, 32, 44
SECURITY = {"authorizer.class.name": "kafka.security.authorizer.AclAuthorizer",
            "allow.everyone.if.no.acl.found": "true"}


def _creation(name: str, **kw) -> ca.AclCreation:
    fields = dict(resource_type=2, resource_name=name, resource_pattern_type=4,
                  principal="User:alice", host="*", operation=3, permission_type=3)
    fields.update(kw)
    return ca.AclCreation(**fields)


def _describe(client: WireClient) -> list[tuple[str, int, str]]:
    resp = client.call(DESCRIBE_ACLS, 3, dsa.DescribeAclsRequest(
        resource_type_filter=1, resource_name_filter=None, pattern_type_filter=1,
        principal_filter=None, host_filter=None, operation=1, permission_type=1))
    return sorted((r.resource_name, r.pattern_type, a.principal)
                  for r in resp.resources for a in r.acls)


def test_acls_survive_a_restart_and_unknown_parts_close_the_connection(tmp_path: Path):
    broker = BrokerProcess(tmp_path / "logs", overrides=SECURITY, config=None)
    try:
        broker.start()
        with WireClient(broker.bootstrap) as client:
            resp = client.call(CREATE_ACLS, 3, ca.CreateAclsRequest(creations=[
                _creation("orders"), _creation("orders", principal="User:bob")]))
            assert [r.error_code for r in resp.results] == [ErrorCode.NONE] * 2
        with WireClient(broker.bootstrap) as client:
            # operation 0 is UNKNOWN: Kafka cannot parse such a request and closes
            client.send(CREATE_ACLS, 3, ca.CreateAclsRequest(creations=[
                _creation("x", operation=0)]))
            with pytest.raises(ConnectionError):
                client.receive(CREATE_ACLS, 3, client.correlation_id)
        broker.stop()
        # stored as Kafka stores them: the pattern's znode, in the node's znode tree
        stored = stored_znodes(tmp_path / "logs", "/kafka-acl-extended/prefixed",
                               "/kafka-acl")
        assert {path: json.loads(data) for path, data in stored.items()} == {
            "/kafka-acl-extended/prefixed/Topic/orders": {
                "version": 1, "acls": [
                    {"principal": p, "permissionType": "Allow", "operation": "Read",
                     "host": "*"}
                    for p in ("User:alice", "User:bob")]}}
        broker.start()
        with WireClient(broker.bootstrap) as client:
            assert _describe(client) == [("orders", 4, "User:alice"), ("orders", 4, "User:bob")]
    finally:
        broker.stop()


def test_an_authorizer_it_does_not_have_stops_the_start(tmp_path: Path):
    proc = subprocess.run(
        [sys.executable, "-m", "pybroker", "serve", "--override", f"log.dirs={tmp_path}",
         "--override", "listeners=PLAINTEXT://127.0.0.1:0",
         "--override", "authorizer.class.name=com.example.MyAuthorizer"],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode != 0
    assert "authorizer.class.name=com.example.MyAuthorizer" in proc.stderr + proc.stdout


def test_group_configs_need_the_groups_config_operations(tmp_path: Path):
    """DESCRIBE_CONFIGS and ALTER_CONFIGS on the GROUP resource (ACL resource type 3) decide;
    a refusal is GROUP_AUTHORIZATION_FAILED, as Kafka 4's ConfigHelper answers."""
    broker = BrokerProcess(tmp_path / "logs", overrides=SECURITY, config=None)
    deny = dict(resource_type=3, resource_pattern_type=3, principal="User:ANONYMOUS",
                permission_type=2)
    try:
        broker.start()
        with WireClient(broker.bootstrap) as client:
            resp = client.call(CREATE_ACLS, 3, ca.CreateAclsRequest(creations=[
                _creation("closed", operation=10, **deny),  # DESCRIBE_CONFIGS
                _creation("closed", operation=11, **deny)]))  # ALTER_CONFIGS
            assert [r.error_code for r in resp.results] == [ErrorCode.NONE] * 2

            def alter(group: str) -> tuple[int, str | None]:
                (r,) = client.call(INCREMENTAL_ALTER_CONFIGS, 1,
                                   iac.IncrementalAlterConfigsRequest(resources=[
                                       iac.AlterConfigsResource(
                                           resource_type=32, resource_name=group,
                                           configs=[iac.AlterableConfig(
                                               name="consumer.session.timeout.ms",
                                               config_operation=0, value="50000")])])).responses
                return r.error_code, r.error_message

            def describe(group: str) -> tuple[int, str | None, int]:
                (r,) = client.call(DESCRIBE_CONFIGS, 4, dc.DescribeConfigsRequest(resources=[
                    dc.DescribeConfigsResource(resource_type=32, resource_name=group,
                                               configuration_keys=None)])).results
                return r.error_code, r.error_message, len(r.configs)

            assert alter("closed") == (ErrorCode.GROUP_AUTHORIZATION_FAILED, None)
            assert describe("closed") == (ErrorCode.GROUP_AUTHORIZATION_FAILED,
                                          "Group authorization failed.", 0)
            assert alter("open") == (ErrorCode.NONE, None)
            assert describe("open") == (ErrorCode.NONE, "", 10)
    finally:
        broker.stop()
