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

Registers hold ``blocks.BLOCK`` elements in memory form; a load whose stride
along the block's axis is one element reads the buffer where it lies.  The
binding chooses each kernel's block axis (``choose_axis``) and writes it, and
whether the block runs along a reduced axis, into two meta words per kernel
after the compiled kernels' meta (``vm_meta``).
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, replace

import numpy as np

from .ir import ARG_REDUCE, BINARY, TERNARY, UNARY, Op, ScalarType
from .schedule import Access, Kernel, Schedule, gemm_operands

# kernel header words
(K_FN, K_MODE, K_R, K_NOUT, K_META, K_VMETA, K_NLOADS, K_LOADS, K_NINS, K_INS, K_NREGS,
 K_VALUE, K_SSLOT, K_SSIZE, K_SMETA, K_PUT, K_INIT, K_ACC, K_HRED, K_MEAN, K_ARGX, K_ARGS,
 K_SCANX, K_SCANS, K_GEMM, K_GEMM_X, K_GEMM_Y, K_VSIZE, K_NSLOTS, K_SLOTS, K_NSCAL, K_SCALS,
 K_COPYS, K_RUNS, K_CRUNS, K_FOLD, HEADER) = range(37)
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
NONE = -1  # no operand


def prim_symbol(key: tuple) -> str:
    """The exported symbol of the building block ``key`` (backend/blocks.py)."""
    return "lzb_" + "_".join(key)


def ew_key(op: Op, dt: ScalarType, sdt: ScalarType) -> tuple:
    """The key of the elementwise primitive of ``op`` from ``sdt`` to ``dt``."""
    return ("ew", op.value, dt.name, sdt.name)


def elsize(dt: ScalarType) -> int:
    """Bytes per element in memory (bool is one byte)."""
    return dt.np.itemsize


@dataclass
class Code:
    """A schedule's program code and the primitives it needs.

    ``words`` is filled with primitive addresses by ``link`` (a mapping from
    primitive key to address); until then it holds placeholders.
    """

    words: np.ndarray
    name: str                     # the schedule's name
    fixups: list                  # (word position, primitive key)
    kernel_at: list               # word offset of each kernel
    vm_meta: list                 # meta position of each kernel's two interpreter words
    keep: list = field(default_factory=list)  # what installed kernels need alive

    @property
    def keys(self) -> set:
        return {k for _, k in self.fixups}

    def link(self, addresses: dict) -> None:
        for pos, key in self.fixups:
            self.words[pos] = addresses[key]

    @property
    def address(self) -> int:
        return self.words.ctypes.data

    def install(self, kernel: int, address: int, keep) -> None:
        """Run compiled code at ``address`` for kernel ``kernel`` from now on."""
        self.keep.append(keep)
        self.words[self.kernel_at[kernel] + K_FN] = address

    def installed(self, kernel: int) -> bool:
        return bool(self.words[self.kernel_at[kernel] + K_FN])

    def runs(self) -> tuple:
        """(interpreted, compiled) runs of this code's kernels so far (the sequencer
        counts them)."""
        at = np.asarray(self.kernel_at, dtype=np.int64)
        if not len(at):
            return 0, 0
        return int(self.words[at + K_RUNS].sum()), int(self.words[at + K_CRUNS].sum())


def meta_size(sched: Schedule) -> int:
    """Meta words a binding fills for the interpreter: the compiled kernels' and two
    per kernel (block axis, along a reduced axis)."""
    return sched.meta_size + 2 * len(sched.kernels)


def build(sched: Schedule) -> Code:
    """The program code of ``sched`` (primitive addresses still to link)."""
    words: list = [len(sched.kernels)] + [0] * len(sched.kernels)
    fixups: list = []
    at = []
    vm = []
    for i, k in enumerate(sched.kernels):
        words[1 + i] = len(words)
        at.append(len(words))
        vm.append(sched.meta_size + 2 * i)
        _kernel(words, fixups, k, sched, vm[-1])
    arr = np.array(words, dtype=np.int64)
    return Code(arr, sched.name, fixups, at, vm)


class _Words:
    """Words of one kernel being laid out, with primitive fix-ups."""

    def __init__(self, words: list, fixups: list) -> None:
        self.words, self.fixups, self.base = words, fixups, len(words)

    def extend(self, n: int) -> int:
        pos = len(self.words)
        self.words.extend([0] * n)
        return pos

    def set(self, pos: int, value: int) -> None:
        self.words[pos] = value

    def prim(self, pos: int, key: tuple) -> None:
        self.words[pos] = 0
        self.fixups.append((pos, key))


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


