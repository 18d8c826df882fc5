"""Native fork-join for chunked kernels: worker threads that never enter Python.

Handing a chunk to a Python thread (a queue, a condition variable, the GIL
taken back at the end) costs tens of microseconds here, so only kernels of
milliseconds were worth splitting.  These workers are plain threads running
generated code: each waits on a mailbox (one cache line), spinning for about
``SPIN_TICKS`` time-stamp-counter ticks after its last chunk and then sleeping
on a futex.  ``run_chunks`` posts chunk 1.. to the workers, runs chunk 0 itself,
then takes back every chunk no worker has started (a sleeping worker never
delays a run: its chunk runs on the caller's thread) and waits for the ones
started.  A hand-off to a spinning worker costs well under a microsecond.

Mailbox states: IDLE -> POSTED (the caller wrote a chunk) -> TAKEN (a worker
claimed it with a compare-and-swap; a failed claim means the caller took it
back) -> DONE (its return code is written) -> IDLE (the caller read it).  Only
the state word is shared without ordering: a worker reads the chunk's fields
after its successful claim (acquire), the caller reads the return code after
seeing DONE (acquire).  One caller at a time owns the pool (a ``busy`` word);
another thread that finds it busy runs its chunks one after another itself.

Linux on x86-64 only (futex through ``syscall``, the ``pause`` instruction);
elsewhere ``pool()`` is None and backend/threads.py's Python pool is used.
"""
from __future__ import annotations

import atexit
import ctypes
import os
import re
import sys
import threading
import time
from typing import Optional

from . import threads

SPIN_TICKS = 200_000      # ~80 us at 2.5 GHz: back-to-back calls find the worker awake
_LINE = 64
_STATE, _SLEEPING, _FN, _HEAD, _META, _SCAL, _ERR, _RC = 0, 4, 8, 16, 24, 32, 40, 48
_ALLOWED = 8              # in the pool's first line, after its busy word: see Pool.monitor
ALLOWED_OFFSET = _ALLOWED  # (backend/dispatch.py's front door reads it too)
_IDLE, _POSTED, _TAKEN, _DONE, _STOP = range(5)
_SYS_FUTEX, _WAIT, _WAKE = 202, 128, 129   # x86-64; FUTEX_*_PRIVATE
ERR_BYTES = 32            # an entry function's error record: 4 x int64

RUN_TYPE = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_void_p, ctypes.c_int64, ctypes.c_void_p,
                            ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
                            ctypes.c_int64)
_STOP_TYPE = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int64)


def supported() -> bool:
    return _SUPPORTED


_SUPPORTED = sys.platform.startswith("linux") and os.uname().machine == "x86_64"


