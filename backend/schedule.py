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

The work is linear in the size of the graph (plus the size of the schedule:
each load carries its view chain), in three passes and without recursion;
see ``schedule``.  Every kernel body has at most ``MAX_BODY`` instructions and
``MAX_LOADS`` loads, which bounds each kernel's compile (about 0.9 ms per
instruction) and the interpreter's registers (backend/bytecode.py shrinks a
kernel's blocks when it needs many).
"""
from __future__ import annotations

import math

from typing import Optional, Sequence

from .ir import (ARG_REDUCE, COSTLY, CONTRACT, ELEMENTWISE, REDUCE, ROOT_OPS, SCAN, VIEW,
                 External, Node, Op, ScalarType)

SCALAR_SLOT = 16  # bytes per runtime scalar argument: room for a complex128
# Instructions per kernel body (loads, scalars, ops, gathers).  64 cut the escape-time
# fractal's 16 iterations into 17 kernels, each writing zr, zi and count through memory:
# 136 ms at 3000x3000 compiled, 31 ms as one kernel (jax.jit 65).
MAX_BODY = 256
MAX_LOADS = 16    # loads per kernel (a gather's read of its source counts)
MAX_COPIES = 4    # kernels an elementwise node may be computed in instead of a buffer
# A costly op shared by kernels gets a buffer rather than copies when it has at most
# this many elements (a buffer in cache costs less than computing it again: Monte Carlo
# price and error at n=1e4, 41 -> 20 us; softmax and log-sum-exp of 10x1000, 20 -> 17)
# or when every kernel reading it is a reduction (their loops keep the accumulator in
# memory across vector math calls: sum(maximum(exp(.)-k, 0)) runs at half the speed of
# the elementwise kernel; Monte Carlo at n=1e7, 16 -> 10 ms).  Elementwise readers of
# large arrays keep their copies (call and put prices at 1e7: 77 ms, 93 with buffers).
SMALL_SHARED = 32_768
_CONTIG_VIEWS = frozenset({Op.RESHAPE, Op.EXPAND_DIMS, Op.SQUEEZE})


class Access:
    """How one load or store addresses a buffer.

    ``chain``: topological indices of view nodes, applied from the buffer up; a
    store into one part of a multi-part root has ``(root index, part)`` instead.
    ``imap``: for each iteration axis, the axis of the viewed array it walks
    (``None``: the access does not move along that axis, stride 0).
    ``dyn``: axes of the viewed array indexed by data (gathers).

    The records of a schedule (``Access``, ``Kernel``, ``ExternalStep``) are plain
    classes with slots, not dataclasses: each dataclass cost 0.2-0.5 ms of the import,
    and nothing changes them once made.
    """

    __slots__ = ("buf", "chain", "imap", "dyn")

    def __init__(self, buf: int, chain: tuple, imap: tuple, dyn: tuple = ()) -> None:
        self.buf, self.chain, self.imap, self.dyn = buf, chain, imap, dyn

    def into_part(self) -> bool:
        """Whether this store writes one part of a multi-part root (a concat's part, an
        update's region): other kernels write the rest of that buffer."""
        return any(type(v) is tuple for v in self.chain)

    def __repr__(self) -> str:
        return f"Access({self.buf}, {self.chain}, {self.imap}, {self.dyn})"


class Kernel:
    """One fused loop nest writing one buffer.

    ``reduce``: None for elementwise kernels, SUM for matmul; ``body``: instructions,
    see ``_BodyBuilder``; ``loads``: an Access per load instruction; ``value``: the body
    index of the value stored or accumulated; ``iter_axes``: (node index, axis) giving
    each iteration size; ``meta_base``: the kernel's first slot in the meta array;
    ``scan``: store the running reduction at every step; ``matmul``: a contraction,
    emitted as a cache-blocked i-k-j loop nest; ``spread``: the loads that broadcast
    along the innermost iteration axis (stride 0 there, by the structure of their
    views), for which the code generator emits a loop with constant strides;
    ``col_spread``: those that broadcast along the innermost output axis of a
    reduction, for its column order (the same, for the loop over a tile's columns) and a
    matrix product's pass of its epilogue;
    ``outs``: further outputs of an elementwise kernel (backend/merge.py), a (body
    index, load number) each: the value is stored where that load's access points, a
    load no instruction reads (its offset and strides move as every load's do);
    ``post``: a reduction's epilogue (backend/epilogue.py), instructions evaluated at each
    output point on its result, the first ``("acc", dtype)`` (the result, mean divided),
    the last the value stored in ``out_dtype``: its loads read at the output point (their
    strides along the reduced axes are 0; a matrix product's epilogue reads the product
    back through a load of the output)."""

    __slots__ = ("n_out", "n_red", "reduce", "body", "loads", "value", "store", "out_dtype",
                 "iter_axes", "meta_base", "scan", "matmul", "spread", "col_spread", "outs",
                 "post")

    def __init__(self, n_out: int, n_red: int, reduce: Optional[Op], body: tuple,
                 loads: tuple, value: int, store: Access, out_dtype: ScalarType,
                 iter_axes: tuple, meta_base: int, scan: bool = False,
                 matmul: bool = False, spread: tuple = (), col_spread: tuple = (),
                 outs: tuple = (), post: tuple = ()) -> None:
        self.n_out, self.n_red, self.reduce, self.body = n_out, n_red, reduce, body
        self.loads, self.value, self.store, self.out_dtype = loads, value, store, out_dtype
        self.iter_axes, self.meta_base, self.scan, self.matmul = iter_axes, meta_base, scan, matmul
        self.spread, self.col_spread, self.outs, self.post = spread, col_spread, outs, post

    def replace(self, **changes) -> "Kernel":
        """A copy with ``changes`` (field name -> value)."""
        fields = {name: getattr(self, name) for name in Kernel.__slots__}
        fields.update(changes)
        return Kernel(**fields)

    def __repr__(self) -> str:
        return (f"Kernel(n_out={self.n_out}, n_red={self.n_red}, reduce={self.reduce}, "
                f"body={self.body}, loads={self.loads}, value={self.value}, "
                f"store={self.store}, out_dtype={self.out_dtype}, post={self.post})")

    @property
    def value_dtype(self) -> ScalarType:
        """The dtype of the body's value (an op's result, a load's or a scalar's element)."""
        ins = self.body[self.value]
        return ins[2] if ins[0] == "op" else ins[1]

    @property
    def red_dtype(self) -> ScalarType:
        """The dtype of the reduction's result: ``out_dtype`` unless an epilogue follows."""
        return self.post[0][1] if self.post else self.out_dtype

    def scalar_slots(self) -> list:
        """The scalar slots the body and the epilogue read, in order."""
        return sorted({ins[2] for ins in self.body + self.post if ins[0] == "scalar"})

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
                self.out_dtype.name, self.meta_base, self.spread, self.col_spread, self.outs,
                self.post)


