"""The native sequencer: one function that runs any program code (backend/bytecode.py).

``i32 lazyarray_run(ptr buffers, ptr header, ptr scalars, ptr error)`` has the
signature of a compiled program's entry function (backend/abi.py), so the
native thread pool and the front door call it as they call compiled code.
``header`` is four int64 words: the program code's address, the meta array's
address, the first kernel to run and how many.  For each kernel it either
calls the compiled kernel installed in its header, or interprets it: an
odometer walks the iteration axes other than the block axis, and at each
point the kernel's instructions run on blocks of up to ``bytecode.REG_BYTES``
bytes (512 doubles; less for a kernel with many registers) along the block axis,
each a call of a building block.  So intermediates stay in blocks that fit in the
L1 cache, as in numexpr's virtual machine, and no code is generated for the
program at hand.

The sequencer is built once per machine with the building blocks; it holds
no program-specific code.
"""
from __future__ import annotations

from contextlib import contextmanager

from llvmlite import ir

from . import abi
from . import bytecode as bc
from .bytecode import REG_BYTES

I1, I8, I32, I64 = ir.IntType(1), ir.IntType(8), ir.IntType(32), ir.IntType(64)
PTR = ir.PointerType()
VOID = ir.VoidType()
SYMBOL = "lazyarray_run"

# the interpreter's per-kernel state, one int64 word each (pointers as integers)
(C_K, C_ITEMS, C_META, C_SCAL, C_ERR, C_REGS, C_SCRATCH, C_GOFFS, C_OFFS, C_IDX, C_V, C_NV,
 C_R, C_NLOADS, C_LOADS, C_SIZES, C_WORK, C_LT, C_SBASE, C_SSTV, C_BLOCK, C_WORDS) = range(22)
# a load as decoded once per run (the table C_LT points to): base address, element size,
# stride along the block axis (elements), strided-copy building block
LT_WORDS = 4


def _c(v: int) -> ir.Constant:
    return ir.Constant(I64, v)


class _F:
    """A function being built, with stack variables and structured control flow."""

    def __init__(self, module, name: str, ret, args: list, internal: bool = True) -> None:
        self.fn = ir.Function(module, ir.FunctionType(ret, args), name=name)
        if internal:
            self.fn.linkage = "internal"
            # Kept apart: inlining the helpers into each mode made LLVM take 0.37 s
            # instead of 0.1 s, for no measurable gain (the building blocks do the work).
            self.fn.attributes.add("noinline")
        self.fn.attributes.add("nounwind")
        self.entry = self.fn.append_basic_block("entry")
        body = self.fn.append_basic_block("body")
        self.b = ir.IRBuilder(body)
        self._alloca = ir.IRBuilder(self.entry)
        self._alloca_end = self._alloca.branch(body)
        self._alloca.position_before(self._alloca_end)

    def var(self, init=None, ty=I64):
        p = self._alloca.alloca(ty)
        if init is not None:
            self.b.store(init, p)
        return p

    def get(self, p, ty=I64):
        return self.b.load(p, typ=ty)

    def word(self, base, i):
        """The int64 at word ``i`` of ``base`` (a pointer)."""
        i = _c(i) if isinstance(i, int) else i
        return self.b.load(self.b.gep(base, [i], source_etype=I64), typ=I64)

    def set_word(self, base, i, v) -> None:
        i = _c(i) if isinstance(i, int) else i
        self.b.store(v, self.b.gep(base, [i], source_etype=I64))

    def ptr(self, base, i):
        """The pointer at word ``i`` of ``base``."""
        i = _c(i) if isinstance(i, int) else i
        return self.b.load(self.b.gep(base, [i], source_etype=PTR), typ=PTR)

    def at(self, base, byte_offset):
        return self.b.gep(base, [byte_offset], source_etype=I8)

    def to_ptr(self, v):
        return self.b.inttoptr(v, PTR)

    def to_int(self, p):
        return self.b.ptrtoint(p, I64)

    @contextmanager
    def if_(self, cond):
        with self.b.if_then(cond):
            yield

    def for_(self, lo, hi, step=1):
        """``for i in range(lo, hi, step)`` as a context manager yielding i."""
        return _Loop(self, lo, hi, step)

    def do_while(self):
        """A loop whose body runs, then repeats while the value given to ``again`` is true."""
        return _DoWhile(self)


class _Loop:
    def __init__(self, f: _F, lo, hi, step) -> None:
        self.f, self.lo, self.hi = f, lo, hi
        self.step = _c(step) if isinstance(step, int) else step

    def __enter__(self):
        f = self.f
        b = f.b
        self.i = f.var(self.lo)
        self.head = f.fn.append_basic_block("for")
        self.body = f.fn.append_basic_block("for.body")
        self.done = f.fn.append_basic_block("for.done")
        b.branch(self.head)
        b.position_at_end(self.head)
        i = b.load(self.i, typ=I64)
        b.cbranch(b.icmp_signed("<", i, self.hi), self.body, self.done)
        b.position_at_end(self.body)
        return i

    def __exit__(self, *exc):
        if exc[0] is not None:
            return False
        b = self.f.b
        b.store(b.add(b.load(self.i, typ=I64), self.step), self.i)
        b.branch(self.head)
        b.position_at_end(self.done)
        return False


class _DoWhile:
    def __init__(self, f: _F) -> None:
        self.f = f
        self.cond = None

    def again(self, cond) -> None:
        self.cond = cond

    def __enter__(self):
        f = self.f
        self.body = f.fn.append_basic_block("do")
        self.done = f.fn.append_basic_block("do.done")
        f.b.branch(self.body)
        f.b.position_at_end(self.body)
        return self

    def __exit__(self, *exc):
        if exc[0] is not None:
            return False
        self.f.b.cbranch(self.cond, self.body, self.done)
        self.f.b.position_at_end(self.done)
        return False


