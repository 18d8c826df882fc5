"""Native steps (backend/steps.ll, ``_steps.NATIVE``): a new structure whose one-op
programs are known runs its steps in native code, with the same values, signatures,
counters and hand-over as ``_steps.quick`` in Python, and keeps no references."""
import gc
import sys
import threading
import weakref

import numpy as np
import pytest

import lazyarray as xp
from helpers import in_steps, one_op_steps
from lazyarray import _recording, _steps
from lazyarray.backend import ir, library

pytestmark = [
    pytest.mark.skipif(not _recording.load_now(), reason="no native code for steps here"),
    pytest.mark.skipif(not library.bundle_loaded(), reason="steps need the building blocks"),
]


@pytest.fixture(autouse=True)
def one_op_programs():
    """The steps here are one-op programs (tests/test_fusion.py has the fused regions)."""
    with one_op_steps():
        yield


@pytest.fixture(autouse=True)
def always_step(monkeypatch):
    monkeypatch.setattr(_steps, "NEW_COST", 0)  # (the walk makes missing one-op programs)


def info():
    return xp.compile_cache_info()


def _graphs(a, b, m, i):
    """Graphs of many kinds: scalars, two arrays, views below and as roots, reductions,
    three sources, a matrix product, integers and booleans."""
    return [
        lambda: xp.sin(a) * 0.25 + a * 0.5 - a,
        lambda: xp.exp(a * 0.5) / (b + 2.0) - xp.sqrt(xp.abs(b)),
        lambda: a[1:-1] * 2.0 + a[2:] - xp.cos(a[:-2]),
        lambda: xp.sum(xp.tanh(a) * b, axis=0) + 1.0,
        lambda: xp.where(a > b, a * 2.0, b - 1.0) + 0.5,
        lambda: (m @ m) * 0.5 + 1.0,
        lambda: (i * 3 + 7) // 2 - (i % 5),
        lambda: xp.logical_and(a > 0.25, b < 1.5) | (a == b),
        lambda: xp.reshape(a * 2.0, (a.shape[0] // 2, 2)) + 1.0,
        lambda: (a * 0.5 + 1.0)[3:9],
        lambda: a[1:][2:] * 2.0 + b[3:] - xp.sin(b[1:-2]),  # a view of a view below
    ]


def _data():
    rng = np.random.default_rng(3)
    a = xp.asarray(rng.uniform(0.1, 2.0, 64))
    b = xp.asarray(rng.uniform(0.1, 2.0, 64))
    m = xp.asarray(rng.uniform(-1, 1, (6, 6)))
    i = xp.asarray(rng.integers(-50, 50, 64))
    return a, b, m, i


def _run(make, native: bool, monkeypatch):
    """Evaluate ``make()`` as a new structure, natively or by quick's Python loop:
    (value, steps run, step evaluations, epochs passed)."""
    monkeypatch.setattr(_steps, "NATIVE", _steps.NATIVE if native else None)
    _steps._MET.clear()
    y = make()
    before, epoch = info(), ir.EPOCH
    value = np.asarray(y)
    after = info()
    return (value, after.steps - before.steps,
            after.step_evaluations - before.step_evaluations, ir.EPOCH - epoch)


def test_native_steps_give_what_the_python_loop_gives(monkeypatch):
    a, b, m, i = _data()
    native = _steps.NATIVE
    assert native is not None
    for make in _graphs(a, b, m, i):
        in_steps(make, monkeypatch)
        calls = []
        monkeypatch.setattr(_steps, "NATIVE", lambda *args: calls.append(1) or native(*args))
        got = _run(make, True, monkeypatch)
        monkeypatch.setattr(_steps, "NATIVE", native)
        want = _run(make, False, monkeypatch)
        np.testing.assert_array_equal(got[0], want[0])
        assert got[1:] == want[1:] and got[1] > 1 and got[2] == 1


def test_native_steps_run_without_a_walk_and_sign_like_python(monkeypatch):
    a, b, m, i = _data()
    make = lambda: xp.exp(a * 0.5) / (b + 2.0) - xp.sqrt(xp.abs(b))  # noqa: E731
    in_steps(make, monkeypatch)
    from lazyarray import _program
    walked = []
    real = _program.keyed_walk
    monkeypatch.setattr(_program, "keyed_walk", lambda r: walked.append(r) or real(r))
    sigs = []
    for native in (True, False):
        _steps._MET.clear()
        monkeypatch.setattr(_steps, "NATIVE", _steps.NATIVE if native else None)
        e = a * 0.5
        x = xp.exp(e)
        y = x / (b + 2.0) - xp.sqrt(xp.abs(b))
        np.asarray(y)
        sigs.append([(n.sig[0], n.sig[2], len(n.sig[1]), n.sig[1][0] is n.value)
                     for n in (e._node, x._node, y._node)])
    assert walked == [] and sigs[0] == sigs[1]
    assert all(s[1] == ir.NEVER and s[2] == 1 and s[3] for s in sigs[0])  # values: leaves


def test_native_steps_hand_over_at_an_unknown_step(monkeypatch):
    a = xp.asarray(np.linspace(0.5, 1.5, 77))
    in_steps(lambda: xp.expm1(a * 0.75 + 0.5) * a, monkeypatch)
    results = []
    native = _steps.NATIVE
    monkeypatch.setattr(_steps, "NATIVE", lambda *args: results.append(native(*args))
                        or results[-1])
    before = info()
    y = xp.log1p(xp.cosh(a * 0.75 + 0.5) * 3.0)
    got = np.asarray(y)
    after = info()
    # two steps ran, the third was not known (then None: the one-op programs made)
    assert [r for r in results if r is not None] == [-3]
    assert after.step_evaluations - before.step_evaluations == 1
    assert after.steps - before.steps == 5
    x = np.linspace(0.5, 1.5, 77)
    np.testing.assert_allclose(got, np.log1p(np.cosh(x * 0.75 + 0.5) * 3.0), rtol=1e-14)


def test_native_steps_leave_large_and_one_op_graphs_to_python():
    a = xp.asarray(np.ones(_steps.STEP_MAX + 1))
    assert _steps.NATIVE((a * 2.0 + 1.0)._node, {}) is None
    b = xp.asarray(np.ones(10))
    assert _steps.NATIVE((b * 2.0)._node, {}) is None
    assert _steps.NATIVE((b[1:] * 2.0)._node, {}) is None  # a view and one op
    assert _steps.NATIVE((b * 2.0 + 1.0)._node, {}) == -1  # nothing known: none ran


def test_native_steps_check_their_arguments():
    b = xp.asarray(np.ones(10))
    for args in ((), (b._node,), (b._node, []), (b, {}), (b._node, {}, 1, 2)):
        with pytest.raises(TypeError, match="native_steps expects a Node and a dict"):
            _steps.NATIVE(*args)


def test_native_steps_keep_no_references(monkeypatch):
    a, b, m, i = _data()
    make = lambda: xp.exp(a * 0.5) / (b + 2.0) - xp.sqrt(xp.abs(b)) + xp.sum(a[1:-1])  # noqa
    for _ in range(50):  # (its one-op programs made, their doors opened)
        in_steps(make, monkeypatch)
    from lazyarray.backend import native
    native.flush()
    leaves = (a._node, b._node, a._node.value, b._node.value)
    counts = [sys.getrefcount(x) for x in leaves]
    gc.collect()
    objects = len(gc.get_objects())
    for _ in range(200):
        _steps._MET.clear()
        np.asarray(make())
    gc.collect()
    assert [sys.getrefcount(x) for x in leaves] == counts
    assert len(gc.get_objects()) - objects < 50


def test_native_steps_free_each_value_as_they_go(monkeypatch):
    a = xp.asarray(np.linspace(0, 1, 4096))
    in_steps(lambda: a * 0.5 + 0.25, monkeypatch)
    e = a
    for _ in range(300):  # 600 steps: each value is freed once its reader has its own
        e = e * 0.5 + 0.25
    nodes = []
    n = e._node
    while n.srcs:
        nodes.append(weakref.ref(n))
        n = n.srcs[0]
    del n
    _steps._MET.clear()
    before = info()
    np.asarray(e)
    assert info().steps - before.steps == 600
    assert sum(r() is not None for r in nodes) == 1  # e's node only


def test_a_failing_step_raises_and_leaves_the_rest_lazy(monkeypatch):
    a = xp.asarray(np.linspace(0, 1, 50))
    idx = xp.asarray(np.array([0, 3, 90]))
    in_steps(lambda: xp.take(a * 2.0, idx // 3) + 1.0, monkeypatch)
    y = xp.take(a * 2.0, idx // 1) + 1.0  # computed indices, one out of bounds
    _steps._MET.clear()
    with pytest.raises(IndexError):
        np.asarray(y)
    assert y._node.value is None
    with pytest.raises(IndexError):
        np.asarray(y)


def test_native_steps_from_threads(monkeypatch):
    a = xp.asarray(np.linspace(0.5, 1.5, 200))
    b = xp.asarray(np.linspace(1.5, 2.5, 200))
    in_steps(lambda: xp.sin(a) * b + 0.5 - a * 0.25, monkeypatch)
    want = np.sin(np.linspace(0.5, 1.5, 200)) * np.linspace(1.5, 2.5, 200) + 0.5
    errors, got = [], []

    def work(k: float):
        try:
            for j in range(200):
                shared = xp.sin(a) * b + 0.5
                y = shared - a * (0.25 + k + j)
                z = shared * 1.0
                got.append((np.asarray(y)[0], np.asarray(z)[0]))
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)
    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert all(z == pytest.approx(want[0], rel=1e-14) for _, z in got)


def test_open_front_doors_are_called_without_the_leaf_runners(monkeypatch):
    a = xp.asarray(np.linspace(0.5, 1.5, 81))
    b = xp.asarray(np.linspace(1.5, 2.5, 81))
    make = lambda k: xp.exp(a * k) / (b + 2.0) - xp.sqrt(xp.abs(b)) * 3.0  # noqa: E731
    for k in range(4):  # (one-op programs made, run twice: their doors open)
        in_steps(lambda: make(0.5 + k), monkeypatch)
    fast = _steps.PROGRAMS.by_signature
    calls = []

    def counted(run):
        return lambda leaves: calls.append(1) or run(leaves)
    for key, entry in list(fast.items()):
        if len(entry) == 3 and type(entry[2]) is _steps.Direct:
            monkeypatch.setitem(fast, key, (counted(entry[0]),) + entry[1:])
    _steps._MET.clear()
    before = info()
    got = np.asarray(make(0.25))
    assert info().steps - before.steps == 8 and calls == []
    x, y = np.linspace(0.5, 1.5, 81), np.linspace(1.5, 2.5, 81)
    np.testing.assert_allclose(got, np.exp(x * 0.25) / (y + 2.0) - np.sqrt(y) * 3.0, rtol=1e-14)
    # a scalar the slot does not take natively (a numpy float for a float64 slot): the
    # leaf runner
    _steps._MET.clear()
    got = np.asarray(xp.exp(a * 0.125) / (b + np.float64(2.0)) - xp.sqrt(xp.abs(b)) * 3.0)
    assert calls
    np.testing.assert_allclose(got, np.exp(x * 0.125) / (y + 2) - np.sqrt(y) * 3.0, rtol=1e-14)


def test_views_of_leaves_are_signed_natively(monkeypatch):
    a = xp.asarray(np.linspace(0.5, 1.5, 83))
    make = lambda: a[1:-1] * 2.0 + a[2:] - xp.cos(a[:-2])  # noqa: E731
    deep = lambda: a[1:][2:] * 2.0 + a[3:] - xp.cos(a[:-3])  # noqa: E731
    for f in (make, deep):
        in_steps(f, monkeypatch)
    signed = []

    def profile(frame, event, arg):
        if event == "call" and frame.f_code is _steps._sign.__code__:
            signed.append(1)
    for f, python in ((make, 0), (deep, 1)):
        _steps._MET.clear()
        y = f()
        before = info()
        sys.setprofile(profile)
        try:
            np.asarray(y)
        finally:
            sys.setprofile(None)
        assert info().step_evaluations == before.step_evaluations + 1
        assert len(signed) == python  # (the view of a view: by the Python function)


@pytest.mark.parametrize("marked", [False, True])
def test_a_chain_goes_on_natively_after_its_first_step_is_made(marked, monkeypatch):
    """Its first one-op program made without a walk of the chain; with a node marked
    (_live), after the walk made it (_steps._hand_on)."""
    from lazyarray import _live, _program
    walked = []
    real = _program.keyed_walk
    monkeypatch.setattr(_program, "keyed_walk", lambda r: walked.append(_graph_size(r[0]))
                        or real(r))
    x = np.linspace(0.5, 1.5, 600 + marked)  # (a one-op program of its own, too)
    if marked:  # a node a loop holds, marked by an earlier evaluation (not this graph's):
        held = xp.asarray(x) * 2.0  # the Python path and the native read both see it
        _live._mark(held._node)
    e = xp.asarray(x)
    k = 1.0000005  # (one leaf for every multiplication)
    for _ in range(2500 + marked):  # (a length of its own: a structure of this test)
        e = e * k
    called = []

    def profile(frame, event, arg):
        if event == "call" and frame.f_code is _program._run_known.__code__:
            called.append(1)
    before = info()
    sys.setprofile(profile)
    try:
        got = float(xp.sum(e))
    finally:
        sys.setprofile(None)
    assert info().step_evaluations == before.step_evaluations + 1
    # every multiplication a step (the sum, left alone, may be planned as one op)
    assert info().steps - before.steps - marked in (2500, 2501)
    assert len(called) < 20  # not one a step
    # the walk of the chain, or of the one-op programs only (their nodes and leaves)
    assert max(walked) == (2 * 2501 + 2 if marked else 3)
    want = np.sum(x * k ** (2500 + marked))
    assert got == pytest.approx(float(want), rel=1e-9)


def _graph_size(node) -> int:
    """Nodes of a graph (computed ones and leaves)."""
    seen, stack = set(), [node]
    while stack:
        n = stack.pop()
        if id(n) not in seen:
            seen.add(id(n))
            stack.extend(n.srcs)
    return len(seen)


def test_an_op_evaluated_alone_serves_as_a_step(monkeypatch):
    a = xp.asarray(np.linspace(0.5, 1.5, 87))
    np.asarray(xp.cosh(a))  # one op: planned whole under its recorded signature
    np.asarray(a * 0.625)
    from lazyarray import _program
    planned = []
    real = _program._plan
    monkeypatch.setattr(_program, "_plan", lambda pending, *a: planned.append(
        pending[0].op.value) or real(pending, *a))
    before = info()
    _steps._MET.clear()
    got = np.asarray(xp.cosh(a) - a * 0.625)  # a new structure: two of its steps known
    after = info()
    assert after.step_evaluations - before.step_evaluations == 1
    assert after.steps - before.steps in (2, 3)  # (the subtraction: a step, or alone)
    assert "cosh" not in planned and "multiply" not in planned
    x = np.linspace(0.5, 1.5, 87)
    np.testing.assert_allclose(got, np.cosh(x) - x * 0.625, rtol=1e-14)


def test_a_long_graph_of_views_with_one_step_left_after_the_made_ones():
    """_steps._first_made: after the programs it makes, one op (and views) may be left,
    which the native steps do not take (fewer than two ops): it runs or is made too."""
    x = np.linspace(0, 1, 300).reshape(10, 30)
    v = xp.asarray(x) * 0.1234567  # (a multiplier of its own: a new one-op program)
    for _ in range(70):  # views between the steps: more than a window
        v = xp.permute_dims(v, (1, 0))
    before = info()
    got = float(xp.sum(v * 1.5))
    assert info().step_evaluations == before.step_evaluations + 1
    assert got == pytest.approx(float(np.sum(x * 0.1234567 * 1.5)), rel=1e-12)


QUIET = r"""
import json, sys
import numpy as np
import lazyarray as xp
from lazyarray import _recording, _steps
from lazyarray.backend import library
library._bundle(queue=False)
ok = _recording.load_now() and library.bundle_loaded()
calls = []
_steps.LISTENERS.append(lambda key, count: calls.append(count))
x = np.linspace(0.5, 1.5, 100)
a = xp.asarray(x)
float(xp.sum(xp.sin(a - 0.5) * a + 0.25))  # (the process's first evaluation takes the walk)


python_calls = []


def profile(frame, event, arg):
    if event == "call" and frame.f_code.co_name in ("first_step", "enabled"):
        python_calls.append(frame.f_code.co_name)


def counted(graph):
    before = xp.compile_cache_info().step_evaluations
    y = graph()
    sys.setprofile(profile)
    value = float(y)
    sys.setprofile(None)
    return value, xp.compile_cache_info().step_evaluations - before


quiet = [counted(lambda: xp.sum(a * 1.5 + 0.25)), counted(lambda: xp.sum((a - 0.5) * a)),
         counted(lambda: xp.sum(xp.sin(a) * 2.0 + a))]
logging_before = "logging" in sys.modules
import logging  # noqa: E402 - from now on a listener may be listening
told = counted(lambda: xp.sum(xp.cos(a) * 3.0 - a))
print(json.dumps([ok, logging_before, quiet, told, calls, python_calls]))
"""


def test_first_steps_are_counted_natively_without_the_logging_package():
    """Without the logging package nobody can listen to a first step: the native steps
    count it without a Python call (and know that steps are on without one); once it is
    imported, the listeners are told."""
    import json
    import subprocess
    out = subprocess.run([sys.executable, "-c", QUIET], capture_output=True, text=True,
                         timeout=120, check=True).stdout
    ok, logging_before, quiet, told, calls, python_calls = json.loads(
        out.strip().splitlines()[-1])
    assert ok and not logging_before
    assert python_calls == ["first_step"]  # (the last evaluation's, logging imported)
    x = np.linspace(0.5, 1.5, 100)
    expected = [np.sum(x * 1.5 + 0.25), np.sum((x - 0.5) * x), np.sum(np.sin(x) * 2.0 + x)]
    assert [n for _, n in quiet] == [1, 1, 1]
    assert [v for v, _ in quiet] == pytest.approx(expected, rel=1e-13)
    assert told[1] == 1 and told[0] == pytest.approx(np.sum(np.cos(x) * 3.0 - x), rel=1e-13)
    assert len(calls) == 1 and calls[0] >= 2
