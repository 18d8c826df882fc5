"""Shared machinery of the differential suite: lazyarray against array-api-strict.

Inputs are drawn as array-api-strict arrays with ``hypothesis.extra.array_api``
strategies (``hs``) and copied into lazyarray; a function runs on both
libraries and ``check`` compares dtype (by name), shape and values.  Values
compare exactly (NaN positions, and the sign of zero) unless a tolerance is
given: the standard requires correctly rounded results only for arithmetic,
``sqrt`` and ``reciprocal`` on real floating-point values, and exact ones for
everything that is not an approximation (comparisons, rounding, integer
arithmetic, indexing, manipulation, sorting).

Runs are deterministic and short: every test uses ``examples(n)`` settings
(``derandomize=True``, no example database, a fixed ``max_examples`` that the
environment variable ``LAZYARRAY_DIFF_EXAMPLES`` may scale, e.g. ``=4`` for a
deeper local run).  lazyarray compiles each new graph structure once (tens of
milliseconds), so the strategies keep the number of distinct structures per
test small (few ranks, few broadcast patterns), and tests that cover many
functions evaluate them in one program (``evaluate_all``).
"""
from __future__ import annotations

import os
from typing import Any, Callable

import array_api_strict as xs
import lazyarray as xp
import numpy as np
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.extra.array_api import make_strategies_namespace

hs = make_strategies_namespace(xs, api_version="2025.12")
StrictArray = type(xs.asarray(0))  # array-api-strict exports neither class
StrictDType = type(xs.float64)

_SCALE = float(os.environ.get("LAZYARRAY_DIFF_EXAMPLES", "1"))


def examples(n: int) -> settings:
    """Deterministic hypothesis settings with ``n`` examples (times the scale)."""
    return settings(max_examples=max(1, int(n * _SCALE)), deadline=None, derandomize=True,
                    database=None, print_blob=False,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.filter_too_much])


DIFF = examples(5)

# ----------------------------------------------------------------------------- dtypes

BOOL = ["bool"]
SIGNED = ["int8", "int16", "int32", "int64"]
UNSIGNED = ["uint8", "uint16", "uint32", "uint64"]
INTEGER = SIGNED + UNSIGNED
REAL_FLOATING = ["float32", "float64"]
COMPLEX = ["complex64", "complex128"]
FLOATING = REAL_FLOATING + COMPLEX
REAL_NUMERIC = INTEGER + REAL_FLOATING
NUMERIC = INTEGER + FLOATING
ALL = BOOL + NUMERIC
CATEGORY = {"bool": BOOL, "integer": INTEGER, "integer or boolean": INTEGER + BOOL,
            "real floating": REAL_FLOATING, "complex floating": COMPLEX, "floating": FLOATING,
            "real numeric": REAL_NUMERIC, "numeric": NUMERIC, "all": ALL}


def sd(name: str):
    """The array-api-strict dtype called ``name``."""
    return getattr(xs, name)


def ld(name: str):
    """The lazyarray dtype called ``name``."""
    return getattr(xp, name)


def name_of(dtype: Any) -> str:
    """The standard's name of a dtype of either library."""
    return str(dtype).rsplit(".", 1)[-1]


def promotable_pairs(names: list) -> list:
    """Ordered pairs of distinct dtypes in ``names`` that the standard promotes."""
    out = []
    for a in names:
        for b in names:
            if a != b:
                try:
                    xs.result_type(sd(a), sd(b))
                except TypeError:
                    continue
                out.append((a, b))
    return out


# ----------------------------------------------------------------------------- strategies

def shapes(min_dims: int = 0, max_dims: int = 2, min_side: int = 0, max_side: int = 4):
    return hs.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=min_side,
                           max_side=max_side)


def special_values(dtype: str) -> list:
    """The values the standard's special cases and the dtype's limits single out."""
    d = np.dtype(dtype)
    if d.kind == "b":
        return [False, True]
    if d.kind in "iu":
        info = np.iinfo(d)
        return sorted({int(info.min), int(info.max), 0, 1, 2, 7, int(info.max) - 1} |
                      ({-1, -2, int(info.min) + 1} if d.kind == "i" else set()))
    f = np.finfo(d if d.kind == "f" else np.dtype(f"float{d.itemsize * 4}"))
    return [float("nan"), float("inf"), -float("inf"), 0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0,
            -2.5, 1.5, 3.0, float(f.max), -float(f.max), float(f.smallest_subnormal),
            -float(f.smallest_normal)]


def elements(dtype: str):
    """Array elements: the dtype's special values half of the time, else any value."""
    d = np.dtype(dtype)
    if d.kind == "c":
        part = elements(f"float{d.itemsize * 4}")
        return st.builds(complex, part, part)
    return st.one_of(st.sampled_from(special_values(dtype)), hs.from_dtype(sd(dtype)))


