"""lazyarray benchmark harness: lazyarray vs numpy, numexpr, numba and jax.

    python -m benchmarks [--quick] [--only NAME[,NAME...]] [--list]
    python benchmarks/run.py ...

Every workload runs each library side by side in this process and prints one
table: median and min time, sample count, ratio to numpy and to jax, peak
extra memory, and the check of lazyarray's result against numpy's.  A row
that raises shows the error and the run goes on.  See benchmarks/README.md.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
import traceback
from dataclasses import dataclass
from typing import Optional

if __package__ in (None, ""):  # run as a script: make ``benchmarks`` importable
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    __package__ = "benchmarks"  # noqa: A001

from . import _overhead, _process, _steady, _tiers  # noqa: E402
from ._cases import Case, Workload  # noqa: E402
from ._env import Libs, header, load_libs  # noqa: E402
from ._timing import Memory, Timing, measure  # noqa: E402

WORKLOADS: list[Workload] = (_steady.WORKLOADS + _overhead.WORKLOADS + _process.WORKLOADS
                             + _tiers.WORKLOADS)


@dataclass
class Row:
    workload: str
    lib: str
    timing: Optional[Timing] = None
    memory: Optional[Memory] = None
    note: str = ""
    error: str = ""
    warning: str = ""


def fmt_time(s: Optional[float]) -> str:
    if s is None:
        return "-"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if s >= scale:
            return f"{s / scale:.3g} {unit}"
    return f"{s / 1e-9:.3g} ns"


def fmt_bytes(b: Optional[int]) -> str:
    if b is None:
        return "-"
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if b >= scale:
            return f"{b / scale:.3g} {unit}"
    return f"{b} B"


def run_case(w: Workload, case: Case, quick: bool, failures: list) -> Row:
    row = Row(w.name, case.lib, note=case.note)
    print(f"  {w.name:<14} {case.lib:<20}", end="", file=sys.stderr, flush=True)
    t0 = time.perf_counter()
    try:
        fn = case.make()
        timing, mem, result = measure(fn, quick, case.memory, case.fresh, case.reported)
        if case.per != 1:
            timing = Timing(timing.median / case.per, timing.min / case.per,
                            timing.samples, timing.number)
        row.timing, row.memory = timing, (mem if case.memory else None)
        if case.check is not None:
            row.warning = case.check(result) or ""
        if case.after is not None:
            row.note = "; ".join(filter(None, [row.note, case.after()]))
    except Exception as e:  # noqa: BLE001 - a failing row must not stop the run
        row.error = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"[:120]
        failures.append((w.name, case.lib, traceback.format_exc()))
    print(f" {time.perf_counter() - t0:6.1f} s", file=sys.stderr, flush=True)
    return row


def run_workload(w: Workload, libs: Libs, quick: bool, failures: list) -> list:
    print(f"{w.name}: {w.title}", file=sys.stderr, flush=True)
    try:
        cases = w.cases(libs)
    except Exception as e:  # noqa: BLE001
        failures.append((w.name, "(setup)", traceback.format_exc()))
        return [Row(w.name, "(setup)", error=f"{type(e).__name__}: {e}"[:120])]
    return [run_case(w, c, quick, failures) for c in cases]


def _ratio(t: Optional[Timing], base: Optional[Timing]) -> str:
    if t is None or base is None or base.median <= 0:
        return "-"
    return f"{t.median / base.median:.3g}x"


def table(rows: list, titles: dict) -> list[str]:
    """The result table, one block per workload."""
    cols = ("library", "median", "min", "samples", "vs numpy", "vs jax", "py-alloc", "RSS",
            "check / note")
    widths = (20, 9, 9, 9, 9, 9, 9, 9, 0)
    line = lambda vals: "  ".join(  # noqa: E731
        f"{v:<{w}}" if w else v for v, w in zip(vals, widths)).rstrip()
    out = [line(cols), "-" * 110]
    for name in dict.fromkeys(r.workload for r in rows):
        block = [r for r in rows if r.workload == name]
        base = {r.lib: r.timing for r in block}
        np_t = base.get("numpy")
        jax_t = base.get("jax.jit") or base.get("jax.make_jaxpr")
        out.append(f"[{name}] {titles.get(name, '')}")
        for r in block:
            t, m = r.timing, r.memory
            if r.error:
                out.append(line((r.lib, "ERROR", "", "", "", "", "", "", r.error)))
                continue
            check = "ok" if r.lib.startswith("lazyarray") and not r.warning and \
                not r.lib.endswith("record") else ""
            samples = f"{t.samples}" + (f"x{t.number}" if t.number > 1 else "")
            out.append(line((r.lib, fmt_time(t.median), fmt_time(t.min), samples,
                             _ratio(t, np_t) if r.lib != "numpy" else "1",
                             _ratio(t, jax_t) if jax_t is not None else "-",
                             fmt_bytes(m.traced) if m else "-", fmt_bytes(m.rss) if m else "-",
                             "; ".join(filter(None, [check, r.note])))))
            if r.warning:
                out.append(line(("  WARNING", "", "", "", "", "", "", "",
                                 f"{r.lib} differs from numpy: {r.warning}")))
        out.append("")
    return out


def parse(argv) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true",
                    help="fewer samples; skip the n=1e7 workloads")
    ap.add_argument("--only", metavar="NAME[,NAME...]",
                    help="run only these workloads (see --list)")
    ap.add_argument("--list", action="store_true", help="list the workloads and exit")
    return ap.parse_args(argv)


def select(args: argparse.Namespace) -> list:
    chosen = [w for w in WORKLOADS if not (args.quick and w.big)]
    if args.only:
        names = [n.strip() for n in args.only.split(",") if n.strip()]
        known = {w.name for w in WORKLOADS}
        unknown = [n for n in names if n not in known]
        if unknown:
            raise SystemExit(f"--only: unknown workload(s) {', '.join(unknown)}; "
                             f"known: {', '.join(w.name for w in WORKLOADS)}")
        chosen = [w for w in WORKLOADS if w.name in names]
    return chosen


def main(argv=None) -> int:
    args = parse(argv)
    if args.list:
        for w in WORKLOADS:
            print(f"{w.name:<14} {w.title}{'  (skipped by --quick)' if w.big else ''}")
        return 0
    chosen = select(args)
    libs = load_libs()
    t0 = time.perf_counter()
    rows, failures = [], []
    for w in chosen:
        rows += run_workload(w, libs, args.quick, failures)
    print("\n".join(header(libs, args.quick)))
    print(f"wall time {time.perf_counter() - t0:.0f} s; times per call (record_per_op: per op); "
          "ratios are median / median; memory = peak extra over one call "
          "(py-alloc: tracemalloc, RSS: peak RSS mark)\n")
    print("\n".join(table(rows, {w.name: w.title for w in WORKLOADS})))
    if failures:
        print("Failures:")
        for name, lib, tb in failures:
            print(f"--- {name} / {lib}\n{tb}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
