"""backend/loader.py: ELF objects that llvmlite emits, linked into the process
without LLVM, run as they would from the JIT; bad input raises LoadError and
leaves nothing mapped."""
import ctypes
import gc
import math
import os
import platform
import random
import struct
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest

if sys.platform != "linux" or platform.machine() not in ("x86_64", "AMD64"):
    pytest.skip("the loader links x86-64 ELF objects (Linux only)", allow_module_level=True)

import llvmlite.binding as llvm  # noqa: E402

from lazyarray.backend import llvm as lazy_llvm, loader  # noqa: E402
from lazyarray.backend.loader import LoadError, load  # noqa: E402


@pytest.fixture(autouse=True)
def _quiet():
    """No background compile loads units meanwhile: tests here watch the mappings."""
    from lazyarray.backend import native
    native.flush()

TRIPLE = llvm.get_process_triple()
CPU = llvm.get_host_cpu_name()
# tuned as the project's own machines are (512-bit vectors preferred where AVX-512 exists:
# LLVM's tuning for Intel AVX-512 CPUs vectorises 4 doubles wide, with no call of the
# 8-lane variant test_vector_math_calls looks for)
FEATURES = lazy_llvm._features(llvm.get_host_cpu_features().flatten())
_machines = {}


def _initialise():
    """LLVM's native target, on first use (not while collecting the tests)."""
    if not _machines:
        llvm.initialize_native_target()
        llvm.initialize_native_asmprinter()
        llvm.initialize_native_asmparser()  # module asm (the relocation-type tests)


def machine(kind: str, opt: int = 3):
    """llvmlite's target machines: "pic" (small code model), "jit" (the JIT's default,
    as the project compiles), "static" (32-bit absolute addresses); ``opt`` the code
    generation level."""
    if (kind, opt) not in _machines:
        _initialise()
        target = llvm.Target.from_triple(TRIPLE)
        options = {"pic": dict(reloc="pic", codemodel="small"), "jit": dict(jit=True),
                   "static": dict(reloc="static", codemodel="small")}[kind]
        _machines[kind, opt] = target.create_target_machine(cpu=CPU, features=FEATURES,
                                                            opt=opt, **options)
    return _machines[kind, opt]


def compile_ir(ir: str, kind: str = "pic", optimize: bool = False, opt: int = 3) -> bytes:
    """Object code of ``ir`` from machine ``kind`` at code generation level ``opt``
    (through the vectorising pipeline first if ``optimize``)."""
    tm = machine(kind, opt)
    mod = llvm.parse_assembly(ir)
    mod.triple = TRIPLE
    mod.data_layout = str(tm.target_data)
    mod.verify()
    if optimize:
        pto = llvm.create_pipeline_tuning_options(speed_level=2)
        pto.loop_vectorization = True
        pto.slp_vectorization = True
        pb = llvm.create_pass_builder(tm, pto)
        pb.getModulePassManager().run(mod, pb)
    return tm.emit_object(mod)


def compile_asm(asm: str, kind: str = "pic") -> bytes:
    """Object code of assembly text (as module asm)."""
    lines = textwrap.dedent(asm).strip("\n").split("\n")
    ir = "\n".join('module asm "%s"' % line.replace("\\", "\\5C").replace('"', "\\22")
                   for line in lines)
    return compile_ir(ir, kind)


