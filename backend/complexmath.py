"""Complex elementwise math written with real operations only.

Complex values are pairs of real register values here; codegen packs them
into ``{T, T}`` structs.  No C99 ``_Complex`` function is called (their ABI
is not that of an LLVM struct): every function is built from real libm calls
and selects, with no branches; their libm calls stay scalar (see ``Math.call``).

Special values follow the array API standard's tables (C99 Annex G).  Each
function computes its generic formula and then selects the special cases,
lowest priority first.  Algorithms: Smith's division and the integer-power
loop of numpy's ``npy_cpow``; the inverse functions follow Hull, Fairgrieve
and Tang ("Implementing the complex arcsine and arccosine functions using
exception handling", 1997) as FreeBSD's msun ``catrig.c`` does; ``tanh`` is
Kahan's algorithm.
"""
from __future__ import annotations

import math

from llvmlite import ir

INF = float("inf")
NAN = float("nan")
LN2 = math.log(2.0)
PIO2 = math.pi / 2


class Params:
    """Constants of one real format (the parts of complex64 or complex128)."""

    def __init__(self, bits: int) -> None:
        f32 = bits == 32
        self.bits = bits
        self.mant = 24 if f32 else 53
        self.eps = 2.0 ** (1 - self.mant)
        self.min = 2.0 ** (-126 if f32 else -1022)
        self.max = (2 - self.eps) * 2.0 ** (127 if f32 else 1023)
        self.recip_eps = 1 / self.eps
        self.sqrt_min = math.sqrt(self.min)
        self.four_sqrt_min = 4 * self.sqrt_min
        self.quarter_sqrt_max = math.sqrt(self.max) / 4
        self.sqrt_6_eps = math.sqrt(6 * self.eps)
        self.sqrt_3_eps = math.sqrt(3 * self.eps)
        self.exp_over = 88.0 if f32 else 709.0     # exp overflows just above this
        self.sinh_big = 9.0 if f32 else 22.0        # cosh(x) ~= exp(|x|)/2 from here on
        self.tanh_huge = 11.0 if f32 else 22.0
        self.exp_bits, self.frac_bits = (8, 23) if f32 else (11, 52)


PARAMS = {32: Params(32), 64: Params(64)}


class Pred:
    """An i1 value with ``&``, ``|`` and ``~``."""

    __slots__ = ("m", "v")

    def __init__(self, m: "Math", v: ir.Value) -> None:
        self.m, self.v = m, v

    def __and__(self, o: "Pred") -> "Pred":
        return Pred(self.m, self.m.b.and_(self.v, o.v))

    def __or__(self, o: "Pred") -> "Pred":
        return Pred(self.m, self.m.b.or_(self.v, o.v))

    def __invert__(self) -> "Pred":
        return Pred(self.m, self.m.b.xor(self.v, ir.Constant(self.v.type, 1)))


class Real:
    """A real value whose operators emit IR (IEEE semantics, no fast-math).

    Comparisons are ordered (false on NaN) except ``!=``, which is unordered,
    as in C.
    """

    __slots__ = ("m", "v")
    __hash__ = None

    def __init__(self, m: "Math", v: ir.Value) -> None:
        self.m, self.v = m, v

    def _bin(self, name, o, rev=False):
        o = self.m.val(o)
        a, c = (o, self.v) if rev else (self.v, o)
        return Real(self.m, getattr(self.m.b, name)(a, c))

    def __add__(self, o): return self._bin("fadd", o)
    def __radd__(self, o): return self._bin("fadd", o, True)
    def __sub__(self, o): return self._bin("fsub", o)
    def __rsub__(self, o): return self._bin("fsub", o, True)
    def __mul__(self, o): return self._bin("fmul", o)
    def __rmul__(self, o): return self._bin("fmul", o, True)
    def __truediv__(self, o): return self._bin("fdiv", o)
    def __rtruediv__(self, o): return self._bin("fdiv", o, True)

    def __neg__(self) -> "Real":
        return Real(self.m, self.m.b.fneg(self.v))

    def _cmp(self, op, o, ordered=True):
        f = self.m.b.fcmp_ordered if ordered else self.m.b.fcmp_unordered
        return Pred(self.m, f(op, self.v, self.m.val(o)))

    def __lt__(self, o): return self._cmp("<", o)
    def __le__(self, o): return self._cmp("<=", o)
    def __gt__(self, o): return self._cmp(">", o)
    def __ge__(self, o): return self._cmp(">=", o)
    def __eq__(self, o): return self._cmp("==", o)  # type: ignore[override]
    def __ne__(self, o): return self._cmp("!=", o, False)  # type: ignore[override]


