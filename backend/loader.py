"""A loader for x86-64 ELF relocatable objects: runs cached machine code without LLVM.

Importing ``llvmlite.binding`` and initialising LLVM costs tens of milliseconds,
more than a first evaluation should take in a new process when its machine code
already lies in the disk cache.  This module links such an object (``.o`` bytes as
``TargetMachine.emit_object`` makes them for this host) into the process by
itself: it lays the object's sections out in one anonymous mapping, resolves its
external symbols (``dlsym``), applies its relocations (vectorised with numpy) and
write-protects the result::

    image = load(obj)
    f = ctypes.CFUNCTYPE(ctypes.c_double)(image.address("f"))

The caller must keep ``image`` alive (and not close it) while any code in it can
run: closing it, or dropping its last reference, unmaps the code.

Supported: objects from llvmlite's target machines for this host, position
independent (``reloc="pic"``, small code model) and the JIT default (absolute
64-bit relocations, the large code model's ``.ltext``/``.lrodata``/``.ldata``/
``.lbss``); ``reloc="static"`` objects too when their 32-bit absolute addresses
can be met (the image is then mapped below 2 GB).  Sections: ``.text*``,
``.rodata*`` (the mergeable constant pools are kept as they are: nothing merges
them, so their symbols and addends stay right), ``.data*``, ``.bss*`` and the
large model's, members of section groups (one object, so COMDAT has nothing to
deduplicate), and ``SHN_COMMON`` symbols.  Relocations: ``R_X86_64_NONE``, ``64``,
``PC64``, ``PC32``, ``PLT32``, ``32``, ``32S``, ``GOTPCREL``, ``GOTPCRELX`` and
``REX_GOTPCRELX`` (GOT slots inside the image; the instructions are not relaxed).
A 32-bit pc-relative call to an external function more than 2 GB away goes
through a stub in the image (``jmp *0(%rip)`` and the address).

Not supported, and refused with ``LoadError`` rather than loaded wrongly: other
relocation types (TLS, the large model's GOT-relative ones), thread-local
sections, constructors (``.init_array``: nothing would run them), ``REL``
relocations, GNU ifuncs, more than 65279 sections, anything but a little-endian
ELF64 ``ET_REL`` for x86-64.  Non-allocated sections (symbol and string tables,
notes, ``.comment``, ``.llvm_addrsig``, debug information) are not loaded, nor
``.eh_frame``: nothing ever unwinds through this code (no C++ exceptions, and
``nounwind`` functions), so debuggers and profilers see no unwind information for
it.  Undefined symbols resolve through ``default_resolve`` unless ``load`` is given
a resolver.  A truncated or corrupt object raises ``LoadError`` without mapping anything
(or unmaps what it had mapped); the checks keep the loader from reading or writing
outside the object and the image, not from loading nonsense code that is well
formed.

Thread safety: ``load`` may run in several threads at once; an ``Image`` may be
used from any thread, and ``close`` should be called once nothing runs its code.
"""
from __future__ import annotations

import ctypes
import mmap
import operator
import os
import platform
import sys
import struct
import threading
import weakref
from typing import Callable, Optional

import numpy as np

__all__ = ["LoadError", "Image", "load", "default_resolve", "supported"]


def supported() -> bool:
    """Whether objects of this machine can be loaded here (Linux on x86-64)."""
    return sys.platform.startswith("linux") and platform.machine() in ("x86_64", "AMD64")


class LoadError(RuntimeError):
    """The object cannot be loaded: malformed, unsupported, or an unresolved symbol."""


# ------------------------------------------------------------------------- ELF
_EHDR = struct.Struct("<16sHHIQQQIHHHHHH")
_SHDR = struct.Struct("<IIQQQQIIQQ")
_SYM = np.dtype([("name", "<u4"), ("info", "u1"), ("other", "u1"), ("shndx", "<u2"),
                 ("value", "<u8"), ("size", "<u8")])
_RELA = np.dtype([("offset", "<u8"), ("info", "<u8"), ("addend", "<i8")])

ET_REL, EM_X86_64 = 1, 62
SHT_PROGBITS, SHT_SYMTAB, SHT_STRTAB, SHT_RELA, SHT_NOBITS, SHT_REL = 1, 2, 3, 4, 8, 9
SHT_INIT_ARRAY, SHT_FINI_ARRAY, SHT_PREINIT_ARRAY = 14, 15, 16
SHF_WRITE, SHF_ALLOC, SHF_EXECINSTR, SHF_TLS = 0x1, 0x2, 0x4, 0x400
SHN_UNDEF, SHN_LORESERVE, SHN_ABS, SHN_COMMON = 0, 0xFF00, 0xFFF1, 0xFFF2
STB_WEAK = 2
STT_FUNC, STT_SECTION, STT_FILE, STT_TLS, STT_GNU_IFUNC = 2, 3, 4, 6, 10
# sections of functions to run at load or exit (nothing here would run them)
_CONSTRUCTORS = (".ctors", ".dtors", ".init_array", ".fini_array", ".preinit_array")

