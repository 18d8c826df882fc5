"""Steady-state workloads: the same computation called again and again.

lazyarray runs two ways: a prepared program (compiled once, then only the
native call plus argument checks) and implicit lazy evaluation (record the
expression, compute its structural key, hit the compile cache, run).
"""
from __future__ import annotations

import numpy as np

import lazyarray as xp

from ._cases import Case, Workload, against
from ._kernels import numba_kernels

CHAIN_EXPR = "exp(-x*x/2) * cos(3*x) + sqrt(abs(x)) * 0.5 - tanh(x)"


def chain(m, x):
    """The elementwise chain, for any namespace ``m`` (numpy, jax.numpy, lazyarray)."""
    return m.exp(-x * x / 2) * m.cos(3 * x) + m.sqrt(m.abs(x)) * 0.5 - m.tanh(x)


def sum_sin(m, x):
    return m.sum(m.sin(x) * x ** 2)


def _jax_case(libs, fn, *args) -> Case:
    def make():
        f = libs.jax.jit(fn)
        dev = [libs.jnp.asarray(a) for a in args]
        return lambda: f(*dev).block_until_ready()
    return Case("jax.jit", make)


def _lazy_cases(expr, *values, implicit: bool = True) -> list:
    """A prepared program of ``expr(*placeholders)`` and, optionally, implicit evaluation."""
    ref = expr(np, *values)

    def prepared():
        phs = [xp.placeholder(v.shape, xp.float64) for v in values]
        p = xp.compile(expr(xp, *phs), inputs=phs).prepare(*values)
        return lambda: p(*values)

    def lazy():
        arrs = [xp.asarray(v) for v in values]
        if np.ndim(ref) == 0:
            return lambda: float(expr(xp, *arrs))
        return lambda: np.asarray(expr(xp, *arrs))

    cases = [Case("lazyarray prepared", prepared, against(ref))]
    if implicit:
        cases.append(Case("lazyarray implicit", lazy, against(ref)))
    return cases


def sum_sin_cases(libs, n: int) -> list:
    xv = np.random.default_rng(0).uniform(0.0, 2.0, n)
    cases = [Case("numpy", lambda: lambda: sum_sin(np, xv))]
    if libs.numexpr is not None:
        ne = libs.numexpr
        cases.append(Case("numexpr", lambda: lambda: ne.evaluate("sum(sin(x)*x**2)",
                                                                 local_dict={"x": xv})))
    if libs.numba is not None:
        for fm in (False, True):
            k = numba_kernels(libs.numba, fm)["sum_sin"]
            cases.append(Case("numba fastmath" if fm else "numba", lambda k=k: lambda: k(xv)))
    if libs.jax is not None:
        cases.append(_jax_case(libs, lambda x: sum_sin(libs.jnp, x), xv))
    return cases + _lazy_cases(sum_sin, xv)


def chain_cases(libs, n: int = 10_000_000) -> list:
    xv = np.random.default_rng(1).uniform(-3.0, 3.0, n)
    cases = [Case("numpy", lambda: lambda: chain(np, xv))]
    if libs.numexpr is not None:
        ne = libs.numexpr
        cases.append(Case("numexpr", lambda: lambda: ne.evaluate(CHAIN_EXPR, local_dict={"x": xv})))
    if libs.numba is not None:
        k = numba_kernels(libs.numba)["chain"]
        cases.append(Case("numba", lambda: lambda: k(xv)))
    if libs.jax is not None:
        cases.append(_jax_case(libs, lambda x: chain(libs.jnp, x), xv))
    return cases + _lazy_cases(chain, xv)


def sum_axis1_cases(libs, shape=(4000, 2500)) -> list:
    xv = np.random.default_rng(2).uniform(-1.0, 1.0, shape)
    red = lambda m, x: m.sum(x, axis=1)  # noqa: E731
    cases = [Case("numpy", lambda: lambda: red(np, xv))]
    if libs.numexpr is not None:
        ne = libs.numexpr
        cases.append(Case("numexpr", lambda: lambda: ne.evaluate("sum(x, axis=1)",
                                                                 local_dict={"x": xv})))
    if libs.numba is not None:
        k = numba_kernels(libs.numba)["sum_axis1"]
        cases.append(Case("numba", lambda: lambda: k(xv)))
    if libs.jax is not None:
        cases.append(_jax_case(libs, lambda x: red(libs.jnp, x), xv))
    return cases + _lazy_cases(red, xv)


def matmul_cases(libs, n: int) -> list:
    rng = np.random.default_rng(3)
    a, b = rng.uniform(-1.0, 1.0, (n, n)), rng.uniform(-1.0, 1.0, (n, n))
    mm = lambda m, x, y: m.matmul(x, y)  # noqa: E731
    cases = [Case("numpy", lambda: lambda: a @ b)]
    if libs.jax is not None:
        cases.append(_jax_case(libs, lambda x, y: x @ y, a, b))
    # At 1024 implicit evaluation runs the same kernel as the prepared program:
    # it only adds the 64x64 row's fixed cost to a multi-second call.
    return cases + _lazy_cases(mm, a, b, implicit=n <= 256)


WORKLOADS = [
    Workload("overhead_n1", "fixed overhead: sum(sin(x)*x**2), n=1",
             lambda libs: sum_sin_cases(libs, 1)),
    Workload("sum_sin_1e3", "sum(sin(x)*x**2), n=1,000", lambda libs: sum_sin_cases(libs, 1000)),
    Workload("sum_sin_1e7", "sum(sin(x)*x**2), n=10,000,000",
             lambda libs: sum_sin_cases(libs, 10_000_000), big=True),
    Workload("chain_1e7", "exp(-x*x/2)*cos(3x)+sqrt(|x|)*0.5-tanh(x), n=1e7 (array out)",
             chain_cases, big=True),
    Workload("sum_axis1", "sum(x, axis=1), x 4000x2500", sum_axis1_cases),
    Workload("matmul_64", "matmul 64x64 @ 64x64", lambda libs: matmul_cases(libs, 64)),
    Workload("matmul_1024", "matmul 1024x1024 @ 1024x1024", lambda libs: matmul_cases(libs, 1024)),
]
