"""Creation functions. Arrays with a concrete shape made here are data leaves:
their values are computed now (by numpy) and enter compiled programs as
inputs, never as code constants.  ``*_like`` of an array with a symbolic
shape records a broadcast scalar instead.  ``meshgrid`` (broadcast views) and
``tril``/``triu`` (a ``where`` on row and column indices) record lazy nodes.
"""
from __future__ import annotations

import builtins
import math
import operator
from typing import Optional, Union

import numpy as np

from . import _dtypes as dt
from ._array_object import Array, data_leaf, is_symbolic
from ._manipulation import _check_device, astype, broadcast_to, check_array, expand_dims, size_arg
from ._memory import SMALL, check_allocation, check_shape

Shape = Union[int, tuple]


def _shape(shape: Shape, fname: str) -> tuple:
    if not isinstance(shape, (tuple, list)):
        if not hasattr(shape, "__index__") or isinstance(shape, (builtins.bool, np.bool_)):
            raise TypeError(f"{fname}(): shape must be an int or a tuple of ints, "
                            f"got {type(shape).__name__}")
        shape = (shape,)
    shape = tuple(size_arg(d, fname) for d in shape)
    for d in shape:
        if not isinstance(d, int):
            raise TypeError(f"{fname}(): shape entries must be ints, got {d!r}")
        if d < 0:
            raise ValueError(f"{fname}(): negative dimensions are not allowed, got {shape}")
    check_shape(shape, f"{fname}()")
    return shape


def _allocate(shape: tuple, dtype: dt.DType, fname: str) -> None:
    """Refuse, before numpy allocates, an array larger than any or than this machine's
    memory (numpy's own errors do not name the function, and overcommitted memory
    can fail only when written)."""
    check_shape(shape, f"{fname}()")
    check_allocation([(shape, dtype.np)], f"{fname}()")


def _leaf(value: np.ndarray) -> Array:
    value = np.asarray(value, order="C")  # ascontiguousarray would make 0-d 1-d
    if not value.dtype.isnative:
        value = value.astype(value.dtype.newbyteorder("="))
    if not value.flags.aligned:  # kernels load elements at their natural alignment
        value = value.copy()
    return data_leaf(value)


def _default_dtype(value, fname: str = "full", what: str = "fill_value") -> dt.DType:
    if isinstance(value, builtins.bool):
        return dt.bool
    if isinstance(value, int):
        return dt.int64
    if isinstance(value, float):
        return dt.float64
    if isinstance(value, complex):
        return dt.complex128
    raise TypeError(f"{fname}(): {what} must be a Python bool, int, float or complex, "
                    f"got {type(value).__name__}")


def _check_fill(value, dtype: dt.DType, fname: str) -> None:
    """A fill value the dtype can hold: the kind fits and an int is in range."""
    _default_dtype(value, fname)
    if isinstance(value, complex) and dtype not in dt.COMPLEX_FLOATING:
        raise TypeError(f"{fname}(): a complex fill_value needs a complex dtype, got {dtype}")
    if isinstance(value, float) and dtype not in dt.FLOATING:
        raise TypeError(f"{fname}(): a float fill_value needs a floating-point dtype, "
                        f"got {dtype}")
    if isinstance(value, int) and not isinstance(value, builtins.bool) and dtype in dt.INTEGER:
        info = np.iinfo(dtype.np)
        if not info.min <= value <= info.max:
            raise OverflowError(f"{fname}(): fill_value {value} is out of range for {dtype} "
                                f"[{info.min}, {info.max}]")


_EXPECTED = ("expected an Array, a numpy array, a DLPack producer, a buffer, a Python bool, "
             "int, float or complex, or nested lists/tuples of them")