_IR = """
declare i64 @syscall(i64, ...)
declare i32 @sched_yield()
declare i64 @llvm.readcyclecounter()

declare void @llvm.x86.sse2.pause()

define internal void @pause() {
  call void @llvm.x86.sse2.pause()
  ret void
}

; the chunk in mailbox %box: run it, publish its return code
define internal void @run_box(ptr %box) {
  %pf = getelementptr i8, ptr %box, i64 FN
  %fn = load ptr, ptr %pf
  %ph = getelementptr i8, ptr %box, i64 HEAD
  %head = load ptr, ptr %ph
  %pm = getelementptr i8, ptr %box, i64 META
  %meta = load ptr, ptr %pm
  %ps = getelementptr i8, ptr %box, i64 SCAL
  %scal = load ptr, ptr %ps
  %pe = getelementptr i8, ptr %box, i64 ERR
  %err = load ptr, ptr %pe
  %rc = call i32 %fn(ptr %head, ptr %meta, ptr %scal, ptr %err)
  %pr = getelementptr i8, ptr %box, i64 RC
  store i32 %rc, ptr %pr
  ret void
}

define ptr @lazyarray_worker(ptr %box) {
entry:
  %slp = getelementptr i8, ptr %box, i64 SLEEPING
  br label %top
top:
  %t0 = call i64 @llvm.readcyclecounter()
  br label %spin
spin:
  %st = load atomic i32, ptr %box acquire, align 4
  %posted = icmp eq i32 %st, POSTED
  br i1 %posted, label %take, label %other
other:
  %stop = icmp eq i32 %st, STOP
  br i1 %stop, label %exit, label %wait
wait:
  %t = call i64 @llvm.readcyclecounter()
  %dt = sub i64 %t, %t0
  %more = icmp ult i64 %dt, SPIN
  br i1 %more, label %relax, label %sleep
relax:
  call void @pause()
  br label %spin
sleep:
  store atomic i32 1, ptr %slp seq_cst, align 4
  %st2 = load atomic i32, ptr %box seq_cst, align 4
  %p2 = icmp eq i32 %st2, POSTED
  %s2 = icmp eq i32 %st2, STOP
  %wake = or i1 %p2, %s2
  br i1 %wake, label %awake, label %nap
nap:
  %v = zext i32 %st2 to i64
  %r = call i64 (i64, ...) @syscall(i64 FUTEX, ptr %box, i64 WAIT, i64 %v, ptr null)
  br label %awake
awake:
  store atomic i32 0, ptr %slp seq_cst, align 4
  br label %top
take:
  %pair = cmpxchg ptr %box, i32 POSTED, i32 TAKEN acq_rel acquire
  %ok = extractvalue { i32, i1 } %pair, 1
  br i1 %ok, label %run, label %top
run:
  call void @run_box(ptr %box)
  store atomic i32 DONE, ptr %box release, align 4
  br label %top
exit:
  ret ptr null
}

; write chunk %c into mailbox %box
define internal void @fill(ptr %box, ptr %fn, ptr %heads, ptr %metas, ptr %scal, ptr %errs, i64 %c) {
  %ph = getelementptr ptr, ptr %heads, i64 %c
  %head = load ptr, ptr %ph
  %pm = getelementptr ptr, ptr %metas, i64 %c
  %meta = load ptr, ptr %pm
  %eo = mul i64 %c, ERRB
  %err = getelementptr i8, ptr %errs, i64 %eo
  %f1 = getelementptr i8, ptr %box, i64 FN
  store ptr %fn, ptr %f1
  %f2 = getelementptr i8, ptr %box, i64 HEAD
  store ptr %head, ptr %f2
  %f3 = getelementptr i8, ptr %box, i64 META
  store ptr %meta, ptr %f3
  %f4 = getelementptr i8, ptr %box, i64 SCAL
  store ptr %scal, ptr %f4
  %f5 = getelementptr i8, ptr %box, i64 ERR
  store ptr %err, ptr %f5
  ret void
}

; chunk %c run here (through a mailbox on the stack): its return code into %rcs[c]
define internal void @run_here(ptr %fn, ptr %heads, ptr %metas, ptr %scal, ptr %errs, ptr %rcs, i64 %c) {
  %box = alloca [LINE x i8], align LINE
  call void @fill(ptr %box, ptr %fn, ptr %heads, ptr %metas, ptr %scal, ptr %errs, i64 %c)
  call void @run_box(ptr %box)
  %pr = getelementptr i8, ptr %box, i64 RC
  %rc = load i32, ptr %pr
  %dst = getelementptr i32, ptr %rcs, i64 %c
  store i32 %rc, ptr %dst
  ret void
}

define internal ptr @box_of(ptr %pool, i64 %w) {
  %o = mul i64 %w, LINE
  %o1 = add i64 %o, LINE
  %b = getelementptr i8, ptr %pool, i64 %o1
  ret ptr %b
}

; Runs chunks 0..n-1 of fn (heads[c], metas[c], scal, errs + c * ERRB); returns 0, or
; 1 + the first chunk (in chunk order) whose return code is not 0.
define i64 @lazyarray_run_chunks(ptr %pool, i64 %nw, ptr %fn, ptr %heads, ptr %metas,
                                 ptr %scal, ptr %errs, i64 %n) {
entry:
  %rcs = alloca i32, i64 %n
  %i = alloca i64
  %posted = alloca i64
  store i64 0, ptr %posted
  ; the workers the machine has room for now (see Pool.monitor), at most %nw
  %pa = getelementptr i8, ptr %pool, i64 ALLOWED
  %al = load atomic i64, ptr %pa monotonic, align 8
  %fewer = icmp slt i64 %al, %nw
  %nwe = select i1 %fewer, i64 %al, i64 %nw
  %few = icmp sle i64 %n, 1
  %none = icmp sle i64 %nwe, 0
  %alone = or i1 %few, %none
  br i1 %alone, label %serial, label %claim
claim:
  %bp = cmpxchg ptr %pool, i32 0, i32 1 acquire monotonic
  %got = extractvalue { i32, i1 } %bp, 1
  br i1 %got, label %post_init, label %serial
post_init:
  %n1 = sub i64 %n, 1
  %lt = icmp slt i64 %n1, %nwe
  %np = select i1 %lt, i64 %n1, i64 %nwe
  store i64 %np, ptr %posted
  store i64 0, ptr %i
  br label %post_loop
post_loop:
  %w = load i64, ptr %i
  %pdone = icmp sge i64 %w, %np
  br i1 %pdone, label %serial, label %post_one
post_one:
  %box = call ptr @box_of(ptr %pool, i64 %w)
  %c = add i64 %w, 1
  call void @fill(ptr %box, ptr %fn, ptr %heads, ptr %metas, ptr %scal, ptr %errs, i64 %c)
  store atomic i32 POSTED, ptr %box seq_cst, align 4
  %sp = getelementptr i8, ptr %box, i64 SLEEPING
  %sl = load atomic i32, ptr %sp seq_cst, align 4
  %asleep = icmp ne i32 %sl, 0
  br i1 %asleep, label %wake, label %post_next
wake:
  %r = call i64 (i64, ...) @syscall(i64 FUTEX, ptr %box, i64 WAKE, i64 1)
  br label %post_next
post_next:
  %w1 = add i64 %w, 1
  store i64 %w1, ptr %i
  br label %post_loop
serial:
  ; chunk 0 and the chunks no worker was offered, here
  call void @run_here(ptr %fn, ptr %heads, ptr %metas, ptr %scal, ptr %errs, ptr %rcs, i64 0)
  %np2 = load i64, ptr %posted
  %first = add i64 %np2, 1
  store i64 %first, ptr %i
  br label %rest_loop
rest_loop:
  %k = load i64, ptr %i
  %rdone = icmp sge i64 %k, %n
  br i1 %rdone, label %collect_init, label %rest_one
rest_one:
  call void @run_here(ptr %fn, ptr %heads, ptr %metas, ptr %scal, ptr %errs, ptr %rcs, i64 %k)
  %k1 = add i64 %k, 1
  store i64 %k1, ptr %i
  br label %rest_loop
collect_init:
  store i64 0, ptr %i
  br label %collect_loop
collect_loop:
  %cw = load i64, ptr %i
  %cdone = icmp sge i64 %cw, %np2
  br i1 %cdone, label %finish, label %collect_one
collect_one:
  %cbox = call ptr @box_of(ptr %pool, i64 %cw)
  %cc = add i64 %cw, 1
  %back = cmpxchg ptr %cbox, i32 POSTED, i32 IDLE acq_rel acquire
  %untaken = extractvalue { i32, i1 } %back, 1
  br i1 %untaken, label %take_back, label %await
take_back:
  call void @run_here(ptr %fn, ptr %heads, ptr %metas, ptr %scal, ptr %errs, ptr %rcs, i64 %cc)
  br label %collect_next
await:
  %t0 = call i64 @llvm.readcyclecounter()
  br label %await_loop
await_loop:
  %st = load atomic i32, ptr %cbox acquire, align 4
  %fin = icmp eq i32 %st, DONE
  br i1 %fin, label %done_one, label %await_more
await_more:
  %t = call i64 @llvm.readcyclecounter()
  %dt = sub i64 %t, %t0
  %long = icmp ugt i64 %dt, SPIN
  br i1 %long, label %yield, label %await_pause
yield:
  %y = call i32 @sched_yield()   ; the worker may share this core: let it run
  br label %await_loop
await_pause:
  call void @pause()
  br label %await_loop
done_one:
  %rp = getelementptr i8, ptr %cbox, i64 RC
  %wrc = load i32, ptr %rp
  %rcp = getelementptr i32, ptr %rcs, i64 %cc
  store i32 %wrc, ptr %rcp
  store atomic i32 IDLE, ptr %cbox release, align 4
  br label %collect_next
collect_next:
  %cw1 = add i64 %cw, 1
  store i64 %cw1, ptr %i
  br label %collect_loop
finish:
  %owned = icmp sgt i64 %np2, 0
  br i1 %owned, label %release, label %scan_init
release:
  store atomic i32 0, ptr %pool release, align 4
  br label %scan_init
scan_init:
  store i64 0, ptr %i
  br label %scan_loop
scan_loop:
  %s = load i64, ptr %i
  %sdone = icmp sge i64 %s, %n
  br i1 %sdone, label %ok, label %scan_one
scan_one:
  %sp2 = getelementptr i32, ptr %rcs, i64 %s
  %src = load i32, ptr %sp2
  %bad = icmp ne i32 %src, 0
  %s1 = add i64 %s, 1
  store i64 %s1, ptr %i
  br i1 %bad, label %failed, label %scan_loop
failed:
  ret i64 %s1
ok:
  ret i64 0
}

; A chunk that runs tiles claimed one at a time from a shared counter until none is
; left (backend/rowtiles.py): %ctx = {i64 next, i64 n, ptr fn, ptr bufs, ptr heads}, the
; same for every chunk, so the threads share out any number of tiles in one call.  Tile
; i runs fn(bufs, heads[i], scal, err); a failing tile stops the claiming (the counter
; put past n) and its return code is the chunk's.
define i32 @lazyarray_tile_loop(ptr %ctx, ptr %unused, ptr %scal, ptr %err) {
entry:
  %pn = getelementptr i8, ptr %ctx, i64 8
  %n = load i64, ptr %pn
  %pf = getelementptr i8, ptr %ctx, i64 16
  %fn = load ptr, ptr %pf
  %pb = getelementptr i8, ptr %ctx, i64 24
  %bufs = load ptr, ptr %pb
  %ph = getelementptr i8, ptr %ctx, i64 32
  %heads = load ptr, ptr %ph
  br label %claim
claim:
  %i = atomicrmw add ptr %ctx, i64 1 monotonic, align 8
  %left = icmp slt i64 %i, %n
  br i1 %left, label %run, label %done
run:
  %hp = getelementptr ptr, ptr %heads, i64 %i
  %head = load ptr, ptr %hp
  %rc = call i32 %fn(ptr %bufs, ptr %head, ptr %scal, ptr %err)
  %bad = icmp ne i32 %rc, 0
  br i1 %bad, label %stop, label %claim
stop:
  store atomic i64 %n, ptr %ctx monotonic, align 8
  ret i32 %rc
done:
  ret i32 0
}

; tells every worker to exit once the pool is free
define void @lazyarray_stop_workers(ptr %pool, i64 %nw) {
entry:
  %i = alloca i64
  br label %claim
claim:
  %bp = cmpxchg ptr %pool, i32 0, i32 1 acquire monotonic
  %got = extractvalue { i32, i1 } %bp, 1
  br i1 %got, label %init, label %spin
spin:
  %y = call i32 @sched_yield()
  br label %claim
init:
  store i64 0, ptr %i
  br label %loop
loop:
  %w = load i64, ptr %i
  %d = icmp sge i64 %w, %nw
  br i1 %d, label %out, label %one
one:
  %box = call ptr @box_of(ptr %pool, i64 %w)
  store atomic i32 STOP, ptr %box seq_cst, align 4
  %r = call i64 (i64, ...) @syscall(i64 FUTEX, ptr %box, i64 WAKE, i64 1)
  %w1 = add i64 %w, 1
  store i64 %w1, ptr %i
  br label %loop
out:
  ret void
}
"""


