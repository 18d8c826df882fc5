"""__setitem__ (functional update) and concat/stack against numpy."""
import numpy as np
import pytest

import lazyarray as xp

KEYS = [(1, slice(None, None, 2)), (slice(None), 3), Ellipsis, (slice(1, None), slice(None, 2)),
        (-1,), (slice(None, None, -1), 0), (slice(5, 9),)]


@pytest.mark.parametrize("key", KEYS)
@pytest.mark.parametrize("value", ["scalar", "array"])
def test_setitem_matches_numpy(key, value):
    ref = np.arange(12.0).reshape(3, 4)
    a = xp.asarray(ref.copy())
    before = a * 1  # computed from the old a: must keep the old values
    v = -5.0 if value == "scalar" else np.arange(ref[key].size, dtype=float).reshape(ref[key].shape) + 100
    a[key] = v if value == "scalar" else xp.asarray(v)
    ref[key] = v
    np.testing.assert_array_equal(np.asarray(a), ref)
    np.testing.assert_array_equal(np.asarray(before), np.arange(12.0).reshape(3, 4))


def test_setitem_chained_and_broadcast_value():
    a = xp.zeros((3, 4), dtype=xp.int32)
    a[0] = xp.asarray([1, 2, 3, 4], dtype=xp.int32)
    a[1:, 1:3] = 7
    a[2, :] = xp.asarray([9], dtype=xp.int32)  # broadcasts
    ref = np.zeros((3, 4), np.int32)
    ref[0] = [1, 2, 3, 4]
    ref[1:, 1:3] = 7
    ref[2, :] = 9
    np.testing.assert_array_equal(np.asarray(a), ref)
    assert a.dtype == xp.int32


def test_setitem_in_a_symbolic_program():
    x = xp.placeholder(("n",), name="x")
    y = x * 2
    y[0] = -1.0
    p = xp.compile(y, inputs=[x]).prepare(np.arange(4.0))
    np.testing.assert_array_equal(np.asarray(p(np.arange(4.0))), [-1, 2, 4, 6])
    np.testing.assert_array_equal(np.asarray(p(np.arange(6.0))), [-1, 2, 4, 6, 8, 10])


def test_setitem_errors():
    a = xp.zeros((3,), dtype=xp.int32)
    with pytest.raises(TypeError, match="dtype"):
        a[0] = xp.asarray(1.5)
    with pytest.raises(TypeError):
        a[0] = 1.5
    with pytest.raises(IndexError):
        a[3] = 1
    with pytest.raises(ValueError):
        a[0:2] = xp.asarray([1, 2, 3], dtype=xp.int32)


@pytest.mark.parametrize("axis", [0, 1, -1, None])
def test_concat_matches_numpy(axis):
    a = np.arange(6.0).reshape(2, 3)
    b = np.ones((2, 3)) * 7
    got = xp.concat([xp.asarray(a), xp.sin(xp.asarray(b)), xp.asarray(a) * 2], axis=axis)
    np.testing.assert_allclose(np.asarray(got), np.concatenate([a, np.sin(b), a * 2], axis=axis),
                               rtol=1e-15)


def test_concat_promotes_and_checks():
    got = xp.concat([xp.asarray([1], dtype=xp.int8), xp.asarray([300], dtype=xp.int16)])
    assert got.dtype == xp.int16 and np.asarray(got).tolist() == [1, 300]
    with pytest.raises(ValueError):
        xp.concat([xp.zeros((2, 3)), xp.zeros((3, 2))], axis=0)
    with pytest.raises(TypeError):
        xp.concat(xp.zeros(3))


def test_concat_symbolic_sizes_run_without_recompiling():
    x = xp.placeholder(("n",), name="x")
    y = xp.concat([x, x * 2, xp.sum(x, keepdims=True)])
    p = xp.compile(y, inputs=[x]).prepare(np.arange(3.0))
    m = xp.compile_cache_info().misses
    for n in (0, 1, 5):
        v = np.arange(float(n))
        np.testing.assert_array_equal(np.asarray(p(v)), np.concatenate([v, v * 2, [v.sum()]]))
    assert xp.compile_cache_info().misses == m


@pytest.mark.parametrize("axis", [0, 1, 2, -1])
def test_stack_matches_numpy(axis):
    a = np.arange(6.0).reshape(2, 3)
    got = xp.stack([xp.asarray(a), xp.asarray(a) + 1], axis=axis)
    np.testing.assert_array_equal(np.asarray(got), np.stack([a, a + 1], axis=axis))
