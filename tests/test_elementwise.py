"""Elementwise functions, where, clip and astype against numpy.

Every function of the elementwise tables runs on every real dtype its
category allows, over value pools holding the special values (NaN, +-inf,
+-0.0, subnormals, the largest finite values, integer limits, 0 and -1
divisors, over-wide and negative shift counts), at sizes that exercise the
empty case, a lone element, a scalar tail, and a vector body plus tail, and
on 0-d arrays.  Results are compared with numpy for values (NaN-aware, and
the sign of zero), dtype and shape.  Transcendental functions go through
libm/libmvec rather than numpy's own code, so they get a tolerance of a few
ulp; everything else must match exactly.

Where numpy warns or raises and lazyarray documents its own choice, the
expected values are computed from that choice (see ``_int_pow`` and
``_saturate``) and checked explicitly as well.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _dtypes as dt
from lazyarray._elementwise import BINARY, UNARY

REAL = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
        "float32", "float64"]
N = 519                      # a vector body plus a scalar tail
SIZES = (0, 1, 7, 64, N)
# libm/libmvec functions: numpy uses its own implementations, so allow a few ulp.
TRANSCENDENTAL = {"exp", "expm1", "log", "log1p", "log2", "log10", "sin", "cos", "tan", "asin",
                  "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "atan2",
                  "hypot", "pow", "logaddexp"}
RTOL = {"float32": 1e-6, "float64": 4e-15}
# The standard leaves the order of signed zeros in maximum/minimum unspecified.
ANY_ZERO_SIGN = {"maximum", "minimum", "clip"}


def allowed(category: str) -> list:
    return [d.name for d in dt.CATEGORIES[category] if d.name in REAL]


def xdt(name: str) -> dt.DType:
    return getattr(xp, name)


# --------------------------------------------------------------------------- value pools

def specials(name: str) -> np.ndarray:
    """The values every op must get right, for one dtype."""
    d = np.dtype(name)
    if d.kind == "b":
        return np.array([False, True])
    if d.kind == "f":
        f = np.finfo(d)
        return np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, f.smallest_subnormal,
                         -f.smallest_subnormal, f.smallest_normal, f.max, -f.max, 1.0, -1.0,
                         0.5, -0.5, 1.5, -2.5, 2.0, 3.0, -3.0, 1e30, -7.25], d)
    i = np.iinfo(d)
    vals = {i.min, i.min + 1, 0, 1, 2, 3, 7, 100, i.max - 1, i.max}
    if d.kind == "i":
        vals |= {-1, -2, -7, -100}
    return np.array(sorted(vals), d)


def shift_counts(name: str) -> np.ndarray:
    """Shift counts: in range, at and past the bit width, and negative."""
    i = np.iinfo(name)
    vals = {0, 1, 3, i.bits - 1, i.bits, i.bits + 1, 2 * i.bits, i.max}
    if i.min < 0:
        vals |= {-1, -i.bits, i.min}
    return np.array(sorted(vals), name)


def pow_exponents(name: str) -> np.ndarray:
    i = np.iinfo(name)
    vals = {0, 1, 2, 3, 7, i.bits - 1, i.bits, i.max}
    if i.min < 0:
        vals |= {-1, -2, -3, i.min}
    return np.array(sorted(vals), name)


def randoms(name: str, n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    d = np.dtype(name)
    if d.kind == "b":
        return rng.random(n) < 0.5
    if d.kind == "f":
        k = n // 4
        parts = [rng.uniform(-1, 1, k), rng.normal(0, 3, k), rng.uniform(1, 10, k)]
        exps = rng.uniform(-30, 30, n - 3 * k)
        parts.append(np.where(rng.random(n - 3 * k) < 0.5, -1, 1) * 10.0 ** exps)
        return rng.permutation(np.concatenate(parts)).astype(d)
    i = np.iinfo(d)
    wide = rng.integers(i.min, i.max, n, dtype=d, endpoint=True)
    small = rng.integers(max(i.min, -20), 21, n).astype(d)
    return np.where(rng.random(n) < 0.5, wide, small)


def pool(name: str, seed: int = 0) -> np.ndarray:
    """N values: the specials at both ends (vector body and scalar tail), random between."""
    s = specials(name)
    return np.concatenate([s, randoms(name, N - 2 * len(s), seed), s])


def pairs(a: np.ndarray, b: np.ndarray, seed: int = 1) -> tuple:
    """N pairs: random ones, then every pair of ``a`` x ``b`` (at the end, so size-n
    slices taken from the end always hold special pairs)."""
    x, y = np.repeat(a, len(b)), np.tile(b, len(a))
    assert len(x) <= N
    pad = N - len(x)
    rx, ry = randoms(a.dtype.name, pad, seed), randoms(b.dtype.name, pad, seed + 1)
    return np.concatenate([rx, x]), np.concatenate([ry, y])


# --------------------------------------------------------------------------- checking

def zero_d(v) -> xp.Array:
    # A 0-d array from a 1-element data leaf (see the report: asarray of a numpy
    # 0-d array currently comes back with shape (1,)).
    return xp.asarray(np.asarray([v]))[0]


def assert_close(v: np.ndarray, e: np.ndarray, rtol: float, scale=None) -> None:
    """NaN where ``e`` is NaN, the same infinities, and finite values within
    ``rtol`` of ``|e|`` (or of ``scale`` where that is larger)."""
    np.testing.assert_array_equal(np.isnan(v), np.isnan(e))
    inf = np.isinf(e)
    np.testing.assert_array_equal(v[inf], e[inf])
    fin = np.isfinite(e)
    mag = np.abs(e[fin]).astype(np.float64)
    if scale is not None:
        mag = np.maximum(mag, np.broadcast_to(scale, e.shape)[fin])
    tol = rtol * mag + np.finfo(e.dtype).smallest_normal
    err = np.abs(v[fin].astype(np.float64) - e[fin].astype(np.float64))
    bad = np.flatnonzero(~(err <= tol))
    assert bad.size == 0, (f"{bad.size} values differ by more than rtol={rtol}: "
                           f"got {v[fin][bad[:5]]}, expected {e[fin][bad[:5]]}")


def check(got: xp.Array, expected, rtol: float = 0.0, zero_sign: bool = True,
          scale=None) -> None:
    """``got`` equals numpy's ``expected`` in dtype, shape and values."""
    expected = np.asarray(expected)
    assert got.dtype == xdt(expected.dtype.name), (got.dtype, expected.dtype)
    assert got.shape == expected.shape
    v = np.asarray(got)
    assert v.dtype == expected.dtype and v.shape == expected.shape
    if expected.dtype.kind != "f":
        np.testing.assert_array_equal(v, expected, strict=True)
        return
    if rtol:
        assert_close(v, expected, rtol, scale)
    else:
        np.testing.assert_array_equal(v, expected, strict=True)
    if zero_sign:
        z = (v == 0) & (expected == 0)
        np.testing.assert_array_equal(np.signbit(v[z]), np.signbit(expected[z]))


