"""Reductions over a strided axis in compiled kernels: the column order
(backend/codegen.py ``KernelBuilder._columns``) reads a tile of output columns per
row and accumulates each column on its own, pairwise for float sums.

Compared with numpy (and with the interpreter) on the layouts that take it and
the ones that do not: tile edges, several reduced axes, views, broadcasting,
every reduction that has it, and float32 sums past 2**24 rows.
"""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray.backend import codegen, ir, kernels

from helpers import check

TOL = {"float32": 2e-5, "float64": 1e-12, "complex128": 1e-12}
F64_TILE = codegen.KernelBuilder.column_width(ir.SCALAR_TYPES["float64"])


@pytest.fixture(autouse=True)
def compiled(monkeypatch):
    monkeypatch.setenv("LAZYARRAY_TIER", "compile")


def values(shape, dtype, rng):
    d = np.dtype(dtype)
    if d.kind == "b":
        return rng.random(shape) < 0.3
    if d.kind == "c":
        return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
    if d.kind == "f":
        return rng.standard_normal(shape).astype(d)
    return rng.integers(0 if d.kind == "u" else -4, 5, shape).astype(d)


@pytest.mark.parametrize("rows,cols", [(2, 3), (5, F64_TILE - 1), (300, F64_TILE),
                                       (257, 2 * F64_TILE + 5), (1030, 9)])
@pytest.mark.parametrize("fname", ["sum", "mean", "max", "min", "prod"])
def test_axis_zero_of_a_matrix_at_tile_edges(fname, rows, cols):
    rng = np.random.default_rng(rows * 7 + cols)
    a = values((rows, cols), "float64", rng)
    if fname == "prod":
        a = 1.0 + a / 64
    check(getattr(xp, fname)(xp.asarray(a) * 1.0, axis=0), getattr(np, fname)(a, axis=0),
          rtol=TOL, atol=TOL)


@pytest.mark.parametrize("dtype", ["int8", "uint16", "int32", "int64", "float32", "float64",
                                   "complex128"])
@pytest.mark.parametrize("fname", ["sum", "prod", "max", "min", "mean"])
def test_every_dtype(fname, dtype):
    if np.dtype(dtype).kind == "c" and fname in ("max", "min"):
        pytest.skip("max/min are not defined for complex dtypes")
    if np.dtype(dtype).kind not in "fc" and fname == "mean":
        pytest.skip("mean is defined for floating dtypes only")
    rng = np.random.default_rng(3)
    a = values((70, 300), dtype, rng)
    if fname == "prod":
        a = a[:6]
    x = xp.asarray(a)
    for axis in (0, (0,), -2):
        check(getattr(xp, fname)(x, axis=axis), getattr(np, fname)(a, axis=axis),
              rtol=TOL, atol=TOL)


@pytest.mark.parametrize("fname", ["any", "all"])
def test_any_all(fname):
    rng = np.random.default_rng(4)
    a = values((40, 333), "bool", rng)
    a[:, 5] = fname == "all"
    check(getattr(xp, fname)(xp.asarray(a), axis=0), getattr(np, fname)(a, axis=0))
    f = rng.standard_normal((40, 333))
    check(getattr(xp, fname)(xp.asarray(f) > 1.5, axis=0), getattr(np, fname)(f > 1.5, axis=0))


def test_views_and_several_axes():
    rng = np.random.default_rng(5)
    a = rng.standard_normal((6, 50, 140))
    x = xp.asarray(a)
    for axis in ((0, 1), 1, (0, 2), 0):
        check(xp.sum(x, axis=axis), a.sum(axis=axis), rtol=TOL, atol=TOL)
    m, xm = a[0], x[0]
    check(xp.sum(xm[:, ::2], axis=0), m[:, ::2].sum(axis=0), rtol=TOL, atol=TOL)
    check(xp.sum(xm[::-1, ::-1], axis=0), m[::-1, ::-1].sum(axis=0), rtol=TOL, atol=TOL)
    check(xp.max(xp.matrix_transpose(xm), axis=1), m.T.max(axis=1))
    check(xp.mean(xm[3:40:3, 7:], axis=0), m[3:40:3, 7:].mean(axis=0), rtol=TOL, atol=TOL)
    mu = m.mean(axis=0)
    check(xp.sum((xm - xp.asarray(mu)) ** 2, axis=0), ((m - mu) ** 2).sum(axis=0),
          rtol=TOL, atol=TOL)
    check(xp.sum(xm * xm[:, :1], axis=0), (m * m[:, :1]).sum(axis=0), rtol=TOL, atol=TOL)


