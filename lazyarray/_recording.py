"""Native recording: Array's elementwise operators and basic indexing, and the
package's elementwise functions, recorded by native code (backend/recorder.py)
once its unit is loaded.

The unit is read from the disk cache by the import's preload thread (on a new
machine it is compiled once in the background); until then, and wherever its
layouts do not hold, they are the Python functions of ``_array_object._make_op``,
``_elementwise`` and ``_indexing``.  Each installed method or function runs the
same fast path as the function it replaces (tagged ``_recording`` or
``_recording_binary`` there) and calls that function for every other case, so
results, signatures and errors are the same.  ``LAZYARRAY_NATIVE_RECORDING=0``
keeps the Python functions.
"""
from __future__ import annotations

import importlib
import inspect
import os
import sys
import threading
from typing import Optional

import numpy as np

from . import _array_object, _dtypes as dt, _elementwise, _fusion, _steps
from ._array_object import Array
from ._elementwise import _EXACT_INT, _FLOATING, _INT_BOUNDS
from ._live import RECENT
from ._views import track
from .backend import dispatch, ir, library, native, recorder, threads

_lock = threading.Lock()
_state: dict = {}  # "recorder": the loaded unit's Recorder, "installed": method names
_PYTHON: dict = {}  # name -> the Python method or function a native one replaced
_PACKAGE = __name__.rpartition(".")[0]
_I64 = (-(1 << 63), (1 << 63) - 1)
_EPOCH = "EPOCH"  # the name of ir's epoch counter, read by the unit from its module dict
_TAGS = ("s", "i", "index")  # a basic index's item tags and a view's link tag
_DOOR = "door"  # a runner's front door (its attribute)


def enabled() -> bool:
    return not threads.switched_off("LAZYARRAY_NATIVE_RECORDING")


def start() -> None:
    """Load the unit when the building blocks are (or compile it in the background)."""
    if not (enabled() and recorder.available()):
        return
    if library.preloading():
        library.AFTER_PRELOAD.append(_load)
    else:
        _later()


def _load() -> None:
    got = native.get(recorder.unit(), wait=False, disk=True, queue=False)
    if got is not None:
        install(got)
    else:
        _later()


def _later() -> None:
    """Read from disk or compiled on the background thread, at a quiet moment; not at
    all with ``LAZYARRAY_PREBUILD=0`` (the Python functions record)."""
    native.get(recorder.unit(), wait=False, disk=False, priority=native.LATER,
               on_ready=install, queue=library.prebuilding())


def installed() -> tuple:
    """The names of Array's methods and the package's functions that run native code
    now."""
    return tuple(_state.get("installed", ()))


def install(addresses) -> None:
    """Replace Array's tagged methods and the package's tagged functions by the unit's
    (once)."""
    with _lock:
        if "recorder" in _state:
            return
        rec = _state["recorder"] = recorder.Recorder(addresses)
        common = _common()
        if common is None:
            return
        done = []
        for name, fn in list(vars(Array).items()):
            info = getattr(fn, "_recording", None)
            if info is None or not callable(fn):
                continue
            op, results, ids, kind = info
            words, keep = _words(common, kind, op, results, ids, fn)
            params = {recorder.UNARY: "", recorder.GETITEM: ", key"}.get(kind, ", other")
            doc = f"{name}($self{params}, /)\n--\n\n{fn.__doc__ or ''}"
            method = rec.method(Array, name, doc, words, keep)
            if method is None:
                break
            _PYTHON[name] = fn
            setattr(Array, name, method)
            done.append(name)
        natives: dict = {}  # name -> (the Python function, the native one)
        done += _functions(rec, common, natives)
        _state["installed"] = done
        _record(rec, common, natives)
        done += _matmul(rec, common, natives)
        done += _transpose(rec, common)
        done += _manipulation(rec, common, natives)
        done += _jit_call(rec, common)
        _replace(natives)
        steps = _steps_words(common)
        if steps is not None:
            words, keep = steps
            ctx = recorder.context(words)
            _steps.NATIVE = rec.function("native_steps", _steps.native_fallback.__doc__,
                                         _steps.__name__, (ctx, keep))
            _fusion.CONTEXTS.append(ctx)
            done += _scalar_reads(rec, common, _materialize(rec, steps))


