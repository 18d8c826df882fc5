"""The graph IR: scalar types, symbolic dims, the op set and graph nodes.

The front end builds this IR; the backend schedules, compiles and runs it.
Nothing here knows about the array API: promotion and broadcasting are
decided by the front end and recorded explicitly (casts, ``broadcast_to``).
"""
from __future__ import annotations

import enum
import itertools
from operator import is_
from typing import Any, Iterable, Union

import numpy as np

# numpy 2.4 reads ``__numpy_dtype__`` to turn an object into a dtype; older numpy reads
# only ``dtype``.
NUMPY_DTYPE_PROTOCOL = tuple(int(p) for p in np.__version__.split(".")[:2]) >= (2, 4)


class ScalarType:
    """An element type. Instances are unique, so ``is`` and ``==`` agree."""

    __slots__ = ("name", "kind", "bits", "np", "itemsize")

    def __init__(self, name: str, kind: str, bits: int) -> None:
        self.name = name
        self.kind = kind  # 'b' bool, 'i' signed, 'u' unsigned, 'f' real float, 'c' complex
        self.bits = bits
        self.np = np.dtype(name)
        self.itemsize = self.np.itemsize  # bytes per element in memory (bool: 1)

    @property
    def __numpy_dtype__(self) -> np.dtype:
        """numpy's dtype of the same name: ``numpy.dtype()`` reads this attribute (numpy
        2.4's protocol), so numpy accepts lazyarray's dtypes (``np.zeros(3,
        dtype=xp.float32)``), as code that mixes the two namespaces expects."""
        return self.np

    if not NUMPY_DTYPE_PROTOCOL:
        # Older numpy reads only a ``dtype`` attribute. That attribute makes a dtype look
        # like an array to code that asks ``getattr(x, "dtype", x)`` (scipy's
        # xp_result_type), so it is given only where numpy has no protocol.
        dtype = __numpy_dtype__

    def __repr__(self) -> str:
        return self.name

    def __reduce__(self):
        return (scalar_type, (self.name,))


_TYPES = [("bool", "b", 1)] + [
    (f"{p}{b}", k, b) for p, k in (("int", "i"), ("uint", "u")) for b in (8, 16, 32, 64)
] + [("float32", "f", 32), ("float64", "f", 64), ("complex64", "c", 64), ("complex128", "c", 128)]

SCALAR_TYPES: dict[str, ScalarType] = {n: ScalarType(n, k, b) for n, k, b in _TYPES}
BY_NUMPY: dict[np.dtype, ScalarType] = {t.np: t for t in SCALAR_TYPES.values()}


def scalar_type(name: str) -> ScalarType:
    return SCALAR_TYPES[name]


# --------------------------------------------------------------------------- dims

class Dim:
    """A symbolic size: a named dim, or an expression over named dims.

    Kinds: ``sym`` (name), ``bcast`` (a, b: numpy broadcasting of two sizes),
    ``slice`` (n, start, stop, step: ``len(range(*slice(...).indices(n)))``),
    ``prod`` (factors), ``sum`` (terms), ``min`` (terms), ``quot`` (total, divisor: exact division, for reshape's -1),
    ``assert_eq`` (d, a, b: the size d, once a and b are checked equal; it carries
    checks such as matmul's inner sizes into shape evaluation).
    Values are only known when a program is bound to inputs (``evaluate_dim``).
    """

    __slots__ = ("kind", "args", "_hash")

    def __init__(self, kind: str, args: tuple) -> None:
        self.kind = kind
        self.args = args
        self._hash = hash((kind, args))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Dim) and self.kind == other.kind and self.args == other.args

    def __hash__(self) -> int:
        return self._hash

    def __repr__(self) -> str:
        a = self.args
        if self.kind == "sym":
            return a[0]
        if self.kind == "prod":
            return "*".join(map(repr, a))
        if self.kind == "sum":
            return "+".join(map(repr, a)).replace("+-", "-")
        if self.kind == "min":
            return f"min({', '.join(map(repr, a))})"
        if self.kind == "quot":
            return f"({a[0]!r})/({a[1]!r})"
        if self.kind == "slice":
            return f"len({a[0]!r}[{a[1]}:{a[2]}:{a[3]}])"
        if self.kind == "assert_eq":
            return repr(a[0])
        return f"bcast({a[0]!r},{a[1]!r})"


