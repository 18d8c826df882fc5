"""Steps: a small structure met for the first time runs op by op.

Planning a program (its walk, schedule, program code and binding) costs about
175 us of Python however small the graph, and about 10 us more per node.  A
program that meets many structures once (a library's validation checks, a
Python loop whose graph changes each time, a long recorded chain) paid that for
every structure.  So the first evaluation of a structure whose arrays are all
small may run it as *steps*: each computed node in turn (its views folded into
it) is a one-op program, which is planned once per op, dtype and shape and then
runs through its signature's front door in a few microseconds, as MLX runs its
prebuilt kernels one primitive at a time.  It does when the steps are predicted
to cost less than the plan (``wanted``).  The same structure met again is
planned whole (fused kernels, one native call), and compiled once it is hot
(backend/tiers.py).

Steps give the same values as the whole program: each step is one of the
interpreter's or compiler's kernels, and an intermediate held in memory has the
dtype it has in a register, so elementwise results are the same bits; a
reduction may differ by summation order only.  Every intermediate gets its
value (it becomes a leaf, as after ``evaluate``), and each value is dropped as
soon as the nodes reading it have theirs.  ``LAZYARRAY_STEPS=0`` turns steps off;
a forced tier (``LAZYARRAY_TIER``) does too, so that it runs whole programs; so does
a machine whose building blocks are not compiled yet.
"""
from __future__ import annotations

import threading
from typing import Callable

from .backend import ir, library, threads
from .backend.cache import PROGRAMS
from .backend.ir import VIEW

STEP_MAX = 1 << 15  # elements of a graph's largest array for its first evaluation in steps
_SEEN_MAX = 4096    # structures remembered as evaluated in steps (then forgotten at once)
# hashes of the structures (graph key, outputs) evaluated in steps: a key holds a part per
# node (a 10^6-op chain's, about 100 MB), and a collision only plans a structure whole
_SEEN: set = set()
_VIEW = VIEW
PROGRAMS.clear_listeners.append(_SEEN.clear)  # a structure is new again once forgotten


class Counts:
    """Evaluations in steps, and the steps they ran."""

    def __init__(self) -> None:
        self.evaluations = self.steps = 0


COUNTS = Counts()
# cb((graph key, outputs), node count) for each evaluation in steps (lazyarray/_diagnostics.py)
LISTENERS: list = []
_local = threading.local()


def stepping() -> bool:
    """Whether this thread is running steps now (a one-op program made now is a step's)."""
    return getattr(_local, "depth", 0) > 0


def enabled() -> bool:
    """Steps are on unless ``LAZYARRAY_STEPS`` is 0 or a tier is forced, once the building
    blocks' bundle is loaded (on a new machine, each step's missing building block would
    be a quick compile of its own, where a whole program compiles them as one)."""
    if threads.env("LAZYARRAY_STEPS").strip().lower() in ("0", "false", "no", "off"):
        return False
    return threads.env("LAZYARRAY_TIER").strip().lower() in ("", "auto") and \
        library.bundle_loaded()


# The choice, in microseconds of Python (measured on the benchmark machine): a step whose
# one-op program is known by signature costs about 3, one planned now about 175; a whole
# program about 175 plus 10 a node.
KNOWN_COST, NEW_COST, PLAN_COST, NODE_COST = 3, 175, 175, 10
_WANTED: set = set()  # predicted one-op signatures that graphs planned whole wanted
PROGRAMS.clear_listeners.append(_WANTED.clear)