def _kernel(words: list, fixups: list, k: Kernel, sched: Schedule, vm_meta: int) -> None:
    w = _Words(words, fixups)
    h = w.extend(HEADER)
    r = k.n_out + k.n_red
    mode = _mode(k)
    regs, n_regs = _registers(k)
    value_dt = _ins_dtype(k.body[k.value])
    w.set(h + K_MODE, mode)
    w.set(h + K_R, r)
    w.set(h + K_NOUT, k.n_out)
    w.set(h + K_META, k.meta_base)
    w.set(h + K_VMETA, vm_meta)
    w.set(h + K_NREGS, n_regs)
    w.set(h + K_VALUE, regs[k.value])
    w.set(h + K_VSIZE, elsize(value_dt))
    w.set(h + K_SSLOT, k.store.buf)
    w.set(h + K_SSIZE, elsize(k.out_dtype))
    w.prim(h + K_PUT, ("put", str(elsize(k.out_dtype))))
    w.prim(h + K_COPYS, ("copy", str(elsize(value_dt))))
    # meta positions: sizes, then per load (offset, strides, dyn pairs), then the store
    pos = k.meta_base + r
    load_meta = []
    for a in k.loads:
        load_meta.append(pos)
        pos += r + 1 + 2 * len(a.dyn)
    w.set(h + K_SMETA, pos)
    _reduction(w, h, k, mode, value_dt)
    # loads
    w.set(h + K_NLOADS, len(k.loads))
    lt = w.extend(LOAD_WORDS * len(k.loads))
    w.set(h + K_LOADS, lt - w.base)
    load_dt = {ins[2]: ins[1] for ins in k.body if ins[0] in ("load", "gather")}
    for j, a in enumerate(k.loads):
        e = lt + LOAD_WORDS * j
        size = elsize(load_dt[j])
        w.set(e + L_SLOT, a.buf)
        w.set(e + L_SIZE, size)
        w.set(e + L_META, load_meta[j])
        w.set(e + L_NDYN, len(a.dyn))
        w.prim(e + L_COPY, ("copy", str(size)))
    # instructions
    w.set(h + K_NINS, len(k.body))
    it = w.extend(INS_WORDS * len(k.body))
    w.set(h + K_INS, it - w.base)
    for t, ins in enumerate(k.body):
        _instruction(w, it + INS_WORDS * t, ins, regs, t, k)
    # the slots a compiled kernel takes (its output first), and its scalars
    slots = kernel_slots(k)
    scal = sorted({ins[2] for ins in k.body if ins[0] == "scalar"})
    w.set(h + K_NSLOTS, len(slots))
    p = w.extend(len(slots))
    w.set(h + K_SLOTS, p - w.base)
    for i, s in enumerate(slots):
        w.set(p + i, s)
    w.set(h + K_NSCAL, len(scal))
    p = w.extend(len(scal))
    w.set(h + K_SCALS, p - w.base)
    for i, s in enumerate(scal):
        w.set(p + i, s)


def _reduction(w: _Words, h: int, k: Kernel, mode: int, vdt: ScalarType) -> None:
    if mode == ELEMENTWISE:
        return
    op = k.reduce.value
    d = vdt.name
    if mode == ARG:
        init = Op.MAX if k.reduce is Op.ARGMAX else Op.MIN
        w.prim(h + K_INIT, ("init", init.value, d))
        w.prim(h + K_ARGX, ("argx", op, d))
        w.prim(h + K_ARGS, ("args", op, d))
        return
    w.prim(h + K_INIT, ("init", op, d))
    if mode == SCAN:
        w.prim(h + K_SCANX, ("scanx", op, d))
        w.prim(h + K_SCANS, ("scans", op, d))
        return
    w.prim(h + K_ACC, ("acc", op, d))
    w.prim(h + K_HRED, ("hred", op, d))
    if k.reduce is Op.PROD and vdt.kind == "c":  # order decides special values: sequential
        w.prim(h + K_FOLD, ("fold", op, d))
    if k.reduce is Op.MEAN:
        w.prim(h + K_MEAN, ("mean", d))
    if k.matmul:
        fast = gemm_operands(k)
        if fast is not None:
            w.set(h + K_GEMM_X, fast[0])
            w.set(h + K_GEMM_Y, fast[1])
            w.prim(h + K_GEMM, ("gemm", k.out_dtype.name))


