"""Binding a schedule to concrete shapes, packing arguments, the one entry call.

``bind`` turns the sizes of the inputs into the int64 ``meta`` array every
kernel reads (iteration sizes, per-access offsets and strides); ``run``
allocates the buffers a program writes and makes the single foreign call.
"""
from __future__ import annotations

import array
import ctypes
import functools
import struct
from typing import Callable

import numpy as np

from . import abi, buffers, bytecode, dispatch, native, parallel, rowtiles, threads
from .ir import TRANSCENDENTAL, Op, evaluate_dim
from .schedule import SCALAR_SLOT, Access, ExternalStep, Kernel, Schedule

_REDUCE_NEEDS_ELEMENTS = (Op.MAX, Op.MIN, Op.ARGMAX, Op.ARGMIN)
# A matrix product of this many iterations waits for its GEMM routine rather than run the
# interpreter's generic loop (about 1.5 s of that loop, what compiling the routine takes)
GEMM_WAIT = 1 << 29
# The run of a runner that opens its front door on the calling thread, if the door's
# trampoline is loaded (about 16 us: a door saves about 2 us a run, so a runner this far
# has about paid for it); from its second run the door is asked for at a quiet moment
DOOR_NOW = 8


class KernelBinding:
    """Where one kernel's numbers sit in the meta array (after coalescing): the iteration
    size per axis, (meta position of the offset, strides) per load and for the store."""

    __slots__ = ("sizes", "loads", "store")

    def __init__(self, sizes: list, loads: list, store: tuple) -> None:
        self.sizes, self.loads, self.store = sizes, loads, store


class Bound:
    """A schedule bound to concrete shapes, ready to run any number of times: the meta
    array (int64 words), the concrete shape per buffer slot, a KernelBinding per kernel."""

    __slots__ = ("meta", "shapes", "kernels")

    def __init__(self, meta: array.array, shapes: list, kernels: list) -> None:
        self.meta, self.shapes, self.kernels = meta, shapes, kernels


def node_shapes(nodes: list, env: dict) -> list:
    """Concrete shape of every node given the sizes of the named dims (without named
    dims, every shape is concrete already)."""
    if not env:
        return [n.shape for n in nodes]
    return [tuple(d if type(d) is int else evaluate_dim(d, env) for d in n.shape) for n in nodes]


def bind(sched: Schedule, nodes: list, env: dict) -> Bound:
    """Compute the meta array of ``sched`` for the graph ``nodes`` at sizes ``env``
    (int64 words in an ``array.array``: its address is cheap to read, a numpy array's
    is not)."""
    shapes = node_shapes(nodes, env)
    meta = array.array("q", bytes(8 * max(bytecode.meta_size(sched), 1)))
    g = _Graph(nodes, shapes)
    kernels = [_bind_kernel(k, sched, g, meta) for k in sched.kernels]
    for i, (k, kb) in enumerate(zip(sched.kernels, kernels)):
        pos = sched.meta_size + 2 * i
        meta[pos:pos + 2] = array.array("q", bytecode.choose_axis(k, kb.sizes, [st for _, st in kb.loads]))
    return Bound(meta, [shapes[j] for j in sched.buffers], kernels)


class _Graph:
    """Nodes with their concrete shapes, and each node's position."""

    def __init__(self, nodes: list, shapes: list) -> None:
        self.nodes, self.shapes = nodes, shapes
        self._index = None

    def shape_of(self, node) -> tuple:
        if self._index is None:
            self._index = {id(n): i for i, n in enumerate(self.nodes)}
        return self.shapes[self._index[id(node)]]


