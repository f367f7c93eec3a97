"""The broker's storage start-up (``Broker.start_storage``), without sockets."""

from __future__ import annotations

from pathlib import Path

from pybroker.broker import Broker
from tests.unit.broker.helpers import storage_broker

T0 = 1_700_000_000_000


def start(data: Path) -> Broker:
    return storage_broker(data, T0)


def test_logs_reopen_with_their_topics_overrides(tmp_path: Path) -> None:
    broker = start(tmp_path)
    overrides = {"max.message.bytes": "200", "cleanup.policy": "compact", "retention.ms": "1000"}
    broker.controller.create_topic("t", 3, 1, assignments=None, configs=overrides,
                                   validate_only=False, now_ms=T0, defaults=(1, 1))
    broker.controller.create_topic("plain", 1, 1, assignments=None, configs={},
                                   validate_only=False, now_ms=T0, defaults=(1, 1))
    broker.stop_storage()

    broker = start(tmp_path)
    try:
        for p in range(3):
            config = broker.log_manager.get_log("t", p).config
            assert (config.max_message_bytes, config.cleanup_policy, config.retention_ms) == (
                200, "compact", 1000)
        assert broker.log_manager.get_log("plain", 0).config == broker.default_log_config
    finally:
        broker.stop_storage()
