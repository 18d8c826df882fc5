"""Manipulation functions: astype, broadcasting, reshape, permute_dims, expand_dims, squeeze,
concat, stack, flip, roll, tile, repeat, moveaxis, unstack.

Views never copy: they become index arithmetic inside the consuming kernel.
"""
from __future__ import annotations

import operator
from typing import Optional, Sequence, Union

import numpy as np

from . import _dtypes as dt
from ._array_object import CPU, Array, record
from ._errors import AxisError
from ._views import track_permuted
from .backend.ir import Dim, Op, dim_assert_equal, dim_broadcast, dim_prod, dim_sum


def check_array(x: object, fname: str, arg: str = "x") -> Array:
    if not isinstance(x, Array):
        raise TypeError(f"{fname}() expects a lazyarray Array for {arg}, got {type(x).__name__}")
    return x


def normalize_axis(axis: int, ndim: int, fname: str) -> int:
    """``axis`` in ``[0, ndim)``; AxisError (a ValueError and an IndexError) names the
    function and the valid range."""
    if not isinstance(axis, int) or isinstance(axis, bool):
        raise TypeError(f"{fname}(): axis must be an int, got {type(axis).__name__}")
    if not -ndim <= axis < ndim:
        # numpy's wording ("axis 3 is out of bounds for array of dimension 2"): consumers
        # match it (scipy.stats' input validation tests).
        raise AxisError(f"{fname}(): axis {axis} is out of bounds for array of dimension "
                        f"{ndim}; expected an int in [{-ndim}, {ndim - 1}]" if ndim else
                        f"{fname}(): axis {axis} is out of bounds for array of dimension 0 "
                        "(a 0-d array has no axes)")
    return axis % ndim


def normalize_axes(axis, ndim: int, fname: str) -> tuple:
    """Sorted, distinct, non-negative axes from None, an int or a sequence."""
    if axis is None:
        return tuple(range(ndim))
    if type(axis) is int and -ndim <= axis < ndim:  # the commonest: one axis, in range
        return (axis % ndim,)
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
    if device is not None and device != CPU:
        raise ValueError(f"unsupported device {device!r}; lazyarray runs on 'cpu' only")


def broadcast_shapes(*shapes: tuple) -> tuple:
    """The broadcast of shapes; no arguments give ``()``.

    Sizes are ints, symbolic sizes (``Array.symbolic_shape``; decided when a
    program is bound) or None (unknown, as in ``Array.shape``): an unknown
    size against 1 or another unknown stays None, against ``n > 1`` it is ``n``.

    >>> import lazyarray as xp
    >>> xp.broadcast_shapes((3, 1), (4,), (1, 1, 1))
    (1, 3, 4)
    """
    for s in shapes:
        if not isinstance(s, (tuple, list)):
            raise TypeError(f"broadcast_shapes() expects shapes as tuples, got {type(s).__name__}")
        for d in s:
            if not (d is None or isinstance(d, Dim)
                    or (isinstance(d, int) and not isinstance(d, bool) and d >= 0)):
                raise ValueError(f"broadcast_shapes(): invalid size {d!r} in shape {tuple(s)}")
    nd = max((len(s) for s in shapes), default=0)
    out = []
    for i in range(nd):
        d = 1
        for s in shapes:
            j = i - (nd - len(s))
            if j >= 0:
                d = _broadcast_size(d, s[j], shapes)
        out.append(d)
    return tuple(out)


def _broadcast_size(a, b, shapes: tuple):
    if a is None or b is None:
        known = b if a is None else a
        return None if known is None or (isinstance(known, int) and known == 1) else known
    try:
        return dim_broadcast(a, b)
    except ValueError:
        raise ValueError(f"shapes {', '.join(map(str, map(tuple, shapes)))} cannot be broadcast "
                         "together") from None


def _int_shape(shape):
    """``shape`` if it is a tuple of Python ints of at least -1 (else None: the general
    paths convert and check it)."""
    if type(shape) is not tuple:
        return None
    for d in shape:
        if type(d) is not int or d < -1:
            return None
    return shape