def _bind_kernel(k: Kernel, sched, g: _Graph, meta) -> KernelBinding:
    # (axis None: a matrix-vector product's axis of size 1, backend/schedule.py)
    sizes = [1 if a is None else g.shapes[j][a] for j, a in k.iter_axes]
    if k.reduce in _REDUCE_NEEDS_ELEMENTS and k.n_red and 0 in sizes[k.n_out:]:
        raise ValueError(f"{k.reduce.value}() of an empty axis: the reduction has no identity")
    r = len(sizes)
    loads = [_access_strides(a, sched, g) for a in k.loads]
    soff, sst, _ = _access_strides(k.store, sched, g)
    store = (soff, list(sst) + [0] * (r - len(sst)))  # a reduction's store does not move
    accs = [(o, st) for o, st, _ in loads]
    if not k.matmul:  # a contraction keeps its m, n and k axes where its code expects them
        sizes, accs, store = _coalesce(sizes, accs, store, k.n_out)
    pos = k.meta_base
    words = list(sizes)
    load_pos = []
    for (off, st), (_, _, dyn) in zip(accs, loads):
        load_pos.append((pos + len(words), st))
        words.append(off)
        words += st
        for stride, size in dyn:
            words += (stride, size)
    store_pos = pos + len(words)
    words.append(store[0])
    words += store[1]
    meta[pos:pos + len(words)] = array.array("q", words)
    return KernelBinding(sizes, load_pos, (store_pos, store[1]))


def _access_strides(a: Access, sched: Schedule, g: _Graph):
    """(offset, strides over the iteration axes, [(stride, size) per data-indexed
    axis]) of one access, in elements."""
    shape = g.shapes[sched.buffers[a.buf]]
    strides = _c_strides(shape)
    off = 0
    for v in a.chain:
        if type(v) is tuple:
            shape, strides, off = _part_view(g, g.nodes[v[0]], v[1], shape, strides, off)
        else:
            shape, strides, off = apply_view(g.nodes[v], shape, strides, off, g.shapes[v])
    it = [0 if ax is None else strides[ax] for ax in a.imap]
    return off, it, [(strides[ax], shape[ax]) for ax in a.dyn]


def _part_view(g: _Graph, root, part: int, shape, strides, off):
    """The region of a multi-part root's buffer that part ``part`` writes."""
    if root.op is Op.UPDATE:
        region = _slice(root.arg, shape, strides, off)
        if tuple(region[0]) != g.shape_of(root.srcs[1]):
            raise ValueError(f"cannot assign an array of shape {g.shape_of(root.srcs[1])} to a "
                             f"region of shape {tuple(region[0])}")
        return region
    axis = root.arg
    start = sum(g.shape_of(s)[axis] for s in root.srcs[:part])
    src_shape = g.shape_of(root.srcs[part])
    for ax, (n, m) in enumerate(zip(shape, src_shape)):
        if ax != axis and n != m:
            raise ValueError(f"concat: part {part} has shape {src_shape}, which does not match "
                             f"{tuple(shape)} outside axis {axis}")
    return src_shape, strides, off + start * strides[axis]


def _size(shape) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


def _c_strides(shape) -> list:
    st, acc = [0] * len(shape), 1
    for i in range(len(shape) - 1, -1, -1):
        st[i] = acc
        acc *= shape[i]
    return st


def apply_view(v, shape, strides, off, out_shape):
    """One view op on a strided description ``(shape, strides, offset)``."""
    op = v.op
    if op is Op.RESHAPE:  # the scheduler only lets reshape see contiguous input
        # Symbolic target sizes are only known now: a size mismatch would read out of bounds.
        if _size(shape) != _size(out_shape):
            raise ValueError(f"cannot reshape array of shape {tuple(shape)} into shape "
                             f"{tuple(out_shape)}")
        return out_shape, _c_strides(out_shape), off
    if op is Op.PERMUTE_DIMS:
        return out_shape, [strides[a] for a in v.arg], off
    if op is Op.EXPAND_DIMS:
        st, it = [], iter(strides)
        for i in range(len(out_shape)):
            st.append(0 if i in v.arg else next(it))
        return out_shape, st, off
    if op is Op.SQUEEZE:
        for a in v.arg:
            if shape[a] != 1:
                raise ValueError(f"squeeze: axis {a} has size {shape[a]}, expected 1")
        return out_shape, [s for i, s in enumerate(strides) if i not in v.arg], off
    if op is Op.BROADCAST_TO:
        lead = len(out_shape) - len(shape)
        st = [0] * lead
        for i, (n, s) in enumerate(zip(shape, strides)):
            m = out_shape[lead + i]
            if n != m and n != 1:
                raise ValueError(f"cannot broadcast shape {tuple(shape)} to {tuple(out_shape)}")
            st.append(s if n == m and n != 1 else 0)
        return out_shape, st, off
    if op is Op.SLICE:
        return _slice(v.arg, shape, strides, off)
    raise AssertionError(f"not a view: {op}")


