"""Loops over operands broadcast along the innermost axis (``Kernel.spread``).

A compiled kernel whose loads broadcast along its innermost axis also holds a copy
of that loop with constant strides (0 for those loads, 1 for the others), taken
when the strides of a call are those; LLVM vectorises it, where it leaves a loop
mixing runtime strides 0 and 1 scalar. Compared with numpy on layouts that take
the copy and layouts that do not (transposed, strided, scalar-shaped operands),
for elementwise kernels, reductions along the last axis, scans and arg-reductions.
"""
import numpy as np
import pytest

import lazyarray as xp

from helpers import check

TOL = {"float32": 2e-5, "float64": 1e-12, "complex128": 1e-12}
RNG = np.random.default_rng(11)
A = RNG.standard_normal((10, 1000))
M = A.max(axis=1, keepdims=True)


@pytest.fixture(autouse=True)
def compiled(monkeypatch):
    monkeypatch.setenv("LAZYARRAY_TIER", "compile")


def spread_of(y) -> list:
    return [k.spread for k in xp.compile(y)._schedule.kernels]


def test_loads_broadcast_along_the_last_axis_are_marked():
    x, m, row = xp.asarray(A), xp.asarray(M), xp.asarray(A[0])
    assert spread_of(xp.exp(x - m)) == [(0,)]      # load 0 reads m through a broadcast
    assert spread_of(x * row) == [()]              # broadcast along axis 0: stride 1 inside
    assert spread_of(x + xp.asarray(2.0)) == [(0,)]  # a 0-d array broadcast everywhere
    assert spread_of(xp.sum(x - m, axis=1)) == [(0,)]
    assert spread_of(xp.sum(x * row, axis=1)) == [()]


@pytest.mark.parametrize("layout", ["c", "transposed", "strided", "sliced-m"])
def test_elementwise_against_numpy(layout):
    a, m = A, M
    if layout == "transposed":
        a = np.ascontiguousarray(A.T).T  # strides (8, 80): not the flat copy's
    elif layout == "strided":
        a = np.concatenate([A, A], axis=1)[:, ::2]
    elif layout == "sliced-m":
        m = np.concatenate([M, M * 2], axis=1)[:, 1:2]
    x, y = xp.asarray(a), xp.asarray(m)
    check(xp.exp(x - y), np.exp(a - m), rtol=TOL, atol=TOL)
    check(x / (y + 1.0) - x * y, a / (m + 1.0) - a * m, rtol=TOL, atol=TOL)
    check(xp.where(x > y - 1.0, x, y), np.where(a > m - 1.0, a, m))


def test_reductions_scans_and_arg_reductions_along_the_last_axis():
    x, y = xp.asarray(A), xp.asarray(M)
    check(xp.sum(xp.exp(x - y), axis=1), np.exp(A - M).sum(axis=1), rtol=TOL, atol=TOL)
    check(xp.max(x - y * 0.5, axis=1), (A - M * 0.5).max(axis=1))
    check(xp.argmax(x * y, axis=1), (A * M).argmax(axis=1))
    check(xp.cumulative_sum(x - y, axis=1), np.cumsum(A - M, axis=1), rtol=TOL, atol=TOL)
    check(xp.mean(x - y, axis=-1, keepdims=True), (A - M).mean(axis=-1, keepdims=True),
          rtol=TOL, atol=TOL)


def test_a_long_float32_row_sum_with_a_broadcast_operand_stays_pairwise():
    rows = np.ones((3, 2 ** 24 + 4096), dtype=np.float32)  # past a sequential sum's 2**24
    half = np.full((3, 1), 0.5, dtype=np.float32)
    got = np.asarray(xp.sum(xp.asarray(rows) * xp.asarray(half), axis=1))
    assert got.tolist() == [float(rows.shape[1]) / 2] * 3


@pytest.mark.parametrize("dtype", ["int16", "int64", "uint8", "complex128", "bool"])
def test_other_dtypes(dtype):
    a = RNG.integers(0, 5, (6, 333)).astype(dtype)
    m = RNG.integers(1, 4, (6, 1)).astype(dtype)
    x, y = xp.asarray(a), xp.asarray(m)
    if dtype == "bool":
        check(xp.logical_xor(x, y), np.logical_xor(a, m))
        check(xp.any(x & y, axis=1), (a & m).any(axis=1))
        return
    check(x * y + x, a * m + a, rtol=TOL, atol=TOL)
    check(xp.sum(x * y, axis=1), (a * m).sum(axis=1), rtol=TOL, atol=TOL)


def test_one_program_at_several_shapes():
    f = xp.jit(lambda v, w: xp.sum(xp.exp(v - w), axis=1) + v[:, 0])
    for rows, cols in ((1, 1), (3, 7), (5, 4096 + 3), (2, 1)):
        a = RNG.standard_normal((rows, cols))
        m = a.max(axis=1, keepdims=True)
        check(f(xp.asarray(a), xp.asarray(m)), np.exp(a - m).sum(axis=1) + a[:, 0],
              rtol=TOL, atol=TOL)
