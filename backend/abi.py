"""How entry functions find their buffers: the layout of CPython lists and numpy arrays.

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
import sysconfig

import numpy as np

LIST_ITEMS = 24  # PyListObject.ob_item: after refcount, type and size
ARRAY_DATA = 16  # PyArrayObject.data: right after the object header
_PTR = ctypes.sizeof(ctypes.c_void_p)


def _layout_holds() -> bool:
    """True when lists and arrays of this interpreter have the offsets above."""
    if (sys.implementation.name != "cpython" or _PTR != 8 or hasattr(sys, "getobjects")
            or sysconfig.get_config_var("Py_GIL_DISABLED")):
        return False  # another object header: reading at these offsets would be wrong
    arrays = [np.empty(3), np.empty((2, 2), np.int8)]
    read = ctypes.c_void_p.from_address
    items = read(id(arrays) + LIST_ITEMS).value
    return (items is not None
            and all(read(items + _PTR * i).value == id(a) for i, a in enumerate(arrays))
            and all(read(id(a) + ARRAY_DATA).value == a.ctypes.data for a in arrays))


NATIVE = _layout_holds()


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
