"""Tiered compilation: quick machine code first, optimised code once a program
runs again.

A program's first compile runs the whole IR pipeline (vectorisation included)
but emits machine code at ``llvm.QUICK_OPT_LEVEL``, which takes about a third
of the time.  When a runner of that program runs a second time it asks for an
upgrade: a background thread compiles the same IR with full code generation,
links it, stores it in the disk cache and swaps it into the ``Compiled``
object, whose runners (and their native front doors) switch to it.  Programs
that run once never pay for the second compile, and upgrades wait until no
first compile has started or ended for ``QUIET`` seconds, so a burst of new
programs (a test suite) does not queue behind them.  ``LAZYARRAY_TIERED=0``
turns tiering off: every compile is a full one.

An upgrade is not a cache miss: ``compile_cache_info().upgrades`` counts them.
"""
from __future__ import annotations

import atexit
import os
import queue
import threading
import time
from typing import Optional

QUIET = 0.05  # seconds without a first compile before an upgrade starts

_queue: queue.Queue = queue.Queue()
_lock = threading.Lock()
_thread: Optional[threading.Thread] = None
_stopping = False
_last_busy = 0.0  # time.monotonic() of the last first compile's start or end


def enabled() -> bool:
    return os.environ.get("LAZYARRAY_TIERED", "1").lower() not in ("0", "false", "off", "no")


def busy() -> None:
    """Note a first compile starting or ending: upgrades wait for quiet."""
    global _last_busy
    _last_busy = time.monotonic()


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
            while not _stopping:
                wait = QUIET - (time.monotonic() - _last_busy)
                if wait <= 0:
                    break
                time.sleep(wait)
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


def _after_fork_in_child() -> None:
    """A forked child has no tiering thread: start afresh."""
    global _queue, _lock, _thread
    _queue, _lock, _thread = queue.Queue(), threading.Lock(), None


os.register_at_fork(after_in_child=_after_fork_in_child)


def _stop() -> None:
    """At exit: drop queued upgrades, wait for the one under way (it may be inside
    LLVM, which must not run while the interpreter shuts down)."""
    global _stopping
    with _lock:
        _stopping = True
    _queue.put(None)
    if _thread is not None:
        _thread.join(timeout=30)
