"""Manipulation functions against numpy: reshape, permute_dims, expand_dims,
squeeze, broadcast_to, broadcast_arrays, astype inside view chains,
matrix_transpose and the .T / .mT attributes, concrete and symbolic shapes.
"""
from functools import partial

import numpy as np
import pytest

import lazyarray as xp

import helpers
from helpers import misses

SIZES = [1, 7, 64, 519]
check = partial(helpers.check, rtol={"float32": 1e-6, "float64": 1e-13})


@pytest.fixture
def a3():
    return np.arange(24.0).reshape(2, 3, 4) - 7.5


# --------------------------------------------------------------------------- reshape

@pytest.mark.parametrize("shape", [(24,), (-1,), (4, 6), (4, -1), (-1, 6), (2, 3, 4), (1, 24, 1),
                                   (2, -1, 2), (3, 2, 2, 2), (24, 1)])
def test_reshape_contiguous(a3, shape):
    check(xp.reshape(xp.asarray(a3), shape), a3.reshape(shape))


@pytest.mark.parametrize("perm", [(2, 0, 1), (1, 0, 2), (0, 2, 1), (2, 1, 0)])
def test_reshape_after_permute_materializes(a3, perm):
    x = xp.permute_dims(xp.asarray(a3), perm)
    ap = a3.transpose(perm)
    for shape in ((-1,), (4, 6), (6, -1), (2, 2, 6)):
        check(xp.reshape(x, shape), ap.reshape(shape))
        check(xp.reshape(x * 2 + 1, shape), (ap * 2 + 1).reshape(shape))
    check(xp.reshape(x, (-1,))[::-5], ap.reshape(-1)[::-5])
    check(xp.sum(xp.reshape(x, (6, 4)), axis=0), ap.reshape(6, 4).sum(axis=0))


def test_reshape_after_slice_materializes(a3):
    x = xp.asarray(a3)
    for key, shape in (((slice(None), slice(None, None, 2), slice(1, 3)), (-1,)),
                       ((slice(None), slice(1, None)), (4, 4)),
                       ((slice(1, None),), (3, 4)),
                       ((1,), (4, 3)),
                       ((slice(None, None, -1), 0), (-1,)),
                       ((Ellipsis, slice(None, None, -1)), (6, 4))):
        check(xp.reshape(x[key], shape), a3[key].reshape(shape))
        check(xp.reshape(xp.exp(x)[key], shape), np.exp(a3)[key].reshape(shape))


def test_reshape_of_broadcasts_and_chains(a3):
    x = xp.asarray(a3)
    check(xp.reshape(xp.broadcast_to(x[0, 0], (3, 4)), (12,)),
          np.broadcast_to(a3[0, 0], (3, 4)).reshape(12))
    check(xp.reshape(xp.broadcast_to(xp.sin(x[0, :, :1]), (3, 5)), (5, 3)),
          np.broadcast_to(np.sin(a3[0, :, :1]), (3, 5)).reshape(5, 3))
    check(xp.reshape(xp.reshape(x.mT, (6, 4))[::2], (-1, 2)),
          a3.transpose(0, 2, 1).reshape(6, 4)[::2].reshape(-1, 2))
    check(xp.reshape(xp.expand_dims(x, axis=1), (2, 12)), a3[:, None].reshape(2, 12))
    check(xp.reshape(xp.squeeze(x[:, :1], axis=1), (8,)), a3[:, 0].reshape(8))
    check(xp.reshape(xp.sum(x, axis=0).T, (-1,)), a3.sum(0).T.reshape(-1))
    check(xp.reshape(xp.reshape(x, (6, 4)), (4, 6)) + xp.reshape(x, (4, 6)),
          a3.reshape(4, 6) * 2)


def test_reshape_zero_d_and_empty():
    check(xp.reshape(xp.asarray([5.0]), ()), np.reshape([5.0], ()))
    for zd in (xp.reshape(xp.asarray([5.0]), ()), xp.asarray(5.0)):
        check(xp.reshape(zd, (1, 1)), np.ones((1, 1)) * 5.0)
        check(xp.reshape(zd, (-1,)), np.array([5.0]))
        check(xp.expand_dims(zd, axis=0), np.array([5.0]))
        check(xp.broadcast_to(zd, (2, 3)), np.full((2, 3), 5.0))
    e = np.zeros((0, 3))
    check(xp.reshape(xp.asarray(e), (3, 0)), e.reshape(3, 0))
    check(xp.reshape(xp.asarray(e), (-1, 3)), e.reshape(-1, 3))
    check(xp.reshape(xp.asarray(e).T, (0,)), e.T.reshape(0))


