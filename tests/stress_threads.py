"""Evaluate lazyarray programs from many threads at once and compare with a serial run.

    python tests/stress_threads.py --seconds 30 --threads 8

prints the evaluations done, errors and mismatches, and exits non-zero on any
error or mismatch.  ``tests/test_threads.py`` runs the same workload for a few
seconds as part of the test suite.

The workload mixes what can race: new structures compiled concurrently (each
one compiled by one thread while others wait for it), one new structure
evaluated by every thread at the same moment, one Prepared program and one
jit function called from all threads (new sizes bind concurrently), one lazy
array shared by all threads and materialized implicitly (``float()``,
``bool()``, ``repr()``, ``numpy.asarray()``), gathers whose bounds check
raises IndexError, ``__setitem__``, scans, sorts and reductions, and kernels split into
chunks on the native worker threads.

Expected values come from a serial run of the same case: before the threads
start for the cases that use existing code, after they stop for the new
structures (so those are compiled under contention, then checked).
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

if __name__ == "__main__":  # a fresh disk cache, so new structures really compile
    os.environ.setdefault("LAZYARRAY_CACHE_DIR", tempfile.mkdtemp(prefix="lazyarray-stress-"))

import lazyarray as xp  # noqa: E402

# Unary steps of the random structures: bounded on bounded input, each records one node
# or more (no step is a no-op that would let two sequences share a structure).
_UNARY = (
    ("sin", xp.sin), ("cos", xp.cos), ("tanh", xp.tanh), ("abs", xp.abs),
    ("neg", xp.negative), ("sqrtabs", lambda a: xp.sqrt(xp.abs(a))),
    ("half", lambda a: a * 0.5), ("shift", lambda a: a + 0.25),
    ("sq", lambda a: a * a), ("floor", xp.floor),
)
_BINARY = (
    ("add", xp.add), ("mul", xp.multiply), ("max", xp.maximum), ("min", xp.minimum),
    ("sub", xp.subtract), ("hyp", xp.hypot), ("atan2", xp.atan2),
)
_TAIL = (
    ("none", lambda a: a), ("sum0", lambda a: xp.sum(a, axis=0)),
    ("max1", lambda a: xp.max(a, axis=1)), ("cumsum1", lambda a: xp.cumulative_sum(a, axis=1)),
    ("sumall", xp.sum),
)


def structure(code: tuple) -> Callable:
    """The function ``(a, b) -> Array`` of a structure code (unary and binary steps, a tail)."""
    *steps, tail = code

    def f(a, b):
        y = a
        for kind, i in steps:
            y = _UNARY[i][1](y) if kind == "u" else _BINARY[i][1](y, b)
        return _TAIL[tail][1](y)
    return f


def random_code(rng: np.random.Generator, length: int) -> tuple:
    steps = []
    for _ in range(length):
        if rng.random() < 0.6:
            steps.append(("u", int(rng.integers(len(_UNARY)))))
        else:
            steps.append(("b", int(rng.integers(len(_BINARY)))))
    return tuple(steps) + (int(rng.integers(len(_TAIL))),)


def inputs(seed: int, shape=(7, 9)) -> tuple:
    r = np.random.default_rng(seed)
    return r.standard_normal(shape), r.standard_normal(shape)


def run_structure(code: tuple, seed: int) -> np.ndarray:
    a, b = inputs(seed)
    return np.asarray(structure(code)(xp.asarray(a), xp.asarray(b)))


# --------------------------------------------------------------------------- fixed cases
# Each is seed -> numpy result (or an exception type for cases that must raise).

_X = xp.placeholder(("n", "m"), xp.float64, name="x")
_PROG = xp.compile((xp.sum(xp.tanh(_X) * 2.0, axis=1), xp.cumulative_prod(xp.cos(_X), axis=0)),
                   inputs=[_X])
_PREPARED = _PROG.prepare(np.zeros((2, 3)))


def _prepared(seed: int):
    n, m = 1 + seed % 5, 2 + seed % 7  # several sizes: bound concurrently on first use
    s, c = _PREPARED(np.random.default_rng(seed).standard_normal((n, m)))
    return np.concatenate([np.asarray(s).ravel(), np.asarray(c).ravel()])


def _jit_function():
    return xp.jit(lambda a, b: xp.where(a > b, xp.exp(a - b), xp.sqrt(xp.abs(b))), symbolic=True)


_JIT = _jit_function()


def fresh_entry_points() -> None:
    """A new Prepared and a new jit function: the threads then bind sizes and trace
    concurrently (the serial run already did so on the old ones)."""
    global _PREPARED, _JIT
    _PREPARED, _JIT = _PROG.prepare(np.zeros((2, 3))), _jit_function()


def _jit(seed: int):
    a, b = inputs(seed, (3 + seed % 4, 5))
    return np.asarray(_JIT(a, b))


_SHARED: dict = {}
_SHARED_LOCK = threading.Lock()


def _shared_lazy(seed: int):
    """A lazy array shared by every thread, materialized implicitly by several at once."""
    key = seed % 4
    with _SHARED_LOCK:
        if key not in _SHARED or _SHARED[key][1] > 20:
            a, b = inputs(1000 + key)
            _SHARED[key] = [xp.mean(xp.sin(xp.asarray(a)) * xp.asarray(b), axis=0), 0]
        _SHARED[key][1] += 1
        y = _SHARED[key][0]
    how = seed % 4
    if how == 0:
        return np.asarray(float(xp.sum(y)))
    if how == 1:
        return np.asarray(bool(xp.all(y < 10.0)))
    if how == 2:
        return np.asarray(len(repr(y)) > 0)
    return np.array(np.asarray(y))


def _gather(seed: int):
    r = np.random.default_rng(seed)
    x = xp.asarray(r.standard_normal((6, 5)))
    i = xp.asarray(r.integers(-6, 6, 8))
    j = xp.asarray(r.integers(0, 5, (6, 3)))
    return np.concatenate([np.asarray(xp.take(x, i, axis=0) + 1.0).ravel(),
                           np.asarray(xp.take_along_axis(x, j, axis=1)).ravel(),
                           np.asarray(x[i, 2]).ravel()])


def _gather_out_of_bounds(seed: int):
    x = xp.asarray(np.arange(5.0) + seed)
    return np.asarray(xp.take(x, xp.asarray([0, 5 + seed % 3])) * 2.0)  # raises IndexError


def _setitem(seed: int):
    r = np.random.default_rng(seed)
    x = xp.asarray(r.standard_normal((4, 6)))
    x[1:3, ::2] = xp.asarray(r.standard_normal(3))
    x[xp.asarray([0, 3]), 1] = -1.0
    x[x > 1.0] = 0.0
    return np.asarray(x)


def _sort_and_stats(seed: int):
    a, _ = inputs(seed, (5, 8))
    x = xp.asarray(a)
    return np.concatenate([np.asarray(xp.sort(x, axis=1)).ravel(),
                           np.asarray(xp.argmax(x, axis=0)).astype(np.float64),
                           np.asarray(xp.std(x, axis=1, correction=1)),
                           np.asarray(xp.cumulative_sum(x, axis=0)).ravel()])


def _evaluate_many(seed: int):
    a, b = inputs(seed, (4, 4))
    x, y = xp.asarray(a), xp.asarray(b)
    u = xp.exp(x) @ y
    p, q = xp.evaluate(u + 1.0, xp.linalg.matrix_transpose(u) * 2.0)
    return np.concatenate([np.asarray(p).ravel(), np.asarray(q).ravel()])


_MM = xp.placeholder((64, 64))
_MM_PREPARED = xp.compile(xp.tanh(_MM @ _MM) + 1.0, inputs=[_MM]).prepare(np.zeros((64, 64)))


def _chunked(seed: int):
    """Kernels split into chunks (backend/parallel.py's native pool) from every thread:
    a prepared matrix product through its front door, elementwise and reduced math."""
    r = np.random.default_rng(seed)
    m = r.standard_normal((64, 64)) / 8
    x = xp.asarray(r.standard_normal(1 << 14))
    return np.concatenate([np.asarray(_MM_PREPARED(m)).ravel(),
                           np.asarray(xp.sin(x) * 2.0 + xp.cos(x)),
                           np.asarray(xp.sum(xp.exp(x * 0.5), keepdims=True))])


FIXED = {
    "prepared": _prepared, "jit": _jit, "shared_lazy": _shared_lazy, "gather": _gather,
    "gather_out_of_bounds": _gather_out_of_bounds, "setitem": _setitem,
    "sort_and_stats": _sort_and_stats, "evaluate_many": _evaluate_many, "chunked": _chunked,
}
RAISES = {"gather_out_of_bounds": IndexError}
N_SEEDS = 12


def run_fixed(name: str, seed: int):
    """The result of a fixed case, or the type of the exception it must raise."""
    try:
        return FIXED[name](seed)
    except RAISES.get(name, ()) as e:
        return type(e)


def same(got, want) -> bool:
    """Equal: exactly for integers and booleans; floats within a few units in the last
    place, as a program moves from the interpreter to compiled kernels while the threads
    run, and the two may sum in another order or take libm's scalar path where the other
    takes libmvec's vector path (README, "Tiers")."""
    if isinstance(want, type):
        return got is want
    if isinstance(got, type):
        return False
    got, want = np.asarray(got), np.asarray(want)
    if got.shape != want.shape or got.dtype != want.dtype:
        return False
    if want.dtype.kind not in "fc":
        return np.array_equal(got, want)
    scale = np.max(np.abs(want[np.isfinite(want)]), initial=0.0)
    return np.allclose(got, want, rtol=1e-13, atol=1e-13 * scale, equal_nan=True)


# --------------------------------------------------------------------------- the run

@dataclass
class Report:
    evaluations: int = 0
    errors: list = field(default_factory=list)
    mismatches: list = field(default_factory=list)
    new_structures: int = 0
    compiles: int = 0  # LLVM compiles (or disk-cache loads) during the threaded run
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, n: int = 1) -> None:
        with self.lock:
            self.evaluations += n

    def error(self, what: str, e: BaseException) -> None:
        with self.lock:
            self.errors.append(f"{what}: {type(e).__name__}: {e}")

    def mismatch(self, what: str) -> None:
        with self.lock:
            self.mismatches.append(what)


