"""Caches: structural graph key -> schedule, schedule signature -> program code.

The graph key is the graph's structure with every buffer (placeholder, data
leaf, evaluated node) and every scalar renumbered positionally: values of
data leaves and scalars, sizes and view parameters never enter it, so new
data and new sizes hit the same entry.  The program-code key is the
schedule's signature, which is coarser still: two graphs that differ only in
their views share one program code (backend/tiers.py), and compiled kernels
are shared at a finer grain still, by each kernel's own structure.
"""
from __future__ import annotations

import gc
import os
import threading
from collections import OrderedDict
from typing import Callable

from . import native, runtime, tiers
from .ir import ARG_REDUCE, MULTIPART, REDUCE, SCALAR_TYPES, SCAN, VIEW, Node, Op
from .epilogue import fuse_epilogues
from .merge import holds, merge
from .sink import sink
from .schedule import Schedule, schedule

MAX_ENTRIES = 1024  # schedules and bound runners; evicted ones are rebuilt
MAX_CODE = 2048     # program codes; an evicted one is rebuilt (its kernels stay compiled)


# Op parameters that change the schedule or the code go into the structural key;
# those that only change sizes, strides and offsets go into the binding key.
_ARG_IN_KEY = REDUCE | ARG_REDUCE | SCAN | {Op.EXTERNAL, Op.GATHER}
_ARG_IN_BINDING = VIEW | MULTIPART


def graph_key(nodes: list) -> tuple:
    """Structural key of a topologically ordered graph (see module doc)."""
    return graph_keys(nodes)[0]


def graph_keys(nodes: list) -> tuple:
    """(structural key, binding key) of a topologically ordered graph.

    The binding key adds what the meta array depends on beyond structure: the
    shapes of buffers and the parameters of views.  Equal binding keys mean
    equal strides and sizes, so a bound runner can be reused.  Every node is
    walked as a root after its sources, so positions follow ``nodes``.
    """
    return keyed_walk(nodes)[2]


def keyed_walk(roots: list) -> tuple:
    """``ir.snapshot`` and ``graph_keys`` in one walk, without copying any node.

    Returns (nodes, values, keys, positions, placeholders): the original nodes
    in the order of the snapshot's graph, the value each held when the walk
    read it (None: computed by this graph), the keys ``graph_keys`` gives for
    the snapshot, the position of each root (a tuple) and the placeholders met.
    Each value is read once, so everything derived from these lists agrees even
    while other threads evaluate nodes; ``snapshot_of`` builds the private copy
    a schedule needs, on a cache miss only.
    """
    try:  # recursion is the faster walk in Python; deep graphs take the iterative one
        return _walk_recursive(roots)
    except (_TooDeep, RecursionError):
        return _walk_iterative(roots)


_MAX_DEPTH = 100  # deepest recursion of _walk_recursive


class _TooDeep(Exception):
    pass


def _walk_recursive(roots: list) -> tuple:
    """``keyed_walk`` by recursion; _TooDeep past ``_MAX_DEPTH`` levels."""
    index: dict = {}  # node (hashed by identity, in C) -> position
    nodes, values, parts, binding, placeholders = [], [], [], [], []
    for root in roots:
        if root not in index:
            _visit(root, 0, index, nodes, values, parts, binding, placeholders)
    return (nodes, values, (tuple(parts), tuple(binding)), tuple(map(index.__getitem__, roots)),
            placeholders)


# Key parts hold only strings, ints and tuples of them (an op by its value, a dtype by
# its name): the collector then stops tracking them, and a cached key costs nothing in
# the full collections that a program making many structures triggers.
#   input:  (0, dtype name, rank)       scalar: (1, dtype name)
#   op:     (op value, dtype name, rank, parameter or None, source positions)

_SCALAR_OP = Op.SCALAR
_SCALAR_PARTS = {t: (1, t.name) for t in SCALAR_TYPES.values()}


def _leaf_part(node, v, binding: list, placeholders: list):
    """Key part of a node the walks do not descend into (a value, a scalar, a
    placeholder), recording its binding; None for a computed node without sources."""
    op = node.op
    if op is _SCALAR_OP:  # the commonest leaf (every ``x * 0.5`` has one): one part a dtype
        return _SCALAR_PARTS[node.dtype]
    if op is Op.DATA or v is not None:
        binding.append(node.shape)
        return (0, node.dtype.name, len(node.shape))
    if op is Op.PLACEHOLDER:
        binding.append(node.shape)
        placeholders.append(node)
        return (0, node.dtype.name, len(node.shape))
    return None


