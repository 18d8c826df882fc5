"""Accuracy of the vectorised math against numpy, measured in ulp.

Elementwise kernels call libm through LLVM's loop vectoriser, which uses glibc's
libmvec variants (``_ZGVdN4v_sin``, ...) for the vector body and scalar libm for
the tail.  Every libm name of ``codegen.LIBMVEC``, in float64 and float32, runs
through its public function at sizes that hit the scalar path only, a vector body
and a tail, over the function's domain (wide ranges, tiny and huge arguments,
values next to poles, branch points and overflow thresholds, subnormals) with the
special values (nan, +-inf, +-0, ...) at random positions.  Each result must match
numpy in NaN-ness, infinities and the sign of zeros, and lie within a few ulp of it
(``ulp_distance`` counts the floats between the two).  Reductions (reassociated
into vector accumulators) are checked against exactly rounded references, and the
complex functions (built on the same real calls) per component.

Run with ``-s`` to print the measured maxima.
"""
from __future__ import annotations

import math
import re

import numpy as np
import pytest
from lazyarray.backend import codegen as cg
from lazyarray.backend import llvm

import lazyarray as xp

SIZES = (1, 7, 64, 519, 4096)   # a lone element, tail only, whole vectors, body + tail
ULP_BOUND = 4                   # the default bound, float64 and float32 alike
MEASURED: dict = {}             # test label -> measured max ulp, printed at the end

# libm name -> lazyarray function (the same name in the array API).
API_NAME = {name: name for name in cg.LIBMVEC}
# libm names without an array API function, with the reason (none today: the test
# fails when LIBMVEC gains a name that neither table lists).
NO_COUNTERPART: dict = {}
NUMPY = {"asin": np.arcsin, "acos": np.arccos, "atan": np.arctan, "atan2": np.arctan2,
         "asinh": np.arcsinh, "acosh": np.arccosh, "atanh": np.arctanh, "pow": np.power}
BINARY = {"pow", "atan2", "hypot"}


def _numpy_fn(name: str):
    return NUMPY.get(name) or getattr(np, name)


# --------------------------------------------------------------------------- ulp distance

def _ordered(a: np.ndarray) -> np.ndarray:
    """Integers in the order of the floats (+0 and -0 both map to 0)."""
    a = np.ascontiguousarray(a)
    ity = np.int64 if a.dtype == np.float64 else np.int32
    i = a.view(ity).astype(np.int64)
    mag = i & np.int64(0x7FFFFFFFFFFFFFFF if ity is np.int64 else 0x7FFFFFFF)
    return np.where(i < 0, -mag, mag)


