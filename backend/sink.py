"""Kernels over no axes (a full reduction's epilogue: ``-loss / m``, a mean's division)
move down their native stage to just before the first kernel that reads what they write
(or to the stage's end).

The scheduler puts such a kernel right after the reduction it reads, between kernels
that work on the same rows; moved, those stay consecutive, so row tiles
(backend/rowtiles.py) can take them together.  A kernel moves past others only while
none of those reads its buffer or writes a buffer it reads: results do not change.
"""
from __future__ import annotations

from .schedule import Kernel, Schedule


def sink(sched: Schedule) -> Schedule:
    """``sched`` with its scalar kernels moved down (itself when none moves)."""
    stages, order, moved = [], [], False
    for kind, x in sched.stages:
        if kind != "native":
            stages.append((kind, x))
            continue
        new = _sunk(sched.kernels, x)
        moved = moved or new != list(x)
        stages.append((kind, list(range(len(order), len(order) + len(new)))))
        order += new
    if not moved:
        return sched
    return Schedule([sched.kernels[i] for i in order], stages, sched.buffers,
                    sched.buffer_dtypes, sched.n_inputs, sched.scalars, sched.outputs,
                    sched.meta_size, sched.materialized, sched.unwritten, sched.premise)


def _scalar(k: Kernel) -> bool:
    return not (k.n_out or k.n_red or k.matmul or k.outs or k.store.into_part())


def _sunk(kernels: list, x: list) -> list:
    """The kernel numbers ``x`` of one stage, scalar kernels moved down."""
    out, pending = [], []
    for i in x:
        k = kernels[i]
        reads = {a.buf for a in k.loads}  # (further outputs' entries too: counted as read)
        writes = {k.store.buf} | {k.loads[j].buf for _, j in k.outs}
        # a pending kernel this one depends on (reads or writes its buffer, or writes one
        # it reads: a part of a concat or an update) runs first, with the pending
        # kernels before it (in their order)
        last = max((n for n, j in enumerate(pending)
                    if kernels[j].store.buf in reads or kernels[j].store.buf in writes
                    or writes & {a.buf for a in kernels[j].loads}), default=-1)
        out += pending[:last + 1]
        del pending[:last + 1]
        (pending if _scalar(k) else out).append(i)
    return out + pending
