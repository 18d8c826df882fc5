"""Linear algebra against numpy: matmul (1-d, 2-d, batched with broadcast
batch dims, non-contiguous and computed operands), tensordot, vecdot, for
integer and floating dtypes, their errors, and symbolic-size programs.
"""
from functools import partial

import numpy as np
import pytest

import lazyarray as xp

import helpers
from helpers import data, misses

DTYPES = ["float64", "float32", "int64", "int32", "int8", "uint8"]
SIZES = [1, 7, 64, 519]
# Float sums run in another order than BLAS's; integer products wrap exactly like numpy's.
TOL = {"float32": 2e-4, "float64": 1e-11}
check = partial(helpers.check, rtol=TOL, atol=TOL)


MATMUL_SHAPES = [((2, 3, 4), (4, 5)), ((5,), (5,)), ((3, 4), (4,)), ((4,), (4, 3)),
                 ((2, 1, 3, 4), (5, 4, 2)), ((7,), (2, 7, 3)), ((2, 3, 4), (4,)), ((1, 1), (1, 1)),
                 ((0, 3), (3, 2)), ((3, 0), (0, 2)), ((2, 0), (0,)), ((64,), (64,)), ((519,), (519,)),
                 ((7, 9), (9, 519)), ((3, 4), (1, 4, 5)), ((6, 1, 2), (1, 2, 4))]


@pytest.mark.parametrize("dtype", DTYPES)
def test_matmul_shapes_and_dtypes(dtype):
    rng = np.random.default_rng(0)
    for sa, sb in MATMUL_SHAPES:
        a, b = data(sa, dtype, rng), data(sb, dtype, rng)
        check(xp.asarray(a) @ xp.asarray(b), a @ b)
        check(xp.matmul(xp.asarray(a), xp.asarray(b)), np.matmul(a, b))


def test_matmul_mixed_dtypes_promote():
    rng = np.random.default_rng(1)
    for d1, d2 in (("int8", "int32"), ("uint8", "int8"), ("uint16", "uint32"), ("float32", "float64")):
        a, b = data((3, 4), d1, rng), data((4, 2), d2, rng)
        check(xp.asarray(a) @ xp.asarray(b), a @ b)
    with pytest.raises(TypeError):
        xp.asarray(np.ones(2, np.int64)) @ xp.asarray(np.ones(2))
    with pytest.raises(TypeError):
        xp.asarray(np.ones(2, bool)) @ xp.asarray(np.ones(2, bool))


def test_matmul_integer_overflow_wraps_like_numpy():
    a = np.full((2, 40), 100, dtype=np.int8)
    check(xp.asarray(a) @ xp.asarray(a.T.copy()), a @ a.T)
    u = np.full((3,), 2**40, dtype=np.int64)
    check(xp.asarray(u) @ xp.asarray(u), u @ u)


def test_matmul_non_contiguous_operands():
    rng = np.random.default_rng(2)
    a, b = rng.standard_normal((4, 6)), rng.standard_normal((6, 5))
    A, B = xp.asarray(a), xp.asarray(b)
    check(B.T @ A.T, b.T @ a.T)
    check(A[::2, ::-1] @ B[::-1, 1:], a[::2, ::-1] @ b[::-1, 1:])
    check(A[1] @ B, a[1] @ b)
    check(A @ B[:, 2], a @ b[:, 2])
    check(A[:, ::-2] @ B[::2, ::-1].mT.mT, a[:, ::-2] @ b[::2, ::-1])
    check(xp.broadcast_to(A, (3, 4, 6)) @ B, np.broadcast_to(a, (3, 4, 6)) @ b)
    check(xp.broadcast_to(A[0], (4, 6)) @ B, np.broadcast_to(a[0], (4, 6)) @ b)
    check(xp.expand_dims(A, axis=0) @ xp.expand_dims(B, axis=0), a[None] @ b[None])
    c = rng.standard_normal((3, 4, 6))
    check(xp.permute_dims(xp.asarray(c), (1, 0, 2)) @ B, c.transpose(1, 0, 2) @ b)
    check(xp.reshape(xp.asarray(c).mT, (3, 4, 6)) @ B, c.transpose(0, 2, 1).reshape(3, 4, 6) @ b)


