"""Tiers (backend/tiers.py): a new structure runs at once on the interpreter, never
waiting for LLVM; a structure that runs again has its kernels compiled in the
background and installed; kernels are shared between programs by their own
structure; every tier gives the documented results."""
import os
import subprocess
import sys
import time

import numpy as np
import pytest

import lazyarray as xp
from lazyarray.backend import bytecode, native, tiers

pytestmark = pytest.mark.usefixtures("whole_programs")  # whole programs' tiers (steps: test_steps.py)


@pytest.fixture(autouse=True)
def quiet():
    native.flush()  # background work of earlier tests: the counts below are this test's
    yield
    native.flush()


def info():
    return xp.compile_cache_info()


def _tanh_chain(a, k: float):
    return xp.sum(xp.tanh(a * k) * xp.expm1(a) - a * 0.25)


def test_a_new_structure_runs_at_once_while_compiles_are_slow(monkeypatch):
    a = xp.asarray(np.linspace(-1, 1, 500))
    float(_tanh_chain(a, 0.5))  # its building blocks are loaded: no compile is needed now
    real = native.Store._object

    def slow(self, unit, background):
        time.sleep(2.0)  # LLVM made slow: a caller must never wait for it
        return real(self, unit, background)
    monkeypatch.setattr(native.Store, "_object", slow)
    before = info()
    t0 = time.perf_counter()
    v = float(xp.sum(xp.expm1(a) * xp.tanh(a * 0.5) - a * 0.75))  # a new structure
    elapsed = time.perf_counter() - t0
    assert elapsed < 1.0, f"the first call waited {elapsed:.2f} s"
    after = info()
    assert after.misses == before.misses + 1 and after.compile_waits == before.compile_waits
    assert after.interpreted_runs > before.interpreted_runs
    x = np.linspace(-1, 1, 500)
    assert v == pytest.approx(float(np.sum(np.expm1(x) * np.tanh(x * 0.5) - x * 0.75)), rel=1e-12)


def test_a_structure_that_runs_again_is_compiled_in_the_background_and_installed():
    a = xp.asarray(np.linspace(0, 1, 300))
    # its building blocks, loaded by another structure (on an empty cache, run alone, they
    # are compiled as quick code while the caller waits: not this program's compile)
    float(xp.sum(xp.atan(a * 0.5) - xp.cosh(a) * 3.0))
    native.flush()
    before = info()
    values = [float(xp.sum(xp.atan(a * 1.25) * xp.cosh(a) - 2.0)) for _ in range(2)]
    native.flush()
    mid = info()
    assert mid.upgrades == before.upgrades + 1  # its one kernel, installed
    assert mid.compile_waits == before.compile_waits  # nobody waited for it
    values.append(float(xp.sum(xp.atan(a * 1.25) * xp.cosh(a) - 2.0)))
    after = info()
    assert after.compiled_runs == mid.compiled_runs + 1
    assert values[2] == pytest.approx(values[0], rel=1e-13)


def test_a_program_run_once_is_never_compiled():
    a = xp.asarray(np.linspace(0, 1, 300))
    before = info()
    float(xp.sum(xp.asinh(a * 1.75) * xp.sinh(a) - 3.0))
    native.flush()
    after = info()
    assert after.upgrades == before.upgrades and after.kernel_misses == before.kernel_misses


def test_two_programs_sharing_a_kernel_compile_it_once():
    rng = np.random.default_rng(5)
    av, bv = rng.uniform(-1, 1, (9, 7)), rng.uniform(-1, 1, (7, 5))
    a, b = xp.asarray(av), xp.asarray(bv)
    # (a @ b) is a kernel of its own in both programs: the second adds one more kernel
    first = xp.compile(xp.asinh(a @ b)).prepare()  # prepare() compiles its kernels
    mid = info()
    second = xp.compile(xp.asinh(a @ b) * 2.0 + xp.atanh(xp.tanh(a @ b))).prepare()
    after = info()
    assert len(first.program._schedule.kernels) < len(second.program._schedule.kernels)
    shared = len(first.program._schedule.kernels)
    assert after.kernel_hits - mid.kernel_hits >= shared  # found compiled, not recompiled
    assert after.kernel_misses - mid.kernel_misses == \
        len(second.program._schedule.kernels) - shared
    want = np.arcsinh(av @ bv)
    np.testing.assert_allclose(np.asarray(first()), want, rtol=1e-12)
    np.testing.assert_allclose(np.asarray(second()), want * 2 + av @ bv, rtol=1e-12, atol=1e-12)


def test_prepare_compiles_and_can_leave_that_to_the_background():
    x = xp.placeholder(("n",), xp.float64)
    prog = xp.compile(xp.sum(xp.log1p(x * x) * 0.5 - xp.expm1(x)), inputs=[x])
    v = np.linspace(0, 2, 100)
    lazy = prog.prepare(v, compile=False)
    assert not lazy._program.compiled
    eager = prog.prepare(v)
    assert eager._program.compiled
    assert float(lazy(v)) == pytest.approx(float(eager(v)), rel=1e-13)


