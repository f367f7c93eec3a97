"""Config values as Kafka's ``ConfigDef`` types, parses, refuses and prints them.

Values are parsed and refused the way Kafka's ``ConfigDef`` does it, so a bad value is answered
with the message a Kafka broker gives (``Invalid value soon for configuration retention.ms: Not a
number of type LONG``), and are shown back the way Kafka prints them (``true``, ``0.5``, lists
joined with commas).
"""

from __future__ import annotations

import decimal
import math
import re
from typing import Any

from protocol.errors import ErrorCode, KafkaError

LONG_MAX = 9223372036854775807
LONG_MIN = -LONG_MAX - 1
INT_MAX = 2147483647
INT_MIN = -INT_MAX - 1

# Kafka's ConfigDef.Type names (they appear in messages) and their DescribeConfigs ConfigType ids.
BOOLEAN, STRING, INT, SHORT, LONG, DOUBLE, LIST, CLASS, PASSWORD = (
    "BOOLEAN", "STRING", "INT", "SHORT", "LONG", "DOUBLE", "LIST", "CLASS", "PASSWORD")
CONFIG_TYPE_IDS = {BOOLEAN: 1, STRING: 2, INT: 3, SHORT: 4, LONG: 5, DOUBLE: 6, LIST: 7,
                   CLASS: 8, PASSWORD: 9}


class ConfigException(KafkaError):
    """A value Kafka's ``ConfigDef`` (or one of its validators) refuses: INVALID_CONFIG.

    Kafka words these ``Invalid value <value> for configuration <name>: <why>``; AlterConfigs and
    IncrementalAlterConfigs prefix the resource (see :func:`alter_message`), CreateTopics does not.
    An unknown name or a conflict between two values is a plain ``KafkaError`` instead, which no
    API prefixes (Kafka's ``InvalidConfigurationException``).
    """

    def __init__(self, message: str) -> None:
        super().__init__(ErrorCode.INVALID_CONFIG, message)

    @classmethod
    def invalid(cls, name: str, value: Any, why: str | None = None) -> ConfigException:
        return cls(f"Invalid value {java_str(value)} for configuration {name}"
                   + (f": {why}" if why is not None else ""))


def alter_message(resource_type_name: str, resource_name: str, error: KafkaError) -> str | None:
    """The message of a config change refused by the broker, as Kafka's AlterConfigs words it."""
    if isinstance(error, ConfigException):
        return (f"Invalid config value for resource ConfigResource(type={resource_type_name}, "
                f"name='{resource_name}'): {error.message}")
    return error.message


# -- Java's spelling of values -----------------------------------------------------------------


def java_double(x: float) -> str:
    """``Double.toString``: ``0.5``, ``1.0``, ``1.0E7``, ``1.0E-4``, ``NaN``, ``Infinity``."""
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    sign = "-" if math.copysign(1.0, x) < 0 else ""
    if x == 0:
        return sign + "0.0"
    # the shortest digits that read back as x (repr's), as Java 19+ prints them too
    exact = decimal.Decimal(repr(abs(x)))
    _, digit_tuple, exponent = exact.as_tuple()
    digits = "".join(map(str, digit_tuple)).rstrip("0") or "0"
    scientific = len("".join(map(str, digit_tuple))) - 1 + int(exponent)
    if 1e-3 <= abs(x) < 1e7:
        text = format(exact, "f")
        if "." in text:
            text = text.rstrip("0")
        return sign + (text + "0" if text.endswith(".") else text if "." in text else text + ".0")
    return f"{sign}{digits[0]}.{digits[1:] or '0'}E{scientific}"


def java_str(value: Any) -> str:
    """How Java's ``String.valueOf`` prints a parsed config value."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return java_double(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(java_str(v) for v in value) + "]"
    return str(value)


def to_config_string(value: Any, config_type: str) -> str | None:
    """Kafka's ``ConfigDef.convertToString``: lists are joined with commas."""
    if value is None:
        return None
    if config_type == LIST:
        items = value.split(",") if isinstance(value, str) and value else value or []
        return ",".join(java_str(v) for v in items)
    return java_str(value)


# -- parsing (ConfigDef.parseType) -------------------------------------------------------------

_INTEGER = re.compile(r"[+-]?[0-9]+")
_DOUBLE = re.compile(
    r"[+-]?(NaN|Infinity|((\d+\.?\d*|\.\d+)([eE][+-]?\d+)?)[fFdD]?)"
)
_COMMA = re.compile(r"\s*,\s*")
_JAVA_WHITESPACE = "".join(chr(c) for c in range(0x21))  # String.trim drops chars <= U+0020


def parse_value(name: str, raw: str, config_type: str) -> Any:
    """A string value parsed as Kafka parses it, or :class:`ConfigException` with its message."""
    trimmed = raw.strip(_JAVA_WHITESPACE)
    if config_type == BOOLEAN:
        if trimmed.lower() == "true":
            return True
        if trimmed.lower() == "false":
            return False
        raise ConfigException.invalid(name, raw, "Expected value to be either true or false")
    if config_type in (STRING, PASSWORD, CLASS):
        return trimmed
    if config_type in (INT, SHORT, LONG):
        lo, hi = {INT: (INT_MIN, INT_MAX), SHORT: (-32768, 32767), LONG: (LONG_MIN, LONG_MAX)}[
            config_type]
        if _INTEGER.fullmatch(trimmed):
            value = int(trimmed)
            if lo <= value <= hi:
                return value
        raise ConfigException.invalid(name, raw, f"Not a number of type {config_type}")
    if config_type == DOUBLE:
        if _DOUBLE.fullmatch(trimmed):
            text = trimmed.rstrip("fFdD") if not trimmed.endswith("Infinity") else trimmed
            return float(text.replace("Infinity", "inf").replace("NaN", "nan"))
        raise ConfigException.invalid(name, raw, f"Not a number of type {config_type}")
    if config_type == LIST:
        return [] if not trimmed else _COMMA.split(trimmed)
    raise ValueError(f"unknown config type {config_type}")
