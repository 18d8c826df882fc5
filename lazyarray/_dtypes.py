"""Data types, the standard's promotion table, result_type, can_cast, finfo/iinfo, isdtype.

The dtype objects are the backend's scalar types, so the front end records
them directly in the graph.  Promotion follows the array API standard: only
pairs the standard defines promote; mixing kinds (bool with numbers, integers
with floating point) raises TypeError, as in array-api-strict.
"""
from __future__ import annotations

import builtins
from typing import Union

import numpy as np

from .backend.ir import BY_NUMPY, SCALAR_TYPES, ScalarType

DType = ScalarType

bool = SCALAR_TYPES["bool"]  # noqa: A001 - the standard's name
int8, int16, int32, int64 = (SCALAR_TYPES[f"int{b}"] for b in (8, 16, 32, 64))
uint8, uint16, uint32, uint64 = (SCALAR_TYPES[f"uint{b}"] for b in (8, 16, 32, 64))
float32, float64 = SCALAR_TYPES["float32"], SCALAR_TYPES["float64"]
complex64, complex128 = SCALAR_TYPES["complex64"], SCALAR_TYPES["complex128"]

ALL_DTYPES = tuple(SCALAR_TYPES.values())
SIGNED = (int8, int16, int32, int64)
UNSIGNED = (uint8, uint16, uint32, uint64)
INTEGER = SIGNED + UNSIGNED
REAL_FLOATING = (float32, float64)
COMPLEX_FLOATING = (complex64, complex128)
FLOATING = REAL_FLOATING + COMPLEX_FLOATING
NUMERIC = INTEGER + FLOATING
REAL_NUMERIC = INTEGER + REAL_FLOATING

# Dtype categories named in the standard's function signatures.
CATEGORIES = {
    "bool": (bool,),
    "signed integer": SIGNED,
    "unsigned integer": UNSIGNED,
    "integral": INTEGER,
    "integer": INTEGER,
    "integer or boolean": INTEGER + (bool,),
    "real floating": REAL_FLOATING,
    "complex floating": COMPLEX_FLOATING,
    "floating": FLOATING,
    "real numeric": REAL_NUMERIC,
    "numeric": NUMERIC,
    "all": ALL_DTYPES,
}

_i8, _i16, _i32, _i64 = SIGNED
_u8, _u16, _u32, _u64 = UNSIGNED
_f32, _f64, _c64, _c128 = float32, float64, complex64, complex128

# The standard's promotion table, one entry per unordered pair.
_PROMOTION = {
    (bool, bool): bool,
    (_i8, _i8): _i8, (_i8, _i16): _i16, (_i8, _i32): _i32, (_i8, _i64): _i64,
    (_i16, _i16): _i16, (_i16, _i32): _i32, (_i16, _i64): _i64,
    (_i32, _i32): _i32, (_i32, _i64): _i64, (_i64, _i64): _i64,
    (_u8, _u8): _u8, (_u8, _u16): _u16, (_u8, _u32): _u32, (_u8, _u64): _u64,
    (_u16, _u16): _u16, (_u16, _u32): _u32, (_u16, _u64): _u64,
    (_u32, _u32): _u32, (_u32, _u64): _u64, (_u64, _u64): _u64,
    (_i8, _u8): _i16, (_i8, _u16): _i32, (_i8, _u32): _i64,
    (_i16, _u8): _i16, (_i16, _u16): _i32, (_i16, _u32): _i64,
    (_i32, _u8): _i32, (_i32, _u16): _i32, (_i32, _u32): _i64,
    (_i64, _u8): _i64, (_i64, _u16): _i64, (_i64, _u32): _i64,
    (_f32, _f32): _f32, (_f32, _f64): _f64, (_f64, _f64): _f64,
    (_c64, _c64): _c64, (_c64, _c128): _c128, (_c128, _c128): _c128,
    (_f32, _c64): _c64, (_f32, _c128): _c128, (_f64, _c64): _c128, (_f64, _c128): _c128,
}
_PROMOTION.update({(b, a): r for (a, b), r in list(_PROMOTION.items())})


def promote_types(a: DType, b: DType) -> DType:
    """The standard's promotion of two dtypes; TypeError where it defines none."""
    r = _PROMOTION.get((a, b))
    if r is None:
        raise TypeError(f"{a} and {b} cannot be type promoted together "
                        "(the array API standard defines no promotion between these kinds)")
    return r


def is_dtype(x: object) -> bool:
    return isinstance(x, ScalarType)


def check_dtype(dtype: object, what: str = "dtype") -> DType:
    """``dtype`` if it is one of lazyarray's dtypes, else TypeError."""
    if not isinstance(dtype, ScalarType):
        raise TypeError(f"{what} must be a lazyarray dtype (e.g. lazyarray.float64), got {dtype!r}")
    return dtype


def from_numpy(dt: np.dtype) -> DType:
    """The lazyarray dtype of a numpy dtype; TypeError for unsupported ones."""
    t = BY_NUMPY.get(dt)
    if t is not None:
        return t
    t = BY_NUMPY.get(np.dtype(dt).newbyteorder("="))
    if t is None:
        raise TypeError(f"unsupported dtype {np.dtype(dt)}: lazyarray supports "
                        + ", ".join(d.name for d in ALL_DTYPES))
    return t