_SYMBOLS = ("lazyarray_run_chunks", "lazyarray_worker", "lazyarray_stop_workers",
            "lazyarray_tile_loop")


def unit_ir(vector_variants: dict | None = None) -> str:
    """The IR of the pool's unit (backend/native.py)."""
    return _ir()


def _unit():
    from . import native
    # (the name changes with the unit's symbols: a machine's disk cache keeps the old one)
    return native.Unit("lazyarray_parallel_t", ("parallel", "unit_ir", ()), _SYMBOLS)


def _ir() -> str:
    values = {"SLEEPING": _SLEEPING, "HEAD": _HEAD, "META": _META, "SCAL": _SCAL,
              "ERRB": ERR_BYTES, "ERR": _ERR, "FN": _FN, "RC": _RC, "IDLE": _IDLE,
              "POSTED": _POSTED, "TAKEN": _TAKEN, "DONE": _DONE, "STOP": _STOP,
              "FUTEX": _SYS_FUTEX, "WAIT": _WAIT, "WAKE": _WAKE, "SPIN": SPIN_TICKS,
              "LINE": _LINE, "ALLOWED": _ALLOWED}
    return re.sub(r"\b[A-Z]+\b", lambda m: str(values.get(m.group(0), m.group(0))), _IR)


class Pool:
    """``workers`` native threads and their mailboxes; ``run`` is ``lazyarray_run_chunks``."""

    def __init__(self, workers: int, addresses: tuple) -> None:
        self.run_addr, worker, stop, self.tile_loop = addresses
        self.run = RUN_TYPE(self.run_addr)
        self._stop = _STOP_TYPE(stop)
        self._mem = ctypes.create_string_buffer(_LINE * (workers + 2))
        self.addr = ctypes.addressof(self._mem) + (-ctypes.addressof(self._mem) % _LINE)
        self._allowed = ctypes.c_int64.from_address(self.addr + _ALLOWED)
        self._threads = []
        libc = ctypes.CDLL(None)
        create = libc.pthread_create
        create.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
        self._join = libc.pthread_join
        self._join.argtypes = [ctypes.c_ulong, ctypes.c_void_p]
        for w in range(workers):
            tid = ctypes.c_ulong()
            if create(ctypes.byref(tid), None, worker, self.addr + _LINE * (w + 1)):
                break  # no thread: the mailboxes past it are never posted to
            self._threads.append(tid.value)
        self.workers = len(self._threads)
        self._pid = os.getpid()
        self.allow(self.workers)
        self.adapt = True  # False: the monitor leaves the allowance alone (tests pin it)
        if self.workers and os.environ.get("LAZYARRAY_ADAPT_THREADS") != "0":
            threading.Thread(target=self.monitor, name="lazyarray-pool-monitor",
                             daemon=True).start()

    def allow(self, k: int) -> None:
        """Let runs post chunks to ``k`` workers at the most (0: every chunk on the caller)."""
        self._allowed.value = max(0, min(k, self.workers))

    def allowed(self) -> int:
        """Workers runs may post chunks to now (see ``monitor``)."""
        return self._allowed.value

    def monitor(self, period: float = 0.25) -> None:
        """Every ``period`` seconds, allow as many workers as the cores other processes
        leave free.  A worker that shares a core with another process can be preempted
        in the middle of its chunk, and the caller then waits for it: with both cores
        busy elsewhere, a 64x64 matrix product took 130-215 us on two threads against
        65-69 us on one.  With no room, chunks run one after another on the caller."""
        ncpu = os.cpu_count() or 1
        last = _cpu_times()
        while self.workers and os.getpid() == self._pid:
            time.sleep(period)
            now = _cpu_times()
            if now is None or last is None:
                return  # no /proc/stat: keep every worker
            others = (now[0] - last[0]) - (now[1] - last[1])  # busy CPU seconds, not ours
            if self.adapt:
                self.allow(allowed_workers(ncpu, others / (now[2] - last[2]), self.workers))
            last = now

    def close(self) -> None:
        """Stop and join the workers (their code must not be unloaded under them)."""
        if self._threads and os.getpid() == self._pid:
            self._stop(self.addr, self.workers)
            for tid in self._threads:
                self._join(tid, None)
            self._threads = []
            self.workers = 0


