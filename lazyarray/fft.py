"""The array API ``fft`` extension (2025.12).

The transforms are recorded as external nodes: numpy's pocketfft runs
inside the compiled program, between native stages, and its results are
converted to the standard's dtypes (complex64 stays complex64, ``rfft`` of
float32 is complex64, ``irfft`` of complex64 is float32).  Output shapes are
recorded from the input shapes, so placeholders with symbolic sizes work.

``fftshift``/``ifftshift`` are native views (two slices joined by
``concat``) for concrete sizes; ``fftfreq``/``rfftfreq`` are creation
functions (data leaves).
"""
from __future__ import annotations

from typing import Literal, Optional, Sequence, Union

import numpy as np

from . import _dtypes as dt
from ._array_object import Array
from ._creation import asarray
from ._external import external
from ._manipulation import _check_device, check_array, concat, normalize_axis
from .backend.ir import Dim, DimLike, dim_prod, dim_sum

__all__ = ["fft", "ifft", "fftn", "ifftn", "rfft", "irfft", "rfftn", "irfftn", "hfft", "ihfft",
           "fftfreq", "rfftfreq", "fftshift", "ifftshift"]

Norm = Literal["backward", "ortho", "forward"]

_REAL_OF = {dt.complex64: dt.float32, dt.complex128: dt.float64}
_COMPLEX_OF = {dt.float32: dt.complex64, dt.float64: dt.complex128}


# --------------------------------------------------------------------------- sizes

def _half_plus_one(n: DimLike) -> DimLike:
    """``n // 2 + 1``: symbolically ``len(range(0, n + 1, 2))``."""
    if isinstance(n, int):
        return n // 2 + 1
    return Dim("slice", (dim_sum((n, 1)), None, None, 2))


def _hermitian_length(m: DimLike) -> DimLike:
    """``2 * (m - 1)``, the default real length of a half spectrum of ``m`` points."""
    return 2 * (m - 1) if isinstance(m, int) else dim_prod((2, dim_sum((m, -1))))


# --------------------------------------------------------------------------- checks

def _input(x: Array, fname: str, kind: str) -> Array:
    check_array(x, fname)
    allowed = dt.COMPLEX_FLOATING if kind == "complex" else dt.REAL_FLOATING
    if x.dtype not in allowed:
        hint = "astype(x, complex128)" if kind == "complex" else "real(x) or rfft's complex peers"
        raise TypeError(f"fft.{fname}() needs a {kind} floating-point array, got dtype "
                        f"{x.dtype}; convert first ({hint})")
    if x.ndim == 0:
        raise ValueError(f"fft.{fname}() needs an array with at least one dimension")
    return x


def _norm(norm: str, fname: str) -> str:
    if norm not in ("backward", "ortho", "forward"):
        raise ValueError(f"fft.{fname}(): norm must be 'backward', 'ortho' or 'forward', "
                         f"got {norm!r}")
    return norm


def _length(n, fname: str, what: str = "n") -> Optional[int]:
    if n is None:
        return None
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"fft.{fname}(): {what} must be a positive int, got {n!r}")
    return n


def _positive(size: DimLike, fname: str) -> DimLike:
    if isinstance(size, int) and size < 1:
        raise ValueError(f"fft.{fname}(): the transform length would be {size}; "
                         "pass n (or s) explicitly")
    return size


# --------------------------------------------------------------------------- numpy calls
# One module-level function per transform: an external's name and params
# must identify its function (cache keys hold them, not the function).

def _np_1d(fname: str):
    f = getattr(np.fft, fname)

    def call(a, n, axis, norm):
        return f(a, n=n, axis=axis, norm=norm)
    return call


def _np_nd(fname: str):
    f = getattr(np.fft, fname)

    def call(a, s, axes, norm):
        return f(a, s=None if s is None else list(s), axes=list(axes), norm=norm)
    return call


