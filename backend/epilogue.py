"""Elementwise work on a reduction's result joins the reduction's kernel as its epilogue.

The scheduler (backend/schedule.py) gives every reduction a buffer, so ``sqrt(sum(d * d,
axis=2))`` was a kernel writing the sums and a second one reading them back for the
square roots: at 2000x1500 pairs, 24 MB written, read and written again.  Here an
elementwise kernel that reads a reduction's buffer element for element (the map the
reduction stores with, no view) and that buffer only it reads joins the reduction's
kernel: its body becomes the reduction's ``post`` instructions, evaluated at each output
point on the result, and the reduction's buffer is not written (``Schedule.unwritten``).

It joins when:

* the reduction reduces along axes and keeps at least one (a full reduction may run as
  partial sums over chunks, an epilogue on each would be wrong): a sum, product, mean,
  minimum, maximum, any or all, or a matrix product on the GEMM routine whose result
  keeps its dtype (a layer's bias and activation), not a scan or arg-reduction, and
  stores its whole buffer;
* the elementwise kernel iterates over the reduction's output axes (no broadcast of the
  result, no keepdims), has no gather, no further outputs, stores a whole buffer in the
  dtype of its value; its other loads read buffers no kernel between the two writes
  (they are read at the reduction's place now), and no kernel between reads or writes
  what it writes;
* the joined kernel stays within ``MAX_BODY`` instructions and ``MAX_LOADS`` loads.

Each value is computed by the same instructions as before (the code generator and the
interpreter lower them as they lower any elementwise op): results are the same bits.
"""
from __future__ import annotations

from .ir import Op
from .schedule import MAX_BODY, MAX_LOADS, Kernel, Schedule, gemm_operands

# reductions an epilogue may follow (arg-reductions, scans and contractions have other
# code paths: none of them takes one)
_REDUCE = frozenset({Op.SUM, Op.PROD, Op.MEAN, Op.MIN, Op.MAX, Op.ANY, Op.ALL})


def fuse_epilogues(sched: Schedule) -> Schedule:
    """``sched`` with each joinable elementwise kernel made its reduction's epilogue
    (itself when there is none).  The kernels of ``sched`` that stay are taken over (their
    place in the meta array moves), so ``sched`` is not to be used after."""
    kernels = sched.kernels
    readers = sched.readers()
    joins: dict = {}  # reduction kernel -> the elementwise kernel joining it
    for kind, ks in sched.stages:
        if kind != "native":
            continue
        where: dict = {}  # buffer slot -> the position in this stage of the kernel writing it
        for pos, i in enumerate(ks):
            k = kernels[i]
            at = _reduction_read(k, i, where, ks, kernels, readers)
            if at is not None and _clear(ks, at, pos, k, kernels):
                joins[ks[at]] = i
            where[k.store.buf] = pos
    if not joins:
        return sched
    joined = set(joins.values())
    stages, unwritten = [], set(sched.unwritten)
    for kind, x in sched.stages:
        if kind != "native":
            stages.append(None)
            continue
        new = []
        for i in x:
            if i in joined:
                continue
            k = kernels[i]
            if i in joins:
                unwritten.add(sched.buffers[k.store.buf])
                k = _join(k, kernels[joins[i]])
            new.append(k)
        stages.append(new)
    return sched.relaid(stages, unwritten, sched.premise)


def _reduction_read(k: Kernel, i: int, where: dict, ks: list, kernels: list, readers: dict):
    """The position in the stage ``ks`` of the reduction that elementwise kernel ``k``
    (number ``i``) can follow as its epilogue (of those it reads, the latest), or None."""
    if (k.reduce is not None or k.outs or k.store.chain or k.n_out == 0
            or k.body[k.value][0] != "op" or k.value_dtype != k.out_dtype
            or any(a.dyn for a in k.loads)):
        return None
    found = None
    for a in k.loads:
        at = where.get(a.buf)
        if at is not None and (found is None or at > found) and \
                readers.get(a.buf) == {i} and _follows(kernels[ks[at]], k, a.buf):
            found = at
    if found is None:
        return None
    red = kernels[ks[found]]
    body = len(red.body) + len(k.body) + 1
    loads = len(red.loads) + red.matmul + sum(1 for a in k.loads if a.buf != red.store.buf)
    return found if body <= MAX_BODY and loads <= MAX_LOADS else None


