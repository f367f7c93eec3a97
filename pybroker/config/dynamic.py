"""Dynamic broker configs (KIP-226): broker properties changed at run time, per broker or as
cluster-wide defaults, as Apache Kafka 3.9's ``DynamicBrokerConfig`` keeps and checks them.

A broker's configuration is four layers, highest first: the dynamic configs of this broker
(DYNAMIC_BROKER_CONFIG; entity ``<id>``), the cluster-wide dynamic defaults
(DYNAMIC_DEFAULT_BROKER_CONFIG; entity ``<default>``), server.properties
(STATIC_BROKER_CONFIG) and Kafka's defaults (DEFAULT_CONFIG). Setting a property in a layer
removes its synonyms from the layers below (``log.retention.ms`` set dynamically wins over a
``log.retention.hours`` of server.properties), as Kafka's ``overrideProps`` does.

:class:`DynamicBrokerConfig` holds the layers and the configuration they give, checks a change
the way Kafka checks it before storing it (:meth:`DynamicBrokerConfig.validate`), applies the
stored configs (:meth:`~DynamicBrokerConfig.update_broker_config`,
:meth:`~DynamicBrokerConfig.update_default_config`) and tells the parts of the broker that take
changes at run time (:class:`BrokerReconfigurable`) what changed. Where the dynamic configs are
stored is not its business: ``/config/brokers``, in ZooKeeper or in the embedded node's znode
tree.

The rules, in Kafka's order and words: a read-only property is refused ("Cannot update these
configs dynamically"), so is an SSL setting without a listener prefix, then each value is parsed
and validated as its type and validator say, then a per-broker property at the cluster level is
refused; then the whole configuration the change would give is built and checked (Kafka's
``KafkaConfig`` requirements), and every reconfigurable whose properties change checks it too.
A name Kafka does not know is a custom config: stored, described (as sensitive, its type being
unknown), never used.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from pybroker.jvm import string_hash

from .catalogue import BROKER_CONFIGS, PER_BROKER, READ_ONLY, BrokerConfigKey
from .kafka_properties import EXTRA_DYNAMIC, KAFKA_READ_ONLY, QUOTA_CONFIGS
from .server import BrokerConfig, parse_listeners
from .values import PASSWORD, ConfigException, to_config_string

log = logging.getLogger(__name__)

# ConfigSource, as DescribeConfigs numbers it.
DYNAMIC_TOPIC_CONFIG = 1
DYNAMIC_BROKER_CONFIG = 2
DYNAMIC_DEFAULT_BROKER_CONFIG = 3
STATIC_BROKER_CONFIG = 4
DEFAULT_CONFIG = 5
DYNAMIC_BROKER_LOGGER_CONFIG = 6
#: Kafka 4's ConfigSource for a group's own configs (KIP-848)
GROUP_CONFIG = 8

#: the entity name of the cluster-wide defaults (Kafka's ZooKeeperInternals.DEFAULT_STRING)
DEFAULT_ENTITY = "<default>"

#: Kafka's dynamic broker properties, in the order their values are checked
DYNAMIC_CONFIGS: dict[str, BrokerConfigKey] = {
    **{k.name: k for k in BROKER_CONFIGS.values() if k.update_mode != READ_ONLY},
    **EXTRA_DYNAMIC,
}
#: the properties a dynamic config may not name
NON_DYNAMIC: frozenset[str] = KAFKA_READ_ONLY | {
    k.name for k in BROKER_CONFIGS.values() if k.update_mode == READ_ONLY}
#: SSL settings that may change only per listener (Kafka's SslConfigs.RECONFIGURABLE_CONFIGS)
SECURITY_CONFIGS: frozenset[str] = frozenset({
    "ssl.keystore.type", "ssl.keystore.location", "ssl.keystore.password", "ssl.key.password",
    "ssl.truststore.type", "ssl.truststore.location", "ssl.truststore.password",
    "ssl.keystore.certificate.chain", "ssl.keystore.key", "ssl.truststore.certificates"})
#: listener settings that are cluster-wide although they are listener settings
CLUSTER_LEVEL_LISTENER_CONFIGS = frozenset({
    "max.connections", "max.connection.creation.rate", "num.network.threads"})
#: per-broker properties: the ones Kafka documents so, and the SSL settings
PER_BROKER_CONFIGS: frozenset[str] = SECURITY_CONFIGS | {
    k.name for k in DYNAMIC_CONFIGS.values() if k.update_mode == PER_BROKER}
#: listener settings given per SASL mechanism (``listener.name.l.<mechanism>.<config>``)
LISTENER_MECHANISM_CONFIGS = ("sasl.jaas.config", "sasl.login.callback.handler.class",
                              "sasl.login.class", "sasl.server.callback.handler.class",
                              "connections.max.reauth.ms")
_LISTENER_CONFIG = re.compile(r"listener\.name\.[^.]*\.(.*)", re.S)

#: every property's default as Kafka prints it (Kafka's staticDefaultConfigs)
_DEFAULTS: dict[str, str] = {
    k.name: text for k in (*BROKER_CONFIGS.values(), *EXTRA_DYNAMIC.values())
    if (text := k.default_string) is not None}


class DynamicConfigError(ConfigException):
    """A dynamic broker config Kafka refuses before storing it; AlterConfigs answers it
    INVALID_REQUEST, with this message (Kafka's ``ConfigAdminManager``)."""


# -- names -------------------------------------------------------------------------------------


def config_key(name: str) -> BrokerConfigKey | None:
    """The broker property ``name`` as Kafka defines it, or None for a name Kafka does not
    know (a custom config)."""
    return BROKER_CONFIGS.get(name) or EXTRA_DYNAMIC.get(name) or QUOTA_CONFIGS.get(name)


def listener_base_name(name: str) -> str | None:
    """``ssl.keystore.type`` for ``listener.name.internal.ssl.keystore.type``."""
    match = _LISTENER_CONFIG.fullmatch(name)
    return match.group(1) if match else None


def broker_config_synonyms(name: str, match_listener_override: bool = True) -> list[str]:
    """The properties that stand for ``name``'s setting, highest priority first (Kafka's
    ``brokerConfigSynonyms``): the units of one setting (``log.retention.ms``/``minutes``/
    ``hours``), and a listener's own setting before the base one."""
    key = BROKER_CONFIGS.get(name)
    if key is not None and key.synonyms:
        return list(key.synonyms)
    base = listener_base_name(name) if match_listener_override else None
    if base is not None:
        mechanism = next((m for m in LISTENER_MECHANISM_CONFIGS if base.endswith(m)), None)
        return [name, mechanism or base]
    return [name]


def config_type(name: str) -> str | None:
    """Kafka's ``KafkaConfig.configType``: the type of the property, or of the base property
    of a listener's own setting; None when Kafka does not know it."""
    key = config_key(name)
    if key is not None:
        return key.type
    for synonym in broker_config_synonyms(name):
        key = config_key(synonym)
        if key is not None:
            return key.type
    return None


def is_sensitive(name: str) -> bool:
    """Kafka's ``maybeSensitive``: passwords, and any name whose type is unknown."""
    kind = config_type(name)
    return kind is None or kind == PASSWORD


def is_dynamic(name: str) -> bool:
    """One of Kafka's dynamic broker properties (Kafka's ``AllDynamicConfigs``); anything else
    is described read-only."""
    return name in DYNAMIC_CONFIGS or name in SECURITY_CONFIGS


_PASSWORD_CONFIGS = tuple(k.name for k in DYNAMIC_CONFIGS.values() if k.type == PASSWORD)


def is_password_config(name: str) -> bool:
    """Stored encrypted by Kafka (``isPasswordConfig``): a dynamic password setting, listener
    prefixed or not."""
    return any(name.endswith(p) for p in _PASSWORD_CONFIGS)


# -- Scala's printing of the sets Kafka's messages name ----------------------------------------


def _properties_order(names: list[str]) -> list[str]:
    """The order a ``java.util.Properties`` holding ``names`` (inserted in this order) iterates
    them: by hash bucket of its table, then insertion order."""
    size = 16
    while len(names) >= size * 3 // 4:
        size *= 2

    def bucket(name: str) -> int:
        h = string_hash(name) & 0xFFFFFFFF
        return (h ^ (h >> 16)) & (size - 1)

    return sorted(names, key=bucket)


def _scala_improve(h: int) -> int:
    """``scala.collection.Hashing.improve``, in 32-bit arithmetic."""
    h = (h + ~(h << 9)) & 0xFFFFFFFF
    h ^= h >> 14
    h = (h + (h << 4)) & 0xFFFFFFFF
    return h ^ (h >> 10)


def _champ_order(names: list[str], shift: int = 0) -> list[str]:
    """The order Scala's immutable ``HashSet`` iterates ``names``: each trie node's own
    elements by their 5 hash bits, then its sub-nodes in the same order."""
    slots: dict[int, list[str]] = {}
    for name in names:
        slots.setdefault((_scala_improve(string_hash(name) & 0xFFFFFFFF) >> shift) & 31,
                         []).append(name)
    own = [group[0] for _, group in sorted(slots.items()) if len(group) == 1]
    nested = [group for _, group in sorted(slots.items()) if len(group) > 1]
    out = list(own)
    for group in nested:
        out += _champ_order(group, shift + 5) if shift < 30 else group
    return out


def scala_set(names: Iterable[str]) -> str:
    """A set of property names as Kafka's messages print it: ``Set(a, b)`` up to four names
    (in the order of the ``Properties`` they came from), ``HashSet(...)`` beyond."""
    ordered = list(names)
    if len(ordered) > 4:
        return "HashSet(" + ", ".join(_champ_order(ordered)) + ")"
    return "Set(" + ", ".join(ordered) + ")"


# -- Kafka's checks of a dynamic config --------------------------------------------------------


def _base_props(props: Mapping[str, str]) -> dict[str, str]:
    """Listener settings under their base names, the rest as they are."""
    return {listener_base_name(k) or k: v for k, v in props.items()}


def _per_broker_names(props: Iterable[str]) -> list[str]:
    out = []
    for name in props:
        base = listener_base_name(name)
        if name in PER_BROKER_CONFIGS or (
                base is not None and base not in CLUSTER_LEVEL_LISTENER_CONFIGS):
            out.append(name)
    return out


def check_types(props: Mapping[str, str]) -> None:
    """Parse and validate every dynamic property ``props`` sets (listener settings as their base
    property), in Kafka's order; ConfigException with Kafka's message for the first refused."""
    base = _base_props(props)
    for key in (*QUOTA_CONFIGS.values(), *DYNAMIC_CONFIGS.values()):
        raw = base.get(key.name)
        if raw is not None:
            key.parse(raw)


def check_dynamic(props: Mapping[str, str], per_broker: bool) -> None:
    """Kafka's ``DynamicBrokerConfig.validateConfigs``: raises :class:`DynamicConfigError`."""
    names = _properties_order(list(props))
    read_only = [n for n in names if n in NON_DYNAMIC]
    if read_only:
        raise DynamicConfigError(f"Cannot update these configs dynamically: {scala_set(read_only)}")
    security = [n for n in names if n in SECURITY_CONFIGS]
    if security:
        # (Kafka filters its mutable set of them: a HashSet whatever the size)
        raise DynamicConfigError("These security configs can be dynamically updated only "
                                 "per-listener using the listener prefix: "
                                 f"HashSet({', '.join(_properties_order(security))})")
    try:
        check_types(props)
    except ConfigException as e:
        raise DynamicConfigError(e.message or "") from e
    if not per_broker:
        at_default = _per_broker_names(names)
        if at_default:
            raise DynamicConfigError("Cannot update these configs at default cluster level, "
                                     f"broker id must be specified: {scala_set(at_default)}")


def from_persistent(props: Mapping[str, str], per_broker: bool) -> dict[str, str]:
    """Stored dynamic configs without those this broker must ignore (Kafka's
    ``fromPersistentProps``): invalid values, read-only properties, SSL settings without a
    listener prefix, per-broker properties at the cluster level - each dropped with an error
    logged, as Kafka drops them."""
    where = "broker" if per_broker else "default cluster"
    out = dict(props)
    invalid = []
    for name, value in props.items():
        try:
            check_types({name: value})
        except ConfigException:
            invalid.append(name)
    if invalid:
        log.error("Dynamic %s config contains invalid values in: %s, these configs will be "
                  "ignored", where, invalid)
    for reason, doomed in (
            ("Non-dynamic configs configured in ZooKeeper will be ignored",
             [n for n in out if n in NON_DYNAMIC]),
            ("Security configs can be dynamically updated only using listener prefix, base "
             "configs will be ignored", [n for n in out if n in SECURITY_CONFIGS]),
            ("Per-broker configs defined at default cluster level will be ignored",
             [] if per_broker else _per_broker_names(out))):
        if doomed:
            log.error("%s: %s", reason, doomed)
    drop = set(invalid) | {n for n in out if n in NON_DYNAMIC or n in SECURITY_CONFIGS}
    if not per_broker:
        drop |= set(_per_broker_names(out))
    return {k: v for k, v in out.items() if k not in drop}


def override_props(props: dict[str, str], overrides: Mapping[str, str]) -> None:
    """Kafka's ``overrideProps``: each override replaces its property and removes the
    property's synonyms, so that the layer set last wins whatever unit it used."""
    for name, value in overrides.items():
        for synonym in broker_config_synonyms(name, match_listener_override=False):
            props.pop(synonym, None)
        props[name] = value


# -- the configuration the layers give ---------------------------------------------------------


def invalid_dynamic_configuration(cause: ConfigException) -> str:
    """Kafka's message for a reconfigurable's refusal: it wraps the refusal in
    ``new ConfigException("Invalid dynamic configuration", e)``, whose two-argument
    constructor reads them as a configuration's name and value."""
    return (f"Invalid value org.apache.kafka.common.config.ConfigException: {cause.message} "
            "for configuration Invalid dynamic configuration")


def _requirement(ok: bool, message: str) -> None:
    """Scala's ``require``, as Kafka's ``KafkaConfig`` checks its values."""
    if not ok:
        raise DynamicConfigError(f"requirement failed: {message}")


@dataclass(frozen=True, slots=True)
class EffectiveBrokerConfig:
    """The configuration the layers give, as Kafka's ``KafkaConfig`` after a change: the
    properties as given (static, then the dynamic defaults, then this broker's), typed."""

    #: every property as given, custom ones included (Kafka's ``originals``)
    props: Mapping[str, str]
    #: the catalogued properties, typed
    config: BrokerConfig

    @classmethod
    def build(cls, props: Mapping[str, str]) -> EffectiveBrokerConfig:
        """The configuration ``props`` give, checked as Kafka's ``KafkaConfig`` checks it
        (DynamicConfigError with Kafka's message)."""
        # a listener's own value of a catalogued setting (listener.name.<l>.ssl.*) stays too
        catalogued = {k: v for k, v in props.items()
                      if k in BROKER_CONFIGS or listener_base_name(k) in BROKER_CONFIGS}
        try:
            config = BrokerConfig.from_dict(catalogued)
        except ValueError as e:
            raise DynamicConfigError(str(e)) from e
        effective = cls(dict(props), config)
        effective._check()
        return effective

    def value(self, name: str) -> Any:
        """A property's typed value (its default when not set); a custom property's text."""
        if name in BROKER_CONFIGS:
            return self.config.value(name)
        key = config_key(name)
        raw = self.props.get(name)
        if key is None:
            return raw
        return key.default if raw is None else key.parse(raw)

    def value_string(self, name: str) -> str | None:
        """The value as Kafka prints it in DescribeConfigs."""
        key = config_key(name)
        if key is None or name in QUOTA_CONFIGS:
            return self.props.get(name)
        return to_config_string(self.value(name), key.type)

    def _check(self) -> None:
        """The requirements of Kafka's ``KafkaConfig`` on the properties this broker has."""
        value = self.config.value
        roll_ms = value("log.roll.ms")
        roll = roll_ms if roll_ms is not None else 3_600_000 * value("log.roll.hours")
        _requirement(roll >= 1, "log.roll.ms must be greater than or equal to 1")
        jitter_ms = value("log.roll.jitter.ms")
        jitter = jitter_ms if jitter_ms is not None else 3_600_000 * value("log.roll.jitter.hours")
        _requirement(jitter >= 0, "log.roll.jitter.ms must be greater than or equal to 0")
        retention = value("log.retention.ms")
        if retention is None:
            minutes = value("log.retention.minutes")
            retention = (60_000 * minutes if minutes is not None
                         else 3_600_000 * value("log.retention.hours"))
        _requirement(retention >= 1 or retention < 0,
                     "log.retention.ms must be unlimited (-1) or, greater than or equal to 1")
        dedupe, threads = self.value("log.cleaner.dedupe.buffer.size"), self.value(
            "log.cleaner.threads")
        if threads == 0:
            raise DynamicConfigError("/ by zero")  # (Kafka divides by it first)
        per_thread = abs(dedupe) // abs(threads) * (1 if (dedupe < 0) == (threads < 0) else -1)
        _requirement(per_thread > 1024 * 1024,
                     "log.cleaner.dedupe.buffer.size must be at least 1MB per cleaner thread.")
        try:
            listeners = parse_listeners(self.config.get("listeners") or "")
            advertised = parse_listeners(self.config.get("advertised.listeners") or "") \
                or listeners
        except ValueError as e:
            raise DynamicConfigError(str(e)) from e
        names = [e.listener for e in listeners]
        advertised_names = [e.listener for e in advertised]
        try:
            inter_broker = self.config.inter_broker_listener[0]
        except ConfigException as e:
            raise DynamicConfigError(str(e.message)) from e
        _requirement(inter_broker in advertised_names,
                     "inter.broker.listener.name must be a listener name defined in "
                     "advertised.listeners. The valid options based on currently configured "
                     f"listeners are {','.join(advertised_names)}")
        _requirement(set(advertised_names) <= set(names),
                     "advertised.listeners listener names must be equal to or a subset of the "
                     f"ones defined in listeners. Found {','.join(advertised_names)}. The valid "
                     f"options based on the current configuration are {','.join(names)}")
        _requirement(all(e.host != "0.0.0.0" for e in advertised),
                     "advertised.listeners cannot use the nonroutable meta-address 0.0.0.0. "
                     "Use a routable IP address.")


class BrokerReconfigurable(Protocol):
    """A part of the broker that takes new values of some properties at run time (Kafka's
    ``BrokerReconfigurable``)."""

    @property
    def reconfigurable_configs(self) -> frozenset[str]: ...

    def validate_reconfiguration(self, old: EffectiveBrokerConfig,
                                 new: EffectiveBrokerConfig) -> None:
        """Raise ConfigException when this part cannot go from ``old`` to ``new``."""
        ...

    def reconfigure(self, old: EffectiveBrokerConfig, new: EffectiveBrokerConfig) -> None: ...


class DynamicBrokerConfig:
    """This broker's configuration layers and the configuration they give (:attr:`current`)."""

    def __init__(self, static: BrokerConfig) -> None:
        #: server.properties (and command-line overrides) as given
        self.static_props: dict[str, str] = {n: v for n, v in static.props.items()
                                             if n in static.explicit}
        self.broker_id = static.broker_id
        #: the stored dynamic configs this broker applies: its own, and the cluster's defaults
        self.broker: dict[str, str] = {}
        self.default: dict[str, str] = {}
        self.current = EffectiveBrokerConfig(dict(self.static_props), static)
        self._reconfigurables: list[BrokerReconfigurable] = []

    def add_reconfigurable(self, reconfigurable: BrokerReconfigurable) -> None:
        nondynamic = reconfigurable.reconfigurable_configs & NON_DYNAMIC
        if nondynamic:
            raise ValueError(f"Reconfigurable contains non-dynamic configs {sorted(nondynamic)}")
        self._reconfigurables.append(reconfigurable)

    # -- checking a change ---------------------------------------------------------------------
    def validate(self, props: Mapping[str, str], per_broker: bool) -> None:
        """Check the dynamic configs ``props`` would replace this broker's (``per_broker``) or
        the cluster's defaults with, as Kafka does before storing them; raises
        :class:`DynamicConfigError` with Kafka's message."""
        check_dynamic(props, per_broker)
        new = dict(self.static_props)
        if per_broker:
            override_props(new, self.default)
            override_props(new, props)
        else:
            override_props(new, props)
            override_props(new, self.broker)
        self._process(new, validate_only=True)

    def _process(self, props: dict[str, str], validate_only: bool,
                 ) -> tuple[EffectiveBrokerConfig, list[BrokerReconfigurable]]:
        new = EffectiveBrokerConfig.build(props)
        old = self.current.props
        changed = {k for k, v in props.items() if old.get(k) != v} | (set(old) - set(props))
        if not changed:
            return self.current, []
        todo = []
        for r in self._reconfigurables:
            if r.reconfigurable_configs & changed:
                try:
                    r.validate_reconfiguration(self.current, new)
                except ConfigException as e:
                    if not validate_only:
                        log.error("Failed to update broker configuration: %s", e.message)
                    else:
                        log.info("Dynamic configuration refused: %s", e.message)
                    raise DynamicConfigError(invalid_dynamic_configuration(e)) from e
                todo.append(r)
        return new, todo

    # -- applying stored configs -------------------------------------------------------------
    def update_broker_config(self, persistent: Mapping[str, str]) -> None:
        """Apply this broker's stored dynamic configs (at start-up and on each change)."""
        try:
            self.broker = from_persistent(persistent, per_broker=True)
            self._update_current()
        except ConfigException as e:
            log.error("Per-broker configs of %d could not be applied: %s: %s", self.broker_id,
                      sorted(persistent), e.message)

    def update_default_config(self, persistent: Mapping[str, str]) -> None:
        """Apply the cluster's stored dynamic defaults (at start-up and on each change)."""
        try:
            self.default = from_persistent(persistent, per_broker=False)
            self._update_current()
        except ConfigException as e:
            log.error("Cluster default configs could not be applied: %s: %s",
                      sorted(persistent), e.message)

    def _update_current(self) -> None:
        props = dict(self.static_props)
        override_props(props, self.default)
        override_props(props, self.broker)
        new, todo = self._process(props, validate_only=False)
        if new is self.current:
            return
        old, self.current = self.current, new
        changed = sorted(k for k in set(old.props) | set(new.props)
                         if old.props.get(k) != new.props.get(k))
        log.info("Broker %d configuration updated: %s", self.broker_id, ", ".join(
            f"{k}={'[hidden]' if is_sensitive(k) else new.props.get(k)}" for k in changed))
        for r in todo:
            try:
                r.reconfigure(old, new)
            except Exception:
                log.exception("Could not apply the new configuration to %r", r)

    # -- describing ----------------------------------------------------------------------------
    def synonyms(self, name: str) -> list[tuple[str, str | None, int]]:
        """Where ``name`` gets its value, layer by layer, over the properties that stand for it,
        from ``name`` on (Kafka's ``ConfigHelper.configSynonyms``)."""
        names = broker_config_synonyms(name)
        hidden = is_sensitive(name)
        found = [(n, None if hidden else layer[n], source)
                 for layer, source in ((self.broker, DYNAMIC_BROKER_CONFIG),
                                       (self.default, DYNAMIC_DEFAULT_BROKER_CONFIG),
                                       (self.static_props, STATIC_BROKER_CONFIG),
                                       (_DEFAULTS, DEFAULT_CONFIG))
                 for n in names if n in layer]
        while found and found[0][0] != name:
            found.pop(0)
        return found

    def dynamic_names(self) -> list[str]:
        """Every property a dynamic config sets, this broker's or the cluster's, sorted."""
        return sorted(set(self.broker) | set(self.default))


__all__ = [
    "DEFAULT_CONFIG", "DEFAULT_ENTITY", "DYNAMIC_BROKER_CONFIG", "DYNAMIC_BROKER_LOGGER_CONFIG",
    "DYNAMIC_CONFIGS", "DYNAMIC_DEFAULT_BROKER_CONFIG", "DYNAMIC_TOPIC_CONFIG", "NON_DYNAMIC",
    "PER_BROKER_CONFIGS", "SECURITY_CONFIGS", "STATIC_BROKER_CONFIG", "BrokerReconfigurable",
    "DynamicBrokerConfig", "DynamicConfigError", "EffectiveBrokerConfig",
    "broker_config_synonyms", "check_dynamic", "check_types", "config_key", "config_type",
    "from_persistent", "is_dynamic", "is_password_config", "is_sensitive", "override_props",
    "scala_set",
]
