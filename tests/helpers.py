"""Helpers shared by the test modules (pytest puts this folder on ``sys.path``, so
``from helpers import check`` works without a package).

``check`` compares exactly unless a tolerance is given.  A tolerance is either one
number for every floating-point or complex result, or a mapping from dtype name to
number, in which case dtypes the mapping leaves out are compared exactly.  Modules
whose float results may differ from numpy's in the last bits bind their own rule once::

    check = partial(helpers.check, rtol=TOL, atol=TOL)

and call sites may still override ``rtol`` or ``atol`` for one comparison.
"""
from __future__ import annotations

import contextlib
from collections.abc import Mapping
from typing import Union

import numpy as np

import lazyarray as xp

Tolerance = Union[float, Mapping]


def _for_dtype(tol: Tolerance, dtype: np.dtype) -> float:
    if isinstance(tol, Mapping):
        return tol.get(dtype.name, 0.0)
    return tol


def check(got, want, rtol: Tolerance = 0.0, atol: Tolerance = 0.0) -> None:
    """``got`` (a lazyarray Array) equals numpy's ``want`` in shape, dtype and values.

    Values are compared exactly (NaNs at the same places count as equal) unless the
    result is floating-point or complex and ``rtol``/``atol`` give it a non-zero
    tolerance: then ``|got - want| <= atol + rtol * |want|`` elementwise.
    """
    assert isinstance(got, xp.Array), type(got)
    want = np.asarray(want)
    g = np.asarray(got)
    assert g.shape == want.shape, (g.shape, want.shape)
    assert g.dtype == want.dtype, (g.dtype, want.dtype)
    r, a = _for_dtype(rtol, want.dtype), _for_dtype(atol, want.dtype)
    if want.dtype.kind in "fc" and (r or a):
        np.testing.assert_allclose(g, want, rtol=r, atol=a, equal_nan=True)
    else:
        np.testing.assert_array_equal(g, want)


def data(shape, dtype, rng: np.random.Generator, lo: int = -9, hi: int = 10) -> np.ndarray:
    """Random values of ``dtype``: standard normals (complex: normal real and imaginary
    parts), fair bools, or integers in ``[lo, hi)`` (``[0, hi)`` when unsigned)."""
    d = np.dtype(dtype)
    if d.kind == "c":
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(d)
    if d.kind == "f":
        return rng.standard_normal(shape).astype(d)
    if d.kind == "b":
        return rng.integers(0, 2, shape).astype(bool)
    return rng.integers(0 if d.kind == "u" else lo, hi, shape).astype(d)


def npd(a) -> np.dtype:
    """The numpy dtype of an Array."""
    return np.dtype(a.dtype.name)


def misses() -> int:
    """Compilations so far (compare before and after to see whether code was reused)."""
    return xp.compile_cache_info().misses


def run_symbolic(f, value, dtype=xp.float64):
    """``f`` traced on a placeholder of ``value``'s rank with symbolic sizes, run on ``value``."""
    p = xp.placeholder(tuple(f"d{i}" for i in range(np.ndim(value))), dtype, name="p")
    return xp.compile(f(p), inputs=[p])(value)


def count_walks(monkeypatch) -> list:
    """A one-item list counting the graph walks of materializations from now on (the
    path without a known signature)."""
    from lazyarray import _program
    count, real = [0], _program.keyed_walk

    def counting(roots):
        count[0] += 1
        return real(roots)
    monkeypatch.setattr(_program, "keyed_walk", counting)
    return count


def load_building_blocks() -> None:
    """Compile (on a new machine: about 13 s) and load the building blocks' bundle now:
    whether a small new structure runs op by op (lazyarray/_steps.py) would otherwise
    depend on how far its background compile had got.  (``LAZYARRAY_PREBUILD=0``: it
    is never built, and steps stay off.)"""
    from lazyarray.backend import native
    float(xp.sum(xp.asarray(np.ones(3)) * 2.0))
    native.flush()
    float(xp.sum(xp.asarray(np.ones(3)) * 3.0))  # loads it
    from lazyarray import _recording
    _recording.load_now()  # the native operators too (lazyarray/_recording.py)


def in_steps(make, monkeypatch) -> None:
    """Evaluate ``make()`` in steps (lazyarray/_steps.py), its one-op programs made, even
    where an earlier test planned its structure whole (a graph's key is size-independent,
    so one test's structure is "seen" in the next)."""
    from lazyarray import _steps
    with monkeypatch.context() as m:
        m.setattr(_steps.PROGRAMS, "has_schedule", lambda key: False)
        _steps._MET.clear()
        _steps._SEEN.clear()
        np.asarray(make())


@contextlib.contextmanager
def one_op_steps():
    """Steps run one-op programs only: no fused regions (lazyarray/_fusion.py)."""
    from lazyarray import _fusion
    before = _fusion.set_largest(0)
    try:
        yield
    finally:
        _fusion.set_largest(before)
