"""Workloads that measure the cost around the computation: compiling a new
program, calling a new closure over new data, recording an op.

For the first-call workload every call builds a structurally new op chain
(8 ops drawn from ``POOL`` by the digits of a counter), so each call really
traces and compiles; the case notes count the compiles to prove it.
"""
from __future__ import annotations

import itertools
import logging
import random
from typing import Callable

import numpy as np

import lazyarray as xp

from ._cases import Case, Workload, mismatch

POOL = ("sin", "cos", "tanh", "atan", "mul", "add", "sqrtabs")
CHAIN_LEN = 8
N_SMALL = 1000


def apply_op(m, op: str, v):
    """One op of ``POOL`` for namespace ``m`` (numpy, jax.numpy, lazyarray)."""
    if op == "mul":
        return v * 0.75
    if op == "add":
        return v + 0.25
    if op == "sqrtabs":
        return m.sqrt(m.abs(v))
    return getattr(m, op)(v)


def op_chain(i: int) -> tuple:
    """The ``i``-th op sequence: the base-7 digits of ``i`` (distinct for distinct i)."""
    seq = []
    for _ in range(CHAIN_LEN):
        i, d = divmod(i, len(POOL))
        seq.append(POOL[d])
    return tuple(seq)


def chain_sum(m, seq: tuple) -> Callable:
    def f(x):
        v = x
        for op in seq:
            v = apply_op(m, op, v)
        return m.sum(v)
    return f


_NUMBA_OPS = {"sin": "np.sin(v)", "cos": "np.cos(v)", "tanh": "np.tanh(v)",
              "atan": "np.arctan(v)", "mul": "v * 0.75", "add": "v + 0.25",
              "sqrtabs": "np.sqrt(np.abs(v))"}


def numba_chain_sum(numba, seq: tuple) -> Callable:
    """A new @njit loop for ``seq`` (generated source: numba compiles per function)."""
    body = "".join(f"        v = {_NUMBA_OPS[op]}\n" for op in seq)
    src = ("def f(x):\n    s = 0.0\n    for i in range(x.shape[0]):\n        v = x[i]\n"
           f"{body}        s += v\n    return s\n")
    ns = {"np": np}
    exec(src, ns)  # noqa: S102 - our own generated source
    return numba.njit(ns["f"])


class _XlaCompiles(logging.Handler):
    """Counts XLA compilations through jax's compile log."""

    def __init__(self, jax) -> None:
        super().__init__(logging.WARNING)
        self.jax, self.count = jax, 0

    def emit(self, record: logging.LogRecord) -> None:
        if record.getMessage().startswith("Finished XLA compilation"):
            self.count += 1

    def __enter__(self) -> "_XlaCompiles":
        self.jax.config.update("jax_log_compiles", True)
        logging.getLogger("jax").addHandler(self)
        return self

    def stop(self) -> None:
        logging.getLogger("jax").removeHandler(self)
        self.jax.config.update("jax_log_compiles", False)


class _Counter:
    """Calls made, and a before/after reading of some compile counter."""

    def __init__(self, what: str, read: Callable[[], int],
                 stop: Callable[[], None] = lambda: None) -> None:
        self.what, self.read, self.stop_fn = what, read, stop
        self.calls = 0
        self.start = read()

    def note(self) -> str:
        grown = self.read() - self.start
        self.stop_fn()
        return f"{self.what} +{grown} over {self.calls} calls"


LAZY_MISSES = "compile_cache_info().misses"


def _lazy_misses() -> int:
    return xp.compile_cache_info().misses


def _check_chain(xv: np.ndarray):
    def check(res):
        value, seq = res
        return mismatch(value, chain_sum(np, seq)(xv))
    return check


