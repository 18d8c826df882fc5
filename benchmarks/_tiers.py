"""Workloads of the no-compile-wait tiers (backend/tiers.py): the first evaluation of a
structure never seen before, long chains, and scikit-learn's first fits.

Every call of a ``new_*`` workload builds an expression whose structure no earlier call
had (its ops, slices or reductions are drawn from a pool by the digits of a counter), so
lazyarray really meets a new program each time: it runs at once on the interpreter (the
building blocks are loaded from the disk cache).  numpy runs the same expression eagerly.
The case notes count the new programs and the compiles a caller waited for.
"""
from __future__ import annotations

import atexit
import itertools
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

import numpy as np

import lazyarray as xp

from ._cases import Case, Workload, mismatch

_ROOT = str(Path(__file__).resolve().parent.parent)


def _scratch_cache(prefix: str) -> str:
    """A disk cache folder for child processes, removed when the harness exits."""
    path = tempfile.mkdtemp(prefix=prefix)
    atexit.register(shutil.rmtree, path, True)
    return path


def _digits(i: int, base: int, count: int) -> list:
    out = []
    for _ in range(count):
        i, d = divmod(i, base)
        out.append(d)
    return out


# ------------------------------------------------------------------ expression kinds
# Each kind: build the expression for counter i on namespace m (numpy or lazyarray)

# Each step builds only the op its digit picks (numpy computes only that op too).
_ARITH = (lambda m, v: v * 0.75, lambda m, v: v + 0.25, lambda m, v: v - 0.5,
          lambda m, v: v / 1.25, lambda m, v: v * v, lambda m, v: -v)
_TRANSC = (lambda m, v: m.sin(v), lambda m, v: m.cos(v), lambda m, v: m.tanh(v),
           lambda m, v: m.atan(v), lambda m, v: v * 0.75, lambda m, v: v + 0.25,
           lambda m, v: m.sqrt(m.abs(v)))
_UNARY = (lambda m, v: m.exp(v * 0.5), lambda m, v: v * v, lambda m, v: v + 1.0,
          lambda m, v: m.sin(v), lambda m, v: v * 0.5, lambda m, v: m.abs(v))
_REDUCE = (lambda m, v: m.sum(v, axis=1), lambda m, v: m.sum(v, axis=0),
           lambda m, v: m.max(v, axis=1), lambda m, v: m.max(v, axis=0),
           lambda m, v: m.mean(v, axis=1), lambda m, v: m.mean(v, axis=0))
_COMBINE = (lambda v, s: v + s, lambda v, s: v - s, lambda v, s: v * s)
_MATMUL_OPS = (lambda m, v: v * 0.5, lambda m, v: v + 1.0, lambda m, v: m.tanh(v),
               lambda m, v: v * v, lambda m, v: m.abs(v))


def _arith(m, x, i):
    """An 8-op chain of arithmetic with scalars (an array result)."""
    v = x
    for d in _digits(i, len(_ARITH), 8):
        v = _ARITH[d](m, v)
    return v


def _transcendental(m, x, i):
    """An 8-op chain with transcendental functions, then a sum."""
    v = x
    for d in _digits(i, len(_TRANSC), 8):
        v = _TRANSC[d](m, v)
    return m.sum(v)


def _axis(m, x, i):
    """Five ops on a 2-D array, then a reduction along one axis."""
    ds = _digits(i, 6, 6)
    v = x
    for d in ds[:5]:
        v = _UNARY[d](m, v)
    return _REDUCE[ds[5]](m, v)


_SLICES = ((2, None), (None, -2), (1, -1), (0, -2))


