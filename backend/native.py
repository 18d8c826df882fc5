"""Native code units: compiled once per machine, kept on disk, loaded without LLVM.

Everything the backend runs natively is a *unit*: the sequencer and each
building block (backend/sequencer.py, backend/blocks.py), each compiled
kernel, the GEMM routines (backend/matmul.py), the thread pool
(backend/parallel.py) and the front-door trampolines (backend/dispatch.py).
A unit has a unique name (also its disk-cache key), a *builder* that writes
its LLVM IR, named as an importable function so that the compile worker
process can run it (``(module, function, args)``, called as
``function(*args, vector_variants=...)``), and the symbols it exports.

``get(unit)`` gives the addresses of a unit's symbols: from memory, else from
the disk cache, else compiled, and ``get(unit, wait=False)`` never waits for
LLVM: it queues the compile on the background thread and returns None until
the code is loaded (``on_ready`` callbacks run then).  Loading uses
backend/loader.py, which maps object code itself, so a process whose units
are all on disk never imports llvmlite; where that loader cannot run (not
Linux on x86-64) units are linked into llvmlite's JIT instead.  A caller's
compile runs in the compile worker process (backend/worker.py) when it is
ready and idle, else in this process; a background compile always waits for
the worker (see ``Store._object``).

Background compiles run one at a time on one thread, most urgent first:
``URGENT`` (something a caller would otherwise wait for: a kernel of a hot
program, a GEMM routine), then ``LATER`` (building blocks compiled ahead of
need).
"""
from __future__ import annotations

import itertools
import os
import queue
import sys
import threading
import time
import weakref
from typing import Callable, Optional

from . import threads

URGENT, LATER = 0, 1
# Background compiles start once no new program has been made for this long: a burst of
# new programs (a test suite, a first fit) does not share the GIL and the cores with them.
QUIET = 0.05
_SOURCES = ("ir.py", "schedule.py", "codegen.py", "complexmath.py", "matmul.py", "abi.py",
            "llvm.py", "blocks.py", "sequencer.py", "bytecode.py", "dispatch.py", "parallel.py",
            "kernels.py", "pairwise.py", "tiling.py", "recorder.py", "recorder.ll", "steps.ll", "fuse.ll",
            "reduce.ll",
            "record.ll", "known.ll", "manipulation.ll", "jit.ll")


class Unit:
    """One compiled object: ``name`` (unique), ``builder`` = (module, function, args)
    writing its IR, the ``symbols`` it exports, whether quick machine code will do,
    the units whose symbols it calls (loaded first), and whether it is *transient*:
    kept only while something holds its addresses (compiled kernels, which programs
    come and go with), where other units stay for the process's life.  (The records
    here are plain classes: a dataclass cost 0.2-0.5 ms of the import each.)"""

    __slots__ = ("name", "builder", "symbols", "quick", "needs", "transient")

    def __init__(self, name: str, builder: tuple, symbols: tuple, quick: bool = False,
                 needs: tuple = (), transient: bool = False) -> None:
        self.name, self.builder, self.symbols, self.quick = name, builder, symbols, quick
        self.needs, self.transient = needs, transient

    def __eq__(self, other) -> bool:  # a name says what the unit holds
        return type(other) is Unit and other.name == self.name

    def __hash__(self) -> int:
        return hash(self.name)

    def __repr__(self) -> str:
        return f"Unit({self.name!r})"


class Addresses(tuple):
    """A unit's symbol addresses; ``owner`` (its ``Loaded``) keeps its code mapped while
    they are held."""

    def __new__(cls, addresses, owner):
        self = super().__new__(cls, addresses)
        self.owner = owner
        return self


class Loaded:
    """A unit's code in memory: symbol addresses, and the image holding them."""

    __slots__ = ("addresses", "image", "__weakref__")

    def __init__(self, addresses: tuple, image: object) -> None:
        self.addresses, self.image = addresses, image

    def handle(self) -> Addresses:
        return Addresses(self.addresses, self)


