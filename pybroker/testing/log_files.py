"""Checks of a partition's segment files as they lie on disk, as Kafka's ``DumpLogSegments``
would report them: every batch whole and valid (``isvalid: true``), offsets going forward, and
no bytes after the last batch ("Found N invalid bytes at the end"). For tests that stop a
broker and read what it left."""

from __future__ import annotations

from pathlib import Path

from protocol.errors import KafkaError
from protocol.records.batch import HEADER_SIZE, BatchHeader, crc_is_valid


def segment_problems(path: Path) -> list[str]:
    """What is wrong with one ``.log`` segment file (empty: nothing)."""
    data = path.read_bytes()
    problems: list[str] = []
    position, expected = 0, None
    while position < len(data):
        if len(data) - position < HEADER_SIZE:
            problems.append(f"{path.name}: {len(data) - position} invalid bytes at the end "
                            f"(position {position})")
            break
        try:
            header = BatchHeader.parse(data, position)
        except KafkaError as e:
            problems.append(f"{path.name}: an unreadable batch header at position {position}: "
                            f"{e}; {len(data) - position} invalid bytes at the end")
            break
        if position + header.size > len(data):
            problems.append(f"{path.name}: a torn batch at position {position} (offset "
                            f"{header.base_offset}): {len(data) - position} invalid bytes at "
                            "the end")
            break
        if not crc_is_valid(data, position, header):
            problems.append(f"{path.name}: the batch at offset {header.base_offset} (position "
                            f"{position}) fails its CRC")
        if expected is not None and header.base_offset < expected:
            problems.append(f"{path.name}: the batch at position {position} starts at offset "
                            f"{header.base_offset}, before {expected}")
        expected = header.next_offset
        position += header.size
    return problems


def log_dir_problems(partition_dir: Path) -> list[str]:
    """:func:`segment_problems` of every segment of a partition directory, in offset order."""
    out: list[str] = []
    for segment in sorted(partition_dir.glob("*.log")):
        out += [f"{partition_dir.name}/{p}" for p in segment_problems(segment)]
    return out
