"""Group configs (KIP-848): the GROUP config resource's values, as Kafka 4.1's ``GroupConfig``
checks them and its ``GroupConfigManager`` keeps them.

A group's overrides are a few properties from :data:`~.catalogue.GROUP_CONFIGS`; whatever a
group does not override comes from the broker (``consumer.session.timeout.ms`` from
``group.consumer.session.timeout.ms``) or from Kafka's defaults. :meth:`GroupConfigs.validate`
refuses a new set of overrides as Kafka does, in Kafka's order and with its messages (an
unknown name, then each value's type and validator in definition order, then the broker's
bounds, then a session timeout not above its heartbeat interval), all INVALID_CONFIG.

:class:`GroupConfigs` holds every group's stored overrides on this broker, fed by the mode's
store as they change (``/config/groups`` and its notifications), and answers the consumer group
coordinator's questions: the session timeout and the heartbeat interval of a group. It is
owned by the broker's event loop.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from protocol.errors import ErrorCode, KafkaError

from .catalogue import GROUP_CONFIGS, broker_value
from .values import ConfigException, parse_value, to_config_string

log = logging.getLogger(__name__)

#: the GROUP config resource's type (Kafka 4's ``ConfigResource.Type.GROUP``)
GROUP_RESOURCE = 32

SESSION_TIMEOUT = "consumer.session.timeout.ms"
HEARTBEAT_INTERVAL = "consumer.heartbeat.interval.ms"

#: the configs with broker bounds, in the order Kafka's ``validateValues`` checks them (each
#: heartbeat interval before its session timeout)
_BOUND_ORDER = ("consumer.heartbeat.interval.ms", "consumer.session.timeout.ms",
                "share.heartbeat.interval.ms", "share.session.timeout.ms",
                "share.record.lock.duration.ms", "streams.heartbeat.interval.ms",
                "streams.session.timeout.ms", "streams.num.standby.replicas")

#: (session timeout, heartbeat interval) pairs Kafka checks, the session above the heartbeat
_PAIRS = (("consumer.session.timeout.ms", "consumer.heartbeat.interval.ms"),
          ("share.session.timeout.ms", "share.heartbeat.interval.ms"),
          ("streams.session.timeout.ms", "streams.heartbeat.interval.ms"))


class GroupConfigs:
    """Every group's overrides, and the values they give; one owner (the event loop)."""

    def __init__(self, broker_props: Mapping[str, str]) -> None:
        #: the value of each config a group does not override
        self.defaults: dict[str, Any] = {
            k.name: broker_value(broker_props, k.broker) if k.broker else k.default
            for k in GROUP_CONFIGS.values()}
        #: the broker bound of each config that has one: name -> (min or None, max or None)
        self.bounds: dict[str, tuple[tuple[str, int] | None, tuple[str, int] | None]] = {
            k.name: (self._bound(broker_props, k.minimum), self._bound(broker_props, k.maximum))
            for k in GROUP_CONFIGS.values()}
        self._overrides: dict[str, dict[str, str]] = {}
        self._values: dict[str, dict[str, Any]] = {}

    @staticmethod
    def _bound(props: Mapping[str, str], bound: tuple[str, int] | None,
               ) -> tuple[str, int] | None:
        if bound is None:
            return None
        name, fallback = bound
        try:
            return name, broker_value(props, name)
        except KeyError:  # a property of share or streams groups, which the catalogue lacks
            return name, fallback

    # -- checking ------------------------------------------------------------------------------

    def validate(self, overrides: Mapping[str, str]) -> dict[str, Any]:
        """The values ``overrides`` gives (every group config), or KafkaError INVALID_CONFIG
        with Kafka's message (``GroupConfig.validate``)."""
        for name in overrides:
            if name not in GROUP_CONFIGS:
                raise KafkaError(ErrorCode.INVALID_CONFIG, f"Unknown group config name: {name}")
        values = dict(self.defaults)
        for key in GROUP_CONFIGS.values():  # ConfigDef.parse: in definition order
            raw = overrides.get(key.name)
            if raw is None:
                continue
            value = parse_value(key.name, raw, key.type)
            if key.validator is not None:
                key.validator(key.name, value)
            values[key.name] = value
        for name in _BOUND_ORDER:  # validateValues: the broker's bounds
            lo, hi = self.bounds[name]
            value = values[name]
            if lo is not None and value < lo[1]:
                raise ConfigException(f"{name} must be greater than or equal to {lo[0]}")
            if hi is not None and value > hi[1]:
                raise ConfigException(f"{name} must be less than or equal to {hi[0]}")
        for session, heartbeat in _PAIRS:
            if values[session] <= values[heartbeat]:
                raise ConfigException(f"{session} must be greater than {heartbeat}")
        return values

    # -- what the store holds ------------------------------------------------------------------

    def load(self, stored: Mapping[str, Mapping[str, str]]) -> None:
        """Every group's stored overrides at start-up."""
        for group, overrides in stored.items():
            self.set(group, overrides)

    def set(self, group: str, overrides: Mapping[str, str]) -> None:
        """A group's overrides as the store holds them now (none: removed). Values this
        broker's bounds refuse (another broker may have different ones) are logged and left
        at their defaults, one by one, rather than refusing the group's other configs."""
        # a group whose overrides were all deleted stays known, as in Kafka 4's metadata
        # image (ListConfigResources still names it)
        self._overrides[group] = dict(overrides)
        if not overrides:
            self._values.pop(group, None)
            return
        try:
            values = self.validate(overrides)
        except KafkaError as e:
            log.warning("Group %s's configs %s are refused here (%s); the valid ones apply",
                        group, dict(overrides), e.message)
            values = dict(self.defaults)
            for name, raw in overrides.items():
                try:
                    values.update({k: v for k, v in self.validate({name: raw}).items()
                                   if k == name})
                except KafkaError:
                    continue
        self._values[group] = values

    def overrides(self, group: str) -> dict[str, str]:
        """What the group overrides, as stored (none for most groups)."""
        return dict(self._overrides.get(group, {}))

    def groups(self) -> list[str]:
        """Every group the store has configs for (an emptied one too), by id."""
        return sorted(self._overrides)

    # -- what the coordinator asks -------------------------------------------------------------

    def value(self, group: str, name: str) -> Any:
        found = self._values.get(group)
        return found[name] if found is not None else self.defaults[name]

    def session_timeout_ms(self, group: str) -> int:
        """The consumer group's session timeout: its override, or the broker's."""
        return int(self.value(group, SESSION_TIMEOUT))

    def heartbeat_interval_ms(self, group: str) -> int:
        """The heartbeat interval given to the consumer group's members."""
        return int(self.value(group, HEARTBEAT_INTERVAL))

    def describe_value(self, name: str, overrides: Mapping[str, str]) -> tuple[str, bool]:
        """(the value DescribeConfigs shows for ``name`` under ``overrides``, whether the
        group sets it), as Kafka prints the parsed value."""
        key = GROUP_CONFIGS[name]
        raw = overrides.get(name)
        if raw is None:
            return to_config_string(self.defaults[name], key.type) or "", False
        try:
            return to_config_string(parse_value(name, raw, key.type), key.type) or "", True
        except ConfigException:
            return raw, True
