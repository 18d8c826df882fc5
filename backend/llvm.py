"""The target machine, the optimisation pipeline and the one JIT engine.

LLVM is initialised on the first compile, not at import.  Every compiled
module goes into a single MCJIT engine: LLVM never gives JIT memory back, so
an engine per kernel would only grow.  IR is verified before and after
optimisation.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import threading
import time
from dataclasses import dataclass

import llvmlite.binding as llvm

OPT_LEVEL = 3

# glibc's libmvec: vector variants of libm functions, used by the loop vectoriser.
_VECTOR_WIDTHS = {"avx512f": (("e", 8), ("d", 4)), "avx2": (("d", 4),)}


@dataclass
class Compiled:
    """A compiled program: the entry function and how it was made."""

    cfuncs: list          # one entry function per native stage
    ir: str
    optimized_ir: str
    seconds: dict


class Codegen:
    """Owns the target machine, the pass pipeline and the JIT engine."""

    def __init__(self) -> None:
        llvm.initialize_native_target()
        llvm.initialize_native_asmprinter()
        self.triple = llvm.get_process_triple()
        self.cpu = llvm.get_host_cpu_name()
        self.features = llvm.get_host_cpu_features().flatten()
        target = llvm.Target.from_triple(self.triple)
        self.tm = target.create_target_machine(cpu=self.cpu, features=self.features,
                                               opt=OPT_LEVEL, jit=True)
        empty = llvm.parse_assembly("")
        empty.triple = self.triple
        self.engine = llvm.create_mcjit_compiler(empty, self.tm)
        self.lock = threading.Lock()
        self.vector_variants = self._load_libmvec()
        self._modules = []  # keep ModuleRefs alive: the engine owns their code

    def _load_libmvec(self) -> dict:
        """libm name -> [(libmvec symbol, lanes)] for the variants this CPU can run."""
        path = ctypes.util.find_library("mvec")
        feats = {f[1:] for f in self.features.split(",") if f.startswith("+")}
        isas = [(isa, lanes) for feat, isa, lanes in (("avx2", "d", 4), ("avx512f", "e", 8))
                if feat in feats]
        if not path or not isas:
            return {}
        try:
            llvm.load_library_permanently(path)
            lib = ctypes.CDLL(path)
        except (RuntimeError, OSError):
            return {}
        from .codegen import LIBMVEC
        table = {}
        for base in LIBMVEC:
            vs = "vv" if base in ("pow", "atan2", "hypot") else "v"
            for name, scale in ((base, 1), (base + "f", 2)):
                found = [(f"_ZGV{isa}N{lanes * scale}{vs}_{name}", lanes * scale)
                         for isa, lanes in isas]
                found = [(m, n) for m, n in found if hasattr(lib, m)]
                if found:
                    table[name] = found
        return table

    def compile(self, ir_text: str, entry: str, n_entries: int) -> Compiled:
        """Verify, optimise and JIT ``ir_text``; return its functions ``<entry>_<i>``."""
        t0 = time.perf_counter()
        mod = llvm.parse_assembly(ir_text)
        mod.triple = self.triple
        mod.data_layout = str(self.tm.target_data)
        mod.verify()
        t1 = time.perf_counter()
        pto = llvm.create_pipeline_tuning_options(speed_level=OPT_LEVEL)
        pto.loop_vectorization = True
        pto.slp_vectorization = True
        pb = llvm.create_pass_builder(self.tm, pto)
        pb.getModulePassManager().run(mod, pb)
        mod.verify()
        t2 = time.perf_counter()
        with self.lock:
            self.engine.add_module(mod)
            self.engine.finalize_object()
            addrs = [self.engine.get_function_address(f"{entry}_{i}") for i in range(n_entries)]
            self._modules.append(mod)
        t3 = time.perf_counter()
        return Compiled([ENTRY_TYPE(a) for a in addrs], ir_text, str(mod),
                        {"parse": t1 - t0, "optimize": t2 - t1, "codegen": t3 - t2})

    def asm(self, optimized_ir: str) -> str:
        mod = llvm.parse_assembly(optimized_ir)
        return self.tm.emit_assembly(mod)


# entry(buffer pointers, meta, scalars, error record) -> error code
ENTRY_TYPE = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
                              ctypes.c_void_p)

_codegen: Codegen | None = None
_init_lock = threading.Lock()


def codegen() -> Codegen:
    """The process-wide code generator, created on first use."""
    global _codegen
    if _codegen is None:
        with _init_lock:
            if _codegen is None:
                _codegen = Codegen()
    return _codegen
