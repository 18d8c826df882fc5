"""Native code in memory (backend/native.py, backend/loader.py): a compiled kernel is
mapped while a program holds it and unmapped once none does, so compiling without
end keeps memory bounded; building blocks stay for the process's life.  Also: the
compile worker's pipeline still vectorises through libmvec."""
import gc
import os
import time

import numpy as np
import pytest

import lazyarray as xp
from lazyarray.backend import bytecode, llvm, native, tiers, worker
from lazyarray.backend.cache import PROGRAMS


def _distinct_program(k: int):
    """A program whose one kernel no other has: ``k`` picks its ops."""
    x = xp.placeholder(("n",), xp.float64)
    y = x
    for bit in range(12):
        y = y * 1.5 if (k >> bit) & 1 else y + 0.5
    return xp.compile(xp.sum(y), inputs=[x])


def test_a_compiled_kernel_is_unmapped_once_no_program_holds_it():
    p = _distinct_program(4093).prepare(np.ones(4))  # prepare() compiles its kernel
    name = bytecode.kernel_name(tiers.kernel_abis(p.program._schedule)[0])
    assert native.STORE.ready(name)
    assert float(p(np.ones(4))) == pytest.approx(4 * float(_reference(4093, 1.0)))
    del p
    PROGRAMS.clear()
    gc.collect()
    assert not native.STORE.ready(name)  # unmapped with its last program
    q = _distinct_program(4093).prepare(np.ones(3))  # loaded again (from the disk cache)
    assert float(q(np.ones(3))) == pytest.approx(3 * float(_reference(4093, 1.0)))


def _reference(k: int, v: float) -> float:
    for bit in range(12):
        v = v * 1.5 if (k >> bit) & 1 else v + 0.5
    return v


def _rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096 / 2**20


@pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="reads /proc/self/statm")
def test_compiling_many_programs_keeps_memory_flat():
    """Programs compiled and dropped, 300 after a warm-up of 100: the kernels that no
    program holds any more are unmapped, so memory stays within a few megabytes."""
    native.flush()  # nothing else loads code meanwhile
    live = []
    for k in range(400):
        live.append(_distinct_program(k).prepare(np.ones(2)))
        if len(live) > 20:
            live.pop(0)
        if k == 99:
            PROGRAMS.clear()
            gc.collect()
            native.flush()
            base, held = _rss_mb(), len(native.STORE.transient)
    PROGRAMS.clear()
    gc.collect()
    native.flush()
    assert len(native.STORE.transient) <= held + 5, (len(native.STORE.transient), held)
    assert _rss_mb() - base < 30, f"grew {_rss_mb() - base:.1f} MB over 300 programs"
    assert float(live[-1](np.ones(2))) == pytest.approx(2 * _reference(399, 1.0))


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
    unit = tiers.kernel_unit(tiers.kernel_abis(prog._schedule)[0])
    w = _ready_worker()
    try:
        obj, seconds = w.compile(unit.builder, False)
    finally:
        w.close()
    assert any(sym.encode() in obj for sym, _ in table["sin"])
    assert seconds > 0
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
    gen = llvm.Codegen()
    default_single, default_cheap = (str(gen.optimize(ir)[0]) for ir in (single, cheap))
    gen.own_options()
    try:
        tuned_heavy, tuned_single, tuned_cheap = (str(gen.optimize(ir)[0])
                                                  for ir in (heavy, single, cheap))
    finally:
        gen._tune(False)  # leave this process with LLVM's defaults
    assert "vec.epilog" not in tuned_heavy  # (LLVM's defaults add one where VF x IC >= 16)
    assert "_ZGV" in tuned_heavy  # still vectorised through libmvec
    assert tuned_single == default_single and tuned_cheap == default_cheap


def _children(pid: int) -> list:
    """Processes whose parent is ``pid`` (from /proc)."""
    out = []
    for stat in os.listdir("/proc"):
        if stat.isdigit():
            try:
                with open(f"/proc/{stat}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                out.append(int(stat))
    return out


@pytest.mark.skipif(not os.path.exists("/proc/self/stat"), reason="reads /proc")
def test_the_compile_worker_starts_no_process_of_its_own(tmp_path, monkeypatch):
    """A worker compiles what it is sent, and nothing else: importing lazyarray there
    must not preload, queue compiles or start a worker (which would start another...)."""
    monkeypatch.setenv("LAZYARRAY_CACHE_DIR", str(tmp_path))  # an empty cache: no bundle
    w = _ready_worker()
    try:
        x = xp.placeholder(("n",), xp.float64)
        prog = xp.compile(xp.sum(xp.cos(x) * 1.5), inputs=[x])
        unit = tiers.kernel_unit(tiers.kernel_abis(prog._schedule)[0])
        obj, _ = w.compile(unit.builder, False)
        assert obj
        time.sleep(0.5)  # time to start one, were it to
        assert _children(w.proc.pid) == []
    finally:
        w.close()