class Stats:
    """Counters: LLVM compiles (in the worker or in this process), of which on the
    background thread; units loaded from the disk cache; wall time of compiles a caller
    waited for, and how many; ``log``: listeners cb(event, unit name, seconds)."""

    def __init__(self) -> None:
        self.compiles = self.background = self.disk_loads = self.waits = 0
        self.compile_seconds = 0.0
        self.log: list = []


class Store:
    """The process's loaded units."""

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.loaded: dict = {}         # name -> Loaded, kept for the process's life
        self.transient = weakref.WeakValueDictionary()  # name -> Loaded, while held
        self.symbols: dict = {}        # exported symbol -> address, of permanent units
        self.pending: dict = {}        # name -> [callbacks] while queued or compiling
        self._queued: dict = {}        # name -> the best priority it is queued with
        self.inflight: dict = {}       # name -> threading.Event (a compile under way)
        self.stats = Stats()
        self._disk = False             # resolved on first use
        self._queue: queue.PriorityQueue = queue.PriorityQueue()
        self._seq = itertools.count()
        self._thread: Optional[threading.Thread] = None
        self._stopping = False
        self._last_busy = 0.0   # time.monotonic() of the last new program (see busy)
        self._flushing = 0      # threads in flush(): background work need not wait
        self._later = threads.SerialWorker("lazyarray-later", at_exit="stop")
        self._later_pending = 0  # calls given to ``later`` and not finished
        self._later_atexit = False
        self._here: set = set()  # idents of threads in an LLVM compile in this process

    # -- looking up
    def get(self, unit: Unit, wait: bool = True, priority: int = URGENT,
            on_ready: Optional[Callable] = None, queue: bool = True,
            disk: bool = True) -> Optional[Addresses]:
        """The addresses of ``unit``'s symbols; with ``wait=False`` None until they are
        loaded (the compile is then queued, unless ``queue`` is False, and
        ``on_ready(addresses)`` runs once they are).  ``disk=False`` (with
        ``wait=False``): not even a disk-cache read on this thread (a unit that only
        makes a program faster: the background thread reads the disk first).  Hold the
        result while the code may run (it keeps a transient unit mapped)."""
        hit = self.find(unit.name)
        if hit is not None:
            return hit.handle()
        if not (disk or wait):
            if queue:
                self._queue_unit(unit, priority, on_ready)
            return None
        for dep in unit.needs:  # dependencies first: their symbols resolve this one's
            if self.get(dep, wait=wait, priority=priority) is None:
                if queue:
                    self._queue_unit(unit, priority, on_ready)
                return None
        got = self._from_disk(unit)
        if got is not None:
            return got
        if not wait:
            if queue:
                self._queue_unit(unit, priority, on_ready)
            return None
        return self._compile_now(unit)

    def find(self, name: str) -> Optional[Loaded]:
        hit = self.loaded.get(name)
        return hit if hit is not None else self.transient.get(name)

    def ready(self, name: str) -> bool:
        return self.find(name) is not None

    def _keep(self, unit: Unit, loaded: Loaded) -> Addresses:
        """Record ``loaded`` unless another thread did (caller holds the lock)."""
        hit = self.find(unit.name)
        if hit is not None:
            return hit.handle()
        handle = loaded.handle()
        if unit.transient:
            self.transient[unit.name] = loaded
        else:
            self.loaded[unit.name] = loaded
            self.symbols.update(zip(unit.symbols, loaded.addresses))
        return handle

    def _from_disk(self, unit: Unit) -> Optional[Addresses]:
        disk = self.disk()
        obj = disk.load(unit.name) if disk else None
        if obj is None:
            return None
        try:
            loaded = self._link(unit, obj)
        except (ValueError, RuntimeError, KeyError):
            disk.discard(unit.name)  # damaged or foreign: compiled again
            return None
        with self.lock:
            new = self.find(unit.name) is None
            handle = self._keep(unit, loaded)
            self.stats.disk_loads += new
        if new:
            self._announce("disk", unit, None)
        return handle

    def _compile_now(self, unit: Unit) -> Addresses:
        """Compile on this thread (one thread per unit; others wait for it)."""
        with self.lock:
            hit = self.find(unit.name)
            if hit is not None:
                return hit.handle()
            ev = self.inflight.get(unit.name)
            owner = ev is None
            if owner:
                ev = self.inflight[unit.name] = threading.Event()
        if not owner:
            ev.wait()
            return self.get(unit)
        handle = None
        try:
            t0 = time.perf_counter()
            obj = self._object(unit, background=False)
            loaded = self._link(unit, obj)
            dt = time.perf_counter() - t0
            with self.lock:
                handle = self._keep(unit, loaded)
                self.stats.compiles += 1
                self.stats.waits += 1
                self.stats.compile_seconds += dt
            self._store(unit, obj)
            self._announce("compiled", unit, dt)
            return handle
        finally:
            with self.lock:
                self.inflight.pop(unit.name, None)
            ev.set()
            self._fire(unit.name, handle)

    # -- the background thread
    def _queue_unit(self, unit: Unit, priority: int, on_ready) -> None:
        with self.lock:
            hit = self.find(unit.name)
            if hit is None:
                cbs = self.pending.get(unit.name)
                if cbs is None:
                    cbs = self.pending[unit.name] = []
                    self._queued[unit.name] = priority
                    self._queue.put((priority, next(self._seq), unit))
                    self._start()
                elif priority < self._queued.get(unit.name, priority):
                    # queued as LATER: move it up (once: a caller polling each run must
                    # not grow the queue)
                    self._queued[unit.name] = priority
                    self._queue.put((priority, next(self._seq), unit))
                if on_ready is not None:
                    cbs.append(on_ready)
        if hit is not None and on_ready is not None:
            on_ready(hit.handle())

    def _start(self) -> None:
        if self._thread is None and not self._stopping:
            import atexit
            thread = threading.Thread(target=self._serve, name="lazyarray-compile",
                                      daemon=True)
            # started before it is published: ``stop`` (at exit, on the main thread)
            # joined a thread another thread had made but not yet started, and raised
            thread.start()
            self._thread = thread
            atexit.register(self.stop)

    def busy(self) -> None:
        """Note that the program is making new programs: background work waits until it
        has not for ``QUIET`` seconds."""
        self._last_busy = time.monotonic()

    def _wait_for_quiet(self) -> None:
        while not self._stopping and not self._flushing:
            wait = QUIET - (time.monotonic() - self._last_busy)
            if wait <= 0:
                return
            time.sleep(min(wait, 0.01))  # short naps: a flush or exit is seen at once

    def _serve(self) -> None:
        while True:
            _, _, unit = self._queue.get()
            if unit is None or self._stopping:
                return
            if unit.name not in self.pending:  # done already (queued twice, or compiled)
                continue
            self._wait_for_quiet()
            try:
                handle = self._background(unit)
            except Exception:  # noqa: BLE001 - the caller keeps the interpreter tier
                handle = None
            self._fire(unit.name, handle)

    def _background(self, unit: Unit) -> Optional[Addresses]:
        for dep in unit.needs:  # on this thread, as background compiles too (see _object)
            if self.get(dep, wait=False, queue=False) is None and self._background(dep) is None:
                return None
        got = self._from_disk(unit)
        if got is not None:
            return got
        with self.lock:
            hit = self.find(unit.name)
            if hit is not None:
                return hit.handle()
            if unit.name in self.inflight:  # a caller compiles it: it fires the callbacks
                return None
            ev = self.inflight[unit.name] = threading.Event()
        try:
            t0 = time.perf_counter()
            obj = self._object(unit, background=True)
            loaded = self._link(unit, obj)
            with self.lock:
                handle = self._keep(unit, loaded)
                self.stats.compiles += 1
                self.stats.background += 1
            self._store(unit, obj)
            self._announce("background", unit, time.perf_counter() - t0)
            return handle
        finally:
            with self.lock:
                self.inflight.pop(unit.name, None)
            ev.set()

    def _fire(self, name: str, handle: Optional[Addresses]) -> None:
        """Run the callbacks waiting for ``name`` (dropped if it failed to load)."""
        with self.lock:
            cbs = self.pending.pop(name, [])
            self._queued.pop(name, None)
        if handle is None:
            return
        for cb in cbs:
            try:
                cb(handle)
            except Exception:  # noqa: BLE001 - a listener must not stop the thread
                pass

    def later(self, fn: Callable, *args) -> None:
        """Run ``fn(*args)`` on a background thread once the program is quiet (see
        ``busy``): work that only makes later runs faster (a hot program's upgrade, a
        front door), which the call that asked for it should not pay for.  An
        exception in ``fn`` is dropped; ``flush`` waits for these calls too."""
        with self.lock:
            self._later_pending += 1

        def call() -> None:
            try:
                self._wait_for_quiet()
                if not self._stopping:
                    fn(*args)
            finally:
                with self.lock:
                    self._later_pending -= 1
        self._later.submit(call)
        if not self._later_atexit:  # after the worker's own hook, so it runs first (LIFO):
            self._later_atexit = True  # queued calls see the exit before the worker is joined
            import atexit
            atexit.register(self.stop)

    def start_later(self) -> None:
        """Start ``later``'s thread now (a background thread calls this after the import:
        a program's second run, which hands its upgrade to ``later``, then does not wait
        for the thread to start)."""
        self._later.start()

    def flush(self, timeout: float = 600.0) -> None:
        """Wait until nothing is queued or compiling in the background."""
        end = time.monotonic() + timeout
        self._flushing += 1
        try:
            while time.monotonic() < end:
                with self.lock:
                    busy = bool(self.pending) or bool(self.inflight) or self._later_pending > 0
                if not busy:
                    return
                time.sleep(0.002)
        finally:
            self._flushing -= 1

    def exiting(self) -> None:
        """The interpreter is exiting (threading's shutdown: before the atexit hooks and
        before other threads are joined): no background compile starts any more.  Until
        ``stop`` ran, a compile queued for a quiet moment found one while other exit hooks
        ran (the compile worker's own took 1.3 s, waiting for that worker to start), and a
        short process on a new machine then waited 3-10 s at exit for the bundle."""
        self._stopping = True

    def stop(self) -> None:
        """At exit: drop what is queued, wait for the background compile under way (30 s
        at most: it waits for the compile worker, whose reply can be abandoned), and
        without limit for an LLVM call in this process on another thread: LLVM running
        while the interpreter shuts down aborts it (an assertion inside LLVM's code
        emitter, seen at the end of long scipy runs).  Such calls are only a caller's own
        compiles, or background ones when there is no worker (see ``_object``)."""
        self._stopping = True
        thread = self._thread
        if thread is not None:
            self._queue.put((-1, -1, None))
            thread.join(timeout=30)
        while self._here - {threading.get_ident()}:
            time.sleep(0.01)

    # -- compiling, storing, linking
    def _object(self, unit: Unit, background: bool) -> bytes:
        """The unit's object code.  A background compile runs in the compile worker
        whenever there is one, waiting for it if it is busy or starting and taking a new
        one if it dies: an in-process LLVM call cannot be abandoned at exit.  A caller's
        compile runs here when the worker is not ready at once (quicker than waiting)."""
        from . import worker
        pool = worker.pool()
        while pool is not None and pool.usable():
            obj = pool.compile(unit.builder, unit.quick, background=background,
                               stop=lambda: self._stopping)
            if obj is not None:
                return obj
            if not background or self._stopping:
                break
        if background and self._stopping:
            raise RuntimeError("exiting: background compile dropped")
        me = threading.get_ident()
        with self.lock:
            self._here.add(me)
        try:
            return self.codegen().compile_unit(unit.builder, unit.quick)
        finally:
            with self.lock:
                self._here.discard(me)

    def codegen(self):
        from . import llvm
        return llvm.codegen()

    def _store(self, unit: Unit, obj: bytes) -> None:
        disk = self.disk()
        if disk:
            disk.store_later(unit.name, obj)

    def _link(self, unit: Unit, obj: bytes) -> Loaded:
        loader = _loader()
        if loader is not None:
            known, default = self.symbols.get, loader.default_resolve  # one look-up per symbol
            image = loader.load(obj, lambda name: known(name) or default(name))
            return Loaded(image.addresses(unit.symbols), image)
        imports = {s: self.symbols[s] for dep in unit.needs for s in dep.symbols}
        addrs = self.codegen().load_shared(tuple(unit.symbols), obj, imports=imports)
        return Loaded(tuple(addrs), None)  # linked into llvmlite's engine for good

    def disk(self):
        if self._disk is False:
            from . import diskcache
            folder = diskcache.directory()
            self._disk = folder and diskcache.DiskCache(folder, fingerprint())
        return self._disk

    def _announce(self, event: str, unit: Unit, seconds) -> None:
        for cb in list(self.stats.log):
            try:
                cb(event, unit.name, seconds)
            except Exception:  # noqa: BLE001
                pass

    def after_fork_in_child(self) -> None:
        self.lock = threading.RLock()
        self.pending, self.inflight, self._queued = {}, {}, {}
        self._here = set()  # the compiling threads are not in the child
        self._later_pending = 0  # (the worker itself starts afresh: threads.SerialWorker)
        self._queue = queue.PriorityQueue()
        self._thread = None


