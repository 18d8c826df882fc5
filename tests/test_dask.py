"""lazyarray on a real Dask cluster: two worker processes on loopback, every lowered op
compared with numpy (uneven chunks, empty blocks, 0-d results, mixed dtypes), kernel
errors, compile counts per worker and a worker killed in the middle of a compute.

Skipped when dask[distributed] is not installed (the ``dask`` extra, which CI installs).
"""
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

distributed = pytest.importorskip("distributed")
da = pytest.importorskip("dask.array")

import lazyarray as xp  # noqa: E402
import lazyarray.dask as lzd  # noqa: E402

pytestmark = pytest.mark.dask
RNG = np.random.default_rng(14)
M = RNG.standard_normal((23, 17))
UNEVEN = ((5, 0, 11, 7), (6, 0, 4, 7))  # with empty blocks


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                                       host="127.0.0.1", dashboard_address=None,
                                       env={"LAZYARRAY_NUM_THREADS": "1"})
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


def lz(a, chunks=UNEVEN):
    return lzd.from_dask(da.from_array(a, chunks=chunks))


def close(got, want, **kw):
    got = np.asarray(got)
    assert got.dtype == np.asarray(want).dtype, (got.dtype, np.asarray(want).dtype)
    assert got.shape == np.shape(want)
    np.testing.assert_allclose(got, want, **kw)


def test_importing_lazyarray_does_not_import_dask():
    code = "import lazyarray, lazyarray.dask, sys; print('dask' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "False", out.stderr


def test_elementwise_region_is_one_blockwise_layer(client):
    x = lz(M)
    y = xp.sin(x) * x**2 + xp.where(x > 0, xp.exp(-x), 2.0 * x)
    d = lzd.to_dask(y)
    runs = [k for k in d.dask.layers if k.startswith("lazyarray-")]
    assert len(runs) == 1 and d.chunks == UNEVEN
    close(d.compute(), np.sin(M) * M**2 + np.where(M > 0, np.exp(-M), 2.0 * M), rtol=1e-13)


def test_broadcasting_and_mixed_dtypes(client):
    row = RNG.standard_normal(17).astype(np.float32)
    ints = RNG.integers(-5, 5, size=(23, 1)).astype(np.int32)
    x, r = lz(M), lz(row, chunks=((9, 8),))
    i = lz(ints, chunks=((20, 3), (1,)))
    y = x * r + xp.astype(i, xp.float64)
    close(y, M * row.astype(np.float64) + ints, rtol=1e-13)
    close(xp.astype(i * 3, xp.int8), (ints * 3).astype(np.int8))
    close(x > r, M > row.astype(np.float64))


@pytest.mark.parametrize("fname", ["sum", "prod", "max", "min", "mean", "var", "std"])
@pytest.mark.parametrize("axis", [None, 0, 1, (0, 1)])
def test_reductions(client, fname, axis):
    a = M if fname != "prod" else 1 + 0.05 * M
    got = getattr(xp, fname)(xp.cos(lz(a)) + lz(a), axis=axis)
    close(got, getattr(np, fname)(np.cos(a) + a, axis=axis), rtol=1e-10)


def test_reductions_keepdims_integers_booleans_and_zero_d(client):
    ints = RNG.integers(-100, 100, size=(23, 17)).astype(np.int16)
    x = lz(ints)
    close(xp.sum(x, axis=1, keepdims=True), np.sum(ints, axis=1, keepdims=True, dtype=np.int64))
    close(xp.max(x, axis=0), np.max(ints, axis=0))
    for f in ("any", "all"):
        close(getattr(xp, f)(x > -90, axis=0), getattr(np, f)(ints > -90, axis=0))
        close(getattr(xp, f)(x > -90), getattr(np, f)(ints > -90))  # 0-d
    zero_d = xp.sum(lz(np.float32(3.5) * np.ones(5, np.float32), chunks=((2, 3),)))
    close(zero_d, np.float32(17.5))
    assert lzd.to_dask(zero_d).shape == ()


def test_empty_arrays(client):
    empty = np.ones((0, 5))
    x = lz(empty, chunks=((0,), (2, 3)))
    close(xp.sum(xp.exp(x), axis=0), np.zeros(5))
    close(xp.mean(x, axis=1), np.zeros(0))
    close(xp.prod(x * 2.0), np.float64(1.0))
    with pytest.raises(ValueError):
        np.asarray(xp.max(x, axis=0))


