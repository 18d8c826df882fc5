"""Split a graph into fused kernels.

A kernel is one loop nest: ``n_out`` outer axes (the shape it writes) and
``n_red`` inner axes it reduces over.  Its body is a small SSA list of
instructions evaluated at every point of the iteration space; loads read a
buffer through an *access*: the chain of view nodes between the buffer and
the load, plus a map from iteration axes to the viewed array's axes.  The
strides of an access are computed in Python when the program is bound to
concrete shapes, so the generated code never depends on sizes, strides,
offsets or view parameters: those are runtime arguments.

Everything here is decided from the graph's structure alone (ops, dtypes,
ranks, reduction axes, topology), which is what the structural key of
``cache.graph_key`` captures; a graph with the same key gets the same
schedule, indexed by topological position.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Optional

from .ir import (ARG_REDUCE, COSTLY, CONTRACT, ELEMENTWISE, REDUCE, ROOT_OPS, SCAN, VIEW,
                 External, Node, Op, ScalarType)

SCALAR_SLOT = 16  # bytes per runtime scalar argument: room for a complex128
_CONTIG_VIEWS = frozenset({Op.RESHAPE, Op.EXPAND_DIMS, Op.SQUEEZE})


@dataclass(frozen=True)
class Access:
    """How one load or store addresses a buffer.

    ``chain``: topological indices of view nodes, applied from the buffer up; a
    store into one part of a multi-part root has ``(root index, part)`` instead.
    ``imap``: for each iteration axis, the axis of the viewed array it walks
    (``None``: the access does not move along that axis, stride 0).
    """

    buf: int
    chain: tuple
    imap: tuple
    dyn: tuple = ()   # axes of the viewed array indexed by data (gathers)


@dataclass(frozen=True)
class Kernel:
    """One fused loop nest writing one buffer."""

    n_out: int
    n_red: int
    reduce: Optional[Op]          # None for elementwise kernels; SUM for matmul
    body: tuple                   # instructions, see ``_BodyBuilder``
    loads: tuple                  # Access per load instruction
    value: int                    # body index of the value stored / accumulated
    store: Access
    out_dtype: ScalarType
    iter_axes: tuple              # (node index, axis) giving each iteration size
    meta_base: int                # first slot of this kernel in the meta array
    scan: bool = False            # store the running reduction at every step
    matmul: bool = False          # a contraction: emitted as a cache-blocked i-k-j loop nest

    @property
    def meta_size(self) -> int:
        """Sizes, then per load: offset, strides, (stride, size) per data-indexed
        axis; then the store's offset and strides (over every iteration axis)."""
        r = self.n_out + self.n_red
        return r + sum(r + 1 + 2 * len(a.dyn) for a in self.loads) + (r + 1)

    def signature(self) -> tuple:
        """What the generated code depends on (no node indices, no view chains)."""
        return (self.n_out, self.n_red, self.reduce, self.scan, self.matmul, self.body,
                tuple((a.buf, len(a.dyn)) for a in self.loads), self.value, self.store.buf,
                self.out_dtype.name, self.meta_base)


@dataclass(frozen=True)
class ExternalStep:
    """A call of an External on input buffers, writing one output buffer."""

    fn: External
    inputs: tuple                 # buffer slots
    out: int                      # buffer slot


@dataclass
class Schedule:
    """Kernels and external steps in execution order, plus the program's buffer
    and scalar slots.  ``stages`` groups them: ``("native", [kernel numbers])``
    runs one compiled entry function, ``("external", ExternalStep)`` one call."""

    kernels: list
    stages: list
    buffers: list                 # node index per buffer slot
    buffer_dtypes: list           # ScalarType per buffer slot
    n_inputs: int                 # buffers[:n_inputs] are leaves (bound values)
    scalars: list                 # node index per scalar slot
    outputs: list                 # buffer slot per program output
    meta_size: int
    materialized: frozenset = field(default_factory=frozenset)

    def signature(self) -> tuple:
        """Key of the native code: equal signatures share one compiled program."""
        stages = tuple((kind, tuple(x) if kind == "native" else None) for kind, x in self.stages)
        return (tuple(k.signature() for k in self.kernels), stages, len(self.buffers),
                self.n_inputs, len(self.scalars), self.meta_size)

    @property
    def name(self) -> str:
        """The program's entry symbol: a digest of ``signature``, computed once."""
        name = self.__dict__.get("_name")
        if name is None:
            digest = hashlib.sha1(repr(self.signature()).encode()).hexdigest()[:20]
            name = self.__dict__["_name"] = "lazyarray_" + digest
        return name