def _slicing(m, x, i):
    """A stencil of five shifted slices (same length, different offsets), combined by
    arithmetic, with an elementwise op after each combination."""
    offsets = [_SLICES[d] for d in _digits(i, 4, 5)]  # parameters of the program, not its structure
    steps = _digits(i, len(_COMBINE) * len(_UNARY), 4)
    v = x[offsets[0][0]:offsets[0][1]]
    for (lo, hi), d in zip(offsets[1:], steps):
        v = _UNARY[d // 3](m, _COMBINE[d % 3](v, x[lo:hi]))
    return v * 0.25


def _matmul(m, ab, i):
    """A small matrix product, then six elementwise ops on it."""
    a, b = ab
    v = a @ b
    for d in _digits(i, len(_MATMUL_OPS), 6):
        v = _MATMUL_OPS[d](m, v)
    return v


def _inputs(kind: str, n: int, rng):
    if kind == "axis":
        k = int(round(n ** 0.5))
        return rng.uniform(-1, 1, (k, n // k))
    if kind == "matmul":
        k = int(round(n ** 0.5))
        return rng.uniform(-1, 1, (k, k)), rng.uniform(-1, 1, (k, k))
    return rng.uniform(0.1, 1.0, n)


KINDS = {"arith": _arith, "transc": _transcendental, "axis": _axis, "slice": _slicing,
         "matmul": _matmul}


def _as_lazy(v):
    return tuple(xp.asarray(a) for a in v) if isinstance(v, tuple) else xp.asarray(v)


def _value(r):
    a = np.asarray(r)
    return float(a) if a.ndim == 0 else a


def new_structure_cases(kind: str, n: int) -> Callable:
    def cases(libs) -> list:
        rng = np.random.default_rng(11)
        data = _inputs(kind, n, rng)
        build = KINDS[kind]
        # one counter for both rows, from a random start: no call meets a structure an
        # earlier call (or an earlier run) met
        ids = itertools.count(random.SystemRandom().randrange(10 ** 6))
        state: dict = {}

        def make_numpy():
            def run():
                i = next(ids)
                return _value(build(np, data, i)), i
            return run

        def make_lazy():
            lazy = _as_lazy(data)
            for _ in range(3):  # the building blocks this kind needs: loaded before timing
                _value(build(xp, lazy, next(ids)))
            from lazyarray.backend import native
            native.flush()
            state["before"] = xp.compile_cache_info()
            state["calls"] = 0

            def run():
                i = next(ids)
                state["calls"] += 1
                return _value(build(xp, lazy, i)), i
            return run

        def check(res):
            value, i = res
            return mismatch(value, _value(build(np, data, i)), rtol=1e-9, atol=1e-9)

        def note():
            b, a = state["before"], xp.compile_cache_info()
            return (f"new programs +{a.misses - b.misses} over {state['calls']} calls; "
                    f"compiles waited for +{a.compile_waits - b.compile_waits}")

        return [Case("numpy", make_numpy, memory=False, fresh=True),
                Case("lazyarray implicit", make_lazy, check, memory=False, fresh=True,
                     after=note)]
    return cases


# ------------------------------------------------------------------ empty disk cache

_COLD_CHILD = r"""
import json, sys, time
import numpy as np
import lazyarray as xp
sys.path.insert(0, sys.argv[1])
from benchmarks._tiers import KINDS, _inputs, _as_lazy, _value
rng = np.random.default_rng(3)
waits = []
for kind, build in KINDS.items():
    data = _inputs(kind, 1000, rng)
    t0 = time.perf_counter(); _value(build(np, data, 7)); tn = time.perf_counter() - t0
    lazy = _as_lazy(data)
    t0 = time.perf_counter(); _value(build(xp, lazy, 7)); tl = time.perf_counter() - t0
    waits.append([kind, tl, tn])
info = xp.compile_cache_info()
print(json.dumps([waits, info.compile_waits, info.compile_seconds]))
"""


def cold_cases(libs) -> list:
    """Each sample: a new process on an empty disk cache (a new machine) evaluates one
    expression of every kind; the time is the worst call's excess over numpy's."""
    state: dict = {"notes": []}

    def make():
        def run():
            cache = tempfile.mkdtemp(prefix="lazyarray-bench-cold-")
            env = dict(os.environ, LAZYARRAY_CACHE_DIR=cache)
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            try:
                out = subprocess.run([sys.executable, "-c", _COLD_CHILD, _ROOT], env=env,
                                     capture_output=True, text=True, check=True).stdout
            finally:
                shutil.rmtree(cache, ignore_errors=True)
            waits, n_waits, seconds = json.loads(out.strip().splitlines()[-1])
            worst = max(waits, key=lambda w: w[1] - w[2])
            state["notes"].append(f"worst {worst[0]} {1e3 * (worst[1] - worst[2]):.0f} ms "
                                  f"beyond numpy ({n_waits} quick compiles, "
                                  f"{1e3 * seconds:.0f} ms)")
            return worst[1] - worst[2], None
        return run

    return [Case("lazyarray cold", make, memory=False, reported=True, fresh=True,
                 after=lambda: state["notes"][-1] if state["notes"] else "",
                 note="excess over numpy")]


# An evaluation, then a wait for the background work it started: the building blocks'
# bundle is compiled into the disk cache (once per machine; a process that exits first
# leaves it to the next one).
_FILL = ("import numpy as np, lazyarray as xp; from lazyarray.backend import native; "
         "float(xp.sum(xp.tanh(xp.asarray(np.ones(3))) * 2.0)); native.flush()")


# ------------------------------------------------------------------ a new process, warm

_WARM_CHILD = r"""
import json, sys, time
t0 = time.perf_counter()
if sys.argv[1] == "numpy":
    import numpy as np
    xv = np.linspace(0.0, 2.0, 1000)
    r = float(np.sum(np.tanh(xv) * xv + float(sys.argv[2])))
else:
    import numpy as np
    import lazyarray as xp
    xv = np.linspace(0.0, 2.0, 1000)
    a = xp.asarray(xv)
    v = a
    for d in [int(c) for c in sys.argv[2]]:  # a program this process never saw
        v = (xp.tanh(v), v * 0.75, v + 0.25, xp.sin(v))[d % 4]
    r = float(xp.sum(v))
dt = time.perf_counter() - t0
print(json.dumps([dt, r, "llvmlite.binding" in sys.modules]))
"""


def new_process_cases(libs) -> list:
    """The time from ``import lazyarray`` (numpy's import included) to the result of a new
    program in a new process whose building blocks are in the disk cache, beside numpy's
    import and the same kind of expression."""
    cache = _scratch_cache("lazyarray-bench-warm-")
    ids = itertools.count(random.SystemRandom().randrange(10 ** 9, 10 ** 10))
    state = {"llvm": 0, "calls": 0}

    def child(mode: str, arg: str):
        env = dict(os.environ, LAZYARRAY_CACHE_DIR=cache)
        env.pop("PYTHONDONTWRITEBYTECODE", None)  # an installed package has its bytecode
        out = subprocess.run([sys.executable, "-c", _WARM_CHILD, mode, arg], env=env,
                             capture_output=True, text=True, check=True).stdout
        return json.loads(out.strip().splitlines()[-1])

    def make_numpy():
        return lambda: tuple(child("numpy", "0")[:2])

    def make_lazy():
        child("lazy", "0123")  # fills the disk cache with the building blocks
        subprocess.run([sys.executable, "-c", _FILL], check=True,
                       env=dict(os.environ, LAZYARRAY_CACHE_DIR=cache))

        def run():
            dt, r, llvm = child("lazy", str(next(ids)))
            state["llvm"] += llvm
            state["calls"] += 1
            return dt, r
        return run

    return [Case("numpy", make_numpy, memory=False, reported=True),
            Case("lazyarray", make_lazy, memory=False, reported=True, fresh=True,
                 after=lambda: f"llvmlite.binding imported in {state['llvm']} of "
                               f"{state['calls']} processes")]


# ------------------------------------------------------------------ long chains

def chain_cases(length: int) -> Callable:
    """A chain of ``length`` recorded multiplications, evaluated once (time per op).  Every
    sample starts with the program caches emptied (``PROGRAMS.clear()``): its evaluation
    is a first one, as a new structure's (the building blocks stay loaded)."""
    def cases(libs) -> list:
        from lazyarray.backend.cache import PROGRAMS
        xv = np.linspace(0.5, 1.5, 1000)
        state: dict = {}

        def make():
            def run():
                PROGRAMS.clear()
                a = xp.asarray(xv)
                e = a
                t0 = time.perf_counter()
                for _ in range(length):
                    e = e * 1.0000001
                t1 = time.perf_counter()
                r = float(xp.sum(e))
                t2 = time.perf_counter()
                state["record"] = (t1 - t0) / length
                return t2 - t1, r
            return run

        def check(res):
            return mismatch(res, float(np.sum(xv * 1.0000001 ** length)), rtol=1e-9)

        return [Case("lazyarray", make, check, memory=length <= 100_000, reported=True,
                     fresh=True, per=length,
                     after=lambda: f"recording {1e6 * state.get('record', 0):.2f} us/op",
                     note="first evaluation, per op")]
    return cases


# ------------------------------------------------------------------ scikit-learn

_SKLEARN_CHILD = r"""
import json, os, sys, time, warnings
os.environ.setdefault("SCIPY_ARRAY_API", "1")
import numpy as np
import sklearn
import array_api_strict as strict
import lazyarray as xp
from sklearn.decomposition import PCA
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.linear_model import Ridge
from sklearn.preprocessing import MaxAbsScaler, MinMaxScaler, Normalizer, StandardScaler
warnings.filterwarnings("ignore")
rng = np.random.default_rng(0)
X = rng.standard_normal((200, 12))
y = (X[:, 0] + 0.1 * rng.standard_normal(200) > 0).astype(np.float64)
make = {"StandardScaler": StandardScaler, "MinMaxScaler": MinMaxScaler,
        "MaxAbsScaler": MaxAbsScaler, "Normalizer": Normalizer,
        "PCA": lambda: PCA(n_components=3, svd_solver="full"),
        "Ridge": lambda: Ridge(solver="svd"), "LDA": LinearDiscriminantAnalysis}[sys.argv[1]]
def fit(ns):
    Xa, ya = ns.asarray(X), ns.asarray(y)
    est = make()
    if sys.argv[1] in ("Ridge", "LDA"):
        est.fit(Xa, ya); out = est.predict(Xa)
    else:
        out = est.fit_transform(Xa)
    return np.asarray(out)
import gc
with sklearn.config_context(array_api_dispatch=True):
    fit(np)  # scikit-learn's own first-use costs, for neither side
    # each side starts from an empty young generation: a collection of the imports'
    # objects (1-2 ms) fell inside whichever fit its counters reached
    gc.collect(); t0 = time.perf_counter(); a = fit(strict); t1 = time.perf_counter()
    gc.collect(); t2 = time.perf_counter(); b = fit(xp); t3 = time.perf_counter()
ok = bool(np.allclose(a, b, rtol=1e-8, atol=1e-8))
print(json.dumps([t1 - t0, t3 - t2, ok]))
"""

ESTIMATORS = ("StandardScaler", "MinMaxScaler", "MaxAbsScaler", "Normalizer", "PCA", "Ridge",
              "LDA")


def sklearn_cases(libs) -> list:
    """Each estimator's first fit (+ transform or predict) in a fresh process, with
    array-api-strict and then lazyarray, building blocks in the disk cache; OpenBLAS on
    one thread on both sides."""
    try:
        import array_api_strict  # noqa: F401
        import sklearn  # noqa: F401
    except ImportError:
        return []
    cache = _scratch_cache("lazyarray-bench-sklearn-")
    env = dict(os.environ, LAZYARRAY_CACHE_DIR=cache, OPENBLAS_NUM_THREADS="1",
               SCIPY_ARRAY_API="1")
    env.pop("PYTHONDONTWRITEBYTECODE", None)

    def child(name: str) -> list:
        out = subprocess.run([sys.executable, "-c", _SKLEARN_CHILD, name], env=env,
                             capture_output=True, text=True, check=True).stdout
        return json.loads(out.strip().splitlines()[-1])

    cases = []
    for name in ESTIMATORS:
        def strict_case(name=name):
            def run():
                s, _, ok = child(name)
                return s, ok
            return run

        def lazy_case(name=name):
            child(name)  # the building blocks these fits need, into the disk cache
            subprocess.run([sys.executable, "-c", _FILL], env=env, check=True)

            def run():
                _, t, ok = child(name)
                return t, ok
            return run
        cases.append(Case(f"strict {name}", strict_case, memory=False, reported=True))
        cases.append(Case(f"lazyarray {name}", lazy_case, memory=False, reported=True,
                          check=lambda ok: None if ok else "differs from array-api-strict"))
    return cases


WORKLOADS = [
    *(Workload(f"new_{kind}_{tag}", f"first evaluation of a new structure: {kind}, n={n:,}",
               new_structure_cases(kind, n), big=n > 1000)
      for n, tag in ((1000, "1e3"), (1_000_000, "1e6")) for kind in KINDS),
    Workload("new_cold_cache", "first calls on an empty disk cache (a new machine), n=1,000: "
             "the worst call's wait beyond numpy's time", cold_cases),
    Workload("new_process", "import lazyarray to the result of a new program in a new "
             "process, building blocks on disk", new_process_cases),
    *(Workload(f"chain_{tag}", f"first evaluation of a chain of {length:,} recorded ops, n=1000",
               chain_cases(length), big=length > 10_000)
      for length, tag in ((1000, "1e3"), (10_000, "1e4"), (100_000, "1e5"),
                          (1_000_000, "1e6"))),
    Workload("sklearn_first_fit", "scikit-learn estimators' first fit in a fresh process "
             "(array API dispatch, OPENBLAS_NUM_THREADS=1)", sklearn_cases),
]
