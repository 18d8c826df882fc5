"""Utility functions: all, any, diff."""
from __future__ import annotations

from typing import Optional, Union

from . import _dtypes as dt
from ._array_object import Array, record
from ._manipulation import broadcast_to, check_array, concat, normalize_axis
from ._statistical import reduce
from .backend.ir import Dim, Op


def all(x: Array, /, *, axis: Optional[Union[int, tuple]] = None,  # noqa: A001
        keepdims: bool = False) -> Array:
    """Whether every element along ``axis`` is true (non-zero; NaN counts as true)."""
    check_array(x, "all")
    return reduce(Op.ALL, x, axis, keepdims, dt.bool, "all")


def any(x: Array, /, *, axis: Optional[Union[int, tuple]] = None,  # noqa: A001
        keepdims: bool = False) -> Array:
    """Whether any element along ``axis`` is true (non-zero; NaN counts as true)."""
    check_array(x, "any")
    return reduce(Op.ANY, x, axis, keepdims, dt.bool, "any")


def diff(x: Array, /, *, axis: int = -1, n: int = 1, prepend: Optional[Array] = None,
         append: Optional[Array] = None) -> Array:
    """The ``n``-th forward difference ``out[i] = x[i+1] - x[i]`` along ``axis``, after
    joining ``prepend`` and ``append`` to ``x`` along it (their dtypes promote).

    Two shifted views subtracted, fused into one kernel per order.  For bool
    input the difference is ``x[i+1] != x[i]``, as in numpy.

    >>> import lazyarray as xp
    >>> xp.diff(xp.asarray([1, 4, 9, 16]), n=2).tolist()
    [2, 2]
    """
    from ._elementwise import not_equal, subtract
    check_array(x, "diff")
    if x.ndim == 0:
        raise ValueError("diff(): x must have at least one dimension, got a 0-d array")
    ax = normalize_axis(axis, x.ndim, "diff")
    if not isinstance(n, int) or isinstance(n, bool):
        raise TypeError(f"diff(): n must be an int, got {type(n).__name__}")
    if n < 0:
        raise ValueError(f"diff(): n must be non-negative, got {n}")
    parts = [_edge(p, x, ax, name) for p, name in ((prepend, "prepend"), (append, "append"))]
    if parts[0] is not None or parts[1] is not None:
        x = concat([p for p in (parts[0], x, parts[1]) if p is not None], axis=ax)
    op = not_equal if x.dtype is dt.bool else subtract
    for _ in range(n):
        size = x._node.shape[ax]
        m = max(size - 1, 0) if isinstance(size, int) else Dim("slice", (size, 1, None, 1))
        x = op(_shifted(x, ax, ("s", 1, None, 1), m), _shifted(x, ax, ("s", None, -1, 1), m))
    return x


def _edge(p, x: Array, ax: int, name: str) -> Optional[Array]:
    """``prepend``/``append`` as an array to join to ``x``; a Python scalar becomes a
    size-1 slab along ``ax``."""
    if p is None or isinstance(p, Array):
        return p
    if isinstance(p, (bool, int, float, complex)):
        from ._elementwise import scalar_node
        dtype = dt.scalar_dtype(p, x.dtype)
        shape = x._node.shape[:ax] + (1,) + x._node.shape[ax + 1:]
        return broadcast_to(Array._new(scalar_node(p, dtype)), shape)
    raise TypeError(f"diff(): {name} must be an array or a Python scalar, got {type(p).__name__}")


def _shifted(x: Array, ax: int, item: tuple, size) -> Array:
    """A slice of ``x`` along ``ax`` recorded with size ``size``, so both operands of the
    difference share one (possibly symbolic) size."""
    items = (("s", None, None, 1),) * ax + (item,)
    shape = x._node.shape[:ax] + (size,) + x._node.shape[ax + 1:]
    return record(Op.SLICE, x.dtype, shape, (x._node,), items)
