"""flip, roll, tile, repeat, moveaxis, unstack, broadcast_shapes (manipulation) and
meshgrid, tril, triu, linspace, asarray(copy=False) (creation) against numpy:
values, dtypes and shapes, on concrete data and in programs with symbolic sizes.
"""
import numpy as np
import pytest

import lazyarray as xp

from helpers import check, run_symbolic


@pytest.fixture
def a3():
    return np.arange(24.0).reshape(2, 3, 4) - 7.5


# --------------------------------------------------------------------------- flip

@pytest.mark.parametrize("axis", [None, 0, 1, -1, (0, 2), (2, 0, 1), ()])
def test_flip_matches_numpy(a3, axis):
    check(xp.flip(xp.asarray(a3), axis=axis), np.flip(a3, axis=axis))


def test_flip_dtypes_zero_d_and_empty():
    for dtype in (np.bool_, np.int8, np.uint64, np.float32, np.complex64):
        v = (np.arange(6) % 3).astype(dtype).reshape(2, 3)
        check(xp.flip(xp.asarray(v), axis=1), np.flip(v, axis=1))
    check(xp.flip(xp.asarray(2.5)), np.flip(np.asarray(2.5)))
    check(xp.flip(xp.asarray(np.zeros((0, 3)))), np.zeros((0, 3)))
    with pytest.raises(IndexError):
        xp.flip(xp.asarray([1, 2]), axis=1)
    with pytest.raises(ValueError):
        xp.flip(xp.asarray([[1, 2]]), axis=(0, -2))


def test_flip_is_a_view_fused_into_its_consumer(a3):
    p = xp.placeholder(("n", 4), name="p")
    prog = xp.compile(xp.flip(p, axis=0) * 2 + p, inputs=[p])
    assert prog.ops == ("slice", "multiply", "add")
    for n in (1, 5, 33):
        v = np.arange(n * 4.0).reshape(n, 4)
        check(prog(v), np.flip(v, 0) * 2 + v)


# --------------------------------------------------------------------------- roll

@pytest.mark.parametrize("shift,axis", [(1, None), (-5, None), (30, None), (0, None), (2, 1),
                                        ((1, 2), (0, 2)), ((1, 1), (1, 1)), (-7, 2), (5, -1),
                                        ((3, -1), (-1, 0))])
def test_roll_matches_numpy(a3, shift, axis):
    check(xp.roll(xp.asarray(a3), shift, axis=axis), np.roll(a3, shift, axis=axis))


def test_roll_zero_d_empty_and_errors():
    check(xp.roll(xp.asarray(3), 4), np.roll(np.asarray(3), 4))
    check(xp.roll(xp.asarray(np.zeros((0, 2))), 3, axis=0), np.zeros((0, 2)))
    x = xp.asarray(np.ones((2, 3)))
    with pytest.raises(ValueError):
        xp.roll(x, (1, 2), axis=(0,))
    with pytest.raises(TypeError):
        xp.roll(x, (1, 2))
    with pytest.raises(IndexError):
        xp.roll(x, 1, axis=2)


def test_roll_symbolic_sizes():
    for n in (3, 4, 9):
        v = np.arange(2.0 * n).reshape(2, n)
        for shift in (1, -2, 3):
            check(run_symbolic(lambda p: xp.roll(p, shift, axis=1), v), np.roll(v, shift, 1))
    # |shift| > n cannot be reduced modulo an unknown size: refused when bound
    with pytest.raises(ValueError):
        run_symbolic(lambda p: xp.roll(p, 5, axis=1), np.ones((2, 3)))


# --------------------------------------------------------------------------- tile, repeat

@pytest.mark.parametrize("reps", [(2,), (2, 1), (1, 2, 3, 1), (0, 2), (3,), (1, 1, 1), (2, 2, 2)])
def test_tile_matches_numpy(a3, reps):
    check(xp.tile(xp.asarray(a3), reps), np.tile(a3, reps))


def test_tile_zero_d_bool_symbolic_and_errors():
    check(xp.tile(xp.asarray(True), (2, 3)), np.tile(np.asarray(True), (2, 3)))
    v = np.arange(6, dtype=np.int16).reshape(2, 3)
    check(run_symbolic(lambda p: xp.tile(p, (2, 3)), v, xp.int16), np.tile(v, (2, 3)))
    with pytest.raises(ValueError):
        xp.tile(xp.asarray([1]), (-1,))
    with pytest.raises(TypeError):
        xp.tile(xp.asarray([1]), 2)


@pytest.mark.parametrize("repeats,axis", [(2, None), (3, 1), (0, 2), (1, 0), (4, -1)])
def test_repeat_int_matches_numpy(a3, repeats, axis):
    check(xp.repeat(xp.asarray(a3), repeats, axis=axis), np.repeat(a3, repeats, axis=axis))


def test_repeat_array_counts(a3):
    x = xp.asarray(a3)
    for counts, axis in (([1, 0, 3], 1), ([2, 2], 0), ([3], 2), (list(range(24)), None)):
        r = np.asarray(counts, dtype=np.int32)
        check(xp.repeat(x, xp.asarray(r), axis=axis), np.repeat(a3, r, axis=axis))
    with pytest.raises(ValueError):
        xp.repeat(x, xp.asarray([1, 2]), axis=1)
    with pytest.raises(ValueError):
        xp.repeat(x, -1)
    with pytest.raises(TypeError):
        xp.repeat(x, xp.asarray([1.0, 2.0]), axis=0)


