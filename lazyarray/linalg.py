"""The array API ``linalg`` extension (2025.12).

Decompositions and solvers (cholesky, qr, svd, svdvals, eigh, eigvalsh,
eig, eigvals, inv, solve, det, slogdet, pinv, matrix_rank, matrix_power and
the 2 / -2 / 'nuc' matrix norms) are recorded as external nodes: numpy's
LAPACK calls run inside the compiled program, between native stages, so
the graph around them stays lazy.  Everything else is native lazyarray ops:
norms are elementwise ops fused with reductions, ``diagonal`` and ``trace``
are views, ``cross`` and ``outer`` broadcast elementwise products.

Output shapes are recorded from the input shapes, so placeholders with
symbolic sizes work, except where a size would be ``min(M, N)`` of two
different symbolic sizes (reduced ``qr``/``svd``, ``svdvals``, the diagonal
of a non-square matrix): the IR has no ``min`` size, so those raise
ValueError on such placeholders.
"""
from __future__ import annotations

import math
from typing import Literal, NamedTuple, Optional, Union

import numpy as np

from . import _dtypes as dt
from ._array_object import Array
from ._elementwise import abs as _abs, not_equal, pow as _pow, scalar_node, sqrt
from ._external import external, leaf
from ._linear_algebra import matmul, matrix_transpose, tensordot, vecdot
from ._manipulation import (astype, broadcast_shapes, broadcast_to, cast, check_array, concat,
                            expand_dims, normalize_axes, reshape, squeeze, stack)
from ._statistical import max as _max, min as _min, sum as _sum
from .backend.ir import DimLike, dim_assert_equal, dim_prod, dim_sum

__all__ = [
    "cholesky", "cross", "det", "diagonal", "eig", "eigh", "eigvals", "eigvalsh", "inv",
    "matmul", "matrix_norm", "matrix_power", "matrix_rank", "matrix_transpose", "outer",
    "pinv", "qr", "slogdet", "solve", "svd", "svdvals", "tensordot", "trace", "vecdot",
    "vector_norm",
    "EigResult", "EighResult", "QRResult", "SlogdetResult", "SVDResult",
]


class EighResult(NamedTuple):
    """eigh(): real eigenvalues (ascending) and eigenvectors (columns)."""

    eigenvalues: Array
    eigenvectors: Array


class EigResult(NamedTuple):
    """eig(): complex eigenvalues and eigenvectors (columns)."""

    eigenvalues: Array
    eigenvectors: Array


class QRResult(NamedTuple):
    """qr(): Q with orthonormal columns and upper-triangular R."""

    Q: Array
    R: Array


class SlogdetResult(NamedTuple):
    """slogdet(): sign and log of the absolute value of the determinant."""

    sign: Array
    logabsdet: Array


class SVDResult(NamedTuple):
    """svd(): U, singular values S (descending) and Vh."""

    U: Array
    S: Array
    Vh: Array


_REAL_OF = {dt.complex64: dt.float32, dt.complex128: dt.float64}
_COMPLEX_OF = {dt.float32: dt.complex64, dt.float64: dt.complex128}


def _real(d: dt.DType) -> dt.DType:
    return _REAL_OF.get(d, d)


# --------------------------------------------------------------------------- checks

def _floating(x: Array, fname: str) -> Array:
    check_array(x, fname)
    if x.dtype not in dt.FLOATING:
        raise TypeError(f"{fname}() needs a floating-point array, got dtype {x.dtype}; "
                        "convert with astype() first")
    return x


def _matrices(x: Array, fname: str) -> tuple:
    """(batch shape, M, N) of a stack of matrices."""
    if x.ndim < 2:
        raise ValueError(f"{fname}() needs an array of shape (..., M, N), got {x.ndim} "
                         f"dimension(s)")
    s = x._node.shape
    return s[:-2], s[-2], s[-1]