def test_prepare_waits_for_kernels_a_background_request_left_uninstalled(monkeypatch):
    """A structure turned hot (its upgrade queued for a quiet moment that has not come)
    and then prepared: prepare() compiles what is not installed yet before it returns."""
    monkeypatch.setattr(native, "QUIET", 30.0)  # the background waits; prepare() must not
    x = xp.placeholder(("n",), xp.float64)
    prog = xp.compile(xp.sum(xp.acosh(x + 2.0) * xp.log2(x + 3.0)), inputs=[x])
    v = np.linspace(0, 2, 50)
    code = prog.prepare(v, compile=False)._program
    code.compile(wait=False)  # what a background upgrade does: its kernels wait, queued
    assert not code.compiled
    p = prog.prepare(v)
    assert p._program is code and p._program.compiled
    monkeypatch.setattr(native, "QUIET", 0.05)
    assert float(p(v)) == pytest.approx(float(np.sum(np.arccosh(v + 2) * np.log2(v + 3))),
                                        rel=1e-13)


def test_jit_runs_at_once_and_compiles_when_asked():
    f = lambda x: xp.sum(xp.exp(-x * x) * 3.5)  # noqa: E731
    v = np.linspace(-1, 1, 64)
    assert not xp.jit(f)._trace((v,), [(xp.float64, v.shape)])._program.compiled
    eager = xp.jit(f, compile=True)
    assert float(eager(v)) == pytest.approx(np.sum(np.exp(-v * v) * 3.5), rel=1e-13)
    assert next(iter(eager._cache.values()))._program.compiled


def test_the_tier_switch_is_checked(monkeypatch):
    monkeypatch.setenv("LAZYARRAY_TIER", "fastest")
    with pytest.raises(ValueError, match="LAZYARRAY_TIER must be one of auto, interpret, compile"):
        tiers.policy()


def test_interpret_never_compiles_a_kernel(monkeypatch):
    monkeypatch.setenv("LAZYARRAY_TIER", "interpret")
    a = xp.asarray(np.linspace(0, 1, 40))
    before = info()
    for _ in range(3):
        float(xp.sum(xp.acosh(a + 1.5) * 0.125))
    p = xp.compile(xp.acosh(a + 1.5) * 0.25).prepare()
    native.flush()
    after = info()
    assert after.kernel_misses == before.kernel_misses and not p._program.compiled
    assert after.compiled_runs == before.compiled_runs


def test_compile_compiles_before_the_first_run(monkeypatch):
    monkeypatch.setenv("LAZYARRAY_TIER", "compile")
    a = xp.asarray(np.linspace(0, 1, 40))
    before = info()
    float(xp.sum(xp.acosh(a + 2.5) / xp.cosh(a)))
    after = info()
    assert after.compiled_runs > before.compiled_runs
    assert after.interpreted_runs == before.interpreted_runs


