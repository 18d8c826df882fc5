"""Kernels lazyarray makes for Dask's tree steps: the combine and aggregate steps of
reductions and arg-reductions, and the per-block product of a blocked matmul.

Each recipe traces a small program on placeholders with symbolic sizes, so one
program (one compile) serves partials of every block size.
"""
from __future__ import annotations

from .. import _dtypes as dt
from .. import _linear_algebra, _searching, _statistical, _utility
from .._indexing import take_along_axis
from .._program import Program, placeholder
from ..backend import ir
from ._kernels import recipe


def _block(rank: int, dtype: str, prefix: str = "c"):
    return placeholder(tuple(f"{prefix}{i}" for i in range(rank)), ir.scalar_type(dtype))


def _reduced(op: str, x, axes: tuple, keepdims: bool):
    """``op`` of ``x`` over ``axes``, accumulating in ``x``'s own dtype."""
    if op in ("sum", "prod"):
        fn = _statistical.sum if op == "sum" else _statistical.prod
        return fn(x, axis=axes, keepdims=keepdims, dtype=x.dtype)
    fn = {"max": _statistical.max, "min": _statistical.min,
          "any": _utility.any, "all": _utility.all}[op]
    return fn(x, axis=axes, keepdims=keepdims)


@recipe
def reduce_partials(op: str, axes: tuple, keepdims: bool, dtype: str, rank: int,
                    count=None) -> Program:
    """Combine (or aggregate) partial results of ``op`` over ``axes``; ``count``:
    the number of elements reduced, for a mean (a sum divided by it)."""
    x = _block(rank, dtype)
    y = _reduced(op, x, axes, keepdims)
    if count is not None:
        y = y / float(count)
    return Program(y, [x])


@recipe
def arg_partials(op: str, axis: int, rank: int, dtype: str) -> Program:
    """Combine partial (value, index in its part, elements in its part) triples of
    argmax/argmin along ``axis``: indices become offsets into the concatenated parts,
    and the first extreme value wins (parts are in order, so it is the first overall)."""
    v, i, n = _block(rank, dtype), _block(rank, "int64"), _block(rank, "int64")
    offsets = _statistical.cumulative_sum(n, axis=axis) - n
    pick = (_searching.argmax if op == "argmax" else _searching.argmin)(v, axis=axis,
                                                                         keepdims=True)
    index = take_along_axis(i + offsets, pick, axis=axis)
    value = take_along_axis(v, pick, axis=axis)
    count = _statistical.sum(n, axis=axis, keepdims=True)
    return Program((value, index, count), [v, i, n])


@recipe
def matmul_block(dtype: str, rank: int) -> Program:
    """The product of one row of blocks by one column of blocks of a blocked matmul,
    each concatenated along the contracted axis by Dask: one output block."""
    batch = tuple(f"b{i}" for i in range(rank - 2))
    d = ir.scalar_type(dtype)
    a = placeholder(batch + ("n", "k"), d)
    b = placeholder(batch + ("k", "m"), d)
    return Program(_linear_algebra.matmul(a, b), [a, b])


assert dt.int64 is ir.scalar_type("int64")  # front-end dtypes are the backend's scalar types
