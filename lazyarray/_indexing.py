"""Indexing: basic indexing (integers, slices with steps, ``...``, ``None``).

A basic index is a view: one ``slice`` node (integers drop axes, slices keep
them) and an ``expand_dims`` node for ``None``.  Bounds of integer indices
are checked when recording for concrete sizes and when the program is bound
for symbolic ones.
"""
from __future__ import annotations

import operator

from ._array_object import Array, record
from ._manipulation import expand_dims
from . import _dtypes as dt
from .backend.ir import Dim, Node, Op


def _as_index(item, axis: int) -> int:
    if isinstance(item, bool):
        raise IndexError("boolean scalars are not valid indices")
    try:
        return operator.index(item)
    except TypeError:
        raise IndexError(f"only integers, slices, ..., None and integer arrays are valid indices; "
                         f"got {type(item).__name__} at axis {axis}") from None


def _slice_item(s: slice, size, axis: int):
    step = 1 if s.step is None else _as_index(s.step, axis)
    if step == 0:
        raise ValueError("slice step cannot be zero")
    start = None if s.start is None else _as_index(s.start, axis)
    stop = None if s.stop is None else _as_index(s.stop, axis)
    if isinstance(size, int):
        n = len(range(*slice(start, stop, step).indices(size)))
    else:
        n = Dim("slice", (size, start, stop, step))
    return ("s", start, stop, step), n


def _parse_basic(x: Array, key) -> tuple:
    """(items, shape without None axes, positions of None axes) of a basic index."""
    key = key if isinstance(key, tuple) else (key,)
    n_ell = sum(1 for k in key if k is Ellipsis)
    if n_ell > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    n_axes = sum(1 for k in key if k is not None and k is not Ellipsis)
    if n_axes > x.ndim:
        raise IndexError(f"too many indices: array is {x.ndim}-dimensional, "
                         f"but {n_axes} were indexed")
    if n_ell == 0:
        key = key + (Ellipsis,)
    items, shape, new_axes = [], [], []
    axis = 0
    for k in key:
        if k is Ellipsis:
            for _ in range(x.ndim - n_axes):
                items.append(("s", None, None, 1))
                shape.append(x._node.shape[axis])
                axis += 1
        elif k is None:
            new_axes.append(len(shape) + len(new_axes))
        elif isinstance(k, slice):
            it, n = _slice_item(k, x._node.shape[axis], axis)
            items.append(it)
            shape.append(n)
            axis += 1
        else:
            i = _as_index(k, axis)
            size = x._node.shape[axis]
            if isinstance(size, int) and not -size <= i < size:
                raise IndexError(f"index {i} is out of bounds for axis {axis} with size {size}")
            items.append(("i", i))
            axis += 1
    while items and items[-1] == ("s", None, None, 1):
        items.pop()
    return tuple(items), tuple(shape), tuple(new_axes)


def getitem(x: Array, key) -> Array:
    """``x[key]`` for a basic index (a view: nothing is copied)."""
    items, shape, new_axes = _parse_basic(x, key)
    out = x
    if items:
        out = record(Op.SLICE, x.dtype, shape, (x._node,), items)
    if new_axes:
        out = expand_dims(out, axis=new_axes)
    return out if out is not x else Array._new(x._node)


def setitem(x: Array, key, value) -> None:
    """``x[key] = value`` for a basic index: ``x`` is rebound to a new node, ``x``
    with the region replaced (other arrays computed from the old ``x`` keep it)."""
    from ._elementwise import Scalar
    from ._manipulation import broadcast_to, cast
    items, shape, _ = _parse_basic(x, key)
    if isinstance(value, Array):
        if not dt.can_cast(value.dtype, x.dtype):
            raise TypeError(f"cannot assign an array of dtype {value.dtype} into an array of "
                            f"dtype {x.dtype}")
        v = cast(value, x.dtype)
    elif isinstance(value, (bool, int, float, complex)):
        from ._elementwise import scalar_node
        dt.scalar_dtype(value, x.dtype)
        v = Array._new(scalar_node(value, x.dtype))
    else:
        raise TypeError(f"__setitem__ expects an Array or a Python scalar value, "
                        f"got {type(value).__name__}")
    v = broadcast_to(v, shape) if v._node.shape != shape else v
    x._node = Node(Op.UPDATE, x.dtype, x._node.shape, (x._node, v._node), items)