# Every kind of kernel, run with each tier forced (each in its own process, so neither
# sees the other's code), compared: integers and booleans exactly, floats within the
# tolerance the README states (reductions may sum in another order; a libm function may
# take its scalar path in one tier and libmvec's vector path in the other).
CASES = """
import json, numpy as np, lazyarray as xp

rng = np.random.default_rng(0)
f = rng.uniform(-3, 3, (37, 53)); g = rng.uniform(0.5, 2, (53,)); i = rng.integers(-50, 50, (37, 53))
c = (rng.uniform(-2, 2, (8, 9)) + 1j * rng.uniform(-2, 2, (8, 9)))
F, G, I, C = xp.asarray(f), xp.asarray(g), xp.asarray(i), xp.asarray(c)
out = {
  "ew": xp.sin(F) * G + xp.sqrt(xp.abs(F)) - F // 2.0,
  "sum1": xp.sum(xp.exp(F * 0.1), axis=1), "sum0": xp.sum(F * G, axis=0),
  "prod": xp.prod(F[:4, :6] * 0.5 + 1.0), "mean": xp.mean(F, axis=0), "max": xp.max(F, axis=1),
  "argmax": xp.argmax(F, axis=0), "argmin1": xp.argmin(F, axis=1), "cumsum": xp.cumulative_sum(F, axis=1),
  "cumprod": xp.cumulative_prod(F[:, :5] * 0.5, axis=0), "any": xp.any(F > 2.9, axis=0),
  "int": (I * 3 - I // 7 + I % 5) << 2, "intsum": xp.sum(I * I, axis=1), "cast": xp.astype(F * 50, xp.int8),
  "where": xp.where(F > 0, F, -2.0 * F), "slice": F[1:-1:2, ::-3] * 2 + F[:-2:2, 2::-1][:, :1],
  "bcast": F[:, :1] * G[None, :4] + 1.0, "gather": xp.take(F, xp.asarray([3, 0, 36, -1]), axis=0),
  "matmul": F @ xp.reshape(G, (53, 1)), "intmatmul": I[:5, :6] @ I[:6, :4],
  "complex": xp.exp(C) * C - xp.sqrt(C), "cprod": xp.prod(C[:3, :3]),
  "concat": xp.concat([F[:2], F[-3:] * 2.0]), "t": xp.linalg.matrix_transpose(F) * 1.5,
}
# long bodies: more registers than STACK_REGS (smaller blocks in the interpreter)
fs = F * 0.0
for k in range(80):
    fs = fs + F * (1.0 + k / 64)
zr = zi = cnt = xp.zeros((37, 53))
for _ in range(16):
    zr2, zi2 = zr * zr, zi * zi
    inside = zr2 + zi2 <= 4.0
    cnt = cnt + xp.astype(inside, xp.float64)
    zi, zr = xp.where(inside, 2.0 * zr * zi + F * 0.3, zi), xp.where(inside, zr2 - zi2 + G * 0.5, zr)
cs = C * 0.0
for k in range(80):
    cs = cs + C * complex(1.0, k / 64)
ints = I * 0
for k in range(80):
    ints = ints + I * (k - 40)
# outputs evaluated together: one kernel writing several buffers (backend/merge.py)
ma = xp.sin(F) * 2.0
mb, mc, md, me = ma + G, xp.astype(ma > 0.5, xp.int32) * I, ma > 0, xp.exp(C) * 2.0
xp.evaluate(ma, mb, mc, md, me, me * C)
out.update(mo_a=ma, mo_b=mb, mo_c=mc, mo_d=md, mo_e=me)
# a gradient step run in row tiles of 8 (backend/rowtiles.py; its size threshold lowered)
from lazyarray.backend import rowtiles
rowtiles.LEAST_BYTES, rowtiles.TILE_BYTES = 0, 8 * 53 * 8
rr = F @ G - G[:37]
rt_w, rt_loss = xp.evaluate(G - 0.1 * (xp.linalg.matrix_transpose(F) @ rr), xp.sum(rr * rr))
assert rowtiles.COUNTS.runs == 1, rowtiles.COUNTS.runs
out.update(rowtiled_w=rt_w, rowtiled_loss=rt_loss)
out.update(manyscalars=fs, mandel=cnt, mandelz=zr, manycomplex=cs, manyints=ints,
           manysum0=xp.sum(fs, axis=0), manysum1=xp.sum(fs * 0.5, axis=1),
           manymax=xp.max(fs - F, axis=1), manyargmin=xp.argmin(fs + F, axis=0),
           manycumsum=xp.cumulative_sum(fs * 0.25, axis=1), manycsum=xp.sum(cs, axis=1))
print(json.dumps({k: [np.asarray(v).dtype.str, np.asarray(v).tolist() if np.asarray(v).dtype.kind != "c"
                      else [np.asarray(v).real.tolist(), np.asarray(v).imag.tolist()]] for k, v in out.items()}))
"""


def test_a_long_body_with_more_registers_than_the_stack_allows_runs_interpreted(monkeypatch):
    """80 scalars keep 80 registers: the interpreter's blocks shrink to stay within
    STACK_REGS full registers, and every element still comes out as numpy's."""
    monkeypatch.setenv("LAZYARRAY_TIER", "interpret")
    a = np.random.default_rng(3).uniform(-2, 2, (41, 2000))
    x = xp.asarray(a)
    e, want = x * 0.0, a * 0.0
    for k in range(80):
        e, want = e + x * (1.0 + k / 64), want + a * (1.0 + k / 64)
    prepared = xp.compile(e).prepare()
    (kernel,) = prepared._program.schedule.kernels
    n_regs = bytecode._registers(kernel)[1]
    assert n_regs > bytecode.STACK_REGS
    assert bytecode.register_bytes(n_regs) * n_regs <= bytecode.STACK_REGS * bytecode.REG_BYTES
    np.testing.assert_array_equal(np.asarray(e), want)


def test_register_bytes_shrink_by_halves_to_a_floor():
    rb = bytecode.register_bytes
    assert rb(1) == rb(bytecode.STACK_REGS) == bytecode.REG_BYTES
    assert rb(bytecode.STACK_REGS + 1) == bytecode.REG_BYTES // 2
    assert rb(10_000) == bytecode.MIN_REG_BYTES


def _run_forced(tier: str, tmp_path) -> dict:
    import json
    env = dict(os.environ, LAZYARRAY_TIER=tier, LAZYARRAY_CACHE_DIR=str(tmp_path / tier),
               LAZYARRAY_PREBUILD="0")
    out = subprocess.run([sys.executable, "-c", CASES], env=env, capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_every_tier_gives_the_same_results(tmp_path):
    interp, comp = _run_forced("interpret", tmp_path), _run_forced("compile", tmp_path)
    assert interp.keys() == comp.keys()
    for name in interp:
        (dt_a, a), (dt_b, b) = interp[name], comp[name]
        assert dt_a == dt_b, name
        a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
        if dt_a[1] in "iub":
            np.testing.assert_array_equal(a, b, err_msg=name)
        else:
            np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-13 * np.max(np.abs(b)),
                                       err_msg=name)
