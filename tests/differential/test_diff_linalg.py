"""Linear algebra (main namespace and the ``linalg`` extension) against array-api-strict.

Integer products are exact (they wrap the same way in any order).  Floating
point results compare with looser tolerances: products and norms within
``k * eps * sum(|a||b|)`` (any summation order), decompositions and solvers
relative to the input's scale on well-conditioned inputs (a random matrix
plus ``n`` times the identity, Gram matrices for ``cholesky``/``eigh``).
Decompositions are compared as returned: both libraries hand the same
LAPACK routines the same input, so their signs and orders agree.
"""
from __future__ import annotations

import math
import operator

import array_api_strict as xs
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from _diff import (COMPLEX, FLOATING, NUMERIC, arrays, bounded_or_special, check, examples, hs,
                   run_both, run_call, shapes)

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

FEW = examples(3)


def _eps(dtype: str) -> float:
    d = np.dtype(dtype)
    return float(np.finfo(d).eps) if d.kind in "fc" else 0.0


def _small(dtype: str):
    """Elements for products: small integers; floats in [-4, 4] with NaN, infinities and
    signed zeros; complex values with finite parts (special values in complex products
    are implementation-dependent: BLAS skips or reorders multiplications by zero)."""
    if np.dtype(dtype).kind in "iu":
        lo = 0 if dtype.startswith("u") else -8
        return st.integers(lo, 8)
    if dtype in COMPLEX:
        return _unit(dtype).map(lambda z: 4 * z)
    return bounded_or_special(dtype, 4.0)


def _unit(dtype: str):
    """Finite floats in [-1, 1] (complex: both parts), for well-conditioned matrices."""
    width = 32 if dtype in ("float32", "complex64") else 64
    part = st.floats(-1, 1, width=width)
    return st.builds(complex, part, part) if dtype in COMPLEX else part


def _finite_max(a: np.ndarray) -> float:
    mag = np.abs(a)
    return float(np.max(mag[np.isfinite(mag)], initial=0))


def _product_tol(a: np.ndarray, b: np.ndarray, dtype: str, contract: int,
                 np_fn=None) -> dict:
    """Tolerances for a sum of ``contract`` products of ``a`` and ``b`` elements: ``4 k eps``
    relative, and absolute against the largest finite product.  ``np_fn`` (numpy's version
    of the product, e.g. ``np.matmul``) marks the outputs to leave out: BLAS, which numpy
    calls, may skip multiplications by zero, so NaN or inf times 0 can vanish from its sums
    where IEEE arithmetic (and lazyarray) give NaN."""
    if np.dtype(dtype).kind not in "fc":
        return {}
    k = max(contract, 1)
    tol = dict(rtol=4 * k * _eps(dtype), atol=4 * k * k * _eps(dtype) * _finite_max(a) *
               _finite_max(b), zero_sign=False)  # a zero sum's sign follows the order
    if np_fn is not None:
        odd = [np.where(~np.isfinite(v), 1.0, 0.0) for v in (a, b)]
        zero = [np.where(v == 0, 1.0, 0.0) for v in (a, b)]
        tol["ignore"] = (np_fn(odd[0], zero[1]) + np_fn(zero[0], odd[1])) > 0
    return tol


# ----------------------------------------------------------------------------- products

@pytest.mark.parametrize("dtype", NUMERIC)
@examples(2)
@given(data=st.data())
def test_matmul(dtype: str, data) -> None:
    k = data.draw(st.integers(0, 4), label="k")
    batch = data.draw(hs.mutually_broadcastable_shapes(2, max_dims=2, max_side=2),
                      label="batch").input_shapes
    one_d = data.draw(st.sampled_from(["none", "left", "right"]), label="vector operand")
    s1 = (k,) if one_d == "left" else batch[0] + (data.draw(st.integers(0, 3)), k)
    s2 = (k,) if one_d == "right" else batch[1] + (k, data.draw(st.integers(0, 3)))
    a = data.draw(arrays(dtype, s1, elements_=_small(dtype)), label="a")
    b = data.draw(arrays(dtype, s2, elements_=_small(dtype)), label="b")
    tol = _product_tol(np.asarray(a), np.asarray(b), dtype, k, np.matmul)
    for fname in ("matmul", "linalg.matmul"):
        check(*run_both(fname, a, b), where=f"{fname}({s1}, {s2})", **tol)
    check(*run_call(operator.matmul, a, b), where="a @ b", **tol)


