"""complex64 and complex128: elementwise functions, casts and scalars.

Values are compared with numpy (dtype, shape, and values: exactly for add,
subtract and the other exact operations, within a few ulp of the result's
magnitude for the rest) on random values over many scales and on every pair
of special parts (NaN, +-inf, +-0, subnormal, huge, ...), at sizes 0, 1, 7,
64 and 519 and on 0-d arrays.  The standard's special-case tables for complex
input are transcribed in ``TABLES`` and checked row by row (and, through the
conjugate symmetry the standard states, for the mirrored rows); where numpy
departs from the standard, the standard's value is asserted and the rule is
cited next to the case.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

import lazyarray as xp
from lazyarray._array_object import record
from lazyarray.backend.ir import Op

CDT = ["complex64", "complex128"]
SIZES = (0, 1, 7, 64, 519)
N = SIZES[-1]
NAN, INF, PI = math.nan, math.inf, math.pi
UNARY = ["sqrt", "exp", "expm1", "log", "log1p", "log2", "log10", "sin", "cos", "tan", "sinh",
         "cosh", "tanh", "asin", "acos", "atan", "asinh", "acosh", "atanh"]
RTOL_ULPS = 8            # transcendental functions (libm, and numpy's C99 functions)


def eps(dtype) -> float:
    return float(np.finfo(np.dtype(dtype)).eps)


def parts(dtype) -> list:
    """Special values of the parts: the grid's axes."""
    f = np.finfo(np.dtype(dtype))
    return [NAN, INF, -INF, 0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0,
            float(f.smallest_subnormal), float(f.max) / 2]


def grid(dtype) -> np.ndarray:
    p = parts(dtype)
    return np.array([complex(a, b) for a in p for b in p], dtype)


def randoms(dtype, n: int, seed: int) -> np.ndarray:
    """Values at scales 1e-30 .. 1e30 (1e-20 .. 1e20 for complex64), parts of mixed size."""
    rng = np.random.default_rng(seed)
    top = 30 if np.dtype(dtype) == np.complex128 else 20
    mag = 10.0 ** rng.uniform(-top, top, n)
    ratio = 10.0 ** rng.uniform(-6, 6, n) * rng.choice([0, 1], n, p=[0.05, 0.95])
    z = mag * np.exp(1j * rng.uniform(-PI, PI, n))
    z = z.real + 1j * z.imag * ratio
    mid = rng.normal(0, 2, n) + 1j * rng.normal(0, 2, n)     # the busy region near the origin
    return np.where(rng.random(n) < 0.5, z, mid).astype(dtype)


def pool(dtype, seed: int = 0) -> np.ndarray:
    """N values: the special grid at the end (so size-n slices from the end hold it)."""
    g = grid(dtype)
    return np.concatenate([randoms(dtype, N - len(g), seed), g])


# --------------------------------------------------------------------------- checking

def same_parts(v: np.ndarray, e: np.ndarray, rtol: float, zero_sign: bool = True) -> np.ndarray:
    """Elementwise: NaN where ``e`` is NaN, equal infinities, finite values within
    ``rtol`` of the magnitude of the whole result (and the sign of exact zeros)."""
    if np.iscomplexobj(e):
        scale = np.abs(e.astype(np.complex128))
        scale = np.where(np.isfinite(scale), scale, 0.0)
        return (_part_ok(v.real, e.real, rtol, scale, zero_sign)
                & _part_ok(v.imag, e.imag, rtol, scale, zero_sign))
    return _part_ok(v, e, rtol, np.abs(e.astype(np.float64)), zero_sign)


def _part_ok(v, e, rtol, scale, zero_sign):
    v, e = v.astype(np.float64), e.astype(np.float64)
    with np.errstate(invalid="ignore"):
        ok = np.where(np.isnan(e), np.isnan(v), v == e)
        fin = np.isfinite(e) & np.isfinite(v)
        close = np.abs(v - e) <= rtol * np.maximum(np.abs(e), scale) + 1e-300
        ok |= fin & (close if rtol else False)
    if zero_sign:
        z = (v == 0) & (e == 0)
        ok &= ~z | (np.signbit(v) == np.signbit(e))
    return ok


def check(got, expected, rtol: float = 0.0, zero_sign: bool = True) -> None:
    expected = np.asarray(expected)
    assert got.dtype == getattr(xp, expected.dtype.name), (got.dtype, expected.dtype)
    assert got.shape == expected.shape
    v = np.asarray(got)
    assert v.dtype == expected.dtype and v.shape == expected.shape
    bad = np.flatnonzero(~same_parts(v.reshape(-1), expected.reshape(-1), rtol, zero_sign))
    assert bad.size == 0, (f"{bad.size} of {v.size} differ (rtol={rtol}): got "
                           f"{v.reshape(-1)[bad[:6]]}, expected {expected.reshape(-1)[bad[:6]]}")


def run_sizes(fn, ref, inputs: list, rtol: float = 0.0, zero_sign: bool = True) -> None:
    """``fn`` against ``ref`` on size-n slices (from the end) and on 0-d arrays."""
    for i, n in enumerate(SIZES):
        args = [a[N - n:] for a in inputs]
        k = N - 1 - 5 * i
        got = fn(*[xp.asarray(a) for a in args])
        got0 = fn(*[xp.asarray(a[k:k + 1])[0] for a in inputs])
        xp.evaluate(got, got0)
        with np.errstate(all="ignore"):
            check(got, ref(*args), rtol, zero_sign)
            # numpy's scalar loops differ from its array loops (no FMA): use a 1-element array
            check(got0, np.asarray(ref(*[a[k:k + 1] for a in inputs]))[0], rtol, zero_sign)


