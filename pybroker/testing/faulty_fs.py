"""A pass-through FUSE file system whose fsync (and, when asked, writes) fail on demand, for the
disk-fault tests: ``python -m pybroker.testing.faulty_fs SOURCE MOUNTPOINT CONTROL``.

Everything done under ``MOUNTPOINT`` is done to ``SOURCE``, except that while the file
``CONTROL`` names a fault, the operation fails with EIO as a dying disk makes it fail:

* ``fsync`` - ``fsync``, ``fdatasync`` and a directory's fsync;
* ``write`` - writes, truncations and file creation too.

``CONTROL`` lives outside the mount, so a test switches faults on and off by writing it. The
file system runs in the foreground in its own process (started and stopped by
:class:`pybroker.testing.disk.FaultyFilesystem`, by pid), built on mfusepy over libfuse 3.
"""

from __future__ import annotations

import errno
import os
import sys
from pathlib import Path
from typing import Any

import mfusepy as fuse


class FaultyPassthrough(fuse.Operations):
    """``SOURCE`` through the mount, with the faults ``CONTROL`` names."""

    use_ns = True

    def __init__(self, source: Path, control: Path) -> None:
        self.source = source
        self.control = control

    def _path(self, path: str) -> str:
        return os.path.join(self.source, path.lstrip("/"))

    def _failing(self, kind: str) -> bool:
        try:
            return kind in self.control.read_text().split()
        except FileNotFoundError:
            return False

    def _maybe_fail(self, kind: str) -> None:
        if self._failing(kind):
            raise fuse.FuseOSError(errno.EIO)

    # -- metadata ---------------------------------------------------------------------------
    def getattr(self, path: str, fh: int | None = None) -> dict[str, Any]:
        st = os.fstat(fh) if fh is not None else os.lstat(self._path(path))
        attrs = {key: getattr(st, key) for key in (
            "st_mode", "st_nlink", "st_uid", "st_gid", "st_size", "st_blocks", "st_blksize")}
        attrs.update(st_atime=st.st_atime_ns, st_mtime=st.st_mtime_ns, st_ctime=st.st_ctime_ns)
        return attrs

    def access(self, path: str, amode: int) -> int:
        if not os.access(self._path(path), amode):
            raise fuse.FuseOSError(errno.EACCES)
        return 0

    def statfs(self, path: str) -> dict[str, Any]:
        st = os.statvfs(self._path(path))
        return {key: getattr(st, key) for key in (
            "f_bavail", "f_bfree", "f_blocks", "f_bsize", "f_favail", "f_ffree", "f_files",
            "f_flag", "f_frsize", "f_namemax")}

    def chmod(self, path: str, mode: int) -> int:
        os.chmod(self._path(path), mode)
        return 0

    def utimens(self, path: str, times: tuple[int, int] | None = None) -> int:
        if times is None:
            os.utime(self._path(path))
        else:
            os.utime(self._path(path), ns=times)
        return 0

    # -- directories ------------------------------------------------------------------------
    def readdir(self, path: str, fh: int) -> list[str]:
        return [".", "..", *os.listdir(self._path(path))]

    def mkdir(self, path: str, mode: int) -> int:
        self._maybe_fail("write")
        os.mkdir(self._path(path), mode)
        return 0

    def rmdir(self, path: str) -> int:
        os.rmdir(self._path(path))
        return 0

    def rename(self, old: str, new: str) -> int:
        os.rename(self._path(old), self._path(new))
        return 0

    def unlink(self, path: str) -> int:
        os.unlink(self._path(path))
        return 0

    def opendir(self, path: str) -> int:
        return 0

    def fsyncdir(self, path: str, datasync: int, fh: int) -> int:
        self._maybe_fail("fsync")
        fd = os.open(self._path(path), os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        return 0

    # -- files ------------------------------------------------------------------------------
    def create(self, path: str, mode: int, fi: Any = None) -> int:
        self._maybe_fail("write")
        return os.open(self._path(path), os.O_RDWR | os.O_CREAT | os.O_TRUNC, mode)

    def open(self, path: str, flags: int) -> int:
        return os.open(self._path(path), flags)

    def read(self, path: str, size: int, offset: int, fh: int) -> bytes:
        return os.pread(fh, size, offset)

    def write(self, path: str, data: bytes, offset: int, fh: int) -> int:
        self._maybe_fail("write")
        return os.pwrite(fh, data, offset)

    def truncate(self, path: str, length: int, fh: int | None = None) -> int:
        self._maybe_fail("write")
        if fh is not None:
            os.ftruncate(fh, length)
        else:
            os.truncate(self._path(path), length)
        return 0

    def flush(self, path: str, fh: int) -> int:
        return 0

    def fsync(self, path: str, datasync: int, fh: int) -> int:
        self._maybe_fail("fsync")
        if datasync:
            os.fdatasync(fh)
        else:
            os.fsync(fh)
        return 0

    def release(self, path: str, fh: int) -> int:
        os.close(fh)
        return 0


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print("usage: python -m pybroker.testing.faulty_fs SOURCE MOUNTPOINT CONTROL",
              file=sys.stderr)
        return 2
    source, mountpoint, control = (Path(a).resolve() for a in argv)
    fuse.FUSE(FaultyPassthrough(source, control), str(mountpoint), foreground=True,
              nothreads=True, allow_other=False, default_permissions=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