def ulp_distance(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """How many floats of their dtype lie between got and want (uint64; nan pairs 0)."""
    og, ow = _ordered(got), _ordered(want)
    hi, lo = np.maximum(og, ow), np.minimum(og, ow)
    # hi - lo < 2**64 always: the unsigned difference is exact.
    d = hi.astype(np.uint64) - lo.astype(np.uint64)
    return np.where(np.isnan(got) & np.isnan(want), np.uint64(0), d)


def test_ulp_distance_counts_floats_between():
    a = np.array([1.0, -0.0, 0.0, 5e-324, -5e-324, np.inf, 1.0])
    b = np.array([np.nextafter(1.0, 2.0), 0.0, -0.0, -5e-324, -5e-324, np.finfo(float).max,
                  np.nextafter(np.nextafter(1.0, 0.0), 0.0)])
    assert ulp_distance(a, b).tolist() == [1, 0, 0, 2, 0, 1, 2]
    f = np.array([1.0, -1.0], np.float32)
    assert ulp_distance(f, np.nextafter(f, np.float32(0))).tolist() == [1, 1]
    assert ulp_distance(np.array([-np.inf]), np.array([np.inf]))[0] == 2 * 0x7FF0000000000000


def compare(got: np.ndarray, want: np.ndarray, inputs: tuple, bound: int, label: str) -> int:
    """Assert numpy's NaN-ness, infinities and signed zeros, and ulp distance <= bound;
    return the max ulp distance over elements where both are finite."""
    assert got.dtype == want.dtype and got.shape == want.shape, label

    def where(mask):
        i = np.flatnonzero(mask)[:5]
        args = ", ".join(f"{x[i].tolist()}" for x in inputs)
        return (f"{label}: at {i.tolist()} inputs {args} got {got[i].tolist()} "
                f"want {want[i].tolist()}")

    assert not (np.isnan(got) != np.isnan(want)).any(), where(np.isnan(got) != np.isnan(want))
    inf = np.isinf(want) | np.isinf(got)
    assert not (inf & (got != want)).any(), where(inf & (got != want))
    zero = want == 0
    bad_sign = zero & (got == 0) & (np.signbit(got) != np.signbit(want))
    assert not bad_sign.any(), where(bad_sign)
    fin = np.isfinite(want) & np.isfinite(got)
    d = ulp_distance(got, want)
    worst = int(d[fin].max()) if fin.any() else 0
    assert worst <= bound, where(fin & (d > bound)) + f" ({worst} ulp > {bound})"
    return worst


# --------------------------------------------------------------------------- value domains
# A domain is a list of parts; a part maps (rng, n, finfo) to n float64 values.  Each
# element comes from a random part, then specials land at random positions.

def uniform(lo, hi):
    return lambda rng, n, fi: rng.uniform(_lim(lo, fi), _lim(hi, fi), n)


def logmag(lo, hi, signed=True):
    """Magnitudes 10**u for u uniform in [lo, hi], a random sign when ``signed``."""
    def part(rng, n, fi):
        v = 10.0 ** rng.uniform(_lim(lo, fi), _lim(hi, fi), n)
        return v * rng.choice([-1.0, 1.0], n) if signed else v
    return part


def near(*points, ulps=64):
    """Within ``ulps`` floats (of the target dtype) of the given points."""
    def part(rng, n, fi):
        p = np.array([_lim(q, fi) for q in points], fi.dtype)[rng.integers(len(points), size=n)]
        ity = np.int64 if fi.dtype == np.float64 else np.int32
        step = rng.integers(-ulps, ulps + 1, n).astype(ity)
        return (p.view(ity) + step).view(fi.dtype).astype(np.float64)
    return part


def ints(lo, hi):
    return lambda rng, n, fi: rng.integers(lo, hi, n).astype(np.float64)


def _lim(v, fi):
    """A bound that depends on the dtype, given as a function of its finfo."""
    return v(fi) if callable(v) else v


# Dtype-dependent limits: ln and log10 of the largest and the smallest positive floats.
LN_MAX = lambda fi: math.log(fi.max)
LN_MIN = lambda fi: math.log(fi.smallest_subnormal)
E_MAX = lambda fi: math.log10(fi.max)
E_MIN = lambda fi: math.log10(fi.smallest_subnormal)
NEG = lambda f: (lambda fi: -f(fi))
PLUS_LN2 = lambda fi: math.log(fi.max) + math.log(2)       # sinh/cosh overflow
HALF_PI = [k * math.pi / 2 for k in (1, -1, 2, 3, 7, 1001, -40001, 1 << 20)]

TRIG = [uniform(-10, 10), logmag(E_MIN, 22), near(*HALF_PI, ulps=8), near(1e5, -1e22, 1e22),
        logmag(5, 22)]
LOGS = [logmag(E_MIN, E_MAX, signed=False), near(1.0, ulps=4096), uniform(0, 4),
        logmag(-3, 3)]  # negatives give nan
INV_TRIG = [uniform(-1, 1), near(1.0, -1.0, ulps=4096), logmag(E_MIN, 0), uniform(-2, 2)]
ANY = [logmag(E_MIN, E_MAX), uniform(-4, 4)]
DOMAINS = {
    "sin": TRIG, "cos": TRIG, "tan": TRIG,
    "exp": [uniform(lambda fi: LN_MIN(fi) - 2, lambda fi: LN_MAX(fi) + 2), logmag(E_MIN, 1),
            near(LN_MAX, LN_MIN, lambda fi: math.log(fi.tiny), ulps=16), uniform(-2, 2)],
    "expm1": [uniform(-60, lambda fi: LN_MAX(fi) + 2), logmag(E_MIN, 1), near(LN_MAX, ulps=16),
              uniform(-1, 1)],
    "sinh": [uniform(NEG(PLUS_LN2), PLUS_LN2), logmag(E_MIN, 1), near(PLUS_LN2, ulps=16),
             uniform(-3, 3)],
    "cosh": [uniform(NEG(PLUS_LN2), PLUS_LN2), logmag(E_MIN, 1), near(PLUS_LN2, ulps=16),
             uniform(-3, 3)],
    "tanh": [uniform(-25, 25), logmag(E_MIN, E_MAX), uniform(-1, 1)],
    "log": LOGS, "log2": LOGS, "log10": LOGS,
    "log1p": [logmag(E_MIN, E_MAX), near(-1.0, ulps=4096), uniform(-1, 2), logmag(E_MIN, -3)],
    "asin": INV_TRIG, "acos": INV_TRIG, "atanh": INV_TRIG,
    "atan": ANY, "asinh": ANY,
    "acosh": [near(1.0, ulps=4096), logmag(0, E_MAX, signed=False), uniform(0, 4),
              logmag(-16, 0, signed=False)],
    # binary: one domain per argument
    "atan2": (ANY, ANY),
    "hypot": (ANY + [logmag(lambda fi: E_MAX(fi) - 1, E_MAX)],
              ANY + [logmag(E_MIN, lambda fi: E_MIN(fi) + 3)]),
    "pow": ([logmag(E_MIN, E_MAX), uniform(0, 10), near(1.0, ulps=1 << 20), ints(-10, 11)],
            [uniform(-30, 30), ints(-12, 13), logmag(-5, 3), near(0.5, -0.5, 2.0, 3.0, ulps=2)]),
}


def specials(dtype) -> np.ndarray:
    fi = np.finfo(dtype)
    return np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, fi.smallest_subnormal,
                     -fi.smallest_subnormal, 1e-3 * fi.tiny, -0.37 * fi.tiny, fi.tiny, -fi.tiny,
                     fi.max, -fi.max, 1.0, -1.0, 0.5, -2.0], dtype)