def elf_info(obj: bytes) -> tuple:
    """(section names, relocation type numbers, undefined symbol names) of an object,
    read independently of the loader."""
    shoff, = struct.unpack_from("<Q", obj, 0x28)
    shnum, shstrndx = struct.unpack_from("<HH", obj, 0x3C)
    hdrs = [struct.unpack_from("<IIQQQQIIQQ", obj, shoff + 64 * i) for i in range(shnum)]

    def string(table, at):
        start = hdrs[table][4] + at
        return obj[start:obj.index(b"\0", start)].decode()

    names = {string(shstrndx, h[0]) for h in hdrs}
    types, undefined = set(), set()
    for h in hdrs:
        if h[1] == 4:  # SHT_RELA
            for k in range(h[5] // 24):
                info, = struct.unpack_from("<Q", obj, h[4] + 24 * k + 8)
                types.add(info & 0xFFFFFFFF)
        if h[1] == 2:  # SHT_SYMTAB
            for k in range(1, h[5] // 24):
                name, _, _, shndx = struct.unpack_from("<IBBH", obj, h[4] + 24 * k)
                if shndx == 0:
                    undefined.add(string(h[6], name))
    return names, types, undefined


def cfunc(image, name, restype, *argtypes):
    return ctypes.CFUNCTYPE(restype, *argtypes)(image.address(name))


def mappings(image) -> list:
    """The permissions of the process's mappings overlapping ``image``."""
    lo, hi = image.base, image.base + image.size
    found = []
    with open("/proc/self/maps") as f:
        for line in f:
            span, perms = line.split()[:2]
            a, b = (int(x, 16) for x in span.split("-"))
            if a < hi and b > lo:
                found.append(perms[:3])
    return found


def is_mapped(base: int) -> bool:
    with open("/proc/self/maps") as f:
        for line in f:
            a, b = (int(x, 16) for x in line.split()[0].split("-"))
            if a <= base < b:
                return True
    return False


KINDS = ["pic", "jit"]

# ------------------------------------------------------------------ test code

CONSTANT = """
define i64 @answer() {
  ret i64 42
}
"""

SCALE = """
define void @scale(ptr %out, ptr %a, i64 %n) {
entry:
  %c = icmp sgt i64 %n, 0
  br i1 %c, label %loop, label %done
loop:
  %i = phi i64 [0, %entry], [%i1, %loop]
  %pa = getelementptr double, ptr %a, i64 %i
  %x = load double, ptr %pa
  %y = fmul double %x, 1.234500e+00
  %z = fadd double %y, 0x400921FB54442D18
  %w = fdiv double %z, 3.000000e+00
  %v = fsub double %w, 7.500000e-01
  %po = getelementptr double, ptr %out, i64 %i
  store double %v, ptr %po
  %i1 = add i64 %i, 1
  %e = icmp eq i64 %i1, %n
  br i1 %e, label %done, label %loop
done:
  ret void
}

define void @scalef(ptr %out, ptr %a, i64 %n) {
entry:
  %c = icmp sgt i64 %n, 0
  br i1 %c, label %loop, label %done
loop:
  %i = phi i64 [0, %entry], [%i1, %loop]
  %pa = getelementptr float, ptr %a, i64 %i
  %x = load float, ptr %pa
  %y = fmul float %x, 2.500000e+00
  %z = fadd float %y, 1.250000e-01
  %po = getelementptr float, ptr %out, i64 %i
  store float %z, ptr %po
  %i1 = add i64 %i, 1
  %e = icmp eq i64 %i1, %n
  br i1 %e, label %done, label %loop
done:
  ret void
}
"""

GLOBALS = """
@counter = global i64 5
@local_counter = internal global i64 100
@near = dso_local global i64 7
@buffer = global [512 x i64] zeroinitializer
@table = constant [4 x double] [double 1.5, double 2.5, double 3.5, double 4.5]
@lookup = global ptr getelementptr ([4 x double], ptr @table, i64 0, i64 1)

define i64 @bump(i64 %d) {
  %v = load i64, ptr @counter
  %n = add i64 %v, %d
  store i64 %n, ptr @counter
  %l = load i64, ptr @local_counter
  %l1 = add i64 %l, 1
  store i64 %l1, ptr @local_counter
  ret i64 %n
}

define i64 @get_local() {
  %l = load i64, ptr @local_counter
  ret i64 %l
}

define i64 @get_near() {
  %l = load i64, ptr @near
  ret i64 %l
}

define void @buf_set(i64 %i, i64 %v) {
  %p = getelementptr [512 x i64], ptr @buffer, i64 0, i64 %i
  store i64 %v, ptr %p
  ret void
}

define double @table_at(i64 %i) {
  %base = load ptr, ptr @lookup
  %p = getelementptr double, ptr %base, i64 %i
  %v = load double, ptr %p
  ret double %v
}
"""

LIBM = """
declare double @sin(double) nounwind readnone
declare double @exp(double) nounwind readnone

define double @sin_plus_exp(double %x) {
  %s = call double @sin(double %x)
  %e = call double @exp(double %x)
  %r = fadd double %s, %e
  ret double %r
}
"""

MUTUAL = """
define i64 @is_even(i64 %n) noinline {
  %z = icmp eq i64 %n, 0
  br i1 %z, label %yes, label %rec
yes:
  ret i64 1
rec:
  %m = sub i64 %n, 1
  %r = call i64 @is_odd(i64 %m)
  ret i64 %r
}

define i64 @is_odd(i64 %n) noinline {
  %z = icmp eq i64 %n, 0
  br i1 %z, label %no, label %rec
no:
  ret i64 0
rec:
  %m = sub i64 %n, 1
  %r = call i64 @is_even(i64 %m)
  ret i64 %r
}
"""

INCREF = """
declare void @Py_IncRef(ptr)

define void @incref(ptr %o) {
  call void @Py_IncRef(ptr %o)
  ret void
}
"""

EXTERNAL_DATA = """
@lz_test_external = external global i64

define i64 @read_external() {
  %v = load i64, ptr @lz_test_external
  ret i64 %v
}
"""


def vector_sin_ir():
    """A loop of sin calls the vectoriser turns into libmvec calls, for this CPU
    (None when it has neither AVX-512 nor AVX2)."""
    feats = set(FEATURES.split(","))
    if "+avx512f" in feats:
        lanes, variant = 8, "_ZGVeN8v_sin"
    elif "+avx2" in feats:
        lanes, variant = 4, "_ZGVdN4v_sin"
    else:
        return None, None
    return f"""
declare double @sin(double) nounwind readnone
declare <{lanes} x double> @{variant}(<{lanes} x double>) nounwind readnone
@llvm.compiler.used = appending global [1 x ptr] [ptr @{variant}], section "llvm.metadata"

define void @vsin(ptr noalias %out, ptr noalias %a, i64 %n) {{
entry:
  %c = icmp sgt i64 %n, 0
  br i1 %c, label %loop, label %done
loop:
  %i = phi i64 [0, %entry], [%i1, %loop]
  %pa = getelementptr double, ptr %a, i64 %i
  %x = load double, ptr %pa
  %y = call double @sin(double %x) #0
  %po = getelementptr double, ptr %out, i64 %i
  store double %y, ptr %po
  %i1 = add i64 %i, 1
  %e = icmp eq i64 %i1, %n
  br i1 %e, label %done, label %loop
done:
  ret void
}}

attributes #0 = {{ "vector-function-abi-variant"="_ZGV_LLVM_N{lanes}v_sin({variant})" }}
""", variant


SWITCH = """
declare double @sin(double) nounwind readnone

define i64 @pick(i64 %k) {
entry:
  switch i64 %k, label %other [ i64 0, label %a  i64 1, label %b  i64 2, label %c
                                i64 3, label %d  i64 4, label %e  i64 5, label %f ]
a:
  ret i64 11
b:
  ret i64 23
c:
  ret i64 35
d:
  ret i64 47
e:
  ret i64 59
f:
  ret i64 61
other:
  ret i64 -1
}

define double @call_sin(double %x) {
  %y = call double @sin(double %x)
  ret double %y
}

define ptr @own_address() {
  ret ptr @pick
}
"""

_objects = {}


def obj(name: str, kind: str = "pic", optimize: bool = False) -> bytes:
    key = (name, kind, optimize)
    if key not in _objects:
        _objects[key] = compile_ir(globals()[name], kind, optimize)
    return _objects[key]


# ------------------------------------------------------------------- basics

@pytest.mark.parametrize("kind", KINDS + ["static"])
def test_constant(kind):
    with load(obj("CONSTANT", kind)) as image:
        assert cfunc(image, "answer", ctypes.c_int64)() == 42
        assert image.symbols == ("answer",)
        with pytest.raises(KeyError):
            image.address("nothing")
        with pytest.raises(KeyError):
            image.address("answe")
    assert image.closed
    with pytest.raises(ValueError):
        image.address("answer")
    image.close()  # idempotent


@pytest.mark.parametrize("kind", KINDS)
def test_constant_pools(kind):
    code = obj("SCALE", kind, optimize=True)
    names, _, _ = elf_info(code)
    assert any(n.startswith(".rodata.cst") for n in names), names
    rng = np.random.default_rng(0)
    with load(code) as image:
        f = cfunc(image, "scale", None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64)
        g = cfunc(image, "scalef", None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64)
        for n in (0, 1, 7, 8, 33, 1000):
            a = rng.standard_normal(n)
            out = np.full(n, np.nan)
            f(out.ctypes.data, a.ctypes.data, n)
            np.testing.assert_array_equal(out, (a * 1.2345 + math.pi) / 3.0 - 0.75)
            af = a.astype(np.float32)
            outf = np.full(n, np.nan, np.float32)
            g(outf.ctypes.data, af.ctypes.data, n)
            np.testing.assert_array_equal(outf, af * np.float32(2.5) + np.float32(0.125))


@pytest.mark.parametrize("kind", KINDS)
def test_globals_and_protections(kind):
    with load(obj("GLOBALS", kind)) as image:
        assert set(image.symbols) == {"counter", "near", "buffer", "table", "lookup", "bump",
                                      "get_local", "get_near", "buf_set", "table_at"}
        counter = ctypes.c_int64.from_address(image.address("counter"))
        assert counter.value == 5
        bump = cfunc(image, "bump", ctypes.c_int64, ctypes.c_int64)
        assert bump(3) == 8 and counter.value == 8
        counter.value = 40
        assert bump(2) == 42
        assert cfunc(image, "get_local", ctypes.c_int64)() == 102
        assert cfunc(image, "get_near", ctypes.c_int64)() == 7
        buf = (ctypes.c_int64 * 512).from_address(image.address("buffer"))
        assert list(buf) == [0] * 512  # .bss
        cfunc(image, "buf_set", None, ctypes.c_int64, ctypes.c_int64)(511, -9)
        assert buf[511] == -9
        table_at = cfunc(image, "table_at", ctypes.c_double, ctypes.c_int64)
        assert [table_at(i) for i in range(3)] == [2.5, 3.5, 4.5]
        perms = mappings(image)
        assert not [p for p in perms if "w" in p and "x" in p], perms
        assert "r-x" in perms and "rw-" in perms
        assert "r--" in perms  # .rodata


@pytest.mark.parametrize("kind", KINDS)
def test_libm_calls(kind):
    with load(obj("LIBM", kind)) as image:
        f = cfunc(image, "sin_plus_exp", ctypes.c_double, ctypes.c_double)
        for x in (0.0, 0.5, -2.0, 10.0):
            assert f(x) == math.sin(x) + math.exp(x)


@pytest.mark.parametrize("kind", KINDS)
def test_vector_math_calls(kind):
    ir, variant = vector_sin_ir()
    if ir is None:
        pytest.skip("no AVX2 or AVX-512: no libmvec variant")
    code = compile_ir(ir, kind, optimize=True)
    assert variant in elf_info(code)[2], "the loop was not vectorised"
    x = np.linspace(-20, 20, 1003)
    out = np.zeros_like(x)
    with load(code) as image:
        cfunc(image, "vsin", None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64)(
            out.ctypes.data, x.ctypes.data, x.size)
    ulps = np.abs(out - np.sin(x)) / np.spacing(np.abs(np.sin(x)))
    assert ulps.max() <= 4


@pytest.mark.parametrize("kind", KINDS)
def test_functions_calling_each_other(kind):
    with load(obj("MUTUAL", kind)) as image:
        even = cfunc(image, "is_even", ctypes.c_int64, ctypes.c_int64)
        odd = cfunc(image, "is_odd", ctypes.c_int64, ctypes.c_int64)
        assert [even(n) for n in range(6)] == [1, 0, 1, 0, 1, 0]
        assert odd(1001) == 1


@pytest.mark.parametrize("kind", KINDS)
def test_python_c_api(kind):
    with load(obj("INCREF", kind)) as image:
        incref = ctypes.PYFUNCTYPE(None, ctypes.py_object)(image.address("incref"))
        thing = object()
        before = sys.getrefcount(thing)
        incref(thing)
        assert sys.getrefcount(thing) == before + 1
        ctypes.pythonapi.Py_DecRef(ctypes.py_object(thing))
        assert sys.getrefcount(thing) == before


@pytest.mark.parametrize("kind", KINDS)
def test_external_data_through_the_got(kind):
    value = ctypes.c_int64(1234567)
    names = {"lz_test_external": ctypes.addressof(value)}
    code = obj("EXTERNAL_DATA", kind)
    if kind == "pic":
        assert elf_info(code)[1] & {9, 41, 42}  # a GOT-relative relocation
    with load(code, names.get) as image:
        assert cfunc(image, "read_external", ctypes.c_int64)() == 1234567
        value.value = -5
        assert cfunc(image, "read_external", ctypes.c_int64)() == -5


# ---------------------------------------------- 32-bit absolute code, stubs

def test_static_code_is_mapped_low_and_calls_through_stubs():
    code = obj("SWITCH", "static")
    assert elf_info(code)[1] & {10, 11}  # R_X86_64_32 / 32S
    with load(code) as image:
        assert image.base + image.size < 1 << 31
        pick = cfunc(image, "pick", ctypes.c_int64, ctypes.c_int64)
        assert [pick(k) for k in range(-1, 7)] == [-1, 11, 23, 35, 47, 59, 61, -1]
        assert cfunc(image, "own_address", ctypes.c_void_p)() == image.address("pick")
        call_sin = cfunc(image, "call_sin", ctypes.c_double, ctypes.c_double)
        assert call_sin(0.75) == math.sin(0.75)  # libm lies far above: a stub


def test_far_external_data_does_not_fit_32_bits():
    """A direct (dso_local) reference to external data far away is refused, not
    truncated; the mapping made before the relocation was computed is released."""
    code = compile_ir(EXTERNAL_DATA.replace("external global", "external dso_local global"))
    assert elf_info(code)[1] == {2}  # R_X86_64_PC32
    far = low_page()
    made, unmade = [], []
    with pytest.raises(LoadError, match="lz_test_external"):
        _tracked(code, {"lz_test_external": far}.get, made, unmade)
    assert made and made == unmade  # it had been mapped, and was unmapped


def _tracked(code, resolve, made, unmade):
    """load, recording the mappings made and unmade."""
    real_map, real_unmap = loader._map_pages, loader._munmap

    def map_pages(size, *args):
        base = real_map(size, *args)
        made.append((base, size))
        return base

    def munmap(base, size):
        unmade.append((base, size))
        return real_unmap(base, size)

    loader._map_pages, loader._munmap = map_pages, munmap
    try:
        return load(code, resolve)
    finally:
        loader._map_pages, loader._munmap = real_map, real_unmap


def low_page() -> int:
    """A read-write page below 2 GB (MAP_32BIT), more than 2 GB from images mapped
    anywhere (kept for the process's life)."""
    page = loader._mmap(None, 4096, 3, 0x22 | 0x40, -1, 0)
    assert page and page != loader.MAP_FAILED
    return page


def far_trampolines(targets: dict) -> dict:
    """name -> the address of ``jmp *targets[name]`` on a low page: far from the images
    (a Python whose libpython is linked into its executable calls the C API so)."""
    far, page, used = {}, 0, 4096
    for name, target in targets.items():
        if used == 4096:
            if page:
                assert loader._mprotect(page, 4096, 5) == 0
            page, used = low_page(), 0
        code = b"\xff\x25\x00\x00\x00\x00" + struct.pack("<Q", target)
        ctypes.memmove(page + used, code, len(code))
        far[name], used = page + used, used + 16
    assert loader._mprotect(page, 4096, 5) == 0
    return far


@pytest.mark.parametrize("kind", KINDS)
def test_far_calls_go_through_stubs(kind):
    far = far_trampolines({n: loader.default_resolve(n) for n in ("sin", "exp")})
    with load(obj("LIBM", kind), lambda n: far.get(n) or loader.default_resolve(n)) as image:
        assert abs(image.base - far["sin"]) > 1 << 32
        f = cfunc(image, "sin_plus_exp", ctypes.c_double, ctypes.c_double)
        assert f(0.5) == math.sin(0.5) + math.exp(0.5)


# --------------------------------------------------- every relocation type

RELOCATIONS = r"""
    .text
    .globl  get_table
    .p2align 4
get_table:
    leaq    table(%rip), %rax
    retq
    .globl  abs_table
abs_table:
    movq    $table, %rax
    retq
    .globl  through_got
through_got:
    movq    ext_sym@GOTPCREL(%rip), %rax
    movq    (%rax), %rax
    retq
    .globl  call_through_got
call_through_got:
    jmpq    *ext_fn@GOTPCREL(%rip)
    .globl  call_plt
call_plt:
    jmp     ext_fn@PLT
    .globl  call_pc32
call_pc32:
    .byte   0xe9
    .long   ext_fn - . - 4

    .section .rodata.tab,"a",@progbits
    .p2align 3
    .globl  table
table:
    .quad   get_table
    .quad   get_table - .
    .long   get_table - .
    .long   table
    .quad   local_data + 8
    .quad   ext_sym
    .quad   ext_sym - .
    .long   ext_sym@GOTPCREL
    .long   0
    .quad   common_buf
    .quad   .Lstr + 2

    .section .rodata.str1.1,"aMS",@progbits,1
.Lstr:
    .asciz  "hello"

    .data
    .p2align 13
local_data:
    .quad   1, 2, 3
    .comm   common_buf,64,32
"""


def test_relocation_types():
    code = compile_asm(RELOCATIONS)
    assert elf_info(code)[1] == {1, 2, 4, 9, 10, 11, 24, 41, 42}
    ext = ctypes.c_int64(77)
    labs = loader.default_resolve("labs")
    names = {"ext_sym": ctypes.addressof(ext), "ext_fn": labs}
    with load(code, names.get) as image:
        assert image.base < 1 << 31  # 32-bit absolute fields
        table = image.address("table")
        q = lambda i: ctypes.c_int64.from_address(table + i).value  # noqa: E731
        d = lambda i: ctypes.c_int32.from_address(table + i).value  # noqa: E731
        get_table = image.address("get_table")
        assert q(0) == get_table                               # R_X86_64_64
        assert q(8) == get_table - (table + 8)                 # PC64
        assert d(16) == get_table - (table + 16)               # PC32
        assert d(20) == table                                  # R_X86_64_32
        local_data = q(24) - 8                                 # section symbol + addend
        assert local_data % 8192 == 0
        assert ctypes.c_int64.from_address(local_data + 16).value == 3
        assert q(32) == ctypes.addressof(ext)                  # external, absolute
        assert q(40) == ctypes.addressof(ext) - (table + 40)   # external, PC64
        slot = table + 48 + d(48)                              # GOTPCREL
        assert ctypes.c_int64.from_address(slot).value == ctypes.addressof(ext)
        common = image.address("common_buf")                   # SHN_COMMON
        assert q(56) == common and common % 32 == 0
        assert ctypes.string_at(common, 64) == bytes(64)
        assert ctypes.string_at(q(64)) == b"llo"               # mergeable strings
        assert cfunc(image, "get_table", ctypes.c_void_p)() == table
        assert cfunc(image, "abs_table", ctypes.c_void_p)() == table       # 32S
        assert cfunc(image, "through_got", ctypes.c_int64)() == 77         # REX_GOTPCRELX
        for fn in ("call_through_got", "call_plt", "call_pc32"):  # GOTPCRELX, PLT32/PC32 stubs
            assert cfunc(image, fn, ctypes.c_long, ctypes.c_long)(-12) == 12


def test_unsupported_relocation_type():
    code = compile_asm("""
        .data
        .globl  x
    x:
        .quad   x@GOTOFF
    """)
    with pytest.raises(LoadError, match="unsupported relocation type 25"):
        load(code)


@pytest.mark.parametrize("asm", ["""
        .data
    x:
        .long   far_data - .
    """, """
        .text
        .globl  f
    f:
        movl    far_data(%rip), %eax
        retq
    """])
def test_far_data_reference_is_refused(asm):
    """A 32-bit pc-relative reference to far data is refused (only calls and jumps can
    go through a stub)."""
    with pytest.raises(LoadError, match="far_data.*32-bit"):
        load(compile_asm(asm), {"far_data": low_page()}.get)


def test_sections_that_are_refused():
    tls = compile_ir("@t = thread_local global i64 1\n"
                     "define ptr @f() {\n  ret ptr @t\n}\n")
    with pytest.raises(LoadError, match="thread-local"):
        load(tls)
    ctor = compile_ir("""
@llvm.global_ctors = appending global [1 x { i32, ptr, ptr }]
    [{ i32, ptr, ptr } { i32 65535, ptr @init, ptr null }]
define void @init() {
  ret void
}
""")
    with pytest.raises(LoadError, match="constructors"):
        load(ctor)


def test_unwind_tables_comdat_and_alignment():
    code = compile_ir("""
$shared = comdat any
@aligned = global [8 x i8] c"abcdefgh", align 4096
@big_aligned = internal global [2 x i64] [i64 1, i64 2], align 16384

define i64 @shared() uwtable comdat {
  ret i64 5
}

define i64 @use_aligned() uwtable {
  %p = getelementptr [2 x i64], ptr @big_aligned, i64 0, i64 1
  %v = load i64, ptr %p
  %w = ptrtoint ptr @big_aligned to i64
  %m = and i64 %w, 16383
  %r = add i64 %v, %m
  ret i64 %r
}
""")
    names, _, _ = elf_info(code)
    assert ".eh_frame" in names and ".group" in names
    with load(code) as image:
        assert cfunc(image, "shared", ctypes.c_int64)() == 5
        assert cfunc(image, "use_aligned", ctypes.c_int64)() == 2
        assert image.address("aligned") % 4096 == 0
        assert ctypes.string_at(image.address("aligned"), 8) == b"abcdefgh"


def test_weak_undefined_symbol_is_null():
    code = compile_ir("""
@maybe = extern_weak global i64
define ptr @get() {
  ret ptr @maybe
}
""")
    with load(code, lambda name: None) as image:
        assert cfunc(image, "get", ctypes.c_void_p)() is None


# ----------------------------------------------------- images and threads

def test_many_images_closed_in_any_order():
    rng = random.Random(1)
    for kind in KINDS:
        images = [(name, load(obj(name, kind))) for name in
                  ("CONSTANT", "MUTUAL", "LIBM", "GLOBALS", "CONSTANT", "MUTUAL")]
        assert len({im.base for _, im in images}) == len(images)
        order = list(range(len(images)))
        rng.shuffle(order)
        for k in order:
            images[k][1].close()
            assert not is_mapped(images[k][1].base)
            for name, im in images:
                if not im.closed:
                    _check(name, im)


def _check(name, image):
    if name == "CONSTANT":
        assert cfunc(image, "answer", ctypes.c_int64)() == 42
    elif name == "MUTUAL":
        assert cfunc(image, "is_even", ctypes.c_int64, ctypes.c_int64)(10) == 1
    elif name == "LIBM":
        assert cfunc(image, "sin_plus_exp", ctypes.c_double, ctypes.c_double)(1.0) == \
            math.sin(1.0) + math.exp(1.0)
    elif name == "GLOBALS":
        assert cfunc(image, "table_at", ctypes.c_double, ctypes.c_int64)(0) == 2.5


def test_garbage_collection_unmaps():
    image = load(obj("CONSTANT"))
    base = image.base
    assert is_mapped(base)
    del image
    gc.collect()
    assert not is_mapped(base)


def test_threads():
    shared = load(obj("MUTUAL"))
    errors = []
    start = threading.Barrier(8)

    def work(seed):
        try:
            start.wait()
            for i in range(20):
                name = ("CONSTANT", "MUTUAL", "LIBM", "GLOBALS")[(seed + i) % 4]
                with load(obj(name)) as image:
                    _check(name, image)
                _check("MUTUAL", shared)
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    for name in ("CONSTANT", "MUTUAL", "LIBM", "GLOBALS"):
        obj(name)  # compiled before the threads start
    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    shared.close()
    assert not errors, errors


# ---------------------------------------------------------------- bad input

def test_unresolved_symbol():
    code = compile_ir("""
declare void @lz_no_such_function()
declare void @lz_nor_this_one()
define void @f() {
  call void @lz_no_such_function()
  call void @lz_nor_this_one()
  ret void
}
""")
    made, unmade = [], []
    with pytest.raises(LoadError, match="lz_no_such_function, lz_nor_this_one"):
        _tracked(code, None, made, unmade)
    assert made == unmade
    assert issubclass(LoadError, RuntimeError)


@pytest.mark.parametrize("kind", KINDS)
def test_corrupt_objects(kind):
    good = obj("GLOBALS", kind)
    rng = random.Random(2)
    made, unmade = [], []
    bad = [b"", b"\x7fELF", os.urandom(64), b"\x7fELF" + os.urandom(500), bytes(4096)]
    bad += [good[:n] for n in sorted({rng.randrange(len(good)) for _ in range(60)})]
    bad += [good[:-1], good[:64]]
    for text in bad:
        with pytest.raises(LoadError):
            _tracked(text, None, made, unmade)
    loaded = 0
    for _ in range(1500):  # damaged bytes: refused, or loaded within bounds (never run)
        data = bytearray(good)
        for _ in range(rng.choice((1, 2, 8))):
            data[rng.randrange(len(data))] = rng.randrange(256)
        try:
            image = _tracked(bytes(data), None, made, unmade)
        except LoadError:
            continue
        loaded += 1
        image.close()
        unmade.append((image.base, image.size))
    assert made == unmade  # every mapping was released
    assert loaded  # some damage (to code bytes) loads


def test_damaged_header_fields():
    good = bytearray(obj("GLOBALS"))
    shoff, = struct.unpack_from("<Q", good, 0x28)
    shnum, = struct.unpack_from("<H", good, 0x3C)
    fields = [(shoff + 64 * i + at, fmt) for i in range(shnum)
              for at, fmt in ((4, "<I"), (8, "<Q"), (0x18, "<Q"), (0x20, "<Q"), (0x28, "<I"),
                              (0x2C, "<I"), (0x30, "<Q"))]
    fields += [(0x28, "<Q"), (0x3A, "<H"), (0x3C, "<H"), (0x3E, "<H")]
    for at, fmt in fields:
        for value in (0, 1, 3, 0xFF, 2 ** (8 * struct.calcsize(fmt)) - 1, 2 ** 31, 12345):
            data = bytearray(good)
            struct.pack_into(fmt, data, at, value % 2 ** (8 * struct.calcsize(fmt)))
            try:
                load(bytes(data)).close()
            except LoadError:
                pass


# --------------------------------------------------- a big object, timing

@pytest.fixture(scope="module")
def big():
    """The project's building blocks as one object from each target machine, and
    the seconds their compilation took.  The machine code is emitted at level 0, as
    the project's quick compile does (``compile_here(text, quick=True)``): level 3
    takes 6-7 s an object instead of 1 s, for the same kinds of relocations."""
    t0 = time.perf_counter()
    try:
        from lazyarray.backend import blocks
        from lazyarray.backend import llvm as project_llvm
        gen = project_llvm.codegen()
        text = blocks.module(blocks.full_set(), gen.vector_variants)
        mod, _ = gen.optimize(text)
        optimized = str(mod)
    except Exception:  # the generator changed under us: many functions of our own
        optimized = ""
    fallback = optimized.count("\ndefine ") < 100
    if fallback:
        optimized = _many_functions()
    objs = {kind: compile_ir(optimized, kind, optimize=fallback, opt=0) for kind in KINDS}
    return objs, time.perf_counter() - t0


def _many_functions(count: int = 900) -> str:
    """IR of ``count`` functions ``void f(double *out, double *a, double *b, double *c,
    int64_t n)`` with constants and libm calls, named like the building blocks."""
    parts = ["declare double @sin(double) nounwind readnone"]
    ops = [("add", "fadd double %x, %y"), ("sin", "call double @sin(double %x)")]
    ops += [(f"filler{i}", f"fmul double %x, {1.0 + i / 1024:.6e}") for i in range(count - 2)]
    for name, expr in ops:
        parts.append(f"""
define void @lzb_ew_{name}_float64_float64(ptr %out, ptr %a, ptr %b, ptr %c, i64 %n) {{
entry:
  %z = icmp sgt i64 %n, 0
  br i1 %z, label %loop, label %done
loop:
  %i = phi i64 [0, %entry], [%i1, %loop]
  %pa = getelementptr double, ptr %a, i64 %i
  %x = load double, ptr %pa
  %pb = getelementptr double, ptr %b, i64 %i
  %y = load double, ptr %pb
  %r = {expr}
  %po = getelementptr double, ptr %out, i64 %i
  store double %r, ptr %po
  %i1 = add i64 %i, 1
  %e = icmp eq i64 %i1, %n
  br i1 %e, label %done, label %loop
done:
  ret void
}}""")
    return "\n".join(parts)


BLOCK = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
                         ctypes.c_void_p, ctypes.c_int64)


@pytest.mark.parametrize("kind", KINDS)
def test_big_object(big, kind):
    objs, seconds = big
    code = objs[kind]
    times = []
    for _ in range(7):
        t0 = time.perf_counter()
        image = load(code)
        times.append(time.perf_counter() - t0)
        image.close()
    print(f"\n{kind}: {len(code)} bytes, load {min(times) * 1e3:.2f} ms (min of 7), "
          f"median {sorted(times)[3] * 1e3:.2f} ms; building the objects took {seconds:.1f} s")
    assert min(times) < 0.05  # a Python loop over the relocations would take far longer
    rng = np.random.default_rng(3)
    with load(code) as image:
        assert len(image.symbols) > 100
        _check_blocks(image, rng)
        # every symbol, by both ways of looking it up
        table = {name: image.address(name) for name in image.symbols}
        with load(code) as other:
            offset = other.base - image.base
            for name in list(table)[::37]:
                assert other.address(name) - offset == table[name]


def _check_blocks(image, rng):
    add = BLOCK(image.address("lzb_ew_add_float64_float64"))
    sin = BLOCK(image.address("lzb_ew_sin_float64_float64"))
    for n in (1, 5, 256, 1001):
        a, b = rng.standard_normal(n) * 10, rng.standard_normal(n)
        out = np.full(n, np.nan)
        add(out.ctypes.data, a.ctypes.data, b.ctypes.data, None, n)
        np.testing.assert_array_equal(out, a + b)
        sin(out.ctypes.data, a.ctypes.data, None, None, n)
        ulps = np.abs(out - np.sin(a)) / np.spacing(np.abs(np.sin(a)))
        assert ulps.max() <= 4


def test_big_object_calling_far_functions(big):
    """Every external function more than 2 GB away: each call goes through a stub."""
    code = big[0]["pic"]
    targets = {name: loader.default_resolve(name) for name in sorted(elf_info(code)[2])}
    far = far_trampolines(targets)
    times = []
    for _ in range(5):
        t0 = time.perf_counter()
        image = load(code, far.get)
        times.append(time.perf_counter() - t0)
        image.close()
    print(f"\nfar calls: load {min(times) * 1e3:.2f} ms (min of 5)")
    with load(code, far.get) as image:
        assert abs(image.base - far["sin"]) > 1 << 32
        _check_blocks(image, np.random.default_rng(4))


def test_new_process_without_llvm(big, tmp_path):
    """A fresh process loads the object and runs it without importing llvmlite."""
    path = tmp_path / "blocks.o"
    path.write_bytes(big[0]["jit"])
    program = textwrap.dedent(f"""
        import ctypes, importlib.util, sys, time
        import numpy as np
        spec = importlib.util.spec_from_file_location("loader", {loader.__file__!r})
        loader = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(loader)
        code = open({str(path)!r}, "rb").read()
        t0 = time.perf_counter()
        image = loader.load(code)
        add = image.address("lzb_ew_add_float64_float64")
        t1 = time.perf_counter()
        a = np.arange(10.0)
        out = np.zeros(10)
        ctypes.CFUNCTYPE(None, *[ctypes.c_void_p] * 4, ctypes.c_int64)(add)(
            out.ctypes.data, a.ctypes.data, a.ctypes.data, None, 10)
        assert (out == 2 * a).all()
        assert "llvmlite" not in sys.modules
        print(f"{{(t1 - t0) * 1e3:.2f}}")
    """)
    out = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                         check=True)
    print(f"\nfirst load in a new process: {out.stdout.strip()} ms")


def test_the_cpu_features_switch(monkeypatch):
    """512-bit vectors preferred where AVX-512 is on; ``LAZYARRAY_CPU_FEATURES`` appended
    (``-avx512f``: no AVX-512, nor the preference that only it needs)."""
    from lazyarray.backend import llvm
    monkeypatch.delenv("LAZYARRAY_PREFER_256", raising=False)
    monkeypatch.delenv("LAZYARRAY_CPU_FEATURES", raising=False)
    host = "+avx2,+avx512f,+fma,-xop"
    assert llvm._features(host) == host + ",-prefer-256-bit"
    assert llvm.enabled_features(llvm._features(host)) == {"avx2", "avx512f", "fma"}
    monkeypatch.setenv("LAZYARRAY_CPU_FEATURES", "-avx512f")
    assert llvm._features(host) == host + ",-avx512f"
    assert llvm.enabled_features(llvm._features(host)) == {"avx2", "fma"}
    assert llvm._features("+avx2,+fma") == "+avx2,+fma,-avx512f"