R_NAMES = {0: "R_X86_64_NONE", 1: "R_X86_64_64", 2: "R_X86_64_PC32", 4: "R_X86_64_PLT32",
           9: "R_X86_64_GOTPCREL", 10: "R_X86_64_32", 11: "R_X86_64_32S",
           24: "R_X86_64_PC64", 41: "R_X86_64_GOTPCRELX", 42: "R_X86_64_REX_GOTPCRELX"}
# Per relocation type (index): bytes written (0: unknown type), and its kind.
_WIDTH = np.zeros(64, np.int64)
_KIND = np.zeros(64, np.int8)
K_NONE, K_ABS, K_PC, K_GOT, K_ABS32, K_ABS32S = 0, 1, 2, 3, 4, 5  # K_PC, K_GOT: signed 32
for _t, _w, _k in ((1, 8, K_ABS), (24, 8, K_PC), (2, 4, K_PC), (4, 4, K_PC), (9, 4, K_GOT),
                   (41, 4, K_GOT), (42, 4, K_GOT), (10, 4, K_ABS32), (11, 4, K_ABS32S)):
    _WIDTH[_t], _KIND[_t] = _w, _k
# The range a relocation's value must lie in, and whether it is relative to its place.
_LOW = np.where(_WIDTH == 4, -(1 << 31), np.iinfo(np.int64).min)
_HIGH = np.where(_WIDTH == 4, (1 << 31) - 1, np.iinfo(np.int64).max)
_LOW[10], _HIGH[10] = 0, (1 << 32) - 1    # R_X86_64_32: unsigned
_PCREL = (_KIND == K_PC) | (_KIND == K_GOT)
_KNOWN = np.zeros(64, bool)
_KNOWN[list(R_NAMES)] = True
R_PC32, R_PLT32 = 2, 4

_STUB = b"\xff\x25\x00\x00\x00\x00"   # jmp *0(%rip), then the 8-byte target
STUB_SIZE = 16
FEW_LOOKUPS = 8                        # Image.address searches before it decodes all names
MAX_IMAGE = 1 << 40                    # larger images are refused (corrupt sizes)
POPULATE_ZEROS = 1 << 20               # map with MAP_POPULATE unless .bss is larger
MAX_ALIGN = 1 << 16                    # larger section alignments are refused
_SAFE = 1 << 62                        # operands below this cannot wrap int64 arithmetic

# ------------------------------------------------------------------ the system
_libc = ctypes.CDLL(None, use_errno=True)
_mmap = _libc.mmap
_mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                  ctypes.c_long]
_mmap.restype = ctypes.c_void_p
_mprotect = _libc.mprotect
_mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
_mprotect.restype = ctypes.c_int
_munmap = _libc.munmap
_munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
_munmap.restype = ctypes.c_int
_dlsym = _libc.dlsym
_dlsym.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
_dlsym.restype = ctypes.c_void_p

PAGE = mmap.PAGESIZE
PROT_READ, PROT_WRITE, PROT_EXEC = 0x1, 0x2, 0x4
MAP_PRIVATE, MAP_ANONYMOUS, MAP_32BIT, MAP_POPULATE = 0x02, 0x20, 0x40, 0x8000
MAP_FAILED = ctypes.c_void_p(-1).value


