"""Fetch v0-v3: the answer read as for v4, its records converted down to the message format the
version knows (v0-v1: magic 0, v2-v3: magic 1), as Kafka 3.9's ``KafkaApis`` does for every
partition whose log this broker hosts (``maybeConvertFetchedData``).

* A consumer's fetch of a topic with ``message.downconversion.enable=false`` is answered
  UNSUPPORTED_VERSION for that partition; a follower's is converted all the same.
* A zstd batch cannot be converted: UNSUPPORTED_COMPRESSION_TYPE when it comes first (a topic
  whose ``compression.type`` is zstd is refused before any read, below v10); a later one ends
  the conversion (:func:`protocol.records.legacy.lazy_down_convert`).
* What is sent is what Kafka's lazy down-conversion sends: the size committed to is the larger
  of the bytes read and the first converted batch, the converted messages cut or padded to it.

The conversion decodes and re-encodes every record, so it runs in a worker thread, reading
the segment through descriptors pinned until it is done; the v4+ path never comes here and
keeps sending segment bytes as they are.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import Any, Protocol, cast

from protocol.errors import ErrorCode, KafkaError
from protocol.messages import fetch_response as m
from protocol.records.compression import CompressionType
from protocol.records.legacy import MAGIC_V0, MAGIC_V1, lazy_down_convert
from pybroker.api.context import RequestContext
from pybroker.api.registry import Response
from pybroker.kernel.outcome import is_pending

#: the last Fetch version that reads magic 0 (v0-v1) and magic 1 (v2-v3)
MAGIC_V0_MAX_VERSION = 1
LEGACY_MAX_VERSION = 3
UNKNOWN_OFFSET = -1


def target_magic(version: int) -> int:
    return MAGIC_V0 if version <= MAGIC_V0_MAX_VERSION else MAGIC_V1


def refused(partition: int, error: ErrorCode) -> m.PartitionData:
    """Kafka's ``FetchResponse.partitionResponse``: the error alone, null records."""
    return m.PartitionData(partition_index=partition, error_code=error,
                           high_watermark=UNKNOWN_OFFSET, records=None)


@dataclass(slots=True)
class _Job:
    """One partition's records to convert: bytes, or a segment range read in the worker."""

    data: m.PartitionData
    fetch_offset: int
    levels: dict[int, int]
    source: bytes
    reader: Any = None  # a pinned segment file (``FileSlice.file``) to read from
    position: int = 0
    size: int = 0
    result: bytes | ErrorCode = b""


def _read(job: _Job) -> bytes:
    if job.reader is None:
        return job.source
    fd = job.reader.fileno()
    parts = []
    got = 0
    while got < job.size:
        chunk = os.pread(fd, job.size - got, job.position + got)
        if not chunk:
            raise EOFError(f"segment ended {job.size - got} bytes short of a fetched range")
        parts.append(chunk)
        got += len(chunk)
    return b"".join(parts)


def _convert_all(jobs: list[_Job], magic: int) -> None:
    """The worker: each job's records read and converted (or the error that refuses them)."""
    for job in jobs:
        try:
            job.result = lazy_down_convert(_read(job), magic, job.fetch_offset,
                                           compression_levels=job.levels)
        except KafkaError as e:
            if e.code != ErrorCode.UNSUPPORTED_COMPRESSION_TYPE:
                raise
            job.result = e.code


class SegmentRange(Protocol):
    """Records still in a segment file (a ``FileSlice``): ``file`` pins its descriptor until
    closed."""

    position: int

    def __len__(self) -> int: ...

    @property
    def file(self) -> Any: ...


def _levels(config: Any) -> dict[int, int]:
    levels: dict[int, int] = {CompressionType.LZ4: config.compression_lz4_level}
    if config.compression_gzip_level >= 0:
        levels[CompressionType.GZIP] = config.compression_gzip_level
    return levels


def down_convert(ctx: RequestContext, answer: Response[m.FetchResponse],
                 fetch_offsets: dict[tuple[str, int], int], from_follower: bool,
                 ) -> m.FetchResponse | Awaitable[m.FetchResponse]:
    """The v0-v3 answer: ``answer`` (or, once it is ready, the future's) with each hosted
    partition's records converted; a coroutine when there is work for the worker."""
    if is_pending(answer):
        return _after(ctx, answer, fetch_offsets, from_follower)
    jobs = _plan(ctx, answer, fetch_offsets, from_follower)
    if not jobs:
        return answer
    return _run(answer, jobs, target_magic(ctx.api_version))


async def _after(ctx: RequestContext, answer: asyncio.Future[m.FetchResponse],
                 fetch_offsets: dict[tuple[str, int], int], from_follower: bool,
                 ) -> m.FetchResponse:
    response = await answer
    jobs = _plan(ctx, response, fetch_offsets, from_follower)
    if not jobs:
        return response
    return await _run(response, jobs, target_magic(ctx.api_version))


def _plan(ctx: RequestContext, response: m.FetchResponse,
          fetch_offsets: dict[tuple[str, int], int], from_follower: bool) -> list[_Job]:
    """Refuse what Kafka refuses at once; the partitions with records to convert."""
    jobs: list[_Job] = []
    replicas = ctx.services.replica_manager
    for topic in response.responses:
        for i, data in enumerate(topic.partitions):
            hosted = replicas.get_partition(topic.topic, data.partition_index)
            if hosted is None or hosted.log is None:
                continue  # no log here, no records: nothing to convert
            if data.error_code == ErrorCode.UNSUPPORTED_COMPRESSION_TYPE:
                continue  # a zstd topic, refused before reading
            config = ctx.services.configs.log_config(topic.topic)
            if not from_follower and not config.message_downconversion_enable:
                topic.partitions[i] = refused(data.partition_index, ErrorCode.UNSUPPORTED_VERSION)
                continue
            records = data.records
            if records is None or len(records) == 0:
                continue
            offset = fetch_offsets.get((topic.topic, data.partition_index), 0)
            if isinstance(records, (bytes, bytearray, memoryview)):
                jobs.append(_Job(data, offset, _levels(config), bytes(records)))
            else:
                # a segment file's range: pin the file now, on the loop; the worker reads it
                segment = cast(SegmentRange, records)
                jobs.append(_Job(data, offset, _levels(config), b"", segment.file,
                                 segment.position, len(segment)))
    return jobs


async def _run(response: m.FetchResponse, jobs: list[_Job], magic: int) -> m.FetchResponse:
    try:
        await asyncio.to_thread(_convert_all, jobs, magic)
    finally:
        for job in jobs:
            if job.reader is not None:
                job.reader.close()
                job.reader = None
    swap: dict[int, m.PartitionData] = {}
    for job in jobs:
        if isinstance(job.result, ErrorCode):
            swap[id(job.data)] = refused(job.data.partition_index, job.result)
        else:
            job.data.records = job.result
    if swap:
        for topic in response.responses:
            topic.partitions = [swap.get(id(p), p) for p in topic.partitions]
    return response
