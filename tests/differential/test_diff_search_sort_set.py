"""Sorting, searching and set functions against array-api-strict (exact comparison).

``sort``/``argsort`` run stable (then the order of equal values, signed zeros
included, is defined) in both directions; unstable ``argsort`` is checked to
sort.  ``unique_*`` results are compared as returned (both libraries sort the
unique values; NaNs are distinct, signed zeros are one value whose sign the
standard leaves open).  ``searchsorted`` avoids NaN, whose sort position the
standard leaves unspecified.
"""
from __future__ import annotations

import array_api_strict as xs
import lazyarray as xp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from _diff import (ALL, INTEGER, REAL_NUMERIC, arrays, check, elements, examples, hs,
                   promotable_pairs, run_both, scalars_of, shapes, to_lazy)

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

FEW = examples(3)


@pytest.mark.parametrize("dtype", REAL_NUMERIC)
@FEW
@given(data=st.data())
def test_sort_argsort(dtype: str, data) -> None:
    x = data.draw(arrays(dtype, shapes(min_dims=1, max_dims=3)), label="x")
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1), label="axis")
    descending = data.draw(st.booleans(), label="descending")
    got, want = run_both("argsort", x, axis=axis, descending=descending, stable=True)
    check(got, want, where=f"argsort(axis={axis}, descending={descending})")
    # sort: the values at the stable argsort.  array-api-strict's descending sort reverses
    # an ascending one, which reverses the order of -0.0 and +0.0 where they compare equal
    # (its stable argsort does not); lazyarray keeps them in input order, as stable asks.
    ref = xs.take_along_axis(x, want, axis=axis)
    check(xp.sort(to_lazy(x), axis=axis, descending=descending, stable=True), ref,
          where=f"sort(axis={axis}, descending={descending})")
    if not descending:
        check(*run_both("sort", x, axis=axis), where=f"sort(axis={axis})")
    # unstable: any order of equal values, but sorted
    idx = run_both("argsort", x, axis=axis, descending=descending, stable=False)[0]
    vals = np.take_along_axis(np.asarray(x), np.asarray(idx), axis=axis)
    np.testing.assert_array_equal(vals, np.asarray(ref), err_msg="argsort(stable=False)")


@pytest.mark.parametrize("fname", ["unique_values", "unique_counts", "unique_inverse",
                                   "unique_all"])
@pytest.mark.parametrize("dtype", ALL)
@examples(2)
@given(data=st.data())
def test_unique(fname: str, dtype: str, data) -> None:
    x = data.draw(arrays(dtype, shapes(max_dims=2, max_side=4)), label="x")
    got, want = run_both(fname, x)
    # "signed zeros should not be considered distinct ... the corresponding unique element
    # may be implementation-defined"
    check(tuple(got) if isinstance(got, tuple) else got,
          tuple(want) if isinstance(want, tuple) else want, zero_sign=False, where=fname)
    if isinstance(want, tuple):
        assert tuple(got._fields) == tuple(want._fields), f"{fname} field names"


@pytest.mark.parametrize("dtype", INTEGER)
@FEW
@given(data=st.data())
def test_isin(dtype: str, data) -> None:
    x1 = data.draw(arrays(dtype, shapes(max_dims=2)), label="x1")
    x2 = data.draw(arrays(dtype, shapes(max_dims=2)), label="x2")
    got, want = run_both("isin", x1, x2)
    check(got, want, where="isin")
    # array-api-strict 2.6 ignores invert= (it calls np.isin without it); the standard
    # defines invert=True as the negated test
    check(xp.isin(to_lazy(x1), to_lazy(x2), invert=True), xs.logical_not(want),
          where="isin(invert=True)")
    s = data.draw(scalars_of(dtype), label="scalar")
    check(*run_both("isin", s, x2), where=f"isin({s}, x2)")
    check(*run_both("isin", x1, s), where=f"isin(x1, {s})")


@pytest.mark.parametrize("dtype", ALL)
@FEW
@given(data=st.data())
def test_nonzero(dtype: str, data) -> None:
    x = data.draw(arrays(dtype, shapes(min_dims=1, max_dims=3)), label="x")
    check(*run_both("nonzero", x), where="nonzero")


def _no_nan(dtype: str):
    return elements(dtype).filter(lambda v: v == v)


@pytest.mark.parametrize("dtype", REAL_NUMERIC)
@FEW
@given(data=st.data())
def test_searchsorted(dtype: str, data) -> None:
    x1 = data.draw(arrays(dtype, shapes(1, 1, max_side=6), elements_=_no_nan(dtype)),
                   label="x1")
    x2 = data.draw(arrays(dtype, shapes(max_dims=2), elements_=_no_nan(dtype)), label="x2")
    side = data.draw(st.sampled_from(["left", "right"]), label="side")
    sorted_x1 = xs.sort(x1)
    check(*run_both("searchsorted", sorted_x1, x2, side=side), where=f"searchsorted({side})")
    sorter = xs.argsort(x1)
    check(*run_both("searchsorted", x1, x2, side=side, sorter=sorter),
          where=f"searchsorted({side}, sorter)")
    s = data.draw(scalars_of(dtype).filter(lambda v: v == v), label="scalar")
    check(*run_both("searchsorted", sorted_x1, s, side=side), where=f"searchsorted(x1, {s!r})")


@pytest.mark.parametrize("dtype", ALL)
@FEW
@given(data=st.data())
def test_where(dtype: str, data) -> None:
    shapes3 = data.draw(hs.mutually_broadcastable_shapes(3, min_dims=0, max_dims=2,
                                                         max_side=3), label="shapes")
    c_shape, s1, s2 = shapes3.input_shapes
    cond = data.draw(arrays("bool", c_shape), label="condition")
    x1 = data.draw(arrays(dtype, s1), label="x1")
    x2 = data.draw(arrays(dtype, s2), label="x2")
    check(*run_both("where", cond, x1, x2), where="where(c, x1, x2)")
    s = data.draw(scalars_of(dtype), label="scalar")
    check(*run_both("where", cond, x1, s), where=f"where(c, x1, {s!r})")
    check(*run_both("where", cond, s, x2), where=f"where(c, {s!r}, x2)")


@examples(8)
@given(data=st.data())
def test_where_promotes_mixed_dtypes(data) -> None:
    d1, d2 = data.draw(st.sampled_from(promotable_pairs(ALL)), label="dtypes")
    shape = data.draw(shapes(max_dims=2), label="shape")
    cond = data.draw(arrays("bool", shape), label="condition")
    x1, x2 = (data.draw(arrays(d, shape), label=d) for d in (d1, d2))
    check(*run_both("where", cond, x1, x2), where=f"where(c, {d1}, {d2})")
