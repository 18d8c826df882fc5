"""The native front door (backend/dispatch.py): one C-level call per run.

It must give exactly what the Python path gives, hand every case it does not
handle (other types, dtypes, shapes, layouts, kernel errors) back to the
Python path, and leak no references.
"""
import gc
import sys
import threading

import numpy as np
import pytest

import lazyarray as xp
from lazyarray.backend import abi, dispatch, native
from lazyarray.backend.ir import Op

pytestmark = pytest.mark.skipif(not abi.FIELDS, reason="object layouts differ: no front door")


def prepared(fn, *values, symbolic=False):
    phs = [xp.placeholder(tuple(f"d{i}" for i in range(v.ndim)) if symbolic else v.shape,
                          xp.asarray(v).dtype) for v in values]
    p = xp.compile(fn(*phs), inputs=phs).prepare(*values)
    p(*values)
    p(*values)  # the second run in a row opens the door
    native.flush()  # (its trampoline, compiled once per machine in the background)
    return p


def f(x):
    return xp.sum(xp.sin(x) * x**2)


def test_door_opens_and_matches_the_python_path():
    xv = np.linspace(0, 2, 1000)
    p = prepared(f, xv)
    assert p._door is not None
    before = xp.compile_cache_info()
    for _ in range(3):
        assert float(p(xv)) == float(np.asarray(p._runners[(xv.shape,)]([xv])[0]))
    assert xp.compile_cache_info().misses == before.misses
    np.testing.assert_allclose(float(p(xv)), np.sum(np.sin(xv) * xv**2), rtol=1e-13)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int8", "int64", "uint16", "bool",
                                   "complex64", "complex128"])
def test_every_dtype_and_rank(dtype):
    rng = np.random.default_rng(0)
    for shape in [(), (0,), (7,), (3, 4), (2, 3, 5)]:
        xv = (rng.uniform(-5, 5, shape) * 3).astype(dtype)
        p = prepared(lambda x: xp.where(x == x, x, x), xv)
        assert p._door is not None
        got = np.asarray(p(xv))
        assert got.dtype == xv.dtype and got.shape == xv.shape
        np.testing.assert_array_equal(got, xv)


def test_inputs_it_does_not_handle_take_the_python_path():
    xv = np.linspace(0, 2, 12)
    p = prepared(lambda x: x * 2, xv)
    want = xv * 2
    strided = np.zeros(24)
    strided[::2] = xv
    strided = strided[::2]
    unaligned = np.frombuffer(b"\0" + xv.tobytes(), dtype=np.float64, offset=1)
    assert not unaligned.flags.aligned
    for arg in [strided, unaligned, list(xv), xp.asarray(xv), xv.view(np.ndarray).view(type(
            "Sub", (np.ndarray,), {}))]:
        np.testing.assert_array_equal(np.asarray(p(arg)), want)
    with pytest.raises(ValueError, match="shape mismatch"):
        p(np.zeros(13))
    with pytest.raises(ValueError, match="dtype mismatch"):
        p(np.zeros(12, np.float32))
    with pytest.raises(ValueError):
        p()
    np.testing.assert_array_equal(np.asarray(p(xv)), want)


def test_symbolic_sizes_switch_doors():
    p = prepared(lambda x: xp.cumulative_sum(x), np.arange(5.0), symbolic=True)
    for n in (5, 9, 9, 9, 5, 5, 0):
        xv = np.arange(float(n))
        np.testing.assert_array_equal(np.asarray(p(xv)), np.cumsum(xv))


def test_constants_and_several_placeholders():
    w = xp.asarray(np.arange(6.0).reshape(2, 3))
    xv, yv = np.ones((2, 3)), np.full(3, 2.0)
    p = prepared(lambda x, y: x * w + y, xv, yv)
    assert p._door is not None
    np.testing.assert_array_equal(np.asarray(p(xv, yv)), xv * np.arange(6.0).reshape(2, 3) + yv)
    np.testing.assert_array_equal(np.asarray(p(xv * 0, xv[0])), xv)


def test_kernel_error_raises_through_the_python_path():
    xv = np.arange(10.0)
    p = prepared(lambda x, i: xp.take(x, i), xv, np.array([1, 2]))
    assert p._door is not None
    with pytest.raises(IndexError, match="index 10 is out of bounds for axis 0 with size 10"):
        p(xv, np.array([1, 10]))
    np.testing.assert_array_equal(np.asarray(p(xv, np.array([3, -1]))), [3.0, 9.0])


def test_several_outputs_go_through_the_door_as_a_tuple():
    """A program with several outputs (a loop's new state and its loss, say) returns
    them from one native call, equal to the Python path's, of every rank and dtype."""
    xv = np.arange(4.0)
    phs = [xp.placeholder((4,))]
    outs = [phs[0] + 1, xp.sum(phs[0] * 2), xp.astype(phs[0] > 1, xp.int32)]
    p = xp.compile(outs, inputs=phs).prepare(xv)
    for _ in range(2):
        p(xv)
    native.flush()
    for k in range(3):
        a, b, c = p(xv + k)
        np.testing.assert_array_equal(np.asarray(a), xv + k + 1)
        assert float(b) == float(np.sum((xv + k) * 2)) and b.shape == ()
        assert np.asarray(c).dtype == np.int32
        np.testing.assert_array_equal(np.asarray(c), (xv + k > 1).astype(np.int32))
    assert p._door is not None
    with pytest.raises(ValueError, match="shape mismatch"):
        p(np.zeros(5))
    a, b, c = p(xv)  # and the door again
    assert float(b) == 12.0


