"""Reductions over a short last axis in compiled kernels: the loop over the results is
also emitted per reduced length of ``codegen.SHORT_ROWS``, taken when every load reads
rows of that length side by side (``KernelBuilder._short_rows``): k-means' squared
distances over 4 coordinates, pairwise distances over 3, a sum over a (n, 2) array.

Compared with numpy (and the interpreter) on layouts that take a copy and layouts
that do not (transposed, strided, other lengths), for every reduction that has it,
with an epilogue, odd result counts (vector remainders) and thread splits.
"""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray.backend import codegen, kernels

from helpers import check, data

TOL = {"float32": 2e-5, "float64": 1e-12}
FNAMES = ["sum", "prod", "max", "min", "mean", "any", "all"]


@pytest.fixture(autouse=True)
def compiled(monkeypatch):
    monkeypatch.setenv("LAZYARRAY_TIER", "compile")


def values(shape, dtype, rng):
    return data(shape, dtype, rng, -3, 4)


def applies(fname, dtype) -> bool:
    kind = np.dtype(dtype).kind
    if fname == "mean":
        return kind == "f"
    if fname in ("any", "all"):
        return True
    return kind != "b"


def short_rows_of(y) -> list:
    """The number of short-row copies of each reduction kernel of ``y``'s program."""
    out = []
    for k in xp.compile(y)._schedule.kernels:
        if k.reduce is None:
            continue
        kb = codegen.KernelBuilder(codegen.ModuleBuilder("t"), k, 0, kernels.emit_matmul)
        kb.build()
        out.append(len(kb.short_rows))
    return out


def test_kernels_that_have_short_rows():
    x = xp.asarray(np.ones((40, 3)))
    c = xp.asarray(np.ones((5, 3)))
    n = len(codegen.SHORT_ROWS)
    assert short_rows_of(xp.sum(x * 2.0, axis=1)) == [n]
    assert short_rows_of(xp.sum((x[:, None, :] - c[None, :, :]) ** 2, axis=2)) == [n]
    assert short_rows_of(xp.max(x, axis=1)) == [n]
    assert short_rows_of(xp.argmax(x * 2.0, axis=1)) == [0]
    assert short_rows_of(xp.cumulative_sum(x * 2.0, axis=1)) == [0]
    assert short_rows_of(xp.sum(x * 2.0)) == [0]              # no results' axis
    cx = xp.asarray(np.ones((40, 3), dtype=np.complex128))
    assert short_rows_of(xp.sum(cx * 2.0, axis=1)) == [0]
    assert short_rows_of(xp.sum(xp.asarray(np.ones((4, 3, 2))), axis=(1, 2))) == [0]


@pytest.mark.parametrize("length", [1, 2, 3, 4, 5, 7, 8, 9])
@pytest.mark.parametrize("results", [1, 7, 33])
@pytest.mark.parametrize("dtype", ["float64", "float32", "int8", "uint16", "int64", "bool"])
def test_every_reduction_over_rows_of_a_few_elements(dtype, results, length):
    rng = np.random.default_rng(results * 10 + length)
    a = values((results, length), dtype, rng)
    for fname in FNAMES:
        if not applies(fname, dtype):
            continue
        want = getattr(np, fname)(a, axis=1)
        check(getattr(xp, fname)(xp.asarray(a), axis=1), want, rtol=TOL, atol=TOL)
        if dtype != "bool":  # a computed body, not one load
            check(getattr(xp, fname)(xp.asarray(a) * 1, axis=1),
                  getattr(np, fname)(a * 1, axis=1), rtol=TOL, atol=TOL)