@pytest.mark.parametrize("dtype", NUMERIC)
@FEW
@given(data=st.data())
def test_tensordot_vecdot_outer(dtype: str, data) -> None:
    shape = data.draw(shapes(min_dims=1, max_dims=3, max_side=3), label="shape")
    nax = data.draw(st.integers(0, len(shape)), label="axes")
    a = data.draw(arrays(dtype, shape, elements_=_small(dtype)), label="a")
    b_shape = shape[len(shape) - nax:] + data.draw(shapes(max_dims=1, max_side=3), label="tail")
    b = data.draw(arrays(dtype, b_shape, elements_=_small(dtype)), label="b")
    k = math.prod(shape[len(shape) - nax:])
    tol = _product_tol(np.asarray(a), np.asarray(b), dtype, k,
                       lambda p, q: np.tensordot(p, q, axes=nax))
    for fname in ("tensordot", "linalg.tensordot"):
        check(*run_both(fname, a, b, axes=nax), where=f"{fname}(axes={nax})", **tol)
    if nax:
        pairs = (list(range(len(shape) - nax, len(shape))), list(range(nax)))
        check(*run_both("tensordot", a, b, axes=pairs), where=f"tensordot({pairs})", **tol)
    # vecdot: conj(a) . b along an axis, with broadcasting
    axis = data.draw(st.integers(-len(shape), -1), label="vecdot axis")
    c = data.draw(arrays(dtype, shape, elements_=_small(dtype)), label="c")
    tol = _product_tol(np.asarray(a), np.asarray(c), dtype, shape[axis],
                       lambda p, q: np.sum(p * q, axis=axis))
    for fname in ("vecdot", "linalg.vecdot"):
        check(*run_both(fname, a, c, axis=axis), where=f"{fname}(axis={axis})", **tol)
    u = data.draw(arrays(dtype, (shape[0],), elements_=_small(dtype)), label="u")
    v = data.draw(arrays(dtype, shapes(1, 1, max_side=3), elements_=_small(dtype)), label="v")
    check(*run_both("linalg.outer", u, v), where="outer", **_product_tol(
        np.asarray(u), np.asarray(v), dtype, 1, np.outer))


@pytest.mark.parametrize("dtype", NUMERIC)
@examples(2)
@given(data=st.data())
def test_cross_trace_diagonal(dtype: str, data) -> None:
    batch = data.draw(shapes(max_dims=2, max_side=2), label="batch")
    axis = data.draw(st.integers(-len(batch) - 1, -1), label="axis")
    s = list(batch)
    s.insert(len(s) + axis + 1, 3)
    a = data.draw(arrays(dtype, tuple(s), elements_=_small(dtype)), label="a")
    b = data.draw(arrays(dtype, tuple(s), elements_=_small(dtype)), label="b")
    check(*run_both("linalg.cross", a, b, axis=axis), where=f"cross(axis={axis})",
          **_product_tol(np.asarray(a), np.asarray(b), dtype, 2))
    m = data.draw(arrays(dtype, shapes(min_dims=2, max_dims=3, max_side=4)), label="m")
    offset = data.draw(st.integers(-3, 3), label="offset")
    check(*run_both("linalg.diagonal", m, offset=offset), where=f"diagonal({offset})")
    mm = data.draw(arrays(dtype, m.shape, elements_=_small(dtype)), label="mm")
    n = max(m.shape[-2:])
    tol = {} if dtype not in FLOATING else dict(atol=4 * n * _eps(dtype) * 4 * n)
    check(*run_both("linalg.trace", mm, offset=offset), where=f"trace({offset})", **tol)
    check(*run_both("linalg.matrix_transpose", m), where="linalg.matrix_transpose")


