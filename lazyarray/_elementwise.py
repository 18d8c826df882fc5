"""Elementwise functions, generated from one table.

Each entry names the op, the dtype category the standard allows for its
inputs, and how the result dtype follows.  Inputs are promoted and broadcast
here and recorded as explicit casts and ``broadcast_to`` nodes, so the
backend never guesses.  Python scalars become runtime scalar arguments of
the kernel (never code constants), except a literal exponent 2 in ``pow``,
which is recorded as ``multiply(x, x)``.
"""
from __future__ import annotations

import builtins
from typing import Union

import numpy as np

from . import _dtypes as dt
from ._array_object import Array, _recorded, _ref, foreign_array_error, is_foreign_array, record
from ._memory import MAX_ELEMENTS
from ._manipulation import broadcast_shapes, broadcast_to, cast, check_array
from .backend import ir
from .backend.ir import NEVER as _NEVER, Node, Op
from .backend.ir import derived_signature as derived
from .backend.recorder import UNARY as UNARY_KIND

_object_new = object.__new__
_SCALAR = Op.SCALAR
_BROADCAST = Op.BROADCAST_TO

Scalar = Union[int, float, bool, complex]

# name: (op, input category, result: "same" | "bool" | "float" | "real")
# ("float": integers give float64; "real": complex gives the real dtype of its parts)
UNARY = {
    "abs": (Op.ABS, "numeric", "real"),
    "acos": (Op.ACOS, "floating", "same"),
    "acosh": (Op.ACOSH, "floating", "same"),
    "asin": (Op.ASIN, "floating", "same"),
    "asinh": (Op.ASINH, "floating", "same"),
    "atan": (Op.ATAN, "floating", "same"),
    "atanh": (Op.ATANH, "floating", "same"),
    "bitwise_invert": (Op.BITWISE_INVERT, "integer or boolean", "same"),
    "ceil": (Op.CEIL, "real numeric", "same"),
    "cos": (Op.COS, "floating", "same"),
    "cosh": (Op.COSH, "floating", "same"),
    "exp": (Op.EXP, "floating", "same"),
    "expm1": (Op.EXPM1, "floating", "same"),
    "floor": (Op.FLOOR, "real numeric", "same"),
    "isfinite": (Op.ISFINITE, "numeric", "bool"),
    "isinf": (Op.ISINF, "numeric", "bool"),
    "isnan": (Op.ISNAN, "numeric", "bool"),
    "log": (Op.LOG, "floating", "same"),
    "log1p": (Op.LOG1P, "floating", "same"),
    "log2": (Op.LOG2, "floating", "same"),
    "log10": (Op.LOG10, "floating", "same"),
    "logical_not": (Op.LOGICAL_NOT, "bool", "same"),
    "negative": (Op.NEGATIVE, "numeric", "same"),
    "round": (Op.ROUND, "numeric", "same"),
    "sign": (Op.SIGN, "numeric", "same"),
    "signbit": (Op.SIGNBIT, "real floating", "bool"),
    "sin": (Op.SIN, "floating", "same"),
    "sinh": (Op.SINH, "floating", "same"),
    "sqrt": (Op.SQRT, "floating", "same"),
    "tan": (Op.TAN, "floating", "same"),
    "tanh": (Op.TANH, "floating", "same"),
    "trunc": (Op.TRUNC, "real numeric", "same"),
}