def image_lookup() -> bool:
    """Whether loaded units keep an image whose symbols can be looked up by name later
    (backend/loader.py maps them; llvmlite's JIT only gives the symbols asked for)."""
    return _loader() is not None


def _loader():
    """backend/loader.py where it can run (Linux on x86-64), else None."""
    try:
        from . import loader
    except ImportError:
        return None
    return loader if loader.supported() else None


STORE = Store()
get = STORE.get
flush = STORE.flush

if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=STORE.after_fork_in_child)
# threading's own exit hooks run before the interpreter joins its threads and before any
# atexit hook (Python 3.9+; a private name, which concurrent.futures uses too)
try:
    threading._register_atexit(STORE.exiting)
except (AttributeError, RuntimeError):  # imported while exiting: ``stop`` still drops
    pass


# --------------------------------------------------------------------------- fingerprint

_fingerprint: Optional[str] = None


def fingerprint() -> str:
    """What compiled code depends on besides its unit: the backend's sources, the
    installed llvmlite, the CPU (model and features), the C library (libm, libmvec) and
    the switches that change generated code.  Computed without LLVM, and without reading
    the sources: each file counts by its modification time and size, as Python's own
    bytecode cache checks a source (reading and hashing them took 0.9 ms of a first
    evaluation)."""
    global _fingerprint
    if _fingerprint is None:
        from .names import digest
        here = os.path.dirname(os.path.abspath(__file__))
        files = [os.path.join(here, name) for name in _SOURCES] + _llvmlite_files()
        parts = [_stamp(f) for f in files]
        parts += [sys.platform, os.uname().machine, _cpu(),
                  os.confstr("CS_GNU_LIBC_VERSION") if hasattr(os, "confstr") else "",
                  os.environ.get("LAZYARRAY_PREFER_256", ""),
                  os.environ.get("LAZYARRAY_CPU_FEATURES", "")]
        _fingerprint = digest("\0".join(map(str, parts)).encode())
    return _fingerprint


def _llvmlite_files() -> list:
    """The installed llvmlite's files that change with its version (its package is not
    imported: that costs half a millisecond)."""
    import importlib.util
    spec = importlib.util.find_spec("llvmlite")
    if spec is None or not spec.origin:
        return []
    root = os.path.dirname(spec.origin)
    return [os.path.join(root, "__init__.py"), os.path.join(root, "_version.py")]


def _stamp(path: str) -> tuple:
    try:
        st = os.stat(path)
    except OSError:
        return (path, None)
    return (path, st.st_mtime_ns, st.st_size)


def _cpu() -> str:
    """The CPU's model and feature flags (the code is compiled for this CPU)."""
    try:
        with open("/proc/cpuinfo", "rb") as f:
            text = f.read(65536).decode(errors="replace")
    except OSError:
        import platform
        return platform.processor()
    keep = []
    for line in text.splitlines():
        key = line.split(":", 1)[0].strip()
        if key in ("vendor_id", "cpu family", "model", "model name", "flags"):
            keep.append(line)
        if key == "flags":
            break  # the first processor's description is enough
    return "\n".join(keep)
