"""Integer-array and boolean-mask indexing (``__getitem__`` and ``__setitem__``), take and
take_along_axis against numpy: values, dtypes and shapes (including numpy's placement
of gathered axes), errors, and programs whose inputs are placeholders.
"""
import numpy as np
import pytest

import lazyarray as xp

from helpers import check

E = Ellipsis


def lazy_key(key):
    key = key if isinstance(key, tuple) else (key,)
    return tuple(xp.asarray(k) if isinstance(k, np.ndarray) else k for k in key)


@pytest.fixture
def a3():
    return np.arange(24.0).reshape(2, 3, 4) - 7.5


I1 = np.array([1, 0, -1])
I2 = np.array([[1], [0]])

ARRAY_KEYS = [
    (I1,), (1, I1), (I2, I1), (slice(None), I1), (slice(None), 1, I1), (I2, slice(None), I1),
    (I1[:2], E), (E, I1), (None, 0, I1), (slice(None, None, -1), I2, slice(1, 3)),
    (0, I2, None, I1), (I2, I2, I2), (np.array(1), I1), (np.array([], dtype=np.int64),),
    (np.array([1, 0, 1], np.uint8), slice(1, None)),
    (I1.astype(np.int16), np.array([2, 0, 1], np.uint64)),
]


@pytest.mark.parametrize("key", ARRAY_KEYS, ids=repr)
def test_integer_array_getitem_matches_numpy(a3, key):
    check(xp.asarray(a3)[lazy_key(key)], a3[key])


@pytest.mark.parametrize("key", ARRAY_KEYS, ids=repr)
def test_integer_array_setitem_matches_numpy(a3, key):
    x, want = xp.asarray(a3), a3.copy()
    before = xp.asarray(x, copy=True)
    view, want_view = x[...], want[...]
    x[lazy_key(key)] = -1.0
    want[key] = -1.0
    check(x, want)
    check(before, a3)  # a copy taken before the update keeps the old values
    check(view, want_view)  # a view (x[...]) sees the update, as numpy's does
    value = np.arange(np.asarray(a3[key]).size, dtype=np.float64).reshape(a3[key].shape)
    x[lazy_key(key)] = xp.asarray(value)
    want[key] = value
    check(x, want)


def test_zero_d_integer_array_indices_stay_views(a3):
    x = xp.asarray(a3)
    out = x[xp.asarray(1), xp.asarray(-1)]
    check(out, a3[1, -1])
    assert out._node.op.value == "slice"
    y = xp.asarray(a3)
    y[xp.asarray(0), 2] = 5.0
    want = a3.copy()
    want[0, 2] = 5.0
    check(y, want)


def test_numpy_arrays_in_keys_act_as_index_arrays(a3):
    x = xp.asarray(a3)
    check(x[I2, 1:, I1], a3[I2, 1:, I1])
    check(x[a3 > 2], a3[a3 > 2])
    y, want = xp.asarray(a3), a3.copy()
    y[I1, 0] = 3.0
    want[I1, 0] = 3.0
    check(y, want)


def test_integer_array_errors(a3):
    x = xp.asarray(a3)
    with pytest.raises(IndexError):
        x[xp.asarray([0.0, 1.0])]
    with pytest.raises(IndexError):
        x[xp.asarray([0]), 5]  # an int out of bounds is caught when recording
    with pytest.raises(IndexError):
        np.asarray(x[xp.asarray([2])])  # an array index out of bounds, when the gather runs
    with pytest.raises(IndexError):
        x[xp.asarray([0]), xp.asarray([0]), xp.asarray([0]), xp.asarray([0])]
    with pytest.raises(ValueError):
        np.asarray(x[xp.asarray([0, 1]), xp.asarray([0, 1, 2])])  # index arrays do not broadcast


# --------------------------------------------------------------------------- boolean masks

@pytest.mark.parametrize("mask_of", [lambda a: a > 0, lambda a: a[..., 0] > -2,
                                     lambda a: a[0, 0, 0] > 0, lambda a: np.asarray(True),
                                     lambda a: np.asarray(False), lambda a: a[:, :0, 0] > 0,
                                     lambda a: np.zeros(a.shape, bool)], ids=range(7))
def test_mask_getitem_matches_numpy(a3, mask_of):
    m = mask_of(a3)
    check(xp.asarray(a3)[xp.asarray(m)], a3[m] if m.shape[1:2] != (0,) else np.zeros((0, 4)))


def test_mask_getitem_dtypes_and_lazy_x():
    for dtype in (np.bool_, np.int8, np.uint32, np.float32, np.complex128):
        v = (np.arange(12) % 5).astype(dtype).reshape(3, 4)
        m = np.arange(12).reshape(3, 4) % 3 == 1
        check(xp.asarray(v)[xp.asarray(m)], v[m])
    # the mask is evaluated now; the array being indexed may be a placeholder
    p = xp.placeholder(("n", 2), name="p")
    m = np.array([True, False, True])
    prog = xp.compile(xp.sin(p)[xp.asarray(m)] + 1, inputs=[p])
    v = np.arange(6.0).reshape(3, 2)
    check(prog(v), np.sin(v)[m] + 1)


def test_mask_errors(a3):
    x = xp.asarray(a3)
    with pytest.raises(IndexError):
        x[xp.asarray(np.ones((3,), bool))]  # shape does not match
    with pytest.raises(IndexError):
        x[xp.asarray(np.ones((2, 3, 4, 1), bool))]  # too many dims
    with pytest.raises(IndexError):
        x[xp.asarray(np.ones((2,), bool)), 0]  # not the sole index
    with pytest.raises(xp.ConcretizationError, match="boolean mask"):
        p = xp.placeholder((4,), name="p")
        p[p > 0]