@pytest.mark.parametrize("n", SIZES)
def test_reshape_transpose_sizes(n):
    a = np.arange(n * 3, dtype=np.int32).reshape(n, 3)
    x = xp.asarray(a)
    check(xp.reshape(x.T, (-1,)), a.T.reshape(-1))
    check(xp.reshape(x, (3, n)).T, a.reshape(3, n).T)
    check(xp.reshape(x[::-1], (3, -1)), a[::-1].reshape(3, -1))


def test_reshape_errors(a3):
    x = xp.asarray(a3)
    for shape in ((5, 5), (-1, 5), (-1, -1), (25,), (2, -2), (0, -1)):
        with pytest.raises(ValueError):
            xp.reshape(x, shape)
    with pytest.raises(ValueError):
        xp.reshape(x, (24,), copy=False)
    with pytest.raises(TypeError):
        xp.reshape(a3, (24,))


# --------------------------------------------------------------------------- permute_dims

def test_permute_dims_positive_and_negative_axes(a3):
    x = xp.asarray(a3)
    for axes in ((0, 1, 2), (2, 0, 1), (-1, 0, -2), (1, -1, -3), [2, 1, 0]):
        check(xp.permute_dims(x, axes), np.transpose(a3, axes))
        check(xp.permute_dims(x * 3, axes)[1:], np.transpose(a3 * 3, axes)[1:])
    check(xp.permute_dims(xp.permute_dims(x, (2, 0, 1)), (1, 2, 0)), a3)


def test_permute_dims_errors(a3):
    x = xp.asarray(a3)
    with pytest.raises(ValueError):
        xp.permute_dims(x, (0, 1))
    with pytest.raises(ValueError):
        xp.permute_dims(x, (0, 1, 1))
    with pytest.raises(ValueError):
        xp.permute_dims(x, (0, 1, -3))
    with pytest.raises(IndexError):
        xp.permute_dims(x, (0, 1, 3))


# --------------------------------------------------------------------------- expand_dims / squeeze

@pytest.mark.parametrize("axis", [0, 1, 3, -1, -4, (0,), (0, 2), (0, -1), (1, 2, -1), (-5, 1)])
def test_expand_dims(a3, axis):
    check(xp.expand_dims(xp.asarray(a3), axis=axis), np.expand_dims(a3, axis))
    check(xp.expand_dims(xp.asarray(a3)[:, ::-1], axis=axis) + 1, np.expand_dims(a3[:, ::-1], axis) + 1)


def test_expand_dims_errors_and_default(a3):
    x = xp.asarray(a3)
    check(xp.expand_dims(x), np.expand_dims(a3, 0))
    with pytest.raises(IndexError):
        xp.expand_dims(x, axis=4)
    with pytest.raises(IndexError):
        xp.expand_dims(x, axis=-5)
    with pytest.raises(ValueError):
        xp.expand_dims(x, axis=(0, 0))
    with pytest.raises(ValueError):
        xp.expand_dims(x, axis=(1, -4))  # both name position 1 of the rank-5 result


def test_squeeze(a3):
    x = xp.asarray(a3)
    e = xp.expand_dims(x, axis=(0, 2, -1))
    ae = np.expand_dims(a3, (0, 2, -1))
    for axis in (0, 2, -1, (0, 2), (0, -1), (0, 2, 5), ()):
        check(xp.squeeze(e, axis=axis), np.squeeze(ae, axis=axis))
    check(xp.squeeze(x[:, :1, :], axis=1), a3[:, 0, :])
    check(xp.squeeze(x[..., :1], axis=-1), a3[..., 0])
    check(xp.squeeze(xp.permute_dims(x[:1], (1, 0, 2)), axis=1), a3[:1].transpose(1, 0, 2)[:, 0])
    check(xp.squeeze(xp.sum(x, axis=1, keepdims=True), axis=1), a3.sum(axis=1))
    with pytest.raises(ValueError):
        xp.squeeze(x, axis=0)
    with pytest.raises(IndexError):
        xp.squeeze(x, axis=3)