# --------------------------------------------------------------------------- references

def _series(z: np.ndarray, f: str) -> np.ndarray:
    """log1p / expm1 near 0 by their Taylor series in extended precision (numpy's own
    complex log1p loses all accuracy there: it computes log(hypot(1 + a, b)))."""
    z = z.astype(np.clongdouble)
    out, term = np.zeros_like(z), z.copy()
    for k in range(1, 12):
        out += term / k if f == "log1p" else term
        term = term * (-z if f == "log1p" else z / (k + 1))
    return out


def reference(name: str, z: np.ndarray) -> np.ndarray:
    """numpy's value, in extended precision where numpy's formula is inaccurate."""
    with np.errstate(all="ignore"):
        out = getattr(np, name)(z)
        if name in ("log1p", "expm1"):
            fin = np.isfinite(z)
            zl = z.astype(np.clongdouble)
            direct = np.log(1 + zl) if name == "log1p" else np.exp(zl) - 1
            small = fin & (np.abs(z) < 1e-3)
            acc = np.where(small, _series(z, name), direct).astype(z.dtype)
            # finite inputs only; the special values are checked against the standard
            out = np.where(fin & np.isfinite(acc), acc, out)
            if name == "expm1":   # exp(a) - 1 + (exp(a) sin 0) j: the imaginary part stays +-0
                real = np.where(fin & (z.imag == 0), np.expm1(z.real), out.real)
                out = np.where(fin & (z.imag == 0), real + 0j, out)
                out.imag = np.where(fin & (z.imag == 0), z.imag, out.imag)
    return out


# --------------------------------------------------------------------------- arithmetic

@pytest.mark.parametrize("dtype", CDT)
def test_add_subtract_negative_conj_round_are_exact(dtype):
    g = grid(dtype)
    x, y = np.repeat(g, len(g)), np.tile(g, len(g))          # every pair of special parts
    for f in ("add", "subtract"):
        with np.errstate(invalid="ignore"):
            check(getattr(xp, f)(xp.asarray(x), xp.asarray(y)), getattr(np, f)(x, y))
    a = pool(dtype)
    run_sizes(xp.negative, np.negative, [a])
    run_sizes(xp.conj, np.conj, [a])
    run_sizes(xp.positive, np.positive, [a])
    run_sizes(xp.round, np.round, [a])
    # round: each part to the nearest integer, halves to even (the standard's round)
    h = np.array([complex(r, i) for r in (0.5, 1.5, -2.5, 2.4999, NAN, -0.0)
                  for i in (-0.5, 3.5, INF, 0.0)], dtype)
    expected = np.empty_like(h)
    expected.real, expected.imag = np.round(h.real), np.round(h.imag)
    check(xp.round(xp.asarray(h)), expected)


@pytest.mark.parametrize("dtype", CDT)
@pytest.mark.parametrize("name", ["multiply", "divide"])
def test_multiply_divide_match_numpy(dtype, name):
    g = grid(dtype)
    x, y = np.repeat(g, len(g)), np.tile(g, len(g))
    f = getattr(np, name)
    # multiply: (ac - bd) + (ad + bc)j with fused multiply-adds; divide: Smith's algorithm.
    # numpy forms the same expressions, so infinities and NaNs land in the same places.
    with np.errstate(all="ignore"):
        check(getattr(xp, name)(xp.asarray(x), xp.asarray(y)), f(x, y), 2 * eps(dtype))
    run_sizes(getattr(xp, name), f, [pool(dtype, 1), pool(dtype, 2)], 2 * eps(dtype))


@pytest.mark.parametrize("dtype", CDT)
def test_square_reciprocal_abs_sign(dtype):
    a = pool(dtype)
    run_sizes(xp.square, np.square, [a], 2 * eps(dtype))
    # reciprocal: as 1.0 / x, the standard says (numpy's np.reciprocal has its own formula)
    run_sizes(xp.reciprocal, lambda v: np.divide(np.ones((), v.dtype), v), [a], 2 * eps(dtype))
    run_sizes(xp.abs, np.abs, [a], 2 * eps(dtype))              # hypot: a real result
    # sign: the standard asks NaN + NaN j when either part is NaN; numpy gives +-1 for
    # an infinite part next to a NaN.
    run_sizes(xp.sign, _sign_ref, [a], 2 * eps(dtype))
    # z/|z| stays accurate where |z| overflows or is subnormal (numpy: 0 + 1j and 1 + 1j)
    f = np.finfo(dtype)
    z = np.array([complex(f.max, f.max), complex(f.smallest_subnormal, f.smallest_subnormal),
                  complex(-f.max, f.max / 2 ** 40)], dtype)
    r = np.array([complex(math.sqrt(0.5), math.sqrt(0.5))] * 2 + [-1 + 2.0 ** -40 * 1j], dtype)
    check(xp.sign(xp.asarray(z)), r, 2 * eps(dtype))
    # sign(+-0 +- 0j) is 0 + 0j (standard: the result is 0 + 0j)
    z = np.array([0j, complex(-0.0, -0.0), complex(0.0, -0.0), complex(-0.0, 0.0)], dtype)
    check(xp.sign(xp.asarray(z)), np.zeros(4, dtype))