class ExternalStep:
    """A call of an External on input buffers (slots), writing one output buffer (slot)."""

    __slots__ = ("fn", "inputs", "out")

    def __init__(self, fn: External, inputs: tuple, out: int) -> None:
        self.fn, self.inputs, self.out = fn, inputs, out


class Schedule:
    """Kernels and external steps in execution order, plus the program's buffer
    and scalar slots.  ``stages`` groups them: ``("native", [kernel numbers])``
    runs one compiled entry function, ``("external", ExternalStep)`` one call.
    ``buffers``: node index per buffer slot (``buffers[:n_inputs]`` are leaves, bound
    values); ``buffer_dtypes``: ScalarType per slot; ``scalars``: node index per
    scalar slot; ``outputs``: buffer slot per program output; ``materialized``: the
    nodes given a buffer; ``unwritten``: those among them no kernel writes (a joined
    kernel's member that only the kernel itself reads, backend/merge.py: its buffer is
    allocated, never touched); ``premise``: the sizes this schedule assumes equal beyond
    what its graph's structure says (backend/merge.py, ``holds``): it is cached by
    structure, and another graph of that structure may run it only where they are equal.
    (A ``__dict__`` of its own holds digests computed once.)"""

    def __init__(self, kernels: list, stages: list, buffers: list, buffer_dtypes: list,
                 n_inputs: int, scalars: list, outputs: list, meta_size: int,
                 materialized: frozenset = frozenset(),
                 unwritten: frozenset = frozenset(), premise: tuple = ()) -> None:
        self.kernels, self.stages, self.buffers = kernels, stages, buffers
        self.buffer_dtypes, self.n_inputs, self.scalars = buffer_dtypes, n_inputs, scalars
        self.outputs, self.meta_size, self.materialized = outputs, meta_size, materialized
        self.unwritten, self.premise = unwritten, premise

    def __repr__(self) -> str:
        return (f"Schedule({len(self.kernels)} kernels, {len(self.buffers)} buffers, "
                f"{len(self.scalars)} scalars, outputs {self.outputs})")

    def with_outputs(self, roots: Sequence[int]) -> "Schedule":
        """This schedule with the nodes ``roots`` (indices of nodes it gives a buffer)
        as further outputs: the same kernels, so the same program code."""
        slot = {j: s for s, j in enumerate(self.buffers) if s >= self.n_inputs}
        return Schedule(self.kernels, self.stages, self.buffers, self.buffer_dtypes,
                        self.n_inputs, self.scalars, self.outputs + [slot[j] for j in roots],
                        self.meta_size, self.materialized, self.unwritten, self.premise)

    def relaid(self, stages: list, unwritten: set, premise: tuple) -> "Schedule":
        """This schedule running ``stages`` (per stage of this one: a native stage's new
        list of kernels, an external step as it is), each kernel's meta laid out anew (a
        kernel taken over is changed in place: a copy per kernel cost more than a join
        saved), with these ``unwritten`` and ``premise``."""
        kernels, out, base = [], [], 0
        for (kind, x), new in zip(self.stages, stages):
            if kind != "native":
                out.append((kind, x))
                continue
            nums = []
            for k in new:
                k.meta_base = base
                nums.append(len(kernels))
                kernels.append(k)
                base += k.meta_size
            out.append((kind, nums))
        return Schedule(kernels, out, self.buffers, self.buffer_dtypes, self.n_inputs,
                        self.scalars, self.outputs, base, self.materialized,
                        frozenset(unwritten), tuple(premise))

    def readers(self) -> dict:
        """Buffer slot -> the kernels that load it (-1: a program output or an external
        step's input: read by someone else than the kernels)."""
        readers: dict = {s: {-1} for s in self.outputs}
        for i, k in enumerate(self.kernels):
            for a in k.loads:
                readers.setdefault(a.buf, set()).add(i)
        for kind, x in self.stages:
            if kind != "native":
                for s in x.inputs:
                    readers.setdefault(s, set()).add(-1)
        return readers

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
            from .names import name_of
            name = self.__dict__["_name"] = name_of("lazyarray_", self.signature())
        return name


