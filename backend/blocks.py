"""Building blocks: the shape-generic primitive kernels the interpreter calls.

Each primitive is a loop over ``n`` contiguous elements held in *memory form*
(bool as one byte 0/1, complex as numpy's interleaved real and imaginary
parts), so a block register is just a run of memory and a contiguous input
can be read where it lies.  Elementwise primitives are generated from the
code generator's lowering rules (``codegen.lower_op``), so the interpreter
and compiled kernels share every special case, the integer division by zero,
the saturating casts and the libm calls (vectorised through libmvec the same
way).  Reductions, scans and arg-reductions come in two forms: *across*
(one accumulator per element of an output block, one step per reduced
point) and *along* (the block runs along the reduced axis: lane accumulators,
or a sequential scan carrying its state from block to block).

A primitive is named by a key, a tuple of strings (``("ew", "add", "float64",
"float64")``), and its symbol is ``lzb_`` followed by the key's parts joined
by ``_``.  ``module(keys)`` is the IR of a module defining those primitives;
the library (backend/library.py) compiles and loads them.

Signatures (all pointers to block registers unless said otherwise, ``n`` the
element count, strides in bytes):

=================  ==============================================================
key                C signature and meaning
=================  ==============================================================
ew op dt sdt       ``f(out, a, b, c, n)``: ``out[i] = op(a[i], b[i], c[i])``
copy size          ``f(out, src, stride, n)``: ``out[i] = src[i * stride]``
put size           ``f(dst, stride, src, n)``: ``dst[i * stride] = src[i]``
init op dt         ``f(acc, n)``: every lane the reduction's identity
acc op dt          ``f(acc, v, n)``: ``acc[i] = combine(acc[i], v[i])``
hred op dt         ``f(out, acc, n)``: ``out[0] = combine over acc[0:n]`` (float sums pairwise)
fold op dt         ``f(state, v, n)``: ``state[0] = combine(state[0], v[i])`` in order
mean dt            ``f(acc, count, n)``: ``acc[i] /= count``
argx op dt         ``f(best, at, v, n, k)``: per element, ``k`` the reduced index
args op dt         ``f(state, v, n, k0)``: sequential over ``v``, ``state`` =
                   (best value, int64 index); indices ``k0 + i``
scanx op dt        ``f(acc, v, n, first)``: ``acc[i] = first ? v[i] : combine``
scans op dt        ``f(out, v, n, carry, first)``: sequential running result
iota               ``f(offs, start, step, n)``: int64 ``offs[i] = start + i*step``
index dt           ``f(offs, idx, stride, size, label, err, n)``: ``offs[i] +=
                   stride * checked(idx[i])`` (bounds-checked, negative from the end)
gather size        ``f(out, base, offs, n)``: ``out[i] = base[offs[i]]`` (elements)
=================  ==============================================================
"""
from __future__ import annotations

from llvmlite import ir

from . import codegen as cg
from .bytecode import prim_symbol as symbol
from .ir import SCALAR_TYPES, UNARY, Op, ScalarType
from .pairwise import PairwiseSum


I1, I8, I32, I64 = cg.I1, cg.I8, cg.I32, cg.I64
PTR = cg.PTR
VOID = ir.VoidType()
_SIZE_TYPES = {1: I8, 2: ir.IntType(16), 4: I32, 8: I64, 16: ir.IntType(128)}


def module(keys, vector_variants: dict | None = None, name: str = "lazyarray_blocks") -> str:
    """The IR of a module defining the primitives ``keys``."""
    mb = cg.ModuleBuilder(name, vector_variants)
    for key in keys:
        _EMIT[key[0]](mb, key)
    mb._keep_used()
    return str(mb.module)


# --------------------------------------------------------------------------- helpers

def _function(mb, key: tuple, args: list) -> tuple:
    fn = ir.Function(mb.module, ir.FunctionType(VOID, args), name=symbol(key))
    fn.attributes.add("nounwind")
    for a in fn.args:
        if a.type == PTR:
            a.add_attribute("noalias")
    return fn, ir.IRBuilder(fn.append_basic_block("entry"))


def _elem_ptr(b, base, i, dt: ScalarType):
    return b.gep(base, [i], source_etype=cg.mem_type(dt))


def _load(b, base, i, dt: ScalarType):
    """Element ``i`` of a memory-form block, as a register value."""
    return cg.load_value(b, _elem_ptr(b, base, i, dt), dt)


