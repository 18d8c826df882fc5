"""Repeat the interrupt and fork cases of issue 15 many times and count the outcomes.

    python tests/repeat_faults.py --repeats 200 [--jobs 2] [--only native-pool-interrupt]

Each run is one of the scripts of tests/test_faults.py and tests/test_fork.py in a fresh
interpreter (its own process group, killed afterwards: no helper outlives it) with a
time limit.  A run is "ok" when it exits 0 and prints what the test expects; else a
"hang" (over the limit), a "crash" (killed by a signal, or a non-zero exit with a
traceback) or "wrong" (anything else printed).  "missed" counts runs where the script
found no moment to interrupt (its own exit message): not a pass, not a product failure.
Prints a table and exits non-zero on any hang, crash or wrong result.  Not collected
by pytest (the file name does not start with ``test_``).
"""
from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Callable

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import test_faults as tf  # noqa: E402
import test_fork as tk  # noqa: E402


def _helper_ok(lines: list) -> bool:
    return lines[:2] == ["interrupted; helper dead: True",
                         "right 11 of 11; failures 0 ; fresh helper True compiled True"]


def _stopped_ok(lines: list) -> bool:
    return (len(lines) >= 3 and lines[1] == "waited True helper dead True"
            and lines[2].endswith("; all True ; failures 1"))


def _long_ok(lines: list) -> bool:
    if lines[:2] != ["right True"] * 2 or len(lines) < 3:
        return False
    late = [float(s) for s in lines[2].split()[1:]]
    return len(late) == 2 and max(late) < 2.0


@dataclass
class Case:
    name: str
    script: str
    ok: Callable
    env: dict = field(default_factory=dict)
    fresh_cache: bool = False  # a new disk cache each run (its compiles must happen)


CASES = [
    Case("helper-interrupt", tf.SIGINT_IN_A_COMPILE, _helper_ok,
         {"LAZYARRAY_PREBUILD": "0"}, fresh_cache=True),
    Case("stopped-helper", tf.STOPPED_HELPER, _stopped_ok,
         {"LAZYARRAY_PREBUILD": "0", "LAZYARRAY_COMPILE_TIMEOUT": "2"}, fresh_cache=True),
    Case("thread-pool-interrupt", tf.SIGINT_IN_THE_PYTHON_POOL, tf.pool_interrupts_ok,
         {"LAZYARRAY_NATIVE_THREADS": "0", "LAZYARRAY_NUM_THREADS": "4",
          "LAZYARRAY_BUFFER_POOL_MB": "0"}),
    Case("native-pool-interrupt", tf.SIGINT_IN_A_LONG_KERNEL, _long_ok),
    Case("fork-while-compiling", tk.HELD_DURING_FORK, lambda lines: lines == ["child 0"],
         {"LAZYARRAY_COMPILE_WORKER": "0"}),
    Case("fork-while-evaluating", tk.HELD_LOCKS, lambda lines: lines == ["child 0"]),
]
MISSED = ("never interrupted", "never stopped")


def _signal_group(pgid: int, sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except ProcessLookupError:
        pass


def run_once(case: Case, cache: str, timeout: float) -> tuple:
    """(outcome, seconds, detail) of one run."""
    env = dict(os.environ, LAZYARRAY_CACHE_DIR=tempfile.mkdtemp(dir=cache)
               if case.fresh_cache else cache, **case.env)
    t0 = time.monotonic()
    p = subprocess.Popen([sys.executable, "-X", "faulthandler", "-c", case.script],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                         start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
        outcome = None
    except subprocess.TimeoutExpired:
        outcome = "hang"
        _signal_group(p.pid, signal.SIGABRT)  # faulthandler prints every thread's stack
        time.sleep(2)
    finally:
        _signal_group(p.pid, signal.SIGKILL)  # the helper too (a stopped one among them)
    if outcome == "hang":
        out, err = p.communicate()
        return "hang", time.monotonic() - t0, (out + err)[-4000:]
    took = time.monotonic() - t0
    lines = out.splitlines()
    if p.returncode == 0 and case.ok(lines):
        return "ok", took, ""
    if any(m in err for m in MISSED):
        return "missed", took, err[-200:]
    if p.returncode < 0 or "Traceback" in err or "Fatal Python error" in err:
        return "crash", took, f"rc {p.returncode}: {(out + err)[-600:]}"
    return "wrong", took, f"rc {p.returncode}: {(out + err)[-600:]}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=20)
    ap.add_argument("--jobs", type=int, default=2, help="runs at once")
    ap.add_argument("--timeout", type=float, default=180.0, help="seconds a run may take")
    ap.add_argument("--only", action="append", help="a case name (repeatable)")
    a = ap.parse_args(argv)
    cases = [c for c in CASES if not a.only or c.name in a.only]
    root = tempfile.mkdtemp(prefix="lazyarray-repeat-")
    caches = {c.name: tempfile.mkdtemp(dir=root) for c in cases}
    counts = {c.name: Counter() for c in cases}
    seconds = Counter()
    failures = []
    # interleaved: a slow period of the machine is spread over every case
    todo = [c for _ in range(a.repeats) for c in cases]
    t0 = time.monotonic()
    pool = ThreadPoolExecutor(a.jobs)
    done = 0
    try:
        for case, (outcome, took, detail) in zip(
                todo, pool.map(lambda c: run_once(c, caches[c.name], a.timeout), todo)):
            counts[case.name][outcome] += 1
            seconds[case.name] += took
            done += 1
            if outcome not in ("ok", "missed"):
                failures.append((case.name, outcome, detail))
                print(f"  {case.name}: {outcome}: {detail}", flush=True)
            if done % (10 * len(cases)) == 0:
                print(f"  {done} of {len(todo)} runs, {time.monotonic() - t0:.0f} s", flush=True)
    except KeyboardInterrupt:  # the counts so far are still worth a table
        print(f"  interrupted after {done} of {len(todo)} runs", flush=True)
        pool.shutdown(wait=False, cancel_futures=True)
    table(cases, counts, seconds)
    print(f"{done} runs in {time.monotonic() - t0:.0f} s with {a.jobs} at once; load average "
          + " ".join(f"{v:.2f}" for v in os.getloadavg()))
    return 1 if failures or done < len(todo) else 0


def table(cases: list, counts: dict, seconds: Counter) -> None:
    cols = ("ok", "hang", "crash", "wrong", "missed")
    print(f"{'case':24}" + "".join(f"{c:>8}" for c in cols) + f"{'s/run':>8}")
    for c in cases:
        n = sum(counts[c.name].values())
        print(f"{c.name:24}" + "".join(f"{counts[c.name][k]:>8}" for k in cols)
              + f"{seconds[c.name] / max(n, 1):>8.1f}")


if __name__ == "__main__":
    sys.exit(main())