def _square(x: Array, fname: str) -> tuple:
    """(batch shape, M) of a stack of square matrices (symbolic sizes checked when bound)."""
    batch, m, n = _matrices(x, fname)
    if isinstance(m, int) and isinstance(n, int) and m != n:
        raise ValueError(f"{fname}() needs square matrices, got shape {x.shape}")
    return batch, dim_assert_equal(m, m, n)


def _min_dim(m: DimLike, n: DimLike, fname: str) -> DimLike:
    """``min(m, n)`` when it can be recorded (equal sizes or two concrete ones)."""
    if m == n:
        return m
    if isinstance(m, int) and isinstance(n, int):
        return min(m, n)
    raise ValueError(f"{fname}(): the size min({m!r}, {n!r}) of symbolic sizes cannot be "
                     "recorded; use concrete sizes or one name for both in the placeholder")


def _promoted_floating(fname: str, x1: Array, x2: Array) -> tuple:
    _floating(x1, fname)
    _floating(x2, fname)
    d = dt.promote_types(x1.dtype, x2.dtype)
    return cast(x1, d), cast(x2, d)


# --------------------------------------------------------------------------- numpy calls
# Module-level functions: an external's name and params must identify its
# function (cache keys hold them, not the function).

def _np_cholesky(a, upper):
    return np.linalg.cholesky(a, upper=upper)


def _np_eig(a, cdtype):
    w, v = np.linalg.eig(a)  # real results when every eigenvalue is real
    return w.astype(cdtype, copy=False), v.astype(cdtype, copy=False)


def _np_eigvals(a, cdtype):
    return np.linalg.eigvals(a).astype(cdtype, copy=False)


def _np_qr(a, mode):
    return np.linalg.qr(a, mode=mode)  # a namedtuple: outputs index it


def _np_svd(a, full_matrices):
    return np.linalg.svd(a, full_matrices=full_matrices)


def _np_matrix_norm(a, ord):
    return np.linalg.matrix_norm(a, ord=ord)


def _np_pinv(a):
    return np.linalg.pinv(a, rtol=None)  # rtol=None: the standard's default tolerance


def _np_pinv_rtol(a, rtol):
    return np.linalg.pinv(a, rtol=rtol)


def _np_matrix_rank(a):
    return np.linalg.matrix_rank(a, rtol=None)


def _np_matrix_rank_rtol(a, rtol):
    return np.linalg.matrix_rank(a, rtol=rtol)


def _np_matrix_power(a, n):
    return np.linalg.matrix_power(a, n)


# --------------------------------------------------------------------------- decompositions

def cholesky(x: Array, /, *, upper: bool = False) -> Array:
    """Cholesky factor of Hermitian positive-definite matrices: lower (``L L^H``) or upper."""
    _floating(x, "cholesky")
    batch, m = _square(x, "cholesky")
    (out,) = external("linalg.cholesky", _np_cholesky, [x],
                      [(x.dtype, batch + (m, m))], (bool(upper),))
    return out


def det(x: Array, /) -> Array:
    """Determinants of square matrices, shape ``x.shape[:-2]``."""
    _floating(x, "det")
    batch, _ = _square(x, "det")
    (out,) = external("linalg.det", np.linalg.det, [x], [(x.dtype, batch)])
    return out


def slogdet(x: Array, /) -> SlogdetResult:
    """Sign (dtype of ``x``) and log of the absolute value (real dtype) of determinants."""
    _floating(x, "slogdet")
    batch, _ = _square(x, "slogdet")
    sign, logabs = external("linalg.slogdet", np.linalg.slogdet, [x],
                            [(x.dtype, batch), (_real(x.dtype), batch)])
    return SlogdetResult(sign, logabs)


def eigh(x: Array, /) -> EighResult:
    """Eigenvalues (ascending, real dtype) and eigenvectors of Hermitian matrices."""
    _floating(x, "eigh")
    batch, m = _square(x, "eigh")
    w, v = external("linalg.eigh", np.linalg.eigh, [x],
                    [(_real(x.dtype), batch + (m,)), (x.dtype, batch + (m, m))])
    return EighResult(w, v)