def _follows(red: Kernel, k: Kernel, buf: int) -> bool:
    """Whether ``k`` may be the epilogue of ``red`` (which writes ``buf``), as far as the
    two kernels tell: a reduction kind that takes one, over ``k``'s axes, each of ``k``'s
    reads of ``buf`` element for element.  A matrix product takes one on the GEMM routine
    when ``k`` stores its dtype (see ``_join``), but not with a vector operand: the row
    tiles of ``X.T @ f(X @ w)`` (backend/rowtiles.py) take the work between the products
    as kernels of their own (a 2000x2000 X: 1.9 ms tiled, 2.5 with the epilogue)."""
    if red.matmul and (gemm_operands(red) is None or k.out_dtype != red.out_dtype
                       or None in red.store.imap):
        return False
    return (red.value_dtype == red.out_dtype and red.reduce in _REDUCE
            and not (red.scan or red.post) and red.n_out == k.n_out and not red.store.chain
            and all(not a.chain and a.imap == red.store.imap for a in k.loads if a.buf == buf))


def _clear(ks: list, at: int, pos: int, k: Kernel, kernels: list) -> bool:
    """Whether the kernels between the reduction at ``at`` and ``k`` at ``pos`` in the
    stage ``ks`` let ``k``'s work move to the reduction's place: none writes what ``k``
    loads, and none loads or writes what ``k`` writes."""
    loads = {a.buf for a in k.loads}
    out = k.store.buf
    for i in ks[at + 1:pos]:
        m = kernels[i]
        if m.store.buf in loads or m.store.buf == out or any(a.buf == out for a in m.loads):
            return False
    return True


def _join(red: Kernel, ew: Kernel) -> Kernel:
    """``red`` computing ``ew``'s value from its result at each output point.

    A matrix product's GEMM routine writes all of its result before the epilogue runs:
    it writes ``ew``'s buffer (of the same dtype), and the epilogue reads the product
    back from there, a load of its own, and writes its value over it (each element read
    before it is written, in both tiers)."""
    loads = list(red.loads)
    spread, col_spread = list(red.spread), list(red.col_spread)
    at_load: dict = {}
    post = [("acc", red.out_dtype)]
    ids = []
    pad = (None,) * red.n_red
    result = 0  # where the epilogue finds the reduction's result
    if red.matmul:
        loads.append(type(ew.store)(ew.store.buf, (), ew.store.imap + pad, ()))
        result = len(post)
        post.append(("load", red.out_dtype, len(loads) - 1))
    for ins in ew.body[:ew.value + 1]:  # (the value is an op: the last of these)
        kind = ins[0]
        if kind == "load":
            a = ew.loads[ins[2]]
            if a.buf == red.store.buf:
                ids.append(result)
                continue
            j = at_load.get(ins[2])
            if j is None:
                j = at_load[ins[2]] = len(loads)
                loads.append(type(a)(a.buf, a.chain, a.imap + pad, a.dyn))
                if red.matmul:  # col_spread: the loads its pass over the product broadcasts
                    if a.imap[-1] is None:
                        col_spread.append(j)
                else:
                    spread.append(j)  # it does not move along the reduced axes
                    if ins[2] in ew.spread:
                        col_spread.append(j)
            ins = ("load", ins[1], j)
        elif kind == "op":
            ins = ("op", ins[1], ins[2], tuple([ids[s] for s in ins[3]]), ins[4])
        ids.append(len(post))
        post.append(ins)
    return red.replace(loads=tuple(loads), store=ew.store, out_dtype=ew.out_dtype,
                       spread=tuple(spread), col_spread=tuple(col_spread), post=tuple(post))