def wanted(nodes: list, gkey: tuple, known: Callable[[tuple], bool], fast: dict) -> bool:
    """True when the walked graph ``nodes`` (structural key and outputs ``gkey``) should
    run in steps now: at least two computed nodes other than views, every array at most
    ``STEP_MAX`` elements, its structure neither planned (``known``) nor run in steps
    before, and its steps cheaper than its plan: their one-op programs' signatures are
    predicted and looked up in ``fast`` (structure id -> program).  A one-op program not
    there counts as known once graphs planned whole wanted it before (it recurs: planned
    now, it serves the next graphs).  Records the structure as run in steps."""
    # the cheap tests first: most graphs met here are known structures (a stale signature)
    if not enabled() or known(gkey):
        return False
    steps = []
    for n in nodes:
        if n.value is None and n.srcs:
            size = 1
            for d in n.shape:
                size *= d
            if size > STEP_MAX:
                return False
            steps.append(n)
    seen = hash(gkey)
    if len(steps) - sum(1 for n in steps if n.op in _VIEW) < 2 or seen in _SEEN:
        return False
    new = _predict(steps, {id(nodes[i]) for i in gkey[1]}, fast)
    made = set(new)  # a one-op program made for one step serves its repeats (a chain's)
    made.discard(None)
    planned = sum(1 for i in new if i is None) + sum(1 for i in made if i not in _WANTED)
    cost = NEW_COST * planned + KNOWN_COST * (len(steps) - planned)
    if cost > PLAN_COST + NODE_COST * len(steps):
        if len(_WANTED) >= _SEEN_MAX:
            _WANTED.clear()
        _WANTED.update(i for i in new if i is not None)
        return False
    if len(_SEEN) >= _SEEN_MAX:
        _SEEN.clear()
    _SEEN.add(seen)
    return True


def _predict(steps: list, roots: set, fast: dict) -> list:
    """The predicted signature ids of the steps among ``steps`` (computed nodes in
    topological order) whose one-op programs ``fast`` lacks: each node's signature as it
    will be when its sources hold values (a stand-in leaf each)."""
    would: dict = {}  # id(node) -> its signature once it holds a value (views: their own)
    new = []
    signature_of, leaf_id = ir.signature_of, ir.leaf_id
    for n in steps:
        sigs = [would[id(s)] if id(s) in would else s.sig for s in n.srcs]
        sig = signature_of(n.op, n.dtype, n.shape, sigs, n.arg)
        if n.op in _VIEW and id(n) not in roots:
            would[id(n)] = sig
            continue
        if sig is None or sig[0] not in fast:
            new.append(None if sig is None else sig[0])
        would[id(n)] = (leaf_id(n.op, n.dtype, n.shape), (object(),), ir.NEVER)
    return new


def run(nodes: list, gkey: tuple, roots: list, known: Callable, compute: Callable,
        what: str) -> None:
    """Evaluate the walked graph ``nodes`` (topological order, emptied as it goes, so
    that no value outlives its readers; ``gkey``: its structural key and outputs) node
    by node: ``known([node])`` runs a node's one-op program by its signature if there is
    one (False if not), ``compute([node], what)`` plans and runs it.  The views among
    ``roots`` are steps too."""
    for cb in LISTENERS:
        cb(gkey, len(nodes))
    asked = {id(r) for r in roots}
    counts = COUNTS
    counts.evaluations += 1
    signature = ir.signature
    _local.depth = getattr(_local, "depth", 0) + 1
    try:
        for i, n in enumerate(nodes):
            nodes[i] = None
            srcs = n.srcs
            if n.value is not None or not srcs or (n.op in _VIEW and id(n) not in asked):
                continue
            for s in srcs:
                if s.value is None and s.srcs:  # a view below: signed with it
                    _sign(n)
                    break
            else:
                n.sig = signature(n.op, n.dtype, n.shape, srcs, n.arg)
            counts.steps += 1
            one = [n]
            if not known(one):
                compute(one, what)
    finally:
        _local.depth -= 1


def _sign(node) -> None:
    """Give ``node`` and the views below it the signatures of their sources as they
    are now (values: leaves), so its one-op program is found by signature."""
    stack, order, met = [node], [], set()
    while stack:
        n = stack.pop()
        order.append(n)
        for s in n.srcs:
            if s.value is None and s.srcs and id(s) not in met:  # a view (the steps
                met.add(id(s))                                   # before it have values)
                stack.append(s)
    for n in reversed(order):
        srcs = n.srcs
        if srcs:
            n.sig = ir.signature(n.op, n.dtype, n.shape, srcs, n.arg)
