"""Live arrays: computed nodes that an evaluation would compute again are kept as values.

Without this, a loop that reads a scalar every iteration (``float(loss)``) while its
state (``w = w - lr * grad``) is never evaluated recomputes the whole history at every
read: O(k) work at iteration k.  PyTorch's lazy tensors materialize every live tensor at
a sync point for the same reason.  Keeping every held node at once would cost the
fusion that straight-line code lives on (a pricing formula's intermediates sit in local
variables when its sum is read: keeping them all made one kernel seven), so a node is
kept the second time an evaluation computes it:

* an evaluation *marks* the computed nodes of its graph that something outside the
  graph still holds (an ``Array`` the user keeps, a node of another graph, a
  container): they may be needed again;
* an evaluation that meets a marked node computes it again, and this time keeps its
  value, so no third evaluation computes it.

"Held" is read from reference counts when the graph is walked (the walk knows how
often each node is a source inside the graph; any reference beyond those and the
walk's own is a holder), so recording costs nothing.  A loop's graph then spans two
iterations, not its whole history.  Views of leaves (slices, reshapes, broadcasts of
data) are never kept: recomputing them is free.  Nor is a node larger than the largest
array the graph reads or computes for its outputs: keeping it would allocate memory
the program did not need (an outer product of two vectors summed to a scalar), and
may not fit at all.
"""
from __future__ import annotations

import math
import sys
import weakref

from .backend.ir import VIEW, Node, Op
from . import _dtypes as dt

_VIEW_OPS = frozenset(op.value for op in VIEW)
_marked: dict = {}  # id(node) -> weak reference to it, for the nodes marked (see above)


def _held(nodes: list, uses: list, positions: list):
    """Each node at ``positions`` with its references beyond its uses as a source (see
    ``_BASE``); only the nodes that could be kept are counted."""
    count = sys.getrefcount
    for i in positions:
        yield i, count(nodes[i]) - uses[i]


def _calibrate() -> int:
    """References a node held by nobody has inside ``_held`` (the list, getrefcount's
    argument; measured, since Python versions differ)."""
    probe = [Node(Op.DATA, dt.float64, (), (), None, 0.0, None)]
    return next(_held(probe, [0], [0]))[1]


_BASE = _calibrate()


def keep(nodes: list, values: list, parts: tuple, outputs: tuple) -> list:
    """Positions of the computed nodes of a walked graph (``cache.keyed_walk``) to compute
    with ``outputs`` and keep, marking the held ones not kept (see above)."""
    outs = set(outputs)
    largest = max([math.prod(nodes[i].shape) for i in outs] +
                  [v.size for v in values if v is not None and hasattr(v, "size")])
    uses = [0] * len(nodes)
    free = [False] * len(nodes)
    candidates = []
    prod, views = math.prod, _VIEW_OPS
    for i, part in enumerate(parts):
        if len(part) < 5:  # a leaf
            free[i] = True
            continue
        srcs = part[4]
        for p in srcs:
            uses[p] += 1
        if part[0] in views and all(free[p] for p in srcs):
            free[i] = True
        elif values[i] is None and i not in outs and prod(nodes[i].shape) <= largest:
            candidates.append(i)
    kept, marked = [], _marked
    for i, extra in _held(nodes, uses, candidates):
        node = nodes[i]
        if marked and id(node) in marked and marked[id(node)]() is node:
            kept.append(i)
        elif extra > _BASE:
            _mark(node)
    return kept


def _mark(node: Node) -> None:
    key = id(node)
    _marked[key] = weakref.ref(node, lambda _, key=key: _marked.pop(key, None))