def _np_from_nested(obj, dtype: Optional[dt.DType]) -> np.ndarray:
    if isinstance(obj, (str, bytes)):
        raise TypeError(f"asarray(): strings are not supported, got {obj!r}; {_EXPECTED}")
    if not isinstance(obj, (list, tuple, builtins.bool, int, float, complex)) \
            and not _array_like(obj):
        raise TypeError(f"asarray(): cannot make an array from a value of type "
                        f"{type(obj).__name__}; {_EXPECTED}")
    target = f"the dtype {dtype}" if dtype is not None else "int64"
    try:
        v = np.asarray(obj, dtype=dtype.np if dtype is not None else None)
    except OverflowError:
        raise OverflowError(f"asarray(): a Python int does not fit in {target}") from None
    except ValueError as e:
        if "inhomogeneous" in str(e):
            raise ValueError("asarray(): nested sequences must be rectangular (all lists at one "
                             f"depth of one length, no arrays among them), got a ragged one "
                             f"(numpy: {e})") from None
        raise ValueError(f"asarray(): cannot build an array from this object ({e})") from None
    except TypeError as e:
        raise TypeError(f"asarray(): cannot convert these values to {target} ({e})") from None
    if v.dtype == object or v.dtype.kind in "USVOMm":
        bad = _first_unsupported(obj)
        if bad is _NUMBERS_ONLY:  # so some ints exceed 64 bits
            raise OverflowError(f"asarray(): a Python int does not fit in {target} or uint64")
        raise TypeError(f"asarray(): unsupported element {bad!r} of type {type(bad).__name__}; "
                        f"{_EXPECTED}")
    if dtype is None and not _array_like(obj):
        # Python numbers take the default dtypes; buffers and array-likes keep theirs.
        if v.dtype.kind == "i":
            v = v.astype(np.int64)
        if v.dtype.kind == "f":
            v = v.astype(np.float64)
    return v


def _array_like(obj) -> builtins.bool:
    """numpy can read it as an array: the buffer protocol or numpy's array interfaces."""
    if hasattr(type(obj), "__array__") or hasattr(type(obj), "__array_interface__"):
        return True
    try:
        memoryview(obj)
    except TypeError:
        return False
    return True


_NUMBERS_ONLY = object()


def _first_unsupported(obj):
    """The first element of nested lists/tuples that is no number (``_NUMBERS_ONLY`` if
    all are)."""
    stack = [obj]
    while stack:
        o = stack.pop()
        if isinstance(o, (list, tuple)):
            stack.extend(reversed(o))
        elif not isinstance(o, (builtins.bool, int, float, complex, np.number, np.bool_)):
            return o
    return _NUMBERS_ONLY


_NATIVE = {d.np: d for d in dt.ALL_DTYPES}  # numpy's native dtypes -> lazyarray's


def asarray(obj, /, *, dtype: Optional[dt.DType] = None, device=None,
            copy: Optional[builtins.bool] = None) -> Array:
    """An array from an Array, a numpy array, a DLPack producer, a Python scalar or
    nested sequences of them.

    numpy arrays are shared, not copied, when ``copy`` is not True and no
    conversion is needed: later changes to that numpy array are seen by
    unevaluated results, as with numpy views.

    >>> import lazyarray as xp
    >>> xp.asarray([1, 2, 3]).dtype
    int64
    """
    if type(obj) is np.ndarray and dtype is None and copy is None and device is None:
        d = _NATIVE.get(obj.dtype)  # (a byte-swapped dtype is not equal to these)
        if d is not None and obj.flags.carray:  # C-contiguous and aligned, shared as it is
            return data_leaf(obj, d)
    _check_device(device)
    if dtype is not None:
        dt.check_dtype(dtype)
    if isinstance(obj, Array):
        if dtype is not None and dtype is not obj.dtype:
            if copy is False:
                raise ValueError("asarray(copy=False): a dtype change needs a copy")
            return astype(obj, dtype)
        # Without a copy the result is ``obj`` itself (as numpy does), so a later
        # ``obj[...] = v`` (which rebinds ``obj`` to a new node) is seen through it too.
        return Array._new(obj._node) if copy else obj
    if not isinstance(obj, np.ndarray) and hasattr(obj, "__dlpack__"):
        obj = np.from_dlpack(obj)
    if isinstance(obj, (np.ndarray, np.generic)):
        v = np.asarray(obj)
        dt.from_numpy(v.dtype)
        needs = (dtype is not None and v.dtype != dtype.np) or not v.flags.c_contiguous \
            or not v.dtype.isnative or not v.flags.aligned
        if copy is False and needs:
            raise ValueError("asarray(copy=False): the input needs a conversion, which copies")
        if dtype is not None:
            v = v.astype(dtype.np, copy=False)
        if copy:
            v = v.copy()
        return _leaf(v)
    if copy is False:
        raise ValueError("asarray(copy=False) cannot avoid a copy of Python objects")
    if isinstance(obj, (builtins.bool, int, float, complex)) and dtype is None:
        dtype = _default_dtype(obj)
    v = _np_from_nested(obj, dtype)
    dt.from_numpy(v.dtype)
    return _leaf(v)


