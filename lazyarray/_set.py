"""Set functions: unique_all, unique_counts, unique_inverse, unique_values, isin.

The ``unique_*`` family has output shapes that depend on the values, so it
cannot be recorded: the input is evaluated now (ConcretizationError when it
depends on a placeholder) and the results are data leaves.  Uniqueness is
value equality: each NaN (and each complex value with a NaN part) is its own
unique value with count 1; ``-0`` and ``+0`` are one value.  Unique values
come out sorted (NaNs last).

``isin`` is lazy: a native broadcast comparison when the pair is small,
else numpy's sort-based ``isin`` as an external step.
"""
from __future__ import annotations

import builtins
from typing import NamedTuple, Union

import numpy as np

from . import _dtypes as dt
from ._array_object import Array
from ._creation import asarray, zeros_like
from ._elementwise import equal, logical_not
from ._external import concrete, external, leaf
from ._manipulation import cast, check_array, expand_dims, reshape
from ._utility import any as _any

_WHY = "has an output shape that depends on the values of x"


class UniqueAllResult(NamedTuple):
    values: Array
    indices: Array
    inverse_indices: Array
    counts: Array


class UniqueCountsResult(NamedTuple):
    values: Array
    counts: Array


class UniqueInverseResult(NamedTuple):
    values: Array
    inverse_indices: Array


def _value(x: Array, fname: str) -> np.ndarray:
    check_array(x, fname)
    return concrete([x], fname, _WHY)[0]


def _index(v: np.ndarray) -> Array:
    return leaf(v, dt.int64)


def unique_all(x: Array, /) -> UniqueAllResult:
    """Unique values of flattened ``x``, their first indices, the inverse indices
    (shape of ``x``) and their counts.

    >>> import lazyarray as xp
    >>> r = xp.unique_all(xp.asarray([3, 1, 3]))
    >>> r.values.tolist(), r.indices.tolist(), r.inverse_indices.tolist(), r.counts.tolist()
    ([1, 3], [1, 0], [1, 0, 1], [1, 2])
    """
    r = np.unique_all(_value(x, "unique_all"))
    return UniqueAllResult(leaf(r.values, x.dtype), _index(r.indices),
                           _index(r.inverse_indices), _index(r.counts))


def unique_counts(x: Array, /) -> UniqueCountsResult:
    """Unique values of flattened ``x`` and how often each occurs."""
    r = np.unique_counts(_value(x, "unique_counts"))
    return UniqueCountsResult(leaf(r.values, x.dtype), _index(r.counts))


def unique_inverse(x: Array, /) -> UniqueInverseResult:
    """Unique values of flattened ``x`` and the indices (shape of ``x``) rebuilding it."""
    r = np.unique_inverse(_value(x, "unique_inverse"))
    return UniqueInverseResult(leaf(r.values, x.dtype), _index(r.inverse_indices))


def unique_values(x: Array, /) -> Array:
    """The unique values of flattened ``x`` (one-dimensional)."""
    # np.unique_values may hash rather than sort: keep the order of the others
    return leaf(np.unique(_value(x, "unique_values"), equal_nan=False), x.dtype)


# --------------------------------------------------------------------------- isin

# Up to this many element pairs (or when x2 is this short) isin compares every
# pair natively, fused with its neighbours; beyond, numpy's O(n log n) isin.
_PAIRS_NATIVE = 1 << 22
_SHORT_X2 = 128


def _out_of_range(value: object, other: Array) -> builtins.bool:
    """Whether Python int ``value`` cannot equal any element of integer ``other``."""
    if isinstance(value, builtins.bool) or not isinstance(value, int) \
            or other.dtype not in dt.INTEGER:
        return False
    info = np.iinfo(other.dtype.np)
    return not info.min <= value <= info.max


def _np_isin(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.isin(a, b)


def _isin_arrays(x1: Array, x2: Array) -> Array:
    n1, n2 = x1.size, x2.size
    if n1 is not None and n2 is not None and (n2 <= _SHORT_X2 or n1 * n2 <= _PAIRS_NATIVE):
        pairs = equal(expand_dims(x1, axis=-1), reshape(x2, (-1,)))
        return _any(pairs, axis=-1)
    dtype = dt.result_type(x1, x2)
    a, b = cast(x1, dtype), cast(x2, dtype)
    (out,) = external("isin", _np_isin, [a, b], [(dt.bool, x1._node.shape)])
    return out


def isin(x1: Union[Array, int], x2: Union[Array, int], /, *,
         invert: builtins.bool = False) -> Array:
    """Whether each element of ``x1`` equals some element of ``x2`` (bool, shape of ``x1``;
    0-d when ``x1`` is a scalar).  ``invert=True`` tests the opposite.

    Equality is ``equal``'s: NaN is in nothing, ``-0`` is in ``[+0]``; an int
    outside the other operand's integer range is in nothing.

    >>> import lazyarray as xp
    >>> xp.isin(xp.asarray([1, 2, 3]), xp.asarray([3, 1])).tolist()
    [True, False, True]
    """
    if not isinstance(x1, Array) and not isinstance(x2, Array):
        raise TypeError(f"isin() needs at least one lazyarray Array, got "
                        f"{type(x1).__name__} and {type(x2).__name__}")
    if isinstance(x1, Array) and isinstance(x2, Array):
        hit = _isin_arrays(x1, x2)
    elif isinstance(x1, Array):
        hit = zeros_like(x1, dtype=dt.bool) if _out_of_range(x2, x1) else equal(x1, x2)
    elif _out_of_range(x1, x2):
        hit = asarray(False)
    else:
        hit = _any(equal(x1, reshape(x2, (-1,))))
    return logical_not(hit) if invert else hit
