"""The seed walk-through: ``python -m lazyarray``.

Runs f(x) = sum(sin(x) * x**2) at n=1000 (x = linspace(0, 2, n)) through
lazyarray the way the seed document runs it through jax.jit and tenferro:
tracing, phases, shape changes, constant capture, attached values and a
data-dependent ``if``; then makes sure this machine's building blocks are built.
"""
from __future__ import annotations

import sys
import time

import numpy as np

import lazyarray as xp

F_1000, F_2000 = 1235.3258724583127, 2470.067398026252
G_W2, G_W3 = 1415.6395146159223, 2123.4592719238835


def f(x):
    return xp.sum(xp.sin(x) * x**2)


def reference(x: np.ndarray) -> float:
    """sum(sin(x)*x**2) in extended precision, rounded once to float64."""
    xl = x.astype(np.longdouble)
    return float(np.sum(np.sin(xl) * xl * xl))


def us(seconds: float) -> str:
    return f"{seconds * 1e6:.1f} us"


def timed(fn, *args):
    t0 = time.perf_counter()
    out = fn(*args)
    return out, time.perf_counter() - t0


def steady(fn, n: int = 200) -> float:
    best = float("inf")
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def misses() -> int:
    """LLVM compiles so far (units of code: kernels, building blocks, trampolines)."""
    return xp.compile_cache_info().compiles


def section(title: str) -> None:
    print(f"\n# {title}")


def tracing(x1000):
    section("1. tracing: the recorded program")
    x = xp.placeholder((1000,), xp.float64, name="x")
    prog = xp.compile(f(x), inputs=[x])
    print(prog)
    print(f"inputs={len(prog.inputs)} ops={len(prog.ops)}: {' '.join(prog.ops)}")
    return prog


def phases(x1000):
    section("2. phases")
    lazy = xp.asarray(x1000)
    m0, w0 = misses(), xp.compile_cache_info().compile_waits
    v, t_new = timed(lambda: float(f(lazy)))
    waited = xp.compile_cache_info().compile_waits - w0
    print(f"first evaluation of a new structure: {us(t_new)}, on the interpreter (building "
          f"blocks compiled in advance; compiles waited for: {waited})")
    t0 = time.perf_counter()
    x = xp.placeholder((1000,), xp.float64, name="x")
    prog = xp.compile(f(x), inputs=[x])
    t_build = time.perf_counter() - t0
    m0, s0 = misses(), xp.compile_cache_info().compile_seconds
    p, t_prep = timed(prog.prepare, x1000)  # asks for compiled code: waits for its kernel
    secs = xp.compile_cache_info().compile_seconds - s0
    v, t_first = timed(p, x1000)
    t_steady = steady(lambda: p(x1000))
    _, t_again = timed(prog.prepare, x1000)
    t_np = steady(lambda: np.sum(np.sin(x1000) * x1000**2))
    val, ref = float(v), reference(x1000)
    print(f"value={val!r} |.-exact|={abs(val - ref):.1e} (expected {F_1000!r})")
    print(f"record {us(t_build)}, prepare {us(t_prep)} (LLVM compiles: {misses() - m0}, "
          f"{secs * 1e3:.1f} ms; none when its kernel is in the disk cache), "
          f"first run {us(t_first)}, steady {us(t_steady)}")
    print(f"prepare again (cache) {us(t_again)}; numpy np.sum(np.sin(x)*x**2) steady "
          f"{us(t_np)}: lazyarray/numpy = {t_steady / t_np:.2f}")
    t_lazy = steady(lambda: float(f(lazy)))
    print(f"implicit lazy evaluation float(f(xp.asarray(x))) steady {us(t_lazy)} "
          f"(record + signature look-up + run)")
    print(f"LLVM loaded in this process: {'llvmlite.binding' in sys.modules} (compiles run in "
          "a helper process; code on disk is mapped without LLVM)")
    return prog, p