BINARY = {
    "add": (Op.ADD, "numeric", "same"),
    "atan2": (Op.ATAN2, "real floating", "same"),
    "bitwise_and": (Op.BITWISE_AND, "integer or boolean", "same"),
    "bitwise_left_shift": (Op.BITWISE_LEFT_SHIFT, "integer", "same"),
    "bitwise_or": (Op.BITWISE_OR, "integer or boolean", "same"),
    "bitwise_right_shift": (Op.BITWISE_RIGHT_SHIFT, "integer", "same"),
    "bitwise_xor": (Op.BITWISE_XOR, "integer or boolean", "same"),
    "copysign": (Op.COPYSIGN, "real floating", "same"),
    "divide": (Op.DIVIDE, "numeric", "float"),
    "equal": (Op.EQUAL, "all", "bool"),
    "floor_divide": (Op.FLOOR_DIVIDE, "real numeric", "same"),
    "greater": (Op.GREATER, "real numeric", "bool"),
    "greater_equal": (Op.GREATER_EQUAL, "real numeric", "bool"),
    "hypot": (Op.HYPOT, "real floating", "same"),
    "less": (Op.LESS, "real numeric", "bool"),
    "less_equal": (Op.LESS_EQUAL, "real numeric", "bool"),
    "logaddexp": (Op.LOGADDEXP, "real floating", "same"),
    "logical_and": (Op.LOGICAL_AND, "bool", "same"),
    "logical_or": (Op.LOGICAL_OR, "bool", "same"),
    "logical_xor": (Op.LOGICAL_XOR, "bool", "same"),
    "maximum": (Op.MAXIMUM, "real numeric", "same"),
    "minimum": (Op.MINIMUM, "real numeric", "same"),
    "multiply": (Op.MULTIPLY, "numeric", "same"),
    "nextafter": (Op.NEXTAFTER, "real floating", "same"),
    "not_equal": (Op.NOT_EQUAL, "all", "bool"),
    "pow": (Op.POW, "numeric", "same"),
    "remainder": (Op.REMAINDER, "real numeric", "same"),
    "subtract": (Op.SUBTRACT, "numeric", "same"),
}


def _check_category(fname: str, category: str, dtype: dt.DType) -> None:
    if dtype not in dt.CATEGORIES[category]:
        if dtype in dt.COMPLEX_FLOATING:
            raise TypeError(f"{fname}() is not defined for complex dtypes ({category} input "
                            f"only), got {dtype}")
        raise TypeError(f"{fname}() needs {category} input, got dtype {dtype}")


_REAL_OF = {dt.complex64: dt.float32, dt.complex128: dt.float64}


def _result_dtype(kind: str, dtype: dt.DType) -> dt.DType:
    if kind == "bool":
        return dt.bool
    if kind == "float" and dtype not in dt.FLOATING:
        return dt.float64
    if kind == "real":
        return _REAL_OF.get(dtype, dtype)
    return dtype


def scalar_node(value: Scalar, dtype: dt.DType) -> Node:
    """A runtime scalar argument of ``dtype`` (its value never enters a cache key)."""
    if dtype in dt.INTEGER:
        if isinstance(value, float):
            raise TypeError(f"a Python float cannot be combined with an array of dtype {dtype}")
        info = np.iinfo(dtype.np)
        if not info.min <= value <= info.max:
            raise OverflowError(f"Python int {value} is out of bounds for {dtype}")
    elif isinstance(value, int) and dtype in dt.FLOATING:
        try:  # fail here, as numpy does, rather than when the program runs
            float(value)
        except OverflowError:
            raise OverflowError(f"a Python int of {value.bit_length()} bits is too large "
                                f"to convert to {dtype}") from None
    return Node(Op.SCALAR, dtype, (), (), None, value)


def _operands(fname: str, category: str, *xs) -> tuple:
    """Promote and broadcast operands; returns (nodes, common dtype, shape)."""
    arrays = [x for x in xs if isinstance(x, Array)]
    if not arrays:
        raise TypeError(f"{fname}() needs at least one lazyarray Array argument, got "
                        + ", ".join(type(x).__name__ for x in xs))
    for x in xs:
        if not isinstance(x, (Array, builtins.bool, int, float, complex)):
            if is_foreign_array(x):
                raise TypeError(foreign_array_error(f"{fname}()", x))
            raise TypeError(f"{fname}() expects lazyarray Arrays or Python scalars (bool, int, "
                            f"float, complex), got {type(x).__name__}")
    dtype = arrays[0]._node.dtype
    for a in arrays[1:]:
        if a._node.dtype is not dtype:
            dtype = dt.promote_types(dtype, a._node.dtype)
    if len(arrays) < len(xs):
        for x in xs:
            if not isinstance(x, Array):
                dtype = dt.scalar_dtype(x, dtype)
    _check_category(fname, category, dtype)
    shape = arrays[0]._node.shape
    if any(a._node.shape != shape for a in arrays[1:]):
        shape = broadcast_shapes(*(a._node.shape for a in arrays))
    nodes = []
    for x in xs:
        if isinstance(x, Array):
            if x._node.dtype is not dtype:
                x = cast(x, dtype)
            nodes.append(x._node if x._node.shape == shape else broadcast_to(x, shape)._node)
        else:
            nodes.append(scalar_node(x, dtype))
    return nodes, dtype, shape


