"""The one error the console shows: a call the cluster refused or did not answer, with Kafka's
error name (``ErrorCode``'s, as the protocol names it) and message."""

from __future__ import annotations

from concurrent.futures import Future
from typing import Any, TypeVar

from confluent_kafka import KafkaError, KafkaException

from protocol.errors import ErrorCode

#: seconds a call to the cluster may take before the page shows a timeout
TIMEOUT = 15.0

T = TypeVar("T")


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


def result(future: Future[T]) -> T:
    try:
        return future.result(timeout=TIMEOUT)
    except KafkaException as e:
        raise KafkaCallError.of(e.args[0]) from None
    except TimeoutError:
        raise KafkaCallError("REQUEST_TIMED_OUT", f"no answer within {TIMEOUT:.0f}s") from None


def results(futures: dict[Any, Future[T]]) -> dict[Any, T | KafkaCallError]:
    """Each key's result, or the error Kafka gave for that key alone."""
    out: dict[Any, T | KafkaCallError] = {}
    for key, future in futures.items():
        try:
            out[key] = result(future)
        except KafkaCallError as e:
            out[key] = e
    return out
