"""Large output buffers come from a pool and are reused only once nothing refers to them."""
from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
from lazyarray.backend import buffers

import lazyarray as xp

N = buffers.MIN_BYTES // 8 + 1000  # float64 elements: just past the pooled size


def _program():
    x = xp.placeholder((N,), xp.float64)
    return xp.compile(xp.exp(-x * x / 2) + 1.0, inputs=[x]).prepare(np.zeros(N))


def _address(a) -> int:
    return np.asarray(a).ctypes.data


def test_a_dropped_result_block_is_reused_and_values_are_right():
    p = _program()
    xv = np.linspace(-3, 3, N)
    want = np.exp(-xv * xv / 2) + 1.0
    r = p(xv)
    first = _address(r)
    assert np.asarray(r).base is not None  # a view of a pooled block
    del r
    for _ in range(3):
        r = p(xv)
        assert _address(r) == first
        np.testing.assert_allclose(np.asarray(r), want, rtol=1e-15)
        del r


def test_a_live_result_or_view_keeps_its_block():
    p = _program()
    xv = np.linspace(-3, 3, N)
    r1 = np.asarray(p(xv))
    kept = r1[::3]          # a view: holds the block through its base
    snapshot = kept.copy()
    del r1
    r2 = np.asarray(p(xv * 2))
    lo, hi = r2.ctypes.data, r2.ctypes.data + r2.nbytes
    assert not lo <= kept.ctypes.data < hi
    np.testing.assert_array_equal(kept, snapshot)  # not overwritten by the second run
    mv = memoryview(r2)     # a buffer export counts too
    del r2
    r3 = np.asarray(p(xv * 3))
    assert r3.ctypes.data != np.frombuffer(mv, np.float64).ctypes.data
    del mv


def test_blocks_are_aligned_and_results_writable():
    r = buffers.empty((N,), np.float64)
    assert r.ctypes.data % buffers.ALIGN == 0 and r.flags.writeable and r.flags.c_contiguous
    r[:] = 1.0
    assert r.sum() == N


def test_small_buffers_are_plain_numpy_arrays():
    a = buffers.empty((1000,), np.float64)
    assert a.base is None and a.flags.owndata


def test_release_lets_idle_blocks_go():
    p = _program()
    r = p(np.zeros(N))
    del r
    assert buffers.pooled_bytes()[1] >= N * 8
    buffers.release()
    assert buffers.pooled_bytes()[1] == 0


def test_idle_bytes_stay_under_the_limit(monkeypatch):
    monkeypatch.setattr(buffers._pool, "limit", 3 * N * 8)
    buffers.release()
    sizes = [N + k * N // 2 for k in range(8)]  # sizes that cannot share a block
    for n in sizes:
        buffers.empty((n,), np.float64)  # dropped at once: idle
    assert buffers.pooled_bytes()[1] <= 3 * N * 8 + max(sizes) * 8 + buffers.ALIGN


def test_pool_off_by_environment():
    code = ("import numpy as np; from lazyarray.backend import buffers; "
            "a = buffers.empty((%d,), np.float64); print(a.base is None)" % N)
    env = dict(os.environ, LAZYARRAY_BUFFER_POOL_MB="0")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "True"


def test_bad_pool_size_is_a_clear_error():
    code = "import lazyarray"
    env = dict(os.environ, LAZYARRAY_BUFFER_POOL_MB="lots")
    res = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert res.returncode != 0 and "LAZYARRAY_BUFFER_POOL_MB must be a number" in res.stderr


def test_pooled_results_are_the_same_bits_for_any_thread_count():
    code = ("import hashlib, numpy as np, lazyarray as xp; x = np.linspace(-3, 3, %d); "
            "a = xp.asarray(x); r = [np.asarray(xp.tanh(a) * 2).tobytes() for _ in range(3)]; "
            "print(len(set(r)), hashlib.sha1(r[0]).hexdigest())" % N)
    outs = []
    for threads in ("1", "2"):  # compiled kernels throughout (tiers may differ in a last bit)
        env = dict(os.environ, LAZYARRAY_NUM_THREADS=threads, LAZYARRAY_TIER="compile")
        outs.append(subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                                   text=True, check=True).stdout.split())
    assert outs[0] == outs[1] and outs[0][0] == "1"
    r = np.asarray(xp.tanh(xp.asarray(np.linspace(-3, 3, N))) * 2)
    np.testing.assert_allclose(r, np.tanh(np.linspace(-3, 3, N)) * 2, rtol=1e-14)
