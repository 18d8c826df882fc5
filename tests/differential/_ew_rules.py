"""Elementwise rules shared by the function and operator tests: the dtype category
of each function in the standard, where the standard asks only for an
approximation, and the inputs on which array-api-strict (numpy underneath)
deviates from the standard or the standard leaves a result unspecified.
"""
from __future__ import annotations

import array_api_strict as xs
import numpy as np

from _diff import (StrictArray, arrays, check, elements, hs, resolve, rtol_for, run_both,
                   run_call)

UNARY = {
    "abs": "numeric", "acos": "floating", "acosh": "floating", "asin": "floating",
    "asinh": "floating", "atan": "floating", "atanh": "floating",
    "bitwise_invert": "integer or boolean", "ceil": "real numeric", "conj": "numeric",
    "cos": "floating", "cosh": "floating", "exp": "floating", "expm1": "floating",
    "floor": "real numeric", "imag": "complex floating", "isfinite": "numeric",
    "isinf": "numeric", "isnan": "numeric", "log": "floating", "log1p": "floating",
    "log2": "floating", "log10": "floating", "logical_not": "bool", "negative": "numeric",
    "positive": "numeric", "real": "numeric", "reciprocal": "floating", "round": "numeric",
    "sign": "numeric", "signbit": "real floating", "sin": "floating", "sinh": "floating",
    "sqrt": "floating", "square": "numeric", "tan": "floating", "tanh": "floating",
    "trunc": "real numeric",
}

BINARY = {
    "add": "numeric", "atan2": "real floating", "bitwise_and": "integer or boolean",
    "bitwise_left_shift": "integer", "bitwise_or": "integer or boolean",
    "bitwise_right_shift": "integer", "bitwise_xor": "integer or boolean",
    "copysign": "real floating",
    # integer division is implementation-dependent (kinds do not promote): floating only
    "divide": "floating",
    "equal": "all", "floor_divide": "real numeric", "greater": "real numeric",
    "greater_equal": "real numeric", "hypot": "real floating", "less": "real numeric",
    "less_equal": "real numeric", "logaddexp": "real floating", "logical_and": "bool",
    "logical_or": "bool", "logical_xor": "bool", "maximum": "real numeric",
    "minimum": "real numeric", "multiply": "numeric", "nextafter": "real floating",
    "not_equal": "all", "pow": "numeric", "remainder": "real numeric", "subtract": "numeric",
}

# "implementation-dependent approximation" in the standard (design topic "Accuracy").
APPROX = {"acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "cos", "cosh", "exp",
          "expm1", "hypot", "log", "log1p", "log2", "log10", "logaddexp", "pow", "sin",
          "sinh", "tan", "tanh"}
# "The order of signed zeros is unspecified" (maximum, minimum; clip is built on them).
ANY_ZERO_SIGN = {"maximum", "minimum", "clip"}
# Exact for complex input too (componentwise, no rounding involved).
COMPLEX_EXACT = {"conj", "real", "imag", "negative", "positive", "isfinite", "isinf", "isnan",
                 "round", "equal", "not_equal", "add", "subtract"}


def tolerance(name: str, dtype: str) -> float:
    if np.dtype(dtype).kind not in "fc":
        return 0.0
    if name in APPROX:
        return rtol_for(dtype, 8)
    if np.dtype(dtype).kind == "c" and name not in COMPLEX_EXACT:
        return rtol_for(dtype, 8)  # complex *, /, sqrt, abs, sign: not correctly rounded
    return 0.0


def atol(dtype: str, rtol: float) -> float:
    # Results in the subnormal range carry few significant bits; the standard also lets
    # implementations flush them (design topic "Accuracy"), so they compare absolutely.
    return float(np.finfo(np.dtype(dtype)).smallest_normal) if rtol else 0.0


# ----------------------------------------------------------------------------- unary

def _expm1_fn(x: np.ndarray) -> np.ndarray:
    # numpy computes the imaginary part of expm1(a + 0j) as exp(a) * sin(0): that is
    # inf * 0 = NaN once exp(a) overflows, where the exact value (the standard asks for
    # an approximation of exp(x) - 1, and expm1(+inf + 0j) = +inf + 0j) has imaginary
    # part 0; and NaN * 0 = NaN for a = NaN, where the standard has
    # "If a is NaN and b is +0, the result is NaN + 0j".  For an infinite a and an
    # infinite or NaN b numpy gives NaN + NaN j, where the standard has "infinity + NaN j"
    # (a = +inf) and "-1 + 0j" (a = -inf).  And numpy's exp(a) overflows before it is
    # multiplied by cos(b) and sin(b): expm1(89 + 1j) in complex64 is inf + inf j there,
    # where the exact value's real part, 2.4257482e+38, is finite (lazyarray's, and
    # numpy's in complex128 rounded to complex64).
    with np.errstate(all="ignore"):
        return ((x.imag == 0) & (np.isinf(np.expm1(x.real)) | np.isnan(x.real))) | \
            (np.isinf(x.real) & ~np.isfinite(x.imag)) | \
            (np.isfinite(x) & np.isinf(np.exp(x.real)))


