"""lazyarray: a lazy array library following the Python array API standard.

Operations record an expression graph; at a materialization point (``bool()``,
``float()``, ``numpy.asarray()``, printing, ``evaluate()``, a prepared
program's run) the graph is compiled to native code through LLVM and run.

>>> import lazyarray as xp
>>> x = xp.linspace(0, 2, 1000)
>>> round(float(xp.sum(xp.sin(x) * x**2)), 6)
1235.325872
"""
from __future__ import annotations

import math as _math
import os as _os

# Installed, the backend is the subpackage lazyarray.backend.  Run from a source
# checkout (e.g. `python -m lazyarray` in the repository root, which puts this
# folder ahead of the installed copy), it is the sibling folder backend/.
_here = _os.path.dirname(__file__)
if not _os.path.isdir(_os.path.join(_here, "backend")):
    _root = _os.path.dirname(_here)
    if _os.path.isfile(_os.path.join(_root, "backend", "ir.py")):
        __path__.append(_root)  # noqa: F821 - the package's own __path__
del _here

__version__ = "0.1.0"
__array_api_version__ = "2025.12"

# array object
from ._array_object import Array, Device

# constants
e = _math.e
pi = _math.pi
inf = float("inf")
nan = float("nan")
newaxis = None

# data types and data type functions
from ._dtypes import (bool, complex64, complex128, float32, float64, int8, int16, int32,
                      int64, uint8, uint16, uint32, uint64)
from ._dtypes import can_cast, finfo, iinfo, isdtype, result_type
from ._manipulation import astype, broadcast_arrays, broadcast_to

# creation functions
from ._creation import (arange, asarray, empty, empty_like, eye, from_dlpack, full, full_like,
                        linspace, meshgrid, ones, ones_like, tril, triu, zeros, zeros_like)

# elementwise functions
from ._elementwise import (abs, acos, acosh, add, asin, asinh, atan, atan2, atanh,
                           bitwise_and, bitwise_invert, bitwise_left_shift, bitwise_or,
                           bitwise_right_shift, bitwise_xor, ceil, clip, conj, copysign, cos,
                           cosh, divide, equal, exp, expm1, floor, floor_divide, greater,
                           greater_equal, hypot, imag, isfinite, isinf, isnan, less, less_equal,
                           log, log1p, log2, log10, logaddexp, logical_and, logical_not, logical_or,
                           logical_xor, maximum, minimum, multiply, negative, nextafter,
                           not_equal, positive, pow, real, reciprocal, remainder, round, sign,
                           signbit, sin, sinh, sqrt, square, subtract, tan, tanh, trunc)

# linear algebra functions
from ._linear_algebra import matmul, matrix_transpose, tensordot, vecdot

# manipulation functions
from ._manipulation import (broadcast_shapes, concat, expand_dims, flip, moveaxis, permute_dims,
                            repeat, reshape, roll, squeeze, stack, tile, unstack)

# indexing functions
from ._indexing import take, take_along_axis

# searching functions
from ._searching import argmax, argmin, count_nonzero, nonzero, searchsorted, where

# set functions
from ._set import isin, unique_all, unique_counts, unique_inverse, unique_values

# sorting functions
from ._sorting import argsort, sort

# statistical functions
from ._statistical import (cumulative_prod, cumulative_sum, max, mean, min, prod, std, sum,
                           var)

# utility functions
from ._utility import all, any, diff

# inspection
from ._info import __array_namespace_info__

# lazy programs
from ._errors import ConcretizationError
from ._program import (CacheInfo, Prepared, Program, compile, compile_cache_info, evaluate,
                       placeholder, trace)
from ._jit import JitFunction, jit
from ._graphviz import render, to_dot
from . import _diagnostics  # the compile log (LAZYARRAY_LOG=compile, logger "lazyarray")

