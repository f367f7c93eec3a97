"""The broker's storage start-up on a real embedded node: the logs of the stored topics open
with their topics' overrides (read from the znode tree before any log opens)."""

from __future__ import annotations

from pathlib import Path

from tests.unit.broker.embedded_node import EmbeddedNode


def test_logs_reopen_with_their_topics_overrides(tmp_path: Path) -> None:
    node = EmbeddedNode.start(tmp_path)
    overrides = {"max.message.bytes": "200", "cleanup.policy": "compact", "retention.ms": "1000"}
    try:
        node.create_topic("t", 3, overrides)
        node.create_topic("plain", 1)
    finally:
        node.stop()
    node = node.restart()
    try:
        broker = node.broker
        for p in range(3):
            config = broker.log_manager.get_log("t", p).config
            assert (config.max_message_bytes, config.cleanup_policy, config.retention_ms) == (
                200, "compact", 1000)
        assert broker.log_manager.get_log("plain", 0).config == broker.default_log_config
    finally:
        node.stop()
