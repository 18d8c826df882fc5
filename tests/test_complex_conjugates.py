"""Complex functions of conjugate pairs that sit in one array.

A vectorised loop runs its body through libmvec and its tail through scalar libm, and
the two differ in the last bits; a complex function built on them gave z and conj(z)
results that were not conjugates when one of them took the vector path (scipy's
cheby1 then found its poles not in conjugate pairs and returned complex
coefficients).  numpy calls glibc's scalar complex functions, so exp, sin, cos, sinh,
and cosh must match it bit for bit, and every function must be conjugate
symmetric, wherever the pair sits.  Each tier runs in a process of its own, after the
optimised building blocks are loaded (the quick ones a new machine starts with are
scalar and would hide the vector path).
"""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

CHILD = """
import numpy as np, lazyarray as xp
from lazyarray.backend import library, native
native.get(library.bundle_unit())  # the vectorised blocks, not the quick scalar ones
EXACT = ("exp", "sin", "cos", "sinh", "cosh")  # numpy's abs is its own hypot, not libm's
SYMMETRIC = EXACT + ("abs", "sqrt", "log", "tan", "tanh", "expm1", "log1p", "asinh", "atan")
rng = np.random.default_rng(3)
bad = []
for n in (2, 8, 10, 18, 38):  # element i (vector body) pairs with n-1-i (the tail)
    for dt in ("complex128", "complex64"):
        h = rng.uniform(-3, 3, n // 2) + 1j * rng.uniform(0.1, 3, n // 2)
        z = np.concatenate([h, np.conj(h)[::-1]]).astype(dt)
        for f in SYMMETRIC:
            w = np.asarray(getattr(xp, f)(xp.asarray(z)))
            if f in EXACT and not np.array_equal(w, getattr(np, f)(z)):
                bad.append(f"{f} {dt} n={n}: differs from numpy")
            if not np.array_equal(w[::-1], np.conj(w)):  # abs: w[::-1] == w
                bad.append(f"{f} {dt} n={n}: not conjugate symmetric")
# scipy's cheb1ap: its poles, -sinh(mu + j theta), pair up (the middle one is real)
q = np.asarray(-xp.sinh(0.1 + 1j * (xp.pi * xp.arange(-4, 5, 2, dtype=xp.float64) / 10)))
if not np.array_equal(q[:2], np.conj(q[:-3:-1])):
    bad.append(f"cheb1ap poles not conjugate: {q}")
print(bad)
"""


@pytest.mark.parametrize("tier", ["interpret", "compile"])
def test_conjugate_pairs_give_conjugate_results(tier):
    env = dict(os.environ, LAZYARRAY_TIER=tier)
    out = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True,
                         text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]", out.stdout