# --------------------------------------------------------------------------- broadcasting

@pytest.mark.parametrize("src,shape", [((3,), (4, 3)), ((1,), (5,)), ((2, 1), (2, 6)),
                                       ((1, 3), (4, 2, 3)), ((), (2, 2)), ((3,), (3,)),
                                       ((4, 1, 1), (4, 2, 0)), ((1,), (0,))])
def test_broadcast_to(src, shape):
    a = np.arange(int(np.prod(src)), dtype=np.int16).reshape(src)
    x = xp.reshape(xp.asarray(a.reshape(-1)), src)
    check(xp.broadcast_to(x, shape), np.broadcast_to(a, shape))
    check(xp.broadcast_to(x * 2, shape) + 1, np.broadcast_to(a * 2, shape) + 1)


def test_broadcast_to_of_views_and_costly_expressions(a3):
    x = xp.asarray(a3)
    check(xp.broadcast_to(x[:, :1], (5, 2, 3, 4)), np.broadcast_to(a3[:, :1], (5, 2, 3, 4)))
    check(xp.broadcast_to(x.mT[:, :1], (2, 3, 3)), np.broadcast_to(a3.transpose(0, 2, 1)[:, :1], (2, 3, 3)))
    check(xp.broadcast_to(xp.exp(x[0, 0]), (3, 4)) * 2, np.broadcast_to(np.exp(a3[0, 0]), (3, 4)) * 2)
    check(xp.broadcast_to(xp.exp(x[0, 0]), (3, 4))[::-1, 1:], np.broadcast_to(np.exp(a3[0, 0]), (3, 4))[::-1, 1:])
    check(xp.broadcast_to(xp.broadcast_to(x[0, 0, :1], (4,)), (2, 4)), np.broadcast_to(a3[0, 0, :1], (2, 4)))


def test_broadcast_to_errors(a3):
    x = xp.asarray(a3)
    for shape in ((3, 3, 4), (3, 4), (2, 3, 5), (2, 3, 4, 1)):
        with pytest.raises(ValueError):
            xp.broadcast_to(x, shape)
    with pytest.raises(ValueError):
        xp.broadcast_to(x, (2, -3, 4))


def test_broadcast_arrays():
    a, b, c = np.arange(3.0), np.arange(4.0)[:, None], np.array([[[7.0]]])
    got = xp.broadcast_arrays(xp.asarray(a), xp.asarray(b), xp.asarray(c))
    want = np.broadcast_arrays(a, b, c)
    assert len(got) == 3
    for g, w in zip(got, want):
        check(g, w)
    i = np.arange(5, dtype=np.uint8)
    g1, g2 = xp.broadcast_arrays(xp.asarray(i), xp.asarray(i)[:, None])
    w1, w2 = np.broadcast_arrays(i, i[:, None])
    check(g1, w1)
    check(g2, w2)
    (only,) = xp.broadcast_arrays(xp.asarray(a))
    check(only, a)
    with pytest.raises(ValueError):
        xp.broadcast_arrays(xp.asarray(a), xp.asarray(np.ones(4)))


# --------------------------------------------------------------------------- astype in view chains

def test_astype_within_view_chains(a3):
    x = xp.asarray(a3)
    check(xp.astype(x.mT[::2], xp.int32)[..., 1], a3.transpose(0, 2, 1)[::2].astype(np.int32)[..., 1])
    check(xp.reshape(xp.astype(xp.permute_dims(x, (1, 0, 2)), xp.float32), (6, 4)),
          a3.transpose(1, 0, 2).astype(np.float32).reshape(6, 4))
    check(xp.permute_dims(xp.astype(x[:, ::-1], xp.int8), (2, 0, 1)),  # in int8 range
          a3[:, ::-1].astype(np.int8).transpose(2, 0, 1))
    # (float -> unsigned of negative values is unspecified; use x[1], all positive)
    check(xp.broadcast_to(xp.astype(x[1, 0], xp.uint8), (3, 4)), np.broadcast_to(a3[1, 0].astype(np.uint8), (3, 4)))
    check(xp.astype(xp.astype(x.mT, xp.int16), xp.float64) * 0.5, a3.transpose(0, 2, 1).astype(np.int16) * 0.5)
    check(xp.astype(x > 0, xp.int64)[1], (a3 > 0).astype(np.int64)[1])
    check(xp.expand_dims(xp.astype(x[1], xp.bool), axis=0), a3[1].astype(bool)[None])
    check(xp.squeeze(xp.astype(x[:1], xp.float32), axis=0), a3[0].astype(np.float32))
    assert xp.astype(x, xp.float64).dtype == xp.float64


