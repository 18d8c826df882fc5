"""Kernels that cross the wire: descriptions of lazyarray programs, and the
per-process cache that turns each into one prepared (compiled) program.

A kernel is plain data: either a graph (a list of entries over symbolic block
sizes, built on the client from the recorded graph) or a recipe (the name of a
function below and its parameters, for the combine and aggregate steps that
lazyarray makes itself).  A worker unpickles it, looks its ``key`` up in this
process's cache and traces and prepares the program on a miss; every block of
every size then reuses that program, and lazyarray's own caches (in memory and
on disk) give one compile per distinct kernel per process.  Nothing here
imports dask.
"""
from __future__ import annotations

import hashlib
import pickle
import threading
from collections import OrderedDict
from typing import Callable, Sequence

import numpy as np

from .. import _program
from .._array_object import Array
from ..backend import ir
from ..backend.ir import Node, Op


def _digest(obj) -> str:
    """A stable key for picklable plain data (floats exactly, every NaN alike)."""
    try:
        data = pickle.dumps(obj, protocol=4)
    except (pickle.PicklingError, AttributeError, TypeError):
        import cloudpickle  # a dependency of dask: functions defined in a session
        data = cloudpickle.dumps(obj, protocol=4)
    return hashlib.sha1(data).hexdigest()


class GraphKernel:
    """A program given as entries, one per node, in execution order:

    * ``("in", dtype, shape)``: the next input (a block), ``shape`` of ints and
      names (one name is one block size);
    * ``("scalar", dtype, value)``: a Python scalar, a runtime argument;
    * ``("op", op, dtype, shape, sources, arg)``: a recorded op on earlier entries.

    ``outputs`` are entry positions.
    """

    def __init__(self, entries: Sequence[tuple], outputs: Sequence[int]) -> None:
        self.entries = tuple(entries)
        self.outputs = tuple(outputs)
        self.key = "g" + _digest((self.entries, self.outputs))

    def __reduce__(self):
        return (GraphKernel, (self.entries, self.outputs))

    def __dask_tokenize__(self) -> str:
        return self.key

    def program(self) -> _program.Program:
        nodes: list = []
        inputs = []
        for e in self.entries:
            if e[0] == "in":
                n = Node(Op.PLACEHOLDER, ir.scalar_type(e[1]), _dims(e[2]), (), f"in{len(inputs)}")
                inputs.append(Array._new(n))
            elif e[0] == "scalar":
                n = Node(Op.SCALAR, ir.scalar_type(e[1]), (), (), None, e[2])
            else:
                _, op, dtype, shape, srcs, arg = e
                n = Node(Op(op), ir.scalar_type(dtype), _dims(shape),
                         tuple(nodes[i] for i in srcs), arg)
            nodes.append(n)
        outs = [Array._new(nodes[i]) for i in self.outputs]
        return _program.Program(outs[0] if len(outs) == 1 else outs, inputs)


def _dims(shape: tuple) -> tuple:
    return tuple(ir.sym(d) if isinstance(d, str) else d for d in shape)


RECIPES: dict = {}  # name -> function of the recipe's parameters returning a Program


def recipe(fn: Callable) -> Callable:
    """Register ``fn`` as a recipe named after it."""
    RECIPES[fn.__name__] = fn
    return fn


class RecipeKernel:
    """A program made by the recipe ``name`` from ``params`` (plain data)."""

    def __init__(self, name: str, params: tuple) -> None:
        from . import _recipes  # noqa: F401 - registers the recipes
        if name not in RECIPES:
            raise ValueError(f"unknown kernel recipe {name!r}")
        self.name, self.params = name, tuple(params)
        self.key = "r" + _digest((name, self.params))

    def __reduce__(self):
        return (RecipeKernel, (self.name, self.params))

    def __dask_tokenize__(self) -> str:
        return self.key

    def program(self) -> _program.Program:
        return RECIPES[self.name](*self.params)


class _Entry:
    """One kernel's program, prepared on its first blocks (that compiles it)."""

    def __init__(self, program: _program.Program) -> None:
        self.program = program
        self.prepared = None

    def __call__(self, blocks: tuple):
        p = self.prepared
        if p is None:
            p = self.prepared = self.program.prepare(*blocks)
        out = p(*blocks)
        if isinstance(out, tuple):
            return tuple(np.asarray(o) for o in out)
        return np.asarray(out)


_CACHE: "OrderedDict[str, _Entry]" = OrderedDict()
_MAX_ENTRIES = 512
_LOCK = threading.Lock()


def run(kernel, *blocks):
    """Run ``kernel`` on numpy blocks in this process (what each Dask task calls)."""
    entry = _CACHE.get(kernel.key)
    if entry is None:
        with _LOCK:
            entry = _CACHE.get(kernel.key)
            if entry is None:
                entry = _CACHE[kernel.key] = _Entry(kernel.program())
                if len(_CACHE) > _MAX_ENTRIES:
                    _CACHE.popitem(last=False)
    return entry(blocks)


def cache_info() -> dict:
    """This process's lazyarray compile counters and kernel entries (for ``client.run``)."""
    info = _program.compile_cache_info()._asdict()
    info["dask_kernels"] = len(_CACHE)
    return info