def from_dlpack(x, /, *, device=None, copy: Optional[builtins.bool] = None) -> Array:
    """An array from any DLPack producer (zero-copy where the producer allows)."""
    _check_device(device)
    v = np.from_dlpack(x) if copy is None else np.from_dlpack(x, copy=copy)
    return asarray(v)


def _fill(shape: Shape, value, dtype, fname: str) -> Array:
    shape = _shape(shape, fname)
    if isinstance(value, Array):
        return _array_fill(shape, value, dtype, fname)
    if dtype is None:
        dtype = _default_dtype(value, fname)
    dt.check_dtype(dtype)
    _check_fill(value, dtype, fname)
    _allocate(shape, dtype, fname)
    return _leaf(np.full(shape, value, dtype=dtype.np))


def _array_fill(shape: tuple, value: Array, dtype, fname: str) -> Array:
    """``full(shape, a)`` for a 0-d Array ``a``, as numpy takes it (scipy passes
    ``xp.asarray(code)``): ``a`` cast to ``dtype`` (default ``a``'s) and broadcast, lazily,
    so ``a`` may be a placeholder's result."""
    if value.ndim != 0:
        raise TypeError(f"{fname}(): an Array fill_value must be 0-d, got shape {value.shape}")
    dtype = value.dtype if dtype is None else dt.check_dtype(dtype)
    return broadcast_to(astype(value, dtype), shape)


def _quick_shape(shape):
    """``shape`` as a tuple when it is a Python int or a tuple of them making an array
    too small for the size and memory checks to matter (``SMALL`` bytes at 16 bytes an
    element); else None, for the general path and its errors."""
    if type(shape) is int:
        return (shape,) if 0 <= shape < _QUICK_ELEMENTS else None
    if type(shape) is not tuple:
        return None
    n = 1
    for d in shape:
        if type(d) is not int or d < 0:
            return None
        n *= d
    return shape if n < _QUICK_ELEMENTS else None


_QUICK_ELEMENTS = SMALL // 16
_DTYPES = frozenset(dt.ALL_DTYPES)


def _quick_fill(shape, value: int, dtype, device):
    """zeros/ones of a quick shape and a lazyarray dtype (0 and 1 fit every dtype)."""
    if device is None and (dtype is None or dtype in _DTYPES):
        s = _quick_shape(shape)
        if s is not None:
            d = dtype or dt.float64  # (numpy's zeros: 0.16 us, full: 1.3)
            return data_leaf((np.zeros if value == 0 else np.ones)(s, dtype=d.np), d)
    return None


def zeros(shape: Shape, *, dtype: Optional[dt.DType] = None, device=None) -> Array:
    """An array of zeros (default dtype float64)."""
    out = _quick_fill(shape, 0, dtype, device)
    return _zeros(shape, dtype, device) if out is None else out


def _zeros(shape: Shape, dtype, device) -> Array:
    _check_device(device)
    return _fill(shape, 0, dtype or dt.float64, "zeros")


def ones(shape: Shape, *, dtype: Optional[dt.DType] = None, device=None) -> Array:
    """An array of ones (default dtype float64)."""
    out = _quick_fill(shape, 1, dtype, device)
    return _ones(shape, dtype, device) if out is None else out


def _ones(shape: Shape, dtype, device) -> Array:
    _check_device(device)
    return _fill(shape, 1, dtype or dt.float64, "ones")


def empty(shape: Shape, *, dtype: Optional[dt.DType] = None, device=None) -> Array:
    """An array of the given shape (lazyarray fills it with zeros)."""
    _check_device(device)
    return _fill(shape, 0, dtype or dt.float64, "empty")


def full(shape: Shape, fill_value, *, dtype: Optional[dt.DType] = None, device=None) -> Array:
    """An array filled with ``fill_value`` (dtype from the value when not given)."""
    _check_device(device)
    return _fill(shape, fill_value, dtype, "full")


