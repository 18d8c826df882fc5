"""The linalg extension against numpy: decompositions and solvers (external
numpy calls inside programs), norms, diagonal/trace, cross/outer (native
ops), result dtypes and namedtuples, errors, and symbolic-size programs.
"""
import math
from functools import partial

import numpy as np
import pytest

import lazyarray as xp
from lazyarray import linalg as la

import helpers
from helpers import data, npd

FLOATS = ["float32", "float64", "complex64", "complex128"]


def tol(dtype):
    return 2e-4 if np.dtype(dtype) in (np.float32, np.complex64) else 1e-10


TOL = {d: tol(d) for d in FLOATS}
check = partial(helpers.check, rtol=TOL, atol=TOL)  # call sites widen both together


def spd(shape, dtype, rng):
    """Hermitian positive-definite matrices."""
    a = data(shape, dtype, rng)
    return (a @ np.conj(np.swapaxes(a, -1, -2)) + shape[-1] * np.eye(shape[-1])).astype(dtype)


# --------------------------------------------------------------------------- decompositions

@pytest.mark.parametrize("dtype", FLOATS)
def test_solvers_and_determinants(dtype):
    rng = np.random.default_rng(0)
    a = data((2, 3, 4, 4), dtype, rng) + 4 * np.eye(4, dtype=dtype)
    A = xp.asarray(a)
    check(la.det(A), np.linalg.det(a))
    check(la.inv(A), np.linalg.inv(a))
    s = la.slogdet(A)
    assert type(s).__name__ == "SlogdetResult" and s.sign is s[0] and s.logabsdet is s[1]
    want = np.linalg.slogdet(a)
    check(s.sign, want.sign)
    check(s.logabsdet, want.logabsdet)
    for b in (data((4,), dtype, rng), data((3, 4, 2), dtype, rng), data((1, 4, 5), dtype, rng)):
        check(la.solve(A, xp.asarray(b)), np.linalg.solve(a, b))
    t = 50 * tol(dtype)
    for n in (-2, 0, 1, 3):
        check(la.matrix_power(A, n), np.linalg.matrix_power(a, n), rtol=t, atol=t)


@pytest.mark.parametrize("dtype", FLOATS)
def test_hermitian_decompositions(dtype):
    rng = np.random.default_rng(1)
    a = spd((3, 5, 5), dtype, rng)
    A = xp.asarray(a)
    for upper in (False, True):
        check(la.cholesky(A, upper=upper), np.linalg.cholesky(a, upper=upper))
    w, v = la.eigh(A)
    res = la.eigh(A)
    assert type(res).__name__ == "EighResult" and res._fields == ("eigenvalues", "eigenvectors")
    real = np.empty(0, dtype).real.dtype
    assert npd(w) == real and npd(v) == dtype and v.shape == a.shape
    t = 20 * tol(dtype)
    check(w, np.linalg.eigvalsh(a), rtol=t, atol=t)
    check(la.eigvalsh(A), np.linalg.eigvalsh(a), rtol=t, atol=t)
    vv, ww = np.asarray(v), np.asarray(w)
    np.testing.assert_allclose(a @ vv, vv * ww[..., None, :], atol=50 * tol(dtype))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(4, 3), (3, 5), (2, 4, 4), (0, 3)])
def test_qr_svd_pinv_rank(dtype, shape):
    rng = np.random.default_rng(2)
    a = data(shape, dtype, rng)
    A = xp.asarray(a)
    m, n = shape[-2:]
    k = min(m, n)
    t = 50 * tol(dtype)
    for mode in ("reduced", "complete"):
        q, r = la.qr(A, mode=mode)
        assert la.qr(A, mode=mode)._fields == ("Q", "R")
        assert npd(q) == dtype and npd(r) == dtype
        assert q.shape == shape[:-2] + ((m, k) if mode == "reduced" else (m, m))
        assert r.shape == shape[:-2] + ((k, n) if mode == "reduced" else (m, n))
        np.testing.assert_allclose(np.asarray(q) @ np.asarray(r), a, atol=t)
        np.testing.assert_array_equal(np.asarray(r), np.triu(np.asarray(r)))
    real = np.empty(0, dtype).real.dtype
    for full in (True, False):
        u, s, vh = la.svd(A, full_matrices=full)
        assert la.svd(A)._fields == ("U", "S", "Vh")
        assert npd(s) == real and npd(u) == dtype and npd(vh) == dtype
        assert u.shape == shape[:-2] + ((m, m) if full else (m, k))
        assert vh.shape == shape[:-2] + ((n, n) if full else (k, n))
        uu, ss, vv = np.asarray(u), np.asarray(s), np.asarray(vh)
        np.testing.assert_allclose((uu[..., :k] * ss[..., None, :]) @ vv[..., :k, :], a, atol=t)
    check(la.svdvals(A), np.linalg.svdvals(a), rtol=t, atol=t)
    check(la.pinv(A), np.linalg.pinv(a, rtol=None), rtol=t, atol=t)
    check(la.pinv(A, rtol=0.5), np.linalg.pinv(a, rtol=0.5), rtol=t, atol=t)
    check(la.matrix_rank(A), np.linalg.matrix_rank(a))
    check(la.matrix_rank(A, rtol=0.3), np.linalg.matrix_rank(a, rtol=0.3))


