"""Pairwise summation in generated code: partial sums merged like a binary counter.

A float sum that adds its elements one after the other has an error bound that
grows with the element count n (in float32 a sum of ones stops growing at 2**24).
Here the elements come in *blocks* (runs of a fixed length, each summed from zero
in a loop), and the block sums are merged pairwise: after block j the top of a
stack is merged with the new sum once per trailing zero bit of j, so the stack
holds at most 64 sums and every merge adds two sums of equally many blocks (the
tree numpy's pairwise sum builds). The error bound is then about
(c + log2(n / block)) units in the last place of the sum of magnitudes, for every
n, instead of n: c is the longest chain of additions inside a block, ``STRIDED``
for a strided block (summed in order) and ``CONTIGUOUS`` / 64 or so for a
contiguous one (LLVM vectorises it with that many partial sums).

Compiled kernels sum every float and complex ``sum``/``mean`` this way
(backend/codegen.py); the interpreter's lanes (each adding every L-th element of
the reduced axis, L = 256 to 1,024 by dtype) are merged by the same tree
(backend/blocks.py, ``hred``), so there the bound is (n / L + log2 L) ulps.
``combine(b, x, y)`` is the addition (real or complex) of the code generator;
this module knows nothing else of it.
"""
from __future__ import annotations

from llvmlite import ir

I64 = ir.IntType(64)
CONTIGUOUS = 4096  # elements of a block read contiguously (vectorised)
STRIDED = 256      # elements of any other block (numpy: 128, in 8 partial sums)
DEPTH = 64   # a stack entry per bit of the block count
# stack rows of a column-order sum: up to STRIDED * 2**29 rows (see Columns); with the tile's
# run, 31 rows of 8 KiB (backend/codegen.py, COLUMN_BYTES) on the running thread's stack
COLUMN_DEPTH = 30


class PairwiseSum:
    """The state of one pairwise sum: stack variables of the function being built.

    Made while ``entry`` (a builder in the function's entry block) is positioned
    before any loop, so the stack is allocated once per call of the function."""

    def __init__(self, entry: ir.IRBuilder, ty: ir.Type, zero: ir.Value, combine) -> None:
        self.ty, self.zero, self.combine = ty, zero, combine
        self.stack = entry.alloca(ty, size=ir.Constant(I64, DEPTH), name="pairwise_stack")
        self.top = entry.alloca(I64, name="pairwise_top")      # entries in use
        self.blocks = entry.alloca(I64, name="pairwise_blocks")  # block sums pushed
        self.run = entry.alloca(ty, name="pairwise_run")       # the block being summed
        self.filled = entry.alloca(I64, name="pairwise_filled")  # its element count

    def reset(self, b: ir.IRBuilder, block: ir.Value) -> None:
        """An empty sum (before the elements of each result) in blocks of ``block``
        elements (an int64 value that dominates the code adding to the sum)."""
        self.block = block
        for p in (self.top, self.blocks, self.filled):
            b.store(ir.Constant(I64, 0), p)
        b.store(self.zero, self.run)

    def _entry(self, b: ir.IRBuilder, i: ir.Value) -> ir.Value:
        return b.gep(self.stack, [i], source_etype=self.ty)

    def push(self, b: ir.IRBuilder, s: ir.Value) -> None:
        """Add the sum ``s`` of one block: merged with the top once per trailing zero
        bit of the new block count."""
        def merge(bb, below, carried):
            return [self.combine(bb, bb.load(self._entry(bb, below), typ=self.ty), carried[0])]
        top, (v,) = _merges(b, self.blocks, self.top, "pairwise_merge", [s], merge)
        b.store(v, self._entry(b, top))
        b.store(b.add(top, ir.Constant(I64, 1)), self.top)

    def add_run(self, b: ir.IRBuilder, n: ir.Value, sum_range) -> None:
        """Add elements ``0 .. n-1`` of a run (a row of the innermost reduced axis).

        ``sum_range(b, start, count, init)`` emits a loop adding elements
        ``start .. start+count-1`` to ``init`` and returns the sum: called on pieces
        that fill the current block, which is pushed each time it is full."""
        pre, (head, body, done) = _loop_start(b, "pairwise_run")
        i = b.phi(I64)
        i.add_incoming(ir.Constant(I64, 0), pre)
        b.cbranch(b.icmp_signed("<", i, n), body, done)
        b.position_at_end(body)
        filled = b.load(self.filled, typ=I64)
        room, left = b.sub(self.block, filled), b.sub(n, i)
        m = b.select(b.icmp_signed("<", room, left), room, left)
        s = sum_range(b, i, m, b.load(self.run, typ=self.ty))
        filled = b.add(filled, m)
        with b.if_else(b.icmp_signed("==", filled, self.block)) as (full, partial):
            with full:
                self.push(b, s)
                b.store(self.zero, self.run)
                b.store(ir.Constant(I64, 0), self.filled)
            with partial:
                b.store(s, self.run)
                b.store(filled, self.filled)
        i.add_incoming(b.add(i, m), b.block)
        b.branch(head)
        b.position_at_end(done)

    def total(self, b: ir.IRBuilder) -> ir.Value:
        """The sum: the block being summed, then the stack from its top (the smallest
        sums) down."""
        start = b.load(self.top, typ=I64)
        run = b.load(self.run, typ=self.ty)
        pre, (head, body, done) = _loop_start(b, "pairwise_total")
        k, acc = b.phi(I64), b.phi(self.ty)
        k.add_incoming(start, pre)
        acc.add_incoming(run, pre)
        b.cbranch(b.icmp_signed(">", k, ir.Constant(I64, 0)), body, done)
        b.position_at_end(body)
        below = b.sub(k, ir.Constant(I64, 1))
        new = self.combine(b, acc, b.load(self._entry(b, below), typ=self.ty))
        k.add_incoming(below, b.block)
        acc.add_incoming(new, b.block)
        b.branch(head)
        b.position_at_end(done)
        return acc


