"""The persistent cache of compiled object code, so a new process does not
compile a program it has seen before.

Location: ``$LAZYARRAY_CACHE_DIR``, else ``$XDG_CACHE_HOME/lazyarray``, else
``~/.cache/lazyarray``; ``LAZYARRAY_DISK_CACHE=0`` turns it off.  An entry is
keyed by a unit's name (backend/native.py) and a fingerprint of all that
changes the generated code (``native.fingerprint``: the backend's source
files by time and size, the installed llvmlite, the CPU, the C library).  A file is
a magic tag, the CRC-32 of the object code and the object code; it is written
to a temporary file and renamed into place, so readers never see half a file,
and a truncated, corrupt or foreign file is ignored (and replaced).
Writes happen on a background thread (a first call does not wait for the
disk); the process waits for pending writes when it exits.
"""
from __future__ import annotations

import itertools
import os
import stat
import threading
import zlib
from typing import Optional

from . import threads
from .names import digest

MAGIC = b"LZYOBJ2\n"  # then the CRC-32 of the object code (4 bytes), then the object code


class DiskCache:
    """Object files in one folder, named by the hash of key and fingerprint.  (Paths are
    strings: importing pathlib cost a new process 3-4 ms, a fifth of its import.)"""

    def __init__(self, directory: str, fingerprint: str) -> None:
        self.directory = directory
        self.fingerprint = fingerprint

    def _path(self, key: str) -> str:
        name = digest((self.fingerprint + key).encode())
        return os.path.join(self.directory, name[:2], name[2:] + ".o")

    def load(self, key: str) -> Optional[bytes]:
        """The object code stored for ``key``, or None if absent or invalid (anything but
        a regular file is ignored: reading a named pipe put there would block)."""
        try:
            fd = os.open(self._path(key), os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        except OSError:
            return None
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                return None
            with os.fdopen(fd, "rb", closefd=False) as f:
                data = f.read()
        except OSError:
            return None
        finally:
            os.close(fd)
        head = len(MAGIC) + 4
        if len(data) < head or not data.startswith(MAGIC):
            return None
        obj = data[head:]
        if zlib.crc32(obj).to_bytes(4, "little") != data[len(MAGIC):head]:
            return None
        return obj

    def store_later(self, key: str, obj: bytes) -> None:
        """``store`` on the background writer."""
        _WRITER.submit(self.store, key, obj)

    def store(self, key: str, obj: bytes) -> None:
        """Write ``obj`` for ``key`` atomically; a failure only means no cache entry."""
        path = self._path(key)
        try:
            folder = os.path.dirname(path)
            os.makedirs(folder, exist_ok=True)
            fd, tmp = _temporary(folder)
            try:
                with os.fdopen(fd, "wb") as f:
                    f.write(MAGIC + zlib.crc32(obj).to_bytes(4, "little") + obj)
                os.replace(tmp, path)
            except BaseException:
                os.unlink(tmp)
                raise
        except OSError:
            pass

    def discard(self, key: str) -> None:
        try:
            os.unlink(self._path(key))
        except OSError:
            pass


_serial = itertools.count()


def _temporary(folder: str) -> tuple:
    """(fd, path) of a new file in ``folder`` that no other writer uses (process, thread
    and a counter in its name; created exclusively, readable by the owner only, as
    ``tempfile.mkstemp`` makes them).  Not tempfile itself: importing it on the writer's
    thread could leave a process forked meanwhile with the module locked for good (and
    it pulls in shutil and random: 4-5 ms of a new process's first load)."""
    while True:
        tmp = os.path.join(folder, f".tmp-{os.getpid()}-{threading.get_ident()}-{next(_serial)}")
        try:
            return os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), tmp
        except FileExistsError:  # left by a process that had this pid before
            continue


_WRITER = threads.SerialWorker("lazyarray-disk-cache", at_exit="flush")
flush = _WRITER.flush


def directory() -> Optional[str]:
    """The cache folder from the environment, or None when the cache is off."""
    if os.environ.get("LAZYARRAY_DISK_CACHE", "1").lower() in ("0", "false", "no", "off"):
        return None
    if os.environ.get("LAZYARRAY_CACHE_DIR"):
        return os.environ["LAZYARRAY_CACHE_DIR"]
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "lazyarray")