def _store(b, base, i, dt: ScalarType, v) -> None:
    cg.store_value(b, _elem_ptr(b, base, i, dt), dt, v)


def _loop(b, n, body, init=()) -> list:
    """``for i in range(n)`` carrying ``init`` (see codegen._for)."""
    return cg._for(b, n, list(init), body)


def _dtype(name: str) -> ScalarType:
    return SCALAR_TYPES[name]


# --------------------------------------------------------------------------- elementwise

def _src_dtypes(op: Op, dt: ScalarType, sdt: ScalarType) -> list:
    if op is Op.WHERE:
        return [SCALAR_TYPES["bool"], dt, dt]
    return [sdt] * (1 if op in UNARY else 2)


def _emit_ew(mb, key) -> None:
    op, dt, sdt = Op(key[1]), _dtype(key[2]), _dtype(key[3])
    fn, b = _function(mb, key, [PTR, PTR, PTR, PTR, I64])
    out, ins, n = fn.args[0], fn.args[1:4], fn.args[4]
    srcs = _src_dtypes(op, dt, sdt)

    def body(bb, i, _):
        args = [_load(bb, p, i, d) for p, d in zip(ins, srcs)]
        _store(bb, out, i, dt, cg.lower_op(mb, bb, op, dt, sdt, args))
        return []
    _loop(b, n, body)
    b.ret_void()


# --------------------------------------------------------------------------- memory

def _emit_copy(mb, key) -> None:
    """Strided gather into a block; a contiguous source is one memcpy."""
    size = int(key[1])
    fn, b = _function(mb, key, [PTR, PTR, I64, I64])
    out, src, stride, n = fn.args
    _strided(mb, b, out, src, stride, n, size, gather=True)
    b.ret_void()


def _emit_put(mb, key) -> None:
    size = int(key[1])
    fn, b = _function(mb, key, [PTR, I64, PTR, I64])
    dst, stride, src, n = fn.args
    _strided(mb, b, src, dst, stride, n, size, gather=False)
    b.ret_void()


def _strided(mb, b, block, mem, stride, n, size: int, gather: bool) -> None:
    ty = _SIZE_TYPES[size]
    contiguous = b.icmp_signed("==", stride, ir.Constant(I64, size))
    with b.if_else(contiguous) as (then, other):
        with then:
            dst, src = (block, mem) if gather else (mem, block)
            memcpy = mb.declare("llvm.memcpy.p0.p0.i64", VOID, [PTR, PTR, I64, I1], pure=False)
            b.call(memcpy, [dst, src, b.mul(n, ir.Constant(I64, size)), ir.Constant(I1, 0)])
        with other:
            def body(bb, i, _):
                p = bb.gep(mem, [bb.mul(i, stride)], source_etype=I8)
                q = bb.gep(block, [i], source_etype=ty)
                if gather:
                    bb.store(bb.load(p, typ=ty, align=1), q, align=1)
                else:
                    bb.store(bb.load(q, typ=ty, align=1), p, align=1)
                return []
            _loop(b, n, body)


# --------------------------------------------------------------------------- reductions

def _value_type(dt: ScalarType):
    return cg.reg_type(dt)


def _emit_init(mb, key) -> None:
    op, dt = Op(key[1]), _dtype(key[2])
    fn, b = _function(mb, key, [PTR, I64])
    acc, n = fn.args
    init = cg._reduce_init(op, dt, _value_type(dt))

    def body(bb, i, _):
        _store(bb, acc, i, dt, init)
        return []
    _loop(b, n, body)
    b.ret_void()


def _emit_acc(mb, key) -> None:
    op, dt = Op(key[1]), _dtype(key[2])
    fn, b = _function(mb, key, [PTR, PTR, I64])
    acc, v, n = fn.args

    def body(bb, i, _):
        new = cg._combine(mb, bb, op, dt, _load(bb, acc, i, dt), _load(bb, v, i, dt), exact=True)
        _store(bb, acc, i, dt, new)
        return []
    _loop(b, n, body)
    b.ret_void()