def schedule(nodes: list, outputs: list, key: tuple | None = None) -> Schedule:
    """Schedule the graph ``nodes`` (topological order) computing ``outputs``.

    ``outputs`` are indices into ``nodes``; ``key``, the graph's structural key
    (``cache.graph_key``), gives each computed node's sources by position, so pass 1
    need not find them.  The kernel roots (the nodes given
    a buffer) are decided before any body is built, in two linear passes:

    1. forward (``_Graph``): the roots known from node kinds alone: outputs
       that are not leaves, every reduction, scan, contraction, multi-part
       root (UPDATE, CONCAT) and external call, and the computed sources of
       external calls (they read whole arrays); and, when the graph has a
       broadcast, which nodes have a costly op below them with no leaf or
       root of this pass in between.
    2. reverse, consumers before producers (``_Planner``): every computed node
       collects the *contexts* it is evaluated in from its consumers: a kernel
       (root and part), the path of views from that kernel down to the node,
       and the map from iteration axes to the node's axes.  When a node's turn
       comes all its contexts are known, and it becomes a root when
       * it is elementwise and has two different contexts (it would be
         computed twice, or through two view paths), unless each context is
         in a kernel of its own and there are at most ``MAX_COPIES`` of them
         (two for a costly op, none when it is small or only reductions read
         it: ``SMALL_SHARED``): then each of those kernels computes it;
       * it is elementwise or a gather and fusing it would take its kernel
         past ``MAX_BODY`` instructions or ``MAX_LOADS`` loads (so a long
         chain is cut every ``MAX_BODY`` instructions at most; while a
         kernel is planned, every source not yet decided counts as a possible
         load);
       * it is a gather under a view (the views would need index arithmetic
         on its output).
       Views and gathers are otherwise evaluated in each of their contexts.
       The node being planned also forces roots below it:
       * a reshape of a computed array: the base of the chain of contiguous
         views (reshape, expand_dims, squeeze) under the reshape, unless that
         chain ends at a leaf or root (a reshape must see contiguous input);
       * a broadcast of a subexpression holding a costly op: the broadcast's
         source (computed once rather than once per broadcast element);
       * a gather: the array it reads through views must be a buffer, so the
         first computed node under those views becomes a root;
       * a matmul: an operand that is not (views over) a buffer.
       Roots are only ever added, so a rule satisfied at a node's turn holds
       for the final set too, and nothing is decided twice.
    3. each kernel's body is built once (``_BodyBuilder``): a descent from its
       root that stops at roots and leaves and pushes views down to the loads.

    Every kernel then has at most ``MAX_BODY`` instructions and ``MAX_LOADS``
    loads, unless a single gather reads more index arrays than that allows.
    """
    g = _Graph(nodes, outputs, key)
    plan = _Planner(g)
    plan.run()
    builders = {r: [_BodyBuilder(g, plan, k).build() for k in ks]
                for r, ks in plan.by_root.items()}
    return _assemble(g, outputs, builders)


# Node kinds, leaves first (``kind <= _SCALAR``: a leaf).
_LEAF, _SCALAR, _VIEW, _GATHER, _EW, _ROOT = range(6)
_KIND = {op: _EW for op in ELEMENTWISE}
_KIND.update({op: _VIEW for op in VIEW})
_KIND.update({op: _ROOT for op in ROOT_OPS})
_KIND[Op.GATHER] = _GATHER
_LEAF_OPS = frozenset({Op.SCALAR, Op.PLACEHOLDER, Op.DATA})  # leaves even without a value


