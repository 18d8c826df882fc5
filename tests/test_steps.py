"""Steps (lazyarray/_steps.py): the first evaluation of a small structure runs op by op on
one-op programs found by signature; met again, the structure is planned whole.  Steps give
the whole program's bits (reductions: within summation order), free each value once its
readers have theirs, and leave nothing half-built behind an error."""
import gc
import logging
import threading
import weakref

import numpy as np
import pytest

import lazyarray as xp
from helpers import in_steps, one_op_steps
from lazyarray import _steps
from lazyarray.backend import library

pytestmark = pytest.mark.skipif(not library.bundle_loaded(),
                                reason="steps need the building blocks' bundle loaded")


@pytest.fixture(autouse=True)
def always_step(request, monkeypatch):
    """Steps whether or not their one-op programs are known (the choice by cost has its
    own test, which opts out), each a one-op program: no fused regions
    (tests/test_fusion.py has theirs)."""
    if "by_cost" not in request.node.name:
        monkeypatch.setattr(_steps, "NEW_COST", 0)
    with one_op_steps():
        yield


def info():
    return xp.compile_cache_info()


def _expr(a, b, k: float):
    """Eight ops, transcendental ones included; ``k`` makes each call's structure new."""
    return xp.sum(xp.tanh(a * k) - xp.exp(b) / (a + 2.0) + xp.sqrt(xp.abs(b)), axis=0)