def _log1p_fn(x: np.ndarray) -> np.ndarray:
    # numpy's complex log1p takes log(|1 + x|) with |1 + x| overflowing to inf for finite
    # x near the largest values, where the result (about 710, or 89 in complex64) is finite.
    big = float(np.finfo(x.real.dtype).max)
    with np.errstate(all="ignore"):
        return np.isfinite(x) & (np.abs(x.astype(np.clongdouble) + 1) > big)


def _sign_fn(x: np.ndarray) -> np.ndarray:
    # numpy's sign(z) is NaN + NaN j once a component is infinite; lazyarray gives the
    # limit z/|z| (e.g. sign(0 + inf j) = 1j).  The standard defers these to its complex
    # division rules, which leave infinite operands implementation dependent.  numpy
    # also divides by an overflowing |z| for finite z near the largest values, giving 0
    # where sign(z) has modulus 1.
    # A subnormal |x| breaks numpy's division too (sign(5e-324j) is NaN + inf j there, 1j
    # exactly).  Signs of zero parts: see sign_free.
    tiny = float(np.finfo(x.real.dtype).smallest_normal)
    with np.errstate(all="ignore"):
        mag = np.abs(x.astype(np.clongdouble))
        odd = np.isfinite(x) & ((mag > float(np.finfo(x.real.dtype).max)) | (mag < tiny))
    infinite = (np.isinf(x.real) | np.isinf(x.imag)) & ~np.isnan(x.real) & ~np.isnan(x.imag)
    return odd | infinite


def _reciprocal_fn(x: np.ndarray) -> np.ndarray:
    # numpy.reciprocal and numpy's complex division disagree where 1/x overflows, e.g.
    # 1/(1e-40+0j) in complex64: reciprocal gives inf - 0j, division inf + NaN j (Smith's
    # algorithm: 0 * inf).  The standard asks for reciprocal "as if 1.0 / x" and for the
    # textbook formula, which gives inf + NaN j as lazyarray does; not compared.
    # lazyarray's reciprocal of a complex zero: test_reciprocal_complex_zero (xfail).
    # With an infinite or NaN part the standard's complex division is "implementation
    # dependent" (1/(inf+0j) is 0-0j in numpy's reciprocal, 0+0j in lazyarray's).
    tiny = 2 / float(np.finfo(x.real.dtype).max)  # 1/|x| overflows (with a margin)
    return (np.abs(x.astype(np.complex128)) < tiny) | ~np.isfinite(x)


def _square_fn(x: np.ndarray) -> np.ndarray:
    # x * x for complex x near the overflow threshold: see _multiply_fn
    big = float(np.finfo(x.real.dtype).max) / 4
    with np.errstate(all="ignore"):
        return np.isfinite(x) & (np.abs(x.astype(np.clongdouble)) ** 2 > big)


# Inputs where array-api-strict (it forwards to numpy) deviates from the standard, or the
# standard leaves the result open, per (function, dtype kind): a mask over the input's
# elements that are not compared.
UNARY_DEVIATIONS = {
    ("square", "c"): _square_fn,
    ("expm1", "c"): _expm1_fn,
    ("log1p", "c"): _log1p_fn,
    ("sign", "c"): _sign_fn,
    ("reciprocal", "c"): _reciprocal_fn,
}

# numpy's complex log1p is log(1 + x): for |x| << 1 it is accurate only to about one ulp
# of 1 (absolute), e.g. log1p(5.9e-16+0j) is 0 in complex64; lazyarray keeps the
# relative accuracy there.  Compare those within this many ulp of 1 absolutely.
REFERENCE_ABS_ULPS = {("log1p", "c"): 2}


def unary_ignore(name: str, x) -> object:
    a = np.asarray(x)
    rule = UNARY_DEVIATIONS.get((name, a.dtype.kind))
    return None if rule is None else rule(a)


