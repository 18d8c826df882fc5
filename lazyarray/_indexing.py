"""Indexing: basic indexing, integer-array and boolean-mask indexing, take, take_along_axis.

A basic index (integers, slices with steps, ``...``, ``None``) is a view: one
``slice`` node (integers drop axes, slices keep them) and an ``expand_dims``
node for ``None``.  Bounds of integer indices are checked when recording for
concrete sizes and when the program is bound for symbolic ones.

Integer arrays gather (numpy's vectorized indexing: index arrays broadcast
together, negative indices count from the end, out-of-range ones raise
IndexError when the program runs).  Gathers and scatters are numpy steps
inside the compiled program for now (``_external``); the views around them
stay native.  A boolean mask as the sole index selects a data-dependent
number of elements, so ``x[mask]`` evaluates the mask now; ``x[mask] = v``
stays lazy (a ``where`` when ``v`` broadcasts to the selected elements).
"""
from __future__ import annotations

import operator
from typing import Optional

import numpy as np

from ._array_object import Array, foreign_array_error, is_foreign_array, record
from ._manipulation import (_broadcastable, broadcast_shapes, broadcast_to, cast, check_array,
                            expand_dims, moveaxis, normalize_axis, permute_dims, squeeze)
from . import _dtypes as dt
from ._views import rebind, track
from .backend.ir import Dim, Node, Op
from .backend.recorder import GETITEM


def _as_index(item, axis: int) -> int:
    if isinstance(item, bool):
        raise IndexError("boolean scalars are not valid indices")
    try:
        return operator.index(item)
    except TypeError:
        raise IndexError(f"only integers, slices, ..., None and integer arrays are valid indices; "
                         f"got {type(item).__name__} at axis {axis}") from None


def _slice_item(s: slice, size, axis: int):
    step = 1 if s.step is None else _as_index(s.step, axis)
    if step == 0:
        raise ValueError("slice step cannot be zero")
    start = None if s.start is None else _clamped(_as_index(s.start, axis))
    stop = None if s.stop is None else _clamped(_as_index(s.stop, axis))
    step = _clamped(step)
    if isinstance(size, int):
        return _on_size(start, stop, step, size)
    return ("s", start, stop, step), Dim("slice", (size, start, stop, step))


def _on_size(start, stop, step: int, size: int) -> tuple:
    """(item, length) of a slice of in-range bounds on an axis of concrete ``size``."""
    if step == 1:  # slice.indices and range's length, without making them
        first = 0 if start is None else (max(start + size, 0) if start < 0 else min(start, size))
        end = size if stop is None else (max(stop + size, 0) if stop < 0 else min(stop, size))
        n = end - first if end > first else 0
    else:
        first, end, by = slice(start, stop, step).indices(size)
        n = len(range(first, end, by))
    if n <= 1:  # no step is taken: the equivalent slice with step 1
        return ("s", first if n else 0, first + n if n else 0, 1), n
    return ("s", start, stop, step), n


_INT64_MAX = 2**63 - 1


def _clamped(i: int) -> int:
    """A slice bound or step within +-(2**63 - 1): no axis is longer, so every value
    past that selects as that value does (``a[2**70:]`` as ``a[2**63 - 1:]``), and
    what is stored fits the int64 words the kernels' index arithmetic uses."""
    return max(-_INT64_MAX, min(i, _INT64_MAX))


