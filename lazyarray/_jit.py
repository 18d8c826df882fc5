"""jit: a function traced once per input signature on placeholders, its programs cached."""
from __future__ import annotations

import inspect
import os
import sys
import threading
import warnings
import weakref
from collections import OrderedDict
from typing import Callable, Optional

import numpy as np

from . import _dtypes as dt
from . import _program
from ._array_object import Array
from ._errors import input_label
from ._program import Prepared, Program, _as_value, _fresh_handle, held_value, placeholder


def static_key(a):
    """The cache key of a static argument: its type and value, so values Python's
    ``==`` folds together trace apart (``1``, ``1.0`` and ``True``; ``0.0`` and
    ``-0.0``). Floats and complex numbers are keyed by ``repr``, which is exact
    and makes every NaN one key (NaN is unequal to itself, so it would miss every
    time); tuples element by element."""
    if isinstance(a, tuple):
        return (type(a), tuple(static_key(e) for e in a))
    if isinstance(a, (float, complex, np.inexact)):
        return (type(a), repr(a))
    return (type(a), a)


_LIVE: "weakref.WeakSet" = weakref.WeakSet()  # every JitFunction, for _after_fork_in_child


def _after_fork_in_child() -> None:
    """A lock another thread held when the process forked (tracing, say) would stay held
    in the child, whose only thread is the one that forked: every function a new one."""
    for f in list(_LIVE):
        f._lock = threading.RLock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


