"""Differential tests of KIP-848's group configs: the GROUP config resource (type 32) in
DescribeConfigs, IncrementalAlterConfigs and AlterConfigs, against Apache Kafka 4.1 in KRaft
mode (Kafka 3.9 has no group resource).

Each step compares the whole answer: every group config with its value, source and type, the
refusals (unknown names, values out of the broker's bounds, a session timeout not above the
heartbeat interval, list operations on an int, an empty group name) with Kafka's messages, and
the heartbeat interval a consumer group's member is given once its group overrides it.
"""

from __future__ import annotations

from protocol.messages import (
    alter_configs_request as ac,
    describe_configs_request as dc,
    incremental_alter_configs_request as iac,
    list_config_resources_request as lcr,
)
from tests.compat.differential.differ import Known, Recorder
from tests.compat.differential.steps import create_topic, wait_until
from tests.compat.differential.test_consumer_groups import (
    HEARTBEAT,
    coordinator_ready,
    heartbeat,
    join,
)

GROUP = 32
DESCRIBE_CONFIGS, ALTER_CONFIGS, INCREMENTAL_ALTER_CONFIGS, LIST_CONFIG_RESOURCES = 32, 33, 44, 74
SET, DELETE, APPEND, SUBTRACT = 0, 1, 2, 3

KNOWN: list[Known] = []


def describe(group: str, *, synonyms: bool = True, keys: list[str] | None = None,
             ) -> dc.DescribeConfigsRequest:
    return dc.DescribeConfigsRequest(
        resources=[dc.DescribeConfigsResource(resource_type=GROUP, resource_name=group,
                                              configuration_keys=keys)],
        include_synonyms=synonyms, include_documentation=False)


def alter(group: str, *ops: tuple[str, int, str | None], validate_only: bool = False,
          ) -> iac.IncrementalAlterConfigsRequest:
    return iac.IncrementalAlterConfigsRequest(
        resources=[iac.AlterConfigsResource(
            resource_type=GROUP, resource_name=group,
            configs=[iac.AlterableConfig(name=n, config_operation=op, value=v)
                     for n, op, v in ops])],
        validate_only=validate_only)


def legacy_alter(group: str, **configs: str) -> ac.AlterConfigsRequest:
    return ac.AlterConfigsRequest(
        resources=[ac.AlterConfigsResource(
            resource_type=GROUP, resource_name=group,
            configs=[ac.AlterableConfig(name=n.replace("_", "."), value=v)
                     for n, v in configs.items()])],
        validate_only=False)


def group_configs(rec: Recorder, names) -> None:
    """Describe a group nobody configured, set and delete its overrides, and the refusals."""
    group = names("configured")
    rec.call("describe, nothing set", DESCRIBE_CONFIGS, 4, describe(group))
    rec.call("describe at v1", DESCRIBE_CONFIGS, 1, describe(group))
    rec.call("describe one key", DESCRIBE_CONFIGS, 4,
             describe(group, keys=["consumer.heartbeat.interval.ms"]))
    rec.call("describe an empty group name", DESCRIBE_CONFIGS, 4, describe(""))
    rec.call("set the session timeout and heartbeat", INCREMENTAL_ALTER_CONFIGS, 1, alter(
        group, ("consumer.session.timeout.ms", SET, "20000"),
        ("consumer.heartbeat.interval.ms", SET, "2000")))
    rec.call("describe, two set", DESCRIBE_CONFIGS, 4, describe(group))
    rec.call("validate only", INCREMENTAL_ALTER_CONFIGS, 1, alter(
        group, ("consumer.heartbeat.interval.ms", SET, "3000"), validate_only=True))
    rec.call("describe after validate only", DESCRIBE_CONFIGS, 4,
             describe(group, keys=["consumer.heartbeat.interval.ms"]))
    refusals = {
        "an unknown name": [("group.consumer.session.timeout.ms", SET, "20000")],
        "below the broker's minimum": [("consumer.session.timeout.ms", SET, "1000")],
        "above the broker's maximum": [("consumer.session.timeout.ms", SET, "600000")],
        "heartbeat below the minimum": [("consumer.heartbeat.interval.ms", SET, "100")],
        "heartbeat above the maximum": [("consumer.heartbeat.interval.ms", SET, "20000")],
        "session not above heartbeat": [("consumer.heartbeat.interval.ms", SET, "15000"),
                                        ("consumer.session.timeout.ms", SET, "15000")],
        "not a number": [("consumer.session.timeout.ms", SET, "soon")],
        "zero": [("consumer.session.timeout.ms", SET, "0")],
        "append to an int": [("consumer.session.timeout.ms", APPEND, "1")],
        "subtract from an int": [("consumer.heartbeat.interval.ms", SUBTRACT, "1")],
        "a null value": [("consumer.session.timeout.ms", SET, None)],
        "a share group config out of bounds": [("share.record.lock.duration.ms", SET, "10")],
        "a bad isolation level": [("share.isolation.level", SET, "dirty")],
        "too many standby replicas": [("streams.num.standby.replicas", SET, "3")],
    }
    for label, ops in refusals.items():
        rec.call(f"refused: {label}", INCREMENTAL_ALTER_CONFIGS, 1, alter(group, *ops))
    rec.call("refused: an empty group name", INCREMENTAL_ALTER_CONFIGS, 1,
             alter("", ("consumer.session.timeout.ms", SET, "20000")))
    rec.call("share and streams configs", INCREMENTAL_ALTER_CONFIGS, 1, alter(
        group, ("share.auto.offset.reset", SET, "earliest"),
        ("streams.num.standby.replicas", SET, "1")))
    rec.call("describe after the refusals", DESCRIBE_CONFIGS, 4, describe(group))
    rec.call("delete one, and one never set", INCREMENTAL_ALTER_CONFIGS, 1, alter(
        group, ("consumer.session.timeout.ms", DELETE, None),
        ("share.session.timeout.ms", DELETE, None)))
    rec.call("describe after the delete", DESCRIBE_CONFIGS, 4, describe(group))
    rec.call("AlterConfigs replaces them all", ALTER_CONFIGS, 2,
             legacy_alter(group, consumer_session_timeout_ms="30000"))
    rec.call("describe after AlterConfigs", DESCRIBE_CONFIGS, 4, describe(group))


