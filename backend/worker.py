"""The compile worker: a child process that turns units (backend/native.py) into
object code.

Writing a unit's IR (Python) and compiling it (LLVM) both happen in the child,
so the parent process never needs llvmlite for them and its threads are not
held up by the GIL while a background compile runs.  llvmlite's pass pipeline
also keeps about 80 KB per compile that it never gives back, so the child is
replaced every ``RECYCLE`` compiles; and an LLVM abort kills the child, not
the user's process.  The parent starts the worker on its first background
compile, or ``START_DELAY`` seconds after the first compile a caller waited
for.  A compile a caller waits for runs in-process whenever the worker is not
ready at once (not started, starting, being replaced, busy with a background
compile); a background compile always waits for a worker (an in-process LLVM
call cannot be abandoned at exit), unless workers keep dying or are turned
off with ``LAZYARRAY_COMPILE_WORKER=0``.

Protocol (binary, over the child's stdin/stdout): the child writes
``READY\\n`` once LLVM is initialised; a request is a 4-byte length and a
pickled ``(request id, builder, quick)``; a reply is a status byte (``0`` ok,
``1`` error), the request id (8 bytes), the seconds the compile took and a
4-byte length with the object code (or the error text).  A reply with another
request's id means the pipe is out of step: that worker is dropped.

A request is all or nothing: an exception in the middle of one (a
``KeyboardInterrupt`` while the reply is read, a broken pipe) kills the child at
once, since its reply would otherwise be read by the next request; a child that
has not answered within ``LAZYARRAY_COMPILE_TIMEOUT`` seconds (default 60; the
bundle takes about 10) is taken to be stuck (stopped, swapping) and killed too.
Either way a caller's compile is then done in-process, a background one in
a new child.
"""
from __future__ import annotations

import contextlib
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
# Seconds after a caller's compile (with no worker) before a worker starts (see
# Pool.compile): a starting worker (a Python process importing LLVM) takes the second core
# from the compiles of a new machine's first evaluation (medians of 140 ms with one
# starting beside it, 111 ms without: benchmarks/README.md).
START_DELAY = 0.25
DEFAULT_TIMEOUT = 60.0  # seconds a request may take before its worker is abandoned
READY = b"READY\n"
_REPLY = struct.Struct("<BqdI")


def enabled() -> bool:
    return os.environ.get("LAZYARRAY_COMPILE_WORKER", "1").lower() not in ("0", "false", "off", "no")