def _op_part(node, positions: tuple, binding: list) -> tuple:
    """Key part of a computed node whose sources sit at ``positions``.  (``_value_`` is
    the enum member's own value: ``op.value`` is a descriptor call, five times the cost.)"""
    op = node.op
    if op in _ARG_IN_BINDING:
        binding.append((node.arg, node.shape))
    return (op._value_, node.dtype.name, len(node.shape), node.arg if op in _ARG_IN_KEY else None,
            positions)


def _visit(node, depth: int, index: dict, nodes: list, values: list, parts: list,
           binding: list, placeholders: list) -> int:
    """Add ``node`` (not yet in ``index``) after its sources; returns its position.
    The walk's state comes as arguments: a closure over it costs more to create
    than the whole walk of a small graph."""
    srcs = node.srcs  # before the value: see ``ir.evaluated``
    v = node.value
    if v is None and srcs:
        if depth > _MAX_DEPTH:
            raise _TooDeep
        pos = []
        for s in srcs:
            i = index.get(s)
            if i is None:
                i = _visit(s, depth + 1, index, nodes, values, parts, binding, placeholders)
            pos.append(i)
        part = _op_part(node, tuple(pos), binding)
    else:
        part = _leaf_part(node, v, binding, placeholders) or _op_part(node, (), binding)
    i = index[node] = len(nodes)
    nodes.append(node)
    values.append(v)
    parts.append(part)
    return i


def _walk_iterative(roots: list) -> tuple:
    """``keyed_walk`` with an explicit stack, for graphs of any depth."""
    with gc_paused():
        return _walk_stack(roots)


def _walk_stack(roots: list) -> tuple:
    index: dict = {}  # node (hashed by identity, in C) -> position; -1 while sources pending
    at = index.__getitem__
    read: dict = {}  # computed node -> the sources its first visit read
    nodes, values, parts, binding, placeholders = [], [], [], [], []
    for root in roots:
        stack = [root]
        while stack:
            node = stack.pop()
            i = index.get(node)
            if i is None:  # first visit
                srcs = node.srcs  # before the value: see ``ir.evaluated``
                v = node.value
                if v is None and srcs:
                    index[node] = -1
                    read[node] = srcs  # what the second visit uses, evaluated meanwhile or not
                    stack.append(node)
                    for s in reversed(srcs):
                        if s not in index:
                            stack.append(s)
                    continue
                part = _leaf_part(node, v, binding, placeholders)
                if part is not None:
                    index[node] = len(nodes)
                    nodes.append(node)
                    values.append(v)
                    parts.append(part)
                    continue
            elif i >= 0:  # reached again through another consumer
                continue
            # sources done (or a computed node without sources)
            index[node] = len(nodes)
            nodes.append(node)
            values.append(None)
            parts.append(_op_part(node, tuple(map(at, read.pop(node, ()))), binding))
    return (nodes, values, (tuple(parts), tuple(binding)), tuple(map(at, roots)), placeholders)


_gc_lock = threading.Lock()
_gc_holders = 0          # threads inside gc_paused
_gc_was_enabled = False  # the collector's state when the first of them came in


class _GCPaused:
    """The context of ``gc_paused`` (a class: a generator-based context manager costs
    about 2 us more a use, and a new structure's evaluation enters several)."""

    __slots__ = ()

    def __enter__(self) -> None:
        global _gc_holders, _gc_was_enabled
        with _gc_lock:
            if _gc_holders == 0:
                _gc_was_enabled = gc.isenabled()
                gc.disable()
            _gc_holders += 1

    def __exit__(self, *exc) -> None:
        global _gc_holders
        with _gc_lock:
            _gc_holders -= 1
            if _gc_holders == 0 and _gc_was_enabled:
                gc.enable()


_GC_PAUSED = _GCPaused()


def gc_paused() -> _GCPaused:
    """The cyclic garbage collector held off while a graph is walked and planned: that
    work allocates an object or more per node, nearly all freed by reference counting,
    and every collection it triggers would traverse the whole graph again (planning a
    100,000-op chain took twice as long).  Nested and concurrent uses are counted; the
    collector's state is restored when the last one leaves."""
    return _GC_PAUSED