DimLike = Union[int, Dim]
Shape = tuple  # of DimLike


def sym(name: str) -> Dim:
    return Dim("sym", (name,))


def evaluate_dim(d: DimLike, env: dict[str, int]) -> int:
    """The size of ``d`` given values for the named dims in ``env``.

    Raises ValueError when the sizes are inconsistent (a broadcast of two
    unequal sizes, a reshape that does not divide).
    """
    if type(d) is int:
        return d
    k, a = d.kind, d.args
    if k == "sym":
        return env[a[0]]
    if k == "prod":
        r = 1
        for f in a:
            r *= evaluate_dim(f, env)
        return r
    if k == "sum":
        return sum(evaluate_dim(f, env) for f in a)
    if k == "min":
        return min(evaluate_dim(f, env) for f in a)
    if k == "quot":
        t, q = evaluate_dim(a[0], env), evaluate_dim(a[1], env)
        if q == 0 or t % q:
            raise ValueError(f"cannot reshape: {t} elements do not divide into parts of {q}")
        return t // q
    if k == "slice":
        return len(range(*slice(a[1], a[2], a[3]).indices(evaluate_dim(a[0], env))))
    if k == "assert_eq":
        x, y = evaluate_dim(a[1], env), evaluate_dim(a[2], env)
        if x != y:
            raise ValueError(f"sizes {x} ({a[1]!r}) and {y} ({a[2]!r}) must be equal")
        return evaluate_dim(a[0], env)
    x, y = evaluate_dim(a[0], env), evaluate_dim(a[1], env)
    if x == y or y == 1:
        return x
    if x == 1:
        return y
    raise ValueError(f"shapes cannot be broadcast: sizes {x} ({a[0]!r}) and {y} ({a[1]!r})")


def dim_prod(dims: Iterable[DimLike]) -> DimLike:
    """Product of sizes, folded to an int when every factor is one."""
    n, rest = 1, []
    for d in dims:
        if type(d) is int:
            n *= d
        else:
            rest.append(d)
    if not rest or n == 0:
        return n
    if n != 1:
        rest.insert(0, n)
    return rest[0] if len(rest) == 1 else Dim("prod", tuple(rest))


def dim_assert_equal(d: DimLike, a: DimLike, b: DimLike) -> DimLike:
    """``d``, carrying the check that sizes ``a`` and ``b`` agree when bound."""
    if a == b:
        return d
    if type(a) is int and type(b) is int:
        raise ValueError(f"sizes {a} and {b} must be equal")
    return Dim("assert_eq", (d, a, b))


def dim_sum(dims: Iterable[DimLike]) -> DimLike:
    """Sum of sizes, folded to an int when every term is one."""
    n, rest = 0, []
    for d in dims:
        if type(d) is int:
            n += d
        else:
            rest.append(d)
    if not rest:
        return n
    if n:
        rest.append(n)
    return rest[0] if len(rest) == 1 else Dim("sum", tuple(rest))


def dim_min(a: DimLike, b: DimLike) -> DimLike:
    """The smaller of two sizes; symbolic unless both are known or equal."""
    if a == b:
        return a
    if type(a) is int and type(b) is int:
        return min(a, b)
    return Dim("min", (a, b))


def dim_broadcast(a: DimLike, b: DimLike) -> DimLike:
    """The broadcast of two sizes; symbolic when it cannot be decided now."""
    if a == b or b == 1:
        return a
    if a == 1:
        return b
    if type(a) is int and type(b) is int:
        raise ValueError(f"shapes cannot be broadcast: sizes {a} and {b}")
    return Dim("bcast", (a, b))


# --------------------------------------------------------------------------- ops

