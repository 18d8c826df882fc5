"""Compiled kernels: a kernel of a schedule as a unit of its own (backend/native.py).

``kernel_ir`` wraps codegen's loop nest of one kernel (contractions through
backend/matmul.py) in the function the sequencer calls in place of
interpreting that kernel (backend/tiers.py installs it).
"""
from __future__ import annotations

from llvmlite import ir

from .bytecode import kernel_slots
from .codegen import I1, I8, I64, PTR, KernelBuilder, ModuleBuilder, _load_ptr
from .matmul import emit_matmul
from .schedule import SCALAR_SLOT, Kernel


def kernel_ir(name: str, k: Kernel, vector_variants: dict | None = None) -> str:
    """The IR of a compiled kernel's unit (backend/native.py): ``k`` in the interpreter's
    kernel ABI (``bytecode.kernel_abi``: buffers, meta and scalars its own), exported as
    ``void name(ptr data pointers, ptr meta, ptr scalar pointers, ptr error record)``,
    which the sequencer calls in place of interpreting the kernel."""
    mb = ModuleBuilder(name, vector_variants)
    kernel = KernelBuilder(mb, k, 0, emit_matmul).build()
    n_slots = len(kernel_slots(k))
    n_scal = 1 + max(k.scalar_slots(), default=-1)
    fn = ir.Function(mb.module, ir.FunctionType(ir.VoidType(), [PTR] * 4), name=name)
    fn.attributes.add("nounwind")
    ptrs, meta, scals, err = fn.args
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    # the scalars side by side, as the kernel reads them (SCALAR_SLOT bytes each)
    block = b.alloca(ir.ArrayType(I8, SCALAR_SLOT * max(n_scal, 1)))
    block.align = 16
    memcpy = mb.declare("llvm.memcpy.p0.p0.i64", ir.VoidType(), [PTR, PTR, I64, I1], pure=False)
    for i in range(n_scal):
        dst = b.gep(block, [ir.Constant(I64, SCALAR_SLOT * i)], source_etype=I8)
        b.call(memcpy, [dst, _load_ptr(b, scals, i), ir.Constant(I64, SCALAR_SLOT),
                        ir.Constant(I1, 0)])
    b.call(kernel, [_load_ptr(b, ptrs, i) for i in range(n_slots)] + [meta, block, err])
    b.ret_void()
    mb._keep_used()
    return str(mb.module)
