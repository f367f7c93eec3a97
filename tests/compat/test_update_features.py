"""UpdateFeatures (KIP-584) beside Apache Kafka 3.9 in ZooKeeper mode: a broker that supports
no feature refuses additions and upgrades per feature, with Kafka's messages and in Kafka's
order (its controller's HashMap of the names), and refuses what is malformed before that."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from protocol.messages import update_features_request as uf
from pybroker.testing.broker_process import BrokerProcess
from pybroker.testing.reference_kafka import ReferenceKafka
from pybroker.testing.wire_client import WireClient
from tests.conftest import REFERENCE_OVERRIDES

pytestmark = pytest.mark.compat

UPDATE_FEATURES = 57
UPGRADE, SAFE_DOWNGRADE, UNSAFE_DOWNGRADE = 1, 2, 3

#: each request: (version, [(feature, level, upgrade type or allow_downgrade)])
REQUESTS = [
    (1, [("metadata.version", 20, UPGRADE)]),
    (1, [("", 1, UPGRADE)]),
    (1, [("group.version", 1, 9)]),
    (1, [("group.version", 0, SAFE_DOWNGRADE)]),
    (1, [("group.version", 0, UPGRADE)]),
    (1, [("group.version", 0, UNSAFE_DOWNGRADE)]),
    (1, [("a.feature", 1, UPGRADE), ("b.feature", 2, SAFE_DOWNGRADE),
         ("c.feature", 0, SAFE_DOWNGRADE), ("d.feature", 3, UPGRADE),
         ("kraft.version", 1, UPGRADE), ("transaction.version", 2, UPGRADE)]),
    (1, [("a.feature", 1, UPGRADE), ("a.feature", 0, SAFE_DOWNGRADE)]),
    (0, [("metadata.version", 1, False), ("group.version", 0, True)]),
    (1, []),
]


@pytest.fixture(scope="module")
def sides(reference_kafka: ReferenceKafka,
          tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    broker = BrokerProcess(tmp_path_factory.mktemp("features") / "kafka-logs",
                           overrides=REFERENCE_OVERRIDES, config=None)
    try:
        yield {"pybroker": broker.start().bootstrap, "kafka": reference_kafka.bootstrap}
    finally:
        broker.stop()


def answers(bootstrap: str) -> list[object]:
    out = []
    with WireClient(bootstrap) as c:
        for version, updates in REQUESTS:
            keys = [uf.FeatureUpdateKey(feature=f, max_version_level=level,
                                        allow_downgrade=bool(kind) if version == 0 else False,
                                        upgrade_type=int(kind) if version >= 1 else 1)
                    for f, level, kind in updates]
            r = c.call(UPDATE_FEATURES, version, uf.UpdateFeaturesRequest(
                timeout_ms=10_000, feature_updates=keys, validate_only=False))
            out.append((version, r.error_code, r.error_message,
                        [(x.feature, x.error_code, x.error_message) for x in r.results]))
    return out


def test_feature_updates_are_refused_as_kafka_refuses_them(sides: dict[str, str]) -> None:
    ours, kafkas = answers(sides["pybroker"]), answers(sides["kafka"])
    assert ours == kafkas
    # not a vacuous comparison: every update of the first request is refused
    assert ours[0][3] == [("metadata.version", 42, "Could not apply finalized feature update "
                                                   "because the provided feature is not "
                                                   "supported.")]