def eigvalsh(x: Array, /) -> Array:
    """Eigenvalues (ascending, real dtype) of Hermitian matrices."""
    _floating(x, "eigvalsh")
    batch, m = _square(x, "eigvalsh")
    (out,) = external("linalg.eigvalsh", np.linalg.eigvalsh, [x], [(_real(x.dtype), batch + (m,))])
    return out


def eig(x: Array, /) -> EigResult:
    """Eigenvalues and eigenvectors of general square matrices, always complex
    (complex64 for float32/complex64 input, complex128 otherwise)."""
    _floating(x, "eig")
    batch, m = _square(x, "eig")
    c = _COMPLEX_OF.get(x.dtype, x.dtype)
    w, v = external("linalg.eig", _np_eig, [x],
                    [(c, batch + (m,)), (c, batch + (m, m))], (c.name,))
    return EigResult(w, v)


def eigvals(x: Array, /) -> Array:
    """Eigenvalues of general square matrices, always complex (see ``eig``)."""
    _floating(x, "eigvals")
    batch, m = _square(x, "eigvals")
    c = _COMPLEX_OF.get(x.dtype, x.dtype)
    (out,) = external("linalg.eigvals", _np_eigvals, [x], [(c, batch + (m,))], (c.name,))
    return out


def inv(x: Array, /) -> Array:
    """Inverses of square matrices (numpy raises LinAlgError for a singular one)."""
    _floating(x, "inv")
    batch, m = _square(x, "inv")
    (out,) = external("linalg.inv", np.linalg.inv, [x], [(x.dtype, batch + (m, m))])
    return out


def solve(x1: Array, x2: Array, /) -> Array:
    """Solution ``X`` of ``x1 @ X = x2``; a 1-d ``x2`` is one right-hand-side vector."""
    a, b = _promoted_floating("solve", x1, x2)
    batch, m = _square(a, "solve")
    if b.ndim == 0:
        raise ValueError("solve(): x2 must have shape (M,) or (..., M, K), got a 0-d array")
    sb = b._node.shape
    rows = sb[-1] if b.ndim == 1 else sb[-2]
    if isinstance(rows, int) and isinstance(m, int) and rows != m:
        raise ValueError(f"solve(): x1 has shape {x1.shape}, so x2 needs {m} rows; "
                         f"got shape {x2.shape}")
    m = dim_assert_equal(m, m, rows)
    if b.ndim == 1:
        shape = batch + (m,)
    else:
        shape = broadcast_shapes(batch, sb[:-2]) + (m, sb[-1])
    (out,) = external("linalg.solve", np.linalg.solve, [a, b], [(a.dtype, shape)])
    return out


def qr(x: Array, /, *, mode: Literal["reduced", "complete"] = "reduced") -> QRResult:
    """QR decomposition: ``Q`` with orthonormal columns, upper-triangular ``R``."""
    _floating(x, "qr")
    batch, m, n = _matrices(x, "qr")
    if mode == "reduced":
        k = _min_dim(m, n, "qr")
        shapes = (batch + (m, k), batch + (k, n))
    elif mode == "complete":
        shapes = (batch + (m, m), batch + (m, n))
    else:
        raise ValueError(f"qr(): mode must be 'reduced' or 'complete', got {mode!r}")
    q, r = external("linalg.qr", _np_qr, [x], [(x.dtype, shapes[0]), (x.dtype, shapes[1])],
                    (mode,))
    return QRResult(q, r)


