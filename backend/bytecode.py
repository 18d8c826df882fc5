"""The interpreter's program code: a schedule's kernels as int64 words.

A schedule (backend/schedule.py) says what each kernel computes; this module
lays that out for the native sequencer (backend/sequencer.py), which runs it
block by block on the building blocks of backend/blocks.py.  Nothing here
depends on sizes: the sequencer reads sizes, offsets and strides from the
meta array the binding fills (backend/runtime.py), so one program code serves
every size, as compiled code does.

Layout (``Code.words``, int64): word 0 is the kernel count, word ``1 + i`` the
offset of kernel ``i``'s words.  A kernel's words start with the header below
(``K_*`` indices), then its load table (``LOAD_WORDS`` per load), instruction
table (``INS_WORDS`` per instruction), gather index tables, and the buffer
and scalar slots a compiled version of the kernel takes.  ``K_FN`` is 0 until
a compiled kernel is installed there (``Code.install``); from then on the
sequencer calls it instead of interpreting the kernel.

Registers hold ``REG_BYTES`` bytes of elements in memory form (512 doubles: the
kernel's ``K_BLOCK`` says how many of its widest dtype); a load whose stride
along the block's axis is one element reads the buffer where it lies.  The
binding chooses each kernel's block axis (``choose_axis``) and writes it, and
whether the block runs along a reduced axis, into two meta words per kernel
after the compiled kernels' meta (``vm_meta``).
"""
from __future__ import annotations

import array

from .ir import ARG_REDUCE, BINARY, TERNARY, UNARY, Op, ScalarType
from .names import name_of
from .schedule import Access, Kernel, Schedule, gemm_operands

REG_BYTES = 4096        # bytes per block register: 512 doubles, 256 complex128
# A kernel's registers live on the running thread's stack: past this many registers they
# shrink (never below MIN_REG_BYTES), so a long body's registers stay within
# STACK_REGS * REG_BYTES (256 KiB), as a 64-instruction body's always did.
STACK_REGS = 64
MIN_REG_BYTES = 512

# kernel header words
(K_FN, K_MODE, K_R, K_NOUT, K_META, K_VMETA, K_NLOADS, K_LOADS, K_NINS, K_INS, K_NREGS,
 K_VALUE, K_SSLOT, K_SSIZE, K_SMETA, K_PUT, K_INIT, K_ACC, K_HRED, K_MEAN, K_ARGX, K_ARGS,
 K_SCANX, K_SCANS, K_GEMM, K_GEMM_X, K_GEMM_Y, K_VSIZE, K_NSLOTS, K_SLOTS, K_NSCAL, K_SCALS,
 K_COPYS, K_RUNS, K_CRUNS, K_FOLD, K_BLOCK, K_RBYTES, K_NXS, K_XS, K_NPOST, K_PACC, K_PVALUE,
 K_PSTORE, HEADER) = range(45)
# modes
ELEMENTWISE, REDUCE, ARG, SCAN = range(4)
# a load: buffer slot, element size, meta position of its offset (strides follow, then
# (stride, size) per data-indexed axis), data-indexed axes, its strided-copy primitive
LOAD_WORDS = 5
L_SLOT, L_SIZE, L_META, L_NDYN, L_COPY = range(LOAD_WORDS)
# an instruction: kind, destination register, primitive, three operands, two extras
INS_WORDS = 8
I_KIND, I_DEST, I_FN, I_A, I_B, I_C, I_X, I_Y = range(INS_WORDS)
LOAD, SCALAR, OP, GATHER = range(4)
# a gather's index entry: index register, its check-and-add primitive, axis label
GATHER_WORDS = 3
# a further output of an elementwise kernel (``Kernel.outs``): the register holding its
# value, the load entry that addresses it, the building block that stores a block
XS_WORDS = 3
NONE = -1  # no operand


def prim_symbol(key: tuple) -> str:
    """The exported symbol of the building block ``key`` (backend/blocks.py)."""
    return "lzb_" + "_".join(key)


