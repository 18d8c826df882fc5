"""Elementwise work on a reduction's result runs in the reduction's kernel, as its epilogue
(backend/epilogue.py): one kernel, the reduction's buffer never written, and every result
numpy's in each tier, in row and column order, split across threads or not."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray.backend import bytecode, threads
from lazyarray.backend.cache import PROGRAMS, keyed_walk, snapshot_of

TIERS = ["interpret", "compile"]


def planned(*arrays):
    """The schedule the arrays evaluated together run."""
    nodes, values, keys, outs, _ = keyed_walk([a._node for a in arrays])
    return PROGRAMS.schedule(snapshot_of(nodes, values, keys[0]), tuple(outs), keys[0])


def pairwise(m, a, b):
    d = m.expand_dims(a, axis=1) - m.expand_dims(b, axis=0)
    return m.sqrt(m.sum(d * d, axis=2))


@pytest.mark.parametrize("tier", TIERS)
@pytest.mark.parametrize("n,m", [(100, 30), (7, 3), (1, 40), (300, 1)])
def test_distance_matrix_is_one_kernel(monkeypatch, tier, n, m):
    monkeypatch.setenv("LAZYARRAY_TIER", tier)
    rng = np.random.default_rng(n + m)
    av, bv = rng.uniform(0, 1, (n, 3)), rng.uniform(0, 1, (m, 3))
    out = pairwise(xp, xp.asarray(av), xp.asarray(bv))
    sched = planned(out)
    assert len(sched.kernels) == 1
    (k,) = sched.kernels
    assert [ins[0] for ins in k.post] == ["acc", "op"]
    assert len(sched.unwritten) == 1  # the sums' buffer
    np.testing.assert_allclose(np.asarray(out), pairwise(np, av, bv), rtol=1e-15, atol=0)


@pytest.mark.parametrize("tier", TIERS)
@pytest.mark.parametrize("axis", [0, 1])
def test_standard_deviation_in_row_and_column_order(monkeypatch, tier, axis):
    monkeypatch.setenv("LAZYARRAY_TIER", tier)
    xv = np.random.default_rng(3).normal(2.0, 3.0, (300, 70))
    x = xp.asarray(xv)
    mu = xp.mean(x, axis=axis, keepdims=True)
    sd = xp.sqrt(xp.mean((x - mu) ** 2, axis=axis)) * 2.0 + 1.0
    assert any(k.post for k in planned(sd).kernels)
    want = np.sqrt(np.mean((xv - xv.mean(axis=axis, keepdims=True)) ** 2, axis=axis)) * 2 + 1
    np.testing.assert_allclose(np.asarray(sd), want, rtol=1e-13)


@pytest.mark.parametrize("tier", TIERS)
def test_log_sum_exp_reads_the_maximum_at_each_result(monkeypatch, tier):
    monkeypatch.setenv("LAZYARRAY_TIER", tier)
    xv = np.random.default_rng(4).normal(0, 5, (40, 600))
    x = xp.asarray(xv)
    m = xp.max(x, axis=1)
    lse = m + xp.log(xp.sum(xp.exp(x - m[:, None]), axis=1))
    sched = planned(lse)
    (k,) = [k for k in sched.kernels if k.post]
    assert k.reduce.value == "sum"
    assert any(ins[0] == "load" for ins in k.post)  # m, at the output point
    mv = xv.max(axis=1)
    want = mv + np.log(np.exp(xv - mv[:, None]).sum(axis=1))
    np.testing.assert_allclose(np.asarray(lse), want, rtol=1e-14)


@pytest.mark.parametrize("tier", TIERS)
def test_every_reduction_kind_and_dtype(monkeypatch, tier):
    monkeypatch.setenv("LAZYARRAY_TIER", tier)
    rng = np.random.default_rng(5)
    fv = rng.uniform(0.5, 2.0, (9, 33)).astype(np.float32)
    iv = rng.integers(-50, 50, (9, 33))
    cv = rng.normal(size=(9, 33)) + 1j * rng.normal(size=(9, 33))
    f, i, c = xp.asarray(fv), xp.asarray(iv), xp.asarray(cv)
    outs = [xp.sqrt(xp.max(f, axis=1)), xp.min(f, axis=0) * 3.0,
            xp.prod(f, axis=1) - 1.0, xp.sum(i, axis=1) // 7, xp.sum(i, axis=0) % 0,
            xp.logical_not(xp.any(i > 40, axis=1)), xp.all(i < 45, axis=0) & (xp.sum(i, axis=0) > 0),
            xp.abs(xp.sum(c, axis=1)), xp.astype(xp.sum(i, axis=1), xp.float32) / 2]
    for o in outs:
        assert any(k.post for k in planned(o).kernels)
    with np.errstate(divide="ignore", invalid="ignore"):
        wants = [np.sqrt(fv.max(axis=1)), fv.min(axis=0) * np.float32(3.0),
                 fv.prod(axis=1) - np.float32(1.0), iv.sum(axis=1) // 7,
                 np.zeros(33, np.int64),  # the documented x % 0 == 0
                 ~(iv > 40).any(axis=1), (iv < 45).all(axis=0) & (iv.sum(axis=0) > 0),
                 np.abs(cv.sum(axis=1)), iv.sum(axis=1).astype(np.float32) / np.float32(2)]
    for got, want in zip(outs, wants):
        got = np.asarray(got)
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=2e-6 if got.dtype == np.float32 else 1e-13)


def test_what_does_not_join():
    xv = np.random.default_rng(6).normal(size=(20, 30))
    x = xp.asarray(xv)
    s = xp.sum(x, axis=1)
    held = [s, xp.sqrt(xp.abs(s))]                      # the sums are an output too
    kept = [xp.sqrt(xp.abs(xp.sum(x, axis=1, keepdims=True)))]  # keepdims: another shape
    full = [xp.sqrt(xp.sum(x * x))]                     # a full reduction
    spread = [xp.sum(x, axis=1)[:, None] * x]           # the result broadcast
    flipped = [xp.sum(x, axis=0)[::-1] * 2.0]           # read through a view
    for outs in (held, kept, full, spread, flipped):
        assert not any(k.post for k in planned(*outs).kernels)
        xp.evaluate(*outs)
    sv = xv.sum(axis=1)
    np.testing.assert_allclose(np.asarray(held[1]), np.sqrt(np.abs(sv)), rtol=1e-14)
    np.testing.assert_allclose(np.asarray(kept[0])[:, 0], np.sqrt(np.abs(sv)), rtol=1e-14)
    np.testing.assert_allclose(np.asarray(full[0]), np.sqrt((xv * xv).sum()), rtol=1e-14)
    np.testing.assert_allclose(np.asarray(spread[0]), sv[:, None] * xv, rtol=1e-13)
    np.testing.assert_allclose(np.asarray(flipped[0]), xv.sum(axis=0)[::-1] * 2, rtol=1e-13)


def test_a_later_writer_of_an_epilogue_input_keeps_the_kernels_apart():
    xv = np.random.default_rng(7).normal(size=(50, 40))
    x = xp.asarray(xv)
    s = xp.sum(x, axis=1)
    t = xp.sum(x * x, axis=1)        # written after s: an epilogue of s may not read it
    out = xp.sqrt(xp.abs(s)) + t
    (k,) = [k for k in planned(out).kernels if k.post]
    assert k.reduce.value == "sum" and len(k.body) > 1  # the epilogue of t's kernel
    want = np.sqrt(np.abs(xv.sum(axis=1))) + (xv * xv).sum(axis=1)
    np.testing.assert_allclose(np.asarray(out), want, rtol=1e-13)


@pytest.mark.parametrize("shape,axis", [((1, 4 * threads.PYTHON_MIN["reduce"] + 5), 1),
                                        ((4 * threads.PYTHON_MIN["reduce"] + 5, 1), 0),
                                        ((3000, 400), 1)])
def test_split_across_threads_the_epilogue_sees_whole_results(monkeypatch, shape, axis):
    xv = np.random.default_rng(8).uniform(0, 1, shape)

    def run():
        ph = xp.placeholder(shape, xp.float64)
        out = xp.sqrt(xp.sum(ph * ph, axis=axis)) + 1.0
        return np.asarray(xp.compile(out, inputs=[ph]).prepare(xv)(xv))
    many = run()
    monkeypatch.setenv("LAZYARRAY_NUM_THREADS", "1")
    one = run()
    want = np.sqrt((xv * xv).sum(axis=axis)) + 1.0
    np.testing.assert_allclose(many, want, rtol=1e-13)
    np.testing.assert_allclose(one, want, rtol=1e-13)


def test_a_jitted_function_reuses_its_kernel_at_other_sizes():
    f = xp.jit(lambda a, b: pairwise(xp, a, b))
    rng = np.random.default_rng(9)
    for n, m in [(5, 4), (200, 7), (5, 4), (1, 1), (64, 64)]:
        av, bv = rng.uniform(size=(n, 3)), rng.uniform(size=(m, 3))
        np.testing.assert_allclose(np.asarray(f(av, bv)), pairwise(np, av, bv), rtol=1e-15)


def test_a_held_result_whose_buffer_is_not_written_is_not_kept_as_a_value():
    # sklearn's variance update: the user holds the sums (``correction``) an epilogue now
    # reads from a register, while consecutive elementwise kernels join (backend/merge.py):
    # the sums' buffer, never written, must not become their value.
    xv = np.random.default_rng(10).normal(size=(3, 5))
    for _ in range(3):
        x = xp.asarray(xv)
        s = xp.sum(x, axis=0)
        out = xp.sqrt(xp.abs(s)) + x[2]
        a = x[0] * 2.0
        b = a + x[1]
        sched = planned(out, a, b)
        assert len(sched.kernels) == 2 and sched.kernels[0].post and sched.kernels[1].outs
        xp.evaluate(out, a, b)
        np.testing.assert_allclose(np.asarray(s), xv.sum(axis=0), rtol=1e-15)
        np.testing.assert_allclose(np.asarray(out), np.sqrt(np.abs(xv.sum(axis=0))) + xv[2],
                                   rtol=1e-14)



# ---- matrix products: the GEMM routine writes the product, the epilogue goes over it

def layers(m, x, w1, b1, w2, b2):
    h = m.maximum(m.matmul(x, w1) + b1, 0.0)
    return m.tanh(m.matmul(h, w2) + b2)


def layer_inputs(b, i, h, o, dtype, seed=11):
    rng = np.random.default_rng(seed)
    return [rng.normal(size=s).astype(dtype) for s in [(b, i), (i, h), (h,), (h, o), (o,)]]


@pytest.mark.parametrize("tier", TIERS)
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("shape", [(4, 8, 8, 4), (64, 64, 64, 16), (301, 129, 67, 3),
                                   (1, 5, 1, 1)])
def test_a_perceptron_is_two_kernels(monkeypatch, tier, dtype, shape):
    """Each layer's bias and activation run in its product's kernel."""
    monkeypatch.setenv("LAZYARRAY_TIER", tier)
    vals = layer_inputs(*shape, dtype)
    out = layers(xp, *[xp.asarray(v) for v in vals])
    sched = planned(out)
    assert [(k.matmul, bool(k.post)) for k in sched.kernels] == [(True, True)] * 2
    assert len(sched.unwritten) == 2  # the products' own buffers
    tol = 1e-12 if dtype == "float64" else 2e-4
    np.testing.assert_allclose(np.asarray(out), layers(np, *vals), rtol=tol, atol=tol)


def test_matrix_vector_products_keep_their_kernels_for_row_tiles():
    """r = X @ w - y, X.T @ r: backend/rowtiles.py runs the work between the products in
    tiles of X's rows, as kernels of their own."""
    rng = np.random.default_rng(12)
    xv, yv, wv = rng.normal(size=(100, 20)), rng.normal(size=100), rng.normal(size=20)
    x, y, w = xp.asarray(xv), xp.asarray(yv), xp.asarray(wv)
    r = xp.matmul(x, w) - y
    new = w - 0.01 * xp.matmul(x.T, r)
    assert not any(k.post for k in planned(new).kernels)
    rn = xv @ wv - yv
    np.testing.assert_allclose(np.asarray(new), wv - 0.01 * (xv.T @ rn), rtol=1e-13)