# ----------------------------------------------------------------------------- norms

@pytest.mark.parametrize("dtype", FLOATING)
@FEW
@given(data=st.data())
def test_vector_norm(dtype: str, data) -> None:
    x = data.draw(arrays(dtype, shapes(max_dims=3), elements_=bounded_or_special(dtype, 1e3)),
                  label="x")
    axis = data.draw(st.none() | hs.valid_tuple_axes(x.ndim, min_size=min(1, x.ndim)),
                     label="axis")
    ord_ = data.draw(st.sampled_from([2, 1, float("inf"), -float("inf"), 0, -1, 3, 0.5]),
                     label="ord")
    keepdims = data.draw(st.booleans(), label="keepdims")
    reduced = [x.shape[a] for a in (range(x.ndim) if axis is None else axis)]
    if 0 in reduced and ord_ in (float("inf"), -float("inf")):
        return  # the max/min of nothing is implementation-defined (lazyarray raises)
    try:
        xs.linalg.vector_norm(x, axis=axis, keepdims=keepdims, ord=ord_)
    except ValueError:  # numpy raises for other norms of nothing (negative ord)
        return
    got, want = run_both("linalg.vector_norm", x, axis=axis, keepdims=keepdims, ord=ord_)
    n = max(x.size, 1)
    check(got, want, rtol=8 * n * _eps(dtype), atol=float(np.finfo(np.dtype(
        dtype)).smallest_normal), where=f"vector_norm(axis={axis}, ord={ord_})")


@pytest.mark.parametrize("dtype", FLOATING)
@FEW
@given(data=st.data())
def test_matrix_norm(dtype: str, data) -> None:
    x = data.draw(arrays(dtype, shapes(min_dims=2, max_dims=3, min_side=1, max_side=4),
                         elements_=_unit(dtype)), label="x")
    ord_ = data.draw(st.sampled_from(["fro", "nuc", 1, -1, 2, -2, float("inf"),
                                      -float("inf")]), label="ord")
    keepdims = data.draw(st.booleans(), label="keepdims")
    got, want = run_both("linalg.matrix_norm", x, keepdims=keepdims, ord=ord_)
    n = max(x.shape[-2:])
    check(got, want, rtol=16 * n * _eps(dtype), atol=16 * n * _eps(dtype),
          where=f"matrix_norm(ord={ord_})")


# ----------------------------------------------------------------------------- solvers

def _square(data, dtype: str, min_n: int = 0):
    n = data.draw(st.integers(min_n, 4), label="n")
    batch = data.draw(shapes(max_dims=1, max_side=2), label="batch")
    a = data.draw(arrays(dtype, batch + (n, n), elements_=_unit(dtype)), label="a")
    return a, n


def _well_conditioned(a, n: int):
    """``a + (n + 1) I``: diagonally dominant, so invertible with condition number < 3."""
    return a + (n + 1) * xs.eye(n, dtype=a.dtype)


def _loose(dtype: str, n: int) -> dict:
    # no sign of zero: LAPACK results carry no specified zero signs (e.g. the real diagonal
    # of a complex upper Cholesky factor is 1 - 0j in numpy, conj(L) transposed)
    eps = _eps(dtype)
    return dict(rtol=64 * max(n, 1) * eps, atol=64 * max(n, 1) * eps, zero_sign=False)


