"""lazyarray on Dask: the same lazy program runs blockwise on a Dask cluster.

* ``from_dask(d)`` wraps a chunked ``dask.array`` as a lazyarray leaf; plain lazy
  code on it records as usual, and at a materialization point (``float()``,
  ``numpy.asarray()``, ``xp.evaluate``) the graph runs on Dask (the active
  ``distributed.Client``, else Dask's default scheduler).
* ``to_dask(x)`` gives the lazy ``dask.array`` of a lazyarray array (without
  computing); ``to_dask(prog_or_fn, *dask_arrays)`` runs a ``Program``, a ``jit``
  function or a plain function on dask arrays, as do ``prog(d)`` and ``jf(d)``.
* ``compute(*arrays)`` computes several at once (one Dask compute);
  ``compile_cache_info(client)`` collects every worker's compile counters.

Each fused region becomes one ``da.blockwise`` layer whose tasks run one cached
lazyarray kernel; reductions are Dask tree reductions over lazyarray kernels
(see ``_lower`` and the README's "Running on Dask").  Importing this module does
not import dask; using it needs ``pip install 'lazyarray[dask]'``.

>>> import dask.array as da, lazyarray as xp, lazyarray.dask as lzd
>>> x = lzd.from_dask(da.linspace(0, 2, 1000, chunks=300))
>>> round(float(xp.sum(xp.sin(x) * x**2)), 6)
1235.325872
"""
from __future__ import annotations

import sys
import weakref
from typing import Any, Callable, Sequence, Union

import numpy as np

from .. import _dtypes as dt
from .. import _program
from .._array_object import Array
from ..backend import ir
from ..backend.ir import Node, Op
from ._kernels import cache_info as _cache_info
from ._lower import Lowering, lowered_ops

__all__ = ["compile_cache_info", "compute", "from_dask", "is_dask_array", "lowered_ops",
           "to_dask"]

# from_dask leaves: placeholder node -> the dask array it stands for
_SOURCES: "weakref.WeakKeyDictionary[Node, Any]" = weakref.WeakKeyDictionary()


def is_dask_array(a: Any) -> bool:
    """True for a ``dask.array.Array`` (without importing dask when it is not loaded)."""
    da = sys.modules.get("dask.array")
    return da is not None and isinstance(a, da.Array)


def _dask():
    try:
        import dask
        import dask.array  # noqa: F401
    except ImportError:
        raise ImportError("lazyarray.dask needs Dask: pip install 'lazyarray[dask]' "
                          "(dask[distributed])") from None
    return dask


def from_dask(d) -> Array:
    """A lazyarray leaf standing for the chunked dask array ``d`` (nothing is computed).

    Lazy code on it records as on any array; at a materialization point the graph
    is lowered to Dask and computed there.
    """
    if not is_dask_array(d):
        raise TypeError(f"from_dask() expects a dask.array.Array, got {type(d).__name__}")
    if any(np.isnan(c) for ch in d.chunks for c in ch):
        raise ValueError(f"from_dask(): the dask array {d.name!r} has unknown chunk sizes "
                         f"(shape {d.shape}); call compute_chunk_sizes() on it first")
    dtype = ir.BY_NUMPY.get(np.dtype(d.dtype).newbyteorder("="))
    if dtype is None:
        raise TypeError(f"from_dask(): dtype {d.dtype} is not a lazyarray dtype; expected one "
                        f"of {', '.join(t.name for t in dt.ALL_DTYPES)}")
    node = Node(Op.PLACEHOLDER, dtype, tuple(int(s) for s in d.shape), (), f"dask:{d.name}")
    _SOURCES[node] = d.astype(dtype.np) if d.dtype != dtype.np else d
    _program.FOREIGN_LEAVES[node] = _materialize
    return Array._new(node)


def _materialize(roots: list) -> list:
    """Values of graph nodes over from_dask leaves, computed on Dask."""
    arrays = Lowering(_SOURCES).run(roots)
    values = _dask().compute(*arrays)
    return [np.ascontiguousarray(v, dtype=n.dtype.np).reshape(n.shape)
            for v, n in zip(values, roots)]


ArrayOrFunction = Union[Array, Sequence[Array], _program.Program, Callable]


def to_dask(what: ArrayOrFunction, *inputs):
    """Lazy dask arrays computed by lazyarray kernels.

    * ``to_dask(x)``: the dask array of the lazyarray array ``x`` (a list or tuple of
      arrays gives a tuple); its placeholders must be ``from_dask`` leaves.
    * ``to_dask(prog, *dask_arrays)``: a ``Program`` on dask arrays, one per placeholder
      (then optionally values for its captured constants); symbolic sizes take the
      arrays' sizes.  ``prog(dask_x)`` does the same.
    * ``to_dask(fn, *args)``: a function (or ``jit`` function) of arrays, traced on
      ``from_dask`` leaves of the dask arguments; other arguments pass through.
    """
    if isinstance(what, Array):
        if inputs:
            raise TypeError("to_dask(array) takes no further inputs; pass a Program or a "
                            "function to run on dask arrays")
        return Lowering(_SOURCES).run([what._node])[0]
    if isinstance(what, (list, tuple)):
        if not what or not all(isinstance(a, Array) for a in what):
            raise TypeError("to_dask() expects a lazyarray Array, a list or tuple of Arrays, "
                            "a Program or a function")
        return tuple(Lowering(_SOURCES).run([a._node for a in what]))
    if isinstance(what, _program.Program):
        from ._programs import program_to_dask
        return program_to_dask(what, inputs)
    if callable(what):
        fn = getattr(what, "fn", what)  # a jit function: trace its Python function
        out = fn(*[from_dask(a) if is_dask_array(a) else a for a in inputs])
        return to_dask(out if isinstance(out, Array) else tuple(out))
    raise TypeError(f"to_dask() expects a lazyarray Array, a Program or a function, got "
                    f"{type(what).__name__}")


def compute(*arrays: Array) -> tuple:
    """numpy values of lazyarray arrays over ``from_dask`` leaves, in one Dask compute
    (shared parts computed once); the arrays keep their values, as ``xp.evaluate``."""
    for a in arrays:
        if not isinstance(a, Array):
            raise TypeError(f"compute() expects lazyarray Arrays, got {type(a).__name__}")
    _program.evaluate(*arrays)
    return tuple(np.asarray(a) for a in arrays)


def compile_cache_info(client=None) -> dict:
    """``{worker address: lazyarray.compile_cache_info() there}`` (as dicts, with
    ``dask_kernels``: kernels held), from ``client.run``; without a client, this
    process's counters under the key ``"local"``."""
    if client is None:
        return {"local": _cache_info()}
    return client.run(_cache_info)
