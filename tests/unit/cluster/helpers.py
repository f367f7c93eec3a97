"""Plain helpers shared by the tests that read what a broker's partitions hold."""

from __future__ import annotations

from protocol.records.batch import BatchHeader
from protocol.records.record import Record, decode_batch, iter_batches
from pybroker.cluster.partition import Partition


def partition_batches(partition: Partition) -> list[tuple[BatchHeader, list[Record]]]:
    """Every batch of the partition's log, decoded (a read stops at a segment's end, hence the
    loop)."""
    out = []
    offset = partition.log_start_offset
    while offset < partition.log_end_offset:
        buf = partition.read(offset, 1 << 30, min_one_batch=True).records.read_bytes()
        for pos, header in iter_batches(buf):
            out.append(decode_batch(buf, pos))
            offset = header.base_offset + header.last_offset_delta + 1
    return out
