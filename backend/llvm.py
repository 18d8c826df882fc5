"""The target machine and the optimisation pipeline: LLVM IR -> object code.

LLVM is initialised on the first compile, not at import, and only where
something is compiled: the compile worker process, or this process when the
worker is not available (backend/native.py decides).  IR is verified before
and after optimisation.  Objects are position independent in the small code
model, which backend/loader.py maps without LLVM.  Where that loader cannot
run, ``load_shared`` links objects into one llvmlite JIT engine for the
process's life instead.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import itertools
import os
import threading
import time

import llvmlite.binding as llvm

from .threads import CODEGEN_LOCK


OPT_LEVEL = 3       # the target machine's (code generation) level
# Quick code, for building blocks a caller waits for (backend/library.py): machine code
# at code-generation level 0 (fast instruction selection and register allocation): 3 ms
# instead of 8 for an 8-op chain's code generation, ...
QUICK_OPT_LEVEL = 0
# ... and instead of the optimisation pipeline, these function passes only: the O2
# pipeline took 86-110 ms for the sequencer and 6 ms for a one-loop building block,
# these 13 ms and under 1 ms (the loops stay scalar: not vectorised).
QUICK_PASSES = ("sroa", "instruction_combine", "simplify_cfg")
# The IR pass pipeline.  O2 vectorises (loops and SLP) like O3 and compiles about
# 0.3 ms faster; kernels measured (benchmarks, strided, 2-D, gathers) run as fast.
PIPELINE_LEVEL = 2
# LLVM options for a module whose every kernel calls vector math (libmvec) at least
# twice, and the values that are LLVM's defaults, for other modules (see Codegen._tune).
# A vectorised loop leaves at most VF x interleave - 1 iterations (and runs all of them
# for strides other than 1) in a scalar loop; the defaults vectorise that remainder
# again (the "epilogue") and unroll the scalar loop.  With calls in the body that is
# twice the code to optimise and emit, 3.5 of 16 ms for an 8-op chain, for at most
# 5% faster kernels; without calls they gain up to 10-17% (short rows, strides).
# Interleaving (several vector iterations per loop trip) multiplies the code too: one
# vector iteration per trip took the 8-op chain's compile from 7.8 to 7.0 ms, with the
# n=1e7 chain as fast (its calls overlap within one iteration).  A kernel with a single
# call keeps LLVM's defaults: interleaving overlaps its calls (sum(sin(x)*x**2) at n=1e7:
# 7.6 ms one per trip, 5.5-6.2 ms interleaved) and the epilogue takes its tail.
CALL_HEAVY_OPTIONS = {"-enable-epilogue-vectorization": ("false", "true"),
                      "-unroll-max-count": ("1", str(2**32 - 1)),
                      "-force-vector-interleave": ("1", "0")}
# glibc's libmvec: vector variants of libm functions, used by the loop vectoriser.
_VECTOR_WIDTHS = {"avx512f": (("e", 8), ("d", 4)), "avx2": (("d", 4),)}


class Codegen:
    """Owns the target machine and the pass pipeline."""

    def __init__(self) -> None:
        llvm.initialize_native_target()
        llvm.initialize_native_asmprinter()
        self.triple = llvm.get_process_triple()
        self.cpu = llvm.get_host_cpu_name()
        self.features = _features(llvm.get_host_cpu_features().flatten())
        self._target = llvm.Target.from_triple(self.triple)
        self.tm = self._machine(OPT_LEVEL)
        self._tm_quick = None  # made on the first quick compile
        self.data_layout = str(self.tm.target_data)
        self.engine = None        # the JIT engine of load_shared, made on first use
        self._shared: list = []   # trackers of libraries loaded for good (load_shared)
        self._libraries = itertools.count()  # a library name is never reused
        self._call_heavy = False  # whether CALL_HEAVY_OPTIONS are set (else LLVM's defaults)
        self._own_options = False  # see own_options
        self._pipeline_lock = threading.Lock()  # the options hold for one pipeline run
        self.lock = threading.Lock()
        self.vector_variants = self._load_libmvec()

    def _load_libmvec(self) -> dict:
        """libm name -> [(libmvec symbol, lanes)] for the variants this CPU can run."""
        path = _libmvec_path()
        feats = enabled_features(self.features)
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

    def optimize(self, ir_text: str, quick: bool = False):
        """Parse, verify, run the optimisation pipeline (``quick``: only ``QUICK_PASSES``),
        verify: (module, seconds)."""
        t0 = time.perf_counter()
        mod = llvm.parse_assembly(ir_text)
        mod.triple = self.triple
        mod.data_layout = self.data_layout
        mod.verify()
        _inline_early(mod, ir_text)
        t1 = time.perf_counter()
        if quick:
            self._quick_passes(mod)
            mod.verify()
            return mod, {"parse": t1 - t0, "optimize": time.perf_counter() - t1}
        pto = llvm.create_pipeline_tuning_options(speed_level=PIPELINE_LEVEL)
        pto.loop_vectorization = True
        pto.slp_vectorization = True
        pb = llvm.create_pass_builder(self.tm, pto)
        with self._pipeline_lock:
            self._tune(_is_call_heavy(ir_text))
            try:
                pb.getModulePassManager().run(mod, pb)
            finally:
                if not self._own_options:
                    self._tune(False)
        mod.verify()
        return mod, {"parse": t1 - t0, "optimize": time.perf_counter() - t1}

    def _quick_passes(self, mod) -> None:
        pb = llvm.create_pass_builder(self.tm, llvm.create_pipeline_tuning_options(speed_level=1))
        fpm = llvm.create_new_function_pass_manager()
        for name in QUICK_PASSES:
            getattr(fpm, f"add_{name}_pass")()
        for fn in mod.functions:
            if not fn.is_declaration:
                fpm.run(fn, pb)

    def compile_here(self, ir_text: str, quick: bool = False) -> tuple:
        """Object code of ``ir_text``: (bytes, seconds per phase).  ``quick``: cheap code
        soon (``QUICK_PASSES`` and code-generation level 0), for a caller that waits."""
        mod, seconds = self.optimize(ir_text, quick)
        t0 = time.perf_counter()
        obj = (self._quick_machine() if quick else self.tm).emit_object(mod)
        seconds["codegen"] = time.perf_counter() - t0
        return obj, seconds

    def _machine(self, opt: int):
        """A target machine for this CPU emitting position-independent objects in the small
        code model: what backend/loader.py maps (and llvmlite's JIT links as well)."""
        return self._target.create_target_machine(cpu=self.cpu, features=self.features,
                                                  opt=opt, reloc="pic", codemodel="small")

    def _quick_machine(self):
        with self.lock:
            if self._tm_quick is None:
                self._tm_quick = self._machine(QUICK_OPT_LEVEL)
            return self._tm_quick

    def compile_unit(self, builder: tuple, quick: bool = False) -> bytes:
        """The object code of a unit (backend/native.py) from its builder."""
        return self.compile_here(build_ir(builder, self.vector_variants), quick)[0]

    def load_shared(self, symbol, obj: bytes | None = None, ir_text: str | None = None,
                    imports: dict | None = None):
        """Link a library that stays loaded for the process's life (into the permanent
        engine), from object code or from IR the engine compiles itself (for tiny
        modules); returns the address of ``symbol`` (a tuple of addresses for a tuple
        of symbols).  Raises ValueError when the library lacks one, RuntimeError when
        linking fails."""
        names = symbol if isinstance(symbol, tuple) else (symbol,)
        lib = llvm.JITLibraryBuilder()
        lib = lib.add_object_img(obj) if obj is not None else lib.add_ir(ir_text)
        lib = lib.add_current_process()
        for name in names:
            lib.export_symbol(name)
        for name, addr in (imports or {}).items():
            lib.import_symbol(name, addr)
        with self.lock:
            if self.engine is None:
                self.engine = llvm.create_lljit_compiler(self.tm)
            tracker = lib.link(self.engine, f"lib{next(self._libraries)}")
            self._shared.append(tracker)
        addrs = tuple(tracker[name] for name in names)
        missing = [n for n, a in zip(names, addrs) if not a]
        if missing:
            raise ValueError(f"object code lacks {', '.join(missing)}")
        return addrs if isinstance(symbol, tuple) else addrs[0]

    def own_options(self) -> None:
        """Leave ``CALL_HEAVY_OPTIONS`` set between compiles: for a process whose LLVM
        is ours alone (the compile worker).  Elsewhere they are LLVM's defaults again
        after each pipeline run: the options are process-wide, and other llvmlite
        users (numba) should not compile with ours."""
        self._own_options = True

    def _tune(self, heavy: bool) -> None:
        """Set ``CALL_HEAVY_OPTIONS`` to their first values (``heavy``) or LLVM's.  The
        same module gets the same options in the worker and in-process, so its code
        (and the rounding of its reductions) does not depend on where it compiled."""
        if heavy != self._call_heavy:
            for option, values in CALL_HEAVY_OPTIONS.items():
                llvm.set_option("lazyarray", f"{option}={values[0 if heavy else 1]}")
            self._call_heavy = heavy

    def asm(self, optimized_ir: str) -> str:
        mod = llvm.parse_assembly(optimized_ir)
        return self.tm.emit_assembly(mod)


def _libmvec_path():
    """glibc's vector math library: its soname, which the dynamic loader finds at once
    (``ctypes.util.find_library`` runs ldconfig: tens of milliseconds), else a search."""
    try:
        ctypes.CDLL("libmvec.so.1")
        return "libmvec.so.1"
    except OSError:
        return ctypes.util.find_library("mvec")


def _inline_early(mod, ir_text: str) -> None:
    """Mark internal functions called once (the kernels) ``alwaysinline``.

    The pipeline would inline them anyway, but only after simplifying them on
    their own, so their bodies went through the simplification passes twice
    (about 1 ms a program).  A function called from two entries is left to the
    inliner's cost model: forcing it would emit its body twice.
    """
    for fn in mod.functions:
        if (not fn.is_declaration and fn.linkage == llvm.Linkage.internal
                and ir_text.count(f'@"{fn.name}"(') == 2  # its definition and one call
                and not any(b"noinline" in a for a in fn.attributes)):
            fn.add_function_attribute("alwaysinline")


# The call-site attribute codegen gives a call that has libmvec variants.
_VECTOR_MATH = '"vector-function-abi-variant"'


def _is_call_heavy(ir_text: str) -> bool:
    """Whether every internal function (kernel, helper) of a module calls vector math
    at least twice (see CALL_HEAVY_OPTIONS)."""
    kernels = [d for d in ir_text.split("\ndefine ")[1:] if d.startswith("internal ")]
    return bool(kernels) and all(d.count(_VECTOR_MATH) >= 2 for d in kernels)


_codegen: Codegen | None = None
_init_lock = CODEGEN_LOCK  # taken around fork() (backend/threads.py)


def _features(host: str) -> str:
    """The host's features, with 512-bit vectors preferred where AVX-512 exists.

    LLVM tunes most Intel AVX-512 CPUs to prefer 256-bit vectors (older ones slowed
    their clock for 512-bit work), so loops were vectorised 4 doubles wide and called
    libmvec's AVX2 variants.  Measured on a current Xeon (benchmarks, LLVM 22), 8 wide:
    sum(sin(x)*x**2) at n=1e7 7.6 -> 5.3 ms, n=1000 1.77 -> 1.47 us, the exp/cos/tanh
    chain 33 -> 29 ms, sum(axis=1) 1.72 -> 1.56 ms.  ``LAZYARRAY_PREFER_256=1`` keeps
    LLVM's choice.
    """
    extra = os.environ.get("LAZYARRAY_CPU_FEATURES", "").strip().strip(",")
    ends = [extra] if extra else []  # (later entries win in LLVM's feature string)
    if "avx512f" in enabled_features(",".join([host] + ends)) and \
            os.environ.get("LAZYARRAY_PREFER_256", "") != "1":
        ends.insert(0, "-prefer-256-bit")
    return ",".join([host] + ends)


def enabled_features(features: str) -> set:
    """The features an LLVM feature string turns on, the last entry for each winning
    (``LAZYARRAY_CPU_FEATURES=-avx512f,-gfni`` turns AVX-512 and GFNI off: the developers'
    switch for running generated code under valgrind, which has neither)."""
    on: dict = {}
    for f in features.split(","):
        f = f.strip()
        if f[:1] in "+-" and len(f) > 1:
            on[f[1:]] = f[0] == "+"
    return {f for f, v in on.items() if v}


# fork() while another thread (tiered compilation's) is inside an LLVM call or holds the
# code generator's locks would leave them held for good in the child, whose next compile
# then hangs: backend/threads.py's fork handler takes them (the creation lock is its
# CODEGEN_LOCK), so the forking thread waits for the call under way.


def build_ir(builder: tuple, vector_variants: dict) -> str:
    """Run a unit's builder ``(module of this package, function, args)``: its IR text."""
    import importlib
    module, function, args = builder
    mod = importlib.import_module(f"{__package__}.{module}")
    return getattr(mod, function)(*args, vector_variants=vector_variants)


def codegen() -> Codegen:
    """The process-wide code generator, created on first use."""
    global _codegen
    if _codegen is None:
        with _init_lock:
            if _codegen is None:
                _codegen = Codegen()
    return _codegen
