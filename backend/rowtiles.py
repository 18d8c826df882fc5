"""Row tiles: a product of a large matrix and a vector (or a narrow matrix: see
``MAX_COLUMNS``), the work on its result row by row and a second product that contracts
the same matrix's rows with that result (``X.T @ f(X @ w)``: the gradient of least
squares, or of a linear model's loss) run tile by tile over the rows of ``X``.  Each tile of
rows is read from memory by the first product and again from cache by the second, so
``X`` crosses the memory bus once instead of twice.

A group is consecutive kernels of a program: the product ``X @ W`` (over the rows of
``X``; ``W`` a vector or a matrix of a few columns), up to ``MAX_BETWEEN`` kernels that
work row by row (elementwise, or reducing within each row: a softmax's max and sum), full
reductions over the rows (a loss), and the product ``X.T @ R`` (the same matrix,
transposed, contracting its rows with ``R``); some work lies between the two products
(those kernels, or the first product's epilogue: backend/epilogue.py).  Every kernel's
outermost axis longer than 1 walks the rows (``c`` elements per row: 1, or the row's
length where its axes were coalesced); every read of what the group wrote stays within
the rows that were written, and every buffer it writes is written whole rows at a time.
Each tile runs the group's kernels on its rows: the binding's meta array copied with the
rows' sizes and offsets (as a chunk across threads is), so the interpreter and compiled
kernels run it alike.  The second product and each full reduction write one partial
result per tile; the partials are added in tile order once every tile ran.  Tiles depend
on the sizes only, so the result has the same bits at any thread count and in every tier;
against the products run whole it differs by summation order (a reduction's allowed
difference).
"""
from __future__ import annotations

import array
import ctypes
from typing import Callable, Optional

import numpy as np

from . import parallel

TILE_BYTES = 1 << 19  # rows of X per tile: within one core's L2 with room to spare
LEAST_BYTES = 1 << 22  # a smaller X stays in cache between the two products anyway
MAX_BETWEEN = 6  # kernels between the two products
# Columns of W.  Groups with W of several columns are correct (tests raise this), but
# measured slower than the products run whole once those take the GEMM routine's direct
# path (2000^2 X, 2-10 columns: 2.4-3.5 ms tiled against 1.7-3.2 whole): the second
# product's partials (columns x width per tile) cost more than the second pass over X.
MAX_COLUMNS = 1
_FLOATS = ("float32", "float64")


class Counts:
    """Groups formed (bindings that tile) and their runs since the process began."""

    __slots__ = ("groups", "runs")

    def __init__(self) -> None:
        self.groups = self.runs = 0


COUNTS = Counts()


class Group:
    """Kernels ``first .. first + count - 1`` run tile by tile (``tiles``: (start, rows)
    each; ``axes``: each kernel's (axis along the rows, elements per row on it)).
    ``parts``: (kernel index, buffer slot, width, reduction op) of the kernels that
    reduce over the rows (the closing product, full reductions such as a loss): each
    writes ``width`` elements per tile into its slot, which holds every tile's partial
    until they are combined."""

    __slots__ = ("first", "count", "axes", "tiles", "parts")

    def __init__(self, first: int, count: int, axes: list, tiles: list, parts: list) -> None:
        self.first, self.count, self.axes, self.tiles = first, count, axes, tiles
        self.parts = parts


def find(sched, bound, kernels: list, combinable: frozenset) -> dict:
    """The groups among ``kernels`` (consecutive kernel indices of one native stage):
    {position in ``kernels`` of a group's first kernel: Group}.  ``combinable``: the
    reductions whose partials may be combined (a full reduction in a group)."""
    found: dict = {}
    p = 0
    while p < len(kernels):
        group = _group_at(sched, bound, kernels, p, combinable)
        if group is None:
            p += 1
            continue
        found[p] = group
        p += group.count
    return found


class _State:
    """A group under construction: what it wrote (slot: (offset, pitch): the elements
    from one row to the next), read, and reduced over the rows (full reductions' slots:
    complete only once every tile ran, so no kernel of the group may read them); its
    kernels' (axis, elements per row) and partials."""

    __slots__ = ("rows", "written", "read", "reduced", "axes", "parts")

    def __init__(self, rows: int) -> None:
        self.rows = rows
        self.written: dict = {}
        self.read: set = set()
        self.reduced: set = set()
        self.axes: list = []
        self.parts: list = []


