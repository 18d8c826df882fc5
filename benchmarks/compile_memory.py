"""Resident memory while compiling many distinct small programs.

    python benchmarks/compile_memory.py --programs 20000

Each program is a structurally new chain of unary functions, so each one
compiles (or loads from the disk cache, which is turned off here).  Prints the
resident set size every 1,000 programs and the growth after the first 1,000, and
the growth per program once the code cache is full (from program 3,000 on: the
cache holds 2,048), which is what a leak per program shows up in.
"""
from __future__ import annotations

import argparse
import itertools
import os
import time

os.environ.setdefault("LAZYARRAY_DISK_CACHE", "0")

import numpy as np  # noqa: E402

import lazyarray as xp  # noqa: E402

FUNCS = ["sin", "cos", "exp", "tanh", "sqrt", "abs", "log1p", "floor", "ceil", "expm1",
         "atan", "sinh", "negative", "square", "trunc", "round", "sign", "cosh", "asinh", "log2"]


def rss_mb(pid="self") -> float:
    try:
        with open(f"/proc/{pid}/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except OSError:
        return 0.0


def worker_mb() -> float:
    """Resident memory of the compile worker process (see backend/worker.py)."""
    from lazyarray.backend import llvm
    pool = llvm.codegen()._pool
    w = pool and pool.current
    return rss_mb(w.proc.pid) if w else 0.0


def programs():
    """Distinct op chains, shortest first: 20 + 400 + 8000 + 160000 of them."""
    for n in itertools.count(1):
        yield from itertools.product(FUNCS, repeat=n)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--programs", type=int, default=20000)
    args = ap.parse_args()
    x = xp.asarray(np.linspace(0.1, 0.9, 8))
    start = rss_mb()
    t0 = time.perf_counter()
    base = full = None
    for i, chain in enumerate(itertools.islice(programs(), args.programs), 1):
        y = x
        for name in chain:
            y = getattr(xp, name)(y)
        np.asarray(y)
        if i % 1000 == 0:
            info = xp.compile_cache_info()
            print(f"{i:6d} programs  rss {rss_mb():7.1f} MB  compile worker {worker_mb():6.1f} MB  "
                  f"compiles {info.misses}  entries {info.entries}  "
                  f"{time.perf_counter() - t0:6.1f} s", flush=True)
            if i == 1000:
                base = rss_mb()
            if i == 3000:
                full = rss_mb()
    if base is not None:
        print(f"start {start:.1f} MB, after 1,000 programs {base:.1f} MB, end {rss_mb():.1f} MB: "
              f"growth after the first 1,000 = {rss_mb() - base:.1f} MB")
    if full is not None and args.programs > 3000:
        print(f"growth per program once the code cache is full: "
              f"{(rss_mb() - full) * 1024 / (args.programs - 3000):.2f} KB")


if __name__ == "__main__":
    main()