def _slice(items, shape, strides, off):
    """Basic indexing: ('i', index) drops an axis, ('s', start, stop, step) keeps one."""
    st, out = [], []
    for ax, it in enumerate(items):
        n, s = shape[ax], strides[ax]
        if it[0] == "i":
            i = it[1] + n if it[1] < 0 else it[1]
            if not 0 <= i < n:
                raise IndexError(f"index {it[1]} is out of bounds for axis {ax} with size {n}")
            off += i * s
        else:
            start, stop, step = slice(it[1], it[2], it[3]).indices(n)
            m = len(range(start, stop, step))
            if m:
                off += start * s
            # Past one element a step is shorter than the axis; at most one element
            # never steps, so a huge step (2**62, fine in Python) becomes 1: strides
            # and offsets stay within the axis's own, which fit int64.
            st.append(s * step if m > 1 else s)
            out.append(m)
    st.extend(strides[len(items):])
    out.extend(shape[len(items):])
    return tuple(out), st, off


def _coalesce(sizes, accs, store, n_out):
    """Merge adjacent iteration axes that every access walks contiguously.

    Done separately for the output axes and the reduced axes (the store's
    strides over reduced axes are 0, so it never blocks a merge there); the
    kernel's rank is fixed, so merged axes become leading size-1 axes.
    """
    if n_out <= 1 and len(sizes) - n_out <= 1:  # one axis a group: nothing to merge
        return sizes, accs, store
    all_st = [a[1] for a in accs] + [store[1]]
    new_sizes, new_st = [], [[] for _ in all_st]
    for lo, hi in ((0, n_out), (n_out, len(sizes))):
        gs = list(sizes[lo:hi])
        gst = [list(st[lo:hi]) for st in all_st]
        if 0 not in gs:
            keep = [i for i, n in enumerate(gs) if n != 1]
            gs = [gs[i] for i in keep]
            gst = [[st[i] for i in keep] for st in gst]
            for i in range(len(gs) - 1, 0, -1):
                if all(st[i - 1] == st[i] * gs[i] for st in gst):
                    gs[i - 1] *= gs[i]
                    del gs[i]
                    for st in gst:
                        st[i - 1] = st[i]
                        del st[i]
        pad = (hi - lo) - len(gs)
        new_sizes += [1] * pad + gs
        for out, st in zip(new_st, gst):
            out.extend([0] * pad + st)
    out_accs = [(a[0], st) for a, st in zip(accs, new_st[:-1])]
    return new_sizes, out_accs, (store[0], new_st[-1])


def pack_scalars(sched: Schedule, nodes: list) -> bytes:
    """The scalar slots of a run, each value stored in its dtype."""
    return pack_values([(nodes[j].value, nodes[j].dtype) for j in sched.scalars])


def pack_values(scalars: list) -> bytes:
    """The scalar slots holding ``scalars`` ((value, dtype) pairs), in order."""
    if not scalars:
        return _EMPTY_SLOT
    parts = []
    for v, d in scalars:
        pack = _PACKERS.get(d.name)
        if pack is not None and type(v) in (int, float, bool):
            try:
                parts.append(pack(v))
                continue
            except (OverflowError, struct.error):  # e.g. 1e300 as float32: numpy gives inf
                pass
        raw = np.asarray(v, dtype=d.np).tobytes()  # complex, numpy scalars, uint64, ...
        parts.append(raw + bytes(SCALAR_SLOT - len(raw)))
    return b"".join(parts)


