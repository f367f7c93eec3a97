"""Real disk faults for the log-dir failure tests and the nemesis's ``disk`` fault: a log dir on
a size-limited file system that a test fills up (ENOSPC) and frees again, and a log dir on a
FUSE file system whose fsync fails on demand.

* :class:`SmallFilesystem` mounts a tmpfs of a given size (root, or the mount capability, is
  needed); :meth:`~SmallFilesystem.fill` writes a ballast file until the file system is full,
  :meth:`~SmallFilesystem.free` removes it.
* :class:`FaultyFilesystem` runs :mod:`pybroker.testing.faulty_fs` over a source directory,
  in a process of its own (stopped by pid, the mount removed), and :meth:`~FaultyFilesystem.fail`
  switches its faults on and off.

Both say what they need when the machine lacks it (:func:`disk_faults_missing`,
:func:`fuse_missing`), so that a test skips naming the missing tool instead of failing.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

_BALLAST = ".ballast"


def _mounted(path: Path) -> bool:
    target = str(path.resolve())
    try:
        mounts = Path("/proc/self/mounts").read_text().splitlines()
    except OSError:
        return False
    return any(line.split()[1] == target for line in mounts if len(line.split()) > 1)


def _unmount(path: Path) -> None:
    """Unmount ``path``, lazily if it is still busy (a broker killed a moment ago)."""
    for args in (["umount", str(path)], ["umount", "-l", str(path)]):
        if not _mounted(path):
            return
        subprocess.run(args, capture_output=True, timeout=30)


def disk_faults_missing() -> list[str]:
    """What mounting a size-limited tmpfs needs and this machine lacks (empty: nothing)."""
    if shutil.which("mount") is None or shutil.which("umount") is None:
        return ["mount and umount (util-linux)"]
    probe = Path(tempfile.mkdtemp(prefix="pybroker-tmpfs-probe-"))
    try:
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(probe)],
                              capture_output=True, text=True, timeout=30)
        if done.returncode != 0:
            return [f"the right to mount a tmpfs (root or CAP_SYS_ADMIN): "
                    f"{done.stderr.strip() or 'mount failed'}"]
        return []
    finally:
        _unmount(probe)
        with contextlib.suppress(OSError):
            probe.rmdir()


class SmallFilesystem:
    """A tmpfs of ``size`` bytes mounted at ``path`` (created if missing) for as long as the
    object is used as a context manager."""

    def __init__(self, path: Path, size: int) -> None:
        self.path = Path(path)
        self.size = size

    def __enter__(self) -> SmallFilesystem:
        self.path.mkdir(parents=True, exist_ok=True)
        subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={self.size},mode=0755", "tmpfs",
                        str(self.path)], check=True, capture_output=True, timeout=30)
        return self

    def __exit__(self, *exc: object) -> None:
        _unmount(self.path)

    @property
    def free_bytes(self) -> int:
        st = os.statvfs(self.path)
        return st.f_bavail * st.f_frsize

    def fill(self, leave: int = 0) -> int:
        """Grow a ballast file until the file system is full (or only ``leave`` bytes are
        free); the bytes it grew by. The space is allocated with ``posix_fallocate`` (a
        tenth of a second for a gigabyte of tmpfs; writing it takes seconds on a busy
        machine), and whatever that leaves is written."""
        written = 0
        chunk = b"\0" * (1 << 20)
        fd = os.open(self.path / _BALLAST, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            room = self.free_bytes - leave
            if room > 0:
                end = os.fstat(fd).st_size
                try:
                    os.posix_fallocate(fd, end, room)
                    written += room
                except OSError as e:
                    if e.errno not in (errno.ENOSPC, errno.EOPNOTSUPP, errno.EINVAL):
                        raise
                    os.ftruncate(fd, end)  # a failed fallocate may keep part of the room
            while True:
                room = self.free_bytes - leave
                if room <= 0:
                    break
                try:
                    written += os.write(fd, chunk[: min(len(chunk), room)])
                except OSError as e:
                    if e.errno != errno.ENOSPC:
                        raise
                    break
        finally:
            os.close(fd)
        return written

    def free(self) -> None:
        """Remove the ballast: the space is back."""
        (self.path / _BALLAST).unlink(missing_ok=True)


def fuse_missing() -> list[str]:
    """What :class:`FaultyFilesystem` needs and this machine lacks (empty: nothing)."""
    missing = []
    if not Path("/dev/fuse").exists():
        missing.append("/dev/fuse (the kernel's FUSE device)")
    if shutil.which("fusermount3") is None:
        missing.append("fusermount3 (Debian package fuse3)")
    try:
        import mfusepy  # noqa: F401
    except (ImportError, OSError) as e:  # OSError: the package is there but libfuse is not
        missing.append(f"mfusepy with libfuse 3 ({e})")
    return missing


class FaultyFilesystem:
    """``source`` seen through a FUSE mount at ``mountpoint`` whose fsync fails while
    :meth:`fail` says so; a context manager (its process is stopped by pid and the mount
    removed on exit, also after a failure)."""

    def __init__(self, source: Path, mountpoint: Path, *, log_path: Path | None = None) -> None:
        self.source = Path(source)
        self.mountpoint = Path(mountpoint)
        self.control = self.source.parent / f".{self.source.name}.faults"
        self.log_path = log_path or self.source.parent / f"{self.source.name}-fuse.log"
        self.proc: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> FaultyFilesystem:
        self.source.mkdir(parents=True, exist_ok=True)
        self.mountpoint.mkdir(parents=True, exist_ok=True)
        self.control.write_text("")
        with open(self.log_path, "ab") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "pybroker.testing.faulty_fs", str(self.source),
                 str(self.mountpoint), str(self.control)],
                stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True)
        deadline = time.monotonic() + 30
        while not _mounted(self.mountpoint):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.__exit__()
                raise RuntimeError(f"the FUSE file system did not mount at {self.mountpoint}: "
                                   f"{self.log_path.read_text()[-2000:]}")
            time.sleep(0.05)
        return self

    def fail(self, *kinds: str) -> None:
        """Fail these operations from now on (``fsync``, ``write``); none: heal."""
        self.control.write_text(" ".join(kinds))

    def __exit__(self, *exc: object) -> None:
        if _mounted(self.mountpoint):
            subprocess.run(["fusermount3", "-u", "-z", str(self.mountpoint)],
                           capture_output=True, timeout=30)
        proc, self.proc = self.proc, None
        if proc is not None and proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(10)
        _unmount(self.mountpoint)
