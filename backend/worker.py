"""The compile worker: a child process that turns units (backend/native.py) into
object code.

Writing a unit's IR (Python) and compiling it (LLVM) both happen in the child,
so the parent process never needs llvmlite for them and its threads are not
held up by the GIL while a background compile runs.  llvmlite's pass pipeline
also keeps about 80 KB per compile that it never gives back, so the child is
replaced every ``RECYCLE`` compiles; and an LLVM abort kills the child, not
the user's process.  The parent starts the worker in the background on its
first compile and compiles in-process until the worker is ready, and
whenever it is not (died, being replaced, busy with a background compile
while a caller waits, or turned off with ``LAZYARRAY_COMPILE_WORKER=0``).

Protocol (binary, over the child's stdin/stdout): the child writes
``READY\\n`` once LLVM is initialised; a request is a 4-byte length and a
pickled ``(request id, builder, quick)``; a reply is a status byte (``0`` ok,
``1`` error), the request id (8 bytes), the seconds the compile took and a
4-byte length with the object code (or the error text).  A reply with another
request's id means the pipe is out of step: that worker is dropped.
"""
from __future__ import annotations

import itertools
import os
import pickle
import select
import struct
import subprocess
import sys
import threading
import time
from typing import Optional

RECYCLE = 1000
START_WAIT = 30.0  # seconds the background thread waits for a starting worker
_REPLY = struct.Struct("<BqdI")


def enabled() -> bool:
    return os.environ.get("LAZYARRAY_COMPILE_WORKER", "1").lower() not in ("0", "false", "off", "no")


class Worker:
    """One child process; ``compile`` is used by one thread at a time."""

    def __init__(self) -> None:
        # The child resolves imports the way this process does; it compiles what it is
        # sent and nothing else: no worker of its own, no preloading of building blocks.
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p),
                   LAZYARRAY_COMPILE_WORKER="0", LAZYARRAY_PRELOAD="0")
        self.proc = subprocess.Popen(
            [sys.executable, "-c", "from lazyarray.backend.worker import serve; serve()"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
        self.ready = False
        self.compiles = 0
        self._ids = itertools.count(1)

    def poll_ready(self) -> bool:
        """True once the child said READY (never blocks)."""
        if self.ready:
            return True
        if self.proc.poll() is not None:
            return False
        r, _, _ = select.select([self.proc.stdout], [], [], 0)
        if r:
            self.ready = self.proc.stdout.readline() == b"READY\n"
        return self.ready

    def compile(self, builder: tuple, quick: bool) -> tuple:
        """(object code, seconds); raises RuntimeError if the worker fails."""
        rid = next(self._ids)
        data = pickle.dumps((rid, builder, quick), protocol=pickle.HIGHEST_PROTOCOL)
        try:
            self.proc.stdin.write(struct.pack("<I", len(data)) + data)
            self.proc.stdin.flush()
            status, got, seconds, n = _REPLY.unpack(_read(self.proc.stdout, _REPLY.size))
            payload = _read(self.proc.stdout, n)
        except (OSError, EOFError, struct.error) as e:
            raise RuntimeError(f"compile worker failed: {e}") from None
        if got != rid:
            raise RuntimeError(f"compile worker answered request {got} to request {rid}")
        self.compiles += 1
        if status:
            raise ValueError(f"compile worker: {payload.decode(errors='replace')}")
        return payload, seconds

    def close(self) -> None:
        try:
            self.proc.stdin.close()
            self.proc.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()


def _read(f, n: int) -> bytes:
    chunks = []
    while n:
        c = f.read(n)
        if not c:
            raise EOFError("worker closed its output")
        chunks.append(c)
        n -= len(c)
    return b"".join(chunks)


class Pool:
    """Routes compiles to a ready worker; None when there is none (compile in-process)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()      # the worker's pipe: one request at a time
        self.state = threading.Lock()     # the fields below
        self.current: Optional[Worker] = None
        self.next: Optional[Worker] = None
        self.failures = 0

    def compile(self, builder: tuple, quick: bool, background: bool = False,
                stop=lambda: False) -> Optional[bytes]:
        """Object code from the worker, or None: the caller compiles in-process then.

        A caller that waits gets None when no worker is ready or it is busy: compiling
        here is quicker than waiting.  The background thread waits for a worker that
        is starting (up to ``START_WAIT`` seconds), so that this process need not load
        LLVM at all, and for a busy one (``stop()`` true: give up, the process exits)."""
        w = self._ready_worker()
        if w is None and background:
            deadline = time.monotonic() + START_WAIT
            while w is None and time.monotonic() < deadline and self.failures <= 3 \
                    and not stop():
                time.sleep(0.01)
                w = self._ready_worker()
        if w is None:
            return None
        busy_ok = background
        if not self.lock.acquire(blocking=busy_ok):
            return None
        try:
            return w.compile(builder, quick)[0]
        except RuntimeError:
            self._drop(w)
            return None
        finally:
            self.lock.release()

    def _ready_worker(self) -> Optional[Worker]:
        with self.state:
            if self.failures > 3:
                return None  # workers keep dying here: compile in-process from now on
            if self.current is None:
                self.current = Worker()
            if self.current.compiles >= RECYCLE and self.next is None:
                self.next = Worker()
            if self.next is not None and self.next.poll_ready():
                old, self.current, self.next = self.current, self.next, None
                old.close()
            if self.current.poll_ready():
                return self.current
            if self.current.proc.poll() is not None:  # died before it was ready
                self.failures += 1
                self.current = None
            return None

    def _drop(self, w: Worker) -> None:
        with self.state:
            self.failures += 1
            if self.current is w:
                self.current = None
        w.close()

    def close(self) -> None:
        with self.state:
            for w in (self.current, self.next):
                if w is not None:
                    w.close()
            self.current = self.next = None


_pool: Optional[Pool] = None
_pool_lock = threading.Lock()


def pool() -> Optional[Pool]:
    """The process's worker pool (None when turned off); starts no process by itself."""
    global _pool
    if not enabled():
        return None
    if _pool is None:
        with _pool_lock:
            if _pool is None:
                import atexit
                _pool = Pool()
                atexit.register(_pool.close)
    return _pool


def _after_fork_in_child() -> None:
    """The workers' pipes belong to the parent: a forked child starts its own."""
    global _pool, _pool_lock
    _pool, _pool_lock = None, threading.Lock()


os.register_at_fork(after_in_child=_after_fork_in_child)


def serve() -> None:
    """The child's loop: compile each request until stdin closes."""
    os.environ["LAZYARRAY_COMPILE_WORKER"] = "0"  # never a worker of its own
    from .llvm import Codegen
    gen = Codegen()
    gen.own_options()
    out = sys.stdout.buffer
    src = sys.stdin.buffer
    out.write(b"READY\n")
    out.flush()
    while True:
        try:
            n, = struct.unpack("<I", _read(src, 4))
            rid, builder, quick = pickle.loads(_read(src, n))
        except EOFError:
            return
        try:
            t0 = time.perf_counter()
            obj = gen.compile_unit(builder, quick)
            out.write(_REPLY.pack(0, rid, time.perf_counter() - t0, len(obj)) + obj)
        except Exception as e:  # the parent gets the message and compiles in-process
            msg = f"{type(e).__name__}: {e}".encode()
            out.write(_REPLY.pack(1, rid, 0.0, len(msg)) + msg)
        out.flush()
