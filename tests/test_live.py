"""Live arrays: what a materialization also computes because something still holds it."""
import gc
import sys
import weakref

import numpy as np
import pytest

import lazyarray as xp
from lazyarray.backend.cache import PROGRAMS

from helpers import count_walks

pytestmark = pytest.mark.usefixtures("whole_programs")  # siblings are kept by whole programs (no steps)


def _descent(mod, X, y, iters, held=True):
    """Gradient descent reading the loss every iteration, the state never evaluated."""
    w = mod.zeros(X.shape[1])
    losses = []
    for _ in range(iters):
        r = X @ w - y
        grad = X.T @ r
        w = w - 1e-3 * grad
        if not held:
            w = xp.evaluate(w)
        losses.append(float(mod.sum(r * r)))
    return w, losses


def _data(n=60, d=5):
    rng = np.random.default_rng(3)
    return rng.standard_normal((n, d)), rng.standard_normal(n)


def test_a_loop_reading_a_scalar_keeps_one_structure():
    Xn, yn = _data()
    X, y = xp.asarray(Xn), xp.asarray(yn)
    for _ in range(2):  # the first iterations' structures (the graph grows to two steps)
        _descent(xp, X, y, 8)
    before = xp.compile_cache_info()
    w, losses = _descent(xp, X, y, 40)
    after = xp.compile_cache_info()
    assert after.misses == before.misses  # every later iteration reuses one program
    wn, ln = _descent(np, Xn, yn, 40)
    np.testing.assert_allclose(losses, ln, rtol=1e-12)
    np.testing.assert_allclose(np.asarray(w), wn, rtol=1e-12)


def test_results_equal_those_of_evaluating_the_state_explicitly():
    Xn, yn = _data()
    X, y = xp.asarray(Xn), xp.asarray(yn)
    w1, l1 = _descent(xp, X, y, 25)
    w2, l2 = _descent(xp, X, y, 25, held=False)
    # the loss's sum reads r inline in one case (r computed in the kernel) and as the
    # buffer the explicit evaluation kept in the other: two kernels, whose summation
    # order may differ (by the tiers' documented bound, 2 eps sum|x|) when one of them
    # runs compiled and the other on the building blocks (earlier tests' caches decide)
    np.testing.assert_allclose(l1, l2, rtol=2 * np.finfo(np.float64).eps, atol=0)
    assert np.array_equal(np.asarray(w1), np.asarray(w2))


def close(got, want) -> None:  # the tiers' sin and sums may differ from numpy's in the last bit
    np.testing.assert_allclose(got, want, rtol=1e-14)


def _kernel_runs() -> int:
    info = xp.compile_cache_info()
    return info.interpreted_runs + info.compiled_runs


def test_straight_line_code_keeps_its_fusion():
    x = xp.asarray(np.linspace(1, 2, 1000))
    d1 = xp.log(x) * 0.5 + 1.0        # intermediates held by variables, as in a formula
    d2 = d1 - xp.sqrt(x)
    out = xp.sum(x * xp.tanh(d1) - xp.exp(-x) * xp.tanh(d2))
    before = _kernel_runs()
    float(out)
    assert _kernel_runs() - before == 1  # one fused kernel: nothing is written but the sum
    assert d1.attached_value is None and d2.attached_value is None


def test_a_held_node_computed_again_is_kept_and_a_dropped_one_is_not():
    v = np.linspace(0, 1, 50)
    a = xp.asarray(v)
    b = xp.sin(a) * 2.0            # held by a variable
    tmp = xp.cos(a) + 1.0          # dropped before the evaluation
    gone = weakref.ref(tmp._node)
    close(float(xp.sum(b * tmp)), np.sum(np.sin(v) * 2.0 * (np.cos(v) + 1.0)))
    del tmp
    assert b.attached_value is None  # computed once: maybe a temporary
    close(float(xp.sum(b + 1.0)), np.sum(np.sin(v) * 2.0 + 1.0))
    assert b.attached_value is not None  # computed again: kept
    close(b.attached_value, np.sin(v) * 2.0)
    gc.collect()
    assert gone() is None          # freed with the evaluated graph


def test_a_node_held_by_another_graph_is_kept():
    a = xp.asarray(np.arange(6.0))
    b = a * 3.0
    c = b + 1.0                    # another graph over b holds it
    node = weakref.ref(b._node)
    del b
    assert float(xp.sum(c * 2.0)) == 102.0
    assert float(xp.sum(c * 3.0)) == 153.0  # c computed again: kept, b with it? b is below
    assert c.attached_value is not None
    assert node() is None          # c's value needs nothing below it: b is freed


