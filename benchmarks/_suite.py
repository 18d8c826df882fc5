"""How each library runs a workload-suite program, and the measurement of one
(program, size): first calls, then the steady state of every library.

A library's entry is a *maker*: untimed setup (converting inputs, building the jitted
function) that returns the timed call.  Times come from ``_timing.measure`` (warm-up
calls first, lazyarray's background compiles waited for, then median of many samples).
"""
from __future__ import annotations

import sys
import time
import traceback
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

import numpy as np

import lazyarray as xp

from ._cases import mismatch
from ._numba_programs import numba_programs
from ._programs import Program, run_loop
from ._timing import _settle, measure

RTOL = 1e-9                   # float64 results against numpy's
ATOL_SCALE = 1e-9             # atol = ATOL_SCALE * max|numpy's output| (values near 0)
LIBS = ("numpy", "lazy implicit", "lazy jit", "numexpr", "numba", "jax.jit")
PEERS = ("numexpr", "numba", "jax.jit")
FIRST_CALL = ("lazy implicit", "lazy jit", "jax.jit")
LOOP_ITERS = (10, 200)


@dataclass
class Result:
    """One (program, size, variant): per-library median seconds (per iteration for a
    loop), first-call seconds, and what went wrong."""

    program: str
    size: str
    variant: str = ""                 # "it10" / "it200" for the loop
    times: dict = field(default_factory=dict)
    mins: dict = field(default_factory=dict)      # lib -> least sample (loop growth)
    first: dict = field(default_factory=dict)
    skipped: dict = field(default_factory=dict)   # lib -> reason
    errors: dict = field(default_factory=dict)    # lib -> one line
    mismatches: dict = field(default_factory=dict)
    notes: list = field(default_factory=list)


def _outputs(r: Any) -> tuple:
    return tuple(np.asarray(o) for o in (r if isinstance(r, (tuple, list)) else (r,)))


def check(got: Any, ref: tuple) -> Optional[str]:
    """Why a library's outputs differ from numpy's (None when all match)."""
    got = _outputs(got)
    if len(got) != len(ref):
        return f"{len(got)} outputs, numpy has {len(ref)}"
    for i, (g, r) in enumerate(zip(got, ref)):
        scale = float(np.max(np.abs(r))) if r.size else 1.0
        why = mismatch(g, r, rtol=RTOL, atol=ATOL_SCALE * max(scale, 1e-300))
        if why:
            return f"output {i}: {why}"
    return None


def _jax_fn(libs, fn):
    jnp = libs.jnp
    return libs.jax.jit(lambda *a: fn(jnp, *a))


def plain_makers(prog: Program, vals: tuple, libs) -> tuple[dict, dict]:
    """lib -> maker for a one-shot program, and lib -> reason for the skipped ones."""
    makers: dict = {"numpy": lambda: (lambda: prog.fn(np, *vals))}

    def implicit():
        arrs = [xp.asarray(v) for v in vals]
        return lambda: tuple(np.asarray(o) for o in prog.fn(xp, *arrs))

    def jit():
        jf = xp.jit(lambda *a: prog.fn(xp, *a))
        return lambda: jf(*vals)
    makers["lazy implicit"], makers["lazy jit"] = implicit, jit
    skipped = {}
    if libs.numexpr is None or prog.numexpr is None:
        skipped["numexpr"] = prog.no_numexpr or "not installed"
    else:
        makers["numexpr"] = lambda: (lambda: prog.numexpr(libs.numexpr, *vals))
    if libs.numba is None:
        skipped["numba"] = "not installed"
    else:
        makers["numba"] = lambda: (lambda k=numba_programs(libs.numba)[prog.name]: k(*vals))
    if libs.jax is None:
        skipped["jax.jit"] = "not installed"
    else:
        def jax_maker():
            f, dev = _jax_fn(libs, prog.fn), [libs.jnp.asarray(v) for v in vals]
            return lambda: libs.jax.block_until_ready(f(*dev))
        makers["jax.jit"] = jax_maker
    return makers, skipped


