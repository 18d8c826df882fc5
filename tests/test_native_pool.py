"""The native fork-join pool (backend/parallel.py) and the front doors that use it."""
from __future__ import annotations

import os
import subprocess
import sys
import threading
import time

import numpy as np
import pytest
from lazyarray.backend import dispatch, llvm, native, parallel, runtime

import lazyarray as xp

pytestmark = pytest.mark.skipif(parallel.pool(wait=True) is None,
                                reason="no native pool here (platform or one thread)")

@pytest.fixture(autouse=True)
def every_worker():
    """Chunks are posted to the workers whatever the load (the monitor would keep them
    from a busy machine, and these tests are about the workers)."""
    pool = parallel.pool()
    pool.adapt = False
    pool.allow(pool.workers)
    yield
    pool.adapt = True


# i32 fn(head, meta, scal, err): *(i64*)head = meta[0] * 10 + meta[1]; meta[0] == 99 fails
_PROBE = """
define i32 @lazyarray_test_probe(ptr %head, ptr %meta, ptr %scal, ptr %err) {
  %v = load i64, ptr %meta
  %p1 = getelementptr i64, ptr %meta, i64 1
  %w = load i64, ptr %p1
  %t = mul i64 %v, 10
  %s = add i64 %t, %w
  store i64 %s, ptr %head
  %bad = icmp eq i64 %v, 99
  br i1 %bad, label %b, label %g
b:
  store i64 5, ptr %err
  ret i32 5
g:
  ret i32 0
}
"""
_probe_addr = None


def _probe() -> int:
    global _probe_addr
    if _probe_addr is None:
        _probe_addr = llvm.codegen().load_shared("lazyarray_test_probe", ir_text=_PROBE)
    return _probe_addr


def _run(firsts: list, pause: float = 0.0):
    """Run the probe as len(firsts) chunks: (return value, per-chunk outputs, errors)."""
    pool = parallel.pool()
    n = len(firsts)
    outs = np.zeros(n, np.int64)
    metas = np.array([[f, c] for c, f in enumerate(firsts)], np.int64)
    heads = np.array([outs.ctypes.data + 8 * c for c in range(n)], np.int64)
    maddr = np.array([metas.ctypes.data + 16 * c for c in range(n)], np.int64)
    errs = np.zeros((n, 4), np.int64)
    if pause:
        time.sleep(pause)
    bad = pool.run(pool.addr, pool.workers, _probe(), heads.ctypes.data, maddr.ctypes.data,
                   None, errs.ctypes.data, n)
    return bad, outs, errs


@pytest.mark.parametrize("n", [1, 2, 3, 7])
def test_every_chunk_runs_once_with_its_own_meta(n):
    bad, outs, errs = _run(list(range(1, n + 1)))
    assert bad == 0
    assert outs.tolist() == [(c + 1) * 10 + c for c in range(n)]
    assert not errs.any()


def test_the_first_failing_chunk_is_reported():
    bad, outs, errs = _run([1, 99, 99, 4])
    assert bad == 2  # 1 + chunk index, the lowest failing chunk
    assert errs[1, 0] == 5 and errs[2, 0] == 5 and errs[0, 0] == 0
    assert outs[3] == 43  # the others still ran


def test_a_sleeping_worker_is_woken_or_its_chunk_taken_back():
    # past the spin window the worker sleeps on its futex; runs stay right either way
    for _ in range(3):
        bad, outs, _ = _run([3, 4], pause=0.01)
        assert bad == 0 and outs.tolist() == [30, 41]


def test_concurrent_callers_share_the_pool():
    """A caller that finds the pool busy runs its chunks itself; all results right."""
    errors = []

    def work(seed):
        try:
            for i in range(300):
                firsts = [seed * 1000 + i + 100, seed * 1000 + i + 101, 7]  # never 99
                bad, outs, _ = _run(firsts)
                assert bad == 0 and outs.tolist() == [f * 10 + c for c, f in enumerate(firsts)]
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)
    ts = [threading.Thread(target=work, args=(s,)) for s in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not errors


def _matmul_prepared(n: int, compile: bool = True):
    rng = np.random.default_rng(n)
    a, b = rng.uniform(-1, 1, (n, n)), rng.uniform(-1, 1, (n, n))
    pa, pb = xp.placeholder((n, n)), xp.placeholder((n, n))
    prog = xp.compile(xp.matmul(pa, pb), inputs=[pa, pb])
    return prog.prepare(a, b, compile=compile), a, b


def test_a_chunked_kernel_runs_through_its_front_door():
    p, a, b = _matmul_prepared(64, compile=False)  # interpreted first
    for _ in range(2):
        p(a, b)
    native.flush()  # its trampoline; and its kernels, compiled because it ran again
    runner = p._door_runner
    assert runner.chunked is not None and len(runner.chunked.metas) >= 2
    assert runner.program.compiled  # the door now runs compiled kernels, same chunks
    out = p._door(a, b)
    assert out is not dispatch.FALLBACK
    np.testing.assert_allclose(out, a @ b, rtol=1e-12, atol=1e-12)


def test_a_chunked_door_runs_the_kernel_whole_when_no_worker_may_take_a_chunk():
    """With no worker allowed, the door makes one call of the kernel unsplit (as the
    Python path does), not its chunks one after another: the same bits, one kernel run
    a call instead of one a chunk."""
    from lazyarray.backend import tiers
    p, a, b = _matmul_prepared(64, compile=False)
    for _ in range(2):
        p(a, b)
    native.flush()
    runner = p._door_runner
    n = len(runner.chunked.metas)
    assert runner.chunked.whole is not None and n >= 2
    pool = parallel.pool()

    def runs(calls: int) -> tuple:
        before = sum(tiers.kernel_runs())
        out = None
        for _ in range(calls):
            out = p._door(a, b)
        assert out is not dispatch.FALLBACK
        return sum(tiers.kernel_runs()) - before, np.asarray(out)
    split, got_split = runs(10)
    assert split == 10 * n
    try:
        pool.allow(0)
        whole, got_whole = runs(10)
    finally:
        pool.allow(pool.workers)
    assert whole == 10
    assert np.array_equal(got_whole, got_split)
    np.testing.assert_allclose(got_whole, a @ b, rtol=1e-12, atol=1e-12)


def test_a_chunked_door_reports_kernel_errors_through_the_python_path():
    n = 1 << 16
    xv = np.arange(n, dtype=np.float64)
    idx = np.zeros(n, dtype=np.int64)
    px, pi = xp.placeholder((n,)), xp.placeholder((n,), xp.int64)
    p = xp.compile(xp.sin(xp.take(px, pi)), inputs=[px, pi]).prepare(xv, idx)
    for _ in range(3):
        p(xv, idx)
    assert p._door_runner.chunked is not None
    idx[-1] = n + 5
    with pytest.raises(IndexError, match=f"index {n + 5} is out of bounds"):
        p(xv, idx)


def test_matmul_results_do_not_depend_on_the_thread_count():
    code = ("import hashlib, numpy as np, lazyarray as xp; rng = np.random.default_rng(0); "
            "print([hashlib.sha1(np.asarray(xp.matmul(xp.asarray(a), xp.asarray(a.T))).tobytes())"
            ".hexdigest() for a in (rng.uniform(-1, 1, (n, n + 3)) for n in (48, 64, 200))])")
    outs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           env=dict(os.environ, LAZYARRAY_NUM_THREADS=t)).stdout for t in "12"]
    assert outs[0] == outs[1] and outs[0]


