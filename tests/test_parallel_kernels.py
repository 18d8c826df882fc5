"""Large kernels split into chunks on the thread pool (backend/threads.py).

Elementwise chunks must give the same bits as one thread; split full
reductions combine per-chunk partials in chunk order, so they are compared
with a tolerance and must repeat bit for bit.
"""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray.backend import abi, parallel, runtime, threads

N = 4 * threads.PYTHON_MIN["reduce"] + 3  # several chunks of any kernel, either pool; a ragged end


@pytest.fixture(autouse=True)
def two_threads(monkeypatch):
    monkeypatch.setenv("LAZYARRAY_NUM_THREADS", "2")


def prepared(fn, *values):
    phs = [xp.placeholder(v.shape, xp.asarray(v).dtype) for v in values]
    return xp.compile(fn(*phs), inputs=phs).prepare(*values)


def steps(p) -> list:
    (runner,) = p._runners.values()
    return runner.steps


def chunked(p) -> bool:
    return any(isinstance(s, runtime.Chunked) for s in steps(p))


def rng_values(n=N, seed=0):
    return np.random.default_rng(seed).uniform(-3, 3, n)


def test_elementwise_chunks_match_one_thread_bitwise(monkeypatch):
    xv = rng_values()
    fn = lambda x: xp.exp(-x * x / 2) * xp.cos(3 * x) + xp.sqrt(xp.abs(x)) * 0.5 - xp.tanh(x)
    p = prepared(fn, xv)
    got = np.asarray(p(xv))
    assert chunked(p)
    monkeypatch.setenv("LAZYARRAY_NUM_THREADS", "1")
    monkeypatch.setitem(threads.SLICE, "math", 1 << 40)  # not in rounds either: one call
    q = prepared(fn, xv)
    assert not chunked(q)
    assert np.array_equal(got, np.asarray(q(xv)))
    want = np.exp(-xv * xv / 2) * np.cos(3 * xv) + np.sqrt(np.abs(xv)) * 0.5 - np.tanh(xv)
    np.testing.assert_allclose(got, want, rtol=1e-14, atol=1e-15)


@pytest.mark.parametrize("name", ["sum", "prod", "max", "min", "mean"])
def test_full_reductions_combine_partials(name):
    xv = np.random.default_rng(1).uniform(0.999, 1.001, N)
    p = prepared(lambda x: getattr(xp, name)(x), xv)
    first = np.asarray(p(xv))
    assert chunked(p)
    np.testing.assert_allclose(first, getattr(np, name)(xv), rtol=1e-12)
    for _ in range(3):  # a fixed chunking gives the same bits every time
        assert np.asarray(p(xv)).tobytes() == first.tobytes()


@pytest.mark.parametrize("name", ["sum", "mean"])
def test_complex_and_float32_reductions(name):
    rng = np.random.default_rng(5)
    zv = (rng.uniform(-1, 1, N) + 1j * rng.uniform(-1, 1, N)).astype(np.complex128)
    for v in (zv, zv.real.astype(np.float32)):
        p = prepared(lambda x: getattr(xp, name)(x), v)
        got = np.asarray(p(v))
        assert chunked(p) and got.dtype == v.dtype
        scale = np.sum(np.abs(v.astype(np.complex128))) / (N if name == "mean" else 1)
        eps = np.finfo(v.dtype).eps
        np.testing.assert_allclose(got, getattr(np, name)(v.astype(np.complex128)), rtol=0,
                                   atol=8 * eps * scale)