# Fast paths: the common operands (one Array, or two of one dtype and shape, or an
# Array and a Python float or small int) are recorded with a table look-up; anything
# else (promotion, broadcasting, bad input and its errors) takes the general path.
# A result has its operands' shape, checked when they were recorded: no check here.

# Python ints that convert exactly to every floating dtype: no overflow check needed.
_EXACT_INT = 2 ** 53
# (min, max) of each integer dtype, for a Python int operand.
_INT_BOUNDS = {d: (int(np.iinfo(d.np).min), int(np.iinfo(d.np).max)) for d in dt.INTEGER}
_FLOATING = frozenset(dt.FLOATING)


def _results(category: str, result: str) -> dict:
    """The result dtype for each input dtype the fast path accepts."""
    ok = dt.CATEGORIES[category]
    if result == "float":  # integer input is cast first: the general path does that
        ok = [d for d in ok if d in dt.FLOATING]
    return {d: _result_dtype(result, d) for d in ok}


def _scalar_fast(value, dtype: dt.DType):
    """A scalar node for a Python float or int next to an array of ``dtype``, or None
    when the general rules (``scalar_dtype``, ``scalar_node``) must decide."""
    t = type(value)
    if t is float:
        if dtype in _FLOATING:
            return Node(_SCALAR, dtype, (), (), None, value)
    elif t is int:
        b = _INT_BOUNDS.get(dtype)
        if b is not None:
            if b[0] <= value <= b[1]:
                return Node(_SCALAR, dtype, (), (), None, value)
        elif dtype in _FLOATING and -_EXACT_INT <= value <= _EXACT_INT:
            return Node(_SCALAR, dtype, (), (), None, value)
    return None


def _broadcast_pair(n1: Node, n2: Node):
    """(n1, n2, shape): two nodes of concrete sizes broadcast to their common shape, the
    nodes the general path records (``broadcast_to``); None when a size is symbolic, the
    shapes do not broadcast, or the result is empty or too large (the general path
    decides, or raises)."""
    s1, s2 = n1.shape, n2.shape
    k = len(s1) - len(s2)
    a, b = (s1, (1,) * k + s2) if k >= 0 else ((1,) * -k + s1, s2)
    out = []
    n = 1
    for d, e in zip(a, b):
        if type(d) is not int or type(e) is not int:
            return None
        if d != e and e != 1:
            if d != 1:
                return None
            d = e
        out.append(d)
        n *= d
    if not 0 < n <= MAX_ELEMENTS:
        return None
    shape = tuple(out)
    if s1 != shape:
        n1 = Node(_BROADCAST, n1.dtype, shape, (n1,))
    if s2 != shape:
        n2 = Node(_BROADCAST, n2.dtype, shape, (n2,))
    return n1, n2, shape


def _make_unary(name: str, op: Op, category: str, result: str):
    results = _results(category, result)
    ids = ir.id_table()

    def fn(x: Array, /) -> Array:
        if type(x) is Array:
            node = x._node
            rd = results.get(node.dtype)
            if rd is not None:
                sig = node.sig  # the result follows from op and source: the id from those
                out = _object_new(Array)
                out._node = Node(op, rd, node.shape, (node,), None, None,
                                 sig and derived(ids, sig[0], sig))
                _recorded(_ref(out))
                return out
        _check_category(name, category, check_array(x, name).dtype)
        return record(op, _result_dtype(result, x.dtype), x._node.shape, (x._node,))
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Elementwise ``{name}`` (array API standard); input dtype: {category}."
    fn._recording = (op, results, ids, UNARY_KIND)  # its fast path, natively (_recording)
    return fn


