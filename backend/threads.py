"""The rule for splitting a kernel into chunks, and the Python thread pool that runs
them where the native pool (backend/parallel.py) is not available.

A large kernel runs as chunks of its outermost output axis (each chunk writes
its own part of the output), or, for a full reduction, of its outermost
reduced axis (each chunk writes a partial result; the partials are then
combined in chunk order, so a given thread count always gives the same bits).
Chunks are the same compiled kernel run on a copy of the meta array with a
smaller size and shifted offsets; the GIL is released while they run.
``LAZYARRAY_NUM_THREADS`` sets the thread count (default: the CPUs this
process may run on); 1 turns threading off.

``SerialWorker`` is the one background thread used elsewhere (disk-cache
writes, tiered-compilation upgrades).
"""
from __future__ import annotations

import atexit
import os
import queue
import sys
import threading
import time
from typing import Optional

# Iterations per chunk, by how much a kernel does per iteration: below these a second
# thread costs more than it saves.  Two tables: chunks handed to the native pool
# (backend/parallel.py, well under a microsecond a hand-off) and to the Python pool below
# (tens of microseconds).  Kinds: "math" calls vector math (sin, exp, pow, ...); "light"
# is plain arithmetic writing an array (scans included); "reduce" is plain arithmetic
# reduced along an axis, and matrix-vector products (they stream memory, which one
# thread nearly keeps up with); "matmul" a matrix product (one vectorised FMA an
# iteration); "partial" the least for a full reduction, whose chunks write partial
# results that Python combines (about 12 us of Python a run).
# Native, measured on 2 cores (one thread -> two, microseconds): sin of 2^12 doubles
# 3.1 -> 2.4, x*2+1 of 2^14 3.9 -> 3.6, sum(x, axis=1) of 2^14 1.8 -> 1.3, A @ x of
# 2^15 3.9 -> 3.2 (2^20: 277 -> 147), 64x64 matmul 7.1 -> 5.2, sum(x*x) of 2^18 37 -> 24
# (2^16: 4 -> 17, the Python part), sum(sin(x)) of 2^16 40 -> 37.
NATIVE_MIN = {"math": 1 << 11, "light": 1 << 13, "reduce": 1 << 13, "matmul": 1 << 15,
              "partial": {"math": 1 << 15, "other": 1 << 17}}
# Python pool, measured on 2 cores: a plain sum of 300,000 doubles took 80 us on one
# thread and 180 us on two; with sin, 1,000,000 took 1.1 ms and 0.74 ms.
PYTHON_MIN = {"math": 1 << 17, "light": 1 << 18, "reduce": 1 << 20, "matmul": 1 << 22,
              "partial": {"math": 1 << 17, "other": 1 << 20}}
# The most iterations of one chunk of a long kernel: it runs as rounds of chunks (one a
# thread, or one chunk a round on one thread) and Python, between rounds, runs a pending
# signal handler, so Ctrl-C's KeyboardInterrupt waits for one round at the most, not for
# the kernel (issue 15, item 9).  Sized for interpreted kernels, which are slower per
# iteration: a row sum of broadcast products took 1.7 s a round of 2^27-iteration chunks
# interpreted (2 cores, load 6) against 0.24 s compiled; a round costs the Python pool
# tens of microseconds and the native pool a few, against milliseconds of work.  A
# matrix product's chunks are rows, and each chunk packs all of B once per block of rows
# of A (mc: 1008 with AVX-512, 4080 with AVX2, backend/tiling.py): 3 * 2^31 iterations
# are 176 rows of a 6000^3 product (~0.3 s; both tiers run it on the GEMM routine, see
# runtime.GEMM_WAIT).
SLICE = {"math": 1 << 22, "light": 1 << 24, "reduce": 1 << 24, "matmul": 3 << 31}
# A kernel of a program of several kernels splits from OFF_DOOR times the least above:
# a split runs the program as Python-driven steps, not one native call through its front
# door (about 10 us a run: a 64x64 two-layer MLP took 25 us whole on one thread and 35 us
# with its two products split, with or without a worker taking chunks).  A split must
# save more than that: a 64x64 product saves 2 us, a 128^3 one about 20.
OFF_DOOR = 32
# The fewest iterations any kernel splits from (see _chunks in runtime.py).
LEAST = min(min(t[k] for k in ("math", "light", "reduce", "matmul")) for t in (NATIVE_MIN, PYTHON_MIN))
# Chunk starts are multiples of this: each element then takes the same path (vector body or
# scalar tail, whose libm results may differ in the last bit) as in a single-thread run.
ALIGN = 64