def sample(parts: list, n: int, dtype, rng: np.random.Generator) -> np.ndarray:
    """n values of ``dtype`` from the domain ``parts``, about 1 in 20 a special value
    (at random positions; each special at least once when n allows)."""
    fi = np.finfo(dtype)
    pick = rng.integers(len(parts), size=n)
    vals = np.stack([p(rng, n, fi) for p in parts])[pick, np.arange(n)]
    with np.errstate(over="ignore"):
        out = vals.astype(dtype)
    sp = specials(dtype)
    k = max(n // 20, int(rng.integers(0, 2)))
    where = rng.choice(n, size=min(k, n), replace=False)
    out[where] = np.resize(rng.permutation(sp), len(where))
    return out


# --------------------------------------------------------------------------- elementwise

# Bounds above ULP_BOUND.  logf: libmvec's logf is up to 4 ulp from the correctly
# rounded result and numpy's own float32 log up to 4 the other way; over every float32
# in [0.5, 2) they differ by at most 7 ulp (at x = 0.77890277), 5 on the data below.
BOUNDS = {"logf": 7}
# float32 results are also checked against numpy's float64 function rounded to float32
# (nearly correctly rounded): a bound on lazyarray's own error, whatever numpy's is.
# Measured on 2**24 random points per function: at most 3 ulp, logf 4.
TRUTH_BOUND = 4


def _all_names() -> list:
    return sorted(n + s for n in cg.LIBMVEC for s in ("", "f"))


def _base(name: str) -> str:
    return name[:-1] if name not in cg.LIBMVEC and name[:-1] in cg.LIBMVEC else name


def test_every_libmvec_name_is_mapped():
    """Each libm name has a lazyarray function, or is listed as having none."""
    assert set(API_NAME) | set(NO_COUNTERPART) == set(cg.LIBMVEC)
    assert not set(API_NAME) & set(NO_COUNTERPART)
    for name, fn in API_NAME.items():
        assert callable(getattr(xp, fn, None)), name
    # every variant this CPU's table holds is a name the accuracy test covers
    assert set(llvm.codegen().vector_variants) <= set(_all_names())


@pytest.mark.parametrize("name", _all_names())
def test_libm_function_accuracy(name):
    base = _base(name)
    dtype = np.float32 if name != base else np.float64
    rng = np.random.default_rng(_seed(name))
    fn, ref = getattr(xp, API_NAME[base]), _numpy_fn(base)
    bound = BOUNDS.get(name, ULP_BOUND)
    worst = own = 0
    for n in SIZES:
        if base in BINARY:
            args = tuple(sample(p, n, dtype, rng) for p in DOMAINS[base])
        else:
            args = (sample(DOMAINS[base], n, dtype, rng),)
        got = np.asarray(fn(*[xp.asarray(a) for a in args]))
        with np.errstate(all="ignore"):
            want = ref(*args)
        worst = max(worst, compare(got, want, args, bound, f"{name} n={n}"))
        if dtype == np.float32:
            with np.errstate(all="ignore"):
                truth = ref(*[a.astype(np.float64) for a in args]).astype(np.float32)
            own = max(own, compare(got, truth, args, TRUTH_BOUND, f"{name} n={n} vs float64"))
    MEASURED[name] = f"{worst}" + (f"  (vs float64 rounded: {own})" if dtype == np.float32 else "")
    print(f"{name}: max {MEASURED[name]} ulp from numpy (bound {bound})")


def _seed(name: str) -> int:
    """A fixed seed per name (str hash is salted per process)."""
    return int.from_bytes(name.encode(), "little") % 2**32


@pytest.mark.parametrize("base", sorted(BINARY))
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_binary_special_pairs(base, dtype):
    """Every pair of special values (C99 Annex F), shuffled among ordinary values so
    that some pairs fall in the vector body and some in the tail."""
    sp = specials(dtype)
    x, y = (a.ravel() for a in np.meshgrid(sp, sp))
    rng = np.random.default_rng(7)
    n = 519
    xs = sample(DOMAINS[base][0], n, dtype, rng)
    ys = sample(DOMAINS[base][1], n, dtype, rng)
    at = rng.choice(n, size=len(x), replace=False)
    xs[at], ys[at] = x, y
    got = np.asarray(getattr(xp, base)(xp.asarray(xs), xp.asarray(ys)))
    with np.errstate(all="ignore"):
        want = _numpy_fn(base)(xs, ys)
    compare(got, want, (xs, ys), ULP_BOUND, f"{base} {np.dtype(dtype).name} special pairs")


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_logaddexp_accuracy(dtype):
    """logaddexp(x, y) = max(x, y) + log1p(exp(-|x - y|)) with vectorised exp and log1p,
    numpy's formula.  The sum cancels when max(x, y) is near -log1p(...) (a result near
    0 from x, y near -0.5), so the error is measured in ulp of max(|max(x, y)|, 1): the
    terms' size.  NaN-ness, infinities and signed zeros must still match exactly."""
    rng = np.random.default_rng(11)
    dom = [uniform(-50, 50), logmag(E_MIN, E_MAX), uniform(-1, 1)]
    worst = 0.0
    for n in SIZES:
        x, y = sample(dom, n, dtype, rng), sample(dom, n, dtype, rng)
        got = np.asarray(xp.logaddexp(xp.asarray(x), xp.asarray(y)))
        with np.errstate(all="ignore"):
            want = np.logaddexp(x, y)
            compare(got, want, (x, y), 2**64, f"logaddexp n={n}")  # special values only
            fin = np.isfinite(want)
            scale = np.spacing(np.maximum(np.abs(np.maximum(x, y)), 1).astype(dtype))
            err = np.abs(got[fin].astype(float) - want[fin]) / scale[fin]
        m = float(err.max(initial=0))
        assert m <= ULP_BOUND, f"logaddexp n={n}: {m} ulp of the terms"
        worst = max(worst, m)
    MEASURED[f"logaddexp {np.dtype(dtype).name} (ulp of terms)"] = worst


@pytest.mark.parametrize("name", ["sin", "expf", "pow", "log1pf"])
def test_large_arrays_split_into_chunks(name):
    """Chunk edges (when the runtime splits a kernel between threads) add tails."""
    base = _base(name)
    dtype = np.float32 if name != base else np.float64
    rng = np.random.default_rng(_seed(name) + 1)
    dom = DOMAINS[base] if base in BINARY else (DOMAINS[base],)
    args = tuple(sample(p, LARGE, dtype, rng) for p in dom)
    got = np.asarray(getattr(xp, base)(*[xp.asarray(a) for a in args]))
    with np.errstate(all="ignore"):
        want = _numpy_fn(base)(*args)
    compare(got, want, args, BOUNDS.get(name, ULP_BOUND), f"{name} n={LARGE}")


# --------------------------------------------------------------------------- vector variants used

def _vector_calls(optimized_ir: str) -> set:
    return set(re.findall(r"call [^@\n]*<\d+ x (?:double|float)> @\"?(_ZGV\w+)", optimized_ir))


def _variants() -> dict:
    table = llvm.codegen().vector_variants
    if not table:
        pytest.skip("no libmvec vector variants on this machine (no libmvec, or no AVX2/AVX-512)")
    return table


def _program(name: str):
    base = _base(name)
    dtype = xp.float32 if name != base else xp.float64
    ps = [xp.placeholder(("n",), dtype) for _ in range(2 if base in BINARY else 1)]
    return xp.compile(getattr(xp, API_NAME[base])(*ps), ps)


@pytest.mark.parametrize("name", ["sin", "exp"])
def test_float64_sin_exp_object_code_calls_libmvec(name):
    """The machine code of a float64 sin/exp kernel calls a libmvec variant (its
    vector body) and scalar libm (its tail)."""
    syms = [s for s, _ in _variants().get(name, [])]
    if not syms:
        pytest.skip(f"no libmvec variant of {name} on this CPU")
    prog = _program(name)
    opt = prog.optimized_ir()
    assert _vector_calls(opt) & set(syms), f"no call of {syms}"
    assert re.search(rf"call double @\"?{name}\"?\(double", opt), "no scalar tail call"
    obj, _ = llvm.codegen().compile_here(prog.lowered_ir())
    assert any(s.encode() in obj for s in syms), f"object code names none of {syms}"


def test_avx512_cpus_call_the_512_bit_variants():
    """Where AVX-512 exists, loops are 8 doubles wide (LLVM's tuning alone would pick 4
    on most Intel CPUs) and call libmvec's AVX-512 variant."""
    syms = dict((lanes, s) for s, lanes in _variants().get("exp", []))
    if 8 not in syms:
        pytest.skip("no AVX-512 libmvec variant of exp on this CPU")
    assert "-prefer-256-bit" in llvm.codegen().features.split(",")
    assert syms[8] in _vector_calls(_program("exp").optimized_ir())


def test_every_vector_variant_is_called():
    """Each function with a libmvec variant on this CPU is vectorised through it."""
    missing = []
    for name, found in sorted(_variants().items()):
        if not _vector_calls(_program(name).optimized_ir()) & {s for s, _ in found}:
            missing.append(name)
    assert not missing, f"not vectorised through libmvec: {missing}"


def test_logaddexp_is_vectorised_and_complex_functions_call_scalar_libm():
    """logaddexp is built on real libm calls, which go through libmvec too; the complex
    functions keep scalar libm (libmvec's last bits, in the vector body only, made z and
    conj(z) of one array give results that were not conjugates)."""
    _variants()
    cases = [(f, d) for f in COMPLEX_FNS for d in (xp.complex128, xp.complex64)]
    cases += [("logaddexp", xp.float64), ("logaddexp", xp.float32)]
    wrong = []
    for fname, dtype in cases:
        ps = [xp.placeholder(("n",), dtype) for _ in range(2 if fname == "logaddexp" else 1)]
        vector = bool(_vector_calls(xp.compile(getattr(xp, fname)(*ps), ps).optimized_ir()))
        if vector != (fname == "logaddexp"):
            wrong.append(f"{fname} {dtype}: {'a' if vector else 'no'} libmvec call")
    assert not wrong, wrong


# --------------------------------------------------------------------------- reductions

RED_SIZES = (1, 2, 3, 7, 8, 15, 16, 17, 31, 64, 100, 519, 1000, 4096, 10007, 100_000)
LARGE = 3 * 2**17 + 1   # big enough for the runtime to split a kernel into chunks (threads.py)


def _reduction_data(n: int, dtype, rng) -> np.ndarray:
    """Values of mixed signs and magnitudes (cancellation makes the sum hard)."""
    v = rng.standard_normal(n) * 10.0 ** rng.uniform(-3, 3, n)
    return v.astype(dtype)


@pytest.mark.parametrize("tier", ["interpret", "compile"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_sum_mean_error_bound_and_determinism(dtype, tier, monkeypatch):
    """|sum - exact| <= (n-1) eps sum|x| (the standard's recursive summation bound);
    reassociated vector accumulators do far better, so the measured error (in units
    of eps * sum|x|) is also bounded by ``TIGHT``.  Mean is sum / n, one more rounding.
    Each tier on its own: the tiers may sum in different orders, and a background compile
    finishing between two calls would switch tiers under the determinism check."""
    monkeypatch.setenv("LAZYARRAY_TIER", tier)
    eps = float(np.finfo(dtype).eps)
    rng = np.random.default_rng(3)
    worst = 0.0
    for n in RED_SIZES + (LARGE,):
        a = _reduction_data(n, dtype, rng)
        s = xp.sum(xp.asarray(a))
        got = float(np.asarray(s))
        again = np.asarray(xp.sum(xp.asarray(a.copy())))
        assert np.asarray(s).tobytes() == again.tobytes(), f"sum n={n} not deterministic"
        exact = math.fsum(a.astype(np.float64).tolist())   # exactly rounded to float64
        scale = eps * float(np.sum(np.abs(a), dtype=np.float64))
        err = abs(got - exact) / scale
        assert err <= max(n - 1, 1), f"sum n={n}: error {err:.3g} eps*sum|x|"
        worst = max(worst, err)
        mean = float(np.asarray(xp.mean(xp.asarray(a))))
        merr = abs(mean - exact / n) / (scale / n)
        assert merr <= max(n - 1, 1) + 1, f"mean n={n}: error {merr:.3g} eps*sum|x|/n"
        np.testing.assert_allclose(got, np.sum(a), rtol=n * eps, atol=n * scale)
    TIGHT = 2   # measured 0.45 (float64), 0.63 (float32) on this data
    assert worst <= TIGHT, f"sum error {worst:.3g} eps*sum|x|"
    MEASURED[f"sum {np.dtype(dtype).name} (eps*sum|x|)"] = round(worst, 3)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_prod_error_bound_and_determinism(dtype):
    """Relative error of prod <= (n-1) eps (each product rounds once, to within eps/2).
    The roundings are independent, so the error grows like a random walk: it is also
    bounded by 2 sqrt(n) eps (about 7 standard deviations; measured: see MEASURED).
    Values near 1 of both signs keep the product in range."""
    eps = float(np.finfo(dtype).eps)
    rng = np.random.default_rng(5)
    worst = 0.0
    for n in RED_SIZES:
        a = (rng.choice([-1.0, 1.0], n) * (1 + rng.uniform(-0.01, 0.01, n))).astype(dtype)
        got = np.asarray(xp.prod(xp.asarray(a)))
        assert got.tobytes() == np.asarray(xp.prod(xp.asarray(a.copy()))).tobytes()
        want = _exact_prod(a)
        rel = abs(float(got) - want) / abs(want) / eps
        assert rel <= max(n - 1, 1), f"prod n={n}: relative error {rel:.3g} eps"
        assert rel <= 2 * math.sqrt(n), f"prod n={n}: relative error {rel:.3g} eps"
        worst = max(worst, rel)
    MEASURED[f"prod {np.dtype(dtype).name} (rel eps)"] = round(worst, 3)


def _exact_prod(a: np.ndarray) -> float:
    """The product to 300 bits (integer mantissas, truncated: relative error below
    n 2**-299), then rounded to float64."""
    sign, m, e = 1, 1, 0
    for v in a.tolist():
        frac, ex = math.frexp(v)
        sign *= -1 if frac < 0 else 1
        m, e = m * int(abs(frac) * 2**53), e + ex - 53
        if m.bit_length() > 300:
            drop = m.bit_length() - 300
            m, e = m >> drop, e + drop
    return sign * math.ldexp(float(m), e)


# --------------------------------------------------------------------------- complex

COMPLEX_FNS = ("exp", "log", "sin", "cos", "sqrt", "tanh")
# Per component, in ulp of the larger part (see _component_ulps).  A component is a
# product or quotient of two or three real libm results (exp(x) cos(y), ...).  When
# those went through libmvec (3-4 ulp each), on 2**20 points per function the distance
# from numpy reached 8 ulp (tanh; exp, sin, cos 6; log 5-6; sqrt 2), and against a
# reference (complex64: numpy's complex128 rounded) lazyarray's complex64 error reached
# 5 (log), 4 (exp, sin, cos, tanh), 1 (sqrt).  With scalar libm (numpy's C99 functions
# call the same) exp, sin and cos of complex128 match numpy exactly here.
CBOUND = 10
CTRUTH_BOUND = 6


def _component_ulps(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """Per component: |got - want| in ulp of max(|want.real|, |want.imag|).

    A component much smaller than the other can be cancelled (cos(x) near pi/2 in
    the real part of cos(z)), where neither numpy nor lazyarray is accurate in its
    own ulp; the error relative to |z| is what both bound."""
    part = np.float64 if want.dtype == np.complex128 else np.float32
    mag = np.maximum(np.abs(want.real), np.abs(want.imag)).astype(part)
    ulp = np.spacing(mag).astype(np.float64)
    d = [np.abs(g.astype(np.float64) - w.astype(np.float64)) / ulp
         for g, w in ((got.real, want.real), (got.imag, want.imag))]
    return np.maximum(*d)


def _complex_sample(n, dtype, rng, lo, hi):
    part = np.float64 if dtype == np.complex128 else np.float32
    dom = [uniform(lo, hi), logmag(-8, 1), uniform(-1, 1)]
    fi = np.finfo(part)
    re, im = (np.stack([p(rng, n, fi) for p in dom])[rng.integers(len(dom), size=n),
                                                      np.arange(n)] for _ in range(2))
    return (re + 1j * im).astype(dtype)


# (lo, hi) of both parts: inside the range where the results are finite
COMPLEX_RANGE = {"exp": (-30, 30), "log": (-1e6, 1e6), "sin": (-20, 20), "cos": (-20, 20),
                 "sqrt": (-1e6, 1e6), "tanh": (-20, 20)}


@pytest.mark.parametrize("name", COMPLEX_FNS)
@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
def test_complex_function_accuracy(name, dtype):
    """Finite arguments only: the special values of the complex functions (C99 Annex G)
    are tested against the standard's tables in test_complex.py."""
    rng = np.random.default_rng(_seed(name))
    worst = own = 0.0
    for n in SIZES:
        z = _complex_sample(n, dtype, rng, *COMPLEX_RANGE[name])
        got = np.asarray(getattr(xp, name)(xp.asarray(z)))
        with np.errstate(all="ignore"):
            want = getattr(np, name)(z)
        assert got.dtype == want.dtype
        for part in ("real", "imag"):
            g, w = getattr(got, part), getattr(want, part)
            assert (np.isnan(g) == np.isnan(w)).all() and (np.isinf(g) == np.isinf(w)).all()
        fin = np.isfinite(want.real) & np.isfinite(want.imag)
        d = _component_ulps(got[fin], want[fin])
        m = float(d.max()) if d.size else 0.0
        i = np.flatnonzero(d > CBOUND)[:5]
        assert m <= CBOUND, f"{name} n={n}: {m:.3g} ulp at z={z[fin][i]} got {got[fin][i]} " \
                            f"want {want[fin][i]}"
        worst = max(worst, m)
        if dtype == np.complex64:
            with np.errstate(all="ignore"):
                truth = getattr(np, name)(z[fin].astype(np.complex128)).astype(dtype)
            own = max(own, float(_component_ulps(got[fin], truth).max(initial=0)))
            assert own <= CTRUTH_BOUND, f"{name} n={n}: {own} ulp from complex128 rounded"
    MEASURED[f"complex {name} {np.dtype(dtype).name}"] = f"{worst:g}" + (
        f"  (vs complex128 rounded: {own:g})" if dtype == np.complex64 else "")


# --------------------------------------------------------------------------- report

@pytest.fixture(scope="module", autouse=True)
def _report():
    yield
    if MEASURED:
        print("\nmeasured max error (ulp from numpy unless noted):")
        for k, v in sorted(MEASURED.items()):
            print(f"  {k:<34} {v}")
