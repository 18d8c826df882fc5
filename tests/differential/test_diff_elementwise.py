"""Elementwise functions against array-api-strict: every dtype each one allows.

Unary functions run on arrays of rank 0 to 2 (empty ones included); binary
functions on mutually broadcastable shapes, on every allowed dtype paired with
itself, on promotable mixed pairs, and with a Python scalar on either side;
``clip`` with scalar and array bounds.
Exact comparison except where the standard asks only for an approximation or
where complex arithmetic is not required to be correctly rounded (see
``_ew_rules``).
"""
from __future__ import annotations

import array_api_strict as xs
import lazyarray as xp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from _diff import (ALL, CATEGORY, COMPLEX, DIFF, REAL_NUMERIC, arrays, check, elements,
                   evaluate_all, examples, hs, promotable_pairs, run_both, scalars_of, sd, to_lazy)
from _ew_rules import BINARY, UNARY, check_binary, check_unary, divisor_filter, operand_pair

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")


# Every function for one dtype runs in one program per example: lazyarray compiles each
# new graph structure, and one larger program compiles much faster than many small ones.
# Failures still name the function.

@pytest.mark.parametrize("dtype", ALL)
@DIFF
@given(data=st.data())
def test_unary(dtype: str, data) -> None:
    """Every unary function that allows ``dtype``."""
    x = data.draw(arrays(dtype), label="x")
    names = [n for n, cat in UNARY.items() if dtype in CATEGORY[cat]]
    lx = to_lazy(x)
    for name, got in zip(names, evaluate_all([getattr(xp, n)(lx) for n in names])):
        check_unary(name, x, f"{name}({dtype})", got=got)


@pytest.mark.xfail(strict=True, reason="lazyarray: reciprocal(0+0j) = 1/(0+0j) is inf+nanj "
                   "(numpy's divide, C99 model); the standard's textbook formula for finite "
                   "operands and array-api-strict (numpy.reciprocal) give nan+nanj")
@pytest.mark.parametrize("dtype", COMPLEX)
def test_reciprocal_complex_zero(dtype: str) -> None:
    x = xs.asarray([0j, complex(-0.0, 0.0), complex(0.0, -0.0)], dtype=sd(dtype))
    got, want = run_both("reciprocal", x)
    check(got, want, where=f"reciprocal({dtype} zero)")


@pytest.mark.parametrize("dtype", ALL)
@DIFF
@given(data=st.data())
def test_binary_same_dtype(dtype: str, data) -> None:
    """Every binary function that allows ``dtype``, on broadcast operands."""
    s1, s2 = data.draw(hs.mutually_broadcastable_shapes(2, min_dims=0, max_dims=2, max_side=3),
                       label="shapes").input_shapes
    x1 = data.draw(arrays(dtype, s1), label="x1")
    names = [n for n, cat in BINARY.items() if dtype in CATEGORY[cat]]
    x2 = {}  # one second operand per kind of divisor filter (integer shifts, division, pow)
    filters = {divisor_filter(n, dtype, dtype) for n in names}
    for keep in sorted(filters, key=lambda k: k.__name__ if k else ""):  # a fixed draw order
        x2[keep] = data.draw(arrays(dtype, s2, elements(dtype).filter(keep) if keep else None),
                             label=f"x2 ({keep.__name__ if keep else 'any'})")
    l1 = to_lazy(x1)
    l2 = {k: to_lazy(v) for k, v in x2.items()}
    results = evaluate_all([getattr(xp, n)(l1, l2[divisor_filter(n, dtype, dtype)])
                         for n in names])
    for name, got in zip(names, results):
        check_binary(name, x1, x2[divisor_filter(name, dtype, dtype)],
                     f"{name}({dtype}{s1}, {dtype}{s2})", got=got)


@pytest.mark.parametrize("name", sorted(n for n, c in BINARY.items() if c != "bool"))
@examples(5)
@given(data=st.data())
def test_binary_mixed_dtypes(name: str, data) -> None:
    pairs = promotable_pairs(CATEGORY[BINARY[name]])
    d1, d2 = data.draw(st.sampled_from(pairs), label="dtypes")
    x1, x2 = operand_pair(data, name, d1, d2)
    check_binary(name, x1, x2, f"{name}({d1}, {d2})")


@pytest.mark.parametrize("name", sorted(BINARY))
@examples(5)
@given(data=st.data())
def test_binary_python_scalar(name: str, data) -> None:
    dtype = data.draw(st.sampled_from(CATEGORY[BINARY[name]]), label="dtype")
    keep = divisor_filter(name, dtype, dtype)
    left = data.draw(st.booleans(), label="scalar_first")
    if left:
        s = data.draw(scalars_of(dtype), label="scalar")
        x = data.draw(arrays(dtype, elements_=elements(dtype).filter(keep) if keep else None),
                      label="x")
        check_binary(name, s, x, f"{name}({s!r}, x)")
    else:
        x = data.draw(arrays(dtype), label="x")
        s = data.draw(scalars_of(dtype).filter(keep) if keep else scalars_of(dtype),
                      label="scalar")
        check_binary(name, x, s, f"{name}(x, {s!r})")


@pytest.mark.parametrize("dtype", REAL_NUMERIC)
@DIFF
@given(data=st.data())
def test_clip(dtype: str, data) -> None:
    """clip with no bound, Python scalar bounds and broadcast array bounds."""
    sx, s1, s2 = data.draw(hs.mutually_broadcastable_shapes(3, min_dims=0, max_dims=2,
                                                            max_side=3), label="shapes"
                           ).input_shapes
    sx = np.broadcast_shapes(sx, s1, s2)  # bounds must broadcast to x's shape
    x = data.draw(arrays(dtype, sx), label="x")
    kind = data.draw(st.sampled_from(["none", "min", "max", "scalars", "arrays"]), label="kind")
    if kind == "arrays":  # min <= max elementwise: otherwise the result is unspecified
        a, b = (data.draw(arrays(dtype, s), label=f"bound{i}") for i, s in enumerate((s1, s2)))
        lo, hi = xs.minimum(a, b), xs.maximum(a, b)
    else:
        a, b = sorted(data.draw(st.lists(scalars_of(dtype).filter(lambda v: v == v),
                                         min_size=2, max_size=2), label="bounds"))
        lo = a if kind in ("min", "scalars") else None
        hi = b if kind in ("max", "scalars") else None
    # "The order of signed zeros is unspecified" in the maximum/minimum it is built on
    check(*run_both("clip", x, lo, hi), zero_sign=False, where=f"clip({kind})")
