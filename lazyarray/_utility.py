"""Utility functions: all, any."""
from __future__ import annotations

from typing import Optional, Union

from . import _dtypes as dt
from ._array_object import Array
from ._manipulation import check_array
from ._statistical import reduce
from .backend.ir import Op


def all(x: Array, /, *, axis: Optional[Union[int, tuple]] = None,  # noqa: A001
        keepdims: bool = False) -> Array:
    """Whether every element along ``axis`` is true (non-zero; NaN counts as true)."""
    check_array(x, "all")
    return reduce(Op.ALL, x, axis, keepdims, dt.bool, "all")


def any(x: Array, /, *, axis: Optional[Union[int, tuple]] = None,  # noqa: A001
        keepdims: bool = False) -> Array:
    """Whether any element along ``axis`` is true (non-zero; NaN counts as true)."""
    check_array(x, "any")
    return reduce(Op.ANY, x, axis, keepdims, dt.bool, "any")
