"""Workloads that need a new process: the first call of a program another
process compiled (loaded from the disk cache).

Each sample starts a child Python that imports numpy and lazyarray, then times
``float(xp.sum(xp.sin(a) * a**2))`` for n=1000 inside itself.  The disk cache
lives in a temporary folder that an untimed first child fills.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from ._cases import Case, Workload

_CHILD = r"""
import json, sys, time
import numpy as np
xv = np.linspace(0.0, 2.0, 1000)
if sys.argv[1] == "numpy":
    t0 = time.perf_counter()
    r = float(np.sum(np.sin(xv) * xv**2))
    dt = time.perf_counter() - t0
    print(json.dumps([dt, r]))
    raise SystemExit
import lazyarray as xp
a = xp.asarray(xv)
if sys.argv[1] == "warm":
    from lazyarray.backend import llvm
    llvm.codegen()  # LLVM initialised and the JIT engine made before timing
t0 = time.perf_counter()
r = float(xp.sum(xp.sin(a) * a**2))
dt = time.perf_counter() - t0
info = xp.compile_cache_info()
print(json.dumps([dt, r, info.misses, info.disk_hits]))
"""

_ROOT = str(Path(__file__).resolve().parent.parent)


def _child(mode: str, cache: str):
    env = dict(os.environ, LAZYARRAY_CACHE_DIR=cache, LAZYARRAY_DISK_CACHE="1",
               PYTHONPATH=os.pathsep.join(filter(None, [_ROOT, os.environ.get("PYTHONPATH")])))
    # Bytecode is cached as for any installed package (the untimed first child writes it),
    # even where the environment turns that off: compiling sources is not the program's cost.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    out = subprocess.run([sys.executable, "-c", _CHILD, mode], env=env, capture_output=True,
                         text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def disk_cases(libs) -> list:
    cache = tempfile.mkdtemp(prefix="lazyarray-bench-cache-")
    state = {"misses": 0, "disk_hits": 0, "calls": 0}

    def lazy(mode):
        def make():
            _child(mode, cache)  # fills the disk cache (the warm-up call in measure repeats it)

            def call():
                dt, r, misses, hits = _child(mode, cache)
                state["misses"] += misses
                state["disk_hits"] += hits
                state["calls"] += 1
                return dt, r
            return call
        return make

    def note():
        n = f"in {state['calls']} new processes: compiles {state['misses']}, " \
            f"disk-cache loads {state['disk_hits']}"
        state.update(misses=0, disk_hits=0, calls=0)
        return n

    def make_numpy():
        return lambda: tuple(_child("numpy", cache))

    return [Case("numpy", make_numpy, memory=False, reported=True),
            Case("lazyarray warm", lazy("warm"), memory=False, reported=True, after=note),
            Case("lazyarray cold", lazy("cold"), memory=False, reported=True, after=note,
                 note="with LLVM start-up")]


WORKLOADS = [
    Workload("disk_cache_first_call", "first call in a new process of a program compiled by an "
             "earlier one (disk cache), n=1000", disk_cases),
]
