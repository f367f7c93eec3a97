"""KIP-848's group configs as Kafka 4.1's ``GroupConfig`` checks them: the order of its checks
and its messages (those the differential tests cannot reach with Kafka's default bounds too),
the defaults a group takes from the broker, and what a broker does with stored values its own
bounds refuse."""

from __future__ import annotations

import pytest

from protocol.errors import ErrorCode, KafkaError
from pybroker.config.catalogue import GROUP_CONFIGS
from pybroker.config.groups import GroupConfigs
from pybroker.config.validators import java_duration_ms


def refusal(configs: GroupConfigs, props: dict[str, str]) -> str:
    with pytest.raises(KafkaError) as e:
        configs.validate(props)
    assert e.value.code == ErrorCode.INVALID_CONFIG
    return e.value.message or ""


def test_defaults_come_from_the_broker_and_from_kafka() -> None:
    configs = GroupConfigs({"group.consumer.session.timeout.ms": "50000"})
    assert configs.session_timeout_ms("any") == 50000
    assert configs.heartbeat_interval_ms("any") == 5000
    assert configs.validate({})["share.record.lock.duration.ms"] == 30000
    assert list(GROUP_CONFIGS)[:2] == ["consumer.session.timeout.ms",
                                       "consumer.heartbeat.interval.ms"]


def test_checks_in_kafkas_order() -> None:
    configs = GroupConfigs({})
    # an unknown name before any value
    assert refusal(configs, {"consumer.session.timeout.ms": "x", "nope": "1"}) == \
        "Unknown group config name: nope"
    # values parse in definition order: the session timeout before the heartbeat interval
    assert refusal(configs, {"consumer.heartbeat.interval.ms": "y",
                             "consumer.session.timeout.ms": "x"}) == \
        "Invalid value x for configuration consumer.session.timeout.ms: Not a number of type INT"
    # then the broker's bounds, the heartbeat interval's first
    assert refusal(configs, {"consumer.session.timeout.ms": "1",
                             "consumer.heartbeat.interval.ms": "1"}) == \
        "consumer.heartbeat.interval.ms must be greater than or equal to " \
        "group.consumer.min.heartbeat.interval.ms"
    # and last the session above the heartbeat
    wide = GroupConfigs({"group.consumer.min.session.timeout.ms": "1000",
                         "group.consumer.min.heartbeat.interval.ms": "1000"})
    assert refusal(wide, {"consumer.session.timeout.ms": "5000"}) == \
        "consumer.session.timeout.ms must be greater than consumer.heartbeat.interval.ms"


def test_bounds_follow_the_brokers_properties() -> None:
    configs = GroupConfigs({"group.consumer.max.session.timeout.ms": "90000"})
    assert configs.validate({"consumer.session.timeout.ms": "90000"})[
        "consumer.session.timeout.ms"] == 90000
    assert refusal(configs, {"consumer.session.timeout.ms": "90001"}) == \
        "consumer.session.timeout.ms must be less than or equal to " \
        "group.consumer.max.session.timeout.ms"


@pytest.mark.parametrize(("value", "ok"), [
    ("latest", True), ("earliest", True), ("by_duration:PT1H", True), ("by_duration:P1D", True),
    ("by_duration:pt0s", True), ("by_duration:PT1.5S", True), (" latest", True),
    ("Latest", False), ("none", False), ("by_duration:", False), ("by_duration:-PT1H", False),
    ("by_duration:PT", False), ("BY_DURATION:PT1H", False)])
def test_share_auto_offset_reset_as_kafka_reads_it(value: str, ok: bool) -> None:
    configs = GroupConfigs({})
    if ok:
        configs.validate({"share.auto.offset.reset": value})
    else:
        assert refusal(configs, {"share.auto.offset.reset": value}).endswith(
            "The value must be either 'earliest', 'latest' or of the format "
            "'by_duration:<PnDTnHnMn.nS>'.")


def test_java_durations() -> None:
    assert java_duration_ms("PT1M30.5S") == 90_500
    assert java_duration_ms("-P1DT1H") == -(25 * 3_600_000)
    assert java_duration_ms("PT-0.5S") == -500
    assert java_duration_ms("P") is None
    assert java_duration_ms("P1DT") is None


def test_stored_values_this_broker_refuses_fall_back_one_by_one() -> None:
    """Another broker, with wider bounds, may have accepted them: the valid ones apply."""
    configs = GroupConfigs({})
    configs.set("g", {"consumer.session.timeout.ms": "1000",
                      "consumer.heartbeat.interval.ms": "6000"})
    assert configs.session_timeout_ms("g") == 45000
    assert configs.heartbeat_interval_ms("g") == 6000
    assert configs.overrides("g") == {"consumer.session.timeout.ms": "1000",
                                      "consumer.heartbeat.interval.ms": "6000"}
    configs.set("g", {})
    assert configs.overrides("g") == {}
    assert configs.heartbeat_interval_ms("g") == 5000


def test_described_values_are_printed_as_kafka_prints_them() -> None:
    configs = GroupConfigs({})
    assert configs.describe_value("consumer.session.timeout.ms",
                                  {"consumer.session.timeout.ms": " 20000"}) == ("20000", True)
    assert configs.describe_value("share.isolation.level", {}) == ("read_uncommitted", False)