def _like(x: Array, value, dtype, device, fname: str) -> Array:
    if not isinstance(x, Array):
        raise TypeError(f"{fname}() expects a lazyarray Array, got {type(x).__name__}")
    _check_device(device)
    dtype = x.dtype if dtype is None else dt.check_dtype(dtype)
    if isinstance(value, Array):
        return _array_fill(x._node.shape, value, dtype, fname)
    _check_fill(value, dtype, fname)
    if is_symbolic(x._node.shape):
        from ._elementwise import scalar_node
        return broadcast_to(Array._new(scalar_node(value, dtype)), x._node.shape)
    return _fill(x.shape, value, dtype, fname)


def zeros_like(x: Array, /, *, dtype: Optional[dt.DType] = None, device=None) -> Array:
    """Zeros with ``x``'s shape (and dtype unless given)."""
    return _like(x, 0, dtype, device, "zeros_like")


def ones_like(x: Array, /, *, dtype: Optional[dt.DType] = None, device=None) -> Array:
    """Ones with ``x``'s shape (and dtype unless given)."""
    return _like(x, 1, dtype, device, "ones_like")


def empty_like(x: Array, /, *, dtype: Optional[dt.DType] = None, device=None) -> Array:
    """An array with ``x``'s shape (and dtype unless given), filled with zeros."""
    return _like(x, 0, dtype, device, "empty_like")


def full_like(x: Array, /, fill_value, *, dtype: Optional[dt.DType] = None,
              device=None) -> Array:
    """``fill_value`` with ``x``'s shape (and dtype unless given)."""
    return _like(x, fill_value, dtype, device, "full_like")


def arange(start, /, stop=None, step=1, *, dtype: Optional[dt.DType] = None,
           device=None) -> Array:
    """Evenly spaced values in ``[start, stop)``."""
    _check_device(device)
    if stop is None:
        start, stop = 0, start
    start, stop, step = (_number(v, name) for name, v in
                         (("start", start), ("stop", stop), ("step", step)))
    if step == 0:
        raise ValueError("arange(): step must not be zero")
    if dtype is None:
        ints = all(isinstance(v, int) for v in (start, stop, step))
        dtype = dt.int64 if ints else dt.float64
    dt.check_dtype(dtype)
    if all(math.isfinite(v) for v in (start, stop, step)):
        count = (stop - start) / step
        if not math.isfinite(count):
            raise ValueError(f"arange(): ({stop} - {start}) / {step} elements are more than any "
                             "array can have (2**63 - 1)")
        _allocate((max(0, math.ceil(count)),), dtype, "arange")
    return _leaf(np.arange(start, stop, step, dtype=dtype.np))


def _number(v, name: str):
    """An arange() bound as a Python int or float: numpy scalars and 0-d arrays (through
    ``__index__``, else ``__float__``) as numpy and array-api-strict take them."""
    if isinstance(v, (int, float)):
        return v
    if not isinstance(v, (np.bool_, str, bytes, complex)):
        for convert in (operator.index, float):  # a 0-d float array refuses the first,
            try:                                 # a complex one both
                return convert(v)
            except TypeError:
                pass
    raise TypeError(f"arange(): {name} must be a Python int or float, got {type(v).__name__}")


def linspace(start, stop, /, num: int, *, dtype: Optional[dt.DType] = None, device=None,
             endpoint: builtins.bool = True) -> Array:
    """``num`` evenly spaced values from ``start`` to ``stop``."""
    _check_device(device)
    if not isinstance(num, int) or isinstance(num, builtins.bool) or num < 0:
        raise ValueError(f"linspace(): num must be a non-negative int, got {num!r}")
    is_complex = isinstance(start, complex) or isinstance(stop, complex)
    if dtype is None:
        dtype = dt.complex128 if is_complex else dt.float64
    dt.check_dtype(dtype)
    if is_complex and dtype not in dt.COMPLEX_FLOATING:
        raise TypeError(f"linspace(): complex start/stop need a complex dtype, got {dtype}")
    _allocate((num,), dtype, "linspace")
    return _leaf(np.linspace(start, stop, num, endpoint=endpoint, dtype=dtype.np))