# Complex special cases whose result sign the standard leaves unspecified ("sign of the
# real/imaginary component is unspecified"; one numpy deviation is marked), per base
# function: (condition on the real part A and imaginary part B of the input, components
# whose sign is free).  All these
# functions are symmetric under conj() and under negation (odd or even), so the cases
# the standard lists for +0/+inf hold for any sign; exp and expm1 depend on sign(A).
_ZERO, _INF, _NAN = "zero", "inf", "nan"
_UNSPECIFIED = {
    "acos": [((_INF, _NAN), "im")],
    "acosh": [((_ZERO, _NAN), "im")],
    "asinh": [((_NAN, _INF), "re")],
    "atanh": [((_NAN, _INF), "re")],
    "cosh": [((_ZERO, _INF), "im"), ((_ZERO, _NAN), "im"), ((_INF, _INF), "re"),
             ((_NAN, _ZERO), "im")],
    "sinh": [((_ZERO, _INF), "re"), ((_ZERO, _NAN), "re"), ((_INF, _INF), "re"),
             ((_INF, _NAN), "re")],
    # also tanh(+inf + bj), b finite nonzero: the standard has 1 + 0j, numpy (C99) the
    # sign of sin(2b) for the zero imaginary part -- a reference deviation, not compared
    "tanh": [((_INF, _INF), "im"), ((_INF, _NAN), "im"), ((_INF, "finite nonzero"), "im")],
    "exp": [(("-inf", _INF), "re im"), (("+inf", _INF), "re"), (("-inf", _NAN), "re im"),
            (("+inf", _NAN), "re")],
    # expm1(+-0 + 0j) is "0 + 0j", where other functions say "+0" when the sign matters
    "expm1": [(("-inf", _INF), "im"), (("+inf", _INF), "re"), (("-inf", _NAN), "im"),
              (("+inf", _NAN), "re"), ((_ZERO, _ZERO), "re")],
}
# "special cases must be handled as if implemented as" base(x*1j), times -1j unless cos:
# x*1j = -b + aj, and a factor -1j swaps the roles of the result's components.
_DERIVED = {"asin": ("asinh", True), "atan": ("atanh", True), "sin": ("sinh", True),
            "tan": ("tanh", True), "cos": ("cosh", False)}


def _is(cls: str, v: np.ndarray) -> np.ndarray:
    return {"zero": v == 0, "inf": np.isinf(v), "nan": np.isnan(v),
            "-inf": v == -np.inf, "+inf": v == np.inf,
            "finite nonzero": np.isfinite(v) & (v != 0)}[cls]


def sign_free(name: str, x: np.ndarray):
    """(real, imaginary) masks of result components with an unspecified sign."""
    if x.dtype.kind == "c" and name == "reciprocal":
        # the sign of a zero part of 1/x depends on the division algorithm (and underflow):
        # the standard names none for finite operands ("should" use the textbook formula,
        # by which 1/(2+0j) is 0.5+0j; numpy.reciprocal gives 0.5-0j, lazyarray 0.5+0j)
        every = np.ones(x.shape, bool)
        return every, every
    if x.dtype.kind == "c" and name == "sign":
        # numpy's complex sign drops the sign of a zero part (sign(-1-0j) = -1+0j); by the
        # standard's division of a complex by the real |x| (a/c + (b/c) j) it stays -1-0j,
        # as in lazyarray
        return x.real == 0, x.imag == 0
    if x.dtype.kind != "c" or (name not in _UNSPECIFIED and name not in _DERIVED):
        return None
    a, b, swap = x.real, x.imag, False
    if name in _DERIVED:
        name, swap = _DERIVED[name]
        a, b = -b, a
    re = np.zeros(x.shape, bool)
    im = np.zeros(x.shape, bool)
    for (ca, cb), parts in _UNSPECIFIED[name]:
        hit = _is(ca, a) & _is(cb, b)
        if "re" in parts:
            re |= hit
        if "im" in parts:
            im |= hit
    return (im, re) if swap else (re, im)


# ----------------------------------------------------------------------------- unary checks

def check_unary(name: str, x, where: str, fn=None, got=None) -> None:
    """Compare ``name(x)`` -- or ``fn(x)``, e.g. an operator for ``name`` -- on both libraries
    (``got``: lazyarray's result computed already, e.g. in a batch)."""
    if got is not None:
        want = resolve(xs, name)(x)
    else:
        got, want = run_both(name, x) if fn is None else run_call(fn, x)
    dtype = str(np.asarray(x).dtype)
    rtol = tolerance(name, dtype)
    extra = REFERENCE_ABS_ULPS.get((name, np.dtype(dtype).kind), 0) * rtol_for(dtype, 1)
    check(got, want, rtol=rtol, atol=atol(dtype, rtol) + extra, ignore=unary_ignore(name, x),
          sign_free=sign_free(name, np.asarray(x)), where=where)


