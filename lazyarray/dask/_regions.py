"""Splitting a recorded graph into the parts that become Dask layers.

A *region* is a set of elementwise and broadcast nodes computed by one kernel
per block: its root is the node whose result Dask sees (an elementwise node,
or a reduction or arg-reduction whose chunk step the region feeds).  A node
joins the region of its consumers when it is elementwise or a broadcast and
every consumer is in one region that can absorb it, so an intermediate used
twice inside one expression is computed once per block and never stored.
"""
from __future__ import annotations

from ..backend import ir
from ..backend.ir import Node, Op

FUSABLE = ir.ELEMENTWISE | {Op.BROADCAST_TO}
ABSORBING = FUSABLE | ir.REDUCE | ir.ARG_REDUCE  # roots a region of producers can feed


def is_leaf(n: Node) -> bool:
    return n.value is not None or not n.srcs


def regions(roots: list) -> tuple:
    """(nodes in execution order, {node: its region's root}) for the graph of
    ``roots``; leaves have no region, and a node is a root when it maps to itself."""
    order = ir.toposort(roots)
    consumers: dict = {}
    for n in order:
        if not is_leaf(n):
            for s in n.srcs:
                consumers.setdefault(s, []).append(n)
    is_root = set(roots)
    region: dict = {}
    for n in reversed(order):  # consumers first
        if is_leaf(n):
            continue
        region[n] = _region_of(n, consumers.get(n, ()), region, n in is_root)
    return order, region


def _region_of(n: Node, cons: list, region: dict, is_output: bool) -> Node:
    if is_output or n.op not in FUSABLE:
        return n
    owners = {region[c] for c in cons}
    if len(owners) != 1:
        return n
    (owner,) = owners
    if owner.op not in ABSORBING:
        return n
    for c in cons:  # a consumer that is neither elementwise nor the root itself cannot fuse it
        if c.op not in FUSABLE and c is not owner:
            return n
    return owner


def members_of(order: list, region: dict) -> dict:
    """{region root: its member nodes in execution order (the root last)}."""
    out: dict = {}
    for n in order:
        r = region.get(n)
        if r is not None:
            out.setdefault(r, []).append(n)
    return out


def region_inputs(members: list) -> list:
    """The array nodes a region reads from outside it, in first-use order (scalars
    stay inside the kernel as runtime arguments)."""
    inside = set(members)
    seen: dict = {}
    for m in members:
        for s in m.srcs:
            if s not in inside and s.op is not Op.SCALAR and s not in seen:
                seen[s] = None
    return list(seen)


def uncovered_axes(inputs: list, base: tuple) -> frozenset:
    """Axes of the region's shape ``base`` along which no input has the full size (a
    pure broadcast): their block size cannot come from an input, so it is fixed."""
    covered = set()
    for x in inputs:
        o = len(base) - len(x.shape)
        covered.update(o + j for j, d in enumerate(x.shape) if d == base[o + j])
    return frozenset(i for i, d in enumerate(base) if d != 1 and i not in covered)


def block_shape(shape: tuple, base: tuple, fixed: frozenset = frozenset()) -> tuple:
    """``shape`` (right-aligned against the region's shape ``base``) in block sizes:
    an axis of the full size is the block size ``d<axis>`` (its size where ``fixed``);
    a broadcast axis stays 1."""
    o = len(base) - len(shape)
    out = []
    for j, d in enumerate(shape):
        full = base[o + j]
        if d == full and full != 1:
            out.append(full if o + j in fixed else f"d{o + j}")
        elif d == 1:
            out.append(1)
        else:
            raise ValueError(f"internal: shape {shape} does not broadcast to {base}")
    return tuple(out)


def block_index(shape: tuple, base: tuple, spare) -> tuple:
    """Dask's index of an input of ``shape`` in a region of shape ``base``: the output's
    index where the sizes agree; a broadcast size-1 axis gets its own index from
    ``spare`` (an iterator), one block that every output block reads."""
    o = len(base) - len(shape)
    return tuple(o + j if d == base[o + j] else next(spare) for j, d in enumerate(shape))