def compile_timeout() -> float:
    """Seconds a worker may take to answer a request: ``LAZYARRAY_COMPILE_TIMEOUT``."""
    raw = os.environ.get("LAZYARRAY_COMPILE_TIMEOUT", "").strip()
    if not raw:
        return DEFAULT_TIMEOUT
    try:
        t = float(raw)
    except ValueError:
        t = float("nan")
    if not t > 0:  # NaN too
        raise ValueError(f"LAZYARRAY_COMPILE_TIMEOUT must be a positive number of seconds, "
                         f"got {raw!r}")
    return t


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
        # The pipes are read and written unbuffered, with deadlines: a write never blocks
        # (the child's end may be full) and a read never waits past the timeout.
        self._to, self._from = self.proc.stdin.fileno(), self.proc.stdout.fileno()
        os.set_blocking(self._to, False)
        self.ready = False
        self.killed = False  # by this process, on purpose: not a failure of the worker
        self.compiles = 0
        self._ids = itertools.count(1)

    def poll_ready(self) -> bool:
        """True once the child said READY (never blocks)."""
        if self.ready:
            return True
        if self.proc.poll() is not None:
            return False
        r, _, _ = select.select([self._from], [], [], 0)
        if r:
            try:
                said = _read(self._from, len(READY), time.monotonic() + 5.0)
            except (OSError, EOFError):
                said = b""
            except BaseException:
                self.kill()
                raise
            self.ready = said == READY
            if not self.ready:  # a failure of the worker, counted when its death is seen
                self.proc.kill()
        return self.ready

    def compile(self, builder: tuple, quick: bool, timeout: float = DEFAULT_TIMEOUT) -> tuple:
        """(object code, seconds); raises RuntimeError if the worker fails or does not
        answer within ``timeout`` seconds (it is killed then)."""
        rid = next(self._ids)
        data = pickle.dumps((rid, builder, quick), protocol=pickle.HIGHEST_PROTOCOL)
        deadline = time.monotonic() + timeout
        with self._all_or_kill():
            _write(self._to, struct.pack("<I", len(data)) + data, deadline)
            status, got, seconds, n = _REPLY.unpack(_read(self._from, _REPLY.size, deadline))
            payload = _read(self._from, n, deadline)
            if got != rid:
                raise EOFError(f"the worker answered request {got} to request {rid}")
        self.compiles += 1
        if status:
            raise ValueError(f"compile worker: {payload.decode(errors='replace')}")
        return payload, seconds

    @contextlib.contextmanager
    def _all_or_kill(self):
        """Kill the child on any exception inside (the pipe is out of step then: what
        it writes next would be read as the answer to another request); I/O failures
        become RuntimeError, anything else (KeyboardInterrupt) goes on as it is."""
        try:
            yield
        except BaseException as e:
            self.kill()
            if isinstance(e, (OSError, EOFError)):
                raise RuntimeError(f"compile worker failed: {e}") from None
            raise

    def kill(self) -> None:
        self.killed = True
        try:
            self.proc.kill()  # a stopped process dies of SIGKILL too
            self.proc.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            pass

    def close(self) -> None:
        try:
            self.proc.stdin.close()
            self.proc.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            self.kill()


def _wait(fd: int, write: bool, deadline: Optional[float]) -> None:
    """Until ``fd`` can be written (or read), or TimeoutError past ``deadline``."""
    if deadline is None:
        return
    left = deadline - time.monotonic()
    if left <= 0 or not any(select.select([] if write else [fd], [fd] if write else [], [], left)):
        raise TimeoutError("the compile worker did not answer in time (stopped or stuck)")


def _read(fd: int, n: int, deadline: Optional[float] = None) -> bytes:
    """Exactly ``n`` bytes from ``fd`` (EOFError if it closes, TimeoutError past
    ``deadline``; without one, as long as it takes)."""
    chunks = []
    while n:
        _wait(fd, False, deadline)
        c = os.read(fd, n)
        if not c:
            raise EOFError("worker closed its output")
        chunks.append(c)
        n -= len(c)
    return b"".join(chunks)


def _write(fd: int, data: bytes, deadline: float) -> None:
    """All of ``data`` to the non-blocking ``fd`` (TimeoutError past ``deadline``)."""
    view = memoryview(data)
    while view:
        try:
            view = view[os.write(fd, view):]
        except BlockingIOError:
            _wait(fd, True, deadline)