def _emit_hred(mb, key) -> None:
    op, dt = Op(key[1]), _dtype(key[2])
    fn, b = _function(mb, key, [PTR, PTR, I64])
    out, acc, n = fn.args
    init = cg._reduce_init(op, dt, _value_type(dt))
    if op in (Op.SUM, Op.MEAN) and dt.kind in "fc":  # the lanes' sums merged pairwise
        tree = PairwiseSum(b, _value_type(dt), init,
                           lambda bb, x, y: cg._combine(mb, bb, op, dt, x, y, exact=True))
        tree.reset(b, ir.Constant(I64, 1))

        def push(bb, i, _):
            tree.push(bb, _load(bb, acc, i, dt))
            return []
        _loop(b, n, push)
        total = tree.total(b)
    else:
        def body(bb, i, carried):
            return [cg._combine(mb, bb, op, dt, carried[0], _load(bb, acc, i, dt))]
        total = _loop(b, n, body, [init])[0]
    _store(b, out, ir.Constant(I64, 0), dt, total)
    b.ret_void()


def _emit_fold(mb, key) -> None:
    """A sequential reduction: for the products of complex numbers, where order decides
    which special value (NaN or infinity) comes out, the same order as compiled code."""
    op, dt = Op(key[1]), _dtype(key[2])
    fn, b = _function(mb, key, [PTR, PTR, I64])
    state, v, n = fn.args
    init = _load(b, state, ir.Constant(I64, 0), dt)

    def body(bb, i, carried):
        return [cg._combine(mb, bb, op, dt, carried[0], _load(bb, v, i, dt), exact=True)]
    _store(b, state, ir.Constant(I64, 0), dt, _loop(b, n, body, [init])[0])
    b.ret_void()


def _emit_mean(mb, key) -> None:
    dt = _dtype(key[1])
    fn, b = _function(mb, key, [PTR, I64, I64])
    acc, count, n = fn.args

    def body(bb, i, _):
        v = _load(bb, acc, i, dt)
        if dt.kind == "c":
            c = bb.sitofp(count, cg.part_type(dt))
            v = cg._pack(bb, *(bb.fdiv(p, c) for p in cg._split(bb, v)))
        else:
            v = bb.fdiv(v, bb.sitofp(count, cg.reg_type(dt)))
        _store(bb, acc, i, dt, v)
        return []
    _loop(b, n, body)
    b.ret_void()


def _arg_better(mb, b, is_max: bool, dt: ScalarType, best, v):
    """Whether ``v`` replaces ``best`` (the first maximum / minimum; the first NaN wins)."""
    pair = cg._arg_combine(mb, b, is_max, dt, [best, ir.Constant(I64, 0)], v, ir.Constant(I64, 1))
    return b.icmp_signed("==", pair[1], ir.Constant(I64, 1))


def _emit_argx(mb, key) -> None:
    is_max, dt = key[1] == "argmax", _dtype(key[2])
    fn, b = _function(mb, key, [PTR, PTR, PTR, I64, I64])
    best, at, v, n, k = fn.args

    def body(bb, i, _):
        cur, x = _load(bb, best, i, dt), _load(bb, v, i, dt)
        better = _arg_better(mb, bb, is_max, dt, cur, x)
        _store(bb, best, i, dt, bb.select(better, x, cur))
        pa = bb.gep(at, [i], source_etype=I64)
        bb.store(bb.select(better, k, bb.load(pa, typ=I64)), pa)
        return []
    _loop(b, n, body)
    b.ret_void()


def _emit_args(mb, key) -> None:
    is_max, dt = key[1] == "argmax", _dtype(key[2])
    fn, b = _function(mb, key, [PTR, PTR, I64, I64])
    state, v, n, k0 = fn.args
    at_p = b.gep(state, [ir.Constant(I64, 16)], source_etype=I8)  # the index after 16 bytes
    init = [_load(b, state, ir.Constant(I64, 0), dt), b.load(at_p, typ=I64)]

    def body(bb, i, carried):
        return cg._arg_combine(mb, bb, is_max, dt, carried, _load(bb, v, i, dt), bb.add(k0, i))
    best, at = _loop(b, n, body, init)
    _store(b, state, ir.Constant(I64, 0), dt, best)
    b.store(at, at_p)
    b.ret_void()


def _emit_scanx(mb, key) -> None:
    op, dt = Op(key[1]), _dtype(key[2])
    fn, b = _function(mb, key, [PTR, PTR, I64, I64])
    acc, v, n, first = fn.args
    is_first = b.icmp_signed("!=", first, ir.Constant(I64, 0))

    def body(bb, i, _):
        x = _load(bb, v, i, dt)
        new = cg._combine(mb, bb, op, dt, _load(bb, acc, i, dt), x, exact=True)
        _store(bb, acc, i, dt, bb.select(is_first, x, new) if dt.kind != "c"
               else _select_complex(bb, is_first, x, new))
        return []
    _loop(b, n, body)
    b.ret_void()