class _Graph:
    """Pass 1: the graph by position: each node's kind and sources, the roots its
    kind decides (``root``, a flag per node that later passes add to) and, when
    there is a broadcast, ``costly``: a costly op lies at or below the node with
    no leaf or root in between (a broadcast of it would repeat that op)."""

    __slots__ = ("nodes", "kinds", "srcs", "root", "costly", "outs")

    def __init__(self, nodes: list, outputs: list, key: tuple | None = None) -> None:
        index: dict = {}  # nodes hash by identity, in C
        kinds: list = []
        srcs: list = []
        position = index.__getitem__
        root = bytearray(len(nodes))
        broadcasts = externals = False
        for j, n in enumerate(nodes):
            op = n.op
            if n.value is not None or op in _LEAF_OPS:
                kinds.append(_SCALAR if op is Op.SCALAR else _LEAF)
                srcs.append(())  # an evaluated node's sources are not in the graph
                if key is None:
                    index[n] = j
                continue
            kind = _KIND[op]
            kinds.append(kind)
            if key is None:
                index[n] = j
                srcs.append(tuple(map(position, n.srcs)))
            else:  # a computed node's key part ends with its sources' positions
                srcs.append(key[j][4])
            if kind == _ROOT:
                root[j] = 1
                externals = externals or op is Op.EXTERNAL
            elif op is Op.BROADCAST_TO:
                broadcasts = True
        for o in outputs:
            if kinds[o] > _SCALAR:
                root[o] = 1
        if externals:  # they read whole arrays: their computed sources are roots
            for j, n in enumerate(nodes):
                if n.op is Op.EXTERNAL and kinds[j] == _ROOT:
                    for i in srcs[j]:
                        if kinds[i] > _SCALAR:
                            root[i] = 1
        self.nodes, self.kinds, self.srcs, self.root = nodes, kinds, srcs, root
        self.outs = outputs
        self.costly = self._costly() if broadcasts else None

    def _costly(self) -> bytearray:
        nodes, kinds, srcs, root = self.nodes, self.kinds, self.srcs, self.root
        costly = bytearray(len(kinds))  # 0 for leaves and roots: they stop the search
        for j, kind in enumerate(kinds):
            if kind <= _SCALAR or root[j]:
                continue
            if nodes[j].op in COSTLY:
                costly[j] = 1
                continue
            for i in srcs[j]:
                if costly[i]:
                    costly[j] = 1
                    break
        return costly


class _KernelPlan:
    """One kernel as the reverse pass plans it.

    ``tops``: (node, context, is the root itself) per expression the body
    evaluates (two for a matmul: its operands).  ``n_body`` counts the
    instructions decided plus one per (node, context) pair still waiting for
    its node's turn (each becomes at least one instruction; a view hands its
    pair on to its source); ``n_loads`` the loads decided plus the waiting
    pairs that are not scalars (any of them may become a load).  A node is
    fused only when both counts stay within the caps, so the final body,
    whose sizes are the final counts, is within them too.
    """

    __slots__ = ("root", "part", "tops", "n_out", "n_red", "reduce", "iter_axes", "store_imap",
                 "store_chain", "scan", "matmul", "n_body", "n_loads")

    def __init__(self, root, part, n_out, n_red, reduce, iter_axes, store_imap) -> None:
        self.root, self.part, self.tops = root, part, ()
        self.n_out, self.n_red, self.reduce = n_out, n_red, reduce
        self.iter_axes, self.store_imap, self.store_chain = iter_axes, store_imap, ()
        self.scan = self.matmul = False
        self.n_body = self.n_loads = 0


