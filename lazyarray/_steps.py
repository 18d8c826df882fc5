"""Steps: a small structure met for the first time runs op by op.

Planning a program (its walk, schedule, program code and binding) costs about
175 us of Python however small the graph, and about 10 us more per node.  A
program that meets many structures once (a library's validation checks, a
Python loop whose graph changes each time, a long recorded chain) paid that for
every structure.  So the first evaluation of a structure whose arrays are all
small may run it as *steps*: each computed node in turn (its views folded into
it) is a one-op program, which is planned once per op, dtype and shape and then
runs through its signature's front door in a few microseconds, as MLX runs its
prebuilt kernels one primitive at a time (``wanted`` tells which graphs may).
Steps whose one-op programs are known just run; from one that is not, the next
``WINDOW`` are predicted and priced against a plan (``run``, ``_cheaper``), and
what is left is planned whole if that is cheaper.  The same structure met again is
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

import math
import sys
import threading
import weakref
from collections import deque
from typing import Callable, Optional

import numpy as np

from . import _live
from .backend import ir, library, threads
from .backend.cache import PROGRAMS, keyed_walk
from .backend.ir import VIEW
from .backend.recorder import SEEN_MAX

STEP_MAX = 1 << 15  # elements of a graph's largest array for its first evaluation in steps
_SEEN_MAX = SEEN_MAX  # structures remembered as evaluated in steps (then forgotten at once)
# hashes of the structures (graph key, outputs) evaluated in steps: a key holds a part per
# node (a 10^6-op chain's, about 100 MB), and a collision only plans a structure whole
_SEEN: set = set()
_VIEW = VIEW
PROGRAMS.clear_listeners.append(_SEEN.clear)  # a structure is new again once forgotten


def _counter(i: int, doc: str) -> property:
    def get(self) -> int:
        return int(self.data[i])

    def put(self, value: int) -> None:
        self.data[i] = value
    return property(get, put, doc=doc)


class Counts:
    """Evaluations in steps, and the steps they ran: in an array the native steps add
    to (``data``)."""

    __slots__ = ("data",)

    def __init__(self) -> None:
        self.data = np.zeros(2, dtype=np.int64)

    evaluations = _counter(0, "evaluations in steps")
    steps = _counter(1, "the steps they ran")


COUNTS = Counts()
# cb((graph key, outputs), node count) for each evaluation in steps (lazyarray/_diagnostics.py);
# for one found without a walk, the key is a function giving it, and the listeners are told
# only while the logging package is imported (they log: the native steps ask no more)
LISTENERS: list = []
_local = threading.local()


def stepping() -> bool:
    """Whether this thread is running steps now (a one-op program made now is a step's)."""
    return getattr(_local, "depth", 0) > 0


def enabled() -> bool:
    """Steps are on unless ``LAZYARRAY_STEPS`` is 0 or a tier is forced, once the building
    blocks' bundle is loaded (on a new machine, each step's missing building block would
    be a quick compile of its own, where a whole program compiles them as one)."""
    if threads.none_set(_SWITCHES):  # (every evaluation of a new structure asks)
        return library.bundle_loaded()
    if threads.switched_off("LAZYARRAY_STEPS"):
        return False
    return threads.env("LAZYARRAY_TIER").strip().lower() in ("", "auto") and \
        library.bundle_loaded()


_SWITCHES = ("LAZYARRAY_STEPS", "LAZYARRAY_TIER")


# The choice, in microseconds of Python (measured on the benchmark machine): a step whose
# one-op program is known by signature costs about 3, one planned now about 175; a whole
# program about 175 plus 10 a node.
KNOWN_COST, NEW_COST, PLAN_COST, NODE_COST = 3, 175, 175, 10
# One-op programs that graphs planned whole wanted before count as known: made now, they
# serve the graphs after.  At most WANTED_MAX of them a graph: beyond, each is priced as
# new (a scikit-learn fit's second graph of 58 nodes made 20, 9 ms where its plan took 2).
WANTED_MAX = 8
_WANTED: set = set()  # predicted one-op signatures that graphs planned whole wanted
PROGRAMS.clear_listeners.append(_WANTED.clear)


def wanted(nodes: list, gkey: tuple, known: Callable[[tuple], bool]) -> bool:
    """True when the walked graph ``nodes`` (structural key and outputs ``gkey``) may run
    in steps now: at least two computed nodes other than views, every array at most
    ``STEP_MAX`` elements, its structure neither planned (``known``) nor run in steps
    before.  Records the structure as run in steps.  Whether the steps are cheaper than
    a plan is told by ``run`` at the first step whose one-op program is not known."""
    # the cheap tests first: most graphs met here are known structures (a stale signature)
    if not enabled() or known(gkey):
        return False
    steps = views = 0
    prod = math.prod
    for n in nodes:
        if n.value is None and n.srcs:
            if prod(n.shape) > STEP_MAX:
                return False
            steps += 1
            views += n.op in _VIEW
    seen = hash(gkey)
    if steps - views < 2 or seen in _SEEN:
        return False
    if len(_SEEN) >= _SEEN_MAX:
        _SEEN.clear()
    _SEEN.add(seen)
    return True


def _cheaper(steps: list, roots: set, fast: dict) -> bool:
    """Whether running ``steps`` (the computed nodes still to run, views included, in
    topological order) one by one is predicted to cost less than planning them whole;
    when not, the one-op programs they would want are remembered (``_WANTED``): planned
    whole now, the next graphs that want them count them as known."""
    new = _predict(steps, roots, fast)
    made = set(new)  # a one-op program made for one step serves its repeats (a chain's)
    made.discard(None)
    fresh = sum(1 for i in made if i not in _WANTED)
    planned = sum(1 for i in new if i is None) + fresh
    over = max(0, len(made) - fresh - WANTED_MAX)  # recurring ones past the cap
    cost = NEW_COST * (planned + over) + KNOWN_COST * (len(steps) - planned - over)
    if cost <= PLAN_COST + NODE_COST * len(steps):
        return True
    if len(_WANTED) >= _SEEN_MAX:
        _WANTED.clear()
    _WANTED.update(i for i in new if i is not None)
    return False


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


WINDOW = 64  # steps predicted at once, from one whose one-op program is not known
_ref = weakref.ref


def run(nodes: list, gkey: tuple, roots: list, known: Callable, compute: Callable,
        what: str, fast: dict, native: bool = True) -> Optional[bool]:
    """Evaluate the walked graph ``nodes`` (topological order, emptied as it goes from
    the first step run, so that no value outlives its readers, and left whole when this
    returns None; ``gkey``: its structural key and outputs) node
    by node: ``known([node])`` runs a node's one-op program by its signature if there is
    one (False if not), ``compute([node], what)`` plans and runs it.  The views among
    ``roots`` are steps too.

    Steps whose one-op programs are known (``fast``: structure id -> program) just run.
    At one that is not, the next ``WINDOW`` steps are predicted (``_cheaper``; a long
    chain pays that once, not per op); if planning them costs less, this returns None
    when no step has run yet (plan the graph whole), False when some have (plan what is
    left whole).  True: done."""
    asked = {id(r) for r in roots}
    counts = COUNTS
    # the views passed (not steps), the last few, weakly (a view holds its source's value,
    # and once its readers ran, nothing else needs it): a prediction reads them
    passed: deque = deque(maxlen=WINDOW)
    ran = False  # a step has run
    until = -1   # the steps up to this position were predicted
    _local.depth = getattr(_local, "depth", 0) + 1
    i = -1
    try:
        if native and len(roots) == 1:
            done = _native_first(roots[0], fast)
            if done is not None:
                return done
        while i + 1 < len(nodes):
            i += 1
            n = nodes[i]
            if ran:  # (until a step runs, no value is made: a None leaves the walk whole)
                nodes[i] = None
            srcs = n.srcs
            if n.value is not None or not srcs:
                continue
            if n.op in _VIEW and id(n) not in asked:
                passed.append(_ref(n))
                continue
            _signed(n, srcs)
            one = [n]
            hit = known(one)
            if not hit and i > until:  # are the next steps worth it?
                until, window = _window(nodes, i + 1)
                views = [v for v in (r() for r in passed) if v is not None]
                worth = _cheaper(views + one + window, asked, fast)
                del window, views  # (their nodes will hold values)
                if not worth:
                    return False if ran else None
                passed.clear()
            if not ran:
                ran = _started(gkey, len(nodes), nodes, i)
            counts.steps += 1
            if not hit:
                compute(one, what)
                if len(nodes) - i > WINDOW and len(roots) == 1 and NATIVE is not None:
                    if _hand_on(roots[0], fast, nodes, i):
                        return True
                    until = i  # (the positions from here on are new)
    finally:
        _local.depth -= 1
    return True


def _native_first(root, fast: dict) -> Optional[bool]:
    """The walked graph of ``root`` run by the native steps first (their fused regions
    and full reductions need no one-op program), for a graph that ``quick`` did not run
    natively: its signature was stale (an evaluation since it was recorded) or a node was
    marked (``_live.keep`` has seen the graph now).  True: all ran; False: some ran, the
    rest is to be planned whole; None: none ran (the Python loop goes on)."""
    if NATIVE is None:
        return None
    ran = NATIVE(root, fast)  # (announces its first step)
    if ran is None or ran == -1:
        return None
    if ran >= 0:
        COUNTS.steps += ran
        return True
    COUNTS.steps += -1 - ran
    return False


def _hand_on(root, fast: dict, nodes: list, i: int) -> bool:
    """The steps after position ``i`` of ``nodes`` run natively, from the first whose
    one-op program was just made (a chain's next ones are the same op): True when all
    ran; False when one is not known, with the rest of ``nodes`` replaced by the nodes
    still to compute, in order, for the Python loop to go on with."""
    del nodes[i + 1:]  # (the native steps free each value as they go)
    # (marked nodes need no check: the walk's _live.keep has seen this graph)
    ran = NATIVE(root, fast, True)  # (continued: announced already)
    if ran is not None and ran >= 0:
        COUNTS.steps += ran
        return True
    if ran is not None:
        COUNTS.steps += -1 - ran
    nodes.extend(_order(root, False) or ())
    return False


# root signature ids of the structures that ``quick`` ran or handed on (their next
# evaluation plans them whole, as ``_SEEN`` makes a walked structure's)
_MET: set = set()
PROGRAMS.clear_listeners.append(_MET.clear)


def quick(root, known: Callable, fast: dict, compute: Callable, what: str) -> Optional[bool]:
    """Evaluate ``root`` in steps without the keyed walk, when its signature is current
    and new: True when done; None when its structure was met before, or its steps were
    priced dearer than a plan (to be planned whole); False when this does not apply or
    stops at a step whose one-op program is not known (``known([node])`` runs one by
    signature, ``fast`` holds them; the steps run so far hold their values, and the
    evaluation goes on through the walk).

    The walk's other work is not needed here: a graph of such a root has no
    placeholder, and nothing needs to be marked as held (``_live.keep``) since every
    step keeps its value; a graph with a marked node (a loop's state met again) takes
    the walk, which notes it.  Natively, a long graph whose first step's one-op program
    is not known (a chain of a new op) has it priced and made here (``compute([node],
    what)``) rather than walked (``_first_made``)."""
    sig = root.sig
    if sig is None or sig[2] != ir.EPOCH or root.value is not None or not enabled():
        return False
    key = sig[0]
    if key in _MET:
        return None
    if NATIVE is not None and not _live.marked_any():
        return _native(root, key, fast, known, compute, what)
    order = _order(root)
    if order is None:
        return False
    _met(key)
    counts, one = COUNTS, [None]
    count = len(order)
    _local.depth = getattr(_local, "depth", 0) + 1
    try:
        for i, n in enumerate(order):
            order[i] = None  # (no value outlives its readers)
            if n.op in _VIEW and n is not root:
                continue
            srcs = n.srcs
            _signed(n, srcs)
            if count:  # the first step: announced while the graph is whole
                if n.sig is None or n.sig[0] not in fast:
                    return False  # (the walk takes over, from the start)
                first_step(root, count)
                count = 0
            one[0] = n
            if not known(one):
                _local.started = True  # the walk takes over: its steps count as these
                return False
            counts.steps += 1
    finally:
        _local.depth -= 1
    return True


def _met(key: int) -> None:
    if len(_MET) >= _SEEN_MAX:
        _MET.clear()
    _MET.add(key)


def _native(root, key: int, fast: dict, known: Callable, compute: Callable,
            what: str) -> bool:
    """``quick``'s walk and loop by the native code (``NATIVE``)."""
    _local.depth = getattr(_local, "depth", 0) + 1
    try:
        ran = NATIVE(root, fast)
    finally:
        _local.depth -= 1
    done = settle(root, key, ran, fast, known, compute, what)
    _local.native = id(root)  # (set last: settle may evaluate other roots)
    return done


def tried_natively(root) -> bool:
    """Whether ``quick``, just now, ran the steps of ``root`` natively (read once: the
    walk's steps need not try them again, ``run``'s ``native``)."""
    last = getattr(_local, "native", None)
    _local.native = None
    return last == id(root)


def settle(root, key: int, ran, fast: dict, known: Callable, compute: Callable,
           what: str) -> bool:
    """``_native``'s rest, given what ``NATIVE(root, fast)`` returned (``ran``; the
    native ``materialize`` calls it too, through ``_program._settled``, unless all steps
    ran): ``quick``'s answer."""
    if ran is None:  # (its _order's None)
        return False
    _met(key)
    whole = False
    if ran == -1:  # the first step is not known
        _local.depth = getattr(_local, "depth", 0) + 1
        try:
            ran, whole = _first_made(root, fast, known, compute, what)
        finally:
            _local.depth -= 1
        if ran is None:
            # (the walk, from the start; planned whole when the steps were priced and
            # found dearer: the walk would price them again, and find the one-op programs
            # that pricing just noted as wanted (_WANTED) known)
            return None if whole else False
    if ran >= 0:
        COUNTS.steps += ran
        return True
    ran = -1 - ran
    COUNTS.steps += ran
    _local.started = ran > 0  # the walk takes over: its steps count as these
    return None if whole else False


def _first_made(root, fast: dict, known: Callable, compute: Callable,
                what: str) -> tuple:
    """For a graph of more than ``WINDOW`` steps whose first step's one-op program is
    not known: the next steps priced against a plan (``_cheaper``, as the walk prices
    them) and, when worth it, that one-op program made and run here and the following
    steps run natively, a few times over (a chain whose leaves' ids were renewed while it
    was recorded, ``ir.clear_ids``, meets its op's program under a second id).  Returns
    (what ``NATIVE`` would, counting these steps too, None when none ran: a short graph,
    or steps not worth it; whether the steps left were priced dearer than a plan)."""
    ran = 0
    for _ in range(_MADE_MAX):
        order = NATIVE(root, None)  # (_order's list, natively)
        if order is None and ran:  # one step left (and views): run or made here
            return ran + _last(root, known, compute, what), False
        if order is None or len(order) <= WINDOW:
            break
        at = next(i for i, n in enumerate(order) if n.op not in _VIEW or n is root)
        n = order[at]
        if not _cheaper(order[:at + WINDOW], {id(root)}, fast):
            return (-1 - ran if ran else None), True
        if not ran:
            first_step(root, len(order))
        del order  # (no value outlives its readers)
        _signed(n, n.srcs)
        compute([n], what)
        ran += 1
        r = NATIVE(root, fast, True)  # (continued: announced already)
        if r is None:  # one step left (and views)
            return ran + _last(root, known, compute, what), False
        if r >= 0:
            return ran + r, False
        ran += -1 - r  # (those that ran natively)
    return (-1 - ran if ran else None), False


_MADE_MAX = 4  # one-op programs ``_first_made`` makes before it leaves the rest to the walk


def _last(root, known: Callable, compute: Callable, what: str) -> int:
    """The steps left below ``root`` when one is (a chain's closing sum), run as the walk
    would run them (one step costs less than its plan): by signature, or made; their
    count."""
    ran = 0
    for n in _order(root, False):
        if n.op in _VIEW and n is not root:
            continue
        _signed(n, n.srcs)
        if not known([n]):
            compute([n], what)
        ran += 1
    return ran


# ``quick``'s walk and loop as native code (backend/steps.ll, installed with the native
# recording by lazyarray/_recording.py): NATIVE(root, fast) is None where ``_order`` is,
# the count of steps run when all ran, -(1 + that count) when one's program is not known;
# NATIVE(root, fast, True) goes on with an evaluation whose first step ran (``_hand_on``:
# not announced again); NATIVE(root, None) is ``_order(root)``
NATIVE = None
VIEW_OPS = _VIEW


class Direct:
    """How the native steps call a one-op program's front door themselves, without its
    leaf runner (``_program._leaf_runner``): its runner (whose ``door``, once open, takes
    the inputs and, if any, the packed scalars), the positions of its inputs and scalars
    among the signature's leaves, and each scalar's slot kind (``SLOT_KINDS``)."""

    __slots__ = ("runner", "inputs", "scalars", "kinds")

    def __init__(self, runner, inputs: tuple, scalars: tuple, kinds: tuple) -> None:
        self.runner, self.inputs, self.scalars, self.kinds = runner, inputs, scalars, kinds


SLOT_KINDS = {"float64": 0, "int64": 1}  # scalars packed natively (a float, an int)


def direct(runner, inputs: list, scalars: list, dtypes: list,
           several: bool = False) -> Optional[Direct]:
    """The ``Direct`` of a one-output program (``several``: of a program of several
    outputs, whose door gives a tuple of them) whose scalars are all float64 or int64
    (the others are packed by the leaf runner); None otherwise."""
    if (len(runner.outputs) > 1) != several:
        return None
    kinds = tuple(SLOT_KINDS.get(d.name, -1) for d in dtypes)
    if -1 in kinds:
        return None
    return Direct(runner, tuple(inputs), tuple(scalars), kinds)


def first_step(root, count: int) -> None:
    """An evaluation of ``root`` without the walk runs its first step (of ``count``
    computed nodes): counted, and announced while the logging package is imported, the
    structure walked only for a listener that wants it (the native steps call this
    then; otherwise they count it themselves)."""
    if LISTENERS and "logging" in sys.modules:  # (walked only for a listener that wants it)
        _counted(lambda: _key(root), count)
    else:
        COUNTS.evaluations += 1


def native_fallback(*args):
    """native_steps(root, fast): a new structure's steps, natively (lazyarray/_steps.py,
    ``NATIVE``)."""
    raise TypeError(f"native_steps expects a Node and a dict, got {len(args)} arguments: "
                    f"{', '.join(type(a).__name__ for a in args)}")


def _key(root) -> tuple:
    """The structural key and outputs of ``root``'s graph (``wanted``'s ``gkey``)."""
    nodes, values, keys, outputs, phs = keyed_walk([root])
    return keys[0], outputs


def _counted(gkey, count: int) -> None:
    """An evaluation in steps runs its first step: counted and announced (``gkey``: the
    structure, or a function giving it, for a listener that wants it)."""
    COUNTS.evaluations += 1
    for cb in LISTENERS:
        cb(gkey, count)


def handed_over() -> bool:
    """Whether ``quick`` ran this thread's evaluation's first steps and handed the rest
    to the walk (read once: its steps count as that evaluation's)."""
    started = getattr(_local, "started", False)
    _local.started = False
    return started


def _order(root, limits: bool = True) -> Optional[list]:
    """The computed nodes below ``root`` (itself included) in topological order; with
    ``limits``, None when one is larger than ``STEP_MAX`` elements or marked
    (``_live``), or when fewer than two are not views."""
    order: list = []
    done: set = set()
    stack = [root]
    marked = _live.marked_any()
    prod, views, ops = math.prod, _VIEW, 0
    while stack:
        n = stack[-1]
        if n in done:
            stack.pop()
            continue
        for s in reversed(n.srcs):  # (the first source first, as the walk's order)
            if s not in done and s.value is None and s.srcs:
                stack.append(s)
        if stack[-1] is n:
            stack.pop()
            done.add(n)
            if n.value is not None or not n.srcs:  # evaluated meanwhile
                continue
            if limits and (prod(n.shape) > STEP_MAX or (marked and _live.is_marked(n))):
                return None
            ops += n.op not in views
            order.append(n)
    return order if ops >= 2 or not limits else None


def _window(nodes: list, start: int) -> tuple:
    """(position of the last, the computed nodes) of the next ``WINDOW`` - 1 computed
    nodes of ``nodes`` from ``start`` (views included)."""
    window = []
    i = start - 1
    for i in range(start, len(nodes)):
        m = nodes[i]
        if m.value is None and m.srcs:
            window.append(m)
            if len(window) == WINDOW - 1:
                break
    return i, window


def _started(gkey: tuple, count: int, nodes: list, i: int) -> bool:
    """The first step runs: counted and announced; the walk from here on is emptied as
    it goes (its first ``i`` nodes are leaves and views, which hold no value made here)."""
    if not handed_over():
        _counted(gkey, count)
    nodes[i] = None
    return True


def step_key(n, leaves: tuple) -> Optional[int]:
    """The signature id a step of ``n`` would have (``_signed``) when ``n``'s sources are
    all leaves naming ``leaves`` in that order (one op evaluated on its own, remembered
    under its recorded signature: the steps look its program up under this id), else
    None."""
    srcs = n.srcs
    if _view_below(srcs):
        return None
    sig = ir.signature(n.op, n.dtype, n.shape, srcs, n.arg)
    if sig is None or len(sig[1]) != len(leaves) or any(
            a is not b for a, b in zip(sig[1], leaves)):
        return None
    return sig[0]


def _signed(n, srcs: tuple) -> None:
    """Give the step ``n`` (sources ``srcs``) its signature as its sources are now (a
    view below: signed with it, ``_sign``), by which its one-op program is found."""
    if _view_below(srcs):
        _sign(n)
    else:
        n.sig = ir.signature(n.op, n.dtype, n.shape, srcs, n.arg)


def _view_below(srcs: tuple) -> bool:
    """Whether one of a step's sources is computed still (a view the steps pass)."""
    for s in srcs:
        if s.value is None and s.srcs:
            return True
    return False


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
