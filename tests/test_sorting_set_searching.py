"""Sorting (sort, argsort), set (unique_*, isin) and searching (argmax, argmin,
count_nonzero, nonzero, searchsorted) functions against numpy.

Values, dtypes and shapes are compared for every dtype the functions accept,
every axis form, ties (stability, first occurrence), NaNs and signed zeros,
empty and 0-d inputs, lazy producers and consumers, and programs on
placeholders (symbolic sizes; the native paths of argmax/argmin/isin with
concrete sizes).  Data-dependent functions raise ConcretizationError on
placeholders.
"""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray.backend.ir import Op, toposort

from helpers import check

INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
FLOATS = ["float32", "float64"]
REAL = INTS + FLOATS
NAN = float("nan")


def data(shape, dtype, rng, lo=-3, hi=4):
    """Values with many ties: small integers (non-negative when unsigned), bools, or
    small integers as floats."""
    d = np.dtype(dtype)
    if d.kind == "b":
        return rng.random(shape) < 0.5
    return rng.integers(0 if d.kind == "u" else lo, hi, shape).astype(d)


def ops(arr):
    return {n.op for n in toposort([arr._node])}


def ref_argsort(a, axis, descending):
    """Stable argsort by Python's sorted (stable for reverse=True too)."""
    def one(v):
        return np.array(sorted(range(len(v)), key=lambda i: v[i], reverse=descending),
                        dtype=np.int64)
    return np.apply_along_axis(one, axis, a)


# --------------------------------------------------------------------------- sort, argsort

@pytest.mark.parametrize("dtype", REAL + ["bool"])
def test_sort_argsort_stable_every_dtype_and_axis(dtype):
    rng = np.random.default_rng(0)
    a = data((3, 5, 6), dtype, rng)
    x = xp.asarray(a)
    for axis in (-1, 0, 1, -2):
        for desc in (False, True):
            idx = ref_argsort(a, axis, desc)
            check(xp.argsort(x, axis=axis, descending=desc), idx)
            check(xp.sort(x, axis=axis, descending=desc), np.take_along_axis(a, idx, axis))


@pytest.mark.parametrize("desc", [False, True])
def test_unstable_sort_is_a_sorting_permutation(desc):
    a = data((4, 40), "int32", np.random.default_rng(1))
    x = xp.asarray(a)
    want = np.sort(a, axis=1)[:, ::-1] if desc else np.sort(a, axis=1)
    check(xp.sort(x, axis=1, descending=desc, stable=False), want)
    idx = np.asarray(xp.argsort(x, axis=1, descending=desc, stable=False))
    assert idx.dtype == np.int64
    assert (np.sort(idx, axis=1) == np.arange(40)).all()
    np.testing.assert_array_equal(np.take_along_axis(a, idx, 1), want)


def test_sort_nan_and_signed_zero_order():
    a = np.array([1.0, NAN, -0.0, 0.0, -1.0, NAN, 0.0, -0.0])
    x = xp.asarray(a)
    # ascending: NaNs last, equal zeros keep their input order (stable)
    idx = np.asarray(xp.argsort(x))
    np.testing.assert_array_equal(idx, [4, 2, 3, 6, 7, 0, 1, 5])
    s = np.asarray(xp.sort(x))
    np.testing.assert_array_equal(np.signbit(s), np.signbit(a[idx]))
    # descending: NaNs first, zeros still in input order
    idx = np.asarray(xp.argsort(x, descending=True))
    np.testing.assert_array_equal(idx[:2], [1, 5])
    np.testing.assert_array_equal(idx[2:], [0, 2, 3, 6, 7, 4])
    s = np.asarray(xp.sort(x, descending=True))
    np.testing.assert_array_equal(np.signbit(s), np.signbit(a[idx]))


def test_sort_complex_lexicographic():
    a = np.array([2 + 1j, 1 + 5j, 2 - 1j, 1 + 5j])
    check(xp.sort(xp.asarray(a)), np.sort(a))
    check(xp.argsort(xp.asarray(a), descending=True), [0, 2, 1, 3])


