"""Random expression graphs run by lazyarray and by numpy side by side (the fuzzer).

``generate(chooser)`` builds a ``Graph``: 1-3 input arrays of random dtypes and
shapes (special values over-represented: NaN, +-inf, +-0.0, the integer limits,
0 and -1), then 1..8 random ops from the namespace, each recorded twice: as a
function replayed on lazyarray arrays (data leaves or placeholders) and as its
numpy mirror, evaluated at once.  ``run_graph(graph)`` evaluates the lazyarray
side implicitly (``np.asarray`` / ``xp.evaluate``) and, for some graphs, as a
compiled program over placeholders, and compares every output to numpy.

Each reference value carries an error bound: ``tol`` (per element, absolute;
0 = exact, inf = no defined answer) and ``zs`` (the sign of a zero is not
defined).  Ops the standard requires to be exact (integer and bool results,
arithmetic, sqrt, comparisons, rounding, manipulation, indexing) compare bit for
bit, NaN positions and zero signs included.  Approximations get a documented
budget: ``ULPS`` for libm functions, ``n * eps * sum|x|`` for float sums (the
standard leaves summation order open), the matmul/vecdot analogue, and the same
bounds for products.  Later ops propagate a bound by evaluating their numpy
mirror at the corners of the input intervals (``x - tol, x, x + tol``, and
``-0.0`` for an undefined zero sign): a result whose corners disagree in a
discrete way (a comparison, a cast to integer, a NaN) has no defined answer and
is not compared.  lazyarray's documented choices where the standard is silent
(README) are mirrored: integer division by zero gives 0, float-to-integer casts
saturate (NaN -> 0), integer ``pow`` with negative exponents, ``floor_divide``
with infinite operands is ``floor(x / y)``, mixed-kind promotion raises
TypeError and max/min/argmax of an empty extent ValueError (both generated on
purpose now and then as expected errors).

Left open on purpose (documented tolerances, each with its reason at the code):
the sign of a zero from ``maximum``/``minimum``/``max``/``min``/``clip`` and of a
zero sum or running sum; the sign of a computed NaN (``signbit``, ``copysign``);
the sign of a zero or infinite complex part next to a NaN part (the standard
says "unspecified"); complex ``pow`` with a non-finite operand; complex
functions overflowing on finite input.  Where numpy itself strays from the
standard or from accuracy the mirror is corrected: complex ``mean`` divides per
part, complex ``expm1`` of non-finite input is ``exp(z) - 1``, complex ``log1p``
uses an accurate formula, complex64 functions are computed in complex128.
"""
from __future__ import annotations

import itertools
import math
import operator
import traceback
import warnings
from dataclasses import dataclass, field
from typing import Callable, Optional

import numpy as np

import lazyarray as xp

MAX_SIZE = 400          # elements per intermediate result (keeps numpy bounds cheap)
MAX_RANK = 4

BOOL = ("bool",)
SIGNED = ("int8", "int16", "int32", "int64")
UNSIGNED = ("uint8", "uint16", "uint32", "uint64")
INTEGER = SIGNED + UNSIGNED
REAL_FLOAT = ("float32", "float64")
COMPLEX = ("complex64", "complex128")
FLOATING = REAL_FLOAT + COMPLEX
REAL_NUMERIC = INTEGER + REAL_FLOAT
NUMERIC = INTEGER + FLOATING
ALL = BOOL + NUMERIC
CATEGORY = {"bool": BOOL, "integer": INTEGER, "integer or boolean": INTEGER + BOOL,
            "real floating": REAL_FLOAT, "floating": FLOATING, "complex": COMPLEX,
            "real numeric": REAL_NUMERIC, "numeric": NUMERIC, "all": ALL}

# Budget of libm-style approximations, in units in the last place of the result
# (numpy uses its own SIMD/SVML code, lazyarray glibc libm/libmvec: both a few ulp).
ULPS = {"float32": 8, "float64": 8, "complex64": 16, "complex128": 16}


def promotable(a: str, b: str) -> bool:
    """Whether the standard's table promotes dtypes ``a`` and ``b`` (checked without
    lazyarray: the same kind, and no signed integer with uint64)."""
    group = {k: g for g, names in (("b", BOOL), ("i", INTEGER), ("f", FLOATING)) for k in names}
    if group[a] != group[b]:
        return False
    if group[a] == "i" and {a, b} & {"uint64"} and {a, b} & set(SIGNED):
        return False
    return True


def promote(a: str, b: str) -> str:
    return np.promote_types(a, b).name


def real_of(name: str) -> str:
    return {"complex64": "float32", "complex128": "float64"}.get(name, name)


# ----------------------------------------------------------------------------- choices

class Chooser:
    """Random choices from a numpy Generator (one per graph: seed + index reproduce it)."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng

    def int(self, lo: int, hi: int) -> int:
        """An int in [lo, hi]."""
        return int(self.rng.integers(lo, hi + 1))

    def chance(self, p: float) -> bool:
        return bool(self.rng.random() < p)

    def pick(self, seq):
        seq = list(seq)
        return seq[self.int(0, len(seq) - 1)]

    def weighted(self, weights: dict):
        names = list(weights)
        w = np.array([weights[n] for n in names], float)
        return names[int(self.rng.choice(len(names), p=w / w.sum()))]


class HypothesisChooser(Chooser):
    """Structure drawn through hypothesis (so failures shrink); values from a numpy
    Generator whose seed hypothesis draws."""

    def __init__(self, data) -> None:
        from hypothesis import strategies as st
        self._st, self.data = st, data
        super().__init__(np.random.default_rng(data.draw(st.integers(0, 2**32 - 1))))

    def int(self, lo: int, hi: int) -> int:
        return self.data.draw(self._st.integers(lo, hi))

    def chance(self, p: float) -> bool:
        return self.data.draw(self._st.integers(0, 999)) < p * 1000

    def weighted(self, weights: dict):
        total = sum(weights.values())
        r = self.data.draw(self._st.integers(0, 10**6 - 1)) / 10**6 * total
        for name, w in weights.items():
            r -= w
            if r < 0:
                return name
        return name


# ----------------------------------------------------------------------------- values

def special_values(dtype: str) -> list:
    d = np.dtype(dtype)
    if d.kind == "b":
        return [False, True]
    if d.kind in "iu":
        i = np.iinfo(d)
        base = [0, 1, 2, 3, int(i.max), int(i.max) - 1]
        return base + ([-1, -2, int(i.min), int(i.min) + 1] if d.kind == "i" else [])
    f = np.finfo(real_of(dtype))
    return [math.nan, math.inf, -math.inf, 0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -3.0,
            float(f.max), -float(f.max), float(f.smallest_normal),
            -float(f.smallest_subnormal), 1e-7, 100.0, 0.75]


def random_values(ch: Chooser, shape: tuple, dtype: str) -> np.ndarray:
    """An array with the dtype's special values over-represented."""
    rng, d = ch.rng, np.dtype(dtype)
    n = math.prod(shape)
    if d.kind == "c":
        out = np.empty(shape, d)
        out.real, out.imag = (random_values(ch, shape, real_of(dtype)) for _ in range(2))
        return out
    if d.kind == "b":
        v = rng.random(n) < ch.pick([0.1, 0.5, 0.9])
    elif d.kind in "iu":
        i = np.iinfo(d)
        small = rng.integers(max(i.min, -12), 13, n)
        full = rng.integers(int(i.min), int(i.max), n, dtype=d, endpoint=True)
        v = np.where(rng.random(n) < 0.7, small.astype(d), full)
    else:
        scale = ch.pick([1.0, 1.0, 1.0, 1e-3, 1e3, 1e30])
        v = rng.standard_normal(n) * scale
        if ch.chance(0.2):
            v = np.round(v * 4) / 4          # ties for argmax, round, floor, remainder
    v = np.asarray(v).astype(d)
    p = ch.pick([0.0, 0.05, 0.2, 0.5])
    if p and n:
        sp = special_values(dtype)
        mask = rng.random(n) < p
        picks = np.array(sp, dtype=object)[rng.integers(0, len(sp), n)]
        with np.errstate(all="ignore"):
            v[mask] = np.array(list(picks[mask]), dtype=object).astype(d) if mask.any() else v[mask]
    return v.reshape(shape)


def random_scalar(ch: Chooser, dtype: str):
    """A Python scalar of the kind the standard lets combine with ``dtype``."""
    d = np.dtype(dtype)
    if d.kind == "b":
        return ch.chance(0.5)
    if d.kind in "iu":
        i = np.iinfo(d)
        v = ch.pick([0, 1, -1, 2, 3, 7, int(i.max), int(i.min), ch.int(-100, 100)])
        return min(max(v, int(i.min)), int(i.max))
    choices = [0.0, -0.0, 1.0, -1.0, 0.5, 2.0, math.nan, math.inf, -math.inf, 1e300, 3,
               -2, float(np.round(ch.rng.standard_normal(), 3))]
    v = ch.pick(choices)
    if d.kind == "c" or ch.chance(0.05):
        v = complex(v, ch.pick([0.0, -0.0, 1.0, -2.5, math.inf, math.nan]))
    return v


# ----------------------------------------------------------------------------- graph

@dataclass
class Val:
    """A value of the graph as numpy computes it, with its error bound."""

    ref: np.ndarray
    tol: np.ndarray      # float64, ref.shape: 0 exact, inf undefined
    zs: np.ndarray       # bool, ref.shape: the sign of a zero is undefined
    name: str

    @property
    def dtype(self) -> str:
        return self.ref.dtype.name

    @property
    def shape(self) -> tuple:
        return self.ref.shape


@dataclass
class Step:
    text: str                    # e.g. "xp.sin(v1)"
    fn: Callable                 # fn(*lazy arrays) -> lazy array
    args: tuple                  # indices of the arguments in Graph.vals


@dataclass
class Graph:
    inputs: list                 # numpy values of the leaves
    steps: list = field(default_factory=list)
    vals: list = field(default_factory=list)
    outputs: list = field(default_factory=list)
    expect_error: Optional[type] = None
    program: bool = False        # also run as a compiled program over placeholders
    symbolic: bool = False       # ... with symbolic sizes
    evaluate_together: bool = False

    def listing(self) -> str:
        lines = []
        for i, v in enumerate(self.inputs):
            view = "" if v.flags.c_contiguous else f"  # strides {v.strides}"
            lines.append(f"v{i} = input({v.dtype.name}, shape={v.shape}){view}")
        for k, s in enumerate(self.steps):
            lines.append(f"v{len(self.inputs) + k} = {s.text}")
        outs = ", ".join(f"v{i}" for i in self.outputs)
        if self.expect_error:
            outs += f"   # expect {self.expect_error.__name__}"
        mode = "program" + (" (symbolic)" if self.symbolic else "") if self.program else "implicit"
        lines.append(f"outputs: {outs}   [{mode}]")
        return "\n".join(lines)


def replay(graph: Graph, leaves: list) -> list:
    arrs = list(leaves)
    for s in graph.steps:
        arrs.append(s.fn(*(arrs[i] for i in s.args)))
    return arrs


# ----------------------------------------------------------------------------- error bounds

def _fin(t: np.ndarray) -> np.ndarray:
    return np.where(np.isinf(t), 0.0, t)


def _spacing(ref: np.ndarray) -> np.ndarray:
    """One unit in the last place of each element (float64), per part for complex."""
    if ref.dtype.kind == "c":
        re, im = np.abs(ref.real), np.abs(ref.imag)
        mag = np.maximum(re, im)
        # An infinite part next to a finite nonzero one (log10(-inf + 1j) = inf + pi/ln(10) j):
        # the finite part is rounded like any result; a zero part stays exact (its sign
        # is a special case of the standard).
        mag = np.where(np.isinf(re) & (im != 0), im, np.where(np.isinf(im) & (re != 0), re, mag))
    else:
        mag = np.abs(ref)
    with np.errstate(all="ignore"):
        sp = np.spacing(mag.astype(real_of(ref.dtype.name))).astype(np.float64)
    return np.where(np.isfinite(sp), sp, 0.0)