def _parse_basic(x: Array, key) -> tuple:
    """(items, shape without None axes, positions of None axes) of a basic index."""
    key = key if isinstance(key, tuple) else (key,)
    n_ell = sum(1 for k in key if k is Ellipsis)
    if n_ell > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    n_axes = sum(1 for k in key if k is not None and k is not Ellipsis)
    if n_axes > x.ndim:
        raise IndexError(f"too many indices: array is {x.ndim}-dimensional, "
                         f"but {n_axes} were indexed")
    if n_ell == 0:
        key = key + (Ellipsis,)
    items, shape, new_axes = [], [], []
    axis = 0
    for k in key:
        if k is Ellipsis:
            for _ in range(x.ndim - n_axes):
                items.append(("s", None, None, 1))
                shape.append(x._node.shape[axis])
                axis += 1
        elif k is None:
            new_axes.append(len(shape) + len(new_axes))
        elif isinstance(k, slice):
            it, n = _slice_item(k, x._node.shape[axis], axis)
            items.append(it)
            shape.append(n)
            axis += 1
        else:
            i = _as_index(k, axis)
            size = x._node.shape[axis]
            if isinstance(size, int) and not -size <= i < size:
                raise IndexError(f"index {i} is out of bounds for axis {axis} with size {size}")
            items.append(("i", i))
            axis += 1
    while items and items[-1] == ("s", None, None, 1):
        items.pop()
    return tuple(items), tuple(shape), tuple(new_axes)


def getitem(x: Array, key) -> Array:
    """``x[key]``: a view for a basic index, a gather for integer arrays, a selection for a
    boolean mask (the sole index)."""
    out = _quick_basic(x, key)
    if out is not None:
        return track(x, key, out)
    simple = _simplify_key(key)
    mask = _sole_mask(simple)
    if mask is not None:
        return _mask_getitem(x, mask)
    if any(isinstance(k, Array) for k in simple):
        return _array_getitem(x, simple)
    return track(x, simple, _basic_getitem(x, simple))


# natively (lazyarray/_recording.py) for the keys _quick_basic takes, the same nodes
getitem._recording = (Op.SLICE, {}, {}, GETITEM)


def basic_view_node(base: Array, key) -> Node:
    """The node of ``base[key]`` for a basic index, as a view's node (not tracked)."""
    out = _quick_basic(base, key)
    return (out if out is not None else _basic_getitem(base, _simplify_key(key)))._node


def _basic_getitem(x: Array, key: tuple) -> Array:
    items, shape, new_axes = _parse_basic(x, key)
    out = x
    if items:
        out = record(Op.SLICE, x.dtype, shape, (x._node,), items)
    if new_axes:
        out = expand_dims(out, axis=new_axes)
    return out if out is not x else Array._new(x._node)


_FULL = ("s", None, None, 1)


def _quick_basic(x: Array, key):
    """``x[key]`` for the common keys (Python ints and slices of Python ints or None, on
    concrete sizes) without the general parse; None for any other key.  The items are
    those ``_parse_basic`` makes, so both paths share programs.  (``_small`` and
    ``_on_size``'s unit step are written out: a stencil records dozens of slices.)"""
    node = x._node
    shape = node.shape
    if type(key) is not tuple:
        key = (key,)
    if len(key) > len(shape):
        return None
    items, out = [], []
    for k, size in zip(key, shape):
        if type(size) is not int:
            return None
        t = type(k)
        if t is slice:
            start, stop, step = k.start, k.stop, k.step
            if step is None or (type(step) is int and step == 1):
                if start is None:
                    first = 0
                elif type(start) is int and -_INT64_MAX <= start <= _INT64_MAX:
                    first = (start + size if start + size > 0 else 0) if start < 0 else \
                        (start if start < size else size)
                else:
                    return None
                if stop is None:
                    end = size
                elif type(stop) is int and -_INT64_MAX <= stop <= _INT64_MAX:
                    end = (stop + size if stop + size > 0 else 0) if stop < 0 else \
                        (stop if stop < size else size)
                else:
                    return None
                n = end - first if end > first else 0
                items.append(("s", start, stop, 1) if n > 1 else
                             ("s", first if n else 0, first + n if n else 0, 1))
            else:
                if not (_small(start) and _small(stop) and _small(step)) or step == 0:
                    return None
                item, n = _on_size(start, stop, step, size)
                items.append(item)
            out.append(n)
        elif t is int:
            if not -size <= k < size:
                return None  # the general path raises the IndexError
            items.append(("i", k))
        else:
            return None
    while items and items[-1] == _FULL:
        items.pop()
    if not items:
        return Array._new(node)
    return record(Op.SLICE, node.dtype, tuple(out) + shape[len(key):], (node,), tuple(items))


