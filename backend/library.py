"""The building-block library: the sequencer and the primitives it calls.

On a machine that has run lazyarray before, the whole library is one unit
(backend/native.py), the *bundle*: every primitive of ``bytecode.full_set()``
and the sequencer, fully optimised, loaded from the disk cache with one file
read.  On a new machine the bundle is compiled once on the background thread
(about ten seconds of the compile worker's time); until it is there, the
primitives a program lacks are compiled together as one unit of quick code (a
few milliseconds: scalar loops, code-generation level 0, see llvm.QUICK_PASSES)
while the caller waits, and kept on disk too; the sequencer is a quick unit of
its own, from the IR text shipped with the package (backend/shipped.py).
Programs made after the bundle is loaded use its code.  A primitive outside
the full set (the front end never asks for one today) is a quick unit with
its optimised version following in the background.

The GEMM routines (backend/matmul.py) are building blocks too, but large: a
program never waits for one unless it asks to compile (``wait=True``); until
one is loaded, contractions run on the interpreter's generic loops.
``LAZYARRAY_PREBUILD=0`` keeps the bundle from being compiled ahead of need.
"""
from __future__ import annotations

import os
import threading
from typing import Callable, Optional

from . import native, threads
from .bytecode import full_set, prim_symbol as symbol
from .names import name_of

RUN = "lazyarray_run"
_lock = threading.Lock()
_addr: dict = {}  # key (or "run") -> the address new programs use
_bundle_state = None  # None: not looked for yet; False: not there (queued); True: loaded
_bundle_image = None  # the bundle's mapped image, where its primitives are looked up
_FULL: Optional[frozenset] = None


def _unit(key: tuple, quick: bool) -> native.Unit:
    sym = symbol(key)
    return native.Unit(sym + ("~quick" if quick else ""), ("blocks", "unit_ir", (key,)),
                       (sym,), quick)


def sequencer_unit() -> native.Unit:
    """The sequencer alone, as quick code (the bundle has the optimised one)."""
    return native.Unit(RUN + "~quick", ("shipped", "sequencer_ir", ()), (RUN,), quick=True)


def bundle_unit() -> native.Unit:
    """Every primitive of the full set and the sequencer, in one optimised unit (the
    fingerprint of the disk cache covers what it holds).  Where backend/loader.py maps
    it, the unit names the sequencer only: a primitive's address is read from the
    mapped image when a program first needs it (naming all 887 and reading their
    addresses took about 1.5 ms of a new process's first evaluation); llvmlite's JIT,
    the fallback elsewhere, gives the addresses of the symbols named."""
    global _BUNDLE
    if _BUNDLE is None:
        if native.image_lookup():
            symbols: tuple = (RUN,)
        else:
            symbols = tuple(symbol(k) for k in full_set()) + (RUN,)
        _BUNDLE = native.Unit("lazyarray_blocks", ("blocks", "bundle_ir", ()), symbols)
    return _BUNDLE


_BUNDLE: Optional[native.Unit] = None


def gemm_unit(dtype: str) -> native.Unit:
    sym = f"lazyarray_gemm_{dtype}"
    return native.Unit(sym, ("matmul", "gemm_unit_ir", (dtype,)), (sym,))


def bundle_loaded() -> bool:
    """Whether the bundle (every building block, optimised) is loaded in this process."""
    return _bundle_state is True


def run_address() -> int:
    """The address of ``lazyarray_run`` (the sequencer)."""
    a = _addr.get("run")
    if a is None:
        _bundle()
        a = _addr.get("run")
        if a is None:
            a = _addr.setdefault("run", native.get(sequencer_unit())[0])
    return a


def resolve(key: tuple) -> int:
    """The address of building block ``key`` (a ``("gemm", dtype)`` key: 0 until that
    routine is loaded; see ``gemm_address``)."""
    a = _addr.get(key)
    if a is None:
        a = gemm_address(key[1], wait=False) if key[0] == "gemm" else _primitive(key)
    return a


def loaded_address(key: tuple) -> int:
    """The address of building block ``key`` when the bundle is loaded and holds it;
    0 otherwise (nothing is compiled or queued).  Asked of the mapped bundle itself: the
    full set of keys took 0.3-0.5 ms to make, in a new process's first evaluation."""
    if _bundle_state is not True:
        return 0
    a = _addr.get(key)
    if a is None and _bundle_image is not None and key[0] != "gemm":
        a = _in_bundle(_bundle_image, key)
        if a is not None:
            a = _addr.setdefault(key, a)
    return a or 0