# ----------------------------------------------------------------------------- binary

def _integral(dtype: str) -> bool:
    return np.dtype(dtype).kind in "iu"


def nonnegative(v) -> bool:
    return v >= 0


def nonzero(v) -> bool:
    return v != 0


def divisor_filter(name: str, d1: str, d2: str):
    """The values of ``x2`` the standard specifies a result for (None: all)."""
    if not (_integral(d1) and _integral(d2)):
        return None
    if "shift" in name:
        return nonnegative  # "Each element must be greater than or equal to 0"
    if name in ("floor_divide", "remainder"):
        return nonzero  # integer division by zero is unspecified
    if name == "pow":
        return nonnegative  # integer ** negative integer is unspecified
    return None


def operand_pair(data, name: str, d1: str, d2: str):
    s1, s2 = data.draw(hs.mutually_broadcastable_shapes(2, min_dims=0, max_dims=2, max_side=3),
                       label="shapes").input_shapes
    x1 = data.draw(arrays(d1, s1), label="x1")
    keep = divisor_filter(name, d1, d2)
    x2 = data.draw(arrays(d2, s2, elements(d2).filter(keep) if keep else None), label="x2")
    return x1, x2


def _floor_divide_fn(a: np.ndarray, b: np.ndarray, want: np.ndarray) -> np.ndarray:
    # floor_divide: "libraries may return NaN to match Python behavior" for an infinite
    # x1 over a finite x2, and "-1.0" for a finite x1 over an infinity of the other sign;
    # numpy does both, lazyarray gives the standard's first choice.
    if a.dtype.kind != "f":
        return np.zeros(np.broadcast_shapes(a.shape, b.shape), bool)
    with np.errstate(all="ignore"):
        return (np.isinf(a) & np.isfinite(b)) | \
            (np.isfinite(a) & (a != 0) & np.isinf(b) & (np.sign(a) != np.sign(b)))


def _pow_fn(a: np.ndarray, b: np.ndarray, want: np.ndarray) -> np.ndarray:
    # Complex pow with a NaN or infinite component: the standard only says special cases
    # "should be handled as if implemented as exp(x2*log(x1))"; numpy's special-case
    # handling does not follow that (e.g. (1j) ** (nan + inf j) gives -0j there, NaN + NaN j
    # by the formula), so these inputs are not compared.  Nor are overflowing results:
    # the signs of their infinite parts follow the phase imag(x2*log(x1)) of a huge
    # number, which no implementation computes accurately.
    if a.dtype.kind != "c":
        return np.zeros(np.broadcast_shapes(a.shape, b.shape), bool)
    return ~np.isfinite(a) | ~np.isfinite(b) | ~np.isfinite(want)


def _multiply_fn(a: np.ndarray, b: np.ndarray, want: np.ndarray) -> np.ndarray:
    # Complex products of finite values at the overflow threshold: whether a part rounds to
    # the largest value or to inf depends on fused multiply-adds (lazyarray) against two
    # roundings (numpy); complex multiplication is not required to be correctly rounded.
    if a.dtype.kind != "c":
        return np.zeros(np.broadcast_shapes(a.shape, b.shape), bool)
    return np.isfinite(a) & np.isfinite(b) & ~np.isfinite(want)


BINARY_DEVIATIONS = {"floor_divide": _floor_divide_fn, "pow": _pow_fn,
                     "multiply": _multiply_fn}


def check_binary(name: str, x1, x2, where: str, fn=None, got=None) -> None:
    """Compare ``name(x1, x2)`` -- or ``fn(x1, x2)``, e.g. an operator for ``name`` --
    on both libraries, with the tolerance and reference deviations of ``name`` (``got``:
    lazyarray's result computed already, e.g. in a batch)."""
    rule = BINARY_DEVIATIONS.get(name)
    if rule is not None:  # judged on the operands promoted to the common dtype
        common = np.result_type(*(np.asarray(x) for x in (x1, x2) if isinstance(x, StrictArray)))
        operands = [np.array(x, dtype=common) for x in (x1, x2)]  # before in-place ops
    if got is not None:
        want = resolve(xs, name)(x1, x2)
    else:
        got, want = run_both(name, x1, x2) if fn is None else run_call(fn, x1, x2)
    dtype = _dt(want)
    rtol = tolerance(name, dtype)
    ignore = None if rule is None else rule(*operands, np.asarray(want))
    check(got, want, rtol=rtol, atol=atol(dtype, rtol), ignore=ignore,
          zero_sign=name not in ANY_ZERO_SIGN, where=where)


def _dt(x) -> str:
    return str(np.asarray(x).dtype)