def ew_key(op: Op, dt: ScalarType, sdt: ScalarType) -> tuple:
    """The key of the elementwise primitive of ``op`` from ``sdt`` to ``dt``."""
    return ("ew", op.value, dt.name, sdt.name)


class Code:
    """A schedule's program code, linked to the building blocks' addresses.

    ``words``: int64 (an array.array: reading its address is cheap); ``kernel_at``: the
    word offset of each kernel; ``later`` lists the words of optional building blocks
    that were not loaded yet (a GEMM routine: 0 means the interpreter's generic loops),
    as (position, key); ``keep``: what installed kernels need alive.
    """

    __slots__ = ("words", "schedule", "kernel_at", "later", "keep", "address", "__weakref__")

    def __init__(self, words: array.array, schedule: Schedule, kernel_at: list,
                 later: list) -> None:
        self.words, self.schedule, self.kernel_at, self.later = words, schedule, kernel_at, later
        self.keep: list = []
        self.address = words.buffer_info()[0]

    def install(self, kernel: int, address: int, keep) -> None:
        """Run compiled code at ``address`` for kernel ``kernel`` from now on."""
        self.keep.append(keep)
        self.words[self.kernel_at[kernel] + K_FN] = address

    def installed(self, kernel: int) -> bool:
        return bool(self.words[self.kernel_at[kernel] + K_FN])

    def runs(self) -> tuple:
        """(interpreted, compiled) runs of this code's kernels so far (the sequencer
        counts them)."""
        w = self.words
        return (sum(w[a + K_RUNS] for a in self.kernel_at),
                sum(w[a + K_CRUNS] for a in self.kernel_at))


def meta_size(sched: Schedule) -> int:
    """Meta words a binding fills for the interpreter: the compiled kernels' and two
    per kernel (block axis, along a reduced axis)."""
    return sched.meta_size + 2 * len(sched.kernels)


def build(sched: Schedule, resolve) -> Code:
    """The program code of ``sched``; ``resolve(key)`` gives a building block's address
    (0 for one that is not loaded yet, which only GEMM routines may be)."""
    n = len(sched.kernels)
    words: list = [n] + [0] * n
    later: list = []
    at = []
    for i, k in enumerate(sched.kernels):
        words[1 + i] = len(words)
        at.append(len(words))
        _kernel(words, later, k, sched.meta_size + 2 * i, resolve)
    return Code(array.array("q", words), sched, at, later)


def _mode(k: Kernel) -> int:
    if k.reduce is None:
        return ELEMENTWISE
    if k.scan:
        return SCAN
    if k.reduce in ARG_REDUCE:
        return ARG
    return REDUCE


def _ins_dtype(ins: tuple) -> ScalarType:
    return ins[1] if ins[0] in ("load", "scalar", "gather") else ins[2]