def schedule(nodes: list, outputs: list) -> Schedule:
    """Schedule the graph ``nodes`` (topological order) computing ``outputs``.

    ``outputs`` are indices into ``nodes``.  Nodes that must be materialised
    (kernel roots) are found by a fixpoint: start from the outputs and every
    reduction/contraction, and add any computed node that would otherwise be
    evaluated in two different contexts (two kernels, or two view paths).
    """
    index = {id(n): i for i, n in enumerate(nodes)}
    roots = {i for i in outputs if not _is_leafish(nodes[i])}
    roots.update(i for i, n in enumerate(nodes) if n.op in ROOT_OPS and not n.is_buffer)
    while True:
        builders, extra = _build_all(nodes, index, roots)
        if not extra:
            break
        roots |= extra
    return _assemble(nodes, index, outputs, roots, builders)


def _is_leafish(n: Node) -> bool:
    return n.is_buffer or n.op in (Op.DATA, Op.SCALAR)


def _parts(n: Node) -> int:
    """How many kernels write the buffer of root ``n`` (0 for an external call)."""
    if n.op is Op.EXTERNAL:
        return 0
    if n.op is Op.UPDATE:
        return 2  # copy the array, then write the region
    if n.op is Op.CONCAT:
        return len(n.srcs)
    return 1


def _build_all(nodes, index, roots):
    """Build every kernel body; return the builders per root and nodes to materialise."""
    seen_ctx: dict[int, tuple] = {}
    extra: set[int] = set()
    builders = {}
    for r in sorted(roots):
        n = nodes[r]
        if n.op is Op.EXTERNAL:
            # External functions read whole arrays: anything else is materialised first.
            extra.update(index[id(s)] for s in n.srcs
                         if not _is_leafish(s) and index[id(s)] not in roots)
            builders[r] = []
            continue
        parts = []
        for part in range(_parts(n)):
            b = _BodyBuilder(nodes, index, roots, r, seen_ctx, extra, part)
            b.build()
            parts.append(b)
        builders[r] = parts
    return builders, extra


