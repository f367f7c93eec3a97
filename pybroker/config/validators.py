"""Kafka's config validators: ``ConfigDef.Range``, ``ValidString``, ``ValidList`` and the few of
its own that Kafka's broker and topic configs use.

A validator is called with the config's name and its parsed value and raises
:class:`~.values.ConfigException` with Kafka's message; ``str(validator)`` is what Kafka's
configuration documentation shows under "Valid Values" (``[1,...]``, ``[0,...,1]``,
``[compact, delete]``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .values import ConfigException

Validator = Callable[[str, Any], None]


@dataclass(frozen=True, slots=True)
class Range:
    """``ConfigDef.Range``: a number at least ``lo`` and/or no more than ``hi``."""

    lo: int | None = None
    hi: int | None = None

    def __call__(self, name: str, value: Any) -> None:
        if self.lo is not None and value < self.lo:
            raise ConfigException.invalid(name, value, f"Value must be at least {self.lo}")
        if self.hi is not None and value > self.hi:
            raise ConfigException.invalid(name, value, f"Value must be no more than {self.hi}")

    def __str__(self) -> str:
        lo = "" if self.lo is None else f"{self.lo},"
        hi = "" if self.hi is None else f",{self.hi}"
        return f"[{lo}...{hi}]"


@dataclass(frozen=True, slots=True)
class ValidString:
    """``ConfigDef.ValidString``: one of the options, case-sensitive."""

    options: tuple[str, ...]

    def __call__(self, name: str, value: Any) -> None:
        if value not in self.options:
            raise ConfigException.invalid(
                name, value, f"String must be one of: {', '.join(self.options)}")

    def __str__(self) -> str:
        return "[" + ", ".join(self.options) + "]"


@dataclass(frozen=True, slots=True)
class ValidList:
    """``ConfigDef.ValidList``: every item of a list is one of the options."""

    options: tuple[str, ...]

    def __call__(self, name: str, value: Any) -> None:
        for item in value:
            ValidString(self.options)(name, item)

    def __str__(self) -> str:
        return str(ValidString(self.options))


@dataclass(frozen=True, slots=True)
class Check:
    """A validator of Kafka's own: a function, and the text Kafka documents for it."""

    check: Validator
    text: str

    def __call__(self, name: str, value: Any) -> None:
        self.check(name, value)

    def __str__(self) -> str:
        return self.text


def at_least(lo: int) -> Range:
    return Range(lo=lo)


def between(lo: int, hi: int) -> Range:
    return Range(lo=lo, hi=hi)


def one_of(*options: str) -> ValidString:
    return ValidString(options)


def each_one_of(*options: str) -> ValidList:
    return ValidList(options)


def _rebalance_protocols(name: str, value: Any) -> None:
    """``group.coordinator.rebalance.protocols``: Kafka 4.1's group types, ``classic`` among
    them (``share`` and ``streams`` are accepted and not served)."""
    ValidList(("classic", "consumer", "share", "streams"))(name, value)
    if "classic" not in value:
        raise ConfigException("Disabling the 'classic' protocol is not supported.")


def _migration_policy(name: str, value: Any) -> None:
    """``group.consumer.migration.policy``: Kafka's ``ConsumerGroupMigrationPolicy``, any case."""
    if str(value).lower() not in ("disabled", "upgrade", "downgrade", "bidirectional"):
        raise ConfigException(f"Invalid value {value} for configuration {name}: String must be "
                              "one of (case insensitive): DISABLED, UPGRADE, DOWNGRADE, "
                              "BIDIRECTIONAL")


MIGRATION_POLICY = Check(_migration_policy,
                         "(case insensitive) [DISABLED, UPGRADE, DOWNGRADE, BIDIRECTIONAL]")


REBALANCE_PROTOCOLS = Check(_rebalance_protocols, "[classic, consumer, share, streams]")

#: ``java.time.Duration.parse``'s text: ``PnDTnHnMn.nS``, any case, each part signed
_JAVA_DURATION = re.compile(
    r"([-+]?)P(?:([-+]?[0-9]+)D)?"
    r"(T(?:([-+]?[0-9]+)H)?(?:([-+]?[0-9]+)M)?(?:([-+]?[0-9]+)(?:[.,]([0-9]{0,9}))?S)?)?",
    re.IGNORECASE)


def java_duration_ms(text: str) -> float | None:
    """A duration as ``java.time.Duration.parse`` reads it (in milliseconds, signed), or None
    when it would throw."""
    m = _JAVA_DURATION.fullmatch(text)
    if m is None:
        return None
    sign, days, t, hours, minutes, seconds, fraction = m.groups()
    if t is not None and t.upper() == "T":  # a T must be followed by something
        return None
    if days is None and hours is None and minutes is None and seconds is None:
        return None
    total = (int(days or 0) * 86400 + int(hours or 0) * 3600 + int(minutes or 0) * 60
             + int(seconds or 0)) * 1000.0
    if fraction:
        frac = int(fraction) / 10 ** len(fraction) * 1000.0
        total += -frac if (seconds or "").startswith("-") else frac
    return -total if sign == "-" else total


