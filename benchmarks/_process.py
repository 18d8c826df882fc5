"""Workloads that need a new process: the first call of a program another
process compiled (loaded from the disk cache).

Each sample starts a child Python that imports numpy and lazyarray, then times
``float(xp.sum(xp.sin(a) * a**2))`` for n=1000 inside itself (the import is not timed:
``new_process`` in _tiers.py times from the import).  The disk cache lives in a
temporary folder that untimed first children fill: the building blocks, and the
program's compiled kernels (compiled in the background once it ran twice).
"""
from __future__ import annotations

import atexit
import json
import os
import shutil
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
t0 = time.perf_counter()
r = float(xp.sum(xp.sin(a) * a**2))
dt = time.perf_counter() - t0
info = xp.compile_cache_info()
print(json.dumps([dt, r, info.compiles + info.compile_waits, info.disk_hits,
                  "llvmlite.binding" in sys.modules]))
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


_FILL = ("import numpy as np, lazyarray as xp; from lazyarray.backend import native; "
         "a = xp.asarray(np.linspace(0.0, 2.0, 1000)); "
         "[float(xp.sum(xp.sin(a) * a**2)) for _ in range(3)]; native.flush()")


def disk_cases(libs) -> list:
    cache = tempfile.mkdtemp(prefix="lazyarray-bench-cache-")
    atexit.register(shutil.rmtree, cache, True)
    state = {"compiles": 0, "disk_hits": 0, "llvm": 0, "calls": 0}

    def make_lazy():
        for _ in range(2):  # the bundle, then the program's kernels, compiled to disk
            subprocess.run([sys.executable, "-c", _FILL], check=True,
                           env=dict(os.environ, LAZYARRAY_CACHE_DIR=cache))

        def call():
            dt, r, compiles, hits, llvm = _child("lazy", cache)
            state["compiles"] += compiles
            state["disk_hits"] += hits
            state["llvm"] += llvm
            state["calls"] += 1
            return dt, r
        return call

    def note():
        n = (f"in {state['calls']} new processes: compiles {state['compiles']}, "
             f"disk-cache loads {state['disk_hits']}, LLVM loaded in {state['llvm']}")
        state.update(compiles=0, disk_hits=0, llvm=0, calls=0)
        return n

    def make_numpy():
        return lambda: tuple(_child("numpy", cache))

    return [Case("numpy", make_numpy, memory=False, reported=True),
            Case("lazyarray", make_lazy, memory=False, reported=True, after=note)]


WORKLOADS = [
    Workload("disk_cache_first_call", "first call in a new process of a program compiled by an "
             "earlier one (disk cache), n=1000", disk_cases),
]