def _sign_ref(z):
    """numpy's sign, with NaN + NaN j for a NaN part (the standard) and tiny z scaled up
    exactly first (numpy's hypot of two subnormals loses the bits z/|z| needs)."""
    f = np.finfo(z.dtype)
    tiny = np.maximum(np.abs(z.real), np.abs(z.imag)) < f.smallest_normal * 2.0 ** f.nmant
    with np.errstate(all="ignore"):
        k = np.where(tiny, 2.0 ** f.nmant, 1.0).astype(z.real.dtype)
        out = np.sign(_pair(z.real * k, z.imag * k))     # part by part: keeps -0
    return np.where(np.isnan(z.real) | np.isnan(z.imag), np.array(complex(NAN, NAN), z.dtype), out)


@pytest.mark.parametrize("dtype", CDT)
def test_isnan_isinf_isfinite_real_imag(dtype):
    a = pool(dtype)
    for f in ("isnan", "isinf", "isfinite"):
        run_sizes(getattr(xp, f), getattr(np, f), [a])
    run_sizes(xp.real, np.real, [a])
    run_sizes(xp.imag, np.imag, [a])
    assert xp.real(xp.asarray(a)).dtype == xp.abs(xp.asarray(a)).dtype == \
        (xp.float32 if dtype == "complex64" else xp.float64)


# --------------------------------------------------------------------------- transcendental

@pytest.mark.parametrize("dtype", CDT)
@pytest.mark.parametrize("name", UNARY)
def test_transcendental_values(dtype, name):
    z = randoms(dtype, 4000, 7)
    check(getattr(xp, name)(xp.asarray(z)), reference(name, z), RTOL_ULPS * eps(dtype))
    # sizes and 0-d arrays (the special values: test_special_grid_against_numpy, the tables)
    run_sizes(getattr(xp, name), lambda v: reference(name, v), [randoms(dtype, N, 3)],
              RTOL_ULPS * eps(dtype))


def test_small_arguments_keep_their_accuracy():
    # log1p(z) ~ z and expm1(z) ~ z for tiny z (numpy's log1p returns 0 for the real part)
    z = np.array([1e-20 + 1e-20j, -3e-300 + 1e-310j, 1e-19 - 2e-19j, 5e-17j], np.complex128)
    for f in ("log1p", "expm1", "sin", "tan", "asin", "atan", "sinh", "tanh", "asinh",
              "atanh"):
        check(getattr(xp, f)(xp.asarray(z)), z, 2 * eps(np.complex128))


# --------------------------------------------------------------------------- special values

def _conds():
    """Condition tokens of the standard's tables: (predicate, sample values)."""
    fin = [0.0, -0.0, 1.0, -2.5, 0.5, 1e10]
    return {
        "nan": (math.isnan, [NAN]), "+inf": (lambda v: v == INF, [INF]),
        "-inf": (lambda v: v == -INF, [-INF]), "inf": (math.isinf, [INF, -INF]),
        "+0": (lambda v: v == 0 and math.copysign(1, v) > 0, [0.0]),
        "-0": (lambda v: v == 0 and math.copysign(1, v) < 0, [-0.0]),
        "0": (lambda v: v == 0, [0.0, -0.0]), "1": (lambda v: v == 1, [1.0]),
        "-1": (lambda v: v == -1, [-1.0]),
        "fin": (math.isfinite, fin),
        "nzfin": (lambda v: math.isfinite(v) and v != 0, [1.0, -2.5, 0.5, 1e10]),
        "posfin": (lambda v: math.isfinite(v) and v > 0, [0.5, 1.0, 2.5, 1e10]),
        "nz": (lambda v: not math.isnan(v) and v != 0, [1.0, -2.5, INF, -INF]),
        "any": (lambda v: True, [NAN, INF, -INF, 0.0, -0.0, 1.0, -2.5]),
    }