def test_off_switch_and_clean_exit():
    code = ("import numpy as np, lazyarray as xp; from lazyarray.backend import parallel; "
            "x = np.ones(1 << 16); print(parallel.pool() is None, float(xp.sum(xp.sin(xp.asarray(x)))))")
    for env, none in (({"LAZYARRAY_NATIVE_THREADS": "0"}, "True"), ({}, "False")):
        res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             env=dict(os.environ, LAZYARRAY_NUM_THREADS="2", **env), timeout=120)
        assert res.returncode == 0, res.stderr  # workers stopped and joined at exit
        flag, value = res.stdout.split()
        assert flag == none and float(value) == pytest.approx(np.sin(1.0) * (1 << 16))


def test_runner_chunks_use_the_native_pool():
    xv = np.random.default_rng(0).uniform(-1, 1, 1 << 16)
    ph = xp.placeholder(xv.shape)
    p = xp.compile(xp.exp(ph) * 2, inputs=[ph]).prepare(xv)
    p(xv)
    (runner,) = p._runners.values()
    assert isinstance(runner.steps[0], runtime.Chunked)
    np.testing.assert_allclose(np.asarray(p(xv)), np.exp(xv) * 2, rtol=1e-14)


# i32 fn(head, meta, scal, err): *(i64*)head = gettid(), the thread that ran the chunk
_TID_PROBE = """
declare i64 @syscall(i64, ...)
define i32 @lazyarray_test_tid(ptr %head, ptr %meta, ptr %scal, ptr %err) {
  %t = call i64 (i64, ...) @syscall(i64 186)
  store i64 %t, ptr %head
  ret i32 0
}
"""


def _threads_of_chunks(n: int) -> list:
    pool = parallel.pool()
    fn = llvm.codegen().load_shared("lazyarray_test_tid", ir_text=_TID_PROBE)
    outs = np.zeros(n, np.int64)
    heads = np.array([outs.ctypes.data + 8 * c for c in range(n)], np.int64)
    metas = np.zeros((n, 2), np.int64)
    maddr = np.array([metas.ctypes.data + 16 * c for c in range(n)], np.int64)
    errs = np.zeros((n, 4), np.int64)
    assert pool.run(pool.addr, pool.workers, fn, heads.ctypes.data, maddr.ctypes.data,
                    None, errs.ctypes.data, n) == 0
    return outs.tolist()


def test_with_no_room_every_chunk_runs_on_the_caller():
    pool = parallel.pool()
    try:
        pool.allow(0)
        for _ in range(20):
            assert _threads_of_chunks(4) == [threading.get_native_id()] * 4
        assert int(np.frombuffer((ctypes_at(pool.addr)), np.int32)[0]) == 0  # not left busy
        check = xp.sum(xp.sin(xp.asarray(np.linspace(0, 1, 10**6))))  # a chunked kernel
        np.testing.assert_allclose(float(check), np.sum(np.sin(np.linspace(0, 1, 10**6))),
                                   rtol=1e-12)
    finally:
        pool.allow(pool.workers)


def ctypes_at(addr: int):
    import ctypes
    return (ctypes.c_char * 4).from_address(addr)


@pytest.mark.parametrize("ncpu, others, workers, want", [
    (2, 0.0, 1, 1), (2, 0.25, 1, 1), (2, 0.5, 1, 0), (2, 2.0, 1, 0), (8, 2.0, 7, 5),
    (8, 0.0, 7, 7), (8, 9.0, 7, 0), (1, 0.0, 0, 0)])
def test_workers_allowed_by_the_load_of_other_processes(ncpu, others, workers, want):
    assert parallel.allowed_workers(ncpu, others, workers) == want
