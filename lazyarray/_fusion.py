"""Fused regions of the native steps (backend/fuse.ll): what the native code needs from
Python.

When a new structure runs in steps natively (``_steps.quick``), its elementwise nodes
are not each a one-op program: a node whose building block is loaded, whose sources
share one dtype and are arrays of its own shape (or leading-axis slices of values) or
float64, float32 or int64 scalars, runs together with the fused nodes only it reads,
block by block on the building blocks (one call per op per block, the intermediates in
cache-sized registers, as the interpreter runs a kernel), and only the region's root
gets a value.  Regions are planned ``FUSE_MAX`` nodes of the order at a time.  No program
is looked up, planned or made for it, so an op never seen before runs at once too.  A
node that something outside the graph holds (an Array in a variable) is a region's root:
it gets its value, as every step's node does.

``LAZYARRAY_FUSE=0`` (or false, no, off) at import turns fused regions off (the steps
run one-op programs as before).
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from .backend import ir, library, threads
from .backend.bytecode import REG_BYTES, ew_key
from .backend.recorder import C_FUSE_MAX, FUSE_MAX

# (op, dtype, source dtype) -> (building block address, numpy dtype, item size, source
# item size, source numpy dtype), or None when that op is not fused; filled by ``entry``
# (the native code's misses)
TABLE: dict = {}
# (op, dtype) -> (init, acc, hred, mean (0: none) building blocks' addresses, lanes, numpy
# dtype, item size, the strided copy's address) for a reduction the native steps run
# (backend/reduce.ll), or None when they do not; filled by ``reduction``
REDUCTIONS: dict = {}
# nodes run in fused regions, and reductions run on the building blocks, since the
# process began (the native code adds to them)
COUNT = np.zeros(2, dtype=np.int64)
CONTEXTS: list = []  # the context words of the native functions that run steps, once installed
_FUSED_OPS = ir.UNARY | ir.BINARY | ir.TERNARY  # (ternary: where, on a bool condition)


def enabled() -> bool:
    return not threads.switched_off("LAZYARRAY_FUSE")


def largest() -> int:
    """How many nodes of the steps' order (computed nodes, views included) the native code
    plans regions for at a time: a longer graph is planned window by window."""
    return FUSE_MAX if enabled() else 0


def entry(op, dtype, sdtype) -> Optional[tuple]:
    """The table's entry of ``op`` from ``sdtype`` to ``dtype``, put in the table when it
    is final (None while the building blocks are not loaded: asked again later)."""
    # An entry once put is never replaced (setdefault): the native code holds entries it
    # read without a reference of its own while another thread may ask for the same key.
    key = (op, dtype, sdtype)
    if op not in _FUSED_OPS:
        return TABLE.setdefault(key, None)
    address = library.loaded_address(ew_key(op, dtype, sdtype))
    if not address:
        if library.bundle_loaded():
            return TABLE.setdefault(key, None)  # no such building block
        return None
    return TABLE.setdefault(key, (address, dtype.np, dtype.itemsize, sdtype.itemsize, sdtype.np))


def reduction(op, dtype) -> Optional[tuple]:
    """The reductions' entry of ``op`` over the leading or trailing axes of a value of
    ``dtype``, put in the table when it is final (None while the building blocks are not
    loaded).  The lanes are the interpreter's (a register of REG_BYTES over at least
    8-byte elements, bytecode's K_BLOCK), so the result has the interpreted program's
    bits; a complex product, which the interpreter folds in order, is not taken."""
    key = (op, dtype)
    if op not in ir.REDUCE or (op is ir.Op.PROD and dtype.name.startswith("complex")):
        return REDUCTIONS.setdefault(key, None)
    keys = [(k, op.value, dtype.name) for k in ("init", "acc", "hred")]
    keys.append(("mean", dtype.name) if op is ir.Op.MEAN else None)
    keys.append(("copy", str(dtype.itemsize)))
    init, acc, hred, mean, gather = (k and library.loaded_address(k) for k in keys)
    if not (init and acc and hred and gather and (mean or op is not ir.Op.MEAN)):
        if library.bundle_loaded():
            return REDUCTIONS.setdefault(key, None)  # no such building block
        return None
    lanes = REG_BYTES // max(8, dtype.itemsize)
    return REDUCTIONS.setdefault(key, (init, acc, hred, mean or 0, lanes, dtype.np,
                                       dtype.itemsize, gather))


# views that read their source's elements in order: a region reads a C-contiguous value
# through them where it lies
RESHAPES = frozenset({ir.Op.RESHAPE, ir.Op.EXPAND_DIMS, ir.Op.SQUEEZE})


def broadcast(value, base_shape: tuple, shape: tuple) -> np.ndarray:
    """The value of a broadcast view that a fused region reads (backend/fuse.ll): ``value``
    (its base's, or the value its base reshapes) as ``base_shape``, broadcast to ``shape``,
    C-contiguous (a region reads its operands where they lie)."""
    return np.ascontiguousarray(np.broadcast_to(np.reshape(value, base_shape), shape))


def fused_count() -> int:
    return int(COUNT[0])


def reduced_count() -> int:
    return int(COUNT[1])


def set_largest(count: int) -> int:
    """Plan fused regions ``count`` nodes at a time from now on (0: none; at most
    ``FUSE_MAX``); returns the previous window (for tests that compare)."""
    if not CONTEXTS:
        return 0
    before = int(CONTEXTS[0][C_FUSE_MAX])
    for ctx in CONTEXTS:
        ctx[C_FUSE_MAX] = max(0, min(int(count), FUSE_MAX))
    return before
