"""Kafka's rules for topic names (``org.apache.kafka.common.internals.Topic``)."""

from __future__ import annotations

import re

from protocol.errors import ErrorCode, KafkaError

MAX_TOPIC_NAME_LENGTH = 249
_LEGAL_TOPIC = re.compile(r"[a-zA-Z0-9._-]+")

OFFSETS_TOPIC = "__consumer_offsets"
TRANSACTION_STATE_TOPIC = "__transaction_state"
INTERNAL_TOPICS = frozenset({OFFSETS_TOPIC, TRANSACTION_STATE_TOPIC})


def validate_topic_name(name: str | None) -> None:
    """Kafka's topic-name rules (``Topic.validate``), with the messages Kafka 3.9 sends."""
    if not name:
        raise KafkaError(ErrorCode.INVALID_TOPIC_EXCEPTION,
                         "Topic name is invalid: the empty string is not allowed")
    if name in (".", ".."):
        raise KafkaError(ErrorCode.INVALID_TOPIC_EXCEPTION,
                         f"Topic name is invalid: '{name}' is not allowed")
    if len(name) > MAX_TOPIC_NAME_LENGTH:
        raise KafkaError(
            ErrorCode.INVALID_TOPIC_EXCEPTION,
            f"Topic name is invalid: the length of '{name}' is longer than the max allowed "
            f"length {MAX_TOPIC_NAME_LENGTH}",
        )
    if not _LEGAL_TOPIC.fullmatch(name):
        raise KafkaError(
            ErrorCode.INVALID_TOPIC_EXCEPTION,
            f"Topic name is invalid: '{name}' contains one or more characters other than ASCII "
            "alphanumerics, '.', '_' and '-'",
        )


def collision_key(name: str) -> str:
    """Topics whose names differ only in '.' versus '_' collide in metric names, and Kafka
    refuses the second one."""
    return name.replace(".", "_")