class JitFunction:
    """``f`` traced once per input signature, compiled and cached.

    Array arguments (lazyarray or numpy arrays) are traced as placeholders;
    other arguments are static: part of the signature, passed through as-is.
    With ``symbolic=True`` a signature is (rank, dtype), so other sizes run
    without tracing again.

    At most ``MAX_TRACES`` traces are kept (the least recently used goes first);
    a function that traced again on each of ``RETRACE_WARNING`` calls in a row
    warns once: its static arguments or shapes change on every call.
    """

    MAX_TRACES = 256
    RETRACE_WARNING = 32

    def __init__(self, f: Callable, symbolic: bool = False, compile: bool = False) -> None:  # noqa: A002
        self.fn = f
        self.symbolic = symbolic
        self.compile = compile
        self.trace_count = 0
        self._retraces = 0  # calls in a row that traced
        self._warned = False
        self._cache: OrderedDict = OrderedDict()
        # the traces of calls on numpy arrays and Arrays holding values (a data leaf, an
        # earlier call's result), by (dtype, shape or rank) per argument: such a call skips
        # the general path below (1.4 of a jitted x + 1.0's 2.5 us)
        self._plain: dict = {}
        self._try_plain = False
        # (kinds, trace) of the last call that found its trace in _plain: a loop calling
        # with the same kinds compares them in place (a jitted gradient step: 0.5 us)
        self._last: Optional[tuple] = None
        self._lock = threading.RLock()  # re-entrant: f may call this function again
        _LIVE.add(self)
        try:
            self._names = list(inspect.signature(f).parameters)
        except (TypeError, ValueError):
            self._names = []

    @property
    def cache_size(self) -> int:
        return len(self._cache)

    def _name(self, i: int) -> str:
        return self._names[i] if i < len(self._names) else f"arg{i}"

    def __call__(self, *args):
        last = self._last
        if last is not None and len(args) == len(last[0]):  # the last plain call's kinds
            sym = self.symbolic
            vals = []
            for a, (d, s) in zip(args, last[0]):
                if type(a) is not np.ndarray:
                    if type(a) is not Array:
                        break
                    a = held_value(a)
                    if a is None:
                        break
                if a.dtype is not d or (a.ndim if sym else a.shape) != s:
                    break
                vals.append(a)
            else:
                self._retraces = 0
                return last[1](*vals)
        if self._try_plain:  # (not again after a call that was not plain, until one is)
            vals, kind = [], []
            for a in args:
                t = type(a)
                if t is Array:
                    a = held_value(a)
                    if a is None:
                        self._try_plain = False
                        break
                elif t is not np.ndarray:
                    self._try_plain = False
                    break
                vals.append(a)
                kind.append((a.dtype, a.ndim if self.symbolic else a.shape))
            else:
                kind = tuple(kind)
                prepared = self._plain.get(kind)
                if prepared is not None:
                    self._retraces = 0
                    self._last = (kind, prepared)
                    return prepared(*vals)
        vals, sig, key = [], [], []
        as_is = 0  # numpy arrays and Arrays' held values, taken as they are
        for i, a in enumerate(args):
            if type(a) is np.ndarray and a.dtype in dt.BY_NUMPY:  # the common cases first
                v = a
                as_is += 1
            elif type(a) is Array:
                v = held_value(a)
                if v is None:
                    v = _as_value(a, input_label(i, self._name(i)))
                else:
                    as_is += 1
            elif isinstance(a, (Array, np.ndarray)):
                v = _as_value(a, input_label(i, self._name(i)))
            else:
                v = None
            if v is not None:
                vals.append(v)
                s = (dt.from_numpy(v.dtype), v.ndim if self.symbolic else v.shape)
                sig.append(s)
                key.append(s)
            elif "dask.array" in sys.modules and _program._any_dask((a,)):
                from .dask import to_dask  # runs on Dask: a lazy dask array
                return to_dask(self.fn, *args)
            else:
                sig.append(("static", a))
                key.append(("static", static_key(a)))
        key = tuple(key)
        try:
            prepared = self._cache.get(key)
        except TypeError:
            raise self._unhashable(args) from None
        if prepared is None:
            with self._lock:  # threads calling with one new signature trace it once
                prepared = self._cache.get(key)
                if prepared is None:
                    prepared = self._trace(args, sig)
                    self._cache[key] = prepared
                    if len(self._cache) > self.MAX_TRACES:
                        self._cache.popitem(last=False)
                        self._plain.clear()  # (it may hold the trace let go)
                        self._last = None
                    self._count_retrace()
        else:
            self._retraces = 0
            try:
                self._cache.move_to_end(key)
            except KeyError:  # another thread's trace just let it go
                pass
        if as_is == len(args):  # values taken as they are only: next time, the fast way
            self._plain[tuple([(v.dtype, v.ndim if self.symbolic else v.shape)
                               for v in vals])] = prepared
            self._try_plain = True
        return prepared(*vals)

    def _count_retrace(self) -> None:
        self._retraces += 1
        if self._retraces >= self.RETRACE_WARNING and not self._warned:
            self._warned = True
            warnings.warn(
                f"jit({getattr(self.fn, '__qualname__', self.fn)!r}) traced again on each of "
                f"the last {self._retraces} calls: its static arguments (or, without "
                "symbolic=True, its input shapes) differ on every call, so each call records "
                "the function anew. Pass a changing number as an array (xp.asarray(k)), or use "
                f"symbolic=True for changing sizes; at most {self.MAX_TRACES} traces are kept.",
                stacklevel=3)  # the caller of __call__

    def _unhashable(self, args) -> TypeError:
        for i, a in enumerate(args):
            if not isinstance(a, (Array, np.ndarray)):
                try:
                    hash(static_key(a))
                except TypeError:
                    return TypeError(
                        f"jit: static argument {i} ({self._name(i)!r}) must be hashable "
                        f"(it is part of the cache key), got {type(a).__name__}; pass arrays "
                        "as lazyarray or numpy arrays, and other values as hashable ones "
                        "(e.g. a tuple instead of a list)")
        return TypeError("jit: the static arguments must be hashable")

    def _trace(self, args, sig) -> Prepared:
        traced, phs = [], []
        for i, (a, s) in enumerate(zip(args, sig)):
            if s[0] == "static":
                traced.append(a)
                continue
            name = self._name(i)
            shape = tuple(f"{name}_{k}" for k in range(s[1])) if self.symbolic else s[1]
            ph = placeholder(shape, s[0], name=name)
            traced.append(_fresh_handle(ph))
            phs.append(ph)
        prog = Program(self.fn(*traced), phs)
        self.trace_count += 1
        if self.symbolic:
            return _SymbolicPrepared(prog, self.compile)
        return prog.prepare(*phs, compile=self.compile)


class _SymbolicPrepared:
    """Prepares lazily on the first call, so symbolic dims are bound by values."""

    def __init__(self, prog: Program, compile: bool) -> None:  # noqa: A002
        self.prog, self.prepared, self.compile = prog, None, compile

    def __call__(self, *vals):
        if self.prepared is None:
            self.prepared = self.prog.prepare(*vals, compile=self.compile)
        return self.prepared(*vals)


def jit(f: Optional[Callable] = None, *, symbolic: bool = False,
        compile: bool = False):  # noqa: A002
    """Trace ``f`` per input signature, then run the traced program: at once on the
    interpreter, with its kernels compiled in the background once it runs again
    (``compile=True``: compiled before the first call returns, as ``jax.jit``).

    >>> import lazyarray as xp, numpy as np
    >>> jf = xp.jit(lambda x: xp.sum(xp.sin(x) * x**2))
    >>> round(float(jf(np.linspace(0, 2, 1000))), 6)
    1235.325872
    """
    if f is None:
        return lambda g: JitFunction(g, symbolic, compile)
    return JitFunction(f, symbolic, compile)