def snapshot_of(nodes: list, values: list, key: tuple) -> list:
    """The snapshot (``ir.snapshot``) of a ``keyed_walk``: nodes it found computed are
    copied, the others shared.  ``key`` is its structural key (sources by position)."""
    copies: list = []
    at = copies.__getitem__
    for n, v, part in zip(nodes, values, key):
        if v is None and len(part) == 5 and part[4]:  # (a copy needs no signature)
            n = Node(n.op, n.dtype, n.shape, tuple(map(at, part[4])), n.arg, None, None)
        copies.append(n)
    return copies


def planned(nodes: list, outputs: tuple, key: tuple) -> Schedule:
    """The schedule of the graph ``nodes`` (structural key ``key``) computing ``outputs``,
    through every stage: kernels, epilogues, joins, sinking."""
    return sink(merge(fuse_epilogues(schedule(nodes, list(outputs), key)), nodes))


class Executable:
    """A schedule with its program code and tier state (``tiers.ProgramCode``)."""

    __slots__ = ("schedule", "program")

    def __init__(self, schedule: Schedule, program: object) -> None:
        self.schedule, self.program = schedule, program


class _LRU:
    """A bounded map that evicts entries not used recently (CLOCK, a close
    approximation of LRU): a hit only marks its entry, where moving it to the
    back would hash the key again; eviction gives marked entries a second round.
    ``data`` maps key -> [value, used since its last second round]."""

    def __init__(self, cap: int) -> None:
        self.cap, self.data = cap, OrderedDict()

    def get(self, key):
        e = self.data.get(key)
        if e is None:
            return None
        e[1] = True
        return e[0]

    def put(self, key, value) -> None:
        data = self.data
        data[key] = [value, False]
        data.move_to_end(key)
        while len(data) > self.cap:
            k, e = data.popitem(last=False)
            if e[1]:  # used since it was last here: to the back, unmarked
                e[1] = False
                data[k] = e


