"""The recording fast paths record what the general paths do (same node, so both share
signatures and programs), and hand everything else to them."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _creation, _indexing, _linear_algebra, _searching, _statistical
from lazyarray.backend.ir import Op


def same(a, b) -> None:
    na, nb = a._node, b._node
    assert (na.op, na.dtype, na.shape, na.arg) == (nb.op, nb.dtype, nb.shape, nb.arg)
    assert na.srcs == nb.srcs and na.sig == nb.sig


X = xp.asarray(np.arange(24.0).reshape(4, 6))
V = xp.asarray(np.arange(7.0))

KEYS = [0, -1, 3, slice(None), slice(1, -1), slice(None, None, -1), slice(5, 1, -2),
        slice(2, 3), slice(3, 3), slice(-100, 100, 3), (1, 2), (slice(1, 3), -2),
        (slice(None), slice(None)), (slice(None), 0), (slice(0, 1), slice(None, None, 2)),
        (2, slice(4, None))]


@pytest.mark.parametrize("key", KEYS, ids=repr)
def test_basic_index(key):
    quick = _indexing._quick_basic(X, key)
    general = _indexing._basic_getitem(X, _indexing._simplify_key(key))
    assert quick is not None
    same(quick, general)
    np.testing.assert_array_equal(np.asarray(quick), np.asarray(X)[key])


@pytest.mark.parametrize("key", [(Ellipsis, 1), None, (1, None), True, np.int64(1),
                                 slice(np.int64(1), None), slice(0, 2**70), 9, (0, 0, 0),
                                 xp.asarray([0, 1])], ids=repr)
def test_basic_index_others_take_the_general_path(key):
    assert _indexing._quick_basic(X, key) is None


def test_index_errors_are_the_general_ones():
    with pytest.raises(IndexError, match="out of bounds"):
        X[4]
    with pytest.raises(ValueError, match="step cannot be zero"):
        V[::0]


def test_matmul():
    a = xp.asarray(np.ones((3, 4)))
    b = xp.asarray(np.ones((4, 2)))
    same(xp.matmul(a, b), _linear_algebra._matmul(a, b))
    assert xp.matmul(a, b)._node.op is Op.MATMUL


def same_tree(a, b) -> None:
    """Nodes ``a`` and ``b`` and all below them alike, leaves the same objects."""
    stack = [(a._node, b._node)]
    while stack:
        na, nb = stack.pop()
        if na is nb:
            continue
        assert (na.op, na.dtype, na.shape, na.arg, na.sig) == \
            (nb.op, nb.dtype, nb.shape, nb.arg, nb.sig)
        assert len(na.srcs) == len(nb.srcs)
        stack.extend(zip(na.srcs, nb.srcs))


@pytest.mark.parametrize("s1, s2", [((3, 4), (4,)), ((4,), (4, 2)), ((1, 5), (5,)),
                                    ((5,), (5, 1)), ((0, 3), (3,)), ((3,), (3, 0))])
@pytest.mark.parametrize("dtype", [np.float64, np.int32, np.complex64])
def test_matrix_vector(s1, s2, dtype):
    rng = np.random.default_rng(0)
    n1 = (rng.standard_normal(s1) * 4).astype(dtype)
    n2 = (rng.standard_normal(s2) * 4).astype(dtype)
    a, b = xp.asarray(n1), xp.asarray(n2)
    quick = xp.matmul(a, b)
    same_tree(quick, _linear_algebra._matmul(a, b))
    # one node (the backend runs it as a product with one column or row)
    assert quick._node.op is Op.MATMUL and quick._node.srcs == (a._node, b._node)
    np.testing.assert_allclose(np.asarray(quick), n1 @ n2, rtol=1e-6)


@pytest.mark.parametrize("s1, s2", [((3, 4), (5,)), ((4,), (5, 2)), ((4,), (4,))])
def test_matrix_vector_others_take_the_general_path(s1, s2):
    a, b = xp.ones(s1), xp.ones(s2)
    if s1[-1] != s2[0]:
        with pytest.raises(ValueError, match="inner sizes differ"):
            a @ b
    else:
        assert (a @ b).shape == () and float(a @ b) == 4.0  # a vector dot: general path
    m, v = xp.ones((3, 4), dtype=xp.float32), xp.ones(4)  # two dtypes: the general path
    assert xp.matmul(m, v)._node.srcs[0].op is Op.ASTYPE


@pytest.mark.parametrize("x1, x2", [("a", "b"), ("a", 2.5), (-1.0, "b")])
def test_where(x1, x2):
    c = X > 5.0
    ops = {"a": X, "b": X * 2.0}
    x1, x2 = ops.get(x1, x1), ops.get(x2, x2)
    quick = _searching._quick_where(c, x1, x2)
    assert quick is not None
    general = _searching.where(c, x1 if not isinstance(x1, float) else xp.asarray(x1), x2)
    assert quick._node.shape == general._node.shape and quick._node.op is Op.WHERE
    np.testing.assert_array_equal(np.asarray(quick), np.asarray(general))


@pytest.mark.parametrize("args", [(X > 1, X, 1), (X > 1, X, V), (X, X, X),
                                  (X > 1, xp.astype(X, xp.float32), X)])
def test_where_others_take_the_general_path(args):
    assert _searching._quick_where(*args) is None


@pytest.mark.parametrize("axis", [0, 1, -1, -2])
@pytest.mark.parametrize("keepdims", [False, True])
def test_reduce_one_axis(axis, keepdims):
    for op in (Op.SUM, Op.MAX, Op.MIN):
        same(_statistical._reduce_one(op, X, axis, keepdims),
             _statistical.reduce(op, X, axis, keepdims, X.dtype, op.value))


def test_reduce_axis_out_of_range_is_the_general_error():
    with pytest.raises(ValueError, match="axis"):
        xp.sum(X, axis=2)


@pytest.mark.parametrize("shape", [5, (), (0, 3), (2, 3)])
@pytest.mark.parametrize("dtype", [None, xp.int8, xp.bool, xp.complex64])
def test_zeros_ones(shape, dtype):
    for fn, value in ((xp.zeros, 0), (xp.ones, 1)):
        quick = _creation._quick_fill(shape, value, dtype, None)
        assert quick is not None
        general = _creation._fill(shape, value, dtype or xp.float64, fn.__name__)
        assert quick.dtype == general.dtype and quick.shape == general.shape
        np.testing.assert_array_equal(np.asarray(quick), np.asarray(general))


@pytest.mark.parametrize("shape", [-1, 2.0, True, (2, -1), [2, 3], (2**40, 2**40), np.int64(3)])
def test_zeros_others_take_the_general_path(shape):
    assert _creation._quick_fill(shape, 0, None, None) is None


def test_transpose():
    same(X.T, xp.permute_dims(X, (1, 0)))
    with pytest.raises(ValueError, match="2-d"):
        V.T


@pytest.mark.parametrize("shape", [(24,), (-1,), (2, -1), (4, 6), (6, 4), (1, 24, 1), (2, 3, 4)])
def test_reshape(shape):
    from lazyarray import _manipulation as m
    quick = m._quick_reshape(X, shape)
    assert quick is not None
    same(quick, xp.reshape(X, shape, copy=True))  # copy=True takes the general path
    np.testing.assert_array_equal(np.asarray(quick), np.asarray(X).reshape(shape))


@pytest.mark.parametrize("shape", [(5, 5), (-1, -1), (0, -1), [24], (np.int64(24),), (-2, 12)])
def test_reshape_others_take_the_general_path(shape):
    from lazyarray import _manipulation as m
    assert m._quick_reshape(X, shape) is None


@pytest.mark.parametrize("shape", [(4, 6), (2, 4, 6), (3, 1, 4, 6)])
def test_broadcast(shape):
    from lazyarray import _manipulation as m
    quick = m._quick_broadcast(X, shape)
    assert quick is not None
    np.testing.assert_array_equal(np.asarray(quick), np.broadcast_to(np.asarray(X), shape))


@pytest.mark.parametrize("shape", [(6,), (4, 7), (-1, 6), [4, 6], (2, 0, 6)])
def test_broadcast_others_take_the_general_path(shape):
    from lazyarray import _manipulation as m
    assert m._quick_broadcast(X, shape) is None


@pytest.mark.parametrize("axis", [0, 1, -1, -2])
def test_concat(axis, monkeypatch):
    from lazyarray import _manipulation as m
    parts = [X, X[:, :2] if axis in (1, -1) else X[:1], X]
    quick = m._quick_concat(parts, axis)
    assert quick is not None
    monkeypatch.setattr(m, "_quick_concat", lambda arrays, axis: None)
    same(quick, xp.concat(parts, axis=axis))  # the general path
    want = np.concatenate([np.asarray(p) for p in parts], axis=axis)
    np.testing.assert_array_equal(np.asarray(quick), want)


@pytest.mark.parametrize("args", [([X], 0), ([X, X], None), ([X, V], 0), ([X, X], 2),
                                  ([X, xp.astype(X, xp.float32)], 0), ([X, X[:, :2]], 0),
                                  ([X, np.ones((4, 6))], 0), (X, 0), ([X, X], True)],
                         ids=range(9))
def test_concat_others_take_the_general_path(args):
    from lazyarray import _manipulation as m
    assert m._quick_concat(*args) is None


def test_permutations_remembered_still_check_their_axes():
    same(xp.permute_dims(X, (1, 0)), X.T)
    same(xp.permute_dims(X, (1, 0)), xp.permute_dims(X, [-1, 0]))  # remembered: the same
    for bad in [(True, False), (np.int64(1), 0)]:  # equal to a remembered key, not an int
        with pytest.raises(TypeError, match="axis must be an int"):
            xp.permute_dims(X, bad)
    with pytest.raises(ValueError, match="not a permutation"):
        xp.permute_dims(X, (0, 0))


@pytest.mark.parametrize("axis", [0, 1, 2, -1, -3])
def test_expand_dims_one_axis(axis):
    same(xp.expand_dims(X, axis=axis), xp.expand_dims(X, axis=(axis,)))


@pytest.mark.parametrize("s1,s2", [((4, 6), (6,)), ((4, 1), (6,)), ((1, 6), (4, 1)),
                                   ((2, 1, 6), (4, 1)), ((6,), (3, 4, 6))])
def test_binary_broadcast(s1, s2):
    from lazyarray import _elementwise as ew
    a = xp.asarray(np.arange(np.prod(s1), dtype=float).reshape(s1))
    b = xp.asarray(np.arange(np.prod(s2), dtype=float).reshape(s2) + 1)
    shape = np.broadcast_shapes(s1, s2)
    assert ew._broadcast_pair(a._node, b._node) is not None
    quick, general = a / b, xp.divide(xp.broadcast_to(a, shape), xp.broadcast_to(b, shape))
    assert quick._node.sig == general._node.sig  # one structure: shared programs
    for q, g in zip(quick._node.srcs, general._node.srcs):
        assert (q.op, q.shape, q.srcs, q.sig) == (g.op, g.shape, g.srcs, g.sig)
    np.testing.assert_array_equal(np.asarray(b - a), np.asarray(b) - np.asarray(a))


@pytest.mark.parametrize("s1,s2", [((4, 6), (5,)), ((0, 6), (6,)), ((4, 6), (4,))])
def test_binary_broadcast_others_take_the_general_path(s1, s2):
    from lazyarray import _elementwise as ew
    a, b = xp.zeros(s1), xp.ones(s2)
    assert ew._broadcast_pair(a._node, b._node) is None
    if 0 in s1:
        assert (a + b).shape == (0, 6)
    else:
        with pytest.raises(ValueError, match="cannot be broadcast"):
            a + b
