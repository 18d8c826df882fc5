"""The target machine, the optimisation pipeline and the one JIT engine.

LLVM is initialised on the first compile, not at import.  Object code is
linked into one ORC LLJIT engine, each program as its own library whose
resource tracker the ``Compiled`` object owns: the code is unloaded when the
last object that can call it (a cache entry, a bound runner, a prepared
program) is gone, so a capped cache bounds memory.  IR is verified before and
after optimisation.
"""
from __future__ import annotations

import atexit
import ctypes
import ctypes.util
import itertools
import threading
import time
from dataclasses import dataclass

import llvmlite.binding as llvm

from . import worker

OPT_LEVEL = 3

# glibc's libmvec: vector variants of libm functions, used by the loop vectoriser.
_VECTOR_WIDTHS = {"avx512f": (("e", 8), ("d", 4)), "avx2": (("d", 4),)}


@dataclass
class Compiled:
    """A compiled program: its entry functions (one per native stage).

    Holding it keeps the code loaded; whoever calls ``cfuncs`` must hold it.
    """

    cfuncs: list
    seconds: dict         # where compile time went (empty when loaded from disk)
    tracker: object = None  # the library's resource tracker: unloads the code when freed
    kernel_funcs: dict = None  # kernel number -> its own entry, for kernels sharing a stage


class Codegen:
    """Owns the target machine, the pass pipeline and the JIT engine."""

    def __init__(self, in_process: bool = False) -> None:
        llvm.initialize_native_target()
        llvm.initialize_native_asmprinter()
        self.triple = llvm.get_process_triple()
        self.cpu = llvm.get_host_cpu_name()
        self.features = llvm.get_host_cpu_features().flatten()
        target = llvm.Target.from_triple(self.triple)
        self.tm = target.create_target_machine(cpu=self.cpu, features=self.features,
                                               opt=OPT_LEVEL, jit=True)
        self.engine = llvm.create_lljit_compiler(self.tm)
        self._libraries = itertools.count()  # a library name is never reused
        self.lock = threading.Lock()
        self.vector_variants = self._load_libmvec()
        self._pool = None
        if not in_process and worker.enabled():
            self._pool = worker.Pool(self.compile_here)
            atexit.register(self._pool.close)

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

    def fingerprint(self) -> str:
        """What the generated code depends on besides the program itself."""
        import llvmlite
        from . import diskcache
        return diskcache.fingerprint(llvmlite.__version__, str(llvm.llvm_version_info),
                                     self.triple, self.cpu, self.features,
                                     repr(sorted(self.vector_variants.items())), str(OPT_LEVEL))

    def optimize(self, ir_text: str):
        """Parse, verify, run the optimisation pipeline, verify: (module, seconds)."""
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
        return mod, {"parse": t1 - t0, "optimize": time.perf_counter() - t1}

    def compile(self, ir_text: str) -> tuple:
        """Optimise ``ir_text`` and emit machine code: (object bytes, seconds), in the
        compile worker when one is ready (see worker.py), else here."""
        return self._pool.compile(ir_text) if self._pool else self.compile_here(ir_text)

    def compile_here(self, ir_text: str) -> tuple:
        """``compile`` in this process."""
        mod, seconds = self.optimize(ir_text)
        t0 = time.perf_counter()
        obj = self.tm.emit_object(mod)
        seconds["codegen"] = time.perf_counter() - t0
        return obj, seconds

    def load(self, obj: bytes, entry: str, n_entries: int, kernels: tuple = ()) -> Compiled:
        """Link object code into the engine as a new library.

        Resolves the stage entries ``<entry>_<i>`` and the kernel entries
        ``<entry>_k<i>`` for ``i`` in ``kernels``.  Raises ValueError when one is
        missing (a foreign or damaged object), RuntimeError when linking fails.
        """
        names = [f"{entry}_{i}" for i in range(n_entries)] + [f"{entry}_k{i}" for i in kernels]
        lib = llvm.JITLibraryBuilder().add_object_img(obj).add_current_process()
        for name in names:
            lib.export_symbol(name)
        with self.lock:
            tracker = lib.link(self.engine, f"lib{next(self._libraries)}")
        addrs = [tracker[name] for name in names]
        if not all(addrs):
            raise ValueError(f"object code lacks the entry functions of {entry}")
        funcs = [ENTRY_TYPE(a) for a in addrs]
        return Compiled(funcs[:n_entries], {}, tracker, dict(zip(kernels, funcs[n_entries:])))

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