class Math:
    """Emits real operations of one float type ``ty`` through builder ``b``."""

    def __init__(self, mb, b: ir.IRBuilder, ty: ir.Type) -> None:
        self.mb, self.b, self.ty = mb, b, ty
        self.p = PARAMS[32 if isinstance(ty, ir.FloatType) else 64]

    def val(self, x) -> ir.Value:
        return x.v if isinstance(x, Real) else ir.Constant(self.ty, float(x))

    def real(self, v) -> Real:
        return v if isinstance(v, Real) else Real(self, self.val(v))

    def sel(self, p: Pred, x, y) -> Real:
        return Real(self, self.b.select(p.v, self.val(x), self.val(y)))

    def csel(self, p: Pred, z: tuple, w: tuple) -> tuple:
        return tuple(self.sel(p, u, v) for u, v in zip(z, w))

    def call(self, name: str, *args) -> Real:
        # Scalar libm only: libmvec's variants differ from libm in the last bits and run
        # only in a loop's vector body, so z and conj(z) in one array gave results that
        # were not conjugates (and differed from numpy's, which calls glibc's scalar
        # complex functions, built on the same libm calls as these).
        return Real(self, self.mb.libm(self.b, name, self.ty, *[self.val(a) for a in args],
                                       vector=False))

    def _intr(self, name: str, *args) -> Real:
        fn = self.mb.intrinsic(name, self.ty, len(args))
        return Real(self, self.b.call(fn, [self.val(a) for a in args]))

    def fabs(self, x) -> Real: return self._intr("llvm.fabs", x)
    def sqrt(self, x) -> Real: return self._intr("llvm.sqrt", x)
    def copysign(self, x, y) -> Real: return self._intr("llvm.copysign", x, y)
    def roundeven(self, x) -> Real: return self._intr("llvm.roundeven", x)
    def floor(self, x) -> Real: return self._intr("llvm.floor", x)
    def fma(self, x, y, z) -> Real: return self._intr("llvm.fma", x, y, z)

    def isnan(self, x: Real) -> Pred:
        return Pred(self, self.b.fcmp_unordered("uno", x.v, x.v))

    def isinf(self, x: Real) -> Pred:
        return self.fabs(x) == INF

    def isfinite(self, x: Real) -> Pred:
        return self.fabs(x) < INF

    def signbit(self, x: Real) -> Pred:
        bits = self.b.bitcast(x.v, ir.IntType(self.p.bits))
        return Pred(self, self.b.icmp_signed("<", bits, ir.Constant(bits.type, 0)))

    def __getattr__(self, name: str):
        # m.exp(x), m.atan2(y, x), ...: the libm function of that name
        if name.startswith("_"):
            raise AttributeError(name)
        return lambda *args: self.call(name, *args)


def first(m: Math, default: tuple, *cases) -> tuple:
    """The value of the first ``(predicate, value)`` case that holds, else ``default``."""
    out = default
    for p, v in reversed(cases):
        out = m.csel(p, v, out)
    return out


# --------------------------------------------------------------------------- arithmetic

def mul_plain(m: Math, a, b, c, d) -> tuple:
    """The textbook product with plain rounding (numpy's scalar ``cmul``, used by its power)."""
    return a * c - b * d, a * d + b * c


def mul(m: Math, a, b, c, d) -> tuple:
    """The textbook product with one rounding less per part (as numpy's FMA loops).

    ``ac - bd`` and ``ad + bc`` are each formed with a fused multiply-add, so
    cancellation (as in z * conj(z)-like products) keeps its accuracy.
    """
    return m.fma(a, c, -(b * d)), m.fma(a, d, b * c)


def div(m: Math, a, b, c, d) -> tuple:
    """Smith's algorithm, term for term as numpy's complex division."""
    ac, ad = m.fabs(c), m.fabs(d)
    rat1 = d / c
    scl1 = 1.0 / (c + d * rat1)
    r1 = ((a + b * rat1) * scl1, (b - a * rat1) * scl1)
    rat2 = c / d
    scl2 = 1.0 / (d + c * rat2)
    r2 = ((a * rat2 + b) * scl2, (b * rat2 - a) * scl2)
    zero = (a / ac, b / ad)  # division by a complex zero: a complex inf or NaN
    return first(m, r2, ((ac >= ad) & (ac == 0) & (ad == 0), zero), (ac >= ad, r1))