class Image:
    """Loaded code and data of one object, in one mapping of its own.

    ``address(name)`` gives a defined global symbol's address, ``symbols`` their
    names.  ``close()`` (or garbage collection) unmaps it; it is also a context
    manager.  Nothing may run its code once it is closed.
    """

    __slots__ = ("base", "size", "_strtab", "_offsets", "_sorted", "_addresses", "_table",
                 "_lookups", "_finalizer", "__weakref__")

    def __init__(self, base: int, size: int, strtab: bytes, offsets: np.ndarray,
                 addresses: np.ndarray) -> None:
        self.base, self.size = base, size  # the whole mapping
        # the exported symbols: their names' offsets in strtab, and their addresses
        self._strtab, self._offsets, self._addresses = strtab, offsets, addresses
        self._sorted = None  # (order, sorted offsets), for searching
        self._table = None   # name -> address, made on the first lookups
        self._lookups = 0
        self._finalizer = weakref.finalize(self, _unmap, base, size)
        self._finalizer.atexit = False  # at exit, daemon threads may still run the code

    @property
    def symbols(self) -> tuple:
        """Names of the defined global (and weak) function and data symbols."""
        return tuple(self._names())

    def index(self) -> None:
        """Decode the name table now (a background thread can, before lookups need it)."""
        if self._finalizer.alive:
            self._names()

    @property
    def closed(self) -> bool:
        return not self._finalizer.alive

    def address(self, name: str) -> int:
        """Address of the defined global symbol ``name``; KeyError if there is none,
        ValueError once the image is closed."""
        if not self._finalizer.alive:
            raise ValueError("the image is closed")
        if self._table is None and self._lookups < FEW_LOOKUPS:
            self._lookups += 1
            return self._find(name)
        return self._names()[name]

    def addresses(self, names) -> tuple:
        """``address`` of each of ``names`` (a long list reads the decoded name table)."""
        names = tuple(names)
        if len(names) <= FEW_LOOKUPS:
            return tuple(map(self.address, names))
        if not self._finalizer.alive:
            raise ValueError("the image is closed")
        return tuple(map(self._names().__getitem__, names))

    def _names(self) -> dict:
        """name -> address of the exported symbols (decoding all names takes 0.1-0.2 ms
        for a thousand: the first lookups search the string table instead)."""
        if self._table is None:
            names = _names(self._strtab, self._offsets)
            self._table = dict(zip(names, self._addresses.tolist()))
        return self._table

    def _find(self, name: str) -> int:
        """``name``'s address, found where the string table holds ``name`` followed by
        a NUL at the start of an exported symbol's name (a few microseconds)."""
        key = name.encode("utf-8", "surrogateescape") + b"\0"
        if self._sorted is None:
            order = np.argsort(self._offsets, kind="stable")
            self._sorted = (order, self._offsets[order])
        order, offsets = self._sorted
        at = self._strtab.find(key) if b"\0" not in key[:-1] else -1
        while at >= 0:
            i = int(np.searchsorted(offsets, at))
            if i < offsets.size and offsets[i] == at:
                return int(self._addresses[order[i]])
            at = self._strtab.find(key, at + 1)
        raise KeyError(name)

    def close(self) -> None:
        """Unmap the image (idempotent)."""
        self._finalizer()

    def __enter__(self) -> "Image":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self.closed else f"at {self.base:#x}"
        return f"<Image of {self._offsets.size} symbols, {self.size} bytes {state}>"


def _unmap(base: int, size: int) -> None:
    _munmap(base, size)  # fails only for arguments that were never a mapping


# ------------------------------------------------------------------- resolving
_resolved: dict = {}         # default resolver's cache: name -> address
_libraries: list = []        # handles of DEFAULT_LIBRARIES that loaded (kept for good)
_libraries_lock = threading.Lock()
_libraries_loaded = False
DEFAULT_LIBRARIES = ("libmvec.so.1", "libm.so.6")


def default_resolve(name: str) -> Optional[int]:
    """Address of ``name`` in the process's global namespace (libc, libm, the Python
    C API, libraries loaded with RTLD_GLOBAL), else in ``DEFAULT_LIBRARIES`` (glibc's
    vector math library, whose functions the loop vectoriser calls, and libm);
    None if there is none.  Vector math names (``_ZGV...``) are looked up in those
    libraries first: they are seldom global, and each miss in the global namespace
    searches every loaded library."""
    addr = _resolved.get(name)
    if addr is None:
        key = name.encode("utf-8", "surrogateescape")
        vector = name.startswith("_ZGV")
        addr = ((not vector and _dlsym(None, key)) or _in_libraries(key)
                or (vector and _dlsym(None, key)))   # None: RTLD_DEFAULT
        if addr:
            _resolved[name] = addr
    return addr or None


def _in_libraries(key: bytes) -> Optional[int]:
    for handle in _default_libraries():
        addr = _dlsym(handle, key)
        if addr:
            return addr
    return None


def _default_libraries() -> list:
    """The handles of DEFAULT_LIBRARIES (those that exist), opened on first use and
    kept open for good."""
    global _libraries_loaded
    if not _libraries_loaded:
        with _libraries_lock:
            if not _libraries_loaded:
                for lib in DEFAULT_LIBRARIES:
                    try:
                        _libraries.append(ctypes.CDLL(lib)._handle)
                    except OSError:
                        pass
                _libraries_loaded = True
    return _libraries