def scalar_packer(dtypes: list) -> Callable[[list], bytes]:
    """``pack_values`` for scalars of ``dtypes``, as a function of their values (one
    float64 or int64, the commonest, packed straight)."""
    if len(dtypes) == 1:
        only = _PACKERS.get(dtypes[0].name)
        if only is not None:
            d = dtypes[0]

            def pack_one(values: list) -> bytes:
                v = values[0]
                if type(v) in (int, float, bool):
                    try:
                        return only(v)
                    except (OverflowError, struct.error):
                        pass
                return pack_values([(v, d)])
            return pack_one
    formats = [_FORMATS.get(d.name) for d in dtypes]
    if None in formats:
        return lambda values: pack_values(list(zip(values, dtypes)))
    # every slot in one struct call (the per-value loop cost about 0.5 us a scalar); a
    # value struct refuses (a float for an integer, 1e300 for float32, a complex) takes
    # the loop, which decides as before
    every = struct.Struct("<" + "".join(formats)).pack

    def pack_all(values) -> bytes:
        try:
            return every(*values)
        except (OverflowError, struct.error, TypeError):
            return pack_values(list(zip(values, dtypes)))
    return pack_all


# struct formats of the dtypes whose Python values pack directly (the front end checked
# integer ranges while recording; a float for float32 rounds as numpy's conversion does),
# each padded to its slot
_FORMATS = {name: fmt + f"{SCALAR_SLOT - struct.calcsize('<' + fmt)}x"
            for name, fmt in (("float64", "d"), ("float32", "f"), ("int64", "q"),
                              ("int32", "i"), ("int16", "h"), ("int8", "b"),
                              ("uint32", "I"), ("uint16", "H"), ("uint8", "B"),
                              ("bool", "?"))}
_PACKERS = {name: struct.Struct("<" + fmt).pack for name, fmt in _FORMATS.items()}
_EMPTY_SLOT = bytes(SCALAR_SLOT)


_ERR = ctypes.c_int64 * 4  # error record: code, value, bound, axis


