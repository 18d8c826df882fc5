"""Functions that run as numpy calls inside a compiled program.

Matrix decompositions, FFTs and sorting are recorded as ``external`` nodes:
the graph around them stays lazy and compiled, and at run time the program
calls the numpy function between its native stages (once per call, shared
by the outputs of a multi-output function).  Results must have the shapes
and dtypes recorded here.

Data-dependent shapes (``unique_*``, ``nonzero``, boolean masks) cannot be
recorded at all: ``concrete`` evaluates the inputs now, or raises
ConcretizationError when they depend on a placeholder.
"""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from . import _dtypes as dt
from ._array_object import Array, record
from ._errors import concretization_error
from .backend.ir import External, Op


def external(name: str, fn: Callable, inputs: Sequence[Array], outputs: Sequence[tuple],
             params: tuple = ()) -> list:
    """Record ``fn(*input arrays, *params)`` producing ``outputs`` [(dtype, shape), ...].

    ``name`` and ``params`` must identify the computation (they enter cache
    keys).  With several outputs, ``fn`` returns a tuple.

    >>> import lazyarray as xp, numpy as np
    >>> a = xp.asarray([3.0, 1.0, 2.0])
    >>> (s,) = external("sort", lambda v: np.sort(v), [a], [(a.dtype, a.shape)])
    >>> s.tolist()
    [1.0, 2.0, 3.0]
    """
    srcs = tuple(a._node for a in inputs)
    many = len(outputs) > 1
    return [record(Op.EXTERNAL, dtype, tuple(shape), srcs,
                   External(name, tuple(params), fn, i if many else None))
            for i, (dtype, shape) in enumerate(outputs)]


def concrete(arrays: Sequence[Array], fname: str, why: str) -> list:
    """Values of ``arrays`` now, for a function whose output shape depends on them.

    Raises ConcretizationError when any depends on a placeholder.
    """
    from ._program import materialize, placeholders_of
    names = placeholders_of([a._node for a in arrays])
    if names:
        err = concretization_error(f"{fname}()", names)
        raise type(err)(f"{fname}() {why}, so it cannot be recorded on placeholders. {err}")
    return materialize(list(arrays), f"{fname}()")


def leaf(value: np.ndarray, dtype: dt.DType | None = None) -> Array:
    """A data leaf from a numpy result (converted to ``dtype`` when given)."""
    from ._creation import asarray
    if dtype is not None:
        value = np.asarray(value).astype(dtype.np, copy=False)
    return asarray(np.ascontiguousarray(value) if np.ndim(value) else np.asarray(value))
