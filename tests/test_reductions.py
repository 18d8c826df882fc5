"""Reductions (sum, prod, max, min, mean, any, all) against numpy.

Values, dtypes and shapes are compared for every real dtype the functions
accept, every axis form, keepdims, 0-d and empty inputs, NaN propagation,
fusion with elementwise producers, non-contiguous inputs, reductions
feeding further ops, and symbolic-shape programs run at several sizes.
"""
import warnings
from functools import partial

import numpy as np
import pytest

import lazyarray as xp

import helpers
from helpers import misses

INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
FLOATS = ["float32", "float64"]
REAL = INTS + FLOATS
AXES = [None, 0, 1, 2, -1, -3, (0, 2), (-1, 0), (1,), (), (0, 1, 2)]
SIZES = [1, 7, 64, 519]  # scalar tail only, tail + vector body, exact vectors, both
TOL = {"float32": 1e-5, "float64": 1e-12}  # call sites may override rtol or atol
check = partial(helpers.check, rtol=TOL, atol=TOL)


def data(shape, dtype, rng, lo=-5, hi=6):
    """Random values of ``dtype``: small integers (non-negative when unsigned), normals, bools."""
    d = np.dtype(dtype)
    if d.kind == "b":
        return rng.random(shape) < 0.5
    if d.kind == "f":
        return rng.standard_normal(shape).astype(d)
    return rng.integers(0 if d.kind == "u" else lo, hi, shape).astype(d)




# --------------------------------------------------------------------------- dtypes x axes

@pytest.mark.parametrize("dtype", REAL)
@pytest.mark.parametrize("fname", ["sum", "max", "min"])
def test_sum_max_min_every_dtype_and_axis(fname, dtype):
    rng = np.random.default_rng(1)
    a = data((2, 3, 4), dtype, rng)
    x = xp.asarray(a)
    for axis in AXES:
        for keepdims in (False, True):
            got = getattr(xp, fname)(x, axis=axis, keepdims=keepdims)
            check(got, getattr(np, fname)(a, axis=axis, keepdims=keepdims))


@pytest.mark.parametrize("dtype", REAL)
def test_prod_every_dtype_and_axis(dtype):
    rng = np.random.default_rng(2)
    if np.dtype(dtype).kind == "f":
        a = rng.uniform(0.5, 1.5, (2, 3, 4)).astype(dtype)
    else:
        a = data((2, 3, 4), dtype, rng, lo=-3, hi=4)
    x = xp.asarray(a)
    for axis in AXES:
        for keepdims in (False, True):
            check(xp.prod(x, axis=axis, keepdims=keepdims), np.prod(a, axis=axis, keepdims=keepdims))


@pytest.mark.parametrize("dtype", FLOATS)
def test_mean_every_axis(dtype):
    a = data((2, 3, 4), dtype, np.random.default_rng(3))
    x = xp.asarray(a)
    for axis in AXES:
        for keepdims in (False, True):
            check(xp.mean(x, axis=axis, keepdims=keepdims), np.mean(a, axis=axis, keepdims=keepdims))


@pytest.mark.parametrize("dtype", ["bool"] + REAL)
@pytest.mark.parametrize("fname", ["any", "all"])
def test_any_all_every_dtype_and_axis(fname, dtype):
    rng = np.random.default_rng(4)
    a = data((2, 3, 4), dtype, rng, lo=0, hi=3)  # plenty of zeros and non-zeros
    x = xp.asarray(a)
    for axis in AXES:
        for keepdims in (False, True):
            check(getattr(xp, fname)(x, axis=axis, keepdims=keepdims),
                  getattr(np, fname)(a, axis=axis, keepdims=keepdims))


def test_any_all_treat_nan_and_negative_zero_like_numpy():
    for vals in ([0.0, np.nan], [np.nan, 1.0], [-0.0, 0.0], [0.0, -1e-300]):
        a = np.array(vals)
        check(xp.any(xp.asarray(a)), np.any(a))
        check(xp.all(xp.asarray(a)), np.all(a))


def test_any_all_of_complex_input():
    for vals in ([0j, 1j], [0j, 0j], [1 + 0j, 1j], [1 + 0j, 0j]):
        a = np.array(vals)
        check(xp.any(xp.asarray(a)), np.any(a))
        check(xp.all(xp.asarray(a)), np.all(a))