def test_sort_errors_and_sizes():
    with pytest.raises(IndexError):
        xp.sort(xp.asarray(1.0))  # a 0-d array has no axis -1
    with pytest.raises(IndexError):
        xp.argsort(xp.asarray([1, 2]), axis=1)
    with pytest.raises(TypeError):
        xp.sort(np.array([1, 2]))
    e = np.zeros((2, 0))
    check(xp.sort(xp.asarray(e)), e)
    check(xp.argsort(xp.asarray(e), axis=0, descending=True), np.zeros((2, 0), np.int64))
    check(xp.argsort(xp.asarray([7.0])), [0])


def test_sort_in_a_lazy_graph_and_symbolic_program():
    p = xp.placeholder(("n", "m"), xp.float64, name="p")
    out = xp.sort(p * 2.0, axis=0, descending=True) + 1.0
    idx = xp.argsort(-p, axis=1)
    prog = xp.compile([out, idx], [p])
    rng = np.random.default_rng(2)
    for shape in ((3, 4), (7, 2), (1, 5)):
        a = rng.standard_normal(shape)
        o, i = prog(a)
        check(o, np.sort(a * 2, axis=0)[::-1] + 1)
        check(i, np.argsort(-a, axis=1, kind="stable"))


# --------------------------------------------------------------------------- unique_*

def unique_reference(a):
    """First indices, inverse and counts by Python, treating each NaN as distinct."""
    flat = a.reshape(-1)
    vals, first, counts, inverse = [], [], [], []
    where = {}
    for i, v in enumerate(flat.tolist()):
        key = v if v == v else ("nan", i)  # NaN (or complex with a NaN part) is distinct
        if key not in where:
            where[key] = len(vals)
            vals.append(v)
            first.append(i)
            counts.append(0)
        counts[where[key]] += 1
        inverse.append(where[key])
    return vals, first, counts, np.array(inverse, dtype=np.int64).reshape(a.shape)


def check_unique_all(x, a):
    r = xp.unique_all(x)
    assert r._fields == ("values", "indices", "inverse_indices", "counts")
    v, i, inv, c = (np.asarray(t) for t in r)
    assert v.dtype == a.dtype and v.ndim == 1
    for t in (i, inv, c):
        assert t.dtype == np.int64
    assert i.shape == c.shape == v.shape and inv.shape == a.shape
    vals, first, counts, _ = unique_reference(a)
    assert len(v) == len(vals)
    # order is unspecified: match each returned value to the reference by first index
    ref = {f: (val, cnt) for val, f, cnt in zip(vals, first, counts)}
    for val, f, cnt in zip(v.tolist(), i.tolist(), c.tolist()):
        rv, rc = ref.pop(f)
        assert (val == rv or (val != val and rv != rv)) and cnt == rc
    rebuilt = v[inv]
    np.testing.assert_array_equal(rebuilt, a)  # NaN == NaN for assert_array_equal
    # each NaN gets its own value: rebuilding maps it to a distinct entry
    nan_pos = np.isnan(a) if a.dtype.kind in "fc" else np.zeros(a.shape, bool)
    assert len(set(inv[nan_pos].tolist())) == int(nan_pos.sum())
    return r


@pytest.mark.parametrize("dtype", REAL + ["bool"])
def test_unique_every_dtype(dtype):
    a = data((4, 6), dtype, np.random.default_rng(3))
    x = xp.asarray(a)
    r = check_unique_all(x, a)
    vals = np.asarray(r.values)
    cnt = xp.unique_counts(x)
    assert cnt._fields == ("values", "counts")
    check(cnt.values, vals)
    check(cnt.counts, r.counts)
    inv = xp.unique_inverse(x)
    assert inv._fields == ("values", "inverse_indices")
    check(inv.values, vals)
    check(inv.inverse_indices, r.inverse_indices)
    check(xp.unique_values(x), vals)
    check(xp.unique_values(x), np.unique(a))  # sorted, like the other unique_*


def test_unique_nans_are_distinct_and_signed_zeros_are_not():
    a = np.array([[NAN, 1.0, -0.0], [NAN, 0.0, 1.0]], dtype=np.float32)
    r = check_unique_all(xp.asarray(a), a)
    v, c = np.asarray(r.values), np.asarray(r.counts)
    assert np.isnan(v).sum() == 2 and (c[np.isnan(v)] == 1).all()
    assert (v == 0).sum() == 1 and c[v == 0][0] == 2
    assert np.isnan(np.asarray(xp.unique_values(xp.asarray(a)))).sum() == 2