def _kernel(words: list, later: list, k: Kernel, vm_meta: int, resolve) -> None:
    """Append kernel ``k``'s words (header, loads, instructions, tables)."""
    base = len(words)
    body = k.body
    r = k.n_out + k.n_red
    mode = _mode(k)
    regs, n_regs = _registers(k)
    # an epilogue's registers follow the body's: the result's (the accumulator's or the
    # lanes' sum, pointed to when it runs), then one per instruction
    post = [n_regs + t for t in range(len(k.post))]
    n_regs += len(post)
    vdt = _ins_dtype(body[k.value])
    vsize, ssize = vdt.itemsize, k.out_dtype.itemsize
    # one pass over the body and epilogue: the widest element, each load's dtype
    widest = max(8, ssize)  # int64 at least: index blocks of gathers and arg-reductions
    load_dt: dict = {}
    for ins in body + k.post:
        kind = ins[0]
        dt = ins[2] if kind == "op" else ins[1]
        if dt.itemsize > widest:
            widest = dt.itemsize
        if kind == "load" or kind == "gather":  # its load number is ins[2]
            load_dt[ins[2]] = dt
    for v, j in k.outs:  # a further output's entry: the dtype of its value
        load_dt[j] = _ins_dtype(body[v])
    h = [0] * HEADER
    h[K_MODE], h[K_R], h[K_NOUT], h[K_META], h[K_VMETA] = mode, r, k.n_out, k.meta_base, vm_meta
    h[K_NREGS], h[K_VALUE], h[K_VSIZE] = n_regs, regs[k.value], vsize
    h[K_SSLOT], h[K_SSIZE] = k.store.buf, ssize
    h[K_RBYTES] = rbytes = register_bytes(n_regs)
    h[K_BLOCK] = rbytes // widest  # elements a block holds: a register over the widest
    h[K_PUT], h[K_COPYS] = resolve(_PUT[ssize]), resolve(_COPY[vsize])
    if mode != ELEMENTWISE:
        _reduction(h, base, later, k, mode, vdt, resolve)
    words.extend(h)
    # loads: slot, element size, meta position (sizes first, then per load its offset,
    # strides and dyn pairs, then the store), data-indexed axes, strided copy
    pos = k.meta_base + r
    for j, a in enumerate(k.loads):
        size = load_dt[j].itemsize
        words.extend((a.buf, size, pos, len(a.dyn), resolve(_COPY[size])))
        pos += r + 1 + 2 * len(a.dyn)
    words[base + K_SMETA] = pos
    words[base + K_NLOADS], words[base + K_LOADS] = len(k.loads), HEADER
    # instructions, then the gather tables they point to
    ins_at = len(words) - base
    words[base + K_NINS], words[base + K_INS] = len(body), ins_at
    gathers = []
    emit = words.extend
    _instructions(emit, resolve, body, regs, gathers)
    if k.post:  # after the body's: see backend/sequencer.py (post_block)
        words[base + K_NPOST], words[base + K_PACC] = len(k.post) - 1, post[0]
        words[base + K_PVALUE] = post[-1]
        # a matrix product's epilogue reads the product from the output (backend/
        # epilogue.py): where the generic loops run it (no GEMM routine loaded yet), each
        # result is stored before its epilogue
        words[base + K_PSTORE] = int(k.matmul)
        _instructions(emit, resolve, k.post[1:], post[1:], [], post)
    for e, entries in gathers:
        words[base + ins_at + INS_WORDS * e + I_C] = len(words) - base
        words.extend(entries)
    # the slots a compiled kernel takes (its output first), and its scalars
    slots = kernel_slots(k)
    words[base + K_NSLOTS], words[base + K_SLOTS] = len(slots), len(words) - base
    words.extend(slots)
    scal = k.scalar_slots()
    words[base + K_NSCAL], words[base + K_SCALS] = len(scal), len(words) - base
    words.extend(scal)
    words[base + K_NXS], words[base + K_XS] = len(k.outs), len(words) - base
    for v, j in k.outs:
        words.extend((regs[v], j, resolve(_PUT[load_dt[j].itemsize])))


def _instructions(emit, resolve, body, regs: list, gathers: list, ids: list | None = None):
    """Emit the instruction words of ``body`` (``regs``: each one's register); ``ids``
    (an epilogue's): the register of each value its operands number, else ``regs``."""
    ids = regs if ids is None else ids
    for t, ins in enumerate(body):
        kind = ins[0]
        if kind == "op":
            srcs = ins[3]
            fn = resolve(_ew(ins[1], ins[2], ins[4]))
            n = len(srcs)
            emit((OP, regs[t], fn, ids[srcs[0]], ids[srcs[1]] if n > 1 else NONE,
                  ids[srcs[2]] if n > 2 else NONE, 0, 0))
        elif kind == "load":
            emit((LOAD, regs[t], 0, ins[2], NONE, NONE, 0, 0))
        elif kind == "scalar":
            size = ins[1].itemsize
            emit((SCALAR, regs[t], resolve(_COPY[size]), ins[2], size, NONE, 0, 0))
        else:
            emit(_gather(ins, regs, t, body, resolve, gathers))


