"""The native front door of a bound runner: one C-level call per run.

``front_door(runner, slots)`` returns a Python callable (a ``PyCFunction``)
that, in native code, checks that its arguments are C-contiguous aligned
numpy arrays of the bound dtypes and shapes, allocates the output arrays
with numpy's ``PyArray_Empty``, runs the sequencer on the runner's program code
with the GIL released and returns the output array (a prepared program with several
outputs: a tuple of them).  Anything it does not handle
(another type, dtype, shape or layout, a kernel error) returns ``FALLBACK``
without side effects, and the caller takes the Python path, which raises the
proper error.  It replaces about a microsecond of Python per call.

The code depends only on the call's signature (argument count, ranks, which
slot comes from where); every value (dtype objects, sizes, addresses) sits
in a per-runner descriptor, so one compiled trampoline serves every program
with the same signature.  Trampolines are units (backend/native.py): compiled
once per machine on the background thread, loaded from the disk cache after
that; until a runner's trampoline is loaded, it runs through Python.
Everything rests on the object layouts
checked in backend/abi.py; where they do not hold, ``front_door`` returns None.
"""
from __future__ import annotations

import ctypes
import os
import threading
from typing import Callable, Optional

import numpy as np
from . import abi, buffers, names, native, parallel

FALLBACK = object()  # "take the Python path": a unique object the trampoline returns

_C_ALIGNED = 0x0001 | 0x0100  # NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED
# descriptor header words
(_ENTRY, _META, _SCAL, _ARRAY_TYPE, _FALLBACK, _EMPTY, _BYTES_TYPE, _SCAL_SIZE,
 _POOL, _WORKERS, _METAS, _RUN, _HEADER) = range(13)
MAX_SIGNATURES = 512  # trampolines compiled per process; calls beyond take the Python path
# Buffers a door allocates at the most: its code is straight-line, a few instructions per
# buffer, and a long chain's program (a 100,000-op chain has thousands of intermediate
# buffers) made a trampoline LLVM optimised for over 15 minutes and 5.7 GB; beside that
# many kernels a door's microsecond is nothing
MAX_ALLOCS = 64


def _array_empty() -> Optional[int]:
    """Address of numpy's ``PyArray_Empty``, from its C-API table (index from the header)."""
    import re
    from pathlib import Path
    header = Path(np.get_include()) / "numpy" / "__multiarray_api.h"
    try:
        m = re.search(r"#define PyArray_Empty \\\s*\(\*\(PyObject \* \(\*\)\(int, npy_intp const \*, "
                      r"PyArray_Descr \*, int\)\) \\\s*PyArray_API\[(\d+)\]\)", header.read_text())
    except OSError:
        return None
    if m is None:
        return None
    from numpy._core import _multiarray_umath as mu
    cap = ctypes.py_object(mu._ARRAY_API)
    name = abi.c_api("PyCapsule_GetName", ctypes.c_char_p, ctypes.py_object)
    get = abi.c_api("PyCapsule_GetPointer", ctypes.c_void_p, ctypes.py_object, ctypes.c_char_p)
    table = get(cap.value, name(cap.value))
    return ctypes.c_void_p.from_address(table + 8 * int(m.group(1))).value if table else None


class _Trampolines:
    """Trampolines by signature (each a unit, backend/native.py), and what every
    descriptor shares."""

    def __init__(self) -> None:
        self.empty = _array_empty()
        self.lock = threading.Lock()
        self.defs: dict = {}  # signature -> its method definition (loaded for good)
        self.new = abi.c_api("PyCFunction_NewEx", ctypes.py_object, ctypes.c_void_p,
                             ctypes.py_object, ctypes.c_void_p)

    def method_def(self, sig: tuple, on_ready: Callable, disk: bool = False,
                   loaded: bool = False) -> Optional[abi.MethodDef]:
        """The trampoline of ``sig`` if loaded (``disk``: or on disk, read now); else None,
        and ``on_ready(method def)`` runs once it is (read or compiled on the background
        thread).  Never more than ``MAX_SIGNATURES`` (they stay loaded for the process's
        life)."""
        with self.lock:
            md = self.defs.get(sig)
            if md is not None or loaded:
                return md
            if len(self.defs) >= MAX_SIGNATURES:
                return None
        name = names.name_of("lazyarray_door_", sig)
        unit = native.Unit(name, ("dispatch", "door_ir", (name, sig)), (name,))

        def loaded(addresses) -> None:
            on_ready(self._define(sig, addresses[0]))
        got = native.get(unit, wait=False, on_ready=loaded, disk=disk)
        return None if got is None else self._define(sig, got[0])

    def _define(self, sig: tuple, addr: int) -> abi.MethodDef:
        with self.lock:
            md = self.defs.get(sig)
            if md is None:
                md = self.defs[sig] = abi.MethodDef(b"lazyarray_run", addr, abi.METH_FASTCALL,
                                                       None)
            return md


