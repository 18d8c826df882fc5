"""Matmul kernels: out[m, n] = sum_k body(m, n, k) over the last two output axes
and the one reduced axis of a ``Kernel`` with ``matmul=True``.

A body that is the product of two float32/float64 loads (``a[m, k] * b[k, n]``)
calls the GEMM routine of its dtype, ``lazyarray_gemm_<dtype>``: a library of its
own, compiled once (and kept in the disk cache) and linked into every program
that calls it, since optimising it takes a few hundred milliseconds.  It picks
a path at run time:

* ``direct`` (small or narrow problems whose B and output rows are contiguous:
  m * n * k within ``direct_work``, or n within ``narrow`` of its column tiles,
  backend/tiling.py): a register-tiled micro-kernel reads A and B in place,
  masked loads and stores cover the edges; no scratch memory.  A narrow product
  (a tall X times a W of up to 128 float64 columns with AVX-512) reads A once,
  where packing would copy all of it to use each element a few times.
* ``packed`` (everything else): the usual GotoBLAS/BLIS scheme mirrored for
  row-major output: blocks of A (MC x KC) and B (KC x NC) are copied into
  zero-padded panels of MR rows / NR columns in one malloc'd scratch area, and
  the micro-kernel runs on the panels (an A micro-panel stays in L1, the B
  block in L2).  Packing copes with any strides (transposed, broadcast,
  negative), so this path has no layout conditions.

The micro-kernel keeps an MR x NR tile of the output in vector registers and
adds ``fma(broadcast(a), b_row, acc)`` per k; each output element is summed in
blocks of KC (the standard leaves summation order open), the same blocks on both
paths: which path runs depends on m, and a threaded run splits m, so a product
gives the same bits at any thread count.  MR, NR and the blocks are chosen for
the host CPU (backend/tiling.py).  Edge tiles read only
valid elements (clamped rows, masked columns or zero padding) and write only
the valid part.  Every other body (integers, complex, casts, fused
expressions) keeps the generic blocked loop nest (``_generic``).
"""
from __future__ import annotations

from contextlib import nullcontext

from llvmlite import ir

from .abi import ERR_LAYOUT, ERR_NO_MEMORY
from .codegen import _ceil_div, _combine, _for, _min_i64 as _min, _reduce_init, reg_type
from .ir import Op
from .schedule import gemm_operands
from .tiling import tilings

I1, I32, I64 = ir.IntType(1), ir.IntType(32), ir.IntType(64)
F32, F64 = ir.FloatType(), ir.DoubleType()
PTR = ir.PointerType()

_MATMUL_NB, _MATMUL_KB = 256, 128  # generic loop: a 128 x 256 block of float64 B is 256 KB


def emit_matmul(kb, b: ir.IRBuilder, offs: list, soff: ir.Value) -> None:
    """The matmul of kernel builder ``kb`` at load offsets ``offs`` and store offset
    ``soff`` (the batch axes are already applied)."""
    fast = fast_operands(kb.k)
    if fast is None:
        _generic(kb, b, offs, soff)
        return
    x, y, ty = fast
    am, an, ak = kb.k.n_out - 2, kb.k.n_out - 1, kb.k.n_out
    sx, sy = ([kb.acc_meta[j][1 + a] for a in (am, an, ak)] for j in (x, y))
    px, py = (_elem(b, kb._buf(kb.k.loads[j].buf), offs[j], ty) for j in (x, y))
    # A is the load that does not move along n (it walks m, k), B the one that does not
    # move along m; which is which is decided at run time (the binding does not coalesce
    # a contraction's axes, so one of the two always holds).  Should neither hold, the
    # kernel reports error 3 rather than guess.
    zero = ir.Constant(I64, 0)
    xy = b.and_(b.icmp_signed("==", sx[1], zero), b.icmp_signed("==", sy[0], zero))
    yx = b.and_(b.icmp_signed("==", sy[1], zero), b.icmp_signed("==", sx[0], zero))
    with b.if_else(b.or_(xy, yx), likely=True) as (fast_path, generic):
        with fast_path:
            def pick(u, v):
                return b.select(xy, u, v)

            a_args = [pick(px, py), pick(sx[0], sy[0]), pick(sx[2], sy[2])]
            b_args = [pick(py, px), pick(sy[2], sx[2]), pick(sy[1], sx[1])]
            c_args = [_elem(b, kb._buf(kb.k.store.buf), soff, ty), kb.store_meta[1 + am],
                      kb.store_meta[1 + an]]
            sizes = [kb.sizes[am], kb.sizes[an], kb.sizes[ak]]
            err = kb.fn.args[len(kb.slots) + 2]
            b.call(gemm_function(kb.mb, ty), a_args + b_args + c_args + sizes + [err])
        with generic:
            err = kb.fn.args[len(kb.slots) + 2]
            b.store(ir.Constant(I64, ERR_LAYOUT), err)


def fast_operands(k) -> tuple | None:
    """(load x, load y, ir type) when the kernel calls the GEMM routine
    (``schedule.gemm_operands``); else None."""
    loads = gemm_operands(k)
    if loads is None:
        return None
    return loads[0], loads[1], F32 if k.out_dtype.bits == 32 else F64


