"""The building-block library: the sequencer and the primitives it calls.

Each primitive (backend/blocks.py) and the sequencer (backend/sequencer.py) is
a unit of its own (backend/native.py), so a process loads from the disk cache
only the ones its programs use, and a machine compiles each once.  A primitive
that is not on disk yet is compiled at once as quick code (code-generation
level 0: a few milliseconds each) while a caller waits, the first time a
program needs it; the fully optimised version follows on the background
thread, and from the first such compile on, every other primitive of the set
(``blocks.full_set``) is compiled ahead of need there too, so after the first
programs on a new machine the interpreter runs without compiling anything.

The GEMM routines (backend/matmul.py) are building blocks too, but large: a
program never waits for one unless it asks to compile (``wait=True``); until
one is loaded, contractions run on the interpreter's generic loops.
"""
from __future__ import annotations

import threading
from typing import Callable, Optional

from . import native
from .bytecode import full_set, prim_symbol as symbol

_lock = threading.Lock()
_prebuild_started = False
_addr: dict = {}  # key -> the address new programs use (the full code once loaded)


def _unit(key: tuple, quick: bool) -> native.Unit:
    sym = symbol(key)
    return native.Unit(sym + ("~quick" if quick else ""), ("blocks", "unit_ir", (key,)),
                       (sym,), quick)


def sequencer_unit(quick: bool = False) -> native.Unit:
    return native.Unit("lazyarray_run" + ("~quick" if quick else ""),
                       ("sequencer", "unit_ir", ()), ("lazyarray_run",), quick)


def gemm_unit(dtype: str) -> native.Unit:
    sym = f"lazyarray_gemm_{dtype}"
    return native.Unit(sym, ("matmul", "gemm_unit_ir", (dtype,)), (sym,))


def run_address() -> int:
    """The address of ``lazyarray_run`` (the sequencer)."""
    a = _addr.get("run")
    return a if a is not None else _best("run", sequencer_unit)


def _best(key, make: Callable, *args) -> int:
    """The full unit's address if loaded or on disk, else the quick one's (compiled now
    if need be, with the full one queued; new programs take it once it is loaded)."""
    def take(addresses):
        _addr[key] = addresses[0]
    full = make(*args, quick=False)
    got = native.get(full, wait=False, priority=native.LATER, on_ready=take)
    if got is None:
        got = native.get(make(*args, quick=True))
        _prebuild()
    return _addr.setdefault(key, got[0])


def addresses(keys) -> dict:
    """Primitive key -> address for every key of ``keys`` (``("gemm", dtype)`` keys: 0
    until that routine is loaded; see ``gemm_address``)."""
    out = {}
    for key in keys:
        a = _addr.get(key)
        if a is None:
            a = gemm_address(key[1], wait=False) if key[0] == "gemm" else _best(key, _unit, key)
        out[key] = a
    return out


def gemm_address(dtype: str, wait: bool, on_ready: Optional[Callable] = None) -> int:
    """The GEMM routine of ``dtype``, or 0 when not loaded and ``wait`` is False (then it
    is compiled in the background and ``on_ready(address)`` runs when it is loaded)."""
    got = native.get(gemm_unit(dtype), wait=wait,
                     on_ready=None if on_ready is None else (lambda a: on_ready(a[0])))
    return 0 if got is None else got[0]


def _prebuild() -> None:
    """Once per process that had to compile a building block: queue every other one."""
    global _prebuild_started
    with _lock:
        if _prebuild_started:
            return
        _prebuild_started = True
    threading.Thread(target=_queue_all, name="lazyarray-prebuild", daemon=True).start()


def _queue_all() -> None:
    native.get(sequencer_unit(), wait=False, priority=native.LATER)
    for key in full_set():
        native.get(_unit(key, quick=False), wait=False, priority=native.LATER)