class Workload:
    """The cases the threads run and the serial results they must reproduce."""

    def __init__(self, rng_seed: int) -> None:
        self.rng = np.random.default_rng(rng_seed)
        self.code_lock = threading.Lock()
        self.codes: list = []           # structures made during the run, in order
        self.code_results: list = []    # (code, seed, result) computed by the threads
        self.expected = {(n, s): run_fixed(n, s) for n in FIXED for s in range(N_SEEDS)}
        self.shared_codes: list = []
        fresh_entry_points()

    def new_codes(self, k: int) -> list:
        """``k`` structures not made before in this run (random, 7 to 9 steps)."""
        with self.code_lock:
            seen = set(self.codes)
            out = []
            while len(out) < k:
                c = random_code(self.rng, int(self.rng.integers(7, 10)))
                if c not in seen:
                    seen.add(c)
                    out.append(c)
            self.codes.extend(out)
            return out

    def record(self, code: tuple, seed: int, result: np.ndarray) -> None:
        with self.code_lock:
            self.code_results.append((code, seed, result))

    def verify_structures(self, report: Report) -> None:
        """Recompute each structure result serially (cached code now) and compare."""
        for code, seed, got in self.code_results:
            if not same(got, run_structure(code, seed)):
                report.mismatch(f"structure {code} seed {seed}")


