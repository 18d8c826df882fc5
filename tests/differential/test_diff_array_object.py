"""Array operators, methods and attributes against array-api-strict.

Every arithmetic, bitwise and comparison operator runs with an array or a
Python scalar as the other operand, reflected and in place (in-place results
must keep the left operand's dtype and shape and rebind the same object),
with the comparison rules of the matching elementwise function.  Conversions
(``bool``, ``int``, ``float``, ``complex``, ``__index__``) run on 0-d arrays
of every dtype they allow, including NaN and infinities.
"""
from __future__ import annotations

import math
import operator

import lazyarray as xp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from _diff import (ALL, CATEGORY, DIFF, INTEGER, arrays, check, elements, examples, hs, scalars_of,
                   shapes, to_lazy)
from _ew_rules import BINARY, check_binary, check_unary, divisor_filter

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

OPERATORS = {
    "add": "add", "sub": "subtract", "mul": "multiply", "truediv": "divide",
    "floordiv": "floor_divide", "mod": "remainder", "pow": "pow", "and": "bitwise_and",
    "or": "bitwise_or", "xor": "bitwise_xor", "lshift": "bitwise_left_shift",
    "rshift": "bitwise_right_shift", "lt": "less", "le": "less_equal", "gt": "greater",
    "ge": "greater_equal", "eq": "equal", "ne": "not_equal",
}
COMPARISONS = {"lt", "le", "gt", "ge", "eq", "ne"}
ARITHMETIC = sorted(set(OPERATORS) - COMPARISONS)


def _dtype_and_operands(data, fname: str, scalar: bool, same_shape: bool):
    dtype = data.draw(st.sampled_from(CATEGORY[BINARY[fname]]), label="dtype")
    keep = divisor_filter(fname, dtype, dtype)
    if same_shape:  # in place: the result must keep x1's shape
        s1 = data.draw(shapes(), label="shape")
        s2 = data.draw(hs.broadcastable_shapes(s1, max_dims=len(s1), min_side=0).filter(
            lambda s: np.broadcast_shapes(s1, s) == s1), label="shape2")
    else:
        s1, s2 = data.draw(hs.mutually_broadcastable_shapes(2, min_dims=0, max_dims=2,
                                                            max_side=3)).input_shapes
    x1 = data.draw(arrays(dtype, s1), label="x1")
    if scalar:
        x2 = data.draw(scalars_of(dtype).filter(keep) if keep else scalars_of(dtype),
                       label="scalar")
    else:
        x2 = data.draw(arrays(dtype, s2, elements(dtype).filter(keep) if keep else None),
                       label="x2")
    return dtype, x1, x2


@pytest.mark.parametrize("scalar", [False, True], ids=["array", "scalar"])
@pytest.mark.parametrize("op", sorted(OPERATORS))
@examples(3)
@given(data=st.data())
def test_binary_operator(op: str, scalar: bool, data) -> None:
    fname = OPERATORS[op]
    dtype, x1, x2 = _dtype_and_operands(data, fname, scalar, same_shape=False)
    check_binary(fname, x1, x2, f"x1 {op} {x2!r}", fn=getattr(operator, f"__{op}__"))


@pytest.mark.parametrize("op", ARITHMETIC)
@examples(3)
@given(data=st.data())
def test_reflected_operator(op: str, data) -> None:
    """``scalar <op> array`` goes through ``Array.__r<op>__``."""
    fname = OPERATORS[op]
    dtype = data.draw(st.sampled_from(CATEGORY[BINARY[fname]]), label="dtype")
    keep = divisor_filter(fname, dtype, dtype)
    s = data.draw(scalars_of(dtype), label="scalar")
    x = data.draw(arrays(dtype, elements_=elements(dtype).filter(keep) if keep else None),
                  label="x")
    check_binary(fname, s, x, f"{s!r} {op} x", fn=lambda a, b: getattr(b, f"__r{op}__")(a))