@pytest.mark.parametrize("fname", ["argmax", "argmin"])
def test_arg_reductions(client, fname):
    a = np.round(M, 1)  # ties: the first index wins
    a[4, 3] = np.nan if fname == "argmax" else a[4, 3]
    for axis in (None, 0, 1):
        got = getattr(xp, fname)(lz(a) * 2.0, axis=axis)
        close(got, getattr(np, fname)(a * 2.0, axis=axis))
    flags = M > 1.5
    close(getattr(xp, fname)(lz(flags), axis=0), getattr(np, fname)(flags, axis=0))


def test_complex_values_and_several_outputs_in_one_compute(client):
    c = M + 1j * M[::-1]
    z = lz(c)
    close(xp.sum(z * z, axis=0), np.sum(c * c, axis=0), rtol=1e-12)
    close(xp.mean(xp.conj(z)), np.mean(np.conj(c)), rtol=1e-12)
    close(xp.argmax(z, axis=1), np.argmax(c, axis=1))  # one block: numpy's lexicographic order
    x = lz(M)
    total, scaled = lzd.compute(xp.sum(x), x * 2.0)
    close(total, np.sum(M), rtol=1e-12)
    close(scaled, M * 2.0)


def test_contractions(client):
    b = RNG.standard_normal((17, 9))
    x, y = lz(M), lz(b, chunks=((6, 0, 4, 7), (5, 4)))
    close(x @ y, M @ b, rtol=1e-12)
    close(xp.matmul(x, y[:, 0]), M @ b[:, 0], rtol=1e-12)
    close(y[:, 1] @ y, b[:, 1] @ b, rtol=1e-12)  # vector @ matrix, uneven blocks
    close(xp.tensordot(x, x, axes=([0], [0])), np.tensordot(M, M, axes=([0], [0])), rtol=1e-12)
    close(xp.vecdot(x, x), np.sum(M * M, axis=-1), rtol=1e-12)
    ints = RNG.integers(-9, 9, size=(23, 17))
    close(lz(ints) @ lz(ints.T.copy(), chunks=((4, 13), (20, 3))), ints @ ints.T)
    # a batch of products, the batch and contracted axes in uneven blocks (one empty)
    p, q = RNG.standard_normal((3, 5, 17)), RNG.standard_normal((3, 17, 4))
    got = lz(p, chunks=((2, 1), (5,), (6, 0, 11))) @ lz(q, chunks=((1, 2), (9, 8), (4,)))
    close(got, p @ q, rtol=1e-12)


def test_fallbacks_views_scans_sort_and_gathers(client):
    x = lz(M)
    close(xp.permute_dims(x, (1, 0)) * 2.0, M.T * 2.0)
    close(xp.reshape(x, (17, 23)), M.reshape(17, 23))
    close(x[3:20:2, ::-1], M[3:20:2, ::-1])
    close(xp.concat([x, x * 2.0], axis=0), np.concatenate([M, M * 2.0]))
    close(xp.cumulative_sum(x, axis=1), np.cumsum(M, axis=1), rtol=1e-12)
    close(xp.sort(x, axis=0), np.sort(M, axis=0))
    idx = lz(np.array([3, 0, 22, 5]), chunks=((2, 2),))
    close(xp.take(x, idx * 1, axis=0), M[[3, 0, 22, 5]])


def test_an_out_of_bounds_gather_raises_index_error_on_the_client(client):
    idx = lz(np.array([1, 2, 3]), chunks=((2, 1),))
    y = xp.take(lz(M), idx * 10, axis=0)
    with pytest.raises(IndexError, match="out of bounds"):
        np.asarray(y)


