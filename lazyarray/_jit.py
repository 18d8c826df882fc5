"""jit: a function traced once per input signature on placeholders, its programs cached."""
from __future__ import annotations

import inspect
import threading
from typing import Callable, Optional

import numpy as np

from . import _dtypes as dt
from ._array_object import Array
from ._errors import input_label
from ._program import Prepared, Program, _as_value, _fresh_handle, placeholder


class JitFunction:
    """``f`` traced once per input signature, compiled and cached.

    Array arguments (lazyarray or numpy arrays) are traced as placeholders;
    other arguments are static: part of the signature, passed through as-is.
    With ``symbolic=True`` a signature is (rank, dtype), so other sizes run
    without tracing again.
    """

    def __init__(self, f: Callable, symbolic: bool = False, compile: bool = False) -> None:  # noqa: A002
        self.fn = f
        self.symbolic = symbolic
        self.compile = compile
        self.trace_count = 0
        self._cache: dict = {}
        self._lock = threading.RLock()  # re-entrant: f may call this function again
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
        vals, sig = [], []
        for i, a in enumerate(args):
            if isinstance(a, (Array, np.ndarray)):
                v = _as_value(a, input_label(i, self._name(i)))
                vals.append(v)
                sig.append((dt.from_numpy(v.dtype), v.ndim if self.symbolic else v.shape))
            else:
                sig.append(("static", a))
        key = tuple(sig)
        prepared = self._cache.get(key)
        if prepared is None:
            with self._lock:  # threads calling with one new signature trace it once
                prepared = self._cache.get(key)
                if prepared is None:
                    prepared = self._trace(args, sig)
                    self._cache[key] = prepared
        return prepared(*vals)

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
