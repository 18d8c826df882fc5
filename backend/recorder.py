"""Native recording: the fast paths of Array's operators as one unit of native code.

Recording an elementwise op in Python (type checks, a scalar leaf, the node's
signature, the node and its Array) costs 1.2-2 us, a basic slice 3.7 us; numpy
computes a small array's op in less.  This unit does the same work through CPython's C API in a
few hundred nanoseconds: its functions are installed as Array's operator
methods (method descriptors, ``METH_O``/``METH_NOARGS``) and module functions
(``METH_FASTCALL | METH_KEYWORDS``), and do exactly what the Python fast paths of
``lazyarray/_elementwise.py`` do, for the cases those handle first: two arrays
of one dtype and shape, or an array and a Python float or int that its dtype
takes as is; and ``Array.__getitem__`` for basic keys of Python ints and
unit-step slices (``_indexing._quick_basic`` and ``_views.track``).  Everything else (and anything unexpected) calls the Python
function it replaces, which decides and raises as before.

Each installed function reads a *context*: int64 words (``C_*`` below) naming
the objects and offsets it needs (the Array and Node types, their slots'
offsets, the op, its result dtypes and signature-id table, the Python
fallback...).  Methods receive the Array as ``self``, so a method finds its
context in a table (``lazyarray_rec_ctx``) through its own stub; a module
function is a ``PyCFunction`` whose ``self`` holds its context.  The code
depends on nothing of the process but the object layouts checked in
backend/abi.py and here (``slot_offset``), so one compile serves every
process (a unit, backend/native.py: compiled once per machine in the
background, then read from the disk cache).  Its IR is backend/recorder.ll (a
template: this module fills in the constants and writes the stubs).  The front
end's side is lazyarray/_recording.py.

The same unit runs a new structure's steps when their one-op programs are known
(``STEPS``, backend/steps.ll: lazyarray/_steps.py's ``quick`` without Python
between the steps): the topological order of the computed nodes, each step's
signature, its program found by signature and called, and the node given its value.
"""
from __future__ import annotations

import ctypes
import os
import re
from typing import Optional

import numpy as np

from . import abi, names, native
from .bytecode import ACROSS_ROWS, REG_BYTES
from .schedule import SCALAR_SLOT

_HERE = os.path.dirname(os.path.abspath(__file__))
IR_FILES = tuple(os.path.join(_HERE, f) for f in ("recorder.ll", "steps.ll", "fuse.ll",
                                                            "reduce.ll", "record.ll", "known.ll",
                                                            "manipulation.ll", "jit.ll"))
IDCACHE = 1024  # entries of the structure-id cache (recorder.ll's lz_cached_id)
IDCACHE_MASK = IDCACHE - 1
SCALARCACHE = 256  # entries of recorder.ll's cache of scalar leaves' signatures
SCALARCACHE_MASK = SCALARCACHE - 1
FUSECACHE = 256  # entries of fuse.ll's cache of the fused table's entries
FUSECACHE_MASK = FUSECACHE - 1
PSET_STACK = 64  # slots of a walk's set of nodes done kept on the stack (steps.ll's %pset)
PSET_STACK_MASK = PSET_STACK - 1
PSET_STACK_BYTES = 8 * PSET_STACK
STUBS = 64  # method stubs, one per method installed (Array has 32)
VSTUBS = 4  # METH_FASTCALL method stubs (JitFunction's and Prepared's __call__)

