"""JIT engines (backend/llvm.py): a fresh engine takes over every
``ENGINE_LIBRARIES`` libraries, code stays callable while its ``Compiled`` is
referenced, an old engine goes with its last library, and linking many
programs does not grow memory.  Also: the compile worker's pipeline still
vectorises through libmvec."""
import ctypes
import gc
import os
import time
import weakref

import numpy as np
import pytest

import lazyarray as xp
from lazyarray.backend import llvm, worker

# entry(buffers, meta, scalars, error) -> 0, writing meta[0] + K to scalars[0]
_IR = """
define i32 @"{name}_0"(ptr %b, ptr %m, ptr %s, ptr %e) {{
  %v = load i64, ptr %m
  %r = add i64 %v, {k}
  store i64 %r, ptr %s
  ret i32 0
}}
"""


@pytest.fixture(scope="module")
def gen():
    return llvm.Codegen(in_process=True)


def _program(gen, k: int):
    name = f"engine_test_{k}"
    obj, _ = gen.compile_here(_IR.format(name=name, k=k))
    return gen.load(obj, name, 1)


def _run(compiled, value: int) -> int:
    meta, out = (ctypes.c_int64 * 1)(value), (ctypes.c_int64 * 1)(0)
    assert compiled.cfuncs[0](None, ctypes.addressof(meta), ctypes.addressof(out), None) == 0
    return out[0]


def test_code_outlives_its_engine_being_replaced(gen, monkeypatch):
    monkeypatch.setattr(llvm, "ENGINE_LIBRARIES", 2)
    progs = {k: _program(gen, k) for k in range(9)}
    kept = {k: c for k, c in progs.items() if k % 3 == 0}
    assert len({id(c.engine) for c in kept.values()}) == 3  # one per engine (2 libraries each)
    assert all(c.engine is not gen.engine for c in kept.values())  # that one is for good
    progs = None
    gc.collect()  # unloads 6 libraries; two engines lose all but one library
    more = {k: _program(gen, k) for k in range(9, 12)}
    for k, c in {**kept, **more}.items():
        assert _run(c, 100) == 100 + k


def test_an_engine_goes_with_its_last_library(gen, monkeypatch):
    monkeypatch.setattr(llvm, "ENGINE_LIBRARIES", 2)
    first = [_program(gen, 20), _program(gen, 21)]
    engine = weakref.ref(first[0].engine)
    later = _program(gen, 22)  # goes into a new engine
    assert later.engine is not engine()
    del first[0]
    gc.collect()
    assert engine() is not None and _run(first[0], 1) == 22
    del first[0]
    gc.collect()
    assert engine() is None
    assert _run(later, 1) == 23


def _rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096 / 2**20


@pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="reads /proc/self/statm")
def test_linking_many_programs_keeps_memory_flat(gen):
    """Each library leaves about 10 KB in its engine after it is unloaded; with
    engines replaced, 3,000 links after warm-up stay within a few MB (about 30 MB
    with one engine)."""
    name = "engine_test_mem"
    obj, _ = gen.compile_here(_IR.format(name=name, k=1))
    live = []
    for i in range(4000):
        live.append(gen.load(obj, name, 1))
        if len(live) > 300:
            live.pop(0)
        if i == 999:
            gc.collect()
            base = _rss_mb()
    gc.collect()
    assert _rss_mb() - base < 10, f"grew {_rss_mb() - base:.1f} MB over 3,000 links"
    assert _run(live[-1], 1) == 2


def _ready_worker() -> worker.Worker:
    w = worker.Worker()
    deadline = time.monotonic() + 60
    while not w.poll_ready():
        if w.proc.poll() is not None or time.monotonic() > deadline:
            w.close()
            pytest.skip("the compile worker did not start")
        time.sleep(0.02)
    return w


def test_worker_pipeline_vectorises_through_libmvec():
    """The worker's options (no epilogue vectorisation) keep the libmvec vector body."""
    table = llvm.codegen().vector_variants
    if "sin" not in table:
        pytest.skip("no libmvec variant of sin on this machine")
    x = xp.placeholder(("n",), xp.float64)
    prog = xp.compile(xp.sum(xp.sin(x) * x), [x])
    w = _ready_worker()
    try:
        obj, seconds = w.compile(prog.lowered_ir())
    finally:
        w.close()
    assert any(sym.encode() in obj for sym, _ in table["sin"])
    assert set(seconds) == {"parse", "optimize", "codegen"}
    v = np.linspace(0.0, 3.0, 1001)
    assert np.isclose(float(prog(v)), np.sum(np.sin(v) * v), rtol=1e-12)


def test_call_heavy_modules_get_no_epilogue_and_others_llvm_defaults():
    """The worker's per-module options: a kernel of two or more vector-math calls loses
    the vectorised epilogue; the next module with one call or none gets exactly the
    code of LLVM's defaults again (the options are process-wide)."""
    variants = llvm.codegen().vector_variants
    if "sin" not in variants or "cos" not in variants:
        pytest.skip("no libmvec variants of sin and cos on this machine")
    x = xp.placeholder(("n",), xp.float64)
    heavy = xp.compile(xp.sum(xp.sin(x) * xp.cos(x)), [x]).lowered_ir()
    single = xp.compile(xp.sum(xp.sin(x) * x), [x]).lowered_ir()
    cheap = xp.compile(xp.sum(x * x + 1.0), [x]).lowered_ir()
    gen = llvm.Codegen(in_process=True)
    default_single, default_cheap = (str(gen.optimize(ir)[0]) for ir in (single, cheap))
    gen.own_options()
    try:
        tuned_heavy, tuned_single, tuned_cheap = (str(gen.optimize(ir)[0])
                                                  for ir in (heavy, single, cheap))
    finally:
        gen._tune("")  # leave this process with LLVM's defaults
    assert "vec.epilog" not in tuned_heavy  # (LLVM's defaults add one where VF x IC >= 16)
    assert "_ZGV" in tuned_heavy  # still vectorised through libmvec
    assert tuned_single == default_single and tuned_cheap == default_cheap