_NP = {name: _np_1d(name) for name in ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft")}
_NP.update({name: _np_nd(name) for name in ("fftn", "ifftn", "rfftn", "irfftn")})


# --------------------------------------------------------------------------- one axis

def _one_axis(fname: str, x: Array, n, axis: int, norm: str, kind: str) -> Array:
    """Record a 1-d transform; ``kind``: 'c2c', 'r2c' (half spectrum out), 'c2r' (real out)."""
    _input(x, fname, "real" if kind == "r2c" else "complex")
    n = _length(n, fname)
    ax = normalize_axis(axis, x.ndim, f"fft.{fname}")
    norm = _norm(norm, fname)
    m = x._node.shape[ax]
    if kind == "c2c":
        size, dtype = (m if n is None else n), x.dtype
    elif kind == "r2c":
        size, dtype = _half_plus_one(m if n is None else n), _COMPLEX_OF[x.dtype]
    else:
        size, dtype = (_hermitian_length(m) if n is None else n), _REAL_OF[x.dtype]
    shape = list(x._node.shape)
    shape[ax] = _positive(size, fname)
    (out,) = external(f"fft.{fname}", _NP[fname], [x], [(dtype, tuple(shape))], (n, ax, norm))
    return out


def fft(x: Array, /, *, n: Optional[int] = None, axis: int = -1, norm: Norm = "backward") -> Array:
    """One-dimensional discrete Fourier transform of complex ``x`` along ``axis``."""
    return _one_axis("fft", x, n, axis, norm, "c2c")


def ifft(x: Array, /, *, n: Optional[int] = None, axis: int = -1,
         norm: Norm = "backward") -> Array:
    """One-dimensional inverse discrete Fourier transform of complex ``x``."""
    return _one_axis("ifft", x, n, axis, norm, "c2c")


def rfft(x: Array, /, *, n: Optional[int] = None, axis: int = -1,
         norm: Norm = "backward") -> Array:
    """Fourier transform of real ``x``: the ``n // 2 + 1`` non-negative frequencies."""
    return _one_axis("rfft", x, n, axis, norm, "r2c")


def irfft(x: Array, /, *, n: Optional[int] = None, axis: int = -1,
          norm: Norm = "backward") -> Array:
    """Inverse of ``rfft``: ``n`` real points (default ``2 * (m - 1)``)."""
    return _one_axis("irfft", x, n, axis, norm, "c2r")


def hfft(x: Array, /, *, n: Optional[int] = None, axis: int = -1,
         norm: Norm = "backward") -> Array:
    """Transform of a Hermitian-symmetric signal given by its half: ``n`` real points."""
    return _one_axis("hfft", x, n, axis, norm, "c2r")


def ihfft(x: Array, /, *, n: Optional[int] = None, axis: int = -1,
          norm: Norm = "backward") -> Array:
    """Inverse of ``hfft``: the half spectrum (``n // 2 + 1`` points) of real ``x``."""
    return _one_axis("ihfft", x, n, axis, norm, "r2c")


# --------------------------------------------------------------------------- several axes

def _nd_args(fname: str, x: Array, s, axes) -> tuple:
    """(s as a tuple or None, normalised axes) with the standard's rules."""
    if axes is None:
        if s is not None:
            raise ValueError(f"fft.{fname}(): s needs axes (the standard requires axes "
                             "whenever s is given)")
        return None, tuple(range(x.ndim))
    if isinstance(axes, int):
        raise TypeError(f"fft.{fname}(): axes must be a sequence of ints, got an int")
    axes = tuple(normalize_axis(a, x.ndim, f"fft.{fname}") for a in axes)
    if s is None:
        return None, axes
    s = tuple(s)
    if len(s) != len(axes):
        raise ValueError(f"fft.{fname}(): s and axes must have the same length, got "
                         f"{len(s)} and {len(axes)}")
    for v in s:
        if v != -1:
            _length(v, fname, "each entry of s (or -1)")
    return s, axes


def _nd(fname: str, x: Array, s, axes, norm: str, kind: str) -> Array:
    """Record an n-d transform; output sizes follow numpy's order of 1-d passes."""
    _input(x, fname, "real" if kind == "r2c" else "complex")
    s, axes = _nd_args(fname, x, s, axes)
    norm = _norm(norm, fname)
    shape = list(x._node.shape)
    if s is None:
        sizes = [shape[a] for a in axes]
        if kind == "c2r" and axes:
            sizes[-1] = _hermitian_length(sizes[-1])
    else:  # -1: the input's size along that axis
        sizes = [shape[a] if v == -1 else v for v, a in zip(s, axes)]
    if not axes and kind != "c2c":
        raise ValueError(f"fft.{fname}() needs at least one axis")
    if kind == "c2c":
        for a, v in reversed(list(zip(axes, sizes))):
            shape[a] = v
        dtype = x.dtype
    elif kind == "r2c":
        shape[axes[-1]] = _half_plus_one(sizes[-1])
        for a, v in reversed(list(zip(axes[:-1], sizes[:-1]))):
            shape[a] = v
        dtype = _COMPLEX_OF[x.dtype]
    else:
        for a, v in zip(axes[:-1], sizes[:-1]):
            shape[a] = v
        shape[axes[-1]] = _positive(sizes[-1], fname)
        dtype = _REAL_OF[x.dtype]
    (out,) = external(f"fft.{fname}", _NP[fname], [x], [(dtype, tuple(shape))], (s, axes, norm))
    return out


def fftn(x: Array, /, *, s: Optional[Sequence[int]] = None, axes: Optional[Sequence[int]] = None,
         norm: Norm = "backward") -> Array:
    """n-dimensional discrete Fourier transform of complex ``x`` over ``axes`` (all by default)."""
    return _nd("fftn", x, s, axes, norm, "c2c")


def ifftn(x: Array, /, *, s: Optional[Sequence[int]] = None,
          axes: Optional[Sequence[int]] = None, norm: Norm = "backward") -> Array:
    """n-dimensional inverse discrete Fourier transform of complex ``x``."""
    return _nd("ifftn", x, s, axes, norm, "c2c")


def rfftn(x: Array, /, *, s: Optional[Sequence[int]] = None,
          axes: Optional[Sequence[int]] = None, norm: Norm = "backward") -> Array:
    """n-dimensional transform of real ``x``; the last axis keeps ``s[-1] // 2 + 1`` points."""
    return _nd("rfftn", x, s, axes, norm, "r2c")


def irfftn(x: Array, /, *, s: Optional[Sequence[int]] = None,
           axes: Optional[Sequence[int]] = None, norm: Norm = "backward") -> Array:
    """Inverse of ``rfftn``: real output (last axis ``2 * (m - 1)`` points by default)."""
    return _nd("irfftn", x, s, axes, norm, "c2r")


# --------------------------------------------------------------------------- frequencies

def _freq_dtype(dtype, fname: str) -> dt.DType:
    if dtype is None:
        return dt.float64
    dt.check_dtype(dtype)
    if dtype not in dt.REAL_FLOATING:
        raise ValueError(f"fft.{fname}(): dtype must be a real floating-point dtype, got {dtype}")
    return dtype


def fftfreq(n: int, /, *, d: float = 1.0, dtype: Optional[dt.DType] = None,
            device=None) -> Array:
    """Sample frequencies ``[0, 1, ..., -1] / (d * n)`` of an ``n``-point transform."""
    _check_device(device)
    n = _length(n, "fftfreq")
    return asarray(np.fft.fftfreq(n, d).astype(_freq_dtype(dtype, "fftfreq").np))


def rfftfreq(n: int, /, *, d: float = 1.0, dtype: Optional[dt.DType] = None,
             device=None) -> Array:
    """Sample frequencies ``[0, 1, ..., n // 2] / (d * n)`` of an ``n``-point ``rfft``."""
    _check_device(device)
    n = _length(n, "rfftfreq")
    return asarray(np.fft.rfftfreq(n, d).astype(_freq_dtype(dtype, "rfftfreq").np))


# --------------------------------------------------------------------------- shifts

def _shift_axes(x: Array, axes, fname: str) -> tuple:
    if axes is None:
        return tuple(range(x.ndim))
    if isinstance(axes, int):
        axes = (axes,)
    return tuple(normalize_axis(a, x.ndim, f"fft.{fname}") for a in axes)


def _roll(x: Array, ax: int, split: int) -> Array:
    """``x`` with the part from ``split`` on moved to the front of axis ``ax``."""
    head = (slice(None),) * ax
    return concat([x[head + (slice(split, None),)], x[head + (slice(None, split),)]], axis=ax)


def _shift(fname: str, x: Array, axes, inverse: bool) -> Array:
    check_array(x, fname)
    axes = _shift_axes(x, axes, fname)
    sizes = [x._node.shape[a] for a in axes]
    if not all(isinstance(v, int) for v in sizes):
        # The split point of a symbolic size is not a recordable slice bound.
        (out,) = external(f"fft.{fname}", getattr(np.fft, fname), [x],
                          [(x.dtype, x._node.shape)], (axes,))
        return out
    out = x
    for a, size in zip(axes, sizes):
        split = size // 2 if inverse else size - size // 2
        if 0 < split < size:
            out = _roll(out, a, split)
    return out if out is not x else Array._new(x._node)


def fftshift(x: Array, /, *, axes: Optional[Union[int, Sequence[int]]] = None) -> Array:
    """``x`` rolled by ``size // 2`` along ``axes`` (all by default): zero frequency centred."""
    return _shift("fftshift", x, axes, inverse=False)


def ifftshift(x: Array, /, *, axes: Optional[Union[int, Sequence[int]]] = None) -> Array:
    """Inverse of ``fftshift`` (differs from it for odd sizes)."""
    return _shift("ifftshift", x, axes, inverse=True)