def _reduction(h: list, base: int, later: list, k: Kernel, mode: int, vdt: ScalarType,
               resolve) -> None:
    op, d = k.reduce.value, vdt.name
    if mode == ARG:
        init = "max" if k.reduce is Op.ARGMAX else "min"
        h[K_INIT] = resolve(("init", init, d))
        h[K_ARGX], h[K_ARGS] = resolve(("argx", op, d)), resolve(("args", op, d))
        return
    h[K_INIT] = resolve(("init", op, d))
    if mode == SCAN:
        h[K_SCANX], h[K_SCANS] = resolve(("scanx", op, d)), resolve(("scans", op, d))
        return
    h[K_ACC], h[K_HRED] = resolve(("acc", op, d)), resolve(("hred", op, d))
    if k.reduce is Op.MEAN:
        h[K_MEAN] = resolve(("mean", d))
    if k.reduce is Op.PROD and vdt.kind == "c":  # order decides special values: sequential
        h[K_FOLD] = resolve(("fold", op, d))
    fast = gemm_operands(k) if k.matmul else None
    if fast is not None:
        h[K_GEMM_X], h[K_GEMM_Y] = fast
        key = ("gemm", k.out_dtype.name)
        h[K_GEMM] = resolve(key)
        if not h[K_GEMM]:
            later.append((base + K_GEMM, key))


_EW_KEYS: dict = {}  # (op, dtype, source dtype) -> its building block's key


def _ew(op: Op, dt: ScalarType, sdt: ScalarType) -> tuple:
    key = _EW_KEYS.get((op, dt, sdt))
    if key is None:
        key = _EW_KEYS[(op, dt, sdt)] = ew_key(op, dt, sdt)
    return key


def _gather(ins: tuple, regs: list, t: int, body: tuple, resolve, gathers: list) -> tuple:
    """The words of gather instruction ``t`` (its index table is appended later)."""
    _, dt, j, idx, labels = ins
    entries = []
    for src, label in zip(idx, labels):
        entries += (regs[src], resolve(("index", _ins_dtype(body[src]).name)), label)
    gathers.append((t, entries))
    return (GATHER, regs[t], resolve(("gather", str(dt.itemsize))), j, len(idx), 0,
            resolve(("iota",)), 0)


_COPY = {n: ("copy", str(n)) for n in (1, 2, 4, 8, 16)}
_PUT = {n: ("put", str(n)) for n in (1, 2, 4, 8, 16)}


def register_bytes(n_regs: int) -> int:
    """Bytes per block register of a kernel using ``n_regs`` registers (a power of two)."""
    rbytes = REG_BYTES
    while n_regs * rbytes > STACK_REGS * REG_BYTES and rbytes > MIN_REG_BYTES:
        rbytes //= 2
    return rbytes


def _registers(k: Kernel) -> tuple:
    """A register per instruction, reused once its value is dead (scalars keep theirs:
    they are filled once per run).  A destination never shares a register with an
    operand of its own instruction."""
    body = k.body
    n_ins = len(body)
    last = list(range(n_ins))
    for t, ins in enumerate(body):
        if ins[0] == "op" or ins[0] == "gather":
            for s in ins[3]:
                last[s] = t
    last[k.value] = n_ins
    for v, _ in k.outs:  # stored once the block is computed
        last[v] = n_ins
    free: list = []
    regs = [0] * n_ins
    n = 0
    for t, ins in enumerate(body):
        kind = ins[0]
        if free and kind != "scalar":
            regs[t] = free.pop()
        else:
            regs[t] = n
            n += 1
        if kind == "op" or kind == "gather":
            srcs = ins[3]
            for i, s in enumerate(srcs):
                # each operand once (x * x reads one register), scalars never freed
                if last[s] == t and body[s][0] != "scalar" and s not in srcs[:i]:
                    free.append(regs[s])
    return regs, n


