"""Evaluation, compilation and the caches from many threads at once.

The short stress run (``stress_threads.run``, about 4 s) mixes new structures
compiled concurrently, one new structure from every thread at once, a shared
Prepared program and jit function, implicit evaluation of shared lazy arrays,
gathers that raise, ``__setitem__``, sorts and scans; every result must equal
the serial run and every structure must compile once.  The other tests pin one
property each.  ``python tests/stress_threads.py --seconds 30`` is the long run.
"""
import threading
import time

import numpy as np
import pytest

import lazyarray as xp
import stress_threads
from lazyarray.backend import cache

THREADS = 8


def compiles() -> int:
    """New program structures made (each once, whichever thread gets there first)."""
    return xp.compile_cache_info().misses


def in_threads(fn, n: int = THREADS) -> list:
    """``fn(i)`` from ``n`` threads started together; results in thread order (an
    exception is returned in place of its result)."""
    barrier = threading.Barrier(n)
    out = [None] * n

    def run(i):
        barrier.wait()
        try:
            out[i] = fn(i)
        except BaseException as e:  # noqa: BLE001 - pytest's failures too: the test inspects it
            out[i] = e
    ts = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(timeout=120)
        assert not t.is_alive(), "a thread did not finish (deadlock?)"
    return out


def test_stress_short():
    r = stress_threads.run(seconds=3, threads=THREADS, seed=1)
    assert r.errors == []
    assert r.mismatches == []
    assert r.evaluations > 100
    assert r.new_structures >= THREADS + 1
    # each structure's program code made once at most (structures that differ only in
    # their views share one), though all threads evaluated some at once
    assert 0 < r.compiles <= r.new_structures


def test_one_new_structure_from_all_threads_compiles_once():
    rng = np.random.default_rng(7)
    code = stress_threads.random_code(rng, 12)  # 12 steps: not seen elsewhere
    before = compiles()
    got = in_threads(lambda i: stress_threads.run_structure(code, 3))
    assert compiles() - before == 1
    want = stress_threads.run_structure(code, 3)  # serial, cached code
    for g in got:
        assert not isinstance(g, BaseException), g
        np.testing.assert_array_equal(g, want)


def test_distinct_new_structures_compile_concurrently(whole_programs):
    rng = np.random.default_rng(11)
    codes = []
    while len(codes) < THREADS:
        c = stress_threads.random_code(rng, 11)
        if c not in codes:
            codes.append(c)
    before = compiles()
    got = in_threads(lambda i: stress_threads.run_structure(codes[i], i))
    assert compiles() - before == THREADS
    for i, g in enumerate(got):
        assert not isinstance(g, BaseException), g
        np.testing.assert_array_equal(g, stress_threads.run_structure(codes[i], i))


def test_shared_lazy_array_materialized_by_all_threads():
    a = np.linspace(-1, 1, 50)
    y = xp.tanh(xp.asarray(a)) * 3.0 - xp.cos(xp.asarray(a))
    ways = (lambda: float(xp.sum(y)), lambda: bool(xp.all(y < 10.0)),
            lambda: np.array(np.asarray(y)), lambda: xp.evaluate(y * 2.0).tolist())
    got = in_threads(lambda i: ways[i % 4]())
    want = np.tanh(a) * 3.0 - np.cos(a)
    for i, g in enumerate(got):
        assert not isinstance(g, BaseException), g
    for g in got[2::4]:
        np.testing.assert_allclose(g, want, rtol=1e-14)
    for g in got[3::4]:
        np.testing.assert_allclose(g, want * 2.0, rtol=1e-14)
    assert np.asarray(y).tolist() == got[2].tolist()


def test_graph_evaluated_meanwhile_leaves_no_wrong_cache_entry(monkeypatch):
    # Another thread may finish evaluating a shared intermediate between the moment an
    # evaluation reads the graph and the moment the schedule of a cache miss is built.
    # The schedule must still match the cache key, or a later graph of the same
    # structure gets the wrong one (it crashed reading a missing input).
    a = xp.asarray(np.arange(4.0))
    u = xp.exp(a) - 1.0
    y = xp.tanh(u) * 3.0 + xp.atan(u)
    real = cache.schedule

    def schedule_while_other_thread_evaluates(nodes, outputs, *key):
        if u._node.value is None:
            u._node.value = np.exp(np.arange(4.0)) - 1.0
        return real(nodes, outputs, *key)
    monkeypatch.setattr(cache, "schedule", schedule_while_other_thread_evaluates)
    first = np.asarray(y)
    monkeypatch.setattr(cache, "schedule", real)
    b = np.arange(4.0) + 1
    v = np.exp(b) - 1.0
    ub = xp.exp(xp.asarray(b)) - 1.0  # the same structure, nothing evaluated
    second = np.asarray(xp.tanh(ub) * 3.0 + xp.atan(ub))
    u0 = np.exp(np.arange(4.0)) - 1.0
    np.testing.assert_allclose(first, np.tanh(u0) * 3.0 + np.arctan(u0), rtol=1e-14)
    np.testing.assert_allclose(second, np.tanh(v) * 3.0 + np.arctan(v), rtol=1e-14)