def _share_auto_offset_reset(name: str, value: Any) -> None:
    """Kafka 4.1's ``ShareGroupAutoOffsetResetStrategy``: ``earliest``, ``latest`` or
    ``by_duration:<ISO 8601 duration>``, not negative; case-sensitive but for the duration."""
    ok = value in ("earliest", "latest")
    if not ok and value.startswith("by_duration:"):
        ms = java_duration_ms(value[len("by_duration:"):])
        ok = ms is not None and ms >= 0
    if not ok:
        raise ConfigException.invalid(
            name, value, f"Invalid value `{value}` for configuration {name}. The value must be "
                         "either 'earliest', 'latest' or of the format "
                         "'by_duration:<PnDTnHnMn.nS>'.")


SHARE_AUTO_OFFSET_RESET = Check(_share_auto_offset_reset,
                                "[latest, earliest, by_duration:PnDTnHnMn.nS]")


def _gzip_level(name: str, value: Any) -> None:
    # Deflater's levels: 1 (fastest) to 9 (best), or -1 for zlib's default
    if value > 9 or (value < 1 and value != -1):
        raise ConfigException.invalid(name, value, "Value must be between 1 and 9 or equal to -1")


GZIP_LEVEL = Check(_gzip_level, "[1,...,9] or -1")

_THROTTLED_REPLICA = re.compile(r"([0-9]+:[0-9]+)?")


def _throttled_replicas(name: str, value: Any) -> None:
    items = [v.strip() for v in value]
    if not (all(_THROTTLED_REPLICA.fullmatch(v) for v in items) or "".join(items) == "*"):
        raise ConfigException.invalid(
            name, value, f"{name} must be the literal '*' or a list of replicas in the following "
                         "format: [partitionId]:[brokerId],[partitionId]:[brokerId],...")


THROTTLED_REPLICAS = Check(_throttled_replicas,
                           "[partitionId]:[brokerId],[partitionId]:[brokerId],...")

#: the inter-broker protocol / message format versions Kafka 3.9 knows (MetadataVersion)
IBP_VERSIONS = (
    "0.8.0", "0.8.1", "0.8.2", "0.9.0", "0.10.0-IV0", "0.10.0-IV1", "0.10.1-IV0", "0.10.1-IV1",
    "0.10.1-IV2", "0.10.2-IV0", "0.11.0-IV0", "0.11.0-IV1", "0.11.0-IV2", "1.0-IV0", "1.1-IV0",
    "2.0-IV0", "2.0-IV1", "2.1-IV0", "2.1-IV1", "2.1-IV2", "2.2-IV0", "2.2-IV1", "2.3-IV0",
    "2.3-IV1", "2.4-IV0", "2.4-IV1", "2.5-IV0", "2.6-IV0", "2.7-IV0", "2.7-IV1", "2.7-IV2",
    "2.8-IV0", "2.8-IV1", "3.0-IV0", "3.0-IV1", "3.1-IV0", "3.2-IV0", "3.3-IV0", "3.3-IV1",
    "3.3-IV2", "3.3-IV3", "3.4-IV0", "3.5-IV0", "3.5-IV1", "3.5-IV2", "3.6-IV0", "3.6-IV1",
    "3.6-IV2", "3.7-IV0", "3.7-IV1", "3.7-IV2", "3.7-IV3", "3.7-IV4", "3.8-IV0", "3.9-IV0",
    "4.0-IV0", "4.0-IV1",
)
#: a bare release ("2.8") names its latest production version; 4.0 is not production in 3.9
_KNOWN_VERSIONS = frozenset(IBP_VERSIONS) | {
    v.split("-")[0] for v in IBP_VERSIONS if not v.startswith("4.")}


def _message_format_version(name: str, value: Any) -> None:
    parts = value.split(".")
    keep = 3 if value.startswith("0.") else 2
    key = value if keep >= len(parts) else ".".join(parts[:keep])
    if key not in _KNOWN_VERSIONS:
        raise ConfigException.invalid(name, value, f"Version {value} is not a valid version")


MESSAGE_FORMAT_VERSION = Check(_message_format_version, "[" + ", ".join(IBP_VERSIONS) + "]")


def _non_null_string(name: str, value: Any) -> None:
    """Kafka's ``NonNullValidator``: a string property given in a file is never null."""


NON_NULL_STRING = Check(_non_null_string, "non-null string")