class _Holder(tuple):
    """A native function's ``__self__``: (its context, what the context names).  It
    pickles as the package, so the function pickles as ``lazyarray.<name>`` (the way a
    builtin function bound to an object pickles: ``getattr(its self, its name)``)."""

    __slots__ = ()

    def __reduce__(self):
        return (importlib.import_module, (_PACKAGE,))


def _functions(rec, common, natives: dict) -> list:
    """The package's elementwise functions with a fast path: native ones made for them
    (into ``natives``, which ``_replace`` binds in the package and in the front-end
    modules that use them: var's subtract)."""
    pkg = sys.modules.get(_PACKAGE)
    done = []
    for name, fn in list(vars(_elementwise).items()):
        if pkg is None or vars(pkg).get(name) is not fn or not callable(fn):
            continue
        unary = getattr(fn, "_recording", None)
        binary = getattr(fn, "_recording_binary", None)
        if unary is not None:
            (op, results, ids, kind), params = unary, "x"
        elif binary is not None:
            (op, results, ids), kind, params = binary, recorder.BINARY, "x1, x2"
        else:
            continue
        words, keep = _words(common, kind, op, results, ids, fn)
        doc = f"{name}($module, {params}, /)\n--\n\n{fn.__doc__ or ''}"
        native_fn = rec.function(name, doc, _PACKAGE, _Holder((recorder.context(words), keep)))
        _PYTHON[name] = fn
        natives[name] = (fn, native_fn)
        done.append(name)
    return done


def _replace(natives: dict) -> None:
    """Bind each name of ``natives`` (name -> (Python function, native function)) to its
    native function in the package and in every front-end module where it is the Python
    one, in one pass over the modules (a module imported later imports the native one).
    The backend's modules are passed over: they never import the front end."""
    backend = _PACKAGE + ".backend"
    for mod_name, module in list(sys.modules.items()):
        front = mod_name == _PACKAGE or mod_name.startswith(_PACKAGE + ".")
        if not front or mod_name == backend or mod_name.startswith(backend + "."):
            continue
        names = vars(module)
        for name, (python, native_fn) in natives.items():
            if names.get(name) is python:
                setattr(module, name, native_fn)


def _record(rec, common, natives: dict) -> None:
    """Native ``_array_object.record`` and ``signature`` (backend/record.ll),
    into ``natives`` (see ``_replace``): the ops the Python code records (views,
    reductions, matrix products...) make their node, signature and Array without Python,
    and several outputs find their joint program."""
    for fname, kind in (("record", recorder.RECORD), ("signature", recorder.SIGNATURE)):
        python = getattr(_array_object, fname)
        words, keep = _words(common, kind, None, None, None, python)
        doc = f"{fname}($module, op, dtype, shape, srcs=(), arg=None, /)\n--\n\n{python.__doc__}"
        native_fn = rec.function(fname, doc, _array_object.__name__,
                                 _Holder((recorder.context(words), keep)))
        _PYTHON[fname] = python
        natives[fname] = (python, native_fn)


