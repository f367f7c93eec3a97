"""The quota managers' arithmetic, against the figures Kafka 3.9's ClientQuotaManager gives:
the sample windows, the throttle time, the precedence of entities and the buckets."""

from __future__ import annotations

import math

import pytest

from pybroker.quota.entities import DEFAULT
from pybroker.quota.manager import ClientQuotaManager, QuotaManagers, QuotaType
from pybroker.quota.rate import SampledRate

MB = 1_000_000


def test_a_new_rate_is_measured_over_ten_windows_at_least() -> None:
    rate = SampledRate(samples=11, window_ms=1000)
    rate.record(10 * MB, 0)
    assert rate.window_ms_at(0) == 10_000
    assert rate.measure(0) == pytest.approx(1 * MB)
    # 20 s later the samples have expired: nothing is left
    assert rate.measure(20_000) == 0


def test_the_window_grows_once_the_samples_span_more_than_ten_windows() -> None:
    rate = SampledRate(samples=11, window_ms=1000)
    for second in range(11):
        rate.record(MB, second * 1000)
    # the oldest sample started at 0; at 10.5 s that is 10.5 s ago, over the minimum
    assert rate.window_ms_at(10_500) == 10_500
    assert rate.measure(10_500) == pytest.approx(11 * MB / 10.5)


def test_a_producer_over_its_byte_rate_is_throttled_as_kafka_computes_it() -> None:
    """1 MB/s, 20 MB within the first second: nothing is throttled up to 10 MB (ten windows'
    worth), then the delay grows to (2 - 1) / 1 x 10 s after the 20th MB."""
    produce = ClientQuotaManager(QuotaType.PRODUCE)
    produce.update(None, "app", MB)
    throttles = [produce.record("ANONYMOUS", "app", MB, 0) for _ in range(20)]
    assert throttles[:10] == [0] * 10
    assert throttles[10] == 1000
    assert throttles == sorted(throttles)
    assert throttles[-1] == 10_000


def test_nothing_is_recorded_until_a_quota_exists() -> None:
    produce = ClientQuotaManager(QuotaType.PRODUCE)
    assert not produce.enabled
    assert produce.record("alice", "app", 10**12, 0) == 0
    assert produce.buckets == {}
    assert produce.max_value_in_window("alice", "app") == math.inf


def test_a_user_quota_wins_over_a_client_id_quota_until_it_is_removed() -> None:
    """Notes §9 #1: quotas at levels 3 (/config/users/alice) and 7 (/config/clients/app)."""
    m = ClientQuotaManager(QuotaType.PRODUCE)
    m.update("alice", None, 100)
    m.update(None, "app", 200)
    assert m.tags("alice", "app") == ("alice", "")
    assert m.limit(m.tags("alice", "app")) == 100
    m.update("alice", None, None)
    assert m.tags("alice", "app") == ("", "app")
    assert m.limit(m.tags("alice", "app")) == 200


def test_the_precedence_of_the_eight_entities() -> None:
    m = ClientQuotaManager(QuotaType.FETCH)
    levels = [(("alice", "app"), 1), (("alice", DEFAULT), 2), (("alice", None), 3),
              ((DEFAULT, "app"), 4), ((DEFAULT, DEFAULT), 5), ((DEFAULT, None), 6),
              ((None, "app"), 7), ((None, DEFAULT), 8)]
    for (user, client_id), bound in levels:
        m.update(user, client_id, bound)
    for (user, client_id), bound in levels:
        assert m.limit(m.tags("alice", "app")) == bound
        m.update(user, client_id, None)
    assert m.limit(m.tags("alice", "app")) == math.inf