class Op(enum.Enum):
    """Every node kind. Group sets below let passes test membership."""

    # leaves
    PLACEHOLDER = "placeholder"
    DATA = "data"
    SCALAR = "scalar"
    # unary elementwise
    ABS = "abs"; NEGATIVE = "negative"; SIGN = "sign"; SQRT = "sqrt"
    EXP = "exp"; EXPM1 = "expm1"; LOG = "log"; LOG1P = "log1p"; LOG2 = "log2"; LOG10 = "log10"
    SIN = "sin"; COS = "cos"; TAN = "tan"; ASIN = "asin"; ACOS = "acos"; ATAN = "atan"
    SINH = "sinh"; COSH = "cosh"; TANH = "tanh"; ASINH = "asinh"; ACOSH = "acosh"; ATANH = "atanh"
    CEIL = "ceil"; FLOOR = "floor"; TRUNC = "trunc"; ROUND = "round"
    LOGICAL_NOT = "logical_not"; BITWISE_INVERT = "bitwise_invert"
    ISNAN = "isnan"; ISINF = "isinf"; ISFINITE = "isfinite"; SIGNBIT = "signbit"
    ASTYPE = "astype"
    REAL = "real"; IMAG = "imag"; CONJ = "conj"  # complex input only (real input needs no node)
    # binary elementwise
    ADD = "add"; SUBTRACT = "subtract"; MULTIPLY = "multiply"; DIVIDE = "divide"
    FLOOR_DIVIDE = "floor_divide"; REMAINDER = "remainder"; POW = "pow"
    ATAN2 = "atan2"; HYPOT = "hypot"; COPYSIGN = "copysign"; NEXTAFTER = "nextafter"
    MAXIMUM = "maximum"; MINIMUM = "minimum"; LOGADDEXP = "logaddexp"
    EQUAL = "equal"; NOT_EQUAL = "not_equal"; LESS = "less"; LESS_EQUAL = "less_equal"
    GREATER = "greater"; GREATER_EQUAL = "greater_equal"
    LOGICAL_AND = "logical_and"; LOGICAL_OR = "logical_or"; LOGICAL_XOR = "logical_xor"
    BITWISE_AND = "bitwise_and"; BITWISE_OR = "bitwise_or"; BITWISE_XOR = "bitwise_xor"
    BITWISE_LEFT_SHIFT = "bitwise_left_shift"; BITWISE_RIGHT_SHIFT = "bitwise_right_shift"
    # ternary elementwise
    WHERE = "where"
    # reductions (arg: reduced axes)
    SUM = "sum"; PROD = "prod"; MAX = "max"; MIN = "min"; MEAN = "mean"; ANY = "any"; ALL = "all"
    # views (arg: the view's parameters)
    RESHAPE = "reshape"; PERMUTE_DIMS = "permute_dims"; EXPAND_DIMS = "expand_dims"
    SQUEEZE = "squeeze"; BROADCAST_TO = "broadcast_to"; SLICE = "slice"
    # contraction
    MATMUL = "matmul"
    # roots written by several kernels into one buffer
    UPDATE = "update"        # srcs (x, value): x with a region replaced; arg: slice items
    CONCAT = "concat"        # srcs: the parts, in order; arg: axis
    # a function on numpy arrays, run between compiled stages; arg: an External
    EXTERNAL = "external"
    # index-carrying reductions over one axis (arg: ((axis,), keepdims)); int64 result
    ARGMAX = "argmax"; ARGMIN = "argmin"
    # inclusive scans along one axis (arg: axis)
    CUMULATIVE_SUM = "cumulative_sum"; CUMULATIVE_PROD = "cumulative_prod"
    # srcs (x, index arrays...): x read at data-dependent positions; the index arrays
    # have the output's shape. arg: (gathered axes of x, output axis of each other axis,
    # the axis number IndexError messages give for each gathered axis)
    GATHER = "gather"

    # Members are singletons compared by identity: hash them by identity too, in C.
    # Enum's own __hash__ (a Python call hashing the name) dominated set lookups and
    # the hashing of graph keys.
    __hash__ = object.__hash__


_O = Op
LEAVES = frozenset({_O.PLACEHOLDER, _O.DATA, _O.SCALAR})
_DATA, _SCALAR, _PLACEHOLDER = _O.DATA, _O.SCALAR, _O.PLACEHOLDER
# Ops computed by a math-library call (libmvec or scalar libm): far costlier than arithmetic.
TRANSCENDENTAL = frozenset({
    _O.SIN, _O.COS, _O.TAN, _O.ASIN, _O.ACOS, _O.ATAN, _O.SINH, _O.COSH, _O.TANH, _O.ASINH,
    _O.ACOSH, _O.ATANH, _O.EXP, _O.EXPM1, _O.LOG, _O.LOG1P, _O.LOG2, _O.LOG10, _O.POW,
    _O.ATAN2, _O.HYPOT, _O.LOGADDEXP})