def _matmul(rec, common, natives: dict) -> list:
    """Native ``matmul`` and ``Array.__matmul__`` (backend/record.ll): the Python fast
    path's matrix and matrix-vector products (into ``natives``, see ``_replace``)."""
    from . import _linear_algebra
    named = ((recorder.C_MATMUL_OP, ir.Op.MATMUL), (recorder.C_NUMERIC, _linear_algebra._NUMERIC))
    python = _linear_algebra.matmul
    words, keep = _words(common, recorder.MATMUL, None, None, None, python)
    _name(words, named)
    doc = f"{_text_signature('matmul', python)}\n--\n\n{python.__doc__}"
    natives["matmul"] = (python, rec.function("matmul", doc, _PACKAGE,
                                              _Holder((recorder.context(words), (keep, named)))))
    _PYTHON["matmul"] = python
    method = vars(Array)["__matmul__"]
    words, keep = _words(common, recorder.MATMUL, None, None, None, method)
    _name(words, named)
    doc = f"__matmul__($self, other, /)\n--\n\n{method.__doc__ or ''}"
    native_method = rec.method(Array, "__matmul__", doc, words, (keep, named))
    if native_method is None:
        return ["matmul"]
    _PYTHON["__matmul__"] = method
    setattr(Array, "__matmul__", native_method)
    return ["matmul", "__matmul__"]


def _transpose(rec, common) -> list:
    """``Array.T`` and ``Array.shape`` as properties whose getters are native
    (backend/record.ll, backend/manipulation.ll): a 2-d array's transposed view, linked to
    its base; the shape of concrete sizes."""
    from . import _views
    named = ((recorder.C_PERMUTE_OP, ir.Op.PERMUTE_DIMS), (recorder.C_T_AXES, _T_AXES),
             (recorder.C_PERMUTE, _PERMUTE), (recorder.C_TRACK, _views.track_permuted))
    for name, kind in (("T", recorder.TRANSPOSE), ("shape", recorder.SHAPE)):
        prop = vars(Array)[name]
        python = prop.fget
        words, keep = _words(common, kind, None, None, None, python)
        _name(words, named)
        doc = f"{name}($module, x, /)\n--\n\n{python.__doc__ or prop.__doc__ or ''}"
        getter = rec.function(name, doc, _array_object.__name__,
                              _Holder((recorder.context(words), (keep, named))))
        _PYTHON[name] = prop
        setattr(Array, name, property(getter, doc=prop.__doc__))
    return ["T", "shape"]


_T_AXES, _PERMUTE = (1, 0), "permute"  # (as _array_object's T and _views record them)


def _manipulation(rec, common, natives: dict) -> list:
    """Native shape ops, casts, reductions and ``where`` (backend/manipulation.ll), into
    ``natives`` (see ``_replace``): each records its fast path's node and Array, and
    calls the Python function for everything else."""
    from . import _creation, _manipulation as mp, _searching, _statistical as st, _views
    op = ir.Op
    table = np.array([id(t) for t in st._ALL_AXES], dtype=np.int64)
    named = ((recorder.C_TRUE, True), (recorder.C_FALSE, False), (recorder.C_BOOL, dt.bool),
             (recorder.C_COMPLEX, _COMPLEX), (recorder.C_PERMUTE, _PERMUTE),
             (recorder.C_TRACK, _views.track_permuted), (recorder.C_F64, dt.float64),
             (recorder.C_BUFFER_IDS, ir._BUFFER_IDS), (recorder.C_LEAF_ID, ir.leaf_id),
             (recorder.C_DATA_OP, op.DATA))
    done = []
    for python, kind, what, own in (
            (mp.reshape, recorder.RESHAPE, op.RESHAPE, None),
            (mp.broadcast_to, recorder.BROADCAST, op.BROADCAST_TO, None),
            (mp.permute_dims, recorder.PERMUTE, op.PERMUTE_DIMS, None),
            (mp.expand_dims, recorder.EXPAND, op.EXPAND_DIMS, None),
            (mp.astype, recorder.ASTYPE, op.ASTYPE, None),
            (mp.concat, recorder.CONCAT, op.CONCAT, None),
            (st.sum, recorder.REDUCE, op.SUM, st._OWN_FLOATING),
            (st.mean, recorder.REDUCE, op.MEAN, st._OWN_FLOATING),
            (st.max, recorder.REDUCE, op.MAX, st._OWN_REAL),
            (st.min, recorder.REDUCE, op.MIN, st._OWN_REAL),
            (_searching.where, recorder.WHERE, op.WHERE, None),
            (_creation.zeros, recorder.FILL, None, np.zeros),
            (_creation.ones, recorder.FILL, None, np.ones)):
        name = python.__name__
        words, keep = _words(common, kind, what, None, None, python)
        _name(words, named)
        words[recorder.C_ALL_AXES] = table.ctypes.data
        words[recorder.C_MAX_RANK_AXES] = len(st._ALL_AXES) - 1
        words[recorder.C_NUMERIC] = words[recorder.C_FILL_FN] = id(own)
        words[recorder.C_QUICK] = _creation._QUICK_ELEMENTS
        kw = _KEYWORDS[2:] if kind == recorder.FILL else _KEYWORDS[:2]
        words[recorder.C_KW0], words[recorder.C_KW1] = id(kw[0]), id(kw[1])
        doc = f"{_text_signature(name, python)}\n--\n\n{python.__doc__ or ''}"
        native_fn = rec.function(name, doc, _PACKAGE,
                                 _Holder((recorder.context(words), (keep, named, table, own))))
        _PYTHON[name] = python
        natives[name] = (python, native_fn)
        done.append(name)
    return done