# Rows in the standard's order: (real part, imaginary part, (expected real, expected imag)).
# Expected: a number ("+0"/"-0" are signed zeros, "±0"/"±inf"/"±pi/2" leave the sign
# open), or a function of (a, b).
_C, _S = (lambda k: (lambda a, b: k * math.cos(b))), (lambda k: (lambda a, b: k * math.sin(b)))
TABLES = {
    "abs": [("inf", "any", INF), ("any", "inf", INF), ("0", "any", lambda a, b: abs(b)),
            ("any", "0", lambda a, b: abs(a)), ("nan", "fin", NAN), ("fin", "nan", NAN),
            ("nan", "nan", NAN)],
    "acos": [("0", "+0", (PI / 2, "-0")), ("0", "nan", (PI / 2, NAN)),
             ("fin", "+inf", (PI / 2, -INF)), ("nzfin", "nan", (NAN, NAN)),
             ("-inf", "posfin", (PI, -INF)), ("+inf", "posfin", ("+0", -INF)),
             ("-inf", "+inf", (3 * PI / 4, -INF)), ("+inf", "+inf", (PI / 4, -INF)),
             ("inf", "nan", (NAN, "±inf")), ("nan", "fin", (NAN, NAN)),
             ("nan", "+inf", (NAN, -INF)), ("nan", "nan", (NAN, NAN))],
    "acosh": [("0", "+0", ("+0", PI / 2)), ("fin", "+inf", (INF, PI / 2)),
              ("nzfin", "nan", (NAN, NAN)), ("+0", "nan", (NAN, "±pi/2")),
              ("-inf", "posfin", (INF, PI)), ("+inf", "posfin", (INF, "+0")),
              ("-inf", "+inf", (INF, 3 * PI / 4)), ("+inf", "+inf", (INF, PI / 4)),
              ("inf", "nan", (INF, NAN)), ("nan", "fin", (NAN, NAN)),
              ("nan", "+inf", (INF, NAN)), ("nan", "nan", (NAN, NAN))],
    "asinh": [("+0", "+0", ("+0", "+0")), ("posfin", "+inf", (INF, PI / 2)),
              ("fin", "nan", (NAN, NAN)), ("+inf", "posfin", (INF, "+0")),
              ("+inf", "+inf", (INF, PI / 4)), ("nan", "+0", (NAN, "+0")),
              ("nan", "nzfin", (NAN, NAN)), ("nan", "+inf", ("±inf", NAN)),
              ("nan", "nan", (NAN, NAN))],
    "atanh": [("+0", "+0", ("+0", "+0")), ("+0", "nan", ("+0", NAN)),
              ("1", "+0", (INF, "+0")), ("posfin", "+inf", ("+0", PI / 2)),
              ("nzfin", "nan", (NAN, NAN)), ("+inf", "posfin", ("+0", PI / 2)),
              ("+inf", "+inf", ("+0", PI / 2)), ("+inf", "nan", ("+0", NAN)),
              ("nan", "fin", (NAN, NAN)), ("nan", "+inf", ("±0", PI / 2)),
              ("nan", "nan", (NAN, NAN))],
    "cosh": [("+0", "+0", (1.0, "+0")), ("+0", "+inf", (NAN, "±0")), ("+0", "nan", (NAN, "±0")),
             ("nzfin", "+inf", (NAN, NAN)), ("nzfin", "nan", (NAN, NAN)),
             ("+inf", "+0", (INF, "+0")), ("+inf", "nzfin", (_C(INF), _S(INF))),
             ("+inf", "+inf", ("±inf", NAN)), ("+inf", "nan", (INF, NAN)),
             ("nan", "0", (NAN, "±0")), ("nan", "nzfin", (NAN, NAN)), ("nan", "nan", (NAN, NAN))],
    "exp": [("0", "+0", (1.0, "+0")), ("fin", "+inf", (NAN, NAN)), ("fin", "nan", (NAN, NAN)),
            ("+inf", "+0", (INF, "+0")), ("-inf", "fin", (_C(0.0), _S(0.0))),
            ("+inf", "nzfin", (_C(INF), _S(INF))), ("-inf", "+inf", ("±0", "±0")),
            ("+inf", "+inf", ("±inf", NAN)), ("-inf", "nan", ("±0", "±0")),
            ("+inf", "nan", ("±inf", NAN)), ("nan", "+0", (NAN, "+0")),
            ("nan", "nz", (NAN, NAN)), ("nan", "nan", (NAN, NAN))],
    # numpy's expm1 gives NaN in most of these rows; the standard's values are asserted.
    "expm1": [("0", "+0", ("+0", "+0")), ("fin", "+inf", (NAN, NAN)), ("fin", "nan", (NAN, NAN)),
              ("+inf", "+0", (INF, "+0")), ("-inf", "fin", (lambda a, b: -1.0, _S(0.0))),
              ("+inf", "nzfin", (_C(INF), _S(INF))), ("-inf", "+inf", (-1.0, "±0")),
              ("+inf", "+inf", ("±inf", NAN)), ("-inf", "nan", (-1.0, "±0")),
              ("+inf", "nan", ("±inf", NAN)), ("nan", "+0", (NAN, "+0")),
              ("nan", "nz", (NAN, NAN)), ("nan", "nan", (NAN, NAN))],
    "isfinite": [("nan", "any", False), ("any", "nan", False), ("inf", "any", False),
                 ("any", "inf", False), ("fin", "fin", True)],
    "isinf": [("inf", "any", True), ("fin", "inf", True), ("nan", "inf", True),
              ("any", "any", False)],
    "isnan": [("nan", "any", True), ("any", "nan", True), ("any", "any", False)],
    "log": [("-0", "+0", (-INF, PI)), ("+0", "+0", (-INF, "+0")), ("fin", "+inf", (INF, PI / 2)),
            ("fin", "nan", (NAN, NAN)), ("-inf", "posfin", (INF, PI)),
            ("+inf", "posfin", (INF, "+0")), ("-inf", "+inf", (INF, 3 * PI / 4)),
            ("+inf", "+inf", (INF, PI / 4)), ("inf", "nan", (INF, NAN)),
            ("nan", "fin", (NAN, NAN)), ("nan", "+inf", (INF, NAN)), ("nan", "nan", (NAN, NAN))],
    "log1p": [("-1", "+0", (-INF, "+0")), ("fin", "+inf", (INF, PI / 2)),
              ("fin", "nan", (NAN, NAN)), ("-inf", "posfin", (INF, PI)),
              ("+inf", "posfin", (INF, "+0")), ("-inf", "+inf", (INF, 3 * PI / 4)),
              ("+inf", "+inf", (INF, PI / 4)), ("inf", "nan", (INF, NAN)),
              ("nan", "fin", (NAN, NAN)), ("nan", "+inf", (INF, NAN)), ("nan", "nan", (NAN, NAN))],
    # sign(NaN +- inf j) is NaN + NaN j here (the standard); numpy gives +-1j.
    "sign": [("0", "0", ("+0", "+0")), ("nan", "any", (NAN, NAN)), ("any", "nan", (NAN, NAN))],
    "sinh": [("+0", "+0", ("+0", "+0")), ("+0", "+inf", ("±0", NAN)), ("+0", "nan", ("±0", NAN)),
             ("posfin", "+inf", (NAN, NAN)), ("posfin", "nan", (NAN, NAN)),
             ("+inf", "+0", (INF, "+0")), ("+inf", "posfin", (_C(INF), _S(INF))),
             ("+inf", "+inf", ("±inf", NAN)), ("+inf", "nan", ("±inf", NAN)),
             ("nan", "+0", (NAN, "+0")), ("nan", "nzfin", (NAN, NAN)), ("nan", "nan", (NAN, NAN))],
    "sqrt": [("0", "+0", ("+0", "+0")), ("any", "+inf", (INF, INF)), ("fin", "nan", (NAN, NAN)),
             ("-inf", "posfin", ("+0", INF)), ("+inf", "posfin", (INF, "+0")),
             ("-inf", "nan", (NAN, "±inf")), ("+inf", "nan", (INF, NAN)),
             ("nan", "any", (NAN, NAN)), ("nan", "nan", (NAN, NAN))],
    # tanh(+inf + bj), b > 0 finite: the standard says 1 + 0j; numpy (C99) gives the sign
    # of sin(2b), e.g. 1 - 0j for b = 3.
    "tanh": [("+0", "+0", ("+0", "+0")), ("nzfin", "+inf", (NAN, NAN)),
             ("+0", "+inf", ("+0", NAN)), ("nzfin", "nan", (NAN, NAN)), ("+0", "nan", ("+0", NAN)),
             ("+inf", "posfin", (1.0, "+0")), ("+inf", "+inf", (1.0, "±0")),
             ("+inf", "nan", (1.0, "±0")), ("nan", "+0", (NAN, "+0")),
             ("nan", "nz", (NAN, NAN)), ("nan", "nan", (NAN, NAN))],
}
# The standard states f(conj(z)) == conj(f(z)) for these (checked on the mirrored rows).
CONJ_SYMMETRIC = {"acos", "acosh", "asinh", "atanh", "cosh", "exp", "expm1", "log", "log1p",
                  "sinh", "sqrt", "tanh"}