UNARY = frozenset({
    _O.ABS, _O.NEGATIVE, _O.SIGN, _O.SQRT, _O.EXP, _O.EXPM1, _O.LOG, _O.LOG1P, _O.LOG2, _O.LOG10,
    _O.SIN, _O.COS, _O.TAN, _O.ASIN, _O.ACOS, _O.ATAN, _O.SINH, _O.COSH, _O.TANH, _O.ASINH,
    _O.ACOSH, _O.ATANH, _O.CEIL, _O.FLOOR, _O.TRUNC, _O.ROUND, _O.LOGICAL_NOT, _O.BITWISE_INVERT,
    _O.ISNAN, _O.ISINF, _O.ISFINITE, _O.SIGNBIT, _O.ASTYPE, _O.REAL, _O.IMAG, _O.CONJ,
})
BINARY = frozenset({
    _O.ADD, _O.SUBTRACT, _O.MULTIPLY, _O.DIVIDE, _O.FLOOR_DIVIDE, _O.REMAINDER, _O.POW,
    _O.ATAN2, _O.HYPOT, _O.COPYSIGN, _O.NEXTAFTER, _O.MAXIMUM, _O.MINIMUM, _O.LOGADDEXP,
    _O.EQUAL, _O.NOT_EQUAL, _O.LESS, _O.LESS_EQUAL, _O.GREATER, _O.GREATER_EQUAL,
    _O.LOGICAL_AND, _O.LOGICAL_OR, _O.LOGICAL_XOR, _O.BITWISE_AND, _O.BITWISE_OR,
    _O.BITWISE_XOR, _O.BITWISE_LEFT_SHIFT, _O.BITWISE_RIGHT_SHIFT,
})
TERNARY = frozenset({_O.WHERE})
ELEMENTWISE = UNARY | BINARY | TERNARY
REDUCE = frozenset({_O.SUM, _O.PROD, _O.MAX, _O.MIN, _O.MEAN, _O.ANY, _O.ALL})
VIEW = frozenset({_O.RESHAPE, _O.PERMUTE_DIMS, _O.EXPAND_DIMS, _O.SQUEEZE, _O.BROADCAST_TO, _O.SLICE})
CONTRACT = frozenset({_O.MATMUL})
MULTIPART = frozenset({_O.UPDATE, _O.CONCAT})
ARG_REDUCE = frozenset({_O.ARGMAX, _O.ARGMIN})
SCAN = frozenset({_O.CUMULATIVE_SUM, _O.CUMULATIVE_PROD})
# Nodes that always own a buffer (kernel roots), whatever consumes them.
ROOT_OPS = REDUCE | CONTRACT | MULTIPART | ARG_REDUCE | SCAN | {_O.EXTERNAL}
# Ops that call out to libm: worth materialising rather than recomputing under a broadcast.
COSTLY = frozenset({
    _O.SQRT, _O.EXP, _O.EXPM1, _O.LOG, _O.LOG1P, _O.LOG2, _O.LOG10, _O.SIN, _O.COS, _O.TAN,
    _O.ASIN, _O.ACOS, _O.ATAN, _O.SINH, _O.COSH, _O.TANH, _O.ASINH, _O.ACOSH, _O.ATANH,
    _O.POW, _O.ATAN2, _O.HYPOT, _O.LOGADDEXP, _O.DIVIDE, _O.FLOOR_DIVIDE, _O.REMAINDER,
})


# --------------------------------------------------------------------------- externals

class External:
    """A function on numpy arrays that runs inside a compiled program, between
    native stages (sorting, decompositions, FFTs).

    ``name`` and ``params`` identify it in cache keys, so equal names and
    params must mean the same computation; ``fn(*arrays, *params)`` returns an
    array, or a tuple of which ``output`` selects one.  Nodes sharing ``name``,
    ``params`` and inputs share one call per run.
    """

    __slots__ = ("name", "params", "fn", "output")

    def __init__(self, name: str, params: tuple, fn, output: Union[int, None] = None) -> None:
        self.name, self.params, self.fn, self.output = name, params, fn, output

    def key(self) -> tuple:
        return (self.name, self.params, self.output)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, External) and self.key() == other.key()

    def __hash__(self) -> int:
        return hash(self.key())

    def __repr__(self) -> str:
        out = "" if self.output is None else f"[{self.output}]"
        return f"{self.name}{out}"