# --------------------------------------------------------------------- parsing
class _Section:
    """A section header; ``at``: -1 not loaded, -2 to lay out, else its offset in the
    image."""

    __slots__ = ("index", "name_at", "name", "type", "flags", "offset", "size", "link",
                 "info", "align", "at")

    def __init__(self, index: int, fields: tuple) -> None:
        (self.name_at, self.type, self.flags, _, self.offset, self.size, self.link,
         self.info, self.align, _) = fields
        self.index, self.name, self.at = index, "", -1

    def region(self) -> int:
        """0 code, 1 read-only data, 2 writable data."""
        if self.flags & SHF_EXECINSTR:
            return 0
        return 2 if self.flags & SHF_WRITE else 1


def _headers(obj: bytes) -> list:
    """The section headers, checked against the buffer."""
    if len(obj) < _EHDR.size:
        raise LoadError("truncated ELF header")
    (ident, e_type, machine, _, _, _, shoff, _, _, _, _, shentsize, shnum,
     shstrndx) = _EHDR.unpack_from(obj)
    if ident[:4] != b"\x7fELF" or ident[4] != 2 or ident[5] != 1:
        raise LoadError("not a little-endian ELF64 object")
    if e_type != ET_REL or machine != EM_X86_64:
        raise LoadError(f"not an x86-64 relocatable object (type {e_type}, machine {machine})")
    if shnum == 0 or shnum >= SHN_LORESERVE:
        raise LoadError("no sections, or extended section numbering (not supported)")
    if shentsize != _SHDR.size or shoff + shnum * _SHDR.size > len(obj):
        raise LoadError("section headers outside the object")
    sections = [_Section(i, f) for i, f in
                enumerate(_SHDR.iter_unpack(obj[shoff:shoff + shnum * _SHDR.size]))]
    for s in sections:
        if s.type != SHT_NOBITS and s.offset + s.size > len(obj):
            raise LoadError(f"section {s.index} lies outside the object")
        if s.align > MAX_ALIGN or s.align & (s.align - 1):
            raise LoadError(f"section {s.index} has an unsupported alignment {s.align}")
    if not 0 < shstrndx < shnum or sections[shstrndx].type != SHT_STRTAB:
        raise LoadError("no section name table")
    names = sections[shstrndx]
    names = obj[names.offset:names.offset + names.size]
    for s in sections:
        if s.name_at >= len(names):
            raise LoadError(f"section {s.index}'s name lies outside its table")
        s.name = _name(names, s.name_at)
    return sections


def _is_loaded(s: _Section) -> bool:
    """Whether the image holds ``s`` (refusing allocated sections it cannot honour).
    Allocated notes and ``.eh_frame`` (SHT_X86_64_UNWIND) are left out; so is any other
    allocated section of an unknown kind: a relocation referring to it fails."""
    if not s.flags & SHF_ALLOC:
        return False
    if s.flags & SHF_TLS:
        raise LoadError("thread-local sections are not supported")
    if (s.type in (SHT_INIT_ARRAY, SHT_FINI_ARRAY, SHT_PREINIT_ARRAY)
            or s.name.startswith(_CONSTRUCTORS)):
        raise LoadError(f"constructors and destructors ({s.name}) are not supported")
    if s.type not in (SHT_PROGBITS, SHT_NOBITS):
        return False
    if s.flags & SHF_WRITE and s.flags & SHF_EXECINSTR:
        raise LoadError(f"section {s.index} is both writable and executable")
    return True


