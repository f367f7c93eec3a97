"""The broker's logger levels as the BROKER_LOGGER resource shows and changes them (KIP-412;
Kafka's ``Log4jController`` and ``RuntimeLoggerManager``), over Python's ``logging``.

DescribeConfigs lists ``root`` and every logger the process has created, each with its level in
log4j's words - its own, or the one it inherits (FATAL for CRITICAL, WARN for WARNING, TRACE for
levels below DEBUG). IncrementalAlterConfigs SETs a level (one of Kafka's: TRACE, DEBUG, INFO,
WARN, ERROR, FATAL) or DELETEs it, so that the logger inherits again; the root logger's level
cannot be deleted. As in Kafka, the change lasts until the broker stops: it is not stored.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

from protocol.errors import ErrorCode, KafkaError
from pybroker.admin.configs import java_parse_int

ROOT_LOGGER = "root"
#: log4j's levels as Kafka accepts them, and the Python level each one sets
LEVELS = {"TRACE": 5, "DEBUG": logging.DEBUG, "INFO": logging.INFO, "WARN": logging.WARNING,
          "ERROR": logging.ERROR, "FATAL": logging.CRITICAL}
_VALID = ", ".join(sorted(LEVELS))

SET, DELETE, APPEND, SUBTRACT = 0, 1, 2, 3
_OPS = {APPEND: "APPEND", SUBTRACT: "SUBTRACT"}

log = logging.getLogger(__name__)


def level_name(level: int) -> str:
    """A Python level in log4j's words: the highest log4j level not above it."""
    if level <= 0:
        return "ALL"
    return max(((v, k) for k, v in LEVELS.items() if v <= level), default=(0, "TRACE"))[1]


def _existing(name: str) -> logging.Logger | None:
    if name == ROOT_LOGGER:
        return logging.getLogger()
    found = logging.Logger.manager.loggerDict.get(name)
    return found if isinstance(found, logging.Logger) else None


def loggers() -> dict[str, str]:
    """``root`` and every existing logger, with the level it logs at."""
    out = {ROOT_LOGGER: level_name(logging.getLogger().level)}
    for name, found in sorted(logging.Logger.manager.loggerDict.items()):
        if isinstance(found, logging.Logger):
            out[name] = level_name(found.getEffectiveLevel())
    return out


def check_node(broker_id: int, name: str) -> None:
    """The resource names this broker (Kafka's ``validateResourceNameIsNodeId``)."""
    node = java_parse_int(name)
    if node is None:
        raise KafkaError(ErrorCode.INVALID_REQUEST, f"Node id must be an integer, but it is: {name}")
    if node != broker_id:
        # (Kafka 3.9 prints its own id twice here)
        raise KafkaError(ErrorCode.INVALID_REQUEST,
                         f"Unexpected node id. Expected {broker_id}, but received {broker_id}")


def check_changes(entries: Iterable[Any]) -> None:
    """Kafka's ``validateLogLevelConfigs``: KafkaError for the first change refused."""
    for e in entries:
        op = e.config_operation
        if op in (SET, DELETE) and _existing(e.name) is None:
            raise KafkaError(ErrorCode.INVALID_CONFIG, f"Logger {e.name} does not exist!")
        if op == SET:
            if e.value not in LEVELS:
                raise KafkaError(ErrorCode.INVALID_CONFIG,
                                 f"Cannot set the log level of {e.name} to {e.value} as it is "
                                 f"not a supported log level. Valid log levels are {_VALID}")
        elif op == DELETE:
            if e.name == ROOT_LOGGER:
                raise KafkaError(ErrorCode.INVALID_REQUEST,
                                 f"Removing the log level of the {ROOT_LOGGER} logger is not "
                                 "allowed")
        elif op in _OPS:
            raise KafkaError(ErrorCode.INVALID_REQUEST,
                             f"{_OPS[op]} operation is not allowed for the BROKER_LOGGER "
                             "resource")
        else:
            raise KafkaError(ErrorCode.INVALID_REQUEST,
                             f"Unknown operation type {op} is not allowed for the BROKER_LOGGER "
                             "resource")


def apply_changes(entries: Iterable[Any]) -> None:
    """Set or unset each logger's level (already checked by :func:`check_changes`)."""
    for e in entries:
        found = _existing(e.name)
        if found is None:
            continue
        if e.config_operation == SET:
            found.setLevel(LEVELS[e.value])
            log.warning("Updated the log level of %s to %s", e.name, e.value)
        else:
            found.setLevel(logging.NOTSET)
            log.warning("Unset the log level of %s", e.name)
