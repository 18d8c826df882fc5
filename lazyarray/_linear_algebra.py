"""Linear algebra functions: matmul, tensordot, vecdot, matrix_transpose.

``matmul`` is one graph op, compiled to a contraction loop nest whose sizes
are runtime arguments (a symbolic program runs at any size from one
prepare).  ``vecdot`` and ``tensordot`` are recorded as a broadcast
multiply fused with a sum, so they need no temporaries either.
"""
from __future__ import annotations

from typing import Sequence, Union

from . import _dtypes as dt
from ._array_object import Array, record
from ._manipulation import (broadcast_shapes, broadcast_to, cast, check_array, expand_dims,
                            normalize_axis, permute_dims, squeeze)
from ._elementwise import conj
from ._statistical import sum as _sum
from .backend.ir import Op, dim_assert_equal


_NUMERIC = frozenset(dt.NUMERIC)


def _promoted(fname: str, x1: Array, x2: Array) -> dt.DType:
    check_array(x1, fname, "x1")
    check_array(x2, fname, "x2")
    d = dt.promote_types(x1.dtype, x2.dtype)
    if d not in dt.NUMERIC:
        raise TypeError(f"{fname}() needs numeric inputs, got {x1.dtype} and {x2.dtype}")
    return d


def matmul(x1: Array, x2: Array, /) -> Array:
    """Matrix product with the standard's 1-d and batch-broadcasting rules."""
    if type(x1) is Array and type(x2) is Array:  # one dtype, matrix or vector operands:
        a, b = x1._node, x2._node                  # what the general path records, without
        sa, sb = a.shape, b.shape                  # its steps
        if a.dtype is b.dtype and a.dtype in _NUMERIC:
            if len(sa) == 2 and len(sb) == 2 and sa[1] == sb[0]:
                return record(Op.MATMUL, a.dtype, (sa[0], sb[1]), (a, b))
            # matrix @ vector, vector @ matrix: one node too (the backend runs it as a
            # product with one column or row: backend/schedule.py)
            if len(sa) == 2 and len(sb) == 1 and sa[1] == sb[0]:
                return record(Op.MATMUL, a.dtype, (sa[0],), (a, b))
            if len(sa) == 1 and len(sb) == 2 and sa[0] == sb[0]:
                return record(Op.MATMUL, a.dtype, (sb[1],), (a, b))
    return _matmul(x1, x2)


def _matmul(x1: Array, x2: Array) -> Array:
    d = _promoted("matmul", x1, x2)
    if x1.ndim == 0 or x2.ndim == 0:
        raise ValueError("matmul(): operands must have at least one dimension")
    a, b = cast(x1, d), cast(x2, d)
    if (x1.ndim, x2.ndim) in ((2, 1), (1, 2)):  # one node, as matmul's fast path records
        (sa, sb), mv = (a._node.shape, b._node.shape), x1.ndim == 2
        n = _checked(sa[0] if mv else sb[1], sa[-1], sb[0], x1, x2)
        return record(Op.MATMUL, d, (n,), (a._node, b._node))
    a = expand_dims(a, axis=0) if x1.ndim == 1 else a
    b = expand_dims(b, axis=-1) if x2.ndim == 1 else b
    sa, sb = a._node.shape, b._node.shape
    n = _checked(sb[-1], sa[-1], sb[-2], x1, x2)
    batch = broadcast_shapes(sa[:-2], sb[:-2])
    if batch:
        a = broadcast_to(a, batch + sa[-2:])
        b = broadcast_to(b, batch + sb[-2:])
    out = record(Op.MATMUL, d, batch + (sa[-2], n), (a._node, b._node))
    if x1.ndim == 1:
        out = squeeze(out, axis=-2)
    if x2.ndim == 1:
        out = squeeze(out, axis=-1)
    return out


def _checked(size, ka, kb, x1: Array, x2: Array):
    """``size``, carrying the check that the contracted sizes ``ka`` and ``kb`` agree
    (symbolic ones when bound); the error names both shapes when they cannot."""
    try:
        return dim_assert_equal(size, ka, kb)
    except ValueError:
        raise ValueError(f"matmul(): inner sizes differ: x1 has shape {x1.shape}, "
                         f"x2 has shape {x2.shape}") from None