def test_an_output_that_is_an_input_or_repeated_keeps_the_python_path():
    xv = np.arange(4.0)
    for outs in (lambda x: [x, x * 2], lambda x: [x * 2, x * 2]):
        phs = [xp.placeholder((4,))]
        made = outs(phs[0])
        if made[0] is not phs[0]:
            made[1] = made[0]  # the same array twice
        p = xp.compile(made, inputs=phs).prepare(xv)
        for _ in range(3):
            a, b = p(xv)
        native.flush()
        a, b = p(xv)
        np.testing.assert_array_equal(np.asarray(b), xv * 2)
        assert np.asarray(a).tolist() == (xv if made[0] is phs[0] else xv * 2).tolist()


def test_several_outputs_leak_no_references():
    xv = np.linspace(0, 1, 64)
    phs = [xp.placeholder(("n",))]
    p = xp.compile([xp.exp(phs[0]), xp.sum(phs[0])], inputs=phs).prepare(xv)
    for _ in range(3):
        p(xv)
    native.flush()
    for _ in range(10):
        p(xv)
    assert p._door is not None

    def run(n):
        for _ in range(n):
            a, b = p(xv)
        del a, b
        return sys.getrefcount(xv), sys.getrefcount(np.dtype(np.float64))
    first = run(1000)
    assert run(2000) == first


def test_no_reference_leaks():
    xv = np.linspace(0, 1, 64)
    p = prepared(lambda x: xp.exp(x) - xp.mean(x), xv, symbolic=True)  # two allocations
    d = np.dtype(np.float64)
    z = np.zeros(3)
    for _ in range(10):
        p(xv)
        p(z)
    def counts():
        native.flush()  # (background work of earlier tests holds dtypes while it runs)
        # earlier tests' garbage in cycles holds dtypes until collected (a collection
        # between the two counts made the second one 2 lower in a full run)
        gc.collect()
        return sys.getrefcount(xv), sys.getrefcount(d), sys.getrefcount(dispatch.FALLBACK)

    def run(n):
        for _ in range(n):
            p(xv)
            p(z)  # another size: falls back
        return counts()

    assert p._door is not None and len(p._door_runner.allocs) == 2
    first = run(1000)
    assert run(2000) == first  # a leak would grow with every call
    with pytest.raises(ValueError):
        p(np.zeros((3, 1)))


def test_implicit_evaluation_uses_the_runner_door():
    xv = np.linspace(0, 2, 100)
    a = xp.asarray(xv)
    vals = [float(xp.sum(xp.sin(a) * a**k)) for k in (2, 3, 2, 3, 2.5)]
    np.testing.assert_allclose(vals, [np.sum(np.sin(xv) * xv**k) for k in (2, 3, 2, 3, 2.5)],
                               rtol=1e-13)


