"""var, std, cumulative_sum, cumulative_prod, complex sum/prod/mean (statistical) and
diff, all/any (utility) against numpy: values, dtypes and shapes, on concrete data
and in programs with symbolic sizes.
"""
import warnings
from functools import partial

import numpy as np
import pytest

import lazyarray as xp

import helpers
from helpers import run_symbolic

check = partial(helpers.check, rtol=1e-12)  # every float and complex dtype; no atol


def np_var(a, axis, ddof, keepdims, std=False):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        f = np.std if std else np.var
        return f(a, axis=axis, ddof=ddof, keepdims=keepdims)


@pytest.fixture
def a3():
    return np.random.default_rng(7).normal(size=(3, 4, 5))


# --------------------------------------------------------------------------- var, std

@pytest.mark.parametrize("axis", [None, 0, (1, 2), -1, ()])
@pytest.mark.parametrize("correction", [0, 1, 2.5])
@pytest.mark.parametrize("keepdims", [False, True])
def test_var_std_match_numpy(a3, axis, correction, keepdims):
    x = xp.asarray(a3)
    check(xp.var(x, axis=axis, correction=correction, keepdims=keepdims),
          np_var(a3, axis, correction, keepdims))
    check(xp.std(x, axis=axis, correction=correction, keepdims=keepdims),
          np_var(a3, axis, correction, keepdims, std=True))


@pytest.mark.parametrize("axis, same", [(1, (1,)), (-3, (0,)), (None, (0, 1, 2))])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_var_of_one_or_every_axis_records_what_the_general_path_records(a3, axis, same, dtype):
    """var over one int axis or all (its fast path, through mean, sum and the
    operators) makes the graph that a tuple of axes (the general path) makes."""
    x = xp.asarray(a3.astype(dtype))
    for kw in (dict(), dict(correction=1, keepdims=True), dict(correction=2.5)):
        fast, general = xp.var(x, axis=axis, **kw), xp.var(x, axis=same, **kw)
        assert fast._node.sig[0] == general._node.sig[0], kw
        assert fast.dtype == general.dtype and fast.shape == general.shape
    check(xp.std(x, axis=axis, correction=1), np_var(a3.astype(dtype), axis, 1, False, True),
          rtol=1e-12 if dtype == np.float64 else 1e-5)


def test_var_nan_when_too_few_elements_float32_and_ints(a3):
    x = xp.asarray(a3)
    out = np.asarray(xp.var(x, axis=0, correction=3))  # 3 elements - 3 <= 0
    assert out.shape == (4, 5) and np.isnan(out).all()
    assert np.isnan(np.asarray(xp.std(xp.asarray(np.zeros((0,))))))
    f = a3.astype(np.float32)
    check(xp.var(xp.asarray(f), axis=1), np.var(f, axis=1), rtol=1e-5)
    i = np.arange(10, dtype=np.int16)
    check(xp.var(xp.asarray(i), correction=1), np.var(i, ddof=1))
    with pytest.raises(TypeError):
        xp.var(xp.asarray([True, False]))
    with pytest.raises(TypeError):
        xp.std(x, correction="1")


def test_var_std_symbolic_sizes_count_at_run_time():
    for shape in ((4, 3), (1, 2), (7, 5)):
        v = np.random.default_rng(1).normal(size=shape)
        check(run_symbolic(lambda p: xp.var(p, axis=0, correction=1), v), np_var(v, 0, 1, False))
        check(run_symbolic(lambda p: xp.std(p, keepdims=True), v), np_var(v, None, 0, True, True))


# --------------------------------------------------------------------------- cumulative

@pytest.mark.parametrize("fname", ["cumulative_sum", "cumulative_prod"])
@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("include_initial", [False, True])
def test_cumulative_matches_numpy(a3, fname, axis, include_initial):
    np_fn, init = (np.cumsum, 0) if fname == "cumulative_sum" else (np.cumprod, 1)
    want = np_fn(a3, axis=axis)
    if include_initial:
        shape = list(a3.shape)
        shape[axis] = 1
        want = np.concatenate([np.full(shape, init, a3.dtype), want], axis=axis)
    got = getattr(xp, fname)(xp.asarray(a3), axis=axis, include_initial=include_initial)
    check(got, want)


@pytest.mark.parametrize("dtype,want", [(np.int8, np.int64), (np.uint16, np.uint64),
                                        (np.int64, np.int64), (np.float32, np.float32),
                                        (np.complex64, np.complex64)])
def test_cumulative_dtypes(dtype, want):
    v = (np.arange(1, 7) % 4).astype(dtype)
    check(xp.cumulative_sum(xp.asarray(v)), np.cumsum(v).astype(want))
    check(xp.cumulative_prod(xp.asarray(v), include_initial=True),
          np.concatenate([[1], np.cumprod(v.astype(want))]).astype(want))
    wide = xp.complex128 if v.dtype.kind == "c" else xp.float64
    check(xp.cumulative_sum(xp.asarray(v), dtype=wide), np.cumsum(v.astype(wide.np)))