def test_any_all_of_comparisons_fuse():
    rng = np.random.default_rng(5)
    for n in SIZES:
        a = rng.standard_normal((n, 3))
        x = xp.asarray(a)
        check(xp.any(x > 1.5, axis=1), np.any(a > 1.5, axis=1))
        check(xp.all(x > -2.0, axis=0), np.all(a > -2.0, axis=0))
        check(xp.any(xp.logical_and(x > 0, x < 0.1)), np.any((a > 0) & (a < 0.1)))


# --------------------------------------------------------------------------- dtype argument

def test_sum_prod_dtype_argument():
    a = np.arange(1, 11, dtype=np.int8)
    x = xp.asarray(a)
    check(xp.sum(x, dtype=xp.int8), np.sum(a, dtype=np.int8))
    check(xp.sum(x, dtype=xp.float32), np.sum(a, dtype=np.float32))
    check(xp.prod(x, dtype=xp.int16), np.prod(a, dtype=np.int16))  # wraps like numpy
    f = np.linspace(0, 1, 519, dtype=np.float32)
    check(xp.sum(xp.asarray(f), dtype=xp.float64), np.sum(f, dtype=np.float64))
    u = np.array([200, 100], dtype=np.uint8)
    check(xp.sum(xp.asarray(u), dtype=xp.uint8), np.sum(u, dtype=np.uint8))


def test_integer_sums_widen_and_wrap_like_numpy():
    u = np.array([2**63, 2**63 + 5, 7], dtype=np.uint64)
    check(xp.sum(xp.asarray(u)), np.sum(u))
    i = np.array([2**62, 2**62, 2**62], dtype=np.int64)
    check(xp.sum(xp.asarray(i)), np.sum(i))
    big = np.arange(1, 30, dtype=np.int64)
    check(xp.prod(xp.asarray(big)), np.prod(big))
    b = np.full(300, 100, dtype=np.int8)
    check(xp.sum(xp.asarray(b)), np.sum(b))  # int64 accumulator: no int8 overflow


def test_max_min_integer_extremes():
    for dtype in INTS:
        info = np.iinfo(dtype)
        a = np.array([info.min, info.max, 0, info.min + 1], dtype=dtype)
        x = xp.asarray(a)
        check(xp.max(x), np.max(a))
        check(xp.min(x), np.min(a))
        check(xp.max(x[:1]), np.max(a[:1]))
        check(xp.min(x[1:2]), np.min(a[1:2]))


def test_max_min_infinities_and_signed_zero():
    for vals in ([-np.inf, -np.inf], [np.inf], [-np.inf, 3.0], [np.inf, -1.0]):
        a = np.array(vals)
        check(xp.max(xp.asarray(a)), np.max(a))
        check(xp.min(xp.asarray(a)), np.min(a))
    for dtype in FLOATS:
        a = np.array([-np.inf, -np.inf], dtype=dtype)
        check(xp.max(xp.asarray(a)), np.max(a))


# --------------------------------------------------------------------------- 0-d and empty

@pytest.mark.parametrize("dtype", REAL)
def test_zero_d_input(dtype):
    v = np.array(3, dtype=dtype)
    data_leaf = xp.asarray(v)
    computed = xp.reshape(xp.asarray(np.array([3], dtype=dtype)), ())  # a 0-d view
    for x in (data_leaf, computed):
        for fname in ("sum", "prod", "max", "min", "any", "all"):
            for axis in (None, ()):
                for keepdims in (False, True):
                    check(getattr(xp, fname)(x, axis=axis, keepdims=keepdims),
                          getattr(np, fname)(v, axis=axis, keepdims=keepdims))
    x = data_leaf
    if np.dtype(dtype).kind == "f":
        check(xp.mean(x), np.mean(v))
    with pytest.raises(IndexError):
        xp.sum(x, axis=0)


def test_zero_d_placeholder_program():
    p = xp.placeholder((), xp.float64, name="s")
    prog = xp.compile([xp.sum(p * 2), xp.max(p), xp.mean(p, keepdims=True), xp.any(p)], inputs=[p])
    prep = prog.prepare(p)  # the placeholder itself is a (concrete, 0-d) shape spec
    for v in (0.0, -2.5, np.nan):
        a = np.array(v)
        check(prog(xp.asarray(v))[0], np.sum(a * 2))
        got = prep(a)
        for g, w in zip(got, [np.sum(a * 2), np.max(a), np.mean(a, keepdims=True), np.any(a)]):
            check(g, w)


