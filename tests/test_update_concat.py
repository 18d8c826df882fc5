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


def _kernels(*outs) -> int:
    return len(xp.compile(list(outs))._schedule.kernels)


@pytest.mark.parametrize("tier", ["interpret", "compile"])
def test_a_concat_read_only_by_a_concat_writes_into_its_buffer(tier, monkeypatch):
    """A stencil's border put back with nested concats: the inner concat's parts write
    straight into the outer one's buffer (no buffer of its own, no copy kernel); an
    inner concat read elsewhere too, or asked for, keeps its buffer."""
    monkeypatch.setenv("LAZYARRAY_TIER", tier)
    rng = np.random.default_rng(4)
    u = rng.normal(size=(6, 7))

    def sweep():
        U = xp.asarray(u)
        inner = 0.25 * (U[:-2, 1:-1] + U[2:, 1:-1] + U[1:-1, :-2] + U[1:-1, 2:])
        mid = xp.concat([U[1:-1, :1], inner, U[1:-1, -1:]], axis=1)
        return mid, xp.concat([U[:1, :], mid, U[-1:, :]], axis=0)
    mid, new = sweep()
    assert _kernels(new) == 5  # 3 parts of mid and 2 of new: mid is not copied
    assert _kernels(new, mid) == 6  # mid asked for too: its buffer, then a copy of it
    assert _kernels(xp.concat([mid, mid], axis=0)) == 5  # read twice: mid, 2 copies
    want_inner = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
    want_mid = np.concatenate([u[1:-1, :1], want_inner, u[1:-1, -1:]], axis=1)
    want = np.concatenate([u[:1, :], want_mid, u[-1:, :]], axis=0)
    np.testing.assert_allclose(np.asarray(new), want, rtol=1e-15)
    mid, new = sweep()
    both = xp.concat([mid, mid], axis=0)
    np.testing.assert_allclose(np.asarray(both), np.concatenate([want_mid, want_mid], 0),
                               rtol=1e-15)
    deep = xp.asarray(np.zeros(1))
    for i in range(2000):  # nested 2,000 deep: no recursion, one kernel a part
        deep = xp.concat([deep, xp.asarray(np.full(1, float(i)))])
    got = np.asarray(deep)
    assert got.shape == (2001,) and got[1:].tolist() == [float(i) for i in range(2000)]
