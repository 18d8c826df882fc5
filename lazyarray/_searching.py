"""Searching functions: where."""
from __future__ import annotations

from typing import Union

from . import _dtypes as dt
from ._array_object import Array, record
from ._elementwise import Scalar, _operands
from ._manipulation import broadcast_shapes, broadcast_to, check_array
from .backend.ir import Op


def where(condition: Array, x1: Union[Array, Scalar], x2: Union[Array, Scalar], /) -> Array:
    """Elements of ``x1`` where ``condition`` is true, else of ``x2`` (after broadcasting).

    The lazy way to make a data-dependent choice inside a traced function.
    """
    check_array(condition, "where", "condition")
    if condition.dtype is not dt.bool:
        raise TypeError(f"where(): condition must be a bool array, got {condition.dtype}")
    (n1, n2), dtype, shape = _operands("where", "all", x1, x2)
    shape = broadcast_shapes(condition._node.shape, shape)
    srcs = []
    for n in (condition._node, n1, n2):
        srcs.append(n if n.op is Op.SCALAR else broadcast_to(Array._new(n), shape)._node)
    return record(Op.WHERE, dtype, shape, tuple(srcs))