def test_unique_complex_with_nan_parts():
    a = np.array([complex(NAN, 0), 1 + 0j, complex(1, NAN), complex(NAN, 0), 1 + 0j, -0j])
    r = check_unique_all(xp.asarray(a), a)
    assert len(np.asarray(r.values)) == 5


def test_unique_zero_d_empty_and_lazy_input():
    check_unique_all(xp.asarray(2.5), np.array(2.5))
    r = xp.unique_inverse(xp.asarray(True))
    check(r.inverse_indices, np.array(0))
    e = np.zeros((2, 0))
    r = check_unique_all(xp.asarray(e), e)
    assert r.values.shape == (0,)
    # a derived (unevaluated) input is evaluated first; results are data leaves
    a = np.array([3, 1, 3, 2])
    y = xp.unique_values(xp.asarray(a) * 2 - 1)
    check(y, [1, 3, 5])
    assert y.attached_value is not None
    check(xp.sum(y), 9)


def test_unique_and_nonzero_on_placeholders_raise():
    p = xp.placeholder(("n",), xp.float64, name="p")
    for f in (xp.unique_all, xp.unique_counts, xp.unique_inverse, xp.unique_values, xp.nonzero):
        with pytest.raises(xp.ConcretizationError, match="depends on the values"):
            f(p + 1.0)


# --------------------------------------------------------------------------- isin

@pytest.mark.parametrize("dtype", INTS)
def test_isin_native_and_external_paths(dtype):
    rng = np.random.default_rng(4)
    a, b = data((3, 5), dtype, rng), data((4,), dtype, rng)
    x1, x2 = xp.asarray(a), xp.asarray(b)
    got = xp.isin(x1, x2)
    assert Op.EXTERNAL not in ops(got)
    check(got, np.isin(a, b))
    check(xp.isin(x1, x2, invert=True), np.isin(a, b, invert=True))
    big1, big2 = data((3000,), dtype, rng, -100, 100), data((2000,), dtype, rng, -100, 100)
    got = xp.isin(xp.asarray(big1), xp.asarray(big2))
    assert Op.EXTERNAL in ops(got)
    check(got, np.isin(big1, big2))


def test_isin_scalars_mixed_dtypes_and_floats():
    a = np.array([[1, 2], [3, 250]], dtype=np.uint8)
    x = xp.asarray(a)
    check(xp.isin(x, 3), a == 3)
    check(xp.isin(x, 3, invert=True), a != 3)
    check(xp.isin(x, 300), np.zeros((2, 2), bool))  # out of uint8's range: in nothing
    check(xp.isin(x, -1, invert=True), np.ones((2, 2), bool))
    check(xp.isin(250, x), np.array(True))
    check(xp.isin(7, x), np.array(False))
    check(xp.isin(-7, x), np.array(False))
    check(xp.isin(xp.asarray([1, 5], dtype=xp.int16), xp.asarray([5, 9], dtype=xp.int8)),
          [False, True])
    f = np.array([NAN, -0.0, 1.5])
    check(xp.isin(xp.asarray(f), xp.asarray([0.0, NAN])), [False, True, False])
    check(xp.isin(xp.asarray(3), xp.asarray(np.zeros(0, np.int64))), np.array(False))
    with pytest.raises(TypeError):
        xp.isin(1, 2)


def test_isin_programs():
    p = xp.placeholder(("n",), xp.int64, name="p")
    q = xp.placeholder(("m",), xp.int64, name="q")
    prog = xp.compile(xp.isin(p * 2, q, invert=True), [p, q])  # symbolic sizes: external
    for n, m in ((5, 3), (9, 1)):
        a, b = np.arange(n), np.arange(m) * 3
        check(prog(a, b), ~np.isin(a * 2, b))
    c = xp.placeholder((6,), xp.int64, name="c")
    out = xp.isin(c, xp.asarray([2, 4]))  # concrete sizes: native
    assert Op.EXTERNAL not in ops(out)
    check(xp.compile(out, [c])(np.arange(6)), np.isin(np.arange(6), [2, 4]))


# --------------------------------------------------------------------------- argmax, argmin

@pytest.mark.parametrize("dtype", REAL + ["bool"])
def test_argmax_argmin_every_dtype_axis_keepdims(dtype):
    a = data((3, 4, 5), dtype, np.random.default_rng(5))
    x = xp.asarray(a)
    for axis in (None, 0, 1, 2, -1):
        for keepdims in (False, True):
            got_max = xp.argmax(x, axis=axis, keepdims=keepdims)
            assert Op.EXTERNAL not in ops(got_max)
            check(got_max, np.argmax(a, axis=axis, keepdims=keepdims))
            check(xp.argmin(x, axis=axis, keepdims=keepdims),
                  np.argmin(a, axis=axis, keepdims=keepdims))


