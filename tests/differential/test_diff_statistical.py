"""Reductions, cumulative functions and diff against array-api-strict.

Every dtype each function allows, with ``axis`` as None, an int (negative
too) or a tuple, ``keepdims`` both ways, 0-d and empty inputs.  Integer and
boolean results must match exactly (integer sums and products wrap the same
way in any order).  Floating-point sums may add in another order than
numpy's pairwise summation, so they compare within ``n * eps * sum(|x|)``
(the classic bound for any summation order); their inputs are bounded so
that no order overflows where another does not, with NaN, infinities and
signed zeros mixed in (those must match exactly).
"""
from __future__ import annotations

import array_api_strict as xs
import lazyarray as xp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from _diff import (ALL, CATEGORY, COMPLEX, DIFF, FLOATING, NUMERIC, REAL_FLOATING, REAL_NUMERIC,
                   arrays, bounded_or_special, check, compare_values, evaluate_all, examples, hs,
                   run_both, sd, shapes, to_lazy)

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")


def _axes(data, ndim: int):
    """None, an int or a tuple of distinct axes (``()`` too)."""
    kinds = ["none", "tuple"] + (["int"] if ndim else [])
    kind = data.draw(st.sampled_from(kinds), label="axis kind")
    if kind == "none":
        return None
    if kind == "int":
        return data.draw(st.integers(-ndim, ndim - 1), label="axis")
    return data.draw(hs.valid_tuple_axes(ndim), label="axis")


def _norm(axis, ndim: int) -> tuple:
    if axis is None:
        return tuple(range(ndim))
    return tuple(a % ndim for a in ((axis,) if isinstance(axis, int) else axis))


def _bound(x: np.ndarray, axis, keepdims: bool, power: int = 1) -> np.ndarray:
    """``n * sum(|x|**power)`` over the reduced axes (finite values only), in float64."""
    ax = _norm(axis, x.ndim)
    mag = np.abs(x.astype(np.complex128 if x.dtype.kind == "c" else np.float64))
    mag = np.where(np.isfinite(mag), mag, 0.0) ** power
    n = max(1, int(np.prod([x.shape[a] for a in ax])))
    return n * np.sum(mag, axis=ax, keepdims=keepdims)


def _eps(dtype: str) -> float:
    return float(np.finfo(np.dtype(dtype)).eps)


def _sum_dtypes(dtype: str) -> list:
    """``dtype=`` values for sum/prod/cumulative_*: None and the same kind, not narrower."""
    kind = np.dtype(dtype).kind
    same = [d for d in CATEGORY["numeric"] if np.dtype(d).kind == kind and
            np.dtype(d).itemsize >= np.dtype(dtype).itemsize]
    return [None] + same


# ----------------------------------------------------------------------------- sum, prod

def _no_axes_ignore(x: np.ndarray, axis):
    """A reduction over no axes (0-d input, or ``axis=()``) whose numpy result changes the
    elements (not compared).

    numpy reduces them by arithmetic with the identity (0 + x, 1 * x, x / 1), which turns
    -0.0 into +0.0 and, with complex multiply/divide, mixes zero and non-finite parts
    (1 * (nan + inf j) is nan + nan j); successive add/multiply over a single element
    leaves it unchanged, and so does lazyarray.
    """
    if _norm(axis, x.ndim) or x.dtype.kind not in "fc":
        return None
    odd = np.zeros(x.shape, bool)
    for p in (x.real, x.imag) if x.dtype.kind == "c" else (x,):
        odd |= (p == 0) & np.signbit(p)
    if x.dtype.kind == "c":
        odd = odd | (x.real == 0) | (x.imag == 0) | ~np.isfinite(x)
    return np.asarray(odd)


@pytest.mark.parametrize("fname", ["sum", "prod"])
@pytest.mark.parametrize("dtype", NUMERIC)
@DIFF
@given(data=st.data())
def test_sum_prod(fname: str, dtype: str, data) -> None:
    bound = 1e3 if fname == "sum" else 4.0
    x = data.draw(arrays(dtype, shapes(max_dims=3), elements_=bounded_or_special(dtype, bound)),
                  label="x")
    axis, keepdims = _axes(data, x.ndim), data.draw(st.booleans(), label="keepdims")
    out = data.draw(st.sampled_from(_sum_dtypes(dtype)), label="dtype")
    got, want = run_both(fname, x, axis=axis, keepdims=keepdims,
                         dtype=None if out is None else sd(out))
    rdt = str(np.asarray(want).dtype)
    if np.dtype(rdt).kind in "fc":
        a = np.asarray(x)
        if fname == "sum":
            tol = dict(rtol=0, atol=4 * _eps(rdt) * _bound(a, axis, keepdims))
        else:  # a product of n factors: n roundings, relative
            n = max(1, int(np.prod([a.shape[i] for i in _norm(axis, a.ndim)])))
            tol = dict(rtol=2 * n * _eps(rdt), atol=float(np.finfo(np.dtype(rdt)).tiny))
    else:
        tol = {}
    check(got, want, ignore=_no_axes_ignore(np.asarray(x), axis),
          where=f"{fname}(axis={axis}, keepdims={keepdims}, dtype={out})", **tol)