# extensions (lazyarray.linalg, lazyarray.fft): imported on first use (``__getattr__``
# below), which keeps numpy.fft and their definitions out of the import
_EXTENSIONS = ("fft", "linalg")

from ._array_object import _install_operators

_install_operators()
del _install_operators, _os

__all__ = [
    "Array", "Device", "__array_api_version__", "__array_namespace_info__",
    # constants
    "e", "pi", "inf", "nan", "newaxis",
    # data types and data type functions
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float32", "float64", "complex64", "complex128",
    "astype", "broadcast_arrays", "broadcast_to", "can_cast", "finfo", "iinfo", "isdtype",
    "result_type",
    # creation
    "arange", "asarray", "empty", "empty_like", "eye", "from_dlpack", "full", "full_like",
    "linspace", "meshgrid", "ones", "ones_like", "tril", "triu", "zeros", "zeros_like",
    # elementwise
    "abs", "acos", "acosh", "add", "asin", "asinh", "atan", "atan2", "atanh", "bitwise_and",
    "bitwise_invert", "bitwise_left_shift", "bitwise_or", "bitwise_right_shift", "bitwise_xor",
    "ceil", "clip", "conj", "copysign", "cos", "cosh", "divide", "equal", "exp", "expm1",
    "floor", "floor_divide", "greater", "greater_equal", "hypot", "imag", "isfinite", "isinf",
    "isnan",
    "less", "less_equal", "log", "log1p", "log2", "log10", "logaddexp", "logical_and",
    "logical_not", "logical_or", "logical_xor", "maximum", "minimum", "multiply", "negative",
    "nextafter", "not_equal", "positive", "pow", "real", "reciprocal", "remainder", "round",
    "sign", "signbit", "sin", "sinh", "sqrt", "square", "subtract", "tan", "tanh", "trunc",
    # linear algebra
    "matmul", "matrix_transpose", "tensordot", "vecdot",
    # manipulation
    "broadcast_shapes", "concat", "expand_dims", "flip", "moveaxis", "permute_dims", "repeat",
    "reshape", "roll", "squeeze", "stack", "tile", "unstack",
    # indexing
    "take", "take_along_axis",
    # searching
    "argmax", "argmin", "count_nonzero", "nonzero", "searchsorted", "where",
    # set
    "isin", "unique_all", "unique_counts", "unique_inverse", "unique_values",
    # sorting
    "argsort", "sort",
    # statistical
    "cumulative_prod", "cumulative_sum", "max", "mean", "min", "prod", "std", "sum", "var",
    # utility
    "all", "any", "diff",
    # lazy programs
    "ConcretizationError", "CacheInfo", "JitFunction", "Prepared", "Program", "compile",
    "compile_cache_info", "evaluate", "jit", "placeholder", "trace", "to_dot", "render",
]
__all__ += ["fft", "linalg"]

from .backend import library as _library, native as _native  # noqa: E402
from . import _recording  # noqa: E402


def __getattr__(name: str):
    if name in _EXTENSIONS:
        import importlib
        return importlib.import_module(f"{__name__}.{name}")  # binds it here as well
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _later_work() -> None:
    # At a quiet moment after the preload (no program made for 50 ms; a process busy at
    # once does without): xp.linalg's import, which scikit-learn's and scipy's first calls
    # reach for (PCA, Ridge, LDA: 1-1.4 ms, 6 ms inside an LDA fit), and the planner's
    # warm-up (backend/warmup.py: a first fit's planning ran cold)
    _native.STORE.later(__getattr__, "linalg")
    _native.STORE.later(_warm_up)


def _warm_up() -> None:
    from .backend import warmup
    warmup.run()


_recording.start()  # native recording, loaded by the preload below
if _library.preloading():
    _library.AFTER_PRELOAD.append(_later_work)
_library.preload()  # building blocks from the disk cache, on a background thread


def __dir__() -> list:
    return sorted(set(globals()) | set(_EXTENSIONS))
