"""Caches: structural graph key -> schedule, schedule signature -> native code.

The graph key is the graph's structure with every buffer (placeholder, data
leaf, evaluated node) and every scalar renumbered positionally: values of
data leaves and scalars, sizes and view parameters never enter it, so new
data and new sizes hit the same entry.  The native-code key is the
schedule's signature, which is coarser still: two graphs that differ only in
their views share one compiled program.
"""
from __future__ import annotations

import hashlib
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from functools import partial
from typing import Callable

from . import runtime
from .ir import ARG_REDUCE, MULTIPART, REDUCE, SCAN, VIEW, Node, Op
from .schedule import Schedule, kernel_entries, schedule

MAX_ENTRIES = 1024  # schedules and bound runners; evicted ones are rebuilt, not recompiled
MAX_CODE = 2048     # loaded programs; an evicted one is reloaded from disk or recompiled
QUICK = "~quick"    # disk-cache key suffix of quick code (see tiering.py)


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


def _leaf_part(node, v, binding: list, placeholders: list):
    """Key part of a node the walks do not descend into (a value, a scalar, a
    placeholder), recording its binding; None for a computed node without sources."""
    op = node.op
    if op is Op.DATA or (v is not None and op is not Op.SCALAR):
        binding.append(node.shape)
        return (0, node.dtype, len(node.shape))
    if op is Op.SCALAR:
        return (1, node.dtype)
    if op is Op.PLACEHOLDER:
        binding.append(node.shape)
        placeholders.append(node)
        return (0, node.dtype, len(node.shape))
    return None


def _op_part(node, positions: tuple, binding: list) -> tuple:
    """Key part of a computed node whose sources sit at ``positions``."""
    op = node.op
    if op in _ARG_IN_BINDING:
        binding.append((node.arg, node.shape))
    return (op, node.dtype, len(node.shape), node.arg if op in _ARG_IN_KEY else None, positions)


def _visit(node, depth: int, index: dict, nodes: list, values: list, parts: list,
           binding: list, placeholders: list) -> int:
    """Add ``node`` (not yet in ``index``) after its sources; returns its position.
    The walk's state comes as arguments: a closure over it costs more to create
    than the whole walk of a small graph."""
    v, srcs = node.value, node.srcs
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
    index: dict = {}  # node (hashed by identity, in C) -> position; -1 while sources pending
    at = index.__getitem__
    nodes, values, parts, binding, placeholders = [], [], [], [], []
    for root in roots:
        stack = [root]
        while stack:
            node = stack.pop()
            i = index.get(node)
            if i is None:  # first visit
                v, srcs = node.value, node.srcs
                if v is None and srcs:
                    index[node] = -1
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
            parts.append(_op_part(node, tuple(map(at, node.srcs)), binding))
    return (nodes, values, (tuple(parts), tuple(binding)), tuple(map(at, roots)), placeholders)


def snapshot_of(nodes: list, values: list, key: tuple) -> list:
    """The snapshot (``ir.snapshot``) of a ``keyed_walk``: nodes it found computed are
    copied, the others shared.  ``key`` is its structural key (sources by position)."""
    copies: list = []
    for n, v, part in zip(nodes, values, key):
        if v is None and n.srcs:
            n = Node(n.op, n.dtype, n.shape, tuple(map(copies.__getitem__, part[4])), n.arg)
        copies.append(n)
    return copies