def sign(m: Math, a, b) -> tuple:
    """``z/|z|``; 0 for 0; NaN if either part is NaN (the standard's rules).

    Huge and tiny z are scaled by a power of two first, so |z| neither
    overflows nor loses bits to subnormals (numpy gives 0 + 1j for 1e308 + 1e308j).
    """
    am = m.fabs(a)
    am = m.sel(am > m.fabs(b), am, m.fabs(b))
    k = m.sel(am > m.p.max / 4, 0.25, m.sel(am < m.p.min * 2.0 ** m.p.mant, 2.0 ** m.p.mant, 1.0))
    x, y = a * k, b * k
    h = m.hypot(x, y)
    one_a = m.sel(a > 0, 1.0, -1.0)
    one_b = m.sel(b > 0, 1.0, -1.0)
    nan = (NAN, NAN)
    return first(m, (x / h, y / h),
                 (m.isnan(a) | m.isnan(b), nan),        # standard: NaN in either part
                 (m.isinf(a) & m.isinf(b), nan),        # as numpy
                 (m.isinf(a), (one_a, m.real(0.0))),    # as numpy: +-1 + 0j
                 (m.isinf(b), (m.real(0.0), one_b)),
                 (h == 0, (m.real(0.0), m.real(0.0))))  # standard: 0 + 0j


# --------------------------------------------------------------------------- exp, log, sqrt

def _exp_scaled(m: Math, a: Real) -> tuple:
    """(t, s) with exp(a) == t*s, neither overflowing where exp(a)*cos(b) may not."""
    big = a > m.p.exp_over
    t = m.exp(m.sel(big, a * 0.5, a))
    return t, m.sel(big, t, 1.0)


def exp(m: Math, a, b) -> tuple:
    t, s = _exp_scaled(m, a)
    re, im = (t * m.cos(b)) * s, (t * m.sin(b)) * s
    bad_b = ~m.isfinite(b)
    return first(m, (re, im),
                 (b == 0, (re, b)),                                     # exp(a) + b j
                 ((a == -INF) & bad_b, (m.real(0.0), m.copysign(0.0, b))),
                 ((a == INF) & bad_b, (a, b - b)))                      # inf + NaN j


def expm1(m: Math, a, b) -> tuple:
    t, s = _exp_scaled(m, a)
    h = m.sin(b * 0.5)
    big = a > m.p.exp_over
    re = m.sel(big, (t * m.cos(b)) * s, m.expm1(a) * m.cos(b) - 2.0 * h * h)
    im = (t * m.sin(b)) * s
    bad_b = ~m.isfinite(b)
    zero_b = m.copysign(0.0, b)
    return first(m, (re, im),
                 ((a == 0) & (b == 0), (m.real(0.0), b)),               # standard: 0 + 0j
                 (b == 0, (re, b)),
                 ((a == -INF) & bad_b, (m.real(-1.0), zero_b)),         # -1 + 0j
                 (a == -INF, (m.real(-1.0), im)),                       # +0 cis(b) - 1
                 ((a == INF) & bad_b, (a, b - b)))                      # inf + NaN j


def _log_abs(m: Math, a, b) -> Real:
    """log|a + bj| without spurious overflow/underflow, accurate near |z| == 1."""
    ax, ay = m.fabs(a), m.fabs(b)
    gt = ax > ay
    am, an = m.sel(gt, ax, ay), m.sel(gt, ay, ax)
    big = am > m.p.max / 4
    tiny = am < m.p.min
    s = m.sel(big, 0.5, m.sel(tiny, 2.0 ** m.p.mant, 1.0))
    ls = m.sel(big, LN2, m.sel(tiny, -m.p.mant * LN2, 0.0))
    h = m.hypot(ax * s, ay * s)
    near1 = (h >= 0.71) & (h <= 1.73)
    return m.sel(near1, m.log1p((am - 1.0) * (am + 1.0) + an * an) * 0.5, m.log(h) + ls)