@pytest.mark.parametrize("tier", TIERS)
def test_batched_transposed_and_empty_products(monkeypatch, tier):
    monkeypatch.setenv("LAZYARRAY_TIER", tier)
    rng = np.random.default_rng(13)
    a, bm, c = rng.normal(size=(3, 7, 5)), rng.normal(size=(3, 9, 5)), rng.normal(size=9)
    prod = xp.matmul(xp.asarray(a), xp.matrix_transpose(xp.asarray(bm)))
    out = xp.exp(prod * 0.5) + xp.asarray(c)
    assert any(k.matmul and k.post for k in planned(out).kernels)
    np.testing.assert_allclose(np.asarray(out), np.exp(a @ bm.transpose(0, 2, 1) * 0.5) + c,
                               rtol=1e-13)
    for (m, k, n) in [(0, 5, 3), (4, 0, 3), (4, 5, 0)]:
        p, q, s = rng.normal(size=(m, k)), rng.normal(size=(k, n)), rng.normal(size=n)
        got = xp.maximum(xp.matmul(xp.asarray(p), xp.asarray(q)) + xp.asarray(s), 0.0)
        np.testing.assert_array_equal(np.asarray(got), np.maximum(p @ q + s, 0.0))


def test_products_that_keep_their_elementwise_kernel():
    rng = np.random.default_rng(14)
    fv, iv = rng.normal(size=(6, 4)), rng.integers(-5, 5, (6, 4))
    f, i = xp.asarray(fv), xp.asarray(iv)
    p = xp.matmul(f, f.T)
    held = [p, p * 2.0]                                       # the product is an output
    mask = [xp.matmul(f, f.T) > 0.0]                          # another dtype than the product's
    ints = [xp.matmul(i, i.T) + 1]                            # no GEMM routine for integers
    cplx = [xp.matmul(f * 1j, f.T * 1j) + 1.0]                # nor for complex
    for outs in (held, mask, ints, cplx):
        assert not any(k.post for k in planned(*outs).kernels)
        xp.evaluate(*outs)
    np.testing.assert_allclose(np.asarray(held[1]), fv @ fv.T * 2.0, rtol=1e-14)
    np.testing.assert_array_equal(np.asarray(mask[0]), fv @ fv.T > 0.0)
    np.testing.assert_array_equal(np.asarray(ints[0]), iv @ iv.T + 1)
    np.testing.assert_allclose(np.asarray(cplx[0]), (fv * 1j) @ (fv.T * 1j) + 1.0, rtol=1e-14)