# os.environ's own mapping of encoded names (POSIX: bytes -> bytes): reading a name that is
# not set through os.environ.get raises and catches a KeyError inside, about 1.7 us, and a
# new program reads several switches (tier, threads); this lookup costs under 0.1 us.
_ENV_DATA = getattr(os.environ, "_data", None)
_FAST_ENV = os.name == "posix" and isinstance(_ENV_DATA, dict)


def env(name: str, default: str = "") -> str:
    """``os.environ.get(name, default)``, read the cheap way where that is possible (the
    environment is read on every call: tests and users may change it at any time)."""
    if _FAST_ENV:
        raw = _ENV_DATA.get(name.encode())
        return default if raw is None else os.fsdecode(raw)
    return os.environ.get(name, default)


def none_set(names: tuple) -> bool:
    """Whether none of the environment variables ``names`` is set (the commonest
    answer, read in one cheap look per name where ``env`` has its cheap way)."""
    if _FAST_ENV:
        encoded = _ENCODED.get(names)
        if encoded is None:
            encoded = _ENCODED[names] = tuple(n.encode() for n in names)
        for n in encoded:
            if _ENV_DATA.get(n) is not None:
                return False
        return True
    return all(n not in os.environ for n in names)


_ENCODED: dict = {}  # names -> their bytes (none_set's callers pass a few constant tuples)


def switched_off(name: str) -> bool:
    """Whether switch ``name`` is set to turn something off (0, false, no, off)."""
    return env(name).strip().lower() in ("0", "false", "no", "off")


def num_threads() -> int:
    """Threads a kernel may use: ``LAZYARRAY_NUM_THREADS`` or the usable CPU count."""
    raw = env("LAZYARRAY_NUM_THREADS").strip()
    if raw:
        try:
            n = int(raw)
        except ValueError:
            raise ValueError(f"LAZYARRAY_NUM_THREADS must be a positive integer, got {raw!r}") \
                from None
        if n < 1:
            raise ValueError(f"LAZYARRAY_NUM_THREADS must be a positive integer, got {raw!r}")
        return n
    global _cpus
    if _cpus is None:
        try:
            _cpus = len(os.sched_getaffinity(0))
        except AttributeError:  # not on Linux
            _cpus = os.cpu_count() or 1
    return _cpus


_cpus = None  # the CPUs this process may use, read once (a system call each time otherwise)