def svd(x: Array, /, *, full_matrices: bool = True) -> SVDResult:
    """Singular value decomposition ``x = U @ diag(S) @ Vh``; ``S`` descending, real dtype."""
    _floating(x, "svd")
    batch, m, n = _matrices(x, "svd")
    k = _min_dim(m, n, "svd")
    full = bool(full_matrices)
    u_shape = batch + ((m, m) if full else (m, k))
    vh_shape = batch + ((n, n) if full else (k, n))
    u, s, vh = external("linalg.svd", _np_svd, [x],
                        [(x.dtype, u_shape), (_real(x.dtype), batch + (k,)), (x.dtype, vh_shape)],
                        (full,))
    return SVDResult(u, s, vh)


def svdvals(x: Array, /) -> Array:
    """Singular values, descending, with the real dtype of ``x``'s precision."""
    _floating(x, "svdvals")
    batch, m, n = _matrices(x, "svdvals")
    k = _min_dim(m, n, "svdvals")
    (out,) = external("linalg.svdvals", np.linalg.svdvals, [x], [(_real(x.dtype), batch + (k,))])
    return out


def _rtol_input(x: Array, rtol, batch: tuple, fname: str) -> Array:
    """``rtol`` as an array input broadcast to the batch shape (values never enter cache keys)."""
    real = _real(x.dtype)
    if isinstance(rtol, Array):
        if rtol.dtype not in dt.REAL_FLOATING:
            raise TypeError(f"{fname}(): rtol must have a real floating-point dtype, "
                            f"got {rtol.dtype}")
        return broadcast_to(rtol, batch)
    if isinstance(rtol, bool) or not isinstance(rtol, (int, float)):
        raise TypeError(f"{fname}(): rtol must be None, a float or an array, "
                        f"got {type(rtol).__name__}")
    return leaf(np.asarray(rtol, dtype=real.np))  # a data input: its value is no code constant


def _with_rtol(fname: str, x: Array, rtol, batch: tuple, out: tuple, fns: tuple) -> Array:
    """Record ``fns[0]`` (numpy's default rtol), or ``fns[1]`` with ``rtol`` as a second
    input, producing one array of ``out = (dtype, shape)``."""
    if rtol is None:
        (res,) = external(f"linalg.{fname}", fns[0], [x], [out])
    else:
        r = _rtol_input(x, rtol, batch, fname)
        (res,) = external(f"linalg.{fname}_rtol", fns[1], [x, r], [out])
    return res


def pinv(x: Array, /, *, rtol: Optional[Union[float, Array]] = None) -> Array:
    """Moore-Penrose pseudo-inverses, shape ``(..., N, M)``; singular values at most
    ``rtol * largest`` count as zero (default ``max(M, N) * eps``)."""
    _floating(x, "pinv")
    batch, m, n = _matrices(x, "pinv")
    return _with_rtol("pinv", x, rtol, batch, (x.dtype, batch + (n, m)),
                      (_np_pinv, _np_pinv_rtol))


def matrix_rank(x: Array, /, *, rtol: Optional[Union[float, Array]] = None) -> Array:
    """Number of singular values above ``rtol * largest`` (default ``max(M, N) * eps``),
    int64, shape ``x.shape[:-2]``."""
    _floating(x, "matrix_rank")
    batch, _, _ = _matrices(x, "matrix_rank")
    return _with_rtol("matrix_rank", x, rtol, batch, (dt.int64, batch),
                      (_np_matrix_rank, _np_matrix_rank_rtol))


def matrix_power(x: Array, n: int, /) -> Array:
    """``x`` raised to the integer power ``n`` (identity for 0, powers of the inverse below 0)."""
    _floating(x, "matrix_power")
    batch, m = _square(x, "matrix_power")
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(f"matrix_power(): n must be an int, got {type(n).__name__}")
    (out,) = external("linalg.matrix_power", _np_matrix_power, [x], [(x.dtype, batch + (m, m))],
                      (n,))
    return out


# --------------------------------------------------------------------------- norms

def _abs_squared(x: Array) -> Array:
    a = _abs(x) if x.dtype in dt.COMPLEX_FLOATING else x
    return a * a