def test_matmul_of_computed_operands_and_consumers():
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((4, 6)), rng.standard_normal((6, 5))
    A, B = xp.asarray(a), xp.asarray(b)
    check(xp.sin(A) @ (B * 2 + 1), np.sin(a) @ (b * 2 + 1))
    check((A @ B) @ (B.T @ A.T), (a @ b) @ (b.T @ a.T))
    check((A * 2)[::2] @ B, (a * 2)[::2] @ b)
    check(xp.exp(A).T[1:] @ A, np.exp(a).T[1:] @ a)
    check(xp.sum(A @ B, axis=0) + 1, (a @ b).sum(axis=0) + 1)
    check(xp.reshape(A @ B, (-1,)), (a @ b).reshape(-1))
    check((A @ B).T - 1, (a @ b).T - 1)
    check(A @ (B - xp.mean(B, axis=0)), a @ (b - b.mean(axis=0)))
    x = A[0]
    check((x @ B) @ (B.T @ x), (a[0] @ b) @ (b.T @ a[0]))
    i = rng.integers(-5, 5, (3, 3)).astype(np.int32)
    I = xp.asarray(i)
    check((I @ I) @ I - I, (i @ i) @ i - i)


@pytest.mark.parametrize("n", SIZES)
def test_matmul_vector_body_and_tail(n):
    rng = np.random.default_rng(n)
    for dtype in ("float64", "float32", "int32"):
        a, b = data((n,), dtype, rng), data((n,), dtype, rng)
        m = data((3, n), dtype, rng)
        check(xp.asarray(a) @ xp.asarray(b), a @ b)
        check(xp.asarray(m) @ xp.asarray(b), m @ b)
        check(xp.asarray(a) @ xp.asarray(m.T.copy()), a @ m.T)
        check(xp.asarray(m).T.mT @ xp.asarray(m).T, m @ m.T)


def test_matmul_errors():
    A = xp.asarray(np.ones((4, 6)))
    with pytest.raises(ValueError):
        A @ A
    with pytest.raises(ValueError):
        xp.asarray(np.ones(3)) @ xp.asarray(np.ones(4))
    with pytest.raises(ValueError):
        A @ xp.asarray(np.ones(4))
    with pytest.raises(ValueError):
        xp.asarray(np.ones((2, 3, 4))) @ xp.asarray(np.ones((3, 4, 5)))
    with pytest.raises(ValueError):
        xp.sum(A) @ A
    with pytest.raises(ValueError):
        xp.matmul(A, xp.sum(A))
    with pytest.raises(TypeError):
        xp.matmul(np.ones((2, 2)), A)


# --------------------------------------------------------------------------- tensordot

@pytest.mark.parametrize("dtype", ["float64", "float32", "int16", "uint8"])
def test_tensordot(dtype):
    rng = np.random.default_rng(4)
    t1, t2 = data((3, 4, 5), dtype, rng), data((4, 5, 6), dtype, rng)
    X1, X2 = xp.asarray(t1), xp.asarray(t2)
    check(xp.tensordot(X1, X2), np.tensordot(t1, t2))
    check(xp.tensordot(X1, X2, axes=2), np.tensordot(t1, t2, axes=2))
    check(xp.tensordot(X1[..., :4], X2, axes=1), np.tensordot(t1[..., :4], t2, axes=1))
    check(xp.tensordot(X1[0, 0], X2[0, 0], axes=0), np.tensordot(t1[0, 0], t2[0, 0], axes=0))
    check(xp.tensordot(X1, X2, axes=([1, 2], [0, 1])), np.tensordot(t1, t2, axes=([1, 2], [0, 1])))
    check(xp.tensordot(X1, X2, axes=([-1, 1], [1, 0])), np.tensordot(t1, t2, axes=([-1, 1], [1, 0])))
    t3 = np.ascontiguousarray(t2.transpose(2, 1, 0))
    check(xp.tensordot(X1, xp.asarray(t3), axes=([1, 2], [2, 1])),
          np.tensordot(t1, t3, axes=([1, 2], [2, 1])))
    check(xp.tensordot(X1, X2, axes=([1], [0])), np.tensordot(t1, t2, axes=([1], [0])))
    m = data((4, 3), dtype, rng)
    check(xp.tensordot(xp.asarray(m), xp.asarray(m), axes=([0], [0])), np.tensordot(m, m, axes=([0], [0])))


def test_tensordot_of_views_and_expressions():
    rng = np.random.default_rng(5)
    a, b = rng.standard_normal((5, 4)), rng.standard_normal((5, 3))
    A, B = xp.asarray(a), xp.asarray(b)
    check(xp.tensordot(A.T, B, axes=1), np.tensordot(a.T, b, axes=1))
    check(xp.tensordot(xp.sin(A)[::-1], B * 2, axes=([0], [0])),
          np.tensordot(np.sin(a)[::-1], b * 2, axes=([0], [0])))
    check(xp.tensordot(A, A, axes=2), np.tensordot(a, a, axes=2))


