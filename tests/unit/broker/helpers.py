"""A broker without sockets, for the unit tests that need its storage, controller and
coordinators wired as the broker wires them (tests/unit/admin, broker, cluster, controller,
coordinator)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from pybroker.broker import Broker
from pybroker.config import BrokerConfig


def storage_broker(data: Path, now_ms: int, props: Mapping[str, str] | None = None) -> Broker:
    """A broker with ``log.dirs`` at ``data`` and these other ``server.properties``, started as
    far as ``Broker.start_storage`` goes at ``now_ms``: the caller stops it with
    ``stop_storage``."""
    broker = Broker(BrokerConfig.from_dict({"log.dirs": str(data), **(props or {})}))
    broker.start_storage(now_ms)
    return broker
