"""The clients scenarios run with, and whether each is available here.

A client is *missing* when its library or tool is not installed; its scenarios are then
reported skipped with that reason, never run and never counted as passing.
"""

from __future__ import annotations

import importlib.util
import shutil
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Client:
    name: str
    description: str
    #: None when the client can run here, else why not
    missing: Callable[[], str | None]


def python_module(module: str, package: str) -> Callable[[], str | None]:
    def missing() -> str | None:
        if importlib.util.find_spec(module) is None:
            return f"the Python package {package} is not installed"
        return None
    return missing


def executable(*names: str) -> Callable[[], str | None]:
    def missing() -> str | None:
        absent = [n for n in names if shutil.which(n) is None]
        return f"{', '.join(absent)} not found on PATH" if absent else None
    return missing


def _nothing_missing() -> str | None:
    return None


#: every client by name, in the order the report card shows them
CLIENTS: dict[str, Client] = {
    c.name: c
    for c in (
        Client("kafka-python", "kafka-python (pure Python)",
               python_module("kafka", "kafka-python")),
        Client("confluent-kafka", "confluent-kafka (librdkafka)",
               python_module("confluent_kafka", "confluent-kafka")),
        Client("aiokafka", "aiokafka (asyncio)", python_module("aiokafka", "aiokafka")),
        Client("java", "the Apache Kafka Java clients", executable("java")),
        Client("cli", "Apache Kafka's command-line tools", executable("java")),
        Client("spark", "Spark Structured Streaming (PySpark)",
               python_module("pyspark", "pyspark")),
        Client("wire", "raw Kafka protocol requests (pybroker's protocol package)",
               _nothing_missing),
    )
}


def register_client(client: Client) -> Client:
    """Add or replace a client (a scenario module may refine how availability is checked)."""
    CLIENTS[client.name] = client
    return client
