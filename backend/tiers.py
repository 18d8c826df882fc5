"""Which tier runs a program: decided here, and only here.

Every program runs on the native sequencer (backend/sequencer.py) over its
program code (backend/bytecode.py).  Each of its kernels is either
*interpreted* (building blocks compiled in advance, block by block) or
*compiled* (a unit of its own, backend/native.py, keyed by the kernel's own
structure, so every program containing that kernel shares one compile).  A
compiled kernel is installed into the program code with one store; the
sequencer picks it up on its next run, so runners, prepared programs and
front doors never change.

The policy, ``LAZYARRAY_TIER``:

* ``auto`` (default): a new structure runs interpreted at once.  When a
  program runs again (its ``HOT_RUNS``-th run, counting every runner of its
  structure) its kernels are compiled (or read from the disk cache) on the
  background thread and installed one by one as they arrive.  A caller never
  waits for LLVM, unless it asks for compiled code (``Program.prepare``, ``jit(..., compile=True)``).
* ``interpret``: kernels are never compiled (for tests and benchmarks).
* ``compile``: every program's kernels are compiled before its first run
  (the caller waits, as before the interpreter existed).

``stats`` counts kernel runs per tier (native counters in the program code),
kernels compiled and installed, and kernel-cache hits and misses.
"""
from __future__ import annotations

import threading
import weakref

from . import abi, bytecode, library, native, threads
from .schedule import Schedule

HOT_RUNS = 2
TIERS = ("auto", "interpret", "compile")


def policy() -> str:
    """The tier policy from ``LAZYARRAY_TIER`` (see the module docstring)."""
    raw = threads.env("LAZYARRAY_TIER")
    if not raw:
        return "auto"
    mode = raw.strip().lower() or "auto"
    if mode not in TIERS:
        raise ValueError(f"LAZYARRAY_TIER must be one of {', '.join(TIERS)}, got {raw!r}")
    return mode


class Stats:
    """Kernels found compiled (in memory or on disk) when wanted, kernels that had to be
    compiled, compiled kernels installed into program code, and the kernel runs
    (interpreted, compiled) of programs gone."""

    def __init__(self) -> None:
        self.kernel_hits = self.kernel_misses = self.installs = 0
        self.retired_runs = (0, 0)


STATS = Stats()
# cb(event, program name, detail): "hot" (its kernels are being compiled), "compiled"
# (every kernel of it runs compiled code now); see lazyarray/_diagnostics.py
LISTENERS: list = []
_LIVE: "weakref.WeakSet[ProgramCode]" = weakref.WeakSet()
_lock = threading.Lock()


def kernel_runs() -> tuple:
    """(interpreted, compiled) kernel runs so far, by every program."""
    i, c = STATS.retired_runs
    for p in list(_LIVE):
        a, b = p.code.runs()
        i, c = i + a, c + b
    return i, c


