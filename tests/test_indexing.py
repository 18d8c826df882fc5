"""Basic indexing against numpy: integers, slices with any step, ``...`` and
``None`` in every combination, chained indexing, indexing of computed and
viewed arrays, the errors the standard asks for, and symbolic sizes.
"""
import itertools

import numpy as np
import pytest

import lazyarray as xp

from helpers import check, misses

SIZES = [1, 7, 64, 519]
E = Ellipsis


@pytest.fixture
def a3():
    return np.arange(60.0).reshape(3, 4, 5)


KEYS = [
    0, -1, -3, 2, (1, 2), (-1, -2, -3), (0, 0, 0), slice(None), slice(1, None), slice(None, None, 2),
    slice(None, None, -1), slice(None, None, -2), slice(5, 1, -1), slice(2, 2), slice(3, 1),
    slice(-100, 100), slice(100, 200), slice(-100, -50), slice(100, -100, -1), slice(-1, None, -4),
    (E, 0), (E, slice(None, None, -2)), (0, E, 1), (E,), E, (), (None,), None, (None, 0, None),
    (E, None), (slice(None), None, 1), (1, slice(None, None, -1), None, slice(1, 4, 2)),
    (None, E, None), (-1, E, -1, None), (slice(None, None, 3), slice(-1, None, -3), slice(4, 0, -2)),
    (slice(None), slice(None), slice(None)), (0, slice(None), E), (E, 2, slice(None), slice(None)),
    (None, None, 1, None, slice(0, 0)), (slice(1, 2), E, slice(-2, -1)),
]


@pytest.mark.parametrize("key", KEYS, ids=repr)
def test_basic_index_matches_numpy(a3, key):
    x = xp.asarray(a3)
    check(x[key], a3[key])
    check((x * 2 - 1)[key], (a3 * 2 - 1)[key])
    check(xp.permute_dims(x, (2, 1, 0))[key], a3.transpose(2, 1, 0)[key])
    check(xp.astype(x, xp.int16)[key], a3.astype(np.int16)[key])


def test_every_1d_slice_matches_numpy():
    bounds = [None, -12, -7, -3, -1, 0, 1, 3, 6, 7, 12]
    steps = [None, 1, 2, 3, -1, -2, -5, 9]
    for n in (0, 1, 7):
        a = np.arange(n, dtype=np.int32) * 3
        x = xp.asarray(a)
        for start, stop, step in itertools.product(bounds, bounds, steps):
            s = slice(start, stop, step)
            check(x[s], a[s])


def test_integer_indices_on_every_axis_and_sign():
    a = np.arange(24, dtype=np.uint16).reshape(2, 3, 4)
    x = xp.asarray(a)
    for i in range(-2, 2):
        for j in range(-3, 3):
            check(x[i, j], a[i, j])
            check(x[i, :, j], a[i, :, j])
            check(x[..., i, j - 1 if j > -3 else j], a[..., i, j - 1 if j > -3 else j])
    v = x[1, 2, 3]
    assert v.ndim == 0 and int(v) == 23


def test_chained_indexing(a3):
    x = xp.asarray(a3)
    check(x[::-1][1:][..., ::2][0], a3[::-1][1:][..., ::2][0])
    check(x[1:, ::-1][:, 1:3][:, ::-1, 2], a3[1:, ::-1][:, 1:3][:, ::-1, 2])
    check(x[None][0][None, ..., None][0, 1, ..., 0], a3[None][0][None, ..., None][0, 1, ..., 0])
    check(x[::2][::-1][1::3], a3[::2][::-1][1::3])
    check(x[:, 2:][:, :0], a3[:, 2:][:, :0])
    check(x[-1][-1][-1], a3[-1][-1][-1])
    y = x[:, ::-1]
    check(y[0] + y[-1], a3[:, ::-1][0] + a3[:, ::-1][-1])


def test_indexing_results_of_computations(a3):
    x = xp.asarray(a3)
    check(xp.sum(x, axis=0)[::-1, 1], a3.sum(0)[::-1, 1])
    check((x @ x.mT)[1, ::-1], (a3 @ a3.transpose(0, 2, 1))[1, ::-1])
    check(xp.sin(x)[..., 1:4:2], np.sin(a3)[..., 1:4:2])
    check(xp.reshape(x[::-1, 1:3], (-1,))[5:], a3[::-1, 1:3].reshape(-1)[5:])
    check(xp.broadcast_to(x[0, 0], (3, 5))[::-1, 1:], np.broadcast_to(a3[0, 0], (3, 5))[::-1, 1:])
    check(xp.expand_dims(x, axis=1)[:, 0, -1], a3[:, None][:, 0, -1])
    check(xp.max(x, axis=2, keepdims=True)[..., 0], a3.max(axis=2, keepdims=True)[..., 0])
    check((x > 30)[1, ::2], (a3 > 30)[1, ::2])
    m = xp.mean(x, axis=(0, 1))
    check(m[::-1] - m[0], a3.mean(axis=(0, 1))[::-1] - a3.mean(axis=(0, 1))[0])