# context words
(C_KIND, C_ARRAY_T, C_NODE_T, C_FLOAT_T, C_INT_T, C_TUPLE_T, C_NONE, C_A_NODE,
 C_N_OP, C_N_DTYPE, C_N_SHAPE, C_N_SRCS, C_N_ARG, C_N_VALUE, C_N_SIG, C_OP, C_RESULTS, C_IDS,
 C_FALLBACK, C_NEW_ID, C_IR_DICT, C_EPOCH_KEY, C_NEVER, C_APPEND, C_SCALAR_OP, C_EMPTY,
 C_WHERE, C_DTYPES, C_N_DTYPES, C_MAX_LEAVES, C_EXACT,
 # basic indexing (GETITEM): the slice and list types, the items' tags, ir.structure_id's
 # table and that function, Array's view slots, the index tag, _views.track
 C_SLICE_T, C_LIST_T, C_S, C_I, C_ONE, C_STRUCT_IDS, C_STRUCTURE_ID, C_A_VIEW_OF, C_A_VIEWS,
 C_INDEX, C_TRACK,
 # steps (STEPS, backend/steps.ll): the view ops, the largest step, _steps._sign,
 # the first step's announcement, the dict type
 C_VIEWS, C_STEP_MAX, C_SIGN, C_FIRST, C_DICT_T,
 # a step's front door called directly (_steps.Direct): its type and slots, the name
 # "door", dispatch.FALLBACK
 C_DIRECT_T, C_D_RUNNER, C_D_INPUTS, C_D_SCALARS, C_D_KINDS, C_DOOR_NAME, C_DOOR_FALLBACK,
 # ir.new_id natively: the id counter's __next__, the limit of ir._IDS, the address of
 # ir.TABLE_IDS
 C_NEXT_ID, C_MAX_IDS, C_TABLE_IDS,
 # fused regions (backend/fuse.ll): the building blocks' table and the function that
 # fills it, the largest graph planned (0: none), numpy.ndarray and numpy.empty,
 # ir._BUFFER_IDS and ir.leaf_id, Op.DATA, the float64 and int64 dtypes, the address of
 # the fused nodes' counter
 C_FUSE, C_FUSE_MISS, C_FUSE_MAX, C_NDARRAY_T, C_EMPTY_FN, C_BUFFER_IDS, C_LEAF_ID,
 C_DATA_OP, C_F64, C_I64, C_FUSED, C_SLICE_OP, C_F32,
 # _array_object.record natively (RECORD, backend/record.ll): Op.PLACEHOLDER (left to
 # the Python function); binary ops broadcasting their operands: Op.BROADCAST_TO
 C_PLACEHOLDER_OP, C_BROADCAST_OP,
 # a known structure's program run by materialize (MATERIALIZE, backend/known.ll): the
 # caches (PROGRAMS) and the name "by_signature", _live's RECENT, its clear method and
 # STATES, the Exception type; a new structure's steps from there: _steps.enabled, _MET,
 # _live._marked, _steps._local and "depth", _SEEN_MAX,
 # _program._settled, materialize's default what, _steps' namespace, "NATIVE" and the
 # native steps function
 C_PROGRAMS, C_BY_SIG_NAME, C_RECENT, C_RECENT_CLEAR, C_STATES, C_EXCEPTION,
 C_ENABLED, C_MET, C_MARKED, C_LOCAL, C_DEPTH_NAME, C_SETTLED,
 C_WHAT, C_STEPS_DICT, C_NATIVE_NAME, C_NATIVE_FN,
 # matrix products natively (MATMUL, backend/record.ll): Op.MATMUL, the numeric dtypes
 # (a frozenset)
 C_MATMUL_OP, C_NUMERIC,
 # x.T natively (TRANSPOSE, backend/record.ll): Op.PERMUTE_DIMS, the axes (1, 0), the
 # view tag "permute" (C_TRACK: _views.track_permuted)
 C_PERMUTE_OP, C_T_AXES, C_PERMUTE,
 # shape ops, casts, reductions, where and creation (backend/manipulation.ll): the table
 # of _statistical._ALL_AXES and its largest rank, the keywords taken ("axis" and
 # "keepdims", or "dtype" and "device"), True, False, the bool dtype, the complex dtypes
 # (a frozenset), numpy's zeros or ones, the elements of a quick shape (_creation)
 C_ALL_AXES, C_MAX_RANK_AXES, C_KW0, C_KW1, C_TRUE, C_FALSE, C_BOOL, C_COMPLEX, C_FILL_FN,
 C_QUICK,
 # a jitted function's call (JIT_CALL, backend/jit.ll): the names "_last", "_door",
 # "_door_out", "_door_outputs", "program", "_single", "_retraces" and "shape", the
 # Prepared class, 0
 C_LAST_NAME, C_DOOR_ATTR, C_DOOR_OUT, C_DOOR_OUTPUTS, C_PROGRAM_NAME, C_SINGLE_NAME,
 C_RETRACES, C_SHAPE_NAME, C_PREPARED_T, C_ZERO,
 # float(x) and bool(x) (FLOAT, BOOL, backend/known.ll): the native materialize; numpy.asarray(x)
 # (ARRAY): the name "view"
 C_MATERIALIZE_FN, C_VIEW_NAME,
 # zeros/ones (FILL): the last dtype and shape met, their leaf id and ir.TABLE_IDS[1] then
 # (0 until then; the shape and the id held by the context)
 C_LAST_DTYPE, C_LAST_SHAPE, C_LAST_LID, C_LAST_GEN,
 # _steps.enabled() and the first step's announcement without Python where that is sure:
 # os.environ's own dict (0 where threads.env cannot read it) and the switches' names in it,
 # backend/library's namespace and "_bundle_state", sys.modules and "logging", the address
 # of _steps.COUNTS' counters
 C_ENV_DATA, C_ENV_STEPS, C_ENV_TIER, C_LIB_DICT, C_BUNDLE_NAME, C_SYS_MODULES,
 C_LOGGING_NAME, C_COUNTS_AT,
 # reductions of the steps (backend/reduce.ll): their table and the function that fills
 # it, the address of their counter
 C_REDUCE, C_REDUCE_MISS, C_REDUCED,
 # views read by a fused region (backend/fuse.ll): the function giving a broadcast its
 # value, the ops that read their source in order (a frozenset)
 C_BROADCAST_FN, C_RESHAPES,
 C_WORDS) = range(133)
