"""Graphs that differ only in an op's parameters must not share a cached
schedule or bound runner: each pair below has the same structure and must
give numpy's two different results, in either evaluation order."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray._array_object import record
from lazyarray.backend.ir import Op

A = np.arange(24.0).reshape(2, 3, 4) % 7 - 3


def arr():
    return xp.asarray(A)


def _argmax(axis):
    return lambda x: record(Op.ARGMAX, xp.int64, tuple(int(d) for d in np.delete(A.shape, axis)),
                            (x._node,), ((axis,), False))


def _cumsum(axis):
    return lambda x: record(Op.CUMULATIVE_SUM, x.dtype, x._node.shape, (x._node,), axis)


def _gather(axis):
    idx = xp.asarray(np.array([2, 0, -1]))
    def f(x):
        shape = list(A.shape)
        shape[axis] = 3
        ib = xp.broadcast_to(xp.reshape(idx, tuple(3 if a == axis else 1 for a in range(3))),
                             tuple(shape))
        others = tuple(a for a in range(3) if a != axis)
        return record(Op.GATHER, x.dtype, tuple(shape), (x._node, ib._node),
                      ((axis,), others, (axis,)))
    return f


def _set(key):
    def f(x):
        y = x * 1
        y[key] = -100.0
        return y
    return f


PAIRS = [
    ("sum axes", lambda x: xp.sum(x, axis=0), lambda x: xp.sum(x, axis=2),
     lambda: (A.sum(0), A.sum(2))),
    ("permute", lambda x: xp.permute_dims(x, (2, 0, 1)), lambda x: xp.permute_dims(x, (1, 2, 0)),
     lambda: (A.transpose(2, 0, 1), A.transpose(1, 2, 0))),
    ("slice", lambda x: x[:, 1:, ::2], lambda x: x[:, :2, 1::2],
     lambda: (A[:, 1:, ::2], A[:, :2, 1::2])),
    ("concat axis", lambda x: xp.concat([x, x], axis=0), lambda x: xp.concat([x, x], axis=2),
     lambda: (np.concatenate([A, A], 0), np.concatenate([A, A], 2))),
    ("argmax axis", _argmax(0), _argmax(2), lambda: (A.argmax(0), A.argmax(2))),
    ("cumsum axis", _cumsum(0), _cumsum(2), lambda: (A.cumsum(0), A.cumsum(2))),
    ("gather axis", _gather(1), _gather(2),
     lambda: (A[:, [2, 0, -1], :], A[:, :, [2, 0, -1]])),
    ("update region", _set((0, slice(None), 1)), _set((1, 2)),
     lambda: tuple(_np_set(k) for k in ((0, slice(None), 1), (1, 2)))),
]


def _np_set(key):
    r = A.copy()
    r[key] = -100.0
    return r


@pytest.mark.parametrize("name,f,g,want", PAIRS, ids=[p[0] for p in PAIRS])
@pytest.mark.parametrize("order", ["fg", "gf"])
def test_parameters_reach_the_cache_key(name, f, g, want, order):
    wf, wg = want()
    fns = [(f, wf), (g, wg)] if order == "fg" else [(g, wg), (f, wf)]
    for fn, w in fns:
        np.testing.assert_array_equal(np.asarray(fn(arr())), w)