def test_nan_and_signed_zero_as_in_the_row_order():
    a = np.zeros((300, 200))
    a[17, 3], a[299, 199], a[0, 0] = np.nan, np.nan, -np.inf
    x = xp.asarray(a)
    check(xp.max(x, axis=0), a.max(axis=0))
    check(xp.min(x, axis=0), a.min(axis=0))
    check(xp.sum(x, axis=0), a.sum(axis=0))
    col = np.full((300, 200), -0.0)
    check(xp.max(xp.asarray(col), axis=0), col.max(axis=0))


def test_float32_sum_past_two_to_the_24_rows_is_exact():
    rows = 2 ** 24 + 2 ** 20  # a sequential float32 sum stops at 2**24
    got = np.asarray(xp.sum(xp.ones((rows, 2), dtype=xp.float32) * 1.0, axis=0))
    assert got.tolist() == [float(rows)] * 2


def test_the_interpreter_agrees(monkeypatch):
    rng = np.random.default_rng(6)
    a = rng.standard_normal((513, 700)).astype(np.float32)
    compiled = np.asarray(xp.sum(xp.asarray(a) * 2.0, axis=0))
    monkeypatch.setenv("LAZYARRAY_TIER", "interpret")
    interpreted = np.asarray(xp.sum(xp.asarray(a) * 3.0, axis=0)) * (2.0 / 3.0)
    exact = (a.astype(np.float64) * 2.0).sum(axis=0)
    scale = np.abs(a.astype(np.float64) * 2.0).sum(axis=0)
    eps = np.finfo(np.float32).eps
    assert np.all(np.abs(compiled - exact) <= 16 * eps * scale)
    assert np.all(np.abs(interpreted - exact) <= 16 * eps * scale)


def test_kernels_that_have_a_column_order():
    """Axis reductions carry the column order; arg-reductions and scans do not."""
    def ir_of(y):
        return [kernels.kernel_ir(f"k{i}", k) for i, k in enumerate(xp.compile(y)._schedule.kernels)]
    x = xp.asarray(np.ones((40, 30)))
    assert any("columns_run" in t for t in ir_of(xp.sum(x * 2.0, axis=0)))
    assert not any("columns_run" in t for t in ir_of(xp.argmax(x * 2.0, axis=0)))
    assert not any("columns_run" in t for t in ir_of(xp.cumulative_sum(x * 2.0, axis=0)))
    assert not any("columns_run" in t for t in ir_of(xp.sum(x * 2.0)))


@pytest.mark.parametrize("shape", [(15, 3), (16, 3), (17, 2), (100, 3), (40, 5, 7),
                                   (1030, 1), (33, 2, 3)])
@pytest.mark.parametrize("dtype", ["int16", "float32", "float64", "complex128"])
@pytest.mark.parametrize("fname", ["sum", "prod", "max", "min", "mean"])
def test_a_reduced_axis_shorter_than_a_vector(fname, dtype, shape):
    """A short last axis beside many results takes the column order too (the row order
    would reduce a partial vector per result), or the short-row loop: the same values."""
    if np.dtype(dtype).kind == "c" and fname in ("max", "min"):
        pytest.skip("max/min are not defined for complex dtypes")
    if np.dtype(dtype).kind not in "fc" and fname == "mean":
        pytest.skip("mean is defined for floating dtypes only")
    a = values(shape, dtype, np.random.default_rng(len(shape) * 100 + shape[0]))
    check(getattr(xp, fname)(xp.asarray(a) * 1, axis=-1), getattr(np, fname)(a, axis=-1),
          rtol=TOL, atol=TOL)