def test_views_of_data_and_larger_arrays_are_not_kept():
    x = xp.asarray(np.arange(1000.0))
    v = x[::2]                                  # a view of data: free to recompute
    big = xp.reshape(x, (-1, 1)) * xp.reshape(x, (1, -1))   # 1e6 elements from 1e3
    for _ in range(3):
        assert float(xp.sum(v)) == float(np.sum(np.arange(1000.0)[::2]))
        assert float(xp.sum(big)) == float(np.sum(np.arange(1000.0)) ** 2)
    assert v._node.value is None and big._node.value is None


def test_the_evaluated_history_is_freed():
    a = xp.asarray(np.ones(10))
    acc = a * 0.0
    first = weakref.ref(acc._node)
    for i in range(5):
        acc = acc + a * float(i)
        float(xp.sum(acc))
    gc.collect()
    assert first() is None         # no evaluated node keeps its sources alive
    np.testing.assert_array_equal(np.asarray(acc), np.full(10, 10.0))


def test_the_state_updated_before_the_read_is_computed_with_it(monkeypatch):
    Xn, yn = _data()
    X, y = xp.asarray(Xn), xp.asarray(yn)
    _descent(xp, X, y, 4)  # the loop's structures: loss and new state in one program
    walks = count_walks(monkeypatch)
    w, losses = _descent(xp, X, y, 30)
    assert walks[0] == 0  # every read ran a known structure: no graph walked
    wn, ln = _descent(np, Xn, yn, 30)
    np.testing.assert_allclose(losses, ln, rtol=1e-12)
    np.testing.assert_allclose(np.asarray(w), wn, rtol=1e-12)


def test_arrays_that_share_no_computed_node_stay_lazy():
    x = xp.asarray(np.arange(5.0))
    a = x + 1  # reads the target's leaf only
    y = xp.exp(x)
    z = xp.sum(y * 2.0)  # reads the target itself: nothing computed twice later
    xp.evaluate(y)
    assert a._node.value is None and z._node.value is None
    t = xp.sum(x * 3.0)
    assert float(t) == 30.0
    assert a._node.value is None and z._node.value is None


def test_a_sibling_is_computed_with_the_read():
    x = xp.asarray(np.arange(5.0))
    r = x * 2.0
    loss = xp.sum(r * r)
    w = r - 1.0
    del r
    assert float(loss) == float(np.sum((np.arange(5.0) * 2) ** 2))
    assert w._node.value is not None  # computed in the same program
    assert np.array_equal(np.asarray(w), np.arange(5.0) * 2 - 1)


def test_a_failing_sibling_leaves_the_read_alone():
    x = xp.asarray(np.arange(5.0))
    r = x * 2.0
    bad = xp.take_along_axis(r, xp.asarray(np.array([0, 7])) * 1, axis=0)  # 7: out of bounds
    loss = xp.sum(r * r)
    del r
    assert float(loss) == float(np.sum((np.arange(5.0) * 2) ** 2))
    assert bad._node.value is None
    with pytest.raises(IndexError):
        np.asarray(bad)


def test_siblings_larger_than_the_read_are_not_computed():
    x = xp.asarray(np.arange(50.0))
    r = x * 2.0
    outer = r[:, None] * r[None, :]  # 2,500 elements: more than the read touches
    loss = xp.sum(r)
    del r
    assert float(loss) == 2450.0
    assert outer._node.value is None


def test_the_recent_arrays_are_bounded_and_not_kept_alive():
    from lazyarray import _live
    x = xp.asarray(np.arange(3.0))
    ys = [x + float(i) for i in range(3 * _live.RECENT_MAX)]
    assert len(_live.RECENT) <= _live.RECENT_MAX
    probe = weakref.ref(ys[-1])
    del ys
    assert probe() is None  # without the collector


def test_a_sibling_failing_in_a_known_structure_leaves_the_read_alone():
    x = xp.asarray(np.arange(5.0))

    def step(indices):
        r = x * 2.0
        return xp.take_along_axis(r, xp.asarray(np.array(indices)) * 1, axis=0), xp.sum(r * r)
    picked, loss = step([0, 3])
    assert float(loss) == 120.0 and picked._node.value is not None  # computed with it
    picked, loss = step([0, 7])  # the same structure, now with an index out of bounds
    assert float(loss) == 120.0
    with pytest.raises(IndexError):
        np.asarray(picked)