def test_programs_and_jit_on_dask_arrays(client):
    v = np.linspace(0, 2, 1000)
    x = xp.placeholder(("n",), xp.float64, name="x")
    w = xp.asarray(np.float64(3.0))
    prog = xp.compile(xp.sum(xp.sin(x) * x**2) * w, inputs=[x])
    for chunks in (300, 128):
        r = prog(da.from_array(v, chunks=chunks))
        assert isinstance(r, da.Array)
        close(r.compute(), 3.0 * np.sum(np.sin(v) * v**2), rtol=1e-12)
    close(lzd.to_dask(prog, da.from_array(v), np.float64(2.0)).compute(),
          2.0 * np.sum(np.sin(v) * v**2), rtol=1e-12)
    jf = xp.jit(lambda a, k: xp.tanh(a) * k)
    close(jf(da.from_array(M, chunks=(8, 8)), 2.5).compute(), np.tanh(M) * 2.5)
    prepared = prog.prepare(v)  # a prepared program hands dask arrays to Dask too
    r = prepared(da.from_array(v, chunks=300))
    assert isinstance(r, da.Array)
    close(r.compute(), 3.0 * np.sum(np.sin(v) * v**2), rtol=1e-12)
    close(float(prepared(v)), 3.0 * np.sum(np.sin(v) * v**2), rtol=1e-12)


def test_each_worker_compiles_a_kernel_at_most_once(client):
    def counters():
        return {w: i["kernel_misses"] for w, i in lzd.compile_cache_info(client).items()}
    x = xp.placeholder(("n",), xp.float32, name="x")
    prog = xp.compile(xp.sum(xp.cosh(x) - x * 0.25), inputs=[x])
    v = np.linspace(0, 1, 5000, dtype=np.float32)
    before = counters()
    prog(da.from_array(v, chunks=700)).compute()
    mid = counters()
    for chunks in (333, 1234, 5000):  # other block sizes, other edge blocks
        prog(da.from_array(v, chunks=chunks)).compute()
    after = counters()
    kernels = 3  # the chunk step (cosh, multiply, subtract, sum) and two tree steps
    for w in before:
        assert mid[w] - before[w] <= kernels
        assert after[w] == mid[w], "another block size compiled again"


def test_bad_input():
    with pytest.raises(TypeError, match="expects a dask.array.Array, got ndarray"):
        lzd.from_dask(M)
    with pytest.raises(TypeError, match="float16 is not a lazyarray dtype"):
        lzd.from_dask(da.ones(3, dtype=np.float16))
    unknown = da.from_array(M, chunks=5)
    unknown = unknown[unknown[:, 0] > 0]
    with pytest.raises(ValueError, match="unknown chunk sizes"):
        lzd.from_dask(unknown)
    with pytest.raises(ValueError, match="placeholder 'p', which is not a Dask array"):
        lzd.to_dask(xp.placeholder((3,), name="p") * 2.0)
    with pytest.raises(TypeError, match="to_dask\\(\\) expects a lazyarray Array"):
        lzd.to_dask(3)
    x = xp.placeholder(("n",), xp.float64, name="x")
    prog = xp.compile(x * 2.0, inputs=[x])
    with pytest.raises(ValueError, match="input 0 \\('x'\\): dtype mismatch: expected float64, "
                                         "got int64"):
        prog(da.ones(3, dtype=np.int64))
    with pytest.raises(ValueError, match="takes 1 input\\(s\\) for its placeholders"):
        lzd.to_dask(prog)
    with pytest.raises(TypeError, match="takes no further inputs"):
        lzd.to_dask(x * 2.0, da.ones(3))


def _slow(block):
    time.sleep(0.15)
    return block


def test_a_worker_killed_mid_compute_is_replaced_and_the_result_is_right(client):
    v = np.linspace(0, 3, 40_000)
    d = da.from_array(v, chunks=1000).map_blocks(_slow, dtype=v.dtype)  # 40 tasks of 0.15 s
    y = xp.sum(xp.exp(-lzd.from_dask(d)) * 3.0)
    future = client.compute(lzd.to_dask(y))
    pids = client.run(os.getpid)
    deadline = time.monotonic() + 30
    while not any(client.processing().values()) and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.5)  # a few blocks done on each worker
    victim = sorted(pids)[0]
    assert not future.done()
    os.kill(pids[victim], signal.SIGKILL)
    got = future.result(timeout=120)
    np.testing.assert_allclose(got, np.sum(np.exp(-v) * 3.0), rtol=1e-12)
    assert victim not in client.scheduler_info()["workers"] or \
        client.run(os.getpid, workers=[victim]) != {victim: pids[victim]}
    client.wait_for_workers(2, timeout=60)
