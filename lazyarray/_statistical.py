"""Statistical functions: sum, prod, max, min, mean.

Reductions fuse with the elementwise expression that produces their input;
floating-point sums are accumulated in an order LLVM may reassociate (the
standard does not fix summation order; numpy itself sums pairwise).
"""
from __future__ import annotations

from typing import Optional, Union

from . import _dtypes as dt
from ._array_object import Array, record
from ._manipulation import cast, check_array, normalize_axes
from .backend.ir import Op

Axis = Optional[Union[int, tuple]]


def reduce(op: Op, x: Array, axis: Axis, keepdims: bool, out_dtype: dt.DType, fname: str) -> Array:
    """Record reduction ``op`` of ``x`` over ``axis`` computing in ``out_dtype``."""
    axes = normalize_axes(axis, x.ndim, fname)
    src = cast(x, out_dtype) if op in (Op.SUM, Op.PROD, Op.MEAN, Op.ANY, Op.ALL) else x
    if not axes:
        return Array._new(src._node)
    shp = src._node.shape
    shape = tuple(1 if i in axes else d for i, d in enumerate(shp)) if keepdims else \
        tuple(d for i, d in enumerate(shp) if i not in axes)
    return record(op, out_dtype, shape, (src._node,), (axes, bool(keepdims)))


def _accumulator_dtype(x: Array, dtype, fname: str) -> dt.DType:
    if dtype is not None:
        dt.check_dtype(dtype)
        if dtype in dt.COMPLEX_FLOATING:
            raise TypeError(f"{fname}(): complex dtypes are not supported yet")
        if dtype not in dt.REAL_NUMERIC:  # a bool accumulator would add modulo 2
            raise TypeError(f"{fname}(): dtype must be a real numeric dtype, got {dtype}")
        return dtype
    if x.dtype in dt.SIGNED or x.dtype is dt.bool:
        return dt.int64
    if x.dtype in dt.UNSIGNED:
        return dt.uint64
    return x.dtype


def _numeric(x: Array, fname: str, category: str = "real numeric") -> Array:
    check_array(x, fname)
    if x.dtype not in dt.CATEGORIES[category]:
        raise TypeError(f"{fname}() needs {category} input, got dtype {x.dtype}")
    return x


def sum(x: Array, /, *, axis: Axis = None, dtype: Optional[dt.DType] = None,  # noqa: A001
        keepdims: bool = False) -> Array:
    """Sum over ``axis``; integers accumulate in int64/uint64 unless ``dtype`` says otherwise."""
    _numeric(x, "sum")
    return reduce(Op.SUM, x, axis, keepdims, _accumulator_dtype(x, dtype, "sum"), "sum")


def prod(x: Array, /, *, axis: Axis = None, dtype: Optional[dt.DType] = None,
         keepdims: bool = False) -> Array:
    """Product over ``axis``; integers accumulate in int64/uint64 unless ``dtype`` says otherwise."""
    _numeric(x, "prod")
    return reduce(Op.PROD, x, axis, keepdims, _accumulator_dtype(x, dtype, "prod"), "prod")


def max(x: Array, /, *, axis: Axis = None, keepdims: bool = False) -> Array:  # noqa: A001
    """Maximum over ``axis``; NaN propagates. An empty reduction raises ValueError."""
    _numeric(x, "max")
    return reduce(Op.MAX, x, axis, keepdims, x.dtype, "max")


def min(x: Array, /, *, axis: Axis = None, keepdims: bool = False) -> Array:  # noqa: A001
    """Minimum over ``axis``; NaN propagates. An empty reduction raises ValueError."""
    _numeric(x, "min")
    return reduce(Op.MIN, x, axis, keepdims, x.dtype, "min")


def mean(x: Array, /, *, axis: Axis = None, keepdims: bool = False) -> Array:
    """Arithmetic mean over ``axis`` (floating-point input); NaN for an empty reduction."""
    _numeric(x, "mean", "real floating")
    return reduce(Op.MEAN, x, axis, keepdims, x.dtype, "mean")