def test_argmax_argmin_nan_signed_zero_and_extremes():
    a = np.array([[1.0, NAN, 3.0, NAN], [-0.0, 0.0, -1.0, -1.0], [np.inf, 2.0, np.inf, -np.inf]],
                 dtype=np.float32)
    x = xp.asarray(a)
    for axis in (None, 0, 1):
        check(xp.argmax(x, axis=axis), np.argmax(a, axis=axis))
        check(xp.argmin(x, axis=axis), np.argmin(a, axis=axis))
    i = np.iinfo(np.int64)
    b = np.array([i.min, i.max, i.max, i.min])
    check(xp.argmax(xp.asarray(b)), 1)
    check(xp.argmin(xp.asarray(b)), 0)


@pytest.mark.parametrize("dtype", ["float64", "float32", "int8", "uint8", "bool"])
def test_compiled_argmax_argmin_keep_the_first_best(monkeypatch, dtype):
    """The compiled tier's arg-reductions against numpy: rows of lengths 1 to 13 (a
    vector's width and its tails), ties, NaNs and extremes in every position, along a
    unit and a strided axis and over the whole array."""
    monkeypatch.setenv("LAZYARRAY_TIER", "compile")
    rng = np.random.default_rng(11)
    if dtype.startswith("float"):
        pool = np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, NAN, 2.5], dtype=dtype)
    elif dtype == "bool":
        pool = np.array([False, True])
    else:
        i = np.iinfo(dtype)
        pool = np.array([i.min, i.max, 0, 1, 2], dtype=dtype)
    for n in range(1, 14):
        for _ in range(4):
            a = rng.choice(pool, size=(3, n))
            for f in ("argmax", "argmin"):
                want, fn = getattr(np, f), getattr(xp, f)
                assert np.array_equal(np.asarray(fn(xp.asarray(a), axis=1)), want(a, axis=1))
                t = np.ascontiguousarray(a.T)  # the reduced axis strided
                assert np.array_equal(np.asarray(fn(xp.asarray(t), axis=0)), want(t, axis=0))
                assert int(fn(xp.asarray(a))) == int(want(a))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_compiled_argmax_argmin_of_long_rows(monkeypatch, dtype):
    """Rows read contiguously take two vectorised passes in compiled code (the extreme,
    then the least index holding it): against numpy on rows long enough for the vector
    loops (and their tails), with ties, signed zeros, infinities and NaNs placed in the
    vector part, the tail, first and last; a strided axis keeps the one-pass loop."""
    monkeypatch.setenv("LAZYARRAY_TIER", "compile")
    rng = np.random.default_rng(12)
    pool = np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, 2.5, -2.5], dtype=dtype)
    for n in (31, 32, 33, 64, 100, 1000):
        for trial in range(6):
            a = rng.choice(pool, size=(4, n)) if trial % 2 else \
                rng.standard_normal((4, n)).astype(dtype)
            if trial >= 4:  # NaNs: one row with one late, one with two
                a[1, n - 1] = NAN
                a[2, [n // 2, 3]] = NAN
            for f in ("argmax", "argmin"):
                want, fn = getattr(np, f), getattr(xp, f)
                assert np.array_equal(np.asarray(fn(xp.asarray(a), axis=1)), want(a, axis=1)), (n, f)
                assert int(fn(xp.asarray(a[0]))) == int(want(a[0]))
                t = np.ascontiguousarray(a.T)
                assert np.array_equal(np.asarray(fn(xp.asarray(t), axis=0)), want(t, axis=0))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_compiled_argmax_argmin_of_short_rows(monkeypatch, dtype):
    """A contiguous row of at most 64 bytes takes one masked vector (the lanes past the
    row unread): against numpy for every length from 1 to past the vector, with ties,
    signed zeros, infinities and NaNs anywhere; rows that repeat one element (stride 0)
    and columns keep the loops.  max and min of such rows too, the same bits as the
    loops give."""
    monkeypatch.setenv("LAZYARRAY_TIER", "compile")
    rng = np.random.default_rng(13)
    pool = np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, 2.5, NAN], dtype=dtype)
    lanes = 64 // np.dtype(dtype).itemsize
    for n in range(1, lanes + 3):
        for trial in range(4):
            a = rng.choice(pool, size=(9, n)) if trial % 2 else \
                rng.standard_normal((9, n)).astype(dtype)
            if trial == 2:
                a[4, n - 1] = NAN
            for f in ("argmax", "argmin"):
                want, fn = getattr(np, f), getattr(xp, f)
                assert np.array_equal(np.asarray(fn(xp.asarray(a), axis=1)), want(a, axis=1)), (n, f)
                assert int(fn(xp.asarray(a[3]))) == int(want(a[3]))
                col = xp.broadcast_to(xp.asarray(a[:, :1]), (9, n))  # stride 0 along the row
                assert np.array_equal(np.asarray(fn(col, axis=1)), np.zeros(9, np.int64))
                t = np.ascontiguousarray(a.T)
                assert np.array_equal(np.asarray(fn(xp.asarray(t), axis=0)), want(t, axis=0))
            for f in ("max", "min"):  # their extremes alone: the loops' values, to the bit
                fn = getattr(xp, f)
                short = np.asarray(fn(xp.asarray(a), axis=1))
                loops = np.asarray(fn(xp.asarray(np.ascontiguousarray(a.T)), axis=0))
                np.testing.assert_array_equal(short, getattr(np, f)(a, axis=1))
                assert np.array_equal(np.signbit(short), np.signbit(loops)), (n, f)
                np.testing.assert_array_equal(short, loops)