def _quick_broadcast(x: Array, shape) -> Optional[Array]:
    """``broadcast_to`` of an Array of concrete sizes to a tuple of Python ints it
    broadcasts to, recorded as the general path does; None for anything else."""
    if type(x) is not Array or _int_shape(shape) is None or -1 in shape:
        return None
    node = x._node
    src = node.shape
    if len(shape) < len(src):
        return None
    for s, t in zip(src, shape[len(shape) - len(src):]):
        if type(s) is not int or (s != t and s != 1):
            return None
    if src == shape:
        return Array._new(node)
    return record(Op.BROADCAST_TO, node.dtype, shape, (node,))


def broadcast_to(x: Array, /, shape: tuple) -> Array:
    """``x`` broadcast to ``shape`` (a view: nothing is copied)."""
    quick = _quick_broadcast(x, shape)
    if quick is not None:
        return quick
    check_array(x, "broadcast_to")
    shape = _shape_arg(shape, "broadcast_to")
    for d in shape:
        if isinstance(d, int) and d < 0:
            raise ValueError(f"broadcast_to(): negative size {d} in shape {shape}")
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


def size_arg(d, fname: str, shape=None):
    """A size as an int: an int, or anything with ``__index__`` (numpy integers, 0-d
    integer arrays), as numpy and array-api-strict take them; a symbolic size stays as
    it is; TypeError for bools and everything else."""
    if type(d) is int or isinstance(d, Dim):
        return d
    if not isinstance(d, bool) and not isinstance(d, np.bool_):
        try:
            return operator.index(d)
        except TypeError:
            pass
    where = "" if shape is None else f" in {tuple(shape)}"
    raise TypeError(f"{fname}(): shape entries must be ints, got {d!r}{where}")


def _shape_arg(shape, fname: str) -> tuple:
    """A shape argument as a tuple of ints (or symbolic sizes); TypeError otherwise."""
    if not isinstance(shape, (tuple, list)):
        raise TypeError(f"{fname}(): shape must be a tuple of ints, got {type(shape).__name__}")
    return tuple(size_arg(d, fname, shape) for d in shape)