@dataclass
class Executable:
    """A schedule with its compiled native code."""

    schedule: Schedule
    compiled: object  # llvm.Compiled


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
    """Process-wide, thread-safe; counts hits, misses and compile time."""

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.schedules = _LRU(MAX_ENTRIES)
        # Evicted code is unloaded once no runner or prepared program holds it.
        self.code = _LRU(MAX_CODE)
        self.runners = _LRU(MAX_ENTRIES)
        # structure id of a root's signature (ir.py) -> what the front end needs to run
        # that structure's program on the signature's leaves (see _program.materialize)
        self.by_signature: dict = {}
        self._inflight: dict = {}
        self._shared: dict = {}  # symbol -> address of a routine loaded for good
        self._shared_lock = threading.Lock()
        self.hits = self.misses = self.disk_hits = self.upgrades = 0
        self._diskcache = False  # resolved on the first compile
        self.compile_seconds = 0.0
        self.listeners: list[Callable] = []
        # cb(name, seconds or None when loaded from disk, (graph key, outputs)) for each new
        # program: plain data, so a front end can say which part of the key was new.
        self.key_listeners: list[Callable] = []

    def schedule(self, nodes: list, outputs: tuple, key: tuple | None = None) -> Schedule:
        """The schedule of ``nodes`` computing ``outputs`` (no LLVM work)."""
        gkey = (key if key is not None else graph_key(nodes), outputs)
        with self.lock:
            sched = self.schedules.get(gkey)
        if sched is None:
            sched = schedule(nodes, list(outputs))
            with self.lock:
                self.schedules.put(gkey, sched)
        return sched

    def executable(self, nodes: list, outputs: tuple, key: tuple | None = None) -> Executable:
        """The executable for ``nodes`` computing ``outputs``; compiles on a miss."""
        key = key if key is not None else graph_key(nodes)
        sched = self.schedule(nodes, outputs, key)
        return Executable(sched, self._code(sched.name, sched, (key, outputs)))

    def runner(self, nodes, outputs: tuple, keys: tuple, env: dict) -> runtime.Runner:
        """A bound runner for ``nodes``: reused while structure and binding key repeat.

        ``nodes`` is the graph, or a function returning it, called on a miss only
        (the caller's private copy of the graph need not be built for a hit).
        """
        rkey = (keys, outputs)
        with self.lock:  # one acquisition: look up and count the hit together
            r = self.runners.get(rkey)
            if r is not None:
                self.hits += 1
                return r
        if callable(nodes):
            nodes = nodes()
        exe = self.executable(nodes, outputs, keys[0])
        bound = runtime.bind(exe.schedule, nodes, env)
        r = runtime.Runner(exe.compiled, exe.schedule, bound,
                           runtime.pack_scalars(exe.schedule, nodes))
        with self.lock:
            self.runners.put(rkey, r)
        return r

    def _code(self, name: str, sched: Schedule, gkey: tuple | None = None):
        with self.lock:
            hit = self.code.get(name)
            if hit is not None:
                self.hits += 1
                return hit
            ev = self._inflight.get(name)
            owner = ev is None
            if owner:
                ev = self._inflight[name] = threading.Event()
        if not owner:  # another thread compiles this key: wait for it, never compile twice
            ev.wait()
            return self._code(name, sched, gkey)
        try:
            compiled, dt = self._build(name, sched)
            with self.lock:
                self.code.put(name, compiled)
                if dt is None:
                    self.disk_hits += 1
                else:
                    self.misses += 1
                    self.compile_seconds += dt
            if dt is not None:
                for cb in self.listeners:
                    cb(name, dt, compiled)
            for cb in self.key_listeners:
                cb(name, dt, gkey)
            return compiled
        finally:
            with self.lock:
                self._inflight.pop(name, None)
            ev.set()

    def _build(self, name: str, sched: Schedule):
        """(Compiled, compile seconds or None when loaded from the disk cache)."""
        # llvmlite is imported on the first compile: importing lazyarray stays cheap; the
        # code generator only when something is compiled (not for a disk-cache hit).
        from . import llvm, tiering
        t0 = time.perf_counter()
        gen = llvm.codegen()
        module, link = self._program_parts(gen, name, sched)
        tiering.busy()
        try:
            compiled, seconds, quick = self._object(gen, name, module, link, tiering.enabled())
        finally:
            tiering.busy()
        if quick:
            compiled.upgrade_job = partial(self._upgrade, name, sched)
        if seconds is None:
            return compiled, None
        compiled.seconds = seconds
        return compiled, time.perf_counter() - t0

    def _program_parts(self, gen, name: str, sched: Schedule) -> tuple:
        """(a function making the IR of ``sched``'s program, one linking its object)."""
        n_native = sum(1 for kind, _ in sched.stages if kind == "native")
        kernels = tuple(kernel_entries(sched))
        imports = self._imports(gen, sched)

        def module() -> str:
            from . import codegen as cg
            return cg.ModuleBuilder(name, gen.vector_variants).build(sched)
        return module, lambda obj: gen.load(obj, name, n_native, kernels, imports)

    def _upgrade(self, name: str, sched: Schedule, compiled) -> None:
        """Compile ``sched``'s program in full and install it in ``compiled`` (quick
        code of it); on the tiering thread (see tiering.py)."""
        from . import llvm
        gen = llvm.codegen()
        module, link = self._program_parts(gen, name, sched)
        obj, _ = gen.compile(module())
        compiled.upgrade(link(obj))
        disk = self._disk(gen)
        if disk:
            disk.store_later(name, obj)
        with self.lock:
            self.upgrades += 1

    def _imports(self, gen, sched: Schedule) -> dict:
        """Symbol -> address of the shared routines ``sched``'s code calls (the GEMM
        libraries of backend/matmul.py), each compiled or loaded once per process."""
        out = {}
        if not any(k.matmul for k in sched.kernels):
            return out
        from . import matmul
        for dtype in matmul.gemm_libraries(sched):
            sym = matmul.gemm_symbol(dtype)
            with self._shared_lock:  # rare and slow: one thread builds, the others wait
                addr = self._shared.get(sym)
                if addr is None:
                    addr = self._shared[sym] = self._object(
                        gen, sym, partial(matmul.gemm_module, dtype),
                        partial(gen.load_shared, sym))[0]  # never quick: compiled once
            out[sym] = addr
        return out

    def shared_library(self, key: str, ir_text: str, symbols: tuple) -> tuple:
        """Addresses of ``symbols`` in a routine library loaded for good, compiled from
        ``ir_text`` once per process or loaded from the disk cache (``key`` names it;
        a hash of the text is added, so a changed text is compiled afresh)."""
        from . import llvm
        gen = llvm.codegen()
        name = f"{key}_{hashlib.sha1(ir_text.encode()).hexdigest()[:16]}"
        with self._shared_lock:
            addrs = self._shared.get(name)
            if addrs is None:
                addrs = self._shared[name] = self._object(
                    gen, name, lambda: ir_text, partial(gen.load_shared, symbols))[0]
        return addrs

    def _object(self, gen, key: str, module: Callable[[], str], link: Callable,
                quick: bool = False):
        """(``link(object code)``, compile seconds or None, whether it is quick code):
        the object code of ``key`` from the disk cache, else compiled from ``module()``
        and stored there.  With ``quick``, quick code will do (see tiering.py): the
        optimised entry is taken if there is one, else the quick one, else quick code
        is compiled.  A damaged or foreign entry (``link`` raises ValueError or
        RuntimeError) is discarded and compiled again."""
        disk = self._disk(gen)
        for k, is_quick in ((key, False), (key + QUICK, True))[:1 + quick]:
            obj = disk.load(k) if disk else None
            if obj is not None:
                try:
                    return link(obj), None, is_quick
                except (ValueError, RuntimeError):
                    disk.discard(k)
        obj, seconds = gen.compile(module(), quick)
        linked = link(obj)
        if disk:
            disk.store_later(key + QUICK if quick else key, obj)
        return linked, seconds, quick

    def ir_text(self, sched: Schedule) -> str:
        """The LLVM IR of a schedule's program, as it is compiled."""
        from . import codegen as cg
        from . import llvm
        return cg.ModuleBuilder(sched.name, llvm.codegen().vector_variants).build(sched)

    def _disk(self, gen):
        """The disk cache for this process's code generator (None when disabled)."""
        if self._diskcache is False:
            from . import diskcache
            folder = diskcache.directory()
            self._diskcache = folder and diskcache.DiskCache(folder, gen.fingerprint())
        return self._diskcache

    def info(self) -> dict:
        with self.lock:
            return {"hits": self.hits, "misses": self.misses, "disk_hits": self.disk_hits,
                    "entries": len(self.code.data), "compile_seconds": self.compile_seconds,
                    "upgrades": self.upgrades}

    def clear(self) -> None:
        """Forget schedules, bound runners and loaded code not held elsewhere."""
        with self.lock:
            self.schedules = _LRU(MAX_ENTRIES)
            self.runners = _LRU(MAX_ENTRIES)
            self.code = _LRU(MAX_CODE)
            self.by_signature = {}


PROGRAMS = ProgramCache()
