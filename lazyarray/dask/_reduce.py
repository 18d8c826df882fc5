"""Reductions and arg-reductions as Dask tree reductions over lazyarray kernels, and
matmul as a blockwise contraction.

The chunk step of a reduction is its region's kernel with the reduction fused on top
(keeping the reduced axes, size 1 per block), so the expression under a sum is
never stored; Dask's ``reduction`` then concatenates partials in groups and runs
the combine and aggregate kernels (``_recipes``) on them.
"""
from __future__ import annotations

from functools import partial

import numpy as np

from ..backend.ir import Node, Op
from . import _regions as rg
from ._kernels import RecipeKernel, run
from ._lower import _da, blockwise, without_empty_chunks

_CHUNK_OP = {Op.MEAN: Op.SUM}  # a mean's partials are sums, divided by the count at the end
_EMPTY_FAILS = frozenset({Op.MAX, Op.MIN, Op.ARGMAX, Op.ARGMIN})  # no identity: skip empty blocks


def _keep(x, axis=None, keepdims=None):
    """Dask's chunk step: the partials are computed already (by the region's kernel)."""
    return x


def _step(kernel, x, axis=None, keepdims=None):
    """A combine or aggregate step: ``kernel`` knows its axes already. A 0-d result is
    a numpy scalar, as dask.array's reductions of numpy blocks give."""
    out = run(kernel, x)
    return out[()] if out.ndim == 0 else out


def tree_reduce(partials, op: str, axes: tuple, keepdims: bool, dtype, count=None):
    """Reduce ``partials`` (one per block, the reduced axes of size 1) over ``axes``."""
    d = np.dtype(dtype)
    rank = partials.ndim
    comb = RecipeKernel("reduce_partials", (op, axes, True, d.name, rank))
    agg = RecipeKernel("reduce_partials", (op, axes, keepdims, d.name, rank, count))
    out_rank = rank if keepdims else rank - len(axes)
    return _da().reduction(partials, chunk=_keep, combine=partial(_step, comb),
                           aggregate=partial(_step, agg), axis=axes, keepdims=keepdims,
                           dtype=d, meta=np.empty((0,) * out_rank, d), concatenate=True,
                           name=f"lazyarray-{op}")


def _without_empty_blocks(args: list, axes: tuple) -> list:
    """``args`` (dask arrays and their indices) without zero-size chunks along the
    output axes ``axes``: a max of an empty block has no value."""
    out = list(args)
    for k in range(0, len(out), 2):
        ind = out[k + 1]
        out[k] = without_empty_chunks(out[k], [j for j, i in enumerate(ind) if i in axes])
    return out


def reduction(low, n: Node, members: list, keepdims: bool):
    """``n`` (a sum, prod, max, min, mean, any or all) of the region ``members``, with
    the reduced axes of size 1 when ``keepdims``."""
    axes = n.arg[0]
    src = n.srcs[0]
    base = src.shape
    chunk_op = _CHUNK_OP.get(n.op, n.op)

    def tail(entries: list, index: dict, fixed: frozenset) -> tuple:
        shape = tuple(1 if i in axes else d
                      for i, d in enumerate(rg.block_shape(base, base, fixed)))
        entries.append(("op", chunk_op.value, n.dtype.name, shape, (index[src],), (axes, True)))
        return (len(entries) - 1,)

    kernel, args, chunks = low.layer(members, base, tail=(n, tail))
    if n.op in _EMPTY_FAILS:
        args = _without_empty_blocks(args, axes)
    partials = blockwise(partial(run, kernel), base, n.dtype.np, args,
                         adjust={i: 1 for i in axes}, chunks=chunks,
                         token=f"lazyarray-{chunk_op.value}-chunk")
    count = None
    if n.op is Op.MEAN:
        count = 1
        for i in axes:
            count *= base[i]
    return tree_reduce(partials, chunk_op.value, axes, keepdims, n.dtype.np, count)


def _pack(value: np.ndarray, index: np.ndarray, count) -> np.ndarray:
    """(value, index, elements covered) partials of an arg-reduction as one array."""
    out = np.empty(value.shape, [("v", value.dtype), ("i", np.int64), ("n", np.int64)])
    out["v"], out["i"], out["n"] = value, index, count
    return out


