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

import os
import threading
import time

from . import threads

QUIET = 0.05  # seconds without a first compile before an upgrade starts

_WORKER = threads.SerialWorker("lazyarray-tiering", at_exit="stop")
_claim = threading.Lock()  # a program's upgrade job is taken once
_last_busy = 0.0  # time.monotonic() of the last first compile's start or end


def enabled() -> bool:
    return os.environ.get("LAZYARRAY_TIERED", "1").lower() not in ("0", "false", "off", "no")


def busy() -> None:
    """Note a first compile starting or ending: upgrades wait for quiet."""
    global _last_busy
    _last_busy = time.monotonic()


def submit(compiled) -> None:
    """Queue ``compiled.upgrade_job(compiled)`` (once per program)."""
    with _claim:
        job, compiled.upgrade_job = compiled.upgrade_job, None
    if job is not None:
        _WORKER.submit(_upgrade, job, compiled)


def _upgrade(job, compiled) -> None:
    """Run ``job(compiled)`` once no first compile has started or ended for QUIET s."""
    while not _WORKER.stopping:
        wait = QUIET - (time.monotonic() - _last_busy)
        if wait <= 0:
            job(compiled)  # if it raises, the quick code stays: it is correct
            return
        time.sleep(wait)


def flush() -> None:
    """Wait until every upgrade queued so far is installed."""
    _WORKER.flush()


def _after_fork_in_child() -> None:
    global _claim
    _claim = threading.Lock()


os.register_at_fork(after_in_child=_after_fork_in_child)
