"""Plain helpers shared by the tests that open a bare ``Log`` (here, and in tests/unit/cluster)."""

from __future__ import annotations

from protocol.records.batch import BatchHeader
from pybroker.log import FileSlice, Log

#: the logs the test modules' ``open_log`` helpers opened, closed after every test by
#: ``_close_opened_logs`` (tests/unit/conftest.py); a test that closes one itself, as a crash or a
#: restart does, takes it out first
OPENED: list[Log] = []


def close_opened() -> None:
    """Close every log in :data:`OPENED`, the last opened first."""
    while OPENED:
        OPENED.pop().close()


def log_batches(log: Log) -> list[bytes]:
    """Every batch of the log from its start, as bytes (a read stops at a segment's end, hence
    the loop)."""
    out, offset = [], log.log_start_offset
    while offset < log.log_end_offset:
        data = log.read(offset, 1 << 20).records
        assert isinstance(data, FileSlice)
        raw = data.read_bytes()
        pos = 0
        while pos < len(raw):
            header = BatchHeader.parse(raw, pos)
            out.append(raw[pos : pos + header.size])
            offset = header.next_offset
            pos += header.size
    return out