class Runner:
    """A schedule bound to shapes with its call arguments packed: one sequencer call
    per native stage (or per chunk of a threaded kernel), one Python call per
    external step.

    ``program`` is the schedule's program code and tier state
    (``tiers.ProgramCode``: ``code``, ``run``, ``ran()``).  Safe to call from
    several threads at once: per-run state (buffers, the error record) is local
    to the call.
    """

    __slots__ = ("program", "steps", "only", "meta", "scal", "scal_addr", "allocs",
                 "in_shapes", "outputs", "schedule", "door", "runs", "bound", "chunked",
                 "new_buffer", "door_asked", "__weakref__")

    def __init__(self, program, sched: Schedule, bound: Bound, scalars: bytes) -> None:
        self.program = program  # keeps its program code (and installed kernels) alive
        self.meta = bound.meta
        self.bound = bound
        self.schedule = sched
        if program.code.later and any(k.matmul and _size(kb.sizes) >= GEMM_WAIT
                                      for k, kb in zip(sched.kernels, bound.kernels)):
            program.wait_for_gemm()
        steps = _steps(program, sched, bound, threads.num_threads())
        # the common case, one sequencer call, takes a shorter path
        self.steps, self.only = steps, steps[0] if len(steps) == 1 and type(steps[0]) is Stage \
            else None
        # one kernel split into chunks that write their own parts of the output: the front
        # door can run it (on the native pool)
        one = steps[0] if len(steps) == 1 else None
        self.chunked = one if type(one) is Chunked and one.partial is None \
            and len(one.metas) <= one.width else None  # (the door runs one round only)
        self.scal = array.array("B", scalars)
        self.scal_addr = self.scal.buffer_info()[0]
        self.allocs = [(bound.shapes[slot], sched.buffer_dtypes[slot].np)
                       for slot in range(sched.n_inputs, len(sched.buffers))]
        for step in steps:  # a row-tiled reduction's buffer holds its partials first
            if type(step) is rowtiles.Tiled:
                for slot, size in step.allocations():
                    self.allocs[slot - sched.n_inputs] = ((size,), sched.buffer_dtypes[slot].np)
        # decided once: the pool's size test would cost each run's allocations
        self.new_buffer = buffers.empty if buffers.large(self.allocs) else np.empty
        self.in_shapes = bound.shapes[:sched.n_inputs]
        self.outputs = sched.outputs
        self.door, self.runs = None, 0  # the native front door, from the second run on
        self.door_asked = False  # open_door_now was called

    def __call__(self, inputs, scalars: bytes | None = None) -> list:
        """Run once on C-contiguous ``inputs`` (numpy arrays, one per input slot);
        returns the outputs.  ``scalars`` replaces the scalar values packed at
        construction."""
        door = self.door
        if door is not None:
            out = door(*inputs) if scalars is None else door(*inputs, scalars)
            if out is not dispatch.FALLBACK:
                return [out] if len(self.outputs) == 1 else list(out)
        elif self.runs < DOOR_NOW:
            self.runs += 1
            if self.runs <= 2:
                self.program.ran()
            if self.runs == 2:  # it runs again: worth a front door, at a quiet moment
                self._open_door(scalars is not None)
            elif self.runs == DOOR_NOW:  # a loop, likely: its door now if it costs no compile
                self.open_door_now(scalars is not None, True, loaded=True)
        bufs = list(inputs)
        new = self.new_buffer
        for shape, dtype in self.allocs:
            bufs.append(new(shape, dtype))
        addr, _keep = abi.pack(bufs)
        scal = self.scal_addr if scalars is None else ctypes.c_char_p(scalars)
        err = _ERR()
        only = self.only
        if only is not None:
            if only.fn(addr, only.addr, scal, err):
                raise _error(err)
        else:
            self._run_steps(bufs, addr, scal, err)
        return [bufs[o] for o in self.outputs]

    def _open_door(self, scal_arg: bool) -> None:
        """Open the native front door in the background (the call that made this runner
        worth one does not wait for its trampoline or descriptor)."""
        native.STORE.later(self.open_door_now, scal_arg, True)

    def open_door_now(self, scal_arg: bool, unless_open: bool = False,
                      disk: bool = False, loaded: bool = False) -> None:
        """Open the native front door on the calling thread: about 16 us when its
        trampoline is loaded (else it opens once that is loaded or compiled in the
        background), for a runner about to run many times in a row (a chain's steps).
        ``disk``: a trampoline on disk is read on this thread (under a millisecond).
        ``loaded``: only if the trampoline is loaded (nothing is read or compiled)."""
        if unless_open and self.door is not None:
            return
        self.door_asked = self.door_asked or not loaded
        n = self.schedule.n_inputs

        def opened(door) -> None:
            self.door = door
        dispatch.front_door(self, list(range(n)), n, scal_arg, opened, None,
                            len(self.outputs) > 1, disk, loaded)

    def _run_steps(self, bufs: list, addr: int, scal, err) -> None:
        memo: dict = {}
        for step in self.steps:
            kind = type(step)
            if kind is ExternalStep:
                _external(step, bufs, memo)
            elif kind is Chunked or kind is rowtiles.Tiled:
                step.run(bufs, addr, scal, err)
            elif step.fn(addr, step.addr, scal, err):
                raise _error(err)


def _steps(program, sched: Schedule, bound: Bound, n_threads: int) -> list:
    """What one run calls, in order: sequencer calls on the program code (a Stage, or a
    kernel split into Chunked chunks), row tiles (backend/rowtiles.py), ExternalSteps."""
    run, code = program.run, program.code
    steps = []
    for kind, x in sched.stages:
        if kind != "native":
            steps.append(x)
            continue
        # a split takes a program of several kernels off its one native call (its front
        # door): only kernels that gain more than the Python steps cost split then
        scale = threads.OFF_DOOR if len(sched.stages) == 1 and len(x) > 1 else 1
        groups = rowtiles.find(sched, bound, x, _PARTIALS) if len(x) > 1 else {}
        p = 0
        for at, group in sorted(groups.items()):
            _native_steps(steps, program, sched, bound, x[p:at], n_threads, scale)
            metas = rowtiles.tile_metas(group, sched, bound)
            heads = [header(code, m, group.first, group.count) for m in metas]
            parts = [(slot, width, op, bound.shapes[slot]) for _, slot, width, op in group.parts]
            steps.append(rowtiles.Tiled(run, heads, metas, parts, _error, _combine))
            p = at + group.count
        _native_steps(steps, program, sched, bound, x[p:], n_threads, scale)
    return steps