MAX_DIRECT = 8  # arguments of a front door the native steps call directly (more: Python)
SEEN_MAX = 4096  # _steps._SEEN_MAX (the structures met in steps, then forgotten)
# fused regions: the plan's rows (backend/fuse.ll), the window planned at a time, the
# elements of a block, a register's bytes (a block of complex128)
P_NODE, P_KIND, P_CONS, P_OCC, P_ENT, P_REG, P_SRC0, P_SRC1, P_SRC2, P_ROWS = range(10)
FUSE_MAX = 64  # nodes of the steps' order planned at a time (a window)
FUSE_PLAN = P_ROWS * FUSE_MAX
FUSE_INS = 9 * FUSE_MAX
FUSE_BLOCK = 512
FUSE_REG_BYTES = 16 * FUSE_BLOCK
REDUCE_BYTES = REG_BYTES  # a reduction's lanes: the interpreter's accumulator block
BINARY, REFLECTED, UNARY, GETITEM, STEPS, RECORD, SIGNATURE, MATERIALIZE, MATMUL, \
    TRANSPOSE, RESHAPE, BROADCAST, PERMUTE, ASTYPE, EXPAND, REDUCE, WHERE, SHAPE, FILL, CONCAT, \
    JIT_CALL, PREPARED_CALL, FLOAT, BOOL, ARRAY = range(25)  # C_KIND
NPY_WRITEABLE = 0x0400  # numpy's NPY_ARRAY_WRITEABLE flag
MAX_RANK = 8  # keyed axes of a basic index done natively (more: the Python function)
# per dtype in the C_DTYPES table: dtype, its scalar leaf id, flags, int bounds, its
# numpy dtype
D_WORDS = 6
FLOATING, BOUNDED = 1, 2  # flags: takes floats and ints within C_EXACT; takes ints in bounds