def log(m: Math, a, b) -> tuple:
    # hypot and atan2 give every special case of the standard's table
    return _log_abs(m, a, b), m.atan2(b, a)


def _scaled_log(k: float):
    def f(m: Math, a, b) -> tuple:
        re, im = log(m, a, b)
        return re * k, im * k
    return f


log2 = _scaled_log(1 / LN2)
log10 = _scaled_log(1 / math.log(10.0))


def log1p(m: Math, a, b) -> tuple:
    x = 1.0 + a
    big = (m.fabs(x) > m.p.max / 4) | (m.fabs(b) > m.p.max / 4)
    s = m.sel(big, 0.5, 1.0)
    h = m.hypot(x * s, b * s)
    far = m.log(h) + m.sel(big, LN2, 0.0)
    # |1+z|^2 - 1 = a(2+a) + b^2: no cancellation against the 1 when z is small
    near = m.log1p(a * (2.0 + a) + b * b) * 0.5
    near1 = (h >= 0.71) & (h <= 1.73)
    return m.sel(near1, near, far), m.atan2(b, x)


def sqrt(m: Math, a, b) -> tuple:
    p = m.p
    ax, ay = m.fabs(a), m.fabs(b)
    thresh = p.max / (1 + math.sqrt(2.0))
    big = (ax >= thresh) | (ay >= thresh)
    tiny = (ax < 4 * p.min) & (ay < 4 * p.min)
    k = p.mant + 1
    si = m.sel(big, 0.25, m.sel(tiny, 2.0 ** (2 * k), 1.0))
    so = m.sel(big, 2.0, m.sel(tiny, 2.0 ** -k, 1.0))
    x, y = a * si, b * si
    t = m.sqrt((m.fabs(x) + m.hypot(x, y)) * 0.5)
    pos = (t, y / (2.0 * t))
    neg = (m.fabs(y) / (2.0 * t), m.copysign(t, y))
    re, im = m.csel(x >= 0, pos, neg)
    return first(m, (re * so, im * so),
                 ((a == 0) & (b == 0), (m.real(0.0), b)),
                 (m.isinf(b), (m.real(INF), b)),
                 (m.isnan(a), (a, m.real(NAN))),
                 (a == -INF, (m.fabs(b - b), m.copysign(a, b))),   # 0 + inf j, NaN + inf j
                 (a == INF, (a, m.copysign(b - b, b))))            # inf + 0 j, inf + NaN j


# --------------------------------------------------------------------------- hyperbolic

def _cosh_sinh_large(m: Math, x: Real) -> tuple:
    """(cosh|x|, sinh|x|) factored as t*s*(1/2) for |x| >= sinh_big, without overflow."""
    t, s = _exp_scaled(m, m.fabs(x))
    return t * 0.5, s


def sinh(m: Math, x, y) -> tuple:
    small = m.fabs(x) < m.p.sinh_big
    h, s = _cosh_sinh_large(m, x)
    c, sn = m.cos(y), m.sin(y)
    re = m.sel(small, m.sinh(x) * c, (m.copysign(h, x) * c) * s)
    im = m.sel(small, m.cosh(x) * sn, (h * sn) * s)
    bad_y = ~m.isfinite(y)
    return first(m, (re, im),
                 (y == 0, (m.sinh(x), y)),
                 ((x == 0) & bad_y, (x, y - y)),                    # 0 + NaN j
                 (m.isinf(x) & bad_y, (x, y - y)))                  # inf + NaN j


def cosh(m: Math, x, y) -> tuple:
    small = m.fabs(x) < m.p.sinh_big
    h, s = _cosh_sinh_large(m, x)
    c, sn = m.cos(y), m.sin(y)
    re = m.sel(small, m.cosh(x) * c, (h * c) * s)
    im = m.sel(small, m.sinh(x) * sn, (m.copysign(h, x) * sn) * s)
    bad_y = ~m.isfinite(y)
    return first(m, (re, im),
                 (y == 0, (m.cosh(x), m.copysign(0.0, x) * y)),
                 ((x == 0) & bad_y, (y - y, x)),                    # NaN + 0j
                 (m.isinf(x) & bad_y, (m.real(INF), y - y)))        # inf + NaN j


