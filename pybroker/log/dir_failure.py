"""Log directory failures (KIP-112): Kafka's ``LogDirFailureChannel``.

Any I/O error in a log directory - a write or fsync that fails, a full disk (ENOSPC), EIO, the
directory removed from under the broker - is that directory's failure, wherever it is met: on
the produce path, in a replica fetcher's append, in a truncation, on the storage thread writing
a checkpoint or fsyncing a rolled segment. Whoever meets one reports it here with
:meth:`LogDirFailureChannel.maybe_add_offline_log_dir` and fails its own operation with
KAFKA_STORAGE_ERROR (:func:`storage_error`); nothing carries on as if the write had happened.

The first report of a directory logs the error and hands the directory to the channel's
handler on the event loop (the replica manager's ``handle_log_dir_failure``: its partitions go
offline here, the controller is told, and a broker left without a healthy directory halts).
Later reports of the same directory are dropped. The handler never runs inside the operation
that failed: it is called soon after, from the loop, as Kafka's ``LogDirFailureHandler`` thread
takes the directory from the channel's queue.

Concurrency notes: reports may come from any thread (the storage thread reports its own
failures); the set of offline directories is guarded by a lock, and the handler is always
called on the loop given to :meth:`LogDirFailureChannel.set_handler`.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from collections.abc import Callable
from pathlib import Path

from protocol.errors import ErrorCode, KafkaError

logger = logging.getLogger(__name__)

#: runs ``fn(*args)`` later, off the event loop (``BackgroundIO.submit``)
Submit = Callable[..., object]


def log_dir_key(path: Path | str) -> Path:
    """One spelling of a log directory (absolute, normalised), to compare reports by."""
    return Path(os.path.abspath(path))


def storage_error(message: str) -> KafkaError:
    """Kafka's ``KafkaStorageException``: the answer to an operation on a failed directory."""
    return KafkaError(ErrorCode.KAFKA_STORAGE_ERROR, message)


class LogDirFailureChannel:
    """Where the broker's storage paths report I/O errors, one log directory at a time."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        #: offline directory -> the first error reported in it
        self._offline: dict[Path, str] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._handler: Callable[[Path], None] | None = None
        #: directories reported before a handler was set
        self._pending: list[Path] = []

    def set_handler(self, handler: Callable[[Path], None],
                    loop: asyncio.AbstractEventLoop | None = None) -> None:
        """Call ``handler(log dir)`` on ``loop`` (the running loop by default) for each
        directory that fails from now on, and at once for those that failed before."""
        with self._lock:
            self._handler = handler
            self._loop = loop or asyncio.get_running_loop()
            pending, self._pending = self._pending, []
        for log_dir in pending:
            self._deliver(log_dir)

    def maybe_add_offline_log_dir(self, log_dir: Path | str, message: str,
                                  error: BaseException | None = None) -> bool:
        """Report an I/O error in ``log_dir``; True when this is the directory's first one
        (then it is logged and handed to the handler)."""
        key = log_dir_key(log_dir)
        with self._lock:
            if key in self._offline:
                return False
            self._offline[key] = f"{message}: {error}" if error is not None else message
            deliver = self._handler is not None
            if not deliver:
                self._pending.append(key)
        logger.error("%s", message, exc_info=error)
        if deliver:
            self._deliver(key)
        return True

    def _deliver(self, log_dir: Path) -> None:
        assert self._handler is not None and self._loop is not None
        try:
            self._loop.call_soon_threadsafe(self._handler, log_dir)
        except RuntimeError:  # the loop is closed: the broker is gone already
            logger.warning("Log dir %s failed after the broker stopped", log_dir)

    def is_offline(self, log_dir: Path | str) -> bool:
        with self._lock:
            return log_dir_key(log_dir) in self._offline

    @property
    def offline_dirs(self) -> dict[Path, str]:
        """Each offline directory with the first error reported in it."""
        with self._lock:
            return dict(self._offline)


def reporting(submit: Submit, failures: LogDirFailureChannel, log_dir: Path,
              what: str) -> Submit:
    """``submit`` whose work reports an I/O error as the failure of ``log_dir`` (then raises
    it, for whoever waits on the work)."""
    def run(fn: Callable[..., object], *args: object) -> object:
        return submit(_run_reporting, failures, log_dir, what, fn, args)
    return run


def _run_reporting(failures: LogDirFailureChannel, log_dir: Path, what: str,
                   fn: Callable[..., object], args: tuple[object, ...]) -> None:
    try:
        fn(*args)
    except OSError as e:
        failures.maybe_add_offline_log_dir(log_dir, f"{what} in dir {log_dir}", e)
        raise
