"""Searching functions: where, argmax, argmin, count_nonzero, nonzero, searchsorted.

argmax/argmin are native index-carrying reductions; searchsorted runs as a
numpy step inside the program; nonzero's output shape depends on the values,
so it evaluates its input.
"""
from __future__ import annotations

from typing import Literal, Optional, Tuple, Union

import numpy as np

from . import _dtypes as dt
from ._array_object import Array, record
from ._creation import asarray
from ._elementwise import Scalar, _operands, not_equal
from ._external import concrete, external, leaf
from ._manipulation import (broadcast_shapes, broadcast_to, cast, check_array, expand_dims,
                            normalize_axes, normalize_axis, reshape)
from ._statistical import sum as _sum
from .backend.ir import Node, Op


def where(condition: Array, x1: Union[Array, Scalar], x2: Union[Array, Scalar], /) -> Array:
    """Elements of ``x1`` where ``condition`` is true, else of ``x2`` (after broadcasting).

    The lazy way to make a data-dependent choice inside a traced function.
    """
    quick = _quick_where(condition, x1, x2)
    if quick is not None:
        return quick
    check_array(condition, "where", "condition")
    if condition.dtype is not dt.bool:
        raise TypeError(f"where(): condition must be a bool array, got {condition.dtype}")
    (n1, n2), dtype, shape = _operands("where", "all", x1, x2)
    shape = broadcast_shapes(condition._node.shape, shape)
    srcs = []
    for n in (condition._node, n1, n2):
        srcs.append(n if n.op is Op.SCALAR else broadcast_to(Array._new(n), shape)._node)
    return record(Op.WHERE, dtype, shape, tuple(srcs))


def _quick_where(condition, x1, x2):
    """``where`` of a bool array and two operands of its shape and one dtype (or one of
    them a Python float beside a floating array), as the general path records it;
    None for anything else."""
    if type(condition) is not Array or condition._node.dtype is not dt.bool:
        return None
    shape = condition._node.shape
    n1, n2 = _same(x1, shape), _same(x2, shape)
    if n1 is None or n2 is None:
        return None
    d = n1.dtype if n1.op is not Op.SCALAR else n2.dtype
    if n1.op is Op.SCALAR:
        if n2.op is Op.SCALAR or d not in _FLOATING:
            return None
        n1 = Node(Op.SCALAR, d, (), (), None, x1)
    elif n2.op is Op.SCALAR:
        if d not in _FLOATING:
            return None
        n2 = Node(Op.SCALAR, d, (), (), None, x2)
    elif n2.dtype is not d:
        return None
    return record(Op.WHERE, d, shape, (condition._node, n1, n2))


_FLOATING = frozenset(dt.FLOATING)
_FLOAT_MARK = Node(Op.SCALAR, dt.float64, (), (), None, 0.0)  # "a Python float" for _same


def _same(x, shape):
    """The node of an Array of ``shape``, ``_FLOAT_MARK`` for a Python float, else None."""
    if type(x) is Array:
        n = x._node
        return n if n.shape == shape and n.op is not Op.SCALAR else None
    return _FLOAT_MARK if type(x) is float else None


# --------------------------------------------------------------------------- argmax, argmin


def _np_argmax(v: np.ndarray, axis: int) -> np.ndarray:
    return np.argmax(v, axis=axis)


def _np_argmin(v: np.ndarray, axis: int) -> np.ndarray:
    return np.argmin(v, axis=axis)


def _arg_extreme(x: Array, axis: Optional[int], keepdims: bool, fname: str, np_fn) -> Array:
    check_array(x, fname)
    if axis is None:
        flat, ax = reshape(x, (-1,)), 0
    else:
        flat, ax = x, normalize_axis(axis, x.ndim, fname)
    n = flat._node.shape[ax]
    if isinstance(n, int) and n == 0:
        raise ValueError(f"{fname}() of an empty sequence: axis {ax} of the "
                         f"{'flattened ' if axis is None else ''}input has size 0")
    shape = tuple(d for i, d in enumerate(flat._node.shape) if i != ax)
    if x.dtype not in dt.COMPLEX_FLOATING:  # a native index-carrying reduction
        op = Op.ARGMAX if fname == "argmax" else Op.ARGMIN
        out = record(op, dt.int64, shape, (flat._node,), ((ax,), False))
    else:  # complex values order lexicographically: numpy's argmax
        (out,) = external(fname, np_fn, [flat], [(dt.int64, shape)], (ax,))
    if keepdims:
        out = expand_dims(out, axis=ax) if axis is not None else reshape(out, (1,) * x.ndim)
    return out


