"""Kafka's offset checkpoint files and the atomic write they rely on.

``recovery-point-offset-checkpoint``, ``log-start-offset-checkpoint`` and (written by the replica
manager) ``replication-offset-checkpoint`` sit in each log directory and read::

    0                      <- format version
    2                      <- entry count
    orders 0 1530
    orders 1 1611
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path

RECOVERY_POINT_CHECKPOINT = "recovery-point-offset-checkpoint"
LOG_START_OFFSET_CHECKPOINT = "log-start-offset-checkpoint"
#: each partition's high watermark
REPLICATION_OFFSET_CHECKPOINT = "replication-offset-checkpoint"
CLEAN_SHUTDOWN_MARKER = ".kafka_cleanshutdown"
CHECKPOINT_VERSION = 0


class CheckpointError(ValueError):
    """A checkpoint file that does not parse."""


def fsync_dir(path: Path) -> None:
    """Make a rename or unlink in ``path`` durable."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def fsync_paths(paths: Iterable[Path]) -> None:
    """fsync each file or directory in ``paths`` that still exists, through a descriptor of its
    own: for a thread other than the one that owns the files' open descriptors. A file removed
    or renamed meanwhile (its segment deleted) is passed over."""
    for path in paths:
        try:
            fd = os.open(path, os.O_RDONLY)
        except FileNotFoundError:
            continue
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def atomic_write(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` so a crash leaves either the old or the new file."""
    tmp = path.with_name(path.name + ".tmp")
    _write_durably(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644), data)
    os.replace(tmp, path)
    fsync_dir(path.parent)


def _write_durably(fd: int, data: bytes) -> None:
    """Write all of ``data`` to the new file open as ``fd``, fsync it and close it."""
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
    finally:
        os.close(fd)


def open_dir(path: Path) -> int:
    """A descriptor of the directory ``path`` (which must exist) for :func:`atomic_write_at`."""
    return os.open(path, os.O_RDONLY | os.O_DIRECTORY)


def atomic_write_at(dir_fd: int, name: str, data: bytes) -> None:
    """:func:`atomic_write` of ``name`` in the directory open as ``dir_fd``, which it closes.

    The descriptor follows the directory through a rename, so a write taken on the event loop
    and done later on another thread lands in the directory it was meant for even if that
    directory was renamed meanwhile (a deleted log's ``-delete`` rename), never in a new
    directory made at the old name (the topic created again). If the directory was removed,
    creating the file fails with ``FileNotFoundError``."""
    tmp = name + ".tmp"
    try:
        _write_durably(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644,
                               dir_fd=dir_fd), data)
        os.replace(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def write_offset_checkpoint(path: Path, offsets: Mapping[tuple[str, int], int]) -> None:
    lines = [str(CHECKPOINT_VERSION), str(len(offsets))]
    lines += [f"{topic} {partition} {offset}" for (topic, partition), offset in sorted(offsets.items())]
    atomic_write(path, ("\n".join(lines) + "\n").encode())


def read_offset_checkpoint(path: Path) -> dict[tuple[str, int], int]:
    """Entries of a checkpoint file; an absent file is empty, a malformed one raises."""
    try:
        text = path.read_text()
    except FileNotFoundError:
        return {}
    lines = text.splitlines()
    try:
        if len(lines) < 2 or int(lines[0]) != CHECKPOINT_VERSION:
            raise CheckpointError(f"{path}: unsupported version line {lines[:1]}")
        count = int(lines[1])
        entries = [line for line in lines[2:] if line.strip()]
        if len(entries) != count:
            raise CheckpointError(f"{path}: expected {count} entries, found {len(entries)}")
        result: dict[tuple[str, int], int] = {}
        for line in entries:
            topic, partition, offset = line.split()
            result[(topic, int(partition))] = int(offset)
    except ValueError as e:
        if isinstance(e, CheckpointError):
            raise
        raise CheckpointError(f"{path}: {e}") from None
    return result