def _make_binary(name: str, op: Op, category: str, result: str):
    results = _results(category, result)
    ids = ir.id_table()

    def fast(fallback):
        """The function with its fast path, calling ``fallback`` for anything else."""
        def fn(x1: Union[Array, Scalar], x2: Union[Array, Scalar], /) -> Array:
            # Fast path (inline: it runs for nearly every operator).
            if type(x1) is Array:
                n1 = x1._node
                d = n1.dtype
                shape = n1.shape
                if type(x2) is Array:
                    n2 = x2._node
                    if n2.dtype is not d:
                        n2 = None
                    elif n2.shape != shape:
                        pair = _broadcast_pair(n1, n2)
                        if pair is None:
                            n2 = None
                        else:
                            n1, n2, shape = pair
                elif type(x2) is float and d in _FLOATING:
                    n2 = Node(_SCALAR, d, (), (), None, x2)
                else:
                    n2 = _scalar_fast(x2, d)
            elif type(x2) is Array:
                n2 = x2._node
                d = n2.dtype
                shape = n2.shape
                n1 = _scalar_fast(x1, d)
            else:
                n1 = None
            if n1 is not None and n2 is not None:
                rd = results.get(d)
                if rd is not None:
                    # ir.signature, inline: the result follows from op and sources
                    sig, s2 = n1.sig, n2.sig
                    if sig is not None and s2 is not None:
                        k1, leaves, e = sig
                        k2, l2, e2 = s2
                        if l2 is not leaves:
                            leaves, where = ir.merge_leaves(leaves, l2)
                            k2 = (k2, where)
                        key = (k1, k2)
                        i = ids.get(key)
                        if i is None:
                            i = ir.new_id(ids, key)
                        if e2 < e:
                            e = e2
                        sig = (i, leaves, e if e != _NEVER else ir.EPOCH) if leaves else None
                    else:
                        sig = None
                    out = _object_new(Array)
                    out._node = Node(op, rd, shape, (n1, n2), None, None, sig)
                    _recorded(_ref(out))
                    return out
            return fallback(x1, x2)
        return fn

    def _general(x1, x2) -> Array:
        (n1, n2), dtype, shape = _operands(name, category, x1, x2)
        if result == "float" and dtype not in dt.FLOATING:
            # A Python scalar stays a runtime scalar of the new dtype: a cast of it would
            # be a 0-d operand without the broadcast the backend expects (a shared one,
            # e.g. in concat([x / 2, x / 2]), failed when the program was bound).
            dtype = dt.float64
            n1, n2 = (scalar_node(n.value, dtype) if n.op is Op.SCALAR
                      else cast(Array._new(n), dtype)._node for n in (n1, n2))
        return record(op, _result_dtype(result, dtype), shape, (n1, n2))
    fn = fast(_general)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Elementwise ``{name}`` (array API standard); input dtype: {category}."
    fn._operator = fast  # Array's operators: the same fast path, their own fallback
    fn._recording_binary = (op, results, ids)  # that fast path, natively (_recording)
    return fn


for _name, (_op, _cat, _res) in UNARY.items():
    globals()[_name] = _make_unary(_name, _op, _cat, _res)
for _name, (_op, _cat, _res) in BINARY.items():
    globals()[_name] = _make_binary(_name, _op, _cat, _res)

_pow_general = globals()["pow"]
_multiply = globals()["multiply"]


def pow(x1: Union[Array, Scalar], x2: Union[Array, Scalar], /) -> Array:  # noqa: A001
    """``x1 ** x2`` elementwise; a literal exponent 2 is recorded as ``multiply(x1, x1)``.

    Integer powers with negative exponents give 1 for a base of 1, +-1 for
    -1 and 0 otherwise (numpy raises; JAX gives the same as lazyarray).
    """
    if _squares(x1, x2):
        return _multiply(x1, x1)
    return _pow_general(x1, x2)