def test_cumulative_errors_and_symbolic():
    x = xp.asarray(np.ones((2, 3)))
    with pytest.raises(ValueError):
        xp.cumulative_sum(x)  # axis required above 1-d
    with pytest.raises(ValueError):
        xp.cumulative_sum(xp.asarray(1.0))
    with pytest.raises(TypeError):
        xp.cumulative_prod(xp.asarray([True]))
    with pytest.raises(TypeError):
        xp.cumulative_sum(xp.asarray([1j]), dtype=xp.float64)
    for n in (0, 1, 6):
        v = np.arange(n * 2.0).reshape(2, n)
        check(run_symbolic(lambda p: xp.cumulative_sum(p, axis=1, include_initial=True) * 2, v),
              np.concatenate([np.zeros((2, 1)), np.cumsum(v, 1)], 1) * 2)


# --------------------------------------------------------------------------- complex reductions

def test_complex_sum_prod_mean():
    c = (np.arange(12) * (1 - 0.5j)).reshape(3, 4).astype(np.complex128)
    x = xp.asarray(c)
    check(xp.sum(x, axis=1), c.sum(axis=1))
    check(xp.prod(x[:, 1:], axis=0), c[:, 1:].prod(axis=0))
    check(xp.mean(x, axis=0, keepdims=True), c.mean(axis=0, keepdims=True))
    f = np.linspace(0, 1, 5)
    check(xp.sum(xp.asarray(f), dtype=xp.complex128), f.sum().astype(np.complex128))
    with pytest.raises(TypeError):
        xp.max(x)


# --------------------------------------------------------------------------- diff, all, any

@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("n", [0, 1, 2, 4, 7])
def test_diff_matches_numpy(a3, axis, n):
    check(xp.diff(xp.asarray(a3), axis=axis, n=n), np.diff(a3, axis=axis, n=n))


def test_diff_prepend_append_dtypes_and_errors(a3):
    x = xp.asarray(a3)
    pre, app = a3[:, :1] * 2, a3[:, :3]
    check(xp.diff(x, axis=1, n=2, prepend=xp.asarray(pre), append=xp.asarray(app)),
          np.diff(a3, axis=1, n=2, prepend=pre, append=app))
    check(xp.diff(x, axis=0, prepend=0.0), np.diff(a3, axis=0, prepend=0.0))
    for dtype in (np.uint8, np.int32, np.bool_, np.complex64):
        v = (np.arange(10) ** 2 % 7).astype(dtype)
        check(xp.diff(xp.asarray(v)), np.diff(v))
    with pytest.raises(ValueError):
        xp.diff(xp.asarray(1.0))
    with pytest.raises(ValueError):
        xp.diff(x, n=-1)
    with pytest.raises(IndexError):
        xp.diff(x, axis=3)


def test_diff_symbolic_sizes():
    for n in (1, 2, 9):
        v = np.arange(3.0 * n).reshape(3, n) ** 2
        check(run_symbolic(lambda p: xp.diff(p, n=2), v), np.diff(v, n=2))
        check(run_symbolic(lambda p: xp.diff(p, axis=0) + 1, v), np.diff(v, axis=0) + 1)


def test_all_any_dtypes_and_axes(a3):
    for v in (a3 > 0, (a3 * 3).astype(np.int8), a3.astype(np.complex64) * 1j, np.zeros((2, 0))):
        x = xp.asarray(v)
        for axis in (None, 0, -1, (0, 1)):
            for kd in (False, True):
                check(xp.all(x, axis=axis, keepdims=kd), np.all(v, axis=axis, keepdims=kd))
                check(xp.any(x, axis=axis, keepdims=kd), np.any(v, axis=axis, keepdims=kd))


def _same_bits(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype
    for part in (np.real, np.imag):
        g, w = part(got), part(want)
        assert np.array_equal(g, w, equal_nan=True), (got, want)
        assert np.array_equal(np.signbit(g), np.signbit(w)), (got, want)


@pytest.mark.parametrize("fname", ["sum", "prod"])
@pytest.mark.parametrize("shape,axis", [((), None), ((), ()), ((3,), ()), ((1, 2), ()),
                                        ((2,), 0)])
@pytest.mark.parametrize("value", [-0.0, complex(1, -0.0), complex(-0.0, -0.0),
                                   complex(float("inf"), 1), complex(float("nan"), -0.0)])
def test_sum_and_prod_over_no_axes_combine_with_the_identity(fname, shape, axis, value):
    # numpy: 0 + -0.0 is 0.0 and (1+0j) * (1-0j) is 1+0j even when no axis is reduced;
    # the element itself was returned before (a fuzz graph's prod of a 0-d complex)
    dtypes = (np.complex128, np.complex64) if isinstance(value, complex) else \
        (np.float64, np.float32)
    for dtype in dtypes:
        a = np.full(shape, value, dtype=dtype)
        with np.errstate(all="ignore"):
            want = getattr(np, fname)(a, axis=axis)
        _same_bits(getattr(xp, fname)(xp.asarray(a), axis=axis), want)


def test_mean_over_no_axes_of_a_negative_zero():
    _same_bits(xp.mean(xp.asarray(-0.0)), np.mean(np.array(-0.0)))
    _same_bits(xp.mean(xp.asarray([-0.0, -0.0]), axis=()), np.array([0.0, 0.0]))
