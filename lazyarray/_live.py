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

States.  A node kept because it was met again is taken for a loop's state: its kind
(``state_key``: op, dtype, shape, parameter and its sources' ops, dtypes and shapes)
goes into ``STATES``, and a node of that kind that the user holds, recorded since the
last materialization, is computed and kept the first time an evaluation meets it (it is
a candidate below, found inside the targets' graph).  A marked node that is then asked
for itself (``c, ma, d = f(x)`` read in that order, ``ma`` an intermediate of ``d``) is
met again too.  So ``acc = acc + v;
float(sum(acc))`` computes one step per iteration, and its graph has one fresh
structure whose program runs without a walk.

Held nodes that the program writes to a buffer of its own anyway (``buffered``: a
reduction read by a larger elementwise op, a matrix product) are kept the first time:
that costs no kernel, only the buffer's survival.  Their kinds become states too.

Siblings.  A loop that updates its state before reading its loss (``w, loss =
step(w); float(loss)``) holds the new state, unevaluated, when the loss is read: the
next loss then reads a state recorded before that evaluation, so its graph spans two
iterations and its signature is stale (``ir.EPOCH``): every read walks and plans it.
So an evaluation also computes its targets' *siblings*: the arrays recorded since the
last materialization that the user still holds and nothing else uses (no node of any
graph holds their node: read from its reference count), that read a node the
targets' graph computes other than a target (``sharing``: evaluated later, they would
compute it again), and that are no larger than the largest array the targets read or
compute.  Every iteration then starts from evaluated state and its graph is the same
fresh structure: the joint signature's program runs it without a walk (a joint
program exists only for candidates a walk admitted).  ``RECENT`` remembers the
recorded arrays by weak reference, at most ``RECENT_MAX`` of them (the latest), and
each materialization empties it.  A sibling whose computation fails leaves the
targets computed alone: its error is raised when it is itself evaluated.  (An array
that is a view keeps its base's Array, which holds the same node: never a sibling.)
"""
from __future__ import annotations

import math
import sys
import weakref
from collections import deque

import numpy as np

from .backend import ir
from .backend.ir import VIEW, Node, Op
from . import _dtypes as dt

_object_getattribute = object.__getattribute__

_VIEW_OPS = frozenset(op.value for op in VIEW)
_marked: dict = {}  # id(node) -> weak reference to it, for the nodes marked (see above)
STATES: set = set()  # kinds (state_key) of nodes kept when met again (see above)
_MAX_STATES = 4096
RECENT_MAX = 256
RECENT: deque = deque(maxlen=RECENT_MAX)  # weak references to arrays recorded (see above)


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


def keep(nodes: list, values: list, parts: tuple, outputs: tuple) -> tuple:
    """(positions of the computed nodes of a walked graph (``cache.keyed_walk``) to
    compute with ``outputs`` and keep, positions of the held ones not kept), marking
    the latter (see above)."""
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
    kept, held = [], []
    if _marked:  # a marked node asked for itself is met again too: a state
        for i in outs:  # (moving averages' ma = (c[w:] - c[:-w]) / w, read after c and x - ma)
            if _is_marked(nodes[i]):
                _note_state(nodes[i])
    for i, extra in _held(nodes, uses, candidates):
        node = nodes[i]
        if _marked and _is_marked(node):
            kept.append(i)
            _note_state(node)  # a state: its next versions are kept at once
        elif extra > _BASE:
            _mark(node)
            held.append(i)
    return kept, held


def buffered(nodes: list, held: list, sched) -> list:
    """Those of the held nodes at positions ``held`` (``keep``) that ``sched`` writes to
    a buffer of their own anyway (a reduction that a larger elementwise op reads, a
    matrix product): keeping them costs no kernel, only the buffer's survival.  Their
    kinds become states (see above), so the next graph of the same code keeps them too
    and has one fresh structure."""
    slots = set(sched.buffers[sched.n_inputs:]) - sched.unwritten
    found = [i for i in held if i in slots]
    for i in found:
        _note_state(nodes[i])
    return found


def _note_state(node: Node) -> None:
    key = state_key(node)
    if key is not None:
        if len(STATES) >= _MAX_STATES:
            STATES.clear()
        STATES.add(key)


def state_key(node: Node):
    """What tells a loop's state from its next version (``STATES``): the node's op,
    dtype, shape and parameter and those of its sources (its signature would not do:
    it spans the history recorded before the state was first kept); None when its
    parameter cannot be hashed."""
    key = (node.op, node.dtype, node.shape, node.arg,
           tuple([(s.op, s.dtype, s.shape) for s in node.srcs]))
    try:
        hash(key)
    except TypeError:
        return None
    return key


def _is_marked(node: Node) -> bool:
    ref = _marked.get(id(node))
    return ref is not None and ref() is node


is_marked = _is_marked  # (lazyarray/_steps.py: a marked node is left to the walk)


def marked_any() -> bool:
    """Whether any node is marked (see above)."""
    return bool(_marked)


def _mark(node: Node) -> None:
    key = id(node)
    _marked[key] = weakref.ref(node, lambda _, key=key: _marked.pop(key, None))


class _Holder:
    __slots__ = ("_node",)


def _only_its_array() -> int:
    """References a node held by its Array only has where ``candidates`` counts them
    (the Array's, a local name's, getrefcount's argument: counted the same way, since
    Python versions differ)."""
    holder = _Holder()
    holder._node = Node(Op.DATA, dt.float64, (), (), None, 0.0, None)
    node = _object_getattribute(holder, "_node")
    return sys.getrefcount(node)


_ONLY_ITS_ARRAY = _only_its_array()


def candidates(targets: list) -> list:
    """The nodes that may be siblings (see above) of the nodes ``targets``, in
    recording order: all but the test of a shared computed node (``sharing``, which
    needs the targets' walk); empties ``RECENT``."""
    recent = list(RECENT)  # one C call: another thread's append cannot break it
    RECENT.clear()
    # the cheap tests first: most recorded arrays are gone or used
    alive = [a for ref in recent if (a := ref()) is not None]
    epoch, found, count, only = ir.EPOCH, [], sys.getrefcount, _ONLY_ITS_ARRAY
    for a in alive:
        node = _object_getattribute(a, "_node")
        sig = node.sig
        if sig is None or node.value is not None or node in targets:
            continue
        if count(node) == only:
            if sig[2] == epoch:
                found.append(node)
        elif STATES and state_key(node) in STATES:
            found.append(node)
    if not found:
        return found
    reads, largest = set(), max(_size(t.shape) for t in targets)
    for t in targets:
        if t.sig is not None:
            arrays = [v for v in t.sig[1] if type(v) is np.ndarray]
            # (array leaves only: two graphs that share nothing but a Python float, a
            # constant of the same function, share no computed node)
            reads.update(map(id, arrays))
            largest = max([largest] + [v.size for v in arrays])
    return [n for n in found if n not in targets and 0 < _size(n.shape) <= largest
            and not reads.isdisjoint(map(id, n.sig[1]))]


def _size(shape: tuple) -> int:
    """Elements of a shape; 0 for a symbolic one (never a sibling)."""
    n = 1
    for d in shape:
        if type(d) is not int:
            return 0
        n *= d
    return n


_SEARCH = 64  # nodes a sibling's graph is searched for a shared computed node


def sharing(nodes: list, values: list, targets: list, found: list) -> list:
    """Those of ``found`` (``candidates``) whose graphs read a node the targets' walk
    (``nodes``, ``values``: ``cache.keyed_walk``) computes, other than a target: they
    would compute it again later (the next state reads the gradient the loss
    computed), so they are siblings."""
    inner = {id(n) for n, v in zip(nodes, values) if v is None}
    inner.difference_update(map(id, targets))
    out = []
    for c in found:
        stack, seen, budget = [c], {id(c)}, _SEARCH
        while stack and budget:
            n = stack.pop()
            budget -= 1
            if id(n) in inner:
                out.append(c)
                break
            if n.value is None:
                for src in n.srcs:
                    if id(src) not in seen:
                        seen.add(id(src))
                        stack.append(src)
    return out