@pytest.mark.parametrize("dtype", FLOATING)
@FEW
@given(data=st.data())
def test_inv_solve_det(dtype: str, data) -> None:
    a, n = _square(data, dtype)
    a = _well_conditioned(a, n)
    tol = _loose(dtype, n)
    check(*run_both("linalg.inv", a), where="inv", **tol)
    # det of a diagonally dominant matrix scales with (n+1)**n
    check(*run_both("linalg.det", a), rtol=tol["rtol"], atol=tol["atol"] * (n + 2) ** n,
          zero_sign=False, where="det")
    check(*run_both("linalg.slogdet", a), where="slogdet", **tol)
    k = data.draw(st.integers(0, 3), label="k")
    b = data.draw(arrays(dtype, a.shape[:-1] + (k,), elements_=_unit(dtype)), label="b")
    check(*run_both("linalg.solve", a, b), where="solve(matrix rhs)", **tol)
    v = data.draw(arrays(dtype, (n,), elements_=_unit(dtype)), label="v")
    check(*run_both("linalg.solve", a, v), where="solve(vector rhs)", **tol)
    p = data.draw(st.integers(-2, 3), label="power")
    check(*run_both("linalg.matrix_power", a, p), rtol=tol["rtol"], zero_sign=False,
          atol=tol["atol"] * (n + 2) ** abs(p), where=f"matrix_power({p})")


@pytest.mark.parametrize("dtype", FLOATING)
@FEW
@given(data=st.data())
def test_hermitian_decompositions(dtype: str, data) -> None:
    """cholesky, eigh, eigvalsh on Gram matrices b b^H + I."""
    b, n = _square(data, dtype)
    g = b @ xs.conj(xs.matrix_transpose(b)) + xs.eye(n, dtype=b.dtype)
    tol = _loose(dtype, n)
    upper = data.draw(st.booleans(), label="upper")
    check(*run_both("linalg.cholesky", g, upper=upper), where=f"cholesky(upper={upper})",
          **tol)
    check(*run_both("linalg.eigvalsh", g), where="eigvalsh", **tol)
    check(*run_both("linalg.eigh", g), where="eigh", **tol)


@pytest.mark.parametrize("dtype", FLOATING)
@FEW
@given(data=st.data())
def test_qr_svd_pinv_rank(dtype: str, data) -> None:
    m = data.draw(st.integers(1, 4), label="m")
    n = data.draw(st.integers(1, 4), label="n")
    x = data.draw(arrays(dtype, shapes(max_dims=1, max_side=2).map(lambda s: s + (m, n)),
                         elements_=_unit(dtype)), label="x")
    tol = _loose(dtype, max(m, n))
    mode = data.draw(st.sampled_from(["reduced", "complete"]), label="qr mode")
    check(*run_both("linalg.qr", x, mode=mode), where=f"qr({mode})", **tol)
    full = data.draw(st.booleans(), label="full_matrices")
    check(*run_both("linalg.svd", x, full_matrices=full), where=f"svd({full})", **tol)
    check(*run_both("linalg.svdvals", x), where="svdvals", **tol)
    check(*run_both("linalg.pinv", x), where="pinv", **tol)
    check(*run_both("linalg.matrix_rank", x), where="matrix_rank")


@pytest.mark.parametrize("dtype", FLOATING)
@FEW
@given(data=st.data())
def test_eig_eigvals(dtype: str, data) -> None:
    a, n = _square(data, dtype)
    tol = _loose(dtype, n)
    check(*run_both("linalg.eigvals", a), where="eigvals", **tol)
    check(*run_both("linalg.eig", a), where="eig", **tol)


def test_result_types_are_named_tuples() -> None:
    a = xs.eye(2) + 1.0
    for fname, fields in (("linalg.eigh", ("eigenvalues", "eigenvectors")),
                          ("linalg.qr", ("Q", "R")), ("linalg.slogdet", ("sign", "logabsdet")),
                          ("linalg.svd", ("U", "S", "Vh")),
                          ("linalg.eig", ("eigenvalues", "eigenvectors"))):
        got, want = run_both(fname, a)
        assert tuple(got._fields) == tuple(want._fields) == fields, fname
