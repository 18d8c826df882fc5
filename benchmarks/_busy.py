"""The busy-cores part of the workload suite (issue 13): lazyarray's native thread pool
next to other processes.  While ``SPINNERS`` processes keep the machine's cores busy
(each a Python loop spinning), a 64x64 matrix product and ``f(x) = sum(sin(x) * x**2)``
at n=1,000 and n=1,000,000 are timed with the default thread count and with
``LAZYARRAY_NUM_THREADS=1``, each in fresh processes taken in turn (the thread count is
read when the pool starts); the target is the first at most ``TARGET`` times the second.
"""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time

TARGET = 1.05
SPINNERS = 2
ROUNDS, QUICK_ROUNDS = 8, 4      # child processes per setting
SETTLE = 1.0                     # seconds the spinners run before the first child

# A child: steady-state median per call of each case, as JSON {case: seconds}.  Every case
# is warmed until its kernels are compiled (the background compiles waited for), then
# called for MEASURE seconds (at least MIN_CALLS calls).
_CHILD = r"""
import json, statistics, time
import numpy as np, lazyarray as xp
from lazyarray.backend import native
MEASURE, MIN_CALLS = 0.6, 30
rng = np.random.default_rng(5)
a, b = xp.asarray(rng.uniform(0, 1, (64, 64))), xp.asarray(rng.uniform(0, 1, (64, 64)))
x3, x6 = xp.asarray(rng.uniform(0, 1, 1000)), xp.asarray(rng.uniform(0, 1, 1_000_000))
cases = {
    "64x64 matmul": lambda: np.asarray(a @ b),
    "f n=1000": lambda: float(xp.sum(xp.sin(x3) * x3 ** 2)),
    "f n=1e6": lambda: float(xp.sum(xp.sin(x6) * x6 ** 2)),
}
out = {}
for name, call in cases.items():
    for _ in range(20):
        call()
    native.flush()
    for _ in range(20):
        call()
    t = []
    end = time.perf_counter() + MEASURE
    while time.perf_counter() < end or len(t) < MIN_CALLS:
        t0 = time.perf_counter(); call(); t.append(time.perf_counter() - t0)
    out[name] = statistics.median(t)
print(json.dumps(out))
"""

_SPIN = "while True: pass"


def _child(threads) -> dict:
    env = dict(os.environ)
    env.pop("LAZYARRAY_NUM_THREADS", None)
    if threads is not None:
        env["LAZYARRAY_NUM_THREADS"] = str(threads)
    out = subprocess.run([sys.executable, "-c", _CHILD], env=env, capture_output=True,
                         text=True, check=True, timeout=600).stdout
    return json.loads(out.strip().splitlines()[-1])


def busy_costs(quick: bool) -> dict:
    """{"rows": [(case, default s, one-thread s, ratio)], "load": (start, end),
    "spinners": n}: medians over the rounds of each setting's per-call medians."""
    load0 = os.getloadavg()[0]
    spin = [subprocess.Popen([sys.executable, "-c", _SPIN]) for _ in range(SPINNERS)]
    try:
        time.sleep(SETTLE)
        got: dict = {"default": [], "one": []}
        for _ in range(QUICK_ROUNDS if quick else ROUNDS):
            got["default"].append(_child(None))
            got["one"].append(_child(1))
    finally:
        for p in spin:
            p.kill()
            p.wait()
    rows = []
    for case in got["default"][0]:
        d = statistics.median(r[case] for r in got["default"])
        o = statistics.median(r[case] for r in got["one"])
        rows.append((case, d, o, d / o))
    return {"rows": rows, "load": (load0, os.getloadavg()[0]), "spinners": SPINNERS}


def busy_table(res: dict, fmt_time) -> list[str]:
    lo, hi = res["load"]
    out = [f"{res['spinners']} spinning processes; median per call, alternating fresh processes; "
           f"load average {lo:.2f} at the start, {hi:.2f} at the end",
           f"{'case':<16} {'default':>10} {'1 thread':>10} {'ratio':>7}  target {TARGET}x",
           "-" * 60]
    for case, d, o, r in res["rows"]:
        out.append(f"{case:<16} {fmt_time(d):>10} {fmt_time(o):>10} {r:>6.2f}x  "
                   + ("met" if r <= TARGET else "MISSED"))
    return out


def target_line(res: dict) -> str:
    miss = [f"{c} {r:.2f}x" for c, _, _, r in res["rows"] if r > TARGET]
    return (f"{'busy cores':<15} target <= {TARGET}x: met on {len(res['rows']) - len(miss)} "
            f"of {len(res['rows'])}" + (f"; missed: {', '.join(miss)}" if miss else ""))