def _group_at(sched, bound, kernels: list, p: int, combinable) -> Optional[Group]:
    first = kernels[p]
    k, kb = sched.kernels[first], bound.kernels[first]
    if not _product(k, kb, epilogue=True) \
            or sched.buffer_dtypes[k.store.buf].name not in _FLOATS:
        return None
    rows, cols = kb.sizes[0], kb.sizes[2]
    x = _matrix_load(kb, 0, 2)
    if x is None or k.loads[1 - x].buf == k.loads[x].buf:
        return None
    xslot, (xpos, xst) = k.loads[x].buf, kb.loads[x]
    if abs(xst[2]) != 1:  # rows of X strided (X.T's rows are X's columns): whole is faster
        return None
    row_bytes = cols * np.dtype(sched.buffer_dtypes[xslot].np).itemsize
    length = max(8, (TILE_BYTES // max(row_bytes, 1)) // 8 * 8)
    if rows * row_bytes < LEAST_BYTES or rows < 2 * length:
        return None
    meta, state = bound.meta, _State(rows)
    if not _add(state, k, kb, 0, 1, meta):
        return None
    for q in range(p + 1, min(p + 2 + MAX_BETWEEN, len(kernels))):
        i = kernels[q]
        if i != first + (q - p):
            return None
        kq, kbq = sched.kernels[i], bound.kernels[i]
        if kq.matmul:
            if q == p + 1 and not k.post:  # no work between the products (measured:
                return None  # X @ (X.T @ w) at 2000^2 ran slower tiled, 3.6 against 2.6 ms)
            return _closing(sched, bound, kernels, p, q, cols, (xslot, meta[xpos], xst),
                            state, length)
        role = _row_axis(kq, kbq, rows, combinable)
        if role is None or not _aligned(kq, kbq, role, meta, state):
            return None
        axis, per_row = role
        if kq.n_out == 0:  # a full reduction over the rows: a partial per tile
            if not _stores_fresh(kq, state) or not _partial_store(sched, bound, kq, kbq, 1):
                return None
            state.parts.append((i, kq.store.buf, 1, kq.reduce))
            state.reduced.add(kq.store.buf)
            state.read.update(a.buf for a in kq.loads)
            state.axes.append(role)
        elif not _add(state, kq, kbq, axis, per_row, meta):
            return None
    return None


def _add(state: _State, k, kb, axis: int, per_row: int, meta) -> bool:
    """Take ``k`` (its loads checked) into the group: its store and further outputs
    (backend/merge.py: stored through load entries) must be buffers no earlier kernel
    of the group touched, written whole rows at a time."""
    stores = [(k.store.buf, kb.store)] + [(k.loads[j].buf, kb.loads[j]) for _, j in k.outs]
    if len({buf for buf, _ in stores}) != len(stores):
        return False
    written = {}
    for buf, (pos, st) in stores:
        pitch = _whole_rows(kb.sizes, st, axis, per_row, k.n_out)
        if pitch is None or not _fresh(buf, state):
            return False
        written[buf] = (meta[pos], pitch)
    state.written.update(written)
    state.read.update(a.buf for a in k.loads)
    state.axes.append((axis, per_row))
    return True


def _whole_rows(sizes, st, axis: int, per_row: int, n_out: int) -> Optional[int]:
    """The pitch (elements from one row to the next) of a store that writes its rows
    whole and contiguously (C order over the output axes), else None."""
    inner = sorted((st[j], sizes[j]) for j in range(n_out) if j != axis and sizes[j] > 1)
    extent = 1
    for stride, size in inner:
        if stride != extent:
            return None
        extent *= size
    return per_row * st[axis] if st[axis] == extent else None


def _closing(sched, bound, kernels, p, q, cols, xref, state, length) -> Optional[Group]:
    """The group ending at ``kernels[q]`` when that product is ``X.T @ R``."""
    i = kernels[q]
    k, kb = sched.kernels[i], bound.kernels[i]
    rows = state.rows
    if not _product(k, kb) or kb.sizes[2] != rows or kb.sizes[0] != cols \
            or sched.buffer_dtypes[k.store.buf].name not in _FLOATS:
        return None
    x = _matrix_load(kb, 2, 0)
    if x is None:
        return None
    xslot, xoff, xst = xref
    (pos, st), v = kb.loads[x], 1 - x
    # the same matrix, transposed: its rows along this product's k axis
    if k.loads[x].buf != xslot or bound.meta[pos] != xoff or st[2] != xst[0] \
            or st[0] != xst[2]:
        return None
    width = cols * kb.sizes[1]
    if not _aligned(k, kb, (2, 1), bound.meta, state, only=(v,)) \
            or not _stores_fresh(k, state) or not _partial_store(sched, bound, k, kb, width):
        return None
    tiles = [(s, min(length, rows - s)) for s in range(0, rows, length)]
    if tiles[-1][1] == 1:  # a one-row product would take another path of the routine
        tiles[-2:] = [(tiles[-2][0], tiles[-2][1] + 1)]
    parts = state.parts + [(i, k.store.buf, width, k.reduce)]
    return Group(kernels[p], q - p + 1, state.axes + [(2, 1)], tiles, parts)


def _partial_store(sched, bound, k, kb, width: int) -> bool:
    """``k`` writes ``width`` elements in C order from the start of a buffer of its own
    (which then has room for a partial per tile)."""
    slot = k.store.buf
    pos, st = kb.store
    if k.matmul:  # (m, n, k): the (m, n) result, k not moving
        contiguous = st[1] == 1 or kb.sizes[1] == 1
        contiguous = contiguous and (st[0] == kb.sizes[1] or kb.sizes[0] == 1)
    else:
        contiguous = True  # a full reduction: one element
    return (contiguous and slot >= sched.n_inputs and slot not in sched.unwritten
            and bound.meta[pos] == 0 and _size(bound.shapes[slot]) == width
            and not k.store.into_part())


def _size(shape) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


def _product(k, kb, epilogue: bool = False) -> bool:
    """``k`` is a plain matrix product over (m, n, k), n at most ``MAX_COLUMNS``; with
    ``epilogue``, it may have one (backend/epilogue.py): a pass over the rows it wrote,
    reading other arrays at the same rows (the group's first product: not the last,
    whose result is the sum of every tile's partial)."""
    return (k.matmul and k.n_out == 2 and k.n_red == 1 and len(kb.sizes) == 3
            and kb.sizes[1] <= MAX_COLUMNS and not k.outs
            and (len(k.loads) == 2 and not k.post or epilogue and bool(k.post))
            and not any(a.dyn for a in k.loads) and not k.store.into_part())


def _matrix_load(kb, rows_axis: int, cols_axis: int) -> Optional[int]:
    """The load (0 or 1) that moves along both axes (the matrix) while the other does
    not move along the product's m axis (0); None otherwise."""
    for x in (0, 1):
        st, other = kb.loads[x][1], kb.loads[1 - x][1]
        if st[rows_axis] and st[cols_axis]:
            return x if other[0] == 0 else None
    return None


def _row_axis(k, kb, rows: int, combinable) -> Optional[tuple]:
    """(axis, elements per row) of a kernel that works row by row: its outermost axis
    longer than 1 has a multiple of ``rows`` elements, and it is elementwise, reduces
    within rows (that axis an output one) or is a full reduction whose partials combine
    (no gather or scan)."""
    if k.matmul or k.scan or any(a.dyn for a in k.loads) or k.store.into_part() \
            or (k.outs and k.n_red):
        return None
    axis = next((a for a, n in enumerate(kb.sizes) if n > 1), None)
    if axis is None or kb.sizes[axis] % rows:
        return None
    if k.n_out == 0 and k.reduce not in combinable:
        return None
    if k.n_out and axis >= k.n_out:
        return None
    return axis, kb.sizes[axis] // rows


def _aligned(k, kb, role: tuple, meta, state: _State, only=None) -> bool:
    """Every load of ``k`` (or of ``only``) from a buffer the group wrote stays within
    the rows that were written (the same offset and pitch, and its other axes within a
    row), and none reads a full reduction of the group."""
    axis, per_row = role
    for j in (range(len(k.loads)) if only is None else only):
        buf = k.loads[j].buf
        if buf in state.reduced:
            return False
        got = state.written.get(buf)
        if got is None:
            continue
        pos, st = kb.loads[j]
        if (meta[pos], per_row * st[axis]) != got or st[axis] <= 0:
            return False
        spread = 0
        for a, (n, stride) in enumerate(zip(kb.sizes, st)):
            if a != axis and n > 1:
                if stride < 0:
                    return False
                spread += (n - 1) * stride
        if spread >= st[axis]:
            return False
    return True


def _stores_fresh(k, state: _State) -> bool:
    """``k`` writes a buffer no earlier kernel of the group reads or writes."""
    return _fresh(k.store.buf, state)


def _fresh(buf: int, state: _State) -> bool:
    return buf not in state.written and buf not in state.read and buf not in state.reduced


def tile_metas(group: Group, sched, bound) -> list:
    """Per tile, the meta array with the group's kernels on the tile's rows (each
    reduction over the rows writing the tile's partial)."""
    metas = []
    for t, (start, rows) in enumerate(group.tiles):
        m = array.array("q", bound.meta)
        for i, (axis, per_row) in zip(range(group.first, group.first + group.count),
                                      group.axes):
            kb = bound.kernels[i]
            m[sched.kernels[i].meta_base + axis] = rows * per_row
            for pos, st in kb.loads + [kb.store]:
                m[pos] += start * per_row * st[axis]
        for i, _, width, _ in group.parts:
            m[bound.kernels[i].store[0]] = t * width
        metas.append(m)
    return metas


class Tiled:
    """A group's run: its tiles on the native pool's threads (each tile writes its own
    rows and its own partials, in any order), then each reduction's partials combined in
    tile order into the first elements of its buffer, which stands for the result from
    then on.
    ``heads``: the sequencer's header per tile; ``keep``: the meta arrays they point
    to; ``parts``: (slot, width, op, shape) per reduction over the rows; ``combine(op,
    partials)``: a full reduction's partials combined (the runtime's, as for a
    reduction split across threads)."""

    __slots__ = ("fn", "fn_addr", "heads", "keep", "addrs", "addrs_at", "parts", "error",
                 "combine")

    def __init__(self, fn, heads: list, keep: list, parts: list, error: Callable,
                 combine: Callable) -> None:
        self.fn, self.heads, self.keep, self.parts = fn, heads, keep, parts
        self.error, self.combine = error, combine
        self.fn_addr = ctypes.cast(fn, ctypes.c_void_p).value
        self.addrs = np.array([h.buffer_info()[0] for h in heads], np.int64)
        self.addrs_at = self.addrs.ctypes.data
        COUNTS.groups += 1

    def allocations(self) -> list:
        """(slot, elements) of the buffers that hold partials."""
        return [(slot, len(self.heads) * width) for slot, width, _, _ in self.parts]

    def run(self, bufs: list, addr: int, scal, err) -> None:
        COUNTS.runs += 1
        pool = parallel.pool()
        n = len(self.heads)
        if pool is not None:
            self._run_pool(pool, addr, scal, n)
        else:
            for head in self.addrs.tolist():
                if self.fn(addr, head, scal, err):
                    raise self.error(err)
        for slot, width, op, shape in self.parts:
            flat = bufs[slot]
            parts = flat.reshape(n, width)
            flat[:width] = (np.add.reduce(parts, axis=0) if width > 1
                            else self.combine(op, parts.reshape(n)))
            bufs[slot] = flat[:width].reshape(shape)  # (a view: later kernels read flat)

    def _run_pool(self, pool, addr: int, scal, n: int) -> None:
        # one call: a chunk per thread, each running the tiles it claims from a shared
        # counter (parallel.py's tile loop; a call offers each worker one chunk only)
        w = min(pool.workers + 1, n)
        ctx = (ctypes.c_int64 * 5)(0, n, self.fn_addr, addr, self.addrs_at)
        block = (ctypes.c_int64 * (6 * w))()  # chunk heads, metas, then error records
        block[0:w] = [ctypes.addressof(ctx)] * w
        at = ctypes.addressof(block)
        scal = scal if isinstance(scal, int) else ctypes.cast(scal, ctypes.c_void_p).value
        bad = pool.run(pool.addr, pool.workers, pool.tile_loop, at, at + 8 * w, scal,
                       at + 16 * w, w)
        if bad:
            e = 2 * w + 4 * (bad - 1)
            raise self.error(block[e:e + 4])