def _native_steps(steps: list, program, sched: Schedule, bound: Bound, x: list,
                  n_threads: int, scale: int) -> None:
    """The steps of kernels ``x`` (consecutive, of one native stage), appended to
    ``steps``: one sequencer call, or kernels split into chunks."""
    if not x:
        return
    run, code = program.run, program.code
    plans = [_chunks(sched.kernels[i], bound.kernels[i], bound.meta, n_threads, scale)
             for i in x]
    if not any(plans):
        steps.append(Stage(run, code, bound.meta, x[0], len(x)))
        return
    for i, plan in zip(x, plans):  # kernel by kernel: chunks of one never meet another
        if plan:
            metas, partial, width, threaded = plan
            heads = [header(code, m, i, 1) for m in metas]
            # one round: the whole kernel too, for when no thread is free to take a chunk
            # (not a split full reduction: its partials' sum may differ in the last bits)
            whole = (Stage(run, code, bound.meta, i, 1)
                     if len(metas) <= width and partial is None else None)
            steps.append(Chunked(run, heads, partial, width, keep=metas,
                                 threaded=threaded, whole=whole))
        else:
            steps.append(Stage(run, code, bound.meta, i, 1))


def header(code, meta: array.array, first: int, count: int) -> array.array:
    """The sequencer's second argument: program code, meta array, kernels to run."""
    return array.array("q", (code.address, meta.buffer_info()[0], first, count))


class Stage:
    """Kernels ``first .. first + count - 1`` of program code: one sequencer call
    ``fn(buffers, addr, scalars, error record)``."""

    __slots__ = ("fn", "header", "addr", "meta")

    def __init__(self, fn, code, meta, first: int, count: int) -> None:
        self.fn, self.meta = fn, meta
        self.header = header(code, meta, first, count)
        self.addr = self.header.buffer_info()[0]


_COMBINE = {Op.SUM: np.add, Op.PROD: np.multiply, Op.MAX: np.maximum, Op.MIN: np.minimum,
            Op.ANY: np.logical_or, Op.ALL: np.logical_and,
            Op.MEAN: None}  # a mean: its chunk means weighted by their sizes (see _combine)
# reductions whose partials over row tiles combine without weights (backend/rowtiles.py)
_PARTIALS = frozenset(op for op, fn in _COMBINE.items() if fn is not None)


def _kind(k: Kernel, sizes: list) -> str:
    """The kernel's row of the thread thresholds (see threads.NATIVE_MIN)."""
    if k.matmul:  # its sizes are (batch..., m, n, k)
        return "reduce" if 1 in sizes[k.n_out - 2:k.n_out] else "matmul"
    if any(ins[0] == "op" and ins[1] in TRANSCENDENTAL for ins in k.body):
        return "math"
    return "reduce" if k.n_red and not k.scan else "light"


