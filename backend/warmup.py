"""The planner's warm-up: a few small graphs taken through every planning stage once.

A new process's first evaluations ran the planner's Python code cold: its functions
unspecialised by CPython's adaptive interpreter, its memo tables empty.  A scikit-learn
MinMaxScaler's first fit executed 14.2 million instructions on the calling thread, 11.3
million once another fit had planned other structures before it.  ``run`` plans graphs
of the kinds such code meets (reductions along an axis and over all axes, broadcasting,
comparisons, ``where``, slicing, a cast, a matrix product) on a background thread at a
quiet moment (lazyarray's import queues it, backend/native.py ``STORE.later``): after
it, that fit's first run executed 12.9 million.

Nothing it does is visible: the graphs are built here from bare nodes (no signature,
no structure id), planned through the stages a cache miss takes
(``cache.ProgramCache.runner``: the schedule, program code, binding) and dropped; the
program code is built without the GEMM routines' addresses.  No cache, counter, epoch or
log sees them, and nothing runs.  It does nothing unless the building blocks are loaded
(linking would compile the missing ones).
"""
from __future__ import annotations

import numpy as np

from . import bytecode, library, runtime
from .cache import keyed_walk, planned, snapshot_of
from .ir import SCALAR_TYPES, Node, Op

RUNS = [0]  # warm-ups done in this process (tests read it)

_F64, _F32, _BOOL = SCALAR_TYPES["float64"], SCALAR_TYPES["float32"], SCALAR_TYPES["bool"]


def _node(op: Op, dtype, shape: tuple, srcs: tuple = (), arg=None, value=None) -> Node:
    return Node(op, dtype, shape, srcs, arg, value, None)


def _scalar(v: float, dtype=_F64) -> Node:
    return _node(Op.SCALAR, dtype, (), value=v)


def _graphs() -> list:
    """Roots of graphs in the shapes a small 2-D array's column statistics, scalers and
    checks take (``x`` is 20x5)."""
    x = _node(Op.DATA, _F64, (20, 5), value=np.ones((20, 5)))
    col = (20, 5)

    def reduce(op, src, axes, keep, shape, dtype=_F64):
        return _node(op, dtype, shape, (src,), (axes, keep))

    def ew(op, *srcs, dtype=_F64, shape=col):
        return _node(op, dtype, shape, srcs)

    def bcast(src):
        return _node(Op.BROADCAST_TO, _F64, col, (src,))
    mean0 = reduce(Op.MEAN, x, (0,), False, (5,))
    centred = ew(Op.SUBTRACT, x, bcast(mean0))
    var = ew(Op.DIVIDE, reduce(Op.SUM, ew(Op.MULTIPLY, centred, centred), (0,), False, (5,)),
             _scalar(20.0), shape=(5,))
    scaled = ew(Op.DIVIDE, centred, bcast(ew(Op.SQRT, var, shape=(5,))))
    finite = reduce(Op.ALL, ew(Op.ISFINITE, x, dtype=_BOOL), (0, 1), False, (), _BOOL)
    maxabs = reduce(Op.MAX, ew(Op.ABS, x), (0,), False, (5,))
    span = ew(Op.SUBTRACT, reduce(Op.MAX, x, (1,), True, (20, 1)),
              reduce(Op.MIN, x, (1,), True, (20, 1)), shape=(20, 1))
    sliced = ew(Op.MULTIPLY, _node(Op.SLICE, _F64, (20, 2), (x,),
                                   (("s", None, None, 1), ("s", 1, 3, 1))),
                _scalar(2.0), shape=(20, 2))
    where = ew(Op.WHERE, ew(Op.GREATER, x, _scalar(0.0), dtype=_BOOL), x, _scalar(0.0))
    cast = ew(Op.ADD, _node(Op.ASTYPE, _F32, col, (x,)), _scalar(1.0, _F32), dtype=_F32)
    gram = _node(Op.MATMUL, _F64, (20, 20), (x, _node(Op.PERMUTE_DIMS, _F64, (5, 20), (x,),
                                                      (1, 0))))
    total = reduce(Op.SUM, x, (0, 1), False, ())
    return [[scaled], [finite], [maxabs, span], [sliced], [where], [cast], [gram], [total]]


def _resolve(key: tuple) -> int:
    # a GEMM routine is not asked for: that would load it from disk, or compile it
    return 0 if key[0] == "gemm" else library.resolve(key)


def run() -> None:
    """Plan the warm-up graphs once (see the module doc); a no-op before the building
    blocks are loaded."""
    if not library.bundle_loaded():
        return
    for roots in _graphs():
        nodes, values, keys, outputs, _ = keyed_walk(roots)
        snap = snapshot_of(nodes, values, keys[0])
        sched = planned(snap, outputs, keys[0])
        bytecode.build(sched, _resolve)  # (what library.link does once the bundle is loaded)
        runtime.bind(sched, snap, {})
    RUNS[0] += 1