class _Planner:
    """Pass 2 (see ``schedule``): nodes in reverse topological order, each decided
    (root, fused, or in no kernel) once all its consumers have been.

    Contexts are numbered: a context is a kernel with an iteration map (a base
    context) or a base context seen through a path of views, interned as
    (parent context, view) so that comparing two contexts costs the same
    however long their view paths are.  ``ctx_of[j]``: the context of node
    ``j`` (an int), a set of them, or None.
    """

    def __init__(self, g: _Graph) -> None:
        self.g = g
        self.n = len(g.kinds)
        self.ctx_of: list = [None] * self.n
        self.c_kernel: list = []   # per context: its _KernelPlan
        self.c_parent: list = []   # the context one view up (-1: a base context)
        self.c_view: list = []     # the view node between it and its parent
        self.c_imap: list = []     # iteration axis -> axis of the viewed array
        self.children: dict = {}   # parent * n + view -> context
        self.by_root: dict = {}    # root -> _KernelPlan per part ([] for an external call)
        self.contiguous = bytearray(self.n)  # contiguous views known to end at a buffer
        self.uses: Optional[list] = None  # times each node is a source (see _absorbed)

    def run(self) -> None:
        kinds, root, ctx_of = self.g.kinds, self.g.root, self.ctx_of
        for j in range(self.n - 1, -1, -1):
            kind = kinds[j]
            if kind <= _SCALAR:
                continue  # a leaf: counted as a load or scalar where it is read
            if root[j]:
                self._open(j)
                continue
            cs = ctx_of[j]
            if cs is None:
                continue  # in no kernel (a view read only by a gather, say)
            if kind == _EW:
                if self._fuse(j, cs) if type(cs) is int else self._copy(j, cs):
                    continue
                root[j] = 1  # shared too widely, or a kernel is full
                self._open(j)
            elif kind == _VIEW:
                self._view(j, cs)
            elif not self._gather(j, cs):
                root[j] = 1
                self._open(j)

    # -- contexts

    def _base(self, k: _KernelPlan, imap: tuple) -> int:
        c = len(self.c_kernel)
        self.c_kernel.append(k)
        self.c_parent.append(-1)
        self.c_view.append(-1)
        self.c_imap.append(imap)
        return c

    def child(self, c: int, v: int) -> int:
        """Context ``c`` seen through view ``v`` (a source of the node in ``c``)."""
        key = c * self.n + v
        d = self.children.get(key)
        if d is None:
            d = self.children[key] = len(self.c_kernel)
            self.c_kernel.append(self.c_kernel[c])
            self.c_parent.append(c)
            self.c_view.append(v)
            self.c_imap.append(self.c_imap[c])
        return d

    def chain(self, c: int) -> tuple:
        """The view path of context ``c`` as an access chain: buffer side first."""
        parent, view, out = self.c_parent, self.c_view, []
        while parent[c] >= 0:
            out.append(view[c])
            c = parent[c]
        return tuple(out)

    def _add(self, s: int, c: int) -> None:
        """Node ``s`` is read in context ``c``: count it there once."""
        ctx_of = self.ctx_of
        cur = ctx_of[s]
        if cur is None:
            ctx_of[s] = c
        elif cur == c:
            return
        elif type(cur) is int:
            ctx_of[s] = {cur, c}
        elif c in cur:
            return
        else:
            cur.add(c)
        k = self.c_kernel[c]
        k.n_body += 1
        if self.g.kinds[s] != _SCALAR:
            k.n_loads += 1

    def _new(self, ss: tuple, c: int) -> tuple:
        """(the nodes of ``ss`` not yet read in context ``c``, how many are not scalars)."""
        ctx_of, kinds = self.ctx_of, self.g.kinds
        new, loads = [], 0
        for s in ss:
            cur = ctx_of[s]
            if cur == c or (type(cur) is set and c in cur) or s in new:
                continue
            new.append(s)
            if kinds[s] != _SCALAR:
                loads += 1
        return new, loads

    # -- fused nodes

    def _fuse(self, j: int, c: int) -> bool:
        """Fuse elementwise ``j`` into context ``c`` if its kernel has room."""
        ctx_of, kinds = self.ctx_of, self.g.kinds
        new, loads = [], -1  # j itself becomes an op, not a load
        for s in self.g.srcs[j]:  # (as _new, inline: this is the common case)
            cur = ctx_of[s]
            if cur == c or (type(cur) is set and c in cur) or s in new:
                continue
            new.append(s)
            if kinds[s] != _SCALAR:
                loads += 1
        k = self.c_kernel[c]
        if k.n_body + len(new) > MAX_BODY or k.n_loads + loads > MAX_LOADS:
            return False
        k.n_body += len(new)
        k.n_loads += loads
        for s in new:  # as _add, knowing each pair is new
            cur = ctx_of[s]
            if cur is None:
                ctx_of[s] = c
            elif type(cur) is int:
                ctx_of[s] = {cur, c}
            else:
                cur.add(c)
        return True

    def _copy(self, j: int, cs: set) -> bool:
        """Compute elementwise ``j`` in each kernel that reads it (its sources then follow
        it there) rather than give it a buffer, when each reads it once (through one view
        path), at most ``MAX_COPIES`` kernels do (two for a costly op, and not one that
        is small or read by reductions only: ``SMALL_SHARED``), and each has room:
        several outputs sharing a subexpression then take one pass each over memory
        instead of one per shared node (call and put prices: 2 kernels, not 12)."""
        node = self.g.nodes[j]
        costly = node.op in COSTLY
        if len(cs) > (2 if costly else MAX_COPIES):
            return False
        kernels = [self.c_kernel[c] for c in cs]
        if len({id(k) for k in kernels}) != len(cs) or not all(self._room(j, c) for c in cs):
            return False
        if costly and (_elements(node.shape) <= SMALL_SHARED
                       or all(k.reduce is not None for k in kernels)):
            return False  # (see SMALL_SHARED)
        for c in cs:
            self._fuse(j, c)
        return True

    def _room(self, j: int, c: int) -> bool:
        """Whether fusing ``j`` into context ``c`` keeps its kernel within the caps."""
        new, loads = self._new(self.g.srcs[j], c)
        k = self.c_kernel[c]
        return k.n_body + len(new) <= MAX_BODY and k.n_loads + loads - 1 <= MAX_LOADS

    def _view(self, j: int, cs) -> None:
        """View ``j`` (not a root) is evaluated in each context it is read in."""
        self._view_rules(j)
        src = self.g.srcs[j][0]
        for c in ((cs,) if type(cs) is int else cs):
            k = self.c_kernel[c]
            k.n_body -= 1  # no instruction of its own: its source takes its place
            k.n_loads -= 1
            self._add(src, self.child(c, j))

    def _gather(self, j: int, cs) -> bool:
        """Gather ``j`` in each of its contexts; False when it must be a root instead."""
        cl = (cs,) if type(cs) is int else tuple(cs)
        deps = self.g.srcs[j][1:]  # the index arrays
        for c in cl:
            if self.c_parent[c] >= 0:
                return False  # under a view
            k = self.c_kernel[c]
            new, loads = self._new(deps, c)
            if k.n_body + len(new) > MAX_BODY or k.n_loads + loads > MAX_LOADS:
                return False
        self._gather_source(j)
        for c in cl:
            for s in deps:
                self._add(s, c)
        return True

    # -- rules forcing roots below

    def _view_rules(self, v: int) -> None:
        """Materialise what view ``v`` needs below it (see ``schedule``)."""
        g = self.g
        src = g.srcs[v][0]
        if g.kinds[src] <= _SCALAR or g.root[src]:
            return
        op = g.nodes[v].op
        if op is Op.RESHAPE:
            base = self._contiguous_base(src)
            if base >= 0:
                g.root[base] = 1
        elif op is Op.BROADCAST_TO and g.costly[src]:
            g.root[src] = 1

    def _contiguous_base(self, i: int) -> int:
        """The node under the chain of contiguous views from ``i`` when it is not a
        leaf or root, which the caller then materialises; else -1.  The views on the
        way are remembered as ending at a buffer, so no chain is walked twice."""
        g, known = self.g, self.contiguous
        kinds, root, srcs, nodes = g.kinds, g.root, g.srcs, g.nodes
        walked = []
        while (kinds[i] == _VIEW and not root[i] and not known[i]
               and nodes[i].op in _CONTIG_VIEWS):
            walked.append(i)
            i = srcs[i][0]
        for w in walked:
            known[w] = 1
        if kinds[i] <= _SCALAR or root[i] or known[i]:
            return -1
        return i

    def _gather_source(self, j: int) -> None:
        """Make the array gather ``j`` reads a buffer seen through views."""
        g = self.g
        kinds, root, srcs = g.kinds, g.root, g.srcs
        x = srcs[j][0]
        while kinds[x] > _SCALAR and not root[x]:
            if kinds[x] != _VIEW:
                root[x] = 1
                return
            self._view_rules(x)
            x = srcs[x][0]

    def _over_buffer(self, i: int) -> bool:
        kinds, root, srcs = self.g.kinds, self.g.root, self.g.srcs
        while kinds[i] == _VIEW and not root[i]:
            i = srcs[i][0]
        return kinds[i] <= _SCALAR or bool(root[i])

    # -- kernels

    def _kernel(self, root: int, part: int, *spec) -> _KernelPlan:
        k = _KernelPlan(root, part, *spec)
        self.by_root.setdefault(root, []).append(k)
        return k

    def _open(self, j: int) -> None:
        """Plan the kernel(s) writing root ``j``."""
        n = self.g.nodes[j]
        op = n.op
        if op is Op.EXTERNAL:
            self.by_root[j] = []  # no kernel; its computed sources are roots (pass 1)
        elif self.g.kinds[j] != _ROOT:
            self._open_fused(j, n)
        elif op in SCAN or op in REDUCE or op in ARG_REDUCE:
            self._open_reduce(j, n)
        elif op in CONTRACT:
            self._open_matmul(j, n)
        else:
            self._open_parts(j, n)

    def _open_fused(self, j: int, n: Node) -> None:
        """An elementwise, view or gather root: its kernel evaluates it on top."""
        g = self.g
        ident = tuple(range(len(n.shape)))
        k = self._kernel(j, 0, len(ident), 0, None, tuple((j, a) for a in ident), ident)
        c = self._base(k, ident)
        k.tops = ((j, c, True),)
        kind = g.kinds[j]
        if kind == _VIEW:
            self._view_rules(j)
            self._add(g.srcs[j][0], self.child(c, j))
            return
        k.n_body = 1
        if kind == _GATHER:
            k.n_loads = 1
            self._gather_source(j)
        for s in (g.srcs[j][1:] if kind == _GATHER else g.srcs[j]):
            self._add(s, c)

    def _open_reduce(self, j: int, n: Node) -> None:
        """A reduction or scan: output axes outside, reduced axes inside."""
        src = self.g.srcs[j][0]
        op = n.op
        if op in SCAN:
            axes, reduce = (n.arg,), Op.SUM if op is Op.CUMULATIVE_SUM else Op.PROD
        else:
            axes, reduce = tuple(n.arg[0]), op
        kept = tuple(a for a in range(len(n.srcs[0].shape)) if a not in axes)
        imap = kept + axes
        store = imap if op in SCAN else _reduce_store_imap(n, kept)
        k = self._kernel(j, 0, len(kept), len(axes), reduce, tuple((src, a) for a in imap), store)
        k.scan = op in SCAN
        c = self._base(k, imap)
        k.tops = ((src, c, False),)
        self._add(src, c)

    def _open_matmul(self, j: int, n: Node) -> None:
        """A contraction: body ``a * b`` summed over k, operands read from buffers.  A
        matrix times a vector (either side; one node, as recorded) runs as the product
        with a matrix of one column or row: that axis of the kernel has size 1 (its
        iteration axis names no node axis) and is not stored."""
        ia, ib = self.g.srcs[j]
        for i in (ia, ib):
            if not self._over_buffer(i):
                self.g.root[i] = 1
        r, rb = len(n.srcs[0].shape), len(n.srcs[1].shape)
        if rb == 1:  # (m, k) @ (k,)
            iter_axes, store = ((ia, 0), (ib, None), (ia, 1)), (0, None)
            amap, bmap = (0, None, 1), (None, None, 0)
        elif r == 1:  # (k,) @ (k, n)
            iter_axes, store = ((ia, None), (ib, 1), (ia, 0)), (None, 0)
            amap, bmap = (None, None, 0), (None, 1, 0)
        else:
            batch = tuple(range(r - 2))
            iter_axes = tuple((ia, a) for a in batch) + ((ia, r - 2), (ib, r - 1), (ia, r - 1))
            store = tuple(range(r))
            amap, bmap = batch + (r - 2, None, r - 1), batch + (None, r - 1, r - 2)
        k = self._kernel(j, 0, len(amap) - 1, 1, Op.SUM, iter_axes, store)
        k.matmul = True
        ca = self._base(k, amap)
        cb = self._base(k, bmap)
        k.tops = ((ia, ca, False), (ib, cb, False))
        k.n_body = 1  # the product
        self._add(ia, ca)
        self._add(ib, cb)

    def _open_parts(self, j: int, n: Node) -> None:
        """UPDATE (copy the array, then write the region) or CONCAT (one kernel per
        part): each part writes its source through a view of the root's buffer.  A
        part that is itself a CONCAT read nowhere else writes its own parts there in
        turn, with no buffer of its own and no copy (a stencil's border put back with
        nested concats: 6 kernels a sweep, one a copy of the whole interior, became 5)."""
        g = self.g
        s = g.srcs[j]
        update = n.op is Op.UPDATE
        for part in range(2 if update else len(s)):
            top = s[1] if update and part else s[part]
            work = [(top, ((j, part),) if part or not update else ())]
            while work:  # a stack, not recursion: concats may nest deeply
                src, chain = work.pop()
                if chain and self._absorbed(src, j):
                    work += reversed([(p, chain + ((src, i),))
                                      for i, p in enumerate(g.srcs[src])])
                    continue
                ident = tuple(range(len(g.nodes[src].shape)))
                k = self._kernel(j, part, len(ident), 0, None,
                                 tuple((src, a) for a in ident), ident)
                k.store_chain = chain
                c = self._base(k, ident)
                k.tops = ((src, c, False),)
                self._add(src, c)

    def _absorbed(self, i: int, j: int) -> bool:
        """Whether CONCAT ``i``, a part of multi-part root ``j``, writes its parts straight
        into ``j``'s buffer: it is read only there and is not an output, and has ``j``'s
        dtype.  It is then no root (its turn in this pass finds it in no kernel)."""
        g = self.g
        n = g.nodes[i]
        if (g.kinds[i] != _ROOT or n.op is not Op.CONCAT or i in g.outs
                or n.dtype is not g.nodes[j].dtype):
            return False
        uses = self.uses
        if uses is None:  # counted once, when a graph first has a nested concat
            uses = self.uses = [0] * self.n
            for ss in g.srcs:
                for x in ss:
                    uses[x] += 1
        if uses[i] != 1:
            return False
        g.root[i] = 0
        return True