# --------------------------------------------------------------------------- transposes

def test_matrix_transpose_and_T_mT(a3):
    x = xp.asarray(a3)
    check(xp.matrix_transpose(x), np.swapaxes(a3, -1, -2))
    check(x.mT, np.swapaxes(a3, -1, -2))
    check(x[0].T, a3[0].T)
    check(x[1].mT, a3[1].T)
    check((x[1] * 3).T + 1, (a3[1] * 3).T + 1)
    check(x.mT.mT, a3)
    check(x[0].T[::-1, 1:], a3[0].T[::-1, 1:])
    with pytest.raises(ValueError):
        x.T
    with pytest.raises(ValueError):
        x[0, 0].mT
    with pytest.raises(ValueError):
        xp.matrix_transpose(x[0, 0])


@pytest.mark.parametrize("n", SIZES)
def test_transposes_at_vector_and_tail_sizes(n):
    a = np.random.default_rng(n).standard_normal((n, 5)).astype(np.float32)
    x = xp.asarray(a)
    check(x.T, a.T)
    check(x.T * 2 + x.T, a.T * 2 + a.T)
    check(x.mT[:, ::-1], a.T[:, ::-1])
    check(xp.expand_dims(x.T, axis=1), a.T[:, None])


# --------------------------------------------------------------------------- symbolic shapes

def _run_sizes(y, inputs, example, shape_lists, ref):
    prep = xp.compile(y, inputs=inputs).prepare(*example)
    before = misses()
    rng = np.random.default_rng(0)
    for shapes in shape_lists:
        args = [rng.standard_normal(s) for s in shapes]
        check(prep(*args), ref(*args))
    assert misses() == before


S1 = [[(n,)] for n in (0, 1, 7, 64, 519)]
S2 = [[s] for s in ((0, 3), (3, 0), (1, 1), (7, 5), (64, 3), (2, 519))]


@pytest.mark.parametrize("case", ["flat", "flatT", "col", "perm", "expand", "bcast_front",
                                  "outer", "squeeze", "astype_perm"])
def test_symbolic_views_one_compile(case):
    x1 = xp.placeholder(("n",), xp.float64, name="x")
    x2 = xp.placeholder(("m", "n"), xp.float64, name="x")
    table = {
        "flat": (x2, lambda x: xp.reshape(x, (-1,)), lambda a: a.reshape(-1), S2),
        "flatT": (x2, lambda x: xp.reshape(x.T, (-1,)), lambda a: a.T.reshape(-1), S2),
        "col": (x1, lambda x: xp.reshape(x, (-1, 1)) * 2, lambda a: a.reshape(-1, 1) * 2, S1),
        "perm": (x2, lambda x: xp.permute_dims(x, (-1, 0)) + 1, lambda a: a.T + 1, S2),
        "expand": (x1, lambda x: xp.expand_dims(x, axis=(0, -1)), lambda a: a[None, :, None], S1),
        "bcast_front": (x1, lambda x: xp.broadcast_to(x, (3,) + x.symbolic_shape),
                        lambda a: np.broadcast_to(a, (3,) + a.shape), S1),
        "outer": (x1, lambda x: x[:, None] * x[None, :], lambda a: a[:, None] * a[None, :], S1),
        "squeeze": (x2, lambda x: xp.squeeze(xp.expand_dims(x, axis=1), axis=1).mT,
                    lambda a: a.T, S2),
        "astype_perm": (x2, lambda x: xp.astype(x.mT, xp.float32)[::-1],
                        lambda a: a.T.astype(np.float32)[::-1], S2),
    }
    ph, build, ref, shapes = table[case]
    example = [np.ones((4,) * ph.ndim)]
    _run_sizes(build(ph), [ph], example, shapes, ref)