class ProgramCache:
    """Process-wide, thread-safe: schedules, program code and bound runners by structure;
    counts hits and misses (new structures)."""

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.schedules = _LRU(MAX_ENTRIES)
        # program code by schedule name; an evicted one lives on in its runners
        self.code = _LRU(MAX_CODE)
        self.runners = _LRU(MAX_ENTRIES)
        # structure id of a root's signature (ir.py) -> what the front end needs to run
        # that structure's program on the signature's leaves (see _program.materialize)
        self.by_signature: dict = {}
        self._inflight: dict = {}
        self.hits = self.misses = 0
        # cb(schedule, (graph key, outputs)) for each new program: plain data, so a front
        # end can say which part of the key was new (lazyarray/_diagnostics.py)
        self.key_listeners: list[Callable] = []
        # called by ``clear``: a front end's own memory of structures goes with the caches
        self.clear_listeners: list[Callable] = []

    def schedule(self, nodes, outputs: tuple, key: tuple | None = None) -> Schedule:
        """The schedule of ``nodes`` computing ``outputs`` (no LLVM work).  ``nodes`` may
        be a function returning the graph, called on a miss only (``key`` then given)."""
        gkey = (key if key is not None else graph_key(nodes), outputs)
        with self.lock:
            sched = self.schedules.get(gkey)
        if sched is not None and sched.premise:  # sizes it assumed equal: are they here?
            if callable(nodes):
                nodes = nodes()
            if not holds(sched.premise, nodes):
                sched = None  # scheduled for these sizes (the latest wins the entry)
        if sched is None:
            if callable(nodes):
                nodes = nodes()
            sched = planned(nodes, outputs, gkey[0])
            with self.lock:
                self.schedules.put(gkey, sched)
        return sched

    def has_schedule(self, gkey: tuple) -> bool:
        """Whether the graph key and outputs ``gkey`` have a schedule (no use is marked)."""
        with self.lock:
            return gkey in self.schedules.data

    def add_outputs(self, sched: Schedule, key: tuple, outputs: tuple, roots: tuple) -> None:
        """Remember ``sched`` (the schedule of graph ``key`` computing ``outputs``) with
        the nodes ``roots``, which it gives buffers, as further outputs: that graph
        computing ``outputs + roots`` is not scheduled again."""
        with self.lock:
            self.schedules.put((key, outputs + roots), sched.with_outputs(roots))

    def executable(self, nodes: list, outputs: tuple, key: tuple | None = None) -> Executable:
        """The schedule and program code of ``nodes`` computing ``outputs``."""
        key = key if key is not None else graph_key(nodes)
        sched = self.schedule(nodes, outputs, key)
        return Executable(sched, self.program(sched, (key, outputs)))

    def runner(self, nodes, outputs: tuple, keys: tuple, env: dict) -> tuple:
        """(a bound runner for ``nodes``, whether it was made now): reused while
        structure and binding key repeat.  A runner made now holds this graph's scalars
        (a reused one, those of the graph it was made for).

        ``nodes`` is the graph, or a function returning it, called on a miss only
        (the caller's private copy of the graph need not be built for a hit).
        """
        rkey = (keys, outputs)
        with self.lock:  # one acquisition: look up and count the hit together
            r = self.runners.get(rkey)
            if r is not None:
                self.hits += 1
                return r, False
        with gc_paused():
            if callable(nodes):
                nodes = nodes()
            exe = self.executable(nodes, outputs, keys[0])
            bound = runtime.bind(exe.schedule, nodes, env)
            r = runtime.Runner(exe.program, exe.schedule, bound,
                               runtime.pack_scalars(exe.schedule, nodes))
        with self.lock:
            self.runners.put(rkey, r)
        return r, True

    def program(self, sched: Schedule, gkey: tuple | None = None):
        """The program code of ``sched`` (a ``tiers.ProgramCode``), made on a miss."""
        name = _code_key(sched)
        with self.lock:
            hit = self.code.get(name)
            if hit is not None:
                self.hits += 1
                return hit
            busy = self._inflight.get(name)
            owner = busy is None
            if owner:  # held while it is made (a lock costs a tenth of an Event)
                busy = self._inflight[name] = threading.Lock()
                busy.acquire()
        if not owner:  # another thread makes it: wait, never make it twice
            with busy:
                pass
            return self.program(sched, gkey)
        try:
            program = tiers.ProgramCode(sched)
            with self.lock:
                self.code.put(name, program)
                self.misses += 1
            for cb in self.key_listeners:
                cb(sched, gkey)
            return program
        finally:
            with self.lock:
                self._inflight.pop(name, None)
            busy.release()

    def ir_modules(self, sched: Schedule) -> list:
        """The LLVM IR of each kernel of a schedule as it is compiled (a module each)."""
        from . import llvm
        variants = llvm.codegen().vector_variants
        return [llvm.build_ir(tiers.kernel_unit(k).builder, variants)
                for k in tiers.kernel_abis(sched)]

    def info(self) -> dict:
        stats, ts = native.STORE.stats, tiers.STATS
        interpreted, compiled = tiers.kernel_runs()
        with self.lock:
            return {"hits": self.hits, "misses": self.misses, "disk_hits": stats.disk_loads,
                    "entries": len(self.code.data), "compile_seconds": stats.compile_seconds,
                    "upgrades": ts.installs, "compiles": stats.compiles,
                    "background_compiles": stats.background, "compile_waits": stats.waits,
                    "kernel_hits": ts.kernel_hits, "kernel_misses": ts.kernel_misses,
                    "interpreted_runs": interpreted, "compiled_runs": compiled}

    def clear(self) -> None:
        """Forget schedules, bound runners and program code not held elsewhere."""
        with self.lock:
            self.schedules = _LRU(MAX_ENTRIES)
            self.runners = _LRU(MAX_ENTRIES)
            self.code = _LRU(MAX_CODE)
            self.by_signature = {}
        for cb in self.clear_listeners:
            cb()


def _code_key(sched: Schedule) -> tuple:
    """What a schedule's program code depends on (its signature), computed once; its
    digest, ``sched.name``, is only made when something shows it (a log line)."""
    key = sched.__dict__.get("_code_key")
    if key is None:
        key = sched.__dict__["_code_key"] = sched.signature()
    return key


PROGRAMS = ProgramCache()


def _after_fork_in_child() -> None:
    """A forked child has only the thread that forked: locks other threads held stay
    held, their in-flight entries never finish, and a collector they paused stays off.
    Fresh locks, no in-flight entries, the collector as it was before any pause."""
    global _gc_lock, _gc_holders
    PROGRAMS.lock = threading.RLock()
    PROGRAMS._inflight = {}
    _gc_lock = threading.Lock()
    if _gc_holders:
        _gc_holders = 0
        if _gc_was_enabled:
            gc.enable()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