def shape_change(prog, p, x1000, x2000):
    section("3. shape change")
    for what, call in (("run", lambda: p(x2000)), ("prepare", lambda: prog.prepare(x2000))):
        try:
            call()
            print(f"{what}: accepted (unexpected)")
        except ValueError as e:
            print(f"{what}: ValueError: {e}")
    m0 = misses()
    t0 = time.perf_counter()
    x = xp.placeholder((2000,), xp.float64, name="x")
    v = xp.compile(f(x), inputs=[x]).prepare(x2000)(x2000)
    t = time.perf_counter() - t0
    print(f"rebuild for 2000: record+compile+prepare+run {us(t)}, LLVM compiles {misses() - m0}, "
          f"value={float(v)!r} (expected {F_2000!r})")
    xs = xp.placeholder(("n",), xp.float64, name="x")
    for label, y in (("elementwise", f(xs)),
                     ("matmul", xp.matmul(xp.sin(xs), xs * xs)),
                     ("vecdot", xp.vecdot(xp.sin(xs), xs * xs))):
        sp = xp.compile(y, inputs=[xs])
        pp = sp.prepare(x1000)
        m0 = misses()
        a, b = float(pp(x1000)), float(pp(x2000))
        print(f"{label} ops: {' '.join(sp.ops)}; prepared once at 1000: run 1000 -> {a!r}, "
              f"run 2000 -> {b!r} (LLVM compiles between: {misses() - m0})")


def constant_capture(x1000):
    section("4. constant capture and rebinding")
    w = xp.full(1000, 2.0)
    xc = xp.placeholder((1000,), xp.float64, name="x")
    prog = xp.compile(xp.sum(xp.sin(xc) * w), inputs=[xc])
    print(prog)
    print(f"inputs={len(prog.inputs)} (x index {prog.input_index(xc)}, w index "
          f"{prog.input_index(w)})")
    p = prog.prepare(x1000)
    print(f"run with [x]: {float(p(x1000))!r} (expected {G_W2!r})")
    m0 = misses()
    w3 = np.full(1000, 3.0)
    print(f"run with [x, w=3]: {float(p(x1000, w3))!r} (expected {G_W3!r}), "
          f"LLVM compiles: {misses() - m0}")
    t0 = time.perf_counter()
    w_new = xp.full(1000, 3.0)
    xr = xp.placeholder((1000,), xp.float64, name="x")
    v = xp.compile(xp.sum(xp.sin(xr) * w_new), inputs=[xr]).prepare(x1000)(x1000)
    print(f"rebuilt with w=3: record+compile+prepare+run {us(time.perf_counter() - t0)}, "
          f"value {float(v)!r}, LLVM compiles: {misses() - m0}")
    for i in range(3):
        wi = xp.full(1000, 2.0 + i)
        g = xp.jit(lambda x: xp.sum(xp.sin(x) * wi))
        m0 = misses()
        v, t = timed(g, x1000)
        print(f"new closure over new w, iteration {i}: first call {us(t)}, value "
              f"{float(v)!r}, LLVM compiles: {misses() - m0}")
    print(f"cache: {xp.compile_cache_info()}")


def attached_values():
    section("5. attached values")
    x = xp.placeholder((1000,), xp.float64, name="x")
    w = xp.full(1000, 2.0)
    rows = (("x placeholder", x), ("w data leaf", w), ("y = f(x)", f(x)),
            ("w * w (derived from data only)", w * w))
    for label, a in rows:
        print(f"{label} attached_value: {a.attached_value is not None}")


def data_dependent_if(x1000):
    section("6. data-dependent control flow")
    jf = xp.jit(lambda x: x if xp.sum(x) > 0 else -x)
    try:
        jf(x1000)
        print("traced if: accepted (unexpected)")
    except xp.ConcretizationError as e:
        print(f"ConcretizationError: {e}")
    jw = xp.jit(lambda x: xp.where(xp.sum(x) > 0, x, -x))
    print(f"with xp.where instead: first elements {np.asarray(jw(x1000))[:3]}")
    a = xp.asarray(x1000)
    r = a if xp.sum(a) > 0 else -a
    print(f"plain lazy array from data: `a if xp.sum(a) > 0 else -a` evaluates: {r[1]!r}")


def building_blocks() -> None:
    section("7. this machine's building blocks")
    from .backend import library, native
    t0 = time.perf_counter()
    library.prebuild()  # the bundle and the GEMM routines: read from disk, or compiled once
    native.flush()
    state = "loaded" if library.prebuilt() else "not all built (built when needed)"
    print(f"the bundle and the GEMM routines: {state} in {time.perf_counter() - t0:.1f} s "
          "(compiled once per machine, then read from the disk cache)")


def main() -> None:
    x1000, x2000 = np.linspace(0, 2, 1000), np.linspace(0, 2, 2000)
    print(f"lazyarray {xp.__version__}: f(x) = sum(sin(x) * x**2), x = linspace(0, 2, n)")
    tracing(x1000)
    prog, p = phases(x1000)
    shape_change(prog, p, x1000, x2000)
    constant_capture(x1000)
    attached_values()
    data_dependent_if(x1000)
    building_blocks()


if __name__ == "__main__":
    main()
