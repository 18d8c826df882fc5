"""The compile log: each new program, which tier runs it, each LLVM compile and why
the cache missed.

Messages go to the ``logging`` logger ``"lazyarray"`` at INFO level.  Setting
the environment variable ``LAZYARRAY_LOG=compile`` before importing lazyarray
sends them to stderr; otherwise configure the logger as usual, e.g.
``logging.getLogger("lazyarray").setLevel(logging.INFO)`` with a handler.

A program compiles when the structure of its graph is new (sizes and values
never enter the cache key).  To say *why*, each compile's structural key is
compared with the keys compiled before it, and the first difference from the
nearest one is named, as JAX's ``explain_cache_misses`` does::

    lazyarray: compiled lazyarray_5c1f... in 9.8 ms (6 nodes); cache miss: input 0: dtype
    float32 vs float64 before (compared with lazyarray_0be2..., the nearest of 3 earlier
    programs; 6 of 6 nodes differ)

Inputs are numbered in first-use order, nodes by their position in the
program's execution order (the order of ``print(program)``'s lines, leaves
included).
"""
from __future__ import annotations

import os
import sys
import threading
import warnings
from collections import deque
from typing import Optional

from . import _steps
from .backend import native, tiers
from .backend.threads import renew_locks_at_fork
from .backend.cache import PROGRAMS
from .backend.ir import ARG_REDUCE, REDUCE, SCAN, Op



def _logger(logging_level: str = "INFO"):
    """The ``"lazyarray"`` logger if anyone may be listening at ``logging_level``, else
    None.  The logging package is not imported for nothing (3 ms of lazyarray's import):
    nobody can have configured the logger without importing it, and ``LAZYARRAY_LOG``
    imports it."""
    logging = sys.modules.get("logging")
    if logging is None:
        return None
    log = _LOGGER.get(logging)  # (getLogger takes logging's lock: every new structure asks)
    if log is None:
        log = _LOGGER[logging] = logging.getLogger("lazyarray")
    return log if log.isEnabledFor(getattr(logging, logging_level)) else None


_LOGGER: dict = {}  # the logging module -> its "lazyarray" logger

HISTORY = 64  # compiled keys kept for comparison (each holds one entry per graph node)
_TOPICS = ("compile",)

_history: deque = deque(maxlen=HISTORY)  # (program name, (graph key, outputs))
_lock = threading.Lock()


# --------------------------------------------------------------------------- explaining

def explain(key: tuple, earlier: list) -> str:
    """Why ``key`` (a ``(graph key, outputs)`` pair) missed, against ``earlier``
    ``(name, key)`` pairs: the first part that differs from the nearest one."""
    if not earlier:
        return "no earlier program to compare with (first program in this process)"
    # Nearest: fewest structural differences, then fewest dtype/rank differences
    # (a new dtype or rank reaches every node downstream); on a tie the most recent.
    name, near = min(reversed(earlier), key=lambda e: _distance(key, e[1]))
    structural = _distance(key, near)[0] - (key[1] != near[1])
    size = max(len(key[0]), len(near[0]))
    differ = sum(x != y for x, y in zip(key[0], near[0])) + abs(len(key[0]) - len(near[0]))
    first = _first_difference(key, near)
    n = len(earlier)
    among = f"the nearest of {n} earlier program{'s' if n > 1 else ''}"
    if 2 * structural > size:
        return (f"a new graph structure: no earlier program is similar ({name}, {among}, "
                f"differs in {differ} of {size} nodes); first difference: {first}")
    return f"{first} (compared with {name}, {among}; {differ} of {size} nodes differ)"


def _distance(a: tuple, b: tuple) -> tuple:
    """(structural differences, dtype/rank-only differences) between two keys.

    Structural: a different kind of entry, op, op parameter or operands, a
    different length or different outputs.
    """
    (pa, oa), (pb, ob) = a, b
    structural = abs(len(pa) - len(pb)) + (oa != ob)
    typed = 0
    for x, y in zip(pa, pb):
        if x == y:
            continue
        if _skeleton(x) != _skeleton(y):
            structural += 1
        else:
            typed += 1
    return structural, typed