def _check_ord(ord, fname: str, strings: tuple = ()) -> None:
    if ord in strings and isinstance(ord, str):
        return
    if isinstance(ord, bool) or not isinstance(ord, (int, float)):
        raise TypeError(f"{fname}(): ord must be a number{' or one of ' if strings else ''}"
                        f"{', '.join(map(repr, strings))}, got {ord!r}")
    if math.isnan(ord):
        raise ValueError(f"{fname}(): ord must not be NaN")


def vector_norm(x: Array, /, *, axis: Optional[Union[int, tuple]] = None,
                keepdims: bool = False, ord: Union[int, float] = 2) -> Array:
    """Vector p-norms over ``axis`` (all axes by default), with the real dtype of ``x``.

    ``ord``: any p (``sum(|x|**p)**(1/p)``), ``inf``/``-inf`` (max/min of ``|x|``)
    and 0 (the number of non-zero elements).
    """
    _floating(x, "vector_norm")
    _check_ord(ord, "vector_norm")
    axes = normalize_axes(axis, x.ndim, "vector_norm")
    kw = {"axis": axes, "keepdims": keepdims}
    if ord == 2:
        return sqrt(_sum(_abs_squared(x), **kw))
    if ord == 0:
        return _sum(astype(not_equal(x, 0), _real(x.dtype)), **kw)
    a = _abs(x)
    if ord == math.inf:
        return _max(a, **kw)
    if ord == -math.inf:
        return _min(a, **kw)
    if ord == 1:
        return _sum(a, **kw)
    return _pow(_sum(_pow(a, float(ord)), **kw), 1.0 / ord)


def matrix_norm(x: Array, /, *, keepdims: bool = False,
                ord: Optional[Union[int, float, str]] = "fro") -> Array:
    """Matrix norms over the last two axes, with the real dtype of ``x``.

    ``ord``: 'fro', 'nuc', 1 / -1 (max / min column sum of ``|x|``), inf / -inf
    (max / min row sum), 2 / -2 (largest / smallest singular value).
    """
    _floating(x, "matrix_norm")
    batch, _, _ = _matrices(x, "matrix_norm")
    _check_ord(ord, "matrix_norm", ("fro", "nuc"))
    nd = x.ndim
    if ord == "fro":
        return sqrt(_sum(_abs_squared(x), axis=(nd - 2, nd - 1), keepdims=keepdims))
    if ord in (1, -1, math.inf, -math.inf):
        # 1: columns sum over rows (axis -2), then max over columns; inf: the transpose.
        summed, picked = (nd - 2, nd - 1) if abs(ord) == 1 else (nd - 1, nd - 2)
        s = _sum(_abs(x), axis=summed, keepdims=True)
        r = (_max if ord > 0 else _min)(s, axis=picked, keepdims=True)
        return r if keepdims else squeeze(r, axis=(nd - 2, nd - 1))
    if ord in (2, -2, "nuc"):
        (r,) = external("linalg.matrix_norm", _np_matrix_norm, [x], [(_real(x.dtype), batch)],
                        (ord if ord == "nuc" else int(ord),))
        return expand_dims(r, axis=(nd - 2, nd - 1)) if keepdims else r
    raise ValueError(f"matrix_norm(): ord must be 'fro', 'nuc', 1, -1, 2, -2, inf or -inf, "
                     f"got {ord!r}")


# --------------------------------------------------------------------------- views and products

def _zeros(dtype: dt.DType, shape: tuple) -> Array:
    """A broadcast scalar zero (no buffer; works for symbolic shapes)."""
    zero = False if dtype is dt.bool else 0
    return broadcast_to(Array._new(scalar_node(zero, dtype)), shape)


def _diagonal_length(m: int, n: int, offset: int) -> int:
    if offset >= 0:
        return max(0, min(m, n - offset))
    return max(0, min(m + offset, n))