def _primitive(key: tuple) -> int:
    _bundle()
    a = _addr.get(key)
    if a is not None:
        return a
    if _bundle_image is not None:  # the bundle is loaded: its primitives are read on first use
        a = _in_bundle(_bundle_image, key)
        if a is not None:
            return _addr.setdefault(key, a)
    if key not in _full():  # outside the bundle: its own optimised unit follows
        def take(addresses) -> None:
            _addr[key] = addresses[0]
        got = native.get(_unit(key, quick=False), wait=False, priority=native.LATER,
                         on_ready=take)
        if got is not None:
            return _addr.setdefault(key, got[0])
    return _addr.setdefault(key, native.get(_unit(key, quick=True))[0])


def link(build: Callable, sched):
    """``build(sched, resolve)`` (backend/bytecode.py) linked to the building blocks.  On
    a machine without the bundle, the primitives of the full set it lacks are compiled
    together, as one quick unit, before it is built again: a first program's five or six
    primitives took as many compiles of 3-20 ms each (one LLVM module, one object, one
    load each)."""
    if _bundle_state is None:
        _bundle()
    if _bundle_state is True:
        return build(sched, resolve)
    missing: list = []

    def probe(key: tuple) -> int:
        a = _addr.get(key)
        if a is not None:
            return a
        if key[0] != "gemm" and key in _full():
            missing.append(key)
            return 0
        return resolve(key)
    code = build(sched, probe)
    if not missing:
        return code
    keys = tuple(sorted(set(missing)))
    if len(keys) > 1:
        for key, a in zip(keys, native.get(_batch_unit(keys))):
            _addr.setdefault(key, a)
    return build(sched, resolve)


def _batch_unit(keys: tuple) -> native.Unit:
    syms = tuple(symbol(k) for k in keys)
    return native.Unit(name_of("lzb_batch_", syms, 8) + "~quick", ("blocks", "batch_ir", (keys,)),
                       syms, quick=True)


def _in_bundle(image, key: tuple):
    """The address of primitive ``key`` in the bundle's mapped image, or None when the
    bundle does not hold it."""
    try:
        return image.address(symbol(key))
    except KeyError:
        return None


def _full() -> frozenset:
    global _FULL
    if _FULL is None:
        _FULL = frozenset(full_set())
    return _FULL


def _bundle(queue: bool = True) -> None:
    """Take the bundle's addresses if it is loaded or on disk; else queue its compile
    (once per process; ``queue=False``: only look on disk).  Another thread that asks
    meanwhile waits for the disk."""
    global _bundle_state
    if _bundle_state is not None:
        return
    with _lock:
        if _bundle_state is not None:
            return
        unit = bundle_unit()

        def take(addresses) -> None:
            global _bundle_state, _bundle_image
            if unit.symbols != (RUN,):  # every primitive named (llvmlite's JIT)
                _addr.update(zip(full_set(), addresses))
            else:  # primitives met before (quick code) now read the bundle's; the rest
                image = addresses.owner.image  # on first use (_primitive)
                for k in [k for k in _addr if k != "run"]:
                    a = _in_bundle(image, k)
                    if a is not None:
                        _addr[k] = a
                _bundle_image = image
            _addr["run"] = addresses[-1]
            _bundle_state = True
        queue = queue and prebuilding()
        got = native.get(unit, wait=False, priority=native.LATER, on_ready=take, queue=queue)
        if got is not None:
            take(got)
        elif queue:
            _bundle_state = False
            _sequencer_meanwhile()


def _sequencer_meanwhile() -> None:
    """A machine without the bundle: its first program needs the sequencer as quick code
    (about 50 ms: writing its IR, then LLVM), and its primitives, which the caller
    compiles next.  The sequencer is made on another thread meanwhile (LLVM releases
    the GIL); ``run_address`` then finds it made, or waits for it.  Not a daemon: the
    process does not exit while LLVM runs."""
    if "run" not in _addr:
        threading.Thread(target=_sequencer_quietly, name="lazyarray-sequencer").start()


def _sequencer_quietly() -> None:
    try:
        run_address()
    except Exception:  # noqa: BLE001 - the caller's own run_address reports the failure
        pass


def _switch(name: str) -> bool:
    return os.environ.get(name, "1").lower() not in ("0", "false", "no", "off")


