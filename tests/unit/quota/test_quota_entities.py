"""Kafka's rules for AlterClientQuotas and DescribeClientQuotas (ZkAdminManager)."""

from __future__ import annotations

import pytest

from pybroker.quota.entities import (
    DEFAULT,
    INVALID_REQUEST,
    MATCH_ANY,
    MATCH_DEFAULT,
    MATCH_EXACT,
    UNSUPPORTED_VERSION,
    Component,
    Op,
    QuotaEntity,
    QuotaError,
    QuotaFilter,
    apply_ops,
    describe,
    parse_entity,
)


def refusal(call: object) -> tuple[int, str | None]:
    with pytest.raises(QuotaError) as e:
        call()  # type: ignore[operator]
    return e.value.code, e.value.message


def test_entities_are_parsed_as_kafka_parses_them() -> None:
    assert parse_entity([("user", "alice"), ("client-id", None)]) == QuotaEntity("alice",
                                                                                 DEFAULT)
    assert parse_entity([("ip", "10.0.0.1")]) == QuotaEntity(ip="10.0.0.1")
    assert refusal(lambda: parse_entity([])) == (INVALID_REQUEST,
                                                 "Invalid empty client quota entity")
    assert refusal(lambda: parse_entity([("user", "")])) == (INVALID_REQUEST,
                                                             "Empty user not supported")
    assert refusal(lambda: parse_entity([("group", "g")])) == (
        INVALID_REQUEST, "Unhandled client quota entity type: group")
    assert refusal(lambda: parse_entity([("ip", "1.2.3.4"), ("user", "a")]))[0] == INVALID_REQUEST
    assert refusal(lambda: parse_entity([("ip", "no.such.host")])) == (
        INVALID_REQUEST, "no.such.host is not a valid IP or resolvable host.")


def test_ops_keep_what_they_do_not_name_and_check_types() -> None:
    user = QuotaEntity("alice")
    scram = {"SCRAM-SHA-256": "salt=x"}
    assert apply_ops(user, scram, [Op("producer_byte_rate", 1024.0)]) == {
        **scram, "producer_byte_rate": "1024"}
    assert apply_ops(user, {"request_percentage": "5.0"},
                     [Op("request_percentage", 0, remove=True)]) == {}
    assert apply_ops(user, {}, [Op("request_percentage", 50.5)]) == {"request_percentage": "50.5"}
    assert refusal(lambda: apply_ops(user, {}, [Op("producer_byte_rate", 1.5)])) == (
        INVALID_REQUEST, "Configuration producer_byte_rate must be a LONG value")
    assert refusal(lambda: apply_ops(user, {}, [Op("nope", 1)])) == (
        INVALID_REQUEST, "Invalid configuration key nope")
    # a client id holds no SCRAM credentials
    assert refusal(lambda: apply_ops(QuotaEntity(client_id="app"), {},
                                     [Op("SCRAM-SHA-256", 1)]))[0] == INVALID_REQUEST


ENTITIES = {
    QuotaEntity("alice"): {"producer_byte_rate": "1", "SCRAM-SHA-256": "salt=x"},
    QuotaEntity("bob"): {"SCRAM-SHA-256": "salt=y"},  # no quota: never described
    QuotaEntity("alice", "app"): {"consumer_byte_rate": "2"},
    QuotaEntity(DEFAULT, "app"): {"consumer_byte_rate": "3"},
    QuotaEntity(client_id="app"): {"request_percentage": "4"},
    QuotaEntity(client_id=DEFAULT): {"request_percentage": "5"},
    QuotaEntity(ip="10.0.0.1"): {"connection_creation_rate": "6"},
}


def found(*components: Component, strict: bool = False) -> set[QuotaEntity]:
    return {e for e, _ in describe(QuotaFilter(components, strict), ENTITIES)}


def test_describe_matches_as_kafka_does() -> None:
    alice = Component("user", MATCH_EXACT, "alice")
    assert found(alice, strict=True) == {QuotaEntity("alice")}
    assert found(alice) == {QuotaEntity("alice"), QuotaEntity("alice", "app")}
    assert found(Component("user", MATCH_DEFAULT)) == {QuotaEntity(DEFAULT, "app")}
    assert found(Component("user", MATCH_ANY), Component("client-id", MATCH_ANY),
                 strict=True) == {QuotaEntity("alice", "app"), QuotaEntity(DEFAULT, "app")}
    assert found(Component("client-id", MATCH_EXACT, "app"), strict=True) == {
        QuotaEntity(client_id="app")}
    assert found(Component("ip", MATCH_ANY)) == {QuotaEntity(ip="10.0.0.1")}
    assert found() == set(ENTITIES) - {QuotaEntity("bob")}
    assert found(strict=True) == set()
    values = dict(describe(QuotaFilter((alice,), True), ENTITIES))
    assert values == {QuotaEntity("alice"): {"producer_byte_rate": 1.0}}


def test_filters_kafka_refuses() -> None:
    assert refusal(lambda: QuotaFilter((Component("group", MATCH_ANY),))) == (
        UNSUPPORTED_VERSION, "Custom entity type 'group' not supported")
    assert refusal(lambda: QuotaFilter((Component("user", MATCH_ANY),
                                        Component("user", MATCH_ANY)))) == (
        INVALID_REQUEST, "Duplicate user filter component entity type")
    assert refusal(lambda: QuotaFilter((Component("ip", MATCH_ANY),
                                        Component("user", MATCH_ANY))))[0] == INVALID_REQUEST