def test_mask_setitem_matches_numpy(a3):
    x, want = xp.asarray(a3), a3.copy()
    m = a3 > 0
    x[xp.asarray(m)] = 0.5
    want[m] = 0.5
    check(x, want)
    m2 = a3[..., 0] < -3  # leading-axes mask, value broadcast over the trailing axis
    x[xp.asarray(m2)] = xp.asarray([1.0, 2.0, 3.0, 4.0])
    want[m2] = [1.0, 2.0, 3.0, 4.0]
    check(x, want)
    m3 = a3 < -2  # one value per selected element: a scatter
    vals = np.arange(m3.sum(), dtype=np.float64) * 10
    x[xp.asarray(m3)] = xp.asarray(vals)
    want[m3] = vals
    check(x, want)
    x[xp.asarray(True)] = xp.asarray(7.0)
    check(x, np.full_like(a3, 7.0))


def test_mask_setitem_dtypes_and_errors():
    for dtype, value in ((np.bool_, True), (np.int16, -3), (np.uint8, 200), (np.complex64, 1j)):
        v = np.zeros((2, 3), dtype)
        m = np.array([[True, False, True], [False, False, True]])
        x = xp.asarray(v)
        x[xp.asarray(m)] = value
        v[m] = value
        check(x, v)
    x = xp.asarray(np.zeros(3, np.int32))
    with pytest.raises(TypeError):
        x[xp.asarray([True, False, True])] = 1.5
    with pytest.raises(TypeError):
        x[xp.asarray([True, False, True])] = xp.asarray(1.0)


def test_mask_setitem_is_lazy_in_a_program():
    def clip_negative(p):
        q = p * 1
        q[q < 0] = 0.0
        return q
    p = xp.placeholder(("n",), name="p")
    prog = xp.compile(clip_negative(p), inputs=[p])
    assert "where" in prog.ops and not any(op.startswith("gather") or "scatter" in op
                                           for op in prog.ops)
    for n in (1, 8, 33):
        v = np.linspace(-1, 1, n)
        check(prog(v), np.maximum(v, 0))


# --------------------------------------------------------------------------- take

@pytest.mark.parametrize("axis", [0, 1, 2, -1])
def test_take_matches_numpy(a3, axis):
    idx = np.array([0, -1, 1, 1])
    check(xp.take(xp.asarray(a3), xp.asarray(idx), axis=axis), np.take(a3, idx, axis=axis))
    check(xp.take(xp.asarray(a3), xp.asarray(idx[:1].astype(np.uint16)), axis=axis),
          np.take(a3, idx[:1], axis=axis))


def test_take_one_d_nd_indices_and_errors():
    v = np.arange(5, dtype=np.int8) * 3
    check(xp.take(xp.asarray(v), xp.asarray([4, 0, -2])), np.take(v, [4, 0, -2]))
    i2 = np.array([[0, 1], [4, 4]])
    check(xp.take(xp.asarray(v), xp.asarray(i2), axis=0), np.take(v, i2, axis=0))
    x = xp.asarray(np.ones((2, 3)))
    with pytest.raises(ValueError):
        xp.take(x, xp.asarray([0]))  # axis required above 1-d
    with pytest.raises(TypeError):
        xp.take(x, xp.asarray([0.0]), axis=0)
    with pytest.raises(IndexError):
        xp.take(x, xp.asarray([0]), axis=2)
    with pytest.raises(IndexError):
        np.asarray(xp.take(x, xp.asarray([3]), axis=0))


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_take_along_axis_matches_numpy(a3, axis):
    rng = np.random.default_rng(3)
    shape = list(a3.shape)
    shape[axis] = 6
    idx = rng.integers(-a3.shape[axis], a3.shape[axis], size=shape)
    check(xp.take_along_axis(xp.asarray(a3), xp.asarray(idx), axis=axis),
          np.take_along_axis(a3, idx, axis=axis))
    # indices broadcast against x outside the axis
    one = idx[:1] if axis != 0 else idx[:, :1]
    full = list(a3.shape)
    full[axis] = 6
    check(xp.take_along_axis(xp.asarray(a3), xp.asarray(one), axis=axis),
          np.take_along_axis(a3, np.broadcast_to(one, full), axis=axis))


def test_take_along_axis_errors():
    x = xp.asarray(np.ones((2, 3)))
    with pytest.raises(ValueError):
        xp.take_along_axis(x, xp.asarray([0]))
    with pytest.raises(TypeError):
        xp.take_along_axis(x, xp.asarray([[0.0]]))


# --------------------------------------------------------------------------- placeholders

def test_gathers_with_placeholder_data_and_indices():
    v = xp.placeholder(("n", 3), name="v")
    i = xp.placeholder(("k",), xp.int64, name="i")
    j = xp.placeholder(("n", 2), xp.int64, name="j")
    out = (xp.take(v, i, axis=0) * 2, v[i, xp.asarray([2])], xp.take_along_axis(v, j, axis=1))
    prog = xp.compile(out, inputs=[v, i, j])
    for n, idx in ((4, [3, 0, -1]), (2, [1])):
        a = np.arange(n * 3.0).reshape(n, 3)
        idx = np.asarray(idx)
        jj = (np.arange(n * 2).reshape(n, 2) * 5) % 3 - 1
        got = prog(a, idx, jj)
        check(got[0], np.take(a, idx, axis=0) * 2)
        check(got[1], a[idx, [2]])
        check(got[2], np.take_along_axis(a, jj, axis=1))
    with pytest.raises(IndexError):
        prog(np.ones((2, 3)), np.array([2]), np.zeros((2, 2), np.int64))