def _quick_sequencer() -> None:
    """Compile the sequencer as quick code (kept in memory and on disk, where
    ``run_address`` finds it)."""
    try:
        native.get(sequencer_unit())
    except Exception:  # noqa: BLE001 - the first evaluation tries again and reports
        pass


def preloading() -> bool:
    """Whether the import's preload runs (``LAZYARRAY_PRELOAD``)."""
    return _switch("LAZYARRAY_PRELOAD")


def prebuilding() -> bool:
    """Whether building blocks are compiled ahead of need (``LAZYARRAY_PREBUILD``)."""
    return _switch("LAZYARRAY_PREBUILD")


def preload() -> None:
    """Map the building blocks from the disk cache on a background thread, now (called
    when lazyarray is imported): the first evaluation then finds them loaded, and LLVM
    is not loaded.  On a machine without them (an empty disk cache), the sequencer is
    compiled now instead, as quick code; ``LAZYARRAY_PRELOAD=0`` turns both off."""
    global _preloading
    if preloading() and _bundle_state is None:
        _preloading = threading.Thread(target=_preload, name="lazyarray-preload", daemon=True)
        _preloading.start()


_preloading: Optional[threading.Thread] = None
# callables the preload thread runs after the bundle (the front end's native recording)
AFTER_PRELOAD: list = []


def _before_fork() -> None:
    # fork() waits for the preload thread (a few milliseconds): it imports modules
    # (backend/loader.py, backend/diskcache.py), and a module another thread was
    # importing at fork() stays locked in the child for good: its first evaluation
    # waited for ever (40 of 40 children forked right after ``import lazyarray``).
    # threads.wait_for_imports covers every thread of ours since, but leaves a window of
    # microseconds between its last look and the fork; this thread runs in every process
    # just after the import, when multiprocessing forks, so it is joined outright.
    thread = _preloading
    if thread is not None and thread is not threading.current_thread():
        thread.join(timeout=10)


os.register_at_fork(before=_before_fork)


def _preload() -> None:
    try:
        _bundle(queue=False)  # a machine without the bundle compiles it when it is needed
        if _bundle_state is None and "run" not in _addr:
            # but its first evaluation needs the sequencer, the longest compile of that
            # call (about 90 ms with LLVM's import): started now, once per machine.  Not
            # a daemon thread: the process does not exit while LLVM runs.  (Its imports
            # are safe from fork(): threads.wait_for_imports.)
            threading.Thread(target=_quick_sequencer, name="lazyarray-sequencer").start()
        if _bundle_image is not None:
            # its name table too (0.35-0.5 ms in a new process): a first fit of a
            # scikit-learn estimator looks up 50-100 primitives
            _bundle_image.index()
    except Exception:  # noqa: BLE001 - the first evaluation tries again and reports
        pass
    _after_preload()
    native.STORE.start_later()


def _after_preload() -> None:
    while AFTER_PRELOAD:
        fn = AFTER_PRELOAD.pop(0)
        try:
            fn()
        except Exception:  # noqa: BLE001 - what it makes faster runs without it
            pass


def prebuild() -> None:
    """Queue every building block this machine lacks: the bundle and the GEMM routine of
    each dtype (``native.flush()`` waits for them).  The setup job, ``python -m
    lazyarray``, does: a process that exits before a queued compile starts drops it, so
    a machine that only ran short processes would never have them."""
    from .schedule import GEMM_DTYPES
    _bundle()
    for dtype in GEMM_DTYPES:
        gemm_address(dtype, wait=False)


def prebuilt() -> bool:
    """Whether everything ``prebuild`` asks for is loaded in this process."""
    from .schedule import GEMM_DTYPES
    return bundle_loaded() and all(
        native.get(gemm_unit(d), wait=False, queue=False) is not None for d in GEMM_DTYPES)


def gemm_address(dtype: str, wait: bool, on_ready: Optional[Callable] = None) -> int:
    """The GEMM routine of ``dtype``, or 0 when not loaded and ``wait`` is False (then it
    is compiled in the background and ``on_ready(address)`` runs when it is loaded)."""
    got = native.get(gemm_unit(dtype), wait=wait,
                     on_ready=None if on_ready is None else (lambda a: on_ready(a[0])))
    return 0 if got is None else got[0]

threads.renew_locks_at_fork(globals(), "_lock")