def _quick_reshape(x: Array, shape) -> Optional[Array]:
    """``reshape`` of an Array of concrete sizes to a tuple of Python ints (one may be -1)
    of the same size, recorded as the general path does; None for anything else."""
    if type(x) is not Array or _int_shape(shape) is None or shape.count(-1) > 1:
        return None
    node = x._node
    total = 1
    for d in node.shape:
        if type(d) is not int:
            return None
        total *= d
    known = 1
    for d in shape:
        if d != -1:
            known *= d
    if -1 in shape:
        if known == 0 or total % known:
            return None
        shape = tuple(total // known if d == -1 else d for d in shape)
    elif known != total:
        return None
    if shape == node.shape:
        return Array._new(node)
    return record(Op.RESHAPE, node.dtype, shape, (node,))


def reshape(x: Array, /, shape: Sequence[int], *, copy: Optional[bool] = None) -> Array:
    """``x`` with a new shape of the same size; one entry may be -1."""
    if copy is None:
        quick = _quick_reshape(x, shape)
        if quick is not None:
            return quick
    check_array(x, "reshape")
    if copy is False:
        raise ValueError("reshape(copy=False): lazyarray arrays never share memory, so a "
                         "no-copy reshape cannot be promised")
    shape = _shape_arg(shape, "reshape")
    for d in shape:
        if isinstance(d, int) and d < -1:
            raise ValueError(f"reshape(): negative size {d} in shape {shape} (only -1, for "
                             "the size inferred from the others, is allowed)")
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
    node = x._node
    nd = len(node.shape)
    try:
        got = _PERMUTATIONS[nd, axes]
    except (KeyError, TypeError):  # not seen yet, or not hashable (a list)
        got = None
    if got is None or tuple(map(type, axes)) != got[2]:  # bools and numpy ints: checked
        got = _permutation(axes, nd)
    axes, identity = got[0], got[1]
    if identity:
        return track_permuted(x, axes, Array._new(node))
    shape = tuple(node.shape[a] for a in axes)
    return track_permuted(x, axes, record(Op.PERMUTE_DIMS, node.dtype, shape, (node,), axes))


def _permutation(axes, nd: int) -> tuple:
    """(``axes`` normalised, whether it is the identity, the types a remembered key must
    have), remembered for a tuple of Python ints."""
    norm = tuple(normalize_axis(a, nd, "permute_dims") for a in axes)
    if sorted(norm) != list(range(nd)):
        raise ValueError(f"permute_dims(): axes {norm} is not a permutation of {tuple(range(nd))}")
    got = (norm, norm == tuple(range(nd)), (int,) * nd)
    if type(axes) is tuple and tuple(map(type, axes)) == got[2]:
        if len(_PERMUTATIONS) >= 4096:
            _PERMUTATIONS.clear()
        _PERMUTATIONS[nd, axes] = got
    return got


_PERMUTATIONS: dict = {}  # (ndim, axes) -> _permutation(axes, ndim)


def expand_dims(x: Array, /, axis: Union[int, tuple] = 0) -> Array:
    """``x`` with size-1 axes inserted at ``axis`` (positions in the result)."""
    check_array(x, "expand_dims")
    node = x._node
    if type(axis) is int and -len(node.shape) - 1 <= axis <= len(node.shape):  # one axis
        a = axis % (len(node.shape) + 1)
        return record(Op.EXPAND_DIMS, node.dtype, node.shape[:a] + (1,) + node.shape[a:],
                      (node,), (a,))
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
    out = _quick_concat(arrays, axis)
    if out is not None:
        return out
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


def _quick_concat(arrays, axis):
    """``concat`` of two or more arrays of one dtype and rank whose sizes agree outside an
    int ``axis`` (concrete along it), without the general checks; None for anything else
    (the general path then decides, or raises).  The node is the one that path records."""
    if type(arrays) not in (list, tuple) or len(arrays) < 2 or type(axis) is not int:
        return None
    first = arrays[0]
    if type(first) is not Array:
        return None
    shape = first._node.shape
    dtype, nd = first._node.dtype, len(shape)
    if not -nd <= axis < nd:
        return None
    axis %= nd
    head, tail = shape[:axis], shape[axis + 1:]
    total = 0
    nodes = []
    for a in arrays:
        if type(a) is not Array:
            return None
        n = a._node
        s = n.shape
        d = s[axis] if len(s) == nd else None
        if (type(d) is not int or n.dtype is not dtype or s[:axis] != head
                or s[axis + 1:] != tail):
            return None
        total += d
        nodes.append(n)
    return record(Op.CONCAT, dtype, head + (total,) + tail, tuple(nodes), axis)


def stack(arrays, /, *, axis: int = 0) -> Array:
    """The arrays (of one shape) joined along a new axis ``axis``."""
    arrays = _array_sequence(arrays, "stack")
    shape = arrays[0]._node.shape
    for a in arrays[1:]:
        # symbolic sizes (known when a program runs) are checked then, by concat
        other = a._node.shape
        if len(other) != len(shape) or any(type(d) is int and type(e) is int and d != e
                                           for d, e in zip(shape, other)):
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


# --------------------------------------------------------------------------- flip, roll, tile,
# repeat, moveaxis, unstack (2023.12): views, broadcasts and concat, never copies of their own

_FULL = ("s", None, None, 1)


def _axis_view(x: Array, axis: int, item: tuple, size) -> Array:
    """``x`` with slice item ``item`` applied on ``axis`` only (a view of size ``size`` there)."""
    items = (_FULL,) * axis + (item,)
    shape = x._node.shape[:axis] + (size,) + x._node.shape[axis + 1:]
    return record(Op.SLICE, x.dtype, shape, (x._node,), items)


def _slice_len(n, start, stop, step: int = 1):
    """Length of ``range(n)[start:stop:step]`` (symbolic when ``n`` is)."""
    if isinstance(n, int):
        return len(range(n)[start:stop:step])
    return Dim("slice", (n, start, stop, step))


def flip(x: Array, /, *, axis: Optional[Union[int, tuple]] = None) -> Array:
    """``x`` with the order of elements reversed along ``axis`` (all axes when None).

    A view: the consuming kernel walks the axes backwards.
    """
    check_array(x, "flip")
    axes = normalize_axes(axis, x.ndim, "flip")
    if not axes:
        return Array._new(x._node)
    items = tuple(("s", None, None, -1) if i in axes else _FULL for i in range(axes[-1] + 1))
    return record(Op.SLICE, x.dtype, x._node.shape, (x._node,), items)


def roll(x: Array, /, shift: Union[int, tuple], *,
         axis: Optional[Union[int, tuple]] = None) -> Array:
    """``x`` with elements shifted by ``shift`` along ``axis``; those pushed past an end come
    back at the other.  ``axis=None`` rolls the flattened array and restores the shape.

    Each rolled axis is two slices joined by concat.  For a symbolic axis size
    ``n`` the shift must satisfy ``|shift| <= n`` (checked when the program is
    bound), since ``shift % n`` cannot be taken before ``n`` is known.
    """
    check_array(x, "roll")
    if axis is None:
        if not _is_int(shift):
            raise TypeError(f"roll(): with axis=None, shift must be an int, got {shift!r}")
        flat = reshape(x, (-1,))
        return reshape(_roll_axis(flat, shift, 0), x._node.shape)
    axes = (axis,) if _is_int(axis) else axis
    if not isinstance(axes, (tuple, list)):
        raise TypeError(f"roll(): axis must be None, an int or a tuple of ints, got {axis!r}")
    shifts = (shift,) * len(axes) if _is_int(shift) else shift
    if not isinstance(shifts, (tuple, list)) or not all(_is_int(s) for s in shifts):
        raise TypeError(f"roll(): shift must be an int or a tuple of ints, got {shift!r}")
    if len(shifts) != len(axes):
        raise ValueError(f"roll(): shift {tuple(shifts)} and axis {tuple(axes)} must have the "
                         "same length")
    total: dict = {}
    for s, a in zip(shifts, axes):  # shifts of a repeated axis add up, as in numpy
        a = normalize_axis(a, x.ndim, "roll")
        total[a] = total.get(a, 0) + s
    out = x
    for a, s in total.items():
        out = _roll_axis(out, s, a)
    return out if out is not x else Array._new(x._node)


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _roll_axis(x: Array, s: int, axis: int) -> Array:
    n = x._node.shape[axis]
    if isinstance(n, int):
        s = s % n if n else 0
        if s == 0:
            return x
        cut = n - s
        head = _axis_view(x, axis, ("s", cut, None, 1), s)
        tail = _axis_view(x, axis, ("s", None, cut, 1), cut)
        size = n
    else:
        if s == 0:
            return x
        start = -s if s > 0 else abs(s)  # where the part that comes first begins
        head = _axis_view(x, axis, ("s", start, None, 1), _slice_len(n, start, None))
        tail = _axis_view(x, axis, ("s", None, start, 1), _slice_len(n, None, start))
        # The two parts fill the axis exactly when |s| <= n: that is checked at binding.
        moved = head._node.shape[axis] if s > 0 else tail._node.shape[axis]
        size = dim_assert_equal(n, moved, abs(s))
    shape = x._node.shape[:axis] + (size,) + x._node.shape[axis + 1:]
    return record(Op.CONCAT, x.dtype, shape, (head._node, tail._node), axis)


def tile(x: Array, repetitions: tuple, /) -> Array:
    """``x`` repeated ``repetitions[i]`` times along axis ``i`` (shapes aligned to the right,
    padding the shorter with ones): a broadcast reshaped, computed by one kernel."""
    check_array(x, "tile")
    reps = tuple(repetitions) if isinstance(repetitions, (tuple, list)) else None
    if reps is None or not all(_is_int(r) for r in reps):
        raise TypeError(f"tile(): repetitions must be a tuple of ints, got {repetitions!r}")
    if any(r < 0 for r in reps):
        raise ValueError(f"tile(): repetitions must be non-negative, got {reps}")
    nd = max(x.ndim, len(reps))
    reps = (1,) * (nd - len(reps)) + reps
    if nd > x.ndim:
        x = expand_dims(x, axis=tuple(range(nd - x.ndim)))
    shape = x._node.shape
    if all(r == 1 for r in reps):
        return Array._new(x._node)
    y = expand_dims(x, axis=tuple(2 * i for i in range(nd)))
    y = broadcast_to(y, tuple(v for r, d in zip(reps, shape) for v in (r, d)))
    return reshape(y, tuple(dim_prod((r, d)) for r, d in zip(reps, shape)))


def repeat(x: Array, repeats: Union[int, Array], /, *, axis: Optional[int] = None) -> Array:
    """Each element of ``x`` repeated ``repeats`` times along ``axis`` (of the flattened
    array when None).

    An int count is a broadcast and a reshape.  A count per element (an integer
    array) makes the output shape depend on its values: ``repeats`` is evaluated
    now (ConcretizationError when it depends on a placeholder; ``x`` may) and
    the elements are gathered by index.
    """
    check_array(x, "repeat")
    if axis is None:
        x, ax = reshape(x, (-1,)), 0
    else:
        ax = normalize_axis(axis, x.ndim, "repeat")
    if isinstance(repeats, Array):
        return _repeat_array(x, repeats, ax)
    if not _is_int(repeats):
        raise TypeError(f"repeat(): repeats must be an int or an integer array, "
                        f"got {type(repeats).__name__}")
    if repeats < 0:
        raise ValueError(f"repeat(): repeats must be non-negative, got {repeats}")
    shape = x._node.shape
    y = broadcast_to(expand_dims(x, axis=ax + 1), shape[:ax + 1] + (repeats,) + shape[ax + 1:])
    return reshape(y, shape[:ax] + (dim_prod((shape[ax], repeats)),) + shape[ax + 1:])


def _repeat_array(x: Array, repeats: Array, ax: int) -> Array:
    import numpy as np
    from ._external import concrete, leaf
    from ._indexing import take
    if repeats.dtype not in dt.INTEGER:
        raise TypeError(f"repeat(): repeats must have an integer dtype, got {repeats.dtype}")
    if repeats.ndim > 1:
        raise ValueError(f"repeat(): repeats must be one-dimensional, got shape {repeats.shape}")
    (r,) = concrete([repeats], "repeat", "with an array of repeats has an output shape that "
                    "depends on its values")
    r = r.reshape(-1)
    if (r < 0).any():
        raise ValueError("repeat(): repeats must be non-negative")
    if r.size == 1:
        return repeat(x, int(r[0]), axis=ax)
    n = x._node.shape[ax]
    if isinstance(n, int) and n != r.size:
        raise ValueError(f"repeat(): repeats has {r.size} counts for an axis of size {n}")
    if not isinstance(n, int):  # checked when bound: the axis must have r.size elements
        x = broadcast_to(x, x._node.shape[:ax] + (r.size,) + x._node.shape[ax + 1:])
    index = np.repeat(np.arange(r.size, dtype=np.int64), r.astype(np.int64))
    return take(x, leaf(index), axis=ax)


def moveaxis(x: Array, source: Union[int, tuple], destination: Union[int, tuple], /) -> Array:
    """``x`` with axes ``source`` moved to positions ``destination`` (a view); the other
    axes keep their order."""
    check_array(x, "moveaxis")
    src = _axis_list(source, x.ndim, "source")
    dst = _axis_list(destination, x.ndim, "destination")
    if len(src) != len(dst):
        raise ValueError(f"moveaxis(): source {source!r} and destination {destination!r} must "
                         "have the same number of axes")
    order = [i for i in range(x.ndim) if i not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return permute_dims(x, tuple(order))


def _axis_list(axes, ndim: int, what: str) -> list:
    axes = [axes] if _is_int(axes) else axes
    if not isinstance(axes, (tuple, list)):
        raise TypeError(f"moveaxis(): {what} must be an int or a tuple of ints, got {axes!r}")
    out = [normalize_axis(a, ndim, "moveaxis") for a in axes]
    if len(set(out)) != len(out):
        raise ValueError(f"moveaxis(): repeated axis in {what} {tuple(axes)}")
    return out


def unstack(x: Array, /, *, axis: int = 0) -> tuple:
    """The slices of ``x`` along ``axis``, as a tuple of views."""
    check_array(x, "unstack")
    if x.ndim == 0:
        raise ValueError("unstack(): x must have at least one dimension, got a 0-d array")
    ax = normalize_axis(axis, x.ndim, "unstack")
    n = x._node.shape[ax]
    if not isinstance(n, int):
        raise ValueError(f"unstack(): axis {ax} has symbolic size {n!r}; the number of "
                         "outputs must be known when recording")
    shape = x._node.shape[:ax] + x._node.shape[ax + 1:]
    return tuple(record(Op.SLICE, x.dtype, shape, (x._node,), (_FULL,) * ax + (("i", i),))
                 for i in range(n))
