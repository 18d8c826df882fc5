"""Sorting functions: sort, argsort.

Both run as numpy calls inside the compiled program (external nodes): the
graph around them stays lazy and native.  The output shape is the input's,
so placeholders with symbolic sizes are fine.

Order: NaNs sort to the end in ascending order and to the start in
descending order (numpy's order, reversed); ``-0`` and ``+0`` compare equal,
so a stable sort keeps their input order.  Complex values (allowed by the
standard for backward compatibility) sort lexicographically, real part first.
"""
from __future__ import annotations

import numpy as np

from . import _dtypes as dt
from ._array_object import Array
from ._external import external
from ._manipulation import check_array, normalize_axis


def _kind(stable: bool):
    return "stable" if stable else None  # None: numpy's default introsort


def _np_argsort(v: np.ndarray, axis: int, descending: bool, stable: bool) -> np.ndarray:
    if not descending:
        return np.argsort(v, axis=axis, kind=_kind(stable))
    # Descending and stable: sort the reversed array ascending, reverse the
    # result and map positions back, so equal values keep their input order.
    flipped = np.argsort(np.flip(v, axis), axis=axis, kind=_kind(stable))
    return (v.shape[axis] - 1) - np.flip(flipped, axis)


def _np_sort(v: np.ndarray, axis: int, descending: bool, stable: bool) -> np.ndarray:
    if not descending:
        return np.sort(v, axis=axis, kind=_kind(stable))
    if stable and v.dtype.kind in "fc":  # equal floats (-0, +0) can be told apart
        return np.take_along_axis(v, _np_argsort(v, axis, True, True), axis)
    return np.flip(np.sort(v, axis=axis, kind=_kind(stable)), axis)


def _params(x: Array, axis: int, descending: bool, stable: bool, fname: str) -> tuple:
    check_array(x, fname)
    return (normalize_axis(axis, x.ndim, fname), bool(descending), bool(stable))


def sort(x: Array, /, *, axis: int = -1, descending: bool = False, stable: bool = True) -> Array:
    """A sorted copy of ``x`` along ``axis`` (same dtype and shape).

    >>> import lazyarray as xp
    >>> xp.sort(xp.asarray([3, 1, 2]), descending=True).tolist()
    [3, 2, 1]
    """
    params = _params(x, axis, descending, stable, "sort")
    (out,) = external("sort", _np_sort, [x], [(x.dtype, x._node.shape)], params)
    return out


def argsort(x: Array, /, *, axis: int = -1, descending: bool = False,
            stable: bool = True) -> Array:
    """Indices (int64) that sort ``x`` along ``axis``; stable by default.

    >>> import lazyarray as xp
    >>> xp.argsort(xp.asarray([2, 1, 2]), descending=True).tolist()
    [0, 2, 1]
    """
    params = _params(x, axis, descending, stable, "argsort")
    (out,) = external("argsort", _np_argsort, [x], [(dt.int64, x._node.shape)], params)
    return out