@pytest.mark.parametrize("dims", [2, 3, 4, 6, 9])
@pytest.mark.parametrize("dtype", ["float64", "float32", "int32"])
def test_broadcast_then_reduce_over_coordinates(dtype, dims):
    """k-means' and pairwise distances: the points broadcast along the centroids, the
    centroids along the points; argmin and min of the result as in the workload."""
    rng = np.random.default_rng(dims)
    xv, cv = values((251, dims), dtype, rng), values((9, dims), dtype, rng)
    x, c = xp.asarray(xv), xp.asarray(cv)
    d = xp.expand_dims(x, axis=1) - xp.expand_dims(c, axis=0)
    dn = xv[:, None, :] - cv[None, :, :]
    d2 = xp.sum(d * d, axis=2)
    want = (dn * dn).sum(axis=2)
    check(d2, want, rtol=TOL, atol=TOL)
    check(xp.argmin(d2, axis=1), want.argmin(axis=1))
    check(xp.max(xp.abs(d), axis=2), np.abs(dn).max(axis=2))
    if dtype != "int32":
        check(xp.sqrt(xp.sum(d * d, axis=2)), np.sqrt(want), rtol=TOL, atol=TOL)


@pytest.mark.parametrize("layout", ["c", "transposed", "strided", "wider", "broadcast-w"])
def test_layouts_that_do_not_take_a_copy_give_the_same_values(layout):
    rng = np.random.default_rng(4)
    a = rng.standard_normal((300, 3))
    w = rng.standard_normal(3)
    if layout == "transposed":
        a = np.ascontiguousarray(a.T).T            # rows strided by 300
    elif layout == "strided":
        a = np.concatenate([a, a], axis=0)[::2]    # results strided by 6
    elif layout == "wider":
        a = np.concatenate([a, a], axis=1)[:, :3]  # rows of 3 in rows of 6
    x = xp.asarray(a)
    wv = xp.asarray(w)
    if layout == "broadcast-w":  # a load broadcast along the results: stride 0 there
        check(xp.sum(x * wv, axis=1), (a * w).sum(axis=1), rtol=TOL, atol=TOL)
    check(xp.sum(x * x, axis=1), (a * a).sum(axis=1), rtol=TOL, atol=TOL)
    check(xp.min(x + 1.0, axis=1), (a + 1.0).min(axis=1))
    # a load read once per result (broadcast along the row): stride 0 along it
    s = rng.standard_normal(300)
    check(xp.sum(x * xp.asarray(s)[:, None], axis=1), (a * s[:, None]).sum(axis=1),
          rtol=TOL, atol=TOL)


def test_an_epilogue_reading_a_value_per_result():
    """log-sum-exp over rows of 3: the maximum, then an epilogue reading it."""
    rng = np.random.default_rng(5)
    a = rng.standard_normal((1001, 3)) * 30
    x = xp.asarray(a)
    m = xp.max(x, axis=1)
    got = xp.log(xp.sum(xp.exp(x - m[:, None]), axis=1)) + m
    mn = a.max(axis=1)
    want = np.log(np.exp(a - mn[:, None]).sum(axis=1)) + mn
    check(got, want, rtol=TOL, atol=TOL)


def test_nan_and_infinity_in_short_rows():
    a = np.array([[1.0, np.nan], [np.inf, -np.inf], [-0.0, -0.0], [2.0, 3.0]] * 9)
    x = xp.asarray(a)
    for fname in ("sum", "max", "min", "prod"):
        with np.errstate(invalid="ignore"):  # inf - inf
            want = getattr(np, fname)(a, axis=1)
        check(getattr(xp, fname)(x, axis=1), want)


def test_threaded_splits_and_the_interpreter_agree(monkeypatch):
    """Enough results for the native pool to split them: each chunk takes the copy on its
    own meta.  The interpreter sums each row in order; the compiled copy within the
    summation-order bound."""
    rng = np.random.default_rng(6)
    a = rng.standard_normal((400_001, 4))
    x = xp.asarray(a)
    compiled = np.asarray(xp.sum(x * x, axis=1))
    check(xp.max(x * 2.0, axis=1), (a * 2.0).max(axis=1))
    monkeypatch.setenv("LAZYARRAY_TIER", "interpret")
    interpreted = np.asarray(xp.sum(xp.asarray(a) * xp.asarray(a), axis=1))
    bound = 2 * np.finfo(np.float64).eps * (a * a).sum(axis=1)
    assert np.all(np.abs(compiled - interpreted) <= bound)
    assert np.all(np.abs(compiled - (a * a).sum(axis=1)) <= bound)