def argmax(x: Array, /, *, axis: Optional[int] = None, keepdims: bool = False) -> Array:
    """Index (int64) of the first maximum along ``axis`` (of the flattened array when None).

    A NaN counts as the maximum (its first index is returned, as numpy does);
    complex values compare lexicographically.

    >>> import lazyarray as xp
    >>> xp.argmax(xp.asarray([[1, 5, 5], [7, 0, 7]]), axis=1).tolist()
    [1, 0]
    """
    return _arg_extreme(x, axis, keepdims, "argmax", _np_argmax)


def argmin(x: Array, /, *, axis: Optional[int] = None, keepdims: bool = False) -> Array:
    """Index (int64) of the first minimum along ``axis`` (of the flattened array when None).

    A NaN counts as the minimum (its first index is returned, as numpy does);
    complex values compare lexicographically.
    """
    return _arg_extreme(x, axis, keepdims, "argmin", _np_argmin)


def count_nonzero(x: Array, /, *, axis: Optional[Union[int, tuple]] = None,
                  keepdims: bool = False) -> Array:
    """Number (int64) of non-zero elements along ``axis`` (True for bools; NaN is non-zero;
    a complex value is non-zero when either part is)."""
    check_array(x, "count_nonzero")
    normalize_axes(axis, x.ndim, "count_nonzero")  # errors name this function, not sum()
    nz = x if x.dtype is dt.bool else not_equal(x, 0)
    return _sum(cast(nz, dt.int64), axis=axis, keepdims=keepdims)


def nonzero(x: Array, /) -> Tuple[Array, ...]:
    """Indices (int64) of the non-zero elements, one array per axis, in row-major order.

    The result's size depends on the values, so ``x`` is evaluated now
    (ConcretizationError when it depends on a placeholder).
    """
    check_array(x, "nonzero")
    if x.ndim == 0:
        raise ValueError("nonzero(): x must have at least one dimension, got a 0-d array")
    (v,) = concrete([x], "nonzero", "has an output shape that depends on the values of x")
    return tuple(leaf(i, dt.int64) for i in np.nonzero(v))


def _np_searchsorted(a: np.ndarray, v: np.ndarray, *rest) -> np.ndarray:
    *sorter, side = rest
    return np.searchsorted(a, v, side=side, sorter=sorter[0] if sorter else None)


def _check_sorter(sorter: Array, x1: Array) -> Array:
    check_array(sorter, "searchsorted", "sorter")
    if sorter.dtype not in dt.INTEGER:
        raise TypeError(f"searchsorted(): sorter must have an integer dtype, got {sorter.dtype}")
    n, m = sorter._node.shape, x1._node.shape
    if len(n) != 1 or (isinstance(n[0], int) and isinstance(m[0], int) and n[0] != m[0]):
        raise ValueError(f"searchsorted(): sorter must have the shape of x1 {x1.shape}, "
                         f"got {sorter.shape}")
    return sorter


def searchsorted(x1: Array, x2: Union[Array, Scalar], /, *,
                 side: Literal["left", "right"] = "left",
                 sorter: Optional[Array] = None) -> Array:
    """Indices (int64, shape of ``x2``) where inserting ``x2`` keeps ascending ``x1`` sorted.

    ``x1`` is one-dimensional and sorted (or sorted by the indices ``sorter``);
    a scalar ``x2`` takes ``x1``'s dtype and gives a 0-d result.  NaNs order
    last, as in ``sort``.

    >>> import lazyarray as xp
    >>> xp.searchsorted(xp.asarray([1.0, 2.0, 3.0]), xp.asarray([2.0, 9.0])).tolist()
    [1, 3]
    """
    check_array(x1, "searchsorted", "x1")
    if x1.ndim != 1:
        raise ValueError(f"searchsorted(): x1 must be one-dimensional, got shape {x1.shape}")
    if side not in ("left", "right"):
        raise ValueError(f"searchsorted(): side must be 'left' or 'right', got {side!r}")
    if isinstance(x2, Array):
        dtype = dt.result_type(x1, x2)
    else:
        dtype = dt.scalar_dtype(x2, x1.dtype)
        x2 = asarray(x2, dtype=dtype)
    inputs = [cast(x1, dtype), cast(x2, dtype)]
    if sorter is not None:
        inputs.append(_check_sorter(sorter, x1))
    (out,) = external("searchsorted", _np_searchsorted, inputs,
                      [(dt.int64, x2._node.shape)], (side,))
    return out