def tanh(m: Math, x, y) -> tuple:
    # Kahan's algorithm: t = tan(y), beta = 1/cos^2(y), s = sinh(x), rho = cosh(x)
    t = m.tan(y)
    beta = 1.0 + t * t
    s = m.sinh(x)
    rho = m.sqrt(1.0 + s * s)
    den = 1.0 + beta * s * s
    gen = ((beta * rho * s) / den, t / den)
    e = m.exp(-m.fabs(x))
    huge = (m.copysign(1.0, x), 4.0 * m.sin(y) * m.cos(y) * e * e)
    return first(m, gen,
                 (m.isnan(x), (x, m.sel(y == 0, y, m.real(NAN)))),   # NaN + 0j, NaN + NaN j
                 (m.isinf(x), (m.copysign(1.0, x), m.copysign(0.0, y))),  # 1 + 0j
                 (~m.isfinite(y), (m.sel(x == 0, x, y - y), y - y)),  # +0 + NaN j, NaN + NaN j
                 (m.fabs(x) >= m.p.tanh_huge, huge))


def _times_i(f):
    """f(i z) rotated back by -i: sin, tan from sinh, tanh (the standard's definition)."""
    def g(m: Math, a, b) -> tuple:
        u, v = f(m, -b, a)
        return v, -u
    return g


def cos(m: Math, a, b) -> tuple:
    return cosh(m, -b, a)


sin = _times_i(sinh)
tan = _times_i(tanh)


# --------------------------------------------------------------------------- inverse functions

def _f(m: Math, a: Real, b: Real, h: Real) -> Real:
    """(hypot(a, b) - b) / 2 without cancellation; ``h`` is hypot(a, b)."""
    return m.sel(b < 0, (h - b) * 0.5, m.sel(b == 0, a * 0.5, a * a / (h + b) * 0.5))


def _hard_work(m: Math, x: Real, y: Real) -> tuple:
    """Re(asinh(x + yj)) and what Im needs, for finite 0 <= x, y < 1/eps.

    Returns (rx, b_usable, B, sqrt_A2my2, new_y): Im(asinh) is asin(B) when
    b_usable, else atan2(new_y, sqrt_A2my2) (Hull et al.'s crossovers).
    """
    eps = m.p.eps
    R = m.hypot(x, y + 1.0)
    S = m.hypot(x, y - 1.0)
    A = (R + S) * 0.5
    A = m.sel(A < 1.0, 1.0, A)
    ym1 = m.fabs(y - 1.0)
    x_big = x >= eps * ym1
    am1 = _f(m, x, 1.0 + y, R) + _f(m, x, 1.0 - y, S)
    rx_small = first(m, (m.log1p((y - 1.0) + m.sqrt((y - 1.0) * (y + 1.0))),),
                     (((y == 1.0) & (x < eps * eps / 128)), (m.sqrt(x),)),
                     (x_big, (m.log1p(am1 + m.sqrt(am1 * (A + 1.0))),)),
                     (y < 1.0, (x / m.sqrt((1.0 - y) * (1.0 + y)),)))[0]
    rx = m.sel(A < 10.0, rx_small, m.log(A + m.sqrt(A * A - 1.0)))

    B = y / A
    amy = _f(m, x, y + 1.0, R) + _f(m, x, y - 1.0, S)
    k4 = 4 / eps / eps
    sq, ny = first(m, (m.sqrt((1.0 - y) * (1.0 + y)), y),
                   ((y == 1.0) & (x < eps / 128), (m.sqrt(x) * m.sqrt((A + y) * 0.5), y)),
                   (x_big, (m.sqrt(amy * (A + y)), y)),
                   (y > 1.0, (x * k4 * y / m.sqrt((y + 1.0) * (y - 1.0)), y * k4)))
    tiny = y < m.p.four_sqrt_min
    sq, ny = m.csel(tiny, (A * (2 / eps), y * (2 / eps)), (sq, ny))
    usable = ~tiny & ~(B > 0.6417)
    return rx, usable, B, sq, ny


def _log_large(m: Math, ax: Real, ay: Real) -> Real:
    """log|z| for |z| > 1/eps (including infinite): overflow and underflow avoided."""
    gt = ax > ay
    am, an = m.sel(gt, ax, ay), m.sel(gt, ay, ax)
    e = math.e
    huge = m.log(m.hypot(ax / e, ay / e)) + 1.0
    mid = m.log(m.hypot(ax, ay))
    plain = m.log(am * am + an * an) * 0.5
    return m.sel(am > m.p.max / 2, huge,
                 m.sel((am > m.p.quarter_sqrt_max) | (an < m.p.sqrt_min), mid, plain))