def allowed_workers(ncpu: int, others: float, workers: int) -> int:
    """Workers worth posting to when other processes keep ``others`` cores busy: the
    cores left beside the caller's, a core counting as free up to 30% busy."""
    return max(0, min(workers, int(ncpu - 1 - others + 0.3)))


def _cpu_times():
    """(busy CPU seconds of the machine, CPU seconds of this process, wall seconds), or
    None where /proc/stat cannot be read."""
    try:
        with open("/proc/stat", "rb") as f:
            fields = f.readline().split()[1:]
    except OSError:
        return None
    ticks = [int(v) for v in fields]
    busy = sum(ticks) - ticks[3] - (ticks[4] if len(ticks) > 4 else 0)  # less idle, iowait
    return busy / _HZ, time.process_time(), time.monotonic()


_HZ = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


_pool: Optional[Pool] = None
_lock = threading.Lock()
_failed = False
_asked = False  # the unit was looked for on disk (see pool)


def available() -> bool:
    """Whether ``pool()`` would give a pool (without making one)."""
    if _pool is not None:
        return True
    return (not _failed and threads.num_threads() >= 2 and supported()
            and os.environ.get("LAZYARRAY_NATIVE_THREADS") != "0")


def pool(wait: bool = False) -> Optional[Pool]:
    """The process's native pool (``threads.num_threads() - 1`` workers, made on first
    use), or None where unsupported, with one thread, or ``LAZYARRAY_NATIVE_THREADS=0``,
    and, unless ``wait``, while its code is still being compiled (on the background
    thread, once per machine: chunks run on the Python pool meanwhile)."""
    global _pool, _failed, _asked
    if _pool is not None or _failed:
        return _pool
    with _lock:
        if _pool is None and not _failed:
            if not available():
                _failed = True
                return None
            from . import native
            try:
                # the disk is read once: while the unit is queued, later runs ask the
                # background thread only (a disk read each run cost 100-200 us)
                addresses = native.get(_unit(), wait=wait, disk=wait or not _asked)
                _asked = True
                if addresses is None:
                    return None
                _pool = Pool(threads.num_threads() - 1, addresses)
            except (OSError, RuntimeError, ValueError, AttributeError):
                _failed = True
                return None
            atexit.register(_pool.close)
    return _pool


def _after_fork_in_child() -> None:
    # the workers were not copied into the child; the parent's pool may be mid-run
    global _pool, _lock
    _pool, _lock = None, threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