def _corners(v: Val) -> list:
    """The input interval's corners (the value itself first)."""
    t = _fin(v.tol).astype(real_of(v.dtype)) if v.dtype in FLOATING else None
    out = [v.ref]
    with np.errstate(all="ignore"):
        if t is not None and (t > 0).any():
            out += [v.ref - t, v.ref + t]
            if v.dtype in COMPLEX:
                out += [v.ref - 1j * t, v.ref + 1j * t]
            out = [np.asarray(c).astype(v.ref.dtype) for c in out]
        if v.zs.any() and v.dtype in COMPLEX:   # each zero part may have either sign
            for part in ("real", "imag"):
                c = v.ref.copy()
                p = getattr(c, part)
                p[...] = np.where(v.zs & (p == 0), -p, p)
                out.append(c)
        elif v.zs.any():
            out.append(np.where(v.zs & (v.ref == 0), -v.ref, v.ref).astype(v.ref.dtype))
    return out


def _deviation(out: np.ndarray, ref: np.ndarray):
    """(|out - ref| per element, where they differ discretely, where zero signs differ)."""
    if ref.dtype.kind in "biu":
        return np.zeros(ref.shape), out != ref, np.zeros(ref.shape, bool)
    parts = [(out.real, ref.real), (out.imag, ref.imag)] if ref.dtype.kind == "c" else [(out, ref)]
    dev, discrete, sign = np.zeros(ref.shape), np.zeros(ref.shape, bool), np.zeros(ref.shape, bool)
    with np.errstate(all="ignore"):
        for o, r in parts:
            o, r = o.astype(np.float64), r.astype(np.float64)
            nan_o, nan_r = np.isnan(o), np.isnan(r)
            discrete |= nan_o != nan_r
            discrete |= (np.isinf(o) | np.isinf(r)) & (o != r) & ~nan_o & ~nan_r
            d = np.abs(o - r)
            dev = np.maximum(dev, np.where(np.isfinite(d), d, 0.0))
            sign |= (o == 0) & (r == 0) & (np.signbit(o) != np.signbit(r))
    return dev, discrete, sign


def elementwise_bound(np_fn: Callable, args: list, ref: np.ndarray, ulps: float,
                      free_zero_sign: bool = False, periodic: bool = False):
    """(tol, zs) of an elementwise op from its inputs' bounds (interval corners)."""
    shape = ref.shape
    unknown = np.zeros(shape, bool)
    zs = np.zeros(shape, bool)
    corner_sets, approx = [], False
    for a in args:
        if isinstance(a, Val):
            unknown |= np.broadcast_to(np.isinf(a.tol), shape)
            cs = _corners(a)
            approx |= len(cs) > 1
            if periodic and a.dtype in FLOATING and (_fin(a.tol) > 0.25).any():
                unknown |= np.broadcast_to(_fin(a.tol) > 0.25, shape)
            corner_sets.append(cs)
        else:
            corner_sets.append([a])
    dev = np.zeros(shape)
    if approx:
        with np.errstate(all="ignore"):
            for combo in itertools.product(*corner_sets):
                out = np.broadcast_to(np.asarray(np_fn(*combo)), shape)
                d, discrete, sign = _deviation(out, ref)
                dev = np.maximum(dev, d)
                unknown |= discrete
                zs |= sign
    tol = np.zeros(shape)
    if ref.dtype.kind in "fc":
        own = ulps + (1 if approx else 0)
        tol = 2 * dev + own * _spacing(ref)
        if own:
            limit = float(np.finfo(real_of(ref.dtype.name)).max)
            mag = np.abs(ref.real) + (np.abs(ref.imag) if ref.dtype.kind == "c" else 0)
            with np.errstate(all="ignore"):
                unknown |= np.isfinite(mag) & (mag.astype(np.float64) + tol > limit)
        if own and ref.dtype.kind == "c":
            # A complex function overflowing on finite input: the standard lists no such
            # case (numpy's exp(x)*cos(y) gives inf*0 = NaN parts where 0 is right).
            finite_in = np.ones(shape, bool)
            for a in args:
                finite_in &= np.broadcast_to(np.isfinite(getattr(a, "ref", a)), shape)
            unknown |= finite_in & ~np.isfinite(ref)
            # or overflowing in its own precision where the reference (complex128) does
            # not: complex64 x / x of a subnormal x is inf+nanj in numpy as in lazyarray
            with np.errstate(all="ignore"):
                narrow = getattr(np_fn, "narrow", np_fn)
                native = np.broadcast_to(
                    np.asarray(narrow(*(getattr(a, "ref", a) for a in args))), shape)
            unknown |= finite_in & np.isfinite(ref) & ~np.isfinite(native)
        if free_zero_sign:
            zs |= ref == 0
    return np.where(unknown, np.inf, tol), zs & ~unknown


def struct_bound(np_fn: Callable, args: list, data: tuple):
    """(tol, zs) of a structural op: the same op applied to the bounds; ``data`` marks
    the arguments that are moved (the others, e.g. indices, must be exact)."""
    tol = np_fn(*(a.tol if isinstance(a, Val) and d else getattr(a, "ref", a)
                  for a, d in zip(args, data)))
    zs = np_fn(*(a.zs if isinstance(a, Val) and d else getattr(a, "ref", a)
                 for a, d in zip(args, data)))
    tol = np.asarray(tol, np.float64)
    for a, d in zip(args, data):
        if isinstance(a, Val) and not d and np.isinf(a.tol).any():
            tol = np.full(tol.shape, np.inf)
    return tol, np.asarray(zs, bool)


def _axes_of(axis, ndim: int) -> tuple:
    if axis is None:
        return tuple(range(ndim))
    axis = axis if isinstance(axis, tuple) else (axis,)
    return tuple(sorted(a % ndim for a in axis))


def _magnitude(v: np.ndarray) -> np.ndarray:
    """|x| as float64 (|re| + |im| for complex), 0 for non-finite parts.  (A complex
    element with one infinite part keeps the other's: a sum of terms whose real parts
    are -inf still rounds its imaginary parts in any order.)"""
    if v.dtype.kind == "c":
        return _finite_abs(v.real) + _finite_abs(v.imag)
    return _finite_abs(v)


def _finite_abs(v: np.ndarray) -> np.ndarray:
    m = np.abs(v.astype(np.float64))
    return np.where(np.isfinite(m), m, 0.0)


def sum_bound(x: Val, xs: np.ndarray, ref: np.ndarray, axes: tuple, keepdims: bool, scale=1.0):
    """Bound of a sum (``xs``: the input cast to the accumulation dtype); ``scale``
    divides for a mean.  Any order of summation is allowed."""
    kw = dict(axis=axes, keepdims=keepdims)
    unknown = np.any(np.isinf(x.tol), **kw)
    # The sign of a zero sum is not specified: numpy adds to +0 (sum([-0.0]) is +0.0),
    # lazyarray returns -0.0 for a single -0.0 (the IEEE sum of one term).
    zs = np.any(x.zs, **kw) | _zero_part(ref)
    if ref.dtype.kind in "biu":
        return np.where(unknown, np.inf, 0.0), np.zeros(ref.shape, bool)
    n = math.prod(x.shape[a] for a in axes)
    u = float(np.finfo(real_of(ref.dtype.name)).eps) / 2
    s = np.sum(_magnitude(xs), **kw)
    tol = np.sum(_fin(x.tol), **kw) + (2 * n * u * s if n >= 3 else 0.0)
    tol = tol / scale + (2 * _spacing(ref) if scale != 1 else 0)
    with np.errstate(all="ignore"):
        unknown |= s > float(np.finfo(real_of(ref.dtype.name)).max)
    return np.where(unknown, np.inf, tol), zs & ~unknown


def prod_bound(x: Val, xs: np.ndarray, ref: np.ndarray, axes: tuple, keepdims: bool):
    """Bound of a product in any order: the relative error grows by n eps, and an
    order-dependent overflow or underflow leaves the result undefined."""
    kw = dict(axis=axes, keepdims=keepdims)
    unknown = np.any(np.isinf(x.tol), **kw)
    if ref.dtype.kind in "biu":
        return np.where(unknown, np.inf, 0.0), np.zeros(ref.shape, bool)
    info = np.finfo(real_of(ref.dtype.name))
    n = math.prod(x.shape[a] for a in axes)
    a, t = _magnitude(xs), _fin(x.tol)
    finite = np.isfinite(xs)
    with np.errstate(all="ignore"):
        hi = np.prod(a + t, **kw)
        spread = hi - np.prod(a, **kw) + (4 * np.finfo(np.float64).eps * hi if (t > 0).any() else 0)
        big = np.prod(np.where(finite & (a > 1), a + t, 1.0), **kw)
        small = np.prod(np.where(finite & (a < 1) & (a > 0), np.maximum(a - t, 0), 1.0), **kw)
        zero = np.any(finite & (a - t <= 0), **kw)
        unknown |= big > float(info.max) / 4
        unknown |= (small < float(info.smallest_normal) * 2 ** 24) & ~zero
        if ref.dtype.kind == "c":
            unknown |= ~np.all(finite, **kw)
        # a product of two reals rounds once, as numpy's; a complex product of two rounds
        # several times and may be fused (as in matmul_bound), so it is inexact too
        inexact = n >= 3 or (ref.dtype.kind == "c" and n >= 2)
        tol = spread + (4 * n * float(info.eps) * hi if inexact else 0.0)
    return np.where(unknown, np.inf, tol), np.any(x.zs, **kw) & ~unknown


# ----------------------------------------------------------------------------- numpy mirrors

def np_astype(v: np.ndarray, dtype: str) -> np.ndarray:
    """numpy's astype with lazyarray's documented float-to-integer saturation."""
    d = np.dtype(dtype)
    if v.dtype.kind == "f" and d.kind in "iu":
        i = np.iinfo(d)
        t = np.trunc(v)
        first_out = 2.0 ** (i.bits - (1 if d.kind == "i" else 0))
        ok = (t >= float(i.min)) & (t < first_out)
        out = np.zeros(v.shape, d)
        out[ok] = t[ok].astype(d)
        out[t >= first_out] = i.max
        out[t < float(i.min)] = i.min
        return out
    return v.astype(d)