_state: Optional[_Trampolines] = None
_state_lock = threading.Lock()


def _trampolines() -> Optional[_Trampolines]:
    global _state
    if _state is None:
        with _state_lock:
            if _state is None:
                _state = _Trampolines()
    return _state if _state.empty else None


def front_door(runner, sources: list, n_args: int, scal_arg: bool = False,
               on_open: Optional[Callable] = None, unused: Optional[dict] = None,
               several: bool = False, disk: bool = False,
               loaded: bool = False) -> Optional[Callable]:
    """The native callable running ``runner`` on ``n_args`` arrays, or None.

    ``sources``: per input slot, an argument index (int) or a constant array.
    ``unused``: argument index -> (dtype, shape) of the arguments no slot reads (a
    function's parameter it ignores): checked like the others, then left alone.
    With ``scal_arg`` the callable takes one more argument: the scalar bytes.
    ``several``: the callable returns a tuple of the runner's outputs (any number of
    distinct ones, none of them an input); else only a single-output runner qualifies,
    and the callable returns its array.  ``disk``: a trampoline on disk is read on the
    calling thread; ``loaded``: only a trampoline loaded already (None, and nothing read
    or queued, otherwise).  Runners qualify whose run is one sequencer
    call, or one kernel in chunks that write their own parts of the output (run on the
    native pool, backend/parallel.py), with at most ``MAX_ALLOCS`` buffers; runners with
    pooled large buffers (backend/buffers.py) do not.  The door is also given to ``on_open``: at once, or, when its trampoline is
    still to be compiled, from the background thread once it is loaded (meanwhile
    None is returned and the caller keeps the Python path).
    """
    chunked = runner.chunked
    if not abi.FIELDS or (runner.only is None and chunked is None):
        return None
    outs = runner.outputs
    if (len(outs) != 1 and not several) or len(set(outs)) != len(outs):
        return None
    if runner.new_buffer is buffers.empty or len(runner.allocs) > MAX_ALLOCS:
        return None  # large buffers come from the pool (Python's cost is small beside them)
    pool = parallel.pool() if chunked is not None else None
    if chunked is not None and pool is None:
        return None
    sched = runner.schedule
    if min(outs) < sched.n_inputs or len(sources) != sched.n_inputs:
        return None
    tr = _trampolines()
    if tr is None:
        return None
    arg_specs = {}
    for slot, src in enumerate(sources):
        if isinstance(src, int):
            arg_specs[src] = (slot, np.dtype(sched.buffer_dtypes[slot].np), runner.in_shapes[slot])
    for i, (dtype, shape) in (unused or {}).items():
        arg_specs.setdefault(i, (None, np.dtype(dtype), tuple(shape)))
    if sorted(arg_specs) != list(range(n_args)):
        return None
    sig = (n_args, tuple(len(arg_specs[i][2]) for i in range(n_args)),
           tuple(s if isinstance(s, int) else "c" for s in sources),
           tuple(len(shape) for shape, _ in runner.allocs),
           tuple(o - sched.n_inputs for o in outs), scal_arg,
           len(chunked.metas) if chunked is not None else 0, several)

    def make(md: abi.MethodDef):
        words, keep = _descriptor(runner, sources, arg_specs, tr, scal_arg, pool)
        # self: (descriptor, everything the addresses in it point into)
        return tr.new(ctypes.addressof(md), (words, keep, md), None)

    def ready(md: abi.MethodDef) -> None:
        if on_open is not None:
            on_open(make(md))
    md = tr.method_def(sig, ready, disk, loaded)
    if md is None:
        return None
    door = make(md)
    if on_open is not None:
        on_open(door)
    return door


