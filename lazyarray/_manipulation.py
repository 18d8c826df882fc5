"""Manipulation functions: astype, broadcasting, reshape, permute_dims, expand_dims, squeeze.

Views never copy: they become index arithmetic inside the consuming kernel.
"""
from __future__ import annotations

from typing import Optional, Sequence, Union

from . import _dtypes as dt
from ._array_object import Array, record
from .backend.ir import Dim, Op, dim_broadcast, dim_prod, dim_sum


def check_array(x: object, fname: str, arg: str = "x") -> Array:
    if not isinstance(x, Array):
        raise TypeError(f"{fname}() expects a lazyarray Array for {arg}, got {type(x).__name__}")
    return x


def normalize_axis(axis: int, ndim: int, fname: str) -> int:
    """``axis`` in ``[0, ndim)``; IndexError names the function and the valid range."""
    if not isinstance(axis, int) or isinstance(axis, bool):
        raise TypeError(f"{fname}(): axis must be an int, got {type(axis).__name__}")
    if not -ndim <= axis < ndim:
        raise IndexError(f"{fname}(): axis {axis} is out of bounds for an array of rank {ndim}")
    return axis % ndim


def normalize_axes(axis, ndim: int, fname: str) -> tuple:
    """Sorted, distinct, non-negative axes from None, an int or a sequence."""
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, int):
        axes = (axis,)
    elif isinstance(axis, (tuple, list)):
        axes = tuple(axis)
    else:
        raise TypeError(f"{fname}(): axis must be None, an int or a tuple of ints, "
                        f"got {type(axis).__name__}")
    out = tuple(sorted(normalize_axis(a, ndim, fname) for a in axes))
    if len(set(out)) != len(out):
        raise ValueError(f"{fname}(): repeated axis in {axis!r}")
    return out


def astype(x: Array, dtype: dt.DType, /, *, copy: bool = True, device=None) -> Array:
    """``x`` converted to ``dtype`` (a new lazy node; copy is implied by laziness).

    Float-to-integer conversion of NaN, infinities and out-of-range values
    saturates (NaN -> 0), where the standard leaves the result unspecified.
    Any dtype converts to a complex one (imaginary part +0); complex to a
    real dtype raises TypeError (the standard says it should not be
    permitted; array-api-strict refuses it too): use real() or imag().
    """
    check_array(x, "astype")
    dt.check_dtype(dtype)
    _check_device(device)
    if x.dtype in dt.COMPLEX_FLOATING and dtype not in dt.COMPLEX_FLOATING:
        raise TypeError(f"astype(): cannot cast complex {x.dtype} to real {dtype}; "
                        "take real(x) or imag(x) first")
    if x.dtype is dtype:
        return Array._new(x._node)
    return record(Op.ASTYPE, dtype, x._node.shape, (x._node,))


def cast(x: Array, dtype: dt.DType) -> Array:
    """``x`` as ``dtype``, recording a cast only when needed."""
    return x if x.dtype is dtype else record(Op.ASTYPE, dtype, x._node.shape, (x._node,))


def _check_device(device) -> None:
    from ._array_object import CPU
    if device is not None and device != CPU:
        raise ValueError(f"unsupported device {device!r}; lazyarray runs on 'cpu' only")


def broadcast_shapes(*shapes: tuple) -> tuple:
    """The broadcast of shapes (ints, or symbolic sizes decided when bound)."""
    nd = max((len(s) for s in shapes), default=0)
    out = []
    for i in range(nd):
        d = 1
        for s in shapes:
            j = i - (nd - len(s))
            if j >= 0:
                try:
                    d = dim_broadcast(d, s[j])
                except ValueError:
                    raise ValueError(f"shapes {', '.join(map(str, shapes))} cannot be broadcast "
                                     "together") from None
        out.append(d)
    return tuple(out)


def broadcast_to(x: Array, /, shape: tuple) -> Array:
    """``x`` broadcast to ``shape`` (a view: nothing is copied)."""
    check_array(x, "broadcast_to")
    shape = tuple(shape)
    for d in shape:
        if not isinstance(d, (int, Dim)) or (isinstance(d, int) and d < 0):
            raise ValueError(f"broadcast_to(): invalid size {d!r} in shape {shape}")
    src = x._node.shape
    if src == shape:
        return Array._new(x._node)
    if not _broadcastable(src, shape):
        raise ValueError(f"broadcast_to(): cannot broadcast shape {x.shape} to {shape}")
    return record(Op.BROADCAST_TO, x.dtype, shape, (x._node,))


def _broadcastable(src: tuple, shape: tuple) -> bool:
    """Whether ``src`` may broadcast to ``shape``, as far as can be told now.

    Symbolic sizes (such as ``bcast(n, m)`` from broadcasting two named sizes)
    cannot be compared structurally; the binding of the view checks them.
    """
    if len(shape) < len(src):
        return False
    for s, t in zip(src, shape[len(shape) - len(src):]):
        if s != t and s != 1 and isinstance(s, int) and isinstance(t, int):
            return False
    return True


def broadcast_arrays(*arrays: Array) -> tuple:
    """The arrays broadcast against each other."""
    for a in arrays:
        check_array(a, "broadcast_arrays", "arrays")
    shape = broadcast_shapes(*(a._node.shape for a in arrays))
    return tuple(broadcast_to(a, shape) for a in arrays)