def _merges(b: ir.IRBuilder, blocks, top_ptr, name: str, carried: list, merge) -> tuple:
    """The merges after a block sum: the block count goes up by one, and while its
    bits shifted out are 0, ``merge(b, below, carried) -> carried`` folds the stack
    entry ``below`` (the top, then the next) in. Returns (the new top, carried)."""
    n = b.add(b.load(blocks, typ=I64), ir.Constant(I64, 1))
    b.store(n, blocks)
    top0 = b.load(top_ptr, typ=I64)
    pre, (head, body, done) = _loop_start(b, name)
    t, top = b.phi(I64), b.phi(I64)
    phis = [b.phi(v.type) for v in carried]
    for phi, value in zip([t, top] + phis, [n, top0] + carried):
        phi.add_incoming(value, pre)
    even = b.icmp_unsigned("==", b.and_(t, ir.Constant(I64, 1)), ir.Constant(I64, 0))
    b.cbranch(even, body, done)
    b.position_at_end(body)
    below = b.sub(top, ir.Constant(I64, 1))
    new = merge(b, below, phis)
    for phi, value in zip([t, top] + phis, [b.lshr(t, ir.Constant(I64, 1)), below] + new):
        phi.add_incoming(value, b.block)
    b.branch(head)
    b.position_at_end(done)
    return top, phis


def _loop_start(b: ir.IRBuilder, name: str) -> tuple:
    """(the block before, (head, body, exit)) of a new loop; ``b`` is at its head."""
    pre = b.block
    blocks = tuple(pre.function.append_basic_block(f"{name}_{x}") for x in ("head", "body", "exit"))
    b.branch(blocks[0])
    b.position_at_end(blocks[0])
    return pre, blocks