def _inplace(op: str):
    def fn(a, b):
        r = getattr(a, f"__i{op}__")(b)
        assert r is a, f"__i{op}__ must return the array it updates"
        return a
    return fn


@pytest.mark.parametrize("scalar", [False, True], ids=["array", "scalar"])
@pytest.mark.parametrize("op", ARITHMETIC)
@examples(3)
@given(data=st.data())
def test_inplace_operator(op: str, scalar: bool, data) -> None:
    fname = OPERATORS[op]
    dtype, x1, x2 = _dtype_and_operands(data, fname, scalar, same_shape=True)
    check_binary(fname, x1, x2, f"x1 {op}= {x2!r}", fn=_inplace(op))


@pytest.mark.parametrize("op,fname,category", [
    ("neg", "negative", "numeric"), ("pos", "positive", "numeric"), ("abs", "abs", "numeric"),
    ("invert", "bitwise_invert", "integer or boolean")])
@DIFF
@given(data=st.data())
def test_unary_operator(op: str, fname: str, category: str, data) -> None:
    dtype = data.draw(st.sampled_from(CATEGORY[category]), label="dtype")
    x = data.draw(arrays(dtype), label="x")
    check_unary(fname, x, f"__{op}__({dtype})", fn=getattr(operator, f"__{op}__"))


# ----------------------------------------------------------------------------- conversions

CONVERSIONS = {  # the dtypes each conversion allows (array-api-strict agrees)
    "bool": ALL, "complex": ALL, "int": [d for d in ALL if d not in ("complex64", "complex128")],
    "float": [d for d in ALL if d not in ("complex64", "complex128")],
    "index": INTEGER,
}


def _convert(kind: str, a):
    return a.__index__() if kind == "index" else {"bool": bool, "int": int, "float": float,
                                                  "complex": complex}[kind](a)


@pytest.mark.parametrize("kind,dtype", [(k, d) for k, ds in CONVERSIONS.items() for d in ds])
@examples(4)
@given(data=st.data())
def test_conversion(kind: str, dtype: str, data) -> None:
    x = data.draw(arrays(dtype, ()), label="x")
    try:
        want = _convert(kind, x)
    except (ValueError, OverflowError) as e:  # int(NaN), int(inf): the standard's errors
        with pytest.raises(type(e)):
            _convert(kind, to_lazy(x))
        return
    got = _convert(kind, to_lazy(x))
    assert type(got) is type(want), f"{kind}({dtype}): {type(got)} vs {type(want)}"
    same = got == want or (kind in ("float", "complex") and
                           _nan_equal(complex(got), complex(want)))
    assert same, f"{kind}({x!r}): got {got!r}, want {want!r}"
    if kind == "float" and got == 0:
        assert math.copysign(1, got) == math.copysign(1, want), f"{kind}({x!r}): sign of zero"


def _nan_equal(a: complex, b: complex) -> bool:
    return all(p == q or (p != p and q != q) for p, q in ((a.real, b.real), (a.imag, b.imag)))


# ----------------------------------------------------------------------------- attributes

@pytest.mark.parametrize("dtype", ALL)
@examples(3)
@given(data=st.data())
def test_attributes_and_transposes(dtype: str, data) -> None:
    x = data.draw(arrays(dtype, shapes(min_dims=0, max_dims=3)), label="x")
    lx = to_lazy(x)
    assert str(lx.dtype).rsplit(".", 1)[-1] == dtype
    assert lx.shape == x.shape and lx.ndim == x.ndim and lx.size == x.size
    check(lx.to_device(lx.device), x.to_device(x.device), where="to_device")
    check(xp.from_dlpack(lx), x, where="from_dlpack(lazyarray)")
    np.testing.assert_array_equal(np.from_dlpack(lx), np.from_dlpack(x))
    if x.ndim == 2:
        check(lx.T, x.T, where="T")
    if x.ndim >= 2:
        check(lx.mT, x.mT, where="mT")