# --------------------------------------------------------------------------- nodes

class Node:
    """One recorded operation (or leaf). Structure is immutable once built.

    ``value`` is the one exception: a derived node that has been evaluated
    keeps its result there and from then on is treated as a data leaf.
    ``arg`` holds op parameters (axes, slices, target shape, a placeholder's
    name); a scalar leaf keeps its Python value in ``value``, which never
    enters a cache key.  Nodes compare and hash by identity: graph walks key
    dicts by node (keep it so: no ``__eq__``).
    """

    __slots__ = ("op", "dtype", "shape", "srcs", "arg", "value", "sig", "__weakref__")

    def __init__(self, op: Op, dtype: ScalarType, shape: Shape, srcs: tuple = (),
                 arg: Any = None, value: Any = None, sig: Any = False) -> None:
        self.op = op
        self.dtype = dtype
        self.shape = shape
        self.srcs = srcs
        self.arg = arg
        self.value = value
        if sig is False:  # not given by the caller (the recording fast paths give it)
            if value is not None:
                i = _BUFFER_IDS.get((dtype, shape)) if op is not _SCALAR else None
                sig = (i or leaf_id(op, dtype, shape), (value,), NEVER)
            elif op is _PLACEHOLDER:  # no value to run with: graphs above it take the walk
                sig = None
            else:
                sig = signature(op, dtype, shape, srcs, arg)
        self.sig = sig

    @property
    def is_buffer(self) -> bool:
        """True for nodes whose elements sit in memory when a program runs."""
        return self.op is Op.PLACEHOLDER or (self.value is not None and self.op is not Op.SCALAR)

    def __repr__(self) -> str:
        return f"Node({self.op.value}, {self.dtype}, {self.shape})"


# --------------------------------------------------------------------------- signatures
#
# Every node carries ``sig`` = (structure id, leaves, epoch), built as it is
# recorded, so evaluating a graph needs no walk to find its program:
# * the structure id numbers the node's expression tree (ops, dtypes, shapes,
#   parameters, and which leaf each occurrence reads), with the leaves named by
#   position in ``leaves`` and never by value;
# * ``leaves`` are the values of the data leaves, scalars and evaluated nodes
#   it reads, in first-use order (values, not nodes: a leaf's signature holding
#   the leaf would make every leaf a reference cycle, freed late by the collector);
# * ``epoch`` is the ``EPOCH`` at which the oldest computed node below it was
#   recorded (``NEVER`` for a leaf).  ``EPOCH`` grows when a computed node gets
#   its value, so a signature whose epoch is the current one has no evaluated
#   node inside: its program is the one the graph walk would find.
# A placeholder, an unhashable parameter or more than ``MAX_LEAVES`` leaves make
# it None: such graphs take the walk.

NEVER = 1 << 62
MAX_LEAVES = 32
EPOCH = 0
_IDS: dict = {}  # structure -> id; cleared when full (ids are never reused)
_MAX_IDS = 1 << 16
# ids made in the recording fast paths' tables (``id_table``), counted with _IDS's
# entries towards the limit: a word, which the native recording increments too; then
# the number of times the ids were cleared (ids remembered natively are dropped then)
TABLE_IDS = np.zeros(2, dtype=np.int64)
_next_id = itertools.count(1).__next__


def structure_id(part: tuple):
    """The id of one structure part (None when it cannot be hashed)."""
    try:
        i = _IDS.get(part)
    except TypeError:
        return None
    if i is None:
        if len(_IDS) + int(TABLE_IDS[0]) >= _MAX_IDS:
            clear_ids()
        i = _IDS.setdefault(part, _next_id())
    return i


def leaf_id(op: Op, dtype: ScalarType, shape: Shape):
    """The structure id of a leaf: a scalar's dtype, or a buffer's dtype and shape."""
    if op is _SCALAR:
        i = _SCALAR_IDS.get(dtype)
        if i is None:  # kept when _IDS is cleared: ids are never reused
            i = _SCALAR_IDS[dtype] = structure_id(("scalar", dtype))
        return i
    key = (dtype, shape)
    i = _BUFFER_IDS.get(key)
    if i is None:
        i = _BUFFER_IDS[key] = structure_id(("buffer", dtype, shape))
    return i