def _arg_chunk(kernel, axis: int, length, *blocks):
    """An arg-reduction's chunk step: the block's extreme value and its index in the
    block, with the block's length (the combine step turns indices into offsets)."""
    value, index = run(kernel, *blocks)
    count = blocks[length[0]].shape[length[1]] if isinstance(length, tuple) else length
    return _pack(np.expand_dims(value, axis), np.expand_dims(index, axis), count)


def _arg_step(kernel, x, axis=None, keepdims=True):
    """An arg-reduction's combine (``keepdims``) or aggregate step on packed partials."""
    out = _pack(*run(kernel, x["v"], x["i"], x["n"]))
    return out if keepdims else np.squeeze(out, axis=axis)


def _indices(packed: np.ndarray) -> np.ndarray:
    return packed["i"][()] if packed.ndim == 0 else np.ascontiguousarray(packed["i"])


def arg_reduction(low, n: Node, members: list):
    """argmax/argmin of the region ``members`` along one axis."""
    (axis,), _ = n.arg
    src = n.srcs[0]
    base = src.shape
    vdtype = "uint8" if src.dtype.kind == "b" else src.dtype.name  # bool has no max
    extreme = "max" if n.op is Op.ARGMAX else "min"

    def tail(entries: list, index: dict, fixed: frozenset) -> tuple:
        shape = rg.block_shape(base, base, fixed)
        s = index[src]
        if vdtype != src.dtype.name:
            entries.append(("op", "astype", vdtype, shape, (s,), None))
            s = len(entries) - 1
        out = shape[:axis] + shape[axis + 1:]
        entries.append(("op", extreme, vdtype, out, (s,), ((axis,), False)))
        entries.append(("op", n.op.value, "int64", out, (s,), ((axis,), False)))
        return (len(entries) - 2, len(entries) - 1)

    kernel, args, chunks = low.layer(members, base, tail=(n, tail))
    args = _without_empty_blocks(args, (axis,))
    length = next(((k // 2, list(ind).index(axis)) for k, ind in enumerate(args)
                   if k % 2 and axis in ind), base[axis])
    sdtype = np.dtype([("v", np.dtype(vdtype)), ("i", np.int64), ("n", np.int64)])
    partials = blockwise(partial(_arg_chunk, kernel, axis, length), base, sdtype, args,
                         adjust={axis: 1}, chunks=chunks,
                         token=f"lazyarray-{n.op.value}-chunk")
    rank = len(base)
    comb = RecipeKernel("arg_partials", (n.op.value, axis, rank, vdtype))
    step = partial(_arg_step, comb)
    packed = _da().reduction(partials, chunk=_keep, combine=step, aggregate=step, axis=(axis,),
                             keepdims=False, dtype=sdtype,
                             meta=np.empty((0,) * (rank - 1), sdtype), concatenate=True,
                             name=f"lazyarray-{n.op.value}")
    return packed.map_blocks(_indices, dtype=np.int64, meta=np.empty((0,) * (rank - 1), np.int64))


def matmul(a, b, dtype):
    """A blocked matmul: one task per output block, whose row of ``a``'s blocks and
    column of ``b``'s Dask concatenates along the contracted axis, as dask.array's
    matmul does; one GEMM call sums over the whole contracted axis.  (A product per
    contracted block summed by a tree reduction wrote a partial per block: 64
    products and 48 sums of 8 MB blocks for a 4x4-blocked 4000^2 matmul.)"""
    if a.ndim == 1 or b.ndim == 1:  # a matrix-vector product (one node): the vector as
        # a matrix of one row or column, that axis dropped from the product
        mv = b.ndim == 1
        out = matmul(a if mv else a[None, :], b[:, None] if mv else b, dtype)
        return out[:, 0] if mv else out[0]
    r = a.ndim
    batch = tuple(range(r - 2))
    shape = a.shape[:-1] + (b.shape[-1],)
    kernel = RecipeKernel("matmul_block", (dtype.name, r))
    return blockwise(partial(run, kernel), shape, dtype.np,
                     [a, batch + (r - 2, r), b, batch + (r, r - 1)], token="lazyarray-matmul")