def kernel_slots(k: Kernel) -> list:
    """The buffer slots a compiled kernel takes, in order: its output, then the buffers
    it loads (each once)."""
    return [k.store.buf] + [s for s in dict.fromkeys(a.buf for a in k.loads) if s != k.store.buf]


def kernel_abi(k: Kernel) -> Kernel:
    """``k`` as a compiled kernel sees it: buffers numbered in ``kernel_slots`` order,
    scalars in slot order, its meta from 0, no views (their strides are in the meta).
    Equal results mean one compiled kernel serves both, in any program."""
    pos = {s: i for i, s in enumerate(kernel_slots(k))}
    scal = {s: i for i, s in enumerate(k.scalar_slots())}

    def own(instructions):
        return tuple(("scalar", ins[1], scal[ins[2]]) if ins[0] == "scalar" else ins
                     for ins in instructions)
    loads = tuple(Access(pos[a.buf], (), (), a.dyn) for a in k.loads)
    return k.replace(body=own(k.body), post=own(k.post), loads=loads, store=Access(0, (), ()),
                     iter_axes=(), meta_base=0)


def kernel_name(k: Kernel) -> str:
    """The unit name (and symbol) of kernel ``k`` (in the ABI of ``kernel_abi``)."""
    return name_of("lzk_", k.signature(), 12)


# A reduction over rows of at most this many elements runs across the output axis even where
# its rows are contiguous: a lane block per row paid the lanes' set-up, horizontal sum and
# store per result (sum(x * x, axis=1) interpreted, 100000x20: 10.0 -> 2.8 ms; 10000x200:
# 3.8 -> 2.1 ms; 5000x400: 2.5 -> 3.1 ms, the rows a block reads no longer in cache)
ACROSS_ROWS = 256


def choose_axis(k: Kernel, sizes: list, load_strides: list) -> tuple:
    """(block axis, whether it is a reduced axis) for kernel ``k`` at these sizes, given
    each load's strides over the iteration axes.

    Elementwise kernels run blocks along their innermost axis.  A reduction runs them
    along its innermost reduced axis (lane accumulators, or a sequential scan) or across
    its innermost output axis (one accumulator per output element): the one whose loads
    are contiguous, else the longer; across when the reduced axis has at most
    ``ACROSS_ROWS`` elements and at least 16 results lie along the output axis.
    """
    r = k.n_out + k.n_red
    if r == 0:
        return -1, 0
    if k.reduce is None or k.n_out == 0:
        return r - 1, int(k.reduce is not None)
    o, red = k.n_out - 1, r - 1
    unit_o = sum(abs(st[o]) == 1 for st in load_strides)
    unit_r = sum(abs(st[red]) == 1 for st in load_strides)
    so, sr = sizes[o], sizes[red]
    if so >= 16 and (unit_o > unit_r or (unit_o == unit_r and so >= sr)
                     or sr <= ACROSS_ROWS):
        return o, 0
    if sr >= 16 or sr >= so:
        return red, 1
    return o, 0


# --------------------------------------------------------------------------- the full set

_KINDS = {"b": ["bool"], "i": ["int8", "int16", "int32", "int64"],
          "u": ["uint8", "uint16", "uint32", "uint64"], "f": ["float32", "float64"],
          "c": ["complex64", "complex128"]}


def _names(kinds: str) -> list:
    return [n for k in kinds for n in _KINDS[k]]