def _descriptor(runner, sources, arg_specs, tr, scal_arg, pool) -> tuple:
    """The door's words: what it checks, allocates and calls.  It calls the sequencer,
    on the runner's one stage (its header) or on each of its chunks' headers."""
    words = [0] * _HEADER
    words[_ENTRY] = runner.program.run_addr
    # the header of the one stage, or of a chunked kernel run whole (when no worker may
    # take a chunk: see _run_chunks)
    only = runner.only if runner.only is not None else runner.chunked.whole
    words[_META] = only.addr if only is not None else 0
    words[_SCAL] = runner.scal_addr
    words[_ARRAY_TYPE], words[_FALLBACK], words[_EMPTY] = id(np.ndarray), id(FALLBACK), tr.empty
    words[_BYTES_TYPE], words[_SCAL_SIZE] = id(bytes), len(runner.scal)
    if pool is not None:
        words[_POOL], words[_WORKERS], words[_RUN] = pool.addr, pool.workers, pool.run_addr
        words[_METAS] = runner.chunked.meta_addrs.ctypes.data
    dtypes = []
    for i in range(len(arg_specs)):           # per argument: dtype object, shape
        _, dtype, shape = arg_specs[i]
        dtypes.append(dtype)
        words += [id(dtype), *shape]
    consts = [c for c in sources if not isinstance(c, int)]
    words += [id(c) for c in consts]          # constant input arrays
    for shape, dtype in runner.allocs:        # per allocation: dtype object, shape
        d = np.dtype(dtype)
        dtypes.append(d)
        words += [id(d), *shape]
    arr = np.array(words, dtype=np.int64)
    return arr, (runner.program, runner.only, runner.meta, runner.scal, consts, dtypes,
                 runner.chunked, pool)


def door_ir(name: str, sig: tuple, vector_variants: dict | None = None) -> str:
    """The IR of the trampoline unit of ``sig`` (backend/native.py)."""
    return _build(name, sig)