def run_sizes(fn, ref, inputs: list, rtol: float = 0.0, zero_sign: bool = True,
              scale=None) -> None:
    """Check ``fn`` against ``ref`` on size-n slices (from the end) and 0-d arrays.

    The 1-d and 0-d results are computed in one program, so each size reuses
    one compiled program.
    """
    for i, n in enumerate(SIZES):
        args = [a[N - n:] for a in inputs]
        k = N - 1 - 3 * i
        got = fn(*[xp.asarray(a) for a in args])
        got0 = fn(*[zero_d(a[k]) for a in inputs])
        xp.evaluate(got, got0)
        args0 = [np.asarray(a[k]) for a in inputs]
        check(got, ref(*args), rtol, zero_sign, scale and scale(*args))
        check(got0, ref(*args0), rtol, zero_sign, scale and scale(*args0))


def _int_pow(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """lazyarray's integer power: numpy's where y >= 0; for y < 0, 1 for base 1,
    +-1 for base -1 (by the exponent's parity) and 0 otherwise."""
    x, y = np.broadcast_arrays(np.asarray(x), np.asarray(y))
    with np.errstate(all="ignore"):
        out = np.asarray(np.power(x, np.where(y < 0, 0, y).astype(y.dtype)))
    neg = y < 0
    if neg.any():
        odd = (y % 2) != 0
        mone = (x == -1) if x.dtype.kind == "i" else np.zeros(x.shape, bool)
        alt = np.where(x == 1, 1, np.where(mone, np.where(odd, -1, 1), 0))
        out = np.where(neg, alt.astype(out.dtype), out)
    return out


def ref(name: str):
    """numpy's function for ``name``, with lazyarray's documented choices applied."""
    f = getattr(np, name)

    def call(*args):
        with np.errstate(all="ignore"):
            if name == "pow" and args[0].dtype.kind in "iu":
                return _int_pow(*args)
            r = np.asarray(f(*args))
            if name == "floor_divide" and args[0].dtype.kind == "f":
                # The standard: with an infinite operand, floor(x1 / x2) (numpy: NaN or -1).
                a, b = np.broadcast_arrays(*args)
                r = np.where(np.isinf(a) | np.isinf(b), np.floor(a / b), r).astype(r.dtype)
        if name in ("ceil", "floor", "trunc", "round") and args[0].dtype.kind in "iu":
            r = r.astype(args[0].dtype)  # the standard keeps integer dtypes
        return r
    return call


def _saturate(v: np.ndarray, to: str) -> np.ndarray:
    """Float -> int conversion as lazyarray documents it: truncate, saturate, NaN -> 0."""
    i = np.iinfo(to)
    out = []
    for f in v.astype(np.float64).ravel().tolist():
        if math.isnan(f):
            out.append(0)
        elif math.isinf(f):
            out.append(i.max if f > 0 else i.min)
        else:
            out.append(min(max(int(f), i.min), i.max))
    return np.array(out, dtype=to).reshape(v.shape)


# --------------------------------------------------------------------------- unary

UNARY_CASES = [(n, d) for n, (_, cat, _) in UNARY.items() for d in allowed(cat)]


@pytest.mark.parametrize("name,dtype", UNARY_CASES, ids=[f"{n}-{d}" for n, d in UNARY_CASES])
def test_unary(name, dtype):
    rtol = RTOL[dtype] if name in TRANSCENDENTAL else 0.0
    run_sizes(getattr(xp, name), ref(name), [pool(dtype)], rtol)


# --------------------------------------------------------------------------- binary

def binary_inputs(name: str, dtype: str) -> list:
    if name.startswith("bitwise_") and name.endswith("shift"):
        return list(pairs(specials(dtype), shift_counts(dtype)))
    if name == "pow" and dtype not in ("float32", "float64"):
        return list(pairs(specials(dtype), pow_exponents(dtype)))
    return list(pairs(specials(dtype), specials(dtype)))


def input_scale(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The larger finite input magnitude: logaddexp(x, y) = y + log1p(exp(x - y))
    cancels when the result is near 0, so its error is relative to the inputs."""
    mags = [np.where(np.isfinite(a), np.abs(a), 0).astype(np.float64) for a in (x, y)]
    return np.maximum(*mags)


BINARY_CASES = [(n, d) for n, (_, cat, _) in BINARY.items() for d in allowed(cat)]


@pytest.mark.parametrize("name,dtype", BINARY_CASES, ids=[f"{n}-{d}" for n, d in BINARY_CASES])
def test_binary(name, dtype):
    rtol = RTOL[dtype] if name in TRANSCENDENTAL and dtype in RTOL else 0.0
    zero_sign = name not in ANY_ZERO_SIGN
    scale = input_scale if name == "logaddexp" else None
    run_sizes(getattr(xp, name), ref(name), binary_inputs(name, dtype), rtol, zero_sign, scale)
    # Random pairs over a wide range of ratios (e.g. floor_divide's rounding fix-ups).
    x, y = randoms(dtype, N, 20), randoms(dtype, N, 21)
    check(getattr(xp, name)(xp.asarray(x), xp.asarray(y)), ref(name)(x, y), rtol, zero_sign,
          scale and scale(x, y))


# --------------------------------------------------------------------------- positive, square, ...

@pytest.mark.parametrize("dtype", allowed("real numeric"))
def test_positive_and_square(dtype):
    run_sizes(xp.positive, ref("positive"), [pool(dtype)])
    run_sizes(xp.square, ref("square"), [pool(dtype)])


@pytest.mark.parametrize("dtype", allowed("real floating"))
def test_reciprocal(dtype):
    run_sizes(xp.reciprocal, ref("reciprocal"), [pool(dtype)])


# --------------------------------------------------------------------------- disallowed dtypes

def _typed(name: str) -> xp.Array:
    if name.startswith("complex"):
        return xp.asarray(np.array([1 + 2j, 3 - 1j], dtype=name))
    return xp.asarray(specials(name)[:2])


TABLE = {**{n: (1, c) for n, (_, c, _) in UNARY.items()},
         **{n: (2, c) for n, (_, c, _) in BINARY.items()},
         "positive": (1, "numeric"), "square": (1, "numeric"),
         "reciprocal": (1, "floating"), "clip": (1, "real numeric")}


@pytest.mark.parametrize("name", sorted(n for n in TABLE if TABLE[n][1] != "all"))
def test_disallowed_dtypes_raise_type_error(name):
    nargs, category = TABLE[name]
    ok = [d.name for d in dt.CATEGORIES[category]]
    bad = [d for d in REAL + ["complex64", "complex128"] if d not in ok]
    assert bad
    for d in bad:
        x = _typed(d)
        with pytest.raises(TypeError):
            getattr(xp, name)(*([x] * nargs))


def test_mixed_kind_and_bad_scalar_operands_raise_type_error():
    i8, f64, b = _typed("int8"), _typed("float64"), _typed("bool")
    for a, c in ((i8, f64), (b, i8), (b, f64), (_typed("int64"), _typed("uint64"))):
        with pytest.raises(TypeError):
            xp.add(a, c)
        with pytest.raises(TypeError):
            xp.equal(c, a)
    for bad in (lambda: i8 + 2.5, lambda: 1.5 * i8, lambda: b + 1, lambda: i8 & True,
                lambda: xp.add(2, 3), lambda: xp.where(b, 1, 2), lambda: xp.where(i8, i8, i8),
                lambda: xp.where(b, i8, 0.5), lambda: i8 ** (2 + 0j), lambda: i8 + 1j,
                lambda: i8 ** 2.0, lambda: b ** 2):
        with pytest.raises(TypeError):
            bad()
    with pytest.raises(OverflowError):
        i8 + 300
    with pytest.raises(OverflowError):
        _typed("uint8") - (-1)


# --------------------------------------------------------------------------- astype

ASTYPE_EDGES = [127.5, 128.0, -128.5, -129.0, 255.5, 256.0, 32767.5, 32768.0, -32769.0,
                65535.5, 65536.0, 2.0 ** 31 - 0.5, 2.0 ** 31, -2.0 ** 31 - 1, 2.0 ** 32,
                2.0 ** 63, -2.0 ** 63, -2.0 ** 64, 2.0 ** 64, 1.9, -1.9, -0.5, 0.99, -0.99]


def astype_source(name: str) -> np.ndarray:
    p = pool(name, seed=7)
    if name.startswith("float"):
        p[N // 2:N // 2 + len(ASTYPE_EDGES)] = np.array(ASTYPE_EDGES).astype(name)
    return p


ASTYPE_CASES = [(a, b) for a in REAL for b in REAL]


@pytest.mark.parametrize("src,to", ASTYPE_CASES, ids=[f"{a}-{b}" for a, b in ASTYPE_CASES])
def test_astype(src, to):
    def expected(v):
        if v.dtype.kind == "f" and np.dtype(to).kind in "iu":
            return _saturate(v, to)
        with np.errstate(all="ignore"):
            return v.astype(to)
    run_sizes(lambda x: xp.astype(x, xdt(to)), expected, [astype_source(src)])


def test_astype_documented_saturation():
    v = np.array([np.nan, np.inf, -np.inf, 1e300, -1e300, 300.7, -300.7, -0.9, 2.0 ** 63])
    x = xp.asarray(v)
    for to in ("int8", "uint8", "int64", "uint64"):
        i = np.iinfo(to)
        got = np.asarray(xp.astype(x, xdt(to)))
        assert got.dtype == np.dtype(to)
        assert got[0] == 0 and got[1] == i.max and got[2] == i.min
        assert got[3] == i.max and got[4] == i.min
        assert got[5] == min(300, i.max) and got[6] == max(-300, i.min) and got[7] == 0
        assert got[8] == min(2 ** 63, i.max)


# --------------------------------------------------------------------------- integer choices

@pytest.mark.parametrize("dtype", allowed("integer"))
def test_integer_division_choices(dtype):
    i = np.iinfo(dtype)
    x = np.array([i.min, i.max, 7, 0, i.min, i.max, 5], dtype)
    y = np.array([0, 0, 0, 0, 1, 1, 2], dtype)
    if i.min < 0:
        x = np.append(x, [i.min, i.min, -7, 7]).astype(dtype)
        y = np.append(y, [-1, -1, 2, -2]).astype(dtype)
    q = np.asarray(xp.asarray(x) // xp.asarray(y))
    r = np.asarray(xp.asarray(x) % xp.asarray(y))
    np.testing.assert_array_equal(q[:4], 0)          # division by zero -> 0
    np.testing.assert_array_equal(r[:4], 0)
    np.testing.assert_array_equal(q[4:6], x[4:6])
    if i.min < 0:
        assert q[7] == i.min and r[7] == 0             # MIN // -1 wraps
        assert q[9] == -4 and r[9] == 1 and q[10] == -4 and r[10] == -1  # floor semantics
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(q, x // y)
        np.testing.assert_array_equal(r, x % y)


@pytest.mark.parametrize("dtype", allowed("signed integer"))
def test_integer_pow_negative_exponent_choice(dtype):
    i = np.iinfo(dtype)
    x = np.array([1, 1, -1, -1, 2, -2, 0, i.max, i.min], dtype)
    y = np.array([-1, -4, -1, -2, -1, -3, -1, i.min, -5], dtype)
    got = np.asarray(xp.asarray(x) ** xp.asarray(y))
    np.testing.assert_array_equal(got, np.array([1, 1, -1, 1, 0, 0, 0, 0, 0], dtype), strict=True)


@pytest.mark.parametrize("dtype", allowed("integer"))
def test_shift_choices(dtype):
    i = np.iinfo(dtype)
    x = np.array([1, i.max, i.min, 5], dtype)
    for count in (i.bits, i.bits + 1, 2 * i.bits, i.max) + ((-1, -i.bits) if i.min < 0 else ()):
        y = np.full(4, count, dtype)
        np.testing.assert_array_equal(np.asarray(xp.asarray(x) << xp.asarray(y)), 0)
        fill = np.where(x < 0, -1, 0).astype(dtype)
        np.testing.assert_array_equal(np.asarray(xp.asarray(x) >> xp.asarray(y)), fill)


# --------------------------------------------------------------------------- where and clip

@pytest.mark.parametrize("dtype", REAL)
def test_where(dtype):
    cond = randoms("bool", N, 3)
    a, b = pool(dtype, 4), pool(dtype, 5)[::-1].copy()
    run_sizes(xp.where, lambda c, x, y: np.asarray(np.where(c, x, y)), [cond, a, b])
    s = {"b": True, "i": -3, "u": 3, "f": -2.5}[np.dtype(dtype).kind]
    c, x = xp.asarray(cond), xp.asarray(a)
    check(xp.where(c, x, s), np.where(cond, a, np.asarray(s, dtype)))
    check(xp.where(c, s, x), np.where(cond, np.asarray(s, dtype), a))


def test_where_promotes_and_broadcasts():
    c = np.array([True, False, True, False])
    x = np.array([[-1], [2], [-128]], np.int8)
    y = np.array([255, 0, 7, 200], np.uint8)
    check(xp.where(xp.asarray(c), xp.asarray(x), xp.asarray(y)), np.where(c, x, y))
    z = np.array([0.5, -0.0, np.nan], np.float32)[:, None]
    check(xp.where(xp.asarray(c), xp.asarray(z), 2.5), np.where(c, z, np.float32(2.5)))
    check(xp.where(zero_d(True), xp.asarray(y), 3), np.where(True, y, np.uint8(3)))


@pytest.mark.parametrize("dtype", allowed("real numeric"))
def test_clip(dtype):
    x, lo, hi = pool(dtype, 8), pool(dtype, 9), pool(dtype, 10)[::-1].copy()
    ref3 = ref("clip")
    run_sizes(xp.clip, ref3, [x, lo, hi], zero_sign=False)
    run_sizes(lambda a, b: xp.clip(a, min=b), lambda a, b: ref3(a, b, None), [x, lo],
              zero_sign=False)
    run_sizes(lambda a, b: xp.clip(a, max=b), lambda a, b: ref3(a, None, b), [x, hi],
              zero_sign=False)
    s_lo, s_hi = (-1.5, 2.5) if dtype.startswith("float") else (2, 100)
    xa = xp.asarray(x)
    check(xp.clip(xa, s_lo, s_hi), np.clip(x, np.asarray(s_lo, dtype), np.asarray(s_hi, dtype)),
          zero_sign=False)
    check(xp.clip(xa), x)


def test_clip_bounds_dtype_and_shape():
    x16 = xp.asarray(np.array([[-300, 5, 300, 0]] * 3, np.int16))
    lo = np.array([-100, 10, -5, 1], np.int8)
    hi = np.array([[50], [6], [100]], np.int8)
    check(xp.clip(x16, xp.asarray(lo), xp.asarray(hi)),
          np.clip(np.asarray(x16), lo.astype(np.int16), hi.astype(np.int16)))
    with pytest.raises(TypeError):
        xp.clip(xp.asarray(lo), xp.asarray(np.array([1], np.int16)))   # would widen x
    with pytest.raises(TypeError):
        xp.clip(xp.asarray(np.array([1.0])), xp.asarray(np.array([1], np.int8)))
    # x and the bounds broadcast together (the standard; the suite checks clip(0-d, (0,)))
    check(xp.clip(xp.asarray(lo), xp.asarray(np.zeros((2, 4), np.int8))),
          np.clip(lo, np.zeros((2, 4), np.int8), None))
    check(xp.clip(xp.asarray(np.uint8(7)), min=xp.asarray(np.zeros(0, np.uint8))),
          np.zeros(0, np.uint8))


# ------------------------------------------------------------------------- promotion, broadcasting

PROMOTION_CASES = [(a, b) for a in REAL for b in REAL if a != "bool" and b != "bool"]


@pytest.mark.parametrize("a,b", PROMOTION_CASES, ids=[f"{a}-{b}" for a, b in PROMOTION_CASES])
def test_add_promotes_like_the_standard(a, b):
    ka, kb = np.dtype(a).kind, np.dtype(b).kind
    x, y = pairs(specials(a), specials(b))
    # The standard defines no promotion across kinds, nor of a signed int with uint64.
    if (ka == "f") != (kb == "f") or (ka == "i" and b == "uint64") or (kb == "i" and a == "uint64"):
        with pytest.raises(TypeError):
            xp.add(xp.asarray(x), xp.asarray(y))
        return
    rt = np.result_type(a, b)
    with np.errstate(all="ignore"):
        expected = x.astype(rt) + y.astype(rt)
    check(xp.add(xp.asarray(x), xp.asarray(y)), expected)


@pytest.mark.parametrize("a,b", [("int8", "uint8"), ("int16", "uint32"), ("uint8", "uint64"),
                                 ("int32", "int8"), ("float32", "float64"), ("bool", "bool")])
def test_mixed_comparisons_and_bitwise(a, b):
    x, y = pairs(specials(a), specials(b))
    xa, ya = xp.asarray(x), xp.asarray(y)
    for name in ("equal", "not_equal", "less", "greater_equal", "bitwise_xor", "maximum"):
        if np.result_type(a, b).name not in allowed(BINARY[name][1]):
            continue
        check(getattr(xp, name)(xa, ya), ref(name)(x, y), zero_sign=name != "maximum")


@pytest.mark.parametrize("name", ["add", "subtract", "pow", "atan2", "less", "remainder",
                                  "bitwise_left_shift", "logical_and"])
def test_broadcasting(name):
    dtype = {"atan2": "float64", "pow": "float32", "bitwise_left_shift": "uint16",
             "logical_and": "bool"}.get(name, "int32")
    cat = BINARY[name][1]
    assert dtype in allowed(cat)
    rtol = RTOL.get(dtype, 0.0) if name in TRANSCENDENTAL else 0.0
    p = pool(dtype, 11)
    shapes = [((3, 1), (4,)), ((4,), (3, 1)), ((2, 1, 3), (4, 1)), ((3, 1), ()), ((), (5,)),
              ((0,), (3, 1)), ((1, 0), (2, 1))]
    for sa, sb in shapes:
        x = p[:int(np.prod(sa))].reshape(sa)
        y = p[N - int(np.prod(sb)):].reshape(sb)
        xa = zero_d(x[()]) if sa == () else xp.asarray(x)
        ya = zero_d(y[()]) if sb == () else xp.asarray(y)
        check(getattr(xp, name)(xa, ya), ref(name)(x, y), rtol)


# --------------------------------------------------------------------------- operators, scalars

OPERATORS = {  # operator: (elementwise function it maps to, the operator as a function)
    "+": ("add", lambda a, b: a + b), "-": ("subtract", lambda a, b: a - b),
    "*": ("multiply", lambda a, b: a * b), "/": ("divide", lambda a, b: a / b),
    "//": ("floor_divide", lambda a, b: a // b), "%": ("remainder", lambda a, b: a % b),
    "**": ("pow", lambda a, b: a ** b), "&": ("bitwise_and", lambda a, b: a & b),
    "|": ("bitwise_or", lambda a, b: a | b), "^": ("bitwise_xor", lambda a, b: a ^ b),
    "<<": ("bitwise_left_shift", lambda a, b: a << b),
    ">>": ("bitwise_right_shift", lambda a, b: a >> b),
    "==": ("equal", lambda a, b: a == b), "!=": ("not_equal", lambda a, b: a != b),
    "<": ("less", lambda a, b: a < b), "<=": ("less_equal", lambda a, b: a <= b),
    ">": ("greater", lambda a, b: a > b), ">=": ("greater_equal", lambda a, b: a >= b),
}
INPLACE = {"+": "__iadd__", "-": "__isub__", "*": "__imul__", "/": "__itruediv__",
           "//": "__ifloordiv__", "%": "__imod__", "**": "__ipow__", "&": "__iand__",
           "|": "__ior__", "^": "__ixor__", "<<": "__ilshift__", ">>": "__irshift__"}
OP_DTYPES = ["bool", "int8", "uint16", "int64", "uint64", "float32", "float64"]
SCALARS = {"b": [True, False], "i": [2, -3, 0], "u": [2, 0, 7], "f": [2.5, -0.0, float("nan")]}
OP_CASES = [(o, d) for o in OPERATORS for d in OP_DTYPES
            if d in allowed(BINARY[OPERATORS[o][0]][1])]


def _extreme_scalars(dtype: str) -> list:
    d = np.dtype(dtype)
    if d.kind in "iu":
        return [int(np.iinfo(d).max), int(np.iinfo(d).min)]
    if d.kind == "f":
        return [float(np.finfo(d).max), -float("inf")]
    return []


@pytest.mark.parametrize("op,dtype", OP_CASES, ids=[f"{o}-{d}" for o, d in OP_CASES])
def test_operator(op, dtype):
    name, f = OPERATORS[op]
    r = ref(name)
    rtol = RTOL[dtype] if name in TRANSCENDENTAL and dtype in RTOL else 0.0
    x, y = binary_inputs(name, dtype)
    xa, ya = xp.asarray(x), xp.asarray(y)
    check(f(xa, ya), r(x, y), rtol)
    for s in SCALARS[np.dtype(dtype).kind] + _extreme_scalars(dtype):
        if name.endswith("shift") and s < 0:
            continue
        ns = np.asarray(s, dtype)
        check(f(xa, s), r(x, ns), rtol)          # x op scalar
        check(f(s, xa), r(ns, x), rtol)          # scalar op x: the reflected operator
    if op not in INPLACE:
        return
    res = r(x, y)
    a = xp.asarray(x.copy())
    if res.dtype != x.dtype:                     # e.g. int /= int: the dtype would change
        with pytest.raises(TypeError):
            getattr(a, INPLACE[op])(ya)
        return
    same = a
    a = getattr(a, INPLACE[op])(ya)
    assert a is same
    check(a, res, rtol)
    s = SCALARS[np.dtype(dtype).kind][0]
    a = getattr(a, INPLACE[op])(s)
    check(a, r(res, np.asarray(s, dtype)), rtol)


@pytest.mark.parametrize("dtype", OP_DTYPES)
def test_unary_operators(dtype):
    x = pool(dtype, 12)
    xa = xp.asarray(x)
    kind = np.dtype(dtype).kind
    if kind == "b":
        check(~xa, ~x)
        for f in (lambda a: -a, lambda a: +a, abs):
            with pytest.raises(TypeError):
                f(xa)
        return
    with np.errstate(all="ignore"):
        check(-xa, -x)
        check(+xa, +x)
        check(abs(xa), abs(x))
    if kind == "f":
        with pytest.raises(TypeError):
            ~xa
    else:
        check(~xa, ~x)


def test_scalar_operands_keep_the_array_dtype():
    f32 = np.array([1.0, -0.5, np.inf, 3.0e38], np.float32)
    x = xp.asarray(f32)
    check(x + 2.5, f32 + 2.5)
    check(2.5 - x, 2.5 - f32)
    with np.errstate(over="ignore"):  # the scalar rounds to float32's inf first, as in numpy
        check(x * 1e39, f32 * np.float32(np.inf))
    check(x / 3, f32 / np.float32(3))
    u8 = np.array([0, 1, 200, 255], np.uint8)
    check(2 - xp.asarray(u8), np.uint8(2) - u8)
    check(xp.asarray(u8) + 255, u8 + np.uint8(255))
    check(xp.asarray(u8) == 255, u8 == 255)
    check(xp.pow(xp.asarray(u8), 2), u8 * u8)
    e = np.array([0, 3, 8], np.uint8)
    check(xp.pow(2, xp.asarray(e)), np.uint8(2) ** e)


def test_scalar_operands_too_large_for_the_dtype_raise():
    with pytest.raises(OverflowError):
        xp.asarray(np.array([1.0])) + 2 ** 1100
    with pytest.raises(OverflowError):
        xp.asarray(np.array([1], np.int64)) * 2 ** 63
    with pytest.raises(OverflowError):
        xp.where(xp.asarray(np.array([True])), xp.asarray(np.array([1], np.int16)), -2 ** 15 - 1)


COMPLEX_PARTS = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -2.5]


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_equality_and_where(dtype):
    vals = np.array([complex(r, i) for r in COMPLEX_PARTS for i in COMPLEX_PARTS], dtype)
    x, y = np.repeat(vals, len(vals)), np.tile(vals, len(vals))   # 2401 pairs
    for name in ("equal", "not_equal"):
        check(getattr(xp, name)(xp.asarray(x), xp.asarray(y)), getattr(np, name)(x, y))
    cond = randoms("bool", len(x), 13)
    got = np.asarray(xp.where(xp.asarray(cond), xp.asarray(x), xp.asarray(y)))
    assert got.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(got.view(np.uint8), np.where(cond, x, y).view(np.uint8))
