"""The Array object: attributes, operators and materialization points.

An Array wraps one graph node.  Operators record new nodes; nothing is
computed until a materialization point (``bool()``, ``int()``, ``float()``,
``complex()``, ``operator.index()``, ``numpy.asarray()``, ``__dlpack__``,
``repr()``/``str()``, ``tolist()``, ``lazyarray.evaluate``).
"""
from __future__ import annotations

import builtins
import weakref
from typing import Any, Optional

import numpy as np

from . import _dtypes as dt
from ._memory import MAX_ELEMENTS, check_shape
from .backend.ir import NEVER, Dim, Node, Op, signature as ir_signature
from .backend.recorder import BINARY, REFLECTED
from ._live import RECENT

_recorded, _ref = RECENT.append, weakref.ref  # (see _live: siblings)

_object_new = object.__new__

CPU_DEVICE = "cpu"


class Device:
    """The one device lazyarray computes on: the host CPU."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "Device('cpu')"

    def __eq__(self, other: object) -> builtins.bool:
        return isinstance(other, Device) or other == CPU_DEVICE

    def __hash__(self) -> int:
        return hash("cpu")


CPU = Device()


class Array:
    """A lazy n-dimensional array. Create one with ``asarray`` or another creation
    function (a data leaf) or with ``placeholder`` (an input without a value).

    >>> import lazyarray as xp
    >>> y = xp.sum(xp.asarray([1.0, 2.0]) * 3)   # recorded, not computed
    >>> float(y)                                  # computed here
    9.0
    """

    # _view_of and _views link a basic-index view and its base (see _views.py); unset on
    # other arrays.  No __getattr__: numpy.asarray probes __array_struct__ and
    # __array_interface__ first, and a miss through a Python __getattr__ cost about 1 us
    # each (a miss of the slots alone costs nothing).
    __slots__ = ("_node", "_view_of", "_views", "__weakref__")

    def __init__(self, *args, **kwargs) -> None:
        raise TypeError("Array cannot be constructed directly: use lazyarray.asarray(), another "
                        "creation function, or lazyarray.placeholder()")

    @staticmethod
    def _new(node: Node) -> "Array":
        obj = _object_new(Array)  # not Array(): that raises, for users
        obj._node = node
        if node.value is None:
            _recorded(_ref(obj))
        return obj

    # ------------------------------------------------------------------ attributes
    @property
    def dtype(self) -> dt.DType:
        return self._node.dtype

    @property
    def shape(self) -> tuple:
        """The shape; symbolic (placeholder-named) sizes are ``None``."""
        return tuple(d if type(d) is int else None for d in self._node.shape)

    @property
    def symbolic_shape(self) -> tuple:
        """The shape with symbolic sizes as their names or expressions."""
        return self._node.shape

    @property
    def ndim(self) -> int:
        return len(self._node.shape)

    @property
    def size(self) -> Optional[int]:
        n = 1
        for d in self.shape:
            if d is None:
                return None
            n *= d
        return n

    @property
    def device(self) -> Device:
        return CPU

    @property
    def T(self) -> "Array":
        node = self._node
        if len(node.shape) != 2:
            raise ValueError(f"x.T needs a 2-d array, got {self.ndim}-d; use permute_dims or mT")
        return _track_permuted(self, (1, 0), record(Op.PERMUTE_DIMS, node.dtype,
                                                    node.shape[::-1], (node,), (1, 0)))

    @property
    def mT(self) -> "Array":
        from ._linear_algebra import matrix_transpose
        return matrix_transpose(self)

    @property
    def attached_value(self) -> Optional[np.ndarray]:
        """The value of a data leaf (read-only numpy array); None for anything unevaluated."""
        v = self._node.value
        if v is None or self._node.op is Op.SCALAR:
            return None
        ro = v.view()
        ro.flags.writeable = False
        return ro

    @property
    def is_placeholder(self) -> builtins.bool:
        return self._node.op is Op.PLACEHOLDER

    def __array_namespace__(self, /, *, api_version: Optional[str] = None):
        if api_version not in (None, "2023.12", "2024.12", "2025.12"):
            raise ValueError(f"unsupported array API version {api_version!r}; "
                             "lazyarray implements 2023.12, 2024.12 and 2025.12")
        import lazyarray
        return lazyarray

    def to_device(self, device, /, *, stream=None) -> "Array":
        if stream is not None:
            raise ValueError("lazyarray has no streams; stream must be None")
        if device != CPU:
            raise ValueError(f"unsupported device {device!r}; lazyarray runs on 'cpu' only")
        return self

    # ------------------------------------------------------------------ materialization
    def _value(self, what: str) -> np.ndarray:
        return _materialize()([self], what)[0]

    def _scalar(self, what: str):
        """The value of a 0-d array (a 0-d numpy array, or a scalar leaf's number)."""
        n = self._node
        if n.shape:
            raise TypeError(f"{what} needs a 0-d array, got shape {self.shape}")
        v = n.value
        if v is None or n.op is Op.SCALAR:
            n = None  # (materialize tells a node only its Array holds by its references)
            v = (_materialize_fn or _materialize())([self], what)[0]
        return v

    def __bool__(self) -> builtins.bool:
        return builtins.bool(self._scalar("bool()"))

    def __int__(self) -> int:
        if self._node.dtype in dt.COMPLEX_FLOATING:
            raise TypeError("int() of a complex array is not defined")
        return int(self._scalar("int()"))

    def __float__(self) -> float:
        n = self._node  # a computed 0-d array (a prepared program's loss): at once
        v = n.value
        if type(v) is np.ndarray and not v.shape and n.dtype not in dt.COMPLEX_FLOATING:
            return float(v)
        if n.dtype in dt.COMPLEX_FLOATING:
            raise TypeError("float() of a complex array is not defined; use real() first")
        n = None  # (see _scalar)
        return float(self._scalar("float()"))

    def __complex__(self) -> complex:
        return complex(self._scalar("complex()"))

    def __index__(self) -> int:
        if self.dtype not in dt.INTEGER:
            raise TypeError(f"only integer arrays can be used as an index, got dtype {self.dtype}")
        return int(self._scalar("operator.index()"))

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        v = self._node.value  # a data leaf's or a computed array's: at once
        if type(v) is not np.ndarray:
            v = self._value("numpy.asarray()")
        if dtype is not None and np.dtype(dtype) != v.dtype:
            if copy is False:
                raise ValueError("a dtype conversion needs a copy, but copy=False was given")
            return v.astype(dtype)
        if copy:
            return v.copy()
        ro = v.view()
        ro.flags.writeable = False
        return ro

    def tolist(self) -> Any:
        """The values as nested Python lists (a Python scalar for a 0-d array)."""
        return self._value("tolist()").tolist()

    def __dlpack__(self, /, *, stream=None, max_version=None, dl_device=None, copy=None):
        if stream is not None:
            raise BufferError("lazyarray has no streams; stream must be None")
        value = self._value("__dlpack__()")
        v = self._read_only(value)
        if max_version is None or max_version[0] < 1:
            # DLPack before 1.0 cannot mark an export read-only: hand out a copy, so the
            # consumer cannot change this array's value; with copy=False (a promise of no
            # copy, which the standard lets the consumer ask for) share the value itself,
            # as numpy does with its own arrays.
            v = value if copy is False else v.copy()
        kwargs = {}
        if max_version is not None:
            kwargs["max_version"] = max_version
        if dl_device is not None:
            kwargs["dl_device"] = dl_device
        if copy is not None:
            kwargs["copy"] = copy
        return v.__dlpack__(**kwargs)

    def __buffer__(self, flags: int, /) -> memoryview:
        """The buffer protocol (Python 3.12+, PEP 688): ``memoryview(x)``,
        ``bytes(x)``, ``numpy.frombuffer(x)`` see the values, read-only, without a copy."""
        return memoryview(self._read_only(self._value("memoryview()")))

    @staticmethod
    def _read_only(v: np.ndarray) -> np.ndarray:
        ro = v.view()
        ro.flags.writeable = False
        return ro

    def __dlpack_device__(self) -> tuple:
        return (1, 0)  # kDLCPU, device 0

    def __repr__(self) -> str:
        from ._program import placeholders_of
        names = placeholders_of([self._node])
        if names:
            shape = "(" + ", ".join(map(repr, self._node.shape)) + ("," if self.ndim == 1 else "") + ")"
            return (f"Array(<lazy>, shape={shape}, dtype={self.dtype}, "
                    f"depends on placeholder {', '.join(map(repr, names))})")
        v = self._value("repr()")
        body = np.array2string(v, separator=", ", prefix="Array(")
        return f"Array({body}, dtype={self.dtype})"

    __str__ = __repr__

    def __len__(self) -> int:
        if self.ndim == 0:
            raise TypeError("len() of a 0-d array")
        n = self.shape[0]
        if n is None:
            raise TypeError(f"len() of an array whose first dim is symbolic ({self._node.shape[0]!r})")
        return n

    def __iter__(self):
        """Iterate over the first axis; a 0-d array is not iterable (TypeError at once, as
        numpy: ``numpy.iterable`` and matplotlib ask ``iter()``). The rows of an n-d array
        are views (``self[i]``); the elements of a 1-d array are not (numpy gives scalars),
        see ``_elements``."""
        shape = self._node.shape
        if not shape:
            raise TypeError("iteration over a 0-d array")
        if len(shape) == 1:
            return self._elements()
        return (self[i] for i in range(len(self)))

    def _elements(self):
        """The elements of a 1-d array as 0-d arrays that do not write through to it, each
        read from the array as it is at that step. Once the array is evaluated each holds
        its value (a data leaf), so a comparison of two of them is the same small program
        every time, run without a graph walk: builtin ``max()`` of a long array (scipy's
        ``minimum_phase``) evaluates one comparison per element."""
        from ._indexing import basic_view_node
        for i in range(len(self)):
            node = self._node
            v = node.value
            if v is not None and node.op is not Op.SCALAR:
                yield Array._new(Node(Op.DATA, node.dtype, (), (), None, v[i, ...]))
            else:
                yield Array._new(basic_view_node(self, i))

    # Indexing (``__getitem__``, ``__setitem__``), the unary operators and ``@`` are
    # installed by ``_install_operators`` from the modules defining them (which import
    # this one): an import inside each call cost about 1 us of every recorded op.

    def __imatmul__(self, other) -> "Array":
        return self._inplace(self.__matmul__(other))

    def _inplace(self, result: "Array") -> "Array":
        if result is NotImplemented:
            return result
        if result.dtype != self.dtype or result._node.shape != self._node.shape:
            raise TypeError(f"in-place operation would change dtype/shape from {self.dtype}"
                            f"{self.shape} to {result.dtype}{result.shape}")
        _rebind(self, result._node)  # a view's base sees the change, as in numpy
        _recorded(_ref(self))  # a state updated in place is a sibling too (see _live)
        return self

    __hash__ = None  # arrays compare elementwise; they are not hashable

    # numpy defers to the Array's reflected operators (``ndarray + Array`` raises the
    # TypeError above instead of evaluating and answering with a numpy array), and its
    # ufuncs refuse Arrays; numpy.asarray(x) converts explicitly.
    __array_ufunc__ = None


_OPERANDS = (Array, builtins.bool, int, float, complex)
# Exactly these types pass the checks of _binary_operand: operators skip them.
_FAST_OPERANDS = frozenset(_OPERANDS)
# Built-in types that never take part in arithmetic with arrays: say so, rather than
# leaving Python's "unsupported operand type(s)".
_NOT_OPERANDS = (str, bytes, type(None), dict, set, frozenset)


def _binary_operand(fn, a, b, symbol: str = "", comparison: builtins.bool = False):
    """Call ``fn``; TypeError for arrays of other libraries (numpy included) and sequences,
    which are never converted implicitly; NotImplemented for other objects, so their
    reflected operators may handle the Array."""
    for v in (a, b):
        if isinstance(v, _OPERANDS):
            continue
        what = f"operator {symbol} ({fn.__name__})" if symbol else f"{fn.__name__}()"
        if is_foreign_array(v):
            raise TypeError(foreign_array_error(what, v))
        if not comparison and isinstance(v, _NOT_OPERANDS):
            raise TypeError(f"{what} expects a lazyarray Array or a Python bool, int, float or "
                            f"complex as the other operand, got {type(v).__name__}")
        return NotImplemented
    return fn(a, b)


def is_foreign_array(v: object) -> builtins.bool:
    """An array of another library (numpy arrays and scalars included) or a sequence."""
    t = type(v)
    return isinstance(v, (np.ndarray, np.generic, list, tuple)) or any(
        hasattr(t, a) for a in ("__array_namespace__", "__dlpack__", "__array__",
                                "__array_interface__"))


def foreign_array_error(what: str, v: object) -> str:
    t = type(v)
    name = t.__name__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__qualname__}"
    if isinstance(v, np.generic):
        how = "int(), float() or complex() (a Python scalar) or with lazyarray.asarray()"
    else:
        how = "lazyarray.asarray() (or the Array with numpy.asarray() to compute in numpy)"
    return (f"{what} cannot combine a lazyarray Array with a {name}: lazyarray does not convert "
            f"other libraries' arrays or sequences implicitly; convert it with {how} first")