def _build(name: str, sig: tuple) -> str:
    """LLVM IR of the trampoline for ``sig`` (see ``front_door``), written as text:
    straight-line checks, each failing to ``%fallback``."""
    n_args, ranks, sources, alloc_ranks, out_allocs, scal_arg, n_chunks, several = sig
    e = _Emitter()
    dobj = e.load("ptr", "%self", abi.TUPLE_ITEMS)  # self is (descriptor array, keep-alives)
    e.line(f"%desc = load ptr, ptr {e.tmp(f'getelementptr i8, ptr {dobj}, i64 {abi.ARRAY_DATA}')}")
    e.require(f"icmp eq i64 %nargs, {n_args + scal_arg}")
    pos, arg_objs = _HEADER, []
    for i, rank in enumerate(ranks):
        a = e.load("ptr", "%args", 8 * i)
        arg_objs.append(a)
        e.require(f"icmp eq i64 {e.load('i64', a, abi.OB_TYPE)}, {e.word(_ARRAY_TYPE)}")
        e.require(f"icmp eq i64 {e.load('i64', a, abi.ARRAY_DESCR)}, {e.word(pos)}")
        e.require(f"icmp eq i32 {e.load('i32', a, abi.ARRAY_NDIM)}, {rank}")
        flags = e.tmp(f"and i32 {e.load('i32', a, abi.ARRAY_FLAGS)}, {_C_ALIGNED}")
        e.require(f"icmp eq i32 {flags}, {_C_ALIGNED}")
        dims = e.load("ptr", a, abi.ARRAY_DIMS)
        for d in range(rank):
            e.require(f"icmp eq i64 {e.load('i64', dims, 8 * d)}, {e.word(pos + 1 + d)}")
        pos += 1 + rank
    scal = e.tmp(f"inttoptr i64 {e.word(_SCAL)} to ptr")
    if scal_arg:
        sb = e.load("ptr", "%args", 8 * n_args)
        e.require(f"icmp eq i64 {e.load('i64', sb, abi.OB_TYPE)}, {e.word(_BYTES_TYPE)}")
        e.require(f"icmp eq i64 {e.load('i64', sb, abi.BYTES_SIZE)}, {e.word(_SCAL_SIZE)}")
        scal = e.tmp(f"getelementptr i8, ptr {sb}, i64 {abi.BYTES_DATA}")
    # a stand-in list on the stack (see abi.stand_in): the entry function's first argument
    n_slots = len(sources) + len(alloc_ranks)
    items = e.tmp(f"alloca [{max(n_slots, 1)} x ptr]")
    head = e.tmp(f"alloca [{abi.LIST_ITEMS // 8 + 1} x ptr]")
    e.store("ptr", items, head, abi.LIST_ITEMS)
    for slot, src in enumerate(sources):
        if src == "c":
            e.store("ptr", e.tmp(f"inttoptr i64 {e.word(pos)} to ptr"), items, 8 * slot)
            pos += 1
        else:
            e.store("ptr", arg_objs[src], items, 8 * slot)
    empty = e.tmp(f"inttoptr i64 {e.word(_EMPTY)} to ptr")
    made = []
    for j, rank in enumerate(alloc_ranks):
        descr = e.tmp(f"inttoptr i64 {e.word(pos)} to ptr")
        e.line(f"call void @Py_IncRef(ptr {descr})")  # PyArray_Empty steals a dtype reference
        dims = e.tmp(f"getelementptr i64, ptr %desc, i64 {pos + 1}")
        obj = e.tmp(f"call ptr {empty}(i32 {rank}, ptr {dims}, ptr {descr}, i32 0)")
        ok, fail = e.label(), e.label()
        e.line(f"br i1 {e.tmp(f'icmp ne ptr {obj}, null')}, label %{ok}, label %{fail}")
        e.block(fail)  # out of memory: numpy has set the exception
        for m in made:
            e.line(f"call void @Py_DecRef(ptr {m})")
        e.line("ret ptr null")
        e.block(ok)
        made.append(obj)
        e.store("ptr", obj, items, 8 * (len(sources) + j))
        pos += 1 + rank
    err = e.tmp("alloca [4 x i64]")
    e.line(f"store [4 x i64] zeroinitializer, ptr {err}")
    entry, meta = e.tmp(f"inttoptr i64 {e.word(_ENTRY)} to ptr"), e.tmp(f"inttoptr i64 {e.word(_META)} to ptr")
    ts = e.tmp("call ptr @PyEval_SaveThread()")
    if n_chunks:  # the chunks on the native pool (backend/parallel.py)
        rc = _run_chunks(e, n_chunks, entry, head, meta, scal, err)
    else:
        rc = e.tmp(f"call i32 {entry}(ptr {head}, ptr {meta}, ptr {scal}, ptr {err})")
    e.line(f"call void @PyEval_RestoreThread(ptr {ts})")
    for j, m in enumerate(made):
        if j not in out_allocs:
            e.line(f"call void @Py_DecRef(ptr {m})")
    outs = [made[j] for j in out_allocs]
    good, bad = e.label(), e.label()
    e.line(f"br i1 {e.tmp(f'icmp eq i32 {rc}, 0')}, label %{good}, label %{bad}")
    e.block(good)
    if several:
        _return_tuple(e, outs)
    else:
        e.line(f"ret ptr {outs[0]}")
    e.block(bad)  # a kernel error: the Python path runs again and raises it
    for m in outs:
        e.line(f"call void @Py_DecRef(ptr {m})")
    e.line("br label %fallback")
    e.block("fallback")
    fb = e.tmp(f"inttoptr i64 {e.word(_FALLBACK)} to ptr")
    e.line(f"call void @Py_IncRef(ptr {fb})")
    e.line(f"ret ptr {fb}")
    return (_DECLS + f"define ptr @{name}(ptr %self, ptr %args, i64 %nargs) {{\nentry:\n"
            + "\n".join(e.lines) + "\n}\n")


def _return_tuple(e, outs: list) -> None:
    """Emit: return a new tuple of ``outs`` (each reference goes into it), or NULL with
    them released when the tuple cannot be made (Python has set MemoryError)."""
    t = e.tmp(f"call ptr @PyTuple_New(i64 {len(outs)})")
    ok, fail = e.label(), e.label()
    e.line(f"br i1 {e.tmp(f'icmp ne ptr {t}, null')}, label %{ok}, label %{fail}")
    e.block(fail)
    for m in outs:
        e.line(f"call void @Py_DecRef(ptr {m})")
    e.line("ret ptr null")
    e.block(ok)
    for i, m in enumerate(outs):  # steals the reference; cannot fail on a new tuple
        e.tmp(f"call i32 @PyTuple_SetItem(ptr {t}, i64 {i}, ptr {m})")
    e.line(f"ret ptr {t}")