def _elem(b: ir.IRBuilder, base: ir.Value, off: ir.Value, ty: ir.Type) -> ir.Value:
    return b.gep(base, [off], source_etype=ty)


# --------------------------------------------------------------------------- the GEMM routine

GEMM_ARGS = [PTR, I64, I64, PTR, I64, I64, PTR, I64, I64, I64, I64, I64, PTR]


def gemm_symbol(dtype_name: str) -> str:
    """The GEMM routine of ``dtype_name`` ("float32"/"float64") in its shared library."""
    return f"lazyarray_gemm_{dtype_name}"


def gemm_function(mb, ty: ir.Type) -> ir.Function:
    """A declaration of ``void gemm(A, sam, sak, B, sbk, sbn, C, scm, scn, M, N, K, err)``:
    C[i, j] = sum_p A[i*sam + p*sak] * B[p*sbk + j*sbn] stored at C[i*scm + j*scn]
    (strides in elements, any sign).  Sets err[0] = ERR_NO_MEMORY when scratch
    memory is not available (the output is then left unwritten).

    The routine itself lives in a library of its own (``gemm_module``), compiled
    once and shared by every program: its code is large and slow to optimise."""
    name = gemm_symbol("float32" if ty == F32 else "float64")
    fn = mb._decls.get(name)
    if fn is None:
        fn = ir.Function(mb.module, ir.FunctionType(ir.VoidType(), GEMM_ARGS), name=name)
        fn.attributes.add("nounwind")
        mb._decls[name] = fn
    return fn


def gemm_module(dtype_name: str) -> str:
    """The IR of the shared library defining ``gemm_symbol(dtype_name)``."""
    from .codegen import ModuleBuilder
    name = gemm_symbol(dtype_name)
    mb = ModuleBuilder(name)
    _Gemm(mb, F32 if dtype_name == "float32" else F64, name, exported=True)
    return str(mb.module)


def gemm_unit_ir(dtype_name: str, vector_variants: dict | None = None) -> str:
    """The IR of the GEMM routine's unit (backend/native.py)."""
    return gemm_module(dtype_name)


def gemm_libraries(sched) -> list:
    """Names of the dtypes whose GEMM library ``sched``'s code calls."""
    return sorted({k.out_dtype.name for k in sched.kernels
                   if k.matmul and fast_operands(k) is not None})