def reshape(x: Array, /, shape: Sequence[int], *, copy: Optional[bool] = None) -> Array:
    """``x`` with a new shape of the same size; one entry may be -1."""
    check_array(x, "reshape")
    if copy is False:
        raise ValueError("reshape(copy=False): lazyarray arrays never share memory, so a "
                         "no-copy reshape cannot be promised")
    shape = tuple(shape)
    for d in shape:
        if not isinstance(d, (int, Dim)) or isinstance(d, bool) or (isinstance(d, int) and d < -1):
            raise ValueError(f"reshape(): invalid size {d!r} in shape {shape}")
    if sum(1 for d in shape if isinstance(d, int) and d == -1) > 1:
        raise ValueError(f"reshape(): at most one -1 in shape {shape}")
    total = dim_prod(x._node.shape)
    if any(isinstance(d, int) and d == -1 for d in shape):
        known = dim_prod(d for d in shape if not (isinstance(d, int) and d == -1))
        if isinstance(total, int) and isinstance(known, int):
            if known == 0 or total % known:
                raise ValueError(f"reshape(): cannot reshape array of size {total} into {shape}")
            fill = total // known
        else:
            fill = Dim("quot", (total, known))
        shape = tuple(fill if isinstance(d, int) and d == -1 else d for d in shape)
    new_total = dim_prod(shape)
    if isinstance(total, int) and isinstance(new_total, int) and total != new_total:
        raise ValueError(f"reshape(): cannot reshape array of shape {x.shape} into {shape}")
    if shape == x._node.shape:
        return Array._new(x._node)
    return record(Op.RESHAPE, x.dtype, shape, (x._node,))


def permute_dims(x: Array, /, axes: tuple) -> Array:
    """``x`` with its axes reordered; negative axes count from the end."""
    check_array(x, "permute_dims")
    nd = x.ndim
    axes = tuple(normalize_axis(a, nd, "permute_dims") for a in axes)
    if sorted(axes) != list(range(nd)):
        raise ValueError(f"permute_dims(): axes {axes} is not a permutation of {tuple(range(nd))}")
    if axes == tuple(range(nd)):
        return Array._new(x._node)
    shape = tuple(x._node.shape[a] for a in axes)
    return record(Op.PERMUTE_DIMS, x.dtype, shape, (x._node,), axes)


def expand_dims(x: Array, /, axis: Union[int, tuple] = 0) -> Array:
    """``x`` with size-1 axes inserted at ``axis`` (positions in the result)."""
    check_array(x, "expand_dims")
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    nd = x.ndim + len(axes)
    pos = tuple(sorted(normalize_axis(a, nd, "expand_dims") for a in axes))
    if len(set(pos)) != len(pos):
        raise ValueError(f"expand_dims(): repeated axis in {axis!r}")
    it = iter(x._node.shape)
    shape = tuple(1 if i in pos else next(it) for i in range(nd))
    return record(Op.EXPAND_DIMS, x.dtype, shape, (x._node,), pos)


def squeeze(x: Array, /, axis: Union[int, tuple]) -> Array:
    """``x`` without the given size-1 axes."""
    check_array(x, "squeeze")
    axes = normalize_axes(axis, x.ndim, "squeeze")
    for a in axes:
        d = x._node.shape[a]
        if isinstance(d, int) and d != 1:
            raise ValueError(f"squeeze(): axis {a} has size {d}, expected 1")
    if not axes:
        return Array._new(x._node)
    shape = tuple(d for i, d in enumerate(x._node.shape) if i not in axes)
    return record(Op.SQUEEZE, x.dtype, shape, (x._node,), axes)


def concat(arrays, /, *, axis: Optional[int] = 0) -> Array:
    """The arrays joined along ``axis`` (flattened first when ``axis`` is None).

    One buffer is written by one fused loop per part: nothing is copied twice.
    """
    arrays = _array_sequence(arrays, "concat")
    dtype = dt.result_type(*arrays)
    arrays = [cast(a, dtype) for a in arrays]
    if axis is None:
        arrays = [reshape(a, (-1,)) for a in arrays]
        axis = 0
    nd = arrays[0].ndim
    if nd == 0:
        raise ValueError("concat(): zero-dimensional arrays cannot be concatenated")
    if any(a.ndim != nd for a in arrays):
        raise ValueError(f"concat(): all arrays must have the same rank, got ranks "
                         f"{[a.ndim for a in arrays]}")
    axis = normalize_axis(axis, nd, "concat")
    shape = list(arrays[0]._node.shape)
    for a in arrays[1:]:
        for i, (d, e) in enumerate(zip(shape, a._node.shape)):
            if i != axis and isinstance(d, int) and isinstance(e, int) and d != e:
                raise ValueError(f"concat(): shapes {arrays[0].shape} and {a.shape} differ "
                                 f"outside axis {axis}")
    shape[axis] = dim_sum(a._node.shape[axis] for a in arrays)
    if len(arrays) == 1:
        return arrays[0]
    return record(Op.CONCAT, dtype, tuple(shape), tuple(a._node for a in arrays), axis)


def stack(arrays, /, *, axis: int = 0) -> Array:
    """The arrays (of one shape) joined along a new axis ``axis``."""
    arrays = _array_sequence(arrays, "stack")
    shape = arrays[0]._node.shape
    if any(a._node.shape != shape for a in arrays[1:]):
        raise ValueError(f"stack(): all arrays must have the same shape, got "
                         f"{[a.shape for a in arrays]}")
    axis = normalize_axis(axis, len(shape) + 1, "stack")
    return concat([expand_dims(a, axis=axis) for a in arrays], axis=axis)


def _array_sequence(arrays, fname: str) -> list:
    if isinstance(arrays, Array) or not isinstance(arrays, (list, tuple)):
        raise TypeError(f"{fname}() expects a list or tuple of arrays, got {type(arrays).__name__}")
    if not arrays:
        raise ValueError(f"{fname}() needs at least one array")
    for a in arrays:
        check_array(a, fname, "arrays")
    return list(arrays)