def test_a_default_client_quota_gives_each_client_id_a_bucket_of_its_own() -> None:
    """Notes §9 #2: two client ids under /config/clients/<default> each get the full rate."""
    m = ClientQuotaManager(QuotaType.PRODUCE)
    m.update(None, DEFAULT, MB)
    assert [m.record("ANONYMOUS", "one", MB, 0) for _ in range(10)] == [0] * 10
    assert [m.record("ANONYMOUS", "two", MB, 0) for _ in range(10)] == [0] * 10
    assert m.record("ANONYMOUS", "one", MB, 0) > 0
    assert set(m.buckets) == {("", "one"), ("", "two")}


def test_a_changed_quota_applies_to_a_bucket_already_made() -> None:
    m = ClientQuotaManager(QuotaType.PRODUCE)
    m.update(None, "app", MB)
    m.record("ANONYMOUS", "app", 5 * MB, 0)
    assert m.record("ANONYMOUS", "app", 0, 0) == 0
    m.update(None, "app", MB / 10)
    assert m.record("ANONYMOUS", "app", 0, 0) > 0


def test_the_request_quota_throttles_for_one_window_at_most() -> None:
    request = QuotaManagers().request
    request.update(None, "app", 1.0)
    assert request.record("ANONYMOUS", "app", 500.0, 0) == 1000


def test_unrecording_takes_back_a_throttled_fetch() -> None:
    fetch = ClientQuotaManager(QuotaType.FETCH)
    fetch.update(None, "app", MB)
    assert fetch.record("ANONYMOUS", "app", 15 * MB, 0) > 0
    fetch.unrecord("ANONYMOUS", "app", 15 * MB, 0)
    assert fetch.record("ANONYMOUS", "app", 5 * MB, 0) == 0
    # one fetch takes at most the quota over ten windows
    assert fetch.max_value_in_window("ANONYMOUS", "app") == 10 * MB


def test_entity_changes_reach_every_manager_by_its_own_key() -> None:
    managers = QuotaManagers()
    managers.entity_changed("alice", None, {"producer_byte_rate": "1024",
                                            "SCRAM-SHA-256": "salt=..."})
    assert managers.produce.limit(managers.produce.tags("alice", "x")) == 1024
    assert managers.fetch.limit(managers.fetch.tags("alice", "x")) == math.inf
    # every level that was ever configured stays enabled, as Kafka's quotaTypesEnabled
    managers.entity_changed("alice", None, {})
    assert managers.fetch.enabled
    assert managers.produce.limit(managers.produce.tags("alice", "x")) == math.inf


def test_controller_mutations_strict_and_permissive_as_kip_599_counts_them() -> None:
    """Notes §9 #7: rate 2, so a burst of 2 x 11 x 1 = 22 credits, full at first use; four
    topics of ten partitions."""
    from protocol.errors import ErrorCode, KafkaError
    from pybroker.kernel.clock import ManualClock
    from pybroker.quota.manager import ControllerMutationQuotaManager

    clock = ManualClock(1_000_000)
    manager = ControllerMutationQuotaManager(clock=clock)
    assert manager.new_quota("u", "strict", strict=True).throttle_ms() == 0  # disabled: free
    manager.update(None, DEFAULT, 2.0)
    strict = manager.new_quota("u", "strict", strict=True)
    outcomes = []
    for _ in range(4):
        try:
            strict.record(10)
            outcomes.append(0)
        except KafkaError as e:
            outcomes.append(e.code)
    assert outcomes == [0, 0, 0, ErrorCode.THROTTLING_QUOTA_EXCEEDED]
    assert strict.throttle_ms() == 4000  # 8 credits below zero at 2 a second
    clock.advance(1500)
    assert strict.throttle_ms() == 2500
    permissive = manager.new_quota("u", "permissive", strict=False)
    for _ in range(4):
        permissive.record(10)
    assert permissive.throttle_ms() == 9000


def test_scala_hash_order_is_a_permutation_by_bucket() -> None:
    from pybroker.jvm import scala_hash_order

    names = [f"topic-{i}" for i in range(40)]
    order = scala_hash_order(names + names[:3])
    assert sorted(order) == sorted(names)
    assert scala_hash_order(["a"]) == ["a"]
