"""Caches: structural graph key -> schedule, schedule signature -> native code.

The graph key is the graph's structure with every buffer (placeholder, data
leaf, evaluated node) and every scalar renumbered positionally: values of
data leaves and scalars, sizes and view parameters never enter it, so new
data and new sizes hit the same entry.  The native-code key is the
schedule's signature, which is coarser still: two graphs that differ only in
their views share one compiled program.
"""
from __future__ import annotations

import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Callable

from . import runtime
from .ir import ARG_REDUCE, MULTIPART, REDUCE, SCAN, VIEW, Op
from .schedule import Schedule, schedule

MAX_ENTRIES = 1024  # schedules and bound runners; evicted ones are rebuilt, not recompiled
MAX_CODE = 2048     # loaded programs; an evicted one is reloaded from disk or recompiled


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
    equal strides and sizes, so a bound runner can be reused.
    """
    index = {}
    parts, binding = [], []
    for i, n in enumerate(nodes):
        index[id(n)] = i
        if n.is_buffer or n.op is Op.DATA:
            parts.append((0, n.dtype, len(n.shape)))
            binding.append(n.shape)
        elif n.op is Op.SCALAR:
            parts.append((1, n.dtype))
        else:
            op = n.op
            parts.append((op, n.dtype, len(n.shape), n.arg if op in _ARG_IN_KEY else None,
                          tuple(index[id(s)] for s in n.srcs)))
            if op in _ARG_IN_BINDING:
                binding.append((n.arg, n.shape))
    return tuple(parts), tuple(binding)


@dataclass
class Executable:
    """A schedule with its compiled native code."""

    schedule: Schedule
    compiled: object  # llvm.Compiled


class _LRU:
    def __init__(self, cap: int) -> None:
        self.cap, self.data = cap, OrderedDict()

    def get(self, key):
        v = self.data.get(key)
        if v is not None:
            self.data.move_to_end(key)
        return v

    def put(self, key, value) -> None:
        self.data[key] = value
        self.data.move_to_end(key)
        while len(self.data) > self.cap:
            self.data.popitem(last=False)


class ProgramCache:
    """Process-wide, thread-safe; counts hits, misses and compile time."""

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.schedules = _LRU(MAX_ENTRIES)
        # Evicted code is unloaded once no runner or prepared program holds it.
        self.code = _LRU(MAX_CODE)
        self.runners = _LRU(MAX_ENTRIES)
        self._inflight: dict = {}
        self.hits = self.misses = self.disk_hits = 0
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

    def runner(self, nodes: list, outputs: tuple, keys: tuple, env: dict) -> runtime.Runner:
        """A bound runner for ``nodes``: reused while structure and binding key repeat."""
        rkey = (keys, outputs)
        with self.lock:
            r = self.runners.get(rkey)
        if r is None:
            exe = self.executable(nodes, outputs, keys[0])
            bound = runtime.bind(exe.schedule, nodes, env)
            r = runtime.Runner(exe.compiled, exe.schedule, bound,
                               runtime.pack_scalars(exe.schedule, nodes))
            with self.lock:
                self.runners.put(rkey, r)
        else:
            with self.lock:
                self.hits += 1
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
        # llvmlite is imported on the first compile: importing lazyarray stays cheap.
        from . import codegen as cg
        from . import llvm
        t0 = time.perf_counter()
        gen = llvm.codegen()
        n_native = sum(1 for kind, _ in sched.stages if kind == "native")
        kernels = tuple(cg.kernel_entries(sched))
        disk = self._disk(gen)
        obj = disk.load(name) if disk else None
        if obj is not None:
            try:
                return gen.load(obj, name, n_native, kernels), None
            except (ValueError, RuntimeError):
                disk.discard(name)  # damaged or foreign: compile it again below
        obj, seconds = gen.compile(cg.ModuleBuilder(name, gen.vector_variants).build(sched))
        compiled = gen.load(obj, name, n_native, kernels)
        compiled.seconds = seconds
        if disk:
            disk.store(name, obj)
        return compiled, time.perf_counter() - t0

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
                    "entries": len(self.code.data), "compile_seconds": self.compile_seconds}

    def clear(self) -> None:
        """Forget schedules, bound runners and loaded code not held elsewhere."""
        with self.lock:
            self.schedules = _LRU(MAX_ENTRIES)
            self.runners = _LRU(MAX_ENTRIES)
            self.code = _LRU(MAX_CODE)


PROGRAMS = ProgramCache()
