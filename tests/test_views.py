"""Basic-index views and transposes write through to their bases and see their bases'
writes, as numpy's views do (scikit-learn's GaussianMixture regularises
``covariances[k, :, :]`` through one, scipy's oaconvolve adds into swapped axes).
Each scenario runs on numpy and on lazyarray and must give the same arrays."""
import gc

import numpy as np
import pytest
from helpers import check

import lazyarray as xp
from lazyarray import _views


def base(ns):
    return ns.asarray(np.arange(24, dtype=np.float64).reshape(2, 3, 4))


def write_into_a_view(ns):
    a = base(ns)
    v = a[0, :, :]
    v[0, 0] = -1.0
    return a, v


def view_of_a_view(ns):
    a = base(ns)
    v = a[1]
    w = v[1:, ::2]
    w[0, 1] = -5.0
    return a, v, w


def write_into_the_base(ns):
    a = base(ns)
    v, w = a[0], a[0, 1]
    a[0, 1, 2] = 100.0
    a[...] = a * 2
    return a, v, w


def in_place_operator_on_a_view(ns):
    a = base(ns)
    v = a[:, 1:]
    v += 0.5
    v[..., 0] *= -1.0
    return a, v


def mask_and_index_array_writes_into_a_view(ns):
    a = base(ns)
    v = a[1, :, 1:3]
    v[v > 17] = 0.0
    u = a[0]
    u[ns.asarray([0, 2])] = 7.0
    return a, v, u


def views_with_new_axes_and_negative_steps(ns):
    a = base(ns)
    v = a[None, 0, ::-1, 1]
    v[0, 0] = 42.0
    e = a[...]
    e[1, 2, 3] = -42.0
    return a, v, e


def add_to_diagonal(ns):
    # scikit-learn's _add_to_diagonal(covariances[k, :, :], reg_covar, xp) on non-numpy
    # namespaces: its writes must reach covariances.
    cov = ns.asarray(np.zeros((3, 4, 4)))
    for k in range(3):
        array = cov[k, :, :]
        value = ns.linalg.diagonal(array) + (k + 1.0)
        for i in range(4):
            array[i, i] = value[i]
    return (cov,)


def copies_do_not_write_through(ns):
    a = base(ns)
    g = a[ns.asarray([0, 1])]        # integer-array indexing copies
    g[0, 0, 0] = -1.0
    m = a[a > 20]                    # so does a boolean mask
    m[0] = -2.0
    c = ns.asarray(a, copy=True)
    c[0, 0, 0] = -3.0
    a[1, 2, 3] = -4.0                # and the copies do not see the base's writes
    return a, g, m, c


def writes_into_transposes(ns):
    # scipy.signal.oaconvolve adds its overlaps into slices of swapped axes.
    a = base(ns)
    t = ns.permute_dims(a, (2, 0, 1))
    t[1:3, :, 0] += 100.0
    m = a[1].T
    m[0, 2] = -7.0
    s = ns.matrix_transpose(a)[0, 1:]
    s *= -1.0
    return a, t, m, s


def iteration(ns):
    # numpy's iteration gives a 1-d array's elements as scalars (copies) and an n-d
    # array's rows as views.
    a = ns.asarray(np.arange(4.0))
    elements = list(a)
    a[0] = -1.0
    b = base(ns)
    rows = list(b)
    rows[1][0, 0] = -6.0
    return a, ns.stack(elements), b, rows[0]


SCENARIOS = [iteration, write_into_a_view, writes_into_transposes, view_of_a_view, write_into_the_base,
             in_place_operator_on_a_view, mask_and_index_array_writes_into_a_view,
             views_with_new_axes_and_negative_steps, add_to_diagonal,
             copies_do_not_write_through]


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda f: f.__name__)
def test_views_behave_as_numpy_views(scenario):
    want = scenario(np)
    got = scenario(xp)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        check(g, w)


def test_a_view_of_a_placeholder_writes_through_when_traced():
    def f(a):
        v = a[0]
        v[1] = 0.0
        return a * 1

    x = np.arange(6.0).reshape(2, 3)
    want = x.copy()
    want[0, 1] = 0.0
    np.testing.assert_array_equal(np.asarray(xp.jit(f)(x)), want)


def test_evaluated_views_follow_later_writes():
    a = base(xp)
    v = a[0]
    np.asarray(v)                      # v has a value now
    a[0, 0, 0] = 9.0
    assert float(v[0, 0]) == 9.0
    np.asarray(a)
    v[0, 1] = 8.0
    assert float(a[0, 0, 1]) == 8.0


def test_dead_views_are_dropped():
    a = base(xp)
    for i in range(1000):
        float(a[i % 2, 0, 0])          # each view dies at once
    gc.collect()
    views = _views._get(_views._VIEWS, a)
    assert views is not None and len(views) < 64
    a[0, 0, 0] = 1.0                   # a write drops every dead reference
    assert len(views) == 0


def test_scipy_oaconvolve_adds_its_overlaps_through_views():
    pytest.importorskip("scipy")
    from scipy._lib._array_api import SCIPY_ARRAY_API
    if not SCIPY_ARRAY_API:
        pytest.skip("scipy was imported without SCIPY_ARRAY_API (tests/test_consumers.py "
                    "sets it)")
    from scipy.signal import fftconvolve, oaconvolve
    rng = np.random.default_rng(0)
    a, b = rng.random(40), rng.random(3)
    got = oaconvolve(xp.asarray(a), xp.asarray(b))
    np.testing.assert_allclose(np.asarray(got), fftconvolve(a, b), atol=1e-12)


@pytest.mark.parametrize("evaluated", [False, True])
def test_the_elements_of_a_1d_array_are_not_views(evaluated):
    a = xp.asarray(np.arange(3.0)) * 2
    if evaluated:
        xp.evaluate(a)
    x, y, z = a
    x[...] = 5.0                       # no write through (numpy's elements are scalars)
    a[2] = -1.0                        # nor do they see the array's writes
    check(a, np.asarray([0.0, 2.0, -1.0]))
    check(xp.stack([x, y, z]), np.asarray([5.0, 2.0, 4.0]))


def test_builtin_max_of_an_evaluated_array_needs_no_graph_walk():
    # scipy's minimum_phase takes builtin max() and min() of 2**19 elements: each
    # comparison of two elements is evaluated. Elements that hold their values make it
    # the same program every time, run without a walk or a cache look-up (it was one of
    # each per element: 225 s for the 2**20 comparisons).
    values = np.random.default_rng(0).random(3000)
    a = xp.asarray(values)
    assert float(max(a)) == values.max()
    hits = xp.compile_cache_info().hits
    assert float(min(a)) == values.min() and float(max(xp.sqrt(a))) == np.sqrt(values).max()
    assert xp.compile_cache_info().hits - hits < 10