def chunk_count(iterations: int, axis_size: int, threads: int, least: int) -> int:
    """How many chunks a kernel of ``iterations`` split along an axis of ``axis_size`` gets,
    each of at least ``least`` iterations."""
    return max(1, min(threads, axis_size, iterations // least))


def bounds(size: int, chunks: int, align: int = ALIGN) -> list:
    """(start, length) of each chunk of an axis of ``size``: as even as possible with
    every start but the first a multiple of ``align``."""
    edges = sorted({0, size} | {size * c // chunks // align * align for c in range(1, chunks)})
    return [(a, b - a) for a, b in zip(edges, edges[1:])]


_pool = None
_pool_lock = threading.Lock()


def run(calls: list) -> list:
    """Results of the zero-argument ``calls``: the first here, the rest on the pool."""
    global _pool
    if len(calls) == 1:
        return [calls[0]()]
    if _pool is None:
        from concurrent.futures import ThreadPoolExecutor  # rarely needed: imported then
        with _pool_lock:
            if _pool is None:
                _pool = ThreadPoolExecutor(max(1, num_threads() - 1),
                                           thread_name_prefix="lazyarray-kernel")
    gate = _Gate()
    futures: list = []
    try:
        for c in calls[1:]:
            futures.append(_pool.submit(gate.call, c))
        first = calls[0]()
        return [first] + [f.result() for f in futures]
    except BaseException:
        # an interrupt (or an error) here: the caller frees the buffers these chunks
        # write into as soon as this returns, so none may still be running, and none may
        # start later (the gate, not the futures: an interrupt between a submit and its
        # append leaves a future nobody holds)
        gate.close()
        raise


class _Gate:
    """Lets the chunks of one run start until it is closed; ``close`` then waits for the
    ones started, through any further KeyboardInterrupt (re-raised once they are done: a
    second Ctrl-C must not let a chunk write into freed memory either)."""

    __slots__ = ("cond", "closed", "running")

    def __init__(self) -> None:
        self.cond = threading.Condition(threading.Lock())
        self.closed = False
        self.running = 0

    def call(self, fn):
        with self.cond:
            if self.closed:
                return None  # the run is over: its buffers may be gone
            self.running += 1
        try:
            return fn()
        finally:
            with self.cond:
                self.running -= 1
                self.cond.notify_all()

    def close(self) -> None:
        again = None
        while True:
            try:
                with self.cond:
                    self.closed = True
                    while self.running:
                        self.cond.wait()
                break
            except KeyboardInterrupt as e:
                again = e
        if again is not None:
            raise again


def _after_fork_in_child() -> None:
    """A forked child has none of its parent's pool threads: start afresh."""
    global _pool, _pool_lock, _cpus
    _pool, _pool_lock, _cpus = None, threading.Lock(), None


os.register_at_fork(after_in_child=_after_fork_in_child)


def _llvmlite_lock():
    """llvmlite's lock around every LLVM call, when its binding layer is loaded (by us or
    by anyone: numba, say); None otherwise (it is never imported for this)."""
    ffi = sys.modules.get("llvmlite.binding.ffi")
    return getattr(getattr(getattr(ffi, "lib", None), "_lock", None), "_lock", None)


_llvmlite_held: list = []
# backend/llvm.py's creation lock of the code generator, made here, at the backend's first
# import: fork() must take it even while another thread is importing that module (whose
# own fork handler would be registered too late for that fork): the creating thread holds
# it while LLVM starts, and a child that inherited it held waited for ever at its first
# compile (tests/repeat_faults.py fork-while-compiling, 1 hang in 200 at a2b3961).
CODEGEN_LOCK = threading.Lock()


IMPORT_WAIT = 10.0  # seconds fork() waits for one of lazyarray's threads to finish an import


def _our_imports() -> bool:
    """Whether one of lazyarray's own threads (named ``lazyarray-*``) is importing a
    module now: it holds that module's import lock (importlib's per-module lock)."""
    bootstrap = sys.modules.get("importlib._bootstrap") or sys.modules.get("_frozen_importlib")
    locks = getattr(bootstrap, "_module_locks", None)
    if not locks:
        return False
    me = threading.current_thread()
    ours = {t.ident for t in threading.enumerate()
            if t is not me and t.name.startswith("lazyarray")}
    if not ours:
        return False
    try:
        held = [ref() for ref in list(locks.values())]
    except RuntimeError:  # changed while copied: ask again
        return True
    return any(lock is not None and getattr(lock, "count", 0)
               and getattr(lock, "owner", None) in ours for lock in held)


def wait_for_imports(limit: float = IMPORT_WAIT) -> None:
    """Wait (``limit`` seconds at most) while one of lazyarray's threads imports a
    module.  For fork(): the child inherits the module's import lock held by a thread it
    does not have, and its first import of that module waits for ever (a child forked
    right after ``import lazyarray`` hung 40 of 40 times on the preload thread's import
    of backend/loader.py).  Every thread of ours imports lazily (the compile thread its
    worker module, a new machine's sequencer thread LLVM's modules): one rule here covers
    them all, whichever import it is."""
    end = time.monotonic() + limit
    while _our_imports() and time.monotonic() < end:
        time.sleep(0.0005)


def _before_fork() -> None:
    # fork() waits for what another thread of ours is doing that would leave the child a
    # lock held for good: an import (wait_for_imports) and an LLVM call (_take_llvm_locks).
    # The imports are looked at again once the LLVM locks are held: a thread those locks
    # let through may import next (the sequencer thread imports its IR module right after
    # starting the code generator: 9 of 20 children forked then hung without this).
    end = time.monotonic() + IMPORT_WAIT
    while True:
        wait_for_imports(max(0.0, end - time.monotonic()))
        _take_llvm_locks()
        if not _our_imports() or time.monotonic() >= end:
            return
        _after_fork()  # let it finish its import, then take them again


def _take_llvm_locks() -> None:
    # Waits for an LLVM call under way on another thread: the child's copy of a lock
    # would otherwise stay held and its first compile wait for ever.  The locks in the
    # order they nest: the code generator's creation, its own two locks when it exists
    # (backend/llvm.py), llvmlite's around every LLVM call.  Registered at the backend's
    # first import, so it runs whether or not backend/llvm.py was loaded (a warm cache
    # runs without LLVM).
    CODEGEN_LOCK.acquire()
    _llvmlite_held.append(CODEGEN_LOCK)
    llvm_module = sys.modules.get(f"{__package__}.llvm")
    gen = getattr(llvm_module, "_codegen", None)
    locks = [gen._pipeline_lock, gen.lock] if gen is not None else []
    lock = _llvmlite_lock()
    for lock in locks + ([lock] if lock is not None else []):
        lock.acquire()
        _llvmlite_held.append(lock)


def _after_fork() -> None:
    while _llvmlite_held:
        _llvmlite_held.pop().release()


os.register_at_fork(before=_before_fork, after_in_parent=_after_fork, after_in_child=_after_fork)


def renew_locks_at_fork(namespace: dict, *names: str) -> None:
    """In a forked child, a new ``threading.Lock`` for each module-level lock ``names``
    of ``namespace`` (a module's ``globals()``): the child has only the thread that
    forked, so a lock another thread held at fork() would stay held for good."""
    def renew() -> None:
        for name in names:
            namespace[name] = threading.Lock()
    os.register_at_fork(after_in_child=renew)


_FLUSHED = object()  # a queued marker: the calls before it are done


class SerialWorker:
    """One daemon thread running submitted calls in order, started on first use, and
    afresh in a forked child (which inherits none of its parent's threads).

    The calls do optional work (a cache write, a code upgrade): one that raises is
    dropped and the thread carries on.  At exit, ``at_exit="flush"`` runs what is
    queued; ``"stop"`` drops it and waits only for the call under way.
    """

    def __init__(self, name: str, at_exit: str) -> None:
        self.name, self.at_exit = name, at_exit
        self._reset()
        os.register_at_fork(after_in_child=self._reset)

    def _reset(self) -> None:
        # A SimpleQueue's put is one C call: a KeyboardInterrupt cannot land while it holds
        # a lock, as it could in queue.Queue.put (its Condition) or in a ``with`` block
        # around it; the main thread submits often (every cache write), and an interrupt
        # there left a lock held for good: every later submit waited (tests/repeat_faults.py
        # native-pool-interrupt, 1 hang in 200 at f6d330c).
        self.queue: queue.SimpleQueue = queue.SimpleQueue()
        self.lock = threading.Lock()  # only to start the thread
        self.thread: Optional[threading.Thread] = None
        self.stopping = False

    def submit(self, fn, *args) -> None:
        """Queue ``fn(*args)`` (dropped once stopping)."""
        if self.stopping:
            return
        if self.thread is None:
            self.start()
        self.queue.put((fn, args))

    def start(self) -> None:
        """Start the thread now, if it is not running (``submit`` starts it otherwise:
        ``Thread.start`` waits for the new thread to run, 0.1-0.4 ms that a caller of
        ``submit`` would pay)."""
        with self.lock:
            if self.thread is None and not self.stopping:
                thread = threading.Thread(target=self._run, name=self.name, daemon=True)
                thread.start()
                atexit.register(self.flush if self.at_exit == "flush" else self.stop)
                self.thread = thread

    def _run(self) -> None:
        while True:
            item = self.queue.get()
            if item is None:
                return
            if item[0] is _FLUSHED:
                item[1][0].set()
            elif not self.stopping:
                try:
                    item[0](*item[1])
                except Exception:  # noqa: BLE001 - optional work (see the class doc)
                    pass

    def flush(self) -> None:
        """Wait until every call submitted so far is done."""
        thread = self.thread
        if thread is None or not thread.is_alive():
            return
        done = threading.Event()
        self.queue.put((_FLUSHED, (done,)))
        while not done.wait(0.1):
            if not thread.is_alive():  # stopped meanwhile: nothing runs any more
                return

    def stop(self) -> None:
        """Drop queued calls and wait for the one under way (it may be inside LLVM,
        which must not run while the interpreter shuts down)."""
        with self.lock:
            self.stopping = True
            thread = self.thread
        if thread is not None:
            self.queue.put(None)
            thread.join(timeout=30)