def _first_difference(a: tuple, b: tuple) -> str:
    (pa, oa), (pb, ob) = a, b
    # A graph that grew (e.g. accumulated in a loop, never evaluated) says so first.
    grew = f"graph has {len(pa)} nodes vs {len(pb)} before" if len(pa) != len(pb) else ""
    inputs = scalars = 0
    for i, (x, y) in enumerate(zip(pa, pb)):
        if x != y:
            entry = _entry_difference(i, x, y, inputs, scalars)
            return f"{grew}; first difference: {entry}" if grew else entry
        inputs += _kind(x) == "input"
        scalars += _kind(x) == "scalar"
    if grew:
        return grew
    if oa != ob:
        return f"outputs are nodes {_nodes(oa)} vs {_nodes(ob)} before"
    return "the same structure as an earlier program"


def _skeleton(entry: tuple) -> tuple:
    """An entry without its dtype and rank: the kind of leaf, or op, parameters, operands."""
    return (entry[0], entry[3], entry[4]) if _kind(entry) == "op" else (entry[0],)


def _kind(entry: tuple) -> str:
    if isinstance(entry[0], str):  # an op's value (see backend/cache.py's key parts)
        return "op"
    return "input" if entry[0] == 0 else "scalar"


def _entry_difference(i: int, x: tuple, y: tuple, inputs: int, scalars: int) -> str:
    kx, ky = _kind(x), _kind(y)
    if kx != ky:
        return f"node {i}: {_describe(x)} vs {_describe(y)} before"
    if kx == "input":  # (0, dtype, rank)
        what = "dtype" if x[1] != y[1] else "rank"
        k = 1 if what == "dtype" else 2
        return f"input {inputs}: {what} {x[k]} vs {y[k]} before"
    if kx == "scalar":  # (1, dtype)
        return f"scalar {scalars}: dtype {x[1]} vs {y[1]} before"
    op, dtype, rank, arg, srcs = x
    if op != y[0]:
        return f"node {i}: op {op} vs {y[0]} before"
    label = f"node {i} ({op})"
    if arg != y[3]:  # before dtype and rank: new reduction axes change the rank too
        return f"{label}: {_arg_difference(Op(op), arg, y[3])}"
    if dtype != y[1]:
        return f"{label}: dtype {dtype} vs {y[1]} before"
    if rank != y[2]:
        return f"{label}: rank {rank} vs {y[2]} before"
    return f"{label}: operands are nodes {_nodes(srcs)} vs {_nodes(y[4])} before"


def _arg_difference(op: Op, a, b) -> str:
    if op in REDUCE or op in ARG_REDUCE:
        (axes_a, keep_a), (axes_b, keep_b) = a, b
        if axes_a != axes_b:
            return f"reduction axes {axes_a} vs {axes_b} before"
        return f"keepdims {keep_a} vs {keep_b} before"
    if op in SCAN:
        return f"scan axis {a} vs {b} before"
    if op is Op.GATHER:
        return f"gathered axes {a[0]} vs {b[0]} before"
    if op is Op.EXTERNAL:
        return f"external function {a.key()} vs {b.key()} before"
    return f"parameters {a!r} vs {b!r} before"


def _describe(entry: tuple) -> str:
    kind = _kind(entry)
    if kind == "input":
        return f"an input ({entry[1]}, rank {entry[2]})"
    if kind == "scalar":
        return f"a scalar ({entry[1]})"
    return f"op {entry[0]}"


def _nodes(indices: tuple) -> str:
    return "(" + ", ".join(map(str, indices)) + ")"


# --------------------------------------------------------------------------- the listener

class _Name:
    """A schedule's name, made (a digest of its signature) only when shown."""

    __slots__ = ("sched",)

    def __init__(self, sched) -> None:
        self.sched = sched

    def __str__(self) -> str:
        return self.sched.name

    __format__ = lambda self, spec: format(str(self), spec)  # noqa: E731