# the C API the unit calls and the functions that install it: ``available`` checks that
# this interpreter exports them (only 3.11 is known to)
API = ("Py_IncRef", "Py_DecRef", "PyType_GenericAlloc", "PyTuple_Pack", "PyTuple_New",
       "PyDict_GetItemWithError", "PyObject_RichCompareBool", "PyLong_AsLongLongAndOverflow",
       "PyWeakref_NewRef", "PyObject_CallFunctionObjArgs", "PyObject_Vectorcall",
       "PyErr_Occurred", "PyErr_Clear", "PyDescr_NewMethod", "PyCFunction_NewEx",
       "PyObject_GC_UnTrack", "PyLong_FromLongLong", "PyList_New", "PyList_Append",
       "PySet_New", "PySet_Add", "PySet_Contains", "PyMem_Realloc", "PyMem_Free",
       "PyErr_NoMemory", "PyDict_SetItem", "PyObject_GetAttr", "PyBytes_FromStringAndSize",
       "PyBytes_AsString", "PyFloat_AsDouble", "PyList_SetItem", "PyDict_Size",
       "PySequence_List", "PySet_Size", "PyList_AsTuple", "PyErr_ExceptionMatches",
       "PyObject_IsTrue", "PyBool_FromLong", "PyNumber_Add", "PyObject_SetAttr", "PySet_Clear",
       "PyErr_SetString", "PyNumber_Float", "PyObject_GetItem", "PyLong_AsDouble",
       "PyObject_CallObject")


def unit() -> native.Unit:
    """The recording unit: its context table, its module-function entry and its stubs."""
    name = names.name_of("lazyarray_recorder_", (STUBS, VSTUBS, abi.TUPLE_ITEMS, abi.ARRAY_DATA))
    symbols = ("lazyarray_rec_ctx", "lazyarray_rec_fn") + tuple(
        f"lazyarray_rec_m{k}" for k in range(STUBS)) + ("lazyarray_rec_vctx",) + tuple(
        f"lazyarray_rec_v{k}" for k in range(VSTUBS))
    return native.Unit(name, ("recorder", "recorder_ir", (STUBS,)), symbols)


def recorder_ir(stubs: int, vector_variants: Optional[dict] = None) -> str:
    """The unit's IR text (backend/native.py's builder): backend/recorder.ll with its
    constants filled in, and the stubs."""
    texts = []
    for path in IR_FILES:
        with open(path, encoding="utf-8") as f:
            texts.append(f.read())
    template = "\n".join(texts)
    values = {name: value for name, value in globals().items()
              if name.isupper() and type(value) is int}
    values.update(TUPLE_ITEMS=abi.TUPLE_ITEMS, LIST_ITEMS=abi.LIST_ITEMS, ARRAY_DATA=abi.ARRAY_DATA, OB_TYPE=abi.OB_TYPE,
                  ARRAY_FLAGS=abi.ARRAY_FLAGS, ARRAY_DESCR=abi.ARRAY_DESCR, NPY_NOT_WRITEABLE=~NPY_WRITEABLE,
                  ARRAY_NDIM=abi.ARRAY_NDIM, ARRAY_DIMS=abi.ARRAY_DIMS,
                  STUBS=stubs, SCALAR_SLOT=SCALAR_SLOT, ACROSS_ROWS=ACROSS_ROWS)
    text = re.sub(r"\$([A-Z_0-9]+)\$", lambda m: str(values[m.group(1)]), template)
    parts = [text]
    for k in range(stubs):
        parts.append(
            f"define ptr @lazyarray_rec_m{k}(ptr %self, ptr %other) {{\n"
            f"  %p = getelementptr [{stubs} x ptr], ptr @lazyarray_rec_ctx, i64 0, i64 {k}\n"
            "  %c = load ptr, ptr %p\n"
            "  %r = tail call ptr @lz_method(ptr %c, ptr %self, ptr %other)\n"
            "  ret ptr %r\n}\n")
    for k in range(VSTUBS):
        parts.append(
            f"define ptr @lazyarray_rec_v{k}(ptr %self, ptr %args, i64 %n, ptr %kw) {{\n"
            f"  %p = getelementptr [{VSTUBS} x ptr], ptr @lazyarray_rec_vctx, i64 0, i64 {k}\n"
            "  %c = load ptr, ptr %p\n"
            "  %r = tail call ptr @lz_vmethod(ptr %c, ptr %self, ptr %args, i64 %n, ptr %kw)\n"
            "  ret ptr %r\n}\n")
    return "\n".join(parts)


