"""Consecutive elementwise kernels over one iteration space join into one kernel writing
several buffers (backend/merge.py): a value read back element for element becomes a
register, equal instructions are computed once, and every output keeps numpy's values in
each tier and when the kernel is split across threads."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray.backend import runtime, threads
from lazyarray.backend.merge import merge
from lazyarray.backend.schedule import MAX_LOADS, schedule
from lazyarray.backend.cache import keyed_walk, snapshot_of
from test_shared_outputs import _prices as prices

N = 40_000  # past SMALL_SHARED: shared costly nodes are computed in each kernel, no buffer


def scheduled(*arrays):
    """(unmerged, merged) schedules of the arrays evaluated together."""
    nodes, values, keys, outs, _ = keyed_walk([a._node for a in arrays])
    snap = snapshot_of(nodes, values, keys[0])
    sched = schedule(snap, list(outs), keys[0])
    return sched, merge(sched, snap)


@pytest.mark.parametrize("tier", ["interpret", "compile"])
def test_call_and_put_are_one_kernel_computing_the_shared_part_once(monkeypatch, tier):
    monkeypatch.setenv("LAZYARRAY_TIER", tier)
    rng = np.random.default_rng(1)
    vals = [rng.uniform(50, 150, N), rng.uniform(50, 150, N), rng.uniform(0.1, 2, N)]
    call, put = prices(xp, *map(xp.asarray, vals))
    before, after = scheduled(call, put)
    assert len(before.kernels) == 2 and len(after.kernels) == 1
    (k,) = after.kernels
    assert len(k.outs) == 1
    # the shared part (d1, d2, the discount) once: fewer instructions than the two kernels
    assert len(k.body) < sum(len(b.body) for b in before.kernels) - 10
    xp.evaluate(call, put)
    want = prices(np, *vals)
    np.testing.assert_allclose(np.asarray(call), want[0], rtol=1e-13, atol=1e-12)
    np.testing.assert_allclose(np.asarray(put), want[1], rtol=1e-13, atol=1e-12)


def test_an_output_read_back_by_later_kernels_becomes_a_register():
    x = xp.asarray(np.linspace(0.5, 2.0, 12))
    a = x * 2.0 + 1.0            # an output, read by the next two
    b = xp.sqrt(a) - x
    c = a * b
    before, after = scheduled(a, b, c)
    assert len(before.kernels) == 3 and len(after.kernels) == 1
    (k,) = after.kernels
    assert {after.buffers[k.store.buf]} | {after.buffers[k.loads[j].buf] for _, j in k.outs} == \
        {after.buffers[s] for s in after.outputs}
    assert sum(ins[0] == "load" for ins in k.body) == 1  # x only: a and b are not read back
    xp.evaluate(a, b, c)
    xv = np.linspace(0.5, 2.0, 12)
    av = xv * 2.0 + 1.0
    bv = np.sqrt(av) - xv
    for got, want in ((a, av), (b, bv), (c, av * bv)):
        np.testing.assert_array_equal(np.asarray(got), want)


def test_a_kernel_reading_an_output_through_a_view_does_not_join():
    xv = np.linspace(-1, 1, 30).reshape(5, 6)
    x = xp.asarray(xv)
    a = xp.exp(x) + 1.0
    b = a.T * 2.0                # other elements of a: a must be written first
    c = a[::-1] - x              # the same
    d = a * x                    # element for element: joins a
    _, after = scheduled(a, b, c, d)
    xp.evaluate(a, b, c, d)
    av = np.asarray(a)  # (exp may differ from numpy's in the last bit: vector math)
    np.testing.assert_allclose(av, np.exp(xv) + 1.0, rtol=1e-15)
    np.testing.assert_array_equal(np.asarray(b), av.T * 2.0)
    np.testing.assert_array_equal(np.asarray(c), av[::-1] - xv)
    np.testing.assert_array_equal(np.asarray(d), av * xv)
    joined = [k for k in after.kernels if k.outs]
    assert len(joined) == 1  # a with d; b and c (another shape, a flipped view) apart


@pytest.mark.parametrize("tier", ["interpret", "compile"])
def test_outputs_of_every_dtype_in_one_kernel(monkeypatch, tier):
    monkeypatch.setenv("LAZYARRAY_TIER", tier)
    rng = np.random.default_rng(2)
    fv, iv = rng.uniform(-3, 3, (7, 9)), rng.integers(-20, 20, (7, 9))
    cv = fv + 1j * fv[::-1]
    f, i, c = xp.asarray(fv), xp.asarray(iv), xp.asarray(cv)
    outs = [xp.sin(f) * 2.0, f > 0.5, i * 3 - i // 4, xp.astype(f, xp.float32) * 0.5,
            xp.astype(f * 10, xp.int8), xp.exp(c) * c, xp.abs(c), i % 7 == 0]
    _, after = scheduled(*outs)
    assert len(after.kernels) == 1 and len(after.kernels[0].outs) == len(outs) - 1
    xp.evaluate(*outs)
    wants = [np.sin(fv) * 2.0, fv > 0.5, iv * 3 - iv // 4, fv.astype(np.float32) * np.float32(0.5),
             (fv * 10).astype(np.int8), np.exp(cv) * cv, np.abs(cv), iv % 7 == 0]
    for got, want in zip(outs, wants):
        got = np.asarray(got)
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=1e-14, atol=1e-14)


def test_many_outputs_stay_within_the_load_cap():
    xv = np.linspace(0, 1, 50)
    x = xp.asarray(xv)
    outs = [x * float(k) + 1.0 for k in range(3 * MAX_LOADS)]
    _, after = scheduled(*outs)
    assert 1 < len(after.kernels) < len(outs)
    assert all(len(k.loads) <= MAX_LOADS for k in after.kernels)
    xp.evaluate(*outs)
    for k, o in enumerate(outs):
        np.testing.assert_array_equal(np.asarray(o), xv * float(k) + 1.0)


def test_a_gather_in_a_joined_kernel_still_checks_its_indices():
    x = xp.asarray(np.arange(10.0))
    idx = xp.asarray(np.array([1, 3, 12]))
    a = x * 2.0
    g = xp.take(x, idx * 1, axis=0) + 1.0
    b = xp.take(x, idx // 2, axis=0) * 3.0
    with pytest.raises(IndexError):
        xp.evaluate(a[:3] + g, b)
    idx = xp.asarray(np.array([1, 3, 9]))
    g, b = xp.take(x, idx * 1, axis=0) + 1.0, xp.take(x, idx // 2, axis=0) * 3.0
    xp.evaluate(g, b)
    np.testing.assert_array_equal(np.asarray(g), np.array([2.0, 4.0, 10.0]))
    np.testing.assert_array_equal(np.asarray(b), np.array([0.0, 3.0, 12.0]))


def test_a_joined_kernel_split_across_threads_matches_one_thread(monkeypatch):
    n = 4 * threads.PYTHON_MIN["reduce"] + 3
    xv = np.random.default_rng(4).uniform(-3, 3, n)

    def run():
        ph = xp.placeholder((n,), xp.float64)
        s = xp.exp(-ph * ph / 2)
        outs = [s * xp.cos(3 * ph), s + xp.tanh(ph), xp.sqrt(xp.abs(ph)) * s]
        p = xp.compile(outs, inputs=[ph]).prepare(xv)
        assert len(p._program.schedule.kernels) == 1
        (runner,) = p._runners.values()
        return [np.asarray(o) for o in p(xv)], runner.steps

    monkeypatch.setenv("LAZYARRAY_NUM_THREADS", "2")
    got, steps = run()
    assert any(isinstance(s, runtime.Chunked) for s in steps)
    monkeypatch.setenv("LAZYARRAY_NUM_THREADS", "1")
    monkeypatch.setitem(threads.SLICE, "math", 1 << 40)
    one, steps = run()
    assert not any(isinstance(s, runtime.Chunked) for s in steps)
    for a, b in zip(got, one):
        assert np.array_equal(a, b)
    s = np.exp(-xv * xv / 2)
    np.testing.assert_allclose(got[0], s * np.cos(3 * xv), rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(got[2], np.sqrt(np.abs(xv)) * s, rtol=1e-14, atol=1e-15)


def test_the_listing_names_a_kernel_writing_several_buffers():
    x = xp.asarray(np.linspace(0, 1, 100))
    y = xp.sin(x) * 2.0
    dot = xp.to_dot([xp.exp(y), y * 3.0])
    assert "writes 2 buffers" in dot and dot.count("subgraph cluster_") == 1


def test_a_buffer_only_the_joined_kernel_read_is_not_written():
    """``sin(x)`` is small and costly and read by two kernels: the scheduler gives it a
    buffer; joined with its readers, it is a register and its buffer is never written."""
    xv = np.linspace(0, 1, 100)
    x = xp.asarray(xv)
    y = xp.sin(x) * 2.0
    a, b = xp.exp(y), y * 3.0
    before, after = scheduled(a, b)
    assert len(before.kernels) == 3 and len(after.kernels) == 1
    (k,) = after.kernels
    assert len(k.outs) == 1 and len(after.unwritten) == 1
    assert after.unwritten == before.materialized - {after.buffers[s] for s in after.outputs}
    xp.evaluate(a, b)
    yv = np.sin(xv) * 2.0
    np.testing.assert_allclose(np.asarray(a), np.exp(yv), rtol=1e-15)
    np.testing.assert_allclose(np.asarray(b), yv * 3.0, rtol=1e-15)  # (vector sin: an ulp)
    np.testing.assert_allclose(np.asarray(y), yv, rtol=1e-15)  # evaluated on its own, later


def test_a_held_node_is_not_kept_from_a_buffer_nobody_wrote():
    """``_live.buffered`` keeps held nodes the program writes anyway: not one whose
    buffer the joined kernel never writes (its value would be whatever memory held)."""
    from lazyarray import _live
    x = xp.asarray(np.linspace(0, 1, 100))
    s = xp.sin(x)  # small and costly, read by both kernels: a buffer of its own
    a, b = xp.exp(s * 2.0), s * 6.0
    nodes, values, keys, outs, _ = keyed_walk([a._node, b._node])
    snap = snapshot_of(nodes, values, keys[0])
    merged = merge(schedule(snap, list(outs), keys[0]), snap)
    i = next(j for j, n in enumerate(nodes) if n is s._node)
    assert i in merged.unwritten and i in merged.buffers
    assert _live.buffered(nodes, [i], merged) == []
    assert merged.with_outputs([]).unwritten == merged.unwritten


@pytest.mark.parametrize("tier", ["auto", "interpret", "compile"])
def test_a_join_of_equal_sizes_is_not_reused_for_unequal_ones(monkeypatch, tier):
    """Two outputs over arrays of equal sizes join; the schedule is cached by structure,
    which does not hold the sizes: the same structure over unequal sizes must not run
    the joined kernel (it ran over one member's sizes, writing past the other's
    buffer: a wrong result, then a crash)."""
    monkeypatch.setenv("LAZYARRAY_TIER", tier)
    from lazyarray.backend.cache import PROGRAMS
    PROGRAMS.clear()

    def both(n, m):
        a, b = np.linspace(0, 1, n), np.linspace(-1, 0, m)
        s, c = xp.evaluate(xp.sin(xp.asarray(a)) * 2.0, xp.cos(xp.asarray(b)) * 3.0)
        np.testing.assert_allclose(np.asarray(s), np.sin(a) * 2.0, rtol=1e-15, atol=1e-15)
        np.testing.assert_allclose(np.asarray(c), np.cos(b) * 3.0, rtol=1e-15)
    both(1000, 1000)
    (sched,) = [e[0] for e in PROGRAMS.schedules.data.values() if e[0].premise]
    assert len(sched.kernels) == 1  # joined, under a premise
    for n, m in ((10, 3_000_000), (3_000_000, 10), (7, 7), (3, 9)):
        both(n, m)
    g = xp.jit(lambda a, b: (xp.sin(a) * 2.0, xp.cos(b) * 3.0))
    for n, m in ((5, 5), (9, 3), (3, 2_000_000)):
        a, b = np.linspace(0, 1, n), np.linspace(-1, 0, m)
        s, c = g(a, b)
        np.testing.assert_allclose(np.asarray(s), np.sin(a) * 2.0, rtol=1e-15, atol=1e-15)
        np.testing.assert_allclose(np.asarray(c), np.cos(b) * 3.0, rtol=1e-15)