def scalars_of(dtype: str):
    """Python scalars the standard lets combine with an array of ``dtype``."""
    d = np.dtype(dtype)
    if d.kind == "b":
        return st.booleans()
    if d.kind in "iu":
        info = np.iinfo(d)
        return st.integers(int(info.min), int(info.max))
    specials = st.sampled_from(special_values(dtype))
    if d.kind == "f":
        return st.one_of(specials, st.floats(width=d.itemsize * 8), st.integers(-2**20, 2**20))
    return st.one_of(specials, st.complex_numbers(width=d.itemsize * 8),
                     st.floats(width=d.itemsize * 4))


def arrays(dtype: str, shape=None, elements_=None, **kw):
    """A strategy of array-api-strict arrays of dtype ``dtype``."""
    return hs.arrays(sd(dtype), shape if shape is not None else shapes(),
                     elements=elements_ if elements_ is not None else elements(dtype), **kw)


def bounded_or_special(dtype: str, bound: float = 1e3):
    """Bounded values with NaN, infinities and signed zeros mixed in, for reductions whose
    rounding (or overflow) depends on the order of evaluation; any integer."""
    d = np.dtype(dtype)
    if d.kind in "biu":
        return elements(dtype)
    specials = st.sampled_from([float("nan"), float("inf"), -float("inf"), 0.0, -0.0, 1.0])
    width = 32 if dtype in ("float32", "complex64") else 64
    part = st.one_of(specials, st.floats(-bound, bound, width=width))
    if d.kind == "c":
        return st.builds(complex, part, part)
    return part


# ----------------------------------------------------------------------------- calling

def to_lazy(value: Any) -> Any:
    """The lazyarray counterpart of an array-api-strict value (recursively)."""
    if isinstance(value, StrictArray):
        return xp.asarray(np.array(np.asarray(value)))
    if isinstance(value, (list, tuple)):
        return type(value)(to_lazy(v) for v in value)
    if isinstance(value, dict):
        return {k: to_lazy(v) for k, v in value.items()}
    if isinstance(value, StrictDType):
        return ld(name_of(value))
    return value


def resolve(module: Any, path: str) -> Callable:
    obj = module
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


def run_both(fname: str, *args, **kwargs):
    """``fname(*args, **kwargs)`` on array-api-strict inputs and on their lazyarray copies."""
    lazy_args, lazy_kwargs = to_lazy(list(args)), to_lazy(kwargs)
    want = resolve(xs, fname)(*args, **kwargs)
    got = resolve(xp, fname)(*lazy_args, **lazy_kwargs)
    return got, want


def run_call(fn: Callable, *args, **kwargs):
    """``fn`` (written against either library, e.g. an operator) on both libraries."""
    lazy_args, lazy_kwargs = to_lazy(list(args)), to_lazy(kwargs)
    want = fn(*args, **kwargs)
    got = fn(*lazy_args, **lazy_kwargs)
    return got, want


# ----------------------------------------------------------------------------- comparing

def _eps(d: np.dtype) -> float:
    return float(np.finfo(d).eps)


def rtol_for(dtype_name: str, ulps: float) -> float:
    """``ulps`` units in the last place of ``dtype_name`` (its real part); 0 if exact."""
    d = np.dtype(dtype_name)
    return ulps * _eps(d) if d.kind in "fc" else 0.0


def check(got: Any, want: Any, *, rtol: float = 0.0, atol: Any = 0.0, zero_sign: bool = True,
          ignore: Any = None, sign_free: Any = None, where: str = "") -> None:
    """Assert lazyarray's ``got`` equals array-api-strict's ``want``.

    dtype (by name) and shape always match exactly.  Values: NaN where and only
    where the reference has NaN (per component for complex), infinities equal,
    and finite values equal -- or within ``atol + rtol * |want|`` when a
    tolerance is given (componentwise for real, by modulus for complex).  With
    ``zero_sign`` the sign of zero results must match as well.  Values where the
    boolean mask ``ignore`` (broadcast to the result) is set are not compared:
    those are inputs where the reference is known to deviate from the standard.
    ``sign_free`` = (real mask, imaginary mask) names complex components whose
    sign the standard leaves unspecified: where those are zero or infinite, only
    their magnitudes compare.
    """
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want), f"{where}: {got!r} vs {want!r}"
        for i, (g, w) in enumerate(zip(got, want)):
            check(g, w, rtol=rtol, atol=atol, zero_sign=zero_sign, ignore=ignore,
                  sign_free=sign_free, where=f"{where}[{i}]")
        return
    if not isinstance(want, StrictArray):  # Python scalars from e.g. finfo, __int__
        assert type(got) is type(want) and (got == want or got != got and want != want), \
            f"{where}: got {got!r}, want {want!r}"
        return
    assert isinstance(got, xp.Array), f"{where}: expected a lazyarray Array, got {type(got)}"
    assert name_of(got.dtype) == name_of(want.dtype), \
        f"{where}: dtype {name_of(got.dtype)} != reference {name_of(want.dtype)}"
    assert tuple(got.shape) == tuple(want.shape), \
        f"{where}: shape {got.shape} != reference {want.shape}"
    g, w = np.asarray(got), np.asarray(want)
    assert g.dtype == w.dtype and g.shape == w.shape, f"{where}: materialized {g.dtype}{g.shape}"
    if sign_free is not None:
        g, w = _unsign(g, sign_free), _unsign(w, sign_free)
    compare_values(g, w, rtol=rtol, atol=atol, zero_sign=zero_sign, ignore=ignore, where=where)