def slot_offset(cls: type, name: str) -> Optional[int]:
    """The offset of ``cls``'s ``__slots__`` member ``name`` in its instances, read from
    its member descriptor and checked on an instance; None where it does not hold."""
    descr = cls.__dict__.get(name)
    if type(descr).__name__ != "member_descriptor" or not abi.FIELDS:
        return None
    # PyMemberDescrObject: object header, d_type, d_name, d_qualname, then d_member;
    # PyMemberDef: name, type (int, padded), offset
    member = ctypes.c_void_p.from_address(id(descr) + 40).value
    if not member:
        return None
    offset = ctypes.c_ssize_t.from_address(member + 16).value
    if not 16 <= offset < 1024:
        return None
    probe = object.__new__(cls)
    mark = object()
    try:
        setattr(probe, name, mark)
        ok = ctypes.c_void_p.from_address(id(probe) + offset).value == id(mark)
        delattr(probe, name)
    except (AttributeError, TypeError):
        return None
    return offset if ok else None


def available() -> bool:
    """Whether the unit can run here: the layouts hold and CPython exports its API."""
    if not abi.FIELDS:
        return False
    try:
        for name in API:
            getattr(ctypes.pythonapi, name)
    except AttributeError:
        return False
    return True


class Recorder:
    """The loaded unit: makes the methods and functions that run it."""

    def __init__(self, addresses) -> None:
        self.addresses = addresses  # keeps the code mapped
        self.table = addresses[0]
        self.fn = addresses[1]
        self.stubs = list(addresses[2:2 + STUBS])
        self.vtable = addresses[2 + STUBS]
        self.vstubs = list(addresses[3 + STUBS:])
        self.keep: list = []  # contexts and method definitions: for the process's life
        self._new_method = abi.c_api("PyDescr_NewMethod", ctypes.py_object, ctypes.py_object,
                                     ctypes.c_void_p)
        self._new_fn = abi.c_api("PyCFunction_NewEx", ctypes.py_object, ctypes.c_void_p,
                                 ctypes.py_object, ctypes.py_object)

    def method(self, cls: type, name: str, doc: str, words: list, keep: tuple):
        """A method descriptor of ``cls`` running the context ``words`` (``keep``: the
        objects they name), or None when every stub is taken."""
        if not self.stubs:
            return None
        ctx = context(words)
        k = STUBS - len(self.stubs)
        ctypes.c_void_p.from_address(self.table + 8 * k).value = ctx.ctypes.data
        flags = abi.METH_NOARGS if words[C_KIND] in (UNARY, FLOAT, BOOL) else abi.METH_O
        md = abi.MethodDef(name.encode(), self.stubs.pop(0), flags, doc.encode())
        self.keep.append((ctx, md, keep))
        return self._new_method(cls, ctypes.addressof(md))

    def fast_method(self, cls: type, name: str, doc: str, words: list, keep: tuple):
        """A ``METH_FASTCALL | METH_KEYWORDS`` method descriptor of ``cls`` running the
        context ``words`` (its arguments as a vector), or None when every stub is taken."""
        if not self.vstubs:
            return None
        ctx = context(words)
        k = VSTUBS - len(self.vstubs)
        ctypes.c_void_p.from_address(self.vtable + 8 * k).value = ctx.ctypes.data
        md = abi.MethodDef(name.encode(), self.vstubs.pop(0),
                           abi.METH_FASTCALL | abi.METH_KEYWORDS, doc.encode())
        self.keep.append((ctx, md, keep))
        return self._new_method(cls, ctypes.addressof(md))

    def function(self, name: str, doc: str, module: str, holder: tuple):
        """A builtin function (of module ``module``) running the context in ``holder``:
        a tuple, or an instance of a subclass, whose first item is ``context(words)``;
        it is the function's ``__self__``."""
        ctx = holder[0]
        if not (isinstance(holder, tuple) and type(ctx) is np.ndarray and ctx.dtype == np.int64
                and ctx.flags.c_contiguous and len(ctx) == C_WORDS):
            raise TypeError("a native function's holder starts with its context words")
        md = abi.MethodDef(name.encode(), self.fn, abi.METH_FASTCALL | abi.METH_KEYWORDS,
                           doc.encode())
        self.keep.append((holder, md))
        return self._new_fn(ctypes.addressof(md), holder, module)


def context(words: list) -> np.ndarray:
    """The context a function reads: its words, as an int64 array."""
    return np.array(words, dtype=np.int64)
