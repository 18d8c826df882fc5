"""Timing and memory measurement of one benchmark case.

A sample is ``number`` back-to-back calls timed with ``time.perf_counter``
and divided by ``number``; ``number`` > 1 only for calls under 20 us, so the
timer's own cost (~0.1 us) stays below 1%.  The reported figures are the
median and the minimum over the samples.  How many samples depends on the
call's duration (estimated from a warm-up call), see ``plan``.

Memory: two extra, untimed calls.  One under ``tracemalloc`` (what numpy,
numba's NRT and Python objects allocate: lazyarray's outputs are numpy
arrays, so they are seen; XLA's buffers and compiler memory are not), one
after resetting the kernel's peak-RSS mark (``/proc/self/clear_refs``),
which sees every allocation that touches new pages, whatever allocated it,
but misses memory an allocator reuses from an earlier call.
"""
from __future__ import annotations

import gc
import math
import statistics
import time
import tracemalloc
from dataclasses import dataclass
from typing import Any, Callable, Optional

FAST = 1e-3        # calls shorter than this get >= 200 samples (50 with --quick)
SLOW = 2.0         # calls longer than this get 3 samples (1 with --quick)
BATCH_BELOW = 20e-6


@dataclass
class Timing:
    median: float
    min: float
    samples: int
    number: int


@dataclass
class Memory:
    traced: Optional[int]   # bytes, tracemalloc peak over the call
    rss: Optional[int]      # bytes, peak RSS over the call minus RSS before it


def plan(t: float, quick: bool) -> tuple[int, int]:
    """(samples, number) for a call estimated to take ``t`` seconds."""
    if t < FAST:
        lo, budget, cap = 200, 0.6, 3000
    elif t < 0.05:
        lo, budget, cap = 20, 1.0, 400
    elif t < SLOW:
        lo, budget, cap = 5, 2.0, 40
    else:
        lo, budget, cap = 3, 0.0, 3
    if quick:
        lo, budget, cap = max(1, lo // 4), budget / 4, max(1, cap // 4)
    number = 1 if t >= BATCH_BELOW else max(1, math.ceil(BATCH_BELOW / max(t, 1e-9)))
    samples = min(cap, max(lo, int(budget / max(t * number, 1e-9))))
    return samples, number


def _once(fn: Callable[[], Any]) -> tuple[float, Any]:
    t0 = time.perf_counter()
    r = fn()
    return time.perf_counter() - t0, r


def _rss() -> tuple[int, int]:
    """(current RSS, peak RSS) in bytes, from /proc/self/status."""
    vals = {}
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(("VmRSS:", "VmHWM:")):
                k, v = line.split(":")
                vals[k] = int(v.split()[0]) * 1024
    return vals["VmRSS"], vals["VmHWM"]


def rss_peak(fn: Callable[[], Any]) -> tuple[Optional[int], float, Any]:
    """Peak extra RSS of one call (None if the kernel's peak mark cannot be reset)."""
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")  # resets VmHWM to the current RSS
        before, _ = _rss()
    except OSError:
        t, r = _once(fn)
        return None, t, r
    t, r = _once(fn)
    _, peak = _rss()
    return max(0, peak - before), t, r


def traced_peak(fn: Callable[[], Any]) -> tuple[int, float, Any]:
    """Peak bytes tracemalloc sees during one call (above what was live before)."""
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        t, r = _once(fn)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return max(0, peak - base), t, r


def _settle() -> None:
    """Wait for lazyarray's background work started by the warm-up: the compile of a
    program that ran again (backend/tiers.py) would otherwise share the cores with the
    first samples, which would time its interpreted runs."""
    from lazyarray.backend import native
    native.flush()


def measure(fn: Callable[[], Any], quick: bool, memory: bool,
            fresh: bool, reported: bool = False) -> tuple[Timing, Memory, Any]:
    """Warm up, measure memory, then time ``fn``; returns the last result too.

    ``fresh``: every call does new work (a new program): never batch calls.
    ``reported``: ``fn`` returns (seconds it measured itself, result).
    """
    if reported:
        _, result = fn()  # warm-up
        times = []
        for _ in range(3 if quick else 9):
            t, result = fn()
            times.append(t)
        return Timing(statistics.median(times), min(times), len(times), 1), Memory(None, None), \
            result
    gc.collect()
    t1, result = _once(fn)                      # warm-up (jit compiles, caches fill)
    if t1 < SLOW:
        t1, result = _once(fn)                  # second warm-up (lazyarray: opens its door)
        _settle()
        # the estimate: a call in the steady state (a second call may still do one-off
        # work, e.g. compile a front door, and would plan too few samples)
        t1, result = _once(fn)
        if t1 < FAST:  # one short call is noisy (cold caches, the timer): take the least of 5
            for _ in range(4):
                t, result = _once(fn)
                t1 = min(t1, t)
    else:
        _settle()
    samples, number = plan(t1, quick)
    if fresh:
        number = 1
    times = []
    mem = Memory(None, None)
    if memory:
        traced, t, result = traced_peak(fn)
        rss, t2, result = rss_peak(fn)
        mem = Memory(traced, rss)
        if t1 >= SLOW:  # too slow to repeat for free: the memory calls count as samples
            times += [t, t2]
    while len(times) < samples:
        t0 = time.perf_counter()
        for _ in range(number):
            result = fn()
        times.append((time.perf_counter() - t0) / number)
    return Timing(statistics.median(times), min(times), len(times), number), mem, result
