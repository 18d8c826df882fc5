"""The workload suite's programs as plain numba loops (``@njit``, parallel=False, no
fastmath): what a numba user would write.  Each takes the program's inputs and
returns the same tuple of outputs as ``_programs``; the constants are theirs."""
from __future__ import annotations

import functools
import math

import numpy as np

from . import _programs as P


@functools.lru_cache(maxsize=None)
def numba_programs(numba) -> dict:
    """name -> compiled function (compiled lazily, on first call)."""
    jit = numba.njit
    rate, vol, s0, strike, mat = P.RATE, P.VOL, P.S0, P.STRIKE, P.MATURITY
    window, steps, iters, lr, eps = (P.WINDOW, P.JACOBI_STEPS, P.MANDEL_ITERS,
                                     P.LEARNING_RATE, P.SOFTENING)

    @jit
    def cnd(d):
        k = 1.0 / (1.0 + 0.2316419 * abs(d))
        poly = k * (0.319381530 + k * (-0.356563782 + k * (1.781477937
                                                          + k * (-1.821255978 + k * 1.330274429))))
        w = 1.0 - 0.3989422804014327 * math.exp(-0.5 * d * d) * poly
        return 1.0 - w if d < 0 else w

    @jit
    def black_scholes(s, k, t):
        call, put = np.empty_like(s), np.empty_like(s)
        for i in range(s.shape[0]):
            st = math.sqrt(t[i])
            d1 = (math.log(s[i] / k[i]) + (rate + 0.5 * vol * vol) * t[i]) / (vol * st)
            d2 = d1 - vol * st
            disc = k[i] * math.exp(-rate * t[i])
            call[i] = s[i] * cnd(d1) - disc * cnd(d2)
            put[i] = disc * cnd(-d2) - s[i] * cnd(-d1)
        return call, put

    @jit
    def softmax(x):
        out, lse = np.empty_like(x), np.empty(x.shape[0])
        for i in range(x.shape[0]):
            m = x[i, 0]
            for j in range(1, x.shape[1]):
                m = max(m, x[i, j])
            s = 0.0
            for j in range(x.shape[1]):
                out[i, j] = math.exp(x[i, j] - m)
                s += out[i, j]
            for j in range(x.shape[1]):
                out[i, j] /= s
            lse[i] = math.log(s) + m
        return out, lse

    @jit
    def mlp(x, w1, b1, w2, b2):
        h = np.maximum(x @ w1 + b1, 0.0)    # numba's @ calls the same BLAS as numpy
        return (np.tanh(h @ w2 + b2),)

    @jit
    def pairwise(a, b):
        out = np.empty((a.shape[0], b.shape[0]))
        for i in range(a.shape[0]):
            for j in range(b.shape[0]):
                s = 0.0
                for k in range(a.shape[1]):
                    d = a[i, k] - b[j, k]
                    s += d * d
                out[i, j] = math.sqrt(s)
        return (out,)

    @jit
    def kmeans(x, c):
        labels = np.empty(x.shape[0], dtype=np.int64)
        inertia = 0.0
        for i in range(x.shape[0]):
            best, arg = np.inf, 0
            for j in range(c.shape[0]):
                s = 0.0
                for k in range(x.shape[1]):
                    d = x[i, k] - c[j, k]
                    s += d * d
                if s < best:
                    best, arg = s, j
            labels[i] = arg
            inertia += best
        return labels, inertia

    @jit
    def jacobi(u):
        u = u.copy()
        new = u.copy()
        for _ in range(steps):
            for i in range(1, u.shape[0] - 1):
                for j in range(1, u.shape[1] - 1):
                    new[i, j] = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1])
            u, new = new, u
        return (u,)

    @jit
    def nbody(p, m):
        f = np.zeros_like(p)
        for i in range(p.shape[0]):
            for j in range(p.shape[0]):
                dx, dy, dz = p[j, 0] - p[i, 0], p[j, 1] - p[i, 1], p[j, 2] - p[i, 2]
                w = m[j] * (dx * dx + dy * dy + dz * dz + eps) ** -1.5
                f[i, 0] += dx * w
                f[i, 1] += dy * w
                f[i, 2] += dz * w
        return (f,)

    @jit
    def mc_option(z):
        a, b = (rate - 0.5 * vol * vol) * mat, vol * math.sqrt(mat)
        df = math.exp(-rate * mat)
        s = s2 = 0.0
        for i in range(z.shape[0]):
            p = df * max(s0 * math.exp(a + b * z[i]) - strike, 0.0)
            s += p
            s2 += p * p
        n = z.shape[0]
        mean = s / n
        return mean, math.sqrt((s2 / n - mean * mean) / (n - 1))

    @jit
    def colstats(x):
        n, k = x.shape
        mu, sd = np.zeros(k), np.zeros(k)
        for i in range(n):
            for j in range(k):
                mu[j] += x[i, j]
        mu /= n
        for i in range(n):
            for j in range(k):
                sd[j] += (x[i, j] - mu[j]) ** 2
        sd = np.sqrt(sd / n)
        z = np.empty_like(x)
        for i in range(n):
            for j in range(k):
                z[i, j] = (x[i, j] - mu[j]) / sd[j]
        return z, mu, sd

    @jit
    def moving_avg(x):
        n = x.shape[0]
        c = np.empty(n + 1)
        c[0] = 0.0
        for i in range(n):
            c[i + 1] = c[i] + x[i]
        ma, dev = np.empty(n - window + 1), np.empty(n - window + 1)
        for i in range(n - window + 1):
            ma[i] = (c[i + window] - c[i]) / window
            dev[i] = x[i + window - 1] - ma[i]
        return c, ma, dev

    @jit
    def mandelbrot(re, im):
        count = np.zeros((im.shape[0], re.shape[0]))
        for i in range(im.shape[0]):
            for j in range(re.shape[0]):
                zr = zi = 0.0
                for _ in range(iters):
                    zr2, zi2 = zr * zr, zi * zi
                    if zr2 + zi2 > 4.0:
                        break   # escaped: where() keeps z; the count stops growing
                    count[i, j] += 1.0
                    zi = 2.0 * zr * zi + im[i]
                    zr = zr2 - zi2 + re[j]
        return (count,)

    @jit
    def gd_loop(x, y, w):
        r = x @ w - y
        return w - lr * 2.0 * (x.T @ r), (r * r).sum()

    return {"black_scholes": black_scholes, "softmax": softmax, "mlp": mlp,
            "pairwise": pairwise, "kmeans": kmeans, "jacobi": jacobi, "nbody": nbody,
            "mc_option": mc_option, "colstats": colstats, "moving_avg": moving_avg,
            "mandelbrot": mandelbrot, "gd_loop": gd_loop}