def test_argmax_complex_zero_d_and_errors():
    c = np.array([1 + 2j, 3 + 0j, 3 + 1j, 3 + 1j])
    check(xp.argmax(xp.asarray(c)), np.argmax(c))
    check(xp.argmin(xp.asarray(c)), np.argmin(c))
    check(xp.argmax(xp.asarray(4.0)), np.array(0))
    check(xp.argmin(xp.asarray(4.0), keepdims=True), np.array(0))
    with pytest.raises(IndexError):
        xp.argmax(xp.asarray(4.0), axis=0)
    with pytest.raises(ValueError, match="empty"):
        xp.argmax(xp.asarray(np.zeros((2, 0))), axis=1)
    with pytest.raises(ValueError, match="empty"):
        xp.argmin(xp.asarray(np.zeros((2, 0))))
    check(xp.argmax(xp.asarray(np.zeros((0, 3))), axis=1), np.zeros(0, np.int64))


def test_argmax_lazy_input_and_programs():
    rng = np.random.default_rng(6)
    a = rng.standard_normal((6, 5))
    # a lazy producer and a consumer around the native path
    check(xp.argmax(xp.sin(xp.asarray(a)), axis=0) + 1, np.argmax(np.sin(a), axis=0) + 1)
    p = xp.placeholder(("n", 5), xp.float64, name="p")
    outs = [xp.argmax(p, axis=1), xp.argmin(p, axis=0, keepdims=True), xp.argmax(p),
            xp.argmin(-p, keepdims=True)]
    for out in outs:  # native index-carrying reductions, symbolic axis sizes included
        assert Op.EXTERNAL not in ops(out)
    prog = xp.compile(outs, [p])
    for n in (6, 2):
        b = a[:n].copy()
        b[n - 1, 3] = NAN
        got = prog(b)
        check(got[0], np.argmax(b, axis=1))
        check(got[1], np.argmin(b, axis=0, keepdims=True))
        check(got[2], np.argmax(b))
        check(got[3], np.argmin(-b, keepdims=True))


# --------------------------------------------------------------------------- count_nonzero

@pytest.mark.parametrize("dtype", REAL + ["bool"])
def test_count_nonzero_every_dtype_and_axis(dtype):
    a = data((3, 4, 5), dtype, np.random.default_rng(7), -1, 2)
    x = xp.asarray(a)
    for axis in (None, 0, -1, (0, 2), (1,), ()):
        for keepdims in (False, True):
            want = np.count_nonzero(a, axis=axis, keepdims=keepdims)
            check(xp.count_nonzero(x, axis=axis, keepdims=keepdims), np.asarray(want, np.int64))


