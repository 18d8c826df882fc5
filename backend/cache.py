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

from . import codegen as cg
from . import llvm
from .ir import REDUCE, Node, Op
from .schedule import Schedule, schedule

MAX_ENTRIES = 4096


def graph_key(nodes: list) -> tuple:
    """Structural key of a topologically ordered graph (see module doc)."""
    index = {}
    parts = []
    for i, n in enumerate(nodes):
        index[id(n)] = i
        if n.is_buffer or n.op is Op.DATA:
            parts.append((0, n.dtype, len(n.shape)))
        elif n.op is Op.SCALAR:
            parts.append((1, n.dtype))
        else:
            arg = n.arg if n.op in REDUCE else None
            parts.append((n.op, n.dtype, len(n.shape), arg,
                          tuple(index[id(s)] for s in n.srcs)))
    return tuple(parts)


@dataclass
class Executable:
    """A schedule with its compiled native code."""

    schedule: Schedule
    compiled: llvm.Compiled


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
        self.code = _LRU(MAX_ENTRIES)
        self._inflight: dict = {}
        self.hits = self.misses = 0
        self.compile_seconds = 0.0
        self.listeners: list[Callable] = []

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
        sched = self.schedule(nodes, outputs, key)
        return Executable(sched, self._code(sched.signature(), sched))

    def _code(self, sig: tuple, sched: Schedule) -> llvm.Compiled:
        with self.lock:
            hit = self.code.get(sig)
            if hit is not None:
                self.hits += 1
                return hit
            ev = self._inflight.get(sig)
            owner = ev is None
            if owner:
                ev = self._inflight[sig] = threading.Event()
        if not owner:  # another thread compiles this key: wait for it, never compile twice
            ev.wait()
            return self._code(sig, sched)
        try:
            t0 = time.perf_counter()
            gen = llvm.codegen()
            text = cg.ModuleBuilder("lazyarray", gen.vector_variants).build(sched)
            compiled = gen.compile(text)
            dt = time.perf_counter() - t0
            with self.lock:
                self.code.put(sig, compiled)
                self.misses += 1
                self.compile_seconds += dt
            for cb in self.listeners:
                cb(sig, dt, compiled)
            return compiled
        finally:
            with self.lock:
                self._inflight.pop(sig, None)
            ev.set()

    def info(self) -> dict:
        with self.lock:
            return {"hits": self.hits, "misses": self.misses, "entries": len(self.code.data),
                    "compile_seconds": self.compile_seconds}

    def clear(self) -> None:
        with self.lock:
            self.schedules = _LRU(MAX_ENTRIES)
            self.code = _LRU(MAX_ENTRIES)


PROGRAMS = ProgramCache()