def asinh(m: Math, x, y) -> tuple:
    ax, ay = m.fabs(x), m.fabs(y)
    rx, usable, B, sq, ny = _hard_work(m, ax, ay)
    ry = m.sel(usable, m.asin(B), m.atan2(ny, sq))
    gen = (m.copysign(rx, x), m.copysign(ry, y))
    large = (m.copysign(_log_large(m, ax, ay) + LN2, x), m.copysign(m.atan2(ay, ax), y))
    small = (ax < m.p.sqrt_6_eps / 4) & (ay < m.p.sqrt_6_eps / 4)
    nan_xy = m.isnan(x) | m.isnan(y)
    nan = (m.real(NAN), m.real(NAN))
    return first(m, gen,
                 (nan_xy & m.isinf(x), (x, y + y)),            # inf + NaN j
                 (nan_xy & m.isinf(y), (y, x + x)),            # inf + NaN j
                 (nan_xy & (y == 0), (x + x, y)),              # NaN + 0j
                 (nan_xy, nan),
                 ((ax > m.p.recip_eps) | (ay > m.p.recip_eps), large),
                 (small, (x, y)))                              # asinh(z) = z + O(z^3)


def acos(m: Math, x, y) -> tuple:
    ax, ay = m.fabs(x), m.fabs(y)
    ry, usable, B, sq, nx = _hard_work(m, ay, ax)
    rx = m.sel(usable, m.acos(m.copysign(B, x)), m.atan2(sq, m.copysign(nx, x)))
    gen = (rx, m.copysign(ry, -y))
    large = (m.atan2(ay, x), m.copysign(_log_large(m, ax, ay) + LN2, -y))
    small = (ax < m.p.sqrt_6_eps / 4) & (ay < m.p.sqrt_6_eps / 4)
    pio2_lo = 6.123233995736766e-17 if m.p.bits == 64 else 7.5497899549e-9
    nan_xy = m.isnan(x) | m.isnan(y)
    return first(m, gen,
                 (nan_xy & m.isinf(x), (y + y, m.real(-INF))),      # NaN - inf j
                 (nan_xy & m.isinf(y), (x + x, -y)),                # NaN -+ inf j
                 (nan_xy & (x == 0), (m.real(PIO2), y + y)),        # pi/2 + NaN j
                 (nan_xy, (m.real(NAN), m.real(NAN))),
                 ((ax > m.p.recip_eps) | (ay > m.p.recip_eps), large),
                 ((x == 1.0) & (y == 0), (m.real(0.0), -y)),
                 (small, (PIO2 - (x - pio2_lo), -y)))               # pi/2 - 0j at 0


def acosh(m: Math, x, y) -> tuple:
    rx, ry = acos(m, x, y)
    # acosh(z) = +-i acos(z), the sign making the real part non-negative
    return first(m, (m.fabs(ry), m.copysign(rx, y)),
                 (m.isnan(rx) & m.isnan(ry), (ry, rx)),
                 (m.isnan(rx), (m.fabs(ry), rx)),                   # inf + NaN j
                 ((x == 0) & m.isnan(y), (m.real(NAN), m.real(PIO2))),  # standard: NaN +- pi/2 j
                 (m.isnan(ry), (ry, ry)))


def asin(m: Math, a, b) -> tuple:
    return _times_i(asinh)(m, a, b)