class _Gemm:
    """Emits the GEMM routine of one dtype into ``mb``'s module, as a driver and
    separate (noinline) functions for the packing, the packed micro-kernel and the
    direct path: shallow loop nests keep LLVM's compile time down."""

    def __init__(self, mb, ty: ir.Type, name: str, exported: bool = False) -> None:
        self.mb, self.ty, self.name = mb, ty, name
        self.t = tilings()["float32" if ty == F32 else "float64"]
        self.vec = ir.VectorType(ty, self.t.lanes)
        self.size = 4 if ty == F32 else 8
        self.scatter = self._function("scatter", [PTR, I64, I64, I64, I64, I1, PTR],
                                      self._scatter, cold=True)
        self.zero_fill = self._function("zero_fill", [PTR, I64, I64, I64, I64],
                                        self._zero_fill, cold=True)
        # Packing is O(mk + kn) against the O(mnk) micro-kernel: compiled for size.
        args = [PTR, PTR, I64, I64, I64, I64]
        self.pack_a = self._function("pack_a", args, self._pack_a, cold=True)
        self.pack_b = self._function("pack_b", args, self._pack_b, cold=True)
        self.tile = self._function("tile", [PTR, PTR, I64, PTR, I64, I64, I64, I64, I1, PTR],
                                   self._tile)
        self.direct = self._function("direct", [PTR, I64, I64, PTR, I64, PTR, I64, I64, I64, I64],
                                     self._direct)
        self.gemv = self._function("gemv", [PTR, I64, PTR, PTR, I64, I64, I64], self._gemv)
        self.vecmat = self._function("vecmat", [PTR, I64, PTR, I64, PTR, I64, I64], self._vecmat)
        self.fn = self._function(None, GEMM_ARGS, self._main, inline=not exported)
        if exported:
            self.fn.linkage = ""  # external: the symbol programs link against

    def _function(self, suffix, args, emit, inline=False, cold=False) -> ir.Function:
        """An internal function; ``cold`` ones (packing, edges, empty sums) are optimised
        for size: LLVM then neither vectorises nor unrolls them, which saves compile time."""
        name = self.name if suffix is None else f"{self.name}.{suffix}"
        fn = ir.Function(self.mb.module, ir.FunctionType(ir.VoidType(), args), name=name)
        fn.linkage = "internal"
        fn.attributes.add("nounwind")
        if not inline:
            fn.attributes.add("noinline")
        if cold:
            fn.attributes.add("minsize")
            fn.attributes.add("optsize")
        for a in fn.args:
            if a.type == PTR:
                a.add_attribute("noalias")
        b = ir.IRBuilder(fn.append_basic_block("entry"))
        emit(b, *fn.args)
        b.ret_void()
        return fn

    # -- small helpers
    def c64(self, v: int) -> ir.Constant:
        return ir.Constant(I64, v)

    def zero_vec(self) -> ir.Constant:
        return ir.Constant(self.vec, [ir.Constant(self.ty, 0.0)] * self.t.lanes)

    def fma(self, b, x, y, z):
        suffix = f"v{self.t.lanes}{'f32' if self.ty == F32 else 'f64'}"
        f = self.mb.declare(f"llvm.fma.{suffix}", self.vec, [self.vec] * 3)
        return b.call(f, [x, y, z])

    def splat(self, b, x):
        undef = ir.Constant(self.vec, ir.Undefined)
        v = b.insert_element(undef, x, ir.Constant(I32, 0))
        mask = ir.Constant(ir.VectorType(I32, self.t.lanes), [0] * self.t.lanes)
        return b.shuffle_vector(v, undef, mask)

    def mask(self, b, count):
        """Lanes i < count (count may be negative or exceed the width)."""
        lanes = self.t.lanes
        ivec = ir.VectorType(I64, lanes)
        idx = ir.Constant(ivec, list(range(lanes)))
        cnt = b.insert_element(ir.Constant(ivec, ir.Undefined), count, ir.Constant(I32, 0))
        cnt = b.shuffle_vector(cnt, ir.Constant(ivec, ir.Undefined),
                               ir.Constant(ir.VectorType(I32, lanes), [0] * lanes))
        return b.icmp_signed("<", idx, cnt)

    def _masked(self, op: str):
        # The (ptr, i32 align, mask, ...) form: LLVM upgrades it where the alignment
        # moved to an attribute.
        suffix = f"v{self.t.lanes}{'f32' if self.ty == F32 else 'f64'}.p0"
        mvec = ir.VectorType(I1, self.t.lanes)
        if op == "load":
            return self.mb.declare(f"llvm.masked.load.{suffix}", self.vec,
                                   [PTR, I32, mvec, self.vec], pure=False)
        return self.mb.declare(f"llvm.masked.store.{suffix}", ir.VoidType(),
                               [self.vec, PTR, I32, mvec], pure=False)

    def masked_load(self, b, p, m):
        return b.call(self._masked("load"), [p, ir.Constant(I32, self.size), m, self.zero_vec()])

    def masked_store(self, b, v, p, m):
        b.call(self._masked("store"), [v, p, ir.Constant(I32, self.size), m])

    def load_vec(self, b, p):
        """A whole vector at ``p`` (aligned to its elements only)."""
        return b.load(p, typ=self.vec, align=self.size)

    def store_vec(self, b, v, p):
        b.store(v, p, align=self.size)

    def at(self, b, p, off):
        return b.gep(p, [off], source_etype=self.ty)

    # -- the driver
    def _main(self, b, A, sam, sak, B, sbk, sbn, C, scm, scn, M, N, K, err):
        zero = self.c64(0)
        empty = b.or_(b.icmp_signed("<=", M, zero), b.icmp_signed("<=", N, zero))
        with b.if_then(empty, likely=False):
            b.ret_void()
        with b.if_then(b.icmp_signed("<=", K, zero), likely=False):
            b.call(self.zero_fill, [C, scm, scn, M, N])
            b.ret_void()
        contiguous = b.and_(b.icmp_signed("==", sbn, self.c64(1)),
                            b.icmp_signed("==", scn, self.c64(1)))
        # m*n*k <= limit, tested so that no product can wrap
        lim = self.c64(self.t.direct_work)
        mn = b.mul(M, N)
        fits = [b.icmp_signed("<=", v, lim) for v in (M, N, K)]
        small = b.and_(b.and_(fits[0], fits[1]), b.and_(fits[2], b.icmp_signed("<=", mn, lim)))
        small = b.and_(small, b.icmp_signed("<=", b.mul(mn, K), lim))
        one = self.c64(1)
        # A matrix times a vector: the tiles above would leave most lanes idle.
        gemv = b.and_(b.icmp_signed("==", N, one),
                      b.and_(b.icmp_signed("==", sak, one), b.icmp_signed("==", sbk, one)))
        with b.if_then(gemv):
            b.call(self.gemv, [A, sam, B, C, scm, M, K])
            b.ret_void()
        with b.if_then(b.and_(b.icmp_signed("==", M, one), contiguous)):
            b.call(self.vecmat, [A, sak, B, sbk, C, N, K])
            b.ret_void()
        # A transposed matrix times a vector (A's columns contiguous: X.T @ r) is the
        # vector times the matrix: C^T = B^T @ A^T, rows of A^T streamed in order.  The
        # tiles would leave all lanes but one idle (2000x200: 363 us against numpy's 58-77)
        gemv_t = b.and_(b.icmp_signed("==", N, one),
                        b.and_(b.icmp_signed("==", sam, one), b.icmp_signed("==", scm, one)))
        with b.if_then(gemv_t):
            b.call(self.vecmat, [B, sbk, A, sak, C, M, K])
            b.ret_void()
        # Few columns (``narrow`` of the direct path's column tiles at most): packing
        # would copy all of A to use each element a few times (2000^2 @ 2000x2: 5.0 ms
        # packed against numpy's 2.3); in place, A streams once.  (Both paths sum in the
        # same k blocks: the same bits.)
        t = self.t
        narrow = b.icmp_signed("<=", N, self.c64(t.narrow * t.dnv * t.lanes))
        with b.if_else(b.and_(contiguous, b.or_(small, narrow))) as (direct, packed):
            with direct:
                b.call(self.direct, [A, sam, sak, B, sbk, C, scm, M, N, K])
            with packed:
                self._packed(b, A, sam, sak, B, sbk, sbn, C, scm, scn, M, N, K, err)

    def _zero_fill(self, b, C, scm, scn, M, N):
        """C = 0 (an empty sum)."""
        z = ir.Constant(self.ty, 0.0)

        def row(b1, i, _):
            ci = self.at(b1, C, b1.mul(i, scm))

            def col(b2, j, __):
                b2.store(z, self.at(b2, ci, b2.mul(j, scn)))
                return []

            _for(b1, N, [], col)
            return []

        _for(b, M, [], row)

    # -- direct path: A and B in place, B rows and C rows contiguous
    def _direct(self, b, A, sam, sak, B, sbk, C, scm, M, N, K):
        """Row tiles outer, k blocks, column tiles inner: an mr x kc strip of A stays in
        L1 while every column tile reads it, so A streams from memory once however many
        columns (column tiles outer streamed all of A once a tile: 2000^2 @ 2000x64 lost
        to packing).  Each element is summed in the k blocks of the packed path
        (``_even_block`` of K, the first added to zeros), so a product gives the same
        bits on either path: a threaded run's row chunks may take this path where the
        whole product takes the packed one.  One column tile has no loop over them: the
        loop's live values cost a product of 16 float64 columns 8-17% on two threads."""
        nr = self.t.dnv * self.t.lanes
        with b.if_else(b.icmp_signed("<=", N, self.c64(nr))) as (one, more):
            with one:
                self._direct_nest(b, A, sam, sak, B, sbk, C, scm, M, N, K, True)
            with more:
                self._direct_nest(b, A, sam, sak, B, sbk, C, scm, M, N, K, False)

    def _direct_nest(self, b, A, sam, sak, B, sbk, C, scm, M, N, K, single: bool):
        t = self.t
        mr, nr = t.dmr, t.dnv * t.lanes
        kcb = self._even_block(b, K, t.kc, 1)
        k_blocks = _div_up(b, K, kcb)
        col_tiles = _ceil_div(b, N, nr)

        def row_tile(b1, it, _):
            i0 = b1.mul(it, self.c64(mr))
            rows = _min(b1, self.c64(mr), b1.sub(M, i0))
            a_i = self.at(b1, A, b1.mul(i0, sam))
            # Rows past the edge re-read the last valid row; their results are dropped.
            roff = [b1.mul(_min(b1, self.c64(r), b1.sub(rows, self.c64(1))), sam)
                    for r in range(mr)]
            c_i = self.at(b1, C, b1.mul(i0, scm))

            def k_block(b2, kb, __):
                p0 = b2.mul(kb, kcb)
                kc = _min(b2, kcb, b2.sub(K, p0))
                a_k = self.at(b2, a_i, b2.mul(p0, sak))
                b_k = self.at(b2, B, b2.mul(p0, sbk))
                first = b2.icmp_signed("==", kb, self.c64(0))

                def a_val(bb, r, p):
                    return bb.load(self.at(bb, a_k, bb.add(roff[r], bb.mul(p, sak))),
                                   typ=self.ty)

                def col_tile(b3, jt, ___):
                    j0 = b3.mul(jt, self.c64(nr))
                    cols = b3.sub(N, j0)
                    masks = [self.mask(b3, b3.sub(cols, self.c64(v * t.lanes)))
                             for v in range(t.dnv)]
                    b_j = self.at(b3, b_k, j0)

                    def b_vec(bb, v, p):
                        q = self.at(bb, b_j, bb.add(bb.mul(p, sbk), self.c64(v * t.lanes)))
                        return self.masked_load(bb, q, masks[v])

                    acc = self._micro(b3, mr, t.dnv, kc, a_val, b_vec)
                    self._store_masked(b3, acc, mr, t.dnv, self.at(b3, c_i, j0), scm, rows,
                                       masks, first)
                    return []

                if single:
                    col_tile(b2, self.c64(0), None)
                else:
                    _for(b2, col_tiles, [], col_tile)
                return []

            _for(b1, k_blocks, [], k_block)
            return []

        _for(b, _ceil_div(b, M, mr), [], row_tile)

    # -- vector paths: one output column (N = 1) or one output row (M = 1)
    _GEMV_ROWS, _GEMV_VECTORS = 4, 2  # rows at a time (memory streams), vectors per row
    _VECMAT_ROWS = 4  # rows of B per pass over C's row

    def _gemv(self, b, A, sam, B, C, scm, M, K):
        """C[m, 0] = sum_k A[m, k] * B[k] (A rows and B contiguous): rows in blocks
        (one B load serves a block; the rows stream from memory side by side), each a
        dot product in vector accumulators (masked at the end) summed at the end.  Rows
        past the last re-read it; their results are dropped."""
        lanes, rr, u = self.t.lanes, self._GEMV_ROWS, self._GEMV_VECTORS
        last = b.sub(M, self.c64(1))
        reduce = self.mb.declare(f"llvm.vector.reduce.fadd.v{lanes}"
                                 f"{'f32' if self.ty == F32 else 'f64'}", self.ty,
                                 [self.ty, self.vec])

        def block(b1, ib, _):
            i0 = b1.mul(ib, self.c64(rr))
            rows = [_min(b1, b1.add(i0, self.c64(r)), last) for r in range(rr)]
            a_r = [self.at(b1, A, b1.mul(i, sam)) for i in rows]

            def steps(first, masked: bool):
                def step(b2, s, acc):
                    out = list(acc)
                    s = b2.add(s, first)
                    for v in range(u):
                        k = b2.add(b2.mul(s, self.c64(u * lanes)), self.c64(v * lanes))
                        if masked:
                            msk = self.mask(b2, b2.sub(K, k))
                            load = lambda bb, p: self.masked_load(bb, p, msk)  # noqa: E731
                        else:
                            load = self.load_vec
                        xv = load(b2, self.at(b2, B, k))
                        for r in range(rr):
                            av = load(b2, self.at(b2, a_r[r], k))
                            out[r * u + v] = self.fma(b2, av, xv, acc[r * u + v])
                    return out
                return step

            # whole steps with plain loads, then the masked tail (AVX2's masked moves
            # are slow): the same lanes and order, so the same bits
            whole = b1.sdiv(K, self.c64(u * lanes))
            acc = _for(b1, whole, [self.zero_vec()] * (rr * u), steps(self.c64(0), False))
            acc = _for(b1, b1.sub(_ceil_div(b1, K, u * lanes), whole), acc, steps(whole, True))
            for r in range(rr):
                vs = acc[r * u:(r + 1) * u]
                while len(vs) > 1:
                    vs = [b1.fadd(vs[i], vs[i + 1]) for i in range(0, len(vs), 2)]
                total = b1.call(reduce, [ir.Constant(self.ty, -0.0), vs[0]])
                with b1.if_then(b1.icmp_signed("<", b1.add(i0, self.c64(r)), M)) if r \
                        else nullcontext():
                    b1.store(total, self.at(b1, C, b1.mul(rows[r], scm)))
            return []

        _for(b, _ceil_div(b, M, rr), [], block)

    def _vecmat(self, b, A, sak, B, sbk, C, N, K):
        """C[0, n] = sum_k A[0, k] * B[k, n] (B rows and C contiguous): C's row takes one
        row of B after another, ``_VECMAT_ROWS`` per pass over it, so B streams once
        in order; each element is summed over k in order."""
        lanes, kr = self.t.lanes, self._VECMAT_ROWS
        nvec = _ceil_div(b, N, lanes)
        whole = b.sdiv(N, self.c64(lanes))

        def zero(b1, j, _):
            n = b1.mul(j, self.c64(lanes))
            self.masked_store(b1, self.zero_vec(), self.at(b1, C, n), self.mask(b1, b1.sub(N, n)))
            return []
        _for(b, nvec, [], zero)

        def rows_pass(b1, k0, count: int):
            """C += A[0, k] * B[k] for k in k0 .. k0 + count - 1."""
            ks = [b1.add(k0, self.c64(r)) for r in range(count)]
            a = [self.splat(b1, b1.load(self.at(b1, A, b1.mul(k, sak)), typ=self.ty)) for k in ks]
            rows = [self.at(b1, B, b1.mul(k, sbk)) for k in ks]

            def col(b2, j, _):  # a whole vector: plain loads and stores
                n = b2.mul(j, self.c64(lanes))
                c = self.load_vec(b2, self.at(b2, C, n))
                for ar, row in zip(a, rows):
                    c = self.fma(b2, ar, self.load_vec(b2, self.at(b2, row, n)), c)
                self.store_vec(b2, c, self.at(b2, C, n))
                return []
            _for(b1, whole, [], col)

            def tail(b2, j, _):  # the last, partial vector (AVX2's masked moves are slow)
                n = b2.mul(whole, self.c64(lanes))
                msk = self.mask(b2, b2.sub(N, n))
                c = self.masked_load(b2, self.at(b2, C, n), msk)
                for ar, row in zip(a, rows):
                    c = self.fma(b2, ar, self.masked_load(b2, self.at(b2, row, n), msk), c)
                self.masked_store(b2, c, self.at(b2, C, n), msk)
                return []
            _for(b1, b1.sub(nvec, whole), [], tail)

        def block(b1, kb, _):
            rows_pass(b1, b1.mul(kb, self.c64(kr)), kr)
            return []
        _for(b, b.sdiv(K, self.c64(kr)), [], block)

        def rest(b1, r, _):
            rows_pass(b1, b1.add(b1.mul(b1.sdiv(K, self.c64(kr)), self.c64(kr)), r), 1)
            return []
        _for(b, b.srem(K, self.c64(kr)), [], rest)

    def _store_masked(self, b, acc, mr, nv, c, scm, rows, masks, first):
        """C tile = acc (``first``) or C tile + acc, for rows < ``rows`` of the tile at
        ``c`` (contiguous rows) and lanes in ``masks``; a tile has at least one row.  As
        in ``_update``, the first block adds acc to zeros (a masked-off load): the same
        bits as storing acc, and as the packed path."""
        keep = self.mask(b, b.select(first, self.c64(0), self.c64(self.t.lanes)))
        for r in range(mr):
            cr = self.at(b, c, b.mul(self.c64(r), scm))
            with b.if_then(b.icmp_signed(">", rows, self.c64(r))) if r else nullcontext():
                for v in range(nv):
                    q = self.at(b, cr, self.c64(v * self.t.lanes))
                    old = self.masked_load(b, q, b.and_(masks[v], keep))
                    self.masked_store(b, b.fadd(old, acc[r][v]), q, masks[v])

    # -- the micro-kernel
    def _micro(self, b, mr, nv, kc, a_val, b_vec):
        """acc[r][v] = sum_p a_val(p, r) * b_vec(p, v) over p < kc, by fma."""
        init = [self.zero_vec()] * (mr * nv)

        def step(bb, p, acc):
            bv = [b_vec(bb, v, p) for v in range(nv)]
            out = []
            for r in range(mr):
                a = self.splat(bb, a_val(bb, r, p))
                out.extend(self.fma(bb, a, bv[v], acc[r * nv + v]) for v in range(nv))
            return out

        flat = _for(b, kc, init, step)
        return [flat[r * nv:(r + 1) * nv] for r in range(mr)]

    # -- packed path
    def _packed(self, b, A, sam, sak, B, sbk, sbn, C, scm, scn, M, N, K, err):
        """Blocks of m (A packed once per k block), k, n (B packed per block), then the
        micro-kernel over the block's tiles; one malloc'd scratch area for the call."""
        t = self.t
        mcb = self._even_block(b, M, t.mc, t.mr)
        kcb = self._even_block(b, K, t.kc, 1)
        ncb = self._even_block(b, N, t.nc, t.nr)
        # scratch: the A block, the B block, an edge tile's results, alignment slack
        line = 64 // self.size  # elements per 64 bytes: the B panels stay aligned
        a_elems = b.mul(_ceil_div(b, b.mul(mcb, kcb), line), self.c64(line))
        b_elems = b.mul(ncb, kcb)
        elems = b.add(b.add(a_elems, b_elems), self.c64(t.mr * t.nr))
        malloc = self.mb.declare("malloc", PTR, [I64], pure=False)
        free = self.mb.declare("free", ir.VoidType(), [PTR], pure=False)
        raw = b.call(malloc, [b.add(b.mul(elems, self.c64(self.size)), self.c64(64))])
        with b.if_then(b.icmp_unsigned("==", raw, ir.Constant(PTR, None)), likely=False):
            b.store(self.c64(ERR_NO_MEMORY), err)
            b.ret_void()
        # 64-byte aligned panels: whole-vector aligned loads in the micro-kernel
        pad = b.and_(b.sub(self.c64(0), b.ptrtoint(raw, I64)), self.c64(63))
        ap = b.gep(raw, [pad], source_etype=ir.IntType(8))
        bp = self.at(b, ap, a_elems)
        scratch = self.at(b, bp, b_elems)

        def m_block(b1, ib, _):
            i0 = b1.mul(ib, mcb)
            mc = _min(b1, mcb, b1.sub(M, i0))

            def k_block(b2, kb, __):
                p0 = b2.mul(kb, kcb)
                kc = _min(b2, kcb, b2.sub(K, p0))
                first = b2.icmp_signed("==", kb, self.c64(0))
                a_src = self.at(b2, A, b2.add(b2.mul(i0, sam), b2.mul(p0, sak)))
                b2.call(self.pack_a, [ap, a_src, sam, sak, mc, kc])

                def n_block(b3, jb, ___):
                    j0 = b3.mul(jb, ncb)
                    nc = _min(b3, ncb, b3.sub(N, j0))
                    b_src = self.at(b3, B, b3.add(b3.mul(p0, sbk), b3.mul(j0, sbn)))
                    b3.call(self.pack_b, [bp, b_src, sbk, sbn, kc, nc])
                    c_blk = self.at(b3, C, b3.add(b3.mul(i0, scm), b3.mul(j0, scn)))
                    self._block(b3, ap, bp, kc, mc, nc, c_blk, scm, scn, first, scratch)
                    return []

                _for(b2, _div_up(b2, N, ncb), [], n_block)
                return []

            _for(b1, _div_up(b1, K, kcb), [], k_block)
            return []

        _for(b, _div_up(b, M, mcb), [], m_block)
        b.call(free, [raw])

    def _even_block(self, b, n, most: int, unit: int):
        """The block size splitting ``n > 0`` into the fewest blocks of at most ``most``
        (rounded up to a multiple of ``unit``, within ``most`` rounded up), all about
        equal: a ragged last block would repack the other operand for little work."""
        blocks = _ceil_div(b, n, most)
        size = _div_up(b, n, blocks)
        return b.mul(_ceil_div(b, size, unit), self.c64(unit)) if unit > 1 else size

    def _copy_panel(self, b, d, s, kc, width: int, valid, across, along):
        """Element by element: d[p*width + i] = s[p*along + i*across] for p < kc and
        i < ``valid``, zeros for i from ``valid`` to ``width`` (the edge re-reads the
        last valid element, whose value is then dropped)."""
        z = ir.Constant(self.ty, 0.0)
        off = [b.mul(_min(b, self.c64(i), b.sub(valid, self.c64(1))), across)
               for i in range(width)]
        live = [b.icmp_signed(">", valid, self.c64(i)) for i in range(width)]

        def step(b1, p, _):
            sp = self.at(b1, s, b1.mul(p, along))
            dp = self.at(b1, d, b1.mul(p, self.c64(width)))
            for i in range(width):
                v = b1.load(self.at(b1, sp, off[i]), typ=self.ty)
                b1.store(b1.select(live[i], v, z), self.at(b1, dp, self.c64(i)))
            return []

        _for(b, kc, [], step)

    def _pack_a(self, b, dst, src, sam, sak, mc, kc):
        """Panels of mr rows: element (r, p) of panel q at dst[(q*kc + p)*mr + r];
        rows past ``mc`` are zeros."""
        t = self.t

        def panel(b1, q, _):
            i0 = b1.mul(q, self.c64(t.mr))
            s = self.at(b1, src, b1.mul(i0, sam))
            d = self.at(b1, dst, b1.mul(b1.mul(q, kc), self.c64(t.mr)))
            self._copy_panel(b1, d, s, kc, t.mr, b1.sub(mc, i0), sam, sak)
            return []

        _for(b, _ceil_div(b, mc, t.mr), [], panel)

    def _pack_b(self, b, dst, src, sbk, sbn, kc, nc):
        """Panels of nr columns: element (p, c) of panel q at dst[(q*kc + p)*nr + c];
        columns past ``nc`` are zeros."""
        t = self.t

        def panel(b1, q, _):
            j0 = b1.mul(q, self.c64(t.nr))
            cols = b1.sub(nc, j0)
            s = self.at(b1, src, b1.mul(j0, sbn))
            d = self.at(b1, dst, b1.mul(b1.mul(q, kc), self.c64(t.nr)))
            unit = b1.icmp_signed("==", sbn, self.c64(1))
            with b1.if_else(unit) as (contig, strided):
                with contig:  # rows of B are contiguous: masked vector copies
                    masks = [self.mask(b1, b1.sub(cols, self.c64(v * t.lanes)))
                             for v in range(t.nv)]

                    def vrow(b2, p, __):
                        sp = self.at(b2, s, b2.mul(p, sbk))
                        dp = self.at(b2, d, b2.mul(p, self.c64(t.nr)))
                        for v in range(t.nv):
                            x = self.masked_load(b2, self.at(b2, sp, self.c64(v * t.lanes)),
                                                 masks[v])
                            b2.store(x, self.at(b2, dp, self.c64(v * t.lanes)), align=64)
                        return []

                    _for(b1, kc, [], vrow)
                with strided:
                    self._copy_panel(b1, d, s, kc, t.nr, cols, sbn, sbk)
            return []

        _for(b, _ceil_div(b, nc, t.nr), [], panel)

    def _block(self, b, ap, bp, kc, mc, nc, c, scm, scn, first, scratch):
        """The micro-kernel over every (mr x nr) tile of one packed block."""
        t = self.t

        def row_tile(b1, it, _):
            i0 = b1.mul(it, self.c64(t.mr))
            rows = _min(b1, self.c64(t.mr), b1.sub(mc, i0))
            a_p = self.at(b1, ap, b1.mul(i0, kc))
            c_i = self.at(b1, c, b1.mul(i0, scm))

            def col_tile(b2, jt, __):
                j0 = b2.mul(jt, self.c64(t.nr))
                cols = _min(b2, self.c64(t.nr), b2.sub(nc, j0))
                b_p = self.at(b2, bp, b2.mul(j0, kc))
                c_t = self.at(b2, c_i, b2.mul(j0, scn))
                b2.call(self.tile, [a_p, b_p, kc, c_t, scm, scn, rows, cols, first, scratch])
                return []

            _for(b1, _ceil_div(b1, nc, t.nr), [], col_tile)
            return []

        _for(b, _ceil_div(b, mc, t.mr), [], row_tile)

    def _tile(self, b, a_p, b_p, kc, c, scm, scn, rows, cols, first, scratch):
        """One micro-kernel call on packed panels, then the update of its C tile."""
        t = self.t

        def a_val(bb, r, p):
            return bb.load(self.at(bb, a_p, bb.add(bb.mul(p, self.c64(t.mr)), self.c64(r))),
                           typ=self.ty)

        def b_vec(bb, v, p):
            q = self.at(bb, b_p, bb.add(bb.mul(p, self.c64(t.nr)), self.c64(v * t.lanes)))
            return bb.load(q, typ=self.vec, align=64)

        if t.prefetch_c:
            self._prefetch_tile(b, c, scm, scn)
        acc = self._micro(b, t.mr, t.nv, kc, a_val, b_vec)
        self._update(b, acc, c, scm, scn, rows, cols, first, scratch)

    def _prefetch_tile(self, b, c, scm, scn):
        """Ask for the C tile's lines (for writing) before the k loop, whose hundreds of
        cycles then hide their misses.  A prefetch never faults: rows or columns past
        the edge cost nothing but the request."""
        t = self.t
        fn = self.mb.declare("llvm.prefetch.p0", ir.VoidType(), [PTR, I32, I32, I32], pure=False)
        last = b.mul(self.c64(t.nr - 1), scn)
        for r in range(t.mr):
            cr = self.at(b, c, b.mul(self.c64(r), scm))
            for q in (cr, self.at(b, cr, last)):
                b.call(fn, [q, ir.Constant(I32, 1), ir.Constant(I32, 3), ir.Constant(I32, 1)])

    def _update(self, b, acc, c, scm, scn, rows, cols, first, scratch):
        """C tile = acc (first k block) or C tile + acc, for rows < ``rows`` and columns
        < ``cols``: whole vectors when the tile is full and rows contiguous, else
        element by element through ``scratch``.  The first block adds to zeros (a
        masked-off load) instead of reading C: acc is never -0 (it starts at +0 and
        x + +0 is +0 for x = -0), so 0 + acc is acc, bit for bit."""
        t = self.t
        full = b.and_(b.and_(b.icmp_signed("==", rows, self.c64(t.mr)),
                             b.icmp_signed("==", cols, self.c64(t.nr))),
                      b.icmp_signed("==", scn, self.c64(1)))
        with b.if_else(full, likely=True) as (vec, edge):
            with vec:
                keep = self.mask(b, b.select(first, self.c64(0), self.c64(t.lanes)))
                for r in range(t.mr):
                    cr = self.at(b, c, b.mul(self.c64(r), scm))
                    for v in range(t.nv):
                        q = self.at(b, cr, self.c64(v * t.lanes))
                        b.store(b.fadd(self.masked_load(b, q, keep), acc[r][v]), q,
                                align=self.size)
            with edge:
                for r in range(t.mr):
                    for v in range(t.nv):
                        q = self.at(b, scratch, self.c64(r * t.nr + v * t.lanes))
                        b.store(acc[r][v], q, align=self.size)
                b.call(self.scatter, [c, scm, scn, rows, cols, first, scratch])

    def _scatter(self, b, c, scm, scn, rows, cols, first, scratch):
        """The rows x cols part of the tile in ``scratch`` into C at any strides."""
        t = self.t
        zero = ir.Constant(self.ty, 0.0)

        def row(b1, r, _):
            cr = self.at(b1, c, b1.mul(r, scm))
            tr = self.at(b1, scratch, b1.mul(r, self.c64(t.nr)))

            def col(b2, j, __):
                q = self.at(b2, cr, b2.mul(j, scn))
                old = b2.select(first, zero, b2.load(q, typ=self.ty))  # q is in bounds
                b2.store(b2.fadd(old, b2.load(self.at(b2, tr, j), typ=self.ty)), q)
                return []

            _for(b1, cols, [], col)
            return []

        _for(b, rows, [], row)