def test_repeat_symbolic_and_placeholder_counts():
    v = np.arange(6.0).reshape(2, 3)
    check(run_symbolic(lambda p: xp.repeat(p, 2, axis=1), v), np.repeat(v, 2, 1))
    # array counts are evaluated now: x may be a placeholder, the counts may not
    r = np.array([2, 0, 1])
    check(run_symbolic(lambda p: xp.repeat(p, xp.asarray(r), axis=1), v), np.repeat(v, r, 1))
    counts = xp.placeholder((3,), xp.int64, name="counts")
    with pytest.raises(xp.ConcretizationError):
        xp.repeat(xp.asarray(v), counts, axis=1)


# --------------------------------------------------------------------------- moveaxis, unstack

@pytest.mark.parametrize("src,dst", [(0, 2), (-1, 0), ((0, 1), (2, 0)), ((0, 1, 2), (1, 2, 0)),
                                     (1, 1)])
def test_moveaxis_matches_numpy(a3, src, dst):
    check(xp.moveaxis(xp.asarray(a3), src, dst), np.moveaxis(a3, src, dst))


def test_moveaxis_errors(a3):
    x = xp.asarray(a3)
    with pytest.raises(ValueError):
        xp.moveaxis(x, (0, 1), (1,))
    with pytest.raises(ValueError):
        xp.moveaxis(x, (0, 0), (1, 2))
    with pytest.raises(IndexError):
        xp.moveaxis(x, 3, 0)


@pytest.mark.parametrize("axis", [0, 1, 2, -1])
def test_unstack_matches_numpy(a3, axis):
    out = xp.unstack(xp.asarray(a3), axis=axis)
    assert isinstance(out, tuple) and len(out) == a3.shape[axis]
    for i, o in enumerate(out):
        check(o, np.take(a3, i, axis=axis))


def test_unstack_errors():
    with pytest.raises(ValueError):
        xp.unstack(xp.asarray(1.0))
    with pytest.raises(ValueError):
        xp.unstack(xp.placeholder(("n",)))


# --------------------------------------------------------------------------- broadcast_shapes

@pytest.mark.parametrize("shapes", [((3, 1), (4,), (1, 1, 1)), ((2, 0), (1,)), ((),), (),
                                    ((5, 1, 3), (1, 4, 1)), ((1,), (7, 1))])
def test_broadcast_shapes_matches_numpy(shapes):
    assert xp.broadcast_shapes(*shapes) == np.broadcast_shapes(*shapes)


def test_broadcast_shapes_unknown_and_errors():
    assert xp.broadcast_shapes((None, 1), (1, 5)) == (None, 5)
    assert xp.broadcast_shapes((None,), (3,)) == (3,)
    with pytest.raises(ValueError):
        xp.broadcast_shapes((2,), (3,))
    with pytest.raises(ValueError):
        xp.broadcast_shapes((-1,))
    with pytest.raises(TypeError):
        xp.broadcast_shapes(3)


# --------------------------------------------------------------------------- creation

@pytest.mark.parametrize("indexing", ["xy", "ij"])
def test_meshgrid_matches_numpy(indexing):
    vs = [np.arange(3), np.linspace(0, 1, 2), np.arange(4, dtype=np.int8)]
    for k in range(4):
        out = xp.meshgrid(*[xp.asarray(v) for v in vs[:k]], indexing=indexing)
        want = np.meshgrid(*vs[:k], indexing=indexing)
        assert isinstance(out, tuple) and len(out) == k
        for o, w in zip(out, want):
            check(o, w)
    with pytest.raises(ValueError):
        xp.meshgrid(xp.asarray(np.ones((2, 2))))
    with pytest.raises(ValueError):
        xp.meshgrid(xp.asarray([1]), indexing="xx")


@pytest.mark.parametrize("k", [-4, -1, 0, 1, 3, 9])
def test_tril_triu_match_numpy(a3, k):
    check(xp.tril(xp.asarray(a3), k=k), np.tril(a3, k))
    check(xp.triu(xp.asarray(a3), k=k), np.triu(a3, k))


def test_tril_triu_dtypes_symbolic_and_errors():
    b = np.arange(12).reshape(3, 4) % 2 == 0
    check(xp.tril(xp.asarray(b)), np.tril(b))
    c = (np.arange(6) + 1j).reshape(2, 3).astype(np.complex64)
    check(xp.triu(xp.asarray(c), k=1), np.triu(c, 1))
    for shape in ((3, 5), (4, 2), (2, 3, 3)):
        v = np.arange(float(np.prod(shape))).reshape(shape) + 1
        check(run_symbolic(lambda p: xp.tril(p, k=1), v), np.tril(v, 1))
        check(run_symbolic(lambda p: xp.triu(p, k=-1), v), np.triu(v, -1))
    with pytest.raises(ValueError):
        xp.tril(xp.asarray([1.0, 2.0]))
    with pytest.raises(TypeError):
        xp.triu(xp.asarray(np.ones((2, 2))), k=1.5)


def test_linspace_complex_default_dtype():
    check(xp.linspace(0, 1j, 5), np.linspace(0, 1j, 5))
    check(xp.linspace(1 + 1j, 2, 3, endpoint=False), np.linspace(1 + 1j, 2, 3, endpoint=False))
    with pytest.raises(ValueError):
        xp.linspace(0, 1, True)
    with pytest.raises(TypeError):
        xp.linspace(0, 1j, 3, dtype=xp.float64)


def test_asarray_without_copy_sees_later_setitem():
    x = xp.asarray([1, 2, 3])
    shared, copied = xp.asarray(x, copy=False), xp.asarray(x, copy=True)
    x[0] = 9
    check(shared, [9, 2, 3])
    check(copied, [1, 2, 3])