def test_tensordot_errors():
    t = xp.asarray(np.ones((3, 4, 5)))
    with pytest.raises(ValueError):
        xp.tensordot(t, t)  # (4, 5) against (3, 4)
    with pytest.raises(ValueError):
        xp.tensordot(t, t, axes=-1)
    with pytest.raises(ValueError):
        xp.tensordot(t, t, axes=4)
    with pytest.raises(ValueError):
        xp.tensordot(t, t, axes=([0, 1], [0]))
    with pytest.raises(ValueError):
        xp.tensordot(t, t, axes=([0], [1]))
    with pytest.raises(IndexError):
        xp.tensordot(t, t, axes=([3], [0]))


# --------------------------------------------------------------------------- vecdot

@pytest.mark.parametrize("dtype", ["float64", "float32", "int32", "uint8", "int8"])
def test_vecdot(dtype):
    rng = np.random.default_rng(6)
    v1, v2 = data((4, 3), dtype, rng), data((3,), dtype, rng)
    X1, X2 = xp.asarray(v1), xp.asarray(v2)
    check(xp.vecdot(X1, X2), np.vecdot(v1, v2))
    check(xp.vecdot(X1, X1[::-1], axis=0), np.vecdot(v1, v1[::-1], axis=0))
    check(xp.vecdot(X1, X1, axis=-2), np.vecdot(v1, v1, axis=-2))
    w = data((5, 1, 3), dtype, rng)
    check(xp.vecdot(X1[None], xp.asarray(w)[:, :, ::-1]), np.vecdot(v1[None], w[:, :, ::-1]))
    check(xp.vecdot(X2, X2), np.vecdot(v2, v2))


def test_vecdot_broadcasting():
    rng = np.random.default_rng(7)
    for dtype in ("float64", "int16"):
        a, b = data((2, 1, 3), dtype, rng), data((5, 3), dtype, rng)
        check(xp.vecdot(xp.asarray(a), xp.asarray(b)), np.vecdot(a, b))
        check(xp.vecdot(xp.asarray(b), xp.asarray(a)), np.vecdot(b, a))
        c = data((4, 1), dtype, rng)
        d = data((4, 6), dtype, rng)
        check(xp.vecdot(xp.asarray(d), xp.asarray(d)[::-1], axis=0), np.vecdot(d, d[::-1], axis=0))
        check(xp.vecdot(xp.asarray(c), xp.asarray(d[:, :1]), axis=0), np.vecdot(c, d[:, :1], axis=0))


@pytest.mark.parametrize("n", SIZES)
def test_vecdot_vector_body_and_tail(n):
    rng = np.random.default_rng(n)
    a, b = rng.standard_normal((2, n)), rng.standard_normal(n)
    check(xp.vecdot(xp.asarray(a), xp.asarray(b)), np.vecdot(a, b))
    check(xp.vecdot(xp.sin(xp.asarray(a)), xp.asarray(a)), np.vecdot(np.sin(a), a))


def test_vecdot_errors():
    v = xp.asarray(np.ones((4, 3)))
    with pytest.raises(ValueError):
        xp.vecdot(v, xp.asarray(np.ones(4)))
    with pytest.raises(ValueError):
        xp.vecdot(v, xp.asarray(np.ones(1)))  # the contracted axis does not broadcast
    with pytest.raises(IndexError):
        xp.vecdot(v, v, axis=2)
    with pytest.raises(TypeError):
        xp.vecdot(v, xp.asarray(np.ones(3, np.int64)))


# --------------------------------------------------------------------------- symbolic sizes