def test_reduce_a_reduction_result_again():
    a = np.random.default_rng(6).standard_normal((3, 5))
    s = xp.sum(xp.asarray(a))
    check(xp.sum(s, keepdims=True), np.sum(np.sum(a), keepdims=True))
    check(xp.max(s), np.max(np.sum(a)))


@pytest.mark.parametrize("shape", [(0,), (0, 3), (3, 0), (0, 0), (2, 0, 3)])
def test_empty_sum_prod_mean_any_all(shape):
    for dtype in ("float64", "float32", "int32", "uint8"):
        a = np.zeros(shape, dtype=dtype)
        x = xp.asarray(a)
        axes = [None] + list(range(len(shape))) + [tuple(range(len(shape)))]
        for axis in axes:
            for keepdims in (False, True):
                check(xp.sum(x, axis=axis, keepdims=keepdims), np.sum(a, axis=axis, keepdims=keepdims))
                check(xp.prod(x, axis=axis, keepdims=keepdims), np.prod(a, axis=axis, keepdims=keepdims))
                check(xp.any(x, axis=axis, keepdims=keepdims), np.any(a, axis=axis, keepdims=keepdims))
                check(xp.all(x, axis=axis, keepdims=keepdims), np.all(a, axis=axis, keepdims=keepdims))
                if a.dtype.kind == "f":
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore", RuntimeWarning)  # numpy: mean of empty
                        want = np.mean(a, axis=axis, keepdims=keepdims)
                    check(xp.mean(x, axis=axis, keepdims=keepdims), want)


def test_empty_sum_is_zero_prod_is_one_mean_is_nan():
    e = xp.asarray(np.zeros((0,)))
    assert float(xp.sum(e)) == 0.0
    assert float(xp.prod(e)) == 1.0
    assert np.isnan(float(xp.mean(e)))
    assert int(xp.sum(xp.asarray(np.zeros(0, np.int16)))) == 0
    assert bool(xp.all(e)) is True and bool(xp.any(e)) is False


@pytest.mark.parametrize("fname", ["max", "min"])
def test_max_min_of_empty_axis_raise(fname):
    f = getattr(xp, fname)
    for shape, axis in (((0,), None), ((0,), 0), ((0, 3), 0), ((0, 3), None), ((3, 0), 1),
                        ((3, 0), -1), ((0, 0), 0), ((2, 0, 3), (1, 2))):
        a = np.zeros(shape)
        with pytest.raises(ValueError):
            getattr(np, fname)(a, axis=axis)
        with pytest.raises(ValueError):
            np.asarray(f(xp.asarray(a), axis=axis))
    # reducing a non-empty axis of an empty array is fine: the result is empty
    for shape, axis in (((0, 3), 1), ((3, 0), 0), ((2, 0, 3), 2)):
        a = np.zeros(shape, dtype=np.int32)
        check(f(xp.asarray(a), axis=axis), getattr(np, fname)(a, axis=axis))


# --------------------------------------------------------------------------- NaN