def unit_ir(vector_variants: dict | None = None) -> str:
    """The IR of the sequencer's unit (backend/native.py)."""
    return str(module())


def module(name: str = "lazyarray_sequencer") -> ir.Module:
    """The module defining ``lazyarray_run`` (it calls building blocks by address)."""
    m = ir.Module(name=name)
    build_into(m)
    return m


def build_into(m: ir.Module) -> None:
    """Define ``lazyarray_run`` (and its internal helpers) in module ``m``."""
    _Sequencer(m)


class _Sequencer:
    def __init__(self, m: ir.Module) -> None:
        self.m = m
        self.stv = self._stride_along()
        self.data = self._data()
        self.reset = self._reset()
        self.advance = self._advance()
        self.empty = self._empty()
        self.eval = self._eval_block()
        self.store = self._store_block()
        self.post = self._post_block()
        self.compiled = self._compiled()
        modes = [self._elementwise(), self._reduce(), self._arg(), self._scan()]
        self.kernel = self._kernel(modes)
        self._entry()

    # -- small helpers, each a function of the context
    def _ctx_fn(self, name, ret, extra=()):
        f = _F(self.m, name, ret, [PTR, *extra])
        return f, f.fn.args[0]

    def _stride_along(self):
        """The stride along the block axis of the access whose offset is meta[pos]."""
        f, ctx = self._ctx_fn("stride_along", I64, [I64])
        b, pos = f.b, f.fn.args[1]
        v = f.word(ctx, C_V)
        out = f.var(_c(0))
        with f.if_(b.icmp_signed(">=", v, _c(0))):
            meta = f.to_ptr(f.word(ctx, C_META))
            b.store(f.word(meta, b.add(pos, b.add(v, _c(1)))), out)
        b.ret(f.get(out))
        return f.fn

    def _data(self):
        """The data pointer of buffer slot ``slot``."""
        f, ctx = self._ctx_fn("data", PTR, [I64])
        items = f.to_ptr(f.word(ctx, C_ITEMS))
        arr = f.ptr(items, f.fn.args[1])
        f.b.ret(f.ptr(arr, abi.ARRAY_DATA // 8))
        return f.fn

    def _load_entry(self, f, ctx, l):
        loads = f.to_ptr(f.word(ctx, C_LOADS))
        return f.b.gep(loads, [f.b.mul(l, _c(bc.LOAD_WORDS))], source_etype=I64)

    def _kword(self, f, ctx, i):
        return f.word(f.to_ptr(f.word(ctx, C_K)), i)

    def _reset(self):
        """Every odometer index to 0, every offset to its access's start."""
        f, ctx = self._ctx_fn("reset", VOID)
        b = f.b
        meta, offs, idx = (f.to_ptr(f.word(ctx, c)) for c in (C_META, C_OFFS, C_IDX))
        nl = f.word(ctx, C_NLOADS)
        with f.for_(_c(0), nl) as l:
            e = self._load_entry(f, ctx, l)
            f.set_word(offs, l, f.word(meta, f.word(e, bc.L_META)))
        f.set_word(offs, nl, f.word(meta, self._kword(f, ctx, bc.K_SMETA)))
        with f.for_(_c(0), f.word(ctx, C_R)) as a:
            f.set_word(idx, a, _c(0))
        b.ret_void()
        return f.fn

    def _advance(self):
        """Step the odometer over axes [lo, hi) other than the block axis, moving every
        offset; false once it has wrapped around (then every offset is back at the start)."""
        f, ctx = self._ctx_fn("advance", I1, [I64, I64])
        b = f.b
        lo, hi = f.fn.args[1:]
        meta, offs, idx, sizes = (f.to_ptr(f.word(ctx, c)) for c in (C_META, C_OFFS, C_IDX, C_SIZES))
        nl, v = f.word(ctx, C_NLOADS), f.word(ctx, C_V)
        smeta = self._kword(f, ctx, bc.K_SMETA)
        a = f.var(b.sub(hi, _c(1)))
        top = f.fn.append_basic_block("axis")
        step = f.fn.append_basic_block("step")
        wrap = f.fn.append_basic_block("wrap")
        yes = f.fn.append_basic_block("moved")
        no = f.fn.append_basic_block("done")
        b.branch(top)
        b.position_at_end(top)
        ax = f.get(a)
        skip = f.fn.append_basic_block("skip")
        live = f.fn.append_basic_block("live")
        b.cbranch(b.icmp_signed("<", ax, lo), no, live)
        b.position_at_end(live)
        b.cbranch(b.icmp_signed("==", ax, v), skip, step)
        b.position_at_end(skip)
        b.store(b.sub(ax, _c(1)), a)
        b.branch(top)
        b.position_at_end(step)
        size = f.word(sizes, ax)

        def move(scale):
            with f.for_(_c(0), nl) as l:
                e = self._load_entry(f, ctx, l)
                st = f.word(meta, b.add(f.word(e, bc.L_META), b.add(ax, _c(1))))
                f.set_word(offs, l, b.add(f.word(offs, l), b.mul(st, scale)))
            st = f.word(meta, b.add(smeta, b.add(ax, _c(1))))
            f.set_word(offs, nl, b.add(f.word(offs, nl), b.mul(st, scale)))
        move(_c(1))
        i = b.add(f.word(idx, ax), _c(1))
        f.set_word(idx, ax, i)
        b.cbranch(b.icmp_signed("<", i, size), yes, wrap)
        b.position_at_end(wrap)
        move(b.sub(_c(0), size))
        f.set_word(idx, ax, _c(0))
        b.store(b.sub(ax, _c(1)), a)
        b.branch(top)
        b.position_at_end(yes)
        b.ret(ir.Constant(I1, 1))
        b.position_at_end(no)
        b.ret(ir.Constant(I1, 0))
        return f.fn

    def _empty(self):
        """Whether an axis in [lo, hi) has size 0."""
        f, ctx = self._ctx_fn("empty", I1, [I64, I64])
        b = f.b
        lo, hi = f.fn.args[1:]
        sizes = f.to_ptr(f.word(ctx, C_SIZES))
        out = f.var(ir.Constant(I1, 0), I1)
        with f.for_(lo, hi) as a:
            with f.if_(b.icmp_signed("==", f.word(sizes, a), _c(0))):
                b.store(ir.Constant(I1, 1), out)
        b.ret(f.get(out, I1))
        return f.fn

    def _call(self, f, fn_word, args, types):
        """Call the function whose address is the int64 ``fn_word``."""
        fty = ir.FunctionType(VOID, types)
        f.b.call(f.b.inttoptr(fn_word, fty.as_pointer()), args)

    def _eval_body(self, f, ctx, n, b0, direct):
        """Call ``eval_block`` on the kernel's body (its instructions before an epilogue's)."""
        K = f.to_ptr(f.word(ctx, C_K))
        f.b.call(self.eval, [ctx, n, b0, direct, _c(0), f.word(K, bc.K_NINS)])

    def _eval_block(self):
        """Run the kernel's instructions ``lo`` to ``hi - 1`` on the block of ``n``
        elements starting at ``b0`` along the block axis; ``direct`` (if not null) is
        where the value instruction may write its result."""
        f, ctx = self._ctx_fn("eval_block", VOID, [I64, I64, PTR, I64, I64])
        b = f.b
        n, b0, direct, lo, nins = f.fn.args[1:]
        K = f.to_ptr(f.word(ctx, C_K))
        regs, scratch, meta, offs, goffs, err, lt = (
            f.to_ptr(f.word(ctx, c)) for c in (C_REGS, C_SCRATCH, C_META, C_OFFS, C_GOFFS, C_ERR,
                                              C_LT))
        ins0 = f.word(K, bc.K_INS)
        value = f.word(K, bc.K_VALUE)
        r = f.word(ctx, C_R)
        rbytes = f.word(K, bc.K_RBYTES)
        with f.for_(lo, nins) as t:
            e = b.gep(K, [b.add(ins0, b.mul(t, _c(bc.INS_WORDS)))], source_etype=I64)
            kind, d = f.word(e, bc.I_KIND), f.word(e, bc.I_DEST)
            sd = f.at(scratch, b.mul(d, rbytes))
            reg_d = b.gep(regs, [d], source_etype=PTR)
            sw_load = f.fn.append_basic_block("load")
            sw_op = f.fn.append_basic_block("op")
            sw_gather = f.fn.append_basic_block("gather")
            sw_scalar = f.fn.append_basic_block("scalar")
            nxt = f.fn.append_basic_block("next")
            sw = b.switch(kind, nxt)
            sw.add_case(_c(bc.LOAD), sw_load)
            sw.add_case(_c(bc.OP), sw_op)
            sw.add_case(_c(bc.GATHER), sw_gather)
            sw.add_case(_c(bc.SCALAR), sw_scalar)
            # a scalar's register was filled when the kernel started
            b.position_at_end(sw_scalar)
            b.store(sd, reg_d)
            b.branch(nxt)
            # a load: the buffer itself when contiguous along the block, else a copy
            b.position_at_end(sw_load)
            d4, p, size, s = self._entry_at(f, lt, offs, f.word(e, bc.I_A), b0)
            with b.if_else(b.icmp_signed("==", s, _c(1))) as (there, copy):
                with there:
                    b.store(p, reg_d)
                with copy:
                    self._call(f, f.word(d4, 3), [sd, p, b.mul(s, size), n],
                               [PTR, PTR, I64, I64])
                    b.store(sd, reg_d)
            b.branch(nxt)
            # an elementwise op: into its scratch, or where the value goes
            b.position_at_end(sw_op)
            last = b.and_(b.icmp_signed("==", t, b.sub(nins, _c(1))),
                          b.icmp_signed("==", d, value))
            use = b.and_(last, b.icmp_unsigned("!=", direct, ir.Constant(PTR, None)))
            dest = b.select(use, direct, sd)
            operands = []
            for w in (bc.I_A, bc.I_B, bc.I_C):
                j = f.word(e, w)
                jj = b.select(b.icmp_signed("<", j, _c(0)), _c(0), j)
                pj = f.ptr(regs, jj)
                operands.append(b.select(b.icmp_signed("<", j, _c(0)), ir.Constant(PTR, None), pj))
            self._call(f, f.word(e, bc.I_FN), [dest, *operands, n], [PTR, PTR, PTR, PTR, I64])
            b.store(dest, reg_d)
            b.branch(nxt)
            # a gather: element offsets along the block, plus each checked index's part
            b.position_at_end(sw_gather)
            l = f.word(e, bc.I_A)
            le = self._load_entry(f, ctx, l)
            mpos = f.word(le, bc.L_META)
            d4 = b.gep(lt, [b.mul(l, _c(LT_WORDS))], source_etype=I64)
            s, base = f.word(d4, 2), f.ptr(d4, 0)
            self._call(f, f.word(e, bc.I_X), [goffs, b.add(f.word(offs, l), b.mul(b0, s)), s, n],
                       [PTR, I64, I64, I64])
            g0 = f.word(e, bc.I_C)
            with f.for_(_c(0), f.word(e, bc.I_B)) as q:
                ge = b.gep(K, [b.add(g0, b.mul(q, _c(bc.GATHER_WORDS)))], source_etype=I64)
                dyn = b.add(mpos, b.add(_c(1), b.add(r, b.mul(q, _c(2)))))
                self._call(f, f.word(ge, 1),
                           [goffs, f.ptr(regs, f.word(ge, 0)), f.word(meta, dyn),
                            f.word(meta, b.add(dyn, _c(1))), f.word(ge, 2), err, n],
                           [PTR, PTR, I64, I64, I64, PTR, I64])
            self._call(f, f.word(e, bc.I_FN), [sd, base, goffs, n], [PTR, PTR, PTR, I64])
            b.store(sd, reg_d)
            b.branch(nxt)
            b.position_at_end(nxt)
        b.ret_void()
        return f.fn

    def _post_block(self):
        """The kernel's epilogue (``Kernel.post``) on ``n`` results at ``src`` (at the
        current point, ``b0`` along the block axis): where its values are; ``src`` itself
        when the kernel has none."""
        f, ctx = self._ctx_fn("post_block", PTR, [PTR, I64, I64])
        b = f.b
        src, n, b0 = f.fn.args[1:]
        K = f.to_ptr(f.word(ctx, C_K))
        npost = f.word(K, bc.K_NPOST)
        out = f.var(src, PTR)
        with f.if_(b.icmp_signed(">", npost, _c(0))):
            regs = f.to_ptr(f.word(ctx, C_REGS))
            b.store(src, b.gep(regs, [f.word(K, bc.K_PACC)], source_etype=PTR))
            nins = f.word(K, bc.K_NINS)
            b.call(self.eval, [ctx, n, b0, ir.Constant(PTR, None), nins, b.add(nins, npost)])
            b.store(f.ptr(regs, f.word(K, bc.K_PVALUE)), out)
        b.ret(f.get(out, PTR))
        return f.fn

    def _store_block(self):
        """Write ``n`` elements from ``src`` to the output at the current point, ``b0``
        along the block axis."""
        f, ctx = self._ctx_fn("store_block", VOID, [PTR, I64, I64])
        b = f.b
        src, n, b0 = f.fn.args[1:]
        K = f.to_ptr(f.word(ctx, C_K))
        offs = f.to_ptr(f.word(ctx, C_OFFS))
        size = f.word(K, bc.K_SSIZE)
        s, base = f.word(ctx, C_SSTV), f.to_ptr(f.word(ctx, C_SBASE))
        q = f.at(base, b.mul(b.add(f.word(offs, f.word(ctx, C_NLOADS)), b.mul(b0, s)), size))
        with f.if_(b.icmp_unsigned("!=", q, src)):
            self._call(f, f.word(K, bc.K_PUT), [q, b.mul(s, size), src, n], [PTR, I64, PTR, I64])
        b.ret_void()
        return f.fn

    def _out_ptr(self, f, ctx, b0):
        """Where the output's element at the current point (``b0`` along the block) is,
        and its stride along the block axis in elements."""
        b = f.b
        K = f.to_ptr(f.word(ctx, C_K))
        offs = f.to_ptr(f.word(ctx, C_OFFS))
        s, base = f.word(ctx, C_SSTV), f.to_ptr(f.word(ctx, C_SBASE))
        off = b.add(f.word(offs, f.word(ctx, C_NLOADS)), b.mul(b0, s))
        return f.at(base, b.mul(off, f.word(K, bc.K_SSIZE))), s

    def _blocks(self, f, ctx):
        """``for b0 in range(0, nv, block)`` yielding (b0, n)."""
        return _Blocks(f, f.word(ctx, C_NV), f.word(ctx, C_BLOCK))

    def _elementwise(self):
        f, ctx = self._ctx_fn("run_elementwise", VOID)
        b = f.b
        r = f.word(ctx, C_R)
        with f.if_(b.not_(b.call(self.empty, [ctx, _c(0), r]))):
            b.call(self.reset, [ctx])
            K = f.to_ptr(f.word(ctx, C_K))
            regs = f.to_ptr(f.word(ctx, C_REGS))
            value = f.word(K, bc.K_VALUE)
            with f.do_while() as loop:
                with self._blocks(f, ctx) as (b0, n):
                    q, s = self._out_ptr(f, ctx, b0)
                    direct = b.select(b.icmp_signed("==", s, _c(1)), q, ir.Constant(PTR, None))
                    self._eval_body(f, ctx, n, b0, direct)
                    b.call(self.store, [ctx, f.ptr(regs, value), n, b0])
                    self._further_stores(f, ctx, K, regs, n, b0)
                loop.again(b.call(self.advance, [ctx, _c(0), r]))
        b.ret_void()
        return f.fn

    def _further_stores(self, f, ctx, K, regs, n, b0):
        """Each further output's block (``Kernel.outs``), where its load entry points."""
        b = f.b
        lt, offs = (f.to_ptr(f.word(ctx, c)) for c in (C_LT, C_OFFS))
        x0 = f.word(K, bc.K_XS)
        with f.for_(_c(0), f.word(K, bc.K_NXS)) as x:
            e = b.gep(K, [b.add(x0, b.mul(x, _c(bc.XS_WORDS)))], source_etype=I64)
            _, q, size, s = self._entry_at(f, lt, offs, f.word(e, 1), b0)
            self._call(f, f.word(e, 2), [q, b.mul(s, size), f.ptr(regs, f.word(e, 0)), n],
                       [PTR, I64, PTR, I64])

    @staticmethod
    def _entry_at(f, lt, offs, l, b0):
        """Load entry ``l``'s decoded words, the address of its element ``b0`` along the
        block at the current point, its element size and its stride along the block."""
        b = f.b
        d4 = b.gep(lt, [b.mul(l, _c(LT_WORDS))], source_etype=I64)
        size, s = f.word(d4, 1), f.word(d4, 2)
        return d4, f.at(f.ptr(d4, 0), b.mul(b.add(f.word(offs, l), b.mul(b0, s)), size)), size, s

    def _reduction_prelude(self, f, ctx):
        """(n_out, r, whether the reduced space is empty, its element count)."""
        b = f.b
        K = f.to_ptr(f.word(ctx, C_K))
        sizes = f.to_ptr(f.word(ctx, C_SIZES))
        nout, r = f.word(K, bc.K_NOUT), f.word(ctx, C_R)
        count = f.var(_c(1))
        with f.for_(nout, r) as a:
            b.store(b.mul(f.get(count), f.word(sizes, a)), count)
        return K, nout, r, b.call(self.empty, [ctx, nout, r]), f.get(count)

    def _reduce(self):
        f, ctx = self._ctx_fn("run_reduce", VOID)
        b = f.b
        K, nout, r, inner_empty, count = self._reduction_prelude(f, ctx)
        meta = f.to_ptr(f.word(ctx, C_META))
        regs = f.to_ptr(f.word(ctx, C_REGS))
        acc = f.to_ptr(f.word(ctx, C_WORK))  # the accumulator block, after the words
        value = f.word(K, bc.K_VALUE)
        along = f.word(meta, b.add(f.word(K, bc.K_VMETA), _c(1)))
        mean = f.word(K, bc.K_MEAN)
        stored = b.icmp_unsigned("!=", f.word(K, bc.K_PSTORE), _c(0))  # (see bytecode)
        with f.if_(b.not_(b.call(self.empty, [ctx, _c(0), nout]))):
            with b.if_else(b.icmp_unsigned("!=", f.word(K, bc.K_GEMM), _c(0))) as (gemm, other):
                with gemm:
                    self._gemm(f, ctx, K, nout)
                with other:
                    b.call(self.reset, [ctx])
                    with b.if_else(b.icmp_signed("!=", along, _c(0))) as (lanes, across):
                        with lanes:
                            fold = f.word(K, bc.K_FOLD)
                            sequential = b.icmp_unsigned("!=", fold, _c(0))
                            with f.do_while() as outer:
                                res = f.at(acc, _c(REG_BYTES))
                                block = f.word(ctx, C_BLOCK)
                                self._call(f, f.word(K, bc.K_INIT), [acc, block], [PTR, I64])
                                self._call(f, f.word(K, bc.K_INIT), [res, _c(1)], [PTR, I64])
                                with f.if_(b.not_(inner_empty)):
                                    with f.do_while() as inner:
                                        with self._blocks(f, ctx) as (b0, n):
                                            self._eval_body(f, ctx, n, b0, ir.Constant(PTR, None))
                                            val = f.ptr(regs, value)
                                            with b.if_else(sequential) as (seq, lanes):
                                                with seq:
                                                    self._call(f, fold, [res, val, n],
                                                               [PTR, PTR, I64])
                                                with lanes:
                                                    self._call(f, f.word(K, bc.K_ACC),
                                                               [acc, val, n], [PTR, PTR, I64])
                                        inner.again(b.call(self.advance, [ctx, nout, r]))
                                nv = f.word(ctx, C_NV)
                                lanes_n = b.select(inner_empty, _c(0),
                                                   b.select(b.icmp_signed("<", nv, block),
                                                            nv, block))
                                with f.if_(b.not_(sequential)):
                                    self._call(f, f.word(K, bc.K_HRED), [res, acc, lanes_n],
                                               [PTR, PTR, I64])
                                with f.if_(b.icmp_unsigned("!=", mean, _c(0))):
                                    self._call(f, mean, [res, count, _c(1)], [PTR, I64, I64])
                                with f.if_(stored):
                                    self._put_one(f, ctx, res)
                                self._put_one(f, ctx, b.call(self.post, [ctx, res, _c(1), _c(0)]))
                                outer.again(b.call(self.advance, [ctx, _c(0), nout]))
                        with across:
                            with f.do_while() as outer:
                                with self._blocks(f, ctx) as (b0, n):
                                    self._call(f, f.word(K, bc.K_INIT), [acc, n], [PTR, I64])
                                    with f.if_(b.not_(inner_empty)):
                                        with f.do_while() as inner:
                                            self._eval_body(f, ctx, n, b0, ir.Constant(PTR, None))
                                            self._call(f, f.word(K, bc.K_ACC),
                                                       [acc, f.ptr(regs, value), n],
                                                       [PTR, PTR, I64])
                                            inner.again(b.call(self.advance, [ctx, nout, r]))
                                    with f.if_(b.icmp_unsigned("!=", mean, _c(0))):
                                        self._call(f, mean, [acc, count, n], [PTR, I64, I64])
                                    with f.if_(stored):
                                        b.call(self.store, [ctx, acc, n, b0])
                                    b.call(self.store, [ctx, b.call(self.post, [ctx, acc, n, b0]),
                                                        n, b0])
                                outer.again(b.call(self.advance, [ctx, _c(0), nout]))
        b.ret_void()
        return f.fn

    def _put_one(self, f, ctx, src):
        K = f.to_ptr(f.word(ctx, C_K))
        q, _ = self._out_ptr(f, ctx, _c(0))
        self._call(f, f.word(K, bc.K_PUT), [q, f.word(K, bc.K_SSIZE), src, _c(1)],
                   [PTR, I64, PTR, I64])

    def _gemm(self, f, ctx, K, nout):
        """A contraction on the GEMM routine, once per batch point (see backend/matmul.py:
        A is the operand that does not move along n, B the one that does not move along m)."""
        b = f.b
        meta, sizes, offs, err = (f.to_ptr(f.word(ctx, c)) for c in (C_META, C_SIZES, C_OFFS, C_ERR))
        am, an = b.sub(nout, _c(2)), b.sub(nout, _c(1))
        ops = []
        for w in (bc.K_GEMM_X, bc.K_GEMM_Y):
            l = f.word(K, w)
            le = self._load_entry(f, ctx, l)
            mpos = f.word(le, bc.L_META)
            st = [f.word(meta, b.add(mpos, b.add(a, _c(1)))) for a in (am, an, nout)]
            ops.append((l, le, st))
        (lx, ex, sx), (ly, ey, sy) = ops
        zero = _c(0)
        xy = b.and_(b.icmp_signed("==", sx[1], zero), b.icmp_signed("==", sy[0], zero))
        yx = b.and_(b.icmp_signed("==", sy[1], zero), b.icmp_signed("==", sx[0], zero))
        with b.if_else(b.or_(xy, yx)) as (ok, bad):
            with ok:
                f.set_word(ctx, C_V, _c(-1))  # the batch odometer has no block axis
                b.call(self.reset, [ctx])
                smeta = f.word(K, bc.K_SMETA)
                scm = f.word(meta, b.add(smeta, b.add(am, _c(1))))
                scn = f.word(meta, b.add(smeta, b.add(an, _c(1))))
                M, N, KK = (f.word(sizes, a) for a in (am, an, nout))
                with f.do_while() as loop:
                    px = f.at(b.call(self.data, [ctx, f.word(ex, bc.L_SLOT)]),
                              b.mul(f.word(offs, lx), f.word(ex, bc.L_SIZE)))
                    py = f.at(b.call(self.data, [ctx, f.word(ey, bc.L_SLOT)]),
                              b.mul(f.word(offs, ly), f.word(ey, bc.L_SIZE)))
                    q, _ = self._out_ptr(f, ctx, _c(0))

                    def pick(u, v):
                        return b.select(xy, u, v)
                    args = [pick(px, py), pick(sx[0], sy[0]), pick(sx[2], sy[2]),
                            pick(py, px), pick(sy[2], sx[2]), pick(sy[1], sx[1]),
                            q, scm, scn, M, N, KK, err]
                    self._call(f, f.word(K, bc.K_GEMM), args,
                               [PTR, I64, I64, PTR, I64, I64, PTR, I64, I64, I64, I64, I64, PTR])
                    loop.again(b.call(self.advance, [ctx, _c(0), am]))
                with f.if_(b.icmp_signed(">", f.word(K, bc.K_NPOST), _c(0))):
                    self._gemm_epilogue(f, ctx, K, nout)
            with bad:
                f.set_word(err, 0, _c(abi.ERR_LAYOUT))

    def _gemm_epilogue(self, f, ctx, K, nout):
        """The epilogue of a contraction on the GEMM routine, after all of it: blocks along
        the output's last axis (its rows' for a matrix-vector product), each read back
        from the output (the epilogue loads it: backend/epilogue.py) and written over it."""
        b = f.b
        sizes = f.to_ptr(f.word(ctx, C_SIZES))
        am, an = b.sub(nout, _c(2)), b.sub(nout, _c(1))
        v = b.select(b.icmp_signed(">", f.word(sizes, an), _c(1)), an, am)
        f.set_word(ctx, C_V, v)
        f.set_word(ctx, C_NV, f.word(sizes, v))
        # each access's stride along the new block axis
        self._decode(f, ctx, K, f.to_ptr(f.word(ctx, C_META)), f.to_ptr(f.word(ctx, C_LT)),
                     f.word(ctx, C_NLOADS))
        b.call(self.reset, [ctx])
        with f.do_while() as loop:
            with self._blocks(f, ctx) as (b0, n):
                b.call(self.store, [ctx, b.call(self.post, [ctx, ir.Constant(PTR, None), n, b0]),
                                    n, b0])
            loop.again(b.call(self.advance, [ctx, _c(0), nout]))

    def _arg(self):
        f, ctx = self._ctx_fn("run_arg", VOID)
        b = f.b
        K, nout, r, inner_empty, _count = self._reduction_prelude(f, ctx)
        meta = f.to_ptr(f.word(ctx, C_META))
        regs = f.to_ptr(f.word(ctx, C_REGS))
        idx = f.to_ptr(f.word(ctx, C_IDX))
        acc = f.to_ptr(f.word(ctx, C_WORK))
        at = f.at(acc, _c(REG_BYTES))          # the index block after the value block
        state = f.at(acc, _c(2 * REG_BYTES))  # the index block (up to REG_BYTES) before it
        value = f.word(K, bc.K_VALUE)
        along = f.word(meta, b.add(f.word(K, bc.K_VMETA), _c(1)))
        with f.if_(b.not_(b.call(self.empty, [ctx, _c(0), nout]))):
            b.call(self.reset, [ctx])
            with b.if_else(b.icmp_signed("!=", along, _c(0))) as (seq, across):
                with seq:
                    with f.do_while() as outer:
                        self._call(f, f.word(K, bc.K_INIT), [state, _c(1)], [PTR, I64])
                        f.set_word(state, 2, _c(0))
                        with self._blocks(f, ctx) as (b0, n):
                            self._eval_body(f, ctx, n, b0, ir.Constant(PTR, None))
                            self._call(f, f.word(K, bc.K_ARGS), [state, f.ptr(regs, value), n, b0],
                                       [PTR, PTR, I64, I64])
                        self._put_one(f, ctx, f.at(state, _c(16)))
                        outer.again(b.call(self.advance, [ctx, _c(0), nout]))
                with across:
                    with f.do_while() as outer:
                        with self._blocks(f, ctx) as (b0, n):
                            self._call(f, f.word(K, bc.K_INIT), [acc, n], [PTR, I64])
                            with f.for_(_c(0), n) as i:
                                f.set_word(at, i, _c(0))
                            with f.if_(b.not_(inner_empty)):
                                with f.do_while() as inner:
                                    self._eval_body(f, ctx, n, b0, ir.Constant(PTR, None))
                                    k = f.word(idx, b.sub(r, _c(1)))
                                    self._call(f, f.word(K, bc.K_ARGX),
                                               [acc, at, f.ptr(regs, value), n, k],
                                               [PTR, PTR, PTR, I64, I64])
                                    inner.again(b.call(self.advance, [ctx, nout, r]))
                            b.call(self.store, [ctx, at, n, b0])
                        outer.again(b.call(self.advance, [ctx, _c(0), nout]))
        b.ret_void()
        return f.fn

    def _scan(self):
        f, ctx = self._ctx_fn("run_scan", VOID)
        b = f.b
        K = f.to_ptr(f.word(ctx, C_K))
        meta = f.to_ptr(f.word(ctx, C_META))
        regs = f.to_ptr(f.word(ctx, C_REGS))
        idx = f.to_ptr(f.word(ctx, C_IDX))
        acc = f.to_ptr(f.word(ctx, C_WORK))
        carry = f.at(acc, _c(REG_BYTES))
        nout, r = f.word(K, bc.K_NOUT), f.word(ctx, C_R)
        value = f.word(K, bc.K_VALUE)
        along = f.word(meta, b.add(f.word(K, bc.K_VMETA), _c(1)))
        with f.if_(b.not_(b.call(self.empty, [ctx, _c(0), r]))):
            b.call(self.reset, [ctx])
            with b.if_else(b.icmp_signed("!=", along, _c(0))) as (seq, across):
                with seq:
                    with f.do_while() as outer:
                        with self._blocks(f, ctx) as (b0, n):
                            self._eval_body(f, ctx, n, b0, ir.Constant(PTR, None))
                            first = b.zext(b.icmp_signed("==", b0, _c(0)), I64)
                            self._call(f, f.word(K, bc.K_SCANS),
                                       [acc, f.ptr(regs, value), n, carry, first],
                                       [PTR, PTR, I64, PTR, I64])
                            b.call(self.store, [ctx, acc, n, b0])
                        outer.again(b.call(self.advance, [ctx, _c(0), nout]))
                with across:
                    with f.do_while() as outer:
                        with self._blocks(f, ctx) as (b0, n):
                            with f.do_while() as inner:
                                self._eval_body(f, ctx, n, b0, ir.Constant(PTR, None))
                                k = f.word(idx, b.sub(r, _c(1)))
                                first = b.zext(b.icmp_signed("==", k, _c(0)), I64)
                                self._call(f, f.word(K, bc.K_SCANX),
                                           [acc, f.ptr(regs, value), n, first],
                                           [PTR, PTR, I64, I64])
                                b.call(self.store, [ctx, acc, n, b0])
                                inner.again(b.call(self.advance, [ctx, nout, r]))
                        outer.again(b.call(self.advance, [ctx, _c(0), nout]))
        b.ret_void()
        return f.fn

    def _compiled(self):
        """Call the compiled kernel installed in the header: its buffers' data pointers
        (output first) and its scalars' addresses in arrays, and its part of the meta."""
        f, ctx = self._ctx_fn("run_compiled", VOID, [I64])
        b = f.b
        fn = f.fn.args[1]
        K = f.to_ptr(f.word(ctx, C_K))
        meta, scal, err = (f.to_ptr(f.word(ctx, c)) for c in (C_META, C_SCAL, C_ERR))
        ns, nc = f.word(K, bc.K_NSLOTS), f.word(K, bc.K_NSCAL)
        ptrs = b.alloca(PTR, ns)
        sp = b.alloca(PTR, b.add(nc, _c(1)))
        s0, c0 = f.word(K, bc.K_SLOTS), f.word(K, bc.K_SCALS)
        with f.for_(_c(0), ns) as i:
            slot = f.word(K, b.add(s0, i))
            b.store(b.call(self.data, [ctx, slot]), b.gep(ptrs, [i], source_etype=PTR))
        with f.for_(_c(0), nc) as i:
            slot = f.word(K, b.add(c0, i))
            b.store(f.at(scal, b.mul(slot, _c(16))), b.gep(sp, [i], source_etype=PTR))
        mbase = b.gep(meta, [f.word(K, bc.K_META)], source_etype=I64)
        self._call(f, fn, [ptrs, mbase, sp, err], [PTR, PTR, PTR, PTR])
        b.ret_void()
        return f.fn

    def _kernel(self, modes):
        """One kernel: compiled if installed, else interpreted in its mode."""
        f = _F(self.m, "run_kernel", VOID, [PTR, PTR, PTR, PTR, PTR])
        b = f.b
        K, items, meta, scal, err = f.fn.args
        ctx = b.alloca(I64, _c(C_WORDS))
        for c, v in ((C_K, K), (C_ITEMS, items), (C_META, meta), (C_SCAL, scal), (C_ERR, err)):
            f.set_word(ctx, c, f.to_int(v))
        fnp = b.gep(K, [_c(bc.K_FN)], source_etype=I64)
        fn = b.load_atomic(fnp, "acquire", 8, typ=I64)
        with b.if_else(b.icmp_unsigned("!=", fn, _c(0))) as (compiled, interp):
            with compiled:
                self._count(f, K, bc.K_CRUNS)
                b.call(self.compiled, [ctx, fn])
            with interp:
                self._count(f, K, bc.K_RUNS)
                self._interpret(f, ctx, modes)
        b.ret_void()
        return f.fn

    def _count(self, f, K, word: int) -> None:
        """One more run in ``K[word]`` (statistics: another thread's count may interleave)."""
        p = f.b.gep(K, [_c(word)], source_etype=I64)
        f.b.atomic_rmw("add", p, _c(1), "monotonic")

    def _interpret(self, f, ctx, modes):
        b = f.b
        K = f.to_ptr(f.word(ctx, C_K))
        meta = f.to_ptr(f.word(ctx, C_META))
        r = f.word(K, bc.K_R)
        nregs, nl = f.word(K, bc.K_NREGS), f.word(K, bc.K_NLOADS)
        regs = b.alloca(PTR, b.add(nregs, _c(1)))
        scratch = b.alloca(I8, b.mul(b.add(nregs, _c(1)), f.word(K, bc.K_RBYTES)))
        scratch.align = 64
        work = b.alloca(ir.ArrayType(I8, 2 * REG_BYTES + 64))
        work.align = 64
        goffs = b.alloca(I64, _c(REG_BYTES // 8))
        offs = b.alloca(I64, b.add(nl, _c(1)))
        idx = b.alloca(I64, b.add(r, _c(1)))
        lt = b.alloca(I64, b.add(b.mul(nl, _c(LT_WORDS)), _c(1)))
        sizes = b.gep(meta, [f.word(K, bc.K_META)], source_etype=I64)
        vmeta = f.word(K, bc.K_VMETA)
        v = f.word(meta, vmeta)
        nv = f.var(_c(1))
        with f.if_(b.icmp_signed(">=", v, _c(0))):
            b.store(f.word(sizes, v), nv)
        loads = b.gep(K, [f.word(K, bc.K_LOADS)], source_etype=I64)
        for c, val in ((C_REGS, regs), (C_SCRATCH, scratch), (C_GOFFS, goffs), (C_OFFS, offs),
                       (C_IDX, idx), (C_LOADS, loads), (C_SIZES, sizes), (C_WORK, work),
                       (C_LT, lt)):
            f.set_word(ctx, c, f.to_int(val))
        for c, val in ((C_V, v), (C_NV, f.get(nv)), (C_R, r), (C_NLOADS, nl),
                       (C_BLOCK, f.word(K, bc.K_BLOCK))):
            f.set_word(ctx, c, val)
        self._decode(f, ctx, K, meta, lt, nl)
        self._fill_scalars(f, ctx, K, scratch)
        mode = f.word(K, bc.K_MODE)
        done = f.fn.append_basic_block("mode.done")
        cases = [f.fn.append_basic_block(f"mode{i}") for i in range(len(modes))]
        sw = b.switch(mode, done)
        for i, (blk, fn) in enumerate(zip(cases, modes)):
            sw.add_case(_c(i), blk)
            b.position_at_end(blk)
            b.call(fn, [ctx])
            b.branch(done)
        b.position_at_end(done)

    def _decode(self, f, ctx, K, meta, lt, nl):
        """What every block of this run reads the same: each load's base address, element
        size, stride along the block axis and copy building block, and the store's."""
        b = f.b
        with f.for_(_c(0), nl) as l:
            le = self._load_entry(f, ctx, l)
            d4 = b.gep(lt, [b.mul(l, _c(LT_WORDS))], source_etype=I64)
            f.set_word(d4, 0, f.to_int(b.call(self.data, [ctx, f.word(le, bc.L_SLOT)])))
            f.set_word(d4, 1, f.word(le, bc.L_SIZE))
            f.set_word(d4, 2, b.call(self.stv, [ctx, f.word(le, bc.L_META)]))
            f.set_word(d4, 3, f.word(le, bc.L_COPY))
        f.set_word(ctx, C_SBASE, f.to_int(b.call(self.data, [ctx, f.word(K, bc.K_SSLOT)])))
        f.set_word(ctx, C_SSTV, b.call(self.stv, [ctx, f.word(K, bc.K_SMETA)]))

    def _fill_scalars(self, f, ctx, K, scratch):
        """Each scalar's register holds a block of copies of its value for the whole run."""
        b = f.b
        scal = f.to_ptr(f.word(ctx, C_SCAL))
        ins0 = f.word(K, bc.K_INS)
        with f.for_(_c(0), b.add(f.word(K, bc.K_NINS), f.word(K, bc.K_NPOST))) as t:
            e = b.gep(K, [b.add(ins0, b.mul(t, _c(bc.INS_WORDS)))], source_etype=I64)
            with f.if_(b.icmp_signed("==", f.word(e, bc.I_KIND), _c(bc.SCALAR))):
                sd = f.at(scratch, b.mul(f.word(e, bc.I_DEST), f.word(K, bc.K_RBYTES)))
                src = f.at(scal, b.mul(f.word(e, bc.I_A), _c(16)))
                self._call(f, f.word(e, bc.I_FN), [sd, src, _c(0), f.word(ctx, C_BLOCK)],
                           [PTR, PTR, I64, I64])

    def _entry(self):
        f = _F(self.m, SYMBOL, I32, [PTR, PTR, PTR, PTR], internal=False)
        b = f.b
        lst, hdr, scal, err = f.fn.args
        code, meta = f.ptr(hdr, 0), f.ptr(hdr, 1)
        first, count = f.word(hdr, 2), f.word(hdr, 3)
        items = f.ptr(lst, abi.LIST_ITEMS // 8)
        with f.for_(first, b.add(first, count)) as i:
            K = b.gep(code, [f.word(code, b.add(i, _c(1)))], source_etype=I64)
            b.call(self.kernel, [K, items, meta, scal, err])
        b.ret(b.trunc(f.word(err, 0), I32))


class _Blocks:
    """``for b0 in range(0, nv, block)``, yielding (b0, elements in this block)."""

    def __init__(self, f: _F, nv, block) -> None:
        self.f, self.nv, self.block = f, nv, block

    def __enter__(self):
        f, b = self.f, self.f.b
        self.loop = _Loop(f, _c(0), self.nv, self.block)
        b0 = self.loop.__enter__()
        rest = b.sub(self.nv, b0)
        n = b.select(b.icmp_signed("<", rest, self.block), rest, self.block)
        return b0, n

    def __exit__(self, *exc):
        return self.loop.__exit__(*exc)