def _real_part_reciprocal(m: Math, x: Real, y: Real) -> Real:
    """Re(1/(x + yj)) = x/(x^2 + y^2) without spurious overflow or underflow."""
    p, b = m.p, m.b
    it = ir.IntType(p.bits)
    mask = ir.Constant(it, ((1 << p.exp_bits) - 1) << p.frac_bits)
    ix = b.and_(b.bitcast(x.v, it), mask)
    iy = b.and_(b.bitcast(y.v, it), mask)
    cutoff = ir.Constant(it, (p.mant // 2 + 1) << p.frac_bits)
    bias = (1 << (p.exp_bits - 1)) - 1
    max_exp = bias + 1
    lim = ir.Constant(it, (bias + max_exp // 2 - (p.mant // 2 + 1)) << p.frac_bits)
    c1 = Pred(m, b.icmp_signed(">=", b.sub(ix, iy), cutoff)) | m.isinf(x)
    c2 = Pred(m, b.icmp_signed(">=", b.sub(iy, ix), cutoff))
    c3 = Pred(m, b.icmp_signed("<=", ix, lim))
    scale = Real(m, b.bitcast(b.sub(mask, ix), m.ty))   # 2**(1 - ilogb(x))
    xs, ys = x * scale, y * scale
    return first(m, (xs / (xs * xs + ys * ys) * scale,),
                 (c1, (1.0 / x,)), (c2, (x / y / y,)), (c3, (x / (x * x + y * y),)))[0]


def atanh(m: Math, x, y) -> tuple:
    p = m.p
    ax, ay = m.fabs(x), m.fabs(y)
    am1 = ax - 1.0
    sumsq = m.sel(ay < p.sqrt_min, am1 * am1, am1 * am1 + ay * ay)
    rx = m.sel((ax == 1.0) & (ay < p.eps), (LN2 - m.log(ay)) * 0.5,
               m.log1p(4.0 * ax / sumsq) * 0.25)
    d = (1.0 - ax) * (1.0 + ax)
    ry = first(m, (m.atan2(2.0 * ay, d - ay * ay) * 0.5,),
               (ax == 1.0, (m.atan2(2.0, -ay) * 0.5,)),
               (ay < p.eps, (m.atan2(2.0 * ay, d) * 0.5,)))[0]
    gen = (m.copysign(rx, x), m.copysign(ry, y))
    pio2 = m.copysign(PIO2, y)
    nan_xy = m.isnan(x) | m.isnan(y)
    small = (ax < p.sqrt_3_eps / 2) & (ay < p.sqrt_3_eps / 2)
    return first(m, gen,
                 ((y == 0) & (ax <= 1.0), (m.atanh(x), y)),         # real axis: +inf at 1
                 (x == 0, (x, m.atan(y))),                          # +0 + NaN j at 0 + NaN j
                 (nan_xy & m.isinf(x), (m.copysign(0.0, x), y + y)),
                 (nan_xy & m.isinf(y), (m.copysign(0.0, x), pio2)),
                 (nan_xy, (m.real(NAN), m.real(NAN))),
                 ((ax > p.recip_eps) | (ay > p.recip_eps), (_real_part_reciprocal(m, x, y), pio2)),
                 (small, (x, y)))


def atan(m: Math, a, b) -> tuple:
    return _times_i(atanh)(m, a, b)


# --------------------------------------------------------------------------- pow

def pow(m: Math, a, b, c, d) -> tuple:  # noqa: A001
    """numpy's ``npy_cpow``: exact small integer powers, else exp(w log z)."""
    one = (m.real(1.0), m.real(0.0))
    lr, li = log(m, a, b)
    general = exp(m, lr * c - li * d, lr * d + li * c)
    # Integer exponents -100 < n < 100 by repeated squaring, as numpy (1/z^|n| for n < 0).
    z = (a, b)
    ints = _int_power(m, z, m.fabs(c))
    inv = div(m, m.real(1.0), m.real(0.0), *ints)
    ints = m.csel(c < 0, inv, ints)
    n_int = (d == 0) & (c > -100.0) & (c < 100.0) & (m.roundeven(c) == c)
    sq = mul_plain(m, a, b, a, b)
    zero_base = (a == 0) & (b == 0)
    return first(m, general,
                 ((c == 0) & (d == 0), one),
                 (zero_base & (c > 0), (m.real(0.0), m.real(0.0))),
                 (zero_base, (m.real(NAN), m.real(NAN))),
                 (n_int & (c == 1.0), z),
                 (n_int & (c == 2.0), sq),
                 (n_int & (c == 3.0), mul_plain(m, a, b, *sq)),
                 (n_int, ints))


def _int_power(m: Math, z: tuple, n: Real) -> tuple:
    """z**n for integral 0 <= n < 128 by squaring: numpy's products, in its order."""
    acc = (m.real(1.0), m.real(0.0))
    p = z
    for _ in range(7):
        half = m.floor(n * 0.5)
        acc = m.csel(n - 2.0 * half == 1.0, mul_plain(m, *acc, *p), acc)
        p = mul_plain(m, *p, *p)
        n = half
    return acc
