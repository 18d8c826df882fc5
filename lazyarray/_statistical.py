"""Statistical functions: sum, prod, max, min, mean, var, std, cumulative_sum, cumulative_prod.

Reductions fuse with the elementwise expression that produces their input;
floating-point sums are accumulated in an order LLVM may reassociate (the
standard does not fix summation order; numpy itself sums pairwise).
Cumulative sums and products are numpy steps inside the compiled program for
now (``_external``), until the backend has a native scan kernel.
"""
from __future__ import annotations

from typing import Optional, Union


from . import _dtypes as dt
from . import _elementwise as _ew
from ._array_object import Array, record
from ._manipulation import (broadcast_to, cast, check_array, concat, normalize_axes,
                            normalize_axis)
from .backend.ir import Op

Axis = Optional[Union[int, tuple]]


_CAST_INPUT = frozenset({Op.SUM, Op.PROD, Op.MEAN, Op.ANY, Op.ALL})
_INTEGER = frozenset(dt.INTEGER)
_IDENTITY_FIRST = frozenset({Op.SUM, Op.PROD, Op.MEAN})


def reduce(op: Op, x: Array, axis: Axis, keepdims: bool, out_dtype: dt.DType, fname: str) -> Array:
    """Record reduction ``op`` of ``x`` over ``axis`` computing in ``out_dtype``."""
    axes = tuple(range(len(x._node.shape))) if axis is None else \
        normalize_axes(axis, x.ndim, fname)
    return _reduce_axes(op, x, axes, keepdims, out_dtype, fname)


def _reduce_axes(op: Op, x: Array, axes: tuple, keepdims: bool, out_dtype: dt.DType,
                 fname: str) -> Array:
    """``reduce`` over ``axes`` already normalised (sorted, distinct, in range)."""
    src = cast(x, out_dtype) if op in _CAST_INPUT else x
    if not axes:
        if op in _IDENTITY_FIRST and out_dtype in dt.FLOATING:
            # numpy combines the identity with each element even over no axes (0 + -0.0
            # is 0.0, (1+0j) * (1-0j) is 1+0j): the same reduction over an added unit axis
            from ._manipulation import expand_dims
            return _reduce_axes(op, expand_dims(src, axis=-1), (len(src._node.shape),), False,
                                out_dtype, fname)
        return Array._new(src._node)
    shp = src._node.shape
    if len(axes) == len(shp):  # over every axis
        shape = (1,) * len(shp) if keepdims else ()
    else:
        shape = tuple([1 if i in axes else d for i, d in enumerate(shp)]) if keepdims else \
            tuple([d for i, d in enumerate(shp) if i not in axes])
    return record(op, out_dtype, shape, (src._node,), (axes, bool(keepdims)))


def _accumulator_dtype(x: Array, dtype, fname: str) -> dt.DType:
    if dtype is not None:
        dt.check_dtype(dtype)
        if dtype not in dt.NUMERIC:  # a bool accumulator would add modulo 2
            raise TypeError(f"{fname}(): dtype must be a numeric dtype (real numeric or "
                            f"complex), got {dtype}")
        if x.dtype in dt.COMPLEX_FLOATING and dtype not in dt.COMPLEX_FLOATING:
            raise TypeError(f"{fname}(): cannot accumulate complex {x.dtype} in real {dtype}")
        return dtype
    return _ACCUMULATOR[x._node.dtype]


# The default accumulator of each dtype: integers widen to 64 bits, bool counts in int64.
_ACCUMULATOR = {d: dt.int64 if d in dt.SIGNED or d is dt.bool else
                dt.uint64 if d in dt.UNSIGNED else d for d in dt.ALL_DTYPES}


def _numeric(x: Array, fname: str, category: str = "real numeric") -> Array:
    check_array(x, fname)
    if x._node.dtype not in dt.CATEGORIES[category]:
        raise TypeError(f"{fname}() needs {category} input, got dtype {x.dtype}")
    return x


# Fast path: a reduction over every axis in the input's own dtype goes straight to
# ``_reduce_all``; these are the dtypes for which the skipped checks would pass.
_OWN_FLOATING = frozenset(dt.FLOATING)
_OWN_REAL = frozenset(dt.REAL_NUMERIC)
_ALL_AXES = [tuple(range(n)) for n in range(33)]


