"""The persistent cache of compiled object code, so a new process does not
compile a program it has seen before.

Location: ``$LAZYARRAY_CACHE_DIR``, else ``$XDG_CACHE_HOME/lazyarray``, else
``~/.cache/lazyarray``; ``LAZYARRAY_DISK_CACHE=0`` turns it off.  An entry is
keyed by the native-code signature of a schedule and a fingerprint of all that
changes the generated code (the backend's sources, llvmlite and LLVM versions,
target triple, CPU name and features, the libmvec variants in use).  A file is
a magic tag, the SHA-256 of the object code and the object code; it is written
to a temporary file and renamed into place, so readers never see half a file,
and a truncated, corrupt or foreign file is ignored (and replaced).
Writes happen on a background thread (a first call does not wait for the
disk); the process waits for pending writes when it exits.
"""
from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path
from typing import Optional

from . import threads

MAGIC = b"LZYOBJ1\n"
_SOURCES = ("ir.py", "schedule.py", "codegen.py", "complexmath.py", "matmul.py", "abi.py",
            "llvm.py", "runtime.py")


class DiskCache:
    """Object files in one folder, named by the hash of key and fingerprint."""

    def __init__(self, directory: Path, fingerprint: str) -> None:
        self.directory = directory
        self.fingerprint = fingerprint

    def _path(self, key: str) -> Path:
        digest = hashlib.sha256((self.fingerprint + key).encode()).hexdigest()
        return self.directory / digest[:2] / (digest[2:] + ".o")

    def load(self, key: str) -> Optional[bytes]:
        """The object code stored for ``key``, or None if absent or invalid."""
        try:
            data = self._path(key).read_bytes()
        except OSError:
            return None
        head = len(MAGIC) + 32
        if len(data) < head or not data.startswith(MAGIC):
            return None
        obj = data[head:]
        if hashlib.sha256(obj).digest() != data[len(MAGIC):head]:
            return None
        return obj

    def store_later(self, key: str, obj: bytes) -> None:
        """``store`` on the background writer."""
        _WRITER.submit(self.store, key, obj)

    def store(self, key: str, obj: bytes) -> None:
        """Write ``obj`` for ``key`` atomically; a failure only means no cache entry."""
        path = self._path(key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
            try:
                with os.fdopen(fd, "wb") as f:
                    f.write(MAGIC + hashlib.sha256(obj).digest() + obj)
                os.replace(tmp, path)
            except BaseException:
                os.unlink(tmp)
                raise
        except OSError:
            pass

    def discard(self, key: str) -> None:
        try:
            self._path(key).unlink()
        except OSError:
            pass


_WRITER = threads.SerialWorker("lazyarray-disk-cache", at_exit="flush")
flush = _WRITER.flush


def directory() -> Optional[Path]:
    """The cache folder from the environment, or None when the cache is off."""
    if os.environ.get("LAZYARRAY_DISK_CACHE", "1").lower() in ("0", "false", "no", "off"):
        return None
    if os.environ.get("LAZYARRAY_CACHE_DIR"):
        return Path(os.environ["LAZYARRAY_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "lazyarray"


def fingerprint(*parts: str) -> str:
    """A hash of the backend's sources and the given target description."""
    h = hashlib.sha256()
    here = Path(__file__).parent
    for name in _SOURCES:
        h.update((here / name).read_bytes())
    for p in parts:
        h.update(p.encode())
        h.update(b"\0")
    return h.hexdigest()