def _squares(x1, x2) -> bool:
    """Whether ``x1 ** x2`` is ``x1 * x1``: an Array to a literal power 2.  Not for
    complex 2+0j: that may promote the result to a complex dtype.  For a complex
    base, z*z is also what numpy's power computes for an exponent of 2."""
    if type(x2) in (int, float) and x2 == 2 and isinstance(x1, Array):
        d = x1._node.dtype
        return d in _FLOATING or (type(x2) is int and d in _NUMERIC)
    return False


_NUMERIC = frozenset(dt.NUMERIC)


def _pow_operator(fallback):
    """``pow._operator``: ``Array.__pow__`` with the literal-2 rule of ``pow``."""
    power, square = _pow_general._operator(fallback), _multiply._operator(fallback)

    def fn(x1, x2):  # x1 is the Array; _squares, inline
        t = type(x2)
        if (t is float or t is int) and x2 == 2:
            d = x1._node.dtype
            if d in _FLOATING or (t is int and d in _NUMERIC):
                return square(x1, x1)
        return power(x1, x2)
    return fn


pow._operator = _pow_operator


def positive(x: Array, /) -> Array:
    """Elementwise ``+x`` (the same values)."""
    _check_category("positive", "numeric", check_array(x, "positive").dtype)
    return Array._new(x._node)


def square(x: Array, /) -> Array:
    """Elementwise ``x * x``."""
    _check_category("square", "numeric", check_array(x, "square").dtype)
    return globals()["multiply"](x, x)


def reciprocal(x: Array, /) -> Array:
    """Elementwise ``1 / x``."""
    _check_category("reciprocal", "floating", check_array(x, "reciprocal").dtype)
    return globals()["divide"](1.0, x)


def real(x: Array, /) -> Array:
    """The real part: float32 for complex64, float64 for complex128; real input as is."""
    _check_category("real", "numeric", check_array(x, "real").dtype)
    if x.dtype in dt.COMPLEX_FLOATING:
        return record(Op.REAL, _REAL_OF[x.dtype], x._node.shape, (x._node,))
    return Array._new(x._node)


def imag(x: Array, /) -> Array:
    """The imaginary part of a complex array (float32 for complex64, float64 for complex128).

    Real input raises TypeError, as in array-api-strict (the standard asks for
    complex input).
    """
    _check_category("imag", "complex floating", check_array(x, "imag").dtype)
    return record(Op.IMAG, _REAL_OF[x.dtype], x._node.shape, (x._node,))


def conj(x: Array, /) -> Array:
    """The complex conjugate (the array itself for real dtypes)."""
    _check_category("conj", "numeric", check_array(x, "conj").dtype)
    if x.dtype in dt.COMPLEX_FLOATING:
        return record(Op.CONJ, x.dtype, x._node.shape, (x._node,))
    return Array._new(x._node)


def clip(x: Array, /, min: Union[Array, Scalar, None] = None,  # noqa: A002
         max: Union[Array, Scalar, None] = None) -> Array:  # noqa: A002
    """``x`` limited to ``[min, max]``: x's dtype, the broadcast shape of x and the bounds."""
    check_array(x, "clip")
    _check_category("clip", "real numeric", x.dtype)
    out = x
    for bound, fn in ((min, "maximum"), (max, "minimum")):
        if bound is None:
            continue
        if isinstance(bound, Array):
            if bound.dtype is not x.dtype:
                bound = cast(bound, dt.promote_types(x.dtype, bound.dtype))
            if bound.dtype is not x.dtype:
                raise TypeError(f"clip(): {fn[:3]} dtype {bound.dtype} does not match x's {x.dtype}")
        out = globals()[fn](out, bound)
    return out if out is not x else Array._new(x._node)


__all__ = sorted(list(UNARY) + list(BINARY) + ["positive", "square", "reciprocal", "real",
                                                "imag", "conj", "clip"])
