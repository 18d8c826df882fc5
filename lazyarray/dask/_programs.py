"""A compiled ``Program`` run on dask arrays: its graph with the arrays' sizes bound."""
from __future__ import annotations

from typing import Sequence

import numpy as np

from .. import _program
from .._errors import input_label
from ..backend import ir
from ..backend.ir import Dim, Node, Op


def _concrete(arg, env: dict):
    """An op parameter with its symbolic sizes evaluated."""
    if isinstance(arg, Dim):
        return ir.evaluate_dim(arg, env)
    if isinstance(arg, tuple):
        return tuple(_concrete(a, env) for a in arg)
    return arg


def program_to_dask(prog: _program.Program, inputs: Sequence):
    """The dask array(s) of ``prog`` on ``inputs``: a dask array (or numpy array) per
    placeholder, then optionally per captured constant."""
    from . import _dask, is_dask_array
    from ._lower import Lowering
    da = _dask().array
    leaves = prog._leaves
    n_ph = len(prog._placeholders)
    if not n_ph <= len(inputs) <= len(leaves):
        raise ValueError(f"to_dask(): the program takes {n_ph} input(s) for its placeholders "
                         f"and up to {len(leaves) - n_ph} captured constant(s), got {len(inputs)}")
    arrays = [a if is_dask_array(a) else da.from_array(np.asarray(a)) for a in inputs]
    for i, (leaf, a) in enumerate(zip(leaves, arrays)):
        label = input_label(i, leaf.arg if leaf.op is Op.PLACEHOLDER else "captured constant")
        if np.dtype(a.dtype) != leaf.dtype.np:
            raise ValueError(f"{label}: dtype mismatch: expected {leaf.dtype}, got {a.dtype}")
    env = prog._env([a.shape for a in arrays[:n_ph]])
    copies: dict = {}
    sources: dict = {}
    for i, leaf in enumerate(leaves):
        if i < len(arrays):
            ph = Node(Op.PLACEHOLDER, leaf.dtype, tuple(arrays[i].shape), (), leaf.arg)
            copies[leaf] = ph
            sources[ph] = arrays[i]
    for n in prog._nodes:
        if n in copies:
            continue
        if n.value is not None or not n.srcs:
            copies[n] = n  # data leaves and scalars as they are
            continue
        shape = tuple(ir.evaluate_dim(d, env) for d in n.shape)
        copies[n] = Node(n.op, n.dtype, shape, tuple(copies[s] for s in n.srcs),
                         _concrete(n.arg, env))
    roots = [copies[prog._nodes[i]] for i in prog._outputs]
    out = Lowering(sources).run(roots)
    return out[0] if prog._single else tuple(out)