class Pool:
    """Routes compiles to a ready worker; None when there is none (compile in-process)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()      # the worker's pipe: one request at a time
        self.state = threading.Lock()     # the fields below
        self.current: Optional[Worker] = None
        self.next: Optional[Worker] = None
        self.failures = 0
        self.closed = False  # at exit: no worker starts after this
        self._timer: Optional[threading.Timer] = None

    def compile(self, builder: tuple, quick: bool, background: bool = False,
                stop=lambda: False) -> Optional[bytes]:
        """Object code from the worker, or None: the caller compiles in-process then.

        A caller that waits gets None when no worker is ready or it is busy: compiling
        here is quicker than waiting.  The background thread waits for a worker that
        is starting (up to ``START_WAIT`` seconds), so that this process need not load
        LLVM at all, and for a busy one (``stop()`` true: give up, the process exits)."""
        w = self._ready_worker(start=background)
        if w is None and not background:
            self._start_soon()
        if w is None and background:
            deadline = time.monotonic() + START_WAIT
            while w is None and time.monotonic() < deadline and self.usable() and not stop():
                time.sleep(0.01)
                w = self._ready_worker()
            if w is None and not stop():
                self._give_up_starting()
        if w is None or not self.lock.acquire(blocking=background):  # busy: a caller goes on
            return None
        try:
            # Picked again under the lock: the worker seen above may have been dropped
            # (closed) meanwhile by the thread that held the lock, and its pipes' numbers
            # given to the next worker, which would then take this request and answer it
            # to that worker's own first one ("answered request 2 to request 1").
            w = self._for_request()
            return None if w is None else self._request(w, builder, quick)
        finally:
            self.lock.release()

    def _for_request(self) -> Optional[Worker]:
        """The worker to send a request to (the caller holds ``lock``): the current one if
        it is ready, swapped for its replacement first if that is ready.  The swap is done
        here, where no request is in flight on the old worker, since closing it closes
        its pipes."""
        with self.state:
            if self.next is not None and self.next.poll_ready():
                old, self.current, self.next = self.current, self.next, None
                old.close()
            w = self.current
            return w if w is not None and w.ready and self.usable() else None

    def _request(self, w: Worker, builder: tuple, quick: bool) -> Optional[bytes]:
        try:
            return w.compile(builder, quick, compile_timeout())[0]
        except RuntimeError:  # died, stuck or out of step (killed): compile in-process
            self._drop(w, failed=True)
            return None
        except BaseException:
            if w.killed:  # interrupted mid-request (KeyboardInterrupt): the next starts anew
                self._drop(w, failed=False)
            raise

    def usable(self) -> bool:
        """False once workers have kept dying here (compiles run in-process from then on)
        or the pool is closed."""
        return self.failures <= 3 and not self.closed

    def _start_soon(self) -> None:
        """Start a worker ``START_DELAY`` seconds from now unless one runs by then."""
        with self.state:
            waiting = self._timer is not None and self._timer.is_alive()
            if self.current is not None or waiting or not self.usable():
                return
            self._timer = threading.Timer(START_DELAY, self._ready_worker)
            self._timer.daemon = True
            self._timer.start()

    def _ready_worker(self, start: bool = True) -> Optional[Worker]:
        """The current worker if it is ready; else None, having started one if none
        runs and ``start``."""
        with self.state:
            if not self.usable():
                return None  # workers keep dying here: compile in-process from now on
            if self.current is None:
                if not start:
                    return None
                self.current = Worker()
            if self.current.compiles >= RECYCLE and self.next is None:
                self.next = Worker()  # takes over once ready (see _for_request)
            if self.current.poll_ready():
                return self.current
            if self.current.proc.poll() is not None:  # died before it was ready
                self.failures += not self.current.killed
                self.current = None
            return None

    def _give_up_starting(self) -> None:
        """A worker not ready after ``START_WAIT`` seconds counts as failed (a stuck start
        must not keep the background thread waiting for good)."""
        with self.state:
            w = self.current
        if w is not None:
            self._drop(w, failed=True, starting=True)

    def _drop(self, w: Worker, failed: bool, starting: bool = False) -> None:
        """Stop using ``w``; its failure counts only for the thread that takes it out of
        ``current``: another thread that saw the same worker die counts nothing, or one
        death would use up two of the failures allowed (see ``usable``).  ``starting``:
        only if it is not ready yet, looked at under ``state`` with the drop (a worker
        that turned ready may have a request in flight)."""
        with self.state:
            if starting and w.ready:
                return
            if self.current is w:
                self.current = None
                self.failures += failed
        w.close()

    def close(self) -> None:
        """Stop the workers (at exit): killed, not asked to finish.  A worker still
        starting (Python, llvmlite and LLVM: about 1.3 s here) only reads its end of
        the pipe once ready, so a short process on a new machine waited that long at
        exit; a request still in flight is abandoned (a caller's compile then runs in
        this process, a background one is dropped, as it would be at exit anyway)."""
        with self.state:
            if self._timer is not None:
                self._timer.cancel()
            self.closed = True
            for w in (self.current, self.next):
                if w is not None:
                    w.kill()
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
    src = sys.stdin.fileno()
    out.write(READY)
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
