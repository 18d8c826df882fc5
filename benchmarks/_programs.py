"""Realistic array programs for the workload suite, written once against the array API.

Every program is a function ``fn(xp, *inputs)`` that takes the namespace (numpy,
jax.numpy, lazyarray) and numpy-made inputs and returns a tuple of outputs (arrays
or 0-d arrays).  ``inputs(size)`` makes the inputs for ``"tiny"`` (for the test),
``"small"`` (1e3-1e4 elements) and ``"large"`` (about 1e7 elements or a 2000x2000
matrix) from a fixed seed.  ``numexpr`` is the same computation with numexpr doing
the elementwise work (numpy glue where numexpr has no such op), or None with the
reason in ``no_numexpr``.  The numba versions are in ``_numba_programs.py``.

The iterative solver is different: ``fn`` is one step ``(xp, X, y, w) -> (w, loss)``
and ``run_loop`` drives it from Python, reading ``float(loss)`` every iteration.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Optional

import numpy as np

RATE, VOL = 0.02, 0.3            # Black-Scholes and Monte Carlo market parameters
S0, STRIKE, MATURITY = 100.0, 105.0, 1.0
WINDOW = 50                      # moving-average window
JACOBI_STEPS = 4
MANDEL_ITERS = 16
LEARNING_RATE = 0.1
SOFTENING = 1e-3


@dataclass(frozen=True)
class Program:
    """One workload: the program, its inputs per size, its numexpr version."""

    name: str
    title: str
    fn: Callable[..., tuple]
    inputs: Callable[[str], tuple]
    sizes: dict                       # size -> a description of the inputs
    numexpr: Optional[Callable[..., tuple]] = None
    no_numexpr: str = ""
    loop: bool = False                # fn is one step of run_loop


def _rng(name: str) -> np.random.Generator:
    return np.random.default_rng(sum(map(ord, name)))


# ---- option pricing ---------------------------------------------------------------

def _cnd(xp, d):
    """Standard normal CDF by Abramowitz-Stegun 26.2.17 (the classic Black-Scholes
    benchmark's polynomial: the array API has no erf)."""
    k = 1.0 / (1.0 + 0.2316419 * xp.abs(d))
    poly = k * (0.319381530 + k * (-0.356563782 + k * (1.781477937
                                                      + k * (-1.821255978 + k * 1.330274429))))
    w = 1.0 - 0.3989422804014327 * xp.exp(-0.5 * d * d) * poly
    return xp.where(d < 0, 1.0 - w, w)


def black_scholes(xp, s, k, t):
    """European call and put prices for arrays of spots, strikes and maturities."""
    sqrt_t = xp.sqrt(t)
    d1 = (xp.log(s / k) + (RATE + 0.5 * VOL * VOL) * t) / (VOL * sqrt_t)
    d2 = d1 - VOL * sqrt_t
    disc = k * xp.exp(-RATE * t)
    call = s * _cnd(xp, d1) - disc * _cnd(xp, d2)
    put = disc * _cnd(xp, -d2) - s * _cnd(xp, -d1)
    return call, put


_NE_CND = ("where({d} < 0, 1 - (1 - 0.3989422804014327 * exp(-0.5*{d}*{d}) * {p}), "
           "1 - 0.3989422804014327 * exp(-0.5*{d}*{d}) * {p})")
_NE_POLY = ("k*(0.319381530 + k*(-0.356563782 + k*(1.781477937 + k*(-1.821255978 "
            "+ k*1.330274429))))")


def black_scholes_ne(ne, s, k, t):
    """numexpr: d1, d2 as arrays, then each CDF and price as one expression."""
    v = {"r": RATE, "v": VOL}
    d1 = ne.evaluate("(log(s/k) + (r + 0.5*v*v)*t) / (v*sqrt(t))", local_dict=dict(v, s=s, k=k, t=t))
    d2 = ne.evaluate("d1 - v*sqrt(t)", local_dict=dict(v, d1=d1, t=t))

    def cnd(d):
        kk = ne.evaluate("1 / (1 + 0.2316419*abs(d))", local_dict={"d": d})
        return ne.evaluate(_NE_CND.format(d="d", p=_NE_POLY), local_dict={"d": d, "k": kk})
    n1, n2, m1, m2 = cnd(d1), cnd(d2), cnd(-d1), cnd(-d2)
    env = dict(v, s=s, k=k, t=t, n1=n1, n2=n2, m1=m1, m2=m2)
    call = ne.evaluate("s*n1 - k*exp(-r*t)*n2", local_dict=env)
    put = ne.evaluate("k*exp(-r*t)*m2 - s*m1", local_dict=env)
    return call, put


def _bs_inputs(size):
    n = {"tiny": 100, "small": 10_000, "large": 10_000_000}[size]
    g = _rng("bs")
    return g.uniform(50, 150, n), g.uniform(50, 150, n), g.uniform(0.1, 2.0, n)


# ---- softmax and log-sum-exp ------------------------------------------------------

def softmax_lse(xp, x):
    """Row-wise softmax and log-sum-exp of a batch of logits, max-shifted."""
    m = xp.max(x, axis=1, keepdims=True)
    e = xp.exp(x - m)
    s = xp.sum(e, axis=1, keepdims=True)
    return e / s, xp.log(s[:, 0]) + m[:, 0]


def softmax_lse_ne(ne, x):
    m = np.max(x, axis=1, keepdims=True)   # numexpr reduces only as the last op
    e = ne.evaluate("exp(x - m)")
    s = ne.evaluate("sum(e, axis=1)")[:, None]
    return ne.evaluate("e / s"), ne.evaluate("log(s2) + m2", local_dict={"s2": s[:, 0], "m2": m[:, 0]})


def _softmax_inputs(size):
    shape = {"tiny": (4, 25), "small": (10, 1000), "large": (1000, 10_000)}[size]
    return (_rng("softmax").normal(0, 3, shape),)


# ---- neural-network layer ---------------------------------------------------------

def mlp(xp, x, w1, b1, w2, b2):
    """Two-layer perceptron forward pass: relu hidden layer, tanh output."""
    h = xp.maximum(xp.matmul(x, w1) + b1, 0.0)
    return (xp.tanh(xp.matmul(h, w2) + b2),)


def _mlp_inputs(size):
    b, i, h, o = {"tiny": (4, 8, 8, 4), "small": (64, 64, 64, 16),
                  "large": (2000, 2000, 1000, 100)}[size]
    g = _rng("mlp")
    return (g.normal(0, 1, (b, i)), g.normal(0, 1 / math.sqrt(i), (i, h)), g.normal(0, 0.1, h),
            g.normal(0, 1 / math.sqrt(h), (h, o)), g.normal(0, 0.1, o))


# ---- distance matrices and clustering ---------------------------------------------

def pairwise(xp, a, b):
    """Euclidean distance matrix between two point sets (broadcast, square, reduce)."""
    d = xp.expand_dims(a, axis=1) - xp.expand_dims(b, axis=0)
    return (xp.sqrt(xp.sum(d * d, axis=2)),)


def pairwise_ne(ne, a, b):
    d2 = ne.evaluate("sum((p - q)**2, axis=2)", local_dict={"p": a[:, None, :], "q": b[None, :, :]})
    return (ne.evaluate("sqrt(d2)"),)


def _pairwise_inputs(size):
    n, m = {"tiny": (10, 7), "small": (100, 30), "large": (2000, 1500)}[size]
    g = _rng("pairwise")
    return g.uniform(0, 1, (n, 3)), g.uniform(0, 1, (m, 3))


def kmeans_assign(xp, x, c):
    """k-means assignment step: nearest centroid per point and the inertia."""
    d = xp.expand_dims(x, axis=1) - xp.expand_dims(c, axis=0)
    d2 = xp.sum(d * d, axis=2)
    return xp.argmin(d2, axis=1), xp.sum(xp.min(d2, axis=1))


def _kmeans_inputs(size):
    n, d, k = {"tiny": (20, 2, 3), "small": (250, 4, 8), "large": (300_000, 4, 8)}[size]
    g = _rng("kmeans")
    return g.normal(0, 1, (n, d)), g.normal(0, 1, (k, d))


# ---- stencil ----------------------------------------------------------------------

def jacobi(xp, u):
    """Jacobi sweeps of Laplace's equation on a grid with fixed boundary, from slices;
    the new interior is put back between the boundary rows and columns with concat."""
    for _ in range(JACOBI_STEPS):
        inner = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
        mid = xp.concat([u[1:-1, :1], inner, u[1:-1, -1:]], axis=1)
        u = xp.concat([u[:1, :], mid, u[-1:, :]], axis=0)
    return (u,)


def jacobi_ne(ne, u):
    for _ in range(JACOBI_STEPS):
        inner = ne.evaluate("0.25*(a + b + c + d)", local_dict={
            "a": u[:-2, 1:-1], "b": u[2:, 1:-1], "c": u[1:-1, :-2], "d": u[1:-1, 2:]})
        mid = np.concatenate([u[1:-1, :1], inner, u[1:-1, -1:]], axis=1)
        u = np.concatenate([u[:1, :], mid, u[-1:, :]], axis=0)
    return (u,)


def _jacobi_inputs(size):
    n = {"tiny": 8, "small": 64, "large": 3000}[size]
    return (_rng("jacobi").uniform(0, 1, (n, n)),)


# ---- particle interactions --------------------------------------------------------

def nbody(xp, p, m):
    """Softened gravitational forces on every particle: broadcast to (n, n, 3), reduce."""
    d = xp.expand_dims(p, axis=0) - xp.expand_dims(p, axis=1)     # d[i, j] = p[j] - p[i]
    r2 = xp.sum(d * d, axis=2) + SOFTENING
    w = m * (r2 ** -1.5)
    return (xp.sum(d * xp.expand_dims(w, axis=2), axis=1),)


def nbody_ne(ne, p, m):
    pi, pj = p[:, None, :], p[None, :, :]
    r2 = ne.evaluate("sum((pj - pi)**2, axis=2)")
    w = ne.evaluate("m * (r2 + eps)**-1.5", local_dict={"m": m, "r2": r2, "eps": SOFTENING})
    return (ne.evaluate("sum((pj - pi) * w3, axis=1)", local_dict={"pi": pi, "pj": pj,
                                                                   "w3": w[:, :, None]}),)


def _nbody_inputs(size):
    n = {"tiny": 8, "small": 50, "large": 1800}[size]
    g = _rng("nbody")
    return g.normal(0, 1, (n, 3)), g.uniform(0.5, 1.5, n)


# ---- Monte Carlo ------------------------------------------------------------------

def mc_option(xp, z):
    """Monte Carlo price and standard error of a European call from given normal draws."""
    drift = (RATE - 0.5 * VOL * VOL) * MATURITY
    st = S0 * xp.exp(drift + VOL * math.sqrt(MATURITY) * z)
    pay = math.exp(-RATE * MATURITY) * xp.maximum(st - STRIKE, 0.0)
    n = pay.shape[0]
    mean = xp.sum(pay) / n
    return mean, xp.sqrt((xp.sum(pay * pay) / n - mean * mean) / (n - 1))


def mc_option_ne(ne, z):
    env = {"z": z, "a": (RATE - 0.5 * VOL * VOL) * MATURITY, "b": VOL * math.sqrt(MATURITY),
           "s0": S0, "k": STRIKE, "df": math.exp(-RATE * MATURITY)}
    pay = ne.evaluate("df * where(s0*exp(a + b*z) > k, s0*exp(a + b*z) - k, 0)", local_dict=env)
    n = z.shape[0]
    mean = ne.evaluate("sum(pay)") / n
    return mean, np.sqrt((ne.evaluate("sum(pay*pay)") / n - mean * mean) / (n - 1))


def _mc_inputs(size):
    n = {"tiny": 100, "small": 10_000, "large": 10_000_000}[size]
    return (_rng("mc").standard_normal(n),)


# ---- column statistics ------------------------------------------------------------

def colstats(xp, x):
    """Per-column mean and standard deviation, and the standardised table."""
    mu = xp.mean(x, axis=0)
    sd = xp.std(x, axis=0)
    return (x - mu) / sd, mu, sd


def colstats_ne(ne, x):
    n = x.shape[0]
    mu = ne.evaluate("sum(x, axis=0)") / n
    sd = np.sqrt(ne.evaluate("sum((x - mu)**2, axis=0)") / n)
    return ne.evaluate("(x - mu) / sd"), mu, sd


def _colstats_inputs(size):
    shape = {"tiny": (10, 4), "small": (100, 50), "large": (10_000, 1000)}[size]
    return (_rng("colstats").normal(5, 2, shape),)


# ---- scans ------------------------------------------------------------------------

def moving_average(xp, x):
    """Running total, the trailing WINDOW-point moving average from it, and each
    point's deviation from its trailing average."""
    c = xp.cumulative_sum(x, include_initial=True)
    ma = (c[WINDOW:] - c[:-WINDOW]) / WINDOW
    return c, ma, x[WINDOW - 1:] - ma


def _scan_inputs(size):
    n = {"tiny": 200, "small": 10_000, "large": 10_000_000}[size]
    return (_rng("scan").normal(0, 1, n),)


# ---- escape-time fractal ----------------------------------------------------------

def mandelbrot(xp, re, im):
    """Escape-time counts of MANDEL_ITERS iterations on the grid re x im, with where."""
    cr = xp.broadcast_to(xp.reshape(re, (1, re.shape[0])), (im.shape[0], re.shape[0]))
    ci = xp.broadcast_to(xp.reshape(im, (im.shape[0], 1)), (im.shape[0], re.shape[0]))
    zr = xp.zeros(cr.shape, dtype=cr.dtype)
    zi = xp.zeros(cr.shape, dtype=cr.dtype)
    count = xp.zeros(cr.shape, dtype=cr.dtype)
    for _ in range(MANDEL_ITERS):
        zr2, zi2 = zr * zr, zi * zi
        inside = zr2 + zi2 <= 4.0
        count = count + xp.astype(inside, cr.dtype)
        zi = xp.where(inside, 2.0 * zr * zi + ci, zi)
        zr = xp.where(inside, zr2 - zi2 + cr, zr)
    return (count,)


def mandelbrot_ne(ne, re, im):
    cr, ci = re[None, :], im[:, None]
    shape = (im.shape[0], re.shape[0])
    zr, zi, count = np.zeros(shape), np.zeros(shape), np.zeros(shape)
    for _ in range(MANDEL_ITERS):
        env = {"zr": zr, "zi": zi, "cr": cr, "ci": ci, "count": count}
        inside = ne.evaluate("zr*zr + zi*zi <= 4", local_dict=env)
        env["inside"] = inside
        count = ne.evaluate("count + where(inside, 1.0, 0.0)", local_dict=env)
        zi_new = ne.evaluate("where(inside, 2*zr*zi + ci, zi)", local_dict=env)
        zr = ne.evaluate("where(inside, zr*zr - zi*zi + cr, zr)", local_dict=env)
        zi = zi_new
    return (count,)


def _mandel_inputs(size):
    w, h = {"tiny": (12, 10), "small": (100, 100), "large": (3000, 3000)}[size]
    return np.linspace(-2.0, 0.6, w), np.linspace(-1.2, 1.2, h)


# ---- iterative solver -------------------------------------------------------------

def gd_step(xp, x, y, w):
    """One gradient-descent step of least squares; returns the new weights and the loss
    at the old ones."""
    r = xp.matmul(x, w) - y
    loss = xp.sum(r * r)
    return w - LEARNING_RATE * 2.0 * xp.matmul(x.T, r), loss


def run_loop(step: Callable, w0: Any, iters: int, read=float) -> tuple:
    """The user's loop: step, then read the loss as a Python float every iteration."""
    w, loss = w0, 0.0
    for _ in range(iters):
        w, loss_arr = step(w)
        loss = read(loss_arr)
    return w, loss


def _gd_inputs(size):
    m, d = {"tiny": (20, 5), "small": (100, 20), "large": (2000, 2000)}[size]
    g = _rng("gd")
    x = g.normal(0, 1, (m, d)) / math.sqrt(m)
    return x, x @ g.normal(0, 1, d) + g.normal(0, 0.1, m), np.zeros(d)


def _sz(**kw) -> dict:
    return kw


PROGRAMS = [
    Program("black_scholes", "Black-Scholes call and put (two outputs)", black_scholes,
            _bs_inputs, _sz(small="n=1e4", large="n=1e7"), black_scholes_ne),
    Program("softmax", "row softmax and log-sum-exp", softmax_lse, _softmax_inputs,
            _sz(small="10x1000", large="1000x10000"), softmax_lse_ne),
    Program("mlp", "MLP forward: matmul+bias+relu, matmul+bias+tanh", mlp, _mlp_inputs,
            _sz(small="64x64 @ 64x64 @ 64x16", large="2000x2000 @ 2000x1000 @ 1000x100"),
            no_numexpr="matmul"),
    Program("pairwise", "pairwise Euclidean distances (broadcast, reduce, sqrt)", pairwise,
            _pairwise_inputs, _sz(small="100 x 30 points in 3-d", large="2000 x 1500 points in 3-d"),
            pairwise_ne),
    Program("kmeans", "k-means assignment: argmin of distances, inertia", kmeans_assign,
            _kmeans_inputs, _sz(small="250 points, 8 centroids, 4-d",
                                large="300,000 points, 8 centroids, 4-d"),
            no_numexpr="argmin/min along an axis"),
    Program("jacobi", f"{JACOBI_STEPS} Jacobi sweeps from slices + concat", jacobi, _jacobi_inputs,
            _sz(small="64x64", large="3000x3000"), jacobi_ne),
    Program("nbody", "n-body forces, broadcast (n,n,3) then reduce", nbody, _nbody_inputs,
            _sz(small="n=50", large="n=1800"), nbody_ne),
    Program("mc_option", "Monte Carlo call price and std error from given draws", mc_option,
            _mc_inputs, _sz(small="n=1e4", large="n=1e7"), mc_option_ne),
    Program("colstats", "column mean, std and standardised table", colstats, _colstats_inputs,
            _sz(small="100x50", large="10000x1000"), colstats_ne),
    Program("moving_avg", f"cumulative_sum, {WINDOW}-point moving average, drawdown",
            moving_average, _scan_inputs, _sz(small="n=1e4", large="n=1e7"),
            no_numexpr="no scan (cumulative_sum)"),
    Program("mandelbrot", f"Mandelbrot escape counts, {MANDEL_ITERS} iterations, where",
            mandelbrot, _mandel_inputs, _sz(small="100x100", large="3000x3000"), mandelbrot_ne),
    Program("gd_loop", "gradient descent, float(loss) every iteration", gd_step, _gd_inputs,
            _sz(small="X 100x20", large="X 2000x2000"), no_numexpr="matmul", loop=True),
]

BY_NAME = {p.name: p for p in PROGRAMS}
