"""Elementwise kernels over one iteration space, one after the other, become one kernel
writing several buffers.

The scheduler (backend/schedule.py) gives each root its own kernel, so a node that is
an output and is also read by later elementwise work is written by one kernel and read
back by the next, and a program's small column statistics were a kernel per line of
its source (13 kernels over 12 elements for a scaler's fit).  Here consecutive
elementwise kernels of a native stage that run over the same sizes join while:

* every load of a buffer the group writes reads it element for element (no view, the
  map the store has): it becomes the register that value is in, so the value is not
  read back (through a view it would read elements not written yet: the group ends);
* the joined body stays within ``MAX_BODY`` instructions and ``MAX_LOADS`` loads.

A member's buffer that only the joined kernel read (a shared costly node the scheduler
buffered for the kernels now joined) is not written at all (``Schedule.unwritten``): its
allocation is never touched.

The joined body is the members' bodies in order with equal instructions computed once
(the same load of the same buffer, the same op of the same values), so the shared part
of call and put prices is computed once per element, not once per output.  The last
member's value is the kernel's ``store``; each earlier member's that is written is one
of its ``outs``, stored through a load entry with that member's store access
(backend/bytecode.py and backend/codegen.py store it at the load's position).  Each
value is computed as before, by the same instruction: results are the same bits.
"""
from __future__ import annotations

from .schedule import MAX_BODY, MAX_LOADS, Kernel, Schedule


def merge(sched: Schedule, nodes: list) -> Schedule:
    """``sched`` with its runs of joinable elementwise kernels joined (itself when none
    are); ``nodes``: the graph it was scheduled from (for the iteration sizes).  A new
    schedule takes over the kernels of ``sched`` that stay as they are (their place in
    the meta array moves), so ``sched`` is not to be used after."""
    groups = []  # per native stage: lists of kernel numbers to join, in order
    joined = False
    for kind, ks in sched.stages:
        if kind != "native":
            groups.append(None)
            continue
        runs, space, written = [], None, None
        for i in ks:
            k = sched.kernels[i]
            s = _space(k, nodes)
            if s is not None and s == space and _joinable(runs[-1], k, written, sched):
                runs[-1].append(i)
                written[k.store.buf] = k.store.imap
                joined = True
                continue
            runs.append([i])
            space, written = s, ({k.store.buf: k.store.imap} if s is not None else None)
        groups.append(runs)
    if not joined:
        return sched
    readers = sched.readers()
    stages, unwritten, premise = [], set(sched.unwritten), list(sched.premise)
    for runs in groups:
        if runs is None:
            stages.append(None)
            continue
        kernels = []
        for run in runs:
            if len(run) == 1:
                kernels.append(sched.kernels[run[0]])
                continue
            # a member's buffer that nobody else reads is not written at all
            members = [sched.kernels[i] for i in run]
            premise.append(tuple(m.iter_axes for m in members))
            inside = set(run)
            stored = {m.store.buf for m in members[:-1]
                      if readers.get(m.store.buf, set()) - inside}
            unwritten.update(sched.buffers[m.store.buf] for m in members[:-1]
                             if m.store.buf not in stored)
            kernels.append(_join(members, stored))
        stages.append(kernels)
    return sched.relaid(stages, unwritten, tuple(premise))


def holds(premise: tuple, nodes: list) -> bool:
    """Whether the graph ``nodes`` gives the joined kernels of a schedule's ``premise``
    (per joined kernel, its members' iteration axes) equal sizes, as the graph it was
    made from did.  The join compared sizes, which the structural key a schedule is
    cached under does not hold: two outputs over arrays of 5 and 5 elements joined, and
    the same structure over 10 and 10,000,000 ran the joined kernel over the sizes of
    one member, writing past the other's buffer."""
    for members in premise:
        first = _sizes(members[0], nodes)
        for axes in members[1:]:
            if _sizes(axes, nodes) != first:
                return False
    return True


def _sizes(iter_axes: tuple, nodes: list) -> tuple:
    return tuple([nodes[j].shape[a] for j, a in iter_axes])


def _space(k: Kernel, nodes: list):
    """The sizes an elementwise kernel with a plain store runs over, or None when it
    cannot join (a reduction, scan or contraction; a store into part of a buffer; a
    value stored in another dtype)."""
    if k.reduce is not None or k.store.chain:  # (scans and contractions are reductions)
        return None
    if k.value_dtype != k.out_dtype:
        return None
    return _sizes(k.iter_axes, nodes)


def _joinable(run: list, k: Kernel, written: dict, sched: Schedule) -> bool:
    """Whether ``k`` joins the run (``written``: buffer -> store map of its members)."""
    n_body, loads = len(k.body), set()
    for i in run:
        m = sched.kernels[i]
        n_body += len(m.body)
        loads.update(_key(a) for a in m.loads)
    for a in k.loads:
        imap = written.get(a.buf)
        if imap is not None:
            if a.chain or a.dyn or a.imap != imap:
                return False
        else:
            loads.add(_key(a))
    # (a bound, not the count: equal instructions are computed once)
    return n_body <= MAX_BODY and len(loads) + len(run) <= MAX_LOADS


def _key(a) -> tuple:
    return (a.buf, a.chain, a.imap, a.dyn)


def _join(members: list, stored: set) -> Kernel:
    """One kernel computing every member's value (see the module's docstring);
    ``stored``: the buffers of the members before the last that it writes (others
    read them; the rest only this kernel did, through registers now)."""
    body, seen, loads, at_load = [], {}, [], {}
    spread = []
    written = {}  # buffer -> body index of the value stored there
    values = []
    for m in members:
        ids = []
        for ins in m.body:
            kind = ins[0]
            if kind == "load" or kind == "gather":
                a = m.loads[ins[2]]
                v = written.get(a.buf) if kind == "load" else None
                if v is not None:  # a member's value, element for element (_joinable)
                    ids.append(v)
                    continue
                key = _key(a)
                j = at_load.get(key)
                if j is None:
                    j = at_load[key] = len(loads)
                    loads.append(a)
                    if ins[2] in m.spread:
                        spread.append(j)
                ins = (kind, ins[1], j) + ((tuple([ids[s] for s in ins[3]]), ins[4])
                                          if kind == "gather" else ())
            elif kind == "op":
                ins = ("op", ins[1], ins[2], tuple([ids[s] for s in ins[3]]), ins[4])
            t = seen.get(ins)
            if t is None:
                t = seen[ins] = len(body)
                body.append(ins)
            ids.append(t)
        values.append(ids[m.value])
        written[m.store.buf] = ids[m.value]
    outs = []
    for m, v in zip(members[:-1], values):
        if m.store.buf in stored:
            outs.append((v, len(loads)))
            loads.append(m.store)
    last = members[-1]
    return Kernel(last.n_out, 0, None, tuple(body), tuple(loads), values[-1], last.store,
                  last.out_dtype, last.iter_axes, last.meta_base, spread=tuple(spread),
                  outs=tuple(outs))