class _BodyBuilder:
    """Descends from a kernel root, fusing elementwise ops and pushing views to loads.

    Instructions (tuples):
      ('load', dtype, load_no)             element of a buffer through an Access
      ('scalar', dtype, node_index)        a runtime scalar argument
      ('op', Op, dtype, (src ids), srcdt)  an elementwise op; srcdt: dtype of src 0
      ('gather', dtype, load_no, (index ids), (axis labels))  an element at data-given
                                           positions; labels name the axes in errors
    """

    def __init__(self, nodes, index, roots, root, seen_ctx, extra, part=0):
        self.nodes, self.index, self.roots, self.root = nodes, index, roots, root
        self.seen_ctx, self.extra, self.part = seen_ctx, extra, part
        self.body: list = []
        self.loads: list = []
        self.memo: dict = {}
        self.store_chain: tuple = ()
        self.scan = self.matmul = False

    def build(self) -> None:
        node = self.nodes[self.root]
        n_shape = len(node.shape)
        if node.op in SCAN:
            src = node.srcs[0]
            axis = node.arg
            kept = tuple(a for a in range(len(src.shape)) if a != axis)
            self.imap = kept + (axis,)
            self.value = self._expr(self.index[id(src)], (), self.imap)
            self.iter_axes = tuple((self.index[id(src)], a) for a in self.imap)
            self.n_out, self.n_red = len(kept), 1
            self.reduce = Op.SUM if node.op is Op.CUMULATIVE_SUM else Op.PROD
            self.scan = True
            self.store_imap = self.imap
        elif node.op in REDUCE or node.op in ARG_REDUCE:
            src = node.srcs[0]
            axes, _keep = node.arg
            kept = tuple(a for a in range(len(src.shape)) if a not in axes)
            self.imap = kept + tuple(axes)
            self.value = self._expr(self.index[id(src)], (), self.imap)
            self.iter_axes = tuple((self.index[id(src)], a) for a in self.imap)
            self.n_out, self.n_red, self.reduce = len(kept), len(axes), node.op
            self.store_imap = _reduce_store_imap(node, kept)
        elif node.op in CONTRACT:
            self._build_matmul(node)
        elif node.op is Op.UPDATE or node.op is Op.CONCAT:
            self._build_part(node)
        else:
            ident = tuple(range(n_shape))
            self.value = self._expr(self.root, (), ident, top=True)
            self.iter_axes = tuple((self.root, a) for a in ident)
            self.n_out, self.n_red, self.reduce = n_shape, 0, None
            self.store_imap = ident

    def _build_matmul(self, node: Node) -> None:
        a, b = node.srcs
        r = len(a.shape)
        batch = tuple(range(r - 2))
        ia, ib = self.index[id(a)], self.index[id(b)]
        for i in (ia, ib):
            if not _is_leafish(self.nodes[i]) and not self._view_over_buffer(i):
                self.extra.add(i)
        map_a = batch + (r - 2, None, r - 1)
        map_b = batch + (None, r - 1, r - 2)
        va = self._expr(ia, (), map_a)
        vb = self._expr(ib, (), map_b)
        self.value = self._emit(("op", Op.MULTIPLY, node.dtype, (va, vb), node.dtype))
        self.iter_axes = tuple((ia, k) for k in batch) + ((ia, r - 2), (ib, r - 1), (ia, r - 1))
        self.n_out, self.n_red, self.reduce = r, 1, Op.SUM
        self.store_imap = tuple(range(r))
        self.matmul = True

    def _build_part(self, node: Node) -> None:
        """One source of a multi-part root, written through a view of its buffer."""
        if node.op is Op.UPDATE and self.part == 0:
            src, self.store_chain = node.srcs[0], ()
        else:
            src = node.srcs[1] if node.op is Op.UPDATE else node.srcs[self.part]
            self.store_chain = ((self.root, self.part),)
        i = self.index[id(src)]
        ident = tuple(range(len(src.shape)))
        self.value = self._expr(i, (), ident)
        self.iter_axes = tuple((i, a) for a in ident)
        self.n_out, self.n_red, self.reduce = len(ident), 0, None
        self.store_imap = ident

    def _view_over_buffer(self, i: int) -> bool:
        n = self.nodes[i]
        while n.op in VIEW and not n.is_buffer and self.index[id(n)] not in self.roots:
            n = n.srcs[0]
        return _is_leafish(n) or self.index[id(n)] in self.roots

    def _emit(self, ins: tuple) -> int:
        self.body.append(ins)
        return len(self.body) - 1

    def _expr(self, i: int, path: tuple, imap: tuple, top: bool = False) -> int:
        """Body id of node ``i`` seen through views ``path`` (root side first)."""
        # Iterative post-order over (node, path): deep graphs must not recurse.
        stack = [(i, path, top, False)]
        while stack:
            j, p, is_top, ready = stack.pop()
            key = (j, p, imap)
            n = self.nodes[j]
            if ready:
                self.memo[key] = self._lower(j, n, p, imap, is_top)
                continue
            if key in self.memo:
                continue
            deps = self._deps(j, n, p, imap, is_top)
            stack.append((j, p, is_top, True))
            stack.extend((dj, dp, False, False) for dj, dp in deps
                         if (dj, dp, imap) not in self.memo)
        return self.memo[(i, path, imap)]

    def _deps(self, j, n, p, imap, is_top):
        """Sub-expressions node ``j`` needs, or [] when it lowers to a leaf."""
        if n.op is Op.SCALAR or n.is_buffer or (j in self.roots and not is_top):
            return []
        if n.op in VIEW:
            src = self.index[id(n.srcs[0])]
            if self._must_materialize_view_src(n):
                self.extra.add(src)
            return [(src, p + (j,))]
        if n.op is Op.GATHER:
            if p:  # views above a gather would need index arithmetic on its output
                self.extra.add(j)
                return []
            if self._gather_source(n) is None:
                return []  # its source is being materialised: this pass is redone
            return [(self.index[id(s)], p) for s in n.srcs[1:]]
        if n.op in ELEMENTWISE:
            ctx = (self.root, self.part, p, imap)
            prev = self.seen_ctx.setdefault(j, ctx)
            if prev != ctx and not is_top:
                self.extra.add(j)
            return [(self.index[id(s)], p) for s in n.srcs]
        raise AssertionError(f"unexpected {n.op} inside a kernel")  # roots cover the rest

    def _gather_source(self, n: Node):
        """(buffer index, view chain) that gather ``n`` reads, or None when its
        source is a computed array, which is then marked for materialisation."""
        chain, x = [], n.srcs[0]
        while not _is_leafish(x) and self.index[id(x)] not in self.roots:
            if x.op not in VIEW:
                self.extra.add(self.index[id(x)])
                return None
            if self._must_materialize_view_src(x):  # e.g. a reshape of a strided view
                self.extra.add(self.index[id(x.srcs[0])])
                return None
            chain.append(self.index[id(x)])
            x = x.srcs[0]
        return self.index[id(x)], tuple(reversed(chain))

    def _must_materialize_view_src(self, v: Node) -> bool:
        src = v.srcs[0]
        if _is_leafish(src) or self.index[id(src)] in self.roots:
            return False
        if v.op is Op.RESHAPE:
            n = src
            while n.op in _CONTIG_VIEWS and not n.is_buffer and self.index[id(n)] not in self.roots:
                n = n.srcs[0]
            return not (_is_leafish(n) or self.index[id(n)] in self.roots)
        if v.op is Op.BROADCAST_TO:
            return self._costly_below(src)
        return False

    def _costly_below(self, n: Node) -> bool:
        stack, seen = [n], set()
        while stack:
            m = stack.pop()
            if id(m) in seen or _is_leafish(m) or self.index[id(m)] in self.roots:
                continue
            seen.add(id(m))
            if m.op in COSTLY:
                return True
            stack.extend(m.srcs)
        return False

    def _lower(self, j, n, p, imap, is_top):
        if n.op is Op.SCALAR:
            return self._emit(("scalar", n.dtype, j))
        if n.is_buffer or (j in self.roots and not is_top) or j in self.extra:
            # (a node just marked for materialisation loads too: this pass is redone)
            self.loads.append((j, tuple(reversed(p)), imap, ()))
            return self._emit(("load", n.dtype, len(self.loads) - 1))
        if n.op is Op.GATHER:
            return self._lower_gather(n, p, imap)
        if n.op in VIEW:
            return self.memo[(self.index[id(n.srcs[0])], p + (j,), imap)]
        srcs = tuple(self.memo[(self.index[id(s)], p, imap)] for s in n.srcs)
        return self._emit(("op", n.op, n.dtype, srcs, n.srcs[0].dtype))


    def _lower_gather(self, n: Node, p: tuple, imap: tuple) -> int:
        src = self._gather_source(n)
        if src is None:  # placeholder value: the pass is redone with the source materialised
            return self._emit(("scalar", n.dtype, self.index[id(n)]))
        buf, chain = src
        gathered, other_map, labels = n.arg
        others = [b for b in range(len(n.srcs[0].shape)) if b not in gathered]
        out_to_x = {o: b for b, o in zip(others, other_map)}
        ximap = tuple(out_to_x.get(t) for t in imap)
        self.loads.append((buf, chain, ximap, tuple(gathered)))
        idx = tuple(self.memo[(self.index[id(s)], p, imap)] for s in n.srcs[1:])
        return self._emit(("gather", n.dtype, len(self.loads) - 1, idx, labels))


