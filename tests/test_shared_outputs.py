"""Several outputs sharing elementwise subexpressions: each kernel computes what it reads
(at most MAX_COPIES kernels, two for a costly op) rather than every shared node getting
a buffer and a pass of its own; a small costly node, or one only reductions read, gets a
buffer (``SMALL_SHARED``)."""
import numpy as np

import lazyarray as xp
from lazyarray.backend.cache import keyed_walk, snapshot_of
from lazyarray.backend.schedule import SMALL_SHARED, schedule

N = SMALL_SHARED + 1000  # large enough for copies of costly nodes


def kernels(*arrays) -> int:
    nodes, values, keys, outs, _ = keyed_walk([a._node for a in arrays])
    return len(schedule(snapshot_of(nodes, values, keys[0]), list(outs), keys[0]).kernels)


def _prices(mod, S, K, T, r=0.02, v=0.3):
    def cdf(d):
        return 0.5 * (1 + mod.tanh(d * 0.7978845608))
    sq = mod.sqrt(T)
    d1 = (mod.log(S / K) + (r + 0.5 * v * v) * T) / (v * sq)
    d2 = d1 - v * sq
    disc = K * mod.exp(-r * T)
    return S * cdf(d1) - disc * cdf(d2), disc * cdf(-d2) - S * cdf(-d1)


def test_call_and_put_take_one_kernel_each():
    rng = np.random.default_rng(1)
    vals = [rng.uniform(50, 150, N), rng.uniform(50, 150, N), rng.uniform(0.1, 2, N)]
    call, put = _prices(xp, *map(xp.asarray, vals))
    assert kernels(call, put) == 2  # every shared node once per kernel, no buffer for any
    xp.evaluate(call, put)
    want = _prices(np, *vals)
    np.testing.assert_allclose(np.asarray(call), want[0], rtol=1e-13, atol=1e-12)
    np.testing.assert_allclose(np.asarray(put), want[1], rtol=1e-13, atol=1e-12)


def test_two_outputs_of_one_subexpression():
    v = np.linspace(0, 1, N)
    a = xp.sin(xp.asarray(v)) * 2.0 + 1.0
    y, z = xp.exp(a), a * 3.0
    assert kernels(y, z) == 2
    xp.evaluate(y, z)
    np.testing.assert_allclose(np.asarray(y), np.exp(np.sin(v) * 2.0 + 1.0), rtol=1e-14)
    np.testing.assert_allclose(np.asarray(z), (np.sin(v) * 2.0 + 1.0) * 3.0, rtol=1e-14)


def test_a_costly_node_read_by_many_kernels_gets_a_buffer():
    x = xp.asarray(np.linspace(0, 1, N))
    t = xp.exp(x)
    outs = [t * 2.0, t + 1.0, t - 3.0]  # three kernels would compute exp three times
    assert kernels(*outs) == 4
    cheap = x * 2.0
    assert kernels(cheap + 1.0, cheap - 1.0, cheap * 3.0) == 3  # cheap: computed in each


def test_a_node_read_through_two_views_in_one_kernel_gets_a_buffer():
    x = xp.asarray(np.linspace(0, 1, 100))
    s = xp.sin(x)
    out = s[1:] + s[:-1]  # one kernel would compute sin twice per element
    assert kernels(out) == 2
    np.testing.assert_allclose(np.asarray(out), np.sin(np.linspace(0, 1, 100))[1:]
                               + np.sin(np.linspace(0, 1, 100))[:-1], rtol=1e-15)


def test_a_small_costly_node_or_one_read_by_reductions_gets_a_buffer():
    """Computed once into a buffer: a costly node of at most SMALL_SHARED elements read
    by two kernels, and one of any size that only reductions read (a Monte Carlo price
    and its error: exp once, not once per sum); cheap nodes are still copied."""
    for n in (SMALL_SHARED, N):
        v = np.linspace(-1.0, 1.0, n)
        pay = xp.maximum(xp.exp(xp.asarray(v) * 0.2) - 1.0, 0.0)
        mean, sq = xp.sum(pay), xp.sum(pay * pay)
        assert kernels(mean, sq) == 3  # exp's buffer, then the two sums
        xp.evaluate(mean, sq)
        want = np.maximum(np.exp(v * 0.2) - 1.0, 0.0)
        assert abs(float(mean) - np.sum(want)) <= 1e-12 * np.sum(np.abs(want))
        np.testing.assert_allclose(float(sq), np.sum(want * want), rtol=1e-12)
    a = xp.sin(xp.asarray(np.linspace(0, 1, SMALL_SHARED))) * 2.0 + 1.0
    assert kernels(xp.exp(a), a * 3.0) == 3  # small: sin once
    cheap = xp.asarray(np.linspace(0, 1, 100)) * 2.0
    assert kernels(xp.sum(cheap + 1.0), xp.sum(cheap - 1.0)) == 2  # cheap: in each