# ----------------------------------------------------------------------------- max, min

@pytest.mark.parametrize("fname", ["max", "min"])
@pytest.mark.parametrize("dtype", REAL_NUMERIC)
@DIFF
@given(data=st.data())
def test_max_min(fname: str, dtype: str, data) -> None:
    # no empty reductions: their result is implementation-defined (strict raises)
    x = data.draw(arrays(dtype, shapes(max_dims=3, min_side=1)), label="x")
    axis, keepdims = _axes(data, x.ndim), data.draw(st.booleans(), label="keepdims")
    got, want = run_both(fname, x, axis=axis, keepdims=keepdims)
    # "The order of signed zeros is unspecified"
    check(got, want, zero_sign=False, where=f"{fname}(axis={axis}, keepdims={keepdims})")


# ----------------------------------------------------------------------------- mean, var, std

def _complex_nonfinite_groups(x: np.ndarray, axis, keepdims: bool):
    """Reductions over a NaN or infinite complex component: numpy divides the sum by n as
    a complex number, mixing the components (e.g. mean([inf+0j]) is inf + NaN j), where
    the standard applies the real special cases to each component independently (its own
    note says numpy deviates)."""
    ax = _norm(axis, x.ndim)
    return np.any(~np.isfinite(x.real) | ~np.isfinite(x.imag), axis=ax, keepdims=keepdims)


@pytest.mark.parametrize("dtype", FLOATING)
@DIFF
@given(data=st.data())
def test_mean(dtype: str, data) -> None:
    x = data.draw(arrays(dtype, shapes(max_dims=3), elements_=bounded_or_special(dtype)),
                  label="x")
    axis, keepdims = _axes(data, x.ndim), data.draw(st.booleans(), label="keepdims")
    got, want = run_both("mean", x, axis=axis, keepdims=keepdims)
    a = np.asarray(x)
    n = max(1, int(np.prod([a.shape[i] for i in _norm(axis, a.ndim)])))
    atol = 4 * _eps(dtype) * _bound(a, axis, keepdims) / n
    where = f"mean(axis={axis}, keepdims={keepdims})"
    if dtype in COMPLEX:
        odd_groups = _complex_nonfinite_groups(a, axis, keepdims)
        zd = _no_axes_ignore(a, axis)
        zd = np.zeros(odd_groups.shape, bool) if zd is None else zd
        check(got, want, atol=atol, ignore=odd_groups | zd, where=where)
        # there: components independently, as mean(real(x)) + mean(imag(x)) j
        g = np.asarray(got)
        ref = np.empty(g.shape, g.dtype)
        ref.real, ref.imag = (np.asarray(xs.mean(f(x), axis=axis, keepdims=keepdims))
                              for f in (xs.real, xs.imag))
        compare_values(g, ref, atol=atol, ignore=~odd_groups | zd,
                       where=where + " (non-finite components)")
    else:
        check(got, want, atol=atol, ignore=_no_axes_ignore(a, axis), where=where)


@pytest.mark.parametrize("fname", ["var", "std"])
@pytest.mark.parametrize("dtype", REAL_FLOATING)
@DIFF
@given(data=st.data())
def test_var_std(fname: str, dtype: str, data) -> None:
    x = data.draw(arrays(dtype, shapes(max_dims=3), elements_=bounded_or_special(dtype)),
                  label="x")
    axis, keepdims = _axes(data, x.ndim), data.draw(st.booleans(), label="keepdims")
    correction = data.draw(st.sampled_from([0, 1, 0.5, 2]), label="correction")
    got, want = run_both(fname, x, axis=axis, keepdims=keepdims, correction=correction)
    a = np.asarray(x)
    m = int(np.prod([a.shape[i] for i in _norm(axis, a.ndim)]))
    n = max(1, m)
    # two passes (mean, then squared deviations): error ~ n eps sum(x^2) / (n - correction)
    var_atol = 8 * _eps(dtype) * _bound(a, axis, keepdims, power=2) / max(n - correction, 0.5)
    atol = var_atol if fname == "var" else np.sqrt(var_atol)
    # "If M - correction is less than or equal to 0, the variance must be NaN": numpy
    # divides by max(M - correction, 0), giving inf for a nonzero sum of squares
    check(got, want, rtol=8 * n * _eps(dtype), atol=atol, ignore=np.asarray(m - correction <= 0),
          where=f"{fname}(axis={axis}, keepdims={keepdims}, correction={correction})")


# ----------------------------------------------------------------------------- all, any, count

@pytest.mark.parametrize("dtype", ALL)
@examples(4)
@given(data=st.data())
def test_all_any_count_nonzero(dtype: str, data) -> None:
    x = data.draw(arrays(dtype, shapes(max_dims=3)), label="x")
    axis, keepdims = _axes(data, x.ndim), data.draw(st.booleans(), label="keepdims")
    names = ("all", "any", "count_nonzero")
    lx = to_lazy(x)
    got = evaluate_all([getattr(xp, n)(lx, axis=axis, keepdims=keepdims) for n in names])
    for name, g in zip(names, got):
        want = getattr(xs, name)(x, axis=axis, keepdims=keepdims)
        check(g, want, where=f"{name}(axis={axis}, keepdims={keepdims})")


