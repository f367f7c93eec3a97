"""UpdateFeatures (KIP-584) as Kafka 3.9's ZooKeeper-mode controller decides it
(``KafkaController.validateFeatureUpdate``): which updates are refused and why, and the
finalized features the others leave. A ZooKeeper-mode broker of Kafka 3.9 supports no feature
(its ApiVersions lists none), so every addition or upgrade is refused as unsupported; only
the deletion of a finalized feature could pass, and ``/feature`` holds none unless someone
wrote one there."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from pybroker.jvm import scala_hash_order

INVALID_REQUEST = 42
UPGRADE, SAFE_DOWNGRADE, UNSAFE_DOWNGRADE = 1, 2, 3
#: ``/feature``'s version and its enabled status, as Kafka 3.9's controller writes them
FEATURES_VERSION, FEATURES_ENABLED = 2, 1

#: the features this broker supports, by name: (min, max) version (none in ZooKeeper mode)
SUPPORTED_FEATURES: Mapping[str, tuple[int, int]] = {}


@dataclass(frozen=True, slots=True)
class FeatureUpdate:
    feature: str
    level: int
    #: UPGRADE, SAFE_DOWNGRADE or UNSAFE_DOWNGRADE; anything else is unknown
    upgrade_type: int

    @property
    def is_delete(self) -> bool:
        return self.level < 1 and self.upgrade_type != UPGRADE


def _check(update: FeatureUpdate, existing: int | None,
           supported: Mapping[str, tuple[int, int]]) -> tuple[int, str | None] | int | None:
    """The update's refusal (error, message), or the new level (None: delete it)."""
    if not update.feature:
        return INVALID_REQUEST, "Feature name can not be empty."
    if update.upgrade_type not in (UPGRADE, SAFE_DOWNGRADE, UNSAFE_DOWNGRADE):
        return INVALID_REQUEST, "Received unknown upgrade type."
    if update.is_delete:
        if existing is None:
            return INVALID_REQUEST, "Can not delete non-existing finalized feature."
        return None
    if update.level < 1:
        return (INVALID_REQUEST, f"Can not provide versionLevel: {update.level} less than 1 "
                                 "without setting the SAFE downgradeType in the request.")
    if existing is not None:
        if update.level == existing:
            verb = "downgrade" if update.upgrade_type == SAFE_DOWNGRADE else "upgrade"
            return (INVALID_REQUEST, f"Can not {verb} a finalized feature from existing "
                                     f"versionLevel:{existing} to the same value.")
        if update.level < existing and update.upgrade_type != SAFE_DOWNGRADE:
            return (INVALID_REQUEST, f"Can not downgrade finalized feature from existing "
                                     f"versionLevel:{existing} to provided versionLevel:"
                                     f"{update.level} without setting the downgradeType to "
                                     "SAFE in the request.")
        if update.upgrade_type != UPGRADE and update.level > existing:
            return (INVALID_REQUEST, f"When the downgradeType is set to SAFE in the request, the "
                                     f"provided versionLevel:{update.level} can not be greater "
                                     f"than existing versionLevel:{existing}.")
    versions = supported.get(update.feature)
    if versions is None:
        return (INVALID_REQUEST, "Could not apply finalized feature update because the provided "
                                 "feature is not supported.")
    if update.level < versions[0] or update.level > versions[1]:
        return (INVALID_REQUEST, "Could not apply finalized feature update because the provided "
                                 f"versionLevel:{update.level} is lower than the supported "
                                 f"minVersion:{versions[0]}.")
    return update.level


def plan_feature_updates(updates: Sequence[FeatureUpdate], existing: Mapping[str, int],
                         supported: Mapping[str, tuple[int, int]] = SUPPORTED_FEATURES,
                         ) -> tuple[dict[str, int], list[tuple[str, int, str | None]]]:
    """(the finalized features after the updates, each feature's (name, error, message) in
    the order Kafka's HashMap of them answers)."""
    target = dict(existing)
    outcome: dict[str, tuple[int, str | None]] = {}
    for update in updates:
        checked = _check(update, existing.get(update.feature), supported)
        if isinstance(checked, tuple):
            outcome[update.feature] = checked
            continue
        if checked is None:
            target.pop(update.feature, None)
        else:
            target[update.feature] = checked
        outcome[update.feature] = (0, None)
    order = scala_hash_order(list(outcome))
    return target, [(name, *outcome[name]) for name in order]