def test_a_state_read_through_its_sum_runs_one_step_without_a_walk(monkeypatch):
    vn = np.linspace(0, 1, 50)
    v = xp.asarray(vn)

    def accumulate(mod, v, iters):
        acc, sums = mod.zeros(v.shape[0]), []
        for i in range(iters):
            acc = acc + v * float(i)
            sums.append(float(mod.sum(acc)))
        return acc, sums
    accumulate(xp, v, 6)  # the first iterations' structures, and acc's kind as a state
    walks = count_walks(monkeypatch)
    acc, sums = accumulate(xp, v, 6)
    assert walks[0] <= 3  # the first iterations walk, the rest run a known program
    before = walks[0]
    acc, sums = accumulate(xp, v, 40)
    assert walks[0] - before <= 3
    want, want_sums = accumulate(np, vn, 40)
    np.testing.assert_allclose(sums, want_sums, rtol=1e-12)
    np.testing.assert_allclose(np.asarray(acc), want, rtol=1e-12)


def test_held_nodes_written_to_memory_anyway_are_kept_at_once(monkeypatch):
    xn = np.random.default_rng(5).normal(5, 2, (40, 7))
    x = xp.asarray(xn)

    def standardise():
        mu = xp.mean(x, axis=0)
        sd = xp.std(x, axis=0)
        return (x - mu) / sd, mu, sd  # the caller holds all three
    z, mu, sd = standardise()
    from lazyarray.backend import cache
    scheduled = []
    real = cache.schedule
    monkeypatch.setattr(cache, "schedule", lambda *a: scheduled.append(1) or real(*a))
    before = _kernel_runs()
    np.asarray(z)
    runs = _kernel_runs() - before
    assert len(scheduled) == 1  # kept by the schedule made for z alone, not a second one
    monkeypatch.setattr(cache, "schedule", real)
    assert mu.attached_value is not None and sd.attached_value is not None
    z2 = (x - xp.mean(x, axis=0)) / xp.std(x, axis=0)  # the same, nothing held
    before = _kernel_runs()
    np.asarray(z2)
    assert _kernel_runs() - before == runs  # keeping them cost no kernel
    walks = count_walks(monkeypatch)
    for _ in range(6):
        outs = [np.asarray(o) for o in standardise()]
    assert walks[0] <= 3  # then one joint structure, run without a walk
    for got, want in zip(outs, ((xn - xn.mean(0)) / xn.std(0), xn.mean(0), xn.std(0))):
        np.testing.assert_allclose(got, want, rtol=1e-12)  # (sums in another order)


def test_reads_while_another_thread_records():
    import threading
    x = xp.asarray(np.arange(8.0))
    stop, errors = threading.Event(), []

    def record():
        try:
            while not stop.is_set():
                held = [x + float(i) for i in range(40)]  # fills RECENT as it is read
                float(xp.sum(held[-1]))  # and empties it, maybe while the other reads it
        except Exception as e:  # noqa: BLE001 - collected, reported below
            errors.append(repr(e))

    t = threading.Thread(target=record)
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # thread switches inside every loop of the read
    t.start()
    try:
        for i in range(5000):
            try:
                assert float(xp.sum(x * 2.0 + float(i))) == 56.0 + 8 * i
            except Exception as e:  # noqa: BLE001 - collected, reported below
                errors.append(repr(e))
                break
    finally:
        stop.set()
        t.join()
        sys.setswitchinterval(interval)
    assert errors == []


def test_a_held_intermediate_asked_for_later_is_computed_with_the_first_read(monkeypatch):
    """c, ma = f(c), d = g(ma) held, then read c, ma, d in that order: ma is an
    intermediate of d (no sibling) whose first read computes it again; it is then a
    state, so the next iterations compute all three in one known program, no walk."""
    xn = np.random.default_rng(9).normal(0, 1, 500)
    x = xp.asarray(xn)

    def moving(mod, x):
        c = mod.cumulative_sum(x, include_initial=True)
        ma = (c[8:] - c[:-8]) / 8
        return c, ma, x[7:] - ma
    for _ in range(3):
        outs = [np.asarray(o) for o in moving(xp, x)]
    walks = count_walks(monkeypatch)
    for _ in range(10):
        outs = [np.asarray(o) for o in moving(xp, x)]
    assert walks[0] == 0
    c = np.concatenate([[0.0], np.cumsum(xn)])
    ma = (c[8:] - c[:-8]) / 8
    for got, want in zip(outs, (c, ma, xn[7:] - ma)):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
