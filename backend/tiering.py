"""Tiered compilation: quick machine code first, optimised code once a program
runs again.

A program's first compile runs the whole IR pipeline (vectorisation included)
but emits machine code at ``llvm.QUICK_OPT_LEVEL``, which takes about a third
of the time.  When a runner of that program runs a second time it asks for an
upgrade: a background thread compiles the same IR with full code generation,
links it, stores it in the disk cache and swaps it into the ``Compiled``
object, whose runners (and their native front doors) switch to it.  Programs
that run once never pay for the second compile.  ``LAZYARRAY_TIERED=0`` turns
tiering off: every compile is a full one.

An upgrade is not a cache miss: ``compile_cache_info().upgrades`` counts them.
"""
from __future__ import annotations

import atexit
import os
import queue
import threading
from typing import Optional

_queue: queue.Queue = queue.Queue()
_lock = threading.Lock()
_thread: Optional[threading.Thread] = None
_stopping = False


def enabled() -> bool:
    return os.environ.get("LAZYARRAY_TIERED", "1").lower() not in ("0", "false", "off", "no")


def submit(compiled) -> None:
    """Queue ``compiled.upgrade_job(compiled)`` (once per program)."""
    global _thread
    with _lock:
        job = compiled.upgrade_job
        if job is None or _stopping:
            return
        compiled.upgrade_job = None
        if _thread is None:
            _thread = threading.Thread(target=_run, name="lazyarray-tiering", daemon=True)
            _thread.start()
            atexit.register(_stop)
        _queue.put((job, compiled))


def _run() -> None:
    while True:
        item = _queue.get()
        try:
            if item is None:
                return
            job, compiled = item
            if not _stopping:
                try:
                    job(compiled)
                except Exception:  # noqa: BLE001 - the quick code stays; it is correct
                    pass
        finally:
            _queue.task_done()


def flush() -> None:
    """Wait until every upgrade queued so far is installed."""
    _queue.join()


def _stop() -> None:
    """At exit: drop queued upgrades, wait for the one under way (it may be inside
    LLVM, which must not run while the interpreter shuts down)."""
    global _stopping
    with _lock:
        _stopping = True
    _queue.put(None)
    if _thread is not None:
        _thread.join(timeout=30)