def _jit_call(rec, common) -> list:
    """``JitFunction.__call__`` and ``Prepared.__call__`` as native methods
    (backend/jit.ll): a call with the last call's kinds (a prepared program's call on
    values) runs the front door and makes the results without Python."""
    from ._jit import JitFunction
    from ._program import Prepared
    named = tuple(zip((recorder.C_LAST_NAME, recorder.C_DOOR_ATTR, recorder.C_DOOR_OUT,
                       recorder.C_DOOR_OUTPUTS, recorder.C_PROGRAM_NAME, recorder.C_SINGLE_NAME,
                       recorder.C_RETRACES, recorder.C_SHAPE_NAME), _JIT_NAMES))
    named += ((recorder.C_PREPARED_T, Prepared), (recorder.C_ZERO, 0),
              (recorder.C_NDARRAY_T, np.ndarray), (recorder.C_DOOR_FALLBACK, dispatch.FALLBACK),
              (recorder.C_DATA_OP, ir.Op.DATA), (recorder.C_TRUE, True),
              (recorder.C_EXCEPTION, RuntimeError))
    done = []
    for cls, kind in ((JitFunction, recorder.JIT_CALL), (Prepared, recorder.PREPARED_CALL)):
        python = vars(cls)["__call__"]
        words, keep = _words(common, kind, None, None, None, python)
        _name(words, named)
        doc = f"__call__($self, /, *args)\n--\n\n{python.__doc__ or ''}"
        method = rec.fast_method(cls, "__call__", doc, words, (keep, named))
        if method is None:
            break
        _PYTHON[f"{cls.__name__}.__call__"] = python
        cls.__call__ = method
        done.append(f"{cls.__name__}.__call__")
    return done


_JIT_NAMES = ("_last", "_door", "_door_out", "_door_outputs", "program", "_single", "_retraces",
              "shape")


# the keywords the native functions take (interned): reductions', creation's
_KEYWORDS = ("axis", "keepdims", "dtype", "device")
_COMPLEX = frozenset(dt.COMPLEX_FLOATING)


def _text_signature(name: str, fn) -> str:
    """``fn``'s signature as a builtin function's ``__text_signature__`` under ``name``
    (annotations dropped: inspect reads it back)."""
    sig = inspect.signature(fn)
    params = [p.replace(annotation=inspect.Parameter.empty) for p in sig.parameters.values()]
    text = str(sig.replace(parameters=params, return_annotation=inspect.Signature.empty))
    return f"{name}($module, {text[1:]}"