def _select_complex(b, c, x, y):
    (xr, xi), (yr, yi) = cg._split(b, x), cg._split(b, y)
    return cg._pack(b, b.select(c, xr, yr), b.select(c, xi, yi))


def _emit_scans(mb, key) -> None:
    op, dt = Op(key[1]), _dtype(key[2])
    fn, b = _function(mb, key, [PTR, PTR, I64, PTR, I64])
    out, v, n, carry, first = fn.args
    init = _load(b, carry, ir.Constant(I64, 0), dt)
    is_first = b.icmp_signed("!=", first, ir.Constant(I64, 0))

    def body(bb, i, carried):
        x = _load(bb, v, i, dt)
        new = cg._combine(mb, bb, op, dt, carried[0], x, exact=True)
        take = bb.and_(is_first, bb.icmp_signed("==", i, ir.Constant(I64, 0)))
        new = bb.select(take, x, new) if dt.kind != "c" else _select_complex(bb, take, x, new)
        _store(bb, out, i, dt, new)
        return [new]
    last = _loop(b, n, body, [init])[0]
    _store(b, carry, ir.Constant(I64, 0), dt, last)
    b.ret_void()


# --------------------------------------------------------------------------- gathers

def _emit_iota(mb, key) -> None:
    fn, b = _function(mb, key, [PTR, I64, I64, I64])
    offs, start, step, n = fn.args

    def body(bb, i, _):
        bb.store(bb.add(start, bb.mul(i, step)), bb.gep(offs, [i], source_etype=I64))
        return []
    _loop(b, n, body)
    b.ret_void()


def _emit_index(mb, key) -> None:
    """Add ``stride * position`` for each index; an index out of range records
    (ERR_INDEX, index, size, label) in the error record and reads position 0, as
    compiled gathers do (``codegen.checked_index``)."""
    dt = _dtype(key[1])
    fn, b = _function(mb, key, [PTR, PTR, I64, I64, I64, PTR, I64])
    offs, idx, stride, size, label, err, n = fn.args

    def body(bb, i, _):
        pos = cg.checked_index(bb, _load(bb, idx, i, dt), dt, size, label, err)
        p = bb.gep(offs, [i], source_etype=I64)
        bb.store(bb.add(bb.load(p, typ=I64), bb.mul(pos, stride)), p)
        return []
    _loop(b, n, body)
    b.ret_void()


def _emit_gather(mb, key) -> None:
    size = int(key[1])
    ty = _SIZE_TYPES[size]
    fn, b = _function(mb, key, [PTR, PTR, PTR, I64])
    out, base, offs, n = fn.args

    def body(bb, i, _):
        off = bb.load(bb.gep(offs, [i], source_etype=I64), typ=I64)
        v = bb.load(bb.gep(base, [off], source_etype=ty), typ=ty, align=1)
        bb.store(v, bb.gep(out, [i], source_etype=ty), align=1)
        return []
    _loop(b, n, body)
    b.ret_void()


_EMIT = {"ew": _emit_ew, "copy": _emit_copy, "put": _emit_put, "init": _emit_init,
         "acc": _emit_acc, "hred": _emit_hred, "fold": _emit_fold, "mean": _emit_mean, "argx": _emit_argx,
         "args": _emit_args, "scanx": _emit_scanx, "scans": _emit_scans, "iota": _emit_iota,
         "index": _emit_index, "gather": _emit_gather}


def bundle_ir(vector_variants: dict | None = None) -> str:
    """The IR of the library's bundle (backend/library.py): every primitive of the full
    set and the sequencer, in one module."""
    from . import sequencer
    from .bytecode import full_set
    mb = cg.ModuleBuilder("lazyarray_blocks", vector_variants)
    for key in full_set():
        _EMIT[key[0]](mb, key)
    sequencer.build_into(mb.module)
    mb._keep_used()
    return str(mb.module)


def batch_ir(keys: tuple, vector_variants: dict | None = None) -> str:
    """The IR of a unit holding the primitives ``keys`` (backend/library.py's batches)."""
    return module(keys, vector_variants, name="lazyarray_batch")


def unit_ir(key: tuple, vector_variants: dict | None = None) -> str:
    """The IR of the unit (backend/native.py) holding primitive ``key``."""
    return module([key], vector_variants, name=symbol(key))


