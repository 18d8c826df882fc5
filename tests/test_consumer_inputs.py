"""Inputs that consumers (scipy, scikit-learn, matplotlib) pass and numpy and
array-api-strict accept: numpy integers and 0-d integer arrays as sizes, 0-d arrays as
arange() bounds; and the errors they branch on (iter() of a 0-d array, result_type() of
Python scalars only); numpy accepts their dtypes, which do not look like arrays."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray.backend.ir import NUMPY_DTYPE_PROTOCOL


@pytest.mark.parametrize("size", [np.int64(2), np.int32(2), np.uint8(2), np.intp(2)])
def test_numpy_integers_are_sizes(size):
    assert xp.full((size,), -xp.inf).shape == (2,)
    assert xp.zeros(size).shape == (2,)
    assert xp.ones((size, 3)).shape == (2, 3)
    assert xp.empty((3, size)).shape == (3, 2)
    assert xp.reshape(xp.ones(6), (size, 3)).shape == (2, 3)
    assert xp.broadcast_to(xp.ones(3), (size, 3)).shape == (2, 3)
    shape = xp.zeros((size, size)).shape
    assert shape == (2, 2) and all(type(d) is int for d in shape)


def test_a_0d_integer_array_is_a_size():
    n = xp.asarray(3)
    assert xp.zeros((n, 2)).shape == (3, 2)


@pytest.mark.parametrize("bad", [True, np.bool_(True), 2.0, np.float64(2.0), "2", None])
def test_sizes_that_are_not_integers_are_refused(bad):
    with pytest.raises(TypeError, match="shape entries must be ints"):
        xp.zeros((bad, 2))
    with pytest.raises(TypeError, match="shape entries must be ints"):
        xp.reshape(xp.ones(4), (bad, 2))


def test_0d_arrays_and_numpy_scalars_bound_arange():
    n = xp.asarray(4)
    np.testing.assert_array_equal(np.asarray(xp.arange(1, n + 1)), np.arange(1, 5))
    np.testing.assert_array_equal(np.asarray(xp.arange(np.int64(3))), np.arange(3))
    got = xp.arange(xp.asarray(2.5))
    assert got.dtype == xp.float64
    np.testing.assert_array_equal(np.asarray(got), np.arange(2.5))
    with pytest.raises(TypeError, match="arange"):
        xp.arange(xp.asarray(1.0 + 2j))


def test_iter_of_a_0d_array_raises_at_once():
    with pytest.raises(TypeError, match="0-d"):
        iter(xp.asarray(3.0))
    assert not np.iterable(xp.asarray(3.0))
    assert [float(v) for v in xp.asarray([1.0, 2.0])] == [1.0, 2.0]


def test_result_type_of_python_scalars_only_is_a_value_error():
    with pytest.raises(ValueError, match="besides Python scalars"):
        xp.result_type(1.0, 2.0)
    assert xp.result_type(xp.float32, 1.0) == xp.float32


@pytest.mark.parametrize("name", ["bool", "int8", "uint64", "float32", "float64", "complex64"])
def test_numpy_accepts_lazyarray_dtypes(name):
    d = getattr(xp, name)
    assert np.dtype(d) == np.dtype(name)
    assert np.zeros(2, dtype=d).dtype == np.dtype(name)
    assert np.asarray([1, 0]).astype(d).dtype == np.dtype(name)
    assert xp.asarray(np.ones(2, dtype=d)).dtype is d
    assert np.astype(np.asarray([1, 0]), d).dtype == np.dtype(name)


def test_devices_is_a_tuple_a_list_can_be_added_to():
    # The 2025.12 standard's devices() returns a tuple (2024.12's a list); scipy 1.17's
    # conftest appends [None] to it, which a plain tuple refuses.
    info = xp.__array_namespace_info__()
    cpu = xp.asarray(1).device
    assert isinstance(info.devices(), tuple) and info.devices() == (cpu,)
    assert info.devices() + [None] == [cpu, None]
    assert [None] + info.devices() == [None, cpu]
    assert info.devices() + (None,) == (cpu, None)


@pytest.mark.parametrize("dtype", [None, xp.int32, xp.float32])
def test_a_0d_array_is_a_fill_value(dtype):
    # numpy takes a 0-d array as full()'s fill value; scipy passes xp.asarray(code).
    want = np.full(3, np.asarray(-1), dtype=None if dtype is None else dtype.np)
    got = xp.full(3, xp.asarray(-1), dtype=dtype)
    assert got.dtype == (xp.int64 if dtype is None else dtype)
    np.testing.assert_array_equal(np.asarray(got), want)
    got[1] = 5                                  # a fresh array: writes work
    want[1] = 5
    np.testing.assert_array_equal(np.asarray(got), want)
    like = xp.full_like(xp.ones((2, 2)), xp.asarray(2.5), dtype=dtype)
    np.testing.assert_array_equal(np.asarray(like), np.full_like(
        np.ones((2, 2)), np.asarray(2.5), dtype=None if dtype is None else dtype.np))
    with pytest.raises(TypeError, match="must be 0-d"):
        xp.full(3, xp.asarray([1, 2, 3]))


@pytest.mark.skipif(not NUMPY_DTYPE_PROTOCOL, reason="numpy < 2.4 reads only a dtype attribute")
@pytest.mark.parametrize("name", ["bool", "int16", "uint8", "float64", "complex128"])
def test_a_dtype_does_not_look_like_an_array(name):
    # scipy's xp_result_type reads "the dtype of an array, or the dtype itself" as
    # getattr(x, "dtype", x): a dtype attribute on the dtype handed it numpy's dtype,
    # which the namespace's isdtype refuses (as array-api-strict's does).
    d = getattr(xp, name)
    assert not hasattr(d, "dtype")
    assert getattr(d, "dtype", d) is d
    assert d.__numpy_dtype__ == np.dtype(name)
    assert xp.isdtype(getattr(d, "dtype", d), "numeric") == (name != "bool")
    with pytest.raises(TypeError, match="must be a lazyarray dtype"):
        xp.isdtype(np.dtype(name), "numeric")
