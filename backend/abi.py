"""The entry functions' interface: how they find their buffers (the layout of CPython
lists and numpy arrays) and the codes of their error record.

An entry function receives the address of a Python list of numpy arrays, one
per buffer slot, and reads each array's data pointer itself: two loads in
native code instead of a ctypes conversion per buffer per call.  The offsets
are those of a 64-bit default (GIL, non-debug) CPython build; they are checked
on real objects at import.  Where they do not hold, ``pack`` builds a
stand-in block with the same layout, so the generated code never changes.
"""
from __future__ import annotations

import ctypes
import sys

import numpy as np

# Error record of an entry function (int64 code, value, bound, axis): the codes kernels set.
ERR_INDEX = 1      # a gather index out of range: (ERR_INDEX, index, size, axis label)
ERR_NO_MEMORY = 2  # the GEMM routine's scratch malloc failed
ERR_LAYOUT = 3     # a contraction whose operands walk neither (m, k) and (k, n) nor the reverse

# entry(buffers, meta or header, scalars, error record) -> error code: compiled programs
# entry functions had it; the sequencer (backend/sequencer.py) has it now
ENTRY_TYPE = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
                              ctypes.c_void_p)

LIST_ITEMS = 24  # PyListObject.ob_item: after refcount, type and size
ARRAY_DATA = 16  # PyArrayObject.data: right after the object header
# The rest of PyArrayObject_fields and PyObject, read by backend/dispatch.py's checks.
OB_TYPE = 8
ARRAY_NDIM, ARRAY_DIMS, ARRAY_DESCR, ARRAY_FLAGS = 24, 32, 56, 64
TUPLE_ITEMS = 24
BYTES_SIZE, BYTES_DATA = 16, 32
_PTR = ctypes.sizeof(ctypes.c_void_p)


def _free_threaded() -> bool:
    """A free-threaded CPython build (another object header); its ABI flags say so
    without importing sysconfig (a millisecond of the import)."""
    flags = getattr(sys, "abiflags", None)
    if flags is not None:
        return "t" in flags
    import sysconfig
    return bool(sysconfig.get_config_var("Py_GIL_DISABLED"))


def _layout_holds() -> bool:
    """True when lists and arrays of this interpreter have the offsets above."""
    if (sys.implementation.name != "cpython" or _PTR != 8 or hasattr(sys, "getobjects")
            or _free_threaded()):
        return False  # another object header: reading at these offsets would be wrong
    arrays = [np.empty(3), np.empty((2, 2), np.int8)]
    read = ctypes.c_void_p.from_address
    items = read(id(arrays) + LIST_ITEMS).value
    return (items is not None
            and all(read(items + _PTR * i).value == id(a) for i, a in enumerate(arrays))
            and all(read(id(a) + ARRAY_DATA).value == a.ctypes.data for a in arrays))


NATIVE = _layout_holds()


def _fields_hold() -> bool:
    """True when arrays, tuples and bytes have the further offsets above."""
    if not NATIVE:
        return False
    i32 = ctypes.c_int32.from_address
    ptr = ctypes.c_void_p.from_address
    i64 = ctypes.c_int64.from_address
    for a in (np.empty((3, 4))[::2], np.zeros(5, np.int8), np.empty(())):
        dims = ptr(id(a) + ARRAY_DIMS).value
        if (ptr(id(a) + OB_TYPE).value != id(np.ndarray) or i32(id(a) + ARRAY_NDIM).value != a.ndim
                or ptr(id(a) + ARRAY_DESCR).value != id(a.dtype)
                or i32(id(a) + ARRAY_FLAGS).value != a.flags.num
                or (a.ndim and [i64(dims + 8 * d).value for d in range(a.ndim)] != list(a.shape))):
            return False
    t, b = (np.empty(1), 7), b"lazyarray"
    return (ptr(id(t) + TUPLE_ITEMS).value == id(t[0])
            and i64(id(b) + BYTES_SIZE).value == len(b)
            and ctypes.string_at(id(b) + BYTES_DATA, len(b)) == b)


FIELDS = _fields_hold()


def pack(bufs: list) -> tuple:
    """(the address an entry function takes, what must stay alive during the call).

    ``bufs`` holds numpy arrays only; the caller keeps it unchanged until the
    call returns.
    """
    if NATIVE:
        return id(bufs), bufs
    return stand_in(bufs)


def stand_in(bufs: list) -> tuple:
    """A block laid out like a list of arrays, for interpreters where ``NATIVE`` is False."""
    n = len(bufs)
    per = ARRAY_DATA // _PTR + 1
    objs = (ctypes.c_void_p * (per * n))()
    for i, b in enumerate(bufs):
        objs[per * i + per - 1] = b.ctypes.data
    base = ctypes.addressof(objs)
    items = (ctypes.c_void_p * max(n, 1))(*[base + per * _PTR * i for i in range(n)])
    head = (ctypes.c_void_p * (LIST_ITEMS // _PTR + 1))()
    head[LIST_ITEMS // _PTR] = ctypes.addressof(items)
    return ctypes.addressof(head), (objs, items, head, bufs)


# PyMethodDef's flags: how CPython calls the function
METH_KEYWORDS, METH_NOARGS, METH_O, METH_FASTCALL = 0x0002, 0x0004, 0x0008, 0x0080


class MethodDef(ctypes.Structure):
    """CPython's ``PyMethodDef``: what a native function made into a Python callable is
    (backend/dispatch.py's front doors, backend/recorder.py's operators)."""
    _fields_ = [("name", ctypes.c_char_p), ("meth", ctypes.c_void_p), ("flags", ctypes.c_int),
                ("doc", ctypes.c_char_p)]


def c_api(name: str, restype, *argtypes):
    """CPython's C function ``name`` with this prototype, as a callable of its own (the
    GIL held, a Python error raised).  Never set ``restype``/``argtypes`` on
    ``ctypes.pythonapi.<name>`` instead: that object is shared by the whole process, so
    two callers with different prototypes (this package's front doors and operators, or
    another library) change each other's calls: a module name passed as a pointer to a
    temporary made functions whose module was freed memory, which the collector then
    read (a segmentation fault in about 2% of test runs)."""
    return ctypes.PYFUNCTYPE(restype, *argtypes)((name, ctypes.pythonapi))