def first_call_cases(libs) -> list:
    xv = np.random.default_rng(4).uniform(0.0, 2.0, N_SMALL)
    # Shared by all rows: no row ever sees another row's program.  A random start keeps
    # an earlier run's programs (kept in the disk cache) out of this one: 7**8 chains.
    ids = itertools.count(random.SystemRandom().randrange(len(POOL) ** CHAIN_LEN - 1000))

    def lazy(jit: bool):
        def make():
            warm = xp.placeholder((3,), xp.float64)
            xp.compile(xp.sum(xp.log1p(warm * warm)), inputs=[warm]).prepare(np.ones(3))
            c = _Counter(LAZY_MISSES, _lazy_misses)
            state["lazy jit" if jit else "lazy implicit"] = c

            def run():
                c.calls += 1
                seq = op_chain(next(ids))
                f = chain_sum(xp, seq)
                return (float(xp.jit(f)(xv)) if jit else float(f(xp.asarray(xv)))), seq
            return run
        return make

    state: dict = {}
    cases = [Case("lazyarray jit", lazy(True), _check_chain(xv), memory=False, fresh=True,
                  after=lambda: state["lazy jit"].note()),
             Case("lazyarray implicit", lazy(False), _check_chain(xv), memory=False,
                  fresh=True, after=lambda: state["lazy implicit"].note())]
    if libs.jax is not None:
        jax, jnp = libs.jax, libs.jnp

        def make_jax():
            xj = jnp.asarray(xv)
            jax.jit(lambda x: jnp.sum(jnp.log1p(x * x)))(xj).block_until_ready()
            h = _XlaCompiles(jax).__enter__()
            c = state["jax"] = _Counter("XLA compiles", lambda: h.count, h.stop)

            def run():
                c.calls += 1
                seq = op_chain(next(ids))
                return float(jax.jit(chain_sum(jnp, seq))(xj)), seq
            return run
        cases.append(Case("jax.jit", make_jax, memory=False, fresh=True,
                          after=lambda: state["jax"].note()))
    if libs.numba is not None:
        def make_numba():
            numba_chain_sum(libs.numba, ("sin",))(xv)  # numba's own first-use cost

            def run():
                seq = op_chain(next(ids))
                return numba_chain_sum(libs.numba, seq)(xv), seq
            return run
        cases.append(Case("numba", make_numba, memory=False, fresh=True))
    return cases


def closure_cases(libs) -> list:
    rng = np.random.default_rng(5)
    xv = rng.uniform(0.0, 2.0, N_SMALL)
    ws = [rng.uniform(-1.0, 1.0, N_SMALL) for _ in range(64)]
    ids = itertools.count()
    state: dict = {}

    def check(res):
        value, i = res
        return mismatch(value, np.sum(np.sin(xv) * ws[i % len(ws)]))

    def make_numpy():
        def run():
            i = next(ids)
            return np.sum(np.sin(xv) * ws[i % len(ws)]), i
        return run

    def make_lazy():
        def run():
            i = next(ids)
            w = xp.asarray(ws[i % len(ws)])
            g = xp.jit(lambda x: xp.sum(xp.sin(x) * w))
            return float(g(xv)), i
        run()  # the one compile this structure needs
        c = state["lazy"] = _Counter(LAZY_MISSES, _lazy_misses)

        def counted():
            c.calls += 1
            return run()
        return counted

    cases = [Case("numpy", make_numpy),
             Case("lazyarray jit", make_lazy, check, after=lambda: state["lazy"].note())]
    if libs.jax is not None:
        jax, jnp = libs.jax, libs.jnp

        def make_jax():
            xj = jnp.asarray(xv)

            def run():
                i = next(ids)
                w = jnp.asarray(ws[i % len(ws)])
                return float(jax.jit(lambda x: jnp.sum(jnp.sin(x) * w))(xj)), i
            run()
            h = _XlaCompiles(jax).__enter__()
            c = state["jax"] = _Counter("XLA compiles", lambda: h.count, h.stop)

            def counted():
                c.calls += 1
                return run()
            return counted
        cases.append(Case("jax.jit", make_jax, after=lambda: state["jax"].note()))
    return cases


RECORD_OPS = 1000
_REC_POOL = ("sin", "mul", "cos", "add", "tanh", "atan")  # one array op each


def _record(m, x):
    v = x
    for k in range(RECORD_OPS):
        v = apply_op(m, _REC_POOL[k % len(_REC_POOL)], v)
    return v


def record_cases(libs) -> list:
    def make_lazy():
        return lambda: _record(xp, xp.placeholder((N_SMALL,), xp.float64))

    def make_numpy():
        one = np.ones(1)
        return lambda: _record(np, one)

    cases = [Case("numpy eager, n=1", make_numpy, memory=False, per=RECORD_OPS),
             Case("lazyarray record", make_lazy, memory=False, per=RECORD_OPS)]
    if libs.jax is not None:
        jax, jnp = libs.jax, libs.jnp

        def make_jax():
            spec = jax.ShapeDtypeStruct((N_SMALL,), jnp.float64)
            # a new function each call: make_jaxpr may cache traces per function
            return lambda: jax.make_jaxpr(lambda x: _record(jnp, x))(spec)
        cases.append(Case("jax.make_jaxpr", make_jax, memory=False, per=RECORD_OPS))
    return cases


WORKLOADS = [
    Workload("first_call", f"first call of a new program ({CHAIN_LEN}-op chain + sum, "
             f"n={N_SMALL}): record+compile+run", first_call_cases),
    Workload("new_closure", f"new closure over new data, same shape (n={N_SMALL}): "
             "jit(lambda x: sum(sin(x)*w))", closure_cases),
    Workload("record_per_op", f"recording cost per op (chain of {RECORD_OPS} elementwise ops)",
             record_cases),
]
