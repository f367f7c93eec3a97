"""What every znode codec shares: Kafka's JSON (``Json.encodeAsBytes``), the checked reads
of its fields that raise :class:`ZNodeDecodeError`, and Kafka's base64 UUIDs (topic and cluster
ids)."""

from __future__ import annotations

import base64
import binascii
import json
import uuid
from collections.abc import Iterable, Mapping
from typing import Any

from pybroker.kernel.types import TopicPartition


class ZNodeDecodeError(ValueError):
    """A znode's bytes are not the JSON its codec reads."""


# -- JSON as Kafka's Json.encodeAsBytes writes it -------------------------------------------------

def _dumps(value: object) -> bytes:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


def _loads(data: bytes | None, what: str) -> Any:
    """The parsed JSON, or None for an empty znode."""
    if not data:
        return None
    try:
        return json.loads(data)
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ZNodeDecodeError(f"{what}: not JSON: {data[:200]!r}") from e


def _object(data: bytes | None, what: str) -> dict[str, Any] | None:
    value = _loads(data, what)
    if value is not None and not isinstance(value, dict):
        raise ZNodeDecodeError(f"{what}: expected a JSON object: {(data or b'')[:200]!r}")
    return value


def _field(obj: Mapping[str, Any], key: str, kind: type | tuple[type, ...], what: str) -> Any:
    if key not in obj:
        raise ZNodeDecodeError(f"{what}: no {key!r} in {obj!r}")
    value = obj[key]
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise ZNodeDecodeError(f"{what}: {key!r} is {value!r}")
    return value


def _int(obj: Mapping[str, Any], key: str, what: str) -> int:
    value: int = _field(obj, key, int, what)
    return value


def _ints(value: Any, what: str) -> tuple[int, ...]:
    if not isinstance(value, list) or not all(
            isinstance(v, int) and not isinstance(v, bool) for v in value):
        raise ZNodeDecodeError(f"{what}: expected a list of integers: {value!r}")
    return tuple(value)


def _partitions_json(partitions: Iterable[TopicPartition]) -> list[dict[str, object]]:
    return [{"topic": t, "partition": p} for t, p in sorted(partitions)]


def _partitions_from_json(obj: Mapping[str, Any], what: str) -> frozenset[TopicPartition]:
    items = _field(obj, "partitions", list, what)
    out: set[TopicPartition] = set()
    for item in items:
        if not isinstance(item, dict):
            raise ZNodeDecodeError(f"{what}: partition entry {item!r}")
        out.add((_field(item, "topic", str, what), _int(item, "partition", what)))
    return frozenset(out)


# -- topic ids --------------------------------------------------------------------------------

#: Kafka's ``Uuid.ZERO_UUID``
ZERO_UUID = uuid.UUID(int=0)


def uuid_to_string(value: uuid.UUID) -> str:
    """Kafka's ``Uuid.toString``: URL-safe base64 of the 16 bytes, without padding."""
    return base64.urlsafe_b64encode(value.bytes).decode().rstrip("=")


def uuid_from_string(text: str) -> uuid.UUID:
    """Kafka's ``Uuid.fromString``."""
    try:
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (binascii.Error, ValueError) as e:
        raise ZNodeDecodeError(f"not a base64 UUID: {text!r}") from e
    if len(raw) != 16:
        raise ZNodeDecodeError(f"not a base64 UUID of 16 bytes: {text!r}")
    return uuid.UUID(bytes=raw)


def new_base64_uuid() -> str:
    """A random UUID as Kafka's cluster ids are made (``CoreUtils.generateUuidAsBase64``)."""
    return uuid_to_string(uuid.uuid4())