class _BodyBuilder:
    """Pass 3: the body of one planned kernel, a descent from its top(s) that
    fuses elementwise ops and pushes views down to the loads.

    Instructions (tuples):
      ('load', dtype, load_no)             element of a buffer through an Access
      ('scalar', dtype, node_index)        a runtime scalar argument
      ('op', Op, dtype, (src ids), srcdt)  an elementwise op; srcdt: dtype of src 0
      ('gather', dtype, load_no, (index ids), (axis labels))  an element at data-given
                                           positions; labels name the axes in errors
    """

    def __init__(self, g: _Graph, plan: _Planner, k: _KernelPlan) -> None:
        self.g, self.plan, self.k = g, plan, k
        self.body: list = []
        self.loads: list = []   # (node, chain, imap, dyn) per load
        self.memo: dict = {}    # context * n + node -> body id
        self.value = -1

    def build(self) -> "_BodyBuilder":
        k = self.k
        vals = [self._expr(i, c, top) for i, c, top in k.tops]
        if k.matmul:
            dt = self.g.nodes[k.root].dtype
            vals[0] = self._emit(("op", Op.MULTIPLY, dt, tuple(vals), dt))
        self.value = vals[0]
        self.memo = None  # not kept while the other kernels are built
        return self

    def _emit(self, ins: tuple) -> int:
        self.body.append(ins)
        return len(self.body) - 1

    def _expr(self, i: int, c: int, top: bool) -> int:
        """Body id of node ``i`` in context ``c`` (``top``: ``i`` is the kernel's root)."""
        # Iterative post-order: deep graphs must not recurse.  The sources are pushed in
        # order, so the last one is lowered first.  ``memo`` is keyed by
        # context * n + node: ints, which the garbage collector does not track.
        g, plan = self.g, self.plan
        nodes, kinds, root, srcs = g.nodes, g.kinds, g.root, g.srcs
        children, n_all = plan.children, plan.n
        memo, body, loads = self.memo, self.body, self.loads
        stack = [(i, c, top, False)]
        pop, push, emit = stack.pop, stack.append, body.append
        while stack:
            j, d, is_top, ready = pop()
            kind = kinds[j]
            at = d * n_all
            if not ready:
                if at + j in memo:
                    continue
                if kind > _SCALAR and (is_top or not root[j]):  # it has sub-expressions
                    push((j, d, is_top, True))
                    if kind == _VIEW:
                        s, e = srcs[j][0], children[at + j]
                        if e * n_all + s not in memo:
                            push((s, e, False, False))
                    else:
                        for s in (srcs[j] if kind == _EW else srcs[j][1:]):
                            if at + s not in memo:
                                push((s, d, False, False))
                    continue
            n = nodes[j]
            if kind == _SCALAR:
                emit(("scalar", n.dtype, j))
            elif kind == _LEAF or (root[j] and not is_top):
                loads.append((j, plan.chain(d), plan.c_imap[d], ()))
                emit(("load", n.dtype, len(loads) - 1))
            elif kind == _EW:
                emit(("op", n.op, n.dtype, tuple([memo[at + s] for s in srcs[j]]), n.srcs[0].dtype))
            elif kind == _VIEW:  # the value of its source seen through it
                memo[at + j] = memo[children[at + j] * n_all + srcs[j][0]]
                continue
            elif kind == _GATHER:
                self._lower_gather(j, n, d)
            else:
                raise AssertionError(f"unexpected {n.op} inside a kernel")  # roots cover the rest
            memo[at + j] = len(body) - 1
        return memo[c * n_all + i]

    def _lower_gather(self, j: int, n: Node, c: int) -> int:
        g = self.g
        chain, x = [], g.srcs[j][0]
        while g.kinds[x] > _SCALAR and not g.root[x]:  # views, by pass 2
            chain.append(x)
            x = g.srcs[x][0]
        chain.reverse()
        gathered, other_map, labels = n.arg
        others = [b for b in range(len(n.srcs[0].shape)) if b not in gathered]
        out_to_x = {o: b for b, o in zip(others, other_map)}
        ximap = tuple(out_to_x.get(t) for t in self.plan.c_imap[c])
        self.loads.append((x, tuple(chain), ximap, tuple(gathered)))
        at = c * self.plan.n
        idx = tuple([self.memo[at + s] for s in g.srcs[j][1:]])
        return self._emit(("gather", n.dtype, len(self.loads) - 1, idx, labels))