_SCALAR_IDS: dict = {}
_BUFFER_IDS: dict = {}  # (dtype, shape) -> id, emptied with _IDS


def signature(op: Op, dtype: ScalarType, shape: Shape, srcs: tuple, arg: Any):
    """``sig`` of a computed node from its sources' (see above)."""
    return signature_of(op, dtype, shape, [s.sig for s in srcs], arg)


def signature_of(op: Op, dtype: ScalarType, shape: Shape, sigs: list, arg: Any):
    """``signature`` from the sources' signatures ``sigs`` (which a caller may predict:
    lazyarray/_steps.py)."""
    if len(sigs) == 1:  # the common case, without the loop
        sig = sigs[0]
        if sig is None:
            return None
        i = structure_id((op, dtype, shape, arg, sig[0]))
        e = sig[2]
        return None if i is None else (i, sig[1], e if e != NEVER else EPOCH)
    if len(sigs) == 2:  # the loop below, unrolled (binary ops: most steps of a program)
        a, b = sigs
        if a is None or b is None:
            return None
        leaves, more = a[1], b[1]
        if more is leaves:
            part = (op, dtype, shape, arg, a[0], b[0])
        else:
            leaves, where = merge_leaves(leaves, more)
            if not leaves:
                return None
            part = (op, dtype, shape, arg, a[0], (b[0], where))
        i = structure_id(part)
        if i is None:
            return None
        e = a[2] if a[2] < b[2] else b[2]
        return (i, leaves, e if e != NEVER else EPOCH)
    leaves = None
    epoch = NEVER
    part = [op, dtype, shape, arg]
    for sig in sigs:
        if sig is None:
            return None
        k, ls, e = sig
        if e < epoch:
            epoch = e
        if leaves is None or ls is leaves:
            leaves = ls
            part.append(k)
        else:
            leaves, where = merge_leaves(leaves, ls)
            if not leaves:
                return None
            part.append((k, where))
    i = structure_id(tuple(part))
    if i is None:
        return None
    return (i, leaves or (), epoch if epoch != NEVER else EPOCH)


# where-tuples for the shortcuts of ``merge_leaves``: ``_FIRST[k]`` is (0, ..., k-1),
# ``_AFTER_FIRST[k]`` is (1, ..., k)
_FIRST = tuple(tuple(range(k)) for k in range(MAX_LEAVES + 1))
_AFTER_FIRST = tuple(tuple(range(1, k + 1)) for k in range(MAX_LEAVES + 1))


def merge_leaves(leaves: tuple, more: tuple) -> tuple:
    """(``leaves`` followed by those of ``more`` not among them, the position of each
    of ``more`` in that tuple); ((), None) past ``MAX_LEAVES``.

    Leaves are values matched by identity, so ``in`` compares their ids (an array's
    ``==`` is elementwise).  The common shapes of a merge are answered without a loop
    in Python: one leaf (a scalar operand), a scalar on the left of a graph, and one
    side a prefix of the other (an operand combined with something made from it)."""
    n, k = len(leaves), len(more)
    if n == 1 and k == 1:  # two leaves (a value and a scalar): the commonest merge
        if leaves[0] is more[0]:
            return leaves, _FIRST[1]
        return leaves + more, _AFTER_FIRST[1]
    if k == 1:
        ids = list(map(id, leaves))
        key = id(more[0])
        if key in ids:
            return leaves, (ids.index(key),)
        if n >= MAX_LEAVES:
            return (), None
        return leaves + more, (n,)
    if n == 1 and id(leaves[0]) not in map(id, more):
        if k >= MAX_LEAVES:
            return (), None
        return leaves + more, _AFTER_FIRST[k]
    if k <= n:
        if all(map(is_, more, leaves)):
            return leaves, _FIRST[k]
    elif all(map(is_, leaves, more)):  # more holds no more than MAX_LEAVES
        return more, _FIRST[k]
    return _merge(leaves, more)


def _merge(leaves: tuple, more: tuple) -> tuple:
    """``merge_leaves`` in general: positions found through a dict of identities."""
    merged = list(leaves)
    pos = {id(m): i for i, m in enumerate(leaves)}
    where = []
    for leaf in more:
        i = pos.setdefault(id(leaf), len(merged))
        if i == len(merged):
            merged.append(leaf)
        where.append(i)
    if len(merged) > MAX_LEAVES:
        return (), None
    return tuple(merged), tuple(where)