def matrix_transpose(x: Array, /) -> Array:
    """``x`` with its last two axes swapped."""
    check_array(x, "matrix_transpose")
    if x.ndim < 2:
        raise ValueError(f"matrix_transpose() needs at least 2 dimensions, got {x.ndim}")
    axes = tuple(range(x.ndim - 2)) + (x.ndim - 1, x.ndim - 2)
    return permute_dims(x, axes)


def vecdot(x1: Array, x2: Array, /, *, axis: int = -1) -> Array:
    """Dot product of vectors along ``axis`` (after broadcasting)."""
    d = _promoted("vecdot", x1, x2)
    shape = broadcast_shapes(x1._node.shape, x2._node.shape)
    ax = normalize_axis(axis, len(shape), "vecdot")
    # The contracted size must match exactly: broadcasting a size 1 is not allowed here.
    k1 = x1._node.shape[ax - len(shape) + x1.ndim] if ax - len(shape) + x1.ndim >= 0 else 1
    k2 = x2._node.shape[ax - len(shape) + x2.ndim] if ax - len(shape) + x2.ndim >= 0 else 1
    if isinstance(k1, int) and isinstance(k2, int) and k1 != k2:
        raise ValueError(f"vecdot(): sizes along axis {axis} differ: {k1} and {k2}")
    # Symbolic sizes: the binding checks k1 == k2 instead of broadcasting them.
    shape = shape[:ax] + (dim_assert_equal(k1, k1, k2),) + shape[ax + 1:]
    a, b = broadcast_to(cast(x1, d), shape), broadcast_to(cast(x2, d), shape)
    if d in dt.COMPLEX_FLOATING:
        a = conj(a)  # the standard's vecdot conjugates x1
    # The result has the promoted dtype: sum must not widen integers to int64.
    return _sum(a * b, axis=ax, dtype=d)


def tensordot(x1: Array, x2: Array, /, *,
              axes: Union[int, tuple[Sequence[int], Sequence[int]]] = 2) -> Array:
    """Sum of products over ``axes`` (the last/first ``axes`` axes, or two axis lists)."""
    d = _promoted("tensordot", x1, x2)
    if isinstance(axes, int):
        if axes < 0 or axes > min(x1.ndim, x2.ndim):
            raise ValueError(f"tensordot(): axes={axes} is out of range for ranks "
                             f"{x1.ndim} and {x2.ndim}")
        c1 = tuple(range(x1.ndim - axes, x1.ndim))
        c2 = tuple(range(axes))
    else:
        c1 = tuple(normalize_axis(a, x1.ndim, "tensordot") for a in axes[0])
        c2 = tuple(normalize_axis(a, x2.ndim, "tensordot") for a in axes[1])
        if len(c1) != len(c2):
            raise ValueError("tensordot(): the two axis lists must have the same length")
    s1, s2 = x1._node.shape, x2._node.shape
    for a1, a2 in zip(c1, c2):
        if isinstance(s1[a1], int) and isinstance(s2[a2], int) and s1[a1] != s2[a2]:
            raise ValueError(f"tensordot(): contracted sizes differ: axis {a1} of x1 has "
                             f"{s1[a1]}, axis {a2} of x2 has {s2[a2]}")
    f1 = tuple(a for a in range(x1.ndim) if a not in c1)
    f2 = tuple(a for a in range(x2.ndim) if a not in c2)
    a = permute_dims(cast(x1, d), f1 + c1)
    b = permute_dims(cast(x2, d), f2 + c2)
    # a: (f1..., 1 for f2..., c...)   b: (1 for f1..., f2..., c...)
    a = expand_dims(a, axis=tuple(range(len(f1), len(f1) + len(f2)))) if f2 else a
    b = expand_dims(b, axis=tuple(range(len(f1)))) if f1 else b
    cshape = tuple(dim_assert_equal(s1[i], s1[i], s2[j]) for i, j in zip(c1, c2))
    full = tuple(s1[i] for i in f1) + tuple(s2[j] for j in f2) + cshape
    prod = broadcast_to(a, full) * broadcast_to(b, full)
    if not c1:
        return prod
    return _sum(prod, axis=tuple(range(len(f1) + len(f2), len(full))), dtype=d)