def _reduce_store_imap(node: Node, kept: tuple) -> tuple:
    axes, keep = node.arg
    if not keep:
        return tuple(range(len(kept)))
    return kept  # with keepdims the kept axes keep their positions


def _assemble(g: _Graph, outputs: list, builders: dict) -> Schedule:
    """Number buffers and scalars, lay out the meta array, order kernels into stages."""
    nodes, root = g.nodes, g.root
    order = sorted(builders)
    parts = [b for r in order for b in builders[r]]
    buffers: list[int] = []
    slot: dict[int, int] = {}
    leaves = [ld[0] for b in parts for ld in b.loads if not root[ld[0]]]
    leaves += [s for r in order if nodes[r].op is Op.EXTERNAL for s in g.srcs[r] if not root[s]]
    leaves += [o for o in outputs if not root[o]]
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
            ins = tuple(slot[s] for s in g.srcs[r])
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
                    [slot[o] for o in outputs], base, frozenset(order))


def _kernel(b: _BodyBuilder, slot: dict, sslot: dict, dtype: ScalarType, base: int) -> Kernel:
    k = b.k
    body = b.body
    if sslot:  # scalars by slot, not by node
        body = [("scalar", ins[1], sslot[ins[2]]) if ins[0] == "scalar" else ins for ins in body]
    loads = tuple([Access(slot[j], c, m, d) for (j, c, m, d) in b.loads])
    store = Access(slot[k.root], k.store_chain, k.store_imap)
    inner = k.n_out + k.n_red - 1
    spread = () if k.matmul or inner < 0 else tuple(
        i for i, (_, c, m, d) in enumerate(b.loads) if not d and _spreads(b.g.nodes, c, m[inner]))
    col_spread = ()
    if k.reduce is not None and k.n_out and k.n_red and not (k.matmul or k.scan):
        col = k.n_out - 1
        col_spread = tuple(i for i, (_, c, m, d) in enumerate(b.loads)
                           if not d and _spreads(b.g.nodes, c, m[col]))
    return Kernel(k.n_out, k.n_red, k.reduce, tuple(body), loads, b.value, store, dtype,
                  k.iter_axes, base, k.scan, k.matmul, spread, col_spread)


def _spreads(nodes: list, chain: tuple, axis) -> bool:
    """Whether a load through view ``chain`` has stride 0 along iteration axis ``axis``
    of the array at the chain's top, as its broadcasts say (views other than broadcasts
    end the search: then no)."""
    for v in reversed(chain):
        n = nodes[v]
        if axis is None:
            return True
        if n.op is not Op.BROADCAST_TO:
            return False
        src = n.srcs[0].shape
        axis -= len(n.shape) - len(src)
        if axis < 0 or (src[axis] == 1 and type(src[axis]) is int):
            return True
    return axis is None


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


def _elements(shape: tuple) -> float:
    """Elements of a shape; infinite when a size is symbolic (not known to be small)."""
    n = 1
    for d in shape:
        if type(d) is not int:
            return math.inf
        n *= d
    return n
