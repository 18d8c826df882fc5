"""Large buffers a program writes, reused from run to run instead of fresh memory.

A fresh buffer of tens of megabytes comes from the kernel as new pages, each
zeroed and mapped on first touch; two threads writing one then queue on the
page-fault path.  Measured on the exp/cos/tanh chain at n=1e7 (80 MB out, 2
threads): 31 ms with a fresh output each run, 28 ms with a reused one.

So a buffer of at least ``MIN_BYTES`` is a view of a pooled block.  The pool
keeps every block it made; a block is idle when nothing but the pool refers to
it (numpy views keep their owning block alive as their ``base``, so a result,
any view of it, and anything made from its buffer all count), and an idle block
of a fitting size is handed out again.  Idle blocks beyond
``LAZYARRAY_BUFFER_POOL_MB`` (default 256; 0 turns reuse off) are let go;
``release()`` lets all idle ones go.
"""
from __future__ import annotations

import os
import sys
import threading

import numpy as np

MIN_BYTES = 1 << 22      # below this, malloc reuses freed memory by itself
ALIGN = 64               # a cache line: vector stores never straddle two
MAX_BLOCKS = 64          # blocks kept (in use or idle): bounds the search
_SLACK = 1.25            # an idle block serves requests down to 1/_SLACK of its size


def _idle_limit() -> int:
    raw = os.environ.get("LAZYARRAY_BUFFER_POOL_MB", "").strip()
    try:
        mb = float(raw) if raw else 256.0
    except ValueError:
        raise ValueError(f"LAZYARRAY_BUFFER_POOL_MB must be a number of megabytes, got {raw!r}") \
            from None
    return max(0, int(mb * (1 << 20)))


def _refcounts(blocks: list) -> list:
    return [sys.getrefcount(b) for b in blocks]


class _Pool:
    def __init__(self) -> None:
        self.blocks: list = []
        self.lock = threading.Lock()
        self.limit = _idle_limit()
        # the count _refcounts gives for a block only the pool holds (measured, not assumed)
        self.idle_refs = _refcounts([np.empty(1, np.uint8)])[0]

    def _idle(self) -> list:
        refs = self.idle_refs
        return [b for b, r in zip(self.blocks, _refcounts(self.blocks)) if r == refs]

    def empty(self, shape: tuple, dtype: np.dtype, nbytes: int) -> np.ndarray:
        with self.lock:
            idle = self._idle()
            fits = [b for b in idle if nbytes <= b.size - ALIGN <= nbytes * _SLACK]
            block = min(fits, key=len) if fits else None
            spare = sorted((b for b in idle if b is not block), key=len)
            total = sum(b.size for b in spare)
            drop = set()
            while spare and total > self.limit:  # let the largest idle blocks go
                total -= spare[-1].size
                drop.add(id(spare.pop()))
            if drop:
                self.blocks = [b for b in self.blocks if id(b) not in drop]
            del idle, fits, spare
            if block is None:
                block = np.empty(nbytes + ALIGN, np.uint8)
                if len(self.blocks) < MAX_BLOCKS:
                    self.blocks.append(block)
        start = -block.ctypes.data % ALIGN
        return block[start:start + nbytes].view(dtype).reshape(shape)

    def release(self) -> None:
        with self.lock:
            idle = {id(b) for b in self._idle()}
            self.blocks = [b for b in self.blocks if id(b) not in idle]

    def reset(self) -> None:  # in a forked child: the parent's lock may be held
        self.lock = threading.Lock()


_pool = _Pool()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_pool.reset)


def nbytes(shape: tuple, dtype) -> int:
    n = np.dtype(dtype).itemsize
    for d in shape:
        n *= d
    return n


def large(buffers: list) -> bool:
    """Whether any of ``buffers`` ((shape, dtype) pairs) is large enough for the pool."""
    return any(nbytes(shape, dtype) >= MIN_BYTES for shape, dtype in buffers)


def empty(shape: tuple, dtype) -> np.ndarray:
    """An uninitialised C-contiguous array, from the pool when it is large."""
    dtype = np.dtype(dtype)
    n = nbytes(shape, dtype)
    if n < MIN_BYTES or _pool.limit == 0:
        return np.empty(shape, dtype)
    return _pool.empty(tuple(shape), dtype, n)


def release() -> None:
    """Let go of every idle pooled block (they return to the system)."""
    _pool.release()


def pooled_bytes() -> tuple:
    """(bytes in blocks in use, bytes in idle blocks)."""
    with _pool.lock:
        free = {id(b) for b in _pool._idle()}
        sizes = [(b.size, id(b) in free) for b in _pool.blocks]
    return sum(s for s, f in sizes if not f), sum(s for s, f in sizes if f)