def test_symbolic_broadcast_of_two_named_sizes():
    a = xp.placeholder(("n",), xp.float64, name="a")
    b = xp.placeholder(("m",), xp.float64, name="b")
    u, v = xp.broadcast_arrays(a[:, None], b)
    prep = xp.compile([u, v, a[:, None] - b], inputs=[a, b]).prepare(np.ones(2), np.ones(3))
    before = misses()
    for n, m in ((2, 3), (1, 4), (5, 1), (0, 3), (7, 64)):
        an, bn = np.arange(float(n)), np.arange(float(m)) * 10
        gu, gv, gd = prep(an, bn)
        wu, wv = np.broadcast_arrays(an[:, None], bn)
        check(gu, wu)
        check(gv, wv)
        check(gd, an[:, None] - bn)
    assert misses() == before
    same = xp.compile(a + b, inputs=[a, b]).prepare(np.ones(3), np.ones(3))
    check(same(np.ones(1), np.arange(4.0)), np.ones(1) + np.arange(4.0))
    check(same(np.arange(3.0), np.ones(1)), np.arange(3.0) + 1)
    with pytest.raises(ValueError):
        same(np.ones(3), np.ones(2))


def test_symbolic_stack_checks_sizes_when_the_program_runs():
    """A symbolic size cannot be compared with another while recording (a slice of a
    symbolic axis against 1, fuzz seed 5 graph 1698): stack records, and a run whose
    sizes differ raises ValueError."""
    x = xp.placeholder(("n",), xp.float64, name="x")
    y = xp.placeholder((1,), xp.float64, name="y")
    prog = xp.compile(xp.stack([x[3::-2], y], axis=1), inputs=[x, y])
    check(prog(np.arange(2.0), np.array([7.0])), np.stack([np.arange(2.0)[3::-2], [7.0]], axis=1))
    with pytest.raises(ValueError, match="does not match"):
        prog(np.arange(10.0), np.array([7.0]))
    with pytest.raises(ValueError, match="stack\\(\\): all arrays must have the same shape"):
        xp.stack([x, xp.ones((2, 2))])  # ranks differ: known while recording


def test_symbolic_broadcast_to_concrete_target_checks_at_run():
    a = xp.placeholder(("n",), xp.float64, name="a")
    prep = xp.compile(xp.broadcast_to(a, (4, 3)), inputs=[a]).prepare(np.ones(3))
    check(prep(np.arange(3.0)), np.broadcast_to(np.arange(3.0), (4, 3)))
    check(prep(np.array([2.0])), np.full((4, 3), 2.0))
    with pytest.raises(ValueError):
        prep(np.ones(2))


def test_symbolic_view_errors_at_run():
    x = xp.placeholder(("m", "n"), xp.float64, name="x")
    sq = xp.compile(xp.squeeze(x, axis=1), inputs=[x]).prepare(np.ones((3, 1)))
    check(sq(np.arange(4.0)[:, None]), np.arange(4.0))
    with pytest.raises(ValueError):
        sq(np.ones((3, 2)))
    rs = xp.compile(xp.reshape(x, (-1, 4)), inputs=[x]).prepare(np.ones((2, 4)))
    check(rs(np.arange(12.0).reshape(3, 4)), np.arange(12.0).reshape(3, 4))
    check(rs(np.arange(8.0).reshape(4, 2)), np.arange(8.0).reshape(2, 4))
    with pytest.raises(ValueError):
        rs(np.ones((3, 3)))


def test_symbolic_reshape_to_another_inputs_size_is_checked_at_run():
    x = xp.placeholder(("m", "n"), xp.float64, name="x")
    y = xp.placeholder(("k",), xp.float64, name="y")
    prep = xp.compile(xp.reshape(x, y.symbolic_shape) + y, inputs=[x, y]).prepare(
        np.ones((2, 3)), np.ones(6))
    check(prep(np.arange(6.0).reshape(3, 2), np.ones(6)), np.arange(6.0) + 1)
    with pytest.raises(ValueError):
        prep(np.ones((2, 3)), np.ones(9))  # 6 elements cannot be viewed as 9
    to_0d = xp.compile(xp.reshape(x, ()), inputs=[x]).prepare(np.ones((1, 1)))
    check(to_0d(np.full((1, 1), 3.0)), np.array(3.0))
    with pytest.raises(ValueError):
        to_0d(np.ones((2, 3)))