def _div_up(b, n, d):
    """ceil(n / d) for n >= 0 and a runtime d > 0."""
    return b.sdiv(b.add(n, b.sub(d, ir.Constant(I64, 1))), d)


# --------------------------------------------------------------------------- generic bodies

def _generic(kb, b, offs, soff):
    """out[m, n] = sum_k body(m, n, k) for the last two output axes (m, n) and the
    reduced axis k, as a zeroing pass and then blocks of n and k with m, k, n
    innermost: rows of B and of the output stay in cache and the n loop vectorises.
    Each output element still sums over k in order."""
    k = kb.k
    am, an, ak = k.n_out - 2, k.n_out - 1, k.n_out
    vdt = kb._value_dtype()
    zero = _reduce_init(Op.SUM, vdt, reg_type(vdt))
    m_size, n_size, k_size = kb.sizes[am], kb.sizes[an], kb.sizes[ak]

    def advance(bb, offs, soff, axis, i):
        noffs = [bb.add(o, bb.mul(i, m[1 + axis])) for o, m in zip(offs, kb.acc_meta)]
        return noffs, bb.add(soff, bb.mul(i, kb.store_meta[1 + axis]))

    def zero_row(bb, i, _):
        _, so = advance(bb, offs, soff, am, i)
        _for(bb, n_size, [], lambda b2, j, __: [kb._store(b2, advance(b2, [], so, an, j)[1],
                                                           zero)])
        return []

    _for(b, m_size, [], zero_row)

    def n_block(bb, nb, _):
        n0 = bb.mul(nb, ir.Constant(I64, _MATMUL_NB))
        nlen = _min(bb, ir.Constant(I64, _MATMUL_NB), bb.sub(n_size, n0))

        def k_block(b2, kblk, __):
            k0 = b2.mul(kblk, ir.Constant(I64, _MATMUL_KB))
            klen = _min(b2, ir.Constant(I64, _MATMUL_KB), b2.sub(k_size, k0))

            def row(b3, i, ___):
                o3, s3 = advance(b3, offs, soff, am, i)
                o3, _s = advance(b3, o3, s3, ak, k0)
                o3, s3 = advance(b3, o3, s3, an, n0)

                def kk(b4, j, ____):
                    o4, _s4 = advance(b4, o3, s3, ak, j)

                    def nn(b5, t, _____):
                        o5, s5 = advance(b5, o4, s3, an, t)
                        acc = kb._load_out(b5, s5)
                        kb._store(b5, s5, _combine(kb.mb, b5, Op.SUM, vdt, acc,
                                                   kb._body(b5, o5), exact=True))
                        return []

                    _for(b4, nlen, [], nn)
                    return []

                _for(b3, klen, [], kk)
                return []

            _for(b2, m_size, [], row)
            return []

        _for(bb, _ceil_div(bb, k_size, _MATMUL_KB), [], k_block)
        return []

    _for(b, _ceil_div(b, n_size, _MATMUL_NB), [], n_block)