def test_a_small_new_structure_runs_op_by_op_then_whole_then_by_signature():
    a = xp.asarray(np.linspace(-1, 1, 60).reshape(6, 10))
    b = xp.asarray(np.linspace(0, 2, 60).reshape(6, 10))
    y = xp.sin(a) * xp.cos(b) + a * 0.25 - b      # a structure no other test records
    before = info()
    first = np.asarray(y)
    after = info()
    assert after.step_evaluations - before.step_evaluations == 1
    assert after.steps - before.steps == 6        # sin, cos, *, *0.25, +, -
    before = info()
    second = np.asarray(xp.sin(a) * xp.cos(b) + a * 0.25 - b)
    after = info()
    assert after.step_evaluations == before.step_evaluations
    assert after.misses == before.misses + 1      # planned whole, once
    before = info()
    third = np.asarray(xp.sin(a) * xp.cos(b) + a * 0.25 - b)
    assert info().misses == before.misses and info().step_evaluations == before.step_evaluations
    assert np.array_equal(first, second) and np.array_equal(second, third)


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "int32", "uint8"])
def test_steps_give_the_whole_programs_bits(monkeypatch, dtype):
    rng = np.random.default_rng(5)
    if dtype.startswith("float"):
        x = rng.uniform(-3, 3, 500).astype(dtype)
        z = rng.uniform(-3, 3, 500).astype(dtype)
        x[:4] = [np.nan, np.inf, -np.inf, -0.0]

        def f(a, b):
            return xp.where(a > b, xp.sin(a) * b - xp.log1p(xp.abs(b)), xp.exp(b * 0.5) / a)
    else:
        info_ = np.iinfo(dtype)
        x = rng.integers(info_.min, info_.max, 500, dtype=dtype, endpoint=True)
        z = rng.integers(info_.min, info_.max, 500, dtype=dtype, endpoint=True)
        z[:5] = 0  # integer division and remainder by zero

        def f(a, b):
            return (a // b) * 3 + (a % b) - (a ^ b)
    steps_before = info().step_evaluations
    stepped = np.asarray(f(xp.asarray(x), xp.asarray(z)))
    assert info().step_evaluations == steps_before + 1
    monkeypatch.setenv("LAZYARRAY_STEPS", "0")
    whole = np.asarray(f(xp.asarray(x), xp.asarray(z)))
    assert stepped.dtype == whole.dtype
    assert np.array_equal(stepped.view(f"u{stepped.itemsize}"), whole.view(f"u{whole.itemsize}"))


def test_reductions_of_intermediates_agree_within_summation_order(monkeypatch):
    x = np.random.default_rng(2).uniform(0, 1, (70, 300))
    a = xp.asarray(x)
    stepped = [float(xp.sum(xp.exp(a) * 0.5)), np.asarray(xp.mean(a * a, axis=1)),
               np.asarray(xp.max(xp.sin(a) + 1.0, axis=0))]
    monkeypatch.setenv("LAZYARRAY_STEPS", "0")
    whole = [float(xp.sum(xp.exp(a) * 0.5)), np.asarray(xp.mean(a * a, axis=1)),
             np.asarray(xp.max(xp.sin(a) + 1.0, axis=0))]
    eps = np.finfo(np.float64).eps
    assert abs(stepped[0] - whole[0]) <= 2 * eps * np.sum(np.exp(x) * 0.5)
    np.testing.assert_allclose(stepped[1], whole[1], rtol=4 * eps * 300, atol=0)
    np.testing.assert_array_equal(stepped[2], whole[2])  # max: no order


def test_intermediates_get_values_and_unheld_ones_are_freed():
    a = xp.asarray(np.linspace(0, 1, 100))
    held = xp.cos(a) * 3.0
    dropped = xp.tanh(held)
    gone = weakref.ref(dropped._node)
    out = float(xp.sum(dropped - held / 7.0))
    del dropped
    gc.collect()
    assert gone() is None
    assert held._node.value is not None and held._node.srcs == ()  # a leaf now
    x = np.linspace(0, 1, 100)
    assert out == pytest.approx(float(np.sum(np.tanh(np.cos(x) * 3.0) - np.cos(x) * 3.0 / 7.0)),
                                rel=1e-12)


def test_a_chain_runs_in_steps_without_keeping_its_values():
    x = np.linspace(0.5, 1.5, 1000)
    e = xp.asarray(x)
    first = weakref.ref(e._node)
    for _ in range(3000):
        e = e * 1.0000001
    before = info().steps
    got = float(xp.sum(e))
    assert info().steps - before == 3001
    # the step's one-op program ran 3,000 times: its front door was opened at once, not
    # left to a quiet moment
    from lazyarray.backend.cache import PROGRAMS
    assert any(e[0].door_asked for e in PROGRAMS.runners.data.values())
    assert got == pytest.approx(float(np.sum(x * 1.0000001 ** 3000)), rel=1e-9)
    e = None
    gc.collect()
    assert first() is None


def test_large_arrays_and_single_ops_are_planned_whole():
    big = xp.asarray(np.ones(_steps.STEP_MAX + 1))
    before = info()
    float(xp.sum(xp.sin(big) * 0.5 + 1.25))
    float(xp.sum(xp.log2(xp.asarray(np.ones(50)))))  # one computed op besides the sum: steps
    lone = xp.asarray(np.ones(50))
    np.asarray(lone * 2.75)  # one op: its own program anyway
    after = info()
    assert after.step_evaluations - before.step_evaluations == 1


def test_views_inside_steps_and_as_roots():
    x = np.arange(40.0).reshape(5, 8)
    a = xp.asarray(x)
    stencil = a[1:, 2:] * 0.5 + a[:-1, :-2] - xp.flip(a, axis=1)[1:, 1:-1]
    root = (a * 2.0 + 1.0).T[::2]  # a view is the root
    before = info().step_evaluations
    np.testing.assert_array_equal(np.asarray(stencil),
                                  x[1:, 2:] * 0.5 + x[:-1, :-2] - np.flip(x, axis=1)[1:, 1:-1])
    np.testing.assert_array_equal(np.asarray(root), (x * 2.0 + 1.0).T[::2])
    assert info().step_evaluations - before == 2


def test_an_error_in_a_step_leaves_the_graph_whole():
    a = xp.asarray(np.linspace(0, 1, 10))
    bad = xp.take(xp.exp(a) * 2.0, xp.asarray(np.array([0, 3, 5])) * 2)  # 10: checked in a step
    y = xp.sum(bad + 1.0)
    with pytest.raises(IndexError):
        float(y)
    with pytest.raises(IndexError):  # again: the same error, nothing half-built
        float(y)
    good = xp.take(xp.exp(a) * 2.0, xp.asarray(np.array([0, 3, 9])))
    np.testing.assert_allclose(np.asarray(good + 1.0),
                               np.exp(np.linspace(0, 1, 10))[[0, 3, 9]] * 2.0 + 1.0, rtol=1e-15)


@pytest.mark.parametrize("switch", [("LAZYARRAY_STEPS", "0"), ("LAZYARRAY_TIER", "interpret")])
def test_switches_turn_steps_off(monkeypatch, switch):
    monkeypatch.setenv(*switch)
    a = xp.asarray(np.linspace(0, 1, 30))
    before = info().step_evaluations
    float(xp.sum(xp.atan(a) * 1.5 - a))
    assert info().step_evaluations == before


def test_placeholders_are_never_stepped():
    x = xp.placeholder((4,), name="x")
    with pytest.raises(xp.ConcretizationError):
        float(xp.sum(xp.sin(x) * 2.0))


def test_threads_stepping_one_graph_agree():
    x = np.linspace(-2, 2, 300)
    a = xp.asarray(x)
    y = xp.sum(xp.cosh(a * 0.3) - xp.sinh(a) * a + 0.125)
    got, errors = [], []

    def read():
        try:
            got.append(float(y))
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)
    threads = [threading.Thread(target=read) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(set(got)) == 1
    assert got[0] == pytest.approx(float(np.sum(np.cosh(x * 0.3) - np.sinh(x) * x + 0.125)),
                                   rel=1e-12)


def test_the_log_says_a_structure_runs_op_by_op(caplog):
    a = xp.asarray(np.linspace(0, 1, 20))
    with caplog.at_level(logging.INFO, logger="lazyarray"):
        float(xp.sum(xp.expm1(a) * 0.375 + a))
        float(xp.sum(xp.expm1(a) * 0.375 + a))
    messages = [r.getMessage() for r in caplog.records if r.getMessage().startswith("new ")]
    assert messages[0].startswith("new structure (") and "runs op by op" in messages[0]
    assert messages[-1].endswith("its structure ran op by op before (its first evaluation); "
                                 "planned whole now")


def test_steps_by_cost_and_recurring_ops_are_learned():
    a = xp.asarray(np.linspace(0.25, 0.75, 40))

    def graph(k: float):  # ops whose one-op programs this process has not made
        return xp.sum(xp.acosh(xp.expm1(a) + 1.5 + k) * xp.log10(a))
    counts = [info()]
    for last in (lambda g: g, lambda g: g * 2.0, lambda g: g - 1.0):
        float(last(graph(0.5)))
        counts.append(info())
    steps = [b.step_evaluations - a.step_evaluations for a, b in zip(counts, counts[1:])]
    misses = [b.misses - a.misses for a, b in zip(counts, counts[1:])]
    # unknown at first: planned whole; met again, its ops run in steps and their one-op
    # programs are made; then only the new op is
    assert steps == [0, 1, 1]
    assert misses[0] == 1 and misses[1] >= 1 and misses[2] <= 1


@pytest.mark.parametrize("cap", ["capped", "uncapped"])
def test_steps_by_cost_learn_at_most_a_few_recurring_ops_a_graph(cap, monkeypatch):
    """A graph met again whose ops are many recurring ones (more than ``WANTED_MAX``) is
    planned whole: making every one-op program now would cost several plans.  (Without
    the cap, its second graph runs in steps and makes them all.)"""
    if cap == "uncapped":
        monkeypatch.setattr(_steps, "WANTED_MAX", 1000)
    # (each its own structure and shapes: a last op, 44 or 46 elements)
    tail, n = {"capped": (xp.floor, 44), "uncapped": (xp.round, 46)}[cap]
    a = xp.asarray(np.linspace(0.25, 0.75, n))

    def graph():  # 14 ops whose one-op programs this process has not made
        v = xp.atan(xp.sinh(xp.log1p(xp.cosh(xp.asinh(xp.expm1(a))))))
        v = xp.trunc(xp.square(xp.log2(xp.sqrt(v))) * 7.0)
        return xp.sum(tail(xp.ceil(v) * 0.5) - xp.sign(a))
    counts = [info()]
    for last in (lambda g: g, lambda g: g * 2.0):
        float(last(graph()))
        counts.append(info())
    steps = [b.step_evaluations - a.step_evaluations for a, b in zip(counts, counts[1:])]
    misses = [b.misses - a.misses for a, b in zip(counts, counts[1:])]
    if cap == "capped":
        assert steps == [0, 0] and misses == [1, 1]
    else:
        assert steps == [0, 1] and misses[0] == 1 and misses[1] >= 1  # (some may exist)


def test_a_long_chain_predicts_one_window_not_every_step(monkeypatch):
    monkeypatch.setattr(_steps, "NEW_COST", 175)  # the real rule: predicted, and cheaper
    predicted = []
    real = _steps._predict
    monkeypatch.setattr(_steps, "_predict", lambda steps, *a: predicted.append(len(steps))
                        or real(steps, *a))
    x = np.linspace(0.5, 1.5, 700)
    e = xp.asarray(x)
    for _ in range(2000):
        e = e * 1.0000003  # (a multiplier of its own: 700 elements, a one-op program new here)
    before = info()
    got = float(xp.sum(e))
    assert info().step_evaluations == before.step_evaluations + 1
    assert info().steps - before.steps == 2001
    assert sum(predicted) <= 200  # the unknown multiply's window and the sum's, not 2,001
    assert got == pytest.approx(float(np.sum(x * 1.0000003 ** 2000)), rel=1e-9)


def test_steps_stop_where_the_next_ones_are_not_worth_it(monkeypatch):
    x = np.linspace(0.25, 0.75, 300)
    a = xp.asarray(x)
    with one_op_steps():  # their one-op programs known from here, whatever ran before
        in_steps(lambda: xp.sum(a * 0.5 + 0.25), monkeypatch)
    monkeypatch.setattr(_steps, "NEW_COST", 10_000)  # every one-op program made is too dear
    v = a
    for _ in range(_steps.WINDOW + 10):  # known steps, more than a window
        v = v * 0.5 + 0.25
    w = xp.log10(xp.acosh(xp.expm1(v) + 1.5)) * xp.sinh(v)  # ops of no one-op program yet
    before = info()
    got = np.asarray(w)
    after = info()
    assert after.step_evaluations == before.step_evaluations + 1
    assert after.steps - before.steps == 2 * (_steps.WINDOW + 10)  # then the rest, whole:
    assert after.misses - before.misses == 1                      # one program
    want = x
    for _ in range(_steps.WINDOW + 10):
        want = want * 0.5 + 0.25
    want = np.log10(np.arccosh(np.expm1(want) + 1.5)) * np.sinh(want)
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_steps_free_each_value_while_they_run():
    """Not only once the evaluation is over: a chain in steps holds a few values at a time."""
    import tracemalloc
    e = xp.asarray(np.linspace(0.5, 1.5, 30_000))  # 240 KB a value
    for _ in range(200):
        e = e * 1.0000001
    s = xp.sum(e)
    del e
    before = info().steps
    tracemalloc.start()
    try:
        got = float(s)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert info().steps - before == 201
    assert peak < 20 * 240_000, peak  # all 200 values would take 48 MB
    assert got == pytest.approx(float(np.sum(np.linspace(0.5, 1.5, 30_000) * 1.0000001 ** 200)),
                                rel=1e-9)


def _walks(monkeypatch) -> list:
    """The roots of every keyed walk an evaluation makes, from here on."""
    from lazyarray import _program
    walked = []
    real = _program.keyed_walk
    monkeypatch.setattr(_program, "keyed_walk", lambda roots: walked.append(roots) or
                        real(roots))
    return walked


def test_known_steps_of_a_new_structure_run_without_a_walk(monkeypatch):
    a = xp.asarray(np.linspace(0.5, 1.5, 91))  # (a size of this test's own)
    in_steps(lambda: xp.sum(xp.sin(a) * 0.25 + a - a * 0.5), monkeypatch)
    walked = _walks(monkeypatch)
    before = info()
    y = xp.sin(a) * 0.25 + a * 0.5 - a  # new: a structure no other test records
    got = np.asarray(y)
    after = info()
    assert walked == []
    assert after.step_evaluations - before.step_evaluations == 1
    assert after.steps - before.steps == 5 and after.misses == before.misses
    x = np.linspace(0.5, 1.5, 91)
    np.testing.assert_allclose(got, np.sin(x) * 0.25 + x * 0.5 - x, rtol=1e-14)
    y = xp.sin(a) * 0.25 + a * 0.5 - a  # met again: planned whole (a walk), then known
    np.asarray(y)
    assert len(walked) == 1 and info().step_evaluations == after.step_evaluations
    np.asarray(xp.sin(a) * 0.25 + a * 0.5 - a)
    assert len(walked) == 1 and info().misses == after.misses + 1


def test_steps_run_without_a_walk_hand_over_at_an_unknown_one(monkeypatch):
    a = xp.asarray(np.linspace(0.5, 1.5, 73))  # (a size of this test's own)
    in_steps(lambda: xp.sum(xp.expm1(a * 0.75 + 0.5) - a), monkeypatch)
    walked = _walks(monkeypatch)
    before = info()
    y = xp.log1p(xp.cosh(a * 0.75 + 0.5) * 3.0)  # known, known, then unknown ops
    got = np.asarray(y)
    after = info()
    # the rest walked from the first unknown step, and the one-op programs made for it
    assert [w[0].op.value for w in walked] == ["log1p", "cosh", "log1p"]
    assert walked[0][0] is y._node
    assert after.step_evaluations - before.step_evaluations == 1  # one evaluation
    assert after.steps - before.steps == 5
    x = np.linspace(0.5, 1.5, 73)
    np.testing.assert_allclose(got, np.log1p(np.cosh(x * 0.75 + 0.5) * 3.0), rtol=1e-14)