def test_a_product_split_across_threads_keeps_its_epilogue(monkeypatch):
    rng = np.random.default_rng(15)
    xv, wv, bv = rng.normal(size=(900, 300)), rng.normal(size=(300, 200)), rng.normal(size=200)

    def run():
        ph = xp.placeholder(xv.shape, xp.float64)
        out = xp.tanh(xp.matmul(ph, xp.asarray(wv)) * 0.1 + xp.asarray(bv))
        return np.asarray(xp.compile(out, inputs=[ph]).prepare(xv)(xv))
    many = run()
    monkeypatch.setenv("LAZYARRAY_NUM_THREADS", "1")
    one = run()
    want = np.tanh(xv @ wv * 0.1 + bv)
    np.testing.assert_allclose(many, want, rtol=1e-12, atol=1e-13)
    np.testing.assert_array_equal(many, one)


def test_the_interpreters_loops_before_the_gemm_routine_is_loaded(monkeypatch):
    """Until the GEMM routine is loaded, the interpreter runs a product on its generic
    loops, one result after another: each is stored before its epilogue reads it back."""
    monkeypatch.setenv("LAZYARRAY_TIER", "interpret")
    monkeypatch.setattr(bytecode, "gemm_operands", lambda k: None)  # as if not loaded
    PROGRAMS.clear()
    try:
        for shape in [(5, 7, 6, 3), (40, 3, 30, 1)]:
            vals = layer_inputs(*shape, "float64", seed=16)
            out = layers(xp, *[xp.asarray(v) for v in vals])
            assert all(k.post for k in planned(out).kernels)
            np.testing.assert_allclose(np.asarray(out), layers(np, *vals), rtol=1e-12,
                                       atol=1e-14)
    finally:
        PROGRAMS.clear()