def _small(v) -> bool:
    """None or a Python int that needs no clamping (see ``_clamped``)."""
    return v is None or (type(v) is int and -_INT64_MAX <= v <= _INT64_MAX)


def setitem(x: Array, key, value) -> None:
    """``x[key] = value``: ``x`` is rebound to a new node, ``x`` with the selected elements
    replaced (other arrays computed from the old ``x`` keep it).

    A basic index writes the region through a view of a copy; a boolean mask
    with a value that broadcasts to the selected elements' trailing shape is a
    ``where``; integer arrays (or a mask with one value per selected element)
    scatter.  Basic-index views of ``x`` (and the base ``x`` is a basic-index view of)
    see the write, as numpy's views do (``_views.py``).  (This is ``Array.__setitem__``.)
    """
    key = _simplify_key(key)
    v = _setitem_value(x, value)
    mask = _sole_mask(key)
    if mask is not None:
        _mask_setitem(x, mask, v)
    elif any(isinstance(k, Array) for k in key):
        spec, arrays = _key_spec(x, key)
        selected = _array_getitem(Array._new(x._node), key)._node.shape
        _scatter(x, spec, arrays, v, selected)
    else:
        _basic_setitem(x, key, v)


def _setitem_value(x: Array, value) -> Array:
    """``value`` as an Array of ``x``'s dtype (a runtime scalar for a Python scalar)."""
    if isinstance(value, Array):
        if not dt.can_cast(value.dtype, x.dtype):
            raise TypeError(f"cannot assign an array of dtype {value.dtype} into an array of "
                            f"dtype {x.dtype}")
        return cast(value, x.dtype)
    if isinstance(value, (bool, int, float, complex)):
        from ._elementwise import scalar_node
        dt.scalar_dtype(value, x.dtype)
        if isinstance(value, complex) and x.dtype not in dt.COMPLEX_FLOATING:
            raise TypeError(f"cannot assign a complex value into an array of dtype {x.dtype}")
        return Array._new(scalar_node(value, x.dtype))
    if is_foreign_array(value):
        raise TypeError(foreign_array_error("__setitem__()", value))
    raise TypeError(f"__setitem__ expects an Array or a Python scalar value, "
                    f"got {type(value).__name__}")


def _basic_setitem(x: Array, key: tuple, v: Array) -> None:
    rebind(x, _basic_updated(x, key, v))


def basic_update(x: Array, key, v: Array) -> Node:
    """The node of ``x`` with the region ``x[key]`` (a basic index) replaced by ``v``."""
    return _basic_updated(x, _simplify_key(key), v)


def _basic_updated(x: Array, key: tuple, v: Array) -> Node:
    items, shape, new_axes = _parse_basic(x, key)
    if v._node.shape != shape:
        # The value broadcasts to the shape x[key] has, None axes included (size 1).
        full = list(shape)
        for p in new_axes:
            full.insert(p, 1)
        try:
            v = broadcast_to(v, tuple(full))
        except ValueError:
            raise ValueError(f"__setitem__(): cannot assign a value of shape {v.shape} to the "
                             f"selected region of shape {_shown(tuple(full))}: the value must "
                             "broadcast to it") from None
        if new_axes:
            v = squeeze(v, axis=new_axes)
    return Node(Op.UPDATE, x.dtype, x._node.shape, (x._node, v._node), items)


def _shown(shape: tuple) -> tuple:
    """A shape as ``Array.shape`` shows it (symbolic sizes as None)."""
    return tuple(d if type(d) is int else None for d in shape)


# --------------------------------------------------------------------------- array keys

