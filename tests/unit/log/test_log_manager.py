"""LogManager: loading log dirs, checkpoints, clean-shutdown marker, placement and deletion."""

from __future__ import annotations

from pathlib import Path

import pytest

from protocol.records.record import build_batch
from pybroker.log import LogConfig, LogManager
from pybroker.log.checkpoints import (
    CLEAN_SHUTDOWN_MARKER,
    LOG_START_OFFSET_CHECKPOINT,
    RECOVERY_POINT_CHECKPOINT,
    CheckpointError,
    read_offset_checkpoint,
    write_offset_checkpoint,
)

T0 = 1_700_000_000_000
CONFIG = LogConfig()


def append(manager: LogManager, topic: str, partition: int, n: int = 1) -> None:
    log = manager.get_or_create_log(topic, partition, CONFIG, T0)
    for _ in range(n):
        log.append_as_leader(build_batch([(b"k", b"v", (), T0)]), leader_epoch=0, now_ms=T0)


def test_checkpoint_file_format_round_trips(tmp_path: Path) -> None:
    path = tmp_path / RECOVERY_POINT_CHECKPOINT
    write_offset_checkpoint(path, {("orders", 1): 1611, ("my-topic", 0): 1530})
    assert path.read_text() == "0\n2\nmy-topic 0 1530\norders 1 1611\n"
    assert read_offset_checkpoint(path) == {("orders", 1): 1611, ("my-topic", 0): 1530}
    assert read_offset_checkpoint(tmp_path / "absent") == {}
    path.write_text("0\n3\nt 0 1\n")
    with pytest.raises(CheckpointError):
        read_offset_checkpoint(path)
    path.write_text("1\n0\n")
    with pytest.raises(CheckpointError):
        read_offset_checkpoint(path)


def test_shutdown_writes_checkpoints_and_marker_and_startup_reloads(tmp_path: Path) -> None:
    dirs = [tmp_path / "a", tmp_path / "b"]
    manager = LogManager(dirs, CONFIG)
    manager.startup(T0)
    append(manager, "orders", 0, 3)
    append(manager, "orders", 1, 2)
    append(manager, "with-dash-es", 7, 1)
    placed = {tp: manager.log_dir_of(*tp) for tp in manager.all_logs()}
    assert set(placed.values()) == set(dirs), "new logs go to the least-loaded dir"
    manager.shutdown()

    for d in dirs:
        assert (d / CLEAN_SHUTDOWN_MARKER).exists()
    recovery = {}
    for d in dirs:
        recovery.update(read_offset_checkpoint(d / RECOVERY_POINT_CHECKPOINT))
        assert read_offset_checkpoint(d / LOG_START_OFFSET_CHECKPOINT).keys() == read_offset_checkpoint(
            d / RECOVERY_POINT_CHECKPOINT
        ).keys()
    assert recovery == {("orders", 0): 3, ("orders", 1): 2, ("with-dash-es", 7): 1}

    manager = LogManager(dirs, CONFIG)
    manager.startup(T0)
    assert not any((d / CLEAN_SHUTDOWN_MARKER).exists() for d in dirs)
    logs = manager.all_logs()
    assert {tp: log.log_end_offset for tp, log in logs.items()} == recovery
    assert manager.get_log("with-dash-es", 7) is logs[("with-dash-es", 7)]
    assert manager.get_log("orders", 9) is None
    manager.shutdown()


def test_startup_skips_foreign_entries_and_finishes_deletions(tmp_path: Path) -> None:
    log_dir = tmp_path / "logs"
    manager = LogManager([log_dir], CONFIG)
    manager.startup(T0)
    append(manager, "t", 0)
    manager.shutdown()
    (log_dir / "meta.properties").write_text("broker.id=0\n")
    (log_dir / "__pybroker_metadata").mkdir()
    (log_dir / "__pybroker_metadata" / "00000000000000000000.log").write_bytes(b"junk")
    (log_dir / "not-a-partition").mkdir()
    (log_dir / "t-1.0123456789abcdef-delete").mkdir()
    (log_dir / "t-2.0123456789abcdef-future").mkdir()

    manager = LogManager([log_dir], CONFIG)
    manager.startup(T0)
    assert list(manager.all_logs()) == [("t", 0)]
    assert not (log_dir / "t-1.0123456789abcdef-delete").exists()
    assert (log_dir / "meta.properties").exists() and (log_dir / "__pybroker_metadata").exists()
    manager.shutdown()