def _expect_ok(got: float, want, a: float, b: float, dtype) -> bool:
    if callable(want):
        want = want(a, b)
    if isinstance(want, bool):
        return got is want or got == want
    if isinstance(want, str):
        if want in ("+0", "-0"):
            return got == 0 and math.copysign(1, got) == (1 if want == "+0" else -1)
        if want == "±0":
            return got == 0
        if want == "±inf":
            return math.isinf(got)
        return math.isclose(abs(got), PI / 2, rel_tol=4 * eps(dtype))   # "±pi/2"
    if math.isnan(want):
        return math.isnan(got)
    if math.isinf(want) or want == 0:
        return got == want
    return math.isclose(got, want, rel_tol=4 * eps(dtype))


def _table_cases(name: str, dtype):
    """(z, expected) for every sample of every row, where that row is the first to match."""
    conds = _conds()
    rows = TABLES[name]
    upper = name in CONJ_SYMMETRIC   # rows are stated for b >= +0; conj covers the rest
    for row in rows:
        ca, cb, want = row
        for a in conds[ca][1]:
            for b in conds[cb][1]:
                if upper and math.copysign(1.0, b) < 0:
                    continue
                a, b = float(np.dtype(dtype).type(a).real), float(np.dtype(dtype).type(b).real)
                first = next(r for r in rows if conds[r[0]][0](a) and conds[r[1]][0](b))
                if first is row:
                    yield a, b, want


@pytest.mark.parametrize("dtype", CDT)
@pytest.mark.parametrize("name", sorted(TABLES))
def test_standard_special_cases(dtype, name):
    cases = list(_table_cases(name, dtype))
    assert cases
    z = np.array([complex(a, b) for a, b, _ in cases], dtype)
    mirrored = name in CONJ_SYMMETRIC
    x = np.concatenate([z, np.conj(z)]) if mirrored else z
    got = np.asarray(getattr(xp, name)(xp.asarray(x)))
    bad = []
    for i, (a, b, want) in enumerate(cases):
        outs = [(got[i], a, b, 1)] + ([(got[len(z) + i], a, b, -1)] if mirrored else [])
        for g, a_, b_, s in outs:
            if isinstance(want, tuple):
                ok = _expect_ok(float(g.real), want[0], a_, b_, dtype)
                # conj(f(z)) for the mirrored input: the imaginary expectation flips sign
                gi = float(g.imag) * s
                ok = ok and _expect_ok(gi, want[1], a_, b_, dtype)
            else:
                ok = _expect_ok(g.item() if g.dtype == bool else float(g), want, a_, b_, dtype)
            if not ok:
                bad.append((complex(a_, b_ * s), g, want))
    assert not bad, bad[:8]


def _pair(re, im):
    out = np.empty(re.shape, np.result_type(re.dtype, np.complex64))
    out.real, out.imag = re, im
    return out


def _rot(z):
    """z * 1j without rounding or inf * 0: (-b, a)."""
    return _pair(-z.imag, z.real)


def _unrot(w):
    """-1j * w: (d, -c)."""
    return _pair(w.imag, -w.real)