def eye(n_rows: int, n_cols: Optional[int] = None, /, *, k: int = 0,
        dtype: Optional[dt.DType] = None, device=None) -> Array:
    """Ones on the ``k``-th diagonal, zeros elsewhere."""
    _check_device(device)
    _shape((n_rows,) if n_cols is None else (n_rows, n_cols), "eye")
    if isinstance(k, builtins.bool) or not isinstance(k, int):
        raise TypeError(f"eye(): k must be an int, got {type(k).__name__}")
    dtype = dt.check_dtype(dtype) if dtype is not None else dt.float64
    _allocate((n_rows, n_rows if n_cols is None else n_cols), dtype, "eye")
    return _leaf(np.eye(n_rows, n_cols, k=k, dtype=dtype.np))


def meshgrid(*arrays: Array, indexing: str = "xy") -> tuple:
    """Coordinate arrays from 1-d coordinate vectors: each is a broadcast view of one
    input (``'xy'`` swaps the first two output axes, ``'ij'`` keeps the input order).

    >>> import lazyarray as xp
    >>> [g.shape for g in xp.meshgrid(xp.asarray([1, 2, 3]), xp.asarray([4, 5]))]
    [(2, 3), (2, 3)]
    """
    if indexing not in ("xy", "ij"):
        raise ValueError(f"meshgrid(): indexing must be 'xy' or 'ij', got {indexing!r}")
    for i, a in enumerate(arrays):
        check_array(a, "meshgrid", f"arrays[{i}]")
        if a.ndim != 1:
            raise ValueError(f"meshgrid(): arrays must be one-dimensional, arrays[{i}] has "
                             f"shape {a.shape}")
    n = len(arrays)
    pos = list(range(n))
    if indexing == "xy" and n > 1:
        pos[0], pos[1] = 1, 0
    shape = [None] * n
    for p, a in zip(pos, arrays):
        shape[p] = a._node.shape[0]
    shape = tuple(shape)
    return tuple(broadcast_to(expand_dims(a, axis=tuple(j for j in range(n) if j != p)), shape)
                 for p, a in zip(pos, arrays))


def index_vector(x: Array, axis: int) -> Array:
    """``arange(x.shape[axis])`` as int64: a data leaf for a concrete size.

    For a symbolic size it is a numpy step reading ``x``'s shape when the
    program runs (interim, until the backend can generate indices natively).
    """
    n = x._node.shape[axis]
    if isinstance(n, int):
        return _leaf(np.arange(n, dtype=np.int64))
    from ._external import external
    (out,) = external("index_vector", _np_index_vector, [x], [(dt.int64, (n,))], (axis,))
    return out


def _np_index_vector(v: np.ndarray, axis: int) -> np.ndarray:
    return np.arange(v.shape[axis], dtype=np.int64)


def _triangle(x: Array, k: int, lower: builtins.bool, fname: str) -> Array:
    """``x`` with the elements off the triangle (``col - row <= k`` or ``>= k``) zeroed."""
    from ._elementwise import greater_equal, less_equal, subtract
    from ._searching import where
    check_array(x, fname)
    if x.ndim < 2:
        raise ValueError(f"{fname}(): x must have at least two dimensions, got shape {x.shape}")
    if not isinstance(k, int) or isinstance(k, builtins.bool):
        raise TypeError(f"{fname}(): k must be an int, got {type(k).__name__}")
    rows = expand_dims(index_vector(x, x.ndim - 2), axis=1)
    offset = subtract(index_vector(x, x.ndim - 1), rows)  # col - row, shape (M, N)
    keep = less_equal(offset, k) if lower else greater_equal(offset, k)
    zero = False if x.dtype is dt.bool else 0
    return where(keep, x, zero)


def tril(x: Array, /, *, k: int = 0) -> Array:
    """The lower triangle of the matrices in ``x`` (on and below diagonal ``k``); the rest is 0."""
    return _triangle(x, k, True, "tril")


def triu(x: Array, /, *, k: int = 0) -> Array:
    """The upper triangle of the matrices in ``x`` (on and above diagonal ``k``); the rest is 0."""
    return _triangle(x, k, False, "triu")