def np_int_pow(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Integer pow; a negative exponent gives 1 for base 1, +-1 for -1, else 0."""
    a, b = np.broadcast_arrays(a, b)
    if a.dtype.kind == "u":
        return np.power(a, b)
    neg = b < 0
    pos = np.power(a, np.where(neg, 0, b).astype(b.dtype))
    odd = (b % 2) != 0
    negres = np.where(a == 1, 1, np.where(a == -1, np.where(odd, -1, 1), 0)).astype(a.dtype)
    return np.where(neg, negres, pos)


def np_pow(a, b):
    if np.asarray(a).dtype.kind in "iu":
        return np_int_pow(np.asarray(a), np.asarray(b))
    out = np.power(a, b)
    if np.asarray(a).dtype.kind != "f":
        return out
    # numpy takes x ** 0.5 as sqrt(x): -inf -> nan and -0 -> -0, where the standard says
    # +inf and +0 for a positive exponent that is not an odd integer
    a, b = np.broadcast_arrays(np.asarray(a), np.asarray(b))
    fix = (b > 0) & ~((np.floor(b) == b) & (np.fmod(b, 2) != 0)) & ((a == -np.inf) | (a == 0))
    return np.where(fix, np.where(a == 0, 0, np.inf).astype(out.dtype), out)


def np_floor_divide(a, b):
    if np.asarray(a).dtype.kind == "f":
        with np.errstate(all="ignore"):
            return np.where(np.isinf(a) | np.isinf(b), np.floor(np.divide(a, b)),
                            np.floor_divide(a, b))
    return np.floor_divide(a, b)


def np_mean(r: np.ndarray, axes: tuple, keepdims: bool) -> np.ndarray:
    """The sum divided by the count, per part for complex (numpy's complex mean divides
    by a complex count, so a NaN real part of the sum spoils the imaginary one)."""
    s = np.asarray(np.sum(r, axis=axes, keepdims=keepdims))
    n = np.asarray(math.prod(r.shape[a] for a in axes), real_of(r.dtype.name))
    if r.dtype.kind != "c":
        return s / n
    out = np.empty_like(s)
    out.real, out.imag = s.real / n, s.imag / n
    return out


def pow_bound(vs: list, ref: np.ndarray, ulps: float):
    """Complex pow is computed as exp(y log x) (the standard's model): its error grows
    with |y log x|; with a non-finite operand the special cases of that composition
    (through a complex multiply) are left to the implementation, so undefined."""
    tol, zs = elementwise_bound(np_pow, vs, ref, ulps)
    if ref.dtype.kind != "c":
        return tol, zs
    x, y = (np.broadcast_to(getattr(v, "ref", v), ref.shape) for v in vs)
    with np.errstate(all="ignore"):
        growth = np.abs(y.astype(np.complex128) * np.log(x.astype(np.complex128)))
        tol = tol + 4 * np.where(np.isfinite(growth), growth, 0) * _spacing(ref)
    nonfinite = ~(np.isfinite(x) & np.isfinite(y))
    return np.where(nonfinite, np.inf, tol), zs & ~nonfinite


def np_clip(x, lo, hi):
    out = x
    if lo is not None:
        out = np.maximum(out, lo)
    if hi is not None:
        out = np.minimum(out, hi)
    return out


def np_log1p(x):
    """log1p; for complex finite z = a + bj with |z| < 0.5 as 0.5 log1p(a (2 + a) + b^2) +
    atan2(b, 1 + a) j (numpy's complex log1p takes log(|1 + z|) and loses all digits for
    small z)."""
    x = np.asarray(x)
    if x.dtype.kind != "c":
        return np.log1p(x)
    z = x.astype(np.complex128)
    a, b = z.real, z.imag
    out = np.log1p(z)
    with np.errstate(all="ignore"):
        accurate = np.empty_like(z)
        small = np.abs(z) < 0.5   # else 1 + a loses nothing that matters (|1 + z| >= 0.5)
        accurate.real = np.where(small, 0.5 * np.log1p(a * (2 + a) + b * b),
                                 np.log(np.hypot(1 + a, b)))
        accurate.imag = np.arctan2(b, 1 + a)
    fin = np.isfinite(z) & (np.abs(z) < 1e150)
    return np.where(fin, accurate, out).astype(x.dtype)


def np_expm1(x):
    """expm1; for complex non-finite input exp(z) - 1, whose special cases are the
    standard's list for expm1 (numpy gives NaN + NaN j for NaN + 0j, the standard NaN + 0j)."""
    x = np.asarray(x)
    if x.dtype.kind != "c":
        return np.expm1(x)
    with np.errstate(all="ignore"):
        return np.where(np.isfinite(x), np.expm1(x), np.exp(x) - np.ones((), x.real.dtype))


def np_sign(x):
    """sign; for complex z/|z| in extended precision (numpy's |z| overflows for parts
    near the largest float: it gives 0 + 1j for -1.8e308 + 1.8e308j) and NaN + NaN j
    for a NaN in either part (the standard; numpy gives -1j for NaN - inf j)."""
    x = np.asarray(x)
    if x.dtype.kind != "c":
        return np.sign(x)
    with np.errstate(all="ignore"):
        out = np.array(np.sign(x.astype(np.clongdouble)), dtype=x.dtype)
    out[np.isnan(x.real) | np.isnan(x.imag)] = complex(np.nan, np.nan)
    return out


def _wide_complex(np_fn: Callable) -> Callable:
    """``np_fn`` computed in complex128 for complex64 arguments, then rounded (numpy's
    complex64 functions compute in single precision and are less accurate than ULPS)."""
    def fn(*args):
        arrs = [np.asarray(a) for a in args]
        if not any(a.dtype == np.complex64 for a in arrs):
            return np_fn(*args)
        out = np.asarray(np_fn(*(a.astype(np.complex128) if a.dtype.kind in "fc" else a
                                 for a in arrs)))
        return out.astype(np.complex64 if out.dtype.kind == "c" else np.float32)
    fn.narrow = np_fn  # (numpy's own precision: see elementwise_bound)
    return fn


def _np_round(x):
    if np.asarray(x).dtype.kind in "biu":
        return np.asarray(x).copy()
    return np.round(x)


# name: (category, numpy function, ulps: None exact | "f" libm budget | "c" exact for
#        real and libm budget for complex), flags
UNARY = {
    "abs": ("numeric", np.abs, "c"), "acos": ("floating", np.acos, "f"),
    "acosh": ("floating", np.acosh, "f"), "asin": ("floating", np.asin, "f"),
    "asinh": ("floating", np.asinh, "f"), "atan": ("floating", np.atan, "f"),
    "atanh": ("floating", np.atanh, "f"), "bitwise_invert": ("integer or boolean", np.invert, None),
    "ceil": ("real numeric", np.ceil, None), "cos": ("floating", np.cos, "fp"),
    "cosh": ("floating", np.cosh, "f"), "exp": ("floating", np.exp, "f"),
    "expm1": ("floating", np_expm1, "f"), "floor": ("real numeric", np.floor, None),
    "isfinite": ("numeric", np.isfinite, None), "isinf": ("numeric", np.isinf, None),
    "isnan": ("numeric", np.isnan, None), "log": ("floating", np.log, "f"),
    "log1p": ("floating", np_log1p, "f"), "log2": ("floating", np.log2, "f"),
    "log10": ("floating", np.log10, "f"), "logical_not": ("bool", np.logical_not, None),
    "negative": ("numeric", np.negative, None), "round": ("numeric", _np_round, None),
    "sign": ("numeric", np_sign, "c"), "signbit": ("real floating", np.signbit, None),
    "sin": ("floating", np.sin, "fp"), "sinh": ("floating", np.sinh, "f"),
    "sqrt": ("floating", np.sqrt, "c"), "tan": ("floating", np.tan, "fp"),
    "tanh": ("floating", np.tanh, "f"), "trunc": ("real numeric", np.trunc, None),
    "square": ("numeric", np.square, None), "positive": ("numeric", np.positive, None),
    "reciprocal": ("floating", lambda x: np.divide(np.ones((), x.dtype), x), "c"),
    "real": ("numeric", np.real, None), "imag": ("complex", np.imag, None),
    "conj": ("numeric", np.conj, None),
}
UNARY_OPERATOR = {"negative": operator.neg, "positive": operator.pos, "abs": abs,
                  "bitwise_invert": operator.invert}

BINARY = {
    "add": ("numeric", np.add, None), "subtract": ("numeric", np.subtract, None),
    "multiply": ("numeric", np.multiply, None), "divide": ("numeric", np.divide, "c"),
    "atan2": ("real floating", np.atan2, "f"), "bitwise_and": ("integer or boolean", np.bitwise_and, None),
    "bitwise_or": ("integer or boolean", np.bitwise_or, None),
    "bitwise_xor": ("integer or boolean", np.bitwise_xor, None),
    "bitwise_left_shift": ("integer", np.left_shift, None),
    "bitwise_right_shift": ("integer", np.right_shift, None),
    "copysign": ("real floating", np.copysign, None), "equal": ("all", np.equal, None),
    "not_equal": ("all", np.not_equal, None), "greater": ("real numeric", np.greater, None),
    "greater_equal": ("real numeric", np.greater_equal, None), "less": ("real numeric", np.less, None),
    "less_equal": ("real numeric", np.less_equal, None),
    "floor_divide": ("real numeric", np_floor_divide, "p"), "hypot": ("real floating", np.hypot, "f"),
    "logaddexp": ("real floating", np.logaddexp, "f"), "logical_and": ("bool", np.logical_and, None),
    "logical_or": ("bool", np.logical_or, None), "logical_xor": ("bool", np.logical_xor, None),
    "maximum": ("real numeric", np.maximum, "z"), "minimum": ("real numeric", np.minimum, "z"),
    "nextafter": ("real floating", np.nextafter, None), "pow": ("numeric", np_pow, "f"),
    "remainder": ("real numeric", np.remainder, "p"),
}
BINARY_OPERATOR = {"add": operator.add, "subtract": operator.sub, "multiply": operator.mul,
                   "divide": operator.truediv, "floor_divide": operator.floordiv,
                   "remainder": operator.mod, "pow": operator.pow, "bitwise_and": operator.and_,
                   "bitwise_or": operator.or_, "bitwise_xor": operator.xor,
                   "bitwise_left_shift": operator.lshift, "bitwise_right_shift": operator.rshift,
                   "equal": operator.eq, "not_equal": operator.ne, "less": operator.lt,
                   "less_equal": operator.le, "greater": operator.gt, "greater_equal": operator.ge}
OPERATOR_SYMBOL = {operator.add: "+", operator.sub: "-", operator.mul: "*", operator.truediv: "/",
                   operator.floordiv: "//", operator.mod: "%", operator.pow: "**",
                   operator.and_: "&", operator.or_: "|", operator.xor: "^",
                   operator.lshift: "<<", operator.rshift: ">>", operator.eq: "==",
                   operator.ne: "!=", operator.lt: "<", operator.le: "<=", operator.gt: ">",
                   operator.ge: ">=", operator.neg: "-", operator.pos: "+", abs: "abs",
                   operator.invert: "~"}


def _ulps(kind: Optional[str], dtype: str) -> float:
    """The own error budget of an op of ``kind`` computing in ``dtype``."""
    if kind is None or dtype not in FLOATING or kind in ("p", "z") or \
            (kind == "c" and dtype not in COMPLEX):
        return 0
    return ULPS[dtype]


# ----------------------------------------------------------------------------- more bounds

def _uncertain_truth(x: Val) -> np.ndarray:
    """Where ``x != 0`` is not defined by the bound."""
    t = x.tol
    with np.errstate(all="ignore"):
        return np.isinf(t) | ((t > 0) & (_magnitude(x.ref) <= t))


def truth_bound(x: Val, ref: np.ndarray, axes: tuple, keepdims: bool):
    """Bound of any/all/count_nonzero: undefined if any element's truth is."""
    unknown = np.any(_uncertain_truth(x), axis=axes, keepdims=keepdims)
    return np.where(unknown, np.inf, 0.0), np.zeros(ref.shape, bool)


def arg_bound(x: Val, ref: np.ndarray, axis, keepdims: bool, is_max: bool):
    """Bound of argmax/argmin: undefined when another element may be the extreme."""
    v, t = x.ref, x.tol
    if axis is None:
        v, t, ax = v.reshape(-1), t.reshape(-1), 0
    else:
        ax = axis % v.ndim
    v, t = np.moveaxis(v, ax, -1), np.moveaxis(t, ax, -1)
    unknown = np.any(np.isinf(t), axis=-1)
    with np.errstate(all="ignore"):
        w = (v if is_max else -v).astype(np.float64)
        nan = np.any(np.isnan(w), axis=-1)
        tf = _fin(t)
        lo = np.max(np.where(np.isnan(w), -np.inf, w - tf), axis=-1)
        count = np.sum(w + tf >= lo[..., None], axis=-1)
        unknown |= np.any(tf > 0, axis=-1) & ~nan & (count > 1)
    return np.where(unknown, np.inf, 0.0).reshape(ref.shape), np.zeros(ref.shape, bool)


def cumsum_bound(x: Val, xs: np.ndarray, ref: np.ndarray, ax: int, initial: bool):
    unknown = np.cumsum(np.isinf(x.tol), axis=ax) > 0
    tol = np.zeros(unknown.shape)
    if ref.dtype.kind in "fc":
        info = np.finfo(real_of(ref.dtype.name))
        s = np.cumsum(_magnitude(xs), axis=ax)
        i = np.arange(1, x.shape[ax] + 1).reshape((-1,) + (1,) * (x.ref.ndim - ax - 1))
        tol = np.cumsum(_fin(x.tol), axis=ax) + np.where(i >= 3, 2 * i * float(info.eps) / 2 * s, 0.0)
        unknown |= s > float(info.max)
    # The sign of a zero running sum is not specified (see sum_bound).
    zs = (np.cumsum(x.zs, axis=ax) > 0) | _zero_part(ref[_drop_initial(ref, ax, initial)])
    tol = np.where(unknown, np.inf, tol)
    if initial:
        pad = [(0, 0)] * x.ref.ndim
        pad[ax] = (1, 0)
        tol, zs = np.pad(tol, pad), np.pad(zs, pad)
    return tol, zs


def _zero_part(ref: np.ndarray) -> np.ndarray:
    """Where a part of ``ref`` is zero (either part for complex)."""
    if ref.dtype.kind == "c":
        return (ref.real == 0) | (ref.imag == 0)
    return ref == 0


def _drop_initial(ref: np.ndarray, ax: int, initial: bool) -> tuple:
    return tuple(slice(1 if initial else 0, None) if a == ax else slice(None)
                 for a in range(ref.ndim))


def cumprod_bound(x: Val, xs: np.ndarray, ref: np.ndarray, ax: int, initial: bool):
    unknown = np.cumsum(np.isinf(x.tol), axis=ax) > 0
    tol = np.zeros(unknown.shape)
    if ref.dtype.kind == "f":
        info = np.finfo(ref.dtype)
        a, t = _magnitude(xs), _fin(x.tol)
        finite = np.isfinite(xs)
        i = np.arange(1, x.shape[ax] + 1).reshape((-1,) + (1,) * (x.ref.ndim - ax - 1))
        with np.errstate(all="ignore"):
            hi = np.cumprod(a + t, axis=ax)
            spread = hi - np.cumprod(a, axis=ax) + 4 * np.finfo(np.float64).eps * hi * (t > 0).any()
            big = np.cumprod(np.where(finite & (a > 1), a + t, 1.0), axis=ax)
            small = np.cumprod(np.where(finite & (a < 1) & (a > 0), np.maximum(a - t, 0), 1.0), axis=ax)
            zero = np.cumsum(finite & (a - t <= 0), axis=ax) > 0
            unknown |= big > float(info.max) / 4
            unknown |= (small < float(info.smallest_normal) * 2 ** 24) & ~zero
            tol = spread + np.where(i >= 3, 4 * i * float(info.eps) * hi, 0.0)
    zs = np.cumsum(x.zs, axis=ax) > 0
    tol = np.where(unknown, np.inf, tol)
    if initial:
        pad = [(0, 0)] * x.ref.ndim
        pad[ax] = (1, 0)
        tol, zs = np.pad(tol, pad), np.pad(zs, pad)
    return tol, zs


def contraction_bound(a: Val, c: Val, ref: np.ndarray, contract: Callable, k: int):
    """Bound of a sum of k products, ``contract`` being matmul or vecdot on float64."""
    ua, uc = np.isinf(a.tol).astype(float), np.isinf(c.tol).astype(float)
    ones_a, ones_c = np.ones(a.shape), np.ones(c.shape)
    unknown = (contract(ua, ones_c) + contract(ones_a, uc)) > 0
    if ref.dtype.kind in "biu":
        return np.where(unknown, np.inf, 0.0), np.zeros(ref.shape, bool)
    info = np.finfo(real_of(ref.dtype.name))
    A, C = _magnitude(a.ref), _magnitude(c.ref)
    ta, tc = _fin(a.tol), _fin(c.tol)
    with np.errstate(all="ignore"):
        m = contract(A, C)
        prop = contract(A, tc) + contract(ta, C) + contract(ta, tc)
        prop = prop * (1 + 4 * np.finfo(np.float64).eps)
        # A complex product rounds (and BLAS may fuse it), so even k = 1 is inexact.
        terms = k + 1 if ref.dtype.kind == "c" else (k if k >= 2 else 0)
        own = 2 * terms * float(info.eps) / 2 * m
        unknown |= m > float(info.max) / 2
        if ref.dtype.kind == "c":
            nfa, nfc = (~np.isfinite(a.ref)).astype(float), (~np.isfinite(c.ref)).astype(float)
            unknown |= (contract(nfa, ones_c) + contract(ones_a, nfc)) > 0
    zs = (contract(a.zs.astype(float), ones_c) + contract(ones_a, c.zs.astype(float))) > 0
    # A zero result is a sum too (see sum_bound): numpy adds fl(a*b) to +0, lazyarray's FMA
    # rounds a*b + 0 once, so a product underflowing to zero keeps its sign.
    zs |= _zero_part(ref)
    return np.where(unknown, np.inf, prop + own), zs & ~unknown


# ----------------------------------------------------------------------------- building

class Rejected(Exception):
    """The chosen op does not apply here; the generator tries another."""


def _lit(v) -> str:
    """Source text of a Python scalar."""
    if isinstance(v, float) and not math.isfinite(v):
        return f"float({str(v)!r})"
    if isinstance(v, complex):
        return f"complex({_lit(v.real)}, {_lit(v.imag)})"
    return repr(v)


class Builder:
    """Grows a Graph: every op adds a Step (lazyarray) and a Val (numpy + bound)."""

    def __init__(self, ch: Chooser) -> None:
        self.ch = ch
        self.g = Graph(inputs=[])

    @property
    def vals(self) -> list:
        return self.g.vals

    def new_input(self, value: np.ndarray) -> int:
        if self.g.steps:  # inputs come first: renumber by inserting before the steps
            raise Rejected("inputs are made before the ops")
        self.g.inputs.append(value)
        self.g.vals.append(Val(value, np.zeros(value.shape), np.zeros(value.shape, bool),
                               f"v{len(self.g.vals)}"))
        return len(self.g.vals) - 1

    def pick(self, pred: Callable = lambda v: True) -> Optional[int]:
        """An existing value satisfying ``pred``; the newest one more often than not."""
        ok = [i for i, v in enumerate(self.vals) if pred(v)]
        if not ok:
            return None
        return ok[-1] if self.ch.chance(0.6) else self.ch.pick(ok)

    def add(self, template: str, fn: Callable, args: tuple, ref_fn: Callable,
            bound: Callable) -> int:
        """Record an op: ``template`` names the arguments {0}, {1}, ...; ``bound(vals,
        ref)`` gives the result's (tol, zs)."""
        vals = [self.vals[i] for i in args]
        with np.errstate(all="ignore"):
            ref = np.asarray(ref_fn(*(v.ref for v in vals)))
        if ref.size > MAX_SIZE or ref.ndim > MAX_RANK + 1:
            raise Rejected("too large")
        tol, zs = bound(vals, ref)
        tol = np.broadcast_to(np.asarray(tol, np.float64), ref.shape).copy()
        zs = np.broadcast_to(np.asarray(zs, bool), ref.shape).copy()
        self.g.steps.append(Step(template.format(*(v.name for v in vals)), fn, tuple(args)))
        self.vals.append(Val(ref, tol, zs, f"v{len(self.vals)}"))
        return len(self.vals) - 1

    # -- operands -----------------------------------------------------------------
    def operand(self, category: str, pred: Callable = lambda v: True) -> int:
        """A value whose dtype is in ``category``, converting one if needed."""
        names = CATEGORY[category]
        i = self.pick(lambda v: v.dtype in names and pred(v))
        if i is not None and not self.ch.chance(0.1):
            return i
        j = self.pick(pred)
        if j is None:
            raise Rejected("no operand")
        v = self.vals[j]
        target = self.ch.pick([d for d in names if d in COMPLEX or v.dtype not in COMPLEX]
                              or names)
        return astype_step(self, j, target)


def astype_step(b: Builder, i: int, target: str, copy: Optional[bool] = None) -> int:
    """``astype`` to ``target`` (through ``real`` first for complex to real: lazyarray
    refuses that cast, as the standard advises)."""
    if b.vals[i].dtype in COMPLEX and target not in COMPLEX:
        i = b.add("xp.real({0})", xp.real, (i,), np.real,
                  lambda vs, r: (part_tolerance(vs[0].ref, r, vs[0].tol), vs[0].zs))
        if b.vals[i].dtype == target:
            return i
    d = getattr(xp, target)
    kw = "" if copy is None else f", copy={copy}"
    fn = (lambda a: xp.astype(a, d)) if copy is None else (lambda a: xp.astype(a, d, copy=copy))
    return b.add(f"xp.astype({{0}}, xp.{target}{kw})", fn, (i,), lambda r: np_astype(r, target),
                 lambda vs, ref: elementwise_bound(lambda x: np_astype(x, target), vs, ref, 0))


def _broadcastable(s1: tuple, s2: tuple) -> bool:
    try:
        np.broadcast_shapes(s1, s2)
        return True
    except ValueError:
        return False


def _scalar_for(ch: Chooser, dtype: str, category: str):
    """(Python scalar, the dtype it takes) allowed with ``dtype`` for ``category``."""
    s = random_scalar(ch, dtype)
    if isinstance(s, complex) and (dtype not in FLOATING or "complex64" not in CATEGORY[category]):
        s = s.real
    if isinstance(s, float) and dtype not in FLOATING:
        s = int(s) if math.isfinite(s) else 0
    if isinstance(s, complex) and dtype in REAL_FLOAT:
        return s, "complex64" if dtype == "float32" else "complex128"
    return s, dtype


# ----------------------------------------------------------------------------- ops

def op_unary(b: Builder, name: str) -> int:
    cat, np_fn, kind = UNARY[name]
    i = b.operand(cat)
    dtype = b.vals[i].dtype
    f = getattr(xp, name)
    if name in UNARY_OPERATOR and b.ch.chance(0.4):
        f = UNARY_OPERATOR[name]
        sym = OPERATOR_SYMBOL[f]
        text = f"{sym}({{0}})" if sym == "abs" else f"({sym}{{0}})"
    else:
        text = f"xp.{name}({{0}})"
    ulps = _ulps(kind, dtype)
    if ulps and dtype == "complex64":
        np_fn = _wide_complex(np_fn)

    def bound(vs, ref):
        tol, zs = elementwise_bound(np_fn, vs, ref, ulps, periodic=kind == "fp")
        if name == "signbit":  # the sign of a computed NaN is not specified (IEEE 754)
            tol = np.where(np.isnan(vs[0].ref), np.inf, tol)
        if name in ("real", "imag") and dtype in COMPLEX:
            tol = part_tolerance(vs[0].ref, ref, tol)
        return tol, zs
    return b.add(text, f, (i,), np_fn, bound)


def part_tolerance(z: np.ndarray, part: np.ndarray, tol: np.ndarray) -> np.ndarray:
    """``tol`` of a part of complex ``z``, without a defined answer where that part is
    infinite beside a NaN part: the standard's special cases leave its sign unspecified
    there (``sinh(-inf + nan j) = +-inf + nan j``; ``compare`` allows either sign in the
    complex value itself, a part taken out of it must too)."""
    free = (np.isnan(z.real) | np.isnan(z.imag)) & np.isinf(part)
    return np.where(free, np.inf, tol)


def op_binary(b: Builder, name: str) -> int:
    cat, np_fn, kind = BINARY[name]
    ch = b.ch
    names = CATEGORY[cat]
    i = b.operand(cat)
    x = b.vals[i]
    mode = ch.weighted({"array": 6, "scalar": 2, "lscalar": 1, "self": 1})
    use_op = name in BINARY_OPERATOR and ch.chance(0.35)
    f = BINARY_OPERATOR[name] if use_op else getattr(xp, name)
    sym = OPERATOR_SYMBOL.get(f)

    def text(a, c):
        return f"({a} {sym} {c})" if use_op else f"xp.{name}({a}, {c})"

    if mode in ("scalar", "lscalar"):
        s, sdt = _scalar_for(ch, x.dtype, cat)
        if name in ("bitwise_left_shift", "bitwise_right_shift") and ch.chance(0.7):
            s = ch.int(0, min(70, int(np.iinfo(x.dtype).max)))
        if name == "pow" and x.dtype in INTEGER and ch.chance(0.5):
            s = ch.pick([2, 3, 0, 1])
        if use_op and mode == "lscalar" and name in ("equal", "not_equal", "less", "less_equal",
                                                     "greater", "greater_equal"):
            mode = "scalar"  # a reflected comparison swaps the operator
        sref = np.asarray(s, dtype=sdt)
        common = promote(x.dtype, sdt)
        if mode == "scalar":
            fn, ref_fn = (lambda a: f(a, s)), (lambda r: np_fn(r.astype(common), sref))
            tmpl = text("{0}", _lit(s))
            args_of = lambda vs: [vs[0], sref]
        else:
            fn, ref_fn = (lambda a: f(s, a)), (lambda r: np_fn(sref, r.astype(common)))
            tmpl = text(_lit(s), "{0}")
            args_of = lambda vs: [sref, vs[0]]
        if common not in names:
            raise Rejected("scalar promotes out of the category")
        ulps = _ulps(kind, common)
        if ulps and common == "complex64":
            np_fn = _wide_complex(np_fn)
        cast = (lambda vs: [_cast_val(v, common) if isinstance(v, Val) else v for v in args_of(vs)])
        if name == "pow":
            return b.add(tmpl, fn, (i,), ref_fn, lambda vs, ref: pow_bound(cast(vs), ref, ulps))

        def sbound(vs, ref):
            tol, zs = elementwise_bound(np_fn, cast(vs), ref, ulps, free_zero_sign=kind == "z",
                                        periodic=kind == "p")
            if name == "copysign" and mode == "lscalar":  # a computed NaN's sign: unspecified
                tol = np.where(np.isnan(vs[0].ref), np.inf, tol)
            if name == "logaddexp":
                tol = tol + _input_scaled(cast(vs), ref, ulps)
            return tol, zs
        return b.add(tmpl, fn, (i,), ref_fn, sbound)
    if mode == "self":
        j = i
    else:
        j = b.pick(lambda v: v.dtype in names and promotable(v.dtype, x.dtype)
                   and promote(v.dtype, x.dtype) in names and _broadcastable(v.shape, x.shape))
        if j is None or ch.chance(0.15):
            j = b.operand(cat, lambda v: _broadcastable(v.shape, x.shape))
            if not promotable(b.vals[j].dtype, x.dtype):
                j = astype_step(b, j, x.dtype)
    y = b.vals[j]
    common = promote(x.dtype, y.dtype)
    if common not in names:
        raise Rejected("promotes out of the category")
    ulps = _ulps(kind, common)
    if ulps and common == "complex64":
        np_fn = _wide_complex(np_fn)
    args = (j, i) if ch.chance(0.3) else (i, j)
    if name == "pow":
        return b.add(text("{0}", "{1}"), f, args,
                     lambda r1, r2: np_fn(r1.astype(common), r2.astype(common)),
                     lambda vs, ref: pow_bound([_cast_val(v, common) for v in vs], ref, ulps))
    def bound(vs, ref):
        tol, zs = elementwise_bound(np_fn, [_cast_val(v, common) for v in vs], ref, ulps,
                                    free_zero_sign=kind == "z", periodic=kind == "p")
        if name == "copysign":  # the sign of a computed NaN is not specified (IEEE 754)
            tol = np.where(np.broadcast_to(np.isnan(vs[1].ref), ref.shape), np.inf, tol)
        if name == "logaddexp":
            tol = tol + _input_scaled([_cast_val(v, common) for v in vs], ref, ulps)
        return tol, zs
    return b.add(text("{0}", "{1}"), f, args,
                 lambda r1, r2: np_fn(r1.astype(common), r2.astype(common)), bound)


def _input_scaled(args: list, ref: np.ndarray, ulps: float) -> np.ndarray:
    """``ulps`` units in the last place of the largest finite operand: the error budget
    of logaddexp, computed as max + log1p(exp(-|x - y|)), whose result near 0 cancels
    (lazyarray's vectorised float32 path is 1 ulp of the operands off there)."""
    mags = [np.broadcast_to(np.abs(getattr(a, "ref", a)), ref.shape) for a in args]
    with np.errstate(all="ignore"):
        mag = np.maximum.reduce([np.where(np.isfinite(m), m, 0) for m in mags])
        sp = np.spacing(mag.astype(ref.dtype)).astype(np.float64)
    return ulps * np.where(np.isfinite(ref), sp, 0.0)


def _cast_val(v: Val, dtype: str) -> Val:
    """``v`` converted to ``dtype`` exactly as a promotion does (the bound carried over)."""
    if v.dtype == dtype:
        return v
    return Val(v.ref.astype(dtype), v.tol, v.zs, v.name)


def op_mixed_kinds(b: Builder) -> int:
    """An invalid promotion (e.g. int8 + float32): lazyarray raises TypeError by design."""
    i = b.pick(lambda v: v.dtype != "bool")
    if i is None:
        raise Rejected("no operand")
    x = b.vals[i]
    j = b.pick(lambda v: not promotable(v.dtype, x.dtype) and _broadcastable(v.shape, x.shape))
    if j is None:
        raise Rejected("no mixed pair")
    name = b.ch.pick(["add", "multiply", "equal", "maximum"] if x.dtype not in COMPLEX and
                     b.vals[j].dtype not in COMPLEX else ["add", "multiply", "equal"])
    b.g.steps.append(Step(f"xp.{name}({x.name}, {b.vals[j].name})", getattr(xp, name), (i, j)))
    b.g.expect_error = TypeError
    return -1


def op_where(b: Builder) -> int:
    ch = b.ch
    c = b.pick(lambda v: v.dtype == "bool")
    if c is None or ch.chance(0.3):
        k = b.operand("real numeric")
        thr = 0 if b.vals[k].dtype in INTEGER else 0.0
        c = b.add("({0} > " + repr(thr) + ")", lambda a: a > thr, (k,), lambda r: r > thr,
                  lambda vs, ref: elementwise_bound(lambda r: r > thr, vs, ref, 0))
    cs = b.vals[c].shape
    i = b.pick(lambda v: _broadcastable(v.shape, cs))
    if i is None:
        raise Rejected("no operand")
    x = b.vals[i]
    if ch.chance(0.3):
        s, sdt = _scalar_for(ch, x.dtype, "all")
        common = promote(x.dtype, sdt)
        sref = np.asarray(s, dtype=sdt)
        if ch.chance(0.5):
            return b.add(f"xp.where({{0}}, {{1}}, {_lit(s)})", lambda cc, a: xp.where(cc, a, s), (c, i),
                         lambda rc, r: np.where(rc, r.astype(common), sref.astype(common)),
                         lambda vs, ref: elementwise_bound(np.where, [vs[0], _cast_val(vs[1], common),
                                                                      sref.astype(common)], ref, 0))
        return b.add(f"xp.where({{0}}, {_lit(s)}, {{1}})", lambda cc, a: xp.where(cc, s, a), (c, i),
                     lambda rc, r: np.where(rc, sref.astype(common), r.astype(common)),
                     lambda vs, ref: elementwise_bound(np.where, [vs[0], sref.astype(common),
                                                                  _cast_val(vs[1], common)], ref, 0))
    j = b.pick(lambda v: promotable(v.dtype, x.dtype) and
               _broadcastable(np.broadcast_shapes(v.shape, x.shape), cs)
               if _broadcastable(v.shape, x.shape) else False)
    if j is None:
        raise Rejected("no second operand")
    common = promote(x.dtype, b.vals[j].dtype)
    return b.add("xp.where({0}, {1}, {2})", xp.where, (c, i, j),
                 lambda rc, r1, r2: np.where(rc, r1.astype(common), r2.astype(common)),
                 lambda vs, ref: elementwise_bound(
                     np.where, [vs[0], _cast_val(vs[1], common), _cast_val(vs[2], common)], ref, 0))


def op_astype(b: Builder) -> int:
    i = b.pick()
    src = b.vals[i].dtype
    target = b.ch.pick(COMPLEX if src in COMPLEX else ALL)
    return astype_step(b, i, target, b.ch.pick([None, None, True, False]))


def op_clip(b: Builder) -> int:
    ch = b.ch
    i = b.operand("real numeric")
    x = b.vals[i]
    lo, _ = _scalar_for(ch, x.dtype, "real numeric")
    hi, _ = _scalar_for(ch, x.dtype, "real numeric")
    if ch.chance(0.3):
        lo = None
    elif ch.chance(0.3):
        hi = None
    if lo is not None and hi is not None:
        if math.isnan(lo) or math.isnan(hi):
            pass
        elif lo > hi:
            lo, hi = hi, lo
    d = x.dtype
    lor = None if lo is None else np.asarray(lo, d)
    hir = None if hi is None else np.asarray(hi, d)
    if lor is not None and hir is not None and lor > hir:   # equal after rounding to d
        raise Rejected("empty interval")
    kws = ", ".join(f"{k}={_lit(v)}" for k, v in (("min", lo), ("max", hi)) if v is not None)
    return b.add(f"xp.clip({{0}}{', ' if kws else ''}{kws})", lambda a: xp.clip(a, min=lo, max=hi), (i,),
                 lambda r: np_clip(r, lor, hir),
                 lambda vs, ref: elementwise_bound(lambda r: np_clip(r, lor, hir), vs, ref, 0,
                                                   free_zero_sign=True))


# -- manipulation and indexing ------------------------------------------------------

def _struct(b: Builder, template: str, fn: Callable, args: tuple, np_fn: Callable,
            data: Optional[tuple] = None) -> int:
    data = data or (True,) * len(args)
    return b.add(template, fn, args, np_fn, lambda vs, ref: struct_bound(np_fn, vs, data))


def random_key(ch: Chooser, shape: tuple) -> tuple:
    """A basic index: integers, slices (any step sign), None, at most one Ellipsis."""
    items, axis = [], 0
    ellipsis_at = ch.int(0, len(shape)) if ch.chance(0.2) else -1
    while axis < len(shape):
        if axis == ellipsis_at:
            items.append(Ellipsis)
            axis = len(shape) - ch.int(0, len(shape) - axis)
            ellipsis_at = -1
            continue
        n = shape[axis]
        r = ch.int(0, 9)
        if r < 2 and n > 0:
            items.append(ch.int(-n, n - 1))
        elif r < 8:
            def bound():
                return None if ch.chance(0.3) else ch.int(-n - 2, n + 2)
            step = ch.pick([None, 1, 1, 2, 3, -1, -1, -2])
            items.append(slice(bound(), bound(), step))
        else:
            items.append(slice(None))
        if ch.chance(0.1):
            items.append(None)
        axis += 1
    if axis == ellipsis_at:
        items.append(Ellipsis)
    # (a trailing ':' is dropped only without an Ellipsis: after one, the items between
    # would then index the axes one further on)
    if ch.chance(0.3) and items and items[-1] == slice(None) and Ellipsis not in items:
        items.pop()
    return tuple(items)


def _key_text(key: tuple) -> str:
    def one(k):
        if k is None:
            return "None"
        if k is Ellipsis:
            return "..."
        if isinstance(k, slice):
            return ":".join("" if v is None else str(v) for v in (k.start, k.stop, k.step)).rstrip(":") or ":"
        return str(k)
    return ", ".join(one(k) for k in key) if key else "()"


def op_getitem(b: Builder) -> int:
    i = b.pick()
    key = random_key(b.ch, b.vals[i].shape)
    return _struct(b, f"{{0}}[{_key_text(key)}]", lambda a: a[key], (i,), lambda r: r[key])


def _factor_shape(ch: Chooser, size: int) -> tuple:
    dims = []
    rest = size
    for _ in range(ch.int(0, 3)):
        if rest == 0:
            dims.append(ch.pick([0, 1, 2]))
            continue
        divs = [d for d in range(1, rest + 1) if rest % d == 0]
        d = ch.pick(divs)
        dims.append(d)
        rest //= d
    if size == 0 and 0 not in dims:
        dims.append(0)
    elif rest != 1 or not dims:
        dims.append(rest)
    if size != 0 and ch.chance(0.3):
        dims[ch.int(0, len(dims) - 1)] = -1
    return tuple(dims)


def op_reshape(b: Builder) -> int:
    i = b.pick()
    shape = _factor_shape(b.ch, b.vals[i].ref.size)
    if sum(1 for d in shape if d == -1) > 1:
        raise Rejected("two -1")
    return _struct(b, f"xp.reshape({{0}}, {shape})", lambda a: xp.reshape(a, shape), (i,),
                   lambda r: np.reshape(r, shape))


def op_permute(b: Builder) -> int:
    i = b.pick(lambda v: v.ref.ndim >= 2)
    if i is None:
        raise Rejected("rank")
    perm = tuple(int(a) for a in b.ch.rng.permutation(b.vals[i].ref.ndim))
    if b.ch.chance(0.2):
        perm = tuple(a - len(perm) for a in perm)
    return _struct(b, f"xp.permute_dims({{0}}, {perm})", lambda a: xp.permute_dims(a, perm), (i,),
                   lambda r: np.permute_dims(r, perm))


def op_expand_dims(b: Builder) -> int:
    i = b.pick(lambda v: v.ref.ndim < MAX_RANK)
    if i is None:
        raise Rejected("rank")
    nd = b.vals[i].ref.ndim + 1
    axis = b.ch.int(-nd, nd - 1)
    if b.ch.chance(0.3) and nd < MAX_RANK:
        axis = (axis, (axis + 1) % (nd + 1))
        if len({a % (nd + 1) for a in axis}) < 2:
            raise Rejected("repeated axis")
    return _struct(b, f"xp.expand_dims({{0}}, axis={axis})", lambda a: xp.expand_dims(a, axis=axis),
                   (i,), lambda r: np.expand_dims(r, axis))


def op_squeeze(b: Builder) -> int:
    i = b.pick(lambda v: 1 in v.shape)
    if i is None:
        raise Rejected("no size-1 axis")
    ones = [a for a, d in enumerate(b.vals[i].shape) if d == 1]
    axis = b.ch.pick(ones) if b.ch.chance(0.5) else tuple(ones)
    return _struct(b, f"xp.squeeze({{0}}, axis={axis})", lambda a: xp.squeeze(a, axis=axis), (i,),
                   lambda r: np.squeeze(r, axis))


def _axis_arg(ch: Chooser, ndim: int, allow_tuple: bool = True):
    r = ch.int(0, 5)
    if r == 0 or ndim == 0:
        return None
    if r <= 3 or not allow_tuple:
        return ch.int(-ndim, ndim - 1)
    k = ch.int(0, ndim)
    return tuple(sorted(int(a) for a in ch.rng.permutation(ndim)[:k]))


def op_flip(b: Builder) -> int:
    i = b.pick()
    axis = _axis_arg(b.ch, b.vals[i].ref.ndim)
    return _struct(b, f"xp.flip({{0}}, axis={axis})", lambda a: xp.flip(a, axis=axis), (i,),
                   lambda r: np.flip(r, axis))


def op_roll(b: Builder) -> int:
    i = b.pick()
    nd = b.vals[i].ref.ndim
    axis = _axis_arg(b.ch, nd)
    limit = 7
    if b.g.symbolic:  # documented: |shift| <= n for a symbolic axis size n
        sizes = [b.vals[i].ref.size] if axis is None else \
            [b.vals[i].shape[a] for a in (axis if isinstance(axis, tuple) else (axis,))]
        limit = min(sizes + [limit])
    if isinstance(axis, tuple):
        shift = tuple(b.ch.int(-min(limit, 5), min(limit, 5)) for _ in axis)
    else:
        shift = b.ch.int(-limit, limit)
    return _struct(b, f"xp.roll({{0}}, {shift}, axis={axis})",
                   lambda a: xp.roll(a, shift, axis=axis), (i,), lambda r: np.roll(r, shift, axis))


def op_concat(b: Builder) -> int:
    ch = b.ch
    i = b.pick(lambda v: v.ref.ndim >= 1)
    if i is None:
        raise Rejected("rank")
    x = b.vals[i]
    axis = None if ch.chance(0.15) else ch.int(-x.ref.ndim, x.ref.ndim - 1)
    ax = None if axis is None else axis % x.ref.ndim

    def fits(v):
        if not promotable(v.dtype, x.dtype):
            return False
        if axis is None:
            return True
        return v.ref.ndim == x.ref.ndim and all(d == e for k, (d, e) in
                                                enumerate(zip(v.shape, x.shape)) if k != ax)
    parts = [i] + [b.pick(fits) for _ in range(ch.int(1, 2))]
    names = ", ".join(f"{{{k}}}" for k in range(len(parts)))
    dtype = x.dtype
    for p in parts[1:]:
        dtype = promote(dtype, b.vals[p].dtype)
    np_fn = (lambda *rs: np.concat([r.astype(dtype) for r in rs], axis=axis))
    return b.add(f"xp.concat([{names}], axis={axis})", lambda *a: xp.concat(list(a), axis=axis),
                 tuple(parts), np_fn,
                 lambda vs, ref: (np.concat([v.tol for v in vs], axis=axis),
                                  np.concat([v.zs for v in vs], axis=axis)))


def op_stack(b: Builder) -> int:
    i = b.pick(lambda v: v.ref.ndim < MAX_RANK)
    if i is None:
        raise Rejected("rank")
    x = b.vals[i]
    j = b.pick(lambda v: v.shape == x.shape and promotable(v.dtype, x.dtype))
    axis = b.ch.int(-x.ref.ndim - 1, x.ref.ndim)
    dtype = promote(x.dtype, b.vals[j].dtype)
    return b.add(f"xp.stack([{{0}}, {{1}}], axis={axis})", lambda p, q: xp.stack([p, q], axis=axis),
                 (i, j), lambda p, q: np.stack([p.astype(dtype), q.astype(dtype)], axis=axis),
                 lambda vs, ref: (np.stack([v.tol for v in vs], axis=axis),
                                  np.stack([v.zs for v in vs], axis=axis)))


def op_broadcast_to(b: Builder) -> int:
    ch = b.ch
    i = b.pick()
    shape = list(b.vals[i].shape)
    shape = [ch.pick([d, 2, 3]) if d == 1 else d for d in shape]
    extra = ch.int(0, max(0, MAX_RANK - len(shape)))  # (an operand may have MAX_RANK + 1 axes)
    shape = [ch.int(1, 3) for _ in range(extra)] + shape
    shape = tuple(shape)
    return _struct(b, f"xp.broadcast_to({{0}}, {shape})", lambda a: xp.broadcast_to(a, shape), (i,),
                   lambda r: np.broadcast_to(r, shape).copy())


def op_moveaxis(b: Builder) -> int:
    i = b.pick(lambda v: v.ref.ndim >= 1)
    if i is None:
        raise Rejected("rank")
    nd = b.vals[i].ref.ndim
    src, dst = b.ch.int(-nd, nd - 1), b.ch.int(-nd, nd - 1)
    return _struct(b, f"xp.moveaxis({{0}}, {src}, {dst})", lambda a: xp.moveaxis(a, src, dst), (i,),
                   lambda r: np.moveaxis(r, src, dst))


def op_matrix_transpose(b: Builder) -> int:
    i = b.pick(lambda v: v.ref.ndim >= 2)
    if i is None:
        raise Rejected("rank")
    if b.ch.chance(0.5):
        return _struct(b, "{0}.mT", lambda a: a.mT, (i,), np.matrix_transpose)
    return _struct(b, "xp.matrix_transpose({0})", xp.matrix_transpose, (i,), np.matrix_transpose)


def op_tile(b: Builder) -> int:
    i = b.pick()
    reps = tuple(b.ch.int(0, 3) if b.ch.chance(0.1) else b.ch.int(1, 2)
                 for _ in range(b.ch.int(0, 3)))
    return _struct(b, f"xp.tile({{0}}, {reps})", lambda a: xp.tile(a, reps), (i,),
                   lambda r: np.tile(r, reps))


def op_repeat(b: Builder) -> int:
    i = b.pick()
    nd = b.vals[i].ref.ndim
    axis = None if nd == 0 or b.ch.chance(0.3) else b.ch.int(-nd, nd - 1)
    k = b.ch.int(0, 3)
    return _struct(b, f"xp.repeat({{0}}, {k}, axis={axis})", lambda a: xp.repeat(a, k, axis=axis),
                   (i,), lambda r: np.repeat(r, k, axis=axis))


def op_take(b: Builder) -> int:
    ch = b.ch
    i = b.pick(lambda v: v.ref.ndim >= 1 and v.ref.size > 0)
    if i is None:
        raise Rejected("no operand")
    x = b.vals[i]
    nd = x.ref.ndim
    axis = None if nd == 1 and ch.chance(0.5) else ch.int(-nd, nd - 1)
    n = x.shape[0 if axis is None else axis]
    k = b.pick(lambda v: v.dtype in INTEGER and v.ref.ndim <= 2 and not np.isinf(v.tol).any()
               and n <= np.iinfo(v.dtype).max)
    if k is None:
        raise Rejected("no index operand")
    kv = b.vals[k]
    if kv.dtype in UNSIGNED or ch.chance(0.5):      # non-negative indices
        k = b.add(f"xp.remainder({{0}}, {n})", lambda a: xp.remainder(a, n), (k,),
                  lambda r: np.remainder(r, np.asarray(n, r.dtype)), lambda vs, ref: (0.0, False))
    else:                                          # negative ones too: in [-n, n)
        k = b.add(f"(xp.remainder({{0}}, {2 * n}) - {n})" if 2 * n <= np.iinfo(kv.dtype).max
                  else f"xp.remainder({{0}}, {n})",
                  (lambda a: xp.remainder(a, 2 * n) - n) if 2 * n <= np.iinfo(kv.dtype).max
                  else (lambda a: xp.remainder(a, n)), (k,),
                  (lambda r: np.remainder(r, np.asarray(2 * n, r.dtype)) - np.asarray(n, r.dtype))
                  if 2 * n <= np.iinfo(kv.dtype).max else
                  (lambda r: np.remainder(r, np.asarray(n, r.dtype))), lambda vs, ref: (0.0, False))
    ax = axis
    return _struct(b, f"xp.take({{0}}, {{1}}, axis={axis})", lambda a, idx: xp.take(a, idx, axis=ax),
                   (i, k), lambda r, idx: np.take(r, idx, axis=ax), (True, False))


def op_take_along_axis(b: Builder) -> int:
    ch = b.ch
    i = b.pick(lambda v: v.ref.ndim >= 1 and v.ref.size > 0)
    if i is None:
        raise Rejected("no operand")
    x = b.vals[i]
    nd = x.ref.ndim
    axis = ch.int(-nd, nd - 1)
    n = x.shape[axis]
    k = b.pick(lambda v: v.dtype in INTEGER and v.ref.ndim == nd and not np.isinf(v.tol).any()
               and n <= np.iinfo(v.dtype).max and all(
                   d == e or d == 1 or e == 1 for a, (d, e) in enumerate(zip(v.shape, x.shape))
                   if a != axis % nd))
    if k is None:
        raise Rejected("no index operand")
    k = b.add(f"xp.remainder({{0}}, {n})", lambda a: xp.remainder(a, n), (k,),
              lambda r: np.remainder(r, np.asarray(n, r.dtype)), lambda vs, ref: (0.0, False))

    def np_fn(r, idx):
        shape = list(np.broadcast_shapes(r.shape[:axis % nd] + (1,) + r.shape[axis % nd + 1:],
                                         idx.shape[:axis % nd] + (1,) + idx.shape[axis % nd + 1:]))
        rs, is_ = list(shape), list(shape)
        rs[axis % nd], is_[axis % nd] = r.shape[axis % nd], idx.shape[axis % nd]
        return np.take_along_axis(np.broadcast_to(r, rs), np.broadcast_to(idx, is_), axis)
    return _struct(b, f"xp.take_along_axis({{0}}, {{1}}, axis={axis})",
                   lambda a, idx: xp.take_along_axis(a, idx, axis=axis), (i, k), np_fn, (True, False))


def op_setitem(b: Builder) -> int:
    ch = b.ch
    i = b.pick()
    x = b.vals[i]
    key = random_key(ch, x.shape)
    region = x.ref[key].shape
    if ch.chance(0.4):
        s, sdt = _scalar_for(ch, x.dtype, "all")
        if sdt != x.dtype:
            raise Rejected("scalar would promote")
        sref = np.asarray(s, x.dtype)

        def fn(a):
            y = xp.asarray(a, copy=True)  # a[...] is a view: it would write into a
            y[key] = s
            return y

        def np_fn(r):
            y = r.copy()
            y[key] = sref
            return y
        return b.add(f"setitem({{0}}, [{_key_text(key)}], {_lit(s)})", fn, (i,), np_fn,
                     lambda vs, ref: (np_setitem(vs[0].tol, key, 0.0), np_setitem(vs[0].zs, key, False)))
    j = b.pick(lambda v: _broadcastable(v.shape, region) and np.broadcast_shapes(v.shape, region)
               == region and promotable(v.dtype, x.dtype) and promote(v.dtype, x.dtype) == x.dtype)
    if j is None:
        raise Rejected("no value operand")

    def fn2(a, v):
        y = xp.asarray(a, copy=True)
        y[key] = v
        return y
    return b.add(f"setitem({{0}}, [{_key_text(key)}], {{1}})", fn2, (i, j),
                 lambda r, v: np_setitem(r, key, v.astype(r.dtype)),
                 lambda vs, ref: (np_setitem(vs[0].tol, key, vs[1].tol),
                                  np_setitem(vs[0].zs, key, vs[1].zs)))


def np_setitem(r: np.ndarray, key: tuple, v) -> np.ndarray:
    y = r.copy()
    y[key] = v
    return y


# -- reductions and linear algebra --------------------------------------------------

def _reduce_axis(ch: Chooser, shape: tuple, nonempty: bool = False):
    """An axis argument (None, an int or a tuple) and the reduced axes; with
    ``nonempty`` the reduced extent must not be empty (else Rejected)."""
    axis = _axis_arg(ch, len(shape))
    axes = _axes_of(axis, len(shape))
    if nonempty and (math.prod(shape[a] for a in axes) == 0 or
                     (0 in shape and len(axes) == len(shape))):
        raise Rejected("empty reduction")
    return axis, axes


def op_sum_prod(b: Builder, name: str) -> int:
    ch = b.ch
    i = b.operand("numeric")
    x = b.vals[i]
    axis, axes = _reduce_axis(ch, x.shape)
    keep = ch.chance(0.3)
    dtype = None
    if ch.chance(0.2):
        same_kind = {"i": SIGNED, "u": UNSIGNED, "f": FLOATING, "c": COMPLEX}[x.ref.dtype.kind]
        dtype = ch.pick(same_kind)
    if x.dtype in COMPLEX and name == "prod" and ch.chance(0.5):
        raise Rejected("fewer complex products")
    acc = dtype or ({"i": "int64", "u": "uint64"}.get(x.ref.dtype.kind, x.dtype))
    lz = getattr(xp, name)
    dkw = {} if dtype is None else {"dtype": getattr(xp, dtype)}
    np_fn = np.sum if name == "sum" else np.prod
    bound = sum_bound if name == "sum" else prod_bound
    text = f"xp.{name}({{0}}, axis={axis}, keepdims={keep}" + (f", dtype=xp.{dtype})" if dtype else ")")
    return b.add(text, lambda a: lz(a, axis=axis, keepdims=keep, **dkw), (i,),
                 lambda r: np_fn(r, axis=axes, keepdims=keep, dtype=acc),
                 lambda vs, ref: bound(vs[0], vs[0].ref.astype(acc), ref, axes, keep))


def op_max_min(b: Builder, name: str) -> int:
    ch = b.ch
    i = b.operand("real numeric", lambda v: v.ref.size > 0)
    x = b.vals[i]
    axis, axes = _reduce_axis(ch, x.shape, nonempty=True)
    keep = ch.chance(0.3)
    np_fn = np.max if name == "max" else np.min

    def bound(vs, ref):
        v = vs[0]
        kw = dict(axis=axes, keepdims=keep)
        unknown = np.any(np.isinf(v.tol), **kw)
        tol = np.max(_fin(v.tol), **kw) if v.ref.size else 0.0
        zs = (ref == 0) if ref.dtype.kind == "f" else np.zeros(ref.shape, bool)
        return np.where(unknown, np.inf, tol), zs
    return b.add(f"xp.{name}({{0}}, axis={axis}, keepdims={keep})",
                 lambda a: getattr(xp, name)(a, axis=axis, keepdims=keep), (i,),
                 lambda r: np_fn(r, axis=axes, keepdims=keep), bound)


def op_mean(b: Builder) -> int:
    ch = b.ch
    i = b.operand("floating")
    x = b.vals[i]
    axis, axes = _reduce_axis(ch, x.shape)
    keep = ch.chance(0.3)
    n = math.prod(x.shape[a] for a in axes)
    return b.add(f"xp.mean({{0}}, axis={axis}, keepdims={keep})",
                 lambda a: xp.mean(a, axis=axis, keepdims=keep), (i,),
                 lambda r: np_mean(r, axes, keep),
                 lambda vs, ref: sum_bound(vs[0], vs[0].ref, ref, axes, keep, scale=max(n, 1) + 0.0
                                           if n else 1.0))


def op_truth(b: Builder, name: str) -> int:
    ch = b.ch
    i = b.pick()
    x = b.vals[i]
    axis, axes = _reduce_axis(ch, x.shape)
    keep = ch.chance(0.3)
    np_fn = {"any": np.any, "all": np.all, "count_nonzero": np.count_nonzero}[name]
    return b.add(f"xp.{name}({{0}}, axis={axis}, keepdims={keep})",
                 lambda a: getattr(xp, name)(a, axis=axis, keepdims=keep), (i,),
                 lambda r: np_fn(r, axis=axes, keepdims=keep),
                 lambda vs, ref: truth_bound(vs[0], ref, axes, keep))


def op_arg(b: Builder, name: str) -> int:
    ch = b.ch
    i = b.operand("real numeric", lambda v: v.ref.size > 0)
    x = b.vals[i]
    nd = x.ref.ndim
    axis = None if nd == 0 or ch.chance(0.3) else ch.int(-nd, nd - 1)
    if axis is not None and x.shape[axis] == 0:
        raise Rejected("empty")
    keep = ch.chance(0.3)
    np_fn = np.argmax if name == "argmax" else np.argmin
    return b.add(f"xp.{name}({{0}}, axis={axis}, keepdims={keep})",
                 lambda a: getattr(xp, name)(a, axis=axis, keepdims=keep), (i,),
                 lambda r: np_fn(r, axis=axis, keepdims=keep).astype(np.int64),
                 lambda vs, ref: arg_bound(vs[0], ref, axis, keep, name == "argmax"))


def op_cumulative(b: Builder, name: str) -> int:
    ch = b.ch
    i = b.operand("numeric" if name == "cumulative_sum" else "real numeric",
                  lambda v: v.ref.ndim >= 1)
    x = b.vals[i]
    nd = x.ref.ndim
    axis = None if nd == 1 and ch.chance(0.5) else ch.int(-nd, nd - 1)
    ax = 0 if axis is None else axis % nd
    initial = ch.chance(0.3)
    acc = {"i": "int64", "u": "uint64"}.get(x.ref.dtype.kind, x.dtype)
    np_fn = np.cumulative_sum if name == "cumulative_sum" else np.cumulative_prod
    bound = cumsum_bound if name == "cumulative_sum" else cumprod_bound
    return b.add(f"xp.{name}({{0}}, axis={axis}, include_initial={initial})",
                 lambda a: getattr(xp, name)(a, axis=axis, include_initial=initial), (i,),
                 lambda r: np_fn(r.astype(acc), axis=ax, include_initial=initial),
                 lambda vs, ref: bound(vs[0], vs[0].ref.astype(acc), ref, ax, initial))


def op_matmul(b: Builder) -> int:
    ch = b.ch
    i = b.operand("numeric", lambda v: v.ref.ndim >= 1)
    x = b.vals[i]
    k = x.shape[-1]

    def fits(v):
        if v.ref.ndim == 0 or v.dtype not in NUMERIC or not promotable(v.dtype, x.dtype):
            return False
        kk = v.shape[0] if v.ref.ndim == 1 else v.shape[-2]
        return kk == k and _broadcastable(x.shape[:-2], v.shape[:-2])
    j = b.pick(fits)
    if j is None or ch.chance(0.3):
        if x.ref.ndim == 1:
            j = i
        else:
            j = _struct(b, "{0}.mT", lambda a: a.mT, (i,), np.matrix_transpose)
    y = b.vals[j]
    common = promote(x.dtype, y.dtype)
    use_op = ch.chance(0.4)
    f = (lambda p, q: p @ q) if use_op else xp.matmul
    kk = x.shape[-1]
    return b.add("({0} @ {1})" if use_op else "xp.matmul({0}, {1})", f, (i, j),
                 lambda p, q: np.matmul(p.astype(common), q.astype(common)),
                 lambda vs, ref: contraction_bound(_cast_val(vs[0], common), _cast_val(vs[1], common),
                                                   ref, np.matmul, kk))


def op_vecdot(b: Builder) -> int:
    ch = b.ch
    i = b.operand("numeric", lambda v: v.ref.ndim >= 1)
    x = b.vals[i]
    nd = x.ref.ndim
    axis = ch.int(-nd, -1)
    n = x.shape[axis]
    j = b.pick(lambda v: v.dtype in NUMERIC and promotable(v.dtype, x.dtype) and v.ref.ndim >= -axis
               and v.shape[axis] == n and _broadcastable(v.shape, x.shape))
    if j is None:
        j = i
    common = promote(x.dtype, b.vals[j].dtype)

    def contract(p, q):
        return np.vecdot(p, q, axis=axis)
    return b.add(f"xp.vecdot({{0}}, {{1}}, axis={axis})",
                 lambda p, q: xp.vecdot(p, q, axis=axis), (i, j),
                 lambda p, q: np.vecdot(p.astype(common), q.astype(common), axis=axis),
                 lambda vs, ref: contraction_bound(_cast_val(vs[0], common), _cast_val(vs[1], common),
                                                   ref, contract, n))


def op_empty_reduction(b: Builder) -> int:
    """max/min/argmax of an empty extent: ValueError (numpy raises too)."""
    i = b.pick(lambda v: v.ref.size == 0 and v.dtype in REAL_NUMERIC)
    if i is None:
        raise Rejected("no empty operand")
    name = b.ch.pick(["max", "min", "argmax", "argmin"])
    b.g.steps.append(Step(f"xp.{name}({b.vals[i].name})", getattr(xp, name), (i,)))
    b.g.expect_error = ValueError
    return -1


OPS = {
    # name: (weight, generator)
    **{f"unary.{n}": (0.8, (lambda n: lambda b: op_unary(b, n))(n)) for n in UNARY},
    **{f"binary.{n}": (1.0, (lambda n: lambda b: op_binary(b, n))(n)) for n in BINARY},
    "where": (4, op_where), "astype": (5, op_astype), "clip": (2, op_clip),
    "getitem": (8, op_getitem), "reshape": (4, op_reshape), "permute_dims": (3, op_permute),
    "expand_dims": (2, op_expand_dims), "squeeze": (2, op_squeeze), "flip": (3, op_flip),
    "roll": (1.5, op_roll), "concat": (3, op_concat), "stack": (1.5, op_stack),
    "broadcast_to": (2, op_broadcast_to), "moveaxis": (1, op_moveaxis),
    "matrix_transpose": (1, op_matrix_transpose), "tile": (1, op_tile), "repeat": (1, op_repeat),
    "take": (3, op_take), "take_along_axis": (1.5, op_take_along_axis), "setitem": (3, op_setitem),
    "sum": (4, lambda b: op_sum_prod(b, "sum")), "prod": (2, lambda b: op_sum_prod(b, "prod")),
    "max": (2, lambda b: op_max_min(b, "max")), "min": (2, lambda b: op_max_min(b, "min")),
    "mean": (2, op_mean), "any": (1.5, lambda b: op_truth(b, "any")),
    "all": (1.5, lambda b: op_truth(b, "all")),
    "count_nonzero": (1, lambda b: op_truth(b, "count_nonzero")),
    "argmax": (1.5, lambda b: op_arg(b, "argmax")), "argmin": (1.5, lambda b: op_arg(b, "argmin")),
    "cumulative_sum": (2, lambda b: op_cumulative(b, "cumulative_sum")),
    "cumulative_prod": (1, lambda b: op_cumulative(b, "cumulative_prod")),
    "matmul": (3, op_matmul), "vecdot": (2, op_vecdot),
}
ERROR_OPS = {"mixed_kinds": op_mixed_kinds, "empty_reduction": op_empty_reduction}


# ----------------------------------------------------------------------------- generation

def random_dtype(ch: Chooser) -> str:
    kind = ch.weighted({"b": 1, "i": 2, "u": 1.5, "f": 4, "c": 1})
    return ch.pick({"b": BOOL, "i": SIGNED, "u": UNSIGNED, "f": REAL_FLOAT, "c": COMPLEX}[kind])


def random_shapes(ch: Chooser, n: int) -> list:
    """``n`` shapes, usually broadcast-compatible with one another."""
    sizes = [1, 1, 2, 3, 4, 5, 6, 7] + ([0] if ch.chance(0.15) else [])
    rank = ch.int(0, 3)
    base = [ch.pick(sizes) for _ in range(rank)]
    shapes = []
    for _ in range(n):
        if ch.chance(0.2):
            shapes.append(tuple(ch.pick(sizes) for _ in range(ch.int(0, 3))))
            continue
        s = base[ch.int(0, rank):] if ch.chance(0.3) else list(base)
        shapes.append(tuple(1 if ch.chance(0.2) else d for d in s))
    return shapes


def _strided(ch: Chooser, v: np.ndarray) -> np.ndarray:
    """The same values as a non-contiguous view (reversed or every other element)."""
    if v.ndim == 0 or ch.chance(0.5):
        return v
    ax = ch.int(0, v.ndim - 1)
    if ch.chance(0.5):
        return np.flip(np.flip(v, ax).copy(), ax)
    shape = list(v.shape)
    shape[ax] *= 2
    big = np.zeros(shape, v.dtype)
    sl = tuple(slice(None, None, 2) if a == ax else slice(None) for a in range(v.ndim))
    big[sl] = v
    return big[sl]


def _broadcast(ch: Chooser, shape: tuple, dtype: str) -> np.ndarray:
    """Random values as a broadcast view (a zero stride) of ``shape``, when one axis is
    longer than 1; else plain random values."""
    long = [a for a, d in enumerate(shape) if d > 1]
    if not long:
        return random_values(ch, shape, dtype)
    ax = ch.pick(long)
    base = random_values(ch, shape[:ax] + (1,) + shape[ax + 1:], dtype)
    return np.broadcast_to(base, shape)


# Views mix (``views=True``): float32 inputs half the time, every input a strided or a
# broadcast view, and the ops that make or reduce views three times as likely: where
# float32 sums over non-contiguous views went wrong (issue 15, item 3).
VIEW_OPS = ("getitem", "broadcast_to", "flip", "expand_dims", "permute_dims",
            "matrix_transpose", "sum", "mean", "prod", "matmul", "vecdot",
            "cumulative_sum")


def _view_input(ch: Chooser, shape: tuple) -> np.ndarray:
    dtype = "float32" if ch.chance(0.5) else random_dtype(ch)
    if ch.chance(0.4):
        return _broadcast(ch, shape, dtype)
    v = random_values(ch, shape, dtype)
    for _ in range(2):  # (``_strided`` leaves half of them contiguous)
        w = _strided(ch, v)
        if w is not v:
            return w
    return v


def generate(ch: Chooser, max_depth: int = 8, views: bool = False) -> Graph:
    """A random graph: inputs, then 1..max_depth ops (an expected error sometimes last);
    ``views``: the views mix (``VIEW_OPS``)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _generate(ch, max_depth, views)


def _generate(ch: Chooser, max_depth: int, views: bool = False) -> Graph:
    b = Builder(ch)
    n = ch.int(1, 3)
    for shape in random_shapes(ch, n):
        if views:
            b.new_input(_view_input(ch, shape))
            continue
        v = random_values(ch, shape, random_dtype(ch))
        b.new_input(_strided(ch, v) if ch.chance(0.2) else v)
    b.g.program = ch.chance(0.35)
    b.g.symbolic = b.g.program and ch.chance(0.5)
    depth = ch.int(1, max_depth)
    weights = {k: w * (3 if views and k in VIEW_OPS else 1) for k, (w, _) in OPS.items()}
    while len(b.g.steps) < depth:
        for _ in range(30):
            name = ch.weighted(weights)
            n_steps, n_vals = len(b.g.steps), len(b.vals)
            try:
                OPS[name][1](b)
                break
            except Rejected:
                del b.g.steps[n_steps:], b.vals[n_vals:]
        else:
            break
    if not b.g.steps:
        op_unary(b, "positive")
    # The outputs: the results no later op uses (so every op is evaluated), at most 3.
    used = {i for s in b.g.steps for i in s.args}
    sinks = [i for i in range(len(b.g.inputs), len(b.vals)) if i not in used]
    b.g.outputs = sinks[-3:]
    b.g.evaluate_together = ch.chance(0.5)
    if ch.chance(0.03):
        try:
            ERROR_OPS[ch.pick(list(ERROR_OPS))](b)
            b.g.outputs.append(len(b.g.inputs) + len(b.g.steps) - 1)
        except Rejected:
            pass
    return b.g


def graph_for(seed: int, index: int, max_depth: int = 8, views: bool = False) -> Graph:
    """Graph number ``index`` of the run with ``seed`` (reproducible one by one)."""
    return generate(Chooser(np.random.default_rng([seed, index])), max_depth, views)


# ----------------------------------------------------------------------------- running

def compare(got: np.ndarray, v: Val) -> Optional[str]:
    """None if ``got`` agrees with ``v`` within its bound, else what differs."""
    ref = v.ref
    got = np.asarray(got)
    if got.shape != ref.shape:
        return f"shape {got.shape}, expected {ref.shape}"
    if got.dtype != ref.dtype:
        return f"dtype {got.dtype}, expected {ref.dtype}"
    known = ~np.isinf(v.tol)
    if ref.dtype.kind in "biu":
        bad = known & (got != ref)
    else:
        parts = [(got.real, ref.real), (got.imag, ref.imag)] if ref.dtype.kind == "c" else [(got, ref)]
        bad = np.zeros(ref.shape, bool)
        # Next to a NaN part, the standard's complex special cases leave the sign of a
        # zero or infinite other part unspecified (e.g. cosh(0 + inf j) = NaN +- 0j).
        nan_part = (np.isnan(ref.real) | np.isnan(ref.imag)) if ref.dtype.kind == "c" else False
        with np.errstate(all="ignore"):
            for g, r in parts:
                both_nan = np.isnan(g) & np.isnan(r)
                free = nan_part & ((r == 0) | np.isinf(r)) & (np.abs(g) == np.abs(r))
                equal = (g == r) | both_nan | free
                sign_ok = (np.signbit(g) == np.signbit(r)) | v.zs | both_nan | (r != 0) | free
                close = np.isfinite(g) & (np.abs(g.astype(np.float64) - r.astype(np.float64)) <= v.tol)
                ok = np.where(v.tol == 0, equal & sign_ok,
                              np.where(np.isfinite(r), close, equal))
                bad |= known & ~ok
    if not bad.any():
        return None
    idx = [tuple(int(k) for k in ix) for ix in np.argwhere(bad)]
    first = idx[:3]
    desc = "; ".join(f"at {ix}: got {got[ix]!r}, expected {ref[ix]!r} (tol {v.tol[ix]:.3g})"
                     for ix in first)
    return f"{len(idx)} of {ref.size} elements differ: {desc}"


@dataclass
class Outcome:
    status: str                  # "ok", "mismatch" or "crash"
    detail: str = ""
    path: str = ""               # "implicit", "program" or "program (symbolic)"
    compared: int = 0            # elements compared (defined ones)
    undefined: int = 0           # elements with no defined answer


def _symbolic_shape(shape: tuple) -> tuple:
    return tuple(d if d == 1 else f"n{d}" for d in shape)


def _evaluate(graph: Graph, leaves: list, program_inputs: Optional[list]) -> list:
    arrs = replay(graph, leaves)
    outs = [arrs[i] for i in graph.outputs]
    if program_inputs is not None:
        prog = xp.compile(outs, inputs=leaves)
        return [np.asarray(a) for a in prog(*program_inputs)]
    if graph.evaluate_together and len(outs) > 1:
        xp.evaluate(*outs)
    return [np.asarray(a) for a in outs]


def _paths(graph: Graph) -> list:
    fresh = lambda: ([xp.asarray(v) for v in graph.inputs], None)  # noqa: E731
    # A small graph's first implicit run goes op by op (lazyarray/_steps.py), the second
    # plans the whole program, the third finds each structure known: the signature path.
    paths = [("implicit", fresh), ("implicit, whole program", fresh),
             ("implicit, known structure", fresh)]
    if graph.program:
        def placeholders(symbolic):
            return [xp.placeholder(_symbolic_shape(v.shape) if symbolic else v.shape,
                                   getattr(xp, v.dtype.name), name=f"v{k}")
                    for k, v in enumerate(graph.inputs)]
        name = "program (symbolic)" if graph.symbolic else "program"
        paths.append((name, lambda: (placeholders(graph.symbolic), graph.inputs)))
    return paths


def run_graph(graph: Graph) -> Outcome:
    """Evaluate ``graph`` with lazyarray (each path) and compare with numpy."""
    checked = [i for i in graph.outputs if i < len(graph.vals)]  # an expected error has no Val
    compared = sum(int((~np.isinf(graph.vals[i].tol)).sum()) for i in checked)
    undefined = sum(int(np.isinf(graph.vals[i].tol).sum()) for i in checked)
    for path, make in _paths(graph):
        try:
            leaves, values = make()
            got = _evaluate(graph, leaves, values)
        except Exception as e:  # noqa: BLE001 - every exception is reported
            if graph.expect_error is not None and isinstance(e, graph.expect_error):
                continue
            return Outcome("crash", f"{type(e).__name__}: {e}\n{traceback.format_exc(limit=-6)}",
                           path)
        if graph.expect_error is not None:
            return Outcome("mismatch", f"expected {graph.expect_error.__name__}, got values", path)
        for i, g in zip(graph.outputs, got):
            msg = compare(g, graph.vals[i])
            if msg:
                return Outcome("mismatch", f"output v{i}: {msg}", path)
    return Outcome("ok", path="", compared=compared, undefined=undefined)