@pytest.mark.parametrize("dtype", CDT)
def test_trig_follow_their_hyperbolic_definitions(dtype):
    # The standard: sin(x) as -1j*sinh(x*1j), cos(x) as cosh(x*1j), tan(x) as -1j*tanh(x*1j),
    # asin(x) as -1j*asinh(x*1j), atan(x) as -1j*atanh(x*1j) (special cases included).
    z = np.concatenate([grid(dtype), randoms(dtype, 200, 5)])
    iz = xp.asarray(_rot(z).astype(dtype))
    for f, h, back in (("sin", "sinh", _unrot), ("cos", "cosh", lambda w: w),
                       ("tan", "tanh", _unrot), ("asin", "asinh", _unrot),
                       ("atan", "atanh", _unrot)):
        expected = back(np.asarray(getattr(xp, h)(iz))).astype(dtype)
        check(getattr(xp, f)(xp.asarray(z)), expected)


@pytest.mark.parametrize("dtype", CDT)
def test_symmetries_the_standard_states(dtype):
    z = np.concatenate([grid(dtype), randoms(dtype, 300, 9)])
    # sign of a NaN part is not meaningful, nor are the zero/inf signs the tables leave open
    for f in ("sqrt", "exp", "expm1", "log", "log1p", "log2", "log10", "sinh", "tanh",
              "asinh", "acos", "acosh", "asin", "atan", "atanh", "sin", "cos", "tan"):
        fz = np.asarray(getattr(xp, f)(xp.asarray(z)))
        fc = np.asarray(getattr(xp, f)(xp.asarray(np.conj(z))))
        open_sign = _open_sign(f, z)
        ok = same_parts(fc, np.conj(fz), 0.0, zero_sign=False)
        zs = (fc.imag == 0) & (fz.imag == 0) & ~open_sign
        ok &= ~zs | (np.signbit(fc.imag) != np.signbit(fz.imag))
        ok |= open_sign & same_parts(_abs_parts(fc), _abs_parts(fz), 0.0, zero_sign=False)
        assert ok.all(), (f, z[~ok][:5], fc[~ok][:5], fz[~ok][:5])
    for f in ("asinh", "atanh"):     # odd functions, as the standard states
        fz = np.asarray(getattr(xp, f)(xp.asarray(z)))
        fm = np.asarray(getattr(xp, f)(xp.asarray(-z)))
        # asinh(NaN + inf j) = +-inf + NaN j: the sign is left open
        open_sign = np.isnan(z.real) & np.isinf(z.imag) if f == "asinh" else False
        assert (same_parts(fm, -fz, 0.0, zero_sign=False) | open_sign).all(), f


def _abs_parts(w):
    return _pair(np.abs(w.real), np.abs(w.imag))


def _open_sign(f: str, z: np.ndarray) -> np.ndarray:
    """Where the standard leaves a sign of the result open (a zero, or an infinity
    next to a NaN), so conjugate symmetry only holds up to that sign."""
    a, b = z.real, z.imag
    bad_b = ~np.isfinite(b)
    if f == "asinh":     # asinh(NaN + inf j) = +-inf + NaN j
        return np.isnan(a) & np.isinf(b)
    if f in ("asin", "acos"):   # asin(z) = -1j asinh(iz); acos(+-inf + NaN j) = NaN +- inf j
        return np.isnan(b) & np.isinf(a)
    if f == "acosh":     # acosh(+0 + NaN j) = NaN +- pi/2 j
        return np.isnan(b) & (a == 0)
    if f == "cosh":
        return (a == 0) & bad_b
    if f == "cos":   # cos(z) = cosh(iz)
        return (b == 0) & ~np.isfinite(a)
    if f in ("exp", "expm1"):
        return (a == -INF) & bad_b
    if f == "tanh":
        return np.isinf(a) & bad_b
    return np.zeros(z.shape, bool)


@pytest.mark.parametrize("dtype", CDT)
def test_special_grid_against_numpy(dtype):
    """The grid of special parts against numpy's C99 functions, but for the cases where
    the standard departs from C99/numpy or leaves a sign open (asserted in the tables)."""
    z = grid(dtype)
    a, b = z.real, z.imag
    for f in ("sqrt", "exp", "log", "log2", "log10", "sinh", "cosh", "tanh", "asinh", "acos",
              "acosh", "asin", "atan", "atanh", "sin", "cos", "tan"):
        with np.errstate(all="ignore"):
            ref = getattr(np, f)(z)
        got = np.asarray(getattr(xp, f)(xp.asarray(z)))
        ok = same_parts(got, ref, RTOL_ULPS * eps(dtype), zero_sign=False)
        ok |= _numpy_differs(f, a, b)
        assert ok.all(), (f, z[~ok][:6], got[~ok][:6], ref[~ok][:6])
        # the sign of zero parts agrees too, outside the cases the standard leaves open
        # or specifies differently from C99
        z0 = ((got.imag == 0) & (ref.imag == 0)) & ~_numpy_differs(f, a, b)
        z0 &= ~_sign_open_vs_c99(f, a, b)
        assert (np.signbit(got.imag[z0]) == np.signbit(ref.imag[z0])).all(), f


def _numpy_differs(f, a, b):
    """Cases where the standard leaves a sign open that numpy fixes otherwise."""
    inf_a, bad_b = np.isinf(a), ~np.isfinite(b)
    if f == "sinh":          # sinh(+-inf + (inf | NaN) j): real part's sign unspecified
        return inf_a & bad_b
    if f == "sin":           # sin(z) = -1j sinh(iz)
        return np.isinf(b) & ~np.isfinite(a)
    if f == "asinh":         # asinh(NaN + inf j) = +-inf + NaN j
        return np.isnan(a) & np.isinf(b)
    if f == "asin":          # asin(z) = -1j asinh(iz)
        return np.isnan(b) & np.isinf(a)
    if f == "tan":           # tan(z) = -1j tanh(iz): tanh(+inf + bj) = 1 + 0j by the standard
        return np.isinf(b) & np.isfinite(a)
    return np.zeros(a.shape, bool)