def _reduce_store_imap(node: Node, kept: tuple) -> tuple:
    axes, keep = node.arg
    if not keep:
        return tuple(range(len(kept)))
    return kept  # with keepdims the kept axes keep their positions


def _assemble(nodes, index, outputs, roots, builders) -> Schedule:
    """Number buffers and scalars, lay out the meta array, order kernels into stages."""
    order = sorted(roots)
    parts = [b for r in order for b in builders[r]]
    buffers: list[int] = []
    slot: dict[int, int] = {}
    leaves = [ld[0] for b in parts for ld in b.loads if ld[0] not in roots]
    leaves += [index[id(s)] for r in order if nodes[r].op is Op.EXTERNAL
               for s in nodes[r].srcs if index[id(s)] not in roots]
    leaves += [o for o in outputs if o not in roots]
    for j in leaves:
        if j not in slot:
            slot[j] = len(buffers)
            buffers.append(j)
    n_inputs = len(buffers)
    for r in order:
        slot[r] = len(buffers)
        buffers.append(r)
    scalars = sorted({ins[2] for b in parts for ins in b.body if ins[0] == "scalar"})
    sslot = {j: s for s, j in enumerate(scalars)}
    kernels, stages, base = [], [], 0
    for r in order:
        if nodes[r].op is Op.EXTERNAL:
            ins = tuple(slot[index[id(s)]] for s in nodes[r].srcs)
            stages.append(("external", ExternalStep(nodes[r].arg, ins, slot[r])))
            continue
        for b in builders[r]:
            k = _kernel(b, slot, sslot, nodes[r].dtype, base)
            if not stages or stages[-1][0] != "native":
                stages.append(("native", []))
            stages[-1][1].append(len(kernels))
            kernels.append(k)
            base += k.meta_size
    dtypes = [nodes[j].dtype for j in buffers]
    return Schedule(kernels, stages, buffers, dtypes, n_inputs, scalars,
                    [slot[o] for o in outputs], base, frozenset(roots))


