"""The one error the console shows: a call the cluster refused or did not answer, with Kafka's
error name (``ErrorCode``'s, as the protocol names it) and message."""

from __future__ import annotations

from typing import Any

from confluent_kafka import KafkaError

from protocol.errors import ErrorCode


class KafkaCallError(Exception):
    """A call the cluster refused or did not answer: Kafka's error name and message."""

    def __init__(self, name: str, message: str, code: int | None = None) -> None:
        super().__init__(f"{name}: {message}" if message else name)
        self.name = name
        self.message = message
        self.code = code

    @classmethod
    def of(cls, error: KafkaError) -> KafkaCallError:
        """Kafka's name for a broker's error code; librdkafka's for its own (timeouts,
        transport)."""
        code = error.code()
        try:
            name = ErrorCode(code).name
        except ValueError:
            name = error.name().lstrip("_")
        return cls(name, error.str(), code)

    def to_json(self) -> dict[str, Any]:
        return {"error": self.name, "message": self.message, "code": self.code}