def test_door_from_many_threads():
    xv = np.linspace(0, 2, 4096)
    p = prepared(lambda x: xp.tanh(x) * 3, xv)
    want = np.asarray(p(xv))
    bad = []

    def work():
        for _ in range(300):
            if not np.array_equal(np.asarray(p(xv)), want):
                bad.append(1)
    ts = [threading.Thread(target=work) for _ in range(8)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not bad


def test_unaligned_arrays_are_copied_before_kernels_read_them():
    xv = np.linspace(0, 1, 12)
    u = np.frombuffer(b"\0" + xv.tobytes(), dtype=np.float64, offset=1)
    a = xp.asarray(u)
    assert a._node.value.flags.aligned
    np.testing.assert_array_equal(np.asarray(a * 2), xv * 2)
    with pytest.raises(ValueError, match="copy=False"):
        xp.asarray(u, copy=False)


def test_trampolines_are_capped(monkeypatch):
    """Trampolines stay loaded for good: past the cap, runs take the Python path."""
    xv = np.arange(6.0).reshape(2, 3)
    monkeypatch.setattr(dispatch, "MAX_SIGNATURES", 0)
    monkeypatch.setattr(dispatch._trampolines(), "defs", {})  # as if none were made yet
    p = prepared(lambda x: x[None] * 2, xv)
    assert p._door is None
    np.testing.assert_array_equal(np.asarray(p(xv)), xv[None] * 2)


def test_door_results_are_data_leaves():
    xv = np.linspace(0, 1, 16)
    p = prepared(lambda x: x * 2.0, xv)
    for _ in range(3):
        r = p(xv)
    assert p._door is not None
    assert r.shape == (16,) and r.dtype == xp.float64
    node = r._node
    assert node.op is Op.DATA and node.value is not None and node.sig[1] == (node.value,)
    np.testing.assert_array_equal(np.asarray(xp.sum(r * r) + r[3]), np.sum((xv * 2) ** 2) + xv[3] * 2)
    with pytest.raises(AttributeError, match="no attribute 'nonexistent'"):
        r.nonexistent  # noqa: B018


def test_a_parameter_the_function_ignores_keeps_the_door():
    """The door checks an ignored argument's dtype and shape too (as the Python path's
    runner key does) instead of not opening at all."""
    xv, yv = np.linspace(0, 2, 12), np.arange(5.0)
    p = prepared(lambda x, y: x * 2.0, xv, yv)
    assert p._door is not None
    np.testing.assert_array_equal(np.asarray(p(xv, yv)), xv * 2.0)
    np.testing.assert_array_equal(np.asarray(p(xv, yv + 1)), xv * 2.0)
    with pytest.raises(ValueError, match="shape mismatch"):
        p(xv, np.zeros(6))  # the ignored argument's shape is still checked
    with pytest.raises(ValueError, match="dtype mismatch"):
        p(xv, np.zeros(5, np.float32))
    c = xp.asarray(np.full(12, 3.0))  # with a captured constant beside it
    q = prepared(lambda x, y: x * c, xv, yv)
    assert q._door is not None
    np.testing.assert_array_equal(np.asarray(q(xv, yv)), xv * 3.0)
    f = xp.jit(lambda x, y: x + 1.0)
    for _ in range(3):
        f(xv, yv)
    native.flush()
    f(xv, yv)
    np.testing.assert_array_equal(np.asarray(f(xv, yv)), xv + 1.0)


def test_implicit_evaluation_of_several_outputs_uses_the_runner_door(monkeypatch):
    """Two arrays evaluated together, again and again with new scalars (a loop's state
    and its loss): from the runner's door, as a tuple turned into its outputs."""
    calls = []
    real = dispatch.front_door

    def counting(*args, **kwargs):
        def opened(door, on_open=args[4]):
            def counted(*a):
                calls.append(1)
                return door(*a)
            on_open(counted)
        return real(*args[:4], opened, *args[5:], **kwargs)
    monkeypatch.setattr(dispatch, "front_door", counting)
    xv = np.linspace(0, 1, 50)
    a = xp.asarray(xv)
    for k in range(8):
        u, v = xp.evaluate(xp.exp(a) * (k + 0.5), xp.sum(a) * (k + 0.25))
        np.testing.assert_allclose(np.asarray(u), np.exp(xv) * (k + 0.5), rtol=1e-15)
        assert float(v) == pytest.approx(np.sum(xv) * (k + 0.25), rel=1e-14)
        if k == 2:
            native.flush()  # the door opens in the background
    assert len(calls) >= 4


def test_a_program_with_many_buffers_gets_no_door():
    """A door's code grows with the buffers it allocates: past MAX_ALLOCS (a long chain's
    program) there is none, and no trampoline is compiled for it."""
    xv = np.linspace(0, 1, 8)

    def chain(x):
        for _ in range(dispatch.MAX_ALLOCS + 6):
            x = x - xp.mean(x) * 0.5  # each mean a buffer of its own
        return x
    p = prepared(chain, xv)
    assert len(p._runners[(xv.shape,)].allocs) > dispatch.MAX_ALLOCS
    assert p._door is None
    want = xv.copy()
    for _ in range(dispatch.MAX_ALLOCS + 6):
        want = want - np.mean(want) * 0.5
    np.testing.assert_allclose(np.asarray(p(xv)), want, rtol=1e-12, atol=1e-15)


def test_a_loop_opens_its_door_on_its_own_thread_once_its_trampoline_is_loaded(monkeypatch):
    """A runner's door is asked for at a quiet moment from its second run; a runner
    whose trampoline another program loaded already opens it on the calling thread at
    run ``DOOR_NOW`` (a short loop ends before a quiet moment), and not before."""
    from lazyarray.backend import cache, runtime
    a = xp.asarray(np.linspace(0, 1, 300))
    for _ in range(12):  # a structure whose door opens in the background
        float(xp.sum(xp.sin(a) * 2.0))
    native.flush()
    runners = lambda: {id(v[0]): v[0] for v in cache.PROGRAMS.runners.data.values()}  # noqa: E731
    assert any(r.door is not None for r in runners().values())
    queued = []
    monkeypatch.setattr(native.STORE, "later", lambda fn, *args: queued.append(fn))
    before = set(runners())
    doors = []
    for k in range(12):  # another of the same signature (quiet-moment requests held back)
        assert float(xp.sum(xp.cos(a) * (3.0 + k))) == pytest.approx(
            np.sum(np.cos(np.linspace(0, 1, 300)) * (3.0 + k)), rel=1e-13)
        new = [r for i, r in runners().items() if i not in before]
        doors.append([(r.runs, r.door is not None) for r in new])
    made = [d for d in doors if d]
    assert made, "no whole program was planned for the loop's structure"
    last = {runs: opened for runs, opened in made[-1]}
    assert last.get(runtime.DOOR_NOW) is True
    for step in made:
        for runs, opened in step:
            assert opened == (runs >= runtime.DOOR_NOW)
    assert queued  # (the quiet-moment request was still made, at the second run)