def test_pairwise_distances_broadcast_then_reduce_over_three_coordinates():
    rng = np.random.default_rng(8)
    a, b = rng.uniform(0, 1, (100, 3)), rng.uniform(0, 1, (30, 3))
    d = xp.expand_dims(xp.asarray(a), axis=1) - xp.expand_dims(xp.asarray(b), axis=0)
    want = np.sqrt(((a[:, None, :] - b[None, :, :]) ** 2).sum(axis=2))
    check(xp.sqrt(xp.sum(d * d, axis=2)), want, rtol=TOL, atol=TOL)
    e = xp.astype(d, xp.float32)
    check(xp.sum(e * e, axis=2), ((a[:, None, :] - b[None, :, :]).astype(np.float32) ** 2)
          .sum(axis=2), rtol=TOL, atol=TOL)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "complex128"])
@pytest.mark.parametrize("rows,cols", [(3, 5), (300, F64_TILE - 1), (1030, 2 * F64_TILE + 3)])
def test_a_load_broadcast_along_the_columns(dtype, rows, cols):
    """sum(X.T * r, axis=1): r broadcasts along the output columns.  Where every other
    load is contiguous along them the tile's loop has constant strides (``col_spread``);
    a strided X takes the general one: the same values, and the same bits."""
    rng = np.random.default_rng(rows + cols)
    a, r = values((rows, 2 * cols), dtype, rng), values((rows,), dtype, rng)
    dense = np.ascontiguousarray(a[:, ::2])
    x, xs, v = xp.asarray(dense), xp.asarray(a)[:, ::2], xp.asarray(r)
    k = xp.compile(xp.sum(xp.matrix_transpose(x) * v, axis=1))._schedule.kernels
    assert [len(kk.col_spread) for kk in k if kk.reduce is not None] == [1]
    want = (dense.T * r).sum(axis=1)
    flat = xp.sum(xp.matrix_transpose(x) * v, axis=1)
    general = xp.sum(xp.matrix_transpose(xs) * v, axis=1)
    check(flat, want, rtol=TOL, atol=TOL)
    assert np.array_equal(np.asarray(flat), np.asarray(general))
    if np.dtype(dtype).kind != "c":
        check(xp.max(x * v[:, None], axis=0), (dense * r[:, None]).max(axis=0))


@pytest.mark.parametrize("k", [1, 2, 3, 4, 5])
@pytest.mark.parametrize("dtype", ["float64", "float32", "int64"])
def test_rows_of_points_in_a_few_dimensions(k, dtype):
    # The second point set read at stride k, the first broadcast: rows of 2-4 take the
    # short-row loop (codegen.SHORT_ROWS, tests/test_short_rows.py), the others the column
    # order; mixed strides the meta's loop.
    rng = np.random.default_rng(k)
    av, bv = values((37, k), dtype, rng), values((2 * F64_TILE + 5, k), dtype, rng)
    a, b = xp.asarray(av), xp.asarray(bv)
    d = xp.expand_dims(a, axis=1) - xp.expand_dims(b, axis=0)
    dn = av[:, None, :] - bv[None, :, :]
    check(xp.sum(d * d, axis=2), (dn * dn).sum(axis=2), rtol=TOL.get(dtype, 0))
    check(xp.max(xp.abs(d), axis=2), np.abs(dn).max(axis=2))
    # mixed strides (b at k, its transpose's copy at 1, the columns of a at 2k): generic
    wide = xp.asarray(np.ascontiguousarray(np.concatenate([bv, bv], axis=1)))
    mixed = xp.sum(wide[:, :k] * xp.asarray(np.ascontiguousarray(bv.T)).T, axis=1)
    check(mixed, (bv * bv).sum(axis=1), rtol=TOL.get(dtype, 0))
