"""Partition logs on disk, modelled on Kafka's storage layer (segments, indexes, recovery)."""

from .config import LogConfig
from .file_slice import FileSlice
from .log import AppendInfo, FetchDataInfo, Log, parse_partition_dir, partition_dir_name
from .manager import LogManager

__all__ = [
    "AppendInfo",
    "FetchDataInfo",
    "FileSlice",
    "Log",
    "LogConfig",
    "LogManager",
    "parse_partition_dir",
    "partition_dir_name",
]