def _sym_case(name):
    return {
        "mm": ([("m", "k"), ("k", "n")], lambda a, b: a @ b,
               [[(m, k), (k, n)] for m, k, n in ((0, 3, 2), (2, 0, 3), (1, 1, 1), (7, 5, 3),
                                                 (3, 64, 9), (2, 519, 1))]),
        "mv": ([("m", "k"), ("k",)], lambda a, b: a @ b,
               [[(m, k), (k,)] for m, k in ((0, 3), (2, 0), (1, 1), (7, 5), (3, 519))]),
        "vv": ([("k",), ("k",)], lambda a, b: a @ b, [[(k,), (k,)] for k in (0, 1, 7, 64, 519)]),
        "batched": ([("b", "m", "k"), ("k", "n")], lambda a, b: a @ b,
                    [[(b, m, k), (k, n)] for b, m, k, n in ((0, 2, 3, 4), (1, 1, 1, 1), (3, 7, 5, 2),
                                                           (2, 3, 64, 5))]),
        "bcast_batch": ([("b", "m", "k"), ("c", "k", "n")], lambda a, b: a[:, None] @ b,
                        [[(b, m, k), (c, k, n)] for b, c, m, k, n in ((1, 3, 2, 3, 4), (2, 1, 3, 5, 2),
                                                                     (2, 2, 1, 7, 1))]),
        "named_batches": ([("b", "m", "k"), ("c", "k", "n")], lambda a, b: a @ b,
                          [[(b, m, k), (c, k, n)] for b, c, m, k, n in ((1, 3, 2, 3, 4), (2, 1, 3, 5, 2),
                                                                       (2, 2, 1, 7, 1), (0, 1, 2, 2, 2))]),
        "gram": ([("m", "n")], lambda a: a.T @ (a * 2),
                 [[(m, n)] for m, n in ((0, 3), (3, 0), (1, 1), (7, 5), (519, 2))]),
        "vecdot": ([("m", "n")], lambda a: xp.vecdot(a, xp.sin(a)),
                   [[(m, n)] for m, n in ((0, 3), (3, 0), (1, 1), (7, 5), (2, 519))]),
        "tensordot": ([("m", "n"), ("m", "k")], lambda a, b: xp.tensordot(a, b, axes=([0], [0])),
                      [[(m, n), (m, k)] for m, n, k in ((0, 2, 3), (1, 1, 1), (7, 5, 3), (64, 2, 9))]),
    }[name]


SYM_CASES = [(name, dtype) for name in ("mm", "mv", "vv", "batched", "bcast_batch", "named_batches",
                                         "gram", "vecdot", "tensordot")
             for dtype in ("float64", "int32") if not (name == "vecdot" and dtype == "int32")]


@pytest.mark.parametrize("name,dtype", SYM_CASES)
def test_symbolic_contractions_one_compile(name, dtype):
    specs, build, shape_lists = _sym_case(name)
    phs = [xp.placeholder(s, getattr(xp, dtype), name=f"x{i}") for i, s in enumerate(specs)]
    rng = np.random.default_rng(8)
    example = [data(s, dtype, rng) for s in shape_lists[-1]]
    prep = xp.compile(build(*phs), inputs=phs).prepare(*example)
    before = misses()
    ref = {"vecdot": lambda a: np.vecdot(a, np.sin(a)),
           "tensordot": lambda a, b: np.tensordot(a, b, axes=([0], [0]))}.get(name, build)
    for shapes in shape_lists:
        args = [data(s, dtype, rng) for s in shapes]
        check(prep(*args), ref(*args))
    assert misses() == before


def test_symbolic_inner_size_mismatch_raises_at_run():
    a = xp.placeholder(("m", "k"), xp.float64, name="a")
    b = xp.placeholder(("j", "n"), xp.float64, name="b")
    prep = xp.compile(a @ b, inputs=[a, b]).prepare(np.ones((2, 3)), np.ones((3, 4)))
    check(prep(np.ones((2, 5)), np.ones((5, 1))), np.ones((2, 5)) @ np.ones((5, 1)))
    with pytest.raises(ValueError):
        prep(np.ones((2, 3)), np.ones((4, 4)))
    a3 = xp.placeholder(("b", "m", "k"), xp.float64, name="a3")
    b3 = xp.placeholder(("c", "k", "n"), xp.float64, name="b3")
    prep = xp.compile(a3 @ b3, inputs=[a3, b3]).prepare(np.ones((2, 2, 3)), np.ones((1, 3, 2)))
    with pytest.raises(ValueError):
        prep(np.ones((2, 2, 3)), np.ones((3, 3, 2)))  # batch sizes 2 and 3 do not broadcast
    u = xp.placeholder(("n",), xp.float64, name="u")
    v = xp.placeholder(("p",), xp.float64, name="v")
    for y in (xp.vecdot(u, v), xp.tensordot(u, v, axes=1), u @ v):
        p = xp.compile(y, inputs=[u, v]).prepare(np.ones(3), np.ones(3))
        check(p(np.arange(3.0), np.arange(3.0)), np.arange(3.0) @ np.arange(3.0))
        with pytest.raises(ValueError):
            p(np.ones(3), np.ones(1))  # a size-1 contracted axis does not broadcast