def test_indexing_zero_d_and_empty():
    zn = np.array(3.0)
    for z in (xp.asarray(3.0), xp.reshape(xp.asarray([3.0]), ())):
        for key in ((), E, None, (None, E, None)):
            check(z[key], zn[key])
            check((z * 2)[key], (zn * 2)[key])
    e = np.zeros((0, 3), dtype=np.int8)
    ex = xp.asarray(e)
    for key in ((slice(1, None), slice(None, None, -1)), (E, 0), (slice(None), None), (slice(None), 2)):
        check(ex[key], e[key])


@pytest.mark.parametrize("n", SIZES)
def test_strided_views_at_vector_and_tail_sizes(n):
    a = np.random.default_rng(n).standard_normal(n)
    x = xp.asarray(a)
    for s in (slice(None, None, 2), slice(None, None, -1), slice(1, None, 3), slice(-2, None, -7),
              slice(n // 2, None)):
        check(x[s], a[s])
        check(x[s] * 2 + x[s], a[s] * 2 + a[s])
    m = np.arange(n * 4, dtype=np.int64).reshape(n, 4)
    check(xp.asarray(m)[::-1, 1::2], m[::-1, 1::2])


# --------------------------------------------------------------------------- errors

def test_out_of_bounds_integer_raises_index_error(a3):
    x = xp.asarray(a3)
    for key in (3, -4, (0, 4), (0, -5), (0, 0, 5), (0, 0, -6), (E, 5), (None, 3), (slice(None), 4)):
        with pytest.raises(IndexError):
            a3[key]
        with pytest.raises(IndexError):
            x[key]
    with pytest.raises(IndexError):
        xp.asarray(np.zeros(0))[0]
    with pytest.raises(IndexError):
        (x * 2)[0][-5]


def test_too_many_indices_raise_index_error(a3):
    x = xp.asarray(a3)
    for key in ((0, 0, 0, 0), (E, 0, 0, 0, 0), (slice(None),) * 4, (None, 0, 0, 0, 0)):
        with pytest.raises(IndexError):
            x[key]
    with pytest.raises(IndexError):
        xp.asarray(1.0)[0]
    with pytest.raises(IndexError):
        xp.reshape(xp.asarray([1.0]), ())[0]


def test_invalid_index_kinds(a3):
    x = xp.asarray(a3)
    with pytest.raises(ValueError):
        x[::0]
    with pytest.raises(ValueError):
        x[0, 1:3:0]
    with pytest.raises(IndexError):
        x[E, E]
    with pytest.raises(IndexError):
        x[1.0]
    with pytest.raises(IndexError):
        x[0:2.5]
    with pytest.raises(IndexError):
        x[True]
    with pytest.raises(IndexError):
        x["a"]


def test_numpy_integers_and_zero_d_integer_arrays_are_indices(a3):
    x = xp.asarray(a3)
    check(x[np.int64(2)], a3[2])
    check(x[np.int8(-1), np.uint8(3)], a3[-1, 3])
    check(x[1:np.int32(3)], a3[1:3])
    check(x[xp.asarray(1)], a3[1])
    check(x[xp.reshape(xp.asarray([1]), ()), xp.asarray(-2)], a3[1, -2])


# --------------------------------------------------------------------------- symbolic sizes

S1 = [0, 1, 7, 64, 519]


@pytest.mark.parametrize("key", [slice(None, None, -1), slice(1, None, 2), slice(-2, None, -3),
                                 slice(2, -1), slice(None, 3), slice(-100, 100, 5),
                                 (None, slice(None, None, -1)), (E, None)], ids=repr)
def test_symbolic_1d_slicing_one_compile(key):
    x = xp.placeholder(("n",), xp.float64, name="x")
    prep = xp.compile(x[key] * 2, inputs=[x]).prepare(np.ones(5))
    before = misses()
    for n in S1:
        a = np.arange(float(n))
        check(prep(a), a[key] * 2)
    assert misses() == before


def test_symbolic_2d_indexing_one_compile():
    x = xp.placeholder(("m", "n"), xp.int32, name="x")
    outs = [x[:, ::-1][1:, :2], x[::2, 1:], x.T[::-1], x[None, ..., -2::-2]]
    prep = xp.compile(outs, inputs=[x]).prepare(np.ones((3, 4), np.int32))
    before = misses()
    for shape in ((0, 3), (3, 0), (1, 1), (7, 5), (64, 3), (2, 519)):
        a = np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape)
        got = prep(a)
        for g, w in zip(got, [a[:, ::-1][1:, :2], a[::2, 1:], a.T[::-1], a[None, ..., -2::-2]]):
            check(g, w)
    assert misses() == before


def test_symbolic_integer_index_checks_bounds_at_run():
    x = xp.placeholder(("m", "n"), xp.float64, name="x")
    prep = xp.compile([x[-1], x[0, 1:]], inputs=[x]).prepare(np.ones((2, 3)))
    before = misses()
    for shape in ((1, 1), (7, 5), (64, 3)):
        a = np.random.default_rng(0).standard_normal(shape)
        last, first = prep(a)
        check(last, a[-1])
        check(first, a[0, 1:])
    assert misses() == before
    with pytest.raises(IndexError):
        prep(np.ones((0, 3)))
