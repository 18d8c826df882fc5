"""numba kernels for the steady-state workloads, compiled on first use."""
from __future__ import annotations

import functools

import numpy as np


@functools.lru_cache(maxsize=None)
def numba_kernels(numba, fastmath: bool = False) -> dict:
    """name -> @njit function (plain loops: what a numba user would write)."""
    jit = numba.njit(fastmath=fastmath)

    @jit
    def sum_sin(x):
        s = 0.0
        for i in range(x.shape[0]):
            s += np.sin(x[i]) * x[i] ** 2
        return s

    @jit
    def chain(x):
        out = np.empty_like(x)
        for i in range(x.shape[0]):
            v = x[i]
            out[i] = np.exp(-v * v / 2) * np.cos(3 * v) + np.sqrt(np.abs(v)) * 0.5 - np.tanh(v)
        return out

    @jit
    def sum_axis1(x):
        out = np.empty(x.shape[0])
        for i in range(x.shape[0]):
            s = 0.0
            for j in range(x.shape[1]):
                s += x[i, j]
            out[i] = s
        return out

    return {"sum_sin": sum_sin, "chain": chain, "sum_axis1": sum_axis1}