def _chunks(k: Kernel, kb: KernelBinding, meta, n_threads: int, scale: int = 1):
    """(meta arrays per chunk, partial-result rule or None), or None to run whole;
    ``scale`` multiplies the least work a split needs.

    Splits the outermost output axis longer than 1; a kernel without one (a
    full reduction) splits its outermost reduced axis and writes one partial
    per chunk, when its reduction has an order-free combine.
    """
    total = _size(kb.sizes)
    if total < 2 * threads.LEAST:  # too small for any table: the common case, decided early
        return None
    kind = _kind(k, kb.sizes)
    slices = -(-total // threads.SLICE[kind])  # a long kernel runs in rounds (see Chunked)
    if n_threads < 2 and slices < 2:
        return None
    table = threads.NATIVE_MIN if parallel.available() else threads.PYTHON_MIN
    least = table[kind] * scale
    if total < 2 * least:
        return None
    py_least = threads.PYTHON_MIN[kind]
    sizes, partial = kb.sizes, None
    axis = next((a for a in range(k.n_out) if sizes[a] > 1), None)
    if axis is None:  # (an epilogue applies to the whole result, not to a chunk's)
        if k.reduce not in _COMBINE or k.scan or k.matmul or k.post:
            return None
        axis = next((a for a in range(k.n_out, len(sizes)) if sizes[a] > 1), None)
        if axis is None:
            return None
        part = "math" if kind == "math" else "other"
        least = max(least, table["partial"][part])
        py_least = max(py_least, threads.PYTHON_MIN["partial"][part])
    width = threads.chunk_count(total, sizes[axis], n_threads, least)
    count = -(-slices // width) * width  # whole rounds of ``width`` chunks
    if min(count, sizes[axis]) < 2:
        return None
    align = threads.ALIGN
    if k.matmul:  # its rows split at multiples of its register tile's rows
        from .tiling import split_rows  # not at import (its dataclass: ~5 ms)
        align = split_rows(k.out_dtype.name)
    chunks = threads.bounds(sizes[axis], count, align)
    if len(chunks) < 2:  # the alignment left one chunk: a split would only cost (a 64x64
        return None      # tanh as one chunk through the pool ran 15.7 -> 24.4 us)
    if k.matmul and len(chunks) > 1 and chunks[-1][1] == 1:
        # a one-row product takes the GEMM routine's vector-matrix path, which sums
        # over k in one block: the last row joins the chunk before it
        chunks[-2:] = [(chunks[-2][0], chunks[-2][1] + 1)]
    if axis >= k.n_out:
        # a chunk's mean is weighted by its share of the elements
        weights = [length / sizes[axis] for _, length in chunks] if k.reduce is Op.MEAN else None
        partial = (k.store.buf, k.out_dtype.np, k.reduce, int(meta[kb.store[0]]), weights)
    metas = []
    for start, length in chunks:
        m = array.array("q", meta)
        m[k.meta_base + axis] = length
        for pos, st in kb.loads + [kb.store]:
            m[pos] += start * st[axis]
        if partial:
            m[kb.store[0]] = 0  # each chunk's partial is its own one-element buffer
        metas.append(m)
    # sized for the native pool: until it is loaded, a kernel too small for the Python
    # pool runs whole on this thread (see Chunked.run)
    return metas, partial, width, total >= 2 * py_least


class Chunked:
    """One kernel run as chunks, each a sequencer call on a header of its own: on the
    native pool (backend/parallel.py), else on the Python thread pool
    (backend/threads.py).  ``metas`` are the headers; ``keep`` what they point to.

    The chunks run in rounds of ``width`` (one a thread): a long kernel has more chunks
    than threads (threads.SLICE), and between rounds Python runs a pending signal
    handler, so Ctrl-C raises KeyboardInterrupt after one round, with every chunk
    started so far finished (none writes into the run's buffers once they are freed).
    """

    __slots__ = ("fn", "metas", "partial", "width", "fn_addr", "meta_addrs", "metas_addr",
                 "keep", "threaded", "whole")

    def __init__(self, fn, metas: list, partial, width: int, keep=None,
                 threaded: bool = True, whole: "Stage | None" = None) -> None:
        self.fn, self.metas, self.partial, self.keep = fn, metas, partial, keep
        self.width = width
        self.threaded = threaded  # worth the Python pool (else run whole while it is used)
        self.whole = whole  # the kernel unsplit (a one-round kernel), or None
        self.fn_addr = ctypes.cast(fn, ctypes.c_void_p).value
        self.meta_addrs = np.array([m.buffer_info()[0] for m in metas], np.int64)
        self.metas_addr = self.meta_addrs.ctypes.data

    def run(self, bufs: list, addr: int, scal, err) -> None:
        pool = parallel.pool()
        whole = self.whole
        if whole is not None and (not self.threaded if pool is None else not pool.allowed()):
            # No worker to take a chunk (the pool's code is still compiling and the kernel
            # is small for the Python pool, or other processes keep the cores busy): one
            # call, without splitting (a 10x1000 softmax at load 4: 146 -> 67 us).
            if whole.fn(addr, whole.addr, scal, err):
                raise _error(err)
            return
        n = len(self.metas)
        if self.partial is None:
            head = abi.pack(bufs)
            packed = [head] * n
        else:
            slot, dtype, op, off, weights = self.partial
            parts = np.empty(n, dtype)
            packed = [abi.pack(bufs[:slot] + [parts[c:c + 1]] + bufs[slot + 1:])
                      for c in range(n)]
        if pool is not None:
            self._run_native(pool, packed, scal)
        else:
            self._run_threads(packed, scal)
        if self.partial is not None:
            bufs[slot].reshape(-1)[off] = _combine(op, parts, weights)

    def _rounds(self) -> range:
        return range(0, len(self.metas), self.width)

    def _run_native(self, pool, packed: list, scal) -> None:
        n, w = len(self.metas), self.width
        # the chunks' heads, then their error records (4 words each, zeroed): one ctypes
        # block, addressed by arithmetic (a numpy array's .ctypes.data costs 1.7-2.5 us,
        # and three of them a run made a 64x64 product's split lose under jit)
        block = (ctypes.c_int64 * (5 * n))()
        block[0:n] = [p[0] for p in packed]
        heads = ctypes.addressof(block)
        errs = heads + 8 * n
        scal = scal if isinstance(scal, int) else ctypes.cast(scal, ctypes.c_void_p).value
        for c in self._rounds():
            m = min(w, n - c)
            bad = pool.run(pool.addr, pool.workers, self.fn_addr, heads + 8 * c,
                           self.metas_addr + 8 * c, scal, errs + 32 * c, m)
            if bad:
                at = n + 4 * (c + bad - 1)
                raise _error(block[at:at + 4])

    def _run_threads(self, packed: list, scal) -> None:
        errs = [_ERR() for _ in self.metas]
        fn = self.fn
        calls = [functools.partial(fn, p[0], m.buffer_info()[0], scal, e)
                 for p, m, e in zip(packed, self.metas, errs)]
        for c in self._rounds():
            part = slice(c, c + self.width)
            for code, e in zip(threads.run(calls[part]), errs[part]):
                if code:
                    raise _error(e)


def _combine(op: Op, parts: np.ndarray, weights=None):
    """The partials of a split reduction combined in chunk order."""
    if op is Op.MEAN:
        return np.add.reduce(parts * np.asarray(weights, parts.real.dtype))
    r = _COMBINE[op].reduce(parts)
    if r == 0 and op in (Op.MAX, Op.MIN) and parts.dtype.kind == "f":
        # like the kernel (llvm.maximum/minimum): +0.0 is above -0.0
        signs = np.signbit(parts[parts == 0])
        r = parts.dtype.type(-0.0 if (signs.all() if op is Op.MAX else signs.any()) else 0.0)
    return r


def _error(err) -> Exception:
    """The exception for an error record a kernel filled in (code, value, bound, axis)."""
    code, value, bound, axis = err
    if code == abi.ERR_INDEX:
        return IndexError(f"index {value} is out of bounds for axis {axis} with size {bound}")
    if code == abi.ERR_NO_MEMORY:
        return MemoryError("a kernel could not allocate its scratch memory")
    if code == abi.ERR_LAYOUT:
        return RuntimeError("internal error: a matrix product's operands have a layout its "
                            "kernel does not handle (please report this)")
    return RuntimeError(f"compiled program reported error code {code}")


def _external(step: ExternalStep, bufs: list, memo: dict) -> None:
    """Run an external function on its input buffers, writing its output buffer."""
    fn = step.fn
    key = (fn.name, fn.params, step.inputs)
    result = memo.get(key)
    if result is None:
        result = fn.fn(*[bufs[s] for s in step.inputs], *fn.params)
        memo[key] = result
    if fn.output is not None:
        result = result[fn.output]
    out = bufs[step.out]
    result = np.asarray(result)
    if result.shape != out.shape:
        raise RuntimeError(f"external {fn!r} returned shape {result.shape}, expected {out.shape}")
    np.copyto(out, result, casting="unsafe")