def _kernel(b: _BodyBuilder, slot: dict, sslot: dict, dtype: ScalarType, base: int) -> Kernel:
    body = tuple(("scalar", ins[1], sslot[ins[2]]) if ins[0] == "scalar" else ins for ins in b.body)
    loads = tuple(Access(slot[j], c, m, d) for (j, c, m, d) in b.loads)
    store = Access(slot[b.root], b.store_chain, b.store_imap)
    return Kernel(b.n_out, b.n_red, b.reduce, body, loads, b.value, store, dtype, b.iter_axes,
                  base, b.scan, b.matmul)


GEMM_DTYPES = ("float32", "float64")  # the dtypes with a GEMM routine (backend/matmul.py)


def gemm_operands(k: Kernel) -> tuple | None:
    """(load x, load y) when contraction ``k``'s body is ``load_x * load_y`` of one
    float32/float64 dtype, the output's: it then calls the GEMM routine; else None."""
    body = k.body
    if not k.matmul or len(body) != 3 or k.out_dtype.name not in GEMM_DTYPES:
        return None
    top = body[k.value]
    if top[0] != "op" or top[1] is not Op.MULTIPLY or top[2] is not k.out_dtype:
        return None
    srcs = top[3]
    if len(srcs) != 2 or srcs[0] == srcs[1]:
        return None
    loads = []
    for s in srcs:
        ins = body[s]
        if ins[0] != "load" or ins[1] is not k.out_dtype or k.loads[ins[2]].dyn:
            return None
        loads.append(ins[2])
    return loads[0], loads[1]


def kernel_entries(sched: Schedule) -> list:
    """Kernels with an entry of their own, ``<entry>_k<i>``: those sharing a stage
    (a stage of one kernel is that kernel's entry)."""
    return [i for kind, ks in sched.stages if kind == "native" and len(ks) > 1 for i in ks]