@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", FLOATS)
def test_nan_propagates_through_max_min(n, dtype):
    rng = np.random.default_rng(n)
    base = rng.standard_normal(n).astype(dtype)
    for pos in sorted({0, n // 2, n - 1}):
        a = base.copy()
        a[pos] = np.nan
        x = xp.asarray(a)
        check(xp.max(x), np.max(a))
        check(xp.min(x), np.min(a))
        check(xp.sum(x), np.sum(a))
        check(xp.mean(x), np.mean(a))
    m = np.tile(base, (3, 1))
    m[1, n - 1] = np.nan
    check(xp.max(xp.asarray(m), axis=1), np.max(m, axis=1))
    check(xp.min(xp.asarray(m), axis=0), np.min(m, axis=0))


def test_nan_from_a_fused_producer_propagates():
    a = np.array([1.0, -1.0, 4.0, 0.25])
    x = xp.asarray(a)
    with np.errstate(invalid="ignore"):
        check(xp.max(xp.sqrt(x)), np.max(np.sqrt(a)))
        check(xp.min(xp.log(x)), np.min(np.log(a)))


# --------------------------------------------------------------------------- fusion

@pytest.mark.parametrize("n", SIZES)
def test_reductions_fused_with_elementwise_producers(n):
    rng = np.random.default_rng(10 + n)
    a = rng.uniform(-2, 2, n)
    x = xp.asarray(a)
    check(xp.sum(xp.sin(x) * x**2), np.sum(np.sin(a) * a**2), rtol=1e-10, atol=1e-10)
    check(xp.prod(1 + x / 1000), np.prod(1 + a / 1000), rtol=1e-10)
    check(xp.max(xp.abs(x - 0.5)), np.max(np.abs(a - 0.5)))
    check(xp.min(xp.exp(x) - x), np.min(np.exp(a) - a))
    check(xp.mean(x * x), np.mean(a * a), rtol=1e-10)
    f = a.astype(np.float32)
    check(xp.sum(xp.cos(xp.asarray(f)) * 2), np.sum(np.cos(f) * 2), rtol=1e-4, atol=1e-4)
    i = rng.integers(-50, 50, n).astype(np.int32)
    check(xp.sum(xp.asarray(i) * 3 - 1), np.sum(i * 3 - 1))
    check(xp.max(xp.asarray(i) // 7), np.max(i // 7))


@pytest.mark.parametrize("n", SIZES)
def test_reduce_rows_and_columns(n):
    rng = np.random.default_rng(20 + n)
    a = rng.standard_normal((n, 5))
    x = xp.asarray(a)
    for axis in (0, 1, None):
        check(xp.sum(x * 2, axis=axis), np.sum(a * 2, axis=axis), rtol=1e-10, atol=1e-10)
        check(xp.max(x, axis=axis), np.max(a, axis=axis))
        check(xp.min(-x, axis=axis, keepdims=True), np.min(-a, axis=axis, keepdims=True))
        check(xp.mean(x, axis=axis), np.mean(a, axis=axis), rtol=1e-10, atol=1e-12)
    check(xp.mean((x - xp.mean(x, axis=0)) ** 2, axis=0), np.var(a, axis=0), rtol=1e-10)


# --------------------------------------------------------------------------- views

@pytest.mark.parametrize("n", SIZES)
def test_reductions_of_non_contiguous_inputs(n):
    rng = np.random.default_rng(30 + n)
    a = rng.standard_normal((n, 6))
    x = xp.asarray(a)
    tol = dict(rtol=1e-10, atol=1e-10)
    check(xp.sum(x.T, axis=0), np.sum(a.T, axis=0), **tol)
    check(xp.sum(x.T, axis=1), np.sum(a.T, axis=1), **tol)
    check(xp.sum(x.T), np.sum(a.T), **tol)
    check(xp.sum(x[::2]), np.sum(a[::2]), **tol)
    check(xp.sum(x[::2], axis=0), np.sum(a[::2], axis=0), **tol)
    check(xp.max(x[::-3, 1:5], axis=1), np.max(a[::-3, 1:5], axis=1))
    check(xp.min(x[:, ::-2], axis=0, keepdims=True), np.min(a[:, ::-2], axis=0, keepdims=True))
    check(xp.prod(x[:, 2] * 0 + 1.5), np.prod(a[:, 2] * 0 + 1.5), rtol=1e-12)
    v = a[:, 0]
    check(xp.sum(xp.broadcast_to(x[:, 0], (3, n)), axis=0), np.sum(np.broadcast_to(v, (3, n)), axis=0),
          **tol)
    check(xp.sum(xp.broadcast_to(x[:, 0], (3, n))), np.sum(np.broadcast_to(v, (3, n))), **tol)
    check(xp.sum(xp.broadcast_to(x[:, :1], (n, 4)), axis=1), np.sum(np.broadcast_to(a[:, :1], (n, 4)), axis=1),
          **tol)
    check(xp.mean(xp.expand_dims(x, axis=1), axis=(1, 2)), np.mean(a[:, None], axis=(1, 2)), **tol)
    check(xp.any(x.T[::-1] > 2.0, axis=1), np.any(a.T[::-1] > 2.0, axis=1))


def test_reductions_of_permuted_and_reshaped_3d_views():
    a = np.random.default_rng(7).standard_normal((4, 5, 6))
    x = xp.asarray(a)
    p = xp.permute_dims(x, (2, 0, 1))
    ap = a.transpose(2, 0, 1)
    for axis in (0, 1, 2, (0, 2), (1, 2), -1):
        check(xp.sum(p, axis=axis), np.sum(ap, axis=axis), rtol=1e-12, atol=1e-12)
        check(xp.max(p * 2, axis=axis, keepdims=True), np.max(ap * 2, axis=axis, keepdims=True))
    r = xp.reshape(p, (6, 20))  # a reshape of a permutation must materialize
    check(xp.sum(r, axis=1), ap.reshape(6, 20).sum(axis=1), rtol=1e-12, atol=1e-12)
    check(xp.sum(xp.reshape(xp.permute_dims(x * 2, (1, 0, 2)), (-1, 3)), axis=0),
          (a * 2).transpose(1, 0, 2).reshape(-1, 3).sum(axis=0), rtol=1e-12, atol=1e-12)
    check(xp.min(x[1:, ::-2, 3]), np.min(a[1:, ::-2, 3]))
    costly = xp.broadcast_to(xp.exp(x[0]), (3, 5, 6))
    check(xp.sum(costly, axis=0), np.sum(np.broadcast_to(np.exp(a[0]), (3, 5, 6)), axis=0), rtol=1e-12)


# --------------------------------------------------------------------------- consumers

@pytest.mark.parametrize("n", SIZES)
def test_reductions_feeding_further_ops(n):
    rng = np.random.default_rng(40 + n)
    a = rng.standard_normal((n, 5))
    x = xp.asarray(a)
    tol = dict(rtol=1e-10, atol=1e-10)
    check(x - xp.mean(x, axis=1, keepdims=True), a - np.mean(a, axis=1, keepdims=True), **tol)
    check(x - xp.mean(x, axis=0), a - np.mean(a, axis=0), **tol)
    check(x / xp.sum(xp.abs(x), axis=0), a / np.sum(np.abs(a), axis=0), **tol)
    e = xp.exp(x - xp.max(x, axis=1, keepdims=True))
    ea = np.exp(a - np.max(a, axis=1, keepdims=True))
    check(e / xp.sum(e, axis=1, keepdims=True), ea / np.sum(ea, axis=1, keepdims=True), **tol)
    c = x - xp.mean(x, axis=0)
    with np.errstate(invalid="ignore"):  # n == 1: 0 / 0
        check(c / xp.sqrt(xp.mean(c * c, axis=0)), (a - a.mean(0)) / a.std(0), **tol)
    check(xp.sum(xp.sum(x, axis=1)), np.sum(a), **tol)
    check(xp.max(x, axis=0) - xp.min(x, axis=0), np.ptp(a, axis=0))
    check(xp.sum(x - xp.max(x, axis=1, keepdims=True), axis=0),
          np.sum(a - np.max(a, axis=1, keepdims=True), axis=0), **tol)
    check(xp.sum(x, axis=0)[::-1], np.sum(a, axis=0)[::-1], **tol)
    check(xp.mean(x, axis=1)[None, :] * 2, np.mean(a, axis=1)[None, :] * 2, **tol)
    assert float(xp.sum(x)) == pytest.approx(float(np.sum(a)), rel=1e-10, abs=1e-10)


def test_reductions_feeding_further_ops_integer():
    i = np.arange(60, dtype=np.int16).reshape(6, 10) - 30
    x = xp.asarray(i)
    check(x - xp.max(x, axis=0, keepdims=True), i - np.max(i, axis=0, keepdims=True))
    check(xp.sum(x, axis=1) * 2, np.sum(i, axis=1) * 2)
    check(xp.any(x == xp.min(x, axis=1, keepdims=True), axis=0),
          np.any(i == np.min(i, axis=1, keepdims=True), axis=0))


def test_several_reductions_evaluated_together():
    a = np.random.default_rng(8).standard_normal((7, 9))
    x = xp.asarray(a)
    y = xp.sin(x)
    s, t, m = xp.evaluate(xp.sum(y), xp.permute_dims(y, (1, 0))[0], xp.mean(y, axis=0))
    check(s, np.sum(np.sin(a)), rtol=1e-12, atol=1e-12)
    check(t, np.sin(a).T[0])
    check(m, np.mean(np.sin(a), axis=0), rtol=1e-12, atol=1e-12)


# --------------------------------------------------------------------------- errors

def test_reduction_argument_errors():
    x = xp.asarray(np.ones((2, 3)))
    with pytest.raises(IndexError):
        xp.sum(x, axis=2)
    with pytest.raises(IndexError):
        xp.max(x, axis=(0, -3))
    with pytest.raises(ValueError):
        xp.sum(x, axis=(0, -2))
    with pytest.raises(TypeError, match="axis must be"):
        xp.sum(x, axis=1.0)
    with pytest.raises(TypeError, match="real numeric"):
        xp.sum(x, dtype=xp.bool)  # a bool accumulator would wrap: 1 + 1 == 0
    with pytest.raises(TypeError):
        xp.prod(xp.asarray([1 + 1j]), dtype=xp.float64)  # complex into a real accumulator
    with pytest.raises(TypeError):
        xp.sum(x > 0)
    with pytest.raises(TypeError):
        xp.max(x > 0)
    with pytest.raises(TypeError):
        xp.mean(xp.asarray(np.arange(3)))
    with pytest.raises(TypeError):
        xp.sum(np.ones(3))
    with pytest.raises(TypeError):
        xp.any([True, False])


# --------------------------------------------------------------------------- symbolic shapes

def _prepared(y, inputs, example):
    prog = xp.compile(y, inputs=inputs)
    return prog.prepare(*example)


@pytest.mark.parametrize("case", ["sum", "fused", "prod", "mean", "max", "min", "any", "all"])
def test_symbolic_1d_reductions_one_compile(case):
    x = xp.placeholder(("n",), xp.float64, name="x")
    build = {
        "sum": (lambda v: xp.sum(v), np.sum),
        "fused": (lambda v: xp.sum(xp.sin(v) * v**2), lambda v: np.sum(np.sin(v) * v**2)),
        "prod": (lambda v: xp.prod(1 + v / 100), lambda v: np.prod(1 + v / 100)),
        "mean": (lambda v: xp.mean(v, keepdims=True), lambda v: np.mean(v, keepdims=True)),
        "max": (lambda v: xp.max(v, axis=0), lambda v: np.max(v, axis=0)),
        "min": (lambda v: xp.min(v * 2), lambda v: np.min(v * 2)),
        "any": (lambda v: xp.any(v > 1.0), lambda v: np.any(v > 1.0)),
        "all": (lambda v: xp.all(v > -1.0), lambda v: np.all(v > -1.0)),
    }[case]
    rng = np.random.default_rng(9)
    prep = _prepared(build[0](x), [x], [rng.standard_normal(5)])
    before = misses()
    for n in [0, 1] + SIZES + [3]:
        a = rng.standard_normal(n)
        if n == 0 and case in ("max", "min"):
            with pytest.raises(ValueError):
                prep(a)
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # numpy: mean of empty
            want = build[1](a)
        check(prep(a), want, rtol=1e-10, atol=1e-10)
    assert misses() == before


@pytest.mark.parametrize("axis", [0, 1, -1, None, (0, 1)])
def test_symbolic_2d_reductions_one_compile(axis):
    x = xp.placeholder(("m", "n"), xp.float64, name="x")
    outs = [xp.sum(x, axis=axis), xp.sum(x, axis=axis, keepdims=True) * 2,
            xp.any(x < 0, axis=axis), xp.prod(x, axis=axis)]
    rng = np.random.default_rng(11)
    prep = _prepared(outs, [x], [rng.standard_normal((3, 4))])
    before = misses()
    for shape in [(0, 3), (3, 0), (0, 0), (1, 1), (1, 7), (7, 1), (64, 3), (2, 519)]:
        a = rng.standard_normal(shape)
        got = prep(a)
        wants = [np.sum(a, axis=axis), np.sum(a, axis=axis, keepdims=True) * 2,
                 np.any(a < 0, axis=axis), np.prod(a, axis=axis)]
        for g, w in zip(got, wants):
            check(g, w, rtol=1e-10, atol=1e-10)
    assert misses() == before


def test_symbolic_centering_and_max_of_empty_axis():
    x = xp.placeholder(("m", "n"), xp.float32, name="x")
    y = [x - xp.mean(x, axis=1, keepdims=True), xp.max(x, axis=0), xp.min(x.T, axis=0)]
    rng = np.random.default_rng(12)
    prep = _prepared(y, [x], [rng.standard_normal((2, 3)).astype(np.float32)])
    before = misses()
    for shape in [(1, 1), (7, 5), (3, 64), (519, 2), (0, 4)]:
        a = rng.standard_normal(shape).astype(np.float32)
        if shape[0] == 0:
            with pytest.raises(ValueError):
                prep(a)
            continue
        got = prep(a)
        check(got[0], a - np.mean(a, axis=1, keepdims=True), rtol=1e-5, atol=1e-5)
        check(got[1], np.max(a, axis=0))
        check(got[2], np.min(a.T, axis=0))
    assert misses() == before


def test_symbolic_integer_reductions():
    x = xp.placeholder(("n",), xp.int32, name="x")
    prep = _prepared([xp.sum(x), xp.max(x), xp.prod(x, dtype=xp.int32)], [x],
                     [np.arange(4, dtype=np.int32)])
    before = misses()
    rng = np.random.default_rng(13)
    for n in [1, 7, 64, 519]:
        a = rng.integers(-3, 4, n).astype(np.int32)
        s, m, p = prep(a)
        check(s, np.sum(a))
        check(m, np.max(a))
        check(p, np.prod(a, dtype=np.int32))
    assert misses() == before


def test_reductions_of_a_broadcast_scalar_have_no_loads():
    x = xp.placeholder(("n", "m"), xp.float64, name="x")
    o = xp.ones_like(x) * 3
    prep = _prepared([xp.sum(o), xp.sum(o, axis=1), xp.mean(o, axis=0), xp.max(o, axis=0),
                      xp.all(o > 2, axis=1)], [x], [np.ones((2, 2))])
    before = misses()
    for shape in ((1, 1), (3, 5), (7, 64)):
        t = np.full(shape, 3.0)
        for g, w in zip(prep(np.ones(shape)), [t.sum(), t.sum(1), t.mean(0), t.max(0), (t > 2).all(1)]):
            check(g, w)
    assert misses() == before


@pytest.mark.parametrize("build,n_kernels", [
    (lambda v, m: xp.sum(xp.sin(v) * v**2), 1),
    (lambda v, m: xp.sum(m.T, axis=1), 1),
    (lambda v, m: xp.sum(m[::2] * 2, axis=0), 1),
    (lambda v, m: xp.max(xp.abs(m - 1), axis=(0, 1), keepdims=True), 1),
    (lambda v, m: xp.any(xp.broadcast_to(v, (3,) + v.symbolic_shape) > 0, axis=0), 1),
    (lambda v, m: m - xp.mean(m, axis=1, keepdims=True), 2),
    (lambda v, m: xp.sum(xp.reshape(m.T, (-1,))), 2),  # a reshape of a transpose materializes
], ids=["sin-pow", "transpose", "strided", "abs-keepdims", "broadcast", "centering", "reshape-T"])
def test_reductions_fuse_with_their_producers(build, n_kernels):
    v = xp.placeholder(("n",), xp.float64, name="v")
    m = xp.placeholder(("a", "b"), xp.float64, name="m")
    y = build(v, m)
    used = [p for p in (v, m) if p._node in _nodes_of(y)]
    prog = xp.compile(y, inputs=used)
    assert len(prog._schedule.kernels) == n_kernels


def _nodes_of(y):
    seen, stack, out = set(), [y._node], []
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        out.append(node)
        stack.extend(node.srcs)
    return out


@pytest.mark.parametrize("rows,cols,across", [(100_000, 20, True), (10_000, 256, True),
                                              (5_000, 400, False), (8, 20, False)])
def test_short_rows_interpret_across_the_results(rows, cols, across):
    # The interpreter's block axis (bytecode.choose_axis): short contiguous rows run across
    # the results (an accumulator each), long ones in lanes along the row.
    from lazyarray.backend import bytecode
    ph = xp.placeholder((rows, cols), xp.float64)
    out = xp.sqrt(xp.sum(ph * ph, axis=1))
    (k,) = xp.compile(out, inputs=[ph])._schedule.kernels
    axis, along = bytecode.choose_axis(k, [rows, cols], [[cols, 1]])
    assert (axis, along) == ((0, 0) if across else (1, 1))