# ----------------------------------------------------------------------------- argmax, argmin

@pytest.mark.parametrize("fname", ["argmax", "argmin"])
@pytest.mark.parametrize("dtype", REAL_NUMERIC)
@examples(4)
@given(data=st.data())
def test_argmax_argmin(fname: str, dtype: str, data) -> None:
    x = data.draw(arrays(dtype, shapes(max_dims=3, min_side=1)), label="x")
    axis = None if not x.ndim or data.draw(st.booleans(), label="axis None") else \
        data.draw(st.integers(-x.ndim, x.ndim - 1), label="axis")
    keepdims = data.draw(st.booleans(), label="keepdims")
    got, want = run_both(fname, x, axis=axis, keepdims=keepdims)
    # the first occurrence of the extreme value; NaN counts as the extreme (as numpy)
    check(got, want, where=f"{fname}(axis={axis}, keepdims={keepdims})")


# ----------------------------------------------------------------------------- cumulative

@pytest.mark.parametrize("fname", ["cumulative_sum", "cumulative_prod"])
@pytest.mark.parametrize("dtype", NUMERIC)
@examples(3)
@given(data=st.data())
def test_cumulative(fname: str, dtype: str, data) -> None:
    bound = 1e3 if fname == "cumulative_sum" else 4.0
    # 0-d input is unspecified
    x = data.draw(arrays(dtype, shapes(min_dims=1, max_dims=3),
                         elements_=bounded_or_special(dtype, bound)), label="x")
    axis = None if x.ndim == 1 and data.draw(st.booleans(), label="no axis") else \
        data.draw(st.integers(-x.ndim, x.ndim - 1), label="axis")
    initial = data.draw(st.booleans(), label="include_initial")
    out = data.draw(st.sampled_from(_sum_dtypes(dtype)), label="dtype")
    got, want = run_both(fname, x, axis=axis, include_initial=initial,
                         dtype=None if out is None else sd(out))
    rdt = str(np.asarray(want).dtype)
    ax = (axis if axis is not None else 0) % x.ndim
    a = np.asarray(x)
    tol = {}
    if np.dtype(rdt).kind in "fc":  # prefix sums in order: one rounding per step
        n = x.shape[ax] + 1
        if fname == "cumulative_sum":
            mag = np.abs(a.astype(np.complex128))
            mag = np.cumsum(np.where(np.isfinite(mag), mag, 0), axis=ax)
            if initial:
                pad = list(mag.shape)
                pad[ax] = 1
                mag = np.concatenate([np.zeros(pad), mag], axis=ax)
            tol = dict(atol=2 * n * _eps(rdt) * mag)
        else:
            tol = dict(rtol=2 * n * _eps(rdt), atol=float(np.finfo(np.dtype(rdt)).tiny))
    check(got, want, where=f"{fname}(axis={axis}, include_initial={initial}, dtype={out})", **tol)


@pytest.mark.parametrize("dtype", FLOATING)
def test_cumulative_sum_of_negative_zeros(dtype: str) -> None:
    """The scan's first output is x[0] itself, so a prefix of -0.0 sums to -0.0."""
    x = xs.asarray([complex(-0.0, -0.0)] * 2 if dtype in COMPLEX else [-0.0, -0.0, 1.0],
                   dtype=sd(dtype))
    check(*run_both("cumulative_sum", x), where="cumulative_sum(-0.0, ...)")


@pytest.mark.parametrize("dtype", COMPLEX)
def test_cumulative_prod_complex_first_element(dtype: str) -> None:
    """out[0] = x[0]: not (1+0j) * x[0], which changes zero signs and non-finite parts."""
    x = xs.asarray([complex(2.0, -0.0), complex(float("nan"), float("inf"))], dtype=sd(dtype))
    got, want = run_both("cumulative_prod", x[:1])
    check(got, want, where="cumulative_prod([2-0j])")
    got, want = run_both("cumulative_prod", x[1:])
    check(got, want, where="cumulative_prod([nan+inf j])")


# ----------------------------------------------------------------------------- diff

@pytest.mark.parametrize("dtype", NUMERIC)
@examples(3)
@given(data=st.data())
def test_diff(dtype: str, data) -> None:
    x = data.draw(arrays(dtype, shapes(min_dims=1, max_dims=3)), label="x")
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1), label="axis")
    # n = 0 with prepend/append: numpy (so array-api-strict) returns x unchanged, dropping
    # them, where the standard's output length is M + N1 + N2 - n (lazyarray follows it)
    n = data.draw(st.integers(1, 3), label="n")
    kw = {}
    for side in ("prepend", "append"):
        if data.draw(st.booleans(), label=side):
            s = list(x.shape)
            s[axis] = data.draw(st.integers(0, 2), label=f"{side} size")
            kw[side] = data.draw(arrays(dtype, tuple(s)), label=side)
    got, want = run_both("diff", x, axis=axis, n=n, **kw)
    check(got, want, rtol=0, where=f"diff(axis={axis}, n={n}, {sorted(kw)})")