def test_rtol_arrays_broadcast_over_the_batch():
    rng = np.random.default_rng(3)
    a = rng.standard_normal((3, 4, 4))
    r = np.array([0.0, 0.3, 0.9])
    check(la.matrix_rank(xp.asarray(a), rtol=xp.asarray(r)), np.linalg.matrix_rank(a, rtol=r))
    check(la.pinv(xp.asarray(a), rtol=xp.asarray(r)), np.linalg.pinv(a, rtol=r))
    check(la.matrix_rank(xp.asarray(a), rtol=xp.asarray(0.5)), np.linalg.matrix_rank(a, rtol=0.5))
    with pytest.raises(ValueError):
        la.pinv(xp.asarray(a), rtol=xp.asarray([0.1, 0.2]))


@pytest.mark.parametrize("dtype", FLOATS)
def test_eig_and_eigvals_are_complex(dtype):
    rng = np.random.default_rng(4)
    a = data((2, 4, 4), dtype, rng)
    c = {"float32": "complex64", "float64": "complex128"}.get(dtype, dtype)
    w, v = la.eig(xp.asarray(a))
    assert la.eig(xp.asarray(a))._fields == ("eigenvalues", "eigenvectors")
    assert type(la.eig(xp.asarray(a))).__name__ == "EigResult"
    assert npd(w) == c and npd(v) == c and w.shape == (2, 4) and v.shape == (2, 4, 4)
    ww, vv = np.asarray(w), np.asarray(v)
    np.testing.assert_allclose(a @ vv, vv * ww[..., None, :], atol=100 * tol(dtype))
    ev = np.asarray(la.eigvals(xp.asarray(a)))
    assert ev.dtype == c
    np.testing.assert_allclose(np.sort_complex(ev), np.sort_complex(np.linalg.eigvals(a)),
                               atol=100 * tol(dtype))
    # A symmetric real matrix has real eigenvalues: numpy returns a real array, cast here.
    s = np.array([[2.0, 1.0], [1.0, 3.0]], dtype=np.dtype(dtype))
    assert npd(la.eigvals(xp.asarray(s))) == c


# --------------------------------------------------------------------------- norms

ORDS = [2, 1, 0, -1, -2, 3, 0.5, -0.5, math.inf, -math.inf]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # numpy's 0 ** negative ord
def test_vector_norm(dtype):
    rng = np.random.default_rng(5)
    a = data((3, 4, 5), dtype, rng)
    a[0, 0, 0] = 0
    A = xp.asarray(a)
    real = np.empty(0, dtype).real.dtype
    axes = (None, 0, -1, (0, 2), ())
    cases = [(o, axes[i % 5], i % 2 == 0) for i, o in enumerate(ORDS)]
    cases += [(o, axes[(i + 2) % 5], i % 2 == 1) for i, o in enumerate(ORDS)]
    t = 10 * tol(dtype)
    for ord, axis, keepdims in cases:  # every ord with two axis choices, both keepdims
        got = la.vector_norm(A, axis=axis, keepdims=keepdims, ord=ord)
        want = np.linalg.vector_norm(a, axis=axis, keepdims=keepdims, ord=ord)
        check(got, np.asarray(want, dtype=real), rtol=t, atol=t)