def _symtab(obj: bytes, sections: list) -> tuple:
    """(symbols, their string table) of the object's one symbol table."""
    tables = [s for s in sections if s.type == SHT_SYMTAB]
    if len(tables) != 1:
        raise LoadError(f"{len(tables)} symbol tables (expected one)")
    tab = tables[0]
    if tab.size % _SYM.itemsize or not 0 < tab.link < len(sections):
        raise LoadError("malformed symbol table")
    strs = sections[tab.link]
    if strs.type != SHT_STRTAB or tab.size < _SYM.itemsize:
        raise LoadError("malformed symbol table")
    syms = np.frombuffer(obj, _SYM, tab.size // _SYM.itemsize, tab.offset)
    if syms.size and int(syms["name"].max()) >= max(strs.size, 1):
        raise LoadError("symbol name outside the string table")
    return syms, obj[strs.offset:strs.offset + strs.size]


def _perf_map(syms: np.ndarray, strtab: bytes, address: np.ndarray, inside: np.ndarray) -> None:
    """Append the image's functions (internal ones too) to ``/tmp/perf-<pid>.map``, where
    ``perf report`` names code it cannot find in a file (``LAZYARRAY_PERF_MAP=1``: for
    profiling lazyarray's native code)."""
    funcs = np.flatnonzero(inside & ((syms["info"] & 0xF) == STT_FUNC) & (syms["size"] > 0))
    lines = [f"{int(address[k]):x} {int(syms['size'][k]):x} {_name(strtab, int(syms['name'][k]))}\n"
             for k in funcs.tolist()]
    with open(f"/tmp/perf-{os.getpid()}.map", "a") as f:
        f.writelines(lines)


def _name(strtab: bytes, offset: int) -> str:
    end = strtab.find(b"\0", offset)
    if end < 0:
        raise LoadError("unterminated symbol name")
    return strtab[offset:end].decode("utf-8", "surrogateescape")


def _names(strtab: bytes, offsets: np.ndarray) -> list:
    """The names at ``offsets`` (each below ``len(strtab)``), decoded in bulk: an ASCII
    table splits at its NULs once, and each name is the piece it starts (or a tail of
    that piece: LLVM merges a name that ends another)."""
    if offsets.size < 2 or offsets.size * 100 < len(strtab) or not strtab.isascii():
        # one by one is faster
        return [_name(strtab, o) for o in offsets.tolist()]
    if strtab[-1:] != b"\0":
        raise LoadError("unterminated string table")
    starts = np.flatnonzero(np.frombuffer(strtab, np.uint8) == 0) + 1
    starts = np.concatenate(([0], starts[:-1]))        # where each piece starts
    pieces = strtab.decode("ascii").split("\0")
    piece = np.searchsorted(starts, offsets, "right") - 1
    names = list(operator.itemgetter(*piece.tolist())(pieces))
    for i in np.flatnonzero(starts[piece] != offsets).tolist():
        names[i] = names[i][int(offsets[i] - starts[piece[i]]):]
    return names


def _relocations(obj: bytes, sections: list) -> tuple:
    """(target section per entry, entries) of the RELA sections of loaded sections."""
    targets, tables = [], []
    for s in sections:
        if s.type not in (SHT_RELA, SHT_REL):
            continue
        if not 0 < s.info < len(sections) or not 0 < s.link < len(sections):
            raise LoadError(f"relocation section {s.index} refers to no section")
        target = sections[s.info]
        if target.at == -1:
            continue  # relocates a section that is not loaded (.eh_frame, debug)
        if s.type == SHT_REL or s.size % _RELA.itemsize:
            raise LoadError(f"unsupported or malformed relocation section {s.index}")
        if target.type == SHT_NOBITS:
            raise LoadError(f"relocations in section {target.index}, which has no contents")
        if sections[s.link].type != SHT_SYMTAB:
            raise LoadError(f"relocation section {s.index} uses another symbol table")
        rela = np.frombuffer(obj, _RELA, s.size // _RELA.itemsize, s.offset)
        targets.append(np.full(rela.size, target.index, np.int64))
        tables.append(rela)
    if not tables:
        return np.zeros(0, np.int64), np.zeros(0, _RELA)
    return np.concatenate(targets), np.concatenate(tables)


# ---------------------------------------------------------------------- layout
class _Layout:
    """Where everything goes in the image (offsets from its aligned origin)."""

    def __init__(self, sections: list, commons: np.ndarray, syms: np.ndarray,
                 n_stubs: int, n_got: int) -> None:
        cursor, self.regions = 0, []
        self.align = PAGE
        for region in range(3):
            start = cursor = _align_up(cursor, PAGE)
            for s in sections:
                if s.at == -2 and s.region() == region:
                    cursor = s.at = self._place(cursor, s.size, s.align)
                    cursor += s.size
            if region == 0:
                self.stubs = self._place(cursor, n_stubs * STUB_SIZE, STUB_SIZE)
                cursor = self.stubs + n_stubs * STUB_SIZE
            elif region == 1:
                self.got = self._place(cursor, n_got * 8, 8)
                cursor = self.got + n_got * 8
            else:
                self.commons = np.zeros(commons.size, np.int64)
                for i, k in enumerate(commons):
                    size, align = int(syms["size"][k]), int(syms["value"][k]) or 1
                    if align > MAX_ALIGN or align & (align - 1):
                        raise LoadError(f"common symbol {k} has a bad alignment {align}")
                    cursor = self.commons[i] = self._place(cursor, size, align)
                    cursor += size
            self.regions.append((start, _align_up(cursor, PAGE) - start))
        self.size = max(_align_up(cursor, PAGE), PAGE)
        if self.size + self.align > MAX_IMAGE:
            raise LoadError(f"the image would take {self.size} bytes")
        self.zeros = sum(s.size for s in sections if s.at >= 0 and s.type == SHT_NOBITS)
        self.zeros += int(syms["size"][commons].sum())

    def _place(self, cursor: int, size: int, align: int) -> int:
        align = max(align, 1)
        self.align = max(self.align, align)
        return _align_up(cursor, align)


def _align_up(x: int, align: int) -> int:
    return (x + align - 1) & -align


# ------------------------------------------------------------------------ load
def load(obj: bytes, resolve: Callable[[str], Optional[int]] | None = None) -> Image:
    """Link the relocatable object ``obj`` into this process.

    ``resolve(name)`` gives the address of an external symbol (None or 0 when it
    has none; weak symbols may stay unresolved, as 0); by default
    ``default_resolve``.  Raises ``LoadError`` when the object is malformed or
    unsupported, or names the symbols that cannot be resolved; nothing stays
    mapped then.
    """
    obj = obj if isinstance(obj, bytes) else bytes(obj)
    sections = _headers(obj)
    for s in sections:
        if _is_loaded(s):
            s.at = -2  # to lay out
    syms, strtab = _symtab(obj, sections)
    targets, rela = _relocations(obj, sections)
    rsym = (rela["info"] >> np.uint64(32)).astype(np.int64)
    rtype = (rela["info"] & np.uint64(0xFFFFFFFF)).astype(np.int64)
    _check_relocations(sections, syms, strtab, targets, rela, rsym, rtype)
    link = _Linker(obj, sections, syms, strtab, targets, rela, rsym, rtype)
    link.resolve(resolve or default_resolve)
    return link.map()


def _check_relocations(sections, syms, strtab, targets, rela, rsym, rtype) -> None:
    """Refuse unknown types, bad symbol indices and fields outside their section."""
    if not rtype.size:
        return
    bad = (rtype >= _KNOWN.size) | (rsym >= syms.size)
    known = np.where(bad, False, _KNOWN[np.minimum(rtype, _KNOWN.size - 1)])
    if not known.all():
        i = int(np.flatnonzero(~known)[0])
        if rsym[i] >= syms.size:
            raise LoadError(f"relocation against symbol {rsym[i]}, which does not exist")
        raise LoadError(f"unsupported relocation type {rtype[i]} (against "
                        f"{_name(strtab, int(syms['name'][rsym[i]]))!r})")
    sizes = np.array([s.size for s in sections], np.uint64)
    ends = rela["offset"] + _WIDTH[rtype].astype(np.uint64)
    if ((ends > sizes[targets]) | (ends < rela["offset"])).any():
        raise LoadError("relocation outside its section")


class _Linker:
    """One load: symbol addresses, stubs, GOT slots, the mapping and its contents."""

    def __init__(self, obj, sections, syms, strtab, targets, rela, rsym, rtype) -> None:
        self.obj, self.sections, self.syms, self.strtab = obj, sections, syms, strtab
        self.targets, self.rela, self.rsym, self.rtype = targets, rela, rsym, rtype
        shndx = syms["shndx"].astype(np.int64)
        stype = syms["info"] & 0xF
        if ((stype == STT_GNU_IFUNC) & (shndx != SHN_UNDEF)).any():
            raise LoadError("GNU indirect functions (ifunc) are not supported")
        self.shndx = shndx
        self.undefined = (shndx == SHN_UNDEF)
        self.undefined[0] = False  # the null symbol: address 0
        self.commons = np.flatnonzero(shndx == SHN_COMMON)
        self.external = np.zeros(syms.size, np.uint64)  # resolved addresses
        self.used = _mark(syms.size, rsym)  # symbols that relocations refer to

    def resolve(self, resolve) -> None:
        """Resolve the undefined symbols that relocations refer to (before mapping)."""
        used = np.flatnonzero(self.used & self.undefined)
        missing = []
        for k, name in zip(used.tolist(), _names(self.strtab, self.syms["name"][used])):
            addr = resolve(name)
            if not addr:
                if self.syms["info"][k] >> 4 != STB_WEAK:
                    missing.append(name)
                continue
            if not 0 < addr < _SAFE:
                raise LoadError(f"resolver gave {name!r} an impossible address {addr:#x}")
            self.external[k] = addr
        if missing:
            raise LoadError(f"unresolved symbol{'s' * (len(missing) > 1)}: "
                            + ", ".join(sorted(missing)))

    def map(self) -> Image:
        """Lay out, map, fill, relocate and protect the image."""
        kind = _KIND[self.rtype]
        self.stub_syms = self._stub_syms()
        got_syms = np.flatnonzero(_mark(self.syms.size, self.rsym[kind == K_GOT]))
        layout = _Layout(self.sections, self.commons, self.syms, self.stub_syms.size,
                         got_syms.size)
        low = bool(((kind == K_ABS32) | (kind == K_ABS32S)).any())
        size = layout.size + layout.align - PAGE
        base = _map_pages(size, low, layout.zeros <= POPULATE_ZEROS)
        try:
            origin = _align_up(base, layout.align)
            mem = _memory(origin, layout.size)
            address = self._addresses(layout, origin)
            self._fill(mem, layout, address, got_syms)
            self._relocate(mem, layout, origin, address, got_syms, kind)
            del mem
            for (start, length), prot in zip(layout.regions[:2], (PROT_EXEC, 0)):
                if length:
                    _protect(origin + start, length, PROT_READ | prot)
            if os.environ.get("LAZYARRAY_PERF_MAP", "").strip() == "1":
                _perf_map(self.syms, self.strtab, address, self.inside)
            exported = self._exported()
            return Image(base, size, self.strtab,
                         self.syms["name"][exported].astype(np.int64), address[exported])
        except BaseException:
            _munmap(base, size)
            raise

    def _stub_syms(self) -> np.ndarray:
        """External symbols that 32-bit pc-relative calls may need a stub for (all get
        one: whether a call reaches its target is known only once mapped)."""
        pc32 = (self.rtype == R_PC32) | (self.rtype == R_PLT32)
        return np.flatnonzero(_mark(self.syms.size, self.rsym[pc32]) & self.undefined)

    def _addresses(self, layout: _Layout, origin: int) -> np.ndarray:
        """Every symbol's address (uint64); 0 for those not in the image."""
        sec_at = np.array([s.at for s in self.sections] + [-1], np.int64)
        shndx = np.where(self.shndx < len(self.sections), self.shndx, len(self.sections))
        at = sec_at[shndx]
        address = self.external.copy()
        inside = at >= 0
        sizes = np.array([s.size for s in self.sections] + [0], np.uint64)
        if (inside & (self.syms["value"] > sizes[shndx])).any():
            raise LoadError("a symbol lies outside its section")
        address[inside] = (origin + at[inside]).astype(np.uint64) + self.syms["value"][inside]
        absolute = self.shndx == SHN_ABS
        address[absolute] = self.syms["value"][absolute]
        address[self.commons] = (origin + layout.commons).astype(np.uint64)
        # a relocation against a symbol of a section left out (or of a bad index)
        known = inside | absolute | self.undefined
        known[self.commons] = True
        known[0] = True
        if not known[self.rsym].all():
            k = int(self.rsym[~known[self.rsym]][0])
            raise LoadError(f"relocation against {self._sym_name(k)!r}, in a section "
                            "that is not loaded")
        self.inside = inside
        return address

    def _sym_name(self, k: int) -> str:
        if self.syms["info"][k] & 0xF == STT_SECTION and self.shndx[k] < len(self.sections):
            return f"section {self.shndx[k]}"
        return _name(self.strtab, int(self.syms["name"][k]))

    def _fill(self, mem, layout: _Layout, address, got_syms) -> None:
        """Copy the sections' contents; write the stubs and the GOT."""
        src = np.frombuffer(self.obj, np.uint8)
        for s in self.sections:
            if s.at >= 0 and s.type != SHT_NOBITS:
                mem[s.at:s.at + s.size] = src[s.offset:s.offset + s.size]
        n = self.stub_syms.size
        if n:
            stubs = np.zeros((n, STUB_SIZE), np.uint8)
            stubs[:, :6] = np.frombuffer(_STUB, np.uint8)
            stubs[:, 6:14] = address[self.stub_syms].astype("<u8").view(np.uint8).reshape(n, 8)
            stubs[:, 14:] = 0xCC
            mem[layout.stubs:layout.stubs + n * STUB_SIZE] = stubs.reshape(-1)
        if got_syms.size:
            got = address[got_syms].astype("<u8").view(np.uint8)
            mem[layout.got:layout.got + got.size] = got

    def _relocate(self, mem, layout: _Layout, origin: int, address, got_syms, kind) -> None:
        """Compute every relocation's value, check its range and write it."""
        if not kind.size:
            return
        rtype = self.rtype
        sec_at = np.array([max(s.at, 0) for s in self.sections], np.int64)
        place = sec_at[self.targets] + self.rela["offset"].view(np.int64)  # image offset
        pc = origin + place
        addend = self.rela["addend"]
        target = address[self.rsym].view(np.int64)  # a copy (fancy indexing)
        got = kind == K_GOT
        if got.any():
            slots = np.zeros(self.syms.size, np.int64)
            slots[got_syms] = np.arange(got_syms.size)
            target[got] = origin + layout.got + 8 * slots[self.rsym[got]]
        self._check_operands(target, addend)
        value = target + addend                   # wraps, for 64-bit fields only
        value -= np.where(_PCREL[rtype], pc, 0)
        over = (value < _LOW[rtype]) | (value > _HIGH[rtype])
        if over.any():
            self._through_stubs(over, value, layout, origin, pc, addend)
        self._write(mem, place, value, _WIDTH[rtype])

    def _check_operands(self, target, addend) -> None:
        """Refuse 32-bit fields whose operands could wrap the arithmetic (the ranges
        checked after it would then be wrong)."""
        if (target.min() < 0 or target.max() >= _SAFE or addend.min() <= -_SAFE
                or addend.max() >= _SAFE):
            narrow = _WIDTH[self.rtype] == 4
            if (narrow & ((np.abs(addend) >= _SAFE) | (target < 0) | (target >= _SAFE))).any():
                raise LoadError("relocation operand out of range")

    def _through_stubs(self, over, value, layout, origin, pc, addend) -> None:
        """Send out-of-range calls to external functions through their stubs; refuse
        any other value that does not fit its field."""
        rows = np.flatnonzero(over)
        syms = self.rsym[rows]
        ok = self.undefined[syms] & (addend[rows] == -4) & self._branches(rows)
        if not ok.all():
            i = int(rows[~ok][0])
            raise LoadError(f"relocation {R_NAMES[int(self.rtype[i])]} against "
                            f"{self._sym_name(int(self.rsym[i]))!r} does not fit its 32-bit field")
        stubs = origin + layout.stubs + STUB_SIZE * np.searchsorted(self.stub_syms, syms)
        value[rows] = stubs - 4 - pc[rows]
        if (np.abs(value[rows]) >= 1 << 31).any():
            raise LoadError("image too large for 32-bit relocations")

    def _branches(self, rows: np.ndarray) -> np.ndarray:
        """Whether each relocation of ``rows`` is the operand of a call, jmp or jcc
        rel32 (a PLT32 one always is; a PC32 one when its opcode says so)."""
        offset = self.rela["offset"][rows].astype(np.int64)
        starts = np.array([s.offset for s in self.sections], np.int64)[self.targets[rows]]
        src = np.frombuffer(self.obj, np.uint8)
        op = np.where(offset >= 1, src[np.maximum(starts + offset - 1, 0)], 0)
        op2 = np.where(offset >= 2, src[np.maximum(starts + offset - 2, 0)], 0)
        return ((self.rtype[rows] == R_PLT32) | (op == 0xE8) | (op == 0xE9)
                | ((op2 == 0x0F) & (op >= 0x80) & (op <= 0x8F)))

    @staticmethod
    def _write(mem, place, value, width) -> None:
        """Store ``value`` (int64, little-endian like the target) at ``place``, in
        fields of ``width`` bytes."""
        for w, dtype in ((8, np.int64), (4, np.uint32)):
            rows = width == w
            if rows.any():
                data = value[rows].astype(dtype).view(np.uint8).reshape(-1, w)
                mem[place[rows][:, None] + np.arange(w)] = data

    def _exported(self) -> np.ndarray:
        """The defined global and weak symbols (a mask)."""
        syms = self.syms
        bind, stype = syms["info"] >> 4, syms["info"] & 0xF
        keep = ((bind != 0) & (stype != STT_SECTION) & (stype != STT_FILE) & (stype != STT_TLS)
                & (self.inside | (self.shndx == SHN_ABS)))
        keep[self.commons] = True
        return keep


def _mark(n: int, indices: np.ndarray) -> np.ndarray:
    """A mask of ``n`` elements, true at ``indices``."""
    mask = np.zeros(n, bool)
    mask[indices] = True
    return mask


def _map_pages(size: int, low: bool, populate: bool) -> int:
    """A fresh read-write mapping of ``size`` bytes (below 2 GB if ``low``)."""
    flags = MAP_PRIVATE | MAP_ANONYMOUS
    flags |= (MAP_32BIT if low else 0) | (MAP_POPULATE if populate else 0)  # fewer faults
    base = _mmap(None, size, PROT_READ | PROT_WRITE, flags, -1, 0)
    if base is None or base == MAP_FAILED:
        err = ctypes.get_errno()
        raise LoadError(f"mmap of {size} bytes failed: {_strerror(err)}")
    return base


class _Memory:
    """A numpy view of raw memory (without making a ctypes array type per size)."""

    def __init__(self, address: int, size: int) -> None:
        self.__array_interface__ = {"data": (address, False), "shape": (size,),
                                    "typestr": "|u1", "version": 3}


def _memory(address: int, size: int) -> np.ndarray:
    return np.asarray(_Memory(address, size))


def _protect(address: int, length: int, prot: int) -> None:
    if _mprotect(address, length, prot) != 0:
        raise LoadError(f"mprotect failed: {_strerror(ctypes.get_errno())}")


def _strerror(err: int) -> str:
    return os.strerror(err)


def _after_fork_in_child() -> None:
    global _libraries_lock  # another thread may have held it when the process forked
    _libraries_lock = threading.Lock()  # (this module imports nothing of the backend)


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