def _unsign(a: np.ndarray, masks: tuple) -> np.ndarray:
    """``a`` with the sign dropped from its zero and infinite parts where masked."""
    def drop(part, mask):
        return np.where(mask & ((part == 0) | np.isinf(part)), np.abs(part), part)
    re, im = drop(a.real, masks[0]), drop(a.imag, masks[1])
    out = np.empty(np.broadcast_shapes(a.shape, np.shape(masks[0])), a.dtype)
    out.real, out.imag = re, im
    return out


def compare_values(g: np.ndarray, w: np.ndarray, *, rtol: float = 0.0, atol: Any = 0.0,
                   zero_sign: bool = True, ignore: Any = None, where: str = "") -> None:
    if w.dtype.kind in "biu":
        bad = g != w
    elif w.dtype.kind == "f":
        bad = _bad_real(g, w, rtol, atol, zero_sign)
    else:
        bad = _bad_real(g.real, w.real, 0.0, 0.0, zero_sign) | \
            _bad_real(g.imag, w.imag, 0.0, 0.0, zero_sign)
        if rtol or np.any(atol):
            # finite results within tolerance of the reference's modulus
            fin = np.isfinite(w.real) & np.isfinite(w.imag) & np.isfinite(g.real) & \
                np.isfinite(g.imag)
            with np.errstate(all="ignore"):
                near = np.abs(g.astype(np.complex128) - w) <= atol + rtol * np.abs(w)
            signs = np.zeros(bad.shape, bool)
            if zero_sign:  # parts that are zero in both still carry a sign to match
                for gp, wp in ((g.real, w.real), (g.imag, w.imag)):
                    signs |= (gp == 0) & (wp == 0) & (np.signbit(gp) != np.signbit(wp))
            bad = np.where(fin, ~near | signs, bad)
            # one part infinite: the other within tolerance of its own size (it carries the
            # error of the finite factor, e.g. sinh(99) * sin(b) in cosh(99 + bj))
            half = np.isinf(w.real) != np.isinf(w.imag)
            parts = _bad_real(g.real, w.real, rtol, atol, zero_sign) | \
                _bad_real(g.imag, w.imag, rtol, atol, zero_sign)
            bad = np.where(half, parts, bad)
    if ignore is not None:
        bad = bad & ~np.broadcast_to(ignore, bad.shape)
    if np.any(bad):
        idx = np.argwhere(np.atleast_1d(bad))[:5]
        gi, wi = np.atleast_1d(g), np.atleast_1d(w)
        rows = "; ".join(f"at {tuple(i)}: got {gi[tuple(i)]!r} want {wi[tuple(i)]!r}"
                         for i in idx)
        raise AssertionError(f"{where}: {int(np.sum(bad))} of {w.size} values differ "
                             f"(rtol={rtol}): {rows}")


def _bad_real(g: np.ndarray, w: np.ndarray, rtol: float, atol: Any, zero_sign: bool):
    gn, wn = np.isnan(g), np.isnan(w)
    with np.errstate(all="ignore"):
        if rtol or np.any(atol):
            eq = (g == w) | (np.abs(g.astype(np.float64) - w) <= atol + rtol * np.abs(w))
        else:
            eq = g == w
        bad = (gn != wn) | (~gn & ~wn & ~eq)
        if zero_sign:
            bad |= (g == 0) & (w == 0) & (np.signbit(g) != np.signbit(w))
    return bad


def evaluate_all(arrays: list) -> list:
    """Materialize several lazyarray results in one program: one compilation for all."""
    out = xp.evaluate(*arrays)
    return list(out) if isinstance(out, tuple) else [out]
