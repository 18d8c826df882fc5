"""Size checks: impossible shapes fail while recording, allocations larger than the
machine's memory fail before anything is allocated or any kernel runs.

Linux overcommits memory: a buffer somewhat larger than what is free may be
granted and the process killed once the kernel writes to it.  So the buffers a
program writes are added up and compared with the machine's memory (RAM plus
swap, or the cgroup's limit when lower) before the run, and the creation
functions do the same before numpy allocates.
"""
from __future__ import annotations

import functools
import os
import sys
from typing import Iterable, Optional

import numpy as np

from .backend.buffers import nbytes

# Sizes, strides and offsets are int64 inside compiled programs, as in numpy.
MAX_ELEMENTS = sys.maxsize
# Requests below this need no look at the machine's memory (which reads /proc and the
# cgroup's files, milliseconds on some file systems): every machine has that much.
SMALL = 1 << 26


def check_shape(shape: tuple, what: str) -> None:
    """ValueError when a concrete ``shape`` has a size or an element count past int64."""
    n = 1
    for d in shape:
        if type(d) is int:
            if d > MAX_ELEMENTS:
                raise ValueError(f"{what}: size {d} in shape {shape} is larger than the largest "
                                 "possible size (2**63 - 1)")
            n *= d
    if n > MAX_ELEMENTS:
        raise ValueError(f"{what}: shape {shape} has {n} elements, more than any array can have "
                         "(2**63 - 1)")


def check_allocation(buffers: Iterable[tuple], what: str) -> None:
    """MemoryError when the buffers ``[(shape, numpy dtype), ...]`` together need more
    memory than this machine has; ValueError when one is larger than any array can be."""
    buffers = list(buffers)
    sizes = [nbytes(s, d) for s, d in buffers]
    total = sum(sizes)
    if not sizes:
        return
    big = max(range(len(sizes)), key=sizes.__getitem__)
    shape, dtype = buffers[big]
    if sizes[big] > MAX_ELEMENTS:
        raise ValueError(f"{what}: an array of shape {tuple(shape)} and dtype "
                         f"{np.dtype(dtype).name} would take {_fmt(sizes[big])}, more than the "
                         "largest possible array (2**63 - 1 bytes)")
    if total < SMALL:
        return
    limit = machine_memory()
    if limit is not None and total > limit:
        one = f"shape {tuple(shape)} and dtype {np.dtype(dtype).name}"
        arrays = f"{len(sizes)} arrays (the largest of {one})" if len(sizes) > 1 else \
            f"an array of {one}"
        raise MemoryError(f"{what} needs {_fmt(total)} for {arrays}, more than this machine's "
                          f"{_fmt(limit)} of memory (RAM and swap); nothing was allocated or "
                          "computed")


_PASSED: dict = {}  # id(list) -> list, for lists that passed check_allocation_once


def check_allocation_once(buffers: list, what: str) -> None:
    """``check_allocation`` of a list that never changes (a bound runner's buffers),
    checked on its first use only: the machine's memory is fixed, so a list that
    passed once always passes.  The list is kept, so its id is never reused."""
    if _PASSED.get(id(buffers)) is not buffers:
        check_allocation(buffers, what)
        if len(_PASSED) >= 4096:
            _PASSED.clear()
        _PASSED[id(buffers)] = buffers


def _fmt(n: int) -> str:
    if n < 1024:
        return f"{n} bytes"
    size = float(n)
    for unit in ("KiB", "MiB", "GiB", "TiB", "PiB", "EiB"):
        size /= 1024
        if size < 1024 or unit == "EiB":
            break
    return f"{size:.1f} {unit} ({n} bytes)"


@functools.lru_cache(maxsize=1)
def machine_memory() -> Optional[int]:
    """Bytes this process could ever get: RAM (capped by a cgroup limit) plus swap.
    An upper bound, so that only requests that cannot succeed are refused; None
    where the platform does not say."""
    try:
        ram = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return None
    cgroup = _cgroup_limit()
    return (min(ram, cgroup) if cgroup else ram) + _swap_bytes()


def _swap_bytes() -> int:
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("SwapTotal:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


def _cgroup_limit() -> Optional[int]:
    for path in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            with open(path) as f:
                text = f.read().strip()
        except OSError:
            continue
        if text.isdigit() and int(text) < 1 << 62:  # "max" or a huge number: no limit
            return int(text)
    return None
