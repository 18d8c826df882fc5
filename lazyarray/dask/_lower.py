"""Lowering a recorded graph to a dask.array graph.

Each region (``_regions``) becomes one ``da.blockwise`` layer whose blocks run a
lazyarray kernel; reductions and arg-reductions become Dask tree reductions whose
chunk step is the region's kernel fused with the reduction and whose combine and
aggregate steps are lazyarray kernels too; matmul is a blockwise contraction
summed over the contracted blocks.  Views, concatenation and scans use dask.array's
own functions; any other op (gathers, updates, sorts, decompositions, FFTs) runs
as one lazyarray kernel on its inputs gathered into one block each.
"""
from __future__ import annotations

import itertools
from functools import partial

import numpy as np

from ..backend import ir
from ..backend.ir import Node, Op
from . import _regions as rg
from ._kernels import GraphKernel, RecipeKernel, run


def _da():
    import dask.array as da
    return da


class Lowering:
    """dask arrays for the nodes of one graph; ``sources`` maps placeholders to the
    dask arrays they stand for."""

    def __init__(self, sources: dict) -> None:
        self.sources = sources
        self.memo: dict = {}
        self.reductions: dict = {}  # (op, source node, axes) -> its result, axes kept

    def run(self, roots: list) -> list:
        order, region = rg.regions(roots)
        members = rg.members_of(order, region)
        for n in order:
            if region.get(n) is n:
                self.memo[n] = self._lower(n, members[n])
        return [self.array(r) for r in roots]

    def array(self, n: Node):
        """The dask array of a leaf or an already lowered node."""
        a = self.memo.get(n)
        if a is not None:
            return a
        if n.op is Op.PLACEHOLDER:
            a = self.sources.get(n)
            if a is None:
                raise ValueError(f"the graph depends on placeholder {n.arg or '<unnamed>'!r}, "
                                 "which is not a Dask array: give its value with "
                                 "lazyarray.dask.from_dask() or as an input of to_dask()")
        elif n.value is not None:
            a = _da().from_array(np.asarray(n.value, dtype=n.dtype.np))
        else:
            raise ValueError(f"internal: {n!r} was not lowered before its consumers")
        self.memo[n] = a
        return a

    def _lower(self, n: Node, members: list):
        op = n.op
        if op in rg.FUSABLE:
            return self._elementwise(n, members)
        if op in ir.REDUCE:
            return self._reduction(n, members)
        if op in ir.ARG_REDUCE:
            from ._reduce import arg_reduction
            return arg_reduction(self, n, members[:-1])
        if op is Op.MATMUL:
            from ._reduce import matmul
            return matmul(self.array(n.srcs[0]), self.array(n.srcs[1]), n.dtype)
        native = _DASK_FUNCTIONS.get(op)
        if native is not None:
            return native(n, [self.array(s) for s in n.srcs if s.op is not Op.SCALAR])
        return self._one_block(n)

    def _reduction(self, n: Node, members: list):
        """A reduction, shared by the reductions of one node over the same axes that
        differ in ``keepdims`` only (``var`` keeps the mean's axes, a user's ``mean``
        beside it may not)."""
        from ._reduce import reduction
        axes, keepdims = n.arg
        key = (n.op, n.srcs[0], axes)
        kept = self.reductions.get(key)
        if kept is None:
            kept = self.reductions[key] = reduction(self, n, members[:-1], True)
        return kept if keepdims else _da().squeeze(kept, axis=axes)

    # ------------------------------------------------------------------ regions

    def layer(self, members: list, base: tuple, tail=None) -> tuple:
        """(kernel, dask arguments, chunks of the axes no input has) of a region of
        shape ``base`` whose kernel computes ``members`` and then ``tail[1](entries,
        index)`` (the reduction ``tail[0]`` on top, giving the outputs), if given."""
        inputs = rg.region_inputs(members + ([tail[0]] if tail else []))
        fixed = rg.uncovered_axes(inputs, base)
        entries, index = [], {}
        for x in inputs:
            index[x] = len(entries)
            entries.append(("in", x.dtype.name, rg.block_shape(x.shape, base)))
        for m in members:
            _scalars(m, entries, index)
            index[m] = len(entries)
            entries.append(("op", m.op.value, m.dtype.name,
                            rg.block_shape(m.shape, base, fixed),
                            tuple(index[s] for s in m.srcs), m.arg))
        outputs = tail[1](entries, index, fixed) if tail else (index[members[-1]],)
        spare = itertools.count(len(base))
        args = []
        for x in inputs:
            args += [self.array(x), rg.block_index(x.shape, base, spare)]
        return GraphKernel(entries, outputs), args, {i: (base[i],) for i in fixed}

    def _elementwise(self, root: Node, members: list):
        kernel, args, chunks = self.layer(members, root.shape)
        return blockwise(partial(run, kernel), root.shape, root.dtype.np, args, chunks=chunks)

    def _one_block(self, n: Node):
        """``n`` on its inputs gathered into one block each (correct for any op)."""
        entries, index, args = [], {}, []
        spare = itertools.count(len(n.shape))
        for s in n.srcs:
            if s in index:
                continue
            if s.op is Op.SCALAR:
                _scalars(n, entries, index)
                continue
            index[s] = len(entries)
            entries.append(("in", s.dtype.name, s.shape))
            args += [self.array(s).rechunk(-1), tuple(next(spare) for _ in s.shape)]
        entries.append(("op", n.op.value, n.dtype.name, n.shape,
                        tuple(index[s] for s in n.srcs), n.arg))
        kernel = GraphKernel(entries, (len(entries) - 1,))
        return blockwise(partial(run, kernel), n.shape, n.dtype.np, args,
                         chunks={i: (d,) for i, d in enumerate(n.shape)},
                         token=f"lazyarray-{_op_name(n)}")