def _sign_open_vs_c99(f, a, b):
    if f == "cosh":
        return (a == 0) & ~np.isfinite(b)
    if f == "cos":
        return (b == 0) & ~np.isfinite(a) | (np.isnan(b) & (a == 0))
    if f == "tanh":          # standard: tanh(+inf + bj) = 1 + 0j for b > 0 (numpy: sign of sin 2b)
        return np.isinf(a)
    return np.zeros(a.shape, bool)


# --------------------------------------------------------------------------- pow

@pytest.mark.parametrize("dtype", CDT)
def test_pow(dtype):
    rng = np.random.default_rng(11)
    n = 2000
    z = (rng.normal(0, 2, n) + 1j * rng.normal(0, 2, n)).astype(dtype)
    w = (rng.normal(0, 1.5, n) + 1j * rng.normal(0, 1.5, n)).astype(dtype)
    # general exponents: exp(w log z), compared in extended precision (as is numpy's)
    ref = np.power(z.astype(np.clongdouble), w.astype(np.clongdouble)).astype(dtype)
    check(xp.pow(xp.asarray(z), xp.asarray(w)), ref, 64 * eps(dtype))
    # integer exponents below 100 are products, exactly as numpy forms them
    k = rng.integers(-12, 13, n).astype(dtype)
    check(xp.pow(xp.asarray(z), xp.asarray(k)), np.power(z, k))
    # w == 0 gives 1 (even for a NaN base); base 0 gives 0 for Re(w) > 0, else NaN (numpy)
    base = np.array([0j, complex(NAN, 1), 0j, 0j, 2 + 1j], dtype)
    expo = np.array([0j, complex(-0.0, 0.0), 2.5 + 1j, -1 + 0j, 1 + 0j], dtype)
    with np.errstate(all="ignore"):
        check(xp.pow(xp.asarray(base), xp.asarray(expo)), np.power(base, expo))
    # the operator with Python scalars on either side
    zx = xp.asarray(z[:7])
    check(zx ** 2, z[:7] * z[:7], 2 * eps(dtype))
    check(zx ** (0.5 + 1j), np.power(z[:7].astype(np.clongdouble), 0.5 + 1j).astype(dtype),
          64 * eps(dtype))
    check(2 ** zx, np.power(np.clongdouble(2), z[:7].astype(np.clongdouble)).astype(dtype),
          64 * eps(dtype))


# --------------------------------------------------------------------------- scalars, promotion

@pytest.mark.parametrize("dtype", CDT)
def test_python_scalars_on_either_side(dtype):
    z = pool(dtype)[-200:]
    x = xp.asarray(z)
    s = np.dtype(dtype).type
    with np.errstate(all="ignore"):
        for got, exp in ((x + (1 - 2j), z + s(1 - 2j)), ((1 - 2j) + x, s(1 - 2j) + z),
                         (x - 2.5, z - s(2.5)), (3 - x, s(3) - z), (x * 1j, z * s(1j)),
                         (0.5j * x, s(0.5j) * z), (x / (2 + 1j), z / s(2 + 1j)),
                         ((2 + 1j) / x, s(2 + 1j) / z)):
            check(got, exp, 2 * eps(dtype))
        check(x == 1j, z == s(1j))
        check(x != 3, z != s(3))
        check(xp.where(xp.isnan(x), 1j, x), np.where(np.isnan(z), s(1j), z))


def test_promotion_with_real_floats():
    f32 = np.array([1.5, -0.0, NAN, INF, 3.25], np.float32)
    f64 = np.array([1.5, -0.0, NAN, INF, 1e300])
    c64 = np.array([1 + 2j, complex(-0.0, 0.0), 1j, complex(INF, 1), 2 + 0j], np.complex64)
    c128 = c64.astype(np.complex128)
    with np.errstate(all="ignore"):
        for a, b in ((f32, c64), (c64, f32), (f64, c64), (c64, f64), (f32, c128), (f64, c128),
                     (c64, c128)):
            for f in ("add", "subtract", "multiply", "divide", "equal"):
                got = getattr(xp, f)(xp.asarray(a), xp.asarray(b))
                check(got, getattr(np, f)(a, b), 2 * eps(getattr(np, f)(a, b).dtype)
                      if f != "equal" else 0.0)
        assert (xp.asarray(f32) + xp.asarray(c64)).dtype == xp.complex64
        assert (xp.asarray(f64) + xp.asarray(c64)).dtype == xp.complex128
        assert (xp.asarray(f32) * 1j).dtype == xp.complex64
        assert (xp.asarray(f64) * 1j).dtype == xp.complex128
        check(xp.asarray(f32) * (2 - 1j), f32.astype(np.complex64) * np.complex64(2 - 1j))
    with pytest.raises(TypeError):
        xp.asarray(np.array([1, 2], np.int32)) + 1j
    with pytest.raises(TypeError):
        xp.add(xp.asarray(np.array([1, 2], np.int64)), xp.asarray(c64[:2]))


# --------------------------------------------------------------------------- astype

@pytest.mark.parametrize("src", ["bool", "int8", "uint8", "int32", "uint64", "int64", "float32",
                                 "float64", "complex64", "complex128"])