def _reduce_all(op: Op, x: Array, keepdims: bool) -> Array:
    """``reduce(op, x, None, keepdims, x.dtype)`` for input the fast paths checked."""
    node = x._node
    shape = node.shape
    n = len(shape)
    if not n or n >= len(_ALL_AXES):
        return reduce(op, x, None, keepdims, node.dtype, op.value)
    keepdims = bool(keepdims)
    return record(op, node.dtype, (1,) * n if keepdims else (), (node,), (_ALL_AXES[n], keepdims))


def _reduce_one(op: Op, x: Array, axis: int, keepdims: bool):
    """``reduce(op, x, axis, keepdims, x.dtype)`` over one axis given as a Python int in
    range, for input the fast paths checked; None for anything else."""
    node = x._node
    shape = node.shape
    n = len(shape)
    if not -n <= axis < n:
        return None  # the general path raises the AxisError
    axis %= n
    keepdims = bool(keepdims)
    out = shape[:axis] + (1,) + shape[axis + 1:] if keepdims else shape[:axis] + shape[axis + 1:]
    return record(op, node.dtype, out, (node,), ((axis,), keepdims))


def _fast(op: Op, x, axis: Axis, keepdims: bool, own: frozenset) -> Optional[Array]:
    """``reduce(op, x, axis, keepdims, x.dtype)`` for an Array of a dtype in ``own``
    (the checks the general path makes would pass) over every axis or one int axis in
    range; None for anything else (the general path decides, or raises)."""
    if type(x) is Array and x._node.dtype in own:
        if axis is None:
            return _reduce_all(op, x, keepdims)
        if type(axis) is int:
            return _reduce_one(op, x, axis, keepdims)
    return None


def sum(x: Array, /, *, axis: Axis = None, dtype: Optional[dt.DType] = None,  # noqa: A001
        keepdims: bool = False) -> Array:
    """Sum over ``axis``; integers accumulate in int64/uint64 unless ``dtype`` says otherwise."""
    out = _fast(Op.SUM, x, axis, keepdims, _OWN_FLOATING) if dtype is None else None
    if out is not None:
        return out
    _numeric(x, "sum", "numeric")
    return reduce(Op.SUM, x, axis, keepdims, _accumulator_dtype(x, dtype, "sum"), "sum")


def prod(x: Array, /, *, axis: Axis = None, dtype: Optional[dt.DType] = None,
         keepdims: bool = False) -> Array:
    """Product over ``axis``; integers accumulate in int64/uint64 unless ``dtype`` says otherwise."""
    _numeric(x, "prod", "numeric")
    return reduce(Op.PROD, x, axis, keepdims, _accumulator_dtype(x, dtype, "prod"), "prod")


def max(x: Array, /, *, axis: Axis = None, keepdims: bool = False) -> Array:  # noqa: A001
    """Maximum over ``axis``; NaN propagates. An empty reduction raises ValueError."""
    return _extreme(Op.MAX, x, axis, keepdims)


def min(x: Array, /, *, axis: Axis = None, keepdims: bool = False) -> Array:  # noqa: A001
    """Minimum over ``axis``; NaN propagates. An empty reduction raises ValueError."""
    return _extreme(Op.MIN, x, axis, keepdims)


def _extreme(op: Op, x: Array, axis: Axis, keepdims: bool) -> Array:
    out = _fast(op, x, axis, keepdims, _OWN_REAL)
    if out is not None:
        return out
    _numeric(x, op.value)
    return reduce(op, x, axis, keepdims, x.dtype, op.value)


def mean(x: Array, /, *, axis: Axis = None, keepdims: bool = False) -> Array:
    """Arithmetic mean over ``axis`` (floating-point input); NaN for an empty reduction."""
    out = _fast(Op.MEAN, x, axis, keepdims, _OWN_FLOATING)
    if out is not None:
        return out
    _numeric(x, "mean", "floating")
    return reduce(Op.MEAN, x, axis, keepdims, x.dtype, "mean")


def _count(x: Array, axes: tuple):
    """Number of elements reduced over ``axes``: an int for concrete sizes, else a 0-d
    array counted natively (a sum of ones over the reduced sizes only), so symbolic
    sizes are known when the program runs."""
    shape = x._node.shape
    n = 1
    for a in axes:
        d = shape[a]
        if type(d) is not int:
            sizes = tuple(shape[a] for a in axes)
            return sum(broadcast_to(Array._new(_ew.scalar_node(1, x.dtype)), sizes))
        n *= d
    return n