def test_count_nonzero_special_values_and_program():
    f = np.array([NAN, -0.0, 0.0, np.inf, 1e-45], dtype=np.float32)
    check(xp.count_nonzero(xp.asarray(f)), np.array(3))
    c = np.array([0j, 1j, complex(0, -0.0), 2 + 0j])
    check(xp.count_nonzero(xp.asarray(c)), np.array(2))
    p = xp.placeholder(("n", "m"), xp.int32, name="p")
    prog = xp.compile(xp.count_nonzero(p % 3, axis=0), [p])
    for shape in ((4, 3), (2, 7)):
        a = np.arange(np.prod(shape), dtype=np.int32).reshape(shape)
        check(prog(a), np.count_nonzero(a % 3, axis=0).astype(np.int64))


# --------------------------------------------------------------------------- nonzero

@pytest.mark.parametrize("dtype", ["bool", "int8", "uint32", "float32", "float64", "complex128"])
def test_nonzero(dtype):
    a = data((3, 4, 2), dtype, np.random.default_rng(8), -1, 2)
    if dtype.startswith("float"):
        a.flat[[0, 5]] = [NAN, -0.0]
    got = xp.nonzero(xp.asarray(a))
    want = np.nonzero(a)
    assert isinstance(got, tuple) and len(got) == 3
    for g, w in zip(got, want):
        check(g, w.astype(np.int64))
    for g, w in zip(xp.nonzero(xp.asarray(a) == xp.asarray(a)), np.nonzero(a == a)):  # lazy
        check(g, w.astype(np.int64))
    with pytest.raises(ValueError, match="0-d"):
        xp.nonzero(xp.asarray(1))


# --------------------------------------------------------------------------- searchsorted

@pytest.mark.parametrize("dtype", REAL)
def test_searchsorted_every_dtype_and_side(dtype):
    rng = np.random.default_rng(9)
    a = np.sort(data((12,), dtype, rng, -5, 6))
    v = data((3, 4), dtype, rng, -7, 8)
    for side in ("left", "right"):
        check(xp.searchsorted(xp.asarray(a), xp.asarray(v), side=side),
              np.searchsorted(a, v, side=side).astype(np.int64))
        order = rng.permutation(12)
        sorter = np.argsort(a[order], kind="stable")
        check(xp.searchsorted(xp.asarray(a[order]), xp.asarray(v), side=side,
                              sorter=xp.asarray(sorter.astype(np.int32))),
              np.searchsorted(a[order], v, side=side, sorter=sorter).astype(np.int64))


def test_searchsorted_scalars_mixed_dtypes_nan_and_errors():
    a = np.array([-1.0, 0.0, 2.0, 2.0, NAN])
    x = xp.asarray(a)
    check(xp.searchsorted(x, 2), np.array(2))  # an int with a float x1
    check(xp.searchsorted(x, 2.0, side="right"), np.array(4))
    check(xp.searchsorted(x, NAN), np.array(4))  # NaNs order last, as in sort
    check(xp.searchsorted(xp.asarray([1, 5, 9], dtype=xp.int8), xp.asarray([5, 300],
                                                                            dtype=xp.int16)),
          [1, 3])
    check(xp.searchsorted(xp.asarray(np.zeros(0)), xp.asarray([1.0])), [0])
    with pytest.raises(ValueError, match="one-dimensional"):
        xp.searchsorted(xp.asarray(np.zeros((2, 2))), 1.0)
    with pytest.raises(ValueError, match="side"):
        xp.searchsorted(x, 1.0, side="middle")
    with pytest.raises(TypeError):
        xp.searchsorted(xp.asarray([1, 2]), 1.5)
    with pytest.raises(TypeError):
        xp.searchsorted(x, 1.0, sorter=xp.asarray([0.0, 1.0, 2.0, 3.0, 4.0]))
    with pytest.raises(ValueError, match="sorter"):
        xp.searchsorted(x, 1.0, sorter=xp.asarray([0, 1]))


def test_searchsorted_symbolic_program():
    p = xp.placeholder(("n",), xp.float64, name="p")
    q = xp.placeholder(("k", 2), xp.float64, name="q")
    prog = xp.compile(xp.searchsorted(xp.sort(p), q + 0.5, side="right") * 10, [p, q])
    rng = np.random.default_rng(10)
    for n, k in ((7, 3), (3, 1)):
        a, b = rng.standard_normal(n), rng.standard_normal((k, 2))
        check(prog(a, b), np.searchsorted(np.sort(a), b + 0.5, side="right") * 10)
