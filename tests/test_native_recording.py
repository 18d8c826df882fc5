"""Native recording (lazyarray/_recording.py, backend/recorder.py): Array's operators
recorded by the native unit make the same nodes, signatures and errors as the Python
functions they replace, and keep no references."""
import gc
import pickle
import sys

import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _recording
from lazyarray.backend import ir

pytestmark = pytest.mark.skipif(not _recording.load_now(), reason="no native recording here")

BINARY = ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__",
          "__rtruediv__", "__floordiv__", "__rfloordiv__", "__mod__", "__rmod__", "__and__",
          "__rand__", "__or__", "__ror__", "__xor__", "__rxor__", "__lshift__", "__rlshift__",
          "__rshift__", "__rrshift__", "__eq__", "__ne__", "__lt__", "__le__", "__gt__",
          "__ge__")
UNARY = ("__neg__", "__abs__", "__invert__")
MANIPULATION = ("reshape", "broadcast_to", "permute_dims", "expand_dims", "astype", "concat",
                "sum", "mean", "max", "min", "where", "zeros", "ones")
FUNCTIONS = sorted(n for n in _recording.installed()
                   if not n.startswith("__") and "." not in n and n not in ("T", "shape") + MANIPULATION)


def _same_sig(a, b) -> bool:
    if a is None or b is None:
        return a is b
    return (a[0] == b[0] and a[2] == b[2] and len(a[1]) == len(b[1])
            and all(x is y for x, y in zip(a[1], b[1])))


def _same_node(a, b, depth=0) -> None:
    """Two recordings of one op: equal structure and signatures (leaves shared)."""
    assert (a.op, a.dtype, a.shape, a.arg) == (b.op, b.dtype, b.shape, b.arg)
    assert _same_sig(a.sig, b.sig), (a.sig, b.sig)
    if a.value is not None or b.value is not None:
        assert a.value is b.value or (a.op is ir.Op.SCALAR and a.value == b.value
                                      and type(a.value) is type(b.value))
    assert len(a.srcs) == len(b.srcs)
    for s, t in zip(a.srcs, b.srcs):
        if s is not t:
            _same_node(s, t, depth + 1)


def _outcome(fn, *args):
    try:
        r = fn(*args)
    except Exception as e:  # noqa: BLE001 - compared below
        return ("raises", type(e), str(e))
    if r is NotImplemented:
        return ("NotImplemented",)
    return ("array", r)


def _compare(name: str, *args) -> None:
    native = getattr(xp.Array, name)
    assert type(native).__name__ == "method_descriptor"
    _compare_calls(native, _recording._PYTHON[name], *args)


def _compare_calls(native, python, *args) -> None:
    got, want = _outcome(native, *args), _outcome(python, *args)
    assert got[0] == want[0], (native, args, got, want)
    if got[0] == "array":
        _same_node(got[1]._node, want[1]._node)
    else:
        assert got == want


def _operands():
    rng = np.random.default_rng(0)
    f64 = xp.asarray(rng.uniform(-2, 2, 7))
    f32 = xp.asarray(rng.uniform(-2, 2, 7).astype(np.float32))
    c128 = xp.asarray(rng.uniform(-2, 2, 7) + 1j)
    i64 = xp.asarray(rng.integers(-5, 5, 7))
    i8 = xp.asarray(rng.integers(-5, 5, 7).astype(np.int8))
    u64 = xp.asarray(rng.integers(0, 5, 7).astype(np.uint64))
    b = xp.asarray(rng.integers(0, 2, 7).astype(bool))
    arrays = [f64, f64 * 2.0, f32, c128, i64, i8, u64, b, xp.asarray(np.ones((3, 7))),
              xp.asarray(rng.uniform(size=(1, 7))), xp.placeholder((7,), xp.float64),
              xp.placeholder(("n",), xp.float64), f64[1:], -f64]
    scalars = [0.75, -0.0, float("nan"), 3, -3, 2 ** 40, 2 ** 53 + 1, -(2 ** 53), 2 ** 63 + 1,
               2 ** 70, 127, 128, -129, True, 1j, "a", None, np.float64(1.5), [1.0]]
    return arrays, scalars


@pytest.mark.parametrize("name", BINARY)
def test_binary_operators_record_as_python_does(name):
    arrays, scalars = _operands()
    for a in arrays:
        for other in arrays + scalars:
            _compare(name, a, other)


@pytest.mark.parametrize("name", UNARY)
def test_unary_operators_record_as_python_does(name):
    arrays, _ = _operands()
    for a in arrays:
        _compare(name, a)


def test_leaves_past_the_limit_drop_the_signature():
    """Distinct float objects are distinct leaves: past MAX_LEAVES the signature is None
    (the graph takes the walk), on both paths, and the values still come out right."""
    x = xp.asarray(np.arange(4.0))
    v, want = x, np.arange(4.0)
    floats = [float(f"1.{i + 1}") for i in range(ir.MAX_LEAVES + 4)]
    for f in floats:
        _compare("__mul__", v, f)
        v, want = v * f, want * f
    assert v._node.sig is None
    np.testing.assert_array_equal(np.asarray(v), want)


def test_a_prepared_result_and_an_evaluated_node_take_the_same_path():
    x = xp.placeholder((5,), xp.float64)
    prep = xp.compile(xp.sin(x), inputs=[x]).prepare(np.ones(5))
    r = prep(np.full(5, 0.5))  # a node made on demand (its _node slot is empty)
    _compare("__mul__", r, 2.0)
    _compare("__rmul__", r, 2.0)
    y = xp.asarray(np.ones(5)) * 3.0
    float(xp.sum(y))  # y holds a value now: a leaf with a new epoch
    _compare("__add__", y, 1.0)
    _compare("__add__", y, y)


def test_native_recording_keeps_no_references():
    x = xp.asarray(np.ones(16))
    f = 0.123456
    refs = sys.getrefcount(x), sys.getrefcount(f), sys.getrefcount(x._node)
    counts = []
    for _ in range(2):
        for _ in range(1000):
            y = (2.5 - (x * f + x)) / 3
            y = -y < x
        del y
        gc.collect()
        xp.evaluate(x * 1.0)  # empties the recent-arrays list
        counts.append((sys.getrefcount(x), sys.getrefcount(f), sys.getrefcount(x._node)))
    assert counts[0] == counts[1]
    assert (counts[0][0], counts[0][2]) == (refs[0], refs[2])
    # at most the scalar-signature cache's entry: f and its signature's (f,)
    assert refs[1] <= counts[0][1] <= refs[1] + 2
    before = sum(1 for o in gc.get_objects() if type(o) is ir.Node)
    for _ in range(2000):
        y = x * f + 1
    del y
    gc.collect()
    after = sum(1 for o in gc.get_objects() if type(o) is ir.Node)
    assert after <= before + 4