@pytest.mark.parametrize("name", ["any", "all"])
def test_logical_reductions(name):
    for where in (0, N // 2, N - 1, None):
        xv = np.ones(N, bool) if name == "all" else np.zeros(N, bool)
        if where is not None:
            xv[where] = not xv[where]
        p = prepared(lambda x: getattr(xp, name)(x), xv)
        assert bool(p(xv)) == bool(getattr(np, name)(xv))
        assert chunked(p)


def test_max_min_nan_and_signed_zero():
    xv = np.zeros(N)
    xv[: N // 2] = -0.0
    assert not np.signbit(float(prepared(xp.max, xv)(xv)))
    assert np.signbit(float(prepared(xp.min, xv)(xv)))
    xv = -np.zeros(N)
    assert np.signbit(float(prepared(xp.max, xv)(xv)))
    xv = rng_values()
    xv[N - 2] = np.nan
    assert np.isnan(float(prepared(xp.max, xv)(xv)))
    assert np.isnan(float(prepared(xp.min, xv)(xv)))


def test_integer_sum_wraps_like_numpy():
    xv = np.full(N, 2**62, dtype=np.int64)
    assert int(prepared(xp.sum, xv)(xv)) == int(np.sum(xv))


@pytest.mark.parametrize("axis", [0, 1])
def test_partial_reductions_split_an_output_axis(axis):
    xv = np.random.default_rng(2).uniform(-1, 1, (1500, 1700))
    p = prepared(lambda x: xp.sum(x, axis=axis), xv)
    np.testing.assert_allclose(np.asarray(p(xv)), np.sum(xv, axis=axis), rtol=1e-12, atol=1e-12)
    assert chunked(p)


def test_scan_splits_rows():
    xv = np.random.default_rng(3).uniform(-1, 1, (512, 1024))
    p = prepared(lambda x: xp.cumulative_sum(x, axis=1), xv)
    np.testing.assert_allclose(np.asarray(p(xv)), np.cumsum(xv, axis=1), rtol=1e-12, atol=1e-12)
    assert chunked(p)


def test_matmul_splits_rows():
    rng = np.random.default_rng(4)
    a, b = rng.uniform(-1, 1, (300, 200)), rng.uniform(-1, 1, (200, 250))
    p = prepared(lambda x, y: x @ y, a, b)
    np.testing.assert_allclose(np.asarray(p(a, b)), a @ b, rtol=1e-12, atol=1e-12)
    assert chunked(p)


def test_reduction_into_part_of_a_concat():
    xv = rng_values()
    tail = np.arange(5.0)
    p = prepared(lambda x, t: xp.concat([xp.sum(x)[None], t, xp.max(x)[None]]), xv, tail)
    want = np.concatenate([[np.sum(xv)], tail, [np.max(xv)]])
    np.testing.assert_allclose(np.asarray(p(xv, tail)), want, rtol=1e-12)
    assert chunked(p)


def test_out_of_bounds_gather_in_a_late_chunk_raises():
    xv = rng_values()
    idx = np.zeros(N, dtype=np.int64)
    idx[N - 1] = N + 7
    p = prepared(lambda x, i: xp.take(x, i) * 2, xv, idx)
    with pytest.raises(IndexError, match=f"index {N + 7} is out of bounds for axis 0"):
        p(xv, idx)
    idx[N - 1] = 1
    np.testing.assert_array_equal(np.asarray(p(xv, idx)), xv[idx] * 2)


def test_small_kernels_stay_on_one_thread():
    table = threads.NATIVE_MIN if parallel.pool(wait=True) is not None else threads.PYTHON_MIN
    xv = rng_values(table["math"])
    p = prepared(lambda x: xp.sin(x) + 1, xv)
    p(xv)
    assert not chunked(p)


def test_bad_thread_count_is_a_clear_error(monkeypatch):
    for bad in ("0", "two", "-3"):
        monkeypatch.setenv("LAZYARRAY_NUM_THREADS", bad)
        with pytest.raises(ValueError, match="LAZYARRAY_NUM_THREADS must be a positive integer"):
            threads.num_threads()


def test_chunk_bounds_cover_the_axis():
    for size in (2, 7, 1000, 2**20 + 1):
        for count in (1, 2, 3, 8):
            b = threads.bounds(size, count)
            assert b[0][0] == 0 and sum(n for _, n in b) == size
            assert all(s + n == s2 for (s, n), (s2, _) in zip(b, b[1:]))


def test_stand_in_buffer_block_runs_the_same_code(monkeypatch):
    """Interpreters whose lists or arrays are laid out differently get a stand-in block."""
    xv = rng_values()
    want = np.asarray(prepared(lambda x: xp.sin(x) * x, xv)(xv))
    monkeypatch.setattr(abi, "NATIVE", False)
    p = prepared(lambda x: xp.sin(x) * x, xv)
    assert np.array_equal(np.asarray(p(xv)), want)
    s = prepared(xp.sum, xv)
    np.testing.assert_allclose(float(s(xv)), np.sum(xv), rtol=1e-12)


@pytest.mark.parametrize("threads_", ["1", "2"])
def test_a_long_kernel_runs_in_rounds_with_the_same_bits(monkeypatch, threads_):
    """Past threads.SLICE iterations a kernel runs as rounds of one chunk a thread (Python
    sees a pending Ctrl-C between rounds); elementwise bits are those of one call."""
    xv = rng_values()
    fn = lambda x: xp.sin(x) * 2.0 + xp.exp(-x)  # noqa: E731
    monkeypatch.setenv("LAZYARRAY_NUM_THREADS", "1")
    monkeypatch.setitem(threads.SLICE, "math", 1 << 40)
    one = np.asarray(prepared(fn, xv)(xv))
    monkeypatch.setenv("LAZYARRAY_NUM_THREADS", threads_)
    monkeypatch.setitem(threads.SLICE, "math", N // 7)
    p = prepared(fn, xv)
    (step,) = steps(p)
    assert isinstance(step, runtime.Chunked) and step.width == int(threads_)
    assert len(step.metas) >= 7 and len(step.metas) % step.width == 0
    assert np.array_equal(np.asarray(p(xv)), one)


def test_a_kernel_the_alignment_leaves_in_one_chunk_runs_unsplit():
    """Chunk starts are multiples of threads.ALIGN along the split axis: a kernel whose
    split axis is no longer than that would be one chunk through the pool, all cost and
    no gain; it runs as a plain step instead (and keeps a one-call program its door)."""
    least = (threads.NATIVE_MIN if parallel.available() else threads.PYTHON_MIN)["math"]
    cols = 2 * least // threads.ALIGN + 1
    row = np.linspace(0, 1, cols)  # a broadcast row: the kernel keeps its two axes
    one = np.random.default_rng(2).uniform(-1, 1, (threads.ALIGN, cols))
    p = prepared(lambda x, r: xp.tanh(x + r), one, row)  # big enough, but one chunk
    np.testing.assert_allclose(np.asarray(p(one, row)), np.tanh(one + row), rtol=1e-15)
    assert not chunked(p)
    two = np.random.default_rng(3).uniform(-1, 1, (2 * threads.ALIGN, cols))
    q = prepared(lambda x, r: xp.tanh(x + r), two, row)
    np.testing.assert_allclose(np.asarray(q(two, row)), np.tanh(two + row), rtol=1e-15)
    assert chunked(q)


def test_a_program_of_several_kernels_splits_only_large_ones():
    """A split runs a program of several kernels as Python-driven steps instead of one
    native call (its front door): such a kernel splits from threads.OFF_DOOR times the
    least work a kernel of its own splits from."""
    least = (threads.NATIVE_MIN if parallel.pool(wait=True) is not None
             else threads.PYTHON_MIN)["math"]
    small = rng_values(4 * least, seed=5)  # splits alone, not beside another kernel
    alone = prepared(lambda x: xp.sin(x) * 2.0, small)
    assert chunked(alone)
    pair = prepared(lambda x: (xp.sin(x) * 2.0, xp.sum(xp.exp(x))), small)
    got = pair(small)
    np.testing.assert_allclose(np.asarray(got[0]), np.sin(small) * 2.0, rtol=1e-15)
    assert not chunked(pair) and len(steps(pair)) == 1  # one native call
    large = rng_values(4 * threads.OFF_DOOR * least, seed=6)
    big = prepared(lambda x: (xp.sin(x) * 2.0, xp.sum(xp.exp(x))), large)
    got = big(large)
    np.testing.assert_allclose(np.asarray(got[0]), np.sin(large) * 2.0, rtol=1e-15)
    np.testing.assert_allclose(float(got[1]), np.sum(np.exp(large)), rtol=1e-12)
    assert chunked(big)