class ProgramCode:
    """A schedule's program code, linked to the building blocks, and its tier state."""

    def __init__(self, sched: Schedule) -> None:
        native.STORE.busy()  # background compiles wait for a quiet moment
        self.schedule = sched
        self.code = code = library.link(bytecode.build, sched)
        self.run_addr = library.run_address()
        self.run = _entry(self.run_addr)
        self.runs = 0
        self.requested = False
        self._abi = None
        for pos, key in code.later:  # a GEMM routine still compiling: generic loops until then
            library.gemm_address(key[1], wait=False, on_ready=_patcher(code, pos))
        with _lock:
            _LIVE.add(self)
        if policy() == "compile":
            self.compile(wait=True)

    def wait_for_gemm(self) -> None:
        """Link the GEMM routines the program code still lacks, waiting for their compile:
        a large matrix product would otherwise run the interpreter's generic loop, whose
        one chunk can outlast the routine's compile many times over (a 4000^3 product:
        100 s against about 1 s), and Ctrl-C waits for a chunk."""
        code = self.code
        for pos, key in code.later:
            if not code.words[pos]:
                code.words[pos] = library.gemm_address(key[1], wait=True)

    def __del__(self) -> None:
        code = self.__dict__.get("code")  # None if __init__ raised (or was interrupted) first
        if code is not None and _retire is not None:  # (None: the interpreter is exiting)
            _retire(code)

    def ran(self) -> None:
        """Called on a run through Python (a runner's first runs): a program that runs
        again is worth compiling."""
        self.runs += 1
        mode = policy()
        if mode == "compile":  # (made before the switch was set)
            self.compile(wait=True)
        elif self.runs == HOT_RUNS and mode == "auto":
            # even naming its kernels' units is background work (about a millisecond
            # for a few kernels: the caller did not ask for it)
            native.STORE.later(self.compile, False)

    def compile(self, wait: bool) -> None:
        """Compile every kernel not compiled yet (``wait``: before returning, else on the
        background thread) and install each.  The background request is made once; a
        later ``wait`` still waits for what is not installed yet."""
        if policy() == "interpret":
            return
        with _lock:
            first, self.requested = not self.requested, True
        if not (first or wait):
            return
        if first:
            _tell("hot", self.schedule.name,
                  f"ran again: compiling its {len(self.schedule.kernels)} kernel(s)"
                  + ("" if wait else " in the background"))
        for i, k in enumerate(self.kernel_abis()):
            if self.code.installed(i):
                continue
            unit = kernel_unit(k)
            if first and native.STORE.ready(unit.name):
                STATS.kernel_hits += 1
            got = native.get(unit, wait=wait, priority=native.URGENT,
                             on_ready=_installer(self.code, i, unit), disk=False)
            if got is not None:
                self._install(i, unit, got)

    def kernel_abis(self) -> list:
        if self._abi is None:
            self._abi = kernel_abis(self.schedule)
        return self._abi

    def _install(self, i: int, unit, addresses) -> None:
        _install(self.code, i, unit, addresses)

    @property
    def compiled(self) -> bool:
        """Whether every kernel runs compiled code."""
        return all(self.code.installed(i) for i in range(len(self.schedule.kernels)))


_ENTRIES: dict = {}  # address -> its ctypes function (one per sequencer loaded)


def _entry(address: int):
    fn = _ENTRIES.get(address)
    if fn is None:
        fn = _ENTRIES.setdefault(address, abi.ENTRY_TYPE(address))
    return fn


def kernel_abis(sched: Schedule) -> list:
    """Each kernel of ``sched`` as its compiled unit sees it (``bytecode.kernel_abi``)."""
    return [bytecode.kernel_abi(k) for k in sched.kernels]


def kernel_unit(k) -> native.Unit:
    """The unit of a kernel in the ABI of ``bytecode.kernel_abi``."""
    name = bytecode.kernel_name(k)
    needs = ()
    if k.matmul and bytecode.gemm_operands(k) is not None:
        needs = (library.gemm_unit(k.out_dtype.name),)
    return native.Unit(name, ("kernels", "kernel_ir", (name, k)), (name,), needs=needs,
                       transient=True)


def _install(code, i: int, unit, addresses) -> None:
    if code.installed(i):
        return
    code.install(i, addresses[0], addresses)  # holding the addresses keeps the code mapped
    STATS.installs += 1
    if all(code.installed(j) for j in range(len(code.kernel_at))):
        _tell("compiled", code.schedule.name, "runs compiled code now (every kernel installed)")


def _tell(event: str, name: str, detail: str) -> None:
    for cb in list(LISTENERS):
        try:
            cb(event, name, detail)
        except Exception:  # noqa: BLE001 - a listener must not break a run
            pass


def _installer(code, i: int, unit):
    """A callback installing kernel ``i`` of ``code`` once its unit is loaded (the
    program code may be gone by then)."""
    ref = weakref.ref(code)

    def install(addresses) -> None:
        c = ref()
        if c is not None:
            _install(c, i, unit, addresses)
    return install


def _patcher(code, pos: int):
    ref = weakref.ref(code)

    def patch(address: int) -> None:
        c = ref()
        if c is not None:
            c.words[pos] = address
    return patch


def _retire(code) -> None:
    a, b = code.runs()
    i, c = STATS.retired_runs
    STATS.retired_runs = (i + a, c + b)


def _count(event: str, name: str, seconds) -> None:
    """native.Store's listener: a kernel unit loaded from disk is a hit, compiled a miss."""
    if name.startswith("lzk_"):
        if event == "disk":
            STATS.kernel_hits += 1
        else:
            STATS.kernel_misses += 1


native.STORE.stats.log.append(_count)

threads.renew_locks_at_fork(globals(), "_lock")