def _install_operators() -> None:
    """Indexing, and the arithmetic, comparison, bitwise and matrix operators, from the
    functions of the modules that define them."""
    global _rebind, _track_permuted
    from . import _elementwise as ew
    from ._indexing import getitem, setitem
    from ._linear_algebra import matmul
    from ._views import rebind, track_permuted
    _rebind, _track_permuted = rebind, track_permuted

    def __matmul__(self, other) -> "Array":
        return _binary_operand(matmul, self, other, "@")

    def __rmatmul__(self, other) -> "Array":
        return _binary_operand(matmul, other, self, "@")
    Array.__getitem__, Array.__setitem__ = getitem, setitem
    Array.__matmul__, Array.__rmatmul__ = __matmul__, __rmatmul__
    for short, fname in (("pos", "positive"), ("neg", "negative"), ("abs", "abs"),
                         ("invert", "bitwise_invert")):
        setattr(Array, f"__{short}__", getattr(ew, fname))
    names = {
        "add": "add", "sub": "subtract", "mul": "multiply", "truediv": "divide",
        "floordiv": "floor_divide", "mod": "remainder", "pow": "pow",
        "and": "bitwise_and", "or": "bitwise_or", "xor": "bitwise_xor",
        "lshift": "bitwise_left_shift", "rshift": "bitwise_right_shift",
    }
    for short, fname in names.items():
        fn, sym = getattr(ew, fname), _SYMBOLS[short]
        setattr(Array, f"__{short}__", _make_op(fn, False, sym))
        setattr(Array, f"__r{short}__", _make_op(fn, True, sym))
        setattr(Array, f"__i{short}__", _make_iop(fn, sym + "="))
    for short, fname in (("eq", "equal"), ("ne", "not_equal"), ("lt", "less"),
                         ("le", "less_equal"), ("gt", "greater"), ("ge", "greater_equal")):
        setattr(Array, f"__{short}__", _make_op(getattr(ew, fname), False, _SYMBOLS[short],
                                                 comparison=True))