def test_unclean_restart_recovers_from_the_checkpointed_recovery_point(tmp_path: Path) -> None:
    log_dir = tmp_path / "logs"
    manager = LogManager([log_dir], CONFIG)
    manager.startup(T0)
    append(manager, "t", 0, 4)
    manager.checkpoint()
    assert read_offset_checkpoint(log_dir / RECOVERY_POINT_CHECKPOINT) == {("t", 0): 0}
    # Crash: no shutdown, so no marker; the last batch is torn on disk.
    segment = log_dir / "t-0" / f"{0:020d}.log"
    segment.write_bytes(segment.read_bytes()[:-1])
    crashed, manager = manager, LogManager([log_dir], CONFIG)
    manager.startup(T0)
    log = manager.get_log("t", 0)
    assert log is not None and log.log_end_offset == 3
    # Startup checkpoints the recovered state.
    assert read_offset_checkpoint(log_dir / RECOVERY_POINT_CHECKPOINT) == {("t", 0): 3}
    manager.shutdown()
    for stale in crashed.all_logs().values():
        stale.close()


def test_startup_uses_per_topic_configs(tmp_path: Path) -> None:
    log_dir = tmp_path / "logs"
    manager = LogManager([log_dir], CONFIG)
    manager.startup(T0)
    append(manager, "lat", 0)
    manager.shutdown()
    special = LogConfig(message_timestamp_type="LogAppendTime")
    manager = LogManager([log_dir], CONFIG)
    manager.startup(T0, config_for=lambda topic: special if topic == "lat" else CONFIG)
    log = manager.get_log("lat", 0)
    assert log is not None and log.config is special
    manager.shutdown()


def test_delete_log_removes_the_partition(tmp_path: Path) -> None:
    log_dir = tmp_path / "logs"
    manager = LogManager([log_dir], CONFIG)
    manager.startup(T0)
    append(manager, "gone", 0)
    append(manager, "kept", 0)
    manager.delete_log("gone", 0)
    manager.delete_log("never-existed", 0)
    assert manager.get_log("gone", 0) is None
    assert sorted(p.name for p in log_dir.iterdir() if p.is_dir()) == ["kept-0"]
    manager.checkpoint()
    assert read_offset_checkpoint(log_dir / RECOVERY_POINT_CHECKPOINT).keys() == {("kept", 0)}
    manager.shutdown()


def test_flush_dirty_honours_flush_ms(tmp_path: Path) -> None:
    manager = LogManager([tmp_path / "logs"], CONFIG)
    manager.startup(T0)
    log = manager.get_or_create_log("f", 0, LogConfig(flush_ms=1000), T0)
    log.append_as_leader(build_batch([(None, b"v", (), T0)]), leader_epoch=0, now_ms=T0)
    manager.flush_dirty(T0 + 999)
    assert log.recovery_point == 0
    manager.flush_dirty(T0 + 1000)
    assert log.recovery_point == 1 and log.last_flush_ms == T0 + 1000
    manager.shutdown()


def test_get_or_create_returns_the_existing_log_and_validates_names(tmp_path: Path) -> None:
    manager = LogManager([tmp_path / "logs"], CONFIG)
    manager.startup(T0)
    log = manager.get_or_create_log("t", 0, CONFIG, T0)
    assert manager.get_or_create_log("t", 0, CONFIG, T0) is log
    for bad in ("../escape", "a/b", "", ".."):
        with pytest.raises(Exception):  # noqa: B017 - KafkaError(INVALID_TOPIC_EXCEPTION)
            manager.get_or_create_log(bad, 0, CONFIG, T0)
    manager.shutdown()