# op -> (source dtype kinds, result rule) for the elementwise ops the front end records
# ("same", "bool", or "real": the real dtype of a complex source)
_EW_TABLE = {
    **{op: ("iufc", "same") for op in (Op.ADD, Op.SUBTRACT, Op.MULTIPLY, Op.POW, Op.NEGATIVE,
                                       Op.SIGN, Op.ROUND)},
    Op.DIVIDE: ("fc", "same"),
    **{op: ("iuf", "same") for op in (Op.FLOOR_DIVIDE, Op.REMAINDER, Op.MAXIMUM, Op.MINIMUM,
                                      Op.CEIL, Op.FLOOR, Op.TRUNC)},
    **{op: ("f", "same") for op in (Op.ATAN2, Op.HYPOT, Op.COPYSIGN, Op.NEXTAFTER,
                                    Op.LOGADDEXP)},
    **{op: ("fc", "same") for op in (Op.SQRT, Op.EXP, Op.EXPM1, Op.LOG, Op.LOG1P, Op.LOG2,
                                     Op.LOG10, Op.SIN, Op.COS, Op.TAN, Op.ASIN, Op.ACOS,
                                     Op.ATAN, Op.SINH, Op.COSH, Op.TANH, Op.ASINH, Op.ACOSH,
                                     Op.ATANH)},
    Op.ABS: ("iufc", "real"),
    **{op: ("biufc", "bool") for op in (Op.EQUAL, Op.NOT_EQUAL)},
    **{op: ("biuf", "bool") for op in (Op.LESS, Op.LESS_EQUAL, Op.GREATER, Op.GREATER_EQUAL)},
    **{op: ("b", "same") for op in (Op.LOGICAL_AND, Op.LOGICAL_OR, Op.LOGICAL_XOR,
                                    Op.LOGICAL_NOT)},
    **{op: ("biu", "same") for op in (Op.BITWISE_AND, Op.BITWISE_OR, Op.BITWISE_XOR,
                                      Op.BITWISE_INVERT)},
    **{op: ("iu", "same") for op in (Op.BITWISE_LEFT_SHIFT, Op.BITWISE_RIGHT_SHIFT)},
    **{op: ("iufc", "bool") for op in (Op.ISNAN, Op.ISINF, Op.ISFINITE)},
    Op.SIGNBIT: ("f", "bool"),
    **{op: ("c", "real") for op in (Op.REAL, Op.IMAG)},
    Op.CONJ: ("c", "same"),
}
_REAL = {"complex64": "float32", "complex128": "float64"}


def full_set() -> tuple:
    """Every primitive the interpreter may call for programs the front end records
    (computed once)."""
    global _FULL_SET
    if _FULL_SET is None:
        _FULL_SET = tuple(_full_set())
    return _FULL_SET


_FULL_SET = None


def _full_set() -> list:
    keys = []
    for op, (kinds, rule) in _EW_TABLE.items():
        for s in _names(kinds):
            d = "bool" if rule == "bool" else (_REAL.get(s, s) if rule == "real" else s)
            keys.append(("ew", op.value, d, s))
    every = _names("biufc")
    keys += [("ew", "astype", d, s) for s in every for d in every]
    keys += [("ew", "where", d, "bool") for d in every]
    keys += [(k, str(s)) for k in ("copy", "put", "gather") for s in (1, 2, 4, 8, 16)]
    keys += [("iota",)] + [("index", d) for d in _names("biu")]
    for op, kinds in ((Op.SUM, "iufc"), (Op.PROD, "iufc"), (Op.MAX, "biuf"), (Op.MIN, "biuf"),
                      (Op.ANY, "b"), (Op.ALL, "b"), (Op.MEAN, "fc")):
        for d in _names(kinds):
            keys += [(k, op.value, d) for k in ("init", "acc", "hred")]
            if op in (Op.SUM, Op.PROD):
                keys += [(k, op.value, d) for k in ("scanx", "scans")]
            if op is Op.PROD and d.startswith("complex"):
                keys.append(("fold", op.value, d))
    keys += [("mean", d) for d in _names("fc")]
    for op in ARG_REDUCE:
        keys += [(k, op.value, d) for k in ("argx", "args") for d in _names("biuf")]
    return keys


assert BINARY | UNARY | TERNARY >= set(_EW_TABLE)
