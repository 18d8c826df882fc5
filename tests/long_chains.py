"""Long chains of recorded elementwise ops, evaluated once: time per op and memory.

    python tests/long_chains.py [--lengths 1000,10000,100000,1000000]

For each length: a chain of ``e = e * 1.0000001`` on 1,000 doubles (two graph nodes
per op: the product and its scalar) is recorded, then evaluated once (a new structure:
it runs on the interpreter); the result is checked against numpy.  Printed per length:
recording time per op, first-evaluation time per op, the process's peak RSS and the
growth of RSS per op.  Exits non-zero if a result is wrong.
"""
from __future__ import annotations

import argparse
import resource
import sys
import time

import numpy as np

import lazyarray as xp


def _rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096 / 2**20


def run(length: int) -> bool:
    x = np.linspace(0.5, 1.5, 1000)
    base = _rss_mb()
    e = xp.asarray(x)
    t0 = time.perf_counter()
    for _ in range(length):
        e = e * 1.0000001
    t1 = time.perf_counter()
    got = float(xp.sum(e))
    t2 = time.perf_counter()
    want = float(np.sum(x * 1.0000001 ** length))
    ok = abs(got - want) <= 1e-9 * abs(want)
    grown = _rss_mb() - base
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{length:>9,} ops: record {1e6 * (t1 - t0) / length:6.2f} us/op, first evaluation "
          f"{1e6 * (t2 - t1) / length:6.2f} us/op ({t2 - t1:7.2f} s), RSS +{grown:7.1f} MB "
          f"({1e3 * grown / length:.2f} kB/op), peak {peak:7.0f} MB, "
          f"{'ok' if ok else f'WRONG: {got} vs {want}'}", flush=True)
    return ok


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lengths", default="1000,10000,100000,1000000")
    args = ap.parse_args(argv)
    ok = all([run(int(n)) for n in args.lengths.split(",")])
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