def _simplify_key(key) -> tuple:
    """The key as a tuple (numpy arrays in it as Arrays); 0-d integer arrays not depending
    on a placeholder become ints when no other array is present, so such keys stay views."""
    key = key if isinstance(key, tuple) else (key,)
    if any(isinstance(k, np.ndarray) for k in key):  # numpy index arrays act as data leaves
        from ._creation import asarray
        key = tuple(asarray(k) if isinstance(k, np.ndarray) else k for k in key)
    arrays = [k for k in key if isinstance(k, Array)]
    if not arrays or any(a.ndim or a.dtype not in dt.INTEGER for a in arrays):
        return key
    from ._program import placeholders_of
    if placeholders_of([a._node for a in arrays]):
        return key
    return tuple(operator.index(k) if isinstance(k, Array) else k for k in key)


def _sole_mask(key: tuple) -> Optional[Array]:
    masks = [k for k in key if isinstance(k, Array) and k.dtype is dt.bool]
    if not masks:
        return None
    if len(key) != 1:
        raise IndexError("a boolean array index must be the sole index (combining it with "
                         "other indices, ... or None is not supported)")
    return masks[0]


def _index_array(k, size, axis: int) -> Array:
    """An integer index (array or int) as an index array; ints, and index arrays whose
    values are known, are checked against ``size``."""
    if isinstance(k, Array):
        if k.dtype not in dt.INTEGER:
            raise IndexError(f"index arrays must have an integer dtype, got {k.dtype} at "
                             f"axis {axis}")
        check_bounds(k, size, axis)
        return k
    i = _as_index(k, axis)
    if isinstance(size, int) and not -size <= i < size:
        raise IndexError(f"index {i} is out of bounds for axis {axis} with size {size}")
    from ._external import leaf
    return leaf(np.asarray(i, dtype=np.int64))