@pytest.mark.parametrize("dtype", FLOATS)
def test_matrix_norm(dtype):
    rng = np.random.default_rng(6)
    a = data((2, 3, 4), dtype, rng)
    A = xp.asarray(a)
    real = np.empty(0, dtype).real.dtype
    t = 10 * tol(dtype)
    for ord in ("fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf):
        for keepdims in (False, True):
            want = np.linalg.matrix_norm(a, ord=ord, keepdims=keepdims)
            check(la.matrix_norm(A, ord=ord, keepdims=keepdims), np.asarray(want, real),
                  rtol=t, atol=t)


def test_norms_fuse_natively_except_singular_value_norms():
    x = xp.placeholder(("m", "n"), name="x")
    for ord in ("fro", 1, -1, math.inf, -math.inf):
        assert not any("." in op for op in xp.compile(la.matrix_norm(x, ord=ord), [x]).ops)
    assert "linalg.matrix_norm" in xp.compile(la.matrix_norm(x, ord=2), [x]).ops
    assert xp.compile(la.vector_norm(x, ord=3), [x]).ops[-1] == "pow"


# --------------------------------------------------------------------------- views and products

DIAG_SHAPES = [(4, 4), (3, 5), (5, 3), (2, 3, 4), (0, 3), (3, 0), (1, 1)]


@pytest.mark.parametrize("shape", DIAG_SHAPES)
def test_diagonal_and_trace(shape):
    rng = np.random.default_rng(7)
    for dtype in ("float64", "int8", "uint16", "bool", "complex64"):
        a = data(shape, dtype, rng)
        A = xp.asarray(a)
        for off in (0, 1, 2, -1, -3, 7, -7):
            check(la.diagonal(A, offset=off), np.diagonal(a, off, -2, -1))
            if dtype == "bool":
                continue
            want = np.trace(a, off, -2, -1)
            if dtype == "int8":
                want = want.astype(np.int64)
            check(la.trace(A, offset=off), want)
    a = data(shape, "int16", rng)
    check(la.trace(xp.asarray(a), dtype=xp.int16), np.trace(a, 0, -2, -1, dtype=np.int16))
    check(la.trace(xp.asarray(a.astype(np.float32)), offset=1),
          np.trace(a.astype(np.float32), 1, -2, -1))


def test_diagonal_of_views_and_expressions():
    rng = np.random.default_rng(8)
    a = rng.standard_normal((3, 5, 4))
    A = xp.asarray(a)
    check(la.diagonal(A.mT, offset=1), np.diagonal(np.swapaxes(a, -1, -2), 1, -2, -1))
    check(la.diagonal(A[:, ::2, ::-1] * 2 + 1), np.diagonal(a[:, ::2, ::-1] * 2 + 1, 0, -2, -1))
    check(la.trace(xp.exp(A), offset=-1), np.trace(np.exp(a), -1, -2, -1))


def test_cross():
    rng = np.random.default_rng(9)
    cases = [((3,), (3,), -1), ((4, 3), (3,), -1), ((2, 1, 3), (5, 3), -1),
             ((3, 4), (3, 1), -2), ((2, 3, 4), (1, 3, 4), -2)]
    for d1, d2 in (("float64", "float32"), ("int8", "uint8"), ("complex128", "complex128")):
        for s1, s2, axis in cases:
            a, b = data(s1, d1, rng), data(s2, d2, rng)
            check(la.cross(xp.asarray(a), xp.asarray(b), axis=axis), np.cross(a, b, axis=axis))
    with pytest.raises(ValueError):
        la.cross(xp.ones((4,)), xp.ones((4,)))
    with pytest.raises(ValueError):
        la.cross(xp.ones((3, 3)), xp.ones((2, 3)), axis=-2)
    with pytest.raises(ValueError):
        la.cross(xp.ones((3, 3)), xp.ones((3, 3)), axis=0)
    with pytest.raises(TypeError):
        la.cross(xp.ones((3,), dtype=xp.bool), xp.ones((3,), dtype=xp.bool))


def test_outer():
    rng = np.random.default_rng(10)
    for d1, d2 in (("float64", "float32"), ("int8", "uint8"), ("complex64", "float32")):
        for n1, n2 in ((3, 4), (1, 5), (0, 2)):
            a, b = data((n1,), d1, rng), data((n2,), d2, rng)
            want = np.outer(a, b).astype(np.result_type(a, b))
            check(la.outer(xp.asarray(a), xp.asarray(b)), want)
    with pytest.raises(ValueError):
        la.outer(xp.ones((2, 2)), xp.ones(2))


def test_reexports_and_namespace():
    assert la.matmul is xp.matmul and la.tensordot is xp.tensordot
    assert la.vecdot is xp.vecdot and la.matrix_transpose is xp.matrix_transpose
    assert xp.linalg is la and "linalg" in xp.__all__
    for name in la.__all__:
        assert callable(getattr(la, name))


# --------------------------------------------------------------------------- errors

def test_errors():
    m = xp.ones((3, 3))
    with pytest.raises(TypeError, match="floating-point"):
        la.det(xp.ones((3, 3), dtype=xp.int64))
    with pytest.raises(TypeError, match="floating-point"):
        la.vector_norm(xp.ones(3, dtype=xp.int32))
    with pytest.raises(ValueError, match="square"):
        la.inv(xp.ones((2, 3)))
    with pytest.raises(ValueError, match=r"\(\.\.\., M, N\)"):
        la.svd(xp.ones(3))
    with pytest.raises(ValueError, match="mode"):
        la.qr(m, mode="r")
    with pytest.raises(ValueError, match="ord"):
        la.matrix_norm(m, ord=3)
    with pytest.raises(TypeError, match="ord"):
        la.matrix_norm(m, ord="max")
    with pytest.raises(ValueError, match="rows"):
        la.solve(m, xp.ones(4))
    with pytest.raises(TypeError):
        la.matrix_power(m, 1.5)
    with pytest.raises(TypeError):
        la.trace(xp.ones((2, 2), dtype=xp.bool))
    with pytest.raises(np.linalg.LinAlgError):
        np.asarray(la.inv(xp.zeros((2, 2))))  # numpy's error, raised when the program runs


# --------------------------------------------------------------------------- lazy programs

def test_externals_run_inside_compiled_programs():
    rng = np.random.default_rng(11)
    x = xp.placeholder(("b", "n", "n"), name="x")
    y = xp.placeholder(("b", "n", 2), name="y")
    out = la.solve(x * 2.0, y) + (la.trace(la.inv(x) @ x) + la.det(x))[:, None, None]
    prog = xp.compile(out, inputs=[x, y])
    assert {"linalg.solve", "linalg.inv", "linalg.det", "matmul"} <= set(prog.ops)
    misses = []
    for b, n in ((2, 3), (1, 5), (3, 1), (2, 0)):
        a = rng.standard_normal((b, n, n)) + 3 * np.eye(n)
        v = rng.standard_normal((b, n, 2))
        want = np.linalg.solve(a * 2.0, v) + (n + np.linalg.det(a))[:, None, None]
        check(prog(a, v), want)
        misses.append(xp.compile_cache_info().misses)
    assert misses[0] == misses[-1]  # new sizes reuse one compile


def test_symbolic_shapes_of_decompositions():
    sq = xp.placeholder(("n", "n"), name="sq")
    u, s, vh = la.svd(sq, full_matrices=False)
    assert u.symbolic_shape == s.symbolic_shape[:1] * 2 == vh.symbolic_shape
    rect = xp.placeholder(("m", "n"), name="rect")
    q, r = la.qr(rect, mode="complete")
    assert q.symbolic_shape == (rect.symbolic_shape[0],) * 2
    assert r.symbolic_shape == rect.symbolic_shape
    for f in (lambda: la.svdvals(rect), lambda: la.qr(rect), lambda: la.diagonal(rect)):
        with pytest.raises(ValueError, match="min"):
            f()
    rng = np.random.default_rng(12)
    prog = xp.compile([la.pinv(rect), la.matrix_rank(rect), la.matrix_norm(rect, ord="nuc")],
                      [rect])
    for shape in ((3, 5), (4, 2)):
        a = rng.standard_normal(shape)
        p, k, nuc = prog(a)
        check(p, np.linalg.pinv(a, rtol=None))
        check(k, np.linalg.matrix_rank(a))
        check(nuc, np.linalg.matrix_norm(a, ord="nuc"))


def test_symbolic_trace_diagonal_and_norms():
    rng = np.random.default_rng(13)
    x = xp.placeholder(("b", "n", "n"), name="x")
    for off in (0, 2, -1):
        prog = xp.compile([la.diagonal(x, offset=off), la.trace(x, offset=off),
                           la.vector_norm(x, axis=(1, 2), ord=1)], [x])
        for b, n in ((2, 4), (1, 1), (3, 0), (1, 6)):
            a = rng.standard_normal((b, n, n))
            d, t, v = prog(a)
            check(d, np.diagonal(a, off, -2, -1))
            check(t, np.trace(a, off, -2, -1))
            check(v, np.linalg.vector_norm(a, axis=(1, 2), ord=1))
    prog = xp.compile(la.matrix_norm(x, ord=-math.inf), [x])
    for b, n in ((2, 4), (1, 3)):
        a = rng.standard_normal((b, n, n))
        check(prog(a), np.linalg.matrix_norm(a, ord=-np.inf))