def heartbeat_interval(rec: Recorder, names) -> None:
    """A member of a group whose heartbeat interval is overridden is given that interval; one
    of another group the broker's."""
    group, other = names("tuned"), names("untuned")
    coordinator_ready(rec, group, other)
    rec.call("set the heartbeat interval", INCREMENTAL_ALTER_CONFIGS, 1, alter(
        group, ("consumer.heartbeat.interval.ms", SET, "2500")))
    joined = rec.call("a member of the tuned group joins", HEARTBEAT, 1,
             join(group, "m-1", ["no-such-topic"]), mask=("member_epoch",))
    rec.call("a member of another group joins", HEARTBEAT, 1,
             join(other, "m-2", ["no-such-topic"]), mask=("member_epoch",))
    rec.call("the interval changes while it is a member", INCREMENTAL_ALTER_CONFIGS, 1,
             alter(group, ("consumer.heartbeat.interval.ms", SET, "3500")))
    # the change reaches the coordinator a moment later (Kafka 4: the metadata image;
    # pybroker: the change notification)
    wait_until(f"the new interval at {rec.bootstrap}", lambda: rec.quietly(
        HEARTBEAT, 1, heartbeat(group, "m-1", joined.member_epoch)).heartbeat_interval_ms == 3500)
    rec.call("the member's next heartbeat", HEARTBEAT, 1,
             heartbeat(group, "m-1", joined.member_epoch), mask=("member_epoch",))
    rec.call("the member leaves", HEARTBEAT, 1, heartbeat(group, "m-1", -1))
    rec.call("the other leaves", HEARTBEAT, 1, heartbeat(other, "m-2", -1))


def listed_here(rec: Recorder, label: str, base: str, version: int,
                types: list[int] | None) -> None:
    """ListConfigResources, recorded with only this test's groups and topics and the brokers,
    by role (the brokers are shared with other tests)."""
    resp = rec.quietly(LIST_CONFIG_RESOURCES, version,
                       lcr.ListConfigResourcesRequest(resource_types=types or []))
    resp.config_resources = [
        r for r in resp.config_resources if base in r.resource_name or r.resource_type in (4, 8)]
    for r in resp.config_resources:  # the brokers' ids differ (pybroker 0, Kafka's node 1)
        if r.resource_type in (4, 8):
            r.resource_name = "<broker id>"
    rec.record(label, LIST_CONFIG_RESOURCES, version, resp)


def config_resources(rec: Recorder, names) -> None:
    """ListConfigResources (Kafka 4.1's name for ListClientMetricsResources, KIP-1142): the
    groups with configs (one whose configs were all deleted too), topics, brokers and loggers,
    in Kafka's order; version 0 lists client-metrics resources only."""
    kept, emptied, plain = names("kept"), names("emptied"), names("plain")
    coordinator_ready(rec, plain)
    create_topic(rec, names.topic, 1)
    rec.call("configure a group", INCREMENTAL_ALTER_CONFIGS, 1,
             alter(kept, ("consumer.session.timeout.ms", SET, "20000")))
    rec.call("configure another", INCREMENTAL_ALTER_CONFIGS, 1,
             alter(emptied, ("consumer.session.timeout.ms", SET, "20000")))
    rec.call("and delete its only config", INCREMENTAL_ALTER_CONFIGS, 1,
             alter(emptied, ("consumer.session.timeout.ms", DELETE, None)))
    rec.call("a group with members and no configs", HEARTBEAT, 1,
             join(plain, "m-1", [names.topic]), mask=("member_epoch", "assignment"))
    base = names.base
    listed_here(rec, "groups", base, 1, [GROUP])
    listed_here(rec, "topics", base, 1, [2])
    listed_here(rec, "brokers", base, 1, [4])
    listed_here(rec, "loggers", base, 1, [8])
    listed_here(rec, "topics and groups", base, 1, [2, GROUP, GROUP])
    listed_here(rec, "every type", base, 1, None)
    listed_here(rec, "client metrics", base, 1, [16])
    listed_here(rec, "version 0", base, 0, None)
    rec.call("an unknown type", LIST_CONFIG_RESOURCES, 1,
             lcr.ListConfigResourcesRequest(resource_types=[99]))
    rec.call("the member leaves", HEARTBEAT, 1, heartbeat(plain, "m-1", -1))


def test_group_configs(pair4, names) -> None:
    pair4.check(group_configs, names, KNOWN)


def test_list_config_resources(pair4, names) -> None:
    pair4.check(config_resources, names, KNOWN)


def test_the_heartbeat_interval_follows_the_group_config(pair4, names) -> None:
    pair4.check(heartbeat_interval, names, KNOWN)