def _op_name(n: Node) -> str:
    return n.arg.name if n.op is Op.EXTERNAL else n.op.value


def _scalars(m: Node, entries: list, index: dict) -> None:
    for s in m.srcs:
        if s.op is Op.SCALAR and s not in index:
            index[s] = len(entries)
            entries.append(("scalar", s.dtype.name, s.value))


def blockwise(fn, shape: tuple, dtype, args: list, adjust=None, chunks=None, meta_dtype=None,
              token: str = "lazyarray"):
    """``da.blockwise`` over output axes ``0..len(shape)-1``; output axes that no input
    has get ``chunks[axis]`` (default: Dask's automatic chunking). Keys are named
    ``token-<hash>`` (what a Dask dashboard shows)."""
    da = _da()
    rank = len(shape)
    chunkss, arrays = da.core.unify_chunks(*args) if args else ({}, [])
    flat = []
    for a, ind in zip(arrays, args[1::2]):
        flat += [a, ind]
    new = [i for i in range(rank) if i not in chunkss]
    new_axes = {}
    if new:
        spec = tuple(chunkss.get(i, (chunks or {}).get(i, "auto")) for i in range(rank))
        auto = da.core.normalize_chunks(spec, shape=shape, dtype=dtype)
        new_axes = {i: auto[i] for i in new}
    meta = np.empty((0,) * rank, dtype=meta_dtype or dtype)
    return da.blockwise(fn, tuple(range(rank)), *flat, new_axes=new_axes, adjust_chunks=adjust,
                        dtype=meta_dtype or dtype, meta=meta, concatenate=True, token=token)


def without_empty_chunks(a, axes):
    """``a`` with its zero-size chunks along ``axes`` merged away (an axis of size 0
    keeps its one empty chunk)."""
    chunks = tuple(tuple(c for c in ch if c) or ch[:1] if j in axes else ch
                   for j, ch in enumerate(a.chunks))
    return a if chunks == a.chunks else a.rechunk(chunks)


def _reshape(a, shape: tuple):
    """dask.array's reshape, which only merges or splits axes evenly; any other
    reshape gathers the array into one block first."""
    try:
        return _da().reshape(a, shape)
    except NotImplementedError:
        return _da().reshape(a.rechunk(-1), shape)


def _slice_key(items: tuple) -> tuple:
    return tuple(slice(*it[1:]) if it[0] == "s" else it[1] for it in items)


_DASK_FUNCTIONS = {
    Op.PERMUTE_DIMS: lambda n, a: _da().transpose(a[0], n.arg),
    Op.EXPAND_DIMS: lambda n, a: _da().expand_dims(a[0], n.arg),
    Op.SQUEEZE: lambda n, a: _da().squeeze(a[0], axis=n.arg),
    Op.RESHAPE: lambda n, a: _reshape(a[0], n.shape),
    Op.SLICE: lambda n, a: a[0][_slice_key(n.arg)],
    Op.CONCAT: lambda n, a: _da().concatenate(a, axis=n.arg),
    # dask's scans fail on empty blocks along the scanned axis
    Op.CUMULATIVE_SUM: lambda n, a: _da().cumsum(without_empty_chunks(a[0], (n.arg,)),
                                                 axis=n.arg, dtype=n.dtype.np),
    Op.CUMULATIVE_PROD: lambda n, a: _da().cumprod(without_empty_chunks(a[0], (n.arg,)),
                                                   axis=n.arg, dtype=n.dtype.np),
}


def lowered_ops() -> dict:
    """How each kind of op is lowered (for the documentation and tests)."""
    return {"blockwise kernel": sorted(o.value for o in rg.FUSABLE),
            "tree reduction": sorted(o.value for o in ir.REDUCE | ir.ARG_REDUCE),
            "blockwise contraction": ["matmul"],
            "dask.array": sorted(o.value for o in _DASK_FUNCTIONS),
            "one block": sorted(o.value for o in set(Op) - rg.FUSABLE - ir.REDUCE
                                - ir.ARG_REDUCE - ir.LEAVES - set(_DASK_FUNCTIONS)
                                - {Op.MATMUL})}