def id_table() -> dict:
    """A dict for a recording fast path's own structure ids (source ids -> id),
    emptied with ``_IDS``."""
    table: dict = {}
    _TABLES.append(table)
    return table


_TABLES: list = []


def new_id(table: dict, key) -> int:
    """The id of ``key`` in ``table`` (an ``id_table``), made on a miss."""
    if len(_IDS) + int(TABLE_IDS[0]) >= _MAX_IDS:
        clear_ids()
    i = table.setdefault(key, _next_id())
    TABLE_IDS[0] += 1
    return i


def clear_ids() -> None:
    _IDS.clear()
    TABLE_IDS[0] = 0
    TABLE_IDS[1] += 1
    _BUFFER_IDS.clear()
    for t in _TABLES:
        t.clear()


def derived_signature(table: dict, key, sig):
    """The signature of a node with one source whose signature is ``sig``, ``key``
    (the source's id and what else sets the result apart) naming it in ``table``
    (a recording fast path's ``id_table``)."""
    if sig is None:
        return None
    i = table.get(key)
    if i is None:
        i = new_id(table, key)
    e = sig[2]
    return (i, sig[1], e if e != NEVER else EPOCH)


def evaluated(node: Node, value: Any, leaf: Any = None, inside: bool = True) -> None:
    """Give a computed node its value: from here on it is a leaf (``leaf``: its
    ``leaf_id`` when the caller knows it).  ``EPOCH`` grows, so that every signature
    recorded before is stale, unless the caller knows that no node holds this one
    (``inside`` False: no recorded graph has it inside, so none is changed).

    Its sources are dropped, so the history below a value is freed once nobody else
    holds it (a loop's state would otherwise keep every earlier iteration alive).
    The value is set before the sources go: a walk that reads ``srcs`` first and
    ``value`` second never sees a computed node without sources.
    """
    global EPOCH
    node.value = value
    node.sig = (leaf or leaf_id(node.op, node.dtype, node.shape), (value,), NEVER)
    node.srcs = ()
    if inside:
        EPOCH += 1


def toposort(outputs: Iterable[Node]) -> list[Node]:
    """Nodes reachable from ``outputs`` in execution (post-)order, iteratively.

    Sources are visited in argument order; nodes holding a value are leaves.
    """
    return _postorder(list(outputs), copy=False)[1]


def snapshot(outputs: list) -> tuple:
    """``outputs`` over a private copy of their graph, and that graph in execution
    order (``toposort`` of the copies): nodes without a value are copied, nodes
    holding one are shared.

    Keys, schedules and bindings read ``value`` to tell leaves from computed nodes,
    so the graph must not change while they are built: a node evaluated meanwhile
    (by another thread, or later by this one) would make them disagree and leave a
    wrong entry in the shared caches.  Each node's value is read once here, and
    nobody else ever evaluates the copies.
    """
    return _postorder(outputs, copy=True)


def _postorder(outputs: list, copy: bool) -> tuple:
    """(the outputs, or their copies; all nodes in post-order) of one iterative walk."""
    # Nodes hash by identity (in C), so they key ``memo`` directly.
    memo: dict = {}  # node -> emitted node (or copy); None while its sources are pending
    read: dict = {}  # computed node -> the sources its first visit read
    order: list = []
    for root in outputs:
        stack = [root]
        while stack:
            node = stack.pop()
            if node in memo:
                out = memo[node]
                if out is not None:  # reached again through another consumer
                    continue
                out = node  # its sources are done
                srcs = read.pop(node)
                if copy:
                    out = Node(node.op, node.dtype, node.shape,
                               tuple(map(memo.__getitem__, srcs)), node.arg)
                memo[node] = out
                order.append(out)
                continue
            srcs = node.srcs  # before the value: see ``evaluated``
            if not srcs or node.value is not None:
                memo[node] = node
                order.append(node)
            else:
                memo[node] = None
                read[node] = srcs
                stack.append(node)
                stack.extend([s for s in reversed(srcs) if s not in memo])
    return [memo[r] for r in outputs], order