class Columns:
    """Accumulators for ``width`` adjacent results at once: the column order of a
    reduction (backend/codegen.py, ``KernelBuilder._columns``) walks the reduced axes
    outside and a tile of output columns inside, so a row is read contiguously where
    the reduced axis is strided (a column sum of a C-ordered matrix).

    ``run`` holds each column's partial result. For a pairwise sum a run ends after
    ``STRIDED`` rows and is pushed, a row of ``width`` sums, onto a stack merged like
    ``PairwiseSum``'s, so each column's sum is the same tree as a strided sum's in the
    row order. The stack has ``COLUMN_DEPTH`` rows (a row per bit of the block count),
    so a pairwise sum may run in column order only while ``fits(rows)``.
    ``loop(b, n, init, step)`` is the code generator's counted loop."""

    def __init__(self, entry: ir.IRBuilder, ty: ir.Type, zero: ir.Value, combine,
                 width: int, pairwise: bool, loop) -> None:
        self.ty, self.zero, self.combine, self.width = ty, zero, combine, width
        self.pairwise, self.loop = pairwise, loop
        self.run = entry.alloca(ty, size=ir.Constant(I64, width), name="columns_run")
        if pairwise:
            self.stack = entry.alloca(ty, size=ir.Constant(I64, COLUMN_DEPTH * width),
                                      name="columns_stack")
            self.top = entry.alloca(I64, name="columns_top")
            self.blocks = entry.alloca(I64, name="columns_blocks")
            self.filled = entry.alloca(I64, name="columns_filled")

    def fits(self, b: ir.IRBuilder, rows: ir.Value) -> ir.Value:
        """An i1: whether ``rows`` rows fit the stack (always, but for a pairwise sum)."""
        if not self.pairwise:
            return ir.Constant(ir.IntType(1), 1)
        return b.icmp_signed("<", rows, ir.Constant(I64, STRIDED << (COLUMN_DEPTH - 1)))

    def _at(self, b: ir.IRBuilder, base: ir.Value, i: ir.Value) -> ir.Value:
        return b.gep(base, [i], source_etype=self.ty)

    def _row(self, b: ir.IRBuilder, level: ir.Value) -> ir.Value:
        """The stack's row ``level``."""
        return self._at(b, self.stack, b.mul(level, ir.Constant(I64, self.width)))

    def _each(self, b: ir.IRBuilder, w: ir.Value, fn) -> None:
        def step(bb, i, _):
            fn(bb, i)
            return []
        self.loop(b, w, [], step)

    def reset(self, b: ir.IRBuilder, w: ir.Value) -> None:
        """Empty results for the first ``w`` columns."""
        self._each(b, w, lambda bb, i: bb.store(self.zero, self._at(bb, self.run, i)))
        if self.pairwise:
            for p in (self.top, self.blocks, self.filled):
                b.store(ir.Constant(I64, 0), p)

    def add_to_run(self, b: ir.IRBuilder, w: ir.Value, value_at) -> None:
        """Add one row to the run (``end_row`` follows): ``value_at(b, i)`` is column
        ``i``'s element."""
        def add(bb, i):
            p = self._at(bb, self.run, i)
            bb.store(self.combine(bb, bb.load(p, typ=self.ty), value_at(bb, i)), p)
        self._each(b, w, add)

    def end_row(self, b: ir.IRBuilder, w: ir.Value) -> None:
        """After a row: a full run joins the stack (a pairwise sum)."""
        if not self.pairwise:
            return
        filled = b.add(b.load(self.filled, typ=I64), ir.Constant(I64, 1))
        b.store(filled, self.filled)
        with b.if_then(b.icmp_signed("==", filled, ir.Constant(I64, STRIDED))):
            self._push(b, w)
            b.store(ir.Constant(I64, 0), self.filled)

    def _push(self, b: ir.IRBuilder, w: ir.Value) -> None:
        """The run joins the stack, merged with its top once per trailing zero bit of
        the new block count (as ``PairwiseSum.push``); the run starts again."""
        def merge(bb, below, _):
            row = self._row(bb, below)

            def fold(b2, i):
                p = self._at(b2, self.run, i)
                b2.store(self.combine(b2, b2.load(self._at(b2, row, i), typ=self.ty),
                                      b2.load(p, typ=self.ty)), p)
            self._each(bb, w, fold)
            return []
        top, _ = _merges(b, self.blocks, self.top, "columns_merge", [], merge)
        row = self._row(b, top)

        def move(bb, i):
            p = self._at(bb, self.run, i)
            bb.store(bb.load(p, typ=self.ty), self._at(bb, row, i))
            bb.store(self.zero, p)
        self._each(b, w, move)
        b.store(b.add(top, ir.Constant(I64, 1)), self.top)

    def finish(self, b: ir.IRBuilder, w: ir.Value, store) -> None:
        """``store(b, i, result)`` for each column: its run, then the stack from its top
        down (as ``PairwiseSum.total``).  With the stack empty (fewer rows than a run:
        the usual case) a loop of its own, which LLVM vectorises: the columns' loop
        around the stack's kept an epilogue scalar (a distance matrix's square roots)."""
        def run_only(bb, i):
            store(bb, i, bb.load(self._at(bb, self.run, i), typ=self.ty))
        if not self.pairwise:
            self._each(b, w, run_only)
            return
        with b.if_else(b.icmp_signed("==", b.load(self.top, typ=I64), ir.Constant(I64, 0))) \
                as (empty, stacked):
            with empty:
                self._each(b, w, run_only)
            with stacked:
                self._stacked(b, w, store)

    def _stacked(self, b: ir.IRBuilder, w: ir.Value, store) -> None:
        def one(bb, i):
            def level(b2, k, carried):
                below = b2.sub(b2.load(self.top, typ=I64), b2.add(k, ir.Constant(I64, 1)))
                x = b2.load(self._at(b2, self._row(b2, below), i), typ=self.ty)
                return [self.combine(b2, carried[0], x)]
            acc = bb.load(self._at(bb, self.run, i), typ=self.ty)
            store(bb, i, self.loop(bb, bb.load(self.top, typ=I64), [acc], level)[0])
        self._each(b, w, one)