def _worker(w: Workload, report: Report, barrier: threading.Barrier, tid: int,
            stop: Callable[[], bool]) -> None:
    try:
        _loop(w, report, barrier, tid, stop)
    finally:
        barrier.abort()  # threads waiting for this one stop too (the deadline has passed)


def _loop(w: Workload, report: Report, barrier: threading.Barrier, tid: int,
          stop: Callable[[], bool]) -> None:
    rng = np.random.default_rng(tid)
    names = list(FIXED)
    rounds = 0
    while not stop():
        rounds += 1
        # Everyone meets at the barrier now and then: thread 0 draws structures, all
        # threads evaluate the first at once (one compile, seven waiting), then each
        # its own (distinct compiles in parallel).
        if rounds % 40 == 1:
            try:
                idx = barrier.wait(timeout=60)
            except threading.BrokenBarrierError:
                return
            if idx == 0:
                w.shared_codes = w.new_codes(1 + barrier.parties)
                report.new_structures = len(w.codes)
            try:
                barrier.wait(timeout=60)
            except threading.BrokenBarrierError:
                return
            for code in (w.shared_codes[0], w.shared_codes[1 + tid]):
                seed = int(rng.integers(N_SEEDS))
                try:
                    w.record(code, seed, run_structure(code, seed))
                    report.add()
                except Exception as e:  # noqa: BLE001 - every failure is reported
                    report.error(f"structure {code}", e)
            continue
        name, seed = names[int(rng.integers(len(names)))], int(rng.integers(N_SEEDS))
        try:
            got = run_fixed(name, seed)
        except Exception as e:  # noqa: BLE001
            report.error(f"{name} seed {seed}", e)
            continue
        report.add()
        if not same(got, w.expected[(name, seed)]):
            report.mismatch(f"{name} seed {seed}")


def _compiles() -> int:
    info = xp.compile_cache_info()
    return info.misses


def run(seconds: float, threads: int, seed: int = 0) -> Report:
    """Run the workload from ``threads`` threads for about ``seconds``; check everything."""
    report = Report()
    w = Workload(seed)
    compiles0 = _compiles()
    deadline = time.monotonic() + seconds
    barrier = threading.Barrier(threads)
    ts = [threading.Thread(target=_worker, args=(w, report, barrier, t,
                                                 lambda: time.monotonic() > deadline),
                           daemon=True)
          for t in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(timeout=seconds + 300)
        if t.is_alive():
            report.error("deadlock", RuntimeError(f"{t.name} still running after the deadline"))
            barrier.abort()
    report.compiles = _compiles() - compiles0
    w.verify_structures(report)
    return report


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=30.0)
    ap.add_argument("--threads", type=int, default=8)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    r = run(args.seconds, args.threads, args.seed)
    print(f"threads: {args.threads}, seconds: {time.perf_counter() - t0:.1f}")
    print(f"evaluations done: {r.evaluations}")
    print(f"new structures: {r.new_structures}, program codes made during the run: {r.compiles}")
    print(f"errors: {len(r.errors)}")
    for e in r.errors[:20]:
        print("  ", e)
    print(f"mismatches: {len(r.mismatches)}")
    for m in r.mismatches[:20]:
        print("  ", m)
    if r.compiles > r.new_structures:
        print("a program code was made more than once")
    return 1 if r.errors or r.mismatches or r.compiles > r.new_structures else 0


if __name__ == "__main__":
    sys.exit(main())