@pytest.mark.parametrize("dst", CDT)
def test_astype_to_complex(src, dst):
    d = np.dtype(src)
    if d.kind == "c":
        v = pool(src)
    elif d.kind == "f":
        f = np.finfo(d)
        v = np.array([NAN, INF, -INF, 0.0, -0.0, 1.5, -2.5, f.max, f.smallest_subnormal], d)
    elif d.kind == "b":
        v = np.array([True, False])
    else:
        i = np.iinfo(d)
        v = np.array([i.min, i.max, 0, 1, 7], d)
    with np.errstate(all="ignore"):
        check(xp.astype(xp.asarray(v), getattr(xp, dst)), v.astype(dst))


@pytest.mark.parametrize("src", CDT)
def test_astype_complex_to_real_raises(src):
    x = xp.asarray(np.array([1 + 1j], src))
    for dst in ("bool", "int8", "uint32", "int64", "float32", "float64"):
        with pytest.raises(TypeError):
            xp.astype(x, getattr(xp, dst))
    assert xp.astype(x, getattr(xp, src)).dtype == getattr(xp, src)


@pytest.mark.parametrize("dtype", CDT)
def test_any_all_of_complex(dtype):
    # the internal cast to bool: true when either part is non-zero (NaN counts), as numpy
    z = np.array([0j, complex(-0.0, -0.0), complex(0.0, NAN), complex(-0.0, 1e-45),
                  complex(NAN, 0.0)], dtype)
    for i in range(len(z)):
        check(xp.any(xp.asarray(z[i:i + 1])), np.any(z[i:i + 1]))
        check(xp.all(xp.asarray(z[:i + 1])), np.all(z[:i + 1]))


# --------------------------------------------------------------------------- reductions

def _reduce(op, x, axes, dtype):
    shape = tuple(d for i, d in enumerate(x._node.shape) if i not in axes)
    return record(op, dtype, shape, (x._node,), (axes, False))


@pytest.mark.parametrize("dtype", CDT)
def test_complex_accumulators(dtype):
    # The backend's sum, prod and mean on complex input (the front end is enabled elsewhere).
    rng = np.random.default_rng(2)
    t = getattr(xp, dtype)
    for n in (0, 1, 7, 64, 519):
        a = (rng.normal(size=(3, n)) + 1j * rng.normal(size=(3, n))).astype(dtype)
        x = xp.asarray(a)
        check(_reduce(Op.SUM, x, (1,), t), a.sum(axis=1), 64 * eps(dtype))
        check(_reduce(Op.PROD, x, (1,), t), np.prod(a, axis=1), 64 * eps(dtype))
        with np.errstate(all="ignore"):
            # mean: each part divided by the count (M == 0 gives NaN + NaN j)
            mean = (a.real.sum(axis=1) / n + 1j * (a.imag.sum(axis=1) / n)).astype(dtype)
        check(_reduce(Op.MEAN, x, (1,), t), mean, 64 * eps(dtype))
    # the standard: a NaN real part makes the mean's real part NaN, the imaginary part stays
    a = np.array([complex(NAN, 1.0), 3 + 1j], dtype)
    check(_reduce(Op.MEAN, xp.asarray(a), (0,), t), np.array(complex(NAN, 1.0), dtype))
    check(_reduce(Op.SUM, xp.asarray(np.zeros((2, 0), dtype)), (1,), t), np.zeros(2, dtype))
    check(_reduce(Op.PROD, xp.asarray(np.zeros((2, 0), dtype)), (1,), t), np.ones(2, dtype))


# --------------------------------------------------------------------------- views, fusion

def test_views_and_fused_expressions():
    rng = np.random.default_rng(4)
    a = (rng.normal(size=(9, 8)) + 1j * rng.normal(size=(9, 8))).astype(np.complex128)
    x = xp.asarray(a)
    with np.errstate(all="ignore"):
        check(xp.exp(x[:8:2, 1::3]) * xp.conj(x[1::2, :6:2]),
              np.exp(a[:8:2, 1::3]) * np.conj(a[1::2, :6:2]), 16 * eps(np.complex128))
        check(xp.permute_dims(x, (1, 0)) / (1 + x.mT), a.T / (1 + a.T), 4 * eps(np.complex128))
        check(xp.real(xp.sqrt(x)) + xp.imag(xp.log(x)) + xp.abs(x[:, :1]),
              np.sqrt(a).real + np.log(a).imag + np.abs(a[:, :1]), 16 * eps(np.float64))
    check(xp.asarray(1 + 2j) * x[0, 0], np.asarray((1 + 2j) * a[0, 0]), 2 * eps(np.complex128))
    assert complex(xp.sum(xp.real(x)) + 1j) == pytest.approx(complex(a.real.sum(), 1.0))


def test_imag_of_real_input_raises_and_real_conj_keep_it():
    x = xp.asarray(np.array([1.5, -2.0]))
    with pytest.raises(TypeError):
        xp.imag(x)
    check(xp.real(x), np.array([1.5, -2.0]))
    check(xp.conj(x), np.array([1.5, -2.0]))
    i = xp.asarray(np.array([3, -4], np.int16))
    check(xp.conj(i), np.array([3, -4], np.int16))
    for f in ("ceil", "floor", "trunc", "signbit", "maximum", "less", "atan2", "logaddexp"):
        z = xp.asarray(np.array([1 + 1j]))
        with pytest.raises(TypeError):
            getattr(xp, f)(*([z] * (1 if f in ("ceil", "floor", "trunc", "signbit") else 2)))