def loop_makers(prog: Program, vals: tuple, libs, iters: int) -> tuple[dict, dict]:
    """lib -> maker of ``run_loop`` over ``iters`` steps (one ``float(loss)`` each)."""
    x, y, w0 = vals
    steps: dict = {"numpy": lambda: (lambda w: prog.fn(np, x, y, w), w0)}

    def implicit():
        lx, ly = xp.asarray(x), xp.asarray(y)
        return lambda w: prog.fn(xp, lx, ly, w), xp.asarray(w0)

    def jit():
        jf = xp.jit(lambda a, b, w: prog.fn(xp, a, b, w))
        return lambda w: jf(x, y, w), w0
    steps["lazy implicit"], steps["lazy jit"] = implicit, jit
    skipped = {"numexpr": prog.no_numexpr}
    if libs.numba is None:
        skipped["numba"] = "not installed"
    else:
        steps["numba"] = lambda k=numba_programs(libs.numba)[prog.name]: (
            lambda w: k(x, y, w), w0)
    if libs.jax is None:
        skipped["jax.jit"] = "not installed"
    else:
        def jax_step():
            f = _jax_fn(libs, prog.fn)
            dx, dy = libs.jnp.asarray(x), libs.jnp.asarray(y)
            return lambda w: f(dx, dy, w), libs.jnp.asarray(w0)
        steps["jax.jit"] = jax_step

    def as_maker(step_maker):
        def make():
            step, start = step_maker()
            return lambda: run_loop(step, start, iters)
        return make
    return {lib: as_maker(m) for lib, m in steps.items()}, skipped


def _first_call(make: Callable) -> tuple[float, Any]:
    fn = make()
    t0 = time.perf_counter()
    r = fn()
    return time.perf_counter() - t0, r


def run_one(res: Result, makers: dict, ref: tuple, quick: bool, per: int = 1,
            failures: Optional[list] = None) -> Result:
    """First calls (lazyarray implicit and jit, jax.jit) then every library's steady
    state; each result checked against numpy's ``ref``."""
    for lib in FIRST_CALL:
        if lib in makers:
            _guard(res, lib, failures, lambda: _record_first(res, lib, makers[lib], ref, per))
    _settle()   # background compiles the first calls started finish before timing
    for lib in LIBS:
        if lib in makers:
            _guard(res, lib, failures, lambda: _record_steady(res, lib, makers[lib], ref,
                                                              quick, per))
    return res


def _record_first(res, lib, make, ref, per):
    t, r = _first_call(make)
    res.first[lib] = t / per
    _note_check(res, lib, r, ref)


def _record_steady(res, lib, make, ref, quick, per):
    timing, _, r = measure(make(), quick, memory=False, fresh=False)
    res.times[lib], res.mins[lib] = timing.median / per, timing.min / per
    _note_check(res, lib, r, ref)


def _note_check(res, lib, r, ref):
    why = check(r, ref)
    if why and lib not in res.mismatches:
        res.mismatches[lib] = why
        print(f"\n*** MISMATCH {res.program}/{res.size}{res.variant} {lib}: {why}",
              file=sys.stderr, flush=True)


def _guard(res, lib, failures, fn):
    """Run one measurement; an exception marks the library as failed, the run goes on."""
    print(f"  {res.program:<14} {res.size:<6} {res.variant:<6} {lib:<14}", end="",
          file=sys.stderr, flush=True)
    t0 = time.perf_counter()
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - one failing library must not stop the suite
        res.errors[lib] = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"[:100]
        if failures is not None:
            failures.append((f"{res.program}/{res.size}{res.variant}", lib, traceback.format_exc()))
    print(f" {time.perf_counter() - t0:6.1f} s", file=sys.stderr, flush=True)