def _expand_key(x: Array, key: tuple) -> list:
    """The key with ``...`` expanded (or full slices appended): one entry per axis of ``x``,
    plus the None entries."""
    if sum(1 for k in key if k is Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    n_axes = sum(1 for k in key if k is not None and k is not Ellipsis)
    if n_axes > x.ndim:
        raise IndexError(f"too many indices: array is {x.ndim}-dimensional, "
                         f"but {n_axes} were indexed")
    fill = [slice(None)] * (x.ndim - n_axes)
    out = []
    for k in key:
        out.extend(fill if k is Ellipsis else [k])
    if Ellipsis not in key:
        out.extend(fill)
    return out


def _array_getitem(x: Array, key: tuple) -> Array:
    """Vectorized indexing with numpy's placement of the gathered axes: where the first
    index array was when the integer indices are adjacent, else first."""
    items = _expand_key(x, key)
    basic, adv, axis = [], [], 0
    for pos, k in enumerate(items):
        if k is None or isinstance(k, slice):
            basic.append(k)
        else:
            adv.append((pos, _index_array(k, x._node.shape[axis], axis), axis))
            basic.append(slice(None))
        if k is not None:
            axis += 1
    y = _basic_getitem(x, tuple(basic))  # one axis per entry of items
    adv_pos = [p for p, _, _ in adv]
    others = [p for p in range(len(items)) if p not in adv_pos]
    out = gather(permute_dims(y, tuple(adv_pos + others)), [i for _, i, _ in adv],
                 axes=[a for _, _, a in adv])
    nb, first = out.ndim - len(others), adv_pos[0]
    if adv_pos == list(range(first, first + len(adv_pos))) and first > 0:
        order = list(range(nb, nb + first)) + list(range(nb)) + list(range(nb + first, out.ndim))
        out = permute_dims(out, tuple(order))
    return out


def check_bounds(indices: Array, size, axis: int, fname: str = "") -> None:
    """IndexError now when ``indices`` holds values (a data leaf or an evaluated array)
    outside ``[-size, size)``; computed indices are checked when the program runs."""
    v = indices._node.value
    if v is None or indices._node.op is Op.SCALAR or type(size) is not int or v.size == 0:
        return
    lo, hi = v.min(), v.max()
    if lo < -size or hi >= size:
        bad = int(lo) if lo < -size else int(hi)
        where = f"{fname}(): " if fname else ""
        raise IndexError(f"{where}index {bad} is out of bounds for axis {axis} with size {size}")


def gather(x: Array, indices: list, axes=None) -> Array:
    """``x[i1, ..., ik]`` for integer index arrays on the first k axes (numpy semantics).

    A native gather: the reads fuse into the consuming kernel; negative indices
    count from the end and an out-of-range one raises IndexError when it runs.
    """
    k = len(indices)
    bshape = broadcast_shapes(*(i._node.shape for i in indices))
    rest = x._node.shape[k:]
    shape = bshape + rest
    srcs = [x._node]
    for i in indices:
        i = expand_dims(i, axis=tuple(range(i.ndim, i.ndim + len(rest)))) if rest else i
        srcs.append(broadcast_to(i, shape)._node)
    other_map = tuple(len(bshape) + b for b in range(len(rest)))
    labels = tuple(range(k) if axes is None else axes)  # axes named in IndexError messages
    return record(Op.GATHER, x.dtype, shape, tuple(srcs), (tuple(range(k)), other_map, labels))


def _key_spec(x: Array, key: tuple) -> tuple:
    """(spec, index arrays) of an integer-array key: the structure as a parameter
    (slices, None, array slots), the arrays as inputs."""
    spec, arrays, axis = [], [], 0
    for k in _expand_key(x, key):
        if k is None:
            spec.append(("n",))
            continue
        if isinstance(k, slice):
            spec.append(("s",) + _slice_item(k, x._node.shape[axis], axis)[0][1:])
        else:
            arrays.append(_index_array(k, x._node.shape[axis], axis))
            spec.append(("a",))
        axis += 1
    return tuple(spec), arrays


def _np_scatter(v: np.ndarray, value: np.ndarray, *rest) -> np.ndarray:
    *idx, spec = rest
    it = iter(idx)
    key = tuple(None if s[0] == "n" else slice(*s[1:]) if s[0] == "s" else next(it)
                for s in spec)
    out = v.copy()
    out[key] = value
    return out


def _scatter(x: Array, spec: tuple, arrays: list, v: Array, selected=None) -> None:
    """``x[key] = v`` as a numpy step inside the program (interim: no native scatter yet).

    ``selected`` is the shape of ``x[key]`` when known: a value that does not
    broadcast to it raises ValueError now, before ``x`` changes (otherwise when the
    program runs).
    """
    from ._external import external
    if selected is not None and v._node.shape != selected and \
            not _broadcastable(v._node.shape, selected):
        raise ValueError(f"__setitem__(): cannot assign a value of shape {v.shape} to the "
                         f"{_shown(selected)} elements selected by the index arrays: the value "
                         "must broadcast to that shape")
    if v._node.op is Op.SCALAR:  # external steps read buffers: a 0-d array, not a runtime scalar
        from ._external import leaf
        v = leaf(np.asarray(v._node.value, dtype=x.dtype.np))
    (out,) = external("scatter", _np_scatter, [x, v, *arrays], [(x.dtype, x._node.shape)],
                      (spec,))
    rebind(x, out._node)


# --------------------------------------------------------------------------- boolean masks

def _check_mask(x: Array, mask: Array) -> None:
    if mask.ndim > x.ndim:
        raise IndexError(f"a boolean index of rank {mask.ndim} is too many for an array of "
                         f"rank {x.ndim}")
    for i, (m, n) in enumerate(zip(mask._node.shape, x._node.shape)):
        if isinstance(m, int) and isinstance(n, int) and m not in (n, 0):
            raise IndexError(f"boolean index of shape {mask.shape} does not match the array's "
                             f"shape {x.shape} at axis {i}")


def _mask_getitem(x: Array, mask: Array) -> Array:
    """``x[mask]``: the mask is evaluated now (the output size is its number of True);
    ``x`` stays lazy and is gathered at the True positions in row-major order."""
    from ._external import concrete, leaf
    _check_mask(x, mask)
    (m,) = concrete([mask], "__getitem__", "with a boolean mask has an output shape that "
                    "depends on the mask's values")
    if mask.ndim == 0:  # adds an axis of size 1 (True) or 0 (False)
        return _basic_getitem(expand_dims(x, axis=0), (slice(0, int(bool(m))),))
    return gather(x, [leaf(i, dt.int64) for i in np.nonzero(m)])


def _mask_setitem(x: Array, mask: Array, v: Array) -> None:
    """``x[mask] = v``: a lazy ``where`` when ``v`` broadcasts to the trailing shape of the
    selected elements; a scatter (one value per selected element) otherwise."""
    from ._searching import where
    _check_mask(x, mask)
    rest = x._node.shape[mask.ndim:]
    if v.ndim > len(rest):
        _scatter(x, (("a",),), [mask], v)
        return
    cond = expand_dims(mask, axis=tuple(range(mask.ndim, x.ndim))) if rest else mask
    cond = broadcast_to(cond, x._node.shape)
    if v._node.op is not Op.SCALAR:
        v = broadcast_to(v, x._node.shape)
    rebind(x, where(cond, v, Array._new(x._node))._node)


# --------------------------------------------------------------------------- take

def take(x: Array, indices: Array, /, *, axis: Optional[int] = None) -> Array:
    """Elements of ``x`` at ``indices`` along ``axis`` (optional for a 1-d ``x``).

    Negative indices count from the end; an out-of-range index raises
    IndexError when the program runs.  n-d ``indices`` are accepted (their axes
    replace ``axis``, as in numpy).
    """
    check_array(x, "take")
    check_array(indices, "take", "indices")
    if indices.dtype not in dt.INTEGER:
        raise TypeError(f"take(): indices must have an integer dtype, got {indices.dtype}")
    if x.ndim == 0:
        raise ValueError("take(): x must have at least one dimension, got a 0-d array")
    if axis is None:
        if x.ndim != 1:
            raise ValueError(f"take(): axis is required for an array of rank {x.ndim}")
        axis = 0
    ax = normalize_axis(axis, x.ndim, "take")
    check_bounds(indices, x._node.shape[ax], ax, "take")
    out = gather(moveaxis(x, ax, 0), [indices], axes=[ax])
    k = indices.ndim
    order = list(range(k, k + ax)) + list(range(k)) + list(range(k + ax, out.ndim))
    return permute_dims(out, tuple(order))


def take_along_axis(x: Array, indices: Array, /, *, axis: int = -1) -> Array:
    """``out[..., j, ...] = x[..., indices[..., j, ...], ...]`` along ``axis``; the other
    axes of ``x`` and ``indices`` broadcast.  A native gather, like ``take``."""
    check_array(x, "take_along_axis")
    check_array(indices, "take_along_axis", "indices")
    if indices.dtype not in dt.INTEGER:
        raise TypeError(f"take_along_axis(): indices must have an integer dtype, "
                        f"got {indices.dtype}")
    if x.ndim == 0 or indices.ndim != x.ndim:
        raise ValueError(f"take_along_axis(): x and indices must have the same rank >= 1, got "
                         f"shapes {x.shape} and {indices.shape}")
    ax = normalize_axis(axis, x.ndim, "take_along_axis")
    check_bounds(indices, x._node.shape[ax], ax, "take_along_axis")
    sx, si = x._node.shape, indices._node.shape
    b = broadcast_shapes(sx[:ax] + (1,) + sx[ax + 1:], si[:ax] + (1,) + si[ax + 1:])
    xb = broadcast_to(x, b[:ax] + (sx[ax],) + b[ax + 1:])
    ib = broadcast_to(indices, b[:ax] + (si[ax],) + b[ax + 1:])
    others = tuple(b for b in range(x.ndim) if b != ax)
    return record(Op.GATHER, x.dtype, ib._node.shape, (xb._node, ib._node),
                  ((ax,), others, (ax,)))
