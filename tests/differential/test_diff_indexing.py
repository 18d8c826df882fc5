"""Indexing against array-api-strict: ``__getitem__``/``__setitem__``, take, take_along_axis.

Basic indices come from ``hypothesis.extra.array_api``'s ``indices`` strategy
(integers, slices with steps, ``...``, ``None``); integer-array indices are
in bounds (negative ones included: the standard leaves out-of-bounds indices
unspecified); boolean masks are the sole index, as the standard requires.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from _diff import ALL, INTEGER, arrays, check, examples, hs, run_both, run_call, scalars_of, shapes

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

FEW = examples(3)


def _in_bounds(n: int, dtype: str = "int64"):
    """Elements of an integer index array valid for an axis of size ``n``."""
    lo = 0 if dtype.startswith("u") else -n
    return st.integers(lo, n - 1)


@pytest.mark.parametrize("dtype", ALL)
@FEW
@given(data=st.data())
def test_getitem_basic(dtype: str, data) -> None:
    x = data.draw(arrays(dtype, shapes(max_dims=3)), label="x")
    key = data.draw(hs.indices(x.shape, allow_newaxis=True), label="key")
    got, want = run_call(lambda a: a[key], x)
    check(got, want, where=f"x{list(x.shape)}[{key!r}]")


@pytest.mark.parametrize("dtype", ALL)
@FEW
@given(data=st.data())
def test_setitem_basic(dtype: str, data) -> None:
    x = data.draw(arrays(dtype, shapes(max_dims=3)), label="x")
    key = data.draw(hs.indices(x.shape), label="key")  # __setitem__ takes no None
    target = np.asarray(x)[key].shape
    if data.draw(st.booleans(), label="scalar value"):
        value = data.draw(scalars_of(dtype), label="value")
    else:
        vshape = data.draw(hs.broadcastable_shapes(target, min_side=0).filter(
            lambda s: np.broadcast_shapes(s, target) == target), label="value shape")
        value = data.draw(arrays(dtype, vshape), label="value")

    def assign(a, v):
        a[key] = v
        return a
    got, want = run_call(assign, x, value)
    check(got, want, where=f"x[{key!r}] = {value!r}")


@pytest.mark.parametrize("dtype", ALL)
@FEW
@given(data=st.data())
def test_integer_array_indexing(dtype: str, data) -> None:
    x = data.draw(arrays(dtype, shapes(min_dims=1, max_dims=3, min_side=1)), label="x")
    idx_dtype = data.draw(st.sampled_from(INTEGER), label="index dtype")
    ishape = data.draw(shapes(max_dims=2, max_side=3), label="index shape")
    key = []
    # integer arrays (broadcast together) and ints on every axis: combining integer arrays
    # with slices, ``...`` or ``None`` is unspecified (array-api-strict refuses it)
    for ax in range(x.ndim):
        if data.draw(st.booleans(), label=f"int at {ax}"):
            key.append(data.draw(_in_bounds(x.shape[ax]), label=f"k{ax}"))
        else:
            key.append(data.draw(arrays(idx_dtype, ishape,
                                        elements_=_in_bounds(min(x.shape[ax], 127), idx_dtype)),
                                 label=f"k{ax}"))
    key = tuple(key)
    got, want = run_call(lambda a, k: a[k], x, key)
    check(got, want, where=f"x{list(x.shape)}[{key!r}]")


@pytest.mark.parametrize("dtype", ALL)
@FEW
@given(data=st.data())
def test_boolean_mask_indexing(dtype: str, data) -> None:
    x = data.draw(arrays(dtype, shapes(max_dims=3)), label="x")
    k = data.draw(st.integers(0, x.ndim), label="mask rank")
    mask = data.draw(arrays("bool", x.shape[:k]), label="mask")
    got, want = run_call(lambda a, m: a[m], x, mask)
    check(got, want, where=f"x[mask{list(mask.shape)}]")

    value = data.draw(scalars_of(dtype), label="value")

    def assign(a, m):
        a[m] = value
        return a
    got, want = run_call(assign, x, mask)
    check(got, want, where=f"x[mask] = {value!r}")


@pytest.mark.parametrize("dtype", ALL)
@FEW
@given(data=st.data())
def test_take(dtype: str, data) -> None:
    x = data.draw(arrays(dtype, shapes(min_dims=1, max_dims=3, min_side=1)), label="x")
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1), label="axis")
    idx_dtype = data.draw(st.sampled_from(INTEGER), label="index dtype")
    n = x.shape[axis]
    idx = data.draw(arrays(idx_dtype, (data.draw(st.integers(0, 4), label="k"),),
                           elements_=_in_bounds(n, idx_dtype)), label="indices")
    check(*run_both("take", x, idx, axis=axis), where=f"take(axis={axis})")
    if x.ndim == 1:
        check(*run_both("take", x, idx), where="take(1-d, no axis)")


@pytest.mark.parametrize("dtype", ALL)
@FEW
@given(data=st.data())
def test_take_along_axis(dtype: str, data) -> None:
    x = data.draw(arrays(dtype, shapes(min_dims=1, max_dims=3, min_side=1)), label="x")
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1), label="axis")
    ishape = list(x.shape)
    ishape[axis] = data.draw(st.integers(0, 4), label="k")
    # indices broadcast against x away from the axis: some sizes may be 1
    ishape = [s if i == axis % x.ndim or not data.draw(st.booleans(), label="b") else 1
              for i, s in enumerate(ishape)]
    idx = data.draw(arrays("int64", tuple(ishape), elements_=_in_bounds(x.shape[axis])),
                    label="indices")
    check(*run_both("take_along_axis", x, idx, axis=axis), where=f"take_along_axis({axis})")