def test_native_results_compute_right():
    rng = np.random.default_rng(3)
    a, b = rng.uniform(0.5, 2, 100), rng.uniform(0.5, 2, 100)
    x, y = xp.asarray(a), xp.asarray(b)
    got = np.asarray(((x * 0.5 + y) / (2 - x) - y % 0.3) ** 2 >= -x)
    np.testing.assert_array_equal(got, ((a * 0.5 + b) / (2 - a) - b % 0.3) ** 2 >= -a)
    i = xp.asarray(np.arange(10))
    np.testing.assert_array_equal(np.asarray((i * 3 + 7) // 2 & 6 | 1 ^ i << 1 >> 1),
                                  (np.arange(10) * 3 + 7) // 2 & 6 | 1 ^ np.arange(10) << 1 >> 1)


def test_operator_methods_keep_their_names_and_signatures():
    import inspect
    for name in BINARY + UNARY:
        m = getattr(xp.Array, name)
        assert m.__name__ == name
        params = list(inspect.signature(m).parameters)
        assert params == (["self"] if name in UNARY else ["self", "other"])


@pytest.mark.parametrize("name", FUNCTIONS)
def test_functions_record_as_python_does(name):
    native, python = getattr(xp, name), _recording._PYTHON[name]
    assert type(native).__name__ == "builtin_function_or_method"
    arrays, scalars = _operands()
    if hasattr(python, "_recording"):
        for a in arrays + scalars:
            _compare_calls(native, python, a)
    else:
        for a in arrays + scalars[:6]:
            for b in arrays + scalars:
                _compare_calls(native, python, a, b)
    x = arrays[0]
    for args, kwargs in (((), {}), ((x, x, x), {}), ((), {"x": x}), ((x,), {"x2": x})):
        with pytest.raises(TypeError):
            native(*args, **kwargs)


def test_native_functions_keep_their_names_signatures_and_pickle():
    import inspect
    import pickle
    assert {"sin", "exp", "sqrt", "add", "multiply", "maximum", "equal"} <= set(FUNCTIONS)
    for name in FUNCTIONS:
        fn = getattr(xp, name)
        assert fn.__name__ == name and fn.__module__ == "lazyarray"
        assert fn.__doc__ == _recording._PYTHON[name].__doc__
        params = list(inspect.signature(fn).parameters)
        assert params in (["x"], ["x1", "x2"])
        assert pickle.loads(pickle.dumps(fn)) is fn


def test_a_leaf_met_again_is_found_among_the_leaves():
    """A scalar or array already among an operand's leaves is named by its position
    (ir.merge_leaves): (x * f) * f, f * (x * f), x + x * f, (x * f) + x."""
    x = xp.asarray(np.arange(5.0))
    f, g = 1.25, 2.5
    xf = x * f
    xfg = xf * g
    for name, a, b in (("__mul__", xf, f), ("__rmul__", xf, f), ("__add__", xfg, f),
                       ("__add__", xfg, g), ("__sub__", xfg, x), ("__add__", x, xf),
                       ("__add__", xf, x), ("__mul__", xfg, 0.5), ("__mul__", xf, xfg)):
        _compare(name, a, b)
    _compare_calls(xp.multiply, _recording._PYTHON["multiply"], xfg, g)
    np.testing.assert_array_equal(np.asarray((xf * f) * f + xfg * g),
                                  np.arange(5.0) * f * f * f + np.arange(5.0) * f * g * g)


def test_native_nodes_are_not_traversed_by_the_collector_and_still_freed():
    """Native nodes (and their sources' tuples) are untracked by the garbage collector:
    they are in no reference cycle, so a long graph does not make every collection
    traverse it.  They are freed by reference counting, a cycle of the user's that holds
    an array included."""
    import weakref
    x = xp.asarray(np.ones(8))
    y = x * 2.0
    z = -(y + 1.0)
    assert not gc.is_tracked(y._node) and not gc.is_tracked(z._node)
    assert not gc.is_tracked(y._node.srcs) and not gc.is_tracked(y._node.srcs[1])
    ref = weakref.ref(y._node)
    del y
    assert ref() is not None  # z reads it
    del z
    assert ref() is None

    class Holder:
        pass
    h = Holder()
    h.arr, h.me = x * 3.0, h
    ref = weakref.ref(h.arr._node)
    del h
    gc.collect()
    assert ref() is None
    np.testing.assert_array_equal(np.asarray(-(x * 2.0 + 1.0)), np.full(8, -3.0))


KEYS = [0, -1, 3, -4, 9, -10, 10, -11, 2 ** 63, -(2 ** 63), True, np.int64(2), slice(None),
        slice(1, -1), slice(2, None), slice(None, -2), slice(-100, 100), slice(5, 2),
        slice(2, 3), slice(3, 3), slice(1, None, 1), slice(1, None, 2), slice(None, None, -1),
        slice(True, 3), slice(1.0, 3), slice(2 ** 63, None), slice(-(2 ** 63), None),
        (slice(1, -1), slice(2, None)), (1, 2), (slice(None), 1), (slice(None), slice(None)),
        (slice(1, 3), -1), (0, slice(None), 1), (Ellipsis, 1), (None, 1), (slice(1, 2),),
        (), [0, 1], "a"]


def test_basic_indexing_records_as_python_does():
    vec = xp.asarray(np.arange(10.0))
    mat = xp.asarray(np.arange(24.0).reshape(4, 6))
    cube = xp.asarray(np.arange(24).reshape(2, 3, 4))
    empty = xp.asarray(np.zeros((0, 3)))
    deep = xp.asarray(np.zeros((1,) * 9))
    sym = xp.placeholder(("n", 3), xp.float64)
    held = mat * 2.0
    for base in (vec, mat, cube, empty, deep, sym, held, xp.asarray(np.float64(1.0)),
                 xp.asarray(np.arange(10) > 3)):
        for key in KEYS:
            got = _outcome(base.__getitem__, key)
            want = _outcome(_recording._PYTHON["__getitem__"], base, key)
            assert got[0] == want[0], (base, key, got, want)
            if got[0] != "array":
                assert got == want
                continue
            a, b = got[1], want[1]
            _same_node(a._node, b._node)
            link_a = getattr(a, "_view_of", None)
            link_b = getattr(b, "_view_of", None)
            assert (link_a is None) == (link_b is None)
            if link_a is not None:
                assert link_a[0] is link_b[0] and link_a[1] == link_b[1]


def test_native_views_write_through_and_their_list_is_pruned():
    """A native view links to its base as _views.track does: writes go both ways, and a
    base's list of views drops the dead ones at each power of two from 16."""
    a = xp.asarray(np.arange(12.0).reshape(3, 4))
    v = a[1:, 1:3]
    assert type(xp.Array.__getitem__).__name__ == "method_descriptor"
    v[0, 0] = -1.0
    assert float(a[1, 1]) == -1.0
    a[2, 2] = -2.0
    assert float(v[1, 1]) == -2.0
    for i in range(100):
        a[1:]  # dead at once
    assert len(a._views) < 40
    alive = [a[i % 3] for i in range(40)]
    assert sum(r() is not None for r in a._views) >= 40
    assert np.asarray(alive[4]).tolist() == np.asarray(a)[1].tolist()
    # the pruning is native (no Python function at a power of two), keeps the live views
    # in order, and a view that outlived it still writes through
    b = xp.asarray(np.arange(20.0))
    kept = [b[i:i + 2] for i in range(5)]
    for i in range(200):
        assert not {"track", "_link"} & _python_calls(lambda: b[3:])
    assert [r() for r in b._views if r() is not None] == kept
    assert len(b._views) < 32
    kept[3][1] = -5.0
    assert float(b[4]) == -5.0


def test_native_recording_next_to_threads_that_write_and_evaluate():
    """The nodes and signatures the native code reads stay alive while it runs, although
    another thread rebinds the array (a write) or evaluates its node meanwhile: a writer
    and two readers on one array for two seconds, no error and no crash."""
    import threading
    import time
    x = xp.asarray(np.arange(64.0))
    stop = time.monotonic() + 2.0
    errors = []

    def writer():
        i = 0
        while time.monotonic() < stop:
            x[i % 64] = float(i)
            float(xp.sum(x * 1.5))
            i += 1

    def reader():
        while time.monotonic() < stop:
            try:
                z = (x * 2.0 + 1.0)[1:-1] - x[2:]
                float(xp.sum(xp.sin(-z) * z))
            except Exception as e:  # noqa: BLE001 - reported below
                errors.append(repr(e))
    threads = [threading.Thread(target=f) for f in (writer, reader, reader)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_new_ids_are_made_as_ir_new_id_makes_them():
    from lazyarray import _elementwise
    table = _recording._PYTHON["multiply"]._recording_binary[2]
    x = xp.asarray(np.linspace(0, 1, 37))
    y = x * 0.5
    assert y._node.sig[0] in table.values()
    made = int(ir.TABLE_IDS[0])
    w = (x - 0.125) / x  # two new table ids, counted towards the limit
    assert int(ir.TABLE_IDS[0]) == made + 2 and w._node.sig[0] > y._node.sig[0]
    # at the limit, the Python function clears the tables first (ids are never reused)
    ir.TABLE_IDS[0] = ir._MAX_IDS - len(ir._IDS)
    z = (x * 0.25) * x
    assert len(ir._IDS) < 10 and int(ir.TABLE_IDS[0]) <= 2 and z._node.sig[0] > w._node.sig[0]
    assert z._node.sig[0] in _recording._PYTHON["multiply"]._recording_binary[2].values()
    np.testing.assert_allclose(np.asarray(z), np.linspace(0, 1, 37) ** 2 * 0.25)


def test_record_is_native_and_makes_what_python_makes():
    """``_array_object.record`` and ``signature`` (backend/record.ll) give the node, signature and errors
    the Python function gives: 0, 1 and 2 sources, shared and merged leaves, an
    unhashable parameter, sizes that the Python function must check, and calls it
    leaves to Python (keywords, three sources, something other than a Node, a
    placeholder)."""
    from lazyarray import _indexing, _linear_algebra, _manipulation, _statistical
    from lazyarray.backend.ir import Op, sym
    from lazyarray._live import RECENT
    python = _recording._PYTHON["record"]
    native = _manipulation.record
    assert type(native).__name__ == "builtin_function_or_method" and native is not python
    for module in (_indexing, _linear_algebra, _statistical):
        assert module.record is native
    m = xp.asarray(np.ones((3, 4)))
    v = xp.asarray(np.arange(4.0))
    s = m * 2.5  # a scalar among its leaves
    f = xp.float64
    cases = [
        (Op.PERMUTE_DIMS, f, (4, 3), (m._node,), (1, 0)),
        (Op.EXPAND_DIMS, f, (4, 1), (v._node,), (1,)),
        (Op.MATMUL, f, (3, 1), (m._node, v._node)),         # two leaves merged
        (Op.MATMUL, f, (3, 3), (m._node, m._node)),         # one leaf shared
        (Op.MATMUL, f, (3, 3), (s._node, m._node)),         # found among the leaves
        (Op.MATMUL, f, (3, 3), (v._node, s._node)),         # merged in Python
        (Op.RESHAPE, f, (12,), (m._node,), [3, 4]),          # unhashable: no signature
        (Op.RESHAPE, f, (0, 4), (m._node,), (0, 4)),         # empty: Python checks
        (Op.RESHAPE, f, (2**62, 4), (m._node,), None),       # too large: ValueError
        (Op.RESHAPE, f, (sym("n"), 4), (m._node,), None),     # symbolic sizes skipped
        (Op.RESHAPE, f, (-1, 4), (m._node,), None),
        (Op.RESHAPE, f, (5,), (), 2.0),                      # no source
        (Op.WHERE, f, (4,), (v._node, v._node, v._node)),   # three sources, one leaf
        (Op.WHERE, f, (3, 4), ((v > 1.0)._node, s._node, (v * 0.5)._node)),  # merged
        (Op.CONCAT, f, (20,), tuple((v + float(i))._node for i in range(5)) + (v._node,), 0),
        (Op.CONCAT, f, (4 * 40,), tuple((v + float(i))._node for i in range(40)), 0),  # past
        (Op.WHERE, f, (4,), (v._node, xp.placeholder((4,), f)._node, v._node)),  # no sig
        (Op.RESHAPE, f, (4,), (v,)),                         # not a Node: Python's error
        (Op.RESHAPE, f, [4], (v._node,)),                    # not a tuple: Python
        (Op.PLACEHOLDER, f, (4,), (), "x"),
    ]
    for args in cases:
        _compare_calls(native, python, *args)
    for args, kwargs in (((Op.RESHAPE, f, (12,)), {"srcs": (m._node,)}), ((), {}),
                         ((Op.RESHAPE,), {}), ((1, 2, 3, 4, 5, 6), {})):
        got = _outcome(lambda: native(*args, **kwargs))
        want = _outcome(lambda: python(*args, **kwargs))
        assert got[0] == want[0] and (got[0] == "array" or got == want), (args, got, want)
    from lazyarray import _program
    native_sig = _program.signature
    assert type(native_sig).__name__ == "builtin_function_or_method"
    for args in cases[:7] + [(None, None, (), (m._node, s._node), None),
                             (None, None, (), (v._node, m._node, s._node), None)]:
        args = args + (None,) * (5 - len(args))
        assert _same_sig(native_sig(*args), ir.signature(*args)), args
    before = len(RECENT)
    out = native(Op.PERMUTE_DIMS, f, (4, 3), (m._node,), (1, 0))
    assert len(RECENT) == before + 1 and RECENT[-1]() is out
    np.testing.assert_array_equal(np.asarray(out), np.ones((4, 3)))


def test_broadcasting_operands_record_as_python_does():
    """Binary ops on arrays of different shapes broadcast natively (the nodes
    _elementwise._broadcast_pair makes): one side or both, a missing leading axis, and
    the cases left to Python (shapes that do not broadcast, an empty result, symbolic
    sizes)."""
    rng = np.random.default_rng(5)

    def arr(*shape):
        return xp.asarray(rng.uniform(-1, 1, shape))
    col, row, mat, vec = arr(3, 1), arr(1, 4), arr(3, 4), arr(4)
    pairs = [(col, row), (row, col), (mat, vec), (vec, mat), (mat, col), (arr(2, 3, 4), vec),
             (arr(2, 1, 4), arr(3, 1)), (vec * 2.0, mat), (mat, mat[:1]), (arr(3), arr(4)),
             (arr(0, 4), vec), (arr(1, 0), arr(3, 1)), (xp.placeholder((3, 4), xp.float64), vec),
             (vec, xp.asarray(rng.uniform(size=(3, 4)).astype(np.float32)))]
    for a, b in pairs:
        for name in ("__add__", "__rsub__", "__mul__", "__lt__"):
            _compare(name, a, b)
        _compare_calls(xp.maximum, _recording._PYTHON["maximum"], a, b)
    got = np.asarray((col - row) * vec)
    np.testing.assert_array_equal(got, (np.asarray(col) - np.asarray(row)) * np.asarray(vec))


def test_operands_with_several_leaves_each_merge_as_python_does():
    """Two operands whose leaves interleave (neither a prefix of the other) merge
    natively into the leaves and positions ir.merge_leaves gives, up to MAX_LEAVES and
    past it (no signature)."""
    vals = [xp.asarray(np.full(3, float(i))) for i in range(2 * ir.MAX_LEAVES)]

    def chain(idx):
        out = vals[idx[0]]
        for i in idx[1:]:
            out = out + vals[i]
        return out
    x, y = chain([1, 2, 3]), chain([3, 5, 1, 4])
    wide = chain(list(range(6, 26)))
    for a, b in ((x, y), (y, x), (x, x * 2.0), (wide, y), (y, wide), (wide, chain(list(range(16, 36)))),
                 (wide, chain(list(range(30, 50)))), (chain([7, 6]), wide)):
        _compare("__add__", a, b)
        _compare("__mul__", b, a)
    assert (wide + chain(list(range(30, 50))))._node.sig is None
    got = (x + y)._node.sig[1]
    assert [v for v in got] == [vals[i]._node.value for i in (1, 2, 3, 5, 4)]


def test_native_functions_are_made_whatever_prototype_others_set_on_ctypes():
    """The unit's functions are made through prototypes of their own (abi.c_api): a
    prototype another caller sets on the shared ``ctypes.pythonapi.PyCFunction_NewEx``
    (as the front doors once did: the module then passed as a pointer to a temporary,
    freed memory the collector read) changes nothing."""
    import ctypes
    from lazyarray.backend import recorder
    shared = ctypes.pythonapi.PyCFunction_NewEx
    before = shared.restype, shared.argtypes
    shared.restype, shared.argtypes = ctypes.c_void_p, [ctypes.c_void_p] * 3
    try:
        rec = _recording._state["recorder"]
        ctx = recorder.context([0] * recorder.C_WORDS)
        name = "lazyarray.probe_" + "module"  # (a new string: freed if not held)
        fn = rec.function("probe", "probe()\n--\n\n", name, (ctx,))
        del name
        gc.collect()
        assert fn.__module__ == "lazyarray.probe_module" and fn.__name__ == "probe"
    finally:
        shared.restype, shared.argtypes = before


def _python_calls(fn) -> set:
    """The names of the Python functions ``fn()`` calls (native ones are not seen)."""
    return {code.co_name for code in _python_frames(fn)}


@pytest.mark.usefixtures("whole_programs")
def test_materialize_runs_known_structures_natively():
    """``_program.materialize`` (backend/known.ll) runs a known structure's program
    without Python: alone (the epoch stays when only its Array holds the node), with a
    sibling through their joint program (a loop's loss and state), and leaves the rest
    to the Python function (several arrays, a tuple, keywords, a new structure), with the
    results and counters the Python function gives."""
    from lazyarray import _array_object, _program
    from lazyarray._live import RECENT
    native = _program.materialize
    assert type(native).__name__ == "builtin_function_or_method"
    assert _array_object._materialize_fn in (None, native)
    v = xp.asarray(np.linspace(0.5, 1.5, 30))
    want = float(np.sum(np.linspace(0.5, 1.5, 30) * 2.0 + 1.0))
    for _ in range(3):
        float(xp.sum(v * 2.0 + 1.0))
    s = xp.sum(v * 2.0 + 1.0)
    epoch = ir.EPOCH
    calls = _python_calls(lambda: float(s))
    assert "materialize" not in calls and "_run_known" not in calls, calls
    assert float(s) == pytest.approx(want) and ir.EPOCH == epoch
    s = xp.sum(v * 2.0 + 1.0)
    t = s * 3.0  # another graph holds s: its value makes t's signature stale
    float(s)
    assert ir.EPOCH > epoch and float(t) == pytest.approx(3.0 * want)
    # a loop's loss with its state, held and unevaluated: their joint program
    X = xp.asarray(np.linspace(-1.0, 1.0, 40).reshape(8, 5))
    y = xp.asarray(np.linspace(0.0, 2.0, 8))
    Xn, yn = np.asarray(X), np.asarray(y)

    def step(w):
        r = X @ w - y
        return w - 0.01 * (X.T @ r), xp.sum(r * r)
    def descend(w, wn, iterations: int, native_from: int, python: set):
        """The loop beside numpy's; from iteration ``native_from`` on, reading the loss
        calls none of the Python functions ``python`` and computes the state too."""
        for k in range(iterations):
            w, loss = step(w)
            rn = Xn @ wn - yn
            ln, wn = float(np.sum(rn * rn)), wn - 0.01 * (Xn.T @ rn)
            calls = _python_calls(lambda: float(loss))
            if k >= native_from:
                assert not python & calls and w._node.value is not None, (k, calls)
            assert float(loss) == pytest.approx(ln, rel=1e-12)
        np.testing.assert_allclose(np.asarray(w), wn, rtol=1e-12)
        return w, wn
    w, wn = descend(xp.zeros(5), np.zeros(5), 8, 4, {"materialize"})
    # once the joint program's door is open, it is called natively (no leaf runner)
    from lazyarray.backend import native as units
    units.flush()
    descend(w, wn, 4, 2, {"run_with_scalars", "materialize"})
    # what the Python function does
    a, b = xp.sum(v * 2.0 + 1.0), xp.sum(v * 2.0 + 1.0)
    assert "materialize" in _python_calls(lambda: native([a, b]))
    assert "materialize" in _python_calls(lambda: native((xp.sum(v * 2.0 + 1.0),)))
    assert "materialize" in _python_calls(lambda: native([xp.sum(v * 2.0 + 1.0)], what="x"))
    assert "materialize" in _python_calls(lambda: native([xp.sum(v * 7.0 - v)]))
    with pytest.raises(TypeError):
        native()
    RECENT.clear()
    assert native([v])[0] is v._node.value  # a data leaf: Python's path, the same value


@pytest.mark.usefixtures("whole_programs")
def test_siblings_that_another_graph_holds_are_read_natively_as_states():
    """Column statistics returned together (the table reads the mean and the deviation):
    reading the table computes them too, and once they are known as states
    (``_live.STATES``) the native ``materialize`` tells them by their state key, so a
    read calls no Python function of the materialization."""
    from lazyarray import _live
    rng = np.random.default_rng(8)
    for k in range(8):
        a = rng.normal(5.0, 2.0, (30, 7))
        x = xp.asarray(a)
        mu = xp.mean(x, axis=0)
        sd = xp.std(x, axis=0)
        z = (x - mu) / sd
        calls = _python_calls(lambda: np.asarray(z))
        if k >= 4:
            assert _live.STATES and not {"materialize", "candidates"} & calls, (k, calls)
        assert mu._node.value is not None and sd._node.value is not None, k
        np.testing.assert_allclose(np.asarray(z), (a - a.mean(0)) / a.std(0), rtol=1e-12)
        np.testing.assert_allclose(np.asarray(sd), a.std(0), rtol=1e-12)


def test_numpy_asarray_reads_natively_as_the_python_method_does():
    """``Array.__array__`` without arguments (backend/known.ll's lz_array): a computed
    array's read-only view at once, a lazy one read through the native materialize; the
    same values, flags and errors as the Python method, which takes every call with
    arguments."""
    from lazyarray import _recording
    python = _recording._PYTHON["__array__"]
    assert type(xp.Array.__array__).__name__ == "method_descriptor"
    v = xp.asarray(np.linspace(0.0, 1.0, 50))
    for make in (lambda: v * 2.0 + 1.0, lambda: xp.sum(v), lambda: v, lambda: v[3:9]):
        a, b = make(), make()
        got, want = np.asarray(a), python(b)
        np.testing.assert_array_equal(got, want)
        assert got.dtype == want.dtype and got.shape == want.shape
        assert not got.flags.writeable and got.base is not None
        again = []
        assert not _python_calls(lambda: again.append(np.asarray(a))) - {"<lambda>"}, make
        assert not again[0].flags.writeable and a._node.value.flags.writeable == \
            b._node.value.flags.writeable
    a = v * 3.0
    np.asarray(a)
    assert np.asarray(a, dtype=np.float32).dtype == np.float32
    assert np.array(a, copy=True).flags.writeable
    with pytest.raises(ValueError, match="copy"):
        a.__array__(dtype=np.float32, copy=False)
    p = xp.placeholder((3,), xp.float64, name="p")
    with pytest.raises(xp.ConcretizationError, match="'p'"):
        np.asarray(p + 1.0)


def test_materialize_runs_a_new_structure_in_steps_natively():
    """A new structure read alone runs its steps from the native ``materialize``
    (``_steps.quick``'s native loop without Python: counted, the structure met, the epoch
    left as it was); a structure met before, and steps switched off, take the Python
    function."""
    from lazyarray import _program, _steps
    from lazyarray.backend import library
    if not library.bundle_loaded() or _steps.NATIVE is None:
        pytest.skip("steps need the building blocks")
    native = _program.materialize
    v = xp.asarray(np.linspace(0.5, 1.5, 300))
    vn = np.asarray(v)
    np.asarray(xp.exp(v * 0.25) * v + 2.0 - v)  # (the building blocks they read, loaded)
    news = (lambda m, a: m.exp(a * 0.5) * a - 1.0, lambda m, a: m.exp(a * 0.5) - a * 2.0,
            lambda m, a: (m.exp(a * 0.5) + 1.0) * a)  # one fused region each
    for new in news:
        s = new(xp, v)
        before, epoch = xp.compile_cache_info(), ir.EPOCH
        got = []
        calls = _python_calls(lambda: got.append(native([s])[0]))
        after = xp.compile_cache_info()
        assert "materialize" not in calls and "quick" not in calls, calls
        assert after.step_evaluations == before.step_evaluations + 1
        assert after.steps > before.steps and ir.EPOCH == epoch
        np.testing.assert_allclose(got[0], new(np, vn), rtol=1e-13, atol=1e-14)
    t = news[0](xp, v)  # met before: planned whole in Python
    assert "materialize" in _python_calls(lambda: native([t]))


def test_matrix_products_record_as_python_does():
    """``@`` and ``matmul`` (backend/record.ll): matrix @ matrix, matrix @ vector and
    vector @ matrix make the nodes the Python fast path makes (the vector's axis of size 1,
    the product, the squeeze); other ranks, dtypes, sizes and operands go to Python."""
    assert type(xp.matmul).__name__ == "builtin_function_or_method"
    rng = np.random.default_rng(4)
    m = xp.asarray(rng.uniform(-1, 1, (3, 4)))
    arrays = [m, m.T, m * 2.0, xp.asarray(rng.uniform(-1, 1, 4)), xp.asarray(rng.uniform(size=3)),
              xp.asarray(rng.integers(-3, 3, (4, 2))), xp.asarray(rng.uniform(size=(2, 3, 4))),
              xp.asarray(np.ones((4, 0))), xp.asarray(np.float64(2.0)), xp.asarray([True, False]),
              xp.placeholder(("n", 4), xp.float64), xp.placeholder((4,), xp.float64),
              xp.asarray(rng.uniform(size=(4, 3)).astype(np.float32))]
    for a in arrays:
        for b in arrays + [2.0, None, np.ones(4)]:
            _compare("__matmul__", a, b)
            if isinstance(b, xp.Array):
                _compare_calls(xp.matmul, _recording._PYTHON["matmul"], a, b)
    v = xp.asarray(np.arange(4.0))
    np.testing.assert_allclose(np.asarray(m @ v), np.asarray(m) @ np.arange(4.0))
    np.testing.assert_allclose(np.asarray(v @ m.T), np.arange(4.0) @ np.asarray(m).T)
    np.testing.assert_allclose(np.asarray(m @ m.T), np.asarray(m) @ np.asarray(m).T)


def test_transpose_records_and_links_as_python_does():
    """``x.T`` (a native getter, backend/record.ll) makes the Python property's node and
    its link to the base: writes through the view reach the base, views past a power of
    two are pruned by the Python function, other ranks raise as before."""
    python = _recording._PYTHON["T"].fget
    assert type(xp.Array.__dict__["T"].fget).__name__ == "builtin_function_or_method"
    m = xp.asarray(np.arange(6.0).reshape(2, 3))
    for a in (m, m * 2.0, xp.placeholder(("n", 3), xp.float64), xp.asarray(np.ones((0, 2))),
              xp.asarray(np.ones(3)), xp.asarray(np.ones((2, 2, 2))), xp.asarray(1.0)):
        got, want = _outcome(lambda: a.T), _outcome(lambda: python(a))
        assert got[0] == want[0] and (got[0] == "array" or got == want), (a, got, want)
        if got[0] == "array":
            _same_node(got[1]._node, want[1]._node)
            assert got[1]._view_of == (a, ("permute", (1, 0)))
    base = xp.asarray(np.arange(6.0).reshape(2, 3))
    views = [base.T for _ in range(40)]  # past 16 and 32: pruned by _views._link
    del views[:-1]
    t = views[-1]
    assert len(base._views) <= 40
    t[2, 1] = -1.0
    np.testing.assert_array_equal(np.asarray(base), [[0, 1, 2], [3, 4, -1]])


def _python_frames(fn, *args, **kwargs) -> set:
    """The code objects of the Python functions a call enters (a profile hook sees them)."""
    names = set()

    def hook(frame, event, arg):
        if event == "call":
            names.add(frame.f_code)
    sys.setprofile(hook)
    try:
        fn(*args, **kwargs)
    finally:
        sys.setprofile(None)
    return names


def _manipulation_calls():
    """(name, args, kwargs, whether the native code takes it) for the functions of
    backend/manipulation.ll: their fast paths, and cases the Python function decides."""
    rng = np.random.default_rng(5)
    m = xp.asarray(rng.uniform(-1, 1, (3, 4)))
    v = xp.asarray(rng.uniform(-1, 1, 4))
    i = xp.asarray(rng.integers(-3, 3, (3, 4)))
    c = xp.asarray(rng.uniform(size=(3, 4)) + 1j)
    p = xp.placeholder(("n", 4), xp.float64)
    e = xp.asarray(np.ones((0, 4)))
    cond = m > 0.0
    calls = [("reshape", (m, (-1,)), {}, True), ("reshape", (m, (2, -1, 2)), {}, True),
             ("reshape", (m * 2.0, (4, 3)), {}, True), ("reshape", (m, (3, 4)), {}, False),
             ("reshape", (m, (5, -1)), {}, False), ("reshape", (m, (-1, -1)), {}, False),
             ("reshape", (m, [12]), {}, False), ("reshape", (m, (12,)), {"copy": None}, False),
             ("reshape", (p, (-1,)), {}, False), ("reshape", (e, (-1,)), {}, False),
             ("reshape", (m, (0, -1)), {}, False), ("reshape", (m, (-2, -6)), {}, False),
             ("reshape", (m, (2 ** 70, 1)), {}, False), ("reshape", (m, (True, 12)), {}, False),
             ("reshape", (np.ones(3), (3,)), {}, False),
             ("broadcast_to", (v, (3, 4)), {}, True), ("broadcast_to", (v, (2, 3, 4)), {}, True),
             ("broadcast_to", (m[:1], (5, 4)), {}, True), ("broadcast_to", (v, (4,)), {}, False),
             ("broadcast_to", (m, (4, 4)), {}, False), ("broadcast_to", (v, (-1, 4)), {}, False),
             ("broadcast_to", (v, (0, 4)), {}, False), ("broadcast_to", (p, (2, 3, 4)), {}, False),
             ("broadcast_to", (v, [3, 4]), {}, False),
             ("permute_dims", (m, (1, 0)), {}, True), ("permute_dims", (m, (0, 1)), {}, False),
             ("permute_dims", (m, (-1, 0)), {}, False), ("permute_dims", (m, (0, 0)), {}, False),
             ("permute_dims", (m, (1,)), {}, False), ("permute_dims", (m, [1, 0]), {}, False),
             ("permute_dims", (p, (1, 0)), {}, True), ("permute_dims", (m, (1, 2)), {}, False),
             ("expand_dims", (m,), {}, True), ("expand_dims", (m,), {"axis": -1}, True),
             ("expand_dims", (m, 1), {}, True), ("expand_dims", (m,), {"axis": 3}, False),
             ("expand_dims", (m,), {"axis": (0, 1)}, False), ("expand_dims", (v,), {"axis": -2}, True),
             ("expand_dims", (m,), {"axis": 1.0}, False),
             ("astype", (m, xp.float32), {}, True), ("astype", (m, xp.int8), {}, True),
             ("astype", (m, xp.float64), {}, False), ("astype", (c, xp.float64), {}, False),
             ("astype", (m, xp.complex64), {}, True), ("astype", (m, np.float32), {}, False),
             ("astype", (m, xp.float32), {"copy": False}, False),
             ("sum", (m,), {"axis": 1}, True), ("sum", (m,), {"axis": -2, "keepdims": True}, True),
             ("sum", (m,), {}, True), ("sum", (m,), {"keepdims": True}, False),
             ("sum", (i,), {"axis": 1}, False), ("sum", (m,), {"axis": 2}, False),
             ("sum", (m,), {"axis": (0, 1)}, False), ("sum", (m,), {"dtype": xp.float64}, False),
             ("sum", (m,), {"axis": 0, "keepdims": 1}, False), ("sum", (m,), {"axis": None}, True),
             ("mean", (m,), {"axis": 0}, True), ("mean", (i,), {"axis": 0}, False),
             ("max", (i,), {"axis": 1}, True), ("min", (m,), {}, True), ("max", (c,), {}, False),
             ("min", (xp.asarray(1.0),), {}, False), ("max", (m, 1), {}, False),
             ("where", (cond, m, m * 2.0), {}, True), ("where", (cond, m, v), {}, False),
             ("where", (cond, m, 2.0), {}, False), ("where", (m, m, m), {}, False),
             ("where", (cond, m, i), {}, False), ("where", (cond, i, i), {}, True),
             ("where", (cond, m), {}, False),
             ("concat", ([m, m * 2.0],), {}, True), ("concat", ((m, m, m * 3.0),), {"axis": 1}, True),
             ("concat", ([m, m[:1]],), {"axis": 0}, True), ("concat", ([m, m[:1]],), {"axis": -1}, False),
             ("concat", ([v, v],), {"axis": -1}, True), ("concat", ([m],), {}, False),
             ("concat", ([m, i],), {}, False), ("concat", ([m, v],), {}, False),
             ("concat", ([m, m],), {"axis": None}, False), ("concat", ([m, m],), {"axis": 2}, False),
             ("concat", ([p, p],), {"axis": 1}, True), ("concat", ([p, p],), {}, False),
             ("concat", ([m, np.ones((3, 4))],), {}, False), ("concat", (iter([m, m]),), {}, False),
             ("concat", ([e, e],), {}, False), ("concat", ([m, m], 0), {}, False),
             ("zeros", ((3, 4),), {}, True), ("zeros", (5,), {"dtype": xp.int8}, True),
             ("zeros", ((),), {"dtype": None}, True), ("zeros", ((0, 3),), {}, True),
             ("zeros", ((3, -1),), {}, False), ("zeros", (2 ** 40,), {}, False),
             ("zeros", ((2,),), {"device": "cpu"}, False), ("zeros", ((2,),), {"dtype": np.float64}, False),
             ("zeros", ([2, 3],), {}, False), ("zeros", (True,), {}, False),
             ("ones", ((2, 3),), {"dtype": xp.complex64}, True), ("ones", (4,), {"dtype": xp.bool}, True),
             ("ones", ((2,),), {"device": None}, True), ("ones", ((2,), xp.float64), {}, False)]
    return calls


def test_shape_ops_reductions_and_where_record_as_python_does():
    """reshape, broadcast_to, permute_dims, expand_dims, astype, sum/mean/max/min and
    where (backend/manipulation.ll) make the Python function's nodes, signatures, links
    and errors; their fast paths (and x.shape of concrete sizes) enter no Python
    function."""
    for name in MANIPULATION:
        fn = getattr(xp, name)
        assert type(fn).__name__ == "builtin_function_or_method" and fn.__name__ == name
        assert inspect_params(fn) == inspect_params(_recording._PYTHON[name])
        assert pickle.loads(pickle.dumps(fn)) is fn
    seen = set()
    for name, args, kwargs, native in _manipulation_calls():
        seen.add(name)
        fn, python = getattr(xp, name), _recording._PYTHON[name]
        got, want = _outcome(lambda: fn(*args, **kwargs)), _outcome(lambda: python(*args, **kwargs))
        assert got[0] == want[0], (name, args, kwargs, got, want)
        if got[0] != "array":
            assert got == want
            continue
        if name in ("zeros", "ones"):  # a new data leaf each time
            a, b = got[1]._node, want[1]._node
            assert (a.op, a.dtype, a.shape, a.arg, a.srcs) == (b.op, b.dtype, b.shape, b.arg, b.srcs)
            assert (a.sig[0], a.sig[2], a.sig[1][0] is a.value) == (b.sig[0], b.sig[2], True)
            assert a.value.dtype == b.value.dtype and np.array_equal(a.value, b.value)
        else:
            _same_node(got[1]._node, want[1]._node)
        if name == "permute_dims":
            assert got[1]._view_of == want[1]._view_of
        entered = _python_frames(fn, *args, **kwargs)
        assert (python.__code__ not in entered) == native, (name, args, kwargs, entered)
    assert seen == set(MANIPULATION)
    shape = (3, 4)  # zeros remembers the last shape's leaf id, until the ids are cleared
    assert xp.zeros(shape)._node.sig[0] == xp.zeros(shape)._node.sig[0] == \
        ir.leaf_id(ir.Op.DATA, xp.float64, shape)
    ir.clear_ids()
    assert xp.zeros(shape)._node.sig[0] == ir.leaf_id(ir.Op.DATA, xp.float64, shape)
    getter = _recording._PYTHON["shape"].fget
    for a in (xp.asarray(np.ones((2, 3))), xp.asarray(1.0), xp.placeholder(("n", 3), xp.float64),
              xp.asarray(np.ones((0, 5))), xp.placeholder(("n", "m"), xp.float32)):
        assert a.shape == getter(a) and type(a.shape) is tuple
        assert (getter.__code__ not in _python_frames(lambda: a.shape)) == (None not in a.shape)
    base = xp.asarray(np.arange(6.0).reshape(2, 3))
    t = xp.permute_dims(base, (1, 0))
    t[2, 1] = -1.0
    np.testing.assert_array_equal(np.asarray(base), [[0, 1, 2], [3, 4, -1]])


def inspect_params(fn) -> list:
    import inspect
    return [(p.name, p.kind, p.default) for p in inspect.signature(fn).parameters.values()]


def test_jit_and_prepared_calls_run_their_door_natively():
    """``JitFunction.__call__`` and ``Prepared.__call__`` (backend/jit.ll): a call with the
    last call's kinds runs the front door and makes the results without entering the
    Python methods; anything else (other shapes, dtypes, layouts, keywords, an Array
    without a value) takes them, with the same results and errors."""
    from lazyarray._jit import JitFunction
    from lazyarray._program import Prepared
    from lazyarray.backend import native
    jit_py, prep_py = _recording._PYTHON["JitFunction.__call__"], _recording._PYTHON["Prepared.__call__"]
    assert type(vars(JitFunction)["__call__"]).__name__ == "method_descriptor"
    assert type(vars(Prepared)["__call__"]).__name__ == "method_descriptor"
    python_codes = {jit_py.__code__, prep_py.__code__}
    x = np.linspace(-1, 1, 30).reshape(6, 5)
    jf = xp.jit(lambda a, b: (xp.sum(a * b, axis=1), a - 1.0))
    for _ in range(3):
        jf(x, x)
    native.flush()  # (the door's trampoline)
    jf(x, x)
    assert jf._last[1]._door is not None
    s, d = jf(x, x)
    np.testing.assert_allclose(np.asarray(s), np.sum(x * x, axis=1), rtol=1e-13)
    np.testing.assert_array_equal(np.asarray(d), x - 1.0)
    assert s._node.sig[0] == jit_py(jf, x, x)[0]._node.sig[0]
    assert not python_codes & _python_frames(jf, x, x)
    assert not python_codes & _python_frames(jf, d, x)  # an Array holding a value
    assert not python_codes & _python_frames(jf.__call__, x, x)  # a bound method
    jf._retraces = 5
    jf(x, x)
    assert jf._retraces == 0
    for args in ((x[:3], x[:3]), (x.T.copy(), x.T.copy()), (np.asfortranarray(x), x),
                 (x.astype(np.float32), x), (d * 2.0, x), (x,), (x, x, x)):
        got, want = _outcome(lambda: jf(*args)), _outcome(lambda: jit_py(jf, *args))
        assert got[0] == want[0], (args, got, want)
        if got[0] == "array":
            for g, w in zip(got[1], want[1]):
                np.testing.assert_array_equal(np.asarray(g), np.asarray(w))
        else:
            assert got == want
    entered = _python_frames(jf, x[:3], x[:3])
    assert jit_py.__code__ in entered
    with pytest.raises(TypeError):
        jf(x, b=x)
    ph = xp.placeholder((6, 5), xp.float64)
    p = xp.compile(xp.exp(ph) + 1.0, inputs=[ph]).prepare(x)
    for _ in range(3):
        p(x)
    native.flush()
    p(x)
    assert p._door is not None
    assert not python_codes & _python_frames(p, x)
    np.testing.assert_allclose(np.asarray(p(x)), np.exp(x) + 1.0, rtol=1e-15)
    np.testing.assert_allclose(np.asarray(p(xp.asarray(x))), np.exp(x) + 1.0, rtol=1e-15)
    for bad in ((x[:2],), (x.astype(np.int64),), ("x",), ()):
        got, want = _outcome(lambda: p(*bad)), _outcome(lambda: prep_py(p, *bad))
        assert got[0] == want[0] and (got[0] == "array" or got == want), (bad, got, want)


def test_float_and_bool_read_natively_as_python_does():
    """``Array.__float__`` and ``__bool__`` (backend/known.ll): a 0-d value converted at
    once, a lazy 0-d array read through the native materialize without Python frames;
    other shapes, complex floats and placeholders raise as the Python methods raise."""
    from lazyarray import _array_object
    float_py, bool_py = _recording._PYTHON["__float__"], _recording._PYTHON["__bool__"]
    assert type(vars(xp.Array)["__float__"]).__name__ == "method_descriptor"
    v = xp.asarray(np.linspace(-1.0, 2.0, 50))
    cases = [xp.sum(v), xp.sum(v) > 1.0, xp.asarray(2.5), xp.asarray(0.0), xp.asarray(True),
             xp.asarray(np.int8(-3)), xp.asarray(1j), xp.sum(v * 1j), v, v[:1],
             xp.placeholder((), xp.float64) * 2.0, xp.asarray(np.uint64(2 ** 63)),
             xp.asarray(float("nan")), xp.max(v) - xp.min(v)]
    for a in cases:
        for conv, py in ((float, float_py), (bool, bool_py)):
            want = _outcome(lambda: py(a))
            got = _outcome(lambda: conv(a))
            assert got[0] == want[0], (a, conv, got, want)
            if got[0] == "array":
                assert type(got[1]) is type(want[1])
                assert got[1] == want[1] or (got[1] != got[1] and want[1] != want[1])
            else:
                assert got[:2] == want[:2]
    codes = {float_py.__code__, bool_py.__code__, _array_object.Array._scalar.__code__}
    for _ in range(3):
        float(xp.sum(v * 2.0))
        bool(xp.sum(v * 2.0) > 0.0)
    s, b = xp.sum(v * 2.0), xp.sum(v * 2.0) > 0.0
    assert not codes & _python_frames(float, s) and not codes & _python_frames(bool, b)
    assert float(s) == pytest.approx(float(np.sum(np.linspace(-1.0, 2.0, 50) * 2.0)))


def test_an_array_without_a_node_raises_in_every_native_function():
    """``object.__new__(Array)`` has no node: every native function and method hands it
    to the Python one (an AttributeError), none reads through the missing node."""
    a = object.__new__(xp.Array)
    b = xp.asarray(np.ones((2, 2)))
    calls = [lambda: xp.reshape(a, (1,)), lambda: xp.broadcast_to(a, (2,)),
             lambda: xp.permute_dims(a, (0,)), lambda: xp.expand_dims(a, axis=0),
             lambda: xp.astype(a, xp.float32), lambda: xp.sum(a), lambda: xp.max(a, axis=0),
             lambda: xp.where(a, b, b), lambda: xp.where(b > 0, a, b), lambda: xp.concat([b, a]),
             lambda: xp.concat([a, b]), lambda: a.shape, lambda: a.T, lambda: a @ b,
             lambda: b @ a, lambda: float(a), lambda: bool(a), lambda: a + b, lambda: b + a,
             lambda: -a, lambda: a[0], lambda: xp.sin(a), lambda: xp.jit(lambda u: u + 1)(a)]
    for call in calls:
        with pytest.raises(AttributeError):
            call()


def test_cached_structure_ids_name_one_structure_each():
    """The elementwise fast paths remember structure ids by the identity of what names
    them (recorder.ll's lz_cached_id, 1,024 entries): thousands of structures, some met
    twice, some after the tables are cleared, each keep one id, and no two share one."""
    rng = np.random.default_rng(3)
    x = xp.asarray(rng.uniform(0.5, 1.5, 5))
    y = xp.asarray(rng.uniform(0.5, 1.5, 5))
    steps = (lambda v: v * 0.5, lambda v: v + x, lambda v: y - v, lambda v: -v,
             lambda v: v / v, lambda v: 2.0 ** v, lambda v: abs(v),
             lambda v: v * x, lambda v: v * y)  # (these two differ only by a leaf's position)

    def chain(i):
        v, path = x, []
        while i:
            i, d = divmod(i, len(steps))
            v = steps[d](v)
            path.append(d)
        return v, tuple(path)

    ids: dict = {}
    for rounds in range(3):
        if rounds == 2:
            ir.clear_ids()  # old ids stay valid (never reused): cached entries keep theirs
        for i in rng.permutation(3000)[:2000]:
            v, path = chain(int(i) + 1)
            sig = v._node.sig
            assert sig is not None
            if rounds < 2:
                assert ids.setdefault(path, sig[0]) == sig[0], path
            else:
                ids.setdefault(path, sig[0])
    assert len(set(ids.values())) == len(ids)  # one structure, one id; never shared
    v, path = chain(1234)
    np.testing.assert_allclose(np.asarray(v), np.asarray(chain(1234)[0]))


def test_cached_structure_parts_name_one_structure_each():
    """Parts of the generic record path (slices, reshapes, reductions) are remembered by
    their contents (steps.ll's lz_sid cache): parts equal in value but built anew find
    their id, parts that differ in a nested int do not, past the cache's size and across
    ir.clear_ids."""
    x = xp.asarray(np.arange(64.0))
    u = xp.asarray(np.arange(64.0).reshape(8, 8))
    ops = [lambda i: x[i % 7:64 - i // 7], lambda i: u[i % 5:, i // 5 % 8:],
           lambda i: xp.reshape(x[: 64 - i % 64 // 4 * 4], (-1, 4)),
           lambda i: xp.sum(u[i % 8:], axis=i % 2)]
    cases = [(k, i) for k in range(len(ops)) for i in range(40 if k == 1 else 60)]
    ids: dict = {}
    for rounds in range(3):
        if rounds == 2:
            ir.clear_ids()
            ids.clear()
        for k, i in cases:
            v = ops[k](i)
            sig = v._node.sig
            assert sig is not None
            assert ids.setdefault((k, i), sig[0]) == sig[0], (k, i)
    # distinct structures keep distinct ids
    by_id: dict = {}
    for (k, i), s in ids.items():
        v = ops[k](i)
        by_id.setdefault(s, set()).add((k, v.shape, repr(v._node.arg)))
    assert all(len(v) == 1 for v in by_id.values())
    np.testing.assert_array_equal(np.asarray(ops[0](9)), np.arange(64.0)[2:63])


def test_scalar_signatures_are_shared_until_the_ids_are_cleared():
    """A literal's signature is remembered by the float object: the same tuple for every
    node of it, what the Python recording gives, before and after the ids are cleared."""
    x = xp.asarray(np.ones(8))
    f, g = 0.75, 7

    def scalar(y):
        (leaf,) = [s for s in y._node.srcs if s.op is ir.Op.SCALAR]
        return leaf.sig

    first = scalar(x * f)
    assert scalar(x * f) is first and scalar(x + f) is first
    assert first == ir.Node(ir.Op.SCALAR, xp.float64, (), value=f).sig
    ir.clear_ids()
    second = scalar(x * f)
    assert second == ir.Node(ir.Op.SCALAR, xp.float64, (), value=f).sig
    i = xp.asarray(np.arange(8))
    assert scalar(i * g) == ir.Node(ir.Op.SCALAR, xp.int64, (), value=g).sig
