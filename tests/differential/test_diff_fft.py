"""The ``fft`` extension against array-api-strict.

Transforms run on every dtype they allow, with ``n``/``s`` (cropping and zero
padding), ``axis``/``axes`` and all three ``norm`` modes; they compare within
a tolerance relative to the transform's scale (``sum(|x|)``), since an FFT's
rounding error grows with its length and inputs.  ``fftfreq``/``rfftfreq``
and the shifts compare exactly (up to rounding of ``1/(n*d)``).
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from _diff import COMPLEX, FLOATING, REAL_FLOATING, arrays, check, examples, run_both, sd, shapes

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

FEW = examples(3)
NORMS = ["backward", "ortho", "forward"]
ONE_D = {"fft": COMPLEX, "ifft": COMPLEX, "rfft": REAL_FLOATING, "irfft": COMPLEX,
         "hfft": COMPLEX, "ihfft": REAL_FLOATING}
N_D = {"fftn": COMPLEX, "ifftn": COMPLEX, "rfftn": REAL_FLOATING, "irfftn": COMPLEX}


def _finite(dtype: str):
    width = 32 if dtype in ("float32", "complex64") else 64
    part = st.floats(-100, 100, width=width)
    return st.builds(complex, part, part) if dtype in COMPLEX else part


def _tol(x, dtype: str, length: int) -> dict:
    eps = float(np.finfo(np.dtype(dtype)).eps)
    scale = float(np.sum(np.abs(np.asarray(x)))) + 1.0
    k = 16 * max(1, math.ceil(math.log2(max(length, 2))))
    return dict(rtol=k * eps, atol=k * eps * scale, zero_sign=False)


@pytest.mark.parametrize("fname,dtype", [(f, d) for f, ds in ONE_D.items() for d in ds])
@FEW
@given(data=st.data())
def test_one_dimensional(fname: str, dtype: str, data) -> None:
    x = data.draw(arrays(dtype, shapes(min_dims=1, max_dims=2, min_side=1, max_side=5),
                         elements_=_finite(dtype)), label="x")
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1), label="axis")
    min_n = 2 if fname in ("irfft", "hfft") else 1  # an output length of at least 1
    n = data.draw(st.none() | st.integers(min_n, 7), label="n")
    if n is None and fname in ("irfft", "hfft") and x.shape[axis] < 2:
        n = 2
    norm = data.draw(st.sampled_from(NORMS), label="norm")
    got, want = run_both(f"fft.{fname}", x, n=n, axis=axis, norm=norm)
    length = max(x.shape[axis], n or 0) * 2
    check(got, want, where=f"{fname}(n={n}, axis={axis}, norm={norm})",
          **_tol(x, str(np.asarray(want).dtype), length))


@pytest.mark.parametrize("fname,dtype", [(f, d) for f, ds in N_D.items() for d in ds])
@FEW
@given(data=st.data())
def test_n_dimensional(fname: str, dtype: str, data) -> None:
    x = data.draw(arrays(dtype, shapes(min_dims=1, max_dims=3, min_side=1, max_side=4),
                         elements_=_finite(dtype)), label="x")
    k = data.draw(st.integers(1, x.ndim), label="n axes")
    axes = data.draw(st.permutations(range(x.ndim)), label="axes")[:k]
    s = None
    if data.draw(st.booleans(), label="with s"):
        s = [data.draw(st.integers(2, 5), label="s") for _ in axes]
    elif fname == "irfftn" and x.shape[axes[-1]] < 2:
        s = [2] * len(axes)  # the default last length 2*(m-1) must be at least 1
    elif data.draw(st.booleans(), label="default axes"):
        axes = None  # all axes ("If s is provided, the corresponding axes ... must")
    norm = data.draw(st.sampled_from(NORMS), label="norm")
    got, want = run_both(f"fft.{fname}", x, s=s, axes=axes, norm=norm)
    check(got, want, where=f"{fname}(s={s}, axes={axes}, norm={norm})",
          **_tol(x, str(np.asarray(want).dtype), 2 * max(x.size, math.prod(s or [1]))))


@pytest.mark.parametrize("fname", ["fftfreq", "rfftfreq"])
@pytest.mark.parametrize("dtype", [None] + REAL_FLOATING)
@examples(4)
@given(n=st.integers(1, 9), d=st.sampled_from([1.0, 0.5, 0.1, 3.0]))
def test_frequencies(fname: str, dtype, n: int, d: float) -> None:
    got, want = run_both(f"fft.{fname}", n, d=d, dtype=None if dtype is None else sd(dtype))
    eps = float(np.finfo(np.asarray(want).dtype).eps)
    check(got, want, rtol=2 * eps, where=f"{fname}({n}, d={d}, dtype={dtype})")


@pytest.mark.parametrize("fname", ["fftshift", "ifftshift"])
@pytest.mark.parametrize("dtype", FLOATING)
@examples(3)
@given(data=st.data())
def test_shifts(fname: str, dtype: str, data) -> None:
    x = data.draw(arrays(dtype, shapes(min_dims=1, max_dims=3)), label="x")
    axes = data.draw(st.none() | st.integers(-x.ndim, x.ndim - 1) |
                     st.permutations(range(x.ndim)).map(lambda p: p[:max(1, len(p) - 1)]),
                     label="axes")
    check(*run_both(f"fft.{fname}", x, axes=axes), where=f"{fname}(axes={axes})")