class _Info:
    """A frozen record of a dtype's limits: fields by name, equal when the fields are.
    (Plain classes: a dataclass costs 0.2-0.5 ms of the import each.)"""

    __slots__ = ()

    def __init__(self, *values) -> None:
        for name, v in zip(self.__slots__, values, strict=True):
            object.__setattr__(self, name, v)

    def __setattr__(self, name, value) -> None:
        raise AttributeError(f"{type(self).__name__} is read-only")

    def _fields(self) -> tuple:
        return tuple(getattr(self, n) for n in self.__slots__)

    def __eq__(self, other) -> bool:
        return type(other) is type(self) and other._fields() == self._fields()

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        inner = ", ".join(f"{n}={getattr(self, n)!r}" for n in self.__slots__)
        return f"{type(self).__name__}({inner})"


class finfo_object(_Info):
    """Machine limits of a floating-point dtype (the standard's ``finfo`` fields)."""

    __slots__ = ("bits", "eps", "max", "min", "smallest_normal", "dtype")


class iinfo_object(_Info):
    """Machine limits of an integer dtype (the standard's ``iinfo`` fields)."""

    __slots__ = ("bits", "max", "min", "dtype")


def _dtype_of(x) -> DType:
    from ._array_object import Array
    if isinstance(x, Array):
        return x.dtype
    return check_dtype(x)


def finfo(type: Union[DType, "Array"], /) -> finfo_object:  # noqa: A002, F821
    """Limits of a floating-point dtype. Example: ``finfo(float32).eps``."""
    dt = _dtype_of(type)
    if dt not in FLOATING:
        raise ValueError(f"finfo needs a floating-point dtype, got {dt}")
    f = np.finfo(dt.np)
    real = {complex64: float32, complex128: float64}.get(dt, dt)
    return finfo_object(f.bits, float(f.eps), float(f.max), float(f.min),
                        float(f.smallest_normal), real)


def iinfo(type: Union[DType, "Array"], /) -> iinfo_object:  # noqa: A002, F821
    """Limits of an integer dtype. Example: ``iinfo(int8).min == -128``."""
    dt = _dtype_of(type)
    if dt not in INTEGER:
        raise ValueError(f"iinfo needs an integer dtype, got {dt}")
    i = np.iinfo(dt.np)
    return iinfo_object(i.bits, int(i.max), int(i.min), dt)


def result_type(*arrays_and_dtypes) -> DType:
    """The dtype the standard's promotion rules give for these arrays, dtypes and scalars."""
    from ._array_object import Array
    dts = [a.dtype if isinstance(a, Array) else a for a in arrays_and_dtypes
           if isinstance(a, (Array, ScalarType))]
    scalars = [a for a in arrays_and_dtypes if not isinstance(a, (Array, ScalarType))]
    if not dts:
        if not scalars:
            raise ValueError("result_type needs at least one array or dtype")
        # ValueError, as numpy and array-api-strict raise it (scipy catches that one)
        raise ValueError("result_type needs at least one array or dtype besides Python scalars")
    r = dts[0]
    for d in dts[1:]:
        r = promote_types(r, d)
    for s in scalars:
        r = scalar_dtype(s, r)
    return r


def scalar_dtype(value: object, dt: DType) -> DType:
    """The dtype a Python scalar takes next to an array of ``dt`` (the standard's rules)."""
    if isinstance(value, builtins.bool):
        if dt is not bool:
            raise TypeError(f"a Python bool cannot be combined with an array of dtype {dt}")
        return dt
    if isinstance(value, int):
        if dt is bool:
            raise TypeError("a Python int cannot be combined with a bool array")
        return dt
    if isinstance(value, float):
        if dt in REAL_FLOATING or dt in COMPLEX_FLOATING:
            return dt
        raise TypeError(f"a Python float cannot be combined with an array of dtype {dt}")
    if isinstance(value, complex):
        if dt in COMPLEX_FLOATING:
            return dt
        if dt in REAL_FLOATING:
            return complex64 if dt is float32 else complex128
        raise TypeError(f"a Python complex cannot be combined with an array of dtype {dt}")
    raise TypeError(f"expected an array or a Python scalar, got {type(value).__name__}")


def can_cast(from_: Union[DType, "Array"], to: DType, /) -> bool:  # noqa: F821
    """True when ``from_`` promotes to ``to`` under the standard's rules."""
    f, t = _dtype_of(from_), check_dtype(to, "to")
    try:
        return promote_types(f, t) is t
    except TypeError:
        return False


_KIND_NAMES = {
    "bool": (bool,), "signed integer": SIGNED, "unsigned integer": UNSIGNED,
    "integral": INTEGER, "real floating": REAL_FLOATING, "complex floating": COMPLEX_FLOATING,
    "numeric": NUMERIC,
}


def isdtype(dtype: DType, kind) -> builtins.bool:
    """Whether ``dtype`` is of ``kind`` (a dtype, a kind name, or a tuple of them)."""
    check_dtype(dtype)
    if isinstance(kind, tuple):
        return any(isdtype(dtype, k) for k in kind)
    if isinstance(kind, ScalarType):
        return dtype is kind
    if isinstance(kind, str):
        if kind not in _KIND_NAMES:
            raise ValueError(f"unknown dtype kind {kind!r}; expected one of {sorted(_KIND_NAMES)}")
        return dtype in _KIND_NAMES[kind]
    raise TypeError(f"kind must be a dtype, a string or a tuple of them, got {kind!r}")