def _run_chunks(e, n: int, entry: str, head: str, whole: str, scal: str, err: str) -> str:
    """Emit the call of ``lazyarray_run_chunks`` (every chunk reads the same buffers), or,
    when the pool allows no worker now and the kernel has a whole header, one call of the
    kernel unsplit (as ``runtime.Chunked.run`` does: the chunks one after another cost
    more, a 64x64 product packing B twice); returns an i32 that is 0 on success."""
    pool = e.tmp(f"inttoptr i64 {e.word(_POOL)} to ptr")
    allowed = e.tmp(f"load atomic i64, ptr {e.tmp(f'getelementptr i8, ptr {pool}, i64 {parallel.ALLOWED_OFFSET}')} monotonic, align 8")
    alone = e.tmp(f"and i1 {e.tmp(f'icmp sle i64 {allowed}, 0')}, "
                  f"{e.tmp(f'icmp ne ptr {whole}, null')}")
    one, split, done = e.label(), e.label(), e.label()
    e.line(f"br i1 {alone}, label %{one}, label %{split}")
    e.block(one)
    rc_one = e.tmp(f"call i32 {entry}(ptr {head}, ptr {whole}, ptr {scal}, ptr {err})")
    e.line(f"br label %{done}")
    e.block(split)
    rc_split = _post_chunks(e, n, entry, head, scal, pool)  # (no blocks of its own)
    e.line(f"br label %{done}")
    e.block(done)
    return e.tmp(f"phi i32 [{rc_one}, %{one}], [{rc_split}, %{split}]")


def _post_chunks(e, n: int, entry: str, head: str, scal: str, pool: str) -> str:
    heads = e.tmp(f"alloca [{n} x ptr]")
    for c in range(n):
        e.store("ptr", head, heads, 8 * c)
    errs = e.tmp(f"alloca [{n} x [4 x i64]]")
    e.line(f"store [{n} x [4 x i64]] zeroinitializer, ptr {errs}")  # an entry returns its code
    run = e.tmp(f"inttoptr i64 {e.word(_RUN)} to ptr")
    metas = e.tmp(f"inttoptr i64 {e.word(_METAS)} to ptr")
    bad = e.tmp(f"call i64 {run}(ptr {pool}, i64 {e.word(_WORKERS)}, ptr {entry}, ptr {heads}, "
                f"ptr {metas}, ptr {scal}, ptr {errs}, i64 {n})")
    return e.tmp(f"trunc i64 {bad} to i32")


_DECLS = """declare void @Py_IncRef(ptr)
declare void @Py_DecRef(ptr)
declare ptr @PyEval_SaveThread()
declare void @PyEval_RestoreThread(ptr)
declare ptr @PyTuple_New(i64)
declare i32 @PyTuple_SetItem(ptr, i64, ptr)
"""


class _Emitter:
    """Numbered temporaries, blocks and the check-or-fall-back pattern."""

    def __init__(self) -> None:
        self.lines: list = []
        self.n = 0

    def line(self, text: str) -> None:
        self.lines.append("  " + text)

    def tmp(self, expr: str) -> str:
        self.n += 1
        self.line(f"%t{self.n} = {expr}")
        return f"%t{self.n}"

    def label(self) -> str:
        self.n += 1
        return f"b{self.n}"

    def block(self, label: str) -> None:
        self.lines.append(f"{label}:")

    def load(self, ty: str, base: str, offset: int) -> str:
        p = self.tmp(f"getelementptr i8, ptr {base}, i64 {offset}")
        return self.tmp(f"load {ty}, ptr {p}")

    def store(self, ty: str, value: str, base: str, offset: int) -> None:
        p = self.tmp(f"getelementptr i8, ptr {base}, i64 {offset}")
        self.line(f"store {ty} {value}, ptr {p}")

    def word(self, i: int) -> str:
        return self.load("i64", "%desc", 8 * i)

    def require(self, cond: str) -> None:
        ok = self.label()
        self.line(f"br i1 {self.tmp(cond)}, label %{ok}, label %fallback")
        self.block(ok)


def _after_fork_in_child() -> None:
    global _state_lock  # locks another thread held at fork() would stay held in the child
    _state_lock = threading.Lock()
    if _state is not None:
        _state.lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