def var(x: Array, /, *, axis: Axis = None, correction: Union[int, float] = 0.0,
        keepdims: bool = False) -> Array:
    """Variance over ``axis``: the sum of squared deviations from the mean divided by
    ``N - correction`` (N elements reduced); NaN where ``N - correction <= 0``.

    Real floating-point input keeps its dtype; integer input gives float64.
    """
    # a real floating Array passes the checks below as it is
    checked = type(x) is Array and x._node.dtype in _OWN_REAL_FLOATING and \
        type(correction) in (int, float)
    if not checked:
        _numeric(x, "var")
        if isinstance(correction, bool) or not isinstance(correction, (int, float)):
            raise TypeError(f"var(): correction must be an int or a float, got {correction!r}")
        if x._node.dtype in _INTEGER:
            x = cast(x, dt.float64)
    dtype = x._node.dtype
    axes = normalize_axes(axis, len(x._node.shape), "var")
    if checked and axes and (axis is None or type(axis) is int):
        # the same nodes through the package's mean, sum and operators (native once
        # installed: about 2 us where the general path took 3.5)
        d = x - mean(x, axis=axis, keepdims=True)
        ss = sum(d * d, axis=axis, keepdims=keepdims)
    else:
        d = _ew.subtract(x, _reduce_axes(Op.MEAN, x, axes, True, dtype, "var"))
        ss = _reduce_axes(Op.SUM, _ew.multiply(d, d), axes, keepdims, dtype, "var")
    n = _count(x, axes)
    dof = n - correction if correction else n
    if isinstance(dof, Array):
        from ._searching import where
        return where(_ew.greater(dof, 0), ss / dof, float("nan"))
    return ss / dof if dof > 0 else ss * float("nan")


_OWN_REAL_FLOATING = frozenset(dt.REAL_FLOATING)


def std(x: Array, /, *, axis: Axis = None, correction: Union[int, float] = 0.0,
        keepdims: bool = False) -> Array:
    """Standard deviation over ``axis``: the square root of ``var`` (same arguments)."""
    return _ew.sqrt(var(x, axis=axis, correction=correction, keepdims=keepdims))


# --------------------------------------------------------------------------- cumulative

def _cumulative(fname: str, op: Op, initial: int, x: Array, axis: Optional[int], dtype,
                include_initial: bool) -> Array:
    from ._elementwise import scalar_node
    _numeric(x, fname, "numeric")
    if x.ndim == 0:
        raise ValueError(f"{fname}(): x must have at least one dimension, got a 0-d array")
    if axis is None:
        if x.ndim != 1:
            raise ValueError(f"{fname}(): axis is required for an array of rank {x.ndim}")
        axis = 0
    ax = normalize_axis(axis, x.ndim, fname)
    src = cast(x, _accumulator_dtype(x, dtype, fname))
    if include_initial:  # the scan's first output is its first input: here the initial value
        shape = src._node.shape[:ax] + (1,) + src._node.shape[ax + 1:]
        first = broadcast_to(Array._new(scalar_node(initial, src.dtype)), shape)
        src = concat([first, src], axis=ax)
    return record(op, src.dtype, src._node.shape, (src._node,), ax)  # a native scan kernel


def cumulative_sum(x: Array, /, *, axis: Optional[int] = None, dtype: Optional[dt.DType] = None,
                   include_initial: bool = False) -> Array:
    """Running sums along ``axis`` (optional for 1-d input), with a leading 0 when
    ``include_initial``; dtypes as for ``sum``.

    >>> import lazyarray as xp
    >>> xp.cumulative_sum(xp.asarray([1, 2, 3]), include_initial=True).tolist()
    [0, 1, 3, 6]
    """
    return _cumulative("cumulative_sum", Op.CUMULATIVE_SUM, 0, x, axis, dtype, include_initial)


def cumulative_prod(x: Array, /, *, axis: Optional[int] = None,
                    dtype: Optional[dt.DType] = None,
                    include_initial: bool = False) -> Array:
    """Running products along ``axis`` (optional for 1-d input), with a leading 1 when
    ``include_initial``; dtypes as for ``prod``."""
    return _cumulative("cumulative_prod", Op.CUMULATIVE_PROD, 1, x, axis, dtype, include_initial)