def _materialize(rec, steps: tuple) -> None:
    """Native ``_program.materialize`` (backend/known.ll): one array whose structure's
    program is known runs it without Python (``float(loss)`` in a loop); the rest is the
    Python function's."""
    from . import _live, _program
    from .backend.cache import PROGRAMS
    python = _program.materialize
    words, keep = steps
    words = list(words)
    words[recorder.C_KIND] = recorder.MATERIALIZE
    named = ((recorder.C_FALLBACK, python), (recorder.C_PROGRAMS, PROGRAMS),
             (recorder.C_BY_SIG_NAME, _BY_SIGNATURE), (recorder.C_RECENT, _live.RECENT),
             (recorder.C_RECENT_CLEAR, _live.RECENT.clear), (recorder.C_STATES, _live.STATES),
             (recorder.C_EXCEPTION, Exception), (recorder.C_ENABLED, _steps.enabled),
             (recorder.C_MET, _steps._MET), (recorder.C_MARKED, _live._marked),
             (recorder.C_LOCAL, _steps._local), (recorder.C_DEPTH_NAME, _DEPTH),
             (recorder.C_SETTLED, _program._settled),
             (recorder.C_WHAT, python.__defaults__[0]), (recorder.C_STEPS_DICT, vars(_steps)),
             (recorder.C_NATIVE_NAME, _NATIVE), (recorder.C_NATIVE_FN, _steps.NATIVE))
    _name(words, named)
    doc = f"materialize($module, arrays, what='evaluate()', /)\n--\n\n{python.__doc__}"
    ctx = recorder.context(words)
    native_fn = rec.function("materialize", doc, _program.__name__, _Holder((ctx, (keep, named))))
    _fusion.CONTEXTS.append(ctx)  # (it runs steps too)
    _PYTHON["materialize"] = python
    _replace({"materialize": (python, native_fn)})
    if _array_object._materialize_fn is python:
        _array_object._materialize_fn = native_fn
    return native_fn


def _scalar_reads(rec, common, materialize) -> list:
    """``Array.__float__``, ``__bool__`` and ``__array__`` (without arguments: numpy.asarray)
    as native methods (backend/known.ll): a 0-d value converted at once, a computed array's
    read-only view at once, a lazy array read through the native ``materialize``; the
    Python methods for everything else."""
    done = []
    for name, kind, what, params in (("__float__", recorder.FLOAT, "float()", ""),
                                     ("__bool__", recorder.BOOL, "bool()", ""),
                                     ("__array__", recorder.ARRAY, "numpy.asarray()",
                                      ", dtype=None, copy=None")):
        python = vars(Array)[name]
        words, keep = _words(common, kind, None, None, None, python)
        named = ((recorder.C_MATERIALIZE_FN, materialize), (recorder.C_WHAT, what),
                 (recorder.C_COMPLEX, _COMPLEX), (recorder.C_NDARRAY_T, np.ndarray),
                 (recorder.C_VIEW_NAME, _VIEW))
        _name(words, named)
        doc = f"{name}($self, /{params})\n--\n\n{python.__doc__ or ''}"
        make = rec.fast_method if params else rec.method  # (arguments: METH_FASTCALL)
        method = make(Array, name, doc, words, (keep, named))
        if method is None:
            break
        _PYTHON[name] = python
        setattr(Array, name, method)
        done.append(name)
    return done


_VIEW = sys.intern("view")  # the ndarray method lz_array calls (names compare by address)


_BY_SIGNATURE, _DEPTH, _NATIVE = "by_signature", "depth", "NATIVE"
_BUNDLE_STATE, _LOGGING = "_bundle_state", "logging"
_ENV_STEPS, _ENV_TIER = (os.fsencode(n) for n in _steps._SWITCHES)  # os.environ's own keys


def load_now() -> bool:
    """Load (compiling if needed) and install the unit on this thread (for tests);
    whether Array's operators run native code."""
    if enabled() and recorder.available() and "recorder" not in _state:
        install(native.get(recorder.unit()))
    with _lock:  # (an install under way on the preload thread)
        return bool(installed())


