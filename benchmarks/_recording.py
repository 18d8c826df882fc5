"""Recording cost of each op kind the workload suite uses: microseconds per recorded op,
nothing evaluated, with numpy's eager time for the same op on the same small array
beside it.  CPU time of this thread (``time.thread_time``), so other processes on the
cores count less than in wall time; the cost of an empty call through the same loop
is subtracted.
"""
from __future__ import annotations

import gc
import statistics
import time
from typing import Callable

import numpy as np

import lazyarray as xp

TARGET_US = 0.5
REPEATS = 2000               # ops per sample
SAMPLES, QUICK_SAMPLES = 15, 4


def _ops(m, a, b, u, v, scalars) -> dict:
    """kind -> a zero-argument call recording one op of that kind in namespace ``m``
    (the condition of ``where`` is made once, outside: one op per call)."""
    it = iter(scalars)
    cond = a < 0.5
    return {
        "a + b (array)": lambda: a + b,
        "a * 1.5 (same scalar)": lambda: a * 1.5,
        "a * s (new float each op)": lambda: a * next(it),
        "a[1:-1] (1-D slice)": lambda: a[1:-1],
        "u[1:-1, 2:] (2-D slice)": lambda: u[1:-1, 2:],
        "reshape": lambda: m.reshape(u, (-1,)),
        "broadcast_to": lambda: m.broadcast_to(a, (4, a.shape[0])),
        "permute_dims": lambda: m.permute_dims(u, (1, 0)),
        ".T": lambda: u.T,
        "sum(axis=1)": lambda: m.sum(u, axis=1),
        "matmul": lambda: m.matmul(u, v),
        "where": lambda: m.where(cond, a, b),
        "zeros": lambda: m.zeros((32, 32)),
        "astype": lambda: m.astype(a, m.float32),
        "concat": lambda: m.concat([a, b]),
        "expand_dims": lambda: m.expand_dims(a, axis=0),
    }


def _per_call(fn: Callable, repeats: int) -> float:
    """Thread CPU seconds per call of ``fn`` over ``repeats`` calls (results dropped)."""
    t0 = time.thread_time()
    for _ in range(repeats):
        fn()
    return (time.thread_time() - t0) / repeats


def _namespaces() -> tuple:
    rng = np.random.default_rng(7)
    a, b = rng.uniform(0, 1, 1000), rng.uniform(0, 1, 1000)
    u, v = rng.uniform(0, 1, (32, 32)), rng.uniform(0, 1, (32, 32))
    lazy = [xp.asarray(t) for t in (a, b, u, v)]
    return (np, a, b, u, v), (xp, *lazy)


def recording_costs(quick: bool) -> list[tuple[str, float, float, float]]:
    """(kind, lazyarray median us, lazyarray min us, numpy eager median us) per op kind."""
    samples = QUICK_SAMPLES if quick else SAMPLES
    floats = [1.0 + i * 1e-7 for i in range(REPEATS * (samples + 1))]
    (nm, *nargs), (lm, *largs) = _namespaces()
    lazy_ops = _ops(lm, *largs, iter(floats))
    numpy_ops = _ops(nm, *nargs, iter(floats))
    empty = min(_per_call(lambda: None, REPEATS) for _ in range(5))
    rows = []
    for kind, fn in lazy_ops.items():
        gc.collect()
        fn()                                          # warm: first-use caches
        t = [_per_call(fn, REPEATS) - empty for _ in range(samples)]
        tn = [_per_call(numpy_ops[kind], REPEATS) - empty for _ in range(samples)]
        rows.append((kind, statistics.median(t) * 1e6, min(t) * 1e6,
                     statistics.median(tn) * 1e6))
    return rows