def _on_program(sched, key: Optional[tuple]) -> None:
    """Called by the backend for every new program structure: it runs on the interpreter
    at once (backend/tiers.py)."""
    if key is None:
        return
    if _steps.stepping():  # a step's one-op program: detail, not a new structure
        logger = _logger(logging_level="DEBUG")
        if logger is not None:
            logger.debug("new one-op program %s for a step", _Name(sched))
        return
    name = _Name(sched)
    logger = _logger()
    with _lock:  # the earlier keys are copied only when a message will say why it missed
        earlier = list(_history) if logger is not None else None
        _history.append((name, key))
    if logger is None:
        return
    try:
        why = ("its structure ran op by op before (its first evaluation); planned whole now"
               if (_STEPPED, key) in earlier else explain(key, earlier))
        logger.info("new program %s (%d nodes) runs on the interpreter; cache miss: %s",
                    name, len(key[0]), why)
    except Exception as e:  # a diagnostic must never break the computation it reports on
        logger.warning("could not explain the new program %s: %r", name, e)


_STEPPED = "a structure run op by op"  # the name of such a structure in the history


def _on_steps(key, nodes: int) -> None:
    """Called for every first evaluation of a small structure, which runs op by op
    (``key``: its structure, or a function giving it when one is wanted)."""
    logger = _logger()
    if callable(key):  # (found without a walk: walked for the log only)
        if logger is None:
            return
        key = key()
    with _lock:
        earlier = list(_history) if logger is not None else None
        _history.append((_STEPPED, key))
    if logger is None:
        return
    try:
        logger.info("new structure (%d nodes) runs op by op (its first evaluation); "
                    "cache miss: %s", nodes, explain(key, earlier))
    except Exception as e:  # a diagnostic must never break the computation it reports on
        logger.warning("could not explain the new structure: %r", e)


def _on_tier(event: str, name: str, detail: str) -> None:
    """Called by backend/tiers.py when a program's kernels are compiled or installed."""
    logger = _logger()
    if logger is not None:
        logger.info("%s %s", name, detail)


def _on_unit(event: str, name: str, seconds: Optional[float]) -> None:
    """Called by backend/native.py for every unit compiled or loaded from disk."""
    logger = _logger()
    if logger is None:
        return
    if event == "disk":
        logger.info("loaded %s from the disk cache", name)
    else:
        where = "in the background" if event == "background" else "while a caller waited"
        logger.info("compiled %s in %.1f ms %s", name, (seconds or 0.0) * 1e3, where)


def _configure_from_environment() -> None:
    """``LAZYARRAY_LOG=compile`` (comma-separated topics) logs compiles to stderr."""
    value = os.environ.get("LAZYARRAY_LOG", "").strip()
    if not value:
        return
    topics = {t.strip().lower() for t in value.split(",") if t.strip()}
    unknown = sorted(topics - set(_TOPICS))
    if unknown:
        warnings.warn(f"LAZYARRAY_LOG: unknown topic(s) {', '.join(map(repr, unknown))}; "
                      f"known: {', '.join(_TOPICS)}", RuntimeWarning, stacklevel=2)
    if "compile" in topics:
        import logging
        logger = logging.getLogger("lazyarray")
        if not any(getattr(h, "_lazyarray_env", False) for h in logger.handlers):
            handler = logging.StreamHandler(sys.stderr)
            handler.setFormatter(logging.Formatter("lazyarray: %(message)s"))
            handler._lazyarray_env = True
            logger.addHandler(handler)
        logger.setLevel(logging.INFO)


if _on_program not in PROGRAMS.key_listeners:
    PROGRAMS.key_listeners.append(_on_program)
if _on_steps not in _steps.LISTENERS:
    _steps.LISTENERS.append(_on_steps)
if _on_tier not in tiers.LISTENERS:
    tiers.LISTENERS.append(_on_tier)
if _on_unit not in native.STORE.stats.log:
    native.STORE.stats.log.append(_on_unit)
_configure_from_environment()

renew_locks_at_fork(globals(), "_lock")