def _common():
    """The context words every operator shares, and the objects they name; None when a
    slot's offset cannot be read."""
    offsets = [recorder.slot_offset(Array, s)
               for s in ("_node", "_view_of", "_views")]
    offsets += [recorder.slot_offset(ir.Node, s)
                for s in ("op", "dtype", "shape", "srcs", "arg", "value", "sig")]
    if None in offsets:
        return None
    where = tuple((i,) for i in range(ir.MAX_LEAVES + 1))
    where_words = np.array([id(t) for t in where], dtype=np.int64)
    dtypes = list(dt.ALL_DTYPES)
    scalar_ids = [ir.leaf_id(ir.Op.SCALAR, d, ()) for d in dtypes]
    table = []
    for d, sid in zip(dtypes, scalar_ids):
        flags, lo, hi = 0, 0, 0
        if d in _FLOATING:
            flags = recorder.FLOATING
        elif d in _INT_BOUNDS:
            flags = recorder.BOUNDED
            lo, hi = (max(_INT_BOUNDS[d][0], _I64[0]), min(_INT_BOUNDS[d][1], _I64[1]))
        table += [id(d), id(sid), flags, lo, hi, id(d.np)]
    table_words = np.array(table, dtype=np.int64)
    append = RECENT.append
    words = [0] * recorder.C_WORDS
    (words[recorder.C_A_NODE], words[recorder.C_A_VIEW_OF],
     words[recorder.C_A_VIEWS], words[recorder.C_N_OP],
     words[recorder.C_N_DTYPE], words[recorder.C_N_SHAPE], words[recorder.C_N_SRCS],
     words[recorder.C_N_ARG], words[recorder.C_N_VALUE], words[recorder.C_N_SIG]) = offsets
    ir_dict = vars(ir)
    for w, obj in ((recorder.C_ARRAY_T, Array), (recorder.C_NODE_T, ir.Node),
                   (recorder.C_FLOAT_T, float), (recorder.C_INT_T, int),
                   (recorder.C_TUPLE_T, tuple), (recorder.C_NONE, None),
                   (recorder.C_NEW_ID, ir.new_id),
                   (recorder.C_IR_DICT, ir_dict), (recorder.C_EPOCH_KEY, _EPOCH),
                   (recorder.C_NEVER, ir.NEVER), (recorder.C_APPEND, append),
                   (recorder.C_SCALAR_OP, ir.Op.SCALAR), (recorder.C_EMPTY, ()),
                   (recorder.C_SLICE_T, slice), (recorder.C_LIST_T, list),
                   (recorder.C_S, _TAGS[0]), (recorder.C_I, _TAGS[1]), (recorder.C_ONE, 1),
                   (recorder.C_STRUCT_IDS, ir._IDS), (recorder.C_STRUCTURE_ID, ir.structure_id),
                   (recorder.C_INDEX, _TAGS[2]), (recorder.C_TRACK, track),
                   (recorder.C_NEXT_ID, ir._next_id),
                   (recorder.C_PLACEHOLDER_OP, ir.Op.PLACEHOLDER),
                   (recorder.C_BROADCAST_OP, ir.Op.BROADCAST_TO)):
        words[w] = id(obj)
    words[recorder.C_MAX_IDS] = ir._MAX_IDS
    words[recorder.C_TABLE_IDS] = ir.TABLE_IDS.ctypes.data
    words[recorder.C_WHERE] = where_words.ctypes.data
    words[recorder.C_DTYPES] = table_words.ctypes.data
    words[recorder.C_N_DTYPES] = len(dtypes)
    words[recorder.C_MAX_LEAVES] = ir.MAX_LEAVES
    words[recorder.C_EXACT] = _EXACT_INT
    keep = (where, where_words, dtypes, scalar_ids, table_words, append, ir.NEVER, ir_dict,
            _EPOCH, _TAGS, ir._IDS, ir.structure_id, track, ir._next_id, ir.TABLE_IDS)
    return words, keep