def _instruction(w: _Words, e: int, ins: tuple, regs: list, t: int, k: Kernel) -> None:
    w.set(e + I_DEST, regs[t])
    for f in (I_A, I_B, I_C):
        w.set(e + f, NONE)
    kind = ins[0]
    if kind == "load":
        w.set(e + I_KIND, LOAD)
        w.set(e + I_A, ins[2])
    elif kind == "scalar":
        w.set(e + I_KIND, SCALAR)
        w.set(e + I_A, ins[2])
        w.set(e + I_B, elsize(ins[1]))
        w.prim(e + I_FN, ("copy", str(elsize(ins[1]))))
    elif kind == "gather":
        _, dt, j, idx, labels = ins
        w.set(e + I_KIND, GATHER)
        w.set(e + I_A, j)
        w.set(e + I_B, len(idx))
        g = w.extend(GATHER_WORDS * len(idx))
        w.set(e + I_C, g - w.base)
        for q, (src, label) in enumerate(zip(idx, labels)):
            w.set(g + GATHER_WORDS * q, regs[src])
            w.prim(g + GATHER_WORDS * q + 1, ("index", _ins_dtype(k.body[src]).name))
            w.set(g + GATHER_WORDS * q + 2, label)
        w.prim(e + I_FN, ("gather", str(elsize(dt))))
        w.prim(e + I_X, ("iota",))
    else:
        _, op, dt, srcs, sdt = ins
        w.set(e + I_KIND, OP)
        w.prim(e + I_FN, ew_key(op, dt, sdt))
        for f, s in zip((I_A, I_B, I_C), srcs):
            w.set(e + f, regs[s])


def _registers(k: Kernel) -> tuple:
    """A register per instruction, reused once its value is dead (scalars keep theirs:
    they are filled once per run).  A destination never shares a register with an
    operand of its own instruction."""
    body = k.body
    last = list(range(len(body)))
    for t, ins in enumerate(body):
        for s in _operands(ins):
            last[s] = t
    last[k.value] = len(body)
    free: list = []
    regs = [0] * len(body)
    n = 0
    dying: dict = {}
    for t, ins in enumerate(body):
        if free and ins[0] != "scalar":
            regs[t] = free.pop()
        else:
            regs[t] = n
            n += 1
        for s in set(_operands(ins)):
            if last[s] == t and body[s][0] != "scalar":
                dying.setdefault(t, []).append(regs[s])
        free.extend(dying.pop(t, ()))
    return regs, n


def _operands(ins: tuple) -> tuple:
    if ins[0] == "op":
        return ins[3]
    if ins[0] == "gather":
        return ins[3]
    return ()


def kernel_slots(k: Kernel) -> list:
    """The buffer slots a compiled kernel takes, in order: its output, then the buffers
    it loads (each once)."""
    return [k.store.buf] + [s for s in dict.fromkeys(a.buf for a in k.loads) if s != k.store.buf]


def kernel_abi(k: Kernel) -> Kernel:
    """``k`` as a compiled kernel sees it: buffers numbered in ``kernel_slots`` order,
    scalars in slot order, its meta from 0, no views (their strides are in the meta).
    Equal results mean one compiled kernel serves both, in any program."""
    pos = {s: i for i, s in enumerate(kernel_slots(k))}
    scal = {s: i for i, s in enumerate(sorted({ins[2] for ins in k.body if ins[0] == "scalar"}))}
    body = tuple(("scalar", ins[1], scal[ins[2]]) if ins[0] == "scalar" else ins
                 for ins in k.body)
    loads = tuple(Access(pos[a.buf], (), (), a.dyn) for a in k.loads)
    return replace(k, body=body, loads=loads, store=Access(0, (), ()), iter_axes=(),
                   meta_base=0)


def kernel_name(k: Kernel) -> str:
    """The unit name (and symbol) of kernel ``k`` (in the ABI of ``kernel_abi``)."""
    return "lzk_" + hashlib.sha1(repr(k.signature()).encode()).hexdigest()[:24]


def choose_axis(k: Kernel, sizes: list, load_strides: list) -> tuple:
    """(block axis, whether it is a reduced axis) for kernel ``k`` at these sizes, given
    each load's strides over the iteration axes.

    Elementwise kernels run blocks along their innermost axis.  A reduction runs them
    along its innermost reduced axis (lane accumulators, or a sequential scan) or across
    its innermost output axis (one accumulator per output element): the one whose loads
    are contiguous, else the longer.
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
    if so >= 16 and (unit_o > unit_r or (unit_o == unit_r and so >= sr)):
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


def full_set() -> list:
    """Every primitive the interpreter may call for programs the front end records."""
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