def diagonal(x: Array, /, *, offset: int = 0) -> Array:
    """The ``offset`` diagonal of each matrix (a view), shape ``(..., k)``.

    Concrete sizes: a strided view of the flattened matrix (a non-contiguous
    ``x`` is materialised by the reshape).  Symbolic square matrices: the
    matrix padded by one zero per row, reshaped to rows of ``M + 1``, column 0.
    """
    check_array(x, "diagonal")
    if isinstance(offset, bool) or not isinstance(offset, int):
        raise TypeError(f"diagonal(): offset must be an int, got {type(offset).__name__}")
    batch, m, n = _matrices(x, "diagonal")
    if isinstance(m, int) and isinstance(n, int):
        k = _diagonal_length(m, n, offset)
        flat = reshape(x, batch + (m * n,))
        if k == 0:
            return flat[..., :0]
        start = offset if offset >= 0 else -offset * n
        return flat[..., start:start + (k - 1) * (n + 1) + 1:n + 1]
    if m != n:
        _min_dim(m, n, "diagonal")  # raises: the length would be min(m, n)
    if offset > 0:
        x = x[..., :-offset, offset:]
    elif offset < 0:
        x = x[..., -offset:, :offset]
    rows, cols = x._node.shape[-2:]  # equal sizes (a square matrix's corner)
    flat = reshape(x, batch + (dim_prod((rows, cols)),))
    padded = concat([flat, _zeros(x.dtype, batch + (rows,))], axis=-1)
    return reshape(padded, batch + (rows, dim_sum((cols, 1))))[..., 0]


def trace(x: Array, /, *, offset: int = 0, dtype: Optional[dt.DType] = None) -> Array:
    """Sums of the ``offset`` diagonal; integer accumulation follows ``sum``'s rules."""
    check_array(x, "trace")
    if x.dtype not in dt.NUMERIC:
        raise TypeError(f"trace() needs a numeric array, got dtype {x.dtype}")
    return _sum(diagonal(x, offset=offset), axis=-1, dtype=dtype)


def outer(x1: Array, x2: Array, /) -> Array:
    """Outer product of two vectors, shape ``(len(x1), len(x2))``."""
    for name, v in (("x1", x1), ("x2", x2)):
        check_array(v, "outer", name)
        if v.ndim != 1:
            raise ValueError(f"outer() needs 1-d arrays, got {name} with shape {v.shape}")
        if v.dtype not in dt.NUMERIC:
            raise TypeError(f"outer() needs numeric arrays, got {name} with dtype {v.dtype}")
    return expand_dims(x1, axis=1) * expand_dims(x2, axis=0)


def cross(x1: Array, x2: Array, /, *, axis: int = -1) -> Array:
    """Cross products of 3-element vectors along ``axis`` (other axes broadcast)."""
    for name, v in (("x1", x1), ("x2", x2)):
        check_array(v, "cross", name)
        if v.dtype not in dt.NUMERIC:
            raise TypeError(f"cross() needs numeric arrays, got {name} with dtype {v.dtype}")
    if isinstance(axis, bool) or not isinstance(axis, int):
        raise TypeError(f"cross(): axis must be an int, got {type(axis).__name__}")
    nd = min(x1.ndim, x2.ndim)
    if not -nd <= axis <= -1:
        raise ValueError(f"cross(): axis must be in [-{nd}, -1] (counted from the end), "
                         f"got {axis}")
    for name, v in (("x1", x1), ("x2", x2)):
        if v._node.shape[axis] != 3:
            raise ValueError(f"cross(): {name} must have (concrete) size 3 along axis {axis}, "
                             f"got shape {v.symbolic_shape}")
    dtype = dt.promote_types(x1.dtype, x2.dtype)
    a, b = cast(x1, dtype), cast(x2, dtype)
    rest = (slice(None),) * (-1 - axis)
    a0, a1, a2 = (a[(Ellipsis, i) + rest] for i in range(3))
    b0, b1, b2 = (b[(Ellipsis, i) + rest] for i in range(3))
    return stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=axis)