def test_frozen_graph_copies_unevaluated_nodes_only():
    from lazyarray.backend.ir import snapshot, toposort
    a = xp.asarray(np.arange(3.0))
    u = xp.exp(a)
    xp.evaluate(u)
    v = xp.sin(u) + u * 2.0          # shares u (evaluated) and has a diamond
    w = xp.sum(v * v)
    roots, order = snapshot([w._node, v._node])
    assert order == toposort(roots)  # the order materialize and the backend work in
    assert all(n is not w._node and n is not v._node for n in order)
    assert u._node in order and a._node not in order  # evaluated: shared, a leaf
    np.testing.assert_allclose(np.asarray(w), np.sum((np.sin(np.exp([0.0, 1.0, 2.0]))
                                                      + 2 * np.exp([0.0, 1.0, 2.0])) ** 2))


def test_program_unchanged_by_evaluating_an_intermediate_later():
    x = xp.placeholder((3,), name="x")
    w = xp.asarray([1.0, 2.0, 3.0])
    u = xp.sin(w) * 2.0
    prog = xp.compile(xp.cos(x) + u, inputs=[x])
    xp.evaluate(u)          # u becomes a leaf, but the program was recorded with u computed
    cache.PROGRAMS.clear()  # so its schedule is rebuilt from the program's graph
    np.testing.assert_allclose(np.asarray(prog(np.zeros(3))),
                               1.0 + np.sin([1.0, 2.0, 3.0]) * 2.0, rtol=1e-14)


def test_prepared_program_from_all_threads_binds_new_sizes():
    x = xp.placeholder(("n",), name="x")
    prog = xp.compile(xp.cumulative_sum(xp.sin(x) * 2.0), inputs=[x])
    p = prog.prepare(np.zeros(1))
    values = [np.linspace(0, 1, 3 + i) for i in range(THREADS)]
    got = in_threads(lambda i: np.asarray(p(values[i])))
    for v, g in zip(values, got):
        assert not isinstance(g, BaseException), g
        np.testing.assert_array_equal(g, np.asarray(prog(v)))


def test_jit_traces_a_new_signature_once_from_all_threads():
    jf = xp.jit(lambda a: xp.sum(xp.tanh(a) * a, axis=0))
    v = np.random.default_rng(0).standard_normal((5, 4))
    got = in_threads(lambda i: np.asarray(jf(v)))
    assert jf.trace_count == 1
    for g in got:
        assert not isinstance(g, BaseException), g
        np.testing.assert_array_equal(g, got[0])
    np.testing.assert_allclose(got[0], np.sum(np.tanh(v) * v, axis=0), rtol=1e-13)


def test_index_errors_in_threads_leave_everything_usable():
    x = xp.asarray(np.arange(6.0))

    def f(i):
        idx = xp.asarray([0, 1]) * (6 + i)  # computed indices: checked when the kernel runs
        with pytest.raises(IndexError, match="out of bounds"):
            np.asarray(xp.take(x, idx))
        return np.asarray(xp.take(x, xp.asarray([0, 1]) * (i % 3)))
    got = in_threads(f)
    for i, g in enumerate(got):
        assert not isinstance(g, BaseException), g
        np.testing.assert_array_equal(g, np.arange(6.0)[[0, i % 3]])


def test_gil_released_while_a_kernel_runs():
    x = xp.asarray(np.linspace(0, 1, 1000))
    rows = 100_000

    def work():
        return float(xp.sum(xp.sin(xp.broadcast_to(x, (rows, 1000))) * xp.exp(x)))
    work()  # compile first (one program serves every size)
    for _ in range(4):  # a kernel long enough to tell, however fast the machine is now
        t0 = time.perf_counter()
        work()
        kernel = time.perf_counter() - t0
        if kernel > 0.05:
            break
        rows *= 2
    assert kernel > 0.05, "the kernel is too short to tell"
    done = threading.Event()
    t = threading.Thread(target=lambda: (work(), done.set()))
    gap, last = 0.0, time.perf_counter()
    t.start()
    while not done.is_set():  # this thread keeps running while the kernel runs
        now = time.perf_counter()
        gap, last = max(gap, now - last), now
    t.join()
    assert gap < kernel / 2, f"the main thread stalled {gap:.3f}s during a {kernel:.3f}s kernel"