_SYMBOLS = {"add": "+", "sub": "-", "mul": "*", "truediv": "/", "floordiv": "//", "mod": "%",
            "pow": "**", "and": "&", "or": "|", "xor": "^", "lshift": "<<", "rshift": ">>",
            "eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}


def _make_op(fn, reflected: builtins.bool, symbol: str, comparison: builtins.bool = False):
    if reflected:
        def op(self, other):
            if type(other) in _FAST_OPERANDS:
                return fn(other, self)
            return _binary_operand(fn, other, self, symbol)
    elif hasattr(fn, "_operator"):  # the function's own fast path, without a call around it
        op = fn._operator(lambda self, other: _binary_operand(fn, self, other, symbol, comparison))
    else:
        def op(self, other):
            if type(other) in _FAST_OPERANDS:
                return fn(self, other)
            return _binary_operand(fn, self, other, symbol, comparison)
    op.__name__ = fn.__name__
    rec = getattr(fn, "_recording_binary", None)
    if rec is not None:  # its fast path, natively (_recording)
        op._recording = (*rec, REFLECTED if reflected else BINARY)
    return op


def _make_iop(fn, symbol: str):
    def op(self, other):
        return self._inplace(_binary_operand(fn, self, other, symbol))
    op.__name__ = fn.__name__
    return op


def record(op: Op, dtype: dt.DType, shape: tuple, srcs: tuple = (), arg: Any = None) -> Array:
    """Record one node and wrap it in an Array (ValueError for a shape past int64)."""
    n = 1
    for d in shape:
        if type(d) is int:
            n *= d
    if not 0 < n <= MAX_ELEMENTS:  # else no size can be too large: skip the full check
        check_shape(shape, f"{arg.name if op is Op.EXTERNAL else op.value}()")
    obj = _object_new(Array)
    obj._node = Node(op, dtype, shape, srcs, arg)
    _recorded(_ref(obj))
    return obj


def signature(op: Op, dtype: dt.DType, shape: tuple, srcs: tuple, arg: Any = None):
    """``ir.signature``: the signature a node of these parts would have (none is made);
    natively, like ``record``, once the recording unit is loaded."""
    return ir_signature(op, dtype, shape, srcs, arg)


def _materialize():
    """``_program.materialize``, imported on first use (``_program`` imports this module)."""
    global _materialize_fn
    if _materialize_fn is None:
        from ._program import materialize
        _materialize_fn = materialize
    return _materialize_fn


_materialize_fn = None
_rebind = _track_permuted = None  # _views' functions (set by _install_operators)


def data_leaf(value: np.ndarray, dtype: Optional[dt.DType] = None) -> Array:
    """An Array holding ``value`` (C-contiguous, native byte order, supported dtype);
    ``dtype``, when the caller knows it, saves looking it up."""
    if dtype is None:
        dtype = dt.from_numpy(value.dtype)
    return Array._new(Node(Op.DATA, dtype, value.shape, (), None, value))


def is_symbolic(shape: tuple) -> builtins.bool:
    return any(isinstance(d, Dim) for d in shape)