def _steps_words(common) -> Optional[tuple]:
    """The context of the native steps (``_steps.quick``) and the objects it names; None
    when a slot's offset cannot be read."""
    words = list(common[0])
    words[recorder.C_KIND] = recorder.STEPS
    words[recorder.C_STEP_MAX] = _steps.STEP_MAX
    offsets = [recorder.slot_offset(_steps.Direct, s)
               for s in ("runner", "inputs", "scalars", "kinds")]
    if None in offsets:
        return None
    (words[recorder.C_D_RUNNER], words[recorder.C_D_INPUTS], words[recorder.C_D_SCALARS],
     words[recorder.C_D_KINDS]) = offsets
    named = ((recorder.C_VIEWS, _steps.VIEW_OPS), (recorder.C_SIGN, _steps._sign),
             (recorder.C_FIRST, _steps.first_step),
             (recorder.C_DICT_T, dict), (recorder.C_FALLBACK, _steps.native_fallback),
             (recorder.C_DIRECT_T, _steps.Direct), (recorder.C_DOOR_NAME, _DOOR),
             (recorder.C_DOOR_FALLBACK, dispatch.FALLBACK))
    named += ((recorder.C_FUSE, _fusion.TABLE), (recorder.C_FUSE_MISS, _fusion.entry),
              (recorder.C_NDARRAY_T, np.ndarray), (recorder.C_EMPTY_FN, np.empty),
              (recorder.C_BUFFER_IDS, ir._BUFFER_IDS), (recorder.C_LEAF_ID, ir.leaf_id),
              (recorder.C_DATA_OP, ir.Op.DATA), (recorder.C_F64, dt.float64),
              (recorder.C_I64, dt.int64), (recorder.C_SLICE_OP, ir.Op.SLICE),
              (recorder.C_F32, dt.float32), (recorder.C_REDUCE, _fusion.REDUCTIONS),
              (recorder.C_REDUCE_MISS, _fusion.reduction),
              (recorder.C_BROADCAST_FN, _fusion.broadcast),
              (recorder.C_RESHAPES, _fusion.RESHAPES))
    named += ((recorder.C_ENV_STEPS, _ENV_STEPS), (recorder.C_ENV_TIER, _ENV_TIER),
              (recorder.C_LIB_DICT, vars(library)), (recorder.C_BUNDLE_NAME, _BUNDLE_STATE),
              (recorder.C_SYS_MODULES, sys.modules), (recorder.C_LOGGING_NAME, _LOGGING),
              (recorder.C_TRUE, True))
    if threads._FAST_ENV:
        named += ((recorder.C_ENV_DATA, threads._ENV_DATA),)
    _name(words, named)
    words[recorder.C_COUNTS_AT] = _steps.COUNTS.data.ctypes.data
    words[recorder.C_FUSE_MAX] = _fusion.largest()
    words[recorder.C_FUSED] = _fusion.COUNT.ctypes.data
    words[recorder.C_REDUCED] = _fusion.COUNT.ctypes.data + _fusion.COUNT.itemsize
    return words, (common[1], named, _fusion.COUNT, _steps.COUNTS.data)


def _name(words: list, named: tuple) -> None:
    """Set each word of ``named`` ((word, object) pairs) to its object's address."""
    for w, obj in named:
        words[w] = id(obj)


def _words(common, kind: int, op, results: dict, ids: dict, fallback) -> tuple:
    words, keep = common
    words = list(words)
    words[recorder.C_KIND] = kind
    words[recorder.C_OP] = id(op)
    words[recorder.C_RESULTS] = id(results)
    words[recorder.C_IDS] = id(ids)
    words[recorder.C_FALLBACK] = id(fallback)
    return words, (keep, op, results, ids, fallback)
